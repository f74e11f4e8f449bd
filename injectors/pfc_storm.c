// SPDX-License-Identifier: MIT
/*
 * pfc_storm: sends real IEEE 802.1Qbb PFC frames (or, with global_pause,
 * 802.3x PAUSE frames) out of the target netdev from an AF_PACKET socket, at
 * rate_fps frames per second for the fault's duration, as a NIC or a switch
 * port stuck in XOFF would. The peer's MAC acts on them: on hardware it stops
 * sending the paused priorities; on virtio-net nothing does, and the
 * receiving agent emulates the pause (agents/agent_pfc.c, --pfc-emulate).
 *
 * prepare() opens and binds the socket and builds the one frame it repeats;
 * inject() sends the first frame; tick() sends what the schedule says is due
 * (injectors/pfc_frame.h: a batch per ~10 ms, at most 50 ms' worth after a
 * late tick, never a burst after a stall),
 * and stops by itself once the duration has passed. revert() closes the
 * socket, so nothing more can be sent, and reports the exact number of
 * frames sent. Nothing on the system changes, so the journal's snapshot only
 * names the sender: an agent that died took its socket, and the storm, with
 * it; a restored storm never sends.
 */
#include <errno.h>
#include <inttypes.h>
#include <net/if_arp.h>
#include <netpacket/packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/netif.h"
#include "common/units.h"
#include "injectors/inj_util.h"
#include "injectors/pfc_frame.h"

#define PFC_STORM_TICK_NS (10 * RC_NSEC_PER_MSEC)
/*
 * A late tick sends what fell due in the last 50 ms: under TCG the agent's
 * loop was seen waking every 20-30 ms instead of 10 (a one-tick cap lost half
 * of a 1000 fps storm); a longer stall skips frames rather than bursting them.
 */
#define PFC_STORM_CATCHUP_NS (50 * RC_NSEC_PER_MSEC)
#define PFC_STORM_MAX_FPS 100000

struct pfc_storm_params {
	uint8_t enable; /* priorities, bit p = priority p; 0xff with global */
	unsigned int quanta;
	uint64_t rate_fps;
	bool global;
};

struct pfc_storm_priv {
	struct pfc_storm_params p;
	int fd; /* the sending socket; -1 once closed, or in a restored fault */
	uint8_t mac[6];
	uint8_t frame[PFC_FRAME_LEN];
	bool restored;
	bool started; /* inject() ran */
	bool ended;   /* the end was reported */
	struct pfc_sched sched;
	uint64_t sent;	 /* frames the kernel accepted: the exact count */
	uint64_t failed; /* frames due that the kernel refused (queue full, link down) */
	int last_err;	 /* errno of the last refused frame */
};

static const char *const pfc_storm_params[] = {"priorities", "quanta", "rate_fps", "global_pause",
					       NULL};

static const char *const pfc_storm_help[] = {
    "priorities=list (required unless global_pause): the priorities 0..7 to pause, e.g. [3]",
    "quanta=int default 65535: pause time per frame, in 512-bit-time quanta (0..65535; 0 = XON)",
    "rate_fps=int default 1000: frames per second (1..100000; the policy's pfc.max_rate_fps caps "
    "it)",
    "global_pause=bool default false: send 802.3x PAUSE (every priority) instead of 802.1Qbb PFC",
    NULL,
};

