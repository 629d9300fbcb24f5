// SPDX-License-Identifier: GPL-2.0
/*
 * The live view's thread (live.h): ten times a second it reads the frames
 * the step thread published, counts late and over-budget steps, keeps
 * J1-J3 so far (J1 both refined and as the benchmark's script), and
 * makes one event of what it read, thinned to at most POINTS points,
 * for every stream to send.  The last EVENTS events are
 * kept so that a browser that connects late still fills its windows.
 *
 * rths-site's view has a group per device substructure, each with its
 * own ring (one writer each): the thread reads them in turn and an event
 * carries each group's frames and summary ("subs").
 */
#include <errno.h>
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <linux/rths.h>
#include <rths/hs_criteria.h>

#include "live.h"

#define TICK_MS 100		/* an event every tick */
#define EVENTS 128		/* kept: 12.8 s of events */
#define POINTS 128		/* most points in one event */
#define J_EVERY 5		/* ticks between J1-J3 updates */
#define MAX_LAG 50		/* samples, as the summary's J1 */
#define BATCH 4096		/* frames read at once */
#define IDLE_EVERY 10		/* ticks between a grouped view's events
				 * when nothing moves */

/* One ring's frames and what the view keeps of them. */
struct live_group {
	struct live_ring *ring;
	unsigned int ch, sites;
	double dt, budget;
	uint64_t steps;
	uint64_t cursor, lost;
	double *c[LIVE_MAX_CH], *x[LIVE_MAX_CH];
	size_t n, cap;
	struct rths_hs_tracking j[LIVE_MAX_CH];
	long j1_bench[LIVE_MAX_CH];	/* J1 (benchmark), steps; < 0: none */
	uint64_t extrapolated, held, decelerated, gaps, over_budget;
	double compute_max;
	/* per site: round trips so far, re-issues */
	double rtt_sum[LIVE_MAX_SITES], rtt_max[LIVE_MAX_SITES];
	uint64_t rtt_n[LIVE_MAX_SITES], reissues[LIVE_MAX_SITES];
	struct live_frame last;
	bool has_last;
	struct timespec t0;	/* of its run (a group's: its test's) */
	bool restart;		/* a grouped view's: t0 at a test's start */
	_Atomic int state;	/* LIVE_WAITING, ... (grouped views) */
	int shown;		/* the state the last event showed */
};

struct live_view {
	struct live_place *place;
	unsigned int ngroups;
	bool grouped;		/* rths-site's: events carry "subs" */
	char *hello;
	pthread_t thread;
	bool started;

	/* under lock: the events, the summary and the end */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct {
		uint64_t seq;
		char *text;
	} ev[EVENTS];
	uint64_t last_seq;	/* of the newest event */
	char *summary;
	bool finish, finished;
	char state[16];

	/* the view thread's own */
	struct live_frame *batch;
	struct timespec t0;
	unsigned int ticks;
	struct live_group g[];
};

static double since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) +
	       (double)(t.tv_nsec - t0->tv_nsec) * 1e-9;
}

/* The criteria's inputs, from step 1 on (as the summary's). */
static int keep(struct live_group *v, const struct live_frame *f)
{
	if (v->n == v->cap) {
		size_t cap = v->cap ? 2 * v->cap : 4096;

		for (unsigned int i = 0; i < v->ch; i++) {
			double *c = realloc(v->c[i], cap * sizeof(double));
			double *x;

			if (!c)
				return -ENOMEM;
			v->c[i] = c;
			x = realloc(v->x[i], cap * sizeof(double));
			if (!x)
				return -ENOMEM;
			v->x[i] = x;
		}
		v->cap = cap;
	}
	for (unsigned int i = 0; i < v->ch; i++) {
		v->c[i][v->n] = f->target[i];
		v->x[i][v->n] = f->disp[i];
	}
	v->n++;
	return 0;
}

static void reset(struct live_group *v)
{
	memset(&v->j, 0, sizeof(v->j));
	for (unsigned int i = 0; i < LIVE_MAX_CH; i++)
		v->j1_bench[i] = -1;
	v->n = 0;
	v->extrapolated = v->held = v->decelerated = v->gaps = 0;
	v->over_budget = 0;
	v->compute_max = 0;
	memset(v->rtt_sum, 0, sizeof(v->rtt_sum));
	memset(v->rtt_max, 0, sizeof(v->rtt_max));
	memset(v->rtt_n, 0, sizeof(v->rtt_n));
	memset(v->reissues, 0, sizeof(v->reissues));
	v->has_last = false;
}

