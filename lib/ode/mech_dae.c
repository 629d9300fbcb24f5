// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Constrained mechanical systems as implicit DAEs F(t, Y, Y') = 0 in the
 * I3, SI2, SI1 and I1 formulations (see rths/ode_mech.h).  The residual
 * is evaluated from the user's M, F, Phi, Phi_q (and Phi_t, gamma).
 */
#include <stdlib.h>

#include "la/la.h"
#include "mech_impl.h"
#include "ode_impl.h"

struct rths_ode_mech_dae {
	struct rths_ode_mech m;
	enum rths_ode_mech_form form;
	size_t nq, nc, n;
	struct rths_ode_system sys;
	unsigned char *no_err;
	double *M, *F, *G, *c, *gw;
};

const char *rths_ode_mech_form_name(enum rths_ode_mech_form form)
{
	switch (form) {
	case RTHS_ODE_MECH_I3:
		return "i3";
	case RTHS_ODE_MECH_SI2:
		return "si2";
	case RTHS_ODE_MECH_SI1:
		return "si1";
	case RTHS_ODE_MECH_I1:
		return "i1";
	}
	return "unknown";
}

static int stabilized(const struct rths_ode_mech_dae *d)
{
	return d->form == RTHS_ODE_MECH_SI2 || d->form == RTHS_ODE_MECH_SI1;
}

static int cb(int rc, const double *v, size_t n)
{
	if (rc)
		return -RTHS_E_CALLBACK;
	return ode_all_finite(v, n) ? 0 : -RTHS_E_NONFINITE;
}

/* r_i += sum_j G_ji x_j: the Phi_q^T x terms. */
static void add_gt(const struct rths_ode_mech_dae *d, const double *x,
		   double *r)
{
	for (size_t j = 0; j < d->nc; j++)
		for (size_t i = 0; i < d->nq; i++)
			r[i] += LA_AT(d->G, d->nc, j, i) * x[j];
}

static int mech_res(double t, const double *Y, const double *Yp, double *R,
		    void *params)
{
	struct rths_ode_mech_dae *d = params;
	const struct rths_ode_mech *m = &d->m;
	size_t nq = d->nq, nc = d->nc;
	const double *q = Y, *v = Y + nq, *qp = Yp, *vp = Yp + nq;
	const double *lam, *mu = NULL;
	double *r1 = R, *r2 = R + nq, *r3 = R + 2 * nq, *r4 = r3 + nc;
	int rc;

	/* SI1 integrates the multipliers: they appear as derivatives. */
	lam = d->form == RTHS_ODE_MECH_SI1 ? Yp + 2 * nq : Y + 2 * nq;
	if (d->form == RTHS_ODE_MECH_SI2)
		mu = Y + 2 * nq + nc;
	else if (d->form == RTHS_ODE_MECH_SI1)
		mu = Yp + 2 * nq + nc;

	rc = ode_mech_mass(m, t, q, d->M);
	if (!rc)
		rc = cb(m->force(t, q, v, d->F, m->params), d->F, nq);
	if (!rc && nc)
		rc = ode_mech_phi_q(m, t, q, d->G);
	if (rc)
		return rc;

	for (size_t i = 0; i < nq; i++) {
		double s = -d->F[i];

		r1[i] = qp[i] - v[i];
		for (size_t j = 0; j < nq; j++)
			s += LA_AT(d->M, nq, i, j) * vp[j];
		r2[i] = s;
	}
	add_gt(d, lam, r2);
	if (mu)
		add_gt(d, mu, r1);
	if (!nc)
		return 0;

	if (d->form == RTHS_ODE_MECH_I1) {
		rc = ode_mech_gamma(m, t, q, v, d->c, d->gw);
		if (rc)
			return rc;
		for (size_t i = 0; i < nc; i++) {
			double s = -d->c[i];

			for (size_t j = 0; j < nq; j++)
				s += LA_AT(d->G, nc, i, j) * vp[j];
			r3[i] = s;
		}
		return 0;
	}
	rc = cb(m->phi(t, q, r3, m->params), r3, nc);
	if (rc || !stabilized(d))
		return rc;
	return ode_mech_velocity_constraint(m, t, q, d->G, v, r4);
}

