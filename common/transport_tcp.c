// SPDX-License-Identifier: MIT
/* Plain TCP transport: under TLS (common/transport_tls.c), and alone for loopback tests. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/transport.h"

static ssize_t rc_tcp_recv(struct rc_transport *t, void *buf, size_t len)
{
	ssize_t n = recv(t->fd, buf, len, MSG_DONTWAIT);

	return n < 0 ? -errno : n;
}

static ssize_t rc_tcp_send(struct rc_transport *t, const void *buf, size_t len)
{
	ssize_t n = send(t->fd, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL);

	return n < 0 ? -errno : n;
}

static void rc_tcp_close(struct rc_transport *t)
{
	if (t->fd >= 0)
		close(t->fd);
	free(t);
}

static const struct rc_transport_ops rc_tcp_ops = {
    .name = "tcp",
    .recv = rc_tcp_recv,
    .send = rc_tcp_send,
    .close = rc_tcp_close,
};

void rc_sock_prepare(int fd, char *peer, size_t len)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char host[INET6_ADDRSTRLEN] = "?", serv[8] = "?";
	int one = 1;

	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (!getpeername(fd, (struct sockaddr *)&ss, &sl))
		getnameinfo((struct sockaddr *)&ss, sl, host, sizeof(host), serv, sizeof(serv),
			    NI_NUMERICHOST | NI_NUMERICSERV);
	snprintf(peer, len, "%s:%s", host, serv);
}

int rc_tcp_wrap(int fd, struct rc_transport **out)
{
	struct rc_transport *t = calloc(1, sizeof(*t));

	if (!t)
		return -ENOMEM;
	rc_sock_prepare(fd, t->peer, sizeof(t->peer));
	t->ops = &rc_tcp_ops;
	t->fd = fd;
	*out = t;
	return 0;
}

int rc_tcp_connect(const char *host, uint16_t port, int timeout_ms, struct rc_transport **out)
{
	struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *ai, *a;
	char serv[8];
	int fd = -1, ret, err = -EHOSTUNREACH;

	snprintf(serv, sizeof(serv), "%u", port);
	ret = getaddrinfo(host, serv, &hints, &ai);
	if (ret)
		return -EHOSTUNREACH;
	for (a = ai; a; a = a->ai_next) {
		struct pollfd pfd;
		socklen_t sl = sizeof(err);
		int soerr = 0;

		fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (fd < 0) {
			err = -errno;
			continue;
		}
		if (connect(fd, a->ai_addr, a->ai_addrlen) && errno != EINPROGRESS) {
			err = -errno;
			goto next;
		}
		pfd = (struct pollfd){.fd = fd, .events = POLLOUT};
		ret = poll(&pfd, 1, timeout_ms);
		if (ret == 0) {
			err = -ETIMEDOUT;
			goto next;
		}
		if (ret < 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) || soerr) {
			err = soerr ? -soerr : -errno;
			goto next;
		}
		freeaddrinfo(ai);
		return rc_tcp_wrap(fd, out);
	next:
		close(fd);
		fd = -1;
	}
	freeaddrinfo(ai);
	return err;
}

int rc_tcp_listen(const char *addr, uint16_t port, int *fd_out)
{
	struct sockaddr_in sin = {.sin_family = AF_INET, .sin_port = htons(port)};
	int fd, one = 1;

	if (addr && inet_pton(AF_INET, addr, &sin.sin_addr) != 1)
		return -EINVAL;
	fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) || listen(fd, 128)) {
		int err = -errno;

		close(fd);
		return err;
	}
	*fd_out = fd;
	return 0;
}
