// SPDX-License-Identifier: GPL-2.0
/*
 * One step of a substructure, whatever serves it: the native protocol
 * calls sub_execute() once per executed step, and nothing else moves the
 * specimen.  A numerical substructure computes its forces and commits its
 * springs; a device substructure commands its actuators (device.c): the
 * device is opened and started at its test's first step and stays so
 * across sessions until the test ends (BYE, RESET, a new test, the site's
 * exit), when it ramps to rest.
 */
#include <rths/hs_experiment.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "site.h"

int sub_state_init(const struct substructure *sub, struct sub_state *st)
{
	st->el = calloc(sub->nel + 1, sizeof(*st->el));
	if (!st->el)
		return -1;
	sub_state_reset(sub, st);
	return 0;
}

/* A device comes to rest and is closed; the next test opens it anew. */
static void device_end(const struct substructure *sub, struct sub_state *st)
{
	if (!st->dev)
		return;
	if (device_sub_stop(st->dev))
		site_log(LOG_ERR, "%s: stopping the device: %s", sub->name,
			 device_sub_error(st->dev));
	device_sub_close(st->dev);
	st->dev = NULL;
}

/* Back to the virgin specimen of the site file. */
void sub_state_reset(const struct substructure *sub, struct sub_state *st)
{
	device_end(sub, st);
	if (sub->nel)
		memcpy(st->el, sub->el, sub->nel * sizeof(*st->el));
}

void sub_state_free(const struct substructure *sub, struct sub_state *st)
{
	device_end(sub, st);
	free(st->el);
	st->el = NULL;
}

/* What WELCOME says of a device: its controller rate and step. */
void sub_device_timing(const struct substructure *sub, uint32_t *rate,
		       uint32_t *step_ticks)
{
	*rate = sub->dev ? sub->dev->device.rate : 0;
	*step_ticks = sub->dev ? sub->dev->device.step_ticks : 0;
}

static int device_execute(struct substructure *sub, struct sub_state *st,
			  uint64_t seq, const double *u, double *disp,
			  double *force, struct sub_step_info *info)
{
	struct device_step_info di;

	if (!st->dev) {
		if (device_sub_open(&st->dev, sub) ||
		    device_sub_start(st->dev)) {
			snprintf(info->why, sizeof(info->why),
				 "the device cannot run: %s",
				 st->dev ? device_sub_error(st->dev) :
				 "out of memory");
			site_log(LOG_ERR, "%s: %s", sub->name, info->why);
			device_sub_close(st->dev);
			st->dev = NULL;
			return -RNP_ERR_DEVICE;
		}
	}
	if (device_sub_step(st->dev, seq, u, disp, force, &di)) {
		snprintf(info->why, sizeof(info->why), "%s",
			 device_sub_error(st->dev));
		site_log(LOG_ERR, "%s: step %llu: %s", sub->name,
			 (unsigned long long)seq, info->why);
		return -RNP_ERR_DEVICE;
	}
	info->late_ticks = di.late_ticks;
	info->fb_flags = di.flags;
	info->flags = (di.late_ticks ? RNP_RES_LATE : 0) |
		      (di.held ? RNP_RES_HELD : 0);
	return 0;
}

/*
 * Execute step 'seq' at displacements u (velocities v and accelerations
 * a, or NULL: their terms are zero), from the committed state, which the
 * step then becomes.  Fills the measured displacements and the restoring
 * forces (n each) and the device's timing; returns 0, or -RNP_ERR_DEVICE
 * when the specimen could not be moved (nothing changed then).
 */
int sub_execute(struct substructure *sub, struct sub_state *st, uint64_t seq,
		const double *u, const double *v, const double *a,
		double *disp, double *force, struct sub_step_info *info)
{
	memset(info, 0, sizeof(*info));
	if (sub->dev)
		return device_execute(sub, st, seq, u, disp, force, info);
	memcpy(disp, u, (size_t)sub->n * sizeof(double));
	model_force(sub, st->el, u, v, a, force);
	model_commit(sub, st->el, u);
	return 0;
}
