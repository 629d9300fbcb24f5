// SPDX-License-Identifier: GPL-2.0
/*
 * The loop of examples/c/own-loop.c for N steps, timed: the C side of
 * make bench-octave (tests/octave/bench_loop.m is the Octave side, the
 * same loop through rths_mex).
 *
 *   bench_loop -o N RECORD.AT2          offline, the modelled actuator
 *   bench_loop -d DEVICE N RECORD.AT2   an rths device (1 channel, set up
 *                                       and not owned)
 *
 * Prints one line: "C N steps: wall W us/step, compute C us/step (max M),
 * late L", where compute is from a step's feedback to the next command
 * posted (rths's own "compute" time: what must fit in a step on a
 * device) and late the device's late steps (0 offline).  The record
 * wraps around when N steps outlast it.
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

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	const double dt = (double)STEP_TICKS / RATE;
	bool offline = argc == 4 && !strcmp(argv[1], "-o");
	struct rths_ctl *ctl = NULL;
	struct rths_dev *dev = NULL;
	struct rths_hs_backend off = { 0 };
	struct rths_hs_offline_params p;
	struct rths_hs_setup s;
	struct rths_error err = { 0 };
	struct rths_hs_gm gm;
	struct rths_stats st = { 0 };
	double u0 = 0, u1 = 0, u2, r = 0, t0, tfb = 0, comp = 0, cmax = 0;
	const char *name = NULL;
	char buf[512];
	long steps;
	int e;

	if (!offline && !(argc == 5 && !strcmp(argv[1], "-d"))) {
		fprintf(stderr, "usage: %s -o N RECORD.AT2 | -d DEVICE N RECORD.AT2\n",
			argv[0]);
		return 2;
	}
	steps = atol(argv[argc - 2]);
	if (rths_hs_gm_read_at2(&gm, argv[argc - 1], &err)) {
		fprintf(stderr, "bench_loop: %s\n",
			rths_error_str(&err, buf, sizeof(buf)));
		return 1;
	}
	if (offline) {
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
		name = argv[2];
		e = rths_ctl_open(&ctl);
		if (!e)
			e = rths_dev_open(ctl, name, RTHS_OPEN_OWNER, &dev);
		if (!e)
			e = rths_run_start(ctl, name);
		if (!e)
			rths_dev_sync(dev);
	}
	t0 = now();
	for (long n = 1; !e && n <= steps; n++) {
		double t = fmod((double)(n - 1) * dt, rths_hs_gm_duration(&gm));

		if (dev) {
			struct rths_feedback fb;

			e = rths_post(dev, (uint64_t)n, &u1);
			if (n > 1) {
				double d = now() - tfb;

				comp += d;
				cmax = d > cmax ? d : cmax;
			}
			if (!e)
				e = rths_wait_feedback(dev, &fb, 1000, 0);
			r = fb.force[0];
		} else {
			struct rths_hs_feedback hf;

			e = rths_hs_backend_post(&off, (uint64_t)n, &u1, &err);
			if (n > 1) {
				double d = now() - tfb;

				comp += d;
				cmax = d > cmax ? d : cmax;
			}
			if (!e)
				e = rths_hs_backend_wait(&off, (uint64_t)n, &hf,
							 &err);
			r = hf.force[0];
		}
		tfb = now();
		u2 = (-m * rths_hs_gm_at(&gm, t) - kn * u1 - r +
		      2 * m / (dt * dt) * u1 -
		      (m / (dt * dt) - c / (2 * dt)) * u0) /
		     (m / (dt * dt) + c / (2 * dt));
		u0 = u1;
		u1 = u2;
	}
	t0 = now() - t0;
	if (e)
		fprintf(stderr, "bench_loop: %s\n", dev ? rths_strerror(e) :
			rths_error_str(&err, buf, sizeof(buf)));
	if (dev) {
		rths_stats_get(ctl, name, &st);
		rths_run_hold(ctl, name);
		rths_run_stop(ctl, name);
		rths_dev_close(dev);
		rths_ctl_close(ctl);
	} else {
		rths_hs_backend_stop(&off, &err);
		rths_hs_backend_close(&off);
	}
	rths_hs_gm_free(&gm);
	if (!e)
		printf("C %ld steps: wall %.2f us/step, compute %.2f us/step (max %.1f), late %llu\n",
		       steps, t0 / (double)steps * 1e6,
		       comp / (double)(steps - 1) * 1e6, cmax * 1e6,
		       (unsigned long long)st.late_steps);
	return e ? 1 : 0;
}
