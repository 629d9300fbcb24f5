// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Driving a method: one step at a time (rths_ode_step) or up to an output
 * time (rths_ode_evolve), with the checks every method needs (step count,
 * t_stop, finite results) and dense output in between.
 */
#include <math.h>

#include "ode_impl.h"

void ode_hermite(size_t n, double t0, double h, const double *y0,
		 const double *f0, const double *y1, const double *f1,
		 double t, double *y, double *yp)
{
	double th = (t - t0) / h, th2 = th * th, th3 = th2 * th;
	double h00 = 2 * th3 - 3 * th2 + 1, h10 = th3 - 2 * th2 + th;
	double h01 = -2 * th3 + 3 * th2, h11 = th3 - th2;
	double d00 = (6 * th2 - 6 * th) / h, d10 = 3 * th2 - 4 * th + 1;
	double d01 = (-6 * th2 + 6 * th) / h, d11 = 3 * th2 - 2 * th;

	for (size_t i = 0; i < n; i++) {
		if (y)
			y[i] = h00 * y0[i] + h10 * h * f0[i] + h01 * y1[i] +
			       h11 * h * f1[i];
		if (yp)
			yp[i] = d00 * y0[i] + d10 * f0[i] + d01 * y1[i] +
				d11 * f1[i];
	}
}

static int take_step(struct rths_ode *s, double tlim, double thint)
{
	int rc;

	if (s->ctl.has_t_stop && s->ctl.t_stop < tlim)
		tlim = s->ctl.t_stop;
	if (!(tlim > s->t))
		return -EINVAL;
	if (!s->started) {
		rc = s->ops->start(s, ode_min(thint, tlim));
		if (rc)
			return rc;
		s->started = 1;
	}
	s->nonfinite_seen = 0;
	rc = s->ops->step(s, tlim);
	/* Steps that shrank away because the residual turned NaN or Inf
	 * failed for that reason, not for the step size. */
	if ((rc == -RTHS_E_HMIN || rc == -RTHS_E_NO_CONVERGENCE ||
	     rc == -RTHS_E_ERRTEST) && s->nonfinite_seen)
		return -RTHS_E_NONFINITE;
	if (rc)
		return rc;
	if (!ode_all_finite(s->y, s->n) || !ode_all_finite(s->yp, s->n))
		return -RTHS_E_NONFINITE;
	if (s->st.order_last > s->st.order_max_used)
		s->st.order_max_used = s->st.order_last;
	return 0;
}

int rths_ode_step(struct rths_ode *s, double tlim, double *t, double *y)
{
	int rc;

	if (!s || !s->initialized || !t || !y)
		return -EINVAL;
	if (isnan(tlim))
		return -RTHS_E_NONFINITE;
	rc = take_step(s, tlim, tlim);
	*t = rths_ode_get_state(s, y, NULL);
	return rc;
}

int rths_ode_interpolate(const struct rths_ode *s, double t, double *y,
			 double *yp)
{
	double tol;

	if (!s || !s->initialized)
		return -EINVAL;
	if (!isfinite(t))
		return -RTHS_E_NONFINITE;
	if (t == s->t || !s->st.steps) {
		if (t != s->t)
			return -EINVAL;
		rths_ode_get_state(s, y, yp);
		return 0;
	}
	tol = 100 * ODE_UROUND * (fabs(s->t) + s->st.h_last);
	if (t > s->t + tol || t < s->t - s->st.h_last - tol)
		return -EINVAL;
	s->ops->interp(s, t, y, yp);
	return 0;
}

int rths_ode_evolve(struct rths_ode *s, double tout, double *t, double *y)
{
	unsigned long nsteps = 0;
	int rc = 0;

	if (!s || !s->initialized || !t || !y)
		return -EINVAL;
	if (!isfinite(tout))
		return -RTHS_E_NONFINITE;
	if (tout <= s->t) {
		rc = rths_ode_interpolate(s, tout, y, NULL);
		if (!rc)
			*t = tout;
		return rc;
	}
	if (s->ctl.has_t_stop && tout > s->ctl.t_stop)
		return -EINVAL;
	while (s->t < tout) {
		if (nsteps++ >= s->ctl.max_steps) {
			rc = -RTHS_E_MAXSTEPS;
			break;
		}
		rc = take_step(s, s->ctl.has_t_stop ? s->ctl.t_stop : INFINITY,
			       tout);
		if (rc)
			break;
	}
	if (rc) {
		*t = rths_ode_get_state(s, y, NULL);
		return rc;
	}
	if (s->t > tout)
		s->ops->interp(s, tout, y, NULL);
	else
		rths_ode_get_state(s, y, NULL);
	*t = tout;
	return 0;
}
