// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The stepper's sparse path: a large model whose matrices are mostly
 * zeros keeps M, K, C and K0 in compressed columns, and every method
 * factors its matrices (M, and each method's own: CR's and KR-alpha's D,
 * alpha-OS's effective mass, Newmark's effective stiffness, the explicit
 * methods' M + c C) by KLU instead of forming dense inverses: a step
 * then costs a few sparse products and triangular solves instead of
 * dense n x n products.
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
	free(sp);
}

/*
 * sum_q coef[q] A[q] in compressed columns over the union of the
 * patterns of the A[q] whose coef is not zero (so that the pattern does
 * not depend on cancellation).
 */
static int csc_sum(size_t n, int count, const double *coef,
		   const double *const *A, struct rths_hs_csc *out,
		   struct rths_error *err)
{
	size_t nnz = 0;

	memset(out, 0, sizeof(*out));
	for (int pass = 0; pass < 2; pass++) {
		nnz = 0;
		for (size_t j = 0; j < n; j++) {
			if (pass)
				out->colptr[j] = (int)nnz;
			for (size_t i = 0; i < n; i++) {
				double x = 0;
				int any = 0;

				for (int q = 0; q < count; q++) {
					double a = LA_AT(A[q], n, i, j);

					if (coef[q] != 0 && a != 0) {
						any = 1;
						x += coef[q] * a;
					}
				}
				if (!any)
					continue;
				if (pass) {
					out->rowind[nnz] = (int)i;
					out->m.x[nnz] = x;
				}
				nnz++;
			}
		}
		if (pass)
			break;
		if (nnz > INT_MAX)
			return rths_error_set(err, RTHS_E_UNSUPPORTED, NULL, 0,
					      NULL,
					      "%zu nonzeros: too many for KLU",
					      nnz);
		out->colptr = malloc((n + 1) * sizeof(int));
		out->rowind = malloc((nnz + 1) * sizeof(int));
		out->m.x = malloc((nnz + 1) * sizeof(double));
		if (!out->colptr || !out->rowind || !out->m.x) {
			rths_hs_csc_free(out);
			return rths_error_set(err, ENOMEM, NULL, 0, NULL,
					      "cannot allocate a sparse matrix of %zu nonzeros",
					      nnz);
		}
	}
	out->colptr[n] = (int)nnz;
	out->m.rows = out->m.cols = n;
	out->m.colptr = out->colptr;
	out->m.rowind = out->rowind;
	return 0;
}

int rths_hs_csc_combine(const struct rths_hs_stepper *st, double a, double b,
			double c, struct rths_hs_csc *out,
			struct rths_error *err)
{
	const double coef[3] = { a, b, c };
	const double *const A[3] = { st->model->m, st->c, st->k0 };

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
		      const double *c_mat, double c, struct la_lin *lu,
		      const char *what, struct rths_error *err)
{
	const double coef[3] = { a, b, c };
	const double *const A[3] = { st->model->m, c_mat, st->k0 };
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
	return factor_sum(st, a, b, st->c, c, lu, what, err);
}

int rths_hs_csc_factor_model_c(const struct rths_hs_stepper *st, double a,
			       double b, double c, struct la_lin *lu,
			       const char *what, struct rths_error *err)
{
	return factor_sum(st, a, b, st->model->c, c, lu, what, err);
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
	const double one = 1.0;
	int r;

	if (n < rths_hs_sparse_min_dofs || union_nnz(st, stop) > stop)
		return 0;
	sp = calloc(1, sizeof(*sp));
	if (!sp)
		return rths_error_set(err, ENOMEM, NULL, 0, NULL,
				      "cannot allocate a sparse model");
	st->sp = sp;
	r = csc_sum(n, 1, &one, (const double *const[]){ st->model->m },
		    &sp->m, err);
	if (!r)
		r = csc_sum(n, 1, &one, (const double *const[]){ st->model->k },
			    &sp->k, err);
	if (!r)
		r = csc_sum(n, 1, &one, (const double *const[]){ st->model->c },
			    &sp->c, err);
	if (!r)
		r = csc_sum(n, 1, &one, (const double *const[]){ st->k0 },
			    &sp->k0, err);
	if (!r)
		r = klu_factor(&st->mass_lu, &sp->m.m, "the mass matrix", err);
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
