// SPDX-License-Identifier: LGPL-2.1-or-later
/* Products and checks on column-major arrays (CBLAS where it pays). */
#include <cblas.h>
#include <math.h>

#include "la/la.h"

void la_gemv(size_t rows, size_t cols, double alpha, const double *A,
	     const double *x, double beta, double *y)
{
	cblas_dgemv(CblasColMajor, CblasNoTrans, (int)rows, (int)cols, alpha,
		    A, (int)(rows ? rows : 1), x, 1, beta, y, 1);
}

void la_gemv_t(size_t rows, size_t cols, double alpha, const double *A,
	       const double *x, double beta, double *y)
{
	cblas_dgemv(CblasColMajor, CblasTrans, (int)rows, (int)cols, alpha,
		    A, (int)(rows ? rows : 1), x, 1, beta, y, 1);
}

void la_gemm(size_t m, size_t n, size_t k, double alpha, const double *A,
	     const double *B, double beta, double *C)
{
	cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)m, (int)n,
		    (int)k, alpha, A, (int)(m ? m : 1), B, (int)(k ? k : 1),
		    beta, C, (int)(m ? m : 1));
}

void la_axpy(size_t n, double alpha, const double *x, double *y)
{
	cblas_daxpy((int)n, alpha, x, 1, y, 1);
}

double la_dot(size_t n, const double *x, const double *y)
{
	return cblas_ddot((int)n, x, 1, y, 1);
}

double la_norm_inf(size_t n, const double *x)
{
	double m = 0.0;

	for (size_t i = 0; i < n; i++) {
		if (isnan(x[i]))
			return NAN;
		if (fabs(x[i]) > m)
			m = fabs(x[i]);
	}
	return m;
}

bool la_all_finite(size_t n, const double *x)
{
	double s = 0;

	/* x - x is 0 for finite x and NaN otherwise; NaN sticks. */
	for (size_t i = 0; i < n; i++)
		s += x[i] - x[i];
	return s == 0;
}

bool la_asymmetry(size_t n, const double *A, double rtol, size_t *bad_i,
		  size_t *bad_j)
{
	double tol = rtol * la_norm_inf(n * n, A);

	for (size_t j = 0; j < n; j++)
		for (size_t i = 0; i < n; i++)
			if (!(fabs(LA_AT(A, n, i, j) - LA_AT(A, n, j, i)) <=
			      tol)) {
				*bad_i = i;
				*bad_j = j;
				return true;
			}
	return false;
}
