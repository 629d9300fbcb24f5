// SPDX-License-Identifier: GPL-2.0
/*
 * ROSENBROCK_W (ROS34PW2): its order on a linear problem with a closed
 * form, L-stability on Prothero-Robinson and a stiff linear system
 * (stiffness ratio 1e6), Robertson and Van der Pol (mu = 1000) adaptive
 * against references, the fixed-step mode's RTHS_E_FIXEDSTEP, the W
 * property (an old or wrong Jacobian keeps order 3), its fixed cost per
 * step, the sparse Jacobian, and the refusal of DAEs.
 */
/* the harness's own definitions trip these */
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include <math.h>

#include "kselftest_harness.h"
#include "../ode/problems.h"

#define RW RTHS_ODE_ROSENBROCK_W

/*
 * y' = A (y - phi(t)) + phi'(t), A = [-2 1; 1 -2] * k (eigenvalues -k
 * along (1, 1) and -3k along (1, -1)), phi = (sin t, cos 2t): with
 * y(0) = phi(0) + (1, -1), y = phi(t) + e^(-3kt) (1, -1).  k is the
 * params (a double).
 */
static void lin_phi(double t, double *phi, double *dphi)
{
	phi[0] = sin(t);
	phi[1] = cos(2 * t);
	dphi[0] = cos(t);
	dphi[1] = -2 * sin(2 * t);
}

static int lin_rhs(double t, const double *y, double *f, void *params)
{
	double k = *(const double *)params, phi[2], dphi[2];
	double d0, d1;

	lin_phi(t, phi, dphi);
	d0 = y[0] - phi[0];
	d1 = y[1] - phi[1];
	f[0] = k * (-2 * d0 + d1) + dphi[0];
	f[1] = k * (d0 - 2 * d1) + dphi[1];
	return 0;
}

static int lin_jac(double t, const double *y, struct rths_mat *J,
		   void *params)
{
	double k = *(const double *)params;

	RTHS_MAT(J, 0, 0) = -2 * k;
	RTHS_MAT(J, 0, 1) = k;
	RTHS_MAT(J, 1, 0) = k;
	RTHS_MAT(J, 1, 1) = -2 * k;
	return 0;
}

static void lin_exact(double k, double t, double *y)
{
	double phi[2], dphi[2], e = exp(-3 * k * t);

	lin_phi(t, phi, dphi);
	y[0] = phi[0] + e;
	y[1] = phi[1] - e;
}

/*
 * Run sys from 0 to tend in fixed steps h (ctl's jac_max_age), return
 * the solver's status; y the end state, st the counters.
 */
static int fixed_run(const struct rths_ode_system *sys, const double *y0,
		     double tend, double h, double tol,
		     unsigned long jac_max_age, double err_max, double *y,
		     struct rths_ode_stats *st)
{
	struct rths_ode_control c;
	struct rths_ode *s;
	double t;
	int rc;

	rths_ode_control_default(&c);
	c.rtol = c.atol = tol;
	c.h_init = h;
	c.jac_max_age = jac_max_age;
	c.fixed_err_max = err_max;
	s = rths_ode_new(RW, sys, &c, &rc);
	if (!s)
		return rc;
	rc = rths_ode_init(s, 0, y0, NULL);
	if (!rc)
		rc = rths_ode_evolve(s, tend, &t, y);
	if (st)
		*st = *rths_ode_get_stats(s);
	rths_ode_free(s);
	return rc;
}

static double lin_error(double k, double tend, const double *y)
{
	double ex[2];

	lin_exact(k, tend, ex);
	return fmax(fabs(y[0] - ex[0]), fabs(y[1] - ex[1]));
}

