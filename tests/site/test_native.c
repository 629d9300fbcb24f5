// SPDX-License-Identifier: GPL-2.0
/*
 * rths-site's native protocol on loopback (Documentation/rths-protocol.rst),
 * driven by a coordinator written from the specification with the shared
 * codec (tools/net/wire.h).  RTHS_SITE names the binary under test.
 *
 * The substructure "spring" is one DOF with a bilinear (hysteretic)
 * spring, so a step executed twice, or a state lost, shows in the forces
 * of the steps after it; the test compares them bit for bit with the
 * same springs computed here.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rths/hs_model.h>

#include "kselftest_harness.h"
#include "site_proc.h"
#include "wire.h"

#define NSTEPS 40

/* "frame": 2 DOF, matrices not symmetric so that a transposition shows. */
static const double KF[2][2] = { { 4.5, -1.25 }, { -0.75, 3.0 } };
static const double CF[2][2] = { { 0.1, 0.02 }, { 0.03, 0.2 } };
static const double MF[2][2] = { { 2.0, 0.5 }, { 0.25, 1.0 } };
static const double KS = 2.0;

static const char *const SITE_JSON =
	"{\"substructures\":["
	"{\"name\":\"spring\",\"protocol\":\"native\",\"port\":0,\"dof\":1,"
	"\"stiffness\":[[2.0]],\"elements\":[{\"type\":\"bilinear\","
	"\"dofs\":[0,-1],\"stiffness\":40,\"yield_force\":0.5,"
	"\"post_yield_ratio\":0.1}]},"
	"{\"name\":\"frame\",\"protocol\":\"native\",\"port\":0,\"dof\":2,"
	"\"stiffness\":[[4.5,-1.25],[-0.75,3.0]],"
	"\"damping\":[[0.1,0.02],[0.03,0.2]],"
	"\"mass\":[[2.0,0.5],[0.25,1.0]],"
	"\"elements\":[{\"type\":\"bouc_wen\",\"dofs\":[0,1],"
	"\"stiffness\":30,\"yield_force\":1.5}]}"
	"]}\n";

enum { SPRING, FRAME };

/* ------------------------------------------------------ the reference */

struct ref {
	int n;
	struct rths_hs_element el[1];
};

static void ref_init(struct ref *r, int which)
{
	struct rths_hs_element_params p;

	if (which == SPRING) {
		r->n = 1;
		rths_hs_element_defaults(&p, RTHS_HS_ELEMENT_BILINEAR, 40, 0.5);
		p.alpha = 0.1;
		rths_hs_element_init(&r->el[0], &p, 0, -1);
	} else {
		r->n = 2;
		rths_hs_element_defaults(&p, RTHS_HS_ELEMENT_BOUC_WEN, 30, 1.5);
		rths_hs_element_init(&r->el[0], &p, 0, 1);
	}
}

static double defo(const struct rths_hs_element *e, const double *u)
{
	return u[e->dof_i] - (e->dof_j >= 0 ? u[e->dof_j] : 0.0);
}

/* The site's sum order: K u, C v, M a (absent terms skipped), springs. */
static void ref_step(struct ref *r, const double *u, const double *v,
		     const double *a, double *f)
{
	struct rths_hs_element *e = &r->el[0];
	double fe;

	for (int i = 0; i < r->n; i++) {
		double s = 0;

		if (r->n == 1) {
			s = KS * u[0];
		} else {
			for (int j = 0; j < 2; j++)
				s += KF[i][j] * u[j];
			if (v)
				for (int j = 0; j < 2; j++)
					s += CF[i][j] * v[j];
			if (a)
				for (int j = 0; j < 2; j++)
					s += MF[i][j] * a[j];
		}
		f[i] = s;
	}
	fe = rths_hs_element_trial(e, defo(e, u));
	f[e->dof_i] += fe;
	if (e->dof_j >= 0)
		f[e->dof_j] -= fe;
	rths_hs_element_trial(e, defo(e, u));
	rths_hs_element_commit(e);
}

/* Step k's displacement: cycles of growing amplitude, well past yield. */
static double disp_of(uint64_t k, int dof)
{
	return 0.004 * (double)k * ((k / 5) % 2 ? -1.0 : 1.0) +
		0.001 * dof;
}

/* ------------------------------------------------------ coordinator */

static int put_buf(int fd, struct rnp_buf *b)
{
	int r = put(fd, b->p, b->len);

	b->len = 0;
	return r;
}

/* One frame: its type, payload in p (RNP_MAX_PAYLOAD bytes); -1 on EOF. */
static int get_frame(int fd, unsigned char *p, uint32_t *len)
{
	unsigned char hdr[RNP_HDR_SIZE];
	struct rnp_hdr h;

	if (get(fd, hdr, sizeof(hdr)) || rnp_parse_hdr(hdr, &h, NULL, 0) ||
	    get(fd, p, h.length))
		return -1;
	*len = h.length;
	return h.type;
}

static unsigned char frame_in[RNP_MAX_PAYLOAD];

static int hello(int fd, const char *name, uint64_t test, uint32_t flags,
		 struct rnp_welcome *w, struct rnp_errmsg *err)
{
	struct rnp_hello h = { .version_min = 1, .version_max = 1,
			       .flags = flags, .test_id = test };
	struct rnp_buf b = { 0 };
	uint32_t len;
	int type;

