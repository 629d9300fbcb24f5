// SPDX-License-Identifier: GPL-2.0
/*
 * rths-site --live: the live view of the site's device substructures
 * (tools/live/live.h, Documentation/live-view.rst).  Each device
 * substructure is a group of the view with its own ring, written only by
 * the site's thread that steps it: a step copies the coordinates it was
 * given and what it measured into the ring, with no lock, no allocation
 * and no system call.  The view thread reads every ring and the page
 * shows each substructure apart: waiting for a client, running, ended.
 */
#include <stdio.h>
#include <string.h>

#include <rths/hs_experiment.h>

#include "site.h"
#include "../common/steprt.h"
#include "../live/live.h"

static struct live *site_live;

int site_view_start(struct site *site, const struct site_view_options *o)
{
	struct live_group_config g[LIVE_MAX_GROUPS];
	const char *base = strrchr(o->file, '/');
	char name[128], err[512];
	struct live_config c = {
		.listen = o->listen,
		.tool = "rths-site",
		.name = name,
		.token = o->token,
		.cert_file = o->cert,
		.key_file = o->key,
		.group = g,
	};
	int r;

	/* the site's name: its file's, as the log says it */
	snprintf(name, sizeof(name), "%s", base ? base + 1 : o->file);
	if (strlen(name) > 5 && !strcmp(name + strlen(name) - 5, ".json"))
		name[strlen(name) - 5] = '\0';
	for (int i = 0; i < site->nsubs; i++) {
		struct substructure *sub = &site->subs[i];
		const struct rths_hs_experiment *x = sub->dev;

		sub->live_group = -1;
		if (!x)
			continue;
		if (c.groups == LIVE_MAX_GROUPS) {
			fprintf(stderr, "rths-site: --live: the view shows at most %d device substructures\n",
				LIVE_MAX_GROUPS);
			return -1;
		}
		if (sub->n > LIVE_MAX_CH)
			site_log(LOG_WARN, "%s: the live view shows its first %d of %d DOF",
				 sub->name, LIVE_MAX_CH, sub->n);
		sub->live_group = (int)c.groups;
		g[c.groups++] = (struct live_group_config){
			.name = sub->name,
			.channels = (unsigned int)(sub->n < LIVE_MAX_CH ?
						   sub->n : LIVE_MAX_CH),
			.dt = (double)x->device.step_ticks / x->device.rate,
			.budget = (double)x->device.step_ticks /
				  x->device.rate,
		};
	}
	if (!c.groups) {
		fprintf(stderr, "rths-site: --live: %s has no device substructure to show\n",
			o->file);
		return -1;
	}
	r = live_start(&site_live, &c, err, sizeof(err));
	if (r < 0) {
		fprintf(stderr, "rths-site: --live: %s\n", err);
		return -1;
	}
	/* on stderr even with -q: the operator needs it to watch */
	fprintf(stderr, "rths-site: live view at %s\n", live_url(site_live));
	return 0;
}

static void set_state(const struct substructure *sub, int state)
{
	static bool placed;

	if (!site_live || sub->live_group < 0)
		return;
	live_group_state(site_live, (unsigned int)sub->live_group, state);
	/* once the site's thread is real-time and pinned, the view's
	 * threads leave its CPU (at a test's start, before its steps) */
	if (state == LIVE_RUNNING && !placed && site_step_cpu >= 0) {
		placed = true;
		live_place(site_live, site_step_cpu,
			   sub->dev->device.backend == RTHS_HS_BACKEND_DEVICE ?
			   steprt_loop_cpu(sub->dev) : -1);
	}
}

void site_view_running(const struct substructure *sub)
{
	set_state(sub, LIVE_RUNNING);
}

void site_view_ended(const struct substructure *sub)
{
	set_state(sub, LIVE_ENDED);
}

void site_view_step(const struct substructure *sub, uint64_t step,
		    const double *u, const double *disp, const double *force,
		    const struct device_step_info *info)
{
	const struct rths_hs_experiment *x = sub->dev;
	struct live_frame f;
	unsigned int m;

	if (!site_live || sub->live_group < 0 || info->repeated)
		return;
	m = (unsigned int)(sub->n < LIVE_MAX_CH ? sub->n : LIVE_MAX_CH);
	memset(&f, 0, sizeof(f));
	f.step = step;
	f.t = (double)step * x->device.step_ticks / x->device.rate;
	f.compute = info->compute;
	f.flags = info->flags;
	f.channels = m;
	for (unsigned int i = 0; i < m; i++) {
		f.target[i] = u[i];
		f.disp[i] = disp[i];
		f.force[i] = force[i];
	}
	live_publish_group(site_live, (unsigned int)sub->live_group, &f);
}

void site_view_stop(const char *state)
{
	if (!site_live)
		return;
	live_finish(site_live, state);
	/* the view thread's next tick sends the final state */
	live_stop_after(site_live, 0.3, NULL);
	site_live = NULL;
}
