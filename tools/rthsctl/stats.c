// SPDX-License-Identifier: GPL-2.0
/*
 * rthsctl stats: counters, latencies and histograms; reset.
 */
#include <stdio.h>
#include <string.h>

#include "rthsctl.h"

void rc_usage_stats(FILE *f)
{
	fputs("Usage: rthsctl stats [show] [NAME]\n"
	      "       rthsctl stats reset NAME\n", f);
}

/* Counters in print order: JSON key, human label, field. */
static const struct {
	const char *key, *label;
	size_t off;
} counters[] = {
#define C(key, label, field) { key, label, offsetof(struct rths_stats, field) }
	C("periods", "periods", periods),
	C("ticks", "ticks", ticks),
	C("missed", "missed", missed),
	C("steps", "steps", steps),
	C("lat_samples", "lat-samples", lat_samples),
	C("stretch_ticks", "stretch-ticks", stretch_ticks),
	C("step_ticks_now", "step-ticks-now", step_ticks_now),
	C("halt_ticks", "halt-ticks", halt_ticks),
	C("wait_ticks", "wait-ticks", wait_ticks),
	C("late_steps", "late-steps", late_steps),
	C("late_extrapolated", "extrapolated", late_extrapolated),
	C("late_held", "held", late_held),
	C("late_decelerated", "decelerated", late_decelerated),
	C("late_faulted", "faulted", late_faulted),
	C("fb_records", "fb-records", fb_records),
	C("fb_overflows", "fb-overflows", fb_overflows),
	C("trace_records", "trace-records", trace_records),
	C("trace_overflows", "trace-overflows", trace_overflows),
	C("ring_faults", "ring-faults", ring_faults),
	C("limit_trips", "limit-trips", limit_trips),
	C("card_errors", "card-errors", card_errors),
	C("events_dropped", "events-dropped", events_dropped),
#undef C
};
/* Human output breaks the line before these. */
static const char *const line_starts[] = {
	"stretch-ticks", "late-steps", "fb-records", "ring-faults", NULL
};

static uint64_t counter(const struct rths_stats *st, size_t i)
{
	uint64_t v;

	memcpy(&v, (const char *)st + counters[i].off, sizeof(v));
	return v;
}

static json_t *json_latency(uint64_t min, uint64_t avg, uint64_t max,
			    const uint64_t *hist)
{
	json_t *h = json_array();
	unsigned int i;

	for (i = 0; i < RTHS_LAT_HIST_BUCKETS; i++)
		json_array_append_new(h, json_integer((json_int_t)hist[i]));
	/* seconds, as everything else in JSON */
	return json_pack("{s:f,s:f,s:f,s:o}", "min", min / 1e9, "avg",
			 avg / 1e9, "max", max / 1e9, "hist", h);
}

static json_t *json_stats(uint32_t id, const char *name,
			  const struct rths_stats *st)
{
	json_t *o = json_pack("{s:I,s:s}", "id", (json_int_t)id, "name", name);
	size_t i;

	for (i = 0; i < sizeof(counters) / sizeof(counters[0]); i++)
		json_object_set_new(o, counters[i].key,
				    json_integer((json_int_t)counter(st, i)));
	json_object_set_new(o, "irq_latency",
			    json_latency(st->irq_lat_min, st->irq_lat_avg,
					 st->irq_lat_max, st->irq_lat_hist));
	json_object_set_new(o, "thread_latency",
			    json_latency(st->thread_lat_min,
					 st->thread_lat_avg,
					 st->thread_lat_max,
					 st->thread_lat_hist));
	return o;
}

static void print_stats(uint32_t id, const char *name,
			const struct rths_stats *st)
{
	unsigned int b, k;
	size_t i;

	printf("%u: %s:", id, name);
	for (i = 0; i < sizeof(counters) / sizeof(counters[0]); i++) {
		for (k = 0; line_starts[k]; k++)
			if (!strcmp(line_starts[k], counters[i].label))
				break;
		printf("%s%s %llu", i == 0 || line_starts[k] ? "\n    " : " ",
		       counters[i].label,
		       (unsigned long long)counter(st, i));
	}
	if (!st->lat_samples) {
		printf("\n    latency: no samples\n");
		return;
	}
	printf("\n    %-18s %12s %12s %12s\n", "latency (us)", "min", "avg", "max");
	printf("      %-16s %12.3f %12.3f %12.3f\n", "irq",
	       st->irq_lat_min / 1e3, st->irq_lat_avg / 1e3,
	       st->irq_lat_max / 1e3);
	printf("      %-16s %12.3f %12.3f %12.3f\n", "thread",
	       st->thread_lat_min / 1e3, st->thread_lat_avg / 1e3,
	       st->thread_lat_max / 1e3);
	printf("    %-18s %12s %12s\n", "histogram (us)", "irq", "thread");
	for (b = 0; b < RTHS_LAT_HIST_BUCKETS; b++) {
		char range[32];

		if (!st->irq_lat_hist[b] && !st->thread_lat_hist[b])
			continue;
		if (b == 0)
			snprintf(range, sizeof(range), "< 1");
		else if (b == RTHS_LAT_HIST_BUCKETS - 1)
			snprintf(range, sizeof(range), ">= %llu",
				 1ULL << (b - 1));
		else
			snprintf(range, sizeof(range), "%llu - %llu",
				 1ULL << (b - 1), 1ULL << b);
		printf("      %-16s %12llu %12llu\n", range,
		       (unsigned long long)st->irq_lat_hist[b],
		       (unsigned long long)st->thread_lat_hist[b]);
	}
}

static int show_one(uint32_t id, const char *name, const struct rths_stats *st,
		    void *arg)
{
	json_t *arr = arg;

	if (arr)
		json_array_append_new(arr, json_stats(id, name, st));
	else
		print_stats(id, name, st);
	return 0;
}

static int stats_show(struct rc *rc, const char *name)
{
	json_t *arr = rc->opt.json ? json_array() : NULL;
	int ret;

	if (!rc_ctl(rc)) {
		json_decref(arr);
		return RC_UNREACHABLE;
	}
	if (name) {
		struct rths_stats st;
		struct rths_dev_info d;

		/* the id comes with the device, not with its stats */
		ret = rths_dev_get(rc->ctl, name, &d, sizeof(d));
		if (!ret)
			ret = rths_stats_get(rc->ctl, name, &st);
		if (!ret)
			show_one(d.id, d.name, &st, arr);
	} else {
		ret = rths_stats_list(rc->ctl, show_one, arr);
	}
	if (ret < 0) {
		json_decref(arr);
		return rc_fail(rc, ret, name ? name : "stats show");
	}
	if (arr)
		rc_json_print(rc, arr);
	return RC_OK;
}

static int stats_reset(struct rc *rc, int argc, char **argv)
{
	struct rc_err e;
	char what[64];
	int ret;

	if (argc != 1) {
		rc_err_set(&e, "stats reset: %s",
			   argc < 1 ? "missing NAME" : "too many arguments");
		return rc_usage_error(&e, "stats");
	}
	if (!rc_ctl(rc))
		return RC_UNREACHABLE;
	ret = rths_stats_reset(rc->ctl, argv[0]);
	snprintf(what, sizeof(what), "stats reset %s", argv[0]);
	return ret ? rc_fail(rc, ret, what) : RC_OK;
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