	snprintf(h.substructure, sizeof(h.substructure), "%s", name);
	if (rnp_put_hello(&b, &h) || put_buf(fd, &b))
		type = -1;
	else
		type = get_frame(fd, frame_in, &len);
	rnp_buf_free(&b);
	if (type == RNP_WELCOME)
		return rnp_parse_welcome(frame_in, len, w, NULL, 0) ? -1 : type;
	if (type == RNP_ERROR)
		return rnp_parse_error(frame_in, len, err, NULL, 0) ? -1 : type;
	return -1;
}

/* A coordinator's session with the substructure 'which'. */
struct coord {
	int fd;
	int which;
	struct rnp_welcome w;
	struct rnp_errmsg err;
};

static int coord_open(struct coord *c, struct site_proc *s, int which,
		      uint64_t test, uint32_t flags)
{
	c->which = which;
	c->fd = dial(s->port[which]);
	if (c->fd < 0)
		return -1;
	return hello(c->fd, which == SPRING ? "spring" : "frame", test,
		     flags, &c->w, &c->err);
}

/* Step seq at the standard displacement; the answer's frame type. */
static int coord_step(struct coord *c, uint64_t seq, uint32_t flags,
		      struct rnp_result *res, double *disp, double *force)
{
	double u[2], v[2], a[2];
	struct rnp_step st = { .seq = seq, .t = 0.01 * (double)seq,
			       .flags = flags, .ndof = c->which ? 2 : 1,
			       .u = u, .v = v, .a = a };
	struct rnp_buf b = { 0 };
	uint32_t len;
	int type;

	for (uint32_t i = 0; i < st.ndof; i++) {
		u[i] = disp_of(seq, i);
		v[i] = 10 * disp_of(seq, i + 1);
		a[i] = -100 * disp_of(seq, i + 2);
	}
	res->disp = disp;
	res->force = force;
	if (rnp_put_step(&b, &st) || put_buf(c->fd, &b))
		type = -1;
	else
		type = get_frame(c->fd, frame_in, &len);
	rnp_buf_free(&b);
	if (type == RNP_RESULT &&
	    rnp_parse_result(frame_in, len, res, 2, NULL, 0))
		return -1;
	if (type == RNP_ERROR &&
	    rnp_parse_error(frame_in, len, &c->err, NULL, 0))
		return -1;
	return type;
}

/* The reference of step seq as coord_step sends it. */
static void ref_of(struct ref *r, uint64_t seq, uint32_t flags, double *f)
{
	double u[2], v[2], a[2];

	for (int i = 0; i < r->n; i++) {
		u[i] = disp_of(seq, i);
		v[i] = 10 * disp_of(seq, i + 1);
		a[i] = -100 * disp_of(seq, i + 2);
	}
	ref_step(r, u, flags & RNP_STEP_VEL ? v : NULL,
		 flags & RNP_STEP_ACC ? a : NULL, f);
}

static int bits_equal(const double *x, const double *y, int n)
{
	return !memcmp(x, y, n * sizeof(double));
}

/* Steps from..to, each checked against the reference bit for bit. */
static void run_steps(struct __test_metadata *_metadata, struct coord *c,
		      struct ref *r, uint64_t from, uint64_t to,
		      uint32_t flags)
{
	for (uint64_t k = from; k <= to; k++) {
		struct rnp_result res;
		double disp[2], force[2], want[2];

		ASSERT_EQ(RNP_RESULT, coord_step(c, k, flags, &res, disp,
						 force));
		ref_of(r, k, flags, want);
		ASSERT_EQ(k, res.seq);
		ASSERT_EQ((uint32_t)r->n, res.ndof);
		ASSERT_EQ(flags & RNP_STEP_REPLAY ? RNP_RES_REPLAY : 0,
			  res.flags);
		ASSERT_EQ(0, res.late_ticks);
		ASSERT_TRUE(bits_equal(force, want, r->n));
		ASSERT_EQ(disp_of(k, 0), disp[0]);
	}
}

static void bye(struct __test_metadata *_metadata, struct coord *c)
{
	struct rnp_buf b = { 0 };

	ASSERT_EQ(0, rnp_put_bye(&b));
	ASSERT_EQ(0, put_buf(c->fd, &b));
	rnp_buf_free(&b);
	EXPECT_EQ(1, closed(c->fd));
	close(c->fd);
}

/* "spring: steps executed E, cached C, replayed R" in the stop log. */
static int counters(const char *tail, const char *name, uint64_t *e,
		    uint64_t *c, uint64_t *r)
{
	char key[64];
	const char *p;

	snprintf(key, sizeof(key), "%s: steps executed ", name);
	p = strstr(tail, key);
	return p && sscanf(p + strlen(key), "%" SCNu64 ", cached %" SCNu64
			   ", replayed %" SCNu64, e, c, r) == 3 ? 0 : -1;
}

/* ------------------------------------------------------------ tests */

