// SPDX-License-Identifier: GPL-2.0
/* The live view (live.h): the ring, the view thread and the server. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "live.h"

/* 2^14 frames: 16 s of steps at 1024 Hz, 3.7 MB */
#define RING_ORDER 14

struct live {
	struct live_ring ring;
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
	if (c->channels > LIVE_MAX_CH) {
		snprintf(err, err_len, "the live view shows at most %d actuators",
			 LIVE_MAX_CH);
		free(l);
		return -EINVAL;
	}
	r = live_ring_init(&l->ring, RING_ORDER);
	if (r == 0)
		r = live_view_new(&l->view, c, &l->ring);
	if (r == 0)
		r = live_server_start(&l->server, c, l->view, l->url,
				      sizeof(l->url), err, err_len);
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

void live_publish(struct live *l, const struct live_frame *f)
{
	live_ring_publish(&l->ring, f);
}

void live_finish(struct live *l, const char *state)
{
	live_view_finish(l->view, state);
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
	live_ring_free(&l->ring);
	free(l);
}
