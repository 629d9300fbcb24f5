// SPDX-License-Identifier: GPL-2.0
/*
 * TLS for the rths tools over GnuTLS (tls.h): credentials from psktool's
 * key files or PEM certificates, non-blocking handshakes and records.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gnutls/gnutls.h>
#include <gnutls/x509.h>

#include "tls.h"

#define ID_MAX 128		/* longest PSK identity */
#define PSK_MIN_BYTES 16	/* shorter keys are refused */

struct psk_entry {
	char id[ID_MAX];
	unsigned char *key;
	size_t len;
};

struct tls_creds {
	enum tls_role role;
	struct psk_entry *psk;
	size_t npsk;
	gnutls_psk_server_credentials_t psk_srv;
	gnutls_psk_client_credentials_t psk_cli;
	const char *psk_id;		/* client: the identity it uses */
	gnutls_certificate_credentials_t x509;
	int have_ca, have_cert;
};

struct tls_conn {
	struct tls_creds *c;
	gnutls_session_t s;
	int done;		/* handshake completed */
	int want_write;
	int send_blocked;	/* a record waits to be re-sent */
	int bye_sent;
	const char *kind;
	char peer[ID_MAX];
	char dn[256];
	char offered[ID_MAX];
	char err[512];
};

static int fail(char *err, size_t len, int code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int fail(char *err, size_t len, int code, const char *fmt, ...)
{
	va_list ap;

	if (err && len) {
		va_start(ap, fmt);
		vsnprintf(err, len, fmt, ap);
		va_end(ap);
	}
	return code;
}

/* ------------------------------------------------------- credentials */

int tls_creds_new(struct tls_creds **out, enum tls_role role, char *err,
		  size_t err_len)
{
	struct tls_creds *c = calloc(1, sizeof(*c));

	*out = NULL;
	if (!c)
		return fail(err, err_len, -ENOMEM, "out of memory");
	c->role = role;
	*out = c;
	return 0;
}

void tls_creds_free(struct tls_creds *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->npsk; i++) {
		if (c->psk[i].key)
			memset(c->psk[i].key, 0, c->psk[i].len);
		free(c->psk[i].key);
	}
	free(c->psk);
	if (c->psk_srv)
		gnutls_psk_free_server_credentials(c->psk_srv);
	if (c->psk_cli)
		gnutls_psk_free_client_credentials(c->psk_cli);
	if (c->x509)
		gnutls_certificate_free_credentials(c->x509);
	free(c);
}

static int hexval(int ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	ch = tolower(ch);
	return ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : -1;
}

/* One "identity:hexkey" line into e; 0 or a reason in why. */
static int parse_psk_line(char *line, struct psk_entry *e, const char **why)
{
	char *colon = strchr(line, ':'), *hex;
	size_t idlen, hexlen;

	if (!colon) {
		*why = "expected identity:hexkey";
		return -1;
	}
	idlen = colon - line;
	hex = colon + 1;
	hexlen = strlen(hex);
	if (!idlen || idlen >= ID_MAX) {
		*why = "identity must have 1 to 127 characters";
		return -1;
	}
	for (size_t i = 0; i < idlen; i++)
		if (line[i] < 0x21 || line[i] > 0x7e) {
			*why = "identity has a space or a non-printable byte";
			return -1;
		}
	if (hexlen % 2 || hexlen / 2 < PSK_MIN_BYTES) {
		*why = "key must be an even number of hex digits, 16 bytes or more";
		return -1;
	}
	e->key = malloc(hexlen / 2);
	if (!e->key) {
		*why = "out of memory";
		return -1;
	}
	for (size_t i = 0; i < hexlen / 2; i++) {
		int hi = hexval((unsigned char)hex[2 * i]);
		int lo = hexval((unsigned char)hex[2 * i + 1]);

		if (hi < 0 || lo < 0) {
			free(e->key);
			e->key = NULL;
			*why = "key has a character that is not a hex digit";
			return -1;
		}
		e->key[i] = (unsigned char)(hi << 4 | lo);
	}
	e->len = hexlen / 2;
	memcpy(e->id, line, idlen);
	e->id[idlen] = 0;
	return 0;
}

