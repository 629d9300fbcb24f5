// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Adams-Bashforth-Moulton in PECE mode, variable order 1..12 and variable
 * step, after Shampine and Gordon's STEP and INTRP ("Computer Solution of
 * Ordinary Differential Equations", 1975).
 *
 * phi_j holds modified divided differences of f; the coefficients g are
 * recomputed from the actual step history (psi_j = t_{n+1} - t_{n+1-j}),
 * so step changes cost no accuracy.  Each step predicts with Adams-
 * Bashforth of order k, evaluates, corrects with Adams-Moulton of order
 * k+1 and evaluates again (two f calls).  The local error is estimated at
 * orders k-2..k+1 to choose the next order; the first phase raises the
 * order and doubles the step until the error says stop.  Rounding errors
 * are propagated separately (phi_15, phi_16) when the tolerance is close
 * to machine precision.
 *
 * Norms are the weighted RMS norm of the other methods, the tolerance is
 * 1 in that norm.
 */
#include <math.h>
#include <stdlib.h>

#include "ode_impl.h"

#define ABAM_KMAX 12

struct abam {
	double *phi[17];	/* 1-based, 1..16 */
	double *p, *ypp;	/* predicted y, f at the prediction */
	double psi[ABAM_KMAX + 2], alpha[ABAM_KMAX + 2], beta[ABAM_KMAX + 2];
	double sig[ABAM_KMAX + 3], v[ABAM_KMAX + 2], w[ABAM_KMAX + 2];
	double g[ABAM_KMAX + 3];
	double h, hold;
	int k, kold, ns, phase1, nornd;
};

/* 1-based; gstr[k] ~ |gamma*_k| scaled, two[k] = 2^k */
static const double gstr[ABAM_KMAX + 2] = {
	0, 0.500, 0.0833, 0.0417, 0.0264, 0.0188, 0.0143, 0.0114,
	0.00936, 0.00789, 0.00679, 0.00592, 0.00524, 0.00468,
};

static int abam_create(struct rths_ode *s)
{
	struct abam *p = ode_priv(s, sizeof(*p));

	if (!p)
		return -ENOMEM;
	for (int j = 1; j <= 16; j++)
		p->phi[j] = ode_vec(s, s->n);
	if (ODE_VECS(s, s->n, &p->p, &p->ypp))
		return -ENOMEM;
	/* constants of the recurrences */
	p->g[1] = 1.0;
	p->g[2] = 0.5;
	p->sig[1] = 1.0;
	return 0;
}


static double fouru(const struct rths_ode *s)
{
	return ode_max(4 * ODE_UROUND * fabs(s->t), s->ctl.h_min);
}

/* STEP block 0, first call: history and starting step. */
static int abam_start(struct rths_ode *s, double thint)
{
	struct abam *p = s->priv;
	size_t n = s->n;
	double sum, absh, round;
	int rc;

	rc = ode_set_weights(s, s->y);
	if (rc)
		return rc;
	if (s->ctl.h_init > 0)
		absh = s->ctl.h_init;
	else if (isfinite(thint))
		absh = thint - s->t;
	else if ((rc = ode_initial_step(s, thint, 1, &absh)))
		return rc;
	absh = ode_min(absh, s->h_max);
	for (size_t i = 0; i < n; i++) {
		p->phi[1][i] = s->yp[i];
		p->phi[2][i] = 0;
	}
	sum = ode_err_norm(s, s->yp);
	if (s->ctl.h_init <= 0 && 1.0 < 16.0 * sum * absh * absh)
		absh = 0.25 * sqrt(1.0 / sum);
	p->h = ode_max(absh, fouru(s));
	p->hold = 0;
	p->k = 1;
	p->kold = 0;
	p->ns = 0;
	p->phase1 = 1;
	p->nornd = 1;
	round = 2 * ODE_UROUND * ode_err_norm(s, s->y);
	if (0.5 <= 100.0 * round) {
		p->nornd = 0;
		for (size_t i = 0; i < n; i++)
			p->phi[15][i] = 0;
	}
	return 0;
}

