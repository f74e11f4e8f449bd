// SPDX-License-Identifier: MIT
/*
 * qp_error against fakes: its parameter checks; the shim mechanism against a
 * fake shim (a SOCK_SEQPACKET server thread answering like
 * librdmachaos-verbs.so); the transport mechanism against a fake kernel whose
 * tc calls (rtnl_qdisc_*, rtnl_cls_*) are replaced with -Wl,--wrap; and the
 * QP state read through a fake RDMA netlink (nl_send_auto,
 * nl_socket_modify_cb and nl_recvmsgs_default replaced: the host has none).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <infiniband/verbs.h>
#include <linux/if_ether.h>
#include <linux/pkt_cls.h>
#include <linux/pkt_sched.h>
#include <netlink/attr.h>
#include <netlink/cache.h>
#include <netlink/errno.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/route/act/gact.h>
#include <netlink/route/action.h>
#include <netlink/route/classifier.h>
#include <netlink/route/cls/u32.h>
#include <netlink/route/qdisc.h>
#include <netlink/route/tc.h>
#include <pthread.h>
#include <rdma/rdma_netlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "common/shim_proto.h"
#include "injectors/injector.h"

#define IFX 7
#define PRIO 4791
#define FILTER_PARENT 0xfffffff2u

/* ---- the fake kernel: one netdev's ingress tc, and the RDMA QP table ---- */

struct kqp {
	char dev[16];
	uint32_t qpn;
	int state;
	int pid;
	bool gone; /* destroyed: not in the dump */
};

static struct {
	bool ingress;
	int qdisc_adds, qdisc_dels, cls_adds, cls_dels;
	int qdisc_add_err;
	uint16_t prios[4]; /* filters on ingress */
	int nfilters;
	/* the u32 filter qp_error added: its keys and action */
	uint32_t key_val[8], key_mask[8];
	int key_off[8], nkeys;
	int gact;
	/* RDMA netlink */
	bool no_rdma;
	struct kqp qps[16];
	int nqps;
	int req_type;
	long long req_dev;
	nl_recvmsg_msg_cb_t cb;
	void *cb_arg;
	int dumps;
} k;

int __wrap_nl_connect(struct nl_sock *sk, int protocol);
int __wrap_rtnl_qdisc_alloc_cache(struct nl_sock *sk, struct nl_cache **result);
int __wrap_rtnl_qdisc_add(struct nl_sock *sk, struct rtnl_qdisc *q, int flags);
int __wrap_rtnl_qdisc_delete(struct nl_sock *sk, struct rtnl_qdisc *q);
int __wrap_rtnl_cls_alloc_cache(struct nl_sock *sk, int ifindex, uint32_t parent,
				struct nl_cache **result);
int __wrap_rtnl_cls_add(struct nl_sock *sk, struct rtnl_cls *cls, int flags);
int __wrap_rtnl_cls_delete(struct nl_sock *sk, struct rtnl_cls *cls, int flags);
int __wrap_nl_send_auto(struct nl_sock *sk, struct nl_msg *msg);
int __wrap_nl_socket_modify_cb(struct nl_sock *sk, enum nl_cb_type type, enum nl_cb_kind kind,
			       nl_recvmsg_msg_cb_t func, void *arg);
int __wrap_nl_recvmsgs_default(struct nl_sock *sk);

int __wrap_nl_connect(struct nl_sock *sk, int protocol)
{
	if (protocol == NETLINK_RDMA && k.no_rdma)
		return -NLE_PROTO_MISMATCH; /* what libnl says for EPROTONOSUPPORT */
	return 0;
}

int __wrap_rtnl_qdisc_alloc_cache(struct nl_sock *sk, struct nl_cache **result)
{
	struct rtnl_qdisc *q;
	int i;

	assert_int_equal(nl_cache_alloc_name("route/qdisc", result), 0);
	/* another netdev's ingress qdisc, which must not count */
	for (i = 0; i < 1 + k.ingress; i++) {
		q = rtnl_qdisc_alloc();
		rtnl_tc_set_ifindex(TC_CAST(q), i ? IFX : IFX + 1);
		rtnl_tc_set_parent(TC_CAST(q), TC_H_INGRESS);
		rtnl_tc_set_handle(TC_CAST(q), 0xffff0000u);
		rtnl_tc_set_kind(TC_CAST(q), "ingress");
		assert_int_equal(nl_cache_add(*result, OBJ_CAST(q)), 0);
		rtnl_qdisc_put(q);
	}
	return 0;
}

int __wrap_rtnl_qdisc_add(struct nl_sock *sk, struct rtnl_qdisc *q, int flags)
{
	assert_int_equal(rtnl_tc_get_ifindex(TC_CAST(q)), IFX);
	assert_int_equal(rtnl_tc_get_parent(TC_CAST(q)), TC_H_INGRESS);
	assert_string_equal(rtnl_tc_get_kind(TC_CAST(q)), "ingress");
	assert_int_equal(flags, NLM_F_CREATE | NLM_F_EXCL);
	if (k.qdisc_add_err)
		return k.qdisc_add_err;
	if (k.ingress)
		return -NLE_EXIST;
	k.ingress = true;
	k.qdisc_adds++;
	return 0;
}

int __wrap_rtnl_qdisc_delete(struct nl_sock *sk, struct rtnl_qdisc *q)
{
	assert_int_equal(rtnl_tc_get_ifindex(TC_CAST(q)), IFX);
	assert_int_equal(rtnl_tc_get_parent(TC_CAST(q)), TC_H_INGRESS);
	if (!k.ingress)
		return -NLE_OBJ_NOTFOUND;
	k.ingress = false;
	k.nfilters = 0; /* the kernel takes the filters with it */
	k.qdisc_dels++;
	return 0;
}

int __wrap_rtnl_cls_alloc_cache(struct nl_sock *sk, int ifindex, uint32_t parent,
				struct nl_cache **result)
{
	struct rtnl_cls *c;
	int i;

	assert_int_equal(ifindex, IFX);
	assert_int_equal(parent, FILTER_PARENT);
	if (!k.ingress)
		return -NLE_INVAL; /* "Parent Qdisc doesn't exists" */
	assert_int_equal(nl_cache_alloc_name("route/cls", result), 0);
	for (i = 0; i < k.nfilters; i++) {
		c = rtnl_cls_alloc();
		rtnl_tc_set_ifindex(TC_CAST(c), IFX);
		rtnl_cls_set_prio(c, k.prios[i]);
		rtnl_tc_set_kind(TC_CAST(c), "u32");
		assert_int_equal(nl_cache_add(*result, OBJ_CAST(c)), 0);
		rtnl_cls_put(c);
	}
	return 0;
}

