/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Private helpers shared by the constrained-mechanics files. */
#ifndef RTHS_LIB_ODE_MECH_IMPL_H
#define RTHS_LIB_ODE_MECH_IMPL_H

#include <rths/ode_mech.h>

#include "common/alloc.h"
#include "la/la.h"

/*
 * gamma(t, q, v) = Phi_q v' of a motion through (q, v): the user's
 * callback, or a central difference of Phi_q v + Phi_t along (v, 1).
 * work holds 2 nq + nq nc + 2 nc doubles.
 */
int ode_mech_gamma(const struct rths_ode_mech *m, double t, const double *q,
		   const double *v, double *gamma, double *work);

/*
 * The user's M (nq x nq) and Phi_q (nc x nq) at (t, q) into column-major
 * arrays (leading dimension nq and nc), zeroed before the call; 0,
 * -RTHS_E_CALLBACK or -RTHS_E_NONFINITE.
 */
int ode_mech_mass(const struct rths_ode_mech *m, double t, const double *q,
		  double *M);
int ode_mech_phi_q(const struct rths_ode_mech *m, double t, const double *q,
		   double *G);

/* Phi_q v + Phi_t into out (nc); G is Phi_q at (t, q) (column-major). */
int ode_mech_velocity_constraint(const struct rths_ode_mech *m, double t,
				 const double *q, const double *G,
				 const double *v, double *out);

/*
 * A workspace for the projection, the accelerations and the drift of one
 * mechanism of nq coordinates and nc constraints, allocated once: the
 * public rths_ode_mech_project(), _accel() and _drift() make one per
 * call, while a caller that restarts the mechanism every step (an ODE
 * substructure, rths_ode_mech_dae_initial()) keeps one and allocates
 * nothing there.  The saddle matrix's LU has its storage here too.
 */
struct ode_mech_work {
	size_t nq, nc;
	double *K, *rhs, *G, *phi, *M, *F, *gw;
	struct la_lin lu;
	struct rths_owned mem;	/* the arrays above */
};

int ode_mech_work_init(struct ode_mech_work *w, size_t nq, size_t nc);
void ode_mech_work_fini(struct ode_mech_work *w);
int ode_mech_project_w(const struct rths_ode_mech *m, double t,
		       const double *W, const double *q0, const double *v0,
		       double *q, double *v, struct ode_mech_work *w);
int ode_mech_accel_w(const struct rths_ode_mech *m, double t,
		     const double *q, const double *v, double *a,
		     double *lambda, struct ode_mech_work *w);
int ode_mech_drift_w(const struct rths_ode_mech *m, double t,
		     const double *q, const double *v, double *pos,
		     double *vel, struct ode_mech_work *w);

#endif /* RTHS_LIB_ODE_MECH_IMPL_H */
