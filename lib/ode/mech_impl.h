/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Private helpers shared by the constrained-mechanics files. */
#ifndef RTHS_LIB_ODE_MECH_IMPL_H
#define RTHS_LIB_ODE_MECH_IMPL_H

#include <rths/ode_mech.h>

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

#endif /* RTHS_LIB_ODE_MECH_IMPL_H */
