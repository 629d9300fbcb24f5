// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Generalized-alpha (Chung and Hulbert 1993) and HHT-alpha (Hilber,
 * Hughes and Taylor 1977), implicit, with modified Newton.  Each step
 * solves
 *	M a_{n+1-am} + C v_{n+1-af} + r_{n+1-af} = f_{n+1-af},
 *	x_{n+1-a} = (1 - a) x_{n+1} + a x_n,
 * with Newmark's u_{n+1}, v_{n+1} (beta, gamma) for u_{n+1}, by modified
 * Newton with the initial effective stiffness
 *	(1 - am) / (beta dt^2) M + (1 - af) gamma / (beta dt) C + (1 - af) K0,
 * factored once.  r_{n+1-af} interpolates the forces, not the
 * displacements, so that hysteretic elements see u_{n+1} only.
 *
 * Generalized-alpha from rho_inf: am = (2 rho - 1) / (rho + 1),
 * af = rho / (rho + 1); HHT from alpha in [-1/3, 0]: am = 0, af = -alpha.
 * Both: gamma = 1/2 - am + af, beta = (1 - am + af)^2 / 4.  am = af = 0
 * is average-acceleration Newmark (beta 1/4, gamma 1/2), the offline
 * reference newmark_implicit, which this code steps too: exact in one
 * iteration for linear models and convergent for softening hysteresis.
 *
 * tol > 0 iterates to the tolerance, at most max_iter times; tol = 0
 * makes exactly max_iter iterations every step (constant cost, for real
 * time), never an error.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs/integrator_impl.h"

struct ga {
	double am, af, gamma, beta;
	struct la_lin keff;
	double *a1, *v1;
	double *rhs;		/* the step's constant part of the residual */
};

static int ga_setup(struct rths_hs_stepper *st, struct rths_error *err)
{
	struct ga *e = rths_hs_stepper_priv(st, sizeof(*e),
					    rths_hs_method_name(st->p.method),
					    err);
	double dt = st->p.dt, cm, cc, ck, *A;
	char what[64];
	int r;

	if (!e)
		return -ENOMEM;
	rths_hs_stepper_keep_lin(st, &e->keff);
	if (st->p.method == RTHS_HS_GENERALIZED_ALPHA) {
		double rho = st->p.rho_inf;

		e->am = (2 * rho - 1) / (rho + 1);
		e->af = rho / (rho + 1);
	} else if (st->p.method == RTHS_HS_HHT_ALPHA) {
		e->am = 0;
		e->af = -st->p.alpha;
	}
	e->gamma = 0.5 - e->am + e->af;
	e->beta = 0.25 * (1 - e->am + e->af) * (1 - e->am + e->af);
	e->a1 = rths_hs_stepper_zalloc(st, st->n, err);
	e->v1 = rths_hs_stepper_zalloc(st, st->n, err);
	e->rhs = rths_hs_stepper_zalloc(st, st->n, err);
	if (!e->a1 || !e->v1 || !e->rhs)
		return -ENOMEM;
	cm = (1 - e->am) / (e->beta * dt * dt);
	cc = (1 - e->af) * e->gamma / (e->beta * dt);
	ck = 1 - e->af;
	snprintf(what, sizeof(what), "the %s effective stiffness",
		 rths_hs_method_name(st->p.method));
	if (st->sp)
		return rths_hs_csc_factor(st, cm, cc, ck, &e->keff, what, err);
	A = rths_hs_stepper_combine(st, cm, cc, ck, err);
	if (!A)
		return -ENOMEM;
	r = rths_hs_lu_factor(&e->keff, st->n, A, what, err);
	free(A);
	return r;
}

/* a1, v1, w1 = r(u1) and the residual at the trial u1. */
static void ga_residual(struct rths_hs_stepper *st, double *res)
{
	struct ga *e = st->priv;
	size_t n = st->n;
	double dt = st->p.dt, b = e->beta, g = e->gamma;

	for (size_t i = 0; i < n; i++) {
		e->a1[i] = (st->u1[i] - st->u[i] - dt * st->v[i]) /
			   (b * dt * dt) - (0.5 / b - 1.0) * st->a[i];
		e->v1[i] = st->v[i] + dt * ((1 - g) * st->a[i] +
					    g * e->a1[i]);
	}
	rths_hs_stepper_restoring(st, st->u1, NULL, st->w1);
	for (size_t i = 0; i < n; i++)
		res[i] = e->rhs[i] - (1 - e->af) * st->w1[i];
	rths_hs_stepper_mv(st, -(1 - e->am), e->a1, 1.0, res);
	rths_hs_stepper_cv(st, -(1 - e->af), e->v1, 1.0, res);
}

