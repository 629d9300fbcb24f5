// SPDX-License-Identifier: LGPL-2.1-or-later
/* Experiment files: the "model" section and its damping. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "files/experiment_impl.h"
#include "common/alloc.h"

const struct rths_hs_jrange rths_hs_jr_positive = {
	.lo = 0, .hi = INFINITY, .lo_open = true };
const struct rths_hs_jrange rths_hs_jr_nonneg = { .lo = 0, .hi = INFINITY };
const struct rths_hs_jrange rths_hs_jr_ratio = {
	.lo = 0, .hi = 1, .hi_open = true };

#define MAX_DOFS 2000

int rths_hs_exp_element(const struct rths_hs_jctx *c, json_t *obj,
			const char *path, double default_k,
			struct rths_hs_element_params *p)
{
	static const char *const keys[] = {
		"type", "dofs", "stiffness", "yield_force", "post_yield_ratio",
		"exponent", "beta", "gamma", NULL,
	};
	static const char *const kinds[] = { "linear", "bilinear", "bouc_wen",
					     NULL };
	static const struct rths_hs_jrange expo = { .lo = 1, .hi = 20 };
	static const struct rths_hs_jrange any = { .lo = -10, .hi = 10 };
	struct rths_error e;
	char p2[RTHS_HS_JPATH];
	int kind = 0, r;

	r = rths_hs_jkeys(c, obj, path, keys);
	if (r == 0)
		r = rths_hs_jchoice(c, obj, path, "type", true, kinds, &kind);
	if (r)
		return r;
	rths_hs_element_defaults(p, (enum rths_hs_element_kind)(kind + 1),
				 default_k, 0);
	r = rths_hs_jnumber(c, obj, path, "stiffness", !(default_k > 0),
			    &rths_hs_jr_positive, &p->k);
	if (r < 0)
		return r;
	if (p->kind != RTHS_HS_ELEMENT_LINEAR) {
		r = rths_hs_jnumber(c, obj, path, "yield_force", true,
				    &rths_hs_jr_positive, &p->fy);
		if (r == 0 || r == 1)
			r = rths_hs_jnumber(c, obj, path, "post_yield_ratio",
					    false, &rths_hs_jr_ratio, &p->alpha);
		if (r < 0)
			return r;
	}
	if (p->kind == RTHS_HS_ELEMENT_BOUC_WEN) {
		if ((r = rths_hs_jnumber(c, obj, path, "exponent", false, &expo,
					 &p->n)) < 0 ||
		    (r = rths_hs_jnumber(c, obj, path, "beta", false, &any,
					 &p->beta)) < 0 ||
		    (r = rths_hs_jnumber(c, obj, path, "gamma", false, &any,
					 &p->gamma)) < 0)
			return r;
	}
	if (rths_hs_element_check(p, &e) < 0) {
		rths_hs_jpath_key(p2, path, e.path);
		return rths_hs_jfail(c, e.code, p2, "%s", e.msg);
	}
	return 0;
}

static int shear_building(const struct rths_hs_jctx *c, json_t *model,
			  const bool *tested, struct rths_hs_experiment *x)
{
	static const char *const keys[] = { "mass", "stiffness", "nonlinear",
					    NULL };
	double mass[MAX_DOFS], stiff[MAX_DOFS];
	json_t *stories;
	size_t n;
	int r;

	r = rths_hs_jarray(c, model, "model", "stories", true, 1, MAX_DOFS,
			   &stories);
	if (r)
		return r;
	n = json_array_size(stories);
	for (size_t i = 0; i < n; i++) {
		json_t *s;
		char p[RTHS_HS_JPATH];

		r = rths_hs_jelement(c, stories, "model.stories", i,
				     "a story: {\"mass\": kg, \"stiffness\": N/m}",
				     keys, &s, p);
		if (r == 0)
			r = rths_hs_jnumber(c, s, p, "mass", true,
					    &rths_hs_jr_positive, &mass[i]);
		if (r == 0)
			r = rths_hs_jnumber(c, s, p, "stiffness", true,
					    &rths_hs_jr_positive, &stiff[i]);
		if (r)
			return r;
	}
	/* Tested stories and nonlinear ones are not linear springs in K. */
	{
		double lin[MAX_DOFS];

		for (size_t i = 0; i < n; i++)
			lin[i] = (tested[i] ||
				  json_object_get(json_array_get(stories, i),
						  "nonlinear")) ? 0 : stiff[i];
		r = rths_hs_model_shear_building(&x->model, n, mass, lin,
						 c->err);
		if (r < 0)
			return r;
	}
	for (size_t i = 0; i < n; i++) {
		struct rths_hs_element_params ep;
		char p[RTHS_HS_JPATH], q[RTHS_HS_JPATH];
		json_t *nl;

		rths_hs_jpath_index(p, "model.stories", i);
		r = rths_hs_jobject(c, json_array_get(stories, i), p,
				    "nonlinear", false, &nl);
		if (r < 0)
			return r;
		if (r == 1 || tested[i])
			continue;	/* a tested one goes to the specimen */
		rths_hs_jpath_key(q, p, "nonlinear");
		r = rths_hs_exp_element(c, nl, q, stiff[i], &ep);
		if (r == 0)
			r = rths_hs_model_add_element(&x->model, (int)i,
						      (int)i - 1, &ep, c->err);
		if (r < 0)
			return r;
	}
	return 0;
}

