/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The live view of a run (Documentation/live-view.rst), served by the
 * tool itself: rths-run --live ADDR:PORT, rths-coord --live ADDR:PORT.
 *
 * The step thread publishes one frame a step with live_publish(): into a
 * lock-free ring (ring.h), with no lock, no allocation and no system
 * call.  A view thread (view.c) reads the ring ten times a second, keeps
 * the tracking criteria J1-J3 so far and turns the frames into events; an
 * HTTP server (server.c, libmicrohttpd) streams the events to browsers as
 * Server-Sent Events and serves the page (page/, drawn by Debian's
 * dygraphs).  A slow or stalled browser loses events, never steps; it is
 * read only: no request changes the run.
 *
 * Loopback only by default; any other address needs HTTPS (a
 * certificate and key) and a token, checked at start.
 *
 * rths-site's view has groups, one a device substructure, each with its
 * own ring and its own writer (live_publish_group()); the view thread
 * reads them all and the page shows each group apart.
 */
#ifndef RTHS_LIVE_H
#define RTHS_LIVE_H

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ring.h"

/* A group of a grouped view (rths-site's substructures). */
struct live_group_config {
	const char *name;
	unsigned int channels;	/* <= LIVE_MAX_CH */
	double dt;		/* s, its step */
	double budget;		/* s, a step's compute budget */
};

/* A group's state, as the page shows it. */
enum { LIVE_WAITING, LIVE_RUNNING, LIVE_ENDED };

struct live_config {
	const char *listen;	/* "ADDR:PORT", "[ADDR6]:PORT"; port 0: any */
	const char *tool;	/* "rths-run", shown on the page */
	const char *name;	/* the experiment's name */
	unsigned int channels;	/* actuators, <= LIVE_MAX_CH */
	unsigned int sites;	/* rths-coord's, <= LIVE_MAX_SITES */
	const char *const *site_names;
	double dt;		/* s, the step */
	uint64_t steps;		/* planned */
	double budget;		/* s, a step's compute budget */
	const char *token;	/* NULL: none (loopback only) */
	const char *cert_file, *key_file;	/* PEM: HTTPS */
	const char *js_dir;	/* dygraph.min.js and .css; NULL: Debian's */
	/* a grouped view (0: none): a ring and a summary each */
	unsigned int groups;	/* <= LIVE_MAX_GROUPS */
	const struct live_group_config *group;
};

struct live;

/* Starts the view thread and the server.  -errno with a one-line reason
 * in @err (nothing printed). */
int live_start(struct live **out, const struct live_config *c, char *err,
	       size_t err_len);
/* The URL to open (token included). */
const char *live_url(const struct live *l);
/*
 * Where the view's threads run: SCHED_IDLE (nice 19 if that cannot be
 * had), on the CPUs the process had at live_start() less @step_cpu and
 * @loop_cpu (-1: none or unknown); less @step_cpu only if that leaves
 * none, anywhere if there is one CPU.  They are SCHED_IDLE from their
 * first wake-up on, whoever created them; call this once the step thread
 * is pinned (before its loop), and each thread moves at its next wake-up.
 */
void live_place(struct live *l, int step_cpu, int loop_cpu);
/* The step thread's one call a step. */
void live_publish(struct live *l, const struct live_frame *f);
/* The same into group @g's ring (its one writer's call); a group's steps
 * that count from 1 again begin a new test. */
void live_publish_group(struct live *l, unsigned int g,
			const struct live_frame *f);
/* Group @g's state (LIVE_WAITING, ...): one atomic store. */
void live_group_state(struct live *l, unsigned int g, int state);
/* The run is over (@state: "done", "interrupted", "held", "failed"): the
 * streams end after the last frame. */
void live_finish(struct live *l, const char *state);
/*
 * The state a run ends the view in, from rths_hs_sim_run()'s return @r
 * and @res (@interrupted: the tool's own stop flag): "failed" if it could
 * not start or failed on the way, "held" if the backend failed (and was
 * brought to hold), "interrupted", else "done".
 */
struct rths_hs_run_result;
const char *live_run_state(int r, const struct rths_hs_run_result *res,
			   bool interrupted);
/* Stops the server and the view thread, frees everything (NULL: none). */
void live_stop(struct live *l);
/* live_stop() after serving @linger s more (less once *@stop is set:
 * Ctrl-C). */
void live_stop_after(struct live *l, double linger,
		     const volatile sig_atomic_t *stop);
/* Step @step of the history @h as a frame (the sites' fields zero). */
struct rths_hs_history;
void live_frame_from_history(struct live_frame *f,
			     const struct rths_hs_history *h, uint64_t step);
/* --live-token FILE: its first line into @token, 16 or more URL-safe
 * characters; -1 with the reason in @err otherwise. */
int live_token_read(const char *file, char *token, size_t len, char *err,
		    size_t err_len);

/* --- between live.c, place.c, view.c and server.c */
struct live_place {
	atomic_uint gen;	/* bumped by each live_place_set() */
	pthread_mutex_t lock;	/* over set */
	cpu_set_t allowed, set;
};

void live_place_init(struct live_place *p);
void live_place_destroy(struct live_place *p);
void live_place_set(struct live_place *p, int step_cpu, int loop_cpu);
/* The calling thread to SCHED_IDLE and the latest set (cheap when
 * nothing changed). */
void live_place_self(struct live_place *p);

struct live_view;

/* @rings: one, or one per group */
int live_view_new(struct live_view **out, const struct live_config *c,
		  struct live_ring *rings, struct live_place *place);
void live_view_group_state(struct live_view *v, unsigned int g, int state);
void live_view_finish(struct live_view *v, const char *state);
void live_view_free(struct live_view *v);
/* The "hello" event a new stream starts with (static while it runs). */
const char *live_view_hello(const struct live_view *v);
/*
 * The next event after *@seq (0: the oldest one kept), waiting up to
 * @timeout_ms: a malloc'd SSE text and *@seq advanced; NULL on timeout
 * (*@end set once the run is over and every event was given).
 */
char *live_view_next(struct live_view *v, uint64_t *seq, int timeout_ms,
		     bool *end);
/* The latest summary as JSON text (malloc'd), for /summary.json. */
char *live_view_summary(struct live_view *v);

struct live_server;

int live_server_start(struct live_server **out, const struct live_config *c,
		      struct live_view *v, struct live_place *place,
		      char *url, size_t url_len,
		      char *err, size_t err_len);
void live_server_stop(struct live_server *s);

#endif /* RTHS_LIVE_H */
