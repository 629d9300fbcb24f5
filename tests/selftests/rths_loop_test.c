// SPDX-License-Identifier: GPL-2.0
/*
 * Step semantics of the rths loop on the sim card, with the manual clock:
 * interpolation to the count, equidistant sampling, the late-command
 * policies, limits and their events, and holds when the owner goes away.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "common.h"

#define MM 1000000LL	/* nm */

static struct rths_trace trace[8192];

static uint64_t lcg(uint64_t *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return *s >> 33;
}

FIXTURE(loop) {
	struct rt t;
};

FIXTURE_SETUP(loop)
{
	memset(&self->t, 0, sizeof(self->t));
}

FIXTURE_TEARDOWN(loop)
{
	rt_destroy(&self->t);
}

static void setup_dev(struct __test_metadata *_metadata, struct rt *t,
		      uint32_t channels, struct rths_dev_config *cfg,
		      const struct rths_sim_params *sim)
{
	struct rths_sim_params def;

	if (!sim) {
		rt_sim_default(&def);
		sim = &def;
	}
	ASSERT_EQ(0, rt_create(t, "lp", channels, sim, cfg)) {
		TH_LOG("create: %s", t->ctl ? rths_ctl_error(t->ctl) : "");
	}
	ASSERT_EQ(0, rt_open(t));
	ASSERT_EQ(0, rt_monitor(t));
}

/* Every tick's output is the interpolation formula, to the nanometre, and
 * every sample is what the sim plant predicts, to the count. */
TEST_F(loop, interpolation_exact)
{
	enum { D = 7, STEPS = 60, CH = 2 };
	int64_t u[STEPS + 1][CH], disp[CH], force[CH];
	struct rths_dev_info info;
	struct rths_sim_params sim;
	struct rths_dev_config cfg;
	struct rths_feedback fb;
	struct sim_model m;
	uint64_t seed = 42;
	int n, ch, k;

	rt_sim_default(&sim);
	rt_manual_config(&cfg, D);
	setup_dev(_metadata, &self->t, CH, &cfg, &sim);
	ASSERT_EQ(0, rt_start(&self->t));
	memset(u[0], 0, sizeof(u[0]));
	for (n = 1; n <= STEPS; n++) {
		for (ch = 0; ch < CH; ch++)
			u[n][ch] = (int64_t)(lcg(&seed) % (10 * MM)) - 5 * MM +
				   (int64_t)(lcg(&seed) % 7);
		ASSERT_EQ(0, rths_post_raw(self->t.dev, n, u[n]));
	}
	ASSERT_EQ(0, rt_tick(&self->t, STEPS * D));

	sim_model_init(&m, CH, RTHS_RATE_DEFAULT, &sim);
	ASSERT_EQ(STEPS * D, rt_trace(&self->t, trace, 8192));
	for (k = 0; k < STEPS * D; k++) {
		int64_t out[CH];

		n = k / D + 1;
		ASSERT_EQ((uint64_t)k + 1, trace[k].tick);
		ASSERT_EQ((uint64_t)n, trace[k].step);
		ASSERT_EQ((uint32_t)(k % D + 1), trace[k].step_tick);
		for (ch = 0; ch < CH; ch++) {
			out[ch] = rt_interp(u[n - 1][ch], u[n][ch], k % D + 1, D);
			ASSERT_EQ(out[ch], trace[k].raw[ch].command) {
				TH_LOG("tick %d channel %d", k + 1, ch);
			}
		}
		sim_model_tick(&m, out, disp, force);
		for (ch = 0; ch < CH; ch++) {
			ASSERT_EQ(disp[ch], trace[k].raw[ch].disp);
			ASSERT_EQ(force[ch], trace[k].raw[ch].force);
		}
	}
	for (n = 1; n <= STEPS; n++) {
		ASSERT_EQ(0, rths_read_feedback(self->t.dev, &fb));
		ASSERT_EQ((uint64_t)n, fb.step);
		ASSERT_EQ((uint64_t)n * D, fb.tick);
		k = n * D - 1;
		for (ch = 0; ch < CH; ch++) {
			EXPECT_EQ(u[n][ch], fb.raw[ch].command);
			EXPECT_EQ(trace[k].raw[ch].disp, fb.raw[ch].disp);
			EXPECT_EQ(trace[k].raw[ch].force, fb.raw[ch].force);
		}
	}
	EXPECT_EQ(-EAGAIN, rths_read_feedback(self->t.dev, &fb));
	/* the device reports where the outputs are: the last target */
	ASSERT_EQ(0, rths_dev_get(self->t.ctl, self->t.name, &info,
				  sizeof(info)));
	for (ch = 0; ch < CH; ch++)
		EXPECT_EQ(u[STEPS][ch], info.position_raw[ch]);
}

/* The RTHS benchmark's plant, designed by librths and loaded as integer
 * sections in place of the lag: every sample predicted to the count by the
 * recursion the offline backend runs; DEV_GET returns the sections; an
 * empty plant brings the lag back. */
