// SPDX-License-Identifier: GPL-2.0
/*
 * device.actuator.plant in the experiment file, and the offline backend
 * running the sim card's integer plant in place of the lag.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "kselftest_harness.h"
#include "rths/hs_experiment.h"
#include "rths/hs_sim.h"
#include "rths/sim_plant.h"

#define HEAD \
	"{ \"model\": { \"type\": \"shear_building\", \"stories\": [" \
	" { \"mass\": 1000, \"stiffness\": 1.19e6 }," \
	" { \"mass\": 1000, \"stiffness\": 1e6 } ] }," \
	" \"substructure\": { \"experimental_stories\": [0] }," \
	" \"specimen\": { \"stiffness\": 1.19e6 }," \
	" \"device\": { \"rate\": 4096, \"actuator\": { \"plant\": "

static int parse(struct rths_hs_experiment **x, const char *plant,
		 struct rths_error *err)
{
	char text[2048];

	snprintf(text, sizeof(text), HEAD "%s } } }", plant);
	memset(err, 0, sizeof(*err));
	return rths_hs_experiment_parse(text, "inline", ".", x, err);
}

TEST(benchmark_preset_is_designed_at_the_rate)
{
	struct rths_benchmark_plant bp;
	struct rths_sim_params want = { 0 };
	struct rths_hs_experiment *x = NULL;
	double num[1], den[6];
	struct rths_error err;

	ASSERT_EQ(0, parse(&x, "\"benchmark\"", &err)) TH_LOG("%s", err.msg);
	EXPECT_STREQ("benchmark", x->plant_name);
	EXPECT_EQ(RTHS_SIM_PLANT, x->plant.set);
	rths_benchmark_plant_nominal(&bp);
	ASSERT_EQ(0, rths_benchmark_plant_tf(&bp, num, den, &err));
	ASSERT_EQ(0, rths_sim_plant_design(num, 1, den, 6, 4096, 0, &want,
					   &err));
	ASSERT_EQ(want.plant_sections, x->plant.plant_sections);
	EXPECT_EQ(0, memcmp(want.plant, x->plant.plant, sizeof(want.plant)));
	rths_hs_experiment_free(x);

	/* perturbed: a stiffer specimen is another plant */
	ASSERT_EQ(0, parse(&x, "{ \"preset\": \"benchmark\", \"ke\": 1.428e6,"
			   " \"b1\": 510 }", &err)) TH_LOG("%s", err.msg);
	EXPECT_EQ(3, x->plant.plant_sections);
	EXPECT_NE(0, memcmp(want.plant, x->plant.plant, sizeof(want.plant)));
	rths_hs_experiment_free(x);
}

TEST(transfer_function_and_its_errors)
{
	struct rths_hs_experiment *x = NULL;
	struct rths_error err;

	ASSERT_EQ(0, parse(&x, "{ \"num\": [1], \"den\": [0.004, 1],"
			   " \"prewarp\": 10 }", &err)) TH_LOG("%s", err.msg);
	EXPECT_STREQ("transfer function", x->plant_name);
	EXPECT_EQ(1, x->plant.plant_sections);
	rths_hs_experiment_free(x);
	x = NULL;

	EXPECT_EQ(-RTHS_E_BAD_CHOICE, parse(&x, "\"bench\"", &err));
	EXPECT_STREQ("device.actuator.plant", err.path);
	EXPECT_EQ(NULL, x);
	EXPECT_EQ(-EDOM, parse(&x, "{ \"num\": [1], \"den\": [1, -3] }", &err));
	EXPECT_STREQ("device.actuator.plant", err.path);
	EXPECT_NE(NULL, strstr(err.msg, "only stable plants"));
	EXPECT_EQ(-RTHS_E_CONFLICT, parse(&x, "{ \"preset\": \"benchmark\","
					 " \"num\": [1] }", &err));
	EXPECT_EQ(-RTHS_E_MISSING_FIELD, parse(&x, "{ \"num\": [1] }", &err));
	EXPECT_EQ(-RTHS_E_OUT_OF_RANGE,
		  parse(&x, "{ \"preset\": \"benchmark\", \"ke\": -1 }", &err));
	EXPECT_STREQ("device.actuator.plant.ke", err.path);
	EXPECT_EQ(-RTHS_E_UNKNOWN_FIELD,
		  parse(&x, "{ \"preset\": \"benchmark\", \"k\": 1 }", &err));
}

/* The offline backend's strokes are the card's integer recursion of the
 * commands, to the nm (no delay, one tick a step, no noise). */