/* error ratios on halving h approach 2^3 = 8 */
TEST(order_three_on_a_linear_problem)
{
	double k = 1, y0[2], y[2], err[4];
	struct rths_ode_system sys = { .dim = 2, .rhs = lin_rhs,
				       .jac = lin_jac, .params = &k };

	lin_exact(k, 0, y0);
	for (int i = 0; i < 4; i++) {
		double h = 0.2 / (1 << i);

		ASSERT_EQ(0, fixed_run(&sys, y0, 2, h, 1e-6, 0, INFINITY, y,
				       NULL));
		err[i] = lin_error(k, 2, y);
	}
	for (int i = 1; i < 4; i++) {
		double r = err[i - 1] / err[i];

		TH_LOG("h %.4f: error %.3e, ratio %.2f", 0.2 / (1 << i),
		       err[i], r);
		ASSERT_TRUE(r > 6.5 && r < 10) TH_LOG("ratio %g", r);
	}
}

/*
 * Stiffness ratio 1e6: k = 1e6 puts eigenvalues at -1e6 and -3e6 beside
 * phi's time scale of 1.  At h = 0.1 (h lambda = -3e5) the L-stable
 * method damps the transient (1, -1) in one step, R(-inf) = 0, where an
 * A-stable method with |R(-inf)| = 1 (the trapezoidal rule) would carry
 * it to the end.  After that the solution is phi (Prothero-Robinson),
 * which the method follows closely at every step size (2e-9 at h = 0.1,
 * where h lambda is 1e5).
 */
TEST(l_stable_on_a_stiff_linear_system)
{
	double k = 1e6, y0[2], y[2], err[3];
	struct rths_ode_system sys = { .dim = 2, .rhs = lin_rhs,
				       .jac = lin_jac, .params = &k };
	struct rths_ode_stats st;

	lin_exact(k, 0, y0);
	/* one step of 0.1: the transient of size 1 is gone */
	ASSERT_EQ(0, fixed_run(&sys, y0, 0.1, 0.1, 1e-6, 0, INFINITY, y,
			       &st));
	ASSERT_EQ(1UL, st.steps);
	ASSERT_TRUE(lin_error(k, 0.1, y) < 1e-4)
		TH_LOG("after one step: %g", lin_error(k, 0.1, y));
	for (int i = 0; i < 3; i++) {
		double h = 0.1 / (1 << i);

		ASSERT_EQ(0, fixed_run(&sys, y0, 2, h, 1e-6, 0, INFINITY, y,
				       NULL));
		err[i] = lin_error(k, 2, y);
		ASSERT_TRUE(err[i] < 1e-8) TH_LOG("h %g: %g", h, err[i]);
	}
	for (int i = 1; i < 3; i++) {
		TH_LOG("stiff: h %.4f error %.3e ratio %.2f", 0.1 / (1 << i),
		       err[i], err[i - 1] / err[i]);
	}
	/* adaptive: a handful of steps where an explicit method needs
	 * millions */
	struct rths_ode_control c;
	struct rths_ode *s;
	double t;

	rths_ode_control_default(&c);
	c.rtol = c.atol = 1e-6;
	s = rths_ode_new(RW, &sys, &c, NULL);
	ASSERT_NE(NULL, s);
	ASSERT_EQ(0, rths_ode_init(s, 0, y0, NULL));
	ASSERT_EQ(0, rths_ode_evolve(s, 2, &t, y));
	st = *rths_ode_get_stats(s);
	rths_ode_free(s);
	TH_LOG("adaptive: %lu steps, error %.2e", st.steps, lin_error(k, 2, y));
	ASSERT_TRUE(lin_error(k, 2, y) < 1e-5);
	ASSERT_LT(st.steps, 1000UL);
}

/* A reference from DSTIFF and GSTIFF at 1e-10, which must agree. */
static void reference(const struct ode_problem *p, double agree,
		      double *ref, struct __test_metadata *_metadata)
{
	double other[ODE_PROB_MAXDIM];

	ASSERT_EQ(0, ode_prob_solve(p, RTHS_ODE_DSTIFF, 1e-10, 0, 0, ref, NULL));
	ASSERT_EQ(0, ode_prob_solve(p, RTHS_ODE_GSTIFF, 1e-10, 0, 0, other, NULL));
	ASSERT_TRUE(ode_prob_error(p, other, ref) <= agree);
}

