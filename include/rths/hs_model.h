/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rths hybrid simulation: structural models.
 *
 * The numerical substructure is  M a + C v + K u + f_el(u) + r_exp = f,
 * with linear M, C, K (n x n, column-major, SI units: kg, N*s/m, N/m),
 * hysteretic two-node springs f_el (bilinear, Bouc-Wen) and the measured
 * restoring force r_exp of the experimental substructure.  The ground
 * acceleration ag enters as f = -M r ag with the influence vector r.
 *
 * The substructure maps between the model's DOFs and the interface:
 * the command is x = T u (T: n_if x n), the measured interface force f_if
 * goes back as r_exp = F f_if (F: n x n_if).  F = T^T is the usual choice;
 * the patent's column (top force F gives base moment F*L and base shear
 * -F) is F = [L; -1].
 *
 * Errors: a negative errno or -RTHS_E_xxx (rths/error.h); calls that take
 * a struct rths_error fill it with what went wrong and where.
 */
#ifndef RTHS_HS_MODEL_H
#define RTHS_HS_MODEL_H

/* librths is built with -fvisibility=hidden: this is its API. */
#pragma GCC visibility push(default)

#include <stddef.h>

#include <rths/hs_error.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Standard gravity, m/s^2: records in g are converted with it. */
#define RTHS_HS_G 9.80665

enum rths_hs_element_kind {
	RTHS_HS_ELEMENT_LINEAR = 1,
	RTHS_HS_ELEMENT_BILINEAR,	/* kinematic hardening */
	RTHS_HS_ELEMENT_BOUC_WEN,	/* smooth hysteresis */
};

struct rths_hs_element_params {
	enum rths_hs_element_kind kind;
	double k;	/* initial stiffness, N/m */
	double fy;	/* yield force, N (bilinear, Bouc-Wen) */
	double alpha;	/* post-yield stiffness ratio, [0, 1) */
	double n;	/* Bouc-Wen smoothness exponent, >= 1 */
	double beta;	/* Bouc-Wen shape; beta + gamma = 1 makes the */
	double gamma;	/* hysteretic force saturate at (1 - alpha) fy */
};

/*
 * A spring between DOF i and DOF j (j = -1: the ground) whose deformation
 * is u_i - u_j.  The state is committed once per step; trial calls in
 * between start from the committed state, so a step can be retried.
 */
struct rths_hs_element {
	struct rths_hs_element_params p;
	int dof_i, dof_j;
	/* committed state */
	double d, f, z;
	/* trial state */
	double d_t, f_t, z_t, k_t;
};

/* Defaults for a kind: alpha 0.1, n 2, beta = gamma = 0.5. */
void rths_hs_element_defaults(struct rths_hs_element_params *p,
			      enum rths_hs_element_kind kind, double k,
			      double fy);
/* Returns -RTHS_E_OUT_OF_RANGE with the field in err->path. */
int rths_hs_element_check(const struct rths_hs_element_params *p,
			  struct rths_error *err);
void rths_hs_element_init(struct rths_hs_element *e,
			  const struct rths_hs_element_params *p, int dof_i,
			  int dof_j);
/* Force at deformation @d from the committed state; sets the tangent. */
double rths_hs_element_trial(struct rths_hs_element *e, double d);
void rths_hs_element_commit(struct rths_hs_element *e);
void rths_hs_element_revert(struct rths_hs_element *e);

struct rths_hs_model {
	size_t n;
	double *m;		/* n x n mass */
	double *k;		/* n x n linear stiffness (without elements) */
	double *c;		/* n x n damping */
	double *r;		/* n influence vector of the ground motion */
	size_t n_elements;
	struct rths_hs_element *elements;
};

/* Zero matrices, r = 1 (horizontal shaking of every DOF). */
int rths_hs_model_init(struct rths_hs_model *m, size_t n,
		       struct rths_error *err);
/* Like free(), NULL is accepted and does nothing. */
void rths_hs_model_free(struct rths_hs_model *m);
int rths_hs_model_copy(struct rths_hs_model *dst,
		       const struct rths_hs_model *src,
		       struct rths_error *err);

/*
 * Shear building: story i (0 = ground story) joins floor i to floor i-1
 * (or the ground).  Lumped masses, story stiffnesses assembled into K;
 * a zero stiffness leaves the story out (tested, or a nonlinear element).
 */
int rths_hs_model_shear_building(struct rths_hs_model *m, size_t stories,
				 const double *mass, const double *stiffness,
				 struct rths_error *err);
/* A spring between DOF i and j (j = -1: ground). */
int rths_hs_model_add_element(struct rths_hs_model *m, int dof_i, int dof_j,
			      const struct rths_hs_element_params *p,
			      struct rths_error *err);
/* Symmetric M (positive definite), K and C; finite numbers. */
int rths_hs_model_check(const struct rths_hs_model *m,
			struct rths_error *err);

/* K0 = K + the elements' initial stiffness (n x n). */
void rths_hs_model_initial_stiffness(const struct rths_hs_model *m,
				     double *k0);
/* K + the elements' trial tangents. */
void rths_hs_model_tangent(const struct rths_hs_model *m, double *kt);
/*
 * Circular frequencies (ascending) and M-orthonormal modes (optional) of
 * K0 + @k_extra (n x n, may be NULL: e.g. the specimen's estimate).
 */
int rths_hs_model_frequencies(const struct rths_hs_model *m,
			      const double *k_extra, double *omega,
			      double *phi, struct rths_error *err);

/* a0, a1 with zeta(w) = a0 / (2 w) + a1 w / 2 through two points. */
void rths_hs_rayleigh_coefficients(double w1, double w2, double zeta1,
				   double zeta2, double *a0, double *a1);
