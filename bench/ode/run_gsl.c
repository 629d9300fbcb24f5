// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmark adapter: GSL odeiv2 through its driver, with the scaled
 * control (atol_i = tol * scale_i, like the others).  GSL counts neither
 * function evaluations nor Jacobians, so the wrappers do.
 */
#include <gsl/gsl_errno.h>
#include <gsl/gsl_odeiv2.h>

#include "bench.h"

struct gsl_ctx {
	const struct bench_problem *p;
	const struct rths_ode_system *sys;	/* for the reference */
	unsigned long nf, nj;
};

static const struct bench_status gsl_status[] = {
	{ GSL_EMAXITER, "too many steps" },
	{ GSL_ENOPROG, "step underflow" },
	{ 0, NULL },
};

static int g_rhs(double t, const double y[], double f[], void *params)
{
	struct gsl_ctx *c = params;

	c->nf++;
	if (c->sys)
		return c->sys->rhs(t, y, f, c->sys->params) ? GSL_EBADFUNC
							     : GSL_SUCCESS;
	return c->p->rhs(t, y, f, NULL) ? GSL_EBADFUNC : GSL_SUCCESS;
}

/* msbdf uses dfdy (row-major) only; dfdt is left zero */
static int g_jac(double t, const double y[], double *dfdy, double dfdt[],
		 void *params)
{
	struct gsl_ctx *c = params;
	size_t n = c->p->dim;
	double Jc[BENCH_MAXDIM * BENCH_MAXDIM] = { 0 };
	struct rths_mat v = { RTHS_MAT_DENSE, n, n, n, Jc };

	c->nj++;
	for (size_t i = 0; i < n; i++)
		dfdt[i] = 0;
	if (c->p->jac(t, y, &v, NULL))
		return GSL_EBADFUNC;
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++)
			dfdy[i * n + j] = RTHS_MAT(&v, i, j);
	return GSL_SUCCESS;
}

static const gsl_odeiv2_step_type *step_type(int m)
{
	switch (m) {
	case 0:
		return gsl_odeiv2_step_rkf45;
	case 1:
		return gsl_odeiv2_step_msadams;
	default:
		return gsl_odeiv2_step_msbdf;
	}
}

static void run_gsl(const struct bench_solver *sv,
		    const struct bench_problem *p, double tol, double h_fixed,
		    unsigned long max_steps, struct bench_result *r)
{
	struct gsl_ctx c = { .p = p };
	gsl_odeiv2_system sys = { g_rhs, g_jac, p->dim, &c };
	gsl_odeiv2_driver *d;
	double t = p->t0;
	int rc;

	(void)h_fixed;
	d = gsl_odeiv2_driver_alloc_scaled_new(&sys, step_type(sv->method),
					       1e-6 * (p->tend - p->t0), tol,
					       tol, 1.0, 0.0, p->scale);
	if (!d) {
		bench_result_fail(r, "alloc");
		return;
	}
	gsl_odeiv2_driver_set_nmax(d, max_steps);
	for (size_t i = 0; i < p->dim; i++)
		r->y[i] = p->y0[i];
	rc = gsl_odeiv2_driver_apply(d, &t, p->tend, r->y);
	bench_result_status(r, rc == GSL_SUCCESS, rc, gsl_status, "gsl");
	/* the driver counts accepted steps (its evolve object counts
	 * attempts, and the multistep methods retry inside a step) */
	r->steps = d->n;
	r->f_evals = c.nf;
	r->jac_evals = c.nj;
	r->lu = 0;
	r->rejected = d->e->failed_steps;
	gsl_odeiv2_driver_free(d);
}

int bench_gsl_reference(const struct rths_ode_system *rs, double t0,
			double tend, double tol, double *y)
{
	struct bench_problem p = { .dim = rs->dim };
	struct gsl_ctx c = { .p = &p, .sys = rs };
	gsl_odeiv2_system sys = { g_rhs, NULL, rs->dim, &c };
	gsl_odeiv2_driver *d;
	double t = t0;
	int rc;

	d = gsl_odeiv2_driver_alloc_y_new(&sys, gsl_odeiv2_step_rk8pd,
					  1e-6, tol, tol);
	if (!d)
		return -1;
	rc = gsl_odeiv2_driver_apply(d, &t, tend, y);
	gsl_odeiv2_driver_free(d);
	return rc;
}

const struct bench_solver bench_gsl_solvers[] = {
	{ .name = "gsl rkf45", .explicit_only = 1, .run = run_gsl, .method = 0 },
	{ .name = "gsl msadams", .explicit_only = 1, .run = run_gsl, .method = 1 },
	{ .name = "gsl msbdf", .run = run_gsl, .method = 2 },
};
const size_t bench_gsl_count =
	sizeof(bench_gsl_solvers) / sizeof(bench_gsl_solvers[0]);
