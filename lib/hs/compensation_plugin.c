// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Compensator plug-ins (rths/hs_plugin.h): the registry of types.  The
 * calls themselves are made, and their results checked, by
 * compensation.c.
 */
#include <stdio.h>
#include <string.h>

#include "hs/compensation_impl.h"
#include "hs/plugin_registry.h"

static struct rths_hs_registry reg =
	RTHS_HS_REGISTRY_INIT("compensator", RTHS_HS_COMP_PLUGIN_FIRST);

_Static_assert(RTHS_HS_COMP_PLUGIN_LAST - RTHS_HS_COMP_PLUGIN_FIRST + 1 ==
	       RTHS_HS_MAX_PLUGINS, "one kind per plug-in slot");

int rths_hs_compensator_type_check(const struct rths_hs_compensator_type *type,
				   struct rths_error *err)
{
	const struct rths_hs_plugin_cb cb[] = {
		{ "alloc", type && type->alloc },
		{ "command", type && type->command },
		{ "free", type && type->free },
	};

	return rths_hs_registry_check(&reg, type, type ? type->abi : 0,
				      type ? type->name : NULL, cb,
				      sizeof(cb) / sizeof(cb[0]), err);
}

int rths_hs_compensator_register(const struct rths_hs_compensator_type *type,
				 const char *params,
				 enum rths_hs_comp_kind *kind,
				 struct rths_error *err)
{
	unsigned int number;
	int r = rths_hs_compensator_type_check(type, err);

	if (r == 0)
		r = rths_hs_registry_add(&reg, type, type->name, params,
					 &number, err);
	if (r == 0)
		*kind = (enum rths_hs_comp_kind)number;
	return r;
}

void rths_hs_compensator_unregister(enum rths_hs_comp_kind kind)
{
	rths_hs_registry_remove(&reg, (unsigned int)kind);
}

const struct rths_hs_compensator_type *
rths_hs_comp_plugin_lookup(enum rths_hs_comp_kind kind, const char **params)
{
	return rths_hs_registry_get(&reg, (unsigned int)kind, params);
}

const struct rths_hs_compensator_type *
rths_hs_compensator_registered(enum rths_hs_comp_kind kind)
{
	return rths_hs_comp_plugin_lookup(kind, NULL);
}

const struct rths_hs_compensator_type *
rths_hs_comp_plugin_by_name(const char *name, enum rths_hs_comp_kind *kind)
{
	unsigned int number;
	const struct rths_hs_compensator_type *t =
		rths_hs_registry_by_name(&reg, name, &number);

	if (t)
		*kind = (enum rths_hs_comp_kind)number;
	return t;
}

int rths_hs_comp_plugin_fail(const struct rths_hs_compensator_type *t,
			     const char *cb, uint64_t n, int r,
			     const struct rths_error *e,
			     struct rths_error *err)
{
	char at[40] = "";

	if (r >= 0)
		r = -EIO;	/* a failure must not read as success */
	/* alloc runs before any step */
	if (strcmp(cb, "alloc"))
		snprintf(at, sizeof(at), " at step %llu",
			 (unsigned long long)n);
	if (e->msg[0])
		return rths_error_set(err, r, e->file[0] ? e->file : NULL,
				      e->line, e->path[0] ? e->path : NULL,
				      "compensator plug-in '%s', %s%s: %s",
				      t->name, cb, at, e->msg);
	return rths_error_set(err, r, NULL, 0, NULL,
			      "compensator plug-in '%s': %s failed%s (%s)",
			      t->name, cb, at, rths_strerror(r));
}
