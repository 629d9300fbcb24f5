// SPDX-License-Identifier: GPL-2.0
/*
 * Device substructures: a specimen on an rths device (the sim card, a
 * comedi card) or on librths's offline model of one, with its
 * experimental setup and delay compensation, written in the site file as
 * the experiment file writes them (Documentation/rths-site.rst, "Device
 * substructures").  librths parses and checks those sections: the site
 * wraps them in an experiment of its own and names the site file's JSON
 * path in any error.  A step goes setup -> compensation -> backend post
 * and wait -> setup inverse, as in rths-run (lib/hs/sim.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>
#include <rths/hs_backend.h>
#include <rths/hs_compensation.h>
#include <rths/hs_experiment.h>
#include <rths/hs_setup.h>
#include <rths/rt.h>

#include "hs/compensation_impl.h"
#include "site.h"
#include "../common/cli.h"

/* The experiment file's sections a device substructure may hold. */
static const char *const dev_sections[] = { "device", "setup",
					    "compensation", "specimen",
					    "realtime" };
#define N_SECTIONS (sizeof(dev_sections) / sizeof(dev_sections[0]))

int device_sub_is_section(const char *key)
{
	for (size_t i = 0; i < N_SECTIONS; i++)
		if (!strcmp(key, dev_sections[i]))
			return 1;
	return 0;
}

/* A list of n copies of v: the matrices section's diagonal form. */
static json_t *diagonal(int n, double v)
{
	json_t *a = json_array();

	for (int i = 0; a && i < n; i++)
		json_array_append_new(a, json_real(v));
	return a;
}

static json_t *identity(int n)
{
	json_t *rows = json_array();

	for (int i = 0; rows && i < n; i++) {
		json_t *row = json_array();

		for (int j = 0; row && j < n; j++)
			json_array_append_new(row, json_real(i == j));
		json_array_append_new(rows, row);
	}
	return rows;
}

/*
 * The experiment around the substructure's sections: a unit-mass model
 * whose every DOF is an interface coordinate (command map I), the
 * synthetic ground motion and no outputs.  Only the sections come from
 * the site file, so librths's errors there are the site file's.
 */
static json_t *wrap(json_t *js, int n)
{
	json_t *x = json_pack("{s:{s:s, s:o, s:o}, s:{s:o}, s:{s:b, s:b, s:b, s:b}}",
			      "model", "type", "matrices", "mass",
			      diagonal(n, 1.0), "stiffness", diagonal(n, 1.0),
			      "substructure", "command_map", identity(n),
			      "outputs", "csv", 0, "summary", 0, "plots", 0,
			      "reference", 0);
	json_t *dev;

	if (!x)
		return NULL;
	for (size_t i = 0; i < N_SECTIONS; i++) {
		json_t *v = json_object_get(js, dev_sections[i]);

		if (v)
			json_object_set_new(x, dev_sections[i],
					    json_deep_copy(v));
	}
	/* The site's default late policy: extrapolate, then correct. */
	dev = json_object_get(x, "device");
	if (json_is_object(dev) && !json_object_get(dev, "late_policy"))
		json_object_set_new(dev, "late_policy",
				    json_string("event-driven"));
	return x;
}

int device_sub_config(json_t *js, const char *file, const char *path,
		      struct substructure *sub, char *msg, size_t len)
{
	struct rths_hs_experiment *x = NULL;
	struct rths_error err = { 0 };
	json_t *dev = json_object_get(js, "device");
	char *text = NULL;
	json_t *w;
	int r;

	if (!json_is_object(dev)) {
		snprintf(msg, len, "%s: [field] %s.device: expected an object", file,
			 path);
		return -EINVAL;
	}
	/* librths would ask for the wrapper's stiffness estimate instead. */
	if (!json_object_get(js, "specimen")) {
		snprintf(msg, len, "%s: [field] %s.specimen: missing (required: the specimen's stiffness, for the model, the sim card and the estimate)",
			 file, path);
		return -EINVAL;
	}
	if (sub->n > RTHS_HS_MAX_CHANNELS) {
		snprintf(msg, len, "%s: [value] %s.dof: a device substructure has at most %d DOF",
			 file, path, RTHS_HS_MAX_CHANNELS);
		return -EINVAL;
	}
	w = wrap(js, sub->n);
	if (w)
		text = json_dumps(w, JSON_COMPACT);
	json_decref(w);
	if (!text) {
		snprintf(msg, len, "%s: [value] %s: out of memory", file, path);
		return -ENOMEM;
	}
	r = rths_hs_experiment_parse(text, file, NULL, &x, &err);
	free(text);
	/* The site's step is the device's: it cannot be previewed here. */
	if (!r && !x->device.step_ticks)
		r = rths_error_set(&err, RTHS_E_MISSING_FIELD, NULL, 0,
				   "device.step_ticks",
				   "missing (required: the site's step is step_ticks / rate)");
	if (r) {
		const char *p = err.path;
		size_t k = strcspn(p, ".[");
		int ours = 0;

		/* A path outside the site's sections is the wrapper's. */
		for (size_t i = 0; i < N_SECTIONS; i++)
			if (k == strlen(dev_sections[i]) &&
			    !strncmp(p, dev_sections[i], k))
				ours = 1;
		snprintf(msg, len, "%s: [%s] %s%s%s: %s", file,
			 tool_error_kind(r), path, ours ? "." : "",
			 ours ? p : "", err.msg);
		rths_hs_experiment_free(x);
		return r;
	}
	sub->dev = x;
	return 0;
}

