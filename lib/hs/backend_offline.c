// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Offline backend: actuator and specimen modelled in userspace with the
 * sim card's structure (interpolation, transport delay, first-order lag,
 * equidistant sampling, uniform noise), so that an experiment behaves
 * alike offline and on the device.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/rths.h>
#include <rths/device.h>
#include <rths/hs_backend.h>
#include <rths/hs_experiment.h>

#include "hs/backend_impl.h"
#include "hs/linalg.h"
#include "hs/random.h"

#define NCH RTHS_HS_MAX_CHANNELS

enum offline_state { OFF_IDLE, OFF_RUNNING, OFF_HELD };

struct offline {
	struct rths_hs_offline_params p;
	struct rths_hs_setup setup;
	double k[NCH * NCH], c[NCH * NCH];
	bool has_k, has_c, has_springs;
	bool spring_on[NCH];
	struct rths_hs_element_params spring_p[NCH];
	struct rths_hs_element springs[NCH];
	struct rths_hs_rng rng;
	enum offline_state state;
	uint64_t step, tick;
	double prev[NCH];	/* last step's targets */
	double out[NCH];	/* output at the last tick */
	double stroke[NCH];	/* actuator position after delay and lag */
	double *line;		/* delay line, delay_ticks x channels */
	size_t line_pos;
	double point[NCH], point_prev[NCH];
	double lag_k;		/* 1 - exp(-h / lag) */
	/* the sim card's plant in place of the lag (0 sections: none) */
	struct rths_sim_params plant;
	struct rths_sim_plant_state plant_st[NCH];
	struct rths_hs_feedback fb;
	bool fb_ready;
	struct rths_hs_backend_stats stats;
	/* The kernel's limits in its units (kernel/core.c's defaults when
	 * unset), the last tick's command in nm, and why a trip held. */
	int64_t pos_min[NCH], pos_max[NCH], force_max[NCH];
	uint64_t vel_max[NCH];
	bool force_limited;
	int64_t out_nm[NCH];
	char held_why[160];
};

/* A tick's outcome when a limit tripped: the step stops there. */
#define OFF_TRIPPED 1

static double noise(struct offline *o, double half)
{
	return half > 0 ? half * (2 * rths_hs_rng_uniform(&o->rng) - 1) : 0;
}

static int off_start(void *priv, struct rths_error *err)
{
	struct offline *o = priv;

	(void)err;
	o->state = OFF_RUNNING;
	o->step = o->tick = 0;
	memset(o->prev, 0, sizeof(o->prev));
	memset(o->out, 0, sizeof(o->out));
	memset(o->stroke, 0, sizeof(o->stroke));
	memset(o->point, 0, sizeof(o->point));
	memset(o->point_prev, 0, sizeof(o->point_prev));
	if (o->line)
		memset(o->line, 0, o->p.delay_ticks * o->setup.n_act *
				   sizeof(double));
	for (size_t i = 0; i < NCH; i++)
		rths_sim_plant_reset(&o->plant_st[i], 0);
	o->line_pos = 0;
	for (size_t i = 0; i < o->setup.dim; i++)
		if (o->spring_on[i])
			rths_hs_element_init(&o->springs[i], &o->spring_p[i],
					     0, -1);
	rths_hs_rng_seed(&o->rng, o->p.seed);
	memset(&o->stats, 0, sizeof(o->stats));
	memset(o->out_nm, 0, sizeof(o->out_nm));
	o->held_why[0] = '\0';
	o->fb_ready = false;
	return 0;
}

/* A limit tripped: hold, as the kernel does (RTHS_REASON_LIMIT). */
static int off_trip(struct offline *o, size_t ch, const char *what,
		    double value, double limit, const char *unit)
{
	o->state = OFF_HELD;
	o->stats.limit_trips++;
	snprintf(o->held_why, sizeof(o->held_why),
		 "channel %zu %s %.9g %s beyond the limit %.9g %s at tick %" PRIu64
		 " of step %" PRIu64, ch, what, value, unit, limit, unit,
		 o->tick, o->step + 1);
	return OFF_TRIPPED;
}

/* kernel/loop.c's rths_check_motion() on the command of this tick. */
static int check_motion(struct offline *o)
{
	for (size_t ch = 0; ch < o->setup.n_act; ch++) {
		int64_t nm = llround(o->out[ch] * 1e9), dv = nm - o->out_nm[ch];
		uint64_t speed = (dv < 0 ? -(uint64_t)dv : (uint64_t)dv) *
				 o->p.rate;

		if (nm < o->pos_min[ch])
			return off_trip(o, ch, "stroke", nm * 1e-9,
					o->pos_min[ch] * 1e-9, "m");
		if (nm > o->pos_max[ch])
			return off_trip(o, ch, "stroke", nm * 1e-9,
					o->pos_max[ch] * 1e-9, "m");
		if (speed > o->vel_max[ch])
			return off_trip(o, ch, "velocity", speed * 1e-9,
					o->vel_max[ch] * 1e-9, "m/s");
	}
	for (size_t ch = 0; ch < o->setup.n_act; ch++)
		o->out_nm[ch] = llround(o->out[ch] * 1e9);
	return 0;
}