static int ga_command(struct rths_hs_stepper *st, struct rths_error *err)
{
	struct ga *e = st->priv;
	size_t n = st->n;
	double dt = st->p.dt, *res = st->w2;
	bool fixed = st->p.tol == 0;

	if (!la_all_finite(n, st->f1))
		return rths_error_set(err, RTHS_E_NONFINITE, NULL, 0, NULL,
				      "%s: the external force of step %llu is not finite",
				      rths_hs_method_name(st->p.method),
				      (unsigned long long)st->step + 1);
	/* f_{n+1-af} - am M a_n - af (C v_n + r_n), fixed in the step */
	for (size_t i = 0; i < n; i++)
		e->rhs[i] = (1 - e->af) * st->f1[i] +
			    e->af * (st->f[i] - st->r[i]);
	rths_hs_stepper_mv(st, -e->am, st->a, 1.0, e->rhs);
	rths_hs_stepper_cv(st, -e->af, st->v, 1.0, e->rhs);
	for (size_t i = 0; i < n; i++)
		st->u1[i] = st->u[i] + dt * st->v[i] +
			    dt * dt * (0.5 - e->beta) * st->a[i];
	for (unsigned int it = 0; it < st->p.max_iter; it++) {
		double du;

		ga_residual(st, res);
		la_lin_solve(&e->keff, res, 1);
		for (size_t i = 0; i < n; i++)
			st->u1[i] += res[i];
		st->iterations = it + 1;
		du = la_norm_inf(n, res);
		if (!fixed && (du <= st->p.tol * la_norm_inf(n, st->u1) ||
			       du == 0))
			break;
		if (!isfinite(du))
			return rths_error_set(err, RTHS_E_DIVERGED, NULL, 0,
					      NULL,
					      "%s: Newton diverged at step %llu",
					      rths_hs_method_name(st->p.method),
					      (unsigned long long)st->step + 1);
		if (!fixed && it + 1 == st->p.max_iter)
			return rths_error_set(err, RTHS_E_NO_CONVERGENCE,
					      NULL, 0, NULL,
					      "%s did not converge in %u iterations at step %llu",
					      rths_hs_method_name(st->p.method),
					      st->p.max_iter,
					      (unsigned long long)st->step + 1);
	}
	/* a, v and the elements consistent with the final u1 */
	ga_residual(st, res);
	return 0;
}

static int ga_accept(struct rths_hs_stepper *st, const double *r_exp,
		     struct rths_error *err)
{
	struct ga *e = st->priv;
	size_t n = st->n;

	if (r_exp)
		return rths_error_set(err, RTHS_E_UNSUPPORTED, NULL, 0, NULL,
				      "%s takes no measured force",
				      rths_hs_method_name(st->p.method));
	memcpy(st->u, st->u1, n * sizeof(double));
	memcpy(st->v, e->v1, n * sizeof(double));
	memcpy(st->a, e->a1, n * sizeof(double));
	memcpy(st->r, st->w1, n * sizeof(double));
	return 0;
}

/*
 * bench-hs's floor: each Newton iteration of the last step is a residual
 * (M a, K u, C v) and a solve with the effective stiffness, one more
 * residual keeps a and v consistent, and the step's constant part adds
 * M a and C v.
 */
static void ga_kernels(const struct rths_hs_stepper *st,
		       struct rths_hs_step_kernels *k)
{
	const struct ga *e = st->priv;
	const struct rths_hs_sparse *sp = st->sp;

	memset(k, 0, sizeof(*k));
	for (unsigned int it = 0; it <= st->iterations &&
	     k->nprod + 5 <= RTHS_HS_STEP_KERNELS_MAX; it++) {
		k->prod[k->nprod++] = &sp->m.m;
		k->prod[k->nprod++] = &sp->k.m;
		k->prod[k->nprod++] = &sp->c.m;
		if (it < st->iterations)
			k->solve[k->nsolve++] = &e->keff;
	}
	k->prod[k->nprod++] = &sp->m.m;
	k->prod[k->nprod++] = &sp->c.m;
}

const struct rths_hs_stepper_ops rths_hs_implicit_alpha_ops = {
	.setup = ga_setup,
	.command = ga_command,
	.accept = ga_accept,
	.kernels = ga_kernels,
};
