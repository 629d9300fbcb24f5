// SPDX-License-Identifier: GPL-2.0
/*
 * Test problem definitions (see problems.h).  Every constant here is a
 * physical or textbook parameter; nothing is a stored result.
 */
#include <complex.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>

#include "problems.h"

/* ---------------------------------------------------------------------
 * Kepler orbit, eccentricity 0.5 (DETEST D3), period 2 pi.
 */
#define KEPLER_E 0.5

static int kepler_rhs(double t, const double *y, double *f, void *params)
{
	double r2 = y[0] * y[0] + y[1] * y[1], r3 = r2 * sqrt(r2);

	(void)t;
	(void)params;
	f[0] = y[2];
	f[1] = y[3];
	f[2] = -y[0] / r3;
	f[3] = -y[1] / r3;
	return 0;
}

static int kepler_jac(double t, const double *y, struct rths_mat *J,
		      void *params)
{
	double x = y[0], yy = y[1], r2 = x * x + yy * yy;
	double r3 = r2 * sqrt(r2), r5 = r3 * r2;

	(void)t;
	(void)params;
	RTHS_MAT(J, 0, 2) = 1;
	RTHS_MAT(J, 1, 3) = 1;
	RTHS_MAT(J, 2, 0) = -1 / r3 + 3 * x * x / r5;
	RTHS_MAT(J, 2, 1) = 3 * x * yy / r5;
	RTHS_MAT(J, 3, 0) = 3 * x * yy / r5;
	RTHS_MAT(J, 3, 1) = -1 / r3 + 3 * yy * yy / r5;
	return 0;
}

/* Solve Kepler's equation E - e sin E = t by Newton's method. */
static int kepler_exact(double t, double *y)
{
	double e = KEPLER_E, E = t, c, s, d;

	for (int it = 0; it < 50; it++) {
		double dE = (E - e * sin(E) - t) / (1 - e * cos(E));

		E -= dE;
		if (fabs(dE) < 1e-15 * (1 + fabs(E)))
			break;
	}
	c = cos(E);
	s = sin(E);
	d = 1 - e * c;
	y[0] = c - e;
	y[1] = sqrt(1 - e * e) * s;
	y[2] = -s / d;
	y[3] = sqrt(1 - e * e) * c / d;
	return 0;
}

const struct ode_problem ode_prob_kepler = {
	.name = "kepler",
	.dim = 4,
	.t0 = 0,
	.tend = 20,
	.y0 = { 1 - KEPLER_E, 0, 0, 1.7320508075688772 /* sqrt(3) */ },
	.scale = { 1, 1, 1, 1 },
	.stiff = 0,
	.rhs = kepler_rhs,
	.jac = kepler_jac,
	.exact = kepler_exact,
};

/* ---------------------------------------------------------------------
 * Stiff 2-DOF chain: ground -k1,c1- m1 -k2,c2- m2, under a ground
 * acceleration ag(t) = A sin(w t).  The notes give k1 = 10 N/mm,
 * k2 = 1e6 N/mm, c1 = 0.1 N s/mm, c2 = 1e5 N s/mm, m1 = m2 = 1 kg; with
 * kilograms the consistent length unit is the metre, so N/mm -> *1e3.
 * y = (x1, x2, v1, v2) relative to the ground.
 */
const struct ode_chain_params ode_chain = {
	.m1 = 1.0,
	.m2 = 1.0,
	.k1 = 10.0 * 1e3,
	.k2 = 1e6 * 1e3,
	.c1 = 0.1 * 1e3,
	.c2 = 1e5 * 1e3,
	.ag_amp = 5.0,
	.ag_omega = 2 * M_PI * 5.0,
};

static void chain_matrix(double A[16])
{
	const struct ode_chain_params *c = &ode_chain;

	for (int i = 0; i < 16; i++)
		A[i] = 0;
	A[0 * 4 + 2] = 1;
	A[1 * 4 + 3] = 1;
	A[2 * 4 + 0] = -(c->k1 + c->k2) / c->m1;
	A[2 * 4 + 1] = c->k2 / c->m1;
	A[2 * 4 + 2] = -(c->c1 + c->c2) / c->m1;
	A[2 * 4 + 3] = c->c2 / c->m1;
	A[3 * 4 + 0] = c->k2 / c->m2;
	A[3 * 4 + 1] = -c->k2 / c->m2;
	A[3 * 4 + 2] = c->c2 / c->m2;
	A[3 * 4 + 3] = -c->c2 / c->m2;
}

