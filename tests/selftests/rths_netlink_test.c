// SPDX-License-Identifier: GPL-2.0
/*
 * The control plane: device lifecycle, strict validation with extack
 * messages that point at the bad attribute, nothing changed by a rejected
 * request, CAP_NET_ADMIN for every change, and the device node's rules.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "common.h"

/* ---- a raw generic netlink client, to send what librths never would ---- */

struct raw_nl {
	struct mnl_socket *sk;
	uint16_t family;
	uint32_t seq;
	char buf[8192];
};

struct raw_reply {
	int err;
	char msg[256];
	int has_offs;
	uint32_t offs;
	int miss_type;
};

static int family_attr(const struct nlattr *a, void *data)
{
	if (mnl_attr_get_type(a) == CTRL_ATTR_FAMILY_ID)
		*(uint16_t *)data = mnl_attr_get_u16(a);
	return MNL_CB_OK;
}

static int family_cb(const struct nlmsghdr *nlh, void *data)
{
	mnl_attr_parse(nlh, sizeof(struct genlmsghdr), family_attr, data);
	return MNL_CB_OK;
}

static int raw_open(struct raw_nl *nl)
{
	struct nlmsghdr *nlh;
	struct genlmsghdr *g;
	int one = 1, n;

	nl->sk = mnl_socket_open(NETLINK_GENERIC);
	if (!nl->sk || mnl_socket_bind(nl->sk, 0, MNL_SOCKET_AUTOPID) < 0)
		return -errno;
	mnl_socket_setsockopt(nl->sk, NETLINK_EXT_ACK, &one, sizeof(one));
	nlh = mnl_nlmsg_put_header(nl->buf);
	nlh->nlmsg_type = GENL_ID_CTRL;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = ++nl->seq;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = CTRL_CMD_GETFAMILY;
	g->version = 1;
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, RTHS_GENL_NAME);
	if (mnl_socket_sendto(nl->sk, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	nl->family = 0;
	while ((n = mnl_socket_recvfrom(nl->sk, nl->buf, sizeof(nl->buf))) > 0)
		if (mnl_cb_run(nl->buf, n, 0, 0, family_cb, &nl->family) <=
		    MNL_CB_STOP)
			break;
	return nl->family ? 0 : -ENOENT;
}

static struct nlmsghdr *raw_msg(struct raw_nl *nl, uint8_t cmd)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(nl->buf);
	struct genlmsghdr *g;

	nlh->nlmsg_type = nl->family;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = ++nl->seq;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = cmd;
	g->version = RTHS_GENL_VERSION;
	return nlh;
}

/* Sends @nlh and decodes the ack with its extack attributes. */
static void raw_send(struct raw_nl *nl, struct nlmsghdr *nlh,
		     struct raw_reply *r)
{
	char rx[8192];
	const struct nlmsgerr *e;
	const struct nlattr *a;
	struct nlmsghdr *ack;
	int n;

