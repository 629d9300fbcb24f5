// SPDX-License-Identifier: GPL-2.0
/* Identical log lines, rate-limited (ratelimit.h). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "ratelimit.h"

#define DEFAULT_WINDOW 10000000000LL	/* 10 s */

static int64_t window(const struct ratelimit *rl)
{
	return rl->window > 0 ? rl->window : DEFAULT_WINDOW;
}

/* 1204 -> "1,204" */
static void thousands(char *out, size_t len, uint64_t v)
{
	char d[24];
	size_t n = (size_t)snprintf(d, sizeof(d), "%" PRIu64, v), o = 0;

	for (size_t i = 0; i < n && o + 1 < len; i++) {
		if (i && (n - i) % 3 == 0 && o + 2 < len)
			out[o++] = ',';
		out[o++] = d[i];
	}
	out[o] = '\0';
}

/* The note of a slot's held lines, and the slot's count reset. */
static void note_of(struct ratelimit_slot *s, char *note, size_t len)
{
	char count[32];
	double secs = (double)(s->last - s->since) / 1e9;

	thousands(count, sizeof(count), s->held);
	snprintf(note, len, "\"%.200s\" repeated %s time%s in %.3g s",
		 s->line, count, s->held == 1 ? "" : "s",
		 secs < 1 ? 1 : secs);
	s->held = 0;
}

int ratelimit_line(struct ratelimit *rl, const char *line, int64_t now,
		   char *note, size_t len)
{
	struct ratelimit_slot *s, *take = NULL;

	if (len)
		note[0] = '\0';
	for (s = rl->slot; s < rl->slot + RATELIMIT_SLOTS; s++) {
		if (!s->since || strncmp(s->line, line, RATELIMIT_LINE - 1))
			continue;
		if (now - s->since < window(rl)) {
			s->held++;
			s->last = now;
			return 0;
		}
		/* The window is over: the count, then the line, anew. */
		if (s->held)
			note_of(s, note, len);
		s->since = now;
		s->last = now;
		return 1;
	}
	/* A new line takes a free slot, else the one quiet the longest. */
	for (s = rl->slot; s < rl->slot + RATELIMIT_SLOTS; s++)
		if (!take || !s->since ||
		    (take->since && s->last < take->last))
			take = s;
	if (take->since && take->held)
		note_of(take, note, len);
	snprintf(take->line, sizeof(take->line), "%s", line);
	take->since = now;
	take->last = now;
	take->held = 0;
	return 1;
}

int ratelimit_flush(struct ratelimit *rl, int64_t now, char *note,
		    size_t len)
{
	(void)now;
	for (struct ratelimit_slot *s = rl->slot;
	     s < rl->slot + RATELIMIT_SLOTS; s++)
		if (s->since && s->held) {
			note_of(s, note, len);
			return 1;
		}
	return 0;
}
