// SPDX-License-Identifier: GPL-2.0
/* rths-site's log: stderr, one line per event, levels set by -q/-v. */
#include <stdarg.h>
#include <stdio.h>
#include <time.h>

#include "site.h"

int site_log_level = LOG_INFO;

static const char *const level_names[] = { "error", "warning", "info",
					   "debug" };

static void vlog(int level, const char *prefix, const char *fmt,
		 va_list ap)
{
	char line[1280];

	if (level > site_log_level)
		return;
	vsnprintf(line, sizeof(line), fmt, ap);
	/* One fprintf per line, so lines never interleave mid-way. */
	fprintf(stderr, "rths-site: %s: %s%s\n", level_names[level], prefix,
		line);
}

void site_log(int level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(level, "", fmt, ap);
	va_end(ap);
}

void session_log(const struct session *s, int level, const char *fmt, ...)
{
	char prefix[320];
	va_list ap;

	snprintf(prefix, sizeof(prefix), "%s #%u %s: ", s->sub->name, s->id,
		 s->peer);
	va_start(ap, fmt);
	vlog(level, prefix, fmt, ap);
	va_end(ap);
}

void session_fail(struct session *s, const char *fmt, ...)
{
	char prefix[320], msg[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(prefix, sizeof(prefix), "%s #%u %s: ", s->sub->name, s->id,
		 s->peer);
	site_log(LOG_ERR, "%ssession ended: %s", prefix, msg);
	s->done = 1;
}

int64_t site_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

uint64_t site_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
