// SPDX-License-Identifier: GPL-2.0
/*
 * A real-time run on the hrtimer clock: a producer posts each step's
 * command as feedback arrives.  Under emulation timing is coarse, so the
 * test asserts what must hold whatever the timing: the tick, step, late
 * and ring counters add up exactly, and every step has one record.
 */
#include <stdbool.h>
#include <string.h>

#include "kselftest_harness.h"
#include "common.h"

FIXTURE(rt) {
	struct rt t;
};

FIXTURE_VARIANT(rt) {
	enum rths_late_policy policy;
	uint32_t rate;
	uint32_t d;
	uint64_t steps;
};

FIXTURE_VARIANT_ADD(rt, event_driven_1024hz) {
	.policy = RTHS_LATE_EVENT_DRIVEN, .rate = 1024, .d = 8, .steps = 400,
};

FIXTURE_VARIANT_ADD(rt, hold_2048hz) {
	.policy = RTHS_LATE_HOLD, .rate = 2048, .d = 4, .steps = 800,
};

/* The variant's configuration, with @trace entries of trace ring. */
static struct rths_dev_config variant_cfg(const FIXTURE_VARIANT(rt) *v,
					  uint32_t trace)
{
	struct rths_dev_config cfg = {
		.set = RTHS_CFG_CLOCK | RTHS_CFG_RATE | RTHS_CFG_STEP_TICKS |
		       RTHS_CFG_LATE_POLICY | RTHS_CFG_TRACE_ENTRIES,
		.clock = RTHS_CLOCK_HRTIMER,
		.rate_hz = v->rate,
		.step_ticks = v->d,
		.late_policy = v->policy,
		.trace_entries = trace,
	};

	return cfg;
}

FIXTURE_SETUP(rt)
{
	struct rths_dev_config cfg = variant_cfg(variant, 0);

	ASSERT_EQ(0, rt_create(&self->t, "rt", 1, NULL, &cfg));
	ASSERT_EQ(0, rt_open(&self->t));
}

FIXTURE_TEARDOWN(rt)
{
	rt_destroy(&self->t);
}

static uint64_t sum(const uint64_t *h)
{
	uint64_t s = 0;
	int i;

	for (i = 0; i < RTHS_LAT_HIST_BUCKETS; i++)
		s += h[i];
	return s;
}

TEST_F_TIMEOUT(rt, counters_add_up, 120)
{
	struct rths_feedback fb;
	struct rths_stats st;
	uint64_t posted = 0, seen = 0, records = 0;
	int err;

	ASSERT_EQ(0, rt_start(&self->t));
	/* keep one step queued ahead, as an RTHS algorithm would */
	while (posted < 2) {
		posted++;
		ASSERT_EQ(0, rt_post1(&self->t, posted, posted * 100));
	}
	while (seen < variant->steps) {
		err = rths_wait_feedback(self->t.dev, &fb, 10000, 0);
		ASSERT_EQ(0, err) {
			TH_LOG("waiting for step %llu",
			       (unsigned long long)seen + 1);
		}
		ASSERT_EQ(seen + 1, fb.step);
		seen = fb.step;
		records++;
		posted++;
		ASSERT_EQ(0, rt_post1(&self->t, posted, posted * 100));
	}
	ASSERT_EQ(0, rths_run_stop(self->t.ctl, self->t.name));
	while (rths_read_feedback(self->t.dev, &fb) == 0) {
		ASSERT_EQ(seen + 1, fb.step);
		seen = fb.step;
		records++;
	}

	ASSERT_EQ(0, rths_stats_get(self->t.ctl, self->t.name, &st));
	TH_LOG("periods %llu ticks %llu missed %llu steps %llu late %llu "
	       "stretch %llu irq %llu/%llu/%llu ns thread %llu/%llu/%llu ns",
	       (unsigned long long)st.periods, (unsigned long long)st.ticks,
	       (unsigned long long)st.missed, (unsigned long long)st.steps,
	       (unsigned long long)st.late_steps,
	       (unsigned long long)st.stretch_ticks,
	       (unsigned long long)st.irq_lat_min,
	       (unsigned long long)st.irq_lat_avg,
	       (unsigned long long)st.irq_lat_max,
	       (unsigned long long)st.thread_lat_min,
	       (unsigned long long)st.thread_lat_avg,
	       (unsigned long long)st.thread_lat_max);
	EXPECT_GE(st.ticks, variant->steps * variant->d);
	EXPECT_EQ(st.periods, st.ticks + st.missed);
	EXPECT_EQ(st.ticks, st.steps * variant->d + st.stretch_ticks +
		  st.step_ticks_now + st.halt_ticks);
	/* the stop ramped the outputs to rest first: a whole ramp (32 ticks
	 * by default) ran in holding */
	EXPECT_GE(st.halt_ticks, 32u);
	EXPECT_EQ(st.late_steps, st.late_extrapolated + st.late_held +
		  st.late_decelerated + st.late_faulted);
	EXPECT_EQ(0u, st.late_faulted);
	EXPECT_EQ(st.steps, st.fb_records + st.fb_overflows);
	EXPECT_EQ(0u, st.fb_overflows);
	EXPECT_EQ(records, st.fb_records);
	EXPECT_EQ(seen, st.steps);
	if (variant->policy == RTHS_LATE_HOLD) {
		EXPECT_EQ(st.late_steps, st.late_held);
	} else {
		EXPECT_EQ(0u, st.late_held);
	}
	/* every tick's latency was recorded, once */
	EXPECT_EQ(st.ticks, st.lat_samples);
	EXPECT_EQ(st.lat_samples, sum(st.irq_lat_hist));
	EXPECT_EQ(st.lat_samples, sum(st.thread_lat_hist));
	EXPECT_LE(st.irq_lat_min, st.irq_lat_avg);
	EXPECT_LE(st.irq_lat_avg, st.irq_lat_max);
	EXPECT_LE(st.thread_lat_min, st.thread_lat_avg);
	EXPECT_LE(st.thread_lat_avg, st.thread_lat_max);
	/* the thread runs after the timer that woke it */
	EXPECT_GE(st.thread_lat_max, st.irq_lat_max);
	EXPECT_GE(st.thread_lat_avg, st.irq_lat_avg);
}

