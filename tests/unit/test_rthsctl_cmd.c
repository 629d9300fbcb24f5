// SPDX-License-Identifier: GPL-2.0
/*
 * rthsctl's command tables: ip's prefixes (the first entry in table order
 * that a word begins), and the error messages of the parser that issue 20
 * found cut or unclosed.
 */
#include <string.h>

#include "kselftest_harness.h"
#include "../../tools/rthsctl/rthsctl.h"

static const struct rc_cmd run_cmds[] = {
	{ "start", NULL }, { "stop", NULL }, { "tick", NULL }, { "hold", NULL },
	{ "help", NULL }, { NULL, NULL }
};

static const char *find(const char *word)
{
	static struct rc_err e;
	const struct rc_cmd *c = rc_cmd_find(word, run_cmds, "run command", &e);

	return c ? c->name : e.msg;
}

TEST(exact_names_win_then_the_first_prefix)
{
	EXPECT_STREQ("stop", find("stop"));
	EXPECT_STREQ("start", find("st"));	/* table order, as ip */
	EXPECT_STREQ("start", find("s"));
	EXPECT_STREQ("stop", find("sto"));
	EXPECT_STREQ("hold", find("ho"));
	EXPECT_STREQ("help", find("he"));
	EXPECT_STREQ("hold", find("h"));
	EXPECT_STREQ("unknown run command \"go\"; valid: start stop tick hold help",
		     find("go"));
	/* an empty word is no prefix of everything */
	EXPECT_STREQ("unknown run command \"\"; valid: start stop tick hold help",
		     find(""));
	EXPECT_STREQ("unknown run command \"starts\"; valid: start stop tick hold help",
		     find("starts"));
}

TEST(the_valid_list_is_whole)
{
	struct rc_dev_add a;
	struct rc_err e;
	char *argv[] = { "r", "type", "sim", "channels", "1", "lagg", "1", NULL };
	const char *end;

	EXPECT_NE(0, rc_parse_dev_add(7, argv, &a, &e));
	/* the last keyword of the list, not a cut */
	end = e.msg + strlen(e.msg) - strlen(" offset-force");
	EXPECT_STREQ(" offset-force", end);
}

TEST(a_suffix_message_closes_its_parenthesis)
{
	struct rc_err e;
	uint32_t v;

	EXPECT_NE(0, rc_parse_u32("rate", "10kHz", "Hz", &v, &e));
	EXPECT_STREQ("rate: \"10kHz\" is not a non-negative integer (optionally followed by Hz)",
		     e.msg);
}

TEST_HARNESS_MAIN
