// SPDX-License-Identifier: GPL-2.0
/*
 * faultproxy: a TCP proxy that injects the network faults of a test across
 * labs, where the kernel has no sch_netem.  It forwards one listen address
 * to one upstream address and, per direction ("up" is client to server,
 * "down" server to client):
 *
 *   delay MS     a fixed one-way delay
 *   jitter MS    plus a uniform random delay in [0, MS], drawn per record
 *                from a seeded generator (the same seed and the same
 *                records give the same delays); records are never
 *                reordered, as TCP would not
 *   stall SEC    forwards nothing for SEC seconds (data waits); 0 ends a
 *                stall or a hold
 *   hold N       forwards the next N records, then nothing until
 *                "stall ... 0": a fault then lands at a step the test
 *                chose, however fast or slow the run goes
 *   drop N       drops the N-th record from now; the stream cannot carry
 *                on without it, so the connection then breaks: the rest of
 *                that direction is discarded and the connection is reset
 *                after the break delay (-b), as a loss TCP never recovers
 *                from would end
 *   loss P       each record is dropped so with probability P (seeded)
 *   reset        resets every connection now
 *   refuse on    new connections are reset on accept (an unreachable lab)
 *
 * The proxy ACKs at once (TCP_QUICKACK re-armed), so it adds the delay
 * to messages, not to TCP's acknowledgements: a Nagle sender is not held
 * back by it as it would be by a real long link.
 *
 * A record is a native-protocol frame (16-byte header, payload length at
 * offset 8, little-endian), a TLS record (5-byte header, length at offset
 * 3, big-endian), or a raw read (-f raw).  A record is forwarded whole once
 * its delay has passed.
 *
 * Commands come from -e at start-up and over the control socket (-C PATH,
 * one line per connection, answered with one line "ok ..." or "error
 * ..."); "faultproxy -c PATH COMMAND..." sends one.  Every action is
 * logged on stderr, one line each, with the time since start.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define MAX_CONNS 64
#define MAX_RECORD (1u << 24)	/* longer declared records: raw framing */
#define READ_CHUNK 65536
#define HIGH_WATER (8u << 20)	/* a direction stops reading above this */
#define CTL_MAX 512

enum framing { FRAME_NATIVE, FRAME_TLS, FRAME_RAW };
enum { UP, DOWN, NDIR };
static const char *const dir_name[NDIR] = { "up", "down" };

/* Bytes waiting in one direction, cut into records with release times. */
struct mark {
	size_t end;		/* offset in q just past the record */
	int64_t release_ns;
};

struct dir {
	unsigned char *q;
	size_t len, cap, sent;	/* q[sent..len) not yet written */
	struct mark *marks;
	size_t nmarks, capmarks, firstmark;
	size_t rec_start;	/* offset in q where the open record starts */
	bool raw;		/* framing lost (absurd length): raw reads */
	bool eof;		/* the source half-closed */
	bool shut;		/* shutdown(SHUT_WR) done on the sink */
	bool broken;		/* a record was dropped: discard the rest */
	uint64_t records;
};

struct conn {
	int id;
	int fd[NDIR];		/* fd[UP] is the client, fd[DOWN] upstream */
	bool connecting;
	struct dir d[NDIR];
	int64_t reset_at_ns;	/* > 0: reset then (after a drop) */
};

struct dirconf {
	int64_t delay_ns, jitter_ns;
	int64_t stall_until_ns;
	uint64_t drop_at;	/* 0: none; else the record count to drop */
	uint64_t hold_at;	/* 0: none; else the last record let through */
	bool holding;		/* records from then on wait for a release */
	double loss;
	uint64_t rng;
	uint64_t records, dropped, bytes;
	int64_t last_release_ns;
};

static struct {
	const char *name;
	enum framing framing;
	struct sockaddr_in listen_addr, upstream;
	int lfd, cfd;
	struct conn *conns[MAX_CONNS];
	int next_id;
	struct dirconf dc[NDIR];
	int64_t break_ns;
	bool refuse;
	int verbose;
	int64_t t0;
	uint64_t accepted, resets;
} P = { .name = "faultproxy", .lfd = -1, .cfd = -1 };

