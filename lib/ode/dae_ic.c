// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Initial conditions of implicit DAEs F(t, y, y') = 0: the consistency
 * check rths_ode_init() makes, and rths_ode_calc_ic(), which computes a
 * consistent start after IDA's IDACalcIC.
 *
 * Both measure a residual by the correction it asks for, in the units of
 * y and against the tolerances: a residual has the units of its equation,
 * which need not be those of any one variable.  For the check that is
 * the first Newton correction of a step of the starting size h, cj = 1/h:
 * a violated constraint moves y by about its violation, a wrong y'
 * moves y by h times its error, which is what it would cost the first
 * step.  rths_ode_calc_ic() weighs its corrections the same way: y for
 * algebraic components, h y' for differential ones.
 */
#include <math.h>
#include <stdlib.h>

#include "la/la.h"
#include "ode_impl.h"

#define IC_MAX_ITERS 10
/* Newton converged: corrections a thousandth of the tolerances */
#define IC_NEWTON_TOL 1e-3

/* The starting step of a DAE for y' (DASSL's rule, span unknown). */
static double ic_step(const struct rths_ode *s, const double *yp)
{
	double h = 1e-3, ypn = ode_err_norm(s, yp);

	if (ypn > 0.5 / h)
		h = 0.5 / ypn;
	if (s->ctl.h_init > 0)
		h = ode_min(h, s->ctl.h_init);
	return ode_min(h, s->h_max);
}

int ode_dae_check_ic(struct rths_ode *s)
{
	/* the solver's own scratch: a restart allocates nothing */
	double *r = s->ic_res, h;
	int rc;

	h = ic_step(s, s->yp);
	rc = ode_res(s, s->t, s->y, s->yp, r);
	if (!rc)
		rc = ode_newton_ic_correction(s, s->t, 1.0 / h, r);
	if (rc == ODE_NEWTON_SINGULAR) {
		/* nothing to measure with: the first step will say so */
		ode_newton_reset(s);
		rc = 0;
	} else if (!rc) {
		s->st.ic_norm = ode_newton_norm(s, r, s->y, 1.0 / h);
		/* strict first: only a start that fails pays for the floor */
		if (!(s->st.ic_norm <= 1.0) && s->nw_floor) {
			ode_newton_ic_floor(s);
			s->st.ic_norm = ode_newton_norm(s, r, s->y, 1.0 / h);
		}
		if (!(s->st.ic_norm <= 1.0))
			rc = -RTHS_E_INCONSISTENT;
	}
	return rc;
}

int rths_ode_calc_ic(struct rths_ode *s, double t0,
		     const unsigned char *algebraic, double *y, double *yp)
{
	size_t n;
	double *M = NULL, *r = NULL, h;
	struct rths_mat A = { 0 }, B = { 0 };
	int rc, bid;

	if (!s || !y || !yp)
		return -EINVAL;
	if (!s->dae)
		return -EINVAL;
	n = s->n;
	if (!isfinite(t0) || !ode_all_finite(y, n) || !ode_all_finite(yp, n))
		return -RTHS_E_NONFINITE;
	rc = ode_set_weights(s, y);
	if (rc)
		return rc;
	A = la_dense(n, n, ode_zalloc(n * n));
	B = la_dense(n, n, ode_zalloc(n * n));
	M = ode_zalloc(n * n);
	r = ode_zalloc(n);
	if (!A.data || !B.data || !M || !r) {
		rc = -ENOMEM;
		goto out;
	}
	h = ic_step(s, yp);
	rc = -RTHS_E_INCONSISTENT;
	for (int it = 0; it < IC_MAX_ITERS; it++) {
		double sum = 0;
		int r2;

		r2 = ode_res(s, t0, y, yp, r);
		if (!r2)
			r2 = ode_jacobian(s, t0, y, yp, r, h, &A, &B, &bid);
		if (r2) {
			rc = r2;
			goto out;
		}
		/* unknowns: y_j (algebraic) or y'_j (differential) */
		for (size_t j = 0; j < n; j++)
			for (size_t i = 0; i < n; i++)
				LA_AT(M, n, i, j) = algebraic && algebraic[j] ?
						    RTHS_MAT(&A, i, j) :
						    RTHS_MAT(&B, i, j);
		if (la_solve(n, M, r, 1)) {
			rc = -RTHS_E_SINGULAR;
			goto out;
		}
		for (size_t j = 0; j < n; j++) {
			double w = algebraic && algebraic[j] ? 1 : h;
			double x = w * r[j] * s->ewt[j];

			if (algebraic && algebraic[j])
				y[j] -= r[j];
			else
				yp[j] -= r[j];
			sum += x * x;
		}
		if (!ode_all_finite(y, n) || !ode_all_finite(yp, n))
			break;		/* diverged */
		if (sqrt(sum / (double)n) <= IC_NEWTON_TOL) {
			rc = 0;
			break;
		}
	}
out:
	free(A.data);
	free(B.data);
	free(M);
	free(r);
	return rc;
}
