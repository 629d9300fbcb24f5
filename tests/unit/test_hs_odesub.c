// SPDX-License-Identifier: GPL-2.0
/*
 * ODE numerical substructures: the stiff 2-DOF chain of the multibody
 * notes against its matrix exponential (exact for a held or a linearly
 * interpolated interface input), the nonlinear viscous damper against
 * its rigid-brace law, the work caps, the refusal of uncapped adaptive
 * methods on a device backend, and the staggered coupling in the hybrid
 * loop against the monolithic model.
 */
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_odeiv2.h>
#include <jansson.h>

#include "kselftest_harness.h"

#include <rths/hs.h>
#include <rths/hs_odesub.h>

#define DT (1.0 / 1024)
#define NW 3		/* interface input: u_b, v_b, a_g */

/* The notes' chain in SI units: N/mm -> 1e3 N/m. */
static const double chain_m[2] = { 1.0, 1.0 };
static const double chain_k[2] = { 10.0e3, 1e6 * 1e3 };
static const double chain_c[2] = { 0.1e3, 1e5 * 1e3 };

/*
 * y(t0 + h) of y' = A y + B w(t), w(t) = w0 + (t - t0) wd, exactly: the
 * exponential of the augmented matrix [A B 0; 0 0 I; 0 0 0] (GSL's
 * scaling and squaring) applied to (y0, w0, wd).
 */
static int aug_expm(size_t n, const double *A, const double *B, double h,
		    const double *y0, const double *w0, const double *wd,
		    double *y1)
{
	size_t N = n + 2 * NW;
	gsl_matrix *M = gsl_matrix_calloc(N, N), *E = gsl_matrix_alloc(N, N);
	double z[16];
	int r;

	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < n; j++)
			gsl_matrix_set(M, i, j, A[i * n + j] * h);
		for (size_t j = 0; j < NW; j++)
			gsl_matrix_set(M, i, n + j, B[i * NW + j] * h);
	}
	for (size_t j = 0; j < NW; j++)
		gsl_matrix_set(M, n + j, n + NW + j, h);
	for (size_t i = 0; i < n; i++)
		z[i] = y0[i];
	for (size_t j = 0; j < NW; j++) {
		z[n + j] = w0[j];
		z[n + NW + j] = wd[j];
	}
	r = gsl_linalg_exponential_ss(M, E, GSL_PREC_DOUBLE);
	for (size_t i = 0; r == 0 && i < n; i++) {
		y1[i] = 0;
		for (size_t j = 0; j < N; j++)
			y1[i] += gsl_matrix_get(E, i, j) * z[j];
	}
	gsl_matrix_free(M);
	gsl_matrix_free(E);
	return r;
}

/* The chain as y' = A y + B (u_b, v_b, a_g), row-major. */
static void chain_system(double A[16], double B[12])
{
	const double *m = chain_m, *k = chain_k, *c = chain_c;

	memset(A, 0, 16 * sizeof(double));
	memset(B, 0, 12 * sizeof(double));
	A[0 * 4 + 2] = 1;
	A[1 * 4 + 3] = 1;
	A[2 * 4 + 0] = -(k[0] + k[1]) / m[0];
	A[2 * 4 + 1] = k[1] / m[0];
	A[2 * 4 + 2] = -(c[0] + c[1]) / m[0];
	A[2 * 4 + 3] = c[1] / m[0];
	A[3 * 4 + 0] = k[1] / m[1];
	A[3 * 4 + 1] = -k[1] / m[1];
	A[3 * 4 + 2] = c[1] / m[1];
	A[3 * 4 + 3] = -c[1] / m[1];
	B[2 * NW + 0] = k[0] / m[0];
	B[2 * NW + 1] = c[0] / m[0];
	B[2 * NW + 2] = -1;
	B[3 * NW + 2] = -1;
}

/* The interface's motion and the ground's. */
static double u_at(double t)
{
	return 0.01 * sin(2 * M_PI * 3 * t) + 0.002 * sin(2 * M_PI * 40 * t);
}

static double ag_at(double t)
{
	return 2.0 * sin(2 * M_PI * 5 * t);
}

/* The exact step of an affine system under the held or linear input. */
static int exact_step(size_t n, const double *A, const double *B,
		      enum rths_hs_odesub_input in, double u0, double u1,
		      double ag0, double ag1, const double *y0, double *y1)
{
	double vb = (u1 - u0) / DT;
	double w0[NW] = { u1, vb, ag1 }, wd[NW] = { 0, 0, 0 };

	if (in == RTHS_HS_ODESUB_LINEAR) {
		w0[0] = u0;
		w0[2] = ag0;
		wd[0] = vb;
		wd[2] = (ag1 - ag0) / DT;
	}
	return aug_expm(n, A, B, DT, y0, w0, wd, y1);
}

struct chain_run {
	double err;	/* largest |y - y_exact| / peak, over components */
	double force_err;	/* largest force error / peak force */
	double hold_vs_linear;	/* the two exact inputs' difference */
	struct rths_hs_odesub_work w;
};

static int run_chain(enum rths_ode_method meth, enum rths_hs_odesub_input in,
		     size_t steps, struct chain_run *out)
{
	double A[16], B[12], y_ex[4] = { 0 }, y_other[4] = { 0 };
	double peak[4] = { 0 };
	double u0 = 0, ag0 = 0, fpeak = 0, ferr = 0, err[4] = { 0 }, dmax = 0;
	struct rths_ode_control ctl;
	struct rths_hs_odesub *s;
	struct rths_error e;
	enum rths_hs_odesub_input other = in == RTHS_HS_ODESUB_HOLD ?
		RTHS_HS_ODESUB_LINEAR : RTHS_HS_ODESUB_HOLD;
	int r;

	chain_system(A, B);
	rths_ode_control_default(&ctl);
	ctl.rtol = 1e-9;
	ctl.atol = 1e-13;
	if (meth == RTHS_ODE_CONSTANT_BDF) {
		ctl.h_init = DT / 32;
		ctl.fixed_err_max = INFINITY;
	}
	r = rths_hs_odesub_new_chain(&s, 0, 2, chain_m, chain_k, chain_c, &e);
	if (r == 0)
		r = rths_hs_odesub_set_method(s, meth, &ctl, &e);
	if (r < 0)
		return r;
	rths_hs_odesub_set_input(s, in);
	r = rths_hs_odesub_start(s, 0, &u0, NULL, ag0, steps, &e);
	for (size_t n = 1; r == 0 && n <= steps; n++) {
		double t = (double)n * DT, u1 = u_at(t), ag1 = ag_at(t);
		double rr = 0, y1[4], yo[4], vb = (u1 - u0) / DT, fex;
		const double *y;

		r = rths_hs_odesub_step(s, t, &u1, ag1, &rr, &e);
		if (r == 0)
			r = exact_step(4, A, B, in, u0, u1, ag0, ag1, y_ex, y1);
		if (r == 0)
			r = exact_step(4, A, B, other, u0, u1, ag0, ag1,
				       y_other, yo);
		if (r < 0)
			break;
		y = rths_hs_odesub_state(s);
		for (int i = 0; i < 4; i++) {
			err[i] = fmax(err[i], fabs(y[i] - y1[i]));
			peak[i] = fmax(peak[i], fabs(y1[i]));
			dmax = fmax(dmax, fabs(yo[i] - y1[i]) /
					  fmax(peak[i], 1e-300));
		}
		/* the force on the DOF, and its restoring sign */
		fex = chain_k[0] * (y1[0] - u1) + chain_c[0] * (y1[2] - vb);
		ferr = fmax(ferr, fabs(rths_hs_odesub_force(s) - fex));
		fpeak = fmax(fpeak, fabs(fex));
		if (rr != -rths_hs_odesub_force(s))
			r = -1;
		memcpy(y_ex, y1, sizeof(y1));
		memcpy(y_other, yo, sizeof(yo));
		u0 = u1;
		ag0 = ag1;
	}
	out->err = 0;
	for (int i = 0; i < 4; i++)
		out->err = fmax(out->err, err[i] / peak[i]);
	out->force_err = ferr / fpeak;
	out->hold_vs_linear = dmax;
	if (r == 0)
		r = rths_hs_odesub_work(s, &out->w, &e);
	rths_hs_odesub_free(s);
	return r;
}

/*
 * 400 hybrid steps of the substructure against the exact trajectory
 * under the same input (global errors).  rtol 1e-9: the adaptive BDFs
 * (and ROSENBROCK_W)
 * stay within 1e-6 of each component's peak (4e-8 measured), and so
 * does constant_bdf at dt/32 (the fast mode far beyond its step, damped
 * by BDF's stiff decay; 5e-8 measured).  The held and the linear input differ by far more (the check
 * that the choice is honoured: an error below a hundredth of it).
 */
TEST(chain_matches_matrix_exponential)
{
	static const struct {
		enum rths_ode_method m;
		double tol;
	} cases[] = {
		{ RTHS_ODE_GSTIFF, 1e-6 },
		{ RTHS_ODE_WSTIFF, 1e-6 },
		{ RTHS_ODE_DSTIFF, 1e-6 },
		{ RTHS_ODE_CONSTANT_BDF, 1e-6 },
		{ RTHS_ODE_ROSENBROCK_W, 1e-6 },
	};
	enum rths_hs_odesub_input ins[] = { RTHS_HS_ODESUB_HOLD,
					    RTHS_HS_ODESUB_LINEAR };

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		for (int k = 0; k < 2; k++) {
			struct chain_run cr;

			ASSERT_EQ(0, run_chain(cases[i].m, ins[k], 400, &cr));
			TH_LOG("%s %s: error %.2e of the peak, force %.2e, hold vs linear %.2e; f-evals p50 %.0f max %.0f",
			       rths_ode_method_name(cases[i].m),
			       k ? "linear" : "hold", cr.err, cr.force_err,
			       cr.hold_vs_linear, cr.w.f_evals.p50,
			       cr.w.f_evals.max);
			EXPECT_LT(cr.err, cases[i].tol);
			EXPECT_LT(cr.force_err, 10 * cases[i].tol);
			EXPECT_LT(100 * cr.err, cr.hold_vs_linear);
			EXPECT_EQ(400, cr.w.hybrid_steps);
			EXPECT_LE(cr.w.f_evals.p50, cr.w.f_evals.p99);
			EXPECT_LE(cr.w.f_evals.p99, cr.w.f_evals.max);
			EXPECT_GT(cr.w.f_evals.p50, 0);
			EXPECT_GT(cr.w.compute.max, 0);
		}
}

