// SPDX-License-Identifier: LGPL-2.1-or-later
/* Messages for the ODE error codes. */
#include <rths/ode.h>

const char *rths_ode_strerror(int err)
{
	switch (err) {
	case RTHS_ODE_OK:
		return "success";
	case RTHS_ODE_EINVAL:
		return "invalid argument or call order";
	case RTHS_ODE_ENOMEM:
		return "out of memory";
	case RTHS_ODE_ENONFINITE:
		return "non-finite value (NaN or Inf) in input, callback output or solution";
	case RTHS_ODE_ESINGULAR:
		return "iteration matrix (Jacobian) is singular";
	case RTHS_ODE_EHMIN:
		return "step size underflow: the step fell below h_min or machine precision";
	case RTHS_ODE_EMAXSTEPS:
		return "too many steps before reaching the output time";
	case RTHS_ODE_EINCONSISTENT:
		return "inconsistent initial conditions: F(t0, y0, y'0) is not zero within the tolerances, or constraints that cannot be met";
	case RTHS_ODE_ECONV:
		return "Newton iteration failed to converge repeatedly";
	case RTHS_ODE_EERRTEST:
		return "local error test failed repeatedly";
	case RTHS_ODE_ECALLBACK:
		return "a user callback reported failure";
	case RTHS_ODE_EMETHOD:
		return "the method cannot integrate this kind of system";
	case RTHS_ODE_ETOLERANCE:
		return "tolerances are invalid or too small for machine precision";
	case RTHS_ODE_EFIXEDSTEP:
		return "the fixed step is too large for the tolerances: its local error estimate exceeds them by more than control.fixed_err_max";
	}
	return "unknown error";
}
