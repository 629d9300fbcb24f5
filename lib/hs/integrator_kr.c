// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * KR-alpha (Kolay and Ricles 2014): the CR family with controllable
 * numerical damping.  With D = M + gamma dt C0 + beta dt^2 K0,
 *	alpha1 = D^-1 M,  alpha2 = (1/2 + gamma) alpha1,
 *	alpha3 = D^-1 (am M + af gamma dt C0 + af beta dt^2 K0),
 *	v_{n+1} = v_n + dt alpha1 a_n,
 *	u_{n+1} = u_n + dt v_n + dt^2 alpha2 a_n,
 *	M ((I - alpha3) a_{n+1} + alpha3 a_n)
 *	    = f_{n+1-af} - C v_{n+1-af} - r_{n+1-af},
 * x_{n+1-af} = (1 - af) x_{n+1} + af x_n, am = (2 rho - 1) / (rho + 1),
 * af = rho / (rho + 1), gamma = 1/2 - am + af,
 * beta = (1 - am + af)^2 / 4.  rho_inf = 1 gives CR.
 *
 * A sparse model (st->sp) never forms the dense alpha1, alpha3 and
 * M (I - alpha3).  With N = am M + af gamma dt C0 + af beta dt^2 K0
 * (alpha3 = D^-1 N): alpha1 a = D^-1 (M a), and since
 * M (I - alpha3) = M D^-1 (D - N) and N = af D + (am - af) M,
 *	a_{n+1} = (D - N)^-1 (D (M^-1 b - af a_n) - (am - af) M a_n)
 * for the right-hand side b of the equation above without its alpha3
 * term.  M a_n is the command's product, kept; D, D - N and M are
 * factored by KLU and D kept in compressed columns: a step is the
 * products M a, K u, C v and D x and the solves with D, M and D - N.
 */
#include <stdlib.h>
#include <string.h>

#include "hs/integrator_impl.h"

struct kr {
	double af, gamma;
	double *alpha1;
	double *malpha3;	/* M alpha3 */
	struct la_lin mhat;	/* M (I - alpha3) */
	double *v1;
	double *cv;		/* C v_n */
	/* sparse */
	double am;
	struct la_lin dlu;	/* D */
	struct la_lin dnlu;	/* D - N */
	struct rths_hs_csc d;	/* D */
	double *ma;		/* dt M a_n, from the command */
};

static int kr_setup_sparse(struct rths_hs_stepper *st, double am,
			   double af, double gamma, double beta,
			   struct rths_error *err)
{
	struct kr *kr = st->priv;
	double dt = st->p.dt;
	int r;

	kr->am = am;
	kr->ma = rths_hs_stepper_zalloc(st, st->n, err);
	if (!kr->ma)
		return -ENOMEM;
	r = rths_hs_csc_combine(st, 1.0, gamma * dt, beta * dt * dt, &kr->d,
				err);
	if (!r)
		r = rths_hs_csc_factor(st, 1.0, gamma * dt, beta * dt * dt,
				       &kr->dlu, "the KR-alpha matrix D", err);
	if (!r)
		r = rths_hs_csc_factor(st, 1.0 - am, (1.0 - af) * gamma * dt,
				       (1.0 - af) * beta * dt * dt, &kr->dnlu,
				       "M (I - alpha3) (KR-alpha)", err);
	return r;
}

static int kr_setup(struct rths_hs_stepper *st, struct rths_error *err)
{
	size_t n = st->n, nn = n * n;
	double dt = st->p.dt, rho = st->p.rho_inf;
	double am = (2 * rho - 1) / (rho + 1), af = rho / (rho + 1);
	double gamma = 0.5 - am + af;
	double beta = 0.25 * (1 - am + af) * (1 - am + af);
	struct kr *kr = rths_hs_stepper_priv(st, sizeof(*kr), "KR-alpha",
					     err);
	double *D = NULL, *B = NULL, *alpha3 = NULL;
	int r = -ENOMEM;

	if (!kr)
		return -ENOMEM;
	rths_hs_stepper_keep_lin(st, &kr->mhat);
	rths_hs_stepper_keep_lin(st, &kr->dlu);
	rths_hs_stepper_keep_lin(st, &kr->dnlu);
	kr->af = af;
	kr->gamma = gamma;
	kr->v1 = rths_hs_stepper_zalloc(st, n, err);
	kr->cv = rths_hs_stepper_zalloc(st, n, err);
	if (!kr->v1 || !kr->cv)
		return -ENOMEM;
	if (st->sp)
		return kr_setup_sparse(st, am, af, gamma, beta, err);
	kr->alpha1 = rths_hs_stepper_zalloc(st, nn, err);
	kr->malpha3 = rths_hs_stepper_zalloc(st, nn, err);
	D = rths_hs_stepper_combine(st, 1.0, gamma * dt, beta * dt * dt, err);
	alpha3 = rths_hs_stepper_combine(st, am, af * gamma * dt,
					 af * beta * dt * dt, err);
	if (!kr->alpha1 || !kr->malpha3 || !kr->v1 || !kr->cv || !D ||
	    !alpha3)
		goto out;
	memcpy(kr->alpha1, st->model->m, nn * sizeof(double));
	r = rths_hs_la_solve(n, D, kr->alpha1, n, "the KR-alpha matrix D", err);
	if (r == 0)
		r = rths_hs_la_solve(n, D, alpha3, n,
				     "the KR-alpha matrix D", err);
	if (r < 0)
		goto out;
	la_gemm(n, n, n, 1.0, st->model->m, alpha3, 0.0,
			kr->malpha3);
	B = rths_zalloc(nn, err);
	if (!B) {
		r = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < nn; i++)
		B[i] = st->model->m[i] - kr->malpha3[i];
	r = rths_hs_lu_factor(&kr->mhat, n, B, "M (I - alpha3) (KR-alpha)",
			      err);
out:
	free(D);
	free(B);
	free(alpha3);
	return r;
}

