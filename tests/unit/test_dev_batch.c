// SPDX-License-Identifier: GPL-2.0
/*
 * rthsctl -b FILE without the kernel: what rc_batch_load keeps of a good
 * file, and that a bad line anywhere fails the whole file with
 * "FILE:LINE: ..." (so nothing is applied); the -b option.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "kselftest_harness.h"
#include "../../tools/rthsctl/batch.h"

/* Load @text as the file "t.conf". */
static int load(const char *text, struct rc_batch *b, struct rc_err *e)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int ret;

	if (!f)
		return -errno;
	ret = rc_batch_load(f, "t.conf", b, e);
	fclose(f);
	return ret;
}

static bool starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

TEST(good_file)
{
	struct rc_batch b;
	struct rc_err e;

	ASSERT_EQ(0, load("# the lab's rigs\n"
			  "\n"
			  "dev add rig0 type sim channels 1   # one actuator\n"
			  "   dev set rig0 rate 2048 plant benchmark:ke=1e5\n"
			  "dev add \"rig 1\" type comedi channels 1 device /dev/comedi0\n"
			  "dev del old\n"
			  "dev set rig0 limit 0 stroke -50mm 50mm\n", &b, &e)) {
		TH_LOG("%s", e.msg);
	}
	ASSERT_EQ(5, b.n);
	EXPECT_EQ(3, b.lines[0].lineno);
	EXPECT_EQ(RC_BATCH_ADD, b.lines[0].op);
	EXPECT_STREQ("rig0", b.lines[0].name);
	EXPECT_STREQ("sim", b.lines[0].card);
	EXPECT_EQ(4, b.lines[1].lineno);
	EXPECT_EQ(RC_BATCH_SET, b.lines[1].op);
	EXPECT_EQ(2048, b.lines[1].rate);
	EXPECT_TRUE(b.lines[1].plant);
	/* quotes group words; the comment is not a word */
	EXPECT_STREQ("rig 1", b.lines[2].name);
	EXPECT_STREQ("comedi", b.lines[2].card);
	EXPECT_EQ(8, b.lines[2].argc);	/* add NAME type CARD channels N device DEV */
	EXPECT_EQ(RC_BATCH_DEL, b.lines[3].op);
	EXPECT_STREQ("old", b.lines[3].name);
	EXPECT_EQ(7, b.lines[4].lineno);
	EXPECT_STREQ("set", b.lines[4].argv[0]);
	rc_batch_free(&b);
}

/* /etc/rths/devices.conf as installed: comments only, nothing to do. */
TEST(comments_only)
{
	struct rc_batch b;
	struct rc_err e;

	ASSERT_EQ(0, load("# nothing\n\n   # at all\n", &b, &e));
	EXPECT_EQ(0, b.n);
	rc_batch_free(&b);
	ASSERT_EQ(0, load("", &b, &e));
	EXPECT_EQ(0, b.n);
	rc_batch_free(&b);
}

TEST(delete_then_add_again)
{
	struct rc_batch b;
	struct rc_err e;

	ASSERT_EQ(0, load("dev add r type sim channels 1\n"
			  "dev del r\n"
			  "dev add r type sim channels 2\n", &b, &e));
	EXPECT_EQ(3, b.n);
	rc_batch_free(&b);
}

/* Each bad file fails whole, naming its line. */
static const struct {
	const char *text, *msg;
} bad[] = {
	{ "dev add r type sim channels 1\ndev set r rate 2048 bogus 3\n",
	  "t.conf:2: [field] unknown dev set keyword \"bogus\"" },
	{ "dev add r type sim channels 0\n", "t.conf:1: [value] " },
	{ "# comment\ndev add r type sim channels 1\ndev add r type sim channels 1\n",
	  "t.conf:3: [value] dev add r: line 2 added it already" },
	{ "dev del r\ndev set r rate 100\n",
	  "t.conf:2: [value] dev set r: an earlier line deleted it" },
	{ "dev add c type comedi channels 1 device /dev/comedi0\ndev set c plant benchmark\n",
	  "t.conf:2: [value] dev set c: plant: only the sim card has one, line 1 made it a comedi device" },
	{ "dev add r type sim channels 1\ndev set r plant benchmark:nokey=1\n",
	  "t.conf:2: [field] " },
	{ "dev show\n", "t.conf:1: [field] unknown dev command in a batch \"show\"" },
	{ "run start r\n", "t.conf:1: [field] unknown object in a batch" },
	{ "dev\n", "t.conf:1: [value] dev: missing command" },
	{ "dev del a b\n", "t.conf:1: [value] dev del: too many arguments" },
	{ "dev add \"r type sim channels 1\n", "t.conf:1: [syntax] unterminated quote" },
};

TEST(bad_files)
{
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct rc_batch b = { .n = 99 };
		struct rc_err e = { "" };

		EXPECT_EQ(-EINVAL, load(bad[i].text, &b, &e));
		EXPECT_TRUE(starts(e.msg, bad[i].msg)) {
			TH_LOG("file %u: \"%s\", want \"%s...\"", i, e.msg,
			       bad[i].msg);
		}
		/* nothing kept */
		EXPECT_EQ(0, b.n);
		EXPECT_EQ(NULL, b.lines);
	}
}

TEST(option)
{
	char *argv[] = { "rthsctl", "-j", "-b", "f.conf", "-p", NULL };
	char *no[] = { "rthsctl", "dev", "show", NULL };
	char *missing[] = { "rthsctl", "--batch", NULL };
	const char *file;
	struct rc_err e;
	int argc = 5;

	ASSERT_EQ(0, rc_batch_option(&argc, argv, &file, &e));
	EXPECT_STREQ("f.conf", file);
	ASSERT_EQ(3, argc);
	EXPECT_STREQ("-j", argv[1]);
	EXPECT_STREQ("-p", argv[2]);
	argc = 3;
	ASSERT_EQ(0, rc_batch_option(&argc, no, &file, &e));
	EXPECT_EQ(NULL, file);
	EXPECT_EQ(3, argc);
	argc = 2;
	EXPECT_EQ(-EINVAL, rc_batch_option(&argc, missing, &file, &e));
	EXPECT_STREQ("--batch: missing FILE (\"-\" for standard input)", e.msg);
}

TEST_HARNESS_MAIN
