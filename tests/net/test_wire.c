// SPDX-License-Identifier: GPL-2.0
/*
 * The rths native protocol's codec (tools/net/wire.c): frames round-trip
 * bit for bit, the layout is the one Documentation/rths-protocol.rst
 * gives, and every malformed header or payload is refused with a reason.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "kselftest_harness.h"
#include "wire.h"

static const unsigned char *payload(const struct rnp_buf *b)
{
	return b->p + RNP_HDR_SIZE;
}

static size_t payload_len(const struct rnp_buf *b)
{
	return b->len - RNP_HDR_SIZE;
}

TEST(header_layout)
{
	struct rnp_buf b = { 0 };
	struct rnp_ping ping = { .nonce = 0x0102030405060708ull, .time_ns = 9 };
	static const unsigned char want[RNP_HDR_SIZE + 16] = {
		'R', 'T', 'H', 'N', 1, 0, RNP_PING, 0, 16, 0, 0, 0, 0, 0, 0, 0,
		8, 7, 6, 5, 4, 3, 2, 1, 9, 0, 0, 0, 0, 0, 0, 0,
	};

	ASSERT_EQ(0, rnp_put_ping(&b, RNP_PING, &ping));
	ASSERT_EQ(sizeof(want), b.len);
	EXPECT_EQ(0, memcmp(want, b.p, sizeof(want)));
	rnp_buf_free(&b);
}

TEST(hello_welcome_round_trip)
{
	struct rnp_buf b = { 0 };
	struct rnp_hello h = {
		.version_min = 1, .version_max = 3, .flags = RNP_HELLO_RESET,
		.test_id = 0xdeadbeefcafe1234ull, .last_seq = 77, .ndof = 2,
		.substructure = "pier2",
	}, h2;
	struct rnp_welcome w = {
		.version = 1, .kind = RNP_KIND_DEVICE, .ndof = 2,
		.test_id = 5, .last_seq = 76, .heartbeat_ms = 1000,
		.rate = 1024, .step_ticks = 10, .substructure = "pier2",
	}, w2;
	struct rnp_hdr hdr;
	char why[128];

	ASSERT_EQ(0, rnp_put_hello(&b, &h));
	ASSERT_EQ(0, rnp_parse_hdr(b.p, &hdr, why, sizeof(why)));
	EXPECT_EQ(RNP_HELLO, hdr.type);
	ASSERT_EQ(0, rnp_parse_hello(payload(&b), hdr.length, &h2, why,
				     sizeof(why)));
	EXPECT_EQ(h.version_min, h2.version_min);
	EXPECT_EQ(h.version_max, h2.version_max);
	EXPECT_EQ(h.flags, h2.flags);
	EXPECT_EQ(h.test_id, h2.test_id);
	EXPECT_EQ(h.last_seq, h2.last_seq);
	EXPECT_EQ(h.ndof, h2.ndof);
	EXPECT_STREQ(h.substructure, h2.substructure);
	b.len = 0;
	ASSERT_EQ(0, rnp_put_welcome(&b, &w));
	ASSERT_EQ(0, rnp_parse_hdr(b.p, &hdr, why, sizeof(why)));
	ASSERT_EQ(0, rnp_parse_welcome(payload(&b), hdr.length, &w2, why,
				       sizeof(why)));
	EXPECT_EQ(w.version, w2.version);
	EXPECT_EQ(w.kind, w2.kind);
	EXPECT_EQ(w.ndof, w2.ndof);
	EXPECT_EQ(w.test_id, w2.test_id);
	EXPECT_EQ(w.last_seq, w2.last_seq);
	EXPECT_EQ(w.heartbeat_ms, w2.heartbeat_ms);
	EXPECT_EQ(w.rate, w2.rate);
	EXPECT_EQ(w.step_ticks, w2.step_ticks);
	EXPECT_STREQ(w.substructure, w2.substructure);
	rnp_buf_free(&b);
}

TEST(step_result_bits)
{
	double u[3] = { 1e-300, -0.0, M_PI }, v[3] = { NAN, INFINITY, 2 };
	double a[3] = { 4, 5, 6 }, u2[3], v2[3], a2[3];
	double disp[3] = { 1.0 / 3, -7e-9, 1e300 }, force[3] = { 1, 2, 3 };
	double d2[3], f2[3];
	struct rnp_step s = { .seq = 12345, .t = 0.01 * 3, .ndof = 3,
			      .flags = RNP_STEP_VEL | RNP_STEP_ACC,
			      .u = u, .v = v, .a = a };
	struct rnp_step s2 = { .u = u2, .v = v2, .a = a2 };
	struct rnp_result r = { .seq = 12345, .flags = RNP_RES_CACHED,
				.ndof = 3, .compute_ns = 4242, .late_ticks = 2,
				.fb_flags = 5, .disp = disp, .force = force };
	struct rnp_result r2 = { .disp = d2, .force = f2 };
	struct rnp_buf b = { 0 };
	struct rnp_hdr hdr;
	char why[128];

	ASSERT_EQ(0, rnp_put_step(&b, &s));
	ASSERT_EQ(0, rnp_parse_hdr(b.p, &hdr, why, sizeof(why)));
	ASSERT_EQ(24 + 3 * 3 * 8, hdr.length);
	ASSERT_EQ(0, rnp_parse_step(payload(&b), hdr.length, &s2, 3, why,
				    sizeof(why)));
	EXPECT_EQ(s.seq, s2.seq);
	EXPECT_EQ(s.flags, s2.flags);
	EXPECT_EQ(0, memcmp(&s.t, &s2.t, 8));
	EXPECT_EQ(0, memcmp(u, u2, sizeof(u)));
	EXPECT_EQ(0, memcmp(v, v2, sizeof(v)));
	EXPECT_EQ(0, memcmp(a, a2, sizeof(a)));
	/* A step with 2 DOF where the site has 1 is refused. */
	EXPECT_EQ(-RNP_ERR_DOF, rnp_parse_step(payload(&b), hdr.length, &s2,
					       2, why, sizeof(why)));
	b.len = 0;
	ASSERT_EQ(0, rnp_put_result(&b, &r));
	ASSERT_EQ(0, rnp_parse_hdr(b.p, &hdr, why, sizeof(why)));
	ASSERT_EQ(0, rnp_parse_result(payload(&b), hdr.length, &r2, 3, why,
				      sizeof(why)));
	EXPECT_EQ(r.seq, r2.seq);
	EXPECT_EQ(r.flags, r2.flags);
	EXPECT_EQ(r.compute_ns, r2.compute_ns);
	EXPECT_EQ(r.late_ticks, r2.late_ticks);
	EXPECT_EQ(r.fb_flags, r2.fb_flags);
	EXPECT_EQ(0, memcmp(disp, d2, sizeof(disp)));
	EXPECT_EQ(0, memcmp(force, f2, sizeof(force)));
	rnp_buf_free(&b);
}

