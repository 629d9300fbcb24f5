/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The registry behind every kind of plug-in (integrators, compensators):
 * RTHS_HS_MAX_PLUGINS slots of a type and its params, numbered from a
 * kind's first number, under one lock.  A type is const and stays the
 * caller's; the params are copied.
 */
#ifndef RTHS_HS_PLUGIN_REGISTRY_H
#define RTHS_HS_PLUGIN_REGISTRY_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include <rths/hs_plugin.h>

struct rths_hs_registry {
	pthread_mutex_t lock;
	const char *what;	/* "integrator", for messages */
	unsigned int first;	/* the number of slot 0 */
	struct {
		const void *type;
		const char *name;
		char *params;
	} slot[RTHS_HS_MAX_PLUGINS];
};

#define RTHS_HS_REGISTRY_INIT(what_, first_) \
	{ .lock = PTHREAD_MUTEX_INITIALIZER, .what = (what_), \
	  .first = (first_) }

/* A callback of a plug-in type: its name, and whether the type has it. */
struct rths_hs_plugin_cb {
	const char *name;
	bool given;
};

/*
 * What every type of @g's kind must be: there (@type), of this librths's
 * interface version (@abi), named, and with each of its @ncb callbacks;
 * the first that is missing is named.
 */
int rths_hs_registry_check(const struct rths_hs_registry *g,
			   const void *type, unsigned int abi,
			   const char *name, const struct rths_hs_plugin_cb *cb,
			   size_t ncb, struct rths_error *err);
/* A free slot for @type named @name; its number in *@number. */
int rths_hs_registry_add(struct rths_hs_registry *g, const void *type,
			 const char *name, const char *params,
			 unsigned int *number, struct rths_error *err);
/* Frees @number's slot; a number outside the registry: nothing. */
void rths_hs_registry_remove(struct rths_hs_registry *g,
			     unsigned int number);
/* The type registered as @number and its params (may be NULL), or NULL. */
const void *rths_hs_registry_get(struct rths_hs_registry *g,
				 unsigned int number, const char **params);
/* The first type registered under @name, its number in *@number. */
const void *rths_hs_registry_by_name(struct rths_hs_registry *g,
				     const char *name, unsigned int *number);

#endif /* RTHS_HS_PLUGIN_REGISTRY_H */
