// SPDX-License-Identifier: MIT
/*
 * Mutual TLS (common/tls.h) end to end over socketpairs and loopback TCP,
 * with certificates made by common/pki.h: the handshake and a round trip
 * through rc_conn, and every refusal: no client certificate, a stranger's
 * CA on either side, expired certificates, the wrong identity on either
 * side, TLS 1.2, a plaintext peer, a silent peer.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <netinet/in.h>
#include <unistd.h>
#include <cmocka.h>

#include <openssl/err.h>
#include <openssl/ssl.h>

#include "common/conn.h"
#include "common/pki.h"
#include "common/tls.h"
#include "common/units.h"
#include "tests/unit/scratch_dir.h"

static char dir[256];

static void path(char *buf, size_t len, const char *name, const char *ext)
{
	snprintf(buf, len, "%s/%s.%s", dir, name, ext);
}

/* file: NAME.crt and NAME.key in dir; cn the certificate's identity. */
static void make_cert(const char *file, const char *cn, bool expired, bool ca, X509 *issuer,
		      EVP_PKEY *issuer_key)
{
	struct rc_pki_cert c = {.cn = cn, .days = 30, .expired = expired, .ca = ca};
	char p[512], err[256];
	EVP_PKEY *k = rc_pki_key_new();
	X509 *x = NULL;

	assert_non_null(k);
	if (!strcmp(cn, "node-a"))
		c.sans[c.nr_sans++] = "127.0.0.1";
	assert_int_equal(
	    rc_pki_issue(&c, k, issuer, issuer_key ? issuer_key : k, &x, err, sizeof(err)), 0);
	path(p, sizeof(p), file, "crt");
	assert_int_equal(rc_pki_write_cert(p, x, err, sizeof(err)), 0);
	path(p, sizeof(p), file, "key");
	assert_int_equal(rc_pki_write_key(p, k, err, sizeof(err)), 0);
	X509_free(x);
	EVP_PKEY_free(k);
}

static void load(const char *file, X509 **x, EVP_PKEY **k)
{
	char p[512], err[256];

	path(p, sizeof(p), file, "crt");
	assert_int_equal(rc_pki_read_cert(p, x, err, sizeof(err)), 0);
	path(p, sizeof(p), file, "key");
	assert_int_equal(rc_pki_read_key(p, k, err, sizeof(err)), 0);
}

static int setup(void **state)
{
	X509 *ca1, *ca2;
	EVP_PKEY *k1, *k2;

	signal(SIGPIPE, SIG_IGN);
	if (scratch_make(dir, sizeof(dir), "test-tls"))
		return -1;
	make_cert("ca1", "test CA 1", false, true, NULL, NULL);
	make_cert("ca2", "test CA 2", false, true, NULL, NULL);
	load("ca1", &ca1, &k1);
	load("ca2", &ca2, &k2);
	make_cert("coordinator", "coordinator", false, false, ca1, k1);
	make_cert("node-a", "node-a", false, false, ca1, k1);
	make_cert("node-a-expired", "node-a", true, false, ca1, k1);
	make_cert("coordinator-expired", "coordinator", true, false, ca1, k1);
	make_cert("intruder", "intruder", false, false, ca1, k1);
	make_cert("coordinator-ca2", "coordinator", false, false, ca2, k2);
	X509_free(ca1);
	X509_free(ca2);
	EVP_PKEY_free(k1);
	EVP_PKEY_free(k2);
	return 0;
}

static int teardown(void **state)
{
	return scratch_remove(dir);
}

/* A context for cert (NULL: none) trusting ca; server contexts accept `peer`. */
static struct rc_tls_ctx *ctx_for(const char *ca, const char *cert, bool server, const char *peer)
{
	char cap[512], crt[512], key[512], err[512];
	struct rc_tls_files f = {.ca = cap};
	struct rc_tls_ctx *ctx = NULL;