TEST(step_without_optional_vectors)
{
	double u[2] = { 1, 2 }, u2[2], v2[2] = { 7, 7 };
	struct rnp_step s = { .seq = 1, .ndof = 2, .u = u };
	struct rnp_step s2 = { .u = u2, .v = v2 };
	struct rnp_buf b = { 0 };
	struct rnp_hdr hdr;

	ASSERT_EQ(0, rnp_put_step(&b, &s));
	ASSERT_EQ(0, rnp_parse_hdr(b.p, &hdr, NULL, 0));
	ASSERT_EQ(24 + 16, hdr.length);
	ASSERT_EQ(0, rnp_parse_step(payload(&b), hdr.length, &s2, 8, NULL,
				    0));
	EXPECT_EQ(0, memcmp(u, u2, sizeof(u)));
	EXPECT_EQ(7, v2[0]);	/* untouched */
	/* The length must match the flags: claim velocities too. */
	b.p[RNP_HDR_SIZE + 16] = RNP_STEP_VEL;
	EXPECT_EQ(-RNP_ERR_SIZE, rnp_parse_step(payload(&b), hdr.length, &s2,
						8, NULL, 0));
	rnp_buf_free(&b);
}

TEST(bad_headers)
{
	struct rnp_buf b = { 0 };
	struct rnp_hdr hdr;
	unsigned char h[RNP_HDR_SIZE];
	char why[128];

	ASSERT_EQ(0, rnp_put_bye(&b));
	memcpy(h, b.p, sizeof(h));
	ASSERT_EQ(0, rnp_parse_hdr(h, &hdr, why, sizeof(why)));

	h[0] = 'X';
	EXPECT_EQ(-RNP_ERR_PROTOCOL, rnp_parse_hdr(h, &hdr, why, sizeof(why)));
	EXPECT_NE(NULL, strstr(why, "magic"));
	memcpy(h, b.p, sizeof(h));
	h[4] = 2;
	EXPECT_EQ(-RNP_ERR_VERSION, rnp_parse_hdr(h, &hdr, why, sizeof(why)));
	EXPECT_NE(NULL, strstr(why, "version 2"));
	memcpy(h, b.p, sizeof(h));
	h[6] = 99;
	EXPECT_EQ(-RNP_ERR_PROTOCOL, rnp_parse_hdr(h, &hdr, why, sizeof(why)));
	memcpy(h, b.p, sizeof(h));
	h[12] = 1;
	EXPECT_EQ(-RNP_ERR_PROTOCOL, rnp_parse_hdr(h, &hdr, why, sizeof(why)));
	/* Absurd sizes: 4 GiB, just over the limit, wrong for the type. */
	memcpy(h, b.p, sizeof(h));
	memset(h + 8, 0xff, 4);
	EXPECT_EQ(-RNP_ERR_SIZE, rnp_parse_hdr(h, &hdr, why, sizeof(why)));
	EXPECT_NE(NULL, strstr(why, "4294967295"));
	h[6] = RNP_STEP;
	h[8] = 0;
	h[9] = 0;
	h[10] = 0x10;
	h[11] = 0;
	EXPECT_EQ(-RNP_ERR_SIZE, rnp_parse_hdr(h, &hdr, why, sizeof(why)));
	h[6] = RNP_BYE;
	h[8] = 9;
	h[10] = 0;
	EXPECT_EQ(-RNP_ERR_SIZE, rnp_parse_hdr(h, &hdr, why, sizeof(why)));
	rnp_buf_free(&b);
}

