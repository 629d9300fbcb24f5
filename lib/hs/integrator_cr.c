// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Chen-Ricles (2008):
 *	v_{n+1} = v_n + dt A a_n,  u_{n+1} = u_n + dt v_n + dt^2 A a_n,
 *	A = (M + dt/2 C0 + dt^2/4 K0)^-1 M,
 *	M a_{n+1} = f_{n+1} - C v_{n+1} - r(u_{n+1}).
 * Both u and v are explicit, so the command needs no force at n+1.
 * A sparse model (st->sp) keeps D = M + dt/2 C0 + dt^2/4 K0 factored by
 * KLU instead of the dense A: A a = D^-1 (M a).
 */
#include <stdlib.h>
#include <string.h>

#include "hs/integrator_impl.h"

struct cr {
	double *A;		/* dense */
	struct la_lin dlu;	/* sparse: D by KLU */
	double *v1;
};

static int cr_setup(struct rths_hs_stepper *st, struct rths_error *err)
{
	double dt = st->p.dt;
	struct cr *cr = rths_hs_stepper_priv(st, sizeof(*cr), "CR", err);
	double *D;
	int r;

	if (!cr)
		return -ENOMEM;
	rths_hs_stepper_keep_lin(st, &cr->dlu);
	cr->v1 = rths_hs_stepper_zalloc(st, st->n, err);
	if (!cr->v1)
		return -ENOMEM;
	if (st->sp)
		return rths_hs_csc_factor(st, 1.0, dt / 2, dt * dt / 4,
					  &cr->dlu,
					  "M + dt/2 C + dt^2/4 K (CR)", err);
	D = rths_hs_stepper_combine(st, 1.0, dt / 2, dt * dt / 4, err);
	cr->A = rths_hs_stepper_zalloc(st, st->n * st->n, err);
	if (!cr->v1 || !D || !cr->A) {
		free(D);
		return -ENOMEM;
	}
	memcpy(cr->A, st->model->m, st->n * st->n * sizeof(double));
	r = rths_hs_la_solve(st->n, D, cr->A, st->n,
			     "M + dt/2 C + dt^2/4 K (CR)", err);
	free(D);
	return r;
}

static int cr_command(struct rths_hs_stepper *st, struct rths_error *err)
{
	struct cr *cr = st->priv;
	size_t n = st->n;
	double dt = st->p.dt;

	(void)err;
	if (st->sp) {
		/* dt D^-1 (M a) */
		rths_hs_stepper_mv(st, dt, st->a, 0.0, st->w1);
		la_lin_solve(&cr->dlu, st->w1, 1);
	} else {
		la_gemv(n, n, dt, cr->A, st->a, 0.0, st->w1);	/* dt A a */
	}
	for (size_t i = 0; i < n; i++) {
		cr->v1[i] = st->v[i] + st->w1[i];
		st->u1[i] = st->u[i] + dt * st->v[i] + dt * st->w1[i];
	}
	return 0;
}

static int cr_accept(struct rths_hs_stepper *st, const double *r_exp,
		     struct rths_error *err)
{
	struct cr *cr = st->priv;
	size_t n = st->n;

	(void)err;
	rths_hs_stepper_restoring(st, st->u1, r_exp, st->r);
	for (size_t i = 0; i < n; i++) {
		st->a[i] = st->f1[i] - st->r[i];
		st->u[i] = st->u1[i];
		st->v[i] = cr->v1[i];
	}
	rths_hs_stepper_cv(st, -1.0, cr->v1, 1.0, st->a);
	la_lin_solve(&st->mass_lu, st->a, 1);
	return 0;
}

/* bench-hs's floor: the sparse step's products and solves */
static void cr_kernels(const struct rths_hs_stepper *st,
		       struct rths_hs_step_kernels *k)
{
	const struct cr *cr = st->priv;

	*k = (struct rths_hs_step_kernels){
		.prod = { &st->sp->m.m, &st->sp->k.m, &st->sp->c.m },
		.nprod = 3,
		.solve = { &cr->dlu, &st->mass_lu },
		.nsolve = 2,
	};
}

const struct rths_hs_stepper_ops rths_hs_cr_ops = {
	.setup = cr_setup,
	.command = cr_command,
	.accept = cr_accept,
	.kernels = cr_kernels,
};
