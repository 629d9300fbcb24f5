// SPDX-License-Identifier: GPL-2.0
/*
 * rths-site over TLS: the native protocol with pre-shared keys and
 * certificates (the client side of tools/net/tls.h, as rths-coord uses
 * it), and OpenFresco's -ssl mode driven by an OpenSSL client that does
 * what OpenFresco's TCP_SocketSSL does.  Keys and certificates are made
 * at test time with openssl(1) in a temporary directory.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>

#include "kselftest_harness.h"
#include "site_proc.h"
#include "tls.h"
#include "wire.h"

#define KS 3.0		/* every substructure here: f = 3 u */

enum { LIN, PIER };

static const char *const SITE_JSON =
	"{\"substructures\":["
	"{\"name\":\"lin\",\"protocol\":\"native\",\"port\":0,\"dof\":1,"
	"\"stiffness\":[[3.0]],\"allow\":[\"coord1\"]},"
	"{\"name\":\"pier\",\"protocol\":\"element\",\"port\":0,\"dof\":1,"
	"\"stiffness\":[[3.0]],\"tls\":true,\"allow\":[\"coord1\"]}"
	"]}\n";

/* ------------------------------------------------------- keys, certs */

struct pki {
	char dir[64];
};

static int sh(const struct pki *k, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int sh(const struct pki *k, const char *fmt, ...)
{
	char cmd[2048];
	int n = snprintf(cmd, sizeof(cmd), "cd %s && (", k->dir);
	va_list ap;

	va_start(ap, fmt);
	n += vsnprintf(cmd + n, sizeof(cmd) - n, fmt, ap);
	va_end(ap);
	snprintf(cmd + n, sizeof(cmd) - n, ") >/dev/null 2>&1");
	return system(cmd) ? -1 : 0;
}

/* A key and a certificate for CN 'cn', signed by 'ca' (or self-signed
 * as a CA when ca is NULL). */
static int make_cert(const struct pki *k, const char *name, const char *cn,
		     const char *ca)
{
	static const char newkey[] =
		"-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes";

	if (!ca)
		return sh(k, "openssl req -x509 %s -keyout %s.key -out %s.crt -subj /CN=%s -days 2",
			  newkey, name, name, cn);
	return sh(k, "openssl req %s -keyout %s.key -out %s.csr -subj /CN=%s && "
		  "echo subjectAltName=DNS:%s > %s.ext && "
		  "openssl x509 -req -in %s.csr -CA %s.crt -CAkey %s.key -CAcreateserial -out %s.crt -days 2 -extfile %s.ext",
		  newkey, name, name, cn, cn, name, name, ca, ca, name, name);
}

static int pki_make(struct pki *k)
{
	snprintf(k->dir, sizeof(k->dir), "/tmp/rths-tls.XXXXXX");
	if (!mkdtemp(k->dir))
		return -1;
	/* psktool's format; "bad.psk" holds a wrong key for coord1. */
	return make_cert(k, "ca", "rths-test-ca", NULL) ||
		make_cert(k, "site", "site", "ca") ||
		make_cert(k, "coord1", "coord1", "ca") ||
		make_cert(k, "coord2", "coord2", "ca") ||
		make_cert(k, "rogue-ca", "rogue-ca", NULL) ||
		make_cert(k, "rogue", "coord1", "rogue-ca") ||
		sh(k, "printf 'coord1:%s\\ncoord2:%s\\n' > keys.psk && "
		   "printf 'coord1:%s\\nmallory:%s\\n' > bad.psk",
		   "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff",
		   "ffeeddccbbaa99887766554433221100ffeeddccbbaa99887766554433221100",
		   "0f112233445566778899aabbccddeeff00112233445566778899aabbccddeeff",
		   "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff");
}

static void pki_remove(struct pki *k)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", k->dir);
	if (system(cmd))
		fprintf(stderr, "cannot remove %s\n", k->dir);
}

static const char *pki_file(const struct pki *k, const char *name,
			    char *buf, size_t size)
{
	if (!name)
		return NULL;
	snprintf(buf, size, "%s/%s", k->dir, name);
	return buf;
}

/* ---------------------------------------------- native client (tls.h) */

struct client {
	int fd;
	struct tls_creds *c;
	struct tls_conn *t;
	char err[512];
};

static int wait_fd(int fd, int write)
{
	struct pollfd p = { fd, write ? POLLOUT : POLLIN, 0 };

	return poll(&p, 1, IO_MS) == 1 ? 0 : -1;
}