static int chain_rhs(double t, const double *y, double *f, void *params)
{
	double A[16], ag = ode_chain.ag_amp * sin(ode_chain.ag_omega * t);

	(void)params;
	chain_matrix(A);
	for (int i = 0; i < 4; i++) {
		f[i] = 0;
		for (int j = 0; j < 4; j++)
			f[i] += A[i * 4 + j] * y[j];
	}
	f[2] -= ag;
	f[3] -= ag;
	return 0;
}

static int chain_jac(double t, const double *y, struct rths_mat *J,
		     void *params)
{
	double A[16];

	(void)t;
	(void)y;
	(void)params;
	chain_matrix(A);
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 4; j++)
			RTHS_MAT(J, i, j) = A[i * 4 + j];
	return 0;
}

/*
 * Closed form: y = yp(t) + V exp(L t) V^-1 (y0 - yp(0)), where the
 * particular solution yp(t) = Im(Z e^{iwt}) with (iw - A) Z = b0 and A =
 * V L V^-1 (LAPACK dgeev; eigenvalues are distinct).
 */
static int chain_exact(double t, double *y)
{
	const double *y0 = ode_prob_chain.y0;
	double A[16], wr[4], wi[4], vr[16];
	double complex V[16], Z[4], c[4];
	double w = ode_chain.ag_omega;
	lapack_int ipiv[4];

	chain_matrix(A);
	for (int i = 0; i < 16; i++)
		V[i] = -A[i];
	for (int i = 0; i < 4; i++) {
		V[i * 4 + i] += I * w;
		Z[i] = i < 2 ? 0 : -ode_chain.ag_amp;
	}
	if (LAPACKE_zgesv(LAPACK_ROW_MAJOR, 4, 1, V, 4, ipiv, Z, 1))
		return -1;
	if (LAPACKE_dgeev(LAPACK_ROW_MAJOR, 'N', 'V', 4, A, 4, wr, wi, NULL, 4,
			  vr, 4))
		return -1;
	for (int j = 0; j < 4; j++) {
		for (int i = 0; i < 4; i++) {
			if (wi[j] == 0)
				V[i * 4 + j] = vr[i * 4 + j];
			else if (wi[j] > 0)
				V[i * 4 + j] = vr[i * 4 + j] +
					       I * vr[i * 4 + j + 1];
			else
				V[i * 4 + j] = vr[i * 4 + j - 1] -
					       I * vr[i * 4 + j];
		}
	}
	for (int i = 0; i < 4; i++)
		c[i] = y0[i] - cimag(Z[i]);
	{
		double complex Vs[16];

		for (int i = 0; i < 16; i++)
			Vs[i] = V[i];
		if (LAPACKE_zgesv(LAPACK_ROW_MAJOR, 4, 1, Vs, 4, ipiv, c, 1))
			return -1;
	}
	for (int i = 0; i < 4; i++) {
		double complex sum = Z[i] * cexp(I * w * t);
		double yh = 0;

		for (int j = 0; j < 4; j++)
			yh += creal(V[i * 4 + j] * c[j] *
				    cexp((wr[j] + I * wi[j]) * t));
		y[i] = cimag(sum) + yh;
	}
	return 0;
}

int ode_chain_frequencies(double f_hz[2])
{
	const struct ode_chain_params *c = &ode_chain;
	double K[4] = { c->k1 + c->k2, -c->k2, -c->k2, c->k2 };
	double M[4] = { c->m1, 0, 0, c->m2 };
	double w2[2];

	if (LAPACKE_dsygv(LAPACK_ROW_MAJOR, 1, 'N', 'U', 2, K, 2, M, 2, w2))
		return -1;
	for (int i = 0; i < 2; i++)
		f_hz[i] = sqrt(w2[i]) / (2 * M_PI);
	return 0;
}

/* Both masses 1 mm off the ground, the stiff spring stretched 0.1 mm:
 * the fast mode starts with a transient of a few nanoseconds. */
const struct ode_problem ode_prob_chain = {
	.name = "chain",
	.dim = 4,
	.t0 = 0,
	.tend = 1.0,
	.y0 = { 1e-3, 1.1e-3, 0, 0 },
	.scale = { 1e-3, 1e-3, 1e-2, 1e-2 },
	.stiff = 1,
	.rhs = chain_rhs,
	.jac = chain_jac,
	.exact = chain_exact,
};

/* ---------------------------------------------------------------------
 * Robertson's chemical kinetics (1966) on [0, 40].
 */
