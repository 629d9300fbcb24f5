// SPDX-License-Identifier: GPL-2.0
/*
 * The live view's HTTP server (live.h), on libmicrohttpd: a thread per
 * connection, so a stalled browser blocks only its own; bounded
 * connections, per-address connections, header memory and idle time, so
 * a hostile client is refused without reaching the run.  GET and HEAD
 * only, on seven fixed paths.  HTTPS and a token are required off
 * loopback; the certificate and key are checked by the tools' GnuTLS
 * wrapper (tools/net/tls.h) first, for its clear errors, and then given
 * to libmicrohttpd, which does TLS on its own sockets.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "../net/tls.h"
#include "live.h"

#define MAX_CONNECTIONS 32
#define MAX_PER_ADDRESS 16
#define IDLE_TIMEOUT_S 10	/* slowloris, and a stalled browser */
#define HEADER_MEMORY (32 * 1024)
#define KEEPALIVE_MS 1000	/* a stream is never idle that long */

/* The page (page/, compiled in by mk/live.mk). */
extern const char live_page_html[], live_page_js[], live_page_css[];

#ifndef RTHS_DYGRAPHS_DIR
#define RTHS_DYGRAPHS_DIR "/usr/share/javascript/dygraphs"
#endif

struct live_server {
	struct MHD_Daemon *d;
	struct live_view *v;
	struct live_place *place;
	char *token;
	char *js, *css;		/* dygraphs' */
	size_t js_len, css_len;
	char *cert, *key;	/* PEM text, for HTTPS */
};

/* Reads a whole file (for the server's lifetime). */
static int slurp(const char *path, char **out, size_t *len, char *err,
		 size_t err_len)
{
	FILE *f = fopen(path, "rb");
	long n;

	if (!f) {
		snprintf(err, err_len, "%s: %s", path, strerror(errno));
		return -errno;
	}
	if (fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET)) {
		fclose(f);
		snprintf(err, err_len, "%s: cannot read it", path);
		return -EIO;
	}
	*out = malloc((size_t)n + 1);
	if (!*out || fread(*out, 1, (size_t)n, f) != (size_t)n) {
		fclose(f);
		snprintf(err, err_len, "%s: cannot read it", path);
		return -EIO;
	}
	(*out)[n] = '\0';
	*len = (size_t)n;
	fclose(f);
	return 0;
}

/* A stream of events: the hello, then every event as it comes. */
struct stream {
	struct live_view *v;
	struct live_place *place;
	uint64_t seq;
	char *buf;
	size_t len, off;
};

static ssize_t stream_read(void *cls, uint64_t pos, char *out, size_t max)
{
	struct stream *st = cls;
	size_t n;

	(void)pos;
	live_place_self(st->place);
	if (st->off == st->len) {
		bool end;
		char *text = live_view_next(st->v, &st->seq, KEEPALIVE_MS,
					    &end);

		free(st->buf);
		st->buf = NULL;
		st->len = st->off = 0;
		if (!text && end)
			return MHD_CONTENT_READER_END_OF_STREAM;
		/* an SSE comment keeps the connection from idling out */
		if (!text)
			text = strdup(": keep-alive\n\n");
		if (!text)
			return MHD_CONTENT_READER_END_WITH_ERROR;
		st->buf = text;
		st->len = strlen(text);
	}
	n = st->len - st->off < max ? st->len - st->off : max;
	memcpy(out, st->buf + st->off, n);
	st->off += n;
	return (ssize_t)n;
}

static void stream_free(void *cls)
{
	struct stream *st = cls;

	free(st->buf);
	free(st);
}

