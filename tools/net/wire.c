// SPDX-License-Identifier: GPL-2.0
/*
 * The rths native protocol's codec (wire.h, Documentation/rths-protocol.rst):
 * explicit little-endian packing, so the layout never depends on a
 * compiler's struct padding or on the host's byte order.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wire.h"

/* Fixed payload sizes (the arrays of STEP and RESULT come after). */
#define HELLO_SIZE 96
#define WELCOME_SIZE 104
#define STEP_FIXED 24
#define RESULT_FIXED 32
#define PING_SIZE 16
#define BYE_SIZE 8
#define ERROR_FIXED 8

/* ------------------------------------------------------------ packing */

static void put16(unsigned char *p, uint16_t v)
{
	p[0] = v;
	p[1] = v >> 8;
}

static void put32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = v >> (8 * i);
}

static void put64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = v >> (8 * i);
}

static void putd(unsigned char *p, double d)
{
	uint64_t v;

	memcpy(&v, &d, sizeof(v));
	put64(p, v);
}

static uint16_t get16(const unsigned char *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t get32(const unsigned char *p)
{
	uint32_t v = 0;

	for (int i = 3; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static uint64_t get64(const unsigned char *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static double getd(const unsigned char *p)
{
	uint64_t v = get64(p);
	double d;

	memcpy(&d, &v, sizeof(d));
	return d;
}

static void put_name(unsigned char *p, const char *name)
{
	size_t n = strnlen(name, RNP_NAME_LEN - 1);

	memset(p, 0, RNP_NAME_LEN);
	memcpy(p, name, n);
}

/* ------------------------------------------------------------- buffer */

void rnp_buf_free(struct rnp_buf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}

void rnp_buf_consume(struct rnp_buf *b, size_t n)
{
	if (n >= b->len) {
		b->len = 0;
		return;
	}
	memmove(b->p, b->p + n, b->len - n);
	b->len -= n;
}

/* Room for a frame of 'payload' bytes; returns where the payload goes. */
static unsigned char *frame(struct rnp_buf *b, unsigned type, size_t payload)
{
	size_t need = b->len + RNP_HDR_SIZE + payload;
	unsigned char *p;

	if (need > b->cap) {
		size_t cap = b->cap ? b->cap : 256;

		while (cap < need)
			cap *= 2;
		p = realloc(b->p, cap);
		if (!p)
			return NULL;
		b->p = p;
		b->cap = cap;
	}
	p = b->p + b->len;
	put32(p, RNP_MAGIC);
	put16(p + 4, RNP_VERSION);
	put16(p + 6, type);
	put32(p + 8, payload);
	put32(p + 12, 0);
	b->len = need;
	return p + RNP_HDR_SIZE;
}

int rnp_put_hello(struct rnp_buf *b, const struct rnp_hello *m)
{
	unsigned char *p = frame(b, RNP_HELLO, HELLO_SIZE);

	if (!p)
		return -ENOMEM;
	put16(p, m->version_min);
	put16(p + 2, m->version_max);
	put32(p + 4, m->flags);
	put64(p + 8, m->test_id);
	put64(p + 16, m->last_seq);
	put32(p + 24, m->ndof);
	put32(p + 28, 0);
	put_name(p + 32, m->substructure);
	return 0;
}

int rnp_put_welcome(struct rnp_buf *b, const struct rnp_welcome *m)
{
	unsigned char *p = frame(b, RNP_WELCOME, WELCOME_SIZE);

	if (!p)
		return -ENOMEM;
	put16(p, m->version);
	put16(p + 2, m->kind);
	put32(p + 4, m->ndof);
	put64(p + 8, m->test_id);
	put64(p + 16, m->last_seq);
	put32(p + 24, m->heartbeat_ms);
	put32(p + 28, m->rate);
	put32(p + 32, m->step_ticks);
	put32(p + 36, 0);
	put_name(p + 40, m->substructure);
	return 0;
}

static unsigned step_vectors(uint32_t flags)
{
	return 1 + !!(flags & RNP_STEP_VEL) + !!(flags & RNP_STEP_ACC);
}

int rnp_put_step(struct rnp_buf *b, const struct rnp_step *m)
{
	unsigned nv = step_vectors(m->flags);
	const double *vec[3] = { m->u, NULL, NULL };
	unsigned char *p;
	unsigned k = 1;

	if (m->ndof == 0 || m->ndof > RNP_MAX_DOF)
		return -EINVAL;
	if (m->flags & RNP_STEP_VEL)
		vec[k++] = m->v;
	if (m->flags & RNP_STEP_ACC)
		vec[k++] = m->a;
	p = frame(b, RNP_STEP, STEP_FIXED + (size_t)nv * m->ndof * 8);
	if (!p)
		return -ENOMEM;
	put64(p, m->seq);
	putd(p + 8, m->t);
	put32(p + 16, m->flags);
	put32(p + 20, m->ndof);
	p += STEP_FIXED;
	for (k = 0; k < nv; k++)
		for (uint32_t i = 0; i < m->ndof; i++, p += 8)
			putd(p, vec[k][i]);
	return 0;
}

int rnp_put_result(struct rnp_buf *b, const struct rnp_result *m)
{
	unsigned char *p;

	if (m->ndof == 0 || m->ndof > RNP_MAX_DOF)
		return -EINVAL;
	p = frame(b, RNP_RESULT, RESULT_FIXED + (size_t)2 * m->ndof * 8);
	if (!p)
		return -ENOMEM;
	put64(p, m->seq);
	put32(p + 8, m->flags);
	put32(p + 12, m->ndof);
	put64(p + 16, m->compute_ns);
	put32(p + 24, m->late_ticks);
	put32(p + 28, m->fb_flags);
	p += RESULT_FIXED;
	for (uint32_t i = 0; i < m->ndof; i++, p += 8)
		putd(p, m->disp[i]);
	for (uint32_t i = 0; i < m->ndof; i++, p += 8)
		putd(p, m->force[i]);
	return 0;
}

int rnp_put_ping(struct rnp_buf *b, enum rnp_type type,
		 const struct rnp_ping *m)
{
	unsigned char *p;

	if (type != RNP_PING && type != RNP_PONG)
		return -EINVAL;
	p = frame(b, type, PING_SIZE);
	if (!p)
		return -ENOMEM;
	put64(p, m->nonce);
	put64(p + 8, m->time_ns);
	return 0;
}

int rnp_put_bye(struct rnp_buf *b)
{
	unsigned char *p = frame(b, RNP_BYE, BYE_SIZE);

	if (!p)
		return -ENOMEM;
	memset(p, 0, BYE_SIZE);
	return 0;
}

int rnp_put_error(struct rnp_buf *b, int code, const char *fmt, ...)
{
	char text[RNP_TEXT_MAX];
	unsigned char *p;
	va_list ap;
	size_t n;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	n = strlen(text);
	p = frame(b, RNP_ERROR, ERROR_FIXED + n);
	if (!p)
		return -ENOMEM;
	put32(p, (uint32_t)code);
	put32(p + 4, n);
	memcpy(p + 8, text, n);
	return 0;
}

/* ------------------------------------------------------------ parsing */

static int fail(int code, char *why, size_t why_len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int fail(int code, char *why, size_t why_len, const char *fmt, ...)
{
	va_list ap;

	if (why && why_len) {
		va_start(ap, fmt);
		vsnprintf(why, why_len, fmt, ap);
		va_end(ap);
	}
	return -code;
}

const char *rnp_type_name(unsigned type)
{
	static const char *const names[] = {
		[RNP_HELLO] = "HELLO", [RNP_WELCOME] = "WELCOME",
		[RNP_STEP] = "STEP", [RNP_RESULT] = "RESULT",
		[RNP_PING] = "PING", [RNP_PONG] = "PONG",
		[RNP_BYE] = "BYE", [RNP_ERROR] = "ERROR",
	};

	if (type < sizeof(names) / sizeof(names[0]) && names[type])
		return names[type];
	return "unknown";
}

const char *rnp_error_name(int code)
{
	static const char *const names[] = {
		[RNP_ERR_VERSION] = "version", [RNP_ERR_PROTOCOL] = "protocol",
		[RNP_ERR_SIZE] = "size", [RNP_ERR_UNKNOWN] = "unknown",
		[RNP_ERR_BUSY] = "busy", [RNP_ERR_SEQUENCE] = "sequence",
		[RNP_ERR_DOF] = "dof", [RNP_ERR_DEVICE] = "device",
		[RNP_ERR_AUTH] = "auth", [RNP_ERR_INTERNAL] = "internal",
	};

	if (code > 0 && code < (int)(sizeof(names) / sizeof(names[0])) &&
	    names[code])
		return names[code];
	return "unknown";
}

/* Smallest and largest payload of each type. */
static int length_ok(unsigned type, uint32_t len)
{
	const uint32_t max_arrays = (uint32_t)RNP_MAX_DOF * 8;

	switch (type) {
	case RNP_HELLO:
		return len == HELLO_SIZE;
	case RNP_WELCOME:
		return len == WELCOME_SIZE;
	case RNP_STEP:
		return len >= STEP_FIXED + 8 &&
		       len <= STEP_FIXED + 3 * max_arrays;
	case RNP_RESULT:
		return len >= RESULT_FIXED + 16 &&
		       len <= RESULT_FIXED + 2 * max_arrays;
	case RNP_PING:
	case RNP_PONG:
		return len == PING_SIZE;
	case RNP_BYE:
		return len == BYE_SIZE;
	case RNP_ERROR:
		return len >= ERROR_FIXED && len <= ERROR_FIXED + RNP_TEXT_MAX;
	}
	return 0;
}

int rnp_parse_hdr(const unsigned char hdr[RNP_HDR_SIZE], struct rnp_hdr *h,
		  char *why, size_t why_len)
{
	uint32_t magic = get32(hdr);

	if (magic != RNP_MAGIC)
		return fail(RNP_ERR_PROTOCOL, why, why_len,
			    "bad magic 0x%08x (not an rths native peer)",
			    magic);
	h->version = get16(hdr + 4);
	h->type = get16(hdr + 6);
	h->length = get32(hdr + 8);
	if (h->version != RNP_VERSION)
		return fail(RNP_ERR_VERSION, why, why_len,
			    "frame of protocol version %u, this is version %u",
			    h->version, RNP_VERSION);
	if (get32(hdr + 12))
		return fail(RNP_ERR_PROTOCOL, why, why_len,
			    "reserved header field is 0x%08x, not 0",
			    get32(hdr + 12));
	if (h->type < RNP_HELLO || h->type > RNP_ERROR)
		return fail(RNP_ERR_PROTOCOL, why, why_len,
			    "unknown frame type %u", h->type);
	if (h->length > RNP_MAX_PAYLOAD || !length_ok(h->type, h->length))
		return fail(RNP_ERR_SIZE, why, why_len,
			    "%s declares %u payload bytes, which it cannot have",
			    rnp_type_name(h->type), h->length);
	return 0;
}

static int get_name(char *dst, const unsigned char *p, const char *what,
		    char *why, size_t why_len)
{
	size_t n = strnlen((const char *)p, RNP_NAME_LEN);

	if (n == RNP_NAME_LEN)
		return fail(RNP_ERR_PROTOCOL, why, why_len,
			    "%s name is not NUL-terminated", what);
	for (size_t i = 0; i < n; i++)
		if (p[i] < 0x20 || p[i] > 0x7e)
			return fail(RNP_ERR_PROTOCOL, why, why_len,
				    "%s name has a non-printable byte", what);
	for (size_t i = n; i < RNP_NAME_LEN; i++)
		if (p[i])
			return fail(RNP_ERR_PROTOCOL, why, why_len,
				    "%s name is not NUL-padded", what);
	memcpy(dst, p, n + 1);
	return 0;
}

int rnp_parse_hello(const unsigned char *p, size_t len, struct rnp_hello *m,
		    char *why, size_t why_len)
{
	if (len != HELLO_SIZE)
		return fail(RNP_ERR_SIZE, why, why_len,
			    "HELLO of %zu bytes, not %d", len, HELLO_SIZE);
	m->version_min = get16(p);
	m->version_max = get16(p + 2);
	m->flags = get32(p + 4);
	m->test_id = get64(p + 8);
	m->last_seq = get64(p + 16);
	m->ndof = get32(p + 24);
	if (m->version_min > m->version_max)
		return fail(RNP_ERR_PROTOCOL, why, why_len,
			    "HELLO versions %u..%u are empty", m->version_min,
			    m->version_max);
	if (m->flags & ~RNP_HELLO_RESET)
		return fail(RNP_ERR_PROTOCOL, why, why_len,
			    "HELLO has unknown flags 0x%x", m->flags);
	if (!m->test_id)
		return fail(RNP_ERR_PROTOCOL, why, why_len,
			    "HELLO has test id 0");
	if (m->ndof > RNP_MAX_DOF)
		return fail(RNP_ERR_SIZE, why, why_len,
			    "HELLO expects %u DOF, more than %d", m->ndof,
			    RNP_MAX_DOF);
	if (get32(p + 28))
		return fail(RNP_ERR_PROTOCOL, why, why_len,
			    "HELLO reserved field is not 0");
	return get_name(m->substructure, p + 32, "substructure", why,
			why_len);
}

int rnp_parse_welcome(const unsigned char *p, size_t len,
		      struct rnp_welcome *m, char *why, size_t why_len)
{
	if (len != WELCOME_SIZE)
		return fail(RNP_ERR_SIZE, why, why_len,
			    "WELCOME of %zu bytes, not %d", len, WELCOME_SIZE);
	m->version = get16(p);
	m->kind = get16(p + 2);
	m->ndof = get32(p + 4);
	m->test_id = get64(p + 8);
	m->last_seq = get64(p + 16);
	m->heartbeat_ms = get32(p + 24);
	m->rate = get32(p + 28);
	m->step_ticks = get32(p + 32);
	if (m->version != RNP_VERSION)
		return fail(RNP_ERR_VERSION, why, why_len,
			    "site chose version %u", m->version);
	if (m->kind != RNP_KIND_NUMERICAL && m->kind != RNP_KIND_DEVICE)
		return fail(RNP_ERR_PROTOCOL, why, why_len,
			    "WELCOME has unknown kind %u", m->kind);
	if (!m->ndof || m->ndof > RNP_MAX_DOF)
		return fail(RNP_ERR_SIZE, why, why_len,
			    "WELCOME declares %u DOF", m->ndof);
	return get_name(m->substructure, p + 40, "substructure", why,
			why_len);
}

int rnp_parse_step(const unsigned char *p, size_t len, struct rnp_step *m,
		   uint32_t max_dof, char *why, size_t why_len)
{
	double *vec[3];
	unsigned nv, k = 1;

	if (len < STEP_FIXED)
		return fail(RNP_ERR_SIZE, why, why_len, "STEP of %zu bytes",
			    len);
	m->seq = get64(p);
	m->t = getd(p + 8);
	m->flags = get32(p + 16);
	m->ndof = get32(p + 20);
	if (m->flags & ~(RNP_STEP_VEL | RNP_STEP_ACC | RNP_STEP_REPLAY))
		return fail(RNP_ERR_PROTOCOL, why, why_len,
			    "STEP %llu has unknown flags 0x%x",
			    (unsigned long long)m->seq, m->flags);
	if (!m->ndof || m->ndof > max_dof)
		return fail(RNP_ERR_DOF, why, why_len,
			    "STEP %llu has %u DOF, expected 1..%u",
			    (unsigned long long)m->seq, m->ndof, max_dof);
	nv = step_vectors(m->flags);
	if (len != STEP_FIXED + (size_t)nv * m->ndof * 8)
		return fail(RNP_ERR_SIZE, why, why_len,
			    "STEP %llu of %zu bytes does not hold %u x %u doubles",
			    (unsigned long long)m->seq, len, nv, m->ndof);
	vec[0] = m->u;
	if (m->flags & RNP_STEP_VEL)
		vec[k++] = m->v;
	if (m->flags & RNP_STEP_ACC)
		vec[k++] = m->a;
	p += STEP_FIXED;
	for (k = 0; k < nv; k++)
		for (uint32_t i = 0; i < m->ndof; i++, p += 8)
			vec[k][i] = getd(p);
	return 0;
}

int rnp_parse_result(const unsigned char *p, size_t len,
		     struct rnp_result *m, uint32_t max_dof, char *why,
		     size_t why_len)
{
	if (len < RESULT_FIXED)
		return fail(RNP_ERR_SIZE, why, why_len, "RESULT of %zu bytes",
			    len);
	m->seq = get64(p);
	m->flags = get32(p + 8);
	m->ndof = get32(p + 12);
	m->compute_ns = get64(p + 16);
	m->late_ticks = get32(p + 24);
	m->fb_flags = get32(p + 28);
	if (!m->ndof || m->ndof > max_dof)
		return fail(RNP_ERR_DOF, why, why_len,
			    "RESULT %llu has %u DOF, expected 1..%u",
			    (unsigned long long)m->seq, m->ndof, max_dof);
	if (len != RESULT_FIXED + (size_t)2 * m->ndof * 8)
		return fail(RNP_ERR_SIZE, why, why_len,
			    "RESULT %llu of %zu bytes does not hold 2 x %u doubles",
			    (unsigned long long)m->seq, len, m->ndof);
	p += RESULT_FIXED;
	for (uint32_t i = 0; i < m->ndof; i++, p += 8)
		m->disp[i] = getd(p);
	for (uint32_t i = 0; i < m->ndof; i++, p += 8)
		m->force[i] = getd(p);
	return 0;
}

int rnp_parse_ping(const unsigned char *p, size_t len, struct rnp_ping *m,
		   char *why, size_t why_len)
{
	if (len != PING_SIZE)
		return fail(RNP_ERR_SIZE, why, why_len, "PING of %zu bytes",
			    len);
	m->nonce = get64(p);
	m->time_ns = get64(p + 8);
	return 0;
}

int rnp_parse_bye(const unsigned char *p, size_t len, char *why,
		  size_t why_len)
{
	if (len != BYE_SIZE)
		return fail(RNP_ERR_SIZE, why, why_len, "BYE of %zu bytes",
			    len);
	if (get32(p) || get32(p + 4))
		return fail(RNP_ERR_PROTOCOL, why, why_len,
			    "BYE with non-zero fields");
	return 0;
}

int rnp_parse_error(const unsigned char *p, size_t len, struct rnp_errmsg *m,
		    char *why, size_t why_len)
{
	uint32_t n;

	if (len < ERROR_FIXED)
		return fail(RNP_ERR_SIZE, why, why_len, "ERROR of %zu bytes",
			    len);
	m->code = (int32_t)get32(p);
	n = get32(p + 4);
	if (n >= RNP_TEXT_MAX || len != ERROR_FIXED + n)
		return fail(RNP_ERR_SIZE, why, why_len,
			    "ERROR text of %u bytes in a %zu-byte payload", n,
			    len);
	for (uint32_t i = 0; i < n; i++)
		m->text[i] = (p[8 + i] >= 0x20 && p[8 + i] <= 0x7e) ?
			     (char)p[8 + i] : '?';
	m->text[n] = '\0';
	return 0;
}

/* ------------------------------------------------------ whole messages */

int rnp_put_msg(struct rnp_buf *b, const struct rnp_msg *m)
{
	switch (m->h.type) {
	case RNP_HELLO:
		return rnp_put_hello(b, &m->hello);
	case RNP_WELCOME:
		return rnp_put_welcome(b, &m->welcome);
	case RNP_STEP:
		return rnp_put_step(b, &m->step);
	case RNP_RESULT:
		return rnp_put_result(b, &m->result);
	case RNP_PING:
	case RNP_PONG:
		return rnp_put_ping(b, m->h.type, &m->ping);
	case RNP_BYE:
		return rnp_put_bye(b);
	case RNP_ERROR:
		return rnp_put_error(b, m->error.code, "%s", m->error.text);
	}
	return -EINVAL;
}

static int parse_payload(const unsigned char *p, size_t len,
			 struct rnp_msg *m, char *why, size_t why_len)
{
	switch (m->h.type) {
	case RNP_HELLO:
		return rnp_parse_hello(p, len, &m->hello, why, why_len);
	case RNP_WELCOME:
		return rnp_parse_welcome(p, len, &m->welcome, why, why_len);
	case RNP_STEP:
		m->step.u = m->arr[0];
		m->step.v = m->arr[1];
		m->step.a = m->arr[2];
		return rnp_parse_step(p, len, &m->step, m->max_dof, why,
				      why_len);
	case RNP_RESULT:
		m->result.disp = m->arr[0];
		m->result.force = m->arr[1];
		return rnp_parse_result(p, len, &m->result, m->max_dof, why,
					why_len);
	case RNP_PING:
	case RNP_PONG:
		return rnp_parse_ping(p, len, &m->ping, why, why_len);
	case RNP_BYE:
		return rnp_parse_bye(p, len, why, why_len);
	case RNP_ERROR:
		return rnp_parse_error(p, len, &m->error, why, why_len);
	}
	return -RNP_ERR_PROTOCOL;	/* rnp_parse_hdr() let no other by */
}

int rnp_parse_frame(const unsigned char *p, size_t have, struct rnp_msg *m,
		    char *why, size_t why_len)
{
	char reason[RNP_TEXT_MAX];
	int r;

	if (have < RNP_HDR_SIZE)
		return 0;
	r = rnp_parse_hdr(p, &m->h, why, why_len);
	if (r < 0)
		return r;
	if (have - RNP_HDR_SIZE < m->h.length)
		return 0;
	if (!(m->accept & (1u << m->h.type)))
		return 1;
	r = parse_payload(p + RNP_HDR_SIZE, m->h.length, m, reason,
			  sizeof(reason));
	if (r < 0)
		return fail(-r, why, why_len, "bad %s: %s",
			    rnp_type_name(m->h.type), reason);
	return 1;
}
