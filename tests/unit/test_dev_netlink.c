// SPDX-License-Identifier: GPL-2.0
/*
 * Request building and reply/ack decoding, without a kernel: requests are
 * built into buffers and walked back; acks and replies are fabricated the
 * way the kernel lays them out.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "kselftest_harness.h"
#include "dev/internal.h"

#define FAMILY 0x1234

/* ---- helpers ------------------------------------------------------------ */

static const struct nlattr *top_attr(const struct nlmsghdr *nlh,
				     unsigned int type)
{
	const struct nlattr *a;

	mnl_attr_for_each(a, nlh, GENL_HDRLEN)
		if (mnl_attr_get_type(a) == type)
			return a;
	return NULL;
}

static const struct nlattr *nested_attr(const struct nlattr *nest,
					unsigned int type)
{
	const struct nlattr *a;

	mnl_attr_for_each_nested(a, nest)
		if (mnl_attr_get_type(a) == type)
			return a;
	return NULL;
}

static unsigned int nested_count(const struct nlattr *nest)
{
	const struct nlattr *a;
	unsigned int n = 0;

	mnl_attr_for_each_nested(a, nest)
		n++;
	return n;
}

/* The RTHS_A_LIMIT_CHANNEL nest whose index is @ch. */
static const struct nlattr *limit_nest(const struct nlmsghdr *nlh,
				       uint32_t ch)
{
	const struct nlattr *limits = top_attr(nlh, RTHS_A_DEV_LIMITS), *a;

	if (!limits)
		return NULL;
	mnl_attr_for_each_nested(a, limits) {
		const struct nlattr *idx = nested_attr(a, RTHS_LIMIT_A_INDEX);

		if (idx && mnl_attr_get_u32(idx) == ch)
			return a;
	}
	return NULL;
}

static uint32_t offset_of(const struct nlmsghdr *req, const struct nlattr *a)
{
	return (uint32_t)((const char *)a - (const char *)req);
}

struct ack_spec {
	int error;
	bool uncapped;		/* echo the request, as without CAP_ACK */
	const char *msg;
	long offs, miss_type, miss_nest;	/* < 0: absent */
};

/* An NLMSG_ERROR laid out as netlink_ack() does. */
static struct nlmsghdr *make_ack(void *buf, const struct nlmsghdr *req,
				 const struct ack_spec *s)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct nlmsgerr *e;

	nlh->nlmsg_type = NLMSG_ERROR;
	nlh->nlmsg_seq = req->nlmsg_seq;
	nlh->nlmsg_flags = s->uncapped ? 0 : NLM_F_CAPPED;
	e = mnl_nlmsg_put_extra_header(nlh, sizeof(*e));
	e->error = s->error;
	e->msg = *req;
	if (s->uncapped) {
		size_t plen = req->nlmsg_len - sizeof(*req);

		memcpy(mnl_nlmsg_put_extra_header(nlh, plen), req + 1, plen);
	}
	if (s->msg || s->offs >= 0 || s->miss_type >= 0) {
		nlh->nlmsg_flags |= NLM_F_ACK_TLVS;
		if (s->msg)
			mnl_attr_put_strz(nlh, NLMSGERR_ATTR_MSG, s->msg);
		if (s->offs >= 0)
			mnl_attr_put_u32(nlh, NLMSGERR_ATTR_OFFS,
					 (uint32_t)s->offs);
		if (s->miss_type >= 0)
			mnl_attr_put_u32(nlh, NLMSGERR_ATTR_MISS_TYPE,
					 (uint32_t)s->miss_type);
		if (s->miss_nest >= 0)
			mnl_attr_put_u32(nlh, NLMSGERR_ATTR_MISS_NEST,
					 (uint32_t)s->miss_nest);
	}
	return nlh;
}

#define NO_TLV .offs = -1, .miss_type = -1, .miss_nest = -1

/* A DEV_SET request for "s0" with a bit of everything. */
static struct nlmsghdr *build_set(void *buf, size_t size, struct rths_err *err,
				  int *ret)
{
	struct rths_dev_config cfg = {
		.set = RTHS_CFG_CLOCK | RTHS_CFG_RATE | RTHS_CFG_STEP_TICKS |
		       RTHS_CFG_LATE_POLICY | RTHS_CFG_LATE_DEADLINE |
		       RTHS_CFG_RAMP_TICKS | RTHS_CFG_CPU | RTHS_CFG_PRIORITY |
		       RTHS_CFG_CMD_ENTRIES | RTHS_CFG_FB_ENTRIES |
		       RTHS_CFG_TRACE_ENTRIES | RTHS_CFG_LIMITS,
		.clock = RTHS_CLOCK_MANUAL,
		.rate_hz = 2048,
		.step_ticks = 10,
		.late_policy = RTHS_LATE_EVENT_DRIVEN,
		.late_deadline = 7,
		.ramp_ticks = 100,
		.cpu = 1,
		.priority = 80,
		.cmd_entries = 64,
		.fb_entries = 128,
		.trace_entries = 0,
		.limits_set = (1u << 0) | (1u << 3),
		.limits = {
			[0] = { .pos_min = -0.1, .pos_max = 0.1, .vel_max = 0.5,
				.force_max = 1e5 },
			[3] = { .pos_max = 0.025, .set = RTHS_LIM_POS_MAX },
		},
	};
	struct rths_sim_params sim = {
		.set = RTHS_SIM_LAG | RTHS_SIM_STIFFNESS | RTHS_SIM_SEED,
		.lag = 0.0125,
		.stiffness = 2.5e6,
		.seed = 42,
	};
	struct rths_msgbuf mb = { .size = size, .err = err };

	rths_err_clear(err);
	mb.nlh = rths_msg_init(buf, size, FAMILY, RTHS_CMD_DEV_SET, 0);
	*ret = rths_put_name(&mb, RTHS_A_DEV_NAME, "name", "s0");
	if (!*ret)
		*ret = rths_put_config(&mb, &cfg);
	if (!*ret)
		*ret = rths_put_card(&mb, NULL, RTHS_SIM_PARAMS(&sim));
	mb.nlh->nlmsg_seq = 77;
	return mb.nlh;
}

