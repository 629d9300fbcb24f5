// SPDX-License-Identifier: GPL-2.0
/*
 * A session's transport: a non-blocking TCP socket with TCP_NODELAY (one
 * small frame each way a step: Nagle would hold it), an output queue and
 * a frame reader that checks the header before it reads the payload.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "coord.h"
#include "../net/tls.h"

void conn_init(struct conn *c, struct tls_creds *creds,
	       const char *server_name)
{
	memset(c, 0, sizeof(*c));
	c->fd = -1;
	c->creds = creds;
	c->server_name = server_name;
}

int conn_connect(struct conn *c, const struct site_config *s)
{
	int one = 1;

	conn_close(c);
	c->fd = socket(s->addr.ss_family,
		       SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (c->fd < 0)
		return -errno;
	setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (connect(c->fd, (const struct sockaddr *)&s->addr, s->addr_len) < 0 &&
	    errno != EINPROGRESS) {
		int e = errno;

		conn_close(c);
		return -e;
	}
	c->connecting = true;
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
	if (!c->creds)
		return 0;
	e = tls_conn_new(&c->tls, c->creds, c->fd, c->server_name, why, len);
	if (e < 0)
		return e;
	c->handshaking = true;
	return 0;
}

int conn_handshake(struct conn *c, char *why, size_t len)
{
	int r = tls_handshake(c->tls);

	if (r == 0)
		c->handshaking = false;
	else if (r != -EAGAIN)
		snprintf(why, len, "%s", tls_error(c->tls));
	return r;
}

int conn_flush(struct conn *c)
{
	while (c->out.len) {
		ssize_t n = c->tls ? tls_send(c->tls, c->out.p, c->out.len) :
			    send(c->fd, c->out.p, c->out.len, MSG_NOSIGNAL);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -errno;
		}
		rnp_buf_consume(&c->out, (size_t)n);
	}
	return 0;
}

/* Reads into @dst up to @want bytes: the count, 0 on EAGAIN, -errno. */
static ssize_t read_some(struct conn *c, unsigned char *dst, size_t want)
{
	for (;;) {
		ssize_t n = c->tls ? tls_recv(c->tls, dst, want) :
			    recv(c->fd, dst, want, 0);

		if (n > 0)
			return n;
		if (n == 0)
			return -EPIPE;
		if (errno == EINTR)
			continue;
		return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -errno;
	}
}

int conn_read_frame(struct conn *c, char *why, size_t len)
{
	ssize_t n;
	int r;

	while (c->hdr_have < RNP_HDR_SIZE) {
		n = read_some(c, c->hdr + c->hdr_have,
			      RNP_HDR_SIZE - c->hdr_have);
		if (n <= 0)
			return (int)n;
		c->hdr_have += (size_t)n;
		if (c->hdr_have < RNP_HDR_SIZE)
			continue;
		r = rnp_parse_hdr(c->hdr, &c->h, why, len);
		if (r < 0)
			return r;
		if (c->h.length > c->pl_cap) {
			unsigned char *p = realloc(c->pl, c->h.length);

			if (!p)
				return -ENOMEM;
			c->pl = p;
			c->pl_cap = c->h.length;
		}
		c->pl_have = 0;
	}
	while (c->pl_have < c->h.length) {
		n = read_some(c, c->pl + c->pl_have, c->h.length - c->pl_have);
		if (n <= 0)
			return (int)n;
		c->pl_have += (size_t)n;
	}
	return 1;
}

const char *conn_error(const struct conn *c)
{
	return c->tls ? tls_error(c->tls) : "";
}

void conn_next(struct conn *c)
{
	c->hdr_have = 0;
	c->pl_have = 0;
}

short conn_events(const struct conn *c)
{
	if (c->connecting)
		return POLLOUT;
	if (c->tls && (c->handshaking || c->out.len))
		return POLLIN | (tls_want_write(c->tls) ? POLLOUT : 0);
	return POLLIN | (c->out.len ? POLLOUT : 0);
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
}

void conn_free(struct conn *c)
{
	conn_close(c);
	rnp_buf_free(&c->out);
	free(c->pl);
	c->pl = NULL;
	c->pl_cap = 0;
}
