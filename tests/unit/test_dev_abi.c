// SPDX-License-Identifier: GPL-2.0
/*
 * The ABI facts of librths's device layer (Documentation/librths.rst,
 * "ABI policy"): card parameters are not in the core structs; the core
 * and card structs are size-tagged, so that a caller built against an
 * older, smaller struct still works, a newer caller's fields this library
 * does not know are refused, and sizes and offsets stay what
 * librths.so.2 published.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "dev/internal.h"

#define FAMILY 0x4242

/* ---- layout ---------------------------------------------------------------- */

/* The first published size of each struct ends at its last field: no
 * tail padding that a field appended later could fall into. */
_Static_assert(sizeof(struct rths_dev_config) == RTHS_DEV_CONFIG_SIZE_VER1,
	       "rths_dev_config has tail padding or unpublished fields");
_Static_assert(sizeof(struct rths_dev_info) == RTHS_DEV_INFO_SIZE_VER1,
	       "rths_dev_info has tail padding or unpublished fields");
_Static_assert(sizeof(struct rths_sim_params) == RTHS_SIM_PARAMS_SIZE_VER1,
	       "rths_sim_params has tail padding or unpublished fields");
_Static_assert(sizeof(struct rths_comedi_params) ==
	       RTHS_COMEDI_PARAMS_SIZE_VER0,
	       "rths_comedi_params has tail padding or unpublished fields");

#if defined(__x86_64__) || defined(__aarch64__)
/* LIBRTHS_2 on LP64 (the abidiff baseline holds the rest): a change
 * here is an ABI break, which needs a new soname. */