int __wrap_rtnl_cls_add(struct nl_sock *sk, struct rtnl_cls *cls, int flags)
{
	struct rtnl_act *act;
	int i, off, offmask;

	assert_int_equal(rtnl_tc_get_ifindex(TC_CAST(cls)), IFX);
	assert_int_equal(rtnl_tc_get_parent(TC_CAST(cls)), FILTER_PARENT);
	assert_int_equal(rtnl_cls_get_prio(cls), PRIO);
	assert_int_equal(rtnl_cls_get_protocol(cls), ETH_P_IP);
	assert_string_equal(rtnl_tc_get_kind(TC_CAST(cls)), "u32");
	assert_int_equal(flags, NLM_F_CREATE | NLM_F_EXCL);
	if (!k.ingress)
		return -NLE_INVAL;
	for (i = 0; i < k.nfilters; i++)
		if (k.prios[i] == PRIO)
			return -NLE_EXIST;
	for (k.nkeys = 0; k.nkeys < 8; k.nkeys++) {
		if (rtnl_u32_get_key(cls, (uint8_t)k.nkeys, &k.key_val[k.nkeys],
				     &k.key_mask[k.nkeys], &off, &offmask) < 0)
			break;
		assert_int_equal(offmask, 0);
		k.key_off[k.nkeys] = off;
		k.key_val[k.nkeys] = ntohl(k.key_val[k.nkeys]);
		k.key_mask[k.nkeys] = ntohl(k.key_mask[k.nkeys]);
	}
	act = rtnl_u32_get_action(cls);
	assert_non_null(act);
	assert_string_equal(rtnl_tc_get_kind(TC_CAST(act)), "gact");
	k.gact = rtnl_gact_get_action(act);
	k.prios[k.nfilters++] = PRIO;
	k.cls_adds++;
	return 0;
}

int __wrap_rtnl_cls_delete(struct nl_sock *sk, struct rtnl_cls *cls, int flags)
{
	int i;

	assert_int_equal(rtnl_tc_get_ifindex(TC_CAST(cls)), IFX);
	assert_int_equal(rtnl_tc_get_parent(TC_CAST(cls)), FILTER_PARENT);
	assert_int_equal(rtnl_cls_get_prio(cls), PRIO);
	if (!k.ingress)
		return -NLE_INVAL;
	for (i = 0; i < k.nfilters; i++)
		if (k.prios[i] == PRIO) {
			k.prios[i] = k.prios[--k.nfilters];
			k.cls_dels++;
			return 0;
		}
	return -NLE_OBJ_NOTFOUND;
}

/* RDMA netlink: the request is remembered, the dump answered through the callback. */
int __wrap_nl_send_auto(struct nl_sock *sk, struct nl_msg *msg)
{
	struct nlattr *a = nlmsg_find_attr(nlmsg_hdr(msg), 0, RDMA_NLDEV_ATTR_DEV_INDEX);

	k.req_type = nlmsg_hdr(msg)->nlmsg_type;
	assert_true(nlmsg_hdr(msg)->nlmsg_flags & NLM_F_DUMP);
	k.req_dev = a ? (long long)nla_get_u32(a) : -1;
	return (int)nlmsg_hdr(msg)->nlmsg_len;
}

int __wrap_nl_socket_modify_cb(struct nl_sock *sk, enum nl_cb_type type, enum nl_cb_kind kind,
			       nl_recvmsg_msg_cb_t func, void *arg)
{
	assert_int_equal(type, NL_CB_VALID);
	k.cb = func;
	k.cb_arg = arg;
	return 0;
}

static const char *const devs[] = {"rxe_rail0", "rxe_rail1"};

static void deliver(struct nl_msg *m)
{
	k.cb(m, k.cb_arg);
	nlmsg_free(m);
}

int __wrap_nl_recvmsgs_default(struct nl_sock *sk)
{
	struct nlattr *table, *entry;
	struct nl_msg *m;
	int d, i;

	k.dumps++;
	if (k.req_type == RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_GET)) {
		assert_int_equal(k.req_dev, -1);
		for (d = 0; d < 2; d++) {
			m = nlmsg_alloc_simple(k.req_type, NLM_F_MULTI);
			nla_put_u32(m, RDMA_NLDEV_ATTR_DEV_INDEX, (uint32_t)d + 1);
			nla_put_string(m, RDMA_NLDEV_ATTR_DEV_NAME, devs[d]);
			deliver(m);
		}
		return 0;
	}
	assert_int_equal(k.req_type, RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_RES_QP_GET));
	assert_true(k.req_dev == 1 || k.req_dev == 2);
	m = nlmsg_alloc_simple(k.req_type, NLM_F_MULTI);
	nla_put_u32(m, RDMA_NLDEV_ATTR_DEV_INDEX, (uint32_t)k.req_dev);
	nla_put_string(m, RDMA_NLDEV_ATTR_DEV_NAME, devs[k.req_dev - 1]);
	table = nla_nest_start(m, RDMA_NLDEV_ATTR_RES_QP);
	for (i = 0; i < k.nqps; i++) {
		if (strcmp(k.qps[i].dev, devs[k.req_dev - 1]) || k.qps[i].gone)
			continue;
		entry = nla_nest_start(m, RDMA_NLDEV_ATTR_RES_QP_ENTRY);
		nla_put_u32(m, RDMA_NLDEV_ATTR_PORT_INDEX, 1);
		nla_put_u32(m, RDMA_NLDEV_ATTR_RES_LQPN, k.qps[i].qpn);
		nla_put_u8(m, RDMA_NLDEV_ATTR_RES_TYPE, 2 /* IB_QPT_RC */);
		nla_put_u8(m, RDMA_NLDEV_ATTR_RES_STATE, (uint8_t)k.qps[i].state);
		if (k.qps[i].pid)
			nla_put_u32(m, RDMA_NLDEV_ATTR_RES_PID, (uint32_t)k.qps[i].pid);
		nla_nest_end(m, entry);
	}
	nla_nest_end(m, table);
	deliver(m);
	return 0;
}

static void kqp(const char *dev, uint32_t qpn, int state, int pid)
{
	assert_true(k.nqps < 16);
	k.qps[k.nqps++] = (struct kqp){.qpn = qpn, .state = state, .pid = pid};
	snprintf(k.qps[k.nqps - 1].dev, sizeof(k.qps[0].dev), "%s", dev);
}