static int read_psk_file(struct tls_creds *c, const char *file, char *err,
			 size_t err_len)
{
	char line[1024];
	int lineno = 0, r = 0;
	FILE *f = fopen(file, "r");

	if (!f)
		return fail(err, err_len, -errno, "%s: %s", file,
			    strerror(errno));
	while (!r && fgets(line, sizeof(line), f)) {
		struct psk_entry e = { 0 }, *p;
		const char *why;
		size_t n = strlen(line);

		lineno++;
		if (n && line[n - 1] != '\n' && !feof(f)) {
			r = fail(err, err_len, -EINVAL, "%s:%d: line too long",
				 file, lineno);
			break;
		}
		while (n && isspace((unsigned char)line[n - 1]))
			line[--n] = 0;
		if (!n || line[0] == '#')
			continue;
		if (parse_psk_line(line, &e, &why)) {
			r = fail(err, err_len, -EINVAL, "%s:%d: %s", file,
				 lineno, why);
			break;
		}
		for (size_t i = 0; i < c->npsk; i++)
			if (!strcmp(c->psk[i].id, e.id))
				r = fail(err, err_len, -EINVAL,
					 "%s:%d: identity %s given twice",
					 file, lineno, e.id);
		p = r ? NULL : realloc(c->psk, (c->npsk + 1) * sizeof(*p));
		if (!p) {
			if (!r)
				r = fail(err, err_len, -ENOMEM,
					 "out of memory");
			free(e.key);
			break;
		}
		c->psk = p;
		c->psk[c->npsk++] = e;
	}
	fclose(f);
	if (!r && !c->npsk)
		r = fail(err, err_len, -EINVAL, "%s: no identity:hexkey line",
			 file);
	return r;
}

/* The server's lookup: GnuTLS frees the key it is handed. */
static int psk_lookup(gnutls_session_t s, const char *username,
		      gnutls_datum_t *key)
{
	struct tls_conn *t = gnutls_session_get_ptr(s);

	snprintf(t->offered, sizeof(t->offered), "%s", username);
	for (size_t i = 0; i < t->c->npsk; i++) {
		const struct psk_entry *e = &t->c->psk[i];

		if (strcmp(e->id, username))
			continue;
		key->data = gnutls_malloc(e->len);
		if (!key->data)
			return -1;
		memcpy(key->data, e->key, e->len);
		key->size = (unsigned)e->len;
		return 0;
	}
	return -1;
}

int tls_creds_psk_file(struct tls_creds *c, const char *file,
		       const char *identity, char *err, size_t err_len)
{
	const struct psk_entry *use = NULL;
	gnutls_datum_t key;
	int r;

	if (c->npsk)
		return fail(err, err_len, -EINVAL, "%s: keys already loaded",
			    file);
	r = read_psk_file(c, file, err, err_len);
	if (r)
		return r;
	if (c->role == TLS_SERVER) {
		if (gnutls_psk_allocate_server_credentials(&c->psk_srv))
			return fail(err, err_len, -ENOMEM, "out of memory");
		gnutls_psk_set_server_credentials_function(c->psk_srv,
							   psk_lookup);
		return 0;
	}
	for (size_t i = 0; i < c->npsk && !use; i++)
		if (!identity || !strcmp(c->psk[i].id, identity))
			use = &c->psk[i];
	if (!use)
		return fail(err, err_len, -ENOENT, "%s: no key for identity %s",
			    file, identity);
	if (gnutls_psk_allocate_client_credentials(&c->psk_cli))
		return fail(err, err_len, -ENOMEM, "out of memory");
	key.data = use->key;
	key.size = (unsigned)use->len;
	r = gnutls_psk_set_client_credentials(c->psk_cli, use->id, &key,
					      GNUTLS_PSK_KEY_RAW);
	if (r < 0)
		return fail(err, err_len, -EINVAL, "%s: %s", file,
			    gnutls_strerror(r));
	c->psk_id = use->id;
	return 0;
}

int tls_creds_x509(struct tls_creds *c, const char *ca_file,
		   const char *cert_file, const char *key_file, char *err,
		   size_t err_len)
{
	int r;

	if (c->x509)
		return fail(err, err_len, -EINVAL, "certificates already loaded");
	if (!cert_file != !key_file)
		return fail(err, err_len, -EINVAL,
			    "a certificate needs its key and a key its certificate");
	if (c->role == TLS_SERVER && !cert_file)
		return fail(err, err_len, -EINVAL,
			    "a server needs a certificate and its key");
	if (c->role == TLS_CLIENT && !ca_file)
		return fail(err, err_len, -EINVAL,
			    "a client needs the CA that signed the server's certificate");
	if (gnutls_certificate_allocate_credentials(&c->x509))
		return fail(err, err_len, -ENOMEM, "out of memory");
	if (ca_file) {
		r = gnutls_certificate_set_x509_trust_file(c->x509, ca_file,
							   GNUTLS_X509_FMT_PEM);
		if (r <= 0)
			return fail(err, err_len, -EINVAL, "%s: %s", ca_file,
				    r ? gnutls_strerror(r) :
				    "no certificate in it");
		c->have_ca = 1;
	}
	if (cert_file) {
		r = gnutls_certificate_set_x509_key_file(c->x509, cert_file,
							 key_file,
							 GNUTLS_X509_FMT_PEM);
		if (r < 0)
			return fail(err, err_len, -EINVAL, "%s, %s: %s",
				    cert_file, key_file, gnutls_strerror(r));
		c->have_cert = 1;
	}
	return 0;
}

