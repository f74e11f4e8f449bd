// SPDX-License-Identifier: MIT
/*
 * The PFC observer (agents/agent_pfc.h says what it does and why): one
 * AF_PACKET socket for EtherType 0x8808 on every interface, joined to
 * 01:80:C2:00:00:01 on each rail netdev (virtio-net filters multicast it was
 * not asked for), polled in the loop; the pure pause and watchdog state per
 * netdev (agent_pfc_wd_*); one timer for the earliest pause end, watchdog
 * verdict or due summary; and, with --pfc-emulate, the prio/plug/u32 qdiscs
 * through libnl-route that hold a paused priority's egress. The frame counts
 * and storm states are read by the metrics (agent_pfc_stats).
 */
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <netlink/netlink.h>
#include <netlink/route/classifier.h>
#include <netlink/route/cls/u32.h>
#include <netlink/route/qdisc.h>
#include <netlink/route/qdisc/plug.h>
#include <netlink/route/qdisc/prio.h>
#include <netlink/route/tc.h>
#include <netlink/socket.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "agents/agent.h"
#include "agents/agent_metrics.h"
#include "agents/agent_pfc.h"
#include "common/units.h"

#define AGENT_PFC_HANDLE(maj, min) (((uint32_t)(maj) << 16) | (uint32_t)(min))
#define AGENT_PFC_ROOT AGENT_PFC_HANDLE(AGENT_PFC_QDISC_MAJOR, 0)
#define AGENT_PFC_RCVBUF (8 << 20)
#define AGENT_PFC_BAND(p) AGENT_PFC_HANDLE(AGENT_PFC_QDISC_MAJOR, (p) + 2)
#define AGENT_PFC_PLUG(p) AGENT_PFC_HANDLE(AGENT_PFC_PLUG_MAJOR + (p), 0)

/* ---- the pure state: pauses and the watchdog, fed frames and the time ---- */

void agent_pfc_wd_init(struct agent_pfc_wd *w, uint64_t speed_mbps, uint64_t watchdog_ms)
{
	memset(w, 0, sizeof(*w));
	w->speed_mbps = speed_mbps ? speed_mbps : AGENT_PFC_SPEED_MBPS_DEFAULT;
	w->watchdog_ns = watchdog_ms * RC_NSEC_PER_MSEC;
}

void agent_pfc_wd_frame(struct agent_pfc_wd *w, const struct pfc_frame *f, uint64_t now_ns,
			uint8_t acts[PFC_PRIOS])
{
	unsigned int p;

	for (p = 0; p < PFC_PRIOS; p++) {
		struct agent_pfc_prio *s = &w->prio[p];

		if (!(f->enable & (1u << p)))
			continue;
		if (!f->quanta[p]) {
			/* XON: the pause ends now; agent_pfc_wd_advance() releases it. */
			if (s->paused && s->until_ns > now_ns)
				s->until_ns = now_ns;
			continue;
		}
		if (!s->paused) {
			s->paused = true;
			s->since_ns = now_ns;
			acts[p] |= AGENT_PFC_HOLD;
		} else if (now_ns >= s->until_ns) {
			/*
			 * It ran out before this frame came, unseen (the timer was late):
			 * judge the pause that ended, then count a new continuous one.
			 */
			if (w->watchdog_ns && !s->storm &&
			    s->until_ns - s->since_ns > w->watchdog_ns) {
				s->storm = true;
				s->storm_ns = s->until_ns - s->since_ns;
				acts[p] |= AGENT_PFC_STORM;
			}
			s->since_ns = now_ns;
		}
		/* A new pause time replaces the old one (802.1Qbb timers restart, never add). */
		s->until_ns = now_ns + pfc_quanta_ns(f->quanta[p], w->speed_mbps);
	}
}

