// SPDX-License-Identifier: LGPL-2.1-or-later
/* Path-tracking JSON reads with one error per kind of mistake. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "files/json_read.h"

void rths_hs_jpath_key(char *out, const char *parent, const char *key)
{
	if (parent && parent[0])
		snprintf(out, RTHS_HS_JPATH, "%s.%s", parent, key);
	else
		snprintf(out, RTHS_HS_JPATH, "%s", key);
}

void rths_hs_jpath_index(char *out, const char *parent, size_t i)
{
	/* A path too long to fit still names its start, marked as cut. */
	if (snprintf(out, RTHS_HS_JPATH, "%s[%zu]", parent, i) >= RTHS_HS_JPATH)
		memcpy(out + RTHS_HS_JPATH - 4, "...", 4);
}

int rths_hs_jfail(const struct rths_hs_jctx *c, int code,
		  const char *path, const char *fmt, ...)
{
	char msg[384];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return rths_error_set(c->err, code, c->file, 0, path, "%s", msg);
}

static const char *type_name(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT: return "an object";
	case JSON_ARRAY: return "an array";
	case JSON_STRING: return "a string";
	case JSON_INTEGER:
	case JSON_REAL: return "a number";
	case JSON_TRUE:
	case JSON_FALSE: return "a boolean";
	default: return "null";
	}
}

int rths_hs_jkeys(const struct rths_hs_jctx *c, json_t *obj,
		  const char *path, const char *const *allowed)
{
	const char *key;
	json_t *v;

	json_object_foreach(obj, key, v) {
		char list[256] = "", p[RTHS_HS_JPATH];
		size_t o = 0;
		bool ok = false;

		for (const char *const *a = allowed; *a; a++) {
			ok |= !strcmp(*a, key);
			o += (size_t)snprintf(list + o, o < sizeof(list) ?
					      sizeof(list) - o : 0, "%s%s",
					      a == allowed ? "" : ", ", *a);
		}
		if (!ok) {
			rths_hs_jpath_key(p, path, key);
			return rths_hs_jfail(c, RTHS_E_UNKNOWN_FIELD, p,
					     "unknown field; expected one of: %s",
					     list);
		}
	}
	return 0;
}

int rths_hs_jelement(const struct rths_hs_jctx *c, json_t *arr,
		     const char *path, size_t i, const char *expected,
		     const char *const *allowed, json_t **out, char *p)
{
	*out = json_array_get(arr, i);
	rths_hs_jpath_index(p, path, i);
	if (!json_is_object(*out))
		return rths_hs_jfail(c, RTHS_E_WRONG_TYPE, p, "expected %s",
				     expected);
	return allowed ? rths_hs_jkeys(c, *out, p, allowed) : 0;
}

static int want_type(const struct rths_hs_jctx *c, json_t *v, const char *p,
		     bool ok, const char *what)
{
	if (ok)
		return 0;
	return rths_hs_jfail(c, RTHS_E_WRONG_TYPE, p, "expected %s, got %s",
			     what, type_name(v));
}

/* The JSON types lookup() takes, a bit each; 0: any (checked later). */
#define T(t) (1u << (t))
#define T_BOOL (T(JSON_TRUE) | T(JSON_FALSE))

/* @key's value, of one of @types, or 1 if absent and optional. */
static int lookup(const struct rths_hs_jctx *c, json_t *obj, const char *path,
		  const char *key, bool required, const char *what,
		  unsigned int types, json_t **v, char *p)
{
	rths_hs_jpath_key(p, path, key);
	*v = json_object_get(obj, key);
	if (*v)
		return want_type(c, *v, p,
				 !types || (types & T(json_typeof(*v))), what);
	if (required)
		return rths_hs_jfail(c, RTHS_E_MISSING_FIELD, p,
				     "required; expected %s", what);
	return 1;
}

int rths_hs_jobject(const struct rths_hs_jctx *c, json_t *obj,
		    const char *path, const char *key, bool required,
		    json_t **out)
{
	char p[RTHS_HS_JPATH];
	json_t *v;
	int r = lookup(c, obj, path, key, required, "an object",
		       T(JSON_OBJECT), &v, p);

	if (r == 0)
		*out = v;
	return r;
}