TEST(handshake_and_steps)
{
	struct site_proc s;
	struct coord c, f;
	struct ref rs, rf;
	char tail[2048];
	uint64_t e, ca, rp;

	ASSERT_EQ(0, site_proc_start(&s, SITE_JSON, 2, NULL));
	ASSERT_EQ(RNP_WELCOME, coord_open(&c, &s, SPRING, 7, 0));
	EXPECT_EQ(1, c.w.version);
	EXPECT_EQ(RNP_KIND_NUMERICAL, c.w.kind);
	EXPECT_EQ(1, c.w.ndof);
	EXPECT_EQ(0, c.w.test_id);	/* a new test */
	EXPECT_EQ(0, c.w.last_seq);
	EXPECT_EQ(1000, c.w.heartbeat_ms);
	EXPECT_EQ(0, c.w.rate);
	EXPECT_STREQ("spring", c.w.substructure);
	ref_init(&rs, SPRING);
	run_steps(_metadata, &c, &rs, 1, NSTEPS, 0);
	/* Velocities and accelerations count only when flagged. */
	ASSERT_EQ(RNP_WELCOME, coord_open(&f, &s, FRAME, 8, 0));
	EXPECT_EQ(2, f.w.ndof);
	ref_init(&rf, FRAME);
	run_steps(_metadata, &f, &rf, 1, 10, 0);
	run_steps(_metadata, &f, &rf, 11, 20, RNP_STEP_VEL);
	run_steps(_metadata, &f, &rf, 21, 30, RNP_STEP_VEL | RNP_STEP_ACC);
	run_steps(_metadata, &f, &rf, 31, 35, RNP_STEP_ACC);
	bye(_metadata, &c);
	bye(_metadata, &f);
	EXPECT_EQ(0, site_proc_stop(&s, "steps executed", tail,
				    sizeof(tail)));
	TH_LOG("%s", tail);
	ASSERT_EQ(0, counters(tail, "spring", &e, &ca, &rp));
	EXPECT_EQ(NSTEPS, e);
	EXPECT_EQ(0, ca);
	EXPECT_EQ(0, rp);
	ASSERT_EQ(0, counters(tail, "frame", &e, &ca, &rp));
	EXPECT_EQ(35, e);
}

/*
 * Bytes a step (Documentation/rths-protocol.rst): a STEP of N DOF with k
 * vectors is 40 + 8 N k bytes on the wire, its RESULT 48 + 16 N, so a
 * step moves 88 + 8 N (k + 2): 112 for 1 DOF with displacements only.
 * The RESULT is counted as read from the socket.
 */
TEST(bytes_a_step)
{
	static const uint32_t flags[] = { 0, RNP_STEP_VEL,
					  RNP_STEP_VEL | RNP_STEP_ACC };
	struct site_proc s;
	uint64_t seq[2] = { 0, 0 };

	ASSERT_EQ(0, site_proc_start(&s, SITE_JSON, 2, NULL));
	for (int which = SPRING; which <= FRAME; which++) {
		struct coord c;
		uint32_t n = which == SPRING ? 1 : 2;

		ASSERT_EQ(RNP_WELCOME, coord_open(&c, &s, which, 3, 0));
		for (int k = 1; k <= 3; k++) {
			double u[2] = { 0.001, 0.002 }, v[2] = { 0 }, a[2] = { 0 };
			struct rnp_step st = { .seq = ++seq[which], .t = 0.1,
					       .flags = flags[k - 1], .ndof = n,
					       .u = u, .v = v, .a = a };
			struct rnp_buf b = { 0 };
			unsigned char hdr[RNP_HDR_SIZE];
			struct rnp_hdr h;
			size_t out, in;

			ASSERT_EQ(0, rnp_put_step(&b, &st));
			out = b.len;
			ASSERT_EQ(0, put_buf(c.fd, &b));
			rnp_buf_free(&b);
			ASSERT_EQ(0, get(c.fd, hdr, sizeof(hdr)));
			ASSERT_EQ(0, rnp_parse_hdr(hdr, &h, NULL, 0));
			ASSERT_EQ(RNP_RESULT, h.type);
			ASSERT_EQ(0, get(c.fd, frame_in, h.length));
			in = sizeof(hdr) + h.length;
			TH_LOG("%u DOF, k = %d: STEP %zu + RESULT %zu = %zu bytes",
			       n, k, out, in, out + in);
			EXPECT_EQ(40 + 8 * n * k, out);
			EXPECT_EQ(48 + 16 * n, in);
			EXPECT_EQ(88 + 8 * n * (k + 2), out + in);
			if (n == 1 && k == 1)
				EXPECT_EQ(112, out + in);
		}
		close(c.fd);
	}
	EXPECT_EQ(0, site_proc_stop(&s, NULL, NULL, 0));
}

/* A re-issued step answers the cached RESULT and moves nothing: the
 * hysteretic spring's next step equals the undisturbed reference. */
