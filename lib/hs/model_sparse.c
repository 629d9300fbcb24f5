// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Sparse models (rths/hs_model.h): their triplets checked and compressed
 * into columns with work and memory of the order of their nonzeros, never
 * an n x n array, for the stepper's sparse path (stepper_sparse.c).
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <rths/hs_model.h>

#include "hs/integrator_impl.h"

static const char *const matrix_name[3] = { "mass", "stiffness", "damping" };

int rths_hs_triplets_check(size_t n, const struct rths_hs_triplets *t,
			  const char *what, struct rths_error *err)
{
	if (t->nnz && (!t->row || !t->col || !t->val))
		return rths_error_set(err, EINVAL, NULL, 0, what,
				      "%zu triplets without their row, column or value arrays",
				      t->nnz);
	if (t->nnz > INT_MAX)
		return rths_error_set(err, RTHS_E_UNSUPPORTED, NULL, 0, what,
				      "%zu triplets: too many for KLU's int indices",
				      t->nnz);
	for (size_t q = 0; q < t->nnz; q++) {
		if (t->row[q] >= n || t->col[q] >= n)
			return rths_error_set(err, RTHS_E_BAD_DOF, NULL, 0, what,
					      "triplet %zu at (%zu, %zu): expected a row and a column in 0..%zu",
					      q, t->row[q], t->col[q], n - 1);
		if (!isfinite(t->val[q]))
			return rths_error_set(err, RTHS_E_NONFINITE, NULL, 0,
					      what,
					      "triplet %zu at (%zu, %zu) is %g: not a finite number",
					      q, t->row[q], t->col[q], t->val[q]);
	}
	return 0;
}

static int no_memory(struct rths_error *err, size_t nnz)
{
	return rths_error_set(err, ENOMEM, NULL, 0, NULL,
			      "cannot allocate a sparse matrix of %zu nonzeros",
			      nnz);
}

/*
 * Triplets (checked) into compressed columns with ascending rows, the
 * entries given more than once summed in the order given, zeros left
 * out: bucketed by
 * row, then by column in row order, so that each column comes out
 * sorted in O(nnz + n).
 */
int rths_hs_csc_from_triplets(size_t n, const struct rths_hs_triplets *t,
			      struct rths_hs_csc *out, struct rths_error *err)
{
	size_t nnz = t->nnz, *rowptr = calloc(n + 1, sizeof(size_t));
	int *rcol = malloc((nnz ? nnz : 1) * sizeof(int));
	double *rx = malloc((nnz ? nnz : 1) * sizeof(double));
	int r = 0;

	memset(out, 0, sizeof(*out));
	out->colptr = calloc(n + 1, sizeof(int));
	out->rowind = malloc((nnz ? nnz : 1) * sizeof(int));
	out->m.x = malloc((nnz ? nnz : 1) * sizeof(double));
	if (!rowptr || !rcol || !rx || !out->colptr || !out->rowind ||
	    !out->m.x) {
		r = no_memory(err, nnz);
		goto out;
	}
	/* by row, in the order given */
	for (size_t q = 0; q < nnz; q++)
		rowptr[t->row[q] + 1]++;
	for (size_t i = 0; i < n; i++)
		rowptr[i + 1] += rowptr[i];
	for (size_t q = 0; q < nnz; q++) {
		size_t p = rowptr[t->row[q]]++;

		rcol[p] = (int)t->col[q];
		rx[p] = t->val[q];
	}
	/* rowptr[i] is now the end of row i: by column, rows ascending */
	for (size_t q = 0; q < nnz; q++)
		out->colptr[t->col[q] + 1]++;
	for (size_t j = 0; j < n; j++)
		out->colptr[j + 1] += out->colptr[j];
	for (size_t i = 0, p = 0; i < n; i++)
		for (; p < rowptr[i]; p++) {
			int k = out->colptr[rcol[p]]++;

			out->rowind[k] = (int)i;
			out->m.x[k] = rx[p];
		}
	/*
	 * colptr[j] is now the end of column j: sum the repeated entries and
	 * drop those that are zero, as the dense model's conversion does
	 * (assembly cancels some exactly: a frame's interior nodes).
	 */
	{
		int start = 0, k = 0;

		for (size_t j = 0; j < n; j++) {
			int end = out->colptr[j], first = k;

			for (int p = start; p < end; p++) {
				if (k > first &&
				    out->rowind[k - 1] == out->rowind[p]) {
					out->m.x[k - 1] += out->m.x[p];
					continue;
				}
				if (k > first && out->m.x[k - 1] == 0)
					k--;
				out->rowind[k] = out->rowind[p];
				out->m.x[k++] = out->m.x[p];
			}
			if (k > first && out->m.x[k - 1] == 0)
				k--;
			out->colptr[j] = first;
			start = end;
		}
		out->colptr[n] = k;
	}
	out->m.rows = out->m.cols = n;
	out->m.colptr = out->colptr;
	out->m.rowind = out->rowind;
out:
	if (r < 0)
		rths_hs_csc_free(out);
	free(rowptr);
	free(rcol);
	free(rx);
	return r;
}

/* Entry (i, j) of a compressed matrix, 0 if not stored. */
static double csc_at(const struct la_csc *A, int i, size_t j)
{
	int lo = A->colptr[j], hi = A->colptr[j + 1];

	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if (A->rowind[mid] == i)
			return A->x[mid];
		if (A->rowind[mid] < i)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0.0;
}

