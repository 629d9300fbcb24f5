// SPDX-License-Identifier: GPL-2.0
/*
 * A connection's transport (conn.h): a non-blocking TCP socket with
 * TCP_NODELAY (one small frame each way a step: Nagle would hold it),
 * TLS when there are credentials, an output queue and an input buffer
 * with a frame reader that checks the header before it reads the payload.
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conn.h"
#include "tls.h"

/* What poll() should wait for, kept in c->events by every call here
 * that moves the connection on: conn_events() crosses no file. */
static void update_events(struct conn *c)
{
	if (c->fd < 0)
		c->events = 0;
	else if (c->connecting)
		c->events = POLLOUT;
	else if (c->tls && (c->handshaking || c->out.len))
		c->events = POLLIN | (tls_want_write(c->tls) ? POLLOUT : 0);
	else
		c->events = POLLIN | (c->out.len ? POLLOUT : 0);
}

void conn_init(struct conn *c, struct tls_creds *creds,
	       const char *server_name)
{
	memset(c, 0, sizeof(*c));
	c->fd = -1;
	c->creds = creds;
	c->server_name = server_name;
}

int conn_connect(struct conn *c, const struct sockaddr *sa, socklen_t len)
{
	int one = 1;

	conn_close(c);
	c->fd = socket(sa->sa_family,
		       SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (c->fd < 0)
		return -errno;
	setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (connect(c->fd, sa, len) < 0 && errno != EINPROGRESS) {
		int e = errno;

		conn_close(c);
		return -e;
	}
	c->connecting = true;
	update_events(c);
	return 0;
}

/* With credentials, TLS over the connected socket: 0, or -errno. */
static int start_tls(struct conn *c, char *why, size_t len)
{
	int e;

	if (!c->creds)
		return 0;
	e = tls_conn_new(&c->tls, c->creds, c->fd, c->server_name, why, len);
	if (e < 0)
		return e;
	c->handshaking = true;
	return 0;
}

int conn_finish_connect(struct conn *c, char *why, size_t len)
{
	int e = 0;
	socklen_t l = sizeof(e);

	if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &e, &l) < 0)
		e = errno;
	if (e) {
		snprintf(why, len, "%s", strerror(e));
		return -e;
	}
	c->connecting = false;
	e = start_tls(c, why, len);
	update_events(c);
	return e;
}

int conn_accept(struct conn *c, int fd, char *why, size_t len)
{
	int one = 1, r;

	/* A step is small messages back and forth: never wait for Nagle. */
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	c->fd = fd;
	r = start_tls(c, why, len);
	update_events(c);
	return r;
}

int conn_handshake(struct conn *c, char *why, size_t len)
{
	int r = tls_handshake(c->tls);

	if (r == 0)
		c->handshaking = false;
	else if (r != -EAGAIN)
		snprintf(why, len, "%s", tls_error(c->tls));
	update_events(c);
	return r;
}

int conn_queue(struct conn *c, const void *buf, size_t len)
{
	if (c->out.len + len > c->out.cap) {
		unsigned char *p = realloc(c->out.p, c->out.len + len);

		if (!p)
			return -ENOMEM;
		c->out.p = p;
		c->out.cap = c->out.len + len;
	}
	memcpy(c->out.p + c->out.len, buf, len);
	c->out.len += len;
	update_events(c);
	return 0;
}

static int flush_out(struct conn *c)
{
	while (c->out.len) {
		ssize_t n = c->tls ? tls_send(c->tls, c->out.p, c->out.len) :
			    send(c->fd, c->out.p, c->out.len, MSG_NOSIGNAL);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -errno;
		}
		/* A step's frame goes whole: nothing to move. */
		if ((size_t)n == c->out.len)
			c->out.len = 0;
		else
			rnp_buf_consume(&c->out, (size_t)n);
	}
	return 0;
}

int conn_flush(struct conn *c)
{
	int r = flush_out(c);

	update_events(c);
	return r;
}

int conn_send(struct conn *c, const struct rnp_msg *m)
{
	int r = rnp_put_msg(&c->out, m);

	if (r == 0)
		r = flush_out(c);
	update_events(c);
	return r;
}

/* An input buffer of 'bytes' at least: 0, or -ENOMEM. */
static int in_room(struct conn *c, size_t bytes)
{
	unsigned char *p;

	if (bytes <= c->in_cap)
		return 0;
	p = realloc(c->in, bytes);
	if (!p)
		return -ENOMEM;
	c->in = p;
	c->in_cap = bytes;
	return 0;
}

