// SPDX-License-Identifier: GPL-2.0
/*
 * librths's one error convention: codes that never collide, a message and
 * a name for each, either sign, errno codes, unknown codes, the detail
 * carrier.
 */
/* the harness's own definitions trip these */
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rths/error.h>
#include <rths/hs_error.h>
#include <rths/ode.h>

#include "kselftest_harness.h"

/* The kernel's MAX_ERRNO: no errno is larger. */
#define ERRNO_MAX 4095

TEST(codes_start_above_errno)
{
	EXPECT_EQ(ERRNO_MAX + 1, RTHS_E_BASE);
	EXPECT_EQ(RTHS_E_BASE, RTHS_E_NONFINITE);
	EXPECT_LT(RTHS_E_BASE, RTHS_E__END);
	/* the largest errno glibc knows is far below the base */
	for (int e = 1; e <= ERRNO_MAX; e++)
		if (strerrorname_np(e))
			EXPECT_GT(RTHS_E_BASE, e);
}

TEST(every_code_has_its_own_message_and_name)
{
	for (int c = RTHS_E_BASE; c < RTHS_E__END; c++) {
		const char *m = rths_strerror(-c), *n = rths_strerror_name(-c);

		ASSERT_NE(NULL, m);
		ASSERT_NE(NULL, n);
		EXPECT_STRNE("unknown error", m) TH_LOG("code %d", c);
		EXPECT_STRNE("unknown-error", n) TH_LOG("code %d", c);
		/* names are for scripts: lower case, digits and dashes */
		EXPECT_EQ(strlen(n), strspn(n, "abcdefghijklmnopqrstuvwxyz0123456789-"))
			TH_LOG("name \"%s\"", n);
		for (int d = RTHS_E_BASE; d < c; d++) {
			EXPECT_STRNE(rths_strerror(-d), m) TH_LOG("%d and %d", d, c);
			EXPECT_STRNE(rths_strerror_name(-d), n)
				TH_LOG("%d and %d", d, c);
		}
		/* no name of ours is also an errno's */
		for (int e = 1; e <= ERRNO_MAX; e++)
			EXPECT_STRNE(rths_strerror_name(-e), n);
	}
}

TEST(either_sign)
{
	for (int c = RTHS_E_BASE; c < RTHS_E__END; c++) {
		EXPECT_EQ(rths_strerror(c), rths_strerror(-c));
		EXPECT_EQ(rths_strerror_name(c), rths_strerror_name(-c));
	}
	EXPECT_STREQ("hmin", rths_strerror_name(-RTHS_E_HMIN));
	EXPECT_STREQ("hmin", rths_strerror_name(RTHS_E_HMIN));
	EXPECT_STREQ("out-of-range", rths_strerror_name(-RTHS_E_OUT_OF_RANGE));
	EXPECT_STREQ(rths_strerror(ENOENT), rths_strerror(-ENOENT));
}

TEST(zero_is_success)
{
	EXPECT_STREQ("success", rths_strerror(0));
	EXPECT_STREQ("ok", rths_strerror_name(0));
}

TEST(errno_codes)
{
	EXPECT_STREQ("No such file or directory", rths_strerror(-ENOENT));
	EXPECT_STREQ("ENOENT", rths_strerror_name(-ENOENT));
	EXPECT_STREQ("EINVAL", rths_strerror_name(-EINVAL));
	EXPECT_STREQ("ENOMEM", rths_strerror_name(ENOMEM));
	EXPECT_STREQ("Cannot allocate memory", rths_strerror(-ENOMEM));
}

