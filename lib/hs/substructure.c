// SPDX-License-Identifier: LGPL-2.1-or-later
/* Interface between the numerical DOFs and the experimental substructure. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <rths/hs_model.h>

#include "hs/linalg.h"

int rths_hs_substructure_init(struct rths_hs_substructure *s, size_t n_dof,
			      size_t n_if, struct rths_error *err)
{
	memset(s, 0, sizeof(*s));
	if (!n_dof || !n_if)
		return rths_error_set(err, EINVAL, NULL, 0, NULL,
				      "a substructure needs DOFs and interface coordinates");
	s->n_dof = n_dof;
	s->n_if = n_if;
	s->cmd_map = rths_zalloc(n_if * n_dof, err);
	s->force_map = rths_zalloc(n_if * n_dof, err);
	if (!s->cmd_map || !s->force_map) {
		rths_hs_substructure_free(s);
		return -ENOMEM;
	}
	return 0;
}

void rths_hs_substructure_free(struct rths_hs_substructure *s)
{
	if (!s)
		return;
	RTHS_FREE_ALL(s->cmd_map, s->force_map);
	memset(s, 0, sizeof(*s));
}

void rths_hs_substructure_force_map_transpose(struct rths_hs_substructure *s)
{
	for (size_t i = 0; i < s->n_if; i++)
		for (size_t j = 0; j < s->n_dof; j++)
			LA_AT(s->force_map, s->n_dof, j, i) =
				LA_AT(s->cmd_map, s->n_if, i, j);
}

void rths_hs_substructure_command(const struct rths_hs_substructure *s,
				  const double *u, double *x)
{
	la_gemv(s->n_if, s->n_dof, 1.0, s->cmd_map, u, 0.0, x);
}

void rths_hs_substructure_feedback(const struct rths_hs_substructure *s,
				   const double *f_if, double *r_exp)
{
	la_gemv(s->n_dof, s->n_if, 1.0, s->force_map, f_if, 0.0,
			r_exp);
}

int rths_hs_substructure_to_dofs(const struct rths_hs_substructure *s,
				 const double *kif, double *kdof,
				 struct rths_error *err)
{
	size_t n = s->n_dof, q = s->n_if;
	double *tmp = rths_zalloc(n * q, err);

	if (!tmp)
		return -ENOMEM;
	/* kdof += F (kif T) */
	la_gemm(q, n, q, 1.0, kif, s->cmd_map, 0.0, tmp);
	la_gemm(n, n, q, 1.0, s->force_map, tmp, 1.0, kdof);
	free(tmp);
	return 0;
}

int rths_hs_substructure_check_input(size_t n, size_t n_expected,
				     const double *u, const double *v,
				     const double *a, const double *t,
				     struct rths_error *err)
{
	static const char *const names[] = { "displacement", "velocity",
					     "acceleration" };
	const double *vec[] = { u, v, a };

	if (n != n_expected)
		return rths_error_set(err, RTHS_E_BAD_SHAPE, NULL, 0, NULL,
				      "%zu DOF, the substructure has %zu", n,
				      n_expected);
	for (size_t k = 0; k < 3; k++)
		for (size_t i = 0; vec[k] && i < n; i++)
			if (!isfinite(vec[k][i]))
				return rths_error_set(err, RTHS_E_DIVERGED,
						      NULL, 0, NULL,
						      "%s %zu is %g: not a finite number",
						      names[k], i, vec[k][i]);
	if (t && !isfinite(*t))
		return rths_error_set(err, RTHS_E_DIVERGED, NULL, 0, NULL,
				      "time is %g: not a finite number", *t);
	return 0;
}

int rths_hs_model_with_specimen(struct rths_hs_model *dst,
				const struct rths_hs_model *src,
				const struct rths_hs_substructure *s,
				const double *k_if, const double *c_if,
				struct rths_error *err)
{
	int r = rths_hs_model_copy(dst, src, err);

	if (r < 0)
		return r;
	if (s && k_if)
		r = rths_hs_substructure_to_dofs(s, k_if, dst->k, err);
	if (r == 0 && s && c_if)
		r = rths_hs_substructure_to_dofs(s, c_if, dst->c, err);
	if (r < 0)
		rths_hs_model_free(dst);
	return r;
}
