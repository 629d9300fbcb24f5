/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Matrices that librths hands to user callbacks (Jacobians, mass
 * matrices, constraint Jacobians) and that its linear algebra works on.
 *
 * One convention throughout librths: dense matrices are column-major, as
 * in LAPACK and in SUNDIALS' dense matrices.  Element (i, j) of a dense
 * view J is RTHS_MAT(J, i, j) = J->data[j * J->ld + i]; a callback fills
 * through that macro and never assumes ld == rows.
 *
 * The kind tag leaves room for other storage without changing the
 * callback types; today every struct rths_mat librths passes is
 * RTHS_MAT_DENSE.  Sparse matrices are a type of their own, struct
 * rths_csc (compressed sparse column), which the sparse Jacobian
 * callbacks take (rths_ode_set_sparse_jac()).
 */
#ifndef RTHS_MAT_H
#define RTHS_MAT_H

/* librths is built with -fvisibility=hidden: this is its API. */
#pragma GCC visibility push(default)

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

enum rths_mat_kind {
	RTHS_MAT_DENSE = 0,
};

struct rths_mat {
	enum rths_mat_kind kind;
	size_t rows;
	size_t cols;
	size_t ld;		/* leading dimension (>= rows) */
	double *data;		/* (i, j) at data[j * ld + i] */
};

/* Element (i, j) of a dense matrix view, an lvalue. */
#define RTHS_MAT(M, i, j) \
	((M)->data[(size_t)(j) * (M)->ld + (size_t)(i)])

/*
 * A sparse matrix in compressed sparse column form: the rows of the
 * entries of column j are rowind[colptr[j]] .. rowind[colptr[j + 1] - 1],
 * strictly ascending, and their values are at the same places of values.
 * The pattern (colptr, rowind) belongs to whoever made the matrix; a
 * callback that gets one fills values only.
 */
struct rths_csc {
	size_t rows;
	size_t cols;
	const size_t *colptr;	/* cols + 1, colptr[0] = 0 */
	const size_t *rowind;	/* colptr[cols] */
	double *values;		/* colptr[cols] */
};

/* Number of stored entries of a struct rths_csc. */
#define RTHS_CSC_NNZ(M) ((M)->colptr[(M)->cols])

#ifdef __cplusplus
}
#endif

#pragma GCC visibility pop

#endif /* RTHS_MAT_H */
