// SPDX-License-Identifier: GPL-2.0
/*
 * Experiment files: the bundled examples load; each kind of bad file
 * (tests/data/hs/bad-*.json) fails with its own error, naming the file
 * and the JSON path of the field; the "realtime" section's defaults,
 * fields and errors.
 */
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include <errno.h>
#include <math.h>
#include <string.h>
#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/lsan_interface.h>
#endif

#include "kselftest_harness.h"

#include <rths/hs.h>
#include <rths/hs_experiment.h>
#include <rths/hs_criteria.h>

static const struct {
	const char *file;
	int code;
	const char *path;	/* JSON path in the error, NULL: none */
	unsigned int line;	/* line in the error, 0: none */
} bad[] = {
	{ "bad-syntax.json", RTHS_E_JSON_SYNTAX, NULL, 3 },
	{ "bad-missing-field.json", RTHS_E_MISSING_FIELD, "model", 0 },
	{ "bad-unknown-field.json", RTHS_E_UNKNOWN_FIELD,
	  "model.stories[0].stifness", 0 },
	{ "bad-wrong-type.json", RTHS_E_WRONG_TYPE,
	  "model.stories[1].stiffness", 0 },
	{ "bad-out-of-range.json", RTHS_E_OUT_OF_RANGE,
	  "model.stories[2].stiffness", 0 },
	{ "bad-choice.json", RTHS_E_BAD_CHOICE, "integrator.method", 0 },
	{ "bad-shape.json", RTHS_E_BAD_SHAPE, "model.stiffness[0]", 0 },
	{ "bad-not-symmetric.json", RTHS_E_NOT_SYMMETRIC,
	  "model.stiffness", 0 },
	{ "bad-not-positive-definite.json", RTHS_E_NOT_POSITIVE_DEFINITE,
	  "model.mass", 0 },
	{ "bad-dof.json", RTHS_E_BAD_DOF,
	  "substructure.experimental_stories[0]", 0 },
	{ "bad-duplicate.json", RTHS_E_DUPLICATE,
	  "substructure.experimental_stories[1]", 0 },
	{ "bad-conflict.json", RTHS_E_CONFLICT, "ground_motion", 0 },
	{ "bad-geometry.json", RTHS_E_BAD_GEOMETRY, "setup.actuators", 0 },
	{ "bad-unstable-step.json", RTHS_E_UNSTABLE_STEP,
	  "integrator.method", 0 },
	{ "bad-unsupported.json", RTHS_E_UNSUPPORTED, "integrator.method",
	  0 },
	{ "bad-io.json", ENOENT, "ground_motion.file", 0 },
	{ "bad-ground-motion-value.json", RTHS_E_GM_VALUE,
	  "ground_motion.file", 6 },
	{ "bad-setup-shape.json", RTHS_E_BAD_SHAPE, "setup.type", 0 },
	{ "bad-late-deadline.json", RTHS_E_OUT_OF_RANGE,
	  "device.late_deadline", 0 },
	/* options that cannot apply are errors, not ignored */
	{ "bad-units-on-at2.json", RTHS_E_CONFLICT, "ground_motion.units",
	  0 },
	{ "bad-rho-inf-with-cr.json", RTHS_E_CONFLICT,
	  "integrator.rho_inf", 0 },
	/* a record that starts at 1 s is not moved to 0 unless asked */
	{ "bad-late-start.json", RTHS_E_GM_TIME_STEP, "ground_motion.file",
	  2 },
	/* 32/1024 s over a 20 ms record: refused unless allowed, naming
	 * the field the step came from */
	{ "bad-coarse-step.json", RTHS_E_OUT_OF_RANGE, "device.step_ticks",
	  0 },
	{ "bad-dt-not-whole-ticks.json", RTHS_E_OUT_OF_RANGE,
	  "integrator.dt", 0 },
};
#define N_BAD (sizeof(bad) / sizeof(bad[0]))

TEST(each_bad_file_has_its_error)
{
	for (size_t i = 0; i < N_BAD; i++) {
		struct rths_hs_experiment *x = NULL;
		struct rths_error err;
		char path[512], msg[1024];
		int r;

		snprintf(path, sizeof(path), "%s/%s", RTHS_HS_TESTDATA,
			 bad[i].file);
		memset(&err, 0, sizeof(err));
		r = rths_hs_experiment_load(path, &x, &err);
		rths_error_str(&err, msg, sizeof(msg));
		TH_LOG("%s", msg);
		EXPECT_EQ(-(int)bad[i].code, r);
		EXPECT_EQ(-(int)bad[i].code, err.code);
		if (bad[i].path)
			EXPECT_STREQ(bad[i].path, err.path);
		EXPECT_EQ(bad[i].line, err.line);
		/* The file in question: the experiment, or for a record
		 * error the record itself (and the message names the
		 * experiment). */
		if (bad[i].code == RTHS_E_GM_VALUE ||
		    bad[i].code == RTHS_E_GM_TIME_STEP ||
		    bad[i].code == ENOENT) {
			EXPECT_TRUE(strstr(err.file, ".AT2") ||
				    strstr(err.file, ".txt"));
			EXPECT_NE(NULL, strstr(err.msg, bad[i].file));
		} else {
			EXPECT_NE(NULL, strstr(err.file, bad[i].file));
		}
		EXPECT_NE(0, strlen(err.msg));
	}
}

