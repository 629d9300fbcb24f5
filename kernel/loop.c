// SPDX-License-Identifier: GPL-2.0
/*
 * One tick of the actuator loop: the step semantics (interpolation,
 * late-command policies, equidistant sampling), the limits, and holds.
 * Documentation/step-semantics.rst states the rules this file implements.
 *
 * Ticks run in one context at a time (the tick context of rths.h,
 * Locking): the loop thread (hrtimer clock), which changes the state
 * without rd->lock, or the RUN_TICK / RUN_STOP caller holding rd->lock
 * (manual clock).  All arithmetic is
 * integer; products are bounded by RTHS_POS_MAX (2^40 nm) and the 16-bit
 * tick counts so that they fit in 64 bits.
 */
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/poll.h>

#include "rths.h"

#define CREATE_TRACE_POINTS
#include "rths_trace.h"

static s64 rths_mul_div(s64 v, u64 mul, u64 div)
{
	u64 q = mul_u64_u64_div_u64(v < 0 ? -(u64)v : v, mul, div);

	return v < 0 ? -(s64)q : (s64)q;
}

/* Output of @ch after lp->i ticks of the current motion. */
static s64 rths_motion_pos(const struct rths_loop *lp, unsigned int ch)
{
	u64 i = lp->i, n = lp->len;

	switch (lp->motion) {
	case RTHS_MOTION_INTERP:
		/* exact at i == len */
		return lp->p0[ch] + div64_s64((lp->p1[ch] - lp->p0[ch]) * (s64)i,
					      n);
	case RTHS_MOTION_EXTRAP:
		return lp->p0[ch] + div64_s64(lp->v[ch] * (s64)i, lp->den);
	case RTHS_MOTION_DECEL:
		/* velocity v/den * (n - k) / n at tick k: a linear ramp */
		i = min(i, n);
		return lp->p0[ch] + rths_mul_div(lp->v[ch], i * n - i * (i + 1) / 2,
						 (u64)lp->den * n);
	default:
		return lp->p0[ch];
	}
}

static void rths_motion_set(struct rths_loop *lp, u32 motion, const s64 *p0,
			    u32 len, s64 den, u32 channels)
{
	lp->motion = motion;
	lp->i = 0;
	lp->len = len;
	lp->den = den;
	memcpy(lp->p0, p0, channels * sizeof(*p0));
}

void rths_loop_set_state(struct rths_device *rd, u32 state, u32 reason)
{
	struct rths_event_k ev = {
		.type = RTHS_EVENT_STATE,
		.state = state,
		.reason = reason,
		.tick = rd->loop.tick,
		.step = rd->loop.step,
	};
	struct rths_mmap_header *hdr = rd->region->base;

	trace_rths_state(rd, state, reason);
	WRITE_ONCE(rd->state, state);
	WRITE_ONCE(rd->reason, reason);
	smp_store_release(&hdr->state, state);	/* G: matches H */
	rths_event_queue(rd, &ev);
	wake_up_interruptible_poll(&rd->wq, EPOLLPRI);
}

/*
 * Ramp the outputs down to rest from their current velocity, then hold.
 * A fault names step @step.
 */
static void __rths_halt(struct rths_device *rd, u32 state, u32 reason,
			u32 fault, u64 step)
{
	struct rths_loop *lp = &rd->loop;
	unsigned int ch;

	trace_rths_hold(rd, state, reason, fault, step);
	rths_motion_set(lp, RTHS_MOTION_DECEL, lp->out, rd->cfg.ramp_ticks, 1,
			rd->channels);
	for (ch = 0; ch < rd->channels; ch++)
		lp->v[ch] = lp->out[ch] - lp->out_prev[ch];
	if (fault) {
		struct rths_event_k ev = {
			.type = RTHS_EVENT_FAULT,
			.fault = fault,
			.tick = lp->tick,
			.step = step,
		};

		WRITE_ONCE(rd->fault, fault);
		if (fault != RTHS_FAULT_LATE && fault != RTHS_FAULT_CARD_IO)
			rd->stats.ring_faults++;
		rths_event_queue(rd, &ev);
	}
	rths_loop_set_state(rd, state, reason);
}

