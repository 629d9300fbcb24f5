// SPDX-License-Identifier: LGPL-2.1-or-later
/* Experiment files: the top level, ground motion, integrator,
 * compensation, outputs and the checks that tie sections together. */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include <rths/hs_odesub.h>

#include "files/experiment_impl.h"
#include "files/gm_parse.h"
#include "common/alloc.h"
#include "la/la.h"

void rths_hs_experiment_warn(struct rths_hs_experiment *x,
			     enum rths_hs_warning_code code, const char *path,
			     const char *fmt, ...)
{
	struct rths_hs_warning *w;
	va_list ap;

	if (x->n_warnings++ >= RTHS_HS_MAX_WARNINGS)
		return;
	w = &x->warnings[x->n_warnings - 1];
	w->code = code;
	snprintf(w->path, sizeof(w->path), "%s", path);
	va_start(ap, fmt);
	vsnprintf(w->msg, sizeof(w->msg), fmt, ap);
	va_end(ap);
}

/* Drops the warnings of one kind (before they are given again). */
static void unwarn(struct rths_hs_experiment *x,
		   enum rths_hs_warning_code code)
{
	size_t n = x->n_warnings < RTHS_HS_MAX_WARNINGS ? x->n_warnings :
		   RTHS_HS_MAX_WARNINGS, k = 0;

	for (size_t i = 0; i < n; i++)
		if (x->warnings[i].code != code)
			x->warnings[k++] = x->warnings[i];
	x->n_warnings -= n - k;
}

/* A PEER NGA record: by its extension (.AT2, and .VT2 or .DT2, which the
 * AT2 reader refuses saying what they hold), or by its first line. */
static bool peer_file(const char *path, const char *file, size_t n)
{
	static const char *const ext[] = { ".at2", ".vt2", ".dt2", NULL };
	char *line = NULL;
	size_t len = 0;
	bool peer = false;
	FILE *f;

	for (const char *const *e = ext; *e; e++)
		if (n >= 4 && !strcasecmp(file + n - 4, *e))
			return true;
	f = fopen(path, "r");
	if (!f)
		return false;	/* the reader says why */
	peer = getline(&line, &len, f) >= 0 && rths_hs_gm_is_peer(line);
	free(line);
	fclose(f);
	return peer;
}

/* @step: the integration step if the file fixes it, else 0. */
static int ground_motion(const struct rths_hs_jctx *c, json_t *root,
			 const char *base_dir, double step,
			 struct rths_hs_experiment *x)
{
	static const char *const keys[] = { "file", "format", "units", "scale",
					    "shift_to_zero", "synthetic", NULL };
	static const char *const skeys[] = {
		"seed", "duration", "dt", "pga_g", "ground_frequency",
		"ground_damping", "highpass_frequency", "highpass_damping",
		"rise", "strong", "decay", NULL,
	};
	static const char *const formats[] = { "at2", "two_column", NULL };
	static const char *const units[] = { "g", "m/s^2", "cm/s^2", NULL };
	static const double unit_si[] = { RTHS_HS_G, 1.0, 0.01 };
	static const struct rths_hs_jrange scale = { .lo = -100, .hi = 100 };
	struct rths_hs_synth_params sp;
	const char *file = NULL;
	json_t *gm = NULL, *sy = NULL;
	struct rths_error e;
	double factor = 1, hz;
	bool shift = false;
	int r, fmt = -1, unit = 0;
	unsigned long long seed;

