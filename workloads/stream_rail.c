// SPDX-License-Identifier: MIT
/*
 * The client's side of each rail's rdma_cm connection: a connect attempt is
 * rdma_resolve_addr -> ADDR_RESOLVED -> rdma_resolve_route -> ROUTE_RESOLVED
 * -> QP setup and rdma_connect (ACK timeout, retry count, hello in the private
 * data) -> ESTABLISHED (the server's ring in the accept's private data). Any
 * failure drops the attempt and retries WS_RECONNECT_MS later; an attempt not
 * established within WS_ATTEMPT_MS is dropped too (a connect request sent
 * over a dead link is otherwise retried by the CM for minutes).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "common/units.h"
#include "workloads/stream_client.h"
#include "workloads/stream_integrity.h"
#include "workloads/stream_out.h"

/* Records why r's connect attempt (or r) failed; returns -EIO for tail calls. */
int ws_cl_why(struct ws_rail *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->why, sizeof(r->why), fmt, ap);
	va_end(ap);
	return -EIO;
}

/* The attempt in progress on r failed (r->why says why): drop it, retry in WS_RECONNECT_MS. */
void ws_cl_drop_attempt(struct ws_client *cl, struct ws_rail *r)
{
	/* Say it once per outage; the retries every second would only repeat it. */
	if (!r->failed_attempts++)
		rc_info("rail %d (%s): connect failed: %s; retrying every %d ms",
			ws_cl_rail_id(cl, r->c.pos), cl->o->addr[r->c.pos], r->why,
			WS_RECONNECT_MS);
	else
		rc_dbg("rail %d: connect failed: %s", ws_cl_rail_id(cl, r->c.pos), r->why);
	ws_conn_teardown(&r->c, false);
	r->state = WS_RAIL_DOWN;
	r->next_try_ns = rc_now_ns() + WS_RECONNECT_MS * RC_NSEC_PER_MSEC;
}

static int ws_cl_connect_start(struct ws_client *cl, struct ws_rail *r, uint64_t now)
{
	uint8_t timeout = cl->o->ack_timeout;
	struct rdma_cm_id *id;
	int pos = r->c.pos;

	memset(&r->c, 0, sizeof(r->c));
	r->c.pos = pos;
	r->state = WS_RAIL_CONNECTING;
	r->deadline_ns = now + WS_ATTEMPT_MS * RC_NSEC_PER_MSEC;
	if (rdma_create_id(cl->ech, &id, r, RDMA_PS_TCP))
		return ws_cl_why(r, "rdma_create_id: %s", strerror(errno));
	r->c.id = id;
	/* Must precede the connect: rdma_cm applies it when the QP moves to RTS. */
	if (rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_ACK_TIMEOUT, &timeout,
			    sizeof(timeout)))
		return ws_cl_why(r, "rdma_set_option(ACK_TIMEOUT %u): %s", timeout,
				 strerror(errno));
	/* The IP TOS of RoCEv2 packets: the DSCP a PFC priority (or its lab emulation) keys on. */
	if (cl->o->tos >= 0) {
		uint8_t tos = (uint8_t)cl->o->tos;

		if (rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS, &tos, sizeof(tos)))
			return ws_cl_why(r, "rdma_set_option(TOS %u): %s", tos, strerror(errno));
	}
	if (rdma_resolve_addr(id, r->has_src ? (struct sockaddr *)&r->src : NULL,
			      (struct sockaddr *)&r->dst, WS_CM_TIMEOUT_MS))
		return ws_cl_why(r, "rdma_resolve_addr %s: %s", cl->o->addr[pos], strerror(errno));
	return 0;
}

void ws_cl_connect(struct ws_client *cl, struct ws_rail *r, uint64_t now)
{
	if (ws_cl_connect_start(cl, r, now))
		ws_cl_drop_attempt(cl, r);
}

