// SPDX-License-Identifier: GPL-2.0
/*
 * rthsctl output: human units, JSON, and error messages.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "output.h"
#include "print.h"

struct rths_ctl *rc_ctl(struct rc *rc)
{
	int ret;

	if (rc->ctl)
		return rc->ctl;
	ret = rths_ctl_open(&rc->ctl);
	if (ret == -ENOENT) {
		fprintf(stderr, "rthsctl: rths module not loaded (modprobe rths)\n");
		return NULL;
	}
	if (ret) {
		fprintf(stderr, "rthsctl: cannot open the rths control socket: %s\n",
			rths_strerror(ret));
		return NULL;
	}
	return rc->ctl;
}

int rc_fail(struct rc *rc, int ret, const char *what)
{
	const char *why = rc->ctl ? rths_ctl_error(rc->ctl) : "";

	if (!*why)
		why = rths_strerror(ret);
	fprintf(stderr, "rthsctl: %s: %s\n", what, why);
	return RC_ERROR;
}

int rc_result(struct rc *rc, int ret, const char *fmt, ...)
{
	char what[64];
	va_list ap;

	if (!ret)
		return RC_OK;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return rc_fail(rc, ret, what);
}

int rc_usage_error(const struct rc_err *e, const char *object)
{
	fprintf(stderr, "rthsctl: %s\n", e->msg);
	fprintf(stderr, "Try \"rthsctl %s%shelp\".\n", object ? object : "",
		object ? " " : "");
	return RC_USAGE;
}

int rc_dispatch(struct rc *rc, const struct rc_cmd *tab, const char *object,
		void (*usage)(FILE *f), int argc, char **argv)
{
	const struct rc_cmd *c = tab;
	char what[48];
	struct rc_err e;

	if (argc >= 1) {
		snprintf(what, sizeof(what), "%s command", object);
		c = rc_cmd_find(argv[0], tab, what, &e);
		if (!c)
			return rc_usage_error(&e, object);
		argc--;
		argv++;
	}
	if (!c->func) {
		usage(stdout);
		return RC_OK;
	}
	return c->func(rc, argc, argv);
}

void rc_json_print(const struct rc *rc, json_t *j)
{
	/* 15 significant digits print every nm and uN exactly, without
	 * binary noise such as 0.10000000000000001. */
	size_t flags = JSON_REAL_PRECISION(15) |
		       (rc->opt.pretty ? JSON_INDENT(2) : JSON_COMPACT);

	json_dumpf(j, stdout, flags);
	fputc('\n', stdout);
	fflush(stdout);
	json_decref(j);
}

int rc_show_done(struct rc *rc, struct pr *p, int ret, const char *what)
{
	json_t *j = pr_finish(p);

	if (ret < 0) {
		json_decref(j);
		return rc_fail(rc, ret, what);
	}
	if (j)
		rc_json_print(rc, j);
	return RC_OK;
}