/* kernel/loop.c's rths_check_force() on the actuator forces @f. */
static int check_force(struct offline *o, const double *f)
{
	for (size_t ch = 0; ch < o->setup.n_act; ch++) {
		int64_t un = llround(f[ch] * 1e6);

		if ((un < 0 ? -(uint64_t)un : (uint64_t)un) >
		    (uint64_t)o->force_max[ch])
			return off_trip(o, ch, "force", un * 1e-6,
					o->force_max[ch] * 1e-6, "N");
	}
	return 0;
}

/* Specimen force at the loading point (springs advance every tick). */
static void specimen_force(struct offline *o, double h, double *F)
{
	size_t dim = o->setup.dim;
	double vel[NCH];

	for (size_t i = 0; i < dim; i++) {
		vel[i] = (o->point[i] - o->point_prev[i]) / h;
		F[i] = 0;
	}
	if (o->has_k)
		la_gemv(dim, dim, 1.0, o->k, o->point, 1.0, F);
	if (o->has_c)
		la_gemv(dim, dim, 1.0, o->c, vel, 1.0, F);
	for (size_t i = 0; i < dim; i++)
		if (o->spring_on[i]) {
			F[i] += rths_hs_element_trial(&o->springs[i],
						      o->point[i]);
			rths_hs_element_commit(&o->springs[i]);
		}
}

static double quantize(double v, double unit, bool on)
{
	return on ? nearbyint(v / unit) * unit : v;
}

static int off_tick(struct offline *o, const double *target, uint32_t k,
		    bool last, struct rths_error *err)
{
	size_t n = o->setup.n_act;
	double h = 1.0 / o->p.rate, d = o->p.step_ticks;
	bool track = o->has_c || o->has_springs;
	int r;

	o->tick++;
	for (size_t i = 0; i < n; i++) {
		double y = o->prev[i] + (target[i] - o->prev[i]) * k / d;
		double yd = y;

		o->out[i] = quantize(y, 1e-9, o->p.quantize);
		if (o->p.delay_ticks) {
			double *slot = &o->line[o->line_pos * n + i];

			yd = *slot;
			*slot = o->out[i];
		} else {
			yd = o->out[i];
		}
		if (o->plant.plant_sections)	/* the card's own integers */
			o->stroke[i] = 1e-9 * (double)rths_sim_plant_tick(
				&o->plant, &o->plant_st[i],
				(int64_t)llround(yd * 1e9));
		else
			o->stroke[i] = o->p.lag > 0 ?
				       o->stroke[i] + (yd - o->stroke[i]) *
				       o->lag_k : yd;
	}
	if (o->p.delay_ticks)
		o->line_pos = (o->line_pos + 1) % o->p.delay_ticks;
	r = check_motion(o);
	if (r)
		return r;
	/* Rate-dependent or hysteretic specimens follow every tick, and so
	 * does a specimen whose force is limited. */
	if (track || last || o->force_limited) {
		double F[NCH], f[NCH];

		memcpy(o->point_prev, o->point, sizeof(o->point));
		r = rths_hs_setup_position(&o->setup, o->stroke, o->point_prev,
					   o->point, err);
		if (r < 0)
			return r;
		if (!track)	/* velocity unused: no damper */
			memcpy(o->point_prev, o->point, sizeof(o->point));
		specimen_force(o, h, F);
		if (!last && !o->force_limited)
			return 0;
		r = rths_hs_setup_actuator_forces(&o->setup, o->point, F, f,
						  err);
		if (r < 0)
			return r;
		r = check_force(o, f);
		if (r || !last)
			return r;
		for (size_t i = 0; i < n; i++) {
			o->fb.command[i] = o->out[i];
			o->fb.disp[i] = quantize(o->stroke[i] +
						 noise(o, o->p.noise_disp),
						 1e-9, o->p.quantize);
			o->fb.force[i] = quantize(f[i] +
						  noise(o, o->p.noise_force),
						  1e-6, o->p.quantize);
		}
	}
	return 0;
}

static int off_post(void *priv, uint64_t step, const double *target,
		    struct rths_error *err)
{
	struct offline *o = priv;
	int r;

