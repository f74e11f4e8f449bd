// SPDX-License-Identifier: MIT
/*
 * The client role of rdmachaos-stream: streams numbered messages on the
 * active rail, heartbeats the others, and fails over, stalls and fails back
 * as rails die and return (stream_rail.c connects and reconnects them). One
 * thread, one poll() loop over the cm event channel and each rail's
 * completion channel.
 *
 * Window invariant: the messages not yet completed are exactly the seqs
 * [una, nxt), at most queue_depth of them, all posted on the active rail
 * (RC completes in order and every send is signalled). Local slot seq % W
 * therefore holds seq until it completes, which is what makes a re-send after
 * failover a plain re-post of the same bytes with a new timestamp.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "common/units.h"
#include "workloads/stream.h"
#include "workloads/stream_client.h"
#include "workloads/stream_conn.h"
#include "workloads/stream_integrity.h"
#include "workloads/stream_out.h"
#include "workloads/stream_stats.h"

void ws_cl_start(struct ws_client *cl)
{
	json_t *rails = json_array();
	int i;

	for (i = 0; i < cl->n; i++)
		json_array_append_new(rails, json_integer(ws_cl_rail_id(cl, i)));
	ws_cl_emit(cl, ws_out("ready", "{s:o, s:i, s:s, s:i, s:i, s:i}", "rails", rails, "pid",
			      (int)getpid(), "op", ws_op_name(cl->o->op), "msg_size",
			      (int)cl->o->msg_size, "queue_depth", (int)cl->o->queue_depth,
			      "busy_poll_us", (int)cl->o->busy_poll_us));
	cl->started = true;
	cl->start_ns = rc_now_ns();
	cl->pace_tokens = cl->o->msg_size;
	cl->pace_last_ns = cl->start_ns;
	ws_stats_init(&cl->st, cl->start_ns);
	cl->active = 0;
	cl->last_active = 0;
	rc_info("all %d rail(s) connected; streaming on rail %d", cl->n, ws_cl_rail_id(cl, 0));
}

/*
 * The pump's work requests, posted as one list: on Soft-RoCE each
 * ibv_post_send() is a doorbell syscall, whatever the list's length.
 */
struct ws_cl_batch {
	struct ibv_send_wr wr[WS_POST_BATCH];
	struct ibv_sge sge[WS_POST_BATCH];
	bool resend[WS_POST_BATCH]; /* counted in `resent` once posted */
	int n;
};

static void ws_cl_batch_add(struct ws_client *cl, struct ws_rail *r, struct ws_cl_batch *b,
			    uint64_t seq, uint8_t *msg, bool resend)
{
	struct ibv_send_wr *wr = &b->wr[b->n];
	struct ibv_sge *sge = &b->sge[b->n];
	uint32_t slot;

	sge->addr = (uintptr_t)msg;
	sge->length = cl->o->msg_size;
	sge->lkey = r->c.mr->lkey;
	memset(wr, 0, sizeof(*wr));
	wr->wr_id = seq;
	wr->sg_list = sge;
	wr->num_sge = 1;
	wr->send_flags = IBV_SEND_SIGNALED;
	if (cl->o->op == WS_OP_WRITE) {
		slot = (uint32_t)(seq % r->rslots);
		wr->opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
		wr->imm_data = htonl(slot);
		wr->wr.rdma.remote_addr = r->raddr + (uint64_t)slot * cl->o->msg_size;
		wr->wr.rdma.rkey = r->rkey;
	} else {
		wr->opcode = IBV_WR_SEND;
	}
	if (b->n)
		b->wr[b->n - 1].next = wr;
	b->resend[b->n] = resend;
	b->n++;
}

/*
 * Posts the batch on r and counts what was posted (`sent`, `resent`); a
 * failure fails the rail over, and the messages the batch held are re-sent
 * from their slots like any others in flight.
 */
static int ws_cl_batch_post(struct ws_client *cl, struct ws_rail *r, struct ws_cl_batch *b)
{
	struct ibv_send_wr *bad = NULL;
	char why[96];
	int ret, posted, i;

	if (!b->n)
		return 0;
	ret = ibv_post_send(r->c.id->qp, b->wr, &bad);
	posted = b->n;
	if (ret) /* bad is the first work request not posted */
		posted = bad >= b->wr && bad < b->wr + b->n ? (int)(bad - b->wr) : 0;
	for (i = 0; i < posted; i++) {
		cl->sent++;
		cl->resent += b->resend[i];
	}
	b->n = 0;
	if (!ret)
		return 0;
	snprintf(why, sizeof(why), "ibv_post_send: %s", strerror(ret));
	/* Fails over (and may re-enter the pump on the next rail). */
	ws_cl_rail_fail(cl, r, why);
	return -ret;
}

