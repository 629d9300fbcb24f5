// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Consistent initial conditions of constrained mechanical systems:
 * projection of positions and velocities onto the constraints, then the
 * accelerations and multipliers that go with them.  Each is a saddle-
 * point system [W Phi_q^T; Phi_q 0], solved by LU (it is indefinite, so
 * not by Cholesky).  Matrices are column-major (lib/la).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "la/la.h"
#include "mech_impl.h"
#include "ode_impl.h"

#define PROJECT_MAX_ITERS 100

static int check(int cb_rc, const double *v, size_t n)
{
	if (cb_rc)
		return -RTHS_E_CALLBACK;
	return ode_all_finite(v, n) ? 0 : -RTHS_E_NONFINITE;
}

static int eval_mat(int (*fn)(double, const double *, struct rths_mat *,
			      void *),
		    const struct rths_ode_mech *m, double t, const double *q,
		    size_t rows, size_t cols, double *A)
{
	struct rths_mat v = la_dense(rows, cols, A);

	for (size_t i = 0; i < rows * cols; i++)
		A[i] = 0;
	return check(fn(t, q, &v, m->params), A, rows * cols);
}

int ode_mech_mass(const struct rths_ode_mech *m, double t, const double *q,
		  double *M)
{
	return eval_mat(m->mass, m, t, q, m->nq, m->nq, M);
}

int ode_mech_phi_q(const struct rths_ode_mech *m, double t, const double *q,
		   double *G)
{
	return eval_mat(m->phi_q, m, t, q, m->nc, m->nq, G);
}

static double norm_inf(const double *v, size_t n)
{
	double m = 0;

	for (size_t i = 0; i < n; i++)
		m = ode_max(m, fabs(v[i]));
	return m;
}

int ode_mech_velocity_constraint(const struct rths_ode_mech *m, double t,
				 const double *q, const double *G,
				 const double *v, double *out)
{
	size_t nq = m->nq, nc = m->nc;
	int rc = 0;

	if (m->phi_t)
		rc = m->phi_t(t, q, out, m->params);
	else
		for (size_t i = 0; i < nc; i++)
			out[i] = 0;
	for (size_t i = 0; i < nc; i++)
		for (size_t j = 0; j < nq; j++)
			out[i] += LA_AT(G, nc, i, j) * v[j];
	return check(rc, out, nc);
}

int ode_mech_gamma(const struct rths_ode_mech *m, double t, const double *q,
		   const double *v, double *gamma, double *work)
{
	size_t nq = m->nq, nc = m->nc;
	double *qq = work, *G = work + nq, *cp = G + nq * nc, *cm = cp + nc;
	double qn = norm_inf(q, nq), vn = norm_inf(v, nq), eps;
	int rc;

	if (m->gamma)
		return check(m->gamma(t, q, v, gamma, m->params), gamma, nc);
	/* A time increment that moves q by about cbrt(u) of its size. */
	eps = cbrt(ODE_UROUND) * (1 + qn) / ode_max(vn, 1 + qn);
	for (int side = 0; side < 2; side++) {
		double e = side ? -eps : eps;
		double *c = side ? cm : cp;

		for (size_t j = 0; j < nq; j++)
			qq[j] = q[j] + e * v[j];
		rc = ode_mech_phi_q(m, t + e, qq, G);
		if (!rc)
			rc = ode_mech_velocity_constraint(m, t + e, qq, G, v, c);
		if (rc)
			return rc;
	}
	for (size_t i = 0; i < nc; i++)
		gamma[i] = -(cp[i] - cm[i]) / (2 * eps);
	return 0;
}

/*
 * Solve [W G^T; G 0] [x; y] = rhs in place (rhs has nq + nc entries);
 * W NULL is the identity.  Returns 1 if the matrix is singular.  The
 * matrix is built in w->K and factored into w->lu (no allocation).
 */
static int saddle_solve(size_t nq, size_t nc, const double *W,
			const double *G, struct ode_mech_work *w, double *rhs)
{
	size_t n = nq + nc;
	double *K = w->K;
	struct rths_mat Km = la_dense(n, n, K);

	for (size_t i = 0; i < n * n; i++)
		K[i] = 0;
	for (size_t j = 0; j < nq; j++)
		for (size_t i = 0; i < nq; i++)
			LA_AT(K, n, i, j) = W ? LA_AT(W, nq, i, j) : (i == j);
	for (size_t i = 0; i < nc; i++)
		for (size_t j = 0; j < nq; j++) {
			LA_AT(K, n, nq + i, j) = LA_AT(G, nc, i, j);
			LA_AT(K, n, j, nq + i) = LA_AT(G, nc, i, j);
		}
	if (la_lin_factor(&w->lu, &Km))
		return 1;
	la_lin_solve(&w->lu, rhs, 1);
	return !ode_all_finite(rhs, n);
}

