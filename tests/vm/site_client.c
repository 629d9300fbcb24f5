// SPDX-License-Identifier: GPL-2.0
/*
 * site_client HOST PORT STEPS: drives a 1-DOF substructure of rths-site
 * over OpenFresco's element protocol (C, as OpenSees' GenericClient):
 * per step 3 (trial), 7 (displacement), 10 (force), 5 (commit), then 99.
 * Prints one line per step, "STEP U DISP FORCE" as hexadecimal floats
 * (two runs compare bit for bit), then the same in decimal.  Used by tests/vm/site-device.sh
 * against sites in the test guest, through QEMU's forwards: it retries
 * until a site answers, up to 60 s.
 */
#include <arpa/inet.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../site/site_proc.h"

#define NS 256
#define REPLY_MS 60000

static int dial_host(const char *host, int port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_port = htons(port) };
	int fd;

	if (inet_pton(AF_INET, host, &sa.sin_addr) != 1)
		return -2;
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		close(fd);
		fd = -1;
	}
	return fd;
}

static int msg(int fd, double *m, int code, double *reply)
{
	m[0] = code;
	if (put(fd, m, NS * sizeof(double)))
		return -1;
	return reply ? get_within(fd, reply, NS * sizeof(double), REPLY_MS) : 0;
}

/* Connected, header sent and code 12 answered: the site is there.  QEMU
 * accepts on the host before the guest listens, then closes. */
static int session(const char *host, int port, double *k)
{
	const int32_t hdr[11] = { 1, 1, 0, 0, 0, 0, 0, 0, 1, 0, NS };
	double m[NS] = { 0 }, r[NS];

	for (int tries = 0; tries < 60; tries++, sleep(1)) {
		int fd = dial_host(host, port);

		if (fd == -2)
			return -2;
		if (fd < 0)
			continue;
		if (put(fd, hdr, sizeof(hdr)) == 0 &&
		    msg(fd, m, 12, r) == 0) {
			*k = r[0];
			return fd;
		}
		close(fd);
	}
	return -1;
}

int main(int argc, char **argv)
{
	double m[NS] = { 0 }, r[NS], d, f, k;
	int fd, steps;

	if (argc != 4 || (steps = atoi(argv[3])) < 1) {
		fprintf(stderr, "usage: site_client HOST PORT STEPS\n");
		return 2;
	}
	fd = session(argv[1], atoi(argv[2]), &k);
	if (fd < 0) {
		fprintf(stderr, "site_client: %s:%s: %s\n", argv[1], argv[2],
			fd == -2 ? "not an IPv4 address" : "no site answered");
		return 1;
	}
	printf("# stiffness estimate %a\n", k);
	for (int n = 1; n <= steps; n++) {
		m[1] = 0.005 * sin(2 * M_PI * n / 50.0);
		if (msg(fd, m, 3, NULL) || msg(fd, m, 7, r))
			break;
		d = r[0];
		if (msg(fd, m, 10, r))
			break;
		f = r[0];
		if (msg(fd, m, 5, NULL))
			break;
		printf("%d %a %a %a %.17g %.17g %.17g\n", n, m[1], d, f, m[1],
		       d, f);
		if (n == steps && msg(fd, m, 99, NULL) == 0) {
			close(fd);
			return 0;
		}
	}
	fprintf(stderr, "site_client: the session broke off\n");
	close(fd);
	return 1;
}
