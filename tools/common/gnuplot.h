/* SPDX-License-Identifier: GPL-2.0 */
/* Tools' plots: run gnuplot on a script the tool wrote. */
#ifndef RTHS_TOOLS_GNUPLOT_H
#define RTHS_TOOLS_GNUPLOT_H

#include <stdbool.h>
#include <stdio.h>

#include <rths/error.h>
#include <rths/hs_sim.h>

/* Curves a plot shows at most. */
#define GNUPLOT_MAX_CURVES 8

/*
 * Runs "gnuplot SCRIPT" in DIR (SCRIPT relative to it), its output in
 * DIR/gnuplot.log.
 * -RTHS_E_UNSUPPORTED if gnuplot is not installed, else a failure names
 * the log.
 */
int gnuplot_run(const char *dir, const char *script, struct rths_error *err);

/*
 * Writes DIR/plots.gp: a header, then what @write adds, file names
 * relative to DIR (so "cd DIR && gnuplot plots.gp" works); runs it in
 * DIR if @run.  A quote in DIR is refused.
 */
int gnuplot_script(const char *dir, const char *tool,
		   void (*write)(FILE *f, const void *ctx), const void *ctx,
		   bool run, struct rths_error *err);

/* response.png from the CSV rths_hs_write_csv() wrote: each DOF's
 * displacement (the reference's dashed, if @ref) and the ground's
 * acceleration. */
void gnuplot_response(FILE *f, const char *csv,
		      const struct rths_hs_history *h, bool ref);

#endif
