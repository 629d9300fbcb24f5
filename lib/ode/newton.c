// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Newton corrector shared by the implicit methods.  The iteration matrix
 * is M = dF/dy + cj dF/dy' (for y' = f: cj I - df/dy), factored by lib/la.
 * The partial derivatives are kept separately so that a change of cj only
 * costs a new factorization, not a new Jacobian; the Jacobian itself is
 * re-evaluated only when Newton fails to converge with a stale one (or
 * after control.jac_max_age steps), and at the next attempt after it has
 * failed with a fresh one: that Jacobian was taken at the predicted
 * point of the attempt that failed, often far from the solution (the
 * prediction that failed is why), and the smaller step that follows
 * predicts elsewhere.  Keeping it made GSTIFF on the SI2 pendulum fail
 * ten times in a row down to h = 1e-7 (CVODE and DASSL evaluate anew
 * after a convergence failure too).  Convergence test and rate estimate
 * follow DASSL (Brenan, Campbell, Petzold, ch. 5), except that every
 * step measures its own rate (see RATE_START) and a Jacobian that
 * converges slowly is replaced at the next step (see RATE_JAC).
 *
 * A system with a sparse Jacobian (rths_ode_set_sparse_jac()) keeps
 * df/dy and M in compressed-column form instead: M's pattern is df/dy's
 * and the diagonal, built once, with the place in M of every entry of
 * df/dy and of every diagonal entry, so that forming M for a new cj is
 * one pass over the nonzeros; lib/la factors it by KLU (or dense LU
 * below RTHS_ODE_SPARSE_MIN_DIM, by choice or automatically).  The
 * dense matrices are allocated only when a dense Jacobian is evaluated.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "la/la.h"
#include "ode_impl.h"

/*
 * s = rate / (1 - rate) a step starts from: the rate is never carried
 * over from earlier steps, so a first correction is taken alone only if
 * it is already a hundred times inside the tolerance.  A carried rate
 * (DASSL's, floored at s = 0.1 here before) ended most solves after one
 * iteration and left the multipliers of a DAE up to 16 tolerances off:
 * I1 pendulum at 1e-3, lambda inconsistent with (q, v), after which no
 * step size passed the error test; the SI1 pendulum's order selection
 * saw that noise (WSTIFF at 1e-8: 16.7k steps at orders 1-2).  It costs
 * ODEs about a tenth more evaluations.
 */
#define RATE_START 100

/*
 * A step that converged at a rate above this gets a better iteration
 * matrix at the next step: 0.25 is the rate DASSL's window for reusing a
 * factorization at another cj (0.6 .. 1/0.6) is built to keep.  If this
 * step's cj was not the factorization's, the next step refactors at its
 * own cj first (a linear problem never needs another Jacobian); a slow
 * rate at the factorization's own cj is the Jacobian's doing, and the
 * next step evaluates it anew.  A slow iteration that still passes the
 * test leaves part of the correction undone, and the predictor
 * extrapolates what is left: a leftover that alternates in sign from
 * step to step grows by 2^(k+1) - 1 in the order-k prediction, so that
 * at rate r with m iterations it sustains itself once
 * r^m (2^(k+1) - 1) >= 1.  On the SI1 pendulum the integrated
 * multipliers enter the iteration matrix only through cj Phi_q^T, as
 * multipliers do at index 2, and a Jacobian from a few steps back
 * converged at rates of 0.3 to 0.5 there: WSTIFF and DSTIFF ran at
 * orders 2 and 3 with an error in v and eta of equal and opposite sign,
 * alternating every step, and took 4 to 14 times GSTIFF's SI2 steps at
 * 1e-9 and 1e-10, the count depending on rounding (on when the mode got
 * started).  A Jacobian at most 20 steps old (CVODE's rule) cured it
 * too; the rate measures the need rather than guessing it.  Refactoring
 * the old Jacobian at every cj made it worse.
 */
#define RATE_JAC 0.25

