// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/la, the linear algebra lib/hs and lib/ode share: products, LU and
 * Cholesky solves and the rest against small cases computed by hand, and
 * residual checks on random systems.  Everything is column-major.
 */
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"

#include "la/la.h"

/* Deterministic numbers in [-1, 1) (xorshift64). */
static double rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return (double)(*s >> 11) / (double)(1ULL << 52) - 1.0;
}

/* max_i |A x - b|_i / (|A|_max |x|_inf n): rounding-sized when solved */
static double residual(size_t n, const double *A, const double *x,
		       const double *b)
{
	double r = 0, xn = la_norm_inf(n, x), an = la_norm_inf(n * n, A);

	for (size_t i = 0; i < n; i++) {
		double s = -b[i];

		for (size_t j = 0; j < n; j++)
			s += LA_AT(A, n, i, j) * x[j];
		r = fmax(r, fabs(s));
	}
	return r / (an * xn * (double)n);
}

TEST(gemv_gemm_by_hand)
{
	/* A = [1 2 3; 4 5 6] */
	const double A[6] = { 1, 4, 2, 5, 3, 6 };
	const double x[3] = { 1, -1, 2 }, u[2] = { 1, 2 };
	double y[2] = { 10, 20 }, z[3] = { 0, 0, 0 }, C[4];
	/* B = [1 0; 0 1; 1 1] */
	const double B[6] = { 1, 0, 1, 0, 1, 1 };

	la_gemv(2, 3, 2.0, A, x, 0.5, y);	/* 2 A x + y / 2 */
	EXPECT_EQ(2 * (1 - 2 + 6) + 5, y[0]);
	EXPECT_EQ(2 * (4 - 5 + 12) + 10, y[1]);
	la_gemv_t(2, 3, 1.0, A, u, 0.0, z);	/* A^T u */
	EXPECT_EQ(9, z[0]);
	EXPECT_EQ(12, z[1]);
	EXPECT_EQ(15, z[2]);
	la_gemm(2, 2, 3, 1.0, A, B, 0.0, C);	/* A B = [4 5; 10 11] */
	EXPECT_EQ(4, LA_AT(C, 2, 0, 0));
	EXPECT_EQ(10, LA_AT(C, 2, 1, 0));
	EXPECT_EQ(5, LA_AT(C, 2, 0, 1));
	EXPECT_EQ(11, LA_AT(C, 2, 1, 1));
	la_axpy(3, -1.0, z, z);
	EXPECT_EQ(0, la_norm_inf(3, z));
	EXPECT_EQ(1 - 2 + 6, la_dot(3, x, (const double[]){ 1, 2, 3 }));
}

TEST(norms_and_finiteness)
{
	double v[3] = { 1, -7, 3 };

	EXPECT_EQ(7, la_norm_inf(3, v));
	EXPECT_TRUE(la_all_finite(3, v));
	v[2] = NAN;
	EXPECT_TRUE(isnan(la_norm_inf(3, v)));
	EXPECT_FALSE(la_all_finite(3, v));
	v[2] = -INFINITY;
	EXPECT_FALSE(la_all_finite(3, v));
}

/* [2 1 1; 1 3 2; 1 0 0] x = b for x = (1, 2, 3), b = (7, 13, 1) */
static const double A3[9] = { 2, 1, 1, 1, 3, 0, 1, 2, 0 };

static void check_lu(struct __test_metadata *_metadata, unsigned int flags)
{
	struct la_lin l;
	struct rths_mat m = la_dense(3, 3, (double *)A3);
	double b[6] = { 7, 13, 1, 2, 1, 1 };	/* second: A e1 */

	ASSERT_EQ(0, la_lin_init(&l, &la_dense_lu, 3, flags));
	ASSERT_EQ(0, la_lin_factor(&l, &m));
	la_lin_solve(&l, b, 1);
	for (int k = 0; k < 3; k++) {
		double xk = b[k];

		EXPECT_TRUE(fabs(xk - (k + 1)) < 1e-14) TH_LOG("x%d %g", k, xk);
	}
	b[0] = 7;
	b[1] = 13;
	b[2] = 1;
	la_lin_solve(&l, b, 2);
	for (int i = 0; i < 3; i++) {
		EXPECT_TRUE(fabs(b[i] - (i + 1)) < 1e-14);
		EXPECT_TRUE(fabs(b[3 + i] - (i == 0)) < 1e-14);
	}
	la_lin_free(&l);
	la_lin_free(&l);	/* idempotent */
}