	rths_hs_synth_defaults(&sp);
	r = rths_hs_jobject(c, root, "", "ground_motion", false, &gm);
	if (r < 0)
		return r;
	if (gm) {
		if ((r = rths_hs_jkeys(c, gm, "ground_motion", keys)) ||
		    (r = rths_hs_jstring(c, gm, "ground_motion", "file", false,
					 &file)) < 0 ||
		    (r = rths_hs_jchoice(c, gm, "ground_motion", "format", false,
					 formats, &fmt)) < 0 ||
		    (r = rths_hs_jchoice(c, gm, "ground_motion", "units", false,
					 units, &unit)) < 0 ||
		    (r = rths_hs_jnumber(c, gm, "ground_motion", "scale", false,
					 &scale, &factor)) < 0 ||
		    (r = rths_hs_jbool(c, gm, "ground_motion", "shift_to_zero",
				       &shift)) < 0 ||
		    (r = rths_hs_jobject(c, gm, "ground_motion", "synthetic",
					 false, &sy)) < 0)
			return r;
		if (file && sy)
			return rths_hs_jfail(c, RTHS_E_CONFLICT,
					     "ground_motion",
					     "give a record file or synthetic parameters, not both");
		if (!file && (json_object_get(gm, "format") ||
			      json_object_get(gm, "units") ||
			      json_object_get(gm, "shift_to_zero")))
			return rths_hs_jfail(c, RTHS_E_MISSING_FIELD,
					     "ground_motion.file",
					     "format, units and shift_to_zero describe a file; none is given");
	}
	if (file) {
		char path[PATH_MAX + 256];
		size_t n = strlen(file);

		snprintf(path, sizeof(path), "%s%s%s",
			 file[0] == '/' ? "" : base_dir,
			 file[0] == '/' ? "" : "/", file);
		if (fmt < 0)
			fmt = peer_file(path, file, n) ? 0 : 1;
		/* An option that cannot apply is an error, never ignored. */
		if (fmt == 0 && json_object_get(gm, "units"))
			return rths_hs_jfail(c, RTHS_E_CONFLICT,
					     "ground_motion.units",
					     "an AT2 file names its units in its header (g for PEER NGA records); remove units, or use scale");
		if (fmt == 0 && json_object_get(gm, "shift_to_zero"))
			return rths_hs_jfail(c, RTHS_E_CONFLICT,
					     "ground_motion.shift_to_zero",
					     "an AT2 record starts at t = 0 by definition; shift_to_zero is for two-column files");
		r = fmt == 0 ? rths_hs_gm_read_at2(&x->gm, path, &e) :
		    rths_hs_gm_read_two_column(&x->gm, path, unit_si[unit],
					       shift ? RTHS_HS_GM_SHIFT_TO_ZERO : 0,
					       &e);
		if (r < 0) {
			/* The record's own file and line, the field here,
			 * and which experiment asked for it. */
			if (c->err) {
				*c->err = e;
				snprintf(c->err->path, sizeof(c->err->path),
					 "ground_motion.file");
				snprintf(c->err->msg, sizeof(c->err->msg),
					 "%.250s (record of %.100s)", e.msg,
					 c->file ? c->file : "the experiment");
			}
			return r;
		}
	} else {
		if (sy) {
			const char *p = "ground_motion.synthetic";

			r = rths_hs_jkeys(c, sy, p, skeys);
			if (r)
				return r;
			r = rths_hs_juint(c, sy, p, "seed", false, 0, UINT64_MAX,
					  &seed);
			if (r < 0)
				return r;
			if (r == 0)
				sp.seed = seed;
#define SY(key, field) do { \
			r = rths_hs_jnumber(c, sy, p, key, false, \
					    &rths_hs_jr_nonneg, &sp.field); \
			if (r < 0) \
				return r; \
		} while (0)
			SY("duration", duration);
			SY("dt", dt);
			SY("ground_damping", zeta_g);
			SY("highpass_damping", zeta_f);
			SY("rise", t_rise);
			SY("strong", t_strong);
			SY("decay", decay);
#undef SY
			hz = sp.pga / RTHS_HS_G;
			r = rths_hs_jnumber(c, sy, p, "pga_g", false,
					    &rths_hs_jr_positive, &hz);
			sp.pga = hz * RTHS_HS_G;
			hz = sp.omega_g / (2 * M_PI);
			if (r >= 0)
				r = rths_hs_jnumber(c, sy, p, "ground_frequency",
						    false, &rths_hs_jr_positive,
						    &hz);
			sp.omega_g = 2 * M_PI * hz;
			hz = sp.omega_f / (2 * M_PI);
			if (r >= 0)
				r = rths_hs_jnumber(c, sy, p,
						    "highpass_frequency", false,
						    &rths_hs_jr_nonneg, &hz);
			sp.omega_f = 2 * M_PI * hz;
			if (r < 0)
				return r;
		}
		/* A synthetic record has no sampling of its own: unless
		 * told, it follows the step (not coarser than the record). */
		if (step > 0 && !json_object_get(sy, "dt")) {
			double given = sp.dt;

			sp.dt = step;
			if (rths_hs_synth_check(&sp, NULL) < 0)
				sp.dt = given;
		}
		r = rths_hs_gm_synthetic(&x->gm, &sp, &e);
		if (r < 0) {
			char p[RTHS_HS_JPATH];

			rths_hs_jpath_key(p, "ground_motion.synthetic", e.path);
			return rths_hs_jfail(c, e.code, p, "%s", e.msg);
		}
	}
	rths_hs_gm_scale(&x->gm, factor);
	if (rths_hs_gm_pga(&x->gm) > RTHS_HS_PLAUSIBLE_PGA)
		rths_hs_experiment_warn(x, RTHS_HS_W_LARGE_ACCELERATION,
					"ground_motion",
					"the record peaks at %.3g m/s^2 = %.1f g, above any recorded earthquake (about 4 g): check its units and scale",
					rths_hs_gm_pga(&x->gm),
					rths_hs_gm_pga(&x->gm) / RTHS_HS_G);
	return 0;
}

static int integrator(const struct rths_hs_jctx *c, json_t *root,
		      const char *base_dir, struct rths_hs_experiment *x,
		      double *dt)
{
	static const char *const keys[] = { "method", "dt", "rho_inf", "alpha",
					    "gamma", "max_iter", "tolerance",
					    "fixed_iter", "allow_coarse_step",
					    "plugin",
					    "params", NULL };
#define BIT(m) (1u << (m))
#define NEWTON (BIT(RTHS_HS_NEWMARK_IMPLICIT) | \
		BIT(RTHS_HS_GENERALIZED_ALPHA) | BIT(RTHS_HS_HHT_ALPHA))
	/* The parameters each method reads; any other is an error. */
	static const struct {
		const char *key;
		unsigned int methods;	/* BIT(method) */
		const char *which;
	} own[] = {
		{ "rho_inf", BIT(RTHS_HS_KR_ALPHA) |
			     BIT(RTHS_HS_GENERALIZED_ALPHA) |
			     BIT(RTHS_HS_HHT_ALPHA),
		  "kr_alpha, generalized_alpha and hht_alpha" },
		{ "alpha", BIT(RTHS_HS_ALPHA_OS) | BIT(RTHS_HS_HHT_ALPHA),
		  "alpha_os and hht_alpha" },
		{ "gamma", BIT(RTHS_HS_NEWMARK_EXPLICIT), "newmark_explicit" },
		{ "max_iter", NEWTON,
		  "newmark_implicit, generalized_alpha and hht_alpha" },
		{ "tolerance", NEWTON,
		  "newmark_implicit, generalized_alpha and hht_alpha" },
		{ "fixed_iter", BIT(RTHS_HS_GENERALIZED_ALPHA) |
				BIT(RTHS_HS_HHT_ALPHA),
		  "generalized_alpha and hht_alpha" },
	};