TEST_F(loop, plant_predicted_to_the_count)
{
	enum { D = 4, STEPS = 200, CH = 2 };
	int64_t u[STEPS + 1][CH], disp[CH], force[CH];
	struct rths_benchmark_plant bp;
	struct rths_sim_params sim, got;
	struct rths_dev_config cfg;
	struct rths_feedback fb;
	struct rths_error err;
	struct sim_model m;
	double num[1], den[6];
	uint64_t seed = 7;
	int64_t moved = 0;
	int n, ch, k;

	rt_sim_default(&sim);
	rths_benchmark_plant_nominal(&bp);
	ASSERT_EQ(0, rths_benchmark_plant_tf(&bp, num, den, &err));
	ASSERT_EQ(0, rths_sim_plant_design(num, 1, den, 6, RTHS_RATE_DEFAULT,
					   0, &sim, &err)) {
		TH_LOG("design: %s", err.msg);
	}
	ASSERT_EQ(3U, sim.plant_sections);
	rt_manual_config(&cfg, D);
	setup_dev(_metadata, &self->t, CH, &cfg, &sim);
	ASSERT_EQ(0, rths_dev_get_card(self->t.ctl, self->t.name, "sim", &got,
				       sizeof(got)));
	EXPECT_TRUE(got.set & RTHS_SIM_PLANT);
	ASSERT_EQ(sim.plant_sections, got.plant_sections);
	EXPECT_EQ(0, memcmp(sim.plant, got.plant,
			    sim.plant_sections * sizeof(sim.plant[0])));
	ASSERT_EQ(0, rt_start(&self->t));
	memset(u[0], 0, sizeof(u[0]));
	for (n = 1; n <= STEPS; n++) {
		for (ch = 0; ch < CH; ch++)	/* +-5 mm steps every 10 */
			u[n][ch] = n % 10 ? u[n - 1][ch] :
				   (int64_t)(lcg(&seed) % (10 * MM)) - 5 * MM;
		ASSERT_EQ(0, rths_post_raw(self->t.dev, n, u[n]));
		ASSERT_EQ(0, rt_tick(&self->t, D));
		ASSERT_EQ(0, rths_read_feedback(self->t.dev, &fb));
		ASSERT_EQ((uint64_t)n, fb.step);
	}
	sim_model_init(&m, CH, RTHS_RATE_DEFAULT, &sim);
	ASSERT_EQ(STEPS * D, rt_trace(&self->t, trace, 8192));
	for (k = 0; k < STEPS * D; k++) {
		int64_t out[CH];

		n = k / D + 1;
		for (ch = 0; ch < CH; ch++)
			out[ch] = rt_interp(u[n - 1][ch], u[n][ch], k % D + 1, D);
		sim_model_tick(&m, out, disp, force);
		for (ch = 0; ch < CH; ch++) {
			ASSERT_EQ(disp[ch], trace[k].raw[ch].disp) {
				TH_LOG("tick %d channel %d", k + 1, ch);
			}
			ASSERT_EQ(force[ch], trace[k].raw[ch].force);
			if (llabs(m.ch[ch].y) > moved)
				moved = llabs(m.ch[ch].y);
		}
	}
	/* the plant did move the actuator (millimetres, not nothing) */
	EXPECT_LT(MM, moved);
	ASSERT_EQ(0, rths_run_stop(self->t.ctl, self->t.name));
	/* no sections: back to the lag */
	memset(&sim, 0, sizeof(sim));
	sim.set = RTHS_SIM_PLANT;
	ASSERT_EQ(0, rths_dev_set(self->t.ctl, self->t.name, NULL, 0,
				  RTHS_SIM_PARAMS(&sim)));
	ASSERT_EQ(0, rths_dev_get_card(self->t.ctl, self->t.name, "sim", &got,
				       sizeof(got)));
	EXPECT_FALSE(got.set & RTHS_SIM_PLANT);
	EXPECT_EQ(0U, got.plant_sections);
}

/* The sim card's bilinear spring: every sample predicted to the count, the
 * force within the hardening band, and energy dissipated over the cycles. */
TEST_F(loop, hysteretic_spring_predicted_to_the_count)
{
	enum { D = 8, STEPS = 120 };
	int64_t u[STEPS + 1], disp[1], force[1], out[1];
	struct rths_sim_params sim, got;
	struct rths_dev_config cfg;
	struct sim_model m;
	double energy = 0, band;
	int n, k;

	rt_sim_default(&sim);
	sim.noise_disp = 0;
	sim.noise_force = 0;
	sim.stiffness = 0;
	sim.damping = 0;
	sim.set |= RTHS_SIM_SPRING;
	sim.spring_stiffness = 2e5;	/* N/m: yields at 0.25 mm */
	sim.yield_force = 50;		/* N */
	sim.post_stiffness = 2e4;	/* N/m */
	rt_manual_config(&cfg, D);
	setup_dev(_metadata, &self->t, 1, &cfg, &sim);
	ASSERT_EQ(0, rths_dev_get_card(self->t.ctl, self->t.name, "sim", &got,
				       sizeof(got)));
	EXPECT_EQ(2e5, got.spring_stiffness);
	EXPECT_EQ(50, got.yield_force);
	EXPECT_EQ(2e4, got.post_stiffness);
	ASSERT_EQ(0, rt_start(&self->t));
	/* three cycles of growing amplitude, 0.5 .. 1.5 mm */
	u[0] = 0;
	for (n = 1; n <= STEPS; n++) {
		u[n] = (int64_t)((0.5 + n / 120.0) * MM *
				 sin(2 * M_PI * n / 40.0));
		ASSERT_EQ(0, rt_post1(&self->t, n, u[n]));
		if (n % 40 == 0)
			ASSERT_EQ(0, rt_tick(&self->t, 40 * D));
	}
	ASSERT_EQ(STEPS * D, rt_trace(&self->t, trace, 8192));
	sim_model_init(&m, 1, RTHS_RATE_DEFAULT, &sim);
	band = 50e6 * (1 - 2e4 / 2e5);		/* uN */
	for (k = 0; k < STEPS * D; k++) {
		n = k / D + 1;
		out[0] = rt_interp(u[n - 1], u[n], k % D + 1, D);
		ASSERT_EQ(out[0], trace[k].raw[0].command);
		sim_model_tick(&m, out, disp, force);
		ASSERT_EQ(disp[0], trace[k].raw[0].disp) TH_LOG("tick %d", k + 1);
		ASSERT_EQ(force[0], trace[k].raw[0].force) TH_LOG("tick %d", k + 1);
		EXPECT_LE(fabs(force[0] - 2e4 * disp[0] / 1000.0), band + 1);
		if (k)
			energy += 0.5 * (force[0] + trace[k - 1].raw[0].force) *
				  (disp[0] - trace[k - 1].raw[0].disp);
	}
	/* uN * nm = 1e-15 J; a loop of width 2 c0 over strokes of a mm */
	TH_LOG("dissipated %.3f J", energy * 1e-15);
	EXPECT_GT(energy * 1e-15, 0.05);
	/* a post-yield stiffness above the initial one is refused */
	sim.set = RTHS_SIM_POST_STIFFNESS;
	sim.post_stiffness = 3e5;
	ASSERT_EQ(0, rths_run_stop(self->t.ctl, self->t.name));
	EXPECT_EQ(-EINVAL, rths_dev_set(self->t.ctl, self->t.name, NULL, 0,
					RTHS_SIM_PARAMS(&sim)));
	EXPECT_NE(NULL, strstr(rths_ctl_error(self->t.ctl), "post-yield"));
}

/* 10,000 steps: one record per step, at its last tick, none lost, none
 * duplicated; the counters agree. */
