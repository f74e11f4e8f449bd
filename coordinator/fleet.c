// SPDX-License-Identifier: MIT
/* Connections to the node agents: fan-out requests, event intake, clock alignment. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "common/log.h"
#include "common/units.h"
#include "coordinator/fleet.h"

int fleet_init(struct fleet *fl, unsigned int nr)
{
	memset(fl, 0, sizeof(*fl));
	fl->agents = calloc(nr ? nr : 1, sizeof(*fl->agents));
	fl->events = json_array();
	if (!fl->agents || !fl->events) {
		free(fl->agents);
		json_decref(fl->events);
		return -ENOMEM;
	}
	fl->nr_agents = nr;
	fl->next_id = 1;
	return 0;
}

void fleet_free(struct fleet *fl)
{
	unsigned int i;

	for (i = 0; i < fl->nr_agents; i++) {
		struct fl_agent *a = &fl->agents[i];

		if (a->connected)
			rc_conn_close(&a->conn);
		json_decref(a->inventory);
		json_decref(a->pending_resp);
	}
	if (fl->ep_ready)
		close(fl->epfd);
	free(fl->agents);
	json_decref(fl->events);
	memset(fl, 0, sizeof(*fl));
}

struct fl_agent *fleet_find(struct fleet *fl, const char *name)
{
	unsigned int i;

	for (i = 0; i < fl->nr_agents; i++)
		if (!strcmp(fl->agents[i].name, name))
			return &fl->agents[i];
	return NULL;
}

/*
 * Dialers: a connect and TLS handshake waits on the network and on the agent for most of its
 * time, so a fleet is dialed by a few threads at once rather than one agent after another.
 */
#define FLEET_DIALERS 16

struct fleet_dialing {
	struct fl_dial *d;
	unsigned int nr;
	int timeout_ms;
	pthread_mutex_t lock;
	unsigned int next; /* the next entry to dial */
};

static void *fleet_dialer(void *arg)
{
	struct fleet_dialing *g = arg;

	for (;;) {
		struct fl_dial *d;
		unsigned int i;

		pthread_mutex_lock(&g->lock);
		i = g->next++;
		pthread_mutex_unlock(&g->lock);
		if (i >= g->nr)
			return NULL;
		d = &g->d[i];
		d->t = NULL;
		d->err[0] = '\0';
		d->ret = fleet_dial(d->name, false, d->addr, g->timeout_ms, &d->t, d->err,
				    sizeof(d->err));
	}
}

void fleet_dial_many(struct fl_dial *d, unsigned int nr, int timeout_ms)
{
	struct fleet_dialing g = {.d = d, .nr = nr, .timeout_ms = timeout_ms};
	pthread_t th[FLEET_DIALERS];
	unsigned int i, nt = nr < FLEET_DIALERS ? nr : FLEET_DIALERS;

	pthread_mutex_init(&g.lock, NULL);
	for (i = 0; i < nt; i++)
		if (pthread_create(&th[i], NULL, fleet_dialer, &g))
			break;
	if (!i) /* no thread at all: dial from this one */
		fleet_dialer(&g);
	nt = i;
	for (i = 0; i < nt; i++)
		pthread_join(th[i], NULL);
	pthread_mutex_destroy(&g.lock);
}

int fleet_connect(struct fleet *fl, int timeout_ms, char *err, size_t errlen)
{
	struct fl_dial *d = calloc(fl->nr_agents ? fl->nr_agents : 1, sizeof(*d));
	unsigned int i, n = 0;
	int ret = 0;

	if (!d) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (i = 0; i < fl->nr_agents; i++)
		if (!fl->agents[i].connected)
			d[n++] = (struct fl_dial){.name = fl->agents[i].name,
						  .addr = fl->agents[i].addr};
	fleet_dial_many(d, n, timeout_ms);
	for (i = 0, n = 0; i < fl->nr_agents; i++) {
		struct fl_agent *a = &fl->agents[i];

		if (a->connected)
			continue;
		if (!d[n].ret) {
			rc_conn_init(&a->conn, d[n].t);
			a->connected = true;
		} else if (!ret) {
			ret = d[n].ret;
			snprintf(err, errlen, "%s", d[n].err);
		}
		n++;
	}
	free(d);
	return ret;
}

