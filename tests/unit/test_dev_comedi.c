// SPDX-License-Identifier: GPL-2.0
/*
 * The comedi card in librths and rthsctl, without a kernel: scales as the
 * kernel's fractions, the parameter nest of a request, a DEV_GET reply
 * decoded, errors inside the nest named by their path, and the
 * "dev add ... type comedi" / "dev set" command lines.
 */
#include <errno.h>
#include <linux/comedi.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "dev/internal.h"
#include "../../tools/rthsctl/rthsctl.h"

#define FAMILY 0x4242
#define ARGV(...) ((char *[]){ __VA_ARGS__, NULL })
#define ARGC(...) ((int)(sizeof((char *[]){ __VA_ARGS__ }) / sizeof(char *)))
#define ADD(a, e, ...) \
	rc_parse_dev_add(ARGC(__VA_ARGS__), ARGV(__VA_ARGS__), a, e)
#define SET(s, e, ...) \
	rc_parse_dev_set(ARGC(__VA_ARGS__), ARGV(__VA_ARGS__), s, e)

static bool starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/* ---- scales as fractions ------------------------------------------------- */

struct ratio_case {
	double x;
	int64_t num;
	uint32_t den;
};

TEST(ratio_is_exact_for_fractions_within_the_bounds)
{
	static const struct ratio_case cases[] = {
		{ 1, 1, 1 },
		{ 1000, 1000, 1 },
		{ 7629.39453125, 1953125, 256 },	/* 500 mm / 2^16 */
		{ 305.17578125, 78125, 256 },		/* 20 V / 2^16, um */
		{ -2.5, -5, 2 },
		{ 0x1p30, 1 << 30, 1 },
		{ -0x1p30, -(1 << 30), 1 },
		{ 0x1p-22, 1, 1 << 22 },
		{ 1.0 / 3, 1, 3 },
		{ 3.0 / 7, 3, 7 },
		{ 22.0 / 7, 22, 7 },
		{ 1073741823.0 / 4194301, 1073741823, 4194301 },
		{ 1073741823.0 / 4194303, 357913941, 1398101 },	/* 3/3 */
		{ 1e-6 * 1e9, 1000, 1 },	/* 1 um per count, as typed */
		{ 1e-3, 1, 1000 },
	};
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int64_t num = 0;
		uint32_t den = 0;

		ASSERT_EQ(0, rths_comedi_ratio(cases[i].x, &num, &den)) {
			TH_LOG("x = %.17g", cases[i].x);
		}
		EXPECT_EQ(cases[i].num, num) TH_LOG("x = %.17g", cases[i].x);
		EXPECT_EQ(cases[i].den, den) TH_LOG("x = %.17g", cases[i].x);
	}
}

TEST(ratio_refuses_what_the_kernel_cannot_hold)
{
	const double bad[] = { 0, -0.0, NAN, INFINITY, -INFINITY, 0x1p30 * 1.01,
			       0x1p31, 1e300, 0x1p-24, 1e-300, 0x1p-23 };
	int64_t num = 7;
	uint32_t den = 7;
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int ret = rths_comedi_ratio(bad[i], &num, &den);

		EXPECT_EQ(-ERANGE, ret) TH_LOG("x = %g", bad[i]);
	}
	EXPECT_EQ(7, num);
	EXPECT_EQ(7u, den);
	/* just above half the smallest step rounds up to it */
	ASSERT_EQ(0, rths_comedi_ratio(0x1.8p-23, &num, &den));
	EXPECT_EQ(1, num);
	EXPECT_EQ(1u << 22, den);
}

static uint64_t lcg(uint64_t *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return *s >> 11;
}

/* Within the bounds, and no fraction within them is closer (brute force
 * over every denominator). */
TEST(ratio_is_the_nearest_fraction)
{
	const double P = RTHS_COMEDI_NUM_MAX, Q = RTHS_COMEDI_DEN_MAX;
	uint64_t seed = 2024;
	int n;

	for (n = 0; n < 12; n++) {
		/* log-uniform over 2^-22 .. 2^30 */
		double x = exp2(-22 + 52.0 * (double)lcg(&seed) / 0x1p53);
		double best = INFINITY, err;
		int64_t num;
		uint32_t den, q;

		ASSERT_EQ(0, rths_comedi_ratio(x, &num, &den));
		ASSERT_GE(num, 1);
		ASSERT_LE(num, RTHS_COMEDI_NUM_MAX);
		ASSERT_GE(den, 1u);
		ASSERT_LE(den, RTHS_COMEDI_DEN_MAX);
		err = fabs((double)num / den - x);
		EXPECT_LT(err / x, 0x1p-22) TH_LOG("x = %.17g", x);
		if (x >= 256)
			EXPECT_LT(err / x, 0x1p-30) TH_LOG("x = %.17g", x);
		for (q = 1; q <= Q; q++) {
			double p = nearbyint(x * q);

			if (p > P)
				p = P;
			if (p < 1)
				p = 1;
			if (fabs(p / q - x) < best)
				best = fabs(p / q - x);
			if (p == P)
				break;	/* larger q only get further */
		}
		EXPECT_LE(err, best * (1 + 1e-9)) {
			TH_LOG("x = %.17g: %lld/%u off by %g, best %g", x,
			       (long long)num, den, err, best);
		}
	}
}

/* ---- requests ------------------------------------------------------------ */

struct parsed {
	const struct nlattr *top[RTHS_A_MAX + 1];
	const struct nlattr *params[RTHS_COMEDI_A_MAX + 1];
	const struct nlattr *ch[RTHS_MAX_CHANNELS][RTHS_COMEDI_CH_A_MAX + 1];
	const struct nlattr *chan_nest[RTHS_MAX_CHANNELS];
	unsigned int chans;
};

