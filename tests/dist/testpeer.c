// SPDX-License-Identifier: GPL-2.0
/*
 * Peers for the fault policy's tests (tests/dist/policy.sh), speaking the
 * native protocol with tools/net/wire.c:
 *
 *   testpeer errsite PORT N
 *       a site of one linear substructure (force = 1e6 * u) on
 *       127.0.0.1:PORT that answers ERROR device to step N and every step
 *       after it, as rths-site does when its device faults.  It serves
 *       one session at a time and, at SIGTERM or after 120 s, prints what
 *       it received: "hello H step S step-N K bye B" (K: how often step N
 *       came, that is how often its device was commanded to do it).
 *
 *   testpeer flood PORT COUNT SECONDS [NAME]
 *       COUNT connections to 127.0.0.1:PORT at once (from FLOODERS
 *       processes), each holding still (sending nothing) for SECONDS,
 *       then closed; prints "flood: COUNT connects, C established" (this
 *       process's share).  With NAME, halfway through the burst a probe
 *       (below) for substructure NAME.
 *
 *   testpeer probe PORT NAME
 *       a HELLO for substructure NAME with a test of its own, timed to the
 *       site's first answer (WELCOME or ERROR busy): what a coordinator's
 *       reconnect waits for.  Prints "probe: answer in T ms (TYPE)".
 *
 * Every wait is bounded; exit status 0, or 1 on an error.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "wire.h"

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static struct sockaddr_in loopback(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons((uint16_t)port) };

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return a;
}

/* Reads exactly n bytes within timeout_ms: 0, or -1 (closed, error,
 * timeout or stop). */
static int read_all(int fd, void *buf, size_t n, int timeout_ms)
{
	unsigned char *p = buf;
	double end = now_s() + timeout_ms / 1e3;

	while (n) {
		struct pollfd pfd = { fd, POLLIN, 0 };
		int left = (int)((end - now_s()) * 1e3);
		ssize_t r;

		if (stop || left <= 0 || poll(&pfd, 1, left) <= 0)
			return -1;
		r = recv(fd, p, n, 0);
		if (r <= 0)
			return -1;
		p += r;
		n -= (size_t)r;
	}
	return 0;
}

static int send_buf(int fd, struct rnp_buf *b)
{
	int r = send(fd, b->p, b->len, MSG_NOSIGNAL) == (ssize_t)b->len ? 0 :
		-1;

	b->len = 0;
	return r;
}

/* One frame: its header in h, its payload in *pl (grown as needed). */
static int read_frame(int fd, struct rnp_hdr *h, unsigned char **pl,
		      int timeout_ms)
{
	unsigned char hdr[RNP_HDR_SIZE];
	char why[128];

	if (read_all(fd, hdr, sizeof(hdr), timeout_ms) ||
	    rnp_parse_hdr(hdr, h, why, sizeof(why)))
		return -1;
	free(*pl);
	*pl = malloc(h->length ? h->length : 1);
	if (!*pl)
		return -1;
	return read_all(fd, *pl, h->length, timeout_ms);
}

/* ------------------------------------------------------------ errsite */

struct counts {
	unsigned long hello, steps, at_n, bye;
};

/* One session; 0 when it ended, -1 on a malformed frame. */
static int serve(int fd, uint64_t n, struct counts *k, uint64_t *last)
{
	double u[RNP_MAX_DOF], v[RNP_MAX_DOF], a[RNP_MAX_DOF];
	double disp[RNP_MAX_DOF], force[RNP_MAX_DOF];
	unsigned char *pl = NULL;
	struct rnp_buf out = { 0 };
	struct rnp_hdr h;
	char why[128];
	int r = 0;

	while (!stop && read_frame(fd, &h, &pl, 10000) == 0) {
		if (h.type == RNP_HELLO) {
			struct rnp_hello m;
			struct rnp_welcome w = {
				.version = RNP_VERSION,
				.kind = RNP_KIND_DEVICE, .heartbeat_ms = 1000,
			};

			if (rnp_parse_hello(pl, h.length, &m, why, sizeof(why)))
				break;
			k->hello++;
			w.ndof = m.ndof ? m.ndof : 1;
			w.test_id = m.test_id;
			w.last_seq = *last;
			snprintf(w.substructure, sizeof(w.substructure), "%s",
				 m.substructure);
			if (rnp_put_welcome(&out, &w) || send_buf(fd, &out))
				break;
		} else if (h.type == RNP_STEP) {
			struct rnp_step st = { .u = u, .v = v, .a = a };

			if (rnp_parse_step(pl, h.length, &st, RNP_MAX_DOF, why,
					   sizeof(why)))
				break;
			k->steps++;
			if (st.seq == n)
				k->at_n++;
			if (st.seq >= n) {
				rnp_put_error(&out, RNP_ERR_DEVICE,
					      "step %" PRIu64 ": the actuator is interlocked (testpeer)",
					      st.seq);
				send_buf(fd, &out);
				break;
			}
			for (uint32_t i = 0; i < st.ndof; i++) {
				disp[i] = u[i];
				force[i] = 1e6 * u[i];
			}
			*last = st.seq;
			struct rnp_result res = {
				.seq = st.seq, .ndof = st.ndof, .disp = disp,
				.force = force,
			};
			if (rnp_put_result(&out, &res) || send_buf(fd, &out))
				break;
		} else if (h.type == RNP_PING) {
			struct rnp_ping p;

			if (rnp_parse_ping(pl, h.length, &p, why, sizeof(why)) ||
			    rnp_put_ping(&out, RNP_PONG, &p) ||
			    send_buf(fd, &out))
				break;
		} else if (h.type == RNP_BYE) {
			k->bye++;
			*last = 0;
			break;
		} else if (h.type != RNP_PONG) {
			r = -1;
			break;
		}
	}
	free(pl);
	rnp_buf_free(&out);
	return r;
}