static volatile sig_atomic_t stop;

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void logf_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void logf_(const char *fmt, ...)
{
	va_list ap;
	char buf[512];

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s: %.3f %s\n", P.name,
		(now_ns() - P.t0) / 1e9, buf);
}

/* splitmix64: small, seedable, the same on every machine. */
static uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static double rng_unit(uint64_t *s)
{
	return (rng_next(s) >> 11) * (1.0 / 9007199254740992.0);
}

static int parse_addr(const char *s, struct sockaddr_in *a)
{
	char host[64];
	const char *colon = strrchr(s, ':');
	char *end;
	long port;

	if (!colon || (size_t)(colon - s) >= sizeof(host))
		return -1;
	memcpy(host, s, colon - s);
	host[colon - s] = 0;
	port = strtol(colon + 1, &end, 10);
	if (*end || end == colon + 1 || port < 0 || port > 65535)
		return -1;
	memset(a, 0, sizeof(*a));
	a->sin_family = AF_INET;
	a->sin_port = htons((uint16_t)port);
	return inet_pton(AF_INET, host[0] ? host : "0.0.0.0",
			 &a->sin_addr) == 1 ? 0 : -1;
}

static int set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

static void nodelay(int fd)
{
	int one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

/* Close with an RST rather than a FIN, as a broken link ends. */
static void close_rst(int fd)
{
	struct linger l = { .l_onoff = 1, .l_linger = 0 };

	if (fd < 0)
		return;
	setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
	close(fd);
}

static void dir_free(struct dir *d)
{
	free(d->q);
	free(d->marks);
}

static void conn_end(struct conn *c, bool rst, const char *why)
{
	for (int i = 0; i < MAX_CONNS; i++)
		if (P.conns[i] == c)
			P.conns[i] = NULL;
	logf_("conn %d: %s (%s; up %llu records, down %llu)", c->id,
	      rst ? "reset" : "closed", why,
	      (unsigned long long)c->d[UP].records,
	      (unsigned long long)c->d[DOWN].records);
	for (int k = 0; k < NDIR; k++) {
		if (rst)
			close_rst(c->fd[k]);
		else if (c->fd[k] >= 0)
			close(c->fd[k]);
		dir_free(&c->d[k]);
	}
	if (rst)
		P.resets++;
	free(c);
}

static int reserve(struct dir *d, size_t more)
{
	if (d->len + more > d->cap) {
		size_t cap = d->cap ? d->cap : 4096;
		unsigned char *q;

		while (cap < d->len + more)
			cap *= 2;
		q = realloc(d->q, cap);
		if (!q)
			return -1;
		d->q = q;
		d->cap = cap;
	}
	return 0;
}

static int push_mark(struct dir *d, size_t end, int64_t release)
{
	if (d->nmarks == d->capmarks) {
		size_t cap = d->capmarks ? 2 * d->capmarks : 16;
		struct mark *m = realloc(d->marks, cap * sizeof(*m));

		if (!m)
			return -1;
		d->marks = m;
		d->capmarks = cap;
	}
	d->marks[d->nmarks++] = (struct mark){ end, release };
	return 0;
}

/* Bytes of the record that starts at p (n bytes there so far): 0 while
 * its header is incomplete, SIZE_MAX if its length is absurd. */
static size_t record_size(const unsigned char *p, size_t n)
{
	uint32_t len;

	switch (P.framing) {
	case FRAME_NATIVE:
		if (n < 16)
			return 0;
		len = (uint32_t)p[8] | (uint32_t)p[9] << 8 |
		      (uint32_t)p[10] << 16 | (uint32_t)p[11] << 24;
		return len > MAX_RECORD ? SIZE_MAX : 16 + (size_t)len;
	case FRAME_TLS:
		if (n < 5)
			return 0;
		return 5 + ((size_t)p[3] << 8 | p[4]);
	default:
		return n;
	}
}

static void describe(const unsigned char *p, size_t n, char *buf,
		     size_t size)
{
	if (P.framing == FRAME_NATIVE && n >= 8)
		snprintf(buf, size, "type %u, %zu bytes", p[6] | p[7] << 8, n);
	else if (P.framing == FRAME_TLS && n >= 1)
		snprintf(buf, size, "content type %u, %zu bytes", p[0], n);
	else
		snprintf(buf, size, "%zu bytes", n);
}

/* A whole record has arrived in direction k: drop it or give it its
 * release time. */
static void record_done(struct conn *c, int k, size_t size, int64_t now)
{
	struct dir *d = &c->d[k];
	struct dirconf *dc = &P.dc[k];
	unsigned char *p = d->q + d->rec_start;
	bool drop = false;
	char what[64];
	int64_t rel;

	d->records++;
	dc->records++;
	describe(p, size, what, sizeof(what));
	if (dc->hold_at && dc->records > dc->hold_at) {
		dc->holding = true;
		dc->hold_at = 0;
		logf_("conn %d %s: record %llu held until released",
		      c->id, dir_name[k], (unsigned long long)dc->records);
	}
	if (dc->drop_at && dc->records == dc->drop_at) {
		drop = true;
		dc->drop_at = 0;
	} else if (dc->loss > 0 && rng_unit(&dc->rng) < dc->loss) {
		drop = true;
	}
	if (drop) {
		dc->dropped++;
		d->broken = true;
		d->len = d->rec_start;
		c->reset_at_ns = now + P.break_ns;
		logf_("conn %d %s: dropped record %llu (%s); the connection breaks, reset in %lld ms",
		      c->id, dir_name[k], (unsigned long long)dc->records,
		      what, (long long)(P.break_ns / 1000000));
		return;
	}
	rel = now + dc->delay_ns;
	if (dc->jitter_ns > 0) {
		int64_t j = (int64_t)(rng_unit(&dc->rng) * dc->jitter_ns);

		rel += j;
		if (P.verbose)
			logf_("conn %d %s: record %llu jitter %.6f ms", c->id,
			      dir_name[k], (unsigned long long)dc->records,
			      j / 1e6);
	}
	if (dc->holding)
		rel = INT64_MAX;
	/* TCP keeps order: a record never overtakes the one before. */
	if (rel < dc->last_release_ns)
		rel = dc->last_release_ns;
	dc->last_release_ns = rel;
	dc->bytes += size;
	if (P.verbose)
		logf_("conn %d %s: record %llu (%s) delayed %.3f ms", c->id,
		      dir_name[k], (unsigned long long)dc->records, what,
		      (rel - now) / 1e6);
	d->rec_start += size;
	if (push_mark(d, d->rec_start, rel))
		c->reset_at_ns = now;	/* out of memory: give up this one */
}

/* Cut whatever whole records direction k now holds. */
static void cut_records(struct conn *c, int k, int64_t now)
{
	struct dir *d = &c->d[k];

	while (!d->broken && d->rec_start < d->len) {
		size_t have = d->len - d->rec_start;
		size_t size = d->raw ? have :
			record_size(d->q + d->rec_start, have);

		if (size == SIZE_MAX) {
			logf_("conn %d %s: record length beyond %u bytes: raw framing from here",
			      c->id, dir_name[k], MAX_RECORD);
			d->raw = true;
			continue;
		}
		if (size == 0 || size > have)
			break;
		record_done(c, k, size, now);
	}
}

/* Drop the bytes already written from the front of q. */
static void compact(struct dir *d)
{
	size_t s = d->sent;

	if (s == d->len && d->rec_start == s && d->firstmark == d->nmarks) {
		d->len = d->sent = d->rec_start = 0;
		d->nmarks = d->firstmark = 0;
		return;
	}
	if (s == 0 || s < d->cap / 2)
		return;
	memmove(d->q, d->q + s, d->len - s);
	d->len -= s;
	d->rec_start -= s;
	for (size_t i = d->firstmark; i < d->nmarks; i++)
		d->marks[i - d->firstmark] = (struct mark){
			d->marks[i].end - s, d->marks[i].release_ns };
	d->nmarks -= d->firstmark;
	d->firstmark = 0;
	d->sent = 0;
}

/* "stall ... 0": the stall ends, and held records go now. */
static void release(int k, int64_t now)
{
	struct dirconf *dc = &P.dc[k];

	dc->stall_until_ns = 0;
	if (!dc->holding)
		return;
	dc->holding = false;
	dc->last_release_ns = now;
	for (int i = 0; i < MAX_CONNS; i++) {
		struct dir *d = P.conns[i] ? &P.conns[i]->d[k] : NULL;

		for (size_t m = d ? d->firstmark : 0; d && m < d->nmarks; m++)
			if (d->marks[m].release_ns == INT64_MAX)
				d->marks[m].release_ns = now;
	}
}

/* The end of what direction k may write now, and the next release time
 * (0: none pending). */
static size_t releasable(struct conn *c, int k, int64_t now, int64_t *next)
{
	struct dir *d = &c->d[k];
	size_t end = d->sent;

	*next = 0;
	if (now < P.dc[k].stall_until_ns) {
		if (d->firstmark < d->nmarks)
			*next = P.dc[k].stall_until_ns;
		return end;
	}
	for (size_t i = d->firstmark; i < d->nmarks; i++) {
		if (d->marks[i].release_ns > now) {
			*next = d->marks[i].release_ns;
			break;
		}
		end = d->marks[i].end;
	}
	return end;
}

/* Returns -1 when the connection must end. */
static int do_write(struct conn *c, int k, int64_t now)
{
	struct dir *d = &c->d[k];
	int sink = c->fd[1 - k];
	int64_t next;
	size_t end = releasable(c, k, now, &next);

	if (c->connecting)
		return 0;
	while (d->sent < end) {
		ssize_t n = send(sink, d->q + d->sent, end - d->sent,
				 MSG_NOSIGNAL);

		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				break;
			return -1;
		}
		d->sent += n;
	}
	while (d->firstmark < d->nmarks &&
	       d->marks[d->firstmark].end <= d->sent)
		d->firstmark++;
	compact(d);
	if (d->eof && !d->shut && d->sent == d->len) {
		shutdown(sink, SHUT_WR);
		d->shut = true;
	}
	return 0;
}

