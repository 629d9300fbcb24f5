// SPDX-License-Identifier: GPL-2.0
/*
 * rthsctl: configure and watch rths devices (iproute2 style).
 *
 *   rthsctl [-j] [-p] OBJECT COMMAND [ARGS]
 *   rthsctl -b FILE        (tools/rthsctl/batch.c)
 *
 * Exit status (Documentation/tool-conventions.rst): 0 success, 1 the
 * request failed, 2 the command line was wrong, 3 the rths module could
 * not be reached.
 */
#include <stdio.h>
#include <string.h>

#include "rthsctl/batch.h"
#include "rthsctl/cmds.h"

static void usage(FILE *f)
{
	fputs("Usage: rthsctl [OPTIONS] OBJECT { COMMAND | help }\n"
	      "where  OBJECT := { dev | run | stats | latency | monitor | card }\n"
	      "       OPTIONS := { -j[son] | -p[retty] | -V[ersion] | -h[elp] }\n"
	      "       rthsctl -b FILE   (dev add/set/del lines, \"-\": stdin; checked\n"
	      "                          whole before any is applied)\n"
	      "\n", f);
	rc_usage_dev(f);
	fputc('\n', f);
	rc_usage_run(f);
	fputc('\n', f);
	rc_usage_stats(f);
	fputc('\n', f);
	rc_usage_latency(f);
	fputc('\n', f);
	rc_usage_monitor(f);
	fputc('\n', f);
	rc_usage_card(f);
	fputs("\nOBJECT and COMMAND may be abbreviated: the first in the order above\n"
	      "that begins with the word (\"rthsctl d s\" is \"rthsctl dev show\").\n"
	      "-j prints JSON in SI base units (m, m/s, N, s); -p pretty-prints it.\n"
	      "See rthsctl(8).\n", f);
}

int main(int argc, char **argv)
{
	/* in ip's order of use: "d" is dev, "s" stats */
	static const struct rc_cmd objects[] = {
		{ "dev", rc_cmd_dev }, { "run", rc_cmd_run },
		{ "stats", rc_cmd_stats }, { "monitor", rc_cmd_monitor },
		{ "card", rc_cmd_card }, { "latency", rc_cmd_latency },
		{ "help", NULL }, { NULL, NULL }
	};
	const struct rc_cmd *obj;
	struct rc rc = { .ctl = NULL };
	const char *batch;
	struct rc_err e;
	int i, ret;

	if (rc_batch_option(&argc, argv, &batch, &e))
		return rc_usage_error(&e, NULL);
	i = rc_parse_global(argc, argv, &rc.opt, &e);
	if (i < 0)
		return rc_usage_error(&e, NULL);
	if (batch && !rc.opt.version && !rc.opt.help) {
		if (i < argc) {
			rc_err_set(&e, "-b FILE takes no OBJECT (\"%s\")", argv[i]);
			return rc_usage_error(&e, NULL);
		}
		ret = rc_batch_run(&rc, batch);
		rths_ctl_close(rc.ctl);
		return ret;
	}
	if (rc.opt.version) {
		printf("rthsctl %s (rths generic netlink family version %d)\n",
		       RTHSCTL_VERSION, RTHS_GENL_VERSION);
		return RC_OK;
	}
	if (rc.opt.help) {
		usage(stdout);
		return RC_OK;
	}
	if (i >= argc) {
		rc_err_set(&e, "missing OBJECT");
		return rc_usage_error(&e, NULL);
	}
	obj = rc_cmd_find(argv[i], objects, "object", &e);
	if (!obj)
		return rc_usage_error(&e, NULL);
	if (!obj->func) {
		usage(stdout);
		return RC_OK;
	}
	ret = obj->func(&rc, argc - i - 1, argv + i + 1);
	rths_ctl_close(rc.ctl);
	return ret;
}
