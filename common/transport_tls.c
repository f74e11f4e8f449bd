// SPDX-License-Identifier: MIT
/* TLS 1.3 transport with mutual certificate authentication over OpenSSL 3 (common/tls.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include "common/log.h"
#include "common/tls.h"
#include "common/units.h"

/* The server's session ticket is how a client learns it was accepted; see rc_tls_client(). */
#define RC_TLS_TICKETS 1

struct rc_tls_ctx {
	SSL_CTX *ssl;
	bool server;
	char names[RC_TLS_MAX_NAMES][RC_TLS_NAME_LEN]; /* server: the clients it accepts */
	unsigned int nr_names;
};

struct rc_tls {
	struct rc_transport t; /* first: close() frees the whole */
	SSL *ssl;
	char names[RC_TLS_MAX_NAMES][RC_TLS_NAME_LEN]; /* the identities the peer may have */
	unsigned int nr_names;
	bool established;
	bool want_write;    /* an SSL call stopped because the socket would not take its output */
	bool ticket;	    /* client: the server's session ticket arrived */
	bool confirming;    /* client: handshake done, waiting for the server's verdict on us */
	int failed;	    /* sticky -errno once the connection is unusable */
	char id_error[200]; /* why the peer's certificate is not who we expected */
};

bool rc_addr_is_loopback(const char *addr)
{
	struct in6_addr a6;
	struct in_addr a4;

	if (inet_pton(AF_INET, addr, &a4) == 1)
		return (ntohl(a4.s_addr) >> 24) == 127;
	if (inet_pton(AF_INET6, addr, &a6) == 1)
		return IN6_IS_ADDR_LOOPBACK(&a6) ||
		       (IN6_IS_ADDR_V4MAPPED(&a6) && a6.s6_addr[12] == 127);
	return false;
}

static bool rc_tls_is_ip(const char *name)
{
	unsigned char buf[sizeof(struct in6_addr)];

	return inet_pton(AF_INET, name, buf) == 1 || inet_pton(AF_INET6, name, buf) == 1;
}

/*
 * The identity rule: an address matches a SAN IP; a name matches the subject
 * CN or a SAN DNS name exactly (case aside; no wildcards, which a private CA
 * has no use for and which would let one certificate stand for many nodes).
 */
static bool rc_tls_cert_is(X509 *cert, const char *name)
{
	if (rc_tls_is_ip(name))
		return X509_check_ip_asc(cert, name, 0) == 1;
	return X509_check_host(cert, name, 0,
			       X509_CHECK_FLAG_ALWAYS_CHECK_SUBJECT | X509_CHECK_FLAG_NO_WILDCARDS,
			       NULL) == 1;
}

static size_t rc_tls_append(char *buf, size_t len, size_t off, const char *kind, const void *s,
			    int slen)
{
	if (off < len)
		off += (size_t)snprintf(buf + off, len - off, "%s%s%.*s", off ? ", " : "", kind,
					slen, (const char *)s);
	return off;
}

/* "CN=node-b, DNS:node-b, IP:127.0.0.1": what a certificate says it is, for messages. */
static void rc_tls_cert_names(X509 *cert, char *buf, size_t len)
{
	X509_NAME *subj = X509_get_subject_name(cert);
	int i = X509_NAME_get_index_by_NID(subj, NID_commonName, -1);
	GENERAL_NAMES *sans = X509_get_ext_d2i(cert, NID_subject_alt_name, NULL, NULL);
	size_t off = 0;

	buf[0] = '\0';
	if (i >= 0) {
		ASN1_STRING *cn = X509_NAME_ENTRY_get_data(X509_NAME_get_entry(subj, i));

		off = rc_tls_append(buf, len, off, "CN=", ASN1_STRING_get0_data(cn),
				    ASN1_STRING_length(cn));
	}
	for (i = 0; sans && i < sk_GENERAL_NAME_num(sans); i++) {
		const GENERAL_NAME *g = sk_GENERAL_NAME_value(sans, i);
		char ip[INET6_ADDRSTRLEN];

		if (g->type == GEN_DNS) {
			off = rc_tls_append(buf, len, off,
					    "DNS:", ASN1_STRING_get0_data(g->d.dNSName),
					    ASN1_STRING_length(g->d.dNSName));
		} else if (g->type == GEN_IPADD) {
			int n = ASN1_STRING_length(g->d.iPAddress);

			if ((n != 4 && n != 16) ||
			    !inet_ntop(n == 4 ? AF_INET : AF_INET6,
				       ASN1_STRING_get0_data(g->d.iPAddress), ip, sizeof(ip)))
				snprintf(ip, sizeof(ip), "?");
			off = rc_tls_append(buf, len, off, "IP:", ip, (int)strlen(ip));
		}
	}
	GENERAL_NAMES_free(sans);
	if (!off)
		snprintf(buf, len, "no name");
}