/* A halt during the step in progress. */
static void rths_halt(struct rths_device *rd, u32 state, u32 reason,
		      u32 fault)
{
	__rths_halt(rd, state, reason, fault, rd->loop.step + 1);
}

void rths_loop_request_hold(struct rths_device *rd, u32 reason)
{
	lockdep_assert_held(&rd->lock);
	if (rd->cfg.clock == RTHS_CLOCK_MANUAL)
		rths_halt(rd, RTHS_STATE_HOLDING, reason, 0);
	else
		atomic_set(&rd->loop.hold_request, reason);
}

/*
 * The loop ticks no more from now on (its CPU goes offline, timer.c): the
 * outputs stay where the last tick wrote them, without a ramp, since no
 * tick will run one.  A running device holds for @reason, and one holding
 * for another reason is announced again with it, so that userspace learns
 * the loop is gone; a fault stays a fault.  By the tick context, between
 * ticks.
 */
void rths_loop_hold_in_place(struct rths_device *rd, u32 reason)
{
	struct rths_loop *lp = &rd->loop;

	atomic_set(&lp->hold_request, 0);
	if (rd->state != RTHS_STATE_FAULTED &&
	    (rd->state != RTHS_STATE_HOLDING || rd->reason != reason)) {
		trace_rths_hold(rd, RTHS_STATE_HOLDING, reason, 0,
				lp->step + 1);
		rths_loop_set_state(rd, RTHS_STATE_HOLDING, reason);
	}
	rths_motion_set(lp, RTHS_MOTION_HOLD, lp->out, 0, 1, rd->channels);
	if (!lp->resting) {
		WRITE_ONCE(lp->resting, true);
		wake_up_interruptible_poll(&rd->wq, EPOLLPRI);
	}
}

/*
 * Bumpless start: take the outputs from where the card says the actuators
 * are (a stopped device only).  The positions are bounded like targets.
 */
int rths_loop_home(struct rths_device *rd)
{
	s64 pos[RTHS_MAX_CHANNELS];
	unsigned int ch;
	int err;

	if (!rd->card->home)
		return 0;
	err = rd->card->home(rd, pos);
	if (err)
		return err;
	for (ch = 0; ch < rd->channels; ch++)
		rd->loop.out[ch] = clamp_t(s64, pos[ch], -RTHS_POS_MAX,
					   RTHS_POS_MAX);
	rths_stats_publish(rd);		/* the position DEV_GET reports */
	return 0;
}

/* Prepare a run: the first step starts where the outputs are now. */
void rths_loop_reset(struct rths_device *rd)
{
	struct rths_loop *lp = &rd->loop;
	u32 d = rd->cfg.step_ticks;
	size_t n = rd->channels * sizeof(s64);

	memcpy(lp->u_prev, lp->out, n);
	memcpy(lp->u_prev2, lp->out, n);
	memcpy(lp->out_prev, lp->out, n);
	rths_motion_set(lp, RTHS_MOTION_HOLD, lp->out, 0, 1, rd->channels);
	lp->have_target = false;
	lp->gap = false;
	lp->step_tick = 0;
	lp->wait = 0;
	lp->late_flags = 0;
	lp->resting = false;
	lp->tick = 0;
	lp->step = 0;
	lp->deadline = rd->cfg.late_deadline ?
		       min(rd->cfg.late_deadline, d - 1) : d / 2;
	atomic_set(&lp->hold_request, 0);
}

static void rths_late(struct rths_device *rd, u32 action)
{
	struct rths_loop *lp = &rd->loop;
	struct rths_stats_k *st = &rd->stats;
	struct rths_event_k ev = {
		.type = RTHS_EVENT_LATE,
		.late_action = action,
		.late_ticks = lp->wait,
		.tick = lp->tick,
		.step = lp->step + 1,
	};

	trace_rths_late(rd, action, lp->wait);
	st->late_steps++;
	switch (action) {
	case RTHS_LATE_EXTRAPOLATED:
		st->late_extrapolated++;
		lp->late_flags |= RTHS_FB_F_EXTRAPOLATED;
		break;
	case RTHS_LATE_HELD:
		st->late_held++;
		lp->late_flags |= RTHS_FB_F_HELD;
		break;
	case RTHS_LATE_DECELERATED:
		st->late_decelerated++;
		lp->late_flags |= RTHS_FB_F_DECELERATED;
		break;
	default:
		st->late_faulted++;
	}
	rths_event_queue(rd, &ev);
}

