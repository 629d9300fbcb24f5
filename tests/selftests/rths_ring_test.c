// SPDX-License-Identifier: GPL-2.0
/*
 * A hostile producer: userspace writes impossible indices and entries into
 * the shared region.  The kernel must fault the device into a hold, raise
 * an event, and never read or write out of bounds (no oops, no warning).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "common.h"

#define TAINT_BAD ((1UL << 7) | (1UL << 9))	/* died, warned */

static unsigned long taint(void)
{
	unsigned long t = 0;
	FILE *f = fopen("/proc/sys/kernel/tainted", "r");

	if (f) {
		if (fscanf(f, "%lu", &t) != 1)
			t = 0;
		fclose(f);
	}
	return t;
}

enum hostile_kind {
	CMD_PRODUCER_AHEAD = 1,
	CMD_PRODUCER_BEHIND,
	CMD_WRONG_STEP,
	CMD_WRONG_CHANNELS,
	CMD_FLAGS,
	CMD_TARGET_TOO_LARGE,
	FB_CONSUMER_AHEAD,
	TRACE_CONSUMER_AHEAD,
};

FIXTURE(hostile) {
	struct rt t;
	struct rt_raw raw;
	unsigned long taint0;
};

FIXTURE_VARIANT(hostile) {
	enum hostile_kind kind;
	enum rths_fault fault;
};

FIXTURE_VARIANT_ADD(hostile, cmd_producer_ahead) {
	.kind = CMD_PRODUCER_AHEAD, .fault = RTHS_FAULT_CMD_INDEX,
};
FIXTURE_VARIANT_ADD(hostile, cmd_producer_behind) {
	.kind = CMD_PRODUCER_BEHIND, .fault = RTHS_FAULT_CMD_INDEX,
};
FIXTURE_VARIANT_ADD(hostile, cmd_wrong_step) {
	.kind = CMD_WRONG_STEP, .fault = RTHS_FAULT_CMD_STEP,
};
FIXTURE_VARIANT_ADD(hostile, cmd_wrong_channels) {
	.kind = CMD_WRONG_CHANNELS, .fault = RTHS_FAULT_CMD_ENTRY,
};
FIXTURE_VARIANT_ADD(hostile, cmd_flags) {
	.kind = CMD_FLAGS, .fault = RTHS_FAULT_CMD_ENTRY,
};
FIXTURE_VARIANT_ADD(hostile, cmd_target_too_large) {
	.kind = CMD_TARGET_TOO_LARGE, .fault = RTHS_FAULT_CMD_ENTRY,
};
FIXTURE_VARIANT_ADD(hostile, fb_consumer_ahead) {
	.kind = FB_CONSUMER_AHEAD, .fault = RTHS_FAULT_FB_INDEX,
};
FIXTURE_VARIANT_ADD(hostile, trace_consumer_ahead) {
	.kind = TRACE_CONSUMER_AHEAD, .fault = RTHS_FAULT_TRACE_INDEX,
};

FIXTURE_SETUP(hostile)
{
	struct rths_dev_config cfg;

	self->taint0 = taint();
	rt_manual_config(&cfg, 4);
	ASSERT_EQ(0, rt_create(&self->t, "hx", 1, NULL, &cfg));
	ASSERT_EQ(0, rt_monitor(&self->t));
	ASSERT_EQ(0, rt_start(&self->t));
	ASSERT_EQ(0, rt_raw_map(&self->t, &self->raw, true));
}

FIXTURE_TEARDOWN(hostile)
{
	rt_raw_unmap(&self->raw);
	rt_destroy(&self->t);
}

static struct rths_cmd_entry *cmd_slot(struct rt_raw *raw, uint32_t i)
{
	const struct rths_ring_info *r = &raw->info.cmd;

	return (void *)((char *)raw->base + r->desc +
			(size_t)(i & (r->entries - 1)) * r->entry_size);
}

