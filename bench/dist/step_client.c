// SPDX-License-Identifier: GPL-2.0
/*
 * bench-dist's client of one substructure: STEPS steps in one protocol,
 * timed, for the comparison of OpenFresco's messages per step with the
 * native protocol's one round trip (bench/dist/bench-dist.sh).
 *
 *   native   HELLO/WELCOME, then STEP -> RESULT per step (2 messages),
 *            TCP_NODELAY as rths-coord
 *   a        ShadowExpSite (OpenFresco protocol A): [3] trial, [6] -> daq
 *            reply, [5] commit (3 messages + 1 reply), Nagle on as
 *            OpenFresco leaves it
 *   c        OpenSees GenericClient (protocol C): [3] trial, [10] -> forces,
 *            [5] commit; the first step also asks [12] and [15]
 *
 * The messages follow OpenFresco's sources as tests/site/test_site.c
 * does.  It prints one line:
 *
 *   protocol native ndof 2 steps 200 messages/step 2 bytes/step 144
 *   seconds 0.0123 step_ms mean 0.061 min 0.050 max 0.310
 *
 * and checks that every reply belongs to its step (the native RESULT's
 * sequence number, A's echoed displacement).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "wire.h"

#define NS 256			/* OpenFresco's fixed message: 256 doubles */
#define IO_MS 30000

static int io_ms = IO_MS;
static uint64_t bytes;		/* sent and received, both ways */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int dial(const char *addr, int nodelay)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	char host[64];
	const char *colon = strrchr(addr, ':');
	int fd;

	if (!colon || (size_t)(colon - addr) >= sizeof(host))
		return -1;
	memcpy(host, addr, colon - addr);
	host[colon - addr] = 0;
	sa.sin_port = htons(atoi(colon + 1));
	if (inet_pton(AF_INET, host, &sa.sin_addr) != 1)
		return -1;
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		fprintf(stderr, "step_client: %s: %s\n", addr,
			strerror(errno));
		return -1;
	}
	if (nodelay)
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &nodelay,
			   sizeof(nodelay));
	return fd;
}

static int put(int fd, const void *b, size_t len)
{
	bytes += len;
	return send(fd, b, len, MSG_NOSIGNAL) == (ssize_t)len ? 0 : -1;
}

static int get(int fd, void *b, size_t len)
{
	size_t have = 0;

	while (have < len) {
		struct pollfd p = { fd, POLLIN, 0 };
		ssize_t r;

		if (poll(&p, 1, io_ms) <= 0)
			return -1;
		r = recv(fd, (char *)b + have, len - have, 0);
		if (r <= 0)
			return -1;
		have += r;
	}
	bytes += len;
	return 0;
}

/* The trial of step i: a slow sine per DOF, the same on every run. */
static void trial(int i, int n, double *u, double *v, double *a)
{
	for (int k = 0; k < n; k++) {
		double w = 2 * M_PI * (1 + k), t = i * 0.01;

		u[k] = 1e-3 * sin(w * t);
		v[k] = 1e-3 * w * cos(w * t);
		a[k] = -1e-3 * w * w * sin(w * t);
	}
}

struct stats {
	double sum, min, max;
	uint64_t bytes0, bytes1;	/* at the first and after the last
					 * timed step */
};

static void stat_add(struct stats *s, double dt, int first)
{
	s->bytes1 = bytes;
	s->sum += dt;
	if (first || dt < s->min)
		s->min = dt;
	if (first || dt > s->max)
		s->max = dt;
}

/* ---------------------------------------------------------- native */

/* One frame of the expected type into *p (malloc'ed), its length in len. */
static int rnp_get(int fd, unsigned type, unsigned char **p, size_t *len)
{
	unsigned char hdr[RNP_HDR_SIZE];
	struct rnp_hdr h;
	char why[128];

	if (get(fd, hdr, sizeof(hdr)))
		return -1;
	if (rnp_parse_hdr(hdr, &h, why, sizeof(why))) {
		fprintf(stderr, "step_client: %s\n", why);
		return -1;
	}
	*p = malloc(h.length ? h.length : 1);
	if (!*p || get(fd, *p, h.length))
		return -1;
	*len = h.length;
	if (h.type == RNP_ERROR) {
		struct rnp_errmsg e;

		if (!rnp_parse_error(*p, *len, &e, NULL, 0))
			fprintf(stderr, "step_client: ERROR %s: %s\n",
				rnp_error_name(e.code), e.text);
		return -1;
	}
	if (h.type != type) {
		fprintf(stderr, "step_client: %s where %s was expected\n",
			rnp_type_name(h.type), rnp_type_name(type));
		return -1;
	}
	return 0;
}

