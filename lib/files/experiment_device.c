// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Experiment files: the "device" section.  Checked against the kernel's
 * bounds (<linux/rths.h>) here, so a bad file fails before any device is
 * touched; the device backend sends what was set.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "files/experiment_impl.h"

static int name_field(const struct rths_hs_jctx *c, json_t *dev,
		      const char *key, char *out, const char *dflt)
{
	const char *s = dflt;
	char p[RTHS_HS_JPATH];
	size_t n;
	int r = rths_hs_jstring(c, dev, "device", key, false, &s);

	if (r < 0)
		return r;
	rths_hs_jpath_key(p, "device", key);
	n = strlen(s);
	if (n == 0 || n >= RTHS_NAME_LEN ||
	    strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		      "0123456789_-") != n)
		return rths_hs_jfail(c, RTHS_E_OUT_OF_RANGE, p,
				     "expected 1 to %d characters of [a-zA-Z0-9_-], got \"%s\"",
				     RTHS_NAME_LEN - 1, s);
	snprintf(out, RTHS_NAME_LEN, "%s", s);
	return 0;
}

/* An optional whole number; sets @bit in *set when present. */
static int opt_uint(const struct rths_hs_jctx *c, json_t *obj, const char *path,
		    const char *key, unsigned long long lo,
		    unsigned long long hi, uint32_t *out, unsigned int *set,
		    unsigned int bit)
{
	unsigned long long v;
	int r = rths_hs_juint(c, obj, path, key, false, lo, hi, &v);

	if (r == 0) {
		*out = (uint32_t)v;
		*set |= bit;
	}
	return r < 0 ? r : 0;
}

static int ring_entries(const struct rths_hs_jctx *c, json_t *dev,
			const char *key, bool zero_ok, uint32_t *out,
			unsigned int *set, unsigned int bit)
{
	char p[RTHS_HS_JPATH];
	int r = opt_uint(c, dev, "device", key, zero_ok ? 0 : 2,
			 RTHS_RING_ENTRIES_MAX, out, set, bit);

	if (r || !(*set & bit) || (*out & (*out - 1)) == 0)
		return r;
	rths_hs_jpath_key(p, "device", key);
	return rths_hs_jfail(c, RTHS_E_OUT_OF_RANGE, p,
			     "expected a power of two%s, got %u",
			     zero_ok ? " (0: off)" : "", *out);
}

static int limits(const struct rths_hs_jctx *c, json_t *dev,
		  struct rths_hs_experiment *x)
{
	static const char *const keys[] = { "stroke_min", "stroke_max",
					    "velocity_max", "force_max", NULL };
	const struct rths_hs_jrange pos = { .lo = -(double)RTHS_POS_MAX * 1e-9,
					    .hi = (double)RTHS_POS_MAX * 1e-9,
					    .unit = "m" };
	const struct rths_hs_jrange vel = { .lo = 0, .hi = 1e3, .lo_open = true,
					    .unit = "m/s" };
	const struct rths_hs_jrange force = {
		.lo = 0, .hi = (double)RTHS_FORCE_MAX * 1e-6, .lo_open = true,
		.unit = "N" };
	size_t m = x->setup.n_act;
	json_t *arr;
	int r = rths_hs_jarray(c, dev, "device", "limits", false, m, m, &arr);

