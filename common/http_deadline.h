/* SPDX-License-Identifier: MIT */
/*
 * A whole-request deadline for libmicrohttpd servers (the agent's /metrics, the coordinator's
 * alert receiver). libmicrohttpd has only an idle timeout, so a client that sends one byte of its
 * headers every few seconds holds a connection, and a slot of a small connection limit, for good:
 * 16 such clients blocked every scrape, 64 every webhook.
 *
 * Here every connection has LIMIT from its accept, and again from the end of each answer (a
 * keep-alive connection's next request), to finish its request; rc_http_deadline_sweep() shuts
 * down the socket of each one past that, and libmicrohttpd then closes it as a peer that went
 * away. A socket is named by its inode as well as its descriptor, so a descriptor closed and
 * reused meanwhile is never touched. Thread-safe: libmicrohttpd's callbacks may run on its own
 * thread while the owner sweeps from another.
 */
#ifndef RC_HTTP_DEADLINE_H
#define RC_HTTP_DEADLINE_H

#include <microhttpd.h>
#include <stdint.h>

struct rc_http_deadline;

/* NULL when out of memory. Free after MHD_stop_daemon(), which notifies every close. */
struct rc_http_deadline *rc_http_deadline_new(uint64_t limit_ns);
void rc_http_deadline_free(struct rc_http_deadline *d);

/* Give as MHD_OPTION_NOTIFY_CONNECTION, rc_http_deadline_notify, d. */
void rc_http_deadline_notify(void *cls, struct MHD_Connection *c, void **socket_context,
			     enum MHD_ConnectionNotificationCode toe);
/* Call from the MHD_OPTION_NOTIFY_COMPLETED callback: the connection's clock starts again. */
void rc_http_deadline_answered(struct rc_http_deadline *d, struct MHD_Connection *c);

/*
 * Shuts down every connection past its deadline at now_ns (CLOCK_MONOTONIC); how many. *next_ns
 * (may be NULL) gets the earliest deadline still to come, 0 when no connection is open.
 */
unsigned int rc_http_deadline_sweep(struct rc_http_deadline *d, uint64_t now_ns, uint64_t *next_ns);
/* Connections cut so far. */
unsigned int rc_http_deadline_cut(struct rc_http_deadline *d);

#endif
