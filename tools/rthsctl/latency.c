// SPDX-License-Identifier: GPL-2.0
/*
 * rthsctl latency: run a device on its hrtimer clock for a number of
 * loops or a time and print its latencies as cyclictest does (the T:
 * line, the -h histogram, JSON as --json writes it) or as rtla timerlat
 * hist does, so that the scripts that read those tools' output read
 * rths's too.  Beyond cyclictest: the timer-irq latency apart from the
 * thread's, and the missed ticks.
 *
 * The figures are the kernel's: its statistics and its 1 us histograms
 * (RTHS_A_DEV_LAT_HIST_US), which this command sets for the run and puts
 * back after.  With "cpus LIST" it makes one device per CPU (NAME-cN, a
 * copy of NAME's card and rate), runs them together, and reports each as
 * one of cyclictest's threads; "break US" has the kernel stop the trace
 * at the first thread latency above US (cyclictest -b).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "cmds.h"
#include "latfmt.h"

#define LAT_POLL_NS	100000000L	/* how often the counters are read */
#define LAT_CPUS_MAX	64

void rc_usage_latency(FILE *f)
{
	fputs("Usage: rthsctl latency NAME [loops N] [duration TIME]"
	      " [histogram US]\n"
	      "       [break US] [cpus LIST] [format cyclictest|rtla]\n"
	      "       (hrtimer clock; prints cyclictest's T: line, its -h\n"
	      "       histogram with HISTOGRAM, or its JSON with -j; TIME in\n"
	      "       s, ms, us, m, h or d; LIST as 0,2-3)\n", f);
}

struct lat_args {
	const char *name;
	uint64_t loops;		/* 0: until the duration or a signal */
	double duration;	/* s; 0: until the loops or a signal */
	uint32_t hist;		/* rows of the histogram, 0: none */
	uint32_t brk;		/* us, 0: no break */
	bool rtla;		/* format rtla */
	unsigned int ncpus;	/* 0: NAME alone, on its own CPU */
	uint32_t cpus[LAT_CPUS_MAX];
};

/* "0,2-3": ascending, no repeats. */
static int parse_cpus(const char *s, struct lat_args *a, struct rc_err *e)
{
	const char *p = s;

	a->ncpus = 0;
	while (*p) {
		char *end;
		unsigned long lo, hi;

		errno = 0;
		lo = strtoul(p, &end, 10);
		if (end == p || errno || *p == '-' || *p == '+')
			return rc_err_set(e, "cpus: \"%s\" is not a CPU list", s);
		hi = lo;
		if (*end == '-') {
			p = end + 1;
			hi = strtoul(p, &end, 10);
			if (end == p || errno || hi < lo || *p == '-' ||
			    *p == '+')
				return rc_err_set(e, "cpus: \"%s\" is not a CPU list",
						  s);
		}
		if (*end && *end != ',')
			return rc_err_set(e, "cpus: \"%s\" is not a CPU list", s);
		for (; lo <= hi; lo++) {
			if (a->ncpus == LAT_CPUS_MAX)
				return rc_err_set(e, "cpus: at most %d CPUs",
						  LAT_CPUS_MAX);
			if (a->ncpus && lo <= a->cpus[a->ncpus - 1])
				return rc_err_set(e, "cpus: \"%s\" is not ascending",
						  s);
			a->cpus[a->ncpus++] = (uint32_t)lo;
		}
		p = *end ? end + 1 : end;
	}
	if (!a->ncpus)
		return rc_err_set(e, "cpus: empty list");
	return 0;
}

/* @field's value: a number of microseconds from 1 to @max. */
static int parse_us(const char *field, const char *s, uint32_t max,
		    uint32_t *us, struct rc_err *e)
{
	if (rc_parse_u32(field, s, "us", us, e))
		return -EINVAL;
	if (!*us || *us > max)
		return rc_err_set(e, "%s: from 1 to %u us", field, max);
	return 0;
}

