// SPDX-License-Identifier: GPL-2.0
/*
 * Generalized-alpha and HHT-alpha: order, spectral radius at infinity
 * from the amplification matrix, no dissipation at rho_inf = 1, HHT at
 * alpha = 0 is the implicit Newmark, a yielding SDOF, the fixed number of
 * iterations, and the parameters refused.
 */
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include <complex.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"

#include <rths/hs.h>

static void params(struct rths_hs_stepper_params *p, enum rths_hs_method m,
		   double dt, double x)
{
	rths_hs_stepper_defaults(p, m, dt);
	if (m == RTHS_HS_GENERALIZED_ALPHA)
		p->rho_inf = x;
	else
		p->alpha = x;
}

/* rho_inf of HHT-alpha: (1 + alpha) / (1 - alpha). */
static double rho_of(enum rths_hs_method m, double x)
{
	return m == RTHS_HS_GENERALIZED_ALPHA ? x : (1 + x) / (1 - x);
}

static void sdof(struct rths_hs_model *mo, double m, double k, double c)
{
	rths_hs_model_init(mo, 1, NULL);
	mo->m[0] = m;
	mo->k[0] = k;
	mo->c[0] = c;
}

/* Max error of undamped free vibration from v0 (1 Hz, unit mass). */
static double free_error(const struct rths_hs_stepper_params *p, double tend)
{
	double w = 2 * M_PI, v0 = 0.05, err = 0;
	struct rths_hs_stepper *st;
	struct rths_hs_model mo;
	long n = lround(tend / p->dt);

	sdof(&mo, 1, w * w, 0);
	if (rths_hs_stepper_new(&st, &mo, NULL, p, NULL) < 0)
		return INFINITY;
	rths_hs_stepper_start(st, NULL, &v0, NULL, NULL, NULL);
	for (long i = 1; i <= n; i++) {
		const double *u;
		double f = 0, ex = v0 / w * sin(w * (double)i * p->dt);

		rths_hs_stepper_command(st, &f, &u, NULL);
		rths_hs_stepper_accept(st, NULL, NULL);
		err = fmax(err, fabs(rths_hs_stepper_u(st)[0] - ex));
	}
	rths_hs_stepper_free(st);
	rths_hs_model_free(&mo);
	return err;
}

static const struct {
	enum rths_hs_method m;
	double x;	/* rho_inf or alpha */
} cases[] = {
	{ RTHS_HS_GENERALIZED_ALPHA, 1.0 },
	{ RTHS_HS_GENERALIZED_ALPHA, 0.8 },
	{ RTHS_HS_GENERALIZED_ALPHA, 0.5 },
	{ RTHS_HS_GENERALIZED_ALPHA, 0.0 },
	{ RTHS_HS_HHT_ALPHA, 0.0 },
	{ RTHS_HS_HHT_ALPHA, -0.1 },
	{ RTHS_HS_HHT_ALPHA, -1.0 / 3 },
};
#define N_CASES (sizeof(cases) / sizeof(cases[0]))

TEST(second_order)
{
	for (size_t i = 0; i < N_CASES; i++) {
		struct rths_hs_stepper_params p;
		double e1, e2;

		params(&p, cases[i].m, 0.01, cases[i].x);
		e1 = free_error(&p, 2.0);
		p.dt = 0.005;
		e2 = free_error(&p, 2.0);
		TH_LOG("%s %.3g: error %.3g -> %.3g, ratio %.2f",
		       rths_hs_method_name(cases[i].m), cases[i].x, e1, e2,
		       e1 / e2);
		EXPECT_GT(e1 / e2, 3.4);
		EXPECT_LT(e1 / e2, 4.6);
		EXPECT_LT(e2, 0.01 * 0.05 / (2 * M_PI));
	}
}

/* Spectral radius of a 3 x 3 matrix: its characteristic polynomial's
 * roots by Durand-Kerner. */
