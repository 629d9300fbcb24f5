// SPDX-License-Identifier: GPL-2.0
/*
 * The sim card's discrete-time plant in librths: the Tustin design against
 * closed forms and the continuous response, the card's checks, the
 * integer recursion against hand-worked values and a double-precision
 * run of the same coefficients, and the benchmark plant's response over
 * 0.5 to 30 Hz against its continuous G(s).
 */
#include <math.h>
#include <string.h>

#include "kselftest_harness.h"
#include "rths/sim_plant.h"
#include "dev/internal.h"

#define ONE ((double)(1LL << RTHS_SIM_PLANT_Q))

/* ---- design ---------------------------------------------------------- */

/* 1 / (tau s + 1) by Tustin: (1 + z^-1) T / (2 tau + T) over
 * 1 - (2 tau - T) / (2 tau + T) z^-1. */
TEST(first_order_lag_has_the_closed_form)
{
	struct rths_sim_params sim = { 0 };
	const double num[] = { 1 }, den[] = { 0.004, 1 };
	const double T = 1.0 / 1024, tau = 0.004;
	struct rths_error err = { 0 };

	ASSERT_EQ(0, rths_sim_plant_design(num, 1, den, 2, 1024, 0, &sim,
					   &err));
	EXPECT_EQ(RTHS_SIM_PLANT, sim.set);
	ASSERT_EQ(1, sim.plant_sections);
	EXPECT_LE(fabs(sim.plant[0].b0 / ONE - T / (2 * tau + T)), 2 / ONE);
	EXPECT_LE(fabs(sim.plant[0].b1 / ONE - T / (2 * tau + T)), 2 / ONE);
	EXPECT_EQ(0, sim.plant[0].b2);
	EXPECT_LE(fabs(sim.plant[0].a1 / ONE + (2 * tau - T) / (2 * tau + T)),
		  2 / ONE);
	EXPECT_EQ(0, sim.plant[0].a2);
}

/* Prewarped at f0, the discrete response equals the continuous one there
 * (up to the Q40 coefficients), and a shade off elsewhere. */
TEST(prewarped_resonance_matches_at_its_frequency)
{
	struct rths_sim_params sim = { 0 };
	const double w = 2 * M_PI * 40, z = 0.05;
	const double num[] = { w * w }, den[] = { 1, 2 * z * w, w * w };
	double mc, pc, md, pd;
	struct rths_error err = { 0 };

	ASSERT_EQ(0, rths_sim_plant_design(num, 1, den, 3, 512, 40, &sim,
					   &err));
	ASSERT_EQ(1, sim.plant_sections);
	rths_tf_response(num, 1, den, 3, 40, &mc, &pc);
	rths_sim_plant_response(&sim, 512, 40, &md, &pd);
	EXPECT_LE(fabs(md / mc - 1), 1e-6);
	EXPECT_LE(fabs(pd - pc), 1e-4);
	/* unit DC gain */
	rths_sim_plant_response(&sim, 512, 0, &md, &pd);
	EXPECT_LE(fabs(md - 1), 1e-9);
	EXPECT_LE(fabs(pd), 1e-9);
}

/* A 5th-order plant needs 3 sections, the last first-order (b2 = a2 = 0)
 * and all of them stable; its response follows G(s) at low frequency. */
TEST(odd_order_uses_a_first_order_section)
{
	struct rths_sim_params sim = { .set = RTHS_SIM_SEED, .seed = 7 };
	/* (s + 10)(s^2 + 20 s + 400)(s^2 + 6 s + 10000) */
	const double num[] = { 4e7 };
	double den[6], a[] = { 1, 10 }, b[] = { 1, 20, 400 },
	       c[] = { 1, 6, 10000 }, ab[4];
	double mc, pc, md, pd, db = 0, deg = 0;
	struct rths_error err = { 0 };
	int first = 0;

	memset(ab, 0, sizeof(ab));
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 3; j++)
			ab[i + j] += a[i] * b[j];
	memset(den, 0, sizeof(den));
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 3; j++)
			den[i + j] += ab[i] * c[j];
	ASSERT_EQ(0, rths_sim_plant_design(num, 1, den, 6, 2048, 0, &sim,
					   &err));
	EXPECT_EQ(RTHS_SIM_PLANT | RTHS_SIM_SEED, sim.set);
	EXPECT_EQ(7, sim.seed);
	ASSERT_EQ(3, sim.plant_sections);
	for (int i = 0; i < 3; i++)
		first += sim.plant[i].a2 == 0 && sim.plant[i].b2 == 0;
	EXPECT_EQ(1, first);
	EXPECT_EQ(0, rths_sim_plant_check(&sim, &err));
	rths_sim_plant_fit(&sim, 2048, num, 1, den, 6, 0.5, 30, &db, &deg);
	/* the fit is the worst of the pointwise errors */
	rths_tf_response(num, 1, den, 6, 16, &mc, &pc);
	rths_sim_plant_response(&sim, 2048, 16, &md, &pd);
	EXPECT_LE(fabs(20 * log10(md / mc)), db);
	EXPECT_LE(fabs(pd - pc), deg);
	TH_LOG("max error %.4f dB, %.4f deg", db, deg);
	EXPECT_LE(db, 0.1);
	EXPECT_LE(deg, 0.5);
}

