// SPDX-License-Identifier: LGPL-2.1-or-later
/* Linear MDOF models with hysteretic elements; damping models. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <rths/hs_model.h>

#include "hs/integrator_impl.h"
#include "hs/linalg.h"

#define AT LA_AT

int rths_hs_model_init(struct rths_hs_model *m, size_t n,
		       struct rths_error *err)
{
	memset(m, 0, sizeof(*m));
	if (n == 0)
		return rths_error_set(err, EINVAL, NULL, 0, NULL,
				      "a model needs at least one DOF");
	m->n = n;
	m->m = rths_zalloc(n * n, err);
	m->k = rths_zalloc(n * n, err);
	m->c = rths_zalloc(n * n, err);
	m->r = rths_zalloc(n, err);
	if (!m->m || !m->k || !m->c || !m->r) {
		rths_hs_model_free(m);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		m->r[i] = 1.0;
	return 0;
}

void rths_hs_model_free(struct rths_hs_model *m)
{
	if (!m)
		return;
	RTHS_FREE_ALL(m->m, m->k, m->c, m->r, m->elements);
	memset(m, 0, sizeof(*m));
}

int rths_hs_model_copy(struct rths_hs_model *dst,
		       const struct rths_hs_model *src,
		       struct rths_error *err)
{
	size_t n = src->n;
	int r = rths_hs_model_init(dst, n, err);

	if (r < 0)
		return r;
	memcpy(dst->m, src->m, n * n * sizeof(double));
	memcpy(dst->k, src->k, n * n * sizeof(double));
	memcpy(dst->c, src->c, n * n * sizeof(double));
	memcpy(dst->r, src->r, n * sizeof(double));
	if (src->n_elements) {
		dst->elements = malloc(src->n_elements *
				       sizeof(*dst->elements));
		if (!dst->elements) {
			rths_hs_model_free(dst);
			return rths_error_set(err, ENOMEM, NULL, 0, NULL,
					      "cannot copy the elements");
		}
		memcpy(dst->elements, src->elements,
		       src->n_elements * sizeof(*dst->elements));
		dst->n_elements = src->n_elements;
	}
	return 0;
}

/* Adds a spring k between i and j (j < 0: ground) to a stiffness matrix. */
static void add_spring(double *K, size_t n, int i, int j, double k)
{
	AT(K, n, i, i) += k;
	if (j >= 0) {
		AT(K, n, j, j) += k;
		AT(K, n, i, j) -= k;
		AT(K, n, j, i) -= k;
	}
}

int rths_hs_model_shear_building(struct rths_hs_model *m, size_t stories,
				 const double *mass, const double *stiffness,
				 struct rths_error *err)
{
	int r = rths_hs_model_init(m, stories, err);

	if (r < 0)
		return r;
	for (size_t i = 0; i < stories; i++) {
		AT(m->m, stories, i, i) = mass[i];
		if (stiffness[i] != 0)
			add_spring(m->k, stories, (int)i, (int)i - 1,
				   stiffness[i]);
	}
	return 0;
}

int rths_hs_model_add_element(struct rths_hs_model *m, int dof_i, int dof_j,
			      const struct rths_hs_element_params *p,
			      struct rths_error *err)
{
	struct rths_hs_element *e;
	int r;

	if (dof_i < 0 || (size_t)dof_i >= m->n || dof_j < -1 ||
	    (dof_j >= 0 && (size_t)dof_j >= m->n) || dof_i == dof_j)
		return rths_error_set(err, RTHS_E_BAD_DOF, NULL, 0, NULL,
				      "element DOFs %d, %d: expected two distinct DOFs in 0..%zu (-1: ground)",
				      dof_i, dof_j, m->n - 1);
	r = rths_hs_element_check(p, err);
	if (r < 0)
		return r;
	e = realloc(m->elements, (m->n_elements + 1) * sizeof(*e));
	if (!e)
		return rths_error_set(err, ENOMEM, NULL, 0, NULL,
				      "cannot add an element");
	m->elements = e;
	rths_hs_element_init(&e[m->n_elements++], p, dof_i, dof_j);
	return 0;
}

static int check_symmetric(const double *A, size_t n, const char *what,
			   struct rths_error *err)
{
	size_t i, j;

	/* finite first: a NaN would make every entry look asymmetric */
	for (j = 0; j < n; j++)
		for (i = 0; i < n; i++)
			if (!isfinite(AT(A, n, i, j)))
				return rths_error_set(err, RTHS_E_OUT_OF_RANGE,
						      NULL, 0, what,
						      "entry (%zu, %zu) is not a finite number",
						      i, j);
	if (la_asymmetry(n, A, 1e-9, &i, &j))
		return rths_error_set(err, RTHS_E_NOT_SYMMETRIC, NULL, 0, what,
				      "expected a symmetric matrix: (%zu, %zu) = %g but (%zu, %zu) = %g",
				      i, j, AT(A, n, i, j), j, i, AT(A, n, j, i));
	return 0;
}

int rths_hs_model_check(const struct rths_hs_model *m,
			struct rths_error *err)
{
	size_t n = m->n;
	double *w;
	int r;

