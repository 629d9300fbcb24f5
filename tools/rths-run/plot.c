// SPDX-License-Identifier: GPL-2.0
/* rths-run: PNG plots of a run: a gnuplot script over the CSV, run as a child. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include <rths/hs_criteria.h>

#include <rths/hs_output.h>

#include "rths-run.h"
#include "../common/gnuplot.h"

/* The half-width of tracking.png's zoom around the peak, s. */
#define ZOOM_S 0.25

/* Each actuator's J1-J3 and FEI (the report's), for the plots' titles. */
static void criteria_label(FILE *f, const struct rths_hs_history *h,
			   const struct report *R, size_t m)
{
	fprintf(f, "set label 1 \"");
	for (size_t j = 0; j < m && h->rows > 2; j++) {
		const struct rths_hs_tracking *tr = &R->track[j];
		const struct fei *fe = &R->fei[j];

		fprintf(f, "%sactuator %zu: J1 (refined) %.2f ms, J1 (benchmark) %.2f ms, J2 %.2f %%, J3 %.2f %%",
			j ? "\\n" : "", j + 1, tr->j1_ms, R->j1_bench_ms[j],
			tr->j2_pct, tr->j3_pct);
		if (fe->ok)
			fprintf(f, ", FEI %.3f at %.1f deg (%.2f ms at %.2f Hz)",
				fe->amplitude, fe->phase_deg, fe->delay_ms,
				fe->f_eq_hz);
	}
	fprintf(f, "\" at graph 0.01, graph 0.97 front font ',9'\n");
}

/* One plot line: each actuator's target and measured displacement. */
static void target_measured(FILE *f, const char *csv,
			    const struct rths_hs_history *h, bool ref,
			    size_t m, const char *target_style,
			    const char *measured_style)
{
	int t = rths_hs_csv_column(h, ref, RTHS_HS_CSV_TIME, 0);

	fprintf(f, "plot ");
	for (size_t j = 0; j < m; j++)
		fprintf(f, "%s'%s' every ::1 using %d:($%d*1e3) with %s title 'target %zu', "
			"'%s' every ::1 using %d:($%d*1e3) with %s title 'measured %zu'",
			j ? ", " : "", csv, t,
			rths_hs_csv_column(h, ref, RTHS_HS_CSV_TARGET, j),
			target_style, j + 1, csv, t,
			rths_hs_csv_column(h, ref, RTHS_HS_CSV_DISP, j),
			measured_style, j + 1);
	fputc('\n', f);
}

