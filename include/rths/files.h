/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rths file formats (lib/files): experiment files, ground-motion records
 * and CSV outputs, read and written above the engine.  The engine
 * (<rths/hs.h> and its parts) takes structs, never paths or JSON; these
 * calls turn files into its structs and its history into files.  Same
 * library and version map as the engine; <rths/hs_experiment.h>,
 * <rths/hs_groundmotion.h> and <rths/hs_output.h> include this header,
 * so programs written against them still compile.
 *
 * Errors: a negative errno or -RTHS_E_xxx (rths/error.h); calls that take
 * a struct rths_error fill it with what went wrong and where (file:line).
 */
#ifndef RTHS_FILES_H
#define RTHS_FILES_H

/* librths is built with -fvisibility=hidden: this is its API. */
#pragma GCC visibility push(default)

#ifdef __cplusplus
extern "C" {
#endif

struct rths_error;
struct rths_hs_backend;
struct rths_hs_experiment;
struct rths_hs_gm;
struct rths_hs_history;
struct rths_hs_run_result;

/* Experiment files (JSON; Documentation/hs.rst). */
/*
 * Reads, checks, and loads the ground motion; relative paths inside are
 * taken from the file's directory.  On success *@out is a new experiment
 * for rths_hs_experiment_free(); on failure it is NULL.  A NULL @out,
 * @path or @text: -EINVAL; a directory: -EISDIR; other failures to read:
 * -errno.
 */
int rths_hs_experiment_load(const char *path, struct rths_hs_experiment **out,
			    struct rths_error *err);
/* The same from text; @name labels errors, @base_dir resolves paths. */
int rths_hs_experiment_parse(const char *text, const char *name,
			     const char *base_dir,
			     struct rths_hs_experiment **out,
			     struct rths_error *err);

/* Running an experiment: the backend it names, and the whole run. */
/* Flags: the offline modelled device, whatever "device" the file names. */
#define RTHS_HS_RUN_OFFLINE 0x1u

/* What rths_hs_experiment_open_backend() opened, in words. */
struct rths_hs_backend_desc {
	char backend[96];	/* "offline", "device rths0 (card sim, ...)" */
	char actuator[256];	/* the actuator and plant model, or "" */
};

/*
 * Opens the backend of @x (which must have a specimen): the rths device
 * its "device" section names (the sim card is created if missing and
 * removed at close), or with RTHS_HS_RUN_OFFLINE, or for "backend":
 * "offline", the modelled device under the same limits; then its
 * "plant" if it sets one.  A device writes its actuator-rate trace.csv
 * into @trace_dir (NULL: none).  @desc (may be NULL) says what was
 * opened.  Close with rths_hs_backend_close().
 */
int rths_hs_experiment_open_backend(const struct rths_hs_experiment *x,
				    unsigned int flags, const char *trace_dir,
				    struct rths_hs_backend *b,
				    struct rths_hs_backend_desc *desc,
				    struct rths_error *err);
/*
 * Runs @x from start to end: its backend as above (none if it is
 * all-numerical), its ODE substructures, the history into @h (free it
 * with rths_hs_history_free()).  The return and @res as for
 * rths_hs_sim_run() (<rths/hs_sim.h>).  Not real-time by itself: a
 * caller that wants it calls rths_rt_enter() (<rths/rt.h>) first.
 */
int rths_hs_experiment_run(const struct rths_hs_experiment *x,
			   unsigned int flags, const char *trace_dir,
			   struct rths_hs_history *h,
			   struct rths_hs_run_result *res,
			   struct rths_error *err);

/* Ground-motion records. */
/*
 * PEER NGA .AT2: four header lines (the third names an acceleration and
 * its units, "UNITS OF G" in NGA files; CM/S/S and M/S/S are also
 * accepted; a velocity or displacement record (.VT2, .DT2) is refused),
 * the fourth holds NPTS and DT either as "NPTS=  5590, DT=   .0050 SEC"
 * (NGA-West2) or as "5590   .0050   NPTS, DT" (older files) and nothing
 * else (unit words SEC or S once, after DT); NPTS is a decimal integer,
 * DT a decimal number of seconds in [1e-5, 1] (no hex); then NPTS
 * free-format values, any number per line.  NPTS must fit in the file (at
 * least two bytes a value).  Values are converted to m/s^2.  Both
 * readers: a directory gives -EISDIR, a file that cannot be opened
 * -errno, with @err naming the file.
 */
int rths_hs_gm_read_at2(struct rths_hs_gm *gm, const char *path,
			struct rths_error *err);

/* Reader flags. */
enum rths_hs_gm_flags {
	/* a two-column record may start at t0 != 0: its first sample is
	 * taken as t = 0 (without it, -RTHS_E_GM_TIME_STEP) */
	RTHS_HS_GM_SHIFT_TO_ZERO = 1u << 0,
};

/*
 * Two columns "time accel" per line; '#' starts a comment; blank lines are
 * skipped.  Times must be equally spaced (to 1e-6 of the step) and start
 * at t = 0, or anywhere with RTHS_HS_GM_SHIFT_TO_ZERO.  Values are
 * multiplied by @to_si (RTHS_HS_G for g).  A PEER NGA record is refused
 * saying what it holds (an acceleration to read as AT2, or a velocity or
 * displacement).
 */
int rths_hs_gm_read_two_column(struct rths_hs_gm *gm, const char *path,
			       double to_si, unsigned int flags,
			       struct rths_error *err);

/* CSV outputs; the column layout is <rths/hs_output.h>'s. */
/* @ref (may be NULL) adds the reference displacements. */
int rths_hs_write_csv(const char *path, const struct rths_hs_history *h,
		      const struct rths_hs_history *ref, unsigned int every,
		      struct rths_error *err);

#ifdef __cplusplus
}
#endif

#pragma GCC visibility pop

#endif /* RTHS_FILES_H */
