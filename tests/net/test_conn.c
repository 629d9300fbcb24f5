// SPDX-License-Identifier: GPL-2.0
/*
 * The session layer (tools/net/conn.c) over a socket pair, plain: a
 * message goes down in one conn_send() and comes back whole from one
 * conn_next_msg(), which says when the socket is drained; several
 * messages in one read come out one by one; a frame cut short waits for
 * its rest; a bad frame and the peer's close are told apart.
 */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "conn.h"

FIXTURE(pair)
{
	struct conn a, b;
	double u[4], d[4], f[4];
	struct rnp_msg in;
	char why[160];
};

FIXTURE_SETUP(pair)
{
	int sv[2];

	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv));
	conn_init(&self->a, NULL, NULL);
	conn_init(&self->b, NULL, NULL);
	ASSERT_EQ(0, conn_accept(&self->a, sv[0], self->why,
				 sizeof(self->why)));
	ASSERT_EQ(0, conn_accept(&self->b, sv[1], self->why,
				 sizeof(self->why)));
	self->in = (struct rnp_msg){
		.accept = 1u << RNP_STEP | 1u << RNP_RESULT | 1u << RNP_PING,
		.max_dof = 4, .arr = { self->u, self->d, self->f },
	};
}

FIXTURE_TEARDOWN(pair)
{
	conn_free(&self->a);
	conn_free(&self->b);
}

static int send_step(struct conn *c, uint64_t seq, double x)
{
	double u[2] = { x, -x };
	struct rnp_msg m = {
		.h.type = RNP_STEP,
		.step = { .seq = seq, .t = 0.5, .ndof = 2, .u = u },
	};

	return conn_send(c, &m);
}

TEST_F(pair, one_message_down_and_back)
{
	EXPECT_EQ(0, conn_next_msg(&self->b, &self->in, self->why,
				   sizeof(self->why)));
	EXPECT_EQ(POLLIN, conn_events(&self->b));
	ASSERT_EQ(0, send_step(&self->a, 7, 1.0 / 3));
	EXPECT_EQ(0, conn_out_pending(&self->a));
	EXPECT_EQ(POLLIN, conn_events(&self->a));
	ASSERT_EQ(2, conn_next_msg(&self->b, &self->in, self->why,
				   sizeof(self->why)));
	EXPECT_EQ(RNP_STEP, self->in.h.type);
	EXPECT_EQ(7, self->in.step.seq);
	EXPECT_EQ(2, self->in.step.ndof);
	EXPECT_EQ(1.0 / 3, self->u[0]);
	EXPECT_EQ(-1.0 / 3, self->u[1]);
	/* Drained: the next call reads again, and finds nothing. */
	EXPECT_EQ(0, conn_next_msg(&self->b, &self->in, self->why,
				   sizeof(self->why)));
}

TEST_F(pair, several_in_one_read)
{
	for (int i = 1; i <= 3; i++)
		ASSERT_EQ(0, send_step(&self->a, (uint64_t)i, i));
	for (int i = 1; i <= 3; i++) {
		ASSERT_EQ(i < 3 ? 1 : 2,
			  conn_next_msg(&self->b, &self->in, self->why,
					sizeof(self->why)));
		EXPECT_EQ((uint64_t)i, self->in.step.seq);
		EXPECT_EQ((double)i, self->u[0]);
	}
}

TEST_F(pair, a_frame_cut_short_waits_for_its_rest)
{
	struct rnp_buf b = { 0 };
	double u[1] = { 4 };
	struct rnp_step s = { .seq = 3, .ndof = 1, .u = u };

	ASSERT_EQ(0, rnp_put_step(&b, &s));
	ASSERT_EQ(0, conn_queue(&self->a, b.p, RNP_HDR_SIZE + 3));
	ASSERT_EQ(0, conn_flush(&self->a));
	EXPECT_EQ(0, conn_next_msg(&self->b, &self->in, self->why,
				   sizeof(self->why)));
	ASSERT_EQ(0, conn_queue(&self->a, b.p + RNP_HDR_SIZE + 3,
				b.len - RNP_HDR_SIZE - 3));
	ASSERT_EQ(0, conn_flush(&self->a));
	ASSERT_EQ(2, conn_next_msg(&self->b, &self->in, self->why,
				   sizeof(self->why)));
	EXPECT_EQ(3, self->in.step.seq);
	EXPECT_EQ(4, self->u[0]);
	rnp_buf_free(&b);
}

TEST_F(pair, bad_frames_and_the_close)
{
	struct rnp_msg m = { .h.type = RNP_BYE };

	/* A payload the caller takes, bad: named with its type. */
	ASSERT_EQ(0, send_step(&self->a, 1, 0));
	self->in.max_dof = 1;
	EXPECT_EQ(-RNP_ERR_DOF, conn_next_msg(&self->b, &self->in, self->why,
					      sizeof(self->why)));
	EXPECT_EQ(0, strncmp(self->why, "bad STEP: ", 10));
	/* A message, then the close: the message first. */
	conn_next(&self->b);
	ASSERT_EQ(0, conn_send(&self->a, &m));
	shutdown(self->a.fd, SHUT_WR);
	ASSERT_LE(1, conn_next_msg(&self->b, &self->in, self->why,
				   sizeof(self->why)));
	EXPECT_EQ(RNP_BYE, self->in.h.type);
	EXPECT_EQ(-EPIPE, conn_next_msg(&self->b, &self->in, self->why,
					sizeof(self->why)));
	conn_close(&self->b);
	EXPECT_EQ(0, conn_events(&self->b));
}

TEST_HARNESS_MAIN
