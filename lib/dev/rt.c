// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Real-time userspace (<rths/rt.h>): lock, prefault, SCHED_FIFO and a CPU
 * for the thread that computes the next command; its fault and switch
 * counters.
 */
#include <alloca.h>
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <rths/rt.h>

#include "dev/internal.h"

#define STACK_PREFAULT_MAX (64u << 20)
#define AFFINITY_WORDS \
	(sizeof(((struct rths_rt_status *)0)->affinity_before) / sizeof(uint64_t))

_Static_assert(RTHS_RT_CONFIG_SIZE_VER0 == sizeof(struct rths_rt_config) &&
	       RTHS_RT_STATUS_SIZE_VER0 <= sizeof(struct rths_rt_status) &&
	       RTHS_RT_COUNTERS_SIZE_VER0 <= sizeof(struct rths_rt_counters),
	       "a published size is larger than its struct");

/* What an unprivileged user lacks, and where rths grants it. */
#define LIMITS_HOW "add the user to group rths (limits/90-rths.conf, installed as /etc/security/limits.d/90-rths.conf) and log in again"

void rths_rt_config_default(struct rths_rt_config *cfg, size_t cfg_size,
			    int avoid_cpu)
{
	struct rths_rt_config c = {
		.flags = RTHS_RT_LOCK,
		.priority = RTHS_RT_PRIORITY_DEFAULT,
		.cpu = RTHS_RT_CPU_AUTO,
		.avoid_cpu = avoid_cpu,
		.stack_prefault = 512u << 10,
		.heap_prefault = 16u << 20,
	};

	if (!cfg || cfg_size < RTHS_RT_CONFIG_SIZE_VER0)
		return;
	memset(cfg, 0, cfg_size);
	memcpy(cfg, &c, cfg_size < sizeof(c) ? cfg_size : sizeof(c));
}

/* Touch @n bytes of this thread's stack below the caller's frame. */
static __attribute__((noinline)) void stack_touch(size_t n)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	volatile unsigned char *p = alloca(n);

	for (size_t i = 0; i < n; i += page)
		p[i] = 0;
	if (n)
		p[n - 1] = 0;
}

/* -E2BIG if @n bytes would take most of this thread's stack. */
static int stack_fits(size_t n)
{
	pthread_attr_t a;
	size_t size = 0;

	if (pthread_getattr_np(pthread_self(), &a) == 0) {
		pthread_attr_getstacksize(&a, &size);
		pthread_attr_destroy(&a);
	}
	return size && n > size / 2 ? -E2BIG : 0;
}

/* malloc's memory stays in the process, then @n bytes touched. */
static int heap_touch(size_t n)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	unsigned char *p;

	/* best effort: an allocator that ignores mallopt() (ASan's) still
	 * gets its memory touched */
	mallopt(M_TRIM_THRESHOLD, -1);
	mallopt(M_MMAP_MAX, 0);
	p = malloc(n);
	if (!p)
		return -ENOMEM;
	for (size_t i = 0; i < n; i += page)
		((volatile unsigned char *)p)[i] = 0;
	free(p);
	return 0;
}

/* The highest online CPU of @set other than @avoid; -1 if none. */
static int pick_cpu(const cpu_set_t *set, int avoid)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);

	for (int c = (int)(n < CPU_SETSIZE ? n : CPU_SETSIZE) - 1; c >= 0; c--)
		if (c != avoid && CPU_ISSET(c, set))
			return c;
	return -1;
}

/* Note @what in the advice, once. */
static void advise(struct rths_rt_status *st, const char *what)
{
	size_t n = strlen(st->advice);

	if (strstr(st->advice, what))
		return;
	snprintf(st->advice + n, sizeof(st->advice) - n, "%s%s",
		 n ? "; " : "", what);
}

static int do_lock(const struct rths_rt_config *c, struct rths_rt_status *st)
{
	if (!(c->flags & RTHS_RT_LOCK))
		return 1;
	if (mlockall(MCL_CURRENT | MCL_FUTURE) == 0) {
		st->memory_locked = true;
		return 0;
	}
	if (errno == ENOMEM || errno == EPERM)
		advise(st, "raise RLIMIT_MEMLOCK (memlock)");
	return -errno;
}

