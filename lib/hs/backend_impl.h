/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What rths_hs_backend_set_plant() reaches in each backend. */
#ifndef RTHS_HS_BACKEND_IMPL_H
#define RTHS_HS_BACKEND_IMPL_H

#include <rths/hs_backend.h>

#pragma GCC visibility push(hidden)

/* -ENOTTY if @b is not of that kind; else as rths_hs_backend_set_plant() */
int rths_hs_offline_set_plant(struct rths_hs_backend *b,
			      const struct rths_sim_params *sim,
			      struct rths_error *err);
int rths_hs_device_set_plant(struct rths_hs_backend *b,
			     const struct rths_sim_params *sim,
			     struct rths_error *err);

/* Seconds of a step the device backend waits in real time (its hrtimer
 * clock paces the steps); 0 for another backend or the manual clock. */
double rths_hs_device_paced(const struct rths_hs_backend *b);

/* Room for @steps steps of the device backend's actuator-rate trace,
 * allocated and touched now, so that draining it in the step loop does
 * not allocate or fault; nothing for another backend.  -ENOMEM. */
int rths_hs_device_reserve(struct rths_hs_backend *b, uint64_t steps);

#pragma GCC visibility pop

#endif /* RTHS_HS_BACKEND_IMPL_H */