	memset(r, 0, sizeof(*r));
	r->err = 1;
	if (mnl_socket_sendto(nl->sk, nlh, nlh->nlmsg_len) < 0) {
		r->err = -errno;
		return;
	}
	n = mnl_socket_recvfrom(nl->sk, rx, sizeof(rx));
	if (n <= 0)
		return;
	ack = (struct nlmsghdr *)rx;
	if (ack->nlmsg_type != NLMSG_ERROR)
		return;
	e = mnl_nlmsg_get_payload(ack);
	r->err = e->error;
	if (!(ack->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	/* the request is echoed back unless capped; skip it either way */
	mnl_attr_for_each(a, ack, (ack->nlmsg_flags & NLM_F_CAPPED ?
				   sizeof(*e) : sizeof(*e) - sizeof(e->msg) +
				   e->msg.nlmsg_len)) {
		switch (mnl_attr_get_type(a)) {
		case NLMSGERR_ATTR_MSG:
			snprintf(r->msg, sizeof(r->msg), "%s",
				 mnl_attr_get_str(a));
			break;
		case NLMSGERR_ATTR_OFFS:
			r->has_offs = 1;
			r->offs = mnl_attr_get_u32(a);
			break;
		case NLMSGERR_ATTR_MISS_TYPE:
			r->miss_type = mnl_attr_get_u32(a);
			break;
		}
	}
}

static uint32_t offset_of(const struct nlmsghdr *nlh, const void *attr)
{
	return (uint32_t)((const char *)attr - (const char *)nlh);
}

/* ---- fixture ------------------------------------------------------------ */

FIXTURE(nl) {
	struct rt t;
	struct raw_nl nl;
	struct rths_dev_info before;
	struct rths_sim_params sim_before;
};

FIXTURE_SETUP(nl)
{
	struct rths_sim_params sim;

	rt_sim_default(&sim);
	ASSERT_EQ(0, rt_create(&self->t, "nl", 2, &sim, NULL));
	ASSERT_EQ(0, raw_open(&self->nl));
	memset(&self->before, 0, sizeof(self->before));
	ASSERT_EQ(0, rths_dev_get(self->t.ctl, self->t.name, &self->before,
				  sizeof(self->before)));
	ASSERT_EQ(0, rths_dev_get_card(self->t.ctl, self->t.name, "sim",
				       &self->sim_before,
				       sizeof(self->sim_before)));
}

FIXTURE_TEARDOWN(nl)
{
	if (self->nl.sk)
		mnl_socket_close(self->nl.sk);
	rt_destroy(&self->t);
}

/* A rejected request leaves everything as it was. */
static void expect_unchanged(struct __test_metadata *_metadata,
			     FIXTURE_DATA(nl) *self)
{
	struct rths_dev_info now, *b = &self->before;
	struct rths_sim_params sim;
	unsigned int ch;

	memset(&now, 0, sizeof(now));
	ASSERT_EQ(0, rths_dev_get(self->t.ctl, self->t.name, &now,
				  sizeof(now)));
	EXPECT_EQ(b->state, now.state);
	EXPECT_EQ(b->clock, now.clock);
	EXPECT_EQ(b->rate_hz, now.rate_hz);
	EXPECT_EQ(b->step_ticks, now.step_ticks);
	EXPECT_EQ(b->late_policy, now.late_policy);
	EXPECT_EQ(b->late_deadline, now.late_deadline);
	EXPECT_EQ(b->ramp_ticks, now.ramp_ticks);
	EXPECT_EQ(b->cmd_entries, now.cmd_entries);
	EXPECT_EQ(b->fb_entries, now.fb_entries);
	EXPECT_EQ(b->trace_entries, now.trace_entries);
	EXPECT_EQ(b->mmap_size, now.mmap_size);
	for (ch = 0; ch < b->channels; ch++)
		EXPECT_EQ(0, memcmp(&b->limits[ch], &now.limits[ch],
				    sizeof(now.limits[ch])));
	ASSERT_EQ(0, rths_dev_get_card(self->t.ctl, self->t.name, "sim", &sim,
				       sizeof(sim)));
	EXPECT_EQ(0, memcmp(&self->sim_before, &sim, sizeof(sim)));
}

static struct nlmsghdr *set_msg(FIXTURE_DATA(nl) *self)
{
	struct nlmsghdr *nlh = raw_msg(&self->nl, RTHS_CMD_DEV_SET);

	mnl_attr_put_strz(nlh, RTHS_A_DEV_NAME, self->t.name);
	return nlh;
}

#define EXPECT_EXTACK(r, e, at) do {					\
	EXPECT_EQ((e), (r).err);					\
	EXPECT_NE('\0', (r).msg[0]);					\
	EXPECT_TRUE((r).has_offs);					\
	EXPECT_EQ((at), (r).offs) {					\
		TH_LOG("extack \"%s\" points elsewhere", (r).msg);	\
	}								\
} while (0)

TEST_F(nl, unknown_attribute)
{
	struct nlmsghdr *nlh = set_msg(self);
	struct nlattr *bad;
	struct raw_reply r;

	mnl_attr_put_u32(nlh, RTHS_A_DEV_RATE, 2048);
	bad = mnl_nlmsg_get_payload_tail(nlh);
	mnl_attr_put_u32(nlh, 200, 1);
	raw_send(&self->nl, nlh, &r);
	EXPECT_EXTACK(r, -EINVAL, offset_of(nlh, bad));
	expect_unchanged(_metadata, self);
}

TEST_F(nl, attribute_of_another_operation)
{
	struct nlmsghdr *nlh = set_msg(self);
	struct nlattr *bad = mnl_nlmsg_get_payload_tail(nlh);
	struct raw_reply r;

	mnl_attr_put_u32(nlh, RTHS_A_DEV_STATE, RTHS_STATE_RUNNING);
	raw_send(&self->nl, nlh, &r);
	EXPECT_EXTACK(r, -EINVAL, offset_of(nlh, bad));
	expect_unchanged(_metadata, self);
}

TEST_F(nl, wrong_type)
{
	struct nlmsghdr *nlh = set_msg(self);
	struct nlattr *bad;
	struct raw_reply r;

	mnl_attr_put_u32(nlh, RTHS_A_DEV_STEP_TICKS, 16);
	bad = mnl_nlmsg_get_payload_tail(nlh);
	mnl_attr_put_u16(nlh, RTHS_A_DEV_RATE, 2048);	/* a u32 attribute */
	raw_send(&self->nl, nlh, &r);
	EXPECT_EXTACK(r, -EINVAL, offset_of(nlh, bad));
	expect_unchanged(_metadata, self);
}

TEST_F(nl, out_of_range)
{
	struct nlmsghdr *nlh = set_msg(self);
	struct nlattr *bad;
	struct raw_reply r;

	mnl_attr_put_u32(nlh, RTHS_A_DEV_STEP_TICKS, 16);
	bad = mnl_nlmsg_get_payload_tail(nlh);
	mnl_attr_put_u32(nlh, RTHS_A_DEV_RATE, 50);
	raw_send(&self->nl, nlh, &r);
	EXPECT_EXTACK(r, -ERANGE, offset_of(nlh, bad));
	expect_unchanged(_metadata, self);
}

TEST_F(nl, out_of_range_card_parameter)
{
	struct nlmsghdr *nlh = set_msg(self);
	struct nlattr *nest, *bad;
	struct raw_reply r;

	mnl_attr_put_strz(nlh, RTHS_A_DEV_CARD, "sim");
	nest = mnl_attr_nest_start(nlh, RTHS_A_DEV_CARD_PARAMS);
	mnl_attr_put_u32(nlh, RTHS_SIM_A_LAG_US, 1000);
	bad = mnl_nlmsg_get_payload_tail(nlh);
	mnl_attr_put_u32(nlh, RTHS_SIM_A_DELAY_TICKS, RTHS_SIM_DELAY_MAX + 1);
	mnl_attr_nest_end(nlh, nest);
	raw_send(&self->nl, nlh, &r);
	EXPECT_EXTACK(r, -ERANGE, offset_of(nlh, bad));
	expect_unchanged(_metadata, self);
}

/*
 * Card parameters named for another card are refused at the name: the
 * comedi card numbers its parameters from 1 like the sim card, so its
 * minor would be read as the sim card's lag.
 */
TEST_F(nl, card_parameters_of_another_card)
{
	struct nlmsghdr *nlh = set_msg(self);
	struct rths_comedi_params comedi = { .set = RTHS_COMEDI_MINOR };
	struct nlattr *nest, *bad;
	struct raw_reply r;

	bad = mnl_nlmsg_get_payload_tail(nlh);
	mnl_attr_put_strz(nlh, RTHS_A_DEV_CARD, "comedi");
	nest = mnl_attr_nest_start(nlh, RTHS_A_DEV_CARD_PARAMS);
	mnl_attr_put_u32(nlh, RTHS_COMEDI_A_MINOR, 3);
	mnl_attr_nest_end(nlh, nest);
	raw_send(&self->nl, nlh, &r);
	EXPECT_EXTACK(r, -EINVAL, offset_of(nlh, bad));
	EXPECT_STREQ("not this device's card", r.msg);
	expect_unchanged(_metadata, self);
	/* librths names the card of the parameters it sends */
	comedi.minor = 3;
	EXPECT_EQ(-EINVAL, rths_dev_set(self->t.ctl, self->t.name, NULL, 0,
					RTHS_COMEDI_PARAMS(&comedi)));
	expect_unchanged(_metadata, self);
}

/* Card parameters that do not say which card they are for are refused. */
TEST_F(nl, card_parameters_without_their_card)
{
	struct nlmsghdr *nlh = set_msg(self);
	struct nlattr *nest;
	struct raw_reply r;

	nest = mnl_attr_nest_start(nlh, RTHS_A_DEV_CARD_PARAMS);
	mnl_attr_put_u32(nlh, RTHS_SIM_A_LAG_US, 3);
	mnl_attr_nest_end(nlh, nest);
	raw_send(&self->nl, nlh, &r);
	EXPECT_EQ(-EINVAL, r.err);
	EXPECT_EQ(RTHS_A_DEV_CARD, r.miss_type);
	EXPECT_STREQ("missing attribute: the card the parameters are for",
		     r.msg);
	expect_unchanged(_metadata, self);
}

/* The same request naming the device's own card is applied. */
TEST_F(nl, card_parameters_of_its_card)
{
	struct nlmsghdr *nlh = set_msg(self);
	struct rths_sim_params sim;
	struct nlattr *nest;
	struct raw_reply r;

	mnl_attr_put_strz(nlh, RTHS_A_DEV_CARD, "sim");
	nest = mnl_attr_nest_start(nlh, RTHS_A_DEV_CARD_PARAMS);
	mnl_attr_put_u32(nlh, RTHS_SIM_A_LAG_US, 3);
	mnl_attr_nest_end(nlh, nest);
	raw_send(&self->nl, nlh, &r);
	EXPECT_EQ(0, r.err) {
		TH_LOG("err %d msg '%s'", r.err, r.msg);
	}
	ASSERT_EQ(0, rths_dev_get_card(self->t.ctl, self->t.name, "sim", &sim,
				       sizeof(sim)));
	EXPECT_EQ(3, (int)(sim.lag * 1e6 + 0.5));
}

TEST_F(nl, missing_required_attribute)
{
	struct nlmsghdr *nlh = raw_msg(&self->nl, RTHS_CMD_DEV_NEW);
	struct raw_reply r;

	mnl_attr_put_strz(nlh, RTHS_A_DEV_NAME, "nlmissing");
	mnl_attr_put_strz(nlh, RTHS_A_DEV_CARD, "sim");
	raw_send(&self->nl, nlh, &r);
	EXPECT_EQ(-EINVAL, r.err);
	EXPECT_NE('\0', r.msg[0]) {
		TH_LOG("err %d miss %d msg '%s'", r.err, r.miss_type, r.msg);
	}
	EXPECT_EQ(RTHS_A_DEV_CHANNELS, r.miss_type);
	EXPECT_EQ(-ENODEV, rths_dev_get(self->t.ctl, "nlmissing",
					&self->before, sizeof(self->before)));
}

TEST_F(nl, limit_without_channel_index)
{
	struct nlmsghdr *nlh = set_msg(self);
	struct nlattr *all, *one;
	struct raw_reply r;

	all = mnl_attr_nest_start(nlh, RTHS_A_DEV_LIMITS);
	one = mnl_attr_nest_start(nlh, RTHS_A_LIMIT_CHANNEL);
	mnl_attr_put_u64(nlh, RTHS_LIMIT_A_VEL_MAX, 1000);
	mnl_attr_nest_end(nlh, one);
	mnl_attr_nest_end(nlh, all);
	raw_send(&self->nl, nlh, &r);
	EXPECT_EQ(-EINVAL, r.err);
	EXPECT_NE('\0', r.msg[0]);
	EXPECT_EQ(RTHS_LIMIT_A_INDEX, r.miss_type);
	expect_unchanged(_metadata, self);
}

TEST_F(nl, limit_beyond_channels)
{
	struct nlmsghdr *nlh = set_msg(self);
	struct nlattr *all, *one, *bad;
	struct raw_reply r;

	all = mnl_attr_nest_start(nlh, RTHS_A_DEV_LIMITS);
	one = mnl_attr_nest_start(nlh, RTHS_A_LIMIT_CHANNEL);
	bad = mnl_nlmsg_get_payload_tail(nlh);
	mnl_attr_put_u32(nlh, RTHS_LIMIT_A_INDEX, 5);	/* 2 channels */
	mnl_attr_nest_end(nlh, one);
	mnl_attr_nest_end(nlh, all);
	raw_send(&self->nl, nlh, &r);
	EXPECT_EXTACK(r, -EINVAL, offset_of(nlh, bad));
	expect_unchanged(_metadata, self);
}

TEST_F(nl, semantic_errors_change_nothing)
{
	struct nlmsghdr *nlh;
	struct nlattr *bad;
	struct raw_reply r;

	/* rate is valid, but the ring size is not: neither applies */
	nlh = set_msg(self);
	mnl_attr_put_u32(nlh, RTHS_A_DEV_RATE, 2048);
	bad = mnl_nlmsg_get_payload_tail(nlh);
	mnl_attr_put_u32(nlh, RTHS_A_DEV_FB_ENTRIES, 100);
	raw_send(&self->nl, nlh, &r);
	EXPECT_EXTACK(r, -EINVAL, offset_of(nlh, bad));
	expect_unchanged(_metadata, self);

	nlh = set_msg(self);
	bad = mnl_nlmsg_get_payload_tail(nlh);
	mnl_attr_put_u32(nlh, RTHS_A_DEV_LATE_DEADLINE, 9);	/* d = 8 */
	raw_send(&self->nl, nlh, &r);
	EXPECT_EXTACK(r, -EINVAL, offset_of(nlh, bad));
	expect_unchanged(_metadata, self);
}

TEST_F(nl, busy_while_running)
{
	struct rths_dev_config cfg = { .set = RTHS_CFG_RATE, .rate_hz = 2048 };

	ASSERT_EQ(0, rt_start(&self->t));
	EXPECT_EQ(-EBUSY, rths_dev_set(self->t.ctl, self->t.name, &cfg,
				       sizeof(cfg), NULL));
	EXPECT_NE(NULL, strstr(rths_ctl_error(self->t.ctl), "running"));
	EXPECT_EQ(-EBUSY, rths_run_start(self->t.ctl, self->t.name));
	ASSERT_EQ(0, rths_run_stop(self->t.ctl, self->t.name));
	self->before.state = RTHS_STATE_STOPPED;
	expect_unchanged(_metadata, self);
}

TEST_F(nl, tick_needs_the_manual_clock)
{
	struct rths_dev_config cfg = { .set = RTHS_CFG_CLOCK,
				       .clock = RTHS_CLOCK_HRTIMER };

	EXPECT_EQ(-EINVAL, rt_tick(&self->t, 1));	/* stopped */
	EXPECT_NE('\0', rths_ctl_error(self->t.ctl)[0]);
	ASSERT_EQ(0, rths_dev_set(self->t.ctl, self->t.name, &cfg, sizeof(cfg),
				  NULL));
	ASSERT_EQ(0, rt_start(&self->t));
	EXPECT_EQ(-EINVAL, rt_tick(&self->t, 1));
	EXPECT_NE(NULL, strstr(rths_ctl_error(self->t.ctl), "manual"));
	ASSERT_EQ(0, rths_run_stop(self->t.ctl, self->t.name));
}

static int count_non_ascii(const struct rths_dev_info *info,
			   const struct rths_card_params *card, void *arg)
{
	const char *p;

	(void)card;
	for (p = info->name; *p; p++)
		if ((unsigned char)*p >= 0x80) {
			++*(int *)arg;
			break;
		}
	return 0;
}

/* Latin-1 letters are not [a-zA-Z0-9_-], whatever the kernel's isalnum()
 * thinks: "\xe9t\xe9" must not become /dev/rths/<not UTF-8>. */
TEST_F(nl, device_name_is_ascii_only)
{
	static const char *const bad[] = { "\xe9t\xe9", "a\xc0", "\xff", "a.b",
					   "a/b" };
	struct raw_reply r;
	struct nlmsghdr *nlh;
	struct nlattr *name;
	unsigned int i;
	int n = 0;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		nlh = raw_msg(&self->nl, RTHS_CMD_DEV_NEW);
		name = mnl_nlmsg_get_payload_tail(nlh);
		mnl_attr_put_strz(nlh, RTHS_A_DEV_NAME, bad[i]);
		mnl_attr_put_strz(nlh, RTHS_A_DEV_CARD, "sim");
		mnl_attr_put_u32(nlh, RTHS_A_DEV_CHANNELS, 1);
		raw_send(&self->nl, nlh, &r);
		EXPECT_EXTACK(r, -EINVAL, offset_of(nlh, name));
		EXPECT_NE(NULL, strstr(r.msg, "letters, digits"));
	}
	/* nothing was created */
	ASSERT_EQ(0, rths_dev_list(self->t.ctl, count_non_ascii, &n));
	EXPECT_EQ(0, n);
	/* the documented set still works */
	ASSERT_EQ(0, rths_dev_new(self->t.ctl, "nl_Az09-x", "sim", 1, NULL));
	EXPECT_EQ(0, rths_dev_del(self->t.ctl, "nl_Az09-x"));
}

