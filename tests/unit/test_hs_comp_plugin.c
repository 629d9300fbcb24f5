// SPDX-License-Identifier: GPL-2.0
/*
 * Compensator plug-ins (rths/hs_plugin.h): the polynomial plug-in of
 * examples/plugin gives the built-in "polynomial" history bit for bit
 * through an experiment file; the registry's checks; a plug-in's failure
 * or a non-finite command ends the run with an error naming it.
 */
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include <libgen.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"

#include <rths/hs.h>
#include <rths/hs_plugin.h>

/* An offline 2-story frame, its compensation section given. */
#define EXPERIMENT(compensation) \
	"{ \"model\": { \"type\": \"shear_building\", \"stories\": [" \
	" { \"mass\": 800, \"stiffness\": 9e5, \"nonlinear\":" \
	"   { \"type\": \"bouc_wen\", \"yield_force\": 2500 } }," \
	" { \"mass\": 800, \"stiffness\": 7e5 } ]," \
	"  \"damping\": { \"type\": \"rayleigh\", \"ratio\": 0.03 } }," \
	"  \"substructure\": { \"experimental_stories\": [0] }," \
	"  \"device\": { \"backend\": \"offline\", \"step_ticks\": 4," \
	"     \"actuator\": { \"lag\": 0.004, \"delay_ticks\": 6 } }," \
	"  \"compensation\": " compensation "," \
	"  \"ground_motion\": { \"synthetic\": { \"duration\": 4," \
	"     \"pga_g\": 0.5, \"rise\": 0.5, \"strong\": 2 } }," \
	"  \"integrator\": { \"method\": \"cr\" } }"

static char so_dir_buf[4096];

/* The folder of the example's poly_comp.so. */
static const char *so_dir(void)
{
	snprintf(so_dir_buf, sizeof(so_dir_buf), "%s", RTHS_HS_COMP_PLUGIN_SO);
	return dirname(so_dir_buf);
}

static int load(const char *text, struct rths_hs_experiment **x,
		struct rths_error *err)
{
	return rths_hs_experiment_parse(text, "inline.json", so_dir(), x, err);
}

static int run(const char *text, struct rths_hs_history *h,
	       struct rths_hs_run_result *res, struct rths_error *err)
{
	struct rths_hs_experiment *x = NULL;
	int r = load(text, &x, err);

	if (r == 0)
		r = rths_hs_experiment_run(x, 0, NULL, h, res, err);
	rths_hs_experiment_free(x);
	return r;
}