TEST(lu_by_hand)
{
	check_lu(_metadata, 0);
}

TEST(lu_inverse_by_hand)
{
	check_lu(_metadata, LA_LIN_INVERSE);
}

/* A view whose leading dimension exceeds its rows: the padding is not
 * part of the matrix. */
TEST(lu_of_a_strided_view)
{
	double pad[12];
	struct rths_mat m = { RTHS_MAT_DENSE, 3, 3, 4, pad };
	struct la_lin l;
	double b[3] = { 7, 13, 1 };

	for (int i = 0; i < 12; i++)
		pad[i] = 1e300;
	for (int j = 0; j < 3; j++)
		for (int i = 0; i < 3; i++)
			RTHS_MAT(&m, i, j) = LA_AT(A3, 3, i, j);
	ASSERT_EQ(0, la_lin_init(&l, &la_dense_lu, 3, 0));
	ASSERT_EQ(0, la_lin_factor(&l, &m));
	la_lin_solve(&l, b, 1);
	for (int i = 0; i < 3; i++)
		EXPECT_TRUE(fabs(b[i] - (i + 1)) < 1e-14);
	la_lin_free(&l);
}

/* An empty system (a model without DOFs in some direction) is solved. */
TEST(lu_empty)
{
	struct la_lin l;
	struct rths_mat m = la_dense(0, 0, NULL);

	for (unsigned int f = 0; f <= LA_LIN_INVERSE; f += LA_LIN_INVERSE) {
		ASSERT_EQ(0, la_lin_init(&l, &la_dense_lu, 0, f));
		ASSERT_EQ(0, la_lin_factor(&l, &m));
		la_lin_solve(&l, NULL, 1);
		la_lin_free(&l);
	}
}

TEST(lu_rejects_singular_and_misfit)
{
	/* rank 1 */
	double S[4] = { 1, 2, 2, 4 };
	struct rths_mat m = la_dense(2, 2, S), wrong = la_dense(3, 3, S);
	struct la_lin l;

	for (unsigned int f = 0; f <= LA_LIN_INVERSE; f += LA_LIN_INVERSE) {
		ASSERT_EQ(0, la_lin_init(&l, &la_dense_lu, 2, f));
		EXPECT_EQ(LA_ESINGULAR, la_lin_factor(&l, &m));
		EXPECT_GT(l.info, 0);
		EXPECT_FALSE(l.factored);
		EXPECT_EQ(LA_EINVAL, la_lin_factor(&l, &wrong));
		la_lin_free(&l);
	}
	EXPECT_EQ(LA_ESINGULAR, la_solve(2, S, (double[]){ 1, 1 }, 1));
}

/* A lumped (diagonal) matrix is solved by scaling; off-diagonal zeros
 * are what makes it diagonal, not its size. */
TEST(lu_diagonal)
{
	double D[9] = { 2, 0, 0, 0, 4, 0, 0, 0, 8 }, b[3] = { 1, 1, 1 };
	struct rths_mat m = la_dense(3, 3, D);
	struct la_lin l;

	ASSERT_EQ(0, la_lin_init(&l, &la_dense_lu, 3, LA_LIN_INVERSE));
	ASSERT_EQ(0, la_lin_factor(&l, &m));
	EXPECT_TRUE(l.diagonal);
	la_lin_solve(&l, b, 1);
	EXPECT_EQ(0.5, b[0]);
	EXPECT_EQ(0.25, b[1]);
	EXPECT_EQ(0.125, b[2]);
	D[1] = 1;
	ASSERT_EQ(0, la_lin_factor(&l, &m));
	EXPECT_FALSE(l.diagonal);
	la_lin_free(&l);
}

