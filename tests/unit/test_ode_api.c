// SPDX-License-Identifier: GPL-2.0
/*
 * rths_ode API contract: names, messages, argument checking, call order,
 * stepping limits and the counters' bookkeeping.
 */
/* the harness's own definitions trip these */
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include <errno.h>
#include <math.h>
#include <string.h>

#include "kselftest_harness.h"
#include "../ode/problems.h"
#include "ode/ode_impl.h"

static int decay_rhs(double t, const double *y, double *f, void *params)
{
	(void)t;
	(void)params;
	f[0] = -y[0];
	return 0;
}

static const struct rths_ode_system decay = { .dim = 1, .rhs = decay_rhs };

TEST(messages_are_distinct)
{
	const int codes[] = {
		0, -EINVAL, -ENOMEM,
		-RTHS_E_NONFINITE, -RTHS_E_SINGULAR, -RTHS_E_HMIN,
		-RTHS_E_MAXSTEPS, -RTHS_E_INCONSISTENT, -RTHS_E_NO_CONVERGENCE,
		-RTHS_E_ERRTEST, -RTHS_E_CALLBACK, -RTHS_E_METHOD,
		-RTHS_E_TOLERANCE, -RTHS_E_FIXEDSTEP,
	};
	size_t n = sizeof(codes) / sizeof(codes[0]);

	for (size_t i = 0; i < n; i++) {
		const char *m = rths_strerror(codes[i]);

		ASSERT_NE(NULL, m);
		ASSERT_STRNE("unknown error", m);
		for (size_t j = 0; j < i; j++) {
			ASSERT_STRNE(rths_strerror(codes[j]), m);
		}
	}
	ASSERT_STREQ("unknown error", rths_strerror(-1000));
}

TEST(method_names_round_trip)
{
	for (int m = 0; m < RTHS_ODE_METHOD_COUNT; m++) {
		ASSERT_EQ(m, rths_ode_method_from_name(rths_ode_method_name(m)));
	}
	ASSERT_EQ(-EINVAL, rths_ode_method_from_name("euler"));
	ASSERT_EQ(-EINVAL, rths_ode_method_from_name(NULL));
	ASSERT_FALSE(rths_ode_method_is_implicit(RTHS_ODE_RKF45));
	ASSERT_FALSE(rths_ode_method_is_implicit(RTHS_ODE_ABAM));
	ASSERT_TRUE(rths_ode_method_is_implicit(RTHS_ODE_GSTIFF));
	ASSERT_TRUE(rths_ode_method_is_implicit(RTHS_ODE_WSTIFF));
	ASSERT_TRUE(rths_ode_method_is_implicit(RTHS_ODE_DSTIFF));
	ASSERT_TRUE(rths_ode_method_is_implicit(RTHS_ODE_CONSTANT_BDF));
}