static int pfc_storm_priorities(const json_t *v, bool global, uint8_t *enable, char *err,
				size_t errlen)
{
	const json_t *e;
	size_t i;

	*enable = 0;
	if (global) {
		if (v) {
			snprintf(
			    err, errlen,
			    "pfc_storm: params.priorities: not used with global_pause: true (an "
			    "802.3x PAUSE stops every priority); give one or the other");
			return -EINVAL;
		}
		*enable = 0xff;
		return 0;
	}
	if (!v) {
		snprintf(err, errlen,
			 "pfc_storm: params.priorities: missing (a list of priorities 0..7, e.g. "
			 "[3]; or global_pause: true for an 802.3x PAUSE storm)");
		return -EINVAL;
	}
	if (!json_is_array(v) || !json_array_size(v)) {
		snprintf(err, errlen,
			 "pfc_storm: params.priorities: must be a non-empty list of priorities "
			 "0..7, e.g. [3]");
		return -EINVAL;
	}
	json_array_foreach(v, i, e) {
		json_int_t p = json_integer_value(e);

		if (!json_is_integer(e) || p < 0 || p >= PFC_PRIOS) {
			snprintf(err, errlen,
				 "pfc_storm: params.priorities[%zu]: must be an integer in 0..7",
				 i);
			return -EINVAL;
		}
		if (*enable & (1u << p)) {
			snprintf(err, errlen,
				 "pfc_storm: params.priorities[%zu]: %d is listed twice", i,
				 (int)p);
			return -EINVAL;
		}
		*enable |= (uint8_t)(1u << p);
	}
	return 0;
}

static int pfc_storm_parse(const json_t *params, struct pfc_storm_params *p, char *err,
			   size_t errlen)
{
	const json_t *g;
	json_int_t quanta, rate;
	int ret;

	ret = inj_params_known("pfc_storm", params, pfc_storm_params, err, errlen);
	if (ret)
		return ret;
	g = json_object_get(params, "global_pause");
	if (g && !json_is_boolean(g)) {
		snprintf(err, errlen, "pfc_storm: params.global_pause: must be true or false");
		return -EINVAL;
	}
	p->global = g && json_is_true(g);
	ret = pfc_storm_priorities(json_object_get(params, "priorities"), p->global, &p->enable,
				   err, errlen);
	if (!ret)
		ret = inj_params_int("pfc_storm", params, "quanta", false, 0, PFC_MAX_QUANTA,
				     PFC_MAX_QUANTA, &quanta, err, errlen);
	if (!ret)
		ret = inj_params_int("pfc_storm", params, "rate_fps", false, 1, PFC_STORM_MAX_FPS,
				     PFC_STORM_DEFAULT_FPS, &rate, err, errlen);
	if (ret)
		return ret;
	p->quanta = (unsigned int)quanta;
	p->rate_fps = (uint64_t)rate;
	return 0;
}

static int pfc_storm_validate(const json_t *params, char *err, size_t errlen)
{
	struct pfc_storm_params p;

	return pfc_storm_parse(params, &p, err, errlen);
}

static void pfc_storm_cleanup(struct inj_fault *f)
{
	struct pfc_storm_priv *priv = f->priv;

	if (!priv)
		return;
	if (priv->fd >= 0)
		close(priv->fd);
	free(priv);
	f->priv = NULL;
}

/* f->priv with the parameters and the frame's content; opens nothing. */
static int pfc_storm_alloc(struct inj_fault *f)
{
	struct pfc_storm_priv *priv = calloc(1, sizeof(*priv));
	int ret;

	if (!priv)
		return inj_fail(f, -ENOMEM, "pfc_storm: %s: out of memory", f->target.netdev);
	priv->fd = -1;
	f->priv = priv;
	ret = pfc_storm_parse(f->params, &priv->p, f->err, sizeof(f->err));
	if (ret)
		pfc_storm_cleanup(f);
	return ret;
}

static void pfc_storm_build(struct pfc_storm_priv *priv)
{
	struct pfc_frame fr = {.global = priv->p.global, .enable = priv->p.enable};
	unsigned int i;

	memcpy(fr.src, priv->mac, sizeof(fr.src));
	for (i = 0; i < PFC_PRIOS; i++)
		fr.quanta[i] = (uint16_t)priv->p.quanta;
	pfc_frame_encode(&fr, priv->frame, sizeof(priv->frame));
}

