// SPDX-License-Identifier: GPL-2.0
/*
 * The hrtimer clock: a pinned hard hrtimer at absolute expiries on the grid
 * t0 + n / rate wakes a SCHED_FIFO thread that runs the tick, so that cards
 * whose I/O sleeps work and PREEMPT_RT works (the structure of timerlat).
 * Timer-irq latency (expiry to callback) and thread latency (expiry to the
 * thread running) are accounted separately.
 */
#include <linux/kthread.h>
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/sched.h>
#include <uapi/linux/sched/types.h>

#include "rths.h"

/* Time of grid point @n: exact for rates that do not divide 1 s. */
u64 rths_grid_ns(u64 n, u32 rate)
{
	return mul_u64_u32_div(n, NSEC_PER_SEC, rate);
}

static enum hrtimer_restart rths_timer_fn(struct hrtimer *t)
{
	struct rths_device *rd = container_of(t, struct rths_device, rt.timer);
	struct rths_rt *rt = &rd->rt;
	s64 now = ktime_to_ns(ktime_get());
	s64 t0 = rt->t0;
	u64 next;

	WRITE_ONCE(rt->expiry, hrtimer_get_expires_ns(t));
	WRITE_ONCE(rt->irq_lat, now - hrtimer_get_expires_ns(t));
	smp_wmb();	/* pairs with atomic_xchg() in the thread */
	atomic_inc(&rt->pending);
	wake_up_process(rt->thread);

	/* Next grid point after now; the ones skipped are missed ticks. */
	next = rt->period_idx + 1;
	if (t0 + (s64)rths_grid_ns(next, rd->cfg.rate) <= now) {
		u64 n = mul_u64_u32_div(now - t0, rd->cfg.rate,
					NSEC_PER_SEC) + 1;

		WRITE_ONCE(rt->skipped, rt->skipped + n - next);
		next = n;
	}
	WRITE_ONCE(rt->period_idx, next);
	hrtimer_set_expires(t, ns_to_ktime(t0 + rths_grid_ns(next,
							     rd->cfg.rate)));
	return HRTIMER_RESTART;
}

static unsigned int rths_lat_bucket(u64 ns)
{
	u64 us = div_u64(ns, NSEC_PER_USEC);

	if (!us)
		return 0;
	return min_t(unsigned int, ilog2(us) + 1, RTHS_LAT_HIST_BUCKETS - 1);
}

static void rths_account_latency(struct rths_stats_k *st, u64 irq,
				 u64 thread)
{
	if (!st->lat_samples || irq < st->irq_min)
		st->irq_min = irq;
	if (!st->lat_samples || thread < st->thread_min)
		st->thread_min = thread;
	st->irq_max = max(st->irq_max, irq);
	st->thread_max = max(st->thread_max, thread);
	st->irq_sum += irq;
	st->thread_sum += thread;
	st->irq_hist[rths_lat_bucket(irq)]++;
	st->thread_hist[rths_lat_bucket(thread)]++;
	st->lat_samples++;
}

static void rths_clear_latency(struct rths_stats_k *st)
{
	st->irq_min = 0;
	st->irq_max = 0;
	st->irq_sum = 0;
	st->thread_min = 0;
	st->thread_max = 0;
	st->thread_sum = 0;
	st->lat_samples = 0;
	memset(st->irq_hist, 0, sizeof(st->irq_hist));
	memset(st->thread_hist, 0, sizeof(st->thread_hist));
}

/* The loop thread owns the figures while it runs, so it clears them. */
void rths_rt_reset_latency(struct rths_device *rd)
{
	lockdep_assert_held(&rd->lock);
	if (rd->rt.thread)
		atomic_set(&rd->rt.lat_reset, 1);
	else
		rths_clear_latency(&rd->stats);
}

static int rths_thread_fn(void *data)
{
	struct rths_device *rd = data;
	struct rths_rt *rt = &rd->rt;

	/* Started from the bound thread, so that the timer is pinned here. */
	rt->t0 = ktime_to_ns(ktime_get());
	rt->period_idx = 1;
	hrtimer_start(&rt->timer,
		      ns_to_ktime(rt->t0 + rths_grid_ns(1, rd->cfg.rate)),
		      HRTIMER_MODE_ABS_PINNED_HARD);

	for (;;) {
		u64 now, expiry, irq_lat, thread_lat;
		int n;

		set_current_state(TASK_INTERRUPTIBLE);
		if (kthread_should_stop()) {
			__set_current_state(TASK_RUNNING);
			break;
		}
		if (!atomic_read(&rt->pending)) {
			schedule();
			continue;
		}
		__set_current_state(TASK_RUNNING);
		n = atomic_xchg(&rt->pending, 0);
		expiry = READ_ONCE(rt->expiry);
		irq_lat = READ_ONCE(rt->irq_lat);
		/* read after the expiry, so that a timer firing in between
		 * cannot make the latency negative
		 */
		now = ktime_to_ns(ktime_get());
		thread_lat = (s64)(now - expiry) > 0 ? now - expiry : 0;
		/* periods that fired while we were still busy are missed */
		rt->coalesced += n - 1;
		rd->stats.missed = READ_ONCE(rt->skipped) + rt->coalesced;
		rd->stats.periods = READ_ONCE(rt->period_idx) - 1;
		if (atomic_xchg(&rt->lat_reset, 0))
			rths_clear_latency(&rd->stats);
		rths_account_latency(&rd->stats, irq_lat, thread_lat);
		rths_loop_tick(rd, expiry, irq_lat, thread_lat);
	}
	hrtimer_cancel(&rt->timer);
	return 0;
}

int rths_rt_start(struct rths_device *rd)
{
	struct sched_attr attr = {
		.size = sizeof(attr),
		.sched_policy = SCHED_FIFO,
		.sched_priority = rd->cfg.priority,
	};
	struct rths_rt *rt = &rd->rt;
	struct task_struct *t;
	int err;

	if (!cpu_online(rd->cfg.cpu))
		return -ENXIO;
	hrtimer_init(&rt->timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_PINNED_HARD);
	rt->timer.function = rths_timer_fn;
	atomic_set(&rt->pending, 0);
	atomic_set(&rt->lat_reset, 0);
	rt->skipped = 0;
	rt->coalesced = 0;
	t = kthread_create(rths_thread_fn, rd, "rths/%s", rd->name);
	if (IS_ERR(t))
		return PTR_ERR(t);
	kthread_bind(t, rd->cfg.cpu);
	err = sched_setattr_nocheck(t, &attr);
	if (err) {
		kthread_stop(t);
		return err;
	}
	rt->thread = t;
	wake_up_process(t);
	return 0;
}

/* Stops the thread and the timer; the counters then add up exactly. */
void rths_rt_stop(struct rths_device *rd)
{
	struct rths_rt *rt = &rd->rt;

	kthread_stop(rt->thread);
	rt->thread = NULL;
	/* periods that fired but were never run count as missed too */
	rt->coalesced += atomic_xchg(&rt->pending, 0);
	rd->stats.missed = rt->skipped + rt->coalesced;
	rd->stats.periods = rt->period_idx - 1;
}
