// SPDX-License-Identifier: GPL-2.0
/*
 * The experiment file's "realtime" section: its defaults (on for the
 * device backend, off offline), every field read, and each malformed
 * field an error naming the file and the field.
 */
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "kselftest_harness.h"

#include <rths/hs_experiment.h>

#define TWO_STORIES \
	"\"model\": { \"type\": \"shear_building\", \"stories\": [" \
	" { \"mass\": 1000, \"stiffness\": 1.19e6 }," \
	" { \"mass\": 1000, \"stiffness\": 1.0e6 } ] }"

static int parse_with(struct rths_hs_experiment **x, const char *tail,
		      struct rths_error *err)
{
	char text[2048];

	snprintf(text, sizeof(text), "{ " TWO_STORIES "%s }", tail);
	memset(err, 0, sizeof(*err));
	return rths_hs_experiment_parse(text, "inline.json", RTHS_HS_TESTDATA,
					x, err);
}

TEST(defaults_on_for_the_device_off_offline)
{
	struct rths_hs_experiment *x = NULL;
	struct rths_error err;

	ASSERT_EQ(0, parse_with(&x, ", \"device\": { \"backend\": \"device\" }",
				&err)) TH_LOG("%s", err.msg);
	EXPECT_TRUE(x->realtime.enabled);
	EXPECT_TRUE(x->realtime.lock_memory);
	EXPECT_FALSE(x->realtime.required);
	EXPECT_EQ(RTHS_RT_PRIORITY_DEFAULT, x->realtime.priority);
	EXPECT_GT(RTHS_HS_LOOP_PRIORITY_DEFAULT, x->realtime.priority);
	EXPECT_EQ(RTHS_RT_CPU_AUTO, x->realtime.cpu);
	EXPECT_EQ(512, x->realtime.stack_kib);
	EXPECT_EQ(16384, x->realtime.heap_kib);
	rths_hs_experiment_free(x);
	ASSERT_EQ(0, parse_with(&x, ", \"device\": { \"backend\": \"offline\" }",
				&err)) TH_LOG("%s", err.msg);
	EXPECT_FALSE(x->realtime.enabled);
	rths_hs_experiment_free(x);
	ASSERT_EQ(0, parse_with(&x, "", &err)) TH_LOG("%s", err.msg);
	EXPECT_FALSE(x->realtime.enabled);
	rths_hs_experiment_free(x);
	/* asked for offline: applied */
	ASSERT_EQ(0, parse_with(&x, ", \"realtime\": { \"enabled\": true }",
				&err)) TH_LOG("%s", err.msg);
	EXPECT_TRUE(x->realtime.enabled);
	rths_hs_experiment_free(x);
}

TEST(every_field_is_read)
{
	struct rths_hs_experiment *x = NULL;
	struct rths_error err;

	ASSERT_EQ(0, parse_with(&x, ", \"device\": { \"backend\": \"device\","
				" \"priority\": 90, \"cpu\": 0 },"
				" \"realtime\": { \"enabled\": true, \"priority\": 89,"
				" \"cpu\": 1, \"lock_memory\": false, \"required\": true,"
				" \"stack_kib\": 64, \"heap_kib\": 0 }",
				&err)) TH_LOG("%s", err.msg);
	EXPECT_TRUE(x->realtime.enabled);
	EXPECT_EQ(89, x->realtime.priority);
	EXPECT_EQ(1, x->realtime.cpu);
	EXPECT_FALSE(x->realtime.lock_memory);
	EXPECT_TRUE(x->realtime.required);
	EXPECT_EQ(64, x->realtime.stack_kib);
	EXPECT_EQ(0, x->realtime.heap_kib);
	rths_hs_experiment_free(x);
	ASSERT_EQ(0, parse_with(&x, ", \"device\": { \"backend\": \"device\" },"
				" \"realtime\": { \"cpu\": \"auto\", \"enabled\": false,"
				" \"priority\": 99 }",
				&err)) TH_LOG("%s", err.msg);
	/* off: its priority need not be below the loop's */
	EXPECT_FALSE(x->realtime.enabled);
	EXPECT_EQ(RTHS_RT_CPU_AUTO, x->realtime.cpu);
	rths_hs_experiment_free(x);
}

TEST(malformed_fields_name_file_and_field)
{
	static const struct {
		const char *tail, *path;
		int code;
	} cases[] = {
		{ ", \"realtime\": 5", "realtime", RTHS_E_WRONG_TYPE },
		{ ", \"realtime\": { \"priority\": 0 }", "realtime.priority",
		  RTHS_E_OUT_OF_RANGE },
		{ ", \"realtime\": { \"priority\": 100 }", "realtime.priority",
		  RTHS_E_OUT_OF_RANGE },
		{ ", \"realtime\": { \"priority\": 7.5 }", "realtime.priority",
		  RTHS_E_WRONG_TYPE },
		{ ", \"realtime\": { \"cpu\": \"any\" }", "realtime.cpu",
		  RTHS_E_BAD_CHOICE },
		{ ", \"realtime\": { \"cpu\": -1 }", "realtime.cpu",
		  RTHS_E_OUT_OF_RANGE },
		{ ", \"realtime\": { \"cpu\": true }", "realtime.cpu",
		  RTHS_E_WRONG_TYPE },
		{ ", \"realtime\": { \"enabled\": 1 }", "realtime.enabled",
		  RTHS_E_WRONG_TYPE },
		{ ", \"realtime\": { \"lock_memory\": \"yes\" }",
		  "realtime.lock_memory", RTHS_E_WRONG_TYPE },
		{ ", \"realtime\": { \"required\": null }", "realtime.required",
		  RTHS_E_WRONG_TYPE },
		{ ", \"realtime\": { \"stack_kib\": 65537 }",
		  "realtime.stack_kib", RTHS_E_OUT_OF_RANGE },
		{ ", \"realtime\": { \"heap_kib\": -4 }", "realtime.heap_kib",
		  RTHS_E_OUT_OF_RANGE },
		{ ", \"realtime\": { \"prio\": 60 }", "realtime.prio",
		  RTHS_E_UNKNOWN_FIELD },
		/* the step thread must not preempt the kernel loop */
		{ ", \"device\": { \"backend\": \"device\" },"
		  " \"realtime\": { \"priority\": 80 }", "realtime.priority",
		  RTHS_E_CONFLICT },
		{ ", \"device\": { \"backend\": \"device\", \"priority\": 50 },"
		  " \"realtime\": { \"priority\": 60 }", "realtime.priority",
		  RTHS_E_CONFLICT },
		{ ", \"device\": { \"backend\": \"device\", \"cpu\": 1 },"
		  " \"realtime\": { \"cpu\": 1 }", "realtime.cpu",
		  RTHS_E_CONFLICT },
	};
	struct rths_hs_experiment *x = NULL;
	struct rths_error err;
	char msg[1024];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		EXPECT_EQ(-cases[i].code, parse_with(&x, cases[i].tail, &err))
			TH_LOG("%s: %s", cases[i].path, err.msg);
		EXPECT_EQ(NULL, x);
		EXPECT_STREQ(cases[i].path, err.path) TH_LOG("%s", err.msg);
		EXPECT_STREQ("inline.json", err.file);
		rths_error_str(&err, msg, sizeof(msg));
		EXPECT_EQ(0, strncmp(msg, "inline.json: realtime", 21))
			TH_LOG("%s", msg);
	}
}

TEST_HARNESS_MAIN
