// SPDX-License-Identifier: GPL-2.0
/*
 * Integrator plug-ins (rths/hs_plugin.h): the Chen-Ricles plug-in of
 * examples/plugin gives the built-in "cr" history bit for bit; the
 * registry's checks; a plug-in's failures and non-finite outputs are
 * errors naming it and the callback; a sparse model, whose matrices a
 * plug-in cannot take, is refused.
 */
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include <dlfcn.h>
#include <libgen.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"

#include <rths/hs.h>

/* the example, compiled in: its type is rths_integrator_type */
#include "../../examples/plugin/cr_plugin.c"

#define STEPS 400

/* A 3-DOF frame; @full_mass: a consistent (non-diagonal) M. */
static void frame(struct rths_hs_model *mo, size_t n, bool full_mass)
{
	rths_hs_model_init(mo, n, NULL);
	for (size_t i = 0; i < n; i++) {
		mo->m[i * n + i] = 1000.0 * (1 + 0.1 * (double)i);
		mo->k[i * n + i] = 2e6;
		mo->c[i * n + i] = 400.0;
		if (i + 1 < n) {
			mo->k[i * n + i + 1] = -1e6;
			mo->k[(i + 1) * n + i] = -1e6;
			mo->c[i * n + i + 1] = -100.0;
			mo->c[(i + 1) * n + i] = -100.0;
			if (full_mass) {
				mo->m[i * n + i + 1] = 50.0;
				mo->m[(i + 1) * n + i] = 50.0;
			}
		}
	}
}

struct run {
	double u[STEPS + 1][4], v[STEPS + 1][4], a[STEPS + 1][4];
	double cmd[STEPS][4];
};

/* A nonlinear "specimen" at the command (softening spring on DOF 0). */
static void specimen(size_t n, const double *u1, double *r)
{
	memset(r, 0, n * sizeof(*r));
	r[0] = 3e5 * u1[0] - 4e9 * u1[0] * u1[0] * u1[0];
}

static int run_method(enum rths_hs_method method, size_t n, bool full_mass,
		      struct run *out, struct rths_error *err)
{
	struct rths_hs_model mo;
	struct rths_hs_stepper *st;
	struct rths_hs_stepper_params p;
	double kest[16] = { 0 }, cest[16] = { 0 };
	struct rths_hs_specimen_estimate est = { kest, cest };
	double u0[4] = { 0.01, -0.004, 0.002, 0 }, f[4], r[4];
	int rc;

	frame(&mo, n, full_mass);
	kest[0] = 3e5;
	cest[0] = 50;
	rths_hs_stepper_defaults(&p, method, 0.01);
	rc = rths_hs_stepper_new(&st, &mo, &est, &p, err);
	if (rc < 0) {
		rths_hs_model_free(&mo);
		return rc;
	}
	specimen(n, u0, r);
	rc = rths_hs_stepper_start(st, u0, NULL, NULL, r, err);
	for (size_t i = 0; i < n; i++) {
		out->u[0][i] = rths_hs_stepper_u(st)[i];
		out->v[0][i] = rths_hs_stepper_v(st)[i];
		out->a[0][i] = rths_hs_stepper_a(st)[i];
	}
	for (int s = 0; rc == 0 && s < STEPS; s++) {
		const double *u1;

		for (size_t i = 0; i < n; i++)
			f[i] = 1e3 * sin(0.07 * (s + 1) * (double)(i + 1));
		rc = rths_hs_stepper_command(st, f, &u1, err);
		if (rc)
			break;
		memcpy(out->cmd[s], u1, n * sizeof(double));
		specimen(n, u1, r);
		rc = rths_hs_stepper_accept(st, r, err);
		for (size_t i = 0; rc == 0 && i < n; i++) {
			out->u[s + 1][i] = rths_hs_stepper_u(st)[i];
			out->v[s + 1][i] = rths_hs_stepper_v(st)[i];
			out->a[s + 1][i] = rths_hs_stepper_a(st)[i];
		}
	}
	rths_hs_stepper_free(st);
	rths_hs_model_free(&mo);
	return rc;
}

