// SPDX-License-Identifier: LGPL-2.1-or-later
/* CBLAS/LAPACKE wrappers: one storage convention, errors as rths_hs_error. */
#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hs/linalg.h"

void rths_hs_la_gemv(size_t rows, size_t cols, double alpha, const double *A,
		     const double *x, double beta, double *y)
{
	cblas_dgemv(CblasColMajor, CblasNoTrans, (int)rows, (int)cols, alpha,
		    A, (int)rows, x, 1, beta, y, 1);
}

void rths_hs_la_gemv_t(size_t rows, size_t cols, double alpha,
		       const double *A, const double *x, double beta,
		       double *y)
{
	cblas_dgemv(CblasColMajor, CblasTrans, (int)rows, (int)cols, alpha,
		    A, (int)rows, x, 1, beta, y, 1);
}

void rths_hs_la_gemm(size_t m, size_t n, size_t k, double alpha,
		     const double *A, const double *B, double beta, double *C)
{
	cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)m, (int)n,
		    (int)k, alpha, A, (int)m, B, (int)k, beta, C, (int)m);
}

void rths_hs_la_axpy(size_t n, double alpha, const double *x, double *y)
{
	cblas_daxpy((int)n, alpha, x, 1, y, 1);
}

double rths_hs_la_dot(size_t n, const double *x, const double *y)
{
	return cblas_ddot((int)n, x, 1, y, 1);
}

double rths_hs_la_norm_inf(size_t n, const double *x)
{
	double m = 0.0;

	for (size_t i = 0; i < n; i++)
		if (fabs(x[i]) > m || isnan(x[i]))
			m = isnan(x[i]) ? NAN : fabs(x[i]);
	return m;
}

double *rths_hs_zalloc(size_t count, struct rths_hs_error *err)
{
	double *p = calloc(count ? count : 1, sizeof(*p));

	if (!p)
		rths_hs_fail(err, RTHS_HS_E_NOMEM, NULL, 0, NULL,
			     "cannot allocate %zu numbers", count);
	return p;
}

bool rths_hs_la_all_finite(size_t n, const double *x)
{
	double s = 0;

	/* x - x is 0 for finite x and NaN otherwise; NaN sticks. */
	for (size_t i = 0; i < n; i++)
		s += x[i] - x[i];
	return s == 0;
}

static bool is_diagonal(size_t n, const double *A)
{
	for (size_t j = 0; j < n; j++)
		for (size_t i = 0; i < n; i++)
			if (i != j && A[j * n + i] != 0)
				return false;
	return true;
}

int rths_hs_lu_factor(struct rths_hs_lu *lu, size_t n, const double *A,
		      const char *what, struct rths_hs_error *err)
{
	lapack_int info;

	memset(lu, 0, sizeof(*lu));
	lu->n = n;
	lu->diagonal = is_diagonal(n, A);
	lu->lu = malloc(n * n * sizeof(*lu->lu));
	lu->ipiv = malloc(n * sizeof(*lu->ipiv));
	lu->inv = malloc((lu->diagonal ? n : n * n) * sizeof(*lu->inv));
	lu->tmp = malloc(n * sizeof(*lu->tmp));
	if (!lu->lu || !lu->ipiv || !lu->inv || !lu->tmp) {
		rths_hs_lu_free(lu);
		return rths_hs_fail(err, RTHS_HS_E_NOMEM, NULL, 0, NULL,
				    "cannot allocate the factors of %s", what);
	}
	memcpy(lu->lu, A, n * n * sizeof(*A));
	info = LAPACKE_dgetrf(LAPACK_COL_MAJOR, (lapack_int)n, (lapack_int)n,
			      lu->lu, (lapack_int)n, lu->ipiv);
	if (info != 0) {
		rths_hs_lu_free(lu);
		return rths_hs_fail(err, RTHS_HS_E_SINGULAR, NULL, 0, NULL,
				    "%s is singular (dgetrf info %d)", what,
				    (int)info);
	}
	if (lu->diagonal) {
		for (size_t i = 0; i < n; i++)
			lu->inv[i] = 1.0 / A[i * n + i];
		return 0;
	}
	memcpy(lu->inv, lu->lu, n * n * sizeof(*A));
	info = LAPACKE_dgetri(LAPACK_COL_MAJOR, (lapack_int)n, lu->inv,
			      (lapack_int)n, lu->ipiv);
	if (info != 0) {
		rths_hs_lu_free(lu);
		return rths_hs_fail(err, RTHS_HS_E_SINGULAR, NULL, 0, NULL,
				    "%s cannot be inverted (dgetri info %d)",
				    what, (int)info);
	}
	return 0;
}