/* Every kind of mistake an experiment file can hold has a bad file. */
TEST(every_file_error_kind_is_covered)
{
	/* The record readers and the numerics have their own tests. */
	static const int kinds[] = {
		ENOENT, RTHS_E_JSON_SYNTAX, RTHS_E_MISSING_FIELD,
		RTHS_E_UNKNOWN_FIELD, RTHS_E_WRONG_TYPE,
		RTHS_E_OUT_OF_RANGE, RTHS_E_BAD_CHOICE,
		RTHS_E_BAD_SHAPE, RTHS_E_NOT_SYMMETRIC,
		RTHS_E_NOT_POSITIVE_DEFINITE, RTHS_E_BAD_DOF,
		RTHS_E_DUPLICATE, RTHS_E_CONFLICT,
		RTHS_E_BAD_GEOMETRY, RTHS_E_UNSTABLE_STEP,
		RTHS_E_GM_VALUE, RTHS_E_UNSUPPORTED,
	};

	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		bool seen = false;

		for (size_t i = 0; i < N_BAD; i++)
			seen |= (int)bad[i].code == kinds[k];
		EXPECT_TRUE(seen) TH_LOG("no bad file for %s",
					 rths_strerror_name(kinds[k]));
	}
	EXPECT_STREQ("out-of-range", rths_strerror_name(RTHS_E_OUT_OF_RANGE));
	EXPECT_STREQ("unknown-error", rths_strerror_name(1000));
}

TEST(two_story_example)
{
	struct rths_hs_experiment *x = NULL;
	struct rths_error err;
	struct rths_hs_model full;
	bool lin;

	ASSERT_EQ(0, rths_hs_experiment_load(RTHS_HS_EXAMPLES
					     "/two-story-frame.json",
					     &x, &err))
		TH_LOG("%s", err.msg);
	EXPECT_STREQ("two-story-frame", x->name);
	EXPECT_EQ(2, x->model.n);
	EXPECT_TRUE(x->has_specimen);
	EXPECT_EQ(1, x->sub.n_if);
	EXPECT_EQ(1, x->setup.n_act);
	/* The tested story is not in the numerical K; it is the estimate. */
	EXPECT_EQ(1.0e6, x->model.k[0]);
	EXPECT_EQ(1.19e6, x->k_est[0]);
	EXPECT_EQ(300, x->specimen.c[0]);
	EXPECT_EQ(RTHS_HS_BACKEND_OFFLINE, x->device.backend);
	EXPECT_EQ(0, x->device.step_ticks);	/* "auto": the preview */
	EXPECT_EQ(RTHS_HS_COMP_ATS, x->comp.kind);
	EXPECT_EQ(8, x->device.actuator.delay_ticks);
	EXPECT_TRUE(x->device.limits[0].set & RTHS_HS_LIM_FORCE_MAX);
	EXPECT_LT(fabs(rths_hs_gm_pga(&x->gm) - 0.3 * RTHS_HS_G), 1e-9);
	EXPECT_LT(fabs(x->duration - 15), 1e-9);
	ASSERT_EQ(0, rths_hs_experiment_set_step(x, 2, NULL));
	EXPECT_EQ(2.0 / 1024, x->integrator.dt);
	EXPECT_EQ(512, x->comp.window);	/* 1 s of 2-tick steps */
	/* Rayleigh 5 % on the whole structure's modes. */
	ASSERT_EQ(0, rths_hs_experiment_reference_model(x, &full, &lin, NULL));
	EXPECT_FALSE(lin);
	EXPECT_EQ(2.19e6, full.k[0]);
	rths_hs_model_free(&full);
	rths_hs_experiment_free(x);
}

TEST(patent_column_example)
{
	struct rths_hs_experiment *x = NULL;
	struct rths_error err;
	struct rths_hs_model full;
	bool lin;

	ASSERT_EQ(0, rths_hs_experiment_load(RTHS_HS_EXAMPLES
					     "/patent-column.json",
					     &x, &err))
		TH_LOG("%s", err.msg);
	EXPECT_EQ(3, x->model.n);
	EXPECT_EQ(RTHS_HS_SETUP_ACTUATORS, x->setup.kind);
	EXPECT_EQ(3, x->setup.n_act);
	EXPECT_EQ(2.5, x->setup.length[2]);
	EXPECT_TRUE(x->specimen.has_springs);
	EXPECT_EQ(RTHS_HS_ELEMENT_BOUC_WEN, x->specimen.springs[0].kind);
	EXPECT_EQ(1.5e6, x->k_est[0]);
	EXPECT_EQ(2, x->device.step_ticks);
	EXPECT_EQ(2.0 / 1024, x->integrator.dt);
	EXPECT_EQ(RTHS_HS_KR_ALPHA, x->integrator.method);
	EXPECT_LT(fabs(x->model.r[1] - 0.5), 1e-12);
	/* The Bouc-Wen spring on DOF 0 goes into the reference as an
	 * element (command row e_0). */
	ASSERT_EQ(0, rths_hs_experiment_reference_model(x, &full, &lin, NULL));
	EXPECT_FALSE(lin);
	EXPECT_EQ(1, full.n_elements);
	rths_hs_model_free(&full);
	rths_hs_experiment_free(x);
}