/* Index a request the way the kernel would see it. */
static int parse_request(const struct nlmsghdr *nlh, struct parsed *p)
{
	const struct nlattr *a;

	memset(p, 0, sizeof(*p));
	if (rths_attr_parse_msg(nlh, &rths_space_dev, p->top) ||
	    !p->top[RTHS_A_DEV_CARD_PARAMS] ||
	    rths_attr_parse_nest(p->top[RTHS_A_DEV_CARD_PARAMS],
				 &rths_space_comedi, p->params))
		return -EPROTO;
	if (!p->params[RTHS_COMEDI_A_CHANNELS])
		return 0;
	mnl_attr_for_each_nested(a, p->params[RTHS_COMEDI_A_CHANNELS]) {
		const struct nlattr *tb[RTHS_COMEDI_CH_A_MAX + 1] = { NULL };
		uint32_t i;

		if (mnl_attr_get_type(a) != RTHS_COMEDI_A_CHANNEL ||
		    rths_attr_parse_nest(a, &rths_space_comedi_chan, tb) ||
		    !tb[RTHS_COMEDI_CH_A_INDEX])
			return -EPROTO;
		i = mnl_attr_get_u32(tb[RTHS_COMEDI_CH_A_INDEX]);
		if (i >= RTHS_MAX_CHANNELS || p->chan_nest[i])
			return -EPROTO;
		memcpy(p->ch[i], tb, sizeof(tb));
		p->chan_nest[i] = a;
		p->chans++;
	}
	return 0;
}

static uint32_t u32_of(const struct nlattr *a)
{
	return a ? mnl_attr_get_u32(a) : 0xdeadbeef;
}

static int64_t s64_of(const struct nlattr *a)
{
	return a ? (int64_t)mnl_attr_get_u64(a) : INT64_MIN;
}

static void example_params(struct rths_comedi_params *p)
{
	memset(p, 0, sizeof(*p));
	p->set = RTHS_COMEDI_MINOR | RTHS_COMEDI_AI_SUBDEV;
	p->minor = 3;
	p->ai_subdev = 2;
	p->chan[0] = (struct rths_comedi_chan){
		.set = RTHS_COMEDI_CH_AO_CHAN | RTHS_COMEDI_CH_DISP_CHAN |
		       RTHS_COMEDI_CH_DISP_RANGE | RTHS_COMEDI_CH_FORCE_CHAN |
		       RTHS_COMEDI_CH_SCALE_DISP | RTHS_COMEDI_CH_OFFSET_DISP |
		       RTHS_COMEDI_CH_SCALE_FORCE,
		.ao_chan = 4, .disp_chan = 5, .disp_range = 1, .force_chan = 6,
		.disp = { .scale = 7.62939453125e-6, .offset = -12 },
		.force = { .scale = 0.25 },
	};
	p->chan[2] = (struct rths_comedi_chan){
		.set = RTHS_COMEDI_CH_FORCE_CHAN | RTHS_COMEDI_CH_AREF |
		       RTHS_COMEDI_CH_SCALE_AO | RTHS_COMEDI_CH_OFFSET_AO |
		       RTHS_COMEDI_CH_SCALE_DISP,
		.force_chan = -1, .aref = 2,
		.ao = { .scale = 2e-6, .offset = 2048 },
		.disp = { .scale = 1e-9 },
	};
}

static struct nlmsghdr *build_new(void *buf, size_t size,
				  const struct rths_comedi_params *p,
				  struct rths_msgbuf *mb, struct rths_err *err,
				  int *ret)
{
	*mb = (struct rths_msgbuf){ .size = size, .err = err };
	rths_err_clear(err);
	mb->nlh = rths_msg_init(buf, size, FAMILY, RTHS_CMD_DEV_NEW, 0);
	*ret = rths_put_name(mb, RTHS_A_DEV_NAME, "name", "c0");
	if (!*ret)
		*ret = rths_put_name(mb, RTHS_A_DEV_CARD, "card", "comedi");
	if (!*ret)
		*ret = rths_put_comedi(mb, p);
	mb->nlh->nlmsg_seq = 9;
	return mb->nlh;
}