static void count(struct live_group *v, const struct live_frame *f)
{
	/* a grouped view's substructure began a new test: its steps count
	 * from 1 again, and so do its counts and J1-J3 */
	if (v->has_last && f->step <= v->last.step)
		reset(v);
	if (v->restart && !v->has_last)
		clock_gettime(CLOCK_MONOTONIC, &v->t0);
	if (f->flags & RTHS_FB_F_EXTRAPOLATED)
		v->extrapolated++;
	if (f->flags & RTHS_FB_F_HELD)
		v->held++;
	if (f->flags & RTHS_FB_F_DECELERATED)
		v->decelerated++;
	if (f->flags & RTHS_FB_F_GAP)
		v->gaps++;
	if (f->compute > v->budget)
		v->over_budget++;
	if (f->compute > v->compute_max)
		v->compute_max = f->compute;
	for (unsigned int i = 0; i < v->sites && i < f->sites; i++) {
		v->rtt_sum[i] += f->rtt_ms[i];
		v->rtt_n[i]++;
		if (f->rtt_ms[i] > v->rtt_max[i])
			v->rtt_max[i] = f->rtt_ms[i];
		v->reissues[i] += f->reissues[i];
	}
	v->last = *f;
	v->has_last = true;
}

static json_t *summary_json(struct live_group *v, const char *state)
{
	double elapsed = since(&v->t0);
	uint64_t step = v->has_last ? v->last.step : 0;
	json_t *s = json_object(), *j = json_array();

	for (unsigned int i = 0; i < v->ch; i++)
		json_array_append_new(j, json_pack(
			"{s:f,s:o,s:f,s:f}", "j1_ms", v->j[i].j1_ms,
			"j1_benchmark_ms", v->n > 2 && v->j1_bench[i] >= 0 ?
			json_real((double)v->j1_bench[i] * v->dt * 1e3) :
			json_null(), "j2_pct", v->j[i].j2_pct,
			"j3_pct", v->j[i].j3_pct));
	json_object_set_new(s, "state", json_string(state));
	json_object_set_new(s, "step", json_integer((json_int_t)step));
	json_object_set_new(s, "steps", json_integer((json_int_t)v->steps));
	json_object_set_new(s, "t", json_real(v->has_last ? v->last.t : 0));
	json_object_set_new(s, "duration", json_real((double)v->steps * v->dt));
	json_object_set_new(s, "elapsed_s", json_real(elapsed));
	/* at the pace so far */
	json_object_set_new(s, "remaining_s", json_real(
		step && v->steps > step ?
		elapsed * (double)(v->steps - step) / (double)step : 0));
	json_object_set_new(s, "extrapolated",
			    json_integer((json_int_t)v->extrapolated));
	json_object_set_new(s, "held", json_integer((json_int_t)v->held));
	json_object_set_new(s, "decelerated",
			    json_integer((json_int_t)v->decelerated));
	json_object_set_new(s, "gaps", json_integer((json_int_t)v->gaps));
	json_object_set_new(s, "over_budget",
			    json_integer((json_int_t)v->over_budget));
	json_object_set_new(s, "compute_max_s", json_real(v->compute_max));
	json_object_set_new(s, "budget_s", json_real(v->budget));
	json_object_set_new(s, "lost_frames", json_integer((json_int_t)v->lost));
	json_object_set_new(s, "tracking", j);
	if (v->sites) {
		json_t *sites = json_array();

		for (unsigned int i = 0; i < v->sites; i++) {
			const struct live_frame *f = &v->last;
			bool has = v->has_last && i < f->sites;

			json_array_append_new(sites, json_pack(
				"{s:f,s:f,s:f,s:I,s:I,s:s}",
				"rtt_ms", has ? f->rtt_ms[i] : 0.0,
				"rtt_mean_ms", v->rtt_n[i] ?
				v->rtt_sum[i] / (double)v->rtt_n[i] : 0.0,
				"rtt_max_ms", v->rtt_max[i],
				"reissues", (json_int_t)v->reissues[i],
				"reconnects",
				(json_int_t)(has ? f->reconnects[i] : 0),
				"state", !has ? "waiting" :
				f->reissues[i] ? "re-issued" : "ok"));
		}
		json_object_set_new(s, "sites", sites);
	}
	return s;
}