TEST(lu_random_residuals)
{
	uint64_t seed = 0x9e3779b97f4a7c15ULL;

	for (size_t n = 1; n <= 60; n += 7) {
		double *A = malloc(n * n * sizeof(*A));
		double *x = malloc(n * sizeof(*x)), *b = malloc(n * sizeof(*b));
		double *x2 = malloc(n * sizeof(*x2));
		struct rths_mat m = la_dense(n, n, A);

		ASSERT_TRUE(A && x && b && x2);
		for (size_t i = 0; i < n * n; i++)
			A[i] = rnd(&seed);
		for (size_t i = 0; i < n; i++)
			b[i] = rnd(&seed);
		for (unsigned int f = 0; f <= LA_LIN_INVERSE;
		     f += LA_LIN_INVERSE) {
			struct la_lin l;
			double r;

			memcpy(x, b, n * sizeof(*b));
			ASSERT_EQ(0, la_lin_init(&l, &la_dense_lu, n, f));
			ASSERT_EQ(0, la_lin_factor(&l, &m));
			la_lin_solve(&l, x, 1);
			r = residual(n, A, x, b);
			EXPECT_TRUE(r < 1e-13) TH_LOG("n %zu flags %u: %g", n, f, r);
			la_lin_free(&l);
		}
		memcpy(x2, b, n * sizeof(*b));
		ASSERT_EQ(0, la_solve(n, A, x2, 1));
		EXPECT_TRUE(residual(n, A, x2, b) < 1e-13);
		free(A);
		free(x);
		free(b);
		free(x2);
	}
}

/* A compressed copy of the nonzeros of a dense n x n matrix. */
struct csc_buf {
	struct la_csc m;
	int *colptr, *rowind;
};

static void csc_from_dense(struct csc_buf *c, size_t n, const double *D)
{
	size_t nnz = 0;

	for (size_t i = 0; i < n * n; i++)
		nnz += D[i] != 0;
	c->colptr = malloc((n + 1) * sizeof(int));
	c->rowind = malloc((nnz + 1) * sizeof(int));
	c->m = (struct la_csc){ .rows = n, .cols = n, .colptr = c->colptr,
				.rowind = c->rowind,
				.x = malloc((nnz + 1) * sizeof(double)) };
	nnz = 0;
	for (size_t j = 0; j < n; j++) {
		c->colptr[j] = (int)nnz;
		for (size_t i = 0; i < n; i++)
			if (LA_AT(D, n, i, j) != 0) {
				c->rowind[nnz] = (int)i;
				c->m.x[nnz++] = LA_AT(D, n, i, j);
			}
	}
	c->colptr[n] = (int)nnz;
}

static void csc_free(struct csc_buf *c)
{
	free(c->colptr);
	free(c->rowind);
	free(c->m.x);
}

/*
 * A random sparse n x n matrix, about @per_col off-diagonal entries a
 * column: symmetric positive definite (diagonally dominant) or
 * unsymmetric with a weak diagonal (so that KLU has to pivot).
 */
static void random_sparse(size_t n, int spd, size_t per_col, uint64_t *seed,
			  double *D)
{
	memset(D, 0, n * n * sizeof(*D));
	for (size_t j = 0; j < n; j++)
		for (size_t k = 0; k < per_col; k++) {
			size_t i = (size_t)((rnd(seed) + 1) / 2 * (double)n);

			if (i >= n || i == j)
				continue;
			LA_AT(D, n, i, j) = rnd(seed);
			if (spd)
				LA_AT(D, n, j, i) = LA_AT(D, n, i, j);
		}
	for (size_t i = 0; i < n; i++) {
		double s = 0;

		for (size_t j = 0; j < n; j++)
			s += fabs(LA_AT(D, n, i, j));
		LA_AT(D, n, i, i) = spd ? s + 1 : 0.1 * rnd(seed);
	}
}

/* KLU and the dense LU (from the CSC) solve alike; x = A^-1 b. */
static int sparse_vs_dense(struct __test_metadata *_metadata, size_t n,
			   const double *D, const struct la_csc *A,
			   const double *b, size_t nrhs, double *err)
{
	struct la_lin ks, dl;
	double *xs = malloc(n * nrhs * sizeof(*xs) + 1);
	double *xd = malloc(n * nrhs * sizeof(*xd) + 1);
	int r;

	memcpy(xs, b, n * nrhs * sizeof(*b));
	memcpy(xd, b, n * nrhs * sizeof(*b));
	EXPECT_EQ(0, la_lin_init(&ks, &la_klu_lu, n, 0));
	EXPECT_EQ(0, la_lin_init(&dl, &la_dense_lu, n, 0));
	r = la_lin_factor_csc(&ks, A);
	EXPECT_EQ(0, la_lin_factor_csc(&dl, A));
	if (!r) {
		la_lin_solve(&ks, xs, nrhs);
		la_lin_solve(&dl, xd, nrhs);
		*err = 0;
		for (size_t c = 0; c < nrhs; c++) {
			double e = residual(n, D, xs + c * n, b + c * n);

			*err = fmax(*err, e);
			for (size_t i = 0; i < n; i++)
				*err = fmax(*err, fabs(xs[c * n + i] -
						       xd[c * n + i]) /
					    (la_norm_inf(n, xd + c * n) *
					     (double)n));
		}
	}
	la_lin_free(&ks);
	la_lin_free(&dl);
	free(xs);
	free(xd);
	return r;
}

