// SPDX-License-Identifier: GPL-2.0
/*
 * faultproxy on loopback: records pass byte for byte, delay and stall hold
 * them back, jitter is the same for the same seed, the N-th record is
 * dropped and the connection then breaks, reset and refuse end
 * connections, and the control socket answers.  FAULTPROXY names the
 * binary under test.  Time is only checked from below (a delayed record
 * cannot arrive early), never against an upper bound.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "site_proc.h"	/* dial, put, get, closed: a blocking client */

struct proxy {
	pid_t pid;
	int port;		/* the proxy's */
	int ufd, uport;		/* the upstream listener */
	char dir[64], ctl[96], log[96];
};

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int listener(int *port)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t l = sizeof(a);
	/* not inherited by the proxy, so that closing it here closes it */
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) ||
	    listen(fd, 8) || getsockname(fd, (struct sockaddr *)&a, &l))
		return -1;
	*port = ntohs(a.sin_port);
	return fd;
}

/* Start the proxy in front of a fresh upstream listener, with extra
 * arguments before the addresses. */
static int proxy_start(struct proxy *p, const char *const *extra)
{
	const char *bin = getenv("FAULTPROXY");
	char up[32], portfile[128];
	const char *argv[32];
	int n = 0;
	FILE *f;

	if (!bin)
		return -1;
	strcpy(p->dir, "/tmp/fproxy.XXXXXX");
	if (!mkdtemp(p->dir))
		return -1;
	snprintf(p->ctl, sizeof(p->ctl), "%s/ctl", p->dir);
	snprintf(p->log, sizeof(p->log), "%s/log", p->dir);
	snprintf(portfile, sizeof(portfile), "%s/port", p->dir);
	p->ufd = listener(&p->uport);
	if (p->ufd < 0)
		return -1;
	snprintf(up, sizeof(up), "127.0.0.1:%d", p->uport);
	argv[n++] = bin;
	argv[n++] = "-v";
	argv[n++] = "-C";
	argv[n++] = p->ctl;
	argv[n++] = "-p";
	argv[n++] = portfile;
	while (extra && *extra)
		argv[n++] = *extra++;
	argv[n++] = "127.0.0.1:0";
	argv[n++] = up;
	argv[n] = NULL;
	p->pid = fork();
	if (p->pid < 0)
		return -1;
	if (p->pid == 0) {
		if (!freopen(p->log, "w", stderr))
			_exit(127);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		execv(bin, (char **)argv);
		_exit(127);
	}
	for (int i = 0; i < 500; i++) {
		f = fopen(portfile, "r");
		if (f) {
			int ok = fscanf(f, "%d", &p->port) == 1;

			fclose(f);
			if (ok)
				return 0;
		}
		usleep(10000);
	}
	return -1;
}

static int proxy_stop(struct proxy *p)
{
	int st = -1;
	char cmd[160];

	kill(p->pid, SIGTERM);
	waitpid(p->pid, &st, 0);
	close(p->ufd);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", p->dir);
	if (system(cmd))
		return -1;
	return st;
}

/* Accept on the listener within IO_MS, or -1. */
static int accept_within(int lfd, int ms)
{
	struct pollfd pf = { .fd = lfd, .events = POLLIN };

	if (poll(&pf, 1, ms) != 1)
		return -1;
	return accept(lfd, NULL, NULL);
}

/* A native frame: the 16-byte header ("RTHN", version 1, type, length)
 * and a payload of n bytes, each the frame's number. */
static size_t frame(unsigned char *b, unsigned type, unsigned n,
		    unsigned char fill)
{
	memcpy(b, "RTHN", 4);
	b[4] = 1, b[5] = 0;
	b[6] = type, b[7] = 0;
	b[8] = n & 0xff, b[9] = n >> 8 & 0xff, b[10] = n >> 16, b[11] = 0;
	memset(b + 12, 0, 4);
	memset(b + 16, fill, n);
	return 16 + n;
}