static int matrices(const struct rths_hs_jctx *c, json_t *model,
		    struct rths_hs_experiment *x)
{
	static const struct rths_hs_jrange any = { .lo = -1e3, .hi = 1e3 };
	static const struct rths_hs_jrange dofs_range = { .lo = -1,
							  .hi = MAX_DOFS };
	json_t *mv, *kv, *rv, *els;
	struct rths_error e;
	size_t n;
	int r;

	mv = json_object_get(model, "mass");
	if (!mv)
		return rths_hs_jfail(c, RTHS_E_MISSING_FIELD, "model.mass",
				     "required; expected the mass matrix (rows, or a list for a diagonal)");
	n = json_is_array(mv) ? json_array_size(mv) : 1;
	if (n < 1 || n > MAX_DOFS)
		return rths_hs_jfail(c, RTHS_E_BAD_SHAPE, "model.mass",
				     "expected 1 to %d DOFs", MAX_DOFS);
	r = rths_hs_model_init(&x->model, n, c->err);
	if (r == 0)
		r = rths_hs_jmatrix(c, mv, "model.mass", n, n, x->model.m);
	if (r)
		return r;
	kv = json_object_get(model, "stiffness");
	if (!kv)
		return rths_hs_jfail(c, RTHS_E_MISSING_FIELD,
				     "model.stiffness",
				     "required; expected a %zu x %zu matrix", n, n);
	r = rths_hs_jmatrix(c, kv, "model.stiffness", n, n, x->model.k);
	if (r)
		return r;
	rv = json_object_get(model, "influence");
	if (rv && (r = rths_hs_jvector(c, rv, "model.influence", n, &any,
				       x->model.r)))
		return r;
	r = rths_hs_jarray(c, model, "model", "elements", false, 0, 1000, &els);
	for (size_t i = 0; r == 0 && i < json_array_size(els); i++) {
		struct rths_hs_element_params ep;
		json_t *el, *dofs;
		char p[RTHS_HS_JPATH], q[RTHS_HS_JPATH];
		double d[2];

		r = rths_hs_jelement(c, els, "model.elements", i,
				     "an element object", NULL, &el, p);
		if (r)
			return r;
		rths_hs_jpath_key(q, p, "dofs");
		r = rths_hs_jarray(c, el, p, "dofs", true, 2, 2, &dofs);
		if (r == 0)
			r = rths_hs_jvector(c, dofs, q, 2, &dofs_range, d);
		if (r == 0)
			r = rths_hs_exp_element(c, el, p, 0, &ep);
		if (r)
			return r;
		if (d[0] != floor(d[0]) || d[1] != floor(d[1]) ||
		    d[0] < 0 || d[0] >= (double)n || d[1] >= (double)n ||
		    d[0] == d[1])
			return rths_hs_jfail(c, RTHS_E_BAD_DOF, q,
					     "expected two different DOFs in 0..%zu (-1: the ground)",
					     n - 1);
		r = rths_hs_model_add_element(&x->model, (int)d[0], (int)d[1],
					      &ep, c->err);
	}
	if (r < 0)
		return r;
	if (rths_hs_model_check(&x->model, &e) < 0) {
		char p[RTHS_HS_JPATH];

		rths_hs_jpath_key(p, "model", e.path);
		return rths_hs_jfail(c, e.code, p, "%s", e.msg);
	}
	return 0;
}

