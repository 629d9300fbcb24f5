// SPDX-License-Identifier: GPL-2.0
/* rths-run: a one-line progress bar, only on a terminal. */
#include <stdio.h>
#include <unistd.h>

#include "rths-run.h"

#define WIDTH 40

void progress_init(struct progress *p, bool wanted, double dt)
{
	p->on = wanted && isatty(STDERR_FILENO);
	p->dt = dt;
	p->last_pct = 101;
}

void progress_update(void *ctx, uint64_t step, uint64_t steps)
{
	struct progress *p = ctx;
	uint64_t pct = steps ? step * 100 / steps : 100;
	char bar[WIDTH + 1];

	if (!p->on || pct == p->last_pct)
		return;
	p->last_pct = pct;
	for (int i = 0; i < WIDTH; i++)
		bar[i] = (uint64_t)i < pct * WIDTH / 100 ? '#' : '.';
	bar[WIDTH] = '\0';
	fprintf(stderr, "\r[%s] %3llu%%  t = %7.2f / %.2f s  step %llu/%llu",
		bar, (unsigned long long)pct, step * p->dt, steps * p->dt,
		(unsigned long long)step, (unsigned long long)steps);
	fflush(stderr);
}

void progress_done(struct progress *p)
{
	if (p->on && p->last_pct <= 100)
		fputc('\n', stderr);
}
