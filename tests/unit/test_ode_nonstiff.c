// SPDX-License-Identifier: GPL-2.0
/*
 * Accuracy on non-stiff problems with closed-form solutions: the Kepler
 * orbit (every method, end point and dense output), tolerance
 * proportionality, and the convergence order of the fixed-step BDF.
 */
/* the harness's own definitions trip these */
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include <math.h>

#include "kselftest_harness.h"
#include "../ode/problems.h"

/*
 * Global error over three eccentric orbits grows well beyond the local
 * tolerance (a phase error grows with time); this bounds it for every
 * variable-step method at the tolerances used here.
 */
#define KEPLER_GROWTH 3e4

static const enum rths_ode_method variable_step[] = {
	RTHS_ODE_RKF45, RTHS_ODE_ABAM, RTHS_ODE_GSTIFF, RTHS_ODE_WSTIFF,
	RTHS_ODE_DSTIFF,
};
#define N_VARIABLE (sizeof(variable_step) / sizeof(variable_step[0]))

static double kepler_error(enum rths_ode_method m, double tol,
			   struct rths_ode_stats *st)
{
	const struct ode_problem *p = &ode_prob_kepler;
	double y[4], ref[4];
	int rc = ode_prob_solve(p, m, tol, 0, 0, y, st);

	if (rc)
		return INFINITY;
	p->exact(p->tend, ref);
	return ode_prob_error(p, y, ref);
}

TEST(kepler_every_method_meets_its_tolerance)
{
	for (size_t i = 0; i < N_VARIABLE; i++) {
		enum rths_ode_method m = variable_step[i];

		for (double tol = 1e-5; tol >= 1e-9; tol *= 1e-2) {
			struct rths_ode_stats st;
			double err = kepler_error(m, tol, &st);

			ASSERT_TRUE(err <= KEPLER_GROWTH * tol)
				TH_LOG("%s tol %g: error %g",
				       rths_ode_method_name(m), tol, err);
			ASSERT_GT(st.steps, 10UL);
		}
	}
}

/* Tighter tolerances must buy accuracy: 1e-4 -> 1e-8 gains >= 100x. */
TEST(kepler_error_follows_tolerance)
{
	for (size_t i = 0; i < N_VARIABLE; i++) {
		enum rths_ode_method m = variable_step[i];
		struct rths_ode_stats loose, tight;
		double e1 = kepler_error(m, 1e-4, &loose);
		double e2 = kepler_error(m, 1e-8, &tight);

		ASSERT_TRUE(e2 * 100 <= e1)
			TH_LOG("%s: %g at 1e-4, %g at 1e-8",
			       rths_ode_method_name(m), e1, e2);
		ASSERT_GT(tight.steps, loose.steps);
	}
}

/* The energy -1/(2a) and angular momentum of the orbit are conserved. */
TEST(kepler_invariants)
{
	const struct ode_problem *p = &ode_prob_kepler;
	double y0[4], y[4];

	for (int i = 0; i < 4; i++)
		y0[i] = p->y0[i];
	double e0 = 0.5 * (y0[2] * y0[2] + y0[3] * y0[3]) -
		    1 / hypot(y0[0], y0[1]);
	double l0 = y0[0] * y0[3] - y0[1] * y0[2];

	for (size_t i = 0; i < N_VARIABLE; i++) {
		ASSERT_EQ(0, ode_prob_solve(p, variable_step[i], 1e-9, 0, 0, y,
					    NULL));
		double e = 0.5 * (y[2] * y[2] + y[3] * y[3]) - 1 / hypot(y[0], y[1]);
		double l = y[0] * y[3] - y[1] * y[2];

		ASSERT_TRUE(fabs(e - e0) < 1e-5 && fabs(l - l0) < 1e-5)
			TH_LOG("%s: dE %g dL %g",
			       rths_ode_method_name(variable_step[i]), e - e0,
			       l - l0);
	}
}

/*
 * Dense output: evolve without t_stop to 200 output times, so nearly
 * every output is interpolated inside a step; each must be as accurate
 * as the end point.
 */
