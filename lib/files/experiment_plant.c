// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * device.actuator.plant: the sim card's discrete-time plant in place of
 * the lag, a preset ("benchmark", optionally with its parameters changed)
 * or a continuous transfer function, designed at device.rate.
 */
#include <stdio.h>
#include <string.h>

#include <rths/sim_plant.h>

#include "files/experiment_impl.h"

#define PATH "device.actuator.plant"

/* The benchmark's parameters, any of them overriding the nominal ones. */
static int benchmark(const struct rths_hs_jctx *c, json_t *o,
		     double *num, double *den)
{
	struct rths_benchmark_plant bp;
	struct {
		const char *key;
		double *v;
		const struct rths_hs_jrange *r;
	} f[] = {
		{ "gain", &bp.gain, &rths_hs_jr_nonneg },
		{ "a1b0", &bp.a1b0, &rths_hs_jr_positive },
		{ "a2", &bp.a2, &rths_hs_jr_positive },
		{ "b1", &bp.b1, &rths_hs_jr_positive },
		{ "b2", &bp.b2, &rths_hs_jr_positive },
		{ "a3", &bp.a3, &rths_hs_jr_positive },
		{ "me", &bp.me, &rths_hs_jr_positive },
		{ "ke", &bp.ke, &rths_hs_jr_positive },
		{ "zeta", &bp.zeta, &rths_hs_jr_positive },
	};
	struct rths_error e = { 0 };
	int r;

	rths_benchmark_plant_nominal(&bp);
	for (size_t i = 0; o && i < sizeof(f) / sizeof(f[0]); i++) {
		r = rths_hs_jnumber(c, o, PATH, f[i].key, false, f[i].r,
				    f[i].v);
		if (r < 0)
			return r;
	}
	r = rths_benchmark_plant_tf(&bp, num, den, &e);
	if (r)
		return rths_hs_jfail(c, r, PATH, "%s: %s", e.path, e.msg);
	return 0;
}

/* A polynomial in s, highest power first: 1 to ORDER_MAX + 1 numbers. */
static int poly(const struct rths_hs_jctx *c, json_t *p, const char *key,
		double *out, size_t *n)
{
	const struct rths_hs_jrange any = { .lo = -1e300, .hi = 1e300 };
	char path[RTHS_HS_JPATH];
	json_t *a;
	int r = rths_hs_jarray(c, p, PATH, key, true, 1,
			       RTHS_SIM_PLANT_ORDER_MAX + 1, &a);

	if (r)
		return r;
	*n = json_array_size(a);
	rths_hs_jpath_key(path, PATH, key);
	return rths_hs_jvector(c, a, path, *n, &any, out);
}

int rths_hs_exp_plant(const struct rths_hs_jctx *c, json_t *dev,
		      struct rths_hs_experiment *x)
{
	static const char *const keys[] = {
		"preset", "num", "den", "prewarp", "gain", "a1b0", "a2", "b1",
		"b2", "a3", "me", "ke", "zeta", NULL,
	};
	static const char *const presets[] = { "benchmark", NULL };
	const struct rths_hs_jrange hz = { .lo = 0, .hi = RTHS_RATE_MAX };
	double num[RTHS_SIM_PLANT_ORDER_MAX + 1];
	double den[RTHS_SIM_PLANT_ORDER_MAX + 1];
	size_t nnum = 1, nden = 6;
	double prewarp = 0;
	struct rths_error e = { 0 };
	json_t *act, *p;
	int r, preset = -1;

	if (rths_hs_jobject(c, dev, "device", "actuator", false, &act) ||
	    !(p = json_object_get(act, "plant")))
		return 0;
	if (json_is_string(p)) {
		const char *name = json_string_value(p);

		if (strcmp(name, "benchmark"))
			return rths_hs_jfail(c, RTHS_E_BAD_CHOICE, PATH,
					     "\"%s\" is no preset; expected \"benchmark\" or an object with \"preset\" or \"num\" and \"den\"",
					     name);
		p = NULL;
		preset = 0;
	} else if (!json_is_object(p)) {
		return rths_hs_jfail(c, RTHS_E_WRONG_TYPE, PATH,
				     "expected \"benchmark\" or an object");
	} else {
		if ((r = rths_hs_jkeys(c, p, PATH, keys)))
			return r;
		r = rths_hs_jchoice(c, p, PATH, "preset", false, presets,
				    &preset);
		if (r < 0)
			return r;
	}
	if (preset >= 0) {
		if (p && (json_object_get(p, "num") ||
			  json_object_get(p, "den")))
			return rths_hs_jfail(c, RTHS_E_CONFLICT, PATH,
					     "a preset or num and den, not both");
		r = benchmark(c, p, num, den);
		if (r)
			return r;
		snprintf(x->plant_name, sizeof(x->plant_name), "benchmark");
	} else {
		if ((r = poly(c, p, "num", num, &nnum)) ||
		    (r = poly(c, p, "den", den, &nden)))
			return r;
		snprintf(x->plant_name, sizeof(x->plant_name),
			 "transfer function");
	}
	if (p && (r = rths_hs_jnumber(c, p, PATH, "prewarp", false, &hz,
				      &prewarp)) < 0)
		return r;
	memset(&x->plant, 0, sizeof(x->plant));
	r = rths_sim_plant_design(num, nnum, den, nden, x->device.rate,
				  prewarp, &x->plant, &e);
	if (r)
		return rths_hs_jfail(c, r, PATH, "%s%s%s", e.path,
				     *e.path ? ": " : "", e.msg);
	return 0;
}
