// SPDX-License-Identifier: GPL-2.0
/*
 * rths-site's sessions (session.h): every connection is a session with
 * its own state over a connection of tools/net/conn.h, and a bad peer
 * ends only its own session.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/alloc.h"
#include "session.h"

static struct session *sessions[SITE_MAX_SESSIONS];
static int nsessions;
static unsigned next_id = 1;

int session_expect(struct session *s, int state, size_t bytes)
{
	if (conn_expect(&s->c, bytes)) {
		session_fail(s, "out of memory for a %zu-byte message", bytes);
		return -1;
	}
	s->state = state;
	return 0;
}

int session_send(struct session *s, const void *buf, size_t len)
{
	if (conn_queue(&s->c, buf, len)) {
		session_fail(s, "out of memory for a reply");
		return -1;
	}
	return 0;
}

int session_reply(struct session *s, const struct rnp_msg *m)
{
	int r = conn_send(&s->c, m);

	if (r == -ENOMEM || r == -EINVAL)
		return -ENOMEM;
	if (r < 0) {
		session_fail(s, "send: %s", conn_strerror(&s->c, -r));
		return -EIO;
	}
	return 0;
}

static void session_free(struct session *s)
{
	/* A device comes to rest before its session's socket goes. */
	device_session_close(s);
	if (s->sub->proto == PROTO_NATIVE)
		native_session_end(s);
	conn_free(&s->c);
	RTHS_FREE_ALL(s->u, s->v, s->a, s->f, s->fq, s->reply, s->kt, s->el,
		      s->meas, s);
}

/* Not proven yet: a TLS handshake under way, or no first message (no
 * HELLO on a native port). */
static int pending(const struct session *s)
{
	return s->c.handshaking ||
	       (s->sub->proto == PROTO_NATIVE ? !s->hello : !s->started);
}

/*
 * Room for a new connection: past SITE_MAX_PENDING unproven sessions, or
 * at the session limit, the oldest unproven one goes, so that idle or
 * unauthenticated connections cannot lock a coordinator out.
 */
static void evict_pending(void)
{
	int n = 0, oldest = -1;

	for (int i = 0; i < nsessions; i++) {
		if (!pending(sessions[i]))
			continue;
		n++;
		if (oldest < 0 || sessions[i]->id < sessions[oldest]->id)
			oldest = i;
	}
	if (oldest < 0 ||
	    (n < SITE_MAX_PENDING && nsessions < SITE_MAX_SESSIONS))
		return;
	session_log(sessions[oldest], LOG_WARN,
		    "session ended: evicted for a new connection (%d connections not yet authenticated or started)",
		    n);
	session_free(sessions[oldest]);
	sessions[oldest] = sessions[--nsessions];
}

int session_accept(struct site *site, struct substructure *sub)
{
	struct sockaddr_in sa;
	socklen_t len = sizeof(sa);
	struct session *s;
	char ip[INET_ADDRSTRLEN];
	char err[256];
	int fd;

	fd = accept4(sub->listen_fd, (struct sockaddr *)&sa, &len,
		     SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd < 0) {
		if (errno == ECONNABORTED || errno == EINTR)
			return 0;
		if (errno != EAGAIN)
			site_log(LOG_WARN, "%s: accept: %s", sub->name,
				 strerror(errno));
		return -1;
	}
	inet_ntop(AF_INET, &sa.sin_addr, ip, sizeof(ip));
	evict_pending();
	if (nsessions == SITE_MAX_SESSIONS) {
		site_log(LOG_WARN, "%s: %s:%d refused: %d sessions already open",
			 sub->name, ip, ntohs(sa.sin_port), nsessions);
		close(fd);
		return 0;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		close(fd);
		return 0;
	}
	conn_init(&s->c, sub->tls ? site->creds : NULL, NULL);
	s->id = next_id++;
	s->sub = sub;
	s->site = site;
	snprintf(s->peer, sizeof(s->peer), "%s:%d", ip, ntohs(sa.sin_port));
	s->last_rx_ms = site_now_ms();
	s->c.deadline_ms = s->last_rx_ms + site->timeout_ms;
	sessions[nsessions++] = s;
	session_log(s, LOG_INFO, "session opened%s",
		    sub->tls ? " (TLS handshake)" : "");
	if (conn_accept(&s->c, fd, err, sizeof(err))) {
		session_fail(s, "%s", err);
		return 0;
	}
	if (sub->proto == PROTO_NATIVE ? native_session_start(s) :
	    of_session_start(s))
		s->done = 1;
	return 0;
}

