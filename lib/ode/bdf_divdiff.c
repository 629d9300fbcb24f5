// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * BDF in modified divided differences on the actual step history, after
 * DASSL's DDASTP (Brenan, Campbell, Petzold, "Numerical Solution of
 * Initial-Value Problems in DAEs", ch. 5): DSTIFF and WSTIFF.
 *
 * phi_j holds the (j-1)th modified divided difference of y; psi_j =
 * t_{n+1} - t_{n+1-j}.  The predictor is the polynomial through the last
 * k+1 solution values, at the actual (unequal) times.  The corrector sets
 * y' = y'_pred + cj (y - y_pred):
 *   DSTIFF (fixed leading coefficient): cj = (sum_{j<=k} 1/j) / h, the
 *     constant-step value, so the iteration matrix survives moderate step
 *     changes; the error constant pays for the approximation.
 *   WSTIFF (variable coefficient): cj = sum_{j<=k} 1/psi_j, the exact
 *     derivative of the polynomial through y_{n+1} and the k values
 *     before it, whatever the spacing.
 * Order and step selection are DASSL's (orders k-2..k+1 estimated from
 * the differences; start by raising the order and doubling the step).
 */
#include <math.h>
#include <stdlib.h>

#include "ode_impl.h"

#define DD_KMAX 6

struct dd {
	int variable;
	int k, kold, ns, iphase;
	double h, hold;
	/* 1-based, as in DASSL */
	double psi[DD_KMAX + 3], alpha[DD_KMAX + 3], beta[DD_KMAX + 3];
	double gamma[DD_KMAX + 3], sigma[DD_KMAX + 3];
	double *phi[DD_KMAX + 3];
	double *e, *ypred, *yppred, *ynew, *ypnew, *delta;
};

static int dd_create_common(struct rths_ode *s, int variable)
{
	struct dd *p = ode_priv(s, sizeof(*p));
	size_t n = s->n;

	if (!p)
		return -ENOMEM;
	p->variable = variable;
	for (int j = 1; j < DD_KMAX + 3; j++)
		p->phi[j] = ode_vec(s, n);
	return ODE_VECS(s, n, &p->e, &p->ypred, &p->yppred, &p->ynew,
			&p->ypnew, &p->delta);
}

static int dstiff_create(struct rths_ode *s)
{
	return dd_create_common(s, 0);
}

static int wstiff_create(struct rths_ode *s)
{
	return dd_create_common(s, 1);
}

static int dd_start(struct rths_ode *s, double thint)
{
	struct dd *p = s->priv;
	int rc = ode_initial_step(s, thint, 1, &p->h);

	if (rc)
		return rc;
	ode_copy(p->phi[1], s->y, s->n);
	for (size_t i = 0; i < s->n; i++)
		p->phi[2][i] = p->h * s->yp[i];
	p->psi[1] = p->h;
	p->k = 1;
	p->kold = 0;
	p->hold = 0;
	p->ns = 0;
	p->iphase = 0;
	return 0;
}

/* Coefficients for a step of size h at order k (DDASTP block 200). */
static void coefficients(struct dd *p)
{
	int kp1 = p->k + 1;
	double h = p->h, temp1 = h;

	if (h != p->hold || p->k != p->kold)
		p->ns = 0;
	p->ns = p->ns + 1 < p->kold + 2 ? p->ns + 1 : p->kold + 2;
	if (kp1 < p->ns)
		return;
	p->beta[1] = 1;
	p->alpha[1] = 1;
	p->gamma[1] = 0;
	p->sigma[1] = 1;
	for (int i = 2; i <= kp1; i++) {
		double temp2 = p->psi[i - 1];

		p->psi[i - 1] = temp1;
		p->beta[i] = p->beta[i - 1] * p->psi[i - 1] / temp2;
		temp1 = temp2 + h;
		p->alpha[i] = h / temp1;
		p->sigma[i] = (i - 1) * p->sigma[i - 1] * p->alpha[i];
		p->gamma[i] = p->gamma[i - 1] + p->alpha[i - 1] / h;
	}
	p->psi[kp1] = temp1;
}

static void scale_phi(struct dd *p, size_t n, int divide)
{
	for (int j = p->ns + 1; j <= p->k + 1; j++)
		for (size_t i = 0; i < n; i++)
			p->phi[j][i] = divide ? p->phi[j][i] / p->beta[j]
					      : p->phi[j][i] * p->beta[j];
}

