// SPDX-License-Identifier: MIT
/*
 * Coordinator connections: the listening socket, one struct agent_client per
 * accepted connection (mutual TLS, then frames in through rc_conn, responses
 * and events out), and the fan-out of events to every subscribed connection.
 */
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "agents/agent.h"
#include "common/tls.h"
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

static void agent_client_get(struct agent_client *cl)
{
	cl->refs++;
}

static void agent_client_put(struct agent_client *cl)
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
	agent_workloads_orphaned(cl->a, cl->serial);
	agent_timer_cancel(&cl->tls_timer);
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

/* Sends a response (stolen) unless the connection has closed meanwhile. */
static void agent_client_respond(struct agent_client *cl, json_t *resp)
{
	if (cl && resp)
		agent_client_send(cl, RC_MSG_RESPONSE, resp);
	json_decref(resp);
}

void agent_server_hold(struct agent_client *cl)
{
	agent_client_get(cl);
}

void agent_server_answer(struct agent_client *cl, json_t *resp)
{
	agent_client_respond(cl, resp);
	agent_client_put(cl);
}

static int agent_client_frame(struct rc_conn *c, uint16_t type, json_t *msg, void *arg)
{
	struct agent_client *cl = arg;
	json_t *resp;

	if (cl->closing)
		return 1;
	cl->framed = true;
	/* Frames only flow once the handshake is done: the identity is known by now. */
	if (!cl->peer_id[0] && c->t->peer_id[0])
		snprintf(cl->peer_id, sizeof(cl->peer_id), "%s", c->t->peer_id);
	resp = agent_request(cl->a, cl, type, msg);
	agent_client_respond(cl, resp);
	return cl->closing ? 1 : 0;
}

/* Reads what there is; also the end of a TLS handshake and any output it owes. */
static void agent_client_drain(struct agent_client *cl)
{
	struct rc_transport *t = cl->conn.t;
	int ret;

	/* A request may close cl; hold it so the checks below stay valid. */
	agent_client_get(cl);
	ret = rc_conn_read(&cl->conn, agent_client_frame, cl);
	if (ret == -ECONNRESET)
		agent_client_close(cl, "peer closed the connection");
	else if (ret == -EPROTO && t->error[0])
		agent_client_close(cl, t->error);
	else if (ret == -EPROTO || ret == -EPROTONOSUPPORT || ret == -EMSGSIZE)
		agent_client_close(cl, "protocol error (bad frame or payload not a JSON object)");
	else if (ret < 0)
		agent_client_close(cl, t->error[0] ? t->error : strerror(-ret));
	if (!cl->closing && cl->tls_timer.pending && !t->handshaking &&
	    (cl->a->tls || cl->framed)) {
		agent_timer_cancel(&cl->tls_timer);
		if (cl->a->tls)
			rc_info("coordinator %s: TLS established, peer %s", t->peer, t->peer_id);
	}
	if (!cl->closing && rc_conn_want_write(&cl->conn))
		agent_poll_arm(&cl->wr);
	agent_client_put(cl);
}

static void agent_client_readable(struct agent_poll *p, int res)
{
	struct agent_client *cl = agent_container_of(p, struct agent_client, rd);

	if (res < 0) {
		agent_client_close(cl, strerror(-res));
		return;
	}
	agent_client_drain(cl);
}