static struct kqp *kqp_find(uint32_t qpn)
{
	int i;

	for (i = 0; i < k.nqps; i++)
		if (k.qps[i].qpn == qpn)
			return &k.qps[i];
	return NULL;
}

/* ---- the fake shim: answers like librdmachaos-verbs.so, moves the fake kernel's QPs ---- */

#define PID 4242

static struct {
	char dir[64], path[128];
	int lfd;
	pthread_t thread;
	bool running;
	char cmds[16][SHIM_LINE_MAX]; /* every command received, in order */
	int ncmds;
	unsigned int wr_left, mr_left;
	bool next;
	uint32_t qpns[8]; /* the workload's QPs */
	int nqpns;
	bool destroy_on_error; /* the workload destroys a QP in ERR before anyone looks */
} fs;

static json_t *fs_status(void)
{
	json_t *qps = json_array();
	struct kqp *q;
	int i;

	for (i = 0; i < fs.nqpns; i++) {
		q = kqp_find(fs.qpns[i]);
		json_array_append_new(qps, json_pack("{s:i, s:s, s:s, s:s}", "qpn", fs.qpns[i],
						     "state", shim_qp_state_name(q ? q->state : 0),
						     "device", "rxe_rail0", "type", "RC"));
	}
	return json_pack("{s:b, s:i, s:o, s:{s:b, s:b, s:i, s:i}, s:i, s:i, s:i}", "ok", 1, "pid",
			 PID, "qps", qps, "armed", "any", fs.wr_left || fs.mr_left || fs.next,
			 "qp_next", fs.next, "fail_wr", fs.wr_left, "fail_mr", fs.mr_left,
			 "qp_errors", 0, "failed_wrs", 0, "failed_mrs", 0);
}

static json_t *fs_handle(const char *line)
{
	json_t *r, *moved;
	struct shim_cmd c;
	char err[256];
	int i, matched = 0;

	if (shim_cmd_parse(line, &c, err, sizeof(err)))
		return json_pack("{s:b, s:i, s:s}", "ok", 0, "errno", EINVAL, "error", err);
	moved = json_array();
	switch (c.op) {
	case SHIM_OP_QP_ERROR:
		if (c.sel == SHIM_QP_NEXT) {
			fs.next = true;
			break;
		}
		for (i = 0; i < fs.nqpns; i++) {
			if (c.sel == SHIM_QP_QPN && fs.qpns[i] != c.qpn)
				continue;
			matched++;
			if (kqp_find(fs.qpns[i]))
				kqp_find(fs.qpns[i])->state = IBV_QPS_ERR;
			if (fs.destroy_on_error && kqp_find(fs.qpns[i]))
				kqp_find(fs.qpns[i])->gone = true;
			json_array_append_new(moved, json_integer(fs.qpns[i]));
		}
		if (c.sel == SHIM_QP_QPN && !matched) {
			json_decref(moved);
			snprintf(err, sizeof(err), "no QP with QPN %u in process %d", c.qpn, PID);
			return json_pack("{s:b, s:i, s:s}", "ok", 0, "errno", ENOENT, "error", err);
		}
		break;
	case SHIM_OP_FAIL_WR:
		fs.wr_left = c.count;
		break;
	case SHIM_OP_FAIL_MR:
		fs.mr_left = c.mr_count;
		break;
	case SHIM_OP_CLEAR:
		r = fs_status();
		json_object_set_new(r, "was_armed",
				    json_boolean(fs.wr_left || fs.mr_left || fs.next));
		fs.wr_left = fs.mr_left = 0;
		fs.next = false;
		json_decref(moved);
		return r;
	case SHIM_OP_STATUS:
		break;
	}
	r = fs_status();
	if (c.op == SHIM_OP_QP_ERROR && c.sel != SHIM_QP_NEXT) {
		json_object_set_new(r, "moved", moved);
		json_object_set_new(r, "failed", json_array());
		json_object_set_new(r, "matched", json_integer(matched));
	} else {
		json_decref(moved);
	}
	return r;
}

static void *fs_main(void *arg)
{
	char line[SHIM_LINE_MAX], *out;
	json_t *r;
	ssize_t n;
	int fd;

	for (;;) {
		fd = accept(fs.lfd, NULL, NULL);
		if (fd < 0)
			return NULL; /* shut down */
		n = recv(fd, line, sizeof(line) - 1, 0);
		if (n > 0) {
			line[n] = '\0';
			if (fs.ncmds < 16)
				snprintf(fs.cmds[fs.ncmds++], SHIM_LINE_MAX, "%s", line);
			r = fs_handle(line);
			out = json_dumps(r, JSON_COMPACT);
			send(fd, out, strlen(out), MSG_NOSIGNAL);
			free(out);
			json_decref(r);
		}
		close(fd);
	}
}

static void fs_start(void)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};

	strcpy(fs.dir, "/tmp/test-qpe-XXXXXX");
	assert_non_null(mkdtemp(fs.dir));
	snprintf(fs.path, sizeof(fs.path), "%s/stream.sock", fs.dir);
	strcpy(sa.sun_path, fs.path);
	fs.lfd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	assert_int_equal(bind(fs.lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(fs.lfd, 4), 0);
	assert_int_equal(pthread_create(&fs.thread, NULL, fs_main, NULL), 0);
	fs.running = true;
}

/* The workload exits: its shim stops answering and its socket goes. */
static void fs_stop(void)
{
	if (!fs.running)
		return;
	shutdown(fs.lfd, SHUT_RDWR);
	pthread_join(fs.thread, NULL);
	close(fs.lfd);
	unlink(fs.path);
	fs.running = false;
}

/* ---- fixture ---- */

static json_t *events; /* [{"action", ...extra}] */

static void record_event(struct inj_fault *f, const char *action, json_t *extra)
{
	json_t *e = extra ? extra : json_object();

	json_object_set_new(e, "action", json_string(action));
	json_array_append_new(events, e);
}

static const struct inj_env env = {.event = record_event};

static int setup(void **state)
{
	struct inj_fault *f = calloc(1, sizeof(*f));

	memset(&k, 0, sizeof(k));
	memset(&fs, 0, sizeof(fs));
	events = json_array();
	f->target.rail = -1;
	f->env = &env;
	f->actions = json_array();
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct inj_fault *f = *state;

	if (f->inj && f->inj->cleanup)
		f->inj->cleanup(f);
	json_decref(f->params);
	json_decref(f->actions);
	json_decref(events);
	fs_stop();
	rmdir(fs.dir);
	free(f);
	return 0;
}