static int rnp_send(int fd, struct rnp_buf *b)
{
	int rc = put(fd, b->p, b->len);

	b->len = 0;
	return rc;
}

static int run_native(int fd, const char *name, int n, int steps,
		      struct stats *st)
{
	struct rnp_hello h = { .version_min = 1, .version_max = 1,
			       .flags = RNP_HELLO_RESET, .ndof = n };
	struct rnp_welcome w;
	struct rnp_buf b = { 0 };
	double u[RNP_MAX_DOF], v[RNP_MAX_DOF], a[RNP_MAX_DOF];
	double disp[RNP_MAX_DOF], force[RNP_MAX_DOF];
	unsigned char *p = NULL;
	size_t len;
	char why[128];
	int rc = -1;

	h.test_id = (uint64_t)time(NULL) << 16 | (getpid() & 0xffff);
	snprintf(h.substructure, sizeof(h.substructure), "%s", name);
	if (rnp_put_hello(&b, &h) || rnp_send(fd, &b) ||
	    rnp_get(fd, RNP_WELCOME, &p, &len) ||
	    rnp_parse_welcome(p, len, &w, why, sizeof(why)) ||
	    w.ndof != (uint32_t)n)
		goto out;
	for (int i = 0; i <= steps; i++) {
		struct rnp_step s = { .seq = i + 1, .t = (i + 1) * 0.01,
				      .flags = RNP_STEP_VEL | RNP_STEP_ACC,
				      .ndof = n, .u = u, .v = v, .a = a };
		struct rnp_result r = { .disp = disp, .force = force };
		double t0 = now_s();

		if (i == 1)
			st->bytes0 = bytes;
		trial(i, n, u, v, a);
		free(p);
		p = NULL;
		if (rnp_put_step(&b, &s) || rnp_send(fd, &b) ||
		    rnp_get(fd, RNP_RESULT, &p, &len) ||
		    rnp_parse_result(p, len, &r, n, why, sizeof(why)))
			goto out;
		if (r.seq != s.seq || (r.flags & RNP_RES_CACHED)) {
			fprintf(stderr, "step_client: RESULT %llu for STEP %llu\n",
				(unsigned long long)r.seq,
				(unsigned long long)s.seq);
			goto out;
		}
		if (i > 0)	/* step 0 warms up */
			stat_add(st, now_s() - t0, i == 1);
	}
	if (rnp_put_bye(&b) || rnp_send(fd, &b))
		goto out;
	rc = 0;
out:
	free(p);
	rnp_buf_free(&b);
	return rc;
}

/* --------------------------------------------------------------- A */

static int run_a(int fd, int n, int steps, struct stats *st)
{
	double m[NS] = { 1, 7, 2.8 }, r[NS];
	int32_t one = 1, peer;
	int32_t sizes[10] = { n, n, n, 0, 1, n, n, n, n, 1 };
	int ds = 4 * n + 1 > 3 * n + 2 ? 4 * n + 1 : 3 * n + 2;

	if (ds < 256)
		ds = 256;
	if (put(fd, &one, 4) || get(fd, &peer, 4) || peer != 1 ||
	    put(fd, m, sizeof(m)) || get(fd, r, sizeof(r)) || r[0] != 0)
		return -1;
	memset(m, 0, sizeof(m));
	m[0] = 2;
	m[1] = ds;
	m[2] = 2.8;
	if (put(fd, m, sizeof(m)) || put(fd, sizes, sizeof(sizes)))
		return -1;
	for (int i = 0; i <= steps; i++) {
		double t0 = now_s(), t = (i + 1) * 0.01;

		if (i == 1)
			st->bytes0 = bytes;
		memset(m, 0, sizeof(m));
		m[0] = 3;
		trial(i, n, m + 1, m + 1 + n, m + 1 + 2 * n);
		m[1 + 3 * n] = t;
		if (put(fd, m, ds * sizeof(double)))
			return -1;
		m[0] = 6;
		if (put(fd, m, ds * sizeof(double)) ||
		    get(fd, r, ds * sizeof(double)))
			return -1;
		if (memcmp(r, m + 1, n * sizeof(double))) {
			fprintf(stderr, "step_client: A: the reply is not step %d's\n",
				i);
			return -1;
		}
		m[0] = 5;
		m[1 + 3 * n] = 2 * t;	/* as ShadowExpSite's commit */
		if (put(fd, m, ds * sizeof(double)))
			return -1;
		if (i > 0)
			stat_add(st, now_s() - t0, i == 1);
	}
	memset(m, 0, sizeof(m));
	m[0] = 99;
	m[1] = 7;
	if (put(fd, m, ds * sizeof(double)) ||
	    get(fd, r, ds * sizeof(double)) || r[0] != 4)
		return -1;
	return 0;
}