TEST(design_refuses_what_the_card_cannot_run)
{
	struct rths_sim_params sim = { 0 };
	const double one[] = { 1 }, unstable[] = { 1, -2 },
		     improper[] = { 1, 1, 1 }, lag[] = { 1, 1 };
	double high[18] = { 1 };
	struct rths_error err = { 0 };

	EXPECT_EQ(-EDOM, rths_sim_plant_design(one, 1, unstable, 2, 1024, 0,
					       &sim, &err));
	EXPECT_NE(NULL, strstr(err.msg, "only stable plants"));
	EXPECT_EQ(-EDOM, rths_sim_plant_design(improper, 3, lag, 2, 1024, 0,
					       &sim, &err));
	EXPECT_NE(NULL, strstr(err.msg, "not proper"));
	high[17] = 1;
	EXPECT_EQ(-ERANGE, rths_sim_plant_design(one, 1, high, 18, 1024, 0,
						 &sim, &err));
	EXPECT_NE(NULL, strstr(err.msg, "order 17"));
	EXPECT_EQ(-ERANGE, rths_sim_plant_design(one, 1, lag, 2, 1024, 512,
						 &sim, &err));
	EXPECT_STREQ("prewarp", err.path);
	EXPECT_EQ(0, sim.set);
	EXPECT_EQ(0, sim.plant_sections);
}

/* ---- checks ------------------------------------------------------------ */

TEST(check_names_the_bad_section)
{
	struct rths_sim_params sim = {
		.set = RTHS_SIM_PLANT, .plant_sections = 2,
		.plant = { { 1LL << 40, 0, 0, 0, 0 },
			   { 1LL << 40, 0, 0, -(1LL << 40), 0 } },
	};
	struct rths_error err = { 0 };

	/* a pole at z = 1: not stable */
	EXPECT_EQ(-EDOM, rths_sim_plant_check(&sim, &err));
	EXPECT_NE(NULL, strstr(err.msg, "section 1 is not stable"));
	sim.plant[1].a1 = -(1LL << 40) + 1;
	EXPECT_EQ(0, rths_sim_plant_check(&sim, &err));
	sim.plant[0].b1 = RTHS_SIM_COEF_MAX + 1;
	EXPECT_EQ(-ERANGE, rths_sim_plant_check(&sim, &err));
	EXPECT_NE(NULL, strstr(err.msg, "section 0"));
	sim.plant[0].b1 = 0;
	sim.plant[0].a2 = 1LL << 40;	/* |a2| = 1 */
	EXPECT_EQ(-EDOM, rths_sim_plant_check(&sim, &err));
	sim.plant_sections = RTHS_SIM_SECTIONS_MAX + 1;
	EXPECT_EQ(-ERANGE, rths_sim_plant_check(&sim, &err));
	sim.set = 0;	/* not sent: nothing to check */
	EXPECT_EQ(0, rths_sim_plant_check(&sim, &err));
}

/* ---- the integer recursion ---------------------------------------------- */

/* y = x / 2 + y1 / 2 by hand: signals in 2^-16 nm, rounding half up. */
TEST(recursion_by_hand)
{
	struct rths_sim_params sim = {
		.set = RTHS_SIM_PLANT, .plant_sections = 1,
		.plant = { { 1LL << 39, 0, 0, -(1LL << 39), 0 } },
	};
	struct rths_sim_plant_state st;
	/* in Q16: 3 nm = 196608; y: 98304, 147456, 172032, 184320, 190464
	 * (1.5, 2.25, 2.625, 2.8125, 2.90625 nm) */
	const int64_t want[] = { 2, 2, 3, 3, 3 };

	rths_sim_plant_reset(&st, 0);
	for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++)
		EXPECT_EQ(want[k], rths_sim_plant_tick(&sim, &st, 3));
	EXPECT_EQ(190464, st.w[1][0]);
	EXPECT_EQ(196608, st.w[0][0]);
	/* -1 nm: -65536 / 2 + 190464 / 2 = 62464 -> 0.953 nm -> 1 */
	EXPECT_EQ(1, rths_sim_plant_tick(&sim, &st, -1));
	EXPECT_EQ(62464, st.w[1][0]);
	EXPECT_EQ(190464, st.w[1][1]);
	/* rest at 5 nm: a unit DC gain section stays there */
	rths_sim_plant_reset(&st, 5);
	EXPECT_EQ(5, rths_sim_plant_tick(&sim, &st, 5));
	EXPECT_EQ(5 * 65536, st.w[1][0]);
}

