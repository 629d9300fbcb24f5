// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A researcher's own RTHS loop on librths: a one-storey structure (mass m,
 * damping c, column stiffness kn computed) whose second column is the
 * specimen, under a PEER .AT2 record, integrated by an explicit central
 * difference scheme.  Each step sends the displacement to the actuator
 * and reads the specimen's restoring force back.
 *
 *   own-loop -d DEVICE RECORD.AT2   an rths device (rthsctl dev add/set it
 *                                   first: 1 channel, rate 1024, step-ticks
 *                                   10); this program owns and runs it
 *   own-loop -o RECORD.AT2          offline: librths's modelled actuator
 *                                   and a linear specimen of stiffness KE
 *
 * On a device the loop's thread is made real-time first (rths_rt_enter():
 * memory locked, SCHED_FIFO below the kernel loop, on another CPU than
 * the kernel loop's); what it could not get, and its page faults and
 * context switches from the first to the last step, go to stderr.
 *
 * Prints one line per step: t u r (s, m, N).  Build: see Makefile.
 */
#include <stdio.h>
#include <string.h>
#include <rths/device.h>
#include <rths/hs.h>
#include <rths/rt.h>

#define RATE 1024		/* Hz, the device's rate */
#define STEP_TICKS 10		/* ticks per step: dt = 9.77 ms */
static const double m = 2000, c = 5477, kn = 1e6;	/* kg, Ns/m, N/m */
static const double ke = 5e5;	/* N/m, offline specimen */

struct rig {			/* the device, or the offline stand-in */
	struct rths_ctl *ctl;
	struct rths_dev *dev;
	const char *name;
	struct rths_hs_backend off;
	struct rths_error err;
};

/* Send step n's displacement, return the measured force in *r. */
static int exchange(struct rig *g, uint64_t n, double u, double *r)
{
	int e;

	if (g->dev) {
		struct rths_feedback fb;

		e = rths_post(g->dev, n, &u);
		if (!e)
			e = rths_wait_feedback(g->dev, &fb, 1000, 0);
		if (!e)
			*r = fb.force[0];
		return e;
	}
	struct rths_hs_feedback hf;

	e = rths_hs_backend_post(&g->off, n, &u, &g->err);
	if (!e)
		e = rths_hs_backend_wait(&g->off, n, &hf, &g->err);
	if (!e)
		*r = hf.force[0];
	return e;
}

static int open_rig(struct rig *g, const char *device)
{
	struct rths_hs_offline_params p;
	struct rths_hs_setup s;
	int e;

	if (device) {
		g->name = device;
		e = rths_ctl_open(&g->ctl);
		if (!e)
			e = rths_dev_open(g->ctl, device, RTHS_OPEN_OWNER, &g->dev);
		if (!e)
			e = rths_run_start(g->ctl, device);
		if (!e)
			rths_dev_sync(g->dev);
		return e;
	}
	rths_hs_offline_defaults(&p);
	p.rate = RATE;
	p.step_ticks = STEP_TICKS;
	p.setup = &s;
	p.k = &ke;
	e = rths_hs_setup_direct(&s, 1, &g->err);
	if (!e)
		e = rths_hs_offline_open(&g->off, &p, &g->err);
	if (!e)
		e = rths_hs_backend_start(&g->off, &g->err);
	return e;
}

/* Real-time for this thread, away from the kernel loop's CPU. */
static void go_realtime(struct rig *g, struct rths_rt_status *st)
{
	struct rths_rt_config cfg;
	struct rths_dev_info info;
	int loop_cpu = -1;

	if (rths_dev_get(g->ctl, g->name, &info, sizeof(info)) == 0)
		loop_cpu = (int)info.cpu;
	rths_rt_config_default(&cfg, sizeof(cfg), loop_cpu);
	if (rths_rt_enter(&cfg, sizeof(cfg), st, sizeof(*st), NULL) == 0 &&
	    st->advice[0])
		fprintf(stderr, "own-loop: warning: not fully real-time: %s\n",
			st->advice);
}

static void print_thread(const struct rths_rt_counters *a,
			 const struct rths_rt_counters *b)
{
	const char *pol = rths_rt_policy_name(b->sched_policy);

	fprintf(stderr, "own-loop: step thread %s %d on CPU %d: %llu minor, %llu major faults, %llu involuntary switches after step 1\n",
		pol ? pol : "?", b->sched_priority, b->cpu,
		(unsigned long long)(b->minor_faults - a->minor_faults),
		(unsigned long long)(b->major_faults - a->major_faults),
		(unsigned long long)(b->involuntary_switches -
				     a->involuntary_switches));
}

int main(int argc, char **argv)
{
	const double dt = (double)STEP_TICKS / RATE;
	struct rig g = { 0 };
	struct rths_hs_gm gm;
	struct rths_rt_status st;
	struct rths_rt_counters first, last;
	double u0 = 0, u1 = 0, u2, r;	/* u(n-1), u(n), u(n+1) */
	char buf[512];
	int e;

	bool offline = argc == 3 && !strcmp(argv[1], "-o");

	if (!offline && !(argc == 4 && !strcmp(argv[1], "-d"))) {
		fprintf(stderr, "usage: %s -o RECORD.AT2 | -d DEVICE RECORD.AT2\n",
			argv[0]);
		return 2;
	}
	if (rths_hs_gm_read_at2(&gm, argv[argc - 1], &g.err)) {
		fprintf(stderr, "own-loop: %s\n",
			rths_error_str(&g.err, buf, sizeof(buf)));
		return 1;
	}
	e = open_rig(&g, offline ? NULL : argv[2]);
	if (!e && g.dev)
		go_realtime(&g, &st);
	for (uint64_t n = 1; !e && (n - 1) * dt <= rths_hs_gm_duration(&gm); n++) {
		double t = (double)(n - 1) * dt;

		e = exchange(&g, n, u1, &r);
		if (e)
			break;
		printf("%.6f %.9e %.6e\n", t, u1, r);
		if (n == 1)
			rths_rt_counters(&first, sizeof(first));
		/* m u'' + c u' + kn u + r = -m ag, central differences. */
		u2 = (-m * rths_hs_gm_at(&gm, t) - kn * u1 - r +
		      2 * m / (dt * dt) * u1 -
		      (m / (dt * dt) - c / (2 * dt)) * u0) /
		     (m / (dt * dt) + c / (2 * dt));
		u0 = u1;
		u1 = u2;
	}
	if (!e && g.dev) {
		rths_rt_counters(&last, sizeof(last));
		print_thread(&first, &last);
	}
	if (e && g.dev)
		fprintf(stderr, "own-loop: %s: %s\n", strerror(-e),
			rths_ctl_error(g.ctl) ? rths_ctl_error(g.ctl) : "");
	else if (e)
		fprintf(stderr, "own-loop: %s\n",
			rths_error_str(&g.err, buf, sizeof(buf)));
	if (g.dev) {
		rths_run_hold(g.ctl, g.name);
		rths_run_stop(g.ctl, g.name);
		rths_dev_close(g.dev);
	} else if (g.off.ops) {
		rths_hs_backend_stop(&g.off, &g.err);
		rths_hs_backend_close(&g.off);
	}
	rths_ctl_close(g.ctl);
	rths_hs_gm_free(&gm);
	return e ? 1 : 0;
}
