// SPDX-License-Identifier: GPL-2.0
/*
 * rths-run: the live view (--live) and the offline pace (--pace), both
 * in the step thread's per-step callback.  Publishing a frame copies one
 * row of the history into the view's ring: no lock, no allocation, no
 * system call (tools/live/live.h).  The pace is an offline run's own
 * clock_nanosleep, so that a rehearsal runs as long as the record.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "../common/steprt.h"
#include "rths-run.h"

static double mono(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

double run_view_clock(void *ctx)
{
	const struct run_view *rv = ctx;

	return mono() - rv->slept;
}

void run_view_step(void *ctx, uint64_t step, uint64_t steps)
{
	struct run_view *rv = ctx;
	const struct rths_hs_history *h = rv->h;

	if (rv->live && step < h->rows) {
		struct live_frame f;

		live_frame_from_history(&f, h, step);
		live_publish(rv->live, &f);
	}
	if (rv->pace) {
		struct timespec due;
		double at, before = mono();

		if (step == 1)
			clock_gettime(CLOCK_MONOTONIC, &rv->t0);
		at = (double)(step - 1) * h->dt;
		due.tv_sec = rv->t0.tv_sec + (time_t)at;
		due.tv_nsec = rv->t0.tv_nsec +
			      (long)((at - (double)(time_t)at) * 1e9);
		if (due.tv_nsec >= 1000000000L) {
			due.tv_nsec -= 1000000000L;
			due.tv_sec++;
		}
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &due,
				       NULL) == EINTR)
			;
		rv->slept += mono() - before;
	}
	if (rv->chain)
		rv->chain(rv->chain_ctx, step, steps);
}

int run_view_start(struct run_view *rv, const struct rths_hs_experiment *x,
		   const struct run_view_options *o,
		   const struct rths_hs_history *h)
{
	struct live_config c = {
		.listen = o->listen,
		.tool = "rths-run",
		.name = x->name,
		.channels = (unsigned int)x->setup.n_act,
		.dt = x->integrator.dt,
		.steps = (uint64_t)(x->duration / x->integrator.dt + 0.5),
		.budget = x->integrator.dt,
		.token = o->token,
		.cert_file = o->cert,
		.key_file = o->key,
	};
	char err[512];
	int r;

	rv->h = h;
	rv->pace = o->pace;
	if (!o->listen)
		return 0;
	if (!x->has_specimen)
		c.channels = 0;
	r = live_start(&rv->live, &c, err, sizeof(err));
	if (r < 0) {
		fprintf(stderr, "rths-run: --live: %s\n", err);
		return r;
	}
	/* on stderr even with -q: the operator needs it to watch */
	fprintf(stderr, "rths-run: live view at %s\n", live_url(rv->live));
	return 0;
}

void run_view_place(struct run_view *rv, const struct step_thread *t,
		    const struct rths_hs_experiment *x, bool device)
{
	if (!rv->live)
		return;
	live_place(rv->live, t->entered ? t->st.cpu : -1,
		   device ? steprt_loop_cpu(x) : -1);
}

void run_view_finish(struct run_view *rv, int r,
		     const struct rths_hs_run_result *res)
{
	if (rv->live)
		live_finish(rv->live, live_run_state(r, res, false));
}

void run_view_stop(struct run_view *rv, double linger,
		   const volatile sig_atomic_t *stop)
{
	live_stop_after(rv->live, linger, stop);
	rv->live = NULL;
}

int run_view_token(const char *file, char *token, size_t len)
{
	char err[512];

	if (live_token_read(file, token, len, err, sizeof(err)) < 0) {
		fprintf(stderr, "rths-run: %s\n", err);
		return -1;
	}
	return 0;
}