TEST_F_TIMEOUT(loop, sampling_10000_steps, 300)
{
	enum { D = 4, STEPS = 10000, CHUNK = 64 };
	struct rths_dev_config cfg;
	struct rths_feedback fb;
	struct rths_stats st;
	uint64_t next = 1, seen = 0;
	int i;

	rt_manual_config(&cfg, D);
	cfg.trace_entries = 0;
	setup_dev(_metadata, &self->t, 1, &cfg, NULL);
	ASSERT_EQ(0, rt_start(&self->t));
	while (next <= STEPS) {
		int chunk = STEPS - next + 1 < CHUNK ? STEPS - next + 1 : CHUNK;

		for (i = 0; i < chunk; i++)
			ASSERT_EQ(0, rt_post1(&self->t, next + i,
					      (int64_t)((next + i) % 97) * 1000));
		ASSERT_EQ(0, rt_tick(&self->t, chunk * D));
		for (i = 0; i < chunk; i++) {
			ASSERT_EQ(0, rths_read_feedback(self->t.dev, &fb));
			ASSERT_EQ(seen + 1, fb.step);
			ASSERT_EQ(fb.step * D, fb.tick);
			ASSERT_EQ(0u, fb.flags);
			ASSERT_EQ(fb.step * D * 1000000000ULL / RTHS_RATE_DEFAULT,
				  fb.time_ns);
			ASSERT_EQ((int64_t)(fb.step % 97) * 1000,
				  fb.raw[0].command);
			seen = fb.step;
		}
		ASSERT_EQ(-EAGAIN, rths_read_feedback(self->t.dev, &fb));
		next += chunk;
	}
	ASSERT_EQ(0, rths_stats_get(self->t.ctl, self->t.name, &st));
	EXPECT_EQ((uint64_t)STEPS, st.steps);
	EXPECT_EQ((uint64_t)STEPS, st.fb_records);
	EXPECT_EQ(0u, st.fb_overflows);
	EXPECT_EQ((uint64_t)STEPS * D, st.ticks);
	EXPECT_EQ(0u, st.late_steps);
	EXPECT_EQ(0u, st.stretch_ticks);
	EXPECT_EQ(st.ticks, st.periods);
}

static void expect_stats_consistent(struct __test_metadata *_metadata,
				    struct rt *t, uint32_t d)
{
	struct rths_stats st;

	ASSERT_EQ(0, rths_stats_get(t->ctl, t->name, &st));
	EXPECT_EQ(st.ticks, st.steps * d + st.stretch_ticks +
		  st.step_ticks_now + st.halt_ticks);
	EXPECT_EQ(st.late_steps, st.late_extrapolated + st.late_held +
		  st.late_decelerated + st.late_faulted);
	EXPECT_EQ(st.steps, st.fb_records + st.fb_overflows);
}

TEST_F(loop, late_strict_faults)
{
	struct rths_dev_config cfg;
	enum rths_state state;
	enum rths_reason reason;
	enum rths_fault fault;
	struct rths_event ev;
	struct rths_stats st;
	int i, n;

	rt_manual_config(&cfg, 8);
	cfg.set |= RTHS_CFG_LATE_POLICY;
	cfg.late_policy = RTHS_LATE_STRICT;
	setup_dev(_metadata, &self->t, 1, &cfg, NULL);
	ASSERT_EQ(0, rt_start(&self->t));
	ASSERT_EQ(0, rt_tick(&self->t, 1));
	ASSERT_EQ(0, rt_state(&self->t, &state, &reason, &fault));
	EXPECT_EQ(RTHS_STATE_FAULTED, state);
	EXPECT_EQ(RTHS_REASON_LATE, reason);
	EXPECT_EQ(RTHS_FAULT_LATE, fault);

	ASSERT_EQ(1, rt_event(&self->t, RTHS_EVENT_LATE, &ev));
	EXPECT_EQ(RTHS_LATE_FAULTED, ev.late_action);
	EXPECT_EQ(1u, ev.step);
	ASSERT_EQ(1, rt_event(&self->t, RTHS_EVENT_FAULT, &ev));
	EXPECT_EQ(RTHS_FAULT_LATE, ev.fault);
	ASSERT_EQ(1, rt_event(&self->t, RTHS_EVENT_STATE, &ev));
	EXPECT_EQ(RTHS_STATE_FAULTED, ev.state);

	/* a command now changes nothing: the device holds */
	ASSERT_EQ(0, rt_post1(&self->t, 1, 3 * MM));
	ASSERT_EQ(0, rt_tick(&self->t, 16));
	n = rt_trace(&self->t, trace, 8192);
	ASSERT_EQ(17, n);
	for (i = 0; i < n; i++)
		EXPECT_EQ(0, trace[i].raw[0].command);
	ASSERT_EQ(0, rths_stats_get(self->t.ctl, self->t.name, &st));
	EXPECT_EQ(1u, st.late_faulted);
	EXPECT_EQ(0u, st.steps);
	EXPECT_EQ(16u, st.halt_ticks);
	expect_stats_consistent(_metadata, &self->t, 8);
}

TEST_F(loop, late_hold_stretches_the_step)
{
	enum { D = 8, H = 5 };
	const int64_t u1 = 1 * MM, u2 = -2 * MM;
	struct rths_dev_config cfg;
	struct rths_feedback fb;
	struct rths_event ev;
	struct rths_stats st;
	int i;

	rt_manual_config(&cfg, D);
	cfg.set |= RTHS_CFG_LATE_POLICY;
	cfg.late_policy = RTHS_LATE_HOLD;
	setup_dev(_metadata, &self->t, 1, &cfg, NULL);
	ASSERT_EQ(0, rt_start(&self->t));
	ASSERT_EQ(0, rt_post1(&self->t, 1, u1));
	ASSERT_EQ(0, rt_tick(&self->t, D + H));
	ASSERT_EQ(0, rt_post1(&self->t, 2, u2));
	ASSERT_EQ(0, rt_tick(&self->t, D));

	ASSERT_EQ(2 * D + H, rt_trace(&self->t, trace, 8192));
	for (i = 0; i < H; i++)
		EXPECT_EQ(u1, trace[D + i].raw[0].command);
	for (i = 1; i <= D; i++) {
		EXPECT_EQ(rt_interp(u1, u2, i, D),
			  trace[D + H + i - 1].raw[0].command);
		EXPECT_EQ((uint32_t)(H + i), trace[D + H + i - 1].step_tick);
	}
	ASSERT_EQ(0, rths_read_feedback(self->t.dev, &fb));
	EXPECT_EQ(1u, fb.step);
	ASSERT_EQ(0, rths_read_feedback(self->t.dev, &fb));
	EXPECT_EQ(2u, fb.step);
	EXPECT_EQ((uint64_t)(2 * D + H), fb.tick);
	EXPECT_EQ((uint32_t)H, fb.late_ticks);
	EXPECT_EQ(RTHS_FB_F_HELD, fb.flags);
	EXPECT_EQ(u2, fb.raw[0].command);

	ASSERT_EQ(1, rt_event(&self->t, RTHS_EVENT_LATE, &ev));
	EXPECT_EQ(RTHS_LATE_HELD, ev.late_action);
	EXPECT_EQ((uint32_t)H, ev.late_ticks);
	EXPECT_EQ(2u, ev.step);
	ASSERT_EQ(0, rths_stats_get(self->t.ctl, self->t.name, &st));
	EXPECT_EQ(1u, st.late_held);
	EXPECT_EQ((uint64_t)H, st.stretch_ticks);
	EXPECT_EQ((uint64_t)H, st.wait_ticks);
	expect_stats_consistent(_metadata, &self->t, D);
}