void agent_pfc_wd_advance(struct agent_pfc_wd *w, uint64_t now_ns, uint8_t acts[PFC_PRIOS])
{
	unsigned int p;

	for (p = 0; p < PFC_PRIOS; p++) {
		struct agent_pfc_prio *s = &w->prio[p];

		if (s->paused) {
			/* Judge the pause up to now, or up to its end if that came first. */
			uint64_t upto = now_ns < s->until_ns ? now_ns : s->until_ns;

			if (w->watchdog_ns && !s->storm && upto - s->since_ns > w->watchdog_ns) {
				s->storm = true;
				s->storm_ns = upto - s->since_ns;
				acts[p] |= AGENT_PFC_STORM;
			}
			if (now_ns >= s->until_ns) {
				s->paused = false;
				s->unpaused_ns = s->until_ns;
				acts[p] |= AGENT_PFC_RELEASE;
			}
		}
		if (!s->paused && s->storm && now_ns - s->unpaused_ns >= w->watchdog_ns) {
			s->storm = false;
			acts[p] |= AGENT_PFC_CLEARED;
		}
	}
}

uint64_t agent_pfc_wd_next_ns(const struct agent_pfc_wd *w)
{
	uint64_t next = 0;
	unsigned int p;

	for (p = 0; p < PFC_PRIOS; p++) {
		const struct agent_pfc_prio *s = &w->prio[p];
		uint64_t at = 0;

		if (s->paused) {
			at = s->until_ns;
			/* +1: it fires once the pause is strictly longer than its time. */
			if (w->watchdog_ns && !s->storm && s->since_ns + w->watchdog_ns + 1 < at)
				at = s->since_ns + w->watchdog_ns + 1;
		} else if (s->storm) {
			at = s->unpaused_ns + w->watchdog_ns;
		}
		if (at && (!next || at < next))
			next = at;
	}
	return next;
}

/* ---- the observer ---- */

struct agent_pfc_dev {
	char name[IF_NAMESIZE];
	int ifindex;
	uint8_t mac[6];
	bool speed_known;
	struct agent_pfc_wd wd;
	uint64_t frames[PFC_PRIOS], reported[PFC_PRIOS]; /* PFC frames enabling each priority */
	uint16_t quanta[PFC_PRIOS];			 /* the last time seen per priority */
	uint64_t global_frames, global_reported;	 /* 802.3x PAUSE frames */
	uint16_t global_quanta;
	uint64_t bad, bad_reported; /* 0x8808 frames that are not PFC or PAUSE */
	int bad_why;
	uint8_t src[6];	     /* the last sender */
	uint64_t summary_ns; /* the last summary; 0: none yet */
	bool emulating;	     /* its emulation qdiscs are installed */
	bool held[PFC_PRIOS];
	uint64_t held_ns[PFC_PRIOS];
	bool warned; /* an emulation error was reported to the operator */
};

struct agent_pfc {
	struct agent *a;
	int fd;
	struct agent_poll poll;
	struct agent_timer timer;
	struct nl_sock *nl; /* rtnetlink for the emulation's qdiscs; NULL without one */
	struct agent_pfc_dev *devs;
	size_t n;
	uint64_t drops; /* frames the socket dropped (its buffer was full), all netdevs */
};

static void agent_pfc_mac_str(const uint8_t *mac, char *buf, size_t len)
{
	snprintf(buf, len, "%02x:%02x:%02x:%02x:%02x:%02x", mac[0], mac[1], mac[2], mac[3], mac[4],
		 mac[5]);
}

static bool agent_pfc_unreported(const struct agent_pfc_dev *d)
{
	unsigned int p;

	for (p = 0; p < PFC_PRIOS; p++)
		if (d->frames[p] != d->reported[p])
			return true;
	return d->global_frames != d->global_reported || d->bad != d->bad_reported;
}