static int parse_args(int argc, char **argv, struct lat_args *a,
		      struct rc_err *e)
{
	static const char *const words[] = {
		"loops", "duration", "histogram", "break", "cpus", "format",
		NULL
	};
	static const char *const formats[] = { "cyclictest", "rtla", NULL };
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
		switch (k) {
		case 0:
			if (rc_parse_u64("loops", argv[i + 1], &a->loops, e))
				return -EINVAL;
			if (!a->loops)
				return rc_err_set(e, "loops: must be at least 1");
			break;
		case 1:
			if (rc_parse_quantity("duration", argv[i + 1], RC_TIME,
					      &a->duration, e))
				return -EINVAL;
			if (a->duration <= 0)
				return rc_err_set(e, "duration: must be positive");
			break;
		case 2:
			if (parse_us("histogram", argv[i + 1],
				     RTHS_LAT_HIST_US_MAX, &a->hist, e))
				return -EINVAL;
			break;
		case 3:
			if (parse_us("break", argv[i + 1],
				     RTHS_LAT_BREAK_US_MAX, &a->brk, e))
				return -EINVAL;
			break;
		case 4:
			if (parse_cpus(argv[i + 1], a, e))
				return -EINVAL;
			break;
		default:
			k = rc_keyword(argv[i + 1], formats, "format", e);
			if (k < 0)
				return k;
			a->rtla = k == 1;
			break;
		}
	}
	return 0;
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

/* One loop of the run: NAME itself, or one it made for a CPU. */
struct lat_dev {
	char name[RTHS_NAME_LEN];
	bool made;			/* by this command: deleted after */
	bool started;
	struct rths_dev_info d;
	struct rths_stats st, prev;
	struct rths_lat_hist h;
	uint64_t *buf;			/* irq then thread buckets */
	uint64_t act;
	int pid;
	struct lat_col thr, irq;
};

static const char *tracefs(void)
{
	static const char *const dirs[] = {
		"/sys/kernel/tracing", "/sys/kernel/debug/tracing",
	};
	unsigned int i;

	for (i = 0; i < 2; i++) {
		char p[64];

		snprintf(p, sizeof(p), "%s/trace_marker", dirs[i]);
		if (!access(p, W_OK))
			return dirs[i];
	}
	return NULL;
}

static void trace_write(const char *file, const char *s)
{
	const char *dir = tracefs();
	char p[128];
	ssize_t w;
	int fd;

	if (!dir)
		return;
	snprintf(p, sizeof(p), "%s/%s", dir, file);
	fd = open(p, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	/* the trace is a courtesy: the run goes on without it */
	w = write(fd, s, strlen(s));
	(void)w;
	close(fd);
}

static json_t *json_hist(const struct lat_col *c)
{
	json_t *h = json_object();
	uint32_t b;
	char key[24];

	/* every bucket with a sample, as cyclictest's --json */
	for (b = 0; b < c->buckets; b++) {
		if (!c->hist[b])
			continue;
		snprintf(key, sizeof(key), "%" PRIu32, b);
		json_object_set_new(h, key, json_integer((json_int_t)c->hist[b]));
	}
	return h;
}

static json_t *json_pct(const struct lat_col *c, unsigned int per100k)
{
	uint64_t v = lat_percentile(c, per100k);

	return v == UINT64_MAX ? json_null() : json_integer((json_int_t)v);
}

static json_t *json_col(const struct lat_col *c, uint64_t avg_ns)
{
	return json_pack("{s:o,s:I,s:I,s:I,s:I,s:f,s:I,s:I,s:o,s:o,s:o}",
			 "histogram", json_hist(c),
			 "cycles", (json_int_t)c->count,
			 "overflows", (json_int_t)c->overflow,
			 "min", (json_int_t)c->min_us,
			 "max", (json_int_t)c->max_us,
			 "avg", avg_ns / 1e3,
			 "cpu", (json_int_t)c->cpu, "node", (json_int_t)0,
			 "p50", json_pct(c, 50000), "p99", json_pct(c, 99000),
			 "p99_9", json_pct(c, 99900));
}

static json_t *json_rths(const struct lat_dev *v, double elapsed)
{
	json_t *r = json_pack("{s:s,s:I,s:I,s:I,s:I,s:f,s:I,s:I,s:o}",
			      "device", v->name,
			      "rate_hz", (json_int_t)v->d.rate_hz,
			      "periods", (json_int_t)v->st.periods,
			      "ticks", (json_int_t)v->st.ticks,
			      "missed", (json_int_t)v->st.missed,
			      "duration_s", elapsed,
			      "priority", (json_int_t)v->d.priority,
			      "cpu", (json_int_t)v->d.cpu,
			      "irq", json_col(&v->irq, v->st.irq_lat_avg));

	if (v->h.break_sample)
		json_object_set_new(r, "break", json_pack("{s:I,s:I}",
				    "cycle", (json_int_t)v->h.break_sample,
				    "value", (json_int_t)(v->h.break_ns / 1000)));
	return r;
}

/* The command line as the kernel has it (NULs between the words). */
static json_t *json_cmdline(void)
{
	char buf[4096], *p;
	ssize_t n = -1;
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
	}
	if (n <= 0)
		return json_string("rthsctl latency");
	buf[n] = 0;
	for (p = buf; p < buf + n - 1; p++)
		if (!*p)
			*p = ' ';
	return json_string(buf);
}