static void use(struct inj_fault *f, const char *params)
{
	char err[256] = "";

	f->inj = &inj_qp_error;
	f->params = json_loads(params, 0, NULL);
	assert_non_null(f->params);
	if (inj_qp_error.validate(f->params, err, sizeof(err)))
		fail_msg("%s: %s", params, err);
}

/* A workload target started with the shim, with QPs 291 and 292 on rxe_rail0. */
static void shim_workload(struct inj_fault *f)
{
	fs_start();
	fs.qpns[fs.nqpns++] = 291;
	fs.qpns[fs.nqpns++] = 292;
	kqp("rxe_rail0", 1, IBV_QPS_RTS, 0); /* a kernel QP: never reported */
	kqp("rxe_rail0", 291, IBV_QPS_RTS, PID);
	kqp("rxe_rail0", 292, IBV_QPS_RTS, PID);
	kqp("rxe_rail1", 17, IBV_QPS_RTS, 999); /* another process */
	strcpy(f->target.workload, "stream");
	f->target.pid = PID;
	strcpy(f->target.shim_sock, fs.path);
}

static void rail0(struct inj_fault *f)
{
	strcpy(f->target.netdev, "rail0");
	f->target.ifindex = IFX;
	strcpy(f->target.device, "rxe_rail0");
	f->target.port = 1;
	f->target.rail = 0;
}

static const char *action_at(const struct inj_fault *f, size_t i)
{
	return json_string_value(json_array_get(f->actions, i));
}

static const json_t *event_at(size_t i)
{
	return json_array_get(events, i);
}

static const char *ev_str(size_t i, const char *key)
{
	return json_string_value(json_object_get(event_at(i), key));
}

static json_int_t ev_int(size_t i, const char *key)
{
	return json_integer_value(json_object_get(event_at(i), key));
}

/* ---- validate ---- */

static void test_validate(void **state)
{
	static const struct {
		const char *params, *err;
	} bad[] = {
	    {"{}", "qp_error: params.mechanism: missing (\"shim\" or \"transport\")"},
	    {"{\"mechanism\": \"verbs\"}",
	     "qp_error: params.mechanism: must be \"shim\" or \"transport\""},
	    {"{\"mechanism\": 1}", "qp_error: params.mechanism: must be \"shim\" or \"transport\""},
	    {"{\"mechanism\": \"shim\", \"qpns\": 3}",
	     "qp_error: params.qpns: unknown parameter (qp_error takes mechanism, action, qps, "
	     "count, wc_status, qpn)"},
	    {"{\"mechanism\": \"shim\", \"action\": \"reset\"}",
	     "qp_error: params.action: must be \"error\" or \"fail_wr\""},
	    {"{\"mechanism\": \"shim\", \"qps\": \"some\"}",
	     "qp_error: params.qps: must be \"all\", \"next\" or a QPN (an integer in "
	     "0..16777215)"},
	    {"{\"mechanism\": \"shim\", \"qps\": 16777216}",
	     "qp_error: params.qps: must be \"all\", \"next\" or a QPN (an integer in "
	     "0..16777215)"},
	    {"{\"mechanism\": \"shim\", \"qps\": -1}",
	     "qp_error: params.qps: must be \"all\", \"next\" or a QPN (an integer in "
	     "0..16777215)"},
	    {"{\"mechanism\": \"shim\", \"count\": 2}",
	     "qp_error: params.count: only for action \"fail_wr\""},
	    {"{\"mechanism\": \"shim\", \"wc_status\": \"rem_op_err\"}",
	     "qp_error: params.wc_status: only for action \"fail_wr\""},
	    {"{\"mechanism\": \"shim\", \"qpn\": 5}",
	     "qp_error: params.qpn: only for mechanism \"transport\" (with \"shim\", name the QP "
	     "with qps)"},
	    {"{\"mechanism\": \"shim\", \"action\": \"fail_wr\", \"qps\": \"all\"}",
	     "qp_error: params.qps: only for action \"error\" (fail_wr fails the next completions "
	     "of any QP)"},
	    {"{\"mechanism\": \"shim\", \"action\": \"fail_wr\", \"count\": 0}",
	     "qp_error: params.count: must be an integer in 1..1000000"},
	    {"{\"mechanism\": \"shim\", \"action\": \"fail_wr\", \"wc_status\": \"bogus\"}",
	     "qp_error: params.wc_status: must name a failure status such as "
	     "\"IBV_WC_RETRY_EXC_ERR\" or \"rem_access_err\""},
	    {"{\"mechanism\": \"shim\", \"action\": \"fail_wr\", \"wc_status\": \"success\"}",
	     "qp_error: params.wc_status: must name a failure status such as "
	     "\"IBV_WC_RETRY_EXC_ERR\" or \"rem_access_err\""},
	    {"{\"mechanism\": \"shim\", \"action\": \"fail_wr\", \"wc_status\": 12}",
	     "qp_error: params.wc_status: must name a failure status such as "
	     "\"IBV_WC_RETRY_EXC_ERR\" or \"rem_access_err\""},
	    {"{\"mechanism\": \"transport\", \"qps\": \"all\"}",
	     "qp_error: params.qps: only for mechanism \"shim\" (transport drops the RoCE packets "
	     "of every QP on the netdev, or of qpn)"},
	    {"{\"mechanism\": \"transport\", \"action\": \"error\"}",
	     "qp_error: params.action: only for mechanism \"shim\" (transport drops the RoCE "
	     "packets of every QP on the netdev, or of qpn)"},
	    {"{\"mechanism\": \"transport\", \"qpn\": \"291\"}",
	     "qp_error: params.qpn: must be an integer in 0..16777215"},
	    {"{\"mechanism\": \"transport\", \"qpn\": 16777216}",
	     "qp_error: params.qpn: must be an integer in 0..16777215"},
	    {"[]", "qp_error: params: must be a JSON object"},
	};
	static const char *const good[] = {
	    "{\"mechanism\": \"shim\"}",
	    "{\"mechanism\": \"shim\", \"action\": \"error\", \"qps\": \"next\"}",
	    "{\"mechanism\": \"shim\", \"qps\": 291}",
	    "{\"mechanism\": \"shim\", \"action\": \"fail_wr\", \"count\": 3, \"wc_status\": "
	    "\"IBV_WC_REM_ACCESS_ERR\"}",
	    "{\"mechanism\": \"shim\", \"action\": \"fail_wr\", \"wc_status\": \"retry_exc_err\"}",
	    "{\"mechanism\": \"transport\"}",
	    "{\"mechanism\": \"transport\", \"qpn\": 291}",
	};
	char err[256];
	json_t *p;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		p = json_loads(bad[i].params, 0, NULL);
		assert_non_null(p);
		err[0] = '\0';
		if (inj_qp_error.validate(p, err, sizeof(err)) != -EINVAL)
			fail_msg("accepted: %s", bad[i].params);
		if (strcmp(err, bad[i].err))
			fail_msg("%s:\n got  %s\n want %s", bad[i].params, err, bad[i].err);
		json_decref(p);
	}
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		p = json_loads(good[i], 0, NULL);
		if (inj_qp_error.validate(p, err, sizeof(err)))
			fail_msg("refused: %s: %s", good[i], err);
		json_decref(p);
	}
}

