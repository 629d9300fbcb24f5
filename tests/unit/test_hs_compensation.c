// SPDX-License-Identifier: GPL-2.0
/* Delay compensation: polynomial extrapolation and adaptive ATS. */
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include <math.h>
#include <stdlib.h>

#include "kselftest_harness.h"

#include <rths/hs_compensation.h>
#include <rths/hs_criteria.h>

#define DT (1.0 / 1024)

/* An order-p extrapolation is exact on polynomials of degree p. */
TEST(polynomial_exact_on_its_degree)
{
	for (unsigned int p = 1; p <= 3; p++) {
		struct rths_hs_comp_params cp;
		struct rths_hs_comp *c;
		double tau = 0.013, worst = 0;

		rths_hs_comp_defaults(&cp, RTHS_HS_COMP_POLYNOMIAL, DT);
		cp.order = p;
		cp.delay = tau;
		ASSERT_EQ(0, rths_hs_comp_new(&c, &cp, NULL));
		for (int k = 0; k < 50; k++) {
			double t = k * DT, u = 0, ut = 0, got;

			for (unsigned int j = 0; j <= p; j++) {
				u += pow(t + 0.1, j) * (j + 1);
				ut += pow(t + tau + 0.1, j) * (j + 1);
			}
			got = rths_hs_comp_command(c, u);
			if (k >= (int)p)
				worst = fmax(worst, fabs(got - ut));
		}
		TH_LOG("order %u: worst %.3g", p, worst);
		EXPECT_LT(worst, 1e-9);
		rths_hs_comp_free(c);
	}
}

static double multisine(double t)
{
	return 0.01 * sin(2 * M_PI * 1.1 * t) + 0.006 * sin(2 * M_PI * 2.9 * t + 1) +
	       0.003 * sin(2 * M_PI * 5.3 * t + 2);
}

/* x(t) = g c(t - tau) gives a0 = 1/g, a1 = tau/g, a2 = tau^2/(2g). */
TEST(ats_estimate_recovers_delay_and_gain)
{
	size_t n = 2048;
	double *c = malloc(n * sizeof(double)), *x = malloc(n * sizeof(double));
	double g = 0.92, tau = 0.0137, a[3];

	ASSERT_NE(NULL, c);
	ASSERT_NE(NULL, x);
	for (size_t k = 0; k < n; k++) {
		c[k] = multisine(k * DT);
		x[k] = g * multisine(k * DT - tau);
	}
	ASSERT_EQ(0, rths_hs_ats_estimate(c, x, n, DT, a, NULL));
	TH_LOG("a0 %.4f (1/g %.4f), a1/a0 %.5f s (tau %.5f)", a[0], 1 / g,
	       a[1] / a[0], tau);
	EXPECT_LT(fabs(a[0] - 1 / g), 0.01 / g);
	EXPECT_LT(fabs(a[1] / a[0] - tau), 0.02 * tau);
	EXPECT_LT(fabs(a[2] / a[0] - tau * tau / 2), 0.2 * tau * tau / 2);
	free(c);
	free(x);
}

/*
 * The online estimator keeps the window's normal equations as running
 * sums; after any number of samples it agrees with a batch fit of the
 * same window (the sums are rebuilt every window, so rounding does not
 * pile up).
 */
TEST(ats_online_equals_batch_fit)
{
	struct rths_hs_comp_params cp;
	struct rths_hs_comp *c;
	size_t n = 5000, w = 700;
	double *cmd = malloc(n * sizeof(double));
	double *x = malloc(n * sizeof(double)), a[3], b[3];

	ASSERT_NE(NULL, cmd);
	ASSERT_NE(NULL, x);
	rths_hs_comp_defaults(&cp, RTHS_HS_COMP_ATS, DT);
	cp.window = (unsigned int)w;
	cp.a0_min = 0.01;
	cp.a0_max = 100;
	cp.a1_min = cp.a2_min = -1;
	cp.a1_max = cp.a2_max = 1;
	ASSERT_EQ(0, rths_hs_comp_new(&c, &cp, NULL));
	for (size_t k = 0; k < n; k++) {
		cmd[k] = multisine(k * DT) + 1e-4 * sin(0.37 * k * k);
		x[k] = 0.8 * multisine(k * DT - 0.02);
		rths_hs_comp_observe(c, cmd[k], x[k]);
	}
	rths_hs_comp_coefficients(c, a);
	ASSERT_EQ(0, rths_hs_ats_estimate(cmd + n - w - 3, x + n - w - 3,
					  w + 3, DT, b, NULL));
	for (int i = 0; i < 3; i++) {
		EXPECT_LT(fabs(a[i] - b[i]), 1e-6 * fabs(b[i]))
			TH_LOG("a%d: online %.9g, batch %.9g", i, a[i], b[i]);
	}
	EXPECT_EQ(n - w - 3 + 1, rths_hs_comp_updates(c));
	rths_hs_comp_free(c);
	free(cmd);
	free(x);
}

