/* SPDX-License-Identifier: GPL-2.0 */
/* What rths-run and rths-coord share around a run. */
#ifndef RTHS_TOOLS_HSRUN_H
#define RTHS_TOOLS_HSRUN_H

#include <stdint.h>

#include <rths/hs_experiment.h>
#include <rths/hs_odesub.h>
#include <rths/hs_sim.h>

/* "TOOL: what went wrong" on stderr; returns 1, the exit status of a
 * bad file or option. */
int tool_error(const char *tool, const struct rths_error *err);

/* -d/--step-ticks: 1 to RTHS_STEP_TICKS_MAX, else a message and -1. */
int step_ticks_arg(const char *tool, const char *arg, uint32_t *d);

/* mkdir -p: 0, or -1 with errno. */
int mkdir_p(const char *dir);

/* The all-numerical structure (the specimen's model inside) with the
 * experiment's integrator and step. */
int reference_run(const struct rths_hs_experiment *x,
		  struct rths_hs_history *ref, struct rths_error *err);

#endif
