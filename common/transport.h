/* SPDX-License-Identifier: MIT */
/*
 * Byte-stream transports under the protocol. Callers only see this ops table,
 * so TLS (common/tls.h) replaces plain TCP without touching them. All
 * transports are non-blocking: recv/send return bytes moved, -EAGAIN when the
 * socket would block, 0 from recv on orderly close, or another -errno.
 *
 * A transport may owe output of its own (a TLS handshake or post-handshake
 * record the socket did not take, possibly while the owner was reading):
 * want_write() then says so, the owner waits for POLLOUT, calls flush() (which
 * rc_conn_flush() does) and reads again, because the read that stopped for the
 * write may have left bytes in the socket that no new poll wakeup announces.
 */
#ifndef RC_TRANSPORT_H
#define RC_TRANSPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct rc_transport;

struct rc_transport_ops {
	const char *name;
	ssize_t (*recv)(struct rc_transport *t, void *buf, size_t len);
	ssize_t (*send)(struct rc_transport *t, const void *buf, size_t len);
	void (*close)(struct rc_transport *t); /* also frees t */
	/* Optional (NULL: never): the transport has output of its own pending. */
	bool (*want_write)(const struct rc_transport *t);
	/* Optional: moves that output; 0 (done, or it would block again) or -errno. */
	int (*flush)(struct rc_transport *t);
};

struct rc_transport {
	const struct rc_transport_ops *ops;
	int fd;
	void *priv;
	char peer[64];	  /* "127.0.0.1:7707", for messages */
	bool handshaking; /* TLS server side: no data moves until the handshake is done */
	char peer_id[64]; /* TLS: the peer certificate's name once verified, else "" */
	char error[256];  /* a sentence on the last failure when errno says too little, else "" */
};

/* Connects with a deadline; the result is non-blocking. */
int rc_tcp_connect(const char *host, uint16_t port, int timeout_ms, struct rc_transport **out);
/* Listening socket (SO_REUSEADDR, non-blocking) on addr ("0.0.0.0" or NULL for any). */
int rc_tcp_listen(const char *addr, uint16_t port, int *fd_out);
/* Wraps an accepted or connected fd (made non-blocking). */
int rc_tcp_wrap(int fd, struct rc_transport **out);
/* Makes fd non-blocking with TCP_NODELAY and writes its peer ("10.0.0.1:7707") into peer. */
void rc_sock_prepare(int fd, char *peer, size_t len);

#endif