/* STEP block 1: coefficients for this step. */
static void coefficients(struct abam *p)
{
	int k = p->k, kp1 = k + 1, kp2 = k + 2, nsp1;

	if (p->h != p->hold)
		p->ns = 0;
	if (p->ns <= p->kold)
		p->ns++;
	nsp1 = p->ns + 1;
	if (k < p->ns)
		return;
	p->beta[p->ns] = 1;
	p->alpha[p->ns] = 1.0 / p->ns;
	double temp1 = p->h * p->ns;

	p->sig[nsp1] = 1;
	for (int i = nsp1; i <= k; i++) {
		double temp2 = p->psi[i - 1];

		p->psi[i - 1] = temp1;
		p->beta[i] = p->beta[i - 1] * p->psi[i - 1] / temp2;
		temp1 = temp2 + p->h;
		p->alpha[i] = p->h / temp1;
		p->sig[i + 1] = i * p->alpha[i] * p->sig[i];
	}
	p->psi[k] = temp1;

	if (p->ns <= 1) {
		for (int iq = 1; iq <= k; iq++) {
			p->v[iq] = 1.0 / (iq * (iq + 1));
			p->w[iq] = p->v[iq];
		}
	} else {
		if (k > p->kold) {
			p->v[k] = 1.0 / (k * kp1);
			for (int j = 1; j <= p->ns - 2; j++) {
				int i = k - j;

				p->v[i] -= p->alpha[j + 1] * p->v[i + 1];
			}
		}
		for (int iq = 1; iq <= kp1 - p->ns; iq++) {
			p->v[iq] -= p->alpha[p->ns] * p->v[iq + 1];
			p->w[iq] = p->v[iq];
		}
		p->g[nsp1] = p->w[1];
	}
	for (int i = p->ns + 2; i <= kp1; i++) {
		double temp6 = p->alpha[i - 1];

		for (int iq = 1; iq <= kp2 - i; iq++)
			p->w[iq] -= temp6 * p->w[iq + 1];
		p->g[i] = p->w[1];
	}
}

struct abam_err {
	double erk, erkm1, erkm2, err;
	int knew;
};

/* STEP block 2: predict, evaluate, estimate errors. */
static int predict(struct rths_ode *s, struct abam *p, struct abam_err *r)
{
	size_t n = s->n;
	int k = p->k, kp1 = k + 1, kp2 = k + 2, km1 = k - 1, km2 = k - 2;
	double absh = fabs(p->h), erk = 0, erkm1 = 0, erkm2 = 0;
	int rc;

	for (int i = p->ns + 1; i <= k; i++)
		for (size_t l = 0; l < n; l++)
			p->phi[i][l] *= p->beta[i];
	for (size_t l = 0; l < n; l++) {
		p->phi[kp2][l] = p->phi[kp1][l];
		p->phi[kp1][l] = 0;
		p->p[l] = 0;
	}
	for (int j = 1; j <= k; j++) {
		int i = kp1 - j;

		for (size_t l = 0; l < n; l++) {
			p->p[l] += p->g[i] * p->phi[i][l];
			p->phi[i][l] += p->phi[i + 1][l];
		}
	}
	if (p->nornd) {
		for (size_t l = 0; l < n; l++)
			p->p[l] = s->y[l] + p->h * p->p[l];
	} else {
		for (size_t l = 0; l < n; l++) {
			double tau = p->h * p->p[l] - p->phi[15][l];

			p->p[l] = s->y[l] + tau;
			p->phi[16][l] = (p->p[l] - s->y[l]) - tau;
		}
	}
	rc = ode_rhs(s, s->t + p->h, p->p, p->ypp);
	if (rc)
		return rc;
	for (size_t l = 0; l < n; l++) {
		double w = s->ewt[l], t4 = p->ypp[l] - p->phi[1][l];

		if (km2 > 0)
			erkm2 += ((p->phi[km1][l] + t4) * w) *
				 ((p->phi[km1][l] + t4) * w);
		if (km2 >= 0)
			erkm1 += ((p->phi[k][l] + t4) * w) *
				 ((p->phi[k][l] + t4) * w);
		erk += (t4 * w) * (t4 * w);
	}
	/* RMS instead of Shampine-Gordon's 2-norm */
	erk /= (double)n;
	erkm1 /= (double)n;
	erkm2 /= (double)n;
	if (km2 > 0)
		erkm2 = absh * p->sig[km1] * gstr[km2] * sqrt(erkm2);
	if (km2 >= 0)
		erkm1 = absh * p->sig[k] * gstr[km1] * sqrt(erkm1);
	double temp5 = absh * sqrt(erk);

	r->err = temp5 * (p->g[k] - p->g[kp1]);
	r->erk = temp5 * p->sig[kp1] * gstr[k];
	r->erkm1 = erkm1;
	r->erkm2 = erkm2;
	r->knew = k;
	if (km2 > 0) {
		if (ode_max(erkm1, erkm2) <= r->erk)
			r->knew = km1;
	} else if (km2 == 0) {
		if (erkm1 <= 0.5 * r->erk)
			r->knew = km1;
	}
	return 0;
}

