// SPDX-License-Identifier: MIT
/*
 * The verbs async-event observer: every RDMA device is opened once and its
 * async fd polled in the loop. Port events (PORT_ERR, PORT_ACTIVE, ...)
 * become `port` events with the port state queried again; the rest become
 * `async` events. Also the names of verbs enums used in events and inventory,
 * and the state of every RDMA port for the metrics (read from sysfs, so
 * devices created since the last scan are included).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <infiniband/verbs.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include "agents/agent.h"
#include "agents/agent_metrics.h"

struct agent_vdev {
	struct agent_list node;
	struct agent *a;
	char name[64];
	struct ibv_context *ctx;
	struct agent_poll poll;
};

struct agent_verbs {
	struct agent_list devs;
};

const char *agent_port_state_name(int state)
{
	static const char *const names[] = {"NOP",   "DOWN",   "INIT",
					    "ARMED", "ACTIVE", "ACTIVE_DEFER"};

	return state >= 0 && state < (int)(sizeof(names) / sizeof(names[0])) ? names[state]
									     : "UNKNOWN";
}

const char *agent_phys_state_name(int phys_state)
{
	static const char *const names[] = {"NOP",
					    "SLEEP",
					    "POLLING",
					    "DISABLED",
					    "PORT_CONFIGURATION_TRAINING",
					    "LINK_UP",
					    "LINK_ERROR_RECOVERY",
					    "PHY_TEST"};

	return phys_state >= 0 && phys_state < (int)(sizeof(names) / sizeof(names[0]))
		   ? names[phys_state]
		   : "UNKNOWN";
}

const char *agent_async_event_name(int event)
{
	switch (event) {
#define AGENT_EV(e)                                                                                \
	case e:                                                                                    \
		return #e;
		AGENT_EV(IBV_EVENT_CQ_ERR)
		AGENT_EV(IBV_EVENT_QP_FATAL)
		AGENT_EV(IBV_EVENT_QP_REQ_ERR)
		AGENT_EV(IBV_EVENT_QP_ACCESS_ERR)
		AGENT_EV(IBV_EVENT_COMM_EST)
		AGENT_EV(IBV_EVENT_SQ_DRAINED)
		AGENT_EV(IBV_EVENT_PATH_MIG)
		AGENT_EV(IBV_EVENT_PATH_MIG_ERR)
		AGENT_EV(IBV_EVENT_DEVICE_FATAL)
		AGENT_EV(IBV_EVENT_PORT_ACTIVE)
		AGENT_EV(IBV_EVENT_PORT_ERR)
		AGENT_EV(IBV_EVENT_LID_CHANGE)
		AGENT_EV(IBV_EVENT_PKEY_CHANGE)
		AGENT_EV(IBV_EVENT_SM_CHANGE)
		AGENT_EV(IBV_EVENT_SRQ_ERR)
		AGENT_EV(IBV_EVENT_SRQ_LIMIT_REACHED)
		AGENT_EV(IBV_EVENT_QP_LAST_WQE_REACHED)
		AGENT_EV(IBV_EVENT_CLIENT_REREGISTER)
		AGENT_EV(IBV_EVENT_GID_CHANGE)
		AGENT_EV(IBV_EVENT_WQ_FATAL)
#undef AGENT_EV
	}
	return "IBV_EVENT_UNKNOWN";
}

static bool agent_is_port_event(enum ibv_event_type t)
{
	return t == IBV_EVENT_PORT_ACTIVE || t == IBV_EVENT_PORT_ERR || t == IBV_EVENT_LID_CHANGE ||
	       t == IBV_EVENT_PKEY_CHANGE || t == IBV_EVENT_SM_CHANGE ||
	       t == IBV_EVENT_CLIENT_REREGISTER || t == IBV_EVENT_GID_CHANGE;
}

static void agent_vdev_event(struct agent_vdev *d, const struct ibv_async_event *ev)
{
	const char *name = agent_async_event_name(ev->event_type);
	json_t *o;

	if (agent_is_port_event(ev->event_type)) {
		int port = ev->element.port_num;
		struct ibv_port_attr pa;
		char netdev[IF_NAMESIZE];

		o = json_pack("{s:s, s:i, s:s}", "device", d->name, "port", port, "event", name);
		if (o && !ibv_query_port(d->ctx, (uint8_t)port, &pa)) {
			json_object_set_new(o, "state",
					    json_string(agent_port_state_name(pa.state)));
			json_object_set_new(o, "phys_state",
					    json_string(agent_phys_state_name(pa.phys_state)));
		}
		if (o && !rc_ib_port_netdev(d->name, port, netdev, sizeof(netdev)))
			json_object_set_new(o, "netdev", json_string(netdev));
		rc_info("verbs: %s port %d: %s", d->name, port, name);
		agent_emit(d->a, "port", o);
		return;
	}
	o = json_pack("{s:s, s:s}", "device", d->name, "event", name);
	switch (ev->event_type) {
	case IBV_EVENT_QP_FATAL:
	case IBV_EVENT_QP_REQ_ERR:
	case IBV_EVENT_QP_ACCESS_ERR:
	case IBV_EVENT_COMM_EST:
	case IBV_EVENT_SQ_DRAINED:
	case IBV_EVENT_PATH_MIG:
	case IBV_EVENT_PATH_MIG_ERR:
	case IBV_EVENT_QP_LAST_WQE_REACHED:
		if (o && ev->element.qp)
			json_object_set_new(o, "qp_num", json_integer(ev->element.qp->qp_num));
		break;
	default:
		break;
	}
	rc_info("verbs: %s: %s", d->name, name);
	agent_emit(d->a, "async", o);
}

static void agent_vdev_ready(struct agent_poll *p, int res)
{
	struct agent_vdev *d = agent_container_of(p, struct agent_vdev, poll);
	struct ibv_async_event ev;
	bool fatal = false;

	/* The fd is non-blocking: drain until ibv_get_async_event says EAGAIN. */
	while (!ibv_get_async_event(d->ctx, &ev)) {
		fatal |= ev.event_type == IBV_EVENT_DEVICE_FATAL;
		agent_vdev_event(d, &ev);
		ibv_ack_async_event(&ev);
	}
	if (fatal || (res > 0 && (res & (POLLERR | POLLHUP)))) {
		/* The device is gone or dead: stop watching; a rescan may find it again. */
		agent_notice(d->a, RC_LOG_WARN, "verbs: %s: device failed; no longer observed",
			     d->name);
		agent_list_del(&d->node);
		agent_poll_stop(&d->poll);
	}
}

