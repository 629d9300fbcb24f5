// SPDX-License-Identifier: GPL-2.0
/*
 * An experiment run through the library: rths_hs_experiment_open_backend()
 * and rths_hs_experiment_run(), the calls rths-run, the Python package and
 * the MEX interface share.
 */
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include <errno.h>
#include <string.h>

#include "kselftest_harness.h"

#include <rths/hs.h>
#include <rths/hs_experiment.h>

#define FRAME RTHS_HS_EXAMPLES "/two-story-frame.json"
#define FRAME_SIM RTHS_HS_EXAMPLES "/two-story-frame-sim.json"

static struct rths_hs_experiment *load(const char *path, double duration)
{
	struct rths_hs_experiment *x = NULL;

	if (rths_hs_experiment_load(path, &x, NULL) < 0)
		return NULL;
	x->duration = duration;
	if (rths_hs_experiment_set_step(x, 4, NULL) < 0) {
		rths_hs_experiment_free(x);
		return NULL;
	}
	return x;
}

static bool same(const double *a, const double *b, size_t n)
{
	return !memcmp(a, b, n * sizeof(*a));
}

/* The one call gives the history the engine gives on the backend the
 * file names, bit for bit: it adds nothing of its own. */
TEST(run_is_the_engine_on_the_files_backend)
{
	struct rths_hs_experiment *x = load(FRAME, 1.0);
	struct rths_hs_history h = { 0 }, e = { 0 };
	struct rths_hs_run_result res, eres;
	struct rths_hs_backend_desc d;
	struct rths_hs_sim_config cfg;
	struct rths_hs_backend b;
	struct rths_error err = { 0 };

	ASSERT_NE(NULL, x);
	ASSERT_EQ(0, rths_hs_experiment_run(x, 0, NULL, &h, &res, &err));
	EXPECT_EQ(0, res.error);
	EXPECT_EQ(res.steps_planned, res.steps_done);
	EXPECT_EQ(res.steps_done + 1, h.rows);

	ASSERT_EQ(0, rths_hs_experiment_open_backend(x, 0, NULL, &b, &d,
						     &err));
	EXPECT_STREQ("offline", d.backend);
	EXPECT_NE(NULL, strstr(d.actuator, "modelled like the sim card"));
	rths_hs_experiment_sim_config(x, &cfg);
	cfg.backend = &b;
	ASSERT_EQ(0, rths_hs_sim_run(&cfg, &e, &eres, &err));
	rths_hs_backend_close(&b);

	ASSERT_EQ(h.rows, e.rows);
	EXPECT_TRUE(same(h.u, e.u, h.rows * h.n_dof));
	EXPECT_TRUE(same(h.force, e.force, h.rows * h.n_act));
	EXPECT_TRUE(same(h.command, e.command, h.rows * h.n_act));
	rths_hs_history_free(&h);
	rths_hs_history_free(&e);
	rths_hs_experiment_free(x);
}

/* A file that names a device runs offline on request; without the
 * request and with no rths module here it fails, saying so, with
 * nothing in the history. */
TEST(offline_flag_overrides_the_device)
{
	struct rths_hs_experiment *x = load(FRAME_SIM, 0.5);
	struct rths_hs_history h = { 0 };
	struct rths_hs_run_result res;
	struct rths_error err = { 0 };
	int r;

	ASSERT_NE(NULL, x);
	ASSERT_EQ(0, rths_hs_experiment_run(x, RTHS_HS_RUN_OFFLINE, NULL, &h,
					    &res, &err));
	EXPECT_EQ(res.steps_planned, res.steps_done);
	EXPECT_LT(1, h.rows);
	rths_hs_history_free(&h);

	memset(&h, 0, sizeof(h));
	if (access("/sys/module/rths", F_OK) == 0)
		SKIP(goto out, "the rths module is loaded on this machine");
	r = rths_hs_experiment_run(x, 0, NULL, &h, &res, &err);
	EXPECT_GT(0, r);
	EXPECT_EQ(r, err.code);
	EXPECT_NE(0, err.msg[0]);
	EXPECT_EQ(0, h.rows);
out:
	rths_hs_history_free(&h);
	rths_hs_experiment_free(x);
}

/* An experiment with no specimen runs with no backend, and has none to
 * open. */
TEST(all_numerical_runs_without_a_backend)
{
	static const char text[] =
		"{ \"name\": \"numerical\","
		"  \"model\": { \"type\": \"shear_building\","
		"    \"stories\": [ { \"mass\": 1000, \"stiffness\": 1e6 } ],"
		"    \"damping\": { \"type\": \"rayleigh\", \"ratio\": 0.05,"
		"                   \"modes\": [1, 1] } },"
		"  \"ground_motion\": { \"synthetic\": { \"seed\": 1,"
		"    \"duration\": 1, \"pga_g\": 0.1,"
		"    \"ground_frequency\": 2 } },"
		"  \"integrator\": { \"method\": \"cr\", \"dt\": 0.00390625 } }";
	struct rths_hs_experiment *x = NULL;
	struct rths_hs_history h = { 0 };
	struct rths_hs_run_result res;
	struct rths_error err = { 0 };
	struct rths_hs_backend b;

	ASSERT_EQ(0, rths_hs_experiment_parse(text, "numerical.json", ".", &x,
					      &err)) {
		TH_LOG("%s", err.msg);
	}
	ASSERT_EQ(0, rths_hs_experiment_run(x, RTHS_HS_RUN_OFFLINE, NULL, &h,
					    &res, &err));
	EXPECT_EQ(0, h.n_act);
	EXPECT_EQ(res.steps_planned + 1, h.rows);
	EXPECT_EQ(-EINVAL, rths_hs_experiment_open_backend(x, 0, NULL, &b,
							   NULL, &err));
	EXPECT_NE(NULL, strstr(err.msg, "all-numerical"));
	rths_hs_history_free(&h);
	rths_hs_experiment_free(x);
}

/* Flags it does not know are refused, not ignored. */
TEST(unknown_flags_are_refused)
{
	struct rths_hs_experiment *x = load(FRAME, 0.5);
	struct rths_hs_history h = { 0 };
	struct rths_hs_run_result res;
	struct rths_error err = { 0 };

	ASSERT_NE(NULL, x);
	EXPECT_EQ(-EINVAL, rths_hs_experiment_run(x, 0x80, NULL, &h, &res,
						  &err));
	EXPECT_NE(NULL, strstr(err.msg, "0x80"));
	EXPECT_EQ(0, h.rows);
	EXPECT_EQ(-EINVAL, rths_hs_experiment_run(NULL, 0, NULL, &h, &res,
						  &err));
	rths_hs_experiment_free(x);
}

TEST_HARNESS_MAIN
