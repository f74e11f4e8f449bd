/* SPDX-License-Identifier: MIT */
/*
 * Prometheus metrics (--metrics-listen ADDR:PORT): GET /metrics answers the
 * text exposition format 0.0.4 of what the agent observes, rendered from the
 * state of the modules that observe it. Those modules export it through the
 * small accessors below (each implemented in the module named above it), so
 * the renderer reads no module's internals and tests fake the accessors.
 *
 * The HTTP server is libmicrohttpd in external epoll mode (MHD_USE_EPOLL, no
 * thread of its own): its epoll fd has a one-shot poll in the agent's
 * io_uring loop, re-armed after each MHD_run(), and a loop timer calls
 * MHD_run() when MHD_get_timeout() says a connection is due to time out. A
 * request is answered from inside MHD_run(), on the loop, so rendering reads
 * agent state without locks, as every other module does.
 */
#ifndef AGENT_METRICS_H
#define AGENT_METRICS_H

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "injectors/pfc_frame.h"

#define AGENT_METRICS_PATH "/metrics"
#define AGENT_METRICS_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"
/* A response larger than this is refused (500) rather than sent cut short. */
#define AGENT_METRICS_MAX_BYTES (8u << 20)
#define AGENT_METRICS_CONN_LIMIT 16 /* scrapers at once */
#define AGENT_METRICS_CONN_PER_IP 8 /* of them from one address */
/* An idle connection is closed after this, and a request not whole this long after the accept
 * or the previous answer (common/http_deadline.h). */
#define AGENT_METRICS_CONN_TIMEOUT_S 10

struct agent;
struct agent_ethtool_poll;

/*
 * Starts the server when --metrics-listen was given (0 and nothing otherwise).
 * -errno with the cause logged, e.g. a port already in use, after which the
 * agent does not start.
 */
int agent_metrics_start(struct agent *a);
/* At exit, after the loop. */
void agent_metrics_stop(struct agent *a);
/*
 * The exposition text of a's state at now_ns (CLOCK_MONOTONIC) into *text
 * (malloc'd, NUL-terminated, *len bytes without the NUL). nic: the NIC pause
 * counters' poller (NULL: none). 0, -ENOMEM, or -E2BIG past max bytes.
 */
int agent_metrics_render(struct agent *a, struct agent_ethtool_poll *nic, uint64_t now_ns,
			 size_t max, char **text, size_t *len);

/* ---- what the modules export for the metrics; every array is the caller's to free ---- */

/* agent_link.c: a netdev's oper state as the link observer tracks it. */
struct agent_link_track {
	bool up;	      /* oper up: admin up, carrier, operstate UP (or UNKNOWN) */
	uint64_t transitions; /* up <-> down changes seen since first seen */
	uint64_t down_ns;     /* time down in outages that ended */
	uint64_t since_ns; /* while down: when this outage began (or the netdev was first seen) */
};

/* The first sighting of a netdev at now_ns: no transition. */
void agent_link_track_init(struct agent_link_track *t, bool up, uint64_t now_ns);
/* A state seen at now_ns; counts a transition when it differs. */
void agent_link_track_set(struct agent_link_track *t, bool up, uint64_t now_ns);
/* Cumulative time down, including the current outage up to now_ns. */
uint64_t agent_link_track_down_ns(const struct agent_link_track *t, uint64_t now_ns);

struct agent_link_stat {
	char netdev[IF_NAMESIZE];
	struct agent_link_track track;
};

/* Every netdev the link observer knows; 0 (none without an observer) or -ENOMEM. */
int agent_link_stats(struct agent *a, struct agent_link_stat **out, size_t *n);

/* agent_verbs.c: RDMA ports as the kernel reports them now (sysfs). */
struct agent_port_stat {
	char device[64];
	int port;
	char netdev[IF_NAMESIZE]; /* "" when the port has none (InfiniBand) */
	int state;		  /* enum ibv_port_state: 4 is ACTIVE */
};

int agent_verbs_ports(struct agent *a, struct agent_port_stat **out, size_t *n);

/* agent_counters.c: RDMA port counters, read now. */
struct agent_rdma_counter {
	char device[64];
	int port;
	char group[16]; /* "counters" or "hw_counters" */
	char name[64];
	uint64_t value;
};

int agent_counters_read(struct agent *a, struct agent_rdma_counter **out, size_t *n);

/* agent_pfc.c: the PFC and PAUSE frames each observed rail received, and the storm watchdog. */
struct agent_pfc_stat {
	char netdev[IF_NAMESIZE];
	uint64_t frames[PFC_PRIOS]; /* PFC frames enabling each priority */
	uint64_t global_frames;	    /* 802.3x PAUSE frames */
	bool storm[PFC_PRIOS];	    /* the watchdog's storm_detected, not yet cleared */
};

int agent_pfc_stats(struct agent *a, struct agent_pfc_stat **out, size_t *n);

/* agent_ethtool.c: the NIC's pause frame counters as last read by poller p. */
enum agent_nic_dir { AGENT_NIC_RX, AGENT_NIC_TX };

struct agent_nic_pause {
	char netdev[IF_NAMESIZE];
	int priority; /* 0..7, -1: link-level (802.3x) */
	enum agent_nic_dir dir;
	uint64_t frames; /* the largest of the NIC's counters of these frames */
};

/* Pause (XOFF) frame counters only: no XON, durations or totals over priorities. */
int agent_ethtool_poll_frames(const struct agent_ethtool_poll *p, struct agent_nic_pause **out,
			      size_t *n);

/* agent_workload.c: events of the workloads this agent ran, counted per wl_id. */
enum agent_wl_count_kind {
	AGENT_WL_QP_ERROR, /* `error` events, per wc_status */
	AGENT_WL_MR_ERROR, /* `mr_error` events */
};

#define AGENT_WL_COUNTS_MAX 4096 /* (wl_id, kind, wc_status) kept; more are not counted */

struct agent_wl_count {
	char wl_id[64];
	enum agent_wl_count_kind kind;
	char wc_status[32]; /* AGENT_WL_QP_ERROR only */
	uint64_t n;
};

/* Kept until agent_workloads_shutdown(). */
int agent_workload_counts(struct agent *a, struct agent_wl_count **out, size_t *n);

/* agent_faults.c: the fault records (active, and reverted ones still kept). */
struct agent_fault_stat {
	char fault_id[64];
	char injector[32];
	char target[128]; /* the netdev, "device/port", or "workload:WL_ID" */
	bool active;	  /* in force: injected and not yet reverted and verified */
};

int agent_faults_stats(struct agent *a, struct agent_fault_stat **out, size_t *n);
/* Faults of that injector injected since start (successful injects). */
uint64_t agent_faults_injected(struct agent *a, const char *injector);

#endif