/*
 * Without the site file's stiffness and damping, codes 12 to 14 answer
 * the specimen's estimate (librths's, column-major) as a numerical
 * substructure's matrices (row-major).
 */
static double *from_colmajor(const double *cm, int n)
{
	double *rm = calloc((size_t)n * n, sizeof(double));

	for (int i = 0; rm && i < n; i++)
		for (int j = 0; j < n; j++)
			rm[i * n + j] = cm[j * n + i];
	return rm;
}

int device_sub_estimate(struct substructure *sub)
{
	const struct rths_hs_experiment *x = sub->dev;

	if (!sub->k && !(sub->k = from_colmajor(x->k_est, sub->n)))
		return -ENOMEM;
	if (!sub->c && !(sub->c = from_colmajor(x->c_est, sub->n)))
		return -ENOMEM;
	return 0;
}

/* ------------------------------------------------------------ running */

struct device_sub {
	const struct substructure *sub;
	const struct rths_hs_experiment *x;
	struct rths_hs_backend b;
	bool opened, started;
	size_t q, m;			/* interface coordinates, actuators */
	struct rths_hs_comp *comp[RTHS_HS_MAX_CHANNELS];
	uint64_t seq, step;		/* last executed: caller's, device's */
	double disp[RTHS_HS_MAX_CHANNELS], force[RTHS_HS_MAX_CHANNELS];
	struct device_step_info info;
	struct rths_error err;
	/* the step thread's faults and switches after the first step */
	struct rths_rt_counters rt_first;
};

/*
 * The sim card gets the specimen's first stiffness and damping on every
 * channel and is created if missing (and removed at close); another card
 * must exist, set up by the lab.
 */
static int open_device(struct device_sub *d)
{
	const struct rths_hs_experiment *x = d->x;
	bool sim = !strcmp(x->device.card, "sim");
	struct rths_hs_device_params p = {
		.dev = &x->device,
		.channels = (uint32_t)x->setup.n_act,
		.stiffness = x->specimen.k[0],
		.damping = x->specimen.c[0],
		.create = sim,
	};

	if (sim && x->specimen.has_springs) {
		const struct rths_hs_element_params *sp = &x->specimen.springs[0];

		if (d->q != 1 || sp->kind != RTHS_HS_ELEMENT_BILINEAR)
			return rths_error_set(&d->err, RTHS_E_UNSUPPORTED,
					      NULL, 0, "specimen.nonlinear",
					      "the sim card models one bilinear spring on a one-coordinate specimen");
		p.spring = sp;
	}
	return rths_hs_device_open(&d->b, &p, &d->err);
}

int device_sub_open(struct device_sub **out, const struct substructure *sub)
{
	const struct rths_hs_experiment *x = sub->dev;
	struct device_sub *d = calloc(1, sizeof(*d));
	struct rths_hs_offline_params op;
	int r;

	*out = d;
	if (!d)
		return -ENOMEM;
	d->sub = sub;
	d->x = x;
	d->q = x->setup.dim;
	d->m = x->setup.n_act;
	if (x->device.backend == RTHS_HS_BACKEND_DEVICE) {
		r = open_device(d);
	} else {
		rths_hs_experiment_offline_params(x, &op);
		r = rths_hs_offline_open(&d->b, &op, &d->err);
		/* The device's limits hold it as the kernel would. */
		if (r == 0)
			r = rths_hs_offline_set_limits(&d->b, x->device.limits,
						       d->m, &d->err);
	}
	d->opened = r == 0;
	/* the thread that will run its steps */
	if (r == 0 && x->device.backend == RTHS_HS_BACKEND_DEVICE)
		r = site_realtime_enter(sub, &d->err);
	/* As in rths-run: the sim card's (or its model's) plant, if any,
	 * replaces the lag before the device starts. */
	if (r == 0 && (x->plant.set & RTHS_SIM_PLANT))
		r = rths_hs_backend_set_plant(&d->b, &x->plant, &d->err);
	for (size_t i = 0; r == 0 && i < d->m; i++) {
		struct rths_hs_comp_params cp = x->comp;

		cp.dt = (double)x->device.step_ticks / x->device.rate;
		/* as the engine: a plug-in is told its actuator */
		r = rths_hs_comp_new_channel(&d->comp[i], &cp,
					     (unsigned int)i, &d->err);
	}
	return r;
}

int device_sub_start(struct device_sub *d)
{
	int r = rths_hs_backend_start(&d->b, &d->err);

	d->started = r == 0;
	return r;
}

