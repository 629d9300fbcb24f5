/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rths ODE/DAE integrators: one solver object per problem, driven by
 * rths_ode_step() (one accepted step) or rths_ode_evolve() (up to an
 * output time).  The layout follows GSL odeiv2 and SUNDIALS: a *system*
 * (callbacks), a *control* (tolerances and step/order limits), a method,
 * and the counters every run leaves behind.
 *
 * Methods (names after the multibody solver they imitate):
 *   RKF45         Runge-Kutta-Fehlberg 4(5), adaptive, explicit ODEs only
 *   ABAM          Adams-Bashforth-Moulton PECE, orders 1..12, variable step
 *                 (Shampine-Gordon), explicit ODEs only
 *   GSTIFF        BDF orders 1..6, Nordsieck history with the coefficients
 *                 of the constant-step formula (fixed leading coefficient);
 *                 a step change rescales the history (Gear)
 *   WSTIFF        BDF orders 1..6, divided differences, coefficients follow
 *                 the actual step history (variable coefficient)
 *   DSTIFF        DASSL: BDF orders 1..6 in fixed-leading-coefficient
 *                 divided-difference form for F(t, y, y') = 0
 *   CONSTANT_BDF  BDF with a fixed step (control.h_init), orders 1..6
 *   ROSENBROCK_W  linearly implicit Rosenbrock-W method ROS34PW2 (Rang and
 *                 Angermann), order 3 with an order-2 estimate, L-stable,
 *                 explicit ODEs only (a DAE: RTHS_E_UNSUPPORTED): one LU
 *                 of I/(h gamma) - df/dy and four solves per step, no
 *                 Newton iteration; adaptive, or fixed steps of
 *                 control.h_init when it is given; a W-method, so an old
 *                 Jacobian (control.jac_max_age) keeps its order
 *
 * The implicit methods (GSTIFF, WSTIFF, DSTIFF, CONSTANT_BDF) accept both
 * explicit ODEs y' = f(t, y) and implicit DAEs F(t, y, y') = 0, and solve
 * their corrector by Newton's method with an LU factorization (LAPACK) of
 * dF/dy + cj dF/dy'.  The Jacobian comes from a callback or from finite
 * differences and is reused across steps while Newton converges.
 *
 * Matrices passed to callbacks are struct rths_mat views (rths/mat.h),
 * column-major like LAPACK's and SUNDIALS' dense matrices: a callback
 * sets d f_i / d y_j as RTHS_MAT(J, i, j).  (Before librths.so.2 they
 * were row-major double arrays; the callback types changed so that such
 * code no longer compiles instead of running with a transposed matrix;
 * GCC before 14 only warns about the incompatible pointer, so this
 * header makes it an error, below.)
 *
 * Errors follow librths's convention (rths/error.h): a negative errno
 * (-EINVAL for a bad argument or call order, -ENOMEM) or -RTHS_E_xxx
 * (-RTHS_E_HMIN, -RTHS_E_NO_CONVERGENCE...); rths_strerror() gives the
 * message.  Integration is forward in time only.
 */
#ifndef RTHS_ODE_H
#define RTHS_ODE_H

/* librths is built with -fvisibility=hidden: this is its API. */
#pragma GCC visibility push(default)

#include <stddef.h>

#include <rths/error.h>
#include <rths/mat.h>

