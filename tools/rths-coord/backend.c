// SPDX-License-Identifier: GPL-2.0
/*
 * The sites as one backend for rths_hs_sim_run(): channel i is interface
 * coordinate i; post() sends STEP to every site at once (or, --serial,
 * one after another), wait() collects every RESULT in one poll loop.
 *
 * Per site a session goes DOWN -> CONNECTING -> HELLO -> READY <-> WAIT.
 * A step timeout re-sends the STEP on the same session; a second one
 * reconnects, and the new session re-sends it (the site answers a step it
 * executed from its cache).  A site behind the coordinator (it restarted)
 * gets its command history with the REPLAY flag first.
 *
 * The fault policy (Documentation/distributed-testing.rst): a lost
 * session reconnects after an exponential backoff with jitter, which
 * only a RESULT resets; a site that stays unreachable for its give_up
 * time, or loses max_retries sessions in a row without a RESULT, ends the
 * run.  A site's ERROR device is never answered by sending the step
 * again: the run fails, and hold() tells every site to end the test
 * (BYE: a device ramps to rest).  The same for a replay whose forces
 * differ from the first run's, unless the file allows it.  A refused
 * authentication ends the run at once.
 *
 * Steps the journal holds (--resume) are fed from it without network;
 * the sessions open at the first step past it.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coord.h"

#define BACKOFF_MIN_NS 50000000LL	/* 50 ms, doubling */
#define BACKOFF_MAX_NS 2000000000LL	/* to 2 s */
#define NS 1e9

enum link_state { L_DOWN, L_CONNECTING, L_HELLO, L_READY, L_WAIT };

struct link {
	const struct site_config *cfg;
	struct conn c;
	enum link_state st;
	int64_t deadline;	/* CONNECTING/HELLO: connect; WAIT: step */
	int64_t retry_at, backoff, trouble_since, last_tx;
	bool hello_done;	/* one WELCOME seen: no RESET again */
	char last_fail[320];	/* logged once while it repeats */
	uint32_t heartbeat_ms;
	uint64_t inflight;	/* seq of the STEP sent */
	uint32_t inflight_flags;
	int64_t sent_at;
	int session_reissues;
	uint32_t fails;		/* sessions lost in a row without a RESULT */
	int64_t lost_at;	/* the session was lost (0: it is up) */
	bool ended;		/* ending: told BYE, or could not be */
	uint64_t done;		/* last step whose result is in */
	struct site_stats stats;
	struct site_step *steps;	/* [steps + 1] */
	double rtt_acc;
	uint64_t rtt_n;
};

struct coord {
	const struct coord_config *cc;
	struct coord_options o;
	struct journal *j;
	size_t q, n;
	uint64_t steps;		/* planned; arrays hold steps + 1 rows */
	double dt;
	uint64_t want;		/* the step in progress */
	uint64_t completed;	/* the last step every site answered */
	bool live;
	double *x, *d, *f;	/* rows of q: commands, measured disp, force */
	double *step_time;
	int64_t step_start;
	int fatal;
	enum coord_fault fault;
	char fatal_msg[384];
	bool ending;		/* hold(): BYE to every site */
	uint64_t rng;		/* the backoff's jitter */
	struct pollfd *pfd;	/* the poll loop's, one a site */
	struct link **who;	/* pfd[i]'s site */
	struct link links[];
};