/* What @k frames of @f show, thinned to POINTS (the last one kept). */
static json_t *frames_json(const struct live_group *v,
			   const struct live_frame *f, size_t k)
{
	size_t stride = (k + POINTS - 1) / POINTS;
	json_t *o = json_object(), *step = json_array(), *t = json_array(),
	       *compute = json_array(), *flags = json_array(),
	       *tg = json_array(), *d = json_array(), *fo = json_array(),
	       *rtt = json_array();

	for (unsigned int i = 0; i < v->sites; i++)
		json_array_append_new(rtt, json_array());
	for (unsigned int i = 0; i < v->ch; i++) {
		json_array_append_new(tg, json_array());
		json_array_append_new(d, json_array());
		json_array_append_new(fo, json_array());
	}
	for (size_t p = 0; p < k; p++) {
		uint32_t late = 0;

		if (stride > 1 && p % stride != stride - 1 && p != k - 1)
			continue;
		/* a thinned point shows any late step it stands for */
		for (size_t q = p + 1 - (stride > p + 1 ? p + 1 : stride);
		     q <= p; q++)
			late |= f[q].flags;
		json_array_append_new(step, json_integer((json_int_t)f[p].step));
		json_array_append_new(t, json_real(f[p].t));
		json_array_append_new(compute, json_real(f[p].compute));
		json_array_append_new(flags, json_integer(late));
		for (unsigned int i = 0; i < v->sites; i++)
			json_array_append_new(json_array_get(rtt, i),
					      json_real(f[p].rtt_ms[i]));
		for (unsigned int i = 0; i < v->ch; i++) {
			json_array_append_new(json_array_get(tg, i),
					      json_real(f[p].target[i]));
			json_array_append_new(json_array_get(d, i),
					      json_real(f[p].disp[i]));
			json_array_append_new(json_array_get(fo, i),
					      json_real(f[p].force[i]));
		}
	}
	json_object_set_new(o, "step", step);
	json_object_set_new(o, "t", t);
	json_object_set_new(o, "compute", compute);
	json_object_set_new(o, "flags", flags);
	json_object_set_new(o, "target", tg);
	json_object_set_new(o, "disp", d);
	json_object_set_new(o, "force", fo);
	json_object_set_new(o, "rtt_ms", rtt);
	return o;
}

static char *sse(const char *event, uint64_t id, json_t *data)
{
	char *body = json_dumps(data, JSON_COMPACT | JSON_REAL_PRECISION(17));
	char *text = NULL;

	json_decref(data);
	if (body && asprintf(&text, "id: %llu\nevent: %s\ndata: %s\n\n",
			     (unsigned long long)id, event, body) < 0)
		text = NULL;
	free(body);
	return text;
}

static const char *const group_states[] = {
	[LIVE_WAITING] = "waiting", [LIVE_RUNNING] = "running",
	[LIVE_ENDED] = "ended",
};

/* Group @g's frames since the last tick into v->batch: their number. */
static size_t read_group(struct live_view *v, struct live_group *g,
			 bool final)
{
	uint64_t head = atomic_load_explicit(&g->ring->head,
					     memory_order_acquire);
	size_t k = 0;

	do {
		size_t got = live_ring_read(g->ring, &g->cursor, v->batch + 0,
					    BATCH, &g->lost);

		/* more than a batch in one tick: the newest batch shows */
		k = got ? got : k;
		for (size_t p = 0; p < got; p++) {
			count(g, &v->batch[p]);
			if (keep(g, &v->batch[p]) < 0)
				g->lost++;
		}
	} while (g->cursor < head);
	if (v->ticks % J_EVERY == 0 || final)
		for (unsigned int i = 0; i < g->ch && g->n > 2; i++) {
			rths_hs_tracking(g->c[i], g->x[i], g->n, 1, g->dt,
					 MAX_LAG, &g->j[i]);
			g->j1_bench[i] = rths_hs_tracking_benchmark_lag(
				g->c[i], g->x[i], g->n, 1,
				RTHS_HS_BENCHMARK_LAG_MIN,
				RTHS_HS_BENCHMARK_LAG_MAX);
		}
	return k;
}

