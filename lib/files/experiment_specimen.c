// SPDX-License-Identifier: LGPL-2.1-or-later
/* Experiment files: "substructure", "specimen" and "setup". */
#include <math.h>
#include <string.h>

#include "files/experiment_impl.h"
#include "la/la.h"

#define NCH RTHS_HS_NCH

/* Shorthand: tested stories; interface coordinate i is story i's drift. */
static int tested_stories(const struct rths_hs_jctx *c, json_t *root,
			  json_t *list, struct rths_hs_experiment *x)
{
	json_t *stories = json_object_get(json_object_get(root, "model"),
					  "stories");
	size_t n = x->model.n, q = json_array_size(list);
	int r;

	if (!stories)
		return rths_hs_jfail(c, RTHS_E_CONFLICT,
				     "substructure.experimental_stories",
				     "only for a shear_building model; give command_map for matrices");
	if (q < 1 || q > NCH)
		return rths_hs_jfail(c, RTHS_E_BAD_SHAPE,
				     "substructure.experimental_stories",
				     "expected 1 to %d stories", NCH);
	r = rths_hs_substructure_init(&x->sub, n, q, c->err);
	if (r < 0)
		return r;
	x->specimen.n_if = q;
	for (size_t i = 0; i < q; i++) {
		json_t *v = json_array_get(list, i), *st, *nl;
		char p[RTHS_HS_JPATH], st_p[RTHS_HS_JPATH], sp[RTHS_HS_JPATH];
		json_int_t s;
		double k;

		rths_hs_jpath_index(p, "substructure.experimental_stories", i);
		if (!json_is_integer(v))
			return rths_hs_jfail(c, RTHS_E_WRONG_TYPE, p,
					     "expected a story number (0: ground story)");
		s = json_integer_value(v);
		if (s < 0 || (size_t)s >= n)
			return rths_hs_jfail(c, RTHS_E_BAD_DOF, p,
					     "expected a story in 0..%zu, got %lld",
					     n - 1, (long long)s);
		for (size_t j = 0; j < i; j++)
			if (json_integer_value(json_array_get(list, j)) == s)
				return rths_hs_jfail(c, RTHS_E_DUPLICATE, p,
						     "story %lld is listed twice",
						     (long long)s);
		LA_AT(x->sub.cmd_map, q, i, s) = 1;
		if (s > 0)
			LA_AT(x->sub.cmd_map, q, i, s - 1) = -1;
		st = json_array_get(stories, (size_t)s);
		k = json_number_value(json_object_get(st, "stiffness"));
		LA_AT(x->specimen.k, q, i, i) = k;
		nl = json_object_get(st, "nonlinear");
		if (!nl)
			continue;
		rths_hs_jpath_index(st_p, "model.stories", (size_t)s);
		rths_hs_jpath_key(sp, st_p, "nonlinear");
		if (!json_is_object(nl))
			return rths_hs_jfail(c, RTHS_E_WRONG_TYPE, sp,
					     "expected an element object");
		r = rths_hs_exp_element(c, nl, sp, k, &x->specimen.springs[i]);
		if (r < 0)
			return r;
		/* The spring carries the whole story: no linear part. */
		LA_AT(x->specimen.k, q, i, i) = 0;
		x->specimen.has_springs = true;
	}
	rths_hs_substructure_force_map_transpose(&x->sub);
	return 0;
}

static int maps(const struct rths_hs_jctx *c, json_t *sub,
		struct rths_hs_experiment *x)
{
	json_t *cm = json_object_get(sub, "command_map"), *fm;
	size_t n = x->model.n, q;
	int r;

	if (!cm)
		return rths_hs_jfail(c, RTHS_E_MISSING_FIELD,
				     "substructure.command_map",
				     "required (or experimental_stories for a shear building); expected n_if rows of %zu numbers",
				     n);
	if (!json_is_array(cm))
		return rths_hs_jfail(c, RTHS_E_WRONG_TYPE,
				     "substructure.command_map",
				     "expected an array of rows");
	q = json_array_size(cm);
	if (q < 1 || q > NCH)
		return rths_hs_jfail(c, RTHS_E_BAD_SHAPE,
				     "substructure.command_map",
				     "expected 1 to %d rows (interface coordinates), got %zu",
				     NCH, q);
	r = rths_hs_substructure_init(&x->sub, n, q, c->err);
	if (r == 0)
		r = rths_hs_jmatrix(c, cm, "substructure.command_map", q, n,
				    x->sub.cmd_map);
	if (r)
		return r;
	x->specimen.n_if = q;
	fm = json_object_get(sub, "force_map");
	if (!fm) {
		rths_hs_substructure_force_map_transpose(&x->sub);
		return 0;
	}
	return rths_hs_jmatrix(c, fm, "substructure.force_map", n, q,
			       x->sub.force_map);
}