#ifdef __cplusplus
extern "C" {
#endif

enum rths_ode_method {
	RTHS_ODE_RKF45,
	RTHS_ODE_ABAM,
	RTHS_ODE_GSTIFF,
	RTHS_ODE_WSTIFF,
	RTHS_ODE_DSTIFF,
	RTHS_ODE_CONSTANT_BDF,
	RTHS_ODE_ROSENBROCK_W,
	RTHS_ODE_METHOD_COUNT
};

/* "rkf45", "abam", "gstiff", "wstiff", "dstiff", "constant_bdf",
 * "rosenbrock_w". */
const char *rths_ode_method_name(enum rths_ode_method m);
/* Method by name (0 is a method), or -EINVAL if unknown or NULL. */
int rths_ode_method_from_name(const char *name);
/* Nonzero if the method solves implicit DAEs (has a Newton corrector). */
int rths_ode_method_is_implicit(enum rths_ode_method m);

/*
 * Callbacks return 0 on success; any other value stops the integration
 * with -RTHS_E_CALLBACK, except -RTHS_E_NONFINITE from res or resjac,
 * which is passed on (the mechanical systems of rths/ode_mech.h report so
 * a non-finite value from the user's functions).
 */
typedef int (*rths_ode_rhs_fn)(double t, const double *y, double *dydt,
			       void *params);
/*
 * J = df/dy (dim x dim): RTHS_MAT(J, i, j) = d f_i / d y_j.  J arrives
 * zeroed: set the entries that are not zero.
 */
typedef int (*rths_ode_jac_fn)(double t, const double *y, struct rths_mat *J,
			       void *params);
/* r = F(t, y, y'). */
typedef int (*rths_ode_res_fn)(double t, const double *y, const double *yp,
			       double *r, void *params);
/*
 * dFdy = dF/dy and dFdyp = dF/dy' (dim x dim each, zeroed, as for
 * rths_ode_jac_fn: RTHS_MAT(dFdy, i, j) = d F_i / d y_j).
 */
typedef int (*rths_ode_resjac_fn)(double t, const double *y,
				  const double *yp, struct rths_mat *dFdy,
				  struct rths_mat *dFdyp, void *params);

/*
 * The callbacks reach librths in struct fields (jac, resjac here, mass and
 * phi_q in rths/ode_mech.h), set by assignment or an initializer, with no
 * call whose arguments a macro could check.  So a callback of the old
 * row-major type, int (*)(double, const double *, double *, void *), is
 * caught as what it is, an incompatible pointer: an error in C++ and with
 * GCC 14, only a warning with GCC 12 and clang 14, so C includes of this
 * header make it an error there too (the diagnostic shows "double *"
 * where "struct rths_mat *" is now).  It holds for the rest of the
 * including file, as GCC 14 does by default; -w still silences it.
 */
#if !defined(__cplusplus) && defined(__clang__)
#pragma GCC diagnostic error "-Wincompatible-function-pointer-types"
#elif !defined(__cplusplus) && defined(__GNUC__)
#pragma GCC diagnostic error "-Wincompatible-pointer-types"
#endif

/*
 * Either an explicit ODE (rhs set, optional jac) or an implicit DAE (res
 * set, rhs NULL, optional resjac).  For a DAE, no_error_test may mark
 * components left out of the local error test (algebraic variables of
 * index 2 and higher, as IDA's suppressalg); NULL tests all.  A mark of
 * 2 or 3 gives the component's index: the corrector then allows it the
 * rounding error of an iteration matrix conditioned like 1/h^(index-1),
 * without which an index-3 DAE does not converge at tight tolerances.
 */
struct rths_ode_system {
	size_t dim;
	rths_ode_rhs_fn rhs;
	rths_ode_jac_fn jac;
	rths_ode_res_fn res;
	rths_ode_resjac_fn resjac;
	const unsigned char *no_error_test;
	void *params;
};

/*
 * Tolerances and limits.  The local error of component i is measured
 * against rtol * |y_i| + atol_i, in the root-mean-square norm; a step is
 * accepted when that norm is at most 1.  Zero fields take the defaults
 * noted here; rths_ode_control_default() fills them in explicitly.
 */
struct rths_ode_control {
	double rtol;		/* relative tolerance, 0 or >= 4 DBL_EPSILON
				 * (1e-6); below: RTHS_E_TOLERANCE */
	double atol;		/* absolute tolerance, >= 0 (1e-9) */
	const double *atol_v;	/* per-component atol (dim), overrides atol */
	double h_init;		/* first step, 0 = estimate; CONSTANT_BDF:
				 * the fixed step (required); ROSENBROCK_W:
				 * the fixed step, 0 = adaptive */
	double h_min;		/* smallest |h| (0 = machine precision) */
	double h_max;		/* largest |h| (0 = unbounded) */
	double t_stop;		/* never step past this time ... */
	int has_t_stop;		/* ... if nonzero */
	int max_order;		/* 0 = default: ABAM 12, BDF 5 */
	unsigned long max_steps; /* per rths_ode_evolve() call (500000) */
	int max_newton_iters;	/* per corrector solve (4) */
	unsigned long jac_max_age; /* re-evaluate a Jacobian after this many
				    * steps even if Newton converges (0 =
				    * only on convergence trouble);
				    * ROSENBROCK_W: a Jacobian every this
				    * many steps (0 = every step) */
	double fixed_err_max;	/* CONSTANT_BDF and ROSENBROCK_W with a
				 * fixed step: stop with RTHS_E_FIXEDSTEP when
				 * a step's local error estimate exceeds
				 * the tolerances this many times, or the
				 * estimates' sum since init 10 times
				 * this many (0 = 10; INFINITY: never,
				 * any error goes, and ROSENBROCK_W takes
				 * the fixed step from the first, without
				 * a warm-up) */
};

void rths_ode_control_default(struct rths_ode_control *c);

struct rths_ode_stats {
	unsigned long steps;		/* accepted steps */
	unsigned long f_evals;		/* rhs or residual evaluations,
					 * including the ones below */
	unsigned long f_evals_jac;	/* ... spent on finite-difference
					 * Jacobians and on step estimation */
	unsigned long jac_evals;	/* Jacobian evaluations */
	unsigned long lu_decomps;	/* LU factorizations */
	unsigned long newton_iters;	/* Newton iterations */
	unsigned long err_test_fails;	/* rejected by the error test */
	unsigned long conv_fails;	/* rejected by Newton non-convergence */
	double ic_norm;			/* DAE: consistency of the start, the
					 * weighted norm of the correction
					 * F(t0, y0, y'0) asks for (<= 1) */
	double h_last;			/* last step taken */
	double h_next;			/* step the method will try next */
	int order_last;			/* order of the last step */
	int order_max_used;		/* highest order used so far */
	double err_est_max;		/* largest local error estimate of an
					 * accepted step since init, in
					 * tolerances: the weighted RMS norm
					 * the error test compares with 1
					 * (GSTIFF, WSTIFF, DSTIFF, RKF45,
					 * ABAM, adaptive ROSENBROCK_W: at
					 * most 1; CONSTANT_BDF and fixed
					 * ROSENBROCK_W: up to fixed_err_max) */
};

struct rths_ode;

/*
 * Sparse Jacobians (explicit ODEs y' = f, implicit methods).  A large
 * system whose df/dy is sparse gives its pattern once and a callback
 * that fills the values; the Newton corrector then builds its iteration
 * matrix cj I - df/dy in compressed-column form (the pattern of df/dy
 * and the diagonal) and factors it by sparse LU (SuiteSparse KLU):
 * symbolic analysis once, a numeric refactorization per new matrix.  No
 * n x n dense matrix is allocated then, so systems of tens of thousands
 * of equations fit.
 *
 * The callback gets J with the pattern given here (the library's copy)
 * and values zeroed: it sets values[k] = d f_i / d y_j for the k-th
 * stored entry, i = rowind[k] and j the column whose range holds k.
 */
typedef int (*rths_ode_sparse_jac_fn)(double t, const double *y,
				      struct rths_csc *J, void *params);

enum rths_ode_linear_solver {
	/* sparse LU from RTHS_ODE_SPARSE_MIN_DIM equations on, dense LU
	 * (of the same sparse Jacobian) below */
	RTHS_ODE_LINEAR_AUTO,
	RTHS_ODE_LINEAR_DENSE,	/* dense LU of the sparse Jacobian */
	RTHS_ODE_LINEAR_SPARSE,	/* KLU whatever the size */
};

/*
 * The size from which RTHS_ODE_LINEAR_AUTO uses sparse LU.  On the mass
 * chain ("make bench-ode") KLU was ahead of dense LU from 2 equations
 * on, by a factor of 2 from 16; below 16 the difference is a few
 * microseconds a run, and tiny systems stay on LAPACK.
 */
#define RTHS_ODE_SPARSE_MIN_DIM 16

/*
 * Give an explicit ODE's Jacobian as a sparse matrix: dim + 1 column
 * pointers and their row indices (copied; see struct rths_csc), the
 * callback that fills the values, and the linear solver.  It replaces
 * the system's dense jac (and finite differences).  Call it after
 * rths_ode_new() and before rths_ode_init() (or init again after it).
 * -EINVAL for a NULL argument or a malformed pattern (rows not strictly
 * ascending within a column or out of range, more than INT_MAX entries),
 * -RTHS_E_METHOD for an explicit method (no Newton corrector) or a DAE;
 * ROSENBROCK_W takes it.
 */
int rths_ode_set_sparse_jac(struct rths_ode *s, const size_t *colptr,
			    const size_t *rowind, rths_ode_sparse_jac_fn jac,
			    enum rths_ode_linear_solver solver);

/*
 * Create a solver.  sys and ctl are copied (the atol_v and no_error_test
 * arrays too); ctl may be NULL for the defaults.  On failure returns NULL
 * and stores a negative code in *err (if err is not NULL).
 */
struct rths_ode *rths_ode_new(enum rths_ode_method method,
			      const struct rths_ode_system *sys,
			      const struct rths_ode_control *ctl, int *err);
void rths_ode_free(struct rths_ode *s);

/*
 * Set the initial state.  yp0 is y'(t0): ignored for explicit ODEs
 * (computed from rhs), required for DAEs, where (y0, yp0) must be
 * consistent, F(t0, y0, yp0) = 0 (for mechanical systems see
 * rths_ode_mech_project() and rths_ode_mech_dae_initial(), otherwise
 * rths_ode_calc_ic()).  A DAE start is checked: the correction a Newton
 * step of the starting step size would make to (y0, yp0) must be within
 * the tolerances (weighted RMS norm at most 1, stats.ic_norm), else
 * -RTHS_E_INCONSISTENT.  Resets the counters.
 */
int rths_ode_init(struct rths_ode *s, double t0, const double *y0,
		  const double *yp0);

/*
 * Consistent initial conditions of a DAE, after IDA's IDACalcIC: with the
 * differential components of y and the algebraic ones of yp as given,
 * solve F(t0, y, yp) = 0 for yp of the differential components and y of
 * the algebraic ones (algebraic[i] nonzero) by Newton's method, in place;
 * the other entries are starting guesses.  algebraic NULL: every
 * component is differential (an implicit ODE, all of yp is solved for).
 * Then rths_ode_init(s, t0, y, yp) accepts the start.  Returns
 * -RTHS_E_SINGULAR when the split does not determine the unknowns (a
 * DAE of index 2 or 3, such as the I3, SI2 and SI1 mechanical forms:
 * use rths_ode_mech_dae_initial()), -RTHS_E_INCONSISTENT when Newton
 * does not converge, -EINVAL for an explicit ODE.
 */
int rths_ode_calc_ic(struct rths_ode *s, double t0,
		     const unsigned char *algebraic, double *y, double *yp);

/*
 * Take one accepted step, never past tlim (nor past control.t_stop).  On
 * return *t is the new time and y the state there.
 */
int rths_ode_step(struct rths_ode *s, double tlim, double *t, double *y);

/*
 * Integrate to tout (>= the current time), interpolating if the last step
 * passed it (it never passes t_stop).  On return *t == tout and y is the
 * solution there, or on error *t and y hold the last accepted state.
 */
int rths_ode_evolve(struct rths_ode *s, double tout, double *t, double *y);

/*
 * Solution and derivative at t within the last step (dense output of the
 * method); y or yp may be NULL.
 */
int rths_ode_interpolate(const struct rths_ode *s, double t, double *y,
			 double *yp);

/* Current time and state (y, y'); y or yp may be NULL. */
double rths_ode_get_state(const struct rths_ode *s, double *y, double *yp);

const struct rths_ode_stats *rths_ode_get_stats(const struct rths_ode *s);
enum rths_ode_method rths_ode_get_method(const struct rths_ode *s);

#ifdef __cplusplus
}
#endif

#pragma GCC visibility pop

#endif /* RTHS_ODE_H */