static void set_fatal(struct coord *c, const struct link *L,
		      enum coord_fault fault, int code, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static void set_fatal(struct coord *c, const struct link *L,
		      enum coord_fault fault, int code, const char *fmt, ...)
{
	char msg[320];
	va_list ap;

	if (c->fatal)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(c->fatal_msg, sizeof(c->fatal_msg), "%s%s%s",
		 L ? L->cfg->name : "", L ? ": " : "", msg);
	c->fatal = code;
	c->fault = fault;
}

/* A backoff of @b ns with jitter: uniform in [b/2, b] (xorshift64). */
static int64_t jitter(struct coord *c, int64_t b)
{
	c->rng ^= c->rng << 13;
	c->rng ^= c->rng >> 7;
	c->rng ^= c->rng << 17;
	return b / 2 + (int64_t)(c->rng % (uint64_t)(b / 2 + 1));
}

/* ------------------------------------------------------------ sending */

/* One message down the session layer: encoded, sealed, written. */
static int send_msg(struct link *L, const struct rnp_msg *m)
{
	int r = conn_send(&L->c, m);

	L->last_tx = coord_now_ns();
	return r;
}

static void link_fail(struct coord *c, struct link *L, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The session is lost: close it and reconnect after the backoff. */
static void link_fail(struct coord *c, struct link *L, const char *fmt, ...)
{
	int64_t now = coord_now_ns();
	char msg[320];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	conn_close(&L->c);
	L->st = L_DOWN;
	if (c->ending) {
		coord_log(L->cfg->name, "could not tell the site to end the test: %s",
			  msg);
		L->ended = true;
		return;
	}
	if (!L->trouble_since)
		L->trouble_since = now;
	if (!L->lost_at)
		L->lost_at = now;
	L->stats.reconnects++;
	if (++L->fails > L->cfg->max_retries) {
		set_fatal(c, L, COORD_FAULT_NETWORK, -ETIMEDOUT,
			  "%s; %u sessions lost in a row without a RESULT (max_retries %u), giving up",
			  msg, L->fails, L->cfg->max_retries);
		return;
	}
	L->retry_at = now + (L->backoff ? jitter(c, L->backoff) : 0);
	if (strcmp(msg, L->last_fail)) {
		coord_log(L->cfg->name, "%s; reconnecting in %.3g s", msg,
			  (double)(L->retry_at - now) / NS);
		snprintf(L->last_fail, sizeof(L->last_fail), "%s", msg);
	} else {
		coord_debug(L->cfg->name, "%s again; reconnecting in %.3g s (attempt %u of %u)",
			    msg, (double)(L->retry_at - now) / NS, L->fails,
			    L->cfg->max_retries);
	}
	L->backoff = L->backoff ? 2 * L->backoff : BACKOFF_MIN_NS;
	if (L->backoff > BACKOFF_MAX_NS)
		L->backoff = BACKOFF_MAX_NS;
}

/*
 * BYE on a session, flushed, then closed once the site has closed its
 * end (a second at most): closing with a RESULT unread would reset the
 * connection, and the BYE could be lost on the way.
 */
static void send_bye(struct link *L)
{
	int64_t until = coord_now_ns() + 1000000000LL;
	struct rnp_msg m = { .h.type = RNP_BYE };

	if (conn_send(&L->c, &m) == 0) {
		while (L->c.out.len && conn_flush(&L->c) == 0 &&
		       coord_now_ns() < until) {
			struct pollfd p = { L->c.fd, POLLOUT, 0 };

			poll(&p, 1, 100);
		}
		while (!L->c.out.len && coord_now_ns() < until) {
			struct pollfd p = { L->c.fd, POLLIN, 0 };
			char sink[512];

			if (poll(&p, 1, 100) < 0 ||
			    ((p.revents & (POLLIN | POLLHUP | POLLERR)) &&
			     recv(L->c.fd, sink, sizeof(sink), 0) <= 0))
				break;
		}
	}
	conn_close(&L->c);
	L->st = L_DOWN;
	L->ended = true;
}

/* STEP @seq to the site: its slice of the commands. */
static void send_step(struct coord *c, struct link *L, uint64_t seq,
		      uint32_t flags)
{
	double u[RTHS_HS_MAX_CHANNELS];
	struct rnp_msg m = {
		.h.type = RNP_STEP,
		.step = { .seq = seq, .t = (double)seq * c->dt, .flags = flags,
			  .ndof = L->cfg->ndof, .u = u },
	};
	int r;

	for (uint32_t k = 0; k < L->cfg->ndof; k++)
		u[k] = c->x[seq * c->q + L->cfg->dofs[k]];
	/* before the write: a slow write is part of the round trip */
	L->sent_at = coord_now_ns();
	r = send_msg(L, &m);
	if (r < 0) {
		link_fail(c, L, "sending STEP %" PRIu64 ": %s", seq,
			  strerror(-r));
		return;
	}
	L->inflight = seq;
	L->inflight_flags = flags;
	L->deadline = L->sent_at + (int64_t)(L->cfg->step_timeout * NS);
	L->st = L_WAIT;
}

static void send_hello(struct coord *c, struct link *L)
{
	struct rnp_msg m = {
		.h.type = RNP_HELLO,
		.hello = {
			.version_min = RNP_VERSION, .version_max = RNP_VERSION,
			.flags = c->o.reset && !L->hello_done ?
				 RNP_HELLO_RESET : 0,
			.test_id = c->o.test_id, .last_seq = c->completed,
			.ndof = L->cfg->ndof,
		},
	};
	int r;

	snprintf(m.hello.substructure, sizeof(m.hello.substructure), "%s",
		 L->cfg->substructure);
	r = send_msg(L, &m);
	if (r < 0) {
		link_fail(c, L, "sending HELLO: %s", strerror(-r));
		return;
	}
	L->st = L_HELLO;
}

/* Whether this site may get the current step now (--serial: once every
 * site before it has answered). */
static bool my_turn(const struct coord *c, const struct link *L)
{
	if (!c->o.serial)
		return true;
	for (const struct link *k = c->links; k < L; k++)
		if (k->done < c->want)
			return false;
	return true;
}

/* A READY site: the next replay step, or the current step. */
static void advance(struct coord *c, struct link *L)
{
	if (L->st != L_READY || !c->want || L->done >= c->want ||
	    !my_turn(c, L))
		return;
	send_step(c, L, c->want, 0);
}

/* ---------------------------------------------------------- receiving */

static void on_welcome(struct coord *c, struct link *L,
		       const struct rnp_welcome *w)
{
	uint64_t site_last;

	if (L->st != L_HELLO) {
		link_fail(c, L, "WELCOME out of turn");
		return;
	}
	if (c->ending) {
		send_bye(L);
		coord_log(L->cfg->name, "told to end the test (BYE): a device there ramps to rest");
		return;
	}
	if (w->ndof != L->cfg->ndof) {
		set_fatal(c, L, COORD_FAULT_PROTOCOL, -EPROTO,
			  "substructure %s has %u DOF, the experiment gives it %u",
			  L->cfg->substructure, w->ndof, L->cfg->ndof);
		return;
	}
	/* Another test id, or none: the site starts from the initial state. */
	site_last = w->test_id == c->o.test_id ? w->last_seq : 0;
	if (site_last > c->want && site_last > c->completed) {
		set_fatal(c, L, COORD_FAULT_PROTOCOL, -EPROTO,
			  "the site has executed step %" PRIu64 " of this test, the coordinator is at %" PRIu64 " (another coordinator, or a journal that lost steps)",
			  site_last, c->completed);
		return;
	}
	if (w->kind == RNP_KIND_DEVICE && w->rate && !L->hello_done &&
	    fabs((double)w->step_ticks / w->rate - c->dt) > 1e-9 * c->dt)
		coord_log(L->cfg->name, "warning: the device steps %u ticks at %u Hz = %g s, the integration %g s",
			  w->step_ticks, w->rate, (double)w->step_ticks / w->rate,
			  c->dt);
	L->hello_done = true;
	L->last_fail[0] = '\0';
	L->heartbeat_ms = w->heartbeat_ms;
	L->stats.connects++;
	if (L->lost_at) {
		double d = (double)(coord_now_ns() - L->lost_at) / NS;

		if (d > L->stats.slowest_reconnect)
			L->stats.slowest_reconnect = d;
		L->lost_at = 0;
	}
	coord_debug(L->cfg->name, "WELCOME: %s, %u DOF, test %s, last step %" PRIu64,
		    w->kind == RNP_KIND_DEVICE ? "device" : "numerical", w->ndof,
		    w->test_id == c->o.test_id ? "ours" :
		    w->test_id ? "another" : "none", w->last_seq);
	L->st = L_READY;
	if (!c->want || L->done >= c->want)
		L->trouble_since = 0;
	if (site_last < c->completed) {
		coord_log(L->cfg->name, "the site is at step %" PRIu64 " of %" PRIu64 ": replaying its history",
			  site_last, c->completed);
		L->stats.replays++;
		send_step(c, L, site_last + 1, RNP_STEP_REPLAY);
		return;
	}
	/* In WAIT, the current step goes out again on this session. */
	if (c->want && L->done < c->want && L->inflight == c->want) {
		L->stats.reissues++;
		L->steps[c->want].reissues++;
	}
	advance(c, L);
}

/* m's disp and force point into the reader's arrays (on_readable()). */
static void on_result(struct coord *c, struct link *L,
		      const struct rnp_result *m)
{
	const double *disp = m->disp, *force = m->force;
	int64_t now = coord_now_ns();
	uint64_t n;

	if (L->st != L_WAIT || m->seq < L->inflight) {
		/* The first answer to a step re-sent on the same session. */
		coord_debug(L->cfg->name, "stale RESULT %" PRIu64 " ignored",
			    m->seq);
		return;
	}
	if (m->seq > L->inflight || m->ndof != L->cfg->ndof) {
		link_fail(c, L, "RESULT %" PRIu64 " with %u DOF to STEP %" PRIu64,
			  m->seq, m->ndof, L->inflight);
		return;
	}
	n = m->seq;
	L->trouble_since = 0;
	L->session_reissues = 0;
	L->fails = 0;
	L->backoff = 0;
	L->st = L_READY;
	if (L->inflight_flags & RNP_STEP_REPLAY) {
		L->stats.replayed_steps++;
		for (uint32_t k = 0; k < m->ndof; k++) {
			double first = c->f[n * c->q + L->cfg->dofs[k]];

			if (!memcmp(&force[k], &first, sizeof(double)))
				continue;
			if (!c->cc->replay_warn) {
				set_fatal(c, L, COORD_FAULT_REPLAY, -EPROTO,
					  "replay: step %" PRIu64 " gave force %.17g at site DOF %u, the first run %.17g: the site's model or specimen is not the one the test began with; stopping (\"replay\": {\"on_mismatch\": \"warn\"} goes on)",
					  n, force[k], k, first);
				return;
			}
			if (!L->stats.replay_mismatches)
				coord_log(L->cfg->name, "warning: replay: step %" PRIu64 " gave force %.17g at site DOF %u, the first run %.17g; going on (replay.on_mismatch is \"warn\")",
					  n, force[k], k, first);
			L->stats.replay_mismatches++;
			break;
		}
		if (n < c->completed) {
			send_step(c, L, n + 1, RNP_STEP_REPLAY);
		} else {
			coord_log(L->cfg->name, "replayed steps to %" PRIu64 "%s",
				  n, L->stats.replay_mismatches ?
				  " (forces differ from the first run's)" : "");
			advance(c, L);
		}
		return;
	}
	for (uint32_t k = 0; k < m->ndof; k++) {
		c->d[n * c->q + L->cfg->dofs[k]] = disp[k];
		c->f[n * c->q + L->cfg->dofs[k]] = force[k];
	}
	L->done = n;
	L->stats.steps++;
	if (m->flags & RNP_RES_CACHED)
		L->stats.cached++;
	L->steps[n].rtt = (double)(now - L->sent_at) / NS;
	L->steps[n].compute = (double)m->compute_ns / NS;
	L->steps[n].flags = m->flags;
	L->steps[n].fb_flags = m->fb_flags;
	L->steps[n].late_ticks = m->late_ticks;
	L->rtt_acc += L->steps[n].rtt;
	L->rtt_n++;
	/* --serial: the next site's turn */
	for (struct link *k = L + 1; c->o.serial && k < c->links + c->n; k++)
		advance(c, k);
}

static bool fatal_error(int code)
{
	return code == RNP_ERR_VERSION || code == RNP_ERR_UNKNOWN ||
	       code == RNP_ERR_BUSY || code == RNP_ERR_SEQUENCE ||
	       code == RNP_ERR_DOF || code == RNP_ERR_AUTH;
}

/* A message the session layer decoded (the types of SITE_MSGS). */
static void on_msg(struct coord *c, struct link *L, struct rnp_msg *m)
{
	const struct rnp_errmsg *e = &m->error;

	switch (m->h.type) {
	case RNP_WELCOME:
		on_welcome(c, L, &m->welcome);
		return;
	case RNP_RESULT:
		on_result(c, L, &m->result);
		return;
	case RNP_PING:
		m->h.type = RNP_PONG;	/* the same nonce and time back */
		if (send_msg(L, m) < 0)
			link_fail(c, L, "sending PONG failed");
		return;
	case RNP_PONG:
		return;
	case RNP_ERROR:
		if (c->ending) {
			coord_log(L->cfg->name, "could not tell the site to end the test: ERROR %s: %s",
				  rnp_error_name(e->code), e->text);
			conn_close(&L->c);
			L->st = L_DOWN;
			L->ended = true;
		} else if (e->code == RNP_ERR_DEVICE) {
			/* Never sent again: the device refused it. */
			set_fatal(c, L, COORD_FAULT_DEVICE, -EIO,
				  "the device refused step %" PRIu64 ": ERROR device: %s",
				  L->st == L_WAIT ? L->inflight : c->want,
				  e->text);
			conn_close(&L->c);
			L->st = L_DOWN;
		} else if (e->code == RNP_ERR_AUTH) {
			set_fatal(c, L, COORD_FAULT_AUTH, -EACCES,
				  "authentication failed: the site does not let this coordinator in: ERROR auth: %s",
				  e->text);
			conn_close(&L->c);
			L->st = L_DOWN;
		} else if (fatal_error(e->code)) {
			set_fatal(c, L, COORD_FAULT_PROTOCOL, -EPROTO,
				  "the site refused: ERROR %s: %s",
				  rnp_error_name(e->code), e->text);
			conn_close(&L->c);
			L->st = L_DOWN;
		} else {
			link_fail(c, L, "ERROR %s: %s", rnp_error_name(e->code),
				  e->text);
		}
		return;
	default:
		link_fail(c, L, "unexpected %s from a site",
			  rnp_type_name(m->h.type));
	}
}

/* What a site sends that the coordinator decodes (a PONG is not read). */
#define SITE_MSGS (1u << RNP_WELCOME | 1u << RNP_RESULT | 1u << RNP_PING | \
		   1u << RNP_ERROR)

static void on_readable(struct coord *c, struct link *L)
{
	double disp[RTHS_HS_MAX_CHANNELS], force[RTHS_HS_MAX_CHANNELS];
	struct rnp_msg m = {
		.accept = SITE_MSGS, .max_dof = RTHS_HS_MAX_CHANNELS,
		.arr = { disp, force },
	};
	char why[160];
	int r = 1;

	while (r == 1 && L->c.fd >= 0 && !c->fatal) {
		r = conn_next_msg(&L->c, &m, why, sizeof(why));
		if (r == 0)
			return;
		if (r == -EPIPE) {
			link_fail(c, L, "the site closed the session");
			return;
		}
		if (r == -EACCES) {
			set_fatal(c, L, COORD_FAULT_AUTH, -EACCES,
				  "authentication failed: the site refused the session: %s",
				  conn_error(&L->c));
			conn_close(&L->c);
			L->st = L_DOWN;
			return;
		}
		if (r < 0) {
			link_fail(c, L, "%s", r >= -RNP_ERR_INTERNAL ?
				  why : strerror(-r));
			return;
		}
		on_msg(c, L, &m);
	}
}

/* ------------------------------------------------------------- timers */

/*
 * A PING once the session has sent nothing for a heartbeat period;
 * -1 if sending failed (the link is then down).
 */
static int ping_if_quiet(struct coord *c, struct link *L, int64_t now)
{
	int64_t hb = (int64_t)L->heartbeat_ms * 1000000;
	struct rnp_msg m = {
		.h.type = RNP_PING,
		.ping = { .nonce = (uint64_t)now, .time_ns = (uint64_t)now },
	};

	if (hb <= 0 || now - L->last_tx < hb)
		return 0;
	if (send_msg(L, &m) < 0) {
		link_fail(c, L, "sending PING failed");
		return -1;
	}
	return 0;
}

/* Due actions of one site; returns when it next needs attention. */
static int64_t tick(struct coord *c, struct link *L, int64_t now)
{
	int64_t hb = (int64_t)L->heartbeat_ms * 1000000;
	int r;

	if (c->ending && L->ended)
		return now + 1000000000LL;
	if (L->trouble_since && L->st != L_WAIT && L->st != L_READY &&
	    now - L->trouble_since > (int64_t)(L->cfg->give_up * NS)) {
		set_fatal(c, L, COORD_FAULT_NETWORK, -ETIMEDOUT,
			  "unreachable for %g s, giving up", L->cfg->give_up);
		return now;
	}
	switch (L->st) {
	case L_DOWN:
		if (now < L->retry_at)
			return L->retry_at;
		r = conn_connect(&L->c, (const struct sockaddr *)&L->cfg->addr,
				 L->cfg->addr_len);
		if (r < 0) {
			link_fail(c, L, "connect to %s port %d: %s",
				  L->cfg->address, L->cfg->port, strerror(-r));
			return L->retry_at;
		}
		L->st = L_CONNECTING;
		L->deadline = now + (int64_t)(L->cfg->connect_timeout * NS);
		return L->deadline;
	case L_CONNECTING:
	case L_HELLO:
		if (now >= L->deadline) {
			link_fail(c, L, "no WELCOME within %g s",
				  L->cfg->connect_timeout);
			return L->retry_at;
		}
		return L->deadline;
	case L_WAIT:
		if (now >= L->deadline) {
			if (!L->trouble_since)
				L->trouble_since = now;
			if (now - L->trouble_since >
			    (int64_t)(L->cfg->give_up * NS)) {
				set_fatal(c, L, COORD_FAULT_NETWORK, -ETIMEDOUT,
					  "no RESULT for step %" PRIu64 " within %g s, giving up",
					  L->inflight, L->cfg->give_up);
				return now;
			}
			if (L->session_reissues == 0) {
				coord_log(L->cfg->name, "no RESULT for step %" PRIu64 " within %g s: re-issuing it",
					  L->inflight, L->cfg->step_timeout);
				L->session_reissues = 1;
				L->stats.reissues++;
				if (!(L->inflight_flags & RNP_STEP_REPLAY))
					L->steps[L->inflight].reissues++;
				send_step(c, L, L->inflight, L->inflight_flags);
				return L->deadline;
			}
			L->session_reissues = 0;
			L->backoff = 0;
			link_fail(c, L, "no RESULT for step %" PRIu64 " after a re-issue",
				  L->inflight);
			return L->retry_at;
		}
		/* The site drops a session silent for 3 heartbeats, even
		 * while it computes a step: keep pinging while we wait. */
		if (ping_if_quiet(c, L, now) < 0)
			return L->retry_at;
		if (hb > 0 && L->last_tx + hb < L->deadline)
			return L->last_tx + hb;
		return L->deadline;
	case L_READY:
		if (ping_if_quiet(c, L, now) < 0)
			return L->retry_at;
		return hb > 0 ? L->last_tx + hb : now + 1000000000LL;
	}
	return now + 1000000000LL;
}

/* The TCP connect, then the TLS handshake, moved on; HELLO once done. */
static void connected(struct coord *c, struct link *L)
{
	char why[256];
	int r = 0;

	if (L->c.connecting)
		r = conn_finish_connect(&L->c, why, sizeof(why));
	if (r == 0 && L->c.handshaking)
		r = conn_handshake(&L->c, why, sizeof(why));
	if (r == -EAGAIN)
		return;
	if (r == -EKEYREJECTED)
		/* The site's certificate will not change by retrying. */
		set_fatal(c, L, COORD_FAULT_AUTH, -EACCES,
			  "authentication failed: connect to %s port %d: %s: the site's certificate is not signed by tls.ca or does not name %s%s",
			  L->cfg->address, L->cfg->port, why,
			  L->c.server_name ? L->c.server_name : L->cfg->address,
			  L->cfg->tls.server_name[0] ? "" :
			  "; set tls.server_name to the name it holds");
	else if (r == -EACCES)
		/* Nor will our key: the site refused it. */
		set_fatal(c, L, COORD_FAULT_AUTH, -EACCES,
			  "authentication failed: connect to %s port %d: %s (a wrong pre-shared key or identity, or a certificate the site does not accept)",
			  L->cfg->address, L->cfg->port, why);
	else if (r < 0)
		link_fail(c, L, "connect to %s port %d: %s", L->cfg->address,
			  L->cfg->port, why);
	else
		send_hello(c, L);
}

/*
 * The event loop: runs until @done says so, a site fails for good, or
 * the stop flag is set.
 */
static int pump(struct coord *c, bool (*done)(const struct coord *),
		struct rths_error *err)
{
	struct pollfd *pfd = c->pfd;
	struct link **who = c->who;

	for (;;) {
		int64_t now = coord_now_ns(), next = now + 1000000000LL;
		int np = 0, timeout;

		for (size_t i = 0; i < c->n && !c->fatal; i++) {
			int64_t t = tick(c, &c->links[i], now);

			if (t < next)
				next = t;
		}
		if (!c->fatal && done(c))
			return 0;
		if (c->fatal)
			return rths_error_set(err, c->fatal, NULL, 0, NULL, "%s",
					      c->fatal_msg);
		if (c->o.stop && *c->o.stop)
			return rths_error_set(err, -EINTR, NULL, 0, NULL,
					      "interrupted");
		for (size_t i = 0; i < c->n; i++) {
			struct link *L = &c->links[i];

			if (L->c.fd < 0)
				continue;
			pfd[np].fd = L->c.fd;
			pfd[np].events = conn_events(&L->c);
			who[np++] = L;
		}
		timeout = next <= now ? 0 : (int)((next - now) / 1000000 + 1);
		if (poll(pfd, (nfds_t)np, timeout) < 0) {
			if (errno == EINTR)
				continue;
			return rths_error_set(err, -errno, NULL, 0, NULL,
					      "poll: %s", strerror(errno));
		}
		for (int i = 0; i < np && !c->fatal; i++) {
			struct link *L = who[i];

			if (!pfd[i].revents || L->c.fd != pfd[i].fd)
				continue;
			if (L->c.connecting || L->c.handshaking) {
				connected(c, L);
				continue;
			}
			if ((pfd[i].revents & POLLOUT) && conn_flush(&L->c) < 0) {
				link_fail(c, L, "the session broke");
				continue;
			}
			if (pfd[i].revents & (POLLIN | POLLHUP | POLLERR))
				on_readable(c, L);
		}
	}
}

static bool all_ready(const struct coord *c)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->links[i].st != L_READY)
			return false;
	return true;
}

