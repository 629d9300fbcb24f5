// SPDX-License-Identifier: GPL-2.0
/*
 * rthsctl stats: counters, latencies and histograms; reset.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cmds.h"
#include "print.h"

void rc_usage_stats(FILE *f)
{
	fputs("Usage: rthsctl stats [show] [NAME]\n"
	      "       rthsctl stats reset NAME\n", f);
}

/* Counters in print order (JSON key and text label), by field. */
static const struct {
	const char *key;
	size_t off;
	bool line;		/* text: a new line before it */
} counters[] = {
#define C(field, line) { #field, offsetof(struct rths_stats, field), line }
	C(periods, true), C(ticks, false), C(missed, false), C(steps, false),
	C(lat_samples, false),
	C(stretch_ticks, true), C(step_ticks_now, false),
	C(halt_ticks, false), C(wait_ticks, false),
	C(late_steps, true), C(late_extrapolated, false),
	C(late_held, false), C(late_decelerated, false),
	C(late_faulted, false),
	C(fb_records, true), C(fb_overflows, false),
	C(trace_records, false), C(trace_overflows, false),
	C(ring_faults, true), C(limit_trips, false), C(card_errors, false),
	C(events_dropped, false),
#undef C
};

static uint64_t counter(const struct rths_stats *st, size_t i)
{
	uint64_t v;

	memcpy(&v, (const char *)st + counters[i].off, sizeof(v));
	return v;
}

/* A latency in s (JSON) and us (text), with its log2 histogram; the
 * text lists the buckets that have a sample. */
static void show_latency(struct pr *p, const char *key, uint64_t min,
			 uint64_t avg, uint64_t max, const uint64_t *hist)
{
	char text[32], fmt[48];
	unsigned int b;

	snprintf(text, sizeof(text), "\n    %s", key);
	pr_obj(p, key, text);
	pr_real(p, "min", " min %.3fus", min / 1e9, 1e6);
	pr_real(p, "avg", " avg %.3fus", avg / 1e9, 1e6);
	pr_real(p, "max", " max %.3fus", max / 1e9, 1e6);
	pr_arr(p, "hist", " hist (us)");
	for (b = 0; b < RTHS_LAT_HIST_BUCKETS; b++) {
		char range[32];

		if (b == 0)
			snprintf(range, sizeof(range), "< 1");
		else if (b == RTHS_LAT_HIST_BUCKETS - 1)
			snprintf(range, sizeof(range), ">= %llu",
				 1ULL << (b - 1));
		else
			snprintf(range, sizeof(range), "%llu - %llu",
				 1ULL << (b - 1), 1ULL << b);
		snprintf(fmt, sizeof(fmt), "\n      %-16s %%12" PRIu64, range);
		pr_u64(p, NULL, hist[b] ? fmt : NULL, hist[b]);
	}
	pr_close(p);
	pr_close(p);
}

void rc_show_stats(struct pr *p, uint32_t id, const char *name,
		   const struct rths_stats *st)
{
	char fmt[48];
	size_t i;

	pr_obj(p, NULL, NULL);
	pr_u64(p, "id", "id %" PRIu64, id);
	pr_str(p, "name", " name %s", name);
	for (i = 0; i < sizeof(counters) / sizeof(counters[0]); i++) {
		snprintf(fmt, sizeof(fmt), "%s%s %%" PRIu64,
			 counters[i].line ? "\n    " : " ", counters[i].key);
		pr_u64(p, counters[i].key, fmt, counter(st, i));
	}
	show_latency(p, "irq_latency", st->irq_lat_min, st->irq_lat_avg,
		     st->irq_lat_max, st->irq_lat_hist);
	show_latency(p, "thread_latency", st->thread_lat_min,
		     st->thread_lat_avg, st->thread_lat_max,
		     st->thread_lat_hist);
	pr_text(p, "\n");
	pr_close(p);
}

static int show_one(uint32_t id, const char *name, const struct rths_stats *st,
		    void *arg)
{
	rc_show_stats(arg, id, name, st);
	return 0;
}

static int stats_show(struct rc *rc, const char *name)
{
	struct pr p;
	int ret;

	if (!rc_ctl(rc))
		return RC_UNREACHABLE;
	pr_begin(&p, rc->opt.json, stdout);
	if (name) {
		struct rths_stats st;
		struct rths_dev_info d;

		/* the id comes with the device, not with its stats */
		ret = rths_dev_get(rc->ctl, name, &d, sizeof(d));
		if (!ret)
			ret = rths_stats_get(rc->ctl, name, &st);
		if (!ret)
			show_one(d.id, d.name, &st, &p);
	} else {
		ret = rths_stats_list(rc->ctl, show_one, &p);
	}
	return rc_show_done(rc, &p, ret, name ? name : "stats show");
}

static int stats_reset(struct rc *rc, int argc, char **argv)
{
	struct rc_err e;
	int ret;

	if (argc != 1) {
		rc_err_set(&e, "stats reset: %s",
			   argc < 1 ? "missing NAME" : "too many arguments");
		return rc_usage_error(&e, "stats");
	}
	if (!rc_ctl(rc))
		return RC_UNREACHABLE;
	ret = rths_stats_reset(rc->ctl, argv[0]);
	return rc_result(rc, ret, "stats reset %s", argv[0]);
}

static int stats_show_cmd(struct rc *rc, int argc, char **argv)
{
	struct rc_err e;

	if (argc > 1) {
		rc_err_set(&e, "stats show: unexpected \"%s\"", argv[1]);
		return rc_usage_error(&e, "stats");
	}
	return stats_show(rc, argc ? argv[0] : NULL);
}

int rc_cmd_stats(struct rc *rc, int argc, char **argv)
{
	static const struct rc_cmd cmds[] = {
		{ "show", stats_show_cmd }, { "reset", stats_reset },
		{ "help", NULL }, { NULL, NULL }
	};
	struct rc_err e;

	/* "stats NAME": a word that names no command is a device */
	if (argc >= 1 && !rc_cmd_find(argv[0], cmds, "stats command", &e))
		return stats_show_cmd(rc, argc, argv);
	return rc_dispatch(rc, cmds, "stats", rc_usage_stats, argc, argv);
}
