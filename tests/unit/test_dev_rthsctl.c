// SPDX-License-Identifier: GPL-2.0
/*
 * rthsctl's argument parser: numbers and units, keywords, and the
 * "dev add" / "dev set" argument lists, including what the error messages
 * say.
 */
#include <errno.h>
#include <string.h>

#include <rths/error.h>
#include <rths/sim_plant.h>

#include "kselftest_harness.h"
#include "../../tools/rthsctl/rthsctl.h"

#define ARGV(...) ((char *[]){ __VA_ARGS__, NULL })
#define ARGC(...) ((int)(sizeof((char *[]){ __VA_ARGS__ }) / sizeof(char *)))
/* Parse a literal argument list. */
#define SET(s, e, ...) \
	rc_parse_dev_set(ARGC(__VA_ARGS__), ARGV(__VA_ARGS__), s, e)
#define ADD(a, e, ...) \
	rc_parse_dev_add(ARGC(__VA_ARGS__), ARGV(__VA_ARGS__), a, e)

static bool starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

TEST(quantities_with_units)
{
	struct rc_err e;
	double v;

	ASSERT_EQ(0, rc_parse_quantity("stroke", "0.1", RC_LENGTH, &v, &e));
	EXPECT_EQ(0.1, v);
	ASSERT_EQ(0, rc_parse_quantity("stroke", "-100mm", RC_LENGTH, &v, &e));
	EXPECT_EQ(-100 * 1e-3, v);
	ASSERT_EQ(0, rc_parse_quantity("stroke", "250um", RC_LENGTH, &v, &e));
	EXPECT_EQ(250 * 1e-6, v);
	ASSERT_EQ(0, rc_parse_quantity("stroke", "2m", RC_LENGTH, &v, &e));
	EXPECT_EQ(2.0, v);
	ASSERT_EQ(0, rc_parse_quantity("force", "1.5kN", RC_FORCE, &v, &e));
	EXPECT_EQ(1.5e3, v);
	ASSERT_EQ(0, rc_parse_quantity("force", "20N", RC_FORCE, &v, &e));
	EXPECT_EQ(20.0, v);
	ASSERT_EQ(0, rc_parse_quantity("velocity", "500mm/s", RC_VELOCITY, &v,
				       &e));
	EXPECT_EQ(500 * 1e-3, v);
	ASSERT_EQ(0, rc_parse_quantity("lag", "5ms", RC_TIME, &v, &e));
	EXPECT_EQ(5 * 1e-3, v);
	ASSERT_EQ(0, rc_parse_quantity("stiffness", "10kN/mm", RC_STIFFNESS,
				       &v, &e));
	EXPECT_EQ(10 * 1e6, v);
	ASSERT_EQ(0, rc_parse_quantity("damping", "0.1N*s/m", RC_DAMPING, &v,
				       &e));
	EXPECT_EQ(0.1, v);
	ASSERT_EQ(0, rc_parse_quantity("stroke", "1e-3", RC_LENGTH, &v, &e));
	EXPECT_EQ(1e-3, v);
}