static bool all_answered(const struct coord *c)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->links[i].done < c->want)
			return false;
	return true;
}

/* Opens every session (at the start, or at the first step past the
 * journal): the sites connect at once. */
static int go_live(struct coord *c, struct rths_error *err)
{
	int64_t now = coord_now_ns();

	c->live = true;
	for (size_t i = 0; i < c->n; i++) {
		struct link *L = &c->links[i];

		L->st = L_DOWN;
		L->retry_at = now;
		L->trouble_since = now;
		L->done = c->completed;
	}
	return pump(c, all_ready, err);
}

/* ------------------------------------------------------- backend ops */

static int op_start(void *priv, struct rths_error *err)
{
	struct coord *c = priv;

	if (c->j && c->j->n_steps)
		return 0;
	return go_live(c, err);
}

static int op_post(void *priv, uint64_t step, const double *target,
		   struct rths_error *err)
{
	struct coord *c = priv;

	if (step != c->completed + 1 || step > c->steps)
		return rths_error_set(err, -EINVAL, NULL, 0, NULL,
				      "step %" PRIu64 " posted after step %" PRIu64,
				      step, c->completed);
	memcpy(c->x + step * c->q, target, c->q * sizeof(double));
	c->want = step;
	c->step_start = coord_now_ns();
	if (c->j && step <= c->j->n_steps) {
		if (memcmp(target, c->j->x + (step - 1) * c->q,
			   c->q * sizeof(double)))
			return rths_error_set(err, -EINVAL, NULL, 0, NULL,
					      "step %" PRIu64 ": the integration commands other displacements than the journal holds (another experiment file or build?)",
					      step);
		return 0;
	}
	if (!c->live) {
		int r = go_live(c, err);

		if (r < 0)
			return r;
	}
	for (size_t i = 0; i < c->n; i++)
		advance(c, &c->links[i]);
	return 0;
}

