/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rths hybrid simulation: errors.
 *
 * Every failing call of the engine fills a struct rths_hs_error (when the
 * caller passes one) and returns -code.  The error names the file and line
 * (for text inputs), the JSON path of the offending field (for experiment
 * files, e.g. "model.stories[2].stiffness") and what was expected.
 */
#ifndef RTHS_HS_ERROR_H
#define RTHS_HS_ERROR_H

/* librths is built with -fvisibility=hidden: this is its API. */
#pragma GCC visibility push(default)

#include <stddef.h>

/* Each kind of bad input has its own code; 0 is success. */
enum rths_hs_err {
	RTHS_HS_OK = 0,
	RTHS_HS_E_NOMEM,		/* out of memory */
	RTHS_HS_E_INVALID,		/* bad argument to a library call */
	RTHS_HS_E_IO,			/* a file cannot be opened/read/written */
	RTHS_HS_E_JSON_SYNTAX,		/* not valid JSON */
	RTHS_HS_E_MISSING_FIELD,	/* a required field is absent */
	RTHS_HS_E_UNKNOWN_FIELD,	/* a field the format does not define */
	RTHS_HS_E_WRONG_TYPE,		/* e.g. a string where a number goes */
	RTHS_HS_E_OUT_OF_RANGE,		/* a number outside its bounds */
	RTHS_HS_E_BAD_CHOICE,		/* a string not among the allowed ones */
	RTHS_HS_E_BAD_SHAPE,		/* array or matrix of the wrong size */
	RTHS_HS_E_NOT_SYMMETRIC,	/* M, K or C not symmetric */
	RTHS_HS_E_NOT_POSITIVE_DEFINITE, /* M not positive definite */
	RTHS_HS_E_BAD_DOF,		/* DOF or story index out of range */
	RTHS_HS_E_DUPLICATE,		/* the same DOF or story listed twice */
	RTHS_HS_E_CONFLICT,		/* mutually exclusive fields */
	RTHS_HS_E_BAD_GEOMETRY,		/* degenerate actuator layout */
	RTHS_HS_E_UNSTABLE_STEP,	/* explicit method beyond its limit */
	RTHS_HS_E_GM_HEADER,		/* ground motion file header */
	RTHS_HS_E_GM_VALUE,		/* a value that is not a number */
	RTHS_HS_E_GM_COUNT,		/* fewer or more values than NPTS */
	RTHS_HS_E_GM_TIME_STEP,		/* two-column file not equally spaced */
	RTHS_HS_E_SINGULAR,		/* a matrix LAPACK cannot factor */
	RTHS_HS_E_NO_CONVERGENCE,	/* Newton iteration did not converge */
	RTHS_HS_E_UNSUPPORTED,		/* valid, but not possible here */
	RTHS_HS_E_BACKEND,		/* the specimen backend failed */
	RTHS_HS_E_DIVERGED,		/* the response became non-finite */
	RTHS_HS_E_TOO_SLOW,		/* no step size keeps up with real time */
	RTHS_HS_E__COUNT,
};

struct rths_hs_error {
	enum rths_hs_err code;
	char file[256];		/* input file, "" if none */
	unsigned int line;	/* line in that file, 0 if none */
	char path[160];		/* JSON path of the field, "" if none */
	char msg[384];		/* what was wrong and what was expected */
};

/* "out-of-range", "missing-field", ...: stable names for scripts/tests. */
const char *rths_hs_err_name(enum rths_hs_err code);

/*
 * Fill @err (if not NULL) and return -code.  @file, @path may be NULL;
 * @line 0 means no line.
 */
int rths_hs_fail(struct rths_hs_error *err, enum rths_hs_err code,
		 const char *file, unsigned int line, const char *path,
		 const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

/* "FILE:LINE: PATH: MSG [name]" with the parts that are set. */
const char *rths_hs_error_str(const struct rths_hs_error *err, char *buf,
			      size_t len);

#pragma GCC visibility pop

#endif /* RTHS_HS_ERROR_H */