/*
 * --rate: true when a new message may go now. Tokens accrue at the rate, up to
 * two messages, so a stall or a failover is not made up with a burst later;
 * when it may not go yet, pace_next_ns says when it may (the poll wakes then).
 */
static bool ws_cl_paced_ok(struct ws_client *cl, uint64_t now)
{
	double rate = (double)cl->o->rate, size = cl->o->msg_size;

	if (!cl->o->rate)
		return true;
	cl->pace_tokens += rate * (double)(now - cl->pace_last_ns) / 1e9;
	if (cl->pace_tokens > 2 * size)
		cl->pace_tokens = 2 * size;
	cl->pace_last_ns = now;
	if (cl->pace_tokens >= size) {
		cl->pace_next_ns = 0;
		return true;
	}
	cl->pace_next_ns = now + (uint64_t)((size - cl->pace_tokens) / rate * 1e9) + 1;
	return false;
}

/*
 * Posts on the active rail while the window has room: first the re-sends
 * (seqs below nxt, after a failover), then new messages unless stopping, at
 * most at --rate.
 */
static void ws_cl_pump(struct ws_client *cl)
{
	uint32_t w = cl->o->queue_depth;
	struct ws_cl_batch b;
	struct ws_rail *r = NULL;
	uint64_t seq, now;
	uint8_t *msg;
	bool resend;

	b.n = 0;
	while (cl->started && cl->active >= 0 && !cl->failing_back && !cl->rereg &&
	       cl->snd_nxt - cl->una < w) {
		r = &cl->rail[cl->active];
		seq = cl->snd_nxt;
		resend = seq < cl->nxt;
		if (!resend && cl->stopping)
			break;
		now = rc_now_ns();
		if (!resend && !ws_cl_paced_ok(cl, now))
			break;
		if (b.n == WS_POST_BATCH && ws_cl_batch_post(cl, r, &b))
			return;
		msg = cl->buf + (size_t)(seq % w) * cl->o->msg_size;
		if (resend)
			ws_msg_set_ts(msg, now);
		else
			ws_msg_fill(msg, cl->o->msg_size, seq, now);
		cl->post_ns[seq % w] = now;
		if (cl->una == cl->snd_nxt) /* idle time is not a stall */
			cl->progress_ns = now;
		ws_cl_batch_add(cl, r, &b, seq, msg, resend);
		if (!resend) {
			cl->nxt++;
			if (cl->o->rate)
				cl->pace_tokens -= cl->o->msg_size;
		}
		cl->snd_nxt++;
	}
	if (r)
		ws_cl_batch_post(cl, r, &b);
}

/* Makes pos the active rail after a failure or a stall: everything pending is re-sent there. */
void ws_cl_activate(struct ws_client *cl, int pos)
{
	uint64_t pending = cl->nxt - cl->una;

	cl->active = pos;
	cl->snd_nxt = cl->una;
	cl->progress_ns = rc_now_ns();
	cl->slow = false; /* the failover is the reaction; the new rail starts afresh */
	cl->failovers++;
	ws_cl_emit(cl, ws_out("failover", "{s:i, s:i, s:I}", "from_rail",
			      ws_cl_rail_id(cl, cl->last_active), "to_rail", ws_cl_rail_id(cl, pos),
			      "resent", (json_int_t)pending));
	rc_info("failover: rail %d -> rail %d, re-sending %llu message(s)",
		ws_cl_rail_id(cl, cl->last_active), ws_cl_rail_id(cl, pos),
		(unsigned long long)pending);
	ws_cl_pump(cl);
}

static int ws_cl_pick(const struct ws_client *cl)
{
	int i;

	for (i = 0; i < cl->n; i++)
		if (cl->rail[i].state == WS_RAIL_UP)
			return i;
	return -1;
}

/*
 * A rail is lost. With teardown, its QP and resources are destroyed; without
 * (a hung QP), they are abandoned on purpose: destroying a QP that Soft-RoCE
 * has stopped serving can block the caller in the kernel, and a workload
 * that blocks cannot fail over. The leak is one rail's resources, once.
 */