/*
 * Closed loop: an actuator that lags by d samples with gain g.  ATS
 * learns it online and the measured displacement follows the target;
 * without compensation the tracking error is the delay's.  Three terms
 * of exp(s tau) leave (w tau)^3 / 6 = 2 % out at 5.3 Hz and 16 ms, which
 * the fit spreads over a0 and a1: hence 5 % and 10 %, not the open-loop
 * 1 % and 2 %.
 */
static double closed_loop(enum rths_hs_comp_kind kind, double g,
			  unsigned int d, double a_out[3], unsigned long *upd)
{
	size_t n = 8192;
	double *u = calloc(n, sizeof(double)), *x = calloc(n, sizeof(double));
	double *cmd = calloc(n, sizeof(double));
	struct rths_hs_comp_params cp;
	struct rths_hs_tracking tr;
	struct rths_hs_comp *c;

	rths_hs_comp_defaults(&cp, kind, DT);
	cp.delay = 0.005;	/* a poor first guess */
	if (rths_hs_comp_new(&c, &cp, NULL) < 0 || !u || !x || !cmd)
		return INFINITY;
	for (size_t k = 0; k < n; k++) {
		u[k] = multisine(k * DT);
		cmd[k] = rths_hs_comp_command(c, u[k]);
		x[k] = k >= d ? g * cmd[k - d] : 0;
		rths_hs_comp_observe(c, cmd[k], x[k]);
	}
	rths_hs_comp_coefficients(c, a_out);
	*upd = rths_hs_comp_updates(c);
	/* Tracking over the last quarter, after adaptation. */
	rths_hs_tracking(u + 3 * n / 4, x + 3 * n / 4, n / 4, 1, DT, 50, &tr);
	rths_hs_comp_free(c);
	free(u);
	free(x);
	free(cmd);
	return tr.j2_pct;
}

TEST(ats_adapts_online)
{
	double a[3], j2_ats, j2_none;
	unsigned long upd;
	unsigned int d = 16;	/* 15.6 ms */
	double g = 0.9;

	j2_none = closed_loop(RTHS_HS_COMP_NONE, g, d, a, &upd);
	j2_ats = closed_loop(RTHS_HS_COMP_ATS, g, d, a, &upd);
	TH_LOG("J2 %.2f %% without, %.3f %% with ATS; a = %.4f %.5f %.3g (%lu updates)",
	       j2_none, j2_ats, a[0], a[1], a[2], upd);
	EXPECT_GT(upd, 1000);
	EXPECT_LT(fabs(a[0] - 1 / g), 0.05 / g);
	EXPECT_LT(fabs(a[1] / a[0] - d * DT), 0.1 * d * DT);
	EXPECT_LT(j2_ats, j2_none / 5);
}

/* A plant far outside the bounds pins the coefficients at the bounds. */
TEST(ats_coefficients_stay_within_bounds)
{
	double a[3];
	unsigned long upd;
	struct rths_hs_comp_params cp;

	/* Gain 0.2 wants a0 = 5; a0_max is 2. */
	closed_loop(RTHS_HS_COMP_ATS, 0.2, 4, a, &upd);
	TH_LOG("a = %.4f %.5f %.3g after %lu updates", a[0], a[1], a[2], upd);
	EXPECT_GT(upd, 1000);
	rths_hs_comp_defaults(&cp, RTHS_HS_COMP_ATS, DT);
	EXPECT_EQ(cp.a0_max, a[0]);
	EXPECT_LE(a[1], cp.a1_max);
	EXPECT_GE(a[1], cp.a1_min);
	EXPECT_LE(a[2], cp.a2_max);
	EXPECT_GE(a[2], cp.a2_min);
}

TEST(parameters_are_checked)
{
	struct rths_hs_comp_params cp;
	struct rths_error err;
	struct rths_hs_comp *c;

	rths_hs_comp_defaults(&cp, RTHS_HS_COMP_POLYNOMIAL, DT);
	cp.order = 4;
	EXPECT_EQ(-RTHS_E_OUT_OF_RANGE, rths_hs_comp_new(&c, &cp, &err));
	EXPECT_STREQ("order", err.path);
	rths_hs_comp_defaults(&cp, RTHS_HS_COMP_ATS, DT);
	cp.delay = 0.5;	/* outside a1's bounds */
	EXPECT_EQ(-RTHS_E_OUT_OF_RANGE, rths_hs_comp_new(&c, &cp, &err));
	EXPECT_STREQ("a1_bounds", err.path);
	EXPECT_EQ(RTHS_HS_COMP_ATS, rths_hs_comp_from_name("ats"));
	EXPECT_EQ(0, rths_hs_comp_from_name("smith"));
	EXPECT_EQ(0, rths_hs_comp_from_name(NULL));
}

TEST_HARNESS_MAIN
