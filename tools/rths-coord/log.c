// SPDX-License-Identifier: GPL-2.0
/* rths-coord's log: stderr, one line per event, "rths-coord: SITE: ...",
 * identical lines rate-limited (tools/net/ratelimit.h). */
#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "coord.h"
#include "../net/ratelimit.h"

int coord_verbose;

/* Identical lines within 10 s are counted, not logged (a site that
 * fails the same way on every attempt). */
static struct ratelimit limit;

static void put(const char *line)
{
	static int tty = -1;

	if (tty < 0)
		tty = isatty(STDERR_FILENO);
	/* One fprintf per line, so that lines never interleave; on a
	 * terminal the progress line is cleared first. */
	fprintf(stderr, "%srths-coord: %s\n", tty ? "\r\033[K" : "", line);
}

static void vlog(const char *site, const char *fmt, va_list ap)
{
	char line[1024], note[512];
	int n = snprintf(line, sizeof(line), "%s%s", site ? site : "",
			 site ? ": " : "");
	int pass;

	vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
	pass = ratelimit_line(&limit, line, coord_now_ns(), note,
			      sizeof(note));
	if (note[0])
		put(note);
	if (pass)
		put(line);
}

void coord_log_flush(void)
{
	char note[512];

	while (ratelimit_flush(&limit, coord_now_ns(), note, sizeof(note)))
		put(note);
}

void coord_log(const char *site, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(site, fmt, ap);
	va_end(ap);
}

void coord_debug(const char *site, const char *fmt, ...)
{
	va_list ap;

	if (!coord_verbose)
		return;
	va_start(ap, fmt);
	vlog(site, fmt, ap);
	va_end(ap);
}

int64_t coord_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}