void ode_mech_work_fini(struct ode_mech_work *w)
{
	la_lin_free(&w->lu);
	rths_owned_free(&w->mem);
	w->K = w->rhs = w->G = w->phi = w->M = w->F = w->gw = NULL;
}

int ode_mech_work_init(struct ode_mech_work *w, size_t nq, size_t nc)
{
	size_t n = nq + nc;

	memset(w, 0, sizeof(*w));
	w->nq = nq;
	w->nc = nc;
	w->K = rths_owned_doubles(&w->mem, n * n);
	w->rhs = rths_owned_doubles(&w->mem, n);
	w->G = rths_owned_doubles(&w->mem, nc * nq);
	w->phi = rths_owned_doubles(&w->mem, nc);
	w->M = rths_owned_doubles(&w->mem, nq * nq);
	w->F = rths_owned_doubles(&w->mem, nq);
	w->gw = rths_owned_doubles(&w->mem, 2 * nq + nq * nc + 2 * nc);
	if (w->mem.failed || la_lin_init(&w->lu, &la_dense_lu, n, 0)) {
		ode_mech_work_fini(w);
		return -ENOMEM;
	}
	return 0;
}

static int mech_valid(const struct rths_ode_mech *m)
{
	return m && m->nq && m->mass && m->force &&
	       (!m->nc || (m->phi && m->phi_q));
}

/* Gauss-Newton on the Lagrange conditions of the position problem. */
static int project_positions(const struct rths_ode_mech *m, double t,
			     const double *W, const double *q0, double *q,
			     struct ode_mech_work *w)
{
	size_t nq = m->nq, nc = m->nc;
	int rc;

	ode_copy(q, q0, nq);
	for (int it = 0; it < PROJECT_MAX_ITERS; it++) {
		double dn, scale = 1 + norm_inf(q, nq);

		rc = check(m->phi(t, q, w->phi, m->params), w->phi, nc);
		if (!rc)
			rc = ode_mech_phi_q(m, t, q, w->G);
		if (rc)
			return rc;
		for (size_t i = 0; i < nq; i++) {
			double s = 0;

			for (size_t j = 0; j < nq; j++)
				s += (W ? LA_AT(W, nq, i, j) : (i == j)) *
				     (q0[j] - q[j]);
			w->rhs[i] = s;
		}
		for (size_t i = 0; i < nc; i++)
			w->rhs[nq + i] = -w->phi[i];
		if (saddle_solve(nq, nc, W, w->G, w, w->rhs))
			return -RTHS_E_INCONSISTENT;
		dn = norm_inf(w->rhs, nq);
		for (size_t i = 0; i < nq; i++)
			q[i] += w->rhs[i];
		if (norm_inf(w->phi, nc) <= 1e-12 * scale &&
		    dn <= 1e-10 * scale)
			return 0;
	}
	return -RTHS_E_INCONSISTENT;
}

/* A workspace for one call of a public function (fini it after). */
static int call_work(const struct rths_ode_mech *m, struct ode_mech_work *w)
{
	memset(w, 0, sizeof(*w));
	if (!mech_valid(m))
		return -EINVAL;
	return ode_mech_work_init(w, m->nq, m->nc);
}

int ode_mech_project_w(const struct rths_ode_mech *m, double t,
		       const double *W, const double *q0, const double *v0,
		       double *q, double *v, struct ode_mech_work *w)
{
	size_t nq, nc;
	int rc;

	if (!mech_valid(m) || !q0 || !v0 || !q || !v)
		return -EINVAL;
	nq = m->nq;
	nc = m->nc;
	if (w->nq != nq || w->nc != nc)
		return -EINVAL;
	if (!isfinite(t) || !ode_all_finite(q0, nq) || !ode_all_finite(v0, nq) ||
	    (W && !ode_all_finite(W, nq * nq)))
		return -RTHS_E_NONFINITE;
	if (!nc) {
		ode_copy(q, q0, nq);
		ode_copy(v, v0, nq);
		return 0;
	}
	rc = project_positions(m, t, W, q0, q, w);
	if (rc)
		return rc;
	/* Velocities: minimize the weighted change subject to
	 * Phi_q v = -Phi_t; the constraint's right side is -Phi_t. */
	rc = ode_mech_phi_q(m, t, q, w->G);
	if (rc)
		return rc;
	for (size_t i = 0; i < nq; i++)
		w->F[i] = 0;
	rc = ode_mech_velocity_constraint(m, t, q, w->G, w->F, w->phi);
	if (rc)
		return rc;
	for (size_t i = 0; i < nq; i++) {
		double s = 0;

		for (size_t j = 0; j < nq; j++)
			s += (W ? LA_AT(W, nq, i, j) : (i == j)) * v0[j];
		w->rhs[i] = s;
	}
	for (size_t i = 0; i < nc; i++)
		w->rhs[nq + i] = -w->phi[i];
	if (saddle_solve(nq, nc, W, w->G, w, w->rhs))
		return -RTHS_E_INCONSISTENT;
	ode_copy(v, w->rhs, nq);
	return 0;
}

