// SPDX-License-Identifier: GPL-2.0
/*
 * rths_bench: what one step's exchange with the kernel costs through the
 * mmap rings, against one netlink request per step, measured in the same
 * run.  The loop's latency is bench/latency/ ("make bench-latency").
 *
 * Usage: rths_bench [-n STEPS] [-l spin|poll]
 * Run it as root with rths.ko and rths_sim.ko loaded.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <rths/device.h>

#include "echo/rths_echo.h"

#define BATCH 64	/* the command ring's default size */

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void die(struct rths_ctl *ctl, const char *what, int err)
{
	fprintf(stderr, "rths_bench: %s: %s%s%s\n", what, strerror(-err),
		ctl ? ": " : "", ctl ? rths_ctl_error(ctl) : "");
	exit(1);
}

/* A sim device on the manual clock, one tick per step. */
static void make_dev(struct rths_ctl *ctl, const char *name)
{
	struct rths_dev_config cfg = {
		.set = RTHS_CFG_CLOCK | RTHS_CFG_STEP_TICKS |
		       RTHS_CFG_TRACE_ENTRIES,
		.clock = RTHS_CLOCK_MANUAL,
		.step_ticks = 1,
		.trace_entries = 0,
	};
	int err;

	rths_dev_del(ctl, name);
	err = rths_dev_new(ctl, name, "sim", 1, NULL);
	if (err)
		die(ctl, "dev new", err);
	err = rths_dev_set(ctl, name, &cfg, sizeof(cfg), NULL);
	if (err)
		die(ctl, "dev set", err);
}

/* Open @name as its owner and start it; its rings are in sync. */
static struct rths_dev *open_started(struct rths_ctl *ctl, const char *name)
{
	struct rths_dev *dev;
	int err;

	err = rths_dev_open(ctl, name, RTHS_OPEN_OWNER, &dev);
	if (err)
		die(ctl, "open", err);
	err = rths_run_start(ctl, name);
	if (err)
		die(ctl, "start", err);
	rths_dev_sync(dev);
	return dev;
}

/*
 * Per step through the rings: post the command, read the feedback.  The
 * kernel's own work (the ticks) is not timed; commands go in batches so
 * that the clock is read once per batch, not per step.
 */
static double bench_rings(struct rths_ctl *ctl, uint64_t steps)
{
	struct rths_feedback fb;
	struct rths_dev *dev;
	uint64_t n = 0;
	double t = 0, t0;
	int64_t v;
	int err, i;

	make_dev(ctl, "bench0");
	dev = open_started(ctl, "bench0");
	while (n < steps) {
		t0 = now_ns();
		for (i = 0; i < BATCH; i++) {
			v = (int64_t)((n + i) % 1000) * 1000;
			err = rths_post_raw(dev, n + i + 1, &v);
			if (err)
				die(NULL, "post", err);
		}
		t += now_ns() - t0;
		err = rths_run_tick(ctl, "bench0", BATCH);
		if (err)
			die(ctl, "tick", err);
		t0 = now_ns();
		for (i = 0; i < BATCH; i++) {
			err = rths_read_feedback(dev, &fb);
			if (err || fb.step != n + i + 1)
				die(NULL, "feedback", err ? err : -EPROTO);
		}
		t += now_ns() - t0;
		n += BATCH;
	}
	rths_run_stop(ctl, "bench0");
	rths_dev_close(dev);
	rths_dev_del(ctl, "bench0");
	return t / n;
}

/* Per step with one netlink request: @tick, a RUN_TICK of one tick (what
 * a netlink-driven loop would send); otherwise a STATS_GET, a request
 * whose reply is as large as a few channels' feedback. */
