// SPDX-License-Identifier: GPL-2.0
/*
 * rths-site: serves numerical and device substructures over OpenFresco's
 * protocols and the rths native protocol (Documentation/rths-site.rst,
 * man rths-site).  One poll loop: every substructure listens on its own
 * port, every connection is a session with its own state, and a bad
 * peer ends only its own session.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "rths-site/site.h"
#include "common/cli.h"

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

static void usage(FILE *f)
{
	fputs("usage: rths-site [OPTION]... SITE.json\n"
	      "Serve the substructures of SITE.json (numerical, or devices: the\n"
	      "sim card, comedi, the offline model) over OpenFresco's\n"
	      "protocols (site: ShadowExpSite, controller: ECGenericTCP,\n"
	      "element: OpenSees GenericClient) or the rths native protocol\n"
	      "(native: rths-coord), one port per substructure.\n"
	      "\n"
	      "  -a, --address ADDR   listen on ADDR instead of 127.0.0.1 (all\n"
	      "                       substructures; a warning is logged)\n"
	      "  -t, --timeout MS     end a session whose message or reply is\n"
	      "                       incomplete for MS ms (default 10000);\n"
	      "                       native: the time to complete HELLO\n"
	      "  -H, --heartbeat MS   native: the heartbeat period WELCOME\n"
	      "                       announces; a session silent for 3\n"
	      "                       periods is ended (default 1000)\n"
	      "      --psk FILE       TLS pre-shared keys (identity:hexkey lines,\n"
	      "                       psktool's format) for native clients\n"
	      "      --ca FILE        TLS: the CA (PEM) client certificates must\n"
	      "                       chain to\n"
	      "      --cert FILE      TLS: the site's certificate (PEM)\n"
	      "      --key FILE       TLS: the site's private key (PEM)\n"
	      "      --no-quickack    do not re-arm TCP_QUICKACK after reads\n"
	      "                       (for measuring the delayed-ACK cost only)\n"
	      "      --no-realtime    leave the site's thread as it is: no memory\n"
	      "                       lock, no SCHED_FIFO for device substructures\n"
	      "                       (their \"realtime\" section)\n"
	      "  -q, --quiet          log errors and warnings only\n"
	      "  -v, --verbose        log every message\n"
	      "  -h, --help           this text\n"
	      "  -V, --version        print the version and exit\n", f);
}

/* ------------------------------------------------------------ sockets */

static int is_loopback(const struct in_addr *a)
{
	return (ntohl(a->s_addr) >> 24) == 127;
}

