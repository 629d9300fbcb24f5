// SPDX-License-Identifier: GPL-2.0
/*
 * rthsctl run: start, stop, hold, tick.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "rthsctl.h"

void rc_usage_run(FILE *f)
{
	fputs("Usage: rthsctl run { start | hold } NAME\n"
	      "       rthsctl run stop NAME [now] (now: no ramp to rest first)\n"
	      "       rthsctl run tick NAME N     (manual clock: advance N ticks)\n",
	      f);
}

int rc_cmd_run(struct rc *rc, int argc, char **argv)
{
	static const char *const words[] = {
		"start", "stop", "tick", "help", "hold", NULL
	};
	static const char *const stop_words[] = { "now", NULL };
	struct rc_err e;
	uint32_t ticks = 0;
	bool now = false;
	char what[64];
	int k, ret;

	if (argc < 1) {
		rc_err_set(&e, "run: missing command");
		return rc_usage_error(&e, "run");
	}
	k = rc_keyword(argv[0], words, "run command", &e);
	if (k < 0)
		return rc_usage_error(&e, "run");
	if (k == 3) {
		rc_usage_run(stdout);
		return RC_OK;
	}
	/* "run stop NAME now": the only optional word */
	if (k == 1 && argc == 3) {
		if (rc_keyword(argv[2], stop_words, "run stop option", &e) < 0)
			return rc_usage_error(&e, "run");
		now = true;
		argc--;
	}
	if (argc != (k == 2 ? 3 : 2)) {
		rc_err_set(&e, "run %s: %s", argv[0],
			   argc < (k == 2 ? 3 : 2) ?
			   (k == 2 ? "missing NAME or N" : "missing NAME") :
			   "too many arguments");
		return rc_usage_error(&e, "run");
	}
	if (k == 2 && rc_parse_u32("ticks", argv[2], NULL, &ticks, &e))
		return rc_usage_error(&e, "run");
	if (!rc_ctl(rc))
		return RC_ERROR;
	if (k == 0)
		ret = rths_run_start(rc->ctl, argv[1]);
	else if (k == 1)
		ret = now ? rths_run_stop_now(rc->ctl, argv[1]) :
			    rths_run_stop(rc->ctl, argv[1]);
	else if (k == 4)
		ret = rths_run_hold(rc->ctl, argv[1]);
	else
		ret = rths_run_tick(rc->ctl, argv[1], ticks);
	snprintf(what, sizeof(what), "run %s %s", argv[0], argv[1]);
	if (!ret)
		return RC_OK;
	rc_fail(rc, ret, what);
	/*
	 * rthsctl holds the node only for one command, and a run whose
	 * owner closes it holds: starting or ticking one is for its owner.
	 */
	if (ret == -EPERM && (k == 0 || k == 2))
		fprintf(stderr,
			"rthsctl: without CAP_NET_ADMIN a run belongs to the process that opens /dev/rths/%s for writing: use rths-run or a librths program (rths_dev_open with RTHS_OPEN_OWNER)\n",
			argv[1]);
	return RC_ERROR;
}