static void common_headers(struct MHD_Response *r, const char *type)
{
	MHD_add_response_header(r, "Content-Type", type);
	MHD_add_response_header(r, "Cache-Control", "no-store");
	MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(r, "Referrer-Policy", "no-referrer");
	MHD_add_response_header(r, "Content-Security-Policy",
				"default-src 'self'; frame-ancestors 'none'");
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned int status,
			     const char *type, const char *body, size_t len,
			     enum MHD_ResponseMemoryMode mode)
{
	struct MHD_Response *r =
		MHD_create_response_from_buffer(len, (void *)body, mode);
	enum MHD_Result ret;

	if (!r)
		return MHD_NO;
	common_headers(r, type);
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, "Allow", "GET, HEAD");
	if (status == MHD_HTTP_UNAUTHORIZED)
		MHD_add_response_header(r, "WWW-Authenticate",
					"Bearer realm=\"rths live view\"");
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result text(struct MHD_Connection *c, unsigned int status,
			    const char *msg)
{
	return reply(c, status, "text/plain; charset=utf-8", msg, strlen(msg),
		     MHD_RESPMEM_PERSISTENT);
}

/* Equal in time whatever differs. */
static bool same_secret(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	unsigned char d = la != lb;

	for (size_t i = 0; i < la; i++)
		d |= (unsigned char)a[i] ^ (unsigned char)b[i % (lb ? lb : 1)];
	return d == 0;
}

static bool authorized(const struct live_server *s, struct MHD_Connection *c)
{
	const char *q, *h;

	if (!s->token)
		return true;
	q = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "token");
	if (q && same_secret(q, s->token))
		return true;
	h = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization");
	return h && !strncmp(h, "Bearer ", 7) && same_secret(h + 7, s->token);
}

static enum MHD_Result events(struct live_server *s, struct MHD_Connection *c)
{
	struct stream *st = calloc(1, sizeof(*st));
	const char *last = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
							"Last-Event-ID");
	struct MHD_Response *r;
	enum MHD_Result ret;

	if (!st)
		return MHD_NO;
	st->v = s->v;
	st->place = s->place;
	/* a browser that reconnects goes on after the last event it had */
	if (last)
		st->seq = strtoull(last, NULL, 10);
	st->buf = strdup(live_view_hello(s->v));
	st->len = st->buf ? strlen(st->buf) : 0;
	r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 4096,
					      stream_read, st, stream_free);
	if (!r) {
		stream_free(st);
		return MHD_NO;
	}
	common_headers(r, "text/event-stream");
	ret = MHD_queue_response(c, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c,
			      const char *url, const char *method,
			      const char *version, const char *upload,
			      size_t *upload_len, void **con_cls)
{
	struct live_server *s = cls;

	(void)version;
	(void)upload;
	(void)con_cls;
	/* a connection's thread, created by the listening one */
	live_place_self(s->place);
	if (strcmp(method, "GET") && strcmp(method, "HEAD"))
		return text(c, MHD_HTTP_METHOD_NOT_ALLOWED,
			    "the live view is read only\n");
	if (*upload_len)
		return text(c, MHD_HTTP_BAD_REQUEST, "no body, please\n");
	if (!authorized(s, c))
		return text(c, MHD_HTTP_UNAUTHORIZED,
			    "a token is needed (?token=... or Authorization: Bearer)\n");
	if (!strcmp(url, "/") || !strcmp(url, "/index.html"))
		return reply(c, MHD_HTTP_OK, "text/html; charset=utf-8",
			     live_page_html, strlen(live_page_html),
			     MHD_RESPMEM_PERSISTENT);
	if (!strcmp(url, "/live.js"))
		return reply(c, MHD_HTTP_OK, "text/javascript; charset=utf-8",
			     live_page_js, strlen(live_page_js),
			     MHD_RESPMEM_PERSISTENT);
	if (!strcmp(url, "/live.css"))
		return reply(c, MHD_HTTP_OK, "text/css; charset=utf-8",
			     live_page_css, strlen(live_page_css),
			     MHD_RESPMEM_PERSISTENT);
	if (!strcmp(url, "/dygraph.min.js"))
		return reply(c, MHD_HTTP_OK, "text/javascript; charset=utf-8",
			     s->js, s->js_len, MHD_RESPMEM_PERSISTENT);
	if (!strcmp(url, "/dygraph.min.css"))
		return reply(c, MHD_HTTP_OK, "text/css; charset=utf-8",
			     s->css, s->css_len, MHD_RESPMEM_PERSISTENT);
	if (!strcmp(url, "/events"))
		return events(s, c);
	if (!strcmp(url, "/summary.json")) {
		char *sum = live_view_summary(s->v);

		return sum ? reply(c, MHD_HTTP_OK, "application/json", sum,
				   strlen(sum), MHD_RESPMEM_MUST_FREE) : MHD_NO;
	}
	return text(c, MHD_HTTP_NOT_FOUND, "no such page\n");
}