#define SAME(field, width) \
	EXPECT_EQ(0, memcmp(a.field, b.field, \
			    a.rows * (width) * sizeof(*a.field))) \
		TH_LOG("%s differs", #field)

TEST(poly_plugin_equals_polynomial_bit_for_bit)
{
	struct rths_hs_history a = { 0 }, b = { 0 }, c = { 0 };
	struct rths_hs_run_result res;
	struct rths_error err = { 0 };

	for (int order = 1; order <= 3; order++) {
		char ta[4096], tb[4096];

		snprintf(ta, sizeof(ta), EXPERIMENT(
			"{ \"method\": \"polynomial\", \"order\": %d, \"delay\": 0.0117 }"),
			order);
		snprintf(tb, sizeof(tb), EXPERIMENT(
			"{ \"plugin\": \"poly_comp.so\", \"delay\": 0.0117, \"params\": { \"order\": %d } }"),
			order);
		ASSERT_EQ(0, run(ta, &a, &res, &err)) TH_LOG("%s", err.msg);
		ASSERT_EQ(0, run(tb, &b, &res, &err)) TH_LOG("%s", err.msg);
		ASSERT_EQ(a.rows, b.rows);
		EXPECT_GT(a.rows, 100);
		SAME(command, a.n_act);
		SAME(target, a.n_act);
		SAME(force, a.n_act);
		SAME(u, a.n_dof);
		rths_hs_history_free(&a);
		rths_hs_history_free(&b);
	}
	/* and it does something: no compensation sends other commands */
	ASSERT_EQ(0, run(EXPERIMENT(
		"{ \"plugin\": \"poly_comp.so\", \"delay\": 0.0117 }"), &b,
			 &res, &err));
	ASSERT_EQ(0, run(EXPERIMENT("{ \"method\": \"none\" }"), &c, &res,
			 &err));
	EXPECT_NE(0, memcmp(b.command, c.command,
			    b.rows * b.n_act * sizeof(double)));
	rths_hs_history_free(&b);
	rths_hs_history_free(&c);
	/* every experiment gave its kind back */
	EXPECT_EQ(0, (int)rths_hs_comp_from_name("poly-plugin"));
}

/* The name a registered plug-in shows in summaries. */
TEST(name_in_the_experiment)
{
	struct rths_hs_experiment *x = NULL;
	struct rths_error err = { 0 };

	ASSERT_EQ(0, load(EXPERIMENT("{ \"plugin\": \"poly_comp.so\" }"), &x,
			  &err)) TH_LOG("%s", err.msg);
	EXPECT_STREQ("poly-plugin", rths_hs_comp_name(x->comp.kind));
	EXPECT_EQ(x->comp.kind, rths_hs_comp_from_name("poly-plugin"));
	rths_hs_experiment_free(x);
}

static int load_error(const char *text, struct rths_error *err)
{
	struct rths_hs_experiment *x = NULL;
	int r = load(text, &x, err);

	rths_hs_experiment_free(x);
	return r;
}

TEST(loading_errors)
{
	struct rths_error err = { 0 };

	EXPECT_EQ(-ENOENT, load_error(EXPERIMENT(
		"{ \"plugin\": \"./no-such.so\" }"), &err));
	EXPECT_STREQ("compensation.plugin", err.path);
	/* the integrator's shared object is no compensator */
	EXPECT_EQ(-ELIBBAD, load_error(EXPERIMENT(
		"{ \"plugin\": \"cr_plugin.so\" }"), &err));
	EXPECT_NE(NULL, strstr(err.msg, "no symbol rths_compensator_type")) {
		TH_LOG("%s", err.msg);
	}
	EXPECT_EQ(-RTHS_E_CONFLICT, load_error(EXPERIMENT(
		"{ \"plugin\": \"poly_comp.so\", \"method\": \"ats\" }"), &err));
	EXPECT_EQ(-RTHS_E_CONFLICT, load_error(EXPERIMENT(
		"{ \"plugin\": \"poly_comp.so\", \"window\": 2 }"), &err));
	EXPECT_STREQ("compensation.window", err.path);
	EXPECT_EQ(-RTHS_E_MISSING_FIELD, load_error(EXPERIMENT(
		"{ \"method\": \"none\", \"params\": {} }"), &err));
	EXPECT_STREQ("compensation.plugin", err.path);
	EXPECT_EQ(0, (int)rths_hs_comp_from_name("poly-plugin"));
}

/* The plug-in's own words from alloc (which runs at the start of the
 * run), named. */
TEST(alloc_error_is_the_plugins)
{
	struct rths_hs_history h = { 0 };
	struct rths_hs_run_result res;
	struct rths_error err = { 0 };

	EXPECT_EQ(-EINVAL, run(EXPERIMENT(
		"{ \"plugin\": \"poly_comp.so\", \"params\": { \"order\": 7 } }"),
			       &h, &res, &err));
	EXPECT_NE(NULL, strstr(err.msg,
			       "compensator plug-in 'poly-plugin', alloc: params.order: expected 1, 2 or 3")) {
		TH_LOG("%s", err.msg);
	}
	EXPECT_EQ(0, h.rows);
	rths_hs_history_free(&h);
}

/* --- plug-ins registered by the program */
static int fail_at = -1, nan_at = -1;
static unsigned int channels_seen;
static uint64_t observed;

static int t_alloc(void **state, const struct rths_hs_compensator_problem *p,
		   struct rths_error *err)
{
	channels_seen |= 1u << p->channel;
	*state = NULL;
	return 0;
}

static int t_command(void *state, uint64_t n, double target, double *cmd,
		     struct rths_error *err)
{
	if ((int)n == fail_at)
		return rths_hs_plugin_error(err, ERANGE, "target %g too far",
					    target);
	*cmd = (int)n == nan_at ? NAN : target;
	return 0;
}

static int t_observe(void *state, uint64_t n, double command,
		     double measured, struct rths_error *err)
{
	observed = n;
	return 0;
}

static void t_free(void *state)
{
}

static const struct rths_hs_compensator_type pass_type = {
	.abi = RTHS_HS_PLUGIN_ABI,
	.name = "pass",
	.alloc = t_alloc,
	.command = t_command,
	.observe = t_observe,
	.free = t_free,
};

/* The experiment with @kind in place of its compensation. */
static int run_kind(enum rths_hs_comp_kind kind,
		    struct rths_hs_run_result *res, struct rths_error *err)
{
	struct rths_hs_history h = { 0 };
	struct rths_hs_experiment *x = NULL;
	int r = load(EXPERIMENT("{ \"method\": \"none\" }"), &x, err);

	if (r == 0) {
		x->comp.kind = kind;
		r = rths_hs_experiment_run(x, 0, NULL, &h, res, err);
	}
	rths_hs_history_free(&h);
	rths_hs_experiment_free(x);
	return r;
}

TEST(registered_by_the_program)
{
	struct rths_hs_compensator_type t = pass_type;
	struct rths_hs_run_result res;
	struct rths_error err = { 0 };
	enum rths_hs_comp_kind k;

	ASSERT_EQ(0, rths_hs_compensator_register(&pass_type, NULL, &k, &err));
	EXPECT_LE(RTHS_HS_COMP_PLUGIN_FIRST, k);
	EXPECT_EQ(&pass_type, rths_hs_compensator_registered(k));
	ASSERT_EQ(0, run_kind(k, &res, &err)) TH_LOG("%s", err.msg);
	EXPECT_EQ(1u, channels_seen);
	EXPECT_EQ(res.steps_done, observed);

	fail_at = 40;
	EXPECT_EQ(-ERANGE, run_kind(k, &res, &err));
	EXPECT_NE(NULL, strstr(err.msg,
			       "compensator plug-in 'pass', command at step 40: target")) {
		TH_LOG("%s", err.msg);
	}
	fail_at = -1;
	nan_at = 41;
	EXPECT_EQ(-RTHS_E_NONFINITE, run_kind(k, &res, &err));
	EXPECT_NE(NULL, strstr(err.msg, "non-finite command")) {
		TH_LOG("%s", err.msg);
	}
	EXPECT_EQ(41u, res.steps_done + 1) TH_LOG("%s", err.msg);
	nan_at = -1;
	rths_hs_compensator_unregister(k);
	EXPECT_EQ(NULL, rths_hs_compensator_registered(k));
	/* an unregistered kind is refused up front */
	EXPECT_EQ(-RTHS_E_BAD_CHOICE, run_kind(k, &res, &err));

	t.abi = 2;
	EXPECT_EQ(-RTHS_E_UNSUPPORTED,
		  rths_hs_compensator_register(&t, NULL, &k, &err));
	t.abi = RTHS_HS_PLUGIN_ABI;
	t.command = NULL;
	EXPECT_EQ(-EINVAL, rths_hs_compensator_register(&t, NULL, &k, &err));
	EXPECT_NE(NULL, strstr(err.msg, "'pass' has no command"));
}

TEST_HARNESS_MAIN