static double bench_netlink(struct rths_ctl *ctl, uint64_t steps, int tick)
{
	struct rths_stats st;
	double t0;
	uint64_t n;
	int err;

	make_dev(ctl, "bench1");
	err = rths_run_start(ctl, "bench1");
	if (err)
		die(ctl, "start", err);
	t0 = now_ns();
	for (n = 0; n < steps; n++) {
		err = tick ? rths_run_tick(ctl, "bench1", 1) :
			     rths_stats_get(ctl, "bench1", &st);
		if (err)
			die(ctl, tick ? "tick" : "stats", err);
	}
	t0 = (now_ns() - t0) / steps;
	rths_run_stop(ctl, "bench1");
	rths_dev_del(ctl, "bench1");
	return t0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* "NAME p50 p99 max" of @v (sorted in place), in us. */
static void print_quantiles(const char *name, double *v, uint64_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	printf("%-44s %9.1f %9.1f %9.1f\n", name, v[n / 2] / 1e3,
	       v[(uint64_t)(0.99 * (double)(n - 1))] / 1e3, v[n - 1] / 1e3);
}

/* One exchange a step: post @n's value, wait for its feedback and give
 * the tick's grid instant; spinning or in poll(). */
struct exchange {
	const char *what;
	int (*post)(void *priv, uint64_t n, double value);
	int (*wait)(void *priv, uint64_t n, bool spin, uint64_t *time_ns);
	void *priv;
};

/*
 * The smallest step loop, one exchange a step, timed on CLOCK_MONOTONIC
 * (the clock of the kernel's hrtimer and of the grid instants): from the
 * post to the feedback seen, whose floor is one tick (the command waits
 * for the next tick), and from the tick's grid instant to the feedback
 * seen: the timer's and the thread's latency, the tick's work and the
 * wake-up.  bench/kernel/guest-syscalls.sh counts its system calls
 * under strace.
 */
static void time_loop(const struct exchange *x, uint64_t steps, bool spin,
		      uint32_t rate)
{
	double *e2e = calloc(steps, sizeof(*e2e));
	double *grid = calloc(steps, sizeof(*grid));
	uint64_t n, time_ns;
	double t0, t1;
	int err;

	if (!e2e || !grid)
		die(NULL, "memory", -ENOMEM);
	for (n = 1; n <= steps; n++) {
		t0 = now_ns();
		/* A slow ramp of a few mm. */
		err = x->post(x->priv, n, 1e-3 * (double)(n % 2000) / 2000.0);
		if (err)
			die(NULL, "post", err);
		err = x->wait(x->priv, n, spin, &time_ns);
		t1 = now_ns();
		if (err)
			die(NULL, "wait", err);
		e2e[n - 1] = t1 - t0;
		grid[n - 1] = t1 - (double)time_ns;
	}
	printf("%s, %s, %llu steps of one tick (us)   p50       p99       max\n",
	       x->what, spin ? "spinning" : "in poll()",
	       (unsigned long long)steps);
	printf("%-44s %9.1f\n", "  floor: one tick", 1e6 / rate);
	print_quantiles("  post to feedback seen", e2e, steps);
	print_quantiles("  tick's grid instant to feedback seen", grid, steps);
	free(e2e);
	free(grid);
}

static int rths_x_post(void *priv, uint64_t n, double value)
{
	return rths_post(priv, n, &value);
}

static int rths_x_wait(void *priv, uint64_t n, bool spin, uint64_t *time_ns)
{
	struct rths_feedback fb;
	int err = rths_wait_feedback(priv, &fb, 1000, spin ? RTHS_WAIT_SPIN : 0);

	if (err)
		return err;
	*time_ns = fb.time_ns;
	return fb.step == n ? 0 : -EPROTO;
}

/* The rths exchange: a sim card on the hrtimer clock, one tick a step. */
static void rths_loop(struct rths_ctl *ctl, uint64_t steps, bool spin)
{
	struct rths_dev_config cfg = {
		.set = RTHS_CFG_CLOCK | RTHS_CFG_STEP_TICKS,
		.clock = RTHS_CLOCK_HRTIMER,
		.step_ticks = 1,
	};
	struct exchange x = { "rths", rths_x_post, rths_x_wait, NULL };
	struct rths_dev_info info;
	struct rths_dev *dev;
	int err;

	rths_dev_del(ctl, "loop0");
	err = rths_dev_new(ctl, "loop0", "sim", 1, NULL);
	if (!err)
		err = rths_dev_set(ctl, "loop0", &cfg, sizeof(cfg), NULL);
	if (!err)
		err = rths_dev_get(ctl, "loop0", &info, sizeof(info));
	if (err)
		die(ctl, "dev new", err);
	dev = open_started(ctl, "loop0");
	x.priv = dev;
	time_loop(&x, steps, spin, info.rate_hz);
	rths_run_stop(ctl, "loop0");
	rths_dev_close(dev);
	rths_dev_del(ctl, "loop0");
}

struct echo {
	struct rths_echo_page *pg;
	int fd;
};

static int echo_x_post(void *priv, uint64_t n, double value)
{
	struct echo *e = priv;

	e->pg->cmd_val = (int64_t)(value * 1e9);
	__atomic_store_n(&e->pg->cmd_seq, n, __ATOMIC_RELEASE);
	return 0;
}

static int echo_x_wait(void *priv, uint64_t n, bool spin, uint64_t *time_ns)
{
	struct echo *e = priv;
	struct pollfd pfd = { .fd = e->fd, .events = POLLIN };

	while (__atomic_load_n(&e->pg->fb_seq, __ATOMIC_ACQUIRE) != n) {
		if (spin)
			continue;
		if (poll(&pfd, 1, 1000) <= 0)
			return -ETIMEDOUT;
	}
	e->pg->seen = n;
	*time_ns = e->pg->fb_time_ns;
	return 0;
}

/* The echo module's tick rate, from its parameter. */
static uint32_t echo_rate(void)
{
	FILE *f = fopen("/sys/module/rths_echo/parameters/rate", "r");
	unsigned int rate = 0;

	if (f) {
		if (fscanf(f, "%u", &rate) != 1)
			rate = 0;
		fclose(f);
	}
	if (!rate)
		die(NULL, "rths_echo's rate (is rths_echo.ko loaded?)", -ENOENT);
	return rate;
}

/* The floor: bench/kernel/echo's bare page and thread (rths_echo.ko). */
static void echo_loop(uint64_t steps, bool spin, uint32_t rate)
{
	struct exchange x = { "echo", echo_x_post, echo_x_wait, NULL };
	struct echo e;

	e.fd = open("/dev/rths_echo", O_RDWR);
	if (e.fd < 0)
		die(NULL, "/dev/rths_echo (is rths_echo.ko loaded?)", -errno);
	e.pg = mmap(NULL, sizeof(*e.pg), PROT_READ | PROT_WRITE, MAP_SHARED,
		    e.fd, 0);
	if (e.pg == MAP_FAILED)
		die(NULL, "mmap /dev/rths_echo", -errno);
	x.priv = &e;
	time_loop(&x, steps, spin, rate);
	munmap(e.pg, sizeof(*e.pg));
	close(e.fd);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: rths_bench [-n STEPS] [-l spin|poll] [-e spin|poll]\n"
		"  -n STEPS  steps per exchange measurement (default 20480)\n"
		"  -l MODE   only run a post/wait step loop of STEPS steps on\n"
		"            the hrtimer clock, waiting by MODE, and time it\n"
		"  -e MODE   the same loop on the bare echo (rths_echo.ko)\n"
		"Prints the per-step exchange cost through the rings and by\n"
		"netlink, and their ratios.\n");
}