	if (r)
		return r < 0 ? r : 0;
	for (size_t i = 0; i < m; i++) {
		struct rths_hs_channel_limits *l = &x->device.limits[i];
		json_t *o;
		char p[RTHS_HS_JPATH];

		r = rths_hs_jelement(c, arr, "device.limits", i,
				     "{\"stroke_min\": m, \"stroke_max\": m, \"velocity_max\": m/s, \"force_max\": N}",
				     keys, &o, p);
		if (r)
			return r;
#define LIM(key, range, field, bit) do { \
		r = rths_hs_jnumber(c, o, p, key, false, range, &l->field); \
		if (r < 0) \
			return r; \
		if (r == 0) \
			l->set |= bit; \
	} while (0)
		LIM("stroke_min", &pos, stroke_min, RTHS_HS_LIM_STROKE_MIN);
		LIM("stroke_max", &pos, stroke_max, RTHS_HS_LIM_STROKE_MAX);
		LIM("velocity_max", &vel, velocity_max, RTHS_HS_LIM_VELOCITY_MAX);
		LIM("force_max", &force, force_max, RTHS_HS_LIM_FORCE_MAX);
#undef LIM
		if ((l->set & RTHS_HS_LIM_STROKE_MIN) &&
		    (l->set & RTHS_HS_LIM_STROKE_MAX) &&
		    !(l->stroke_min < l->stroke_max))
			return rths_hs_jfail(c, RTHS_E_OUT_OF_RANGE, p,
					     "expected stroke_min < stroke_max");
	}
	return 0;
}

static int actuator(const struct rths_hs_jctx *c, json_t *dev,
		    struct rths_hs_actuator_model *a)
{
	static const char *const keys[] = { "lag", "delay_ticks", "noise_disp",
					    "noise_force", "seed", "plant",
					    NULL };
	const struct rths_hs_jrange lag = { .lo = 0,
					    .hi = RTHS_SIM_LAG_US_MAX * 1e-6,
					    .unit = "s" };
	const struct rths_hs_jrange nd = { .lo = 0, .hi = UINT32_MAX * 1e-9,
					   .unit = "m" };
	const struct rths_hs_jrange nf = { .lo = 0, .hi = UINT32_MAX * 1e-6,
					   .unit = "N" };
	unsigned long long v;
	json_t *o;
	int r = rths_hs_jobject(c, dev, "device", "actuator", false, &o);

	a->seed = 1;
	if (r)
		return r < 0 ? r : 0;
	if ((r = rths_hs_jkeys(c, o, "device.actuator", keys)) ||
	    (r = rths_hs_jnumber(c, o, "device.actuator", "lag", false, &lag,
				 &a->lag)) < 0 ||
	    (r = rths_hs_jnumber(c, o, "device.actuator", "noise_disp", false,
				 &nd, &a->noise_disp)) < 0 ||
	    (r = rths_hs_jnumber(c, o, "device.actuator", "noise_force", false,
				 &nf, &a->noise_force)) < 0)
		return r;
	r = rths_hs_juint(c, o, "device.actuator", "delay_ticks", false, 0,
			  RTHS_SIM_DELAY_MAX, &v);
	if (r < 0)
		return r;
	if (r == 0)
		a->delay_ticks = (uint32_t)v;
	r = rths_hs_juint(c, o, "device.actuator", "seed", false, 0,
			  UINT64_MAX, &v);
	if (r < 0)
		return r;
	if (r == 0)
		a->seed = v;
	return 0;
}

int rths_hs_exp_device(const struct rths_hs_jctx *c, json_t *root,
		       struct rths_hs_experiment *x)
{
	static const char *const keys[] = {
		"backend", "name", "card", "rate", "step_ticks", "late_policy",
		"late_deadline", "ramp_ticks", "clock", "cpu", "priority",
		"cmd_entries", "fb_entries", "trace_entries", "limits",
		"actuator", "preview_margin", NULL,
	};
	static const char *const backends[] = { "offline", "device", NULL };
	static const char *const policies[] = { "strict", "hold",
						"event-driven", NULL };
	static const char *const clocks[] = { "hrtimer", "manual", NULL };
	struct rths_hs_device_config *d = &x->device;
	unsigned int dummy = 0;
	json_t *dev, *st;
	int r, i;