/* ---- shim mechanism ---- */

static void test_shim_needs_shim_target(void **state)
{
	struct inj_fault *f = *state;

	use(f, "{\"mechanism\": \"shim\"}");
	strcpy(f->target.workload, "stream");
	f->target.pid = PID;
	assert_int_equal(f->inj->prepare(f), -EINVAL);
	assert_string_equal(f->err, "qp_error: mechanism \"shim\" needs a workload target started "
				    "with the shim (workload_start with \"shim\": true); workload "
				    "stream was started without it");
	assert_null(f->priv);
	/* a link target */
	memset(&f->target, 0, sizeof(f->target));
	rail0(f);
	assert_int_equal(f->inj->prepare(f), -EINVAL);
	assert_string_equal(f->err, "qp_error: mechanism \"shim\" needs a workload target started "
				    "with the shim (workload_start with \"shim\": true)");
}

static void test_shim_error_all(void **state)
{
	struct inj_fault *f = *state;
	json_t *prior;
	size_t i;

	shim_workload(f);
	use(f, "{\"mechanism\": \"shim\"}");
	assert_int_equal(f->inj->prepare(f), 0);
	assert_int_equal(fs.ncmds, 1);
	assert_string_equal(fs.cmds[0], "status");
	prior = f->inj->describe_prior(f);
	assert_string_equal(json_string_value(json_object_get(prior, "mechanism")), "shim");
	assert_int_equal(json_array_size(json_object_get(prior, "qps")), 2);
	assert_non_null(strstr(json_string_value(json_object_get(prior, "note")), "any provider"));
	json_decref(prior);

	assert_int_equal(f->inj->inject(f), 0);
	assert_string_equal(fs.cmds[1], "qp_error all");
	/* both QPs, read back through RDMA netlink, one event each */
	assert_int_equal(json_array_size(events), 2);
	for (i = 0; i < 2; i++) {
		assert_string_equal(ev_str(i, "action"), "qp_state");
		assert_int_equal(ev_int(i, "qpn"), 291 + (json_int_t)i);
		assert_string_equal(ev_str(i, "state"), "ERR");
		assert_int_equal(ev_int(i, "pid"), PID);
		assert_string_equal(ev_str(i, "device"), "rxe_rail0");
		assert_string_equal(ev_str(i, "source"), "rdma_netlink");
	}
	assert_int_equal(f->next_tick_ns, 0); /* nothing left to watch */

	assert_int_equal(f->inj->revert(f), 0);
	assert_string_equal(fs.cmds[2], "clear");
	assert_string_equal(action_at(f, 0),
			    "workload stream (pid 4242): shim disarmed (nothing was armed)");
	assert_string_equal(action_at(f, 1),
			    "workload stream: QP(s) 291, 292 stay in ERR: a QP in error cannot be "
			    "brought back, the workload recovers with new ones");
	json_array_clear(events);
	assert_int_equal(f->inj->verify(f), 0);
	assert_string_equal(fs.cmds[3], "status");
	/* verify shows the workload's QPs as they are now, not the kernel's or others' */
	assert_int_equal(json_array_size(events), 2);
	assert_int_equal(ev_int(0, "qpn"), 291);
	assert_int_equal(ev_int(1, "qpn"), 292);

	/* idempotent */
	assert_int_equal(f->inj->revert(f), 0);
	assert_string_equal(fs.cmds[4], "clear");
	assert_int_equal(f->inj->verify(f), 0);
}

static void test_shim_error_qpn(void **state)
{
	struct inj_fault *f = *state;
	char want[256];

	shim_workload(f);
	use(f, "{\"mechanism\": \"shim\", \"qps\": 292}");
	assert_int_equal(f->inj->prepare(f), 0);
	assert_int_equal(f->inj->inject(f), 0);
	assert_string_equal(fs.cmds[1], "qp_error qpn=292");
	assert_int_equal(kqp_find(291)->state, IBV_QPS_RTS);
	assert_int_equal(json_array_size(events), 1);
	assert_int_equal(ev_int(0, "qpn"), 292);
	assert_string_equal(ev_str(0, "state"), "ERR");
	f->inj->cleanup(f);

	/* a QPN the workload does not have: the shim's own sentence, and its errno named */
	json_decref(f->params);
	use(f, "{\"mechanism\": \"shim\", \"qps\": 7}");
	assert_int_equal(f->inj->prepare(f), 0);
	assert_int_equal(f->inj->inject(f), -EREMOTEIO);
	snprintf(want, sizeof(want),
		 "qp_error: workload stream (pid 4242): workload's shim at %s refused: no QP with "
		 "QPN 7 in process 4242 (No such file or directory)",
		 fs.path);
	assert_string_equal(f->err, want);
}

static void test_shim_error_qp_destroyed_first(void **state)
{
	struct inj_fault *f = *state;

	shim_workload(f);
	fs.destroy_on_error = true;
	use(f, "{\"mechanism\": \"shim\", \"qps\": 291}");
	assert_int_equal(f->inj->prepare(f), 0);
	assert_int_equal(f->inj->inject(f), 0);
	/* netlink never saw it (after looking for QPE_SETTLE_MS): the shim's reading, said so */
	assert_int_equal(json_array_size(events), 1);
	assert_int_equal(ev_int(0, "qpn"), 291);
	assert_string_equal(ev_str(0, "state"), "ERR");
	assert_string_equal(ev_str(0, "source"), "shim");
	assert_string_equal(ev_str(0, "rdma_netlink"), "absent (the workload destroyed it first)");
	assert_true(k.dumps > 2 * 5); /* polled: device dump + 2 QP dumps per look */
}

