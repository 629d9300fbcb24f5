// SPDX-License-Identifier: GPL-2.0
/*
 * The rths native protocol, site side (Documentation/rths-protocol.rst,
 * codec in tools/net/wire.h).  A session reads a 16-byte header, checks
 * it, then reads the payload it declared; one frame at a time, so a
 * declared size is checked before anything is allocated for it.
 * Replies go down the session layer whole (session_reply(): encoded
 * straight from the substructure's arrays, sealed and written).
 *
 * What a test needs to survive a lost connection lives in the
 * substructure (struct native_sub), not in the session: the test id,
 * the last executed step and its RESULT, and the specimen.  A STEP is
 * executed only when it is the next one, so a re-issued step never moves
 * the specimen twice.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "session.h"
#include "site.h"

enum { N_HEADER, N_PAYLOAD };

const char *native_state_name(const struct session *s)
{
	if (!s->hello)
		return s->state == N_HEADER ? "handshake (frame header)" :
			"handshake (HELLO)";
	return s->state == N_HEADER ? "steps (frame header)" :
		"steps (frame payload)";
}

/* ------------------------------------------------------ substructure */

int native_sub_init(struct substructure *sub)
{
	struct native_sub *ns = &sub->nat;

	memset(ns, 0, sizeof(*ns));
	ns->cached.disp = calloc(sub->n, sizeof(double));
	ns->cached.force = calloc(sub->n, sizeof(double));
	if (!ns->cached.disp || !ns->cached.force ||
	    sub_state_init(sub, &ns->state))
		return -1;
	return 0;
}

void native_sub_free(struct substructure *sub)
{
	struct native_sub *ns = &sub->nat;

	sub_state_free(sub, &ns->state);
	free(ns->cached.disp);
	free(ns->cached.force);
	ns->cached.disp = ns->cached.force = NULL;
}

/* A new test, or none: the virgin specimen, no step executed. */
static void forget_test(struct substructure *sub, uint64_t test_id)
{
	struct native_sub *ns = &sub->nat;

	ns->test_id = test_id;
	ns->last_seq = 0;
	sub_state_reset(sub, &ns->state);
}

/* The fault tests read this line: no step may be executed twice. */
void native_sub_report(const struct substructure *sub)
{
	const struct native_sub *ns = &sub->nat;

	site_log(LOG_INFO, "%s: steps executed %" PRIu64 ", cached %" PRIu64
		 ", replayed %" PRIu64 " (test %" PRIu64 ", last step %"
		 PRIu64 ")", sub->name, ns->executed, ns->cached_answers,
		 ns->replayed, ns->test_id, ns->last_seq);
}

/* ----------------------------------------------------------- session */

/*
 * Refuse: one log line naming the peer and why, an ERROR frame to the
 * peer, and the session closes once it is written.  Nothing changed.
 */
