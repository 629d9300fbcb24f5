// SPDX-License-Identifier: LGPL-2.1-or-later
/* The library's one error convention: messages, names, the detail carrier. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <rths/error.h>

struct code_text {
	const char *name;
	const char *msg;
};

#define T(code, n, m) [(code) - RTHS_E_BASE] = { n, m }
static const struct code_text texts[RTHS_E__END - RTHS_E_BASE] = {
	T(RTHS_E_NONFINITE, "non-finite",
	  "non-finite value (NaN or Inf) in input, callback output or solution"),
	T(RTHS_E_SINGULAR, "singular-matrix",
	  "a matrix is singular: LAPACK cannot factor it (for the integrators, the iteration matrix)"),
	T(RTHS_E_HMIN, "hmin",
	  "step size underflow: the step fell below h_min or machine precision"),
	T(RTHS_E_MAXSTEPS, "max-steps",
	  "too many steps before reaching the output time"),
	T(RTHS_E_INCONSISTENT, "inconsistent",
	  "inconsistent initial conditions: F(t0, y0, y'0) is not zero within the tolerances, or constraints that cannot be met"),
	T(RTHS_E_NO_CONVERGENCE, "no-convergence",
	  "Newton iteration failed to converge repeatedly"),
	T(RTHS_E_ERRTEST, "error-test",
	  "local error test failed repeatedly"),
	T(RTHS_E_CALLBACK, "callback",
	  "a user callback reported failure"),
	T(RTHS_E_METHOD, "method",
	  "the method cannot integrate this kind of system"),
	T(RTHS_E_TOLERANCE, "tolerance",
	  "tolerances are invalid or too small for machine precision: rtol must be 0 or at least 4 DBL_EPSILON (8.9e-16), and rtol |y| + atol positive and at least that relative to y"),
	T(RTHS_E_FIXEDSTEP, "fixed-step",
	  "the fixed step is too large for the tolerances: a step's local error estimate exceeds them by more than control.fixed_err_max, or the estimates' sum since the start by more than 10 times that"),
	T(RTHS_E_JSON_SYNTAX, "json-syntax", "not valid JSON"),
	T(RTHS_E_MISSING_FIELD, "missing-field", "a required field is missing"),
	T(RTHS_E_UNKNOWN_FIELD, "unknown-field",
	  "a field the format does not define"),
	T(RTHS_E_WRONG_TYPE, "wrong-type", "a value of the wrong type"),
	T(RTHS_E_OUT_OF_RANGE, "out-of-range", "a number outside its bounds"),
	T(RTHS_E_BAD_CHOICE, "bad-choice",
	  "a string that is not one of the allowed choices"),
	T(RTHS_E_BAD_SHAPE, "bad-shape", "an array or matrix of the wrong size"),
	T(RTHS_E_NOT_SYMMETRIC, "not-symmetric", "a matrix that must be symmetric is not"),
	T(RTHS_E_NOT_POSITIVE_DEFINITE, "not-positive-definite",
	  "a matrix that must be positive definite is not"),
	T(RTHS_E_BAD_DOF, "bad-dof", "a degree of freedom or story index out of range"),
	T(RTHS_E_DUPLICATE, "duplicate",
	  "the same degree of freedom or story is listed twice"),
	T(RTHS_E_CONFLICT, "conflict", "fields that exclude each other are both set"),
	T(RTHS_E_BAD_GEOMETRY, "bad-geometry", "a degenerate actuator layout"),
	T(RTHS_E_UNSTABLE_STEP, "unstable-step",
	  "the step is beyond the stability limit of the explicit method"),
	T(RTHS_E_GM_HEADER, "ground-motion-header",
	  "the ground motion file's header is not understood"),
	T(RTHS_E_GM_VALUE, "ground-motion-value",
	  "a ground motion value that is not a number"),
	T(RTHS_E_GM_COUNT, "ground-motion-count",
	  "the ground motion file has fewer or more values than its header says"),
	T(RTHS_E_GM_TIME_STEP, "ground-motion-time-step",
	  "the ground motion record is not equally spaced in time"),
	T(RTHS_E_UNSUPPORTED, "unsupported", "valid, but not possible here"),
	T(RTHS_E_BACKEND, "backend", "the specimen backend failed"),
	T(RTHS_E_DIVERGED, "diverged", "the response became non-finite"),
	T(RTHS_E_TOO_SLOW, "too-slow",
	  "no integration step keeps up with real time"),
};
#undef T

/* The magnitude of a code of either sign; -1 for INT_MIN. */
static int magnitude(int err)
{
	if (err == INT_MIN)
		return -1;
	return err < 0 ? -err : err;
}

static const struct code_text *own(int e)
{
	if (e < RTHS_E_BASE || e >= RTHS_E__END || !texts[e - RTHS_E_BASE].name)
		return NULL;
	return &texts[e - RTHS_E_BASE];
}

/*
 * strerrordesc_np() and strerrorname_np() return constant strings, unlike
 * strerror() (a shared buffer for unknown codes) or strerror_r().
 */
const char *rths_strerror(int err)
{
	int e = magnitude(err);
	const struct code_text *t = own(e);
	const char *s = NULL;

	if (e == 0)
		return "success";
	if (t)
		return t->msg;
	if (e > 0 && e < RTHS_E_BASE)
		s = strerrordesc_np(e);
	return s ? s : "unknown error";
}

const char *rths_strerror_name(int err)
{
	int e = magnitude(err);
	const struct code_text *t = own(e);
	const char *s = NULL;

	if (e == 0)
		return "ok";
	if (t)
		return t->name;
	if (e > 0 && e < RTHS_E_BASE)
		s = strerrorname_np(e);
	return s ? s : "unknown-error";
}

int rths_error_set(struct rths_error *err, int code, const char *file,
		   unsigned int line, const char *path, const char *fmt, ...)
{
	int saved = errno;
	int e = magnitude(code);
	va_list ap;

	if (e <= 0)
		e = EIO;
	if (err) {
		err->code = -e;
		snprintf(err->file, sizeof(err->file), "%s", file ? file : "");
		err->line = line;
		snprintf(err->path, sizeof(err->path), "%s", path ? path : "");
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
	}
	errno = saved;
	return -e;
}

const char *rths_error_str(const struct rths_error *err, char *buf,
			   size_t len)
{
	size_t o = 0;

#define APPEND(...) do { \
		int r_ = snprintf(buf + o, o < len ? len - o : 0, __VA_ARGS__); \
		if (r_ > 0) \
			o += (size_t)r_; \
	} while (0)
	if (!len)
		return buf;
	buf[0] = '\0';
	if (err->file[0]) {
		APPEND("%s", err->file);
		if (err->line)
			APPEND(":%u", err->line);
		APPEND(": ");
	}
	if (err->path[0])
		APPEND("%s: ", err->path);
	APPEND("%s [%s]", err->msg[0] ? err->msg : rths_strerror(err->code),
	       rths_strerror_name(err->code));
#undef APPEND
	return buf;
}