static void test_shim_error_no_qps(void **state)
{
	struct inj_fault *f = *state;

	shim_workload(f);
	fs.nqpns = 0;
	use(f, "{\"mechanism\": \"shim\"}");
	assert_int_equal(f->inj->prepare(f), 0);
	assert_int_equal(f->inj->inject(f), -ENOENT);
	assert_string_equal(f->err, "qp_error: workload stream (pid 4242) has no QPs yet: nothing "
				    "to move to ERR (qps \"next\" catches the next one created)");
}

static void test_shim_fail_wr(void **state)
{
	struct inj_fault *f = *state;

	shim_workload(f);
	use(f, "{\"mechanism\": \"shim\", \"action\": \"fail_wr\", \"count\": 3, \"wc_status\": "
	       "\"rem_access_err\"}");
	assert_int_equal(f->inj->prepare(f), 0);
	assert_int_equal(f->inj->inject(f), 0);
	assert_string_equal(fs.cmds[1], "fail_wr count=3 status=IBV_WC_REM_ACCESS_ERR");
	assert_int_equal(json_array_size(events), 0);
	/* while armed, verify says so */
	assert_int_equal(f->inj->verify(f), -EIO);
	assert_string_equal(
	    f->err, "qp_error: workload stream (pid 4242): verify: its shim is still armed");
	assert_int_equal(f->inj->revert(f), 0);
	assert_string_equal(action_at(f, 0),
			    "workload stream (pid 4242): shim disarmed (it was still armed)");
	assert_int_equal(json_array_size(f->actions), 1); /* no QP was moved */
	assert_int_equal(f->inj->verify(f), 0);
	assert_int_equal(fs.wr_left, 0);
}

static void test_shim_busy(void **state)
{
	struct inj_fault *f = *state;

	shim_workload(f);
	fs.mr_left = 2; /* an mr_failure through the same shim */
	use(f, "{\"mechanism\": \"shim\"}");
	assert_int_equal(f->inj->prepare(f), -EBUSY);
	assert_string_equal(f->err,
			    "qp_error: workload stream (pid 4242): its shim already has a "
			    "fault armed (another qp_error or mr_failure?): revert that one "
			    "first");
	assert_null(f->priv);
	assert_int_equal(fs.mr_left, 2); /* untouched */
}

static void test_shim_workload_gone(void **state)
{
	struct inj_fault *f = *state;
	char want[256];

	shim_workload(f);
	use(f, "{\"mechanism\": \"shim\", \"action\": \"fail_wr\"}");
	assert_int_equal(f->inj->prepare(f), 0);
	assert_int_equal(f->inj->inject(f), 0);
	fs_stop();
	assert_int_equal(f->inj->revert(f), 0);
	assert_string_equal(action_at(f, 0),
			    "workload stream (pid 4242): gone, so nothing stays armed in its shim");
	assert_int_equal(f->inj->verify(f), 0);

	/* gone before prepare: refused with the reason */
	f->inj->cleanup(f);
	assert_int_equal(f->inj->prepare(f), -ESRCH);
	snprintf(want, sizeof(want),
		 "qp_error: workload stream (pid 4242): workload's shim at %s is not answering",
		 fs.path);
	assert_memory_equal(f->err, want, strlen(want));
}

static void test_shim_next_tick(void **state)
{
	struct inj_fault *f = *state;

	shim_workload(f);
	use(f, "{\"mechanism\": \"shim\", \"qps\": \"next\"}");
	assert_int_equal(f->inj->prepare(f), 0);
	assert_int_equal(f->inj->inject(f), 0);
	assert_string_equal(fs.cmds[1], "qp_error next");
	assert_true(f->next_tick_ns > 0); /* watches for the next QP */
	assert_int_equal(f->inj->tick(f, f->next_tick_ns), 0);
	assert_int_equal(json_array_size(events), 0); /* nothing changed yet */
	assert_true(f->next_tick_ns > 0);
	/* the workload reconnects: a new QP, which the shim moved to ERR at RTS */
	kqp("rxe_rail0", 300, IBV_QPS_ERR, PID);
	kqp("rxe_rail0", 301, IBV_QPS_RTS, PID);
	assert_int_equal(f->inj->tick(f, f->next_tick_ns), 0);
	assert_int_equal(json_array_size(events), 1);
	assert_int_equal(ev_int(0, "qpn"), 300);
	assert_string_equal(ev_str(0, "state"), "ERR");
	assert_int_equal(f->next_tick_ns, 0); /* the one "next" QP was seen: done */
	assert_int_equal(f->inj->revert(f), 0);
	assert_string_equal(action_at(f, 0),
			    "workload stream (pid 4242): shim disarmed (it was still armed)");
}

static void test_shim_without_rdma_netlink(void **state)
{
	struct inj_fault *f = *state;

	shim_workload(f);
	k.no_rdma = true;
	use(f, "{\"mechanism\": \"shim\", \"qps\": 291}");
	assert_int_equal(f->inj->prepare(f), 0);
	assert_int_equal(f->inj->inject(f), 0);
	/* the state the shim read back, labelled as such */
	assert_int_equal(json_array_size(events), 1);
	assert_int_equal(ev_int(0, "qpn"), 291);
	assert_string_equal(ev_str(0, "state"), "ERR");
	assert_string_equal(ev_str(0, "source"), "shim");
	assert_int_equal(k.dumps, 0);
}

static void test_shim_restore(void **state)
{
	struct inj_fault *f = *state;
	struct inj_fault g = {.inj = &inj_qp_error, .env = &env, .target.rail = -1};
	json_t *snap;

	shim_workload(f);
	use(f, "{\"mechanism\": \"shim\", \"action\": \"fail_wr\"}");
	assert_int_equal(f->inj->prepare(f), 0);
	snap = f->inj->snapshot(f);
	assert_non_null(snap);
	assert_int_equal(f->inj->inject(f), 0);

	/* a snapshot that names another socket than its target's shim: refused, touches nothing */
	g.target = f->target;
	strcpy(g.target.shim_sock, "/run/other.sock");
	g.params = json_incref(f->params);
	assert_int_equal(g.inj->restore(&g, snap), -EPERM);
	assert_non_null(strstr(g.err, "is not its target's shim (/run/other.sock): refused"));
	assert_null(g.priv);
	json_decref(g.params);

	/* a new agent: the target is the journal's (the workload, its shim), as is the snapshot */
	g.target = f->target;
	g.err[0] = '\0';
	g.params = json_incref(f->params);
	g.actions = json_array();
	assert_int_equal(g.inj->restore(&g, snap), 0);
	assert_int_equal(fs.ncmds, 2); /* restore touches nothing */
	assert_int_equal(g.inj->revert(&g), 0);
	assert_string_equal(fs.cmds[2], "clear");
	assert_string_equal(json_string_value(json_array_get(g.actions, 0)),
			    "workload stream (pid 4242): shim disarmed (it was still armed)");
	assert_int_equal(g.inj->verify(&g), 0);
	g.inj->cleanup(&g);
	json_decref(g.params);
	json_decref(g.actions);

	/* an unusable snapshot */
	g.params = json_incref(f->params);
	json_decref(snap);
	snap = json_object();
	assert_int_equal(g.inj->restore(&g, snap), -EINVAL);
	assert_string_equal(g.err, "qp_error: snapshot: \"mechanism\" missing or not the params' "
				   "mechanism");
	assert_null(g.priv);
	json_decref(g.params);
	json_decref(snap);
}