/*
 * Connects to port with a PSK line (psk: file, identity) and/or
 * certificates (ca, cert, key; file names in the pki directory), and
 * completes the handshake as a poll loop would.
 */
static int client_open(struct client *cl, const struct pki *k, int port,
		       const char *psk, const char *identity, const char *ca,
		       const char *cert, const char *key)
{
	char f1[128], f2[128], f3[128];
	int r;

	memset(cl, 0, sizeof(*cl));
	cl->fd = dial(port);
	if (cl->fd < 0 ||
	    fcntl(cl->fd, F_SETFL, fcntl(cl->fd, F_GETFL) | O_NONBLOCK))
		return -1;
	r = tls_creds_new(&cl->c, TLS_CLIENT, cl->err, sizeof(cl->err));
	if (!r && psk)
		r = tls_creds_psk_file(cl->c, pki_file(k, psk, f1, sizeof(f1)),
				       identity, cl->err, sizeof(cl->err));
	if (!r && ca)
		r = tls_creds_x509(cl->c, pki_file(k, ca, f1, sizeof(f1)),
				   pki_file(k, cert, f2, sizeof(f2)),
				   pki_file(k, key, f3, sizeof(f3)), cl->err,
				   sizeof(cl->err));
	if (!r)
		r = tls_conn_new(&cl->t, cl->c, cl->fd, ca ? "site" : NULL,
				 cl->err, sizeof(cl->err));
	while (!r && (r = tls_handshake(cl->t)) == -EAGAIN)
		r = wait_fd(cl->fd, tls_want_write(cl->t)) ? -ETIMEDOUT : 0;
	if (r && cl->t)
		snprintf(cl->err, sizeof(cl->err), "%s", tls_error(cl->t));
	return r;
}

static void client_close(struct client *cl)
{
	tls_conn_free(cl->t);
	tls_creds_free(cl->c);
	if (cl->fd >= 0)
		close(cl->fd);
}

static int client_put(struct client *cl, struct rnp_buf *b)
{
	size_t off = 0;

	while (off < b->len) {
		ssize_t w = tls_send(cl->t, b->p + off, b->len - off);

		if (w < 0 && errno == EAGAIN &&
		    !wait_fd(cl->fd, tls_want_write(cl->t)))
			continue;
		if (w < 0)
			return -1;
		off += w;
	}
	b->len = 0;
	return 0;
}

static int client_get(struct client *cl, void *p, size_t len)
{
	size_t have = 0;

	while (have < len) {
		ssize_t r = tls_recv(cl->t, (char *)p + have, len - have);

		if (r < 0 && errno == EAGAIN &&
		    !wait_fd(cl->fd, tls_want_write(cl->t)))
			continue;
		if (r <= 0)
			return -1;
		have += r;
	}
	return 0;
}

static unsigned char frame_in[RNP_MAX_PAYLOAD];

static int client_frame(struct client *cl, uint32_t *len)
{
	unsigned char hdr[RNP_HDR_SIZE];
	struct rnp_hdr h;

	if (client_get(cl, hdr, sizeof(hdr)) ||
	    rnp_parse_hdr(hdr, &h, NULL, 0) ||
	    client_get(cl, frame_in, h.length))
		return -1;
	*len = h.length;
	return h.type;
}

/* HELLO for "lin"; the answer's type (WELCOME, or ERROR into em). */
static int client_hello(struct client *cl, uint64_t test,
			struct rnp_errmsg *em)
{
	struct rnp_hello h = { .version_min = 1, .version_max = 1,
			       .test_id = test, .substructure = "lin" };
	struct rnp_buf b = { 0 };
	struct rnp_welcome w;
	uint32_t len;
	int type = -1;

	if (!rnp_put_hello(&b, &h) && !client_put(cl, &b))
		type = client_frame(cl, &len);
	rnp_buf_free(&b);
	if (type == RNP_WELCOME && rnp_parse_welcome(frame_in, len, &w,
						    NULL, 0))
		return -1;
	if (type == RNP_ERROR && rnp_parse_error(frame_in, len, em, NULL, 0))
		return -1;
	return type;
}