TEST(reissue_is_cached)
{
	struct site_proc s;
	struct coord c;
	struct ref r;
	struct rnp_result res;
	double disp[2], force[2], want[2], first[2];
	char tail[2048];
	uint64_t e, ca, rp;

	ASSERT_EQ(0, site_proc_start(&s, SITE_JSON, 2, NULL));
	ASSERT_EQ(RNP_WELCOME, coord_open(&c, &s, SPRING, 42, 0));
	ref_init(&r, SPRING);
	run_steps(_metadata, &c, &r, 1, 11, 0);
	/* Step 12 twice on the same session... */
	ASSERT_EQ(RNP_RESULT, coord_step(&c, 12, 0, &res, disp, first));
	EXPECT_EQ(0, res.flags);
	ref_of(&r, 12, 0, want);
	ASSERT_TRUE(bits_equal(first, want, 1));
	ASSERT_EQ(RNP_RESULT, coord_step(&c, 12, 0, &res, disp, force));
	EXPECT_EQ(RNP_RES_CACHED, res.flags);
	EXPECT_EQ(12, res.seq);
	EXPECT_TRUE(bits_equal(force, first, 1));
	/* ...and again after a reconnect, which resumes the test. */
	close(c.fd);
	ASSERT_EQ(RNP_WELCOME, coord_open(&c, &s, SPRING, 42, 0));
	EXPECT_EQ(42, c.w.test_id);
	EXPECT_EQ(12, c.w.last_seq);
	ASSERT_EQ(RNP_RESULT, coord_step(&c, 12, 0, &res, disp, force));
	EXPECT_EQ(RNP_RES_CACHED, res.flags);
	EXPECT_TRUE(bits_equal(force, first, 1));
	run_steps(_metadata, &c, &r, 13, NSTEPS, 0);
	/* A step from the past or the future changes nothing. */
	ASSERT_EQ(RNP_ERROR, coord_step(&c, 5, 0, &res, disp, force));
	EXPECT_EQ(RNP_ERR_SEQUENCE, c.err.code);
	EXPECT_EQ(1, closed(c.fd));
	close(c.fd);
	ASSERT_EQ(RNP_WELCOME, coord_open(&c, &s, SPRING, 42, 0));
	ASSERT_EQ(RNP_ERROR, coord_step(&c, NSTEPS + 2, 0, &res, disp,
					force));
	EXPECT_EQ(RNP_ERR_SEQUENCE, c.err.code);
	close(c.fd);
	ASSERT_EQ(RNP_WELCOME, coord_open(&c, &s, SPRING, 42, 0));
	EXPECT_EQ(NSTEPS, c.w.last_seq);
	run_steps(_metadata, &c, &r, NSTEPS + 1, NSTEPS + 5, 0);
	close(c.fd);
	EXPECT_EQ(0, site_proc_stop(&s, "steps executed", tail,
				    sizeof(tail)));
	ASSERT_EQ(0, counters(tail, "spring", &e, &ca, &rp));
	EXPECT_EQ(NSTEPS + 5, e);
	EXPECT_EQ(2, ca);
	EXPECT_EQ(0, rp);
}

/* A replay (after a site restart) rebuilds the state bit for bit. */
TEST(replay_rebuilds_the_state)
{
	struct site_proc s;
	struct coord c;
	struct ref r;
	char tail[2048];
	uint64_t e, ca, rp;

	ASSERT_EQ(0, site_proc_start(&s, SITE_JSON, 2, NULL));
	ASSERT_EQ(RNP_WELCOME, coord_open(&c, &s, SPRING, 5, 0));
	ref_init(&r, SPRING);
	run_steps(_metadata, &c, &r, 1, 20, 0);
	close(c.fd);
	EXPECT_EQ(0, site_proc_stop(&s, "steps executed", NULL, 0));
	/* The restarted site knows no test: replay 1..20, then go on. */
	ASSERT_EQ(0, site_proc_start(&s, SITE_JSON, 2, NULL));
	ASSERT_EQ(RNP_WELCOME, coord_open(&c, &s, SPRING, 5, 0));
	EXPECT_EQ(0, c.w.test_id);
	EXPECT_EQ(0, c.w.last_seq);
	ref_init(&r, SPRING);
	run_steps(_metadata, &c, &r, 1, 20, RNP_STEP_REPLAY);
	run_steps(_metadata, &c, &r, 21, NSTEPS, 0);
	close(c.fd);
	EXPECT_EQ(0, site_proc_stop(&s, "steps executed", tail,
				    sizeof(tail)));
	ASSERT_EQ(0, counters(tail, "spring", &e, &ca, &rp));
	EXPECT_EQ(NSTEPS - 20, e);
	EXPECT_EQ(0, ca);
	EXPECT_EQ(20, rp);
}

/* A new session of the same test takes over; the old one is closed. */
TEST(takeover_by_the_same_test)
{
	struct site_proc s;
	struct coord c1, c2;
	struct ref r;
	char line[1024];

	ASSERT_EQ(0, site_proc_start(&s, SITE_JSON, 2, NULL));
	ASSERT_EQ(RNP_WELCOME, coord_open(&c1, &s, SPRING, 9, 0));
	ref_init(&r, SPRING);
	run_steps(_metadata, &c1, &r, 1, 10, 0);
	ASSERT_EQ(RNP_WELCOME, coord_open(&c2, &s, SPRING, 9, 0));
	EXPECT_EQ(9, c2.w.test_id);
	EXPECT_EQ(10, c2.w.last_seq);
	EXPECT_EQ(1, closed(c1.fd));
	close(c1.fd);
	ASSERT_NE(NULL, site_alert_line(&s, IO_MS, line, sizeof(line)));
	EXPECT_NE(NULL, strstr(line, "taken over"));
	run_steps(_metadata, &c2, &r, 11, 20, 0);
	bye(_metadata, &c2);
	EXPECT_EQ(0, site_proc_stop(&s, "steps executed", NULL, 0));
}