/* Is the peer one of those the substructure allows? */
static int authorized(const struct substructure *sub, const char *who)
{
	if (!sub->nallow)
		return 1;
	for (int i = 0; i < sub->nallow; i++)
		if (!strcmp(sub->allow[i], who))
			return 1;
	return 0;
}

/*
 * Drive the TLS handshake.  A failed or unauthorized peer is logged in
 * one line naming it and never reaches a protocol: nothing changes.
 */
static void handshake(struct session *s)
{
	const char *who, *offered;
	char why[512];
	size_t len;
	int r = conn_handshake(&s->c, why, sizeof(why));

	if (r == -EAGAIN)
		return;
	if (r) {
		offered = tls_offered_identity(s->c.tls);
		session_fail(s, "TLS handshake failed%s%s%s: %s",
			     offered[0] ? " (PSK identity \"" : "", offered,
			     offered[0] ? "\")" : "", why);
		return;
	}
	who = tls_peer(s->c.tls);
	len = strlen(s->peer);
	snprintf(s->peer + len, sizeof(s->peer) - len, " %s \"%.127s\"",
		 tls_peer_kind(s->c.tls), who);
	if (!authorized(s->sub, who)) {
		if (s->sub->proto == PROTO_NATIVE)
			native_session_refuse_auth(s);
		else
			session_fail(s, "not authorized: \"%s\" is not in the substructure's allow list",
				     who);
		return;
	}
	session_log(s, LOG_INFO, "TLS: authenticated (%s)",
		    tls_peer_dn(s->c.tls)[0] ? tls_peer_dn(s->c.tls) : "PSK");
}

static void flush_out(struct session *s)
{
	int r = s->done ? 0 : conn_flush(&s->c);

	if (r < 0) {
		session_fail(s, "send: %s", conn_strerror(&s->c, -r));
		return;
	}
	if (!conn_out_pending(&s->c) && s->closing)
		s->done = 1;
}

static void read_in(struct session *s)
{
	const int quickack = s->site->quickack;
	int one = 1;

	/* A bounded number of messages per wake-up keeps sessions fair. */
	for (int msgs = 0; msgs < 64 && !s->done && !s->closing &&
	     !conn_out_pending(&s->c);) {
		ssize_t r = conn_read(&s->c);

		if (r == 0)
			return;
		if (r < 0 && r != -EPIPE) {
			session_fail(s, "receive: %s",
				     conn_strerror(&s->c, (int)-r));
			return;
		}
		/* The kernel drops quick-ACK mode by itself: re-arm it, or a
		 * client with Nagle on waits ~40 ms for the ACK of [3]. */
		if (quickack)
			setsockopt(s->c.fd, IPPROTO_TCP, TCP_QUICKACK, &one,
				   sizeof(one));
		if (r == -EPIPE) {
			if (s->c.have && s->sub->proto == PROTO_NATIVE)
				session_fail(s, "short message: connection closed after %zu of %zu bytes in %s",
					     s->c.have, s->c.need,
					     session_state_name(s));
			else if (s->sub->proto == PROTO_NATIVE)
				native_session_closed(s);
			else if (s->c.have)
				session_fail(s, "short message: connection closed after %zu of %zu bytes in %s",
					     s->c.have, s->c.need,
					     session_state_name(s));
			else
				session_fail(s, "connection closed by the peer without DIE in %s",
					     session_state_name(s));
			return;
		}
		s->last_rx_ms = site_now_ms();
		if (s->c.have == (size_t)r)	/* the message's first bytes */
			s->frame_ms = s->last_rx_ms;
		if (s->c.have < s->c.need)
			continue;
		msgs++;
		s->started = 1;
		s->keep = 0;
		if (s->sub->proto == PROTO_NATIVE ? native_session_input(s) :
		    of_session_input(s))
			s->done = 1;
		if (!s->keep)
			s->c.have = 0;
		flush_out(s);
	}
}