/* RUN_NOW is a flag of RUN_STOP and nothing else. */
TEST_F(nl, run_now_is_strict)
{
	struct nlmsghdr *nlh;
	struct nlattr *bad;
	struct raw_reply r;
	uint32_t junk = 1;

	/* a flag carries no payload */
	nlh = raw_msg(&self->nl, RTHS_CMD_RUN_STOP);
	mnl_attr_put_strz(nlh, RTHS_A_DEV_NAME, self->t.name);
	bad = mnl_nlmsg_get_payload_tail(nlh);
	mnl_attr_put(nlh, RTHS_A_RUN_NOW, sizeof(junk), &junk);
	raw_send(&self->nl, nlh, &r);
	EXPECT_EXTACK(r, -ERANGE, offset_of(nlh, bad));
	/* another operation does not take it */
	nlh = raw_msg(&self->nl, RTHS_CMD_RUN_START);
	mnl_attr_put_strz(nlh, RTHS_A_DEV_NAME, self->t.name);
	bad = mnl_nlmsg_get_payload_tail(nlh);
	mnl_attr_put(nlh, RTHS_A_RUN_NOW, 0, NULL);
	raw_send(&self->nl, nlh, &r);
	EXPECT_EXTACK(r, -EINVAL, offset_of(nlh, bad));
	expect_unchanged(_metadata, self);
	/* and RUN_STOP does */
	nlh = raw_msg(&self->nl, RTHS_CMD_RUN_STOP);
	mnl_attr_put_strz(nlh, RTHS_A_DEV_NAME, self->t.name);
	mnl_attr_put(nlh, RTHS_A_RUN_NOW, 0, NULL);
	raw_send(&self->nl, nlh, &r);
	EXPECT_EQ(0, r.err);
}

