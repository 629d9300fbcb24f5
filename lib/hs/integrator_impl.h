/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The stepper's common state and the per-method operations, private. */
#ifndef RTHS_HS_INTEGRATOR_IMPL_H
#define RTHS_HS_INTEGRATOR_IMPL_H

#include <stdbool.h>

#include <rths/hs_integrator.h>
#include <rths/hs_plugin.h>

#include "hs/linalg.h"

/*
 * What one sparse step of a method cannot avoid, on the stepper's own
 * matrices and KLU factors: its sparse products and its solves with one
 * right-hand side (bench-hs times them as the step's floor).
 */
#define RTHS_HS_STEP_KERNELS_MAX 32
struct rths_hs_step_kernels {
	const struct la_csc *prod[RTHS_HS_STEP_KERNELS_MAX];
	const struct la_lin *solve[RTHS_HS_STEP_KERNELS_MAX];
	int nprod, nsolve;
};

struct rths_hs_stepper_ops {
	/* Integration matrices, once. */
	int (*setup)(struct rths_hs_stepper *st, struct rths_error *err);
	/* After u, v, a, f, r hold step 0 (optional). */
	int (*started)(struct rths_hs_stepper *st, struct rths_error *err);
	/* st->u1 from step n; st->f1 holds the force at n+1. */
	int (*command)(struct rths_hs_stepper *st, struct rths_error *err);
	/* u, v, a, r become step n+1 (f still holds step n). */
	int (*accept)(struct rths_hs_stepper *st, const double *r_exp,
		      struct rths_error *err);
	/* Once priv is set: what the method holds beyond st->mem and its
	 * kept factorizations (optional). */
	void (*destroy)(struct rths_hs_stepper *st);
	/* A sparse step's products and solves (optional; bench-hs). */
	void (*kernels)(const struct rths_hs_stepper *st,
			struct rths_hs_step_kernels *k);
};

/*
 * A model that is large and sparse (stepper_sparse.c): M, K and C in
 * compressed columns; the stepper's products and solves use them and
 * KLU instead of the dense n x n arrays.
 */
struct rths_hs_csc {
	struct la_csc m;
	int *colptr, *rowind;	/* owned by this matrix */
};

struct rths_hs_sparse {
	struct rths_hs_csc m;	/* model M */
	struct rths_hs_csc k;	/* model K (linear part) */
	struct rths_hs_csc c;	/* model C */
	struct rths_hs_csc k0;	/* the stepper's K0 (specimen estimate in) */
	struct rths_hs_csc c0;	/* the stepper's C (specimen estimate in) */
};

/*
 * From rths_hs_sparse_min_dofs DOF on (RTHS_HS_SPARSE_MIN_DOFS unless a
 * unit test or benchmark moves it to compare both paths on one model), a
 * model whose M, C and K0 together have at most
 * RTHS_HS_SPARSE_MAX_DENSITY of their entries nonzero runs sparse.  On
 * shear buildings (tridiagonal) the sparse CR and KR-alpha steps were
 * 1.4 to 8 times faster than the dense ones from 35 DOF on; below about
 * 30 DOF a tridiagonal model is denser than 10 % anyway.  Every method
 * has the sparse path.
 */
#define RTHS_HS_SPARSE_MIN_DOFS 32
extern size_t rths_hs_sparse_min_dofs;
#define RTHS_HS_SPARSE_MAX_DENSITY 0.1

#define RTHS_HS_STEPPER_LINS 4	/* KR-alpha's three, and one spare */

struct rths_hs_stepper {
	const struct rths_hs_stepper_ops *ops;
	struct rths_hs_stepper_params p;
	struct rths_hs_model *model;
	/* a sparse model's n and elements, the rest NULL (model points
	 * here): the element forces and commits take a struct rths_hs_model */
	struct rths_hs_model elements_only;
	size_t n;
	bool has_specimen;
	double *k0;		/* model K0 + specimen stiffness estimate */
	double *c;		/* model C + specimen damping estimate */
	/* (k0 and c dense, for a dense model only; sp has them too) */
	struct la_lin mass_lu;	/* dense LU of M, or KLU if sp */
	struct rths_hs_sparse *sp;	/* NULL: dense */
	double *u, *v, *a;	/* step n */
	double *u1;		/* command of step n+1 */
	double *f, *f1;		/* external force at n and n+1 */
	double *r;		/* total restoring force at n */
	double *w1, *w2, *w3;	/* scratch vectors */
	uint64_t step;
	unsigned int iterations;	/* Newton, of the last command */
	bool started, commanded;
	void *priv;
	/* priv and the method's arrays, freed with the stepper */
	struct rths_owned mem;
	/* the method's factorizations, released with the stepper */
	struct la_lin *lins[RTHS_HS_STEPPER_LINS];
	unsigned int nlins;
};

/*
 * A method's private state (zeroed, as st->priv) and its arrays (count
 * zeroed doubles), freed with the stepper.  NULL with ENOMEM in err
 * (naming @what, the method, for the state).
 */
void *rths_hs_stepper_priv(struct rths_hs_stepper *st, size_t size,
			   const char *what, struct rths_error *err);
double *rths_hs_stepper_zalloc(struct rths_hs_stepper *st, size_t count,
			       struct rths_error *err);