/* Runs for each certificate of the peer's chain; the leaf (depth 0) must be one of our names. */
static int rc_tls_verify_cb(int ok, X509_STORE_CTX *xs)
{
	SSL *ssl = X509_STORE_CTX_get_ex_data(xs, SSL_get_ex_data_X509_STORE_CTX_idx());
	struct rc_tls *x = ssl ? SSL_get_app_data(ssl) : NULL;
	char have[80], want[80];
	size_t off = 0;
	unsigned int i;
	X509 *cert;

	if (!ok || !x || X509_STORE_CTX_get_error_depth(xs) != 0)
		return ok;
	cert = X509_STORE_CTX_get_current_cert(xs);
	for (i = 0; i < x->nr_names; i++) {
		if (rc_tls_cert_is(cert, x->names[i])) {
			snprintf(x->t.peer_id, sizeof(x->t.peer_id), "%.63s", x->names[i]);
			return 1;
		}
	}
	want[0] = '\0';
	for (i = 0; i < x->nr_names && off < sizeof(want); i++)
		off +=
		    (size_t)snprintf(want + off, sizeof(want) - off, "%s%s",
				     i ? (i + 1 == x->nr_names ? " or " : ", ") : "", x->names[i]);
	rc_tls_cert_names(cert, have, sizeof(have));
	snprintf(x->id_error, sizeof(x->id_error), "its certificate (%s) is not %s", have,
		 x->nr_names ? want : "accepted: no peer name is configured");
	X509_STORE_CTX_set_error(xs, X509_V_ERR_HOSTNAME_MISMATCH);
	return 0;
}

/* Client: a NewSessionTicket arrived, sent by the server only after it accepted us. */
static int rc_tls_new_session_cb(SSL *ssl, SSL_SESSION *sess)
{
	struct rc_tls *x = SSL_get_app_data(ssl);

	if (x)
		x->ticket = true;
	return 0; /* not kept: nothing is ever resumed */
}

/* Server: tickets are issued (see above) but never honoured; every connection verifies anew. */
static SSL_TICKET_RETURN rc_tls_ticket_cb(SSL *s, SSL_SESSION *ss, const unsigned char *keyname,
					  size_t keyname_len, SSL_TICKET_STATUS status, void *arg)
{
	return SSL_TICKET_RETURN_IGNORE;
}

/* The oldest queued OpenSSL error as text, or fallback. Clears the queue. */
static const char *rc_tls_reason(unsigned long *code, const char *fallback)
{
	unsigned long e = ERR_get_error();
	const char *r = e ? ERR_reason_error_string(e) : NULL;

	ERR_clear_error();
	*code = e;
	return r ? r : fallback;
}

/* An alert about certificates: 42..49 (bad_certificate..access_denied), 116 (required). */
static bool rc_tls_cert_alert(int reason)
{
	int alert = reason - SSL_AD_REASON_OFFSET;

	return (alert >= 42 && alert <= 49) || alert == 116;
}