static int do_read(struct conn *c, int k, int64_t now)
{
	struct dir *d = &c->d[k];
	ssize_t n;

	if (reserve(d, READ_CHUNK))
		return -1;
	n = recv(c->fd[k], d->q + d->len, READ_CHUNK, 0);
	/* ACK at once, as a site does: the proxy carries messages' delay;
	 * its own delayed ACKs would hold a Nagle sender back. */
	setsockopt(c->fd[k], IPPROTO_TCP, TCP_QUICKACK, &(int){ 1 },
		   sizeof(int));
	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -1;
	if (n == 0) {
		d->eof = true;
		return 0;
	}
	if (d->broken)		/* the stream is lost past the drop */
		return 0;
	d->len += n;
	cut_records(c, k, now);
	return 0;
}

static void accept_one(int64_t now)
{
	int fd = accept(P.lfd, NULL, NULL), up, slot = -1;
	struct conn *c;

	if (fd < 0)
		return;
	P.accepted++;
	if (P.refuse) {
		logf_("connection refused (refuse on): reset");
		close_rst(fd);
		P.resets++;
		return;
	}
	for (int i = 0; i < MAX_CONNS; i++)
		if (!P.conns[i]) {
			slot = i;
			break;
		}
	c = slot < 0 ? NULL : calloc(1, sizeof(*c));
	if (!c) {
		logf_("connection refused: %d connections at once", MAX_CONNS);
		close_rst(fd);
		return;
	}
	up = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	set_nonblock(fd);
	nodelay(fd);
	c->id = ++P.next_id;
	c->fd[UP] = fd;
	c->fd[DOWN] = up;
	P.conns[slot] = c;
	if (up < 0 || (connect(up, (struct sockaddr *)&P.upstream,
			       sizeof(P.upstream)) && errno != EINPROGRESS)) {
		conn_end(c, true, "upstream unreachable");
		return;
	}
	nodelay(up);
	c->connecting = true;
	logf_("conn %d: accepted", c->id);
	(void)now;
}