static void ws_cl_rail_lost(struct ws_client *cl, struct ws_rail *r, const char *reason,
			    bool teardown)
{
	int pos = r->c.pos, next;
	bool was_active = cl->active == pos;

	cl->errors++;
	ws_cl_emit(cl, ws_out("rail_down", "{s:i, s:s, s:b}", "rail", ws_cl_rail_id(cl, pos),
			      "reason", reason, "active", was_active));
	rc_warn("rail %d (%s) down: %s", ws_cl_rail_id(cl, pos), cl->o->addr[pos], reason);
	if (teardown) {
		ws_conn_teardown(&r->c, true);
	} else {
		rc_warn("rail %d: abandoning its hung QP without destroying it",
			ws_cl_rail_id(cl, pos));
		ws_conn_force_error(&r->c);
		r->c.id = NULL;
		r->c.pd = NULL;
		r->c.ch = NULL;
		r->c.cq = NULL;
		r->c.mr = r->c.mr_ctl = NULL;
		r->c.established = false;
	}
	r->state = WS_RAIL_DOWN;
	r->hb_out = false;
	r->kick_out = false;
	r->failed_attempts = 0;
	if (reason != r->why)
		snprintf(r->why, sizeof(r->why), "%s", reason);
	r->next_try_ns = rc_now_ns() + WS_RECONNECT_MS * RC_NSEC_PER_MSEC;
	if (cl->failing_back && pos == 0)
		cl->failing_back = false;
	if (!was_active)
		return;
	cl->active = -1;
	cl->last_active = pos;
	cl->failing_back = false;
	next = ws_cl_pick(cl);
	if (next >= 0) {
		ws_cl_activate(cl, next);
		return;
	}
	cl->stalls++;
	ws_cl_emit(cl, ws_out("stall", "{s:s, s:s, s:i, s:I}", "cause", "no_rail", "reason",
			      "no healthy rail: data waits for a rail to reconnect", "last_rail",
			      ws_cl_rail_id(cl, pos), "pending", (json_int_t)(cl->nxt - cl->una)));
	rc_warn("stall: no healthy rail; %llu message(s) wait",
		(unsigned long long)(cl->nxt - cl->una));
}

void ws_cl_rail_fail(struct ws_client *cl, struct ws_rail *r, const char *reason)
{
	ws_cl_rail_lost(cl, r, reason, true);
}

static const char *ws_cl_wr_opcode(const struct ws_client *cl, bool hb)
{
	if (hb || cl->o->op == WS_OP_SEND)
		return "IBV_WR_SEND";
	return "IBV_WR_RDMA_WRITE_WITH_IMM";
}

static int ws_cl_on_wc(void *arg, struct ws_conn *c, const struct ibv_wc *wc)
{
	struct ws_client *cl = arg;
	struct ws_rail *r = (struct ws_rail *)((char *)c - offsetof(struct ws_rail, c));
	bool hb = wc->wr_id & WS_WRID_HB, kick = wc->wr_id & WS_WRID_KICK;
	uint64_t seq = wc->wr_id & ~(WS_WRID_HB | WS_WRID_KICK), now, done;

	if (wc->status != IBV_WC_SUCCESS) {
		/* An error completion has no valid opcode: report the one we posted. */
		ws_cl_emit(cl,
			   ws_out("error", "{s:i, s:s, s:i, s:s, s:i, s:i, s:s, s:s, s:I}", "rail",
				  ws_cl_rail_id(cl, c->pos), "wc_status",
				  ws_wc_status_name(wc->status), "wc_status_code", (int)wc->status,
				  "wc_status_str", ibv_wc_status_str(wc->status), "vendor_err",
				  (int)wc->vendor_err, "qp_num", (int)wc->qp_num, "opcode",
				  kick ? "IBV_WR_RDMA_WRITE" : ws_cl_wr_opcode(cl, hb), "kind",
				  hb	 ? "heartbeat"
				  : kick ? "kick"
					 : "data",
				  "seq", (json_int_t)seq));
		snprintf(r->why, sizeof(r->why), "completion error %s (%s)",
			 ws_wc_status_name(wc->status), ibv_wc_status_str(wc->status));
		return -EIO;
	}
	if (hb) {
		r->hb_out = false;
		cl->heartbeats++;
		return 0;
	}
	if (kick) {
		r->kick_out = false;
		return 0;
	}
	if (seq < cl->una)
		return 0;
	if (seq >= cl->snd_nxt) {
		rc_err("rail %d: completion for seq %llu that is not in flight",
		       ws_cl_rail_id(cl, c->pos), (unsigned long long)seq);
		return 0;
	}
	now = rc_now_ns();
	if (cl->slow) {
		cl->slow = false;
		ws_cl_emit(cl, ws_out("resume", "{s:i, s:I}", "rail", ws_cl_rail_id(cl, c->pos),
				      "stalled_ms",
				      (json_int_t)((now - cl->progress_ns) / RC_NSEC_PER_MSEC)));
	}
	cl->progress_ns = now;
	/* In order on RC, so normally seq == una; anything skipped completed with it. */
	done = seq + 1 - cl->una;
	cl->una = seq + 1;
	cl->completed += done;
	cl->bytes += done * cl->o->msg_size;
	/* One latency sample per completion; done > 1 would only follow a skipped one. */
	ws_stats_add(&cl->st, done * cl->o->msg_size, now - cl->post_ns[seq % cl->o->queue_depth]);
	cl->st.msgs += done - 1;
	return 0;
}