TEST(bad_quantities_name_the_field)
{
	struct rc_err e;
	double v = 7;

	EXPECT_EQ(-EINVAL, rc_parse_quantity("stroke", "abc", RC_LENGTH, &v, &e));
	EXPECT_STREQ("stroke: \"abc\" is not a number", e.msg);
	EXPECT_EQ(-EINVAL, rc_parse_quantity("lag", "nan", RC_TIME, &v, &e));
	EXPECT_STREQ("lag: \"nan\" is not a number", e.msg);
	EXPECT_EQ(-EINVAL, rc_parse_quantity("lag", "inf", RC_TIME, &v, &e));
	EXPECT_EQ(-EINVAL, rc_parse_quantity("force", "1e400", RC_FORCE, &v, &e));
	EXPECT_STREQ("force: 1e400 is out of range", e.msg);
	EXPECT_EQ(-EINVAL, rc_parse_quantity("force", "-1e400kN", RC_FORCE, &v,
					     &e));
	EXPECT_EQ(-EINVAL, rc_parse_quantity("stroke", "10ft", RC_LENGTH, &v, &e));
	EXPECT_STREQ("stroke: unknown unit \"ft\" in \"10ft\" (use m, mm, um, nm)",
		     e.msg);
	/* a force unit is not a length unit */
	EXPECT_EQ(-EINVAL, rc_parse_quantity("stroke", "10kN", RC_LENGTH, &v, &e));
	EXPECT_EQ(-EINVAL, rc_parse_quantity("stroke", "", RC_LENGTH, &v, &e));
	EXPECT_STREQ("stroke: missing value", e.msg);
	EXPECT_EQ(-EINVAL, rc_parse_quantity("stroke", " 1", RC_LENGTH, &v, &e));
	EXPECT_EQ(-EINVAL, rc_parse_quantity("stroke", "1 mm", RC_LENGTH, &v,
					     &e));
	EXPECT_EQ(7.0, v);
}

TEST(integers)
{
	struct rc_err e;
	uint32_t v = 0;
	uint64_t w = 0;

	ASSERT_EQ(0, rc_parse_u32("rate", "2048", "Hz", &v, &e));
	EXPECT_EQ(2048U, v);
	ASSERT_EQ(0, rc_parse_u32("rate", "1024Hz", "Hz", &v, &e));
	EXPECT_EQ(1024U, v);
	ASSERT_EQ(0, rc_parse_u32("cpu", "4294967295", NULL, &v, &e));
	EXPECT_EQ(4294967295U, v);
	EXPECT_EQ(-EINVAL, rc_parse_u32("cpu", "4294967296", NULL, &v, &e));
	EXPECT_STREQ("cpu: 4294967296 is too large (at most 4294967295)", e.msg);
	EXPECT_EQ(-EINVAL, rc_parse_u32("cpu", "-1", NULL, &v, &e));
	EXPECT_STREQ("cpu: \"-1\" is not a non-negative integer", e.msg);
	EXPECT_EQ(-EINVAL, rc_parse_u32("cpu", "0x10", NULL, &v, &e));
	EXPECT_EQ(-EINVAL, rc_parse_u32("cpu", "1Hz", NULL, &v, &e));
	EXPECT_EQ(-EINVAL, rc_parse_u32("rate", "1kHz", "Hz", &v, &e));
	EXPECT_EQ(-EINVAL, rc_parse_u32("cpu", "", NULL, &v, &e));
	ASSERT_EQ(0, rc_parse_u64("seed", "18446744073709551615", &w, &e));
	EXPECT_EQ(UINT64_MAX, w);
	EXPECT_EQ(-EINVAL, rc_parse_u64("seed", "18446744073709551616", &w, &e));
}

TEST(keywords_list_the_valid_ones)
{
	const char *const words[] = { "start", "stop", "tick", NULL };
	struct rc_err e;

	EXPECT_EQ(2, rc_keyword("tick", words, "run command", &e));
	EXPECT_EQ(-EINVAL, rc_keyword("go", words, "run command", &e));
	EXPECT_STREQ("unknown run command \"go\"; valid: start stop tick", e.msg);
	EXPECT_EQ(-EINVAL, rc_keyword("star", words, "run command", &e));
}

