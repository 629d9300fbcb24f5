// SPDX-License-Identifier: GPL-2.0
/*
 * Outputs of a run: the library's CSV layout; rths-run's summary text and
 * JSON and its plot script (tools/rths-run/report.c, plot.c, linked in).
 */
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include <jansson.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include <rths/hs.h>
#include <rths/hs_experiment.h>
#include <rths/hs_output.h>

#include "../../tools/rths-run/rths-run.h"

/* The two-story example, offline, 2 s; a fresh temp directory. */
FIXTURE(run) {
	struct rths_hs_experiment *x;
	struct rths_hs_history h, ref;
	struct rths_hs_run_result res;
	struct report_input in;
	char dir[64];
};

FIXTURE_SETUP(run)
{
	struct rths_hs_offline_params op;
	struct rths_hs_run_result rr;
	struct rths_hs_sim_config cfg;
	struct rths_hs_backend b;
	struct rths_hs_model full;

	ASSERT_EQ(0, rths_hs_experiment_load(RTHS_HS_EXAMPLES
					     "/two-story-frame.json",
					     &self->x, NULL));
	self->x->duration = 2.0;
	ASSERT_EQ(0, rths_hs_experiment_set_step(self->x, 2, NULL));
	rths_hs_experiment_offline_params(self->x, &op);
	ASSERT_EQ(0, rths_hs_offline_open(&b, &op, NULL));
	rths_hs_experiment_sim_config(self->x, &cfg);
	cfg.backend = &b;
	ASSERT_EQ(0, rths_hs_sim_run(&cfg, &self->h, &self->res, NULL));
	rths_hs_backend_close(&b);
	ASSERT_EQ(0, rths_hs_experiment_reference_model(self->x, &full, NULL,
							NULL));
	rths_hs_experiment_sim_config(self->x, &cfg);
	cfg.model = &full;
	cfg.sub = NULL;
	cfg.setup = NULL;
	ASSERT_EQ(0, rths_hs_sim_run(&cfg, &self->ref, &rr, NULL));
	rths_hs_model_free(&full);
	memset(&self->in, 0, sizeof(self->in));
	self->in.name = self->x->name;
	self->in.backend = "offline";
	self->in.integrator = &self->x->integrator;
	self->in.rate = self->x->device.rate;
	self->in.step_ticks = self->x->device.step_ticks;
	self->in.compensation = "ats";
	self->in.h = &self->h;
	self->in.res = &self->res;
	self->in.ref = &self->ref;
	snprintf(self->dir, sizeof(self->dir), "/tmp/rths-hs-out-XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
}

FIXTURE_TEARDOWN(run)
{
	static const char *const files[] = { "history.csv", "summary.json",
					     "plots.gp", "delay.csv", NULL };
	char p[128];

	for (const char *const *f = files; *f; f++) {
		snprintf(p, sizeof(p), "%s/%s", self->dir, *f);
		unlink(p);
	}
	rmdir(self->dir);
	rths_hs_history_free(&self->h);
	rths_hs_history_free(&self->ref);
	rths_hs_experiment_free(self->x);
}

/* Columns are where rths_hs_csv_column says, values as in the history. */
TEST_F(run, csv_layout)
{
	char path[128], line[4096];
	size_t rows = 0;
	int col_f, col_ur;
	FILE *f;

	snprintf(path, sizeof(path), "%s/history.csv", self->dir);
	ASSERT_EQ(0, rths_hs_write_csv(path, &self->h, &self->ref, 4, NULL));
	f = fopen(path, "r");
	ASSERT_NE(NULL, f);
	ASSERT_NE(NULL, fgets(line, sizeof(line), f));
	EXPECT_EQ(0, strncmp(line, "step,time_s,ag_mps2,u1_m,u2_m,v1_mps", 36));
	col_f = rths_hs_csv_column(&self->h, true, RTHS_HS_CSV_FORCE, 0);
	col_ur = rths_hs_csv_column(&self->h, true, RTHS_HS_CSV_UREF, 1);
	while (fgets(line, sizeof(line), f)) {
		double v[32];
		int nv = 0;
		size_t k;

		for (char *s = strtok(line, ","); s && nv < 32;
		     s = strtok(NULL, ","))
			v[nv++] = strtod(s, NULL);
		EXPECT_EQ(col_ur, nv);	/* uref2 is the last column */
		k = (size_t)v[0];
		EXPECT_EQ(0, k % 4);
		EXPECT_LE(fabs(v[col_f - 1] - self->h.force[k]),
			  1e-8 * fabs(self->h.force[k]));
		/* %.9g: nine significant digits */
		EXPECT_LE(fabs(v[col_ur - 1] - self->ref.u[2 * k + 1]),
			  1e-8 * fabs(self->ref.u[2 * k + 1]));
		rows++;
	}
	fclose(f);
	EXPECT_EQ((self->h.rows + 3) / 4, rows);
	/* no column: a negative errno that is not -EPERM (-1) */
	EXPECT_EQ(-ENOENT, rths_hs_csv_column(&self->h, false,
					      RTHS_HS_CSV_UREF, 0));
	EXPECT_EQ(-EINVAL, rths_hs_csv_column(&self->h, true,
					      (enum rths_hs_csv_field)0, 0));
}

TEST_F(run, summary_text_and_json)
{
	char path[128], *text = NULL;
	size_t len = 0;
	json_t *j, *act;
	FILE *f = open_memstream(&text, &len);

	ASSERT_NE(NULL, f);
	report_text(f, &self->in);
	fclose(f);
	EXPECT_NE(NULL, strstr(text, "tracking (RTHS benchmark)"));
	EXPECT_NE(NULL, strstr(text, "J1 (refined)"));
	EXPECT_NE(NULL, strstr(text, "J1 (benchmark)"));
	EXPECT_NE(NULL, strstr(text, "against the all-numerical structure"));
	EXPECT_NE(NULL, strstr(text, "cr, dt = 2/1024 s"));
	EXPECT_EQ(NULL, strstr(text, "warning"));
	free(text);
	snprintf(path, sizeof(path), "%s/summary.json", self->dir);
	ASSERT_EQ(0, report_json(path, &self->in, NULL));
	j = json_load_file(path, 0, NULL);
	ASSERT_NE(NULL, j);
	EXPECT_EQ(1024, json_integer_value(json_object_get(j, "steps")));
	act = json_array_get(json_object_get(j, "actuators"), 0);
	ASSERT_NE(NULL, act);
	/* ATS tracks the delayed actuator: a small J2, a J1 of about 0. */
	EXPECT_LT(json_real_value(json_object_get(act, "J2_pct")), 10);
	EXPECT_LT(fabs(json_real_value(json_object_get(act, "J1_ms"))), 3);
	json_decref(j);
}

/*
 * Both J1s reach the summary, JSON and delay.csv, from the right signals:
 * the measurement replaced by the command delayed by a whole number of
 * steps reads that delay in both; led by it, the refined J1 is negative
 * and the benchmark's the low end of its range.
 */
TEST_F(run, j1_refined_and_benchmark_reported)
{
	size_t m = self->h.n_act, rows = self->h.rows;
	const long shifts[] = { 5, -3 };
	char path[128], line[256];

	ASSERT_LT(0, m);
	for (int s = 0; s < 2; s++) {
		long d = shifts[s], want = d > RTHS_HS_BENCHMARK_LAG_MIN ?
			d : RTHS_HS_BENCHMARK_LAG_MIN;
		double step_ms = self->h.dt * 1e3, csv_ms;
		json_t *j, *act;
		size_t got = 0;
		FILE *f;

		for (size_t k = 0; k < rows; k++)
			for (size_t i = 0; i < m; i++) {
				long from = (long)k - d;

				from = from < 0 ? 0 : from >= (long)rows ?
				       (long)rows - 1 : from;
				self->h.disp[k * m + i] =
					self->h.target[(size_t)from * m + i];
			}
		snprintf(path, sizeof(path), "%s/summary.json", self->dir);
		ASSERT_EQ(0, report_json(path, &self->in, NULL));
		j = json_load_file(path, 0, NULL);
		ASSERT_NE(NULL, j);
		act = json_array_get(json_object_get(j, "actuators"), 0);
		ASSERT_NE(NULL, act);
		TH_LOG("shift %ld steps: J1 (refined) %.3f ms, J1 (benchmark) %.3f ms",
		       d, json_real_value(json_object_get(act, "J1_ms")),
		       json_real_value(json_object_get(act, "J1_benchmark_ms")));
		EXPECT_EQ(want, json_integer_value(
				json_object_get(act, "J1_benchmark_steps")));
		/* summary.json has 6 significant digits */
		EXPECT_GE(1e-4, fabs(json_real_value(json_object_get(
				act, "J1_benchmark_ms")) - (double)want * step_ms));
		EXPECT_GE(0.05 * step_ms, fabs(json_real_value(
				json_object_get(act, "J1_ms")) - (double)d * step_ms));
		json_decref(j);
		/* delay.csv's benchmark column, window by window */
		snprintf(path, sizeof(path), "%s/delay.csv", self->dir);
		ASSERT_EQ(1, delay_csv(path, &self->h, 1.0, 0.5, NULL));
		f = fopen(path, "r");
		ASSERT_NE(NULL, f);
		ASSERT_NE(NULL, fgets(line, sizeof(line), f));
		while (fgets(line, sizeof(line), f)) {
			ASSERT_EQ(1, sscanf(line, "%*f,%*f,%lf", &csv_ms));
			EXPECT_GE(1e-3, fabs(csv_ms - (double)want * step_ms));
			got++;
		}
		fclose(f);
		EXPECT_LT(0, got);
	}
}

/* The library's warnings reach the summary, text and JSON. */
TEST_F(run, summary_shows_warnings)
{
	struct rths_hs_warning w = {
		.code = RTHS_HS_W_LARGE_ACCELERATION,
		.path = "ground_motion",
		.msg = "the record peaks at 294 m/s^2 = 30.0 g",
	};
	char path[128], *text = NULL;
	size_t len = 0;
	json_t *j, *a;
	FILE *f = open_memstream(&text, &len);

	ASSERT_NE(NULL, f);
	self->in.warnings = &w;
	self->in.n_warnings = 1;
	report_text(f, &self->in);
	fclose(f);
	EXPECT_NE(NULL, strstr(text, "warning       ground_motion: the record peaks at 294"));
	free(text);
	snprintf(path, sizeof(path), "%s/summary.json", self->dir);
	ASSERT_EQ(0, report_json(path, &self->in, NULL));
	j = json_load_file(path, 0, NULL);
	ASSERT_NE(NULL, j);
	a = json_array_get(json_object_get(j, "warnings"), 0);
	ASSERT_NE(NULL, a);
	EXPECT_STREQ("ground_motion",
		     json_string_value(json_object_get(a, "path")));
	json_decref(j);
}

/*
 * Steps over their budget are said loudly: a line in the summary, the
 * warning rths-run prints on stderr even with -q, an object in the JSON;
 * and the preview's deciding figure goes with them.
 */
TEST_F(run, over_budget_is_loud)
{
	struct rths_hs_preview_result pr = { .chosen = 2, .n_rows = 2 };
	struct rths_hs_step_fit fit = {
		.d = 2, .samples = 1024, .figure = 812e-6, .max = 900e-6,
		.exchange = 21e-6, .budget = 2.0 / 1024, .margin = 0.2,
		.limit = 0.8 * 2.0 / 1024, .fits = true,
	};
	char path[128], *text = NULL;
	size_t len = 0, at;
	double worst;
	json_t *j, *o, *p;
	FILE *f;

	for (size_t k = 1; k < self->h.rows; k++)
		self->h.compute[k] = 10e-6;
	self->h.compute[5] = 2 * self->h.dt;
	self->h.compute[9] = 14646e-6;
	EXPECT_EQ(2, report_over_budget(&self->h, &worst, &at));
	EXPECT_EQ(14646e-6, worst);
	EXPECT_EQ(9, at);
	self->in.preview = &pr;
	self->in.preview_fit = &fit;
	f = open_memstream(&text, &len);
	ASSERT_NE(NULL, f);
	report_text(f, &self->in);
	fclose(f);
	EXPECT_NE(NULL, strstr(text, "OVER BUDGET   2 of 1024 steps computed longer than the step; worst 14646.0 us at step 9"))
		TH_LOG("%s", text);
	EXPECT_NE(NULL, strstr(text, "step preview  d = 2: p99.9 812.0 us + exchange 21.0 us <= 0.8 x 1953.1 us budget"))
		TH_LOG("%s", text);
	free(text);
	text = NULL;
	f = open_memstream(&text, &len);
	ASSERT_NE(NULL, f);
	report_over_budget_warning(f, &self->in);
	fclose(f);
	EXPECT_EQ(0, strncmp(text, "rths-run: warning: 2 of 1024 steps OVER BUDGET", 46))
		TH_LOG("%s", text);
	free(text);
	snprintf(path, sizeof(path), "%s/summary.json", self->dir);
	ASSERT_EQ(0, report_json(path, &self->in, NULL));
	j = json_load_file(path, 0, NULL);
	ASSERT_NE(NULL, j);
	o = json_object_get(j, "over_budget");
	ASSERT_NE(NULL, o);
	EXPECT_EQ(2, json_integer_value(json_object_get(o, "steps")));
	EXPECT_EQ(9, json_integer_value(json_object_get(o, "worst_step")));
	EXPECT_LT(fabs(json_real_value(json_object_get(o, "worst_us")) - 14646),
		  1e-6);
	p = json_object_get(j, "preview");
	ASSERT_NE(NULL, p);
	EXPECT_STREQ("p99.9", json_string_value(json_object_get(p, "statistic")));
	EXPECT_EQ(2, json_integer_value(json_object_get(p, "step_ticks")));
	json_decref(j);
	/* none over: no line, no warning, a zero count */
	for (size_t k = 1; k < self->h.rows; k++)
		self->h.compute[k] = 10e-6;
	text = NULL;
	f = open_memstream(&text, &len);
	ASSERT_NE(NULL, f);
	report_text(f, &self->in);
	report_over_budget_warning(f, &self->in);
	fclose(f);
	EXPECT_EQ(NULL, strstr(text, "OVER BUDGET"));
	free(text);
}

/* The script plots the columns it says (no gnuplot needed to check). */
TEST_F(run, plot_script)
{
	char path[128], want[64], *text;
	struct report R;
	long len;
	FILE *f;

	report_compute(&self->in, &R);
	ASSERT_EQ(0, plot(self->dir, "history.csv", &self->h, &R, true,
				  false, NULL));
	snprintf(path, sizeof(path), "%s/plots.gp", self->dir);
	f = fopen(path, "r");
	ASSERT_NE(NULL, f);
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	text = calloc(1, (size_t)len + 1);
	ASSERT_EQ((size_t)len, fread(text, 1, (size_t)len, f));
	fclose(f);
	EXPECT_NE(NULL, strstr(text, "set output 'hysteresis.png'"));
	snprintf(want, sizeof(want), "using ($%d*1e3):($%d*1e-3)",
		 rths_hs_csv_column(&self->h, true, RTHS_HS_CSV_DISP, 0),
		 rths_hs_csv_column(&self->h, true, RTHS_HS_CSV_FORCE, 0));
	EXPECT_NE(NULL, strstr(text, want));
	EXPECT_NE(NULL, strstr(text, "all-numerical"));
	/* what an experimentalist asks of the plots: the peak close up,
	 * late steps marked, J1-J3 and the FEI on the figure, the
	 * difference from the reference, step time against the budget, the
	 * delay over time */
	EXPECT_NE(NULL, strstr(text, "around the peak"));
	EXPECT_NE(NULL, strstr(text, "title 'late step'"));
	EXPECT_NE(NULL, strstr(text, "J1 ") && strstr(text, "FEI "));
	EXPECT_NE(NULL, strstr(text, "hybrid - all-numerical"));
	EXPECT_NE(NULL, strstr(text, "set output 'steptime.png'"));
	EXPECT_NE(NULL, strstr(text, "set output 'delay.png'"));
	free(text);
	/* delay.csv: a row per window, J1 per actuator */
	snprintf(path, sizeof(path), "%s/delay.csv", self->dir);
	f = fopen(path, "r");
	ASSERT_NE(NULL, f);
	ASSERT_NE(NULL, fgets(want, sizeof(want), f));
	EXPECT_STREQ("time_s,j1_1_ms,j1_benchmark_1_ms\n", want);
	len = 0;
	while (fgets(want, sizeof(want), f))
		len++;
	fclose(f);
	EXPECT_LT(0, len);
	EXPECT_EQ(-RTHS_E_UNSUPPORTED,
		  plot("/tmp/it's", "history.csv", &self->h, &R, false,
			       false, NULL));
}

#define NEAR(want, got, tol) EXPECT_GE((tol), fabs((double)(want) - (got)))

/* The frequency evaluation index reads a gain and a pure delay back. */
TEST(fei_of_a_known_gain_and_delay)
{
	enum { N = 4096 };
	static double c[N], x[N];
	const double dt = 1.0 / 1024, tau = 0.010, g = 0.9;
	struct fei fe;

	for (int i = 0; i < N; i++) {
		double t = i * dt;

		c[i] = sin(2 * M_PI * 2 * t) + 0.5 * sin(2 * M_PI * 5 * t);
		x[i] = g * (sin(2 * M_PI * 2 * (t - tau)) +
			    0.5 * sin(2 * M_PI * 5 * (t - tau)));
	}
	ASSERT_EQ(0, tracking_fei(c, x, N, 1, dt, &fe));
	EXPECT_TRUE(fe.ok);
	NEAR(g, fe.amplitude, 0.02);
	NEAR(2.6, fe.f_eq_hz, 0.01);
	NEAR(tau * 1e3, fe.delay_ms, 0.3);
	EXPECT_LT(fe.phase_deg, 0);
	/* perfect tracking: 1 and no delay */
	ASSERT_EQ(0, tracking_fei(c, c, N, 1, dt, &fe));
	NEAR(1.0, fe.amplitude, 1e-12);
	NEAR(0.0, fe.delay_ms, 1e-9);
	/* too short to say */
	EXPECT_EQ(-EINVAL, tracking_fei(c, x, 8, 1, dt, &fe));
}

TEST_HARNESS_MAIN