/*
 * Adaptive at rtol 1e-6, within the bound the BDF methods are held to
 * (test_ode_stiff.c), the Jacobian by callback and by finite
 * differences; each step costs one Jacobian and one LU.
 */
static void check_adaptive(const struct ode_problem *p, double bound,
			   struct __test_metadata *_metadata)
{
	double ref[ODE_PROB_MAXDIM], y[ODE_PROB_MAXDIM];

	reference(p, 1e-6, ref, _metadata);
	for (int fd = 0; fd < 2; fd++) {
		struct ode_problem q = *p;
		struct rths_ode_stats st;
		double err;

		if (fd)
			q.jac = NULL;
		ASSERT_EQ(0, ode_prob_solve(&q, RW, 1e-6, 0, 0, y, &st));
		err = ode_prob_error(p, y, ref);
		TH_LOG("%s%s: %lu steps, %lu rejected, error %.2e", p->name,
		       fd ? " (FD Jacobian)" : "", st.steps,
		       st.err_test_fails, err);
		ASSERT_TRUE(err <= bound) TH_LOG("error %g", err);
		ASSERT_TRUE(st.err_est_max > 0 && st.err_est_max <= 1);
		ASSERT_EQ(0UL, st.newton_iters);
		ASSERT_LE(st.lu_decomps, st.steps + st.err_test_fails +
					  st.conv_fails);
		ASSERT_LE(st.jac_evals, st.steps + st.err_test_fails +
					st.conv_fails);
	}
}

TEST(robertson_adaptive)
{
	const struct ode_problem *p = &ode_prob_robertson;
	double y[3];

	check_adaptive(p, 30e-6, _metadata);
	ASSERT_EQ(0, ode_prob_solve(p, RW, 1e-6, 0, 0, y, NULL));
	/* the total concentration is a linear invariant, which a
	 * Rosenbrock method keeps exactly */
	ASSERT_TRUE(fabs(y[0] + y[1] + y[2] - 1) < 1e-12)
		TH_LOG("sum %.15g", y[0] + y[1] + y[2]);
}

TEST(van_der_pol_mu_1000_adaptive)
{
	check_adaptive(&ode_prob_vdp, 300e-6, _metadata);
}

/*
 * Fixed steps: a step too large for the tolerances stops the run with
 * RTHS_E_FIXEDSTEP, the state left at the last good step; a small one
 * passes within the tolerances' bound.  Van der Pol's relaxation
 * outruns a step of 1/64 s after the warm-up (error-tested steps up to
 * the fixed one) has taken it past its first transient.
 */
TEST(fixed_step_too_large_fails)
{
	double k = 1, y0[2], y[2];
	struct rths_ode_system sys = { .dim = 2, .rhs = lin_rhs,
				       .jac = lin_jac, .params = &k };
	const struct ode_problem *p = &ode_prob_vdp;
	struct rths_ode_stats st;
	double yv[2];

	lin_exact(k, 0, y0);
	ASSERT_EQ(-RTHS_E_FIXEDSTEP,
		  fixed_run(&sys, y0, 2, 0.25, 1e-6, 0, 10, y, &st));
	ASSERT_EQ(0, fixed_run(&sys, y0, 2, 0.005, 1e-6, 0, 10, y, &st));
	ASSERT_TRUE(st.err_est_max > 0 && st.err_est_max <= 10);
	ASSERT_TRUE(lin_error(k, 2, y) < 10e-6)
		TH_LOG("error %g", lin_error(k, 2, y));

	ASSERT_EQ(-RTHS_E_FIXEDSTEP,
		  ode_prob_solve(p, RW, 1e-6, 1.0 / 64, 0, yv, &st));
	TH_LOG("vdp at h = 1/64: %lu steps, largest estimate %.2f",
	       st.steps, st.err_est_max);
	ASSERT_TRUE(st.steps > 0 && ode_prob_finite(yv, 2));
	ASSERT_TRUE(st.err_est_max <= 10);
}

/*
 * y1' = -2 t y1^2 (y1 = 1 / (1 + t^2)), y2' = y2 (1 - y2) (logistic),
 * nonlinear and non-autonomous.  The Jacobian callback is the exact one
 * (params NULL) or a wrong one (params non-NULL: scaled by 3, plus an
 * off-diagonal 1).
 */
