/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rths hybrid simulation: the specimen backend.
 *
 * A backend is what the simulation loop drives in place of the lab: one
 * command per step out, one feedback record per step back, exactly like
 * an rths device (see <rths/device.h>: rths_post(), rths_wait_feedback()).
 * Values are doubles in SI units (m, N); channel i is actuator i of the
 * setup.  Steps are numbered from 1, as on the device.
 *
 *	start -> (post(n, targets) -> wait(n, &feedback))* -> stop -> close
 *	hold at any time after start: actuators stop where they are (Ctrl-C,
 *	errors); only stop and close may follow.
 *
 * The loop posts step n's targets and waits for step n's feedback before
 * it computes step n+1; a device that needs the command earlier simply
 * sees it late and applies its late policy (event-driven extrapolation).
 *
 * Backends: the offline one below (a specimen and an actuator modelled in
 * userspace, as the kernel's sim card does), and a device backend built on
 * <rths/device.h>.
 *
 * Errors: a negative errno or -RTHS_E_xxx (rths/error.h); calls that take
 * a struct rths_error fill it with what went wrong and where.
 */
#ifndef RTHS_HS_BACKEND_H
#define RTHS_HS_BACKEND_H

/* librths is built with -fvisibility=hidden: this is its API. */
#pragma GCC visibility push(default)

#include <stdbool.h>
#include <stdint.h>

#include <rths/hs_error.h>
#include <rths/hs_model.h>
#include <rths/hs_setup.h>
#include <rths/sim_plant.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One step's sample, like struct rths_feedback of <rths/device.h>. */
struct rths_hs_feedback {
	uint64_t step;
	uint64_t tick;		/* backend tick of the sample, first is 1 */
	uint64_t time_ns;	/* when it was taken (virtual offline) */
	uint32_t flags;		/* RTHS_FB_F_* of <linux/rths.h> */
	uint32_t late_ticks;
	uint32_t channels;
	double command[RTHS_HS_MAX_CHANNELS];	/* m, output at the sample */
	double disp[RTHS_HS_MAX_CHANNELS];	/* m, measured */
	double force[RTHS_HS_MAX_CHANNELS];	/* N, measured */
};

/* Counters for the summary; a backend fills what it knows. */
struct rths_hs_backend_stats {
	uint64_t steps, ticks, missed_ticks;
	uint64_t late_steps, late_extrapolated, late_held, late_decelerated;
	uint64_t late_faulted, limit_trips, fb_overflows, card_errors;
	bool has_latency;
	double irq_lat_max_ns, thread_lat_avg_ns, thread_lat_max_ns;
};

struct rths_hs_backend_ops {
	const char *name;
	int (*start)(void *priv, struct rths_error *err);
	int (*post)(void *priv, uint64_t step, const double *target,
		    struct rths_error *err);
	int (*wait)(void *priv, uint64_t step, struct rths_hs_feedback *fb,
		    struct rths_error *err);
	int (*hold)(void *priv, struct rths_error *err);
	int (*stop)(void *priv, struct rths_error *err);
	/* Optional. */
	int (*stats)(void *priv, struct rths_hs_backend_stats *st);
	void (*close)(void *priv);
};

struct rths_hs_backend {
	const struct rths_hs_backend_ops *ops;
	void *priv;
	uint32_t channels;
	uint32_t rate;		/* controller rate f_ctrl, Hz */
	uint32_t step_ticks;	/* d: ticks per integration step */
};

int rths_hs_backend_start(struct rths_hs_backend *b,
			  struct rths_error *err);
int rths_hs_backend_post(struct rths_hs_backend *b, uint64_t step,
			 const double *target, struct rths_error *err);
/* -RTHS_E_UNSUPPORTED on a wide backend: rths_hs_backend_wait_wide(). */
int rths_hs_backend_wait(struct rths_hs_backend *b, uint64_t step,
			 struct rths_hs_feedback *fb,
			 struct rths_error *err);
int rths_hs_backend_hold(struct rths_hs_backend *b,
			 struct rths_error *err);
int rths_hs_backend_stop(struct rths_hs_backend *b,
			 struct rths_error *err);
/* -RTHS_E_UNSUPPORTED if the backend keeps no counters. */
int rths_hs_backend_stats(struct rths_hs_backend *b,
			  struct rths_hs_backend_stats *st);
/* Like free(), NULL is accepted and does nothing. */
void rths_hs_backend_close(struct rths_hs_backend *b);

/*
 * Wide backends: more channels than struct rths_hs_feedback holds, up to
 * RTHS_HS_MAX_INTERFACE.  A channel is then not an actuator but an
 * interface coordinate (rths-coord's composite backend over its sites,
 * each site one device of at most RTHS_HS_MAX_CHANNELS), so the setup
 * must be direct.  Such a backend sets b->ops to &w->ops of a struct
 * rths_hs_backend_wide_ops whose ops.wait is NULL: rths_hs_backend_wait()
 * refuses it, and rths_hs_backend_wait_wide() calls w->wait_wide with the
 * caller's arrays.  The engine (rths_hs_sim_run()) waits through
 * rths_hs_backend_wait_wide() on every backend.
 */
#define RTHS_HS_MAX_INTERFACE 256

/* struct rths_hs_feedback with the caller's arrays, channels long each. */
struct rths_hs_feedback_wide {
	uint64_t step;
	uint64_t tick;
	uint64_t time_ns;
	uint32_t flags;
	uint32_t late_ticks;
	uint32_t channels;	/* the arrays' length, set by the caller */
	double *command;	/* m, output at the sample */
	double *disp;		/* m, measured */
	double *force;		/* N, measured */
};

struct rths_hs_backend_wide_ops {
	struct rths_hs_backend_ops ops;		/* ops.wait NULL */
	int (*wait_wide)(void *priv, uint64_t step,
			 struct rths_hs_feedback_wide *fb,
			 struct rths_error *err);
};

/*
 * Step @step's feedback into @fb's arrays, which must hold the backend's
 * channels (EINVAL if fb->channels is fewer).  Any backend: a narrow
 * one's record is copied over.  fb->channels is left as given.
 */
int rths_hs_backend_wait_wide(struct rths_hs_backend *b, uint64_t step,
			      struct rths_hs_feedback_wide *fb,
			      struct rths_error *err);

/*
 * The offline backend.  Per tick (rate Hz, step_ticks a step) it does
 * what the sim card does: interpolates the targets, delays them by
 * delay_ticks, passes them through a first-order lag, and at the step's
 * last tick samples strokes and actuator forces (plus seeded uniform
 * noise).  The specimen lives at the setup's loading point: the strokes
 * give the point (setup inverse), the point gives the specimen force
 * (linear k, c plus optional hysteretic springs per coordinate), the
 * force gives the actuator forces (least norm).
 */
struct rths_hs_offline_params {
	uint32_t rate;		/* Hz */
	uint32_t step_ticks;
	double lag;		/* s, 0: none */
	uint32_t delay_ticks;
	double noise_disp;	/* m, half-width */
	double noise_force;	/* N, half-width */
	uint64_t seed;
	bool quantize;		/* round like the device: nm and uN */
	const struct rths_hs_setup *setup;	/* copied */
	/* Specimen, setup->dim coordinates; copied; NULL: none. */
	const double *k;	/* dim x dim, N/m */
	const double *c;	/* dim x dim, N*s/m */
	/* dim entries, kind 0 for none: a spring along each coordinate. */
	const struct rths_hs_element_params *springs;
};

/* 1024 Hz, 1 tick a step, perfect actuator, no noise, seed 1. */
void rths_hs_offline_defaults(struct rths_hs_offline_params *p);
int rths_hs_offline_open(struct rths_hs_backend *b,
			 const struct rths_hs_offline_params *p,
			 struct rths_error *err);

/*
 * The device backend: an rths device through <rths/device.h>.  It applies
 * the experiment's device section (rate, step ticks, late policy, limits,
 * and for the sim card its actuator model with the specimen's stiffness
 * and damping on every channel), owns the device while it runs, and holds
 * it on Ctrl-C through RUN_HOLD.
 */
struct rths_hs_device_config;

struct rths_hs_device_params {
	const struct rths_hs_device_config *dev;
	uint32_t channels;
	double stiffness;	/* N/m, sim card only */
	double damping;		/* N*s/m, sim card only */
	/* sim card only: a bilinear spring in parallel, NULL for none */
	const struct rths_hs_element_params *spring;
	bool create;		/* add the device if missing; deleted at close */
	/* NULL: no actuator-rate trace; created by open (which fails if it
	 * cannot be), written at close */
	const char *trace_path;
};

int rths_hs_device_open(struct rths_hs_backend *b,
			const struct rths_hs_device_params *p,
			struct rths_error *err);

/*
 * The exchange cost of a step on @b, for the step-size preview: starts
 * it, posts @steps commands at rest (0) and waits for each feedback,
 * timing every round trip on CLOCK_MONOTONIC less the part a device paced
 * by its hrtimer clock spends waiting for the step's own ticks, and stops
 * it.  *mean_s and *max_s per step.  Open a backend for this alone: it
 * is not restarted for the run.
 */
int rths_hs_backend_round_trip(struct rths_hs_backend *b, uint32_t steps,
			       double *mean_s, double *max_s,
			       struct rths_error *err);

/*
 * The sim card's discrete-time plant (<rths/sim_plant.h>) in place of the
 * actuator's lag: @sim's RTHS_SIM_PLANT sections (none: back to the lag).
 * The offline backend then runs the card's integer recursion on commands
 * rounded to the nm, so that it predicts the card to the count; the device
 * backend loads the plant into its sim card (-RTHS_E_UNSUPPORTED on
 * another card).  Call after open and before start.
 */
int rths_hs_backend_set_plant(struct rths_hs_backend *b,
			      const struct rths_sim_params *sim,
			      struct rths_error *err);

/*
 * The device's limits on the offline backend, as the kernel applies
 * them (kernel/loop.c): every tick the interpolated command, rounded to
 * the nm, is checked against the stroke limits and its change against
 * the velocity limit, and the specimen's actuator force (without noise)
 * against the force limit.  A trip holds the backend: the step's wait,
 * and every post after it, fails with "holding (reason limit: ...)",
 * the device backend's "holding (reason limit)" with the channel, the
 * limit and the value; the stats count it in limit_trips.  @limits has
 * one entry per actuator (@channels), fields unset are the kernel's
 * defaults (none); NULL clears them.  Call after open and before start;
 * -ENOTTY if @b is not the offline backend.
 */
struct rths_hs_channel_limits;
int rths_hs_offline_set_limits(struct rths_hs_backend *b,
			       const struct rths_hs_channel_limits *limits,
			       size_t channels, struct rths_error *err);

#ifdef __cplusplus
}
#endif

#pragma GCC visibility pop

#endif /* RTHS_HS_BACKEND_H */
