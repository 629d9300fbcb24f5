// SPDX-License-Identifier: LGPL-2.1-or-later
/* Dense factorizations other than LU: Cholesky, eigenvalues, least squares. */
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "la/la.h"

int la_chol_factor(size_t n, double *A, double rcond_min, double *rcond)
{
	lapack_int ln = (lapack_int)n;
	double anorm = 0, rc = 0;

	if (rcond_min > 0)
		/* 1-norm of the symmetric matrix from its upper triangle */
		for (size_t j = 0; j < n; j++) {
			double s = 0;

			for (size_t i = 0; i < n; i++)
				s += fabs(i <= j ? LA_AT(A, n, i, j) :
					  LA_AT(A, n, j, i));
			anorm = fmax(anorm, s);
		}
	if (LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'U', ln, A, ln) != 0)
		return LA_ENOTPD;
	if (rcond_min <= 0)
		return 0;
	if (LAPACKE_dpocon(LAPACK_COL_MAJOR, 'U', ln, A, ln, anorm, &rc) != 0)
		return LA_EFAIL;
	if (rcond)
		*rcond = rc;
	return rc < rcond_min ? LA_EILLCOND : 0;
}

void la_chol_solve(size_t n, const double *U, double *B, size_t nrhs)
{
	LAPACKE_dpotrs(LAPACK_COL_MAJOR, 'U', (lapack_int)n, (lapack_int)nrhs,
		       U, (lapack_int)n, B, (lapack_int)n);
}

int la_sym_eig(size_t n, const double *K, const double *M, double *w,
	       double *phi)
{
	double *a = malloc(n * n * sizeof(*a));
	double *b = malloc(n * n * sizeof(*b));
	lapack_int info;
	int r = 0;

	if (!a || !b) {
		r = LA_ENOMEM;
		goto out;
	}
	memcpy(a, K, n * n * sizeof(*a));
	memcpy(b, M, n * n * sizeof(*b));
	info = LAPACKE_dsygv(LAPACK_COL_MAJOR, 1, phi ? 'V' : 'N', 'U',
			     (lapack_int)n, a, (lapack_int)n, b, (lapack_int)n,
			     w);
	if (info > (lapack_int)n)
		r = LA_ENOTPD;
	else if (info != 0)
		r = LA_EFAIL;
	else if (phi)
		memcpy(phi, a, n * n * sizeof(*a));
out:
	free(a);
	free(b);
	return r;
}

int la_eig(size_t n, double *A, double *wr, double *wi)
{
	double vl = 0, vr = 0;
	lapack_int info;

	if (!n)
		return 0;
	info = LAPACKE_dgeev(LAPACK_COL_MAJOR, 'N', 'N', (lapack_int)n, A,
			     (lapack_int)n, wr, wi, &vl, 1, &vr, 1);
	return info ? LA_EFAIL : 0;
}

int la_lstsq(size_t rows, size_t cols, const double *A, double *b,
	     double rcond, int *rank)
{
	size_t ldb = rows > cols ? rows : cols;
	double *a = malloc(rows * cols * sizeof(*a) + 1);
	double *s = malloc((rows < cols ? rows : cols) * sizeof(*s) + 1);
	lapack_int rk = 0, info;
	int r = 0;

	if (!a || !s) {
		r = LA_ENOMEM;
		goto out;
	}
	memcpy(a, A, rows * cols * sizeof(*a));
	info = LAPACKE_dgelsd(LAPACK_COL_MAJOR, (lapack_int)rows,
			      (lapack_int)cols, 1, a, (lapack_int)rows, b,
			      (lapack_int)ldb, s, rcond, &rk);
	if (info != 0)
		r = LA_EFAIL;
	if (rank)
		*rank = (int)rk;
out:
	free(a);
	free(s);
	return r;
}