TEST_F(nl, lifecycle)
{
	struct rths_dev_info info;
	char path[64];
	struct stat stt;

	EXPECT_EQ(-EEXIST, rths_dev_new(self->t.ctl, self->t.name, "sim", 1,
					NULL));
	EXPECT_NE('\0', rths_ctl_error(self->t.ctl)[0]);
	EXPECT_EQ(-ENOENT, rths_dev_new(self->t.ctl, "nlnocard", "nosuch", 1,
					NULL));
	EXPECT_EQ(-EINVAL, rths_dev_new(self->t.ctl, "a b", "sim", 1, NULL));
	EXPECT_GT(0, rths_dev_new(self->t.ctl, "nlwide", "sim",
				  RTHS_MAX_CHANNELS + 1, NULL));
	EXPECT_EQ(-ENODEV, rths_dev_get(self->t.ctl, "nlwide", &info,
					sizeof(info)));

	snprintf(path, sizeof(path), "/dev/rths/%s", self->t.name);
	ASSERT_EQ(0, stat(path, &stt));
	EXPECT_TRUE(S_ISCHR(stt.st_mode));
	EXPECT_EQ(0660u, stt.st_mode & 0777);
	EXPECT_EQ(self->before.chrdev_major, major(stt.st_rdev));
	EXPECT_EQ(self->before.chrdev_minor, minor(stt.st_rdev));
	EXPECT_EQ(self->before.id, self->before.chrdev_minor);
	EXPECT_STREQ("sim", self->before.card);
	EXPECT_EQ(2u, self->before.channels);
	EXPECT_EQ(RTHS_STATE_STOPPED, self->before.state);

	ASSERT_EQ(0, rths_dev_del(self->t.ctl, self->t.name));
	EXPECT_EQ(-1, stat(path, &stt));
	EXPECT_EQ(-ENODEV, rths_dev_get(self->t.ctl, self->t.name, &info,
					sizeof(info)));
	EXPECT_EQ(-ENODEV, rths_dev_del(self->t.ctl, self->t.name));
}