TEST(invalid_systems_and_controls)
{
	struct rths_ode_system sys = decay;
	struct rths_ode_control c;
	int err = 0;

	ASSERT_EQ(NULL, rths_ode_new(RTHS_ODE_METHOD_COUNT, &sys, NULL, &err));
	ASSERT_EQ(-EINVAL, err);
	sys.dim = 0;
	ASSERT_EQ(NULL, rths_ode_new(RTHS_ODE_RKF45, &sys, NULL, &err));
	ASSERT_EQ(-EINVAL, err);
	sys = (struct rths_ode_system){ .dim = 1 };
	ASSERT_EQ(NULL, rths_ode_new(RTHS_ODE_DSTIFF, &sys, NULL, &err));
	ASSERT_EQ(-EINVAL, err);

	rths_ode_control_default(&c);
	c.rtol = -1e-6;
	ASSERT_EQ(NULL, rths_ode_new(RTHS_ODE_RKF45, &decay, &c, &err));
	ASSERT_EQ(-RTHS_E_TOLERANCE, err);
	rths_ode_control_default(&c);
	c.atol = NAN;
	ASSERT_EQ(NULL, rths_ode_new(RTHS_ODE_RKF45, &decay, &c, &err));
	ASSERT_EQ(-RTHS_E_NONFINITE, err);
	rths_ode_control_default(&c);
	c.h_min = 1.0;
	c.h_max = 0.5;
	ASSERT_EQ(NULL, rths_ode_new(RTHS_ODE_RKF45, &decay, &c, &err));
	ASSERT_EQ(-EINVAL, err);
	/* BDF orders stop at 6, Adams at 12 */
	rths_ode_control_default(&c);
	c.max_order = 7;
	ASSERT_EQ(NULL, rths_ode_new(RTHS_ODE_GSTIFF, &decay, &c, &err));
	ASSERT_EQ(-EINVAL, err);
	c.max_order = 12;
	struct rths_ode *s = rths_ode_new(RTHS_ODE_ABAM, &decay, &c, &err);

	ASSERT_NE(NULL, s);
	rths_ode_free(s);
	/* the fixed step is CONSTANT_BDF's one required setting */
	rths_ode_control_default(&c);
	ASSERT_EQ(NULL, rths_ode_new(RTHS_ODE_CONSTANT_BDF, &decay, &c, &err));
	ASSERT_EQ(-EINVAL, err);
	/* its error limit is a number of tolerances, infinity allowed */
	ASSERT_EQ(10.0, c.fixed_err_max);
	c.h_init = 0.1;
	c.fixed_err_max = -1;
	ASSERT_EQ(NULL, rths_ode_new(RTHS_ODE_CONSTANT_BDF, &decay, &c, &err));
	ASSERT_EQ(-EINVAL, err);
	c.fixed_err_max = NAN;
	ASSERT_EQ(NULL, rths_ode_new(RTHS_ODE_CONSTANT_BDF, &decay, &c, &err));
	ASSERT_EQ(-EINVAL, err);
	c.fixed_err_max = INFINITY;
	s = rths_ode_new(RTHS_ODE_CONSTANT_BDF, &decay, &c, &err);
	ASSERT_NE(NULL, s);
	rths_ode_free(s);
}

static int dae_res(double t, const double *y, const double *yp, double *r,
		   void *params)
{
	(void)t;
	(void)params;
	r[0] = yp[0] + y[0];
	return 0;
}

TEST(explicit_methods_refuse_daes)
{
	struct rths_ode_system sys = { .dim = 1, .res = dae_res };
	int err = 0;

	ASSERT_EQ(NULL, rths_ode_new(RTHS_ODE_RKF45, &sys, NULL, &err));
	ASSERT_EQ(-RTHS_E_METHOD, err);
	ASSERT_EQ(NULL, rths_ode_new(RTHS_ODE_ABAM, &sys, NULL, &err));
	ASSERT_EQ(-RTHS_E_METHOD, err);
	struct rths_ode *s = rths_ode_new(RTHS_ODE_DSTIFF, &sys, NULL, &err);
	double y0 = 1;

	ASSERT_NE(NULL, s);
	/* a DAE needs y'(t0) */
	ASSERT_EQ(-EINVAL, rths_ode_init(s, 0, &y0, NULL));
	rths_ode_free(s);
}

TEST(call_order_and_bad_state)
{
	double y0 = 1, y, t;
	struct rths_ode *s = rths_ode_new(RTHS_ODE_RKF45, &decay, NULL, NULL);

	ASSERT_NE(NULL, s);
	ASSERT_EQ(-EINVAL, rths_ode_evolve(s, 1, &t, &y));
	ASSERT_EQ(-EINVAL, rths_ode_step(s, 1, &t, &y));
	y0 = NAN;
	ASSERT_EQ(-RTHS_E_NONFINITE, rths_ode_init(s, 0, &y0, NULL));
	ASSERT_EQ(-EINVAL, rths_ode_evolve(s, 1, &t, &y));
	y0 = 1;
	ASSERT_EQ(-RTHS_E_NONFINITE, rths_ode_init(s, INFINITY, &y0, NULL));
	ASSERT_EQ(0, rths_ode_init(s, 0, &y0, NULL));
	ASSERT_EQ(-RTHS_E_NONFINITE, rths_ode_evolve(s, NAN, &t, &y));
	ASSERT_EQ(0, rths_ode_evolve(s, 1, &t, &y));
	ASSERT_EQ(1.0, t);
	/* earlier than the last step: no history kept that far back */
	ASSERT_EQ(-EINVAL, rths_ode_evolve(s, -1, &t, &y));
	rths_ode_free(s);
}