	path(cap, sizeof(cap), ca, "crt");
	if (cert) {
		path(crt, sizeof(crt), cert, "crt");
		path(key, sizeof(key), cert, "key");
		f.cert = crt;
		f.key = key;
	}
	if (rc_tls_ctx_new(&f, server, &peer, 1, &ctx, err, sizeof(err)))
		fail_msg("%s", err);
	return ctx;
}

/* The agent's side, in a thread: handshake, then answers every request with its own payload. */
struct srv {
	struct rc_tls_ctx *ctx;
	int fd;
	int ret; /* 0: handshake done, requests answered, then the client closed */
	bool established;
	char error[256], peer_id[64];
	unsigned int frames;
};

static int srv_frame(struct rc_conn *c, uint16_t type, json_t *msg, void *arg)
{
	struct srv *s = arg;
	json_t *resp =
	    json_pack("{s:O,s:b,s:O}", "id", json_object_get(msg, "id"), "ok", 1, "result", msg);

	s->frames++;
	rc_conn_send(c, RC_MSG_RESPONSE, resp);
	json_decref(resp);
	return 0;
}

static void *srv_main(void *arg)
{
	struct srv *s = arg;
	/* Only a guard against a hang: under ASan on a loaded host an exchange takes seconds. */
	uint64_t deadline = rc_now_ns() + 60 * RC_NSEC_PER_SEC;
	struct rc_transport *t;
	struct rc_conn c;

	s->ret = rc_tls_accept(s->ctx, s->fd, &t);
	if (s->ret)
		return NULL;
	rc_conn_init(&c, t);
	for (;;) {
		struct pollfd pfd = {.fd = s->fd, .events = POLLIN};
		int r;

		if (rc_conn_want_write(&c))
			pfd.events |= POLLOUT;
		if (rc_now_ns() > deadline) {
			s->ret = -ETIMEDOUT;
			break;
		}
		if (poll(&pfd, 1, 100) <= 0)
			continue;
		if (pfd.revents & POLLOUT) {
			r = rc_conn_flush(&c);
			if (r) {
				s->ret = r;
				break;
			}
		}
		r = rc_conn_read(&c, srv_frame, s);
		if (!t->handshaking && !s->established) {
			s->established = true;
			snprintf(s->peer_id, sizeof(s->peer_id), "%s", t->peer_id);
		}
		if (r < 0) {
			s->ret = r == -ECONNRESET && s->established ? 0 : r;
			break;
		}
	}
	snprintf(s->error, sizeof(s->error), "%s", t->error);
	rc_conn_close(&c);
	return NULL;
}

struct pair {
	struct srv srv;
	pthread_t thread;
	int cfd;
};

static void pair_start(struct pair *p, struct rc_tls_ctx *srv_ctx)
{
	int sv[2];

	memset(p, 0, sizeof(*p));
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	p->srv.ctx = srv_ctx;
	p->srv.fd = sv[1];
	p->cfd = sv[0];
	assert_int_equal(pthread_create(&p->thread, NULL, srv_main, &p->srv), 0);
}

static void pair_join(struct pair *p)
{
	pthread_join(p->thread, NULL);
}

/* Client cli_cert (trusting cli_ca) expects `expect` from server srv_cert (accepting `allow`). */
static int handshake(const char *cli_ca, const char *cli_cert, const char *expect,
		     const char *srv_ca, const char *srv_cert, const char *allow, struct pair *p,
		     char *err, size_t errlen)
{
	struct rc_tls_ctx *sctx = ctx_for(srv_ca, srv_cert, true, allow);
	struct rc_tls_ctx *cctx = ctx_for(cli_ca, cli_cert, false, NULL);
	struct rc_transport *t = NULL;
	int ret;

	pair_start(p, sctx);
	ret = rc_tls_client(cctx, p->cfd, &expect, 1, 30000, &t, err, errlen);
	if (!ret)
		t->ops->close(t);
	pair_join(p);
	rc_tls_ctx_free(cctx);
	rc_tls_ctx_free(sctx);
	return ret;
}

