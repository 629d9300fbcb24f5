/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private header of the ODE/DAE integrators: the solver object, the
 * per-method operations, and the helpers every method shares (callback
 * wrappers, error weights and norms, step-size limits, Newton corrector).
 */
#ifndef RTHS_LIB_ODE_IMPL_H
#define RTHS_LIB_ODE_IMPL_H

#include <float.h>
#include <stddef.h>

#include <rths/ode.h>

#include "common/alloc.h"

#define ODE_UROUND DBL_EPSILON
/*
 * The smallest relative tolerance (other than 0): rounding alone makes
 * an error of a few u per step, and ABAM's test against it (Shampine and
 * Gordon's) gave up below 4 u while the other methods ran into the step
 * limit, the error test or the fixed step's limit (issue 23).
 */
#define ODE_RTOL_MIN (4 * DBL_EPSILON)

struct rths_ode;
struct ode_newton;

/*
 * What a method provides.  step() takes exactly one accepted step that
 * does not pass tlim, retrying internally after rejections (as CVODE's
 * cvStep does); it updates s->t, s->y and s->yp.
 */
struct ode_ops {
	const char *name;
	int implicit;		/* has a Newton corrector, accepts DAEs */
	int linear_implicit;	/* explicit ODEs only, but uses the
				 * Jacobian and linear solver of newton.c
				 * (Rosenbrock) */
	int default_order;
	int max_order;
	/* Allocates through ode_vec() and ode_priv(): the solver frees it. */
	int (*create)(struct rths_ode *s);
	/* First step: initial step size and history.  thint bounds the
	 * span the caller wants (may be INFINITY). */
	int (*start)(struct rths_ode *s, double thint);
	int (*step)(struct rths_ode *s, double tlim);
	/* Dense output for t within the last step. */
	void (*interp)(const struct rths_ode *s, double t, double *y,
		       double *yp);
};

extern const struct ode_ops ode_rkf45_ops;
extern const struct ode_ops ode_abam_ops;
extern const struct ode_ops ode_gstiff_ops;
extern const struct ode_ops ode_constant_bdf_ops;
extern const struct ode_ops ode_wstiff_ops;
extern const struct ode_ops ode_dstiff_ops;
extern const struct ode_ops ode_rosenbrock_w_ops;

struct rths_ode {
	enum rths_ode_method method;
	const struct ode_ops *ops;
	struct rths_ode_system sys;
	struct rths_ode_control ctl;
	size_t n;
	int dae;		/* F(t, y, y') = 0 rather than y' = f */
	int max_order;		/* resolved from ctl and the method */
	double h_max;		/* INFINITY when unbounded */
	double *atol;		/* per component */
	unsigned char *no_err;	/* copy of sys.no_error_test, or NULL:
				 * 0 tested, else out of the test and
				 * (>= 2) the component's index */
	size_t n_tested;	/* components in the error test */
	double *ewt;		/* 1 / (rtol |y_i| + atol_i) */
	double t;
	double *y, *yp;		/* state at t */
	int initialized;
	int started;
	/* A non-finite residual made the last corrector fail: if the step
	 * cannot be completed, report RTHS_E_NONFINITE rather than RTHS_E_NO_CONVERGENCE. */
	int nonfinite_seen;
	struct rths_ode_stats st;
	struct ode_newton *nw;	/* implicit methods only */
	/* With no_err: the rounding floor of a Newton correction at the
	 * current factorization (newton.c), then n scratch */
	double *nw_floor;
	double *fd_work;	/* 4n scratch for finite differences */
	double *ic_res;		/* n: the start's consistency check */
	void *priv;
	/* the solver's and its method's arrays, freed with the solver */
	struct rths_owned mem;
};

/* --- callbacks (system.c): count evaluations, reject non-finite output */
int ode_rhs(struct rths_ode *s, double t, const double *y, double *f);
/* r = F(t, y, y'); for an explicit ODE r = y' - f(t, y). */
int ode_res(struct rths_ode *s, double t, const double *y, const double *yp,
	    double *r);
/*
 * Partial derivatives of the residual at (t, y, yp), n x n dense views:
 * A = dF/dy, B = dF/dy'.  For an explicit ODE, A = -df/dy and *b_identity
 * is set (B is not written).  r0 is F at the point if the caller has it,
 * or NULL.  h is the step the matrix is for (1/cj will do), which scales
 * a DAE's finite-difference increments.
 */
int ode_jacobian(struct rths_ode *s, double t, const double *y,
		 const double *yp, const double *r0, double h,
		 struct rths_mat *A, struct rths_mat *B, int *b_identity);
int ode_all_finite(const double *v, size_t n);

/* --- error control (control.c) */
/*
 * ewt_i = 1 / (rtol |y_i| + atol_i); -RTHS_E_TOLERANCE where that
 * tolerance is not positive or below ODE_RTOL_MIN |y_i| (rtol 0 with an
 * atol too small for y).
 */
int ode_set_weights(struct rths_ode *s, const double *y);
/* Weighted RMS norm over all components: Newton convergence. */
double ode_wrms(const struct rths_ode *s, const double *v);
/* The same over the components in the error test: local error. */
double ode_err_norm(const struct rths_ode *s, const double *v);
/*
 * Newton corrections near y: ode_wrms() with the tolerance of a component
 * of index k >= 2 (no_error_test[i] == k) widened by the rounding error
 * an iteration matrix conditioned like h^(1-k) leaves: 100 times the
 * larger of u (|y_i| + tol_i) / h^(k-1), taking h as 1/cj, and
 * s->nw_floor[i] (newton.c: the residual's rounding solved through the
 * iteration matrix).
 */