/* y = 0 with atol = 0 leaves nothing to measure the error against. */
TEST(zero_weight_is_a_tolerance_error)
{
	struct rths_ode_control c;
	double y0 = 0;
	struct rths_ode *s;

	rths_ode_control_default(&c);
	c.atol = 0;
	s = rths_ode_new(RTHS_ODE_DSTIFF, &decay, &c, NULL);
	ASSERT_NE(NULL, s);
	ASSERT_EQ(-RTHS_E_TOLERANCE, rths_ode_init(s, 0, &y0, NULL));
	rths_ode_free(s);
}

TEST(steps_stop_at_tlim_and_t_stop)
{
	struct rths_ode_control c;
	double y0 = 1, y, t = 0;

	rths_ode_control_default(&c);
	c.has_t_stop = 1;
	c.t_stop = 0.75;
	for (int m = 0; m < RTHS_ODE_METHOD_COUNT; m++) {
		c.h_init = m == RTHS_ODE_CONSTANT_BDF ? 0.01 : 0;
		struct rths_ode *s = rths_ode_new(m, &decay, &c, NULL);

		ASSERT_NE(NULL, s);
		ASSERT_EQ(0, rths_ode_init(s, 0, &y0, NULL));
		do {
			ASSERT_EQ(0, rths_ode_step(s, 0.5, &t, &y));
			ASSERT_LE(t, 0.5);
		} while (t < 0.5);
		ASSERT_EQ(0.5, t);
		while (t < 0.75) {
			ASSERT_EQ(0, rths_ode_step(s, 10, &t, &y));
		}
		ASSERT_EQ(0.75, t) TH_LOG("%s", rths_ode_method_name(m));
		ASSERT_TRUE(fabs(y - exp(-0.75)) < 1e-4)
			TH_LOG("%s: y %g", rths_ode_method_name(m), y);
		/* beyond t_stop is refused */
		ASSERT_EQ(-EINVAL, rths_ode_evolve(s, 1.0, &t, &y));
		rths_ode_free(s);
	}
}

TEST(max_steps_is_per_evolve_call)
{
	const struct ode_problem *p = &ode_prob_kepler;
	struct rths_ode_stats st;
	double y[4];

	ASSERT_EQ(-RTHS_E_MAXSTEPS,
		  ode_prob_solve(p, RTHS_ODE_RKF45, 1e-6, 0, 7, y, &st));
	ASSERT_EQ(7UL, st.steps);
	ASSERT_TRUE(ode_prob_finite(y, 4));
}

/*
 * Bookkeeping that follows from how each method works: RKF45 spends one
 * f for y'(t0), one for the step estimate, five per attempt and one per
 * accepted step; ABAM two per accepted step and one per rejected one;
 * DASSL one per Newton iteration besides the Jacobians' and the start's.
 */
TEST(counters_add_up)
{
	const struct ode_problem *p = &ode_prob_kepler;
	struct rths_ode_stats st;
	double y[4];

	ASSERT_EQ(0, ode_prob_solve(p, RTHS_ODE_RKF45, 1e-6, 0, 0, y, &st));
	ASSERT_EQ(2UL + 5 * (st.steps + st.err_test_fails) + st.steps,
		  st.f_evals);
	ASSERT_EQ(0UL, st.jac_evals);
	ASSERT_EQ(0UL, st.newton_iters);

	ASSERT_EQ(0, ode_prob_solve(p, RTHS_ODE_ABAM, 1e-6, 0, 0, y, &st));
	ASSERT_EQ(1UL + 2 * st.steps + st.err_test_fails, st.f_evals);
	ASSERT_GE(st.order_max_used, 6);

	for (int m = RTHS_ODE_WSTIFF; m <= RTHS_ODE_DSTIFF; m++) {
		ASSERT_EQ(0, ode_prob_solve(p, m, 1e-6, 0, 0, y, &st));
		ASSERT_EQ(1UL + st.f_evals_jac + st.newton_iters, st.f_evals);
		/* analytic Jacobian: only the initial step estimate */
		ASSERT_EQ(1UL, st.f_evals_jac);
		ASSERT_GE(st.lu_decomps, st.jac_evals);
		ASSERT_GE(st.newton_iters, st.steps);
		ASSERT_LE(st.order_max_used, 5);
	}

	/* Finite differences: n evaluations per Jacobian plus its base. */
	struct ode_problem q = *p;

	q.jac = NULL;
	ASSERT_EQ(0, ode_prob_solve(&q, RTHS_ODE_DSTIFF, 1e-6, 0, 0, y, &st));
	ASSERT_EQ(1UL + (q.dim + 1) * st.jac_evals, st.f_evals_jac);
	ASSERT_EQ(1UL + st.f_evals_jac + st.newton_iters, st.f_evals);
}