	d->backend = RTHS_HS_BACKEND_OFFLINE;
	d->rate = RTHS_RATE_DEFAULT;
	snprintf(d->name, sizeof(d->name), "rths0");
	snprintf(d->card, sizeof(d->card), "sim");
	d->actuator.seed = 1;
	x->preview_margin = RTHS_HS_PREVIEW_MARGIN_DEFAULT;
	r = rths_hs_jobject(c, root, "", "device", false, &dev);
	if (r)
		return r < 0 ? r : 0;
	d->backend = RTHS_HS_BACKEND_DEVICE;
	if ((r = rths_hs_jkeys(c, dev, "device", keys)))
		return r;
	r = rths_hs_jchoice(c, dev, "device", "backend", false, backends, &i);
	if (r < 0)
		return r;
	if (r == 0)
		d->backend = (enum rths_hs_backend_kind)(i + 1);
	if ((r = name_field(c, dev, "name", d->name, "rths0")) ||
	    (r = name_field(c, dev, "card", d->card, "sim")) ||
	    (r = opt_uint(c, dev, "device", "rate", RTHS_RATE_MIN,
			  RTHS_RATE_MAX, &d->rate, &dummy, 1)))
		return r;
	if ((r = rths_hs_jnumber(c, dev, "device", "preview_margin", false,
				 &rths_hs_jr_ratio, &x->preview_margin)) < 0)
		return r;
	st = json_object_get(dev, "step_ticks");
	if (st && !(json_is_string(st) && !strcmp(json_string_value(st),
						  "auto")) &&
	    (r = opt_uint(c, dev, "device", "step_ticks", 1,
			  RTHS_STEP_TICKS_MAX, &d->step_ticks, &dummy, 1)))
		return r;
	r = rths_hs_jchoice(c, dev, "device", "late_policy", false, policies,
			    &i);
	if (r < 0)
		return r;
	if (r == 0) {
		d->late_policy = (enum rths_late_policy)(i + 1);
		d->set |= RTHS_HS_DEV_LATE_POLICY;
	}
	r = rths_hs_jchoice(c, dev, "device", "clock", false, clocks, &i);
	if (r < 0)
		return r;
	if (r == 0) {
		d->clock = (enum rths_clock)(i + 1);
		d->set |= RTHS_HS_DEV_CLOCK;
	}
	if ((r = opt_uint(c, dev, "device", "late_deadline", 1,
			  RTHS_STEP_TICKS_MAX - 1, &d->late_deadline, &d->set,
			  RTHS_HS_DEV_LATE_DEADLINE)) ||
	    (r = opt_uint(c, dev, "device", "ramp_ticks", 1,
			  RTHS_RAMP_TICKS_MAX, &d->ramp_ticks, &d->set,
			  RTHS_HS_DEV_RAMP_TICKS)) ||
	    (r = opt_uint(c, dev, "device", "cpu", 0, 4095, &d->cpu, &d->set,
			  RTHS_HS_DEV_CPU)) ||
	    (r = opt_uint(c, dev, "device", "priority", 1, 99, &d->priority,
			  &d->set, RTHS_HS_DEV_PRIORITY)) ||
	    (r = ring_entries(c, dev, "cmd_entries", false, &d->cmd_entries,
			      &d->set, RTHS_HS_DEV_CMD_ENTRIES)) ||
	    (r = ring_entries(c, dev, "fb_entries", false, &d->fb_entries,
			      &d->set, RTHS_HS_DEV_FB_ENTRIES)) ||
	    (r = ring_entries(c, dev, "trace_entries", true, &d->trace_entries,
			      &d->set, RTHS_HS_DEV_TRACE_ENTRIES)) ||
	    (r = limits(c, dev, x)) || (r = actuator(c, dev, &d->actuator)) ||
	    (r = rths_hs_exp_plant(c, dev, x)))
		return r;
	if ((d->set & RTHS_HS_DEV_LATE_DEADLINE) &&
	    d->late_policy != RTHS_LATE_EVENT_DRIVEN)
		return rths_hs_jfail(c, RTHS_E_CONFLICT,
				     "device.late_deadline",
				     "a deadline only applies to late_policy \"event-driven\"");
	return 0;
}
