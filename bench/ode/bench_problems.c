// SPDX-License-Identifier: GPL-2.0
/*
 * The benchmark's problems: the four explicit test problems of
 * tests/ode and the planar pendulum as an SI2 DAE.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <rths/ode_mech.h>

#include "bench.h"
#include "../../tests/ode/problems.h"

static void from_ode(struct bench_problem *b, const struct ode_problem *p)
{
	memset(b, 0, sizeof(*b));
	b->name = p->name;
	b->dim = p->dim;
	b->n_err = p->dim;
	b->t0 = p->t0;
	b->tend = p->tend;
	b->stiff = p->stiff;
	b->rhs = p->rhs;
	b->jac = p->jac;
	for (size_t i = 0; i < p->dim; i++) {
		b->y0[i] = p->y0[i];
		b->scale[i] = p->scale[i];
	}
	b->rhs(b->t0, b->y0, b->yp0, NULL);
	if (p->exact)
		p->exact(p->tend, b->ref);
}

void bench_pendulum_state(double th, double om, double *Y)
{
	double L = ode_pendulum.L;

	Y[0] = L * cos(th);
	Y[1] = L * sin(th);
	Y[2] = th;
	Y[3] = -L * sin(th) * om;
	Y[4] = L * cos(th) * om;
	Y[5] = om;
}

/* The notes' pendulum, SI2: Y = (x, y, theta, vx, vy, omega, lambda, mu). */
static int pendulum(struct bench_set *set, struct bench_problem *b)
{
	static const unsigned char algebraic[10] = { 0, 0, 0, 0, 0, 0, 1, 1, 1, 1 };
	struct rths_ode_mech m = ode_pendulum_mech(&ode_pendulum);
	double th = ode_pendulum.theta0, om = ode_pendulum.omega0, Y[6];
	int rc;

	rc = rths_ode_mech_dae_new(&m, RTHS_ODE_MECH_SI2, &set->pendulum);
	if (rc)
		return rc;
	memset(b, 0, sizeof(*b));
	b->name = "pendulum";
	b->dae = rths_ode_mech_dae_system(set->pendulum);
	b->dim = b->dae->dim;
	b->n_err = 6;
	b->t0 = 0;
	b->tend = 10;
	b->stiff = 0;
	b->algebraic = algebraic;
	for (size_t i = 0; i < b->dim; i++)
		b->scale[i] = 1;
	bench_pendulum_state(th, om, Y);
	for (int i = 0; i < 3; i++) {
		set->pend_q0[i] = Y[i];
		set->pend_v0[i] = Y[3 + i];
	}
	return rths_ode_mech_dae_initial(set->pendulum, b->t0, set->pend_q0,
					 set->pend_v0, b->y0, b->yp0);
}

int bench_problems_init(struct bench_set *set)
{
	memset(set, 0, sizeof(*set));
	from_ode(&set->p[0], &ode_prob_chain);
	from_ode(&set->p[1], &ode_prob_robertson);
	from_ode(&set->p[2], &ode_prob_vdp);
	from_ode(&set->p[3], &ode_prob_kepler);
	return pendulum(set, &set->p[4]);
}

void bench_problems_free(struct bench_set *set)
{
	rths_ode_mech_dae_free(set->pendulum);
	set->pendulum = NULL;
}

void bench_result_fail(struct bench_result *r, const char *status)
{
	r->ok = 0;
	snprintf(r->status, sizeof(r->status), "%s", status);
	r->err = NAN;
}

void bench_result_status(struct bench_result *r, int ok, int rc,
			 const struct bench_status *tab, const char *lib)
{
	char s[24];

	if (ok) {
		r->ok = 1;
		snprintf(r->status, sizeof(r->status), "ok");
		return;
	}
	for (; tab->name; tab++) {
		if (tab->code == rc) {
			bench_result_fail(r, tab->name);
			return;
		}
	}
	if (lib)
		snprintf(s, sizeof(s), "%s %d", lib, rc);
	else
		snprintf(s, sizeof(s), "error");
	bench_result_fail(r, s);
}

double bench_error(const struct bench_problem *p, const double *y)
{
	double err = 0;

	for (size_t i = 0; i < p->n_err; i++) {
		double e = fabs(y[i] - p->ref[i]) /
			   (p->scale[i] + fabs(p->ref[i]));

		if (!(e <= err))
			err = e;
	}
	return err;
}
