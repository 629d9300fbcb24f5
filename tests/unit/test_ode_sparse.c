// SPDX-License-Identifier: GPL-2.0
/*
 * The Newton corrector with a sparse Jacobian (rths_ode_set_sparse_jac):
 * stiff mass chains and a 2-D mass grid solved with the sparse Jacobian
 * through KLU and through dense LU agree with the dense Jacobian's run;
 * the pattern, the method and the callback's failures are refused with
 * the documented codes.
 */
/* the harness's own definitions trip these */
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include <math.h>
#include <stdlib.h>

#include "kselftest_harness.h"
#include "../ode/lattice.h"

static const enum rths_ode_method bdf[] = {
	RTHS_ODE_GSTIFF, RTHS_ODE_WSTIFF, RTHS_ODE_DSTIFF,
	RTHS_ODE_CONSTANT_BDF,
};
#define N_BDF (sizeof(bdf) / sizeof(bdf[0]))

/* max_i |a_i - b_i| / (1e-3 + max |b|): displacements are ~1e-3 m */
static double rel_diff(size_t n, const double *a, const double *b)
{
	double d = 0, s = 1e-3;

	for (size_t i = 0; i < n; i++) {
		d = fmax(d, fabs(a[i] - b[i]));
		s = fmax(s, fabs(b[i]));
	}
	return d / s;
}

/* The pattern walks the Jacobian's nonzeros, the dense callback's, and
 * stores the diagonal (zero in the x rows). */
TEST(lattice_pattern_is_the_dense_jacobian)
{
	struct ode_lattice l = ode_lattice_default(4, 3);
	size_t n = ode_lattice_dim(&l), *cp, *ri, nnz, dense_nnz = 0, diag = 0;
	double *D = calloc(n * n, sizeof(*D)), *x;
	struct rths_mat J = { RTHS_MAT_DENSE, n, n, n, D };
	struct rths_csc S;

	ASSERT_NE(NULL, D);
	nnz = ode_lattice_pattern(&l, &cp, &ri);
	ASSERT_NE(0, nnz);
	x = calloc(nnz, sizeof(*x));
	S = (struct rths_csc){ n, n, cp, ri, x };
	ASSERT_EQ(0, ode_lattice_jac(0, NULL, &J, &l));
	ASSERT_EQ(0, ode_lattice_sparse_jac(0, NULL, &S, &l));
	for (size_t i = 0; i < n * n; i++)
		dense_nnz += D[i] != 0;
	EXPECT_EQ(0, RTHS_MAT(&J, 0, 0));
	EXPECT_EQ(dense_nnz + n / 2, nnz);
	for (size_t j = 0; j < n; j++)
		for (size_t k = cp[j]; k < cp[j + 1]; k++) {
			EXPECT_EQ(RTHS_MAT(&J, ri[k], j), x[k]);
			if (k > cp[j])
				EXPECT_LT(ri[k - 1], ri[k]);
			if (ri[k] == j)
				diag++;
		}
	EXPECT_EQ(n, diag);
	free(D);
	free(x);
	free(cp);
	free(ri);
}

/*
 * Same method, same tolerances: the sparse Jacobian through KLU and
 * through dense LU gives the dense run's answer up to rounding (the step
 * sequence may differ where an error estimate sits at a threshold, so
 * the bound is the tolerance, not rounding).
 */
static void agree(struct __test_metadata *_metadata, size_t nx, size_t ny)
{
	struct ode_lattice l = ode_lattice_default(nx, ny);
	size_t n = ode_lattice_dim(&l);
	double *yd = malloc(n * sizeof(double));
	double *ys = malloc(n * sizeof(double));

	ASSERT_TRUE(yd && ys);
	for (size_t m = 0; m < N_BDF; m++) {
		struct rths_ode_stats sd, ss;
		double h = bdf[m] == RTHS_ODE_CONSTANT_BDF ? 2e-3 : 0;

		ASSERT_EQ(0, ode_lattice_solve(&l, bdf[m], -1, 1e-6, 1e-9,
					       0.5, h, yd, &sd));
		for (int lin = RTHS_ODE_LINEAR_DENSE;
		     lin <= RTHS_ODE_LINEAR_SPARSE; lin++) {
			double d;

			ASSERT_EQ(0, ode_lattice_solve(&l, bdf[m], lin, 1e-6,
						       1e-9, 0.5, h, ys, &ss));
			d = rel_diff(n, ys, yd);
			EXPECT_TRUE(d < 1e-5)
				TH_LOG("%zux%zu %s linear %d: %g", nx, ny,
				       rths_ode_method_name(bdf[m]), lin, d);
			EXPECT_GT(ss.jac_evals, 0);
			EXPECT_GT(ss.lu_decomps, 0);
			/* within a few steps of the dense run */
			EXPECT_TRUE(ss.steps <= sd.steps + sd.steps / 10 + 2 &&
				    sd.steps <= ss.steps + ss.steps / 10 + 2)
				TH_LOG("steps %lu vs %lu", ss.steps, sd.steps);
		}
		/* the response is not trivial */
		EXPECT_GT(fabs(yd[n - 2]), 1e-5);
	}
	free(yd);
	free(ys);
}

TEST(chain_sparse_agrees_with_dense)
{
	agree(_metadata, 60, 1);
}

TEST(grid_sparse_agrees_with_dense)
{
	agree(_metadata, 6, 5);
}

/* Below RTHS_ODE_SPARSE_MIN_DIM automatic is dense LU, from it KLU: both
 * solve, and the automatic choice matches the forced one exactly. */
