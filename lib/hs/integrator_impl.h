/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The stepper's common state and the per-method operations, private. */
#ifndef RTHS_HS_INTEGRATOR_IMPL_H
#define RTHS_HS_INTEGRATOR_IMPL_H

#include <stdbool.h>

#include <rths/hs_integrator.h>

#include "hs/linalg.h"

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
	void (*destroy)(struct rths_hs_stepper *st);
};

struct rths_hs_stepper {
	const struct rths_hs_stepper_ops *ops;
	struct rths_hs_stepper_params p;
	struct rths_hs_model *model;
	size_t n;
	bool has_specimen;
	double *k0;		/* model K0 + specimen stiffness estimate */
	double *c;		/* model C + specimen damping estimate */
	struct la_lin mass_lu;
	double *u, *v, *a;	/* step n */
	double *u1;		/* command of step n+1 */
	double *f, *f1;		/* external force at n and n+1 */
	double *r;		/* total restoring force at n */
	double *w1, *w2, *w3;	/* scratch vectors */
	uint64_t step;
	bool started, commanded;
	void *priv;
};

extern const struct rths_hs_stepper_ops rths_hs_cr_ops;
extern const struct rths_hs_stepper_ops rths_hs_kr_alpha_ops;
extern const struct rths_hs_stepper_ops rths_hs_alpha_os_ops;
extern const struct rths_hs_stepper_ops rths_hs_newmark_explicit_ops;
extern const struct rths_hs_stepper_ops rths_hs_central_difference_ops;
extern const struct rths_hs_stepper_ops rths_hs_newmark_implicit_ops;

/* out = K u + f_el(u) + r_exp (trial state of the model's elements). */
void rths_hs_stepper_restoring(struct rths_hs_stepper *st, const double *u,
			       const double *r_exp, double *out);
/* n x n matrix a*M + b*C + c*K0 (newly allocated). */
double *rths_hs_stepper_combine(const struct rths_hs_stepper *st, double a,
				double b, double c, struct rths_error *err);

#endif /* RTHS_HS_INTEGRATOR_IMPL_H */
