// SPDX-License-Identifier: GPL-2.0
/* The numerical substructure: linear stiffness, damping and mass. */
#include "site.h"

/*
 * f = K u + C v + M a, each term skipped when its vector is absent, summed
 * in a fixed order so that a client can reproduce it to the last bit.
 */
void model_force(const struct substructure *sub, const double *u,
		 const double *v, const double *a, double *f)
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