/* Late by less than the deadline: extrapolate, then still end on time. */
TEST_F(loop, late_event_driven_extrapolates)
{
	enum { D = 8, W = 3 };
	const int64_t u1 = 1 * MM, u2 = 3 * MM, u3 = 4 * MM, v = u2 - u1;
	struct rths_dev_config cfg;
	struct rths_feedback fb;
	struct rths_event ev;
	struct rths_stats st;
	int64_t p;
	int i;

	rt_manual_config(&cfg, D);
	cfg.set |= RTHS_CFG_LATE_POLICY | RTHS_CFG_LATE_DEADLINE;
	cfg.late_policy = RTHS_LATE_EVENT_DRIVEN;
	cfg.late_deadline = 4;
	setup_dev(_metadata, &self->t, 1, &cfg, NULL);
	ASSERT_EQ(0, rt_start(&self->t));
	ASSERT_EQ(0, rt_post1(&self->t, 1, u1));
	ASSERT_EQ(0, rt_post1(&self->t, 2, u2));
	ASSERT_EQ(0, rt_tick(&self->t, 2 * D + W));
	ASSERT_EQ(0, rt_post1(&self->t, 3, u3));
	ASSERT_EQ(0, rt_tick(&self->t, D - W));

	ASSERT_EQ(3 * D, rt_trace(&self->t, trace, 8192));
	for (i = 1; i <= W; i++)
		EXPECT_EQ(u2 + v * i / D, trace[2 * D + i - 1].raw[0].command);
	p = u2 + v * W / D;
	for (i = 1; i <= D - W; i++)
		EXPECT_EQ(rt_interp(p, u3, i, D - W),
			  trace[2 * D + W + i - 1].raw[0].command);
	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, rths_read_feedback(self->t.dev, &fb));
	EXPECT_EQ(3u, fb.step);
	EXPECT_EQ((uint64_t)(3 * D), fb.tick);	/* on time */
	EXPECT_EQ(RTHS_FB_F_EXTRAPOLATED, fb.flags);
	EXPECT_EQ((uint32_t)W, fb.late_ticks);
	EXPECT_EQ(u3, fb.raw[0].command);
	ASSERT_EQ(1, rt_event(&self->t, RTHS_EVENT_LATE, &ev));
	EXPECT_EQ(RTHS_LATE_EXTRAPOLATED, ev.late_action);
	ASSERT_EQ(0, rths_stats_get(self->t.ctl, self->t.name, &st));
	EXPECT_EQ(0u, st.stretch_ticks);
	EXPECT_EQ(1u, st.late_extrapolated);
	expect_stats_consistent(_metadata, &self->t, D);
}

/* Late past the deadline: decelerate to a hold, then step when it comes. */
TEST_F(loop, late_event_driven_decelerates)
{
	enum { D = 8, DL = 2, R = 4, W = 7 };
	const int64_t u1 = 1 * MM, u2 = 3 * MM, u3 = 4 * MM, v = u2 - u1;
	struct rths_dev_config cfg;
	struct rths_feedback fb;
	struct rths_event ev;
	struct rths_stats st;
	int64_t p0, p;
	int i;

	rt_manual_config(&cfg, D);
	cfg.set |= RTHS_CFG_LATE_POLICY | RTHS_CFG_LATE_DEADLINE |
		   RTHS_CFG_RAMP_TICKS;
	cfg.late_policy = RTHS_LATE_EVENT_DRIVEN;
	cfg.late_deadline = DL;
	cfg.ramp_ticks = R;
	setup_dev(_metadata, &self->t, 1, &cfg, NULL);
	ASSERT_EQ(0, rt_start(&self->t));
	ASSERT_EQ(0, rt_post1(&self->t, 1, u1));
	ASSERT_EQ(0, rt_post1(&self->t, 2, u2));
	ASSERT_EQ(0, rt_tick(&self->t, 2 * D + W));
	ASSERT_EQ(0, rt_post1(&self->t, 3, u3));
	ASSERT_EQ(0, rt_tick(&self->t, D - DL));

	ASSERT_EQ(2 * D + W + D - DL, rt_trace(&self->t, trace, 8192));
	for (i = 1; i <= DL; i++)
		EXPECT_EQ(u2 + v * i / D, trace[2 * D + i - 1].raw[0].command);
	p0 = u2 + v * DL / D;
	for (i = 1; i <= W - DL; i++) {
		int k = i < R ? i : R;

		p = p0 + v * (k * R - k * (k + 1) / 2) / (D * R);
		EXPECT_EQ(p, trace[2 * D + DL + i - 1].raw[0].command) {
			TH_LOG("deceleration tick %d", i);
		}
	}
	for (i = 1; i <= D - DL; i++)
		EXPECT_EQ(rt_interp(p, u3, i, D - DL),
			  trace[2 * D + W + i - 1].raw[0].command);
	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, rths_read_feedback(self->t.dev, &fb));
	EXPECT_EQ(3u, fb.step);
	EXPECT_EQ((uint64_t)(2 * D + W + D - DL), fb.tick);
	EXPECT_EQ(RTHS_FB_F_DECELERATED, fb.flags);
	EXPECT_EQ((uint32_t)W, fb.late_ticks);
	ASSERT_EQ(1, rt_event(&self->t, RTHS_EVENT_LATE, &ev));
	EXPECT_EQ(RTHS_LATE_DECELERATED, ev.late_action);
	EXPECT_EQ((uint32_t)W, ev.late_ticks);
	ASSERT_EQ(0, rths_stats_get(self->t.ctl, self->t.name, &st));
	EXPECT_EQ((uint64_t)(W + D - DL - D), st.stretch_ticks);
	EXPECT_EQ((uint64_t)W, st.wait_ticks);
	EXPECT_EQ(1u, st.late_decelerated);
	expect_stats_consistent(_metadata, &self->t, D);
}