/* The command of the current step arrived at this tick: head for it. */
static void rths_approach(struct rths_device *rd)
{
	struct rths_loop *lp = &rd->loop;
	u32 d = rd->cfg.step_ticks;
	u32 len = d;

	if (lp->wait) {
		if (rd->cfg.late_policy == RTHS_LATE_HOLD) {
			rths_late(rd, RTHS_LATE_HELD);
		} else if (lp->wait <= lp->deadline) {
			/* still reach the target at the step's end */
			len = d - lp->wait;
			rths_late(rd, RTHS_LATE_EXTRAPOLATED);
		} else {
			len = d - lp->deadline;
			rths_late(rd, RTHS_LATE_DECELERATED);
		}
	}
	rths_motion_set(lp, RTHS_MOTION_INTERP, lp->out, len, 1, rd->channels);
	memcpy(lp->p1, lp->target, rd->channels * sizeof(s64));
}

/* The command of the current step is late by lp->wait ticks now. */
static void rths_wait_motion(struct rths_device *rd)
{
	struct rths_loop *lp = &rd->loop;
	unsigned int ch;

	if (rd->cfg.late_policy != RTHS_LATE_EVENT_DRIVEN)
		return;	/* hold: stay at u_{n-1} */
	if (lp->wait == 1 && lp->deadline > 0) {
		/* keep moving along the previous step's velocity */
		rths_motion_set(lp, RTHS_MOTION_EXTRAP, lp->u_prev,
				lp->deadline, rd->cfg.step_ticks, rd->channels);
	} else if (lp->wait == lp->deadline + 1) {
		/* past the deadline: slow down to a hold */
		rths_motion_set(lp, RTHS_MOTION_DECEL, lp->out,
				rd->cfg.ramp_ticks, rd->cfg.step_ticks,
				rd->channels);
	} else {
		return;
	}
	for (ch = 0; ch < rd->channels; ch++)
		lp->v[ch] = lp->u_prev[ch] - lp->u_prev2[ch];
}

/*
 * Advances the current step by one tick while RUNNING.  Returns true if
 * this tick ends the step.  May leave RUNNING (fault).
 */
static bool rths_step_tick(struct rths_device *rd)
{
	struct rths_loop *lp = &rd->loop;
	struct rths_region *rg = rd->region;
	int r;

	lp->step_tick++;
	if (!lp->have_target) {
		r = rths_kring_pop_cmd(&rg->cmd, rd->channels, lp->step + 1,
				       lp->target);
		if (r < 0) {
			rths_halt(rd, RTHS_STATE_FAULTED, RTHS_REASON_RING, -r);
			return false;
		}
		if (r) {
			lp->have_target = true;
			rths_approach(rd);
		}
	}
	if (!lp->have_target) {
		lp->wait++;
		rd->stats.wait_ticks++;
		if (rd->cfg.late_policy == RTHS_LATE_STRICT) {
			rths_late(rd, RTHS_LATE_FAULTED);
			rths_halt(rd, RTHS_STATE_FAULTED, RTHS_REASON_LATE,
				  RTHS_FAULT_LATE);
			return false;
		}
		rths_wait_motion(rd);
	}
	return lp->have_target && lp->i + 1 == lp->len;
}

/* Stroke and velocity of a new output; true if a limit tripped. */
static bool rths_check_motion(struct rths_device *rd, const s64 *out)
{
	struct rths_loop *lp = &rd->loop;
	struct rths_event_k ev = {
		.type = RTHS_EVENT_LIMIT,
		.tick = lp->tick,
		.step = lp->step + 1,
	};
	unsigned int ch;

	for (ch = 0; ch < rd->channels; ch++) {
		const struct rths_limit *l = &rd->cfg.limit[ch];
		s64 dv = out[ch] - lp->out[ch];
		u64 speed = (dv < 0 ? -(u64)dv : dv) * rd->cfg.rate;

		if (out[ch] < l->pos_min || out[ch] > l->pos_max) {
			ev.limit = RTHS_LIMIT_STROKE;
			ev.value = out[ch];
		} else if (speed > l->vel_max) {
			ev.limit = RTHS_LIMIT_VELOCITY;
			ev.value = min_t(u64, speed, S64_MAX);
		} else {
			continue;
		}
		ev.channel = ch;
		rd->stats.limit_trips++;
		rths_event_queue(rd, &ev);
		return true;
	}
	return false;
}