TEST(global_options)
{
	struct rc_global g;
	struct rc_err e;

	EXPECT_EQ(3, rc_parse_global(4, ARGV("rthsctl", "-j", "-p", "dev"), &g,
				     &e));
	EXPECT_TRUE(g.json);
	EXPECT_TRUE(g.pretty);
	EXPECT_EQ(2, rc_parse_global(3, ARGV("rthsctl", "-jp", "dev"), &g, &e));
	EXPECT_TRUE(g.json && g.pretty);
	EXPECT_EQ(2, rc_parse_global(2, ARGV("rthsctl", "-V"), &g, &e));
	EXPECT_TRUE(g.version);
	EXPECT_FALSE(g.json);
	EXPECT_EQ(2, rc_parse_global(3, ARGV("rthsctl", "--help", "dev"), &g,
				     &e));
	EXPECT_TRUE(g.help);
	/* -p implies JSON */
	EXPECT_EQ(2, rc_parse_global(2, ARGV("rthsctl", "-p"), &g, &e));
	EXPECT_TRUE(g.json);
	EXPECT_EQ(-EINVAL, rc_parse_global(3, ARGV("rthsctl", "-x", "dev"), &g,
					   &e));
	EXPECT_STREQ("unknown option \"-x\" (valid: -j -p -V -h)", e.msg);
	EXPECT_EQ(-EINVAL, rc_parse_global(2, ARGV("rthsctl", "--jsn"), &g, &e));
	/* a negative number after the object is not an option */
	EXPECT_EQ(1, rc_parse_global(3, ARGV("rthsctl", "dev", "-1"), &g, &e));
}

TEST(dev_add)
{
	struct rc_dev_add a;
	struct rc_err e;

	ASSERT_EQ(0, ADD(&a, &e, "s0", "type", "sim", "channels", "2"));
	EXPECT_STREQ("s0", a.name);
	EXPECT_STREQ("sim", a.card);
	EXPECT_EQ(2U, a.channels);
	EXPECT_EQ(0U, a.sim.set);

	ASSERT_EQ(0, ADD(&a, &e, "s1", "channels", "3", "type", "sim", "lag",
			 "5ms", "delay", "2", "stiffness", "2kN/mm", "damping",
			 "50Ns/m", "noise-disp", "1um", "noise-force", "0.5N",
			 "seed", "7"));
	EXPECT_EQ(3U, a.channels);
	EXPECT_EQ((unsigned int)(RTHS_SIM_LAG | RTHS_SIM_DELAY |
				 RTHS_SIM_STIFFNESS | RTHS_SIM_DAMPING |
				 RTHS_SIM_NOISE_DISP | RTHS_SIM_NOISE_FORCE |
				 RTHS_SIM_SEED), a.sim.set);
	EXPECT_EQ(5e-3, a.sim.lag);
	EXPECT_EQ(2U, a.sim.delay_ticks);
	EXPECT_EQ(2e6, a.sim.stiffness);
	EXPECT_EQ(50.0, a.sim.damping);
	EXPECT_EQ(1e-6, a.sim.noise_disp);
	EXPECT_EQ(0.5, a.sim.noise_force);
	EXPECT_EQ(7ULL, a.sim.seed);
}

TEST(dev_add_errors)
{
	struct rc_dev_add a;
	struct rc_err e;

	EXPECT_EQ(-EINVAL, rc_parse_dev_add(0, ARGV("x"), &a, &e));
	EXPECT_STREQ("dev add: missing NAME", e.msg);
	EXPECT_EQ(-EINVAL, ADD(&a, &e, "s0", "type", "sim"));
	EXPECT_STREQ("dev add s0: missing \"channels N\"", e.msg);
	EXPECT_EQ(-EINVAL, ADD(&a, &e, "s0", "channels", "2"));
	EXPECT_STREQ("dev add s0: missing \"type CARD\"", e.msg);
	EXPECT_EQ(-EINVAL, ADD(&a, &e, "s0", "type", "sim", "channels"));
	EXPECT_STREQ("channels: missing value", e.msg);
	EXPECT_EQ(-EINVAL, ADD(&a, &e, "s0", "type", "sim", "channels", "two"));
	EXPECT_STREQ("channels: \"two\" is not a non-negative integer", e.msg);
	EXPECT_EQ(-EINVAL, ADD(&a, &e, "s0", "type", "sim", "channels", "0"));
	EXPECT_EQ(-EINVAL, ADD(&a, &e, "s0", "type", "sim", "chanels", "2"));
	EXPECT_TRUE(starts(e.msg, "unknown dev add keyword \"chanels\"; valid: type channels lag"));
	EXPECT_EQ(-EINVAL, ADD(&a, &e, "s0", "type", "sim", "channels", "1",
			       "lag", "1", "lag", "2"));
	EXPECT_STREQ("lag given twice", e.msg);
	EXPECT_EQ(-EINVAL, ADD(&a, &e, "s0", "type", "sim", "channels", "1",
			       "stiffness", "5kN"));
	EXPECT_TRUE(starts(e.msg, "stiffness: unknown unit \"kN\""));
}

