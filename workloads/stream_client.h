/* SPDX-License-Identifier: MIT */
/*
 * The client role's state, shared by its two halves: stream_client.c (the
 * data path: posting, completions, failover, stall, fail-back, the loop) and
 * stream_rail.c (each rail's rdma_cm connection: connect attempts, cm events,
 * background reconnects).
 */
#ifndef WS_CLIENT_H
#define WS_CLIENT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "workloads/stream.h"
#include "workloads/stream_conn.h"
#include "workloads/stream_stats.h"

/* wr_id: a data message's seq, or a heartbeat's seq with this bit set. */
#define WS_WRID_HB (1ULL << 63)
/* wr_id of a kick: a zero-length RDMA WRITE that restarts a Soft-RoCE requester (see kick). */
#define WS_WRID_KICK (1ULL << 62)
/* Per-rail heartbeat buffer, after the data slots. */
#define WS_HB_SLOT 64

enum ws_rail_state { WS_RAIL_DOWN, WS_RAIL_CONNECTING, WS_RAIL_UP };

struct ws_rail {
	struct ws_conn c; /* c.pos is the position in --connect */
	enum ws_rail_state state;
	struct sockaddr_storage dst;
	struct sockaddr_storage src;
	bool has_src;
	uint64_t raddr; /* op=write: the server's ring */
	uint32_t rkey;
	uint32_t rslots;
	uint64_t next_try_ns; /* DOWN: when to try again */
	uint64_t deadline_ns; /* CONNECTING: give the attempt up then */
	uint64_t up_since_ns;
	bool hb_out;
	uint64_t hb_last_ns;
	bool soft_roce; /* the device is rxe (vendor 0xffffff): stalled requesters get kicks */
	bool kick_out;	/* a kick is in the send queue */
	uint64_t kick_last_ns;
	uint64_t hb_seq;
	unsigned int failed_attempts; /* since the rail last went down or up */
	char why[200];		      /* last failure */
};

struct ws_client {
	const struct ws_opts *o;
	struct rdma_event_channel *ech;
	struct ws_rail rail[WS_MAX_RAILS];
	int n;
	int active;	   /* position, -1 while stalled or starting */
	int last_active;   /* for the failover line after a stall */
	bool started;	   /* every rail connected once; ready printed */
	bool failing_back; /* draining the active rail before moving to rail 0 */
	bool stopping;
	bool refused; /* start-up: the server refused our configuration for good */
	bool out_gone;
	uint8_t *buf; /* W slots of msg_size, then WS_HB_SLOT per rail */
	size_t buflen;
	uint64_t *post_ns;	    /* per local slot: when its message was last posted */
	uint64_t una, snd_nxt, nxt; /* oldest not completed, next to post here, next new */
	uint64_t sent, completed, resent, errors, bytes;
	uint64_t failovers, failbacks, stalls, heartbeats, kicks;
	struct ws_stats st;
	uint64_t start_ns;
	uint64_t progress_ns; /* last data completion, or when the window last went busy */
	bool slow;	      /* work in flight and no completion for WS_SLOW_MS: stall said */
	/* --mr-churn: the active rail's send MR is being replaced (sending waits) */
	bool rereg;
	uint64_t rereg_due_ns, rereg_retry_ns, rereg_fail_since_ns;
	unsigned int rereg_failures; /* in a row, in the current re-registration */
	uint64_t mr_reregs, mr_errors;
	/* --rate: a token bucket of bytes, at most two messages deep */
	double pace_tokens;
	uint64_t pace_last_ns, pace_next_ns; /* last refill; when the next message may go */
	uint64_t polled_ns;		     /* --busy-poll: when poll() last ran */
};

static inline int ws_cl_rail_id(const struct ws_client *cl, int pos)
{
	return cl->o->rail_id[pos];
}

/* A failed write to stdout means nobody reads us any more: stop. */
static inline void ws_cl_emit(struct ws_client *cl, int ret)
{
	if (ret)
		cl->out_gone = true;
}

/* stream_rail.c */

/* Records why r's connect attempt (or r) failed, in r->why; returns -EIO for tail calls. */
int ws_cl_why(struct ws_rail *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The attempt in progress on r failed (r->why says why): drop it, retry in WS_RECONNECT_MS. */
void ws_cl_drop_attempt(struct ws_client *cl, struct ws_rail *r);
/* Starts a connect attempt on r (resolve address, route, connect: driven by cm events). */
void ws_cl_connect(struct ws_client *cl, struct ws_rail *r, uint64_t now);
/* Reconnect timing of a rail that is not up: next attempt, or an attempt's deadline. */
void ws_cl_rail_timer(struct ws_client *cl, struct ws_rail *r, uint64_t now);
/* Handles every pending cm event; -errno when the event channel failed. */
int ws_cl_cm(struct ws_client *cl);
/* Start-up gave up: says which rails did not connect, and why. */
void ws_cl_startup_failed(struct ws_client *cl);

/* stream_client.c */

/* Every rail connected for the first time: print ready, start streaming on rail 0. */
void ws_cl_start(struct ws_client *cl);
/* Makes pos the active rail after a failure or a stall: everything pending is re-sent there. */
void ws_cl_activate(struct ws_client *cl, int pos);
/* r failed (reason says why): rail_down, teardown, and failover or stall if it was active. */
void ws_cl_rail_fail(struct ws_client *cl, struct ws_rail *r, const char *reason);

#endif