int rths_hs_jarray(const struct rths_hs_jctx *c, json_t *obj,
		   const char *path, const char *key, bool required,
		   size_t min, size_t max, json_t **out)
{
	char p[RTHS_HS_JPATH];
	json_t *v;
	int r = lookup(c, obj, path, key, required, "an array",
		       T(JSON_ARRAY), &v, p);

	if (r)
		return r;
	if (json_array_size(v) < min || json_array_size(v) > max)
		return rths_hs_jfail(c, RTHS_E_BAD_SHAPE, p,
				     "expected %zu to %zu entries, got %zu", min,
				     max, json_array_size(v));
	*out = v;
	return 0;
}

static void describe(char *buf, size_t len, const struct rths_hs_jrange *r)
{
	const char *u = r->unit && r->unit[0] ? r->unit : "";

	if (isinf(r->hi))
		snprintf(buf, len, "a number %s %g%s%s", r->lo_open ? ">" : ">=",
			 r->lo, u[0] ? " " : "", u);
	else
		snprintf(buf, len, "a number in %c%g, %g%c%s%s",
			 r->lo_open ? '(' : '[', r->lo, r->hi,
			 r->hi_open ? ')' : ']', u[0] ? " " : "", u);
}

int rths_hs_jvalue_number(const struct rths_hs_jctx *c, json_t *v,
			  const char *path, const struct rths_hs_jrange *r,
			  double *out)
{
	char what[96];
	double x;
	int rc;

	describe(what, sizeof(what), r);
	rc = want_type(c, v, path, json_is_number(v), what);
	if (rc)
		return rc;
	x = json_number_value(v);
	if (!isfinite(x) || x < r->lo || x > r->hi ||
	    (r->lo_open && x == r->lo) || (r->hi_open && x == r->hi))
		return rths_hs_jfail(c, RTHS_E_OUT_OF_RANGE, path,
				     "expected %s, got %g", what, x);
	*out = x;
	return 0;
}

int rths_hs_jnumber(const struct rths_hs_jctx *c, json_t *obj,
		    const char *path, const char *key, bool required,
		    const struct rths_hs_jrange *r, double *out)
{
	char p[RTHS_HS_JPATH], what[96];
	json_t *v;
	int rc;

	describe(what, sizeof(what), r);
	rc = lookup(c, obj, path, key, required, what, 0, &v, p);
	if (rc)
		return rc;
	return rths_hs_jvalue_number(c, v, p, r, out);
}

int rths_hs_juint(const struct rths_hs_jctx *c, json_t *obj,
		  const char *path, const char *key, bool required,
		  unsigned long long lo, unsigned long long hi,
		  unsigned long long *out)
{
	char p[RTHS_HS_JPATH], what[96];
	json_t *v;
	json_int_t x;
	int rc;

	snprintf(what, sizeof(what), "a whole number in [%llu, %llu]", lo, hi);
	rc = lookup(c, obj, path, key, required, what, T(JSON_INTEGER), &v,
		    p);
	if (rc)
		return rc;
	x = json_integer_value(v);
	if (x < 0 || (unsigned long long)x < lo || (unsigned long long)x > hi)
		return rths_hs_jfail(c, RTHS_E_OUT_OF_RANGE, p,
				     "expected %s, got %lld", what, (long long)x);
	*out = (unsigned long long)x;
	return 0;
}

int rths_hs_jbool(const struct rths_hs_jctx *c, json_t *obj,
		  const char *path, const char *key, bool *out)
{
	char p[RTHS_HS_JPATH];
	json_t *v;
	int rc = lookup(c, obj, path, key, false, "true or false", T_BOOL,
			&v, p);

	if (rc == 0)
		*out = json_is_true(v);
	return rc;
}

int rths_hs_jstring(const struct rths_hs_jctx *c, json_t *obj,
		    const char *path, const char *key, bool required,
		    const char **out)
{
	char p[RTHS_HS_JPATH];
	json_t *v;
	int rc = lookup(c, obj, path, key, required, "a string",
			T(JSON_STRING), &v, p);

	if (rc == 0)
		*out = json_string_value(v);
	return rc;
}

