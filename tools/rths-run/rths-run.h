/* SPDX-License-Identifier: GPL-2.0 */
/* rths-run's parts. */
#ifndef RTHS_RUN_H
#define RTHS_RUN_H

#include <stdbool.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <time.h>

#include <rths/hs.h>
#include <rths/hs_experiment.h>
#include <rths/hs_odesub.h>
#include <rths/hs_output.h>
#include <rths/rt.h>

#include "hs/preview_impl.h"
#include "../common/provenance.h"
#include "../live/live.h"

/* A progress bar on stderr; silent unless stderr is a terminal. */
struct progress {
	bool on;
	double dt;
	uint64_t last_pct;
};

void progress_init(struct progress *p, bool wanted, double dt);
/* The loop's callback (ctx: struct progress). */
void progress_update(void *ctx, uint64_t step, uint64_t steps);
void progress_done(struct progress *p);

/*
 * The thread that runs the steps (realtime.c): made real-time as the
 * experiment's "realtime" section says, and its counters at the first
 * and the last step.
 */
struct step_thread {
	bool entered;			/* rths_rt_enter() ran */
	struct rths_rt_status st;
	bool has_first, has_last;
	struct rths_rt_counters first, last;
	/* the loop's progress callback, called after the counters */
	void (*chain)(void *ctx, uint64_t step, uint64_t steps);
	void *chain_ctx;
};

/* rths_rt_enter() as x->realtime says (nothing if it is off); @device:
 * the step thread avoids the device's loop CPU.  An error only when
 * realtime.required. */
int step_thread_enter(const struct rths_hs_experiment *x, bool device,
		      struct step_thread *t, struct rths_error *err);
/* On stderr: what could not be done and which limit to raise. */
void step_thread_warn(const struct step_thread *t);
/* The loop's progress callback (ctx: struct step_thread). */
void step_thread_progress(void *ctx, uint64_t step, uint64_t steps);
/* After the loop: the last counters if the run ended early, and back to
 * a normal thread for the reference run and the outputs. */
void step_thread_leave(struct step_thread *t);

/* The live view and the offline pace (view.c). */
struct run_view_options {
	const char *listen;		/* --live ADDR:PORT, or NULL */
	const char *token;		/* --live-token's, or NULL */
	const char *cert, *key;		/* --live-cert, --live-key */
	bool pace;			/* --pace */
};

struct run_view {
	struct live *live;
	const struct rths_hs_history *h;	/* the run's, row by row */
	bool pace;
	struct timespec t0;
	double slept;			/* s, paced so far */
	/* the next per-step callback */
	void (*chain)(void *ctx, uint64_t step, uint64_t steps);
	void *chain_ctx;
};

/* Starts the live view if asked (its URL on stderr).  -errno, said. */
int run_view_start(struct run_view *rv, const struct rths_hs_experiment *x,
		   const struct run_view_options *o,
		   const struct rths_hs_history *h);
/* The view's threads off the step thread's CPU and the device loop's, at
 * SCHED_IDLE (live_place()), once the step thread is pinned. */
void run_view_place(struct run_view *rv, const struct step_thread *t,
		    const struct rths_hs_experiment *x, bool device);
/* The run's clock for the compute times: the monotonic one less the
 * time the pace slept (ctx: struct run_view). */
double run_view_clock(void *ctx);
/* The step thread's per-step callback (ctx: struct run_view). */
void run_view_step(void *ctx, uint64_t step, uint64_t steps);
/* The run is over: rths_hs_sim_run()'s @r and @res (live_run_state()). */
void run_view_finish(struct run_view *rv, int r,
		     const struct rths_hs_run_result *res);
/* After the outputs: serves @linger s more (less if *@stop is set),
 * then stops. */
void run_view_stop(struct run_view *rv, double linger,
		   const volatile sig_atomic_t *stop);
/* --live-token FILE's first line into @token; -1, said, if it is not a
 * token of 16 or more URL-safe characters. */
int run_view_token(const char *file, char *token, size_t len);

/* Tracking indicators (indicators.c). */
struct fei {
	double amplitude;	/* |FEI|: 1 is no gain error */
	double phase_deg;	/* arg(FEI) */
	double f_eq_hz;		/* the command's power-weighted frequency */
	double delay_ms;	/* -arg(FEI) / (2 pi f_eq) */
	bool ok;
};