TEST(dev_set_plain_settings)
{
	struct rc_dev_set s;
	struct rc_err e;

	ASSERT_EQ(0, SET(&s, &e, "s0", "clock", "manual", "rate",
			 "2048Hz", "step-ticks", "10", "late-policy",
			 "event-driven", "deadline", "5", "ramp", "200", "cpu",
			 "1", "priority", "90", "cmd-entries", "256",
			 "fb-entries", "512", "trace-entries", "0"));
	EXPECT_STREQ("s0", s.name);
	EXPECT_EQ((unsigned int)(RTHS_CFG_CLOCK | RTHS_CFG_RATE |
				 RTHS_CFG_STEP_TICKS | RTHS_CFG_LATE_POLICY |
				 RTHS_CFG_LATE_DEADLINE | RTHS_CFG_RAMP_TICKS |
				 RTHS_CFG_CPU | RTHS_CFG_PRIORITY |
				 RTHS_CFG_CMD_ENTRIES | RTHS_CFG_FB_ENTRIES |
				 RTHS_CFG_TRACE_ENTRIES), s.cfg.set);
	EXPECT_EQ(RTHS_CLOCK_MANUAL, s.cfg.clock);
	EXPECT_EQ(2048U, s.cfg.rate_hz);
	EXPECT_EQ(10U, s.cfg.step_ticks);
	EXPECT_EQ(RTHS_LATE_EVENT_DRIVEN, s.cfg.late_policy);
	EXPECT_EQ(5U, s.cfg.late_deadline);
	EXPECT_EQ(200U, s.cfg.ramp_ticks);
	EXPECT_EQ(1U, s.cfg.cpu);
	EXPECT_EQ(90U, s.cfg.priority);
	EXPECT_EQ(256U, s.cfg.cmd_entries);
	EXPECT_EQ(512U, s.cfg.fb_entries);
	EXPECT_EQ(0U, s.cfg.trace_entries);
	EXPECT_EQ(0U, s.cfg.limits_set);

	ASSERT_EQ(0, SET(&s, &e, "s0", "clock", "hrtimer"));
	EXPECT_EQ(RTHS_CLOCK_HRTIMER, s.cfg.clock);
	EXPECT_EQ((unsigned int)RTHS_CFG_CLOCK, s.cfg.set);
}

TEST(dev_set_limits_per_channel)
{
	struct rc_dev_set s;
	struct rc_err e;

	ASSERT_EQ(0, SET(&s, &e, "s0", "limit", "0", "stroke",
			 "-100mm", "100mm", "velocity", "0.5", "force", "100kN",
			 "limit", "3", "force", "20kN", "rate", "1024",
			 "lag", "10ms"));
	EXPECT_EQ((unsigned int)(RTHS_CFG_LIMITS | RTHS_CFG_RATE), s.cfg.set);
	EXPECT_TRUE(s.sim_given);
	EXPECT_FALSE(s.comedi_given);
	EXPECT_EQ((1u << 0) | (1u << 3), s.cfg.limits_set);
	EXPECT_EQ(RTHS_LIM_ALL, s.cfg.limits[0].set);
	EXPECT_EQ(-100e-3, s.cfg.limits[0].pos_min);
	EXPECT_EQ(100e-3, s.cfg.limits[0].pos_max);
	EXPECT_EQ(0.5, s.cfg.limits[0].vel_max);
	EXPECT_EQ(100e3, s.cfg.limits[0].force_max);
	/* only the force of channel 3: the kernel keeps the rest */
	EXPECT_EQ((unsigned int)RTHS_LIM_FORCE_MAX, s.cfg.limits[3].set);
	EXPECT_EQ(20e3, s.cfg.limits[3].force_max);
	EXPECT_EQ((unsigned int)RTHS_SIM_LAG, s.sim.set);
	EXPECT_EQ(10e-3, s.sim.lag);
}

