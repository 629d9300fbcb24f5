/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * librths errors: one convention for the whole library.
 *
 * Every failing librths call returns a negative int, and 0 (or a count)
 * on success:
 *   -errno        (-1 .. -4095) when the system said no: -ENOMEM, -EINVAL
 *                 for a bad argument or call order, -ENOENT for a file
 *                 that fopen() cannot find, -EIO when a write fails
 *                 without an errno;
 *   -RTHS_E_xxx   (-4096 and below) for librths's own conditions.
 * The two ranges never overlap, so a code says which it is.
 *
 * rths_strerror() turns any code into a sentence and rths_strerror_name()
 * into a stable name for scripts ("out-of-range", "hmin", "ENOENT").
 * Both accept either sign.
 *
 * Calls that read text inputs (experiment files, ground motion records)
 * also fill a struct rths_error, when the caller passes one, with the
 * file, line and JSON path at fault; rths_error_str() formats it.  The
 * device layer keeps the kernel's own explanation of a failed request in
 * its handle: rths_ctl_error() (device.h).
 */
#ifndef RTHS_ERROR_H
#define RTHS_ERROR_H

/* librths is built with -fvisibility=hidden: this is its API. */
#pragma GCC visibility push(default)

#include <errno.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* First code above the errno range. */
#define RTHS_E_BASE 4096

/*
 * librths's own conditions.  Values are part of the ABI: new codes go at
 * the end, before RTHS_E__END.
 */
enum rths_error_code {
	/* numerics (ODE/DAE integrators and the hybrid engine) */
	RTHS_E_NONFINITE = RTHS_E_BASE,	/* NaN/Inf in input, callback or state */
	RTHS_E_SINGULAR,		/* a matrix LAPACK cannot factor */
	RTHS_E_HMIN,			/* step size underflow */
	RTHS_E_MAXSTEPS,		/* too many steps */
	RTHS_E_INCONSISTENT,		/* inconsistent initial conditions */
	RTHS_E_NO_CONVERGENCE,		/* Newton iteration did not converge */
	RTHS_E_ERRTEST,			/* error test fails repeatedly */
	RTHS_E_CALLBACK,		/* a user callback returned nonzero */
	RTHS_E_METHOD,			/* method cannot solve this system */
	RTHS_E_TOLERANCE,		/* tolerances invalid or too small */
	RTHS_E_FIXEDSTEP,		/* CONSTANT_BDF, ROSENBROCK_W: fixed
					 * step too large for the tolerances */
	/* text inputs */
	RTHS_E_JSON_SYNTAX,		/* not valid JSON */
	RTHS_E_MISSING_FIELD,		/* a required field is absent */
	RTHS_E_UNKNOWN_FIELD,		/* a field the format does not define */
	RTHS_E_WRONG_TYPE,		/* e.g. a string where a number goes */
	RTHS_E_OUT_OF_RANGE,		/* a number outside its bounds */
	RTHS_E_BAD_CHOICE,		/* a string not among the allowed ones */
	RTHS_E_BAD_SHAPE,		/* array or matrix of the wrong size */
	RTHS_E_NOT_SYMMETRIC,		/* M, K or C not symmetric */
	RTHS_E_NOT_POSITIVE_DEFINITE,	/* M not positive definite */
	RTHS_E_BAD_DOF,			/* DOF or story index out of range */
	RTHS_E_DUPLICATE,		/* the same DOF or story listed twice */
	RTHS_E_CONFLICT,		/* mutually exclusive fields */
	RTHS_E_BAD_GEOMETRY,		/* degenerate actuator layout */
	RTHS_E_UNSTABLE_STEP,		/* explicit method beyond its limit */
	RTHS_E_GM_HEADER,		/* ground motion file header */
	RTHS_E_GM_VALUE,		/* a value that is not a number */
	RTHS_E_GM_COUNT,		/* fewer or more values than NPTS */
	RTHS_E_GM_TIME_STEP,		/* two-column file not equally spaced */
	/* running a hybrid simulation */
	RTHS_E_UNSUPPORTED,		/* valid, but not possible here */
	RTHS_E_BACKEND,			/* the specimen backend failed */
	RTHS_E_DIVERGED,		/* the response became non-finite */
	RTHS_E_TOO_SLOW,		/* no step size keeps up with real time */
	RTHS_E__END			/* one past the last code */
};

/*
 * A sentence for @err (either sign): "success" for 0, the C library's
 * description for an errno, "unknown error" for a code that is neither.
 * Never NULL; thread-safe; the string is constant.
 */
const char *rths_strerror(int err);

/*
 * A stable name for @err (either sign): "ok" for 0, "out-of-range",
 * "hmin"... for RTHS_E_ codes, the symbol for an errno ("ENOENT"), and
 * "unknown-error" otherwise.  Never NULL; thread-safe.
 */
const char *rths_strerror_name(int err);

/* Where a text input went wrong, and why. */
struct rths_error {
	int code;		/* negative, as returned; 0 if none */
	char file[256];		/* input file, "" if none */
	unsigned int line;	/* line in that file, 0 if none */
	char path[160];		/* JSON path of the field, "" if none */
	char msg[384];		/* what was wrong and what was expected */
};

/*
 * Fill @err (if not NULL) and return the negative code.  @code may have
 * either sign (an errno, an RTHS_E_ code or a code returned earlier);
 * 0 becomes EIO, as a failure must not read as success.  @file and @path
 * may be NULL; @line 0 means no line.  errno is preserved.
 */
int rths_error_set(struct rths_error *err, int code, const char *file,
		   unsigned int line, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

/*
 * "FILE:LINE: PATH: MSG [name]" with the parts that are set; without a
 * message, rths_strerror() of the code.  Returns @buf.
 */
const char *rths_error_str(const struct rths_error *err, char *buf,
			   size_t len);

#ifdef __cplusplus
}
#endif

#pragma GCC visibility pop

#endif /* RTHS_ERROR_H */