/* No plant: the command passes. */
TEST(no_sections_pass_the_command)
{
	struct rths_sim_params sim = { .set = RTHS_SIM_PLANT };
	struct rths_sim_plant_state st;

	rths_sim_plant_reset(&st, 0);
	EXPECT_EQ(-123456789, rths_sim_plant_tick(&sim, &st, -123456789));
	EXPECT_EQ(RTHS_POS_MAX,
		  rths_sim_plant_tick(&sim, &st, RTHS_POS_MAX + 5));
}

/* The integer recursion of a designed plant stays within a few nm of the
 * same sections run in double precision, over a 1 mm chirp. */
TEST(recursion_follows_the_real_filter)
{
	struct rths_benchmark_plant bp;
	struct rths_sim_params sim = { 0 };
	struct rths_sim_plant_state st;
	double num[1], den[6], w[RTHS_SIM_SECTIONS_MAX + 1][2] = { { 0 } };
	struct rths_error err = { 0 };
	double worst = 0;

	rths_benchmark_plant_nominal(&bp);
	ASSERT_EQ(0, rths_benchmark_plant_tf(&bp, num, den, &err));
	ASSERT_EQ(0, rths_sim_plant_design(num, 1, den, 6, 4096, 0, &sim,
					   &err));
	rths_sim_plant_reset(&st, 0);
	for (int k = 0; k < 4096 * 4; k++) {
		double t = k / 4096.0;
		double u = 1e6 * sin(2 * M_PI * (0.5 + 3 * t) * t);
		int64_t ui = (int64_t)llround(u), y;
		double x = (double)ui;

		y = rths_sim_plant_tick(&sim, &st, ui);
		for (uint32_t i = 0; i < sim.plant_sections; i++) {
			const struct rths_sim_section *q = &sim.plant[i];
			double v = (q->b0 * x + q->b1 * w[i][0] +
				    q->b2 * w[i][1] - q->a1 * w[i + 1][0] -
				    q->a2 * w[i + 1][1]) / ONE;

			w[i][1] = w[i][0];
			w[i][0] = x;
			x = v;
		}
		w[sim.plant_sections][1] = w[sim.plant_sections][0];
		w[sim.plant_sections][0] = x;
		if (fabs((double)y - x) > worst)
			worst = fabs((double)y - x);
	}
	TH_LOG("integer against double recursion: %.3f nm at most", worst);
	EXPECT_LE(worst, 5.0);
}

/* ---- on the wire ---------------------------------------------------------- */

#define FAMILY 0x4242

static const struct nlattr *find(const struct nlattr *nest, uint16_t type)
{
	const struct nlattr *a;

	mnl_attr_for_each_nested(a, nest)
		if (mnl_attr_get_type(a) == type)
			return a;
	return NULL;
}

/* A DEV_GET reply of a sim device whose plant is @len bytes at @plant. */
static struct nlmsghdr *plant_reply(char *buf, size_t size,
				    const void *plant, size_t len)
{
	struct nlmsghdr *nlh = rths_msg_init(buf, size, FAMILY,
					     RTHS_CMD_DEV_GET, 0);
	struct nlattr *n;

	mnl_attr_put_u32(nlh, RTHS_A_DEV_ID, 1);
	mnl_attr_put_strz(nlh, RTHS_A_DEV_NAME, "p0");
	mnl_attr_put_strz(nlh, RTHS_A_DEV_CARD, "sim");
	n = mnl_attr_nest_start(nlh, RTHS_A_DEV_CARD_PARAMS);
	n->nla_type |= NLA_F_NESTED;
	mnl_attr_put(nlh, RTHS_SIM_A_PLANT, len, plant);
	mnl_attr_nest_end(nlh, n);
	return nlh;
}

