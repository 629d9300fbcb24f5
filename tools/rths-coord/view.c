// SPDX-License-Identifier: GPL-2.0
/*
 * rths-coord --live: the live view of a distributed test
 * (tools/live/live.h).  Each step the coordinator's loop copies the
 * step's row and each site's round trip, re-issues and reconnects into
 * the view's lock-free ring; no lock, no allocation, no system call.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "coord.h"

void coord_view_step(void *ctx, uint64_t step, uint64_t steps)
{
	struct coord_view *v = ctx;

	if (v->live && step < v->h->rows) {
		struct live_frame f;

		live_frame_from_history(&f, v->h, step);
		f.sites = (uint32_t)v->n_sites;
		for (size_t i = 0; i < v->n_sites; i++) {
			const struct site_step *s =
				coord_site_step(v->b, i, step);
			const struct site_stats *st =
				coord_site_stats(v->b, i);

			f.rtt_ms[i] = s ? (float)(s->rtt * 1e3) : 0;
			f.reissues[i] = s ? s->reissues : 0;
			f.reconnects[i] = st ? (uint32_t)st->reconnects : 0;
		}
		live_publish(v->live, &f);
	}
	progress_update(v->chain_ctx, step, steps);
}

int coord_view_start(struct coord_view *v, const struct coord_config *cc,
		     const struct coord_view_options *o,
		     const struct rths_hs_history *h,
		     struct rths_hs_backend *b)
{
	const char *names[LIVE_MAX_SITES];
	struct live_config c = {
		.listen = o->listen,
		.tool = "rths-coord",
		.name = cc->x->name,
		.channels = (unsigned int)(cc->setup->n_act < LIVE_MAX_CH ?
					   cc->setup->n_act : LIVE_MAX_CH),
		.sites = (unsigned int)cc->n_sites,
		.site_names = names,
		.dt = cc->x->integrator.dt,
		.steps = (uint64_t)(cc->x->duration / cc->x->integrator.dt +
				    0.5),
		.budget = cc->x->integrator.dt,
		.token = o->token,
		.cert_file = o->cert,
		.key_file = o->key,
	};
	char err[512];
	int r;

	v->h = h;
	v->b = b;
	v->n_sites = cc->n_sites < LIVE_MAX_SITES ? cc->n_sites :
		     LIVE_MAX_SITES;
	if (!o->listen)
		return 0;
	for (size_t i = 0; i < v->n_sites; i++)
		names[i] = cc->sites[i].name;
	r = live_start(&v->live, &c, err, sizeof(err));
	if (r < 0) {
		fprintf(stderr, "rths-coord: --live: %s\n", err);
		return r;
	}
	fprintf(stderr, "rths-coord: live view at %s\n", live_url(v->live));
	return 0;
}

void coord_view_finish(struct coord_view *v, int r,
		       const struct rths_hs_run_result *res, bool interrupted)
{
	if (v->live)
		live_finish(v->live, live_run_state(r, res, interrupted));
}

void coord_view_stop(struct coord_view *v, double linger,
		   const volatile sig_atomic_t *stop)
{
	live_stop_after(v->live, linger, stop);
	v->live = NULL;
}