static void ws_cl_heartbeat(struct ws_client *cl, struct ws_rail *r, uint64_t now)
{
	uint8_t *hb =
	    cl->buf + (size_t)cl->o->queue_depth * cl->o->msg_size + (size_t)r->c.pos * WS_HB_SLOT;
	struct ibv_send_wr wr, *bad;
	struct ibv_sge sge;
	char why[96];
	int ret;

	r->hb_seq++;
	ws_hb_fill(hb, r->hb_seq, now);
	sge.addr = (uintptr_t)hb;
	sge.length = WS_HDR_LEN;
	sge.lkey = r->c.mr->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = WS_WRID_HB | r->hb_seq;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED;
	ret = ibv_post_send(r->c.id->qp, &wr, &bad);
	if (ret) {
		snprintf(why, sizeof(why), "heartbeat ibv_post_send: %s", strerror(ret));
		ws_cl_rail_fail(cl, r, why);
		return;
	}
	r->hb_out = true;
	r->hb_last_ns = now;
}

static void ws_cl_interval(struct ws_client *cl, uint64_t now)
{
	struct ws_interval iv;
	json_t *f;

	ws_stats_cut(&cl->st, now, &iv);
	f = ws_out_interval_fields(cl->active >= 0 ? ws_cl_rail_id(cl, cl->active) : -1, &iv);
	if (f)
		json_object_set_new(f, "pending", json_integer((json_int_t)(cl->nxt - cl->una)));
	ws_cl_emit(cl, ws_out_obj("interval", f));
}

/*
 * Soft-RoCE (6.1 and 6.12) can lose the wake-up of a QP's requester:
 * rxe_requester() reads skb_out (its packets still in the network stack)
 * above RXE_INFLIGHT_SKBS_PER_QP_HIGH and only then sets need_req_skb, while
 * the packets' destructor, rxe_skb_tx_dtor(), decrements skb_out and runs the
 * requester only if need_req_skb is already set. When the last packets are
 * freed between the read and the store (a softirq, as the NIC's queue
 * restarts), nobody runs it again, and the QP sits with work queued, no
 * packet out, nothing left to retransmit and no error (docs/PROTOCOL.md,
 * kick). Any post_send runs the requester again. So while the active rail is
 * stalled, a zero-length RDMA WRITE (no data placed, no receive consumed, a
 * valid key anyway) is posted every WS_SLOW_MS, each said as a `kick` event.
 * Only on rxe and op=write; a kick cannot unstick a real fault (it queues
 * behind the stalled work), it only undoes a lost wake-up.
 */
static void ws_cl_kick(struct ws_client *cl, struct ws_rail *r, uint64_t now)
{
	struct ibv_send_wr wr, *bad;
	char why[96];
	int ret;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = WS_WRID_KICK | ++cl->kicks;
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = r->raddr;
	wr.wr.rdma.rkey = r->rkey;
	r->kick_last_ns = now;
	ret = ibv_post_send(r->c.id->qp, &wr, &bad);
	if (ret) {
		snprintf(why, sizeof(why), "kick ibv_post_send: %s", strerror(ret));
		ws_cl_rail_fail(cl, r, why);
		return;
	}
	r->kick_out = true;
	ws_cl_emit(cl, ws_out("kick", "{s:i, s:I, s:I}", "rail", ws_cl_rail_id(cl, r->c.pos),
			      "in_flight", (json_int_t)(cl->snd_nxt - cl->una), "stalled_ms",
			      (json_int_t)((now - cl->progress_ns) / RC_NSEC_PER_MSEC)));
}

/* Reconnects, heartbeats and fail-back: everything that runs on the clock. */
/*
 * A rail whose messages stop completing without any error is as dead as one
 * that reports RETRY_EXC_ERR: receiver-not-ready is retried forever
 * (rnr_retry 7), and Soft-RoCE has been seen to sit on a request with
 * neither progress nor error. After several retry budgets with work in
 * flight and nothing done, the client gives the rail up like a failed one.
 */
