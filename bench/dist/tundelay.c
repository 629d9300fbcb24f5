// SPDX-License-Identifier: GPL-2.0
/*
 * bench-dist's link with a real delay, for kernels without sch_netem: a
 * TUN device in each of two network namespaces, and every IP packet that
 * one sends delivered to the other DELAY_MS later, in order.  Unlike a
 * TCP proxy nothing is acknowledged early: the segments and their ACKs
 * are the two endpoints' own, each delayed, so Nagle, delayed ACKs and
 * TCP_NODELAY act as on a real link of twice DELAY_MS round trip.
 *
 *   tundelay NS_A NS_B DELAY_MS
 *
 * creates the device "tdl0" in the namespaces NS_A and NS_B (names under
 * /var/run/netns, as ip netns makes them) and forwards until killed; the
 * caller gives them addresses and routes (ip -n NS addr add ... peer ...).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <poll.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#define MTU_MAX 65536
#define QUEUE 4096		/* packets in flight each way */

struct pkt {
	int64_t due_ns;
	size_t len;
	unsigned char *data;
};

struct dir {
	int in, out;
	struct pkt q[QUEUE];
	size_t head, count;
	uint64_t dropped;
};

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* A TUN device "tdl0" in the namespace @ns. */
static int tun_in(const char *ns)
{
	char path[256];
	struct ifreq ifr = { .ifr_flags = IFF_TUN | IFF_NO_PI };
	int nfd, fd;

	snprintf(path, sizeof(path), "/var/run/netns/%s", ns);
	nfd = open(path, O_RDONLY | O_CLOEXEC);
	if (nfd < 0 || setns(nfd, CLONE_NEWNET)) {
		fprintf(stderr, "tundelay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	close(nfd);
	fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "tdl0");
	if (fd < 0 || ioctl(fd, TUNSETIFF, &ifr)) {
		fprintf(stderr, "tundelay: tun in %s: %s\n", ns,
			strerror(errno));
		return -1;
	}
	fcntl(fd, F_SETFL, O_NONBLOCK);
	return fd;
}

static void take(struct dir *d, int64_t delay_ns)
{
	static unsigned char buf[MTU_MAX];
	ssize_t n;

	while ((n = read(d->in, buf, sizeof(buf))) > 0) {
		struct pkt *p;

		if (d->count == QUEUE) {
			d->dropped++;
			continue;
		}
		p = &d->q[(d->head + d->count) % QUEUE];
		p->data = malloc((size_t)n);
		if (!p->data) {
			d->dropped++;
			continue;
		}
		memcpy(p->data, buf, (size_t)n);
		p->len = (size_t)n;
		p->due_ns = now_ns() + delay_ns;
		d->count++;
	}
}

/* Deliver what is due; the ns until the next packet is, or -1. */
static int64_t give(struct dir *d, int64_t now)
{
	while (d->count) {
		struct pkt *p = &d->q[d->head];

		if (p->due_ns > now)
			return p->due_ns - now;
		if (write(d->out, p->data, p->len) < 0 && errno != EAGAIN)
			d->dropped++;
		free(p->data);
		d->head = (d->head + 1) % QUEUE;
		d->count--;
	}
	return -1;
}

int main(int argc, char **argv)
{
	static struct dir ab, ba;
	int64_t delay_ns;
	int a, b;

	if (argc != 4) {
		fprintf(stderr, "usage: tundelay NS_A NS_B DELAY_MS\n");
		return 2;
	}
	delay_ns = (int64_t)(atof(argv[3]) * 1e6);
	a = tun_in(argv[1]);
	b = tun_in(argv[2]);
	if (a < 0 || b < 0 || delay_ns < 0)
		return 1;
	ab = (struct dir){ .in = a, .out = b };
	ba = (struct dir){ .in = b, .out = a };
	printf("tundelay: %s <-> %s, %g ms each way\n", argv[1], argv[2],
	       delay_ns / 1e6);
	fflush(stdout);
	for (;;) {
		struct pollfd pfd[2] = { { a, POLLIN, 0 }, { b, POLLIN, 0 } };
		int64_t now = now_ns(), w1 = give(&ab, now), w2 = give(&ba, now);
		int64_t w = w1 < 0 ? w2 : (w2 < 0 || w1 < w2 ? w1 : w2);
		struct timespec ts = { .tv_sec = w / 1000000000,
				       .tv_nsec = w % 1000000000 };

		if (ppoll(pfd, 2, w < 0 ? NULL : &ts, NULL) < 0 &&
		    errno != EINTR)
			return 1;
		if (pfd[0].revents & POLLIN)
			take(&ab, delay_ns);
		if (pfd[1].revents & POLLIN)
			take(&ba, delay_ns);
	}
}
