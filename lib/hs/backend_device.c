// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The device backend: the specimen is on an rths device (the sim card in
 * the test VM, a real card in the lab), driven through <rths/device.h>.
 * One command posted per step, one feedback record waited for per step;
 * the kernel interpolates and samples in between.  The per-tick trace
 * ring, when asked for, is drained every step and written as CSV at close.
 * Under the manual clock the backend runs each step's ticks itself, so a
 * run on the sim card gives the same numbers every time.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rths/device.h>
#include <rths/hs_backend.h>
#include <rths/hs_experiment.h>

#include "hs/backend_impl.h"

struct devb {
	struct rths_ctl *ctl;
	struct rths_dev *dev;
	char name[RTHS_NAME_LEN];
	uint32_t channels, rate, step_ticks;
	bool created, started;
	bool manual;			/* we run the ticks ourselves */
	bool sim;			/* the card is "sim" */
	int timeout_ms;
	char *trace_path;
	FILE *trace_f;		/* created at open, where errors can be told */
	struct rths_trace *trace;	/* drained records */
	size_t ntrace, cap;
	uint32_t trace_entries;		/* the trace ring's */
	uint64_t trace_lost;
};

static int devb_fail(struct devb *d, int ret, const char *what,
		     struct rths_error *err)
{
	const char *why = d->ctl ? rths_ctl_error(d->ctl) : "";

	if (ret == -ENOENT && !d->ctl)
		why = "rths module not loaded (modprobe rths)";
	return rths_error_set(err, RTHS_E_BACKEND, NULL, 0, NULL,
			      "device %s: %s: %s%s%s", d->name, what,
			      rths_strerror(-ret), *why ? ": " : "", why);
}

/* The device is no longer running: say why. */
static int devb_halted(struct devb *d, struct rths_error *err)
{
	struct rths_dev_info info;

	if (rths_dev_get(d->ctl, d->name, &info, sizeof(info)))
		return rths_error_set(err, RTHS_E_BACKEND, NULL, 0, NULL,
				      "device %s is gone", d->name);
	return rths_error_set(err, RTHS_E_BACKEND, NULL, 0, NULL,
			      "device %s is %s (reason %s%s%s)", d->name,
			      rths_state_name(info.state) ?: "?",
			      rths_reason_name(info.reason) ?: "none",
			      info.fault ? ", fault " : "",
			      info.fault ? rths_fault_name(info.fault) ?: "?" : "");
}

static void devb_drain_trace(struct devb *d)
{
	struct rths_trace tr;

	if (!d->trace_path)
		return;
	while (rths_read_trace(d->dev, &tr) == 0) {
		if (d->ntrace == d->cap) {
			size_t cap = d->cap ? 2 * d->cap : 4096;
			struct rths_trace *t = realloc(d->trace,
						       cap * sizeof(*t));

			if (!t) {
				d->trace_lost++;
				continue;
			}
			d->trace = t;
			d->cap = cap;
		}
		d->trace[d->ntrace++] = tr;
	}
}

static int devb_start(void *priv, struct rths_error *err)
{
	struct devb *d = priv;
	int ret = rths_run_start(d->ctl, d->name);

	if (ret)
		return devb_fail(d, ret, "run start", err);
	rths_dev_sync(d->dev);
	d->started = true;
	return 0;
}

static int devb_post(void *priv, uint64_t step, const double *target,
		     struct rths_error *err)
{
	struct devb *d = priv;
	int ret = rths_post(d->dev, step, target);

	/* Under the manual clock the step's ticks run now, deterministically. */
	if (!ret && d->manual) {
		ret = rths_run_tick(d->ctl, d->name, d->step_ticks);
		if (ret)
			return devb_fail(d, ret, "run tick", err);
	}
	if (ret == -ERANGE)
		return rths_error_set(err, RTHS_E_BACKEND, NULL, 0, NULL,
				      "device %s: step %llu: a target is not finite or beyond the kernel's range",
				      d->name, (unsigned long long)step);
	if (ret)
		return devb_fail(d, ret, "post", err);
	return 0;
}

static int devb_wait(void *priv, uint64_t step, struct rths_hs_feedback *fb,
		     struct rths_error *err)
{
	struct devb *d = priv;
	struct rths_feedback f;
	uint32_t i;
	int ret;

