// SPDX-License-Identifier: MIT
/*
 * The server role of rdmachaos-stream: listens on every rail, accepts
 * (re)connections at any time, validates every message and keeps the
 * integrity counters.
 *
 * Why the op=write ring cannot be overrun (the client reuses ring slot
 * seq % slots after its own completion, which only says the data landed):
 * per connection the server posts Q = 2 x queue_depth receives and re-posts
 * one only after it has validated the message that consumed it; the ring has
 * slots = Q + queue_depth. Message seq + slots is posted by the client only
 * after seq + slots - W completed (W <= queue_depth is the client's window),
 * and that message's immediate needed receive number idx(seq) + slots - W + 1
 * (counting from 1 on this QP), which exists only once the server validated at
 * least idx(seq) + slots - W + 1 - Q >= idx(seq) + 1 messages: in order, so
 * seq itself. Hence a slot is never written while it is being checked. If the
 * server lags more than Q messages the client meets RNR NAKs (rnr_retry 7,
 * retried forever, each after WS_MIN_RNR_TIMER) instead of overwriting. op=send needs no such
 * argument: a receive buffer is only re-posted after it was checked.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "common/units.h"
#include "workloads/stream.h"
#include "workloads/stream_conn.h"
#include "workloads/stream_integrity.h"
#include "workloads/stream_out.h"
#include "workloads/stream_stats.h"

/* op=write: receive buffers only ever hold a heartbeat header. */
#define WS_CTL_LEN 64

struct ws_srv_conn {
	struct ws_conn c;
	struct ws_srv_conn *next;
	uint8_t *data; /* write: slots x msg_size; send: nrecv x msg_size */
	uint8_t *ctl;  /* write: nrecv x WS_CTL_LEN */
	uint32_t slots;
	uint32_t nrecv;
	bool dead;
	char dead_reason[96];
};

struct ws_server {
	const struct ws_opts *o;
	struct rdma_event_channel *ech;
	struct rdma_cm_id *listen[WS_MAX_RAILS];
	struct ws_srv_conn *conns;
	struct ws_seqmap seen;
	struct ws_stats st;
	uint64_t rail_bytes[WS_MAX_RAILS]; /* this interval */
	uint64_t iv_dup, iv_corrupt;	   /* this interval */
	uint64_t received, corrupted, bytes, heartbeats, connections, range_refused;
	uint64_t start_ns;
	bool out_gone;
};

static int ws_srv_rail(const struct ws_server *s, int pos)
{
	return s->o->rail_id[pos];
}

static void ws_srv_free_conn(struct ws_srv_conn *sc)
{
	ws_conn_teardown(&sc->c, true);
	free(sc->data);
	free(sc->ctl);
	free(sc);
}

static void ws_srv_kill(struct ws_server *s, struct ws_srv_conn *sc, const char *reason)
{
	if (sc->dead)
		return;
	sc->dead = true;
	snprintf(sc->dead_reason, sizeof(sc->dead_reason), "%s", reason);
	if (sc->c.established &&
	    ws_out("rail_down", "{s:i, s:s, s:s, s:i}", "rail", ws_srv_rail(s, sc->c.pos), "reason",
		   reason, "remote", sc->c.remote, "qp_num",
		   sc->c.id && sc->c.id->qp ? (int)sc->c.id->qp->qp_num : -1))
		s->out_gone = true;
	rc_info("rail %d: connection from %s closed: %s", ws_srv_rail(s, sc->c.pos), sc->c.remote,
		reason);
}

/* ws_srv_on_wc, defined below, as the drain's callback. */
static int ws_srv_on_wc(void *arg, struct ws_conn *c, const struct ibv_wc *wc);

/*
 * Counts what a dying connection's CQ still holds before the CQ is destroyed. The responder
 * completes a receive before it acknowledges the message, so every message the client saw
 * acknowledged is in the CQ by now; one left there would be counted lost although it arrived
 * (a DISCONNECTED event handled between the CQ's last poll and the sweep: qp-error, ci45).
 */
static void ws_srv_drain(struct ws_server *s, struct ws_srv_conn *sc)
{
	sc->dead = true;
	ws_conn_force_error(&sc->c);
	ws_conn_poll(&sc->c, false, false, ws_srv_on_wc, s);
}