void rths_hs_lu_solve(const struct rths_hs_lu *lu, double *b, size_t nrhs)
{
	size_t n = lu->n;

	if (nrhs != 1) {
		LAPACKE_dgetrs(LAPACK_COL_MAJOR, 'N', (lapack_int)n,
			       (lapack_int)nrhs, lu->lu, (lapack_int)n,
			       lu->ipiv, b, (lapack_int)n);
		return;
	}
	if (lu->diagonal) {
		for (size_t i = 0; i < n; i++)
			b[i] *= lu->inv[i];
		return;
	}
	memcpy(lu->tmp, b, n * sizeof(*b));
	rths_hs_la_gemv(n, n, 1.0, lu->inv, lu->tmp, 0.0, b);
}

void rths_hs_lu_free(struct rths_hs_lu *lu)
{
	free(lu->lu);
	free(lu->ipiv);
	free(lu->inv);
	free(lu->tmp);
	lu->lu = NULL;
	lu->ipiv = NULL;
	lu->inv = NULL;
	lu->tmp = NULL;
}

int rths_hs_la_solve(size_t n, const double *A, double *B, size_t nrhs,
		     const char *what, struct rths_hs_error *err)
{
	struct rths_hs_lu lu;
	int r = rths_hs_lu_factor(&lu, n, A, what, err);

	if (r < 0)
		return r;
	rths_hs_lu_solve(&lu, B, nrhs);
	rths_hs_lu_free(&lu);
	return 0;
}

int rths_hs_la_eig(size_t n, const double *K, const double *M, double *omega,
		   double *phi, struct rths_hs_error *err)
{
	double *a = malloc(n * n * sizeof(*a));
	double *b = malloc(n * n * sizeof(*b));
	lapack_int info;
	int r = 0;

	if (!a || !b) {
		r = rths_hs_fail(err, RTHS_HS_E_NOMEM, NULL, 0, NULL,
				 "cannot allocate the eigenproblem");
		goto out;
	}
	memcpy(a, K, n * n * sizeof(*a));
	memcpy(b, M, n * n * sizeof(*b));
	info = LAPACKE_dsygv(LAPACK_COL_MAJOR, 1, phi ? 'V' : 'N', 'U',
			     (lapack_int)n, a, (lapack_int)n, b, (lapack_int)n,
			     omega);
	if (info > (lapack_int)n) {
		r = rths_hs_fail(err, RTHS_HS_E_NOT_POSITIVE_DEFINITE, NULL, 0,
				 NULL, "the mass matrix is not positive definite");
		goto out;
	}
	if (info != 0) {
		r = rths_hs_fail(err, RTHS_HS_E_SINGULAR, NULL, 0, NULL,
				 "eigenvalue solver failed (dsygv info %d)",
				 (int)info);
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		omega[i] = omega[i] >= 0 ? sqrt(omega[i]) : -sqrt(-omega[i]);
	if (phi)
		memcpy(phi, a, n * n * sizeof(*a));
out:
	free(a);
	free(b);
	return r;
}

int rths_hs_la_lstsq(size_t rows, size_t cols, const double *A, double *b,
		     double rcond, int *rank, struct rths_hs_error *err)
{
	size_t ldb = rows > cols ? rows : cols;
	double *a = malloc(rows * cols * sizeof(*a));
	double *s = malloc((rows < cols ? rows : cols) * sizeof(*s) + 1);
	lapack_int rk = 0, info;
	int r = 0;

	if (!a || !s) {
		r = rths_hs_fail(err, RTHS_HS_E_NOMEM, NULL, 0, NULL,
				 "cannot allocate a least-squares problem");
		goto out;
	}
	memcpy(a, A, rows * cols * sizeof(*a));
	info = LAPACKE_dgelsd(LAPACK_COL_MAJOR, (lapack_int)rows,
			      (lapack_int)cols, 1, a, (lapack_int)rows, b,
			      (lapack_int)ldb, s, rcond, &rk);
	if (info != 0)
		r = rths_hs_fail(err, RTHS_HS_E_SINGULAR, NULL, 0, NULL,
				 "least-squares solver failed (dgelsd info %d)",
				 (int)info);
	if (rank)
		*rank = (int)rk;
out:
	free(a);
	free(s);
	return r;
}
