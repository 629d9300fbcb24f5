/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * librths real-time userspace: make the calling thread fit to compute a
 * test's next command, in one call, and read what the thread went through.
 *
 * The kernel loop of a device runs on a SCHED_FIFO thread (priority 80 by
 * default, DEV_SET priority) bound to one CPU (DEV_SET cpu, by default the
 * last online CPU; struct rths_dev_info.cpu).  The program that computes
 * the next command is the other half of the real-time path: unless it is
 * locked in memory and scheduled above normal tasks, a page fault or any
 * normal task can delay a step.  rths_rt_enter() does what the rt-wiki's
 * "HOWTO build a simple RT application" does, in this order:
 *
 *   1. mlockall(MCL_CURRENT | MCL_FUTURE)         (RTHS_RT_LOCK)
 *   2. malloc stays: mallopt(M_TRIM_THRESHOLD, -1), mallopt(M_MMAP_MAX,
 *      0), then @heap_prefault bytes malloc'ed, touched and freed, so
 *      that later allocations reuse resident memory (a process-wide
 *      setting of the C library's allocator)
 *   3. @stack_prefault bytes of the calling thread's stack touched
 *   4. SCHED_FIFO at @priority for the calling thread, with
 *      SCHED_RESET_ON_FORK so that programs it starts run normally
 *   5. the calling thread pinned to @cpu, or with RTHS_RT_CPU_AUTO to the
 *      highest-numbered online CPU of its current affinity other than
 *      @avoid_cpu (pass the kernel loop's CPU); none if that is the only
 *      one (status cpu -1, affinity -EXDEV)
 *
 * Each item's outcome is in the status: 0 done, 1 not asked, a negative
 * code if it could not be done.  A privilege refused (-EPERM, -ENOMEM
 * from mlockall) is what an unprivileged user gets without the limits
 * rths ships (limits/90-rths.conf: group rths, rtprio 79, memlock
 * unlimited); @advice then says which limit to raise.  Without
 * RTHS_RT_REQUIRED the call still returns 0 and the caller warns; with it
 * the first item refused is the call's error, and @err (may be NULL) says
 * what and how to get it.  -EINVAL for a bad argument.  The call never
 * prints.
 *
 * The structs are size-tagged (librths.rst, "ABI policy"): pass the size
 * of the struct you were compiled with; clear them before filling in.
 */
#ifndef RTHS_RT_H
#define RTHS_RT_H

/* librths is built with -fvisibility=hidden: this is its API. */
#pragma GCC visibility push(default)

#include <rths/error.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum rths_rt_flag {
	RTHS_RT_LOCK = 1u << 0,		/* mlockall(MCL_CURRENT | MCL_FUTURE) */
	RTHS_RT_REQUIRED = 1u << 1,	/* an item refused is an error */
};

/* struct rths_rt_config.cpu */
#define RTHS_RT_CPU_AUTO (-1)		/* another CPU than avoid_cpu */
#define RTHS_RT_CPU_NONE (-2)		/* leave the affinity alone */

/* The kernel loop's priority less one: what limits/90-rths.conf allows. */
#define RTHS_RT_PRIORITY_DEFAULT 70

struct rths_rt_config {
	unsigned int flags;		/* RTHS_RT_* */
	int priority;			/* SCHED_FIFO 1..99; 0: leave the policy */
	int cpu;			/* a CPU, RTHS_RT_CPU_AUTO or _NONE */
	int avoid_cpu;			/* for AUTO: the kernel loop's CPU, -1 none */
	size_t stack_prefault;		/* bytes of stack to touch, <= 64 MiB */
	size_t heap_prefault;		/* bytes of heap to touch and keep; 0: none */
	/* new fields go here */
};

struct rths_rt_status {
	/* each item: 0 done, 1 not asked, negative: why it was not done */
	int lock, heap, stack, policy, affinity;
	bool memory_locked;		/* mlockall() succeeded */
	int sched_policy;		/* SCHED_* the thread has now */
	int sched_priority;		/* its priority */
	int cpu;			/* the CPU it is pinned to, -1 if none */
	int cpus;			/* online CPUs of its affinity before */
	/* what to do about what was refused ("" if nothing was) */
	char advice[256];
	/* for rths_rt_leave(): the affinity before, CPU i at bit i % 64
	 * of word i / 64 */
	uint64_t affinity_before[16];
	/* new fields go here */
};

/* What a thread went through (getrusage(RUSAGE_THREAD)) and how it is
 * scheduled now: take it at the first and the last step of a loop. */
struct rths_rt_counters {
	uint64_t minor_faults;		/* ru_minflt */
	uint64_t major_faults;		/* ru_majflt */
	uint64_t voluntary_switches;	/* ru_nvcsw */
	uint64_t involuntary_switches;	/* ru_nivcsw */
	int sched_policy;		/* SCHED_* */
	int sched_priority;
	int cpu;			/* where it runs now (sched_getcpu()) */
	/* new fields go here */
};

/* as in device.h */
#ifndef RTHS_END_OF
#define RTHS_END_OF(type, member) \
	(offsetof(type, member) + sizeof(((type *)0)->member))
#endif
#define RTHS_RT_CONFIG_SIZE_VER0 \
	RTHS_END_OF(struct rths_rt_config, heap_prefault)
#define RTHS_RT_STATUS_SIZE_VER0 \
	RTHS_END_OF(struct rths_rt_status, affinity_before)
#define RTHS_RT_COUNTERS_SIZE_VER0 \
	RTHS_END_OF(struct rths_rt_counters, cpu)

/* The defaults a lab wants: lock, priority RTHS_RT_PRIORITY_DEFAULT, CPU
 * auto avoiding @avoid_cpu, 512 KiB of stack, 16 MiB of heap. */
void rths_rt_config_default(struct rths_rt_config *cfg, size_t cfg_size,
			    int avoid_cpu);

/* Make the calling thread real-time (above); @st (@st_size bytes) gets
 * every item's outcome and may be NULL. */
int rths_rt_enter(const struct rths_rt_config *cfg, size_t cfg_size,
		  struct rths_rt_status *st, size_t st_size,
		  struct rths_error *err);

/* Back to SCHED_OTHER and to the affinity the thread had before
 * rths_rt_enter() (as @st says); the memory stays locked. */
int rths_rt_leave(const struct rths_rt_status *st, size_t st_size);

/* The calling thread's counters and scheduling. */
int rths_rt_counters(struct rths_rt_counters *c, size_t size);

/* "SCHED_FIFO", "SCHED_OTHER"...; NULL for an unknown policy. */
const char *rths_rt_policy_name(int policy);

#ifdef __cplusplus
}
#endif

#pragma GCC visibility pop

#endif /* RTHS_RT_H */