static uint64_t ws_cl_watchdog_ns(const struct ws_client *cl)
{
	double budget_ms = (cl->o->retry_cnt + 1) * 4.096e-3 * (double)(1ULL << cl->o->ack_timeout);
	double ms = 4 * budget_ms;

	return (uint64_t)(ms < WS_WATCHDOG_MIN_MS ? WS_WATCHDOG_MIN_MS : ms) * RC_NSEC_PER_MSEC;
}

static void ws_cl_watchdog(struct ws_client *cl, uint64_t now)
{
	uint64_t limit = ws_cl_watchdog_ns(cl);
	struct ws_rail *r;
	int i;

	if (cl->active >= 0 && cl->una < cl->snd_nxt && !cl->slow &&
	    now - cl->progress_ns > WS_SLOW_MS * RC_NSEC_PER_MSEC) {
		/* Paused (a PFC storm, a congested path) or dying: the watchdog tells later. */
		cl->slow = true;
		ws_cl_emit(cl, ws_out("stall", "{s:s, s:s, s:i, s:I}", "cause", "no_progress",
				      "reason", "work in flight and no completion", "rail",
				      ws_cl_rail_id(cl, cl->active), "in_flight",
				      (json_int_t)(cl->snd_nxt - cl->una)));
	}
	r = cl->active >= 0 ? &cl->rail[cl->active] : NULL;
	if (cl->slow && r && r->soft_roce && cl->o->op == WS_OP_WRITE && !r->kick_out &&
	    now - r->kick_last_ns >= WS_SLOW_MS * RC_NSEC_PER_MSEC)
		ws_cl_kick(cl, r, now);
	if (cl->active >= 0 && cl->una < cl->snd_nxt && now - cl->progress_ns > limit) {
		r = &cl->rail[cl->active];
		ws_cl_emit(cl, ws_out("error", "{s:i, s:s, s:s, s:I, s:s}", "rail",
				      ws_cl_rail_id(cl, cl->active), "wc_status", "WATCHDOG",
				      "wc_status_str", "no completion and no error", "in_flight",
				      (json_int_t)(cl->snd_nxt - cl->una), "kind", "data"));
		snprintf(r->why, sizeof(r->why), "no completion for %llu ms with %llu in flight",
			 (unsigned long long)((now - cl->progress_ns) / RC_NSEC_PER_MSEC),
			 (unsigned long long)(cl->snd_nxt - cl->una));
		ws_cl_rail_lost(cl, r, r->why, false);
	}
	for (i = 0; i < cl->n; i++) {
		r = &cl->rail[i];
		if (i == cl->active || r->state != WS_RAIL_UP || !r->hb_out ||
		    now - r->hb_last_ns <= limit)
			continue;
		ws_cl_emit(cl,
			   ws_out("error", "{s:i, s:s, s:s, s:s}", "rail", ws_cl_rail_id(cl, i),
				  "wc_status", "WATCHDOG", "wc_status_str",
				  "heartbeat neither completed nor failed", "kind", "heartbeat"));
		snprintf(r->why, sizeof(r->why), "heartbeat not completed in %llu ms",
			 (unsigned long long)((now - r->hb_last_ns) / RC_NSEC_PER_MSEC));
		ws_cl_rail_lost(cl, r, r->why, false);
	}
}

/*
 * --mr-churn: the active rail's send buffer is registered anew, as a job
 * re-registers after a checkpoint. Sending stops and the window drains first
 * (no work request may use the old MR when it goes); the new MR is registered
 * before the old one is released, so a limit on MR objects or on pinned
 * memory bites here as it would in the job. A failure is retried with
 * backoff, sending still waits: that is the job's stall the drill measures.
 */