int rths_ode_mech_dae_new(const struct rths_ode_mech *m,
			  enum rths_ode_mech_form form,
			  struct rths_ode_mech_dae **out)
{
	struct rths_ode_mech_dae *d;
	size_t nq, nc;

	if (!out)
		return -EINVAL;
	*out = NULL;
	if (!m || !m->nq || !m->mass || !m->force ||
	    (m->nc && (!m->phi || !m->phi_q)) ||
	    (unsigned int)form > RTHS_ODE_MECH_I1)
		return -EINVAL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	nq = m->nq;
	nc = m->nc;
	d->m = *m;
	d->form = form;
	d->nq = nq;
	d->nc = nc;
	d->n = 2 * nq + (stabilized(d) ? 2 * nc : nc);
	d->no_err = calloc(d->n, 1);
	d->M = ode_zalloc(nq * nq);
	d->F = ode_zalloc(nq);
	d->G = ode_zalloc(nc * nq);
	d->c = ode_zalloc(nc);
	d->gw = ode_zalloc(2 * nq + nq * nc + 2 * nc);
	if (!d->no_err || !d->M || !d->F || !d->G || !d->c || !d->gw) {
		rths_ode_mech_dae_free(d);
		return -ENOMEM;
	}
	/*
	 * Multipliers stay out of the error test: of index 2 and 3 in SI2
	 * and I3, and in I1 a function of v' (the BDF derivative), whose
	 * error is a derivative's, an order below that of y.  Tested, the
	 * I1 lambda left by a step of one size is not the one a much smaller
	 * step computes, so that after a rejection no step passed (GSTIFF
	 * failed with RTHS_E_ERRTEST at 1e-3, 1e-8 and 1e-10).  SI1 integrates
	 * them (eta' = lambda): eta and xi are tested.  The index (2, 3)
	 * lets the corrector allow for the rounding of its 1/h^(index-1)
	 * conditioning (see ode_newton_norm()).
	 */
	for (size_t i = 2 * nq; i < d->n; i++)
		d->no_err[i] = form == RTHS_ODE_MECH_I3 ? 3 :
			       form == RTHS_ODE_MECH_SI2 ? 2 :
			       form == RTHS_ODE_MECH_I1;
	if (form == RTHS_ODE_MECH_I3)
		for (size_t i = nq; i < 2 * nq; i++)
			d->no_err[i] = 2;
	d->sys = (struct rths_ode_system){
		.dim = d->n,
		.res = mech_res,
		.no_error_test = d->no_err,
		.params = d,
	};
	*out = d;
	return 0;
}

void rths_ode_mech_dae_free(struct rths_ode_mech_dae *d)
{
	if (!d)
		return;
	free(d->no_err);
	free(d->M);
	free(d->F);
	free(d->G);
	free(d->c);
	free(d->gw);
	free(d);
}

const struct rths_ode_system *
rths_ode_mech_dae_system(const struct rths_ode_mech_dae *d)
{
	return d ? &d->sys : NULL;
}

int rths_ode_mech_dae_initial(struct rths_ode_mech_dae *d, double t,
			      const double *q, const double *v, double *Y,
			      double *Yp)
{
	size_t nq;
	double *lam;

	if (!d || !q || !v || !Y || !Yp)
		return -EINVAL;
	nq = d->nq;
	for (size_t i = 0; i < d->n; i++)
		Y[i] = Yp[i] = 0;
	ode_copy(Y, q, nq);
	ode_copy(Y + nq, v, nq);
	ode_copy(Yp, v, nq);
	lam = d->form == RTHS_ODE_MECH_SI1 ? Yp + 2 * nq : Y + 2 * nq;
	return rths_ode_mech_accel(&d->m, t, q, v, Yp + nq, lam);
}

void rths_ode_mech_dae_unpack(const struct rths_ode_mech_dae *d,
			      const double *Y, const double *Yp, double *q,
			      double *v, double *lambda)
{
	size_t nq = d->nq;

	if (q)
		ode_copy(q, Y, nq);
	if (v)
		ode_copy(v, Y + nq, nq);
	if (lambda) {
		const double *src = d->form == RTHS_ODE_MECH_SI1 ? Yp : Y;

		if (src)
			ode_copy(lambda, src + 2 * nq, d->nc);
	}
}
