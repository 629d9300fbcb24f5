// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * alpha operator splitting (Nakashima et al. 1990, Combescure and Pegon
 * 1997).  Predictor (the command):
 *	u~ = u_n + dt v_n + dt^2 (1/2 - beta) a_n,  v~ = v_n + dt (1-gamma) a_n
 * the restoring force is measured at u~ and corrected with the initial
 * stiffness, r_{n+1} = r~ + K0 (u_{n+1} - u~), in the HHT-alpha equation
 *	M a_{n+1} + (1+alpha)(C v_{n+1} + r_{n+1}) - alpha (C v_n + r_n)
 *	    = (1+alpha) f_{n+1} - alpha f_n,
 *	u_{n+1} = u~ + beta dt^2 a_{n+1},  v_{n+1} = v~ + gamma dt a_{n+1},
 * with beta = (1 - alpha)^2 / 4, gamma = 1/2 - alpha.
 */
#include <stdlib.h>

#include "hs/integrator_impl.h"

struct os {
	double beta, gamma;
	struct la_lin meff;
	double *vt;		/* v~ */
	double *cv;		/* C v_n */
};

static int os_setup(struct rths_hs_stepper *st, struct rths_error *err)
{
	double dt = st->p.dt, al = st->p.alpha;
	struct os *os = rths_hs_stepper_priv(st, sizeof(*os), "alpha-OS",
					     err);
	double *A;
	int r;

	if (!os)
		return -ENOMEM;
	rths_hs_stepper_keep_lin(st, &os->meff);
	os->beta = (1 - al) * (1 - al) / 4;
	os->gamma = 0.5 - al;
	os->vt = rths_hs_stepper_zalloc(st, st->n, err);
	os->cv = rths_hs_stepper_zalloc(st, st->n, err);
	if (!os->vt || !os->cv)
		return -ENOMEM;
	/* Only the stiffness is split: the damping term uses the model's C
	 * (a specimen's damping is measured at the predictor). */
	if (st->sp)
		return rths_hs_csc_factor_model_c(st, 1.0,
						  (1 + al) * os->gamma * dt,
						  (1 + al) * os->beta * dt * dt,
						  &os->meff,
						  "the alpha-OS effective mass",
						  err);
	A = rths_hs_stepper_combine(st, 1.0, 0.0,
				    (1 + al) * os->beta * dt * dt, err);
	if (!A)
		return -ENOMEM;
	la_axpy(st->n * st->n, (1 + al) * os->gamma * dt,
			st->model->c, A);
	r = rths_hs_lu_factor(&os->meff, st->n, A,
			      "the alpha-OS effective mass", err);
	free(A);
	return r;
}

static int os_started(struct rths_hs_stepper *st, struct rths_error *err)
{
	struct os *os = st->priv;

	(void)err;
	rths_hs_stepper_cv(st, 1.0, st->v, 0.0, os->cv);
	return 0;
}

static int os_command(struct rths_hs_stepper *st, struct rths_error *err)
{
	struct os *os = st->priv;
	double dt = st->p.dt;

	(void)err;
	for (size_t i = 0; i < st->n; i++) {
		st->u1[i] = st->u[i] + dt * st->v[i] +
			    dt * dt * (0.5 - os->beta) * st->a[i];
		os->vt[i] = st->v[i] + dt * (1 - os->gamma) * st->a[i];
	}
	return 0;
}

static int os_accept(struct rths_hs_stepper *st, const double *r_exp,
		     struct rths_error *err)
{
	struct os *os = st->priv;
	size_t n = st->n;
	double al = st->p.alpha, dt = st->p.dt, bd = os->beta * dt * dt;
	double *rt = st->w1, *cvt = st->w2, *a1 = st->a;

	(void)err;
	rths_hs_stepper_restoring(st, st->u1, r_exp, rt);
	rths_hs_stepper_cv(st, 1.0, os->vt, 0.0, cvt);
	/* a_{n+1} and r~ in place of a_n and r_n, read here for the last time */
	for (size_t i = 0; i < n; i++) {
		a1[i] = (1 + al) * (st->f1[i] - cvt[i] - rt[i]) -
			al * (st->f[i] - os->cv[i] - st->r[i]);
		st->r[i] = rt[i];
	}
	la_lin_solve(&os->meff, a1, 1);
	/* r_{n+1} = r~ + K0 beta dt^2 a_{n+1} */
	rths_hs_stepper_k0v(st, bd, a1, 1.0, st->r);
	for (size_t i = 0; i < n; i++) {
		st->u[i] = st->u1[i] + bd * a1[i];
		st->v[i] = os->vt[i] + os->gamma * dt * a1[i];
	}
	rths_hs_stepper_cv(st, 1.0, st->v, 0.0, os->cv);
	return 0;
}

/* bench-hs's floor: the sparse step's products and solves */
static void os_kernels(const struct rths_hs_stepper *st,
		       struct rths_hs_step_kernels *k)
{
	const struct os *os = st->priv;

	*k = (struct rths_hs_step_kernels){
		.prod = { &st->sp->k.m, &st->sp->c.m, &st->sp->k0.m,
			  &st->sp->c.m },
		.nprod = 4,
		.solve = { &os->meff },
		.nsolve = 1,
	};
}

const struct rths_hs_stepper_ops rths_hs_alpha_os_ops = {
	.setup = os_setup,
	.started = os_started,
	.command = os_command,
	.accept = os_accept,
	.kernels = os_kernels,
};
