// SPDX-License-Identifier: GPL-2.0
/*
 * bench-dist's link with a real delay, for kernels without sch_netem: a
 * TUN device in each of two network namespaces, and every IP packet that
 * one sends delivered to the other DELAY_MS later, in order.  Unlike a
 * TCP proxy nothing is acknowledged early: the segments and their ACKs
 * are the two endpoints' own, each delayed, so Nagle, delayed ACKs and
 * TCP_NODELAY act as on a real link of twice DELAY_MS round trip.
 *
 *   tundelay DELAY_MS NS_A[/DEV_A] NS_B[/DEV_B] [NS_A[/DEV_A] NS_B[/DEV_B]]...
 *
 * creates, for each pair, the device DEV_A (default "tdl0") in the
 * namespace NS_A and DEV_B in NS_B (names under /var/run/netns, as ip
 * netns makes them), and forwards until killed; the caller gives them
 * addresses and routes (ip -n NS addr add ... peer ...).  One process
 * serves every pair in one poll loop (bench-dist-scale's 64 links): each
 * packet is stamped when it is read and written when its time comes, so
 * the delay is the same whatever the number of links, plus the loop's own
 * latency (bench-dist-scale measures it with DELAY_MS 0).  It asks for
 * SCHED_FIFO (priority 10): a link is not slowed by the machine's other
 * work, and on a shared machine a plain process wakes milliseconds late;
 * without it (not root) it says so and runs as it can.  On SIGTERM or
 * SIGINT it prints the packets it wrote and dropped (a full queue, a
 * failed write) and how late past its time each was written (the loop's
 * wake-up), on average and at most, and exits.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#define MTU_MAX 65536
#define QUEUE 4096		/* packets in flight each way */
#define PAIRS_MAX 256

struct pkt {
	int64_t due_ns;
	size_t len;
	unsigned char *data;
};

struct dir {
	int in, out;
	struct pkt *q;
	size_t head, count;
	uint64_t dropped;
};

static volatile sig_atomic_t stop;
static uint64_t sent;
static int64_t late_sum, late_max;	/* ns past due at the write */

static void on_stop(int sig)
{
	(void)sig;
	stop = 1;
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* A TUN device in the namespace of @spec, "NS[/DEV]" (DEV "tdl0"). */
static int tun_in(const char *spec)
{
	char path[256], ns[128];
	struct ifreq ifr = { .ifr_flags = IFF_TUN | IFF_NO_PI };
	const char *dev = strchr(spec, '/');
	size_t len = dev ? (size_t)(dev - spec) : strlen(spec);
	int nfd, fd;

	if (!len || len >= sizeof(ns) ||
	    (dev && (!dev[1] || strlen(dev + 1) >= IFNAMSIZ))) {
		fprintf(stderr, "tundelay: '%s': expected NS or NS/DEV (DEV shorter than %d)\n",
			spec, IFNAMSIZ);
		return -1;
	}
	memcpy(ns, spec, len);
	ns[len] = 0;
	snprintf(path, sizeof(path), "/var/run/netns/%s", ns);
	nfd = open(path, O_RDONLY | O_CLOEXEC);
	if (nfd < 0 || setns(nfd, CLONE_NEWNET)) {
		fprintf(stderr, "tundelay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	close(nfd);
	fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s",
		 dev ? dev + 1 : "tdl0");
	if (fd < 0 || ioctl(fd, TUNSETIFF, &ifr)) {
		fprintf(stderr, "tundelay: tun %s in %s: %s\n", ifr.ifr_name,
			ns, strerror(errno));
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
		sent++;
		late_sum += now - p->due_ns;
		if (now - p->due_ns > late_max)
			late_max = now - p->due_ns;
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
	static struct pollfd pfd[2 * PAIRS_MAX];
	static struct dir dirs[2 * PAIRS_MAX];
	struct sigaction sa = { .sa_handler = on_stop };
	sigset_t block, wait_mask;
	uint64_t dropped = 0;
	int64_t delay_ns;
	char *end;
	int n, i, home;

	if (argc < 4 || argc % 2) {
		fprintf(stderr, "usage: tundelay DELAY_MS NS_A[/DEV_A] NS_B[/DEV_B] [NS_A[/DEV_A] NS_B[/DEV_B]]...\n");
		return 2;
	}
	delay_ns = (int64_t)(strtod(argv[1], &end) * 1e6);
	if (end == argv[1] || *end || delay_ns < 0) {
		fprintf(stderr, "tundelay: DELAY_MS '%s': expected milliseconds, 0 or more\n",
			argv[1]);
		return 2;
	}
	n = argc - 2;		/* devices, 2 a pair */
	if (n > 2 * PAIRS_MAX) {
		fprintf(stderr, "tundelay: at most %d pairs\n", PAIRS_MAX);
		return 2;
	}
	/* the wake-up of a due packet as close to its time as the timer can */
	prctl(PR_SET_TIMERSLACK, 1UL);
	if (sched_setscheduler(0, SCHED_FIFO,
			       &(struct sched_param){ .sched_priority = 10 }))
		fprintf(stderr, "tundelay: no real-time priority (%s): the delay follows the machine's load\n",
			strerror(errno));
	home = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	for (i = 0; i < n; i++) {
		pfd[i] = (struct pollfd){ .fd = tun_in(argv[2 + i]),
					  .events = POLLIN };
		if (pfd[i].fd < 0)
			return 1;
	}
	/* back home: the devices stay where they were made */
	if (home < 0 || setns(home, CLONE_NEWNET)) {
		fprintf(stderr, "tundelay: /proc/self/ns/net: %s\n",
			strerror(errno));
		return 1;
	}
	close(home);
	for (i = 0; i < n; i++) {
		/* device i's packets go out of its pair's other device */
		dirs[i] = (struct dir){ .in = pfd[i].fd, .out = pfd[i ^ 1].fd,
					.q = calloc(QUEUE, sizeof(struct pkt)) };
		if (!dirs[i].q) {
			fprintf(stderr, "tundelay: out of memory\n");
			return 1;
		}
	}
	/* SIGTERM and SIGINT only arrive inside ppoll(): none is lost */
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigprocmask(SIG_BLOCK, &block, &wait_mask);
	sigdelset(&wait_mask, SIGTERM);
	sigdelset(&wait_mask, SIGINT);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	printf("tundelay: %d pair(s), %g ms each way\n", n / 2,
	       delay_ns / 1e6);
	fflush(stdout);
	while (!stop) {
		int64_t now = now_ns(), w = -1;
		struct timespec ts;

		for (i = 0; i < n; i++) {
			int64_t wi = give(&dirs[i], now);

			if (wi >= 0 && (w < 0 || wi < w))
				w = wi;
		}
		ts = (struct timespec){ .tv_sec = w / 1000000000,
					.tv_nsec = w % 1000000000 };
		if (ppoll(pfd, (nfds_t)n, w < 0 ? NULL : &ts, &wait_mask) < 0) {
			if (errno != EINTR)
				return 1;
			continue;
		}
		for (i = 0; i < n; i++)
			if (pfd[i].revents & POLLIN)
				take(&dirs[i], delay_ns);
	}
	for (i = 0; i < n; i++)
		dropped += dirs[i].dropped;
	printf("tundelay: %llu packets written, %llu dropped, late past their time by %.1f us on average, %.1f us at most\n",
	       (unsigned long long)sent, (unsigned long long)dropped,
	       sent ? (double)late_sum / (double)sent / 1e3 : 0.0,
	       (double)late_max / 1e3);
	return 0;
}