/* STEP block 3: undo the prediction after a failed error test. */
static void restore(struct rths_ode *s, struct abam *p)
{
	size_t n = s->n;
	int k = p->k;

	for (int i = 1; i <= k; i++) {
		double temp1 = 1.0 / p->beta[i];

		for (size_t l = 0; l < n; l++)
			p->phi[i][l] = temp1 * (p->phi[i][l] - p->phi[i + 1][l]);
	}
	for (int i = 2; i <= k; i++)
		p->psi[i - 1] = p->psi[i] - p->h;
}

/* STEP block 4: correct, evaluate, choose order and step. */
static int correct(struct rths_ode *s, struct abam *p,
		   const struct abam_err *r, double tlim)
{
	size_t n = s->n;
	int k = p->k, kp1 = k + 1, kp2 = k + 2, km1 = k - 1;
	double absh = fabs(p->h), temp1 = p->h * p->g[kp1];
	double erk = r->erk, erkp1 = 0, hnew;
	int rc;

	p->kold = k;
	p->hold = p->h;
	if (p->nornd) {
		for (size_t l = 0; l < n; l++)
			s->y[l] = p->p[l] + temp1 * (p->ypp[l] - p->phi[1][l]);
	} else {
		for (size_t l = 0; l < n; l++) {
			double rho = temp1 * (p->ypp[l] - p->phi[1][l]) -
				     p->phi[16][l];

			s->y[l] = p->p[l] + rho;
			p->phi[15][l] = (s->y[l] - p->p[l]) - rho;
		}
	}
	s->t += p->h;
	s->t = ode_snap_time(s->t, tlim);
	rc = ode_rhs(s, s->t, s->y, s->yp);
	if (rc)
		return rc;
	for (size_t l = 0; l < n; l++) {
		p->phi[kp1][l] = s->yp[l] - p->phi[1][l];
		p->phi[kp2][l] = p->phi[kp1][l] - p->phi[kp2][l];
	}
	for (int i = 1; i <= k; i++)
		for (size_t l = 0; l < n; l++)
			p->phi[i][l] += p->phi[kp1][l];

	if (r->knew == km1 || k == s->max_order)
		p->phase1 = 0;
	if (p->phase1) {
		p->k = kp1;
		erk = 0;
	} else if (r->knew == km1) {
		p->k = km1;
		erk = r->erkm1;
	} else if (kp1 <= p->ns) {
		double sum = 0;

		for (size_t l = 0; l < n; l++) {
			double x = p->phi[kp2][l] * s->ewt[l];

			sum += x * x;
		}
		erkp1 = absh * gstr[kp1] * sqrt(sum / (double)n);
		if (k > 1) {
			if (r->erkm1 <= ode_min(r->erk, erkp1)) {
				p->k = km1;
				erk = r->erkm1;
			} else if (erkp1 < r->erk && k < s->max_order) {
				p->k = kp1;
				erk = erkp1;
			}
		} else if (erkp1 < 0.5 * r->erk && k < s->max_order) {
			p->k = kp1;
			erk = erkp1;
		}
	}
	/* With the new order, the step for the next one. */
	hnew = p->h + p->h;
	if (!p->phase1 && 0.5 < erk * ldexp(1.0, p->k + 1)) {
		hnew = p->h;
		if (0.5 < erk) {
			double rr = pow(0.5 / erk, 1.0 / (p->k + 1));

			hnew = absh * ode_max(0.5, ode_min(0.9, rr));
			hnew = ode_max(hnew, fouru(s));
		}
	}
	p->h = hnew;
	s->st.steps++;
	s->st.h_last = absh;
	s->st.order_last = k;
	s->st.h_next = hnew;
	return 0;
}

