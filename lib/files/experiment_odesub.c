// SPDX-License-Identifier: LGPL-2.1-or-later
/* Experiment files: the "ode_substructures" section. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rths/hs_odesub.h>

#include "files/experiment_impl.h"

/* The method, its tolerances or fixed step, the input and the caps. */
static int integration(const struct rths_hs_jctx *c, json_t *o,
		       const char *p, struct rths_hs_odesub *s)
{
	static const char *const inputs[] = { "hold", "linear", NULL };
	static const struct rths_hs_jrange tol = { .lo = 0, .hi = 1,
						   .lo_open = true };
	static const char *const methods[] = {
		"rkf45", "abam", "gstiff", "wstiff", "dstiff", "constant_bdf",
		"rosenbrock_w",
		NULL,
	};
	struct rths_ode_control ctl;
	unsigned long long max_steps = 0, max_f = 0;
	int method = RTHS_ODE_GSTIFF, input = 0, r;
	char q[RTHS_HS_JPATH];
	struct rths_error e;

	rths_ode_control_default(&ctl);
	if ((r = rths_hs_jchoice(c, o, p, "method", false, methods,
				 &method)) < 0 ||
	    (r = rths_hs_jnumber(c, o, p, "rtol", false, &tol, &ctl.rtol)) < 0 ||
	    (r = rths_hs_jnumber(c, o, p, "atol", false, &tol, &ctl.atol)) < 0 ||
	    (r = rths_hs_jnumber(c, o, p, "step", false, &rths_hs_jr_positive,
				 &ctl.h_init)) < 0 ||
	    (r = rths_hs_jchoice(c, o, p, "input", false, inputs, &input)) < 0 ||
	    (r = rths_hs_juint(c, o, p, "max_steps", false, 1, 1000000,
			       &max_steps)) < 0 ||
	    (r = rths_hs_juint(c, o, p, "max_f_evals", false, 1, 10000000,
			       &max_f)) < 0)
		return r;
	rths_hs_jpath_key(q, p, "step");
	if (method == RTHS_ODE_CONSTANT_BDF && !(ctl.h_init > 0))
		return rths_hs_jfail(c, RTHS_E_MISSING_FIELD, q,
				     "constant_bdf integrates with a fixed step: give it (s)");
	if (method != RTHS_ODE_CONSTANT_BDF && ctl.h_init > 0)
		return rths_hs_jfail(c, RTHS_E_CONFLICT, q,
				     "a fixed step is for constant_bdf; %s chooses its own",
				     methods[method]);
	/* a fixed-step method's error goes unchecked: the step is chosen */
	if (method == RTHS_ODE_CONSTANT_BDF)
		ctl.fixed_err_max = INFINITY;
	rths_hs_jpath_key(q, p, "method");
	r = rths_hs_odesub_set_method(s, (enum rths_ode_method)method, &ctl,
				      &e);
	if (r < 0)
		return rths_hs_jfail(c, r, q, "%s", e.msg);
	if (rths_hs_odesub_kind(s) == RTHS_HS_ODESUB_MULTIBODY) {
		if (!rths_ode_method_is_implicit((enum rths_ode_method)method))
			return rths_hs_jfail(c, RTHS_E_UNSUPPORTED, q,
					     "%s solves explicit ODEs; a multibody DAE needs gstiff, wstiff, dstiff or constant_bdf",
					     methods[method]);
		rths_hs_jpath_key(q, p, "input");
		if (input == 0 && json_object_get(o, "input"))
			return rths_hs_jfail(c, RTHS_E_UNSUPPORTED, q,
					     "a multibody base moves linearly over a step: a held one would jump");
	}
	rths_hs_odesub_set_input(s, input == 1 ? RTHS_HS_ODESUB_LINEAR :
				 RTHS_HS_ODESUB_HOLD);
	rths_hs_odesub_set_cap(s, (unsigned long)max_steps,
			       (unsigned long)max_f);
	return 0;
}