static void expect_limit_hold(struct __test_metadata *_metadata, struct rt *t,
			      enum rths_limit_kind kind, struct rths_event *ev)
{
	struct rths_event sev;
	enum rths_state state;
	enum rths_reason reason;

	ASSERT_EQ(0, rt_state(t, &state, &reason, NULL));
	EXPECT_EQ(RTHS_STATE_HOLDING, state);
	EXPECT_EQ(RTHS_REASON_LIMIT, reason);
	ASSERT_EQ(1, rt_event(t, RTHS_EVENT_LIMIT, ev));
	EXPECT_EQ(kind, ev->limit);
	EXPECT_EQ(0u, ev->channel);
	ASSERT_EQ(1, rt_event(t, RTHS_EVENT_STATE, &sev));
	EXPECT_EQ(RTHS_STATE_HOLDING, sev.state);
	EXPECT_EQ(RTHS_REASON_LIMIT, sev.reason);
}

TEST_F(loop, stroke_limit_trips_and_holds)
{
	struct rths_dev_config cfg;
	struct rths_event ev;
	int i, n;

	rt_manual_config(&cfg, 8);
	cfg.set |= RTHS_CFG_LIMITS | RTHS_CFG_RAMP_TICKS;
	cfg.ramp_ticks = 4;
	cfg.limits_set = 1;
	cfg.limits[0] = (struct rths_limits){ .pos_min = -0.001,
		.pos_max = 0.001, .vel_max = 10, .force_max = 1e6 };
	setup_dev(_metadata, &self->t, 1, &cfg, NULL);
	ASSERT_EQ(0, rt_start(&self->t));
	ASSERT_EQ(0, rt_post1(&self->t, 1, MM / 2));
	ASSERT_EQ(0, rt_post1(&self->t, 2, 3 * MM / 2));
	ASSERT_EQ(0, rt_tick(&self->t, 16));
	expect_limit_hold(_metadata, &self->t, RTHS_LIMIT_STROKE, &ev);
	EXPECT_EQ(MM / 2 + MM * 5 / 8, ev.value_raw);	/* the refused output */
	EXPECT_EQ(13u, ev.tick);
	n = rt_trace(&self->t, trace, 8192);
	ASSERT_EQ(16, n);
	for (i = 0; i < n; i++)
		EXPECT_LE(trace[i].raw[0].command, MM);
	for (i = 12; i < n; i++)
		EXPECT_EQ(MM, trace[i].raw[0].command);
	expect_stats_consistent(_metadata, &self->t, 8);
}

TEST_F(loop, velocity_limit_trips_and_holds)
{
	struct rths_dev_config cfg;
	struct rths_event ev;
	int i, n;

	rt_manual_config(&cfg, 8);
	cfg.set |= RTHS_CFG_LIMITS;
	cfg.limits_set = 1;
	cfg.limits[0] = (struct rths_limits){ .pos_min = -1, .pos_max = 1,
		.vel_max = 0.1, .force_max = 1e6 };
	setup_dev(_metadata, &self->t, 1, &cfg, NULL);
	ASSERT_EQ(0, rt_start(&self->t));
	/* 1 mm in 8 ticks at 1024 Hz is 0.128 m/s */
	ASSERT_EQ(0, rt_post1(&self->t, 1, MM));
	ASSERT_EQ(0, rt_tick(&self->t, 8));
	expect_limit_hold(_metadata, &self->t, RTHS_LIMIT_VELOCITY, &ev);
	EXPECT_EQ(MM / 8 * RTHS_RATE_DEFAULT, ev.value_raw);
	n = rt_trace(&self->t, trace, 8192);
	ASSERT_EQ(8, n);
	for (i = 0; i < n; i++)
		EXPECT_EQ(0, trace[i].raw[0].command);
}

TEST_F(loop, force_limit_trips_and_holds)
{
	struct rths_dev_config cfg;
	struct rths_event ev;
	int i, n, first = -1;

	rt_manual_config(&cfg, 8);
	cfg.set |= RTHS_CFG_LIMITS | RTHS_CFG_RAMP_TICKS;
	cfg.ramp_ticks = 8;
	cfg.limits_set = 1;
	/* the specimen's 2.5e5 N/m reaches 100 N at 0.4 mm */
	cfg.limits[0] = (struct rths_limits){ .pos_min = -1, .pos_max = 1,
		.vel_max = 10, .force_max = 100 };
	setup_dev(_metadata, &self->t, 1, &cfg, NULL);
	ASSERT_EQ(0, rt_start(&self->t));
	for (i = 1; i <= 4; i++)
		ASSERT_EQ(0, rt_post1(&self->t, i, i * MM / 4));
	ASSERT_EQ(0, rt_tick(&self->t, 64));
	expect_limit_hold(_metadata, &self->t, RTHS_LIMIT_FORCE, &ev);
	n = rt_trace(&self->t, trace, 8192);
	ASSERT_EQ(64, n);
	for (i = 0; i < n && first < 0; i++)
		if (llabs(trace[i].raw[0].force) > 100000000LL)
			first = i;
	ASSERT_GE(first, 0);
	EXPECT_EQ(trace[first].tick, ev.tick);
	EXPECT_EQ(trace[first].raw[0].force, ev.value_raw);
	/* from the next tick on, the outputs ramp down and hold */
	for (i = first + 2; i < n; i++)
		EXPECT_LE(llabs(trace[i].raw[0].command -
				trace[i - 1].raw[0].command),
			  llabs(trace[first].raw[0].command -
				trace[first - 1].raw[0].command));
	EXPECT_EQ(trace[n - 1].raw[0].command, trace[n - 2].raw[0].command);
}

/*
 * The owner goes away in the middle of a step; the outputs must ramp to a
 * hold from where they are, never jump.  @kill: SIGKILL instead of close.
 */