static int refuse(struct session *s, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int refuse(struct session *s, int code, const char *fmt, ...)
{
	struct rnp_msg m = { .h.type = RNP_ERROR, .error.code = code };
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(m.error.text, sizeof(m.error.text) - 1, fmt, ap);
	va_end(ap);
	session_log(s, LOG_ERR, "session ended: ERROR %s: %s",
		    rnp_error_name(code), m.error.text);
	if (session_reply(s, &m)) {
		s->done = 1;
		return -1;
	}
	s->closing = 1;
	return 0;
}

/* A reply; no memory for it refuses the session. */
static int reply(struct session *s, const struct rnp_msg *m)
{
	int r = session_reply(s, m);

	if (r == -ENOMEM)
		return refuse(s, RNP_ERR_INTERNAL, "out of memory");
	return r ? -1 : 0;
}

/* A TLS peer that is not on the allow list: told, logged, nothing else. */
void native_session_refuse_auth(struct session *s)
{
	refuse(s, RNP_ERR_AUTH,
	       "not authorized: \"%s\" is not in the allow list of %s",
	       tls_peer(s->c.tls), s->sub->name);
}

int native_session_start(struct session *s)
{
	return session_expect(s, N_HEADER, RNP_HDR_SIZE);
}

void native_session_end(struct session *s)
{
	if (s->sub->nat.owner == s)
		s->sub->nat.owner = NULL;
}

/*
 * Before HELLO the handshake timeout runs from the connection; after it,
 * a session that sends nothing for three heartbeat periods is ended (the
 * substructure keeps its test and state for the next one), and so is one
 * whose frame stays incomplete, or whose reply stays unread, for the
 * handshake timeout (-t): a trickle of bytes is no heartbeat.
 */
void native_session_deadline(struct session *s, int64_t now)
{
	const struct site *site = s->site;
	int64_t limit = 3 * (int64_t)site->heartbeat_ms;
	int64_t frame_end = INT64_MAX, out_end = INT64_MAX;

	if (!s->hello) {
		if (now >= s->c.deadline_ms)
			session_fail(s, "timeout: no complete HELLO within %d ms (%zu bytes of a %zu-byte %s)",
				     site->timeout_ms, s->c.have, s->c.need,
				     s->state == N_HEADER ? "header" :
				     "payload");
		return;
	}
	if (s->c.have)
		frame_end = s->frame_ms + site->timeout_ms;
	if (conn_out_pending(&s->c)) {
		if (!s->out_ms)
			s->out_ms = now;
		out_end = s->out_ms + site->timeout_ms;
	} else {
		s->out_ms = 0;
	}
	if (now >= frame_end) {
		session_fail(s, "timeout: %zu of %zu bytes of a %s after %d ms",
			     s->c.have, s->c.need, s->state == N_HEADER ?
			     "frame header" : "frame payload",
			     site->timeout_ms);
		return;
	}
	if (now >= out_end) {
		session_fail(s, "timeout: the peer did not read a reply for %d ms",
			     site->timeout_ms);
		return;
	}
	s->c.deadline_ms = s->last_rx_ms + limit;
	if (frame_end < s->c.deadline_ms)
		s->c.deadline_ms = frame_end;
	if (out_end < s->c.deadline_ms)
		s->c.deadline_ms = out_end;
	if (now >= s->last_rx_ms + limit)
		session_fail(s, "heartbeat: nothing received for %" PRId64
			     " ms (3 periods of %d ms); test %" PRIu64
			     " kept at step %" PRIu64, now - s->last_rx_ms,
			     site->heartbeat_ms, s->sub->nat.test_id,
			     s->sub->nat.last_seq);
}

/* The peer closed between frames: the test stays for its next session. */
void native_session_closed(struct session *s)
{
	if (s->hello)
		session_log(s, LOG_WARN, "session ended: closed by the peer without BYE; test %"
			    PRIu64 " kept at step %" PRIu64, s->sub->nat.test_id,
			    s->sub->nat.last_seq);
	else
		session_log(s, LOG_ERR, "session ended: closed by the peer before HELLO");
	s->done = 1;
}

static int on_hello(struct session *s, const unsigned char *p, size_t len)
{
	struct substructure *sub = s->sub;
	struct native_sub *ns = &sub->nat;
	const char *how;
	struct rnp_welcome w = {
		.version = RNP_VERSION,
		.kind = sub->dev ? RNP_KIND_DEVICE : RNP_KIND_NUMERICAL,
		.ndof = (uint32_t)sub->n,
		.heartbeat_ms = (uint32_t)s->site->heartbeat_ms,
	};
	struct rnp_hello h;
	char why[160];
	int r;

	if (s->hello)
		return refuse(s, RNP_ERR_PROTOCOL, "second HELLO in a session");
	r = rnp_parse_hello(p, len, &h, why, sizeof(why));
	if (r)
		return refuse(s, -r, "%s", why);
	if (h.version_min > RNP_VERSION || h.version_max < RNP_VERSION)
		return refuse(s, RNP_ERR_VERSION,
			      "peer speaks versions %u..%u, this site %u",
			      h.version_min, h.version_max, RNP_VERSION);
	if (strcmp(h.substructure, sub->name))
		return refuse(s, RNP_ERR_UNKNOWN,
			      "no substructure \"%s\" on this port (it serves \"%s\")",
			      h.substructure, sub->name);
	if (h.ndof && h.ndof != (uint32_t)sub->n)
		return refuse(s, RNP_ERR_DOF,
			      "peer expects %u DOF, the substructure has %d",
			      h.ndof, sub->n);
	if (ns->test_id && ns->test_id != h.test_id &&
	    !(h.flags & RNP_HELLO_RESET))
		return refuse(s, RNP_ERR_BUSY,
			      "the substructure runs test %" PRIu64
			      " (at step %" PRIu64 "), not %" PRIu64,
			      ns->test_id, ns->last_seq, h.test_id);
	s->u = calloc(sub->n, sizeof(double));
	s->v = calloc(sub->n, sizeof(double));
	s->a = calloc(sub->n, sizeof(double));
	if (!s->u || !s->v || !s->a)
		return refuse(s, RNP_ERR_INTERNAL, "out of memory");
	if (ns->owner && ns->owner != s) {
		session_log(ns->owner, LOG_WARN,
			    "session ended: taken over by session #%u (%s)%s",
			    s->id, s->peer, h.flags & RNP_HELLO_RESET ?
			    " with RESET" : " of the same test");
		ns->owner->done = 1;
	}
	ns->owner = s;
	if (h.flags & RNP_HELLO_RESET) {
		how = "reset to the initial state";
		forget_test(sub, h.test_id);
	} else if (ns->test_id != h.test_id) {
		how = "new";
		forget_test(sub, h.test_id);
	} else {
		how = "resumed";
	}
	s->hello = 1;
	/* The test the site goes on with; 0 when this HELLO starts one, as
	 * from a site that restarted: the coordinator replays. */
	if (!strcmp(how, "resumed")) {
		w.test_id = ns->test_id;
		w.last_seq = ns->last_seq;
	}
	sub_device_timing(sub, &w.rate, &w.step_ticks);
	snprintf(w.substructure, sizeof(w.substructure), "%s", sub->name);
	session_log(s, LOG_INFO, "HELLO: test %" PRIu64 " %s at step %"
		    PRIu64 " (coordinator at %" PRIu64 ")", h.test_id, how,
		    ns->last_seq, h.last_seq);
	return reply(s, &(struct rnp_msg){ .h.type = RNP_WELCOME,
					   .welcome = w });
}

static int send_result(struct session *s, uint32_t extra_flags)
{
	struct rnp_msg m = { .h.type = RNP_RESULT,
			     .result = s->sub->nat.cached };

	m.result.flags |= extra_flags;
	return reply(s, &m);
}

static int on_step(struct session *s, const unsigned char *p, size_t len,
		   uint64_t t0)
{
	struct substructure *sub = s->sub;
	struct native_sub *ns = &sub->nat;
	struct rnp_step st = { .u = s->u, .v = s->v, .a = s->a };
	struct rnp_result *res = &ns->cached;
	struct sub_step_info info;
	char why[200];
	int r;

	r = rnp_parse_step(p, len, &st, (uint32_t)sub->n, why, sizeof(why));
	if (r)
		return refuse(s, -r, "%s", why);
	r = sub_check_input(sub, st.ndof, st.u,
			    st.flags & RNP_STEP_VEL ? st.v : NULL,
			    st.flags & RNP_STEP_ACC ? st.a : NULL, &st.t, why,
			    sizeof(why));
	if (r)
		return refuse(s, -r, "STEP %" PRIu64 " refused: %s", st.seq,
			      why);
	if (st.seq == ns->last_seq && st.seq) {
		/* A re-issue: answer what the step gave, move nothing. */
		ns->cached_answers++;
		session_log(s, LOG_INFO, "STEP %" PRIu64 " re-issued: cached RESULT",
			    st.seq);
		return send_result(s, RNP_RES_CACHED);
	}
	if (st.seq != ns->last_seq + 1)
		return refuse(s, RNP_ERR_SEQUENCE,
			      "STEP %" PRIu64 " after step %" PRIu64
			      " (expected %" PRIu64 " or a re-issue of %" PRIu64 ")",
			      st.seq, ns->last_seq, ns->last_seq + 1,
			      ns->last_seq);
	r = sub_execute(sub, &ns->state, st.seq, st.u,
			st.flags & RNP_STEP_VEL ? st.v : NULL,
			st.flags & RNP_STEP_ACC ? st.a : NULL,
			res->disp, res->force, &info);
	if (r)
		return refuse(s, -r, "STEP %" PRIu64 " %s: %s", st.seq,
			      r == -RNP_ERR_DEVICE ? "could not be executed" :
			      "refused", info.why[0] ? info.why : "unknown");
	ns->last_seq = st.seq;
	if (st.flags & RNP_STEP_REPLAY)
		ns->replayed++;
	else
		ns->executed++;
	res->seq = st.seq;
	res->ndof = (uint32_t)sub->n;
	res->flags = info.flags |
		(st.flags & RNP_STEP_REPLAY ? RNP_RES_REPLAY : 0);
	res->late_ticks = info.late_ticks;
	res->fb_flags = info.fb_flags;
	res->compute_ns = site_now_ns() - t0;
	session_log(s, LOG_DEBUG, "STEP %" PRIu64 " at t = %.17g executed%s",
		    st.seq, st.t, st.flags & RNP_STEP_REPLAY ? " (replay)" : "");
	return send_result(s, 0);
}

static int on_ping(struct session *s, const unsigned char *p, size_t len)
{
	struct rnp_ping ping;
	char why[160];
	int r = rnp_parse_ping(p, len, &ping, why, sizeof(why));

	if (r)
		return refuse(s, -r, "%s", why);
	if (s->hdr.type == RNP_PONG)
		return 0;
	return reply(s, &(struct rnp_msg){ .h.type = RNP_PONG,
					   .ping = ping });
}

static int on_bye(struct session *s, const unsigned char *p, size_t len)
{
	struct native_sub *ns = &s->sub->nat;
	char why[160];
	int r = rnp_parse_bye(p, len, why, sizeof(why));

	if (r)
		return refuse(s, -r, "%s", why);
	session_log(s, LOG_INFO, "BYE: test %" PRIu64 " ended after step %"
		    PRIu64, ns->test_id, ns->last_seq);
	forget_test(s->sub, 0);
	s->closing = 1;
	return 0;
}

static int on_frame(struct session *s, const unsigned char *p, size_t len)
{
	uint64_t t0 = site_now_ns();
	struct rnp_errmsg em;

	if (!s->hello && s->hdr.type != RNP_HELLO)
		return refuse(s, RNP_ERR_PROTOCOL, "%s before HELLO",
			      rnp_type_name(s->hdr.type));
	switch (s->hdr.type) {
	case RNP_HELLO:
		return on_hello(s, p, len);
	case RNP_STEP:
		return on_step(s, p, len, t0);
	case RNP_PING:
	case RNP_PONG:
		return on_ping(s, p, len);
	case RNP_BYE:
		return on_bye(s, p, len);
	case RNP_ERROR:
		if (!rnp_parse_error(p, len, &em, NULL, 0)) {
			session_fail(s, "the peer sent ERROR %s: %s",
				     rnp_error_name(em.code), em.text);
			return -1;
		}
		break;
	}
	return refuse(s, RNP_ERR_PROTOCOL, "%s is not for a site",
		      rnp_type_name(s->hdr.type));
}

int native_session_input(struct session *s)
{
	char why[160];
	int r;

	if (s->state == N_HEADER) {
		r = rnp_parse_hdr(s->c.in, &s->hdr, why, sizeof(why));
		if (r)
			return refuse(s, -r, "%s", why);
		session_log(s, LOG_DEBUG, "%s, %u bytes",
			    rnp_type_name(s->hdr.type), s->hdr.length);
		return session_expect(s, N_PAYLOAD, s->hdr.length);
	}
	r = on_frame(s, s->c.in, s->hdr.length);
	if (r || s->closing || s->done)
		return r;
	return session_expect(s, N_HEADER, RNP_HDR_SIZE);
}
