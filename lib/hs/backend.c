// SPDX-License-Identifier: LGPL-2.1-or-later
/* Backend calls, checked once here so that every backend is simpler. */
#include <string.h>
#include <time.h>

#include <rths/hs_backend.h>

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

int rths_hs_backend_wait(struct rths_hs_backend *b, uint64_t step,
			 struct rths_hs_feedback *fb,
			 struct rths_error *err)
{
	int r = b->ops->wait(b->priv, step, fb, err);

	if (r == 0 && fb->step != step)
		return rths_error_set(err, RTHS_E_BACKEND, NULL, 0, NULL,
				      "%s backend: feedback for step %llu while waiting for step %llu",
				      b->ops->name, (unsigned long long)fb->step,
				      (unsigned long long)step);
	return r;
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
	double target[RTHS_HS_MAX_CHANNELS] = { 0 };
	double paced = rths_hs_device_paced(b), sum = 0, worst = 0;
	struct rths_hs_feedback fb;
	struct rths_error e2;
	int r, r2;

	if (!steps)
		return rths_error_set(err, EINVAL, NULL, 0, NULL,
				      "round trip: no steps to time");
	r = rths_hs_backend_start(b, err);
	if (r)
		return r;
	for (uint32_t n = 1; n <= steps && !r; n++) {
		double t0 = mono_now(), x;

		r = rths_hs_backend_post(b, n, target, err);
		if (!r)
			r = rths_hs_backend_wait(b, n, &fb, err);
		x = mono_now() - t0 - paced;
		x = x > 0 ? x : 0;
		sum += x;
		worst = x > worst ? x : worst;
	}
	r2 = rths_hs_backend_stop(b, r ? &e2 : err);
	if (r || r2)
		return r ? r : r2;
	*mean_s = sum / steps;
	*max_s = worst;
	return 0;
}