/* A sparse Jacobian df/dy and the iteration matrix cj I - df/dy. */
struct ode_sparse {
	rths_ode_sparse_jac_fn jac;
	size_t *jcp, *jri;	/* df/dy's pattern (the caller's, copied) */
	double *jx;		/* its values */
	int *mcp, *mri;		/* M's pattern: df/dy's and the diagonal */
	double *mx;
	size_t *jpos;		/* place in mx of each entry of jx */
	size_t *dpos;		/* place in mx of each diagonal entry */
};

struct ode_newton {
	size_t n;
	struct ode_sparse *sp;	/* NULL: dense */
	struct rths_mat A, B;	/* dF/dy, dF/dy' */
	int b_identity;
	struct rths_mat M;	/* the iteration matrix, before factoring */
	struct la_lin lin;	/* M factored */
	double cj_lu;		/* cj the factorization was built with */
	double cj_last;		/* cj of the previous solve */
	int have_jac, have_lu;
	int jac_fresh;		/* evaluated during this step */
	/* Newton failed with a Jacobian evaluated in this step: it belongs
	 * to a predicted point the retry abandons, evaluate it anew there */
	int jac_redo;
	int jac_slow;		/* converged above RATE_JAC at cj_lu */
	int lu_slow;		/* converged above RATE_JAC at another cj */
	unsigned long jac_age;	/* steps since evaluation */
	double rate_s;		/* DASSL's s = rate / (1 - rate) */
	double *r;		/* residual / correction */
	int floor_ok;		/* s->nw_floor belongs to the factorization */
};

int ode_newton_new(struct rths_ode *s)
{
	size_t n = s->n;
	struct ode_newton *nw = rths_owned_zalloc(&s->mem, 1, sizeof(*nw));

	if (!nw)
		return -ENOMEM;
	nw->n = n;
	nw->r = ode_vec(s, n);
	s->nw = nw;
	if (s->no_err)
		s->nw_floor = ode_vec(s, 2 * n);
	if (s->mem.failed)
		return -ENOMEM;
	ode_newton_reset(s);
	return 0;
}

/* The solver for M (dense or sparse) and the dense matrices go. */
static void linear_free(struct ode_newton *nw)
{
	la_lin_free(&nw->lin);
	nw->lin.ops = NULL;
	RTHS_FREE_ALL(nw->A.data, nw->B.data, nw->M.data);
	nw->A.data = nw->B.data = nw->M.data = NULL;
}

/* The dense matrices and LU, at the first dense Jacobian. */
static int dense_storage(struct ode_newton *nw)
{
	size_t n = nw->n;

	if (nw->lin.ops)
		return 0;
	nw->A = la_dense(n, n, ode_zalloc(n * n));
	nw->B = la_dense(n, n, ode_zalloc(n * n));
	nw->M = la_dense(n, n, ode_zalloc(n * n));
	if (!nw->A.data || !nw->B.data || !nw->M.data ||
	    la_lin_init(&nw->lin, &la_dense_lu, n, 0)) {
		linear_free(nw);
		return -ENOMEM;
	}
	return 0;
}

static void sparse_free(struct ode_sparse *sp)
{
	if (!sp)
		return;
	RTHS_FREE_ALL(sp->jcp, sp->jri, sp->jx, sp->mcp, sp->mri, sp->mx,
		      sp->jpos, sp->dpos, sp);
}

static int check_pattern(size_t n, const size_t *cp, const size_t *ri)
{
	if (cp[0] != 0 || cp[n] > INT_MAX - n)
		return -EINVAL;
	for (size_t j = 0; j < n; j++) {
		if (cp[j + 1] < cp[j])
			return -EINVAL;
		for (size_t k = cp[j]; k < cp[j + 1]; k++)
			if (ri[k] >= n || (k > cp[j] && ri[k] <= ri[k - 1]))
				return -EINVAL;
	}
	return 0;
}