static int op_wait(void *priv, uint64_t step,
		   struct rths_hs_feedback_wide *fb, struct rths_error *err)
{
	struct coord *c = priv;
	size_t q = c->q;
	int r;

	if (step != c->want)
		return rths_error_set(err, -EINVAL, NULL, 0, NULL,
				      "waiting for step %" PRIu64 ", step %" PRIu64 " posted",
				      step, c->want);
	fb->flags = 0;
	fb->late_ticks = 0;
	if (c->j && step <= c->j->n_steps) {
		memcpy(c->d + step * q, c->j->d + (step - 1) * q,
		       q * sizeof(double));
		memcpy(c->f + step * q, c->j->f_meas + (step - 1) * q,
		       q * sizeof(double));
	} else {
		r = pump(c, all_answered, err);
		if (r < 0)
			return r;
		/* A device site's lateness shows in the history's flags. */
		for (size_t i = 0; i < c->n; i++) {
			const struct site_step *s = &c->links[i].steps[step];

			fb->flags |= s->fb_flags;
			if (s->late_ticks > fb->late_ticks)
				fb->late_ticks = s->late_ticks;
		}
		c->step_time[step] = (double)(coord_now_ns() - c->step_start) / NS;
		if (c->j && c->j->f &&
		    journal_step(c->j, step, (double)step * c->dt,
				 c->x + step * q, c->d + step * q,
				 c->f + step * q) < 0)
			return rths_error_set(err, -EIO, NULL, 0, NULL,
					      "writing the journal: %s",
					      strerror(errno));
	}
	c->completed = step;
	fb->step = step;
	fb->tick = step * c->cc->x->device.step_ticks;
	fb->time_ns = (uint64_t)((double)step * c->dt * NS);
	memcpy(fb->command, c->x + step * q, q * sizeof(double));
	memcpy(fb->disp, c->d + step * q, q * sizeof(double));
	memcpy(fb->force, c->f + step * q, q * sizeof(double));
	return 0;
}

