/* SPDX-License-Identifier: MIT */
/*
 * Mutual TLS for the coordinator-agent channel: an rc_transport over OpenSSL
 * 3, TLS 1.3 only. Both sides present a certificate issued by the operator's
 * CA and verify the other's against that CA only; then the peer's identity
 * (certificate CN or a SAN DNS name, or a SAN IP for an address) must be one
 * of the names the caller accepts. docs/PROTOCOL.md, "Transport security".
 *
 * The client (coordinator) completes the handshake before it returns,
 * including the agent's verdict on the client certificate (see
 * rc_tls_client()). The server (agent) side never blocks: rc_tls_accept()
 * wraps the socket and the handshake advances as the owner reads; the owner
 * enforces a deadline (t->handshaking stays true until it is done).
 *
 * OpenSSL writes with write(2): a process using TLS ignores SIGPIPE.
 */
#ifndef RC_TLS_H
#define RC_TLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/transport.h"

#define RC_TLS_MAX_NAMES 16
#define RC_TLS_NAME_LEN 256

/* File names inside a PKI directory (rdmachaos certs). */
#define RC_TLS_CA_FILE "ca.crt"
#define RC_TLS_CA_KEY_FILE "ca.key"
#define RC_TLS_COORDINATOR "coordinator"

struct rc_tls_ctx;

/* PEM files: the CA that signs every peer, and our own certificate and key. */
struct rc_tls_files {
	const char *ca;
	const char *cert;
	const char *key;
};

/*
 * Loads the files and checks that key and certificate match. server: accept
 * connections (and require a client certificate); else connect. peers: the
 * identities a server accepts from clients (a client passes its expectation
 * per connection instead). 0, or -errno with a sentence naming the file in err.
 */
int rc_tls_ctx_new(const struct rc_tls_files *f, bool server, const char *const *peers,
		   unsigned int nr_peers, struct rc_tls_ctx **out, char *err, size_t errlen);
void rc_tls_ctx_free(struct rc_tls_ctx *ctx);

/*
 * Client handshake on a connected socket (takes fd: closed on failure), within
 * timeout_ms. It returns only once the server has accepted our certificate too
 * (in TLS 1.3 the client finishes first; the server's session ticket, sent
 * after it verified us, is the proof), so a refusal is reported here with its
 * cause, not as a reset at the first request. The server must be one of
 * names[0..nr). err gets "TLS handshake: <cause>", without the peer's address.
 * -ETIMEDOUT, -EACCES (a certificate was refused, by either side), -EPROTO, or
 * another -errno.
 */
int rc_tls_client(struct rc_tls_ctx *ctx, int fd, const char *const *names, unsigned int nr,
		  int timeout_ms, struct rc_transport **out, char *err, size_t errlen);
/* rc_tcp_connect() and rc_tls_client() with one deadline; a TCP failure is said as such in err. */
int rc_tls_connect(struct rc_tls_ctx *ctx, const char *host, uint16_t port,
		   const char *const *names, unsigned int nr, int timeout_ms,
		   struct rc_transport **out, char *err, size_t errlen);

/*
 * Server side: wraps an accepted socket (takes fd on success). The handshake
 * runs inside recv(); a failure comes back from recv() as -EACCES or -EPROTO
 * with the cause in t->error ("TLS handshake: certificate verify failed:
 * certificate has expired").
 */
int rc_tls_accept(struct rc_tls_ctx *ctx, int fd, struct rc_transport **out);

/* true when addr (a literal, no port) is 127.0.0.0/8 or ::1: where plaintext is allowed. */
bool rc_addr_is_loopback(const char *addr);

#endif
