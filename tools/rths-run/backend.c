// SPDX-License-Identifier: GPL-2.0
/* rths-run: which backend runs the specimen. */
#include <stdio.h>

#include "rths-run.h"

int backend_open(const struct rths_hs_experiment *x, bool offline,
		 struct rths_hs_backend *b, char *desc, size_t desc_len,
		 char *actuator, size_t act_len, struct rths_hs_error *err)
{
	const struct rths_hs_actuator_model *a = &x->device.actuator;
	struct rths_hs_offline_params op;

	if (!offline && x->device.backend == RTHS_HS_BACKEND_DEVICE)
		/* The device backend (<rths/device.h>) plugs in here. */
		return rths_hs_fail(err, RTHS_HS_E_UNSUPPORTED, x->path, 0,
				    "device.backend",
				    "running on device %s (card %s) is not in this build yet; run with --offline or set \"backend\": \"offline\"",
				    x->device.name, x->device.card);
	rths_hs_experiment_offline_params(x, &op);
	snprintf(desc, desc_len, "offline");
	snprintf(actuator, act_len,
		 "modelled like the %s card: lag %.3g ms, delay %u ticks, noise %.3g um / %.3g N",
		 x->device.card, a->lag * 1e3, a->delay_ticks,
		 a->noise_disp * 1e6, a->noise_force);
	return rths_hs_offline_open(b, &op, err);
}