/*
 * stats.err_est_max: the largest local error estimate an adaptive method
 * accepted, in tolerances, is positive and at most 1 (the error test's
 * bound); init starts it afresh.
 */
TEST(err_est_max_of_adaptive_methods)
{
	const struct ode_problem *p = &ode_prob_kepler;

	for (int m = 0; m < RTHS_ODE_METHOD_COUNT; m++) {
		struct rths_ode_stats st;
		double y[ODE_PROB_MAXDIM];

		if (m == RTHS_ODE_CONSTANT_BDF)
			continue;
		ASSERT_EQ(0, ode_prob_solve(p, m, 1e-6, 0, 0, y, &st));
		ASSERT_TRUE(st.err_est_max > 0 && st.err_est_max <= 1)
			TH_LOG("%s: %g", rths_ode_method_name(m), st.err_est_max);
	}
}

/*
 * The Jacobian convention: a callback sets d f_i / d y_j as
 * RTHS_MAT(J, i, j) and finds J zeroed; the matrix the corrector gets
 * (-df/dy) equals the one finite differences build, column by column.
 * A non-symmetric A catches any transposition between the two.
 */
static const double lin_a[3][3] = {
	{ -1, 2, 0 },
	{ 0, -3, 5 },
	{ 7, 0, -4 },
};
static int lin_jac_dirty;

static int lin_rhs(double t, const double *y, double *f, void *params)
{
	for (int i = 0; i < 3; i++)
		f[i] = lin_a[i][0] * y[0] + lin_a[i][1] * y[1] +
		       lin_a[i][2] * y[2];
	return 0;
}

static int lin_jac(double t, const double *y, struct rths_mat *J,
		   void *params)
{
	for (int j = 0; j < 3; j++)
		for (int i = 0; i < 3; i++) {
			if (RTHS_MAT(J, i, j) != 0)
				lin_jac_dirty = 1;
			if (lin_a[i][j] != 0)
				RTHS_MAT(J, i, j) = lin_a[i][j];
		}
	return 0;
}

TEST(jacobian_callback_is_column_major)
{
	struct rths_ode_system sys = { .dim = 3, .rhs = lin_rhs,
				       .jac = lin_jac };
	double y0[3] = { 1, -2, 0.5 }, yp[3], a[9], b[9], fd[9];
	struct rths_mat A = { RTHS_MAT_DENSE, 3, 3, 3, a };
	struct rths_mat B = { RTHS_MAT_DENSE, 3, 3, 3, b };
	struct rths_mat F = { RTHS_MAT_DENSE, 3, 3, 3, fd };
	struct rths_ode *s;
	int err, bid;

	for (int pass = 0; pass < 2; pass++) {
		sys.jac = pass ? NULL : lin_jac;
		s = rths_ode_new(RTHS_ODE_GSTIFF, &sys, NULL, &err);
		ASSERT_NE(NULL, s);
		ASSERT_EQ(0, rths_ode_init(s, 0, y0, NULL));
		lin_rhs(0, y0, yp, NULL);
		/* twice: the second call must find J zeroed again */
		for (int k = 0; k < 2; k++)
			ASSERT_EQ(0, ode_jacobian(s, 0, y0, yp, NULL, 1e-3,
						  pass ? &F : &A, &B, &bid));
		EXPECT_EQ(1, bid);
		rths_ode_free(s);
	}
	EXPECT_EQ(0, lin_jac_dirty);
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++) {
			double c = RTHS_MAT(&A, i, j), f = RTHS_MAT(&F, i, j);

			EXPECT_EQ(-lin_a[i][j], c) TH_LOG("(%d, %d)", i, j);
			EXPECT_TRUE(fabs(f - c) < 1e-6) TH_LOG("(%d, %d) fd %g", i, j, f);
		}
}

TEST_HARNESS_MAIN
