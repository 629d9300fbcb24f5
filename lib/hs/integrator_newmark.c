// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Implicit Newmark, average acceleration (beta = 1/4, gamma = 1/2): the
 * offline reference.  Each step solves
 *	M a_{n+1} + C v_{n+1} + r(u_{n+1}) = f_{n+1}
 * by modified Newton with the initial effective stiffness
 * K0 + gamma/(beta dt) C + 1/(beta dt^2) M, factored once: exact in one
 * iteration for linear models and convergent for softening hysteresis.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hs/integrator_impl.h"

#define NM_BETA 0.25
#define NM_GAMMA 0.5

struct nmi {
	struct la_lin keff;
	double *a1, *v1;
};

static int nmi_setup(struct rths_hs_stepper *st, struct rths_error *err)
{
	struct nmi *e = calloc(1, sizeof(*e));
	double dt = st->p.dt, *A;
	int r;

	if (!e)
		return rths_error_set(err, ENOMEM, NULL, 0, NULL,
				      "cannot allocate implicit Newmark");
	st->priv = e;
	e->a1 = rths_zalloc(st->n, err);
	e->v1 = rths_zalloc(st->n, err);
	if (!e->a1 || !e->v1)
		return -ENOMEM;
	if (st->sp)
		return rths_hs_csc_factor(st, 1.0 / (NM_BETA * dt * dt),
					  NM_GAMMA / (NM_BETA * dt), 1.0,
					  &e->keff,
					  "the Newmark effective stiffness",
					  err);
	A = rths_hs_stepper_combine(st, 1.0 / (NM_BETA * dt * dt),
				    NM_GAMMA / (NM_BETA * dt), 1.0, err);
	if (!A)
		return -ENOMEM;
	r = rths_hs_lu_factor(&e->keff, st->n, A,
			      "the Newmark effective stiffness", err);
	free(A);
	return r;
}

/* a1, v1 and the residual f1 - M a1 - C v1 - r(u1) at the trial u1. */
static void nmi_residual(struct rths_hs_stepper *st, double *res)
{
	struct nmi *e = st->priv;
	size_t n = st->n;
	double dt = st->p.dt;

	for (size_t i = 0; i < n; i++) {
		e->a1[i] = (st->u1[i] - st->u[i] - dt * st->v[i]) /
			   (NM_BETA * dt * dt) -
			   (0.5 / NM_BETA - 1.0) * st->a[i];
		e->v1[i] = st->v[i] + dt * ((1 - NM_GAMMA) * st->a[i] +
					    NM_GAMMA * e->a1[i]);
	}
	rths_hs_stepper_restoring(st, st->u1, NULL, st->w1);
	for (size_t i = 0; i < n; i++)
		res[i] = st->f1[i] - st->w1[i];
	rths_hs_stepper_mv(st, -1.0, e->a1, 1.0, res);
	rths_hs_stepper_cv(st, -1.0, e->v1, 1.0, res);
}

static int nmi_command(struct rths_hs_stepper *st, struct rths_error *err)
{
	struct nmi *e = st->priv;
	size_t n = st->n;
	double dt = st->p.dt, *res = st->w2;

	for (size_t i = 0; i < n; i++)
		st->u1[i] = st->u[i] + dt * st->v[i] +
			    dt * dt * (0.5 - NM_BETA) * st->a[i];
	for (unsigned int it = 0; it <= st->p.max_iter; it++) {
		double du, scale;

		nmi_residual(st, res);
		if (it == st->p.max_iter)
			break;
		la_lin_solve(&e->keff, res, 1);
		for (size_t i = 0; i < n; i++)
			st->u1[i] += res[i];
		st->iterations = it + 1;
		du = la_norm_inf(n, res);
		scale = la_norm_inf(n, st->u1);
		if (du <= st->p.tol * scale || du == 0) {
			/* Keep a, v and the elements consistent with u1. */
			nmi_residual(st, res);
			return 0;
		}
	}
	return rths_error_set(err, RTHS_E_NO_CONVERGENCE, NULL, 0, NULL,
			      "implicit Newmark did not converge in %u iterations at step %llu",
			      st->p.max_iter,
			      (unsigned long long)st->step + 1);
}

static int nmi_accept(struct rths_hs_stepper *st, const double *r_exp,
		      struct rths_error *err)
{
	struct nmi *e = st->priv;
	size_t n = st->n;

	if (r_exp)
		return rths_error_set(err, RTHS_E_UNSUPPORTED, NULL, 0, NULL,
				      "newmark_implicit takes no measured force");
	memcpy(st->u, st->u1, n * sizeof(double));
	memcpy(st->v, e->v1, n * sizeof(double));
	memcpy(st->a, e->a1, n * sizeof(double));
	memcpy(st->r, st->w1, n * sizeof(double));
	return 0;
}

static void nmi_destroy(struct rths_hs_stepper *st)
{
	struct nmi *e = st->priv;

	if (!e)
		return;
	la_lin_free(&e->keff);
	free(e->a1);
	free(e->v1);
	free(e);
}

const struct rths_hs_stepper_ops rths_hs_newmark_implicit_ops = {
	.setup = nmi_setup,
	.command = nmi_command,
	.accept = nmi_accept,
	.destroy = nmi_destroy,
};
