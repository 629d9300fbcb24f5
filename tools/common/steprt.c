// SPDX-License-Identifier: GPL-2.0
/* The step thread made real-time as an experiment's "realtime" says. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rths/device.h>

#include "steprt.h"

int steprt_loop_cpu(const struct rths_hs_experiment *x)
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

int steprt_enter(const struct rths_hs_experiment *x, bool device,
		 struct rths_rt_status *st, struct rths_error *err)
{
	const struct rths_hs_realtime_config *rt = &x->realtime;
	struct rths_rt_config c;

	memset(st, 0, sizeof(*st));
	st->lock = st->heap = st->stack = st->policy = st->affinity = 1;
	st->cpu = -1;
	if (!rt->enabled)
		return 0;
	rths_rt_config_default(&c, sizeof(c), device ? steprt_loop_cpu(x) : -1);
	c.flags = (rt->lock_memory ? RTHS_RT_LOCK : 0) |
		  (rt->required ? RTHS_RT_REQUIRED : 0);
	c.priority = rt->priority;
	c.cpu = rt->cpu;
	c.stack_prefault = (size_t)rt->stack_kib << 10;
	c.heap_prefault = (size_t)rt->heap_kib << 10;
	return rths_rt_enter(&c, sizeof(c), st, sizeof(*st), err);
}

void steprt_warn(const struct rths_rt_status *st,
		 void (*say)(void *ctx, const char *line), void *ctx)
{
	const struct { int r; const char *what; } items[] = {
		{ st->lock, "cannot lock memory" },
		{ st->heap, "cannot prefault the heap" },
		{ st->stack, "cannot prefault the stack" },
		{ st->policy, "cannot set SCHED_FIFO" },
		{ st->affinity, "cannot pin the step thread to a CPU" },
	};
	char line[512];

	for (size_t i = 0; i < sizeof(items) / sizeof(items[0]); i++) {
		if (items[i].r >= 0)
			continue;
		if (items[i].r == -EXDEV)
			snprintf(line, sizeof(line),
				 "note: one CPU only: the step thread shares it with the kernel loop");
		else
			snprintf(line, sizeof(line),
				 "warning: real-time: %s: %s", items[i].what,
				 rths_strerror(items[i].r));
		say(ctx, line);
	}
	if (st->advice[0]) {
		snprintf(line, sizeof(line), "warning: real-time: %s",
			 st->advice);
		say(ctx, line);
	}
}