static double mono(void)
{
	struct timespec t;

	/* the vDSO's: no system call */
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/*
 * One step: @u (q interface coordinates) out through the setup and the
 * compensation, the command posted now (a late one is the kernel's to
 * absorb with its late policy), the feedback back through the setup.  A
 * step re-issued with the last @seq returns that step's result again and
 * moves nothing.
 */
int device_sub_step(struct device_sub *d, uint64_t seq, const double *u,
		    double *disp, double *force, struct device_step_info *info)
{
	double tgt[RTHS_HS_MAX_CHANNELS], cmd[RTHS_HS_MAX_CHANNELS];
	struct rths_hs_feedback fb;
	double t0 = mono(), waited;
	int r;

	if (d->step && seq == d->seq) {
		d->info.repeated = 1;
		goto out;
	}
	if (d->step && seq < d->seq)
		return rths_error_set(&d->err, ESTALE, NULL, 0, NULL,
				      "step %llu is older than step %llu, already executed",
				      (unsigned long long)seq,
				      (unsigned long long)d->seq);
	r = rths_hs_setup_strokes(&d->x->setup, u, tgt, &d->err);
	if (r < 0)
		return r;
	/* the engine's checked call: a failing plug-in or a non-finite
	 * command is an error, never a NaN sent to the card */
	for (size_t i = 0; i < d->m; i++) {
		r = rths_hs_comp_step(d->comp[i], d->step + 1, tgt[i], &cmd[i],
				      &d->err);
		if (r < 0)
			return r;
	}
	r = rths_hs_backend_post(&d->b, d->step + 1, cmd, &d->err);
	waited = mono();
	if (r == 0)
		r = rths_hs_backend_wait(&d->b, d->step + 1, &fb, &d->err);
	if (r < 0)
		return r;
	waited = mono() - waited;
	d->step++;
	d->seq = seq;
	if (d->step == 1)
		rths_rt_counters(&d->rt_first, sizeof(d->rt_first));
	for (size_t i = 0; i < d->m; i++) {
		r = rths_hs_comp_learn(d->comp[i], d->step, cmd[i],
				       fb.disp[i], &d->err);
		if (r < 0)
			return r;
	}
	r = rths_hs_setup_position(&d->x->setup, fb.disp, u, d->disp, &d->err);
	if (r == 0)
		r = rths_hs_setup_force(&d->x->setup, d->disp, fb.force,
					d->force, &d->err);
	if (r < 0)
		return r;
	d->info = (struct device_step_info){
		.late_ticks = fb.late_ticks,
		.flags = fb.flags,
		.held = !!(fb.flags & (RTHS_FB_F_HELD |
				       RTHS_FB_F_DECELERATED)),
		.compute = mono() - t0 - waited,
	};
out:
	memcpy(disp, d->disp, d->q * sizeof(double));
	memcpy(force, d->force, d->q * sizeof(double));
	if (info)
		*info = d->info;
	return 0;
}

/*
 * What the step thread went through from the first step to the last, as
 * rths-run's summary says it: a real-time loop takes no page fault.
 */
static void report_step_thread(const struct device_sub *d)
{
	struct rths_rt_counters c;

	if (d->step < 2 || rths_rt_counters(&c, sizeof(c)) < 0)
		return;
	site_log(LOG_INFO, "%s: step thread, steps 1 to %llu: %s %d on CPU %d, "
		 "minor faults %llu, major faults %llu, involuntary switches %llu, voluntary %llu",
		 d->sub->name, (unsigned long long)d->step,
		 rths_rt_policy_name(c.sched_policy) ?: "?", c.sched_priority,
		 c.cpu,
		 (unsigned long long)(c.minor_faults - d->rt_first.minor_faults),
		 (unsigned long long)(c.major_faults - d->rt_first.major_faults),
		 (unsigned long long)(c.involuntary_switches -
				      d->rt_first.involuntary_switches),
		 (unsigned long long)(c.voluntary_switches -
				      d->rt_first.voluntary_switches));
}

/* To rest: a device still moving ramps down over its ramp ticks. */
int device_sub_stop(struct device_sub *d)
{
	int r = 0;

	if (d->started)
		report_step_thread(d);
	if (d->started)
		r = rths_hs_backend_stop(&d->b, &d->err);
	d->started = false;
	return r;
}

void device_sub_close(struct device_sub *d)
{
	if (!d)
		return;
	device_sub_stop(d);
	if (d->opened)
		rths_hs_backend_close(&d->b);
	for (size_t i = 0; i < d->m; i++)
		rths_hs_comp_free(d->comp[i]);
	free(d);
}

const char *device_sub_error(const struct device_sub *d)
{
	return d ? d->err.msg : "out of memory";
}

uint64_t device_sub_steps(const struct device_sub *d)
{
	return d->step;
}

uint64_t device_sub_seq(const struct device_sub *d)
{
	return d->seq;
}

const char *device_sub_backend(const struct device_sub *d)
{
	return d->b.ops->name;
}