#define assert_has(s, sub)                                                                         \
	do {                                                                                       \
		if (!strstr((s), (sub)))                                                           \
			fail_msg("'%s' does not say '%s'", (s), (sub));                            \
	} while (0)

static void test_mutual_round_trip(void **state)
{
	struct rc_tls_ctx *sctx = ctx_for("ca1", "node-a", true, "coordinator");
	struct rc_tls_ctx *cctx = ctx_for("ca1", "coordinator", false, NULL);
	const char *expect = "node-a";
	struct rc_transport *t;
	json_t *req, *resp = NULL;
	struct rc_conn c;
	struct pair p;
	char err[512], *blob;
	int i;

	pair_start(&p, sctx);
	assert_int_equal(rc_tls_client(cctx, p.cfd, &expect, 1, 30000, &t, err, sizeof(err)), 0);
	assert_string_equal(t->peer_id, "node-a");
	assert_false(t->handshaking);
	rc_conn_init(&c, t);
	/* Bigger than a record and than a socket buffer: partial writes and many reads. */
	blob = malloc(300000);
	memset(blob, 'x', 299999);
	blob[299999] = '\0';
	for (i = 0; i < 3; i++) {
		req = json_pack("{s:s,s:s,s:i}", "op", "echo", "blob", blob, "n", i);
		assert_int_equal(rc_conn_call(&c, req, 60000, &resp, NULL, NULL), 0);
		assert_int_equal(
		    json_integer_value(json_object_get(json_object_get(resp, "result"), "n")), i);
		assert_int_equal(strlen(json_string_value(
				     json_object_get(json_object_get(resp, "result"), "blob"))),
				 299999);
		json_decref(resp);
		json_decref(req);
	}
	free(blob);
	rc_conn_close(&c);
	pair_join(&p);
	assert_int_equal(p.srv.ret, 0);
	assert_int_equal(p.srv.frames, 3);
	assert_string_equal(p.srv.peer_id, "coordinator");
	rc_tls_ctx_free(cctx);
	rc_tls_ctx_free(sctx);
}

static void test_client_without_cert(void **state)
{
	struct pair p;
	char err[512];

	assert_int_equal(
	    handshake("ca1", NULL, "node-a", "ca1", "node-a", "coordinator", &p, err, sizeof(err)),
	    -EACCES);
	assert_has(err, "TLS handshake: refused by the peer");
	assert_has(err, "certificate required");
	assert_int_equal(p.srv.ret, -EACCES);
	assert_has(p.srv.error, "TLS handshake: the peer sent no certificate");
}

static void test_client_of_another_ca(void **state)
{
	struct pair p;
	char err[512];

	assert_int_equal(handshake("ca1", "coordinator-ca2", "node-a", "ca1", "node-a",
				   "coordinator", &p, err, sizeof(err)),
			 -EACCES);
	assert_has(err, "unknown ca");
	assert_has(p.srv.error,
		   "certificate verify failed: unable to get local issuer certificate");
}

/*
 * recv() as a peer that never stops sending would make it, while `flood` is set: every
 * non-blocking read returns a full buffer (until a cap, so that a regression fails instead of
 * hanging).
 */
static volatile int flood;
static volatile long flood_reads;
ssize_t __real_recv(int fd, void *buf, size_t len, int flags);
ssize_t __wrap_recv(int fd, void *buf, size_t len, int flags);

ssize_t __wrap_recv(int fd, void *buf, size_t len, int flags)
{
	if (!flood || !(flags & MSG_DONTWAIT))
		return __real_recv(fd, buf, len, flags);
	if (__atomic_add_fetch(&flood_reads, 1, __ATOMIC_SEQ_CST) > 100000) {
		errno = EAGAIN;
		return -1;
	}
	memset(buf, 'x', len);
	return (ssize_t)len;
}

/*
 * Issue 13: after a refused handshake the close read the socket away until it was empty; a
 * peer that keeps sending held the caller (the agent's one loop thread) for as long as it
 * liked. Both sides' closes read a bounded amount.
 */
