/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* ODE substructures, private: the object and the multibody kind. */
#ifndef RTHS_HS_ODESUB_IMPL_H
#define RTHS_HS_ODESUB_IMPL_H

#include <rths/hs_odesub.h>

struct mb;

/* One hybrid step's work. */
struct work_rec {
	uint32_t ode_steps, f_evals, jac_evals, newton_iters;
	double compute;
};

struct rths_hs_odesub {
	enum rths_hs_odesub_kind kind;
	int dof_i, dof_j;
	size_t dim;
	/* chain */
	size_t nm;
	double m[RTHS_HS_ODESUB_MAX_MASSES], k[RTHS_HS_ODESUB_MAX_MASSES];
	double c[RTHS_HS_ODESUB_MAX_MASSES];
	/* damper */
	double cd, alpha, kb;
	/* integration */
	enum rths_ode_method method;
	struct rths_ode_control ctl;
	enum rths_hs_odesub_input input;
	unsigned long max_steps, max_f_evals;
	struct rths_ode *ode;
	double *y, *y_try;
	/* the step's input: u_b, a_g at t0 and t1, v_b; with the step's
	 * end velocities (rths_hs_odesub_step_vel(), LINEAR input) u_b is
	 * the cubic Hermite of ub0, vb0, ub1, vb1 instead */
	double t0, t1, ub0, ub1, ag0, ag1, vb;
	double vb0, vb1;
	bool hermite;
	double force;
	/* multibody (odesub_mb.c) */
	struct mb *mb;
	/* work records, one per hybrid step (row 0 unused) */
	struct work_rec *rec;
	uint64_t n_rec, cap_rec;
	double budget;
};

/* The compute time of the steps recorded so far: total and worst, s. */
void rths_hs_odesub_compute(const struct rths_hs_odesub *s, double *total,
			    double *worst);

/* u_b and a_g at t within the step, and v_b. */
void rths_hs_odesub_input_at(const struct rths_hs_odesub *s, double t,
			     double *ub, double *ag);
double rths_hs_odesub_vb_at(const struct rths_hs_odesub *s, double t);
/* rths_ode_step() from s->t0 to s->t1 under the caps (after init);
 * @after (may be NULL) sees every accepted step. */
int rths_hs_odesub_integrate(struct rths_hs_odesub *s, double *y,
			     void (*after)(struct rths_hs_odesub *s, double t,
					   const double *y),
			     struct rths_error *err);

/* The multibody kind (odesub_mb.c). */
const struct rths_ode_system *rths_hs_mb_system(const struct mb *mb);
/* Per-component absolute tolerances of the DAE state (dim). */
const double *rths_hs_mb_atol(struct mb *mb, double atol);
/* At s->t0 with the base at s->ub0 moving at s->vb. */
int rths_hs_mb_start(struct rths_hs_odesub *s, struct rths_error *err);
/* One step over [s->t0, s->t1] with the input already set; the force
 * on the DOF in *force. */
int rths_hs_mb_step(struct rths_hs_odesub *s, double *force,
		    struct rths_error *err);
/* After a step: drift and energy records. */
void rths_hs_mb_work_step(struct rths_hs_odesub *s);
void rths_hs_mb_work(const struct rths_hs_odesub *s,
		     struct rths_hs_odesub_work *w);
void rths_hs_mb_free(struct mb *mb);

#endif /* RTHS_HS_ODESUB_IMPL_H */
