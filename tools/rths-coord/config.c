// SPDX-License-Identifier: GPL-2.0
/*
 * The experiment file: rths-run's plus "sites" and "replay" (Documentation/
 * rths-coord.rst).  librths's parser refuses unknown keys, so "sites" is
 * checked here, taken out, and the rest goes to rths_hs_experiment_parse()
 * unchanged (jansson writes reals with 17 digits: they come back exact).
 * An interface wider than librths's experiment holds (struct coord_wide)
 * is read here too.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <libgen.h>
#include <math.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "coord.h"
#include "../net/tls.h"
#include "../common/cli.h"

struct ctx {
	const char *file;
	char *msg;
	size_t len;
	char dir[COORD_PATH_LEN];
};

static int fail(struct ctx *cx, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct ctx *cx, const char *path, const char *fmt, ...)
{
	char what[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	snprintf(cx->msg, cx->len, "%s: [%s] %s: %s", cx->file,
		 tool_message_kind(what), path, what);
	return -EINVAL;
}

static char *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0, r;

	if (!f)
		return NULL;
	do {
		if (n + 4096 + 1 > cap) {
			char *p = realloc(buf, cap = 2 * cap + 8192);

			if (!p) {
				free(buf);
				fclose(f);
				errno = ENOMEM;
				return NULL;
			}
			buf = p;
		}
		r = fread(buf + n, 1, cap - n - 1, f);
		n += r;
	} while (r > 0);
	if (ferror(f)) {
		free(buf);
		fclose(f);
		errno = EIO;
		return NULL;
	}
	fclose(f);
	buf[n] = '\0';
	*len = n;
	return buf;
}

static uint64_t fnv1a64(const char *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)p[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

static int get_string(struct ctx *cx, json_t *o, const char *key,
		      const char *path, char *out, size_t size)
{
	json_t *v = json_object_get(o, key);
	char p[96];

	snprintf(p, sizeof(p), "%s.%s", path, key);
	if (!v)
		return 1;
	if (!json_is_string(v))
		return fail(cx, p, "expected a string");
	if (json_string_length(v) == 0 || json_string_length(v) >= size)
		return fail(cx, p, "expected 1 to %zu characters", size - 1);
	memcpy(out, json_string_value(v), json_string_length(v) + 1);
	return 0;
}

/* A file name; relative ones are taken from the experiment's directory. */
static int get_file(struct ctx *cx, json_t *o, const char *key,
		    const char *path, char *out)
{
	char tmp[COORD_PATH_LEN];
	int r = get_string(cx, o, key, path, tmp, sizeof(tmp) - 256);

	if (r)
		return r;
	if (tmp[0] == '/')
		snprintf(out, COORD_PATH_LEN, "%s", tmp);
	else if ((size_t)snprintf(out, COORD_PATH_LEN, "%s/%s", cx->dir, tmp) >=
		 COORD_PATH_LEN)
		return fail(cx, path, "%s: the path is too long", key);
	return 0;
}

static int get_seconds(struct ctx *cx, json_t *o, const char *key,
		       const char *path, double lo, double hi, double *out)
{
	json_t *v = json_object_get(o, key);
	char p[96];

	if (!v)
		return 0;
	snprintf(p, sizeof(p), "%s.%s", path, key);
	if (!json_is_number(v) || !(json_number_value(v) >= lo) ||
	    !(json_number_value(v) <= hi))
		return fail(cx, p, "expected seconds from %g to %g", lo, hi);
	*out = json_number_value(v);
	return 0;
}

static int check_keys(struct ctx *cx, json_t *o, const char *path,
		      const char *const *keys)
{
	const char *k;
	json_t *v;

	json_object_foreach(o, k, v) {
		size_t i;

		for (i = 0; keys[i] && strcmp(keys[i], k); i++)
			;
		if (!keys[i])
			return fail(cx, path, "unknown field '%s'", k);
	}
	return 0;
}

static bool valid_name(const char *s)
{
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_' || *s == '-'))
			return false;
	return true;
}

