// SPDX-License-Identifier: GPL-2.0
/*
 * The JSON site file (Documentation/rths-site.rst): a list of numerical
 * substructures, each served over one OpenFresco protocol on one port.
 * Errors name the file and the JSON path of the offending field.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <rths/hs_experiment.h>

#include "site.h"
#include "../common/cli.h"

static const char *const proto_names[] = {
	[PROTO_SITE] = "site",
	[PROTO_CONTROLLER] = "controller",
	[PROTO_ELEMENT] = "element",
	[PROTO_NATIVE] = "native",
};

const char *site_proto_name(enum site_proto p)
{
	return proto_names[p];
}

struct ctx {
	const char *file;
	char *msg;
	size_t len;
};

static int fail(struct ctx *cx, const char *path, const char *what)
{
	snprintf(cx->msg, cx->len, "%s: [%s] %s: %s", cx->file,
		 tool_message_kind(what), path, what);
	return -EINVAL;
}

/*
 * Refuses a field of @obj (at @path) that is not one of @keys nor, with
 * @sections, a device section (device_sub_is_section()).
 */
static int check_keys(struct ctx *cx, json_t *obj, const char *path,
		      const char *const *keys, size_t nkeys, int sections)
{
	const char *key;
	char p[320];
	json_t *v;

	json_object_foreach(obj, key, v) {
		size_t k;

		for (k = 0; k < nkeys; k++)
			if (!strcmp(key, keys[k]))
				break;
		if (k == nkeys && !(sections && device_sub_is_section(key))) {
			snprintf(p, sizeof(p), "%s.%s", path, key);
			return fail(cx, p, "unknown field");
		}
	}
	return 0;
}

static int get_int(struct ctx *cx, json_t *obj, const char *key,
		   const char *path, int lo, int hi, int dflt, int *out)
{
	json_t *v = json_object_get(obj, key);
	char p[128], w[96];

	snprintf(p, sizeof(p), "%s.%s", path, key);
	if (!v) {
		if (dflt < lo)
			return fail(cx, p, "missing (required)");
		*out = dflt;
		return 0;
	}
	if (!json_is_integer(v) || json_integer_value(v) < lo ||
	    json_integer_value(v) > hi) {
		snprintf(w, sizeof(w), "expected an integer in %d..%d", lo, hi);
		return fail(cx, p, w);
	}
	*out = (int)json_integer_value(v);
	return 0;
}

/* An n x n matrix as a list of n rows, or NULL when absent and optional. */
static int get_matrix(struct ctx *cx, json_t *obj, const char *key,
		      const char *path, int n, int required, double **out)
{
	json_t *v = json_object_get(obj, key);
	char p[160], w[96];
	double *m;

	*out = NULL;
	snprintf(p, sizeof(p), "%s.%s", path, key);
	if (!v)
		return required ? fail(cx, p, "missing (required)") : 0;
	if (!json_is_array(v) || (int)json_array_size(v) != n) {
		snprintf(w, sizeof(w), "expected a list of %d rows", n);
		return fail(cx, p, w);
	}
	m = calloc((size_t)n * n, sizeof(*m));
	if (!m)
		return fail(cx, p, "out of memory");
	for (int i = 0; i < n; i++) {
		json_t *row = json_array_get(v, i);

		if (!json_is_array(row) || (int)json_array_size(row) != n) {
			snprintf(p, sizeof(p), "%s.%s[%d]", path, key, i);
			snprintf(w, sizeof(w), "expected a list of %d numbers",
				 n);
			free(m);
			return fail(cx, p, w);
		}
		for (int j = 0; j < n; j++) {
			json_t *x = json_array_get(row, j);

			if (!json_is_number(x) ||
			    !isfinite(json_number_value(x))) {
				snprintf(p, sizeof(p), "%s.%s[%d][%d]", path,
					 key, i, j);
				free(m);
				return fail(cx, p, "expected a finite number");
			}
			m[i * n + j] = json_number_value(x);
		}
	}
	*out = m;
	return 0;
}