static int count_dev(const struct rths_dev_info *info,
		     const struct rths_card_params *card, void *arg)
{
	struct { const char *name; int n; } *c = arg;

	/* ours, with its card's parameters */
	if (!strcmp(info->name, c->name) && !strcmp(card->card, "sim") &&
	    card->params && card->size >= RTHS_SIM_PARAMS_SIZE_VER0)
		c->n++;
	return 0;
}

static int find_sim(const char *card, void *arg)
{
	if (!strcmp(card, "sim"))
		*(int *)arg = 1;
	return 0;
}

TEST_F(nl, dumps)
{
	struct { const char *name; int n; } c = { self->t.name, 0 };
	int sim = 0;

	ASSERT_EQ(0, rths_dev_list(self->t.ctl, count_dev, &c));
	EXPECT_EQ(1, c.n);
	ASSERT_EQ(0, rths_card_list(self->t.ctl, find_sim, &sim));
	EXPECT_EQ(1, sim);
}

TEST_F(nl, one_owner_observers_read_only)
{
	struct rt_raw a, b;
	void *p;

	ASSERT_EQ(0, rt_raw_map(&self->t, &a, true));
	EXPECT_EQ(-EBUSY, rt_raw_map(&self->t, &b, true));
	ASSERT_EQ(0, rt_raw_map(&self->t, &b, false));
	p = mmap(NULL, b.size, PROT_READ | PROT_WRITE, MAP_SHARED, b.fd, 0);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(RTHS_MMAP_MAGIC,
		  ((struct rths_mmap_header *)b.base)->magic);
	EXPECT_EQ(2u, ((struct rths_mmap_header *)b.base)->channels);
	rt_raw_unmap(&b);
	rt_raw_unmap(&a);
}

