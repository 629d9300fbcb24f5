// SPDX-License-Identifier: LGPL-2.1-or-later
/* The experiment file's "realtime" section: the step thread. */
#include <stdio.h>
#include <string.h>

#include "files/experiment_impl.h"

static int uint_field(const struct rths_hs_jctx *c, json_t *rt,
		      const char *key, unsigned long long lo,
		      unsigned long long hi, uint32_t *out)
{
	unsigned long long v;
	int r = rths_hs_juint(c, rt, "realtime", key, false, lo, hi, &v);

	if (r == 0)
		*out = (uint32_t)v;
	return r < 0 ? r : 0;
}

/* "cpu": "auto" or a CPU number. */
static int cpu_field(const struct rths_hs_jctx *c, json_t *rt, int *cpu)
{
	json_t *v = json_object_get(rt, "cpu");
	uint32_t n = 0;
	int r;

	if (!v || (json_is_string(v) && !strcmp(json_string_value(v), "auto")))
		return 0;
	if (json_is_string(v))
		return rths_hs_jfail(c, RTHS_E_BAD_CHOICE, "realtime.cpu",
				     "expected \"auto\" or a CPU number, got \"%s\"",
				     json_string_value(v));
	r = uint_field(c, rt, "cpu", 0, 4095, &n);
	if (r == 0)
		*cpu = (int)n;
	return r;
}

int rths_hs_exp_realtime(const struct rths_hs_jctx *c, json_t *root,
			 struct rths_hs_experiment *x)
{
	static const char *const keys[] = {
		"enabled", "priority", "cpu", "lock_memory", "required",
		"stack_kib", "heap_kib", NULL,
	};
	struct rths_hs_realtime_config *rt = &x->realtime;
	const struct rths_hs_device_config *d = &x->device;
	uint32_t prio = RTHS_RT_PRIORITY_DEFAULT, loop;
	json_t *o;
	int r;

	rt->enabled = d->backend == RTHS_HS_BACKEND_DEVICE;
	rt->lock_memory = true;
	rt->cpu = RTHS_RT_CPU_AUTO;
	rt->stack_kib = 512;
	rt->heap_kib = 16384;
	r = rths_hs_jobject(c, root, "", "realtime", false, &o);
	if (r == 0) {
		if ((r = rths_hs_jkeys(c, o, "realtime", keys)) ||
		    (r = rths_hs_jbool(c, o, "realtime", "enabled",
				       &rt->enabled)) < 0 ||
		    (r = rths_hs_jbool(c, o, "realtime", "lock_memory",
				       &rt->lock_memory)) < 0 ||
		    (r = rths_hs_jbool(c, o, "realtime", "required",
				       &rt->required)) < 0 ||
		    (r = uint_field(c, o, "priority", 1, 99, &prio)) ||
		    (r = cpu_field(c, o, &rt->cpu)) ||
		    (r = uint_field(c, o, "stack_kib", 0, 65536,
				    &rt->stack_kib)) ||
		    (r = uint_field(c, o, "heap_kib", 0, 1u << 22,
				    &rt->heap_kib)))
			return r < 0 ? r : 0;
	} else if (r < 0) {
		return r;
	}
	rt->priority = (int)prio;
	/* The kernel loop must keep the CPU it shares with the step. */
	loop = d->set & RTHS_HS_DEV_PRIORITY ? d->priority :
	       RTHS_HS_LOOP_PRIORITY_DEFAULT;
	if (rt->enabled && prio >= loop)
		return rths_hs_jfail(c, RTHS_E_CONFLICT, "realtime.priority",
				     "%u is not below the kernel loop's priority %u (device.priority): the step thread would preempt the loop it feeds",
				     prio, loop);
	if (rt->enabled && rt->cpu >= 0 && (d->set & RTHS_HS_DEV_CPU) &&
	    (uint32_t)rt->cpu == d->cpu)
		return rths_hs_jfail(c, RTHS_E_CONFLICT, "realtime.cpu",
				     "%d is the kernel loop's CPU (device.cpu): give the step thread another one, or \"auto\"",
				     rt->cpu);
	return 0;
}
