/* SPDX-License-Identifier: GPL-2.0 */
/* Tools' plots: run gnuplot on a script the tool wrote. */
#ifndef RTHS_TOOLS_GNUPLOT_H
#define RTHS_TOOLS_GNUPLOT_H

#include <rths/error.h>

/*
 * Runs "gnuplot SCRIPT" with its output in DIR/gnuplot.log.
 * -RTHS_E_UNSUPPORTED if gnuplot is not installed, else a failure names
 * the log.
 */
int gnuplot_run(const char *dir, const char *script, struct rths_error *err);

#endif
