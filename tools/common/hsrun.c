// SPDX-License-Identifier: GPL-2.0
/* What rths-run and rths-coord share around a run. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "hsrun.h"

int tool_error(const char *tool, const struct rths_error *err)
{
	char buf[1024];

	fprintf(stderr, "%s: %s\n", tool, rths_error_str(err, buf, sizeof(buf)));
	return 1;
}

int step_ticks_arg(const char *tool, const char *arg, uint32_t *d)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(arg, &end, 10);
	if (errno || *end || arg[0] == '-' || v < 1 || v > RTHS_STEP_TICKS_MAX) {
		fprintf(stderr, "%s: --step-ticks: expected 1 to %d\n", tool,
			RTHS_STEP_TICKS_MAX);
		return -1;
	}
	*d = (uint32_t)v;
	return 0;
}

int mkdir_p(const char *dir)
{
	char tmp[PATH_MAX];

	snprintf(tmp, sizeof(tmp), "%s", dir);
	for (char *p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(tmp, 0755) < 0 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	return mkdir(tmp, 0755) < 0 && errno != EEXIST ? -1 : 0;
}

int reference_run(const struct rths_hs_experiment *x,
		  struct rths_hs_history *ref, struct rths_error *err)
{
	struct rths_hs_run_result res;
	struct rths_hs_sim_config cfg;
	struct rths_hs_model full;
	int r = rths_hs_experiment_reference_model(x, &full, NULL, err);

	if (r < 0)
		return r;
	rths_hs_experiment_sim_config(x, &cfg);
	cfg.model = &full;
	cfg.sub = NULL;
	cfg.setup = NULL;
	cfg.comp = NULL;
	cfg.k_if = cfg.c_if = NULL;
	r = rths_hs_sim_run_odesubs(&cfg, x->odesubs, x->n_odesubs, ref, &res,
				    err);
	rths_hs_model_free(&full);
	return r;
}