TEST(offline_backend_runs_the_card_recursion)
{
	struct rths_hs_experiment *x = NULL;
	struct rths_hs_offline_params op;
	struct rths_sim_plant_state st;
	struct rths_hs_backend b;
	struct rths_hs_feedback fb;
	struct rths_error err;
	double far = 0;

	ASSERT_EQ(0, parse(&x, "\"benchmark\"", &err)) TH_LOG("%s", err.msg);
	rths_hs_experiment_offline_params(x, &op);
	op.step_ticks = 1;
	op.delay_ticks = 0;
	op.noise_disp = op.noise_force = 0;
	ASSERT_EQ(0, rths_hs_offline_open(&b, &op, &err));
	ASSERT_EQ(0, rths_hs_backend_set_plant(&b, &x->plant, &err));
	ASSERT_EQ(0, rths_hs_backend_start(&b, &err));
	rths_sim_plant_reset(&st, 0);
	for (uint64_t n = 1; n <= 2000; n++) {
		double target = 1e-3 * sin(2 * M_PI * 5 * n / 4096.0);
		int64_t want;

		ASSERT_EQ(0, rths_hs_backend_post(&b, n, &target, &err));
		ASSERT_EQ(0, rths_hs_backend_wait(&b, n, &fb, &err));
		want = rths_sim_plant_tick(&x->plant, &st,
					   (int64_t)llround(target * 1e9));
		ASSERT_EQ(want, (int64_t)llround(fb.disp[0] * 1e9));
		far = fmax(far, fabs(fb.disp[0] - target));
	}
	/* the plant lags a 5 Hz command by about 25 ms: far from it */
	EXPECT_LT(1e-4, far);
	/* a plant is set before start */
	EXPECT_EQ(-EBUSY, rths_hs_backend_set_plant(&b, &x->plant, &err));
	rths_hs_backend_close(&b);
	rths_hs_experiment_free(x);
}

/* The benchmark example: the plant at 4096 Hz, El Centro at 40 %. */
TEST(benchmark_example_loads)
{
	struct rths_hs_experiment *x = NULL;
	struct rths_error err = { 0 };

	ASSERT_EQ(0, rths_hs_experiment_load(RTHS_HS_EXAMPLES
					     "/benchmark/three-story.json",
					     &x, &err)) TH_LOG("%s", err.msg);
	EXPECT_STREQ("benchmark", x->plant_name);
	EXPECT_EQ(3, x->plant.plant_sections);
	EXPECT_EQ(4096, x->device.rate);
	EXPECT_EQ(3, x->model.n);
	rths_hs_experiment_free(x);
}

/* The preview counts the exchange with the backend in every step: at
 * 2 ms a step and 1024 Hz, d = 1 and d = 2 cannot keep up whatever the
 * compute costs, so it no longer picks d = 1. */
TEST(preview_counts_the_exchange)
{
	struct rths_hs_experiment *x = NULL;
	struct rths_hs_preview_params pp;
	struct rths_hs_preview_result pr;
	struct rths_hs_sim_config cfg;
	struct rths_hs_offline_params op;
	struct rths_hs_backend b;
	struct rths_error err;
	double mean = -1, max = -1;

	ASSERT_EQ(0, parse(&x, "\"benchmark\"", &err)) TH_LOG("%s", err.msg);
	x->duration = 2;
	rths_hs_experiment_sim_config(x, &cfg);
	rths_hs_preview_defaults(&pp);
	pp.rate = 1024;
	ASSERT_EQ(0, rths_hs_preview_exchange(&cfg, &pp, 2e-3, &pr, &err))
		TH_LOG("%s", err.msg);
	EXPECT_LE(3, pr.chosen);
	ASSERT_LE(3, pr.n_rows);
	EXPECT_FALSE(pr.rows[0].fits);
	EXPECT_FALSE(pr.rows[1].fits);
	/* at least the exchange: 2048 steps of 2 ms at d = 1 */
	EXPECT_LE(2048 * 2e-3, pr.rows[0].compute);
	EXPECT_EQ(-EINVAL, rths_hs_preview_exchange(&cfg, &pp, -1, &pr, &err));

	/* the round trip on an offline backend: measured, then stopped */
	rths_hs_experiment_offline_params(x, &op);
	ASSERT_EQ(0, rths_hs_offline_open(&b, &op, &err));
	ASSERT_EQ(0, rths_hs_backend_round_trip(&b, 64, &mean, &max, &err));
	EXPECT_LE(0, mean);
	EXPECT_LE(mean, max);
	EXPECT_TRUE(isfinite(max));
	EXPECT_EQ(-EINVAL, rths_hs_backend_round_trip(&b, 0, &mean, &max,
						      &err));
	rths_hs_backend_close(&b);
	rths_hs_experiment_free(x);
}

TEST_HARNESS_MAIN