int rths_hs_exp_model(const struct rths_hs_jctx *c, json_t *root,
		      struct rths_hs_experiment *x)
{
	static const char *const keys[] = {
		"type", "stories", "mass", "stiffness", "influence", "elements",
		"damping", NULL,
	};
	static const char *const types[] = { "shear_building", "matrices",
					     NULL };
	bool tested[MAX_DOFS] = { false };
	json_t *model, *sub, *list;
	int type = 0, r;

	r = rths_hs_jobject(c, root, "", "model", true, &model);
	if (r == 0)
		r = rths_hs_jkeys(c, model, "model", keys);
	if (r == 0)
		r = rths_hs_jchoice(c, model, "model", "type", true, types,
				    &type);
	if (r)
		return r;
	if (type == 1)
		return matrices(c, model, x);
	/* Stories named in substructure.experimental_stories are the
	 * specimen: leave them out here (the substructure checks them). */
	sub = json_object_get(root, "substructure");
	list = sub ? json_object_get(sub, "experimental_stories") : NULL;
	for (size_t i = 0; json_is_array(list) && i < json_array_size(list);
	     i++) {
		json_t *v = json_array_get(list, i);

		if (json_is_integer(v) && json_integer_value(v) >= 0 &&
		    json_integer_value(v) < MAX_DOFS)
			tested[json_integer_value(v)] = true;
	}
	return shear_building(c, model, tested, x);
}

/* Modes named by number (1 = fundamental) within the model's range. */
static int mode_number(const struct rths_hs_jctx *c, json_t *v,
		       const char *path, size_t n, size_t *out)
{
	if (!json_is_integer(v) || json_integer_value(v) < 1 ||
	    (size_t)json_integer_value(v) > n)
		return rths_hs_jfail(c, json_is_integer(v) ?
				     RTHS_E_OUT_OF_RANGE :
				     RTHS_E_WRONG_TYPE, path,
				     "expected a mode number in 1..%zu", n);
	*out = (size_t)json_integer_value(v) - 1;
	return 0;
}

static int rayleigh(const struct rths_hs_jctx *c, json_t *d,
		    struct rths_hs_experiment *x, const double *kx)
{
	static const struct rths_hs_jrange zeta = { .lo = 0, .hi = 1 };
	size_t n = x->model.n, m[2] = { 0, n > 1 ? 1 : 0 };
	double a0, a1, z[2], *w;
	json_t *zs, *ms;
	int r, r0, r1;

