// SPDX-License-Identifier: GPL-2.0
/*
 * CPU hotplug: the CPU an hrtimer run's loop is bound to goes offline
 * mid-run (through /sys/devices/system/cpu/cpuN/online).  The device must
 * hold with reason cpu-offline and say so in an event, the run must end
 * (the feedback wait reports it, the loop ticks no more, a stop returns),
 * a new run on the offline CPU is refused, and once the CPU is back the
 * device runs again.  Needs a second CPU (run-vm.sh gives the guest two).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "common.h"

#define LOOP_CPU	1
#define D		4
#define AHEAD		200	/* steps queued before the CPU goes */
#define RAMP_LONG	65535	/* the longest hold ramp, in ticks */

static int cpu_online_path(char *buf, size_t size)
{
	snprintf(buf, size, "/sys/devices/system/cpu/cpu%d/online", LOOP_CPU);
	return access(buf, W_OK) ? -errno : 0;
}

/* Takes LOOP_CPU offline (0) or online (1): 0 or -errno. */
static int cpu_set_online(int on)
{
	char path[64];
	int fd, err = 0;

	cpu_online_path(path, sizeof(path));
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	if (write(fd, on ? "1" : "0", 1) != 1)
		err = -errno;
	close(fd);
	return err;
}

FIXTURE(hotplug) {
	struct rt t;
};

FIXTURE_SETUP(hotplug)
{
	struct rths_dev_config cfg = {
		.set = RTHS_CFG_CLOCK | RTHS_CFG_RATE | RTHS_CFG_STEP_TICKS |
		       RTHS_CFG_LATE_POLICY | RTHS_CFG_CPU |
		       RTHS_CFG_RAMP_TICKS |
		       RTHS_CFG_CMD_ENTRIES | RTHS_CFG_FB_ENTRIES |
		       RTHS_CFG_TRACE_ENTRIES,
		.clock = RTHS_CLOCK_HRTIMER,
		.rate_hz = 1000,
		.step_ticks = D,
		.late_policy = RTHS_LATE_EVENT_DRIVEN,
		.cpu = LOOP_CPU,
		.ramp_ticks = 64,
		.cmd_entries = 256,
		.fb_entries = 256,
		.trace_entries = 0,
	};
	char path[64];

	if (cpu_online_path(path, sizeof(path)))
		SKIP(return, "%s is not writable: no second CPU to unplug",
		     path);
	/* a run before this one may have left it offline */
	ASSERT_EQ(0, cpu_set_online(1));
	ASSERT_EQ(0, rt_create(&self->t, "hp", 1, NULL, &cfg));
	ASSERT_EQ(0, rt_open(&self->t));
	ASSERT_EQ(0, rt_monitor(&self->t));
}

FIXTURE_TEARDOWN(hotplug)
{
	cpu_set_online(1);
	rt_destroy(&self->t);
}

/* The tick counter stops: the loop thread parked.  Polls until five
 * readings in a row agree; a loop that keeps ticking never gets there.
 */
static bool loop_parked(struct rt *t, uint64_t *ticks)
{
	struct rths_stats st;
	int same = 0, i;

	*ticks = 0;
	for (i = 0; i < 200 && same < 5; i++) {
		if (rths_stats_get(t->ctl, t->name, &st))
			return false;
		same = st.ticks == *ticks ? same + 1 : 0;
		*ticks = st.ticks;
		usleep(100 * 1000);
	}
	return same == 5;
}

