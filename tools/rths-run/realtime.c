// SPDX-License-Identifier: GPL-2.0
/* rths-run: the step thread made real-time, and what it went through. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rths/device.h>

#include "rths-run.h"

/* The kernel loop's CPU: device.cpu, else what the device reports. */
static int loop_cpu(const struct rths_hs_experiment *x)
{
	struct rths_dev_info info;
	struct rths_ctl *ctl;
	int cpu = -1;

	if (x->device.set & RTHS_HS_DEV_CPU)
		return (int)x->device.cpu;
	if (rths_ctl_open(&ctl))
		return -1;
	if (rths_dev_get(ctl, x->device.name, &info, sizeof(info)) == 0)
		cpu = (int)info.cpu;
	rths_ctl_close(ctl);
	return cpu;
}

int step_thread_enter(const struct rths_hs_experiment *x, bool device,
		      struct step_thread *t, struct rths_error *err)
{
	const struct rths_hs_realtime_config *rt = &x->realtime;
	struct rths_rt_config c;
	int r;

	memset(t, 0, sizeof(*t));
	if (!rt->enabled)
		return 0;
	rths_rt_config_default(&c, sizeof(c), device ? loop_cpu(x) : -1);
	c.flags = (rt->lock_memory ? RTHS_RT_LOCK : 0) |
		  (rt->required ? RTHS_RT_REQUIRED : 0);
	c.priority = rt->priority;
	c.cpu = rt->cpu;
	c.stack_prefault = (size_t)rt->stack_kib << 10;
	c.heap_prefault = (size_t)rt->heap_kib << 10;
	r = rths_rt_enter(&c, sizeof(c), &t->st, sizeof(t->st), err);
	if (r < 0)
		return r;
	t->entered = true;
	return 0;
}

void step_thread_warn(const struct step_thread *t)
{
	const struct { int r; const char *what; } items[] = {
		{ t->st.lock, "cannot lock memory" },
		{ t->st.heap, "cannot prefault the heap" },
		{ t->st.stack, "cannot prefault the stack" },
		{ t->st.policy, "cannot set SCHED_FIFO" },
		{ t->st.affinity, "cannot pin the step thread to a CPU" },
	};

	if (!t->entered)
		return;
	for (size_t i = 0; i < sizeof(items) / sizeof(items[0]); i++) {
		if (items[i].r >= 0)
			continue;
		if (items[i].r == -EXDEV)
			fprintf(stderr, "rths-run: note: one CPU only: the step thread shares it with the kernel loop\n");
		else
			fprintf(stderr, "rths-run: warning: real-time: %s: %s\n",
				items[i].what, rths_strerror(items[i].r));
	}
	if (t->st.advice[0])
		fprintf(stderr, "rths-run: warning: real-time: %s\n",
			t->st.advice);
}

void step_thread_progress(void *ctx, uint64_t step, uint64_t steps)
{
	struct step_thread *t = ctx;

	if (step == 1 && !t->has_first)
		t->has_first = rths_rt_counters(&t->first,
						sizeof(t->first)) == 0;
	if (step == steps && !t->has_last)
		t->has_last = rths_rt_counters(&t->last,
					       sizeof(t->last)) == 0;
	if (t->chain)
		t->chain(t->chain_ctx, step, steps);
}

void step_thread_leave(struct step_thread *t)
{
	/* an interrupted or failed run: its last step was before now */
	if (t->has_first && !t->has_last)
		t->has_last = rths_rt_counters(&t->last,
					       sizeof(t->last)) == 0;
	if (t->entered)
		rths_rt_leave(&t->st, sizeof(t->st));
}
