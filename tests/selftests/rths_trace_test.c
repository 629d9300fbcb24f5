// SPDX-License-Identifier: GPL-2.0
/*
 * The rths tracepoints: enabled in a tracefs instance of the test's own,
 * a sim device runs some steps (some of them late), holds and stops; the
 * events read back must match the loop's counters (STATS_GET) one for
 * one: ticks, steps and their stretch, late decisions by action, the
 * latency extremes, and the state changes and holds the test asked for.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "common.h"

#define TRACEFS "/sys/kernel/tracing"

/* What the trace says about one device. */
struct seen {
	uint64_t ticks, steps, stretch, late, extrapolated, held, decelerated;
	uint64_t states, holds, late_w_bad;
	uint64_t irq_min, irq_max, thread_min, thread_max;
	uint64_t last_tick;
	bool ticks_in_order;
};

static int write_file(const char *path, const char *s)
{
	FILE *f = fopen(path, "w");
	int err;

	if (!f)
		return -errno;
	err = fputs(s, f) < 0 ? -EIO : 0;
	if (fclose(f) && !err)
		err = -errno;
	return err;
}

static uint64_t field(const char *line, const char *key)
{
	const char *p = strstr(line, key);

	return p ? strtoull(p + strlen(key), NULL, 10) : UINT64_MAX;
}

/* Counts this device's events in @inst's trace; @w1, @w2: the only
 * waits the test makes before a late command. */
static int read_trace(const char *inst, const char *name, uint32_t d,
		      uint32_t w1, uint32_t w2, struct seen *s)
{
	char path[256], dev[64], line[512];
	FILE *f;

	memset(s, 0, sizeof(*s));
	s->irq_min = s->thread_min = UINT64_MAX;
	s->ticks_in_order = true;
	snprintf(path, sizeof(path), "%s/trace", inst);
	snprintf(dev, sizeof(dev), " dev=%s ", name);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		const char *p;
		uint64_t v;

		if (line[0] == '#' || !(p = strstr(line, dev)))
			continue;
		if (strstr(line, ": rths_tick:")) {
			s->ticks++;
			v = field(p, " tick=");
			if (v != s->last_tick + 1)
				s->ticks_in_order = false;
			s->last_tick = v;
			v = field(p, " irq_lat=");
			s->irq_min = v < s->irq_min ? v : s->irq_min;
			s->irq_max = v > s->irq_max ? v : s->irq_max;
			v = field(p, " thread_lat=");
			s->thread_min = v < s->thread_min ? v : s->thread_min;
			s->thread_max = v > s->thread_max ? v : s->thread_max;
		} else if (strstr(line, ": rths_step:")) {
			s->steps++;
			s->stretch += field(p, " ticks=") - d;
		} else if (strstr(line, ": rths_late:")) {
			s->late++;
			v = field(p, " w=");
			if (v != w1 && v != w2)
				s->late_w_bad++;
			if (strstr(p, "action=extrapolated"))
				s->extrapolated++;
			else if (strstr(p, "action=held"))
				s->held++;
			else if (strstr(p, "action=decelerated"))
				s->decelerated++;
		} else if (strstr(line, ": rths_state:")) {
			s->states++;
		} else if (strstr(line, ": rths_hold:")) {
			s->holds++;
		}
	}
	fclose(f);
	return 0;
}

FIXTURE(trace) {
	struct rt t;
	char inst[128];
};

FIXTURE_VARIANT(trace) {
	enum rths_clock clock;
	uint64_t steps;
};

FIXTURE_VARIANT_ADD(trace, manual) {
	.clock = RTHS_CLOCK_MANUAL, .steps = 60,
};

FIXTURE_VARIANT_ADD(trace, hrtimer) {
	.clock = RTHS_CLOCK_HRTIMER, .steps = 300,
};

enum { D = 8, W_EXTRAP = 2, W_DECEL = 6 };	/* deadline: d / 2 = 4 */

FIXTURE_SETUP(trace)
{
	static const char *const events[] = {
		"rths_tick", "rths_step", "rths_late", "rths_state",
		"rths_hold",
	};
	struct rths_dev_config cfg = {
		.set = RTHS_CFG_CLOCK | RTHS_CFG_RATE | RTHS_CFG_STEP_TICKS |
		       RTHS_CFG_LATE_POLICY | RTHS_CFG_TRACE_ENTRIES,
		.clock = variant->clock,
		.rate_hz = 1024,
		.step_ticks = D,
		.late_policy = RTHS_LATE_EVENT_DRIVEN,
		.trace_entries = 0,
	};
	char path[256];
	unsigned int i;

	if (access(TRACEFS "/instances", F_OK))
		mount("nodev", TRACEFS, "tracefs", 0, NULL);
	for (i = 0; i < sizeof(events) / sizeof(events[0]); i++) {
		snprintf(path, sizeof(path), TRACEFS "/events/rths/%s/format",
			 events[i]);
		ASSERT_EQ(0, access(path, R_OK)) {
			TH_LOG("%s: %s", path, strerror(errno));
		}
	}
	snprintf(self->inst, sizeof(self->inst),
		 TRACEFS "/instances/rths_trace_test%d", (int)getpid());
	ASSERT_EQ(0, mkdir(self->inst, 0700)) {
		TH_LOG("%s: %s", self->inst, strerror(errno));
	}
	snprintf(path, sizeof(path), "%s/buffer_size_kb", self->inst);
	ASSERT_EQ(0, write_file(path, "8192"));
	snprintf(path, sizeof(path), "%s/events/rths/enable", self->inst);
	ASSERT_EQ(0, write_file(path, "1"));
	ASSERT_EQ(0, rt_create(&self->t, "trc", 1, NULL, &cfg));
	ASSERT_EQ(0, rt_open(&self->t));
}

