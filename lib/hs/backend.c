// SPDX-License-Identifier: LGPL-2.1-or-later
/* Backend calls, checked once here so that every backend is simpler. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rths/hs_backend.h>

#include "common/alloc.h"
#include "hs/backend_impl.h"

int rths_hs_backend_start(struct rths_hs_backend *b,
			  struct rths_error *err)
{
	return b->ops->start(b->priv, err);
}

int rths_hs_backend_post(struct rths_hs_backend *b, uint64_t step,
			 const double *target, struct rths_error *err)
{
	if (step == 0)
		return rths_error_set(err, EINVAL, NULL, 0, NULL,
				      "steps are numbered from 1");
	return b->ops->post(b->priv, step, target, err);
}

static int check_step(const struct rths_hs_backend *b, uint64_t got,
		      uint64_t step, struct rths_error *err)
{
	if (got == step)
		return 0;
	return rths_error_set(err, RTHS_E_BACKEND, NULL, 0, NULL,
			      "%s backend: feedback for step %llu while waiting for step %llu",
			      b->ops->name, (unsigned long long)got,
			      (unsigned long long)step);
}

int rths_hs_backend_wait(struct rths_hs_backend *b, uint64_t step,
			 struct rths_hs_feedback *fb,
			 struct rths_error *err)
{
	int r;

	if (!b->ops->wait)
		return rths_error_set(err, RTHS_E_UNSUPPORTED, NULL, 0, NULL,
				      "%s backend: %u channels, more than a feedback record holds (%d): wait with rths_hs_backend_wait_wide()",
				      b->ops->name, b->channels,
				      RTHS_HS_MAX_CHANNELS);
	r = b->ops->wait(b->priv, step, fb, err);
	return r ? r : check_step(b, fb->step, step, err);
}

int rths_hs_backend_wait_wide(struct rths_hs_backend *b, uint64_t step,
			      struct rths_hs_feedback_wide *fb,
			      struct rths_error *err)
{
	const struct rths_hs_backend_wide_ops *w;
	struct rths_hs_feedback one;
	int r;

	if (fb->channels < b->channels)
		return rths_error_set(err, EINVAL, NULL, 0, "channels",
				      "%s backend: %u channels, the feedback's arrays hold %u",
				      b->ops->name, b->channels, fb->channels);
	if (!b->ops->wait) {
		w = (const struct rths_hs_backend_wide_ops *)b->ops;
		r = w->wait_wide(b->priv, step, fb, err);
		return r ? r : check_step(b, fb->step, step, err);
	}
	r = rths_hs_backend_wait(b, step, &one, err);
	if (r)
		return r;
	fb->step = one.step;
	fb->tick = one.tick;
	fb->time_ns = one.time_ns;
	fb->flags = one.flags;
	fb->late_ticks = one.late_ticks;
	memcpy(fb->command, one.command, b->channels * sizeof(double));
	memcpy(fb->disp, one.disp, b->channels * sizeof(double));
	memcpy(fb->force, one.force, b->channels * sizeof(double));
	return 0;
}

int rths_hs_backend_hold(struct rths_hs_backend *b,
			 struct rths_error *err)
{
	return b->ops->hold(b->priv, err);
}

int rths_hs_backend_stop(struct rths_hs_backend *b,
			 struct rths_error *err)
{
	return b->ops->stop(b->priv, err);
}

int rths_hs_backend_stats(struct rths_hs_backend *b,
			  struct rths_hs_backend_stats *st)
{
	memset(st, 0, sizeof(*st));
	if (!b->ops->stats)
		return -RTHS_E_UNSUPPORTED;
	return b->ops->stats(b->priv, st);
}

void rths_hs_backend_close(struct rths_hs_backend *b)
{
	if (!b)
		return;
	if (b->ops && b->ops->close)
		b->ops->close(b->priv);
	memset(b, 0, sizeof(*b));
}

int rths_hs_backend_set_plant(struct rths_hs_backend *b,
			      const struct rths_sim_params *sim,
			      struct rths_error *err)
{
	int r = rths_sim_plant_check(sim, err);

	if (r)
		return r;
	if (!(sim->set & RTHS_SIM_PLANT))
		return rths_error_set(err, EINVAL, NULL, 0, "plant",
				      "no plant given (RTHS_SIM_PLANT not set)");
	r = rths_hs_offline_set_plant(b, sim, err);
	if (r == -ENOTTY)
		r = rths_hs_device_set_plant(b, sim, err);
	if (r == -ENOTTY)
		r = rths_error_set(err, RTHS_E_UNSUPPORTED, NULL, 0, "plant",
				   "the %s backend runs no plant",
				   b->ops->name);
	return r;
}

static double mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int rths_hs_backend_round_trip(struct rths_hs_backend *b, uint32_t steps,
			       double *mean_s, double *max_s,
			       struct rths_error *err)
{
	double paced = rths_hs_device_paced(b), sum = 0, worst = 0;
	struct rths_hs_feedback_wide fb = { .channels = b->channels };
	struct rths_error e2;
	double *target;
	int r, r2;

	if (!steps)
		return rths_error_set(err, EINVAL, NULL, 0, NULL,
				      "round trip: no steps to time");
	/* the targets at rest, then the feedback's three arrays */
	target = rths_zalloc(4 * (size_t)b->channels, err);
	if (!target)
		return -ENOMEM;
	fb.command = target + b->channels;
	fb.disp = fb.command + b->channels;
	fb.force = fb.disp + b->channels;
	r = rths_hs_backend_start(b, err);
	if (r) {
		free(target);
		return r;
	}
	for (uint32_t n = 1; n <= steps && !r; n++) {
		double t0 = mono_now(), x;

		r = rths_hs_backend_post(b, n, target, err);
		if (!r)
			r = rths_hs_backend_wait_wide(b, n, &fb, err);
		x = mono_now() - t0 - paced;
		x = x > 0 ? x : 0;
		sum += x;
		worst = x > worst ? x : worst;
	}
	free(target);
	r2 = rths_hs_backend_stop(b, r ? &e2 : err);
	if (r || r2)
		return r ? r : r2;
	*mean_s = sum / steps;
	*max_s = worst;
	return 0;
}