/* alpha = 1: a linear Maxwell element, s' = (k_b / c)(u_b - s). */
TEST(linear_damper_matches_exponential)
{
	const double c = 2e4, kb = 2e6;
	double A[1] = { -kb / c }, B[NW] = { kb / c, 0, 0 };
	enum rths_hs_odesub_input ins[] = { RTHS_HS_ODESUB_HOLD,
					    RTHS_HS_ODESUB_LINEAR };

	for (int k = 0; k < 2; k++) {
		double s_ex = 0, u0 = 0, err = 0, peak = 0;
		struct rths_ode_control ctl;
		struct rths_hs_odesub *s;
		struct rths_error e;

		rths_ode_control_default(&ctl);
		ctl.rtol = 1e-10;
		ctl.atol = 1e-14;
		ASSERT_EQ(0, rths_hs_odesub_new_damper(&s, 0, -1, c, 1.0, kb,
						       &e));
		ASSERT_EQ(0, rths_hs_odesub_set_method(s, RTHS_ODE_WSTIFF,
						       &ctl, &e));
		rths_hs_odesub_set_input(s, ins[k]);
		ASSERT_EQ(0, rths_hs_odesub_start(s, 0, &u0, NULL, 0, 300,
						  &e));
		for (int n = 1; n <= 300; n++) {
			double t = n * DT, u1 = u_at(t), r = 0, s1;

			ASSERT_EQ(0, rths_hs_odesub_step(s, t, &u1, 0, &r, &e));
			ASSERT_EQ(0, exact_step(1, A, B, ins[k], u0, u1, 0, 0,
						&s_ex, &s1));
			err = fmax(err, fabs(rths_hs_odesub_state(s)[0] - s1));
			peak = fmax(peak, fabs(s1));
			/* restoring: +F on DOF i */
			EXPECT_EQ(r, rths_hs_odesub_force(s));
			EXPECT_LT(fabs(r - kb * (u1 - s1)),
				  1e-6 * kb * 0.012);
			s_ex = s1;
			u0 = u1;
		}
		TH_LOG("%s: stroke error %.2e of the peak",
		       k ? "linear" : "hold", err / peak);
		EXPECT_LT(err / peak, 1e-7);
		rths_hs_odesub_free(s);
	}
}

/*
 * An ODE substructure is checked as every substructure is
 * (rths_hs_substructure_check_input): a displacement or a ground
 * acceleration that is not finite is refused before anything moves, and
 * the next good step gives what it would have given.
 */
TEST(odesub_refuses_what_is_not_finite)
{
	const double bad[] = { NAN, INFINITY, -INFINITY };
	struct rths_hs_odesub *s, *ref;
	struct rths_ode_control ctl;
	struct rths_error e;
	double u0 = 0, u1 = 1e-3, r = 0, rr = 0;

	rths_ode_control_default(&ctl);
	ASSERT_EQ(0, rths_hs_odesub_new_damper(&s, 0, -1, 2e4, 1.0, 2e6, &e));
	ASSERT_EQ(0, rths_hs_odesub_new_damper(&ref, 0, -1, 2e4, 1.0, 2e6,
					       &e));
	ASSERT_EQ(0, rths_hs_odesub_set_method(s, RTHS_ODE_WSTIFF, &ctl, &e));
	ASSERT_EQ(0, rths_hs_odesub_set_method(ref, RTHS_ODE_WSTIFF, &ctl,
					       &e));
	ASSERT_EQ(0, rths_hs_odesub_start(s, 0, &u0, NULL, 0, 10, &e));
	ASSERT_EQ(0, rths_hs_odesub_start(ref, 0, &u0, NULL, 0, 10, &e));
	for (size_t i = 0; i < 3; i++) {
		double u = bad[i];

		EXPECT_EQ(-RTHS_E_DIVERGED,
			  rths_hs_odesub_step(s, DT, &u, 0, &r, &e));
		EXPECT_NE(NULL, strstr(e.msg, "displacement 0 is"));
		EXPECT_NE(NULL, strstr(e.msg, "not a finite number"));
		EXPECT_EQ(-RTHS_E_DIVERGED,
			  rths_hs_odesub_step(s, DT, &u1, bad[i], &r, &e));
		EXPECT_NE(NULL, strstr(e.msg, "acceleration 0 is"));
	}
	EXPECT_EQ(0, r);
	ASSERT_EQ(0, rths_hs_odesub_step(s, DT, &u1, 0, &r, &e));
	ASSERT_EQ(0, rths_hs_odesub_step(ref, DT, &u1, 0, &rr, &e));
	EXPECT_EQ(rr, r);
	EXPECT_EQ(rths_hs_odesub_state(ref)[0], rths_hs_odesub_state(s)[0]);
	rths_hs_odesub_free(s);
	rths_hs_odesub_free(ref);
}

/*
 * rths_hs_odesub_step_vel(): under HOLD it is rths_hs_odesub_step()
 * to the bit; under LINEAR with the velocities of a linear motion (the
 * mean velocity at both ends) the cubic is that line, so it matches
 * rths_hs_odesub_step() to the solver's tolerance; a velocity that is
 * not finite is refused before anything moves, naming it.
 */
TEST(step_vel_falls_back_and_checks_velocities)
{
	enum rths_hs_odesub_input ins[] = { RTHS_HS_ODESUB_HOLD,
					    RTHS_HS_ODESUB_LINEAR };

	for (int k = 0; k < 2; k++) {
		struct rths_hs_odesub *s, *ref;
		struct rths_ode_control ctl;
		struct rths_error e;
		double u0 = 0, dev = 0, peak = 0, bad = NAN;

		rths_ode_control_default(&ctl);
		ctl.rtol = 1e-10;
		ctl.atol = 1e-14;
		ASSERT_EQ(0, rths_hs_odesub_new_chain(&s, 0, 2, chain_m,
						      chain_k, chain_c, &e));
		ASSERT_EQ(0, rths_hs_odesub_new_chain(&ref, 0, 2, chain_m,
						      chain_k, chain_c, &e));
		ASSERT_EQ(0, rths_hs_odesub_set_method(s, RTHS_ODE_GSTIFF,
						       &ctl, &e));
		ASSERT_EQ(0, rths_hs_odesub_set_method(ref, RTHS_ODE_GSTIFF,
						       &ctl, &e));
		rths_hs_odesub_set_input(s, ins[k]);
		rths_hs_odesub_set_input(ref, ins[k]);
		ASSERT_EQ(0, rths_hs_odesub_start(s, 0, &u0, NULL, 0, 50, &e));
		ASSERT_EQ(0, rths_hs_odesub_start(ref, 0, &u0, NULL, 0, 50,
						  &e));
		for (int n = 1; n <= 50; n++) {
			double t = n * DT, u1 = u_at(t), ag = ag_at(t);
			double vb = (u1 - u0) / DT, r = 0, rr = 0;

			if (n == 1) {
				EXPECT_EQ(-RTHS_E_DIVERGED,
					  rths_hs_odesub_step_vel(s, t, &u1,
								  &bad, &vb,
								  ag, &r, &e));
				EXPECT_NE(NULL, strstr(e.msg, "velocity 0 is nan"));
				EXPECT_EQ(-RTHS_E_DIVERGED,
					  rths_hs_odesub_step_vel(s, t, &u1,
								  NULL, &bad,
								  ag, &r, &e));
				EXPECT_EQ(0, r);
			}
			ASSERT_EQ(0, rths_hs_odesub_step_vel(s, t, &u1, &vb,
							     &vb, ag, &r, &e));
			ASSERT_EQ(0, rths_hs_odesub_step(ref, t, &u1, ag, &rr,
							 &e));
			if (ins[k] == RTHS_HS_ODESUB_HOLD)
				EXPECT_EQ(rr, r);
			dev = fmax(dev, fabs(r - rr));
			peak = fmax(peak, fabs(rr));
			u0 = u1;
		}
		TH_LOG("%s: force difference %.2e of the peak",
		       k ? "linear" : "hold", dev / peak);
		EXPECT_LT(dev, 1e-6 * peak);
		rths_hs_odesub_free(s);
		rths_hs_odesub_free(ref);
	}
}

/* The one check itself: DOF count first, then each value in order. */
TEST(substructure_check_input)
{
	double u[2] = { 1, 2 }, v[2] = { 0, NAN }, a[2] = { INFINITY, 0 };
	double t = 0.5, tn = -INFINITY;
	struct rths_error e;

	EXPECT_EQ(0, rths_hs_substructure_check_input(2, 2, u, NULL, NULL,
						      NULL, &e));
	EXPECT_EQ(0, rths_hs_substructure_check_input(2, 2, u, u, u, &t, &e));
	EXPECT_EQ(-RTHS_E_BAD_SHAPE,
		  rths_hs_substructure_check_input(1, 2, u, v, a, &tn, &e));
	EXPECT_STREQ("1 DOF, the substructure has 2", e.msg);
	EXPECT_EQ(-RTHS_E_DIVERGED,
		  rths_hs_substructure_check_input(2, 2, u, v, a, &tn, &e));
	EXPECT_STREQ("velocity 1 is nan: not a finite number", e.msg);
	EXPECT_EQ(-RTHS_E_DIVERGED,
		  rths_hs_substructure_check_input(2, 2, u, NULL, a, &tn, &e));
	EXPECT_STREQ("acceleration 0 is inf: not a finite number", e.msg);
	EXPECT_EQ(-RTHS_E_DIVERGED,
		  rths_hs_substructure_check_input(2, 2, u, NULL, NULL, &tn,
						   &e));
	EXPECT_STREQ("time is -inf: not a finite number", e.msg);
	EXPECT_EQ(-RTHS_E_DIVERGED,
		  rths_hs_substructure_check_input(2, 2, a, NULL, NULL, NULL,
						   &e));
	EXPECT_STREQ("displacement 0 is inf: not a finite number", e.msg);
}

/*
 * alpha = 0.35 on a nearly rigid brace: with the linearly interpolated
 * input the stroke rate is the command's, and the force is the damper's
 * law F = c |v|^alpha sign(v) (the brace's relaxation time is below
 * 30 us at the velocities compared, a thirtieth of the step).  It
 * dissipates: the work done on it over a cycle is positive.
 */
