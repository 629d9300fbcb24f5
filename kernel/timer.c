// SPDX-License-Identifier: GPL-2.0
/*
 * The hrtimer clock: a pinned hard hrtimer at absolute expiries on the grid
 * t0 + n / rate wakes a SCHED_FIFO thread that runs the tick, so that cards
 * whose I/O sleeps work and PREEMPT_RT works (the structure of timerlat).
 * Timer-irq latency (expiry to callback) and thread latency (expiry to the
 * thread running) are accounted separately.
 *
 * When the thread's CPU goes offline mid-run, the device holds in place
 * (reason cpu-offline): the hotplug teardown asks the thread, which stops
 * the timer and parks on that CPU at once, without a ramp, until RUN_STOP.
 */
#include <linux/completion.h>
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/kthread.h>
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/sched.h>
#include <uapi/linux/sched/types.h>

#include "compat.h"
#include "rths.h"

static enum cpuhp_state rths_cpuhp_state;

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

/* The counters no tick can touch any more (we hold rd->lock). */
static void rths_rt_clear_stats(struct rths_device *rd)
{
	rths_stats_clear(rd);
	rths_stats_publish(rd);
}

/*
 * Zeroes the statistics; the ack must find them zeroed.  While the loop
 * thread runs it owns the counters, so it clears them at its next tick
 * and says so; otherwise (no thread, or a parked one) no tick can run
 * and we clear them here.
 */
int rths_rt_reset_stats(struct rths_device *rd)
{
	struct rths_rt *rt = &rd->rt;

	lockdep_assert_held(&rd->lock);
	/* acquire: pairs with rths_rt_park(), after the thread's last tick */
	if (!rt->thread || smp_load_acquire(&rt->parked)) {
		rths_rt_clear_stats(rd);
		return 0;
	}
	reinit_completion(&rt->reset_done);
	atomic_set(&rt->stats_reset, 1);
	/* a tick comes every 10 ms at the lowest rate: a second is lavish */
	if (wait_for_completion_timeout(&rt->reset_done, HZ))
		return 0;
	if (atomic_xchg(&rt->stats_reset, 0)) {
		/* withdrawn: nothing was cleared.  No tick comes once
		 * parked (acquire: pairs with rths_rt_park()).
		 */
		if (!smp_load_acquire(&rt->parked))
			return -ETIMEDOUT;
		rths_rt_clear_stats(rd);
		return 0;
	}
	/* the thread took it and completes within this tick */
	wait_for_completion(&rt->reset_done);
	return 0;
}

/*
 * The CPU is going down: stop the timer and tick no more, the outputs held
 * where they are (rths_loop_hold_in_place()).  Runs once per run.
 */
static void rths_rt_park(struct rths_device *rd)
{
	struct rths_rt *rt = &rd->rt;

	hrtimer_cancel(&rt->timer);
	rths_loop_hold_in_place(rd, RTHS_REASON_CPU_OFFLINE);
	rths_stats_publish(rd);
	/* release: the counters of the last tick before the flag */
	smp_store_release(&rt->parked, true);
	complete(&rt->park_done);
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
		if (rt->parked) {
			schedule();
			continue;
		}
		if (atomic_read(&rt->cpu_offline)) {
			__set_current_state(TASK_RUNNING);
			rths_rt_park(rd);
			continue;
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
		rths_stats_latency(rd, irq_lat, thread_lat);
		rths_loop_tick(rd, expiry, irq_lat, thread_lat);
		rths_stats_publish(rd);
		if (reset)
			complete(&rt->reset_done);
	}
	hrtimer_cancel(&rt->timer);
	return 0;
}

/*
 * Hotplug teardown, on the CPU going down while it still schedules: a run
 * whose loop is bound there holds in place and its thread parks, here and
 * now.  The wait is for the thread to finish the tick it may be running,
 * never for a ramp; a loop parked by an earlier offline of this CPU is
 * parked still.  Never takes rd->lock (rths.h, Locking).
 */
static int rths_rt_cpu_down(unsigned int cpu, struct hlist_node *node)
{
	struct rths_device *rd = hlist_entry(node, struct rths_device,
					     rt.cpuhp_node);
	struct rths_rt *rt = &rd->rt;

	/*
	 * cfg is constant while the run is an instance; rt->thread is set
	 * under cpus_read_lock() and cleared after the instance is gone.
	 */
	if (rd->cfg.cpu != cpu || !rt->thread)
		return 0;
	/* acquire: pairs with rths_rt_park() */
	if (smp_load_acquire(&rt->parked))
		return 0;
	atomic_set(&rt->cpu_offline, 1);
	wake_up_process(rt->thread);
	/* a tick, even one whose card I/O sleeps, is far shorter */
	if (!wait_for_completion_timeout(&rt->park_done, HZ))
		pr_warn("rths: %s: the loop did not park as cpu%u goes offline\n",
			rd->name, cpu);
	return 0;
}

int rths_rt_init(void)
{
	int ret;

	ret = cpuhp_setup_state_multi(CPUHP_AP_ONLINE_DYN, "rths:online",
				      NULL, rths_rt_cpu_down);
	if (ret < 0)
		return ret;
	rths_cpuhp_state = ret;
	return 0;
}

void rths_rt_exit(void)
{
	cpuhp_remove_multi_state(rths_cpuhp_state);
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

	rths_hrtimer_setup(&rt->timer, rths_timer_fn, CLOCK_MONOTONIC,
			   HRTIMER_MODE_ABS_PINNED_HARD);
	atomic_set(&rt->pending, 0);
	atomic_set(&rt->stats_reset, 0);
	init_completion(&rt->reset_done);
	atomic_set(&rt->cpu_offline, 0);
	rt->parked = false;
	init_completion(&rt->park_done);
	rt->skipped = 0;
	rt->seen_periods = 0;
	rt->seen_skipped = 0;
	t = kthread_create(rths_thread_fn, rd, "rths/%s", rd->name);
	if (IS_ERR(t))
		return PTR_ERR(t);
	err = sched_setattr_nocheck(t, &attr);
	if (err)
		goto stop;
	err = cpuhp_state_add_instance_nocalls(rths_cpuhp_state,
					       &rt->cpuhp_node);
	if (err)
		goto stop;
	/* the teardown callback sees the thread if and only if it started
	 * on an online CPU
	 */
	cpus_read_lock();
	if (cpu_online(rd->cfg.cpu)) {
		kthread_bind(t, rd->cfg.cpu);
		rt->thread = t;
		wake_up_process(t);
	} else {
		err = -ENXIO;
	}
	cpus_read_unlock();
	if (!err)
		return 0;
	cpuhp_state_remove_instance_nocalls(rths_cpuhp_state, &rt->cpuhp_node);
stop:
	kthread_stop(t);
	return err;
}

/* Stops the thread and the timer; the counters then add up exactly. */
void rths_rt_stop(struct rths_device *rd)
{
	struct rths_rt *rt = &rd->rt;

	/* waits for a teardown under way, which needs no lock we hold */
	cpuhp_state_remove_instance_nocalls(rths_cpuhp_state, &rt->cpuhp_node);
	kthread_stop(rt->thread);
	rt->thread = NULL;
	/* periods that fired but were never run count as missed too */
	rd->stats.missed += rt->skipped - rt->seen_skipped +
			    atomic_xchg(&rt->pending, 0);
	rd->stats.periods += rt->period_idx - 1 - rt->seen_periods;
	rths_stats_publish(rd);
}