static int control(struct proxy *p, const char *cmd, char *reply,
		   size_t size)
{
	char line[256];
	FILE *f;
	int st;

	snprintf(line, sizeof(line), "%s -c %s %s", getenv("FAULTPROXY"),
		 p->ctl, cmd);
	f = popen(line, "r");
	if (!f)
		return -1;
	if (!fgets(reply, size, f))
		reply[0] = 0;
	st = pclose(f);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int log_has(struct proxy *p, const char *what)
{
	char line[512];
	FILE *f = fopen(p->log, "r");
	int n = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		n += strstr(line, what) != NULL;
	fclose(f);
	return n;
}

/* A connection through the proxy: c the client's end, s the server's. */
static int pair(struct proxy *p, int *c, int *s)
{
	*c = dial(p->port);
	*s = *c < 0 ? -1 : accept_within(p->ufd, IO_MS);
	return *c >= 0 && *s >= 0 ? 0 : -1;
}

TEST(records_pass_byte_for_byte)
{
	struct proxy p;
	unsigned char out[3000], in[3000], f2[64];
	size_t n;
	int c, s;

	ASSERT_EQ(0, proxy_start(&p, NULL));
	ASSERT_EQ(0, pair(&p, &c, &s));
	/* a frame sent in three pieces, then two in one write */
	n = frame(out, 3, 2000, 0x5a);
	ASSERT_EQ(0, put(c, out, 5));
	usleep(20000);
	ASSERT_EQ(0, put(c, out + 5, 20));
	usleep(20000);
	ASSERT_EQ(0, put(c, out + 25, n - 25));
	ASSERT_EQ(0, get(s, in, n));
	ASSERT_EQ(0, memcmp(in, out, n));
	n = frame(out, 4, 100, 1);
	n += frame(out + n, 4, 200, 2);
	ASSERT_EQ(0, put(s, out, n));
	ASSERT_EQ(0, get(c, in, n));
	ASSERT_EQ(0, memcmp(in, out, n));
	/* the client's close reaches the server, and back */
	n = frame(f2, 7, 8, 0);
	ASSERT_EQ(0, put(c, f2, n));
	ASSERT_EQ(0, get(s, in, n));
	shutdown(c, SHUT_WR);
	EXPECT_TRUE(closed(s));
	close(s);
	EXPECT_TRUE(closed(c));
	close(c);
	EXPECT_EQ(0, proxy_stop(&p));
}

TEST(delay_holds_records_back)
{
	static const char *const extra[] = { "-e", "delay down 150", NULL };
	struct proxy p;
	unsigned char out[64], in[64];
	size_t n = frame(out, 4, 32, 9);
	int64_t t0;
	int c, s;

	ASSERT_EQ(0, proxy_start(&p, extra));
	ASSERT_EQ(0, pair(&p, &c, &s));
	t0 = now_ms();
	ASSERT_EQ(0, put(s, out, n));
	ASSERT_EQ(0, get(c, in, n));
	EXPECT_GE(now_ms() - t0, 150);
	EXPECT_EQ(0, memcmp(in, out, n));
	close(c);
	close(s);
	EXPECT_EQ(0, proxy_stop(&p));
}

/* The jitter each record drew, as the verbose log lists it. */
static int jitters(struct proxy *p, char *buf, size_t size)
{
	char line[512];
	FILE *f = fopen(p->log, "r");
	size_t used = 0;
	int n = 0;

	buf[0] = 0;
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		char *j = strstr(line, " record ");

		if (j && strstr(j, " jitter ") && used + strlen(j) < size) {
			strcpy(buf + used, j);
			used += strlen(j);
			n++;
		}
	}
	fclose(f);
	return n;
}

static int jitter_run(const char *seed, char *buf, size_t size)
{
	const char *const extra[] = { "-s", seed, "-e", "jitter both 5",
				      NULL };
	unsigned char out[64], in[64];
	size_t n = frame(out, 3, 24, 3);
	struct proxy p;
	int c, s, got;

	if (proxy_start(&p, extra) || pair(&p, &c, &s))
		return -1;
	for (int i = 0; i < 6; i++)
		if (put(c, out, n) || get(s, in, n) || put(s, out, n) ||
		    get(c, in, n))
			return -1;
	close(c);
	close(s);
	usleep(50000);
	got = jitters(&p, buf, size);
	return proxy_stop(&p) ? -1 : got;
}

TEST(jitter_is_the_same_for_the_same_seed)
{
	char a[4096], b[4096], d[4096];

	ASSERT_EQ(12, jitter_run("42", a, sizeof(a)));
	ASSERT_EQ(12, jitter_run("42", b, sizeof(b)));
	ASSERT_EQ(12, jitter_run("43", d, sizeof(d)));
	EXPECT_STREQ(a, b);
	EXPECT_STRNE(a, d);
}