TEST(bad_payloads)
{
	struct rnp_hello h = { .version_min = 1, .version_max = 1,
			       .test_id = 1, .substructure = "a" }, h2;
	struct rnp_buf b = { 0 };
	unsigned char *p;
	char why[128];

	ASSERT_EQ(0, rnp_put_hello(&b, &h));
	p = b.p + RNP_HDR_SIZE;
	/* A name that runs to the end, or has a control byte. */
	memset(p + 32, 'x', RNP_NAME_LEN);
	EXPECT_EQ(-RNP_ERR_PROTOCOL, rnp_parse_hello(p, payload_len(&b), &h2,
						     why, sizeof(why)));
	memset(p + 32, 0, RNP_NAME_LEN);
	p[32] = '\n';
	EXPECT_EQ(-RNP_ERR_PROTOCOL, rnp_parse_hello(p, payload_len(&b), &h2,
						     why, sizeof(why)));
	p[32] = 'a';
	ASSERT_EQ(0, rnp_parse_hello(p, payload_len(&b), &h2, why,
				     sizeof(why)));
	p[8] = 0;	/* test id 0 */
	EXPECT_EQ(-RNP_ERR_PROTOCOL, rnp_parse_hello(p, payload_len(&b), &h2,
						     why, sizeof(why)));
	EXPECT_NE(NULL, strstr(why, "test id"));
	p[8] = 1;
	p[0] = 4;	/* versions 4..1 */
	EXPECT_EQ(-RNP_ERR_PROTOCOL, rnp_parse_hello(p, payload_len(&b), &h2,
						     why, sizeof(why)));
	EXPECT_EQ(-RNP_ERR_SIZE, rnp_parse_hello(p, 10, &h2, why,
						 sizeof(why)));
	rnp_buf_free(&b);
}

TEST(error_message)
{
	struct rnp_buf b = { 0 };
	struct rnp_errmsg e;
	struct rnp_hdr hdr;
	char why[128];

	ASSERT_EQ(0, rnp_put_error(&b, RNP_ERR_SEQUENCE,
				   "step %d, expected %d", 9, 4));
	ASSERT_EQ(0, rnp_parse_hdr(b.p, &hdr, why, sizeof(why)));
	ASSERT_EQ(0, rnp_parse_error(payload(&b), hdr.length, &e, why,
				     sizeof(why)));
	EXPECT_EQ(RNP_ERR_SEQUENCE, e.code);
	EXPECT_STREQ("step 9, expected 4", e.text);
	EXPECT_STREQ("sequence", rnp_error_name(e.code));
	EXPECT_STREQ("RESULT", rnp_type_name(RNP_RESULT));
	rnp_buf_free(&b);
}

