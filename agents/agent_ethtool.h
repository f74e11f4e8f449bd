/* SPDX-License-Identifier: MIT */
/*
 * PFC storm detection on hardware, from the NIC's own pause counters: a
 * netdev's ethtool statistics (SIOCETHTOOL: ETHTOOL_GSSET_INFO for the
 * ETH_SS_STATS count, ETHTOOL_GSTRINGS, ETHTOOL_GSTATS, what `ethtool -S`
 * reads), a pure classifier that picks the pause/PFC counters out of them by
 * name, the NIC's PFC storm prevention time (ETHTOOL_GTUNABLE
 * ETHTOOL_PFC_PREVENTION_TOUT, `ethtool --get-tunable IF pfc-prevention-tout`),
 * and a poller the counter sampler (agent_counters.c) drives at its cadence.
 *
 * The poller turns counter movements into `pfc` events:
 *   {"type":"nic_counter","netdev","name","delta","value","priority"?}  each
 *       selected counter that moved since the last sample;
 *   {"type":"rx","netdev","priority"|"global":true,"frames","total","name",
 *       "source":"nic"}  pause frames the NIC received (the same `rx` the
 *       lab's frame observer emits, so the pfc_pause signal works on both),
 *       at most one per priority (and one global) per netdev and sample;
 *   {"type":"storm_detected","netdev","source":"nic","name","delta","value",
 *       "severity"}  when a pause-storm counter (mlx5's
 *       tx_pause_storm_warning_events / tx_pause_storm_error_events, the NIC's
 *       storm prevention at work) moved.
 * The first reading of a counter, and one that went backwards (a reset),
 * only records its value. Counters are matched by name, not by index: the
 * set changes when PFC is enabled on a priority (mlx5 lists per-priority
 * pause counters only for enabled priorities) or channels change, so every
 * sample reads names and values, as `ethtool -S` does.
 *
 * A netdev without pause counters (virtio-net, veth) costs one probe (count
 * and names) when it is added and is not read again; one whose driver has no
 * statistics at all costs one ioctl.
 */
#ifndef AGENT_ETHTOOL_H
#define AGENT_ETHTOOL_H

#include <jansson.h>
#include <linux/ethtool.h>
#include <stdbool.h>
#include <stdint.h>

#define AGENT_ETHTOOL_NAME_LEN ETH_GSTRING_LEN /* a name, not NUL-terminated when full */
#define AGENT_ETHTOOL_MAX_STATS 65536u	       /* more is refused (-E2BIG) */
/* Room for statistics that appear between reading the count and the names or values. */
#define AGENT_ETHTOOL_SLACK 256u

/* ---- the pure classifier ---- */

enum agent_ethtool_kind {
	AGENT_ETH_NONE = 0,    /* not pause-related */
	AGENT_ETH_FRAMES,      /* pause (XOFF) frames: rx_prio3_pause, link_xoff_rx.nic */
	AGENT_ETH_XON,	       /* XON frames: rx_priority_3_xon.nic, link_xon_rx.nic */
	AGENT_ETH_DURATION,    /* time paused: rx_prio3_pause_duration, pfc_pri3_rx_duration_us */
	AGENT_ETH_TRANSITIONS, /* pause on/off changes: rx_prio3_pause_transition, *xon2xoff* */
	AGENT_ETH_STORM,       /* storm prevention: tx_pause_storm_warning_events */
};

enum agent_ethtool_dir { AGENT_ETH_DIR_NONE, AGENT_ETH_RX, AGENT_ETH_TX };

struct agent_ethtool_class {
	enum agent_ethtool_kind kind;
	enum agent_ethtool_dir dir;
	int priority; /* 0..7 from the name, -1 if it carries none */
	/*
	 * A total over priorities or a MAC-control count (rx_pfc_frames,
	 * rx_pause_ctrl_phy): it moves with the per-priority counters, so it
	 * makes no `rx` event of its own.
	 */
	bool total;
};

/*
 * Whether name (up to AGENT_ETHTOOL_NAME_LEN bytes) is a pause/PFC counter,
 * and what kind. Names are split into words at every character that is not a
 * letter or digit; a name is selected when a word contains "pause" or "pfc",
 * or is "xon", "xoff" or "xon2xoff". c may be NULL.
 */