TEST(drop_breaks_the_connection_after_the_record)
{
	static const char *const extra[] = { "-e", "drop down 3", NULL };
	unsigned char out[5][64], in[64];
	struct proxy p;
	size_t n = 0;
	int c, s;

	ASSERT_EQ(0, proxy_start(&p, extra));
	ASSERT_EQ(0, pair(&p, &c, &s));
	for (int i = 0; i < 5; i++)
		n = frame(out[i], 4, 40, i + 1);
	/* requests still pass up; the replies 1 and 2 come, 3 is lost and
	 * nothing after it */
	for (int i = 0; i < 2; i++) {
		ASSERT_EQ(0, put(c, out[i], n));
		ASSERT_EQ(0, get(s, in, n));
		ASSERT_EQ(0, put(s, out[i], n));
		ASSERT_EQ(0, get(c, in, n));
		EXPECT_EQ(i + 1, in[20]);
	}
	ASSERT_EQ(0, put(s, out[2], n));
	put(s, out[3], n);
	EXPECT_TRUE(closed(c));
	EXPECT_TRUE(closed(s));
	close(c);
	close(s);
	EXPECT_EQ(1, log_has(&p, "dropped record 3 (type 4, 56 bytes)"));
	/* a new connection is not affected */
	ASSERT_EQ(0, pair(&p, &c, &s));
	ASSERT_EQ(0, put(s, out[4], n));
	ASSERT_EQ(0, get(c, in, n));
	EXPECT_EQ(5, in[20]);
	close(c);
	close(s);
	EXPECT_EQ(0, proxy_stop(&p));
}

TEST(drop_with_a_break_delay_looks_like_a_stall)
{
	static const char *const extra[] = { "-b", "300", "-e", "drop down 1",
					     NULL };
	unsigned char out[64], in[64];
	struct proxy p;
	size_t n = frame(out, 4, 40, 7);
	int64_t t0;
	int c, s;

	ASSERT_EQ(0, proxy_start(&p, extra));
	ASSERT_EQ(0, pair(&p, &c, &s));
	t0 = now_ms();
	ASSERT_EQ(0, put(s, out, n));
	EXPECT_TRUE(closed(c));
	EXPECT_GE(now_ms() - t0, 300);
	close(c);
	close(s);
	EXPECT_EQ(0, proxy_stop(&p));
	(void)in;
}

TEST(tls_records)
{
	static const char *const extra[] = { "-f", "tls", "-e", "drop down 2",
					     NULL };
	/* two TLS application-data records (type 23, 1.2, lengths 3, 2) */
	static const unsigned char r1[] = { 23, 3, 3, 0, 3, 'a', 'b', 'c' };
	static const unsigned char r2[] = { 23, 3, 3, 0, 2, 'd', 'e' };
	unsigned char in[16];
	struct proxy p;
	int c, s;

	ASSERT_EQ(0, proxy_start(&p, extra));
	ASSERT_EQ(0, pair(&p, &c, &s));
	ASSERT_EQ(0, put(s, r1, 3));
	usleep(20000);
	ASSERT_EQ(0, put(s, r1 + 3, sizeof(r1) - 3));
	ASSERT_EQ(0, get(c, in, sizeof(r1)));
	EXPECT_EQ(0, memcmp(in, r1, sizeof(r1)));
	ASSERT_EQ(0, put(s, r2, sizeof(r2)));
	EXPECT_TRUE(closed(c));
	close(c);
	close(s);
	EXPECT_EQ(1, log_has(&p, "dropped record 2 (content type 23, 7 bytes)"));
	EXPECT_EQ(0, proxy_stop(&p));
}

TEST(stall_on_command)
{
	unsigned char out[64], in[64];
	size_t n = frame(out, 4, 16, 4);
	char reply[256];
	struct proxy p;
	int64_t t0;
	int c, s;

	ASSERT_EQ(0, proxy_start(&p, NULL));
	ASSERT_EQ(0, pair(&p, &c, &s));
	t0 = now_ms();
	ASSERT_EQ(0, control(&p, "stall down 0.4", reply, sizeof(reply)));
	EXPECT_STREQ("ok stall down 0.4\n", reply);
	ASSERT_EQ(0, put(s, out, n));
	ASSERT_EQ(0, get(c, in, n));
	EXPECT_GE(now_ms() - t0, 400);
	/* the other direction was not stalled, and the stall is over */
	t0 = now_ms();
	ASSERT_EQ(0, control(&p, "stall up 0.4", reply, sizeof(reply)));
	ASSERT_EQ(0, put(s, out, n));
	ASSERT_EQ(0, get(c, in, n));
	ASSERT_EQ(0, put(c, out, n));
	ASSERT_EQ(0, get(s, in, n));
	EXPECT_GE(now_ms() - t0, 400);
	close(c);
	close(s);
	EXPECT_EQ(0, proxy_stop(&p));
}