TEST(sparse_random_vs_dense)
{
	uint64_t seed = 0x2545f4914f6cdd1dULL;

	for (int spd = 0; spd <= 1; spd++)
		for (size_t n = 1; n <= 200; n = n * 3 + 1) {
			double *D = malloc(n * n * sizeof(*D));
			double *b = malloc(2 * n * sizeof(*b));
			struct csc_buf c;
			double err = 1;

			ASSERT_TRUE(D && b);
			random_sparse(n, spd, 3, &seed, D);
			csc_from_dense(&c, n, D);
			ASSERT_EQ(0, la_csc_check(&c.m));
			for (size_t i = 0; i < 2 * n; i++)
				b[i] = rnd(&seed);
			ASSERT_EQ(0, sparse_vs_dense(_metadata, n, D, &c.m, b,
						     2, &err));
			EXPECT_TRUE(err < 1e-12)
				TH_LOG("%s n %zu: %g", spd ? "spd" : "unsym",
				       n, err);
			csc_free(&c);
			free(D);
			free(b);
		}
}

/* New values on the same pattern (a refactorization), then values that
 * make the old pivot order fail, then a new pattern. */
TEST(sparse_refactor_and_new_pattern)
{
	/* A = [4 1 0; 1 4 1; 0 1 4] */
	int cp[4] = { 0, 2, 5, 7 }, ri[7] = { 0, 1, 0, 1, 2, 1, 2 };
	double x[7] = { 4, 1, 1, 4, 1, 1, 4 }, b[3], D[9];
	struct la_csc A = { 3, 3, cp, ri, x };
	struct la_lin l;

	ASSERT_EQ(0, la_lin_init(&l, &la_klu_lu, 3, 0));
	EXPECT_EQ(0, la_klu_factor_nnz(&l));
	for (int round = 0; round < 4; round++) {
		if (round == 1) {
			x[0] = 2;	/* [2 1 0; 1 4 1; 0 1 -3] */
			x[6] = -3;
		} else if (round == 2) {
			x[0] = 0;	/* a zero pivot where one was */
			x[3] = 0;	/* [0 1 0; 1 0 1; 0 1 -3] */
		} else if (round == 3) {
			/* the diagonal only: [5 0 0; 0 6 0; 0 0 7] */
			cp[1] = 1;
			cp[2] = 2;
			cp[3] = 3;
			ri[1] = 1;
			ri[2] = 2;
			x[1] = 6;
			x[2] = 7;
			x[0] = 5;
		}
		for (int i = 0; i < 3; i++)
			b[i] = i + 1;
		la_csc_to_dense(&A, D);
		ASSERT_EQ(0, la_lin_factor_csc(&l, &A)) TH_LOG("round %d", round);
		EXPECT_TRUE(l.factored);
		/* no fill without pivoting: L + U hold A's entries; the
		 * zero pivot of round 2 made KLU pivot and fill */
		if (round == 2) {
			EXPECT_LT(la_csc_nnz(&A), la_klu_factor_nnz(&l));
		} else {
			EXPECT_EQ(la_csc_nnz(&A), la_klu_factor_nnz(&l));
		}
		la_lin_solve(&l, b, 1);
		EXPECT_TRUE(residual(3, D, b, (double[]){ 1, 2, 3 }) < 1e-15)
			TH_LOG("round %d", round);
	}
	EXPECT_EQ(0.2, b[0]);
	la_lin_free(&l);
	la_lin_free(&l);
}