static double spectral_radius(const double A[3][3])
{
	double tr = A[0][0] + A[1][1] + A[2][2];
	double m2 = A[0][0] * A[1][1] - A[0][1] * A[1][0] +
		    A[0][0] * A[2][2] - A[0][2] * A[2][0] +
		    A[1][1] * A[2][2] - A[1][2] * A[2][1];
	double det = A[0][0] * (A[1][1] * A[2][2] - A[1][2] * A[2][1]) -
		     A[0][1] * (A[1][0] * A[2][2] - A[1][2] * A[2][0]) +
		     A[0][2] * (A[1][0] * A[2][1] - A[1][1] * A[2][0]);
	double complex z[3] = { 0.4 + 0.9 * I, -0.7 + 0.3 * I, 0.2 - 0.8 * I };
	double r = 0;

	for (int it = 0; it < 2000; it++)
		for (int i = 0; i < 3; i++) {
			double complex pz = ((z[i] - tr) * z[i] + m2) * z[i] -
					    det, d = 1;

			for (int j = 0; j < 3; j++)
				if (j != i)
					d *= z[i] - z[j];
			z[i] -= pz / d;
		}
	for (int i = 0; i < 3; i++)
		r = fmax(r, cabs(z[i]));
	return r;
}

/* 3 x 3 inverse by cofactors. */
static void inv3(const double a[3][3], double out[3][3])
{
	double det = a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) -
		     a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0]) +
		     a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]);

	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++) {
			int r0 = (j + 1) % 3, r1 = (j + 2) % 3;
			int c0 = (i + 1) % 3, c1 = (i + 2) % 3;

			out[i][j] = (a[r0][c0] * a[r1][c1] -
				     a[r0][c1] * a[r1][c0]) / det;
		}
}

/* Spectral radius of the 2 x 2 leading block of A. */
static double spectral_radius2(const double A[3][3])
{
	double tr = A[0][0] + A[1][1];
	double det = A[0][0] * A[1][1] - A[0][1] * A[1][0];
	double complex s = csqrt(tr * tr - 4 * det);

	return fmax(cabs((tr + s) / 2), cabs((tr - s) / 2));
}

/* am = af (rho_inf 1, HHT alpha 0): every step leaves the free SDOF in
 * equilibrium, a = -omega^2 u, so the state is (u, v) alone. */
static bool am_is_af(enum rths_hs_method m, double x)
{
	return m == RTHS_HS_GENERALIZED_ALPHA ? x == 1 : x == 0;
}

/*
 * The amplification matrix of an undamped SDOF at dt*omega = @dtw, in
 * the state (u, dt v, dt^2 a): three starts (u0, v0 and a force f0 that
 * sets a0), one step to states X1, a free step to X2, A = X2 X1^-1.
 * With am = af only the 2 x 2 block of (u, dt v) from u0 and v0.
 */
static int amplification(enum rths_hs_method m, double x, double dtw,
			 double A[3][3])
{
	double X1[3][3], X2[3][3], Xi[3][3], dt = 1.0, w = dtw / dt;
	struct rths_hs_stepper_params p;
	struct rths_hs_model mo;
	int r = 0, dim = am_is_af(m, x) ? 2 : 3;

	params(&p, m, dt, x);
	sdof(&mo, 1, w * w, 0);
	if (dim == 2)
		for (int i = 0; i < 3; i++)
			X1[2][i] = X1[i][2] = X2[2][i] = X2[i][2] = i == 2;
	for (int c = 0; c < dim && !r; c++) {
		double u0 = c == 0, v0 = c == 1, f0 = c == 2 ? w * w : 0, f = 0;
		struct rths_hs_stepper *st;
		const double *u;

		r = rths_hs_stepper_new(&st, &mo, NULL, &p, NULL);
		if (r < 0)
			break;
		rths_hs_stepper_start(st, &u0, &v0, &f0, NULL, NULL);
		for (int s = 0; s < 2 && !r; s++) {
			double (*X)[3] = s ? X2 : X1;

			r = rths_hs_stepper_command(st, &f, &u, NULL);
			if (!r)
				r = rths_hs_stepper_accept(st, NULL, NULL);
			X[0][c] = rths_hs_stepper_u(st)[0];
			X[1][c] = dt * rths_hs_stepper_v(st)[0];
			if (dim == 3)
				X[2][c] = dt * dt * rths_hs_stepper_a(st)[0];
		}
		rths_hs_stepper_free(st);
	}
	rths_hs_model_free(&mo);
	inv3(X1, Xi);
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++) {
			A[i][j] = 0;
			for (int k = 0; k < 3; k++)
				A[i][j] += X2[i][k] * Xi[k][j];
		}
	return r;
}

