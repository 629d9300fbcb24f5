// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Step-size preview ([CN109359427B] claim 2): the whole test with a
 * numerical model in place of the specimen, once per candidate d = 1, 2,
 * ... ticks a step.  The patent's criterion is the total compute time
 * against the earthquake's duration; rths_hs_preview_budget() judges
 * every step against its own budget instead.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/rths.h>
#include <rths/hs_odesub.h>
#include <rths/hs_sim.h>

#include "hs/odesub_impl.h"
#include "hs/preview_impl.h"

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
		       struct rths_hs_preview_row *row, double **samples,
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
	if (samples && h.rows > 1) {
		/* each step's own time, its ODE work added as below */
		*samples = malloc((h.rows - 1) * sizeof(**samples));
		if (!*samples) {
			rths_hs_history_free(&h);
			return rths_error_set(err, ENOMEM, NULL, 0, NULL,
					      "preview: %zu step times",
					      h.rows - 1);
		}
		for (size_t i = 1; i < h.rows; i++) {
			double t = h.compute[i];

			for (size_t j = 0; cfg->sub && j < n_ode; j++)
				if (odesubs[j]->rec && i <= odesubs[j]->n_rec)
					t += odesubs[j]->rec[i].compute;
			(*samples)[i - 1] = t;
		}
	}
	/* With a specimen the step's compute stops at the post and the ODE
	 * work runs after it: count it too.  All-numerical, it is in. */
	for (size_t i = 0; cfg->sub && i < n_ode; i++) {
		double total, worst;

		rths_hs_odesub_compute(odesubs[i], &total, &worst);
		row->compute += total;
		row->compute_max += worst;
	}
	rths_hs_history_free(&h);
	if (res.interrupted) {
		if (samples) {
			free(*samples);
			*samples = NULL;
		}
		return rths_error_set(err, EINVAL, NULL, 0, NULL,
				      "preview interrupted");
	}
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

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int rths_hs_step_fit(const double *compute, size_t n, double exchange_s,
		     double budget_s, double margin, uint32_t d,
		     struct rths_hs_step_fit *out, struct rths_error *err)
{
	double *s;

	memset(out, 0, sizeof(*out));
	if (!compute || n == 0 || !(exchange_s >= 0) || !isfinite(exchange_s) ||
	    !(budget_s > 0) || !isfinite(budget_s) || !(margin >= 0) ||
	    !(margin < 1))
		return rths_error_set(err, EINVAL, NULL, 0, NULL,
				      "step fit: %zu steps, exchange %g s, budget %g s, margin %g",
				      n, exchange_s, budget_s, margin);
	for (size_t i = 0; i < n; i++)
		if (!(compute[i] >= 0) || !isfinite(compute[i]))
			return rths_error_set(err, EINVAL, NULL, 0, NULL,
					      "step fit: step %zu took %g s",
					      i + 1, compute[i]);
	s = malloc(n * sizeof(*s));
	if (!s)
		return rths_error_set(err, ENOMEM, NULL, 0, NULL,
				      "step fit: %zu steps", n);
	memcpy(s, compute, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	out->d = d;
	out->samples = n;
	out->max = s[n - 1];
	out->figure_is_max = n < RTHS_HS_P999_MIN_SAMPLES;
	/* nearest rank: the ceil(0.999 n)-th smallest */
	out->figure = out->figure_is_max ? out->max :
		      s[(size_t)ceil(0.999 * (double)n) - 1];
	free(s);
	out->exchange = exchange_s;
	out->budget = budget_s;
	out->margin = margin;
	out->limit = (1 - margin) * budget_s;
	out->fits = out->figure + exchange_s <= out->limit;
	return 0;
}

void rths_hs_step_fit_str(const struct rths_hs_step_fit *f, char *buf,
			  size_t len)
{
	snprintf(buf, len, "d = %u: %s %.1f us + exchange %.1f us %s %.3g x %.1f us budget",
		 f->d, f->figure_is_max ? "max" : "p99.9", f->figure * 1e6,
		 f->exchange * 1e6, f->fits ? "<=" : ">", 1 - f->margin,
		 f->budget * 1e6);
}

/*
 * The candidates in turn: with @fit, by the step budget (@margin),
 * else by the patent's total against the record (pp->margin).
 */
static int preview_loop(const struct rths_hs_sim_config *cfg,
			struct rths_hs_odesub *const *odesubs,
			size_t n_odesubs,
			const struct rths_hs_preview_params *pp,
			double exchange_s, double margin,
			struct rths_hs_preview_result *out,
			struct rths_hs_step_fit *fit, struct rths_error *err)
{
	uint32_t max = pp->max_ticks;