/* Text parsing, defaults and a nonlinear tested story. */
TEST(defaults_and_nonlinear_story)
{
	static const char text[] =
		"{ \"model\": { \"type\": \"shear_building\", \"stories\": ["
		" { \"mass\": 500, \"stiffness\": 8e5, \"nonlinear\":"
		"   { \"type\": \"bilinear\", \"yield_force\": 4000 } },"
		" { \"mass\": 500, \"stiffness\": 6e5, \"nonlinear\":"
		"   { \"type\": \"bouc_wen\", \"yield_force\": 3000 } } ] },"
		"  \"substructure\": { \"experimental_stories\": [1] } }";
	struct rths_hs_experiment *x = NULL;
	struct rths_error err;

	ASSERT_EQ(0, rths_hs_experiment_parse(text, "inline", ".", &x, &err))
		TH_LOG("%s", err.msg);
	/* Story 0 stays numerical as an element, story 1 is tested. */
	EXPECT_EQ(1, x->model.n_elements);
	EXPECT_EQ(RTHS_HS_ELEMENT_BILINEAR, x->model.elements[0].p.kind);
	EXPECT_EQ(0, x->model.k[0]);
	EXPECT_EQ(RTHS_HS_ELEMENT_BOUC_WEN, x->specimen.springs[0].kind);
	EXPECT_EQ(6e5, x->k_est[0]);
	EXPECT_EQ(-1, x->sub.cmd_map[0]);	/* drift u_1 - u_0 */
	EXPECT_EQ(1, x->sub.cmd_map[1]);
	/* Defaults: offline, 1024 Hz, CR, synthetic motion, no compensation. */
	EXPECT_EQ(RTHS_HS_BACKEND_OFFLINE, x->device.backend);
	EXPECT_EQ(1024, x->device.rate);
	EXPECT_EQ(RTHS_HS_CR, x->integrator.method);
	EXPECT_EQ(RTHS_HS_COMP_NONE, x->comp.kind);
	EXPECT_STREQ("inline", x->name);
	/* where outputs go is the caller's choice, not the library's */
	EXPECT_STREQ("", x->out.directory);
	EXPECT_EQ(0, x->n_warnings);
	EXPECT_LT(fabs(x->duration - 20), 1e-9);
	rths_hs_experiment_free(x);
}

/*
 * A hysteretic tested story offline (perfect actuator, one tick a step)
 * against the reference that puts the same Bouc-Wen spring into the
 * model: the spring sees the same deformations in the same order, so
 * the two differ by rounding only.
 */
TEST(nonlinear_specimen_matches_reference)
{
	static const char text[] =
		"{ \"model\": { \"type\": \"shear_building\", \"stories\": ["
		" { \"mass\": 800, \"stiffness\": 9e5, \"nonlinear\":"
		"   { \"type\": \"bouc_wen\", \"yield_force\": 2500 } },"
		" { \"mass\": 800, \"stiffness\": 7e5 } ],"
		"  \"damping\": { \"type\": \"rayleigh\", \"ratio\": 0.03 } },"
		"  \"substructure\": { \"experimental_stories\": [0] },"
		"  \"device\": { \"backend\": \"offline\", \"step_ticks\": 1 },"
		"  \"ground_motion\": { \"synthetic\": { \"duration\": 4,"
		"     \"pga_g\": 0.5, \"rise\": 0.5, \"strong\": 2 } } }";
	struct rths_hs_offline_params op;
	struct rths_hs_experiment *x = NULL;
	struct rths_hs_sim_config cfg;
	struct rths_hs_history h, hr;
	struct rths_hs_run_result res;
	struct rths_hs_backend b;
	struct rths_hs_model full;
	double worst = 0, peak = 0;

	ASSERT_EQ(0, rths_hs_experiment_parse(text, "inline", ".", &x, NULL));
	ASSERT_TRUE(x->specimen.has_springs);
	rths_hs_experiment_offline_params(x, &op);
	ASSERT_EQ(0, rths_hs_offline_open(&b, &op, NULL));
	rths_hs_experiment_sim_config(x, &cfg);
	cfg.backend = &b;
	ASSERT_EQ(0, rths_hs_sim_run(&cfg, &h, &res, NULL));
	rths_hs_backend_close(&b);
	ASSERT_EQ(0, rths_hs_experiment_reference_model(x, &full, NULL, NULL));
	EXPECT_EQ(1, full.n_elements);
	rths_hs_experiment_sim_config(x, &cfg);
	cfg.model = &full;
	cfg.sub = NULL;
	cfg.setup = NULL;
	ASSERT_EQ(0, rths_hs_sim_run(&cfg, &hr, &res, NULL));
	for (size_t i = 0; i < h.rows * 2; i++) {
		worst = fmax(worst, fabs(h.u[i] - hr.u[i]));
		peak = fmax(peak, fabs(hr.u[i]));
	}
	TH_LOG("peak %.4g m, worst difference %.3g m", peak, worst);
	/* It yielded: the story drift passed twice the yield drift. */
	EXPECT_GT(rths_hs_peak(h.disp, h.rows, 1, NULL), 2 * 2500 / 9e5);
	EXPECT_LT(worst, 1e-9 * peak);
	rths_hs_history_free(&h);
	rths_hs_history_free(&hr);
	rths_hs_model_free(&full);
	rths_hs_experiment_free(x);
}