#undef NEWTON
	static const char *const methods[] = {
		"cr", "kr_alpha", "alpha_os", "newmark_explicit",
		"central_difference", "newmark_implicit", "generalized_alpha",
		"hht_alpha", NULL,
	};
	static const struct rths_hs_jrange unit = { .lo = 0, .hi = 1 };
	static const struct rths_hs_jrange alpha = { .lo = -1.0 / 3, .hi = 0 };
	static const struct rths_hs_jrange gamma = { .lo = 0.5, .hi = 1.5 };
	static const struct rths_hs_jrange step = { .lo = 0, .hi = 1,
						    .lo_open = true, .unit = "s" };
	static const struct rths_hs_jrange tol = { .lo = 0, .hi = 0.1,
						   .lo_open = true };
	struct rths_hs_stepper_params *p = &x->integrator;
	unsigned long long it;
	json_t *o = NULL;
	int m = 0, r;

	rths_hs_stepper_defaults(p, RTHS_HS_CR, 0);
	*dt = 0;
	r = rths_hs_jobject(c, root, "", "integrator", false, &o);
	if (r)
		return r < 0 ? r : 0;
	if ((r = rths_hs_jkeys(c, o, "integrator", keys)) ||
	    (r = rths_hs_jchoice(c, o, "integrator", "method", false, methods,
				 &m)) < 0 ||
	    (r = rths_hs_jnumber(c, o, "integrator", "dt", false, &step,
				 dt)) < 0 ||
	    (r = rths_hs_jnumber(c, o, "integrator", "rho_inf", false, &unit,
				 &p->rho_inf)) < 0 ||
	    (r = rths_hs_jnumber(c, o, "integrator", "alpha", false, &alpha,
				 &p->alpha)) < 0 ||
	    (r = rths_hs_jnumber(c, o, "integrator", "gamma", false, &gamma,
				 &p->gamma)) < 0 ||
	    (r = rths_hs_jnumber(c, o, "integrator", "tolerance", false, &tol,
				 &p->tol)) < 0 ||
	    (r = rths_hs_jbool(c, o, "integrator", "allow_coarse_step",
			       &x->allow_coarse_step)) < 0)
		return r;
	p->method = (enum rths_hs_method)(m + 1);
	if (json_object_get(o, "plugin") && json_object_get(o, "method"))
		return rths_hs_jfail(c, RTHS_E_CONFLICT, "integrator.plugin",
				     "give a method or a plug-in, not both");
	if (json_object_get(o, "params") && !json_object_get(o, "plugin"))
		return rths_hs_jfail(c, RTHS_E_MISSING_FIELD,
				     "integrator.plugin",
				     "params are a plug-in's; no plug-in is given");
	if (json_object_get(o, "plugin") &&
	    (r = rths_hs_exp_plugin(c, o, base_dir, x)) < 0)
		return r;
	for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++)
		/* a plug-in's number (0x100 on) reads none of them */
		if (!((unsigned int)p->method < 32 &&
		      (BIT(p->method) & own[i].methods)) &&
		    json_object_get(o, own[i].key)) {
			char q[RTHS_HS_JPATH];

			rths_hs_jpath_key(q, "integrator", own[i].key);
			return rths_hs_jfail(c, RTHS_E_CONFLICT, q,
					     "%s applies to %s only; the method is %s",
					     own[i].key, own[i].which,
					     rths_hs_method_name(p->method));
		}
#undef BIT
	if (p->method == RTHS_HS_HHT_ALPHA && json_object_get(o, "rho_inf")) {
		if (json_object_get(o, "alpha"))
			return rths_hs_jfail(c, RTHS_E_CONFLICT,
					     "integrator.rho_inf",
					     "hht_alpha takes alpha or rho_inf, not both");
		/* HHT's alpha >= -1/3 is rho_inf >= 1/2 */
		if (!(p->rho_inf >= 0.5))
			return rths_hs_jfail(c, RTHS_E_OUT_OF_RANGE,
					     "integrator.rho_inf",
					     "hht_alpha: expected rho_inf in [0.5, 1] (alpha in [-1/3, 0])");
		p->alpha = (p->rho_inf - 1) / (p->rho_inf + 1);
	}
	if (json_object_get(o, "fixed_iter")) {
		if (json_object_get(o, "max_iter") ||
		    json_object_get(o, "tolerance"))
			return rths_hs_jfail(c, RTHS_E_CONFLICT,
					     "integrator.fixed_iter",
					     "fixed_iter is a number of iterations without a tolerance; give it or max_iter and tolerance, not both");
		r = rths_hs_juint(c, o, "integrator", "fixed_iter", false, 1,
				  100, &it);
		if (r < 0)
			return r;
		p->max_iter = (unsigned int)it;
		p->tol = 0;
		return 0;
	}
	r = rths_hs_juint(c, o, "integrator", "max_iter", false, 1, 10000, &it);
	if (r == 0)
		p->max_iter = (unsigned int)it;
	return r < 0 ? r : 0;
}

static int bounds(const struct rths_hs_jctx *c, json_t *o, const char *key,
		  double *lo, double *hi)
{
	static const struct rths_hs_jrange any = { .lo = -10, .hi = 10 };
	char p[RTHS_HS_JPATH];
	double v[2];
	json_t *a = json_object_get(o, key);
	int r;

	if (!a)
		return 0;
	rths_hs_jpath_key(p, "compensation", key);
	r = rths_hs_jvector(c, a, p, 2, &any, v);
	if (r)
		return r;
	if (!(v[0] <= v[1]))
		return rths_hs_jfail(c, RTHS_E_OUT_OF_RANGE, p,
				     "expected [min, max] with min <= max");
	*lo = v[0];
	*hi = v[1];
	return 0;
}