TEST(automatic_choice)
{
	size_t sizes[2] = { RTHS_ODE_SPARSE_MIN_DIM / 2 - 1,
			    RTHS_ODE_SPARSE_MIN_DIM / 2 };

	for (int i = 0; i < 2; i++) {
		struct ode_lattice l = ode_lattice_default(sizes[i], 1);
		size_t n = ode_lattice_dim(&l);
		double ya[RTHS_ODE_SPARSE_MIN_DIM], yf[RTHS_ODE_SPARSE_MIN_DIM];
		int forced = n >= RTHS_ODE_SPARSE_MIN_DIM ?
			     RTHS_ODE_LINEAR_SPARSE : RTHS_ODE_LINEAR_DENSE;

		ASSERT_EQ(0, ode_lattice_solve(&l, RTHS_ODE_GSTIFF,
					       RTHS_ODE_LINEAR_AUTO, 1e-6,
					       1e-9, 0.2, 0, ya, NULL));
		ASSERT_EQ(0, ode_lattice_solve(&l, RTHS_ODE_GSTIFF, forced,
					       1e-6, 1e-9, 0.2, 0, yf, NULL));
		for (size_t k = 0; k < n; k++) {
			EXPECT_EQ(yf[k], ya[k]) TH_LOG("n %zu, y[%zu]", n, k);
		}
	}
}

static int fail_jac(double t, const double *y, struct rths_csc *J, void *p)
{
	return -1;
}

static int nan_jac(double t, const double *y, struct rths_csc *J, void *p)
{
	J->values[0] = NAN;
	return 0;
}

static int dae_res(double t, const double *y, const double *yp, double *r,
		   void *p)
{
	r[0] = yp[0] + y[0];
	r[1] = yp[1] + y[1];
	return 0;
}

TEST(refusals)
{
	struct ode_lattice l = ode_lattice_default(3, 1);
	struct rths_ode_system sys = ode_lattice_system(&l);
	struct rths_ode_system dae = { .dim = 2, .res = dae_res };
	size_t *cp, *ri, nnz = ode_lattice_pattern(&l, &cp, &ri), keep;
	double y[6] = { 0 }, t;
	struct rths_ode *s;

	ASSERT_NE(0, nnz);
	s = rths_ode_new(RTHS_ODE_RKF45, &sys, NULL, NULL);
	ASSERT_NE(NULL, s);
	EXPECT_EQ(-RTHS_E_METHOD,
		  rths_ode_set_sparse_jac(s, cp, ri, ode_lattice_sparse_jac,
					  RTHS_ODE_LINEAR_AUTO));
	rths_ode_free(s);
	s = rths_ode_new(RTHS_ODE_DSTIFF, &dae, NULL, NULL);
	ASSERT_NE(NULL, s);
	EXPECT_EQ(-RTHS_E_METHOD,
		  rths_ode_set_sparse_jac(s, cp, ri, ode_lattice_sparse_jac,
					  RTHS_ODE_LINEAR_AUTO));
	rths_ode_free(s);

	s = rths_ode_new(RTHS_ODE_GSTIFF, &sys, NULL, NULL);
	ASSERT_NE(NULL, s);
	EXPECT_EQ(-EINVAL, rths_ode_set_sparse_jac(s, NULL, ri,
			ode_lattice_sparse_jac, RTHS_ODE_LINEAR_AUTO));
	EXPECT_EQ(-EINVAL, rths_ode_set_sparse_jac(s, cp, ri, NULL,
						   RTHS_ODE_LINEAR_AUTO));
	EXPECT_EQ(-EINVAL, rths_ode_set_sparse_jac(s, cp, ri,
			ode_lattice_sparse_jac, 7));
	/* column 0 (x_0): rows 0, 1 and 3; two swapped, then one out of
	 * range */
	ASSERT_EQ(3, cp[1]);
	keep = ri[0];
	ri[0] = ri[1];
	ri[1] = keep;
	EXPECT_EQ(-EINVAL, rths_ode_set_sparse_jac(s, cp, ri,
			ode_lattice_sparse_jac, RTHS_ODE_LINEAR_AUTO));
	ri[1] = ri[0];
	ri[0] = keep;
	keep = ri[nnz - 1];
	ri[nnz - 1] = 6;
	EXPECT_EQ(-EINVAL, rths_ode_set_sparse_jac(s, cp, ri,
			ode_lattice_sparse_jac, RTHS_ODE_LINEAR_AUTO));
	ri[nnz - 1] = keep;

	/* the callback's failure and non-finite values */
	ASSERT_EQ(0, rths_ode_set_sparse_jac(s, cp, ri, fail_jac,
					     RTHS_ODE_LINEAR_SPARSE));
	ASSERT_EQ(0, rths_ode_init(s, 0, y, NULL));
	EXPECT_EQ(-RTHS_E_CALLBACK, rths_ode_evolve(s, 0.1, &t, y));
	ASSERT_EQ(0, rths_ode_set_sparse_jac(s, cp, ri, nan_jac,
					     RTHS_ODE_LINEAR_SPARSE));
	ASSERT_EQ(0, rths_ode_init(s, 0, y, NULL));
	EXPECT_EQ(-RTHS_E_NONFINITE, rths_ode_evolve(s, 0.1, &t, y));
	/* and a good one after them */
	ASSERT_EQ(0, rths_ode_set_sparse_jac(s, cp, ri, ode_lattice_sparse_jac,
					     RTHS_ODE_LINEAR_SPARSE));
	ASSERT_EQ(0, rths_ode_init(s, 0, y, NULL));
	EXPECT_EQ(0, rths_ode_evolve(s, 0.1, &t, y));
	EXPECT_EQ(0.1, t);
	rths_ode_free(s);
	free(cp);
	free(ri);
}

TEST_HARNESS_MAIN