static int parse_tls(struct ctx *cx, json_t *t, const char *path,
		     struct site_tls *tls)
{
	static const char *const keys[] = {
		"psk_file", "psk_identity", "ca", "cert", "key",
		"server_name", NULL,
	};
	int r;

	if (!json_is_object(t))
		return fail(cx, path, "expected an object");
	if ((r = check_keys(cx, t, path, keys)))
		return r;
	tls->on = true;
	if ((r = get_file(cx, t, "psk_file", path, tls->psk_file)) < 0 ||
	    (r = get_string(cx, t, "psk_identity", path, tls->psk_identity,
			    sizeof(tls->psk_identity))) < 0 ||
	    (r = get_file(cx, t, "ca", path, tls->ca)) < 0 ||
	    (r = get_file(cx, t, "cert", path, tls->cert)) < 0 ||
	    (r = get_file(cx, t, "key", path, tls->key)) < 0 ||
	    (r = get_string(cx, t, "server_name", path, tls->server_name,
			    sizeof(tls->server_name))) < 0)
		return r;
	if (tls->psk_file[0]) {
		if (tls->ca[0] || tls->cert[0] || tls->key[0])
			return fail(cx, path, "psk_file excludes ca, cert and key");
		if (!tls->psk_identity[0])
			return fail(cx, path, "psk_identity: missing (required with psk_file)");
		return 0;
	}
	if (tls->psk_identity[0])
		return fail(cx, path, "psk_identity: only with psk_file");
	if (!tls->ca[0])
		return fail(cx, path, "expected psk_file and psk_identity, or ca (with cert and key)");
	if (!tls->cert[0] != !tls->key[0])
		return fail(cx, path, "cert and key go together");
	return 0;
}

static bool is_loopback(const struct sockaddr_storage *a)
{
	if (a->ss_family == AF_INET) {
		const struct sockaddr_in *in = (const void *)a;

		return (ntohl(in->sin_addr.s_addr) >> 24) == 127;
	}
	if (a->ss_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const void *)a;

		return IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr) ||
		       (IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr) &&
			in6->sin6_addr.s6_addr[12] == 127);
	}
	return false;
}

static int resolve(struct ctx *cx, const char *path, struct site_config *s)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_NUMERICSERV };
	struct addrinfo *res;
	char port[16], p[64];
	int r;

	snprintf(p, sizeof(p), "%s.address", path);
	snprintf(port, sizeof(port), "%d", s->port);
	r = getaddrinfo(s->address, port, &hints, &res);
	if (r)
		return fail(cx, p, "'%s': %s", s->address, gai_strerror(r));
	memcpy(&s->addr, res->ai_addr, res->ai_addrlen);
	s->addr_len = res->ai_addrlen;
	freeaddrinfo(res);
	if (!s->tls.on && !is_loopback(&s->addr))
		return fail(cx, p, "'%s' is not a loopback address: plain TCP only on loopback, give this site tls credentials",
			    s->address);
	return 0;
}

static int parse_site(struct ctx *cx, json_t *o, size_t idx,
		      struct site_config *s)
{
	static const char *const keys[] = {
		"name", "address", "port", "substructure", "dofs",
		"step_timeout", "connect_timeout", "give_up", "max_retries",
		"tls", NULL,
	};
	char path[48], p[80];
	json_t *v, *d;
	size_t i;
	int r;