TEST_F_TIMEOUT(hotplug, cpu_offline_holds, 300)
{
	struct rths_feedback fb;
	enum rths_reason reason;
	enum rths_state state;
	struct rths_event ev;
	struct rths_stats st;
	uint64_t s, seen = 0, ticks;
	int err;

	ASSERT_EQ(0, rt_start(&self->t));
	for (s = 1; s <= AHEAD; s++)
		ASSERT_EQ(0, rt_post1(&self->t, s, (int64_t)s * 1000));
	/* the run is under way: its first step is done */
	ASSERT_EQ(0, rths_wait_feedback(self->t.dev, &fb, 30000, 0));
	ASSERT_EQ(1u, fb.step);
	seen = 1;

	/* returns once the CPU is down, after the teardown callback */
	ASSERT_EQ(0, cpu_set_online(0));
	ASSERT_EQ(0, rt_state(&self->t, &state, &reason, NULL));
	EXPECT_EQ(RTHS_STATE_HOLDING, state);
	EXPECT_EQ(RTHS_REASON_CPU_OFFLINE, reason) {
		TH_LOG("reason %s", rths_reason_name(reason));
	}

	/* the event says so: the first change after the start's */
	do {
		ASSERT_EQ(1, rt_event(&self->t, RTHS_EVENT_STATE, &ev));
	} while (ev.state == RTHS_STATE_RUNNING);
	EXPECT_EQ(RTHS_STATE_HOLDING, ev.state);
	EXPECT_EQ(RTHS_REASON_CPU_OFFLINE, ev.reason);

	/* the run ends for its producer: the records left, then EPIPE */
	while ((err = rths_wait_feedback(self->t.dev, &fb, 30000, 0)) == 0) {
		ASSERT_EQ(seen + 1, fb.step);
		seen = fb.step;
	}
	EXPECT_EQ(-EPIPE, err);
	EXPECT_TRUE(loop_parked(&self->t, &ticks));

	/* a stop returns at once (the outputs are at rest) */
	ASSERT_EQ(0, rths_run_stop(self->t.ctl, self->t.name));
	ASSERT_EQ(0, rt_state(&self->t, &state, NULL, NULL));
	EXPECT_EQ(RTHS_STATE_STOPPED, state);
	ASSERT_EQ(0, rths_stats_get(self->t.ctl, self->t.name, &st));
	EXPECT_EQ(ticks, st.ticks);
	EXPECT_EQ(st.periods, st.ticks + st.missed);
	EXPECT_EQ(st.ticks, st.steps * D + st.stretch_ticks +
		  st.step_ticks_now + st.halt_ticks);
	EXPECT_EQ(seen, st.steps);
	EXPECT_EQ(st.steps, st.fb_records);
	/* held in place between two ticks: no ramp ran */
	EXPECT_EQ(0u, st.halt_ticks);

	/* no run on an offline CPU, and it says why */
	EXPECT_EQ(-ENXIO, rths_run_start(self->t.ctl, self->t.name));
	EXPECT_NE(NULL, strstr(rths_ctl_error(self->t.ctl), "offline")) {
		TH_LOG("error: %s", rths_ctl_error(self->t.ctl));
	}
	ASSERT_EQ(0, rt_state(&self->t, &state, NULL, NULL));
	EXPECT_EQ(RTHS_STATE_STOPPED, state);

	/* back online, the device runs again */
	ASSERT_EQ(0, cpu_set_online(1));
	ASSERT_EQ(0, rt_start(&self->t));
	for (s = 1; s <= 8; s++)
		ASSERT_EQ(0, rt_post1(&self->t, s, (int64_t)s * 1000));
	for (s = 1; s <= 8; s++) {
		ASSERT_EQ(0, rths_wait_feedback(self->t.dev, &fb, 30000, 0));
		ASSERT_EQ(s, fb.step);
	}
	ASSERT_EQ(0, rt_state(&self->t, &state, &reason, NULL));
	EXPECT_EQ(RTHS_STATE_RUNNING, state);
	ASSERT_EQ(0, rths_run_stop(self->t.ctl, self->t.name));
	ASSERT_EQ(0, rths_stats_get(self->t.ctl, self->t.name, &st));
	EXPECT_EQ(8u, st.steps);
	EXPECT_EQ(st.periods, st.ticks + st.missed);
}

/* A device already holding when its CPU goes: the hold is announced
 * again with the new reason, since its loop is gone.
 */
TEST_F_TIMEOUT(hotplug, holding_device_reannounced, 300)
{
	struct rths_feedback fb;
	enum rths_reason reason;
	enum rths_state state;
	struct rths_event ev;
	uint64_t ticks;

	ASSERT_EQ(0, rt_start(&self->t));
	ASSERT_EQ(0, rt_post1(&self->t, 1, 1000));
	ASSERT_EQ(0, rths_wait_feedback(self->t.dev, &fb, 30000, 0));
	ASSERT_EQ(0, rths_run_hold(self->t.ctl, self->t.name));
	do {
		ASSERT_EQ(1, rt_event(&self->t, RTHS_EVENT_STATE, &ev));
	} while (ev.state == RTHS_STATE_RUNNING);
	EXPECT_EQ(RTHS_REASON_USER, ev.reason);

	ASSERT_EQ(0, cpu_set_online(0));
	ASSERT_EQ(1, rt_event(&self->t, RTHS_EVENT_STATE, &ev));
	EXPECT_EQ(RTHS_STATE_HOLDING, ev.state);
	EXPECT_EQ(RTHS_REASON_CPU_OFFLINE, ev.reason);
	ASSERT_EQ(0, rt_state(&self->t, &state, &reason, NULL));
	EXPECT_EQ(RTHS_STATE_HOLDING, state);
	EXPECT_EQ(RTHS_REASON_CPU_OFFLINE, reason);
	EXPECT_TRUE(loop_parked(&self->t, &ticks));
	ASSERT_EQ(0, rths_run_stop(self->t.ctl, self->t.name));
	ASSERT_EQ(0, cpu_set_online(1));
}

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/*
 * Offline, online, offline again, with the longest ramp: each offline
 * returns as soon as the loop has parked (the second finds it parked
 * still), the outputs held where they were, no ramp run.  Once the
 * teardown waited for the ramp (65.5 s here) and the second offline for
 * the ramp's timeout (132 s) on a completion that never came again.
 */
