// SPDX-License-Identifier: MIT
/*
 * The rtnetlink observer: a libnl socket subscribed to RTNLGRP_LINK, polled
 * in the loop, that emits a `link` event whenever a netdev's admin state
 * (IFF_UP), carrier or operstate changes. It keeps the last state of every
 * netdev (seeded from a dump at start) because the kernel also sends
 * RTM_NEWLINK for changes nobody here cares about (stats, addresses, ...).
 * For the metrics it also counts, per netdev, the changes of its oper state
 * (up <-> down) and the time it spent down (agent_link_track).
 */
#include <errno.h>
#include <net/if.h>
#include <linux/if.h> /* IF_OPER_*; after net/if.h, which it then leaves alone */
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/route/link.h>
#include <netlink/socket.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include "agents/agent.h"
#include "agents/agent_metrics.h"
#include "common/units.h"

struct agent_link_state {
	int ifindex;
	bool up, carrier;
	uint8_t oper;
	char name[IF_NAMESIZE];
	struct agent_link_track track;
};

struct agent_link {
	struct agent *a;
	struct nl_sock *sk;
	struct nl_cb *cb; /* our reference to the socket's callbacks */
	struct agent_poll poll;
	struct agent_link_state *st;
	size_t n, cap;
	bool seeding; /* while dumping: record, do not emit */
};

void agent_link_track_init(struct agent_link_track *t, bool up, uint64_t now_ns)
{
	memset(t, 0, sizeof(*t));
	t->up = up;
	t->since_ns = now_ns;
}

void agent_link_track_set(struct agent_link_track *t, bool up, uint64_t now_ns)
{
	if (t->up == up)
		return;
	if (up && now_ns > t->since_ns)
		t->down_ns += now_ns - t->since_ns;
	t->since_ns = now_ns;
	t->up = up;
	t->transitions++;
}

uint64_t agent_link_track_down_ns(const struct agent_link_track *t, uint64_t now_ns)
{
	return t->down_ns + (!t->up && now_ns > t->since_ns ? now_ns - t->since_ns : 0);
}

/* Oper up as operators mean it; UNKNOWN is what drivers without operstate report (lo, tun). */
static bool agent_link_oper_up(bool up, bool carrier, uint8_t oper)
{
	return up && carrier && (oper == IF_OPER_UP || oper == IF_OPER_UNKNOWN);
}

static struct agent_link_state *agent_link_state(struct agent_link *lk, int ifindex, bool add)
{
	struct agent_link_state *n;
	size_t i;

	for (i = 0; i < lk->n; i++)
		if (lk->st[i].ifindex == ifindex)
			return &lk->st[i];
	if (!add)
		return NULL;
	if (lk->n == lk->cap) {
		size_t cap = lk->cap ? 2 * lk->cap : 16;

		n = realloc(lk->st, cap * sizeof(*n));
		if (!n)
			return NULL;
		lk->st = n;
		lk->cap = cap;
	}
	n = &lk->st[lk->n++];
	memset(n, 0, sizeof(*n));
	n->ifindex = ifindex;
	n->oper = 0xff; /* no operstate has this value: the first sighting always differs */
	return n;
}

static void agent_link_forget(struct agent_link *lk, int ifindex)
{
	struct agent_link_state *s = agent_link_state(lk, ifindex, false);

	if (s)
		*s = lk->st[--lk->n];
}

static void agent_link_obj(struct nl_object *obj, void *arg)
{
	struct rtnl_link *link = (struct rtnl_link *)obj;
	struct agent_link *lk = arg;
	int ifindex = rtnl_link_get_ifindex(link);
	bool up = rtnl_link_get_flags(link) & IFF_UP;
	bool carrier = rtnl_link_get_carrier(link);
	uint8_t oper = rtnl_link_get_operstate(link);
	const char *name = rtnl_link_get_name(link);
	struct agent_link_state *s;
	char opername[32];

	if (nl_object_get_msgtype(obj) == RTM_DELLINK) {
		rc_dbg("link %s (%d) deleted", name ? name : "?", ifindex);
		agent_link_forget(lk, ifindex);
		return;
	}
	s = agent_link_state(lk, ifindex, true);
	if (!s)
		return;
	if (name)
		snprintf(s->name, sizeof(s->name), "%s", name); /* renames included */
	if (s->oper == 0xff)
		agent_link_track_init(&s->track, agent_link_oper_up(up, carrier, oper),
				      rc_now_ns());
	else
		agent_link_track_set(&s->track, agent_link_oper_up(up, carrier, oper), rc_now_ns());
	if (s->up == up && s->carrier == carrier && s->oper == oper)
		return;
	s->up = up;
	s->carrier = carrier;
	s->oper = oper;
	if (lk->seeding)
		return;
	rtnl_link_operstate2str(oper, opername, sizeof(opername));
	agent_emit(lk->a, "link",
		   json_pack("{s:s, s:i, s:b, s:b, s:s}", "ifname", name ? name : "", "ifindex",
			     ifindex, "up", up, "carrier", carrier, "oper", opername));
}

