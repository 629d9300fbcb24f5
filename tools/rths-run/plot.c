// SPDX-License-Identifier: GPL-2.0
/* rths-run: PNG plots of a run: a gnuplot script over the CSV, run as a child. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rths/hs_output.h>

#include "rths-run.h"
#include "../common/gnuplot.h"

static void script(FILE *f, const char *csv,
		   const struct rths_hs_history *h, bool ref)
{
	size_t m = h->n_act < GNUPLOT_MAX_CURVES ? h->n_act : GNUPLOT_MAX_CURVES;
	int t = rths_hs_csv_column(h, ref, RTHS_HS_CSV_TIME, 0);

	gnuplot_response(f, csv, h, ref);
	if (!m)
		return;
	fprintf(f, "set output 'tracking.png'\nset multiplot layout 2,1 title 'Command against measured displacement'\n"
		"set ylabel 'displacement (mm)'\nplot ");
	for (size_t j = 0; j < m; j++)
		fprintf(f, "%s'%s' every ::1 using %d:($%d*1e3) with lines title 'target %zu', "
			"'%s' every ::1 using %d:($%d*1e3) with lines title 'measured %zu'",
			j ? ", " : "", csv, t,
			rths_hs_csv_column(h, ref, RTHS_HS_CSV_TARGET, j), j + 1,
			csv, t, rths_hs_csv_column(h, ref, RTHS_HS_CSV_DISP, j),
			j + 1);
	fprintf(f, "\nset xlabel 'time (s)'\nset ylabel 'measured - target (mm)'\nplot ");
	for (size_t j = 0; j < m; j++)
		fprintf(f, "%s'%s' every ::1 using %d:(($%d-$%d)*1e3) with lines title 'actuator %zu'",
			j ? ", " : "", csv, t,
			rths_hs_csv_column(h, ref, RTHS_HS_CSV_DISP, j),
			rths_hs_csv_column(h, ref, RTHS_HS_CSV_TARGET, j), j + 1);
	fprintf(f, "\nunset multiplot\nunset xlabel\n"
		"set output 'hysteresis.png'\nset title 'Specimen force-displacement'\n"
		"set xlabel 'measured displacement (mm)'\nset ylabel 'measured force (kN)'\nplot ");
	for (size_t j = 0; j < m; j++)
		fprintf(f, "%s'%s' every ::1 using ($%d*1e3):($%d*1e-3) with lines title 'actuator %zu'",
			j ? ", " : "", csv,
			rths_hs_csv_column(h, ref, RTHS_HS_CSV_DISP, j),
			rths_hs_csv_column(h, ref, RTHS_HS_CSV_FORCE, j), j + 1);
	fputc('\n', f);
}

struct script_ctx {
	const char *csv;
	const struct rths_hs_history *h;
	bool ref;
};

static void write_script(FILE *f, const void *ctx)
{
	const struct script_ctx *c = ctx;

	script(f, c->csv, c->h, c->ref);
}

int plot(const char *dir, const char *csv, const struct rths_hs_history *h,
	 bool with_ref, bool run, struct rths_error *err)
{
	struct script_ctx c = { csv, h, with_ref };

	if (strchr(csv, '\''))
		return rths_error_set(err, RTHS_E_UNSUPPORTED, dir, 0, NULL,
				      "plots: a quote in the output path");
	return gnuplot_script(dir, "rths-run", write_script, &c, run, err);
}
