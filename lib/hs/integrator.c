// SPDX-License-Identifier: LGPL-2.1-or-later
/* The stepper interface: state, start, the two halves of a step. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hs/integrator_impl.h"

static const struct {
	const char *name;
	const struct rths_hs_stepper_ops *ops;
} methods[] = {
	[RTHS_HS_CR] = { "cr", &rths_hs_cr_ops },
	[RTHS_HS_KR_ALPHA] = { "kr_alpha", &rths_hs_kr_alpha_ops },
	[RTHS_HS_ALPHA_OS] = { "alpha_os", &rths_hs_alpha_os_ops },
	[RTHS_HS_NEWMARK_EXPLICIT] = { "newmark_explicit",
				       &rths_hs_newmark_explicit_ops },
	[RTHS_HS_CENTRAL_DIFFERENCE] = { "central_difference",
					 &rths_hs_central_difference_ops },
	[RTHS_HS_NEWMARK_IMPLICIT] = { "newmark_implicit",
				       &rths_hs_implicit_alpha_ops },
	[RTHS_HS_GENERALIZED_ALPHA] = { "generalized_alpha",
					&rths_hs_implicit_alpha_ops },
	[RTHS_HS_HHT_ALPHA] = { "hht_alpha", &rths_hs_implicit_alpha_ops },
};
#define N_METHODS (sizeof(methods) / sizeof(methods[0]))

void rths_hs_stepper_defaults(struct rths_hs_stepper_params *p,
			      enum rths_hs_method method, double dt)
{
	memset(p, 0, sizeof(*p));
	p->method = method;
	p->dt = dt;
	p->rho_inf = 0.8;
	p->alpha = -0.05;
	p->gamma = 0.5;
	p->max_iter = 100;
	p->tol = 1e-10;
}

const char *rths_hs_method_name(enum rths_hs_method m)
{
	const struct rths_hs_integrator_type *t = rths_hs_plugin_lookup(m, NULL);

	if (t)
		return t->name;
	if ((unsigned int)m >= N_METHODS || !methods[m].name)
		return "unknown";
	return methods[m].name;
}

enum rths_hs_method rths_hs_method_from_name(const char *name)
{
	enum rths_hs_method m = 0;

	if (!name)
		return 0;
	for (unsigned int i = 1; i < N_METHODS; i++)
		if (methods[i].name && !strcmp(methods[i].name, name))
			return (enum rths_hs_method)i;
	/* then the plug-ins registered under that name */
	rths_hs_plugin_by_name(name, &m);
	return m;
}

double rths_hs_method_stability_limit(const struct rths_hs_stepper_params *p)
{
	switch (p->method) {
	case RTHS_HS_CENTRAL_DIFFERENCE:
		return 2.0;
	case RTHS_HS_NEWMARK_EXPLICIT:
		/* beta = 0: Omega_crit = 1 / sqrt(gamma / 2 - beta) */
		return 1.0 / sqrt(p->gamma / 2.0);
	default:
		return INFINITY;
	}
}

int rths_hs_stepper_params_check(const struct rths_hs_stepper_params *p,
				 struct rths_error *err)
{
#define BAD(field, ...) \
	rths_error_set(err, RTHS_E_OUT_OF_RANGE, NULL, 0, field, __VA_ARGS__)
	/* a registered plug-in: only dt is the engine's to check */
	bool plugin = rths_hs_plugin_lookup(p->method, NULL) != NULL;

