// SPDX-License-Identifier: MIT
/*
 * Coordinator connections: the listening socket, one struct agent_client per
 * accepted connection (frames in through rc_conn, responses and events out),
 * and the fan-out of events to every subscribed connection.
 */
#include <errno.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "agents/agent.h"
#include "common/transport.h"
#include "common/units.h"

static bool agent_sockaddr_same(const struct sockaddr *x, const struct sockaddr *y)
{
	if (!x || !y || x->sa_family != y->sa_family)
		return false;
	if (x->sa_family == AF_INET)
		return ((const struct sockaddr_in *)x)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)y)->sin_addr.s_addr;
	if (x->sa_family == AF_INET6)
		return !memcmp(&((const struct sockaddr_in6 *)x)->sin6_addr,
			       &((const struct sockaddr_in6 *)y)->sin6_addr,
			       sizeof(struct in6_addr));
	return false;
}

/* The interface that owns the local address of a connected socket: its control interface. */
static int agent_socket_ifname(int fd, char *ifname, size_t len)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	struct ifaddrs *ifs, *i;
	int ret = -ENODEV;

	if (getsockname(fd, (struct sockaddr *)&ss, &sl))
		return -errno;
	if (getifaddrs(&ifs))
		return -errno;
	for (i = ifs; i; i = i->ifa_next) {
		if (agent_sockaddr_same(i->ifa_addr, (struct sockaddr *)&ss)) {
			snprintf(ifname, len, "%s", i->ifa_name);
			ret = 0;
			break;
		}
	}
	freeifaddrs(ifs);
	return ret;
}

void agent_client_get(struct agent_client *cl)
{
	cl->refs++;
}

void agent_client_put(struct agent_client *cl)
{
	if (--cl->refs > 0)
		return;
	rc_conn_close(&cl->conn);
	free(cl);
}

static void agent_client_close(struct agent_client *cl, const char *why)
{
	if (cl->closing)
		return;
	rc_info("coordinator %s: closed: %s", cl->conn.t->peer, why);
	cl->closing = true;
	agent_list_del(&cl->node);
	agent_poll_stop(&cl->rd);
	agent_poll_stop(&cl->wr);
	agent_client_put(cl); /* the open reference; the polls' follow from their idle() */
}

static int agent_client_send(struct agent_client *cl, uint16_t type, json_t *msg)
{
	int ret;

	if (cl->closing)
		return -EPIPE;
	ret = rc_conn_send(&cl->conn, type, msg);
	if (ret == -ENOBUFS) {
		rc_warn("coordinator %s: more than its output limit is queued: dropping it",
			cl->conn.t->peer);
		agent_client_close(cl, "too slow to read its events");
		return ret;
	}
	if (ret) {
		agent_client_close(cl, strerror(-ret));
		return ret;
	}
	if (rc_conn_want_write(&cl->conn))
		agent_poll_arm(&cl->wr);
	return 0;
}

void agent_client_respond(struct agent_client *cl, json_t *resp)
{
	if (cl && resp)
		agent_client_send(cl, RC_MSG_RESPONSE, resp);
	json_decref(resp);
}

static int agent_client_frame(struct rc_conn *c, uint16_t type, json_t *msg, void *arg)
{
	struct agent_client *cl = arg;
	json_t *resp;

	if (cl->closing)
		return 1;
	resp = agent_request(cl->a, cl, type, msg);
	agent_client_respond(cl, resp);
	return cl->closing ? 1 : 0;
}

static void agent_client_readable(struct agent_poll *p, int res)
{
	struct agent_client *cl = agent_container_of(p, struct agent_client, rd);
	int ret;

	if (res < 0) {
		agent_client_close(cl, strerror(-res));
		return;
	}
	/* A request may close cl; hold it so the checks below stay valid. */
	agent_client_get(cl);
	ret = rc_conn_read(&cl->conn, agent_client_frame, cl);
	if (ret == -ECONNRESET)
		agent_client_close(cl, "peer closed the connection");
	else if (ret == -EPROTO || ret == -EPROTONOSUPPORT || ret == -EMSGSIZE)
		agent_client_close(cl, "protocol error (bad frame or payload not a JSON object)");
	else if (ret < 0)
		agent_client_close(cl, strerror(-ret));
	agent_client_put(cl);
}

static void agent_client_writable(struct agent_poll *p, int res)
{
	struct agent_client *cl = agent_container_of(p, struct agent_client, wr);
	int ret = res < 0 ? res : rc_conn_flush(&cl->conn);

	if (ret) {
		agent_client_close(cl, strerror(-ret));
		return;
	}
	if (rc_conn_want_write(&cl->conn))
		agent_poll_arm(&cl->wr);
}

static void agent_client_rd_idle(struct agent_poll *p)
{
	agent_client_put(agent_container_of(p, struct agent_client, rd));
}

static void agent_client_wr_idle(struct agent_poll *p)
{
	agent_client_put(agent_container_of(p, struct agent_client, wr));
}