/* Another test is refused while one runs, unless it sets RESET; BYE
 * frees the substructure. */
TEST(busy_reset_and_bye)
{
	struct site_proc s;
	struct coord c1, c2, c3;
	struct ref r;
	char line[1024];

	ASSERT_EQ(0, site_proc_start(&s, SITE_JSON, 2, NULL));
	ASSERT_EQ(RNP_WELCOME, coord_open(&c1, &s, SPRING, 100, 0));
	ref_init(&r, SPRING);
	run_steps(_metadata, &c1, &r, 1, 8, 0);
	ASSERT_EQ(RNP_ERROR, coord_open(&c2, &s, SPRING, 200, 0));
	EXPECT_EQ(RNP_ERR_BUSY, c2.err.code);
	EXPECT_NE(NULL, strstr(c2.err.text, "100"));
	EXPECT_EQ(1, closed(c2.fd));
	close(c2.fd);
	ASSERT_NE(NULL, site_alert_line(&s, IO_MS, line, sizeof(line)));
	EXPECT_NE(NULL, strstr(line, "ERROR busy"));
	/* The first test did not notice. */
	run_steps(_metadata, &c1, &r, 9, 12, 0);
	/* RESET takes it, from the virgin specimen. */
	ASSERT_EQ(RNP_WELCOME, coord_open(&c2, &s, SPRING, 200,
					  RNP_HELLO_RESET));
	EXPECT_EQ(0, c2.w.last_seq);
	EXPECT_EQ(1, closed(c1.fd));
	close(c1.fd);
	ref_init(&r, SPRING);
	run_steps(_metadata, &c2, &r, 1, 6, 0);
	bye(_metadata, &c2);
	/* After BYE any test may come. */
	ASSERT_EQ(RNP_WELCOME, coord_open(&c3, &s, SPRING, 300, 0));
	EXPECT_EQ(0, c3.w.test_id);
	EXPECT_EQ(0, c3.w.last_seq);
	ref_init(&r, SPRING);
	run_steps(_metadata, &c3, &r, 1, 6, 0);
	close(c3.fd);
	EXPECT_EQ(0, site_proc_stop(&s, "steps executed", NULL, 0));
}

/* PING is answered PONG with both fields echoed; a session silent for
 * three heartbeat periods is ended and the substructure keeps its test. */
TEST(ping_and_heartbeat_timeout)
{
	static const char *const args[] = { "--heartbeat", "300", NULL };
	struct rnp_ping ping = { 0x0123456789abcdefull, 987654321 }, pong;
	struct rnp_buf b = { 0 };
	struct site_proc s;
	struct coord c;
	struct ref r;
	char line[1024];
	uint32_t len;

	ASSERT_EQ(0, site_proc_start(&s, SITE_JSON, 2, args));
	ASSERT_EQ(RNP_WELCOME, coord_open(&c, &s, SPRING, 77, 0));
	EXPECT_EQ(300, c.w.heartbeat_ms);
	ref_init(&r, SPRING);
	run_steps(_metadata, &c, &r, 1, 5, 0);
	ASSERT_EQ(0, rnp_put_ping(&b, RNP_PING, &ping));
	ASSERT_EQ(0, put_buf(c.fd, &b));
	rnp_buf_free(&b);
	ASSERT_EQ(RNP_PONG, get_frame(c.fd, frame_in, &len));
	ASSERT_EQ(0, rnp_parse_ping(frame_in, len, &pong, NULL, 0));
	EXPECT_EQ(ping.nonce, pong.nonce);
	EXPECT_EQ(ping.time_ns, pong.time_ns);
	EXPECT_EQ(1, closed(c.fd));
	close(c.fd);
	ASSERT_NE(NULL, site_alert_line(&s, IO_MS, line, sizeof(line)));
	TH_LOG("%s", line);
	EXPECT_NE(NULL, strstr(line, "heartbeat"));
	EXPECT_NE(NULL, strstr(line, "kept at step 5"));
	ASSERT_EQ(RNP_WELCOME, coord_open(&c, &s, SPRING, 77, 0));
	EXPECT_EQ(5, c.w.last_seq);
	run_steps(_metadata, &c, &r, 6, 10, 0);
	close(c.fd);
	EXPECT_EQ(0, site_proc_stop(&s, "steps executed", NULL, 0));
}

/* ------------------------------------------------------- bad peers */

/*
 * Each bad peer talks to "spring" while a good coordinator holds it;
 * the site logs exactly one line for the bad peer, containing 'what',
 * and the good session steps on as if nothing happened.
 */
FIXTURE(bad) {
	struct site_proc s;
	struct coord good;
	struct ref r;
	uint64_t seq;
};

