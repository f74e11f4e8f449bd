// SPDX-License-Identifier: MIT
/* rdma_cm connection resources per rail, private data, and the CQ drain loop. */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <stdio.h>
#include <string.h>

#include "common/log.h"
#include "workloads/stream_conn.h"

void ws_hello_swap(struct ws_hello *h)
{
	h->magic = htole32(h->magic);
	h->msg_size = htole32(h->msg_size);
	h->queue_depth = htole32(h->queue_depth);
}

void ws_accept_swap(struct ws_accept *a)
{
	a->magic = htole32(a->magic);
	a->slots = htole32(a->slots);
	a->rkey = htole32(a->rkey);
	a->addr = htole64(a->addr);
}

int ws_resolve(const char *host, uint16_t port, struct sockaddr_storage *ss, char *err,
	       size_t errlen)
{
	struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
	struct addrinfo *res;
	char service[8];
	int ret;

	snprintf(service, sizeof(service), "%u", port);
	ret = getaddrinfo(host, service, &hints, &res);
	if (ret) {
		snprintf(err, errlen, "%s: %s", host, gai_strerror(ret));
		return -EHOSTUNREACH;
	}
	memset(ss, 0, sizeof(*ss));
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	freeaddrinfo(res);
	return 0;
}

const char *ws_sockaddr_str(const struct sockaddr *sa, char *buf, size_t len)
{
	const void *a;

	if (!sa) {
		snprintf(buf, len, "?");
		return buf;
	}
	if (sa->sa_family == AF_INET)
		a = &((const struct sockaddr_in *)(const void *)sa)->sin_addr;
	else if (sa->sa_family == AF_INET6)
		a = &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr;
	else
		a = NULL;
	if (!a || !inet_ntop(sa->sa_family, a, buf, (socklen_t)len))
		snprintf(buf, len, "?");
	return buf;
}

static int ws_set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
		return -errno;
	return 0;
}

struct rdma_event_channel *ws_event_channel(void)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	int ret;

	if (!ch)
		return NULL;
	ret = ws_set_nonblock(ch->fd);
	if (ret) {
		rdma_destroy_event_channel(ch);
		errno = -ret;
		return NULL;
	}
	return ch;
}

int ws_conn_setup(struct ws_conn *c, struct rdma_cm_id *id, const struct ws_conn_caps *caps)
{
	struct ibv_qp_init_attr qa;
	const char *dev = id->verbs ? ibv_get_device_name(id->verbs->device) : "?";
	int ret;

	c->id = id;
	c->pd = ibv_alloc_pd(id->verbs);
	if (!c->pd) {
		ret = -errno;
		snprintf(c->err, sizeof(c->err), "%s: ibv_alloc_pd: %s", dev, strerror(-ret));
		goto err;
	}
	c->ch = ibv_create_comp_channel(id->verbs);
	if (!c->ch) {
		ret = -errno;
		snprintf(c->err, sizeof(c->err), "%s: ibv_create_comp_channel: %s", dev,
			 strerror(-ret));
		goto err_pd;
	}
	ret = ws_set_nonblock(c->ch->fd);
	if (ret) {
		snprintf(c->err, sizeof(c->err), "completion channel: O_NONBLOCK: %s",
			 strerror(-ret));
		goto err_ch;
	}
	c->cq = ibv_create_cq(id->verbs, (int)caps->cq_size, c, c->ch, 0);
	if (!c->cq) {
		ret = -errno;
		snprintf(c->err, sizeof(c->err), "%s: ibv_create_cq(%u): %s", dev, caps->cq_size,
			 strerror(-ret));
		goto err_ch;
	}
	ret = ibv_req_notify_cq(c->cq, 0);
	if (ret) {
		ret = -ret;
		snprintf(c->err, sizeof(c->err), "ibv_req_notify_cq: %s", strerror(-ret));
		goto err_cq;
	}
	c->armed = true;
	memset(&qa, 0, sizeof(qa));
	qa.send_cq = c->cq;
	qa.recv_cq = c->cq;
	qa.qp_type = IBV_QPT_RC;
	qa.sq_sig_all = 0;
	qa.cap.max_send_wr = caps->send_wr;
	qa.cap.max_recv_wr = caps->recv_wr;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	if (rdma_create_qp(id, c->pd, &qa)) {
		ret = -errno;
		snprintf(c->err, sizeof(c->err), "%s: rdma_create_qp(send %u, recv %u): %s", dev,
			 caps->send_wr, caps->recv_wr, strerror(-ret));
		goto err_cq;
	}
	return 0;

err_cq:
	ibv_destroy_cq(c->cq);
	c->cq = NULL;
err_ch:
	ibv_destroy_comp_channel(c->ch);
	c->ch = NULL;
err_pd:
	ibv_dealloc_pd(c->pd);
	c->pd = NULL;
err:
	return ret;
}

int ws_conn_reg(struct ws_conn *c, struct ibv_mr **mr, void *buf, size_t len, int access)
{
	*mr = ibv_reg_mr(c->pd, buf, len, access);
	if (!*mr) {
		int ret = -errno;

		snprintf(c->err, sizeof(c->err), "ibv_reg_mr(%zu bytes): %s", len, strerror(-ret));
		return ret;
	}
	return 0;
}

/*
 * Moving a QP to the error state is the one verb that must not wait for the
 * peer: the provider flushes what is queued with IBV_WC_WR_FLUSH_ERR. A QP
 * that neither completed nor failed may then still be destroyable when the
 * process exits, instead of sitting on its work requests in the kernel.
 */
