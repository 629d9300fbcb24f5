// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Calls into the user's system: every evaluation is counted, and a
 * callback that fails or returns a non-finite value is reported with its
 * own error code instead of travelling on as a NaN.  Finite-difference
 * Jacobians live here too, since they are just more evaluations.
 */
#include <math.h>
#include <stdlib.h>

#include "ode_impl.h"

int ode_all_finite(const double *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isfinite(v[i]))
			return 0;
	return 1;
}

double *ode_zalloc(size_t n)
{
	return calloc(n ? n : 1, sizeof(double));
}

double *ode_vec(struct rths_ode *s, size_t n)
{
	return rths_owned_doubles(&s->mem, n);
}

int ode_vecs(struct rths_ode *s, size_t n, double **const *v, size_t count)
{
	for (size_t i = 0; i < count; i++)
		*v[i] = ode_vec(s, n);
	return s->mem.failed ? -ENOMEM : 0;
}

void *ode_priv(struct rths_ode *s, size_t size)
{
	s->priv = rths_owned_zalloc(&s->mem, 1, size);
	return s->priv;
}

int ode_rhs(struct rths_ode *s, double t, const double *y, double *f)
{
	s->st.f_evals++;
	if (s->sys.rhs(t, y, f, s->sys.params))
		return -RTHS_E_CALLBACK;
	return ode_all_finite(f, s->n) ? 0 : -RTHS_E_NONFINITE;
}

int ode_res(struct rths_ode *s, double t, const double *y, const double *yp,
	    double *r)
{
	size_t n = s->n;

	if (s->dae) {
		int rc;

		s->st.f_evals++;
		rc = s->sys.res(t, y, yp, r, s->sys.params);
		/* the mechanical systems (mech_dae.c) check the user's
		 * functions and say which failed */
		if (rc)
			return rc == -RTHS_E_NONFINITE ? rc : -RTHS_E_CALLBACK;
		return ode_all_finite(r, n) ? 0 : -RTHS_E_NONFINITE;
	}
	int rc = ode_rhs(s, t, y, r);

	if (rc)
		return rc;
	for (size_t i = 0; i < n; i++)
		r[i] = yp[i] - r[i];
	return 0;
}

/*
 * Increment for column j of dF/dy.  An ODE's: sqrt(u) relative to the
 * size of y_j or of its tolerance, whichever is larger.  A DAE's, as
 * IDA's: sqrt(u) of the larger of |y_j| and |h y'_j|, but at least the
 * tolerance itself, with the sign of h y'_j.  sqrt(u) of the tolerance
 * (DASSL's floor) was too small to change a residual of size 1: Robertson
 * written as a DAE (y1 + y2 + y3 = 1) moved y3, which starts at zero, by
 * 1.5e-17 at rtol 1e-9, the constraint's residual did not change in
 * floating point, and GSTIFF, WSTIFF and DSTIFF failed at t = 0 from
 * rtol 1e-9 on (issue 23).  The derivatives' increment stays sqrt(u)
 * max(|y'_j|, 1).
 */
static double fd_delta(const struct rths_ode *s, double v, double vp,
		       size_t j, double h)
{
	double scale = fabs(v);

	if (s->dae) {
		double d = ode_max(sqrt(ODE_UROUND) *
				   ode_max(scale, fabs(h * vp)),
				   1.0 / s->ewt[j]);

		return h * vp < 0 ? -d : d;
	}
	if (s->ewt[j] > 0)
		scale = ode_max(scale, 1.0 / s->ewt[j]);
	if (scale == 0)
		scale = 1.0;
	return sqrt(ODE_UROUND) * scale;
}

/* Column-by-column differences of F in y (which = 0) or in y' (1). */
static int fd_columns(struct rths_ode *s, double t, const double *y,
		      const double *yp, const double *r0, double h,
		      struct rths_mat *M, int which)
{
	size_t n = s->n;
	double *yy = s->fd_work, *rr = s->fd_work + n;
	double *ypp = s->fd_work + 2 * n;
	int rc;

	ode_copy(yy, y, n);
	ode_copy(ypp, yp, n);
	for (size_t j = 0; j < n; j++) {
		double *v = which ? &ypp[j] : &yy[j];
		double save = *v;
		double d = which ? sqrt(ODE_UROUND) * ode_max(fabs(save), 1.0)
				 : fd_delta(s, save, yp[j], j, h);

		*v = save + d;
		d = *v - save;	/* the increment actually represented */
		s->st.f_evals_jac++;
		rc = ode_res(s, t, yy, ypp, rr);
		*v = save;
		if (rc)
			return rc;
		for (size_t i = 0; i < n; i++)
			RTHS_MAT(M, i, j) = (rr[i] - r0[i]) / d;
	}
	return 0;
}

/* A callback's matrix: dense n x n, zeroed before the call. */
static void mat_zero(struct rths_mat *M)
{
	for (size_t j = 0; j < M->cols; j++)
		for (size_t i = 0; i < M->rows; i++)
			RTHS_MAT(M, i, j) = 0;
}

static int mat_finite(const struct rths_mat *M)
{
	for (size_t j = 0; j < M->cols; j++)
		if (!ode_all_finite(&RTHS_MAT(M, 0, j), M->rows))
			return 0;
	return 1;
}

int ode_jacobian(struct rths_ode *s, double t, const double *y,
		 const double *yp, const double *r0, double h,
		 struct rths_mat *A, struct rths_mat *B, int *b_identity)
{
	size_t n = s->n;
	double *rbase = s->fd_work + 3 * n;
	int rc;

	s->st.jac_evals++;
	*b_identity = !s->dae;
	if (!s->dae && s->sys.jac) {
		mat_zero(A);
		if (s->sys.jac(t, y, A, s->sys.params))
			return -RTHS_E_CALLBACK;
		if (!mat_finite(A))
			return -RTHS_E_NONFINITE;
		for (size_t j = 0; j < n; j++)
			for (size_t i = 0; i < n; i++)
				RTHS_MAT(A, i, j) = -RTHS_MAT(A, i, j);
		return 0;
	}
	if (s->dae && s->sys.resjac) {
		mat_zero(A);
		mat_zero(B);
		rc = s->sys.resjac(t, y, yp, A, B, s->sys.params);
		/* as in ode_res() */
		if (rc)
			return rc == -RTHS_E_NONFINITE ? rc : -RTHS_E_CALLBACK;
		if (!mat_finite(A) || !mat_finite(B))
			return -RTHS_E_NONFINITE;
		return 0;
	}
	if (!r0) {
		s->st.f_evals_jac++;
		rc = ode_res(s, t, y, yp, rbase);
		if (rc)
			return rc;
		r0 = rbase;
	}
	rc = fd_columns(s, t, y, yp, r0, h, A, 0);
	if (rc || !s->dae)
		return rc;
	return fd_columns(s, t, y, yp, r0, h, B, 1);
}