/* Every connection: the listening thread places itself first, so that
 * the connection's thread it creates next starts where it should. */
static enum MHD_Result accept_one(void *cls, const struct sockaddr *addr,
				  socklen_t addrlen)
{
	struct live_server *s = cls;

	(void)addr;
	(void)addrlen;
	live_place_self(s->place);
	return MHD_YES;
}

/* "ADDR:PORT" or "[ADDR6]:PORT" into @ss; *@loopback set. */
static int parse_listen(const char *listen, struct sockaddr_storage *ss,
			socklen_t *len, bool *loopback, char *err,
			size_t err_len)
{
	char host[256];
	const char *port, *colon = strrchr(listen, ':');
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_NUMERICSERV | AI_PASSIVE };
	struct addrinfo *ai;
	size_t n;
	int r;

	if (!colon || !colon[1] || colon == listen) {
		snprintf(err, err_len,
			 "%s: expected ADDR:PORT (e.g. 127.0.0.1:8080; port 0: any)",
			 listen);
		return -EINVAL;
	}
	port = colon + 1;
	n = (size_t)(colon - listen);
	if (listen[0] == '[' && n >= 2 && listen[n - 1] == ']') {
		listen++;
		n -= 2;
	}
	if (n >= sizeof(host)) {
		snprintf(err, err_len, "%s: the address is too long", listen);
		return -EINVAL;
	}
	memcpy(host, listen, n);
	host[n] = '\0';
	r = getaddrinfo(host, port, &hints, &ai);
	if (r) {
		snprintf(err, err_len, "%s: %s", host, gai_strerror(r));
		return -EINVAL;
	}
	memcpy(ss, ai->ai_addr, ai->ai_addrlen);
	*len = ai->ai_addrlen;
	freeaddrinfo(ai);
	if (ss->ss_family == AF_INET)
		*loopback = (ntohl(((struct sockaddr_in *)ss)->sin_addr.s_addr) >>
			     24) == 127;
	else
		*loopback = IN6_IS_ADDR_LOOPBACK(
			&((struct sockaddr_in6 *)ss)->sin6_addr);
	return 0;
}

/* The certificate and key checked by the tools' TLS wrapper, then read. */
static int https_files(struct live_server *s, const struct live_config *c,
		       char *err, size_t err_len)
{
	struct tls_creds *tc;
	size_t len;
	int r = tls_creds_new(&tc, TLS_SERVER, err, err_len);

	if (r < 0)
		return r;
	r = tls_creds_x509(tc, NULL, c->cert_file, c->key_file, err, err_len);
	tls_creds_free(tc);
	if (r == 0)
		r = slurp(c->cert_file, &s->cert, &len, err, err_len);
	if (r == 0)
		r = slurp(c->key_file, &s->key, &len, err, err_len);
	return r;
}

static void server_free(struct live_server *s)
{
	free(s->token);
	free(s->js);
	free(s->css);
	free(s->cert);
	if (s->key) {
		explicit_bzero(s->key, strlen(s->key));
		free(s->key);
	}
	free(s);
}