struct dd_est {
	double est, erkm1, terk, terkm1;
	int knew;
};

/* Error estimates at orders k, k-1, k-2 from the correction e. */
static void estimate(const struct rths_ode *s, struct dd *p,
		     struct dd_est *r)
{
	size_t n = s->n;
	int k = p->k;
	double enorm = ode_err_norm(s, p->e);
	double erk = p->sigma[k + 1] * enorm;

	r->terk = (k + 1) * erk;
	r->est = erk;
	r->knew = k;
	r->erkm1 = r->terkm1 = 0;
	if (k == 1)
		return;
	for (size_t i = 0; i < n; i++)
		p->delta[i] = p->phi[k + 1][i] + p->e[i];
	r->erkm1 = p->sigma[k] * ode_err_norm(s, p->delta);
	r->terkm1 = k * r->erkm1;
	if (k == 2) {
		if (r->terkm1 > 0.5 * r->terk)
			return;
	} else {
		for (size_t i = 0; i < n; i++)
			p->delta[i] += p->phi[k][i];
		double terkm2 = (k - 1) * p->sigma[k - 1] * ode_err_norm(s, p->delta);

		if (ode_max(r->terkm1, terkm2) > r->terk)
			return;
	}
	r->knew = k - 1;
	r->est = r->erkm1;
}

/* After a successful step: order and step for the next (DDASTP 500+). */
static void select_next(struct rths_ode *s, struct dd *p,
			const struct dd_est *r)
{
	int k = p->k, kp1 = k + 1, kp2 = k + 2, maxord = s->max_order;
	int kdiff = k - p->kold;
	double est = r->est, hnew, rr;
	size_t n = s->n;

	p->kold = k;
	p->hold = p->h;
	if (r->knew == k - 1 || k == maxord)
		p->iphase = 1;
	if (p->iphase == 0) {
		p->k = kp1;
		hnew = 2 * p->h;
		goto update;
	}
	if (r->knew == k - 1) {
		p->k = k - 1;
		est = r->erkm1;
	} else if (k < maxord && kp1 < p->ns && kdiff != 1) {
		for (size_t i = 0; i < n; i++)
			p->delta[i] = p->e[i] - p->phi[kp2][i];
		double erkp1 = ode_err_norm(s, p->delta) / (k + 2);
		double terkp1 = (k + 2) * erkp1;
		int raise;

		if (k > 1) {
			if (r->terkm1 <= ode_min(r->terk, terkp1)) {
				p->k = k - 1;
				est = r->erkm1;
			}
			raise = p->k == k && terkp1 < r->terk;
		} else {
			raise = terkp1 < 0.5 * r->terk;
		}
		if (raise) {
			p->k = kp1;
			est = erkp1;
		}
	}
	hnew = p->h;
	rr = pow(2 * est + 1e-4, -1.0 / (p->k + 1));
	if (rr >= 2)
		hnew = 2 * p->h;
	else if (rr <= 1)
		hnew = p->h * ode_max(0.5, ode_min(0.9, rr));
update:
	/* Update the differences for the next step (order k of this step). */
	if (k != maxord)
		ode_copy(p->phi[kp2], p->e, n);
	for (size_t i = 0; i < n; i++)
		p->phi[kp1][i] += p->e[i];
	for (int j = kp1 - 1; j >= 1; j--)
		for (size_t i = 0; i < n; i++)
			p->phi[j][i] += p->phi[j + 1][i];
	p->h = ode_min(hnew, s->h_max);
}