/*
 * Turns a fatal SSL error into a sticky -errno and a sentence in t->error:
 * "TLS handshake: certificate verify failed: certificate has expired".
 */
static int rc_tls_fail(struct rc_tls *x)
{
	const char *stage = x->established && !x->confirming ? "TLS" : "TLS handshake";
	unsigned long e;
	const char *why = rc_tls_reason(&e, "unknown error");
	int reason = ERR_GET_REASON(e), ret = -EPROTO;

	if (ERR_GET_LIB(e) == ERR_LIB_SSL && reason == SSL_R_CERTIFICATE_VERIFY_FAILED) {
		long vr = SSL_get_verify_result(x->ssl);

		snprintf(x->t.error, sizeof(x->t.error), "%s: certificate verify failed: %s", stage,
			 x->id_error[0] ? x->id_error : X509_verify_cert_error_string(vr));
		ret = -EACCES;
	} else if (ERR_GET_LIB(e) == ERR_LIB_SSL &&
		   reason == SSL_R_PEER_DID_NOT_RETURN_A_CERTIFICATE) {
		snprintf(x->t.error, sizeof(x->t.error), "%s: the peer sent no certificate", stage);
		ret = -EACCES;
	} else if (ERR_GET_LIB(e) == ERR_LIB_SSL && reason >= SSL_AD_REASON_OFFSET) {
		snprintf(x->t.error, sizeof(x->t.error),
			 "%s: refused by the peer: %s (the peer's log says why)", stage, why);
		if (rc_tls_cert_alert(reason))
			ret = -EACCES;
	} else if (ERR_GET_LIB(e) == ERR_LIB_SSL &&
		   (reason == SSL_R_WRONG_VERSION_NUMBER ||
		    reason == SSL_R_PACKET_LENGTH_TOO_LONG || reason == SSL_R_HTTP_REQUEST)) {
		snprintf(x->t.error, sizeof(x->t.error), "%s: %s (the peer does not speak TLS)",
			 stage, why);
	} else {
		snprintf(x->t.error, sizeof(x->t.error), "%s: %s", stage, why);
	}
	x->failed = ret;
	return ret;
}

static void rc_tls_update(struct rc_tls *x)
{
	if (!x->established && SSL_is_init_finished(x->ssl)) {
		x->established = true;
		x->t.handshaking = false;
	}
}

/* After an SSL call returned r <= 0: -EAGAIN to wait (want_write says for what), else -errno. */
static int rc_tls_io_error(struct rc_tls *x, int r, bool reading)
{
	int err = errno;

	switch (SSL_get_error(x->ssl, r)) {
	case SSL_ERROR_WANT_READ:
		return -EAGAIN;
	case SSL_ERROR_WANT_WRITE:
		x->want_write = true;
		return -EAGAIN;
	case SSL_ERROR_ZERO_RETURN:
		if (x->established)
			return reading ? 0 : -EPIPE;
		snprintf(x->t.error, sizeof(x->t.error),
			 "TLS handshake: the peer closed the connection (a peer without TLS does "
			 "that)");
		x->failed = -ECONNRESET;
		return x->failed;
	case SSL_ERROR_SYSCALL:
		ERR_clear_error();
		if (x->established && !x->confirming) {
			if (reading && !err)
				return 0; /* EOF without close_notify: a close all the same */
			snprintf(x->t.error, sizeof(x->t.error), "TLS: %s",
				 err ? strerror(err) : "the peer closed the connection");
		} else {
			snprintf(
			    x->t.error, sizeof(x->t.error), "TLS handshake: %s",
			    err ? strerror(err)
				: "the peer closed the connection (a peer without TLS does that)");
		}
		x->failed = err ? -err : -ECONNRESET;
		return x->failed;
	default:
		return rc_tls_fail(x);
	}
}

