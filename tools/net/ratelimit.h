/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A rate limiter for log lines, shared by rths-coord and rths-site: a
 * line identical to one logged less than a window ago is not logged
 * again but counted; once its window is over (the next time it comes, or
 * when another line takes its slot, or at ratelimit_flush()), one note
 * says how often it was held back:
 *
 *   "pier2: ERROR device: ..." repeated 1,204 times in 10 s
 *
 * The limiter remembers the last RATELIMIT_SLOTS distinct lines, so a
 * loop that logs two or three lines in turn is limited too.  Times are
 * the caller's (monotonic ns), so that tests need no clock.  Nothing here
 * prints.
 */
#ifndef RTHS_NET_RATELIMIT_H
#define RTHS_NET_RATELIMIT_H

#include <stddef.h>
#include <stdint.h>

#define RATELIMIT_SLOTS 8
#define RATELIMIT_LINE 256		/* longer lines compare by prefix */

struct ratelimit_slot {
	char line[RATELIMIT_LINE];
	int64_t since;		/* the window's start, ns; 0: free slot */
	int64_t last;		/* the last time the line came */
	uint64_t held;		/* lines held back in this window */
};

struct ratelimit {
	int64_t window;		/* ns; 0: 10 s */
	struct ratelimit_slot slot[RATELIMIT_SLOTS];
};

/*
 * Should @line be logged at @now?  1: yes, 0: no (it is counted).  @note
 * (of @len bytes) is set to "" or to one note to log first: the count of
 * a line held back in a window now over (this line's, or the slot's that
 * this line takes).
 */
int ratelimit_line(struct ratelimit *rl, const char *line, int64_t now,
		   char *note, size_t len);

/*
 * The notes of lines still held back: 1 with one note in @note (call
 * again), 0 when none is left.  For the end of a run.
 */
int ratelimit_flush(struct ratelimit *rl, int64_t now, char *note,
		    size_t len);

#endif