TEST(spectral_radius_at_infinity_is_rho_inf)
{
	for (size_t i = 0; i < N_CASES; i++) {
		double A[3][3], rho = rho_of(cases[i].m, cases[i].x), sr;

		ASSERT_EQ(0, amplification(cases[i].m, cases[i].x, 1e4, A));
		sr = am_is_af(cases[i].m, cases[i].x) ? spectral_radius2(A) :
						       spectral_radius(A);
		TH_LOG("%s %.3g: rho(A) %.5f at dt*omega 1e4, rho_inf %.5f",
		       rths_hs_method_name(cases[i].m), cases[i].x, sr, rho);
		EXPECT_LT(fabs(sr - rho), 0.01);
	}
}

/* rho_inf = 1: undamped free vibration keeps its energy; 0.5 loses it. */
TEST(no_dissipation_at_rho_inf_one)
{
	for (int pass = 0; pass < 2; pass++) {
		double w = 2 * M_PI, u0 = 0.01, e0 = 0.5 * w * w * u0 * u0;
		double lo = INFINITY, hi = 0, last = 0, f = 0;
		struct rths_hs_stepper_params p;
		struct rths_hs_stepper *st;
		struct rths_hs_model mo;
		const double *u;

		/* dt*omega = 1.0: a coarse step, where dissipation shows */
		params(&p, RTHS_HS_GENERALIZED_ALPHA, 1.0 / w,
		       pass ? 0.5 : 1.0);
		sdof(&mo, 1, w * w, 0);
		ASSERT_EQ(0, rths_hs_stepper_new(&st, &mo, NULL, &p, NULL));
		rths_hs_stepper_start(st, &u0, NULL, NULL, NULL, NULL);
		for (int n = 1; n <= 2000; n++) {
			double uu, vv;

			ASSERT_EQ(0, rths_hs_stepper_command(st, &f, &u, NULL));
			ASSERT_EQ(0, rths_hs_stepper_accept(st, NULL, NULL));
			uu = rths_hs_stepper_u(st)[0];
			vv = rths_hs_stepper_v(st)[0];
			last = 0.5 * vv * vv + 0.5 * w * w * uu * uu;
			lo = fmin(lo, last);
			hi = fmax(hi, last);
		}
		TH_LOG("rho_inf %.1f: energy in [%.6f, %.6f] of the initial, last %.6f",
		       p.rho_inf, lo / e0, hi / e0, last / e0);
		if (pass == 0) {
			/* bounded, no drift over 2000 steps (318 periods) */
			EXPECT_GT(lo, 0.9 * e0);
			EXPECT_LT(hi, 1.1 * e0);
			EXPECT_GT(last, 0.9 * e0);
		} else {
			EXPECT_LT(last, 0.5 * e0);
		}
		rths_hs_stepper_free(st);
		rths_hs_model_free(&mo);
	}
}

/* A yielding SDOF (bilinear or Bouc-Wen) driven by a pulse. */
struct yield_run {
	double u[2001];
	unsigned int it_min, it_max;
	unsigned long it_sum;
};

static int run_yield(const struct rths_hs_stepper_params *p0, int sub,
		     enum rths_hs_element_kind kind, struct yield_run *out)
{
	double k = 100.0 * (4 * M_PI) * (4 * M_PI), dt = 0.005 / sub;
	struct rths_hs_element_params ep;
	struct rths_hs_stepper_params p = *p0;
	struct rths_hs_stepper *st;
	struct rths_hs_model mo;
	int r;

	p.dt = dt;
	sdof(&mo, 100.0, 0, 2 * 0.02 * 100.0 * 4 * M_PI);
	rths_hs_element_defaults(&ep, kind, k, 400.0);
	r = rths_hs_model_add_element(&mo, 0, -1, &ep, NULL);
	if (!r)
		r = rths_hs_stepper_new(&st, &mo, NULL, &p, NULL);
	if (r < 0) {
		rths_hs_model_free(&mo);
		return r;
	}
	out->it_min = UINT32_MAX;
	out->it_max = 0;
	out->it_sum = 0;
	out->u[0] = 0;
	rths_hs_stepper_start(st, NULL, NULL, NULL, NULL, NULL);
	for (int n = 1; n <= 2000 * sub && !r; n++) {
		double t = n * dt, f = t < 0.4 ? 1500 * sin(M_PI * t / 0.4) : 0;
		const double *u;
		unsigned int it;

		r = rths_hs_stepper_command(st, &f, &u, NULL);
		if (!r)
			r = rths_hs_stepper_accept(st, NULL, NULL);
		it = rths_hs_stepper_iterations(st);
		out->it_min = it < out->it_min ? it : out->it_min;
		out->it_max = it > out->it_max ? it : out->it_max;
		out->it_sum += it;
		if (n % sub == 0)
			out->u[n / sub] = rths_hs_stepper_u(st)[0];
	}
	rths_hs_stepper_free(st);
	rths_hs_model_free(&mo);
	return r;
}

