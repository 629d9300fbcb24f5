// SPDX-License-Identifier: GPL-2.0
/* rths-run: the step thread made real-time, and what it went through. */
#include <stdio.h>
#include <string.h>

#include "rths-run.h"
#include "../common/steprt.h"

int step_thread_enter(const struct rths_hs_experiment *x, bool device,
		      struct step_thread *t, struct rths_error *err)
{
	int r;

	memset(t, 0, sizeof(*t));
	r = steprt_enter(x, device, &t->st, err);
	t->entered = r == 0 && x->realtime.enabled;
	return r;
}

static void say(void *ctx, const char *line)
{
	(void)ctx;
	fprintf(stderr, "rths-run: %s\n", line);
}

void step_thread_warn(const struct step_thread *t)
{
	if (t->entered)
		steprt_warn(&t->st, say, NULL);
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