void ws_conn_force_error(struct ws_conn *c)
{
	struct ibv_qp_attr attr = {.qp_state = IBV_QPS_ERR};
	int ret;

	if (!c->id || !c->id->qp)
		return;
	ret = ibv_modify_qp(c->id->qp, &attr, IBV_QP_STATE);
	if (ret)
		rc_warn("QP %u: move to error state: %s", c->id->qp->qp_num, strerror(ret));
}

void ws_conn_teardown(struct ws_conn *c, bool disconnect)
{
	if (c->id && disconnect && c->established)
		rdma_disconnect(c->id);
	if (c->id && c->id->qp)
		rdma_destroy_qp(c->id);
	if (c->mr)
		ibv_dereg_mr(c->mr);
	if (c->mr_ctl)
		ibv_dereg_mr(c->mr_ctl);
	if (c->cq)
		ibv_destroy_cq(c->cq);
	if (c->ch)
		ibv_destroy_comp_channel(c->ch);
	if (c->pd)
		ibv_dealloc_pd(c->pd);
	if (c->id)
		rdma_destroy_id(c->id);
	c->id = NULL;
	c->mr = c->mr_ctl = NULL;
	c->cq = NULL;
	c->ch = NULL;
	c->pd = NULL;
	c->established = false;
}

int ws_cm_next(struct rdma_event_channel *ch, struct ws_cm_ev *ev)
{
	struct rdma_cm_event *e;

	if (rdma_get_cm_event(ch, &e)) {
		if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
			return 0;
		return -errno;
	}
	memset(ev, 0, sizeof(*ev));
	ev->type = e->event;
	ev->id = e->id;
	ev->listen_id = e->listen_id;
	ev->status = e->status;
	if (e->param.conn.private_data && e->param.conn.private_data_len) {
		ev->pdata_len = e->param.conn.private_data_len < WS_PDATA_MAX
				    ? e->param.conn.private_data_len
				    : WS_PDATA_MAX;
		memcpy(ev->pdata, e->param.conn.private_data, ev->pdata_len);
	}
	rdma_ack_cm_event(e);
	return 1;
}

#define WS_WC_BATCH 32

int ws_conn_poll(struct ws_conn *c, bool readable, bool arm, ws_wc_cb cb, void *arg)
{
	struct ibv_wc wc[WS_WC_BATCH];
	struct ibv_cq *ev_cq;
	void *ev_ctx;
	int n, i, ret;

	if (!c->cq)
		return 0;
	/*
	 * Every event is acked at once, so destroying the CQ never waits for us.
	 * One read: an armed CQ raises one event, so one is all there normally
	 * is, and a second read would only return EAGAIN (a syscall per wakeup);
	 * anything left keeps the channel readable for the next poll().
	 */
	if (readable && !ibv_get_cq_event(c->ch, &ev_cq, &ev_ctx)) {
		ibv_ack_cq_events(ev_cq, 1);
		c->armed = false;
	}
	for (;;) {
		n = ibv_poll_cq(c->cq, WS_WC_BATCH, wc);
		if (n < 0) {
			rc_err("rail %d: ibv_poll_cq failed", c->pos);
			return -EIO;
		}
		for (i = 0; i < n; i++) {
			ret = cb(arg, c, &wc[i]);
			if (ret)
				return ret;
		}
		if (n == WS_WC_BATCH)
			continue;
		if (!arm || c->armed)
			return 0;
		/* Armed after the CQ looked empty: poll again for what raced in. */
		ret = ibv_req_notify_cq(c->cq, 0);
		if (ret) {
			rc_err("rail %d: ibv_req_notify_cq: %s", c->pos, strerror(ret));
			return -ret;
		}
		c->armed = true;
	}
}

const char *ws_wc_status_name(enum ibv_wc_status s)
{
#define WS_WC(x)                                                                                   \
	case IBV_WC_##x:                                                                           \
		return "IBV_WC_" #x
	switch (s) {
		WS_WC(SUCCESS);
		WS_WC(LOC_LEN_ERR);
		WS_WC(LOC_QP_OP_ERR);
		WS_WC(LOC_EEC_OP_ERR);
		WS_WC(LOC_PROT_ERR);
		WS_WC(WR_FLUSH_ERR);
		WS_WC(MW_BIND_ERR);
		WS_WC(BAD_RESP_ERR);
		WS_WC(LOC_ACCESS_ERR);
		WS_WC(REM_INV_REQ_ERR);
		WS_WC(REM_ACCESS_ERR);
		WS_WC(REM_OP_ERR);
		WS_WC(RETRY_EXC_ERR);
		WS_WC(RNR_RETRY_EXC_ERR);
		WS_WC(LOC_RDD_VIOL_ERR);
		WS_WC(REM_INV_RD_REQ_ERR);
		WS_WC(REM_ABORT_ERR);
		WS_WC(INV_EECN_ERR);
		WS_WC(INV_EEC_STATE_ERR);
		WS_WC(FATAL_ERR);
		WS_WC(RESP_TIMEOUT_ERR);
		WS_WC(GENERAL_ERR);
		WS_WC(TM_ERR);
		WS_WC(TM_RNDV_INCOMPLETE);
	}
#undef WS_WC
	return "IBV_WC_UNKNOWN";
}
