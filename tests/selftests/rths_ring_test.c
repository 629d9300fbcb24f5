// SPDX-License-Identifier: GPL-2.0
/*
 * A hostile producer: userspace writes impossible indices and entries into
 * the shared region.  The kernel must fault the device into a hold, raise
 * an event, and never read or write out of bounds (no oops, no warning).
 */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

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
	/* every fault here is in step 1: the command of step 1, its
	 * feedback record (the step completes, its record is lost), or the
	 * trace record of its first tick */
	EXPECT_EQ(1u, ev.step);
	ASSERT_EQ(0, rths_stats_get(self->t.ctl, self->t.name, &st));
	EXPECT_EQ(1u, st.ring_faults);
	/* a lost record is still counted */
	EXPECT_EQ(st.steps, st.fb_records + st.fb_overflows);
	if (variant->kind == FB_CONSUMER_AHEAD) {
		EXPECT_EQ(1u, st.steps);
		EXPECT_EQ(1u, st.fb_overflows);
	}
	/* Stays faulted and keeps holding; a new run starts cleanly. */
	ASSERT_EQ(0, rt_tick(&self->t, 8));
	ASSERT_EQ(0, rths_run_stop(self->t.ctl, self->t.name));
	ASSERT_EQ(0, rt_start(&self->t));
	ASSERT_EQ(0, rt_state(&self->t, &state, NULL, &fault));
	EXPECT_EQ(RTHS_STATE_RUNNING, state);
	EXPECT_EQ(0, (int)fault);
	EXPECT_EQ(self->taint0 & TAINT_BAD, taint() & TAINT_BAD);
}

/* Random bytes over everything userspace can write (all but the header
 * page), then run: whatever the loop makes of it, the kernel survives and
 * nothing warns. */