/* An interface matrix: a number (times identity), a diagonal or rows. */
static int if_matrix(const struct rths_hs_jctx *c, json_t *v,
		     const char *path, size_t q, double *out)
{
	if (q > 1 && json_is_number(v)) {
		double s;
		int r = rths_hs_jvalue_number(c, v, path, &rths_hs_jr_nonneg, &s);

		memset(out, 0, q * q * sizeof(double));
		for (size_t i = 0; i < q; i++)
			out[i * q + i] = s;
		return r;
	}
	return rths_hs_jmatrix(c, v, path, q, q, out);
}

static int specimen(const struct rths_hs_jctx *c, json_t *root,
		    struct rths_hs_experiment *x, bool *given)
{
	static const char *const keys[] = { "stiffness", "damping",
					    "nonlinear", NULL };
	size_t q = x->specimen.n_if;
	json_t *s, *v;
	int r;

	*given = false;
	r = rths_hs_jobject(c, root, "", "specimen", false, &s);
	if (r)
		return r < 0 ? r : 0;
	*given = true;
	r = rths_hs_jkeys(c, s, "specimen", keys);
	if (r)
		return r;
	if ((v = json_object_get(s, "stiffness")) &&
	    (r = if_matrix(c, v, "specimen.stiffness", q, x->specimen.k)))
		return r;
	if ((v = json_object_get(s, "damping")) &&
	    (r = if_matrix(c, v, "specimen.damping", q, x->specimen.c)))
		return r;
	v = json_object_get(s, "nonlinear");
	if (!v)
		return 0;
	if (json_is_object(v) && q == 1) {
		r = rths_hs_exp_element(c, v, "specimen.nonlinear", 0,
					&x->specimen.springs[0]);
		x->specimen.has_springs = r == 0;
		return r;
	}
	if (!json_is_array(v) || json_array_size(v) != q)
		return rths_hs_jfail(c, json_is_array(v) ? RTHS_E_BAD_SHAPE :
				     RTHS_E_WRONG_TYPE, "specimen.nonlinear",
				     "expected %zu element objects (null: linear), one per interface coordinate",
				     q);
	for (size_t i = 0; i < q; i++) {
		json_t *e;
		char p[RTHS_HS_JPATH];

		if (json_is_null(json_array_get(v, i)))
			continue;
		r = rths_hs_jelement(c, v, "specimen.nonlinear", i,
				     "an element object or null", NULL, &e, p);
		if (r == 0)
			r = rths_hs_exp_element(c, e, p, 0,
						&x->specimen.springs[i]);
		if (r < 0)
			return r;
		x->specimen.has_springs = true;
	}
	return 0;
}

static int setup(const struct rths_hs_jctx *c, json_t *root,
		 struct rths_hs_experiment *x)
{
	static const char *const keys[] = { "type", "dimension", "origin",
					    "actuators", NULL };
	static const char *const akeys[] = { "end", "length", NULL };
	static const char *const types[] = { "one_actuator", "direct",
					     "two_actuator", "multi_actuator",
					     NULL };
	static const struct rths_hs_jrange coord = { .lo = -1e3, .hi = 1e3,
						     .unit = "m" };
	double ends[NCH][3] = { { 0 } }, len[NCH], origin[3] = { 0 };
	size_t q = x->specimen.n_if, dim;
	unsigned long long d = 2;
	bool have_len = false;
	struct rths_error e;
	json_t *s, *acts, *o;
	int type = 1, r;

