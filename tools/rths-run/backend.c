// SPDX-License-Identifier: GPL-2.0
/* rths-run: which backend runs the specimen. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "rths-run.h"

/*
 * On an rths device: the sim card is created if missing (and removed
 * afterwards), with the specimen's first stiffness and damping on every
 * channel; another card must already exist, set up by the lab.
 */
static int device_open(const struct rths_hs_experiment *x, const char *dir,
		       struct rths_hs_backend *b, char *desc, size_t desc_len,
		       char *actuator, size_t act_len,
		       struct rths_error *err)
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
					      "the sim card models one bilinear spring on a one-coordinate specimen; use that, or run --offline");
		p.spring = sp;
	}
	if (x->out.csv) {
		snprintf(trace, sizeof(trace), "%s/trace.csv", dir);
		p.trace_path = trace;
	}
	snprintf(desc, desc_len, "device %s (card %s, %u Hz, %u ticks a step)",
		 x->device.name, x->device.card, x->device.rate,
		 x->device.step_ticks);
	if (sim)
		snprintf(actuator, act_len,
			 "sim card: lag %.3g ms, delay %u ticks, noise %.3g um / %.3g N, specimen %.4g N/m",
			 a->lag * 1e3, a->delay_ticks, a->noise_disp * 1e6,
			 a->noise_force, p.stiffness);
	else
		actuator[0] = '\0';
	return rths_hs_device_open(b, &p, err);
}

/* device.actuator.plant in place of the lag, said in the summary */
static int plant_set(const struct rths_hs_experiment *x,
		     struct rths_hs_backend *b, char *actuator,
		     size_t act_len, struct rths_error *err)
{
	size_t n = strlen(actuator);
	int r;

	if (!(x->plant.set & RTHS_SIM_PLANT))
		return 0;
	r = rths_hs_backend_set_plant(b, &x->plant, err);
	if (r) {
		rths_hs_backend_close(b);
		return r;
	}
	snprintf(actuator + n, act_len - n,
		 "; plant %s at %u Hz (%u sections) in place of the lag",
		 x->plant_name, x->device.rate, x->plant.plant_sections);
	return 0;
}

int backend_open(const struct rths_hs_experiment *x, bool offline,
		 const char *dir, struct rths_hs_backend *b, char *desc,
		 size_t desc_len, char *actuator, size_t act_len,
		 struct rths_error *err)
{
	const struct rths_hs_actuator_model *a = &x->device.actuator;
	struct rths_hs_offline_params op;

	int r;

	if (!offline && x->device.backend == RTHS_HS_BACKEND_DEVICE) {
		r = device_open(x, dir, b, desc, desc_len, actuator, act_len,
				err);
		return r ? r : plant_set(x, b, actuator, act_len, err);
	}
	rths_hs_experiment_offline_params(x, &op);
	snprintf(desc, desc_len, "offline");
	snprintf(actuator, act_len,
		 "modelled like the %s card: lag %.3g ms, delay %u ticks, noise %.3g um / %.3g N",
		 x->device.card, a->lag * 1e3, a->delay_ticks,
		 a->noise_disp * 1e6, a->noise_force);
	r = rths_hs_offline_open(b, &op, err);
	/* The device's limits hold the offline device as they would it. */
	if (r == 0)
		r = rths_hs_offline_set_limits(b, x->device.limits,
					       x->setup.n_act, err);
	return r ? r : plant_set(x, b, actuator, act_len, err);
}