FIXTURE_TEARDOWN(trace)
{
	char path[256];

	rt_destroy(&self->t);
	snprintf(path, sizeof(path), "%s/events/rths/enable", self->inst);
	write_file(path, "0");
	rmdir(self->inst);
}

/* Posts step @k once @w ticks of it have passed without it. */
static int manual_step(struct rt *t, uint64_t k, uint32_t w)
{
	struct rths_feedback fb;
	int err, n;

	if (w) {
		err = rt_tick(t, w);
		if (err)
			return err;
	}
	err = rt_post1(t, k, (int64_t)k * 100);
	for (n = 0; !err && n < 4 * D; n++) {
		if (rths_read_feedback(t->dev, &fb) == 0)
			return fb.step == k ? 0 : -EPROTO;
		err = rt_tick(t, 1);
	}
	return err ? err : -ETIMEDOUT;
}

/* Posts each step as the one before comes back; every 7th and 11th
 * late by what the clock allows (manual: exactly W_EXTRAP, W_DECEL). */
static int run_steps(struct rt *t, enum rths_clock clock, uint64_t steps)
{
	struct rths_feedback fb;
	uint64_t k;
	int err;

	for (k = 1; k <= steps; k++) {
		uint32_t w = k % 7 == 0 ? W_EXTRAP : k % 11 == 0 ? W_DECEL : 0;

		if (clock == RTHS_CLOCK_MANUAL) {
			err = manual_step(t, k, w);
		} else {
			if (w)
				usleep(w * 1000000 / 1024);
			err = rt_post1(t, k, (int64_t)k * 100);
			if (!err)
				err = rths_wait_feedback(t->dev, &fb, 10000, 0);
			if (!err && fb.step != k)
				err = -EPROTO;
		}
		if (err)
			return err;
	}
	return 0;
}

TEST_F_TIMEOUT(trace, events_match_counters, 180)
{
	struct rths_stats st;
	struct seen s;

	ASSERT_EQ(0, rt_start(&self->t));
	ASSERT_EQ(0, run_steps(&self->t, variant->clock, variant->steps));
	ASSERT_EQ(0, rths_run_hold(self->t.ctl, self->t.name));
	ASSERT_EQ(0, rths_run_stop(self->t.ctl, self->t.name));
	ASSERT_EQ(0, rths_stats_get(self->t.ctl, self->t.name, &st));
	ASSERT_EQ(0, read_trace(self->inst, self->t.name, D,
				variant->clock == RTHS_CLOCK_MANUAL ?
				W_EXTRAP : 0,
				variant->clock == RTHS_CLOCK_MANUAL ?
				W_DECEL : 0, &s));
	TH_LOG("trace: ticks %llu steps %llu late %llu states %llu holds %llu",
	       (unsigned long long)s.ticks, (unsigned long long)s.steps,
	       (unsigned long long)s.late, (unsigned long long)s.states,
	       (unsigned long long)s.holds);
	TH_LOG("stats: ticks %llu steps %llu late %llu stretch %llu",
	       (unsigned long long)st.ticks, (unsigned long long)st.steps,
	       (unsigned long long)st.late_steps,
	       (unsigned long long)st.stretch_ticks);

	EXPECT_EQ(variant->steps, st.steps);
	EXPECT_EQ(st.ticks, s.ticks);
	EXPECT_TRUE(s.ticks_in_order);
	EXPECT_EQ(st.ticks, s.last_tick);
	EXPECT_EQ(st.steps, s.steps);
	EXPECT_EQ(st.stretch_ticks, s.stretch);
	EXPECT_EQ(st.late_steps, s.late);
	EXPECT_EQ(st.late_extrapolated, s.extrapolated);
	EXPECT_EQ(st.late_held, s.held);
	EXPECT_EQ(st.late_decelerated, s.decelerated);
	/* start, hold, stop; one hold */
	EXPECT_EQ(3u, s.states);
	EXPECT_EQ(1u, s.holds);
	if (variant->clock == RTHS_CLOCK_MANUAL) {
		/* every 7th step extrapolated, every 11th decelerated */
		EXPECT_EQ(variant->steps / 7 + variant->steps / 11 -
			  variant->steps / 77, st.late_steps);
		EXPECT_EQ(0u, s.late_w_bad);
		EXPECT_EQ(0u, s.irq_max);
		EXPECT_EQ(0u, s.thread_max);
	} else {
		/* the same samples as the statistics' */
		EXPECT_EQ(st.irq_lat_min, s.irq_min);
		EXPECT_EQ(st.irq_lat_max, s.irq_max);
		EXPECT_EQ(st.thread_lat_min, s.thread_min);
		EXPECT_EQ(st.thread_lat_max, s.thread_max);
	}
}

TEST_HARNESS_MAIN