static int nl_rhs(double t, const double *y, double *f, void *params)
{
	f[0] = -2 * t * y[0] * y[0];
	f[1] = y[1] * (1 - y[1]);
	return 0;
}

static int nl_jac(double t, const double *y, struct rths_mat *J,
		  void *params)
{
	double s = params ? 3 : 1;

	RTHS_MAT(J, 0, 0) = s * -4 * t * y[0];
	RTHS_MAT(J, 1, 1) = s * (1 - 2 * y[1]);
	if (params)
		RTHS_MAT(J, 0, 1) = 1;
	return 0;
}

static double nl_error(double t, const double *y)
{
	double y1 = 1 / (1 + t * t), y2 = 1 / (1 + 9 * exp(-t));

	return fmax(fabs(y[0] - y1), fabs(y[1] - y2));
}

/*
 * The W property: the order stays 3 with a Jacobian frozen at t = 0
 * (jac_max_age beyond the run: one Jacobian, one LU for the whole run)
 * and with a wrong one, where a classical Rosenbrock method drops to
 * order 1 or 2.
 */
TEST(w_method_keeps_order_with_inexact_jacobian)
{
	static int wrong;
	const double y0[2] = { 1, 0.1 };

	for (int mode = 0; mode < 3; mode++) {
		struct rths_ode_system sys = {
			.dim = 2, .rhs = nl_rhs, .jac = nl_jac,
			.params = mode == 2 ? &wrong : NULL,
		};
		unsigned long age = mode == 1 ? 1000000 : 0;
		double err[4], y[2];

		for (int i = 0; i < 4; i++) {
			struct rths_ode_stats st;
			double h = 0.1 / (1 << i);

			ASSERT_EQ(0, fixed_run(&sys, y0, 3, h, 1e-6, age,
					       INFINITY, y, &st));
			err[i] = nl_error(3, y);
			if (mode == 1) {
				ASSERT_EQ(1UL, st.jac_evals);
				ASSERT_EQ(1UL, st.lu_decomps);
			} else {
				ASSERT_EQ(st.steps, st.jac_evals);
			}
		}
		for (int i = 1; i < 4; i++) {
			double r = err[i - 1] / err[i];

			TH_LOG("%s Jacobian: h %.4f error %.3e ratio %.2f",
			       mode == 0 ? "fresh" : mode == 1 ? "frozen" :
			       "wrong", 0.1 / (1 << i), err[i], r);
			/* 11.1, 9.7, 8.9 frozen; 6.1, 6.9, 7.4 wrong */
			if (i > 1)
				ASSERT_TRUE(r > 6.5 && r < 10.5)
					TH_LOG("ratio %g", r);
		}
	}
}

/*
 * Fixed cost per step: 3 f evaluations for the stages and 1 at the new
 * point, plus a Jacobian (by callback, and 1 f for f_t) and one LU per
 * step; FD Jacobians add n evaluations.  No Newton iterations.
 */
TEST(fixed_cost_per_step)
{
	double k = 1, y0[2], y[2];
	struct rths_ode_system sys = { .dim = 2, .rhs = lin_rhs,
				       .jac = lin_jac, .params = &k };
	struct rths_ode_stats st;

	lin_exact(k, 0, y0);
	ASSERT_EQ(0, fixed_run(&sys, y0, 1, 0.01, 1e-6, 0, INFINITY, y, &st));
	ASSERT_EQ(100UL, st.steps);
	ASSERT_EQ(st.steps, st.jac_evals);
	ASSERT_EQ(st.steps, st.lu_decomps);
	ASSERT_EQ(0UL, st.newton_iters);
	/* y'(t0), then 3 + 1 per step and f_t per Jacobian */
	ASSERT_EQ(1 + 4 * st.steps + st.jac_evals, st.f_evals);
	ASSERT_EQ(st.jac_evals, st.f_evals_jac);
	sys.jac = NULL;
	ASSERT_EQ(0, fixed_run(&sys, y0, 1, 0.01, 1e-6, 0, INFINITY, y, &st));
	ASSERT_EQ(1 + 4 * st.steps + 3 * st.jac_evals, st.f_evals);
	ASSERT_TRUE(lin_error(k, 1, y) < 1e-6);
}