/* Unknown codes get fixed strings, not a buffer later calls overwrite. */
TEST(unknown_codes)
{
	const int unknown[] = { 1000, -1000, ERRNO_MAX, -ERRNO_MAX,
				RTHS_E__END, -RTHS_E__END, INT_MAX, INT_MIN,
				INT_MIN + 1 };
	const char *first = rths_strerror(1000);

	for (size_t i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++) {
		EXPECT_STREQ("unknown error", rths_strerror(unknown[i]))
			TH_LOG("code %d", unknown[i]);
		EXPECT_STREQ("unknown-error", rths_strerror_name(unknown[i]))
			TH_LOG("code %d", unknown[i]);
	}
	rths_strerror(-EACCES);
	EXPECT_STREQ("unknown error", first);
}

TEST(error_set_fills_and_returns_negative)
{
	struct rths_error e;
	char buf[1024];

	memset(&e, 0, sizeof(e));
	errno = EAGAIN;
	EXPECT_EQ(-RTHS_E_BAD_DOF,
		  rths_error_set(&e, RTHS_E_BAD_DOF, "x.json", 0, "model.dof",
				 "DOF %d of %d", 7, 3));
	EXPECT_EQ(EAGAIN, errno);
	EXPECT_EQ(-RTHS_E_BAD_DOF, e.code);
	EXPECT_STREQ("x.json", e.file);
	EXPECT_STREQ("model.dof", e.path);
	EXPECT_STREQ("x.json: model.dof: DOF 7 of 3 [bad-dof]",
		     rths_error_str(&e, buf, sizeof(buf)));

	/* a code returned earlier passes on unchanged */
	EXPECT_EQ(-RTHS_E_BAD_DOF,
		  rths_error_set(&e, e.code, "y.AT2", 4, NULL, "again"));
	EXPECT_EQ(-RTHS_E_BAD_DOF, e.code);
	EXPECT_STREQ("y.AT2:4: again [bad-dof]",
		     rths_error_str(&e, buf, sizeof(buf)));

	EXPECT_EQ(-ENOENT, rths_error_set(&e, ENOENT, "z", 0, NULL, "gone"));
	EXPECT_STREQ("z: gone [ENOENT]", rths_error_str(&e, buf, sizeof(buf)));

	/* a failure never reads as success, even when errno was 0 */
	EXPECT_EQ(-EIO, rths_error_set(&e, 0, NULL, 0, NULL, "write failed"));
	EXPECT_EQ(-EIO, e.code);
	EXPECT_EQ(-EIO, rths_error_set(NULL, 0, NULL, 0, NULL, "x"));
	EXPECT_EQ(-EINVAL, rths_error_set(NULL, -EINVAL, NULL, 0, NULL, "x"));
}

TEST(error_str_without_message_or_room)
{
	struct rths_error e = { .code = -RTHS_E_TOO_SLOW };
	char buf[256], tiny[8];

	EXPECT_STREQ("no integration step keeps up with real time [too-slow]",
		     rths_error_str(&e, buf, sizeof(buf)));
	rths_error_str(&e, tiny, sizeof(tiny));
	EXPECT_STREQ("no inte", tiny);
	EXPECT_EQ(&buf[0], rths_error_str(&e, buf, 0));
}

/* librths.rst's table lists every code with its value and name. */
TEST(documented)
{
	FILE *f = fopen(RTHS_DOC_DIR "/librths.rst", "r");
	char line[512], want[64];
	bool seen[RTHS_E__END - RTHS_E_BASE] = { false };

	ASSERT_NE(NULL, f);
	while (fgets(line, sizeof(line), f)) {
		for (int c = RTHS_E_BASE; c < RTHS_E__END; c++) {
			snprintf(want, sizeof(want), "  %d   ``%s``", c,
				 rths_strerror_name(c));
			if (strstr(line, want))
				seen[c - RTHS_E_BASE] = true;
		}
	}
	fclose(f);
	for (int c = RTHS_E_BASE; c < RTHS_E__END; c++) {
		EXPECT_TRUE(seen[c - RTHS_E_BASE])
			TH_LOG("librths.rst: no row for %d (%s)", c,
			       rths_strerror_name(c));
	}
}

TEST_HARNESS_MAIN