static bool all_ended(const struct coord *c)
{
	for (size_t i = 0; i < c->n; i++)
		if (!c->links[i].ended)
			return false;
	return true;
}

/*
 * A device refused a step, or a replay differed: BYE to every site, on
 * its session if it has one, else on a new one (one attempt each), so
 * that every device ramps to rest.  Nothing is sent to a site but HELLO
 * and BYE.
 */
static void end_test(struct coord *c)
{
	int64_t now = coord_now_ns();
	struct rths_error e;
	int fatal = c->fatal;
	char msg[sizeof(c->fatal_msg)];

	memcpy(msg, c->fatal_msg, sizeof(msg));
	coord_log(NULL, "holding the test: every site is told to end it (BYE), a device ramps to rest");
	c->ending = true;
	c->fatal = 0;
	for (size_t i = 0; i < c->n; i++) {
		struct link *L = &c->links[i];

		L->ended = false;
		if (L->c.fd >= 0 && (L->st == L_READY || L->st == L_WAIT)) {
			send_bye(L);
			coord_log(L->cfg->name, "told to end the test (BYE): a device there ramps to rest");
			continue;
		}
		conn_close(&L->c);
		L->st = L_DOWN;
		L->retry_at = now;
		L->trouble_since = 0;
	}
	if (pump(c, all_ended, &e) < 0)
		coord_log(NULL, "ending the test: %s", e.msg);
	for (size_t i = 0; i < c->n; i++)
		conn_close(&c->links[i].c);
	c->ending = false;
	c->fatal = fatal;
	memcpy(c->fatal_msg, msg, sizeof(msg));
}