static int ws_cl_on_route(struct ws_client *cl, struct ws_rail *r)
{
	uint32_t w = cl->o->queue_depth;
	struct ws_conn_caps caps = {.send_wr = w + 2, .recv_wr = 1, .cq_size = w + 4};
	struct rdma_conn_param param;
	struct ws_hello hello;
	int ret;

	ret = ws_conn_setup(&r->c, r->c.id, &caps);
	if (ret)
		return ws_cl_why(r, "QP setup: %s", r->c.err);
	ret = ws_conn_reg(&r->c, &r->c.mr, cl->buf, cl->buflen, IBV_ACCESS_LOCAL_WRITE);
	if (ret) {
		/* The reconnect timer is the retry; say each failure, it is the job's symptom. */
		cl->mr_errors++;
		ws_cl_emit(cl,
			   ws_out("mr_error", "{s:i, s:s, s:i, s:s, s:i, s:I}", "rail",
				  ws_cl_rail_id(cl, r->c.pos), "during", "connect", "errno", -ret,
				  "error", strerror(-ret), "attempt", (int)r->failed_attempts + 1,
				  "retry_in_ms", (json_int_t)WS_RECONNECT_MS));
		return ws_cl_why(r, "%s", r->c.err);
	}

	memset(&hello, 0, sizeof(hello));
	hello.magic = WS_MSG_MAGIC;
	hello.version = WS_PROTO_VERSION;
	hello.op = (uint8_t)cl->o->op;
	hello.rail = (uint8_t)ws_cl_rail_id(cl, r->c.pos);
	hello.msg_size = cl->o->msg_size;
	hello.queue_depth = w;
	ws_hello_swap(&hello);
	memset(&param, 0, sizeof(param));
	param.private_data = &hello;
	param.private_data_len = sizeof(hello);
	param.retry_count = cl->o->retry_cnt;
	/* RNR only means the server is behind: wait for it, never fail on it. */
	param.rnr_retry_count = 7;
	if (rdma_connect(r->c.id, &param))
		return ws_cl_why(r, "rdma_connect: %s", strerror(errno));
	return 0;
}

static void ws_cl_print_connected(struct ws_client *cl, struct ws_rail *r)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr qa;
	struct ibv_qp *qp = r->c.id->qp;
	int to = -1, rc = -1, rnr = -1;

	if (!ibv_query_qp(qp, &qa, IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY, &init)) {
		to = qa.timeout;
		rc = qa.retry_cnt;
		rnr = qa.rnr_retry;
	}
	ws_sockaddr_str(rdma_get_local_addr(r->c.id), r->c.local, sizeof(r->c.local));
	ws_sockaddr_str(rdma_get_peer_addr(r->c.id), r->c.remote, sizeof(r->c.remote));
	ws_cl_emit(cl, ws_out("connected", "{s:i, s:s, s:s, s:i, s:s, s:i, s:i, s:i}", "rail",
			      ws_cl_rail_id(cl, r->c.pos), "local", r->c.local, "remote",
			      r->c.remote, "qp_num", (int)qp->qp_num, "dev",
			      ibv_get_device_name(r->c.id->verbs->device), "ack_timeout", to,
			      "retry_cnt", rc, "rnr_retry", rnr));
}

static int ws_cl_on_established(struct ws_client *cl, struct ws_rail *r, const struct ws_cm_ev *ev)
{
	struct ws_accept acc;
	int i;

	if (ev->pdata_len < sizeof(acc))
		return ws_cl_why(r, "the server's accept carries no ring description");
	memcpy(&acc, ev->pdata, sizeof(acc));
	ws_accept_swap(&acc);
	if (acc.magic != WS_MSG_MAGIC || acc.version != WS_PROTO_VERSION || acc.op != cl->o->op)
		return ws_cl_why(r, "the server's accept is not rdmachaos-stream v%d --op %s",
				 WS_PROTO_VERSION, ws_op_name(cl->o->op));
	if (cl->o->op == WS_OP_WRITE && acc.slots < 2 * cl->o->queue_depth)
		return ws_cl_why(r, "the server's ring has %u slots, fewer than 2 x --queue-depth",
				 acc.slots);
	r->raddr = acc.addr;
	r->rkey = acc.rkey;
	r->rslots = acc.slots;
	{
		struct ibv_device_attr da;

		/* Soft-RoCE reports this vendor id; its requester can miss a wake-up */
		r->soft_roce = !ibv_query_device(r->c.id->verbs, &da) && da.vendor_id == 0xffffff;
	}
	r->kick_out = false;
	r->state = WS_RAIL_UP;
	r->c.established = true;
	r->up_since_ns = rc_now_ns();
	r->hb_out = false;
	r->hb_last_ns = r->up_since_ns;
	r->failed_attempts = 0;
	ws_cl_print_connected(cl, r);
	if (!cl->started) {
		for (i = 0; i < cl->n; i++)
			if (cl->rail[i].state != WS_RAIL_UP)
				return 0;
		ws_cl_start(cl);
		return 0;
	}
	ws_cl_emit(cl, ws_out("rail_up", "{s:i}", "rail", ws_cl_rail_id(cl, r->c.pos)));
	if (cl->active < 0)
		ws_cl_activate(cl, r->c.pos);
	return 0;
}