TEST(limits_can_be_lifted)
{
	struct rc_dev_set s;
	struct rc_err e;
	uint64_t nmps;
	int64_t k;

	ASSERT_EQ(0, SET(&s, &e, "s0", "limit", "1", "stroke",
			 "unlimited", "velocity", "unlimited", "force",
			 "unlimited"));
	EXPECT_EQ(RTHS_LIM_ALL, s.cfg.limits[1].set);
	EXPECT_TRUE(rc_unlimited(s.cfg.limits[1].pos_min, RC_LENGTH));
	EXPECT_TRUE(rc_unlimited(s.cfg.limits[1].pos_max, RC_LENGTH));
	EXPECT_TRUE(rc_unlimited(s.cfg.limits[1].vel_max, RC_VELOCITY));
	EXPECT_TRUE(rc_unlimited(s.cfg.limits[1].force_max, RC_FORCE));
	/* and what it sets is what the kernel takes */
	ASSERT_EQ(0, rths_m_to_nm(s.cfg.limits[1].pos_min, &k));
	EXPECT_EQ(-RTHS_POS_MAX, k);
	ASSERT_EQ(0, rths_m_to_nm(s.cfg.limits[1].pos_max, &k));
	EXPECT_EQ(RTHS_POS_MAX, k);
	ASSERT_EQ(0, rths_n_to_un(s.cfg.limits[1].force_max, &k));
	EXPECT_EQ(RTHS_FORCE_MAX, k);
	ASSERT_EQ(0, rths_mps_to_nmps(s.cfg.limits[1].vel_max, &nmps));
	EXPECT_GE(nmps, 1ULL << 63);
	/* the kernel's own "none" reads back as unlimited */
	EXPECT_TRUE(rc_unlimited((double)UINT64_MAX / 1e9, RC_VELOCITY));
	EXPECT_FALSE(rc_unlimited(1e3, RC_VELOCITY));
	EXPECT_FALSE(rc_unlimited(0.5, RC_LENGTH));
	EXPECT_FALSE(rc_unlimited(1e6, RC_FORCE));
}

TEST(human_output)
{
	char buf[48];

	EXPECT_STREQ("100mm", rc_fmt(buf, 0.1, RC_LENGTH));
	EXPECT_STREQ("-0.0015mm", rc_fmt(buf, -0.0000015, RC_LENGTH));
	EXPECT_STREQ("0.000001mm", rc_fmt(buf, 1e-9, RC_LENGTH));
	EXPECT_STREQ("0mm", rc_fmt(buf, -1e-13, RC_LENGTH));
	EXPECT_STREQ("0mm", rc_fmt(buf, 0, RC_LENGTH));
	EXPECT_STREQ("1.5kN", rc_fmt(buf, 1500, RC_FORCE));
	EXPECT_STREQ("0.000000001kN", rc_fmt(buf, 1e-6, RC_FORCE));
	EXPECT_STREQ("200mm/s", rc_fmt(buf, 0.2, RC_VELOCITY));
	EXPECT_STREQ("5ms", rc_fmt(buf, 0.005, RC_TIME));
	EXPECT_STREQ("1000000N/m", rc_fmt(buf, 1e6, RC_STIFFNESS));
	EXPECT_STREQ("50Ns/m", rc_fmt(buf, 50, RC_DAMPING));
}

