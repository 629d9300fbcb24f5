// SPDX-License-Identifier: GPL-2.0
/*
 * rths-coord's plots: a gnuplot script over history.csv and steps.csv
 * (the response, each site's force-displacement loop, the step time and
 * its histogram), run by tools/common/gnuplot.c.
 */
#include <stdio.h>

#include <rths/hs_output.h>

#include "coord.h"
#include "../common/gnuplot.h"

/* Channel i of the history is interface coordinate i. */
static void loops(FILE *f, const struct report *r)
{
	const struct rths_hs_history *h = r->h;
	bool ref = r->ref != NULL;

	for (size_t s = 0; s < r->cc->n_sites; s++) {
		const struct site_config *sc = &r->cc->sites[s];

		fprintf(f, "set output 'loop-%s.png'\nset title 'Site %s: force against displacement'\n"
			"set xlabel 'displacement (mm)'\nset ylabel 'force (kN)'\nplot ",
			sc->name, sc->name);
		for (uint32_t j = 0; j < sc->ndof; j++)
			fprintf(f, "%s'history.csv' every ::1 using ($%d*1e3):($%d*1e-3) with lines title 'coordinate %u'",
				j ? ", " : "",
				rths_hs_csv_column(h, ref, RTHS_HS_CSV_DISP, sc->dofs[j]),
				rths_hs_csv_column(h, ref, RTHS_HS_CSV_FORCE, sc->dofs[j]),
				sc->dofs[j]);
		fprintf(f, "\nunset title\n");
	}
}

/* steps.csv: step, time, step_ms, then 4 columns a site (rtt first). */
static void step_time(FILE *f, const struct report *r)
{
	fprintf(f, "set output 'steptime.png'\nset title 'Step time and round trips'\n"
		"set xlabel 'time (s)'\nset ylabel 'ms'\n"
		"plot 'steps.csv' every ::1 using 2:3 with lines lw 2 title 'step'");
	for (size_t s = 0; s < r->cc->n_sites; s++)
		fprintf(f, ", 'steps.csv' every ::1 using 2:%zu with lines title '%s round trip'",
			4 + 4 * s, r->cc->sites[s].name);
	fprintf(f, "\nset output 'steptime-hist.png'\nset title 'Step time histogram'\n"
		"stats 'steps.csv' every ::1 using 3 nooutput\n"
		"w = (STATS_max - STATS_min) / 50.0\nif (w <= 0) w = 0.001\n"
		"bin(x) = w * floor(x / w) + w / 2\n"
		"set xlabel 'step time (ms)'\nset ylabel 'steps'\nset style fill solid 0.5\n"
		"plot 'steps.csv' every ::1 using (bin($3)):(1) smooth frequency with boxes title 'steps'\n"
		"unset title\n");
}

static void script(FILE *f, const void *ctx)
{
	const struct report *r = ctx;

	gnuplot_response(f, "history.csv", r->h, r->ref != NULL);
	loops(f, r);
	if (coord_steps_done(r->b) > coord_steps_journaled(r->b))
		step_time(f, r);
}

int plot(const char *dir, const struct report *r, bool run,
	 struct rths_error *err)
{
	return gnuplot_script(dir, "rths-coord", script, r, run, err);
}