static void owner_goes_away(struct __test_metadata *_metadata, struct rt *t,
			    bool kill_it)
{
	enum { D = 8, R = 8, BEFORE = 12, AFTER = 24 };
	int to_child[2], to_parent[2];
	struct rths_dev_config cfg;
	enum rths_state state;
	enum rths_reason reason;
	struct rths_event ev;
	int64_t v, dmax;
	pid_t pid;
	char c;
	int i, n, st;

	rt_manual_config(&cfg, D);
	cfg.set |= RTHS_CFG_RAMP_TICKS;
	cfg.ramp_ticks = R;
	ASSERT_EQ(0, rt_create(t, "own", 1, NULL, &cfg));
	ASSERT_EQ(0, rt_monitor(t));
	ASSERT_EQ(0, rt_start(t));
	ASSERT_EQ(0, pipe(to_child));
	ASSERT_EQ(0, pipe(to_parent));
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		struct rths_dev *dev;
		struct rths_ctl *ctl;
		int64_t u;
		int s;

		if (rths_ctl_open(&ctl) ||
		    rths_dev_open(ctl, t->name, RTHS_OPEN_OWNER, &dev))
			_exit(1);
		for (s = 1; s <= 3; s++) {
			u = s * MM;
			if (rths_post_raw(dev, s, &u))
				_exit(2);
		}
		if (write(to_parent[1], "r", 1) != 1 ||
		    read(to_child[0], &c, 1) != 1)
			_exit(3);
		if (!kill_it)
			rths_dev_close(dev);	/* close, then linger */
		pause();
		_exit(0);
	}
	ASSERT_EQ(1, read(to_parent[0], &c, 1));
	ASSERT_EQ(0, rt_tick(t, BEFORE));	/* half way through step 2 */
	if (kill_it) {
		ASSERT_EQ(0, kill(pid, SIGKILL));
		ASSERT_EQ(pid, waitpid(pid, &st, 0));
	} else {
		ASSERT_EQ(1, write(to_child[1], "c", 1));
		/* the child closes; wait until the kernel says so */
		ASSERT_EQ(1, rt_event(t, RTHS_EVENT_STATE, &ev));
		while (ev.state != RTHS_STATE_HOLDING)
			ASSERT_EQ(1, rt_event(t, RTHS_EVENT_STATE, &ev));
	}
	ASSERT_EQ(0, rt_state(t, &state, &reason, NULL));
	EXPECT_EQ(RTHS_STATE_HOLDING, state);
	EXPECT_EQ(RTHS_REASON_OWNER_GONE, reason);
	ASSERT_EQ(0, rt_tick(t, AFTER));
	if (!kill_it) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
	}
	/* The child is gone, so we may own it now and read its trace. */
	ASSERT_EQ(0, rt_open(t));
	n = rt_trace(t, trace, 8192);
	ASSERT_EQ(BEFORE + AFTER, n);
	v = trace[BEFORE - 1].raw[0].command - trace[BEFORE - 2].raw[0].command;
	ASSERT_GT(v, 0);
	dmax = 0;
	for (i = BEFORE; i < n; i++) {
		int64_t dv = trace[i].raw[0].command -
			     trace[i - 1].raw[0].command;

		EXPECT_GE(dv, 0);	/* no reversal */
		EXPECT_LE(dv, v);	/* no jump: never faster than before */
		if (dv > dmax)
			dmax = dv;
	}
	EXPECT_GT(dmax, 0);	/* it decelerates, it does not stop dead */
	for (i = BEFORE + R; i < n; i++)
		EXPECT_EQ(trace[BEFORE + R - 1].raw[0].command,
			  trace[i].raw[0].command);
	/* where it came to rest: p + v * (R - 1) / 2 */
	EXPECT_EQ(trace[BEFORE - 1].raw[0].command + v * (R - 1) / 2,
		  trace[n - 1].raw[0].command);
	close(to_child[0]);
	close(to_child[1]);
	close(to_parent[0]);
	close(to_parent[1]);
}

TEST_F(loop, owner_close_holds)
{
	owner_goes_away(_metadata, &self->t, false);
}

TEST_F(loop, owner_sigkill_holds)
{
	owner_goes_away(_metadata, &self->t, true);
}

TEST_F(loop, user_hold_ramps_down)
{
	enum { D = 8, R = 8, BEFORE = 12, AFTER = 16 };
	struct rths_dev_config cfg;
	enum rths_state state;
	enum rths_reason reason;
	struct rths_event ev;
	int64_t v;
	int i, n;

	rt_manual_config(&cfg, D);
	cfg.set |= RTHS_CFG_RAMP_TICKS;
	cfg.ramp_ticks = R;
	setup_dev(_metadata, &self->t, 1, &cfg, NULL);
	EXPECT_EQ(-EINVAL, rths_run_hold(self->t.ctl, self->t.name));
	ASSERT_EQ(0, rt_start(&self->t));
	ASSERT_EQ(0, rt_post1(&self->t, 1, MM));
	ASSERT_EQ(0, rt_post1(&self->t, 2, 2 * MM));
	ASSERT_EQ(0, rt_tick(&self->t, BEFORE));
	ASSERT_EQ(0, rths_run_hold(self->t.ctl, self->t.name));
	ASSERT_EQ(0, rt_state(&self->t, &state, &reason, NULL));
	EXPECT_EQ(RTHS_STATE_HOLDING, state);
	EXPECT_EQ(RTHS_REASON_USER, reason);
	ASSERT_EQ(1, rt_event(&self->t, RTHS_EVENT_STATE, &ev));
	while (ev.state != RTHS_STATE_HOLDING)
		ASSERT_EQ(1, rt_event(&self->t, RTHS_EVENT_STATE, &ev));
	EXPECT_EQ(RTHS_REASON_USER, ev.reason);
	ASSERT_EQ(0, rt_tick(&self->t, AFTER));
	n = rt_trace(&self->t, trace, 8192);
	ASSERT_EQ(BEFORE + AFTER, n);
	v = trace[BEFORE - 1].raw[0].command - trace[BEFORE - 2].raw[0].command;
	for (i = BEFORE; i < BEFORE + R; i++) {
		int64_t dv = trace[i].raw[0].command -
			     trace[i - 1].raw[0].command;

		EXPECT_GE(dv, 0);
		EXPECT_LE(dv, v);
	}
	for (i = BEFORE + R; i < n; i++)
		EXPECT_EQ(trace[BEFORE + R - 1].raw[0].command,
			  trace[i].raw[0].command);
	/* holding already: a second hold changes nothing */
	EXPECT_EQ(0, rths_run_hold(self->t.ctl, self->t.name));
	expect_stats_consistent(_metadata, &self->t, D);
}