/* Steps from..to of f = 3 u, checked exactly. */
static int client_steps(struct client *cl, uint64_t from, uint64_t to)
{
	for (uint64_t k = from; k <= to; k++) {
		double u = 0.125 * (double)k, d, f;
		struct rnp_step st = { .seq = k, .ndof = 1, .u = &u };
		struct rnp_result res = { .disp = &d, .force = &f };
		struct rnp_buf b = { 0 };
		uint32_t len;
		int type = -1;

		if (!rnp_put_step(&b, &st) && !client_put(cl, &b))
			type = client_frame(cl, &len);
		rnp_buf_free(&b);
		if (type != RNP_RESULT ||
		    rnp_parse_result(frame_in, len, &res, 1, NULL, 0) ||
		    res.seq != k || f != KS * u || d != u)
			return -1;
	}
	return 0;
}

/* ----------------------------------------- OpenFresco's TCP_SocketSSL */

/*
 * TCP_SocketSSL's client: TLS_client_method, its certificate and key
 * (when given), the CA it verifies the server with, SSL_VERIFY_PEER,
 * depth 1, a blocking socket.  Returns the SSL, or NULL.
 */
static SSL *ssl_connect(const struct pki *k, int port, const char *cert,
			const char *key, SSL_CTX **ctxp)
{
	struct timeval tv = { IO_MS / 1000, 0 };
	char f1[128], f2[128];
	SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
	SSL *ssl = NULL;
	int fd;

	*ctxp = ctx;
	/* A refused client writes to a closed socket: EPIPE, no signal. */
	signal(SIGPIPE, SIG_IGN);
	if (!ctx)
		return NULL;
	if (cert &&
	    (SSL_CTX_use_certificate_file(ctx, pki_file(k, cert, f1,
				sizeof(f1)), SSL_FILETYPE_PEM) <= 0 ||
	     SSL_CTX_use_PrivateKey_file(ctx, pki_file(k, key, f2,
				sizeof(f2)), SSL_FILETYPE_PEM) <= 0 ||
	     !SSL_CTX_check_private_key(ctx)))
		return NULL;
	if (!SSL_CTX_load_verify_locations(ctx, pki_file(k, "ca.crt", f1,
							 sizeof(f1)), NULL))
		return NULL;
	SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
	SSL_CTX_set_verify_depth(ctx, 1);
	fd = dial(port);
	if (fd < 0)
		return NULL;
	/* OpenFresco blocks forever; the test gives up after IO_MS. */
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	ssl = SSL_new(ctx);
	if (!ssl || !SSL_set_fd(ssl, fd) || SSL_connect(ssl) <= 0) {
		SSL_free(ssl);
		close(fd);
		return NULL;
	}
	return ssl;
}

static void ssl_done(SSL *ssl, SSL_CTX *ctx)
{
	if (ssl) {
		int fd = SSL_get_fd(ssl);

		SSL_shutdown(ssl);
		SSL_free(ssl);
		close(fd);
	}
	SSL_CTX_free(ctx);
}

static int ssl_put(SSL *ssl, const void *p, int len)
{
	return SSL_write(ssl, p, len) == len ? 0 : -1;
}

static int ssl_get(SSL *ssl, void *p, int len)
{
	int have = 0;

	while (have < len) {
		int r = SSL_read(ssl, (char *)p + have, len - have);

		if (r <= 0)
			return -1;
		have += r;
	}
	return 0;
}

/* GenericClient for 1 DOF over -ssl: header, trial, force, DIE. */
static int ssl_element_step(SSL *ssl, double u, double *f)
{
	int32_t hdr[11] = { 1, 1, 1, 0, 1, 0, 0, 0, 1, 0, 8 };
	double m[8] = { 3, u, 0.5, -2.0, 0.01 }, r[8];

	if (ssl_put(ssl, hdr, sizeof(hdr)) || ssl_put(ssl, m, sizeof(m)))
		return -1;
	memset(m, 0, sizeof(m));
	m[0] = 10;
	if (ssl_put(ssl, m, sizeof(m)) || ssl_get(ssl, r, sizeof(r)))
		return -1;
	*f = r[0];
	m[0] = 99;
	return ssl_put(ssl, m, sizeof(m));
}

/* -------------------------------------------------------------- tests */

/*
 * The site serves "lin" (native, TLS, allow coord1) and "pier" (element,
 * -ssl, allow coord1).  A good native session of coord1 (PSK) holds
 * "lin" through every test; each bad peer gets one log line and the good
 * session steps on.
 */
FIXTURE(tls) {
	struct pki k;
	struct site_proc s;
	struct client good;
	uint64_t seq;
};

