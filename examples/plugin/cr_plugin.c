// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The Chen-Ricles method as an integrator plug-in (rths/hs_plugin.h,
 * Documentation/plugins.rst):
 *
 *	A = (M + dt/2 C0 + dt^2/4 K0)^-1 M
 *	v_{n+1} = v_n + dt A a_n,  u_{n+1} = u_n + dt v_n + dt^2 A a_n
 *	M a_{n+1} = f_{n+1} - C v_{n+1} - r_{n+1}
 *
 * It repeats the built-in "cr" (lib/hs/integrator_cr.c, dense path) with
 * the same CBLAS and LAPACKE calls in the same order, so that both give
 * the same history bit for bit: the solves go as librths' dense LU goes
 * (a diagonal matrix by its reciprocals, M^-1 by dgetri and one dgemv).
 *
 * Build:  cc -shared -fPIC -o cr_plugin.so cr_plugin.c \
 *		-llapacke -llapack -lblas
 * Use:    "integrator": {"plugin": "./cr_plugin.so"}
 */
#include <cblas.h>
#include <errno.h>
#include <lapacke.h>
#include <stdlib.h>
#include <string.h>

#include <rths/hs_plugin.h>

struct cr {
	size_t n;
	double dt;
	double *A;		/* n x n, (M + dt/2 C0 + dt^2/4 K0)^-1 M */
	double *C;		/* n x n, the model's C */
	double *minv;		/* M^-1, or 1/m_ii if M is diagonal */
	int mdiag;
	double *v1;		/* the velocity of step n+1 */
	double *w;		/* scratch */
};

static int diagonal(size_t n, const double *X)
{
	for (size_t j = 0; j < n; j++)
		for (size_t i = 0; i < n; i++)
			if (i != j && X[j * n + i] != 0)
				return 0;
	return 1;
}

static void cr_free(void *state)
{
	struct cr *cr = state;

	if (!cr)
		return;
	free(cr->A);
	free(cr->C);
	free(cr->minv);
	free(cr->v1);
	free(cr->w);
	free(cr);
}

static int singular(struct rths_error *err, const char *what, int info)
{
	return rths_hs_plugin_error(err, RTHS_E_SINGULAR,
				    "%s is singular (LAPACK info %d)", what,
				    info);
}

/* On failure everything is freed and *state is NULL. */
static int cr_alloc(void **state, const struct rths_hs_integrator_problem *p,
		    struct rths_error *err)
{
	size_t n = p->n, nn = n * n;
	lapack_int N = (lapack_int)n, info;
	struct cr *cr = calloc(1, sizeof(*cr));
	double *D = malloc((nn ? nn : 1) * sizeof(*D));
	lapack_int *ipiv = malloc((n ? n : 1) * sizeof(*ipiv));
	double a = 1.0, b = p->dt / 2, c = p->dt * p->dt / 4, d0;
	int r = 0;

	if (cr) {
		cr->n = n;
		cr->dt = p->dt;
		cr->A = malloc((nn ? nn : 1) * sizeof(double));
		cr->C = malloc((nn ? nn : 1) * sizeof(double));
		cr->minv = malloc((nn ? nn : 1) * sizeof(double));
		cr->v1 = calloc(n ? n : 1, sizeof(double));
		cr->w = calloc(n ? n : 1, sizeof(double));
	}
	if (!cr || !D || !ipiv || !cr->A || !cr->C || !cr->minv || !cr->v1 ||
	    !cr->w) {
		r = rths_hs_plugin_error(err, ENOMEM,
					 "cannot allocate the CR plug-in");
		goto out;
	}
	memcpy(cr->C, p->c, nn * sizeof(double));