FIXTURE_SETUP(bad)
{
	static const char *const args[] = { "-t", "400", NULL };

	ASSERT_EQ(0, site_proc_start(&self->s, SITE_JSON, 2, args));
	ASSERT_EQ(RNP_WELCOME, coord_open(&self->good, &self->s, SPRING, 1,
					  0));
	ref_init(&self->r, SPRING);
	run_steps(_metadata, &self->good, &self->r, 1, 5, 0);
	self->seq = 5;
}

FIXTURE_TEARDOWN(bad)
{
	close(self->good.fd);
	EXPECT_EQ(0, site_proc_stop(&self->s, "steps executed", NULL, 0));
}

static void expect_one_line(struct __test_metadata *_metadata,
			    FIXTURE_DATA(bad) *self, const char *what)
{
	char line[1024];

	ASSERT_NE(NULL, site_alert_line(&self->s, IO_MS, line, sizeof(line)));
	TH_LOG("%s", line);
	EXPECT_NE(NULL, strstr(line, what));
	EXPECT_NE(NULL, strstr(line, "session ended"));
	EXPECT_NE(NULL, strstr(line, "127.0.0.1:"));
	run_steps(_metadata, &self->good, &self->r, self->seq + 1,
		  self->seq + 5, 0);
	EXPECT_EQ(NULL, site_alert_line(&self->s, 100, line, sizeof(line)));
}

/* Sends raw bytes, then expects an ERROR 'code' and the close. */
static void raw_refused(struct __test_metadata *_metadata,
			FIXTURE_DATA(bad) *self, const void *bytes,
			size_t len, int code, const char *what)
{
	struct rnp_errmsg em;
	uint32_t plen;
	int fd = dial(self->s.port[SPRING]);

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, put(fd, bytes, len));
	ASSERT_EQ(RNP_ERROR, get_frame(fd, frame_in, &plen));
	ASSERT_EQ(0, rnp_parse_error(frame_in, plen, &em, NULL, 0));
	EXPECT_EQ(code, em.code);
	EXPECT_EQ(1, closed(fd));
	close(fd);
	expect_one_line(_metadata, self, what);
}

static size_t hello_bytes(unsigned char *out, uint16_t vmin, uint16_t vmax,
			  const char *name, uint32_t ndof)
{
	struct rnp_hello h = { .version_min = vmin, .version_max = vmax,
			       .test_id = 1, .ndof = ndof };
	struct rnp_buf b = { 0 };
	size_t len;

	snprintf(h.substructure, sizeof(h.substructure), "%s", name);
	if (rnp_put_hello(&b, &h))
		return 0;
	memcpy(out, b.p, b.len);
	len = b.len;
	rnp_buf_free(&b);
	return len;
}

/* A HELLO the site must refuse with 'code'. */
static void hello_refused(struct __test_metadata *_metadata,
			  FIXTURE_DATA(bad) *self, uint16_t vmin,
			  uint16_t vmax, const char *name, uint32_t ndof,
			  int code, const char *what)
{
	unsigned char m[256];
	size_t len = hello_bytes(m, vmin, vmax, name, ndof);

	raw_refused(_metadata, self, m, len, code, what);
}

TEST_F(bad, wrong_version)
{
	hello_refused(_metadata, self, 2, 3, "spring", 0, RNP_ERR_VERSION,
		      "ERROR version");
}

TEST_F(bad, wrong_frame_version)
{
	unsigned char m[256];
	size_t len = hello_bytes(m, 1, 1, "spring", 0);

	m[4] = 2;	/* header version 2 */
	raw_refused(_metadata, self, m, len, RNP_ERR_VERSION, "ERROR version");
}

TEST_F(bad, garbage_bytes)
{
	static const char http[] = "GET / HTTP/1.0\r\n\r\n";

	raw_refused(_metadata, self, http, sizeof(http) - 1,
		    RNP_ERR_PROTOCOL, "bad magic");
}

TEST_F(bad, unknown_substructure)
{
	hello_refused(_metadata, self, 1, 1, "pier-9", 0, RNP_ERR_UNKNOWN,
		      "ERROR unknown");
}

TEST_F(bad, wrong_dof)
{
	hello_refused(_metadata, self, 1, 1, "spring", 3, RNP_ERR_DOF,
		      "ERROR dof");
}

TEST_F(bad, step_before_hello)
{
	double u = 1;
	struct rnp_step st = { .seq = 6, .ndof = 1, .u = &u };
	struct rnp_buf b = { 0 };

	ASSERT_EQ(0, rnp_put_step(&b, &st));
	raw_refused(_metadata, self, b.p, b.len, RNP_ERR_PROTOCOL,
		    "STEP before HELLO");
	rnp_buf_free(&b);
}

/*
 * Every STEP passes the substructures' one check (sub_check_input):
 * DOF, finite displacements, velocities, accelerations and time, and
 * forces the model can compute.  Each bad STEP gets an ERROR naming the
 * problem, one log line, and changes nothing: afterwards the same test
 * runs from step 1 as if it had never come.
 */