	(void)step;
	/* A signal (Ctrl-C) is the loop's to act on, after this step. */
	do
		ret = rths_wait_feedback(d->dev, &f, d->timeout_ms, 0);
	while (ret == -EINTR);
	devb_drain_trace(d);
	if (ret == -EPIPE || ret == -ENODEV)
		return devb_halted(d, err);
	if (ret == -ETIMEDOUT)
		return rths_error_set(err, RTHS_E_BACKEND, NULL, 0, NULL,
				      "device %s: no feedback for %d ms",
				      d->name, d->timeout_ms);
	if (ret)
		return devb_fail(d, ret, "wait for feedback", err);
	memset(fb, 0, sizeof(*fb));
	fb->step = f.step;
	fb->tick = f.tick;
	fb->time_ns = f.time_ns;
	fb->flags = f.flags;
	fb->late_ticks = f.late_ticks;
	fb->channels = f.channels;
	for (i = 0; i < f.channels && i < RTHS_HS_MAX_CHANNELS; i++) {
		fb->command[i] = f.command[i];
		fb->disp[i] = f.disp[i];
		fb->force[i] = f.force[i];
	}
	return 0;
}

static int devb_hold(void *priv, struct rths_error *err)
{
	struct devb *d = priv;
	int ret;

	if (!d->started)
		return 0;
	ret = rths_run_hold(d->ctl, d->name);
	return ret ? devb_fail(d, ret, "run hold", err) : 0;
}

static int devb_stop(void *priv, struct rths_error *err)
{
	struct devb *d = priv;
	int ret;

	if (!d->started)
		return 0;
	ret = rths_run_stop(d->ctl, d->name);
	devb_drain_trace(d);
	d->started = false;
	return ret ? devb_fail(d, ret, "run stop", err) : 0;
}

static int devb_stats(void *priv, struct rths_hs_backend_stats *st)
{
	struct devb *d = priv;
	struct rths_stats s;
	int ret = rths_stats_get(d->ctl, d->name, &s);

	if (ret)
		return ret;
	st->steps = s.steps;
	st->ticks = s.ticks;
	st->missed_ticks = s.missed;
	st->late_steps = s.late_steps;
	st->late_extrapolated = s.late_extrapolated;
	st->late_held = s.late_held;
	st->late_decelerated = s.late_decelerated;
	st->late_faulted = s.late_faulted;
	st->limit_trips = s.limit_trips;
	st->fb_overflows = s.fb_overflows;
	st->card_errors = s.card_errors;
	st->has_latency = s.lat_samples > 0;
	st->irq_lat_max_ns = s.irq_lat_max;
	st->thread_lat_avg_ns = s.thread_lat_avg;
	st->thread_lat_max_ns = s.thread_lat_max;
	return 0;
}

/*
 * What the trace is of, beside it as W3C CSV on the Web metadata
 * (TRACE-metadata.json), not as a comment line that CSV readers trip on;
 * rths-run adds the run's provenance to it.  Names are [A-Za-z0-9_-]
 * (the kernel's rule), so they need no JSON escaping.
 */
/* The trace's columns, for its header row and its metadata: each step's
 * fields, then each channel's (CSV on the Web datatypes). */
static const struct {
	const char *name, *datatype;
} trace_cols[] = {
	{ "tick", "integer" }, { "time_s", "double" }, { "step", "integer" },
	{ "step_tick", "integer" }, { "state", "string" },
	{ "irq_latency_us", "double" }, { "thread_latency_us", "double" },
}, trace_channel_cols[] = {
	{ "command%u_m", "double" }, { "disp%u_m", "double" },
	{ "force%u_N", "double" },
};

/* Column @k of the trace: its name into @name, its datatype. */
static const char *trace_column(const struct devb *d, size_t k, char *name,
				size_t size)
{
	size_t n0 = sizeof(trace_cols) / sizeof(trace_cols[0]);
	size_t nc = sizeof(trace_channel_cols) / sizeof(trace_channel_cols[0]);

	if (k < n0) {
		snprintf(name, size, "%s", trace_cols[k].name);
		return trace_cols[k].datatype;
	}
	k -= n0;
	if (k >= d->channels * nc)
		return NULL;
	snprintf(name, size, trace_channel_cols[k % nc].name,
		 (unsigned int)(k / nc + 1));
	return trace_channel_cols[k % nc].datatype;
}

/*
 * What the trace is of, beside it as W3C CSV on the Web metadata
 * (TRACE-metadata.json), not as a comment line that CSV readers trip on;
 * rths-run adds the run's provenance to it.  Names are [A-Za-z0-9_-]
 * (the kernel's rule), so they need no JSON escaping.
 */
