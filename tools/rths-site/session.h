/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rths-site's sessions (session.c) over the tools' connection layer
 * (tools/net/conn.h): accepting, the TLS handshake and its allow list,
 * reading one message at a time, queueing replies, timers, eviction.
 * The protocol parts (native.c, openfresco.c) call session_expect() and
 * session_send() (native.c: session_reply() with a whole message); the
 * main file's poll loop calls the rest.
 */
#ifndef RTHS_SITE_SESSION_H
#define RTHS_SITE_SESSION_H

#include <poll.h>
#include <stddef.h>
#include <stdint.h>

#include "site.h"

/* Read 'bytes' next (the message of 'state'): 0, or -1 (session ended). */
int session_expect(struct session *s, int state, size_t bytes);
/* Queue a reply: 0, or -1 (session ended). */
int session_send(struct session *s, const void *buf, size_t len);
/* A native reply down the session layer (conn_send(): encoded, sealed,
 * written; the rest on POLLOUT): 0; -ENOMEM nothing was queued (out of
 * memory, or a message past the protocol's limits), the session goes
 * on; -EIO the write failed and the session ended (logged). */
int session_reply(struct session *s, const struct rnp_msg *m);

/* One connection from sub's listen queue: 0, or -1 when it is empty. */
int session_accept(struct site *site, struct substructure *sub);
/* The open sessions' poll entries in pfd (their count); *next becomes
 * the earliest deadline, or now when TLS holds bytes poll() misses. */
int sessions_poll(struct pollfd *pfd, int64_t now, int64_t *next);
/* Serve the sessions after poll() (pfd as sessions_poll() filled it),
 * then free those that ended. */
void sessions_serve(const struct pollfd *pfd, int64_t now);
int sessions_open(void);
void sessions_close_all(void);

#endif