/* One round of `pfc` `rx` events for d: one per priority that received frames since the last. */
static void agent_pfc_summary(struct agent_pfc *pf, struct agent_pfc_dev *d, uint64_t now)
{
	struct tpacket_stats st;
	socklen_t sl = sizeof(st);
	char src[18];
	unsigned int p;

	/* Frames lost before the loop read them (a starved agent): counted, never silent. */
	if (!getsockopt(pf->fd, SOL_PACKET, PACKET_STATISTICS, &st, &sl) && st.tp_drops) {
		pf->drops += st.tp_drops;
		rc_warn("pfc: %u frame(s) dropped by the socket (buffer full), %llu in all",
			st.tp_drops, (unsigned long long)pf->drops);
	}
	agent_pfc_mac_str(d->src, src, sizeof(src));
	for (p = 0; p < PFC_PRIOS; p++) {
		if (d->frames[p] == d->reported[p])
			continue;
		agent_emit_at(pf->a, "pfc", now,
			      json_pack("{s:s, s:s, s:i, s:I, s:I, s:i, s:s, s:I}", "type", "rx",
					"netdev", d->name, "priority", (int)p, "frames",
					(json_int_t)(d->frames[p] - d->reported[p]), "total",
					(json_int_t)d->frames[p], "quanta", (int)d->quanta[p],
					"src", src, "socket_drops", (json_int_t)pf->drops));
		d->reported[p] = d->frames[p];
	}
	if (d->global_frames != d->global_reported) {
		agent_emit_at(pf->a, "pfc", now,
			      json_pack("{s:s, s:s, s:b, s:I, s:I, s:i, s:s, s:I}", "type", "rx",
					"netdev", d->name, "global", 1, "frames",
					(json_int_t)(d->global_frames - d->global_reported),
					"total", (json_int_t)d->global_frames, "quanta",
					(int)d->global_quanta, "src", src, "socket_drops",
					(json_int_t)pf->drops));
		d->global_reported = d->global_frames;
	}
	if (d->bad != d->bad_reported) {
		agent_emit_at(pf->a, "pfc", now,
			      json_pack("{s:s, s:s, s:I, s:s}", "type", "rx_invalid", "netdev",
					d->name, "frames", (json_int_t)(d->bad - d->bad_reported),
					"why", pfc_frame_strerror(d->bad_why)));
		d->bad_reported = d->bad;
	}
	d->summary_ns = now;
}

/* Priority p's plug qdisc on d (under its prio band), as install and change both name it. */
static struct rtnl_qdisc *agent_pfc_plug_qdisc(const struct agent_pfc_dev *d, unsigned int p,
					       int *ret)
{
	struct rtnl_qdisc *q = rtnl_qdisc_alloc();

	if (!q) {
		*ret = -NLE_NOMEM;
		return NULL;
	}
	rtnl_tc_set_ifindex(TC_CAST(q), d->ifindex);
	rtnl_tc_set_parent(TC_CAST(q), AGENT_PFC_BAND(p));
	rtnl_tc_set_handle(TC_CAST(q), AGENT_PFC_PLUG(p));
	*ret = rtnl_tc_set_kind(TC_CAST(q), "plug");
	return q;
}

/* Sets priority p's plug on d buffering (hold) or released indefinitely. 0 or a libnl error. */
static int agent_pfc_plug(struct agent_pfc *pf, const struct agent_pfc_dev *d, unsigned int p,
			  bool hold)
{
	int ret;
	struct rtnl_qdisc *q = agent_pfc_plug_qdisc(d, p, &ret);

	if (!q)
		return ret;
	if (!ret)
		ret = hold ? rtnl_qdisc_plug_buffer(q) : rtnl_qdisc_plug_release_indefinite(q);
	/* The plug exists: with the same parent and handle, this is `tc qdisc change`. */
	if (!ret)
		ret = rtnl_qdisc_add(pf->nl, q, 0);
	rtnl_qdisc_put(q);
	return ret;
}

/* The emulation's side of a hold or a release: the plug, and an `emulation` event. */
static void agent_pfc_emulate(struct agent_pfc *pf, struct agent_pfc_dev *d, unsigned int p,
			      bool hold, uint64_t now)
{
	json_t *ev;
	int ret;

	if (!d->emulating || d->held[p] == hold)
		return;
	ret = agent_pfc_plug(pf, d, p, hold);
	ev = json_pack("{s:s, s:s, s:s, s:i}", "type", "emulation", "action",
		       hold ? "hold" : "release", "netdev", d->name, "priority", (int)p);
	if (ret < 0) {
		char msg[256];

		snprintf(msg, sizeof(msg), "pfc: %s: priority %u: %s the plug qdisc %x: failed: %s",
			 d->name, p, hold ? "holding" : "releasing", AGENT_PFC_PLUG_MAJOR + p,
			 nl_geterror(ret));
		json_object_set_new(ev, "error", json_string(msg));
		if (!d->warned)
			agent_notice(pf->a, RC_LOG_ERR, "%s", msg);
		d->warned = true;
		if (hold)
			goto emit; /* nothing is held: a later release has nothing to undo */
	}
	d->held[p] = hold;
	if (hold)
		d->held_ns[p] = now;
	else
		json_object_set_new(
		    ev, "held_ms",
		    json_integer((json_int_t)((now - d->held_ns[p]) / RC_NSEC_PER_MSEC)));
emit:
	agent_emit_at(pf->a, "pfc", now, ev);
}

