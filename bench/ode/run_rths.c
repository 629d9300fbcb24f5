// SPDX-License-Identifier: GPL-2.0
/* Benchmark adapter: the rths integrators. */
#include "bench.h"
#include "../../tests/ode/problems.h"

static const struct bench_status rths_status[] = {
	{ -RTHS_E_MAXSTEPS, "too many steps" },
	{ -RTHS_E_HMIN, "step underflow" },
	{ -RTHS_E_NO_CONVERGENCE, "no convergence" },
	{ -RTHS_E_NONFINITE, "non-finite" },
	{ -RTHS_E_SINGULAR, "singular" },
	{ -RTHS_E_ERRTEST, "error test" },
	{ -RTHS_E_FIXEDSTEP, "h too large" },
	{ 0, NULL },
};

static void run_rths(const struct bench_solver *sv,
		     const struct bench_problem *p, double tol,
		     double h_fixed, unsigned long max_steps,
		     struct bench_result *r)
{
	struct rths_ode_system sys = { .dim = p->dim, .rhs = p->rhs,
				       .jac = p->jac };
	struct rths_ode_control c;
	double atol[BENCH_MAXDIM], t;
	struct rths_ode *s;
	int rc;

	if (p->dae)
		sys = *p->dae;
	/* ROSENBROCK_W takes a step as its fixed one: none when adaptive */
	ode_prob_control(&c, sv->method, tol, p->scale, p->dim, p->tend,
			 sv->fixed_step ? h_fixed : 0, max_steps, atol);
	/* a fixed step that keeps the local error within 10 tolerances (the
	 * default since it was 1000) */
	c.fixed_err_max = BENCH_FIXED_ERR_MAX;
	c.jac_max_age = sv->jac_max_age;
	s = rths_ode_new(sv->method, &sys, &c, &rc);
	if (!s) {
		bench_result_fail(r, "create");
		return;
	}
	rc = rths_ode_init(s, p->t0, p->y0, p->dae ? p->yp0 : NULL);
	if (!rc)
		rc = rths_ode_evolve(s, p->tend, &t, r->y);
	const struct rths_ode_stats *st = rths_ode_get_stats(s);

	r->steps = st->steps;
	r->f_evals = st->f_evals;
	r->jac_evals = st->jac_evals;
	r->lu = st->lu_decomps;
	r->rejected = st->err_test_fails + st->conv_fails;
	bench_result_status(r, !rc, rc, rths_status, NULL);
	rths_ode_free(s);
}

#define RTHS(m, n, expl) { .name = "rths " n, .explicit_only = expl, \
	.dae = !expl, .run = run_rths, .method = RTHS_ODE_##m }

const struct bench_solver bench_rths_solvers[] = {
	RTHS(RKF45, "rkf45", 1),
	RTHS(ABAM, "abam", 1),
	RTHS(GSTIFF, "gstiff", 0),
	RTHS(WSTIFF, "wstiff", 0),
	RTHS(DSTIFF, "dstiff", 0),
	{ .name = "rths constant_bdf", .dae = 1, .fixed_step = 1,
	  .run = run_rths, .method = RTHS_ODE_CONSTANT_BDF },
	/* explicit ODEs only, but stiff ones: no explicit method's cap */
	{ .name = "rths rosenbrock_w", .run = run_rths,
	  .method = RTHS_ODE_ROSENBROCK_W },
	/* fixed steps, a Jacobian and an LU every step, or (W-method) a
	 * Jacobian every 20 steps, as CVODE's largest age, and an LU with
	 * it */
	{ .name = "rths rosw fixed", .fixed_step = 1, .run = run_rths,
	  .method = RTHS_ODE_ROSENBROCK_W },
	{ .name = "rths rosw fixJ20", .fixed_step = 1, .jac_max_age = 20,
	  .run = run_rths, .method = RTHS_ODE_ROSENBROCK_W },
};
const size_t bench_rths_count =
	sizeof(bench_rths_solvers) / sizeof(bench_rths_solvers[0]);