void fleet_set_t0(struct fleet *fl, uint64_t t0_ns)
{
	const double shift = ((double)t0_ns - (double)fl->t0_ns) / 1e6;
	json_t *e;
	size_t i;

	/* events that came before t0 (a server's ready) move to negative times */
	json_array_foreach(fl->events, i, e)
		json_object_set_new(
		    e, "t_ms", json_real(json_number_value(json_object_get(e, "t_ms")) - shift));
	fl->t0_ns = t0_ns;
}

double fleet_agent_ms(const struct fleet *fl, const struct fl_agent *a, uint64_t agent_ns)
{
	double local = a->clock_known ? clk_to_local_ns(&a->clock, agent_ns) : (double)agent_ns;

	return (local - (double)fl->t0_ns) / 1e6;
}

static void fleet_take_event(struct fleet *fl, struct fl_agent *a, json_t *msg)
{
	json_t *ev = json_deep_copy(msg);
	json_t *ts = json_object_get(msg, "ts_ns");
	uint64_t agent_ns = json_is_integer(ts) ? (uint64_t)json_integer_value(ts) : 0;
	double t_ms;

	if (!ev)
		return;
	if (!agent_ns) /* no usable timestamp: use arrival, and say so */
		json_object_set_new(ev, "ts_missing", json_true());
	t_ms = agent_ns && a->clock_known ? fleet_agent_ms(fl, a, agent_ns)
					  : ((double)rc_now_ns() - (double)fl->t0_ns) / 1e6;
	json_object_set_new(ev, "t_ms", json_real(t_ms));
	/* the node the coordinator dialled, whatever the agent calls itself (drill_handshake) */
	json_object_set_new(ev, "node", json_string(a->name));
	json_array_append(fl->events, ev);
	if (fl->on_event)
		fl->on_event(ev, fl->arg);
	json_decref(ev);
}

static int fleet_frame(struct rc_conn *c, uint16_t type, json_t *msg, void *arg)
{
	struct fleet *fl = arg;
	struct fl_agent *a = c->user;

	if (type == RC_MSG_EVENT) {
		fleet_take_event(fl, a, msg);
		return 0;
	}
	if (type == RC_MSG_RESPONSE && a->pending_id &&
	    json_integer_value(json_object_get(msg, "id")) == a->pending_id) {
		json_decref(a->pending_resp);
		a->pending_resp = json_incref(msg);
		a->resp_ns = rc_now_ns();
		a->pending_id = 0;
		return 0;
	}
	rc_warn("%s: unexpected message of type %u ignored", a->name, type);
	return 0;
}

/*
 * Puts a's connection in the epoll set as it is now: in with EPOLLIN, and EPOLLOUT while output
 * waits, or out when not connected. Only changes cost a system call. Must run before its fd is
 * closed (fleet_drop): a closed fd's number may come back for another agent's connection. A
 * failed epoll_ctl is said and tried again at the next pump; the agent's calls time out meanwhile.
 */
static void fleet_ep_sync(struct fleet *fl, struct fl_agent *a)
{
	struct epoll_event ev = {.data.ptr = a};
	int fd = a->connected ? rc_conn_fd(&a->conn) : -1;

	if (a->ep_on && a->ep_fd != fd) {
		epoll_ctl(fl->epfd, EPOLL_CTL_DEL, a->ep_fd, NULL);
		a->ep_on = false;
	}
	if (fd < 0 || !fl->ep_ready)
		return;
	ev.events = EPOLLIN | (rc_conn_want_write(&a->conn) ? EPOLLOUT : 0);
	if (a->ep_on && a->ep_events == ev.events)
		return;
	if (!epoll_ctl(fl->epfd, a->ep_on ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, fd, &ev)) {
		a->ep_on = true;
		a->ep_fd = fd;
		a->ep_events = ev.events;
	} else {
		rc_warn("%s: epoll_ctl: %s", a->name, strerror(errno));
	}
}

static void fleet_drop(struct fleet *fl, struct fl_agent *a, int why)
{
	rc_err("%s: connection to the agent at %s lost: %s", a->name, a->addr,
	       a->conn.t && a->conn.t->error[0] ? a->conn.t->error : strerror(-why));
	a->connected = false;
	fleet_ep_sync(fl, a);
	rc_conn_close(&a->conn);
	a->dropped_ns = rc_now_ns();
}

/* Events taken from epoll at once; more wait for the next call (level-triggered). */
#define FLEET_EP_BATCH 256

/*
 * One round over every connected agent with something to do. The set is brought up to date
 * first, a pass over the agents in memory: a send anywhere may have left output waiting.
 */
