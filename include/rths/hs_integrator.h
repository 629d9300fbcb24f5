/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rths hybrid simulation: time integrators behind one stepper interface.
 *
 * A hybrid step has two halves because the displacement goes out to the
 * actuators and the force comes back:
 *
 *	rths_hs_stepper_command(st, f_next, &u_next, &err)  u_{n+1}, to impose
 *	... actuators move, the specimen is measured ...
 *	rths_hs_stepper_accept(st, r_exp_next, &err)	    a_{n+1}, v_{n+1}
 *
 * f_next is the external force at t_{n+1}; r_exp_next the measured
 * restoring force of the experimental substructure at the commanded
 * displacement, in DOF space (NULL: none).  Between the two calls the
 * command stays valid and can be read again.
 *
 * Methods (all second-order accurate):
 *   CR		Chen-Ricles: explicit, unconditionally stable (linear).
 *   KR_ALPHA	Kolay-Ricles: CR family with numerical damping rho_inf.
 *   ALPHA_OS	alpha operator splitting (HHT alpha in [-1/3, 0]): the
 *		command is the predictor, corrected with the initial
 *		stiffness after the measurement.
 *   NEWMARK_EXPLICIT  beta = 0, gamma (1/2: no numerical damping);
 *		stable for dt*omega <= 2 when gamma = 1/2.
 *   CENTRAL_DIFFERENCE  three-point form; stable for dt*omega <= 2.
 *   NEWMARK_IMPLICIT  average acceleration with modified Newton on the
 *		numerical model; needs the whole restoring force during the
 *		step, so only for all-numerical (reference) runs.
 *   GENERALIZED_ALPHA  Chung-Hulbert, numerical damping rho_inf, and
 *   HHT_ALPHA	Hilber-Hughes-Taylor, alpha in [-1/3, 0]: implicit with
 *		modified Newton like NEWMARK_IMPLICIT (all-numerical runs
 *		only), to a tolerance or a fixed number of iterations.
 *
 * The integration matrices of CR, KR-alpha and alpha-OS use the initial
 * stiffness K0 of the model plus an estimate of the specimen's stiffness
 * (and damping) in DOF space, as RTHS practice does.
 *
 * Errors: a negative errno or -RTHS_E_xxx (rths/error.h); calls that take
 * a struct rths_error fill it with what went wrong and where.
 */
#ifndef RTHS_HS_INTEGRATOR_H
#define RTHS_HS_INTEGRATOR_H

/* librths is built with -fvisibility=hidden: this is its API. */
#pragma GCC visibility push(default)

#include <stdint.h>

#include <rths/hs_error.h>
#include <rths/hs_model.h>