	snprintf(path, sizeof(path), "sites[%zu]", idx);
	if (!json_is_object(o))
		return fail(cx, path, "expected an object");
	if ((r = check_keys(cx, o, path, keys)))
		return r;
	r = get_string(cx, o, "name", path, s->name, sizeof(s->name));
	if (r > 0)
		return fail(cx, path, "name: missing (required)");
	if (r < 0)
		return r;
	snprintf(p, sizeof(p), "%s.name", path);
	if (!valid_name(s->name))
		return fail(cx, p, "'%s': expected letters, digits, '_' and '-'",
			    s->name);
	strcpy(s->address, "127.0.0.1");
	if ((r = get_string(cx, o, "address", path, s->address,
			    sizeof(s->address))) < 0)
		return r;
	snprintf(p, sizeof(p), "%s.port", path);
	v = json_object_get(o, "port");
	if (!v)
		return fail(cx, p, "missing (required)");
	if (!json_is_integer(v) || json_integer_value(v) < 1 ||
	    json_integer_value(v) > 65535)
		return fail(cx, p, "expected an integer from 1 to 65535");
	s->port = (int)json_integer_value(v);
	snprintf(s->substructure, sizeof(s->substructure), "%s", s->name);
	r = get_string(cx, o, "substructure", path, s->substructure,
		       sizeof(s->substructure));
	if (r < 0)
		return r;
	snprintf(p, sizeof(p), "%s.substructure", path);
	for (const char *c = s->substructure; *c; c++)
		if (*c < 0x20 || *c > 0x7e)
			return fail(cx, p, "expected printable ASCII");
	snprintf(p, sizeof(p), "%s.dofs", path);
	d = json_object_get(o, "dofs");
	if (!d)
		return fail(cx, p, "missing (required)");
	if (!json_is_array(d) || json_array_size(d) < 1 ||
	    json_array_size(d) > RTHS_HS_MAX_CHANNELS)
		return fail(cx, p, "expected a list of 1 to %d interface coordinates",
			    RTHS_HS_MAX_CHANNELS);
	s->ndof = (uint32_t)json_array_size(d);
	json_array_foreach(d, i, v) {
		snprintf(p, sizeof(p), "%s.dofs[%zu]", path, i);
		if (!json_is_integer(v) || json_integer_value(v) < 0 ||
		    json_integer_value(v) >= RTHS_HS_MAX_INTERFACE)
			return fail(cx, p, "expected an interface coordinate from 0 to %d",
				    RTHS_HS_MAX_INTERFACE - 1);
		s->dofs[i] = (uint32_t)json_integer_value(v);
	}
	s->step_timeout = 1;
	s->connect_timeout = 5;
	s->give_up = 60;
	if ((r = get_seconds(cx, o, "step_timeout", path, 0.001, 3600,
			     &s->step_timeout)) ||
	    (r = get_seconds(cx, o, "connect_timeout", path, 0.001, 3600,
			     &s->connect_timeout)) ||
	    (r = get_seconds(cx, o, "give_up", path, 0, 86400 * 7,
			     &s->give_up)))
		return r;
	s->max_retries = 20;
	if ((v = json_object_get(o, "max_retries"))) {
		snprintf(p, sizeof(p), "%s.max_retries", path);
		if (!json_is_integer(v) || json_integer_value(v) < 0 ||
		    json_integer_value(v) > 1000000)
			return fail(cx, p, "expected an integer from 0 to 1000000");
		s->max_retries = (uint32_t)json_integer_value(v);
	}
	if ((v = json_object_get(o, "tls"))) {
		snprintf(p, sizeof(p), "%s.tls", path);
		if ((r = parse_tls(cx, v, p, &s->tls)))
			return r;
	}
	return resolve(cx, path, s);
}

static int parse_sites(struct ctx *cx, json_t *sites, struct coord_config *cc)
{
	json_t *o;
	size_t i;
	int r;

	if (!json_is_array(sites) || json_array_size(sites) < 1 ||
	    json_array_size(sites) > COORD_MAX_SITES)
		return fail(cx, "sites", "expected a list of 1 to %d sites",
			    COORD_MAX_SITES);
	cc->n_sites = json_array_size(sites);
	cc->sites = calloc(cc->n_sites, sizeof(*cc->sites));
	cc->creds = calloc(cc->n_sites, sizeof(*cc->creds));
	if (!cc->sites || !cc->creds)
		return fail(cx, "sites", "out of memory");
	json_array_foreach(sites, i, o) {
		if ((r = parse_site(cx, o, i, &cc->sites[i])))
			return r;
		for (size_t k = 0; k < i; k++) {
			char p[48];

			snprintf(p, sizeof(p), "sites[%zu].name", i);
			if (!strcmp(cc->sites[k].name, cc->sites[i].name))
				return fail(cx, p, "'%s' names sites[%zu] already",
					    cc->sites[i].name, k);
		}
	}
	return 0;
}