TEST(request_carries_the_parameters_given)
{
	char buf[RTHS_REQ_SIZE];
	struct rths_comedi_params p;
	struct rths_msgbuf mb;
	struct rths_err err;
	struct nlmsghdr *nlh;
	struct parsed *r = calloc(1, sizeof(*r));
	int ret;

	ASSERT_NE(NULL, r);
	example_params(&p);
	nlh = build_new(buf, sizeof(buf), &p, &mb, &err, &ret);
	ASSERT_EQ(0, ret) TH_LOG("%s", err.msg);
	EXPECT_EQ(&rths_space_comedi, mb.params);
	ASSERT_EQ(0, parse_request(nlh, r));
	EXPECT_TRUE(r->top[RTHS_A_DEV_CARD_PARAMS]->nla_type & NLA_F_NESTED);
	EXPECT_TRUE(r->params[RTHS_COMEDI_A_CHANNELS]->nla_type & NLA_F_NESTED);
	EXPECT_EQ(3u, u32_of(r->params[RTHS_COMEDI_A_MINOR]));
	EXPECT_EQ(NULL, r->params[RTHS_COMEDI_A_AO_SUBDEV]);
	EXPECT_EQ(2u, u32_of(r->params[RTHS_COMEDI_A_AI_SUBDEV]));
	EXPECT_EQ(2u, r->chans);

	/* channel 0: the AO follows the displacement's calibration */
	EXPECT_EQ(4u, u32_of(r->ch[0][RTHS_COMEDI_CH_A_AO_CHAN]));
	EXPECT_EQ(NULL, r->ch[0][RTHS_COMEDI_CH_A_AO_RANGE]);
	EXPECT_EQ(5u, u32_of(r->ch[0][RTHS_COMEDI_CH_A_DISP_CHAN]));
	EXPECT_EQ(1u, u32_of(r->ch[0][RTHS_COMEDI_CH_A_DISP_RANGE]));
	EXPECT_EQ(6u, u32_of(r->ch[0][RTHS_COMEDI_CH_A_FORCE_CHAN]));
	EXPECT_EQ(NULL, r->ch[0][RTHS_COMEDI_CH_A_FORCE_NONE]);
	EXPECT_EQ(NULL, r->ch[0][RTHS_COMEDI_CH_A_AREF]);
	EXPECT_EQ(1953125, s64_of(r->ch[0][RTHS_COMEDI_CH_A_DISP_NUM]));
	EXPECT_EQ(256u, u32_of(r->ch[0][RTHS_COMEDI_CH_A_DISP_DEN]));
	EXPECT_EQ(-12, s64_of(r->ch[0][RTHS_COMEDI_CH_A_DISP_OFFSET]));
	EXPECT_EQ(1953125, s64_of(r->ch[0][RTHS_COMEDI_CH_A_AO_NUM]));
	EXPECT_EQ(256u, u32_of(r->ch[0][RTHS_COMEDI_CH_A_AO_DEN]));
	EXPECT_EQ(-12, s64_of(r->ch[0][RTHS_COMEDI_CH_A_AO_OFFSET]));
	EXPECT_EQ(250000, s64_of(r->ch[0][RTHS_COMEDI_CH_A_FORCE_NUM]));
	EXPECT_EQ(1u, u32_of(r->ch[0][RTHS_COMEDI_CH_A_FORCE_DEN]));
	EXPECT_EQ(NULL, r->ch[0][RTHS_COMEDI_CH_A_FORCE_OFFSET]);

	/* channel 2: no force input, an AO calibration of its own */
	EXPECT_EQ(NULL, r->ch[2][RTHS_COMEDI_CH_A_FORCE_CHAN]);
	EXPECT_NE(NULL, r->ch[2][RTHS_COMEDI_CH_A_FORCE_NONE]);
	EXPECT_EQ(0, mnl_attr_get_payload_len(r->ch[2][RTHS_COMEDI_CH_A_FORCE_NONE]));
	EXPECT_EQ(2u, u32_of(r->ch[2][RTHS_COMEDI_CH_A_AREF]));
	EXPECT_EQ(2000, s64_of(r->ch[2][RTHS_COMEDI_CH_A_AO_NUM]));
	EXPECT_EQ(1u, u32_of(r->ch[2][RTHS_COMEDI_CH_A_AO_DEN]));
	EXPECT_EQ(2048, s64_of(r->ch[2][RTHS_COMEDI_CH_A_AO_OFFSET]));
	EXPECT_EQ(1, s64_of(r->ch[2][RTHS_COMEDI_CH_A_DISP_NUM]));
	EXPECT_EQ(NULL, r->ch[2][RTHS_COMEDI_CH_A_DISP_OFFSET]);
	EXPECT_EQ(NULL, r->ch[2][RTHS_COMEDI_CH_A_AO_CHAN]);
	free(r);
}

TEST(channels_without_settings_are_not_sent)
{
	char buf[RTHS_REQ_SIZE];
	struct rths_comedi_params p = { .set = RTHS_COMEDI_MINOR };
	struct rths_msgbuf mb;
	struct rths_err err;
	struct nlmsghdr *nlh;
	struct parsed *r = calloc(1, sizeof(*r));
	int ret;

	ASSERT_NE(NULL, r);
	nlh = build_new(buf, sizeof(buf), &p, &mb, &err, &ret);
	ASSERT_EQ(0, ret);
	ASSERT_EQ(0, parse_request(nlh, r));
	EXPECT_EQ(0u, u32_of(r->params[RTHS_COMEDI_A_MINOR]));
	EXPECT_EQ(NULL, r->params[RTHS_COMEDI_A_CHANNELS]);
	free(r);
}

TEST(scales_that_do_not_convert_are_named_before_sending)
{
	char buf[RTHS_REQ_SIZE];
	struct rths_comedi_params p;
	struct rths_msgbuf mb;
	struct rths_err err;
	int ret;

	example_params(&p);
	p.chan[2].disp.scale = 0;
	build_new(buf, sizeof(buf), &p, &mb, &err, &ret);
	EXPECT_EQ(-ERANGE, ret);
	EXPECT_TRUE(starts(err.msg, "channel 2 scale-disp: 0 is out of range (magnitude"))
		TH_LOG("%s", err.msg);
	EXPECT_EQ(RTHS_COMEDI_CH_A_DISP_NUM, err.attr);

	example_params(&p);
	p.chan[0].force.scale = NAN;
	build_new(buf, sizeof(buf), &p, &mb, &err, &ret);
	EXPECT_EQ(-ERANGE, ret);
	EXPECT_TRUE(starts(err.msg, "channel 0 scale-force: nan is out of range"))
		TH_LOG("%s", err.msg);
	EXPECT_EQ(RTHS_COMEDI_CH_A_FORCE_NUM, err.attr);

	/* 2 m per count is more than 2^30 nm */
	example_params(&p);
	p.chan[2].ao.scale = 2;
	build_new(buf, sizeof(buf), &p, &mb, &err, &ret);
	EXPECT_EQ(-ERANGE, ret);
	EXPECT_TRUE(starts(err.msg, "channel 2 scale-ao: 2 is out of range"));
	EXPECT_EQ(RTHS_COMEDI_CH_A_AO_NUM, err.attr);
}