static void agent_client_writable(struct agent_poll *p, int res)
{
	struct agent_client *cl = agent_container_of(p, struct agent_client, wr);
	bool owed = !res && cl->conn.t->ops->want_write && cl->conn.t->ops->want_write(cl->conn.t);
	int ret = res < 0 ? res : rc_conn_flush(&cl->conn);

	if (ret) {
		agent_client_close(cl, cl->conn.t->error[0] ? cl->conn.t->error : strerror(-ret));
		return;
	}
	/*
	 * A read that stopped to let the transport write may have left bytes in
	 * the socket, and the multishot poll reports arrivals, not levels.
	 */
	if (owed) {
		agent_client_drain(cl);
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

/*
 * A coordinator that connects but never finishes its TLS handshake is not kept waiting for; in
 * plaintext (loopback tests), one that sends no whole request.
 */
static void agent_client_tls_late(struct agent_timer *tm)
{
	struct agent_client *cl = agent_container_of(tm, struct agent_client, tls_timer);
	char why[64];

	snprintf(why, sizeof(why), "no %s within %d ms", cl->a->tls ? "TLS handshake" : "request",
		 AGENT_TLS_HANDSHAKE_MS);
	agent_client_close(cl, why);
}

static void agent_client_accept(struct agent *a, int fd)
{
	struct rc_transport *t;
	struct agent_client *cl;
	int ret;

	ret = a->tls ? rc_tls_accept(a->tls, fd, &t) : rc_tcp_wrap(fd, &t);
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
	cl->serial = ++a->last_serial;
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
	rc_info("coordinator %s: connected over %s%s", t->peer, cl->ifname[0] ? cl->ifname : "?",
		a->tls ? ", TLS handshake" : " (plaintext)");
	cl->tls_timer.fire = agent_client_tls_late;
	agent_timer_set(&a->loop, &cl->tls_timer,
			rc_now_ns() + AGENT_TLS_HANDSHAKE_MS * RC_NSEC_PER_MSEC);
	ret = agent_poll_arm(&cl->rd);
	if (ret)
		agent_client_close(cl, strerror(-ret));
}

/*
 * Counts a connection closed unserved, and says so at most once a second (a flood must not
 * flood the log): how many, and why the last one was.
 */
static void agent_shed(struct agent *a, const char *why)
{
	uint64_t now = rc_now_ns();

	a->shed++;
	a->shed_total++;
	if (now - a->shed_logged_ns < RC_NSEC_PER_SEC)
		return;
	rc_warn("listen: shedding connections: %llu closed unserved since the last report "
		"(%llu in all), the last because %s",
		(unsigned long long)a->shed, (unsigned long long)a->shed_total, why);
	a->shed = 0;
	a->shed_logged_ns = now;
}

/* Out of descriptors: the reserved one makes room to accept one connection and close it. */
static bool agent_shed_one(struct agent *a, const char *why)
{
	int fd;

	if (a->reserve_fd < 0)
		return false;
	close(a->reserve_fd);
	fd = accept4(a->listen_fd, NULL, NULL, SOCK_CLOEXEC);
	if (fd >= 0) {
		close(fd);
		agent_shed(a, why);
	}
	a->reserve_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	return fd >= 0;
}

/* Makes room for one more handshake: the oldest one still shaking hands goes. */
static bool agent_room_to_shake(struct agent *a)
{
	struct agent_client *oldest = NULL;
	struct agent_list *pos, *tmp;
	unsigned int open = 0, shaking = 0;

	agent_list_for_each_safe(pos, tmp, &a->clients)
	{
		struct agent_client *cl = agent_list_entry(pos, struct agent_client, node);

		open++;
		if (cl->tls_timer.pending) {
			shaking++;
			if (!oldest)
				oldest = cl; /* the list is in accept order */
		}
	}
	if (oldest && (shaking >= AGENT_MAX_HANDSHAKES || open >= AGENT_MAX_CLIENTS)) {
		agent_shed(a, "a cap was reached (the oldest handshake made room)");
		agent_client_close(oldest, "evicted: too many connections at once, its TLS "
					   "handshake the oldest");
		return true;
	}
	return open < AGENT_MAX_CLIENTS;
}

static void agent_accept_retry(struct agent_timer *t);

static void agent_accept_all(struct agent *a)
{
	for (;;) {
		int fd = accept4(a->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd < 0) {
			int e = errno;

			if (e == ECONNABORTED || e == EINTR)
				continue;
			if (e == EAGAIN || e == EWOULDBLOCK)
				return;
			if ((e == EMFILE || e == ENFILE) &&
			    agent_shed_one(a, "the agent is out of file descriptors"))
				continue;
			/*
			 * The queue may stay full, and a full queue brings no new wake-up:
			 * try again soon whatever happened.
			 */
			if (!a->accept_retry.pending) {
				rc_warn("listen: accept: %s; retrying every %d ms", strerror(e),
					AGENT_ACCEPT_RETRY_MS);
				a->accept_retry.fire = agent_accept_retry;
				agent_timer_set(&a->loop, &a->accept_retry,
						rc_now_ns() +
						    AGENT_ACCEPT_RETRY_MS * RC_NSEC_PER_MSEC);
			}
			return;
		}
		if (!agent_room_to_shake(a)) {
			close(fd);
			agent_shed(a, "the connection cap was reached");
			continue;
		}
		agent_client_accept(a, fd);
	}
}

static void agent_accept_retry(struct agent_timer *t)
{
	struct agent *a = agent_container_of(t, struct agent, accept_retry);

	if (a->listen_fd >= 0)
		agent_accept_all(a);
}

static void agent_listen_ready(struct agent_poll *p, int res)
{
	struct agent *a = agent_container_of(p, struct agent, listen_poll);

	if (res < 0) {
		rc_err("listen: poll: %s", strerror(-res));
		return;
	}
	agent_accept_all(a);
}

/* The TLS context from --tls-dir and the --tls-* files; nothing with --insecure-plaintext. */
static int agent_tls_start(struct agent *a)
{
	const struct agent_opts *o = &a->opts;
	static const char *const def_peers[] = {RC_TLS_COORDINATOR};
	const char *peers[AGENT_MAX_PEERS];
	char ca[4096], cert[4096], key[4096], err[1024];
	struct rc_tls_files f = {.ca = ca, .cert = cert, .key = key};
	unsigned int i;
	int ret;

	if (o->insecure_plaintext) {
		rc_warn("--insecure-plaintext: coordinator connections on %s are neither encrypted "
			"nor authenticated (tests only)",
			o->listen_host);
		return 0;
	}
	if (!o->tls_dir[0] && !o->tls_cert[0]) {
		rc_err("no TLS credentials: give --tls-dir DIR (DIR/ca.crt, DIR/%s.crt, "
		       "DIR/%s.key; `rdmachaos certs` makes them), or --tls-cert, --tls-key and "
		       "--tls-ca; plaintext only with --insecure-plaintext on a loopback --listen",
		       o->name, o->name);
		return -EINVAL;
	}
	snprintf(ca, sizeof(ca), "%s", o->tls_ca);
	snprintf(cert, sizeof(cert), "%s", o->tls_cert);
	snprintf(key, sizeof(key), "%s", o->tls_key);
	if (!ca[0] && snprintf(ca, sizeof(ca), "%.4000s/%s", o->tls_dir, RC_TLS_CA_FILE) < 0)
		return -EINVAL;
	if (!cert[0] && snprintf(cert, sizeof(cert), "%.4000s/%s.crt", o->tls_dir, o->name) < 0)
		return -EINVAL;
	if (!key[0] && snprintf(key, sizeof(key), "%.4000s/%s.key", o->tls_dir, o->name) < 0)
		return -EINVAL;
	for (i = 0; i < o->nr_allow_peer; i++)
		peers[i] = o->allow_peer[i];
	ret = rc_tls_ctx_new(&f, true, o->nr_allow_peer ? peers : def_peers,
			     o->nr_allow_peer ? o->nr_allow_peer : 1, &a->tls, err, sizeof(err));
	if (ret) {
		rc_err("%s", err);
		return ret;
	}
	rc_info("TLS: certificate %s, CA %s; coordinators accepted: %s%s", cert, ca,
		o->nr_allow_peer ? o->allow_peer[0] : RC_TLS_COORDINATOR,
		o->nr_allow_peer > 1 ? " and more (--allow-peer)" : "");
	return 0;
}

int agent_server_start(struct agent *a)
{
	const char *host = a->opts.listen_host;
	int ret;

	ret = agent_tls_start(a);
	if (ret)
		return ret;
	ret = rc_tcp_listen(strcmp(host, "0.0.0.0") ? host : NULL, a->opts.listen_port,
			    &a->listen_fd);
	if (ret) {
		rc_err("--listen %s:%u: %s", host, a->opts.listen_port, strerror(-ret));
		return ret;
	}
	a->reserve_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (a->reserve_fd < 0)
		rc_warn("listen: no reserved descriptor (/dev/null: %s): out of descriptors, "
			"connections wait for the retry timer",
			strerror(errno));
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
	agent_timer_cancel(&a->accept_retry);
	/*
	 * Stop listening now, not when the last reference goes: the loop's multishot poll holds
	 * the socket until the kernel tears the ring down, after the process is gone, and an agent
	 * started again at once (systemctl restart, a test) found its port still LISTENing
	 * (EADDRINUSE). A shut-down listener is closed; SO_REUSEADDR lets a new one bind past it.
	 */
	if (a->listen_fd >= 0) {
		shutdown(a->listen_fd, SHUT_RDWR);
		close(a->listen_fd);
	}
	a->listen_fd = -1;
	if (a->reserve_fd >= 0)
		close(a->reserve_fd);
	a->reserve_fd = -1;
	rc_tls_ctx_free(a->tls); /* connections still closing hold their own reference */
	a->tls = NULL;
}

void agent_server_emit(void *arg, const char *kind, uint64_t ts_ns, json_t *fields)
{
	struct agent *a = arg;
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