static void pfc_storm_mac_str(const uint8_t *mac, char *buf, size_t len)
{
	snprintf(buf, len, "%02x:%02x:%02x:%02x:%02x:%02x", mac[0], mac[1], mac[2], mac[3], mac[4],
		 mac[5]);
}

static int pfc_storm_prepare(struct inj_fault *f)
{
	const char *dev = f->target.netdev;
	struct sockaddr_ll sll = {.sll_family = AF_PACKET};
	struct pfc_storm_priv *priv;
	struct ifreq ifr = {0};
	int ret;

	ret = pfc_storm_alloc(f);
	if (ret)
		return ret;
	priv = f->priv;
	if (!dev[0] || strlen(dev) >= sizeof(ifr.ifr_name)) {
		ret = inj_fail(f, -EINVAL,
			       "pfc_storm: the target names no netdev (give a rail or "
			       "netdev)");
		goto err;
	}
	/* Protocol 0: a socket that only sends, never queues what it receives. */
	priv->fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (priv->fd < 0) {
		ret = -errno;
		inj_fail(f, ret, "pfc_storm: %s: AF_PACKET socket: %s%s", dev, strerror(-ret),
			 ret == -EPERM ? " (need CAP_NET_RAW)" : "");
		goto err;
	}
	memcpy(ifr.ifr_name, dev, strlen(dev) + 1);
	if (ioctl(priv->fd, SIOCGIFHWADDR, &ifr)) {
		ret = -errno;
		inj_fail(f, ret, "pfc_storm: %s: reading its MAC address: %s", dev, strerror(-ret));
		goto err;
	}
	if (ifr.ifr_hwaddr.sa_family != ARPHRD_ETHER) {
		ret = inj_fail(f, -EOPNOTSUPP,
			       "pfc_storm: %s: not an Ethernet netdev (ARPHRD %u): PFC frames are "
			       "Ethernet MAC control frames",
			       dev, ifr.ifr_hwaddr.sa_family);
		goto err;
	}
	memcpy(priv->mac, ifr.ifr_hwaddr.sa_data, sizeof(priv->mac));
	sll.sll_ifindex = f->target.ifindex > 0 ? f->target.ifindex : (int)rc_if_nametoindex(dev);
	if (bind(priv->fd, (struct sockaddr *)&sll, sizeof(sll))) {
		ret = -errno;
		inj_fail(f, ret, "pfc_storm: %s: binding the AF_PACKET socket: %s", dev,
			 strerror(-ret));
		goto err;
	}
	pfc_storm_build(priv);
	return 0;
err:
	pfc_storm_cleanup(f);
	return ret;
}

static json_t *pfc_storm_prio_list(const struct pfc_storm_params *p)
{
	json_t *a = json_array();
	unsigned int i;

	for (i = 0; a && i < PFC_PRIOS; i++)
		if (p->enable & (1u << i))
			json_array_append_new(a, json_integer(i));
	return a;
}

/* The `fault` event that ends the storm, once: at the end of the duration, or at revert. */
static void pfc_storm_report_end(struct inj_fault *f, struct pfc_storm_priv *priv, const char *why)
{
	json_t *extra;

	if (priv->ended || !priv->started)
		return;
	priv->ended = true;
	if (!f->env || !f->env->event)
		return;
	extra = json_pack("{s:s, s:I, s:I, s:I}", "why", why, "frames_sent", (json_int_t)priv->sent,
			  "frames_skipped", (json_int_t)priv->sched.skipped, "frames_failed",
			  (json_int_t)priv->failed);
	if (extra && priv->last_err)
		json_object_set_new(extra, "last_error", json_string(strerror(priv->last_err)));
	f->env->event(f, "pfc_storm_end", extra);
}

/*
 * Sends n copies of the frame. 0, or -errno when the netdev is gone (the
 * schedule cannot go on). A full queue or a link that is down only costs the
 * frames of this batch, counted as failed.
 */