/* C = a0 M + a1 K0 (the numerical part's initial stiffness). */
void rths_hs_model_set_rayleigh(struct rths_hs_model *m, double a0,
				double a1);
/*
 * Modal damping C = M Phi diag(2 zeta_i w_i) Phi^T M from the modes of
 * K0 + @k_extra; modes past @count take the last ratio.
 */
int rths_hs_model_set_modal_damping(struct rths_hs_model *m,
				    const double *zeta, size_t count,
				    const double *k_extra,
				    struct rths_error *err);

/* f = -M r ag */
void rths_hs_model_ground_force(const struct rths_hs_model *m, double ag,
				double *f);
/* Restoring force K u + f_el(u) (trial state of the elements). */
void rths_hs_model_restoring(struct rths_hs_model *m, const double *u,
			     double *r);
void rths_hs_model_commit(struct rths_hs_model *m);
void rths_hs_model_revert(struct rths_hs_model *m);

/*
 * A large sparse model: the same equation with M, K and C given as
 * triplets, from which nothing n x n is ever formed (a 100,000-DOF frame
 * would need 240 GB dense).  rths_hs_stepper_new_sparse()
 * (rths/hs_integrator.h) compresses them into the stepper's own columns;
 * the arrays stay the caller's and are not read again after it.
 *
 * Entry (row[q], col[q]) of the n x n matrix is val[q], 0-based; entries
 * given more than once are summed, as finite-element assembly gives them
 * (and as MATLAB's sparse() sums them), and entries that are zero then
 * are left out.  Both triangles of a symmetric matrix are given.
 */
struct rths_hs_triplets {
	size_t nnz;
	const size_t *row;
	const size_t *col;
	const double *val;
};

struct rths_hs_sparse_model {
	size_t n;
	struct rths_hs_triplets m;	/* mass */
	struct rths_hs_triplets k;	/* linear stiffness (without elements) */
	struct rths_hs_triplets c;	/* damping */
	const double *r;	/* n influence vector; NULL: 1 for every DOF */
	size_t n_elements;
	struct rths_hs_element *elements;	/* as rths_hs_model's, which
						 * rths_hs_element_init() sets;
						 * their state advances with the
						 * steps */
};

/*
 * What rths_hs_stepper_new_sparse() checks before it steps: at least one
 * DOF (and at most INT_MAX, KLU's index), every triplet's row and column
 * in 0..n-1 (-RTHS_E_BAD_DOF) and its value finite (-RTHS_E_NONFINITE),
 * M, K and C symmetric to 1e-9 of their largest entry
 * (-RTHS_E_NOT_SYMMETRIC), r finite, the elements' DOFs and parameters
 * valid.  err->path names the matrix ("mass", "stiffness", "damping"),
 * the message the triplet.  Positive definiteness of M is not checked
 * (it needs a factorization: the stepper's KLU factorization of M names
 * a singular one, -RTHS_E_SINGULAR).
 */
int rths_hs_sparse_model_check(const struct rths_hs_sparse_model *m,
			       struct rths_error *err);
/* f = -M r ag (n values), from the triplets of a model that
 * rths_hs_sparse_model_check() accepts. */
void rths_hs_sparse_model_ground_force(const struct rths_hs_sparse_model *m,
				       double ag, double *f);

struct rths_hs_substructure {
	size_t n_dof;
	size_t n_if;
	double *cmd_map;	/* n_if x n_dof: x = T u */
	double *force_map;	/* n_dof x n_if: r_exp = F f_if */
};

/* Zero maps of the given shape. */
int rths_hs_substructure_init(struct rths_hs_substructure *s, size_t n_dof,
			      size_t n_if, struct rths_error *err);
/* Like free(), NULL is accepted and does nothing. */
void rths_hs_substructure_free(struct rths_hs_substructure *s);
/* F = T^T: forces work-conjugate to the commanded displacements. */
void rths_hs_substructure_force_map_transpose(struct rths_hs_substructure *s);
void rths_hs_substructure_command(const struct rths_hs_substructure *s,
				  const double *u, double *x);
void rths_hs_substructure_feedback(const struct rths_hs_substructure *s,
				   const double *f_if, double *r_exp);
/* kdof += F kif T: an interface matrix (n_if x n_if) in DOF space. */
int rths_hs_substructure_to_dofs(const struct rths_hs_substructure *s,
				 const double *kif, double *kdof,
				 struct rths_error *err);
/*
 * The one check of what a substructure is given, whatever serves it: a
 * numerical model, a device (rths-site's, on every protocol) or an ODE
 * substructure.  @n values were given, @n_expected are wanted
 * (-RTHS_E_BAD_SHAPE otherwise); each of the displacements @u and, when
 * not NULL, the velocities @v, accelerations @a and time @t must be a
 * finite number (-RTHS_E_DIVERGED otherwise, naming the first that is
 * not: "displacement 1 is nan: not a finite number").  Nothing else is
 * touched.  A device's limits are the device's to check: the kernel, or
 * the offline backend, holds on a trip (rths_hs_offline_set_limits()).
 */
int rths_hs_substructure_check_input(size_t n, size_t n_expected,
				     const double *u, const double *v,
				     const double *a, const double *t,
				     struct rths_error *err);
/*
 * The all-numerical structure: a copy of @src with the specimen replaced
 * by its linear model (interface stiffness @k_if and damping @c_if,
 * n_if x n_if, either may be NULL).
 */
int rths_hs_model_with_specimen(struct rths_hs_model *dst,
				const struct rths_hs_model *src,
				const struct rths_hs_substructure *s,
				const double *k_if, const double *c_if,
				struct rths_error *err);

#ifdef __cplusplus
}
#endif

#pragma GCC visibility pop

#endif /* RTHS_HS_MODEL_H */