static double worst(const struct yield_run *a, const struct yield_run *b,
		    double *peak)
{
	double w = 0;

	*peak = 0;
	for (int i = 0; i <= 2000; i++) {
		w = fmax(w, fabs(a->u[i] - b->u[i]));
		*peak = fmax(*peak, fabs(a->u[i]));
	}
	return w;
}

/* HHT-alpha at alpha = 0 is average-acceleration Newmark. */
TEST(hht_alpha_zero_is_newmark_implicit)
{
	static struct yield_run a, b;
	struct rths_hs_stepper_params p;
	double peak, w;

	rths_hs_stepper_defaults(&p, RTHS_HS_NEWMARK_IMPLICIT, 0.005);
	ASSERT_EQ(0, run_yield(&p, 1, RTHS_HS_ELEMENT_BILINEAR, &a));
	params(&p, RTHS_HS_HHT_ALPHA, 0.005, 0.0);
	ASSERT_EQ(0, run_yield(&p, 1, RTHS_HS_ELEMENT_BILINEAR, &b));
	w = worst(&a, &b, &peak);
	TH_LOG("difference %.3g of peak %.3g; iterations %lu and %lu", w,
	       peak, a.it_sum, b.it_sum);
	EXPECT_LT(w, 1e-12 * peak);
	EXPECT_EQ(a.it_sum, b.it_sum);
}

/* Both converge on yielding SDOFs to a fine reference. */
TEST(nonlinear_converges)
{
	enum rths_hs_element_kind kinds[] = { RTHS_HS_ELEMENT_BILINEAR,
					      RTHS_HS_ELEMENT_BOUC_WEN };
	static struct yield_run ref, run;

	for (int kk = 0; kk < 2; kk++) {
		struct rths_hs_stepper_params p;

		rths_hs_stepper_defaults(&p, RTHS_HS_NEWMARK_IMPLICIT, 0);
		ASSERT_EQ(0, run_yield(&p, 16, kinds[kk], &ref));
		for (size_t i = 0; i < N_CASES; i++) {
			double peak, w;

			params(&p, cases[i].m, 0, cases[i].x);
			ASSERT_EQ(0, run_yield(&p, 1, kinds[kk], &run));
			w = worst(&ref, &run, &peak);
			TH_LOG("kind %d %s %.3g: worst %.3g of peak %.3g, iterations %u..%u",
			       kinds[kk], rths_hs_method_name(cases[i].m),
			       cases[i].x, w, peak, run.it_min, run.it_max);
			/* it yielded: beyond 2 uy */
			EXPECT_GT(peak, 2 * 400.0 / (100.0 * 16 * M_PI * M_PI));
			EXPECT_LT(w, 0.03 * peak);
			EXPECT_GE(run.it_min, 1);
			EXPECT_GT(run.it_max, 1);
			EXPECT_LE(run.it_max, p.max_iter);
		}
	}
}

/* tol = 0: exactly max_iter iterations each step, close to converged. */
TEST(fixed_iterations)
{
	static struct yield_run conv, fixed;

	for (size_t i = 0; i < N_CASES; i++) {
		struct rths_hs_stepper_params p;
		double peak, w;

		params(&p, cases[i].m, 0, cases[i].x);
		ASSERT_EQ(0, run_yield(&p, 1, RTHS_HS_ELEMENT_BOUC_WEN, &conv));
		p.tol = 0;
		p.max_iter = 2;
		ASSERT_EQ(0, run_yield(&p, 1, RTHS_HS_ELEMENT_BOUC_WEN,
				       &fixed));
		w = worst(&conv, &fixed, &peak);
		TH_LOG("%s %.3g: 2 iterations against converged (%u..%u): %.3g of peak %.3g",
		       rths_hs_method_name(cases[i].m), cases[i].x,
		       conv.it_min, conv.it_max, w, peak);
		EXPECT_EQ(2, fixed.it_min);
		EXPECT_EQ(2, fixed.it_max);
		EXPECT_LT(w, 1e-3 * peak);
	}
}