#define AT(type, member, off) \
	_Static_assert(offsetof(struct type, member) == (off), \
		       #type "." #member " moved")
_Static_assert(RTHS_DEV_CONFIG_SIZE_VER0 == 696, "rths_dev_config size");
AT(rths_dev_config, set, 0);
AT(rths_dev_config, limits_set, 48);
AT(rths_dev_config, limits, 56);
_Static_assert(RTHS_DEV_CONFIG_SIZE_VER1 == 704, "rths_dev_config size");
AT(rths_dev_config, lat_hist_us, 696);
_Static_assert(RTHS_DEV_INFO_SIZE_VER0 == 1128, "rths_dev_info size");
AT(rths_dev_info, card, 20);
AT(rths_dev_info, limits, 96);
AT(rths_dev_info, cmd, 736);
AT(rths_dev_info, mmap_size, 832);
AT(rths_dev_info, step, 856);
AT(rths_dev_info, position, 872);
AT(rths_dev_info, position_raw, 1000);
_Static_assert(RTHS_DEV_INFO_SIZE_VER1 == 1136, "rths_dev_info size");
AT(rths_dev_info, lat_hist_us, 1128);
_Static_assert(RTHS_SIM_PARAMS_SIZE_VER0 == 88, "rths_sim_params size");
AT(rths_sim_params, seed, 56);
AT(rths_sim_params, post_stiffness, 80);
_Static_assert(RTHS_SIM_PARAMS_SIZE_VER1 == 416, "rths_sim_params size");
AT(rths_sim_params, plant_sections, 88);
AT(rths_sim_params, plant, 96);
_Static_assert(RTHS_COMEDI_PARAMS_SIZE_VER0 == 2512,
	       "rths_comedi_params size");
_Static_assert(sizeof(struct rths_comedi_chan) == 152,
	       "rths_comedi_chan size");
AT(rths_comedi_params, chan, 16);
AT(rths_comedi_params, board, 2448);
AT(rths_comedi_params, driver, 2480);
_Static_assert(sizeof(struct rths_card_params) == 24,
	       "rths_card_params size");
#endif

/* ---- the size tag, on a struct that grew ------------------------------------ */

/* What a struct looked like when an old program was built, and what it
 * became: one field appended. */
struct v0 {
	uint32_t set;
	uint32_t a;
	double b;
};

struct v1 {
	uint32_t set;
	uint32_t a;
	double b;
	uint64_t c;		/* new */
};

TEST(an_old_callers_struct_reads_as_not_set_beyond_its_end)
{
	struct v0 old = { .set = 1, .a = 7, .b = 0.5 };
	struct v1 now;
	struct rths_err err = { "", 0 };

	memset(&now, 0xa5, sizeof(now));
	ASSERT_EQ(0, rths_copy_in(&now, sizeof(now), &old, sizeof(old),
				  sizeof(struct v0), "v", &err));
	EXPECT_EQ(1u, now.set);
	EXPECT_EQ(7u, now.a);
	EXPECT_EQ(0.5, now.b);
	EXPECT_EQ(0u, now.c);
}

TEST(a_newer_callers_unknown_fields_must_be_zero)
{
	struct v1 newer = { .set = 1, .a = 7, .b = 0.5 };
	struct v0 lib;
	struct rths_err err = { "", 0 };

	/* unknown but unset: fine */
	ASSERT_EQ(0, rths_copy_in(&lib, sizeof(lib), &newer, sizeof(newer),
				  sizeof(struct v0), "v", &err));
	EXPECT_EQ(7u, lib.a);
	/* unknown and set: refused, never silently dropped */
	newer.c = 1;
	EXPECT_EQ(-E2BIG, rths_copy_in(&lib, sizeof(lib), &newer,
				       sizeof(newer), sizeof(struct v0), "v",
				       &err));
	EXPECT_STREQ("struct v: byte 16 is set, but this librths knows only 16 bytes",
		     err.msg);
	/* shorter than anything ever published */
	EXPECT_EQ(-EINVAL, rths_copy_in(&lib, sizeof(lib), &newer, 8,
					sizeof(struct v0), "v", &err));
	EXPECT_STREQ("struct v: size 8 is below the first published size (16)",
		     err.msg);
}

TEST(what_the_library_fills_stops_at_the_callers_size)
{
	struct v1 lib = { .set = 1, .a = 2, .b = 3, .c = 4 };
	unsigned char buf[sizeof(struct v1) + 8];
	struct v0 old;
	struct v1 *big = (struct v1 *)buf;
	struct rths_err err = { "", 0 };

	/* an old caller: nothing written past its struct */
	memset(buf, 0xa5, sizeof(buf));
	ASSERT_EQ(0, rths_copy_out(buf, sizeof(struct v0), &lib, sizeof(lib),
				   sizeof(struct v0), "v", &err));
	memcpy(&old, buf, sizeof(old));
	EXPECT_EQ(2u, old.a);
	EXPECT_EQ(0xa5, buf[sizeof(struct v0)]);
	/* a newer caller: what the library does not know reads 0 */
	memset(buf, 0xa5, sizeof(buf));
	ASSERT_EQ(0, rths_copy_out(buf, sizeof(buf), &lib, sizeof(lib),
				   sizeof(struct v0), "v", &err));
	EXPECT_EQ(4u, big->c);
	EXPECT_EQ(0, buf[sizeof(struct v1)]);
	EXPECT_EQ(0, buf[sizeof(buf) - 1]);
}

/* ---- the card parameters ------------------------------------------------------ */

/* The DEV_SET request for @cp as bytes in @buf; its length, or a
 * negative errno. */
static int encode(void *buf, const struct rths_card_params *cp,
		  struct rths_err *err)
{
	struct rths_msgbuf mb = { .size = RTHS_REQ_SIZE, .err = err };
	int ret;

	rths_err_clear(err);
	mb.nlh = rths_msg_init(buf, RTHS_REQ_SIZE, FAMILY, RTHS_CMD_DEV_SET,
			       0);
	ret = rths_put_card(&mb, NULL, cp);
	return ret ? ret : (int)mb.nlh->nlmsg_len;
}

TEST(sim_parameters_travel_size_tagged)
{
	static char want[RTHS_REQ_SIZE], got[RTHS_REQ_SIZE];
	struct {
		struct rths_sim_params sim;
		uint64_t newer;		/* a field from a later librths */
	} x = { .sim = { .set = RTHS_SIM_LAG | RTHS_SIM_SEED, .lag = 0.01,
			 .seed = 3 } };
	struct rths_card_params cp = { "sim", &x, sizeof(x.sim) };
	struct rths_err err;
	int n;

	n = encode(want, RTHS_SIM_PARAMS(&x.sim), &err);
	ASSERT_LT(0, n);
	/* a newer caller's struct, its new field unset: the same request */
	cp.size = sizeof(x);
	ASSERT_EQ(n, encode(got, &cp, &err));
	EXPECT_EQ(0, memcmp(want, got, (size_t)n));
	x.newer = 1;
	EXPECT_EQ(-E2BIG, encode(got, &cp, &err));
	EXPECT_STREQ("struct rths_sim_params: byte 416 is set, but this librths knows only 416 bytes",
		     err.msg);
	cp.size = RTHS_SIM_PARAMS_SIZE_VER0 - 8;
	EXPECT_EQ(-EINVAL, encode(got, &cp, &err));
	cp = (struct rths_card_params){ "sim", NULL, sizeof(x.sim) };
	EXPECT_EQ(-EINVAL, encode(got, &cp, &err));
	EXPECT_STREQ("struct rths_sim_params: NULL", err.msg);
	cp = (struct rths_card_params){ NULL, &x, sizeof(x.sim) };
	EXPECT_EQ(-EINVAL, encode(got, &cp, &err));
	EXPECT_STREQ("card parameters: the card they are for is not named",
		     err.msg);
	cp = (struct rths_card_params){ "daq", &x, sizeof(x.sim) };
	EXPECT_EQ(-EOPNOTSUPP, encode(got, &cp, &err));
	EXPECT_STREQ("card daq: this librths knows no parameters for it",
		     err.msg);
}

TEST(core_config_is_size_tagged_through_the_public_call)
{
	struct rths_ctl *ctl = calloc(1, sizeof(*ctl));
	struct {
		struct rths_dev_config cfg;
		uint32_t newer;
	} x = { .cfg = { .set = RTHS_CFG_RATE, .rate_hz = 1024 }, .newer = 1 };
	struct rths_dev_info info;

	/* no socket: these must fail before anything is sent */
	ASSERT_NE(NULL, ctl);
	EXPECT_EQ(-E2BIG, rths_dev_set(ctl, "s0", &x.cfg, sizeof(x), NULL));
	EXPECT_STREQ("struct rths_dev_config: byte 704 is set, but this librths knows only 704 bytes",
		     rths_ctl_error(ctl));
	EXPECT_EQ(-EINVAL, rths_dev_set(ctl, "s0", &x.cfg, 4, NULL));
	EXPECT_EQ(-EINVAL, rths_dev_get(ctl, "s0", &info,
					RTHS_DEV_INFO_SIZE_VER0 - 1));
	EXPECT_EQ(0, strncmp(rths_ctl_error(ctl),
			     "struct rths_dev_info: size 1127 is below", 40));
	free(ctl);
}

TEST(card_parameters_come_back_for_their_card_only)
{
	struct rths_dev_reply *r = calloc(1, sizeof(*r));
	struct {
		struct rths_sim_params sim;
		uint64_t newer;
	} x;
	struct rths_comedi_params *comedi = calloc(1, sizeof(*comedi));
	struct rths_card_params cp;
	struct rths_err err = { "", 0 };

	ASSERT_NE(NULL, r);
	ASSERT_NE(NULL, comedi);
	strcpy(r->info.name, "s0");
	strcpy(r->info.card, "sim");
	r->card.sim.set = RTHS_SIM_SEED;
	r->card.sim.seed = 9;
	memset(&x, 0xa5, sizeof(x));
	ASSERT_EQ(0, rths_card_params_out(r, "sim", &x, sizeof(x), &err));
	EXPECT_EQ(9u, x.sim.seed);
	EXPECT_EQ(0u, x.newer);
	EXPECT_EQ(-EMEDIUMTYPE, rths_card_params_out(r, "comedi", comedi,
						     sizeof(*comedi), &err));
	EXPECT_STREQ("s0: the device's card is sim, not comedi", err.msg);
	EXPECT_EQ(-EOPNOTSUPP, rths_card_params_out(r, "daq", &x, sizeof(x),
						    &err));

	/* the list callback's view: the library's own struct */
	rths_dev_reply_card(r, &cp);
	EXPECT_STREQ("sim", cp.card);
	EXPECT_EQ(sizeof(struct rths_sim_params), cp.size);
	strcpy(r->info.card, "daq");
	rths_dev_reply_card(r, &cp);
	EXPECT_EQ(NULL, cp.params);
	free(comedi);
	free(r);
}

TEST_HARNESS_MAIN