	memset(out, 0, sizeof(*out));
	if (pp->rate < RTHS_RATE_MIN || pp->rate > RTHS_RATE_MAX || max < 1 ||
	    max > sizeof(out->rows) / sizeof(out->rows[0]) ||
	    !(pp->margin > 0) || !(exchange_s >= 0) || exchange_s > 1 ||
	    (fit && !(margin >= 0 && margin < 1)))
		return rths_error_set(err, EINVAL, NULL, 0, NULL,
				      "preview: rate %u Hz, up to %u ticks, margin %g, exchange %g s",
				      pp->rate, max, fit ? margin : pp->margin,
				      exchange_s);
	out->duration = cfg->duration > 0 ? cfg->duration :
			rths_hs_gm_duration(cfg->gm);
	for (uint32_t d = 1; d <= max; d++) {
		struct rths_hs_preview_row *row = &out->rows[out->n_rows];
		double *samples = NULL;
		int r;

		if (!odesubs_suit(odesubs, n_odesubs, (double)d / pp->rate))
			continue;
		r = preview_one(cfg, odesubs, n_odesubs, pp, d, row,
				fit ? &samples : NULL, err);
		if (r < 0)
			return r;
		/* every step also pays the exchange with the backend */
		row->compute += (double)row->steps * exchange_s;
		row->compute_max += exchange_s;
		if (fit) {
			r = rths_hs_step_fit(samples, row->steps, exchange_s,
					     row->dt, margin, d,
					     &fit[out->n_rows], err);
			free(samples);
			if (r < 0)
				return r;
			row->fits = fit[out->n_rows].fits;
		} else {
			row->fits = row->compute < pp->margin * out->duration;
		}
		out->n_rows++;
		if (row->fits) {
			out->chosen = d;
			out->dt = row->dt;
			return 0;
		}
	}
	if (fit)
		return rths_error_set(err, RTHS_E_TOO_SLOW, NULL, 0, NULL,
				      "even d = %u (dt = %g s): a step's compute%s does not fit in %g of it",
				      max, (double)max / pp->rate,
				      exchange_s > 0 ? " and exchange" : "",
				      1 - margin);
	return rths_error_set(err, RTHS_E_TOO_SLOW, NULL, 0, NULL,
			      "even d = %u (dt = %g s) computes%s slower than real time",
			      max, (double)max / pp->rate,
			      exchange_s > 0 ? " and exchanges" : "");
}

int rths_hs_preview_odesubs(const struct rths_hs_sim_config *cfg,
			    struct rths_hs_odesub *const *odesubs,
			    size_t n_odesubs,
			    const struct rths_hs_preview_params *pp,
			    double exchange_s,
			    struct rths_hs_preview_result *out,
			    struct rths_error *err)
{
	return preview_loop(cfg, odesubs, n_odesubs, pp, exchange_s, 0, out,
			    NULL, err);
}

int rths_hs_preview_budget(const struct rths_hs_sim_config *cfg,
			   struct rths_hs_odesub *const *odesubs,
			   size_t n_odesubs,
			   const struct rths_hs_preview_params *pp,
			   double margin, double exchange_s,
			   struct rths_hs_budget_preview *out,
			   struct rths_error *err)
{
	memset(out->fit, 0, sizeof(out->fit));
	return preview_loop(cfg, odesubs, n_odesubs, pp, exchange_s, margin,
			    &out->pr, out->fit, err);
}