TEST(kepler_dense_output)
{
	const struct ode_problem *p = &ode_prob_kepler;
	struct rths_ode_system sys = ode_prob_system(p);
	struct rths_ode_control c;
	const double tol = 1e-8;

	rths_ode_control_default(&c);
	c.rtol = tol;
	c.atol = tol;
	for (size_t i = 0; i < N_VARIABLE; i++) {
		struct rths_ode *s = rths_ode_new(variable_step[i], &sys, &c, NULL);
		double worst = 0, y[4], ref[4], yp[4], t;

		ASSERT_NE(NULL, s);
		ASSERT_EQ(0, rths_ode_init(s, p->t0, p->y0, NULL));
		for (int k = 1; k <= 200; k++) {
			double tout = p->tend * k / 200;

			ASSERT_EQ(0, rths_ode_evolve(s, tout, &t, y));
			ASSERT_EQ(tout, t);
			p->exact(tout, ref);
			worst = fmax(worst, ode_prob_error(p, y, ref));
			/* the derivative of the interpolant is the field */
			ASSERT_EQ(0, rths_ode_interpolate(s, tout, NULL, yp));
			ASSERT_TRUE(fabs(yp[0] - y[2]) < 1e-4 &&
				    fabs(yp[1] - y[3]) < 1e-4)
				TH_LOG("%s t %g", rths_ode_method_name(variable_step[i]),
				       tout);
		}
		ASSERT_TRUE(worst <= KEPLER_GROWTH * tol)
			TH_LOG("%s: worst dense error %g",
			       rths_ode_method_name(variable_step[i]), worst);
		rths_ode_free(s);
	}
}

static int decay_rhs(double t, const double *y, double *f, void *params)
{
	f[0] = -y[0] + cos(t);
	return 0;
}

/* y' = -y + cos t, y(0) = 1: y = (cos t + sin t)/2 + e^{-t}/2 */
static double decay_error(int order, int n)
{
	struct rths_ode_system sys = { .dim = 1, .rhs = decay_rhs };
	struct rths_ode_control c;
	double y0 = 1, y, t, T = 2;
	struct rths_ode *s;

	rths_ode_control_default(&c);
	c.rtol = c.atol = 1e-12;	/* only the warm-up listens, */
	c.fixed_err_max = INFINITY;	/* not the fixed step */
	c.h_init = T / n;
	c.max_order = order;
	c.has_t_stop = 1;
	c.t_stop = T;
	s = rths_ode_new(RTHS_ODE_CONSTANT_BDF, &sys, &c, NULL);
	if (!s || rths_ode_init(s, 0, &y0, NULL) ||
	    rths_ode_evolve(s, T, &t, &y)) {
		rths_ode_free(s);
		return NAN;
	}
	rths_ode_free(s);
	return fabs(y - (0.5 * (cos(T) + sin(T)) + 0.5 * exp(-T)));
}

/* Fixed step of order q: halving h divides the error by about 2^q. */
TEST(constant_bdf_convergence_order)
{
	for (int q = 1; q <= 3; q++) {
		double e1 = decay_error(q, 200), e2 = decay_error(q, 400);
		double rate = log2(e1 / e2);

		ASSERT_TRUE(rate > q - 0.3 && rate < q + 0.5)
			TH_LOG("order %d: errors %g %g, rate %g", q, e1, e2,
			       rate);
	}
}

/*
 * The fixed step is kept once reached: after a warm-up that takes at
 * most max_order + 1 = 6 fixed steps' worth of time (a variable-step
 * start, error-tested, that ends where its step reaches h), every step
 * but the one cut short by t_stop is h, and no estimate exceeds
 * fixed_err_max.  The warm-up used to double its step every q+1 steps
 * untested, which left the stiff chain 1.5e6 tolerances off at a fixed
 * step of a tenth of the span (see test_ode_stiff).
 */
TEST(constant_bdf_keeps_its_step)
{
	const struct ode_problem *p = &ode_prob_kepler;
	struct rths_ode_system sys = ode_prob_system(p);
	struct rths_ode_control c;
	double y[4], ref[4], t = p->t0, h = (p->tend - p->t0) / 4000;
	unsigned long at_h = 0, other = 0;
	double h_first = 0;
	struct rths_ode *s;

	rths_ode_control_default(&c);
	c.h_init = h;
	s = rths_ode_new(RTHS_ODE_CONSTANT_BDF, &sys, &c, NULL);
	ASSERT_NE(NULL, s);
	ASSERT_EQ(0, rths_ode_init(s, p->t0, p->y0, NULL));
	while (t < p->tend) {
		ASSERT_EQ(0, rths_ode_step(s, p->tend, &t, y));
		if (h_first == 0)
			h_first = rths_ode_get_stats(s)->h_last;
		if (fabs(rths_ode_get_stats(s)->h_last - h) <= 1e-12 * h)
			at_h++;
		else
			other++;
	}
	TH_LOG("%lu steps at h, %lu others from %g, %lu rejected, largest estimate %g",
	       at_h, other, h_first, rths_ode_get_stats(s)->err_test_fails,
	       rths_ode_get_stats(s)->err_est_max);
	ASSERT_GE(at_h, 4000UL - 7);
	ASSERT_LE(rths_ode_get_stats(s)->err_est_max, c.fixed_err_max);
	p->exact(p->tend, ref);
	ASSERT_TRUE(ode_prob_error(p, y, ref) < 1e-3)
		TH_LOG("error %g", ode_prob_error(p, y, ref));
	rths_ode_free(s);
}

TEST_HARNESS_MAIN
