// SPDX-License-Identifier: LGPL-2.1-or-later
/* Error reporting shared by every part of the hybrid simulation engine. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <rths/hs_error.h>

static const char *const err_names[RTHS_HS_E__COUNT] = {
	[RTHS_HS_OK] = "ok",
	[RTHS_HS_E_NOMEM] = "out-of-memory",
	[RTHS_HS_E_INVALID] = "invalid-argument",
	[RTHS_HS_E_IO] = "io",
	[RTHS_HS_E_JSON_SYNTAX] = "json-syntax",
	[RTHS_HS_E_MISSING_FIELD] = "missing-field",
	[RTHS_HS_E_UNKNOWN_FIELD] = "unknown-field",
	[RTHS_HS_E_WRONG_TYPE] = "wrong-type",
	[RTHS_HS_E_OUT_OF_RANGE] = "out-of-range",
	[RTHS_HS_E_BAD_CHOICE] = "bad-choice",
	[RTHS_HS_E_BAD_SHAPE] = "bad-shape",
	[RTHS_HS_E_NOT_SYMMETRIC] = "not-symmetric",
	[RTHS_HS_E_NOT_POSITIVE_DEFINITE] = "not-positive-definite",
	[RTHS_HS_E_BAD_DOF] = "bad-dof",
	[RTHS_HS_E_DUPLICATE] = "duplicate",
	[RTHS_HS_E_CONFLICT] = "conflict",
	[RTHS_HS_E_BAD_GEOMETRY] = "bad-geometry",
	[RTHS_HS_E_UNSTABLE_STEP] = "unstable-step",
	[RTHS_HS_E_GM_HEADER] = "ground-motion-header",
	[RTHS_HS_E_GM_VALUE] = "ground-motion-value",
	[RTHS_HS_E_GM_COUNT] = "ground-motion-count",
	[RTHS_HS_E_GM_TIME_STEP] = "ground-motion-time-step",
	[RTHS_HS_E_SINGULAR] = "singular-matrix",
	[RTHS_HS_E_NO_CONVERGENCE] = "no-convergence",
	[RTHS_HS_E_UNSUPPORTED] = "unsupported",
	[RTHS_HS_E_BACKEND] = "backend",
	[RTHS_HS_E_DIVERGED] = "diverged",
	[RTHS_HS_E_TOO_SLOW] = "too-slow",
};

const char *rths_hs_err_name(enum rths_hs_err code)
{
	if ((unsigned int)code >= RTHS_HS_E__COUNT || !err_names[code])
		return "unknown-error";
	return err_names[code];
}

int rths_hs_fail(struct rths_hs_error *err, enum rths_hs_err code,
		 const char *file, unsigned int line, const char *path,
		 const char *fmt, ...)
{
	va_list ap;

	if (err) {
		err->code = code;
		snprintf(err->file, sizeof(err->file), "%s", file ? file : "");
		err->line = line;
		snprintf(err->path, sizeof(err->path), "%s", path ? path : "");
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
	}
	return -(int)code;
}

const char *rths_hs_error_str(const struct rths_hs_error *err, char *buf,
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
	APPEND("%s [%s]", err->msg, rths_hs_err_name(err->code));
#undef APPEND
	return buf;
}