static int chain(const struct rths_hs_jctx *c, json_t *o, const char *p,
		 size_t n_dof, struct rths_hs_odesub **out)
{
	double m[RTHS_HS_ODESUB_MAX_MASSES], k[RTHS_HS_ODESUB_MAX_MASSES];
	double cc[RTHS_HS_ODESUB_MAX_MASSES];
	unsigned long long dof;
	char q[RTHS_HS_JPATH];
	json_t *a;
	struct rths_error e;
	size_t n;
	int r;

	r = rths_hs_juint(c, o, p, "dof", true, 0, n_dof - 1, &dof);
	if (r == 0)
		r = rths_hs_jarray(c, o, p, "masses", true, 1,
				   RTHS_HS_ODESUB_MAX_MASSES, &a);
	if (r < 0)
		return r;
	n = json_array_size(a);
	rths_hs_jpath_key(q, p, "masses");
	r = rths_hs_jvector(c, a, q, n, &rths_hs_jr_positive, m);
	if (r == 0)
		r = rths_hs_jarray(c, o, p, "stiffness", true, n, n, &a);
	rths_hs_jpath_key(q, p, "stiffness");
	if (r == 0)
		r = rths_hs_jvector(c, a, q, n, &rths_hs_jr_nonneg, k);
	memset(cc, 0, sizeof(cc));
	if (r == 0)
		r = rths_hs_jarray(c, o, p, "damping", false, n, n, &a);
	rths_hs_jpath_key(q, p, "damping");
	if (r == 0)
		r = rths_hs_jvector(c, a, q, n, &rths_hs_jr_nonneg, cc);
	if (r < 0)
		return r;
	r = rths_hs_odesub_new_chain(out, (int)dof, n, m, k, cc, &e);
	if (r < 0) {
		rths_hs_jpath_key(q, p, e.path);
		return rths_hs_jfail(c, r, q, "%s", e.msg);
	}
	return 0;
}

static int damper(const struct rths_hs_jctx *c, json_t *o, const char *p,
		  size_t n_dof, struct rths_hs_odesub **out)
{
	static const struct rths_hs_jrange expo = { .lo = 0, .hi = 1,
						    .lo_open = true };
	const struct rths_hs_jrange dofs_range = { .lo = -1,
						   .hi = (double)n_dof - 1 };
	double d[2] = { 0, -1 }, cd = 0, alpha = 1, kb = 0;
	char q[RTHS_HS_JPATH];
	struct rths_error e;
	json_t *a;
	int r;

	r = rths_hs_jarray(c, o, p, "dofs", true, 1, 2, &a);
	rths_hs_jpath_key(q, p, "dofs");
	if (r == 0)
		r = rths_hs_jvector(c, a, q, json_array_size(a), &dofs_range,
				    d);
	if (r == 0 && (d[0] != floor(d[0]) || d[1] != floor(d[1]) ||
		       d[0] < 0 || d[0] == d[1]))
		return rths_hs_jfail(c, RTHS_E_BAD_DOF, q,
				     "expected [i] (to the ground) or [i, j]: DOFs in 0..%zu, j may be -1 (the ground)",
				     n_dof - 1);
	if (r == 0)
		r = rths_hs_jnumber(c, o, p, "damping", true,
				    &rths_hs_jr_positive, &cd);
	if (r == 0)
		r = rths_hs_jnumber(c, o, p, "exponent", false, &expo, &alpha);
	if (r == 0 || r == 1)
		r = rths_hs_jnumber(c, o, p, "brace_stiffness", true,
				    &rths_hs_jr_positive, &kb);
	if (r < 0)
		return r;
	r = rths_hs_odesub_new_damper(out, (int)d[0], (int)d[1], cd, alpha, kb,
				      &e);
	if (r < 0) {
		rths_hs_jpath_key(q, p, e.path);
		return rths_hs_jfail(c, r, q, "%s", e.msg);
	}
	return 0;
}