static void agent_vdev_idle(struct agent_poll *p)
{
	struct agent_vdev *d = agent_container_of(p, struct agent_vdev, poll);

	ibv_close_device(d->ctx);
	free(d);
}

static bool agent_verbs_has(struct agent_verbs *v, const char *name)
{
	struct agent_list *pos, *tmp;

	agent_list_for_each_safe(
	    pos, tmp, &v->devs) if (!strcmp(agent_list_entry(pos, struct agent_vdev, node)->name,
					    name)) return true;
	return false;
}

static void agent_verbs_open(struct agent *a, struct ibv_device *dev)
{
	struct agent_vdev *d = calloc(1, sizeof(*d));
	int flags;

	if (!d)
		return;
	d->a = a;
	snprintf(d->name, sizeof(d->name), "%s", ibv_get_device_name(dev));
	d->ctx = ibv_open_device(dev);
	if (!d->ctx) {
		agent_notice(a, RC_LOG_WARN,
			     "verbs: %s: cannot open (%s): its port events are not "
			     "observed",
			     d->name, strerror(errno));
		free(d);
		return;
	}
	flags = fcntl(d->ctx->async_fd, F_GETFL);
	fcntl(d->ctx->async_fd, F_SETFL, flags | O_NONBLOCK);
	agent_poll_init(&d->poll, &a->loop, d->ctx->async_fd, POLLIN, false, agent_vdev_ready,
			agent_vdev_idle);
	if (agent_poll_arm(&d->poll)) {
		ibv_close_device(d->ctx);
		free(d);
		return;
	}
	agent_list_add_tail(&d->node, &a->verbs->devs);
	rc_info("verbs: observing %s", d->name);
}