int tls_creds_have_psk(const struct tls_creds *c)
{
	return c->npsk > 0;
}

int tls_creds_have_x509(const struct tls_creds *c)
{
	return c->x509 != NULL;
}

/* -------------------------------------------------------- connection */

static void set_err(struct tls_conn *t, const char *what, int r)
{
	if (r == GNUTLS_E_FATAL_ALERT_RECEIVED ||
	    r == GNUTLS_E_WARNING_ALERT_RECEIVED)
		snprintf(t->err, sizeof(t->err), "%s: the peer sent alert \"%s\"",
			 what, gnutls_alert_get_name(gnutls_alert_get(t->s)));
	else
		snprintf(t->err, sizeof(t->err), "%s: %s", what,
			 gnutls_strerror(r));
}

int tls_conn_new(struct tls_conn **out, struct tls_creds *c, int fd,
		 const char *server_name, char *err, size_t err_len)
{
	/* PSK key exchanges besides the certificate ones of NORMAL. */
	static const char prio_psk[] = "NORMAL:+ECDHE-PSK:+DHE-PSK:+PSK";
	unsigned flags = (c->role == TLS_SERVER ? GNUTLS_SERVER :
			  GNUTLS_CLIENT) | GNUTLS_NONBLOCK | GNUTLS_NO_TICKETS;
	struct tls_conn *t;
	const char *pos;
	int r;

	*out = NULL;
	if (!c->npsk && !c->x509)
		return fail(err, err_len, -EINVAL, "no TLS credentials");
	t = calloc(1, sizeof(*t));
	if (!t)
		return fail(err, err_len, -ENOMEM, "out of memory");
	t->c = c;
	t->kind = "none";
	r = gnutls_init(&t->s, flags);
	if (r < 0) {
		free(t);
		return fail(err, err_len, -ENOMEM, "gnutls_init: %s",
			    gnutls_strerror(r));
	}
	gnutls_session_set_ptr(t->s, t);
	r = gnutls_priority_set_direct(t->s, c->npsk ? prio_psk : "NORMAL",
				       &pos);
	if (r >= 0 && c->npsk)
		r = gnutls_credentials_set(t->s, GNUTLS_CRD_PSK,
					   c->role == TLS_SERVER ?
					   (void *)c->psk_srv :
					   (void *)c->psk_cli);
	if (r >= 0 && c->x509)
		r = gnutls_credentials_set(t->s, GNUTLS_CRD_CERTIFICATE,
					   c->x509);
	if (r >= 0 && c->role == TLS_SERVER && c->have_ca)
		gnutls_certificate_server_set_request(t->s,
						      GNUTLS_CERT_REQUIRE);
	if (r >= 0 && c->role == TLS_CLIENT && server_name)
		r = gnutls_server_name_set(t->s, GNUTLS_NAME_DNS, server_name,
					   strlen(server_name));
	if (r >= 0 && c->role == TLS_CLIENT && c->have_ca)
		gnutls_session_set_verify_cert(t->s, server_name, 0);
	if (r < 0) {
		fail(err, err_len, -EINVAL, "TLS set-up: %s",
		     gnutls_strerror(r));
		tls_conn_free(t);
		return -EINVAL;
	}
	gnutls_transport_set_int(t->s, fd);
	gnutls_handshake_set_timeout(t->s, 0);
	*out = t;
	return 0;
}

void tls_conn_free(struct tls_conn *t)
{
	if (!t)
		return;
	gnutls_deinit(t->s);
	free(t);
}

/* The peer's first certificate: its DN and common name. */
static int peer_cert(struct tls_conn *t)
{
	const gnutls_datum_t *list;
	unsigned n = 0;
	gnutls_x509_crt_t crt;
	size_t len;
	int r;

	list = gnutls_certificate_get_peers(t->s, &n);
	if (!list || !n)
		return 0;
	if (gnutls_x509_crt_init(&crt) < 0)
		return -1;
	r = gnutls_x509_crt_import(crt, &list[0], GNUTLS_X509_FMT_DER);
	len = sizeof(t->dn);
	if (r >= 0)
		r = gnutls_x509_crt_get_dn(crt, t->dn, &len);
	len = sizeof(t->peer);
	if (r >= 0 && gnutls_x509_crt_get_dn_by_oid(crt,
			GNUTLS_OID_X520_COMMON_NAME, 0, 0, t->peer, &len) < 0)
		t->peer[0] = 0;
	gnutls_x509_crt_deinit(crt);
	return r < 0 ? -1 : 0;
}

