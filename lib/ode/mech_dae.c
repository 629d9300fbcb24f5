// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Constrained mechanical systems as implicit DAEs F(t, Y, Y') = 0 in the
 * I3, SI2, SI1 and I1 formulations (see rths/ode_mech.h).  The residual
 * is evaluated from the user's M, F, Phi, Phi_q (and Phi_t, gamma).
 */
#include <math.h>
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
	double *jw;		/* Jacobian scratch: Y, R0, R1, M, G */
	struct ode_mech_work ws;	/* rths_ode_mech_dae_initial() */
	struct rths_owned mem;	/* no_err and the arrays */
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

static double block_max(const double *v, size_t n)
{
	double m = 0;

	for (size_t i = 0; i < n; i++)
		m = ode_max(m, fabs(v[i]));
	return m;
}

/*
 * dF/dY and dF/dY'.  Differences only in q and v (the force's, the mass
 * matrix's and Phi_q^T lambda's derivatives), each by sqrt(u) of the
 * largest entry of its block: the solver's increment, sqrt(u) of the
 * component or of its tolerance, is 1e-13 for a coordinate near zero at
 * 1e-5, and the rounding of Phi (of size |q|^2) divided by it made the
 * constraint row wrong by 1e-3; an I3 iteration matrix amplifies that by
 * 1/h^2.  The rest is exact: Phi_q where the constraints are differentiated
 * (positions, velocities in SI2/SI1, accelerations in I1), Phi_q^T where
 * the multipliers enter, M and the identity on the derivatives.  From rest
 * at the horizontal WSTIFF and DSTIFF failed Newton at order 1 step after
 * step (1059 steps at 1e-5 where GSTIFF took 122).
 */
static int mech_resjac(double t, const double *Y, const double *Yp,
		       struct rths_mat *A, struct rths_mat *B, void *params)
{
	struct rths_ode_mech_dae *d = params;
	size_t nq = d->nq, nc = d->nc, n = d->n;
	double *Yw = d->jw, *R0 = Yw + n, *R1 = R0 + n, *Ms = R1 + n;
	double *Gs = Ms + nq * nq;
	double scale[2] = { block_max(Y, nq), block_max(Y + nq, nq) };
	enum rths_ode_mech_form f = d->form;
	int rc = mech_res(t, Y, Yp, R0, d);

	if (rc)
		return rc;
	ode_copy(Ms, d->M, nq * nq);
	ode_copy(Gs, d->G, nc * nq);
	ode_copy(Yw, Y, n);
	for (size_t j = 0; j < 2 * nq; j++) {
		double sc = ode_max(fabs(Y[j]), scale[j >= nq]);
		double del = sqrt(ODE_UROUND) * (sc > 0 ? sc : 1.0);

		Yw[j] = Y[j] + del;
		del = Yw[j] - Y[j];
		rc = mech_res(t, Yw, Yp, R1, d);
		Yw[j] = Y[j];
		if (rc)
			return rc;
		for (size_t i = 0; i < n; i++)
			RTHS_MAT(A, i, j) = (R1[i] - R0[i]) / del;
	}
	for (size_t i = 0; i < nq; i++) {
		RTHS_MAT(B, i, i) = 1;
		for (size_t j = 0; j < nq; j++)
			RTHS_MAT(B, nq + i, nq + j) = LA_AT(Ms, nq, i, j);
	}
	for (size_t k = 0; k < nc; k++) {
		size_t lk = 2 * nq + k, mk = lk + nc;

		for (size_t i = 0; i < nq; i++) {
			double g = LA_AT(Gs, nc, k, i);

			if (f == RTHS_ODE_MECH_SI1) {
				RTHS_MAT(B, nq + i, lk) = g;
				RTHS_MAT(B, i, mk) = g;
			} else {
				RTHS_MAT(A, nq + i, lk) = g;
			}
			if (f == RTHS_ODE_MECH_SI2)
				RTHS_MAT(A, i, mk) = g;
			if (f == RTHS_ODE_MECH_I1) {
				RTHS_MAT(B, lk, nq + i) = g;
				continue;
			}
			RTHS_MAT(A, lk, i) = g;
			if (stabilized(d))
				RTHS_MAT(A, mk, nq + i) = g;
		}
	}
	return 0;
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
	d->no_err = rths_owned_zalloc(&d->mem, d->n, 1);
	d->M = rths_owned_doubles(&d->mem, nq * nq);
	d->F = rths_owned_doubles(&d->mem, nq);
	d->G = rths_owned_doubles(&d->mem, nc * nq);
	d->c = rths_owned_doubles(&d->mem, nc);
	d->gw = rths_owned_doubles(&d->mem, 2 * nq + nq * nc + 2 * nc);
	d->jw = rths_owned_doubles(&d->mem, 3 * d->n + nq * nq + nc * nq);
	if (d->mem.failed || ode_mech_work_init(&d->ws, nq, nc)) {
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
		.resjac = mech_resjac,
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
	ode_mech_work_fini(&d->ws);
	rths_owned_free(&d->mem);
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
	/* its own workspace: a restart every step allocates nothing */
	return ode_mech_accel_w(&d->m, t, q, v, Yp + nq, lam, &d->ws);
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