/* What "dev show" prints can be typed back, to the nanometre. */
TEST(output_parses_back)
{
	const int64_t nm[] = { 1, -1, 999, 123456789, -50000000,
			       RTHS_POS_MAX, -RTHS_POS_MAX };
	char buf[48];
	struct rc_err e;
	unsigned int i;
	double v;
	int64_t k;

	for (i = 0; i < sizeof(nm) / sizeof(nm[0]); i++) {
		rc_fmt(buf, rths_nm_to_m(nm[i]), RC_LENGTH);
		ASSERT_EQ(0, rc_parse_quantity("x", buf, RC_LENGTH, &v, &e));
		ASSERT_EQ(0, rths_m_to_nm(v, &k));
		EXPECT_EQ(nm[i], k);
		rc_fmt(buf, rths_un_to_n(nm[i]), RC_FORCE);
		ASSERT_EQ(0, rc_parse_quantity("x", buf, RC_FORCE, &v, &e));
		ASSERT_EQ(0, rths_n_to_un(v, &k));
		EXPECT_EQ(nm[i], k);
	}
}

/* The parser's word lists must say what the library's names say. */
TEST(enum_words_agree_with_the_library)
{
	int i;

	for (i = 0; rc_clock_words[i]; i++)
		EXPECT_EQ(i + 1, rths_clock_parse(rc_clock_words[i]));
	EXPECT_EQ(RTHS_CLOCK_MANUAL, i);
	for (i = 0; rc_policy_words[i]; i++)
		EXPECT_EQ(i + 1, rths_late_policy_parse(rc_policy_words[i]));
	EXPECT_EQ(RTHS_LATE_EVENT_DRIVEN, i);
}

TEST(dev_set_errors)
{
	struct rc_dev_set s;
	struct rc_err e;

	EXPECT_EQ(-EINVAL, SET(&s, &e, "s0"));
	EXPECT_STREQ("dev set s0: nothing to set", e.msg);
	EXPECT_EQ(-EINVAL, SET(&s, &e, "s0", "clock", "quartz"));
	EXPECT_STREQ("unknown clock \"quartz\"; valid: hrtimer manual", e.msg);
	EXPECT_EQ(-EINVAL, SET(&s, &e, "s0", "late-policy", "lenient"));
	EXPECT_STREQ("unknown late-policy \"lenient\"; valid: strict hold event-driven",
		     e.msg);
	EXPECT_EQ(-EINVAL, SET(&s, &e, "s0", "rat", "1000"));
	EXPECT_TRUE(starts(e.msg, "unknown dev set keyword \"rat\"; valid: clock rate"));
	EXPECT_EQ(-EINVAL, SET(&s, &e, "s0", "rate", "fast"));
	EXPECT_TRUE(starts(e.msg, "rate: \"fast\" is not a non-negative integer"));
	EXPECT_EQ(-EINVAL, SET(&s, &e, "s0", "rate", "1", "rate", "2"));
	EXPECT_STREQ("rate given twice", e.msg);
	EXPECT_EQ(-EINVAL, SET(&s, &e, "s0", "stroke", "0", "1"));
	EXPECT_STREQ("stroke: give \"limit CH\" first", e.msg);
	EXPECT_EQ(-EINVAL, SET(&s, &e, "s0", "limit", "1"));
	EXPECT_STREQ("limit 1: give stroke, velocity or force", e.msg);
	EXPECT_EQ(-EINVAL, SET(&s, &e, "s0", "limit", "1", "rate", "5"));
	EXPECT_STREQ("limit 1: give stroke, velocity or force", e.msg);
	EXPECT_EQ(-EINVAL, SET(&s, &e, "s0", "limit", "16", "force",
			       "1"));
	EXPECT_STREQ("limit: channel 16 does not exist (0 to 15)", e.msg);
	EXPECT_EQ(-EINVAL, SET(&s, &e, "s0", "limit", "2", "stroke",
			       "5mm"));
	EXPECT_STREQ("limit 2 stroke: needs MIN and MAX", e.msg);
	EXPECT_EQ(-EINVAL, SET(&s, &e, "s0", "limit", "2", "stroke",
			       "5mm", "-5mm"));
	EXPECT_STREQ("limit 2 stroke: MIN 5mm is above MAX -5mm", e.msg);
	EXPECT_EQ(-EINVAL, SET(&s, &e, "s0", "limit", "2", "force",
			       "heavy"));
	EXPECT_STREQ("limit 2 force: \"heavy\" is not a number", e.msg);
	EXPECT_EQ(-EINVAL, SET(&s, &e, "s0", "limit", "2", "force",
			       "1", "limit", "2", "force", "2"));
	EXPECT_STREQ("limit 2 given twice", e.msg);
	/* after a sim parameter, limit parts need a new "limit CH" */
	EXPECT_EQ(-EINVAL, SET(&s, &e, "s0", "limit", "2", "force",
			       "1", "seed", "3", "velocity", "1"));
	EXPECT_STREQ("velocity: give \"limit CH\" first", e.msg);
	EXPECT_EQ(-EINVAL, SET(&s, &e, "s0", "cpu"));
	EXPECT_STREQ("cpu: missing value", e.msg);
}