TEST_F_TIMEOUT(hotplug, second_offline_returns, 600)
{
	struct rths_dev_config cfg = {
		.set = RTHS_CFG_RAMP_TICKS,
		.ramp_ticks = RAMP_LONG,
	};
	/* the time the ramp alone takes at 1000 Hz */
	const int64_t ramp_ns = (int64_t)RAMP_LONG * 1000000;
	struct rths_dev_info a, b;
	struct rths_feedback fb;
	struct rths_event ev;
	struct rths_stats st;
	int64_t t0, first, second;
	uint64_t s, ticks;

	ASSERT_EQ(0, rths_dev_set(self->t.ctl, self->t.name, &cfg,
				  sizeof(cfg), NULL));
	ASSERT_EQ(0, rt_start(&self->t));
	for (s = 1; s <= AHEAD; s++)
		ASSERT_EQ(0, rt_post1(&self->t, s, (int64_t)s * 1000));
	ASSERT_EQ(0, rths_wait_feedback(self->t.dev, &fb, 30000, 0));

	t0 = mono_ns();
	ASSERT_EQ(0, cpu_set_online(0));
	first = mono_ns() - t0;
	ASSERT_EQ(0, rths_dev_get(self->t.ctl, self->t.name, &a, sizeof(a)));
	EXPECT_EQ(RTHS_STATE_HOLDING, a.state);
	EXPECT_EQ(RTHS_REASON_CPU_OFFLINE, a.reason);
	EXPECT_TRUE(loop_parked(&self->t, &ticks));
	ASSERT_EQ(0, rths_stats_get(self->t.ctl, self->t.name, &st));
	EXPECT_EQ(0u, st.halt_ticks);	/* not one tick of the ramp */
	EXPECT_EQ(ticks, a.tick);

	ASSERT_EQ(0, cpu_set_online(1));
	t0 = mono_ns();
	ASSERT_EQ(0, cpu_set_online(0));
	second = mono_ns() - t0;
	TH_LOG("offline with a %d-tick ramp: first %.3f s, second %.3f s",
	       RAMP_LONG, first / 1e9, second / 1e9);
	/* both came back before the ramp could have run, let alone its
	 * timeout; and the loop stayed parked, its outputs where they were
	 */
	EXPECT_LT(first, ramp_ns);
	EXPECT_LT(second, ramp_ns);
	ASSERT_EQ(0, rths_dev_get(self->t.ctl, self->t.name, &b, sizeof(b)));
	EXPECT_EQ(RTHS_STATE_HOLDING, b.state);
	EXPECT_EQ(RTHS_REASON_CPU_OFFLINE, b.reason);
	EXPECT_EQ(a.tick, b.tick);
	EXPECT_EQ(a.position_raw[0], b.position_raw[0]);

	/* the second offline announced nothing: after the hold, the stop */
	do {
		ASSERT_EQ(1, rt_event(&self->t, RTHS_EVENT_STATE, &ev));
	} while (ev.state == RTHS_STATE_RUNNING);
	EXPECT_EQ(RTHS_STATE_HOLDING, ev.state);
	EXPECT_EQ(RTHS_REASON_CPU_OFFLINE, ev.reason);
	ASSERT_EQ(0, rths_run_stop(self->t.ctl, self->t.name));
	ASSERT_EQ(1, rt_event(&self->t, RTHS_EVENT_STATE, &ev));
	EXPECT_EQ(RTHS_STATE_STOPPED, ev.state);
	ASSERT_EQ(0, rths_stats_get(self->t.ctl, self->t.name, &st));
	EXPECT_EQ(ticks, st.ticks);
	EXPECT_EQ(st.periods, st.ticks + st.missed);
	ASSERT_EQ(0, cpu_set_online(1));
}

TEST_HARNESS_MAIN