static void ws_cl_mr_churn(struct ws_client *cl, uint64_t now)
{
	uint64_t churn = cl->o->mr_churn_ms * RC_NSEC_PER_MSEC, backoff_ms;
	struct ws_rail *r;
	struct ibv_mr *mr;
	int ret;

	if (!churn || !cl->started || cl->stopping)
		return;
	if (!cl->rereg) {
		if (!cl->rereg_due_ns)
			cl->rereg_due_ns = now + churn;
		if (now < cl->rereg_due_ns)
			return;
		cl->rereg = true;
		cl->rereg_retry_ns = now;
	}
	if (cl->active < 0 || cl->una != cl->snd_nxt || now < cl->rereg_retry_ns)
		return;
	r = &cl->rail[cl->active];
	ret = ws_conn_reg(&r->c, &mr, cl->buf, cl->buflen, IBV_ACCESS_LOCAL_WRITE);
	if (ret) {
		cl->mr_errors++;
		if (!cl->rereg_failures++)
			cl->rereg_fail_since_ns = now;
		backoff_ms = (uint64_t)WS_MR_BACKOFF_MIN_MS
			     << (cl->rereg_failures > 6 ? 5 : cl->rereg_failures - 1);
		if (backoff_ms > WS_MR_BACKOFF_MAX_MS)
			backoff_ms = WS_MR_BACKOFF_MAX_MS;
		cl->rereg_retry_ns = now + backoff_ms * RC_NSEC_PER_MSEC;
		ws_cl_emit(cl, ws_out("mr_error", "{s:i, s:s, s:i, s:s, s:i, s:I}", "rail",
				      ws_cl_rail_id(cl, r->c.pos), "during", "rereg", "errno", -ret,
				      "error", strerror(-ret), "attempt", (int)cl->rereg_failures,
				      "retry_in_ms", (json_int_t)backoff_ms));
		if (cl->rereg_failures == 1)
			rc_warn("rail %d: re-registering the send buffer failed: %s; retrying "
				"with backoff, sending waits",
				ws_cl_rail_id(cl, r->c.pos), strerror(-ret));
		return;
	}
	ibv_dereg_mr(r->c.mr);
	r->c.mr = mr;
	cl->mr_reregs++;
	if (cl->rereg_failures) {
		ws_cl_emit(
		    cl,
		    ws_out("mr_recovered", "{s:i, s:i, s:I}", "rail", ws_cl_rail_id(cl, r->c.pos),
			   "attempts", (int)cl->rereg_failures + 1, "failed_ms",
			   (json_int_t)((now - cl->rereg_fail_since_ns) / RC_NSEC_PER_MSEC)));
		rc_info("rail %d: send buffer registered again after %u failure(s)",
			ws_cl_rail_id(cl, r->c.pos), cl->rereg_failures);
	}
	cl->rereg_failures = 0;
	cl->rereg = false;
	cl->rereg_due_ns = now + churn;
}

static void ws_cl_timers(struct ws_client *cl, uint64_t now)
{
	struct ws_rail *r;
	int i, from;

	if (cl->started && !cl->stopping) {
		ws_cl_watchdog(cl, now);
		ws_cl_mr_churn(cl, now);
	}

	for (i = 0; i < cl->n; i++) {
		r = &cl->rail[i];
		if (r->state != WS_RAIL_UP)
			ws_cl_rail_timer(cl, r, now);
		else if (cl->started && i != cl->active && !r->hb_out &&
			 now - r->hb_last_ns >= WS_HEARTBEAT_MS * RC_NSEC_PER_MSEC)
			ws_cl_heartbeat(cl, r, now);
	}
	if (!cl->started || cl->stopping)
		return;
	r = &cl->rail[0];
	if (cl->active > 0 && !cl->failing_back && r->state == WS_RAIL_UP &&
	    now - r->up_since_ns >= WS_FAILBACK_MS * RC_NSEC_PER_MSEC) {
		cl->failing_back = true;
		rc_info("rail %d is back for %d ms: draining rail %d to fail back",
			ws_cl_rail_id(cl, 0), WS_FAILBACK_MS, ws_cl_rail_id(cl, cl->active));
	}
	/* Nothing in flight on the old rail: switch without re-sending anything. */
	if (cl->failing_back && cl->una == cl->snd_nxt) {
		from = cl->active;
		cl->failing_back = false;
		cl->active = 0;
		cl->last_active = 0;
		cl->failbacks++;
		ws_cl_emit(cl, ws_out("failback", "{s:i, s:i}", "from_rail",
				      ws_cl_rail_id(cl, from), "to_rail", ws_cl_rail_id(cl, 0)));
		rc_info("failback: rail %d -> rail %d", ws_cl_rail_id(cl, from),
			ws_cl_rail_id(cl, 0));
	}
}

static void ws_cl_summary(struct ws_client *cl)
{
	uint64_t now = rc_now_ns();

	ws_cl_emit(
	    cl,
	    ws_out(
		"summary",
		"{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:b, s:I, s:I, s:I, s:I}",
		"sent", (json_int_t)cl->sent, "completed", (json_int_t)cl->completed, "resent",
		(json_int_t)cl->resent, "errors", (json_int_t)cl->errors, "bytes",
		(json_int_t)cl->bytes, "failovers", (json_int_t)cl->failovers, "failbacks",
		(json_int_t)cl->failbacks, "stalls", (json_int_t)cl->stalls, "heartbeats",
		(json_int_t)cl->heartbeats, "next_seq", (json_int_t)cl->nxt, "outstanding",
		(json_int_t)(cl->nxt - cl->una), "drained", cl->una == cl->nxt, "duration_ms",
		(json_int_t)(cl->started ? (now - cl->start_ns) / RC_NSEC_PER_MSEC : 0),
		"mr_reregs", (json_int_t)cl->mr_reregs, "mr_errors", (json_int_t)cl->mr_errors,
		"kicks", (json_int_t)cl->kicks));
}