static int rober_rhs(double t, const double *y, double *f, void *params)
{
	(void)t;
	(void)params;
	f[0] = -0.04 * y[0] + 1e4 * y[1] * y[2];
	f[2] = 3e7 * y[1] * y[1];
	f[1] = -f[0] - f[2];
	return 0;
}

static int rober_jac(double t, const double *y, struct rths_mat *J,
		     void *params)
{
	(void)t;
	(void)params;
	RTHS_MAT(J, 0, 0) = -0.04;
	RTHS_MAT(J, 0, 1) = 1e4 * y[2];
	RTHS_MAT(J, 0, 2) = 1e4 * y[1];
	RTHS_MAT(J, 1, 0) = 0.04;
	RTHS_MAT(J, 1, 1) = -1e4 * y[2] - 6e7 * y[1];
	RTHS_MAT(J, 1, 2) = -1e4 * y[1];
	RTHS_MAT(J, 2, 0) = 0;
	RTHS_MAT(J, 2, 1) = 6e7 * y[1];
	RTHS_MAT(J, 2, 2) = 0;
	return 0;
}

const struct ode_problem ode_prob_robertson = {
	.name = "robertson",
	.dim = 3,
	.t0 = 0,
	.tend = 40,
	.y0 = { 1, 0, 0 },
	.scale = { 1, 1e-6, 1 },
	.stiff = 1,
	.rhs = rober_rhs,
	.jac = rober_jac,
	.exact = NULL,
};

int ode_rober_dae_res(double t, const double *y, const double *yp,
		      double *r, void *params)
{
	(void)t;
	(void)params;
	r[0] = yp[0] + 0.04 * y[0] - 1e4 * y[1] * y[2];
	r[1] = yp[1] - 0.04 * y[0] + 1e4 * y[1] * y[2] + 3e7 * y[1] * y[1];
	r[2] = y[0] + y[1] + y[2] - 1;
	return 0;
}

/* ---------------------------------------------------------------------
 * Van der Pol, mu = 1000, y0 = (2, 0) on [0, 3000] (MATLAB's vdp1000).
 */
#define VDP_MU 1000.0

static int vdp_rhs(double t, const double *y, double *f, void *params)
{
	(void)t;
	(void)params;
	f[0] = y[1];
	f[1] = VDP_MU * (1 - y[0] * y[0]) * y[1] - y[0];
	return 0;
}

static int vdp_jac(double t, const double *y, struct rths_mat *J,
		   void *params)
{
	(void)t;
	(void)params;
	RTHS_MAT(J, 0, 0) = 0;
	RTHS_MAT(J, 0, 1) = 1;
	RTHS_MAT(J, 1, 0) = -2 * VDP_MU * y[0] * y[1] - 1;
	RTHS_MAT(J, 1, 1) = VDP_MU * (1 - y[0] * y[0]);
	return 0;
}

const struct ode_problem ode_prob_vdp = {
	.name = "vdp1000",
	.dim = 2,
	.t0 = 0,
	.tend = 3000,
	.y0 = { 2, 0 },
	.scale = { 1, 1e-3 },
	.stiff = 1,
	.rhs = vdp_rhs,
	.jac = vdp_jac,
	.exact = NULL,
};

/* ---------------------------------------------------------------------
 * Helpers.
 */
double ode_prob_error(const struct ode_problem *p, const double *y,
		      const double *ref)
{
	double err = 0;

	for (size_t i = 0; i < p->dim; i++) {
		double e = fabs(y[i] - ref[i]) / (p->scale[i] + fabs(ref[i]));

		if (!(e <= err))	/* propagates NaN */
			err = e;
	}
	return err;
}

int ode_prob_finite(const double *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isfinite(v[i]))
			return 0;
	return 1;
}

struct rths_ode_system ode_prob_system(const struct ode_problem *p)
{
	return (struct rths_ode_system){
		.dim = p->dim,
		.rhs = p->rhs,
		.jac = p->jac,
	};
}

void ode_prob_control(struct rths_ode_control *c, enum rths_ode_method m,
		      double tol, const double *scale, size_t dim, double tend,
		      double h_fixed, unsigned long max_steps, double *atol)
{
	rths_ode_control_default(c);
	c->rtol = tol;
	for (size_t i = 0; i < dim; i++)
		atol[i] = tol * scale[i];
	c->atol_v = atol;
	c->has_t_stop = 1;
	c->t_stop = tend;
	c->max_steps = max_steps;
	if (m == RTHS_ODE_CONSTANT_BDF || m == RTHS_ODE_ROSENBROCK_W)
		c->h_init = h_fixed;
}