/* M's pattern: column j of df/dy with row j merged in. */
static void merge_diagonal(struct ode_sparse *sp, size_t n)
{
	size_t m = 0;

	for (size_t j = 0; j < n; j++) {
		int diag = 0;

		sp->mcp[j] = (int)m;
		for (size_t k = sp->jcp[j]; k <= sp->jcp[j + 1]; k++) {
			size_t i = k < sp->jcp[j + 1] ? sp->jri[k] : n;

			if (!diag && i >= j) {
				sp->dpos[j] = m;
				sp->mri[m++] = (int)j;
				diag = 1;
				if (i == j) {
					sp->jpos[k] = m - 1;
					continue;
				}
			}
			if (k < sp->jcp[j + 1]) {
				sp->jpos[k] = m;
				sp->mri[m++] = (int)i;
			}
		}
	}
	sp->mcp[n] = (int)m;
}

int rths_ode_set_sparse_jac(struct rths_ode *s, const size_t *colptr,
			    const size_t *rowind, rths_ode_sparse_jac_fn jac,
			    enum rths_ode_linear_solver solver)
{
	struct ode_newton *nw;
	struct ode_sparse *sp;
	size_t n, nnz;
	int klu;

	if (!s || !colptr || !rowind || !jac ||
	    (unsigned int)solver > RTHS_ODE_LINEAR_SPARSE)
		return -EINVAL;
	if (!s->nw || s->dae)
		return -RTHS_E_METHOD;
	nw = s->nw;
	n = nw->n;
	if (check_pattern(n, colptr, rowind))
		return -EINVAL;
	nnz = colptr[n];
	sp = calloc(1, sizeof(*sp));
	if (!sp)
		return -ENOMEM;
	sp->jac = jac;
	sp->jcp = malloc((n + 1) * sizeof(*sp->jcp));
	sp->jri = malloc((nnz + 1) * sizeof(*sp->jri));
	sp->jx = malloc((nnz + 1) * sizeof(*sp->jx));
	sp->jpos = malloc((nnz + 1) * sizeof(*sp->jpos));
	sp->dpos = malloc(n * sizeof(*sp->dpos));
	sp->mcp = malloc((n + 1) * sizeof(*sp->mcp));
	sp->mri = malloc((nnz + n) * sizeof(*sp->mri));
	sp->mx = malloc((nnz + n) * sizeof(*sp->mx));
	if (!sp->jcp || !sp->jri || !sp->jx || !sp->jpos || !sp->dpos ||
	    !sp->mcp || !sp->mri || !sp->mx) {
		sparse_free(sp);
		return -ENOMEM;
	}
	memcpy(sp->jcp, colptr, (n + 1) * sizeof(*colptr));
	memcpy(sp->jri, rowind, nnz * sizeof(*rowind));
	merge_diagonal(sp, n);

	/* the solver for M: the old one (dense or sparse) goes */
	linear_free(nw);
	sparse_free(nw->sp);
	nw->sp = sp;
	klu = solver == RTHS_ODE_LINEAR_SPARSE ||
	      (solver == RTHS_ODE_LINEAR_AUTO && n >= RTHS_ODE_SPARSE_MIN_DIM);
	if (la_lin_init(&nw->lin, klu ? &la_klu_lu : &la_dense_lu, n, 0)) {
		la_lin_free(&nw->lin);
		nw->lin.ops = NULL;
		return -ENOMEM;
	}
	ode_newton_reset(s);
	return 0;
}

/* df/dy from the sparse callback, checked as ode_jacobian() checks. */
static int sparse_jacobian(struct rths_ode *s, double t, const double *y)
{
	struct ode_sparse *sp = s->nw->sp;
	size_t n = s->n, nnz = sp->jcp[n];
	struct rths_csc J = {
		.rows = n, .cols = n, .colptr = sp->jcp, .rowind = sp->jri,
		.values = sp->jx,
	};

	s->st.jac_evals++;
	memset(sp->jx, 0, nnz * sizeof(*sp->jx));
	if (sp->jac(t, y, &J, s->sys.params))
		return -RTHS_E_CALLBACK;
	if (!ode_all_finite(sp->jx, nnz))
		return -RTHS_E_NONFINITE;
	return 0;
}