TEST(no_convergence_is_an_error)
{
	struct rths_hs_stepper_params p;
	struct rths_error err = { 0 };
	struct rths_hs_stepper *st;
	struct rths_hs_model mo;
	double u0 = 0.01, f = 0;
	const double *u;

	params(&p, RTHS_HS_GENERALIZED_ALPHA, 0.01, 0.8);
	p.max_iter = 1;
	sdof(&mo, 1, 100, 0);
	ASSERT_EQ(0, rths_hs_stepper_new(&st, &mo, NULL, &p, NULL));
	rths_hs_stepper_start(st, &u0, NULL, NULL, NULL, NULL);
	EXPECT_EQ(-RTHS_E_NO_CONVERGENCE,
		  rths_hs_stepper_command(st, &f, &u, &err));
	TH_LOG("%s", err.msg);
	rths_hs_stepper_free(st);
	rths_hs_model_free(&mo);
}

TEST(bad_parameters_refused)
{
	static const struct {
		enum rths_hs_method m;
		double dt, rho, alpha, tol;
		const char *path;
	} bad[] = {
		{ RTHS_HS_GENERALIZED_ALPHA, 0.01, NAN, -0.05, 1e-10, "rho_inf" },
		{ RTHS_HS_GENERALIZED_ALPHA, 0.01, 1.5, -0.05, 1e-10, "rho_inf" },
		{ RTHS_HS_GENERALIZED_ALPHA, 0.01, -0.1, -0.05, 1e-10, "rho_inf" },
		{ RTHS_HS_HHT_ALPHA, 0.01, 0.8, NAN, 1e-10, "alpha" },
		{ RTHS_HS_HHT_ALPHA, 0.01, 0.8, 0.1, 1e-10, "alpha" },
		{ RTHS_HS_HHT_ALPHA, 0.01, 0.8, -0.5, 1e-10, "alpha" },
		{ RTHS_HS_HHT_ALPHA, 0.01, 0.8, -0.05, NAN, "tolerance" },
		{ RTHS_HS_GENERALIZED_ALPHA, 0.01, 0.8, -0.05, -1, "tolerance" },
		{ RTHS_HS_GENERALIZED_ALPHA, NAN, 0.8, -0.05, 1e-10, "dt" },
		{ RTHS_HS_HHT_ALPHA, INFINITY, 0.8, -0.05, 1e-10, "dt" },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct rths_hs_stepper_params p;
		struct rths_error err = { 0 };

		rths_hs_stepper_defaults(&p, bad[i].m, bad[i].dt);
		p.rho_inf = bad[i].rho;
		p.alpha = bad[i].alpha;
		p.tol = bad[i].tol;
		EXPECT_EQ(-RTHS_E_OUT_OF_RANGE,
			  rths_hs_stepper_params_check(&p, &err));
		EXPECT_STREQ(bad[i].path, err.path);
	}
}

TEST(non_finite_force_and_specimen_refused)
{
	struct rths_hs_specimen_estimate est = { 0 };
	struct rths_hs_stepper_params p;
	struct rths_error err = { 0 };
	struct rths_hs_stepper *st;
	struct rths_hs_model mo;
	double f = NAN;
	const double *u;

	params(&p, RTHS_HS_HHT_ALPHA, 0.01, -0.1);
	sdof(&mo, 1, 100, 0);
	EXPECT_EQ(-RTHS_E_UNSUPPORTED,
		  rths_hs_stepper_new(&st, &mo, &est, &p, NULL));
	ASSERT_EQ(0, rths_hs_stepper_new(&st, &mo, NULL, &p, NULL));
	rths_hs_stepper_start(st, NULL, NULL, NULL, NULL, NULL);
	EXPECT_EQ(-RTHS_E_NONFINITE,
		  rths_hs_stepper_command(st, &f, &u, &err));
	TH_LOG("%s", err.msg);
	/* and no measured force */
	f = 0;
	ASSERT_EQ(0, rths_hs_stepper_command(st, &f, &u, NULL));
	EXPECT_EQ(-RTHS_E_UNSUPPORTED, rths_hs_stepper_accept(st, &f, NULL));
	rths_hs_stepper_free(st);
	rths_hs_model_free(&mo);
}

TEST(names_round_trip)
{
	EXPECT_STREQ("generalized_alpha",
		     rths_hs_method_name(RTHS_HS_GENERALIZED_ALPHA));
	EXPECT_STREQ("hht_alpha", rths_hs_method_name(RTHS_HS_HHT_ALPHA));
	EXPECT_EQ(RTHS_HS_GENERALIZED_ALPHA,
		  rths_hs_method_from_name("generalized_alpha"));
	EXPECT_EQ(RTHS_HS_HHT_ALPHA, rths_hs_method_from_name("hht_alpha"));
}

