// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Central difference, three-point form:
 *	(M/dt^2 + C/(2dt)) u_{n+1} = f_n - r_n + (2M/dt^2) u_n
 *				     - (M/dt^2 - C/(2dt)) u_{n-1}.
 * u_{n+1} needs only step n, so accept() already computes the next
 * command; v_n and a_n are the centred differences around it.
 */
#include <stdlib.h>
#include <string.h>

#include "hs/integrator_impl.h"

struct cd {
	struct la_lin lhs;	/* M/dt^2 + C/(2dt) */
	double *back;		/* M/dt^2 - C/(2dt) */
	double *u_prev;		/* u_{n-1} */
	double *u_next;		/* u_{n+1} */
};

static int cd_setup(struct rths_hs_stepper *st, struct rths_error *err)
{
	struct cd *cd = rths_hs_stepper_priv(st, sizeof(*cd),
					     "central difference", err);
	size_t nn = st->n * st->n;
	double dt = st->p.dt, *A;
	int r;

	if (!cd)
		return -ENOMEM;
	rths_hs_stepper_keep_lin(st, &cd->lhs);
	cd->u_prev = rths_hs_stepper_zalloc(st, st->n, err);
	cd->u_next = rths_hs_stepper_zalloc(st, st->n, err);
	if (!cd->u_prev || !cd->u_next)
		return -ENOMEM;
	/* sparse: M/dt^2 - C/(2dt) stays two products with M and C */
	if (st->sp)
		return rths_hs_csc_factor_model_c(st, 1.0 / (dt * dt),
						  1.0 / (2 * dt), 0.0,
						  &cd->lhs,
						  "M/dt^2 + C/(2 dt)", err);
	cd->back = rths_hs_stepper_zalloc(st, nn, err);
	A = rths_zalloc(nn, err);
	if (!cd->back || !A) {
		free(A);
		return -ENOMEM;
	}
	for (size_t i = 0; i < nn; i++) {
		A[i] = st->model->m[i] / (dt * dt) +
		       st->model->c[i] / (2 * dt);
		cd->back[i] = st->model->m[i] / (dt * dt) -
			      st->model->c[i] / (2 * dt);
	}
	r = rths_hs_lu_factor(&cd->lhs, st->n, A, "M/dt^2 + C/(2 dt)", err);
	free(A);
	return r;
}

/* u_next from u, u_prev and equilibrium at the current step. */
static void cd_advance(struct rths_hs_stepper *st, const double *f)
{
	struct cd *cd = st->priv;
	size_t n = st->n;
	double dt = st->p.dt;

	for (size_t i = 0; i < n; i++)
		cd->u_next[i] = f[i] - st->r[i];
	rths_hs_stepper_mv(st, 2.0 / (dt * dt), st->u, 1.0, cd->u_next);
	if (st->sp) {
		rths_hs_stepper_mv(st, -1.0 / (dt * dt), cd->u_prev, 1.0,
				   cd->u_next);
		rths_hs_stepper_cv(st, 1.0 / (2 * dt), cd->u_prev, 1.0,
				   cd->u_next);
	} else {
		la_gemv(n, n, -1.0, cd->back, cd->u_prev, 1.0, cd->u_next);
	}
	la_lin_solve(&cd->lhs, cd->u_next, 1);
}

static int cd_started(struct rths_hs_stepper *st, struct rths_error *err)
{
	struct cd *cd = st->priv;
	double dt = st->p.dt;

	(void)err;
	/* The classic start: u_{-1} = u_0 - dt v_0 + dt^2/2 a_0. */
	for (size_t i = 0; i < st->n; i++)
		cd->u_prev[i] = st->u[i] - dt * st->v[i] +
				0.5 * dt * dt * st->a[i];
	cd_advance(st, st->f);
	return 0;
}

static int cd_command(struct rths_hs_stepper *st, struct rths_error *err)
{
	struct cd *cd = st->priv;

	(void)err;
	memcpy(st->u1, cd->u_next, st->n * sizeof(double));
	return 0;
}

static int cd_accept(struct rths_hs_stepper *st, const double *r_exp,
		     struct rths_error *err)
{
	struct cd *cd = st->priv;
	size_t n = st->n;
	double dt = st->p.dt;

	(void)err;
	memcpy(cd->u_prev, st->u, n * sizeof(double));
	memcpy(st->u, st->u1, n * sizeof(double));
	rths_hs_stepper_restoring(st, st->u, r_exp, st->r);
	cd_advance(st, st->f1);
	for (size_t i = 0; i < n; i++) {
		st->v[i] = (cd->u_next[i] - cd->u_prev[i]) / (2 * dt);
		st->a[i] = (cd->u_next[i] - 2 * st->u[i] + cd->u_prev[i]) /
			   (dt * dt);
	}
	return 0;
}

const struct rths_hs_stepper_ops rths_hs_central_difference_ops = {
	.setup = cd_setup,
	.started = cd_started,
	.command = cd_command,
	.accept = cd_accept,
};