/* plant none | benchmark[:KEY=VALUE,...], in dev set and dev add (sim). */
TEST(plant_words)
{
	struct rc_dev_set s;
	struct rc_dev_add a;
	struct rc_err e;

	ASSERT_EQ(0, SET(&s, &e, "s0", "plant", "benchmark"));
	EXPECT_TRUE(s.plant.given);
	EXPECT_FALSE(s.plant.none);
	EXPECT_EQ(0U, s.plant.set);
	EXPECT_FALSE(s.sim_given);	/* designed later, at the rate */
	ASSERT_EQ(0, SET(&s, &e, "s0", "rate", "4096", "plant",
			 "benchmark:b1=2.2,ke=1.5e5,gain=0,prewarp=4"));
	EXPECT_EQ(4096U, s.cfg.rate_hz);
	EXPECT_EQ((1u << RC_PLANT_B1) | (1u << RC_PLANT_KE) |
		  (1u << RC_PLANT_GAIN) | (1u << RC_PLANT_PREWARP),
		  s.plant.set);
	EXPECT_EQ(2.2, s.plant.v[RC_PLANT_B1]);
	EXPECT_EQ(1.5e5, s.plant.v[RC_PLANT_KE]);
	EXPECT_EQ(0.0, s.plant.v[RC_PLANT_GAIN]);
	EXPECT_EQ(4.0, s.plant.v[RC_PLANT_PREWARP]);
	ASSERT_EQ(0, SET(&s, &e, "s0", "plant", "none", "seed", "3"));
	EXPECT_TRUE(s.plant.none);
	EXPECT_TRUE(s.sim_given);
	ASSERT_EQ(0, ADD(&a, &e, "s0", "type", "sim", "channels", "1",
			 "plant", "benchmark:a3=3.1"));
	EXPECT_EQ(1u << RC_PLANT_A3, a.plant.set);
	EXPECT_EQ(3.1, a.plant.v[RC_PLANT_A3]);

	EXPECT_EQ(-EINVAL, SET(&s, &e, "s0", "plant", "bench"));
	EXPECT_STREQ("plant: \"bench\" is no plant; expected none or benchmark[:KEY=VALUE,...]",
		     e.msg);
	EXPECT_EQ(-EINVAL, SET(&s, &e, "s0", "plant", "benchmarks"));
	EXPECT_EQ(-EINVAL, SET(&s, &e, "s0", "plant", "benchmark:"));
	EXPECT_STREQ("plant benchmark: nothing after ':'", e.msg);
	EXPECT_EQ(-EINVAL, SET(&s, &e, "s0", "plant", "benchmark:b1"));
	EXPECT_STREQ("plant benchmark: \"b1\": expected KEY=VALUE", e.msg);
	EXPECT_EQ(-EINVAL, SET(&s, &e, "s0", "plant", "benchmark:k=1"));
	EXPECT_STREQ("unknown plant benchmark key \"k\"; valid: gain a1b0 a2 b1 b2 a3 me ke zeta prewarp",
		     e.msg);
	EXPECT_EQ(-EINVAL, SET(&s, &e, "s0", "plant", "benchmark:b1=0"));
	EXPECT_STREQ("plant benchmark: b1: \"0\" is not a positive number",
		     e.msg);
	EXPECT_EQ(-EINVAL, SET(&s, &e, "s0", "plant", "benchmark:gain=-1"));
	EXPECT_STREQ("plant benchmark: gain: \"-1\" is not a non-negative number",
		     e.msg);
	EXPECT_EQ(-EINVAL, SET(&s, &e, "s0", "plant", "benchmark:ke=1e5x"));
	EXPECT_EQ(-EINVAL, SET(&s, &e, "s0", "plant", "benchmark:ke=nan"));
	EXPECT_EQ(-EINVAL, SET(&s, &e, "s0", "plant",
			       "benchmark:ke=1e5,ke=2e5"));
	EXPECT_STREQ("plant benchmark: ke given twice", e.msg);
	EXPECT_EQ(-EINVAL, SET(&s, &e, "s0", "plant", "none", "plant",
			       "benchmark"));
	EXPECT_STREQ("plant given twice", e.msg);
	EXPECT_EQ(-EINVAL, SET(&s, &e, "s0", "plant", "none", "device",
			       "/dev/comedi0"));
	EXPECT_STREQ("dev set s0: sim and comedi parameters together", e.msg);
	EXPECT_EQ(-EINVAL, ADD(&a, &e, "c0", "type", "comedi", "channels",
			       "1", "device", "/dev/comedi0", "plant",
			       "benchmark"));
	EXPECT_STREQ("dev add c0: plant: only the sim card has one, the card is comedi",
		     e.msg);
}

