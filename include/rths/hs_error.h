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

#pragma GCC visibility pop

#endif /* RTHS_HS_ERROR_H */