TEST(nonlinear_damper_follows_its_law)
{
	const double c = 2e4, alpha = 0.35, kb = 1e9, vmax = 0.01 * 2 * M_PI * 3;
	double u0 = 0, worst = 0, work = 0, f0 = 0;
	struct rths_ode_control ctl;
	struct rths_hs_odesub *s;
	struct rths_error e;
	size_t compared = 0;

	rths_ode_control_default(&ctl);
	ctl.rtol = 1e-8;
	ctl.atol = 1e-13;
	ASSERT_EQ(0, rths_hs_odesub_new_damper(&s, 1, 0, c, alpha, kb, &e));
	ASSERT_EQ(0, rths_hs_odesub_set_method(s, RTHS_ODE_GSTIFF, &ctl, &e));
	rths_hs_odesub_set_input(s, RTHS_HS_ODESUB_LINEAR);
	{
		double u[2] = { 0, 0 };

		ASSERT_EQ(0, rths_hs_odesub_start(s, 0, u, NULL, 0, 400, &e));
	}
	for (int n = 1; n <= 400; n++) {
		double t = n * DT, u1 = 0.01 * sin(2 * M_PI * 3 * t);
		double u[2] = { 0.5 * u1, 1.5 * u1 }, r[2] = { 0, 0 };
		double vb = (u1 - u0) / DT, f, law;

		ASSERT_EQ(0, rths_hs_odesub_step(s, t, u, 0, r, &e));
		f = rths_hs_odesub_force(s);
		/* between DOF 1 (+F) and DOF 0 (-F) */
		EXPECT_EQ(r[1], f);
		EXPECT_EQ(r[0], -f);
		law = c * pow(fabs(vb), alpha) * (vb < 0 ? -1 : 1);
		if (fabs(vb) > 0.3 * vmax && n > 5) {
			worst = fmax(worst, fabs(f / law - 1));
			compared++;
		}
		work += 0.5 * (f + f0) * (u1 - u0);
		f0 = f;
		u0 = u1;
	}
	TH_LOG("%zu steps compared, worst relative force error %.2e, work %.3g J",
	       compared, worst, work);
	EXPECT_GT(compared, 200);
	EXPECT_LT(worst, 2e-3);
	EXPECT_GT(work, 0);
	rths_hs_odesub_free(s);
}

/*
 * The cap: RKF45 on the stiff chain needs thousands of steps per hybrid
 * step; capped at 50, the first step ends with RTHS_E_TOO_SLOW naming
 * the cap.  GSTIFF under a cap of 400 f-evals runs and its worst step
 * stays within it.
 */
TEST(cap_stops_an_unbounded_step)
{
	struct rths_hs_odesub *s;
	struct rths_hs_odesub_work w;
	struct rths_error e = { 0 };
	double u0 = 0, u1 = 1e-3, r = 0;

	ASSERT_EQ(0, rths_hs_odesub_new_chain(&s, 0, 2, chain_m, chain_k,
					      chain_c, &e));
	ASSERT_EQ(0, rths_hs_odesub_set_method(s, RTHS_ODE_RKF45, NULL, &e));
	EXPECT_FALSE(rths_hs_odesub_bounded(s));
	rths_hs_odesub_set_cap(s, 50, 0);
	EXPECT_TRUE(rths_hs_odesub_bounded(s));
	ASSERT_EQ(0, rths_hs_odesub_start(s, 0, &u0, NULL, 0, 10, &e));
	EXPECT_EQ(-RTHS_E_TOO_SLOW, rths_hs_odesub_step(s, DT, &u1, 0, &r, &e));
	EXPECT_STREQ("max_steps", e.path);
	EXPECT_NE(NULL, strstr(e.msg, "cap"));
	EXPECT_EQ(0, r);
	rths_hs_odesub_free(s);

	ASSERT_EQ(0, rths_hs_odesub_new_chain(&s, 0, 2, chain_m, chain_k,
					      chain_c, &e));
	ASSERT_EQ(0, rths_hs_odesub_set_method(s, RTHS_ODE_GSTIFF, NULL, &e));
	rths_hs_odesub_set_cap(s, 0, 400);
	ASSERT_EQ(0, rths_hs_odesub_start(s, 0, &u0, NULL, 0, 100, &e));
	for (int n = 1; n <= 100; n++) {
		double t = n * DT, u = u_at(t);

		r = 0;
		ASSERT_EQ(0, rths_hs_odesub_step(s, t, &u, ag_at(t), &r, &e));
	}
	ASSERT_EQ(0, rths_hs_odesub_work(s, &w, &e));
	EXPECT_EQ(100, w.hybrid_steps);
	EXPECT_LE(w.f_evals.max, 400);
	EXPECT_GT(w.f_evals.max, 0);
	rths_hs_odesub_free(s);
}

static int fake_start(void *priv, struct rths_error *err)
{
	(*(int *)priv)++;
	return 0;
}

static int fake_post(void *priv, uint64_t step, const double *target,
		     struct rths_error *err)
{
	return rths_error_set(err, EIO, NULL, 0, NULL, "no device here");
}

static int fake_hold(void *priv, struct rths_error *err)
{
	return 0;
}

/*
 * The loop refuses an uncapped adaptive substructure on a real-time
 * backend (anything but "offline") before it starts the backend, and
 * runs it once capped (here a backend that refuses every command: the
 * run ends at its first post, after the substructure's start).
 */
TEST(loop_refuses_uncapped_on_a_device)
{
	static const struct rths_hs_backend_ops ops = {
		.name = "device", .start = fake_start, .post = fake_post,
		.hold = fake_hold, .stop = fake_hold,
	};
	double m[2] = { 1000, 1000 }, k[2] = { 1.19e6, 1e6 }, ks = 1e6;
	struct rths_hs_substructure sub;
	struct rths_hs_synth_params sp;
	struct rths_hs_setup setup;
	struct rths_hs_model model;
	struct rths_hs_gm gm;
	struct rths_hs_sim_config cfg;
	struct rths_hs_history h;
	struct rths_hs_run_result res;
	struct rths_hs_odesub *s;
	struct rths_error e = { 0 };
	int started = 0;
	struct rths_hs_backend b = {
		.ops = &ops, .priv = &started, .channels = 1, .rate = 1024,
		.step_ticks = 1,
	};

	ASSERT_EQ(0, rths_hs_model_shear_building(&model, 2, m, k, &e));
	ASSERT_EQ(0, rths_hs_substructure_init(&sub, 2, 1, &e));
	sub.cmd_map[0] = 1;
	rths_hs_substructure_force_map_transpose(&sub);
	ASSERT_EQ(0, rths_hs_setup_direct(&setup, 1, &e));
	rths_hs_synth_defaults(&sp);
	sp.duration = 1;
	sp.dt = 0.01;
	ASSERT_EQ(0, rths_hs_gm_synthetic(&gm, &sp, &e));
	ASSERT_EQ(0, rths_hs_odesub_new_chain(&s, 1, 2, chain_m, chain_k,
					      chain_c, &e));
	memset(&cfg, 0, sizeof(cfg));
	cfg.model = &model;
	cfg.sub = &sub;
	cfg.setup = &setup;
	cfg.backend = &b;
	cfg.k_if = &ks;
	cfg.gm = &gm;
	rths_hs_stepper_defaults(&cfg.integrator, RTHS_HS_CR, DT);
	EXPECT_EQ(-RTHS_E_UNSUPPORTED,
		  rths_hs_sim_run_odesubs(&cfg, &s, 1, &h, &res, &e));
	EXPECT_STREQ("method", e.path);
	EXPECT_NE(NULL, strstr(e.msg, "device"));
	EXPECT_EQ(0, started);
	rths_hs_odesub_set_cap(s, 0, 1000);
	/* capped: it starts, and fails at the backend's first post */
	EXPECT_EQ(-EIO, rths_hs_sim_run_odesubs(&cfg, &s, 1, &h, &res, &e));
	EXPECT_EQ(1, started);
	EXPECT_TRUE(res.held);
	rths_hs_history_free(&h);
	rths_hs_odesub_free(s);
	rths_hs_gm_free(&gm);
	rths_hs_substructure_free(&sub);
	rths_hs_model_free(&model);
}

/* The device example with ode_substructures[0] = @sub (JSON text). */
static int parse_with(const char *sub, struct rths_hs_experiment **x,
		      struct rths_error *e)
{
	char path[512], *text;
	json_t *root, *arr;
	json_error_t je;
	int r;

	snprintf(path, sizeof(path), "%s/two-story-frame-sim.json",
		 RTHS_HS_EXAMPLES);
	root = json_load_file(path, 0, &je);
	arr = json_loads(sub, JSON_DECODE_ANY, &je);
	if (!root || !arr)
		return -1;
	json_object_set_new(root, "ode_substructures", json_pack("[o]", arr));
	text = json_dumps(root, JSON_INDENT(2));
	json_decref(root);
	r = rths_hs_experiment_parse(text, "frame-ode.json", RTHS_HS_EXAMPLES,
				     x, e);
	free(text);
	return r;
}