/* Two body numbers (-1: the base) and their two points. */
static int pair(const struct rths_hs_jctx *c, json_t *o, const char *p,
		size_t nb, int *a, int *b, double pa[2], double pb[2])
{
	const struct rths_hs_jrange br = { .lo = -1, .hi = (double)nb - 1 };
	static const struct rths_hs_jrange any = { .lo = -1e6, .hi = 1e6 };
	char q[RTHS_HS_JPATH], q2[RTHS_HS_JPATH];
	double d[2];
	json_t *arr;
	int r;

	r = rths_hs_jarray(c, o, p, "bodies", true, 2, 2, &arr);
	rths_hs_jpath_key(q, p, "bodies");
	if (r == 0)
		r = rths_hs_jvector(c, arr, q, 2, &br, d);
	if (r == 0 && (d[0] != floor(d[0]) || d[1] != floor(d[1]) ||
		       d[0] == d[1]))
		return rths_hs_jfail(c, RTHS_E_BAD_DOF, q,
				     "expected two different bodies in -1 (the base) .. %zu",
				     nb - 1);
	if (r < 0)
		return r;
	*a = (int)d[0];
	*b = (int)d[1];
	pa[0] = pa[1] = pb[0] = pb[1] = 0;
	r = rths_hs_jarray(c, o, p, "points", false, 2, 2, &arr);
	if (r)
		return r < 0 ? r : 0;
	rths_hs_jpath_key(q, p, "points");
	rths_hs_jpath_index(q2, q, 0);
	r = rths_hs_jvector(c, json_array_get(arr, 0), q2, 2, &any, pa);
	rths_hs_jpath_index(q2, q, 1);
	if (r == 0)
		r = rths_hs_jvector(c, json_array_get(arr, 1), q2, 2, &any, pb);
	return r;
}