static void same_history(struct __test_metadata *_metadata, size_t n,
			 bool full_mass)
{
	struct run *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	struct rths_error err = { 0 };
	enum rths_hs_method m;
	double peak = 0;

	ASSERT_NE(NULL, a);
	ASSERT_NE(NULL, b);
	ASSERT_EQ(0, rths_hs_integrator_register(&rths_integrator_type, NULL,
						 &m, &err));
	ASSERT_EQ(0, run_method(RTHS_HS_CR, n, full_mass, a, &err));
	ASSERT_EQ(0, run_method(m, n, full_mass, b, &err)) {
		TH_LOG("%s", err.msg);
	}
	for (int s = 0; s <= STEPS; s++)
		for (size_t i = 0; i < n; i++)
			peak = fmax(peak, fabs(a->u[s][i]));
	EXPECT_GT(peak, 1e-3);	/* it moved */
	/* bit for bit: memcmp, not a tolerance */
	EXPECT_EQ(0, memcmp(a, b, sizeof(*a)));
	rths_hs_integrator_unregister(m);
	free(a);
	free(b);
}

TEST(cr_plugin_bit_for_bit_sdof)
{
	same_history(_metadata, 1, false);
}

TEST(cr_plugin_bit_for_bit_lumped)
{
	same_history(_metadata, 3, false);
}

TEST(cr_plugin_bit_for_bit_consistent_mass)
{
	same_history(_metadata, 4, true);
}

TEST(registry_names_and_numbers)
{
	struct rths_error err = { 0 };
	enum rths_hs_method m, m2;

	ASSERT_EQ(0, rths_hs_integrator_register(&rths_integrator_type,
						 "{\"x\": 1}", &m, &err));
	EXPECT_GE((int)m, RTHS_HS_PLUGIN_FIRST);
	EXPECT_LE((int)m, RTHS_HS_PLUGIN_LAST);
	EXPECT_STREQ("cr-plugin", rths_hs_method_name(m));
	EXPECT_EQ(m, rths_hs_method_from_name("cr-plugin"));
	EXPECT_EQ(&rths_integrator_type, rths_hs_integrator_registered(m));
	/* the built-in names come first */
	EXPECT_EQ(RTHS_HS_CR, rths_hs_method_from_name("cr"));
	rths_hs_integrator_unregister(m);
	EXPECT_EQ(NULL, rths_hs_integrator_registered(m));
	EXPECT_STREQ("unknown", rths_hs_method_name(m));
	EXPECT_EQ(0, (int)rths_hs_method_from_name("cr-plugin"));

	/* all the slots, then one more */
	enum rths_hs_method all[RTHS_HS_MAX_PLUGINS];
	for (int i = 0; i < RTHS_HS_MAX_PLUGINS; i++)
		ASSERT_EQ(0, rths_hs_integrator_register(
				     &rths_integrator_type, NULL, &all[i],
				     &err));
	EXPECT_EQ(-ENOSPC, rths_hs_integrator_register(&rths_integrator_type,
						       NULL, &m2, &err));
	for (int i = 0; i < RTHS_HS_MAX_PLUGINS; i++)
		rths_hs_integrator_unregister(all[i]);

	/* an unregistered number is no method */
	struct rths_hs_stepper_params p;
	rths_hs_stepper_defaults(&p, RTHS_HS_PLUGIN_FIRST, 0.01);
	EXPECT_EQ(-RTHS_E_BAD_CHOICE, rths_hs_stepper_params_check(&p, &err));
}

/* A plug-in takes dense matrices: a sparse model is refused, named. */
TEST(sparse_model_refused)
{
	size_t i[] = { 0 };
	double one[] = { 1 };
	struct rths_hs_sparse_model sm = {
		.n = 1, .m = { 1, i, i, one }, .k = { 1, i, i, one },
	};
	struct rths_hs_stepper_params p;
	struct rths_hs_stepper *st;
	struct rths_error err = { 0 };
	enum rths_hs_method m;

	ASSERT_EQ(0, rths_hs_integrator_register(&rths_integrator_type, NULL,
						 &m, &err));
	rths_hs_stepper_defaults(&p, m, 0.01);
	EXPECT_EQ(-RTHS_E_UNSUPPORTED,
		  rths_hs_stepper_new_sparse(&st, &sm, NULL, &p, &err));
	EXPECT_STREQ("method", err.path);
	EXPECT_NE(NULL, strstr(err.msg, "cr-plugin is a plug-in"))
		TH_LOG("%s", err.msg);
	rths_hs_integrator_unregister(m);
	/* the built-in method steps it */
	p.method = RTHS_HS_CR;
	ASSERT_EQ(0, rths_hs_stepper_new_sparse(&st, &sm, NULL, &p, &err));
	rths_hs_stepper_free(st);
}