static void script(FILE *f, const char *csv,
		   const struct rths_hs_history *h, const struct report *R,
		   bool ref, bool delay)
{
	size_t m = h->n_act < GNUPLOT_MAX_CURVES ? h->n_act : GNUPLOT_MAX_CURVES;
	int t = rths_hs_csv_column(h, ref, RTHS_HS_CSV_TIME, 0);
	/* compute_us and flags follow the actuators' columns */
	int cu = rths_hs_csv_column(h, ref, RTHS_HS_CSV_FORCE, h->n_act - 1) + 1;
	size_t peak = 0;
	double tp;

	gnuplot_response(f, csv, h, ref);
	if (!m)
		return;
	rths_hs_peak(h->target, h->rows, h->n_act, &peak);
	tp = h->t[peak];
	fprintf(f, "set output 'tracking.png'\nset terminal pngcairo size 1200,1000 font ',10'\n"
		"set multiplot layout 3,1 title 'Command against measured displacement'\n"
		"set ylabel 'displacement (mm)'\n");
	criteria_label(f, h, R, m);
	target_measured(f, csv, h, ref, m, "lines", "lines");
	/* the peak, close up: the delay shows as the curves' offset */
	fprintf(f, "unset label 1\nset xrange [%.6f:%.6f]\n"
		"set ylabel 'around the peak (mm)'\n",
		tp - ZOOM_S, tp + ZOOM_S);
	target_measured(f, csv, h, ref, m, "linespoints pt 7 ps 0.4",
			"linespoints pt 6 ps 0.4");
	fprintf(f, "set autoscale x\nset xlabel 'time (s)'\n"
		"set ylabel 'measured - target (mm)'\nplot ");
	for (size_t j = 0; j < m; j++)
		fprintf(f, "%s'%s' every ::1 using %d:(($%d-$%d)*1e3) with lines title 'actuator %zu'",
			j ? ", " : "", csv, t,
			rths_hs_csv_column(h, ref, RTHS_HS_CSV_DISP, j),
			rths_hs_csv_column(h, ref, RTHS_HS_CSV_TARGET, j), j + 1);
	/* late steps (feedback flags extrapolated, held, decelerated) */
	fprintf(f, ", '%s' every ::1 using %d:((int($%d) & 7) ? ($%d-$%d)*1e3 : 1/0) with points pt 7 ps 0.6 lc rgb 'red' title 'late step'",
		csv, t, cu + 1, rths_hs_csv_column(h, ref, RTHS_HS_CSV_DISP, 0),
		rths_hs_csv_column(h, ref, RTHS_HS_CSV_TARGET, 0));
	fprintf(f, "\nunset multiplot\nunset xlabel\n"
		"set terminal pngcairo size 1200,800 font ',10'\n"
		"set output 'hysteresis.png'\nset title 'Specimen force-displacement'\n"
		"set xlabel 'measured displacement (mm)'\nset ylabel 'measured force (kN)'\nplot ");
	for (size_t j = 0; j < m; j++)
		fprintf(f, "%s'%s' every ::1 using ($%d*1e3):($%d*1e-3) with lines title 'actuator %zu'",
			j ? ", " : "", csv,
			rths_hs_csv_column(h, ref, RTHS_HS_CSV_DISP, j),
			rths_hs_csv_column(h, ref, RTHS_HS_CSV_FORCE, j), j + 1);
	/* each step's compute time against its budget, the step */
	fprintf(f, "\nset output 'steptime.png'\nset title 'Step compute time against the budget'\n"
		"set xlabel 'time (s)'\nset ylabel 'compute (us)'\n"
		"plot '%s' every ::1 using %d:%d with impulses lc rgb 'dark-green' title 'compute', "
		"%.6f with lines lc rgb 'blue' dt 2 title 'budget (the step)', "
		"'%s' every ::1 using %d:((int($%d) & 7) ? $%d : 1/0) with points pt 7 ps 0.6 lc rgb 'red' title 'late step'\n",
		csv, t, cu, h->dt * 1e6, csv, t, cu + 1, cu);
	if (delay) {
		fprintf(f, "set output 'delay.png'\nset title 'Delay estimate J1 over 2 s windows'\n"
			"set xlabel 'time (s)'\nset ylabel 'J1 (ms)'\n"
			"set offsets 0, 0, graph 0.05, graph 0.05\nplot ");
		/* delay.csv: time, each actuator's J1 (refined), then each
		 * one's J1 (benchmark) */
		for (size_t j = 0; j < m; j++)
			fprintf(f, "%s'delay.csv' every ::1 using 1:%zu with linespoints pt 7 ps 0.5 title 'actuator %zu, J1 (refined)', "
				"'delay.csv' every ::1 using 1:%zu with steps title 'actuator %zu, J1 (benchmark, whole steps %d..%d)'",
				j ? ", " : "", j + 2, j + 1, m + j + 2, j + 1,
				RTHS_HS_BENCHMARK_LAG_MIN,
				RTHS_HS_BENCHMARK_LAG_MAX);
		fprintf(f, "\nset offsets 0, 0, 0, 0\n");
	}
	fprintf(f, "unset title\nunset xlabel\n");
}

struct script_ctx {
	const char *csv;
	const struct rths_hs_history *h;
	const struct report *R;
	bool ref, delay;
};

static void write_script(FILE *f, const void *ctx)
{
	const struct script_ctx *c = ctx;

	script(f, c->csv, c->h, c->R, c->ref, c->delay);
}

int plot(const char *dir, const char *csv, const struct rths_hs_history *h,
	 const struct report *R, bool with_ref, bool run,
	 struct rths_error *err)
{
	struct script_ctx c = { csv, h, R, with_ref, false };
	char path[PATH_MAX + 16];
	int r;

	if (strchr(csv, '\'') || strchr(dir, '\''))
		return rths_error_set(err, RTHS_E_UNSUPPORTED, dir, 0, NULL,
				      "plots: a quote in the output path");
	/* J1 over 2 s windows every 0.5 s, for delay.png */
	snprintf(path, sizeof(path), "%s/delay.csv", dir);
	r = delay_csv(path, h, 2.0, 0.5, err);
	if (r < 0)
		return r;
	c.delay = r > 0;
	return gnuplot_script(dir, "rths-run", write_script, &c, run, err);
}