/* ---- requests ------------------------------------------------------------ */

TEST(dev_set_request_carries_what_was_set)
{
	char buf[RTHS_REQ_SIZE];
	struct rths_err err;
	const struct genlmsghdr *g;
	const struct nlattr *a, *l0, *l3, *sim;
	struct nlmsghdr *nlh;
	int ret;

	nlh = build_set(buf, sizeof(buf), &err, &ret);
	ASSERT_EQ(0, ret);
	EXPECT_EQ(FAMILY, nlh->nlmsg_type);
	EXPECT_TRUE(nlh->nlmsg_flags & NLM_F_REQUEST);
	g = mnl_nlmsg_get_payload(nlh);
	EXPECT_EQ(RTHS_CMD_DEV_SET, g->cmd);
	EXPECT_EQ(RTHS_GENL_VERSION, g->version);

	ASSERT_NE(NULL, a = top_attr(nlh, RTHS_A_DEV_NAME));
	EXPECT_STREQ("s0", mnl_attr_get_str(a));
	EXPECT_EQ(3, mnl_attr_get_payload_len(a));	/* NUL included */
#define EXPECT_U32(attr, v) do {					\
		const struct nlattr *x_ = top_attr(nlh, attr);		\
		ASSERT_NE(NULL, x_);					\
		EXPECT_EQ(4, mnl_attr_get_payload_len(x_));		\
		EXPECT_EQ((uint32_t)(v), mnl_attr_get_u32(x_));	\
	} while (0)
	EXPECT_U32(RTHS_A_DEV_CLOCK, RTHS_CLOCK_MANUAL);
	EXPECT_U32(RTHS_A_DEV_RATE, 2048);
	EXPECT_U32(RTHS_A_DEV_STEP_TICKS, 10);
	EXPECT_U32(RTHS_A_DEV_LATE_POLICY, RTHS_LATE_EVENT_DRIVEN);
	EXPECT_U32(RTHS_A_DEV_LATE_DEADLINE, 7);
	EXPECT_U32(RTHS_A_DEV_RAMP_TICKS, 100);
	EXPECT_U32(RTHS_A_DEV_CPU, 1);
	EXPECT_U32(RTHS_A_DEV_PRIORITY, 80);
	EXPECT_U32(RTHS_A_DEV_CMD_ENTRIES, 64);
	EXPECT_U32(RTHS_A_DEV_FB_ENTRIES, 128);
	EXPECT_U32(RTHS_A_DEV_TRACE_ENTRIES, 0);
#undef EXPECT_U32
	EXPECT_EQ(NULL, top_attr(nlh, RTHS_A_DEV_CHANNELS));

	/* Channel 0: every limit, in kernel units, s64 as two's complement. */
	ASSERT_NE(NULL, l0 = limit_nest(nlh, 0));
	EXPECT_EQ(5U, nested_count(l0));
	ASSERT_NE(NULL, a = nested_attr(l0, RTHS_LIMIT_A_POS_MIN));
	EXPECT_EQ(8, mnl_attr_get_payload_len(a));
	EXPECT_EQ(-100000000LL, (int64_t)mnl_attr_get_u64(a));
	ASSERT_NE(NULL, a = nested_attr(l0, RTHS_LIMIT_A_POS_MAX));
	EXPECT_EQ(100000000LL, (int64_t)mnl_attr_get_u64(a));
	ASSERT_NE(NULL, a = nested_attr(l0, RTHS_LIMIT_A_VEL_MAX));
	EXPECT_EQ(500000000ULL, mnl_attr_get_u64(a));
	ASSERT_NE(NULL, a = nested_attr(l0, RTHS_LIMIT_A_FORCE_MAX));
	EXPECT_EQ(100000000000ULL, mnl_attr_get_u64(a));
	/* Channel 3: only what its mask says, so the kernel keeps the rest. */
	ASSERT_NE(NULL, l3 = limit_nest(nlh, 3));
	EXPECT_EQ(2U, nested_count(l3));
	ASSERT_NE(NULL, a = nested_attr(l3, RTHS_LIMIT_A_POS_MAX));
	EXPECT_EQ(25000000ULL, mnl_attr_get_u64(a));
	EXPECT_EQ(NULL, limit_nest(nlh, 1));

	ASSERT_NE(NULL, sim = top_attr(nlh, RTHS_A_DEV_CARD_PARAMS));
	EXPECT_EQ(3U, nested_count(sim));
	ASSERT_NE(NULL, a = nested_attr(sim, RTHS_SIM_A_LAG_US));
	EXPECT_EQ(12500U, mnl_attr_get_u32(a));
	ASSERT_NE(NULL, a = nested_attr(sim, RTHS_SIM_A_STIFFNESS));
	EXPECT_EQ(2500000ULL, mnl_attr_get_u64(a));
	ASSERT_NE(NULL, a = nested_attr(sim, RTHS_SIM_A_SEED));
	EXPECT_EQ(42ULL, mnl_attr_get_u64(a));
}