static int get_num(struct ctx *cx, json_t *obj, const char *key,
		   const char *path, double *out)
{
	json_t *v = json_object_get(obj, key);
	char p[160];

	if (!v)
		return 0;	/* keeps the kind's default */
	snprintf(p, sizeof(p), "%s.%s", path, key);
	if (!json_is_number(v) || !isfinite(json_number_value(v)))
		return fail(cx, p, "expected a finite number");
	*out = json_number_value(v);
	return 0;
}

/* The engine's springs, written as in the experiment file's "elements". */
static int load_elements(struct ctx *cx, json_t *js, const char *path,
			 struct substructure *sub)
{
	static const char *const kinds[] = { "linear", "bilinear",
					     "bouc_wen" };
	static const char *const keys[] = { "type", "dofs", "stiffness",
		"yield_force", "post_yield_ratio", "exponent", "beta",
		"gamma" };
	json_t *list = json_object_get(js, "elements");
	char p[128], q[320];

	if (!list)
		return 0;
	snprintf(p, sizeof(p), "%s.elements", path);
	if (!json_is_array(list))
		return fail(cx, p, "expected a list of elements");
	sub->nel = (int)json_array_size(list);
	sub->el = calloc(sub->nel + 1, sizeof(*sub->el));
	if (!sub->el)
		return fail(cx, p, "out of memory");
	for (int e = 0; e < sub->nel; e++) {
		json_t *el = json_array_get(list, e), *v, *d;
		struct rths_hs_element_params prm;
		struct rths_error err;
		int kind, di, dj;

		snprintf(p, sizeof(p), "%s.elements[%d]", path, e);
		if (!json_is_object(el))
			return fail(cx, p, "expected an object");
		if (check_keys(cx, el, p, keys,
			       sizeof(keys) / sizeof(keys[0]), 0))
			return -EINVAL;
		v = json_object_get(el, "type");
		for (kind = 0; kind < 3 && json_is_string(v); kind++)
			if (!strcmp(json_string_value(v), kinds[kind]))
				break;
		snprintf(q, sizeof(q), "%s.type", p);
		if (!json_is_string(v) || kind == 3)
			return fail(cx, q,
				    "expected \"linear\", \"bilinear\" or \"bouc_wen\"");
		d = json_object_get(el, "dofs");
		snprintf(q, sizeof(q), "%s.dofs", p);
		if (!json_is_array(d) || json_array_size(d) != 2 ||
		    !json_is_integer(json_array_get(d, 0)) ||
		    !json_is_integer(json_array_get(d, 1)))
			return fail(cx, q, "expected [i, j] (j = -1: the ground)");
		di = (int)json_integer_value(json_array_get(d, 0));
		dj = (int)json_integer_value(json_array_get(d, 1));
		if (di < 0 || di >= sub->n || dj < -1 || dj >= sub->n ||
		    di == dj)
			return fail(cx, q, "expected two different DOF of this substructure (j = -1: the ground)");
		rths_hs_element_defaults(&prm, RTHS_HS_ELEMENT_LINEAR + kind,
					 0, 0);
		if (get_num(cx, el, "stiffness", p, &prm.k) ||
		    get_num(cx, el, "yield_force", p, &prm.fy) ||
		    get_num(cx, el, "post_yield_ratio", p, &prm.alpha) ||
		    get_num(cx, el, "exponent", p, &prm.n) ||
		    get_num(cx, el, "beta", p, &prm.beta) ||
		    get_num(cx, el, "gamma", p, &prm.gamma))
			return -EINVAL;
		if (rths_hs_element_check(&prm, &err)) {
			snprintf(q, sizeof(q), "%s.%s", p, err.path);
			return fail(cx, q, err.msg);
		}
		rths_hs_element_init(&sub->el[e], &prm, di, dj);
	}
	return 0;
}