/* Ctrl-C or an error: the sites keep the test (for --resume); a device
 * fault or a replay that differed ends it at every site. */
static int op_hold(void *priv, struct rths_error *err)
{
	struct coord *c = priv;

	(void)err;
	if (c->live && (c->fault == COORD_FAULT_DEVICE ||
			c->fault == COORD_FAULT_REPLAY))
		end_test(c);
	for (size_t i = 0; i < c->n; i++)
		conn_close(&c->links[i].c);
	c->live = false;
	return 0;
}

/* The end: BYE to every site, so that each forgets the test. */
static int op_stop(void *priv, struct rths_error *err)
{
	struct coord *c = priv;
	struct rths_error e;

	/* A resumed test whose journal held every step: its sites still
	 * wait for the BYE. */
	if (!c->live && go_live(c, &e) < 0) {
		coord_log(NULL, "no BYE to the sites: %s", e.msg);
		return rths_error_set(err, e.code, NULL, 0, NULL, "%s", e.msg);
	}
	for (size_t i = 0; i < c->n; i++) {
		struct link *L = &c->links[i];

		if (L->st == L_READY)
			send_bye(L);
		conn_close(&L->c);
	}
	c->live = false;
	return 0;
}

static void op_close(void *priv)
{
	struct coord *c = priv;

	for (size_t i = 0; i < c->n; i++) {
		conn_free(&c->links[i].c);
		free(c->links[i].steps);
	}
	free(c->x);
	free(c->d);
	free(c->f);
	free(c->step_time);
	free(c->pfd);
	free(c->who);
	free(c);
}

