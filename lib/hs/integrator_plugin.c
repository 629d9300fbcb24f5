// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Integrator plug-ins (rths/hs_plugin.h): the registry of types and the
 * stepper operations that call them.  The engine keeps the stepper's
 * state and computes the restoring force; the plug-in only maps step n
 * to the command and the command and its force to step n+1, and every
 * number it gives back is checked before the engine uses it.
 */
#include <stdlib.h>
#include <string.h>

#include "hs/integrator_impl.h"
#include "hs/plugin_registry.h"

static struct rths_hs_registry reg =
	RTHS_HS_REGISTRY_INIT("integrator", RTHS_HS_PLUGIN_FIRST);

_Static_assert(RTHS_HS_PLUGIN_LAST - RTHS_HS_PLUGIN_FIRST + 1 ==
	       RTHS_HS_MAX_PLUGINS, "one method number per plug-in slot");

int rths_hs_integrator_type_check(const struct rths_hs_integrator_type *type,
				  struct rths_error *err)
{
	const struct rths_hs_plugin_cb cb[] = {
		{ "alloc", type && type->alloc },
		{ "start", type && type->start },
		{ "predict", type && type->predict },
		{ "correct", type && type->correct },
		{ "free", type && type->free },
	};

	return rths_hs_registry_check(&reg, type, type ? type->abi : 0,
				      type ? type->name : NULL, cb,
				      sizeof(cb) / sizeof(cb[0]), err);
}

int rths_hs_integrator_register(const struct rths_hs_integrator_type *type,
				const char *params,
				enum rths_hs_method *method,
				struct rths_error *err)
{
	unsigned int number;
	int r = rths_hs_integrator_type_check(type, err);

	if (r == 0)
		r = rths_hs_registry_add(&reg, type, type->name, params,
					 &number, err);
	if (r == 0)
		*method = (enum rths_hs_method)number;
	return r;
}

void rths_hs_integrator_unregister(enum rths_hs_method method)
{
	rths_hs_registry_remove(&reg, (unsigned int)method);
}

const struct rths_hs_integrator_type *
rths_hs_plugin_lookup(enum rths_hs_method method, const char **params)
{
	return rths_hs_registry_get(&reg, (unsigned int)method, params);
}

const struct rths_hs_integrator_type *
rths_hs_integrator_registered(enum rths_hs_method method)
{
	return rths_hs_plugin_lookup(method, NULL);
}

const struct rths_hs_integrator_type *
rths_hs_plugin_by_name(const char *name, enum rths_hs_method *method)
{
	unsigned int number;
	const struct rths_hs_integrator_type *t =
		rths_hs_registry_by_name(&reg, name, &number);

	if (t)
		*method = (enum rths_hs_method)number;
	return t;
}

/* --- the stepper operations */
struct plug {
	const struct rths_hs_integrator_type *type;
	void *state;
	bool allocated;
};

/* A callback's failure, named; the plug-in's own words if it gave any. */
static int cb_fail(const struct plug *pl, const char *cb, int r,
		   const struct rths_error *e, struct rths_error *err)
{
	if (r >= 0)
		r = -EIO;	/* a failure must not read as success */
	if (e->msg[0])
		return rths_error_set(err, r, e->file[0] ? e->file : NULL,
				      e->line, e->path[0] ? e->path : NULL,
				      "integrator plug-in '%s', %s: %s",
				      pl->type->name, cb, e->msg);
	return rths_error_set(err, r, NULL, 0, NULL,
			      "integrator plug-in '%s': %s failed (%s)",
			      pl->type->name, cb, rths_strerror(r));
}

/* -RTHS_E_NONFINITE if any of @x is not finite. */
static int check_finite(const struct rths_hs_stepper *st,
			const struct plug *pl, const char *cb,
			const char *what, const double *x,
			struct rths_error *err)
{
	for (size_t i = 0; i < st->n; i++)
		if (!(x[i] - x[i] == 0))
			return rths_error_set(err, RTHS_E_NONFINITE, NULL, 0,
					      NULL,
					      "integrator plug-in '%s': %s gave a non-finite %s (%g at DOF %zu) at step %llu",
					      pl->type->name, cb, what, x[i],
					      i, (unsigned long long)st->step +
					      1);
	return 0;
}

static int plugin_setup(struct rths_hs_stepper *st, struct rths_error *err)
{
	struct rths_hs_integrator_problem p = { 0 };
	struct rths_error e = { 0 };
	const char *params = NULL;
	struct plug *pl;
	int r;

	pl = rths_hs_stepper_priv(st, sizeof(*pl), "a plug-in stepper", err);
	if (!pl)
		return -ENOMEM;
	pl->type = rths_hs_plugin_lookup(st->p.method, &params);
	if (!pl->type)
		return rths_error_set(err, RTHS_E_BAD_CHOICE, NULL, 0,
				      "method",
				      "no integrator plug-in is registered as method %d",
				      (int)st->p.method);
	p.n = st->n;
	p.dt = st->p.dt;
	p.m = st->model->m;
	p.c = st->model->c;
	p.c0 = st->c;
	p.k0 = st->k0;
	p.has_specimen = st->has_specimen;
	p.params = params;
	r = pl->type->alloc(&pl->state, &p, &e);
	if (r)
		return cb_fail(pl, "alloc", r, &e, err);
	pl->allocated = true;
	return 0;
}

static int plugin_started(struct rths_hs_stepper *st, struct rths_error *err)
{
	struct plug *pl = st->priv;
	struct rths_error e = { 0 };
	int r = pl->type->start(pl->state, st->u, st->v, st->a, st->f, st->r,
				&e);

	return r ? cb_fail(pl, "start", r, &e, err) : 0;
}

static int plugin_command(struct rths_hs_stepper *st, struct rths_error *err)
{
	struct plug *pl = st->priv;
	struct rths_error e = { 0 };
	int r = pl->type->predict(pl->state, st->step, st->u, st->v, st->a,
				  st->f1, st->u1, &e);

	if (r)
		return cb_fail(pl, "predict", r, &e, err);
	return check_finite(st, pl, "predict", "command", st->u1, err);
}

static int plugin_accept(struct rths_hs_stepper *st, const double *r_exp,
			 struct rths_error *err)
{
	struct plug *pl = st->priv;
	struct rths_error e = { 0 };
	size_t n = st->n;
	int r;

	/* the state of step n+1 in scratch until it is checked */
	rths_hs_stepper_restoring(st, st->u1, r_exp, st->r);
	r = pl->type->correct(pl->state, st->step, st->u, st->v, st->a,
			      st->u1, st->f1, st->r, st->w1, st->w2, st->w3,
			      &e);
	if (r)
		return cb_fail(pl, "correct", r, &e, err);
	if ((r = check_finite(st, pl, "correct", "displacement", st->w1,
			      err)) ||
	    (r = check_finite(st, pl, "correct", "velocity", st->w2, err)) ||
	    (r = check_finite(st, pl, "correct", "acceleration", st->w3,
			      err)))
		return r;
	memcpy(st->u, st->w1, n * sizeof(double));
	memcpy(st->v, st->w2, n * sizeof(double));
	memcpy(st->a, st->w3, n * sizeof(double));
	return 0;
}

static void plugin_destroy(struct rths_hs_stepper *st)
{
	struct plug *pl = st->priv;

	if (pl->allocated)
		pl->type->free(pl->state);
}

const struct rths_hs_stepper_ops rths_hs_plugin_ops = {
	.setup = plugin_setup,
	.started = plugin_started,
	.command = plugin_command,
	.accept = plugin_accept,
	.destroy = plugin_destroy,
};