TEST(type_checks)
{
	struct rths_hs_integrator_type t = rths_integrator_type;
	struct rths_error err = { 0 };
	enum rths_hs_method m;

	t.abi = 2;
	EXPECT_EQ(-RTHS_E_UNSUPPORTED,
		  rths_hs_integrator_register(&t, NULL, &m, &err));
	EXPECT_NE(NULL, strstr(err.msg, "interface version 2"));
	t = rths_integrator_type;
	t.correct = NULL;
	EXPECT_EQ(-EINVAL, rths_hs_integrator_register(&t, NULL, &m, &err));
	EXPECT_NE(NULL, strstr(err.msg, "has no correct")) {
		TH_LOG("%s", err.msg);
	}
	EXPECT_EQ(-EINVAL, rths_hs_integrator_type_check(NULL, &err));
}

/* --- misbehaving plug-ins */
static int bad_step;	/* the step whose predict gives NaN */
static char seen_params[64];

static int nan_alloc(void **state, const struct rths_hs_integrator_problem *p,
		     struct rths_error *err)
{
	snprintf(seen_params, sizeof(seen_params), "%s",
		 p->params ? p->params : "(null)");
	return cr_alloc(state, p, err);
}

static int nan_predict(void *state, uint64_t n, const double *u,
		       const double *v, const double *a, const double *f1,
		       double *u1, struct rths_error *err)
{
	int r = cr_predict(state, n, u, v, a, f1, u1, err);

	if ((int)n == bad_step)
		u1[0] = NAN;
	return r;
}

static int silent_step = -1;	/* correct fails without words */

static int failing_correct(void *state, uint64_t n, const double *u,
			   const double *v, const double *a, const double *u1,
			   const double *f1, const double *r1, double *u_out,
			   double *v_out, double *a_out,
			   struct rths_error *err)
{
	if ((int)n == silent_step)
		return -EDOM;
	if (n == 2)
		return rths_error_set(err, RTHS_E_OUT_OF_RANGE, NULL, 0,
				      "stroke", "my own reason");
	return cr_correct(state, n, u, v, a, u1, f1, r1, u_out, v_out, a_out,
			  err);
}

static int failing_alloc(void **state,
			 const struct rths_hs_integrator_problem *p,
			 struct rths_error *err)
{
	*state = NULL;
	return rths_hs_plugin_error(err, ENOMEM, "no room for %zu DOF", p->n);
}

static void must_not_free(void *state)
{
	abort();	/* alloc failed: free is not called */
}

/* Registers @t, runs 2 DOF with it, unregisters: run_method()'s code. */
static int run_plugin(const struct rths_hs_integrator_type *t,
		      const char *params, struct rths_error *err)
{
	struct run *out = calloc(1, sizeof(*out));
	enum rths_hs_method m;
	int rc = out ? rths_hs_integrator_register(t, params, &m, err) :
		 -ENOMEM;

	if (rc == 0) {
		rc = run_method(m, 2, false, out, err);
		rths_hs_integrator_unregister(m);
	}
	free(out);
	return rc;
}

TEST(nan_from_predict)
{
	struct rths_hs_integrator_type t = rths_integrator_type;
	struct rths_error err = { 0 };

	t.name = "nan-plugin";
	t.alloc = nan_alloc;
	t.predict = nan_predict;
	bad_step = 5;
	EXPECT_EQ(-RTHS_E_NONFINITE, run_plugin(&t, "{\"k\": 2}", &err));
	EXPECT_STREQ("{\"k\": 2}", seen_params);
	EXPECT_NE(NULL, strstr(err.msg, "'nan-plugin'"));
	EXPECT_NE(NULL, strstr(err.msg, "predict"));
	EXPECT_NE(NULL, strstr(err.msg, "step 6")) {
		TH_LOG("%s", err.msg);
	}
}

