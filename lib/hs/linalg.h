/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The engine's side of librths' linear-algebra layer (lib/la/la.h): the
 * calls that can fail, with their failures as rths_error naming the
 * matrix.  Storage is lib/la's: column-major, leading dimension = rows.
 */
#ifndef RTHS_HS_LINALG_H
#define RTHS_HS_LINALG_H

#include <stddef.h>

#include <rths/hs_error.h>

#include "common/alloc.h"
#include "la/la.h"

/* Element (i, j) of a column-major matrix with @ld rows (LA_AT). */
#define RTHS_HS_AT(A, ld, i, j) LA_AT(A, ld, i, j)

/*
 * Factor a copy of the n x n matrix @A (@what names it in errors) for
 * the solves of every step: la_lin_solve(), la_lin_free().  One
 * right-hand side is solved by a dgemv with the inverse, or by scaling
 * if @A is diagonal (lumped masses).
 */
int rths_hs_lu_factor(struct la_lin *lu, size_t n, const double *A,
		      const char *what, struct rths_error *err);

/* X = A^-1 B for n x n A and n x nrhs B, B overwritten by X. */
int rths_hs_la_solve(size_t n, const double *A, double *B, size_t nrhs,
		     const char *what, struct rths_error *err);

/*
 * Generalized symmetric eigenproblem K phi = w^2 M phi (LAPACK dsygv).
 * @omega gets the n circular frequencies in ascending order (negative
 * eigenvalues give -sqrt(-lambda)); @phi (optional, n x n) the
 * M-orthonormal mode shapes.
 */
int rths_hs_la_eig(size_t n, const double *K, const double *M, double *omega,
		   double *phi, struct rths_error *err);

/*
 * Minimum-norm least-squares solution of A x = b (LAPACK dgelsd), A is
 * rows x cols (copied), b has max(rows, cols) entries, x is its first cols.
 * Returns the numerical rank through @rank (may be NULL).
 */
int rths_hs_la_lstsq(size_t rows, size_t cols, const double *A, double *b,
		     double rcond, int *rank, struct rths_error *err);


#endif /* RTHS_HS_LINALG_H */