TEST_F(bad, step_values_checked)
{
	static const struct {
		int slot;	/* 0 u, 1 v, 2 a, 3 t, 4 ndof */
		int dof;
		double x;
		uint32_t flags;
		int code;
		const char *what;
	} rows[] = {
		{ 0, 0, NAN, 0, RNP_ERR_PROTOCOL, "displacement 0 is nan: not a finite number" },
		{ 0, 1, INFINITY, 0, RNP_ERR_PROTOCOL, "displacement 1 is inf: not a finite number" },
		{ 0, 0, -INFINITY, 0, RNP_ERR_PROTOCOL, "displacement 0 is -inf" },
		{ 1, 1, NAN, RNP_STEP_VEL, RNP_ERR_PROTOCOL, "velocity 1 is nan" },
		{ 2, 0, INFINITY, RNP_STEP_VEL | RNP_STEP_ACC, RNP_ERR_PROTOCOL, "acceleration 0 is inf" },
		{ 3, 0, NAN, 0, RNP_ERR_PROTOCOL, "time is nan" },
		{ 4, 0, 1, 0, RNP_ERR_DOF, "1 DOF, the substructure has 2" },
		{ 0, 0, 1e308, 0, RNP_ERR_PROTOCOL, "the model overflowed; nothing committed" },
	};
	struct rnp_result res;
	double disp[2], force[2];
	struct coord f;
	struct ref rf;
	char line[1024];

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		double u[2] = { 0.001, 0.002 }, v[2] = { 0 }, a[2] = { 0 };
		struct rnp_step st = { .seq = 1, .t = 0.01, .ndof = 2,
				       .flags = rows[i].flags,
				       .u = u, .v = v, .a = a };
		struct rnp_buf b = { 0 };
		uint32_t len;

		switch (rows[i].slot) {
		case 0: u[rows[i].dof] = rows[i].x; break;
		case 1: v[rows[i].dof] = rows[i].x; break;
		case 2: a[rows[i].dof] = rows[i].x; break;
		case 3: st.t = rows[i].x; break;
		default: st.ndof = 1; break;
		}
		ASSERT_EQ(RNP_WELCOME, coord_open(&f, &self->s, FRAME, 9, 0));
		ASSERT_EQ(0, rnp_put_step(&b, &st));
		ASSERT_EQ(0, put_buf(f.fd, &b));
		rnp_buf_free(&b);
		ASSERT_EQ(RNP_ERROR, get_frame(f.fd, frame_in, &len));
		ASSERT_EQ(0, rnp_parse_error(frame_in, len, &f.err, NULL, 0));
		TH_LOG("ERROR %s: %s", rnp_error_name(f.err.code), f.err.text);
		EXPECT_EQ(rows[i].code, f.err.code);
		EXPECT_NE(NULL, strstr(f.err.text, rows[i].what));
		EXPECT_NE(NULL, strstr(f.err.text, "STEP 1 refused"));
		EXPECT_EQ(1, closed(f.fd));
		close(f.fd);
		ASSERT_NE(NULL, site_alert_line(&self->s, IO_MS, line,
						sizeof(line)));
		EXPECT_NE(NULL, strstr(line, rows[i].what));
	}
	/* Nothing was executed: test 9 goes on from step 1, to the bit. */
	ASSERT_EQ(RNP_WELCOME, coord_open(&f, &self->s, FRAME, 9, 0));
	EXPECT_EQ(9, f.w.test_id);
	EXPECT_EQ(0, f.w.last_seq);
	ref_init(&rf, FRAME);
	run_steps(_metadata, &f, &rf, 1, 5, RNP_STEP_VEL | RNP_STEP_ACC);
	EXPECT_EQ(RNP_RESULT, coord_step(&f, 5, 0, &res, disp, force));
	EXPECT_EQ(RNP_RES_CACHED, res.flags);
	close(f.fd);
	expect_one_line(_metadata, self, "closed by the peer without BYE");
}

TEST_F(bad, short_message_then_close)
{
	unsigned char m[256];
	size_t len = hello_bytes(m, 1, 1, "spring", 0);
	int fd = dial(self->s.port[SPRING]);

	ASSERT_EQ(0, put(fd, m, len - 10));
	close(fd);
	expect_one_line(_metadata, self, "short message");
}

TEST_F(bad, short_message_stalls)
{
	unsigned char m[256];
	size_t len = hello_bytes(m, 1, 1, "spring", 0);
	int fd = dial(self->s.port[SPRING]);

	ASSERT_EQ(0, put(fd, m, len - 10));
	EXPECT_EQ(1, closed(fd));
	close(fd);
	expect_one_line(_metadata, self, "timeout");
}

/*
 * After HELLO, a STEP that trickles in a byte every 150 ms keeps the
 * heartbeat fed but never completes: the frame timeout (-t 400) ends it.
 */
TEST_F(bad, trickled_frame_after_hello)
{
	double u[2] = { 0.001, 0.002 };
	struct rnp_step st = { .seq = 1, .ndof = 2, .u = u };
	struct rnp_buf b = { 0 };
	struct coord c;
	int gone = 0;

	ASSERT_EQ(RNP_WELCOME, coord_open(&c, &self->s, FRAME, 99, 0));
	ASSERT_EQ(0, rnp_put_step(&b, &st));
	for (size_t i = 0; i < b.len && !gone; i++) {
		gone = put(c.fd, b.p + i, 1) != 0;
		usleep(150000);
	}
	EXPECT_TRUE(gone || closed(c.fd));
	close(c.fd);
	rnp_buf_free(&b);
	expect_one_line(_metadata, self, "of a frame");
}