TEST(nests_carry_the_nested_flag)
{
	char buf[RTHS_REQ_SIZE];
	struct rths_err err;
	struct nlmsghdr *nlh;
	const struct nlattr *a;
	int ret;

	nlh = build_set(buf, sizeof(buf), &err, &ret);
	ASSERT_EQ(0, ret);
	a = top_attr(nlh, RTHS_A_DEV_LIMITS);
	ASSERT_NE(NULL, a);
	EXPECT_TRUE(a->nla_type & NLA_F_NESTED);
	EXPECT_TRUE(limit_nest(nlh, 3)->nla_type & NLA_F_NESTED);
	EXPECT_TRUE(top_attr(nlh, RTHS_A_DEV_CARD_PARAMS)->nla_type &
		    NLA_F_NESTED);
	EXPECT_FALSE(top_attr(nlh, RTHS_A_DEV_RATE)->nla_type & NLA_F_NESTED);
}

TEST(values_that_do_not_convert_are_named_before_sending)
{
	char buf[RTHS_REQ_SIZE];
	struct rths_err err = { "", 0 };
	struct rths_msgbuf mb = { .size = sizeof(buf), .err = &err };
	struct rths_dev_config cfg = {
		.set = RTHS_CFG_LIMITS,
		.limits_set = 1u << 3,
		.limits[3] = { .pos_max = NAN, .set = RTHS_LIM_POS_MAX },
	};
	struct rths_sim_params sim = {
		.set = RTHS_SIM_STIFFNESS,
		.stiffness = 1e12,
	};

	mb.nlh = rths_msg_init(buf, sizeof(buf), FAMILY, RTHS_CMD_DEV_SET, 0);
	EXPECT_EQ(-ERANGE, rths_put_config(&mb, &cfg));
	EXPECT_STREQ("limit 3 pos-max: not a finite number", err.msg);
	EXPECT_EQ(RTHS_LIMIT_A_POS_MAX, err.attr);

	cfg.limits[3] = (struct rths_limits){ .force_max = -1,
					       .set = RTHS_LIM_FORCE_MAX };
	EXPECT_EQ(-ERANGE, rths_put_config(&mb, &cfg));
	EXPECT_EQ(0, strncmp(err.msg, "limit 3 force-max: -1 is out of range",
			     strlen("limit 3 force-max: -1 is out of range")));

	EXPECT_EQ(-ERANGE, rths_put_sim(&mb, &sim));
	EXPECT_EQ(0, strncmp(err.msg, "stiffness: 1e+12 is out of range",
			     strlen("stiffness: 1e+12 is out of range")));
	EXPECT_EQ(RTHS_SIM_A_STIFFNESS, err.attr);

	sim = (struct rths_sim_params){ .set = RTHS_SIM_LAG, .lag = -0.001 };
	EXPECT_EQ(-ERANGE, rths_put_sim(&mb, &sim));
	EXPECT_EQ(0, strncmp(err.msg, "lag: ", 5));
}

TEST(names_are_checked)
{
	char buf[256];
	struct rths_err err = { "", 0 };
	struct rths_msgbuf mb = { .size = sizeof(buf), .err = &err };
	const char *bad[] = { "", "../etc", "a/b", "a.b", "a b",
			      "sixteen-chars-xx", NULL };
	unsigned int i;

	mb.nlh = rths_msg_init(buf, sizeof(buf), FAMILY, RTHS_CMD_DEV_NEW, 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint32_t len = mb.nlh->nlmsg_len;

		EXPECT_EQ(-EINVAL, rths_put_name(&mb, RTHS_A_DEV_NAME, "name",
						 bad[i]));
		EXPECT_EQ(0, strncmp(err.msg, "name: ", 6));
		EXPECT_EQ(len, mb.nlh->nlmsg_len);	/* nothing added */
	}
	EXPECT_EQ(0, rths_put_name(&mb, RTHS_A_DEV_NAME, "name",
				   "fifteen_chars-x"));
	EXPECT_EQ(0, rths_put_name(&mb, RTHS_A_DEV_NAME, "name", "Az09_-"));
}

TEST(request_too_large)
{
	char buf[MNL_NLMSG_HDRLEN + GENL_HDRLEN + 24];
	struct rths_err err = { "", 0 };
	struct rths_msgbuf mb = { .size = sizeof(buf), .err = &err };
	struct rths_dev_config cfg = {
		.set = RTHS_CFG_RATE | RTHS_CFG_CPU | RTHS_CFG_PRIORITY |
		       RTHS_CFG_STEP_TICKS,
	};

	mb.nlh = rths_msg_init(buf, sizeof(buf), FAMILY, RTHS_CMD_DEV_SET, 0);
	EXPECT_EQ(-EMSGSIZE, rths_put_config(&mb, &cfg));
	EXPECT_LE(mb.nlh->nlmsg_len, sizeof(buf));
	EXPECT_STREQ("request too large", err.msg);
}

/* ---- error acks ------------------------------------------------------------ */

FIXTURE(ack) {
	char req[RTHS_REQ_SIZE];
	char ack[RTHS_REQ_SIZE * 2];
	struct nlmsghdr *nlh;
	struct rths_err err;
};

FIXTURE_SETUP(ack)
{
	int ret;

	self->nlh = build_set(self->req, sizeof(self->req), &self->err, &ret);
	ASSERT_EQ(0, ret);
}

FIXTURE_TEARDOWN(ack)
{
}