TEST(sparse_rejects_singular_and_misfit)
{
	/* [1 2 0; 2 4 0; 0 0 1]: rank 2 */
	int cp[4] = { 0, 2, 4, 5 }, ri[5] = { 0, 1, 0, 1, 2 };
	double x[5] = { 1, 2, 2, 4, 1 }, d[4] = { 1, 0, 0, 1 };
	struct la_csc A = { 3, 3, cp, ri, x };
	struct rths_mat dense = la_dense(2, 2, d);
	int bad[5] = { 0, 1, 0, 1, 2 };
	struct la_lin l;

	ASSERT_EQ(0, la_lin_init(&l, &la_klu_lu, 3, 0));
	EXPECT_EQ(LA_ESINGULAR, la_lin_factor_csc(&l, &A));
	EXPECT_FALSE(l.factored);
	EXPECT_NE(0, l.info);
	/* and after a good factorization, a refactorization to singular */
	x[3] = 5;
	ASSERT_EQ(0, la_lin_factor_csc(&l, &A));
	x[3] = 4;
	EXPECT_EQ(LA_ESINGULAR, la_lin_factor_csc(&l, &A));
	EXPECT_FALSE(l.factored);
	/* the dense LU of the same CSC agrees */
	{
		struct la_lin dl;

		ASSERT_EQ(0, la_lin_init(&dl, &la_dense_lu, 3, 0));
		EXPECT_EQ(LA_ESINGULAR, la_lin_factor_csc(&dl, &A));
		la_lin_free(&dl);
	}
	/* rows out of order, out of range; a dense matrix; wrong order */
	A.rowind = (int[5]){ 1, 0, 0, 1, 2 };
	EXPECT_EQ(LA_EINVAL, la_csc_check(&A));
	EXPECT_EQ(LA_EINVAL, la_lin_factor_csc(&l, &A));
	bad[4] = 3;
	A.rowind = bad;
	EXPECT_EQ(LA_EINVAL, la_lin_factor_csc(&l, &A));
	EXPECT_EQ(LA_EINVAL, la_lin_factor(&l, &dense));
	A.rows = A.cols = 2;
	EXPECT_EQ(LA_EINVAL, la_lin_factor_csc(&l, &A));
	la_lin_free(&l);
}

TEST(sparse_gemv_and_dense_copy)
{
	/* [1 0 2; 0 3 0] */
	int cp[4] = { 0, 1, 2, 3 }, ri[3] = { 0, 1, 0 };
	double x[3] = { 1, 3, 2 }, D[6], y[2] = { 1, 1 };
	struct la_csc A = { 2, 3, cp, ri, x };

	la_csc_to_dense(&A, D);
	EXPECT_EQ(1, D[0]);
	EXPECT_EQ(0, D[1]);
	EXPECT_EQ(0, D[2]);
	EXPECT_EQ(3, D[3]);
	EXPECT_EQ(2, D[4]);
	EXPECT_EQ(0, D[5]);
	la_csc_gemv(&A, 2.0, (double[]){ 1, 1, 1 }, -1.0, y);
	EXPECT_EQ(2 * 3 - 1, y[0]);
	EXPECT_EQ(2 * 3 - 1, y[1]);
	la_csc_gemv(&A, 1.0, (double[]){ 1, -1, 1 }, 0.0, y);
	EXPECT_EQ(3, y[0]);
	EXPECT_EQ(-3, y[1]);
}

/* [4 2; 2 3] = U^T U with U = [2 1; 0 sqrt 2] */
TEST(cholesky_by_hand)
{
	double A[4] = { 4, 2, 2, 3 }, b[2] = { 8, 7 }, rc = 0;

	ASSERT_EQ(0, la_chol_factor(2, A, 1e-12, &rc));
	EXPECT_EQ(2, LA_AT(A, 2, 0, 0));
	EXPECT_EQ(1, LA_AT(A, 2, 0, 1));
	EXPECT_TRUE(fabs(LA_AT(A, 2, 1, 1) - sqrt(2)) < 1e-15);
	/* 1-norm 6, |A^-1|_1 = 6 / 8: rcond 1 / 4.5, estimated */
	EXPECT_TRUE(rc > 0.1 && rc <= 1 / 4.5 + 1e-12) TH_LOG("rcond %g", rc);
	la_chol_solve(2, A, b, 1);	/* x = (1.25, 1.5) */
	EXPECT_TRUE(fabs(b[0] - 1.25) < 1e-15 && fabs(b[1] - 1.5) < 1e-15);
}