TEST_F(nl, resize_while_mapped_is_busy)
{
	struct rths_dev_config cfg = { .set = RTHS_CFG_FB_ENTRIES,
				       .fb_entries = 64 };
	struct rt_raw a;

	ASSERT_EQ(0, rt_raw_map(&self->t, &a, false));
	EXPECT_EQ(-EBUSY, rths_dev_set(self->t.ctl, self->t.name, &cfg,
				       sizeof(cfg), NULL));
	expect_unchanged(_metadata, self);
	rt_raw_unmap(&a);
	EXPECT_EQ(0, rths_dev_set(self->t.ctl, self->t.name, &cfg, sizeof(cfg),
				  NULL));
}

/* Without CAP_NET_ADMIN every change is refused; reading is allowed. */
TEST_F(nl, unprivileged_gets_eperm)
{
	char path[64];
	pid_t pid;
	int st;

	snprintf(path, sizeof(path), "/dev/rths/%s", self->t.name);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		struct rths_dev_config cfg = { .set = RTHS_CFG_RATE,
					       .rate_hz = 2048 };
		struct rths_dev_info info;
		struct rths_ctl *ctl;
		const char *n = self->t.name;
		int ok[10], i;

		if (setgid(65534) || setuid(65534) || rths_ctl_open(&ctl))
			_exit(100);
		ok[0] = rths_dev_new(ctl, "nlnobody", "sim", 1, NULL) == -EPERM;
		ok[1] = rths_dev_set(ctl, n, &cfg, sizeof(cfg), NULL) == -EPERM;
		ok[2] = rths_run_start(ctl, n) == -EPERM;
		ok[3] = rths_run_stop(ctl, n) == -EPERM;
		ok[4] = rths_run_tick(ctl, n, 1) == -EPERM;
		ok[5] = rths_stats_reset(ctl, n) == -EPERM;
		ok[6] = rths_dev_del(ctl, n) == -EPERM;
		ok[7] = rths_dev_get(ctl, n, &info, sizeof(info)) == 0;
		ok[8] = open(path, O_RDWR) < 0 && errno == EACCES;
		ok[9] = rths_run_hold(ctl, n) == -EPERM;
		for (i = 0; i < 10; i++)
			if (!ok[i])
				_exit(i + 1);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	ASSERT_TRUE(WIFEXITED(st));
	EXPECT_EQ(0, WEXITSTATUS(st)) {
		TH_LOG("check %d failed (1: new ... 9: open, 10: hold)",
		       WEXITSTATUS(st));
	}
	expect_unchanged(_metadata, self);
}

/* ---- the node is the key: run control for the device's owner ---------- */

/* A group that may open the nodes, and a user in it with no capability. */
#define NR_GID	4242
#define NR_UID	4243

