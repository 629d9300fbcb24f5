// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Step-size preview (patent claim 2): the whole test with a numerical
 * model in place of the specimen, once per candidate d = 1, 2, ..., until
 * the compute time fits in the earthquake's duration.
 */
#include <string.h>

#include <linux/rths.h>
#include <rths/hs_odesub.h>
#include <rths/hs_sim.h>

#include "hs/odesub_impl.h"

void rths_hs_preview_defaults(struct rths_hs_preview_params *p)
{
	p->rate = RTHS_RATE_DEFAULT;
	p->max_ticks = 32;
	p->margin = 1.0;
}

/* Total compute time of one preview run at d ticks a step. */
static int preview_one(const struct rths_hs_sim_config *cfg,
		       struct rths_hs_odesub *const *odesubs, size_t n_ode,
		       const struct rths_hs_preview_params *pp, uint32_t d,
		       struct rths_hs_preview_row *row,
		       struct rths_error *err)
{
	struct rths_hs_sim_config c = *cfg;
	struct rths_hs_offline_params op;
	struct rths_hs_backend b = { 0 };
	struct rths_hs_history h = { 0 };
	struct rths_hs_run_result res;
	int r;

	c.integrator.dt = (double)d / pp->rate;
	c.progress = NULL;
	if (cfg->sub) {
		/* The numerical model of the specimen: its linear estimate
		 * behind a perfect actuator. */
		rths_hs_offline_defaults(&op);
		op.rate = pp->rate;
		op.step_ticks = d;
		op.setup = cfg->setup;
		op.k = cfg->k_if;
		op.c = cfg->c_if;
		r = rths_hs_offline_open(&b, &op, err);
		if (r < 0)
			return r;
		c.backend = &b;
	}
	r = rths_hs_sim_run_odesubs(&c, odesubs, n_ode, &h, &res, err);
	if (cfg->sub)
		rths_hs_backend_close(&b);
	/* a run that ended early (an ODE substructure's cap) says why */
	if (r == 0 && res.error) {
		if (err)
			*err = res.err;
		r = res.error;
	}
	if (r < 0) {
		rths_hs_history_free(&h);
		return r;
	}
	row->d = d;
	row->dt = c.integrator.dt;
	row->steps = res.steps_done;
	row->compute = 0;
	for (size_t i = 1; i < h.rows; i++)
		row->compute += h.compute[i];
	row->compute_max = res.compute_max;
	/* With a specimen the step's compute stops at the post and the ODE
	 * work runs after it: count it too.  All-numerical, it is in. */
	for (size_t i = 0; cfg->sub && i < n_ode; i++) {
		double total, worst;

		rths_hs_odesub_compute(odesubs[i], &total, &worst);
		row->compute += total;
		row->compute_max += worst;
	}
	rths_hs_history_free(&h);
	if (res.interrupted)
		return rths_error_set(err, EINVAL, NULL, 0, NULL,
				      "preview interrupted");
	return 0;
}

int rths_hs_preview(const struct rths_hs_sim_config *cfg,
		    const struct rths_hs_preview_params *pp,
		    struct rths_hs_preview_result *out,
		    struct rths_error *err)
{
	return rths_hs_preview_exchange(cfg, pp, 0, out, err);
}

int rths_hs_preview_exchange(const struct rths_hs_sim_config *cfg,
			     const struct rths_hs_preview_params *pp,
			     double exchange_s,
			     struct rths_hs_preview_result *out,
			     struct rths_error *err)
{
	return rths_hs_preview_odesubs(cfg, NULL, 0, pp, exchange_s, out,
				       err);
}

/* Whether every ODE substructure's fixed step suits dt. */
static bool odesubs_suit(struct rths_hs_odesub *const *odesubs, size_t n,
			 double dt)
{
	for (size_t i = 0; i < n; i++)
		if (rths_hs_odesub_check_dt(odesubs[i], dt, NULL) < 0)
			return false;
	return true;
}

int rths_hs_preview_odesubs(const struct rths_hs_sim_config *cfg,
			    struct rths_hs_odesub *const *odesubs,
			    size_t n_odesubs,
			    const struct rths_hs_preview_params *pp,
			    double exchange_s,
			    struct rths_hs_preview_result *out,
			    struct rths_error *err)
{
	uint32_t max = pp->max_ticks;

	memset(out, 0, sizeof(*out));
	if (pp->rate < RTHS_RATE_MIN || pp->rate > RTHS_RATE_MAX || max < 1 ||
	    max > sizeof(out->rows) / sizeof(out->rows[0]) ||
	    !(pp->margin > 0) || !(exchange_s >= 0) || exchange_s > 1)
		return rths_error_set(err, EINVAL, NULL, 0, NULL,
				      "preview: rate %u Hz, up to %u ticks, margin %g, exchange %g s",
				      pp->rate, max, pp->margin, exchange_s);
	out->duration = cfg->duration > 0 ? cfg->duration :
			rths_hs_gm_duration(cfg->gm);
	for (uint32_t d = 1; d <= max; d++) {
		struct rths_hs_preview_row *row = &out->rows[out->n_rows];
		int r;

		if (!odesubs_suit(odesubs, n_odesubs, (double)d / pp->rate))
			continue;
		r = preview_one(cfg, odesubs, n_odesubs, pp, d, row, err);
		if (r < 0)
			return r;
		/* every step also pays the exchange with the backend */
		row->compute += (double)row->steps * exchange_s;
		row->compute_max += exchange_s;
		out->n_rows++;
		row->fits = row->compute < pp->margin * out->duration;
		if (row->fits) {
			out->chosen = d;
			out->dt = row->dt;
			return 0;
		}
	}
	return rths_error_set(err, RTHS_E_TOO_SLOW, NULL, 0, NULL,
			      "even d = %u (dt = %g s) computes%s slower than real time",
			      max, (double)max / pp->rate,
			      exchange_s > 0 ? " and exchanges" : "");
}