/* The chain with its Jacobian sparse (KLU) gives the dense answer. */
static int chain_sparse_jac(double t, const double *y, struct rths_csc *J,
			    void *params)
{
	double A[16] = { 0 };
	struct rths_mat D = { RTHS_MAT_DENSE, 4, 4, 4, A };

	ode_prob_chain.jac(t, y, &D, params);
	for (size_t j = 0; j < 4; j++)
		for (size_t k = J->colptr[j]; k < J->colptr[j + 1]; k++)
			J->values[k] = A[j * 4 + J->rowind[k]];
	return 0;
}

TEST(sparse_jacobian)
{
	static const size_t colptr[5] = { 0, 4, 8, 12, 16 };
	static const size_t rowind[16] = { 0, 1, 2, 3, 0, 1, 2, 3,
					   0, 1, 2, 3, 0, 1, 2, 3 };
	const struct ode_problem *p = &ode_prob_chain;
	struct rths_ode_system sys = ode_prob_system(p);
	double yd[4], ys[4], atol[4], ref[4], t;
	struct rths_ode_control c;
	struct rths_ode *s;

	ASSERT_EQ(0, p->exact(p->tend, ref));
	ASSERT_EQ(0, ode_prob_solve(p, RW, 1e-6, 0, 0, yd, NULL));
	ASSERT_TRUE(ode_prob_error(p, yd, ref) <= 30e-6)
		TH_LOG("chain: error %g", ode_prob_error(p, yd, ref));
	ode_prob_control(&c, RW, 1e-6, p->scale, p->dim, p->tend, 0, 0, atol);
	s = rths_ode_new(RW, &sys, &c, NULL);
	ASSERT_NE(NULL, s);
	ASSERT_EQ(0, rths_ode_set_sparse_jac(s, colptr, rowind,
					     chain_sparse_jac,
					     RTHS_ODE_LINEAR_SPARSE));
	ASSERT_EQ(0, rths_ode_init(s, p->t0, p->y0, NULL));
	ASSERT_EQ(0, rths_ode_evolve(s, p->tend, &t, ys));
	rths_ode_free(s);
	ASSERT_TRUE(ode_prob_error(p, ys, yd) < 1e-9)
		TH_LOG("sparse vs dense %g", ode_prob_error(p, ys, yd));
}

/* DAEs, the mechanical forms among them, are refused up front. */
TEST(daes_are_refused)
{
	struct rths_ode_system dae = { .dim = 3, .res = ode_rober_dae_res };
	struct rths_ode_mech mech = ode_pendulum_mech(&ode_pendulum);
	enum rths_ode_mech_form forms[] = { RTHS_ODE_MECH_I3,
					    RTHS_ODE_MECH_SI2 };
	int err = 0;

	ASSERT_EQ(NULL, rths_ode_new(RW, &dae, NULL, &err));
	ASSERT_EQ(-RTHS_E_UNSUPPORTED, err);
	for (int i = 0; i < 2; i++) {
		struct rths_ode_mech_dae *d = NULL;

		ASSERT_EQ(0, rths_ode_mech_dae_new(&mech, forms[i], &d));
		err = 0;
		ASSERT_EQ(NULL, rths_ode_new(RW, rths_ode_mech_dae_system(d),
					     NULL, &err));
		ASSERT_EQ(-RTHS_E_UNSUPPORTED, err)
			TH_LOG("%s", rths_ode_mech_form_name(forms[i]));
		rths_ode_mech_dae_free(d);
	}
	ASSERT_STREQ("rosenbrock_w", rths_ode_method_name(RW));
	ASSERT_EQ(RW, rths_ode_method_from_name("rosenbrock_w"));
	ASSERT_FALSE(rths_ode_method_is_implicit(RW));
}

TEST_HARNESS_MAIN