/* Frees the connections marked dead; called where no pointer to them is live. */
static void ws_srv_sweep(struct ws_server *s)
{
	struct ws_srv_conn **pp = &s->conns, *sc;

	while ((sc = *pp)) {
		if (!sc->dead) {
			pp = &sc->next;
			continue;
		}
		*pp = sc->next;
		ws_srv_drain(s, sc);
		ws_srv_free_conn(sc);
	}
}

static int ws_srv_post_recv(struct ws_server *s, struct ws_srv_conn *sc, uint32_t idx)
{
	struct ibv_recv_wr wr, *bad;
	struct ibv_sge sge;
	int ret;

	if (s->o->op == WS_OP_WRITE) {
		sge.addr = (uintptr_t)(sc->ctl + (size_t)idx * WS_CTL_LEN);
		sge.length = WS_CTL_LEN;
		sge.lkey = sc->c.mr_ctl->lkey;
	} else {
		sge.addr = (uintptr_t)(sc->data + (size_t)idx * s->o->msg_size);
		sge.length = s->o->msg_size;
		sge.lkey = sc->c.mr->lkey;
	}
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = idx;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	ret = ibv_post_recv(sc->c.id->qp, &wr, &bad);
	if (ret)
		rc_err("rail %d: ibv_post_recv: %s", ws_srv_rail(s, sc->c.pos), strerror(ret));
	return -ret;
}

/* Counts one arrival; rate-limits the stderr complaints, never the counters. */
static void ws_srv_account(struct ws_server *s, struct ws_srv_conn *sc, const void *msg, size_t got,
			   const char *why)
{
	enum ws_verdict v = WS_MSG_BAD_LEN;
	struct ws_hdr h;
	int ret;

	memset(&h, 0, sizeof(h));
	if (!why)
		v = ws_msg_check(msg, got, s->o->msg_size, &h);
	if (v == WS_MSG_HEARTBEAT) {
		s->heartbeats++;
		return;
	}
	s->received++;
	s->bytes += got;
	s->rail_bytes[sc->c.pos] += got;
	ws_stats_add(&s->st, got, WS_NO_LAT);
	if (v == WS_MSG_OK) {
		ret = ws_seqmap_add(&s->seen, h.seq);
		if (ret == 0)
			s->iv_dup++;
		if (ret >= 0)
			return;
		/* A valid message whose seq we cannot track: say so, count it apart. */
		s->range_refused++;
		if (s->range_refused <= 10)
			rc_warn("rail %d: seq %llu not tracked: %s", ws_srv_rail(s, sc->c.pos),
				(unsigned long long)h.seq, strerror(-ret));
		return;
	}
	s->corrupted++;
	s->iv_corrupt++;
	if (s->corrupted <= 20 || s->corrupted % 1000 == 0)
		rc_warn("rail %d: corrupted message #%llu from %s: %s (header seq %llu, %zu bytes)",
			ws_srv_rail(s, sc->c.pos), (unsigned long long)s->corrupted, sc->c.remote,
			why ? why : ws_verdict_name(v), (unsigned long long)h.seq, got);
}

