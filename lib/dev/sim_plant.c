// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The sim card's discrete-time plant as the card runs it: the checks it
 * makes of a plant and its integer recursion (kernel/cards/sim.c, bit for
 * bit).  Designing a plant is numerics, in lib/plant.
 */
#include <errno.h>
#include <stdbool.h>

#include <rths/sim_plant.h>

#define ONE_Q ((double)(1LL << RTHS_SIM_PLANT_Q))

__extension__ typedef __int128 i128;

/* ---- the card's recursion ------------------------------------------- */

void rths_sim_plant_reset(struct rths_sim_plant_state *st, int64_t y)
{
	int64_t x = y * (1LL << RTHS_SIM_PLANT_XQ);

	for (size_t i = 0; i <= RTHS_SIM_SECTIONS_MAX; i++)
		st->w[i][0] = st->w[i][1] = x;
}

static int64_t plant_round(i128 acc)
{
	const i128 lim = (i128)RTHS_SIM_SIGNAL_MAX * ((i128)1 << RTHS_SIM_PLANT_Q);

	if (acc >= lim)
		return RTHS_SIM_SIGNAL_MAX;
	if (acc <= -lim)
		return -RTHS_SIM_SIGNAL_MAX;
	return (int64_t)((acc + ((i128)1 << (RTHS_SIM_PLANT_Q - 1))) >>
			 RTHS_SIM_PLANT_Q);
}

int64_t rths_sim_plant_tick(const struct rths_sim_params *sim,
			    struct rths_sim_plant_state *st, int64_t u)
{
	uint32_t n = sim->plant_sections;
	int64_t x;

	if (n > RTHS_SIM_SECTIONS_MAX)
		n = RTHS_SIM_SECTIONS_MAX;
	/* the card's commands never leave this range */
	if (u > RTHS_POS_MAX)
		u = RTHS_POS_MAX;
	if (u < -RTHS_POS_MAX)
		u = -RTHS_POS_MAX;
	x = u * (1LL << RTHS_SIM_PLANT_XQ);
	for (uint32_t i = 0; i < n; i++) {
		const struct rths_sim_section *q = &sim->plant[i];
		int64_t *in = st->w[i], *out = st->w[i + 1];
		i128 acc = (i128)q->b0 * x + (i128)q->b1 * in[0] +
			   (i128)q->b2 * in[1] - (i128)q->a1 * out[0] -
			   (i128)q->a2 * out[1];

		in[1] = in[0];
		in[0] = x;
		x = plant_round(acc);
	}
	st->w[n][1] = st->w[n][0];
	st->w[n][0] = x;
	x = (x + (1LL << (RTHS_SIM_PLANT_XQ - 1))) >> RTHS_SIM_PLANT_XQ;
	return x > RTHS_POS_MAX ? RTHS_POS_MAX :
	       x < -RTHS_POS_MAX ? -RTHS_POS_MAX : x;
}

/* ---- checks ------------------------------------------------------------ */

static bool coef_ok(int64_t c)
{
	return c >= -RTHS_SIM_COEF_MAX && c <= RTHS_SIM_COEF_MAX;
}

int rths_sim_plant_check(const struct rths_sim_params *sim,
			 struct rths_error *err)
{
	const int64_t one = 1LL << RTHS_SIM_PLANT_Q;

	if (!(sim->set & RTHS_SIM_PLANT))
		return 0;
	if (sim->plant_sections > RTHS_SIM_SECTIONS_MAX)
		return rths_error_set(err, -ERANGE, NULL, 0, "plant",
				      "%u sections, the card runs %d at most",
				      sim->plant_sections,
				      RTHS_SIM_SECTIONS_MAX);
	for (uint32_t i = 0; i < sim->plant_sections; i++) {
		const struct rths_sim_section *q = &sim->plant[i];

		if (!coef_ok(q->b0) || !coef_ok(q->b1) || !coef_ok(q->b2) ||
		    !coef_ok(q->a1) || !coef_ok(q->a2))
			return rths_error_set(err, -ERANGE, NULL, 0, "plant",
					      "section %u: a coefficient is beyond +-2^48 (256.0 in Q%d)",
					      i, RTHS_SIM_PLANT_Q);
		if (q->a2 <= -one || q->a2 >= one || q->a1 >= one + q->a2 ||
		    q->a1 <= -(one + q->a2))
			return rths_error_set(err, -EDOM, NULL, 0, "plant",
					      "section %u is not stable: a1 %.12g, a2 %.12g (needs |a2| < 1 and |a1| < 1 + a2)",
					      i, q->a1 / ONE_Q, q->a2 / ONE_Q);
	}
	return 0;
}
