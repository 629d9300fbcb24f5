/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rths hybrid simulation: the step loop and the step-size preview.
 *
 * One step n (the patent's steps 3 to 6):
 *   u_{n+1}    = the integrator's command                 (n DOFs)
 *   x          = T u_{n+1}                                (interface)
 *   strokes    = setup decoupling of x                    (actuators)
 *   commands   = delay compensation of each stroke
 *   feedback   = backend: post the commands, wait for the step's sample
 *   X, F       = setup inverse of the measured strokes and forces
 *   r_exp      = F_map F,  then the integrator accepts the step.
 * Without a substructure the loop runs the model alone (all-numerical
 * reference, preview).
 *
 * Errors: a negative errno or -RTHS_E_xxx (rths/error.h); calls that take
 * a struct rths_error fill it with what went wrong and where.
 */
#ifndef RTHS_HS_SIM_H
#define RTHS_HS_SIM_H

/* librths is built with -fvisibility=hidden: this is its API. */
#pragma GCC visibility push(default)

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include <rths/hs_backend.h>
#include <rths/hs_compensation.h>
#include <rths/hs_groundmotion.h>
#include <rths/hs_integrator.h>
#include <rths/hs_model.h>
#include <rths/hs_setup.h>

#ifdef __cplusplus
extern "C" {
#endif

struct rths_hs_sim_config {
	const struct rths_hs_model *model;	/* copied for the run */
	/* The experimental part; all NULL for an all-numerical run. */
	const struct rths_hs_substructure *sub;
	const struct rths_hs_setup *setup;
	struct rths_hs_backend *backend;
	/* Specimen estimate in interface space (n_if x n_if), for the
	 * integration matrices; may be NULL. */
	const double *k_if;
	const double *c_if;
	const struct rths_hs_comp_params *comp;	/* NULL: none; dt is set */
	struct rths_hs_stepper_params integrator;
	const struct rths_hs_gm *gm;
	double duration;	/* s; 0: the record's */
	/* Set (from a signal handler) to stop: the backend holds and the
	 * run returns what it has. */
	const volatile sig_atomic_t *stop;
	/* Called every progress_every steps (0: never). */
	void (*progress)(void *ctx, uint64_t step, uint64_t steps);
	void *progress_ctx;
	uint64_t progress_every;
	/* Monotonic seconds for the compute-time statistics; NULL:
	 * CLOCK_MONOTONIC. */
	double (*clock)(void *ctx);
	void *clock_ctx;
};

/* Step history, a time-series table with one row per step (row 0 is
 * t = 0), not a linear-algebra matrix (those are column-major, mat.h):
 * step i of a quantity with w values per step starts at [i * w]. */
struct rths_hs_history {
	size_t n_dof, n_if, n_act;
	size_t rows, cap;
	double dt;
	double *t, *ag;			/* rows */
	double *influence;		/* n_dof: the model's r */
	double *u, *v, *a;		/* rows x n_dof */
	double *x_if;			/* rows x n_if, commanded interface */
	double *x_meas, *f_meas;	/* rows x n_if, measured interface */
	double *target;			/* rows x n_act, decoupled strokes */
	double *command;		/* rows x n_act, compensated, sent */
	double *disp, *force;		/* rows x n_act, measured */
	double *compute;		/* rows, s from feedback to command */
	uint32_t *flags;		/* rows, RTHS_FB_F_* */
};

/* Like free(), NULL is accepted and does nothing. */
void rths_hs_history_free(struct rths_hs_history *h);

struct rths_hs_run_result {
	uint64_t steps_planned, steps_done;
	bool interrupted;	/* the stop flag ended the run */
	bool held;		/* the backend was brought to hold */
	int error;		/* 0, or -code of what ended the run early */
	struct rths_error err;
	double compute_min, compute_mean, compute_max, compute_p99; /* s */
	double wall;		/* s */
	uint64_t late_steps;	/* feedback records flagged late */
	bool has_stats;
	struct rths_hs_backend_stats stats;
	double comp_coeffs[RTHS_HS_MAX_CHANNELS][3];
	unsigned long comp_updates[RTHS_HS_MAX_CHANNELS];
};

/*
 * Runs the test.  Returns 0 when it ran to the end or was stopped
 * (res->interrupted); a negative code if it could not start (nothing in
 * @h) or failed on the way (then @h holds the steps done, res->error and
 * res->err tell why, and the backend was held).
 */
int rths_hs_sim_run(const struct rths_hs_sim_config *cfg,
		    struct rths_hs_history *h, struct rths_hs_run_result *res,
		    struct rths_error *err);

/*
 * Step-size preview (claim 2 of patent CN109359427B,
 * Documentation/references.rst): run the whole test with the
 * specimen replaced by its linear estimate (a perfect offline actuator),
 * time the compute path, and pick the smallest d = 1, 2, ... for which
 * the compute time is below margin * the test's duration.  The step is
 * then d / rate.
 */
struct rths_hs_preview_params {
	uint32_t rate;		/* f_ctrl, Hz */
	uint32_t max_ticks;	/* largest d tried, <= 32 */
	double margin;		/* 1: the patent's criterion */
};

struct rths_hs_preview_row {
	uint32_t d;
	double dt;		/* s */
	uint64_t steps;
	double compute;		/* s, total */
	double compute_max;	/* s, worst step */
	bool fits;
};

struct rths_hs_preview_result {
	uint32_t chosen;	/* d, 0 if none fits */
	double dt;
	double duration;	/* s */
	size_t n_rows;
	struct rths_hs_preview_row rows[32];
};

/* 1024 Hz, up to 32 ticks, margin 1. */
void rths_hs_preview_defaults(struct rths_hs_preview_params *p);
/* @cfg as for the real run (its backend and dt are replaced);
 * -RTHS_E_TOO_SLOW if no d up to max_ticks fits. */
int rths_hs_preview(const struct rths_hs_sim_config *cfg,
		    const struct rths_hs_preview_params *pp,
		    struct rths_hs_preview_result *out,
		    struct rths_error *err);
/*
 * The same with @exchange_s seconds a step for the exchange with the
 * actual backend (rths_hs_backend_round_trip()): each row's compute is
 * then compute + steps * exchange_s (compute_max + exchange_s), so that a
 * costly exchange moves the choice to a coarser step.
 */
int rths_hs_preview_exchange(const struct rths_hs_sim_config *cfg,
			     const struct rths_hs_preview_params *pp,
			     double exchange_s,
			     struct rths_hs_preview_result *out,
			     struct rths_error *err);

#ifdef __cplusplus
}
#endif

#pragma GCC visibility pop

#endif /* RTHS_HS_SIM_H */