TEST(card_params_name_their_card)
{
	char buf[RTHS_REQ_SIZE];
	struct rths_err err;
	struct rths_msgbuf mb = { .size = sizeof(buf), .err = &err };
	struct rths_comedi_params p = {
		.set = RTHS_COMEDI_AO_SUBDEV, .ao_subdev = 1,
	};
	struct rths_sim_params sim = { .set = RTHS_SIM_SEED, .seed = 1 };

	/* a device has one card: its parameters must be that card's */
	rths_err_clear(&err);
	mb.nlh = rths_msg_init(buf, sizeof(buf), FAMILY, RTHS_CMD_DEV_NEW, 0);
	EXPECT_EQ(-EINVAL, rths_put_card(&mb, "sim", RTHS_COMEDI_PARAMS(&p)));
	EXPECT_STREQ("card sim: parameters for card comedi given", err.msg);
	EXPECT_EQ(NULL, mb.params);
	EXPECT_EQ(-EINVAL, rths_put_card(&mb, "comedi", RTHS_SIM_PARAMS(&sim)));
	EXPECT_STREQ("card comedi: parameters for card sim given", err.msg);

	mb.nlh = rths_msg_init(buf, sizeof(buf), FAMILY, RTHS_CMD_DEV_SET, 0);
	EXPECT_EQ(0, rths_put_card(&mb, NULL, RTHS_COMEDI_PARAMS(&p)));
	EXPECT_EQ(&rths_space_comedi, mb.params);
}

/* ---- error acks name attributes inside the comedi nest ----------------- */

/* An error ack pointing at byte @off of @req, as netlink_ack() lays it. */
static struct nlmsghdr *ack_at(void *buf, const struct nlmsghdr *req,
			       uint32_t off, const char *msg)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct nlmsgerr *e;

	nlh->nlmsg_type = NLMSG_ERROR;
	nlh->nlmsg_flags = NLM_F_CAPPED | NLM_F_ACK_TLVS;
	nlh->nlmsg_seq = req->nlmsg_seq;
	e = mnl_nlmsg_put_extra_header(nlh, sizeof(*e));
	e->error = -EINVAL;
	e->msg = *req;
	mnl_attr_put_strz(nlh, NLMSGERR_ATTR_MSG, msg);
	mnl_attr_put_u32(nlh, NLMSGERR_ATTR_OFFS, off);
	return nlh;
}

TEST(errors_name_the_comedi_attribute)
{
	char buf[RTHS_REQ_SIZE], ack[RTHS_REQ_SIZE];
	struct rths_comedi_params p;
	struct rths_msgbuf mb;
	struct rths_err err;
	struct nlmsghdr *nlh;
	struct parsed *r = calloc(1, sizeof(*r));
	uint32_t off;
	int ret;

	ASSERT_NE(NULL, r);
	example_params(&p);
	nlh = build_new(buf, sizeof(buf), &p, &mb, &err, &ret);
	ASSERT_EQ(0, ret);
	ASSERT_EQ(0, parse_request(nlh, r));

	off = (uint32_t)((const char *)r->ch[0][RTHS_COMEDI_CH_A_AO_CHAN] -
			 (const char *)nlh);
	EXPECT_EQ(-EINVAL, rths_ack_decode_params(nlh, ack_at(ack, nlh, off,
			  "AO channel beyond the AO subdevice's channels"),
			  mb.params, &err));
	EXPECT_STREQ("card-params.channels.channel[0].ao-chan: AO channel beyond the AO subdevice's channels",
		     err.msg);
	EXPECT_EQ(RTHS_COMEDI_CH_A_AO_CHAN, err.attr);

	off = (uint32_t)((const char *)r->ch[2][RTHS_COMEDI_CH_A_AREF] -
			 (const char *)nlh);
	EXPECT_EQ(-EINVAL, rths_ack_decode_params(nlh, ack_at(ack, nlh, off,
			  "no"), mb.params, &err));
	EXPECT_STREQ("card-params.channels.channel[2].aref: no", err.msg);

	off = (uint32_t)((const char *)r->params[RTHS_COMEDI_A_MINOR] -
			 (const char *)nlh);
	EXPECT_EQ(-EINVAL, rths_ack_decode_params(nlh, ack_at(ack, nlh, off,
			  "no such comedi device"), mb.params, &err));
	EXPECT_STREQ("card-params.minor: no such comedi device", err.msg);

	/* the channel nest itself */
	off = (uint32_t)((const char *)r->chan_nest[2] - (const char *)nlh);
	EXPECT_EQ(-EINVAL, rths_ack_decode_params(nlh, ack_at(ack, nlh, off,
			  "x"), mb.params, &err));
	EXPECT_STREQ("card-params.channels.channel[2]: x", err.msg);
	EXPECT_EQ(RTHS_COMEDI_A_CHANNEL, err.attr);

	/* without the hint, the nest reads as sim's: the name is wrong */
	off = (uint32_t)((const char *)r->params[RTHS_COMEDI_A_MINOR] -
			 (const char *)nlh);
	rths_ack_decode(nlh, ack_at(ack, nlh, off, "x"), &err);
	EXPECT_STREQ("card-params.lag: x", err.msg);
	free(r);
}