static int kr_started(struct rths_hs_stepper *st, struct rths_error *err)
{
	struct kr *kr = st->priv;

	(void)err;
	rths_hs_stepper_cv(st, 1.0, st->v, 0.0, kr->cv);
	return 0;
}

static int kr_command(struct rths_hs_stepper *st, struct rths_error *err)
{
	struct kr *kr = st->priv;
	size_t n = st->n;
	double dt = st->p.dt, g2 = 0.5 + kr->gamma;

	(void)err;
	if (st->sp) {
		/* dt D^-1 (M a), dt M a kept for the accept */
		rths_hs_stepper_mv(st, dt, st->a, 0.0, kr->ma);
		memcpy(st->w1, kr->ma, n * sizeof(double));
		la_lin_solve(&kr->dlu, st->w1, 1);
	} else {
		la_gemv(n, n, dt, kr->alpha1, st->a, 0.0, st->w1);
	}
	for (size_t i = 0; i < n; i++) {
		kr->v1[i] = st->v[i] + st->w1[i];
		st->u1[i] = st->u[i] + dt * st->v[i] + g2 * dt * st->w1[i];
	}
	return 0;
}

static int kr_accept(struct rths_hs_stepper *st, const double *r_exp,
		     struct rths_error *err)
{
	struct kr *kr = st->priv;
	size_t n = st->n;
	double af = kr->af, bf = 1.0 - af;
	double *r1 = st->w1, *cv1 = st->w2, *rhs = st->w3;

	(void)err;
	rths_hs_stepper_restoring(st, st->u1, r_exp, r1);
	rths_hs_stepper_cv(st, 1.0, kr->v1, 0.0, cv1);
	/* the right-hand side; step n's state is read for the last time */
	for (size_t i = 0; i < n; i++) {
		rhs[i] = bf * (st->f1[i] - cv1[i] - r1[i]) +
			 af * (st->f[i] - kr->cv[i] - st->r[i]);
		st->u[i] = st->u1[i];
		st->v[i] = kr->v1[i];
		st->r[i] = r1[i];
		kr->cv[i] = cv1[i];
	}
	if (st->sp) {
		double c = -(kr->am - af) / st->p.dt;

		/* (D - N) a_{n+1} = D (M^-1 rhs - af a_n) - (am - af) M a_n */
		la_lin_solve(&st->mass_lu, rhs, 1);
		for (size_t i = 0; i < n; i++) {
			rhs[i] -= af * st->a[i];
			st->a[i] = c * kr->ma[i];
		}
		la_csc_gemv(&kr->d.m, 1.0, rhs, 1.0, st->a);
		la_lin_solve(&kr->dnlu, st->a, 1);
		return 0;
	}
	la_gemv(n, n, -1.0, kr->malpha3, st->a, 1.0, rhs);
	la_lin_solve(&kr->mhat, rhs, 1);
	memcpy(st->a, rhs, n * sizeof(double));
	return 0;
}

/* bench-hs's floor: the sparse step's products and solves */
static void kr_kernels(const struct rths_hs_stepper *st,
		       struct rths_hs_step_kernels *k)
{
	const struct kr *kr = st->priv;

	*k = (struct rths_hs_step_kernels){
		.prod = { &st->sp->m.m, &st->sp->k.m, &st->sp->c.m,
			  &kr->d.m },
		.nprod = 4,
		.solve = { &kr->dlu, &st->mass_lu, &kr->dnlu },
		.nsolve = 3,
	};
}

static void kr_destroy(struct rths_hs_stepper *st)
{
	struct kr *kr = st->priv;

	rths_hs_csc_free(&kr->d);
}

const struct rths_hs_stepper_ops rths_hs_kr_alpha_ops = {
	.setup = kr_setup,
	.started = kr_started,
	.command = kr_command,
	.accept = kr_accept,
	.destroy = kr_destroy,
	.kernels = kr_kernels,
};