/* The error text carries everything: file, path, expectation, name. */
TEST(error_text_names_file_path_and_kind)
{
	struct rths_hs_experiment *x = NULL;
	struct rths_error err;
	char msg[1024];

	EXPECT_EQ(-RTHS_E_OUT_OF_RANGE,
		  rths_hs_experiment_load(RTHS_HS_TESTDATA
					  "/bad-out-of-range.json",
					  &x, &err));
	rths_error_str(&err, msg, sizeof(msg));
	EXPECT_NE(NULL, strstr(msg, "bad-out-of-range.json: "
			       "model.stories[2].stiffness: expected a number > 0"));
	EXPECT_NE(NULL, strstr(msg, "[out-of-range]"));
}

#define TWO_STORIES \
	"\"model\": { \"type\": \"shear_building\", \"stories\": [" \
	" { \"mass\": 1000, \"stiffness\": 1.19e6 }," \
	" { \"mass\": 1000, \"stiffness\": 1.0e6 } ] }"

/* Parses @tail after the two-story model; the error in *err. */
static int parse_with(struct rths_hs_experiment **x, const char *tail,
		      struct rths_error *err)
{
	char text[2048];

	snprintf(text, sizeof(text), "{ " TWO_STORIES "%s }", tail);
	memset(err, 0, sizeof(*err));
	return rths_hs_experiment_parse(text, "inline", RTHS_HS_TESTDATA, x,
					err);
}

/* device.preview_margin: 0.2 by default, [0, 1) when given. */
TEST(preview_margin)
{
	struct rths_hs_experiment *x = NULL;
	struct rths_error err;

	ASSERT_EQ(0, parse_with(&x, "", &err)) TH_LOG("%s", err.msg);
	EXPECT_EQ(RTHS_HS_PREVIEW_MARGIN_DEFAULT, x->preview_margin);
	EXPECT_EQ(0.2, x->preview_margin);
	rths_hs_experiment_free(x);
	ASSERT_EQ(0, parse_with(&x, ", \"device\": { \"backend\": \"offline\", \"preview_margin\": 0.35 }",
				&err)) TH_LOG("%s", err.msg);
	EXPECT_EQ(0.35, x->preview_margin);
	rths_hs_experiment_free(x);
	x = NULL;
	EXPECT_EQ(-RTHS_E_OUT_OF_RANGE,
		  parse_with(&x, ", \"device\": { \"preview_margin\": 1 }",
			     &err));
	EXPECT_STREQ("device.preview_margin", err.path);
	EXPECT_EQ(NULL, x);
}

/* Every integrator parameter given to a method that does not read it is
 * an error naming the field and the method. */
TEST(integrator_parameters_of_another_method)
{
	static const struct {
		const char *tail, *path;
	} cases[] = {
		{ ", \"integrator\": { \"rho_inf\": 0.5 }", "integrator.rho_inf" },
		{ ", \"integrator\": { \"method\": \"kr_alpha\", \"alpha\": -0.1 }",
		  "integrator.alpha" },
		{ ", \"integrator\": { \"method\": \"alpha_os\", \"gamma\": 0.6 }",
		  "integrator.gamma" },
		{ ", \"integrator\": { \"method\": \"cr\", \"max_iter\": 3 }",
		  "integrator.max_iter" },
		{ ", \"integrator\": { \"method\": \"newmark_explicit\", \"tolerance\": 1e-6 }",
		  "integrator.tolerance" },
	};
	struct rths_hs_experiment *x = NULL;
	struct rths_error err;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		EXPECT_EQ(-RTHS_E_CONFLICT, parse_with(&x, cases[i].tail,
							  &err))
			TH_LOG("%s", cases[i].path);
		EXPECT_STREQ(cases[i].path, err.path);
		EXPECT_NE(NULL, strstr(err.msg, "applies to")) TH_LOG("%s", err.msg);
	}
	/* ... and accepted by its own method */
	ASSERT_EQ(0, parse_with(&x, ", \"integrator\": { \"method\": \"kr_alpha\", \"rho_inf\": 0.5 }",
				&err)) TH_LOG("%s", err.msg);
	EXPECT_EQ(0.5, x->integrator.rho_inf);
	rths_hs_experiment_free(x);
}

/* Other options that used to be ignored: plots and every without the
 * CSV, a duration beyond the record, shift_to_zero on an AT2 file, a
 * reference without a specimen. */
