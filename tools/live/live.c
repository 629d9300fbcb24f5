// SPDX-License-Identifier: GPL-2.0
/* The live view (live.h): the ring, the view thread and the server. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rths/hs_sim.h>

#include "live.h"

/* 2^14 frames: 16 s of steps at 1024 Hz, 3.7 MB */
#define RING_ORDER 14
/* a group's: 4 s at 1024 Hz, 0.9 MB (the thread reads every 100 ms) */
#define GROUP_RING_ORDER 12

struct live {
	unsigned int nrings;
	struct live_ring *ring;
	struct live_place place;
	struct live_view *view;
	struct live_server *server;
	char url[512];
};

int live_start(struct live **out, const struct live_config *c, char *err,
	       size_t err_len)
{
	struct live *l = calloc(1, sizeof(*l));
	int r;

	*out = NULL;
	if (!l)
		return -ENOMEM;
	bool big = c->channels > LIVE_MAX_CH || c->sites > LIVE_MAX_SITES ||
		   c->groups > LIVE_MAX_GROUPS;

	for (unsigned int i = 0; i < c->groups && !big; i++)
		big = c->group[i].channels > LIVE_MAX_CH;
	if (big) {
		snprintf(err, err_len,
			 "the live view shows at most %d actuators, %d sites and %d substructures",
			 LIVE_MAX_CH, LIVE_MAX_SITES, LIVE_MAX_GROUPS);
		free(l);
		return -EINVAL;
	}
	live_place_init(&l->place);
	l->nrings = c->groups ? c->groups : 1;
	l->ring = calloc(l->nrings, sizeof(*l->ring));
	r = l->ring ? 0 : -ENOMEM;
	for (unsigned int i = 0; r == 0 && i < l->nrings; i++)
		r = live_ring_init(&l->ring[i], c->groups ? GROUP_RING_ORDER :
				   RING_ORDER);
	if (r == 0)
		r = live_view_new(&l->view, c, l->ring, &l->place);
	if (r == 0)
		r = live_server_start(&l->server, c, l->view, &l->place,
				      l->url, sizeof(l->url), err, err_len);
	else
		snprintf(err, err_len, "cannot start the view: %s",
			 strerror(-r));
	if (r < 0) {
		live_stop(l);
		return r;
	}
	*out = l;
	return 0;
}

const char *live_url(const struct live *l)
{
	return l->url;
}

void live_place(struct live *l, int step_cpu, int loop_cpu)
{
	if (l)
		live_place_set(&l->place, step_cpu, loop_cpu);
}

void live_publish(struct live *l, const struct live_frame *f)
{
	live_ring_publish(&l->ring[0], f);
}

void live_publish_group(struct live *l, unsigned int g,
			const struct live_frame *f)
{
	if (g < l->nrings)
		live_ring_publish(&l->ring[g], f);
}

void live_group_state(struct live *l, unsigned int g, int state)
{
	live_view_group_state(l->view, g, state);
}

void live_finish(struct live *l, const char *state)
{
	live_view_finish(l->view, state);
}

const char *live_run_state(int r, const struct rths_hs_run_result *res,
			   bool interrupted)
{
	if (res->error)
		return res->err.code == -RTHS_E_BACKEND ? "held" : "failed";
	if (r < 0)
		return "failed";
	return res->interrupted || interrupted ? "interrupted" : "done";
}

void live_stop(struct live *l)
{
	if (!l)
		return;
	/* the streams end first, then the thread that feeds them */
	if (l->view)
		live_view_finish(l->view, "stopped");
	live_server_stop(l->server);
	live_view_free(l->view);
	for (unsigned int i = 0; l->ring && i < l->nrings; i++)
		live_ring_free(&l->ring[i]);
	free(l->ring);
	live_place_destroy(&l->place);
	free(l);
}

void live_frame_from_history(struct live_frame *f,
			     const struct rths_hs_history *h, uint64_t step)
{
	size_t m = h->n_act < LIVE_MAX_CH ? h->n_act : LIVE_MAX_CH;

	memset(f, 0, sizeof(*f));
	f->step = step;
	f->t = h->t[step];
	f->compute = h->compute[step];
	f->flags = h->flags[step];
	f->channels = (uint32_t)m;
	for (size_t i = 0; i < m; i++) {
		f->target[i] = h->target[step * h->n_act + i];
		f->disp[i] = h->disp[step * h->n_act + i];
		f->force[i] = h->force[step * h->n_act + i];
	}
}

int live_token_read(const char *file, char *token, size_t len, char *err,
		    size_t err_len)
{
	static const char ok[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~";
	FILE *f = fopen(file, "r");
	size_t n;

	if (!f) {
		snprintf(err, err_len, "%s: io: %s", file, strerror(errno));
		return -1;
	}
	if (!fgets(token, (int)len, f))
		token[0] = '\0';
	fclose(f);
	n = strcspn(token, "\r\n");
	token[n] = '\0';
	/* it goes into URLs as it is */
	if (n < 16 || strspn(token, ok) != n) {
		snprintf(err, err_len,
			 "%s:1: value: the token: expected 16 to %zu characters of [A-Za-z0-9-._~]",
			 file, len - 1);
		return -1;
	}
	return 0;
}

void live_stop_after(struct live *l, double linger,
		     const volatile sig_atomic_t *stop)
{
	struct timespec ts;

	if (l && linger > 0) {
		ts.tv_sec = (time_t)linger;
		ts.tv_nsec = (long)((linger - (double)ts.tv_sec) * 1e9);
		while (nanosleep(&ts, &ts) < 0 && errno == EINTR &&
		       !(stop && *stop))
			;
	}
	live_stop(l);
}