/* An adaptive method on a device backend: refused unless capped. */
TEST(device_refuses_uncapped_adaptive_methods)
{
	static const struct {
		const char *json;
		int code;
		const char *path;
	} cases[] = {
		{ "{\"type\": \"chain\", \"dof\": 1, \"masses\": [1, 1], \"stiffness\": [1e4, 1e9], \"damping\": [100, 1e8]}",
		  -RTHS_E_UNSUPPORTED, "ode_substructures[0].method" },
		{ "{\"type\": \"chain\", \"dof\": 1, \"masses\": [1, 1], \"stiffness\": [1e4, 1e9], \"method\": \"rkf45\"}",
		  -RTHS_E_UNSUPPORTED, "ode_substructures[0].method" },
		{ "{\"type\": \"chain\", \"dof\": 1, \"masses\": [1, 1], \"stiffness\": [1e4, 1e9], \"max_steps\": 50}",
		  0, NULL },
		{ "{\"type\": \"chain\", \"dof\": 1, \"masses\": [1, 1], \"stiffness\": [1e4, 1e9], \"method\": \"rosenbrock_w\", \"max_steps\": 50}",
		  0, NULL },
		{ "{\"type\": \"chain\", \"dof\": 1, \"masses\": [1, 1], \"stiffness\": [1e4, 1e9], \"method\": \"rosenbrock_w\"}",
		  -RTHS_E_UNSUPPORTED, "ode_substructures[0].method" },
		{ "{\"type\": \"chain\", \"dof\": 1, \"masses\": [1, 1], \"stiffness\": [1e4, 1e9], \"method\": \"dstiff\", \"max_f_evals\": 500}",
		  0, NULL },
		{ "{\"type\": \"viscous_damper\", \"dofs\": [1, 0], \"damping\": 2e4, \"exponent\": 0.5, \"brace_stiffness\": 2e6, \"method\": \"constant_bdf\", \"step\": 2.44140625e-4}",
		  0, NULL },
		{ "{\"type\": \"viscous_damper\", \"dofs\": [1], \"damping\": 2e4, \"brace_stiffness\": 2e6, \"method\": \"constant_bdf\"}",
		  -RTHS_E_MISSING_FIELD, "ode_substructures[0].step" },
		{ "{\"type\": \"chain\", \"dof\": 2, \"masses\": [1], \"stiffness\": [1e4], \"max_steps\": 5}",
		  -RTHS_E_OUT_OF_RANGE, "ode_substructures[0].dof" },
		{ "{\"type\": \"chain\", \"dof\": 1, \"masses\": [1], \"stiffness\": [1e4], \"exponent\": 1, \"max_steps\": 5}",
		  -RTHS_E_UNKNOWN_FIELD, "ode_substructures[0].exponent" },
		{ "{\"type\": \"viscous_damper\", \"dofs\": [1, 1], \"damping\": 2e4, \"brace_stiffness\": 2e6, \"max_steps\": 5}",
		  -RTHS_E_BAD_DOF, "ode_substructures[0].dofs" },
		{ "{\"type\": \"chain\", \"dof\": 1, \"masses\": [1, 2], \"stiffness\": [1e4], \"max_steps\": 5}",
		  -RTHS_E_BAD_SHAPE, "ode_substructures[0].stiffness" },
#define PENDULUM "\"type\": \"multibody\", \"dof\": 1, \"bodies\": [{\"mass\": 40, \"inertia\": 0.05, \"position\": [0, -0.5]}], \"springs\": [{\"bodies\": [-1, 0], \"points\": [[-1, -0.5], [0, 0]], \"damping\": 50}], "
		{ "{" PENDULUM "\"joints\": [{\"type\": \"revolute\", \"bodies\": [-1, 0], \"points\": [[0, 0], [0, 0.5]]}], \"form\": \"si1\", \"max_steps\": 100}",
		  0, NULL },
		{ "{" PENDULUM "\"joints\": [{\"type\": \"revolute\", \"bodies\": [-1, 0], \"points\": [[0, 0], [0, 0.5]]}], \"method\": \"abam\", \"max_steps\": 100}",
		  -RTHS_E_UNSUPPORTED, "ode_substructures[0].method" },
		{ "{" PENDULUM "\"joints\": [{\"type\": \"revolute\", \"bodies\": [-1, 0], \"points\": [[0, 0], [0, 0.5]]}], \"method\": \"rosenbrock_w\", \"max_steps\": 100}",
		  -RTHS_E_UNSUPPORTED, "ode_substructures[0].method" },
		{ "{" PENDULUM "\"joints\": [{\"type\": \"revolute\", \"bodies\": [-1, 0], \"points\": [[0, 0], [0, 0.5]]}], \"input\": \"hold\", \"max_steps\": 100}",
		  -RTHS_E_UNSUPPORTED, "ode_substructures[0].input" },
		{ "{" PENDULUM "\"joints\": [{\"type\": \"revolute\", \"bodies\": [0, 0]}], \"max_steps\": 100}",
		  -RTHS_E_BAD_DOF, "ode_substructures[0].joints[0].bodies" },
		{ "{" PENDULUM "\"joints\": [{\"type\": \"prismatic\", \"bodies\": [-1, 0]}], \"max_steps\": 100}",
		  -RTHS_E_MISSING_FIELD, "ode_substructures[0].joints[0].axis" },
		/* a revolute joint whose points do not meet at rest */
		{ "{" PENDULUM "\"joints\": [{\"type\": \"revolute\", \"bodies\": [-1, 0], \"points\": [[0, 0], [0, 0.4]]}], \"max_steps\": 100}",
		  -RTHS_E_CONFLICT, "ode_substructures[0].joints[0].points" },
		/* a second body tied to nothing */
		{ "{\"type\": \"multibody\", \"dof\": 1, \"bodies\": [{\"mass\": 40, \"inertia\": 0.05, \"position\": [0, -0.5]}, {\"mass\": 1, \"inertia\": 0.01, \"position\": [1, 0]}], \"joints\": [{\"type\": \"revolute\", \"bodies\": [-1, 0], \"points\": [[0, 0], [0, 0.5]]}], \"max_steps\": 100}",
		  -RTHS_E_CONFLICT, "ode_substructures[0].bodies[1]" },
		/* no joint, hung by a spring: a valid mechanism */
		{ "{" PENDULUM "\"max_steps\": 100}", 0, NULL },
#define DAMPER_CBDF "\"type\": \"viscous_damper\", \"dofs\": [1, 0], \"damping\": 2e4, \"exponent\": 0.5, \"brace_stiffness\": 2e6, \"method\": \"constant_bdf\", "
		/* dt is 7.8125 ms: a step of 1 ns would hang the loop */
		{ "{" DAMPER_CBDF "\"step\": 1e-9}",
		  -RTHS_E_OUT_OF_RANGE, "ode_substructures[0].step" },
		/* a step longer than dt is not cut short silently */
		{ "{" DAMPER_CBDF "\"step\": 0.01}",
		  -RTHS_E_OUT_OF_RANGE, "ode_substructures[0].step" },
		/* 32 steps a hybrid step, over max_steps */
		{ "{" DAMPER_CBDF "\"step\": 2.44140625e-4, \"max_steps\": 16}",
		  -RTHS_E_OUT_OF_RANGE, "ode_substructures[0].step" },
		{ "{" DAMPER_CBDF "\"step\": 7.8125e-3, \"max_steps\": 1}", 0, NULL },
#undef DAMPER_CBDF
#undef PENDULUM
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rths_hs_experiment *x = NULL;
		struct rths_error e = { 0 };
		int r = parse_with(cases[i].json, &x, &e);

		TH_LOG("case %zu: %d %s: %s", i, r, e.path, e.msg);
		EXPECT_EQ(cases[i].code, r);
		if (cases[i].path) {
			EXPECT_STREQ(cases[i].path, e.path);
			EXPECT_STREQ("frame-ode.json", e.file);
		} else {
			ASSERT_NE(NULL, x);
			EXPECT_EQ(1, x->n_odesubs);
			EXPECT_TRUE(rths_hs_odesub_bounded(x->odesubs[0]));
		}
		rths_hs_experiment_free(x);
	}
}

/*
 * The two-story frame (5 % Rayleigh damping), the monolithic three-DOF
 * model with a tuned mass (@tm: mass, stiffness, dashpot) as its third
 * floor, and @dur s of the default synthetic record.
 */
static int tuned_frame(struct rths_hs_model *frame, struct rths_hs_model *mono,
		       struct rths_hs_gm *gm, double dur, double tm[3])
{
	const double mt = 50, ft = 2.9, zt = 0.08;
	const double kt = mt * pow(2 * M_PI * ft, 2);
	const double ct = 2 * zt * mt * 2 * M_PI * ft;
	double m3[3] = { 1000, 1000, mt }, k3[3] = { 1.19e6, 1.0e6, kt };
	double w[2], a0, a1;
	struct rths_hs_synth_params sp;
	struct rths_error e;
	int r;

	tm[0] = mt;
	tm[1] = kt;
	tm[2] = ct;
	r = rths_hs_model_shear_building(frame, 2, m3, k3, &e);
	if (r == 0)
		r = rths_hs_model_frequencies(frame, NULL, w, NULL, &e);
	if (r < 0)
		return r;
	rths_hs_rayleigh_coefficients(w[0], w[1], 0.05, 0.05, &a0, &a1);
	rths_hs_model_set_rayleigh(frame, a0, a1);
	r = rths_hs_model_shear_building(mono, 3, m3, k3, &e);
	if (r < 0)
		return r;
	/* the frame's damping, and the tuned mass's dashpot */
	memset(mono->c, 0, 9 * sizeof(double));
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 2; j++)
			mono->c[j * 3 + i] = frame->c[j * 2 + i];
	mono->c[1 * 3 + 1] += ct;
	mono->c[2 * 3 + 2] += ct;
	mono->c[1 * 3 + 2] -= ct;
	mono->c[2 * 3 + 1] -= ct;
	rths_hs_synth_defaults(&sp);
	sp.duration = dur;
	sp.dt = 0.01;
	return rths_hs_gm_synthetic(gm, &sp, &e);
}

/*
 * The coupling in the loop: a soft chain (a 50 kg tuned mass on the
 * roof) run as an ODE substructure beside the two-story frame, against
 * the monolithic three-DOF model (the tuned mass as a third floor) under
 * the same integrator and step.  The staggered coupling lags the chain's
 * force by up to one step: the roof's RMS difference stays within 0.2 %
 * of its RMS (0.03 % measured), a hundredth of what the tuned mass
 * changes (47 %).
 */
TEST(coupled_chain_matches_monolithic_model)
{
	double tm[3], d_rms = 0, ref_rms = 0, bare_rms = 0;
	struct rths_hs_model frame, mono;
	struct rths_hs_gm gm;
	struct rths_hs_sim_config cfg;
	struct rths_hs_history h, hm, hb;
	struct rths_hs_run_result res;
	struct rths_hs_odesub *s;
	struct rths_error e;

	ASSERT_EQ(0, tuned_frame(&frame, &mono, &gm, 6, tm));
	ASSERT_EQ(0, rths_hs_odesub_new_chain(&s, 1, 1, &tm[0], &tm[1], &tm[2],
					      &e));
	rths_hs_odesub_set_input(s, RTHS_HS_ODESUB_LINEAR);

	memset(&cfg, 0, sizeof(cfg));
	cfg.gm = &gm;
	rths_hs_stepper_defaults(&cfg.integrator, RTHS_HS_CR, DT);
	cfg.model = &frame;
	ASSERT_EQ(0, rths_hs_sim_run_odesubs(&cfg, &s, 1, &h, &res, &e));
	cfg.model = &mono;
	ASSERT_EQ(0, rths_hs_sim_run(&cfg, &hm, &res, &e));
	cfg.model = &frame;
	ASSERT_EQ(0, rths_hs_sim_run(&cfg, &hb, &res, &e));
	ASSERT_EQ(h.rows, hm.rows);
	for (size_t k = 0; k < h.rows; k++) {
		double roof = h.u[k * 2 + 1], ref = hm.u[k * 3 + 1];

		d_rms += (roof - ref) * (roof - ref);
		ref_rms += ref * ref;
		bare_rms += (hb.u[k * 2 + 1] - ref) * (hb.u[k * 2 + 1] - ref);
		/* the chain's state is the monolithic third floor's */
	}
	d_rms = sqrt(d_rms / ref_rms);
	bare_rms = sqrt(bare_rms / ref_rms);
	TH_LOG("roof: coupled vs monolithic RMS %.3f %%, without the tuned mass %.3f %%",
	       100 * d_rms, 100 * bare_rms);
	EXPECT_LT(d_rms, 0.002);
	EXPECT_LT(100 * d_rms, bare_rms);
	EXPECT_LT(fabs(rths_hs_odesub_state(s)[0] - hm.u[(hm.rows - 1) * 3 + 2]),
		  0.02 * sqrt(ref_rms / (double)hm.rows) + 1e-6);
	rths_hs_history_free(&h);
	rths_hs_history_free(&hm);
	rths_hs_history_free(&hb);
	rths_hs_odesub_free(s);
	rths_hs_gm_free(&gm);
	rths_hs_model_free(&frame);
	rths_hs_model_free(&mono);
}