TEST(other_ignored_options_are_errors)
{
	static const struct {
		const char *tail, *path;
		int code;
	} cases[] = {
		{ ", \"outputs\": { \"csv\": false, \"plots\": true }",
		  "outputs.plots", RTHS_E_CONFLICT },
		{ ", \"outputs\": { \"csv\": false, \"every\": 4 }",
		  "outputs.every", RTHS_E_CONFLICT },
		{ ", \"ground_motion\": { \"file\": \"tiny.AT2\" }, \"duration\": 1",
		  "duration", RTHS_E_OUT_OF_RANGE },
		{ ", \"ground_motion\": { \"file\": \"tiny.AT2\", \"shift_to_zero\": true }",
		  "ground_motion.shift_to_zero", RTHS_E_CONFLICT },
		{ ", \"ground_motion\": { \"shift_to_zero\": true }",
		  "ground_motion.file", RTHS_E_MISSING_FIELD },
		{ ", \"outputs\": { \"reference\": true }",
		  "outputs.reference", RTHS_E_CONFLICT },
		/* compensation parameters of another method */
		{ ", \"compensation\": { \"method\": \"none\", \"delay\": 0.01 }",
		  "compensation.delay", RTHS_E_CONFLICT },
		{ ", \"compensation\": { \"method\": \"polynomial\", \"window\": 1 }",
		  "compensation.window", RTHS_E_CONFLICT },
		{ ", \"compensation\": { \"method\": \"ats\", \"order\": 2 }",
		  "compensation.order", RTHS_E_CONFLICT },
		{ ", \"compensation\": { \"method\": \"polynomial\", \"min_motion\": 0 }",
		  "compensation.min_motion", RTHS_E_CONFLICT },
	};
	struct rths_hs_experiment *x = NULL;
	struct rths_error err;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		EXPECT_EQ(-(int)cases[i].code, parse_with(&x, cases[i].tail,
							  &err))
			TH_LOG("%s", cases[i].path);
		EXPECT_STREQ(cases[i].path, err.path) TH_LOG("%s", err.msg);
	}
	/* each method's own parameters are fine */
	ASSERT_EQ(0, parse_with(&x, ", \"compensation\": { \"method\": \"polynomial\", \"order\": 3, \"delay\": 0.01 }",
				&err)) TH_LOG("%s", err.msg);
	rths_hs_experiment_free(x);
	ASSERT_EQ(0, parse_with(&x, ", \"compensation\": { \"method\": \"ats\", \"delay\": 0.01, \"window\": 0.5 }",
				&err)) TH_LOG("%s", err.msg);
	rths_hs_experiment_free(x);
	/* plots off without the CSV is fine */
	ASSERT_EQ(0, parse_with(&x, ", \"outputs\": { \"csv\": false, \"plots\": false }",
				&err)) TH_LOG("%s", err.msg);
	rths_hs_experiment_free(x);
}

/* The shift is explicit, and then the record starts at t = 0. */
TEST(explicit_shift_to_zero)
{
	struct rths_hs_experiment *x = NULL;
	struct rths_error err;

	ASSERT_EQ(0, parse_with(&x, ", \"ground_motion\": { \"file\": \"late-start.txt\","
				" \"units\": \"g\", \"shift_to_zero\": true }", &err))
		TH_LOG("%s", err.msg);
	EXPECT_LT(fabs(x->duration - 0.06), 1e-12);
	EXPECT_LT(fabs(rths_hs_gm_at(&x->gm, 0.02) - 0.1 * RTHS_HS_G), 1e-12);
	rths_hs_experiment_free(x);
}

/* A step coarser than the record: refused, or with the opt-in a warning
 * (data, not a print) that a finer step takes away again. */
TEST(coarse_step_refused_or_warned)
{
	static const char gm[] = ", \"ground_motion\": { \"file\": \"two-column.txt\", \"units\": \"g\" }";
	struct rths_hs_experiment *x = NULL;
	struct rths_error err;
	char tail[512];

	ASSERT_EQ(0, parse_with(&x, gm, &err)) TH_LOG("%s", err.msg);
	/* 32/1024 s = 31.25 ms over 20 ms samples; d from the caller (the
	 * command line's -d), which the library cannot name */
	EXPECT_EQ(-RTHS_E_OUT_OF_RANGE,
		  rths_hs_experiment_set_step(x, 32, &err));
	EXPECT_STREQ("", err.path);
	EXPECT_NE(NULL, strstr(err.msg, "the step d/rate = 32/1024 s"))
		TH_LOG("%s", err.msg);
	EXPECT_NE(NULL, strstr(err.msg, "use d <= 20")) TH_LOG("%s", err.msg);
	EXPECT_NE(NULL, strstr(err.msg, "allow_coarse_step"));
	EXPECT_EQ(0, rths_hs_experiment_set_step(x, 20, &err));
	EXPECT_EQ(0, x->n_warnings);
	rths_hs_experiment_free(x);

	snprintf(tail, sizeof(tail), "%s, \"integrator\": { \"allow_coarse_step\": true },"
		 " \"device\": { \"step_ticks\": 32 }", gm);
	ASSERT_EQ(0, parse_with(&x, tail, &err)) TH_LOG("%s", err.msg);
	ASSERT_EQ(1, x->n_warnings);
	EXPECT_EQ(RTHS_HS_W_COARSE_STEP, x->warnings[0].code);
	EXPECT_NE(NULL, strstr(x->warnings[0].msg, "coarser than the record"));
	EXPECT_EQ(0, rths_hs_experiment_set_step(x, 8, &err));
	EXPECT_EQ(0, x->n_warnings);
	rths_hs_experiment_free(x);
}

/* The step's own field is named, and the advice is possible: a record
 * finer than one tick needs a faster device, never "d <= 0". */