/* ---- transport mechanism ---- */

static void test_transport_needs_netdev(void **state)
{
	struct inj_fault *f = *state;

	use(f, "{\"mechanism\": \"transport\"}");
	strcpy(f->target.workload, "stream");
	f->target.pid = PID;
	assert_int_equal(f->inj->prepare(f), -EINVAL);
	assert_string_equal(f->err,
			    "qp_error: mechanism \"transport\" needs a netdev target (rail, "
			    "netdev or device; or a workload with its rail)");
}

static void test_transport_cycle(void **state)
{
	struct inj_fault *f = *state;
	json_t *prior;

	rail0(f);
	use(f, "{\"mechanism\": \"transport\"}");
	assert_int_equal(f->inj->prepare(f), 0);
	assert_int_equal(k.qdisc_adds + k.cls_adds, 0); /* prepare only looks */
	prior = f->inj->describe_prior(f);
	assert_string_equal(json_string_value(json_object_get(prior, "note")),
			    "works on Soft-RoCE (packets pass through the kernel); offloaded "
			    "hardware RoCE bypasses tc, so this mechanism does nothing there");
	assert_false(json_is_true(json_object_get(prior, "ingress_qdisc_existed")));
	json_decref(prior);

	assert_int_equal(f->inj->inject(f), 0);
	assert_true(k.ingress);
	assert_int_equal(k.qdisc_adds, 1);
	assert_int_equal(k.cls_adds, 1);
	/* IHL 5, UDP, dport 4791; dropped */
	assert_int_equal(k.nkeys, 3);
	assert_int_equal(k.key_off[0], 0);
	assert_int_equal(k.key_val[0], 0x05000000u);
	assert_int_equal(k.key_mask[0], 0x0f000000u);
	assert_int_equal(k.key_off[1], 8);
	assert_int_equal(k.key_val[1], 0x00110000u);
	assert_int_equal(k.key_mask[1], 0x00ff0000u);
	assert_int_equal(k.key_off[2], 20);
	assert_int_equal(k.key_val[2], 4791u);
	assert_int_equal(k.key_mask[2], 0xffffu);
	assert_int_equal(k.gact, TC_ACT_SHOT);
	prior = f->inj->describe_prior(f);
	assert_true(json_is_true(json_object_get(prior, "ingress_qdisc_added")));
	json_decref(prior);

	/* while it holds, verify finds the filter */
	assert_int_equal(f->inj->verify(f), -EIO);
	assert_string_equal(f->err, "qp_error: rail0: verify: the u32 filter at ingress prio 4791 "
				    "is still there");

	assert_int_equal(f->inj->revert(f), 0);
	assert_false(k.ingress);
	assert_int_equal(k.cls_dels, 1);
	assert_int_equal(k.qdisc_dels, 1);
	assert_string_equal(
	    action_at(f, 0),
	    "rail0: removed the u32 filter dropping RoCE (UDP 4791) at ingress prio "
	    "4791");
	assert_string_equal(action_at(f, 1),
			    "rail0: removed the ingress qdisc (added by this fault)");
	assert_int_equal(f->inj->verify(f), 0);

	/* idempotent */
	assert_int_equal(f->inj->revert(f), 0);
	assert_int_equal(k.cls_dels + k.qdisc_dels, 2);
	assert_string_equal(action_at(f, 2), "rail0: already without the u32 filter dropping RoCE "
					     "(UDP 4791) at ingress prio 4791");
	assert_string_equal(action_at(f, 3),
			    "rail0: already without the ingress qdisc (added by this fault)");
	assert_int_equal(f->inj->verify(f), 0);
}

static void test_transport_qpn_and_existing_qdisc(void **state)
{
	struct inj_fault *f = *state;

	rail0(f);
	k.ingress = true;
	k.prios[k.nfilters++] = 1; /* someone else's filter */
	use(f, "{\"mechanism\": \"transport\", \"qpn\": 291}");
	assert_int_equal(f->inj->prepare(f), 0);
	assert_int_equal(f->inj->inject(f), 0);
	assert_int_equal(k.qdisc_adds, 0);
	/* BTH DestQP: low 24 bits of the word at 28 + 4 */
	assert_int_equal(k.nkeys, 4);
	assert_int_equal(k.key_off[3], 32);
	assert_int_equal(k.key_val[3], 291u);
	assert_int_equal(k.key_mask[3], 0x00ffffffu);
	assert_int_equal(f->inj->revert(f), 0);
	assert_true(k.ingress); /* not ours: kept */
	assert_int_equal(k.qdisc_dels, 0);
	assert_int_equal(k.nfilters, 1);
	assert_int_equal(k.prios[0], 1);
	assert_int_equal(json_array_size(f->actions), 1);
	assert_int_equal(f->inj->verify(f), 0);
}

static void test_transport_busy_and_eperm(void **state)
{
	struct inj_fault *f = *state;

	rail0(f);
	k.ingress = true;
	k.prios[k.nfilters++] = PRIO;
	use(f, "{\"mechanism\": \"transport\"}");
	assert_int_equal(f->inj->prepare(f), -EBUSY);
	assert_string_equal(f->err, "qp_error: rail0: busy: a u32 filter at ingress prio 4791 is "
				    "already there (another qp_error transport fault?)");
	assert_null(f->priv);

	memset(&k, 0, sizeof(k));
	k.qdisc_add_err = -NLE_PERM;
	assert_int_equal(f->inj->prepare(f), 0);
	assert_int_equal(f->inj->inject(f), -EPERM);
	assert_string_equal(f->err, "qp_error: rail0: RTM_NEWQDISC (ingress): Operation not "
				    "permitted (need CAP_NET_ADMIN)");
	/* the agent reverts a failed inject: nothing was added, nothing is removed */
	assert_int_equal(f->inj->revert(f), 0);
	assert_int_equal(k.qdisc_dels + k.cls_dels, 0);
	assert_int_equal(f->inj->verify(f), 0);
}

