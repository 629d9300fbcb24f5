/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Test problems shared by the ODE unit tests and the work-precision
 * benchmark: a non-stiff Kepler orbit, the stiff 2-DOF chain of the
 * multibody solver notes, Robertson's kinetics, Van der Pol with
 * mu = 1000, and the planar pendulum as a constrained mechanical system.
 */
#ifndef RTHS_TESTS_ODE_PROBLEMS_H
#define RTHS_TESTS_ODE_PROBLEMS_H

#include <stddef.h>

#include <rths/ode.h>
#include <rths/ode_mech.h>

#define ODE_PROB_MAXDIM 8

struct ode_problem {
	const char *name;
	size_t dim;
	double t0, tend;
	double y0[ODE_PROB_MAXDIM];
	/*
	 * Typical magnitude per component: a run at tolerance tol uses
	 * rtol = tol, atol_i = tol * scale_i, and its error is
	 * max_i |y_i - ref_i| / (scale_i + |ref_i|).
	 */
	double scale[ODE_PROB_MAXDIM];
	int stiff;
	rths_ode_rhs_fn rhs;
	rths_ode_jac_fn jac;
	/* Closed-form solution, or NULL. */
	int (*exact)(double t, double *y);
};

extern const struct ode_problem ode_prob_kepler;
extern const struct ode_problem ode_prob_chain;
extern const struct ode_problem ode_prob_robertson;
extern const struct ode_problem ode_prob_vdp;

/*
 * Robertson as an implicit DAE, the conservation law as its third
 * equation (index 1): r = (y1' + 0.04 y1 - 1e4 y2 y3,
 * y2' - 0.04 y1 + 1e4 y2 y3 + 3e7 y2^2, y1 + y2 + y3 - 1); params unused.
 */
int ode_rober_dae_res(double t, const double *y, const double *yp,
		      double *r, void *params);

/* Scaled error of y against ref, as described for scale[] above. */
double ode_prob_error(const struct ode_problem *p, const double *y,
		      const double *ref);

/* Nonzero if all n values are finite. */
int ode_prob_finite(const double *v, size_t n);

/* Build the system for an explicit problem; params unused. */
struct rths_ode_system ode_prob_system(const struct ode_problem *p);

/*
 * The control a run at tolerance tol uses: rtol = tol, atol_i = tol *
 * scale_i (stored in atol), stop at tend, h_fixed for CONSTANT_BDF and
 * ROSENBROCK_W (whose fixed-step mode it selects; 0: adaptive).
 */
void ode_prob_control(struct rths_ode_control *c, enum rths_ode_method m,
		      double tol, const double *scale, size_t dim, double tend,
		      double h_fixed, unsigned long max_steps, double *atol);

/*
 * Integrate p from t0 to tend with a method at tolerance tol; y receives
 * the end state and st (if not NULL) the counters.  Returns the solver's
 * status.  For CONSTANT_BDF h_fixed is the step, for ROSENBROCK_W the
 * fixed step if not 0 (ignored otherwise).
 */
int ode_prob_solve(const struct ode_problem *p, enum rths_ode_method m,
		   double tol, double h_fixed, unsigned long max_steps,
		   double *y, struct rths_ode_stats *st);

/* --- the stiff 2-DOF chain in SI units */
struct ode_chain_params {
	double m1, m2;		/* kg */
	double k1, k2;		/* N/m */
	double c1, c2;		/* N s/m */
	double ag_amp;		/* ground acceleration amplitude, m/s^2 */
	double ag_omega;	/* its circular frequency, rad/s */
};
extern const struct ode_chain_params ode_chain;
/* Undamped natural frequencies in Hz (generalized symmetric eigenproblem
 * K phi = w^2 M phi through LAPACK), ascending. */
int ode_chain_frequencies(double f_hz[2]);

/* --- planar pendulum: a body (m, I) on a massless link of length L */
struct ode_pendulum_params {
	double m, inertia, L, g;
	double theta0, omega0;	/* initial angle from the x axis, rate */
};
extern const struct ode_pendulum_params ode_pendulum;
/* q = (x, y, theta); Phi = (x - L cos theta, y - L sin theta). */
struct rths_ode_mech ode_pendulum_mech(const struct ode_pendulum_params *p);
/* The reduced ODE (theta, omega) the constrained system must follow. */
struct rths_ode_system ode_pendulum_reduced(
	const struct ode_pendulum_params *p);
/* Total energy of a pendulum state q, v. */
double ode_pendulum_energy(const struct ode_pendulum_params *p,
			   const double *q, const double *v);

#endif /* RTHS_TESTS_ODE_PROBLEMS_H */
