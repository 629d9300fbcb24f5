// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * ROSENBROCK_W: the linearly implicit Rosenbrock-W method ROS34PW2 of
 * Rang and Angermann (BIT 45, 2005): 4 stages, order 3 with an embedded
 * order-2 solution, L-stable and stiffly accurate, for explicit ODEs
 * y' = f(t, y).  A step solves four linear systems with one matrix,
 *
 *   (I / (h gamma) - J) u_i = f(t + alpha_i h, y + sum_j a_ij u_j)
 *                             + sum_j (c_ij / h) u_j + gamma_i h f_t,
 *   y_1 = y + sum_j m_j u_j,
 *
 * (Hairer and Wanner, Solving ODEs II, IV.7, the form without products
 * with J), so its cost is fixed: three evaluations of f (the first stage
 * reuses f(t, y)), one at the new point for the next step and the dense
 * output, one LU at most and four solves; no Newton iteration, nothing to
 * converge.  The transformed coefficients a, c, m are computed from the
 * published alpha_ij, gamma_ij, b and b^ when the solver is created.
 *
 * J and f_t need not be exact: a W-method keeps its order with any
 * matrix in place of J (and of the f_t column of the autonomous form's
 * Jacobian, so both are kept together).  So the Jacobian (callback, the
 * finite differences of system.c, or the sparse callback) is evaluated
 * at the start of every step by default, or only every
 * control.jac_max_age steps (and after a rejected step that used an old
 * one); the LU (newton.c's dense LAPACK or KLU) is redone when the
 * Jacobian or h gamma changes, so a fixed step with an aged Jacobian
 * costs no factorization at all.  f_t is one forward difference in t.
 *
 * Two modes.  control.h_init 0: adaptive, the difference between the
 * order-3 and order-2 solutions is the error estimate and chooses the
 * step (factor 0.9 err^(-1/3), within 0.2 .. 5, no growth right after a
 * rejection).  control.h_init > 0: fixed steps of that size (the last
 * cut at tlim), nothing rejected; a step whose estimate exceeds
 * control.fixed_err_max tolerances, or that takes the estimates' sum
 * since the start above 10 times that, stops the integration with
 * -RTHS_E_FIXEDSTEP, as CONSTANT_BDF does.  The embedded order-2
 * estimate overstates the order-3 solution's error, so the test errs on
 * the safe side; on a stiff transient more so: the embedded solution is
 * not L-stable, and the estimate of a transient that the method damps
 * in one step is about the transient itself.  So a fixed step starts as
 * CONSTANT_BDF does, with adaptive steps capped at the fixed one, until
 * the controller reaches it or WARMUP_STEPS fixed steps' worth of time
 * has passed (the 7 kHz mode of the stiff chain failed any fixed step
 * down to 1e-5 s at rtol 1e-6 in its first step).  Filtering the
 * estimate by (I - h gamma J)^-1 (as RADAU5 does) let that pass but let
 * through errors of the smooth solution too: Prothero-Robinson with
 * lambda = -1e6 ended 0.45 off at rtol 1e-6.  With fixed_err_max
 * INFINITY no step is tested, and every step is the fixed one, from the
 * first: a real-time caller's fixed cost.  DAEs (and the mechanical forms of rths/ode_mech.h) are
 * refused by rths_ode_new() with -RTHS_E_UNSUPPORTED.
 *
 * A singular matrix or a non-finite stage makes an adaptive (or warming
 * up) step four times shorter, counted in stats.conv_fails (there is no
 * Newton iteration to fail); a fixed step reports it.  Dense output is
 * the cubic Hermite polynomial through both ends of the step (order 3,
 * the method's).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "ode_impl.h"

#define NS 4
/* fixed steps: the estimates' sum since the start, in fixed_err_max
 * (CONSTANT_BDF's rule) */
#define FIXED_SUM_MAX 10
/* fixed steps: the warm-up's span at most, in fixed steps */
#define WARMUP_STEPS 4
/* rejections within one step before giving up */
#define MAX_REJECT 50

/* ROS34PW2, Rang and Angermann (2005), table 5.1, in Hairer and
 * Wanner's notation: alpha_ij, gamma_ij (gamma_ii = gamma), b, b^. */
#define ROSW_GAMMA 4.3586652150845900e-01
static const double tab_alpha[NS][NS] = {
	{ 0 },
	{ 8.7173304301691801e-01 },
	{ 8.4457060015369423e-01, -1.1299064236484185e-01 },
	{ 0, 0, 1.0 },
};
static const double tab_gamma[NS][NS] = {
	{ ROSW_GAMMA },
	{ -8.7173304301691801e-01, ROSW_GAMMA },
	{ -9.0338057013044082e-01, 5.4180672388095326e-02, ROSW_GAMMA },
	{ 2.4212380706095346e-01, -1.2232505839045147e+00,
	  5.4526025533510214e-01, ROSW_GAMMA },
};
static const double tab_b[NS] = {
	2.4212380706095346e-01, -1.2232505839045147e+00,
	1.5452602553351020e+00, 4.3586652150845900e-01,
};
static const double tab_bhat[NS] = {
	3.7810903145819369e-01, -9.6042292212423178e-02,
	5.0000000000000000e-01, 2.1793326075422950e-01,
};

struct rosw {
	/* transformed coefficients */
	double a[NS][NS], c[NS][NS], m[NS], e[NS];
	double alpha[NS];	/* stage times, sum_j alpha_ij */
	double gsum[NS];	/* gamma_i = sum_j<=i gamma_ij */
	double *u[NS];
	double *ys, *fs;	/* stage point and its f */
	double *ft;		/* df/dt, with the Jacobian */
	double *ynew, *err;
	double *y0, *f0;	/* start of the last step, for dense output */
	double t0;
	double h;		/* next step to try, or the fixed step */
	double cj;		/* 1 / (h gamma) of the LU, 0: none */
	int fixed;
	int warmup;		/* fixed: error-tested steps up to h_fixed */
	double t_warm;		/* ... until this time at the latest */
	int rejected;		/* last attempt failed: do not grow h */
	int have_jac;
	unsigned long jac_age;	/* steps since the Jacobian */
	double err_sum;		/* fixed steps: estimates since the start */
};

/* a = A G^-1, C = diag(1/gamma) - G^-1, m = b G^-1 (Hairer-Wanner). */
static void transform(struct rosw *p)
{
	double w[NS][NS] = { { 0 } };	/* G^-1, lower triangular */

	for (int j = 0; j < NS; j++) {
		w[j][j] = 1.0 / tab_gamma[j][j];
		for (int i = j + 1; i < NS; i++) {
			double sum = 0;

			for (int k = j; k < i; k++)
				sum += tab_gamma[i][k] * w[k][j];
			w[i][j] = -sum / tab_gamma[i][i];
		}
	}
	for (int i = 0; i < NS; i++) {
		p->alpha[i] = p->gsum[i] = 0;
		for (int j = 0; j < NS; j++) {
			double sum = 0;

			p->alpha[i] += tab_alpha[i][j];
			if (j <= i)
				p->gsum[i] += tab_gamma[i][j];
			for (int k = 0; k < NS; k++)
				sum += tab_alpha[i][k] * w[k][j];
			p->a[i][j] = j < i ? sum : 0;
			p->c[i][j] = j < i ? -w[i][j] : 0;
		}
	}
	for (int j = 0; j < NS; j++) {
		p->m[j] = p->e[j] = 0;
		for (int i = 0; i < NS; i++) {
			p->m[j] += tab_b[i] * w[i][j];
			p->e[j] += (tab_b[i] - tab_bhat[i]) * w[i][j];
		}
	}
}

static int rosw_create(struct rths_ode *s)
{
	struct rosw *p = ode_priv(s, sizeof(*p));
	size_t n = s->n;

	if (!p)
		return -ENOMEM;
	transform(p);
	p->fixed = s->ctl.h_init > 0;
	for (int i = 0; i < NS; i++)
		p->u[i] = ode_vec(s, n);
	return ODE_VECS(s, n, &p->ys, &p->fs, &p->ft, &p->ynew, &p->err,
			&p->y0, &p->f0);
}

static int rosw_start(struct rths_ode *s, double thint)
{
	struct rosw *p = s->priv;

	p->rejected = 0;
	p->have_jac = 0;
	p->jac_age = 0;
	p->cj = 0;
	p->err_sum = 0;
	p->warmup = p->fixed && isfinite(s->ctl.fixed_err_max);
	if (p->fixed && !p->warmup) {
		p->h = s->ctl.h_init;
		return 0;
	}
	p->t_warm = s->t + WARMUP_STEPS * s->ctl.h_init;
	return ode_estimate_step(s, thint, 3, &p->h);
}

/* J and f_t at (t, y): f_t by a forward difference in t. */
static int jacobian(struct rths_ode *s, double h)
{
	struct rosw *p = s->priv;
	volatile double tt;
	double d;
	int rc;

	rc = ode_newton_lin_jac(s, s->t, s->y, s->yp);
	if (rc)
		return rc;
	tt = s->t + sqrt(ODE_UROUND) * ode_max(fabs(s->t), h);
	d = tt - s->t;
	s->st.f_evals_jac++;
	rc = ode_rhs(s, tt, s->y, p->ft);
	if (rc)
		return rc;
	for (size_t i = 0; i < s->n; i++)
		p->ft[i] = (p->ft[i] - s->yp[i]) / d;
	p->have_jac = 1;
	p->jac_age = 0;
	p->cj = 0;
	return 0;
}

/* The four stages: ynew and the error estimate err for step h. */
static int attempt(struct rths_ode *s, double h)
{
	struct rosw *p = s->priv;
	size_t n = s->n;
	int rc;

	for (int st = 0; st < NS; st++) {
		const double *f = s->yp;

		if (st) {
			for (size_t i = 0; i < n; i++) {
				double sum = 0;

				for (int j = 0; j < st; j++)
					sum += p->a[st][j] * p->u[j][i];
				p->ys[i] = s->y[i] + sum;
			}
			rc = ode_rhs(s, s->t + p->alpha[st] * h, p->ys,
				     p->fs);
			if (rc)
				return rc;
			f = p->fs;
		}
		for (size_t i = 0; i < n; i++) {
			double sum = 0;

			for (int j = 0; j < st; j++)
				sum += p->c[st][j] * p->u[j][i];
			p->u[st][i] = f[i] + sum / h +
				      p->gsum[st] * h * p->ft[i];
		}
		ode_newton_lin_solve(s, p->u[st]);
	}
	for (size_t i = 0; i < n; i++) {
		double y = s->y[i], e = 0;

		for (int j = 0; j < NS; j++) {
			y += p->m[j] * p->u[j][i];
			e += p->e[j] * p->u[j][i];
		}
		p->ynew[i] = y;
		p->err[i] = e;
	}
	return ode_all_finite(p->ynew, n) && ode_all_finite(p->err, n) ?
	       0 : -RTHS_E_NONFINITE;
}

/* ewt from the larger of |y| at both ends, as RKF45 weighs. */
static void end_weights(struct rths_ode *s, const double *y1)
{
	for (size_t i = 0; i < s->n; i++)
		s->ewt[i] = 1.0 / (s->ctl.rtol * ode_max(fabs(s->y[i]),
							 fabs(y1[i])) +
				   s->atol[i]);
}

static void accept(struct rths_ode *s, double h, double err, double tlim)
{
	struct rosw *p = s->priv;
	double fac;

	ode_copy(p->y0, s->y, s->n);
	ode_copy(p->f0, s->yp, s->n);
	p->t0 = s->t;
	ode_copy(s->y, p->ynew, s->n);
	ode_copy(s->yp, p->fs, s->n);
	s->t = ode_snap_time(p->t0 + h, tlim);
	p->jac_age++;
	if (!p->fixed || p->warmup) {
		fac = err > 0 ? 0.9 * pow(err, -1.0 / 3) : 5.0;
		fac = ode_min(p->rejected ? 1.0 : 5.0, ode_max(0.2, fac));
		p->h = h * fac;
	}
	/* the warm-up ends where the controller reaches the fixed step, or
	 * after WARMUP_STEPS of its time */
	if (p->warmup && (p->h >= s->ctl.h_init || s->t >= p->t_warm))
		p->warmup = 0;
	if (p->fixed && !p->warmup)
		p->h = s->ctl.h_init;
	p->rejected = 0;
	s->st.steps++;
	s->st.h_last = h;
	s->st.h_next = p->h;
	s->st.order_last = 3;
	s->st.err_est_max = ode_max(s->st.err_est_max, err);
}

static int rosw_step(struct rths_ode *s, double tlim)
{
	struct rosw *p = s->priv;
	unsigned long max_age = s->ctl.jac_max_age ? s->ctl.jac_max_age : 1;
	int nfail = 0;

	for (;;) {
		double h, cj, err;
		int rc;

		if (p->warmup)
			p->h = ode_min(p->h, s->ctl.h_init);
		h = ode_limit_step(s, p->h, tlim);

		/* A step cut short by tlim may be tiny; only a step the
		 * error control asked for counts as underflow. */
		if (ode_min(p->h, s->h_max) < ode_hmin(s, s->t))
			return -RTHS_E_HMIN;
		rc = ode_set_weights(s, s->y);
		if (rc)
			return rc;
		if (!p->have_jac || p->jac_age >= max_age ||
		    (p->rejected && p->jac_age > 0)) {
			rc = jacobian(s, h);
			if (rc)
				return rc;
		}
		cj = 1.0 / (h * ROSW_GAMMA);
		if (cj != p->cj) {
			rc = ode_newton_lin_factor(s, cj);
			if (rc < 0)
				return rc;
			p->cj = rc ? 0 : cj;
		}
		if (!rc)
			rc = attempt(s, h);
		/* f at the new point: the next step's first stage */
		if (!rc)
			rc = ode_rhs(s, ode_snap_time(s->t + h, tlim),
				     p->ynew, p->fs);
		if (rc == ODE_NEWTON_SINGULAR || rc == -RTHS_E_NONFINITE) {
			/* a smaller step may have a regular matrix, or
			 * stay where f is finite */
			if (p->fixed && !p->warmup)
				return rc > 0 ? -RTHS_E_SINGULAR : rc;
			if (rc < 0)
				s->nonfinite_seen = 1;
			s->st.conv_fails++;
			if (++nfail > MAX_REJECT)
				return rc > 0 ? -RTHS_E_SINGULAR : rc;
			p->h = h * 0.25;
			p->rejected = 1;
			continue;
		}
		if (rc)
			return rc;
		end_weights(s, p->ynew);
		err = ode_err_norm(s, p->err);
		if (p->fixed && !p->warmup) {
			if (!(err <= s->ctl.fixed_err_max) ||
			    p->err_sum + err >
			    FIXED_SUM_MAX * s->ctl.fixed_err_max)
				return -RTHS_E_FIXEDSTEP;
			p->err_sum += err;
			accept(s, h, err, tlim);
			return 0;
		}
		if (err <= 1.0) {
			accept(s, h, err, tlim);
			return 0;
		}
		s->st.err_test_fails++;
		if (++nfail > MAX_REJECT)
			return -RTHS_E_ERRTEST;
		p->h = h * ode_max(0.2, 0.9 * pow(err, -1.0 / 3));
		p->rejected = 1;
	}
}

static void rosw_interp(const struct rths_ode *s, double t, double *y,
			double *yp)
{
	const struct rosw *p = s->priv;

	ode_hermite(s->n, p->t0, s->t - p->t0, p->y0, p->f0, s->y, s->yp, t,
		    y, yp);
}

const struct ode_ops ode_rosenbrock_w_ops = {
	.name = "rosenbrock_w",
	.implicit = 0,
	.linear_implicit = 1,
	.default_order = 3,
	.max_order = 3,
	.create = rosw_create,
	.start = rosw_start,
	.step = rosw_step,
	.interp = rosw_interp,
};
