// SPDX-License-Identifier: GPL-2.0
/*
 * rthsctl latency: run a device on its hrtimer clock for a number of
 * loops or a time and print its latencies as cyclictest does (the T:
 * line, the -h histogram, JSON as --json writes it), so that the scripts
 * that read cyclictest's output read rths's too.  Beyond cyclictest: the
 * timer-irq latency apart from the thread's, and the missed ticks.
 *
 * The figures are the kernel's statistics (STATS_GET), which keep
 * log2-microsecond histograms: each bucket's count is printed on the
 * row of its lower bound.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rthsctl.h"

#define LAT_POLL_NS	100000000L	/* how often the counters are read */
#define LAT_COLS	2		/* the loop thread, the timer irq */

void rc_usage_latency(FILE *f)
{
	fputs("Usage: rthsctl latency NAME [loops N] [duration TIME]"
	      " [histogram US]\n"
	      "       (hrtimer clock; prints cyclictest's T: line, its -h\n"
	      "       histogram with HISTOGRAM, or its JSON with -j)\n", f);
}

struct lat_args {
	const char *name;
	uint64_t loops;		/* 0: until the duration or a signal */
	double duration;	/* s; 0: until the loops or a signal */
	uint32_t hist;		/* rows of the histogram, 0: none */
};

static int parse_args(int argc, char **argv, struct lat_args *a,
		      struct rc_err *e)
{
	static const char *const words[] = {
		"loops", "duration", "histogram", NULL
	};
	int i, k;

	memset(a, 0, sizeof(*a));
	if (argc < 1)
		return rc_err_set(e, "latency: missing NAME");
	a->name = argv[0];
	for (i = 1; i < argc; i += 2) {
		k = rc_keyword(argv[i], words, "latency option", e);
		if (k < 0)
			return k;
		if (i + 1 >= argc)
			return rc_err_set(e, "latency: %s needs a value",
					  argv[i]);
		if (k == 0) {
			if (rc_parse_u64("loops", argv[i + 1], &a->loops, e))
				return -EINVAL;
			if (!a->loops)
				return rc_err_set(e, "loops: must be at least 1");
		} else if (k == 1) {
			if (rc_parse_quantity("duration", argv[i + 1], RC_TIME,
					      &a->duration, e))
				return -EINVAL;
			if (a->duration <= 0)
				return rc_err_set(e, "duration: must be positive");
		} else {
			if (rc_parse_u32("histogram", argv[i + 1], "us",
					 &a->hist, e))
				return -EINVAL;
			if (!a->hist || a->hist > 1000000)
				return rc_err_set(e, "histogram: from 1 to 1000000 us");
		}
	}
	return 0;
}

/* One column of cyclictest's histogram, in microseconds. */
struct lat_col {
	uint64_t count, min, avg, max, overflow;
	const uint64_t *hist;	/* RTHS_LAT_HIST_BUCKETS log2 buckets */
};

/* Row of bucket @b: its lower bound in us ([0, 1) us is row 0). */
static uint64_t bucket_row(unsigned int b)
{
	return b ? 1ULL << (b - 1) : 0;
}

static void col_init(struct lat_col *c, uint64_t count, uint64_t min,
		     uint64_t avg, uint64_t max, const uint64_t *hist,
		     uint32_t rows)
{
	unsigned int b;

	c->count = count;
	c->min = min / 1000;
	c->avg = avg / 1000;
	c->max = max / 1000;
	c->hist = hist;
	c->overflow = 0;
	for (b = 0; b < RTHS_LAT_HIST_BUCKETS; b++)
		if (bucket_row(b) >= rows ||
		    b == RTHS_LAT_HIST_BUCKETS - 1)	/* open-ended */
			c->overflow += hist[b];
}

/* Count of row @us of column @c. */
static uint64_t row_count(const struct lat_col *c, uint64_t us)
{
	unsigned int b;

	for (b = 0; b < RTHS_LAT_HIST_BUCKETS - 1; b++)
		if (bucket_row(b) == us)
			return c->hist[b];
	return 0;
}