static void reset_all(const char *why)
{
	for (int i = 0; i < MAX_CONNS; i++)
		if (P.conns[i])
			conn_end(P.conns[i], true, why);
}

static int parse_dirs(const char *s, int *lo, int *hi)
{
	if (!strcmp(s, "up"))
		*lo = *hi = UP;
	else if (!strcmp(s, "down"))
		*lo = *hi = DOWN;
	else if (!strcmp(s, "both"))
		*lo = UP, *hi = DOWN;
	else
		return -1;
	return 0;
}

static int parse_num(const char *s, double lo, double hi, double *v)
{
	char *end;

	if (!s)
		return -1;
	errno = 0;
	*v = strtod(s, &end);
	return errno || *end || end == s || *v < lo || *v > hi ? -1 : 0;
}

/* Execute one command; the answer goes to out. */
static void command(char *line, char *out, size_t size)
{
	char *argv[4] = { 0 }, *save = NULL;
	int argc = 0, lo, hi;
	double v;
	int64_t now = now_ns();

	for (char *t = strtok_r(line, " \t\r\n", &save); t && argc < 4;
	     t = strtok_r(NULL, " \t\r\n", &save))
		argv[argc++] = t;
	if (!argc) {
		snprintf(out, size, "error: empty command");
		return;
	}
	if (!strcmp(argv[0], "reset") && argc == 1) {
		reset_all("reset command");
		snprintf(out, size, "ok reset");
	} else if (!strcmp(argv[0], "refuse") && argc == 2 &&
		   (!strcmp(argv[1], "on") || !strcmp(argv[1], "off"))) {
		P.refuse = !strcmp(argv[1], "on");
		snprintf(out, size, "ok refuse %s", argv[1]);
	} else if (!strcmp(argv[0], "stats") && argc == 1) {
		snprintf(out, size,
			 "ok connections %llu resets %llu up records %llu dropped %llu down records %llu dropped %llu",
			 (unsigned long long)P.accepted,
			 (unsigned long long)P.resets,
			 (unsigned long long)P.dc[UP].records,
			 (unsigned long long)P.dc[UP].dropped,
			 (unsigned long long)P.dc[DOWN].records,
			 (unsigned long long)P.dc[DOWN].dropped);
	} else if (!strcmp(argv[0], "quit") && argc == 1) {
		stop = 1;
		snprintf(out, size, "ok quit");
	} else if (argc == 3 && !parse_dirs(argv[1], &lo, &hi) &&
		   (!strcmp(argv[0], "delay") || !strcmp(argv[0], "jitter") ||
		    !strcmp(argv[0], "stall") || !strcmp(argv[0], "drop") ||
		    !strcmp(argv[0], "hold") || !strcmp(argv[0], "loss"))) {
		bool drop = !strcmp(argv[0], "drop");
		bool hold = !strcmp(argv[0], "hold");
		bool loss = !strcmp(argv[0], "loss");
		bool count = drop || hold;

		if (parse_num(argv[2], count ? 1 : 0,
			      loss ? 1 : count ? 1e15 : 3600e3, &v) ||
		    (count && v != (uint64_t)v) || (drop && lo != hi)) {
			snprintf(out, size, "error: %s %s: bad value '%s'",
				 argv[0], argv[1], argv[2]);
			return;
		}
		for (int k = lo; k <= hi; k++) {
			struct dirconf *dc = &P.dc[k];

			if (!strcmp(argv[0], "delay"))
				dc->delay_ns = (int64_t)(v * 1e6);
			else if (!strcmp(argv[0], "jitter"))
				dc->jitter_ns = (int64_t)(v * 1e6);
			else if (!strcmp(argv[0], "stall") && v)
				dc->stall_until_ns = now + (int64_t)(v * 1e9);
			else if (!strcmp(argv[0], "stall"))
				release(k, now);
			else if (drop)
				dc->drop_at = dc->records + (uint64_t)v;
			else if (hold)
				dc->hold_at = dc->records + (uint64_t)v;
			else
				dc->loss = v;
		}
		snprintf(out, size, "ok %s %s %s", argv[0], argv[1], argv[2]);
	} else {
		snprintf(out, size, "error: unknown command '%s' (or wrong arguments)",
			 argv[0]);
		return;
	}
	logf_("command: %s", out + 3);
}