static int multibody(const struct rths_hs_jctx *c, json_t *o, const char *p,
		     size_t n_dof, struct rths_hs_odesub **out)
{
	static const char *const bkeys[] = { "mass", "inertia", "position",
					     "angle", NULL };
	static const char *const jkeys[] = { "type", "bodies", "points",
					     "axis", NULL };
	static const char *const skeys[] = { "bodies", "points", "stiffness",
					     "damping", "length", NULL };
	static const char *const jtypes[] = { "revolute", "prismatic", NULL };
	static const char *const forms[] = { "i3", "si2", "si1", NULL };
	static const struct rths_hs_jrange any = { .lo = -1e6, .hi = 1e6 };
	struct rths_hs_mb_body bodies[RTHS_HS_MB_MAX_BODIES];
	struct rths_hs_mb_joint joints[RTHS_HS_MB_MAX_JOINTS];
	struct rths_hs_mb_spring springs[RTHS_HS_MB_MAX_SPRINGS];
	struct rths_hs_mb_params mp = { .gravity = RTHS_HS_G,
					.form = RTHS_ODE_MECH_SI2 };
	char q[RTHS_HS_JPATH], qi[RTHS_HS_JPATH], qk[RTHS_HS_JPATH];
	unsigned long long dof;
	int form = 1, r;
	struct rths_error e;
	json_t *arr;

	memset(bodies, 0, sizeof(bodies));
	memset(joints, 0, sizeof(joints));
	memset(springs, 0, sizeof(springs));
	if ((r = rths_hs_juint(c, o, p, "dof", true, 0, n_dof - 1, &dof)) < 0 ||
	    (r = rths_hs_jchoice(c, o, p, "form", false, forms, &form)) < 0 ||
	    (r = rths_hs_jnumber(c, o, p, "gravity", false, &rths_hs_jr_nonneg,
				 &mp.gravity)) < 0 ||
	    (r = rths_hs_jarray(c, o, p, "bodies", true, 1,
				RTHS_HS_MB_MAX_BODIES, &arr)) < 0)
		return r;
	mp.form = (enum rths_ode_mech_form)form;
	mp.n_bodies = json_array_size(arr);
	rths_hs_jpath_key(q, p, "bodies");
	for (size_t i = 0; i < mp.n_bodies; i++) {
		json_t *b = json_array_get(arr, i), *pos;

		rths_hs_jpath_index(qi, q, i);
		if ((r = rths_hs_jkeys(c, b, qi, bkeys)) < 0 ||
		    (r = rths_hs_jnumber(c, b, qi, "mass", true,
					 &rths_hs_jr_positive,
					 &bodies[i].mass)) < 0 ||
		    (r = rths_hs_jnumber(c, b, qi, "inertia", true,
					 &rths_hs_jr_positive,
					 &bodies[i].inertia)) < 0 ||
		    (r = rths_hs_jnumber(c, b, qi, "angle", false, &any,
					 &bodies[i].angle)) < 0 ||
		    (r = rths_hs_jarray(c, b, qi, "position", true, 2, 2,
					&pos)) < 0)
			return r;
		rths_hs_jpath_key(qk, qi, "position");
		r = rths_hs_jvector(c, pos, qk, 2, &any, &bodies[i].x);
		if (r < 0)
			return r;
	}
	r = rths_hs_jarray(c, o, p, "joints", false, 1, RTHS_HS_MB_MAX_JOINTS,
			   &arr);
	if (r < 0)
		return r;
	mp.n_joints = r ? 0 : json_array_size(arr);
	rths_hs_jpath_key(q, p, "joints");
	for (size_t i = 0; i < mp.n_joints; i++) {
		json_t *j = json_array_get(arr, i), *ax;
		int type = 0;

		rths_hs_jpath_index(qi, q, i);
		if ((r = rths_hs_jkeys(c, j, qi, jkeys)) < 0 ||
		    (r = rths_hs_jchoice(c, j, qi, "type", true, jtypes,
					 &type)) < 0 ||
		    (r = pair(c, j, qi, mp.n_bodies, &joints[i].body_a,
			      &joints[i].body_b, joints[i].pa,
			      joints[i].pb)) < 0)
			return r;
		joints[i].kind = type ? RTHS_HS_MB_PRISMATIC :
			RTHS_HS_MB_REVOLUTE;
		r = rths_hs_jarray(c, j, qi, "axis", type == 1, 2, 2, &ax);
		if (r < 0)
			return r;
		rths_hs_jpath_key(qk, qi, "axis");
		if (r == 0 && type == 0)
			return rths_hs_jfail(c, RTHS_E_CONFLICT, qk,
					     "a revolute joint has no axis");
		if (r == 0)
			r = rths_hs_jvector(c, ax, qk, 2, &any, joints[i].axis);
		if (r < 0)
			return r;
		if (type == 1 && !(hypot(joints[i].axis[0],
					 joints[i].axis[1]) > 0))
			return rths_hs_jfail(c, RTHS_E_OUT_OF_RANGE, qk,
					     "expected a direction, not [0, 0]");
	}
	r = rths_hs_jarray(c, o, p, "springs", false, 1,
			   RTHS_HS_MB_MAX_SPRINGS, &arr);
	if (r < 0)
		return r;
	mp.n_springs = r ? 0 : json_array_size(arr);
	rths_hs_jpath_key(q, p, "springs");
	for (size_t i = 0; i < mp.n_springs; i++) {
		json_t *sj = json_array_get(arr, i);
		struct rths_hs_mb_spring *sp = &springs[i];

		rths_hs_jpath_index(qi, q, i);
		sp->length = -1;
		if ((r = rths_hs_jkeys(c, sj, qi, skeys)) < 0 ||
		    (r = pair(c, sj, qi, mp.n_bodies, &sp->body_a,
			      &sp->body_b, sp->pa, sp->pb)) < 0 ||
		    (r = rths_hs_jnumber(c, sj, qi, "stiffness", false,
					 &rths_hs_jr_nonneg, &sp->k)) < 0 ||
		    (r = rths_hs_jnumber(c, sj, qi, "damping", false,
					 &rths_hs_jr_nonneg, &sp->c)) < 0 ||
		    (r = rths_hs_jnumber(c, sj, qi, "length", false,
					 &rths_hs_jr_nonneg, &sp->length)) < 0)
			return r;
		if (!(sp->k > 0) && !(sp->c > 0))
			return rths_hs_jfail(c, RTHS_E_MISSING_FIELD, qi,
					     "a spring needs a stiffness, a damping or both");
	}
	mp.bodies = bodies;
	mp.joints = joints;
	mp.springs = springs;
	r = rths_hs_odesub_new_multibody(out, (int)dof, &mp, &e);
	if (r < 0) {
		rths_hs_jpath_key(q, p, e.path);
		return rths_hs_jfail(c, r, q, "%s", e.msg);
	}
	return 0;
}