static void test_refusal_drain_bounded(void **state)
{
	struct pair p;
	char err[512];

	flood_reads = 0;
	flood = 1;
	assert_int_equal(handshake("ca1", "coordinator-ca2", "node-a", "ca1", "node-a",
				   "coordinator", &p, err, sizeof(err)),
			 -EACCES);
	flood = 0;
	if (flood_reads > 64)
		fail_msg("the closes after a refusal read %ld times from a peer that kept sending",
			 (long)flood_reads);
}

static void test_server_of_another_ca(void **state)
{
	struct pair p;
	char err[512];

	assert_int_equal(handshake("ca2", "coordinator-ca2", "node-a", "ca1", "node-a",
				   "coordinator", &p, err, sizeof(err)),
			 -EACCES);
	assert_string_equal(err, "TLS handshake: certificate verify failed: unable to get local "
				 "issuer certificate");
	assert_int_not_equal(p.srv.ret, 0);
}

static void test_expired_server(void **state)
{
	struct pair p;
	char err[512];

	assert_int_equal(handshake("ca1", "coordinator", "node-a", "ca1", "node-a-expired",
				   "coordinator", &p, err, sizeof(err)),
			 -EACCES);
	assert_string_equal(err,
			    "TLS handshake: certificate verify failed: certificate has expired");
	assert_has(p.srv.error, "certificate expired");
}

static void test_expired_client(void **state)
{
	struct pair p;
	char err[512];

	assert_int_equal(handshake("ca1", "coordinator-expired", "node-a", "ca1", "node-a",
				   "coordinator", &p, err, sizeof(err)),
			 -EACCES);
	assert_has(err, "certificate expired");
	assert_string_equal(p.srv.error,
			    "TLS handshake: certificate verify failed: certificate has expired");
}

static void test_wrong_server_identity(void **state)
{
	struct pair p;
	char err[512];

	assert_int_equal(handshake("ca1", "coordinator", "node-b", "ca1", "node-a", "coordinator",
				   &p, err, sizeof(err)),
			 -EACCES);
	assert_string_equal(err, "TLS handshake: certificate verify failed: its certificate "
				 "(CN=node-a, DNS:node-a, IP:127.0.0.1) is not node-b");
}

static void test_wrong_client_identity(void **state)
{
	struct pair p;
	char err[512];

	assert_int_equal(handshake("ca1", "intruder", "node-a", "ca1", "node-a", "coordinator", &p,
				   err, sizeof(err)),
			 -EACCES);
	assert_has(err, "refused by the peer");
	assert_string_equal(p.srv.error, "TLS handshake: certificate verify failed: its "
					 "certificate (CN=intruder, DNS:intruder) is not "
					 "coordinator");
}

static void test_address_identity(void **state)
{
	struct pair p;
	char err[512];

	/* A client that knows only the address accepts a certificate with that SAN IP. */
	assert_int_equal(handshake("ca1", "coordinator", "127.0.0.1", "ca1", "node-a",
				   "coordinator", &p, err, sizeof(err)),
			 0);
	assert_int_equal(p.srv.ret, 0);
	assert_int_equal(handshake("ca1", "coordinator", "127.0.0.2", "ca1", "node-a",
				   "coordinator", &p, err, sizeof(err)),
			 -EACCES);
	assert_has(err, "is not 127.0.0.2");
}

static void test_tls12_refused(void **state)
{
	struct rc_tls_ctx *sctx = ctx_for("ca1", "node-a", true, "coordinator");
	SSL_CTX *old = SSL_CTX_new(TLS_client_method());
	struct pair p;
	SSL *ssl;

	SSL_CTX_set_max_proto_version(old, TLS1_2_VERSION);
	pair_start(&p, sctx);
	ssl = SSL_new(old);
	SSL_set_fd(ssl, p.cfd);
	assert_true(SSL_connect(ssl) <= 0); /* blocking: the server answers with an alert */
	ERR_clear_error();
	SSL_free(ssl);
	close(p.cfd);
	pair_join(&p);
	SSL_CTX_free(old);
	assert_int_equal(p.srv.ret, -EPROTO);
	assert_has(p.srv.error, "TLS handshake: unsupported protocol");
	rc_tls_ctx_free(sctx);
}