/* "compensation": {"plugin": ..., "params": ..., "delay": ...}: the
 * built-in methods' parameters are not the plug-in's. */
static int comp_plugin(const struct rths_hs_jctx *c, json_t *o,
		       const char *base_dir, struct rths_hs_experiment *x)
{
	static const char *const builtin[] = { "order", "window",
					       "update_every", "a0", "a1",
					       "a2", "min_motion", NULL };
	static const struct rths_hs_jrange delay = { .lo = 0, .hi = 1,
						     .unit = "s" };
	char q[RTHS_HS_JPATH];
	int r;

	if (json_object_get(o, "method"))
		return rths_hs_jfail(c, RTHS_E_CONFLICT, "compensation.plugin",
				     "give a method or a plug-in, not both");
	for (const char *const *k = builtin; *k; k++)
		if (json_object_get(o, *k)) {
			rths_hs_jpath_key(q, "compensation", *k);
			return rths_hs_jfail(c, RTHS_E_CONFLICT, q,
					     "%s is a built-in method's; a plug-in takes its own in params",
					     *k);
		}
	r = rths_hs_jnumber(c, o, "compensation", "delay", false, &delay,
			    &x->comp.delay);
	return r < 0 ? r : rths_hs_exp_comp_plugin(c, o, base_dir, x);
}

static int compensation(const struct rths_hs_jctx *c, json_t *root,
			const char *base_dir, struct rths_hs_experiment *x)
{
	static const char *const keys[] = { "method", "order", "delay",
					    "window", "update_every", "a0", "a1",
					    "a2", "min_motion", "plugin",
					    "params", NULL };
	static const char *const kinds[] = { "none", "polynomial", "ats",
					     NULL };
	static const struct rths_hs_jrange delay = { .lo = 0, .hi = 1,
						     .unit = "s" };
#define POLY (1u << RTHS_HS_COMP_POLYNOMIAL)
#define ATS (1u << RTHS_HS_COMP_ATS)
	static const struct {
		const char *key, *who;
		unsigned int methods;
	} own[] = {
		{ "delay", "polynomial and ats", POLY | ATS },
		{ "order", "polynomial", POLY },
		{ "window", "ats", ATS },
		{ "update_every", "ats", ATS },
		{ "a0", "ats", ATS },
		{ "a1", "ats", ATS },
		{ "a2", "ats", ATS },
		{ "min_motion", "ats", ATS },
	};
#undef POLY
#undef ATS
	struct rths_hs_comp_params *p = &x->comp;
	unsigned long long v;
	json_t *o;
	int k = 0, r;

	rths_hs_comp_defaults(p, RTHS_HS_COMP_NONE, 1.0 / RTHS_RATE_DEFAULT);
	x->comp_window = 1.0;
	r = rths_hs_jobject(c, root, "", "compensation", false, &o);
	if (r)
		return r < 0 ? r : 0;
	if ((r = rths_hs_jkeys(c, o, "compensation", keys)))
		return r;
	if (json_object_get(o, "plugin"))
		return comp_plugin(c, o, base_dir, x);
	if (json_object_get(o, "params"))
		return rths_hs_jfail(c, RTHS_E_MISSING_FIELD,
				     "compensation.plugin",
				     "params are a plug-in's; no plug-in is given");
	if ((r = rths_hs_jchoice(c, o, "compensation", "method", true, kinds,
				 &k)) ||
	    (r = rths_hs_jnumber(c, o, "compensation", "delay", false, &delay,
				 &p->delay)) < 0 ||
	    (r = rths_hs_jnumber(c, o, "compensation", "window", false,
				 &rths_hs_jr_positive, &x->comp_window)) < 0 ||
	    (r = rths_hs_jnumber(c, o, "compensation", "min_motion", false,
				 &rths_hs_jr_nonneg, &p->min_motion)) < 0 ||
	    (r = bounds(c, o, "a0", &p->a0_min, &p->a0_max)) ||
	    (r = bounds(c, o, "a1", &p->a1_min, &p->a1_max)) ||
	    (r = bounds(c, o, "a2", &p->a2_min, &p->a2_max)))
		return r;
	p->kind = (enum rths_hs_comp_kind)(k + 1);
	/* A parameter the method does not read is an error, not ignored. */
	for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++)
		if (!(own[i].methods & (1u << p->kind)) &&
		    json_object_get(o, own[i].key)) {
			char q[RTHS_HS_JPATH];

			rths_hs_jpath_key(q, "compensation", own[i].key);
			return rths_hs_jfail(c, RTHS_E_CONFLICT, q,
					     "%s applies to %s only; the method is %s",
					     own[i].key, own[i].who,
					     rths_hs_comp_name(p->kind));
		}
	r = rths_hs_juint(c, o, "compensation", "order", false, 1, 3, &v);
	if (r == 0)
		p->order = (unsigned int)v;
	if (r >= 0)
		r = rths_hs_juint(c, o, "compensation", "update_every", false,
				  1, 1000000, &v);
	if (r == 0)
		p->update_every = (unsigned int)v;
	return r < 0 ? r : 0;
}

