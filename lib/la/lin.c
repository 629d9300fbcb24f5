// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Linear systems: the solver object's dispatch and the dense LU backend
 * (dgetrf/dgetrs, or dgetri and a dgemv for LA_LIN_INVERSE).
 */
#include <cblas.h>
#include <lapacke.h>
#include <stdlib.h>
#include <string.h>

#include "la/la.h"

/* ipiv is int in la.h so that the header needs no LAPACKE. */
_Static_assert(sizeof(lapack_int) == sizeof(int), "lapack_int is not int");

int la_lin_init(struct la_lin *l, const struct la_lin_ops *ops, size_t n,
		unsigned int flags)
{
	memset(l, 0, sizeof(*l));
	l->ops = ops;
	l->n = n;
	l->flags = flags;
	return ops->alloc(l);
}

int la_lin_factor(struct la_lin *l, const struct rths_mat *A)
{
	int r;

	l->factored = false;
	if (A->rows != l->n || A->cols != l->n || A->ld < A->rows)
		return LA_EINVAL;
	r = l->ops->factor(l, A);
	l->factored = r == 0;
	return r;
}

int la_lin_factor_csc(struct la_lin *l, const struct la_csc *A)
{
	int r;

	l->factored = false;
	if (A->rows != l->n || A->cols != l->n || !l->ops->factor_csc)
		return LA_EINVAL;
	r = l->ops->factor_csc(l, A);
	l->factored = r == 0;
	return r;
}

void la_lin_solve(const struct la_lin *l, double *b, size_t nrhs)
{
	l->ops->solve(l, b, nrhs);
}

void la_lin_free(struct la_lin *l)
{
	if (l->ops)
		l->ops->release(l);
	l->factored = false;
}

static int dense_alloc(struct la_lin *l)
{
	size_t n = l->n ? l->n : 1;	/* malloc(0) may be NULL */
	bool inv = l->flags & LA_LIN_INVERSE;

	l->lu = malloc(n * n * sizeof(*l->lu));
	l->ipiv = malloc(n * sizeof(*l->ipiv));
	l->inv = inv ? malloc(n * n * sizeof(*l->inv)) : NULL;
	l->tmp = inv ? malloc(n * sizeof(*l->tmp)) : NULL;
	if (!l->lu || !l->ipiv || (inv && (!l->inv || !l->tmp)))
		return LA_ENOMEM;
	return 0;
}

static bool is_diagonal(const struct rths_mat *A)
{
	for (size_t j = 0; j < A->cols; j++)
		for (size_t i = 0; i < A->rows; i++)
			if (i != j && RTHS_MAT(A, i, j) != 0)
				return false;
	return true;
}

/* LU of l->lu (the matrix copied in), then A^-1 for LA_LIN_INVERSE. */
static int dense_lu(struct la_lin *l)
{
	lapack_int n = (lapack_int)l->n;
	lapack_int info;

	info = LAPACKE_dgetrf(LAPACK_COL_MAJOR, n, n, l->lu, n, l->ipiv);
	if (info) {
		l->info = (int)info;
		return info > 0 ? LA_ESINGULAR : LA_EFAIL;
	}
	if (!(l->flags & LA_LIN_INVERSE) || l->diagonal)
		return 0;
	memcpy(l->inv, l->lu, l->n * l->n * sizeof(*l->inv));
	info = LAPACKE_dgetri(LAPACK_COL_MAJOR, n, l->inv, n, l->ipiv);
	if (info) {
		l->info = (int)info;
		return info > 0 ? LA_ESINGULAR : LA_EFAIL;
	}
	return 0;
}

static int dense_factor(struct la_lin *l, const struct rths_mat *A)
{
	if (A->kind != RTHS_MAT_DENSE)
		return LA_EINVAL;
	if (!l->n)
		return 0;	/* LAPACK wants lda >= 1 even then */
	for (size_t j = 0; j < l->n; j++)
		memcpy(l->lu + j * l->n, A->data + j * A->ld,
		       l->n * sizeof(*l->lu));
	l->diagonal = (l->flags & LA_LIN_INVERSE) && is_diagonal(A);
	if (l->diagonal)
		for (size_t i = 0; i < l->n; i++)
			l->inv[i] = 1.0 / RTHS_MAT(A, i, i);
	return dense_lu(l);
}

/* A small sparse system: scattered into the dense factors. */
static int dense_factor_csc(struct la_lin *l, const struct la_csc *A)
{
	if (!l->n)
		return 0;
	la_csc_to_dense(A, l->lu);
	l->diagonal = false;
	return dense_lu(l);
}

static void dense_solve(const struct la_lin *l, double *b, size_t nrhs)
{
	size_t n = l->n;

	if (!n)
		return;

	if (nrhs == 1 && (l->flags & LA_LIN_INVERSE)) {
		if (l->diagonal) {
			for (size_t i = 0; i < n; i++)
				b[i] *= l->inv[i];
			return;
		}
		memcpy(l->tmp, b, n * sizeof(*b));
		la_gemv(n, n, 1.0, l->inv, l->tmp, 0.0, b);
		return;
	}
	LAPACKE_dgetrs(LAPACK_COL_MAJOR, 'N', (lapack_int)n,
		       (lapack_int)nrhs, l->lu, (lapack_int)n, l->ipiv, b,
		       (lapack_int)n);
}

static void dense_release(struct la_lin *l)
{
	free(l->lu);
	free(l->ipiv);
	free(l->inv);
	free(l->tmp);
	l->lu = NULL;
	l->ipiv = NULL;
	l->inv = NULL;
	l->tmp = NULL;
}

const struct la_lin_ops la_dense_lu = {
	.name = "dense LU",
	.alloc = dense_alloc,
	.factor = dense_factor,
	.factor_csc = dense_factor_csc,
	.solve = dense_solve,
	.release = dense_release,
};

int la_solve(size_t n, const double *A, double *B, size_t nrhs)
{
	struct la_lin l;
	struct rths_mat m = la_dense(n, n, (double *)A);
	int r = la_lin_init(&l, &la_dense_lu, n, 0);

	if (!r)
		r = la_lin_factor(&l, &m);
	if (!r)
		la_lin_solve(&l, B, nrhs);
	la_lin_free(&l);
	return r;
}