static void test_plaintext_client(void **state)
{
	struct rc_tls_ctx *sctx = ctx_for("ca1", "node-a", true, "coordinator");
	static const char frame[] = "RCHP\x00\x01\x00\x01\x00\x00\x00\x01\x00\x00\x00\x02{}";
	struct pair p;

	pair_start(&p, sctx);
	assert_int_equal(write(p.cfd, frame, sizeof(frame) - 1), (ssize_t)sizeof(frame) - 1);
	pair_join(&p);
	close(p.cfd);
	assert_int_equal(p.srv.ret, -EPROTO);
	assert_has(p.srv.error, "the peer does not speak TLS");
	rc_tls_ctx_free(sctx);
}

static void test_plaintext_server(void **state)
{
	struct rc_tls_ctx *cctx = ctx_for("ca1", "coordinator", false, NULL);
	const char *expect = "node-a";
	struct rc_transport *t;
	char err[512], buf[512];
	int sv[2];

	/* A peer that reads the ClientHello as a bad frame and closes, as a plaintext agent does.
	 */
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	shutdown(sv[1], SHUT_WR);
	assert_int_equal(rc_tls_client(cctx, sv[0], &expect, 1, 30000, &t, err, sizeof(err)),
			 -ECONNRESET);
	assert_has(err, "TLS handshake: the peer closed the connection");
	assert_true(read(sv[1], buf, sizeof(buf)) > 0); /* it did send a ClientHello */
	close(sv[1]);
	rc_tls_ctx_free(cctx);
}

static void test_silent_server_times_out(void **state)
{
	struct rc_tls_ctx *cctx = ctx_for("ca1", "coordinator", false, NULL);
	const char *expect = "node-a";
	struct rc_transport *t;
	uint64_t t0 = rc_now_ns();
	char err[512];
	int sv[2];

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	assert_int_equal(rc_tls_client(cctx, sv[0], &expect, 1, 300, &t, err, sizeof(err)),
			 -ETIMEDOUT);
	assert_string_equal(err, "TLS handshake: no answer within 300 ms");
	assert_true(rc_now_ns() - t0 < 30 * RC_NSEC_PER_SEC); /* bounded, however busy the host */
	close(sv[1]);
	rc_tls_ctx_free(cctx);
}

/*
 * rc_tls_connect() over loopback TCP, accept(2) in the server thread. The listener is
 * non-blocking (rc_tcp_listen): wait for the client first, or a busy host that runs this
 * thread before the client connects gets EAGAIN, and the client then finds nobody listening.
 */
static void *accept_main(void *arg)
{
	struct srv *s = arg;
	int lfd = s->fd;
	struct pollfd pfd = {.fd = lfd, .events = POLLIN};

	if (poll(&pfd, 1, 30000) != 1) {
		s->ret = -ETIMEDOUT;
		close(lfd);
		s->fd = -1;
		return NULL;
	}
	s->fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	close(lfd);
	if (s->fd < 0) {
		s->ret = -errno;
		return NULL;
	}
	return srv_main(s);
}