	/* A = D^-1 M: one right-hand side is solved by the reciprocal (n is
	 * 1, so D is diagonal), more by the LU's dgetrs */
	for (size_t i = 0; i < nn; i++)
		D[i] = a * p->m[i] + b * p->c0[i] + c * p->k0[i];
	d0 = D[0];
	memcpy(cr->A, p->m, nn * sizeof(double));
	info = LAPACKE_dgetrf(LAPACK_COL_MAJOR, N, N, D, N, ipiv);
	if (info) {
		r = singular(err, "M + dt/2 C + dt^2/4 K (CR plug-in)",
			     (int)info);
		goto out;
	}
	if (n == 1)
		cr->A[0] *= 1.0 / d0;
	else
		LAPACKE_dgetrs(LAPACK_COL_MAJOR, 'N', N, N, D, N, ipiv,
			       cr->A, N);

	/* M^-1 for the equilibrium of each step */
	cr->mdiag = diagonal(n, p->m);
	if (cr->mdiag) {
		for (size_t i = 0; i < n; i++)
			cr->minv[i] = 1.0 / p->m[i * n + i];
	} else {
		memcpy(cr->minv, p->m, nn * sizeof(double));
		info = LAPACKE_dgetrf(LAPACK_COL_MAJOR, N, N, cr->minv, N,
				      ipiv);
		if (!info)
			info = LAPACKE_dgetri(LAPACK_COL_MAJOR, N, cr->minv,
					      N, ipiv);
		if (info)
			r = singular(err, "the mass matrix", (int)info);
	}
out:
	free(D);
	free(ipiv);
	if (r) {
		cr_free(cr);
		cr = NULL;
	}
	*state = cr;
	return r;
}

static int cr_start(void *state, const double *u0, const double *v0,
		    const double *a0, const double *f0, const double *r0,
		    struct rths_error *err)
{
	/* CR needs nothing of step 0 beyond what predict is given */
	(void)state, (void)u0, (void)v0, (void)a0, (void)f0, (void)r0;
	(void)err;
	return 0;
}

static int cr_predict(void *state, uint64_t step, const double *u,
		      const double *v, const double *a, const double *f1,
		      double *u1, struct rths_error *err)
{
	struct cr *cr = state;
	size_t n = cr->n;
	double dt = cr->dt;

	(void)step, (void)f1, (void)err;
	/* dt A a */
	cblas_dgemv(CblasColMajor, CblasNoTrans, (int)n, (int)n, dt, cr->A,
		    (int)(n ? n : 1), a, 1, 0.0, cr->w, 1);
	for (size_t i = 0; i < n; i++) {
		cr->v1[i] = v[i] + cr->w[i];
		u1[i] = u[i] + dt * v[i] + dt * cr->w[i];
	}
	return 0;
}

static int cr_correct(void *state, uint64_t step, const double *u,
		      const double *v, const double *a, const double *u1,
		      const double *f1, const double *r1, double *u_out,
		      double *v_out, double *a_out, struct rths_error *err)
{
	struct cr *cr = state;
	size_t n = cr->n;

	(void)step, (void)u, (void)v, (void)a, (void)err;
	/* M a = f - C v1 - r */
	for (size_t i = 0; i < n; i++)
		a_out[i] = f1[i] - r1[i];
	cblas_dgemv(CblasColMajor, CblasNoTrans, (int)n, (int)n, -1.0, cr->C,
		    (int)(n ? n : 1), cr->v1, 1, 1.0, a_out, 1);
	if (cr->mdiag) {
		for (size_t i = 0; i < n; i++)
			a_out[i] *= cr->minv[i];
	} else {
		memcpy(cr->w, a_out, n * sizeof(double));
		cblas_dgemv(CblasColMajor, CblasNoTrans, (int)n, (int)n, 1.0,
			    cr->minv, (int)n, cr->w, 1, 0.0, a_out, 1);
	}
	memcpy(u_out, u1, n * sizeof(double));
	memcpy(v_out, cr->v1, n * sizeof(double));
	return 0;
}

/* The one symbol rths-run looks for (RTHS_HS_PLUGIN_SYMBOL). */
const struct rths_hs_integrator_type rths_integrator_type = {
	.abi = RTHS_HS_PLUGIN_ABI,
	.name = "cr-plugin",
	.alloc = cr_alloc,
	.start = cr_start,
	.predict = cr_predict,
	.correct = cr_correct,
	.free = cr_free,
};
