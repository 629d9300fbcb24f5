/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * librths' one linear-algebra layer, private (not exported), over
 * CBLAS/LAPACKE.  lib/hs and lib/ode both use it, with one storage
 * convention: dense matrices are column-major (struct rths_mat, or a
 * plain array whose leading dimension is its row count, element (i, j) at
 * LA_AT(A, ld, i, j)); vectors are plain arrays.
 *
 * Linear systems go through a solver object (struct la_lin) and its
 * backend's operations, so that a sparse backend (KLU on a compressed
 * column struct rths_mat) can be added beside the dense LU without
 * changing the callers: they create, factor, solve and free.
 *
 * Functions return 0 or a negative LA_E* code; the codes never leave
 * librths, each caller turns them into its own errors.
 */
#ifndef RTHS_LIB_LA_H
#define RTHS_LIB_LA_H

#include <stdbool.h>
#include <stddef.h>

#include <rths/mat.h>

enum {
	LA_OK = 0,
	LA_ENOMEM = -1,
	LA_EINVAL = -2,		/* bad dimensions or matrix kind */
	LA_ESINGULAR = -3,	/* exactly singular (info > 0) */
	LA_ENOTPD = -4,		/* not positive definite */
	LA_EILLCOND = -5,	/* reciprocal condition below the bound */
	LA_EFAIL = -6,		/* LAPACK reported another failure */
};

/* Element (i, j) of a column-major array with leading dimension @ld. */
#define LA_AT(A, ld, i, j) ((A)[(size_t)(j) * (ld) + (size_t)(i)])

/* A dense view of a rows x cols column-major array (ld = rows). */
static inline struct rths_mat la_dense(size_t rows, size_t cols, double *data)
{
	struct rths_mat m = {
		.kind = RTHS_MAT_DENSE,
		.rows = rows,
		.cols = cols,
		.ld = rows,
		.data = data,
	};
	return m;
}

/* --- BLAS on column-major arrays, A rows x cols with ld = rows */
/* y = alpha A x + beta y */
void la_gemv(size_t rows, size_t cols, double alpha, const double *A,
	     const double *x, double beta, double *y);
/* y = alpha A^T x + beta y */
void la_gemv_t(size_t rows, size_t cols, double alpha, const double *A,
	       const double *x, double beta, double *y);
/* C = alpha A B + beta C; A is m x k, B is k x n. */
void la_gemm(size_t m, size_t n, size_t k, double alpha, const double *A,
	     const double *B, double beta, double *C);
/* y += alpha x */
void la_axpy(size_t n, double alpha, const double *x, double *y);
double la_dot(size_t n, const double *x, const double *y);
/* max |x_i|, NaN if any entry is NaN */
double la_norm_inf(size_t n, const double *x);
/* True if no entry is NaN or infinite. */
bool la_all_finite(size_t n, const double *x);
/*
 * First (i, j), column by column, where an n x n matrix differs from its
 * transpose by more than rtol times its largest entry: true and *bad_i,
 * *bad_j set; false if symmetric.
 */
bool la_asymmetry(size_t n, const double *A, double rtol, size_t *bad_i,
		  size_t *bad_j);

/* --- sparse matrices, compressed sparse column (CSC) */
/*
 * The row indices of column j are rowind[colptr[j] .. colptr[j + 1] - 1],
 * strictly ascending, with their values at the same places of x.  int
 * indices, as KLU's klu_* routines take them.  A pattern (colptr, rowind)
 * is shared by all the matrices of one structure; only x changes.
 */
struct la_csc {
	size_t rows;
	size_t cols;
	const int *colptr;	/* cols + 1, colptr[0] = 0 */
	const int *rowind;	/* colptr[cols] */
	double *x;		/* colptr[cols] */
};

static inline size_t la_csc_nnz(const struct la_csc *A)
{
	return (size_t)A->colptr[A->cols];
}

/* 0 if the pattern is well formed (see above), else LA_EINVAL. */
int la_csc_check(const struct la_csc *A);
/* y = alpha A x + beta y */
void la_csc_gemv(const struct la_csc *A, double alpha, const double *x,
		 double beta, double *y);
/* D (rows x cols, column-major, ld = rows) = A, zeros included. */
void la_csc_to_dense(const struct la_csc *A, double *D);

/* --- linear systems through a backend */
struct la_lin;

struct la_lin_ops {
	const char *name;
	/* storage for an n x n system; l->n and l->flags are set */
	int (*alloc)(struct la_lin *l);
	/* factor A (square, of the kind the backend takes); A is not kept */
	int (*factor)(struct la_lin *l, const struct rths_mat *A);
	/* the same for a compressed-column A (sparse.c) */
	int (*factor_csc)(struct la_lin *l, const struct la_csc *A);
	/* b (n x nrhs, column-major) becomes A^-1 b */
	void (*solve)(const struct la_lin *l, double *b, size_t nrhs);
	void (*release)(struct la_lin *l);
};