/* What udev does for group rths: the node group-writable by NR_GID. */
static int node_to_group(const char *name)
{
	char path[64];

	snprintf(path, sizeof(path), "/dev/rths/%s", name);
	return chown(path, 0, NR_GID) || chmod(path, 0660) ? -errno : 0;
}

/* setresuid() away from 0 clears every capability. */
static int drop_to_user(void)
{
	gid_t g = NR_GID;

	if (setgroups(1, &g) || setresgid(NR_GID, NR_GID, NR_GID) ||
	    setresuid(NR_UID, NR_UID, NR_UID))
		return -errno;
	return 0;
}

/* A RUN_START with @fd in RTHS_A_DEV_FD (none if @fd == -2). */
static void raw_start(struct raw_nl *nl, const char *name, int fd,
		      struct raw_reply *r, uint32_t *fd_off)
{
	struct nlmsghdr *nlh = raw_msg(nl, RTHS_CMD_RUN_START);

	mnl_attr_put_strz(nlh, RTHS_A_DEV_NAME, name);
	*fd_off = nlh->nlmsg_len;
	if (fd != -2)
		mnl_attr_put_u32(nlh, RTHS_A_DEV_FD, (uint32_t)fd);
	raw_send(nl, nlh, r);
}

/* The child's checks, numbered: exit(n) names the first that failed. */
#define NR_CHECK(n, cond) do { if (!(cond)) _exit(n); } while (0)

/*
 * Without CAP_NET_ADMIN only an fd of the device's node that owns it
 * lets a request in: none, an observer's, another device's or any other
 * file's is refused with an extack saying why.
 */
static void nr_refused(const char *name, const char *other)
{
	char path[64], opath[64];
	struct raw_reply r;
	struct raw_nl nl = { 0 };
	uint32_t off;
	int ro, ofd, null;

	snprintf(path, sizeof(path), "/dev/rths/%s", name);
	snprintf(opath, sizeof(opath), "/dev/rths/%s", other);
	NR_CHECK(10, raw_open(&nl) == 0);
	raw_start(&nl, name, -2, &r, &off);
	NR_CHECK(11, r.err == -EPERM && strstr(r.msg, "CAP_NET_ADMIN") &&
		 strstr(r.msg, "RTHS_A_DEV_FD"));
	ro = open(path, O_RDONLY);
	NR_CHECK(12, ro >= 0);
	raw_start(&nl, name, ro, &r, &off);
	NR_CHECK(13, r.err == -EPERM && strstr(r.msg, "owner") &&
		 r.has_offs && r.offs == off);
	ofd = open(opath, O_RDWR);
	NR_CHECK(14, ofd >= 0);
	raw_start(&nl, name, ofd, &r, &off);
	NR_CHECK(15, r.err == -EPERM && r.has_offs && r.offs == off);
	null = open("/dev/null", O_RDWR);
	raw_start(&nl, name, null, &r, &off);
	NR_CHECK(16, null >= 0 && r.err == -EPERM);
	raw_start(&nl, name, 1000, &r, &off);	/* no such fd */
	NR_CHECK(17, r.err == -EPERM);
	raw_start(&nl, name, -1, &r, &off);	/* the policy's minimum */
	NR_CHECK(18, r.err == -ERANGE || r.err == -EINVAL);
	close(null);
	close(ofd);
	close(ro);
	mnl_socket_close(nl.sk);
}

