// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Compressed-column matrices and their sparse LU backend, SuiteSparse KLU:
 * symbolic analysis once per pattern, numeric refactorization per new set
 * of values (with a fresh pivoting factorization when the old pivot
 * order has gone bad), solve.
 */
#include <klu.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "la/la.h"

int la_csc_check(const struct la_csc *A)
{
	if (!A->colptr || A->colptr[0] != 0 || A->rows > INT_MAX ||
	    A->cols > INT_MAX)
		return LA_EINVAL;
	for (size_t j = 0; j < A->cols; j++) {
		int lo = A->colptr[j], hi = A->colptr[j + 1];

		if (hi < lo)
			return LA_EINVAL;
		for (int k = lo; k < hi; k++)
			if (A->rowind[k] < 0 || (size_t)A->rowind[k] >= A->rows ||
			    (k > lo && A->rowind[k] <= A->rowind[k - 1]))
				return LA_EINVAL;
	}
	return 0;
}

void la_csc_gemv(const struct la_csc *A, double alpha, const double *x,
		 double beta, double *y)
{
	for (size_t i = 0; i < A->rows; i++)
		y[i] = beta == 0 ? 0 : beta * y[i];
	for (size_t j = 0; j < A->cols; j++) {
		double ax = alpha * x[j];

		for (int k = A->colptr[j]; k < A->colptr[j + 1]; k++)
			y[A->rowind[k]] += A->x[k] * ax;
	}
}

void la_csc_to_dense(const struct la_csc *A, double *D)
{
	memset(D, 0, A->rows * A->cols * sizeof(*D));
	for (size_t j = 0; j < A->cols; j++)
		for (int k = A->colptr[j]; k < A->colptr[j + 1]; k++)
			LA_AT(D, A->rows, A->rowind[k], j) = A->x[k];
}

struct la_klu {
	klu_common c;
	klu_symbolic *sym;
	klu_numeric *num;
	/* the analysed pattern, to recognise it again */
	int *colptr, *rowind;
	size_t nnz;
	double rcond_full;	/* klu_rcond of the last full factorization */
};

static int klu_alloc(struct la_lin *l)
{
	struct la_klu *k = calloc(1, sizeof(*k));

	l->sp = k;
	if (!k)
		return LA_ENOMEM;
	if (l->n > INT_MAX)
		return LA_EINVAL;
	klu_defaults(&k->c);
	return 0;
}

static void klu_drop(struct la_klu *k)
{
	if (k->num)
		klu_free_numeric(&k->num, &k->c);
	if (k->sym)
		klu_free_symbolic(&k->sym, &k->c);
	free(k->colptr);
	free(k->rowind);
	k->colptr = k->rowind = NULL;
	k->nnz = 0;
}

static int klu_status(struct la_lin *l, struct la_klu *k)
{
	l->info = k->c.status;
	if (k->c.status == KLU_SINGULAR)
		return LA_ESINGULAR;
	if (k->c.status == KLU_OUT_OF_MEMORY)
		return LA_ENOMEM;
	return LA_EFAIL;
}

static bool same_pattern(const struct la_klu *k, const struct la_csc *A)
{
	size_t nnz = la_csc_nnz(A);

	return k->sym && k->nnz == nnz &&
	       !memcmp(k->colptr, A->colptr, (A->cols + 1) * sizeof(int)) &&
	       !memcmp(k->rowind, A->rowind, nnz * sizeof(int));
}

/* Symbolic analysis of A's pattern, kept with a copy of the pattern. */
static int analyse(struct la_lin *l, struct la_klu *k, const struct la_csc *A)
{
	size_t nnz = la_csc_nnz(A);

	klu_drop(k);
	if (la_csc_check(A))
		return LA_EINVAL;
	k->colptr = malloc((A->cols + 1) * sizeof(int));
	k->rowind = malloc((nnz ? nnz : 1) * sizeof(int));
	if (!k->colptr || !k->rowind)
		return LA_ENOMEM;
	memcpy(k->colptr, A->colptr, (A->cols + 1) * sizeof(int));
	memcpy(k->rowind, A->rowind, nnz * sizeof(int));
	k->nnz = nnz;
	k->sym = klu_analyze((int)l->n, k->colptr, k->rowind, &k->c);
	if (!k->sym) {
		klu_drop(k);
		return klu_status(l, k);
	}
	return 0;
}

static int full_factor(struct la_lin *l, struct la_klu *k,
		       const struct la_csc *A)
{
	if (k->num)
		klu_free_numeric(&k->num, &k->c);
	k->num = klu_factor(k->colptr, k->rowind, A->x, k->sym, &k->c);
	if (!k->num)
		return klu_status(l, k);
	if (!klu_rcond(k->sym, k->num, &k->c))
		return klu_status(l, k);
	k->rcond_full = k->c.rcond;
	return 0;
}

static int klu_factor_csc(struct la_lin *l, const struct la_csc *A)
{
	struct la_klu *k = l->sp;
	int r;

	if (!l->n)
		return 0;
	if (!same_pattern(k, A)) {
		r = analyse(l, k, A);
		if (r)
			return r;
	}
	if (!k->num)
		return full_factor(l, k, A);
	/* Same pattern: the old pivot order, unless it has gone bad. */
	if (klu_refactor(k->colptr, k->rowind, A->x, k->sym, k->num, &k->c) &&
	    klu_rcond(k->sym, k->num, &k->c) &&
	    k->c.rcond >= LA_KLU_REFACTOR_DROP * k->rcond_full)
		return 0;
	return full_factor(l, k, A);
}

static int klu_factor_dense(struct la_lin *l, const struct rths_mat *A)
{
	(void)l;
	(void)A;
	return LA_EINVAL;
}

static void klu_solve_b(const struct la_lin *l, double *b, size_t nrhs)
{
	struct la_klu *k = l->sp;

	if (!l->n || !nrhs)
		return;
	klu_solve(k->sym, k->num, (int)l->n, (int)nrhs, b, &k->c);
}

static void klu_release(struct la_lin *l)
{
	struct la_klu *k = l->sp;

	if (!k)
		return;
	klu_drop(k);
	free(k);
	l->sp = NULL;
}

size_t la_klu_factor_nnz(const struct la_lin *l)
{
	const struct la_klu *k = l->sp;

	if (!k || !k->num)
		return 0;
	/* lnz and unz both count the diagonal */
	return (size_t)k->num->lnz + (size_t)k->num->unz +
	       (size_t)k->num->nzoff - l->n;
}

const struct la_lin_ops la_klu_lu = {
	.name = "KLU sparse LU",
	.alloc = klu_alloc,
	.factor = klu_factor_dense,
	.factor_csc = klu_factor_csc,
	.solve = klu_solve_b,
	.release = klu_release,
};