	r = rths_hs_jobject(c, root, "", "setup", false, &s);
	if (r < 0)
		return r;
	if (r == 1)	/* absent: one actuator per interface coordinate */
		return rths_hs_setup_direct(&x->setup, q, c->err);
	r = rths_hs_jkeys(c, s, "setup", keys);
	if (r == 0)
		r = rths_hs_jchoice(c, s, "setup", "type", true, types, &type);
	if (r)
		return r;
	if (type == 0 && q != 1)
		return rths_hs_jfail(c, RTHS_E_BAD_SHAPE, "setup.type",
				     "one_actuator loads one interface coordinate; the substructure has %zu",
				     q);
	if (type <= 1)
		return rths_hs_setup_direct(&x->setup, q, c->err);
	if (type == 3) {
		r = rths_hs_juint(c, s, "setup", "dimension", true, 2, 3, &d);
		if (r)
			return r;
	}
	dim = (size_t)d;
	if (q != dim)
		return rths_hs_jfail(c, RTHS_E_BAD_SHAPE, "setup",
				     "a %zu-D loading point needs %zu interface coordinates; the substructure has %zu",
				     dim, dim, q);
	r = rths_hs_jarray(c, s, "setup", "actuators", true,
			   type == 2 ? 2 : dim, type == 2 ? 2 : NCH, &acts);
	if (r)
		return r;
	if ((o = json_object_get(s, "origin")) &&
	    (r = rths_hs_jvector(c, o, "setup.origin", dim, &coord, origin)))
		return r;
	for (size_t i = 0; i < json_array_size(acts); i++) {
		json_t *a = json_array_get(acts, i), *end;
		char p[RTHS_HS_JPATH], q2[RTHS_HS_JPATH];

		rths_hs_jpath_index(p, "setup.actuators", i);
		if (!json_is_object(a))
			return rths_hs_jfail(c, RTHS_E_WRONG_TYPE, p,
					     "expected {\"end\": [x, y%s], \"length\": m}",
					     dim == 3 ? ", z" : "");
		r = rths_hs_jkeys(c, a, p, akeys);
		if (r)
			return r;
		rths_hs_jpath_key(q2, p, "end");
		end = json_object_get(a, "end");
		if (!end)
			return rths_hs_jfail(c, RTHS_E_MISSING_FIELD, q2,
					     "required; expected the fixed end's %zu coordinates (m)",
					     dim);
		r = rths_hs_jvector(c, end, q2, dim, &coord, ends[i]);
		if (r)
			return r;
		r = rths_hs_jnumber(c, a, p, "length", false,
				    &rths_hs_jr_positive, &len[i]);
		if (r < 0)
			return r;
		if (r == 0)
			have_len = true;
		else
			len[i] = NAN;
	}
	if (have_len)	/* all or none */
		for (size_t i = 0; i < json_array_size(acts); i++)
			if (isnan(len[i]))
				return rths_hs_jfail(c, RTHS_E_MISSING_FIELD,
						     "setup.actuators",
						     "actuator %zu has no length while others do",
						     i);
	r = rths_hs_setup_actuators(&x->setup, dim, json_array_size(acts),
				    (const double (*)[3])ends,
				    have_len ? len : NULL, origin, &e);
	if (r < 0)
		return rths_hs_jfail(c, e.code, "setup.actuators", "%s", e.msg);
	return 0;
}

int rths_hs_exp_specimen(const struct rths_hs_jctx *c, json_t *root,
			 struct rths_hs_experiment *x)
{
	static const char *const keys[] = {
		"experimental_stories", "command_map", "force_map",
		"stiffness_estimate", "damping_estimate", NULL,
	};
	json_t *sub, *list, *v;
	bool given, est_given = false;
	size_t q;
	int r;

	r = rths_hs_jobject(c, root, "", "substructure", false, &sub);
	if (r < 0)
		return r;
	if (r == 1) {
		if (json_object_get(root, "specimen") ||
		    json_object_get(root, "setup"))
			return rths_hs_jfail(c, RTHS_E_MISSING_FIELD,
					     "substructure",
					     "a specimen or setup needs a substructure saying which DOFs are tested");
		return 0;	/* all-numerical */
	}
	r = rths_hs_jkeys(c, sub, "substructure", keys);
	if (r)
		return r;
	list = json_object_get(sub, "experimental_stories");
	if (list && (json_object_get(sub, "command_map") ||
		     json_object_get(sub, "force_map")))
		return rths_hs_jfail(c, RTHS_E_CONFLICT, "substructure",
				     "give experimental_stories or command_map/force_map, not both");
	if (list && !json_is_array(list))
		return rths_hs_jfail(c, RTHS_E_WRONG_TYPE,
				     "substructure.experimental_stories",
				     "expected an array of story numbers");
	r = list ? tested_stories(c, root, list, x) : maps(c, sub, x);
	if (r == 0)
		r = specimen(c, root, x, &given);
	if (r)
		return r;
	x->has_specimen = true;
	q = x->specimen.n_if;
	/* The integrator's estimate: given, or the specimen's initial
	 * stiffness and its damping. */
	memcpy(x->k_est, x->specimen.k, q * q * sizeof(double));
	for (size_t i = 0; i < q; i++)
		if (x->specimen.springs[i].kind)
			x->k_est[i * q + i] += x->specimen.springs[i].k;
	memcpy(x->c_est, x->specimen.c, q * q * sizeof(double));
	if ((v = json_object_get(sub, "stiffness_estimate"))) {
		r = if_matrix(c, v, "substructure.stiffness_estimate", q,
			      x->k_est);
		est_given = true;
	}
	if (r == 0 && (v = json_object_get(sub, "damping_estimate")))
		r = if_matrix(c, v, "substructure.damping_estimate", q,
			      x->c_est);
	if (r)
		return r;
	/* Without a specimen section, a matrices model's specimen is its
	 * estimate (offline it must be something). */
	if (!given && !list) {
		if (!est_given)
			return rths_hs_jfail(c, RTHS_E_MISSING_FIELD,
					     "specimen",
					     "required with command_map (or substructure.stiffness_estimate); expected the specimen's stiffness");
		memcpy(x->specimen.k, x->k_est, q * q * sizeof(double));
		memcpy(x->specimen.c, x->c_est, q * q * sizeof(double));
	}
	return setup(c, root, x);
}