/* A grouped view's event: each group's frames and summary. */
static json_t *grouped(struct live_view *v, bool final, const char *state,
		       json_t **sum, bool *news)
{
	json_t *o = json_object(), *subs = json_array(), *all = json_array();
	uint64_t lost = 0;

	for (unsigned int i = 0; i < v->ngroups; i++) {
		struct live_group *g = &v->g[i];
		size_t k = read_group(v, g, final);
		int gs = atomic_load_explicit(&g->state, memory_order_relaxed);
		json_t *f, *s;

		if (gs < LIVE_WAITING || gs > LIVE_ENDED)
			gs = LIVE_WAITING;
		if (k || gs != g->shown)
			*news = true;
		g->shown = gs;
		f = frames_json(g, v->batch, k);
		s = summary_json(g, group_states[gs]);
		json_array_append_new(all, json_deep_copy(s));
		json_object_set_new(f, "summary", s);
		json_array_append_new(subs, f);
		lost += g->lost;
	}
	*sum = json_pack("{s:s,s:f,s:I,s:o}", "state", state, "elapsed_s",
			 since(&v->t0), "lost_frames", (json_int_t)lost,
			 "subs", all);
	json_object_set_new(o, "subs", subs);
	json_object_set_new(o, "summary", json_deep_copy(*sum));
	return o;
}

/* One tick: the frames since the last, as one event. */
static void tick(struct live_view *v, bool final, const char *state)
{
	struct live_group *g = &v->g[0];
	json_t *o, *s;
	size_t k = 0;
	char *text = NULL, *sum;
	bool news = true;

	++v->ticks;
	if (v->grouped) {
		/* an event for frames, a group's new state, or the time
		 * that passes; the summary every tick */
		news = final || v->ticks % IDLE_EVERY == 0;
		o = grouped(v, final, state, &s, &news);
	} else {
		k = read_group(v, g, final);
		if (!k && !final)
			return;
		o = frames_json(g, v->batch, k);
		s = summary_json(g, state);
		json_object_set_new(o, "summary", json_incref(s));
	}
	sum = json_dumps(s, JSON_COMPACT | JSON_REAL_PRECISION(17));
	json_decref(s);
	pthread_mutex_lock(&v->lock);
	if (news)
		text = sse("frames", v->last_seq + 1, o);
	else
		json_decref(o);
	if (text) {
		unsigned int i = (unsigned int)(v->last_seq + 1) % EVENTS;

		free(v->ev[i].text);
		v->ev[i].text = text;
		v->ev[i].seq = ++v->last_seq;
	}
	if (sum) {
		free(v->summary);
		v->summary = sum;
	}
	if (final)
		v->finished = true;
	pthread_cond_broadcast(&v->cond);
	pthread_mutex_unlock(&v->lock);
}

static void *view_main(void *arg)
{
	struct live_view *v = arg;
	struct timespec next;

	live_place_self(v->place);
	clock_gettime(CLOCK_MONOTONIC, &next);
	for (;;) {
		bool finish;
		char state[sizeof(v->state)];

		next.tv_nsec += TICK_MS * 1000000L;
		if (next.tv_nsec >= 1000000000L) {
			next.tv_nsec -= 1000000000L;
			next.tv_sec++;
		}
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next,
				       NULL) == EINTR)
			;
		live_place_self(v->place);
		pthread_mutex_lock(&v->lock);
		finish = v->finish;
		memcpy(state, v->state, sizeof(state));
		pthread_mutex_unlock(&v->lock);
		tick(v, finish, finish ? state : "running");
		if (finish)
			return NULL;
	}
}

static json_t *hello_json(const struct live_config *c)
{
	json_t *h = json_pack("{s:s,s:s,s:i,s:f,s:I,s:f,s:f}", "tool", c->tool,
			      "name", c->name, "channels", (int)c->channels,
			      "dt", c->dt, "steps", (json_int_t)c->steps,
			      "duration", (double)c->steps * c->dt,
			      "budget_s", c->budget);
	unsigned int sites = c->sites < LIVE_MAX_SITES ? c->sites :
			     LIVE_MAX_SITES;

	if (h && sites) {
		json_t *names = json_array();

		for (unsigned int i = 0; i < sites; i++)
			json_array_append_new(names,
					      json_string(c->site_names[i]));
		json_object_set_new(h, "sites", names);
	}
	if (h && c->groups) {
		json_t *subs = json_array();

		for (unsigned int i = 0; i < c->groups; i++) {
			const struct live_group_config *g = &c->group[i];

			json_array_append_new(subs, json_pack(
				"{s:s,s:i,s:f,s:I,s:f,s:f}", "name", g->name,
				"channels", (int)g->channels, "dt", g->dt,
				"steps", (json_int_t)0, "duration", 0.0,
				"budget_s", g->budget));
		}
		json_object_set_new(h, "subs", subs);
	}
	return h;
}