TEST(limits_on_encode)
{
	double u[1] = { 0 };
	struct rnp_step s = { .seq = 1, .ndof = RNP_MAX_DOF + 1, .u = u };
	struct rnp_buf b = { 0 };

	EXPECT_EQ(-EINVAL, rnp_put_step(&b, &s));
	s.ndof = 0;
	EXPECT_EQ(-EINVAL, rnp_put_step(&b, &s));
	EXPECT_EQ(0, b.len);
	rnp_buf_free(&b);
}

TEST(whole_messages)
{
	double disp[2] = { 1.0 / 3, -0.0 }, force[2] = { 1e-310, 2 };
	double d2[2], f2[2], spare[2] = { 7, 7 };
	struct rnp_msg out = {
		.h.type = RNP_RESULT,
		.result = { .seq = 9, .flags = RNP_RES_LATE, .ndof = 2,
			    .compute_ns = 11, .late_ticks = 3, .fb_flags = 4,
			    .disp = disp, .force = force },
	};
	struct rnp_msg in = {
		.accept = 1u << RNP_RESULT | 1u << RNP_PING, .max_dof = 2,
		.arr = { d2, f2, spare },
	};
	struct rnp_buf b = { 0 };
	char why[128];

	ASSERT_EQ(0, rnp_put_msg(&b, &out));
	/* A frame parses once it is all in, its header checked before. */
	EXPECT_EQ(0, rnp_parse_frame(b.p, RNP_HDR_SIZE - 1, &in, why,
				     sizeof(why)));
	ASSERT_EQ(0, rnp_parse_frame(b.p, b.len - 1, &in, why, sizeof(why)));
	EXPECT_EQ(RNP_RESULT, in.h.type);
	EXPECT_EQ(b.len - RNP_HDR_SIZE, in.h.length);
	ASSERT_EQ(1, rnp_parse_frame(b.p, b.len, &in, why, sizeof(why)));
	EXPECT_EQ(9, in.result.seq);
	EXPECT_EQ(RNP_RES_LATE, in.result.flags);
	EXPECT_EQ(11, in.result.compute_ns);
	EXPECT_EQ(3, in.result.late_ticks);
	EXPECT_EQ(4, in.result.fb_flags);
	EXPECT_TRUE(in.result.disp == d2);	/* into the caller's arrays */
	EXPECT_EQ(0, memcmp(disp, d2, sizeof(disp)));
	EXPECT_EQ(0, memcmp(force, f2, sizeof(force)));
	/* More DOF than the arrays hold: refused, the type named. */
	in.max_dof = 1;
	EXPECT_EQ(-RNP_ERR_DOF, rnp_parse_frame(b.p, b.len, &in, why,
						sizeof(why)));
	EXPECT_EQ(0, strncmp(why, "bad RESULT: ", 12));
	/* A type the caller does not take: its header only. */
	b.len = 0;
	out.h.type = RNP_BYE;
	ASSERT_EQ(0, rnp_put_msg(&b, &out));
	ASSERT_EQ(1, rnp_parse_frame(b.p, b.len, &in, why, sizeof(why)));
	EXPECT_EQ(RNP_BYE, in.h.type);
	/* PING and PONG carry the same payload. */
	b.len = 0;
	out.h.type = RNP_PONG;
	out.ping = (struct rnp_ping){ .nonce = 5, .time_ns = 6 };
	ASSERT_EQ(0, rnp_put_msg(&b, &out));
	b.p[6] = RNP_PING;
	ASSERT_EQ(1, rnp_parse_frame(b.p, b.len, &in, why, sizeof(why)));
	EXPECT_EQ(5, in.ping.nonce);
	EXPECT_EQ(6, in.ping.time_ns);
	out.h.type = 0;
	EXPECT_EQ(-EINVAL, rnp_put_msg(&b, &out));
	rnp_buf_free(&b);
}

TEST_HARNESS_MAIN
