/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Typed, path-tracking reads from jansson values, private to the
 * experiment parser.  Every failure names the JSON path of the field
 * ("model.stories[2].stiffness") and what was expected.
 */
#ifndef RTHS_FILES_JSON_READ_H
#define RTHS_FILES_JSON_READ_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include <rths/hs_error.h>

#define RTHS_HS_JPATH 160

struct rths_hs_jctx {
	const char *file;
	struct rths_error *err;
};

/* Bounds of a number; *_open excludes the bound itself. */
struct rths_hs_jrange {
	double lo, hi;
	bool lo_open, hi_open;
	const char *unit;	/* for messages, may be "" */
};

void rths_hs_jpath_key(char *out, const char *parent, const char *key);
void rths_hs_jpath_index(char *out, const char *parent, size_t i);
int rths_hs_jfail(const struct rths_hs_jctx *c, int code,
		  const char *path, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Every key of @obj must be in the NULL-terminated @allowed. */
int rths_hs_jkeys(const struct rths_hs_jctx *c, json_t *obj,
		  const char *path, const char *const *allowed);
/* Entry @i of array @arr (path @path) as an object, its path into @p;
 * not an object: RTHS_E_WRONG_TYPE, "expected @expected"; with
 * @allowed, its keys checked as rths_hs_jkeys() does. */
int rths_hs_jelement(const struct rths_hs_jctx *c, json_t *arr,
		     const char *path, size_t i, const char *expected,
		     const char *const *allowed, json_t **out, char *p);

/*
 * The readers look up @key in @obj (path @path is @obj's).  Absent and
 * not @required: return 1 and leave *out alone.  Present and valid: 0.
 */
int rths_hs_jobject(const struct rths_hs_jctx *c, json_t *obj,
		    const char *path, const char *key, bool required,
		    json_t **out);
int rths_hs_jarray(const struct rths_hs_jctx *c, json_t *obj,
		   const char *path, const char *key, bool required,
		   size_t min, size_t max, json_t **out);
int rths_hs_jnumber(const struct rths_hs_jctx *c, json_t *obj,
		    const char *path, const char *key, bool required,
		    const struct rths_hs_jrange *r, double *out);
int rths_hs_juint(const struct rths_hs_jctx *c, json_t *obj,
		  const char *path, const char *key, bool required,
		  unsigned long long lo, unsigned long long hi,
		  unsigned long long *out);
int rths_hs_jbool(const struct rths_hs_jctx *c, json_t *obj,
		  const char *path, const char *key, bool *out);
int rths_hs_jstring(const struct rths_hs_jctx *c, json_t *obj,
		    const char *path, const char *key, bool required,
		    const char **out);
/* Index into the NULL-terminated @choices. */
int rths_hs_jchoice(const struct rths_hs_jctx *c, json_t *obj,
		    const char *path, const char *key, bool required,
		    const char *const *choices, int *out);

/* A number taken from a JSON value at @path. */
int rths_hs_jvalue_number(const struct rths_hs_jctx *c, json_t *v,
			  const char *path, const struct rths_hs_jrange *r,
			  double *out);
/* Exactly @n numbers. */
int rths_hs_jvector(const struct rths_hs_jctx *c, json_t *v,
		    const char *path, size_t n, const struct rths_hs_jrange *r,
		    double *out);
/*
 * A rows x cols matrix written as rows ([[...], [...]]) into column-major
 * @out.  Square matrices may also be given as a list (the diagonal) or,
 * for 1 x 1, a number.
 */
int rths_hs_jmatrix(const struct rths_hs_jctx *c, json_t *v,
		    const char *path, size_t rows, size_t cols, double *out);

#endif /* RTHS_FILES_JSON_READ_H */
