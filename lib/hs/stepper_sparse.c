// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The stepper's sparse path: a large model whose matrices are mostly
 * zeros keeps M, K, C and K0 in compressed columns, and every method
 * factors its matrices (M, and each method's own: CR's and KR-alpha's D,
 * alpha-OS's effective mass, Newmark's effective stiffness, the explicit
 * methods' M + c C) by KLU instead of forming dense inverses: a step
 * then costs a few sparse products and triangular solves instead of
 * dense n x n products.  A sparse model (rths_hs_stepper_new_sparse())
 * comes here whatever its size, compressed from its triplets
 * (model_sparse.c): from then on every matrix is made from the
 * compressed ones, never from an n x n array.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "hs/integrator_impl.h"

size_t rths_hs_sparse_min_dofs = RTHS_HS_SPARSE_MIN_DOFS;

void rths_hs_csc_free(struct rths_hs_csc *m)
{
	free(m->colptr);
	free(m->rowind);
	free(m->m.x);
	memset(m, 0, sizeof(*m));
}

void rths_hs_sparse_free(struct rths_hs_sparse *sp)
{
	if (!sp)
		return;
	rths_hs_csc_free(&sp->m);
	rths_hs_csc_free(&sp->k);
	rths_hs_csc_free(&sp->c);
	rths_hs_csc_free(&sp->k0);
	rths_hs_csc_free(&sp->c0);
	free(sp);
}

static int csc_alloc(size_t n, size_t nnz, struct rths_hs_csc *out,
		     struct rths_error *err)
{
	if (nnz > INT_MAX)
		return rths_error_set(err, RTHS_E_UNSUPPORTED, NULL, 0, NULL,
				      "%zu nonzeros: too many for KLU", nnz);
	out->colptr = malloc((n + 1) * sizeof(int));
	out->rowind = malloc((nnz + 1) * sizeof(int));
	out->m.x = malloc((nnz + 1) * sizeof(double));
	if (!out->colptr || !out->rowind || !out->m.x) {
		rths_hs_csc_free(out);
		return rths_error_set(err, ENOMEM, NULL, 0, NULL,
				      "cannot allocate a sparse matrix of %zu nonzeros",
				      nnz);
	}
	out->colptr[n] = (int)nnz;
	out->m.rows = out->m.cols = n;
	out->m.colptr = out->colptr;
	out->m.rowind = out->rowind;
	return 0;
}

/* The nonzeros of a dense n x n matrix in compressed columns. */
static int csc_from_dense(size_t n, const double *A, struct rths_hs_csc *out,
			  struct rths_error *err)
{
	size_t nnz = 0;
	int r;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < n * n; i++)
		nnz += A[i] != 0;
	r = csc_alloc(n, nnz, out, err);
	if (r < 0)
		return r;
	nnz = 0;
	for (size_t j = 0; j < n; j++) {
		out->colptr[j] = (int)nnz;
		for (size_t i = 0; i < n; i++)
			if (LA_AT(A, n, i, j) != 0) {
				out->rowind[nnz] = (int)i;
				out->m.x[nnz++] = LA_AT(A, n, i, j);
			}
	}
	return 0;
}

/*
 * sum_q coef[q] A[q] in compressed columns over the union of the
 * patterns of the A[q] whose coef is not zero (so that the pattern does
 * not depend on cancellation): the columns merged, each entry summed in
 * the order of q.  Work and memory of the order of the nonzeros.
 */
#define CSC_SUM_MAX 4
static int csc_sum(size_t n, int count, const double *coef,
		   const struct la_csc *const *A, struct rths_hs_csc *out,
		   struct rths_error *err)
{
	size_t nnz = 0;
	int r;

