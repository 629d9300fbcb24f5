// SPDX-License-Identifier: GPL-2.0
/*
 * The interface the coordinator runs: the experiment's substructure,
 * setup and estimate, or (more interface coordinates than librths's
 * experiment holds) the wide ones config.c read.  The engine takes either
 * the same way: the sites' backend is a wide one (backend.c).
 */
#include "coord.h"
#include "../common/hsrun.h"

void coord_sim_config(const struct coord_config *cc,
		      struct rths_hs_sim_config *cfg)
{
	rths_hs_experiment_sim_config(cc->x, cfg);
	cfg->sub = cc->sub;
	cfg->setup = cc->setup;
	cfg->k_if = cc->k_est;
	cfg->c_if = cc->c_est;
	cfg->comp = &cc->x->comp;
}

int coord_reference_run(const struct coord_config *cc,
			struct rths_hs_history *ref, struct rths_error *err)
{
	const struct coord_wide *w = cc->wide;
	struct rths_hs_run_result res;
	struct rths_hs_sim_config cfg;
	struct rths_hs_model full;
	int r;

	if (!w)
		return reference_run(cc->x, ref, err);
	/* the sites' linear specimen inside the model (no springs: the
	 * wide file has no specimen.nonlinear) */
	r = rths_hs_model_with_specimen(&full, &cc->x->model, &w->sub, w->k,
					w->c, err);
	if (r < 0)
		return r;
	rths_hs_experiment_sim_config(cc->x, &cfg);
	cfg.model = &full;
	r = rths_hs_sim_run(&cfg, ref, &res, err);
	rths_hs_model_free(&full);
	return r;
}