static int tls_readable(const struct session *s)
{
	return conn_buffered(&s->c) && !s->done && !s->closing &&
		!conn_out_pending(&s->c);
}

static void update_deadline(struct session *s, int64_t now, int timeout)
{
	int busy = s->c.have || conn_out_pending(&s->c);

	if (s->c.handshaking) {
		if (now >= s->c.deadline_ms)
			session_fail(s, "timeout: TLS handshake not done after %d ms",
				     timeout);
		return;
	}
	if (s->sub->proto == PROTO_NATIVE) {
		native_session_deadline(s, now);
		return;
	}
	/* Until its first message a new session is on the clock too, so
	 * that a peer that connects and never sends is ended. */
	if (busy && !s->c.deadline_ms)
		s->c.deadline_ms = now + timeout;
	else if (!busy && s->started)
		s->c.deadline_ms = 0;
	if (s->c.deadline_ms && now >= s->c.deadline_ms) {
		if (conn_out_pending(&s->c))
			session_fail(s, "timeout: the peer did not read a reply for %d ms",
				     timeout);
		else
			session_fail(s, "timeout: %zu of %zu bytes in %s after %d ms",
				     s->c.have, s->c.need, session_state_name(s),
				     timeout);
	}
}

int sessions_poll(struct pollfd *pfd, int64_t now, int64_t *next)
{
	for (int i = 0; i < nsessions; i++) {
		struct session *s = sessions[i];
		short ev = conn_out_pending(&s->c) ? POLLOUT : POLLIN;

		/* One message at a time: no reading while a reply waits. */
		if (s->c.handshaking || (s->c.tls && tls_want_write(s->c.tls)))
			ev = tls_want_write(s->c.tls) ? POLLOUT : POLLIN;
		pfd[i] = (struct pollfd){ s->c.fd, ev, 0 };
		if (s->c.deadline_ms && (*next < 0 || s->c.deadline_ms < *next))
			*next = s->c.deadline_ms;
		/* Records GnuTLS has decrypted wake no poll(). */
		if (tls_readable(s))
			*next = now;
	}
	return nsessions;
}

void sessions_serve(const struct pollfd *pfd, int64_t now)
{
	/* pfd[i] belongs to sessions[i]. */
	for (int i = 0, n = nsessions; i < n; i++) {
		struct session *s = sessions[i];
		const int timeout = s->site->timeout_ms;
		short re = pfd[i].revents;

		if (s->c.handshaking) {
			if (re)
				handshake(s);
			if (s->c.handshaking || s->done) {
				update_deadline(s, now, timeout);
				continue;
			}
		}
		/* An error or hang-up with a reply pending shows in
		 * send(); without this it would wake poll forever. */
		if (re && conn_out_pending(&s->c))
			flush_out(s);
		if ((re & (POLLIN | POLLHUP | POLLERR)) || tls_readable(s))
			read_in(s);
		update_deadline(s, now, timeout);
	}
	for (int i = 0; i < nsessions;) {
		struct session *s = sessions[i];

		if (s->done) {
			session_free(s);
			sessions[i] = sessions[--nsessions];
		} else {
			i++;
		}
	}
}

int sessions_open(void)
{
	return nsessions;
}

void sessions_close_all(void)
{
	while (nsessions)
		session_free(sessions[--nsessions]);
}
