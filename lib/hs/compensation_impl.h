/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Compensation inside the engine: the checked calls the run loop makes,
 * and the compensator plug-ins (compensation_plugin.c). */
#ifndef RTHS_HS_COMPENSATION_IMPL_H
#define RTHS_HS_COMPENSATION_IMPL_H

#include <stdint.h>

#include <rths/hs_compensation.h>
#include <rths/hs_plugin.h>

/* rths_hs_comp_new() for actuator @channel (a plug-in is told it). */
int rths_hs_comp_new_channel(struct rths_hs_comp **out,
			     const struct rths_hs_comp_params *p,
			     unsigned int channel, struct rths_error *err);
/* rths_hs_comp_command() for step @n, with a plug-in's failure or a
 * non-finite command as an error. */
int rths_hs_comp_step(struct rths_hs_comp *c, uint64_t n, double target,
		      double *command, struct rths_error *err);
/* rths_hs_comp_observe() for step @n, likewise. */
int rths_hs_comp_learn(struct rths_hs_comp *c, uint64_t n, double command,
		       double measured, struct rths_error *err);

static inline bool rths_hs_comp_is_plugin(enum rths_hs_comp_kind k)
{
	return (unsigned int)k - RTHS_HS_COMP_PLUGIN_FIRST <
	       RTHS_HS_MAX_PLUGINS;
}

/* The plug-in registered as @kind and its params, or NULL. */
const struct rths_hs_compensator_type *
rths_hs_comp_plugin_lookup(enum rths_hs_comp_kind kind, const char **params);
/* The first plug-in registered as @name, its kind in *@kind. */
const struct rths_hs_compensator_type *
rths_hs_comp_plugin_by_name(const char *name, enum rths_hs_comp_kind *kind);
/* A callback's failure, named; the plug-in's own words if it gave any. */
int rths_hs_comp_plugin_fail(const struct rths_hs_compensator_type *t,
			     const char *cb, uint64_t n, int r,
			     const struct rths_error *e,
			     struct rths_error *err);

#endif /* RTHS_HS_COMPENSATION_IMPL_H */