/*
 * The pendulum: a body (mass m, inertia I about its centre) hung at
 * distance L below the base by a revolute joint, with a spring k and a
 * dashpot c (its rest length d) from a base point d to the left of its
 * rest position.  In reduced coordinates (the angle phi; the base moves
 * at v_b, a_g drives):
 *   (m L^2 + I) phi'' = -m g L sin phi - m a_g L cos phi + Q_damper
 * and at a step's start, when v_b jumps, p = (m L^2 + I) phi'
 * + m L cos(phi) v_b is kept (the pin's impulse does no work on phi).
 */
struct pend {
	double m, inertia, l, k, c, d;
};

/* A long, untuned pendulum with a dashpot alone. */
static const struct pend test_pend = {
	.m = 40.0, .inertia = 0.5, .l = 0.5, .k = 0, .c = 60.0, .d = 1.0,
};

#define PDT (1.0 / 256)

struct pend_in {
	const struct pend *p;
	double ag0, ag1, t0;
};

/* The spring-dashpot's tension *f and its direction e, base to bob. */
static void pend_damper(const struct pend *p, double phi, double om,
			double *f, double e[2])
{
	double L = p->l, d[2] = { p->d + L * sin(phi), L - L * cos(phi) };
	double l = hypot(d[0], d[1]);

	e[0] = d[0] / l;
	e[1] = d[1] / l;
	*f = p->k * (l - p->d) +
	     p->c * (e[0] * L * cos(phi) * om + e[1] * L * sin(phi) * om);
}

static double pend_alpha(double t, double phi, double om,
			 const struct pend_in *in)
{
	const struct pend *p = in->p;
	double ag = in->ag0 + (t - in->t0) / PDT * (in->ag1 - in->ag0);
	double f, e[2], q, L = p->l;

	pend_damper(p, phi, om, &f, e);
	q = -f * (e[0] * L * cos(phi) + e[1] * L * sin(phi));
	return (-p->m * RTHS_HS_G * L * sin(phi) - p->m * ag * L * cos(phi) +
		q) / (p->m * L * L + p->inertia);
}

static int pend_rhs(double t, const double y[], double f[], void *params)
{
	f[0] = y[1];
	f[1] = pend_alpha(t, y[0], y[1], params);
	return GSL_SUCCESS;
}

static int pend_new(struct rths_hs_odesub **s, int dof,
		    const struct pend *pd, enum rths_ode_mech_form form,
		    struct rths_error *e)
{
	struct rths_hs_mb_body body = { .mass = pd->m, .inertia = pd->inertia,
					.x = 0, .y = -pd->l, .angle = 0 };
	struct rths_hs_mb_joint pin = {
		.kind = RTHS_HS_MB_REVOLUTE, .body_a = -1, .body_b = 0,
		.pa = { 0, 0 }, .pb = { 0, pd->l },
	};
	struct rths_hs_mb_spring dash = {
		.body_a = -1, .body_b = 0, .pa = { -pd->d, -pd->l },
		.pb = { 0, 0 }, .k = pd->k, .c = pd->c, .length = -1,
	};
	struct rths_hs_mb_params p = {
		.n_bodies = 1, .n_joints = 1, .n_springs = 1, .bodies = &body,
		.joints = &pin, .springs = &dash, .gravity = RTHS_HS_G,
		.form = form,
	};

	return rths_hs_odesub_new_multibody(s, dof, &p, e);
}

/*
 * The pendulum under a prescribed base motion (linear over each step,
 * 2 s at 256 Hz) in I3, SI2 and SI1 (GSTIFF, rtol = atol = 1e-10)
 * against the reduced model integrated by GSL's rk8pd to 1e-12: the
 * angle within 1e-6 rad (2e-9 to 8e-8 measured), the force on the base
 * within 1e-6 of its peak (1e-3 in I3, whose multipliers are out of the
 * error test: 3e-4 measured); positions on the constraints within
 * 1e-10 m, velocities within 1e-9 m/s (I3: 1e-6, it does not enforce
 * them); the energy balance closes within 1e-5 of the largest energy.
 */
TEST(pendulum_matches_reduced_model)
{
	enum rths_ode_mech_form forms[] = { RTHS_ODE_MECH_I3,
					    RTHS_ODE_MECH_SI2,
					    RTHS_ODE_MECH_SI1 };

	for (int fi = 0; fi < 3; fi++) {
		const struct pend *p = &test_pend;
		const double PM = p->m, PL = p->l, PI_ = p->inertia;
		struct pend_in in = { .p = p };
		gsl_odeiv2_system sys = { pend_rhs, NULL, 2, &in };
		gsl_odeiv2_driver *drv = gsl_odeiv2_driver_alloc_y_new(
			&sys, gsl_odeiv2_step_rk8pd, 1e-5, 1e-12, 1e-12);
		double y[2] = { 0, 0 }, u0 = 0, vb0 = 0, ag0 = 0, t = 0;
		double err_phi = 0, err_f = 0, fpeak = 0, phipeak = 0;
		struct rths_ode_control ctl;
		struct rths_hs_odesub *s;
		struct rths_hs_odesub_work w;
		struct rths_error e = { 0 };

		rths_ode_control_default(&ctl);
		ctl.rtol = ctl.atol = 1e-10;
		ASSERT_EQ(0, pend_new(&s, 0, p, forms[fi], &e));
		ASSERT_EQ(0, rths_hs_odesub_set_method(s, RTHS_ODE_GSTIFF, &ctl,
						       &e));
		ASSERT_EQ(0, rths_hs_odesub_start(s, 0, &u0, NULL, 0, 512, &e));
		for (int n = 1; n <= 512; n++) {
			double t1 = n * PDT, r = 0, fref, alpha, dom, imp;
			double u1 = 0.02 * sin(2 * M_PI * 0.8 * t1);
			double ag1 = 1.5 * sin(2 * M_PI * 1.1 * t1);
			double vb = (u1 - u0) / PDT;

			ASSERT_EQ(0, rths_hs_odesub_step(s, t1, &u1, ag1, &r, &e))
				TH_LOG("step %d: %s: %s", n, e.path, e.msg);
			/* reference: the jump of v_b, then the smooth step;
			 * the x-momentum the jump gives, spread over the step,
			 * joins the force at its end */
			dom = -PM * PL * cos(y[0]) * (vb - vb0) /
			      (PM * PL * PL + PI_);
			y[1] += dom;
			imp = PM * (vb - vb0 + PL * cos(y[0]) * dom);
			in.ag0 = ag0;
			in.ag1 = ag1;
			in.t0 = t;
			gsl_odeiv2_driver_reset(drv);
			ASSERT_EQ(GSL_SUCCESS,
				  gsl_odeiv2_driver_apply(drv, &t, t1, y));
			alpha = pend_alpha(t1, y[0], y[1], &in);
			fref = -PM * (PL * (cos(y[0]) * alpha -
					    sin(y[0]) * y[1] * y[1]) + ag1) -
			       imp / PDT;
			err_phi = fmax(err_phi, fabs(rths_hs_odesub_mb_q(s)[2] -
						     y[0]));
			phipeak = fmax(phipeak, fabs(y[0]));
			err_f = fmax(err_f, fabs(rths_hs_odesub_force(s) - fref));
			fpeak = fmax(fpeak, fabs(fref));
			EXPECT_EQ(r, -rths_hs_odesub_force(s));
			u0 = u1;
			vb0 = vb;
			ag0 = ag1;
		}
		ASSERT_EQ(0, rths_hs_odesub_work(s, &w, &e));
		TH_LOG("%s: angle error %.2e rad (peak %.3f), force %.2e of %.1f N, drift %.1e m %.1e m/s, energy balance %.2e of %.3g J, f-evals p99 %.0f",
		       rths_ode_mech_form_name(forms[fi]), err_phi, phipeak,
		       err_f / fpeak, fpeak, w.drift_pos, w.drift_vel,
		       w.energy_error, w.energy_max, w.f_evals.p99);
		EXPECT_LT(err_phi, 1e-6);
		EXPECT_GT(phipeak, 0.1);
		EXPECT_LT(w.drift_pos, 1e-10);
		EXPECT_LT(w.energy_error, 1e-5 * w.energy_max);
		if (forms[fi] == RTHS_ODE_MECH_I3) {
			/* velocities and multipliers out of the error test */
			EXPECT_LT(err_f, 1e-3 * fpeak);
			EXPECT_LT(w.drift_vel, 1e-6);
		} else {
			EXPECT_LT(err_f, 1e-6 * fpeak);
			EXPECT_LT(w.drift_vel, 1e-9);
		}
		rths_hs_odesub_free(s);
		gsl_odeiv2_driver_free(drv);
	}
}

/* The frame (2 DOF) with the pendulum on its roof, reduced: y = (u1, u2,
 * phi, v1, v2, phi'). */
struct tmd_frame {
	const struct rths_hs_model *frame;
	const struct rths_hs_gm *gm;
	const struct pend *p;
};

