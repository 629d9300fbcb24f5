// SPDX-License-Identifier: GPL-2.0
/*
 * The hrtimer clock: a pinned hard hrtimer at absolute expiries on the grid
 * t0 + n / rate wakes a SCHED_FIFO thread that runs the tick, so that cards
 * whose I/O sleeps work and PREEMPT_RT works (the structure of timerlat).
 * Timer-irq latency (expiry to callback) and thread latency (expiry to the
 * thread running) are accounted separately.
 */
#include <linux/completion.h>
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

	/* the thread reads these on this CPU with interrupts off */
	rt->expiry = hrtimer_get_expires_ns(t);
	rt->irq_lat = now - hrtimer_get_expires_ns(t);
	atomic_inc(&rt->pending);
	wake_up_process(rt->thread);

	/* Next grid point after now; the ones skipped are missed ticks. */
	next = rt->period_idx + 1;
	if (t0 + (s64)rths_grid_ns(next, rd->cfg.rate) <= now) {
		u64 n = mul_u64_u32_div(now - t0, rd->cfg.rate,
					NSEC_PER_SEC) + 1;

		rt->skipped += n - next;
		next = n;
	}
	rt->period_idx = next;
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

/*
 * Zeroes the statistics; the ack must find them zeroed.  While the loop
 * thread runs it owns the counters, so it clears them at its next tick
 * and says so; otherwise no tick can run (we hold rd->lock) and we clear
 * them here.
 */
int rths_rt_reset_stats(struct rths_device *rd)
{
	struct rths_rt *rt = &rd->rt;

	lockdep_assert_held(&rd->lock);
	if (!rt->thread) {
		rths_stats_clear(rd);
		rths_stats_publish(rd);
		return 0;
	}
	reinit_completion(&rt->reset_done);
	atomic_set(&rt->stats_reset, 1);
	/* a tick comes every 10 ms at the lowest rate: a second is lavish */
	if (wait_for_completion_timeout(&rt->reset_done, HZ))
		return 0;
	if (atomic_xchg(&rt->stats_reset, 0))
		return -ETIMEDOUT;	/* withdrawn: nothing was cleared */
	/* the thread took it and completes within this tick */
	wait_for_completion(&rt->reset_done);
	return 0;
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
		u64 now, expiry, irq_lat, thread_lat, idx, skipped;
		bool reset;
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
		/*
		 * The timer fires on this CPU: with interrupts off, what it
		 * wrote is one consistent picture, so that the periods add
		 * up to the ticks and the missed ones in every snapshot.
		 */
		local_irq_disable();
		n = atomic_xchg(&rt->pending, 0);
		expiry = rt->expiry;
		irq_lat = rt->irq_lat;
		idx = rt->period_idx;
		skipped = rt->skipped;
		local_irq_enable();
		/* read after the expiry, so that a timer firing in between
		 * cannot make the latency negative
		 */
		now = ktime_to_ns(ktime_get());
		thread_lat = (s64)(now - expiry) > 0 ? now - expiry : 0;
		reset = atomic_xchg(&rt->stats_reset, 0);
		if (reset)
			rths_stats_clear(rd);
		/* grid points passed since the last tick: the n that fired
		 * (n - 1 of them coalesced into this tick) and the skipped
		 */
		rd->stats.periods += idx - 1 - rt->seen_periods;
		rd->stats.missed += skipped - rt->seen_skipped + n - 1;
		rt->seen_periods = idx - 1;
		rt->seen_skipped = skipped;
		rths_account_latency(&rd->stats, irq_lat, thread_lat);
		rths_loop_tick(rd, expiry, irq_lat, thread_lat);
		rths_stats_publish(rd);
		if (reset)
			complete(&rt->reset_done);
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
	atomic_set(&rt->stats_reset, 0);
	init_completion(&rt->reset_done);
	rt->skipped = 0;
	rt->seen_periods = 0;
	rt->seen_skipped = 0;
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
	rd->stats.missed += rt->skipped - rt->seen_skipped +
			    atomic_xchg(&rt->pending, 0);
	rd->stats.periods += rt->period_idx - 1 - rt->seen_periods;
	rths_stats_publish(rd);
}