/* Experiment files: the names, rho_inf or alpha, fixed_iter. */
static int parse(struct rths_hs_experiment **x, const char *integrator,
		 bool specimen, struct rths_error *err)
{
	char text[1024];

	snprintf(text, sizeof(text),
		 "{ \"model\": { \"type\": \"shear_building\", \"stories\": ["
		 " { \"mass\": 500, \"stiffness\": 8e5 },"
		 " { \"mass\": 500, \"stiffness\": 6e5 } ] },"
		 " %s \"integrator\": { %s } }",
		 specimen ?
		 "\"substructure\": { \"experimental_stories\": [1] }," : "",
		 integrator);
	memset(err, 0, sizeof(*err));
	*x = NULL;
	return rths_hs_experiment_parse(text, "inline", ".", x, err);
}

TEST(experiment_files)
{
	static const struct {
		const char *integrator;
		int code;
		const char *path;
	} bad[] = {
		{ "\"method\": \"hht_alpha\", \"alpha\": -0.1, \"rho_inf\": 0.9",
		  RTHS_E_CONFLICT, "integrator.rho_inf" },
		{ "\"method\": \"hht_alpha\", \"rho_inf\": 0.4",
		  RTHS_E_OUT_OF_RANGE, "integrator.rho_inf" },
		{ "\"method\": \"generalized_alpha\", \"alpha\": -0.1",
		  RTHS_E_CONFLICT, "integrator.alpha" },
		{ "\"method\": \"newmark_implicit\", \"fixed_iter\": 2",
		  RTHS_E_CONFLICT, "integrator.fixed_iter" },
		{ "\"method\": \"generalized_alpha\", \"fixed_iter\": 2, \"max_iter\": 5",
		  RTHS_E_CONFLICT, "integrator.fixed_iter" },
		{ "\"method\": \"generalized_alpha\", \"fixed_iter\": 0",
		  RTHS_E_OUT_OF_RANGE, "integrator.fixed_iter" },
		{ "\"method\": \"generalized_alpha\", \"rho_inf\": 1.5",
		  RTHS_E_OUT_OF_RANGE, "integrator.rho_inf" },
	};
	struct rths_hs_experiment *x;
	struct rths_error err;

	ASSERT_EQ(0, parse(&x, "\"method\": \"generalized_alpha\", \"rho_inf\": 0.6, \"fixed_iter\": 3",
			   false, &err)) TH_LOG("%s", err.msg);
	EXPECT_EQ(RTHS_HS_GENERALIZED_ALPHA, x->integrator.method);
	EXPECT_EQ(0.6, x->integrator.rho_inf);
	EXPECT_EQ(3, x->integrator.max_iter);
	EXPECT_EQ(0, x->integrator.tol);
	rths_hs_experiment_free(x);
	ASSERT_EQ(0, parse(&x, "\"method\": \"hht_alpha\", \"rho_inf\": 0.5, \"max_iter\": 7, \"tolerance\": 1e-8",
			   false, &err)) TH_LOG("%s", err.msg);
	EXPECT_EQ(RTHS_HS_HHT_ALPHA, x->integrator.method);
	EXPECT_LT(fabs(x->integrator.alpha + 1.0 / 3), 1e-15);
	EXPECT_EQ(7, x->integrator.max_iter);
	EXPECT_EQ(1e-8, x->integrator.tol);
	rths_hs_experiment_free(x);
	ASSERT_EQ(0, parse(&x, "\"method\": \"hht_alpha\", \"alpha\": -0.2",
			   false, &err)) TH_LOG("%s", err.msg);
	EXPECT_EQ(-0.2, x->integrator.alpha);
	rths_hs_experiment_free(x);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT_EQ(-bad[i].code, parse(&x, bad[i].integrator, false,
					      &err)) TH_LOG("%s", bad[i].integrator);
		EXPECT_STREQ(bad[i].path, err.path) TH_LOG("%s", err.msg);
		EXPECT_EQ(NULL, x);
	}
	/* all-numerical only */
	EXPECT_EQ(-RTHS_E_UNSUPPORTED,
		  parse(&x, "\"method\": \"generalized_alpha\"", true, &err));
	EXPECT_STREQ("integrator.method", err.path);
	TH_LOG("%s", err.msg);
}

TEST_HARNESS_MAIN
