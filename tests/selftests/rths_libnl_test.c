// SPDX-License-Identifier: GPL-2.0
/*
 * A client of the rths family on libnl-genl-3 (not librths, which uses
 * libmnl): it resolves the family and the monitor group by name, listens
 * on the group, creates, shows, dumps and deletes a sim device, and sees
 * the device's events.  libnl programs interoperate with the family.
 */
#include <string.h>

#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>

#include <linux/rths.h>

#include "kselftest_harness.h"

#define DEV_NAME "libnl0"

/* What the replies and events said. */
struct seen {
	int devs;			/* replies naming DEV_NAME */
	uint32_t id, channels, state;
	char card[RTHS_NAME_LEN];
	int events;
	uint32_t event_type[8];
	char event_dev[8][RTHS_NAME_LEN];
};

static int on_dev(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[RTHS_A_MAX + 1];
	struct seen *s = arg;

	if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, RTHS_A_MAX, NULL) ||
	    !tb[RTHS_A_DEV_NAME] ||
	    strcmp(nla_get_string(tb[RTHS_A_DEV_NAME]), DEV_NAME))
		return NL_OK;
	s->devs++;
	if (tb[RTHS_A_DEV_ID])
		s->id = nla_get_u32(tb[RTHS_A_DEV_ID]);
	if (tb[RTHS_A_DEV_CHANNELS])
		s->channels = nla_get_u32(tb[RTHS_A_DEV_CHANNELS]);
	if (tb[RTHS_A_DEV_STATE])
		s->state = nla_get_u32(tb[RTHS_A_DEV_STATE]);
	if (tb[RTHS_A_DEV_CARD])
		snprintf(s->card, sizeof(s->card), "%s",
			 nla_get_string(tb[RTHS_A_DEV_CARD]));
	return NL_OK;
}

static int on_event(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[RTHS_A_MAX + 1], *ev[RTHS_EVENT_A_MAX + 1];
	struct genlmsghdr *gh = nlmsg_data(nlmsg_hdr(msg));
	struct seen *s = arg;

	if (gh->cmd != RTHS_CMD_EVENT || s->events >= 8 ||
	    genlmsg_parse(nlmsg_hdr(msg), 0, tb, RTHS_A_MAX, NULL) ||
	    !tb[RTHS_A_EVENT] || !tb[RTHS_A_DEV_NAME] ||
	    nla_parse_nested(ev, RTHS_EVENT_A_MAX, tb[RTHS_A_EVENT], NULL) ||
	    !ev[RTHS_EVENT_A_TYPE])
		return NL_OK;
	s->event_type[s->events] = nla_get_u32(ev[RTHS_EVENT_A_TYPE]);
	snprintf(s->event_dev[s->events], RTHS_NAME_LEN, "%s",
		 nla_get_string(tb[RTHS_A_DEV_NAME]));
	s->events++;
	return NL_OK;
}

FIXTURE(libnl)
{
	struct nl_sock *sk;	/* requests */
	struct nl_sock *mon;	/* the monitor group */
	int family, group;
	struct seen seen;
};

/* A request for @cmd naming DEV_NAME; NULL on allocation failure. */
static struct nl_msg *request(int family, uint8_t cmd, int flags)
{
	struct nl_msg *msg = nlmsg_alloc();

	if (msg && (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, family, 0,
				 flags, cmd, RTHS_GENL_VERSION) ||
		    nla_put_string(msg, RTHS_A_DEV_NAME, DEV_NAME))) {
		nlmsg_free(msg);
		msg = NULL;
	}
	return msg;
}

/* What a request gets back besides its ack or error. */
enum reply { NO_REPLY, REPLY, DUMP };

/*
 * Sends @msg (and frees it); returns 0 or a libnl error.  Replies go to
 * on_dev.  libnl counts a request answered at its ack, error or DONE
 * (the next one's sequence number is expected then), and nl_recvmsgs()
 * returns after a reply that is not multipart: so a request with a reply
 * reads the reply, then the ack; a dump, which ends with DONE, goes
 * without NLM_F_ACK.
 */
static int transact(struct nl_sock *sk, struct nl_msg *msg, struct seen *s,
		    enum reply reply)
{
	int err;

	nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, on_dev, s);
	if (reply == NO_REPLY)
		return nl_send_sync(sk, msg);
	if (reply == DUMP)
		nl_socket_disable_auto_ack(sk);
	err = nl_send_auto(sk, msg);
	nlmsg_free(msg);
	if (err >= 0)
		err = nl_recvmsgs_default(sk);
	if (reply == DUMP)
		nl_socket_enable_auto_ack(sk);
	else if (err >= 0)
		err = nl_wait_for_ack(sk);
	return err;
}