static void devb_write_trace_metadata(const struct devb *d)
{
	char path[PATH_MAX + 16], name[32];
	const char *base = strrchr(d->trace_path, '/'), *type;
	FILE *f;

	snprintf(path, sizeof(path), "%s-metadata.json", d->trace_path);
	f = fopen(path, "w");
	if (!f)
		return;		/* the trace itself still gets written */
	fprintf(f, "{\n  \"@context\": \"http://www.w3.org/ns/csvw\",\n"
		   "  \"url\": \"%s\",\n"
		   "  \"dc:description\": \"actuator-rate trace of an rths device\",\n"
		   "  \"rths:device\": { \"name\": \"%s\", \"rate_hz\": %u, "
		   "\"step_ticks\": %u, \"records_lost\": %llu },\n"
		   "  \"tableSchema\": { \"columns\": [",
		base ? base + 1 : d->trace_path, d->name, d->rate,
		d->step_ticks, (unsigned long long)d->trace_lost);
	for (size_t k = 0; (type = trace_column(d, k, name, sizeof(name))); k++)
		fprintf(f, "%s\n    { \"name\": \"%s\", \"titles\": \"%s\", \"datatype\": \"%s\" }",
			k ? "," : "", name, name, type);
	fprintf(f, "\n  ] }\n}\n");
	fclose(f);
}

static void devb_write_trace(struct devb *d)
{
	FILE *f = d->trace_f;
	char name[32];
	size_t k;
	uint32_t i;

	devb_write_trace_metadata(d);
	/* a header row and numbers only: what every CSV reader takes */
	for (k = 0; trace_column(d, k, name, sizeof(name)); k++)
		fprintf(f, "%s%s", k ? "," : "", name);
	fputc('\n', f);
	for (k = 0; k < d->ntrace; k++) {
		const struct rths_trace *t = &d->trace[k];

		fprintf(f, "%llu,%.9f,%llu,%u,%s,%.3f,%.3f",
			(unsigned long long)t->tick,
			(double)(t->tick) / d->rate,
			(unsigned long long)t->step, t->step_tick,
			rths_state_name(t->state) ?: "?",
			t->irq_latency_ns / 1e3, t->thread_latency_ns / 1e3);
		for (i = 0; i < d->channels; i++)
			fprintf(f, ",%.9g,%.9g,%.9g", t->command[i],
				t->disp[i], t->force[i]);
		fputc('\n', f);
	}
}

static void devb_close(void *priv)
{
	struct devb *d = priv;

	if (d->started)
		rths_run_stop(d->ctl, d->name);
	if (d->dev) {
		devb_drain_trace(d);
		rths_dev_close(d->dev);
	}
	if (d->trace_f) {
		devb_write_trace(d);
		fclose(d->trace_f);
	}
	if (d->created)
		rths_dev_del(d->ctl, d->name);
	if (d->ctl)
		rths_ctl_close(d->ctl);
	free(d->trace);
	free(d->trace_path);
	free(d);
}

static const struct rths_hs_backend_ops devb_ops = {
	.name = "device",
	.start = devb_start,
	.post = devb_post,
	.wait = devb_wait,
	.hold = devb_hold,
	.stop = devb_stop,
	.stats = devb_stats,
	.close = devb_close,
};

/* The device configuration the experiment asks for; @sim->set stays 0
 * unless the card is "sim". */
static void devb_config(const struct rths_hs_device_params *p,
			struct rths_dev_config *cfg,
			struct rths_sim_params *sim)
{
	const struct rths_hs_device_config *x = p->dev;
	uint32_t ch;

	memset(cfg, 0, sizeof(*cfg));
	memset(sim, 0, sizeof(*sim));
	cfg->set = RTHS_CFG_RATE | RTHS_CFG_STEP_TICKS |
		   RTHS_CFG_TRACE_ENTRIES;
	cfg->rate_hz = x->rate;
	cfg->step_ticks = x->step_ticks;
	cfg->trace_entries = p->trace_path ? 8192 : 0;
	if (x->set & RTHS_HS_DEV_TRACE_ENTRIES)
		cfg->trace_entries = x->trace_entries;
#define DEVB_COPY(bit, cbit, field, src) do {	\
	if (x->set & (bit)) {			\
		cfg->set |= (cbit);		\
		cfg->field = x->src;		\
	}					\
} while (0)
	DEVB_COPY(RTHS_HS_DEV_CLOCK, RTHS_CFG_CLOCK, clock, clock);
	DEVB_COPY(RTHS_HS_DEV_LATE_POLICY, RTHS_CFG_LATE_POLICY, late_policy,
		  late_policy);
	DEVB_COPY(RTHS_HS_DEV_LATE_DEADLINE, RTHS_CFG_LATE_DEADLINE,
		  late_deadline, late_deadline);
	DEVB_COPY(RTHS_HS_DEV_RAMP_TICKS, RTHS_CFG_RAMP_TICKS, ramp_ticks,
		  ramp_ticks);
	DEVB_COPY(RTHS_HS_DEV_CPU, RTHS_CFG_CPU, cpu, cpu);
	DEVB_COPY(RTHS_HS_DEV_PRIORITY, RTHS_CFG_PRIORITY, priority, priority);
	DEVB_COPY(RTHS_HS_DEV_CMD_ENTRIES, RTHS_CFG_CMD_ENTRIES, cmd_entries,
		  cmd_entries);
	DEVB_COPY(RTHS_HS_DEV_FB_ENTRIES, RTHS_CFG_FB_ENTRIES, fb_entries,
		  fb_entries);
