// SPDX-License-Identifier: LGPL-2.1-or-later
/* The plug-in registry (plugin_registry.h). */
#include <stdlib.h>
#include <string.h>

#include "hs/plugin_registry.h"

int rths_hs_registry_check(const struct rths_hs_registry *g,
			   const void *type, unsigned int abi,
			   const char *name, const struct rths_hs_plugin_cb *cb,
			   size_t ncb, struct rths_error *err)
{
	const char *shown = name ? name : "(unnamed)";
	const char *missing = !name || !name[0] ? "name" : NULL;

	if (!type)
		return rths_error_set(err, EINVAL, NULL, 0, NULL, "no %s type",
				      g->what);
	if (abi != RTHS_HS_PLUGIN_ABI)
		return rths_error_set(err, RTHS_E_UNSUPPORTED, NULL, 0, NULL,
				      "%s plug-in '%s' has interface version %u, this librths takes %u",
				      g->what, shown, abi, RTHS_HS_PLUGIN_ABI);
	for (size_t i = 0; !missing && i < ncb; i++)
		if (!cb[i].given)
			missing = cb[i].name;
	if (missing)
		return rths_error_set(err, EINVAL, NULL, 0, NULL,
				      "%s plug-in '%s' has no %s", g->what,
				      shown, missing);
	return 0;
}

int rths_hs_registry_add(struct rths_hs_registry *g, const void *type,
			 const char *name, const char *params,
			 unsigned int *number, struct rths_error *err)
{
	char *copy = NULL;

	if (params) {
		copy = strdup(params);
		if (!copy)
			return rths_error_set(err, ENOMEM, NULL, 0, NULL,
					      "cannot copy the plug-in's params");
	}
	pthread_mutex_lock(&g->lock);
	for (unsigned int i = 0; i < RTHS_HS_MAX_PLUGINS; i++) {
		if (g->slot[i].type)
			continue;
		g->slot[i].type = type;
		g->slot[i].name = name;
		g->slot[i].params = copy;
		pthread_mutex_unlock(&g->lock);
		*number = g->first + i;
		return 0;
	}
	pthread_mutex_unlock(&g->lock);
	free(copy);
	return rths_error_set(err, ENOSPC, NULL, 0, NULL,
			      "cannot register %s plug-in '%s': %d are registered already",
			      g->what, name, RTHS_HS_MAX_PLUGINS);
}

void rths_hs_registry_remove(struct rths_hs_registry *g, unsigned int number)
{
	unsigned int i = number - g->first;

	if (i >= RTHS_HS_MAX_PLUGINS)
		return;
	pthread_mutex_lock(&g->lock);
	free(g->slot[i].params);
	memset(&g->slot[i], 0, sizeof(g->slot[i]));
	pthread_mutex_unlock(&g->lock);
}

const void *rths_hs_registry_get(struct rths_hs_registry *g,
				 unsigned int number, const char **params)
{
	unsigned int i = number - g->first;
	const void *t;

	if (i >= RTHS_HS_MAX_PLUGINS)
		return NULL;
	pthread_mutex_lock(&g->lock);
	t = g->slot[i].type;
	if (params)
		*params = g->slot[i].params;
	pthread_mutex_unlock(&g->lock);
	return t;
}

const void *rths_hs_registry_by_name(struct rths_hs_registry *g,
				     const char *name, unsigned int *number)
{
	const void *t = NULL;

	pthread_mutex_lock(&g->lock);
	for (unsigned int i = 0; !t && i < RTHS_HS_MAX_PLUGINS; i++)
		if (g->slot[i].type && !strcmp(g->slot[i].name, name)) {
			t = g->slot[i].type;
			*number = g->first + i;
		}
	pthread_mutex_unlock(&g->lock);
	return t;
}