/* ---- DEV_GET replies ----------------------------------------------------- */

static void put_cal(struct nlmsghdr *nlh, uint16_t num, int64_t n,
		    uint16_t den, uint32_t d, uint16_t off, int64_t o)
{
	mnl_attr_put_u64(nlh, num, (uint64_t)n);
	mnl_attr_put_u32(nlh, den, d);
	mnl_attr_put_u64(nlh, off, (uint64_t)o);
}

/* A DEV_GET reply of a two-channel comedi device, as the kernel fills it. */
static struct nlmsghdr *build_reply(void *buf, const char *card)
{
	struct nlmsghdr *nlh = rths_msg_init(buf, RTHS_REQ_SIZE, FAMILY,
					     RTHS_CMD_DEV_GET, 0);
	struct nlattr *params, *chans, *ch;

	mnl_attr_put_u32(nlh, RTHS_A_DEV_ID, 5);
	mnl_attr_put_strz(nlh, RTHS_A_DEV_NAME, "c0");
	mnl_attr_put_strz(nlh, RTHS_A_DEV_CARD, card);
	mnl_attr_put_u32(nlh, RTHS_A_DEV_CHANNELS, 2);
	params = mnl_attr_nest_start(nlh, RTHS_A_DEV_CARD_PARAMS);
	mnl_attr_put_u32(nlh, RTHS_COMEDI_A_MINOR, 1);
	mnl_attr_put_u32(nlh, RTHS_COMEDI_A_AO_SUBDEV, 1);
	mnl_attr_put_u32(nlh, RTHS_COMEDI_A_AI_SUBDEV, 0);
	mnl_attr_put_strz(nlh, RTHS_COMEDI_A_BOARD, "a board whose name is longer than thirty-one characters");
	mnl_attr_put_strz(nlh, RTHS_COMEDI_A_DRIVER, "comedi_test");
	chans = mnl_attr_nest_start(nlh, RTHS_COMEDI_A_CHANNELS);

	/* channel 0: AO calibration left out, no force */
	ch = mnl_attr_nest_start(nlh, RTHS_COMEDI_A_CHANNEL);
	mnl_attr_put_u32(nlh, RTHS_COMEDI_CH_A_INDEX, 0);
	mnl_attr_put_u32(nlh, RTHS_COMEDI_CH_A_AO_CHAN, 3);
	mnl_attr_put_u32(nlh, RTHS_COMEDI_CH_A_AO_RANGE, 1);
	mnl_attr_put_u32(nlh, RTHS_COMEDI_CH_A_DISP_CHAN, 4);
	mnl_attr_put_u32(nlh, RTHS_COMEDI_CH_A_DISP_RANGE, 0);
	mnl_attr_put_u32(nlh, RTHS_COMEDI_CH_A_AREF, 0);
	put_cal(nlh, RTHS_COMEDI_CH_A_DISP_NUM, -1953125,
		RTHS_COMEDI_CH_A_DISP_DEN, 256, RTHS_COMEDI_CH_A_DISP_OFFSET,
		32768);
	mnl_attr_put_u32(nlh, RTHS_COMEDI_CH_A_AO_MAXDATA, 4095);
	mnl_attr_put_u32(nlh, RTHS_COMEDI_CH_A_DISP_MAXDATA, 65535);
	mnl_attr_put_u64(nlh, RTHS_COMEDI_CH_A_CLAMPS, 17);
	mnl_attr_nest_end(nlh, ch);

	/* channel 1: everything */
	ch = mnl_attr_nest_start(nlh, RTHS_COMEDI_A_CHANNEL);
	mnl_attr_put_u32(nlh, RTHS_COMEDI_CH_A_INDEX, 1);
	mnl_attr_put_u32(nlh, RTHS_COMEDI_CH_A_AO_CHAN, 0);
	mnl_attr_put_u32(nlh, RTHS_COMEDI_CH_A_AO_RANGE, 0);
	mnl_attr_put_u32(nlh, RTHS_COMEDI_CH_A_DISP_CHAN, 1);
	mnl_attr_put_u32(nlh, RTHS_COMEDI_CH_A_DISP_RANGE, 1);
	mnl_attr_put_u32(nlh, RTHS_COMEDI_CH_A_AREF, 2);
	put_cal(nlh, RTHS_COMEDI_CH_A_DISP_NUM, 1, RTHS_COMEDI_CH_A_DISP_DEN,
		1, RTHS_COMEDI_CH_A_DISP_OFFSET, 0);
	put_cal(nlh, RTHS_COMEDI_CH_A_AO_NUM, 3, RTHS_COMEDI_CH_A_AO_DEN, 7,
		RTHS_COMEDI_CH_A_AO_OFFSET, -5);
	mnl_attr_put_u32(nlh, RTHS_COMEDI_CH_A_FORCE_CHAN, 2);
	mnl_attr_put_u32(nlh, RTHS_COMEDI_CH_A_FORCE_RANGE, 1);
	put_cal(nlh, RTHS_COMEDI_CH_A_FORCE_NUM, 500000,
		RTHS_COMEDI_CH_A_FORCE_DEN, 1, RTHS_COMEDI_CH_A_FORCE_OFFSET,
		100);
	mnl_attr_put_u32(nlh, RTHS_COMEDI_CH_A_FORCE_MAXDATA, 1023);
	mnl_attr_put_u32(nlh, RTHS_COMEDI_CH_A_AO_MAXDATA, 65535);
	mnl_attr_put_u32(nlh, RTHS_COMEDI_CH_A_DISP_MAXDATA, 65535);
	mnl_attr_put_u64(nlh, RTHS_COMEDI_CH_A_CLAMPS, 0);
	mnl_attr_put_u32(nlh, 200, 1);		/* a newer kernel's */
	mnl_attr_nest_end(nlh, ch);