TEST(coarse_step_names_its_field_and_possible_advice)
{
	static const char fine[] = ", \"ground_motion\": { \"file\": \"fine-0005.txt\", \"units\": \"g\" }";
	static const char gm[] = ", \"ground_motion\": { \"file\": \"two-column.txt\", \"units\": \"g\" }";
	struct rths_hs_experiment *x = NULL;
	struct rths_error err;
	char tail[512];

	/* 0.5 ms at 1024 Hz: no d fits, 2000 Hz does */
	ASSERT_EQ(0, parse_with(&x, fine, &err)) TH_LOG("%s", err.msg);
	EXPECT_EQ(-RTHS_E_OUT_OF_RANGE,
		  rths_hs_experiment_set_step(x, 1, &err));
	EXPECT_NE(NULL, strstr(err.msg, "raise device.rate to at least 2000 Hz (or resample the record)"))
		TH_LOG("%s", err.msg);
	EXPECT_EQ(NULL, strstr(err.msg, "<= 0")) TH_LOG("%s", err.msg);
	/* d = 4 needs 8000 Hz */
	EXPECT_EQ(-RTHS_E_OUT_OF_RANGE,
		  rths_hs_experiment_set_step(x, 4, &err));
	EXPECT_NE(NULL, strstr(err.msg, "at least 8000 Hz")) TH_LOG("%s", err.msg);
	rths_hs_experiment_free(x);

	/* the same record with device.step_ticks: that field is named */
	snprintf(tail, sizeof(tail), "%s, \"device\": { \"step_ticks\": 1 }", fine);
	EXPECT_EQ(-RTHS_E_OUT_OF_RANGE, parse_with(&x, tail, &err));
	EXPECT_STREQ("device.step_ticks", err.path);
	EXPECT_NE(NULL, strstr(err.msg, "at least 2000 Hz")) TH_LOG("%s", err.msg);

	/* integrator.dt: that field, and a whole-tick dt that fits */
	snprintf(tail, sizeof(tail), "%s, \"integrator\": { \"dt\": 0.03125 }", gm);
	EXPECT_EQ(-RTHS_E_OUT_OF_RANGE, parse_with(&x, tail, &err));
	EXPECT_STREQ("integrator.dt", err.path);
	EXPECT_NE(NULL, strstr(err.msg, "use integrator.dt <= 20/1024 s"))
		TH_LOG("%s", err.msg);
	/* ... and a dt of one tick over 0.5 ms samples: a faster rate */
	snprintf(tail, sizeof(tail), "%s, \"integrator\": { \"dt\": 0.0009765625 }", fine);
	EXPECT_EQ(-RTHS_E_OUT_OF_RANGE, parse_with(&x, tail, &err));
	EXPECT_STREQ("integrator.dt", err.path);
	EXPECT_NE(NULL, strstr(err.msg, "at least 2000 Hz and use integrator.dt <= 0.0005 s"))
		TH_LOG("%s", err.msg);
}

/* A synthetic record has no sampling of its own: it follows the step
 * the file fixes, unless its dt is given; a step from the caller gets
 * advice naming ground_motion.synthetic.dt. */
TEST(synthetic_record_follows_the_step)
{
	struct rths_hs_experiment *x = NULL;
	struct rths_error err;

	/* the default record (5 ms) with 8/1024 s steps */
	ASSERT_EQ(0, parse_with(&x, ", \"device\": { \"step_ticks\": 8 }",
				&err)) TH_LOG("%s", err.msg);
	EXPECT_EQ(8.0 / 1024, x->gm.dt);
	EXPECT_EQ(0, x->n_warnings);
	rths_hs_experiment_free(x);
	ASSERT_EQ(0, parse_with(&x, ", \"integrator\": { \"dt\": 0.015625 }",
				&err)) TH_LOG("%s", err.msg);
	EXPECT_EQ(0.015625, x->gm.dt);
	rths_hs_experiment_free(x);
	/* a dt the user gives is kept, and then the step is refused */
	EXPECT_EQ(-RTHS_E_OUT_OF_RANGE,
		  parse_with(&x, ", \"device\": { \"step_ticks\": 8 },"
			     " \"ground_motion\": { \"synthetic\": { \"dt\": 0.005 } }",
			     &err));
	EXPECT_STREQ("device.step_ticks", err.path);
	EXPECT_NE(NULL, strstr(err.msg, "ground_motion.synthetic.dt"))
		TH_LOG("%s", err.msg);
	/* no step in the file: the default 5 ms, and the caller's d = 8
	 * is told about synthetic.dt */
	ASSERT_EQ(0, parse_with(&x, "", &err)) TH_LOG("%s", err.msg);
	EXPECT_EQ(0.005, x->gm.dt);
	EXPECT_EQ(-RTHS_E_OUT_OF_RANGE,
		  rths_hs_experiment_set_step(x, 8, &err));
	EXPECT_NE(NULL, strstr(err.msg, "set ground_motion.synthetic.dt <= 0.0078125 s"))
		TH_LOG("%s", err.msg);
	rths_hs_experiment_free(x);
}

/* NULL arguments are -EINVAL (not -EFAULT from fopen), and a directory
 * given as a file is -EISDIR naming it, for the experiment and for both
 * record readers. */