TEST(callback_failures_are_named)
{
	struct rths_hs_integrator_type t = rths_integrator_type;
	struct rths_error err = { 0 };

	t.name = "failing";
	t.correct = failing_correct;
	EXPECT_EQ(-RTHS_E_OUT_OF_RANGE, run_plugin(&t, NULL, &err));
	EXPECT_STREQ("stroke", err.path);
	EXPECT_NE(NULL, strstr(err.msg, "'failing', correct: my own reason"))
	{
		TH_LOG("%s", err.msg);
	}
	/* no words from the plug-in: the engine names the callback */
	silent_step = 1;
	EXPECT_EQ(-EDOM, run_plugin(&t, NULL, &err));
	EXPECT_NE(NULL, strstr(err.msg, "'failing': correct failed")) {
		TH_LOG("%s", err.msg);
	}
	silent_step = -1;
	t.alloc = failing_alloc;
	t.free = must_not_free;
	EXPECT_EQ(-ENOMEM, run_plugin(&t, NULL, &err));
	EXPECT_NE(NULL, strstr(err.msg, "'failing', alloc: no room for 2 DOF"))
	{
		TH_LOG("%s", err.msg);
	}
}

/* --- through an experiment file: "integrator": {"plugin": ...} */
#define EXPERIMENT(integrator) \
	"{ \"model\": { \"type\": \"shear_building\", \"stories\": [" \
	" { \"mass\": 800, \"stiffness\": 9e5, \"nonlinear\":" \
	"   { \"type\": \"bouc_wen\", \"yield_force\": 2500 } }," \
	" { \"mass\": 800, \"stiffness\": 7e5 } ]," \
	"  \"damping\": { \"type\": \"rayleigh\", \"ratio\": 0.03 } }," \
	"  \"substructure\": { \"experimental_stories\": [0] }," \
	"  \"device\": { \"backend\": \"offline\", \"step_ticks\": 4," \
	"     \"actuator\": { \"lag\": 0.004 } }," \
	"  \"compensation\": { \"method\": \"polynomial\", \"order\": 2 }," \
	"  \"ground_motion\": { \"synthetic\": { \"duration\": 4," \
	"     \"pga_g\": 0.5, \"rise\": 0.5, \"strong\": 2 } }," \
	"  \"integrator\": " integrator " }"

static char plugin_dir[4096];

static const char *so_dir(void)
{
	snprintf(plugin_dir, sizeof(plugin_dir), "%s", RTHS_HS_PLUGIN_SO);
	return dirname(plugin_dir);
}

static int run_experiment(const char *text, const char *base_dir,
			  struct rths_hs_history *h, struct rths_error *err)
{
	struct rths_hs_offline_params op;
	struct rths_hs_experiment *x = NULL;
	struct rths_hs_sim_config cfg;
	struct rths_hs_run_result res;
	struct rths_hs_backend b;
	int r = rths_hs_experiment_parse(text, "inline.json", base_dir, &x,
					 err);

	if (r < 0)
		return r;
	rths_hs_experiment_offline_params(x, &op);
	r = rths_hs_offline_open(&b, &op, err);
	if (r == 0) {
		rths_hs_experiment_sim_config(x, &cfg);
		cfg.backend = &b;
		r = rths_hs_sim_run(&cfg, h, &res, err);
		rths_hs_backend_close(&b);
	}
	rths_hs_experiment_free(x);
	return r;
}

