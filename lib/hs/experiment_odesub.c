// SPDX-License-Identifier: LGPL-2.1-or-later
/* Experiment files: the "ode_substructures" section. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rths/hs_odesub.h>

#include "hs/experiment_impl.h"

/* The method, its tolerances or fixed step, the input and the caps. */
static int integration(const struct rths_hs_jctx *c, json_t *o,
		       const char *p, struct rths_hs_odesub *s)
{
	static const char *const inputs[] = { "hold", "linear", NULL };
	static const struct rths_hs_jrange tol = { .lo = 0, .hi = 1,
						   .lo_open = true };
	static const char *const methods[] = {
		"rkf45", "abam", "gstiff", "wstiff", "dstiff", "constant_bdf",
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

int rths_hs_exp_odesubs(const struct rths_hs_jctx *c, json_t *root,
			struct rths_hs_experiment *x)
{
#define INTEGRATION_KEYS "method", "rtol", "atol", "step", "input", \
	"max_steps", "max_f_evals"
	static const char *const keys[][16] = {
		{ "type", "dof", "masses", "stiffness", "damping",
		  INTEGRATION_KEYS, NULL },
		{ "type", "dofs", "damping", "exponent", "brace_stiffness",
		  INTEGRATION_KEYS, NULL },
	};
#undef INTEGRATION_KEYS
	static const char *const types[] = { "chain", "viscous_damper", NULL };
	json_t *arr;
	int r;

	r = rths_hs_jarray(c, root, "", "ode_substructures", false, 1,
			   RTHS_HS_MAX_ODESUBS, &arr);
	if (r)
		return r < 0 ? r : 0;
	for (size_t i = 0; i < json_array_size(arr); i++) {
		json_t *o = json_array_get(arr, i);
		struct rths_hs_odesub *s = NULL;
		char p[RTHS_HS_JPATH], q[RTHS_HS_JPATH];
		int type = 0;

		rths_hs_jpath_index(p, "ode_substructures", i);
		if (!json_is_object(o))
			return rths_hs_jfail(c, RTHS_E_WRONG_TYPE, p,
					     "expected an object");
		r = rths_hs_jchoice(c, o, p, "type", true, types, &type);
		if (r == 0)
			r = rths_hs_jkeys(c, o, p, keys[type]);
		if (r < 0)
			return r;
		r = type == 0 ? chain(c, o, p, x->model.n, &s) :
		    damper(c, o, p, x->model.n, &s);
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