/*
 * --busy-poll: while messages are in flight and the last progress (a data
 * completion, or the window going busy) is less than the budget ago, polls the
 * active rail's CQ without arming it. A CQ armed before still raises one
 * event, which the next poll() (at least every WS_BUSY_POLL_GAP_MS, for the cm
 * channel, the standby rails and the timers) consumes without re-arming: one
 * event per busy spell, not a read and a re-arm per gap. ws_cl_arm() arms it
 * again before the client sleeps. Returns 1 when a completion came (the caller
 * skips poll()), 0 when poll() is due without sleeping, -1 when the caller may
 * sleep.
 */
static int ws_cl_busy_poll(struct ws_client *cl)
{
	uint64_t budget = (uint64_t)cl->o->busy_poll_us * 1000, before = cl->completed, t;
	struct ws_rail *r;

	if (!budget || !cl->started || cl->active < 0 || cl->una == cl->snd_nxt)
		return -1;
	r = &cl->rail[cl->active];
	for (;;) {
		t = rc_now_ns();
		if (t - cl->progress_ns >= budget || !r->c.cq)
			return -1;
		if (t - cl->polled_ns >= WS_BUSY_POLL_GAP_MS * RC_NSEC_PER_MSEC)
			return 0;
		if (ws_conn_poll(&r->c, false, false, ws_cl_on_wc, cl)) {
			ws_cl_rail_fail(cl, r, r->why);
			return 1;
		}
		if (cl->completed != before)
			return 1;
	}
}

/*
 * Before a sleep: arms every CQ that busy polling left unarmed (and polls it
 * once more for what raced in). Returns true when that handled a completion,
 * so the caller does not sleep on work it could post now.
 */
static bool ws_cl_arm(struct ws_client *cl)
{
	uint64_t before = cl->completed;
	struct ws_rail *r;
	int i;

	for (i = 0; i < cl->n; i++) {
		r = &cl->rail[i];
		if (r->c.cq && !r->c.armed && ws_conn_poll(&r->c, false, true, ws_cl_on_wc, cl))
			ws_cl_rail_fail(cl, r, r->why);
	}
	return cl->completed != before;
}

static int ws_cl_poll_once(struct ws_client *cl, uint64_t next_iv)
{
	struct pollfd pfd[1 + WS_MAX_RAILS];
	int map[WS_MAX_RAILS], n = 1, i, ret, nready, timeout;
	uint64_t now;
	struct ws_rail *r;
	int busy;

	busy = ws_cl_busy_poll(cl);
	if (busy > 0)
		return 0;
	if (busy < 0 && ws_cl_arm(cl))
		busy = 0; /* a completion came: poll() without sleeping */
	now = rc_now_ns();
	cl->polled_ns = now;
	pfd[0].fd = cl->ech->fd;
	pfd[0].events = POLLIN;
	for (i = 0; i < cl->n; i++) {
		if (!cl->rail[i].c.ch)
			continue;
		pfd[n].fd = cl->rail[i].c.ch->fd;
		pfd[n].events = POLLIN;
		pfd[n].revents = 0;
		map[n - 1] = i;
		n++;
	}
	timeout = WS_POLL_MS;
	if (cl->started && next_iv > now)
		timeout = ws_timeout_ms(now, next_iv, timeout);
	/* --rate: wake when the next message may go (a stale time past is not a reason to spin) */
	if (cl->pace_next_ns > now)
		timeout = ws_timeout_ms(now, cl->pace_next_ns, timeout);
	if (!busy)
		timeout = 0;
	nready = poll(pfd, (nfds_t)n, timeout);
	if (nready < 0 && errno != EINTR) {
		rc_err("poll: %s", strerror(errno));
		return -errno;
	}
	/* CQs are polled even without an event: cheap (rxe maps them), and it costs no wakeup. */
	for (i = 1; i < n; i++) {
		r = &cl->rail[map[i - 1]];
		/* A failover inside this loop may have torn a later rail down already. */
		if (!r->c.cq)
			continue;
		/* Busy polling leaves the active rail's CQ unarmed until ws_cl_arm(). */
		if (ws_conn_poll(&r->c, nready > 0 && (pfd[i].revents & POLLIN),
				 busy || map[i - 1] != cl->active, ws_cl_on_wc, cl))
			ws_cl_rail_fail(cl, r, r->why);
	}
	/* Only when readable: reading an empty channel is a syscall per wakeup. */
	if (nready <= 0 || !(pfd[0].revents & POLLIN))
		return 0;
	ret = ws_cl_cm(cl);
	return ret < 0 ? ret : 0;
}

