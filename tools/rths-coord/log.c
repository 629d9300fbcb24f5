// SPDX-License-Identifier: GPL-2.0
/* rths-coord's log: stderr, one line per event, "rths-coord: SITE: ...". */
#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "coord.h"

int coord_verbose;

static void vlog(const char *site, const char *fmt, va_list ap)
{
	static int tty = -1;
	char line[1024];

	if (tty < 0)
		tty = isatty(STDERR_FILENO);
	vsnprintf(line, sizeof(line), fmt, ap);
	/* One fprintf per line, so that lines never interleave; on a
	 * terminal the progress line is cleared first. */
	fprintf(stderr, "%srths-coord: %s%s%s\n", tty ? "\r\033[K" : "",
		site ? site : "", site ? ": " : "", line);
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