TEST(null_and_directory_arguments)
{
	struct rths_hs_experiment *x = NULL;
	struct rths_error err;
	struct rths_hs_gm gm;

	EXPECT_EQ(-EINVAL, rths_hs_experiment_load(NULL, &x, &err));
	EXPECT_EQ(-EINVAL, err.code);
	EXPECT_EQ(-EINVAL, rths_hs_experiment_parse(NULL, "inline", ".", &x,
						    &err));
	EXPECT_EQ(-EINVAL, err.code);
	EXPECT_EQ(-EISDIR, rths_hs_experiment_load(RTHS_HS_TESTDATA, &x, &err));
	EXPECT_STREQ(RTHS_HS_TESTDATA, err.file);
	EXPECT_NE(NULL, strstr(err.msg, "directory")) TH_LOG("%s", err.msg);
	EXPECT_EQ(-EISDIR, rths_hs_gm_read_at2(&gm, RTHS_HS_TESTDATA, &err));
	EXPECT_STREQ(RTHS_HS_TESTDATA, err.file);
	EXPECT_NE(NULL, strstr(err.msg, "directory")) TH_LOG("%s", err.msg);
	EXPECT_EQ(NULL, gm.acc);
	EXPECT_EQ(-EISDIR, rths_hs_gm_read_two_column(&gm, RTHS_HS_TESTDATA,
						      1.0, 0, &err));
	EXPECT_STREQ(RTHS_HS_TESTDATA, err.file);
	/* a directory as ground_motion.file */
	EXPECT_EQ(-EISDIR, parse_with(&x, ", \"ground_motion\": { \"file\": \".\", \"format\": \"at2\" }",
				      &err));
	EXPECT_STREQ("ground_motion.file", err.path);
}

/* Like free(): every free and close accepts NULL. */
TEST(free_and_close_accept_null)
{
	rths_hs_gm_free(NULL);
	rths_hs_model_free(NULL);
	rths_hs_substructure_free(NULL);
	rths_hs_history_free(NULL);
	rths_hs_experiment_free(NULL);
	rths_hs_backend_close(NULL);
	rths_hs_comp_free(NULL);
	rths_hs_stepper_free(NULL);
}

/* Unreachable blocks so far; 0 without LeakSanitizer, which would only
 * look at exit, and the harness's children leave with _exit(). */
static int leaks_now(void)
{
#ifdef __SANITIZE_ADDRESS__
	return __lsan_do_recoverable_leak_check();
#else
	return 0;
#endif
}

/*
 * The experiment comes from the library (so that it can grow without an
 * ABI break): load and parse hand out a new one over whatever *out held,
 * an error leaves *out NULL, and free releases everything, the struct
 * itself included (LeakSanitizer, in the ASan build, says so).
 */
TEST(experiment_comes_from_the_library)
{
	struct rths_hs_experiment *x, *y, *stale = (void *)&x;
	struct rths_error err;

	x = stale;
	ASSERT_EQ(0, rths_hs_experiment_load(RTHS_HS_EXAMPLES
					     "/two-story-frame.json",
					     &x, &err)) TH_LOG("%s", err.msg);
	ASSERT_NE(NULL, x);
	EXPECT_NE(stale, x);
	EXPECT_STREQ("two-story-frame", x->name);
	y = stale;
	ASSERT_EQ(0, parse_with(&y, "", &err)) TH_LOG("%s", err.msg);
	ASSERT_NE(NULL, y);
	EXPECT_NE(stale, y);
	EXPECT_NE(x, y);
	EXPECT_STREQ("inline", y->name);
	EXPECT_EQ(2, y->model.n);
	rths_hs_experiment_free(x);
	rths_hs_experiment_free(y);
	rths_hs_experiment_free(NULL);

	/* every kind of failure: nothing handed out */
	x = stale;
	EXPECT_EQ(-RTHS_E_OUT_OF_RANGE,
		  rths_hs_experiment_load(RTHS_HS_TESTDATA
					  "/bad-out-of-range.json", &x, &err));
	EXPECT_EQ(NULL, x);
	x = stale;
	EXPECT_EQ(-ENOENT, rths_hs_experiment_load(RTHS_HS_TESTDATA
						   "/no-such.json", &x, &err));
	EXPECT_EQ(NULL, x);
	x = stale;
	EXPECT_EQ(-EINVAL, rths_hs_experiment_load(NULL, &x, &err));
	EXPECT_EQ(NULL, x);
	x = stale;
	EXPECT_EQ(-RTHS_E_JSON_SYNTAX, parse_with(&x, "{", &err));
	EXPECT_EQ(NULL, x);
	x = stale;
	EXPECT_EQ(-EINVAL, rths_hs_experiment_parse(NULL, "inline", ".", &x,
						    &err));
	EXPECT_EQ(NULL, x);
	/* and no place to put it */
	EXPECT_EQ(-EINVAL, rths_hs_experiment_load(RTHS_HS_EXAMPLES
						   "/two-story-frame.json",
						   NULL, &err));
	EXPECT_EQ(-EINVAL, rths_hs_experiment_parse("{}", "inline", ".", NULL,
						    &err));
	EXPECT_EQ(0, leaks_now());
}

/* A PEER velocity or displacement record is named as such, whether the
 * reader is chosen by extension or by "format"; a PEER acceleration
 * record is read as AT2 whatever its name, and is no two-column file. */
