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
#include <math.h>
#include <rths/hs_experiment.h>
#include <stdarg.h>
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
	site_view_ended(sub);
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
		site_view_running(sub);
	}
	if (device_sub_step(st->dev, seq, u, disp, force, &di)) {
		snprintf(info->why, sizeof(info->why), "%s",
			 device_sub_error(st->dev));
		site_log(LOG_ERR, "%s: step %llu: %s", sub->name,
			 (unsigned long long)seq, info->why);
		return -RNP_ERR_DEVICE;
	}
	site_view_step(sub, device_sub_steps(st->dev), u, disp, force, &di);
	info->late_ticks = di.late_ticks;
	info->fb_flags = di.flags;
	info->flags = (di.late_ticks ? RNP_RES_LATE : 0) |
		      (di.held ? RNP_RES_HELD : 0);
	return 0;
}

static int check_fail(char *why, size_t len, int code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int check_fail(char *why, size_t len, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
	return -code;
}

/* The first value of x[0..n) that is not finite, or -1. */
static int not_finite(const double *x, int n)
{
	for (int i = 0; x && i < n; i++)
		if (!isfinite(x[i]))
			return i;
	return -1;
}

/*
 * A device's limits, before anything moves: the strokes the setup gives
 * for u within each actuator's device.limits and the device's range.
 * The device itself (the kernel, or the offline backend) checks them
 * again on every tick of the interpolated, compensated command, and
 * holds on a trip.
 */
static int check_limits(const struct substructure *sub, const double *u,
			char *why, size_t len)
{
	const struct rths_hs_experiment *x = sub->dev;
	double st[RTHS_HS_MAX_CHANNELS];
	struct rths_error err = { 0 };

	if (rths_hs_setup_strokes(&x->setup, u, st, &err))
		return check_fail(why, len, RNP_ERR_DEVICE,
				  "the setup has no strokes for it: %s",
				  err.msg);
	for (size_t i = 0; i < x->setup.n_act; i++) {
		const struct rths_hs_channel_limits *l = &x->device.limits[i];
		double lo = -(double)RTHS_POS_MAX * 1e-9, hi = -lo;

		if (l->set & RTHS_HS_LIM_STROKE_MIN)
			lo = l->stroke_min;
		if (l->set & RTHS_HS_LIM_STROKE_MAX)
			hi = l->stroke_max;
		if (!(st[i] >= lo && st[i] <= hi))
			return check_fail(why, len, RNP_ERR_DEVICE,
					  "actuator %zu stroke %.9g m beyond its limits [%.9g, %.9g] m (device.limits); nothing moved",
					  i, st[i], lo, hi);
	}
	return 0;
}

/*
 * The one check every input to a substructure passes, numerical or
 * device, whatever the protocol (native STEP, OpenFresco's trials on
 * ports A, B and C): librths's (rths_hs_substructure_check_input(), as
 * its ODE substructures' steps): @ndof equals the substructure's DOF,
 * every value (u, and v, a and t when given) is finite; and a device's
 * strokes stay within its limits.  Returns 0, or -RNP_ERR_DOF,
 * -RNP_ERR_PROTOCOL (a value that is not a number) or -RNP_ERR_DEVICE
 * (a limit) with the reason in @why; nothing was changed then.
 */
int sub_check_input(const struct substructure *sub, uint32_t ndof,
		    const double *u, const double *v, const double *a,
		    const double *t, char *why, size_t len)
{
	struct rths_error err = { 0 };
	int r = rths_hs_substructure_check_input(ndof, (size_t)sub->n, u, v,
						 a, t, &err);

	if (r)
		return check_fail(why, len, r == -RTHS_E_BAD_SHAPE ?
				  RNP_ERR_DOF : RNP_ERR_PROTOCOL, "%s",
				  err.msg);
	return sub->dev ? check_limits(sub, u, why, len) : 0;
}

/* The restoring forces a numerical model computed are finite. */
int sub_check_output(const struct substructure *sub, const double *f,
		     char *why, size_t len)
{
	int i = not_finite(f, sub->n);

	if (i >= 0)
		return check_fail(why, len, RNP_ERR_PROTOCOL,
				  "force %d is %g: the model overflowed; nothing committed",
				  i, f[i]);
	return 0;
}

/*
 * Execute step 'seq' at displacements u (velocities v and accelerations
 * a, or NULL: their terms are zero) that passed sub_check_input(), from
 * the committed state, which the step then becomes.  Fills the measured
 * displacements and the restoring forces (n each) and the device's
 * timing; returns 0, or -RNP_ERR_DEVICE when the specimen could not be
 * moved, -RNP_ERR_PROTOCOL when a model's forces overflowed (nothing
 * changed then).
 */
int sub_execute(struct substructure *sub, struct sub_state *st, uint64_t seq,
		const double *u, const double *v, const double *a,
		double *disp, double *force, struct sub_step_info *info)
{
	int r;

	memset(info, 0, sizeof(*info));
	if (sub->dev)
		return device_execute(sub, st, seq, u, disp, force, info);
	memcpy(disp, u, (size_t)sub->n * sizeof(double));
	model_force(sub, st->el, u, v, a, force);
	r = sub_check_output(sub, force, info->why, sizeof(info->why));
	if (r)
		return r;
	model_commit(sub, st->el, u);
	return 0;
}