static int tmd_rhs(double t, const double y[], double f[], void *params)
{
	const struct tmd_frame *tf = params;
	const struct rths_hs_model *m = tf->frame;
	const struct pend *p = tf->p;
	const double PM = p->m, PL = p->l, PI_ = p->inertia;
	double ag = rths_hs_gm_at(tf->gm, t), phi = y[2], om = y[5];
	double A[9] = { 0 }, b[3], cs = cos(phi), sn = sin(phi), fd, e[2];
	gsl_matrix_view Av = gsl_matrix_view_array(A, 3, 3);
	gsl_vector_view bv = gsl_vector_view_array(b, 3);
	gsl_permutation *pm = gsl_permutation_alloc(3);
	int sgn;

	pend_damper(p, phi, om, &fd, e);
	for (int i = 0; i < 2; i++) {
		b[i] = -m->m[i * 2 + i] * ag;
		for (int j = 0; j < 2; j++)
			b[i] -= m->c[j * 2 + i] * y[3 + j] +
				m->k[j * 2 + i] * y[j];
		A[i * 3 + i] = m->m[i * 2 + i];
	}
	/* the bob's inertia on the roof, the roof's on the bob */
	A[1 * 3 + 1] += PM;
	A[1 * 3 + 2] = PM * PL * cs;
	b[1] += -PM * ag + PM * PL * sn * om * om;
	A[2 * 3 + 1] = PM * PL * cs;
	A[2 * 3 + 2] = PM * PL * PL + PI_;
	b[2] = -PM * RTHS_HS_G * PL * sn - PM * ag * PL * cs -
	       fd * (e[0] * PL * cs + e[1] * PL * sn);
	gsl_linalg_LU_decomp(&Av.matrix, pm, &sgn);
	gsl_linalg_LU_svx(&Av.matrix, pm, &bv.vector);
	gsl_permutation_free(pm);
	for (int i = 0; i < 3; i++) {
		f[i] = y[3 + i];
		f[3 + i] = b[i];
	}
	return GSL_SUCCESS;
}

/* A run of @m under @gm by CR at steps of @dt, all numerical. */
static void cr_config(struct rths_hs_sim_config *cfg,
		      const struct rths_hs_gm *gm,
		      const struct rths_hs_model *m, double dt)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->gm = gm;
	cfg->model = m;
	rths_hs_stepper_defaults(&cfg->integrator, RTHS_HS_CR, dt);
}

/* The loop's error against the reduced model, RMS over the run relative
 * to the reference's RMS. */
struct tmd_errors {
	double roof;	/* roof displacement */
	double bare;	/* the frame without the pendulum */
	double phi;	/* the pendulum's angle */
};

/*
 * The velocity of DOF @i at row @k of @h as the loop gives it to the ODE
 * substructures: the backward difference of the commands (third order,
 * lower on the first steps).
 */
static double command_velocity(const struct rths_hs_history *h, size_t k,
			       size_t i)
{
	size_t n = h->n_dof;
	const double *u = h->u;
	double dt = h->t[1] - h->t[0];

	if (k >= 3)
		return (11 * u[k * n + i] - 18 * u[(k - 1) * n + i] +
			9 * u[(k - 2) * n + i] - 2 * u[(k - 3) * n + i]) /
		       (6 * dt);
	if (k == 2)
		return (3 * u[k * n + i] - 4 * u[(k - 1) * n + i] +
			u[(k - 2) * n + i]) / (2 * dt);
	return (u[k * n + i] - u[(k - 1) * n + i]) / dt;
}

/*
 * Pendulum @p on the roof of the two-story frame in the hybrid loop (CR
 * at 1/1024 s, the pendulum in SI2 by GSTIFF at rtol = atol = 1e-10,
 * 6 s of the default synthetic record) against the reduced
 * three-coordinate model (first floor, roof, angle) solved by GSL's
 * rk8pd to 1e-10; the errors printed and in @err.
 */
static void pend_on_frame(struct __test_metadata *_metadata,
			  const char *what, const struct pend *p,
			  struct tmd_errors *err)
{
	double m2[2] = { 1000, 1000 }, k2[2] = { 1.19e6, 1.0e6 };
	double w[2], a0, a1, y[6] = { 0 }, t = 0;
	double d_roof = 0, ref_roof = 0, d_phi = 0, ref_phi = 0, bare = 0;
	struct rths_hs_model frame;
	struct rths_hs_synth_params sp;
	struct rths_hs_gm gm;
	struct rths_hs_sim_config cfg;
	struct rths_hs_history h, hb;
	struct rths_hs_run_result res;
	struct rths_ode_control ctl;
	struct rths_hs_odesub *s;
	struct rths_hs_odesub_work wk;
	struct rths_error e;
	struct tmd_frame tf = { &frame, &gm, p };
	gsl_odeiv2_system sys = { tmd_rhs, NULL, 6, &tf };
	gsl_odeiv2_driver *drv;
	double *phi_hist;

	ASSERT_EQ(0, rths_hs_model_shear_building(&frame, 2, m2, k2, &e));
	ASSERT_EQ(0, rths_hs_model_frequencies(&frame, NULL, w, NULL, &e));
	rths_hs_rayleigh_coefficients(w[0], w[1], 0.05, 0.05, &a0, &a1);
	rths_hs_model_set_rayleigh(&frame, a0, a1);
	rths_hs_synth_defaults(&sp);
	sp.duration = 6;
	sp.dt = 0.01;
	ASSERT_EQ(0, rths_hs_gm_synthetic(&gm, &sp, &e));
	/* the pendulum hung from the roof, DOF 1 */
	ASSERT_EQ(0, pend_new(&s, 1, p, RTHS_ODE_MECH_SI2, &e));
	rths_ode_control_default(&ctl);
	ctl.rtol = ctl.atol = 1e-10;
	ASSERT_EQ(0, rths_hs_odesub_set_method(s, RTHS_ODE_GSTIFF, &ctl, &e));
	cr_config(&cfg, &gm, &frame, DT);
	ASSERT_EQ(0, rths_hs_sim_run_odesubs(&cfg, &s, 1, &h, &res, &e))
		TH_LOG("%s: %s", e.path, e.msg);
	ASSERT_EQ(0, rths_hs_sim_run(&cfg, &hb, &res, &e));
	ASSERT_EQ(0, rths_hs_odesub_work(s, &wk, &e));
	/* the angle of every step: the substructure again, alone, under
	 * the roof's recorded commands (it is deterministic) */
	phi_hist = calloc(h.rows, sizeof(double));
	ASSERT_NE(NULL, phi_hist);
	{
		double u0[2] = { 0, 0 }, ag0 = rths_hs_gm_at(&gm, 0);

		ASSERT_EQ(0, rths_hs_odesub_start(s, 0, u0, NULL, ag0,
						  h.rows, &e));
		for (size_t k = 1; k < h.rows; k++) {
			double r[2] = { 0, 0 }, v1[2];

			/* the loop's velocities: its differences of the
			 * commands (CR's are its displacements) */
			for (size_t i = 0; i < 2; i++)
				v1[i] = command_velocity(&h, k, i);
			ASSERT_EQ(0, rths_hs_odesub_step_vel(s, h.t[k],
							     h.u + 2 * k,
							     k == 1 ? h.v : NULL,
							     v1, h.ag[k], r,
							     &e));
			phi_hist[k] = rths_hs_odesub_mb_q(s)[2];
		}
	}
	drv = gsl_odeiv2_driver_alloc_y_new(&sys, gsl_odeiv2_step_rk8pd, 1e-5,
					    1e-10, 1e-10);
	for (size_t k = 1; k < h.rows; k++) {
		ASSERT_EQ(GSL_SUCCESS, gsl_odeiv2_driver_apply(drv, &t, h.t[k], y));
		d_roof += pow(h.u[2 * k + 1] - y[1], 2);
		ref_roof += y[1] * y[1];
		bare += pow(hb.u[2 * k + 1] - y[1], 2);
		d_phi += pow(phi_hist[k] - y[2], 2);
		ref_phi += y[2] * y[2];
	}
	err->roof = sqrt(d_roof / ref_roof);
	err->bare = sqrt(bare / ref_roof);
	err->phi = sqrt(d_phi / ref_phi);
	TH_LOG("%s: roof RMS %.3f %% (without the pendulum %.2f %%), angle RMS %.3f %%; drift %.1e m %.1e m/s, energy balance %.2e of %.3g J",
	       what, 100 * err->roof, 100 * err->bare, 100 * err->phi,
	       wk.drift_pos, wk.drift_vel, wk.energy_error, wk.energy_max);
	EXPECT_LT(wk.drift_pos, 1e-10);
	EXPECT_LT(wk.energy_error, 1e-5 * wk.energy_max);
	free(phi_hist);
	gsl_odeiv2_driver_free(drv);
	rths_hs_history_free(&h);
	rths_hs_history_free(&hb);
	rths_hs_odesub_free(s);
	rths_hs_gm_free(&gm);
	rths_hs_model_free(&frame);
}

/* Number @key of object @o, or @def if it is absent. */
static double jnum(const json_t *o, const char *key, double def)
{
	const json_t *v = json_object_get(o, key);

	return v ? json_number_value(v) : def;
}

/*
 * The pendulum of example @file as struct pend: 0, or -1 if its shape is
 * not the one the reduced model knows (one body hung by a revolute joint
 * at the base's origin, one spring-dashpot from a base point level with
 * the bob to its centre).
 */
static int example_pend(const char *file, struct pend *p)
{
	char path[PATH_MAX];
	json_t *j, *sub, *body, *pin, *spring;
	int r = -1;

	snprintf(path, sizeof(path), "%s/%s", RTHS_HS_EXAMPLES, file);
	j = json_load_file(path, 0, NULL);
	sub = json_array_get(json_object_get(j, "ode_substructures"), 0);
	body = json_array_get(json_object_get(sub, "bodies"), 0);
	pin = json_array_get(json_object_get(sub, "joints"), 0);
	spring = json_array_get(json_object_get(sub, "springs"), 0);
	if (body && pin && spring) {
		const json_t *bp = json_object_get(body, "position");
		const json_t *sp = json_object_get(spring, "points");
		const json_t *jp = json_object_get(pin, "points");

		p->m = jnum(body, "mass", 0);
		p->inertia = jnum(body, "inertia", 0);
		p->l = -json_number_value(json_array_get(bp, 1));
		p->k = jnum(spring, "stiffness", 0);
		p->c = jnum(spring, "damping", 0);
		p->d = -json_number_value(json_array_get(
			json_array_get(sp, 0), 0));
		if (json_number_value(json_array_get(json_array_get(sp, 0),
						     1)) == -p->l &&
		    json_number_value(json_array_get(json_array_get(jp, 1),
						     1)) == p->l &&
		    json_number_value(json_array_get(bp, 0)) == 0 &&
		    json_array_size(json_object_get(sub, "bodies")) == 1 &&
		    json_array_size(json_object_get(sub, "springs")) == 1 &&
		    p->l > 0 && p->d > 0)
			r = 0;
	}
	json_decref(j);
	return r;
}