/* The peers that may command the substructure over TLS. */
static int load_allow(struct ctx *cx, json_t *js, const char *path,
		      struct substructure *sub)
{
	json_t *list = json_object_get(js, "allow");
	char p[128];

	if (!list)
		return 0;
	snprintf(p, sizeof(p), "%s.allow", path);
	if (!json_is_array(list) || !json_array_size(list))
		return fail(cx, p, "expected a non-empty list of identities");
	if (sub->tls == 0)
		return fail(cx, p, "needs TLS (\"tls\": false names no peers)");
	sub->allow = calloc(json_array_size(list), sizeof(char *));
	if (!sub->allow)
		return fail(cx, p, "out of memory");
	for (size_t i = 0; i < json_array_size(list); i++) {
		json_t *v = json_array_get(list, i);

		snprintf(p, sizeof(p), "%s.allow[%zu]", path, i);
		if (!json_is_string(v) || !json_string_length(v) ||
		    json_string_length(v) > 127)
			return fail(cx, p,
				    "expected an identity of 1 to 127 characters");
		sub->allow[sub->nallow] = strdup(json_string_value(v));
		if (!sub->allow[sub->nallow++])
			return fail(cx, p, "out of memory");
	}
	return 0;
}

#define PROTO_EXPECTED \
	"expected \"site\", \"controller\", \"element\" or \"native\""

static int load_sub(struct ctx *cx, json_t *js, int idx,
		    struct substructure *sub)
{
	static const char *const keys[] = { "name", "protocol", "tag",
		"address", "port", "dof", "stiffness", "damping", "mass",
		"elements", "tls", "allow" };
	char path[64], p[128];
	json_t *v;
	int r;

	snprintf(path, sizeof(path), "substructures[%d]", idx);
	if (!json_is_object(js))
		return fail(cx, path, "expected an object");
	if (check_keys(cx, js, path, keys, sizeof(keys) / sizeof(keys[0]), 1))
		return -EINVAL;
	v = json_object_get(js, "name");
	snprintf(p, sizeof(p), "%s.name", path);
	if (!json_is_string(v) || !json_string_length(v))
		return fail(cx, p, "expected a non-empty string");
	/* It goes in log lines and, for the native protocol, in HELLO. */
	if (json_string_length(v) > 63)
		return fail(cx, p, "longer than 63 characters");
	for (const char *c = json_string_value(v); *c; c++)
		if (*c < 0x21 || *c > 0x7e)
			return fail(cx, p, "only printable ASCII without spaces");
	sub->name = strdup(json_string_value(v));
	v = json_object_get(js, "protocol");
	snprintf(p, sizeof(p), "%s.protocol", path);
	if (!json_is_string(v))
		return fail(cx, p, PROTO_EXPECTED);
	for (r = 0; r <= PROTO_NATIVE; r++)
		if (!strcmp(json_string_value(v), proto_names[r]))
			break;
	if (r > PROTO_NATIVE)
		return fail(cx, p, PROTO_EXPECTED);
	sub->proto = r;
	v = json_object_get(js, "address");
	if (v) {
		snprintf(p, sizeof(p), "%s.address", path);
		if (!json_is_string(v) || !json_string_length(v))
			return fail(cx, p, "expected an IPv4 address");
		sub->address = strdup(json_string_value(v));
	}
	sub->tls = -1;
	v = json_object_get(js, "tls");
	if (v) {
		snprintf(p, sizeof(p), "%s.tls", path);
		if (!json_is_boolean(v))
			return fail(cx, p, "expected true or false");
		sub->tls = json_is_true(v);
	}
	r = load_allow(cx, js, path, sub);
	if (!r && sub->proto == PROTO_NATIVE && json_object_get(js, "tag")) {
		snprintf(p, sizeof(p), "%s.tag", path);
		r = fail(cx, p, "only OpenFresco's site protocol has a tag");
	}
	if (!r)
		r = get_int(cx, js, "tag", path, 0, 1 << 30, idx + 1,
			    &sub->tag);
	if (!r)
		r = get_int(cx, js, "port", path, 0, 65535, -1, &sub->port);
	if (!r)
		r = get_int(cx, js, "dof", path, 1, SITE_MAX_DOF, -1, &sub->n);
	/* A device's stiffness is the estimate codes 12 and 13 answer. */
	if (!r && json_object_get(js, "device"))
		r = device_sub_config(js, cx->file, path, sub, cx->msg,
				      cx->len);
	if (!r)
		r = get_matrix(cx, js, "stiffness", path, sub->n, !sub->dev,
			       &sub->k);
	if (!r)
		r = get_matrix(cx, js, "damping", path, sub->n, 0, &sub->c);
	if (!r)
		r = get_matrix(cx, js, "mass", path, sub->n, 0, &sub->m);
	if (!r && sub->dev && json_object_get(js, "elements")) {
		snprintf(p, sizeof(p), "%s.elements", path);
		return fail(cx, p, "a device substructure's springs are its specimen's (specimen.nonlinear)");
	}
	if (!r && sub->dev)
		r = device_sub_estimate(sub);
	if (!r)
		r = load_elements(cx, js, path, sub);
	return r;
}

