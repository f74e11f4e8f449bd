/* SPDX-License-Identifier: MIT */
/*
 * The two roles of rdmachaos-stream and what they share at run time: the
 * stop request set by SIGINT/SIGTERM and the timing constants of failover.
 */
#ifndef WS_STREAM_H
#define WS_STREAM_H

#include <signal.h>
#include <stdint.h>

#include "common/units.h"
#include "workloads/stream_args.h"

/* Heartbeat period on each standby rail. */
#define WS_HEARTBEAT_MS 200
/* Pause between background reconnect attempts of a down rail. */
#define WS_RECONNECT_MS 1000
/* A background connect attempt not established by then is abandoned and retried. */
#define WS_ATTEMPT_MS 3000
/* The preferred rail must stay up this long before the client fails back to it. */
#define WS_FAILBACK_MS 1000
/* A rail with work in flight and no completion for this long (at least) is dead. */
#define WS_WATCHDOG_MIN_MS 2000
/* Work in flight and no completion for this long: a `stall` line (no_progress), then `resume`. */
#define WS_SLOW_MS 500
/* --mr-churn: a failed registration is retried after 100 ms, doubling up to this. */
#define WS_MR_BACKOFF_MIN_MS 100
#define WS_MR_BACKOFF_MAX_MS 2000
/* At exit the client waits this long for outstanding completions. */
#define WS_DRAIN_MS 2000
/* The client posts at most this many messages with one ibv_post_send() (one doorbell). */
#define WS_POST_BATCH 32
/* Longest poll() sleep: timers are checked at least this often. */
#define WS_POLL_MS 10
/* --busy-poll: poll() (cm events, standby rails, timers) still runs at least this often. */
#define WS_BUSY_POLL_GAP_MS 1

/* The signal number that asked us to stop, 0 while none did. */
extern volatile sig_atomic_t ws_stop_signal;
/* SIGINT/SIGTERM set ws_stop_signal (no SA_RESTART: poll() returns EINTR); SIGPIPE ignored. */
int ws_signals_install(void);

/*
 * A poll() timeout that wakes at deadline: the time left rounded up to a whole
 * millisecond (rounded down, the last millisecond before it would be a timeout
 * of 0, a spin), at most cap; 0 once deadline has passed.
 */
static inline int ws_timeout_ms(uint64_t now, uint64_t deadline, int cap)
{
	uint64_t ms;

	if (deadline <= now)
		return 0;
	ms = (deadline - now + RC_NSEC_PER_MSEC - 1) / RC_NSEC_PER_MSEC;
	return ms < (uint64_t)cap ? (int)ms : cap;
}

/* Run a role until stopped; return the process exit status. */
int ws_client_run(const struct ws_opts *o);
int ws_server_run(const struct ws_opts *o);

#endif
