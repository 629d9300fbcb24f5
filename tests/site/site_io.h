/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the rths-site tests' clients share: blocking sockets as
 * OpenFresco's TCP_Socket uses them (Nagle on), and running rths-site on
 * a site file to read its one-line error.
 */
#ifndef RTHS_TEST_SITE_IO_H
#define RTHS_TEST_SITE_IO_H

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

/* Exactly len bytes; -1 on EOF, error or ms without progress. */
static inline int site_io_recv(int fd, void *b, size_t len, int ms)
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

static inline int site_io_send(int fd, const void *b, size_t len)
{
	return send(fd, b, len, MSG_NOSIGNAL) == (ssize_t)len ? 0 : -1;
}

/* rths-site ($RTHS_SITE) on a site file holding @json: its exit status,
 * its output in @err. */
static inline int site_io_run_on(const char *json, char *err, size_t size)
{
	const char *bin = getenv("RTHS_SITE");
	char file[64], cmd[256];
	FILE *f, *p;
	size_t n;
	int st;

	if (!bin)
		bin = "build/plain/tools/rths-site";
	snprintf(file, sizeof(file), "/tmp/rths-site-bad.%d.json",
		 (int)getpid());
	f = fopen(file, "w");
	if (!f)
		return -1;
	fputs(json, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "%s %s 2>&1", bin, file);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	n = fread(err, 1, size - 1, p);
	err[n] = 0;
	st = pclose(p);
	unlink(file);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

#endif