/* Wide: a channel per interface coordinate, more than a feedback record's
 * 16 from 17 sites on (rths_hs_backend_wait_wide()). */
static const struct rths_hs_backend_wide_ops coord_ops = {
	.ops = {
		.name = "sites",
		.start = op_start,
		.post = op_post,
		.hold = op_hold,
		.stop = op_stop,
		.close = op_close,
	},
	.wait_wide = op_wait,
};

int coord_backend_open(struct rths_hs_backend *b,
		       const struct coord_config *cc,
		       const struct coord_options *o, struct journal *j,
		       uint64_t steps, struct rths_error *err)
{
	size_t q = cc->n_if, rows = steps + 1;
	struct coord *c = calloc(1, sizeof(*c) +
				 cc->n_sites * sizeof(struct link));
	bool oom = !c;

	if (c) {
		c->cc = cc;
		c->o = *o;
		c->j = j;
		c->q = q;
		c->n = cc->n_sites;
		c->steps = steps;
		c->dt = cc->x->integrator.dt;
		c->rng = o->test_id | 1;
		c->x = calloc(rows * q, sizeof(double));
		c->d = calloc(rows * q, sizeof(double));
		c->f = calloc(rows * q, sizeof(double));
		c->step_time = calloc(rows, sizeof(double));
		c->pfd = calloc(c->n, sizeof(*c->pfd));
		c->who = calloc(c->n, sizeof(*c->who));
		oom = !c->x || !c->d || !c->f || !c->step_time || !c->pfd ||
		      !c->who;
		for (size_t i = 0; i < c->n; i++) {
			const struct site_config *sc = &cc->sites[i];

			c->links[i].cfg = sc;
			conn_init(&c->links[i].c, cc->creds[i],
				  sc->tls.server_name[0] ? sc->tls.server_name :
				  sc->address);
			c->links[i].steps = calloc(rows, sizeof(struct site_step));
			oom |= !c->links[i].steps;
		}
	}
	if (oom) {
		if (c) {
			b->priv = c;
			op_close(c);
		}
		return rths_error_set(err, -ENOMEM, NULL, 0, NULL,
				      "out of memory for %" PRIu64 " steps",
				      steps);
	}
	b->ops = &coord_ops.ops;
	b->priv = c;
	b->channels = (uint32_t)q;
	b->rate = cc->x->device.rate;
	b->step_ticks = cc->x->device.step_ticks;
	return 0;
}