TEST(plant_travels_as_whole_sections)
{
	static char buf[RTHS_REQ_SIZE];
	struct rths_sim_params sim = {
		.set = RTHS_SIM_PLANT | RTHS_SIM_SEED, .seed = 9,
		.plant_sections = 2,
		.plant = { { 1, 2, 3, -4, 5 }, { -6, 7, -8, 9, -10 } },
	};
	struct rths_msgbuf mb = { .size = sizeof(buf) };
	const struct nlattr *a, *nest = NULL;
	struct rths_dev_reply r;
	struct nlmsghdr *nlh;
	struct rths_err err;

	mb.err = &err;
	rths_err_clear(&err);
	mb.nlh = rths_msg_init(buf, sizeof(buf), FAMILY, RTHS_CMD_DEV_SET, 0);
	ASSERT_EQ(0, rths_put_card(&mb, NULL, RTHS_SIM_PARAMS(&sim)));
	mnl_attr_for_each(a, mb.nlh, sizeof(struct genlmsghdr))
		if (mnl_attr_get_type(a) == RTHS_A_DEV_CARD_PARAMS)
			nest = a;
	ASSERT_NE(NULL, nest);
	ASSERT_NE(NULL, a = find(nest, RTHS_SIM_A_PLANT));
	ASSERT_EQ(80, mnl_attr_get_payload_len(a));
	EXPECT_EQ(0, memcmp(sim.plant, mnl_attr_get_payload(a), 80));

	/* a bad section is refused before sending, named */
	sim.plant[1].a2 = -(1LL << 40);
	mb.nlh = rths_msg_init(buf, sizeof(buf), FAMILY, RTHS_CMD_DEV_SET, 0);
	EXPECT_EQ(-EDOM, rths_put_card(&mb, NULL, RTHS_SIM_PARAMS(&sim)));
	EXPECT_EQ(RTHS_SIM_A_PLANT, err.attr);
	EXPECT_NE(NULL, strstr(err.msg, "plant: section 1 is not stable"));

	/* a reply's plant decodes; a partial section is refused */
	nlh = plant_reply(buf, sizeof(buf), &sim.plant[1], 40);
	ASSERT_EQ(0, rths_dev_info_parse(nlh, &r));
	EXPECT_EQ(RTHS_SIM_PLANT, r.card.sim.set);
	EXPECT_EQ(1, r.card.sim.plant_sections);
	EXPECT_EQ(0, memcmp(&sim.plant[1], &r.card.sim.plant[0], 40));
	nlh = plant_reply(buf, sizeof(buf), sim.plant, 48);
	EXPECT_GT(0, rths_dev_info_parse(nlh, &r));
}

/* ---- the benchmark plant ------------------------------------------------- */

/* The published figure: |G| about 0.90 at 4 Hz, about 25 ms of delay. */
TEST(benchmark_plant_is_the_published_one)
{
	struct rths_benchmark_plant bp;
	double num[1], den[6], m, p;
	struct rths_error err = { 0 };

	rths_benchmark_plant_nominal(&bp);
	ASSERT_EQ(0, rths_benchmark_plant_tf(&bp, num, den, &err));
	rths_tf_response(num, 1, den, 6, 4, &m, &p);
	TH_LOG("|G(4 Hz)| %.4f, phase %.2f deg (%.1f ms)", m, p,
	       -p / 360 / 4 * 1e3);
	EXPECT_LE(fabs(m - 0.90), 0.03);
	EXPECT_LE(fabs(-p / 360 / 4 * 1e3 - 25), 5);
	bp.ke = -1;
	EXPECT_EQ(-ERANGE, rths_benchmark_plant_tf(&bp, num, den, &err));
	EXPECT_STREQ("ke", err.path);
}

/* The discrete integer plant against G(s) over 0.5 to 30 Hz, nominal and
 * with b1, b2, a3 and ke perturbed, at 1024 and 4096 Hz. */
TEST(benchmark_response_matches_g_of_s)
{
	const double scale[][4] = {	/* b1, b2, a3, ke */
		{ 1, 1, 1, 1 }, { 1.2, 0.8, 1.2, 1.2 }, { 0.8, 1.2, 0.8, 0.8 },
	};
	const uint32_t rates[] = { 1024, 4096 };

	for (size_t c = 0; c < 3; c++)
		for (size_t r = 0; r < 2; r++) {
			struct rths_benchmark_plant bp;
			struct rths_sim_params sim = { 0 };
			double num[1], den[6], db = 0, deg = 0;
			struct rths_error err = { 0 };

			rths_benchmark_plant_nominal(&bp);
			bp.b1 *= scale[c][0];
			bp.b2 *= scale[c][1];
			bp.a3 *= scale[c][2];
			bp.ke *= scale[c][3];
			ASSERT_EQ(0, rths_benchmark_plant_tf(&bp, num, den,
							     &err));
			ASSERT_EQ(0, rths_sim_plant_design(num, 1, den, 6,
							   rates[r], 0, &sim,
							   &err));
			rths_sim_plant_fit(&sim, rates[r], num, 1, den, 6,
					   0.5, 30, &db, &deg);
			TH_LOG("case %zu at %u Hz: %u sections, max error %.4f dB, %.4f deg",
			       c, rates[r], sim.plant_sections, db, deg);
			EXPECT_LE(db, 0.05);
			EXPECT_LE(deg, 0.5);
		}
}

TEST_HARNESS_MAIN
