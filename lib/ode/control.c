// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Error control shared by all methods: defaults and validation of the
 * control structure, error weights, the weighted RMS norm, step limits
 * and the initial step estimate.
 */
#include <math.h>

#include "ode_impl.h"

void rths_ode_control_default(struct rths_ode_control *c)
{
	*c = (struct rths_ode_control){
		.rtol = 1e-6,
		.atol = 1e-9,
		.max_steps = 500000,
		.max_newton_iters = 4,
		.fixed_err_max = 10,
	};
}

int ode_control_check(const struct rths_ode_control *c, size_t n)
{
	double v[] = { c->rtol, c->atol, c->h_init, c->h_min, c->h_max };

	if (!ode_all_finite(v, sizeof(v) / sizeof(v[0])))
		return -RTHS_E_NONFINITE;
	if (c->has_t_stop && !isfinite(c->t_stop))
		return -RTHS_E_NONFINITE;
	/* once, here, for every method: none can meet a tolerance below
	 * rounding, and each used to fail differently on it */
	if (c->rtol < 0 || c->atol < 0 ||
	    (c->rtol > 0 && c->rtol < ODE_RTOL_MIN))
		return -RTHS_E_TOLERANCE;
	if (c->atol_v) {
		if (!ode_all_finite(c->atol_v, n))
			return -RTHS_E_NONFINITE;
		for (size_t i = 0; i < n; i++)
			if (c->atol_v[i] < 0)
				return -RTHS_E_TOLERANCE;
	}
	if (c->h_init < 0 || c->h_min < 0 || c->h_max < 0 ||
	    (c->h_max > 0 && c->h_min > c->h_max) || c->max_order < 0 ||
	    c->max_newton_iters < 0 || !(c->fixed_err_max >= 0))
		return -EINVAL;
	return 0;
}

int ode_set_weights(struct rths_ode *s, const double *y)
{
	double rtol = s->ctl.rtol;

	for (size_t i = 0; i < s->n; i++) {
		double w = rtol * fabs(y[i]) + s->atol[i];

		if (!(w > 0) || w < ODE_RTOL_MIN * fabs(y[i]))
			return -RTHS_E_TOLERANCE;
		s->ewt[i] = 1.0 / w;
	}
	return 0;
}

double ode_wrms(const struct rths_ode *s, const double *v)
{
	double sum = 0;

	for (size_t i = 0; i < s->n; i++) {
		double x = v[i] * s->ewt[i];

		sum += x * x;
	}
	return sqrt(sum / (double)s->n);
}

double ode_err_norm(const struct rths_ode *s, const double *v)
{
	double sum = 0;

	if (!s->no_err)
		return ode_wrms(s, v);
	for (size_t i = 0; i < s->n; i++) {
		double x = s->no_err[i] ? 0 : v[i] * s->ewt[i];

		sum += x * x;
	}
	return sqrt(sum / (double)s->n_tested);
}

double ode_newton_norm(const struct rths_ode *s, const double *v,
		       const double *y, double cj)
{
	double sum = 0;

	if (!s->no_err)
		return ode_wrms(s, v);
	for (size_t i = 0; i < s->n; i++) {
		double w = 1.0 / s->ewt[i];
		double rounding = 100 * ODE_UROUND * (fabs(y[i]) + w);

		/* index k: the rounding the conditioning 1/h^(k-1) allows */
		for (int k = s->no_err[i]; k > 1; k--)
			rounding *= cj;
		if (s->no_err[i] > 1 && s->nw_floor)
			rounding = ode_max(rounding, 100 * s->nw_floor[i]);
		if (s->no_err[i] > 1)
			w += rounding;
		sum += v[i] * v[i] / (w * w);
	}
	return sqrt(sum / (double)s->n);
}

double ode_hmin(const struct rths_ode *s, double t)
{
	return ode_max(s->ctl.h_min, 4.0 * ODE_UROUND * fabs(t));
}

double ode_limit_step(const struct rths_ode *s, double h, double tlim)
{
	h = ode_min(h, s->h_max);
	if (s->t + h > tlim)
		h = tlim - s->t;
	return h;
}

double ode_snap_time(double t, double tlim)
{
	if (isfinite(tlim) &&
	    (t > tlim || tlim - t <= 4 * ODE_UROUND * fabs(tlim)))
		return tlim;
	return t;
}

/*
 * Starting step.  Explicit ODEs: the estimate of Hairer, Norsett and
 * Wanner (Solving ODEs I, II.4), one extra f evaluation.  DAEs: DASSL's
 * rule, a thousandth of the span limited so that h |y'| <= 0.5 in the
 * weighted norm.
 */
int ode_initial_step(struct rths_ode *s, double thint, int order,
		     double *hout)
{
	if (s->ctl.h_init > 0) {
		*hout = ode_limit_step(s, s->ctl.h_init, thint);
		return 0;
	}
	return ode_estimate_step(s, thint, order, hout);
}

int ode_estimate_step(struct rths_ode *s, double thint, int order,
		      double *hout)
{
	double span = thint - s->t;
	double h;

	if (s->dae) {
		double ypn = ode_err_norm(s, s->yp);

		h = isfinite(span) ? 1e-3 * span : 1e-3;
		if (ypn > 0.5 / h)
			h = 0.5 / ypn;
	} else {
		size_t n = s->n;
		double *y1 = s->fd_work, *f1 = s->fd_work + n;
		double d0 = ode_wrms(s, s->y), d1 = ode_wrms(s, s->yp);
		double h0, h1, d2, dm;
		int rc;

		h0 = (d0 < 1e-5 || d1 < 1e-5) ? 1e-6 : 0.01 * d0 / d1;
		if (isfinite(span))
			h0 = ode_min(h0, span);
		for (size_t i = 0; i < n; i++)
			y1[i] = s->y[i] + h0 * s->yp[i];
		s->st.f_evals_jac++;
		rc = ode_rhs(s, s->t + h0, y1, f1);
		if (rc)
			return rc;
		for (size_t i = 0; i < n; i++)
			f1[i] -= s->yp[i];
		d2 = ode_wrms(s, f1) / h0;
		dm = ode_max(d1, d2);
		if (dm <= 1e-15)
			h1 = ode_max(1e-6, h0 * 1e-3);
		else
			h1 = pow(0.01 / dm, 1.0 / (order + 1));
		h = ode_min(100 * h0, h1);
	}
	h = ode_limit_step(s, h, thint);
	h = ode_max(h, ode_hmin(s, s->t) * 2);
	*hout = h;
	return 0;
}
