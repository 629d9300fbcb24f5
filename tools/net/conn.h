/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The session layer of the rths tools, for a server (rths-site's
 * sessions) and a client (rths-coord's links) alike: a non-blocking TCP
 * socket, TLS over it when there are credentials (tls.h), an output
 * queue and an input buffer, both driven from a poll loop.  The tool
 * keeps its own protocol state; this layer moves whole messages of the
 * native protocol (wire.h), or bytes for the others.
 *
 * Native messages go down once and come back once:
 *   - conn_send(c, &msg) encodes the message (its doubles straight from
 *     the caller's arrays into the output queue), seals it (TLS) and
 *     writes what the socket takes; POLLOUT writes the rest
 *     (conn_flush()).
 *   - conn_next_msg(c, &msg, ...) reads, opens (TLS), frames and parses,
 *     and hands out one decoded message (a STEP's or a RESULT's doubles
 *     straight into the caller's arrays); call it after each POLLIN
 *     until it says 0 or 2.
 *   - conn_events() is what poll() should wait for, kept by every call
 *     here (code that appends to c->out itself calls conn_flush()).
 * Bytes (rths-site's protocols): conn_queue() appends, conn_flush()
 * writes what it can; conn_expect() sizes the next message, conn_read()
 * reads towards it.
 *
 * Errors: functions returning int give 0 or a negative errno; nothing
 * here prints.  conn_strerror() names an I/O error (TLS's reason for
 * EPROTO).
 */
#ifndef RTHS_NET_CONN_H
#define RTHS_NET_CONN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "wire.h"

/* conn_read_frame() reads this much past a frame's start, at least. */
#define CONN_READ_CHUNK 4096

struct tls_creds;
struct tls_conn;

struct conn {
	int fd;			/* -1: closed */
	bool connecting;	/* client: TCP connect in progress */
	bool handshaking;	/* TLS handshake in progress */
	struct tls_creds *creds;	/* NULL: plain TCP */
	const char *server_name;	/* client: checked against the
					 * certificate */
	struct tls_conn *tls;
	struct rnp_buf out;	/* queued, not yet written */
	/* Input: the next message is 'need' bytes; 'have' are in. */
	unsigned char *in;
	size_t in_cap, need, have;
	/* conn_next_msg(): a message was handed out ('need' bytes of
	 * 'in'), and the last plain read emptied the socket. */
	bool frame_out, drained;
	int read_err;		/* the read after a message failed: -errno */
	short events;		/* conn_events() */
	int64_t deadline_ms;	/* the tool's timer, 0: none */
};

void conn_init(struct conn *c, struct tls_creds *creds,
	       const char *server_name);
/* Client: starts a non-blocking connect: 0, or -errno. */
int conn_connect(struct conn *c, const struct sockaddr *sa, socklen_t len);
/* Client: after POLLOUT while connecting: 0 connected (then, with TLS,
 * the handshake starts), -errno failed (why says it). */
int conn_finish_connect(struct conn *c, char *why, size_t len);
/* Server: adopt an accepted socket; with credentials the handshake
 * starts.  0, or -errno (why says it; the socket is the caller's). */
int conn_accept(struct conn *c, int fd, char *why, size_t len);
/* The TLS handshake: 0 done, -EAGAIN not yet, -errno failed (why). */
int conn_handshake(struct conn *c, char *why, size_t len);

/* Appends len bytes to the output: 0, or -ENOMEM. */
int conn_queue(struct conn *c, const void *buf, size_t len);
/* Bytes queued and not yet written. */
static inline size_t conn_out_pending(const struct conn *c)
{
	return c->out.len;
}
/* Writes what is queued: 0 (maybe some left), -errno. */
int conn_flush(struct conn *c);
/* Encodes m (wire.h) into the output and writes what the socket takes:
 * 0 (maybe some left for POLLOUT), -EINVAL a message that breaks the
 * protocol's limits, -ENOMEM, other -errno from the write. */
int conn_send(struct conn *c, const struct rnp_msg *m);

/* The next message is 'bytes' long (the buffer grows): 0, or -ENOMEM. */
int conn_expect(struct conn *c, size_t bytes);
/* Reads towards 'need': the count read, 0 when it would block, -EPIPE
 * when the peer closed, other -errno. */
ssize_t conn_read(struct conn *c);
/* Bytes TLS has decrypted that poll() does not see. */
bool conn_buffered(const struct conn *c);
/*
 * The next message, decoded into m as rnp_parse_frame() does (m's
 * accept, max_dof and arr set by the caller): 1 one is in m, call again;
 * 2 one is in m and the socket is drained, wait for POLLIN; 0 none yet;
 * -EPIPE the peer closed; -RNP_ERR_* a bad frame (why says it, "bad
 * TYPE: ..." for a payload); other -errno (-EACCES: the TLS peer refused
 * us).  A message's arrays stay the caller's; the frame's bytes are
 * reused at the next call.
 */
int conn_next_msg(struct conn *c, struct rnp_msg *m, char *why, size_t len);
/* Drops the input (a new message or connection starts). */
void conn_next(struct conn *c);

/* The TLS layer's last error ("" for plain TCP). */
const char *conn_error(const struct conn *c);
/* An I/O error (a positive errno) in words. */
const char *conn_strerror(const struct conn *c, int err);
/* What poll() should wait for (0: closed). */
static inline short conn_events(const struct conn *c)
{
	return c->events;
}
/* Ends the connection (TLS close_notify, then the socket); the buffers
 * stay for the next one.  conn_free() frees them too. */
void conn_close(struct conn *c);
void conn_free(struct conn *c);

#endif