int ode_prob_solve(const struct ode_problem *p, enum rths_ode_method m,
		   double tol, double h_fixed, unsigned long max_steps,
		   double *y, struct rths_ode_stats *st)
{
	struct rths_ode_system sys = ode_prob_system(p);
	struct rths_ode_control c;
	double atol[ODE_PROB_MAXDIM], t;
	struct rths_ode *s;
	int rc;

	ode_prob_control(&c, m, tol, p->scale, p->dim, p->tend, h_fixed,
			 max_steps, atol);
	s = rths_ode_new(m, &sys, &c, &rc);
	if (!s)
		return rc;
	rc = rths_ode_init(s, p->t0, p->y0, NULL);
	if (!rc)
		rc = rths_ode_evolve(s, p->tend, &t, y);
	if (st)
		*st = *rths_ode_get_stats(s);
	rths_ode_free(s);
	return rc;
}

/* ---------------------------------------------------------------------
 * Planar pendulum (the notes' example): a body of mass m and inertia I
 * about its centre, held at distance L from the origin; theta from the
 * x axis, gravity along -y.
 */
const struct ode_pendulum_params ode_pendulum = {
	.m = 1.0,
	.inertia = 0.1,
	.L = 1.0,
	.g = 9.81,
	.theta0 = 0.0,
	.omega0 = 0.0,
};

static int pend_mass(double t, const double *q, struct rths_mat *M,
		     void *params)
{
	const struct ode_pendulum_params *p = params;

	(void)t;
	(void)q;
	RTHS_MAT(M, 0, 0) = p->m;
	RTHS_MAT(M, 1, 1) = p->m;
	RTHS_MAT(M, 2, 2) = p->inertia;
	return 0;
}

static int pend_force(double t, const double *q, const double *v,
		      double *F, void *params)
{
	const struct ode_pendulum_params *p = params;

	(void)t;
	(void)q;
	(void)v;
	F[0] = 0;
	F[1] = -p->m * p->g;
	F[2] = 0;
	return 0;
}

static int pend_phi(double t, const double *q, double *phi, void *params)
{
	const struct ode_pendulum_params *p = params;

	(void)t;
	phi[0] = q[0] - p->L * cos(q[2]);
	phi[1] = q[1] - p->L * sin(q[2]);
	return 0;
}

static int pend_phi_q(double t, const double *q, struct rths_mat *G,
		      void *params)
{
	const struct ode_pendulum_params *p = params;

	(void)t;
	RTHS_MAT(G, 0, 0) = 1;
	RTHS_MAT(G, 0, 1) = 0;
	RTHS_MAT(G, 0, 2) = p->L * sin(q[2]);
	RTHS_MAT(G, 1, 0) = 0;
	RTHS_MAT(G, 1, 1) = 1;
	RTHS_MAT(G, 1, 2) = -p->L * cos(q[2]);
	return 0;
}

static int pend_gamma(double t, const double *q, const double *v,
		      double *gam, void *params)
{
	const struct ode_pendulum_params *p = params;
	double w2 = v[2] * v[2];

	(void)t;
	gam[0] = -p->L * cos(q[2]) * w2;
	gam[1] = -p->L * sin(q[2]) * w2;
	return 0;
}

struct rths_ode_mech ode_pendulum_mech(const struct ode_pendulum_params *p)
{
	return (struct rths_ode_mech){
		.nq = 3,
		.nc = 2,
		.mass = pend_mass,
		.force = pend_force,
		.phi = pend_phi,
		.phi_q = pend_phi_q,
		.gamma = pend_gamma,
		.params = (void *)p,
	};
}

/* (m L^2 + I) theta'' = -m g L cos theta */
static int pend_reduced_rhs(double t, const double *y, double *f,
			    void *params)
{
	const struct ode_pendulum_params *p = params;

	(void)t;
	f[0] = y[1];
	f[1] = -p->m * p->g * p->L * cos(y[0]) /
	       (p->m * p->L * p->L + p->inertia);
	return 0;
}

struct rths_ode_system ode_pendulum_reduced(
	const struct ode_pendulum_params *p)
{
	return (struct rths_ode_system){
		.dim = 2,
		.rhs = pend_reduced_rhs,
		.params = (void *)p,
	};
}

double ode_pendulum_energy(const struct ode_pendulum_params *p,
			   const double *q, const double *v)
{
	return 0.5 * p->m * (v[0] * v[0] + v[1] * v[1]) +
	       0.5 * p->inertia * v[2] * v[2] + p->m * p->g * q[1];
}