static bool rths_check_force(struct rths_device *rd)
{
	struct rths_loop *lp = &rd->loop;
	struct rths_event_k ev = {
		.type = RTHS_EVENT_LIMIT,
		.limit = RTHS_LIMIT_FORCE,
		.tick = lp->tick,
		.step = lp->step + 1,
	};
	unsigned int ch;

	for (ch = 0; ch < rd->channels; ch++) {
		s64 f = lp->force[ch];

		if ((f < 0 ? -(u64)f : f) <= rd->cfg.limit[ch].force_max)
			continue;
		ev.channel = ch;
		ev.value = f;
		rd->stats.limit_trips++;
		rths_event_queue(rd, &ev);
		return true;
	}
	return false;
}

/* Outputs of the next tick of the current motion. */
static void rths_next_output(struct rths_device *rd, s64 *out, bool halted)
{
	struct rths_loop *lp = &rd->loop;
	unsigned int ch;

	lp->i++;
	for (ch = 0; ch < rd->channels; ch++) {
		out[ch] = rths_motion_pos(lp, ch);
		/* a hold never drives past the stroke limits */
		if (halted)
			out[ch] = clamp(out[ch], rd->cfg.limit[ch].pos_min,
					rd->cfg.limit[ch].pos_max);
	}
	/* A finished ramp becomes a plain hold, so that i never wraps. */
	if (lp->motion == RTHS_MOTION_DECEL && lp->i >= lp->len)
		rths_motion_set(lp, RTHS_MOTION_HOLD, out, 0, 1, rd->channels);
}

static void rths_fill_samples(const struct rths_device *rd,
			      struct rths_channel_sample *s)
{
	const struct rths_loop *lp = &rd->loop;
	unsigned int ch;

	for (ch = 0; ch < rd->channels; ch++) {
		s[ch].command = lp->out[ch];
		s[ch].disp = lp->disp[ch];
		s[ch].force = lp->force[ch];
	}
}

static void rths_overflow(struct rths_device *rd, u32 ring)
{
	struct rths_event_k ev = {
		.type = RTHS_EVENT_OVERFLOW,
		.ring = ring,
		.tick = rd->loop.tick,
		.step = rd->loop.step,
	};

	rths_event_queue(rd, &ev);
}

/* Equidistant sampling: one record at the last tick of every step. */
static void rths_publish_feedback(struct rths_device *rd, u64 time_ns)
{
	struct rths_loop *lp = &rd->loop;
	struct rths_fb_entry *e = (void *)lp->scratch;
	int err;

	e->step = lp->step;
	e->tick = lp->tick;
	e->time_ns = time_ns;
	e->flags = lp->late_flags | (lp->gap ? RTHS_FB_F_GAP : 0);
	e->late_ticks = lp->wait;
	rths_fill_samples(rd, e->ch);
	err = rths_kring_push(&rd->region->fb, e,
			      RTHS_FB_ENTRY_SIZE(rd->channels));
	if (err == -EPROTO) {
		/*
		 * The step is complete but its record is lost: count it, so
		 * that steps = fb_records + fb_overflows still holds, and
		 * name the step it belongs to (lp->step, already counted).
		 */
		rd->stats.fb_overflows++;
		__rths_halt(rd, RTHS_STATE_FAULTED, RTHS_REASON_RING,
			    RTHS_FAULT_FB_INDEX, lp->step);
	} else if (err) {
		/* Counted and reported, never overwritten. */
		rd->stats.fb_overflows++;
		lp->gap = true;
		rths_overflow(rd, RTHS_RING_FB);
	} else {
		rd->stats.fb_records++;
		lp->gap = false;
		if (wq_has_sleeper(&rd->wq))
			wake_up_interruptible_poll(&rd->wq, EPOLLIN);
	}
}