TEST_F(ack, offset_names_a_nested_limit_attribute)
{
	const struct nlattr *a = nested_attr(limit_nest(self->nlh, 3),
					     RTHS_LIMIT_A_POS_MAX);
	struct ack_spec s = { -ERANGE, false, "integer out of range", NO_TLV };

	ASSERT_NE(NULL, a);
	s.offs = offset_of(self->nlh, a);
	EXPECT_EQ(-ERANGE, rths_ack_decode(self->nlh,
					    make_ack(self->ack, self->nlh, &s),
					    &self->err));
	EXPECT_STREQ("limits.channel[3].pos-max: integer out of range",
		     self->err.msg);
	EXPECT_EQ(RTHS_LIMIT_A_POS_MAX, self->err.attr);
}

TEST_F(ack, uncapped_ack_echoes_the_request_before_the_tlvs)
{
	const struct nlattr *a = nested_attr(limit_nest(self->nlh, 0),
					     RTHS_LIMIT_A_FORCE_MAX);
	struct ack_spec s = { -EINVAL, true, "bad force", NO_TLV };
	struct nlmsghdr *ack;

	s.offs = offset_of(self->nlh, a);
	ack = make_ack(self->ack, self->nlh, &s);
	EXPECT_GT(ack->nlmsg_len, self->nlh->nlmsg_len);
	EXPECT_EQ(-EINVAL, rths_ack_decode(self->nlh, ack, &self->err));
	EXPECT_STREQ("limits.channel[0].force-max: bad force", self->err.msg);
	EXPECT_EQ(RTHS_LIMIT_A_FORCE_MAX, self->err.attr);
}

TEST_F(ack, offset_names_a_top_level_attribute)
{
	struct ack_spec s = { -ERANGE, false, "integer out of range", NO_TLV };

	s.offs = offset_of(self->nlh, top_attr(self->nlh, RTHS_A_DEV_RATE));
	EXPECT_EQ(-ERANGE, rths_ack_decode(self->nlh,
					    make_ack(self->ack, self->nlh, &s),
					    &self->err));
	EXPECT_STREQ("rate: integer out of range", self->err.msg);
	EXPECT_EQ(RTHS_A_DEV_RATE, self->err.attr);
}

/* The kernel also sends the policy of the rejected attribute. */
TEST_F(ack, policy_range_is_quoted)
{
	struct ack_spec s = { -ERANGE, false, "integer out of range", NO_TLV };
	struct nlmsghdr *ack;
	struct nlattr *pol;

	s.offs = offset_of(self->nlh, top_attr(self->nlh, RTHS_A_DEV_RATE));
	ack = make_ack(self->ack, self->nlh, &s);
	pol = mnl_attr_nest_start(ack, NLMSGERR_ATTR_POLICY);
	mnl_attr_put_u32(ack, NL_POLICY_TYPE_ATTR_TYPE, NL_ATTR_TYPE_U32);
	mnl_attr_put_u64(ack, NL_POLICY_TYPE_ATTR_MIN_VALUE_U, 100);
	mnl_attr_put_u64(ack, NL_POLICY_TYPE_ATTR_MAX_VALUE_U, 20000);
	mnl_attr_nest_end(ack, pol);
	EXPECT_EQ(-ERANGE, rths_ack_decode(self->nlh, ack, &self->err));
	EXPECT_STREQ("rate: integer out of range (allowed 100..20000)",
		     self->err.msg);

	/* a signed range, as for the stroke limits */
	ack = make_ack(self->ack, self->nlh, &s);
	pol = mnl_attr_nest_start(ack, NLMSGERR_ATTR_POLICY);
	mnl_attr_put_u64(ack, NL_POLICY_TYPE_ATTR_MIN_VALUE_S,
			 (uint64_t)-1099511627776LL);
	mnl_attr_put_u64(ack, NL_POLICY_TYPE_ATTR_MAX_VALUE_S, 1099511627776ULL);
	mnl_attr_nest_end(ack, pol);
	EXPECT_EQ(-ERANGE, rths_ack_decode(self->nlh, ack, &self->err));
	EXPECT_STREQ("rate: integer out of range (allowed -1099511627776..1099511627776)",
		     self->err.msg);
}

TEST_F(ack, offset_inside_a_payload_names_that_attribute)
{
	const struct nlattr *a = nested_attr(top_attr(self->nlh,
						      RTHS_A_DEV_CARD_PARAMS),
					     RTHS_SIM_A_STIFFNESS);
	struct ack_spec s = { -ERANGE, false, NULL, NO_TLV };

	s.offs = offset_of(self->nlh, a) + MNL_ATTR_HDRLEN + 4;
	EXPECT_EQ(-ERANGE, rths_ack_decode(self->nlh,
					    make_ack(self->ack, self->nlh, &s),
					    &self->err));
	/* no kernel message: the errno's text stands in */
	EXPECT_STREQ("card-params.stiffness: Numerical result out of range",
		     self->err.msg);
	EXPECT_EQ(RTHS_SIM_A_STIFFNESS, self->err.attr);
}

TEST_F(ack, offset_at_a_nest_names_the_nest)
{
	struct ack_spec s = { -EINVAL, false, "NLA_F_NESTED is missing",
			      NO_TLV };

	s.offs = offset_of(self->nlh, limit_nest(self->nlh, 3));
	EXPECT_EQ(-EINVAL, rths_ack_decode(self->nlh,
					    make_ack(self->ack, self->nlh, &s),
					    &self->err));
	EXPECT_STREQ("limits.channel[3]: NLA_F_NESTED is missing",
		     self->err.msg);
	EXPECT_EQ(RTHS_A_LIMIT_CHANNEL, self->err.attr);
}

