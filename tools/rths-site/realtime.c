// SPDX-License-Identifier: GPL-2.0
/*
 * rths-site: the site's one thread runs every step of its device
 * substructures, so the first device substructure that opens its device
 * makes it real-time as its "realtime" section says (rths_rt_enter()),
 * once per process; --no-realtime leaves it alone.
 */
#include <stdbool.h>

#include "site.h"
#include "../common/steprt.h"

int site_realtime = 1;
int site_step_cpu = -1;

static void say(void *ctx, const char *line)
{
	site_log(LOG_WARN, "%s: %s", (const char *)ctx, line);
}

int site_realtime_enter(const struct substructure *sub,
			struct rths_error *err)
{
	static bool entered;
	struct rths_rt_status st;
	int r;

	if (!site_realtime || entered || !sub->dev->realtime.enabled)
		return 0;
	r = steprt_enter(sub->dev, true, &st, err);
	if (r < 0)
		return r;
	entered = true;
	site_step_cpu = st.cpu;
	steprt_warn(&st, say, sub->name);
	site_log(LOG_INFO, "%s: step thread %s %d on CPU %d, memory %slocked",
		 sub->name,
		 rths_rt_policy_name(st.sched_policy) ?: "?", st.sched_priority,
		 st.cpu, st.memory_locked ? "" : "not ");
	return 0;
}