#undef DEVB_COPY
	for (ch = 0; ch < p->channels; ch++) {
		const struct rths_hs_channel_limits *l = &x->limits[ch];
		struct rths_limits *o = &cfg->limits[ch];

		if (!l->set)
			continue;
		cfg->set |= RTHS_CFG_LIMITS;
		cfg->limits_set |= 1u << ch;
		o->pos_min = l->stroke_min;
		o->pos_max = l->stroke_max;
		o->vel_max = l->velocity_max;
		o->force_max = l->force_max;
		o->set = (l->set & RTHS_HS_LIM_STROKE_MIN ? RTHS_LIM_POS_MIN : 0) |
			 (l->set & RTHS_HS_LIM_STROKE_MAX ? RTHS_LIM_POS_MAX : 0) |
			 (l->set & RTHS_HS_LIM_VELOCITY_MAX ? RTHS_LIM_VEL_MAX : 0) |
			 (l->set & RTHS_HS_LIM_FORCE_MAX ? RTHS_LIM_FORCE_MAX : 0);
	}
	if (!strcmp(x->card, "sim")) {
		const struct rths_hs_actuator_model *a = &x->actuator;

		sim->set = RTHS_SIM_LAG | RTHS_SIM_DELAY |
			   RTHS_SIM_STIFFNESS | RTHS_SIM_DAMPING |
			   RTHS_SIM_NOISE_DISP | RTHS_SIM_NOISE_FORCE |
			   RTHS_SIM_SEED;
		sim->lag = a->lag;
		sim->delay_ticks = a->delay_ticks;
		sim->stiffness = p->stiffness;
		sim->damping = p->damping;
		sim->noise_disp = a->noise_disp;
		sim->noise_force = a->noise_force;
		sim->seed = a->seed;
		/* always sent, so that a spring or a plant of an earlier
		 * run goes (rths_hs_backend_set_plant() loads one) */
		sim->set |= RTHS_SIM_SPRING | RTHS_SIM_PLANT;
		if (p->spring) {
			sim->spring_stiffness = p->spring->k;
			sim->yield_force = p->spring->fy;
			sim->post_stiffness = p->spring->alpha * p->spring->k;
		}
	}
}

int rths_hs_device_open(struct rths_hs_backend *b,
			const struct rths_hs_device_params *p,
			struct rths_error *err)
{
	struct rths_dev_config cfg;
	struct rths_sim_params sim;
	struct rths_dev_info info;
	struct devb *d;
	double dt;
	int ret;

	memset(b, 0, sizeof(*b));
	if (!p->dev->step_ticks || !p->dev->rate || !p->channels ||
	    p->channels > RTHS_MAX_CHANNELS)
		return rths_error_set(err, EINVAL, NULL, 0, NULL,
				      "device backend: rate, step ticks and 1..%d channels are needed",
				      RTHS_MAX_CHANNELS);
	d = calloc(1, sizeof(*d));
	if (!d)
		return rths_error_set(err, ENOMEM, NULL, 0, NULL,
				      "out of memory");
	snprintf(d->name, sizeof(d->name), "%s", p->dev->name);
	d->channels = p->channels;
	d->rate = p->dev->rate;
	d->step_ticks = p->dev->step_ticks;
	dt = (double)d->step_ticks / d->rate;
	/* generous: a late step is the kernel's to handle, not ours */
	d->timeout_ms = 5000 + (int)(100 * dt * 1000);
	if (p->trace_path && !(d->trace_path = strdup(p->trace_path))) {
		devb_close(d);
		return rths_error_set(err, ENOMEM, NULL, 0, NULL,
				      "out of memory");
	}
	if (p->trace_path && !(d->trace_f = fopen(p->trace_path, "w"))) {
		ret = rths_error_set(err, errno, p->trace_path, 0, NULL,
				     "cannot write the trace: %s",
				     rths_strerror(errno));
		devb_close(d);
		return ret;
	}

