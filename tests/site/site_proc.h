/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The site under test, as a child process, and a blocking client's
 * socket calls, for the rths-site tests (site_proc.c).  RTHS_SITE names
 * the binary under test.
 */
#ifndef RTHS_TEST_SITE_PROC_H
#define RTHS_TEST_SITE_PROC_H

#include <stddef.h>
#include <sys/types.h>

#define IO_MS 5000
#define SITE_PORTS 8

struct site_proc {
	pid_t pid;
	int log;		/* the site's stderr */
	int nports;
	int port[SITE_PORTS];	/* in the order of "listening on" lines */
	char file[64];
	char buf[16384];
	size_t len;
	char start_log[4096];	/* the lines up to the last port */
};

/* Writes json as the site file and starts the site with the extra
 * arguments; 0 once nports ports are listening. */
int site_proc_start(struct site_proc *s, const char *json, int nports,
		    const char *const *extra);
/* SIGTERM, then the exit status; the lines logged on the way out that
 * contain 'keep' are appended to tail (when not NULL). */
int site_proc_stop(struct site_proc *s, const char *keep, char *tail,
		   size_t size);
/* Runs the site on 'json' with the extra arguments until it exits (a
 * site that starts is stopped after its ports are up): its exit status,
 * its stderr in err. */
int site_proc_run(const char *json, const char *const *extra, char *err,
		  size_t size);
/* One log line, or NULL after ms without one. */
char *site_log_line(struct site_proc *s, int ms, char *line, size_t size);
/* The next error or warning line, skipping info lines. */
char *site_alert_line(struct site_proc *s, int ms, char *line, size_t size);

/* A blocking client on 127.0.0.1. */
int dial(int port);
int put(int fd, const void *b, size_t len);
/* Exactly len bytes; -1 on EOF, error or IO_MS without progress. */
int get(int fd, void *b, size_t len);
/* The same, with ms instead of IO_MS. */
int get_within(int fd, void *b, size_t len, int ms);
/* 1 when the peer closed the connection within IO_MS. */
int closed(int fd);

#endif
