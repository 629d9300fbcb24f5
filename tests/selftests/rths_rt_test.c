// SPDX-License-Identifier: GPL-2.0
/*
 * A real-time run on the hrtimer clock: a producer posts each step's
 * command as feedback arrives.  Under emulation timing is coarse, so the
 * test asserts what must hold whatever the timing: the tick, step, late
 * and ring counters add up exactly, and every step has one record.
 */
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

FIXTURE_SETUP(rt)
{
	struct rths_dev_config cfg = {
		.set = RTHS_CFG_CLOCK | RTHS_CFG_RATE | RTHS_CFG_STEP_TICKS |
		       RTHS_CFG_LATE_POLICY | RTHS_CFG_TRACE_ENTRIES,
		.clock = RTHS_CLOCK_HRTIMER,
		.rate_hz = variant->rate,
		.step_ticks = variant->d,
		.late_policy = variant->policy,
		.trace_entries = 0,
	};

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
	EXPECT_EQ(0u, st.halt_ticks);
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

TEST_HARNESS_MAIN