	if (!plugin && ((unsigned int)p->method >= N_METHODS ||
			!methods[p->method].ops))
		return rths_error_set(err, RTHS_E_BAD_CHOICE, NULL, 0,
				      "method", "unknown integration method %d",
				      (int)p->method);
	if (!(p->dt > 0 && p->dt < 10))
		return BAD("dt", "expected a time step in (0, 10) s");
	if ((p->method == RTHS_HS_KR_ALPHA ||
	     p->method == RTHS_HS_GENERALIZED_ALPHA) &&
	    !(p->rho_inf >= 0 && p->rho_inf <= 1))
		return BAD("rho_inf", "expected rho_inf in [0, 1]");
	if ((p->method == RTHS_HS_ALPHA_OS || p->method == RTHS_HS_HHT_ALPHA) &&
	    !(p->alpha >= -1.0 / 3.0 && p->alpha <= 0))
		return BAD("alpha", "expected alpha in [-1/3, 0]");
	if (p->method == RTHS_HS_NEWMARK_EXPLICIT &&
	    !(p->gamma >= 0.5 && p->gamma <= 1.5))
		return BAD("gamma", "expected gamma in [0.5, 1.5]");
	if (p->method == RTHS_HS_NEWMARK_IMPLICIT &&
	    (p->max_iter < 1 || !(p->tol > 0 && p->tol < 1)))
		return BAD("tolerance", "expected max_iter >= 1 and 0 < tol < 1");
	/* tol 0: a fixed number of iterations */
	if (rths_hs_method_implicit(p->method) &&
	    p->method != RTHS_HS_NEWMARK_IMPLICIT &&
	    (p->max_iter < 1 || !(p->tol >= 0 && p->tol < 1)))
		return BAD("tolerance",
			   "expected max_iter >= 1 and 0 <= tol < 1 (0: max_iter iterations every step)");
	return 0;
#undef BAD
}

bool rths_hs_method_implicit(enum rths_hs_method m)
{
	return m == RTHS_HS_NEWMARK_IMPLICIT ||
	       m == RTHS_HS_GENERALIZED_ALPHA || m == RTHS_HS_HHT_ALPHA;
}

double *rths_hs_stepper_combine(const struct rths_hs_stepper *st, double a,
				double b, double c, struct rths_error *err)
{
	size_t nn = st->n * st->n;
	double *A = rths_zalloc(nn, err);

	if (!A)
		return NULL;
	for (size_t i = 0; i < nn; i++)
		A[i] = a * st->model->m[i] + b * st->c[i] + c * st->k0[i];
	return A;
}

void rths_hs_stepper_restoring(struct rths_hs_stepper *st, const double *u,
			       const double *r_exp, double *out)
{
	if (st->sp) {
		la_csc_gemv(&st->sp->k.m, 1.0, u, 0.0, out);
		rths_hs_model_element_forces(st->model, u, out);
	} else {
		rths_hs_model_restoring(st->model, u, out);
	}
	if (r_exp)
		la_axpy(st->n, 1.0, r_exp, out);
}

void *rths_hs_stepper_priv(struct rths_hs_stepper *st, size_t size,
			   const char *what, struct rths_error *err)
{
	st->priv = rths_owned_zalloc(&st->mem, 1, size);
	if (!st->priv)
		rths_error_set(err, ENOMEM, NULL, 0, NULL, "cannot allocate %s",
			       what);
	return st->priv;
}

double *rths_hs_stepper_zalloc(struct rths_hs_stepper *st, size_t count,
			       struct rths_error *err)
{
	double *p = rths_owned_doubles(&st->mem, count);

	if (!p)
		rths_error_set(err, ENOMEM, NULL, 0, NULL,
			       "cannot allocate %zu numbers", count);
	return p;
}

void rths_hs_stepper_keep_lin(struct rths_hs_stepper *st,
			      struct la_lin *lu)
{
	/* a method with more would leak one: LeakSanitizer tells */
	if (st->nlins < RTHS_HS_STEPPER_LINS)
		st->lins[st->nlins++] = lu;
}

void rths_hs_stepper_free(struct rths_hs_stepper *st)
{
	if (!st)
		return;
	for (unsigned int i = 0; i < st->nlins; i++)
		la_lin_free(st->lins[i]);
	if (st->priv && st->ops->destroy)
		st->ops->destroy(st);
	la_lin_free(&st->mass_lu);
	rths_hs_sparse_free(st->sp);
	rths_owned_free(&st->mem);
	free(st);
}

/*
 * What every stepper has: the checked parameters, its method's
 * operations and the state and scratch vectors of @n DOF.
 */