static void nr_child(const char *name, const char *other, uint32_t cpu)
{
	struct rths_dev_config cfg = { .set = RTHS_CFG_RATE, .rate_hz = 2048 };
	struct rths_dev_config wide = { .set = RTHS_CFG_LIMITS,
					.limits_set = 1 };
	struct rths_dev_config narrow = { .set = RTHS_CFG_LIMITS,
					  .limits_set = 1 };
	struct rths_dev_config back = { .set = RTHS_CFG_LIMITS,
					.limits_set = 1 };
	struct rths_dev_config cpuc = { .set = RTHS_CFG_CPU, .cpu = cpu };
	struct rths_dev_config brk = { .set = RTHS_CFG_LAT_BREAK_US,
				       .lat_break_us = 100 };
	struct rths_ctl *ctl, *ctl2;
	struct rths_dev *dev, *obs;

	wide.limits[0] = (struct rths_limits){ .set = RTHS_LIM_POS_MAX,
					       .pos_max = 0.2 };
	narrow.limits[0] = (struct rths_limits){ .set = RTHS_LIM_POS_MAX,
						 .pos_max = 0.1 };
	back.limits[0] = (struct rths_limits){ .set = RTHS_LIM_POS_MAX,
					       .pos_max = 0.15 };
	NR_CHECK(1, drop_to_user() == 0 && rths_ctl_open(&ctl) == 0 &&
		 rths_ctl_open(&ctl2) == 0);
	/* an admin's: new, del, and a stopped device's cpu */
	NR_CHECK(2, rths_dev_new(ctl, "nrnew", "sim", 1, NULL) == -EPERM);
	NR_CHECK(3, rths_dev_del(ctl, name) == -EPERM);
	NR_CHECK(4, rths_dev_set(ctl, name, &cpuc, sizeof(cpuc), NULL) ==
		 -EPERM && strstr(rths_ctl_error(ctl), "cpu"));
	/* a latency break turns the system's tracing off: an admin's too */
	NR_CHECK(5, rths_dev_set(ctl, name, &brk, sizeof(brk), NULL) ==
		 -EPERM && strstr(rths_ctl_error(ctl), "tracing"));
	nr_refused(name, other);
	/* a start needs an owner for the whole run */
	NR_CHECK(20, rths_run_start(ctl, name) == -EPERM &&
		 strstr(rths_ctl_error(ctl), "RTHS_OPEN_OWNER"));
	/* what leaves nothing running borrows the node: a stopped device */
	NR_CHECK(21, rths_dev_set(ctl, name, &cfg, sizeof(cfg), NULL) == 0);
	NR_CHECK(22, rths_stats_reset(ctl, name) == 0);
	NR_CHECK(23, rths_run_stop(ctl, name) == 0);
	/* the owner handle: the library sends its fd */
	NR_CHECK(30, rths_dev_open(ctl, name, RTHS_OPEN_OWNER, &dev) == 0);
	NR_CHECK(31, rths_dev_open(ctl2, name, 0, &obs) == 0);
	NR_CHECK(32, rths_dev_set(ctl, name, &narrow, sizeof(narrow),
				  NULL) == 0);
	/* within the admin's 0.15 m: narrower, and back; never beyond */
	NR_CHECK(33, rths_dev_set(ctl, name, &wide, sizeof(wide), NULL) ==
		 -EPERM && strstr(rths_ctl_error(ctl), "limits"));
	NR_CHECK(43, rths_dev_set(ctl, name, &back, sizeof(back), NULL) == 0);
	NR_CHECK(34, rths_run_start(ctl, name) == 0);
	rths_dev_sync(dev);
	NR_CHECK(35, rths_run_tick(ctl, name, 8) == 0);
	NR_CHECK(36, rths_stats_reset(ctl, name) == 0);
	/* an observer's handle, and another handle of the same user, do
	 * not control the owner's run: the node is busy */
	NR_CHECK(37, rths_run_hold(ctl2, name) == -EPERM &&
		 strstr(rths_ctl_error(ctl2), "has an owner"));
	NR_CHECK(38, rths_run_stop(ctl2, name) == -EPERM);
	NR_CHECK(39, rths_run_tick(ctl2, name, 1) == -EPERM);
	NR_CHECK(40, rths_run_hold(ctl, name) == 0);
	NR_CHECK(41, rths_run_stop(ctl, name) == 0);
	rths_dev_close(obs);
	rths_dev_close(dev);
	/* once closed, the handle's fd is not sent any more */
	NR_CHECK(42, rths_run_start(ctl, name) == -EPERM);
	rths_ctl_close(ctl2);
	rths_ctl_close(ctl);
	_exit(0);
}

/*
 * A user in the node's group, without any capability, runs the device
 * through its owner fd; nothing else of it, and nothing of another
 * device, is theirs.
 */
TEST_F(nl, owner_fd_is_the_key)
{
	struct rths_dev_config env = { .set = RTHS_CFG_LIMITS,
				       .limits_set = 1 };
	struct rths_dev_info info;
	enum rths_state state;
	struct rt other;
	pid_t pid;
	int st;

	/* the admin's envelope: stroke up to 0.15 m on channel 0 */
	env.limits[0] = (struct rths_limits){ .set = RTHS_LIM_POS_MAX,
					      .pos_max = 0.15 };
	ASSERT_EQ(0, rths_dev_set(self->t.ctl, self->t.name, &env,
				  sizeof(env), NULL));
	ASSERT_EQ(0, rt_create(&other, "nro", 1, NULL, NULL));
	ASSERT_EQ(0, node_to_group(self->t.name));
	ASSERT_EQ(0, node_to_group(other.name));
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0)
		nr_child(self->t.name, other.name, self->before.cpu ? 0 : 1);
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	ASSERT_TRUE(WIFEXITED(st));
	EXPECT_EQ(0, WEXITSTATUS(st)) {
		TH_LOG("check %d failed (see nr_child)", WEXITSTATUS(st));
	}
	/* the user's run happened: rate and limit are theirs, cpu is not */
	ASSERT_EQ(0, rths_dev_get(self->t.ctl, self->t.name, &info,
				  sizeof(info)));
	EXPECT_EQ(2048u, info.rate_hz);
	EXPECT_EQ(self->before.cpu, info.cpu);
	EXPECT_EQ(0.15, info.limits[0].pos_max);
	EXPECT_EQ(0, rt_state(&self->t, &state, NULL, NULL));
	EXPECT_EQ(RTHS_STATE_STOPPED, state);
	/* an admin needs no fd */
	EXPECT_EQ(0, rths_run_start(self->t.ctl, self->t.name));
	EXPECT_EQ(0, rths_run_stop(self->t.ctl, self->t.name));
	rt_destroy(&other);
}

TEST_HARNESS_MAIN
