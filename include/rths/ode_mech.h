/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Constrained mechanical systems as DAEs for the implicit rths_ode
 * methods:
 *
 *     q' = v,   M(q) v' = F(t, q, v) - Phi_q^T lambda,   Phi(q, t) = 0
 *
 * in one of the multibody solver's formulations (Y is the DAE state):
 *
 *   I3   index 3, Y = (q, v, lambda):
 *          q' - v = 0;  M v' - F + Phi_q^T lambda = 0;  Phi = 0
 *   SI2  stabilized index 2 (Gear-Gupta-Leimkuhler), Y = (q, v, lambda, mu):
 *          q' - v + Phi_q^T mu = 0;  M v' - F + Phi_q^T lambda = 0;
 *          Phi = 0;  Phi_q v + Phi_t = 0
 *   SI1  stabilized index 1, Y = (q, v, eta, xi) with eta' = lambda,
 *        xi' = mu: the SI2 equations with lambda, mu replaced by eta', xi'
 *   I1   index 1 (acceleration level), Y = (q, v, lambda):
 *          q' - v = 0;  M v' - F + Phi_q^T lambda = 0;  Phi_q v' = gamma
 *        Phi and Phi' are not enforced and drift; a baseline.
 *
 * I3 leaves v and lambda out of the local error test, SI2 lambda and mu
 * (they are index-2/3 variables), I1 lambda (a function of v', whose
 * error is a derivative's); SI1 tests every component.  The Jacobian of
 * the residual is computed by finite differences.
 *
 * Matrices are column-major (rths/mat.h): the mass and Phi_q callbacks
 * fill a zeroed struct rths_mat view through RTHS_MAT(M, i, j), and a
 * weight matrix W is a column-major array.
 *
 * Errors: a negative errno or -RTHS_E_xxx (rths/error.h), as in ode.h.
 */
#ifndef RTHS_ODE_MECH_H
#define RTHS_ODE_MECH_H

/* librths is built with -fvisibility=hidden: this is its API. */
#pragma GCC visibility push(default)

#include <stddef.h>

#include <rths/ode.h>

#ifdef __cplusplus
extern "C" {
#endif

struct rths_ode_mech {
	size_t nq;		/* generalized coordinates */
	size_t nc;		/* constraints */
	/* M (nq x nq), symmetric positive definite */
	int (*mass)(double t, const double *q, struct rths_mat *M,
		    void *params);
	/* applied and velocity-dependent forces F (nq) */
	int (*force)(double t, const double *q, const double *v, double *F,
		     void *params);
	/* Phi (nc) */
	int (*phi)(double t, const double *q, double *phi, void *params);
	/* Phi_q (nc x nq): RTHS_MAT(phi_q, i, j) = d Phi_i / d q_j */
	int (*phi_q)(double t, const double *q, struct rths_mat *phi_q,
		     void *params);
	/* Phi_t (nc); NULL for constraints that do not depend on time */
	int (*phi_t)(double t, const double *q, double *phi_t, void *params);
	/*
	 * gamma = -(Phi_q v)_q v - 2 Phi_qt v - Phi_tt (nc), so that
	 * Phi_q v' = gamma; NULL to differentiate Phi_q v + Phi_t
	 * numerically along (v, 1).
	 */
	int (*gamma)(double t, const double *q, const double *v,
		     double *gamma, void *params);
	void *params;
};

enum rths_ode_mech_form {
	RTHS_ODE_MECH_I3,
	RTHS_ODE_MECH_SI2,
	RTHS_ODE_MECH_SI1,
	RTHS_ODE_MECH_I1,
};

/* "i3", "si2", "si1", "i1" */
const char *rths_ode_mech_form_name(enum rths_ode_mech_form form);

/*
 * Consistent initial conditions.  q minimizes 1/2 (q - q0)^T W (q - q0)
 * subject to Phi(q, t) = 0 (Newton on the Lagrange conditions), then v
 * minimizes 1/2 (v - v0)^T W (v - v0) subject to Phi_q v + Phi_t = 0.
 * W is nq x nq symmetric positive definite (column-major), NULL for the
 * identity.
 * -RTHS_E_INCONSISTENT when the constraints cannot be met (no solution
 * near q0, or a rank-deficient Phi_q).
 */
int rths_ode_mech_project(const struct rths_ode_mech *m, double t,
			  const double *W, const double *q0, const double *v0,
			  double *q, double *v);

/*
 * Accelerations and multipliers of a consistent state:
 * [M Phi_q^T; Phi_q 0] [a; lambda] = [F; gamma].  lambda may be NULL.
 */
int rths_ode_mech_accel(const struct rths_ode_mech *m, double t,
			const double *q, const double *v, double *a,
			double *lambda);

/* Constraint violation: |Phi|_2 and |Phi_q v + Phi_t|_2. */
int rths_ode_mech_drift(const struct rths_ode_mech *m, double t,
			const double *q, const double *v, double *pos,
			double *vel);

/*
 * A workspace for projecting and measuring one mechanism, allocated once:
 * the calls above make one per call, while a caller that restarts the
 * mechanism every step (an ODE substructure of the hybrid engine) keeps
 * one and allocates nothing there.  It fits mechanisms of m's nq and nc;
 * 0, -EINVAL or -ENOMEM.
 */
struct rths_ode_mech_ws;

int rths_ode_mech_ws_new(const struct rths_ode_mech *m,
			 struct rths_ode_mech_ws **out);
void rths_ode_mech_ws_free(struct rths_ode_mech_ws *ws);

/* rths_ode_mech_project() and _drift() in a workspace made for m. */
int rths_ode_mech_project_ws(const struct rths_ode_mech *m, double t,
			     const double *W, const double *q0,
			     const double *v0, double *q, double *v,
			     struct rths_ode_mech_ws *ws);
int rths_ode_mech_drift_ws(const struct rths_ode_mech *m, double t,
			   const double *q, const double *v, double *pos,
			   double *vel, struct rths_ode_mech_ws *ws);

struct rths_ode_mech_dae;

/* The DAE of m in a formulation; m is copied (not its params). */
int rths_ode_mech_dae_new(const struct rths_ode_mech *m,
			  enum rths_ode_mech_form form,
			  struct rths_ode_mech_dae **out);
void rths_ode_mech_dae_free(struct rths_ode_mech_dae *d);

/* The system to hand to rths_ode_new(); valid as long as d. */
const struct rths_ode_system *
rths_ode_mech_dae_system(const struct rths_ode_mech_dae *d);

/*
 * Y(t) and Y'(t) of the formulation from a consistent (q, v) (see
 * rths_ode_mech_project): accelerations and multipliers are solved for.
 */
int rths_ode_mech_dae_initial(struct rths_ode_mech_dae *d, double t,
			      const double *q, const double *v, double *Y,
			      double *Yp);

/* q, v, lambda from Y and Y' (SI1 needs Yp for lambda); outputs may be
 * NULL. */
void rths_ode_mech_dae_unpack(const struct rths_ode_mech_dae *d,
			      const double *Y, const double *Yp, double *q,
			      double *v, double *lambda);

#ifdef __cplusplus
}
#endif

#pragma GCC visibility pop

#endif /* RTHS_ODE_MECH_H */