static int ws_srv_on_wc(void *arg, struct ws_conn *c, const struct ibv_wc *wc)
{
	struct ws_server *s = arg;
	struct ws_srv_conn *sc =
	    (struct ws_srv_conn *)((char *)c - offsetof(struct ws_srv_conn, c));
	uint32_t idx = (uint32_t)wc->wr_id, slot;
	const uint8_t *msg = NULL;
	const char *why = NULL;

	if (wc->status != IBV_WC_SUCCESS && sc->dead)
		return -ECONNRESET; /* a drain (ws_srv_drain) reached what the death flushed */
	if (wc->status != IBV_WC_SUCCESS) {
		/* A flush follows a state change already reported (or about to be). */
		if (wc->status != IBV_WC_WR_FLUSH_ERR &&
		    ws_out("error", "{s:i, s:s, s:i, s:s, s:i, s:i, s:s}", "rail",
			   ws_srv_rail(s, c->pos), "wc_status", ws_wc_status_name(wc->status),
			   "wc_status_code", (int)wc->status, "wc_status_str",
			   ibv_wc_status_str(wc->status), "vendor_err", (int)wc->vendor_err,
			   "qp_num", (int)wc->qp_num, "opcode", "IBV_WC_RECV"))
			s->out_gone = true;
		ws_srv_kill(s, sc,
			    wc->status == IBV_WC_WR_FLUSH_ERR ? "receives flushed"
							      : ws_wc_status_name(wc->status));
		return -ECONNRESET;
	}
	if (idx >= sc->nrecv) {
		rc_err("rail %d: completion for unknown receive %u", ws_srv_rail(s, c->pos), idx);
		ws_srv_kill(s, sc, "bad completion");
		return -EPROTO;
	}
	if (wc->opcode == IBV_WC_RECV_RDMA_WITH_IMM && s->o->op == WS_OP_WRITE) {
		slot = ntohl(wc->imm_data);
		if (slot < sc->slots)
			msg = sc->data + (size_t)slot * s->o->msg_size;
		else
			why = "immediate names no ring slot";
	} else if (wc->opcode == IBV_WC_RECV) {
		msg = s->o->op == WS_OP_WRITE ? sc->ctl + (size_t)idx * WS_CTL_LEN
					      : sc->data + (size_t)idx * s->o->msg_size;
	} else {
		why = "unexpected completion opcode";
	}
	ws_srv_account(s, sc, msg, wc->byte_len, why);
	if (sc->dead)
		return 0; /* draining: nothing more is received on it */
	if (ws_srv_post_recv(s, sc, idx)) {
		ws_srv_kill(s, sc, "ibv_post_recv failed");
		return -EIO;
	}
	return 0;
}

/* Refuses a connect request with a reason the client prints, and destroys its id. */
static void ws_srv_reject_id(struct rdma_cm_id *id, bool permanent, const char *reason)
{
	struct ws_reject rej;

	memset(&rej, 0, sizeof(rej));
	rej.magic = htole32(WS_MSG_MAGIC);
	rej.permanent = permanent;
	snprintf(rej.reason, sizeof(rej.reason), "%s", reason);
	rdma_reject(id, &rej, sizeof(rej));
	rdma_destroy_id(id);
}

