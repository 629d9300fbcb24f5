/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Allocation with librths's error convention, for every layer. */
#ifndef RTHS_LIB_COMMON_ALLOC_H
#define RTHS_LIB_COMMON_ALLOC_H

#include <stddef.h>

#include <rths/error.h>

/* count zeroed doubles (at least one), or NULL with ENOMEM in err. */
double *rths_zalloc(size_t count, struct rths_error *err);

#endif /* RTHS_LIB_COMMON_ALLOC_H */