static int errsite(int port, uint64_t n)
{
	struct sockaddr_in a = loopback(port);
	struct counts k = { 0 };
	double end = now_s() + 120;
	uint64_t last = 0;
	int one = 1, lfd = socket(AF_INET, SOCK_STREAM, 0);

	if (lfd < 0 ||
	    setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(lfd, (struct sockaddr *)&a, sizeof(a)) || listen(lfd, 16)) {
		perror("testpeer: listen");
		return 1;
	}
	fprintf(stderr, "testpeer: errsite listening on 127.0.0.1:%d, ERROR device from step %" PRIu64 "\n",
		port, n);
	while (!stop && now_s() < end) {
		struct pollfd pfd = { lfd, POLLIN, 0 };
		int fd;

		if (poll(&pfd, 1, 200) <= 0)
			continue;
		fd = accept(lfd, NULL, NULL);
		if (fd < 0)
			continue;
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		serve(fd, n, &k, &last);
		close(fd);
	}
	close(lfd);
	printf("hello %lu step %lu step-%" PRIu64 " %lu bye %lu\n", k.hello,
	       k.steps, n, k.at_n, k.bye);
	return 0;
}

/* -------------------------------------------------------------- flood */

static int probe(int port, const char *name);

#define FLOODERS 4

static int flood(int port, int count, double secs, const char *name)
{
	struct sockaddr_in a = loopback(port);
	pid_t kids[FLOODERS - 1];
	int *fds, established = 0, total = count, helper = 0;
	double end;

	/* the others take their share and hold it as long */
	for (int k = 0; k < FLOODERS - 1; k++) {
		kids[k] = fork();
		if (kids[k] == 0) {
			helper = 1;
			name = NULL;
			count = total / FLOODERS;
			goto connect;
		}
	}
	count = total - (FLOODERS - 1) * (total / FLOODERS);
connect:
	fds = calloc((size_t)count, sizeof(int));
	if (!fds)
		return 1;
	for (int i = 0; i < count; i++) {
		if (name && i == count / 2)
			probe(port, name);
		fds[i] = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
		if (fds[i] >= 0 &&
		    connect(fds[i], (struct sockaddr *)&a, sizeof(a)) < 0 &&
		    errno != EINPROGRESS) {
			close(fds[i]);
			fds[i] = -1;
		}
	}
	end = now_s() + secs;
	while (!stop && now_s() < end)
		usleep(20000);
	for (int i = 0; i < count; i++) {
		struct sockaddr_in peer;
		socklen_t l = sizeof(peer);

		if (fds[i] < 0)
			continue;
		if (!getpeername(fds[i], (struct sockaddr *)&peer, &l))
			established++;
		close(fds[i]);
	}
	free(fds);
	if (helper)
		_exit(0);
	for (int k = 0; k < FLOODERS - 1; k++)
		if (kids[k] > 0)
			waitpid(kids[k], NULL, 0);
	printf("flood: %d connects, %d established of this process's %d\n",
	       total, established, count);
	return 0;
}

/* -------------------------------------------------------------- probe */

static int probe(int port, const char *name)
{
	struct sockaddr_in a = loopback(port);
	struct rnp_hello m = {
		.version_min = RNP_VERSION, .version_max = RNP_VERSION,
		.test_id = 0x7e57e1, .ndof = 0,
	};
	struct rnp_buf out = { 0 };
	unsigned char *pl = NULL;
	struct rnp_hdr h;
	int fd = socket(AF_INET, SOCK_STREAM, 0), r = 1;
	double t0 = now_s();

	snprintf(m.substructure, sizeof(m.substructure), "%s", name);
	/* a blocking connect: the kernel's SYN retries are what we time */
	if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0 &&
	    rnp_put_hello(&out, &m) == 0 && send_buf(fd, &out) == 0 &&
	    read_frame(fd, &h, &pl, 10000) == 0) {
		printf("probe: answer in %.1f ms (%s)\n", (now_s() - t0) * 1e3,
		       rnp_type_name(h.type));
		r = 0;
	} else {
		printf("probe: no answer after %.1f ms\n", (now_s() - t0) * 1e3);
	}
	if (fd >= 0)
		close(fd);
	free(pl);
	rnp_buf_free(&out);
	return r;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_term };

	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 4 && !strcmp(argv[1], "errsite"))
		return errsite(atoi(argv[2]), strtoull(argv[3], NULL, 0));
	if ((argc == 5 || argc == 6) && !strcmp(argv[1], "flood"))
		return flood(atoi(argv[2]), atoi(argv[3]), atof(argv[4]),
			     argc == 6 ? argv[5] : NULL);
	if (argc == 4 && !strcmp(argv[1], "probe"))
		return probe(atoi(argv[2]), argv[3]);
	fprintf(stderr, "usage: testpeer errsite PORT N | flood PORT COUNT SECONDS [NAME] | probe PORT NAME\n");
	return 2;
}