/* The Jacobian at (t, y, yp) for an iteration matrix at cj, sparse or
 * dense. */
static int jacobian(struct rths_ode *s, double t, const double *y,
		    const double *yp, const double *r0, double cj)
{
	struct ode_newton *nw = s->nw;
	int rc;

	if (nw->sp) {
		nw->b_identity = 1;
		return sparse_jacobian(s, t, y);
	}
	rc = dense_storage(nw);
	if (rc)
		return rc;
	return ode_jacobian(s, t, y, yp, r0, 1.0 / cj, &nw->A, &nw->B,
			    &nw->b_identity);
}

/* M = cj I - df/dy in compressed columns. */
static int factor_sparse(struct ode_newton *nw, double cj)
{
	struct ode_sparse *sp = nw->sp;
	size_t n = nw->n, nnz = sp->jcp[n];
	struct la_csc M = {
		.rows = n, .cols = n, .colptr = sp->mcp, .rowind = sp->mri,
		.x = sp->mx,
	};

	memset(sp->mx, 0, (size_t)sp->mcp[n] * sizeof(*sp->mx));
	for (size_t k = 0; k < nnz; k++)
		sp->mx[sp->jpos[k]] = -sp->jx[k];
	for (size_t i = 0; i < n; i++)
		sp->mx[sp->dpos[i]] += cj;
	return la_lin_factor_csc(&nw->lin, &M);
}

void ode_newton_free(struct rths_ode *s)
{
	struct ode_newton *nw = s->nw;

	if (!nw)
		return;
	linear_free(nw);
	sparse_free(nw->sp);
	s->nw = NULL;
}

void ode_newton_reset(struct rths_ode *s)
{
	struct ode_newton *nw = s->nw;

	nw->have_jac = nw->have_lu = nw->jac_fresh = nw->jac_redo = 0;
	nw->jac_slow = nw->lu_slow = 0;
	nw->jac_age = 0;
	nw->rate_s = RATE_START;
	nw->cj_lu = 0;
	nw->cj_last = 0;
}

void ode_newton_begin_step(struct rths_ode *s)
{
	s->nw->jac_fresh = 0;
	s->nw->jac_age++;
	/* A rate measured steps ago may be far too hopeful: steps that each
	 * converge in one iteration never measure it again (at a fixed
	 * step, forever). */
	s->nw->rate_s = RATE_START;
}

/* Build M = A + cj B and factor it. */
static int factor(struct rths_ode *s, double cj)
{
	struct ode_newton *nw = s->nw;
	size_t n = nw->n;
	int rc;

	s->st.lu_decomps++;
	if (nw->sp) {
		rc = factor_sparse(nw, cj);
	} else {
		for (size_t j = 0; j < n; j++)
			for (size_t i = 0; i < n; i++) {
				double b = nw->b_identity ? (i == j) :
					   RTHS_MAT(&nw->B, i, j);

				RTHS_MAT(&nw->M, i, j) =
					RTHS_MAT(&nw->A, i, j) + cj * b;
			}
		rc = la_lin_factor(&nw->lin, &nw->M);
	}
	nw->have_lu = 0;
	if (rc == LA_ESINGULAR)
		return ODE_NEWTON_SINGULAR;
	if (rc)
		return rc == LA_ENOMEM ? -ENOMEM : -EINVAL;
	nw->have_lu = 1;
	nw->floor_ok = 0;
	nw->lu_slow = 0;
	nw->cj_lu = cj;
	nw->rate_s = RATE_START;
	return 0;
}

static void rounding_floor(struct rths_ode *s, const double *y,
			   const double *yp);

int ode_newton_ic_correction(struct rths_ode *s, double t, double cj,
			     double *r)
{
	struct ode_newton *nw = s->nw;
	int rc;

	rc = jacobian(s, t, s->y, s->yp, r, cj);
	if (rc)
		return rc;
	nw->have_jac = 1;
	nw->jac_age = 0;
	rc = factor(s, cj);
	if (rc)
		return rc;
	/* not the last factorization's floor: none until asked for */
	if (s->nw_floor)
		memset(s->nw_floor, 0, s->n * sizeof(*s->nw_floor));
	la_lin_solve(&nw->lin, r, 1);
	return 0;
}