static int outputs(const struct rths_hs_jctx *c, json_t *root,
		   struct rths_hs_experiment *x)
{
	static const char *const keys[] = { "directory", "csv", "summary",
					    "plots", "reference", "every",
					    NULL };
	struct rths_hs_output_config *o = &x->out;
	const char *dir = NULL;
	unsigned long long every;
	json_t *v;
	int r;

	o->csv = o->summary = o->plots = o->reference = true;
	o->every = 1;
	/* No default directory: where outputs go is the caller's choice. */
	o->directory[0] = '\0';
	r = rths_hs_jobject(c, root, "", "outputs", false, &v);
	if (r)
		return r < 0 ? r : 0;
	if ((r = rths_hs_jkeys(c, v, "outputs", keys)) ||
	    (r = rths_hs_jstring(c, v, "outputs", "directory", false,
				 &dir)) < 0 ||
	    (r = rths_hs_jbool(c, v, "outputs", "csv", &o->csv)) < 0 ||
	    (r = rths_hs_jbool(c, v, "outputs", "summary", &o->summary)) < 0 ||
	    (r = rths_hs_jbool(c, v, "outputs", "plots", &o->plots)) < 0 ||
	    (r = rths_hs_jbool(c, v, "outputs", "reference",
			       &o->reference)) < 0 ||
	    (r = rths_hs_juint(c, v, "outputs", "every", false, 1, 1000000,
			       &every)) < 0)
		return r;
	if (r == 0)
		o->every = (unsigned int)every;
	/* Plots and "every" are made of the CSV: without it, nothing. */
	if (!o->csv && json_is_true(json_object_get(v, "plots")))
		return rths_hs_jfail(c, RTHS_E_CONFLICT, "outputs.plots",
				     "plots are drawn from the CSV, and csv is false");
	if (!o->csv && json_object_get(v, "every"))
		return rths_hs_jfail(c, RTHS_E_CONFLICT, "outputs.every",
				     "every thins the CSV, and csv is false");
	if (!x->has_specimen && json_is_true(json_object_get(v, "reference")))
		return rths_hs_jfail(c, RTHS_E_CONFLICT, "outputs.reference",
				     "the reference is the all-numerical structure to compare a hybrid test with; without a specimen the run is all-numerical");
	if (dir && (!dir[0] || strlen(dir) >= sizeof(o->directory)))
		return rths_hs_jfail(c, RTHS_E_OUT_OF_RANGE,
				     "outputs.directory",
				     "expected a non-empty path shorter than %zu",
				     sizeof(o->directory));
	if (dir)
		snprintf(o->directory, sizeof(o->directory), "%s", dir);
	return 0;
}

/* Specimen estimate in DOF space (n x n, newly allocated) or NULL. */
static double *estimate_dofs(const struct rths_hs_experiment *x,
			     const double *kif, struct rths_error *err)
{
	size_t n = x->model.n;
	double *k;

	if (!x->has_specimen)
		return NULL;
	k = rths_zalloc(n * n, err);
	if (k && rths_hs_substructure_to_dofs(&x->sub, kif, k, err) < 0) {
		free(k);
		k = NULL;
	}
	return k;
}

/* What to change when the step (from @field, NULL: the caller's d)
 * is coarser than the record's sampling. */
static void coarse_advice(const struct rths_hs_experiment *x,
			  uint32_t step_ticks, const char *field, char *buf,
			  size_t len)
{
	uint32_t rate = x->device.rate;
	double gdt = x->gm.dt;
	/* the most ticks per step at this rate, and the least rate */
	double most = floor(gdt * rate * (1 + 1e-9));
	double need = ceil((field && !strcmp(field, "integrator.dt") ? 1 :
			    step_ticks) / gdt * (1 - 1e-9));

	bool by_dt = field && !strcmp(field, "integrator.dt");
	size_t o;

	if (most >= 1 && by_dt)
		o = (size_t)snprintf(buf, len, "use integrator.dt <= %.0f/%u s = %.9g s",
				     most, rate, most / rate);
	else if (need <= RTHS_RATE_MAX && by_dt)
		o = (size_t)snprintf(buf, len, "raise device.rate to at least %.0f Hz and use integrator.dt <= %g s (or resample the record)",
				     need, gdt);
	else if (most >= 1)
		o = (size_t)snprintf(buf, len, "use %s <= %.0f",
				     field ? field : "d", most);
	else if (need <= RTHS_RATE_MAX)
		o = (size_t)snprintf(buf, len, "raise device.rate to at least %.0f Hz (or resample the record)",
				     need);
	else
		o = (size_t)snprintf(buf, len, "resample the record (%g s is finer than %u Hz allows)",
				     gdt, RTHS_RATE_MAX);
	/* A synthetic record has no sampling of its own to respect. */
	if (o < len && !strncmp(x->gm.source, "synthetic", 9))
		o += (size_t)snprintf(buf + o, len - o, ", or set ground_motion.synthetic.dt <= %g s",
				      (double)step_ticks / rate);
	if (o < len)
		snprintf(buf + o, len - o, ", or set integrator.allow_coarse_step");
}