static int ws_cl_loop(struct ws_client *cl)
{
	uint64_t now = rc_now_ns(), boot_deadline, end_ns = 0, drain_end = 0, next_iv = 0;
	bool armed = false;
	int i, ret;

	boot_deadline = now + cl->o->connect_timeout_ms * RC_NSEC_PER_MSEC;
	for (i = 0; i < cl->n; i++)
		ws_cl_connect(cl, &cl->rail[i], now);
	for (;;) {
		now = rc_now_ns();
		if (!cl->started && (now >= boot_deadline || cl->refused)) {
			ws_cl_startup_failed(cl);
			return -ETIMEDOUT;
		}
		if (cl->started && !armed) {
			armed = true;
			next_iv = now + cl->o->interval_ms * RC_NSEC_PER_MSEC;
			if (cl->o->duration_ms)
				end_ns = now + cl->o->duration_ms * RC_NSEC_PER_MSEC;
		}
		if (!cl->stopping &&
		    (ws_stop_signal || cl->out_gone || (end_ns && now >= end_ns))) {
			if (!cl->started) {
				rc_err("stopped before every rail connected");
				return -EINTR;
			}
			cl->stopping = true;
			cl->failing_back = false;
			drain_end = now + WS_DRAIN_MS * RC_NSEC_PER_MSEC;
			rc_info("stopping: draining %llu outstanding message(s)",
				(unsigned long long)(cl->nxt - cl->una));
		}
		if (cl->stopping && (cl->una == cl->nxt || now >= drain_end || cl->out_gone))
			return 0;

		ret = ws_cl_poll_once(cl, next_iv);
		if (ret)
			return ret;
		now = rc_now_ns();
		ws_cl_timers(cl, now);
		if (armed && now >= next_iv) {
			ws_cl_interval(cl, now);
			next_iv += cl->o->interval_ms * RC_NSEC_PER_MSEC;
			if (next_iv <= now)
				next_iv = now + cl->o->interval_ms * RC_NSEC_PER_MSEC;
		}
		ws_cl_pump(cl);
	}
}

static int ws_cl_init(struct ws_client *cl, const struct ws_opts *o)
{
	char err[300];
	int i, ret;

	memset(cl, 0, sizeof(*cl));
	cl->o = o;
	cl->n = o->nrails;
	cl->active = -1;
	for (i = 0; i < cl->n; i++) {
		cl->rail[i].c.pos = i;
		ret = ws_resolve(o->addr[i], o->port, &cl->rail[i].dst, err, sizeof(err));
		if (ret) {
			rc_err("rail %d: --connect %s", o->rail_id[i], err);
			return ret;
		}
		if (o->bind[i][0]) {
			ret = ws_resolve(o->bind[i], 0, &cl->rail[i].src, err, sizeof(err));
			if (ret) {
				rc_err("rail %d: --bind %s", o->rail_id[i], err);
				return ret;
			}
			cl->rail[i].has_src = true;
		}
	}
	cl->buflen = (size_t)o->queue_depth * o->msg_size + (size_t)cl->n * WS_HB_SLOT;
	if (posix_memalign((void **)&cl->buf, 4096, cl->buflen)) {
		rc_err("cannot allocate %zu bytes of message buffer", cl->buflen);
		return -ENOMEM;
	}
	memset(cl->buf, 0, cl->buflen);
	cl->post_ns = calloc(o->queue_depth, sizeof(*cl->post_ns));
	if (!cl->post_ns)
		return -ENOMEM;
	ws_stats_init(&cl->st, rc_now_ns());
	cl->ech = ws_event_channel();
	if (!cl->ech) {
		rc_err("rdma_create_event_channel: %s (is rdma_ucm loaded, /dev/infiniband/rdma_cm "
		       "present?)",
		       strerror(errno));
		return -errno;
	}
	return 0;
}

int ws_client_run(const struct ws_opts *o)
{
	struct ws_client cl;
	int i, ret;

	ret = ws_cl_init(&cl, o);
	if (ret)
		goto out;
	ret = ws_cl_loop(&cl);
	if (cl.started)
		ws_cl_summary(&cl);
out:
	for (i = 0; i < cl.n; i++)
		ws_conn_teardown(&cl.rail[i].c, true);
	if (cl.ech)
		rdma_destroy_event_channel(cl.ech);
	free(cl.buf);
	free(cl.post_ns);
	ws_stats_free(&cl.st);
	return ret || cl.out_gone ? 1 : 0;
}