static int pfc_storm_send(struct inj_fault *f, struct pfc_storm_priv *priv, uint64_t n)
{
	uint64_t done = 0;

	while (done < n) {
		ssize_t w = send(priv->fd, priv->frame, sizeof(priv->frame), 0);

		if (w == (ssize_t)sizeof(priv->frame)) {
			priv->sent++;
			done++;
			continue;
		}
		if (w < 0 && errno == EINTR)
			continue;
		priv->last_err = w < 0 ? errno : EMSGSIZE;
		priv->failed += n - done;
		if (priv->last_err == EAGAIN || priv->last_err == ENOBUFS ||
		    priv->last_err == ENETDOWN)
			return 0;
		return inj_fail(f, -priv->last_err,
				"pfc_storm: %s: send: %s (%" PRIu64 " frames sent)",
				f->target.netdev, strerror(priv->last_err), priv->sent);
	}
	return 0;
}

static int pfc_storm_inject(struct inj_fault *f)
{
	struct pfc_storm_priv *priv = f->priv;
	uint64_t now = rc_now_ns();
	int ret;

	if (!priv || priv->fd < 0)
		return inj_fail(f, -EBADF, "pfc_storm: %s: not prepared", f->target.netdev);
	pfc_sched_init(&priv->sched, priv->p.rate_fps, f->duration_ms, PFC_STORM_TICK_NS,
		       PFC_STORM_CATCHUP_NS, now);
	priv->started = true;
	if (f->env && f->env->event)
		f->env->event(
		    f, "pfc_storm_start",
		    json_pack("{s:o, s:i, s:I, s:b, s:I}", "priorities",
			      pfc_storm_prio_list(&priv->p), "quanta", (int)priv->p.quanta,
			      "rate_fps", (json_int_t)priv->p.rate_fps, "global_pause",
			      priv->p.global, "frames_planned",
			      priv->sched.total == UINT64_MAX ? (json_int_t)-1
							      : (json_int_t)priv->sched.total));
	ret = pfc_storm_send(f, priv, pfc_sched_due(&priv->sched, now));
	if (ret)
		return ret;
	/* The first frame must leave: a storm that cannot send is an error now, not a silent no-op.
	 */
	if (!priv->sent)
		return inj_fail(f, priv->last_err ? -priv->last_err : -EIO,
				"pfc_storm: %s: the first frame was not sent: %s", f->target.netdev,
				priv->last_err ? strerror(priv->last_err) : "unknown error");
	f->next_tick_ns = pfc_sched_next_ns(&priv->sched, now);
	return 0;
}

static int pfc_storm_tick(struct inj_fault *f, uint64_t now_ns)
{
	struct pfc_storm_priv *priv = f->priv;
	int ret;

	if (!priv || priv->fd < 0 || !priv->started || f->reverted) {
		f->next_tick_ns = 0;
		return 0;
	}
	ret = pfc_storm_send(f, priv, pfc_sched_due(&priv->sched, now_ns));
	if (ret) {
		f->next_tick_ns = 0;
		return ret;
	}
	f->next_tick_ns = pfc_sched_next_ns(&priv->sched, now_ns);
	if (!f->next_tick_ns) {
		/* The duration is over: nothing more to send, ever. */
		close(priv->fd);
		priv->fd = -1;
		pfc_storm_report_end(f, priv, "duration");
	}
	return 0;
}

static int pfc_storm_revert(struct inj_fault *f)
{
	struct pfc_storm_priv *priv = f->priv;
	const char *dev = f->target.netdev;
	bool was_open;

	f->next_tick_ns = 0;
	if (!priv)
		return 0;
	was_open = priv->fd >= 0;
	if (was_open) {
		close(priv->fd);
		priv->fd = -1;
	}
	if (priv->restored) {
		inj_action(
		    f,
		    "%s: PFC storm: nothing to stop (its sender died with the agent that ran "
		    "it)",
		    dev);
		return 0;
	}
	if (!priv->started) {
		inj_action(f, "%s: PFC storm: never started, nothing sent", dev);
		return 0;
	}
	pfc_storm_report_end(f, priv, "revert");
	inj_action(f,
		   "%s: PFC storm %s: %" PRIu64 " frames sent (%" PRIu64 " skipped after stalls, "
		   "%" PRIu64 " refused by the kernel)",
		   dev, was_open ? "stopped" : "already over", priv->sent, priv->sched.skipped,
		   priv->failed);
	return 0;
}