static void control_one(void)
{
	int fd = accept(P.cfd, NULL, NULL);
	char line[CTL_MAX], out[CTL_MAX];
	size_t n = 0;
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	if (fd < 0)
		return;
	/* One short line; a client that sends nothing is given up on. */
	while (n < sizeof(line) - 1 && poll(&pfd, 1, 1000) == 1) {
		ssize_t r = read(fd, line + n, sizeof(line) - 1 - n);

		if (r <= 0)
			break;
		n += r;
		if (memchr(line, '\n', n))
			break;
	}
	line[n] = 0;
	command(line, out, sizeof(out));
	strcat(out, "\n");
	if (write(fd, out, strlen(out)) < 0)
		logf_("control: reply lost: %s", strerror(errno));
	close(fd);
}

static int send_command(const char *path, int argc, char **argv)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	char line[CTL_MAX] = "", reply[CTL_MAX];
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);
	ssize_t n;

	if (strlen(path) >= sizeof(a.sun_path)) {
		fprintf(stderr, "faultproxy: %s: path too long\n", path);
		return 2;
	}
	strcpy(a.sun_path, path);
	for (int i = 0; i < argc; i++) {
		if (strlen(line) + strlen(argv[i]) + 2 >= sizeof(line))
			break;
		strcat(line, argv[i]);
		strcat(line, i < argc - 1 ? " " : "\n");
	}
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		fprintf(stderr, "faultproxy: %s: %s\n", path, strerror(errno));
		return 2;
	}
	if (write(fd, line, strlen(line)) < 0)
		return 2;
	n = read(fd, reply, sizeof(reply) - 1);
	close(fd);
	if (n <= 0) {
		fprintf(stderr, "faultproxy: %s: no answer\n", path);
		return 2;
	}
	reply[n] = 0;
	fputs(reply, stdout);
	return strncmp(reply, "ok", 2) ? 1 : 0;
}