/* A configuration mismatch, refused for good and said on stderr too. Returns 0 for tail calls. */
static int ws_srv_reject(struct ws_server *s, struct rdma_cm_id *id, int pos, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int ws_srv_reject(struct ws_server *s, struct rdma_cm_id *id, int pos, const char *fmt, ...)
{
	char reason[WS_REJECT_REASON_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	rc_warn("rail %d: refused a connection: %s", ws_srv_rail(s, pos), reason);
	ws_srv_reject_id(id, true, reason);
	return 0;
}

static int ws_srv_alloc(struct ws_server *s, struct ws_srv_conn *sc)
{
	size_t msg = s->o->msg_size;
	int ret;

	if (s->o->op == WS_OP_WRITE) {
		if (posix_memalign((void **)&sc->data, 4096, (size_t)sc->slots * msg) ||
		    posix_memalign((void **)&sc->ctl, 64, (size_t)sc->nrecv * WS_CTL_LEN))
			return -ENOMEM;
		memset(sc->data, 0, (size_t)sc->slots * msg);
		ret = ws_conn_reg(&sc->c, &sc->c.mr, sc->data, (size_t)sc->slots * msg,
				  IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
		if (ret)
			return ret;
		return ws_conn_reg(&sc->c, &sc->c.mr_ctl, sc->ctl, (size_t)sc->nrecv * WS_CTL_LEN,
				   IBV_ACCESS_LOCAL_WRITE);
	}
	if (posix_memalign((void **)&sc->data, 4096, (size_t)sc->nrecv * msg))
		return -ENOMEM;
	return ws_conn_reg(&sc->c, &sc->c.mr, sc->data, (size_t)sc->nrecv * msg,
			   IBV_ACCESS_LOCAL_WRITE);
}

static int ws_srv_on_request(struct ws_server *s, const struct ws_cm_ev *ev, int pos)
{
	struct rdma_conn_param param;
	struct ws_conn_caps caps;
	struct ws_srv_conn *sc;
	struct ws_accept acc;
	struct ws_hello h;
	uint32_t i;
	bool stale;
	int ret;

	if (ev->pdata_len < sizeof(h))
		return ws_srv_reject(s, ev->id, pos, "no rdmachaos-stream hello in the request");
	memcpy(&h, ev->pdata, sizeof(h));
	ws_hello_swap(&h);
	if (h.magic != WS_MSG_MAGIC || h.version != WS_PROTO_VERSION)
		return ws_srv_reject(s, ev->id, pos, "not an rdmachaos-stream v%d client",
				     WS_PROTO_VERSION);
	if (h.op != s->o->op)
		return ws_srv_reject(s, ev->id, pos, "--op %s but the server runs --op %s",
				     ws_op_name(h.op), ws_op_name(s->o->op));
	if (h.msg_size != s->o->msg_size)
		return ws_srv_reject(s, ev->id, pos,
				     "--msg-size %u but the server runs --msg-size %u", h.msg_size,
				     s->o->msg_size);
	if (!h.queue_depth || h.queue_depth > s->o->queue_depth)
		return ws_srv_reject(s, ev->id, pos,
				     "--queue-depth %u but the server accepts at most %u",
				     h.queue_depth, s->o->queue_depth);

	sc = calloc(1, sizeof(*sc));
	if (!sc) {
		ws_srv_reject_id(ev->id, false, "server out of memory");
		return 0;
	}
	sc->c.pos = pos;
	sc->nrecv = 2 * s->o->queue_depth;
	sc->slots = sc->nrecv + s->o->queue_depth;
	ws_sockaddr_str(rdma_get_peer_addr(ev->id), sc->c.remote, sizeof(sc->c.remote));
	ws_sockaddr_str(rdma_get_local_addr(ev->id), sc->c.local, sizeof(sc->c.local));
	caps.send_wr = 1;
	caps.recv_wr = sc->nrecv;
	caps.cq_size = sc->nrecv + 2;
	ret = ws_conn_setup(&sc->c, ev->id, &caps);
	if (ret)
		goto refuse;
	ret = ws_srv_alloc(s, sc);
	if (ret)
		goto refuse;
	for (i = 0; i < sc->nrecv; i++) {
		ret = ws_srv_post_recv(s, sc, i);
		if (ret)
			goto refuse;
	}
	ev->id->context = sc;

	memset(&acc, 0, sizeof(acc));
	acc.magic = WS_MSG_MAGIC;
	acc.version = WS_PROTO_VERSION;
	acc.op = (uint8_t)s->o->op;
	acc.slots = s->o->op == WS_OP_WRITE ? sc->slots : 0;
	acc.rkey = s->o->op == WS_OP_WRITE ? sc->c.mr->rkey : 0;
	acc.addr = s->o->op == WS_OP_WRITE ? (uintptr_t)sc->data : 0;
	ws_accept_swap(&acc);
	memset(&param, 0, sizeof(param));
	param.private_data = &acc;
	param.private_data_len = sizeof(acc);
	param.rnr_retry_count = 7;
	if (rdma_accept(ev->id, &param)) {
		ret = -errno;
		rc_err("rail %d: rdma_accept from %s: %s", ws_srv_rail(s, pos), sc->c.remote,
		       strerror(-ret));
		/* The id is still ours: teardown destroys it. */
		sc->next = s->conns;
		s->conns = sc;
		sc->dead = true;
		return 0;
	}
	sc->next = s->conns;
	s->conns = sc;
	rc_dbg("rail %d: accepted %s (%u receives, %u slots)", ws_srv_rail(s, pos), sc->c.remote,
	       sc->nrecv, sc->slots);
	return 0;

refuse:
	/*
	 * rdma_create_qp fails with EINVAL when the cm id left REQ_RCVD before we
	 * got to it: after a link outage the guest delivers connect requests the
	 * client has already abandoned (and rejected) in one burst. Routine then.
	 */
	stale = ret == -EINVAL && sc->c.id && !sc->c.id->qp;
	if (stale)
		rc_info("rail %d: a connect request from %s was withdrawn before it could be "
			"accepted (%s): normal for stale requests after an outage",
			ws_srv_rail(s, pos), sc->c.remote, sc->c.err);
	else
		rc_err("rail %d: cannot set up a connection from %s: %s", ws_srv_rail(s, pos),
		       sc->c.remote, sc->c.err[0] ? sc->c.err : strerror(-ret));
	/* The reject destroys the id: detach it from the half-built conn first. */
	if (sc->c.id && sc->c.id->qp)
		rdma_destroy_qp(sc->c.id);
	sc->c.id = NULL;
	ws_srv_free_conn(sc);
	ws_srv_reject_id(ev->id, false,
			 stale ? "request withdrawn" : "server could not set up the connection");
	return 0;
}

/* A peer that reconnects a rail leaves its old QP here when the old link was dead. */
static void ws_srv_supersede(struct ws_server *s, struct ws_srv_conn *fresh)
{
	struct ws_srv_conn *sc;

	for (sc = s->conns; sc; sc = sc->next)
		if (sc != fresh && !sc->dead && sc->c.pos == fresh->c.pos &&
		    !strcmp(sc->c.remote, fresh->c.remote))
			ws_srv_kill(s, sc, "superseded by a new connection from the same peer");
}

/*
 * The RNR NAK timer the client waits out when this server is behind (no receive
 * posted): rdma_cm leaves the QP's min_rnr_timer at 0, which encodes the longest,
 * 655.36 ms. Small messages outrun the server's re-posting routinely, and each
 * NAK then stalled the stream for about half a second: a pause made by the
 * instrument, not the fabric (on the lab, 4 KiB writes ran at a quarter of
 * ib_write_bw's rate). 12 is 0.64 ms, perftest's value. Set once the QP is in
 * RTS (RTS -> RTS may change it); -1 when it could not be read back.
 */
#define WS_MIN_RNR_TIMER 12

static int ws_srv_set_rnr_timer(struct ws_server *s, struct ws_srv_conn *sc)
{
	struct ibv_qp *qp = sc->c.id->qp;
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr qa;
	int ret;

	memset(&qa, 0, sizeof(qa));
	qa.min_rnr_timer = WS_MIN_RNR_TIMER;
	ret = ibv_modify_qp(qp, &qa, IBV_QP_MIN_RNR_TIMER);
	if (ret)
		rc_warn("rail %d: cannot set the QP's min_rnr_timer to %d (%s): a lagging "
			"server makes the client wait the QP's own RNR timer",
			ws_srv_rail(s, sc->c.pos), WS_MIN_RNR_TIMER, strerror(ret));
	if (ibv_query_qp(qp, &qa, IBV_QP_MIN_RNR_TIMER, &init))
		return -1;
	return qa.min_rnr_timer;
}

static void ws_srv_on_established(struct ws_server *s, struct ws_srv_conn *sc)
{
	int rnr = ws_srv_set_rnr_timer(s, sc);

	sc->c.established = true;
	s->connections++;
	if (ws_out("connected", "{s:i, s:s, s:s, s:i, s:s, s:i}", "rail", ws_srv_rail(s, sc->c.pos),
		   "local", sc->c.local, "remote", sc->c.remote, "qp_num",
		   (int)sc->c.id->qp->qp_num, "dev", ibv_get_device_name(sc->c.id->verbs->device),
		   "min_rnr_timer", rnr))
		s->out_gone = true;
	ws_srv_supersede(s, sc);
}

static int ws_srv_listen_pos(const struct ws_server *s, const struct rdma_cm_id *id)
{
	int i;

	for (i = 0; i < s->o->nrails; i++)
		if (s->listen[i] == id)
			return i;
	return -1;
}

static int ws_srv_cm(struct ws_server *s)
{
	struct ws_srv_conn *sc;
	struct ws_cm_ev ev;
	int ret, pos;

	while ((ret = ws_cm_next(s->ech, &ev)) > 0) {
		rc_dbg("cm event %s status %d", rdma_event_str(ev.type), ev.status);
		if (ev.type == RDMA_CM_EVENT_CONNECT_REQUEST) {
			pos = ws_srv_listen_pos(s, ev.listen_id);
			if (pos < 0) {
				rdma_reject(ev.id, NULL, 0);
				rdma_destroy_id(ev.id);
				continue;
			}
			ws_srv_on_request(s, &ev, pos);
			continue;
		}
		pos = ws_srv_listen_pos(s, ev.id);
		if (pos >= 0) {
			/* Only DEVICE_REMOVAL and ADDR_CHANGE reach a listening id. */
			rc_err("rail %d: listener on %s: %s", ws_srv_rail(s, pos), s->o->addr[pos],
			       rdma_event_str(ev.type));
			if (ev.type == RDMA_CM_EVENT_DEVICE_REMOVAL)
				return -ENODEV;
			continue;
		}
		sc = ev.id->context;
		if (!sc)
			continue;
		switch (ev.type) {
		case RDMA_CM_EVENT_ESTABLISHED:
			ws_srv_on_established(s, sc);
			break;
		case RDMA_CM_EVENT_DISCONNECTED:
		case RDMA_CM_EVENT_DEVICE_REMOVAL:
		case RDMA_CM_EVENT_CONNECT_ERROR:
		case RDMA_CM_EVENT_UNREACHABLE:
		case RDMA_CM_EVENT_REJECTED:
		case RDMA_CM_EVENT_ADDR_CHANGE:
			ws_srv_kill(s, sc, rdma_event_str(ev.type));
			break;
		default:
			break;
		}
	}
	ws_srv_sweep(s);
	return ret;
}

static int ws_srv_listen(struct ws_server *s)
{
	struct sockaddr_storage ss;
	char err[300];
	int i, ret, one = 1;

	for (i = 0; i < s->o->nrails; i++) {
		ret = ws_resolve(s->o->addr[i], s->o->port, &ss, err, sizeof(err));
		if (ret) {
			rc_err("rail %d: --listen %s", ws_srv_rail(s, i), err);
			return ret;
		}
		if (rdma_create_id(s->ech, &s->listen[i], NULL, RDMA_PS_TCP)) {
			ret = -errno;
			rc_err("rail %d: rdma_create_id: %s", ws_srv_rail(s, i), strerror(-ret));
			return ret;
		}
		rdma_set_option(s->listen[i], RDMA_OPTION_ID, RDMA_OPTION_ID_REUSEADDR, &one,
				sizeof(one));
		if (rdma_bind_addr(s->listen[i], (struct sockaddr *)&ss)) {
			ret = -errno;
			rc_err("rail %d: rdma_bind_addr %s port %u: %s%s", ws_srv_rail(s, i),
			       s->o->addr[i], s->o->port, strerror(-ret),
			       ret == -ENODEV || ret == -EADDRNOTAVAIL
				   ? " (is there an RDMA device on that address?)"
				   : "");
			return ret;
		}
		if (rdma_listen(s->listen[i], 64)) {
			ret = -errno;
			rc_err("rail %d: rdma_listen %s port %u: %s", ws_srv_rail(s, i),
			       s->o->addr[i], s->o->port, strerror(-ret));
			return ret;
		}
	}
	return 0;
}

static void ws_srv_interval(struct ws_server *s, uint64_t now)
{
	struct ws_interval iv;
	uint64_t best = 0;
	json_t *f;
	int i, rail = -1;

	ws_stats_cut(&s->st, now, &iv);
	for (i = 0; i < s->o->nrails; i++) {
		if (s->rail_bytes[i] > best) {
			best = s->rail_bytes[i];
			rail = ws_srv_rail(s, i);
		}
		s->rail_bytes[i] = 0;
	}
	f = ws_out_interval_fields(rail, &iv);
	if (f) {
		json_object_set_new(f, "duplicated", json_integer((json_int_t)s->iv_dup));
		json_object_set_new(f, "corrupted", json_integer((json_int_t)s->iv_corrupt));
	}
	s->iv_dup = s->iv_corrupt = 0;
	if (ws_out_obj("interval", f))
		s->out_gone = true;
}

static void ws_srv_summary(struct ws_server *s)
{
	json_t *f;

	f = json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "received",
		      (json_int_t)s->received, "unique", (json_int_t)s->seen.unique, "duplicated",
		      (json_int_t)s->seen.duplicated, "corrupted", (json_int_t)s->corrupted,
		      "max_seq", (json_int_t)s->seen.max_seq, "lost",
		      (json_int_t)ws_seqmap_lost(&s->seen), "bytes", (json_int_t)s->bytes,
		      "heartbeats", (json_int_t)s->heartbeats, "connections",
		      (json_int_t)s->connections, "duration_ms",
		      (json_int_t)((rc_now_ns() - s->start_ns) / RC_NSEC_PER_MSEC));
	if (f && s->range_refused)
		json_object_set_new(f, "untracked", json_integer((json_int_t)s->range_refused));
	ws_out_obj("summary", f);
}

static int ws_srv_loop(struct ws_server *s)
{
	struct pollfd pfd[1 + 64];
	struct ws_srv_conn *map[64], *sc;
	uint64_t now, next_iv, end_ns = 0;
	int n, i, ret, timeout;

	now = rc_now_ns();
	next_iv = now + s->o->interval_ms * RC_NSEC_PER_MSEC;
	if (s->o->duration_ms)
		end_ns = now + s->o->duration_ms * RC_NSEC_PER_MSEC;
	while (!ws_stop_signal && !s->out_gone) {
		pfd[0].fd = s->ech->fd;
		pfd[0].events = POLLIN;
		n = 1;
		for (sc = s->conns; sc && n < 1 + 64; sc = sc->next) {
			pfd[n].fd = sc->c.ch->fd;
			pfd[n].events = POLLIN;
			map[n - 1] = sc;
			n++;
		}
		now = rc_now_ns();
		timeout = ws_timeout_ms(now, next_iv, WS_POLL_MS);
		ret = poll(pfd, (nfds_t)n, timeout);
		if (ret < 0 && errno != EINTR) {
			rc_err("poll: %s", strerror(errno));
			return -errno;
		}
		/* Connections first: a DISCONNECTED event may free one of map[]. */
		for (i = 1; i < n; i++) {
			sc = map[i - 1];
			if (!sc->dead)
				ws_conn_poll(&sc->c, pfd[i].revents & POLLIN, true, ws_srv_on_wc,
					     s);
		}
		ws_srv_sweep(s);
		/* Only when readable: reading an empty channel is a syscall per wakeup. */
		if (ret > 0 && (pfd[0].revents & POLLIN)) {
			ret = ws_srv_cm(s);
			if (ret < 0)
				return ret;
		}
		now = rc_now_ns();
		if (now >= next_iv) {
			ws_srv_interval(s, now);
			next_iv += s->o->interval_ms * RC_NSEC_PER_MSEC;
			if (next_iv <= now)
				next_iv = now + s->o->interval_ms * RC_NSEC_PER_MSEC;
		}
		if (end_ns && now >= end_ns)
			break;
	}
	return 0;
}

int ws_server_run(const struct ws_opts *o)
{
	struct ws_server s;
	struct ws_srv_conn *sc;
	json_t *rails, *addrs;
	int i, ret, status = 1;

	memset(&s, 0, sizeof(s));
	s.o = o;
	s.start_ns = rc_now_ns();
	ws_seqmap_init(&s.seen);
	ws_stats_init(&s.st, s.start_ns);
	s.ech = ws_event_channel();
	if (!s.ech) {
		rc_err("rdma_create_event_channel: %s (is rdma_ucm loaded, /dev/infiniband/rdma_cm "
		       "present?)",
		       strerror(errno));
		goto out;
	}
	ret = ws_srv_listen(&s);
	if (ret)
		goto out;

	rails = json_array();
	addrs = json_array();
	for (i = 0; i < o->nrails; i++) {
		json_array_append_new(rails, json_integer(o->rail_id[i]));
		json_array_append_new(addrs, json_string(o->addr[i]));
	}
	ws_out("ready", "{s:o, s:o, s:i, s:i, s:s, s:i, s:i}", "rails", rails, "addrs", addrs,
	       "port", o->port, "pid", (int)getpid(), "op", ws_op_name(o->op), "msg_size",
	       (int)o->msg_size, "queue_depth", (int)o->queue_depth);
	rc_info("listening on %d rail(s), port %u, op %s, msg-size %u", o->nrails, o->port,
		ws_op_name(o->op), o->msg_size);
	ret = ws_srv_loop(&s);
	for (sc = s.conns; sc; sc = sc->next)
		ws_srv_drain(&s, sc);
	ws_srv_summary(&s);
	status = ret ? 1 : 0;

out:
	while ((sc = s.conns)) {
		s.conns = sc->next;
		ws_srv_free_conn(sc);
	}
	for (i = 0; i < WS_MAX_RAILS; i++)
		if (s.listen[i])
			rdma_destroy_id(s.listen[i]);
	if (s.ech)
		rdma_destroy_event_channel(s.ech);
	ws_seqmap_free(&s.seen);
	ws_stats_free(&s.st);
	return status;
}
