/* SPDX-License-Identifier: GPL-2.0 */
/* The step thread made real-time as an experiment's "realtime" section
 * says: what rths-run and rths-site's device substructures share. */
#ifndef RTHS_TOOLS_STEPRT_H
#define RTHS_TOOLS_STEPRT_H

#include <stdbool.h>

#include <rths/hs_experiment.h>
#include <rths/rt.h>

/*
 * rths_rt_enter() for the calling thread as @x->realtime says (nothing,
 * and st->lock etc. 1, if it is off); @device: the thread avoids the
 * device's loop CPU (device.cpu, else what the device reports).  An error
 * only with realtime.required.
 */
int steprt_enter(const struct rths_hs_experiment *x, bool device,
		 struct rths_rt_status *st, struct rths_error *err);

/* The device's kernel loop CPU: device.cpu, else what the device
 * reports; -1 if neither. */
int steprt_loop_cpu(const struct rths_hs_experiment *x);

/* What could not be done and which limit to raise, one line each to
 * @say (without the tool's name); nothing when all was done. */
void steprt_warn(const struct rths_rt_status *st,
		 void (*say)(void *ctx, const char *line), void *ctx);

#endif