#define SAME(field, width) \
	EXPECT_EQ(0, memcmp(a.field, b.field, \
			    a.rows * (width) * sizeof(*a.field))) \
		TH_LOG("%s differs", #field)

TEST(experiment_with_the_plugin_equals_cr_bit_for_bit)
{
	struct rths_hs_history a, b;
	struct rths_error err = { 0 };

	ASSERT_EQ(0, run_experiment(EXPERIMENT("{ \"method\": \"cr\" }"), ".",
				    &a, &err)) TH_LOG("%s", err.msg);
	/* relative to the experiment file's folder */
	ASSERT_EQ(0, run_experiment(EXPERIMENT(
		"{ \"plugin\": \"cr_plugin.so\", \"params\": {\"note\": 1} }"),
				    so_dir(), &b, &err)) TH_LOG("%s", err.msg);
	ASSERT_EQ(a.rows, b.rows);
	EXPECT_GT(a.rows, 100);
	EXPECT_GT(rths_hs_peak(a.u, a.rows, a.n_dof, NULL), 1e-3);
	SAME(u, a.n_dof);
	SAME(v, a.n_dof);
	SAME(a, a.n_dof);
	SAME(x_if, a.n_if);
	SAME(f_meas, a.n_if);
	SAME(command, a.n_act);
	SAME(force, a.n_act);
	rths_hs_history_free(&a);
	rths_hs_history_free(&b);
	/* the experiment gave its number back */
	EXPECT_EQ(0, (int)rths_hs_method_from_name("cr-plugin"));
}

/* The error of loading @integrator: its code, the path, the message. */
static int load_error(const char *text, struct rths_error *err)
{
	struct rths_hs_experiment *x = NULL;
	int r = rths_hs_experiment_parse(text, "inline.json", so_dir(), &x,
					 err);

	rths_hs_experiment_free(x);
	return r;
}

TEST(plugin_loading_errors)
{
	struct rths_error err = { 0 };
	char text[4096];
	Dl_info di;

	EXPECT_EQ(-ENOENT, load_error(EXPERIMENT(
		"{ \"plugin\": \"./no-such.so\" }"), &err));
	EXPECT_STREQ("integrator.plugin", err.path);
	EXPECT_STREQ("inline.json", err.file);
	/* a file that is no shared object: dlerror()'s words */
	snprintf(text, sizeof(text), EXPERIMENT("{ \"plugin\": \"%s\" }"),
		 RTHS_HS_TESTDATA "/bad-choice.json");
	EXPECT_EQ(-ELIBBAD, load_error(text, &err));
	EXPECT_NE(NULL, strstr(err.msg, "cannot load the plug-in")) {
		TH_LOG("%s", err.msg);
	}
	/* a shared object without the symbol: libm */
	ASSERT_NE(0, dladdr((void *)&cos, &di));
	snprintf(text, sizeof(text), EXPERIMENT("{ \"plugin\": \"%s\" }"),
		 di.dli_fname);
	EXPECT_EQ(-ELIBBAD, load_error(text, &err));
	EXPECT_STREQ("integrator.plugin", err.path);
	EXPECT_NE(NULL, strstr(err.msg, "no symbol rths_integrator_type")) {
		TH_LOG("%s", err.msg);
	}
	snprintf(text, sizeof(text), EXPERIMENT("{ \"plugin\": \"%s\" }"),
		 RTHS_HS_PLUGIN_TEST_DIR "/plugin_abi2.so");
	EXPECT_EQ(-RTHS_E_UNSUPPORTED, load_error(text, &err));
	EXPECT_STREQ("integrator.plugin", err.path);
	EXPECT_NE(NULL, strstr(err.msg, "interface version 2")) {
		TH_LOG("%s", err.msg);
	}
	snprintf(text, sizeof(text), EXPERIMENT("{ \"plugin\": \"%s\" }"),
		 RTHS_HS_PLUGIN_TEST_DIR "/plugin_empty.so");
	EXPECT_EQ(-EINVAL, load_error(text, &err));
	EXPECT_NE(NULL, strstr(err.msg, "'plugin_empty' has no alloc")) {
		TH_LOG("%s", err.msg);
	}
	EXPECT_EQ(-RTHS_E_CONFLICT, load_error(EXPERIMENT(
		"{ \"plugin\": \"cr_plugin.so\", \"method\": \"cr\" }"), &err));
	EXPECT_EQ(-RTHS_E_MISSING_FIELD, load_error(EXPERIMENT(
		"{ \"params\": {} }"), &err));
	EXPECT_STREQ("integrator.plugin", err.path);
	/* a method's own parameter names the plug-in as the method */
	EXPECT_EQ(-RTHS_E_CONFLICT, load_error(EXPERIMENT(
		"{ \"plugin\": \"cr_plugin.so\", \"rho_inf\": 0.5 }"), &err));
	EXPECT_NE(NULL, strstr(err.msg, "the method is cr-plugin")) {
		TH_LOG("%s", err.msg);
	}
	/* every failure above gave its number back */
	EXPECT_EQ(0, (int)rths_hs_method_from_name("cr-plugin"));
}

TEST_HARNESS_MAIN
