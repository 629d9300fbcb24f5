// SPDX-License-Identifier: GPL-2.0
/*
 * rthsctl's one printer: a field is one call, written as text or as
 * JSON (print.h).
 */
#include <stdarg.h>
#include <stdio.h>

#include "print.h"

void pr_begin(struct pr *p, bool json, FILE *f)
{
	p->f = json ? NULL : f;
	p->depth = 0;
	p->stack[0] = json ? json_array() : NULL;
}

json_t *pr_finish(struct pr *p)
{
	return p->f ? NULL : p->stack[0];
}

/* Put @v at @key of the innermost object, or append it to the array. */
static void put(struct pr *p, const char *key, json_t *v)
{
	json_t *top = p->stack[p->depth];

	if (key && json_is_object(top))
		json_object_set_new(top, key, v);
	else
		json_array_append_new(top, v);
}

static void text(struct pr *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void text(struct pr *p, const char *fmt, ...)
{
	va_list ap;

	if (!fmt)
		return;
	va_start(ap, fmt);
	vfprintf(p->f, fmt, ap);
	va_end(ap);
}

static void open_one(struct pr *p, const char *key, const char *t, json_t *v)
{
	if (p->f) {
		text(p, "%s", t ? t : "");
		return;
	}
	put(p, key, json_incref(v));
	if (p->depth + 1 < PR_DEPTH)
		p->stack[++p->depth] = v;
	json_decref(v);
}

void pr_obj(struct pr *p, const char *key, const char *t)
{
	open_one(p, key, t, p->f ? NULL : json_object());
}

void pr_arr(struct pr *p, const char *key, const char *t)
{
	open_one(p, key, t, p->f ? NULL : json_array());
}

void pr_close(struct pr *p)
{
	if (!p->f && p->depth > 0)
		p->depth--;
}

void pr_u64(struct pr *p, const char *key, const char *fmt, uint64_t v)
{
	if (p->f)
		text(p, fmt, v);
	else if (v > INT64_MAX)	/* jansson's integers are signed */
		put(p, key, json_sprintf("%llu", (unsigned long long)v));
	else
		put(p, key, json_integer((json_int_t)v));
}

void pr_i64(struct pr *p, const char *key, const char *fmt, int64_t v)
{
	if (p->f)
		text(p, fmt, v);
	else
		put(p, key, json_integer((json_int_t)v));
}

void pr_str(struct pr *p, const char *key, const char *fmt, const char *s)
{
	if (p->f)
		text(p, fmt, s ? s : "unknown");
	else
		put(p, key, s ? json_string(s) : json_null());
}

void pr_bool(struct pr *p, const char *key, const char *fmt, bool b)
{
	if (p->f)
		text(p, fmt, b ? "yes" : "no");
	else
		put(p, key, json_boolean(b));
}

void pr_real(struct pr *p, const char *key, const char *fmt, double v,
	     double scale)
{
	if (p->f)
		text(p, fmt, v * scale);
	else
		put(p, key, json_real(v));
}

void pr_qty(struct pr *p, const char *key, const char *fmt, double v,
	    enum rc_quantity q)
{
	char buf[48];

	if (p->f)
		text(p, fmt, rc_fmt(buf, v, q));
	else
		put(p, key, json_real(v));
}

void pr_fixed(struct pr *p, const char *key, const char *fmt, int64_t v,
	      double div)
{
	if (p->f)
		text(p, fmt, (double)v / div);
	else
		put(p, key, json_integer((json_int_t)v));
}

void pr_null(struct pr *p, const char *key, const char *fmt)
{
	if (p->f)
		text(p, "%s", fmt ? fmt : "");
	else
		put(p, key, json_null());
}

void pr_text(struct pr *p, const char *fmt, ...)
{
	va_list ap;

	if (!p->f)
		return;
	va_start(ap, fmt);
	vfprintf(p->f, fmt, ap);
	va_end(ap);
}