/* "replay": {"on_mismatch": "stop" | "warn"} (default stop). */
static int parse_replay(struct ctx *cx, json_t *o, struct coord_config *cc)
{
	static const char *const keys[] = { "on_mismatch", NULL };
	const char *m;
	json_t *v;
	int r;

	if (!json_is_object(o))
		return fail(cx, "replay", "expected an object");
	if ((r = check_keys(cx, o, "replay", keys)))
		return r;
	v = json_object_get(o, "on_mismatch");
	if (!v)
		return 0;
	m = json_is_string(v) ? json_string_value(v) : "";
	if (strcmp(m, "stop") && strcmp(m, "warn"))
		return fail(cx, "replay.on_mismatch", "expected \"stop\" or \"warn\"");
	cc->replay_warn = !strcmp(m, "warn");
	return 0;
}

/* Every interface coordinate belongs to exactly one site. */
static int check_dofs(struct ctx *cx, struct coord_config *cc, size_t n_if)
{
	int owner[RTHS_HS_MAX_INTERFACE];

	for (size_t i = 0; i < RTHS_HS_MAX_INTERFACE; i++)
		owner[i] = -1;
	for (size_t s = 0; s < cc->n_sites; s++) {
		for (uint32_t j = 0; j < cc->sites[s].ndof; j++) {
			uint32_t c = cc->sites[s].dofs[j];
			char p[48];

			snprintf(p, sizeof(p), "sites[%zu].dofs[%u]", s, j);
			if (c >= n_if)
				return fail(cx, p, "interface coordinate %u, but the substructure has %zu (0 to %zu)",
					    c, n_if, n_if - 1);
			if (owner[c] >= 0)
				return fail(cx, p, "interface coordinate %u belongs to site %s already",
					    c, cc->sites[owner[c]].name);
			owner[c] = (int)s;
		}
	}
	for (size_t i = 0; i < n_if; i++)
		if (owner[i] < 0)
			return fail(cx, "sites", "no site owns interface coordinate %zu",
				    i);
	return 0;
}

/* Each site's TLS credentials, loaded now so that a bad file is told
 * before the test starts. */
static int load_creds(struct ctx *cx, struct coord_config *cc)
{
	for (size_t i = 0; i < cc->n_sites; i++) {
		const struct site_tls *t = &cc->sites[i].tls;
		char p[48], why[320];
		int r;

		if (!t->on)
			continue;
		snprintf(p, sizeof(p), "sites[%zu].tls", i);
		r = tls_creds_new(&cc->creds[i], TLS_CLIENT, why, sizeof(why));
		if (!r && t->psk_file[0])
			r = tls_creds_psk_file(cc->creds[i], t->psk_file,
					       t->psk_identity, why,
					       sizeof(why));
		if (!r && t->ca[0])
			r = tls_creds_x509(cc->creds[i], t->ca,
					   t->cert[0] ? t->cert : NULL,
					   t->key[0] ? t->key : NULL, why,
					   sizeof(why));
		if (r)
			return fail(cx, p, "%s", why);
	}
	return 0;
}

/* ---------------------------------------------- a wide interface */

/* More rows in substructure.command_map than librths's experiment holds:
 * "substructure", "specimen" and "setup" move into *taken. */