static void agent_pfc_apply(struct agent_pfc *pf, struct agent_pfc_dev *d,
			    const uint8_t acts[PFC_PRIOS], uint64_t now)
{
	unsigned int p;

	for (p = 0; p < PFC_PRIOS; p++) {
		const struct agent_pfc_prio *s = &d->wd.prio[p];

		if (acts[p] & AGENT_PFC_HOLD)
			agent_pfc_emulate(pf, d, p, true, now);
		if (acts[p] & AGENT_PFC_STORM) {
			rc_warn("pfc: %s: priority %u paused for more than %llu ms: storm", d->name,
				p, (unsigned long long)(d->wd.watchdog_ns / RC_NSEC_PER_MSEC));
			agent_emit_at(
			    pf->a, "pfc", now,
			    json_pack("{s:s, s:s, s:i, s:I, s:I, s:b}", "type", "storm_detected",
				      "netdev", d->name, "priority", (int)p, "paused_ms",
				      (json_int_t)(s->storm_ns / RC_NSEC_PER_MSEC), "watchdog_ms",
				      (json_int_t)(d->wd.watchdog_ns / RC_NSEC_PER_MSEC),
				      "emulated", d->emulating));
		}
		if (acts[p] & AGENT_PFC_RELEASE)
			agent_pfc_emulate(pf, d, p, false, now);
		if (acts[p] & AGENT_PFC_CLEARED) {
			rc_info("pfc: %s: priority %u: storm over", d->name, p);
			agent_emit_at(
			    pf->a, "pfc", now,
			    json_pack("{s:s, s:s, s:i, s:I}", "type", "storm_cleared", "netdev",
				      d->name, "priority", (int)p, "unpaused_ms",
				      (json_int_t)((now - s->unpaused_ns) / RC_NSEC_PER_MSEC)));
		}
	}
}

/* Arms the one timer for the earliest thing due on any netdev. */
static void agent_pfc_schedule(struct agent_pfc *pf)
{
	uint64_t next = 0;
	size_t i;

	for (i = 0; i < pf->n; i++) {
		const struct agent_pfc_dev *d = &pf->devs[i];
		uint64_t at = agent_pfc_wd_next_ns(&d->wd);

		if (agent_pfc_unreported(d)) {
			uint64_t sum = d->summary_ns + AGENT_PFC_SUMMARY_NS;

			if (!at || sum < at)
				at = sum;
		}
		if (at && (!next || at < next))
			next = at;
	}
	if (next)
		agent_timer_set(&pf->a->loop, &pf->timer, next);
	else
		agent_timer_cancel(&pf->timer);
}

static void agent_pfc_tick(struct agent_pfc *pf, uint64_t now)
{
	size_t i;

	for (i = 0; i < pf->n; i++) {
		struct agent_pfc_dev *d = &pf->devs[i];
		uint8_t acts[PFC_PRIOS] = {0};

		agent_pfc_wd_advance(&d->wd, now, acts);
		agent_pfc_apply(pf, d, acts, now);
		if (agent_pfc_unreported(d) && now >= d->summary_ns + AGENT_PFC_SUMMARY_NS)
			agent_pfc_summary(pf, d, now);
	}
}

static void agent_pfc_timer(struct agent_timer *t)
{
	struct agent_pfc *pf = agent_container_of(t, struct agent_pfc, timer);

	agent_pfc_tick(pf, rc_now_ns());
	agent_pfc_schedule(pf);
}