#ifdef __cplusplus
extern "C" {
#endif

enum rths_hs_method {
	RTHS_HS_CR = 1,
	RTHS_HS_KR_ALPHA,
	RTHS_HS_ALPHA_OS,
	RTHS_HS_NEWMARK_EXPLICIT,
	RTHS_HS_CENTRAL_DIFFERENCE,
	RTHS_HS_NEWMARK_IMPLICIT,
	RTHS_HS_GENERALIZED_ALPHA,
	RTHS_HS_HHT_ALPHA,
	/* Plug-ins (rths/hs_plugin.h): the numbers that
	 * rths_hs_integrator_register() gives, RTHS_HS_MAX_PLUGINS of them. */
	RTHS_HS_PLUGIN_FIRST = 0x100,
	RTHS_HS_PLUGIN_LAST = 0x10f,
};

struct rths_hs_stepper_params {
	enum rths_hs_method method;
	double dt;		/* s */
	double rho_inf;		/* KR-alpha, generalized-alpha: spectral
				 * radius at infinity, [0, 1]; 1 is CR
				 * (KR-alpha), no dissipation */
	double alpha;		/* alpha-OS, HHT-alpha: [-1/3, 0]; HHT from
				 * rho_inf in [1/2, 1]: (rho - 1)/(rho + 1) */
	double gamma;		/* explicit Newmark: >= 1/2 */
	unsigned int max_iter;	/* implicit methods: Newton iterations */
	double tol;		/* implicit methods: relative tolerance;
				 * generalized-alpha and HHT-alpha: 0 makes
				 * exactly max_iter iterations every step */
};

/* rho_inf 0.8, alpha -0.05, gamma 0.5, 100 iterations, tol 1e-10. */
void rths_hs_stepper_defaults(struct rths_hs_stepper_params *p,
			      enum rths_hs_method method, double dt);
/* "cr", "kr_alpha", "alpha_os", "newmark_explicit", "central_difference",
 * "newmark_implicit", "generalized_alpha", "hht_alpha". */
const char *rths_hs_method_name(enum rths_hs_method m);
/* The method by name; 0 (no method: the enum starts at 1) if @name is
 * unknown or NULL.  Not an error code, not negative. */
enum rths_hs_method rths_hs_method_from_name(const char *name);
/* Largest stable dt*omega of an undamped linear system; INFINITY if the
 * method is unconditionally stable. */
double rths_hs_method_stability_limit(const struct rths_hs_stepper_params *p);
/* Parameter ranges; the field in err->path. */
int rths_hs_stepper_params_check(const struct rths_hs_stepper_params *p,
				 struct rths_error *err);

struct rths_hs_stepper;

/* The specimen as the integrator sees it: DOF-space estimates. */
struct rths_hs_specimen_estimate {
	const double *k;	/* n x n stiffness, may be NULL */
	const double *c;	/* n x n damping, may be NULL */
};

/*
 * @model stays owned by the caller and must outlive the stepper; its
 * elements' state advances with the steps.  @est NULL: all-numerical.
 */
int rths_hs_stepper_new(struct rths_hs_stepper **out,
			struct rths_hs_model *model,
			const struct rths_hs_specimen_estimate *est,
			const struct rths_hs_stepper_params *p,
			struct rths_error *err);
/* Like free(), NULL is accepted and does nothing. */
void rths_hs_stepper_free(struct rths_hs_stepper *st);

/* The specimen's DOF-space estimates for a sparse model, as triplets
 * (rths/hs_model.h; nnz 0: none). */
struct rths_hs_sparse_estimate {
	struct rths_hs_triplets k;	/* stiffness */
	struct rths_hs_triplets c;	/* damping */
};

/*
 * A stepper for a sparse model (rths/hs_model.h), on the sparse path
 * whatever its size: M, K, C, K0 and each method's matrices in
 * compressed columns, factored by KLU, so that its memory grows with
 * their nonzeros and its factors', never with n^2.  The model is checked
 * as rths_hs_sparse_model_check() does, and its triplets (and @est's)
 * are not read after this call; its elements stay the caller's, must
 * outlive the stepper and advance with the steps.  @est NULL:
 * all-numerical.  Then the stepper is used as rths_hs_stepper_new()'s.
 *
 * Every built-in method steps a sparse model.  -RTHS_E_UNSUPPORTED for a
 * plug-in method (its callbacks take dense n x n matrices,
 * rths/hs_plugin.h) and, as for a dense model, for an implicit method
 * with a specimen.  rths_hs_sim and experiment files take a dense model.
 */
int rths_hs_stepper_new_sparse(struct rths_hs_stepper **out,
			       struct rths_hs_sparse_model *model,
			       const struct rths_hs_sparse_estimate *est,
			       const struct rths_hs_stepper_params *p,
			       struct rths_error *err);

/*
 * Initial state at t = 0 (u0, v0 NULL: at rest) under the external force
 * f0, with the specimen's initial force r_exp0 (NULL: 0).  Computes a0
 * from equilibrium.
 */
int rths_hs_stepper_start(struct rths_hs_stepper *st, const double *u0,
			  const double *v0, const double *f0,
			  const double *r_exp0, struct rths_error *err);
/* The displacement of step n+1 (n DOFs), valid until accept. */
int rths_hs_stepper_command(struct rths_hs_stepper *st, const double *f_next,
			    const double **u_next, struct rths_error *err);
/* Completes step n+1 with the measured experimental restoring force. */
int rths_hs_stepper_accept(struct rths_hs_stepper *st,
			   const double *r_exp_next, struct rths_error *err);

/* State of the last accepted step. */
const double *rths_hs_stepper_u(const struct rths_hs_stepper *st);
const double *rths_hs_stepper_v(const struct rths_hs_stepper *st);
const double *rths_hs_stepper_a(const struct rths_hs_stepper *st);
uint64_t rths_hs_stepper_step(const struct rths_hs_stepper *st);
double rths_hs_stepper_time(const struct rths_hs_stepper *st);
size_t rths_hs_stepper_dofs(const struct rths_hs_stepper *st);
const struct rths_hs_stepper_params *
rths_hs_stepper_params(const struct rths_hs_stepper *st);
/* Newton iterations of the last commanded step; 0 for the methods that
 * do not iterate. */
unsigned int rths_hs_stepper_iterations(const struct rths_hs_stepper *st);

#ifdef __cplusplus
}
#endif

#pragma GCC visibility pop

#endif /* RTHS_HS_INTEGRATOR_H */