static bool take_wide(json_t *root, json_t **taken)
{
	static const char *const keys[] = { "substructure", "specimen",
					    "setup", NULL };
	json_t *cm = json_object_get(json_object_get(root, "substructure"),
				     "command_map");
	json_t *out = json_object_get(root, "outputs");

	*taken = NULL;
	if (!json_is_array(cm) || json_array_size(cm) <= RTHS_HS_NCH)
		return false;
	*taken = json_object();
	for (size_t i = 0; *taken && keys[i]; i++) {
		json_t *v = json_object_get(root, keys[i]);

		if (v && !json_object_set(*taken, keys[i], v))
			json_object_del(root, keys[i]);
	}
	/* librths refuses a reference without a specimen, but takes its
	 * default (true): the file's true goes */
	if (json_is_true(json_object_get(out, "reference")))
		json_object_del(out, "reference");
	return true;
}

/*
 * A matrix of @rows x @cols into @out (column-major): rows of numbers;
 * square, also a number (times the identity) or a list (the diagonal),
 * as librths reads them.
 */
static int get_matrix(struct ctx *cx, json_t *v, const char *path,
		      size_t rows, size_t cols, double *out)
{
	char p[96];

	memset(out, 0, rows * cols * sizeof(*out));
	if (rows == cols && json_is_number(v)) {
		for (size_t i = 0; i < rows; i++)
			out[i * rows + i] = json_number_value(v);
		return 0;
	}
	if (!json_is_array(v))
		return fail(cx, path, "expected an array of %zu rows", rows);
	if (rows == cols && json_array_size(v) == rows &&
	    json_is_number(json_array_get(v, 0))) {
		for (size_t i = 0; i < rows; i++) {
			json_t *d = json_array_get(v, i);

			snprintf(p, sizeof(p), "%s[%zu]", path, i);
			if (!json_is_number(d))
				return fail(cx, p, "expected a number");
			out[i * rows + i] = json_number_value(d);
		}
		return 0;
	}
	if (json_array_size(v) != rows)
		return fail(cx, path, "expected %zu rows, got %zu", rows,
			    json_array_size(v));
	for (size_t i = 0; i < rows; i++) {
		json_t *row = json_array_get(v, i);

		snprintf(p, sizeof(p), "%s[%zu]", path, i);
		if (!json_is_array(row) || json_array_size(row) != cols)
			return fail(cx, p, "expected a row of %zu numbers",
				    cols);
		for (size_t j = 0; j < cols; j++) {
			json_t *e = json_array_get(row, j);
			char pj[128];

			snprintf(pj, sizeof(pj), "%s[%zu]", p, j);
			if (!json_is_number(e))
				return fail(cx, pj, "expected a number");
			out[j * rows + i] = json_number_value(e);
		}
	}
	return 0;
}

/* An interface matrix of the file, if given (1), into @out (q x q). */
static int get_if_matrix(struct ctx *cx, json_t *o, const char *key,
			 const char *path, size_t q, double *out)
{
	json_t *v = json_object_get(o, key);
	char p[96];
	int r;

	if (!v)
		return 0;
	snprintf(p, sizeof(p), "%s.%s", path, key);
	r = get_matrix(cx, v, p, q, q, out);
	return r ? r : 1;
}

static void wide_free(struct coord_wide *w)
{
	if (!w)
		return;
	rths_hs_substructure_free(&w->sub);
	free(w->k);
	free(w);
}

static int parse_wide(struct ctx *cx, json_t *taken,
		      const struct rths_hs_experiment *x,
		      struct coord_wide **out)
{
	static const char *const sub_keys[] = {
		"command_map", "force_map", "stiffness_estimate",
		"damping_estimate", NULL,
	};
	static const char *const spec_keys[] = { "stiffness", "damping",
						 NULL };
	json_t *sub = json_object_get(taken, "substructure");
	json_t *spec = json_object_get(taken, "specimen");
	json_t *setup = json_object_get(taken, "setup"), *t;
	size_t n = x->model.n, q;
	struct coord_wide *w;
	int r, k_est, c_est;