static int set_step(struct rths_hs_experiment *x, uint32_t step_ticks,
		    const char *field, struct rths_error *err)
{
	struct rths_hs_stepper_params *p = &x->integrator;
	const char *file = x->path[0] ? x->path : NULL;
	double limit, dt, *w, *kd;
	struct rths_error e;
	size_t n = x->model.n;
	int r;

	if (step_ticks < 1 || step_ticks > RTHS_STEP_TICKS_MAX)
		return rths_error_set(err, RTHS_E_OUT_OF_RANGE, file, 0,
				      "device.step_ticks",
				      "expected 1 to %d ticks, got %u",
				      RTHS_STEP_TICKS_MAX, step_ticks);
	if ((x->device.set & RTHS_HS_DEV_LATE_DEADLINE) &&
	    x->device.late_deadline >= step_ticks)
		return rths_error_set(err, RTHS_E_OUT_OF_RANGE, file, 0,
				      "device.late_deadline",
				      "expected 1 to d - 1 = %u ticks, got %u",
				      step_ticks - 1, x->device.late_deadline);
	dt = (double)step_ticks / x->device.rate;
	limit = rths_hs_method_stability_limit(p);
	if (isfinite(limit)) {
		/* Highest frequency of the whole structure, specimen in. */
		w = rths_zalloc(n, err);
		kd = estimate_dofs(x, x->k_est, err);
		if (!w || (x->has_specimen && !kd)) {
			free(w);
			free(kd);
			return -ENOMEM;
		}
		r = rths_hs_model_frequencies(&x->model, kd, w, NULL, err);
		free(kd);
		if (r == 0 && w[n - 1] * dt > limit)
			r = rths_error_set(err, RTHS_E_UNSTABLE_STEP, file, 0,
					   "integrator.method",
					   "%s is stable for dt*omega <= %.3g; dt = %g s and omega_max = %.4g rad/s give %.3g (use d <= %u or cr/kr_alpha)",
					   rths_hs_method_name(p->method), limit,
					   dt, w[n - 1], w[n - 1] * dt,
					   (unsigned int)floor(limit / w[n - 1] *
							     x->device.rate));
		free(w);
		if (r < 0)
			return r;
	}
	for (size_t i = 0; i < x->n_odesubs; i++) {
		char q[RTHS_HS_JPATH], qi[RTHS_HS_JPATH];

		if (rths_hs_odesub_check_dt(x->odesubs[i], dt, &e) == 0)
			continue;
		rths_hs_jpath_index(qi, "ode_substructures", i);
		rths_hs_jpath_key(q, qi, e.path);
		return rths_error_set(err, e.code, file, 0, q, "%s", e.msg);
	}
	/* Steps over record samples skip its peaks (31 ms over a 20 ms
	 * record: +36 % peak response): refused unless asked for. */
	unwarn(x, RTHS_HS_W_COARSE_STEP);
	if (x->gm.npts && dt > x->gm.dt * (1 + 1e-9)) {
		char how[256];

		coarse_advice(x, step_ticks, field, how, sizeof(how));
		if (!x->allow_coarse_step && field)
			return rths_error_set(err, RTHS_E_OUT_OF_RANGE, file, 0,
					      field,
					      "%s gives a step of %g s (%u ticks at %u Hz), coarser than the record's sampling, %g s: %s",
					      field, dt, step_ticks,
					      x->device.rate, x->gm.dt, how);
		if (!x->allow_coarse_step)
			return rths_error_set(err, RTHS_E_OUT_OF_RANGE, file, 0,
					      NULL,
					      "the step d/rate = %u/%u s = %g s is coarser than the record's sampling, %g s: %s",
					      step_ticks, x->device.rate, dt,
					      x->gm.dt, how);
		rths_hs_experiment_warn(x, RTHS_HS_W_COARSE_STEP,
					"integrator.allow_coarse_step",
					"dt = %g s is coarser than the record's sampling, %g s: peaks between steps are missed",
					dt, x->gm.dt);
	}
	x->device.step_ticks = step_ticks;
	p->dt = dt;
	x->comp.dt = dt;
	x->comp.window = (unsigned int)ceil(x->comp_window / dt);
	if (x->comp.window < 8)
		x->comp.window = 8;
	if (rths_hs_comp_check(&x->comp, &e) < 0) {
		char q[RTHS_HS_JPATH];

		rths_hs_jpath_key(q, "compensation", e.path);
		return rths_error_set(err, e.code, file, 0, q, "%s", e.msg);
	}
	return 0;
}

int rths_hs_experiment_set_step(struct rths_hs_experiment *x,
				uint32_t step_ticks, struct rths_error *err)
{
	return set_step(x, step_ticks, NULL, err);
}

/* The device rate nearest @rate at which @dt is whole ticks; 0: none. */
static uint32_t whole_rate(double dt, uint32_t rate)
{
	uint32_t best = 0;

	for (uint32_t n = 1; n <= RTHS_STEP_TICKS_MAX; n++) {
		double f = n / dt;

		if (f < RTHS_RATE_MIN)
			continue;
		if (f > RTHS_RATE_MAX)
			break;
		/* exact, not merely within the loader's 1e-6 */
		if (fabs(f - nearbyint(f)) > 1e-9 * f)
			continue;
		if (!best || fabs(f - rate) < fabs((double)best - rate))
			best = (uint32_t)nearbyint(f);
	}
	return best;
}

/* Says how to make @dt whole: another rate, or the nearest dt. */
static int not_whole_ticks(const struct rths_hs_jctx *c, double dt,
			   uint32_t rate)
{
	double d = dt * rate, near = nearbyint(d) < 1 ? 1 : nearbyint(d);
	uint32_t f = whole_rate(dt, rate);
	char alt[128] = "";

	if (f)
		snprintf(alt, sizeof(alt), "device.rate %u Hz makes it %.0f ticks, or ",
			 f, nearbyint(dt * f));
	return rths_hs_jfail(c, RTHS_E_OUT_OF_RANGE, "integrator.dt",
			     "expected a whole number of controller ticks (1/%u s), got %g ticks: %suse dt = %.0f/%u s = %.9g s",
			     rate, d, alt, near, rate, near / rate);
}