int live_view_new(struct live_view **out, const struct live_config *c,
		  struct live_ring *rings, struct live_place *place)
{
	unsigned int n = c->groups ? c->groups : 1;
	struct live_view *v = calloc(1, sizeof(*v) + n * sizeof(v->g[0]));
	json_t *h;
	int r;

	*out = NULL;
	if (!v)
		return -ENOMEM;
	v->place = place;
	v->ngroups = n;
	v->grouped = c->groups > 0;
	pthread_mutex_init(&v->lock, NULL);
	pthread_cond_init(&v->cond, NULL);
	clock_gettime(CLOCK_MONOTONIC, &v->t0);
	for (unsigned int i = 0; i < n; i++) {
		struct live_group *g = &v->g[i];

		g->ring = &rings[i];
		for (unsigned int k = 0; k < LIVE_MAX_CH; k++)
			g->j1_bench[k] = -1;
		g->ch = c->groups ? c->group[i].channels : c->channels;
		g->sites = c->groups ? 0 : c->sites < LIVE_MAX_SITES ?
			   c->sites : LIVE_MAX_SITES;
		g->dt = c->groups ? c->group[i].dt : c->dt;
		g->budget = c->groups ? c->group[i].budget : c->budget;
		g->steps = c->groups ? 0 : c->steps;
		g->t0 = v->t0;
		g->restart = v->grouped;
	}
	v->batch = calloc(BATCH, sizeof(*v->batch));
	h = hello_json(c);
	v->hello = h ? sse("hello", 0, h) : NULL;
	if (!v->batch || !v->hello) {
		live_view_free(v);
		return -ENOMEM;
	}
	r = -pthread_create(&v->thread, NULL, view_main, v);
	if (r) {
		live_view_free(v);
		return r;
	}
	v->started = true;
	*out = v;
	return 0;
}

void live_view_group_state(struct live_view *v, unsigned int g, int state)
{
	if (g < v->ngroups)
		atomic_store_explicit(&v->g[g].state, state,
				      memory_order_relaxed);
}

void live_view_finish(struct live_view *v, const char *state)
{
	pthread_mutex_lock(&v->lock);
	v->finish = true;
	snprintf(v->state, sizeof(v->state), "%s", state);
	pthread_mutex_unlock(&v->lock);
}

void live_view_free(struct live_view *v)
{
	if (!v)
		return;
	if (v->started) {
		live_view_finish(v, "stopped");
		pthread_join(v->thread, NULL);
	}
	for (unsigned int i = 0; i < EVENTS; i++)
		free(v->ev[i].text);
	for (unsigned int k = 0; k < v->ngroups; k++)
		for (unsigned int i = 0; i < LIVE_MAX_CH; i++) {
			free(v->g[k].c[i]);
			free(v->g[k].x[i]);
		}
	free(v->summary);
	free(v->hello);
	free(v->batch);
	pthread_cond_destroy(&v->cond);
	pthread_mutex_destroy(&v->lock);
	free(v);
}

const char *live_view_hello(const struct live_view *v)
{
	return v->hello;
}

char *live_view_next(struct live_view *v, uint64_t *seq, int timeout_ms,
		     bool *end)
{
	struct timespec until;
	char *text = NULL;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += timeout_ms / 1000;
	until.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_nsec -= 1000000000L;
		until.tv_sec++;
	}
	*end = false;
	pthread_mutex_lock(&v->lock);
	while (*seq >= v->last_seq && !v->finished)
		if (pthread_cond_timedwait(&v->cond, &v->lock, &until) ==
		    ETIMEDOUT)
			break;
	if (*seq < v->last_seq) {
		/* a reader more than EVENTS behind goes on from the oldest */
		uint64_t want = *seq + 1;

		if (v->last_seq >= EVENTS && want <= v->last_seq - EVENTS)
			want = v->last_seq - EVENTS + 1;
		text = strdup(v->ev[want % EVENTS].text);
		*seq = want;
	} else if (v->finished) {
		*end = true;
	}
	pthread_mutex_unlock(&v->lock);
	return text;
}

char *live_view_summary(struct live_view *v)
{
	char *s;

	pthread_mutex_lock(&v->lock);
	s = v->summary ? strdup(v->summary) : strdup("{}");
	pthread_mutex_unlock(&v->lock);
	return s;
}
