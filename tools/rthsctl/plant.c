// SPDX-License-Identifier: GPL-2.0
/*
 * rthsctl: the sim card's discrete-time plant (Documentation/sim-card.rst),
 * designed by librths at the device's rate, and shown.
 */
#include <stdio.h>
#include <string.h>

#include <rths/error.h>
#include <rths/sim_plant.h>

#include "rthsctl.h"

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

void rc_plant_print(const struct rths_sim_params *sim)
{
	uint32_t i;

	if (!(sim->set & RTHS_SIM_PLANT) || !sim->plant_sections) {
		printf("    plant none (first-order lag)\n");
		return;
	}
	printf("    plant %u sections (b0 b1 b2 a1 a2):\n", sim->plant_sections);
	for (i = 0; i < sim->plant_sections && i < RTHS_SIM_SECTIONS_MAX; i++) {
		const struct rths_sim_section *c = &sim->plant[i];

		printf("      %.12g %.12g %.12g %.12g %.12g\n", c->b0 / ONE_Q,
		       c->b1 / ONE_Q, c->b2 / ONE_Q, c->a1 / ONE_Q,
		       c->a2 / ONE_Q);
	}
}

/* {"sections": N, "q": 40, "coefficients": [[b0, b1, b2, a1, a2], ...]}
 * with the card's integers. */
json_t *rc_plant_json(const struct rths_sim_params *sim)
{
	json_t *arr = json_array();
	uint32_t i, n = (sim->set & RTHS_SIM_PLANT) ? sim->plant_sections : 0;

	for (i = 0; i < n && i < RTHS_SIM_SECTIONS_MAX; i++) {
		const struct rths_sim_section *c = &sim->plant[i];

		json_array_append_new(arr, json_pack("[I,I,I,I,I]",
			(json_int_t)c->b0, (json_int_t)c->b1,
			(json_int_t)c->b2, (json_int_t)c->a1,
			(json_int_t)c->a2));
	}
	return json_pack("{s:I,s:I,s:o}", "sections", (json_int_t)n, "q",
			 (json_int_t)RTHS_SIM_PLANT_Q, "coefficients", arr);
}