static int listen_on(struct substructure *sub)
{
	const char *addr = sub->address ? sub->address : "127.0.0.1";
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t len = sizeof(sa);
	int one = 1, fd;

	if (inet_pton(AF_INET, addr, &sa.sin_addr) != 1) {
		site_log(LOG_ERR, "%s: address %s is not an IPv4 address",
			 sub->name, addr);
		return -1;
	}
	if (!is_loopback(&sa.sin_addr) && sub->proto == PROTO_NATIVE &&
	    !sub->tls) {
		site_log(LOG_ERR, "%s: address %s is not loopback: the native protocol runs over plain TCP on loopback only (give --psk or --ca/--cert/--key for TLS)",
			 sub->name, addr);
		return -1;
	}
	if (!is_loopback(&sa.sin_addr) && !sub->tls)
		site_log(LOG_WARN, "%s: address %s is not loopback: plain TCP is unauthenticated, any host that reaches the port can command this substructure",
			 sub->name, addr);
	sa.sin_port = htons(sub->port);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    listen(fd, SOMAXCONN) ||
	    getsockname(fd, (struct sockaddr *)&sa, &len)) {
		site_log(LOG_ERR, "%s: cannot listen on %s:%d: %s", sub->name,
			 addr, sub->port, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	sub->listen_fd = fd;
	sub->bound_port = ntohs(sa.sin_port);
	if (sub->proto == PROTO_NATIVE)
		site_log(LOG_INFO, "%s: listening on %s:%d (native, %s, %d DOF)",
			 sub->name, addr, sub->bound_port,
			 sub->tls ? "TLS" : "plain TCP", sub->n);
	else
		site_log(LOG_INFO, "%s: listening on %s:%d (OpenFresco %s%s, %d DOF, tag %d)",
			 sub->name, addr, sub->bound_port,
			 site_proto_name(sub->proto),
			 sub->tls ? " over TLS (-ssl)" : "", sub->n, sub->tag);
	return 0;
}

/* ----------------------------------------------------------- sessions */

static struct session *sessions[SITE_MAX_SESSIONS];
static int nsessions;
static unsigned next_id = 1;

int session_expect(struct session *s, int state, size_t bytes)
{
	if (bytes > s->in_cap) {
		unsigned char *p = realloc(s->in, bytes);

		if (!p) {
			session_fail(s, "out of memory for a %zu-byte message",
				     bytes);
			return -1;
		}
		s->in = p;
		s->in_cap = bytes;
	}
	s->state = state;
	s->need = bytes;
	return 0;
}

int session_send(struct session *s, const void *buf, size_t len)
{
	size_t pending = s->out_len - s->out_off;

	if (s->out_off) {
		memmove(s->out, s->out + s->out_off, pending);
		s->out_off = 0;
		s->out_len = pending;
	}
	if (pending + len > s->out_cap) {
		unsigned char *p = realloc(s->out, pending + len);

		if (!p) {
			session_fail(s, "out of memory for a reply");
			return -1;
		}
		s->out = p;
		s->out_cap = pending + len;
	}
	memcpy(s->out + s->out_len, buf, len);
	s->out_len += len;
	return 0;
}

static void session_free(struct session *s)
{
	/* A device comes to rest before its session's socket goes. */
	device_session_close(s);
	if (s->sub->proto == PROTO_NATIVE)
		native_session_end(s);
	if (s->tls) {
		tls_close(s->tls);
		tls_conn_free(s->tls);
	}
	close(s->fd);
	free(s->in);
	free(s->out);
	free(s->u);
	free(s->v);
	free(s->a);
	free(s->f);
	free(s->reply);
	free(s->kt);
	free(s->el);
	free(s->meas);
	free(s);
}

/* Not proven yet: a TLS handshake under way, or no first message (no
 * HELLO on a native port). */
static int pending(const struct session *s)
{
	return s->handshake ||
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

/* One connection from the listen queue: 0, or -1 when it is empty. */
static int accept_on(struct site *site, struct substructure *sub)
{
	struct sockaddr_in sa;
	socklen_t len = sizeof(sa);
	struct session *s;
	char ip[INET_ADDRSTRLEN];
	int one = 1, fd;

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
	/* A step is small messages back and forth: never wait for Nagle. */
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	s = calloc(1, sizeof(*s));
	if (!s) {
		close(fd);
		return 0;
	}
	s->fd = fd;
	s->id = next_id++;
	s->sub = sub;
	s->site = site;
	snprintf(s->peer, sizeof(s->peer), "%s:%d", ip, ntohs(sa.sin_port));
	s->last_rx_ms = site_now_ms();
	s->deadline_ms = s->last_rx_ms + site->timeout_ms;
	sessions[nsessions++] = s;
	session_log(s, LOG_INFO, "session opened%s",
		    sub->tls ? " (TLS handshake)" : "");
	if (sub->tls) {
		char err[256];

		if (tls_conn_new(&s->tls, site->creds, fd, NULL, err,
				 sizeof(err))) {
			session_fail(s, "%s", err);
			return 0;
		}
		s->handshake = 1;
	}
	if (sub->proto == PROTO_NATIVE ? native_session_start(s) :
	    of_session_start(s))
		s->done = 1;
	return 0;
}

/* send() and recv(), through TLS when the session has it. */
static ssize_t session_write(struct session *s, const void *p, size_t len)
{
	if (s->tls)
		return tls_send(s->tls, p, len);
	return send(s->fd, p, len, MSG_NOSIGNAL);
}

static ssize_t session_read(struct session *s, void *p, size_t len)
{
	if (s->tls)
		return tls_recv(s->tls, p, len);
	return recv(s->fd, p, len, 0);
}

static const char *io_error(const struct session *s)
{
	return s->tls && errno == EPROTO ? tls_error(s->tls) : strerror(errno);
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
	size_t len;
	int r = tls_handshake(s->tls);

	if (r == -EAGAIN)
		return;
	if (r) {
		offered = tls_offered_identity(s->tls);
		session_fail(s, "TLS handshake failed%s%s%s: %s",
			     offered[0] ? " (PSK identity \"" : "", offered,
			     offered[0] ? "\")" : "", tls_error(s->tls));
		return;
	}
	s->handshake = 0;
	who = tls_peer(s->tls);
	len = strlen(s->peer);
	snprintf(s->peer + len, sizeof(s->peer) - len, " %s \"%.127s\"",
		 tls_peer_kind(s->tls), who);
	if (!authorized(s->sub, who)) {
		if (s->sub->proto == PROTO_NATIVE)
			native_session_refuse_auth(s);
		else
			session_fail(s, "not authorized: \"%s\" is not in the substructure's allow list",
				     who);
		return;
	}
	session_log(s, LOG_INFO, "TLS: authenticated (%s)",
		    tls_peer_dn(s->tls)[0] ? tls_peer_dn(s->tls) : "PSK");
}

static void flush_out(struct session *s)
{
	while (!s->done && s->out_off < s->out_len) {
		ssize_t w = session_write(s, s->out + s->out_off,
					  s->out_len - s->out_off);

		if (w < 0) {
			if (errno == EAGAIN || errno == EINTR)
				return;
			session_fail(s, "send: %s", io_error(s));
			return;
		}
		s->out_off += (size_t)w;
	}
	if (s->out_off == s->out_len) {
		s->out_off = s->out_len = 0;
		if (s->closing)
			s->done = 1;
	}
}

static void read_in(struct session *s)
{
	const int quickack = s->site->quickack;
	int one = 1;

	/* A bounded number of messages per wake-up keeps sessions fair. */
	for (int msgs = 0; msgs < 64 && !s->done && !s->closing &&
	     s->out_len == s->out_off;) {
		ssize_t r = session_read(s, s->in + s->have,
					 s->need - s->have);

		if (r < 0) {
			if (errno == EAGAIN || errno == EINTR)
				return;
			session_fail(s, "receive: %s", io_error(s));
			return;
		}
		/* The kernel drops quick-ACK mode by itself: re-arm it, or a
		 * client with Nagle on waits ~40 ms for the ACK of [3]. */
		if (quickack)
			setsockopt(s->fd, IPPROTO_TCP, TCP_QUICKACK, &one,
				   sizeof(one));
		if (r == 0) {
			if (s->have && s->sub->proto == PROTO_NATIVE)
				session_fail(s, "short message: connection closed after %zu of %zu bytes in %s",
					     s->have, s->need,
					     session_state_name(s));
			else if (s->sub->proto == PROTO_NATIVE)
				native_session_closed(s);
			else if (s->have)
				session_fail(s, "short message: connection closed after %zu of %zu bytes in %s",
					     s->have, s->need,
					     session_state_name(s));
			else
				session_fail(s, "connection closed by the peer without DIE in %s",
					     session_state_name(s));
			return;
		}
		s->last_rx_ms = site_now_ms();
		if (!s->have)
			s->frame_ms = s->last_rx_ms;
		s->have += (size_t)r;
		if (s->have < s->need)
			continue;
		msgs++;
		s->started = 1;
		s->keep = 0;
		if (s->sub->proto == PROTO_NATIVE ? native_session_input(s) :
		    of_session_input(s))
			s->done = 1;
		if (!s->keep)
			s->have = 0;
		flush_out(s);
	}
}

static int tls_readable(const struct session *s)
{
	return s->tls && !s->handshake && !s->done && !s->closing &&
		s->out_len == s->out_off && tls_pending(s->tls);
}

static void update_deadline(struct session *s, int64_t now, int timeout)
{
	int busy = s->have || s->out_len > s->out_off;

	if (s->handshake) {
		if (now >= s->deadline_ms)
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
	if (busy && !s->deadline_ms)
		s->deadline_ms = now + timeout;
	else if (!busy && s->started)
		s->deadline_ms = 0;
	if (s->deadline_ms && now >= s->deadline_ms) {
		if (s->out_len > s->out_off)
			session_fail(s, "timeout: the peer did not read a reply for %d ms",
				     timeout);
		else
			session_fail(s, "timeout: %zu of %zu bytes in %s after %d ms",
				     s->have, s->need, session_state_name(s),
				     timeout);
	}
}

/* --------------------------------------------------------------- main */

/* Site-wide TLS credentials from the options; 0 or -1 (logged). */
static int load_creds(struct site *site, const char *psk, const char *ca,
		      const char *cert, const char *key)
{
	char err[512];
	int r;

	if (!psk && !ca && !cert && !key)
		return 0;
	r = tls_creds_new(&site->creds, TLS_SERVER, err, sizeof(err));
	if (!r && psk)
		r = tls_creds_psk_file(site->creds, psk, NULL, err,
				       sizeof(err));
	if (!r && (ca || cert || key))
		r = tls_creds_x509(site->creds, ca, cert, key, err,
				   sizeof(err));
	if (r)
		site_log(LOG_ERR, "TLS credentials: %s", err);
	return r ? -1 : 0;
}

/*
 * Each substructure's transport.  Native: TLS when the site has
 * credentials (unless the file says "tls": false), and TLS must
 * authenticate the client.  OpenFresco: plain unless "tls": true, which
 * is -ssl mode and needs the site's certificate and the clients' CA.
 */
static int resolve_tls(struct site *site, const int have_ca)
{
	for (int i = 0; i < site->nsubs; i++) {
		struct substructure *sub = &site->subs[i];
		const char *why = NULL;

		if (sub->tls < 0)
			sub->tls = sub->proto == PROTO_NATIVE && site->creds;
		if (!sub->tls) {
			if (sub->nallow)
				why = "has an allow list but no TLS";
		} else if (!site->creds) {
			why = "wants TLS: give --psk, or --ca, --cert and --key";
		} else if (sub->proto == PROTO_NATIVE) {
			if (!tls_creds_have_psk(site->creds) && !have_ca)
				why = "wants TLS that authenticates its clients: give --psk or --ca";
		} else if (!have_ca || !tls_creds_have_x509(site->creds)) {
			why = "wants OpenFresco's -ssl mode: give --ca, --cert and --key";
		}
		if (why) {
			site_log(LOG_ERR, "%s: %s", sub->name, why);
			return -1;
		}
		if (sub->tls && !sub->nallow)
			site_log(LOG_WARN, "%s: no allow list: every peer that authenticates may command it",
				 sub->name);
	}
	return 0;
}

static int run(struct site *site, const sigset_t *unblocked)
{
	struct pollfd pfd[SITE_MAX_SESSIONS + SITE_MAX_SUBS];
	int nl = site->nsubs;

	while (!stop_signal) {
		int64_t now = site_now_ms(), next = -1;
		struct timespec ts, *tsp = NULL;
		int k = 0, r;

		for (int i = 0; i < nl; i++)
			pfd[k++] = (struct pollfd){ site->subs[i].listen_fd,
						    POLLIN, 0 };
		for (int i = 0; i < nsessions; i++) {
			struct session *s = sessions[i];
			short ev = s->out_len > s->out_off ? POLLOUT : POLLIN;

			if (s->handshake || (s->tls && tls_want_write(s->tls)))
				ev = tls_want_write(s->tls) ? POLLOUT : POLLIN;
			pfd[k++] = (struct pollfd){ s->fd, ev, 0 };
			if (s->deadline_ms && (next < 0 || s->deadline_ms < next))
				next = s->deadline_ms;
			/* Records GnuTLS has decrypted wake no poll(). */
			if (tls_readable(s))
				next = now;
		}
		if (next >= 0) {
			int64_t wait = next > now ? next - now : 0;

			ts.tv_sec = wait / 1000;
			ts.tv_nsec = (wait % 1000) * 1000000;
			tsp = &ts;
		}
		r = ppoll(pfd, k, tsp, unblocked);
		if (r < 0 && errno != EINTR) {
			site_log(LOG_ERR, "poll: %s", strerror(errno));
			return 1;
		}
		if (r < 0)
			continue;
		now = site_now_ms();
		/* Sessions first: pfd[nl + i] belongs to sessions[i]. */
		for (int i = 0, n = nsessions; i < n; i++) {
			struct session *s = sessions[i];
			short re = pfd[nl + i].revents;

			if (s->handshake) {
				if (re)
					handshake(s);
				if (s->handshake || s->done) {
					update_deadline(s, now,
							site->timeout_ms);
					continue;
				}
			}
			/* An error or hang-up with a reply pending shows in
			 * send(); without this it would wake poll forever. */
			if (re && s->out_len > s->out_off)
				flush_out(s);
			if ((re & (POLLIN | POLLHUP | POLLERR)) ||
			    tls_readable(s))
				read_in(s);
			update_deadline(s, now, site->timeout_ms);
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
		/* Empty the listen queue (up to SITE_MAX_PENDING a round,
		 * the sessions' turn then): a flood of connects must not
		 * leave a coordinator's reconnect waiting for a SYN retry. */
		for (int i = 0; i < nl; i++)
			for (int a = 0; a < SITE_MAX_PENDING &&
			     (pfd[i].revents & POLLIN); a++)
				if (accept_on(site, &site->subs[i]) < 0)
					break;
	}
	site_log(LOG_INFO, "%s: stopping with %d sessions open",
		 strsignal(stop_signal), nsessions);
	while (nsessions)
		session_free(sessions[--nsessions]);
	for (int i = 0; i < nl; i++)
		if (site->subs[i].proto == PROTO_NATIVE)
			native_sub_report(&site->subs[i]);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "address", required_argument, NULL, 'a' },
		{ "timeout", required_argument, NULL, 't' },
		{ "heartbeat", required_argument, NULL, 'H' },
		{ "psk", required_argument, NULL, 'P' },
		{ "ca", required_argument, NULL, 'C' },
		{ "cert", required_argument, NULL, 'E' },
		{ "key", required_argument, NULL, 'K' },
		{ "no-quickack", no_argument, NULL, 'Q' },
		{ "no-realtime", no_argument, NULL, 'R' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 }
	};
	struct site site;
	const char *address = NULL, *psk = NULL, *ca = NULL, *cert = NULL;
	const char *key = NULL;
	int timeout = 10000, heartbeat = 1000, quickack = 1, c, rc;
	struct sigaction sa = { .sa_handler = on_signal };
	sigset_t block, unblocked;
	char msg[512];
	char *end;

	while ((c = getopt_long(argc, argv, "a:t:H:qvhV", opts, NULL)) != -1) {
		switch (c) {
		case 'a':
			address = optarg;
			break;
		case 't':
			errno = 0;
			timeout = (int)strtol(optarg, &end, 10);
			if (errno || *end || timeout < 1) {
				fprintf(stderr, "rths-site: --timeout %s: expected a positive number of ms\n",
					optarg);
				return 2;
			}
			break;
		case 'H':
			errno = 0;
			heartbeat = (int)strtol(optarg, &end, 10);
			if (errno || *end || heartbeat < 1 ||
			    heartbeat > 3600000) {
				fprintf(stderr, "rths-site: --heartbeat %s: expected 1..3600000 ms\n",
					optarg);
				return 2;
			}
			break;
		case 'Q':
			quickack = 0;
			break;
		case 'R':
			site_realtime = 0;
			break;
		case 'P':
			psk = optarg;
			break;
		case 'C':
			ca = optarg;
			break;
		case 'E':
			cert = optarg;
			break;
		case 'K':
			key = optarg;
			break;
		case 'q':
			site_log_level = LOG_WARN;
			break;
		case 'v':
			site_log_level = LOG_DEBUG;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			return tool_version("rths-site");
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc - 1) {
		usage(stderr);
		return 2;
	}
	if (site_config_load(argv[optind], &site, msg, sizeof(msg))) {
		fprintf(stderr, "%s\n", msg);
		return TOOL_FAILED;
	}
	site.timeout_ms = timeout;
	site.heartbeat_ms = heartbeat;
	site.quickack = quickack;
	for (int i = 0; i < site.nsubs && address; i++) {
		free(site.subs[i].address);
		site.subs[i].address = strdup(address);
	}
	/* Signals arrive only inside ppoll(), so none is lost between a
	 * check of stop_signal and the wait. */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &unblocked);
	sigdelset(&unblocked, SIGINT);
	sigdelset(&unblocked, SIGTERM);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	rc = load_creds(&site, psk, ca, cert, key) ||
		resolve_tls(&site, ca != NULL) ? 1 : 0;
	for (int i = 0; i < site.nsubs && !rc; i++) {
		struct substructure *sub = &site.subs[i];

		if (sub->proto == PROTO_NATIVE && native_sub_init(sub)) {
			site_log(LOG_ERR, "%s: out of memory", sub->name);
			rc = 1;
		}
		if (!rc)
			rc = listen_on(sub) ? 1 : 0;
	}
	if (!rc)
		rc = run(&site, &unblocked);
	for (int i = 0; i < site.nsubs; i++)
		if (site.subs[i].listen_fd >= 0)
			close(site.subs[i].listen_fd);
	tls_creds_free(site.creds);
	site_config_free(&site);
	return rc;
}