	r0 = rths_hs_jnumber(c, d, "model.damping", "mass_coefficient", false,
			     &rths_hs_jr_nonneg, &a0);
	r1 = rths_hs_jnumber(c, d, "model.damping", "stiffness_coefficient",
			     false, &rths_hs_jr_nonneg, &a1);
	if (r0 < 0 || r1 < 0)
		return r0 < 0 ? r0 : r1;
	if (r0 == 0 || r1 == 0) {
		if (json_object_get(d, "ratio") || json_object_get(d, "ratios"))
			return rths_hs_jfail(c, RTHS_E_CONFLICT,
					     "model.damping",
					     "give either coefficients or damping ratios, not both");
		rths_hs_model_set_rayleigh(&x->model, r0 == 0 ? a0 : 0,
					   r1 == 0 ? a1 : 0);
		return 0;
	}
	r = rths_hs_jnumber(c, d, "model.damping", "ratio", false, &zeta, z);
	if (r < 0)
		return r;
	z[1] = z[0];
	if (r == 1) {
		r = rths_hs_jarray(c, d, "model.damping", "ratios", true, 2, 2,
				   &zs);
		if (r == 0)
			r = rths_hs_jvector(c, zs, "model.damping.ratios", 2,
					    &zeta, z);
		if (r)
			return r;
	}
	r = rths_hs_jarray(c, d, "model.damping", "modes", false, 2, 2, &ms);
	if (r < 0)
		return r;
	if (r == 0 &&
	    ((r = mode_number(c, json_array_get(ms, 0),
			      "model.damping.modes[0]", n, &m[0])) ||
	     (r = mode_number(c, json_array_get(ms, 1),
			      "model.damping.modes[1]", n, &m[1]))))
		return r;
	w = rths_zalloc(n, c->err);
	if (!w)
		return -ENOMEM;
	r = rths_hs_model_frequencies(&x->model, kx, w, NULL, c->err);
	if (r == 0 && !(w[m[0]] > 0 && w[m[1]] > 0))
		r = rths_hs_jfail(c, RTHS_E_OUT_OF_RANGE,
				  "model.damping.modes",
				  "Rayleigh damping needs modes with positive frequencies");
	if (r == 0) {
		rths_hs_rayleigh_coefficients(w[m[0]], w[m[1]], z[0], z[1],
					      &a0, &a1);
		rths_hs_model_set_rayleigh(&x->model, a0, a1);
	}
	free(w);
	return r;
}

int rths_hs_exp_damping(const struct rths_hs_jctx *c, json_t *root,
			struct rths_hs_experiment *x, const double *k_extra)
{
	static const char *const keys[] = {
		"type", "ratio", "ratios", "modes", "mass_coefficient",
		"stiffness_coefficient", "matrix", NULL,
	};
	static const char *const types[] = { "none", "rayleigh", "modal",
					     "matrix", NULL };
	static const struct rths_hs_jrange zeta = { .lo = 0, .hi = 1 };
	json_t *model = json_object_get(root, "model"), *d, *zs, *mv;
	size_t n = x->model.n;
	struct rths_error e;
	int type = 0, r;

	r = rths_hs_jobject(c, model, "model", "damping", false, &d);
	if (r)
		return r < 0 ? r : 0;	/* absent: undamped */
	r = rths_hs_jkeys(c, d, "model.damping", keys);
	if (r == 0)
		r = rths_hs_jchoice(c, d, "model.damping", "type", true, types,
				    &type);
	if (r)
		return r;
	if (type == 1)
		return rayleigh(c, d, x, k_extra);
	if (type == 2) {
		double *z = rths_zalloc(n, c->err);
		size_t count = 1;

		if (!z)
			return -ENOMEM;
		r = rths_hs_jnumber(c, d, "model.damping", "ratio", false,
				    &zeta, z);
		if (r == 1) {
			r = rths_hs_jarray(c, d, "model.damping", "ratios", true,
					   1, n, &zs);
			count = r == 0 ? json_array_size(zs) : 0;
			if (r == 0)
				r = rths_hs_jvector(c, zs, "model.damping.ratios",
						    count, &zeta, z);
		}
		if (r == 0)
			r = rths_hs_model_set_modal_damping(&x->model, z, count,
							    k_extra, c->err);
		free(z);
		return r;
	}
	if (type == 3) {
		mv = json_object_get(d, "matrix");
		if (!mv)
			return rths_hs_jfail(c, RTHS_E_MISSING_FIELD,
					     "model.damping.matrix",
					     "required; expected a %zu x %zu matrix",
					     n, n);
		r = rths_hs_jmatrix(c, mv, "model.damping.matrix", n, n,
				    x->model.c);
		if (r == 0 && rths_hs_model_check(&x->model, &e) < 0)
			r = rths_hs_jfail(c, e.code, "model.damping.matrix",
					  "%s", e.msg);
		return r;
	}
	return 0;
}