static void agent_pfc_frame(struct agent_pfc *pf, struct agent_pfc_dev *d, const uint8_t *buf,
			    size_t len, uint64_t now)
{
	uint8_t acts[PFC_PRIOS] = {0};
	struct pfc_frame fr;
	unsigned int p;
	int ret;

	ret = pfc_frame_decode(buf, len, d->mac, &fr);
	if (ret) {
		d->bad++;
		d->bad_why = ret;
		return;
	}
	memcpy(d->src, fr.src, sizeof(d->src));
	if (fr.global) {
		d->global_frames++;
		d->global_quanta = fr.quanta[0];
	} else {
		for (p = 0; p < PFC_PRIOS; p++)
			if (fr.enable & (1u << p)) {
				d->frames[p]++;
				d->quanta[p] = fr.quanta[p];
			}
	}
	agent_pfc_wd_frame(&d->wd, &fr, now, acts);
	agent_pfc_wd_advance(&d->wd, now, acts);
	agent_pfc_apply(pf, d, acts, now);
}

static struct agent_pfc_dev *agent_pfc_dev_of(struct agent_pfc *pf, int ifindex)
{
	size_t i;

	for (i = 0; i < pf->n; i++)
		if (pf->devs[i].ifindex == ifindex)
			return &pf->devs[i];
	return NULL;
}

static void agent_pfc_ready(struct agent_poll *pl, int res)
{
	struct agent_pfc *pf = agent_container_of(pl, struct agent_pfc, poll);
	uint8_t buf[256];
	size_t i;

	/* Multishot polls report wakeups, not levels: read until the socket is empty. */
	for (;;) {
		struct sockaddr_ll sll;
		socklen_t sl = sizeof(sll);
		struct agent_pfc_dev *d;
		ssize_t n = recvfrom(pf->fd, buf, sizeof(buf), MSG_DONTWAIT | MSG_TRUNC,
				     (struct sockaddr *)&sll, &sl);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN)
				rc_warn("pfc: receive: %s", strerror(errno));
			break;
		}
		/* Our own storm leaving this node is not a pause this node received. */
		if (sll.sll_pkttype == PACKET_OUTGOING)
			continue;
		d = agent_pfc_dev_of(pf, sll.sll_ifindex);
		if (d)
			agent_pfc_frame(pf, d, buf,
					(size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf),
					rc_now_ns());
	}
	/* The first frames after a quiet spell are reported at once, later ones once a second. */
	for (i = 0; i < pf->n; i++) {
		struct agent_pfc_dev *d = &pf->devs[i];
		uint64_t now = rc_now_ns();

		if (agent_pfc_unreported(d) &&
		    (!d->summary_ns || now >= d->summary_ns + AGENT_PFC_SUMMARY_NS))
			agent_pfc_summary(pf, d, now);
	}
	agent_pfc_schedule(pf);
}

int agent_pfc_stats(struct agent *a, struct agent_pfc_stat **out, size_t *n)
{
	struct agent_pfc *pf = a->pfc;
	size_t i;

	*out = NULL;
	*n = 0;
	if (!pf || !pf->n)
		return 0;
	*out = calloc(pf->n, sizeof(**out));
	if (!*out)
		return -ENOMEM;
	for (i = 0; i < pf->n; i++) {
		const struct agent_pfc_dev *d = &pf->devs[i];
		struct agent_pfc_stat *st = &(*out)[i];
		unsigned int p;

		memcpy(st->netdev, d->name, sizeof(st->netdev));
		for (p = 0; p < PFC_PRIOS; p++) {
			st->frames[p] = d->frames[p];
			st->storm[p] = d->wd.prio[p].storm;
		}
		st->global_frames = d->global_frames;
	}
	*n = pf->n;
	return 0;
}

/* ---- emulation qdiscs ---- */

/* Removes d's root qdisc if it is ours (8808:). 0, or a libnl error; *removed says if it was. */
static int agent_pfc_remove(struct agent_pfc *pf, const struct agent_pfc_dev *d, bool *removed)
{
	struct nl_cache *cache = NULL;
	struct rtnl_qdisc *q;
	int ret;

	*removed = false;
	ret = rtnl_qdisc_alloc_cache(pf->nl, &cache);
	if (ret < 0)
		return ret;
	q = rtnl_qdisc_get_by_parent(cache, d->ifindex, TC_H_ROOT);
	if (q && rtnl_tc_get_handle(TC_CAST(q)) == AGENT_PFC_ROOT) {
		ret = rtnl_qdisc_delete(pf->nl, q);
		*removed = ret >= 0;
	}
	rtnl_qdisc_put(q);
	nl_cache_free(cache);
	return ret < 0 ? ret : 0;
}