static int agent_link_msg(struct nl_msg *msg, void *arg)
{
	nl_msg_parse(msg, agent_link_obj, arg);
	return NL_OK;
}

/* Records (seeding) or compares every link's current state, from a dump. */
static int agent_link_sync(struct agent_link *lk, bool seeding)
{
	struct nl_cache *cache = NULL;
	struct nl_sock *sk = nl_socket_alloc();
	int ret;

	if (!sk)
		return -ENOMEM;
	ret = nl_connect(sk, NETLINK_ROUTE);
	if (!ret)
		ret = rtnl_link_alloc_cache(sk, AF_UNSPEC, &cache);
	if (!ret) {
		lk->seeding = seeding;
		nl_cache_foreach(cache, agent_link_obj, lk);
		lk->seeding = false;
	}
	nl_cache_free(cache);
	nl_socket_free(sk);
	return ret ? -EIO : 0;
}

static void agent_link_ready(struct agent_poll *p, int res)
{
	struct agent_link *lk = agent_container_of(p, struct agent_link, poll);
	int ret;

	/* Multishot polls report wakeups, not levels: read until the socket is empty. */
	while ((ret = nl_recvmsgs_report(lk->sk, lk->cb)) > 0)
		;
	if (ret == -NLE_NOMEM || ret == -NLE_MSG_OVERFLOW) {
		/* The kernel dropped notifications (ENOBUFS): compare with a fresh dump. */
		agent_notice(lk->a, RC_LOG_WARN, "rtnetlink: notifications lost (%s); resyncing",
			     nl_geterror(ret));
		agent_link_sync(lk, false);
	} else if (ret < 0 && ret != -NLE_AGAIN) {
		rc_warn("rtnetlink: receive: %s", nl_geterror(ret));
	}
}

int agent_link_stats(struct agent *a, struct agent_link_stat **out, size_t *n)
{
	struct agent_link *lk = a->link;
	size_t i;

	*out = NULL;
	*n = 0;
	if (!lk || !lk->n)
		return 0;
	*out = calloc(lk->n, sizeof(**out));
	if (!*out)
		return -ENOMEM;
	for (i = 0; i < lk->n; i++) {
		if (!lk->st[i].name[0])
			continue;
		memcpy((*out)[*n].netdev, lk->st[i].name, sizeof((*out)[*n].netdev));
		(*out)[(*n)++].track = lk->st[i].track;
	}
	return 0;
}

int agent_link_start(struct agent *a)
{
	struct agent_link *lk = calloc(1, sizeof(*lk));
	int ret;

	if (!lk)
		return -ENOMEM;
	lk->a = a;
	lk->sk = nl_socket_alloc();
	if (!lk->sk) {
		ret = -ENOMEM;
		goto err;
	}
	nl_socket_disable_seq_check(lk->sk);
	lk->cb = nl_socket_get_cb(lk->sk);
	nl_cb_set(lk->cb, NL_CB_VALID, NL_CB_CUSTOM, agent_link_msg, lk);
	ret = nl_connect(lk->sk, NETLINK_ROUTE);
	if (!ret)
		ret = nl_socket_add_memberships(lk->sk, RTNLGRP_LINK, 0);
	if (!ret)
		ret = nl_socket_set_nonblocking(lk->sk);
	if (ret) {
		rc_err("rtnetlink: subscribe to link changes: %s", nl_geterror(ret));
		ret = -EIO;
		goto err;
	}
	nl_socket_set_buffer_size(lk->sk, 1 << 20, 0);
	ret = agent_link_sync(lk, true);
	if (ret) {
		rc_err("rtnetlink: dump links: %s", strerror(-ret));
		goto err;
	}
	agent_poll_init(&lk->poll, &a->loop, nl_socket_get_fd(lk->sk), POLLIN, false,
			agent_link_ready, NULL);
	ret = agent_poll_arm(&lk->poll);
	if (ret)
		goto err;
	a->link = lk;
	return 0;
err:
	nl_cb_put(lk->cb);
	if (lk->sk)
		nl_socket_free(lk->sk);
	free(lk->st);
	free(lk);
	return ret;
}

void agent_link_stop(struct agent *a)
{
	struct agent_link *lk = a->link;

	/* Only at exit, after the loop: the ring is torn down next, so no idle() is awaited. */
	if (!lk)
		return;
	nl_cb_put(lk->cb);
	nl_socket_free(lk->sk);
	free(lk->st);
	free(lk);
	a->link = NULL;
}