/* Dense LU (dgetrf/dgetrs); takes a dense or (scattered) CSC matrix. */
extern const struct la_lin_ops la_dense_lu;
/*
 * Sparse LU by SuiteSparse KLU; takes CSC matrices only.  The symbolic
 * analysis (BTF, AMD ordering) is done at the first factorization and
 * kept while the pattern stays the same (compared entry by entry, so a
 * caller may pass a new pattern at any time: it is analysed anew).  Later
 * factorizations of the same pattern are numeric refactorizations with
 * the first one's pivot order (klu_refactor); if that pivot order has
 * become poor (KLU's reciprocal pivot growth estimate klu_rcond below
 * LA_KLU_REFACTOR_DROP times the one of the last full factorization) the
 * matrix is factored anew with fresh pivoting.  LA_ESINGULAR for a
 * singular matrix (l->info gets KLU's status).
 */
extern const struct la_lin_ops la_klu_lu;
#define LA_KLU_REFACTOR_DROP 1e-3
/* Entries of KLU's factors L + U (the diagonal once) and of the
 * off-diagonal blocks: the work of one solve; 0 before a factorization. */
size_t la_klu_factor_nnz(const struct la_lin *l);

/*
 * LA_LIN_INVERSE (dense LU): the system is solved once per step with one
 * right-hand side; keep A^-1 (dgetri) and solve by one dgemv, which beats
 * the two triangular solves, or by scaling if A is diagonal.
 */
#define LA_LIN_INVERSE 0x1u

struct la_lin {
	const struct la_lin_ops *ops;
	size_t n;
	unsigned int flags;
	int info;		/* LAPACK's info of the last failure */
	bool factored;
	/* dense LU backend */
	double *lu;		/* n x n factors */
	int *ipiv;
	double *inv;		/* A^-1, or 1/a_ii if diagonal (INVERSE) */
	double *tmp;		/* n */
	bool diagonal;
	/* sparse backends' own state (sparse.c) */
	void *sp;
};

/* Set up a solver for n x n systems; la_lin_free() even on failure. */
int la_lin_init(struct la_lin *l, const struct la_lin_ops *ops, size_t n,
		unsigned int flags);
int la_lin_factor(struct la_lin *l, const struct rths_mat *A);
/* LA_EINVAL if the backend takes no CSC or the shape is wrong. */
int la_lin_factor_csc(struct la_lin *l, const struct la_csc *A);
void la_lin_solve(const struct la_lin *l, double *b, size_t nrhs);
/* Frees a solver set up or zeroed; idempotent. */
void la_lin_free(struct la_lin *l);

/* X = A^-1 B for n x n A and n x nrhs B (B overwritten); A is copied. */
int la_solve(size_t n, const double *A, double *B, size_t nrhs);

/* --- symmetric positive definite systems (dpotrf/dpocon/dpotrs) */
/*
 * Cholesky factor of an n x n symmetric matrix, in place (upper triangle
 * used and overwritten).  If @rcond_min > 0, also estimates the
 * reciprocal condition number (1-norm) and fails with LA_EILLCOND below
 * it; @rcond (may be NULL) gets the estimate.
 */
int la_chol_factor(size_t n, double *A, double rcond_min, double *rcond);
/* B = A^-1 B with the factor of la_chol_factor(). */
void la_chol_solve(size_t n, const double *U, double *B, size_t nrhs);

/*
 * Generalized symmetric eigenproblem K phi = lambda M phi (dsygv): @w gets
 * the n eigenvalues in ascending order, @phi (optional, n x n) the
 * M-orthonormal eigenvectors.  LA_ENOTPD if M is not positive definite.
 */
int la_sym_eig(size_t n, const double *K, const double *M, double *w,
	       double *phi);

/*
 * Eigenvalues of a general n x n matrix (dgeev, balanced first): @wr and
 * @wi get their real and imaginary parts.  @A is overwritten.
 */
int la_eig(size_t n, double *A, double *wr, double *wi);

/*
 * Minimum-norm least-squares solution of A x = b (dgelsd), A rows x cols
 * (copied), b has max(rows, cols) entries, x is its first cols.  @rank
 * (may be NULL) gets the numerical rank.
 */
int la_lstsq(size_t rows, size_t cols, const double *A, double *b,
	     double rcond, int *rank);

#endif /* RTHS_LIB_LA_H */