double ode_newton_norm(const struct rths_ode *s, const double *v,
		       const double *y, double cj);
/* Smallest step allowed at time t (user h_min or rounding limit). */
double ode_hmin(const struct rths_ode *s, double t);
/* First step: control.h_init, else ode_estimate_step(). */
int ode_initial_step(struct rths_ode *s, double thint, int order,
		     double *h);
/* Starting step estimated from the problem, for a method of an order. */
int ode_estimate_step(struct rths_ode *s, double thint, int order,
		      double *h);
/* Largest step that keeps t + h within tlim and h_max. */
double ode_limit_step(const struct rths_ode *s, double h, double tlim);
int ode_control_check(const struct rths_ode_control *c, size_t n);
/* A step end that rounding put just short of (or past) tlim is tlim. */
double ode_snap_time(double t, double tlim);

/* --- Newton corrector (newton.c) */
enum {
	ODE_NEWTON_OK = 0,
	ODE_NEWTON_NOCONV = 1,	/* recoverable: reduce the step */
	ODE_NEWTON_SINGULAR = 2, /* recoverable: reduce the step */
};
int ode_newton_new(struct rths_ode *s);
void ode_newton_free(struct rths_ode *s);
/* Forget Jacobian and factorization (new initial state). */
void ode_newton_reset(struct rths_ode *s);
/* A new step begins: ages the Jacobian. */
void ode_newton_begin_step(struct rths_ode *s);
/*
 * r = F(t, s->y, s->yp) in, the correction M^-1 r of a Newton step with
 * the iteration matrix for cj out.  The Jacobian and factorization taken
 * there stay for the first step.  ODE_NEWTON_SINGULAR, 0 or an error.
 */
int ode_newton_ic_correction(struct rths_ode *s, double t, double cj,
			     double *r);
/*
 * The rounding floor of that factorization at (s->y, s->yp), which
 * ode_newton_norm() allows index-2 and -3 components; until it is called
 * the floor is zero (the strictest measure).
 */
void ode_newton_ic_floor(struct rths_ode *s);

/*
 * Linearly implicit methods: the Jacobian at (t, y) with f = f(t, y)
 * (dense, by callback or finite differences, or sparse), then
 * M = cj I - df/dy factored (ODE_NEWTON_SINGULAR, 0 or an error), then
 * b = M^-1 b.  No Newton iteration: rosenbrock.c.
 */
int ode_newton_lin_jac(struct rths_ode *s, double t, const double *y,
		       const double *f);
int ode_newton_lin_factor(struct rths_ode *s, double cj);
void ode_newton_lin_solve(struct rths_ode *s, double *b);

/* --- initial conditions of DAEs (dae_ic.c) */
/*
 * Consistency of (s->t, s->y, s->yp): the weighted norm of the Newton
 * correction the residual there asks for, at the starting step (stored
 * in s->st.ic_norm); -RTHS_E_INCONSISTENT above 1.
 */
int ode_dae_check_ic(struct rths_ode *s);
/*
 * Solve F(t, ypred + e, yppred + cj e) = 0 for e, leaving y = ypred + e
 * and yp = yppred + cj e.  Reuses the Jacobian and LU while they work;
 * returns ODE_NEWTON_* or a negative error.
 */
int ode_newton_correct(struct rths_ode *s, double t, const double *ypred,
		       const double *yppred, double cj, double *y, double *yp,
		       double *e);

/* --- small vector helpers */
static inline void ode_copy(double *dst, const double *src, size_t n)
{
	for (size_t i = 0; i < n; i++)
		dst[i] = src[i];
}

static inline double ode_max(double a, double b)
{
	return a > b ? a : b;
}

static inline double ode_min(double a, double b)
{
	return a < b ? a : b;
}

/*
 * Cubic Hermite dense output through (t0, y0, f0) and (t0 + h, y1, f1)
 * at t: y and/or yp (either may be NULL).
 */
void ode_hermite(size_t n, double t0, double h, const double *y0,
		 const double *f0, const double *y1, const double *f1,
		 double t, double *y, double *yp);

/* Allocate an array of n doubles, zeroed; NULL on failure. */
double *ode_zalloc(size_t n);
/*
 * The same, and the method's private state, owned by the solver (freed
 * by rths_ode_free()); NULL and s->mem.failed set on failure.
 */
double *ode_vec(struct rths_ode *s, size_t n);
void *ode_priv(struct rths_ode *s, size_t size);
/*
 * Each of the vectors (double **) gets n zeroed doubles owned by the
 * solver: ODE_VECS(s, n, &p->e, &p->ynew).  0, or -ENOMEM if this or an
 * earlier allocation of the solver's failed.
 */
int ode_vecs(struct rths_ode *s, size_t n, double **const *v, size_t count);
#define ODE_VECS(s, n, ...)                                              \
	ode_vecs((s), (n), (double **const[]){ __VA_ARGS__ },            \
		 sizeof((double **const[]){ __VA_ARGS__ }) / sizeof(double **))

#endif /* RTHS_LIB_ODE_IMPL_H */
