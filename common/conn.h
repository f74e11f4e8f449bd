/* SPDX-License-Identifier: MIT */
/*
 * A protocol connection: a transport plus a frame decoder and an output queue.
 * Event-loop agnostic: the owner calls rc_conn_read() when the fd is readable
 * and rc_conn_flush() when it is writable (rc_conn_want_write() says when to
 * ask for that, also after a read: a TLS handshake may owe output), so both
 * the agent's io_uring loop and the coordinator's poll loop drive the same
 * code. An edge-triggered owner reads again after each flush (transport.h).
 */
#ifndef RC_CONN_H
#define RC_CONN_H

#include <jansson.h>
#include <stdbool.h>

#include "common/proto.h"
#include "common/transport.h"

/*
 * Output a peer may leave unread before rc_conn_send() gives up on it (-ENOBUFS): eight frames of
 * the largest size, or tens of thousands of events. An agent holds this much at most per
 * coordinator connection (AGENT_MAX_CLIENTS of them), whatever a peer that never reads does.
 */
#define RC_CONN_OUT_MAX (8u << 20)

struct rc_conn {
	struct rc_transport *t;
	struct rc_decoder dec;
	uint8_t *out;
	size_t out_len, out_cap, out_max;
	uint32_t seq_out;
	void *user;
};

/* Called per decoded frame; msg is borrowed. A non-zero return stops rc_conn_read(). */
typedef int (*rc_conn_frame_cb)(struct rc_conn *c, uint16_t type, json_t *msg, void *arg);

/* Takes ownership of t. */
int rc_conn_init(struct rc_conn *c, struct rc_transport *t);
void rc_conn_close(struct rc_conn *c);
int rc_conn_fd(const struct rc_conn *c);

/*
 * Queues one message (a JSON object) and tries to send it at once.
 * -ENOBUFS when the peer is so far behind that the queue passed its limit
 * (the owner should drop the peer), -EMSGSIZE when msg is too big.
 */
int rc_conn_send(struct rc_conn *c, uint16_t type, json_t *msg);
int rc_conn_flush(struct rc_conn *c);
bool rc_conn_want_write(const struct rc_conn *c);

/*
 * Reads what is available and calls cb per frame. Returns 0 when the socket
 * would block, -ECONNRESET on close, -EPROTO/-EMSGSIZE/-EPROTONOSUPPORT on a
 * bad frame or a payload that is not a JSON object; the owner closes then.
 */
int rc_conn_read(struct rc_conn *c, rc_conn_frame_cb cb, void *arg);

/*
 * Blocking request/response for simple clients (coordinator set-up, tests):
 * sends req (adds "id"), waits up to timeout_ms for the response with that id,
 * passing any other frame to cb. *resp is a new reference on success.
 */
int rc_conn_call(struct rc_conn *c, json_t *req, int timeout_ms, json_t **resp, rc_conn_frame_cb cb,
		 void *arg);

#endif