/*
 * At tight tolerances the check's step is tiny (1.5e-9 s for a restarted
 * SI2 pendulum at 1e-8) and the multipliers' rounding, amplified by 1/h,
 * reads as an inconsistency without the floor.  The first step reuses it
 * (floor_ok) when it keeps this factorization.
 */
void ode_newton_ic_floor(struct rths_ode *s)
{
	if (s->nw_floor)
		rounding_floor(s, s->y, s->yp);
}

/*
 * Residual evaluation inside the iteration.  A non-finite value is a
 * convergence failure, which a smaller step may cure.  At the predicted
 * point (first) it is the function's doing, and reported as such if the
 * step cannot be completed; later it only means the iterate ran away.
 */
static int iter_res(struct rths_ode *s, double t, const double *y,
		    const double *yp, double *r, int first)
{
	int rc = ode_res(s, t, y, yp, r);

	if (rc == -RTHS_E_NONFINITE) {
		if (first)
			s->nonfinite_seen = 1;
		return ODE_NEWTON_NOCONV;
	}
	return rc;
}

/*
 * The rounding floor of a Newton correction near (y, yp): the solve of
 * the rounding the residual's terms carry, u (|dF/dy| |y| + |dF/dy'|
 * |yp|), under two sign patterns (a single one may cancel).  For a
 * component of index k it grows like h^(1-k) times the magnitude of the
 * components it is computed from, not its own: an I3 multiplier that
 * starts at zero (a pendulum released from rest at the horizontal) gets
 * the rounding of positions of size 1 through 1/h^2, and a corrector
 * that waited for its own 100 u |lambda| / h^2 never converged (GSTIFF,
 * CONSTANT_BDF: RTHS_E_HMIN at 1e-10 within 50 steps).
 */
static void rounding_floor(struct rths_ode *s, const double *y,
			   const double *yp)
{
	struct ode_newton *nw = s->nw;
	size_t n = nw->n;
	double *a = s->nw_floor + n, *fl = s->nw_floor;

	for (size_t i = 0; i < n; i++) {
		double rho = 0;

		for (size_t j = 0; j < n; j++) {
			double b = nw->b_identity ? (i == j) :
				   RTHS_MAT(&nw->B, i, j);

			rho += fabs(RTHS_MAT(&nw->A, i, j) * y[j]) +
			       fabs(b * yp[j]);
		}
		fl[i] = ODE_UROUND * rho;
		a[i] = i % 2 ? -fl[i] : fl[i];
	}
	la_lin_solve(&nw->lin, fl, 1);
	la_lin_solve(&nw->lin, a, 1);
	for (size_t i = 0; i < n; i++) {
		double x = ode_max(fabs(fl[i]), fabs(a[i]));

		fl[i] = isfinite(x) ? x : 0;
	}
	nw->floor_ok = 1;
}