static ssize_t rc_tls_recv(struct rc_transport *t, void *buf, size_t len)
{
	struct rc_tls *x = (struct rc_tls *)t;
	size_t n = 0;
	int r;

	if (x->failed)
		return x->failed;
	x->want_write = false;
	ERR_clear_error();
	errno = 0; /* SSL_ERROR_SYSCALL at EOF leaves errno as it was */
	r = SSL_read_ex(x->ssl, buf, len, &n);
	rc_tls_update(x);
	return r == 1 ? (ssize_t)n : rc_tls_io_error(x, r, true);
}

static ssize_t rc_tls_send(struct rc_transport *t, const void *buf, size_t len)
{
	struct rc_tls *x = (struct rc_tls *)t;
	size_t n = 0;
	int r;

	if (x->failed)
		return x->failed;
	ERR_clear_error();
	errno = 0; /* SSL_ERROR_SYSCALL at EOF leaves errno as it was */
	r = SSL_write_ex(x->ssl, buf, len, &n);
	rc_tls_update(x);
	return r == 1 ? (ssize_t)n : rc_tls_io_error(x, r, false);
}

static bool rc_tls_want_write(const struct rc_transport *t)
{
	return ((const struct rc_tls *)t)->want_write;
}

/*
 * Output an SSL_read() could not write (handshake flight, session ticket, a
 * key update answer): the state machine is still "in init" for it, so
 * SSL_do_handshake() resumes exactly that write. Data of an SSL_write() that
 * would block stays with the caller, which retries it (rc_conn_flush()).
 */
static int rc_tls_flush(struct rc_transport *t)
{
	struct rc_tls *x = (struct rc_tls *)t;
	int r;

	if (x->failed)
		return x->failed;
	if (!x->want_write)
		return 0;
	x->want_write = false;
	if (x->established && !SSL_in_init(x->ssl))
		return 0;
	ERR_clear_error();
	errno = 0; /* SSL_ERROR_SYSCALL at EOF leaves errno as it was */
	r = SSL_do_handshake(x->ssl);
	rc_tls_update(x);
	if (r == 1)
		return 0;
	r = rc_tls_io_error(x, r, false);
	return r == -EAGAIN ? 0 : r;
}

/* What a close after a refusal reads away at most: a peer's last flight is a few KiB. */
#define RC_TLS_DRAIN_MAX (64 * 1024)

static void rc_tls_close(struct rc_transport *t)
{
	struct rc_tls *x = (struct rc_tls *)t;
	char sink[4096];

	if (x->ssl) {
		/* close_notify, best effort: never waits for the peer's. */
		if (x->established && !x->failed)
			SSL_shutdown(x->ssl);
		ERR_clear_error();
		SSL_free(x->ssl);
	}
	if (t->fd >= 0 && x->failed) {
		/*
		 * After a refusal the peer's last flight is often still unread here:
		 * closing over unread bytes sends a reset, which can overtake our
		 * alert and leave the peer with "connection reset" instead of the
		 * cause. Read them away first, never waiting and at most
		 * RC_TLS_DRAIN_MAX bytes: a peer that keeps sending must not hold the
		 * caller's loop (the agent's one thread, its lease timers).
		 */
		size_t drained = 0;
		ssize_t n;

		shutdown(t->fd, SHUT_WR);
		while (drained < RC_TLS_DRAIN_MAX &&
		       (n = recv(t->fd, sink, sizeof(sink), MSG_DONTWAIT)) > 0)
			drained += (size_t)n;
	}
	if (t->fd >= 0)
		close(t->fd);
	free(x);
}

static const struct rc_transport_ops rc_tls_ops = {
    .name = "tls",
    .recv = rc_tls_recv,
    .send = rc_tls_send,
    .close = rc_tls_close,
    .want_write = rc_tls_want_write,
    .flush = rc_tls_flush,
};