	mnl_attr_nest_end(nlh, chans);
	mnl_attr_nest_end(nlh, params);
	return nlh;
}

TEST(dev_get_reply_decodes_the_comedi_parameters)
{
	char buf[RTHS_REQ_SIZE];
	struct rths_dev_reply *r = calloc(1, sizeof(*r));
	const struct rths_comedi_chan *c;

	ASSERT_NE(NULL, r);
	ASSERT_EQ(0, rths_dev_info_parse(build_reply(buf, "comedi"), r));
	EXPECT_STREQ("comedi", r->info.card);
	EXPECT_EQ(RTHS_COMEDI_MINOR | RTHS_COMEDI_AO_SUBDEV |
		  RTHS_COMEDI_AI_SUBDEV, r->card.comedi.set);
	EXPECT_EQ(1u, r->card.comedi.minor);
	EXPECT_EQ(1u, r->card.comedi.ao_subdev);
	EXPECT_EQ(0u, r->card.comedi.ai_subdev);
	EXPECT_STREQ("a board whose name is longer th", r->card.comedi.board);
	EXPECT_STREQ("comedi_test", r->card.comedi.driver);

	c = &r->card.comedi.chan[0];
	EXPECT_EQ(3u, c->ao_chan);
	EXPECT_EQ(1u, c->ao_range);
	EXPECT_EQ(4u, c->disp_chan);
	EXPECT_EQ(-1, c->force_chan);
	EXPECT_TRUE(c->set & RTHS_COMEDI_CH_FORCE_CHAN);
	EXPECT_FALSE(c->set & RTHS_COMEDI_CH_SCALE_FORCE);
	EXPECT_EQ(-1953125, c->disp.num);
	EXPECT_EQ(256u, c->disp.den);
	EXPECT_EQ(32768, c->disp.offset);
	EXPECT_EQ(-7.62939453125e-6, c->disp.scale);
	/* left out: the displacement's */
	EXPECT_EQ(-1953125, c->ao.num);
	EXPECT_EQ(256u, c->ao.den);
	EXPECT_EQ(32768, c->ao.offset);
	EXPECT_TRUE(c->set & RTHS_COMEDI_CH_SCALE_AO);
	EXPECT_EQ(4095u, c->ao_maxdata);
	EXPECT_EQ(65535u, c->disp_maxdata);
	EXPECT_EQ(17u, c->clamps);

	c = &r->card.comedi.chan[1];
	EXPECT_EQ(2u, c->aref);
	EXPECT_EQ(3, c->ao.num);
	EXPECT_EQ(7u, c->ao.den);
	EXPECT_EQ(-5, c->ao.offset);
	EXPECT_LT(fabs(c->ao.scale - 3e-9 / 7), 1e-24);
	EXPECT_EQ(2, c->force_chan);
	EXPECT_EQ(1u, c->force_range);
	EXPECT_EQ(0.5, c->force.scale);
	EXPECT_EQ(100, c->force.offset);
	EXPECT_EQ(1023u, c->force_maxdata);
	EXPECT_EQ(0u, r->card.comedi.chan[2].set);

	/* another card's nest is not read as comedi's */
	ASSERT_EQ(0, rths_dev_info_parse(build_reply(buf, "daq"), r));
	EXPECT_EQ(0u, r->card.comedi.set);
	EXPECT_EQ(0u, r->card.comedi.chan[0].set);
	free(r);
}

TEST(malformed_replies_are_refused)
{
	char buf[RTHS_REQ_SIZE];
	struct rths_dev_reply *r = calloc(1, sizeof(*r));
	struct nlmsghdr *nlh = rths_msg_init(buf, sizeof(buf), FAMILY,
					     RTHS_CMD_DEV_GET, 0);
	struct nlattr *params, *chans, *ch;

	ASSERT_NE(NULL, r);
	mnl_attr_put_u32(nlh, RTHS_A_DEV_ID, 5);
	mnl_attr_put_strz(nlh, RTHS_A_DEV_NAME, "c0");
	mnl_attr_put_strz(nlh, RTHS_A_DEV_CARD, "comedi");
	params = mnl_attr_nest_start(nlh, RTHS_A_DEV_CARD_PARAMS);
	chans = mnl_attr_nest_start(nlh, RTHS_COMEDI_A_CHANNELS);
	ch = mnl_attr_nest_start(nlh, RTHS_COMEDI_A_CHANNEL);
	mnl_attr_put_u32(nlh, RTHS_COMEDI_CH_A_INDEX, 0);
	/* a zero denominator */
	put_cal(nlh, RTHS_COMEDI_CH_A_DISP_NUM, 1, RTHS_COMEDI_CH_A_DISP_DEN,
		0, RTHS_COMEDI_CH_A_DISP_OFFSET, 0);
	mnl_attr_nest_end(nlh, ch);
	mnl_attr_nest_end(nlh, chans);
	mnl_attr_nest_end(nlh, params);
	EXPECT_EQ(-EPROTO, rths_dev_info_parse(nlh, r));

	/* a u64 where a u32 belongs */
	nlh = rths_msg_init(buf, sizeof(buf), FAMILY, RTHS_CMD_DEV_GET, 0);
	mnl_attr_put_u32(nlh, RTHS_A_DEV_ID, 5);
	mnl_attr_put_strz(nlh, RTHS_A_DEV_NAME, "c0");
	mnl_attr_put_strz(nlh, RTHS_A_DEV_CARD, "comedi");
	params = mnl_attr_nest_start(nlh, RTHS_A_DEV_CARD_PARAMS);
	mnl_attr_put_u64(nlh, RTHS_COMEDI_A_MINOR, 1);
	mnl_attr_nest_end(nlh, params);
	EXPECT_EQ(-EPROTO, rths_dev_info_parse(nlh, r));
	free(r);
}