/* The frequency evaluation index of measured @x against commanded @c
 * (@n samples @stride apart, @dt s): 0, or -errno. */
int tracking_fei(const double *c, const double *x, size_t n, size_t stride,
		 double dt, struct fei *out);
/* J1 over windows of @window s every @hop s as CSV at @path: 1 written,
 * 0 nothing to write (no actuator, too short), or -errno. */
int delay_csv(const char *path, const struct rths_hs_history *h,
	      double window, double hop, struct rths_error *err);

/* What the summary shows (report.c). */
struct report_input {
	const char *name;
	const char *backend;		/* e.g. "offline" */
	const char *actuator;		/* e.g. "lag 4 ms, delay 8 ticks" */
	const struct rths_hs_stepper_params *integrator;
	uint32_t rate, step_ticks;
	const char *compensation;	/* "none", "ats", ... */
	const struct rths_hs_history *h;
	const struct rths_hs_run_result *res;
	const struct rths_hs_history *ref;		/* may be NULL */
	const struct rths_hs_preview_result *preview;	/* may be NULL */
	const struct rths_hs_step_fit *preview_fit;	/* what chose d */
	/* the experiment's warnings, shown in the summary */
	const struct rths_hs_warning *warnings;
	size_t n_warnings;
	/* the ODE substructures and their work in the run */
	struct rths_hs_odesub *const *odesubs;
	const struct rths_hs_odesub_work *ode_work;
	size_t n_odesubs;
	/* the step thread; NULL or without counters: not shown */
	const struct step_thread *step_thread;
	const struct provenance *prov;		/* may be NULL */
};

#define REPORT_MAX_LISTED 16	/* DOFs shown in the text summary */

struct peak {
	double value, time;
};

/* Everything the report shows, computed once for text, JSON and plots. */
struct report {
	size_t n, m, n_listed;
	struct peak u[REPORT_MAX_LISTED], a_abs[REPORT_MAX_LISTED];
	struct peak stroke[RTHS_HS_MAX_CHANNELS], force[RTHS_HS_MAX_CHANNELS];
	struct rths_hs_tracking track[RTHS_HS_MAX_CHANNELS];
	/* J1 (benchmark): whole steps RTHS_HS_BENCHMARK_LAG_MIN..MAX, as
	 * its evaluation script (rths_hs_tracking_benchmark_lag()); < 0:
	 * not computed (too few steps) */
	long j1_bench[RTHS_HS_MAX_CHANNELS];
	double j1_bench_ms[RTHS_HS_MAX_CHANNELS];
	struct fei fei[RTHS_HS_MAX_CHANNELS];
	bool has_ref;
	double ref_rms[REPORT_MAX_LISTED], ref_peak[REPORT_MAX_LISTED];
	bool ref_still[REPORT_MAX_LISTED];	/* the reference does not move */
	uint64_t over_budget;
	double over_worst;
	size_t over_worst_step;
};

void report_compute(const struct report_input *in, struct report *R);
/* Peaks, RTHS benchmark tracking criteria, errors against the
 * all-numerical reference, timing, events; as text and as JSON. */
void report_text(FILE *f, const struct report_input *in);
int report_json(const char *path, const struct report_input *in,
		struct rths_error *err);
/* Steps whose compute took longer than the step: how many, the worst
 * (s) and its step (from 1). */
uint64_t report_over_budget(const struct rths_hs_history *h, double *worst,
			    size_t *worst_step);
/* The loud line about them, e.g. on stderr; nothing if there are none. */
void report_over_budget_warning(FILE *f, const struct report_input *in);

/*
 * Writes DIR/plots.gp for the CSV at @csv (its name relative to DIR)
 * and, if @run, runs gnuplot in DIR: response.png, and with actuators
 * tracking.png, hysteresis.png, steptime.png and delay.png (over
 * DIR/delay.csv, written here).  @R is the report of @h
 * (report_compute()): its J1-J3 and FEI title the tracking plot.
 * -RTHS_E_UNSUPPORTED if gnuplot is not installed.
 */
int plot(const char *dir, const char *csv, const struct rths_hs_history *h,
	 const struct report *R, bool with_ref, bool run,
	 struct rths_error *err);

#endif /* RTHS_RUN_H */