int site_config_load(const char *file, struct site *site, char *msg,
		     size_t len)
{
	struct ctx cx = { file, msg, len };
	json_error_t jerr;
	json_t *root, *subs, *v;
	const char *key;
	int r = 0;

	memset(site, 0, sizeof(*site));
	root = json_load_file(file, JSON_REJECT_DUPLICATES, &jerr);
	if (!root) {
		/* jansson's line is -1 when the file cannot be read */
		if (jerr.line < 0)
			snprintf(msg, len, "%s: [io] %s", file, jerr.text);
		else
			snprintf(msg, len, "%s:%d:%d: [syntax] %s", file,
				 jerr.line, jerr.column, jerr.text);
		return -EINVAL;
	}
	if (!json_is_object(root)) {
		r = fail(&cx, "(top)", "expected an object");
		goto out;
	}
	json_object_foreach(root, key, v) {
		if (strcmp(key, "substructures")) {
			r = fail(&cx, key, "unknown field");
			goto out;
		}
	}
	subs = json_object_get(root, "substructures");
	if (!json_is_array(subs) || !json_array_size(subs)) {
		r = fail(&cx, "substructures", "expected a non-empty list");
		goto out;
	}
	/* The poll set holds every listener next to the sessions. */
	if (json_array_size(subs) > SITE_MAX_SUBS) {
		r = fail(&cx, "substructures", "expected at most 64 substructures");
		goto out;
	}
	site->nsubs = (int)json_array_size(subs);
	site->subs = calloc(site->nsubs, sizeof(*site->subs));
	if (!site->subs) {
		r = fail(&cx, "substructures", "out of memory");
		goto out;
	}
	for (int i = 0; i < site->nsubs && !r; i++) {
		site->subs[i].listen_fd = -1;
		r = load_sub(&cx, json_array_get(subs, i), i, &site->subs[i]);
	}
	for (int i = 0; i < site->nsubs && !r; i++)
		for (int j = 0; j < i && !r; j++)
			if (!strcmp(site->subs[i].name, site->subs[j].name)) {
				char p[64];

				snprintf(p, sizeof(p), "substructures[%d].name",
					 i);
				r = fail(&cx, p, "duplicate name");
			}
out:
	json_decref(root);
	if (r)
		site_config_free(site);
	return r;
}

void site_config_free(struct site *site)
{
	for (int i = 0; i < site->nsubs; i++) {
		struct substructure *s = &site->subs[i];

		free(s->name);
		free(s->address);
		free(s->k);
		free(s->c);
		free(s->m);
		free(s->el);
		for (int k = 0; k < s->nallow; k++)
			free(s->allow[k]);
		free(s->allow);
		native_sub_free(s);
		rths_hs_experiment_free(s->dev);
	}
	free(site->subs);
	site->subs = NULL;
	site->nsubs = 0;
}