static int cross_checks(const struct rths_hs_jctx *c, json_t *root,
			struct rths_hs_experiment *x, double dt)
{
	double d;
	int r;

	if ((x->integrator.method == RTHS_HS_NEWMARK_IMPLICIT ||
	     x->integrator.method == RTHS_HS_GENERALIZED_ALPHA ||
	     x->integrator.method == RTHS_HS_HHT_ALPHA) && x->has_specimen)
		return rths_hs_jfail(c, RTHS_E_UNSUPPORTED,
				     "integrator.method",
				     "%s needs the whole restoring force inside the step; with a specimen use cr, kr_alpha or alpha_os",
				     rths_hs_method_name(x->integrator.method));
	r = rths_hs_jnumber(c, root, "", "duration", false,
			    &rths_hs_jr_positive, &x->duration);
	if (r < 0)
		return r;
	/* A longer test than its record would silently be cut. */
	if (r == 0 && x->duration > rths_hs_gm_duration(&x->gm) * (1 + 1e-9))
		return rths_hs_jfail(c, RTHS_E_OUT_OF_RANGE, "duration",
				     "expected at most the record's %g s, got %g s",
				     rths_hs_gm_duration(&x->gm), x->duration);
	if (r == 1 || x->duration > rths_hs_gm_duration(&x->gm))
		x->duration = rths_hs_gm_duration(&x->gm);
	if (dt > 0) {
		/* The step is d / f_ctrl: dt fixes d. */
		d = dt * x->device.rate;
		if (fabs(d - nearbyint(d)) > 1e-6 * d || nearbyint(d) < 1)
			return not_whole_ticks(c, dt, x->device.rate);
		if (x->device.step_ticks &&
		    x->device.step_ticks != (uint32_t)nearbyint(d))
			return rths_hs_jfail(c, RTHS_E_CONFLICT,
					     "integrator.dt",
					     "dt = %g s is %.0f ticks but device.step_ticks is %u",
					     dt, nearbyint(d),
					     x->device.step_ticks);
		x->device.step_ticks = (uint32_t)nearbyint(d);
	}
	if (x->device.step_ticks)
		return set_step(x, x->device.step_ticks,
				dt > 0 ? "integrator.dt" : "device.step_ticks",
				c->err);
	return 0;
}

static void release(struct rths_hs_experiment *x)
{
	rths_hs_model_free(&x->model);
	rths_hs_substructure_free(&x->sub);
	rths_hs_gm_free(&x->gm);
	rths_hs_exp_odesubs_free(x);
	rths_hs_exp_plugin_free(x);
}

/* @x comes zeroed from rths_hs_experiment_parse(). */
static int parse_into(struct rths_hs_experiment *x, const char *text,
		      const char *name, const char *base_dir,
		      struct rths_error *err)
{
	static const char *const keys[] = {
		"name", "description", "model", "substructure", "specimen",
		"setup", "device", "ground_motion", "integrator",
		"compensation", "outputs", "duration", "ode_substructures",
		"realtime", NULL,
	};
	struct rths_hs_jctx c = { .file = name, .err = err };
	const char *title = NULL;
	json_error_t je;
	json_t *root;
	double dt = 0, *kd = NULL;
	int r;

	snprintf(x->path, sizeof(x->path), "%s", name ? name : "");
	root = json_loads(text, JSON_REJECT_DUPLICATES, &je);
	if (!root)
		return rths_error_set(err, RTHS_E_JSON_SYNTAX, name,
				      (unsigned int)je.line, NULL,
				      "column %d: %s", je.column, je.text);
	if (!json_is_object(root)) {
		json_decref(root);
		return rths_error_set(err, RTHS_E_WRONG_TYPE, name, 0, "",
				      "expected an object at the top level");
	}
	r = rths_hs_jkeys(&c, root, "", keys);
	if (r == 0)
		r = rths_hs_jstring(&c, root, "", "name", false, &title);
	if (r < 0)
		goto out;
	if (title) {
		snprintf(x->name, sizeof(x->name), "%s", title);
	} else {
		char tmp[PATH_MAX], *b, *dot;

		snprintf(tmp, sizeof(tmp), "%s", name ? name : "experiment");
		b = basename(tmp);
		dot = strrchr(b, '.');
		if (dot && dot != b)
			*dot = '\0';
		snprintf(x->name, sizeof(x->name), "%s", b);
	}
	r = rths_hs_exp_model(&c, root, x);
	if (r == 0)
		r = rths_hs_exp_specimen(&c, root, x);
	if (r == 0 && x->has_specimen) {
		kd = estimate_dofs(x, x->k_est, err);
		r = kd ? 0 : -ENOMEM;
	}
	/* Damping from the whole structure's modes (specimen estimate in);
	 * the specimen's own damping is physical, measured, not added. */
	if (r == 0)
		r = rths_hs_exp_damping(&c, root, x, kd);
	free(kd);
	if (r == 0)
		r = rths_hs_exp_device(&c, root, x);
	if (r == 0)
		r = rths_hs_exp_realtime(&c, root, x);
	if (r == 0)
		r = rths_hs_exp_odesubs(&c, root, x);
	/* The integrator first: a synthetic record follows its step. */
	if (r == 0)
		r = integrator(&c, root, base_dir, x, &dt);
	if (r == 0)
		r = ground_motion(&c, root, base_dir ? base_dir : ".",
				  dt > 0 ? dt : (double)x->device.step_ticks /
				  x->device.rate, x);
	if (r == 0)
		r = compensation(&c, root, base_dir, x);
	if (r == 0)
		r = outputs(&c, root, x);
	if (r == 0)
		r = cross_checks(&c, root, x, dt);
out:
	json_decref(root);
	return r < 0 ? r : 0;
}