static int open_control(const char *path)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };

	if (strlen(path) >= sizeof(a.sun_path))
		return -1;
	strcpy(a.sun_path, path);
	unlink(path);
	P.cfd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
	if (P.cfd < 0 || bind(P.cfd, (struct sockaddr *)&a, sizeof(a)) ||
	    listen(P.cfd, 8))
		return -1;
	return 0;
}

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void usage(FILE *f)
{
	fputs("Usage: faultproxy [OPTIONS] LISTEN_ADDR:PORT UPSTREAM_ADDR:PORT\n"
	      "       faultproxy -c CONTROL_PATH COMMAND...\n"
	      "A TCP proxy that injects delay, jitter, stalls, drops and resets.\n"
	      "  -f native|tls|raw  what a record is (default native)\n"
	      "  -s SEED            seed of jitter and loss (default 1)\n"
	      "  -b MS              after a drop, reset the connection this much later\n"
	      "                     (default 0)\n"
	      "  -e COMMAND         run a command at start (repeatable)\n"
	      "  -C PATH            listen for commands on this Unix socket\n"
	      "  -n NAME            name in the log lines\n"
	      "  -p FILE            write the bound port here once listening\n"
	      "  -v                 log every record\n"
	      "  -h, --help         this text\n"
	      "Commands: delay|jitter up|down|both MS; stall up|down|both SECONDS;\n"
	      "  drop up|down N (the N-th record from now); loss up|down|both P;\n"
	      "  hold up|down|both N (N more records, then none until stall ... 0);\n"
	      "  reset; refuse on|off; stats; quit\n", f);
}

/* Earliest time something is due: a release or a reset. */
static int64_t next_due(int64_t now)
{
	int64_t due = 0;

	for (int i = 0; i < MAX_CONNS; i++) {
		struct conn *c = P.conns[i];

		if (!c)
			continue;
		if (c->reset_at_ns && (!due || c->reset_at_ns < due))
			due = c->reset_at_ns;
		for (int k = 0; k < NDIR; k++) {
			int64_t next;

			releasable(c, k, now, &next);
			if (next && (!due || next < due))
				due = next;
		}
	}
	return due;
}