	memset(out, 0, sizeof(*out));
	for (int pass = 0; pass < 2; pass++) {
		nnz = 0;
		for (size_t j = 0; j < n; j++) {
			int at[CSC_SUM_MAX];

			if (pass)
				out->colptr[j] = (int)nnz;
			for (int q = 0; q < count; q++)
				at[q] = A[q]->colptr[j];
			for (;;) {
				int i = INT_MAX;
				double x = 0;

				/* the next row in any of the columns */
				for (int q = 0; q < count; q++)
					if (coef[q] != 0 &&
					    at[q] < A[q]->colptr[j + 1] &&
					    A[q]->rowind[at[q]] < i)
						i = A[q]->rowind[at[q]];
				if (i == INT_MAX)
					break;
				for (int q = 0; q < count; q++)
					if (coef[q] != 0 &&
					    at[q] < A[q]->colptr[j + 1] &&
					    A[q]->rowind[at[q]] == i)
						x += coef[q] * A[q]->x[at[q]++];
				if (pass) {
					out->rowind[nnz] = i;
					out->m.x[nnz] = x;
				}
				nnz++;
			}
		}
		if (pass)
			break;
		r = csc_alloc(n, nnz, out, err);
		if (r < 0)
			return r;
	}
	return 0;
}

int rths_hs_csc_combine(const struct rths_hs_stepper *st, double a, double b,
			double c, struct rths_hs_csc *out,
			struct rths_error *err)
{
	const double coef[3] = { a, b, c };
	const struct la_csc *const A[3] = { &st->sp->m.m, &st->sp->c0.m,
					    &st->sp->k0.m };

	return csc_sum(st->n, 3, coef, A, out, err);
}

/* Factor a sparse matrix by KLU into @lu (freed on failure). */
static int klu_factor(struct la_lin *lu, const struct la_csc *A,
		      const char *what, struct rths_error *err)
{
	int r = la_lin_init(lu, &la_klu_lu, A->rows, 0);

	if (!r)
		r = la_lin_factor_csc(lu, A);
	if (!r)
		return 0;
	la_lin_free(lu);
	if (r == LA_ENOMEM)
		return rths_error_set(err, ENOMEM, NULL, 0, NULL,
				      "cannot allocate the sparse factors of %s",
				      what);
	return rths_error_set(err, RTHS_E_SINGULAR, NULL, 0, NULL,
			      "%s is singular (KLU status %d)", what, lu->info);
}

/* a*M + b*C + c*K0 with C given, factored by KLU. */
static int factor_sum(const struct rths_hs_stepper *st, double a, double b,
		      const struct rths_hs_csc *c_mat, double c,
		      struct la_lin *lu, const char *what,
		      struct rths_error *err)
{
	const double coef[3] = { a, b, c };
	const struct la_csc *const A[3] = { &st->sp->m.m, &c_mat->m,
					    &st->sp->k0.m };
	struct rths_hs_csc m;
	int r = csc_sum(st->n, 3, coef, A, &m, err);

	if (r < 0)
		return r;
	r = klu_factor(lu, &m.m, what, err);
	rths_hs_csc_free(&m);
	return r;
}

int rths_hs_csc_factor(const struct rths_hs_stepper *st, double a, double b,
		       double c, struct la_lin *lu, const char *what,
		       struct rths_error *err)
{
	return factor_sum(st, a, b, &st->sp->c0, c, lu, what, err);
}

int rths_hs_csc_factor_model_c(const struct rths_hs_stepper *st, double a,
			       double b, double c, struct la_lin *lu,
			       const char *what, struct rths_error *err)
{
	return factor_sum(st, a, b, &st->sp->c, c, lu, what, err);
}

/* Nonzeros of M, C and K0 together (structurally), up to @stop. */
static size_t union_nnz(const struct rths_hs_stepper *st, size_t stop)
{
	size_t nn = st->n * st->n, nnz = 0;

	for (size_t i = 0; i < nn && nnz <= stop; i++)
		nnz += st->model->m[i] != 0 || st->c[i] != 0 ||
		       st->k0[i] != 0;
	return nnz;
}