/* The documented identities; 0 or the first that fails. */
static const char *broken(const struct rths_stats *st, uint32_t d,
			  bool since_start)
{
	if (st->periods != st->ticks + st->missed)
		return "periods = ticks + missed";
	if (st->ticks != st->steps * d + st->stretch_ticks +
	    st->step_ticks_now + st->halt_ticks)
		return "ticks = steps * d + stretch + step-ticks-now + halt";
	if (st->late_steps != st->late_extrapolated + st->late_held +
	    st->late_decelerated + st->late_faulted)
		return "late = extrapolated + held + decelerated + faulted";
	if (st->steps != st->fb_records + st->fb_overflows)
		return "steps = fb-records + fb-overflows";
	if (st->lat_samples != sum(st->irq_lat_hist) ||
	    st->lat_samples != sum(st->thread_lat_hist))
		return "latency samples = histogram sums";
	if (since_start && st->lat_samples != st->ticks)
		return "one latency sample a tick";
	return NULL;
}

static void log_stats(struct __test_metadata *_metadata,
		      const struct rths_stats *st)
{
	TH_LOG("periods %llu ticks %llu missed %llu steps %llu stretch %llu "
	       "now %llu halt %llu late %llu fb %llu+%llu lat %llu",
	       (unsigned long long)st->periods, (unsigned long long)st->ticks,
	       (unsigned long long)st->missed, (unsigned long long)st->steps,
	       (unsigned long long)st->stretch_ticks,
	       (unsigned long long)st->step_ticks_now,
	       (unsigned long long)st->halt_ticks,
	       (unsigned long long)st->late_steps,
	       (unsigned long long)st->fb_records,
	       (unsigned long long)st->fb_overflows,
	       (unsigned long long)st->lat_samples);
}

/* Keeps a few commands queued ahead; drains the feedback. */
static int feed(struct rt *t, uint64_t *posted, uint64_t *seen,
		uint64_t until)
{
	struct rths_feedback fb;
	int err;

	while (rths_read_feedback(t->dev, &fb) == 0)
		*seen = fb.step;
	while (*posted < until && *posted < *seen + 4) {
		err = rt_post1(t, *posted + 1, (int64_t)(*posted + 1) * 100);
		if (err)
			return err;
		++*posted;
	}
	return 0;
}

/*
 * STATS_GET in a tight loop while the loop thread runs: every snapshot is
 * one tick boundary's, so the identities hold in each of them.
 */
TEST_F_TIMEOUT(rt, snapshots_are_consistent, 120)
{
	uint64_t posted = 0, seen = 0, n = 0, bad = 0;
	struct rths_stats st;
	const char *why;

	ASSERT_EQ(0, rt_start(&self->t));
	do {
		ASSERT_EQ(0, feed(&self->t, &posted, &seen, variant->steps));
		ASSERT_EQ(0, rths_stats_get(self->t.ctl, self->t.name, &st));
		n++;
		why = broken(&st, variant->d, true);
		if (why && !bad++) {
			TH_LOG("snapshot %llu breaks %s",
			       (unsigned long long)n, why);
			log_stats(_metadata, &st);
		}
	} while (st.steps < variant->steps);
	TH_LOG("%llu snapshots while running", (unsigned long long)n);
	EXPECT_EQ(0u, bad);
	EXPECT_GT(n, variant->steps / 4);	/* it did read while running */
	ASSERT_EQ(0, rths_run_stop(self->t.ctl, self->t.name));
	ASSERT_EQ(0, rths_stats_get(self->t.ctl, self->t.name, &st));
	EXPECT_EQ(NULL, broken(&st, variant->d, true));
}