/*
 * The loop's own errors (CR's, and the staggered coupling's lag) against
 * the reduced model, for a long untuned pendulum and for the TMD
 * example's: the roof within 0.2 % RMS of the reference, a tenth of what
 * the pendulum changes, and the angle within 0.1 % (the untuned one) or
 * 0.2 % (the TMD).  Documentation/hs.rst quotes what this prints.
 */
TEST(pendulum_on_frame_matches_reduced_model)
{
	struct tmd_errors err;
	struct pend tmd;

	pend_on_frame(_metadata, "0.5 m pendulum", &test_pend, &err);
	EXPECT_LT(err.roof, 0.002);
	EXPECT_LT(err.phi, 0.001);
	EXPECT_LT(10 * err.roof, err.bare);

	ASSERT_EQ(0, example_pend("two-story-frame-tmd.json", &tmd));
	pend_on_frame(_metadata, "two-story-frame-tmd.json's TMD", &tmd, &err);
	EXPECT_LT(err.roof, 0.002);
	EXPECT_LT(err.phi, 0.002);
	EXPECT_LT(10 * err.roof, err.bare);
}

/*
 * The coupling's order: the hybrid loop (CR) at 1024, 4096 and 16384 Hz
 * over 2 s of the default synthetic record, against the coupled system
 * solved by GSL's rk8pd to 1e-12: the largest roof error over the run
 * relative to the reference's peak.  @chain: the 50 kg tuned mass of
 * coupled_chain_matches_monolithic_model (linear input); otherwise the
 * TMD example's pendulum (SI2, GSTIFF at rtol = atol = 1e-10) against
 * the reduced model.  *cr_own: CR's own error on the monolithic
 * three-DOF model (the chain only).
 */
struct order_sys {
	const struct rths_hs_model *mono;
	const struct rths_hs_gm *gm;
};

static int mono_rhs(double t, const double y[], double f[], void *params)
{
	const struct order_sys *os = params;
	const struct rths_hs_model *m = os->mono;
	double ag = rths_hs_gm_at(os->gm, t);

	for (int i = 0; i < 3; i++) {
		double b = -m->m[i * 3 + i] * ag;

		for (int j = 0; j < 3; j++)
			b -= m->c[i * 3 + j] * y[3 + j] + m->k[i * 3 + j] * y[j];
		f[i] = y[3 + i];
		f[3 + i] = b / m->m[i * 3 + i];
	}
	return GSL_SUCCESS;
}

static void coupled_error(struct __test_metadata *_metadata, bool chain,
			  double rate, double *err, double *cr_own)
{
	double tm[3], y[6] = { 0 }, t = 0, peak = 0, d = 0, dm = 0;
	struct rths_hs_model frame, mono;
	struct rths_hs_gm gm;
	struct rths_hs_sim_config cfg;
	struct rths_hs_history h, hm;
	struct rths_hs_run_result res;
	struct rths_ode_control ctl;
	struct rths_hs_odesub *s;
	struct rths_error e;
	struct pend tmd;
	struct order_sys os = { &mono, &gm };
	struct tmd_frame tf = { &frame, &gm, &tmd };
	gsl_odeiv2_system sys = { tmd_rhs, NULL, 6, &tf };
	gsl_odeiv2_driver *drv;

	ASSERT_EQ(0, tuned_frame(&frame, &mono, &gm, 2, tm));
	if (chain) {
		ASSERT_EQ(0, rths_hs_odesub_new_chain(&s, 1, 1, &tm[0], &tm[1],
						      &tm[2], &e));
		rths_hs_odesub_set_input(s, RTHS_HS_ODESUB_LINEAR);
		rths_ode_control_default(&ctl);
		ctl.rtol = ctl.atol = 1e-11;
		sys.function = mono_rhs;
		sys.params = &os;
	} else {
		ASSERT_EQ(0, example_pend("two-story-frame-tmd.json", &tmd));
		ASSERT_EQ(0, pend_new(&s, 1, &tmd, RTHS_ODE_MECH_SI2, &e));
		rths_ode_control_default(&ctl);
		ctl.rtol = ctl.atol = 1e-12;
	}
	ASSERT_EQ(0, rths_hs_odesub_set_method(s, RTHS_ODE_GSTIFF, &ctl, &e));
	cr_config(&cfg, &gm, &frame, 1.0 / rate);
	ASSERT_EQ(0, rths_hs_sim_run_odesubs(&cfg, &s, 1, &h, &res, &e))
		TH_LOG("%s: %s", e.path, e.msg);
	cfg.model = &mono;
	ASSERT_EQ(0, rths_hs_sim_run(&cfg, &hm, &res, &e));
	drv = gsl_odeiv2_driver_alloc_y_new(&sys, gsl_odeiv2_step_rk8pd,
					    1e-6, 1e-12, 1e-12);
	for (size_t k = 1; k < h.rows; k++) {
		ASSERT_EQ(GSL_SUCCESS,
			  gsl_odeiv2_driver_apply(drv, &t, h.t[k], y));
		peak = fmax(peak, fabs(y[1]));
		d = fmax(d, fabs(h.u[2 * k + 1] - y[1]));
		dm = fmax(dm, fabs(hm.u[3 * k + 1] - y[1]));
	}
	*err = d / peak;
	*cr_own = dm / peak;
	gsl_odeiv2_driver_free(drv);
	rths_hs_history_free(&h);
	rths_hs_history_free(&hm);
	rths_hs_odesub_free(s);
	rths_hs_gm_free(&gm);
	rths_hs_model_free(&frame);
	rths_hs_model_free(&mono);
}

/* Both ways at 1024, 4096 and 16384 Hz: the errors printed, the order
 * (from the first to the last) at least 1.8. */
static void coupling_order(struct __test_metadata *_metadata, bool chain)
{
	static const double rates[] = { 1024, 4096, 16384 };
	double err[3], own[3], order;

	for (int i = 0; i < 3; i++)
		coupled_error(_metadata, chain, rates[i], &err[i], &own[i]);
	order = log(err[0] / err[2]) / log(16);
	TH_LOG("%s: roof error %.2e, %.2e, %.2e of the peak at 1024, 4096, 16384 Hz: order %.2f",
	       chain ? "tuned mass (chain)" : "TMD pendulum", err[0], err[1],
	       err[2], order);
	if (chain)
		TH_LOG("CR alone on the monolithic model: %.2e, %.2e, %.2e",
		       own[0], own[1], own[2]);
	EXPECT_GT(order, 1.8);
}

/* Under ASan the 16384 Hz runs take longer than the harness's 30 s. */
FIXTURE(order) {
	int unused;
};

FIXTURE_SETUP(order)
{
}

FIXTURE_TEARDOWN(order)
{
}

TEST_F_TIMEOUT(order, coupling_is_second_order_tuned_mass, 300)
{
	coupling_order(_metadata, true);
}

TEST_F_TIMEOUT(order, coupling_is_second_order_pendulum, 300)
{
	coupling_order(_metadata, false);
}

/* @x with its first @n ODE substructures run offline for x->duration:
 * the loop's status. */
static int run_offline_n(struct rths_hs_experiment *x, size_t n,
			 struct rths_hs_history *h,
			 struct rths_hs_run_result *res, struct rths_error *e)
{
	struct rths_hs_offline_params op;
	struct rths_hs_sim_config cfg;
	struct rths_hs_backend b;
	int r;

	if (!x->device.step_ticks &&
	    (r = rths_hs_experiment_set_step(x, 1, e)))
		return r;
	rths_hs_experiment_offline_params(x, &op);
	r = rths_hs_offline_open(&b, &op, e);
	if (r)
		return r;
	rths_hs_experiment_sim_config(x, &cfg);
	cfg.backend = &b;
	r = rths_hs_sim_run_odesubs(&cfg, x->odesubs, n, h, res, e);
	rths_hs_backend_close(&b);
	return r;
}

static int run_offline(struct rths_hs_experiment *x, struct rths_hs_history *h,
		       struct rths_hs_run_result *res, struct rths_error *e)
{
	return run_offline_n(x, x->n_odesubs, h, res, e);
}

/*
 * Example @file with the fields of the JSON object @fields set in its
 * ode_substructures[@sub], parsed: the experiment, or NULL (@e says why).
 */
static struct rths_hs_experiment *example_with(const char *file, size_t sub,
					       const char *fields,
					       struct rths_error *e)
{
	struct rths_hs_experiment *x = NULL;
	char path[PATH_MAX], *text = NULL;
	json_t *j, *f = json_loads(fields, 0, NULL);

	snprintf(path, sizeof(path), "%s/%s", RTHS_HS_EXAMPLES, file);
	j = json_load_file(path, 0, NULL);
	if (j && f && json_object_update(json_array_get(json_object_get(j,
			"ode_substructures"), sub), f) == 0)
		text = json_dumps(j, 0);
	json_decref(j);
	json_decref(f);
	if (text && rths_hs_experiment_parse(text, file, RTHS_HS_EXAMPLES, &x,
					     e) < 0)
		x = NULL;
	free(text);
	return x;
}

/*
 * The chain example with ode_substructures[@sub].max_steps = 1, run for
 * 0.1 s offline; its return code, the error in @e.
 */
static int run_chain_capped(size_t sub, struct rths_error *e)
{
	struct rths_hs_experiment *x;
	struct rths_hs_run_result res;
	struct rths_hs_history h;
	int r;

	x = example_with("two-story-frame-chain.json", sub,
			 "{\"max_steps\": 1}", e);
	if (!x)
		return -2;	/* the file must be read: only the run fails */
	x->duration = 0.1;
	memset(&h, 0, sizeof(h));
	r = run_offline(x, &h, &res, e);
	rths_hs_history_free(&h);
	rths_hs_experiment_free(x);
	return r;
}

/* A cap reached in a run names the experiment file's field. */
TEST(cap_in_a_run_names_its_field)
{
	struct rths_error e = { 0 };

	EXPECT_EQ(-RTHS_E_TOO_SLOW, run_chain_capped(0, &e));
	TH_LOG("%s: %s", e.path, e.msg);
	EXPECT_STREQ("ode_substructures[0].max_steps", e.path);
	EXPECT_NE(NULL, strstr(e.msg, "reached its cap"));
}