static int agent_pfc_install_root(struct agent_pfc *pf, const struct agent_pfc_dev *d)
{
	uint8_t map[16] = {0}; /* every skb->priority to band 0; the filters pick the others */
	struct rtnl_qdisc *q = rtnl_qdisc_alloc();
	int ret;

	if (!q)
		return -NLE_NOMEM;
	rtnl_tc_set_ifindex(TC_CAST(q), d->ifindex);
	rtnl_tc_set_parent(TC_CAST(q), TC_H_ROOT);
	rtnl_tc_set_handle(TC_CAST(q), AGENT_PFC_ROOT);
	ret = rtnl_tc_set_kind(TC_CAST(q), "prio");
	if (!ret) {
		rtnl_qdisc_prio_set_bands(q, 1 + PFC_PRIOS);
		ret = rtnl_qdisc_prio_set_priomap(q, map, sizeof(map));
	}
	if (!ret)
		ret = rtnl_qdisc_add(pf->nl, q, NLM_F_CREATE | NLM_F_REPLACE);
	rtnl_qdisc_put(q);
	return ret;
}

static int agent_pfc_install_plug(struct agent_pfc *pf, const struct agent_pfc_dev *d,
				  unsigned int p)
{
	int ret;
	struct rtnl_qdisc *q = agent_pfc_plug_qdisc(d, p, &ret);

	if (!q)
		return ret;
	if (!ret)
		ret = rtnl_qdisc_plug_set_limit(q, AGENT_PFC_PLUG_LIMIT);
	if (!ret)
		ret = rtnl_qdisc_add(pf->nl, q, NLM_F_CREATE | NLM_F_EXCL);
	rtnl_qdisc_put(q);
	/* A new plug buffers: open it, it holds only while its priority is paused. */
	return ret < 0 ? ret : agent_pfc_plug(pf, d, p, false);
}

/* IPv4 with TOS >> 5 == p (DSCP 8p..8p+7) goes to priority p's band. */
static int agent_pfc_install_filter(struct agent_pfc *pf, const struct agent_pfc_dev *d,
				    unsigned int p)
{
	struct rtnl_cls *c = rtnl_cls_alloc();
	int ret;

	if (!c)
		return -NLE_NOMEM;
	rtnl_tc_set_ifindex(TC_CAST(c), d->ifindex);
	rtnl_tc_set_parent(TC_CAST(c), AGENT_PFC_ROOT);
	ret = rtnl_tc_set_kind(TC_CAST(c), "u32");
	if (!ret) {
		rtnl_cls_set_protocol(c, ETH_P_IP);
		rtnl_cls_set_prio(c, 1);
		ret = rtnl_u32_add_key_uint8(c, (uint8_t)(p << 5), 0xe0, 1, 0);
	}
	if (!ret)
		ret = rtnl_u32_set_classid(c, AGENT_PFC_BAND(p));
	if (!ret)
		ret = rtnl_u32_set_cls_terminal(c);
	if (!ret)
		ret = rtnl_cls_add(pf->nl, c, NLM_F_CREATE);
	rtnl_cls_put(c);
	return ret;
}

static int agent_pfc_install(struct agent_pfc *pf, struct agent_pfc_dev *d)
{
	const char *what = "root prio qdisc 8808:";
	char step[64];
	bool removed;
	unsigned int p;
	int ret;

	ret = agent_pfc_install_root(pf, d);
	if (ret < 0)
		goto fail;
	d->emulating = true;
	for (p = 0; p < PFC_PRIOS; p++) {
		snprintf(step, sizeof(step), "plug qdisc %x: under 8808:%x",
			 AGENT_PFC_PLUG_MAJOR + p, p + 2);
		what = step;
		ret = agent_pfc_install_plug(pf, d, p);
		if (ret < 0)
			goto fail;
		snprintf(step, sizeof(step), "u32 filter for TOS 0x%02x/0xe0", p << 5);
		ret = agent_pfc_install_filter(pf, d, p);
		if (ret < 0)
			goto fail;
	}
	return 0;
fail:
	rc_err("pfc: %s: emulation: %s: %s%s", d->name, what, nl_geterror(ret),
	       ret == -NLE_PERM ? " (need CAP_NET_ADMIN)"
	       : ret == -NLE_OBJ_NOTFOUND || ret == -NLE_OPNOTSUPP
		   ? " (are sch_prio, sch_plug and cls_u32 available?)"
		   : "");
	if (d->emulating)
		agent_pfc_remove(pf, d, &removed);
	d->emulating = false;
	return -EIO;
}