int rths_hs_experiment_parse(const char *text, const char *name,
			     const char *base_dir,
			     struct rths_hs_experiment **out,
			     struct rths_error *err)
{
	struct rths_hs_experiment *x;
	int r;

	if (out)
		*out = NULL;
	if (!out || !text)
		return rths_error_set(err, EINVAL, name, 0, NULL,
				      "no experiment or no text");
	/* The library allocates: the struct may grow at its end. */
	x = calloc(1, sizeof(*x));
	if (!x)
		return rths_error_set(err, ENOMEM, name, 0, NULL,
				      "out of memory");
	r = parse_into(x, text, name, base_dir, err);
	if (r < 0) {
		rths_hs_experiment_free(x);
		return r;
	}
	*out = x;
	return 0;
}

int rths_hs_experiment_load(const char *path, struct rths_hs_experiment **out,
			    struct rths_error *err)
{
	char dir[PATH_MAX], *text;
	struct stat sb;
	long len;
	FILE *f;
	int r;

	if (out)
		*out = NULL;
	if (!out || !path)
		return rths_error_set(err, EINVAL, NULL, 0, NULL,
				      "no experiment or no file name");
	f = fopen(path, "r");
	if (!f)
		return rths_error_set(err, errno, path, 0, NULL,
				      "cannot open: %s", rths_strerror(errno));
	/* fopen() opens a directory; reading it fails later, obscurely */
	if (fstat(fileno(f), &sb) == 0 && S_ISDIR(sb.st_mode)) {
		fclose(f);
		return rths_error_set(err, EISDIR, path, 0, NULL,
				      "is a directory, not an experiment file");
	}
	if (fseek(f, 0, SEEK_END) < 0 || (len = ftell(f)) < 0 ||
	    len > (64L << 20) || fseek(f, 0, SEEK_SET) < 0) {
		fclose(f);
		return rths_error_set(err, EIO, path, 0, NULL,
				      "cannot read (or larger than 64 MiB)");
	}
	text = malloc((size_t)len + 1);
	if (!text || fread(text, 1, (size_t)len, f) != (size_t)len) {
		free(text);
		fclose(f);
		return rths_error_set(err, errno, path, 0, NULL,
				      "cannot read: %s", rths_strerror(errno));
	}
	fclose(f);
	text[len] = '\0';
	snprintf(dir, sizeof(dir), "%s", path);
	r = rths_hs_experiment_parse(text, path, dirname(dir), out, err);
	free(text);
	return r;
}

void rths_hs_experiment_free(struct rths_hs_experiment *x)
{
	if (!x)
		return;
	release(x);
	free(x);
}

void rths_hs_experiment_sim_config(const struct rths_hs_experiment *x,
				   struct rths_hs_sim_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->model = &x->model;
	if (x->has_specimen) {
		cfg->sub = &x->sub;
		cfg->setup = &x->setup;
		cfg->k_if = x->k_est;
		cfg->c_if = x->c_est;
		cfg->comp = &x->comp;
	}
	cfg->integrator = x->integrator;
	cfg->gm = &x->gm;
	cfg->duration = x->duration;
}

void rths_hs_experiment_offline_params(const struct rths_hs_experiment *x,
				       struct rths_hs_offline_params *op)
{
	const struct rths_hs_actuator_model *a = &x->device.actuator;

	rths_hs_offline_defaults(op);
	op->rate = x->device.rate;
	op->step_ticks = x->device.step_ticks ? x->device.step_ticks : 1;
	op->lag = a->lag;
	op->delay_ticks = a->delay_ticks;
	op->noise_disp = a->noise_disp;
	op->noise_force = a->noise_force;
	op->seed = a->seed;
	op->setup = &x->setup;
	op->k = x->specimen.k;
	op->c = x->specimen.c;
	op->springs = x->specimen.has_springs ? x->specimen.springs : NULL;
}

int rths_hs_experiment_reference_model(const struct rths_hs_experiment *x,
				       struct rths_hs_model *full,
				       bool *linearized,
				       struct rths_error *err)
{
	size_t q = x->specimen.n_if, n = x->model.n;
	double k[RTHS_HS_NCH * RTHS_HS_NCH];
	int r;

	if (linearized)
		*linearized = false;
	if (!x->has_specimen)
		return rths_hs_model_copy(full, &x->model, err);
	memcpy(k, x->specimen.k, q * q * sizeof(double));
	r = rths_hs_model_with_specimen(full, &x->model, &x->sub, NULL,
					x->specimen.c, err);
	for (size_t i = 0; r == 0 && i < q; i++) {
		const struct rths_hs_element_params *sp = &x->specimen.springs[i];
		int a = -1, b = -1, nz = 0;

		if (!sp->kind)
			continue;
		for (size_t j = 0; j < n; j++) {
			double t = LA_AT(x->sub.cmd_map, q, i, j);

			if (t == 0)
				continue;
			nz++;
			if (t == 1)
				a = (int)j;
			else if (t == -1)
				b = (int)j;
		}
		if (a >= 0 && nz == (b >= 0 ? 2 : 1)) {
			r = rths_hs_model_add_element(full, a, b, sp, err);
		} else {
			k[i * q + i] += sp->k;
			if (linearized)
				*linearized = true;
		}
	}
	if (r == 0)
		r = rths_hs_substructure_to_dofs(&x->sub, k, full->k, err);
	if (r < 0)
		rths_hs_model_free(full);
	return r;
}