FIXTURE_SETUP(tls)
{
	char psk[128], ca[128], cert[128], key[128];
	struct rnp_errmsg em;

	ASSERT_EQ(0, pki_make(&self->k));
	const char *args[] = { "-t", "400",
		"--psk", pki_file(&self->k, "keys.psk", psk, sizeof(psk)),
		"--ca", pki_file(&self->k, "ca.crt", ca, sizeof(ca)),
		"--cert", pki_file(&self->k, "site.crt", cert, sizeof(cert)),
		"--key", pki_file(&self->k, "site.key", key, sizeof(key)),
		NULL };

	ASSERT_EQ(0, site_proc_start(&self->s, SITE_JSON, 2, args));
	ASSERT_EQ(0, client_open(&self->good, &self->k, self->s.port[LIN],
				 "keys.psk", "coord1", NULL, NULL, NULL)) {
		TH_LOG("%s", self->good.err);
	}
	EXPECT_STREQ("psk", tls_peer_kind(self->good.t));
	ASSERT_EQ(RNP_WELCOME, client_hello(&self->good, 11, &em));
	ASSERT_EQ(0, client_steps(&self->good, 1, 3));
	self->seq = 3;
}

FIXTURE_TEARDOWN(tls)
{
	client_close(&self->good);
	EXPECT_EQ(0, site_proc_stop(&self->s, NULL, NULL, 0));
	pki_remove(&self->k);
}

/* The one line about the bad peer, and the good session goes on. */
static void expect_one_line(struct __test_metadata *_metadata,
			    FIXTURE_DATA(tls) *self, const char *what)
{
	char line[1024];

	ASSERT_NE(NULL, site_alert_line(&self->s, IO_MS, line, sizeof(line)));
	TH_LOG("%s", line);
	EXPECT_NE(NULL, strstr(line, what));
	EXPECT_NE(NULL, strstr(line, "127.0.0.1:"));
	ASSERT_EQ(0, client_steps(&self->good, self->seq + 1, self->seq + 3));
	self->seq += 3;
	EXPECT_EQ(NULL, site_alert_line(&self->s, 100, line, sizeof(line)));
}

TEST_F(tls, psk_session_is_identified)
{
	char line[1024];
	int found = 0;

	while (!found && site_log_line(&self->s, IO_MS, line, sizeof(line)))
		found = strstr(line, "psk \"coord1\"") &&
			strstr(line, "TLS: authenticated");
	EXPECT_TRUE(found);
	ASSERT_EQ(0, client_steps(&self->good, 4, 20));
}

/*
 * 100 PINGs and a STEP in one TLS record: the site reads a bounded number
 * of frames per wake-up, and the rest that GnuTLS holds decrypted wakes
 * no poll(): the site must come back for them by itself.
 */
TEST_F(tls, frames_in_one_record)
{
	struct rnp_ping ping = { 0, 6 }, pong;
	double u = 2.5, d, f;
	struct rnp_step st = { .seq = 4, .ndof = 1, .u = &u };
	struct rnp_result res = { .disp = &d, .force = &f };
	struct rnp_buf b = { 0 };
	uint32_t len;

	for (ping.nonce = 0; ping.nonce < 100; ping.nonce++)
		ASSERT_EQ(0, rnp_put_ping(&b, RNP_PING, &ping));
	ASSERT_EQ(0, rnp_put_step(&b, &st));
	ASSERT_EQ(0, client_put(&self->good, &b));
	rnp_buf_free(&b);
	for (uint64_t k = 0; k < 100; k++) {
		ASSERT_EQ(RNP_PONG, client_frame(&self->good, &len));
		ASSERT_EQ(0, rnp_parse_ping(frame_in, len, &pong, NULL, 0));
		ASSERT_EQ(k, pong.nonce);
	}
	ASSERT_EQ(RNP_RESULT, client_frame(&self->good, &len));
	ASSERT_EQ(0, rnp_parse_result(frame_in, len, &res, 1, NULL, 0));
	EXPECT_EQ(4, res.seq);
	EXPECT_EQ(KS * u, f);
	ASSERT_EQ(0, client_steps(&self->good, 5, 8));
}

/* A certificate client of the same test takes over from the PSK one. */
TEST_F(tls, certificate_session)
{
	struct client c;
	struct rnp_errmsg em;

	ASSERT_EQ(0, client_open(&c, &self->k, self->s.port[LIN], NULL,
				 NULL, "ca.crt", "coord1.crt",
				 "coord1.key")) {
		TH_LOG("%s", c.err);
	}
	EXPECT_STREQ("x509", tls_peer_kind(c.t));
	EXPECT_STREQ("site", tls_peer(c.t));
	ASSERT_EQ(RNP_WELCOME, client_hello(&c, 11, &em));
	ASSERT_EQ(0, client_steps(&c, 4, 10));
	client_close(&c);
}

