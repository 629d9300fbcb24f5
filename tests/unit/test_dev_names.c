// SPDX-License-Identifier: GPL-2.0
/*
 * Name tables: every enum value has a distinct, well-formed name, values
 * outside an enum have none, and parsing inverts naming.
 */
#include <errno.h>
#include <string.h>

#include "kselftest_harness.h"
#include "rths/device.h"

typedef const char *(*name_fn)(int v);

/* Check names 1..max: present, lower-case words joined by '-', distinct;
 * 0 and max + 1 unnamed. */
static int check_table(const char *(*fn)(int), int max)
{
	int v, w;

	if (fn(0) || fn(max + 1) || fn(-1))
		return -1;
	for (v = 1; v <= max; v++) {
		const char *n = fn(v), *c;

		if (!n || !*n || n[0] == '-')
			return v;
		for (c = n; *c; c++)
			if (!((*c >= 'a' && *c <= 'z') || *c == '-'))
				return v;
		for (w = 1; w < v; w++)
			if (!strcmp(fn(w), n))
				return v;
	}
	return 0;
}

#define WRAP(fn, type) \
	static const char *fn##_i(int v) { return fn((type)v); }
WRAP(rths_state_name, enum rths_state)
WRAP(rths_reason_name, enum rths_reason)
WRAP(rths_fault_name, enum rths_fault)
WRAP(rths_clock_name, enum rths_clock)
WRAP(rths_late_policy_name, enum rths_late_policy)
WRAP(rths_late_action_name, enum rths_late_action)
WRAP(rths_limit_name, enum rths_limit_kind)
WRAP(rths_event_name, enum rths_event_type)
WRAP(rths_ring_name, enum rths_ring_id)

TEST(every_value_named_once)
{
	EXPECT_EQ(0, check_table(rths_state_name_i, RTHS_STATE_FAULTED));
	EXPECT_EQ(0, check_table(rths_reason_name_i, RTHS_REASON_CPU_OFFLINE));
	EXPECT_EQ(0, check_table(rths_fault_name_i, RTHS_FAULT_CARD_IO));
	EXPECT_EQ(0, check_table(rths_clock_name_i, RTHS_CLOCK_MANUAL));
	EXPECT_EQ(0, check_table(rths_late_policy_name_i,
				 RTHS_LATE_EVENT_DRIVEN));
	EXPECT_EQ(0, check_table(rths_late_action_name_i, RTHS_LATE_FAULTED));
	EXPECT_EQ(0, check_table(rths_limit_name_i, RTHS_LIMIT_FORCE));
	EXPECT_EQ(0, check_table(rths_event_name_i, RTHS_EVENT_DEV_DEL));
	EXPECT_EQ(0, check_table(rths_ring_name_i, RTHS_RING_TRACE));
}

TEST(names_rthsctl_uses)
{
	EXPECT_STREQ("running", rths_state_name(RTHS_STATE_RUNNING));
	EXPECT_STREQ("owner-gone", rths_reason_name(RTHS_REASON_OWNER_GONE));
	EXPECT_STREQ("cpu-offline",
		     rths_reason_name(RTHS_REASON_CPU_OFFLINE));
	EXPECT_STREQ("event-driven",
		     rths_late_policy_name(RTHS_LATE_EVENT_DRIVEN));
	EXPECT_STREQ("manual", rths_clock_name(RTHS_CLOCK_MANUAL));
	EXPECT_STREQ("fb-index", rths_fault_name(RTHS_FAULT_FB_INDEX));
}

TEST(parse_inverts_name)
{
	int v;

	for (v = 1; v <= RTHS_LATE_EVENT_DRIVEN; v++)
		EXPECT_EQ(v, rths_late_policy_parse(rths_late_policy_name(v)));
	for (v = 1; v <= RTHS_CLOCK_MANUAL; v++)
		EXPECT_EQ(v, rths_clock_parse(rths_clock_name(v)));
}

TEST(parse_refuses_what_is_not_a_name)
{
	EXPECT_EQ(-EINVAL, rths_late_policy_parse(NULL));
	EXPECT_EQ(-EINVAL, rths_late_policy_parse(""));
	EXPECT_EQ(-EINVAL, rths_late_policy_parse("EVENT-DRIVEN"));
	EXPECT_EQ(-EINVAL, rths_late_policy_parse("event"));
	EXPECT_EQ(-EINVAL, rths_late_policy_parse("event-driven "));
	EXPECT_EQ(-EINVAL, rths_clock_parse("hold"));
	EXPECT_EQ(-EINVAL, rths_clock_parse("1"));
}

TEST_HARNESS_MAIN