	ret = rths_ctl_open(&d->ctl);
	if (ret) {
		ret = devb_fail(d, ret, "netlink", err);
		devb_close(d);
		return ret;
	}
	ret = rths_dev_get(d->ctl, d->name, &info, sizeof(info));
	if (ret == -ENODEV && p->create) {
		ret = rths_dev_new(d->ctl, d->name, p->dev->card, p->channels,
				   NULL);
		if (ret) {
			ret = devb_fail(d, ret, "dev add", err);
			devb_close(d);
			return ret;
		}
		d->created = true;
		ret = rths_dev_get(d->ctl, d->name, &info, sizeof(info));
	}
	if (ret) {
		ret = devb_fail(d, ret, "dev show", err);
		devb_close(d);
		return ret;
	}
	if (info.channels != p->channels || strcmp(info.card, p->dev->card)) {
		ret = rths_error_set(err, RTHS_E_BACKEND, NULL, 0, NULL,
				     "device %s is a %s card with %u channels; the experiment needs %s with %u",
				     d->name, info.card, info.channels,
				     p->dev->card, p->channels);
		devb_close(d);
		return ret;
	}
	if (info.state != RTHS_STATE_STOPPED)
		rths_run_stop(d->ctl, d->name);	/* a left-over run */
	devb_config(p, &cfg, &sim);
	ret = rths_dev_set(d->ctl, d->name, &cfg, sizeof(cfg),
			   sim.set ? RTHS_SIM_PARAMS(&sim) : NULL);
	if (ret) {
		ret = devb_fail(d, ret, "dev set", err);
		devb_close(d);
		return ret;
	}
	ret = rths_dev_open(d->ctl, d->name, RTHS_OPEN_OWNER, &d->dev);
	if (ret) {
		ret = devb_fail(d, ret, "open /dev/rths/NAME", err);
		devb_close(d);
		return ret;
	}
	d->manual = cfg.set & RTHS_CFG_CLOCK ? cfg.clock == RTHS_CLOCK_MANUAL :
		    info.clock == RTHS_CLOCK_MANUAL;
	d->sim = sim.set != 0;
	d->trace_entries = cfg.trace_entries;
	b->ops = &devb_ops;
	b->priv = d;
	b->channels = d->channels;
	b->rate = d->rate;
	b->step_ticks = d->step_ticks;
	return 0;
}

int rths_hs_device_set_plant(struct rths_hs_backend *b,
			     const struct rths_sim_params *sim,
			     struct rths_error *err)
{
	struct rths_sim_params only = { .set = RTHS_SIM_PLANT };
	struct devb *d = b->priv;
	int ret;

	if (b->ops != &devb_ops)
		return -ENOTTY;
	if (!d->sim)
		return rths_error_set(err, RTHS_E_UNSUPPORTED, NULL, 0, "plant",
				      "device %s: only the sim card runs a plant",
				      d->name);
	if (d->started)
		return rths_error_set(err, EBUSY, NULL, 0, "plant",
				      "device %s: the plant is set before start",
				      d->name);
	only.plant_sections = sim->plant_sections;
	memcpy(only.plant, sim->plant, sizeof(only.plant));
	ret = rths_dev_set(d->ctl, d->name, NULL, 0, RTHS_SIM_PARAMS(&only));
	return ret ? devb_fail(d, ret, "dev set plant", err) : 0;
}

int rths_hs_device_reserve(struct rths_hs_backend *b, uint64_t steps)
{
	struct devb *d = b->priv;
	struct rths_trace *t;
	size_t cap;

	if (b->ops != &devb_ops || !d->trace_path)
		return 0;
	/* every tick of the run, and a ring's worth of ticks before it */
	cap = (size_t)(steps + 1) * d->step_ticks + d->trace_entries;
	if (cap <= d->cap)
		return 0;
	t = realloc(d->trace, cap * sizeof(*t));
	if (!t)
		return -ENOMEM;
	/* first touch now, not in the loop */
	memset(t + d->cap, 0, (cap - d->cap) * sizeof(*t));
	d->trace = t;
	d->cap = cap;
	return 0;
}

double rths_hs_device_paced(const struct rths_hs_backend *b)
{
	const struct devb *d = b->priv;

	if (b->ops != &devb_ops || d->manual)
		return 0;
	return (double)d->step_ticks / d->rate;
}