TEST_F(ack, missing_top_level_attribute)
{
	struct ack_spec s = { -EINVAL, false, NULL, NO_TLV };

	s.miss_type = RTHS_A_DEV_NAME;
	EXPECT_EQ(-EINVAL, rths_ack_decode(self->nlh,
					    make_ack(self->ack, self->nlh, &s),
					    &self->err));
	EXPECT_STREQ("missing attribute: name", self->err.msg);
	EXPECT_EQ(RTHS_A_DEV_NAME, self->err.attr);
}

TEST_F(ack, missing_attribute_inside_a_nest)
{
	struct ack_spec s = { -EINVAL, false, "force limit needed", NO_TLV };

	s.miss_type = RTHS_LIMIT_A_FORCE_MAX;
	s.miss_nest = offset_of(self->nlh, limit_nest(self->nlh, 3));
	EXPECT_EQ(-EINVAL, rths_ack_decode(self->nlh,
					    make_ack(self->ack, self->nlh, &s),
					    &self->err));
	EXPECT_STREQ("missing attribute: limits.channel[3].force-max (force limit needed)",
		     self->err.msg);
	EXPECT_EQ(RTHS_LIMIT_A_FORCE_MAX, self->err.attr);
}

TEST_F(ack, missing_attribute_is_not_said_twice)
{
	struct ack_spec s = { -EINVAL, false, "Missing attribute: the device name",
			      NO_TLV };

	s.miss_type = RTHS_A_DEV_NAME;
	rths_ack_decode(self->nlh, make_ack(self->ack, self->nlh, &s),
			&self->err);
	EXPECT_STREQ("missing attribute: name (the device name)", self->err.msg);
	s.msg = "missing attribute";
	rths_ack_decode(self->nlh, make_ack(self->ack, self->nlh, &s),
			&self->err);
	EXPECT_STREQ("missing attribute: name", self->err.msg);
}

TEST_F(ack, plain_errors_speak_errno)
{
	struct ack_spec s = { -EBUSY, false, NULL, NO_TLV };

	EXPECT_EQ(-EBUSY, rths_ack_decode(self->nlh,
					   make_ack(self->ack, self->nlh, &s),
					   &self->err));
	EXPECT_STREQ("Device or resource busy", self->err.msg);
	EXPECT_EQ(0, self->err.attr);

	s.error = -EPERM;
	EXPECT_EQ(-EPERM, rths_ack_decode(self->nlh,
					   make_ack(self->ack, self->nlh, &s),
					   &self->err));
	EXPECT_NE(NULL, strstr(self->err.msg, "CAP_NET_ADMIN"));
}

TEST_F(ack, message_without_offset)
{
	struct ack_spec s = { -EBUSY, false, "device is running", NO_TLV };

	EXPECT_EQ(-EBUSY, rths_ack_decode(self->nlh,
					   make_ack(self->ack, self->nlh, &s),
					   &self->err));
	EXPECT_STREQ("device is running", self->err.msg);
	EXPECT_EQ(0, self->err.attr);
}

TEST_F(ack, offset_outside_the_request_names_nothing)
{
	struct ack_spec s = { -EINVAL, false, "odd", NO_TLV };

	s.offs = self->nlh->nlmsg_len + 100;
	EXPECT_EQ(-EINVAL, rths_ack_decode(self->nlh,
					    make_ack(self->ack, self->nlh, &s),
					    &self->err));
	EXPECT_STREQ("odd", self->err.msg);
	EXPECT_EQ(0, self->err.attr);
	/* into the genl header: not an attribute either */
	s.offs = MNL_NLMSG_HDRLEN;
	rths_ack_decode(self->nlh, make_ack(self->ack, self->nlh, &s),
			&self->err);
	EXPECT_EQ(0, self->err.attr);
}

TEST_F(ack, success_ack)
{
	struct ack_spec s = { 0, false, NULL, NO_TLV };

	EXPECT_EQ(0, rths_ack_decode(self->nlh,
				      make_ack(self->ack, self->nlh, &s),
				      &self->err));
}

TEST_F(ack, truncated_ack_is_refused)
{
	struct ack_spec s = { -EINVAL, false, NULL, NO_TLV };
	struct nlmsghdr *ack = make_ack(self->ack, self->nlh, &s);

	ack->nlmsg_len = MNL_NLMSG_HDRLEN + 2;
	EXPECT_EQ(-EBADMSG, rths_ack_decode(self->nlh, ack, &self->err));
}

TEST_F(ack, dump_done_with_error)
{
	struct nlmsghdr *done = mnl_nlmsg_put_header(self->ack);
	int *code;

	done->nlmsg_type = NLMSG_DONE;
	done->nlmsg_flags = NLM_F_MULTI | NLM_F_ACK_TLVS;
	code = mnl_nlmsg_put_extra_header(done, sizeof(int));
	*code = -EMSGSIZE;
	mnl_attr_put_strz(done, NLMSGERR_ATTR_MSG, "dump too big");
	EXPECT_EQ(-EMSGSIZE, rths_done_decode(self->nlh, done, &self->err));
	EXPECT_STREQ("dump too big", self->err.msg);
	*code = 0;
	EXPECT_EQ(0, rths_done_decode(self->nlh, done, &self->err));
}

/* ---- replies ---------------------------------------------------------------- */

/* A u64 as nla_put_u64_64bit() puts it: preceded by a pad attribute when
 * the payload would not be 8-byte aligned (we always pad here). */