static int iterate(struct rths_ode *s, double t, const double *ypred,
		   const double *yppred, double cj, double *y, double *yp,
		   double *e)
{
	struct ode_newton *nw = s->nw;
	size_t n = nw->n;
	int maxit = s->ctl.max_newton_iters ? s->ctl.max_newton_iters : 4;
	double pnorm = ode_newton_norm(s, ypred, ypred, cj);
	/* Damping for a factorization built with another cj (DASSL). */
	double scale = 2.0 / (1.0 + cj / nw->cj_lu);
	double oldnrm = 0;
	int rc;

	ode_copy(y, ypred, n);
	ode_copy(yp, yppred, n);
	for (size_t i = 0; i < n; i++)
		e[i] = 0;
	rc = iter_res(s, t, y, yp, nw->r, 1);
	if (rc)
		return rc;
	for (int m = 0;; m++) {
		double delnrm;

		for (size_t i = 0; i < n; i++)
			nw->r[i] *= scale;
		la_lin_solve(&nw->lin, nw->r, 1);
		s->st.newton_iters++;
		if (!ode_all_finite(nw->r, n))
			return ODE_NEWTON_NOCONV;
		for (size_t i = 0; i < n; i++) {
			y[i] -= nw->r[i];
			e[i] -= nw->r[i];
			yp[i] -= cj * nw->r[i];
		}
		delnrm = ode_newton_norm(s, nw->r, ypred, cj);
		if (delnrm <= 100 * ODE_UROUND * pnorm)
			return ODE_NEWTON_OK;
		if (m == 0) {
			oldnrm = delnrm;
		} else {
			double rate = pow(delnrm / oldnrm, 1.0 / m);

			if (rate > 0.9)
				return ODE_NEWTON_NOCONV;
			nw->rate_s = rate / (1.0 - rate);
			if (rate > RATE_JAC && cj != nw->cj_lu)
				nw->lu_slow = 1;
			else if (rate > RATE_JAC && !nw->jac_fresh)
				nw->jac_slow = 1;
		}
		if (nw->rate_s * delnrm <= 0.33)
			return ODE_NEWTON_OK;
		if (m + 1 >= maxit)
			return ODE_NEWTON_NOCONV;
		rc = iter_res(s, t, y, yp, nw->r, 0);
		if (rc)
			return rc;
	}
}

int ode_newton_correct(struct rths_ode *s, double t, const double *ypred,
		       const double *yppred, double cj, double *y, double *yp,
		       double *e)
{
	struct ode_newton *nw = s->nw;
	unsigned long max_age = s->ctl.jac_max_age;
	int need_jac = !nw->have_jac || nw->jac_redo || nw->jac_slow ||
		       (max_age && nw->jac_age >= max_age);
	int rc;

	/* The rate estimate belongs to one iteration matrix and one cj. */
	if (cj != nw->cj_last)
		nw->rate_s = RATE_START;
	nw->cj_last = cj;

	for (;;) {
		double ratio = nw->have_lu ? cj / nw->cj_lu : 0;
		int need_lu = need_jac || !nw->have_lu || nw->lu_slow ||
			      ratio < 0.6 || ratio > 1.0 / 0.6;

		if (need_jac) {
			rc = jacobian(s, t, ypred, yppred, NULL, cj);
			if (rc)
				return rc;
			nw->have_jac = nw->jac_fresh = 1;
			nw->jac_redo = nw->jac_slow = 0;
			nw->jac_age = 0;
		}
		if (need_lu) {
			rc = factor(s, cj);
			if (rc)
				return rc;
		}
		if (s->nw_floor && !nw->floor_ok)
			rounding_floor(s, ypred, yppred);
		rc = iterate(s, t, ypred, yppred, cj, y, yp, e);
		if (rc == ODE_NEWTON_NOCONV && nw->jac_fresh)
			nw->jac_redo = 1;
		if (rc != ODE_NEWTON_NOCONV || nw->jac_fresh)
			return rc;
		/* Stale Jacobian: try once more with a fresh one. */
		need_jac = 1;
	}
}

/*
 * Linearly implicit methods (rosenbrock.c) use the same Jacobian and
 * linear solver without the Newton iteration: df/dy at (t, y), whose
 * f(t, y) the caller has (an explicit ODE's residual y' - f is then zero
 * there, which finite differences take as their base), then cj I - df/dy
 * factored, then solves.
 */
int ode_newton_lin_jac(struct rths_ode *s, double t, const double *y,
		       const double *f)
{
	struct ode_newton *nw = s->nw;
	int rc;

	memset(nw->r, 0, nw->n * sizeof(*nw->r));
	rc = jacobian(s, t, y, f, nw->r, 1.0);
	nw->have_jac = !rc;
	nw->have_lu = 0;
	return rc;
}

int ode_newton_lin_factor(struct rths_ode *s, double cj)
{
	return factor(s, cj);
}

void ode_newton_lin_solve(struct rths_ode *s, double *b)
{
	la_lin_solve(&s->nw->lin, b, 1);
}
