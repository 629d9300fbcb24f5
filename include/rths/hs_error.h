/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rths hybrid simulation: errors.
 *
 * The engine follows librths's convention (rths/error.h): every failing
 * call returns a negative errno or -RTHS_E_xxx and fills a struct
 * rths_error (when the caller passes one) that names the file and line
 * (for text inputs), the JSON path of the offending field (for experiment
 * files, e.g. "model.stories[2].stiffness") and what was expected.
 */
#ifndef RTHS_HS_ERROR_H
#define RTHS_HS_ERROR_H

/* librths is built with -fvisibility=hidden: this is its API. */
#pragma GCC visibility push(default)

#include <rths/error.h>

/* BEGIN transitional names: rename-errors.sh removes this block */
enum rths_hs_err {
	RTHS_HS_OK = 0,
	RTHS_HS_E_NOMEM = ENOMEM,
	RTHS_HS_E_INVALID = EINVAL,
	RTHS_HS_E_IO = EIO,
	RTHS_HS_E_JSON_SYNTAX = RTHS_E_JSON_SYNTAX,
	RTHS_HS_E_MISSING_FIELD = RTHS_E_MISSING_FIELD,
	RTHS_HS_E_UNKNOWN_FIELD = RTHS_E_UNKNOWN_FIELD,
	RTHS_HS_E_WRONG_TYPE = RTHS_E_WRONG_TYPE,
	RTHS_HS_E_OUT_OF_RANGE = RTHS_E_OUT_OF_RANGE,
	RTHS_HS_E_BAD_CHOICE = RTHS_E_BAD_CHOICE,
	RTHS_HS_E_BAD_SHAPE = RTHS_E_BAD_SHAPE,
	RTHS_HS_E_NOT_SYMMETRIC = RTHS_E_NOT_SYMMETRIC,
	RTHS_HS_E_NOT_POSITIVE_DEFINITE = RTHS_E_NOT_POSITIVE_DEFINITE,
	RTHS_HS_E_BAD_DOF = RTHS_E_BAD_DOF,
	RTHS_HS_E_DUPLICATE = RTHS_E_DUPLICATE,
	RTHS_HS_E_CONFLICT = RTHS_E_CONFLICT,
	RTHS_HS_E_BAD_GEOMETRY = RTHS_E_BAD_GEOMETRY,
	RTHS_HS_E_UNSTABLE_STEP = RTHS_E_UNSTABLE_STEP,
	RTHS_HS_E_GM_HEADER = RTHS_E_GM_HEADER,
	RTHS_HS_E_GM_VALUE = RTHS_E_GM_VALUE,
	RTHS_HS_E_GM_COUNT = RTHS_E_GM_COUNT,
	RTHS_HS_E_GM_TIME_STEP = RTHS_E_GM_TIME_STEP,
	RTHS_HS_E_SINGULAR = RTHS_E_SINGULAR,
	RTHS_HS_E_NO_CONVERGENCE = RTHS_E_NO_CONVERGENCE,
	RTHS_HS_E_UNSUPPORTED = RTHS_E_UNSUPPORTED,
	RTHS_HS_E_BACKEND = RTHS_E_BACKEND,
	RTHS_HS_E_DIVERGED = RTHS_E_DIVERGED,
	RTHS_HS_E_TOO_SLOW = RTHS_E_TOO_SLOW,
	RTHS_HS_E__SIGNED = -1,	/* keeps the enum signed: codes come back negative */
};
#define rths_hs_error rths_error
#define rths_hs_err_name rths_strerror_name
#define rths_hs_error_str rths_error_str
#define rths_hs_fail rths_error_set
/* END transitional names */

#pragma GCC visibility pop

#endif /* RTHS_HS_ERROR_H */
