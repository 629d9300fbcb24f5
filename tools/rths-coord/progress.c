// SPDX-License-Identifier: GPL-2.0
/*
 * The progress line: step, time, step rate and each site's mean round
 * trip since the line before.  Rewritten in place on a terminal, else one
 * line at most every 2 s (a log file stays readable), on completed steps.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "coord.h"

#define TTY_EVERY_NS 200000000LL
#define LOG_EVERY_NS 2000000000LL

void progress_init(struct progress *p, bool on, double dt,
		   struct rths_hs_backend *b, const struct coord_config *cc)
{
	memset(p, 0, sizeof(*p));
	p->on = on;
	p->tty = isatty(STDERR_FILENO);
	p->dt = dt;
	p->b = b;
	p->cc = cc;
	p->start_ns = p->last_ns = coord_now_ns();
}

void progress_update(void *ctx, uint64_t step, uint64_t steps)
{
	struct progress *p = ctx;
	int64_t now = coord_now_ns();
	char line[1024];
	size_t n;

	if (!p->on || (now - p->last_ns < (p->tty ? TTY_EVERY_NS : LOG_EVERY_NS) &&
		       step != steps))
		return;
	n = (size_t)snprintf(line, sizeof(line),
			     "step %llu/%llu  t %.3f s  %.1f steps/s",
			     (unsigned long long)step, (unsigned long long)steps,
			     (double)step * p->dt,
			     (double)(step - p->last_step) * 1e9 /
			     (double)(now - p->last_ns > 0 ? now - p->last_ns : 1));
	for (size_t i = 0; i < p->cc->n_sites && n < sizeof(line) - 64; i++) {
		double rtt = coord_take_rtt(p->b, i);

		if (rtt >= 0)
			n += (size_t)snprintf(line + n, sizeof(line) - n,
					      "  %s %.2f ms",
					      p->cc->sites[i].name, rtt * 1e3);
		else
			n += (size_t)snprintf(line + n, sizeof(line) - n,
					      "  %s -", p->cc->sites[i].name);
	}
	if (p->tty)
		fprintf(stderr, "\r\033[K%s", line);
	else
		fprintf(stderr, "%s\n", line);
	p->last_ns = now;
	p->last_step = step;
}

void progress_done(struct progress *p)
{
	if (p->on && p->tty)
		fputc('\n', stderr);
}