/* A HELLO with trailing bytes: its declared length is not a HELLO's. */
TEST_F(bad, oversized_message)
{
	unsigned char m[512] = { 0 };
	size_t len = hello_bytes(m, 1, 1, "spring", 0);

	m[8] = (unsigned char)(len - RNP_HDR_SIZE + 100);
	raw_refused(_metadata, self, m, len + 100, RNP_ERR_SIZE,
		    "HELLO declares 196 payload bytes");
}

TEST_F(bad, absurd_declared_size)
{
	unsigned char m[RNP_HDR_SIZE];

	/* A STEP of 4 GiB - 1: refused from the header alone. */
	memcpy(m, (const unsigned char[]){ 'R', 'T', 'H', 'N', 1, 0,
					   RNP_STEP, 0, 0xff, 0xff, 0xff,
					   0xff, 0, 0, 0, 0 }, sizeof(m));
	raw_refused(_metadata, self, m, sizeof(m), RNP_ERR_SIZE,
		    "STEP declares 4294967295 payload bytes");
}

/* A STEP whose length does not hold its DOF, inside a good session of
 * the other substructure; "spring" (and its good session) go on. */
TEST_F(bad, inconsistent_step_size)
{
	struct coord c;
	unsigned char m[RNP_HDR_SIZE + 24 + 8];
	double u = 0.5;
	struct rnp_step st = { .seq = 1, .ndof = 1, .u = &u };
	struct rnp_buf b = { 0 };
	uint32_t plen;

	ASSERT_EQ(RNP_WELCOME, coord_open(&c, &self->s, FRAME, 3, 0));
	ASSERT_EQ(0, rnp_put_step(&b, &st));
	ASSERT_EQ(sizeof(m), b.len);
	memcpy(m, b.p, b.len);
	rnp_buf_free(&b);
	m[RNP_HDR_SIZE + 20] = 2;	/* says 2 DOF, holds 1 */
	ASSERT_EQ(0, put(c.fd, m, sizeof(m)));
	ASSERT_EQ(RNP_ERROR, get_frame(c.fd, frame_in, &plen));
	ASSERT_EQ(0, rnp_parse_error(frame_in, plen, &c.err, NULL, 0));
	EXPECT_EQ(RNP_ERR_SIZE, c.err.code);
	EXPECT_EQ(1, closed(c.fd));
	close(c.fd);
	expect_one_line(_metadata, self, "does not hold");
}

TEST_F(bad, silent_peer)
{
	int fd = dial(self->s.port[SPRING]);
	char line[1024];

	/* The good session is served while it sits there... */
	run_steps(_metadata, &self->good, &self->r, 6, 8, 0);
	self->seq = 8;
	EXPECT_EQ(NULL, site_alert_line(&self->s, 10, line, sizeof(line)));
	/* ...and it is ended by the handshake timeout. */
	EXPECT_EQ(1, closed(fd));
	close(fd);
	expect_one_line(_metadata, self, "no complete HELLO");
}

/*
 * Idle connections cannot lock a coordinator out: past SITE_MAX_PENDING
 * (64) connections without HELLO, the oldest is closed for the new one,
 * and a coordinator that connects after 80 idle ones gets its session.
 */
TEST(idle_connections_are_evicted)
{
	static const char *const args[] = { "-t", "20000", NULL };
	struct site_proc s;
	struct coord c;
	char tail[16384];
	struct ref r;
	int idle[80];

	ASSERT_EQ(0, site_proc_start(&s, SITE_JSON, 2, args));
	for (int i = 0; i < 80; i++) {
		idle[i] = dial(s.port[SPRING]);
		ASSERT_LE(0, idle[i]);
	}
	ASSERT_EQ(RNP_WELCOME, coord_open(&c, &s, SPRING, 5, 0));
	ref_init(&r, SPRING);
	run_steps(_metadata, &c, &r, 1, 3, 0);
	/* the first ones went, the last ones are still there */
	EXPECT_EQ(1, closed(idle[0]));
	EXPECT_EQ(0, closed(idle[79]));
	for (int i = 0; i < 80; i++)
		close(idle[i]);
	close(c.fd);
	EXPECT_EQ(0, site_proc_stop(&s, "evicted", tail, sizeof(tail)));
	/* 80 idle + 1: each one past the 64th evicted the oldest */
	EXPECT_NE(NULL, strstr(tail, "evicted for a new connection"));
}

TEST(plain_tcp_is_loopback_only)
{
	static const char *const args[] = { "-a", "0.0.0.0", NULL };
	struct site_proc s;
	int st;

	ASSERT_NE(0, site_proc_start(&s, SITE_JSON, 2, args));
	TH_LOG("%s", s.start_log);
	EXPECT_NE(NULL, strstr(s.start_log, "native protocol runs over plain TCP on loopback only"));
	waitpid(s.pid, &st, 0);
	EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 1);
	close(s.log);
	unlink(s.file);
}

TEST_HARNESS_MAIN
