/* SPDX-License-Identifier: MIT */
/*
 * Byte-stream transports under the protocol. Callers only see this ops table,
 * so a TLS transport can replace plain TCP without touching them. All
 * transports are non-blocking: recv/send return bytes moved, -EAGAIN when the
 * socket would block, 0 from recv on orderly close, or another -errno.
 */
#ifndef RC_TRANSPORT_H
#define RC_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct rc_transport;

struct rc_transport_ops {
	const char *name;
	ssize_t (*recv)(struct rc_transport *t, void *buf, size_t len);
	ssize_t (*send)(struct rc_transport *t, const void *buf, size_t len);
	void (*close)(struct rc_transport *t); /* also frees t */
};

struct rc_transport {
	const struct rc_transport_ops *ops;
	int fd;
	void *priv;
	char peer[64]; /* "127.0.0.1:7707", for messages */
};

/* Connects with a deadline; the result is non-blocking. */
int rc_tcp_connect(const char *host, uint16_t port, int timeout_ms, struct rc_transport **out);
/* Listening socket (SO_REUSEADDR, non-blocking) on addr ("0.0.0.0" or NULL for any). */
int rc_tcp_listen(const char *addr, uint16_t port, int *fd_out);
/* Wraps an accepted or connected fd (made non-blocking). */
int rc_tcp_wrap(int fd, struct rc_transport **out);

#endif