	r = check_symmetric(m->m, n, "mass", err);
	if (r == 0)
		r = check_symmetric(m->k, n, "stiffness", err);
	if (r == 0)
		r = check_symmetric(m->c, n, "damping", err);
	if (r < 0)
		return r;
	/* Positive definite mass: its smallest eigenvalue, through the
	 * same solver the modes use (K = M, M = I). */
	w = rths_zalloc(n + n * n, err);
	if (!w)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		AT(w + n, n, i, i) = 1.0;
	r = rths_hs_la_eig(n, m->m, w + n, w, NULL, err);
	if (r == 0 && !(w[0] > 0))
		r = rths_error_set(err, RTHS_E_NOT_POSITIVE_DEFINITE, NULL, 0,
				   "mass",
				   "expected a positive definite mass matrix (smallest eigenvalue %g)",
				   w[0] * fabs(w[0]));
	free(w);
	return r;
}

void rths_hs_model_initial_stiffness(const struct rths_hs_model *m,
				     double *k0)
{
	memcpy(k0, m->k, m->n * m->n * sizeof(double));
	for (size_t e = 0; e < m->n_elements; e++)
		add_spring(k0, m->n, m->elements[e].dof_i,
			   m->elements[e].dof_j, m->elements[e].p.k);
}

void rths_hs_model_tangent(const struct rths_hs_model *m, double *kt)
{
	memcpy(kt, m->k, m->n * m->n * sizeof(double));
	for (size_t e = 0; e < m->n_elements; e++)
		add_spring(kt, m->n, m->elements[e].dof_i,
			   m->elements[e].dof_j, m->elements[e].k_t);
}

int rths_hs_model_frequencies(const struct rths_hs_model *m,
			      const double *k_extra, double *omega,
			      double *phi, struct rths_error *err)
{
	size_t n = m->n;
	double *k0 = rths_zalloc(n * n, err);
	int r;

	if (!k0)
		return -ENOMEM;
	rths_hs_model_initial_stiffness(m, k0);
	if (k_extra)
		la_axpy(n * n, 1.0, k_extra, k0);
	r = rths_hs_la_eig(n, k0, m->m, omega, phi, err);
	free(k0);
	return r;
}

void rths_hs_rayleigh_coefficients(double w1, double w2, double zeta1,
				   double zeta2, double *a0, double *a1)
{
	if (fabs(w2 - w1) < 1e-12 * (w1 + w2)) {
		/* One frequency: stiffness-proportional only. */
		*a0 = 0.0;
		*a1 = 2.0 * zeta1 / w1;
		return;
	}
	/* zeta_i = a0 / (2 w_i) + a1 w_i / 2, solved for a0, a1. */
	*a0 = 2.0 * w1 * w2 * (zeta1 * w2 - zeta2 * w1) / (w2 * w2 - w1 * w1);
	*a1 = 2.0 * (zeta2 * w2 - zeta1 * w1) / (w2 * w2 - w1 * w1);
}

void rths_hs_model_set_rayleigh(struct rths_hs_model *m, double a0,
				double a1)
{
	size_t nn = m->n * m->n;

	rths_hs_model_initial_stiffness(m, m->c);
	for (size_t i = 0; i < nn; i++)
		m->c[i] = a0 * m->m[i] + a1 * m->c[i];
}

int rths_hs_model_set_modal_damping(struct rths_hs_model *m,
				    const double *zeta, size_t count,
				    const double *k_extra,
				    struct rths_error *err)
{
	size_t n = m->n;
	double *w = rths_zalloc(n + 2 * n * n, err);
	double *phi, *mp;
	int r;

	if (!w)
		return -ENOMEM;
	phi = w + n;
	mp = phi + n * n;
	r = rths_hs_model_frequencies(m, k_extra, w, phi, err);
	if (r < 0)
		goto out;
	/* With Phi^T M Phi = I, C = (M Phi) diag(2 zeta w) (M Phi)^T. */
	la_gemm(n, n, n, 1.0, m->m, phi, 0.0, mp);
	memset(m->c, 0, n * n * sizeof(double));
	for (size_t i = 0; i < n; i++) {
		double z = count ? zeta[i < count ? i : count - 1] : 0.0;
		double g = 2.0 * z * (w[i] > 0 ? w[i] : 0.0);
		const double *col = mp + i * n;

		for (size_t b = 0; b < n; b++)
			for (size_t a = 0; a < n; a++)
				AT(m->c, n, a, b) += g * col[a] * col[b];
	}
out:
	free(w);
	return r;
}

void rths_hs_model_ground_force(const struct rths_hs_model *m, double ag,
				double *f)
{
	la_gemv(m->n, m->n, -ag, m->m, m->r, 0.0, f);
}

void rths_hs_model_restoring(struct rths_hs_model *m, const double *u,
			     double *r)
{
	la_gemv(m->n, m->n, 1.0, m->k, u, 0.0, r);
	rths_hs_model_element_forces(m, u, r);
}

void rths_hs_model_element_forces(struct rths_hs_model *m, const double *u,
				  double *r)
{
	for (size_t i = 0; i < m->n_elements; i++) {
		struct rths_hs_element *e = &m->elements[i];
		double d = u[e->dof_i] - (e->dof_j >= 0 ? u[e->dof_j] : 0.0);
		double f = rths_hs_element_trial(e, d);

		r[e->dof_i] += f;
		if (e->dof_j >= 0)
			r[e->dof_j] -= f;
	}
}

void rths_hs_model_commit(struct rths_hs_model *m)
{
	for (size_t i = 0; i < m->n_elements; i++)
		rths_hs_element_commit(&m->elements[i]);
}

void rths_hs_model_revert(struct rths_hs_model *m)
{
	for (size_t i = 0; i < m->n_elements; i++)
		rths_hs_element_revert(&m->elements[i]);
}