void agent_verbs_rescan(struct agent *a)
{
	struct ibv_device **list;
	int i, n = 0;

	if (!a->verbs)
		return;
	list = ibv_get_device_list(&n);
	if (!list)
		return; /* no RDMA on this kernel */
	for (i = 0; i < n; i++)
		if (!agent_verbs_has(a->verbs, ibv_get_device_name(list[i])))
			agent_verbs_open(a, list[i]);
	ibv_free_device_list(list);
}

/* Appends device dev's ports to *out; 0 or -ENOMEM. */
static int agent_verbs_dev_ports(const char *dev, struct agent_port_stat **out, size_t *n,
				 size_t *cap)
{
	char path[512], buf[64];
	struct dirent *e;
	DIR *d;
	int ret = 0;

	snprintf(path, sizeof(path), "%s/class/infiniband/%s/ports", rc_sysfs_root, dev);
	d = opendir(path);
	if (!d)
		return 0;
	while (!ret && (e = readdir(d))) {
		struct agent_port_stat *ps;
		int port = atoi(e->d_name);

		if (port <= 0)
			continue;
		/* "4: ACTIVE" */
		snprintf(path, sizeof(path), "%s/class/infiniband/%s/ports/%d/state", rc_sysfs_root,
			 dev, port);
		if (rc_sysfs_read(path, buf, sizeof(buf)))
			continue;
		if (*n == *cap) {
			size_t c = *cap ? 2 * *cap : 8;

			ps = realloc(*out, c * sizeof(*ps));
			if (!ps) {
				ret = -ENOMEM;
				break;
			}
			*out = ps;
			*cap = c;
		}
		ps = &(*out)[(*n)++];
		memset(ps, 0, sizeof(*ps));
		memcpy(ps->device, dev, strlen(dev) + 1); /* length checked by the caller */
		ps->port = port;
		ps->state = atoi(buf);
		if (rc_ib_port_netdev(dev, port, ps->netdev, sizeof(ps->netdev)))
			ps->netdev[0] = '\0';
	}
	closedir(d);
	return ret;
}

int agent_verbs_ports(struct agent *a, struct agent_port_stat **out, size_t *n)
{
	size_t cap = 0;
	char path[512];
	struct dirent *e;
	DIR *d;
	int ret = 0;

	*out = NULL;
	*n = 0;
	snprintf(path, sizeof(path), "%s/class/infiniband", rc_sysfs_root);
	d = opendir(path);
	if (!d)
		return 0; /* no RDMA on this node */
	while (!ret && (e = readdir(d)))
		if (e->d_name[0] != '.' && strlen(e->d_name) < sizeof((*out)->device))
			ret = agent_verbs_dev_ports(e->d_name, out, n, &cap);
	closedir(d);
	if (ret) {
		free(*out);
		*out = NULL;
		*n = 0;
	}
	return ret;
}

int agent_verbs_start(struct agent *a)
{
	a->verbs = calloc(1, sizeof(*a->verbs));
	if (!a->verbs)
		return -ENOMEM;
	agent_list_init(&a->verbs->devs);
	agent_verbs_rescan(a);
	return 0;
}

void agent_verbs_stop(struct agent *a)
{
	struct agent_list *pos, *tmp;

	/* Only at exit, after the loop: the ring goes next, so close directly. */
	if (!a->verbs)
		return;
	agent_list_for_each_safe(pos, tmp, &a->verbs->devs)
	{
		struct agent_vdev *d = agent_list_entry(pos, struct agent_vdev, node);

		agent_list_del(&d->node);
		ibv_close_device(d->ctx);
		free(d);
	}
	free(a->verbs);
	a->verbs = NULL;
}
