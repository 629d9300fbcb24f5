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

void *rths_owned_zalloc(struct rths_owned *o, size_t count, size_t size)
{
	void *q;

	if (o->n == o->cap) {
		size_t cap = o->cap ? 2 * o->cap : 16;
		void **p = realloc(o->p, cap * sizeof(*p));

		if (!p) {
			o->failed = 1;
			return NULL;
		}
		o->p = p;
		o->cap = cap;
	}
	q = calloc(count ? count : 1, size);
	if (q)
		o->p[o->n++] = q;
	else
		o->failed = 1;
	return q;
}

double *rths_owned_doubles(struct rths_owned *o, size_t count)
{
	return rths_owned_zalloc(o, count, sizeof(double));
}

void rths_owned_free(struct rths_owned *o)
{
	rths_free_n(o->p, o->n);
	free(o->p);
	o->p = NULL;
	o->n = o->cap = 0;
	o->failed = 0;
}

void rths_free_n(void *const *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(p[i]);
}