static void rths_publish_trace(struct rths_device *rd, u64 time_ns,
			       u64 irq_lat, u64 thread_lat)
{
	struct rths_loop *lp = &rd->loop;
	struct rths_trace_entry *e = (void *)lp->scratch;
	struct rths_kring *r = &rd->region->trace;
	int err;

	/* a ring userspace broke stays untouched until the next run */
	if (!r->entries || rd->fault == RTHS_FAULT_TRACE_INDEX)
		return;
	e->tick = lp->tick;
	e->time_ns = time_ns;
	e->step = lp->step + 1;	/* the step in progress */
	e->irq_latency_ns = min_t(u64, irq_lat, U32_MAX);
	e->thread_latency_ns = min_t(u64, thread_lat, U32_MAX);
	e->step_tick = lp->step_tick;
	e->state = rd->state;
	rths_fill_samples(rd, e->ch);
	err = rths_kring_push(r, e, RTHS_TRACE_ENTRY_SIZE(rd->channels));
	if (err == -EPROTO) {
		rths_halt(rd, RTHS_STATE_FAULTED, RTHS_REASON_RING,
			  RTHS_FAULT_TRACE_INDEX);
	} else if (err) {
		/* one event per burst: a full trace ring drops every tick */
		if (!lp->trace_full)
			rths_overflow(rd, RTHS_RING_TRACE);
		rd->stats.trace_overflows++;
		lp->trace_full = true;
	} else {
		rd->stats.trace_records++;
		lp->trace_full = false;
	}
}

static void rths_step_done(struct rths_device *rd, u64 time_ns)
{
	struct rths_loop *lp = &rd->loop;

	lp->step++;
	rd->stats.steps++;
	rd->stats.stretch_ticks += lp->step_tick - rd->cfg.step_ticks;
	trace_rths_step(rd, lp->step_tick);
	rths_publish_feedback(rd, time_ns);
	/* whole arrays: 128 bytes, and the bounds are plain to the compiler */
	memcpy(lp->u_prev2, lp->u_prev, sizeof(lp->u_prev));
	memcpy(lp->u_prev, lp->target, sizeof(lp->target));
	lp->have_target = false;
	lp->step_tick = 0;
	lp->wait = 0;
	lp->late_flags = 0;
	rths_motion_set(lp, RTHS_MOTION_HOLD, lp->target, 0, 1, rd->channels);
}

/*
 * Runs one tick: decide the outputs, check the limits, write the outputs,
 * read the inputs, and at a step's last tick publish its feedback.
 *
 * A tick that starts RUNNING counts as a tick of the current step, even if
 * the device halts during it; any other tick counts as a halt tick.
 */
void rths_loop_tick(struct rths_device *rd, u64 time_ns, u64 irq_lat,
		    u64 thread_lat)
{
	struct rths_mmap_header *hdr = rd->region->base;
	struct rths_loop *lp = &rd->loop;
	s64 out[RTHS_MAX_CHANNELS];
	bool step_end = false, stepping;
	u32 req;
	int err;

	lp->tick++;
	rd->stats.ticks++;
	trace_rths_tick(rd, irq_lat, thread_lat);
	req = atomic_xchg(&lp->hold_request, 0);
	if (req && rd->state == RTHS_STATE_RUNNING)
		rths_halt(rd, RTHS_STATE_HOLDING, req, 0);

	stepping = rd->state == RTHS_STATE_RUNNING;
	if (stepping) {
		step_end = rths_step_tick(rd);
		if (rd->state == RTHS_STATE_RUNNING) {
			rths_next_output(rd, out, false);
			if (rths_check_motion(rd, out)) {
				step_end = false;
				rths_halt(rd, RTHS_STATE_HOLDING,
					  RTHS_REASON_LIMIT, 0);
			}
		}
	} else {
		rd->stats.halt_ticks++;
	}
	if (rd->state != RTHS_STATE_RUNNING) {
		step_end = false;
		rths_next_output(rd, out, true);
	}

	err = rd->card->write(rd, out);
	if (!err)
		err = rd->card->read(rd, lp->disp, lp->force);
	memcpy(lp->out_prev, lp->out, rd->channels * sizeof(s64));
	memcpy(lp->out, out, rd->channels * sizeof(s64));
	if (err) {
		rd->stats.card_errors++;
		if (rd->state != RTHS_STATE_FAULTED)
			rths_halt(rd, RTHS_STATE_FAULTED, RTHS_REASON_CARD,
				  RTHS_FAULT_CARD_IO);
		step_end = false;
	} else if (rd->state == RTHS_STATE_RUNNING && rths_check_force(rd)) {
		rths_halt(rd, RTHS_STATE_HOLDING, RTHS_REASON_LIMIT, 0);
		step_end = false;
	}

	rths_publish_trace(rd, time_ns, irq_lat, thread_lat);
	if (step_end && rd->state == RTHS_STATE_RUNNING)
		rths_step_done(rd, time_ns);

	WRITE_ONCE(hdr->tick, lp->tick);
	WRITE_ONCE(hdr->step, lp->step);

	/* a stop waits for this (rths_loop_ramp_down()) */
	if (rd->state != RTHS_STATE_RUNNING &&
	    lp->motion == RTHS_MOTION_HOLD && !lp->resting) {
		WRITE_ONCE(lp->resting, true);
		wake_up_interruptible_poll(&rd->wq, EPOLLPRI);
	}
}

