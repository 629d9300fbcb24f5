/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The step-size preview against the step budget, private (rths-run and
 * the unit tests link it from the in-tree librths.a).
 */
#ifndef RTHS_HS_PREVIEW_IMPL_H
#define RTHS_HS_PREVIEW_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rths/hs_odesub.h>
#include <rths/hs_sim.h>

/*
 * The high percentile a step is judged by: p99.9, nearest rank, which is
 * a step other than the worst only from 1000 steps on; with fewer the
 * figure is the worst step, and says so.
 */
#define RTHS_HS_P999_MIN_SAMPLES 1000

/* Why a candidate d fits the step budget, or does not. */
struct rths_hs_step_fit {
	uint32_t d;
	size_t samples;		/* steps timed */
	double figure;		/* s, p99.9 of the steps' compute, or the max */
	bool figure_is_max;	/* fewer than RTHS_HS_P999_MIN_SAMPLES */
	double max;		/* s, the worst step */
	double exchange;	/* s, the exchange with the backend a step */
	double budget;		/* s, the step: d / rate */
	double margin;		/* the part of the budget kept free */
	double limit;		/* s, (1 - margin) * budget */
	bool fits;		/* figure + exchange <= limit */
};

/*
 * The decision for one d, pure: @compute holds @n steps' compute times
 * (s; they are not changed), @exchange_s the exchange a step, @budget_s
 * the step, @margin in [0, 1).  -EINVAL on a bad argument (no samples, a
 * negative or non-finite figure).
 */
int rths_hs_step_fit(const double *compute, size_t n, double exchange_s,
		     double budget_s, double margin, uint32_t d,
		     struct rths_hs_step_fit *out, struct rths_error *err);

/* "d = 4: p99.9 812.0 us + exchange 21.0 us <= 0.8 x 3906.2 us budget". */
void rths_hs_step_fit_str(const struct rths_hs_step_fit *f, char *buf,
			  size_t len);

struct rths_hs_budget_preview {
	/* the rows of the patent's preview (totals against the record);
	 * rows[i].fits is the budget's verdict here */
	struct rths_hs_preview_result pr;
	struct rths_hs_step_fit fit[32];	/* one per row */
};

/*
 * The step-size preview a lab runs by: as rths_hs_preview_odesubs(), but
 * d is the smallest whose steps' p99.9 compute (the max with fewer than
 * RTHS_HS_P999_MIN_SAMPLES steps; with a specimen, each step's ODE
 * substructure work added) plus @exchange_s fits in (1 - @margin) of the
 * step d / rate.  pp->margin is not used.  -RTHS_E_TOO_SLOW if no d up to
 * pp->max_ticks fits; out->pr.n_rows rows were tried either way.
 */
int rths_hs_preview_budget(const struct rths_hs_sim_config *cfg,
			   struct rths_hs_odesub *const *odesubs,
			   size_t n_odesubs,
			   const struct rths_hs_preview_params *pp,
			   double margin, double exchange_s,
			   struct rths_hs_budget_preview *out,
			   struct rths_error *err);

#endif /* RTHS_HS_PREVIEW_IMPL_H */