static void put_u64_padded(struct nlmsghdr *nlh, uint16_t pad, uint16_t type,
			   uint64_t v)
{
	mnl_attr_put(nlh, pad, 0, NULL);
	mnl_attr_put_u64(nlh, type, v);
}

static struct nlattr *kernel_nest(struct nlmsghdr *nlh, uint16_t type)
{
	struct nlattr *n = mnl_attr_nest_start(nlh, type);

	n->nla_type |= NLA_F_NESTED;
	return n;
}

static void put_ring(struct nlmsghdr *nlh, uint32_t id, uint32_t entries,
		     uint32_t esize, uint64_t base)
{
	struct nlattr *r = kernel_nest(nlh, RTHS_A_RING);

	mnl_attr_put_u32(nlh, RTHS_RING_A_ID, id);
	mnl_attr_put_u32(nlh, RTHS_RING_A_ENTRIES, entries);
	mnl_attr_put_u32(nlh, RTHS_RING_A_ENTRY_SIZE, esize);
	put_u64_padded(nlh, RTHS_RING_A_PAD, RTHS_RING_A_PRODUCER, base);
	put_u64_padded(nlh, RTHS_RING_A_PAD, RTHS_RING_A_CONSUMER, base + 64);
	put_u64_padded(nlh, RTHS_RING_A_PAD, RTHS_RING_A_DESC, base + 128);
	mnl_attr_nest_end(nlh, r);
}

static struct nlmsghdr *build_dev_reply(void *buf)
{
	struct nlmsghdr *nlh = rths_msg_init(buf, 4096, FAMILY,
					     RTHS_CMD_DEV_GET, 0);
	struct nlattr *n, *ch;
	/* major 0x123, minor 0x45678 in new_encode_dev() layout */
	uint32_t major = 0x123, minor = 0x45678;
	uint32_t dev = (minor & 0xff) | (major << 8) | ((minor & ~0xffu) << 12);

	mnl_attr_put_u32(nlh, RTHS_A_DEV_ID, 7);
	mnl_attr_put_strz(nlh, RTHS_A_DEV_NAME, "s0");
	mnl_attr_put_strz(nlh, RTHS_A_DEV_CARD, "sim");
	mnl_attr_put_u32(nlh, RTHS_A_DEV_CHANNELS, 2);
	n = kernel_nest(nlh, RTHS_A_DEV_CARD_PARAMS);
	mnl_attr_put_u32(nlh, RTHS_SIM_A_LAG_US, 5000);
	mnl_attr_put_u32(nlh, RTHS_SIM_A_DELAY_TICKS, 3);
	put_u64_padded(nlh, RTHS_SIM_A_PAD, RTHS_SIM_A_STIFFNESS, 1000000);
	mnl_attr_put_u32(nlh, RTHS_SIM_A_NOISE_FORCE, 2500);
	mnl_attr_nest_end(nlh, n);
	mnl_attr_put_u32(nlh, RTHS_A_DEV_STATE, RTHS_STATE_RUNNING);
	mnl_attr_put_u32(nlh, RTHS_A_DEV_REASON, RTHS_REASON_USER);
	mnl_attr_put_u32(nlh, RTHS_A_DEV_CLOCK, RTHS_CLOCK_HRTIMER);
	mnl_attr_put_u32(nlh, RTHS_A_DEV_RATE, 1024);
	mnl_attr_put_u32(nlh, RTHS_A_DEV_STEP_TICKS, 4);
	mnl_attr_put_u32(nlh, RTHS_A_DEV_LATE_POLICY, RTHS_LATE_HOLD);
	mnl_attr_put_u32(nlh, RTHS_A_DEV_CMD_ENTRIES, 16);
	mnl_attr_put_u32(nlh, RTHS_A_DEV_FB_ENTRIES, 32);
	mnl_attr_put_u32(nlh, RTHS_A_DEV_TRACE_ENTRIES, 0);
	n = kernel_nest(nlh, RTHS_A_DEV_LIMITS);
	ch = kernel_nest(nlh, RTHS_A_LIMIT_CHANNEL);
	mnl_attr_put_u32(nlh, RTHS_LIMIT_A_INDEX, 1);
	put_u64_padded(nlh, RTHS_LIMIT_A_PAD, RTHS_LIMIT_A_POS_MIN,
		       (uint64_t)-50000000LL);
	put_u64_padded(nlh, RTHS_LIMIT_A_PAD, RTHS_LIMIT_A_POS_MAX, 60000000);
	put_u64_padded(nlh, RTHS_LIMIT_A_PAD, RTHS_LIMIT_A_VEL_MAX, 250000000);
	put_u64_padded(nlh, RTHS_LIMIT_A_PAD, RTHS_LIMIT_A_FORCE_MAX,
		       3000000000ULL);
	mnl_attr_nest_end(nlh, ch);
	ch = kernel_nest(nlh, RTHS_A_LIMIT_CHANNEL);	/* beyond the table */
	mnl_attr_put_u32(nlh, RTHS_LIMIT_A_INDEX, 99);
	mnl_attr_nest_end(nlh, ch);
	mnl_attr_nest_end(nlh, n);
	n = kernel_nest(nlh, RTHS_A_DEV_RINGS);
	put_ring(nlh, RTHS_RING_CMD, 16, 32, 4096);
	put_ring(nlh, RTHS_RING_FB, 32, 80, 8192);
	put_ring(nlh, RTHS_RING_TRACE, 0, 88, 0);
	mnl_attr_nest_end(nlh, n);
	put_u64_padded(nlh, RTHS_A_PAD, RTHS_A_DEV_MMAP_SIZE, 16384);
	mnl_attr_put_u32(nlh, RTHS_A_DEV_CHRDEV, dev);
	mnl_attr_put(nlh, RTHS_A_DEV_OWNED, 0, NULL);
	put_u64_padded(nlh, RTHS_A_PAD, RTHS_A_DEV_STEP, 1ULL << 40);
	put_u64_padded(nlh, RTHS_A_PAD, RTHS_A_DEV_TICK, (1ULL << 40) * 4);
	/* from a newer kernel: must be skipped, not refused */
	mnl_attr_put_u32(nlh, RTHS_A_MAX + 3, 1);
	return nlh;
}