static int abam_step(struct rths_ode *s, double tlim)
{
	struct abam *p = s->priv;
	int ifail = 0, rc;
	double hlim;

	rc = ode_set_weights(s, s->y);
	if (rc)
		return rc;
	if (2 * ODE_UROUND * ode_err_norm(s, s->y) > 0.5)
		return -RTHS_E_TOLERANCE;
	if (p->h < fouru(s))
		return -RTHS_E_HMIN;
	hlim = ode_limit_step(s, p->h, tlim);
	if (hlim < p->h)
		p->h = hlim;
	for (;;) {
		struct abam_err r;

		coefficients(p);
		rc = predict(s, p, &r);
		if (rc)
			return rc;
		if (r.err <= 1.0) {
			s->st.err_est_max = ode_max(s->st.err_est_max, r.err);
			return correct(s, p, &r, tlim);
		}
		/* Failed: restore; third failure drops to order 1, later
		 * ones take the step the error estimate suggests. */
		s->st.err_test_fails++;
		p->phase1 = 0;
		restore(s, p);
		ifail++;
		double temp2 = 0.5;

		if (ifail > 3 && 0.5 < 0.25 * r.erk)
			temp2 = sqrt(0.5 / r.erk);
		if (ifail >= 3)
			r.knew = 1;
		p->h *= temp2;
		p->k = r.knew;
		if (p->h < fouru(s))
			return -RTHS_E_HMIN;
		if (ifail > 60)
			return -RTHS_E_ERRTEST;
	}
}

/* INTRP: the Adams polynomial at t within the last step. */
static void abam_interp(const struct rths_ode *s, double t, double *y,
			double *yp)
{
	const struct abam *p = s->priv;
	double g[ABAM_KMAX + 3], rho[ABAM_KMAX + 3], w[ABAM_KMAX + 3];
	double hi = t - s->t, term = 0;
	int ki = p->kold + 1, kip1 = ki + 1;

	g[1] = 1;
	rho[1] = 1;
	for (int i = 1; i <= ki; i++)
		w[i] = 1.0 / i;
	for (int j = 2; j <= ki; j++) {
		double psijm1 = p->psi[j - 1];
		double gamma = (hi + term) / psijm1, eta = hi / psijm1;

		for (int i = 1; i <= kip1 - j; i++)
			w[i] = gamma * w[i] - eta * w[i + 1];
		g[j] = w[1];
		rho[j] = gamma * rho[j - 1];
		term = psijm1;
	}
	for (size_t l = 0; l < s->n; l++) {
		double sy = 0, syp = 0;

		for (int j = 1; j <= ki; j++) {
			int i = kip1 - j;

			sy += g[i] * p->phi[i][l];
			syp += rho[i] * p->phi[i][l];
		}
		if (y)
			y[l] = s->y[l] + hi * sy;
		if (yp)
			yp[l] = syp;
	}
}

const struct ode_ops ode_abam_ops = {
	.name = "abam",
	.implicit = 0,
	.default_order = ABAM_KMAX,
	.max_order = ABAM_KMAX,
	.create = abam_create,
	.start = abam_start,
	.step = abam_step,
	.interp = abam_interp,
};