int rths_hs_sparse_setup(struct rths_hs_stepper *st, struct rths_error *err)
{
	size_t n = st->n;
	double nn = (double)n * (double)n;
	size_t stop = (size_t)(RTHS_HS_SPARSE_MAX_DENSITY * nn);
	struct rths_hs_sparse *sp;
	int r;

	if (n < rths_hs_sparse_min_dofs || union_nnz(st, stop) > stop)
		return 0;
	sp = calloc(1, sizeof(*sp));
	if (!sp)
		return rths_error_set(err, ENOMEM, NULL, 0, NULL,
				      "cannot allocate a sparse model");
	st->sp = sp;
	r = csc_from_dense(n, st->model->m, &sp->m, err);
	if (!r)
		r = csc_from_dense(n, st->model->k, &sp->k, err);
	if (!r)
		r = csc_from_dense(n, st->model->c, &sp->c, err);
	if (!r)
		r = csc_from_dense(n, st->k0, &sp->k0, err);
	if (!r)
		r = csc_from_dense(n, st->c, &sp->c0, err);
	if (!r)
		r = klu_factor(&st->mass_lu, &sp->m.m, "the mass matrix", err);
	return r;
}

int rths_hs_sparse_setup_model(struct rths_hs_stepper *st,
			       const struct rths_hs_sparse_model *model,
			       struct rths_hs_csc mkc[3],
			       const struct rths_hs_sparse_estimate *est,
			       struct rths_error *err)
{
	static const double one[3] = { 1.0, 1.0, 1.0 };
	struct rths_hs_csc el = { 0 }, ek = { 0 }, ec = { 0 };
	struct rths_hs_sparse *sp = calloc(1, sizeof(*sp));
	size_t n = st->n;
	int r;

	if (!sp) {
		for (int q = 0; q < 3; q++)
			rths_hs_csc_free(&mkc[q]);
		return rths_error_set(err, ENOMEM, NULL, 0, NULL,
				      "cannot allocate a sparse model");
	}
	st->sp = sp;
	sp->m = mkc[0];
	sp->k = mkc[1];
	sp->c = mkc[2];
	/* K0 = K + the elements' initial stiffness + the estimate; C likewise */
	r = rths_hs_sparse_elements_k0(model, &el, err);
	if (!r && est)
		r = rths_hs_triplets_check(n, &est->k, "estimate.k", err);
	if (!r && est)
		r = rths_hs_triplets_check(n, &est->c, "estimate.c", err);
	if (!r)
		r = rths_hs_csc_from_triplets(n, est ? &est->k :
					      &(struct rths_hs_triplets){ 0 },
					      &ek, err);
	if (!r)
		r = rths_hs_csc_from_triplets(n, est ? &est->c :
					      &(struct rths_hs_triplets){ 0 },
					      &ec, err);
	if (!r)
		r = csc_sum(n, 3, one, (const struct la_csc *const[]){
			&sp->k.m, &el.m, &ek.m }, &sp->k0, err);
	if (!r)
		r = csc_sum(n, 2, one, (const struct la_csc *const[]){
			&sp->c.m, &ec.m }, &sp->c0, err);
	if (!r)
		r = klu_factor(&st->mass_lu, &sp->m.m, "the mass matrix", err);
	rths_hs_csc_free(&el);
	rths_hs_csc_free(&ek);
	rths_hs_csc_free(&ec);
	return r;
}

/* y = alpha A x + beta y with A sparse if the stepper is, else dense. */
static void product(const struct rths_hs_stepper *st, const struct la_csc *A,
		    const double *dense, double alpha, const double *x,
		    double beta, double *y)
{
	if (st->sp)
		la_csc_gemv(A, alpha, x, beta, y);
	else
		la_gemv(st->n, st->n, alpha, dense, x, beta, y);
}

void rths_hs_stepper_cv(const struct rths_hs_stepper *st, double alpha,
			const double *x, double beta, double *y)
{
	product(st, st->sp ? &st->sp->c.m : NULL, st->model->c, alpha, x,
		beta, y);
}

void rths_hs_stepper_mv(const struct rths_hs_stepper *st, double alpha,
			const double *x, double beta, double *y)
{
	product(st, st->sp ? &st->sp->m.m : NULL, st->model->m, alpha, x,
		beta, y);
}

void rths_hs_stepper_k0v(const struct rths_hs_stepper *st, double alpha,
			 const double *x, double beta, double *y)
{
	product(st, st->sp ? &st->sp->k0.m : NULL, st->k0, alpha, x, beta,
		y);
}