bool agent_ethtool_classify(const char *name, struct agent_ethtool_class *c);
/*
 * The priority a counter's name carries: a word "prioN" or "priN"
 * (rx_prio3_pause, rx_pfc_ena_frames_pri3, pfc_pri3_rx_duration_us) or the
 * words "priority" "N" (rx_priority_3_xoff.nic); N is one digit, 0..7. -1 if none.
 */
int agent_ethtool_priority(const char *name);
/* Whether a classified counter's movement is pause frames received (an `rx` event). */
bool agent_ethtool_is_rx_pause(const struct agent_ethtool_class *c);

/* ---- SIOCETHTOOL ---- */

/* The statistics of one netdev as last read; buffers are reused from read to read. */
struct agent_ethtool_stats {
	unsigned int n;
	const char *names;	/* n names, AGENT_ETHTOOL_NAME_LEN bytes each */
	const uint64_t *values; /* n values, after agent_ethtool_values() */
	void *sbuf, *vbuf;	/* guard-paged mappings: the kernel fills what it counts */
	size_t slen, vlen;	/* their usable bytes */
};

/* A socket for SIOCETHTOOL (AF_INET datagram, else generic netlink), or -errno. */
int agent_ethtool_socket(void);
/* The number of ETH_SS_STATS statistics; -EOPNOTSUPP when the driver has none. */
int agent_ethtool_count(int fd, const char *ifname, unsigned int *n);
/*
 * Reads the count and the names into st. -EOPNOTSUPP (no statistics),
 * -EAGAIN (the set changed while it was read), -E2BIG, or another -errno.
 */
int agent_ethtool_names(int fd, const char *ifname, struct agent_ethtool_stats *st);
/* Reads the values of the st->n names just read; -EAGAIN if the set changed since. */
int agent_ethtool_values(int fd, const char *ifname, struct agent_ethtool_stats *st);
/* Name i, NUL-terminated, in out. */
void agent_ethtool_name(const struct agent_ethtool_stats *st, unsigned int i,
			char out[AGENT_ETHTOOL_NAME_LEN + 1]);
void agent_ethtool_stats_free(struct agent_ethtool_stats *st);
/*
 * The NIC's PFC storm prevention time in ms (PFC_STORM_PREVENTION_AUTO: the
 * driver's default; PFC_STORM_PREVENTION_DISABLE: off). -EOPNOTSUPP is the
 * normal answer of a driver without it.
 */
int agent_ethtool_pfc_prevention(int fd, const char *ifname, unsigned int *tout_ms);
/*
 * The inventory's view of a netdev: {"counters": N, "prevention_tout_ms": MS
 * | "auto" | "disabled" | "not supported"}, N the pause/PFC counters among
 * its statistics (0 without statistics). fd from agent_ethtool_socket().
 */
json_t *agent_ethtool_inventory(int fd, const char *ifname);

/* ---- the poller ---- */

/* Receives one `pfc` event's fields (stolen). */
typedef void (*agent_ethtool_emit_fn)(void *ctx, json_t *fields);
struct agent_ethtool_poll;

/* NULL on failure (no memory, no socket), logged. */
struct agent_ethtool_poll *agent_ethtool_poll_new(agent_ethtool_emit_fn emit, void *ctx);
/*
 * Probes netdev once (unless it was added already): 1 when it has pause
 * counters (their values are the baseline), 0 when it has none (it is
 * skipped from then on; logged at debug level), -errno when it cannot be read.
 */
int agent_ethtool_poll_add(struct agent_ethtool_poll *p, const char *netdev);
/* Reads every polled netdev and emits what moved. */
void agent_ethtool_poll_sample(struct agent_ethtool_poll *p);
/* The number of netdevs read by each sample. */
unsigned int agent_ethtool_poll_count(const struct agent_ethtool_poll *p);
void agent_ethtool_poll_free(struct agent_ethtool_poll *p);

struct agent_opts;
/* Adds the rail netdevs (--rail-map or railN, never the control interface) not yet added. */
void agent_ethtool_poll_rails(struct agent_ethtool_poll *p, const struct agent_opts *o);

#endif