int live_server_start(struct live_server **out, const struct live_config *c,
		      struct live_view *v, struct live_place *place,
		      char *url, size_t url_len,
		      char *err, size_t err_len)
{
	const char *dir = c->js_dir ? c->js_dir : RTHS_DYGRAPHS_DIR;
	struct live_server *s = calloc(1, sizeof(*s));
	bool https = c->cert_file || c->key_file, loopback = false;
	struct sockaddr_storage ss;
	const union MHD_DaemonInfo *di;
	char path[4096], host[INET6_ADDRSTRLEN];
	unsigned int flags;
	socklen_t sl;
	int r;

	*out = NULL;
	if (!s)
		return -ENOMEM;
	s->v = v;
	s->place = place;
	r = parse_listen(c->listen, &ss, &sl, &loopback, err, err_len);
	if (r == 0 && !loopback && (!https || !c->token)) {
		snprintf(err, err_len,
			 "%s is not a loopback address: a live view there needs HTTPS (--live-cert, --live-key) and a token (--live-token)",
			 c->listen);
		r = -EPERM;
	}
	if (r == 0 && https && (!c->cert_file || !c->key_file)) {
		snprintf(err, err_len,
			 "HTTPS needs both a certificate and its key");
		r = -EINVAL;
	}
	if (r == 0 && https)
		r = https_files(s, c, err, err_len);
	if (r == 0 && c->token && !(s->token = strdup(c->token)))
		r = -ENOMEM;
	snprintf(path, sizeof(path), "%s/dygraph.min.js", dir);
	if (r == 0)
		r = slurp(path, &s->js, &s->js_len, err, err_len);
	snprintf(path, sizeof(path), "%s/dygraph.min.css", dir);
	if (r == 0)
		r = slurp(path, &s->css, &s->css_len, err, err_len);
	if (r == -ENOENT && !c->js_dir)
		snprintf(err, err_len,
			 "%s: no dygraphs there, which draws the page's charts: install Debian's libjs-dygraphs",
			 dir);
	if (r < 0) {
		server_free(s);
		return r;
	}
	flags = MHD_USE_INTERNAL_POLLING_THREAD |
		MHD_USE_THREAD_PER_CONNECTION | MHD_USE_POLL |
		(ss.ss_family == AF_INET6 ? MHD_USE_IPv6 : 0) |
		(https ? MHD_USE_TLS : 0);
	s->d = MHD_start_daemon(
		flags, 0, accept_one, s, handle, s,
		MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
		MHD_OPTION_CONNECTION_LIMIT, (unsigned int)MAX_CONNECTIONS,
		MHD_OPTION_PER_IP_CONNECTION_LIMIT,
		(unsigned int)MAX_PER_ADDRESS,
		MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)IDLE_TIMEOUT_S,
		MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)HEADER_MEMORY,
		https ? MHD_OPTION_HTTPS_MEM_KEY : MHD_OPTION_END, s->key,
		MHD_OPTION_HTTPS_MEM_CERT, s->cert, MHD_OPTION_END);
	if (!s->d) {
		snprintf(err, err_len, "%s: cannot listen there (in use?)",
			 c->listen);
		server_free(s);
		return -EADDRINUSE;
	}
	di = MHD_get_daemon_info(s->d, MHD_DAEMON_INFO_BIND_PORT);
	if (ss.ss_family == AF_INET)
		inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr,
			  host, sizeof(host));
	else
		inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr,
			  host, sizeof(host));
	snprintf(url, url_len, "%s://%s%s%s:%u/%s%s",
		 https ? "https" : "http", ss.ss_family == AF_INET6 ? "[" : "",
		 host, ss.ss_family == AF_INET6 ? "]" : "",
		 di ? (unsigned int)di->port : 0, c->token ? "?token=" : "",
		 c->token ? c->token : "");
	*out = s;
	return 0;
}

void live_server_stop(struct live_server *s)
{
	if (!s)
		return;
	MHD_stop_daemon(s->d);
	server_free(s);
}