TEST_F(hostile, random_garbage)
{
	struct rt_raw *raw = &self->raw;
	uint64_t s = 0x1234 + variant->kind;
	unsigned char *p = raw->base;
	enum rths_state state;
	size_t i;
	int round;

	for (round = 0; round < 8; round++) {
		for (i = (size_t)sysconf(_SC_PAGESIZE); i < raw->size; i++) {
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

static sigjmp_buf fault_jmp;

static void on_fault(int sig)
{
	siglongjmp(fault_jmp, sig);
}

/*
 * Touches @p (writes @v, or reads it if @write is false) in this process:
 * the signal it raised (SIGBUS, SIGSEGV), or 0.  (A child would not do:
 * the mapping is not inherited.)
 */
static int touch(volatile uint32_t *p, uint32_t v, bool write)
{
	struct sigaction sa = { .sa_handler = on_fault }, old_bus, old_segv;
	volatile int sig;

	sigaction(SIGBUS, &sa, &old_bus);
	sigaction(SIGSEGV, &sa, &old_segv);
	sig = sigsetjmp(fault_jmp, 1);
	if (!sig) {
		if (write)
			*p = v;
		else
			v = *p;
	}
	sigaction(SIGBUS, &old_bus, NULL);
	sigaction(SIGSEGV, &old_segv, NULL);
	return sig;
}

/* 0 if writing @v at @p faults (SIGBUS or SIGSEGV), 1 if it writes. */
static int write_faults(volatile uint32_t *p, uint32_t v)
{
	int sig = touch(p, v, true);

	return sig == SIGBUS || sig == SIGSEGV ? 0 : 1;
}

/*
 * The header page is the kernel's: even the owner's writable mapping
 * cannot write it (also after an mprotect() round trip), while the ring
 * pages stay writable.
 */
TEST(header_page_is_read_only)
{
	struct rths_mmap_header *hdr;
	struct rths_dev_config cfg;
	struct rt_raw raw, obs;
	long page = sysconf(_SC_PAGESIZE);
	uint32_t *cmd_prod;
	struct rt t;

	memset(&t, 0, sizeof(t));
	rt_manual_config(&cfg, 4);
	ASSERT_EQ(0, rt_create(&t, "hdr", 2, NULL, &cfg));
	ASSERT_EQ(0, rt_raw_map(&t, &raw, true));
	hdr = raw.base;
	cmd_prod = rt_raw_index(&raw, raw.info.cmd.producer);
	ASSERT_GE((size_t)((char *)cmd_prod - (char *)raw.base), (size_t)page);

	EXPECT_EQ(0, write_faults(&hdr->magic, 0xdeadbeef));
	EXPECT_EQ(0, write_faults(&hdr->channels, 7));
	EXPECT_EQ(0, write_faults(&hdr->state, RTHS_STATE_RUNNING));
	EXPECT_EQ(1, write_faults(cmd_prod, 0));	/* a ring page */
	/* read-only, then writable again: the header stays read-only */
	ASSERT_EQ(0, mprotect(raw.base, raw.size, PROT_READ));
	ASSERT_EQ(0, mprotect(raw.base, raw.size, PROT_READ | PROT_WRITE));
	EXPECT_EQ(0, write_faults(&hdr->version, 99));
	EXPECT_EQ(1, write_faults(cmd_prod, 0));
	EXPECT_EQ(RTHS_MMAP_MAGIC, hdr->magic);
	EXPECT_EQ(RTHS_MMAP_VERSION, hdr->version);
	EXPECT_EQ(2u, hdr->channels);
	EXPECT_EQ(RTHS_STATE_STOPPED, hdr->state);
	/* and the device still runs */
	ASSERT_EQ(0, rt_start(&t));
	ASSERT_EQ(0, rt_tick(&t, 3));
	EXPECT_EQ(3u, hdr->tick);
	EXPECT_EQ(RTHS_STATE_RUNNING, hdr->state);
	/* observers still cannot make anything writable */
	ASSERT_EQ(0, rt_raw_map(&t, &obs, false));
	EXPECT_EQ(-1, mprotect(obs.base, obs.size, PROT_READ | PROT_WRITE));
	rt_raw_unmap(&obs);
	/* a private writable mapping would write nowhere: refused */
	EXPECT_EQ(MAP_FAILED, mmap(NULL, raw.size, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE, raw.fd, 0));
	rt_raw_unmap(&raw);
	rt_destroy(&t);
}

/*
 * The mapping's life: pages come back after MADV_DONTNEED, a moved
 * mapping (mremap) still maps the region and cannot grow, an mprotect()
 * round trip keeps the header read-only, and a forked child inherits no
 * mapping at all (so not the owner's writable command ring).
 */
TEST(mapping_survives_madvise_mremap_and_is_not_inherited)
{
	struct rths_mmap_header *hdr;
	struct rths_dev_config cfg;
	long page = sysconf(_SC_PAGESIZE);
	uint32_t *cmd_prod;
	struct rt_raw raw;
	void *moved;
	size_t off;
	pid_t pid;
	struct rt t;
	int st;

	memset(&t, 0, sizeof(t));
	rt_manual_config(&cfg, 4);
	ASSERT_EQ(0, rt_create(&t, "vma", 2, NULL, &cfg));
	ASSERT_EQ(0, rt_raw_map(&t, &raw, true));
	hdr = raw.base;
	cmd_prod = rt_raw_index(&raw, raw.info.cmd.producer);
	off = (char *)cmd_prod - (char *)raw.base;
	ASSERT_EQ(RTHS_MMAP_MAGIC, hdr->magic);
	*cmd_prod = 0;

	/* dropped pages fault in again, the same memory */
	ASSERT_EQ(0, madvise(raw.base, raw.size, MADV_DONTNEED));
	EXPECT_EQ(0, touch(&hdr->magic, 0, false));
	EXPECT_EQ(RTHS_MMAP_MAGIC, hdr->magic);
	EXPECT_EQ(2u, hdr->channels);
	EXPECT_EQ(1, write_faults(cmd_prod, 0));
	EXPECT_EQ(0, write_faults(&hdr->magic, 1));

	/* the kernel's writes show through the faulted-in pages */
	ASSERT_EQ(0, rt_start(&t));
	ASSERT_EQ(0, madvise(raw.base, raw.size, MADV_DONTNEED));
	ASSERT_EQ(0, rt_tick(&t, 3));
	EXPECT_EQ(3u, hdr->tick);
	EXPECT_EQ(RTHS_STATE_RUNNING, hdr->state);

	/* moved, it maps the same region; it cannot grow */
	moved = mremap(raw.base, raw.size, raw.size, MREMAP_MAYMOVE);
	ASSERT_NE(MAP_FAILED, moved);
	raw.base = moved;
	hdr = moved;
	cmd_prod = (uint32_t *)((char *)moved + off);
	EXPECT_EQ(RTHS_MMAP_MAGIC, hdr->magic);
	EXPECT_EQ(3u, hdr->tick);
	EXPECT_EQ(1, write_faults(cmd_prod, 0));
	EXPECT_EQ(0, write_faults(&hdr->state, 0));
	EXPECT_EQ(MAP_FAILED, mremap(raw.base, raw.size, raw.size + page,
				     MREMAP_MAYMOVE));

	/* mprotect() round trip after DONTNEED: the header stays the
	 * kernel's, the rings the owner's
	 */
	ASSERT_EQ(0, madvise(raw.base, raw.size, MADV_DONTNEED));
	ASSERT_EQ(0, mprotect(raw.base, raw.size, PROT_READ));
	EXPECT_EQ(0, write_faults(cmd_prod, 0));
	ASSERT_EQ(0, mprotect(raw.base, raw.size, PROT_READ | PROT_WRITE));
	EXPECT_EQ(0, write_faults(&hdr->version, 99));
	EXPECT_EQ(1, write_faults(cmd_prod, 0));
	EXPECT_EQ(RTHS_MMAP_VERSION, hdr->version);

	/* a child has no mapping there: reading it kills the child */
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		volatile uint32_t *p = cmd_prod;

		(void)*p;
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	EXPECT_TRUE(WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV) {
		TH_LOG("child status %#x", st);
	}
	/* and the parent's stays */
	EXPECT_EQ(1, write_faults(cmd_prod, 0));
	EXPECT_EQ(RTHS_MMAP_MAGIC, hdr->magic);
	rt_raw_unmap(&raw);
	rt_destroy(&t);
}

TEST_HARNESS_MAIN
