/* SPDX-License-Identifier: GPL-2.0 */
/* What rths-run and rths-coord share around a run. */
#ifndef RTHS_TOOLS_HSRUN_H
#define RTHS_TOOLS_HSRUN_H

#include <rths/hs_experiment.h>
#include <rths/hs_sim.h>

/* mkdir -p: 0, or -1 with errno. */
int mkdir_p(const char *dir);

/* The all-numerical structure (the specimen's model inside) with the
 * experiment's integrator and step. */
int reference_run(const struct rths_hs_experiment *x,
		  struct rths_hs_history *ref, struct rths_error *err);

#endif
