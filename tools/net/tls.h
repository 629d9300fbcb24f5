/* SPDX-License-Identifier: GPL-2.0 */
/*
 * TLS for the rths tools (GnuTLS), for a server (rths-site) and a client
 * (rths-coord) alike, on non-blocking sockets driven from a poll loop.
 *
 * Credentials are pre-shared keys, X.509 certificates, or both:
 *   - PSK: a key file of "identity:hexkey" lines, as psktool(1) writes
 *     them.  A server accepts every identity in it; a client uses one.
 *   - X.509: a CA file (PEM) that the peer's certificate must chain to,
 *     and our own certificate and key (PEM).  A server with a CA requires
 *     a client certificate signed by it; a client always verifies the
 *     server's certificate against the CA, and presents its own when it
 *     has one.
 *
 * A connection is set up with tls_conn_new() on a connected socket and
 * tls_handshake() is called whenever the socket is ready in the direction
 * tls_want_write() names, until it returns 0.  Then tls_send() and
 * tls_recv() behave like send() and recv() on a non-blocking socket:
 * -1 with errno EAGAIN when they would block, recv() 0 at the end of
 * the stream.  tls_pending() counts bytes already decrypted: poll() does
 * not see them, so read them before waiting.
 *
 * Errors: functions returning int give 0 or a negative errno and put a
 * one-line reason in 'err'; a connection keeps its last reason for
 * tls_error().  Nothing here prints.
 *
 * Lifetimes: credentials must outlive every connection made with them;
 * tls_conn_free() does not close the socket.
 */
#ifndef RTHS_NET_TLS_H
#define RTHS_NET_TLS_H

#include <stddef.h>
#include <sys/types.h>

enum tls_role { TLS_SERVER, TLS_CLIENT };

struct tls_creds;
struct tls_conn;

int tls_creds_new(struct tls_creds **out, enum tls_role role, char *err,
		  size_t err_len);
void tls_creds_free(struct tls_creds *c);

/*
 * Pre-shared keys from 'file' ("identity:hexkey" lines; # comments and
 * blank lines are skipped; keys of 16 bytes or more).  A client uses the
 * line of 'identity', or the first line when it is NULL.
 */
int tls_creds_psk_file(struct tls_creds *c, const char *file,
		       const char *identity, char *err, size_t err_len);

/*
 * Certificates (PEM files).  Server: cert and key required; with a CA,
 * clients must present a certificate signed by it.  Client: the CA is
 * required (the server is verified against it); cert and key are
 * optional (both or neither).
 */
int tls_creds_x509(struct tls_creds *c, const char *ca_file,
		   const char *cert_file, const char *key_file, char *err,
		   size_t err_len);

/* 1 when the credentials hold PSK keys / certificates. */
int tls_creds_have_psk(const struct tls_creds *c);
int tls_creds_have_x509(const struct tls_creds *c);

/*
 * A TLS connection on the connected socket fd (made non-blocking by the
 * caller).  A client's server_name, when not NULL, must match the
 * server's certificate (and is sent as SNI); NULL skips the name check,
 * not the chain check.
 */
int tls_conn_new(struct tls_conn **out, struct tls_creds *c, int fd,
		 const char *server_name, char *err, size_t err_len);
void tls_conn_free(struct tls_conn *t);

/* 0 once the handshake is done (and the peer verified), -EAGAIN while it
 * goes on, -EKEYREJECTED when the server's certificate failed the
 * client's verification (chain or name: retrying will not help), -EACCES
 * when the peer refused us with a fatal alert (a wrong pre-shared key or
 * identity, a certificate it does not accept: retrying will not help
 * either), another negative errno when it failed otherwise (see
 * tls_error()).  A server that fails a handshake sends the client the
 * alert that says why, so that the client can tell a refusal from a
 * broken link. */
int tls_handshake(struct tls_conn *t);
/* While the handshake or a send waits: 1 if it needs POLLOUT, else 0. */
int tls_want_write(const struct tls_conn *t);

ssize_t tls_send(struct tls_conn *t, const void *buf, size_t len);
/* As recv(); errno EACCES when the peer ended the session with an alert
 * that refuses us (access denied, bad certificate, ...), EPROTO for
 * other TLS errors. */
ssize_t tls_recv(struct tls_conn *t, void *buf, size_t len);
size_t tls_pending(const struct tls_conn *t);
/* Best effort close_notify, never blocks. */
void tls_close(struct tls_conn *t);

/*
 * After the handshake: the peer's identity, the PSK identity it proved
 * or its certificate's common name (""); tls_peer_dn() the certificate's
 * whole distinguished name ("" for PSK).  tls_peer_kind() is "psk",
 * "x509" or "none".
 */
const char *tls_peer(const struct tls_conn *t);
const char *tls_peer_dn(const struct tls_conn *t);
const char *tls_peer_kind(const struct tls_conn *t);
/* The last error's one-line reason, "" if none. */
const char *tls_error(const struct tls_conn *t);
/* A hint of who tried, for a failed handshake's log line: the PSK
 * identity the peer offered, or "". */
const char *tls_offered_identity(const struct tls_conn *t);

#endif
