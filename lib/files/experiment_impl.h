/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The experiment parser's sections, private. */
#ifndef RTHS_FILES_EXPERIMENT_IMPL_H
#define RTHS_FILES_EXPERIMENT_IMPL_H

#include <rths/hs_experiment.h>

#include "files/json_read.h"

/* Common bounds. */
extern const struct rths_hs_jrange rths_hs_jr_positive;	/* (0, inf) */
extern const struct rths_hs_jrange rths_hs_jr_nonneg;	/* [0, inf) */
extern const struct rths_hs_jrange rths_hs_jr_ratio;	/* [0, 1) */

/* "model": fills x->model; also the stories' stiffnesses for the
 * shorthand substructure (x->specimen.k gets the tested ones). */
int rths_hs_exp_model(const struct rths_hs_jctx *c, json_t *root,
		      struct rths_hs_experiment *x);
/* "model.damping", once the specimen's DOF-space stiffness @k_extra
 * (may be NULL) is known: frequencies are those of the whole structure. */
int rths_hs_exp_damping(const struct rths_hs_jctx *c, json_t *root,
			struct rths_hs_experiment *x, const double *k_extra);
/* "substructure", "specimen", "setup" (after the model). */
int rths_hs_exp_specimen(const struct rths_hs_jctx *c, json_t *root,
			 struct rths_hs_experiment *x);
/* device.actuator.plant (experiment_plant.c), after the rate */
int rths_hs_exp_plant(const struct rths_hs_jctx *c, json_t *dev,
		      struct rths_hs_experiment *x);
/* "device". */
int rths_hs_exp_device(const struct rths_hs_jctx *c, json_t *root,
		       struct rths_hs_experiment *x);
/* "realtime" (after the device). */
int rths_hs_exp_realtime(const struct rths_hs_jctx *c, json_t *root,
			 struct rths_hs_experiment *x);
/* "ode_substructures" (after the model and the device); and freeing
 * them. */
int rths_hs_exp_odesubs(const struct rths_hs_jctx *c, json_t *root,
			struct rths_hs_experiment *x);
void rths_hs_exp_odesubs_free(struct rths_hs_experiment *x);
/* "integrator.plugin" and its "params" (experiment_plugin.c): opens the
 * shared object (@base_dir: the file's folder), registers its type and
 * sets x->integrator.method; "compensation.plugin" likewise sets
 * x->comp.kind; and closing both again. */
int rths_hs_exp_plugin(const struct rths_hs_jctx *c, json_t *o,
		       const char *base_dir, struct rths_hs_experiment *x);
int rths_hs_exp_comp_plugin(const struct rths_hs_jctx *c, json_t *o,
			    const char *base_dir,
			    struct rths_hs_experiment *x);
void rths_hs_exp_plugin_free(struct rths_hs_experiment *x);
/* One hysteretic element's parameters (type, stiffness, ...). */
int rths_hs_exp_element(const struct rths_hs_jctx *c, json_t *obj,
			const char *path, double default_k,
			struct rths_hs_element_params *p);

/* Adds a warning (the first RTHS_HS_MAX_WARNINGS are kept). */
void rths_hs_experiment_warn(struct rths_hs_experiment *x,
			     enum rths_hs_warning_code code, const char *path,
			     const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif /* RTHS_FILES_EXPERIMENT_IMPL_H */