/* ---- start and stop ---- */

static int agent_pfc_dev_add(struct agent_pfc *pf, const char *name, int ifindex)
{
	struct agent_pfc_dev *n = realloc(pf->devs, (pf->n + 1) * sizeof(*n)), *d;
	char path[256], buf[64];
	unsigned int m[6], i;
	long speed = 0;

	if (!n)
		return -ENOMEM;
	pf->devs = n;
	d = &pf->devs[pf->n++];
	memset(d, 0, sizeof(*d));
	snprintf(d->name, sizeof(d->name), "%s", name);
	d->ifindex = ifindex;
	snprintf(path, sizeof(path), "%s/class/net/%s/address", rc_sysfs_root, name);
	if (!rc_sysfs_read(path, buf, sizeof(buf)) &&
	    sscanf(buf, "%2x:%2x:%2x:%2x:%2x:%2x", &m[0], &m[1], &m[2], &m[3], &m[4], &m[5]) == 6)
		for (i = 0; i < 6; i++)
			d->mac[i] = (uint8_t)m[i];
	/* virtio-net reports -1 (unknown), and reading it fails on a link that is down. */
	snprintf(path, sizeof(path), "%s/class/net/%s/speed", rc_sysfs_root, name);
	if (!rc_sysfs_read(path, buf, sizeof(buf)))
		speed = strtol(buf, NULL, 10);
	d->speed_known = speed > 0;
	agent_pfc_wd_init(&d->wd, speed > 0 ? (uint64_t)speed : AGENT_PFC_SPEED_MBPS_DEFAULT,
			  pf->a->opts.pfc_watchdog_ms);
	return 0;
}

/* The rail netdevs (--rail-map, or railN), never the control interface. */
static int agent_pfc_find_rails(struct agent_pfc *pf)
{
	const struct agent_opts *o = &pf->a->opts;
	struct if_nameindex *ifs = if_nameindex(), *i;
	int ret = 0;

	if (!ifs)
		return -errno;
	for (i = ifs; i->if_index && !ret; i++)
		if (agent_rail_of(o, i->if_name) >= 0 && strcmp(i->if_name, o->control_if))
			ret = agent_pfc_dev_add(pf, i->if_name, (int)i->if_index);
	if_freenameindex(ifs);
	return ret;
}

static int agent_pfc_socket(struct agent_pfc *pf)
{
	int rcvbuf = AGENT_PFC_RCVBUF;
	size_t i;

	pf->fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, htons(PFC_ETHERTYPE));
	if (pf->fd < 0)
		return -errno;
	/*
	 * A storm arrives in bursts, and a starved agent reads late: room for
	 * seconds of frames (each costs ~1 KiB of buffer), past rmem_max if root.
	 */
	if (setsockopt(pf->fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)))
		setsockopt(pf->fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	for (i = 0; i < pf->n; i++) {
		struct packet_mreq mr = {.mr_ifindex = pf->devs[i].ifindex,
					 .mr_type = PACKET_MR_MULTICAST,
					 .mr_alen = 6};

		memcpy(mr.mr_address, pfc_dest_mac, 6);
		if (setsockopt(pf->fd, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &mr, sizeof(mr)))
			rc_warn("pfc: %s: joining 01:80:c2:00:00:01: %s (PFC frames may be "
				"filtered out)",
				pf->devs[i].name, strerror(errno));
	}
	return 0;
}

static void agent_pfc_free(struct agent_pfc *pf)
{
	agent_timer_cancel(&pf->timer);
	if (pf->fd >= 0)
		close(pf->fd);
	if (pf->nl)
		nl_socket_free(pf->nl);
	free(pf->devs);
	free(pf);
}