	q = json_array_size(json_object_get(sub, "command_map"));
	if (q > RTHS_HS_MAX_INTERFACE)
		return fail(cx, "substructure.command_map",
			    "expected 1 to %d rows (interface coordinates), got %zu",
			    RTHS_HS_MAX_INTERFACE, q);
	if (json_object_get(sub, "experimental_stories"))
		return fail(cx, "substructure.experimental_stories",
			    "not with command_map (over %d interface coordinates rths-coord takes command_map alone)",
			    RTHS_HS_NCH);
	if ((r = check_keys(cx, sub, "substructure", sub_keys)))
		return r;
	if (spec && !json_is_object(spec))
		return fail(cx, "specimen", "expected an object");
	if (spec && json_object_get(spec, "nonlinear"))
		return fail(cx, "specimen.nonlinear",
			    "not with more than %d interface coordinates (%zu): the sites carry the specimen, the coordinator only its linear estimate",
			    RTHS_HS_NCH, q);
	if (spec && (r = check_keys(cx, spec, "specimen", spec_keys)))
		return r;
	if (setup && (!json_is_object(setup) ||
		      !json_is_string(t = json_object_get(setup, "type")) ||
		      strcmp(json_string_value(t), "direct") ||
		      json_object_size(setup) != 1))
		return fail(cx, "setup.type", "expected \"direct\" alone: each site does its own setup");
	w = calloc(1, sizeof(*w));
	if (!w)
		return fail(cx, "substructure", "out of memory");
	*out = w;
	w->k = calloc(4 * q * q, sizeof(double));
	if (!w->k || rths_hs_substructure_init(&w->sub, n, q, NULL))
		return fail(cx, "substructure", "out of memory");
	w->c = w->k + q * q;
	w->k_est = w->c + q * q;
	w->c_est = w->k_est + q * q;
	r = get_matrix(cx, json_object_get(sub, "command_map"),
		       "substructure.command_map", q, n, w->sub.cmd_map);
	if (r == 0 && json_object_get(sub, "force_map"))
		r = get_matrix(cx, json_object_get(sub, "force_map"),
			       "substructure.force_map", n, q,
			       w->sub.force_map);
	else if (r == 0)
		rths_hs_substructure_force_map_transpose(&w->sub);
	if (r == 0 && spec)
		r = get_if_matrix(cx, spec, "stiffness", "specimen", q, w->k);
	if (r >= 0 && spec)
		r = get_if_matrix(cx, spec, "damping", "specimen", q, w->c);
	if (r < 0)
		return r;
	/* The integrator's estimate: given, or the specimen's. */
	k_est = get_if_matrix(cx, sub, "stiffness_estimate", "substructure",
			      q, w->k_est);
	c_est = k_est < 0 ? k_est :
		get_if_matrix(cx, sub, "damping_estimate", "substructure", q,
			      w->c_est);
	if (k_est < 0 || c_est < 0)
		return k_est < 0 ? k_est : c_est;
	if (!spec && !k_est)
		return fail(cx, "specimen", "required with command_map (or substructure.stiffness_estimate); expected the specimen's stiffness");
	if (!k_est)
		memcpy(w->k_est, w->k, q * q * sizeof(double));
	if (!c_est)
		memcpy(w->c_est, w->c, q * q * sizeof(double));
	if (!spec) {
		memcpy(w->k, w->k_est, q * q * sizeof(double));
		memcpy(w->c, w->c_est, q * q * sizeof(double));
	}
	/* rths_hs_setup_direct() stops at an actuator device's channels; a
	 * direct setup is its size alone (a stroke is its coordinate). */
	w->setup.kind = RTHS_HS_SETUP_DIRECT;
	w->setup.dim = q;
	w->setup.n_act = q;
	return 0;
}

/* What a coordinator cannot do: its sites do setups and compensation. */
static int check_experiment(struct ctx *cx, const struct rths_hs_experiment *x,
			    bool wide)
{
	if (!x->has_specimen && !wide)
		return fail(cx, "substructure", "missing (required): it says which DOFs the sites carry");
	if (!wide && x->setup.kind != RTHS_HS_SETUP_DIRECT)
		return fail(cx, "setup.type", "expected \"direct\" or \"one_actuator\": each site does its own setup");
	if (x->comp.kind != RTHS_HS_COMP_NONE)
		return fail(cx, "compensation.method", "expected \"none\": a device site compensates itself");
	if (x->n_odesubs)
		return fail(cx, "ode_substructures", "not run by the coordinator (its journal replays commands, not their state): use rths-run");
	return 0;
}