static json_t *json_time(time_t t)
{
	char s[64];
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(s, sizeof(s), "%a %b %d %H:%M:%S %Y UTC", &tm);
	return json_string(s);
}

static json_t *json_sysinfo(void)
{
	struct utsname u;
	int rt = !access("/sys/kernel/realtime", F_OK);

	if (uname(&u))
		return json_object();
	return json_pack("{s:s,s:s,s:s,s:s,s:s,s:i}", "sysname", u.sysname,
			 "nodename", u.nodename, "release", u.release,
			 "version", u.version, "machine", u.machine,
			 "realtime", rt);
}

/* rt-tests' --json layout (rt_write_json()); latencies in us as there. */
static json_t *json_result(const struct lat_dev *v, unsigned int n,
			   double elapsed, time_t t0, time_t t1)
{
	json_t *th = json_object(), *o;
	unsigned int i;
	char key[16];

	for (i = 0; i < n; i++) {
		json_t *c = json_col(&v[i].thr, v[i].st.thread_lat_avg);

		json_object_set_new(c, "rths", json_rths(&v[i], elapsed));
		snprintf(key, sizeof(key), "%u", i);
		json_object_set_new(th, key, c);
	}
	o = json_pack("{s:i,s:o,s:s,s:o,s:o,s:i,s:o,s:i,s:i,s:o,s:o}",
		      "file_version", 1, "cmdline", json_cmdline(),
		      "rt_test_version", "rths", "start_time", json_time(t0),
		      "end_time", json_time(t1), "return_code", 0,
		      "sysinfo", json_sysinfo(), "num_threads", (int)n,
		      "resolution_in_ns", 0, "thread", th,
		      "rths", json_rths(&v[0], elapsed));
	return o;
}

static void print_result(const struct lat_dev *v, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		const struct lat_dev *x = &v[i];

		/* cyclictest's print_stat() */
		printf("T:%2u (%5d) P:%2u I:%llu C:%7llu Min:%7llu Act:%8llu Avg:%8llu Max:%8llu\n",
		       i, x->pid, x->d.priority,
		       (unsigned long long)(1000000 / x->d.rate_hz),
		       (unsigned long long)x->thr.count,
		       (unsigned long long)x->thr.min_us,
		       (unsigned long long)(x->act / 1000),
		       (unsigned long long)x->thr.avg_us,
		       (unsigned long long)x->thr.max_us);
	}
	/* what cyclictest cannot see, as comments its readers skip */
	for (i = 0; i < n; i++) {
		const struct lat_dev *x = &v[i];
		const struct lat_col *c[2] = { &x->thr, &x->irq };
		unsigned int k, p;
		static const unsigned int pct[] = { 50000, 99000, 99900 };

		printf("# irq: C:%7llu Min:%7llu Avg:%8llu Max:%8llu\n",
		       (unsigned long long)x->irq.count,
		       (unsigned long long)x->irq.min_us,
		       (unsigned long long)x->irq.avg_us,
		       (unsigned long long)x->irq.max_us);
		printf("# missed: %llu of %llu periods\n",
		       (unsigned long long)x->st.missed,
		       (unsigned long long)x->st.periods);
		for (k = 0; k < 2; k++) {
			printf("# %s percentiles (us, cpu %u):",
			       k ? "irq" : "thread", x->d.cpu);
			for (p = 0; p < 3; p++) {
				uint64_t u = lat_percentile(c[k], pct[p]);

				if (u == UINT64_MAX)
					printf(" p%g >=%" PRIu32, pct[p] / 1000.0,
					       c[k]->buckets);
				else
					printf(" p%g %" PRIu64, pct[p] / 1000.0,
					       u);
			}
			printf("\n");
		}
	}
	for (i = 0; i < n; i++)
		if (v[i].h.break_sample) {
			/* cyclictest's words for -b */
			printf("# Break thread: %d\n", v[i].pid);
			printf("# Break value: %llu\n",
			       (unsigned long long)(v[i].h.break_ns / 1000));
		}
}