TEST_F(hostile, contained)
{
	struct rt_raw *raw = &self->raw;
	uint32_t *cmd_prod = rt_raw_index(raw, raw->info.cmd.producer);
	struct rths_cmd_entry *e = cmd_slot(raw, 0);
	enum rths_state state;
	enum rths_reason reason;
	enum rths_fault fault;
	struct rths_event ev;
	struct rths_stats st;

	e->step = 1;
	e->flags = 0;
	e->channels = 1;
	e->target[0] = 1000;
	switch (variant->kind) {
	case CMD_PRODUCER_AHEAD:
		*cmd_prod = raw->info.cmd.entries + 5;
		break;
	case CMD_PRODUCER_BEHIND:
		*cmd_prod = UINT32_MAX;
		break;
	case CMD_WRONG_STEP:
		e->step = 7;
		break;
	case CMD_WRONG_CHANNELS:
		e->channels = 5;
		break;
	case CMD_FLAGS:
		e->flags = 1;
		break;
	case CMD_TARGET_TOO_LARGE:
		e->target[0] = RTHS_POS_MAX + 1;
		break;
	case FB_CONSUMER_AHEAD:
		*rt_raw_index(raw, raw->info.fb.consumer) = 1000;
		break;
	case TRACE_CONSUMER_AHEAD:
		*rt_raw_index(raw, raw->info.trace.consumer) = 77;
		break;
	}
	if (variant->kind != CMD_PRODUCER_AHEAD &&
	    variant->kind != CMD_PRODUCER_BEHIND)
		__atomic_store_n(cmd_prod, 1, __ATOMIC_RELEASE);

	ASSERT_EQ(0, rt_tick(&self->t, 8));
	ASSERT_EQ(0, rt_state(&self->t, &state, &reason, &fault));
	EXPECT_EQ(RTHS_STATE_FAULTED, state);
	EXPECT_EQ(RTHS_REASON_RING, reason);
	EXPECT_EQ(variant->fault, fault);
	ASSERT_EQ(1, rt_event(&self->t, RTHS_EVENT_FAULT, &ev));
	EXPECT_EQ(variant->fault, ev.fault);
	ASSERT_EQ(0, rths_stats_get(self->t.ctl, self->t.name, &st));
	EXPECT_EQ(1u, st.ring_faults);
	/* Stays faulted and keeps holding; a new run starts cleanly. */
	ASSERT_EQ(0, rt_tick(&self->t, 8));
	ASSERT_EQ(0, rths_run_stop(self->t.ctl, self->t.name));
	ASSERT_EQ(0, rt_start(&self->t));
	ASSERT_EQ(0, rt_state(&self->t, &state, NULL, &fault));
	EXPECT_EQ(RTHS_STATE_RUNNING, state);
	EXPECT_EQ(0, (int)fault);
	EXPECT_EQ(self->taint0 & TAINT_BAD, taint() & TAINT_BAD);
}

/* Random bytes over everything userspace can write, then run: whatever
 * the loop makes of it, the kernel survives and nothing warns. */
TEST_F(hostile, random_garbage)
{
	struct rt_raw *raw = &self->raw;
	uint64_t s = 0x1234 + variant->kind;
	unsigned char *p = raw->base;
	enum rths_state state;
	size_t i;
	int round;

	for (round = 0; round < 8; round++) {
		for (i = 0; i < raw->size; i++) {
			s = s * 6364136223846793005ULL + 1;
			p[i] = s >> 56;
		}
		ASSERT_EQ(0, rt_tick(&self->t, 64));
		ASSERT_EQ(0, rt_state(&self->t, &state, NULL, NULL));
		if (state != RTHS_STATE_RUNNING) {
			ASSERT_EQ(0, rths_run_stop(self->t.ctl, self->t.name));
			ASSERT_EQ(0, rt_start(&self->t));
		}
	}
	EXPECT_EQ(self->taint0 & TAINT_BAD, taint() & TAINT_BAD);
}

TEST_HARNESS_MAIN