/* A transport around fd, not yet in either role. On failure fd is left to the caller. */
static int rc_tls_new(struct rc_tls_ctx *ctx, int fd, struct rc_tls **out)
{
	struct rc_tls *x = calloc(1, sizeof(*x));

	if (!x)
		return -ENOMEM;
	x->ssl = SSL_new(ctx->ssl);
	if (!x->ssl || !SSL_set_fd(x->ssl, fd)) {
		ERR_clear_error();
		SSL_free(x->ssl);
		free(x);
		return -ENOMEM;
	}
	SSL_set_app_data(x->ssl, x);
	rc_sock_prepare(fd, x->t.peer, sizeof(x->t.peer));
	x->t.ops = &rc_tls_ops;
	x->t.fd = fd;
	x->t.handshaking = true;
	*out = x;
	return 0;
}

int rc_tls_accept(struct rc_tls_ctx *ctx, int fd, struct rc_transport **out)
{
	struct rc_tls *x;
	int ret;

	if (!ctx->server)
		return -EINVAL;
	ret = rc_tls_new(ctx, fd, &x);
	if (ret)
		return ret;
	memcpy(x->names, ctx->names, sizeof(x->names));
	x->nr_names = ctx->nr_names;
	SSL_set_accept_state(x->ssl);
	*out = &x->t;
	return 0;
}

int rc_tls_client(struct rc_tls_ctx *ctx, int fd, const char *const *names, unsigned int nr,
		  int timeout_ms, struct rc_transport **out, char *err, size_t errlen)
{
	uint64_t deadline = rc_now_ns() + (uint64_t)timeout_ms * RC_NSEC_PER_MSEC;
	struct rc_tls *x = NULL;
	int ret;

	err[0] = '\0';
	if (ctx->server) {
		ret = -EINVAL;
		goto fail_fd;
	}
	ret = rc_tls_new(ctx, fd, &x);
	if (ret)
		goto fail_fd;
	for (x->nr_names = 0; x->nr_names < nr && x->nr_names < RC_TLS_MAX_NAMES; x->nr_names++)
		snprintf(x->names[x->nr_names], sizeof(x->names[0]), "%s", names[x->nr_names]);
	SSL_set_connect_state(x->ssl);
	/*
	 * Our handshake ends before the server has judged our certificate; wait
	 * until it sends its ticket (or an alert), so a refusal is a handshake
	 * error here and not a reset at the first request.
	 */
	while (!x->ticket) {
		struct pollfd pfd = {.fd = fd};
		uint64_t now;
		uint8_t b;
		size_t n;
		int r;

		ERR_clear_error();
		x->confirming = x->established;
		errno = 0; /* SSL_ERROR_SYSCALL at EOF leaves errno as it was */
		if (!x->established)
			r = SSL_do_handshake(x->ssl);
		else
			r = SSL_peek_ex(x->ssl, &b, 1, &n); /* processes the ticket, keeps data */
		rc_tls_update(x);
		if (x->ticket || (x->confirming && r == 1))
			break; /* data before a ticket: the server accepted us all the same */
		if (r != 1) {
			x->want_write = false;
			ret = rc_tls_io_error(x, r, false);
			if (ret != -EAGAIN)
				goto fail;
			pfd.events = x->want_write ? POLLOUT : POLLIN;
			x->want_write = false;
		} else {
			continue; /* handshake done: now wait for the ticket */
		}
		now = rc_now_ns();
		if (now >= deadline) {
			ret = -ETIMEDOUT;
			snprintf(x->t.error, sizeof(x->t.error),
				 "TLS handshake: no answer within %d ms", timeout_ms);
			goto fail;
		}
		r = poll(&pfd, 1, (int)((deadline - now) / RC_NSEC_PER_MSEC) + 1);
		if (r < 0 && errno != EINTR) {
			ret = -errno;
			snprintf(x->t.error, sizeof(x->t.error), "TLS handshake: poll: %s",
				 strerror(errno));
			goto fail;
		}
	}
	x->confirming = false;
	*out = &x->t;
	return 0;

fail:
	snprintf(err, errlen, "%s", x->t.error[0] ? x->t.error : strerror(-ret));
	x->failed = ret;
	rc_tls_close(&x->t);
	return ret;
fail_fd:
	snprintf(err, errlen, "TLS handshake: %s", strerror(-ret));
	close(fd);
	return ret;
}

