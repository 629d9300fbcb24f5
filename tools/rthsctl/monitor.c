// SPDX-License-Identifier: GPL-2.0
/*
 * rthsctl monitor: one line per event (JSON lines with -j) until SIGINT
 * or SIGTERM.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cmds.h"
#include "print.h"

void rc_usage_monitor(FILE *f)
{
	fputs("Usage: rthsctl monitor [NAME]\n", f);
}

/* The tool's only global: set by the signal handler. */
static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

/* The unit of a limit event's value. */
static enum rc_quantity value_quantity(enum rths_limit_kind k)
{
	return k == RTHS_LIMIT_FORCE ? RC_FORCE :
	       k == RTHS_LIMIT_VELOCITY ? RC_VELOCITY : RC_LENGTH;
}

void rc_show_event(struct pr *p, const struct rths_event *ev)
{
	pr_obj(p, NULL, NULL);
	pr_u64(p, "id", "id %" PRIu64, ev->dev_id);
	pr_str(p, "name", " name %s", ev->dev_name);
	pr_str(p, "event", " event %s", rths_event_name(ev->type));
	if (ev->state)
		pr_str(p, "state", " state %s", rths_state_name(ev->state));
	if (ev->reason)
		pr_str(p, "reason", " reason %s", rths_reason_name(ev->reason));
	if (ev->fault)
		pr_str(p, "fault", " fault %s", rths_fault_name(ev->fault));
	if (ev->type == RTHS_EVENT_LIMIT) {
		pr_u64(p, "channel", " channel %" PRIu64, ev->channel);
		pr_str(p, "limit", " limit %s", rths_limit_name(ev->limit));
		pr_qty(p, "value", " value %s", ev->value,
		       value_quantity(ev->limit));
	}
	if (ev->late_action) {
		pr_str(p, "late_action", " late_action %s",
		       rths_late_action_name(ev->late_action));
		pr_u64(p, "late_ticks", " late_ticks %" PRIu64, ev->late_ticks);
	}
	if (ev->ring)
		pr_str(p, "ring", " ring %s", rths_ring_name(ev->ring));
	pr_u64(p, "step", " step %" PRIu64, ev->step);
	pr_u64(p, "tick", " tick %" PRIu64 "\n", ev->tick);
	pr_close(p);
}

/* One event: a line of text, or a JSON line (one compact object). */
static void print_event(const struct rc *rc, const struct rths_event *ev)
{
	struct pr p;
	json_t *j;

	pr_begin(&p, rc->opt.json, stdout);
	rc_show_event(&p, ev);
	j = pr_finish(&p);
	if (j) {
		json_dumpf(json_array_get(j, 0), stdout,
			   JSON_COMPACT | JSON_REAL_PRECISION(15));
		fputc('\n', stdout);
		json_decref(j);
	}
	fflush(stdout);
}

int rc_cmd_monitor(struct rc *rc, int argc, char **argv)
{
	struct sigaction sa;
	struct rths_mon *mon;
	struct rths_event ev;
	const char *name = NULL;
	int ret;

	if (argc >= 1 && !strcmp(argv[0], "help")) {
		rc_usage_monitor(stdout);
		return RC_OK;
	}
	if (argc > 1) {
		struct rc_err e;

		rc_err_set(&e, "monitor: unexpected \"%s\"", argv[1]);
		return rc_usage_error(&e, "monitor");
	}
	if (argc == 1)
		name = argv[0];
	ret = rths_mon_open(&mon);
	if (ret == -ENOENT) {
		fprintf(stderr, "rthsctl: rths module not loaded (modprobe rths)\n");
		return RC_UNREACHABLE;
	}
	if (ret) {
		fprintf(stderr, "rthsctl: monitor: %s\n", rths_strerror(ret));
		return RC_UNREACHABLE;
	}
	/* no SA_RESTART: the signal must interrupt the wait */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	ret = 0;
	while (!stop_requested) {
		/* a timeout too, for a signal that lands just before poll */
		ret = rths_mon_read(mon, &ev, 1000);
		if (ret == -EINTR || ret == 0)
			continue;
		if (ret == -ENOBUFS) {
			fprintf(stderr, "rthsctl: monitor: events were lost (socket overflow)\n");
			continue;
		}
		if (ret < 0)
			break;
		if (name && strcmp(name, ev.dev_name))
			continue;
		print_event(rc, &ev);
	}
	rths_mon_close(mon);
	if (ret < 0 && ret != -EINTR) {
		fprintf(stderr, "rthsctl: monitor: %s\n", rths_strerror(ret));
		return RC_ERROR;
	}
	return RC_OK;
}