/* --------------------------------------------------------------- C */

static int c_ask(int fd, double *m, int code, double *r)
{
	m[0] = code;
	if (put(fd, m, NS * sizeof(double)))
		return -1;
	return get(fd, r, NS * sizeof(double));
}

static int run_c(int fd, int n, int steps, struct stats *st)
{
	int32_t hdr[11] = { n, n, n, 0, 1, 0, 0, 0, n, 0, NS };
	double m[NS] = { 0 }, r[NS];

	if (n * n > NS || 3 * n + 2 > NS || put(fd, hdr, sizeof(hdr)))
		return -1;
	for (int i = 0; i <= steps; i++) {
		double t0 = now_s();

		if (i == 1)
			st->bytes0 = bytes;
		m[0] = 3;
		trial(i, n, m + 1, m + 1 + n, m + 1 + 2 * n);
		m[1 + 3 * n] = (i + 1) * 0.01;
		if (put(fd, m, sizeof(m)))
			return -1;
		if (i == 0 && (c_ask(fd, m, 12, r) || c_ask(fd, m, 15, r)))
			return -1;
		if (c_ask(fd, m, 10, r))
			return -1;
		m[0] = 5;
		if (put(fd, m, sizeof(m)))
			return -1;
		if (i > 0)
			stat_add(st, now_s() - t0, i == 1);
	}
	m[0] = 99;
	return put(fd, m, sizeof(m));
}

static void usage(FILE *f)
{
	fputs("Usage: step_client [-P native|a|c] [-n NDOF] [-s STEPS] [-N NAME] [-w MS]\n"
	      "                   [-D] ADDR:PORT\n"
	      "Times STEPS steps against one substructure of rths-site.\n"
	      "  -P  protocol: native (default), a (ShadowExpSite: 3, 6, 5),\n"
	      "      c (GenericClient: 3, 10, 5)\n"
	      "  -n  DOF (default 1)    -s  timed steps (default 100)\n"
	      "  -N  native: the substructure's name (default pier1)\n"
	      "  -w  give up after MS without a reply (default 30000)\n"
	      "  -D  TCP_NODELAY on an OpenFresco client too (OpenFresco\n"
	      "      leaves Nagle on; the native client always sets it)\n", f);
}

int main(int argc, char **argv)
{
	static const struct option lo[] = { { "help", no_argument, NULL, 'h' },
					    { 0 } };
	const char *proto = "native", *name = "pier1";
	int n = 1, steps = 100, opt, fd, rc, nodelay = 0;
	struct stats st = { 0 };
	double t0, total;

	while ((opt = getopt_long(argc, argv, "P:n:s:N:w:Dh", lo, NULL)) != -1) {
		switch (opt) {
		case 'P':
			proto = optarg;
			break;
		case 'n':
			n = atoi(optarg);
			break;
		case 's':
			steps = atoi(optarg);
			break;
		case 'N':
			name = optarg;
			break;
		case 'w':
			io_ms = atoi(optarg);
			break;
		case 'D':
			nodelay = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc - 1 || n < 1 || n > 16 || steps < 1 ||
	    (strcmp(proto, "native") && strcmp(proto, "a") &&
	     strcmp(proto, "c"))) {
		usage(stderr);
		return 2;
	}
	fd = dial(argv[optind], nodelay || !strcmp(proto, "native"));
	if (fd < 0)
		return 1;
	t0 = now_s();
	if (!strcmp(proto, "native"))
		rc = run_native(fd, name, n, steps, &st);
	else if (!strcmp(proto, "a"))
		rc = run_a(fd, n, steps, &st);
	else
		rc = run_c(fd, n, steps, &st);
	total = now_s() - t0;
	close(fd);
	if (rc) {
		fprintf(stderr, "step_client: %s: protocol %s failed\n",
			argv[optind], proto);
		return 1;
	}
	printf("protocol %s ndof %d steps %d messages/step %d bytes/step %llu seconds %.6f step_ms mean %.4f min %.4f max %.4f\n",
	       proto, n, steps, !strcmp(proto, "native") ? 2 : 4,
	       (unsigned long long)(st.bytes1 - st.bytes0) / steps, total,
	       st.sum / steps * 1e3, st.min * 1e3, st.max * 1e3);
	return 0;
}