/* cyclictest's print_hist(): column 0 the thread, column 1 the irq. */
static void print_hist(const struct lat_col *c, uint32_t rows)
{
	static const char *const labels[] = {
		"Total", "Min Latencies", "Avg Latencies", "Max Latencies",
		"Histogram Overflows",
	};
	uint64_t v[5][LAT_COLS];
	unsigned int j;
	uint64_t i;

	printf("# Histogram\n");
	for (i = 0; i < rows; i++) {
		printf("%06llu ", (unsigned long long)i);
		for (j = 0; j < LAT_COLS; j++)
			printf("%06llu%s", (unsigned long long)row_count(&c[j], i),
			       j < LAT_COLS - 1 ? "\t" : "");
		printf("\n");
	}
	for (j = 0; j < LAT_COLS; j++) {
		v[0][j] = c[j].count - c[j].overflow;
		v[1][j] = c[j].min;
		v[2][j] = c[j].avg;
		v[3][j] = c[j].max;
		v[4][j] = c[j].overflow;
	}
	for (i = 0; i < 5; i++) {
		printf("# %s:", labels[i]);
		for (j = 0; j < LAT_COLS; j++)
			printf(" %0*llu", i ? 5 : 9,
			       (unsigned long long)v[i][j]);
		printf("\n");
	}
	printf("# Histogram Overflow at cycle number:\n");
	for (j = 0; j < LAT_COLS; j++)
		printf("# Thread %u:\n", j);
	printf("\n");
}

/* The loop thread "rths/NAME" (comm is cut to 15 characters); 0 if none. */
static int loop_pid(const char *name)
{
	char want[16], path[300], comm[32];
	struct dirent *de;
	int pid = 0;
	DIR *d;

	snprintf(want, sizeof(want), "rths/%.10s", name);
	d = opendir("/proc");
	if (!d)
		return 0;
	while (!pid && (de = readdir(d))) {
		FILE *f;

		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(comm, sizeof(comm), f)) {
			comm[strcspn(comm, "\n")] = 0;
			if (!strcmp(comm, want))
				pid = atoi(de->d_name);
		}
		fclose(f);
	}
	closedir(d);
	return pid;
}

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Mean thread latency (ns) of the samples between @a and @b. */
static uint64_t act_ns(const struct rths_stats *a, const struct rths_stats *b)
{
	long double sa = (long double)a->thread_lat_avg * a->lat_samples;
	long double sb = (long double)b->thread_lat_avg * b->lat_samples;

	if (b->lat_samples <= a->lat_samples)
		return b->thread_lat_avg;
	return (uint64_t)((sb - sa) / (b->lat_samples - a->lat_samples));
}

static json_t *json_hist(const struct lat_col *c)
{
	json_t *h = json_object();
	unsigned int b;
	char key[24];

	/* every bucket, even past the printed rows: JSON has no limit */
	for (b = 0; b < RTHS_LAT_HIST_BUCKETS; b++) {
		if (!c->hist[b])
			continue;
		snprintf(key, sizeof(key), "%llu",
			 (unsigned long long)bucket_row(b));
		json_object_set_new(h, key, json_integer((json_int_t)c->hist[b]));
	}
	return h;
}

static json_t *json_col(const struct lat_col *c, uint32_t cpu,
			uint64_t avg_ns)
{
	return json_pack("{s:o,s:I,s:I,s:I,s:f,s:I,s:I}",
			 "histogram", json_hist(c),
			 "cycles", (json_int_t)c->count,
			 "min", (json_int_t)c->min,
			 "max", (json_int_t)c->max,
			 "avg", avg_ns / 1e3,
			 "cpu", (json_int_t)cpu, "node", (json_int_t)0);
}

/* cyclictest's --json layout; latencies in us as there. */
static json_t *json_result(const struct rths_dev_info *d,
			   const struct rths_stats *st,
			   const struct lat_col *c, double elapsed)
{
	json_t *o, *th, *r;

	th = json_object();
	json_object_set_new(th, "0", json_col(&c[0], d->cpu,
					      st->thread_lat_avg));
	r = json_pack("{s:s,s:I,s:I,s:I,s:I,s:f,s:I,s:I,s:o}",
		      "device", d->name,
		      "rate_hz", (json_int_t)d->rate_hz,
		      "periods", (json_int_t)st->periods,
		      "ticks", (json_int_t)st->ticks,
		      "missed", (json_int_t)st->missed,
		      "duration_s", elapsed,
		      "priority", (json_int_t)d->priority,
		      "cpu", (json_int_t)d->cpu,
		      "irq", json_col(&c[1], d->cpu, st->irq_lat_avg));
	o = json_pack("{s:i,s:s,s:i,s:i,s:i,s:o,s:o}",
		      "file_version", 1, "cmdline", "rthsctl latency",
		      "return_code", 0, "num_threads", 1,
		      "resolution_in_ns", 0, "thread", th, "rths", r);
	return o;
}