static void service(struct conn *c, struct pollfd *pf, int64_t now)
{
	if (c->connecting) {
		int err = 0;
		socklen_t l = sizeof(err);

		if (!(pf[DOWN].revents & (POLLOUT | POLLERR | POLLHUP)))
			return;
		getsockopt(c->fd[DOWN], SOL_SOCKET, SO_ERROR, &err, &l);
		if (err) {
			logf_("conn %d: upstream: %s", c->id, strerror(err));
			conn_end(c, true, "upstream unreachable");
			return;
		}
		c->connecting = false;
	}
	for (int k = 0; k < NDIR; k++) {
		if ((pf[k].revents & (POLLIN | POLLHUP | POLLERR)) &&
		    do_read(c, k, now)) {
			conn_end(c, true, k == UP ? "client error" :
				 "upstream error");
			return;
		}
	}
	for (int k = 0; k < NDIR; k++) {
		if (do_write(c, k, now)) {
			conn_end(c, true, k == UP ? "upstream error" :
				 "client error");
			return;
		}
	}
	if (c->reset_at_ns && now >= c->reset_at_ns) {
		conn_end(c, true, "broken by a drop");
		return;
	}
	/* Both halves closed and flushed: a clean end. */
	if (c->d[UP].shut && c->d[DOWN].shut)
		conn_end(c, false, "both sides closed");
	else if ((c->d[UP].eof && c->d[UP].broken) ||
		 (c->d[DOWN].eof && c->d[DOWN].broken))
		conn_end(c, true, "closed after a drop");
}