static int dd_step(struct rths_ode *s, double tlim)
{
	struct dd *p = s->priv;
	size_t n = s->n;
	int ncf = 0, nef = 0, nsf = 0, rc;

	rc = ode_set_weights(s, s->y);
	if (rc)
		return rc;
	/* The step the error control asks for, before tlim cuts it. */
	if (ode_min(p->h, s->h_max) < ode_hmin(s, s->t))
		return -RTHS_E_HMIN;
	p->h = ode_limit_step(s, p->h, tlim);
	ode_newton_begin_step(s);
	for (;;) {
		struct dd_est r = { 0 };
		int k = p->k, kp1 = k + 1;
		double h, alphas = 0, alpha0 = 0, cj, ck;

		coefficients(p);
		h = p->h;
		for (int i = 1; i <= k; i++) {
			alphas -= 1.0 / i;
			alpha0 -= p->alpha[i];
		}
		if (p->variable) {
			cj = -alpha0 / h;
			ck = p->alpha[kp1];
		} else {
			cj = -alphas / h;
			ck = ode_max(fabs(p->alpha[kp1] + alphas - alpha0),
				     p->alpha[kp1]);
		}
		scale_phi(p, n, 0);
		for (size_t i = 0; i < n; i++) {
			double y = p->phi[1][i], yp = 0;

			for (int j = 2; j <= kp1; j++) {
				y += p->phi[j][i];
				yp += p->gamma[j] * p->phi[j][i];
			}
			p->ypred[i] = y;
			p->yppred[i] = yp;
		}
		rc = ode_newton_correct(s, s->t + h, p->ypred, p->yppred, cj,
					p->ynew, p->ypnew, p->e);
		if (rc < 0)
			return rc;
		if (rc == ODE_NEWTON_OK) {
			estimate(s, p, &r);
			double err = ck * ode_err_norm(s, p->e);

			if (err <= 1.0) {
				s->st.err_est_max = ode_max(s->st.err_est_max,
							    err);
				s->t += h;
				s->t = ode_snap_time(s->t, tlim);
				ode_copy(s->y, p->ynew, n);
				ode_copy(s->yp, p->ypnew, n);
				s->st.steps++;
				s->st.h_last = h;
				s->st.order_last = k;
				select_next(s, p, &r);
				s->st.h_next = p->h;
				return 0;
			}
		}
		/* Rejected: restore the history (DDASTP 600+). */
		p->iphase = 1;
		scale_phi(p, n, 1);
		for (int i = 2; i <= kp1; i++)
			p->psi[i - 1] = p->psi[i] - h;
		if (rc == ODE_NEWTON_SINGULAR) {
			if (++nsf >= 3)
				return -RTHS_E_SINGULAR;
			h *= 0.25;
		} else if (rc == ODE_NEWTON_NOCONV) {
			s->st.conv_fails++;
			if (++ncf >= 10)
				return s->nonfinite_seen ? -RTHS_E_NONFINITE
							 : -RTHS_E_NO_CONVERGENCE;
			h *= 0.25;
		} else {
			s->st.err_test_fails++;
			if (++nef >= 20)
				return -RTHS_E_ERRTEST;
			if (nef == 1) {
				double rr;

				p->k = r.knew;
				rr = 0.9 * pow(2 * r.est + 1e-4,
					       -1.0 / (p->k + 1));
				h *= ode_max(0.25, ode_min(0.9, rr));
			} else {
				p->k = nef == 2 ? r.knew : 1;
				h *= 0.25;
			}
		}
		p->h = h;
		if (h < ode_hmin(s, s->t))
			return -RTHS_E_HMIN;
	}
}

static void dd_interp(const struct rths_ode *s, double t, double *y,
		      double *yp)
{
	const struct dd *p = s->priv;
	double temp1 = t - s->t;

	for (size_t i = 0; i < s->n; i++) {
		double c = 1, d = 0, gam = temp1 / p->psi[1];
		double v = p->phi[1][i], dv = 0;

		for (int j = 2; j <= p->kold + 1; j++) {
			d = d * gam + c / p->psi[j - 1];
			c = c * gam;
			gam = (temp1 + p->psi[j - 1]) / p->psi[j];
			v += c * p->phi[j][i];
			dv += d * p->phi[j][i];
		}
		if (y)
			y[i] = v;
		if (yp)
			yp[i] = dv;
	}
}

const struct ode_ops ode_dstiff_ops = {
	.name = "dstiff",
	.implicit = 1,
	.default_order = 5,
	.max_order = DD_KMAX,
	.create = dstiff_create,
	.start = dd_start,
	.step = dd_step,
	.interp = dd_interp,
};

const struct ode_ops ode_wstiff_ops = {
	.name = "wstiff",
	.implicit = 1,
	.default_order = 5,
	.max_order = DD_KMAX,
	.create = wstiff_create,
	.start = dd_start,
	.step = dd_step,
	.interp = dd_interp,
};