/* hold N lets N records through, then none until "stall ... 0". */
TEST(hold_after_records)
{
	unsigned char out[3][64], in[64];
	size_t n[3];
	char reply[256];
	struct proxy p;
	struct pollfd pf;
	int c, s;

	for (int i = 0; i < 3; i++)
		n[i] = frame(out[i], 4, 16, i + 1);
	ASSERT_EQ(0, proxy_start(&p, NULL));
	ASSERT_EQ(0, pair(&p, &c, &s));
	ASSERT_EQ(0, control(&p, "hold down 2", reply, sizeof(reply)));
	EXPECT_STREQ("ok hold down 2\n", reply);
	for (int i = 0; i < 3; i++)
		ASSERT_EQ(0, put(s, out[i], n[i]));
	for (int i = 0; i < 2; i++) {
		ASSERT_EQ(0, get(c, in, n[i]));
		EXPECT_EQ(0, memcmp(in, out[i], n[i]));
	}
	/* the third is held, however long the client waits */
	pf = (struct pollfd){ .fd = c, .events = POLLIN };
	EXPECT_EQ(0, poll(&pf, 1, 300));
	EXPECT_EQ(1, log_has(&p, "record 3 held until released"));
	ASSERT_EQ(0, control(&p, "stall down 0", reply, sizeof(reply)));
	ASSERT_EQ(0, get(c, in, n[2]));
	EXPECT_EQ(0, memcmp(in, out[2], n[2]));
	close(c);
	close(s);
	EXPECT_EQ(0, proxy_stop(&p));
}

TEST(reset_refuse_and_a_dead_upstream)
{
	unsigned char out[64], in[64];
	size_t n = frame(out, 5, 16, 0);
	char reply[256];
	struct proxy p;
	int c, s;

	ASSERT_EQ(0, proxy_start(&p, NULL));
	ASSERT_EQ(0, pair(&p, &c, &s));
	ASSERT_EQ(0, control(&p, "reset", reply, sizeof(reply)));
	EXPECT_TRUE(closed(c));
	EXPECT_TRUE(closed(s));
	close(c);
	close(s);
	ASSERT_EQ(0, control(&p, "refuse on", reply, sizeof(reply)));
	c = dial(p.port);
	ASSERT_LE(0, c);
	EXPECT_TRUE(closed(c));
	EXPECT_EQ(-1, accept_within(p.ufd, 200));
	close(c);
	ASSERT_EQ(0, control(&p, "refuse off", reply, sizeof(reply)));
	ASSERT_EQ(0, pair(&p, &c, &s));
	ASSERT_EQ(0, put(c, out, n));
	ASSERT_EQ(0, get(s, in, n));
	close(c);
	close(s);
	/* nobody upstream: the client is reset */
	close(p.ufd);
	p.ufd = -1;
	c = dial(p.port);
	ASSERT_LE(0, c);
	EXPECT_TRUE(closed(c));
	close(c);
	ASSERT_EQ(0, control(&p, "stats", reply, sizeof(reply)));
	EXPECT_EQ(0, strncmp(reply, "ok connections 4 resets 3 ", 26));
	EXPECT_EQ(0, proxy_stop(&p));
}

TEST(bad_commands_are_refused)
{
	static const char *const bad[] = {
		"delay sideways 5", "delay up -1", "drop both 1", "drop up 0",
		"drop up 1.5", "loss up 2", "stall up x", "hold up 0",
		"hold down 1.5", "frobnicate", "",
	};
	char reply[256];
	struct proxy p;

	ASSERT_EQ(0, proxy_start(&p, NULL));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char cmd[64];

		snprintf(cmd, sizeof(cmd), "'%s'", bad[i]);
		EXPECT_EQ(1, control(&p, cmd, reply, sizeof(reply)));
		EXPECT_EQ(0, strncmp(reply, "error: ", 7)) {
			TH_LOG("%s: %s", bad[i], reply);
		}
	}
	EXPECT_EQ(0, proxy_stop(&p));
}

TEST_HARNESS_MAIN
