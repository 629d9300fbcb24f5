// SPDX-License-Identifier: GPL-2.0
/*
 * rthsctl: the sim card's discrete-time plant (Documentation/sim-card.rst),
 * designed by librths at the device's rate, and shown.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rths/error.h>
#include <rths/sim_plant.h>

#include "print.h"

#define ONE_Q ((double)(1LL << RTHS_SIM_PLANT_Q))

int rc_plant_design(const struct rc_plant *p, uint32_t rate,
		    struct rths_sim_params *sim, struct rc_err *e)
{
	struct rths_benchmark_plant bp;
	double *field[RC_PLANT_KEYS] = {
		&bp.gain, &bp.a1b0, &bp.a2, &bp.b1, &bp.b2, &bp.a3, &bp.me,
		&bp.ke, &bp.zeta, NULL,
	};
	struct rths_error err = { 0 };
	double num[1], den[6], prewarp = 0;
	int k;

	sim->set |= RTHS_SIM_PLANT;
	if (p->none) {
		sim->plant_sections = 0;
		memset(sim->plant, 0, sizeof(sim->plant));
		return 0;
	}
	rths_benchmark_plant_nominal(&bp);
	for (k = 0; k < RC_PLANT_KEYS; k++) {
		if (!(p->set & (1u << k)))
			continue;
		if (field[k])
			*field[k] = p->v[k];
		else
			prewarp = p->v[k];
	}
	if (prewarp >= rate / 2.0)
		return rc_err_set(e, "plant benchmark: prewarp %g Hz is not below half the rate, %u Hz",
				  prewarp, rate / 2);
	if (rths_benchmark_plant_tf(&bp, num, den, &err) ||
	    rths_sim_plant_design(num, 1, den, 6, rate, prewarp, sim, &err))
		return rc_err_set(e, "plant benchmark at %u Hz: %s%s%s", rate,
				  err.path, *err.path ? ": " : "", err.msg);
	return 0;
}

/*
 * "plant": {"sections": N, "q": 40, "coefficients": [[b0, b1, b2, a1,
 * a2], ...]} with the card's integers; the text shows them as numbers
 * (over 2^q).
 */
void rc_show_plant(struct pr *p, const struct rths_sim_params *sim)
{
	uint32_t i, n = (sim->set & RTHS_SIM_PLANT) ? sim->plant_sections : 0;

	pr_obj(p, "plant", "    plant");
	pr_u64(p, "sections", " %" PRIu64 " sections", n);
	pr_u64(p, "q", " q %" PRIu64, RTHS_SIM_PLANT_Q);
	pr_arr(p, "coefficients", n ? " coefficients (b0 b1 b2 a1 a2):" :
	       " coefficients none (first-order lag)");
	for (i = 0; i < n && i < RTHS_SIM_SECTIONS_MAX; i++) {
		const struct rths_sim_section *c = &sim->plant[i];

		pr_arr(p, NULL, "\n     ");
		pr_fixed(p, NULL, " %.12g", c->b0, ONE_Q);
		pr_fixed(p, NULL, " %.12g", c->b1, ONE_Q);
		pr_fixed(p, NULL, " %.12g", c->b2, ONE_Q);
		pr_fixed(p, NULL, " %.12g", c->a1, ONE_Q);
		pr_fixed(p, NULL, " %.12g", c->a2, ONE_Q);
		pr_close(p);
	}
	pr_close(p);
	pr_text(p, "\n");
	pr_close(p);
}