int rc_tls_connect(struct rc_tls_ctx *ctx, const char *host, uint16_t port,
		   const char *const *names, unsigned int nr, int timeout_ms,
		   struct rc_transport **out, char *err, size_t errlen)
{
	uint64_t start = rc_now_ns();
	struct rc_transport *tcp;
	uint64_t spent_ms;
	int fd, ret;

	err[0] = '\0';
	ret = rc_tcp_connect(host, port, timeout_ms, &tcp);
	if (ret)
		return ret;
	fd = tcp->fd;
	tcp->fd = -1;
	tcp->ops->close(tcp);
	spent_ms = (rc_now_ns() - start) / RC_NSEC_PER_MSEC;
	return rc_tls_client(ctx, fd, names, nr,
			     spent_ms < (uint64_t)timeout_ms ? timeout_ms - (int)spent_ms : 1, out,
			     err, errlen);
}

/* Readable and a regular file, or a sentence saying why not (OpenSSL's own says little). */
static int rc_tls_check_file(const char *what, const char *path, char *err, size_t errlen)
{
	FILE *f;

	if (!path || !*path) {
		snprintf(err, errlen, "TLS: no %s file given", what);
		return -EINVAL;
	}
	f = fopen(path, "r");
	if (!f) {
		int e = errno;

		snprintf(err, errlen, "TLS: %s %s: %s", what, path, strerror(e));
		return -e;
	}
	fclose(f);
	return 0;
}

static void rc_tls_warn_expiry(SSL_CTX *ssl, const char *path)
{
	X509 *own = SSL_CTX_get0_certificate(ssl);
	const ASN1_TIME *na = own ? X509_get0_notAfter(own) : NULL;

	if (na && X509_cmp_current_time(na) <= 0) {
		BIO *b = BIO_new(BIO_s_mem());
		char when[64] = "?";
		int n;

		if (b && ASN1_TIME_print(b, na) && (n = BIO_read(b, when, sizeof(when) - 1)) > 0)
			when[n] = '\0';
		BIO_free(b);
		rc_warn("TLS: certificate %s expired (%s): every peer will refuse it", path, when);
	}
}