/* The plant rthsctl loads is librths' design of the benchmark at the
 * device's rate, with the parameters given; none removes it. */
TEST(plant_design_is_the_librths_design)
{
	static const uint32_t rates[] = { 1024, 4096 };
	struct rths_sim_params got, want;
	struct rths_benchmark_plant bp;
	struct rths_error err;
	struct rc_dev_set s;
	struct rc_err e;
	double num[1], den[6];

	for (size_t i = 0; i < 2; i++) {
		for (int perturbed = 0; perturbed < 2; perturbed++) {
			ASSERT_EQ(0, SET(&s, &e, "s0", "plant", perturbed ?
					 "benchmark:b1=467.5,b2=1.1e5,a3=3.63,ke=1.31e6" :
					 "benchmark"));
			memset(&got, 0, sizeof(got));
			ASSERT_EQ(0, rc_plant_design(&s.plant, rates[i], &got,
						     &e))
				TH_LOG("%s", e.msg);
			rths_benchmark_plant_nominal(&bp);
			if (perturbed) {
				bp.b1 = 467.5;
				bp.b2 = 1.1e5;
				bp.a3 = 3.63;
				bp.ke = 1.31e6;
			}
			memset(&want, 0, sizeof(want));
			ASSERT_EQ(0, rths_benchmark_plant_tf(&bp, num, den,
							     &err));
			ASSERT_EQ(0, rths_sim_plant_design(num, 1, den, 6,
							   rates[i], 0, &want,
							   &err));
			EXPECT_EQ(RTHS_SIM_PLANT, got.set);
			ASSERT_LT(0U, got.plant_sections);
			EXPECT_EQ(want.plant_sections, got.plant_sections);
			EXPECT_EQ(0, memcmp(want.plant, got.plant,
					    sizeof(want.plant)));
		}
	}
	ASSERT_EQ(0, SET(&s, &e, "s0", "plant", "none"));
	got.set = 0;
	ASSERT_EQ(0, rc_plant_design(&s.plant, 1024, &got, &e));
	EXPECT_EQ(RTHS_SIM_PLANT, got.set);
	EXPECT_EQ(0U, got.plant_sections);
	ASSERT_EQ(0, SET(&s, &e, "s0", "plant", "benchmark:prewarp=512"));
	EXPECT_EQ(-EINVAL, rc_plant_design(&s.plant, 1024, &got, &e));
	EXPECT_STREQ("plant benchmark: prewarp 512 Hz is not below half the rate, 512 Hz",
		     e.msg);
}

TEST_HARNESS_MAIN