static void agent_client_accept(struct agent *a, int fd)
{
	struct rc_transport *t;
	struct agent_client *cl;
	int ret;

	ret = rc_tcp_wrap(fd, &t);
	if (ret) {
		close(fd);
		rc_err("accept: %s", strerror(-ret));
		return;
	}
	cl = calloc(1, sizeof(*cl));
	if (!cl || rc_conn_init(&cl->conn, t)) {
		rc_err("accept: %s: out of memory", t->peer);
		t->ops->close(t);
		free(cl);
		return;
	}
	cl->a = a;
	cl->refs = 3; /* open, rd, wr */
	agent_list_add_tail(&cl->node, &a->clients);
	agent_poll_init(&cl->rd, &a->loop, fd, POLLIN, false, agent_client_readable,
			agent_client_rd_idle);
	agent_poll_init(&cl->wr, &a->loop, fd, POLLOUT, true, agent_client_writable,
			agent_client_wr_idle);
	ret = agent_socket_ifname(fd, cl->ifname, sizeof(cl->ifname));
	if (ret) {
		/* Not fatal, but say so: the carrier cannot be protected by name. */
		rc_warn("coordinator %s: cannot tell which interface carries it (%s); "
			"name it with --control-if",
			t->peer, strerror(-ret));
	} else if (agent_policy_add_carrier(&a->policy, cl->ifname)) {
		agent_client_close(cl, "too many control interfaces to remember");
		return;
	}
	rc_info("coordinator %s: connected over %s", t->peer, cl->ifname[0] ? cl->ifname : "?");
	ret = agent_poll_arm(&cl->rd);
	if (ret)
		agent_client_close(cl, strerror(-ret));
}

static void agent_listen_ready(struct agent_poll *p, int res)
{
	struct agent *a = agent_container_of(p, struct agent, listen_poll);

	if (res < 0) {
		rc_err("listen: poll: %s", strerror(-res));
		return;
	}
	for (;;) {
		int fd = accept4(a->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd < 0) {
			if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR &&
			    errno != ECONNABORTED)
				rc_warn("listen: accept: %s", strerror(errno));
			if (errno == ECONNABORTED || errno == EINTR)
				continue;
			return;
		}
		agent_client_accept(a, fd);
	}
}

int agent_server_start(struct agent *a)
{
	const char *host = a->opts.listen_host;
	int ret;

	ret = rc_tcp_listen(strcmp(host, "0.0.0.0") ? host : NULL, a->opts.listen_port,
			    &a->listen_fd);
	if (ret) {
		rc_err("--listen %s:%u: %s", host, a->opts.listen_port, strerror(-ret));
		return ret;
	}
	agent_poll_init(&a->listen_poll, &a->loop, a->listen_fd, POLLIN, false, agent_listen_ready,
			NULL);
	return agent_poll_arm(&a->listen_poll);
}

void agent_server_stop(struct agent *a)
{
	struct agent_list *pos, *tmp;

	agent_list_for_each_safe(pos, tmp, &a->clients)
	{
		struct agent_client *cl = agent_list_entry(pos, struct agent_client, node);

		rc_conn_flush(&cl->conn); /* best effort: the last events and responses */
		agent_client_close(cl, "agent stopping");
	}
	if (a->listen_fd >= 0)
		close(a->listen_fd);
	a->listen_fd = -1;
}

void agent_emit_at(struct agent *a, const char *kind, uint64_t ts_ns, json_t *fields)
{
	json_t *ev = json_object();
	struct agent_list *pos, *tmp;

	if (!ev) {
		json_decref(fields);
		return;
	}
	json_object_set_new(ev, "kind", json_string(kind));
	json_object_set_new(ev, "ts_ns", json_integer((json_int_t)ts_ns));
	json_object_set_new(ev, "node", json_string(a->opts.name));
	if (fields)
		json_object_update_missing(ev, fields);
	json_decref(fields);
	if (rc_log_get_level() >= RC_LOG_DEBUG) {
		char *text = json_dumps(ev, JSON_COMPACT);

		rc_dbg("event %s", text ? text : kind);
		free(text);
	}
	agent_list_for_each_safe(pos, tmp, &a->clients)
	{
		struct agent_client *cl = agent_list_entry(pos, struct agent_client, node);

		if (cl->subscribed)
			agent_client_send(cl, RC_MSG_EVENT, ev);
	}
	json_decref(ev);
}

void agent_emit(struct agent *a, const char *kind, json_t *fields)
{
	agent_emit_at(a, kind, rc_now_ns(), fields);
}

void agent_notice(struct agent *a, enum rc_log_level level, const char *fmt, ...)
{
	static const char *const names[] = {"error", "warning", "info", "debug"};
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	rc_log(level, "%s", msg);
	agent_emit(a, "agent", json_pack("{s:s, s:s}", "message", msg, "level", names[level]));
}