static int stepper_alloc(struct rths_hs_stepper **out, size_t n,
			 bool has_specimen,
			 const struct rths_hs_stepper_params *p,
			 struct rths_error *err)
{
	struct rths_hs_stepper *st;
	int r;

	*out = NULL;
	r = rths_hs_stepper_params_check(p, err);
	if (r < 0)
		return r;
	if (rths_hs_method_implicit(p->method) && has_specimen)
		return rths_error_set(err, RTHS_E_UNSUPPORTED, NULL, 0,
				      "method",
				      "%s needs the whole restoring force inside the step; use it for all-numerical runs only",
				      rths_hs_method_name(p->method));
	st = calloc(1, sizeof(*st));
	if (!st)
		return rths_error_set(err, ENOMEM, NULL, 0, NULL,
				      "cannot allocate a stepper");
	st->ops = rths_hs_plugin_lookup(p->method, NULL) ?
		  &rths_hs_plugin_ops : methods[p->method].ops;
	st->p = *p;
	st->n = n;
	st->has_specimen = has_specimen;
	/* One block for the ten state and scratch vectors. */
	st->u = rths_hs_stepper_zalloc(st, 10 * n, err);
	if (!st->u) {
		rths_hs_stepper_free(st);
		return -ENOMEM;
	}
	st->v = st->u + n;
	st->a = st->v + n;
	st->u1 = st->a + n;
	st->f = st->u1 + n;
	st->f1 = st->f + n;
	st->r = st->f1 + n;
	st->w1 = st->r + n;
	st->w2 = st->w1 + n;
	st->w3 = st->w2 + n;
	*out = st;
	return 0;
}

int rths_hs_stepper_new(struct rths_hs_stepper **out,
			struct rths_hs_model *model,
			const struct rths_hs_specimen_estimate *est,
			const struct rths_hs_stepper_params *p,
			struct rths_error *err)
{
	struct rths_hs_stepper *st;
	size_t n = model->n;
	int r;

	r = stepper_alloc(&st, n, est != NULL, p, err);
	if (r < 0)
		return r;
	*out = NULL;
	st->model = model;
	st->k0 = rths_hs_stepper_zalloc(st, n * n, err);
	st->c = rths_hs_stepper_zalloc(st, n * n, err);
	if (!st->k0 || !st->c) {
		r = -ENOMEM;
		goto fail;
	}
	rths_hs_model_initial_stiffness(model, st->k0);
	memcpy(st->c, model->c, n * n * sizeof(double));
	if (est && est->k)
		la_axpy(n * n, 1.0, est->k, st->k0);
	if (est && est->c)
		la_axpy(n * n, 1.0, est->c, st->c);
	/* every method has a sparse path for large sparse models */
	r = rths_hs_sparse_setup(st, err);
	if (r == 0 && !st->sp)
		r = rths_hs_lu_factor(&st->mass_lu, n, model->m,
				      "the mass matrix", err);
	if (r == 0)
		r = st->ops->setup(st, err);
	if (r < 0)
		goto fail;
	*out = st;
	return 0;
fail:
	rths_hs_stepper_free(st);
	return r;
}

int rths_hs_stepper_new_sparse(struct rths_hs_stepper **out,
			       struct rths_hs_sparse_model *model,
			       const struct rths_hs_sparse_estimate *est,
			       const struct rths_hs_stepper_params *p,
			       struct rths_error *err)
{
	struct rths_hs_csc mkc[3];
	struct rths_hs_stepper *st;
	int r;

	*out = NULL;
	/* a plug-in's callbacks take the dense n x n matrices */
	if (rths_hs_plugin_lookup(p->method, NULL))
		return rths_error_set(err, RTHS_E_UNSUPPORTED, NULL, 0,
				      "method",
				      "%s is a plug-in: it takes dense matrices, not a sparse model",
				      rths_hs_method_name(p->method));
	r = rths_hs_sparse_model_compress(model, mkc, err);
	if (r < 0)
		return r;
	r = stepper_alloc(&st, model->n, est != NULL, p, err);
	if (r < 0) {
		for (int q = 0; q < 3; q++)
			rths_hs_csc_free(&mkc[q]);
		return r;
	}
	st->elements_only.n = model->n;
	st->elements_only.n_elements = model->n_elements;
	st->elements_only.elements = model->elements;
	st->model = &st->elements_only;
	r = rths_hs_sparse_setup_model(st, model, mkc, est, err);
	if (r == 0)
		r = st->ops->setup(st, err);
	if (r < 0) {
		rths_hs_stepper_free(st);
		return r;
	}
	*out = st;
	return 0;
}