	if (o->state == OFF_HELD && o->held_why[0])
		return rths_error_set(err, RTHS_E_BACKEND, NULL, 0, NULL,
				      "offline device is holding (reason limit: %s)",
				      o->held_why);
	if (o->state != OFF_RUNNING)
		return rths_error_set(err, RTHS_E_BACKEND, NULL, 0, NULL,
				      "offline backend: not running (%s)",
				      o->state == OFF_HELD ? "holding" : "stopped");
	if (step != o->step + 1 || o->fb_ready)
		return rths_error_set(err, RTHS_E_BACKEND, NULL, 0, NULL,
				      "offline backend: command for step %llu, expected step %llu",
				      (unsigned long long)step,
				      (unsigned long long)o->step + 1);
	for (size_t i = 0; i < o->setup.n_act; i++)
		if (!isfinite(target[i]) ||
		    fabs(target[i]) > (double)RTHS_POS_MAX * 1e-9)
			return rths_error_set(err, RTHS_E_BACKEND, NULL, 0,
					      NULL,
					      "offline backend: channel %zu target %g m out of the device's range",
					      i, target[i]);
	for (uint32_t k = 1; k <= o->p.step_ticks; k++) {
		r = off_tick(o, target, k, k == o->p.step_ticks, err);
		if (r < 0)
			return r;
		/* Posted, as on the device; its wait tells the hold. */
		if (r == OFF_TRIPPED) {
			o->stats.ticks = o->tick;
			return 0;
		}
	}
	memcpy(o->prev, target, o->setup.n_act * sizeof(double));
	o->step = step;
	o->fb.step = step;
	o->fb.tick = o->tick;
	o->fb.time_ns = (uint64_t)llround((double)o->tick * 1e9 / o->p.rate);
	o->fb.flags = 0;
	o->fb.late_ticks = 0;
	o->fb.channels = (uint32_t)o->setup.n_act;
	o->fb_ready = true;
	o->stats.steps++;
	o->stats.ticks = o->tick;
	return 0;
}

static int off_wait(void *priv, uint64_t step, struct rths_hs_feedback *fb,
		    struct rths_error *err)
{
	struct offline *o = priv;

	if (o->state == OFF_HELD && o->held_why[0])
		return rths_error_set(err, RTHS_E_BACKEND, NULL, 0, NULL,
				      "offline device is holding (reason limit: %s)",
				      o->held_why);
	if (!o->fb_ready || o->fb.step != step)
		return rths_error_set(err, RTHS_E_BACKEND, NULL, 0, NULL,
				      "offline backend: no feedback for step %llu (its command was not posted)",
				      (unsigned long long)step);
	*fb = o->fb;
	o->fb_ready = false;
	return 0;
}

static int off_hold(void *priv, struct rths_error *err)
{
	struct offline *o = priv;

	(void)err;
	if (o->state == OFF_RUNNING)
		o->state = OFF_HELD;
	return 0;
}

static int off_stop(void *priv, struct rths_error *err)
{
	struct offline *o = priv;

	(void)err;
	o->state = OFF_IDLE;
	return 0;
}

static int off_stats(void *priv, struct rths_hs_backend_stats *st)
{
	struct offline *o = priv;

	*st = o->stats;
	return 0;
}

static void off_close(void *priv)
{
	struct offline *o = priv;

	if (!o)
		return;
	free(o->line);
	free(o);
}

static const struct rths_hs_backend_ops offline_ops = {
	.name = "offline",
	.start = off_start,
	.post = off_post,
	.wait = off_wait,
	.hold = off_hold,
	.stop = off_stop,
	.stats = off_stats,
	.close = off_close,
};

int rths_hs_offline_set_plant(struct rths_hs_backend *b,
			      const struct rths_sim_params *sim,
			      struct rths_error *err)
{
	struct offline *o = b->priv;

	if (b->ops != &offline_ops)
		return -ENOTTY;
	if (o->state != OFF_IDLE)
		return rths_error_set(err, EBUSY, NULL, 0, "plant",
				      "offline backend: the plant is set before start");
	o->plant = *sim;
	return 0;
}

/* The kernel's defaults (kernel/core.c): no limit within its range. */
static void limits_default(struct offline *o)
{
	for (size_t ch = 0; ch < NCH; ch++) {
		o->pos_min[ch] = -RTHS_POS_MAX;
		o->pos_max[ch] = RTHS_POS_MAX;
		o->vel_max[ch] = UINT64_MAX;
		o->force_max[ch] = RTHS_FORCE_MAX;
	}
	o->force_limited = false;
}