static void test_connect_over_tcp(void **state)
{
	struct rc_tls_ctx *sctx = ctx_for("ca1", "node-a", true, "coordinator");
	struct rc_tls_ctx *cctx = ctx_for("ca1", "coordinator", false, NULL);
	const char *names[] = {"node-a", "127.0.0.1"};
	struct sockaddr_in sin;
	socklen_t sl = sizeof(sin);
	struct rc_transport *t;
	struct pair p;
	char err[512];
	int lfd;

	memset(&p, 0, sizeof(p));
	assert_int_equal(rc_tcp_listen("127.0.0.1", 0, &lfd), 0);
	assert_int_equal(getsockname(lfd, (struct sockaddr *)&sin, &sl), 0);
	p.srv.ctx = sctx;
	p.srv.fd = lfd;
	assert_int_equal(pthread_create(&p.thread, NULL, accept_main, &p.srv), 0);
	assert_int_equal(rc_tls_connect(cctx, "127.0.0.1", ntohs(sin.sin_port), names, 2, 30000, &t,
					err, sizeof(err)),
			 0);
	assert_string_equal(t->peer_id, "node-a");
	t->ops->close(t);
	pair_join(&p);
	assert_int_equal(p.srv.ret, 0);
	rc_tls_ctx_free(cctx);
	rc_tls_ctx_free(sctx);
}

static void test_ctx_errors(void **state)
{
	char ca[512], crt[512], key[512], err[512];
	struct rc_tls_files f = {.ca = ca, .cert = crt, .key = key};
	struct rc_tls_ctx *ctx = NULL;

	path(ca, sizeof(ca), "ca1", "crt");
	path(crt, sizeof(crt), "node-a", "crt");
	path(key, sizeof(key), "missing", "key");
	assert_int_equal(rc_tls_ctx_new(&f, true, NULL, 0, &ctx, err, sizeof(err)), -ENOENT);
	assert_has(err, "TLS: key ");
	assert_has(err, "missing.key: No such file or directory");
	path(key, sizeof(key), "intruder", "key");
	assert_int_equal(rc_tls_ctx_new(&f, true, NULL, 0, &ctx, err, sizeof(err)), -EINVAL);
	assert_has(err, "does not belong to certificate");
	f.ca = key; /* a key is not a certificate */
	path(key, sizeof(key), "node-a", "key");
	assert_int_equal(rc_tls_ctx_new(&f, true, NULL, 0, &ctx, err, sizeof(err)), -EINVAL);
	assert_has(err, "TLS: CA certificate");
	f.ca = ca;
	f.cert = NULL;
	assert_int_equal(rc_tls_ctx_new(&f, true, NULL, 0, &ctx, err, sizeof(err)), -EINVAL);
	assert_has(err, "no certificate file given");
}

static void test_key_file_mode(void **state)
{
	char p[512];
	struct stat st;

	path(p, sizeof(p), "node-a", "key");
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	path(p, sizeof(p), "node-a", "crt");
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);
}

static void test_loopback(void **state)
{
	assert_true(rc_addr_is_loopback("127.0.0.1"));
	assert_true(rc_addr_is_loopback("127.1.2.3"));
	assert_true(rc_addr_is_loopback("::1"));
	assert_true(rc_addr_is_loopback("::ffff:127.0.0.1"));
	assert_false(rc_addr_is_loopback("0.0.0.0"));
	assert_false(rc_addr_is_loopback("10.0.0.1"));
	assert_false(rc_addr_is_loopback("128.0.0.1"));
	assert_false(rc_addr_is_loopback("localhost"));
	assert_false(rc_addr_is_loopback("::"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_mutual_round_trip),
	    cmocka_unit_test(test_client_without_cert),
	    cmocka_unit_test(test_client_of_another_ca),
	    cmocka_unit_test(test_refusal_drain_bounded),
	    cmocka_unit_test(test_server_of_another_ca),
	    cmocka_unit_test(test_expired_server),
	    cmocka_unit_test(test_expired_client),
	    cmocka_unit_test(test_wrong_server_identity),
	    cmocka_unit_test(test_wrong_client_identity),
	    cmocka_unit_test(test_address_identity),
	    cmocka_unit_test(test_tls12_refused),
	    cmocka_unit_test(test_plaintext_client),
	    cmocka_unit_test(test_plaintext_server),
	    cmocka_unit_test(test_silent_server_times_out),
	    cmocka_unit_test(test_connect_over_tcp),
	    cmocka_unit_test(test_ctx_errors),
	    cmocka_unit_test(test_key_file_mode),
	    cmocka_unit_test(test_loopback),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