static int pfc_storm_verify(struct inj_fault *f)
{
	const struct pfc_storm_priv *priv = f->priv;

	if (priv && priv->fd >= 0)
		return inj_fail(f, -EIO, "pfc_storm: %s: the sending socket is still open",
				f->target.netdev);
	return 0;
}

static json_t *pfc_storm_describe_prior(const struct inj_fault *f)
{
	const struct pfc_storm_priv *priv = f->priv;
	char mac[18], hex[2 * PFC_FRAME_LEN + 1];
	size_t i;

	if (!priv)
		return json_object();
	pfc_storm_mac_str(priv->mac, mac, sizeof(mac));
	for (i = 0; i < PFC_FRAME_LEN; i++)
		snprintf(hex + 2 * i, 3, "%02x", priv->frame[i]);
	return json_pack(
	    "{s:b, s:s, s:s, s:s}", "sending", 0, "mac", mac, "frame", priv->restored ? "" : hex,
	    "note",
	    "the PFC frames are real (AF_PACKET); a hardware NIC acts on them, virtio-net and "
	    "Soft-RoCE do not: there the receiving agent emulates the pause when it runs with "
	    "--pfc-emulate");
}

static json_t *pfc_storm_snapshot(const struct inj_fault *f)
{
	const struct pfc_storm_priv *priv = f->priv;
	char mac[18];

	if (!priv)
		return NULL;
	pfc_storm_mac_str(priv->mac, mac, sizeof(mac));
	return json_pack("{s:s, s:b}", "mac", mac, "system_changed", 0);
}

/* The storm died with its process: the restored fault only knows who sent it. */
static int pfc_storm_restore(struct inj_fault *f, const json_t *snapshot)
{
	const char *mac = json_string_value(json_object_get(snapshot, "mac"));
	struct pfc_storm_priv *priv;
	unsigned int m[6], i;
	int ret;

	if (!mac ||
	    sscanf(mac, "%2x:%2x:%2x:%2x:%2x:%2x", &m[0], &m[1], &m[2], &m[3], &m[4], &m[5]) != 6)
		return inj_fail(f, -EINVAL,
				"pfc_storm: %s: journal snapshot: no \"mac\" (want {\"mac\": "
				"\"aa:bb:cc:dd:ee:ff\"})",
				f->target.netdev);
	ret = pfc_storm_alloc(f);
	if (ret)
		return ret;
	priv = f->priv;
	for (i = 0; i < 6; i++)
		priv->mac[i] = (uint8_t)m[i];
	priv->restored = true;
	f->next_tick_ns = 0;
	return 0;
}

const struct injector inj_pfc_storm = {
    .name = "pfc_storm",
    .summary = "send IEEE 802.1Qbb PFC (or 802.3x PAUSE) frames out of a netdev at a rate, for the "
	       "fault's duration",
    .flags = INJ_NEEDS_DURATION,
    .param_help = pfc_storm_help,
    .validate = pfc_storm_validate,
    .prepare = pfc_storm_prepare,
    .inject = pfc_storm_inject,
    .tick = pfc_storm_tick,
    .revert = pfc_storm_revert,
    .verify = pfc_storm_verify,
    .describe_prior = pfc_storm_describe_prior,
    .snapshot = pfc_storm_snapshot,
    .restore = pfc_storm_restore,
    .cleanup = pfc_storm_cleanup,
};