int rths_hs_offline_set_limits(struct rths_hs_backend *b,
			       const struct rths_hs_channel_limits *limits,
			       size_t channels, struct rths_error *err)
{
	struct offline *o = b->priv;
	int r = 0;

	if (b->ops != &offline_ops)
		return -ENOTTY;
	if (o->state != OFF_IDLE)
		return rths_error_set(err, EBUSY, NULL, 0, "device.limits",
				      "offline backend: the limits are set before start");
	if (limits && channels > o->setup.n_act)
		return rths_error_set(err, EINVAL, NULL, 0, "device.limits",
				      "offline backend: limits for %zu channels, the setup has %zu actuators",
				      channels, o->setup.n_act);
	limits_default(o);
	for (size_t ch = 0; limits && ch < channels && !r; ch++) {
		const struct rths_hs_channel_limits *l = &limits[ch];

		/* The same conversions as the device's (lib/dev/attrs.c). */
		if (l->set & RTHS_HS_LIM_STROKE_MIN)
			r = rths_m_to_nm(l->stroke_min, &o->pos_min[ch]);
		if (!r && (l->set & RTHS_HS_LIM_STROKE_MAX))
			r = rths_m_to_nm(l->stroke_max, &o->pos_max[ch]);
		if (!r && (l->set & RTHS_HS_LIM_VELOCITY_MAX))
			r = rths_mps_to_nmps(l->velocity_max, &o->vel_max[ch]);
		if (!r && (l->set & RTHS_HS_LIM_FORCE_MAX)) {
			r = rths_n_to_un(l->force_max, &o->force_max[ch]);
			o->force_limited = true;
		}
		if (r) {
			limits_default(o);
			return rths_error_set(err, RTHS_E_OUT_OF_RANGE, NULL,
					      0, "device.limits",
					      "offline backend: channel %zu: a limit beyond the device's range",
					      ch);
		}
	}
	return 0;
}

void rths_hs_offline_defaults(struct rths_hs_offline_params *p)
{
	memset(p, 0, sizeof(*p));
	p->rate = RTHS_RATE_DEFAULT;
	p->step_ticks = 1;
	p->seed = 1;
}

int rths_hs_offline_open(struct rths_hs_backend *b,
			 const struct rths_hs_offline_params *p,
			 struct rths_error *err)
{
	struct offline *o;
	size_t dim;

	memset(b, 0, sizeof(*b));
	if (!p->setup)
		return rths_error_set(err, EINVAL, NULL, 0, NULL,
				      "offline backend: no setup");
	if (p->rate < RTHS_RATE_MIN || p->rate > RTHS_RATE_MAX ||
	    p->step_ticks < 1 || p->step_ticks > RTHS_STEP_TICKS_MAX ||
	    p->delay_ticks > RTHS_SIM_DELAY_MAX || !(p->lag >= 0) ||
	    p->lag > RTHS_SIM_LAG_US_MAX * 1e-6 || !(p->noise_disp >= 0) ||
	    !(p->noise_force >= 0))
		return rths_error_set(err, RTHS_E_OUT_OF_RANGE, NULL, 0, NULL,
				      "offline backend: rate, step ticks, delay, lag or noise outside the sim card's ranges");
	o = calloc(1, sizeof(*o));
	if (!o)
		return rths_error_set(err, ENOMEM, NULL, 0, NULL,
				      "cannot allocate the offline backend");
	o->p = *p;
	o->setup = *p->setup;
	o->p.setup = &o->setup;
	dim = o->setup.dim;
	o->has_k = p->k != NULL;
	o->has_c = p->c != NULL;
	if (o->has_k)
		memcpy(o->k, p->k, dim * dim * sizeof(double));
	if (o->has_c)
		memcpy(o->c, p->c, dim * dim * sizeof(double));
	for (size_t i = 0; p->springs && i < dim; i++) {
		int r;

		if (!p->springs[i].kind)
			continue;
		r = rths_hs_element_check(&p->springs[i], err);
		if (r < 0) {
			free(o);
			return r;
		}
		o->spring_p[i] = p->springs[i];
		o->spring_on[i] = true;
		o->has_springs = true;
	}
	/* Nothing the caller passed by pointer is kept. */
	o->p.k = o->p.c = NULL;
	o->p.springs = NULL;
	if (p->delay_ticks) {
		o->line = rths_zalloc(p->delay_ticks * o->setup.n_act, err);
		if (!o->line) {
			free(o);
			return -ENOMEM;
		}
	}
	o->lag_k = p->lag > 0 ? -expm1(-1.0 / (p->rate * p->lag)) : 1.0;
	limits_default(o);
	b->ops = &offline_ops;
	b->priv = o;
	b->channels = (uint32_t)o->setup.n_act;
	b->rate = p->rate;
	b->step_ticks = p->step_ticks;
	return 0;
}