/* The run's interface: the experiment's, or the wide one. */
static void set_interface(struct coord_config *cc)
{
	const struct rths_hs_experiment *x = cc->x;

	if (cc->wide) {
		cc->n_if = cc->wide->sub.n_if;
		cc->sub = &cc->wide->sub;
		cc->setup = &cc->wide->setup;
		cc->k_est = cc->wide->k_est;
		cc->c_est = cc->wide->c_est;
		return;
	}
	cc->n_if = x->sub.n_if;
	cc->sub = &x->sub;
	cc->setup = &x->setup;
	cc->k_est = x->k_est;
	cc->c_est = x->c_est;
}

int coord_config_load(const char *path, struct coord_config *cc, char *msg,
		      size_t len)
{
	struct ctx cx = { .file = path, .msg = msg, .len = len };
	struct rths_error err;
	json_error_t jerr;
	char *text, *rest = NULL, *dcopy;
	json_t *root, *sites, *replay, *wide = NULL;
	size_t n = 0;
	int r;

	memset(cc, 0, sizeof(*cc));
	text = read_all(path, &n);
	if (!text) {
		snprintf(msg, len, "%s: [io] %s", path, strerror(errno));
		return -errno;
	}
	cc->hash = fnv1a64(text, n);
	dcopy = strdup(path);
	snprintf(cx.dir, sizeof(cx.dir), "%s", dcopy ? dirname(dcopy) : ".");
	free(dcopy);
	root = json_loadb(text, n, JSON_REJECT_DUPLICATES, &jerr);
	free(text);
	if (!root) {
		snprintf(msg, len, "%s:%d:%d: [syntax] %s", path, jerr.line,
			 jerr.column, jerr.text);
		return -EINVAL;
	}
	if (!json_is_object(root)) {
		json_decref(root);
		return fail(&cx, "(top)", "expected an object");
	}
	sites = json_object_get(root, "sites");
	if (!sites) {
		json_decref(root);
		return fail(&cx, "sites", "missing (required): the substructures' sites");
	}
	r = parse_sites(&cx, sites, cc);
	if (r == 0 && (replay = json_object_get(root, "replay")))
		r = parse_replay(&cx, replay, cc);
	if (r == 0 && take_wide(root, &wide) && !wide)
		r = fail(&cx, "substructure", "out of memory");
	if (r == 0) {
		json_object_del(root, "sites");
		json_object_del(root, "replay");
		rest = json_dumps(root, JSON_COMPACT | JSON_REAL_PRECISION(17));
		if (!rest)
			r = fail(&cx, "(top)", "out of memory");
	}
	json_decref(root);
	if (r == 0) {
		r = rths_hs_experiment_parse(rest, path, cx.dir, &cc->x, &err);
		if (r < 0)
			rths_error_str(&err, msg, len);
	}
	free(rest);
	if (r == 0)
		r = check_experiment(&cx, cc->x, wide);
	if (r == 0 && wide)
		r = parse_wide(&cx, wide, cc->x, &cc->wide);
	json_decref(wide);
	if (r == 0)
		set_interface(cc);
	if (r == 0)
		r = check_dofs(&cx, cc, cc->n_if);
	if (r == 0)
		r = load_creds(&cx, cc);
	if (r)
		coord_config_free(cc);
	return r;
}

void coord_config_free(struct coord_config *cc)
{
	rths_hs_experiment_free(cc->x);
	cc->x = NULL;
	for (size_t i = 0; cc->creds && i < cc->n_sites; i++)
		tls_creds_free(cc->creds[i]);
	free(cc->creds);
	free(cc->sites);
	wide_free(cc->wide);
	memset(cc, 0, sizeof(*cc));
}