int fleet_pump(struct fleet *fl, int timeout_ms)
{
	struct epoll_event ev[FLEET_EP_BATCH];
	unsigned int i;
	int n, k;

	if (!fl->ep_ready) {
		fl->epfd = epoll_create1(EPOLL_CLOEXEC);
		if (fl->epfd < 0)
			return -errno;
		fl->ep_ready = true;
	}
	for (i = 0; i < fl->nr_agents; i++)
		fleet_ep_sync(fl, &fl->agents[i]);
	n = epoll_wait(fl->epfd, ev, FLEET_EP_BATCH, timeout_ms);
	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	for (k = 0; k < n; k++) {
		struct fl_agent *a = ev[k].data.ptr;
		int r;

		if (!a->connected)
			continue;
		a->conn.user = a;
		if (ev[k].events & EPOLLOUT) {
			r = rc_conn_flush(&a->conn);
			if (r) {
				fleet_drop(fl, a, r);
				continue;
			}
		}
		if (ev[k].events & (EPOLLIN | EPOLLHUP | EPOLLERR)) {
			r = rc_conn_read(&a->conn, fleet_frame, fl);
			if (r < 0)
				fleet_drop(fl, a, r);
		}
	}
	return 0;
}

int fleet_call_many(struct fleet *fl, const bool *who, json_t *req, int timeout_ms,
		    json_t **results, char (*errs)[256])
{
	uint64_t deadline = rc_now_ns() + (uint64_t)timeout_ms * RC_NSEC_PER_MSEC;
	const char *op = json_string_value(json_object_get(req, "op"));
	unsigned int i, waiting = 0;
	int first = 0;

	for (i = 0; i < fl->nr_agents; i++) {
		struct fl_agent *a = &fl->agents[i];
		int r;

		results[i] = NULL;
		errs[i][0] = '\0';
		if (who && !who[i])
			continue;
		if (!a->connected) {
			snprintf(errs[i], sizeof(errs[i]), "%s: %s: not connected", a->name, op);
			first = first ? first : -ENOTCONN;
			continue;
		}
		a->pending_id = fl->next_id++;
		json_decref(a->pending_resp);
		a->pending_resp = NULL;
		json_object_set_new(req, "id", json_integer(a->pending_id));
		r = rc_conn_send(&a->conn, RC_MSG_REQUEST, req);
		if (r) {
			snprintf(errs[i], sizeof(errs[i]), "%s: %s: send: %s", a->name, op,
				 strerror(-r));
			fleet_drop(fl, a, r);
			first = first ? first : r;
			continue;
		}
		waiting++;
	}
	while (waiting) {
		uint64_t now = rc_now_ns();
		int r;

		if (now >= deadline)
			break;
		r = fleet_pump(fl, (int)((deadline - now) / RC_NSEC_PER_MSEC) + 1);
		if (r)
			return r;
		waiting = 0;
		for (i = 0; i < fl->nr_agents; i++)
			if ((!who || who[i]) && fl->agents[i].pending_id && fl->agents[i].connected)
				waiting++;
	}
	for (i = 0; i < fl->nr_agents; i++) {
		struct fl_agent *a = &fl->agents[i];
		json_t *resp = a->pending_resp;

		if (who && !who[i])
			continue;
		if (errs[i][0])
			continue;
		if (!resp) {
			snprintf(errs[i], sizeof(errs[i]), "%s: %s: no answer within %d ms%s",
				 a->name, op, timeout_ms, a->connected ? "" : " (connection lost)");
			a->pending_id = 0;
			first = first ? first : -ETIMEDOUT;
			continue;
		}
		if (!json_is_true(json_object_get(resp, "ok"))) {
			json_int_t e = json_integer_value(json_object_get(resp, "errno"));
			const char *msg = json_string_value(json_object_get(resp, "error"));

			snprintf(errs[i], sizeof(errs[i]), "%s: %s: %s", a->name, op,
				 msg ? msg : "failed");
			/* an errno the agent made up (0, 2^32, negative) is still a failure */
			first = first ? first : (e > 0 && e < 4096 ? -(int)e : -EIO);
		} else {
			results[i] = json_incref(json_object_get(resp, "result"));
			if (!results[i])
				results[i] = json_object();
		}
		json_decref(resp);
		a->pending_resp = NULL;
	}
	return first;
}