/* lu, in the method's state, is released with the stepper (at most
 * RTHS_HS_STEPPER_LINS of them): a method needs no destroy() for it. */
void rths_hs_stepper_keep_lin(struct rths_hs_stepper *st,
			      struct la_lin *lu);

extern const struct rths_hs_stepper_ops rths_hs_cr_ops;
extern const struct rths_hs_stepper_ops rths_hs_kr_alpha_ops;
extern const struct rths_hs_stepper_ops rths_hs_alpha_os_ops;
extern const struct rths_hs_stepper_ops rths_hs_newmark_explicit_ops;
extern const struct rths_hs_stepper_ops rths_hs_central_difference_ops;
/* Implicit Newmark, generalized-alpha and HHT-alpha (integrator_galpha.c). */
extern const struct rths_hs_stepper_ops rths_hs_implicit_alpha_ops;
/* Calls a registered plug-in (integrator_plugin.c). */
extern const struct rths_hs_stepper_ops rths_hs_plugin_ops;

/* The plug-in registered as @method and its params (valid while it
 * stays registered), or NULL. */
const struct rths_hs_integrator_type *
rths_hs_plugin_lookup(enum rths_hs_method method, const char **params);
/* The first plug-in registered under @name, its number in *method. */
const struct rths_hs_integrator_type *
rths_hs_plugin_by_name(const char *name, enum rths_hs_method *method);

/* r += the trial forces of the model's elements at u (model.c). */
void rths_hs_model_element_forces(struct rths_hs_model *m, const double *u,
				  double *r);
/* out = K u + f_el(u) + r_exp (trial state of the model's elements). */
void rths_hs_stepper_restoring(struct rths_hs_stepper *st, const double *u,
			       const double *r_exp, double *out);
/* Newmark implicit, generalized-alpha, HHT-alpha: all-numerical only. */
bool rths_hs_method_implicit(enum rths_hs_method m);
/* n x n matrix a*M + b*C + c*K0 (newly allocated). */
double *rths_hs_stepper_combine(const struct rths_hs_stepper *st, double a,
				double b, double c, struct rths_error *err);

/* --- the sparse path (stepper_sparse.c) */
/*
 * Decide on st->sp (n, density) and build it; factor M into st->mass_lu
 * by KLU if sparse.  0 with st->sp NULL for a dense model.
 */
int rths_hs_sparse_setup(struct rths_hs_stepper *st, struct rths_error *err);
/* st->sp from a sparse model's compressed M, K, C (taken over, freed
 * on failure too), its elements and @est; M factored by KLU. */
int rths_hs_sparse_setup_model(struct rths_hs_stepper *st,
			       const struct rths_hs_sparse_model *model,
			       struct rths_hs_csc mkc[3],
			       const struct rths_hs_sparse_estimate *est,
			       struct rths_error *err);

/* --- sparse models (model_sparse.c) */
/* Checks (rths_hs_sparse_model_check()) and compresses M, K and C. */
int rths_hs_sparse_model_compress(const struct rths_hs_sparse_model *m,
				  struct rths_hs_csc out[3],
				  struct rths_error *err);
/* Every triplet's row and column in 0..n-1 and value finite; err->path
 * is @what. */
int rths_hs_triplets_check(size_t n, const struct rths_hs_triplets *t,
			   const char *what, struct rths_error *err);
/* Checked triplets into compressed columns, repeated entries summed,
 * zeros left out. */
int rths_hs_csc_from_triplets(size_t n, const struct rths_hs_triplets *t,
			      struct rths_hs_csc *out, struct rths_error *err);
/* The elements' initial stiffness in compressed columns. */
int rths_hs_sparse_elements_k0(const struct rths_hs_sparse_model *m,
			       struct rths_hs_csc *out,
			       struct rths_error *err);
void rths_hs_sparse_free(struct rths_hs_sparse *sp);
/*
 * a*M + b*C + c*K0 in compressed columns (the stepper's C and K0), the
 * pattern the union of the matrices' with a nonzero coefficient; and
 * its factorization by KLU (@what names it in errors).
 */
int rths_hs_csc_combine(const struct rths_hs_stepper *st, double a, double b,
			double c, struct rths_hs_csc *out,
			struct rths_error *err);
int rths_hs_csc_factor(const struct rths_hs_stepper *st, double a, double b,
		       double c, struct la_lin *lu, const char *what,
		       struct rths_error *err);
/* The same with the model's own C (no specimen estimate) for b. */
int rths_hs_csc_factor_model_c(const struct rths_hs_stepper *st, double a,
			       double b, double c, struct la_lin *lu,
			       const char *what, struct rths_error *err);
void rths_hs_csc_free(struct rths_hs_csc *m);
/* y = alpha K0 x + beta y with the stepper's K0, dense or sparse. */
void rths_hs_stepper_k0v(const struct rths_hs_stepper *st, double alpha,
			 const double *x, double beta, double *y);
/* y = alpha C x + beta y with the model's C, dense or sparse. */
void rths_hs_stepper_cv(const struct rths_hs_stepper *st, double alpha,
			const double *x, double beta, double *y);
/* y = alpha M x + beta y with the model's M, dense or sparse. */
void rths_hs_stepper_mv(const struct rths_hs_stepper *st, double alpha,
			const double *x, double beta, double *y);

#endif /* RTHS_HS_INTEGRATOR_IMPL_H */