/* t->err = "WHAT: " and GnuTLS's text for a verification status. */
static void status_err(struct tls_conn *t, const char *what,
		       unsigned int status)
{
	gnutls_datum_t why;
	size_t n;

	if (gnutls_certificate_verification_status_print(status,
			GNUTLS_CRT_X509, &why, 0) < 0) {
		snprintf(t->err, sizeof(t->err), "%s", what);
		return;
	}
	n = strlen((char *)why.data);
	while (n && why.data[n - 1] == ' ')
		why.data[--n] = 0;
	snprintf(t->err, sizeof(t->err), "%s: %.300s", what, why.data);
	gnutls_free(why.data);
}

/* A server checks the client's certificate itself (GnuTLS verifies a
 * server's for the client through gnutls_session_set_verify_cert()). */
static int verify_client(struct tls_conn *t)
{
	unsigned status = 0;
	char what[256];
	int r;

	r = gnutls_certificate_verify_peers2(t->s, &status);
	if (r < 0) {
		set_err(t, "client certificate", r);
		return -1;
	}
	if (!status)
		return 0;
	snprintf(what, sizeof(what), "client certificate \"%.200s\" rejected",
		 t->dn);
	status_err(t, what, status);
	return -1;
}

/* A client's handshake stopped at the server's certificate: why, from
 * GnuTLS's verification status rather than its generic error text. */
static int server_rejected(struct tls_conn *t)
{
	status_err(t, "TLS handshake: the server's certificate is not accepted",
		   gnutls_session_get_verify_cert_status(t->s));
	return -EKEYREJECTED;
}

/* A server refuses a client it cannot authenticate with an alert: best
 * effort, on a socket that has room for one small record. */
static void deny(struct tls_conn *t, gnutls_alert_description_t why)
{
	gnutls_alert_send(t->s, GNUTLS_AL_FATAL, why);
	t->bye_sent = 1;
}

/* Alerts that say the peer would not authenticate us or let us in. */
static int auth_alert(gnutls_alert_description_t a)
{
	switch (a) {
	case GNUTLS_A_BAD_CERTIFICATE:
	case GNUTLS_A_UNSUPPORTED_CERTIFICATE:
	case GNUTLS_A_CERTIFICATE_REVOKED:
	case GNUTLS_A_CERTIFICATE_EXPIRED:
	case GNUTLS_A_CERTIFICATE_UNKNOWN:
	case GNUTLS_A_UNKNOWN_CA:
	case GNUTLS_A_ACCESS_DENIED:
	case GNUTLS_A_DECRYPT_ERROR:
	case GNUTLS_A_UNKNOWN_PSK_IDENTITY:
	case GNUTLS_A_CERTIFICATE_REQUIRED:
	case GNUTLS_A_INSUFFICIENT_SECURITY:
	case GNUTLS_A_HANDSHAKE_FAILURE:
		return 1;
	default:
		return 0;
	}
}

/* A server's handshake errors that refuse the client's credentials (not
 * a peer that speaks no TLS: it gets no alert, only the close). */
static int refusal(int r)
{
	switch (r) {
	case GNUTLS_E_RECEIVED_ILLEGAL_PARAMETER:	/* a wrong PSK */
	case GNUTLS_E_DECRYPTION_FAILED:
	case GNUTLS_E_CERTIFICATE_REQUIRED:
	case GNUTLS_E_NO_CERTIFICATE_FOUND:
	case GNUTLS_E_CERTIFICATE_ERROR:
	case GNUTLS_E_CERTIFICATE_VERIFICATION_ERROR:
	case GNUTLS_E_INSUFFICIENT_CREDENTIALS:
	case GNUTLS_E_NO_CIPHER_SUITES:
		return 1;
	default:
		return 0;
	}
}

