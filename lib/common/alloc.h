/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Allocation with librths's error convention, for every layer. */
#ifndef RTHS_LIB_COMMON_ALLOC_H
#define RTHS_LIB_COMMON_ALLOC_H

#include <stddef.h>

#include <rths/error.h>

/* count zeroed doubles (at least one), or NULL with ENOMEM in err. */
double *rths_zalloc(size_t count, struct rths_error *err);

/*
 * What one object allocates for its whole life, freed together by
 * rths_owned_free(): its work arrays need no destroy of their own.
 */
struct rths_owned {
	void **p;
	size_t n, cap;
	int failed;	/* an allocation failed: check once, after all */
};

/* count zeroed elements of size bytes (at least one), kept in o; NULL
 * (and o->failed set) when out of memory. */
void *rths_owned_zalloc(struct rths_owned *o, size_t count, size_t size);
/* count zeroed doubles kept in o: the usual work array. */
double *rths_owned_doubles(struct rths_owned *o, size_t count);
/* Frees all o holds; o is empty (and reusable) after. */
void rths_owned_free(struct rths_owned *o);

/* Frees each of n pointers: a flat list of what one object owns. */
void rths_free_n(void *const *p, size_t n);
#define RTHS_FREE_ALL(...)                                         \
	rths_free_n((void *const[]){ __VA_ARGS__ },                \
		    sizeof((void *const[]){ __VA_ARGS__ }) / sizeof(void *))

#endif /* RTHS_LIB_COMMON_ALLOC_H */