static void print_result(const struct rths_dev_info *d,
			 const struct rths_stats *st, const struct lat_col *c,
			 int pid, uint64_t act)
{
	/* cyclictest's print_stat() */
	printf("T:%2d (%5d) P:%2u I:%llu C:%7llu Min:%7llu Act:%8llu Avg:%8llu Max:%8llu\n",
	       0, pid, d->priority,
	       (unsigned long long)(1000000 / d->rate_hz),
	       (unsigned long long)c[0].count, (unsigned long long)c[0].min,
	       (unsigned long long)(act / 1000), (unsigned long long)c[0].avg,
	       (unsigned long long)c[0].max);
	/* what cyclictest cannot see, as comments its readers skip */
	printf("# irq: C:%7llu Min:%7llu Avg:%8llu Max:%8llu\n",
	       (unsigned long long)c[1].count, (unsigned long long)c[1].min,
	       (unsigned long long)c[1].avg, (unsigned long long)c[1].max);
	printf("# missed: %llu of %llu periods\n",
	       (unsigned long long)st->missed,
	       (unsigned long long)st->periods);
}

static int run(struct rc *rc, const struct lat_args *a)
{
	struct rths_stats prev, st;
	struct rths_dev_info d;
	struct lat_col c[LAT_COLS];
	double t0, elapsed;
	uint64_t act = 0;
	int ret, pid = 0;
	char what[64];

	snprintf(what, sizeof(what), "latency %s", a->name);
	memset(&d, 0, sizeof(d));
	ret = rths_dev_get(rc->ctl, a->name, &d, sizeof(d));
	if (ret)
		return rc_fail(rc, ret, what);
	if (d.clock != RTHS_CLOCK_HRTIMER) {
		fprintf(stderr, "rthsctl: %s: needs the hrtimer clock (dev set %s clock hrtimer)\n",
			what, a->name);
		return RC_ERROR;
	}
	if (d.state != RTHS_STATE_STOPPED) {
		fprintf(stderr, "rthsctl: %s: the device is %s, not stopped\n",
			what, rths_state_name(d.state) ?
			rths_state_name(d.state) : "busy");
		return RC_ERROR;
	}
	ret = rths_stats_reset(rc->ctl, a->name);
	if (!ret)
		ret = rths_run_start(rc->ctl, a->name);
	if (ret)
		return rc_fail(rc, ret, what);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	t0 = now_s();
	memset(&prev, 0, sizeof(prev));
	for (;;) {
		struct timespec ts = { 0, LAT_POLL_NS };

		nanosleep(&ts, NULL);
		ret = rths_stats_get(rc->ctl, a->name, &st);
		if (ret)
			break;
		if (!pid)
			pid = loop_pid(a->name);
		act = act_ns(&prev, &st);
		prev = st;
		elapsed = now_s() - t0;
		if (stop_requested || (a->loops && st.lat_samples >= a->loops) ||
		    (a->duration && elapsed >= a->duration))
			break;
	}
	elapsed = now_s() - t0;
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	/* a hold ramp first: a rig on the card must not stop dead */
	if (!ret)
		ret = rths_run_stop(rc->ctl, a->name);
	else
		rths_run_stop(rc->ctl, a->name);
	if (!ret)
		ret = rths_stats_get(rc->ctl, a->name, &st);
	if (ret)
		return rc_fail(rc, ret, what);

	col_init(&c[0], st.lat_samples, st.thread_lat_min, st.thread_lat_avg,
		 st.thread_lat_max, st.thread_lat_hist, a->hist);
	col_init(&c[1], st.lat_samples, st.irq_lat_min, st.irq_lat_avg,
		 st.irq_lat_max, st.irq_lat_hist, a->hist);
	if (rc->opt.json) {
		rc_json_print(rc, json_result(&d, &st, c, elapsed));
		return RC_OK;
	}
	if (a->hist)
		print_hist(c, a->hist);
	print_result(&d, &st, c, pid, act);
	return RC_OK;
}

int rc_cmd_latency(struct rc *rc, int argc, char **argv)
{
	struct lat_args a;
	struct rc_err e;

	if (argc >= 1 && !strcmp(argv[0], "help")) {
		rc_usage_latency(stdout);
		return RC_OK;
	}
	if (parse_args(argc, argv, &a, &e))
		return rc_usage_error(&e, "latency");
	if (!rc_ctl(rc))
		return RC_ERROR;
	return run(rc, &a);
}