int rths_hs_exp_odesubs(const struct rths_hs_jctx *c, json_t *root,
			struct rths_hs_experiment *x)
{
#define INTEGRATION_KEYS "method", "rtol", "atol", "step", "input", \
	"max_steps", "max_f_evals"
	static const char *const keys[][18] = {
		{ "type", "dof", "masses", "stiffness", "damping",
		  INTEGRATION_KEYS, NULL },
		{ "type", "dofs", "damping", "exponent", "brace_stiffness",
		  INTEGRATION_KEYS, NULL },
		{ "type", "dof", "form", "gravity", "bodies", "joints",
		  "springs", INTEGRATION_KEYS, NULL },
	};
#undef INTEGRATION_KEYS
	static const char *const types[] = { "chain", "viscous_damper",
					     "multibody", NULL };
	json_t *arr;
	int r;

	r = rths_hs_jarray(c, root, "", "ode_substructures", false, 1,
			   RTHS_HS_MAX_ODESUBS, &arr);
	if (r)
		return r < 0 ? r : 0;
	for (size_t i = 0; i < json_array_size(arr); i++) {
		struct rths_hs_odesub *s = NULL;
		char p[RTHS_HS_JPATH], q[RTHS_HS_JPATH];
		int type = 0;
		json_t *o;

		r = rths_hs_jelement(c, arr, "ode_substructures", i,
				     "an object", NULL, &o, p);
		if (r == 0)
			r = rths_hs_jchoice(c, o, p, "type", true, types,
					    &type);
		if (r == 0)
			r = rths_hs_jkeys(c, o, p, keys[type]);
		if (r < 0)
			return r;
		r = type == 0 ? chain(c, o, p, x->model.n, &s) :
		    type == 1 ? damper(c, o, p, x->model.n, &s) :
		    multibody(c, o, p, x->model.n, &s);
		if (r < 0)
			return r;
		x->odesubs[x->n_odesubs++] = s;
		r = integration(c, o, p, s);
		if (r < 0)
			return r;
		/* Real time: a device does not wait for an adaptive method. */
		rths_hs_jpath_key(q, p, "method");
		if (x->device.backend == RTHS_HS_BACKEND_DEVICE &&
		    !rths_hs_odesub_bounded(s))
			return rths_hs_jfail(c, RTHS_E_UNSUPPORTED, q,
					     "%s adapts its step, so its work per hybrid step has no bound; on a device backend give max_steps or max_f_evals, or use constant_bdf with a step",
					     rths_ode_method_name(rths_hs_odesub_method(s)));
	}
	return 0;
}

void rths_hs_exp_odesubs_free(struct rths_hs_experiment *x)
{
	for (size_t i = 0; i < x->n_odesubs; i++)
		rths_hs_odesub_free(x->odesubs[i]);
	x->n_odesubs = 0;
}