FIXTURE_SETUP(libnl)
{
	memset(&self->seen, 0, sizeof(self->seen));
	self->sk = nl_socket_alloc();
	self->mon = nl_socket_alloc();
	ASSERT_NE(NULL, self->sk);
	ASSERT_NE(NULL, self->mon);
	ASSERT_EQ(0, genl_connect(self->sk));
	ASSERT_EQ(0, genl_connect(self->mon));
	self->family = genl_ctrl_resolve(self->sk, RTHS_GENL_NAME);
	ASSERT_GT(self->family, 0)
		TH_LOG("resolve family %s: %s", RTHS_GENL_NAME,
		       nl_geterror(self->family));
	self->group = genl_ctrl_resolve_grp(self->sk, RTHS_GENL_NAME,
					    RTHS_MCGRP_MONITOR);
	ASSERT_GT(self->group, 0)
		TH_LOG("resolve group %s: %s", RTHS_MCGRP_MONITOR,
		       nl_geterror(self->group));
	/* Events carry sequence number 0; they are read without blocking:
	 * the family sends dev-new and dev-del before its ack.
	 */
	nl_socket_disable_seq_check(self->mon);
	ASSERT_EQ(0, nl_socket_add_membership(self->mon, self->group));
	ASSERT_EQ(0, nl_socket_set_nonblocking(self->mon));
	nl_socket_modify_cb(self->mon, NL_CB_VALID, NL_CB_CUSTOM, on_event,
			    &self->seen);
}

FIXTURE_TEARDOWN(libnl)
{
	struct nl_msg *msg = request(self->family, RTHS_CMD_DEV_DEL, 0);

	if (msg)	/* left over by a failed test; else ENODEV */
		transact(self->sk, msg, &self->seen, NO_REPLY);
	nl_socket_free(self->mon);
	nl_socket_free(self->sk);
}

/* Reads every queued event. */
static void drain_events(struct nl_sock *mon)
{
	while (nl_recvmsgs_default(mon) >= 0)
		;
}

TEST_F(libnl, create_show_dump_delete_with_events)
{
	struct seen *s = &self->seen;
	struct nl_msg *msg;
	int err;

	msg = request(self->family, RTHS_CMD_DEV_NEW, 0);
	ASSERT_NE(NULL, msg);
	ASSERT_EQ(0, nla_put_string(msg, RTHS_A_DEV_CARD, "sim"));
	ASSERT_EQ(0, nla_put_u32(msg, RTHS_A_DEV_CHANNELS, 3));
	err = transact(self->sk, msg, s, NO_REPLY);
	ASSERT_EQ(0, err) TH_LOG("DEV_NEW: %s", nl_geterror(err));

	msg = request(self->family, RTHS_CMD_DEV_GET, 0);
	ASSERT_NE(NULL, msg);
	err = transact(self->sk, msg, s, REPLY);
	ASSERT_EQ(0, err) TH_LOG("DEV_GET: %s", nl_geterror(err));
	ASSERT_EQ(1, s->devs);
	EXPECT_EQ(3, s->channels);
	EXPECT_EQ(RTHS_STATE_STOPPED, s->state);
	EXPECT_STREQ("sim", s->card);

	/* A dump: the device is in it, once. */
	s->devs = 0;
	msg = nlmsg_alloc();
	ASSERT_NE(NULL, msg);
	ASSERT_NE(NULL, genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ,
				    self->family, 0, NLM_F_DUMP,
				    RTHS_CMD_DEV_GET, RTHS_GENL_VERSION));
	err = transact(self->sk, msg, s, DUMP);
	ASSERT_EQ(0, err) TH_LOG("DEV_GET dump: %s", nl_geterror(err));
	EXPECT_EQ(1, s->devs);

	msg = request(self->family, RTHS_CMD_DEV_DEL, 0);
	ASSERT_NE(NULL, msg);
	err = transact(self->sk, msg, s, NO_REPLY);
	ASSERT_EQ(0, err) TH_LOG("DEV_DEL: %s", nl_geterror(err));

	/* The device is gone: a get fails with ENODEV. */
	msg = request(self->family, RTHS_CMD_DEV_GET, 0);
	ASSERT_NE(NULL, msg);
	err = transact(self->sk, msg, s, REPLY);
	EXPECT_EQ(-NLE_NODEV, err)
		TH_LOG("DEV_GET after DEV_DEL: %s", nl_geterror(err));

	drain_events(self->mon);
	ASSERT_EQ(2, s->events);
	EXPECT_EQ(RTHS_EVENT_DEV_NEW, s->event_type[0]);
	EXPECT_STREQ(DEV_NAME, s->event_dev[0]);
	EXPECT_EQ(RTHS_EVENT_DEV_DEL, s->event_type[1]);
	EXPECT_STREQ(DEV_NAME, s->event_dev[1]);
}

/* The family's own validation reaches a libnl client as its errno. */
TEST_F(libnl, rejected_request)
{
	struct nl_msg *msg = request(self->family, RTHS_CMD_DEV_NEW, 0);
	int err;

	ASSERT_NE(NULL, msg);
	ASSERT_EQ(0, nla_put_string(msg, RTHS_A_DEV_CARD, "sim"));
	ASSERT_EQ(0, nla_put_u32(msg, RTHS_A_DEV_CHANNELS,
				 RTHS_MAX_CHANNELS + 1));
	err = transact(self->sk, msg, &self->seen, NO_REPLY);
	EXPECT_EQ(-NLE_RANGE, err) TH_LOG("DEV_NEW: %s", nl_geterror(err));
	drain_events(self->mon);
	EXPECT_EQ(0, self->seen.events);
}

TEST_HARNESS_MAIN