/* ---- rthsctl --------------------------------------------------------------- */

TEST(dev_add_comedi)
{
	struct rc_dev_add a;
	struct rc_err e;
	const struct rths_comedi_chan *c;

	ASSERT_EQ(0, ADD(&a, &e, "c0", "type", "comedi", "channels", "3",
			 "device", "/dev/comedi2", "ai-subdev", "4",
			 "channel", "0", "ao", "1", "range", "1", "disp", "2",
			 "force", "3", "range", "0", "scale-disp", "7.62939453125um",
			 "offset-disp", "-40", "scale-force", "2.5N/count",
			 "channel", "2", "force", "none", "aref", "diff",
			 "scale-ao", "1nm", "offset-ao", "+2048")) {
		TH_LOG("%s", e.msg);
	}
	EXPECT_STREQ("comedi", a.card);
	EXPECT_EQ(3u, a.channels);
	EXPECT_EQ(RTHS_COMEDI_MINOR | RTHS_COMEDI_AI_SUBDEV, a.comedi.set);
	EXPECT_EQ(2u, a.comedi.minor);
	EXPECT_EQ(4u, a.comedi.ai_subdev);
	c = &a.comedi.chan[0];
	EXPECT_EQ(RTHS_COMEDI_CH_AO_CHAN | RTHS_COMEDI_CH_AO_RANGE |
		  RTHS_COMEDI_CH_DISP_CHAN | RTHS_COMEDI_CH_FORCE_CHAN |
		  RTHS_COMEDI_CH_FORCE_RANGE | RTHS_COMEDI_CH_SCALE_DISP |
		  RTHS_COMEDI_CH_OFFSET_DISP | RTHS_COMEDI_CH_SCALE_FORCE,
		  c->set);
	EXPECT_EQ(1u, c->ao_chan);
	EXPECT_EQ(1u, c->ao_range);
	EXPECT_EQ(2u, c->disp_chan);
	EXPECT_EQ(3, c->force_chan);
	EXPECT_EQ(0u, c->force_range);
	EXPECT_EQ(7.62939453125 * 1e-6, c->disp.scale);
	EXPECT_EQ(-40, c->disp.offset);
	EXPECT_EQ(2.5, c->force.scale);
	EXPECT_EQ(0u, a.comedi.chan[1].set);
	c = &a.comedi.chan[2];
	EXPECT_EQ(RTHS_COMEDI_CH_FORCE_CHAN | RTHS_COMEDI_CH_AREF |
		  RTHS_COMEDI_CH_SCALE_AO | RTHS_COMEDI_CH_OFFSET_AO, c->set);
	EXPECT_EQ(-1, c->force_chan);
	EXPECT_EQ(2u, c->aref);
	EXPECT_EQ(1e-9, c->ao.scale);
	EXPECT_EQ(2048, c->ao.offset);
	EXPECT_EQ(0u, a.sim.set);

	/* the device alone; channels keep the kernel's defaults */
	ASSERT_EQ(0, ADD(&a, &e, "c0", "device", "/dev/comedi0", "type",
			 "comedi", "channels", "1"));
	EXPECT_EQ(RTHS_COMEDI_MINOR, a.comedi.set);
	EXPECT_EQ(0u, a.comedi.minor);
	EXPECT_EQ(0u, a.comedi.chan[0].set);
}

struct bad_line {
	const char *msg;	/* prefix of the message */
	char *argv[24];
};