/*
 * The TMD example's first pendulum (before its tuning) at rtol = atol =
 * 1e-8: every hybrid step restarts the SI2 pendulum, and in rths-run at
 * t = 3.04 s (here at 13.19 s) the start check's step was 1.5e-9 s.
 * The multipliers' rounding, amplified by 1/h, read as an inconsistent
 * start until the check allowed the factorization's rounding floor.
 */
TEST(tight_tolerance_si2_restarts_pass_the_start_check)
{
	struct rths_hs_run_result res;
	struct rths_hs_odesub_work w;
	struct rths_hs_history h;
	struct rths_error e = { 0 };
	/* the pendulum the example had then (a 23.7 mm link, no spring) */
	struct rths_hs_experiment *x = example_with(
		"two-story-frame-tmd.json", 0,
		"{\"rtol\": 1e-8, \"atol\": 1e-8, \"max_steps\": 1000,"
		" \"bodies\": [{\"mass\": 40, \"inertia\": 0.05,"
		" \"position\": [0, -0.023652]}],"
		" \"joints\": [{\"type\": \"revolute\", \"bodies\": [-1, 0],"
		" \"points\": [[0, 0], [0, 0.023652]]}],"
		" \"springs\": [{\"bodies\": [-1, 0],"
		" \"points\": [[-0.5, -0.023652], [0, 0]],"
		" \"damping\": 136.945}]}", &e);

	ASSERT_NE(NULL, x)
		TH_LOG("%s: %s", e.path, e.msg);
	memset(&h, 0, sizeof(h));
	EXPECT_EQ(0, run_offline(x, &h, &res, &e))
		TH_LOG("%s: %s", e.path, e.msg);
	EXPECT_GT(h.t[h.rows - 1], x->duration - 0.01);
	ASSERT_EQ(0, rths_hs_odesub_work(x->odesubs[0], &w, &e));
	TH_LOG("drift %.1e m, energy balance %.2e of %.3g J", w.drift_pos,
	       w.energy_error, w.energy_max);
	EXPECT_LT(w.drift_pos, 1e-10);
	rths_hs_history_free(&h);
	rths_hs_experiment_free(x);
}

/*
 * constant_bdf's steps per hybrid step are checked once dt is known (here
 * the step is "auto", so at the run's start): 4 or more over max_steps 1.
 */
TEST(fixed_steps_over_the_cap_refused_at_start)
{
	struct rths_error e = { 0 };

	EXPECT_EQ(-RTHS_E_OUT_OF_RANGE, run_chain_capped(1, &e));
	TH_LOG("%s: %s", e.path, e.msg);
	EXPECT_STREQ("ode_substructures[1].step", e.path);
	EXPECT_NE(NULL, strstr(e.msg, "over max_steps 1"));
}

/*
 * The step-size preview runs the ODE substructures: after it, their work
 * records are those of its last run (the chosen d), and the compute it
 * counts is at least the substructures' own.  The plain preview runs
 * none of them.
 */
TEST(preview_runs_ode_substructures)
{
	struct rths_hs_experiment *x = NULL;
	struct rths_hs_preview_params pp;
	struct rths_hs_preview_result pr, plain;
	struct rths_hs_sim_config cfg;
	struct rths_hs_odesub_work w;
	struct rths_error e = { 0 };
	const struct rths_hs_preview_row *row;

	ASSERT_EQ(0, rths_hs_experiment_load(RTHS_HS_EXAMPLES
					     "/two-story-frame-chain.json",
					     &x, &e))
		TH_LOG("%s: %s", e.path, e.msg);
	x->duration = 0.25;
	rths_hs_experiment_sim_config(x, &cfg);
	rths_hs_preview_defaults(&pp);
	pp.rate = x->device.rate;
	ASSERT_EQ(0, rths_hs_preview_exchange(&cfg, &pp, 0, &plain, &e));
	ASSERT_EQ(0, rths_hs_odesub_work(x->odesubs[0], &w, NULL));
	EXPECT_EQ(0U, w.hybrid_steps);	/* never started */
	ASSERT_EQ(0, rths_hs_preview_odesubs(&cfg, x->odesubs, x->n_odesubs,
					     &pp, 0, &pr, &e))
		TH_LOG("%s: %s", e.path, e.msg);
	ASSERT_LT(0U, pr.chosen);
	row = &pr.rows[pr.n_rows - 1];
	EXPECT_EQ(pr.chosen, row->d);
	for (size_t i = 0; i < x->n_odesubs; i++) {
		ASSERT_EQ(0, rths_hs_odesub_work(x->odesubs[i], &w, &e));
		EXPECT_EQ(row->steps, w.hybrid_steps);
		EXPECT_LT(0UL, w.total_f_evals);
		EXPECT_GE(row->compute, w.compute.max);
	}
	rths_hs_experiment_free(x);
}

/*
 * The examples: each loads with its substructures, and runs 2 s on the
 * offline backend (the sim-card example's device replaced by it), the
 * loop reporting every step's ODE work; the pendulum's constraints hold.
 */
TEST(examples_run_offline)
{
	static const struct {
		const char *file;
		size_t n;
		enum rths_hs_odesub_kind kind;
	} ex[] = {
		{ "/two-story-frame-chain.json", 2, RTHS_HS_ODESUB_CHAIN },
		{ "/two-story-frame-tmd.json", 1, RTHS_HS_ODESUB_MULTIBODY },
		{ "/two-story-frame-sim-tmd.json", 1, RTHS_HS_ODESUB_MULTIBODY },
	};

	for (size_t i = 0; i < sizeof(ex) / sizeof(ex[0]); i++) {
		struct rths_hs_experiment *x;
		struct rths_hs_run_result res;
		struct rths_hs_history h;
		struct rths_error e = { 0 };
		char path[512];
		uint64_t steps;

		snprintf(path, sizeof(path), "%s%s", RTHS_HS_EXAMPLES, ex[i].file);
		ASSERT_EQ(0, rths_hs_experiment_load(path, &x, &e))
			TH_LOG("%s: %s: %s", path, e.path, e.msg);
		ASSERT_EQ(ex[i].n, x->n_odesubs);
		EXPECT_EQ(ex[i].kind, rths_hs_odesub_kind(x->odesubs[0]));
		x->duration = 2.0;
		ASSERT_EQ(0, run_offline(x, &h, &res, &e))
			TH_LOG("%s: %s: %s", ex[i].file, e.path, e.msg);
		steps = (uint64_t)floor(2.0 / x->integrator.dt + 1e-9);
		EXPECT_EQ(steps, res.steps_done);
		for (size_t k = 0; k < x->n_odesubs; k++) {
			struct rths_hs_odesub_work w;

			ASSERT_EQ(0, rths_hs_odesub_work(x->odesubs[k], &w, &e));
			EXPECT_EQ(steps, w.hybrid_steps);
			EXPECT_GT(w.f_evals.p50, 0);
			EXPECT_NE(0, rths_hs_odesub_force(x->odesubs[k]));
			if (rths_hs_odesub_kind(x->odesubs[k]) ==
			    RTHS_HS_ODESUB_MULTIBODY) {
				TH_LOG("%s: drift %.1e m %.1e m/s, energy balance %.2e of %.3g J",
				       ex[i].file, w.drift_pos, w.drift_vel,
				       w.energy_error, w.energy_max);
				EXPECT_LT(w.drift_pos, 1e-8);
				EXPECT_LT(w.drift_vel, 1e-6);
			}
		}
		rths_hs_history_free(&h);
		rths_hs_experiment_free(x);
	}
}

/* Peak and RMS of the roof's displacement (the last DOF) over @h. */
static void roof_peak_rms(const struct rths_hs_history *h, double *peak,
			  double *rms)
{
	size_t n = h->n_dof;

	*peak = *rms = 0;
	for (size_t k = 0; k < h->rows; k++) {
		double u = h->u[k * n + n - 1];

		*peak = fmax(*peak, fabs(u));
		*rms += u * u;
	}
	*rms = sqrt(*rms / (double)h->rows);
}

/*
 * The TMD examples show the damper working: the whole record offline at
 * a step of one tick, with the pendulum and without it (the same frame,
 * record and backend), lowers the roof's peak and RMS by a tenth at
 * least.  Documentation/experiment-file.rst quotes what this prints.
 */
TEST(tmd_examples_lower_the_roof_peak)
{
	static const char *const files[] = { "two-story-frame-tmd.json",
					     "two-story-frame-sim-tmd.json" };

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		struct rths_hs_experiment *x;
		struct rths_hs_run_result res;
		struct rths_hs_history h;
		struct rths_hs_odesub_work w;
		struct rths_error e = { 0 };
		double peak[2], rms[2];
		char path[PATH_MAX];

		snprintf(path, sizeof(path), "%s/%s", RTHS_HS_EXAMPLES,
			 files[i]);
		ASSERT_EQ(0, rths_hs_experiment_load(path, &x, &e))
			TH_LOG("%s: %s: %s", path, e.path, e.msg);
		/* one tick: the preview's choice depends on the machine */
		if (!x->device.step_ticks)
			ASSERT_EQ(0, rths_hs_experiment_set_step(x, 1, &e));
		for (size_t with = 0; with < 2; with++) {
			memset(&h, 0, sizeof(h));
			ASSERT_EQ(0, run_offline_n(x, with ? x->n_odesubs : 0,
						   &h, &res, &e))
				TH_LOG("%s: %s: %s", files[i], e.path, e.msg);
			EXPECT_GT(h.t[h.rows - 1], x->duration - 0.01);
			roof_peak_rms(&h, &peak[with], &rms[with]);
			rths_hs_history_free(&h);
		}
		ASSERT_EQ(0, rths_hs_odesub_work(x->odesubs[0], &w, &e));
		TH_LOG("%s, %g s: roof peak %.2f mm without the TMD, %.2f mm with it (%.1f %% lower); RMS %.2f mm, %.2f mm (%.1f %% lower); energy balance %.2e of %.3g J",
		       files[i], x->duration, 1e3 * peak[0], 1e3 * peak[1],
		       100 * (1 - peak[1] / peak[0]), 1e3 * rms[0],
		       1e3 * rms[1], 100 * (1 - rms[1] / rms[0]),
		       w.energy_error, w.energy_max);
		EXPECT_LT(peak[1], 0.9 * peak[0]);
		EXPECT_LT(rms[1], 0.9 * rms[0]);
		rths_hs_experiment_free(x);
	}
}

TEST_HARNESS_MAIN