const struct site_stats *coord_site_stats(const struct rths_hs_backend *b,
					  size_t site)
{
	const struct coord *c = b->priv;

	return &c->links[site].stats;
}

const struct site_step *coord_site_step(const struct rths_hs_backend *b,
					size_t site, uint64_t n)
{
	const struct coord *c = b->priv;

	if (n < 1 || n > c->completed || (c->j && n <= c->j->n_steps))
		return NULL;
	return &c->links[site].steps[n];
}

double coord_step_time(const struct rths_hs_backend *b, uint64_t n)
{
	const struct coord *c = b->priv;

	return n <= c->completed ? c->step_time[n] : 0;
}

enum coord_fault coord_fault(const struct rths_hs_backend *b)
{
	const struct coord *c = b->priv;

	return c->fault;
}

const char *coord_fault_name(enum coord_fault f)
{
	static const char *const names[] = {
		[COORD_FAULT_NONE] = "none",
		[COORD_FAULT_NETWORK] = "network",
		[COORD_FAULT_PROTOCOL] = "protocol",
		[COORD_FAULT_DEVICE] = "device",
		[COORD_FAULT_AUTH] = "authentication",
		[COORD_FAULT_REPLAY] = "replay",
	};

	return (unsigned)f < sizeof(names) / sizeof(names[0]) ? names[f] : "?";
}

uint64_t coord_steps_done(const struct rths_hs_backend *b)
{
	const struct coord *c = b->priv;

	return c->completed;
}

uint64_t coord_steps_journaled(const struct rths_hs_backend *b)
{
	const struct coord *c = b->priv;

	return c->j ? c->j->n_steps : 0;
}

double coord_take_rtt(struct rths_hs_backend *b, size_t site)
{
	struct coord *c = b->priv;
	struct link *L = &c->links[site];
	double m = L->rtt_n ? L->rtt_acc / (double)L->rtt_n : -1;

	L->rtt_acc = 0;
	L->rtt_n = 0;
	return m;
}