static int run(void)
{
	struct pollfd pfd[2 + 2 * MAX_CONNS];
	struct conn *polled[MAX_CONNS];

	while (!stop) {
		int64_t now = now_ns(), due = next_due(now);
		int n = 0, np = 0;
		struct timespec ts, *timeout = NULL;

		pfd[n++] = (struct pollfd){ .fd = P.lfd, .events = POLLIN };
		pfd[n++] = (struct pollfd){ .fd = P.cfd, .events = POLLIN };
		for (int i = 0; i < MAX_CONNS; i++) {
			struct conn *c = P.conns[i];

			if (!c)
				continue;
			polled[np++] = c;
			for (int k = 0; k < NDIR; k++) {
				struct dir *d = &c->d[k];
				int64_t next;
				short ev = 0;

				if (!d->eof && !(c->connecting && k == UP) &&
				    d->len - d->sent < HIGH_WATER)
					ev |= POLLIN;
				/* the sink of direction 1-k is fd[k]; only
				 * released bytes wait for it (held ones wait
				 * for the timeout) */
				if (c->connecting ? k == DOWN :
				    releasable(c, 1 - k, now, &next) >
				    c->d[1 - k].sent)
					ev |= POLLOUT;
				/* nothing to wait for (a closed half would
				 * keep poll awake): errors show on write */
				pfd[n++] = (struct pollfd){
					.fd = ev || !d->eof ? c->fd[k] : -1,
					.events = ev };
			}
		}
		/* to the nanosecond: poll's milliseconds would add up to
		 * one to every delay */
		if (due) {
			int64_t left = due > now ? due - now : 0;

			ts.tv_sec = left / 1000000000;
			ts.tv_nsec = left % 1000000000;
			timeout = &ts;
		}
		if (ppoll(pfd, n, timeout, NULL) < 0) {
			if (errno == EINTR)
				continue;
			logf_("poll: %s", strerror(errno));
			return 1;
		}
		now = now_ns();
		for (int i = 0; i < np; i++)
			service(polled[i], &pfd[2 + 2 * i], now);
		if (pfd[0].revents & POLLIN)
			accept_one(now);
		if (P.cfd >= 0 && (pfd[1].revents & POLLIN))
			control_one();
	}
	reset_all("the proxy stops");
	logf_("stopped: %llu connections, %llu resets; up %llu records %llu dropped, down %llu records %llu dropped",
	      (unsigned long long)P.accepted, (unsigned long long)P.resets,
	      (unsigned long long)P.dc[UP].records,
	      (unsigned long long)P.dc[UP].dropped,
	      (unsigned long long)P.dc[DOWN].records,
	      (unsigned long long)P.dc[DOWN].dropped);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' }, { 0 }
	};
	const char *cmds[32], *control = NULL, *portfile = NULL;
	int ncmds = 0, opt, one = 1;
	uint64_t seed = 1;
	double v;
	struct sockaddr_in bound;
	socklen_t bl = sizeof(bound);

	P.t0 = now_ns();
	setvbuf(stderr, NULL, _IOLBF, 0);
	while ((opt = getopt_long(argc, argv, "+f:s:b:e:C:c:n:p:vh", longopts,
				  NULL)) != -1) {
		switch (opt) {
		case 'f':
			if (!strcmp(optarg, "native"))
				P.framing = FRAME_NATIVE;
			else if (!strcmp(optarg, "tls"))
				P.framing = FRAME_TLS;
			else if (!strcmp(optarg, "raw"))
				P.framing = FRAME_RAW;
			else {
				fprintf(stderr, "faultproxy: -f %s: expected native, tls or raw\n",
					optarg);
				return 2;
			}
			break;
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'b':
			if (parse_num(optarg, 0, 3600e3, &v)) {
				fprintf(stderr, "faultproxy: -b %s: expected milliseconds\n",
					optarg);
				return 2;
			}
			P.break_ns = (int64_t)(v * 1e6);
			break;
		case 'e':
			if (ncmds == 32) {
				fprintf(stderr, "faultproxy: at most 32 -e\n");
				return 2;
			}
			cmds[ncmds++] = optarg;
			break;
		case 'C':
			control = optarg;
			break;
		case 'c':
			return send_command(optarg, argc - optind,
					    argv + optind);
		case 'n':
			P.name = optarg;
			break;
		case 'p':
			portfile = optarg;
			break;
		case 'v':
			P.verbose++;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (argc - optind != 2 || parse_addr(argv[optind], &P.listen_addr) ||
	    parse_addr(argv[optind + 1], &P.upstream)) {
		fprintf(stderr, "faultproxy: expected LISTEN_ADDR:PORT UPSTREAM_ADDR:PORT (IPv4)\n");
		usage(stderr);
		return 2;
	}
	for (int k = 0; k < NDIR; k++)
		P.dc[k].rng = seed * 2 + k;
	signal(SIGPIPE, SIG_IGN);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	P.lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	if (P.lfd < 0 ||
	    setsockopt(P.lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(P.lfd, (struct sockaddr *)&P.listen_addr,
		 sizeof(P.listen_addr)) || listen(P.lfd, 64) ||
	    getsockname(P.lfd, (struct sockaddr *)&bound, &bl)) {
		fprintf(stderr, "faultproxy: %s: %s\n", argv[optind],
			strerror(errno));
		return 1;
	}
	if (control && open_control(control)) {
		fprintf(stderr, "faultproxy: control socket %s: %s\n", control,
			strerror(errno));
		return 1;
	}
	for (int i = 0; i < ncmds; i++) {
		char line[CTL_MAX], out[CTL_MAX];

		snprintf(line, sizeof(line), "%s", cmds[i]);
		command(line, out, sizeof(out));
		if (strncmp(out, "ok", 2)) {
			fprintf(stderr, "faultproxy: -e '%s': %s\n", cmds[i],
				out);
			return 2;
		}
	}
	logf_("listening on %s:%u, upstream %s", argv[optind] ,
	      ntohs(bound.sin_port), argv[optind + 1]);
	if (portfile) {
		FILE *f = fopen(portfile, "w");

		if (!f || fprintf(f, "%u\n", ntohs(bound.sin_port)) < 0 ||
		    fclose(f)) {
			fprintf(stderr, "faultproxy: %s: %s\n", portfile,
				strerror(errno));
			return 1;
		}
	}
	return run();
}
