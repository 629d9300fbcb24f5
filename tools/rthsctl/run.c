// SPDX-License-Identifier: GPL-2.0
/*
 * rthsctl run: start, stop, hold, tick.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cmds.h"

void rc_usage_run(FILE *f)
{
	fputs("Usage: rthsctl run { start | hold } NAME\n"
	      "       rthsctl run stop NAME [now] (now: no ramp to rest first)\n"
	      "       rthsctl run tick NAME N     (manual clock: advance N ticks)\n",
	      f);
}

/* One run command on @argv[0] (NAME), after its words are checked. */
static int run_on(struct rc *rc, const char *cmd, const char *name,
		  int ret)
{
	char what[64];

	snprintf(what, sizeof(what), "run %s %s", cmd, name);
	if (!ret)
		return RC_OK;
	rc_fail(rc, ret, what);
	/*
	 * rthsctl holds the node only for one command, and a run whose
	 * owner closes it holds: starting or ticking one is for its owner.
	 */
	if (ret == -EPERM && (!strcmp(cmd, "start") || !strcmp(cmd, "tick")))
		fprintf(stderr,
			"rthsctl: without CAP_NET_ADMIN a run belongs to the process that opens /dev/rths/%s for writing: use rths-run or a librths program (rths_dev_open with RTHS_OPEN_OWNER)\n",
			name);
	return RC_ERROR;
}

/* @argc words after "run CMD": @want, else a usage error. */
static int run_words(const char *cmd, int argc, int want, const char *missing)
{
	struct rc_err e;

	if (argc == want)
		return RC_OK;
	rc_err_set(&e, "run %s: %s", cmd,
		   argc < want ? missing : "too many arguments");
	return rc_usage_error(&e, "run");
}

/* "run start NAME", "run hold NAME": @op on the one NAME */
static int run_name(struct rc *rc, const char *cmd, int argc, char **argv,
		    int (*op)(struct rths_ctl *ctl, const char *name))
{
	int ret = run_words(cmd, argc, 1, "missing NAME");

	if (ret)
		return ret;
	if (!rc_ctl(rc))
		return RC_UNREACHABLE;
	return run_on(rc, cmd, argv[0], op(rc->ctl, argv[0]));
}

static int run_start(struct rc *rc, int argc, char **argv)
{
	return run_name(rc, "start", argc, argv, rths_run_start);
}

static int run_hold(struct rc *rc, int argc, char **argv)
{
	return run_name(rc, "hold", argc, argv, rths_run_hold);
}

/* "run stop NAME [now]": now is its only optional word */
static int run_stop(struct rc *rc, int argc, char **argv)
{
	static const char *const stop_words[] = { "now", NULL };
	bool now = false;
	struct rc_err e;
	int ret;

	if (argc == 2) {
		if (rc_keyword(argv[1], stop_words, "run stop option", &e) < 0)
			return rc_usage_error(&e, "run");
		now = true;
		argc--;
	}
	ret = run_words("stop", argc, 1, "missing NAME");
	if (ret)
		return ret;
	if (!rc_ctl(rc))
		return RC_UNREACHABLE;
	ret = now ? rths_run_stop_now(rc->ctl, argv[0]) :
		    rths_run_stop(rc->ctl, argv[0]);
	return run_on(rc, "stop", argv[0], ret);
}

static int run_tick(struct rc *rc, int argc, char **argv)
{
	uint32_t ticks = 0;
	struct rc_err e;
	int ret = run_words("tick", argc, 2, "missing NAME or N");

	if (ret)
		return ret;
	if (rc_parse_u32("ticks", argv[1], NULL, &ticks, &e))
		return rc_usage_error(&e, "run");
	if (!rc_ctl(rc))
		return RC_UNREACHABLE;
	return run_on(rc, "tick", argv[0],
		      rths_run_tick(rc->ctl, argv[0], ticks));
}

int rc_cmd_run(struct rc *rc, int argc, char **argv)
{
	static const struct rc_cmd cmds[] = {
		{ "start", run_start }, { "stop", run_stop },
		{ "tick", run_tick }, { "hold", run_hold }, { "help", NULL },
		{ NULL, NULL }
	};
	struct rc_err e;

	/* no default command: a run needs a NAME */
	if (argc < 1) {
		rc_err_set(&e, "run: missing command");
		return rc_usage_error(&e, "run");
	}
	return rc_dispatch(rc, cmds, "run", rc_usage_run, argc, argv);
}
