/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Dense linear algebra for the engine, private.  Thin wrappers over
 * CBLAS/LAPACKE so that every caller uses one storage convention: n x m
 * matrices are column-major with leading dimension n (LAPACK's), vectors
 * are plain arrays.
 */
#ifndef RTHS_HS_LINALG_H
#define RTHS_HS_LINALG_H

#include <stdbool.h>
#include <stddef.h>

#include <rths/hs_error.h>

/* Element (i, j) of a column-major matrix with @ld rows. */
#define RTHS_HS_AT(A, ld, i, j) ((A)[(size_t)(j) * (ld) + (i)])

/* y = alpha * A x + beta * y, A is rows x cols. */
void rths_hs_la_gemv(size_t rows, size_t cols, double alpha, const double *A,
		     const double *x, double beta, double *y);
/* y = alpha * A^T x + beta * y, A is rows x cols. */
void rths_hs_la_gemv_t(size_t rows, size_t cols, double alpha,
		       const double *A, const double *x, double beta,
		       double *y);
/* C = alpha * A B + beta * C; A is m x k, B is k x n. */
void rths_hs_la_gemm(size_t m, size_t n, size_t k, double alpha,
		     const double *A, const double *B, double beta, double *C);
/* y += alpha x */
void rths_hs_la_axpy(size_t n, double alpha, const double *x, double *y);
double rths_hs_la_dot(size_t n, const double *x, const double *y);
double rths_hs_la_norm_inf(size_t n, const double *x);

/* True if no entry is NaN or infinite (cheap: no branches per entry). */
bool rths_hs_la_all_finite(size_t n, const double *x);

/*
 * A factored n x n matrix, kept for the solves of every step.  A step
 * solves with one right-hand side: a diagonal matrix (lumped masses) is
 * solved by scaling, any other by one dgemv with the inverse (computed
 * from the LU, dgetri), which beats the two triangular solves in time;
 * several right-hand sides go through the LU (dgetrs).
 */
struct rths_hs_lu {
	size_t n;
	double *lu;
	int *ipiv;
	double *inv;		/* A^-1 (n x n), or 1/a_ii if diagonal */
	double *tmp;		/* n */
	bool diagonal;
};

/* Factor a copy of @A. */
int rths_hs_lu_factor(struct rths_hs_lu *lu, size_t n, const double *A,
		      const char *what, struct rths_hs_error *err);
/* Solve A x = b in place (b becomes x), @nrhs right-hand sides. */
void rths_hs_lu_solve(const struct rths_hs_lu *lu, double *b, size_t nrhs);
void rths_hs_lu_free(struct rths_hs_lu *lu);

/* X = A^-1 B for n x n A and n x nrhs B, B overwritten by X. */
int rths_hs_la_solve(size_t n, const double *A, double *B, size_t nrhs,
		     const char *what, struct rths_hs_error *err);

/*
 * Generalized symmetric eigenproblem K phi = w^2 M phi (LAPACK dsygv).
 * @omega gets the n circular frequencies in ascending order (negative
 * eigenvalues give -sqrt(-lambda)); @phi (optional, n x n) the
 * M-orthonormal mode shapes.
 */
int rths_hs_la_eig(size_t n, const double *K, const double *M, double *omega,
		   double *phi, struct rths_hs_error *err);

/*
 * Minimum-norm least-squares solution of A x = b (LAPACK dgelsd), A is
 * rows x cols (copied), b has max(rows, cols) entries, x is its first cols.
 * Returns the numerical rank through @rank (may be NULL).
 */
int rths_hs_la_lstsq(size_t rows, size_t cols, const double *A, double *b,
		     double rcond, int *rank, struct rths_hs_error *err);

/* Newly allocated zeroed arrays; NULL and an error on failure. */
double *rths_hs_zalloc(size_t count, struct rths_hs_error *err);

#endif /* RTHS_HS_LINALG_H */