/*
 * STATS_RESET while the loop thread runs: by the ack the counters are
 * zero (no step can complete meanwhile: no command is queued), the
 * identities still hold, and counting goes on from there.
 */
TEST_F_TIMEOUT(rt, reset_while_running, 120)
{
	enum { K = 20, MORE = 5 };
	uint64_t posted = 0, seen = 0;
	struct rths_feedback fb;
	struct rths_stats st;

	ASSERT_EQ(0, rt_start(&self->t));
	while (seen < K) {
		ASSERT_EQ(0, feed(&self->t, &posted, &seen, K));
		if (seen >= K)
			break;
		ASSERT_EQ(0, rths_wait_feedback(self->t.dev, &fb, 10000, 0));
		seen = fb.step;
	}
	ASSERT_EQ(0, rths_stats_get(self->t.ctl, self->t.name, &st));
	ASSERT_EQ((uint64_t)K, st.steps);
	ASSERT_EQ(0, rths_stats_reset(self->t.ctl, self->t.name));
	ASSERT_EQ(0, rths_stats_get(self->t.ctl, self->t.name, &st));
	EXPECT_EQ(0u, st.steps);
	EXPECT_EQ(0u, st.fb_records);
	EXPECT_EQ(0u, st.late_steps);
	EXPECT_EQ(0u, st.stretch_ticks);
	EXPECT_EQ(0u, st.halt_ticks);
	EXPECT_GE(st.step_ticks_now, 1u);	/* waiting for step K + 1 */
	EXPECT_LE(st.lat_samples, st.ticks);
	EXPECT_EQ(NULL, broken(&st, variant->d, false)) {
		log_stats(_metadata, &st);
	}
	/* counting goes on from zero */
	while (seen < K + MORE) {
		ASSERT_EQ(0, feed(&self->t, &posted, &seen, K + MORE));
		if (seen >= K + MORE)
			break;
		ASSERT_EQ(0, rths_wait_feedback(self->t.dev, &fb, 10000, 0));
		seen = fb.step;
	}
	ASSERT_EQ(0, rths_stats_get(self->t.ctl, self->t.name, &st));
	EXPECT_EQ((uint64_t)MORE, st.steps);
	EXPECT_EQ(NULL, broken(&st, variant->d, false)) {
		log_stats(_metadata, &st);
	}
}

#define MAX_TICKS	16384

static int64_t cmd_at[MAX_TICKS];	/* the output of each tick traced */
static bool traced[MAX_TICKS];

static void drain_trace(struct rt *t)
{
	static struct rths_trace tr[256];
	int got, k;

	while ((got = rt_trace(t, tr, 256)) > 0)
		for (k = 0; k < got; k++) {
			if (tr[k].tick >= MAX_TICKS)
				continue;
			cmd_at[tr[k].tick] = tr[k].raw[0].command;
			traced[tr[k].tick] = true;
		}
}

/*
 * DEV_GET in a tight loop while the loop thread runs: the position it
 * reports is the output of the very tick it reports, as the trace ring
 * recorded it, never one tick's position with another's count.
 */
TEST_F_TIMEOUT(rt, position_is_one_ticks, 120)
{
	struct rths_dev_config cfg = variant_cfg(variant, 4096);
	static struct rths_dev_info info[512];
	uint64_t posted = 0, seen = 0, checked = 0, bad = 0;
	unsigned int n = 0, i;
	struct rt t = { 0 };

	memset(traced, 0, sizeof(traced));
	ASSERT_EQ(0, rt_create(&t, "rp", 1, NULL, &cfg));
	ASSERT_EQ(0, rt_open(&t));
	ASSERT_EQ(0, rt_start(&t));
	do {
		ASSERT_EQ(0, feed(&t, &posted, &seen, variant->steps));
		ASSERT_EQ(0, rths_dev_get(t.ctl, t.name, &info[n],
					  sizeof(info[n])));
		/* keep one reading of each tick the loop has run */
		if (info[n].tick && (!n || info[n].tick != info[n - 1].tick))
			n++;
		drain_trace(&t);
	} while (n < 512 && seen < variant->steps);
	ASSERT_EQ(0, rths_run_stop_now(t.ctl, t.name));
	drain_trace(&t);
	for (i = 0; i < n; i++) {
		uint64_t tick = info[i].tick;

		if (tick >= MAX_TICKS || !traced[tick])
			continue;
		checked++;
		if (cmd_at[tick] != info[i].position_raw[0] && !bad++)
			TH_LOG("tick %llu: DEV_GET says %lld nm, the trace %lld",
			       (unsigned long long)tick,
			       (long long)info[i].position_raw[0],
			       (long long)cmd_at[tick]);
	}
	TH_LOG("%u ticks read by DEV_GET, %llu checked against the trace",
	       n, (unsigned long long)checked);
	EXPECT_EQ(0u, bad);
	EXPECT_GT(checked, (uint64_t)n / 2);
	rt_destroy(&t);
}

TEST_HARNESS_MAIN