int rc_tls_ctx_new(const struct rc_tls_files *f, bool server, const char *const *peers,
		   unsigned int nr_peers, struct rc_tls_ctx **out, char *err, size_t errlen)
{
	struct rc_tls_ctx *ctx;
	unsigned long e;
	int ret, mode;

	err[0] = '\0';
	if (nr_peers > RC_TLS_MAX_NAMES) {
		snprintf(err, errlen, "TLS: more than %d peer names", RC_TLS_MAX_NAMES);
		return -EINVAL;
	}
	ret = rc_tls_check_file("CA certificate", f->ca, err, errlen);
	/* A client without certificate and key exists for tests of the refusal only. */
	if (!ret && (server || f->cert || f->key)) {
		ret = rc_tls_check_file("certificate", f->cert, err, errlen);
		if (!ret)
			ret = rc_tls_check_file("key", f->key, err, errlen);
	}
	if (ret)
		return ret;
	ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return -ENOMEM;
	ctx->server = server;
	for (ctx->nr_names = 0; ctx->nr_names < nr_peers; ctx->nr_names++)
		snprintf(ctx->names[ctx->nr_names], sizeof(ctx->names[0]), "%s",
			 peers[ctx->nr_names]);
	ERR_clear_error();
	ctx->ssl = SSL_CTX_new(server ? TLS_server_method() : TLS_client_method());
	if (!ctx->ssl || !SSL_CTX_set_min_proto_version(ctx->ssl, TLS1_3_VERSION)) {
		snprintf(err, errlen, "TLS: cannot set up OpenSSL: %s",
			 rc_tls_reason(&e, "out of memory"));
		ret = -ENOMEM;
		goto fail;
	}
	/* Our CA only: the system's trust store has no say over who runs drills. */
	if (SSL_CTX_load_verify_locations(ctx->ssl, f->ca, NULL) != 1) {
		snprintf(err, errlen, "TLS: CA certificate %s: %s", f->ca,
			 rc_tls_reason(&e, "not a PEM certificate"));
		ret = -EINVAL;
		goto fail;
	}
	if (f->cert && SSL_CTX_use_certificate_chain_file(ctx->ssl, f->cert) != 1) {
		snprintf(err, errlen, "TLS: certificate %s: %s", f->cert,
			 rc_tls_reason(&e, "not a PEM certificate"));
		ret = -EINVAL;
		goto fail;
	}
	if (f->key && SSL_CTX_use_PrivateKey_file(ctx->ssl, f->key, SSL_FILETYPE_PEM) != 1) {
		const char *why = rc_tls_reason(&e, "not a PEM private key");

		if (ERR_GET_REASON(e) == X509_R_KEY_VALUES_MISMATCH)
			snprintf(err, errlen, "TLS: key %s does not belong to certificate %s",
				 f->key, f->cert);
		else
			snprintf(err, errlen, "TLS: key %s: %s", f->key, why);
		ret = -EINVAL;
		goto fail;
	}
	if (f->cert && f->key && SSL_CTX_check_private_key(ctx->ssl) != 1) {
		snprintf(err, errlen, "TLS: key %s does not belong to certificate %s", f->key,
			 f->cert);
		ERR_clear_error();
		ret = -EINVAL;
		goto fail;
	}
	if (f->cert)
		rc_tls_warn_expiry(ctx->ssl, f->cert);
	/*
	 * Non-blocking sends that report each record (a partial write) and a
	 * queue that moves. No CA in what we send (every peer has it; a chain
	 * file brings intermediates), so a stranger's CA fails as "unable to get
	 * local issuer certificate", which says what is wrong.
	 */
	SSL_CTX_set_mode(ctx->ssl, SSL_MODE_ENABLE_PARTIAL_WRITE |
				       SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER |
				       SSL_MODE_NO_AUTO_CHAIN);
	SSL_CTX_set_options(ctx->ssl, SSL_OP_IGNORE_UNEXPECTED_EOF | SSL_OP_NO_RENEGOTIATION);
	mode = SSL_VERIFY_PEER;
	if (server) {
		mode |= SSL_VERIFY_FAIL_IF_NO_PEER_CERT;
		SSL_CTX_set_client_CA_list(ctx->ssl, SSL_load_client_CA_file(f->ca));
		SSL_CTX_set_session_id_context(ctx->ssl, (const unsigned char *)"rdmachaos", 9);
		SSL_CTX_set_session_cache_mode(ctx->ssl, SSL_SESS_CACHE_OFF);
		SSL_CTX_set_num_tickets(ctx->ssl, RC_TLS_TICKETS);
		SSL_CTX_set_session_ticket_cb(ctx->ssl, NULL, rc_tls_ticket_cb, NULL);
	} else {
		SSL_CTX_set_session_cache_mode(ctx->ssl, SSL_SESS_CACHE_CLIENT |
							     SSL_SESS_CACHE_NO_INTERNAL_STORE);
		SSL_CTX_sess_set_new_cb(ctx->ssl, rc_tls_new_session_cb);
	}
	SSL_CTX_set_verify(ctx->ssl, mode, rc_tls_verify_cb);
	ERR_clear_error();
	*out = ctx;
	return 0;
fail:
	rc_tls_ctx_free(ctx);
	return ret;
}

void rc_tls_ctx_free(struct rc_tls_ctx *ctx)
{
	if (!ctx)
		return;
	SSL_CTX_free(ctx->ssl); /* connections hold their own reference */
	free(ctx);
}