TEST(dev_get_reply_decodes)
{
	char buf[4096];
	struct rths_dev_reply r;
	const struct rths_dev_info *i = &r.info;
	struct rths_card_params cp;
	struct nlmsghdr *nlh = build_dev_reply(buf);

	ASSERT_EQ(0, rths_dev_info_parse(nlh, &r));
	EXPECT_EQ(7U, i->id);
	EXPECT_STREQ("s0", i->name);
	EXPECT_STREQ("sim", i->card);
	EXPECT_EQ(2U, i->channels);
	EXPECT_EQ(RTHS_STATE_RUNNING, i->state);
	EXPECT_EQ(RTHS_REASON_USER, i->reason);
	EXPECT_EQ(0, (int)i->fault);
	EXPECT_EQ(RTHS_CLOCK_HRTIMER, i->clock);
	EXPECT_EQ(1024U, i->rate_hz);
	EXPECT_EQ(4U, i->step_ticks);
	EXPECT_EQ(RTHS_LATE_HOLD, i->late_policy);
	EXPECT_EQ(0x123U, i->chrdev_major);
	EXPECT_EQ(0x45678U, i->chrdev_minor);
	EXPECT_TRUE(i->owned);
	EXPECT_FALSE(i->io_may_sleep);
	EXPECT_EQ(1ULL << 40, i->step);
	EXPECT_EQ(1ULL << 42, i->tick);
	EXPECT_EQ(16384ULL, i->mmap_size);

	EXPECT_EQ(RTHS_SIM_LAG | RTHS_SIM_DELAY | RTHS_SIM_STIFFNESS |
		  RTHS_SIM_NOISE_FORCE, r.card.sim.set);
	EXPECT_EQ(0.005, r.card.sim.lag);
	EXPECT_EQ(3U, r.card.sim.delay_ticks);
	EXPECT_EQ(1e6, r.card.sim.stiffness);
	EXPECT_EQ(0.0025, r.card.sim.noise_force);
	rths_dev_reply_card(&r, &cp);
	EXPECT_STREQ("sim", cp.card);
	EXPECT_EQ((const void *)&r.card.sim, cp.params);
	EXPECT_EQ(sizeof(struct rths_sim_params), cp.size);

	EXPECT_EQ(0U, i->limits[0].set);
	EXPECT_EQ(RTHS_LIM_ALL, i->limits[1].set);
	EXPECT_EQ(-0.05, i->limits[1].pos_min);
	EXPECT_EQ(0.06, i->limits[1].pos_max);
	EXPECT_EQ(0.25, i->limits[1].vel_max);
	EXPECT_EQ(3000.0, i->limits[1].force_max);

	EXPECT_EQ(16U, i->cmd.entries);
	EXPECT_EQ(32U, i->cmd.entry_size);
	EXPECT_EQ(4096ULL, i->cmd.producer);
	EXPECT_EQ(4160ULL, i->cmd.consumer);
	EXPECT_EQ(4224ULL, i->cmd.desc);
	EXPECT_EQ(32U, i->fb.entries);
	EXPECT_EQ(8192ULL + 128, i->fb.desc);
	EXPECT_EQ(0U, i->trace.entries);
}

TEST(malformed_reply_is_refused)
{
	char buf[4096];
	struct rths_dev_reply r;
	struct nlmsghdr *nlh = build_dev_reply(buf);

	/* a u64 attribute that is 4 bytes long */
	mnl_attr_put_u32(nlh, RTHS_A_DEV_MMAP_SIZE, 1);
	EXPECT_EQ(-EPROTO, rths_dev_info_parse(nlh, &r));

	/* a name without its NUL */
	nlh = rths_msg_init(buf, sizeof(buf), FAMILY, RTHS_CMD_DEV_GET, 0);
	mnl_attr_put_u32(nlh, RTHS_A_DEV_ID, 1);
	mnl_attr_put(nlh, RTHS_A_DEV_NAME, 2, "s0");
	EXPECT_EQ(-EPROTO, rths_dev_info_parse(nlh, &r));

	/* no id at all */
	nlh = rths_msg_init(buf, sizeof(buf), FAMILY, RTHS_CMD_DEV_GET, 0);
	mnl_attr_put_strz(nlh, RTHS_A_DEV_NAME, "s0");
	EXPECT_EQ(-EPROTO, rths_dev_info_parse(nlh, &r));
}

static struct nlmsghdr *build_stats_reply(void *buf, size_t hist_len)
{
	struct nlmsghdr *nlh = rths_msg_init(buf, 4096, FAMILY,
					     RTHS_CMD_STATS_GET, 0);
	uint64_t hist[RTHS_LAT_HIST_BUCKETS + 1];
	struct nlattr *n;
	unsigned int i;