static void col_fill(struct lat_col *c, uint64_t count, uint64_t min,
		     uint64_t avg, uint64_t max, const uint64_t *hist,
		     uint32_t buckets, uint64_t over, uint32_t cpu)
{
	c->count = count;
	c->min_us = min / 1000;
	c->avg_us = avg / 1000;
	c->max_us = max / 1000;
	c->hist = hist;
	c->buckets = buckets;
	c->overflow = over;
	c->cpu = cpu;
}

/* The devices: NAME, or one per CPU made from it, set up for the run. */
static int setup(struct rc *rc, const struct lat_args *a, struct lat_dev *v,
		 unsigned int n, uint32_t buckets, const char *what)
{
	unsigned int i;
	int ret;

	for (i = 0; i < n; i++) {
		struct rths_dev_config cfg = { 0 };

		v[i].buf = calloc(2 * (size_t)buckets, sizeof(uint64_t));
		if (!v[i].buf) {
			fprintf(stderr, "rthsctl: %s: out of memory\n", what);
			return RC_ERROR;
		}
		v[i].h.cap = buckets;
		v[i].h.irq = v[i].buf;
		v[i].h.thread = v[i].buf + buckets;
		cfg.set = RTHS_CFG_LAT_HIST_US | RTHS_CFG_LAT_BREAK_US;
		cfg.lat_hist_us = buckets;
		cfg.lat_break_us = a->brk;
		if (a->ncpus) {
			snprintf(v[i].name, sizeof(v[i].name), "%.9s-c%u",
				 a->name, a->cpus[i]);
			ret = rths_dev_new(rc->ctl, v[i].name, v[0].d.card,
					   v[0].d.channels, NULL);
			if (ret)
				return rc_fail(rc, ret, what);
			v[i].made = true;
			cfg.set |= RTHS_CFG_CLOCK | RTHS_CFG_RATE |
				   RTHS_CFG_PRIORITY | RTHS_CFG_CPU;
			cfg.clock = RTHS_CLOCK_HRTIMER;
			cfg.rate_hz = v[0].d.rate_hz;
			cfg.priority = v[0].d.priority;
			cfg.cpu = a->cpus[i];
		} else {
			snprintf(v[i].name, sizeof(v[i].name), "%s", a->name);
		}
		ret = rths_dev_set(rc->ctl, v[i].name, &cfg, sizeof(cfg), NULL);
		if (!ret)
			ret = rths_dev_get(rc->ctl, v[i].name, &v[i].d,
					   sizeof(v[i].d));
		if (!ret)
			ret = rths_stats_reset(rc->ctl, v[i].name);
		if (ret)
			return rc_fail(rc, ret, what);
	}
	return RC_OK;
}

/* Delete what setup() made; NAME gets its histogram settings back. */
static void teardown(struct rc *rc, struct lat_dev *v, unsigned int n,
		     const struct rths_dev_info *orig)
{
	struct rths_dev_config cfg = { 0 };
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (v[i].started)
			rths_run_stop(rc->ctl, v[i].name);
		if (v[i].made)
			rths_dev_del(rc->ctl, v[i].name);
		free(v[i].buf);
	}
	cfg.set = RTHS_CFG_LAT_HIST_US | RTHS_CFG_LAT_BREAK_US;
	cfg.lat_hist_us = orig->lat_hist_us;
	cfg.lat_break_us = orig->lat_break_us;
	rths_dev_set(rc->ctl, orig->name, &cfg, sizeof(cfg), NULL);
}

