// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * "integrator": {"plugin": "./x.so", "params": {...}}: an integrator
 * plug-in (rths/hs_plugin.h) from a shared object, found relative to the
 * experiment file's folder.  The file layer opens it rather than
 * rths-run so that every program that loads experiment files (rths-run,
 * rths-coord, the tests) runs the same method, with errors that name the
 * file and the JSON path as every other field's do.
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
 * that owns it, by slot: the registry gives every experiment its own
 * number, so no lock is needed. */
static struct {
	void *handle;
	const struct rths_hs_experiment *owner;
} slots[RTHS_HS_MAX_PLUGINS];

int rths_hs_exp_plugin(const struct rths_hs_jctx *c, json_t *o,
		       const char *base_dir, struct rths_hs_experiment *x)
{
	static const char *const where = "integrator.plugin";
	const struct rths_hs_integrator_type *type;
	const char *file = NULL;
	char path[PATH_MAX + 256], *params = NULL;
	struct rths_error e = { 0 };
	enum rths_hs_method m;
	json_t *pj = json_object_get(o, "params");
	struct stat sb;
	void *h;
	int r;

	r = rths_hs_jstring(c, o, "integrator", "plugin", true, &file);
	if (r < 0)
		return r;
	if (!file[0])
		return rths_hs_jfail(c, RTHS_E_OUT_OF_RANGE, where,
				     "expected the path of a shared object");
	snprintf(path, sizeof(path), "%s%s%s",
		 file[0] == '/' ? "" : base_dir ? base_dir : ".",
		 file[0] == '/' ? "" : "/", file);
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
	type = dlsym(h, RTHS_HS_PLUGIN_SYMBOL);
	if (!type) {
		const char *why = dlerror();

		/* dlclose() frees dlerror()'s text: the message first */
		r = rths_hs_jfail(c, ELIBBAD, where,
				  "%s has no symbol %s (a const struct rths_hs_integrator_type): %s",
				  file, RTHS_HS_PLUGIN_SYMBOL,
				  why ? why : "it is NULL");
		dlclose(h);
		return r;
	}
	if (pj) {
		params = json_dumps(pj, JSON_COMPACT | JSON_ENCODE_ANY);
		if (!params) {
			dlclose(h);
			return rths_hs_jfail(c, ENOMEM, "integrator.params",
					     "cannot copy the params");
		}
	}
	r = rths_hs_integrator_register(type, params, &m, &e);
	free(params);
	if (r < 0) {
		dlclose(h);
		return rths_hs_jfail(c, r, where, "%s: %s", file, e.msg);
	}
	slots[m - RTHS_HS_PLUGIN_FIRST].handle = h;
	slots[m - RTHS_HS_PLUGIN_FIRST].owner = x;
	x->integrator.method = m;
	return 0;
}

void rths_hs_exp_plugin_free(struct rths_hs_experiment *x)
{
	enum rths_hs_method m = x->integrator.method;
	unsigned int i = (unsigned int)m - RTHS_HS_PLUGIN_FIRST;
	void *h;

	/* a number the caller registered and set is the caller's */
	if (i >= RTHS_HS_MAX_PLUGINS || slots[i].owner != x)
		return;
	h = slots[i].handle;
	slots[i].handle = NULL;
	slots[i].owner = NULL;
	rths_hs_integrator_unregister(m);
	dlclose(h);
	x->integrator.method = 0;
}
