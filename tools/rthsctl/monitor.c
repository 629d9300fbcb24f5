// SPDX-License-Identifier: GPL-2.0
/*
 * rthsctl monitor: one line per event (JSON lines with -j) until SIGINT
 * or SIGTERM.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "rthsctl.h"

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

static void print_event(const struct rths_event *ev)
{
	const char *type = rths_event_name(ev->type);
	char v[48];

	printf("%s: %s", ev->dev_name, type ? type : "unknown");
	switch (ev->type) {
	case RTHS_EVENT_STATE:
		printf(" %s", rths_state_name(ev->state) ?
		       rths_state_name(ev->state) : "unknown");
		if (ev->reason)
			printf(" reason %s", rths_reason_name(ev->reason) ?
			       rths_reason_name(ev->reason) : "unknown");
		break;
	case RTHS_EVENT_FAULT:
		printf(" %s", rths_fault_name(ev->fault) ?
		       rths_fault_name(ev->fault) : "unknown");
		break;
	case RTHS_EVENT_LIMIT:
		printf(" channel %u %s %s", ev->channel,
		       rths_limit_name(ev->limit) ? rths_limit_name(ev->limit) :
		       "unknown",
		       rc_fmt(v, ev->value, value_quantity(ev->limit)));
		break;
	case RTHS_EVENT_LATE:
		printf(" %s late-ticks %u",
		       rths_late_action_name(ev->late_action) ?
		       rths_late_action_name(ev->late_action) : "unknown",
		       ev->late_ticks);
		break;
	case RTHS_EVENT_OVERFLOW:
		printf(" ring %s", rths_ring_name(ev->ring) ?
		       rths_ring_name(ev->ring) : "unknown");
		break;
	default:
		break;
	}
	if (ev->step)
		printf(" step %llu", (unsigned long long)ev->step);
	if (ev->tick)
		printf(" tick %llu", (unsigned long long)ev->tick);
	putchar('\n');
	fflush(stdout);
}

static json_t *json_event(const struct rths_event *ev)
{
	json_t *o = json_object();

	rc_json_set_str(o, "event", rths_event_name(ev->type));
	json_object_set_new(o, "id", json_integer(ev->dev_id));
	json_object_set_new(o, "name", json_string(ev->dev_name));
	json_object_set_new(o, "tick", json_integer((json_int_t)ev->tick));
	json_object_set_new(o, "step", json_integer((json_int_t)ev->step));
	if (ev->state)
		rc_json_set_str(o, "state", rths_state_name(ev->state));
	if (ev->reason)
		rc_json_set_str(o, "reason", rths_reason_name(ev->reason));
	if (ev->fault)
		rc_json_set_str(o, "fault", rths_fault_name(ev->fault));
	if (ev->type == RTHS_EVENT_LIMIT) {
		json_object_set_new(o, "channel", json_integer(ev->channel));
		rc_json_set_str(o, "limit", rths_limit_name(ev->limit));
		json_object_set_new(o, "value", json_real(ev->value));
	}
	if (ev->late_action) {
		rc_json_set_str(o, "late_action",
				rths_late_action_name(ev->late_action));
		json_object_set_new(o, "late_ticks",
				    json_integer(ev->late_ticks));
	}
	if (ev->ring)
		rc_json_set_str(o, "ring", rths_ring_name(ev->ring));
	return o;
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
		if (rc->opt.json) {
			/* JSON lines: one compact object per line */
			json_t *j = json_event(&ev);

			json_dumpf(j, stdout, JSON_COMPACT | JSON_REAL_PRECISION(15));
			fputc('\n', stdout);
			fflush(stdout);
			json_decref(j);
		} else {
			print_event(&ev);
		}
	}
	rths_mon_close(mon);
	if (ret < 0 && ret != -EINTR) {
		fprintf(stderr, "rthsctl: monitor: %s\n", rths_strerror(ret));
		return RC_UNREACHABLE;
	}
	return RC_OK;
}