static int measure(struct rc *rc, const struct lat_args *a, struct lat_dev *v,
		   unsigned int n, const char *what, double *elapsed)
{
	double t0;
	unsigned int i;
	int ret = 0;
	char mark[96];

	if (a->brk) {
		trace_write("events/rths/enable", "1");
		trace_write("tracing_on", "1");
		snprintf(mark, sizeof(mark),
			 "rthsctl latency: start, break at %u us\n", a->brk);
		trace_write("trace_marker", mark);
	}
	for (i = 0; i < n && !ret; i++) {
		ret = rths_run_start(rc->ctl, v[i].name);
		v[i].started = !ret;
	}
	if (ret)
		return rc_fail(rc, ret, what);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	t0 = now_s();
	for (;;) {
		struct timespec ts = { 0, LAT_POLL_NS };
		uint64_t least = UINT64_MAX;
		bool broke = false;

		nanosleep(&ts, NULL);
		for (i = 0; i < n && !ret; i++) {
			struct lat_dev *x = &v[i];

			ret = rths_stats_get_hist(rc->ctl, x->name, &x->st,
						  &x->h);
			if (ret)
				break;
			if (!x->pid)
				x->pid = loop_pid(x->name);
			x->act = act_ns(&x->prev, &x->st);
			x->prev = x->st;
			if (x->st.lat_samples < least)
				least = x->st.lat_samples;
			broke |= x->h.break_sample != 0;
		}
		*elapsed = now_s() - t0;
		if (ret || stop_requested || broke ||
		    (a->loops && least >= a->loops) ||
		    (a->duration && *elapsed >= a->duration))
			break;
	}
	*elapsed = now_s() - t0;
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	/* a hold ramp first: a rig on the card must not stop dead */
	for (i = 0; i < n; i++) {
		int r = rths_run_stop(rc->ctl, v[i].name);

		v[i].started = false;
		if (!ret)
			ret = r;
	}
	for (i = 0; i < n && !ret; i++)
		ret = rths_stats_get_hist(rc->ctl, v[i].name, &v[i].st,
					  &v[i].h);
	return ret ? rc_fail(rc, ret, what) : RC_OK;
}

static int run(struct rc *rc, const struct lat_args *a)
{
	struct rths_dev_info orig;
	struct lat_dev *v;
	unsigned int n = a->ncpus ? a->ncpus : 1, i;
	/* the 1 us buckets: the rows asked for, else all the kernel keeps
	 * (the percentiles need them)
	 */
	uint32_t buckets = a->hist ? a->hist : RTHS_LAT_HIST_US_MAX;
	double elapsed = 0;
	time_t t0, t1;
	int ret;
	char what[64];

	snprintf(what, sizeof(what), "latency %s", a->name);
	memset(&orig, 0, sizeof(orig));
	ret = rths_dev_get(rc->ctl, a->name, &orig, sizeof(orig));
	if (ret)
		return rc_fail(rc, ret, what);
	if (orig.clock != RTHS_CLOCK_HRTIMER) {
		fprintf(stderr, "rthsctl: %s: needs the hrtimer clock (dev set %s clock hrtimer)\n",
			what, a->name);
		return RC_ERROR;
	}
	if (orig.state != RTHS_STATE_STOPPED) {
		fprintf(stderr, "rthsctl: %s: the device is %s, not stopped\n",
			what, rths_state_name(orig.state) ?
			rths_state_name(orig.state) : "busy");
		return RC_ERROR;
	}
	v = calloc(n, sizeof(*v));
	if (!v) {
		fprintf(stderr, "rthsctl: %s: out of memory\n", what);
		return RC_ERROR;
	}
	v[0].d = orig;
	t0 = time(NULL);
	ret = setup(rc, a, v, n, buckets, what);
	if (ret == RC_OK)
		ret = measure(rc, a, v, n, what, &elapsed);
	t1 = time(NULL);
	if (ret == RC_OK) {
		for (i = 0; i < n; i++) {
			struct lat_dev *x = &v[i];

			col_fill(&x->thr, x->st.lat_samples,
				 x->st.thread_lat_min, x->st.thread_lat_avg,
				 x->st.thread_lat_max, x->h.thread, buckets,
				 x->h.thread_overflow, x->d.cpu);
			col_fill(&x->irq, x->st.lat_samples, x->st.irq_lat_min,
				 x->st.irq_lat_avg, x->st.irq_lat_max, x->h.irq,
				 buckets, x->h.irq_overflow, x->d.cpu);
		}
		if (rc->opt.json) {
			rc_json_print(rc, json_result(v, n, elapsed, t0, t1));
		} else if (a->rtla) {
			struct lat_col irq[LAT_CPUS_MAX], thr[LAT_CPUS_MAX];

			for (i = 0; i < n; i++) {
				irq[i] = v[i].irq;
				thr[i] = v[i].thr;
			}
			lat_print_rtla(stdout, irq, thr, n, buckets,
				       (uint64_t)elapsed);
		} else {
			/* cyclictest's columns: the threads, then the irqs */
			struct lat_col c[2 * LAT_CPUS_MAX];

			for (i = 0; i < n; i++) {
				c[i] = v[i].thr;
				c[n + i] = v[i].irq;
			}
			if (a->hist)
				lat_print_cyclictest(stdout, c, 2 * n, a->hist);
			print_result(v, n);
		}
	}
	teardown(rc, v, n, &orig);
	free(v);
	return ret;
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
		return RC_UNREACHABLE;
	return run(rc, &a);
}