int conn_expect(struct conn *c, size_t bytes)
{
	if (in_room(c, bytes))
		return -ENOMEM;
	c->need = bytes;
	return 0;
}

/* Up to 'want' bytes after what is in: the count, 0 when it would block,
 * -EPIPE at the end of the stream, other -errno. */
static ssize_t read_more(struct conn *c, size_t want)
{
	for (;;) {
		ssize_t n = c->tls ? tls_recv(c->tls, c->in + c->have, want) :
			    recv(c->fd, c->in + c->have, want, 0);

		if (n > 0) {
			c->have += (size_t)n;
			return n;
		}
		if (n == 0)
			return -EPIPE;
		if (errno == EINTR)
			continue;
		return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -errno;
	}
}

ssize_t conn_read(struct conn *c)
{
	ssize_t n = read_more(c, c->need - c->have);

	update_events(c);
	return n;
}

bool conn_buffered(const struct conn *c)
{
	return c->tls && !c->handshaking && tls_pending(c->tls);
}

/*
 * One read takes what has come (a header and its payload, or several
 * frames), and the messages are handed out of the buffer, each decoded
 * by one call of the codec, which checks a frame's header before room
 * is made for its payload.  A plain socket read short of the room is
 * drained: the message it completed is the last one (2) when no byte of
 * another is in, and the next call after it reads again.  TLS may hold
 * decrypted bytes poll() does not see, so its reads go on until they
 * would block: the read after a message is made before the message is
 * handed out (so that the caller need not come back for a read that
 * would block), and an error it meets waits for the next call.
 */
static int next_msg(struct conn *c, struct rnp_msg *m, char *why,
		    size_t len)
{
	size_t room;
	ssize_t n;
	int r;

	if (c->frame_out) {	/* the frame handed out last time goes */
		c->have -= c->need;
		memmove(c->in, c->in + c->need, c->have);
		c->need = 0;
		c->frame_out = false;
	}
	if (c->read_err) {	/* met by the read after the last message */
		r = c->read_err;
		c->read_err = 0;
		return r;
	}
	for (;;) {
		r = c->have >= RNP_HDR_SIZE ?
		    rnp_parse_frame(c->in, c->have, m, why, len) : 0;
		if (r < 0)
			return r;
		if (c->have >= RNP_HDR_SIZE)
			c->need = RNP_HDR_SIZE + m->h.length;
		if (r > 0) {
			c->frame_out = true;
			if (c->have > c->need)
				return 1;
			if (!c->drained &&
			    !in_room(c, c->have + CONN_READ_CHUNK)) {
				room = c->in_cap - c->have;
				n = read_more(c, room);
				if (n > 0)
					c->drained = !c->tls &&
						     (size_t)n < room;
				else if (n < 0)
					c->read_err = (int)n;
				if (n)
					return 1;
			}
			c->drained = false;
			return 2;
		}
		if (c->drained) {
			c->drained = false;
			return 0;
		}
		if (in_room(c, c->need > c->have + CONN_READ_CHUNK ?
				c->need : c->have + CONN_READ_CHUNK))
			return -ENOMEM;
		room = c->in_cap - c->have;
		n = read_more(c, room);
		if (n <= 0)
			return (int)n;
		c->drained = !c->tls && (size_t)n < room;
	}
}

int conn_next_msg(struct conn *c, struct rnp_msg *m, char *why, size_t len)
{
	int r = next_msg(c, m, why, len);

	update_events(c);
	return r;
}

void conn_next(struct conn *c)
{
	c->need = 0;
	c->have = 0;
	c->frame_out = false;
	c->drained = false;
	c->read_err = 0;
}

const char *conn_error(const struct conn *c)
{
	return c->tls ? tls_error(c->tls) : "";
}

const char *conn_strerror(const struct conn *c, int err)
{
	return c->tls && err == EPROTO ? tls_error(c->tls) : strerror(err);
}

void conn_close(struct conn *c)
{
	if (c->tls) {
		tls_close(c->tls);
		tls_conn_free(c->tls);
		c->tls = NULL;
	}
	c->handshaking = false;
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	c->connecting = false;
	c->out.len = 0;
	conn_next(c);
	update_events(c);
}

void conn_free(struct conn *c)
{
	conn_close(c);
	rnp_buf_free(&c->out);
	free(c->in);
	c->in = NULL;
	c->in_cap = 0;
}