int rths_hs_jchoice(const struct rths_hs_jctx *c, json_t *obj,
		    const char *path, const char *key, bool required,
		    const char *const *choices, int *out)
{
	char p[RTHS_HS_JPATH], list[256] = "";
	const char *s = NULL;
	size_t o = 0;
	int rc = rths_hs_jstring(c, obj, path, key, required, &s);

	if (rc)
		return rc;
	for (int i = 0; choices[i]; i++) {
		if (!strcmp(choices[i], s)) {
			*out = i;
			return 0;
		}
		o += (size_t)snprintf(list + o, o < sizeof(list) ?
				      sizeof(list) - o : 0, "%s\"%s\"",
				      i ? ", " : "", choices[i]);
	}
	rths_hs_jpath_key(p, path, key);
	return rths_hs_jfail(c, RTHS_E_BAD_CHOICE, p,
			     "expected one of %s, got \"%s\"", list, s);
}

int rths_hs_jvector(const struct rths_hs_jctx *c, json_t *v,
		    const char *path, size_t n, const struct rths_hs_jrange *r,
		    double *out)
{
	int rc = want_type(c, v, path, json_is_array(v), "an array of numbers");

	if (rc)
		return rc;
	if (json_array_size(v) != n)
		return rths_hs_jfail(c, RTHS_E_BAD_SHAPE, path,
				     "expected %zu numbers, got %zu", n,
				     json_array_size(v));
	for (size_t i = 0; i < n; i++) {
		char p[RTHS_HS_JPATH];

		rths_hs_jpath_index(p, path, i);
		rc = rths_hs_jvalue_number(c, json_array_get(v, i), p, r,
					   &out[i]);
		if (rc)
			return rc;
	}
	return 0;
}

int rths_hs_jmatrix(const struct rths_hs_jctx *c, json_t *v,
		    const char *path, size_t rows, size_t cols, double *out)
{
	static const struct rths_hs_jrange any = { .lo = -INFINITY,
						   .hi = INFINITY };
	int rc;

	memset(out, 0, rows * cols * sizeof(*out));
	if (rows == cols && rows == 1 && json_is_number(v))
		return rths_hs_jvalue_number(c, v, path, &any, out);
	rc = want_type(c, v, path, json_is_array(v),
		       "a matrix: an array of rows");
	if (rc)
		return rc;
	if (rows == cols && json_array_size(v) == rows && rows > 0 &&
	    json_is_number(json_array_get(v, 0))) {
		/* A list of numbers: the diagonal. */
		for (size_t i = 0; i < rows; i++) {
			char p[RTHS_HS_JPATH];

			rths_hs_jpath_index(p, path, i);
			rc = rths_hs_jvalue_number(c, json_array_get(v, i), p,
						   &any, &out[i * rows + i]);
			if (rc)
				return rc;
		}
		return 0;
	}
	if (json_array_size(v) != rows)
		return rths_hs_jfail(c, RTHS_E_BAD_SHAPE, path,
				     "expected %zu rows, got %zu", rows,
				     json_array_size(v));
	for (size_t i = 0; i < rows; i++) {
		json_t *row = json_array_get(v, i);
		char p[RTHS_HS_JPATH];

		rths_hs_jpath_index(p, path, i);
		rc = want_type(c, row, p, json_is_array(row),
			       "a row: an array of numbers");
		if (rc)
			return rc;
		if (json_array_size(row) != cols)
			return rths_hs_jfail(c, RTHS_E_BAD_SHAPE, p,
					     "expected %zu columns, got %zu",
					     cols, json_array_size(row));
		for (size_t j = 0; j < cols; j++) {
			char q[RTHS_HS_JPATH];

			rths_hs_jpath_index(q, p, j);
			rc = rths_hs_jvalue_number(c, json_array_get(row, j), q,
						   &any, &out[j * rows + i]);
			if (rc)
				return rc;
		}
	}
	return 0;
}
