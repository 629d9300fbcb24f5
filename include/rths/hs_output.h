/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rths hybrid simulation: outputs of a run.
 *   CSV      the step history, one row a step (every n-th): its column
 *            layout for other tools (rths_hs_write_csv(), which writes
 *            it to a path, is in <rths/files.h>).
 * The library writes nothing else: the summary and the plots are
 * rths-run's (tools/rths-run), built from the history and the criteria of
 * <rths/hs_criteria.h>.
 *
 * Errors: a negative errno or -RTHS_E_xxx (rths/error.h); calls that take
 * a struct rths_error fill it with what went wrong and where.
 */
#ifndef RTHS_HS_OUTPUT_H
#define RTHS_HS_OUTPUT_H

/* librths is built with -fvisibility=hidden: this is its API. */
#pragma GCC visibility push(default)

#include <rths/hs_error.h>
#include <rths/hs_integrator.h>
#include <rths/hs_sim.h>

#ifdef __cplusplus
extern "C" {
#endif

/* CSV columns, 1-based as gnuplot counts them. */
enum rths_hs_csv_field {
	RTHS_HS_CSV_TIME = 1,	/* index ignored */
	RTHS_HS_CSV_AG,
	RTHS_HS_CSV_U,		/* DOF index */
	RTHS_HS_CSV_V,
	RTHS_HS_CSV_A,
	RTHS_HS_CSV_TARGET,	/* actuator index */
	RTHS_HS_CSV_COMMAND,
	RTHS_HS_CSV_DISP,
	RTHS_HS_CSV_FORCE,
	RTHS_HS_CSV_UREF,	/* DOF index; only with a reference */
};

/* The 1-based CSV column of field @f (index: the DOF or actuator);
 * -ENOENT for RTHS_HS_CSV_UREF without a reference, -EINVAL for an
 * unknown field. */
int rths_hs_csv_column(const struct rths_hs_history *h, bool with_ref,
		       enum rths_hs_csv_field f, size_t index);
/* The name of 1-based CSV column @col (e.g. "disp2_m") into @buf, as
 * rths_hs_write_csv() heads it: snprintf's length, -ENOENT past the last
 * column, -EINVAL for a column below 1. */
int rths_hs_csv_column_name(const struct rths_hs_history *h, bool with_ref,
			    int col, char *buf, size_t size);

#ifdef __cplusplus
}
#endif

#pragma GCC visibility pop

/* Source compatibility: the file readers and writers are in
 * <rths/files.h> (lib/files). */
#include <rths/files.h>

#endif /* RTHS_HS_OUTPUT_H */
