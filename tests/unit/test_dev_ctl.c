// SPDX-License-Identifier: GPL-2.0
/*
 * The request/reply loop of the control socket against a real kernel
 * family that is always there: nlctrl.  Dumps, early stops with draining,
 * error acks and callback errors; after each, the socket must still serve
 * the next request.  Needs no rths module (skips if netlink is missing).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "dev/internal.h"

FIXTURE(nl) {
	struct rths_nl *nl;
	char req[RTHS_REQ_SIZE];
};

FIXTURE_SETUP(nl)
{
	self->nl = calloc(1, sizeof(*self->nl));
	ASSERT_NE(NULL, self->nl);
	if (rths_nl_socket(self->nl))
		SKIP(return, "no generic netlink here: %s", self->nl->err.msg);
}

FIXTURE_TEARDOWN(nl)
{
	rths_nl_close(self->nl);
	free(self->nl);
}

/* CTRL_CMD_GETFAMILY, for @name or (NULL) a dump of all families. */
static struct nlmsghdr *getfamily(void *buf, const char *name)
{
	struct nlmsghdr *nlh = rths_msg_init(buf, RTHS_REQ_SIZE, GENL_ID_CTRL,
					     CTRL_CMD_GETFAMILY,
					     name ? 0 : NLM_F_DUMP);

	if (name)
		mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, name);
	return nlh;
}

struct families {
	unsigned int n, stop_after;
	int fail_with;
	bool saw_nlctrl;
	uint16_t id;
};

static int family_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct families *f = arg;
	const struct nlattr *a;

	if (f->fail_with)
		return f->fail_with;
	mnl_attr_for_each(a, nlh, GENL_HDRLEN) {
		if (mnl_attr_get_type(a) == CTRL_ATTR_FAMILY_NAME &&
		    !strcmp(mnl_attr_get_str(a), "nlctrl"))
			f->saw_nlctrl = true;
		if (mnl_attr_get_type(a) == CTRL_ATTR_FAMILY_ID)
			f->id = mnl_attr_get_u16(a);
	}
	f->n++;
	return f->stop_after && f->n >= f->stop_after ? 7 : 0;
}

TEST_F(nl, doit_gets_its_reply_and_ack)
{
	struct families f = { 0 };
	struct nlmsghdr *req = getfamily(self->req, "nlctrl");

	ASSERT_EQ(0, rths_nl_talk(self->nl, req, family_cb, &f));
	EXPECT_EQ(1U, f.n);
	EXPECT_EQ(GENL_ID_CTRL, f.id);
	EXPECT_TRUE(req->nlmsg_flags & NLM_F_ACK);
	EXPECT_STREQ("", self->nl->err.msg);
}

TEST_F(nl, dump_runs_to_the_end)
{
	struct families f = { 0 };

	ASSERT_EQ(0, rths_nl_talk(self->nl, getfamily(self->req, NULL),
				  family_cb, &f));
	EXPECT_GE(f.n, 1U);
	EXPECT_TRUE(f.saw_nlctrl);
}

TEST_F(nl, early_stop_drains_the_dump)
{
	struct families all = { 0 }, some = { .stop_after = 1 }, f = { 0 };

	ASSERT_EQ(0, rths_nl_talk(self->nl, getfamily(self->req, NULL),
				  family_cb, &all));
	ASSERT_EQ(7, rths_nl_talk(self->nl, getfamily(self->req, NULL),
				  family_cb, &some));
	EXPECT_EQ(1U, some.n);	/* not called again once it said stop */
	/* the rest of that dump must not leak into the next request */
	ASSERT_EQ(0, rths_nl_talk(self->nl, getfamily(self->req, "nlctrl"),
				  family_cb, &f));
	EXPECT_EQ(1U, f.n);
	EXPECT_EQ(GENL_ID_CTRL, f.id);
	f = (struct families){ 0 };
	ASSERT_EQ(0, rths_nl_talk(self->nl, getfamily(self->req, NULL),
				  family_cb, &f));
	EXPECT_EQ(all.n, f.n);
}

TEST_F(nl, error_ack_is_returned_and_explained)
{
	struct families f = { 0 };

	EXPECT_EQ(-ENOENT, rths_nl_talk(self->nl,
					getfamily(self->req, "no-such-family"),
					family_cb, &f));
	EXPECT_EQ(0U, f.n);
	EXPECT_NE(0, self->nl->err.msg[0]);
	ASSERT_EQ(0, rths_nl_talk(self->nl, getfamily(self->req, "nlctrl"),
				  family_cb, &f));
	EXPECT_EQ(1U, f.n);
}

TEST_F(nl, callback_error_is_returned_and_the_socket_recovers)
{
	struct families f = { .fail_with = -EPROTO };

	EXPECT_EQ(-EPROTO, rths_nl_talk(self->nl, getfamily(self->req, NULL),
					family_cb, &f));
	EXPECT_STREQ("malformed attribute in the kernel's reply",
		     self->nl->err.msg);
	f.fail_with = -EPROTO;
	EXPECT_EQ(-EPROTO, rths_nl_talk(self->nl,
					getfamily(self->req, "nlctrl"),
					family_cb, &f));
	f = (struct families){ 0 };
	ASSERT_EQ(0, rths_nl_talk(self->nl, getfamily(self->req, "nlctrl"),
				  family_cb, &f));
	EXPECT_EQ(GENL_ID_CTRL, f.id);
}

TEST_F(nl, sequence_numbers_advance)
{
	struct nlmsghdr *req = getfamily(self->req, "nlctrl");
	uint32_t first;

	ASSERT_EQ(0, rths_nl_talk(self->nl, req, NULL, NULL));
	first = req->nlmsg_seq;
	EXPECT_NE(0U, first);
	req = getfamily(self->req, "nlctrl");
	ASSERT_EQ(0, rths_nl_talk(self->nl, req, NULL, NULL));
	EXPECT_EQ(first + 1, req->nlmsg_seq);
}

TEST(ctl_open_says_enoent_without_the_module)
{
	struct rths_ctl *ctl = (void *)1;
	int ret = rths_ctl_open(&ctl);

	if (!ret) {
		rths_ctl_close(ctl);
		SKIP(return, "the rths module is loaded here");
	}
	if (ret != -ENOENT)
		SKIP(return, "no generic netlink here (%d)", ret);
	EXPECT_EQ(NULL, ctl);
	EXPECT_STREQ("", rths_ctl_error(NULL));
}

TEST_HARNESS_MAIN
