// SPDX-License-Identifier: LGPL-2.1-or-later
/* Allocation with librths's error convention (alloc.h). */
#include <errno.h>
#include <stdlib.h>

#include "alloc.h"

double *rths_zalloc(size_t count, struct rths_error *err)
{
	double *p = calloc(count ? count : 1, sizeof(*p));

	if (!p)
		rths_error_set(err, ENOMEM, NULL, 0, NULL,
			       "cannot allocate %zu numbers", count);
	return p;
}