void ws_cl_rail_timer(struct ws_client *cl, struct ws_rail *r, uint64_t now)
{
	if (r->state == WS_RAIL_DOWN && now >= r->next_try_ns && !cl->stopping) {
		ws_cl_connect(cl, r, now);
	} else if (r->state == WS_RAIL_CONNECTING && now >= r->deadline_ns) {
		ws_cl_why(r, "not established within %d ms", WS_ATTEMPT_MS);
		ws_cl_drop_attempt(cl, r);
	}
}

static void ws_cl_cm_event(struct ws_client *cl, const struct ws_cm_ev *ev)
{
	struct ws_rail *r = ev->id->context;
	struct ws_reject rej;
	int ret = 0;

	if (!r || r->c.id != ev->id)
		return;
	rc_dbg("rail %d: %s (status %d)", ws_cl_rail_id(cl, r->c.pos), rdma_event_str(ev->type),
	       ev->status);
	switch (ev->type) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		if (rdma_resolve_route(ev->id, WS_CM_TIMEOUT_MS))
			ret = ws_cl_why(r, "rdma_resolve_route: %s", strerror(errno));
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		ret = ws_cl_on_route(cl, r);
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		ret = ws_cl_on_established(cl, r, ev);
		break;
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
	case RDMA_CM_EVENT_CONNECT_RESPONSE:
		break;
	case RDMA_CM_EVENT_REJECTED:
		memset(&rej, 0, sizeof(rej));
		memcpy(&rej, ev->pdata, ev->pdata_len < sizeof(rej) ? ev->pdata_len : sizeof(rej));
		rej.reason[sizeof(rej.reason) - 1] = '\0';
		if (le32toh(rej.magic) == WS_MSG_MAGIC) {
			ret = ws_cl_why(r, "the server refused: %s", rej.reason);
			/* Nothing will change while we retry: say so at once. */
			if (rej.permanent && !cl->started)
				cl->refused = true;
		} else {
			/* 8 = IB_CM_REJ_INVALID_SERVICE_ID: no listener on that address and port.
			 */
			ret = ws_cl_why(
			    r, "RDMA_CM_EVENT_REJECTED (status %d%s)", ev->status,
			    ev->status == 8 ? ": nobody listens on that address and port" : "");
		}
		break;
	default:
		/* ADDR/ROUTE/CONNECT errors, UNREACHABLE, DISCONNECTED, DEVICE_REMOVAL, ... */
		ret = ws_cl_why(r, "%s (status %d%s%s)", rdma_event_str(ev->type), ev->status,
				ev->status < 0 ? ": " : "",
				ev->status < 0 ? strerror(-ev->status) : "");
		break;
	}
	if (!ret)
		return;
	if (r->state == WS_RAIL_UP)
		ws_cl_rail_fail(cl, r, r->why);
	else if (r->state == WS_RAIL_CONNECTING)
		ws_cl_drop_attempt(cl, r);
}

int ws_cl_cm(struct ws_client *cl)
{
	struct ws_cm_ev ev;
	int ret;

	while ((ret = ws_cm_next(cl->ech, &ev)) > 0)
		ws_cl_cm_event(cl, &ev);
	if (ret < 0)
		rc_err("rdma_get_cm_event: %s", strerror(-ret));
	return ret;
}

/* Start-up gave up: one rail_down line per missing rail, and the reasons on stderr. */
void ws_cl_startup_failed(struct ws_client *cl)
{
	struct ws_rail *r;
	int i;

	for (i = 0; i < cl->n; i++) {
		r = &cl->rail[i];
		if (r->state == WS_RAIL_UP)
			continue;
		if (cl->refused)
			rc_err("rail %d (%s): not connected: %s", ws_cl_rail_id(cl, i),
			       cl->o->addr[i], r->why[0] ? r->why : "not tried");
		else
			rc_err("rail %d (%s): not connected within %llu ms: %s",
			       ws_cl_rail_id(cl, i), cl->o->addr[i],
			       (unsigned long long)cl->o->connect_timeout_ms,
			       r->why[0] ? r->why : "no answer");
		ws_cl_emit(cl, ws_out("rail_down", "{s:i, s:s, s:b}", "rail", ws_cl_rail_id(cl, i),
				      "reason", r->why[0] ? r->why : "not connected in time",
				      "active", 0));
	}
	rc_err("every rail must connect at start; giving up");
}