static void test_transport_keeps_a_shared_qdisc(void **state)
{
	struct inj_fault *f = *state;

	rail0(f);
	use(f, "{\"mechanism\": \"transport\"}");
	assert_int_equal(f->inj->prepare(f), 0);
	assert_int_equal(f->inj->inject(f), 0);
	k.prios[k.nfilters++] = 9; /* someone hung a filter on our qdisc meanwhile */
	assert_int_equal(f->inj->revert(f), 0);
	assert_true(k.ingress);
	assert_int_equal(k.nfilters, 1);
	assert_string_equal(action_at(f, 1), "rail0: kept the ingress qdisc this fault added: 1 "
					     "other filter(s) use it now");
	assert_int_equal(f->inj->verify(f), 0);
}

static void test_transport_restore(void **state)
{
	struct inj_fault *f = *state;
	struct inj_fault g = {.inj = &inj_qp_error, .env = &env, .target.rail = -1};
	json_t *snap;

	rail0(f);
	use(f, "{\"mechanism\": \"transport\"}");
	assert_int_equal(f->inj->prepare(f), 0);
	snap = f->inj->snapshot(f); /* journaled before inject */
	assert_int_equal(f->inj->inject(f), 0);
	/* a forged record whose snapshot names another netdev than its (checked) target */
	strcpy(g.target.netdev, "ctl0");
	g.params = json_incref(f->params);
	assert_int_equal(g.inj->restore(&g, snap), -EPERM);
	assert_string_equal(g.err, "qp_error: snapshot: netdev rail0 is not its target's (ctl0): "
				   "refused");
	assert_null(g.priv);
	json_decref(g.params);
	/* the agent died; a new one rebuilds the fault from its journal */
	strcpy(g.target.netdev, "rail0");
	g.target.ifindex = IFX;
	g.params = json_incref(f->params);
	g.actions = json_array();
	assert_int_equal(g.inj->restore(&g, snap), 0);
	assert_int_equal(k.cls_dels + k.qdisc_dels, 0);
	assert_int_equal(g.inj->revert(&g), 0);
	assert_false(k.ingress);
	assert_int_equal(k.nfilters, 0);
	assert_int_equal(g.inj->verify(&g), 0);
	g.inj->cleanup(&g);
	json_decref(g.params);

	/* its netdev gone (no ifindex now): the revert says so and touches no other netdev */
	g.target.ifindex = 0;
	g.params = json_incref(f->params);
	assert_int_equal(g.inj->restore(&g, snap), 0);
	assert_int_equal(g.inj->revert(&g), -ENODEV);
	assert_string_equal(g.err, "qp_error: rail0: no such network interface now");
	g.inj->cleanup(&g);
	json_decref(g.params);
	json_decref(g.actions);
	json_decref(snap);
}

static void test_transport_tick_reports_err(void **state)
{
	struct inj_fault *f = *state;

	rail0(f);
	f->target.pid = PID; /* workload + rail */
	strcpy(f->target.workload, "stream");
	kqp("rxe_rail0", 291, IBV_QPS_RTS, PID);
	kqp("rxe_rail0", 292, IBV_QPS_RTS, PID);
	kqp("rxe_rail0", 400, IBV_QPS_RTS, 999);
	use(f, "{\"mechanism\": \"transport\", \"qpn\": 291}");
	assert_int_equal(f->inj->prepare(f), 0);
	assert_int_equal(f->inj->inject(f), 0);
	assert_true(f->next_tick_ns > 0);
	assert_int_equal(json_array_size(events), 0);
	/* retries exhausted: the QP fails on its own; others change too but are not watched */
	kqp_find(291)->state = IBV_QPS_ERR;
	kqp_find(292)->state = IBV_QPS_SQE;
	kqp_find(400)->state = IBV_QPS_ERR;
	assert_int_equal(f->inj->tick(f, f->next_tick_ns), 0);
	assert_int_equal(json_array_size(events), 1);
	assert_int_equal(ev_int(0, "qpn"), 291);
	assert_string_equal(ev_str(0, "state"), "ERR");
	assert_int_equal(ev_int(0, "pid"), PID);
	assert_true(f->next_tick_ns > 0); /* transport keeps watching until reverted */
	assert_int_equal(f->inj->tick(f, f->next_tick_ns), 0);
	assert_int_equal(json_array_size(events), 1); /* no change, no event */
	/* the workload destroys the failed QP and reconnects with a new one, which fails too */
	kqp_find(291)->gone = true;
	kqp("rxe_rail0", 293, IBV_QPS_RTS, PID);
	assert_int_equal(f->inj->tick(f, f->next_tick_ns), 0);
	assert_int_equal(json_array_size(events), 2);
	assert_int_equal(ev_int(1, "qpn"), 291);
	assert_string_equal(ev_str(1, "state"), "DESTROYED");
	assert_string_equal(ev_str(1, "last_state"), "ERR");
	kqp_find(293)->state = IBV_QPS_ERR;
	assert_int_equal(f->inj->tick(f, f->next_tick_ns), 0);
	assert_int_equal(json_array_size(events), 2); /* qpn 291 only */
	kqp_find(291)->gone = false; /* QPN 291 in the dump again, for verify below */
	json_array_clear(events);
	assert_int_equal(f->inj->revert(f), 0);
	assert_int_equal(f->next_tick_ns, 0);
	json_array_clear(events);
	assert_int_equal(f->inj->verify(f), 0);
	assert_int_equal(json_array_size(events), 1); /* QP 291 as it is now */
	assert_string_equal(ev_str(0, "state"), "ERR");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_validate),
	    cmocka_unit_test_setup_teardown(test_shim_needs_shim_target, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_shim_error_all, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_shim_error_qpn, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_shim_error_qp_destroyed_first, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_shim_error_no_qps, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_shim_fail_wr, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_shim_busy, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_shim_workload_gone, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_shim_next_tick, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_shim_without_rdma_netlink, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_shim_restore, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_transport_needs_netdev, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_transport_cycle, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_transport_qpn_and_existing_qdisc, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_transport_busy_and_eperm, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_transport_keeps_a_shared_qdisc, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_transport_restore, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_transport_tick_reports_err, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