/* Symmetric to 1e-9 of the largest entry, as rths_hs_model_check(). */
static int check_symmetric(const struct la_csc *A, const char *what,
			   struct rths_error *err)
{
	size_t nnz = la_csc_nnz(A);
	double big = 0;

	for (size_t p = 0; p < nnz; p++)
		big = fmax(big, fabs(A->x[p]));
	for (size_t j = 0; j < A->cols; j++)
		for (int p = A->colptr[j]; p < A->colptr[j + 1]; p++) {
			int i = A->rowind[p];
			double mirror = csc_at(A, (int)j, (size_t)i);

			if (fabs(A->x[p] - mirror) > 1e-9 * big)
				return rths_error_set(err, RTHS_E_NOT_SYMMETRIC,
						      NULL, 0, what,
						      "expected a symmetric matrix: (%d, %zu) = %g but (%zu, %d) = %g",
						      i, j, A->x[p], j, i,
						      mirror);
		}
	return 0;
}

static int check_elements(const struct rths_hs_sparse_model *m,
			  struct rths_error *err)
{
	if (m->n_elements && !m->elements)
		return rths_error_set(err, EINVAL, NULL, 0, "elements",
				      "%zu elements without their array",
				      m->n_elements);
	for (size_t q = 0; q < m->n_elements; q++) {
		const struct rths_hs_element *e = &m->elements[q];
		int r;

		if (e->dof_i < 0 || (size_t)e->dof_i >= m->n ||
		    e->dof_j < -1 || (e->dof_j >= 0 &&
				      (size_t)e->dof_j >= m->n) ||
		    e->dof_i == e->dof_j)
			return rths_error_set(err, RTHS_E_BAD_DOF, NULL, 0,
					      "elements",
					      "element %zu between DOFs %d and %d: expected two distinct DOFs in 0..%zu (-1: ground)",
					      q, e->dof_i, e->dof_j, m->n - 1);
		r = rths_hs_element_check(&e->p, err);
		if (r < 0)
			return r;
	}
	return 0;
}

int rths_hs_sparse_model_compress(const struct rths_hs_sparse_model *m,
				  struct rths_hs_csc out[3],
				  struct rths_error *err)
{
	const struct rths_hs_triplets *t[3] = { &m->m, &m->k, &m->c };
	int r = 0;

	memset(out, 0, 3 * sizeof(*out));
	if (m->n == 0 || m->n > INT_MAX)
		return rths_error_set(err, RTHS_E_BAD_SHAPE, NULL, 0, "n",
				      "%zu DOFs: expected 1 to %d", m->n,
				      INT_MAX);
	if (m->r && !la_all_finite(m->n, m->r))
		return rths_error_set(err, RTHS_E_NONFINITE, NULL, 0,
				      "influence",
				      "the influence vector has a value that is not a finite number");
	r = check_elements(m, err);
	for (int q = 0; q < 3 && r == 0; q++) {
		r = rths_hs_triplets_check(m->n, t[q], matrix_name[q], err);
		if (r == 0)
			r = rths_hs_csc_from_triplets(m->n, t[q], &out[q], err);
		if (r == 0)
			r = check_symmetric(&out[q].m, matrix_name[q], err);
	}
	if (r < 0)
		for (int q = 0; q < 3; q++)
			rths_hs_csc_free(&out[q]);
	return r;
}

int rths_hs_sparse_model_check(const struct rths_hs_sparse_model *m,
			       struct rths_error *err)
{
	struct rths_hs_csc mkc[3];
	int r = rths_hs_sparse_model_compress(m, mkc, err);

	for (int q = 0; r == 0 && q < 3; q++)
		rths_hs_csc_free(&mkc[q]);
	return r;
}

int rths_hs_sparse_elements_k0(const struct rths_hs_sparse_model *m,
			       struct rths_hs_csc *out,
			       struct rths_error *err)
{
	size_t cap = 4 * m->n_elements, q = 0;
	size_t *row = malloc((cap ? cap : 1) * sizeof(size_t));
	size_t *col = malloc((cap ? cap : 1) * sizeof(size_t));
	double *val = malloc((cap ? cap : 1) * sizeof(double));
	int r;

	if (!row || !col || !val) {
		r = no_memory(err, cap);
		goto out;
	}
	/* the spring's initial stiffness at (i, i), (j, j), -(i, j), -(j, i) */
	for (size_t e = 0; e < m->n_elements; e++) {
		size_t i = (size_t)m->elements[e].dof_i;
		double k = m->elements[e].p.k;

		row[q] = col[q] = i;
		val[q++] = k;
		if (m->elements[e].dof_j < 0)
			continue;
		{
			size_t j = (size_t)m->elements[e].dof_j;

			row[q] = col[q] = j;
			val[q++] = k;
			row[q] = i;
			col[q] = j;
			val[q++] = -k;
			row[q] = j;
			col[q] = i;
			val[q++] = -k;
		}
	}
	r = rths_hs_csc_from_triplets(m->n, &(struct rths_hs_triplets){
		.nnz = q, .row = row, .col = col, .val = val }, out, err);
out:
	free(row);
	free(col);
	free(val);
	return r;
}

void rths_hs_sparse_model_ground_force(const struct rths_hs_sparse_model *m,
				       double ag, double *f)
{
	memset(f, 0, m->n * sizeof(double));
	for (size_t q = 0; q < m->m.nnz; q++)
		f[m->m.row[q]] += m->m.val[q] * (m->r ? m->r[m->m.col[q]] : 1.0);
	for (size_t i = 0; i < m->n; i++)
		f[i] *= -ag;
}
