// SPDX-License-Identifier: GPL-2.0
/*
 * The log rate limiter (tools/net/ratelimit.c): identical lines within a
 * window are held back and counted, the count is logged once the window
 * is over, distinct lines pass, and a loop of a few lines is limited too.
 */
#include <stdio.h>
#include <string.h>

#include "kselftest_harness.h"
#include "ratelimit.h"

#define S 1000000000LL

TEST(first_line_passes_repeats_are_held)
{
	struct ratelimit rl = { 0 };
	char note[512];

	EXPECT_EQ(1, ratelimit_line(&rl, "ERROR device", 1 * S, note,
				    sizeof(note)));
	EXPECT_STREQ("", note);
	for (int i = 0; i < 1204; i++)
		EXPECT_EQ(0, ratelimit_line(&rl, "ERROR device",
					    1 * S + i * (S / 200), note,
					    sizeof(note)));
	/* the window (10 s) is over: the count, then the line again */
	EXPECT_EQ(1, ratelimit_line(&rl, "ERROR device", 12 * S, note,
				    sizeof(note)));
	EXPECT_NE(NULL, strstr(note, "\"ERROR device\" repeated 1,204 times in 6.0"));
	EXPECT_EQ(0, ratelimit_flush(&rl, 12 * S, note, sizeof(note)));
}

TEST(distinct_lines_pass)
{
	struct ratelimit rl = { 0 };
	char note[512], line[32];

	for (int i = 0; i < 100; i++) {
		snprintf(line, sizeof(line), "step %d", i);
		EXPECT_EQ(1, ratelimit_line(&rl, line, S + i, note,
					    sizeof(note)));
		EXPECT_STREQ("", note);
	}
}

TEST(a_loop_of_three_lines_is_limited)
{
	static const char *const loop[] = {
		"the site is at step 0: replaying",
		"ERROR device: refused",
		"reconnecting",
	};
	struct ratelimit rl = { 0 };
	char note[512];
	int passed = 0, notes = 0;

	for (int i = 0; i < 3000; i++)
		passed += ratelimit_line(&rl, loop[i % 3], S + i * 1000000LL,
					 note, sizeof(note));
	EXPECT_EQ(3, passed);
	while (ratelimit_flush(&rl, 4 * S, note, sizeof(note))) {
		notes++;
		EXPECT_NE(NULL, strstr(note, "repeated 999 times"));
		ASSERT_LE(notes, RATELIMIT_SLOTS);
	}
	EXPECT_EQ(3, notes);
}

TEST(an_evicted_line_gives_its_count)
{
	struct ratelimit rl = { 0 };
	char note[512], line[32];
	int with_note = 0;

	ratelimit_line(&rl, "flood", S, note, sizeof(note));
	EXPECT_EQ(0, ratelimit_line(&rl, "flood", S + 1, note, sizeof(note)));
	/* RATELIMIT_SLOTS new lines: "flood" is the oldest, so it goes */
	for (int i = 0; i < RATELIMIT_SLOTS; i++) {
		snprintf(line, sizeof(line), "other %d", i);
		EXPECT_EQ(1, ratelimit_line(&rl, line, 2 * S + i, note,
					    sizeof(note)));
		if (note[0]) {
			with_note++;
			EXPECT_STREQ("\"flood\" repeated 1 time in 1 s", note);
		}
	}
	EXPECT_EQ(1, with_note);
	EXPECT_EQ(0, ratelimit_flush(&rl, 3 * S, note, sizeof(note)));
}

TEST(a_short_window)
{
	struct ratelimit rl = { .window = S / 10 };
	char note[512];

	EXPECT_EQ(1, ratelimit_line(&rl, "x", S, note, sizeof(note)));
	EXPECT_EQ(0, ratelimit_line(&rl, "x", S + S / 20, note, sizeof(note)));
	EXPECT_EQ(1, ratelimit_line(&rl, "x", S + S / 5, note, sizeof(note)));
	EXPECT_STREQ("\"x\" repeated 1 time in 1 s", note);
}

TEST_HARNESS_MAIN
