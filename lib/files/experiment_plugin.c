// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * "integrator": {"plugin": "./x.so", "params": {...}} and
 * "compensation": {"plugin": "./y.so", "params": {...}}: integrator and
 * compensator plug-ins (rths/hs_plugin.h) from shared objects, found
 * relative to the experiment file's folder.  The file layer opens them
 * rather than rths-run so that every program that loads experiment files
 * (rths-run, rths-coord, the Python package, the MEX interface, the
 * tests) runs the same methods, with errors that name the file and the
 * JSON path as every other field's do.
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <rths/hs_plugin.h>

#include "files/experiment_impl.h"

/* The shared object each registered number came from and the experiment
 * that owns it, by kind and slot: the registries give every experiment
 * its own number, so no lock is needed. */
enum plugin_kind { INTEGRATOR, COMPENSATOR, N_KINDS };

static struct {
	void *handle;
	const struct rths_hs_experiment *owner;
} slots[N_KINDS][RTHS_HS_MAX_PLUGINS];

/* One kind's symbol, its registration and where its number goes. */
static const struct {
	const char *section, *symbol, *type;
	unsigned int first;
} kinds[N_KINDS] = {
	[INTEGRATOR] = { "integrator", RTHS_HS_PLUGIN_SYMBOL,
			 "const struct rths_hs_integrator_type",
			 RTHS_HS_PLUGIN_FIRST },
	[COMPENSATOR] = { "compensation", RTHS_HS_COMP_PLUGIN_SYMBOL,
			  "const struct rths_hs_compensator_type",
			  RTHS_HS_COMP_PLUGIN_FIRST },
};

static int register_type(enum plugin_kind k, const void *type,
			 const char *params, struct rths_hs_experiment *x,
			 unsigned int *number, struct rths_error *e)
{
	enum rths_hs_comp_kind ck;
	enum rths_hs_method m;
	int r;

	if (k == INTEGRATOR) {
		r = rths_hs_integrator_register(type, params, &m, e);
		if (r == 0)
			x->integrator.method = m;
		*number = (unsigned int)m;
	} else {
		r = rths_hs_compensator_register(type, params, &ck, e);
		if (r == 0)
			x->comp.kind = ck;
		*number = (unsigned int)ck;
	}
	return r;
}

static int load(enum plugin_kind k, const struct rths_hs_jctx *c, json_t *o,
		const char *base_dir, struct rths_hs_experiment *x)
{
	const char *section = kinds[k].section;
	char where[RTHS_HS_JPATH], path[PATH_MAX + 256], *params = NULL;
	json_t *pj = json_object_get(o, "params");
	struct rths_error e = { 0 };
	const char *file = NULL;
	unsigned int number = 0;
	const void *type;
	struct stat sb;
	void *h;
	int r;

	rths_hs_jpath_key(where, section, "plugin");
	r = rths_hs_jstring(c, o, section, "plugin", true, &file);
	if (r < 0)
		return r;
	if (!file[0])
		return rths_hs_jfail(c, RTHS_E_OUT_OF_RANGE, where,
				     "expected the path of a shared object");
	/* dlopen() searches the library path for a name with no slash:
	 * always give it one, and no "././" in its messages */
	if (file[0] == '/' || (!strncmp(file, "./", 2) &&
			       (!base_dir || !strcmp(base_dir, "."))))
		snprintf(path, sizeof(path), "%s", file);
	else
		snprintf(path, sizeof(path), "%s/%s",
			 base_dir ? base_dir : ".", file);
	/* dlopen() says "cannot open shared object" for a missing file
	 * and for one that is no shared object alike: tell them apart */
	if (stat(path, &sb) < 0)
		return rths_hs_jfail(c, errno, where, "%s: %s", file,
				     rths_strerror(errno));
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return rths_hs_jfail(c, ELIBBAD, where,
				     "cannot load the plug-in: %s", dlerror());
	dlerror();
	type = dlsym(h, kinds[k].symbol);
	if (!type) {
		const char *why = dlerror();

		/* dlclose() frees dlerror()'s text: the message first */
		r = rths_hs_jfail(c, ELIBBAD, where,
				  "%s has no symbol %s (a %s): %s", file,
				  kinds[k].symbol, kinds[k].type,
				  why ? why : "it is NULL");
		dlclose(h);
		return r;
	}
	if (pj) {
		params = json_dumps(pj, JSON_COMPACT | JSON_ENCODE_ANY);
		if (!params) {
			dlclose(h);
			rths_hs_jpath_key(where, section, "params");
			return rths_hs_jfail(c, ENOMEM, where,
					     "cannot copy the params");
		}
	}
	r = register_type(k, type, params, x, &number, &e);
	free(params);
	if (r < 0) {
		dlclose(h);
		return rths_hs_jfail(c, r, where, "%s: %s", file, e.msg);
	}
	slots[k][number - kinds[k].first].handle = h;
	slots[k][number - kinds[k].first].owner = x;
	return 0;
}

int rths_hs_exp_plugin(const struct rths_hs_jctx *c, json_t *o,
		       const char *base_dir, struct rths_hs_experiment *x)
{
	return load(INTEGRATOR, c, o, base_dir, x);
}

int rths_hs_exp_comp_plugin(const struct rths_hs_jctx *c, json_t *o,
			    const char *base_dir, struct rths_hs_experiment *x)
{
	return load(COMPENSATOR, c, o, base_dir, x);
}

/* The slot @number of kind @k if @x opened it, else NULL. */
static void *release(enum plugin_kind k, unsigned int number,
		     const struct rths_hs_experiment *x)
{
	unsigned int i = number - kinds[k].first;
	void *h;

	/* a number the caller registered and set is the caller's */
	if (i >= RTHS_HS_MAX_PLUGINS || slots[k][i].owner != x)
		return NULL;
	h = slots[k][i].handle;
	slots[k][i].handle = NULL;
	slots[k][i].owner = NULL;
	return h;
}

void rths_hs_exp_plugin_free(struct rths_hs_experiment *x)
{
	void *h = release(INTEGRATOR, (unsigned int)x->integrator.method, x);

	if (h) {
		rths_hs_integrator_unregister(x->integrator.method);
		dlclose(h);
		x->integrator.method = 0;
	}
	h = release(COMPENSATOR, (unsigned int)x->comp.kind, x);
	if (h) {
		rths_hs_compensator_unregister(x->comp.kind);
		dlclose(h);
		x->comp.kind = 0;
	}
}