TEST(dev_add_comedi_errors_say_what)
{
	static const struct bad_line lines[] = {
		{ "dev add c0: card comedi needs \"device /dev/comediN\"",
		  { "c0", "type", "comedi", "channels", "1" } },
		{ "dev add c0: comedi parameters, but the card is sim",
		  { "c0", "type", "sim", "channels", "1", "device",
		    "/dev/comedi0" } },
		{ "dev add c0: sim parameters (lag, delay, stiffness, ...), but the card is comedi",
		  { "c0", "type", "comedi", "channels", "1", "device",
		    "/dev/comedi0", "lag", "0.004" } },
		{ "ao: give \"channel I\" first",
		  { "c0", "type", "comedi", "channels", "1", "device",
		    "/dev/comedi0", "ao", "1" } },
		{ "channel 0 range: give ao, disp or force first",
		  { "c0", "channel", "0", "range", "1" } },
		{ "channel 0 force range: no force channel",
		  { "c0", "channel", "0", "force", "none", "range", "1" } },
		{ "channel: 16 does not exist (0 to 15)",
		  { "c0", "channel", "16" } },
		{ "channel 1 given twice",
		  { "c0", "channel", "1", "ao", "0", "channel", "1" } },
		{ "channel 1 ao given twice",
		  { "c0", "channel", "1", "ao", "0", "ao", "1" } },
		{ "channel 1 disp range given twice",
		  { "c0", "channel", "1", "disp", "0", "range", "0", "range",
		    "1" } },
		{ "channel 0: give ao, disp, force, aref, scale-* or offset-*",
		  { "c0", "channel", "0", "channel", "1", "ao", "1" } },
		{ "channel 3: give ao, disp, force, aref, scale-* or offset-*",
		  { "c0", "type", "comedi", "channel", "3" } },
		{ "channel 0: give ao, disp, force, aref, scale-* or offset-*",
		  { "c0", "channel", "0", "device", "/dev/comedi0" } },
		{ "device: \"comedi0\" is not /dev/comediN",
		  { "c0", "device", "comedi0" } },
		{ "device: \"x\" is not a non-negative integer",
		  { "c0", "device", "/dev/comedix" } },
		{ "device given twice",
		  { "c0", "device", "/dev/comedi0", "device", "/dev/comedi1" } },
		{ "unknown channel 0 aref \"floating\"; valid: ground common diff other",
		  { "c0", "channel", "0", "aref", "floating" } },
		{ "channel 0 offset-disp: \"1.5\" is not an integer",
		  { "c0", "channel", "0", "offset-disp", "1.5" } },
		{ "channel 0 offset-disp: \"--1\" is not an integer",
		  { "c0", "channel", "0", "offset-disp", "--1" } },
		{ "channel 0 scale-force: unknown unit \"m\"",
		  { "c0", "channel", "0", "scale-force", "1m" } },
		{ "channel 0 scale-disp: \"/count\" is not a number",
		  { "c0", "channel", "0", "scale-disp", "/count" } },
		{ "channel 0 scale-disp: unknown unit \"um/count/count\"",
		  { "c0", "channel", "0", "scale-disp", "1um/count/count/count" } },
		{ "channel 0 force: 70000 does not exist (0 to 65535, or none)",
		  { "c0", "channel", "0", "force", "70000" } },
		{ "disp: missing value",
		  { "c0", "channel", "0", "disp" } },
	};
	unsigned int i;

	for (i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		char *const *v = lines[i].argv;
		struct rc_dev_add a;
		struct rc_err e = { "" };
		int argc = 0;

		while (v[argc])
			argc++;
		EXPECT_EQ(-EINVAL, rc_parse_dev_add(argc, (char **)v, &a, &e)) {
			TH_LOG("line %u", i);
		}
		EXPECT_TRUE(starts(e.msg, lines[i].msg)) {
			TH_LOG("line %u: \"%s\"", i, e.msg);
		}
	}
}

TEST(dev_set_comedi_and_limits_share_force)
{
	struct rc_dev_set s;
	struct rc_err e;

	ASSERT_EQ(0, SET(&s, &e, "c0", "limit", "0", "force", "1kN",
			 "channel", "0", "force", "2", "range", "1",
			 "limit", "1", "force", "2kN", "ao-subdev", "3",
			 "channel", "1", "disp", "5", "rate", "2048")) {
		TH_LOG("%s", e.msg);
	}
	EXPECT_EQ(RTHS_CFG_LIMITS | RTHS_CFG_RATE, s.cfg.set);
	EXPECT_TRUE(s.comedi_given);
	EXPECT_FALSE(s.sim_given);
	EXPECT_EQ(1e3, s.cfg.limits[0].force_max);
	EXPECT_EQ(2e3, s.cfg.limits[1].force_max);
	EXPECT_EQ(RTHS_COMEDI_AO_SUBDEV, s.comedi.set);
	EXPECT_EQ(3u, s.comedi.ao_subdev);
	EXPECT_EQ(RTHS_COMEDI_CH_FORCE_CHAN | RTHS_COMEDI_CH_FORCE_RANGE,
		  s.comedi.chan[0].set);
	EXPECT_EQ(2, s.comedi.chan[0].force_chan);
	EXPECT_EQ(1u, s.comedi.chan[0].force_range);
	EXPECT_EQ(RTHS_COMEDI_CH_DISP_CHAN, s.comedi.chan[1].set);
	EXPECT_EQ(5u, s.comedi.chan[1].disp_chan);
	EXPECT_EQ(2048u, s.cfg.rate_hz);

	EXPECT_EQ(-EINVAL, SET(&s, &e, "c0", "channel", "0", "ao",
			       "1", "stroke", "-1", "1"));
	EXPECT_STREQ("stroke: give \"limit CH\" first", e.msg);
	EXPECT_EQ(-EINVAL, SET(&s, &e, "c0", "limit", "0", "channel",
			       "0", "ao", "1"));
	EXPECT_STREQ("limit 0: give stroke, velocity or force", e.msg);
	EXPECT_EQ(-EINVAL, SET(&s, &e, "c0", "channel", "0"));
	EXPECT_TRUE(starts(e.msg, "channel 0: give ao"));
	EXPECT_EQ(-EINVAL, SET(&s, &e, "c0", "channel", "0", "ao",
			       "1", "lag", "1ms"));
	EXPECT_STREQ("dev set c0: sim and comedi parameters together", e.msg);
	EXPECT_EQ(-EINVAL, SET(&s, &e, "c0", "disp", "1"));
	EXPECT_STREQ("disp: give \"channel I\" first", e.msg);
}

TEST(aref_words_are_comedi_order)
{
	EXPECT_STREQ("ground", rc_aref_words[AREF_GROUND]);
	EXPECT_STREQ("common", rc_aref_words[AREF_COMMON]);
	EXPECT_STREQ("diff", rc_aref_words[AREF_DIFF]);
	EXPECT_STREQ("other", rc_aref_words[AREF_OTHER]);
	EXPECT_EQ(RTHS_COMEDI_AREF_MAX, AREF_OTHER);
	EXPECT_EQ(NULL, rc_aref_words[AREF_OTHER + 1]);
}

TEST_HARNESS_MAIN