/* Releases d's holds and removes its qdiscs; logs what it did. */
static void agent_pfc_teardown(struct agent_pfc *pf, struct agent_pfc_dev *d, bool leftover)
{
	bool removed;
	unsigned int p;
	int ret;

	for (p = 0; d->emulating && p < PFC_PRIOS; p++)
		if (d->held[p])
			agent_pfc_plug(pf, d, p, false);
	ret = agent_pfc_remove(pf, d, &removed);
	if (ret < 0)
		rc_warn("pfc: %s: removing the emulation qdiscs (8808:): %s", d->name,
			nl_geterror(ret));
	else if (removed)
		rc_info("pfc: %s: removed %s emulation qdiscs (8808:)", d->name,
			leftover ? "leftover" : "its");
	d->emulating = false;
}

int agent_pfc_start(struct agent *a)
{
	bool emulate = a->opts.pfc_emulate;
	struct agent_pfc *pf = calloc(1, sizeof(*pf));
	char list[512] = "";
	size_t i, off = 0;
	int ret;

	if (!pf)
		return -ENOMEM;
	pf->a = a;
	pf->fd = -1;
	pf->timer.fire = agent_pfc_timer;
	ret = agent_pfc_find_rails(pf);
	if (ret) {
		rc_err("pfc: listing netdevs: %s", strerror(-ret));
		goto err;
	}
	if (!pf->n) {
		if (emulate)
			rc_warn("pfc: --pfc-emulate: no rail netdev to emulate PFC on");
		agent_pfc_free(pf);
		return 0;
	}
	pf->nl = nl_socket_alloc();
	if (!pf->nl || nl_connect(pf->nl, NETLINK_ROUTE) < 0) {
		rc_warn("pfc: rtnetlink: cannot connect: leftover emulation qdiscs stay");
		if (pf->nl)
			nl_socket_free(pf->nl);
		pf->nl = NULL;
	}
	for (i = 0; pf->nl && i < pf->n; i++)
		agent_pfc_teardown(pf, &pf->devs[i], true);
	ret = agent_pfc_socket(pf);
	if (ret) {
		rc_warn("pfc: AF_PACKET socket: %s%s: PFC frames are not observed", strerror(-ret),
			ret == -EPERM ? " (need CAP_NET_RAW)" : "");
		if (emulate)
			goto err;
		agent_pfc_free(pf);
		return 0;
	}
	if (emulate && !pf->nl) {
		ret = -EIO;
		goto err;
	}
	for (i = 0; emulate && i < pf->n; i++) {
		ret = agent_pfc_install(pf, &pf->devs[i]);
		if (ret)
			goto err_emulation;
	}
	agent_poll_init(&pf->poll, &a->loop, pf->fd, POLLIN, false, agent_pfc_ready, NULL);
	ret = agent_poll_arm(&pf->poll);
	if (ret)
		goto err_emulation;
	a->pfc = pf;
	for (i = 0; i < pf->n && off < sizeof(list); i++) {
		const struct agent_pfc_dev *d = &pf->devs[i];

		off += (size_t)snprintf(
		    list + off, sizeof(list) - off, "%s%s (%llu Mb/s%s)", i ? ", " : "", d->name,
		    (unsigned long long)d->wd.speed_mbps, d->speed_known ? "" : " assumed");
	}
	rc_info("pfc: observing %s; watchdog %u ms; emulation %s", list, a->opts.pfc_watchdog_ms,
		emulate ? "on (prio 8808: + plug 8800..8807: + u32 on the TOS byte)" : "off");
	return 0;

err_emulation:
	for (i = 0; i < pf->n; i++)
		if (pf->devs[i].emulating)
			agent_pfc_teardown(pf, &pf->devs[i], false);
err:
	agent_pfc_free(pf);
	return ret ? ret : -EIO;
}

void agent_pfc_stop(struct agent *a)
{
	struct agent_pfc *pf = a->pfc;
	size_t i;

	/* Only at exit, after the loop: the ring is torn down next, so no idle() is awaited. */
	if (!pf)
		return;
	for (i = 0; pf->nl && i < pf->n; i++)
		if (pf->devs[i].emulating)
			agent_pfc_teardown(pf, &pf->devs[i], false);
	agent_pfc_free(pf);
	a->pfc = NULL;
}
