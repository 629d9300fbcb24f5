// SPDX-License-Identifier: GPL-2.0
/*
 * The numerical substructure: linear stiffness, damping and mass, and the
 * engine's springs (<rths/hs_model.h>), trial from the committed state.
 */
#include <string.h>

#include "site.h"

static double deformation(const struct rths_hs_element *e, const double *u)
{
	return u[e->dof_i] - (e->dof_j >= 0 ? u[e->dof_j] : 0.0);
}

/*
 * f = K u + C v + M a, each term skipped when its vector is absent, summed
 * in a fixed order so that a client can reproduce it to the last bit.
 */
void model_force(const struct substructure *sub, struct rths_hs_element *el,
		 const double *u, const double *v, const double *a, double *f)
{
	int n = sub->n;

	for (int i = 0; i < n; i++) {
		double s = 0.0;

		for (int j = 0; j < n; j++)
			s += sub->k[i * n + j] * u[j];
		if (v && sub->c)
			for (int j = 0; j < n; j++)
				s += sub->c[i * n + j] * v[j];
		if (a && sub->m)
			for (int j = 0; j < n; j++)
				s += sub->m[i * n + j] * a[j];
		f[i] = s;
	}
	/* Then each spring in the file's order, at its trial deformation. */
	for (int e = 0; e < sub->nel; e++) {
		double fe = rths_hs_element_trial(&el[e], deformation(&el[e], u));

		f[el[e].dof_i] += fe;
		if (el[e].dof_j >= 0)
			f[el[e].dof_j] -= fe;
	}
}

/* K plus each spring's initial or trial tangent stiffness. */
void model_tangent(const struct substructure *sub,
		   struct rths_hs_element *el, const double *u, int initial,
		   double *rm)
{
	int n = sub->n;

	memcpy(rm, sub->k, (size_t)n * n * sizeof(double));
	for (int e = 0; e < sub->nel; e++) {
		int i = el[e].dof_i, j = el[e].dof_j;
		double k = el[e].p.k;

		if (!initial) {
			rths_hs_element_trial(&el[e], deformation(&el[e], u));
			k = el[e].k_t;
		}
		rm[i * n + i] += k;
		if (j >= 0) {
			rm[j * n + j] += k;
			rm[i * n + j] -= k;
			rm[j * n + i] -= k;
		}
	}
}

/* The trial at u becomes the committed state. */
void model_commit(const struct substructure *sub, struct rths_hs_element *el,
		  const double *u)
{
	for (int e = 0; e < sub->nel; e++) {
		rths_hs_element_trial(&el[e], deformation(&el[e], u));
		rths_hs_element_commit(&el[e]);
	}
}

/* OpenSees' Matrix is column-major; rm is row-major or NULL (zero). */
void model_matrix_colmajor(const struct substructure *sub, const double *rm,
			   double *out)
{
	int n = sub->n;

	for (int j = 0; j < n; j++)
		for (int i = 0; i < n; i++)
			out[j * n + i] = rm ? rm[i * n + j] : 0.0;
}
