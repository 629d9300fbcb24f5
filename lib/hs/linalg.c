// SPDX-License-Identifier: LGPL-2.1-or-later
/* lib/la's failures as rths_error, naming the matrix concerned. */
#include <math.h>
#include <stdlib.h>

#include "hs/linalg.h"

int rths_hs_lu_factor(struct la_lin *lu, size_t n, const double *A,
		      const char *what, struct rths_error *err)
{
	struct rths_mat m = la_dense(n, n, (double *)A);
	int r = la_lin_init(lu, &la_dense_lu, n, LA_LIN_INVERSE);

	if (!r)
		r = la_lin_factor(lu, &m);
	if (!r)
		return 0;
	la_lin_free(lu);
	if (r == LA_ENOMEM)
		return rths_error_set(err, ENOMEM, NULL, 0, NULL,
				      "cannot allocate the factors of %s", what);
	return rths_error_set(err, RTHS_E_SINGULAR, NULL, 0, NULL,
			      "%s is singular (LAPACK info %d)", what, lu->info);
}

int rths_hs_la_solve(size_t n, const double *A, double *B, size_t nrhs,
		     const char *what, struct rths_error *err)
{
	struct la_lin lu;
	int r = rths_hs_lu_factor(&lu, n, A, what, err);

	if (r < 0)
		return r;
	la_lin_solve(&lu, B, nrhs);
	la_lin_free(&lu);
	return 0;
}

int rths_hs_la_eig(size_t n, const double *K, const double *M, double *omega,
		   double *phi, struct rths_error *err)
{
	int r = la_sym_eig(n, K, M, omega, phi);

	if (r == LA_ENOMEM)
		return rths_error_set(err, ENOMEM, NULL, 0, NULL,
				      "cannot allocate the eigenproblem");
	if (r == LA_ENOTPD)
		return rths_error_set(err, RTHS_E_NOT_POSITIVE_DEFINITE, NULL,
				      0, NULL,
				      "the mass matrix is not positive definite");
	if (r)
		return rths_error_set(err, RTHS_E_SINGULAR, NULL, 0, NULL,
				      "eigenvalue solver failed (dsygv)");
	for (size_t i = 0; i < n; i++)
		omega[i] = omega[i] >= 0 ? sqrt(omega[i]) : -sqrt(-omega[i]);
	return 0;
}

int rths_hs_la_lstsq(size_t rows, size_t cols, const double *A, double *b,
		     double rcond, int *rank, struct rths_error *err)
{
	int r = la_lstsq(rows, cols, A, b, rcond, rank);

	if (r == LA_ENOMEM)
		return rths_error_set(err, ENOMEM, NULL, 0, NULL,
				      "cannot allocate a least-squares problem");
	if (r)
		return rths_error_set(err, RTHS_E_SINGULAR, NULL, 0, NULL,
				      "least-squares solver failed (dgelsd)");
	return 0;
}
