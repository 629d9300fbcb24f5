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

#include "live/live.h"
#include "rths-site/session.h"
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
	      "      --live ADDR:PORT serve a live view of the device substructures\n"
	      "                       there (loopback; elsewhere with HTTPS and a\n"
	      "                       token only)\n"
	      "      --live-token FILE the token the view asks for (first line of\n"
	      "                       FILE)\n"
	      "      --live-cert FILE, --live-key FILE\n"
	      "                       the view over HTTPS (PEM)\n"
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
		k += sessions_poll(pfd + k, now, &next);
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
		sessions_serve(pfd + nl, now);
		/* Empty the listen queue (up to SITE_MAX_PENDING a round,
		 * the sessions' turn then): a flood of connects must not
		 * leave a coordinator's reconnect waiting for a SYN retry. */
		for (int i = 0; i < nl; i++)
			for (int a = 0; a < SITE_MAX_PENDING &&
			     (pfd[i].revents & POLLIN); a++)
				if (session_accept(site, &site->subs[i]) < 0)
					break;
	}
	site_log(LOG_INFO, "%s: stopping with %d sessions open",
		 strsignal(stop_signal), sessions_open());
	sessions_close_all();
	for (int i = 0; i < nl; i++)
		if (site->subs[i].proto == PROTO_NATIVE)
			native_sub_report(&site->subs[i]);
	return 0;
}

enum { OPT_LIVE = 256, OPT_LIVE_TOKEN, OPT_LIVE_CERT, OPT_LIVE_KEY };

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
		{ "live", required_argument, NULL, OPT_LIVE },
		{ "live-token", required_argument, NULL, OPT_LIVE_TOKEN },
		{ "live-cert", required_argument, NULL, OPT_LIVE_CERT },
		{ "live-key", required_argument, NULL, OPT_LIVE_KEY },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 }
	};
	struct site site;
	const char *address = NULL, *psk = NULL, *ca = NULL, *cert = NULL;
	const char *key = NULL, *token_file = NULL;
	struct site_view_options view = { 0 };
	char token[256];
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
		case OPT_LIVE:
			view.listen = optarg;
			break;
		case OPT_LIVE_TOKEN:
			token_file = optarg;
			break;
		case OPT_LIVE_CERT:
			view.cert = optarg;
			break;
		case OPT_LIVE_KEY:
			view.key = optarg;
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
	if (!view.listen && (token_file || view.cert || view.key)) {
		fprintf(stderr, "rths-site: --live-token, --live-cert and --live-key go with --live\n");
		return 2;
	}
	if (token_file) {
		if (live_token_read(token_file, token, sizeof(token), msg,
				    sizeof(msg)) < 0) {
			fprintf(stderr, "rths-site: %s\n", msg);
			return 2;
		}
		view.token = token;
	}
	view.file = argv[optind];
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
	/* the view's threads before the site's thread turns real-time */
	if (!rc && view.listen && site_view_start(&site, &view))
		rc = 1;
	if (!rc)
		rc = run(&site, &unblocked);
	for (int i = 0; i < site.nsubs; i++)
		if (site.subs[i].listen_fd >= 0)
			close(site.subs[i].listen_fd);
	tls_creds_free(site.creds);
	site_config_free(&site);
	/* after the devices came to rest: the view shows them ended */
	site_view_stop(rc ? "failed" : "stopped");
	return rc;
}
