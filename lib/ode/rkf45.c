// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Runge-Kutta-Fehlberg 4(5).  The fifth-order solution is propagated
 * (local extrapolation, as in Shampine and Watts' RKF45); the difference
 * to the embedded fourth-order one estimates the error.  Dense output is
 * the cubic Hermite polynomial through both ends of the step.
 */
#include <math.h>
#include <stdlib.h>

#include "ode_impl.h"

struct rkf45 {
	double *k[6];
	double *ytmp, *err;
	double *y0, *f0;	/* start of the last step, for dense output */
	double t0;
	double h;		/* next step to try */
	int rejected;		/* last attempt failed: do not grow h */
};

static const double c2 = 1.0 / 4, c3 = 3.0 / 8, c4 = 12.0 / 13, c6 = 0.5;
static const double a21 = 1.0 / 4;
static const double a31 = 3.0 / 32, a32 = 9.0 / 32;
static const double a41 = 1932.0 / 2197, a42 = -7200.0 / 2197,
		    a43 = 7296.0 / 2197;
static const double a51 = 439.0 / 216, a52 = -8.0, a53 = 3680.0 / 513,
		    a54 = -845.0 / 4104;
static const double a61 = -8.0 / 27, a62 = 2.0, a63 = -3544.0 / 2565,
		    a64 = 1859.0 / 4104, a65 = -11.0 / 40;
static const double b1 = 16.0 / 135, b3 = 6656.0 / 12825,
		    b4 = 28561.0 / 56430, b5 = -9.0 / 50, b6 = 2.0 / 55;
/* fifth minus fourth order weights */
static const double e1 = 1.0 / 360, e3 = -128.0 / 4275, e4 = -2197.0 / 75240,
		    e5 = 1.0 / 50, e6 = 2.0 / 55;

static int rkf45_create(struct rths_ode *s)
{
	struct rkf45 *p = ode_priv(s, sizeof(*p));
	size_t n = s->n;

	if (!p)
		return -ENOMEM;
	for (int i = 0; i < 6; i++)
		p->k[i] = ode_vec(s, n);
	return ODE_VECS(s, n, &p->ytmp, &p->err, &p->y0, &p->f0);
}

static int rkf45_start(struct rths_ode *s, double thint)
{
	struct rkf45 *p = s->priv;

	p->rejected = 0;
	return ode_initial_step(s, thint, 4, &p->h);
}

/* ytmp = y + h * sum(a_j k_j) for the first m stages. */
static void stage_point(struct rths_ode *s, double h, const double *a, int m)
{
	struct rkf45 *p = s->priv;

	for (size_t i = 0; i < s->n; i++) {
		double sum = 0;

		for (int j = 0; j < m; j++)
			sum += a[j] * p->k[j][i];
		p->ytmp[i] = s->y[i] + h * sum;
	}
}

static int attempt(struct rths_ode *s, double h)
{
	struct rkf45 *p = s->priv;
	static const double a[5][5] = {
		{ a21 },
		{ a31, a32 },
		{ a41, a42, a43 },
		{ a51, a52, a53, a54 },
		{ a61, a62, a63, a64, a65 },
	};
	static const double c[5] = { c2, c3, c4, 1.0, c6 };
	int rc;

	/* k1 = f(t, y) is s->yp, kept from the previous step. */
	ode_copy(p->k[0], s->yp, s->n);
	for (int st = 0; st < 5; st++) {
		stage_point(s, h, a[st], st + 1);
		rc = ode_rhs(s, s->t + c[st] * h, p->ytmp, p->k[st + 1]);
		if (rc)
			return rc;
	}
	for (size_t i = 0; i < s->n; i++) {
		double *k1 = p->k[0], *k3 = p->k[2], *k4 = p->k[3];
		double *k5 = p->k[4], *k6 = p->k[5];

		p->ytmp[i] = s->y[i] + h * (b1 * k1[i] + b3 * k3[i] +
					    b4 * k4[i] + b5 * k5[i] +
					    b6 * k6[i]);
		p->err[i] = h * (e1 * k1[i] + e3 * k3[i] + e4 * k4[i] +
				 e5 * k5[i] + e6 * k6[i]);
	}
	return 0;
}

static int rkf45_step(struct rths_ode *s, double tlim)
{
	struct rkf45 *p = s->priv;
	int nfail = 0;

	for (;;) {
		double h = ode_limit_step(s, p->h, tlim);
		double err, fac;
		int rc;

		/* A step cut short by tlim may be tiny; only a step the
		 * error control asked for counts as underflow. */
		if (ode_min(p->h, s->h_max) < ode_hmin(s, s->t))
			return -RTHS_E_HMIN;
		rc = ode_set_weights(s, s->y);
		if (rc)
			return rc;
		rc = attempt(s, h);
		if (rc)
			return rc;
		/* Weight by the larger of the old and new |y|. */
		for (size_t i = 0; i < s->n; i++) {
			double w = s->ctl.rtol * ode_max(fabs(s->y[i]),
							 fabs(p->ytmp[i])) +
				   s->atol[i];

			s->ewt[i] = 1.0 / w;
		}
		err = ode_err_norm(s, p->err);
		if (err > 1.0) {
			s->st.err_test_fails++;
			if (++nfail > 50)
				return -RTHS_E_ERRTEST;
			fac = ode_max(0.1, 0.9 * pow(err, -0.25));
			p->h = h * fac;
			p->rejected = 1;
			continue;
		}
		s->st.err_est_max = ode_max(s->st.err_est_max, err);
		/* Accepted: keep the start for dense output. */
		ode_copy(p->y0, s->y, s->n);
		ode_copy(p->f0, s->yp, s->n);
		p->t0 = s->t;
		ode_copy(s->y, p->ytmp, s->n);
		s->t = p->t0 + h;
		s->t = ode_snap_time(s->t, tlim);
		rc = ode_rhs(s, s->t, s->y, s->yp);
		if (rc)
			return rc;
		fac = err > 0 ? 0.9 * pow(err, -0.2) : 5.0;
		fac = ode_min(p->rejected ? 1.0 : 5.0, ode_max(0.2, fac));
		p->h = h * fac;
		p->rejected = 0;
		s->st.steps++;
		s->st.h_last = h;
		s->st.h_next = p->h;
		s->st.order_last = 5;
		return 0;
	}
}

static void rkf45_interp(const struct rths_ode *s, double t, double *y,
			 double *yp)
{
	const struct rkf45 *p = s->priv;

	ode_hermite(s->n, p->t0, s->t - p->t0, p->y0, p->f0, s->y, s->yp, t,
		    y, yp);
}

const struct ode_ops ode_rkf45_ops = {
	.name = "rkf45",
	.implicit = 0,
	.default_order = 5,
	.max_order = 5,
	.create = rkf45_create,
	.start = rkf45_start,
	.step = rkf45_step,
	.interp = rkf45_interp,
};