static int do_policy(const struct rths_rt_config *c, struct rths_rt_status *st)
{
	struct sched_param sp = { .sched_priority = c->priority };

	if (!c->priority)
		return 1;
	if (sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &sp) == 0)
		return 0;
	if (errno == EPERM) {
		struct rlimit rl;
		char what[96];

		if (getrlimit(RLIMIT_RTPRIO, &rl) == 0 &&
		    rl.rlim_cur != RLIM_INFINITY)
			snprintf(what, sizeof(what),
				 "raise RLIMIT_RTPRIO (rtprio, now %llu) to %d",
				 (unsigned long long)rl.rlim_cur, c->priority);
		else
			snprintf(what, sizeof(what), "raise RLIMIT_RTPRIO (rtprio)");
		advise(st, what);
	}
	return -errno;
}

static int do_affinity(const struct rths_rt_config *c,
		       struct rths_rt_status *st, const cpu_set_t *before)
{
	cpu_set_t set;
	int cpu = c->cpu;

	if (cpu == RTHS_RT_CPU_NONE)
		return 1;
	if (cpu == RTHS_RT_CPU_AUTO) {
		cpu = pick_cpu(before, c->avoid_cpu);
		/* one CPU only: pinning adds nothing */
		if (cpu < 0 || st->cpus < 2)
			return -EXDEV;
	}
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) < 0)
		return -errno;
	st->cpu = cpu;
	return 0;
}

/* The first refused item, in the order they were tried. */
static int first_failure(const struct rths_rt_status *st, const char **what)
{
	const struct { int r; const char *what; } items[] = {
		{ st->lock, "lock memory (mlockall)" },
		{ st->heap, "prefault the heap" },
		{ st->stack, "prefault the stack" },
		{ st->policy, "set SCHED_FIFO" },
		{ st->affinity, "pin to a CPU" },
	};

	for (size_t i = 0; i < sizeof(items) / sizeof(items[0]); i++)
		if (items[i].r < 0) {
			*what = items[i].what;
			return items[i].r;
		}
	return 0;
}

int rths_rt_enter(const struct rths_rt_config *cfg, size_t cfg_size,
		  struct rths_rt_status *out, size_t out_size,
		  struct rths_error *err)
{
	struct rths_rt_status st = { .cpu = -1 };
	struct rths_rt_config c;
	struct rths_err e = { .attr = 0 };
	struct sched_param sp;
	cpu_set_t before;
	const char *what;
	int r;

	r = rths_copy_in(&c, sizeof(c), cfg, cfg_size,
			 RTHS_RT_CONFIG_SIZE_VER0, "rths_rt_config", &e);
	if (r == 0 && (c.flags & ~(unsigned int)(RTHS_RT_LOCK |
						  RTHS_RT_REQUIRED)))
		r = rths_err_set(&e, -EINVAL, "unknown flags %#x", c.flags);
	if (r == 0 && (c.priority < 0 || c.priority > 99))
		r = rths_err_set(&e, -EINVAL, "priority %d: expected 0 to 99",
				 c.priority);
	if (r == 0 && (c.cpu < RTHS_RT_CPU_NONE || c.cpu >= CPU_SETSIZE))
		r = rths_err_set(&e, -EINVAL, "cpu %d: no such CPU", c.cpu);
	if (r == 0 && c.stack_prefault > STACK_PREFAULT_MAX)
		r = rths_err_set(&e, -EINVAL,
				 "stack_prefault %zu: at most %u bytes",
				 c.stack_prefault, STACK_PREFAULT_MAX);
	if (r == 0 && out && out_size < RTHS_RT_STATUS_SIZE_VER0)
		r = rths_err_set(&e, -EINVAL,
				 "struct rths_rt_status: size %zu is below the first published size (%zu)",
				 out_size, (size_t)RTHS_RT_STATUS_SIZE_VER0);
	if (r < 0)
		return rths_error_set(err, r, NULL, 0, NULL, "%s", e.msg);