int fleet_call(struct fleet *fl, struct fl_agent *a, json_t *req, int timeout_ms, json_t **result,
	       char *err, size_t errlen)
{
	unsigned int idx = (unsigned int)(a - fl->agents);
	bool *who = calloc(fl->nr_agents, sizeof(*who));
	json_t **results = calloc(fl->nr_agents, sizeof(*results));
	char(*errs)[256] = calloc(fl->nr_agents, sizeof(*errs));
	int ret = -ENOMEM;

	if (!who || !results || !errs)
		goto out;
	who[idx] = true;
	ret = fleet_call_many(fl, who, req, timeout_ms, results, errs);
	if (ret)
		snprintf(err, errlen, "%s", errs[idx]);
	if (result)
		*result = results[idx];
	else
		json_decref(results[idx]);
out:
	free(who);
	free(results);
	free(errs);
	return ret;
}

/*
 * The exchanges of both callers. stop_on_error: the first failed round ends them (alignment);
 * otherwise an agent that fails one is asked no more, so a hung agent costs one timeout.
 */
static int fleet_time_rounds(struct fleet *fl, unsigned int samples, bool stop_on_error,
			     struct clk_estimate *est, char *err, size_t errlen)
{
	struct clk_sample *s = calloc((size_t)fl->nr_agents * samples, sizeof(*s));
	json_t **results = calloc(fl->nr_agents, sizeof(*results));
	char(*errs)[256] = calloc(fl->nr_agents, sizeof(*errs));
	bool *who = calloc(fl->nr_agents, sizeof(*who));
	json_t *req = json_pack("{s:s}", "op", "time");
	unsigned int i, k, asked = fl->nr_agents;
	int ret = -ENOMEM, first = 0;

	if (!s || !results || !errs || !who || !req)
		goto out;
	/* every sample unusable (t_recv < t_send) until an answer fills it */
	for (i = 0; i < fl->nr_agents * samples; i++)
		s[i].t_send_ns = 1;
	for (i = 0; i < fl->nr_agents; i++)
		who[i] = true;
	for (k = 0; k < samples && asked; k++) {
		/*
		 * All agents at once: each answer is timed on its own arrival, and
		 * the send time is taken just before the fan-out, so a slow agent
		 * only widens its own round trip.
		 */
		uint64_t t_send = rc_now_ns();

		ret = fleet_call_many(fl, who, req, 5000, results, errs);
		for (i = 0; i < fl->nr_agents; i++) {
			json_t *t = json_object_get(results[i], "t_ns");

			if (!who[i])
				continue;
			if (!results[i] || !json_is_integer(t)) {
				if (!err[0])
					snprintf(err, errlen, "%s",
						 errs[i][0] ? errs[i] : "bad time answer");
				json_decref(results[i]);
				who[i] = false;
				asked--;
				continue;
			}
			s[i * samples + k] = (struct clk_sample){
			    .t_send_ns = t_send,
			    .t_agent_ns = (uint64_t)json_integer_value(t),
			    .t_recv_ns = fl->agents[i].resp_ns,
			};
			json_decref(results[i]);
		}
		if (ret && !first)
			first = ret;
		if (ret && stop_on_error)
			goto out;
	}
	for (i = 0; i < fl->nr_agents; i++)
		if (clk_estimate(&s[i * samples], samples, &est[i]))
			est[i] = (struct clk_estimate){0};
	ret = first;
out:
	json_decref(req);
	free(s);
	free(results);
	free(errs);
	free(who);
	return ret;
}

int fleet_sample_clocks(struct fleet *fl, unsigned int samples, struct clk_estimate *est, char *err,
			size_t errlen)
{
	return fleet_time_rounds(fl, samples, false, est, err, errlen);
}

int fleet_align_clocks(struct fleet *fl, unsigned int samples, char *err, size_t errlen)
{
	struct clk_estimate *est = calloc(fl->nr_agents, sizeof(*est));
	unsigned int i;
	int ret = -ENOMEM;

	if (!est)
		return ret;
	ret = fleet_time_rounds(fl, samples, true, est, err, errlen);
	for (i = 0; i < fl->nr_agents && !ret; i++) {
		struct fl_agent *a = &fl->agents[i];

		if (!est[i].samples) {
			snprintf(err, errlen, "%s: clock alignment failed: no usable sample",
				 a->name);
			ret = -EINVAL;
			break;
		}
		a->clock = est[i];
		a->clock_known = true;
	}
	if (!ret)
		fl->aligned_ns = rc_now_ns();
	free(est);
	return ret;
}