TEST_F(tls, wrong_psk_key)
{
	struct client c;

	EXPECT_NE(0, client_open(&c, &self->k, self->s.port[LIN], "bad.psk",
				 "coord1", NULL, NULL, NULL));
	TH_LOG("client: %s", c.err);
	client_close(&c);
	expect_one_line(_metadata, self,
			"TLS handshake failed (PSK identity \"coord1\")");
}

TEST_F(tls, unknown_psk_identity)
{
	struct client c;

	EXPECT_NE(0, client_open(&c, &self->k, self->s.port[LIN], "bad.psk",
				 "mallory", NULL, NULL, NULL));
	client_close(&c);
	expect_one_line(_metadata, self,
			"TLS handshake failed (PSK identity \"mallory\")");
}

/* coord2 has a valid key but "lin" allows only coord1. */
TEST_F(tls, identity_not_allowed)
{
	struct client c;
	struct rnp_errmsg em;

	ASSERT_EQ(0, client_open(&c, &self->k, self->s.port[LIN], "keys.psk",
				 "coord2", NULL, NULL, NULL));
	EXPECT_EQ(RNP_ERROR, client_hello(&c, 99, &em));
	EXPECT_EQ(RNP_ERR_AUTH, em.code);
	client_close(&c);
	expect_one_line(_metadata, self, "not authorized: \"coord2\"");
}

/* A certificate client the site must refuse (no certificate: NULL). */
static void cert_refused(struct __test_metadata *_metadata,
			 FIXTURE_DATA(tls) *self, const char *cert,
			 const char *key)
{
	struct client c;
	struct rnp_errmsg em;
	int r = client_open(&c, &self->k, self->s.port[LIN], NULL, NULL,
			    "ca.crt", cert, key);

	/* TLS 1.3 finishes the client's side before the server checks. */
	if (!r)
		EXPECT_NE(RNP_WELCOME, client_hello(&c, 11, &em));
	client_close(&c);
	expect_one_line(_metadata, self, "TLS handshake failed");
}

TEST_F(tls, client_without_certificate)
{
	cert_refused(_metadata, self, NULL, NULL);
}

TEST_F(tls, certificate_of_another_ca)
{
	cert_refused(_metadata, self, "rogue.crt", "rogue.key");
}

/* A plain-TCP native client on a TLS port. */
TEST_F(tls, plain_client)
{
	struct rnp_hello h = { .version_min = 1, .version_max = 1,
			       .test_id = 11, .substructure = "lin" };
	struct rnp_buf b = { 0 };
	int fd = dial(self->s.port[LIN]);

	ASSERT_EQ(0, rnp_put_hello(&b, &h));
	ASSERT_EQ(0, put(fd, b.p, b.len));
	rnp_buf_free(&b);
	EXPECT_EQ(1, closed(fd));
	close(fd);
	expect_one_line(_metadata, self, "TLS handshake failed");
}

TEST_F(tls, silent_peer)
{
	int fd = dial(self->s.port[LIN]);

	EXPECT_EQ(1, closed(fd));
	close(fd);
	expect_one_line(_metadata, self, "TLS handshake not done");
}

/* OpenFresco -ssl: GenericClient over TCP_SocketSSL. */
TEST_F(tls, openfresco_ssl_element)
{
	SSL_CTX *ctx;
	SSL *ssl = ssl_connect(&self->k, self->s.port[PIER], "coord1.crt",
			       "coord1.key", &ctx);
	double f = 0;

	ASSERT_NE(NULL, ssl);
	ASSERT_EQ(0, ssl_element_step(ssl, 0.75, &f));
	EXPECT_EQ(KS * 0.75, f);
	ssl_done(ssl, ctx);
}

/* A -ssl client the site must refuse: one line containing 'what'. */
static void ssl_refused(struct __test_metadata *_metadata,
			FIXTURE_DATA(tls) *self, const char *cert,
			const char *key, const char *what)
{
	SSL_CTX *ctx;
	SSL *ssl = ssl_connect(&self->k, self->s.port[PIER], cert, key,
			       &ctx);
	double f;

	if (ssl)
		EXPECT_NE(0, ssl_element_step(ssl, 0.75, &f));
	ssl_done(ssl, ctx);
	expect_one_line(_metadata, self, what);
}

TEST_F(tls, openfresco_ssl_without_certificate)
{
	ssl_refused(_metadata, self, NULL, NULL, "TLS handshake failed");
}