	CPU_ZERO(&before);
	if (sched_getaffinity(0, sizeof(before), &before) < 0)
		return rths_error_set(err, errno, NULL, 0, NULL,
				      "sched_getaffinity: %s",
				      rths_strerror(errno));
	st.cpus = CPU_COUNT(&before);
	for (int i = 0; i < CPU_SETSIZE && i < (int)AFFINITY_WORDS * 64; i++)
		if (CPU_ISSET(i, &before))
			st.affinity_before[i / 64] |= 1ull << (i % 64);

	st.lock = do_lock(&c, &st);
	st.heap = c.heap_prefault ? heap_touch(c.heap_prefault) : 1;
	st.stack = c.stack_prefault ? stack_fits(c.stack_prefault) : 1;
	if (st.stack == 0)
		stack_touch(c.stack_prefault);
	st.policy = do_policy(&c, &st);
	st.affinity = do_affinity(&c, &st, &before);
	if (st.advice[0])
		advise(&st, LIMITS_HOW);
	st.sched_policy = sched_getscheduler(0) & ~SCHED_RESET_ON_FORK;
	st.sched_priority = sched_getparam(0, &sp) == 0 ? sp.sched_priority : 0;
	if (out)
		rths_copy_out(out, out_size, &st, sizeof(st),
			      RTHS_RT_STATUS_SIZE_VER0, "rths_rt_status", &e);
	r = first_failure(&st, &what);
	/* one CPU is not a failure: there is nowhere else to go */
	if (r == 0 || r == -EXDEV || !(c.flags & RTHS_RT_REQUIRED))
		return 0;
	return rths_error_set(err, r, NULL, 0, NULL, "cannot %s: %s%s%s",
			      what, rths_strerror(r), st.advice[0] ? ": " : "",
			      st.advice);
}

int rths_rt_leave(const struct rths_rt_status *in, size_t in_size)
{
	struct sched_param sp = { .sched_priority = 0 };
	struct rths_rt_status st;
	struct rths_err e;
	cpu_set_t set;
	int r;

	r = rths_copy_in(&st, sizeof(st), in, in_size,
			 RTHS_RT_STATUS_SIZE_VER0, "rths_rt_status", &e);
	if (r < 0)
		return r;
	if (sched_setscheduler(0, SCHED_OTHER, &sp) < 0)
		return -errno;
	if (st.affinity != 0)
		return 0;
	CPU_ZERO(&set);
	for (int i = 0; i < CPU_SETSIZE && i < (int)AFFINITY_WORDS * 64; i++)
		if (st.affinity_before[i / 64] & (1ull << (i % 64)))
			CPU_SET(i, &set);
	return sched_setaffinity(0, sizeof(set), &set) < 0 ? -errno : 0;
}

int rths_rt_counters(struct rths_rt_counters *out, size_t size)
{
	struct rths_rt_counters c = { 0 };
	struct sched_param sp;
	struct rusage ru;
	struct rths_err e;

	if (getrusage(RUSAGE_THREAD, &ru) < 0)
		return -errno;
	c.minor_faults = (uint64_t)ru.ru_minflt;
	c.major_faults = (uint64_t)ru.ru_majflt;
	c.voluntary_switches = (uint64_t)ru.ru_nvcsw;
	c.involuntary_switches = (uint64_t)ru.ru_nivcsw;
	c.sched_policy = sched_getscheduler(0) & ~SCHED_RESET_ON_FORK;
	c.sched_priority = sched_getparam(0, &sp) == 0 ? sp.sched_priority : 0;
	c.cpu = sched_getcpu();
	return rths_copy_out(out, size, &c, sizeof(c),
			     RTHS_RT_COUNTERS_SIZE_VER0, "rths_rt_counters",
			     &e);
}

const char *rths_rt_policy_name(int policy)
{
	switch (policy & ~SCHED_RESET_ON_FORK) {
	case SCHED_OTHER: return "SCHED_OTHER";
	case SCHED_FIFO: return "SCHED_FIFO";
	case SCHED_RR: return "SCHED_RR";
	case SCHED_BATCH: return "SCHED_BATCH";
	case SCHED_IDLE: return "SCHED_IDLE";
#ifdef SCHED_DEADLINE
	case SCHED_DEADLINE: return "SCHED_DEADLINE";
#endif
	default: return NULL;
	}
}
