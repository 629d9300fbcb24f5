// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The C half of bench-python and bench-octave: examples/c/own-loop.c's
 * loop (central differences, El Centro repeated) for N steps, timed,
 * printing one line that the benchmark compares with the same loop in
 * Python (tests/python/bench_loop.py) or through rths_mex
 * (tests/octave/bench_loop.m).
 *
 * bench-python's line (the default build):
 *
 *   bench-loop c MODE steps N mean_us M p50_us P p99_us Q max_us X
 *
 * Offline (-o) a step's cost is its whole post + wait + compute (nothing
 * blocks: the modelled actuator runs inside wait).  On a device (-d) it
 * is the reaction time: from the tick that took the step's sample
 * (feedback time_ns, CLOCK_MONOTONIC) to the return of the next post.
 *
 * bench-octave's line (built with -DBENCH_LOOP_OCTAVE):
 *
 *   C N steps: wall W us/step, compute C us/step (max M), late L
 *
 * where compute is from a step's feedback to the return of the next
 * post (rths's own "compute" time: what must fit in a step on a device)
 * and late the device's late steps (0 offline).  The record wraps
 * around when N steps outlast it.
 *
 * usage: bench_loop -o N RECORD.AT2 | -d DEVICE N RECORD.AT2
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <rths/device.h>
#include <rths/hs.h>

#define RATE 1024
#define STEP_TICKS 10
static const double m = 2000, c = 5477, kn = 1e6, ke = 5e5;

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	const double dt = (double)STEP_TICKS / RATE;
	struct rths_error err = { 0 };
	struct rths_hs_backend off = { 0 };
	struct rths_ctl *ctl = NULL;
	struct rths_dev *dev = NULL;
	struct rths_stats st = { 0 };
	struct rths_hs_gm gm;
	double u0 = 0, u1 = 0, u2, r, sum = 0, sample = 0, *cost;
	double wall, tfb = 0, comp = 0, cmax = 0;
	bool offline = argc == 4 && !strcmp(argv[1], "-o");
	const char *name = NULL;
	char buf[512];
	long steps;
	int e;

	if (!offline && !(argc == 5 && !strcmp(argv[1], "-d"))) {
		fprintf(stderr, "usage: %s -o N RECORD.AT2 | -d DEVICE N RECORD.AT2\n",
			argv[0]);
		return 2;
	}
	if (!offline)
		name = argv[2];
	steps = atol(argv[argc - 2]);
	cost = calloc(steps > 0 ? (size_t)steps : 1, sizeof(*cost));
	if (steps <= 0 || !cost) {
		fprintf(stderr, "bench_loop: bad steps\n");
		return 1;
	}
	if (rths_hs_gm_read_at2(&gm, argv[argc - 1], &err)) {
		fprintf(stderr, "bench_loop: %s\n",
			rths_error_str(&err, buf, sizeof(buf)));
		return 1;
	}
	if (offline) {
		struct rths_hs_offline_params p;
		struct rths_hs_setup s;

		rths_hs_offline_defaults(&p);
		p.rate = RATE;
		p.step_ticks = STEP_TICKS;
		p.setup = &s;
		p.k = &ke;
		e = rths_hs_setup_direct(&s, 1, &err);
		if (!e)
			e = rths_hs_offline_open(&off, &p, &err);
		if (!e)
			e = rths_hs_backend_start(&off, &err);
	} else {
		e = rths_ctl_open(&ctl);
		if (!e)
			e = rths_dev_open(ctl, name, RTHS_OPEN_OWNER, &dev);
		if (!e)
			e = rths_run_start(ctl, name);
		if (!e)
			rths_dev_sync(dev);
	}
	wall = now_ns();
	for (long n = 1; !e && n <= steps; n++) {
		double t = fmod((double)(n - 1) * dt, rths_hs_gm_duration(&gm));
		double t0 = now_ns(), tp;

		if (dev) {
			struct rths_feedback fb;

			e = rths_post(dev, (uint64_t)n, &u1);
			tp = now_ns();
			/* step n-1's reaction: its sample to this post */
			if (!e && n > 1)
				cost[n - 2] = tp - sample;
			if (!e)
				e = rths_wait_feedback(dev, &fb, 2000, 0);
			r = fb.force[0];
			sample = (double)fb.time_ns;
		} else {
			struct rths_hs_feedback hf;

			e = rths_hs_backend_post(&off, (uint64_t)n, &u1, &err);
			tp = now_ns();
			if (!e)
				e = rths_hs_backend_wait(&off, (uint64_t)n, &hf,
							 &err);
			r = hf.force[0];
		}
		/* compute: the last feedback to this post's return */
		if (n > 1) {
			comp += tp - tfb;
			cmax = tp - tfb > cmax ? tp - tfb : cmax;
		}
		tfb = now_ns();
		if (e)
			break;
		u2 = (-m * rths_hs_gm_at(&gm, t) - kn * u1 - r +
		      2 * m / (dt * dt) * u1 -
		      (m / (dt * dt) - c / (2 * dt)) * u0) /
		     (m / (dt * dt) + c / (2 * dt));
		u0 = u1;
		u1 = u2;
		if (!dev)
			cost[n - 1] = now_ns() - t0;	/* the whole step */
	}
	wall = now_ns() - wall;
	if (dev) {
		rths_stats_get(ctl, name, &st);
		rths_run_hold(ctl, name);
		rths_run_stop(ctl, name);
		rths_dev_close(dev);
		rths_ctl_close(ctl);
	} else if (off.ops) {
		rths_hs_backend_stop(&off, &err);
		rths_hs_backend_close(&off);
	}
	rths_hs_gm_free(&gm);
	if (e) {
		fprintf(stderr, "bench_loop: error %d: %s\n", e,
			offline ? rths_error_str(&err, buf, sizeof(buf)) :
			rths_strerror(e));
		free(cost);
		return 1;
	}
#ifdef BENCH_LOOP_OCTAVE
	(void)sum, (void)cmp;
	printf("C %ld steps: wall %.2f us/step, compute %.2f us/step (max %.1f), late %llu\n",
	       steps, wall / (double)steps / 1e3,
	       comp / (double)(steps - 1) / 1e3, cmax / 1e3,
	       (unsigned long long)st.late_steps);
#else
	(void)comp, (void)cmax;
	if (dev)
		steps--;	/* the last step's reaction has no post */
	for (long i = 0; i < steps; i++)
		sum += cost[i];
	qsort(cost, (size_t)steps, sizeof(*cost), cmp);
	printf("bench-loop c %s steps %ld mean_us %.3f p50_us %.3f p99_us %.3f max_us %.3f\n",
	       dev ? "device" : "offline", steps, sum / (double)steps / 1e3,
	       cost[steps / 2] / 1e3, cost[(long)(0.99 * (double)(steps - 1))] / 1e3,
	       cost[steps - 1] / 1e3);
#endif
	free(cost);
	return 0;
}