TEST(peer_records_say_what_they_are)
{
	static const struct {
		const char *tail, *word;
		unsigned int line;
	} cases[] = {
		{ "\"file\": \"bad-velocity.VT2\"", "this is a velocity record", 3 },
		{ "\"file\": \"bad-displacement.DT2\"", "this is a displacement record", 3 },
		{ "\"file\": \"bad-velocity.VT2\", \"format\": \"two_column\"",
		  "this is a velocity record", 3 },
		{ "\"file\": \"tiny.AT2\", \"format\": \"two_column\"",
		  "PEER NGA acceleration record", 1 },
	};
	struct rths_hs_experiment *x = NULL;
	struct rths_error err;
	char tail[256];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(tail, sizeof(tail), ", \"ground_motion\": { %s }",
			 cases[i].tail);
		EXPECT_EQ(-RTHS_E_GM_HEADER, parse_with(&x, tail, &err))
			TH_LOG("%s", cases[i].tail);
		EXPECT_EQ(cases[i].line, err.line);
		EXPECT_STREQ("ground_motion.file", err.path);
		EXPECT_NE(NULL, strstr(err.msg, cases[i].word))
			TH_LOG("%s", err.msg);
		EXPECT_EQ(NULL, strstr(err.msg, "expected two fields"));
	}
	ASSERT_EQ(0, parse_with(&x, ", \"ground_motion\": { \"file\": \"peer-record.txt\" }",
				&err)) TH_LOG("%s", err.msg);
	EXPECT_EQ(12, x->gm.npts);
	rths_hs_experiment_free(x);
}

/* Tens of g: a warning; the examples' records: none. */
TEST(implausible_acceleration_warned)
{
	struct rths_hs_experiment *x = NULL;
	struct rths_error err;

	/* a scale meant for cm/s^2 on a record in g */
	ASSERT_EQ(0, parse_with(&x, ", \"ground_motion\": { \"synthetic\": { \"pga_g\": 0.3 },"
				" \"scale\": 100 }", &err)) TH_LOG("%s", err.msg);
	ASSERT_EQ(1, x->n_warnings);
	EXPECT_EQ(RTHS_HS_W_LARGE_ACCELERATION, x->warnings[0].code);
	EXPECT_STREQ("ground_motion", x->warnings[0].path);
	EXPECT_NE(NULL, strstr(x->warnings[0].msg, "30.0 g"))
		TH_LOG("%s", x->warnings[0].msg);
	rths_hs_experiment_free(x);
	ASSERT_EQ(0, parse_with(&x, ", \"ground_motion\": { \"synthetic\": { \"pga_g\": 1 } }",
				&err));
	EXPECT_EQ(0, x->n_warnings);
	rths_hs_experiment_free(x);
	ASSERT_EQ(0, rths_hs_experiment_load(RTHS_HS_EXAMPLES
					     "/two-story-frame-sim.json",
					     &x, &err))
		TH_LOG("%s", err.msg);
	EXPECT_EQ(0, x->n_warnings);
	rths_hs_experiment_free(x);
}

/* dt = 20 ms at 1024 Hz is 20.48 ticks: the error says which rate makes
 * it whole and the nearest whole dt at this rate. */
TEST(dt_not_whole_ticks_says_how)
{
	struct rths_hs_experiment *x = NULL;
	struct rths_error err;

	EXPECT_EQ(-RTHS_E_OUT_OF_RANGE,
		  rths_hs_experiment_load(RTHS_HS_TESTDATA
					  "/bad-dt-not-whole-ticks.json",
					  &x, &err));
	EXPECT_NE(NULL, strstr(err.msg, "got 20.48 ticks"));
	EXPECT_NE(NULL, strstr(err.msg, "device.rate 1000 Hz makes it 20 ticks"))
		TH_LOG("%s", err.msg);
	EXPECT_NE(NULL, strstr(err.msg, "dt = 20/1024 s = 0.01953125 s"));
	/* 12.3 ms: exactly 123 ticks at 10 kHz, the only whole rate */
	EXPECT_EQ(-RTHS_E_OUT_OF_RANGE,
		  parse_with(&x, ", \"integrator\": { \"dt\": 0.0123 }", &err));
	EXPECT_NE(NULL, strstr(err.msg, "device.rate 10000 Hz makes it 123 ticks"))
		TH_LOG("%s", err.msg);
	/* 7.31 ms is whole at no rate from 100 Hz to 20 kHz */
	EXPECT_EQ(-RTHS_E_OUT_OF_RANGE,
		  parse_with(&x, ", \"integrator\": { \"dt\": 0.00731 }", &err));
	EXPECT_EQ(NULL, strstr(err.msg, "device.rate")) TH_LOG("%s", err.msg);
	EXPECT_NE(NULL, strstr(err.msg, "dt = 7/1024 s"));
}

/* "realtime": on for the device backend, off offline unless asked. */
TEST(realtime_defaults_on_for_the_device_off_offline)
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

TEST(realtime_every_field_is_read)
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

/* Each malformed "realtime" field names the file and the field. */
TEST(realtime_malformed_fields_name_file_and_field)
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
		EXPECT_STREQ("inline", err.file);
		rths_error_str(&err, msg, sizeof(msg));
		EXPECT_EQ(0, strncmp(msg, "inline: realtime", 16))
			TH_LOG("%s", msg);
	}
}

TEST_HARNESS_MAIN