TEST(cholesky_refuses)
{
	double indef[4] = { 1, 2, 2, 1 };
	double near[4] = { 1, 1, 1, 1 + 1e-14 };

	EXPECT_EQ(LA_ENOTPD, la_chol_factor(2, indef, 0, NULL));
	EXPECT_EQ(LA_EILLCOND, la_chol_factor(2, near, 1e-12, NULL));
}

TEST(cholesky_random_residuals)
{
	uint64_t seed = 12345;
	size_t n = 40;
	double *B = malloc(n * n * sizeof(*B)), *A = malloc(n * n * sizeof(*A));
	double *U = malloc(n * n * sizeof(*U)), *x = malloc(n * sizeof(*x));
	double *b = malloc(n * sizeof(*b));

	ASSERT_TRUE(A && B && U && x && b);
	for (size_t i = 0; i < n * n; i++)
		B[i] = rnd(&seed);
	/* A = B^T B + I: symmetric positive definite */
	for (size_t j = 0; j < n; j++)
		for (size_t i = 0; i < n; i++)
			LA_AT(A, n, i, j) = la_dot(n, &LA_AT(B, n, 0, i),
						   &LA_AT(B, n, 0, j)) +
					    (i == j);
	for (size_t i = 0; i < n; i++)
		x[i] = b[i] = rnd(&seed);
	memcpy(U, A, n * n * sizeof(*A));
	ASSERT_EQ(0, la_chol_factor(n, U, 1e-12, NULL));
	la_chol_solve(n, U, x, 1);
	EXPECT_TRUE(residual(n, A, x, b) < 1e-13);
	free(A);
	free(B);
	free(U);
	free(x);
	free(b);
}

TEST(asymmetry_is_located)
{
	double A[9] = { 1, 2, 3, 2, 5, 6, 3, 6, 9 };
	size_t i = 99, j = 99;

	EXPECT_FALSE(la_asymmetry(3, A, 1e-9, &i, &j));
	LA_AT(A, 3, 2, 1) += 1e-3;	/* (2, 1) differs from (1, 2) */
	ASSERT_TRUE(la_asymmetry(3, A, 1e-9, &i, &j));
	EXPECT_EQ(2UL, i);
	EXPECT_EQ(1UL, j);
	/* within the tolerance, relative to the largest entry */
	EXPECT_FALSE(la_asymmetry(3, A, 1e-3, &i, &j));
}

/* K = diag(2, 8), M = 2 I: eigenvalues 1 and 4, M-orthonormal vectors */
TEST(symmetric_eigenproblem_by_hand)
{
	double K[4] = { 8, 0, 0, 2 }, M[4] = { 2, 0, 0, 2 }, w[2], phi[4];
	double notpd[4] = { 1, 0, 0, -1 };

	ASSERT_EQ(0, la_sym_eig(2, K, M, w, phi));
	EXPECT_TRUE(fabs(w[0] - 1) < 1e-14 && fabs(w[1] - 4) < 1e-14);
	/* the first mode is the second coordinate, scaled to phi^T M phi = 1 */
	EXPECT_TRUE(fabs(fabs(LA_AT(phi, 2, 1, 0)) - sqrt(0.5)) < 1e-14);
	EXPECT_TRUE(fabs(LA_AT(phi, 2, 0, 0)) < 1e-14);
	EXPECT_EQ(LA_ENOTPD, la_sym_eig(2, K, notpd, w, NULL));
}

/* The line y = 1 + 2 t through (0, 1), (1, 3), (2, 5) exactly, and the
 * minimum-norm answer of an underdetermined x1 + x2 = 2. */
TEST(least_squares_by_hand)
{
	double A[6] = { 1, 1, 1, 0, 1, 2 }, b[3] = { 1, 3, 5 };
	double U[2] = { 1, 1 }, c[2] = { 2, 0 };
	int rank = 0;

	ASSERT_EQ(0, la_lstsq(3, 2, A, b, 1e-12, &rank));
	EXPECT_EQ(2, rank);
	EXPECT_TRUE(fabs(b[0] - 1) < 1e-13 && fabs(b[1] - 2) < 1e-13);
	ASSERT_EQ(0, la_lstsq(1, 2, U, c, 1e-12, &rank));
	EXPECT_EQ(1, rank);
	EXPECT_TRUE(fabs(c[0] - 1) < 1e-14 && fabs(c[1] - 1) < 1e-14);
}

TEST_HARNESS_MAIN