int rths_ode_mech_project(const struct rths_ode_mech *m, double t,
			  const double *W, const double *q0, const double *v0,
			  double *q, double *v)
{
	struct ode_mech_work w;
	int rc = call_work(m, &w);

	if (!rc)
		rc = ode_mech_project_w(m, t, W, q0, v0, q, v, &w);
	ode_mech_work_fini(&w);
	return rc;
}

int ode_mech_accel_w(const struct rths_ode_mech *m, double t,
		     const double *q, const double *v, double *a,
		     double *lambda, struct ode_mech_work *w)
{
	size_t nq, nc;
	int rc;

	if (!mech_valid(m) || !q || !v || !a)
		return -EINVAL;
	nq = m->nq;
	nc = m->nc;
	if (w->nq != nq || w->nc != nc)
		return -EINVAL;
	rc = ode_mech_mass(m, t, q, w->M);
	if (!rc)
		rc = check(m->force(t, q, v, w->F, m->params), w->F, nq);
	if (!rc && nc)
		rc = ode_mech_phi_q(m, t, q, w->G);
	if (!rc && nc)
		rc = ode_mech_gamma(m, t, q, v, w->rhs + nq, w->gw);
	if (rc)
		return rc;
	ode_copy(w->rhs, w->F, nq);
	if (saddle_solve(nq, nc, w->M, w->G, w, w->rhs))
		return -RTHS_E_SINGULAR;
	ode_copy(a, w->rhs, nq);
	if (lambda)
		ode_copy(lambda, w->rhs + nq, nc);
	return 0;
}

int rths_ode_mech_accel(const struct rths_ode_mech *m, double t,
			const double *q, const double *v, double *a,
			double *lambda)
{
	struct ode_mech_work w;
	int rc = call_work(m, &w);

	if (!rc)
		rc = ode_mech_accel_w(m, t, q, v, a, lambda, &w);
	ode_mech_work_fini(&w);
	return rc;
}

int ode_mech_drift_w(const struct rths_ode_mech *m, double t,
		     const double *q, const double *v, double *pos,
		     double *vel, struct ode_mech_work *w)
{
	double sp = 0, sv = 0;
	int rc = 0;

	if (!mech_valid(m) || !q || !v)
		return -EINVAL;
	if (w->nq != m->nq || w->nc != m->nc)
		return -EINVAL;
	if (m->nc) {
		rc = check(m->phi(t, q, w->phi, m->params), w->phi, m->nc);
		for (size_t i = 0; !rc && i < m->nc; i++)
			sp += w->phi[i] * w->phi[i];
		if (!rc)
			rc = ode_mech_phi_q(m, t, q, w->G);
		if (!rc)
			rc = ode_mech_velocity_constraint(m, t, q, w->G, v,
							  w->phi);
		for (size_t i = 0; !rc && i < m->nc; i++)
			sv += w->phi[i] * w->phi[i];
	}
	if (pos)
		*pos = sqrt(sp);
	if (vel)
		*vel = sqrt(sv);
	return rc;
}

int rths_ode_mech_drift(const struct rths_ode_mech *m, double t,
			const double *q, const double *v, double *pos,
			double *vel)
{
	struct ode_mech_work w;
	int rc = call_work(m, &w);

	if (!rc)
		rc = ode_mech_drift_w(m, t, q, v, pos, vel, &w);
	ode_mech_work_fini(&w);
	return rc;
}

/* The public workspace is the private one, behind an opaque name. */
struct rths_ode_mech_ws {
	struct ode_mech_work w;
};

int rths_ode_mech_ws_new(const struct rths_ode_mech *m,
			 struct rths_ode_mech_ws **out)
{
	struct rths_ode_mech_ws *ws;
	int rc;

	if (!out)
		return -EINVAL;
	*out = NULL;
	ws = calloc(1, sizeof(*ws));
	if (!ws)
		return -ENOMEM;
	rc = call_work(m, &ws->w);
	if (rc) {
		free(ws);
		return rc;
	}
	*out = ws;
	return 0;
}

void rths_ode_mech_ws_free(struct rths_ode_mech_ws *ws)
{
	if (!ws)
		return;
	ode_mech_work_fini(&ws->w);
	free(ws);
}

int rths_ode_mech_project_ws(const struct rths_ode_mech *m, double t,
			     const double *W, const double *q0,
			     const double *v0, double *q, double *v,
			     struct rths_ode_mech_ws *ws)
{
	if (!ws)
		return -EINVAL;
	return ode_mech_project_w(m, t, W, q0, v0, q, v, &ws->w);
}

int rths_ode_mech_drift_ws(const struct rths_ode_mech *m, double t,
			   const double *q, const double *v, double *pos,
			   double *vel, struct rths_ode_mech_ws *ws)
{
	if (!ws)
		return -EINVAL;
	return ode_mech_drift_w(m, t, q, v, pos, vel, &ws->w);
}
