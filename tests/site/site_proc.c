// SPDX-License-Identifier: GPL-2.0
/* The site under test and a blocking client (site_proc.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "site_proc.h"

char *site_log_line(struct site_proc *s, int ms, char *line, size_t size)
{
	for (;;) {
		char *nl = memchr(s->buf, '\n', s->len);
		struct pollfd p = { s->log, POLLIN, 0 };
		ssize_t r;

		if (nl) {
			size_t l = nl - s->buf;

			snprintf(line, size, "%.*s", (int)l, s->buf);
			memmove(s->buf, nl + 1, s->len - l - 1);
			s->len -= l + 1;
			return line;
		}
		if (poll(&p, 1, ms) <= 0)
			return NULL;
		r = read(s->log, s->buf + s->len, sizeof(s->buf) - 1 - s->len);
		if (r <= 0)
			return NULL;
		s->len += r;
	}
}

char *site_alert_line(struct site_proc *s, int ms, char *line, size_t size)
{
	while (site_log_line(s, ms, line, size))
		if (strstr(line, ": error: ") || strstr(line, ": warning: "))
			return line;
	return NULL;
}

int site_proc_start(struct site_proc *s, const char *json, int nports,
		    const char *const *extra)
{
	const char *bin = getenv("RTHS_SITE");
	int pfd[2], got = 0;
	char line[1024];
	FILE *f;

	s->pid = -1;
	s->start_log[0] = 0;
	if (!bin)
		bin = "build/plain/tools/rths-site";
	snprintf(s->file, sizeof(s->file), "/tmp/rths-site-test.%d.json",
		 (int)getpid());
	f = fopen(s->file, "w");
	if (!f)
		return -1;
	fputs(json, f);
	fclose(f);
	if (pipe(pfd))
		return -1;
	s->pid = fork();
	if (s->pid == 0) {
		const char *argv[32] = { bin };
		int k = 1;

		while (extra && *extra && k < 30)
			argv[k++] = *extra++;
		argv[k++] = s->file;
		argv[k] = NULL;
		/* A failed assertion ends the test, and the site with it. */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		dup2(pfd[1], 2);
		close(pfd[0]);
		execv(bin, (char **)argv);
		_exit(127);
	}
	close(pfd[1]);
	s->log = pfd[0];
	s->len = 0;
	s->nports = nports;
	s->start_log[0] = 0;
	while (got < nports && site_log_line(s, IO_MS, line, sizeof(line))) {
		char *p = strstr(line, ": info: ") ?
			strstr(line, "listening on ") : NULL;
		size_t l = strlen(s->start_log);

		snprintf(s->start_log + l, sizeof(s->start_log) - l, "%s\n",
			 line);
		if (p && (p = strchr(p, ':')) && got < SITE_PORTS)
			s->port[got++] = atoi(p + 1);
	}
	return got == nports ? 0 : -1;
}

int site_proc_stop(struct site_proc *s, const char *keep, char *tail,
		   size_t size)
{
	char line[1024];
	int st = -1;

	kill(s->pid, SIGTERM);
	if (tail)
		tail[0] = 0;
	while (site_log_line(s, IO_MS, line, sizeof(line)))
		if (tail && keep && strstr(line, keep) &&
		    strlen(tail) + strlen(line) + 2 < size) {
			strcat(tail, line);
			strcat(tail, "\n");
		}
	waitpid(s->pid, &st, 0);
	close(s->log);
	unlink(s->file);
	return st;
}

int site_proc_run(const char *json, const char *const *extra, char *err,
		  size_t size)
{
	struct site_proc s;
	char line[1024];
	size_t n;
	int st, started = !site_proc_start(&s, json, 1, extra);

	if (s.pid < 0)
		return -1;
	snprintf(err, size, "%s", s.start_log);
	if (started)
		kill(s.pid, SIGTERM);
	while (site_log_line(&s, IO_MS, line, sizeof(line))) {
		n = strlen(err);
		snprintf(err + n, size - n, "%s\n", line);
	}
	waitpid(s.pid, &st, 0);
	close(s.log);
	unlink(s.file);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int dial(int port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_port = htons(port) };
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		close(fd);
		return -1;
	}
	return fd;
}

int put(int fd, const void *b, size_t len)
{
	return send(fd, b, len, MSG_NOSIGNAL) == (ssize_t)len ? 0 : -1;
}

int get(int fd, void *b, size_t len)
{
	return get_within(fd, b, len, IO_MS);
}

int get_within(int fd, void *b, size_t len, int ms)
{
	size_t have = 0;

	while (have < len) {
		struct pollfd p = { fd, POLLIN, 0 };
		ssize_t r;

		if (poll(&p, 1, ms) <= 0)
			return -1;
		r = recv(fd, (char *)b + have, len - have, 0);
		if (r <= 0)
			return -1;
		have += r;
	}
	return 0;
}

int closed(int fd)
{
	struct pollfd p = { fd, POLLIN, 0 };
	char c;
	ssize_t r;

	if (poll(&p, 1, IO_MS) <= 0)
		return 0;
	/* Unread bytes at the site's close turn its FIN into a reset. */
	r = recv(fd, &c, 1, 0);
	return r == 0 || (r < 0 && errno == ECONNRESET);
}