/* A tick asked for by netlink (manual clock), under rd->lock. */
void rths_loop_manual_tick(struct rths_device *rd)
{
	/* virtual time: tick k happens at k / rate */
	rths_loop_tick(rd, rths_grid_ns(rd->loop.tick + 1, rd->cfg.rate), 0, 0);
	rd->stats.periods++;
}

static bool rths_loop_moving(const struct rths_device *rd)
{
	const struct rths_loop *lp = &rd->loop;
	unsigned int ch;

	for (ch = 0; ch < rd->channels; ch++)
		if (lp->out[ch] != lp->out_prev[ch])
			return true;
	return false;
}

/* How long a hold ramp may take to reach rest under the hrtimer clock:
 * twice its length and a second, since it only needs ticks to run.
 */
unsigned long rths_loop_ramp_timeout(const struct rths_device *rd)
{
	return msecs_to_jiffies(rd->cfg.ramp_ticks * 2000 / rd->cfg.rate +
				1000);
}

/*
 * Before a stop, under rd->lock: bring the outputs to rest along the hold
 * ramp, so that a moving rig does not stop dead.  0 once they are at rest;
 * -EAGAIN while they ramp.  Under the manual clock, up to @max of the
 * ramp's ticks run here; under the hrtimer clock the loop thread runs
 * them, and the caller waits without rd->lock (rths_loop_wait_rest()).
 */
int rths_loop_ramp_down(struct rths_device *rd, u32 max)
{
	struct rths_loop *lp = &rd->loop;
	u32 i;

	lockdep_assert_held(&rd->lock);
	if (rd->cfg.clock == RTHS_CLOCK_MANUAL) {
		if (rd->state == RTHS_STATE_RUNNING) {
			if (!rths_loop_moving(rd))
				return 0;
			rths_halt(rd, RTHS_STATE_HOLDING, RTHS_REASON_USER, 0);
		}
		for (i = 0; i < max && lp->motion == RTHS_MOTION_DECEL; i++)
			rths_loop_manual_tick(rd);
		rths_stats_publish(rd);
		return lp->motion == RTHS_MOTION_DECEL ? -EAGAIN : 0;
	}
	if (rd->state == RTHS_STATE_RUNNING) {
		rths_loop_request_hold(rd, RTHS_REASON_USER);
		return -EAGAIN;
	}
	return READ_ONCE(lp->resting) ? 0 : -EAGAIN;
}

/*
 * Without rd->lock: waits up to @timeout (rths_loop_ramp_timeout(), taken
 * under it) for the loop thread to bring the outputs to rest, or for the
 * device to stop.
 */
int rths_loop_wait_rest(struct rths_device *rd, unsigned long timeout,
			struct netlink_ext_ack *extack)
{
	long t;

	t = wait_event_interruptible_timeout(rd->wq,
					     READ_ONCE(rd->loop.resting) ||
					     READ_ONCE(rd->state) ==
					     RTHS_STATE_STOPPED, timeout);
	if (t < 0) {
		NL_SET_ERR_MSG(extack,
			       "interrupted while the outputs ramp down; the device holds");
		return -EINTR;
	}
	if (!t) {
		NL_SET_ERR_MSG(extack,
			       "the outputs did not come to rest in time; the device holds");
		return -ETIMEDOUT;
	}
	return 0;
}
