// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Explicit Newmark (beta = 0):
 *	u_{n+1} = u_n + dt v_n + dt^2/2 a_n,
 *	(M + gamma dt C) a_{n+1} = f_{n+1} - r(u_{n+1})
 *				   - C (v_n + (1-gamma) dt a_n),
 *	v_{n+1} = v_n + dt ((1-gamma) a_n + gamma a_{n+1}).
 * Stable for dt*omega <= 1/sqrt(gamma/2) (2 for gamma = 1/2).
 */
#include <stdlib.h>
#include <string.h>

#include "hs/integrator_impl.h"

struct nme {
	struct la_lin lhs;
	double *vt;
};

static int nme_setup(struct rths_hs_stepper *st, struct rths_error *err)
{
	struct nme *e = rths_hs_stepper_priv(st, sizeof(*e),
					     "explicit Newmark", err);
	size_t nn = st->n * st->n;
	double *A;
	int r;

	if (!e)
		return -ENOMEM;
	rths_hs_stepper_keep_lin(st, &e->lhs);
	e->vt = rths_hs_stepper_zalloc(st, st->n, err);
	if (!e->vt)
		return -ENOMEM;
	if (st->sp)
		return rths_hs_csc_factor_model_c(st, 1.0,
						  st->p.gamma * st->p.dt, 0.0,
						  &e->lhs, "M + gamma dt C",
						  err);
	A = rths_zalloc(nn, err);
	if (!A)
		return -ENOMEM;
	for (size_t i = 0; i < nn; i++)
		A[i] = st->model->m[i] + st->p.gamma * st->p.dt *
			st->model->c[i];
	r = rths_hs_lu_factor(&e->lhs, st->n, A, "M + gamma dt C", err);
	free(A);
	return r;
}

static int nme_command(struct rths_hs_stepper *st, struct rths_error *err)
{
	struct nme *e = st->priv;
	double dt = st->p.dt;

	(void)err;
	for (size_t i = 0; i < st->n; i++) {
		st->u1[i] = st->u[i] + dt * st->v[i] + 0.5 * dt * dt * st->a[i];
		e->vt[i] = st->v[i] + (1 - st->p.gamma) * dt * st->a[i];
	}
	return 0;
}

static int nme_accept(struct rths_hs_stepper *st, const double *r_exp,
		      struct rths_error *err)
{
	struct nme *e = st->priv;
	size_t n = st->n;

	(void)err;
	rths_hs_stepper_restoring(st, st->u1, r_exp, st->r);
	for (size_t i = 0; i < n; i++)
		st->a[i] = st->f1[i] - st->r[i];
	rths_hs_stepper_cv(st, -1.0, e->vt, 1.0, st->a);
	la_lin_solve(&e->lhs, st->a, 1);
	for (size_t i = 0; i < n; i++) {
		st->u[i] = st->u1[i];
		st->v[i] = e->vt[i] + st->p.gamma * st->p.dt * st->a[i];
	}
	return 0;
}

const struct rths_hs_stepper_ops rths_hs_newmark_explicit_ops = {
	.setup = nme_setup,
	.command = nme_command,
	.accept = nme_accept,
};