int main(int argc, char **argv)
{
	uint64_t steps = 20480;
	struct rths_ctl *ctl;
	double ring, nl_tick, nl_get;
	const char *loop = NULL;
	bool echo = false;
	int c, err;

	while ((c = getopt(argc, argv, "n:l:e:h")) != -1) {
		switch (c) {
		case 'n':
			steps = strtoull(optarg, NULL, 0);
			break;
		case 'e':
			echo = true;
			/* fall through */
		case 'l':
			loop = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (steps < BATCH) {
		fprintf(stderr, "rths_bench: -n must be at least %d\n", BATCH);
		return 2;
	}
	if (loop && strcmp(loop, "spin") && strcmp(loop, "poll")) {
		fprintf(stderr, "rths_bench: -%c takes spin or poll, not '%s'\n",
			echo ? 'e' : 'l', loop);
		return 2;
	}
	if (echo) {
		echo_loop(steps, !strcmp(loop, "spin"), echo_rate());
		return 0;
	}
	err = rths_ctl_open(&ctl);
	if (err)
		die(NULL, "netlink (is rths.ko loaded?)", err);
	if (loop) {
		rths_loop(ctl, steps, !strcmp(loop, "spin"));
		rths_ctl_close(ctl);
		return 0;
	}
	ring = bench_rings(ctl, steps);
	nl_tick = bench_netlink(ctl, steps, 1);
	nl_get = bench_netlink(ctl, steps, 0);
	printf("exchange steps=%llu\n", (unsigned long long)steps);
	printf("exchange rings (post + read)       %10.0f ns/step  1.0\n",
	       ring);
	printf("exchange netlink RUN_TICK request  %10.0f ns/step  %.1f\n",
	       nl_tick, nl_tick / ring);
	printf("exchange netlink STATS_GET request %10.0f ns/step  %.1f\n",
	       nl_get, nl_get / ring);
	rths_ctl_close(ctl);
	return 0;
}