	for (i = 0; i <= RTHS_LAT_HIST_BUCKETS; i++)
		hist[i] = 1000 + i;
	mnl_attr_put_u32(nlh, RTHS_A_DEV_ID, 3);
	mnl_attr_put_strz(nlh, RTHS_A_DEV_NAME, "rig");
	n = kernel_nest(nlh, RTHS_A_STATS);
	/* every counter gets a distinct value: its attribute number */
	for (i = RTHS_STATS_A_PERIODS; i <= RTHS_STATS_A_MAX; i++) {
		if (i == RTHS_STATS_A_IRQ_LAT_HIST ||
		    i == RTHS_STATS_A_THREAD_LAT_HIST)
			mnl_attr_put(nlh, i, hist_len, hist);
		else if (i == RTHS_STATS_A_LAT_HIST_US)
			mnl_attr_put_u32(nlh, i, 2);
		else if (i == RTHS_STATS_A_IRQ_LAT_HIST_US ||
			 i == RTHS_STATS_A_THREAD_LAT_HIST_US)
			mnl_attr_put(nlh, i, 2 * sizeof(uint64_t), hist);
		else
			put_u64_padded(nlh, RTHS_STATS_A_PAD, i, i);
	}
	mnl_attr_nest_end(nlh, n);
	return nlh;
}

TEST(stats_reply_decodes)
{
	char buf[4096], name[RTHS_NAME_LEN];
	struct rths_stats st;
	uint32_t id;
	unsigned int i;

	ASSERT_EQ(0, rths_stats_parse(build_stats_reply(buf, sizeof(st.irq_lat_hist)),
				      &id, name, &st));
	EXPECT_EQ(3U, id);
	EXPECT_STREQ("rig", name);
	EXPECT_EQ((uint64_t)RTHS_STATS_A_PERIODS, st.periods);
	EXPECT_EQ((uint64_t)RTHS_STATS_A_TICKS, st.ticks);
	EXPECT_EQ((uint64_t)RTHS_STATS_A_MISSED, st.missed);
	EXPECT_EQ((uint64_t)RTHS_STATS_A_WAIT_TICKS, st.wait_ticks);
	EXPECT_EQ((uint64_t)RTHS_STATS_A_LATE_FAULTED, st.late_faulted);
	EXPECT_EQ((uint64_t)RTHS_STATS_A_EVENTS_DROPPED, st.events_dropped);
	EXPECT_EQ((uint64_t)RTHS_STATS_A_IRQ_LAT_MAX, st.irq_lat_max);
	EXPECT_EQ((uint64_t)RTHS_STATS_A_THREAD_LAT_MIN, st.thread_lat_min);
	EXPECT_EQ((uint64_t)RTHS_STATS_A_LAT_SAMPLES, st.lat_samples);
	for (i = 0; i < RTHS_LAT_HIST_BUCKETS; i++) {
		EXPECT_EQ(1000ULL + i, st.irq_lat_hist[i]);
		EXPECT_EQ(1000ULL + i, st.thread_lat_hist[i]);
	}
}

TEST(stats_histogram_of_the_wrong_size_is_refused)
{
	char buf[4096], name[RTHS_NAME_LEN];
	struct rths_stats st;
	uint32_t id;

	EXPECT_EQ(-EPROTO,
		  rths_stats_parse(build_stats_reply(buf, sizeof(st.irq_lat_hist) - 8),
				   &id, name, &st));
	EXPECT_EQ(-EPROTO,
		  rths_stats_parse(build_stats_reply(buf, sizeof(st.irq_lat_hist) + 8),
				   &id, name, &st));
}

TEST(event_decodes_in_si)
{
	char buf[1024];
	struct nlmsghdr *nlh = rths_msg_init(buf, sizeof(buf), FAMILY,
					     RTHS_CMD_EVENT, 0);
	struct rths_event ev;
	struct nlattr *n;

	mnl_attr_put_u32(nlh, RTHS_A_DEV_ID, 9);
	mnl_attr_put_strz(nlh, RTHS_A_DEV_NAME, "s1");
	n = kernel_nest(nlh, RTHS_A_EVENT);
	mnl_attr_put_u32(nlh, RTHS_EVENT_A_TYPE, RTHS_EVENT_LIMIT);
	put_u64_padded(nlh, RTHS_EVENT_A_PAD, RTHS_EVENT_A_TICK, 1234);
	mnl_attr_put_u32(nlh, RTHS_EVENT_A_CHANNEL, 1);
	mnl_attr_put_u32(nlh, RTHS_EVENT_A_LIMIT, RTHS_LIMIT_FORCE);
	put_u64_padded(nlh, RTHS_EVENT_A_PAD, RTHS_EVENT_A_VALUE,
		       (uint64_t)-2500000LL);
	mnl_attr_nest_end(nlh, n);
	ASSERT_EQ(0, rths_event_parse(nlh, &ev));
	EXPECT_EQ(RTHS_EVENT_LIMIT, ev.type);
	EXPECT_EQ(9U, ev.dev_id);
	EXPECT_STREQ("s1", ev.dev_name);
	EXPECT_EQ(1234ULL, ev.tick);
	EXPECT_EQ(0ULL, ev.step);
	EXPECT_EQ(1U, ev.channel);
	EXPECT_EQ(RTHS_LIMIT_FORCE, ev.limit);
	EXPECT_EQ(-2500000LL, ev.value_raw);
	EXPECT_EQ(-2.5, ev.value);
	EXPECT_EQ(0, (int)ev.state);

	/* not an event */
	((struct genlmsghdr *)mnl_nlmsg_get_payload(nlh))->cmd = RTHS_CMD_DEV_GET;
	EXPECT_EQ(-EPROTO, rths_event_parse(nlh, &ev));
}

TEST_HARNESS_MAIN
