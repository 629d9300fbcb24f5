// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Experiment files: the backend an experiment names, opened, and the
 * whole experiment run on it (rths_hs_experiment_open_backend(),
 * rths_hs_experiment_run()).  rths-run, the Python package and the MEX
 * interface all run an experiment through these two calls.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include <rths/hs.h>
#include <rths/hs_odesub.h>

#include "files/experiment_impl.h"

/*
 * On an rths device: the sim card is created if missing (and removed
 * afterwards), with the specimen's first stiffness and damping on every
 * channel; another card must already exist, set up by the lab.
 */
static int device_open(const struct rths_hs_experiment *x,
		       const char *trace_dir, struct rths_hs_backend *b,
		       struct rths_hs_backend_desc *d, struct rths_error *err)
{
	const struct rths_hs_actuator_model *a = &x->device.actuator;
	bool sim = !strcmp(x->device.card, "sim");
	struct rths_hs_device_params p = {
		.dev = &x->device,
		.channels = (uint32_t)x->setup.n_act,
		.stiffness = x->specimen.n_if ? x->specimen.k[0] : 0,
		.damping = x->specimen.n_if ? x->specimen.c[0] : 0,
		.create = sim,
	};
	char trace[PATH_MAX];

	if (sim && x->specimen.has_springs) {
		const struct rths_hs_element_params *sp = &x->specimen.springs[0];

		/* the card has one bilinear spring, the same on every channel */
		if (x->specimen.n_if != 1 || sp->kind != RTHS_HS_ELEMENT_BILINEAR)
			return rths_error_set(err, RTHS_E_UNSUPPORTED, x->path,
					      0, "specimen.springs",
					      "the sim card models one bilinear spring on a one-coordinate specimen; use that, or run offline");
		p.spring = sp;
	}
	if (trace_dir) {
		if ((size_t)snprintf(trace, sizeof(trace), "%s/trace.csv",
				     trace_dir) >= sizeof(trace))
			return rths_error_set(err, ENAMETOOLONG, trace_dir, 0,
					      NULL, "the trace's path is too long");
		p.trace_path = trace;
	}
	snprintf(d->backend, sizeof(d->backend),
		 "device %s (card %s, %u Hz, %u ticks a step)",
		 x->device.name, x->device.card, x->device.rate,
		 x->device.step_ticks);
	if (sim)
		snprintf(d->actuator, sizeof(d->actuator),
			 "sim card: lag %.3g ms, delay %u ticks, noise %.3g um / %.3g N, specimen %.4g N/m",
			 a->lag * 1e3, a->delay_ticks, a->noise_disp * 1e6,
			 a->noise_force, p.stiffness);
	return rths_hs_device_open(b, &p, err);
}

/* device.actuator.plant in place of the lag, said in the description */
static int plant_set(const struct rths_hs_experiment *x,
		     struct rths_hs_backend *b, struct rths_hs_backend_desc *d,
		     struct rths_error *err)
{
	size_t n = strlen(d->actuator);
	int r;

	if (!(x->plant.set & RTHS_SIM_PLANT))
		return 0;
	r = rths_hs_backend_set_plant(b, &x->plant, err);
	if (r) {
		rths_hs_backend_close(b);
		return r;
	}
	snprintf(d->actuator + n, sizeof(d->actuator) - n,
		 "; plant %s at %u Hz (%u sections) in place of the lag",
		 x->plant_name, x->device.rate, x->plant.plant_sections);
	return 0;
}

static int flags_check(const struct rths_hs_experiment *x, unsigned int flags,
		       struct rths_error *err)
{
	if (flags & ~RTHS_HS_RUN_OFFLINE)
		return rths_error_set(err, EINVAL, x->path, 0, NULL,
				      "unknown flags 0x%x",
				      flags & ~RTHS_HS_RUN_OFFLINE);
	return 0;
}

/* open_backend() with its arguments and flags already checked. */
static int backend_open(const struct rths_hs_experiment *x,
			unsigned int flags, const char *trace_dir,
			struct rths_hs_backend *b,
			struct rths_hs_backend_desc *desc,
			struct rths_error *err)
{
	const struct rths_hs_actuator_model *a;
	struct rths_hs_offline_params op;
	struct rths_hs_backend_desc own;
	struct rths_hs_backend_desc *d = desc ? desc : &own;
	int r;

	if (!x->has_specimen)
		return rths_error_set(err, EINVAL, x->path, 0, "specimen",
				      "an all-numerical experiment has no backend");
	memset(d, 0, sizeof(*d));
	a = &x->device.actuator;
	if (!(flags & RTHS_HS_RUN_OFFLINE) &&
	    x->device.backend == RTHS_HS_BACKEND_DEVICE) {
		r = device_open(x, trace_dir, b, d, err);
		return r ? r : plant_set(x, b, d, err);
	}
	rths_hs_experiment_offline_params(x, &op);
	snprintf(d->backend, sizeof(d->backend), "offline");
	snprintf(d->actuator, sizeof(d->actuator),
		 "modelled like the %s card: lag %.3g ms, delay %u ticks, noise %.3g um / %.3g N",
		 x->device.card, a->lag * 1e3, a->delay_ticks,
		 a->noise_disp * 1e6, a->noise_force);
	r = rths_hs_offline_open(b, &op, err);
	/* The device's limits hold the offline device as they would it. */
	if (r == 0)
		r = rths_hs_offline_set_limits(b, x->device.limits,
					       x->setup.n_act, err);
	return r ? r : plant_set(x, b, d, err);
}

int rths_hs_experiment_open_backend(const struct rths_hs_experiment *x,
				    unsigned int flags, const char *trace_dir,
				    struct rths_hs_backend *b,
				    struct rths_hs_backend_desc *desc,
				    struct rths_error *err)
{
	int r;

	if (!x || !b)
		return rths_error_set(err, EINVAL, NULL, 0, NULL,
				      "no experiment or no backend");
	r = flags_check(x, flags, err);
	return r ? r : backend_open(x, flags, trace_dir, b, desc, err);
}

int rths_hs_experiment_run(const struct rths_hs_experiment *x,
			   unsigned int flags, const char *trace_dir,
			   struct rths_hs_history *h,
			   struct rths_hs_run_result *res,
			   struct rths_error *err)
{
	struct rths_hs_sim_config cfg;
	struct rths_hs_backend b = { 0 };
	int r;

	if (!x || !h || !res)
		return rths_error_set(err, EINVAL, NULL, 0, NULL,
				      "no experiment, history or result");
	r = flags_check(x, flags, err);
	if (r < 0)
		return r;
	rths_hs_experiment_sim_config(x, &cfg);
	if (x->has_specimen) {
		r = backend_open(x, flags, trace_dir, &b, NULL, err);
		if (r < 0)
			return r;
		cfg.backend = &b;
	}
	r = rths_hs_sim_run_odesubs(&cfg, x->odesubs, x->n_odesubs, h, res,
				    err);
	if (x->has_specimen)
		rths_hs_backend_close(&b);
	return r;
}
