/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rths hybrid simulation: outputs of a run.
 *   CSV      the step history, one row a step (every n-th)
 *   report   peaks, RTHS benchmark tracking criteria, errors against the
 *            all-numerical reference, timing, events; text and JSON
 *   plots    a gnuplot script over the CSV, run to make PNGs
 */
#ifndef RTHS_HS_OUTPUT_H
#define RTHS_HS_OUTPUT_H

/* librths is built with -fvisibility=hidden: this is its API. */
#pragma GCC visibility push(default)

#include <stdio.h>

#include <rths/hs_error.h>
#include <rths/hs_integrator.h>
#include <rths/hs_sim.h>

/* CSV columns, 1-based as gnuplot counts them. */
enum rths_hs_csv_field {
	RTHS_HS_CSV_TIME = 1,	/* index ignored */
	RTHS_HS_CSV_AG,
	RTHS_HS_CSV_U,		/* DOF index */
	RTHS_HS_CSV_V,
	RTHS_HS_CSV_A,
	RTHS_HS_CSV_TARGET,	/* actuator index */
	RTHS_HS_CSV_COMMAND,
	RTHS_HS_CSV_DISP,
	RTHS_HS_CSV_FORCE,
	RTHS_HS_CSV_UREF,	/* DOF index; only with a reference */
};

int rths_hs_csv_column(const struct rths_hs_history *h, bool with_ref,
		       enum rths_hs_csv_field f, size_t index);
/* @ref (may be NULL) adds the reference displacements. */
int rths_hs_write_csv(const char *path, const struct rths_hs_history *h,
		      const struct rths_hs_history *ref, unsigned int every,
		      struct rths_hs_error *err);

struct rths_hs_report_input {
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
};

void rths_hs_report_text(FILE *f, const struct rths_hs_report_input *in);
int rths_hs_report_json(const char *path, const struct rths_hs_report_input *in,
			struct rths_hs_error *err);

/*
 * Writes DIR/plots.gp for the CSV at @csv (its name relative to DIR)
 * and, if @run, runs gnuplot in DIR: response.png, tracking.png and
 * hysteresis.png (the last two with actuators only).
 * -RTHS_HS_E_UNSUPPORTED if gnuplot is not installed.
 */
int rths_hs_plot(const char *dir, const char *csv,
		 const struct rths_hs_history *h, bool with_ref, bool run,
		 struct rths_hs_error *err);

#pragma GCC visibility pop

#endif /* RTHS_HS_OUTPUT_H */