int tls_handshake(struct tls_conn *t)
{
	int r;

	if (t->done)
		return 0;
	r = gnutls_handshake(t->s);
	if (r == GNUTLS_E_AGAIN || r == GNUTLS_E_INTERRUPTED) {
		t->want_write = gnutls_record_get_direction(t->s);
		return -EAGAIN;
	}
	if (r == GNUTLS_E_CERTIFICATE_VERIFICATION_ERROR)
		return server_rejected(t);
	if (r < 0) {
		set_err(t, "TLS handshake", r);
		if (r == GNUTLS_E_FATAL_ALERT_RECEIVED)
			return -EACCES;
		/* Tell the client why (a wrong key, no common suite), so
		 * that it does not take the failure for a broken link. */
		if (t->c->role == TLS_SERVER && r == GNUTLS_E_SRP_PWD_ERROR)
			deny(t, GNUTLS_A_UNKNOWN_PSK_IDENTITY);
		else if (t->c->role == TLS_SERVER && refusal(r))
			gnutls_alert_send_appropriate(t->s, r);
		return -EPROTO;
	}
	switch (gnutls_auth_get_type(t->s)) {
	case GNUTLS_CRD_PSK:
		t->kind = "psk";
		snprintf(t->peer, sizeof(t->peer), "%s",
			 t->c->role == TLS_SERVER ?
			 gnutls_psk_server_get_username(t->s) : t->c->psk_id);
		break;
	case GNUTLS_CRD_CERTIFICATE:
		if (peer_cert(t)) {
			snprintf(t->err, sizeof(t->err),
				 "the peer's certificate cannot be read");
			return -EPROTO;
		}
		t->kind = t->dn[0] ? "x509" : "none";
		/*
		 * A server never lets an unauthenticated client in: a
		 * certificate handshake needs a client certificate that the
		 * site's CA verifies.  Without a CA (a site with a PSK and a
		 * certificate of its own) only PSK clients get through.
		 */
		if (t->c->role == TLS_SERVER &&
		    (!t->c->have_ca || !t->dn[0] || verify_client(t))) {
			if (!t->c->have_ca)
				snprintf(t->err, sizeof(t->err),
					 "the client did not authenticate: no PSK, and this site has no CA to verify a certificate");
			else if (!t->dn[0])
				snprintf(t->err, sizeof(t->err),
					 "the client presented no certificate");
			deny(t, GNUTLS_A_ACCESS_DENIED);
			return -EPROTO;
		}
		break;
	default:
		break;
	}
	t->done = 1;
	t->want_write = 0;
	return 0;
}

int tls_want_write(const struct tls_conn *t)
{
	return t->want_write;
}

ssize_t tls_send(struct tls_conn *t, const void *buf, size_t len)
{
	ssize_t r;

	/* GnuTLS re-sends the record it has already built. */
	if (t->send_blocked)
		r = gnutls_record_send(t->s, NULL, 0);
	else
		r = gnutls_record_send(t->s, buf, len);
	if (r == GNUTLS_E_AGAIN || r == GNUTLS_E_INTERRUPTED) {
		t->send_blocked = 1;
		t->want_write = gnutls_record_get_direction(t->s);
		errno = EAGAIN;
		return -1;
	}
	t->send_blocked = 0;
	t->want_write = 0;
	if (r < 0) {
		set_err(t, "TLS send", (int)r);
		errno = EPROTO;
		return -1;
	}
	return r;
}

ssize_t tls_recv(struct tls_conn *t, void *buf, size_t len)
{
	ssize_t r = gnutls_record_recv(t->s, buf, len);

	if (r == GNUTLS_E_AGAIN || r == GNUTLS_E_INTERRUPTED) {
		t->want_write = gnutls_record_get_direction(t->s);
		errno = EAGAIN;
		return -1;
	}
	/* A peer that closes the socket without close_notify has ended
	 * the stream all the same (the message layer notices a cut). */
	if (r == GNUTLS_E_PREMATURE_TERMINATION)
		return 0;
	if (r < 0) {
		set_err(t, "TLS receive", (int)r);
		errno = r == GNUTLS_E_FATAL_ALERT_RECEIVED &&
			auth_alert(gnutls_alert_get(t->s)) ? EACCES : EPROTO;
		return -1;
	}
	return r;
}

size_t tls_pending(const struct tls_conn *t)
{
	return t->done ? gnutls_record_check_pending(t->s) : 0;
}

void tls_close(struct tls_conn *t)
{
	if (t && t->done && !t->bye_sent) {
		t->bye_sent = 1;
		gnutls_bye(t->s, GNUTLS_SHUT_WR);
	}
}

const char *tls_peer(const struct tls_conn *t)
{
	return t->peer;
}

const char *tls_peer_dn(const struct tls_conn *t)
{
	return t->dn;
}

const char *tls_peer_kind(const struct tls_conn *t)
{
	return t->kind;
}

const char *tls_error(const struct tls_conn *t)
{
	return t->err;
}

const char *tls_offered_identity(const struct tls_conn *t)
{
	return t->offered;
}
