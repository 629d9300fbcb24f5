// SPDX-License-Identifier: GPL-2.0
/*
 * Where the live view's threads run (live.h, live_place()): at
 * SCHED_IDLE (nice 19 where that cannot be had), off the step thread's
 * CPU and the kernel loop's.  Each thread places itself when it wakes
 * (the view thread each tick, the server's threads on each connection and
 * read), so the step thread never signals or waits for one of them.
 */
#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>

#include "live.h"

void live_place_init(struct live_place *p)
{
	pthread_mutex_init(&p->lock, NULL);
	if (sched_getaffinity(0, sizeof(p->allowed), &p->allowed))
		CPU_ZERO(&p->allowed);
	p->set = p->allowed;
	atomic_init(&p->gen, 1);
}

void live_place_destroy(struct live_place *p)
{
	pthread_mutex_destroy(&p->lock);
}

void live_place_set(struct live_place *p, int step_cpu, int loop_cpu)
{
	cpu_set_t set = p->allowed;

	if (step_cpu >= 0 && step_cpu < CPU_SETSIZE)
		CPU_CLR(step_cpu, &set);
	if (loop_cpu >= 0 && loop_cpu < CPU_SETSIZE && loop_cpu != step_cpu) {
		cpu_set_t both = set;

		CPU_CLR(loop_cpu, &both);
		/* two CPUs: the loop's, where a SCHED_IDLE thread runs only
		 * while the loop sleeps, rather than the step thread's */
		if (CPU_COUNT(&both))
			set = both;
	}
	/* one CPU: it is the only place there is */
	if (!CPU_COUNT(&set))
		set = p->allowed;
	pthread_mutex_lock(&p->lock);
	p->set = set;
	pthread_mutex_unlock(&p->lock);
	atomic_fetch_add_explicit(&p->gen, 1, memory_order_release);
}

void live_place_self(struct live_place *p)
{
	/* the placement this thread last took; 0: none yet */
	static _Thread_local unsigned int seen;
	unsigned int gen = atomic_load_explicit(&p->gen, memory_order_acquire);
	struct sched_param sp = { 0 };
	cpu_set_t set;

	if (gen == seen)
		return;
	if (!seen && pthread_setschedparam(pthread_self(), SCHED_IDLE, &sp))
		setpriority(PRIO_PROCESS, 0, 19);	/* this thread's, on Linux */
	seen = gen;
	pthread_mutex_lock(&p->lock);
	set = p->set;
	pthread_mutex_unlock(&p->lock);
	if (CPU_COUNT(&set))
		sched_setaffinity(0, sizeof(set), &set);
}