int rths_hs_stepper_start(struct rths_hs_stepper *st, const double *u0,
			  const double *v0, const double *f0,
			  const double *r_exp0, struct rths_error *err)
{
	size_t n = st->n;

	memset(st->u, 0, 3 * n * sizeof(double));
	if (u0)
		memcpy(st->u, u0, n * sizeof(double));
	if (v0)
		memcpy(st->v, v0, n * sizeof(double));
	if (f0)
		memcpy(st->f, f0, n * sizeof(double));
	else
		memset(st->f, 0, n * sizeof(double));
	rths_hs_stepper_restoring(st, st->u, r_exp0, st->r);
	rths_hs_model_commit(st->model);
	/* M a0 = f0 - C v0 - r0 */
	for (size_t i = 0; i < n; i++)
		st->a[i] = st->f[i] - st->r[i];
	rths_hs_stepper_cv(st, -1.0, st->v, 1.0, st->a);
	la_lin_solve(&st->mass_lu, st->a, 1);
	st->step = 0;
	st->commanded = false;
	st->started = true;
	if (st->ops->started)
		return st->ops->started(st, err);
	return 0;
}

int rths_hs_stepper_command(struct rths_hs_stepper *st, const double *f_next,
			    const double **u_next, struct rths_error *err)
{
	int r;

	if (!st->started)
		return rths_error_set(err, EINVAL, NULL, 0, NULL,
				      "stepper not started");
	if (!st->commanded) {
		if (f_next)
			memcpy(st->f1, f_next, st->n * sizeof(double));
		else
			memset(st->f1, 0, st->n * sizeof(double));
		st->iterations = 0;
		r = st->ops->command(st, err);
		if (r < 0)
			return r;
		st->commanded = true;
	}
	*u_next = st->u1;
	return 0;
}

int rths_hs_stepper_accept(struct rths_hs_stepper *st,
			   const double *r_exp_next, struct rths_error *err)
{
	int r;

	if (!st->commanded)
		return rths_error_set(err, EINVAL, NULL, 0, NULL,
				      "accept without a command for step %llu",
				      (unsigned long long)st->step + 1);
	r = st->ops->accept(st, r_exp_next, err);
	if (r < 0)
		return r;
	rths_hs_model_commit(st->model);
	memcpy(st->f, st->f1, st->n * sizeof(double));
	st->step++;
	st->commanded = false;
	if (!la_all_finite(st->n, st->u) ||
	    !la_all_finite(st->n, st->a))
		return rths_error_set(err, RTHS_E_DIVERGED, NULL, 0, NULL,
				      "the response is no longer finite at step %llu (t = %g s)",
				      (unsigned long long)st->step,
				      rths_hs_stepper_time(st));
	return 0;
}

const double *rths_hs_stepper_u(const struct rths_hs_stepper *st)
{
	return st->u;
}

const double *rths_hs_stepper_v(const struct rths_hs_stepper *st)
{
	return st->v;
}

const double *rths_hs_stepper_a(const struct rths_hs_stepper *st)
{
	return st->a;
}

uint64_t rths_hs_stepper_step(const struct rths_hs_stepper *st)
{
	return st->step;
}

double rths_hs_stepper_time(const struct rths_hs_stepper *st)
{
	return (double)st->step * st->p.dt;
}

size_t rths_hs_stepper_dofs(const struct rths_hs_stepper *st)
{
	return st->n;
}

const struct rths_hs_stepper_params *
rths_hs_stepper_params(const struct rths_hs_stepper *st)
{
	return &st->p;
}

unsigned int rths_hs_stepper_iterations(const struct rths_hs_stepper *st)
{
	return st->iterations;
}