/* Runs until tick BEFORE, half way through step 2, moving at v > 0. */
static void move_then(struct __test_metadata *_metadata, struct rt *t,
		      int d, int r, int before)
{
	struct rths_dev_config cfg;

	rt_manual_config(&cfg, d);
	cfg.set |= RTHS_CFG_RAMP_TICKS;
	cfg.ramp_ticks = r;
	setup_dev(_metadata, t, 1, &cfg, NULL);
	ASSERT_EQ(0, rt_start(t));
	ASSERT_EQ(0, rt_post1(t, 1, MM));
	ASSERT_EQ(0, rt_post1(t, 2, 2 * MM));
	ASSERT_EQ(0, rt_tick(t, before));
}

static void expect_state_event(struct __test_metadata *_metadata, struct rt *t,
			       enum rths_state state)
{
	struct rths_event ev;

	ASSERT_EQ(1, rt_event(t, RTHS_EVENT_STATE, &ev));
	while (ev.state == RTHS_STATE_RUNNING)
		ASSERT_EQ(1, rt_event(t, RTHS_EVENT_STATE, &ev));
	EXPECT_EQ(state, ev.state);
	EXPECT_EQ(RTHS_REASON_USER, ev.reason);
}

/*
 * "run stop" on a moving rig ramps the outputs to rest first, as a hold
 * does, and only then stops: no velocity jump, tick by tick.  Under the
 * manual clock the stop runs the ramp's ticks itself.
 */
TEST_F(loop, stop_ramps_to_rest)
{
	enum { D = 8, R = 8, BEFORE = 12 };
	enum rths_state state;
	enum rths_reason reason;
	int64_t v, dv;
	int i, n;

	move_then(_metadata, &self->t, D, R, BEFORE);
	ASSERT_TRUE(_metadata->passed);
	ASSERT_EQ(0, rths_run_stop(self->t.ctl, self->t.name));
	ASSERT_EQ(0, rt_state(&self->t, &state, &reason, NULL));
	EXPECT_EQ(RTHS_STATE_STOPPED, state);
	EXPECT_EQ(RTHS_REASON_USER, reason);
	expect_state_event(_metadata, &self->t, RTHS_STATE_HOLDING);
	expect_state_event(_metadata, &self->t, RTHS_STATE_STOPPED);
	n = rt_trace(&self->t, trace, 8192);
	ASSERT_EQ(BEFORE + R, n);
	v = trace[BEFORE - 1].raw[0].command - trace[BEFORE - 2].raw[0].command;
	ASSERT_GT(v, 0);
	for (i = BEFORE; i < n; i++) {
		dv = trace[i].raw[0].command - trace[i - 1].raw[0].command;
		EXPECT_GE(dv, 0);	/* no reversal */
		EXPECT_LE(dv, v);	/* no jump */
		/* the ramp slows by v / R a tick, give or take rounding */
		EXPECT_LE(trace[i - 1].raw[0].command -
			  trace[i - 2].raw[0].command - dv, v / R + 1) {
			TH_LOG("tick %d: velocity drops from %lld to %lld nm/tick",
			       i, (long long)(trace[i - 1].raw[0].command -
					      trace[i - 2].raw[0].command),
			       (long long)dv);
		}
	}
	/* at rest when it stops, where the ramp takes it */
	EXPECT_EQ(trace[n - 1].raw[0].command, trace[n - 2].raw[0].command);
	EXPECT_EQ(trace[BEFORE - 1].raw[0].command + v * (R - 1) / 2,
		  trace[n - 1].raw[0].command);
	expect_stats_consistent(_metadata, &self->t, D);
	/* stopped: a second stop changes nothing */
	EXPECT_EQ(0, rths_run_stop(self->t.ctl, self->t.name));
	EXPECT_EQ(0, rt_trace(&self->t, trace, 8192));
}

struct long_tick {
	const char *name;
	uint32_t n;
	int err;
	atomic_bool done;
};

static void *long_tick_fn(void *arg)
{
	struct long_tick *lt = arg;
	struct rths_ctl *ctl;

	lt->err = rths_ctl_open(&ctl);
	if (!lt->err) {
		lt->err = rths_run_tick(ctl, lt->name, lt->n);
		rths_ctl_close(ctl);
	}
	atomic_store(&lt->done, true);
	return NULL;
}

/*
 * A long RUN_TICK does not keep the device's lock: a DEV_GET sees it part
 * way, and a RUN_STOP stops the device before the ticks are all run, which
 * the RUN_TICK then reports.  Once RUN_TICK held the lock for all of them.
 */
TEST_F_TIMEOUT(loop, long_tick_request_lets_others_in, 600)
{
	struct long_tick lt = { .n = 1000000 };
	struct rths_dev_config cfg;
	struct rths_dev_info info;
	struct rths_stats st;
	uint64_t gets = 0;
	pthread_t th;

	rt_manual_config(&cfg, 8);
	setup_dev(_metadata, &self->t, 1, &cfg, NULL);
	ASSERT_EQ(0, rt_start(&self->t));
	lt.name = self->t.name;
	ASSERT_EQ(0, pthread_create(&th, NULL, long_tick_fn, &lt));
	do {
		ASSERT_EQ(0, rths_dev_get(self->t.ctl, self->t.name, &info,
					  sizeof(info)));
		gets++;
	} while (!info.tick && !atomic_load(&lt.done));
	EXPECT_FALSE(atomic_load(&lt.done));
	EXPECT_GT(info.tick, 0u);
	EXPECT_LT(info.tick, lt.n);
	ASSERT_EQ(0, rths_run_stop_now(self->t.ctl, self->t.name));
	pthread_join(th, NULL);
	TH_LOG("%llu DEV_GETs; the first to see ticks saw %llu of %u",
	       (unsigned long long)gets, (unsigned long long)info.tick,
	       lt.n);
	EXPECT_EQ(-EBUSY, lt.err);
	ASSERT_EQ(0, rths_stats_get(self->t.ctl, self->t.name, &st));
	EXPECT_GE(st.ticks, info.tick);
	EXPECT_LT(st.ticks, lt.n);
	EXPECT_EQ(st.periods, st.ticks);
}

/* A device at rest stops at once: no ramp to run. */
TEST_F(loop, stop_at_rest_runs_no_ticks)
{
	struct rths_dev_config cfg;
	struct rths_stats st;

	rt_manual_config(&cfg, 8);
	setup_dev(_metadata, &self->t, 1, &cfg, NULL);
	ASSERT_EQ(0, rt_start(&self->t));
	ASSERT_EQ(0, rt_tick(&self->t, 5));	/* waiting for step 1 */
	ASSERT_EQ(0, rths_run_stop(self->t.ctl, self->t.name));
	ASSERT_EQ(0, rths_stats_get(self->t.ctl, self->t.name, &st));
	EXPECT_EQ(5u, st.ticks);
	EXPECT_EQ(5, rt_trace(&self->t, trace, 8192));
}