TEST_F(tls, openfresco_ssl_certificate_of_another_ca)
{
	ssl_refused(_metadata, self, "rogue.crt", "rogue.key",
		    "client certificate \"CN=coord1\" rejected");
}

/* A valid certificate whose CN "pier" does not allow. */
TEST_F(tls, openfresco_ssl_identity_not_allowed)
{
	ssl_refused(_metadata, self, "coord2.crt", "coord2.key",
		    "not authorized: \"coord2\"");
}

/* --------------------------------------------------- site-file errors */

TEST(tls_configuration_errors)
{
	static const char native_tls[] =
		"{\"substructures\":[{\"name\":\"n\",\"protocol\":\"native\","
		"\"port\":0,\"dof\":1,\"stiffness\":[[1]],\"tls\":true}]}";
	static const char ssl_el[] =
		"{\"substructures\":[{\"name\":\"e\",\"protocol\":\"element\","
		"\"port\":0,\"dof\":1,\"stiffness\":[[1]],\"tls\":true}]}";
	static const char allow_plain[] =
		"{\"substructures\":[{\"name\":\"n\",\"protocol\":\"native\","
		"\"port\":0,\"dof\":1,\"stiffness\":[[1]],\"tls\":false,"
		"\"allow\":[\"x\"]}]}";
	struct pki k;
	char err[4096], psk[128];
	const char *with_psk[] = { "--psk", psk, NULL };

	ASSERT_EQ(0, pki_make(&k));
	pki_file(&k, "keys.psk", psk, sizeof(psk));
	EXPECT_EQ(1, site_proc_run(native_tls, NULL, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "n: wants TLS: give --psk"));
	EXPECT_EQ(1, site_proc_run(ssl_el, with_psk, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "e: wants OpenFresco's -ssl mode"));
	EXPECT_EQ(1, site_proc_run(allow_plain, NULL, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "substructures[0].allow: needs TLS"));
	ASSERT_EQ(0, sh(&k, "printf 'coord1:00112233445566778899aabbccddeeff\\nc2:abc\\n' > short.psk"));
	pki_file(&k, "short.psk", psk, sizeof(psk));
	EXPECT_EQ(1, site_proc_run(native_tls, with_psk, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "short.psk:2: key must be"));
	TH_LOG("%s", err);
	pki_remove(&k);
}

/*
 * A site with a PSK and a certificate of its own but no CA (it cannot
 * verify a client certificate) and no allow list: a client that offers
 * neither PSK nor certificate completes no handshake and commands
 * nothing; a PSK client still does.
 */
TEST(no_ca_admits_only_psk_clients)
{
	static const char json[] =
		"{\"substructures\":[{\"name\":\"lin\",\"protocol\":\"native\","
		"\"port\":0,\"dof\":1,\"stiffness\":[[3.0]]}]}\n";
	char psk[128], cert[128], key[128], line[1024];
	struct rnp_errmsg em;
	struct site_proc s;
	struct client c;
	struct pki k;
	int r;

	ASSERT_EQ(0, pki_make(&k));
	const char *args[] = { "-t", "400",
		"--psk", pki_file(&k, "keys.psk", psk, sizeof(psk)),
		"--cert", pki_file(&k, "site.crt", cert, sizeof(cert)),
		"--key", pki_file(&k, "site.key", key, sizeof(key)),
		NULL };

	ASSERT_EQ(0, site_proc_start(&s, json, 1, args));
	r = client_open(&c, &k, s.port[0], NULL, NULL, "ca.crt", NULL, NULL);
	/* TLS 1.3 finishes the client's side before the server checks. */
	if (!r)
		EXPECT_NE(RNP_WELCOME, client_hello(&c, 11, &em));
	client_close(&c);
	ASSERT_NE(NULL, site_alert_line(&s, IO_MS, line, sizeof(line)));
	TH_LOG("%s", line);
	EXPECT_NE(NULL, strstr(line, "did not authenticate"));
	ASSERT_EQ(0, client_open(&c, &k, s.port[0], "keys.psk", "coord1",
				 NULL, NULL, NULL));
	EXPECT_EQ(RNP_WELCOME, client_hello(&c, 12, &em));
	ASSERT_EQ(0, client_steps(&c, 1, 2));
	client_close(&c);
	EXPECT_EQ(0, site_proc_stop(&s, NULL, NULL, 0));
	pki_remove(&k);
}

TEST_HARNESS_MAIN