/* The explicit choice: "run stop NAME now" stops dead, mid-motion. */
TEST_F(loop, stop_now_stops_dead)
{
	enum { D = 8, R = 8, BEFORE = 12 };
	enum rths_state state;
	char ctl[512], cmd[700];
	int64_t v;
	int n;

	move_then(_metadata, &self->t, D, R, BEFORE);
	ASSERT_TRUE(_metadata->passed);
	ASSERT_EQ(0, rthsctl_path(ctl, sizeof(ctl)));
	/* a word other than "now" is a usage error and stops nothing */
	snprintf(cmd, sizeof(cmd), "%s run stop %s later 2>/dev/null", ctl,
		 self->t.name);
	EXPECT_EQ(2, WEXITSTATUS(system(cmd)));
	ASSERT_EQ(0, rt_state(&self->t, &state, NULL, NULL));
	EXPECT_EQ(RTHS_STATE_RUNNING, state);
	snprintf(cmd, sizeof(cmd), "%s run stop %s now", ctl, self->t.name);
	EXPECT_EQ(0, WEXITSTATUS(system(cmd)));
	ASSERT_EQ(0, rt_state(&self->t, &state, NULL, NULL));
	EXPECT_EQ(RTHS_STATE_STOPPED, state);
	expect_state_event(_metadata, &self->t, RTHS_STATE_STOPPED);
	/* no tick ran after the request: the last output was moving */
	n = rt_trace(&self->t, trace, 8192);
	ASSERT_EQ(BEFORE, n);
	v = trace[n - 1].raw[0].command - trace[n - 2].raw[0].command;
	EXPECT_GT(v, 0);
	expect_stats_consistent(_metadata, &self->t, D);
	/* the library call does the same */
	ASSERT_EQ(0, rt_start(&self->t));
	ASSERT_EQ(0, rt_post1(&self->t, 1, MM));
	ASSERT_EQ(0, rt_tick(&self->t, 3));
	ASSERT_EQ(0, rths_run_stop_now(self->t.ctl, self->t.name));
	EXPECT_EQ(3, rt_trace(&self->t, trace, 8192));
}

/*
 * STATS_RESET zeroes every counter at once; the ticks already run in the
 * step in progress stay counted, so that the identities keep holding.
 */
TEST_F(loop, stats_reset_mid_step)
{
	enum { D = 8 };
	struct rths_dev_config cfg;
	struct rths_stats st;
	int i;

	rt_manual_config(&cfg, D);
	setup_dev(_metadata, &self->t, 1, &cfg, NULL);
	ASSERT_EQ(0, rt_start(&self->t));
	for (i = 1; i <= 3; i++)
		ASSERT_EQ(0, rt_post1(&self->t, i, i * MM));
	ASSERT_EQ(0, rt_tick(&self->t, D + 4));	/* 4 ticks into step 2 */
	ASSERT_EQ(0, rths_stats_reset(self->t.ctl, self->t.name));
	ASSERT_EQ(0, rths_stats_get(self->t.ctl, self->t.name, &st));
	EXPECT_EQ(0u, st.steps);
	EXPECT_EQ(0u, st.fb_records);
	EXPECT_EQ(0u, st.trace_records);
	EXPECT_EQ(4u, st.step_ticks_now);
	EXPECT_EQ(4u, st.ticks);
	EXPECT_EQ(4u, st.periods);
	expect_stats_consistent(_metadata, &self->t, D);
	ASSERT_EQ(0, rt_tick(&self->t, 2 * D - 4));	/* to step 3's end */
	ASSERT_EQ(0, rths_stats_get(self->t.ctl, self->t.name, &st));
	EXPECT_EQ(2u, st.steps);
	EXPECT_EQ(2u, st.fb_records);
	EXPECT_EQ(2u * D, st.ticks);
	EXPECT_EQ((uint64_t)(2 * D - 4), st.trace_records);
	expect_stats_consistent(_metadata, &self->t, D);
}

TEST_F(loop, feedback_overflow_is_counted_not_overwritten)
{
	struct rths_dev_config cfg;
	struct rths_feedback fb;
	struct rths_event ev;
	struct rths_stats st;
	int i;

	rt_manual_config(&cfg, 4);
	cfg.set |= RTHS_CFG_FB_ENTRIES;
	cfg.fb_entries = 4;
	setup_dev(_metadata, &self->t, 1, &cfg, NULL);
	ASSERT_EQ(0, rt_start(&self->t));
	for (i = 1; i <= 10; i++)
		ASSERT_EQ(0, rt_post1(&self->t, i, i * 1000));
	ASSERT_EQ(0, rt_tick(&self->t, 40));
	ASSERT_EQ(0, rths_stats_get(self->t.ctl, self->t.name, &st));
	EXPECT_EQ(4u, st.fb_records);
	EXPECT_EQ(6u, st.fb_overflows);
	for (i = 0; i < 6; i++) {
		ASSERT_EQ(1, rt_event(&self->t, RTHS_EVENT_OVERFLOW, &ev));
		EXPECT_EQ(RTHS_RING_FB, ev.ring);
		EXPECT_EQ((uint64_t)(5 + i), ev.step);
	}
	/* the first four survive untouched */
	for (i = 1; i <= 4; i++) {
		ASSERT_EQ(0, rths_read_feedback(self->t.dev, &fb));
		EXPECT_EQ((uint64_t)i, fb.step);
		EXPECT_EQ(i * 1000, fb.raw[0].command);
	}
	ASSERT_EQ(-EAGAIN, rths_read_feedback(self->t.dev, &fb));
	ASSERT_EQ(0, rt_post1(&self->t, 11, 11000));
	ASSERT_EQ(0, rt_post1(&self->t, 12, 12000));
	ASSERT_EQ(0, rt_tick(&self->t, 8));
	ASSERT_EQ(0, rths_read_feedback(self->t.dev, &fb));
	EXPECT_EQ(11u, fb.step);
	EXPECT_EQ(RTHS_FB_F_GAP, fb.flags);
	ASSERT_EQ(0, rths_read_feedback(self->t.dev, &fb));
	EXPECT_EQ(12u, fb.step);
	EXPECT_EQ(0u, fb.flags);
	expect_stats_consistent(_metadata, &self->t, 4);
}

TEST_HARNESS_MAIN
