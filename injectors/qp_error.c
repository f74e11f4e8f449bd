// SPDX-License-Identifier: MIT
/*
 * qp_error: makes RC QPs fail, by one of two mechanisms chosen per fault.
 *
 * shim: the workload was started with librdmachaos-verbs.so preloaded
 * (workload_start "shim": true); the injector commands it over its control
 * socket (common/shim_proto.h) to move QPs to IBV_QPS_ERR (all, one QPN, or
 * the next one created, right after it reaches RTS) or to fail the next N
 * completions with a chosen WC status. Works on any provider. Revert disarms
 * the shim (CLEAR); a QP already moved to ERR cannot come back, the workload
 * recovers by making new ones.
 *
 * transport: drops incoming RoCEv2 (IPv4 UDP dport 4791, and only BTH DestQP
 * = qpn when asked) on the target netdev with an ingress qdisc and a u32
 * filter whose gact action is drop (libnl-route), so the senders' QPs exhaust
 * their retries and fail with IBV_WC_RETRY_EXC_ERR on their own (when the
 * workload set retry_cnt < 7: rxe retries forever at 7). Soft-RoCE only:
 * offloaded RoCE never passes through tc. Revert removes exactly the filter,
 * and the ingress qdisc only if this fault added it.
 *
 * Either way the QPs' state is read from outside the process through RDMA
 * netlink (injectors/inj_rdma_nl.h) and reported as `qp_state` fault events:
 * after a shim inject, while the fault holds (tick, on every change into
 * ERR), and at verify.
 */
#include <errno.h>
#include <infiniband/verbs.h>
#include <linux/if_ether.h>
#include <linux/pkt_cls.h>
#include <linux/pkt_sched.h>
#include <net/if.h>
#include <netlink/cache.h>
#include <netlink/errno.h>
#include <netlink/netlink.h>
#include <netlink/route/act/gact.h>
#include <netlink/route/action.h>
#include <netlink/route/classifier.h>
#include <netlink/route/cls/u32.h>
#include <netlink/route/qdisc.h>
#include <netlink/route/tc.h>
#include <netinet/in.h>
#include <netlink/socket.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/shim_proto.h"
#include "common/units.h"
#include "injectors/inj_rdma_nl.h"
#include "injectors/inj_util.h"

#define QPE_QPN_MAX 0xffffff
#define QPE_COUNT_MAX 1000000
#define QPE_PRIO 4791 /* our u32 filter's priority on ingress: the RoCEv2 port */
#define QPE_ROCE_PORT 4791
#define QPE_FILTER_PARENT TC_H_MAKE(TC_H_CLSACT, TC_H_MIN_INGRESS) /* ingress or clsact */
#define QPE_SHIM_TIMEOUT_MS 1000
#define QPE_SETTLE_MS 1000 /* how long inject waits for moved QPs to show ERR */
#define QPE_TICK_MS 200
#define QPE_MAX_SEEN 64
#define QPE_MAX_EVENTS 32

static const char qpe_transport_note[] =
    "works on Soft-RoCE (packets pass through the kernel); offloaded hardware RoCE bypasses tc, "
    "so this mechanism does nothing there";
static const char qpe_shim_note[] =
    "acts inside the workload through its preloaded verbs shim, on any provider; a QP moved to "
    "ERR stays there (the workload recovers with new QPs)";

enum qpe_mech { QPE_SHIM, QPE_TRANSPORT };
enum qpe_action { QPE_ERROR, QPE_FAIL_WR };

struct qpe_params {
	enum qpe_mech mech;
	enum qpe_action action; /* shim */
	enum shim_qp_sel sel;	/* shim, error */
	uint32_t qpn;		/* shim SHIM_QP_QPN, or transport when has_qpn */
	bool has_qpn;		/* transport */
	unsigned int count;	/* shim, fail_wr */
	int wc_status;		/* shim, fail_wr */
};

struct qpe_seen {
	uint32_t qpn;
	char device[64];
	int state; /* -2: not seen yet */
	int pid;
	bool present; /* in the last dump */
	bool gone;    /* reported destroyed */
};

struct qpe_priv {
	struct qpe_params p;
	/* shim */
	char sock[108];
	int pid;
	char workload[64];
	json_t *before; /* the QPs the shim knew at prepare */
	json_t *moved;	/* QPNs moved to ERR by inject */
	/* transport */
	char netdev[IF_NAMESIZE];
	int ifindex;
	bool qdisc_existed; /* an ingress (or clsact) qdisc was there at prepare */
	bool created_qdisc; /* inject added it (restore: assumed when it was not there) */
	/* QP watching (tick) */
	bool watch;
	struct qpe_seen seen[QPE_MAX_SEEN];
	size_t nseen;
};

static const char *const qpe_keys[] = {"mechanism", "action", "qps", "count",
				       "wc_status", "qpn",    NULL};

static const char *const qpe_help[] = {
    "mechanism=string (required): \"shim\" (workload started with the verbs shim) or "
    "\"transport\" (drop RoCE on a netdev; Soft-RoCE only)",
    "action=string default \"error\" (shim): \"error\" moves QPs to IBV_QPS_ERR, \"fail_wr\" "
    "fails the next completions",
    "qps=string|int default \"all\" (shim, error): \"all\", \"next\" (the next QP created, at "
    "RTS) or a QPN",
    "count=int default 1 (shim, fail_wr): how many completions fail (1..1000000)",
    "wc_status=string default \"IBV_WC_RETRY_EXC_ERR\" (shim, fail_wr): their status, with or "
    "without the IBV_WC_ prefix",
    "qpn=int (transport): drop only packets to this destination QP (BTH DestQP), else all RoCE",
    NULL,
};

/* ---- parameters ---- */

static int qpe_only(const json_t *params, const char *key, const char *why, char *err,
		    size_t errlen)
{
	if (!json_object_get(params, key))
		return 0;
	snprintf(err, errlen, "qp_error: params.%s: %s", key, why);
	return -EINVAL;
}

static int qpe_parse_shim(const json_t *params, struct qpe_params *p, char *err, size_t errlen)
{
	const json_t *v;
	const char *s;
	json_int_t n;
	int ret;

	ret = qpe_only(params, "qpn",
		       "only for mechanism \"transport\" (with \"shim\", name the QP with qps)",
		       err, errlen);
	if (ret)
		return ret;
	v = json_object_get(params, "action");
	s = v ? json_string_value(v) : "error";
	if (!s || (strcmp(s, "error") && strcmp(s, "fail_wr"))) {
		snprintf(err, errlen, "qp_error: params.action: must be \"error\" or \"fail_wr\"");
		return -EINVAL;
	}
	if (!strcmp(s, "error")) {
		p->action = QPE_ERROR;
		ret = qpe_only(params, "count", "only for action \"fail_wr\"", err, errlen);
		if (!ret)
			ret = qpe_only(params, "wc_status", "only for action \"fail_wr\"", err,
				       errlen);
		if (ret)
			return ret;
		v = json_object_get(params, "qps");
		p->sel = SHIM_QP_ALL;
		if (json_is_integer(v) && json_integer_value(v) >= 0 &&
		    json_integer_value(v) <= QPE_QPN_MAX) {
			p->sel = SHIM_QP_QPN;
			p->qpn = (uint32_t)json_integer_value(v);
		} else if (json_is_string(v) && !strcmp(json_string_value(v), "next")) {
			p->sel = SHIM_QP_NEXT;
		} else if (v && !(json_is_string(v) && !strcmp(json_string_value(v), "all"))) {
			snprintf(
			    err, errlen,
			    "qp_error: params.qps: must be \"all\", \"next\" or a QPN (an integer "
			    "in 0..%d)",
			    QPE_QPN_MAX);
			return -EINVAL;
		}
		return 0;
	}
	p->action = QPE_FAIL_WR;
	ret = qpe_only(params, "qps",
		       "only for action \"error\" (fail_wr fails the next completions of any QP)",
		       err, errlen);
	if (!ret)
		ret = inj_params_int("qp_error", params, "count", false, 1, QPE_COUNT_MAX, 1, &n,
				     err, errlen);
	if (ret)
		return ret;
	p->count = (unsigned int)n;
	v = json_object_get(params, "wc_status");
	p->wc_status = IBV_WC_RETRY_EXC_ERR;
	if (v) {
		p->wc_status = json_is_string(v) ? shim_wc_status_parse(json_string_value(v)) : -1;
		if (p->wc_status <= 0) {
			snprintf(err, errlen,
				 "qp_error: params.wc_status: must name a failure status such as "
				 "\"IBV_WC_RETRY_EXC_ERR\" or \"rem_access_err\"");
			return -EINVAL;
		}
	}
	return 0;
}

static int qpe_parse(const json_t *params, struct qpe_params *p, char *err, size_t errlen)
{
	const char *m;
	json_int_t n;
	int ret;

	memset(p, 0, sizeof(*p));
	ret = inj_params_known("qp_error", params, qpe_keys, err, errlen);
	if (ret)
		return ret;
	m = json_string_value(json_object_get(params, "mechanism"));
	if (!json_object_get(params, "mechanism")) {
		snprintf(err, errlen,
			 "qp_error: params.mechanism: missing (\"shim\" or \"transport\")");
		return -EINVAL;
	}
	if (m && !strcmp(m, "shim")) {
		p->mech = QPE_SHIM;
		return qpe_parse_shim(params, p, err, errlen);
	}
	if (!m || strcmp(m, "transport")) {
		snprintf(err, errlen,
			 "qp_error: params.mechanism: must be \"shim\" or \"transport\"");
		return -EINVAL;
	}
	p->mech = QPE_TRANSPORT;
	for (const char *const *k =
		 (const char *const[]){"action", "qps", "count", "wc_status", NULL};
	     *k; k++) {
		ret = qpe_only(
		    params, *k,
		    "only for mechanism \"shim\" (transport drops the RoCE packets of every "
		    "QP on the netdev, or of qpn)",
		    err, errlen);
		if (ret)
			return ret;
	}
	if (json_object_get(params, "qpn")) {
		ret = inj_params_int("qp_error", params, "qpn", false, 0, QPE_QPN_MAX, 0, &n, err,
				     errlen);
		if (ret)
			return ret;
		p->has_qpn = true;
		p->qpn = (uint32_t)n;
	}
	return 0;
}

static int qpe_validate(const json_t *params, char *err, size_t errlen)
{
	struct qpe_params p;

	return qpe_parse(params, &p, err, errlen);
}

/* ---- QP state through RDMA netlink ---- */

/* A qp_state fault event; @key/@val: one more string field, when not NULL. */
static void qpe_emit(struct inj_fault *f, uint32_t qpn, const char *state, int pid,
		     const char *device, const char *source, const char *key, const char *val)
{
	json_t *o;

	if (!f->env || !f->env->event)
		return;
	o = json_pack("{s:I, s:s, s:i, s:s}", "qpn", (json_int_t)qpn, "state", state, "pid", pid,
		      "source", source);
	if (o && device && *device)
		json_object_set_new(o, "device", json_string(device));
	if (o && key && val)
		json_object_set_new(o, key, json_string(val));
	f->env->event(f, "qp_state", o);
}

/* The QPs the watch covers: the workload's (pid), one QPN, or every user QP. */
static bool qpe_watched(const struct qpe_priv *priv, const struct inj_rdma_qp *q)
{
	if (priv->pid > 0 && q->pid != priv->pid)
		return false;
	if (priv->pid <= 0 && q->pid <= 0)
		return false; /* kernel QPs (QP1, rdma_cm's) are not the workload's */
	if (priv->p.mech == QPE_TRANSPORT && priv->p.has_qpn && q->lqpn != priv->p.qpn)
		return false;
	return true;
}

static struct qpe_seen *qpe_seen_find(struct qpe_priv *priv, const struct inj_rdma_qp *q)
{
	struct qpe_seen *s;
	size_t i;

	for (i = 0; i < priv->nseen; i++)
		if (priv->seen[i].qpn == q->lqpn && !strcmp(priv->seen[i].device, q->device))
			return &priv->seen[i];
	if (priv->nseen == QPE_MAX_SEEN)
		return NULL;
	s = &priv->seen[priv->nseen++];
	memset(s, 0, sizeof(*s));
	s->qpn = q->lqpn;
	snprintf(s->device, sizeof(s->device), "%s", q->device);
	s->state = -2;
	return s;
}

/*
 * One look at the watched QPs: remembers each state and, unless @baseline,
 * emits a qp_state event for each QP that went into ERR since the last look
 * (or appeared already in ERR), and one ("DESTROYED", with its last state)
 * for each that disappeared: a workload destroys a failed QP at once, often
 * between two looks. Returns how many went into ERR, or -errno.
 */
static int qpe_watch_step(struct inj_fault *f, bool baseline)
{
	struct qpe_priv *priv = f->priv;
	struct inj_rdma_qp *qps;
	struct qpe_seen *s;
	char err[256];
	size_t n, i;
	int ret, changed = 0;

	ret = inj_rdma_nl_qps(f->target.device, &qps, &n, err, sizeof(err));
	if (ret)
		return ret;
	for (i = 0; i < priv->nseen; i++)
		priv->seen[i].present = false;
	for (i = 0; i < n; i++) {
		if (!qpe_watched(priv, &qps[i]))
			continue;
		s = qpe_seen_find(priv, &qps[i]);
		if (!s)
			continue;
		s->present = true;
		s->pid = qps[i].pid;
		if (s->gone) { /* the QPN was given to a new QP */
			s->gone = false;
			s->state = -2;
		}
		if (s->state == qps[i].state)
			continue;
		s->state = qps[i].state;
		if (baseline || qps[i].state != IBV_QPS_ERR)
			continue;
		changed++;
		qpe_emit(f, qps[i].lqpn, "ERR", qps[i].pid, qps[i].device, "rdma_netlink", NULL,
			 NULL);
	}
	free(qps);
	for (i = 0; i < priv->nseen; i++) {
		s = &priv->seen[i];
		if (s->present || s->gone)
			continue;
		s->gone = true;
		if (!baseline && s->state >= 0)
			qpe_emit(f, s->qpn, "DESTROYED", s->pid, s->device, "rdma_netlink",
				 "last_state", shim_qp_state_name(s->state));
	}
	return changed;
}

static void qpe_watch_start(struct inj_fault *f)
{
	struct qpe_priv *priv = f->priv;

	priv->nseen = 0;
	priv->watch = qpe_watch_step(f, true) >= 0; /* no RDMA netlink: nothing to watch */
	f->next_tick_ns = priv->watch ? rc_now_ns() + QPE_TICK_MS * RC_NSEC_PER_MSEC : 0;
}

static int qpe_tick(struct inj_fault *f, uint64_t now_ns)
{
	struct qpe_priv *priv = f->priv;
	int ret;

	if (!priv || !priv->watch || f->reverted) {
		f->next_tick_ns = 0;
		return 0;
	}
	ret = qpe_watch_step(f, false);
	if (ret < 0 || (ret > 0 && priv->p.mech == QPE_SHIM)) {
		/* Netlink went away, or the one "next" QP was seen in ERR: done. */
		priv->watch = false;
		f->next_tick_ns = 0;
		return 0;
	}
	f->next_tick_ns = now_ns + QPE_TICK_MS * RC_NSEC_PER_MSEC;
	return 0;
}

/* The state the shim read back (ibv_query_qp) for @qpn, from its reply. */
static void qpe_shim_state(const json_t *reply, uint32_t qpn, const char **state, const char **dev)
{
	size_t i;
	json_t *v;

	json_array_foreach(json_object_get(reply, "qps"), i, v)
		if (json_integer_value(json_object_get(v, "qpn")) == (json_int_t)qpn) {
			*state = json_string_value(json_object_get(v, "state"));
			*dev = json_string_value(json_object_get(v, "device"));
		}
}

/*
 * After the shim moved priv->moved to ERR: looks through RDMA netlink (for
 * up to QPE_SETTLE_MS) and emits one qp_state event per QP, as soon as it is
 * seen in ERR; a QP never seen in ERR is reported as last seen ("ABSENT" when
 * the workload destroyed it first). With no RDMA netlink, reports the state
 * the shim read back instead, labelled "source": "shim".
 */
static void qpe_report_moved(struct inj_fault *f, const json_t *reply)
{
	struct qpe_priv *priv = f->priv;
	uint64_t deadline = rc_now_ns() + QPE_SETTLE_MS * RC_NSEC_PER_MSEC;
	size_t nmoved = json_array_size(priv->moved), n, i, j, left;
	struct {
		bool done;
		int state; /* -1: never seen */
		char dev[64];
	} st[QPE_MAX_EVENTS];
	struct inj_rdma_qp *qps;
	const char *state, *dev;
	char err[256];
	bool nl = false;

	if (nmoved > QPE_MAX_EVENTS)
		nmoved = QPE_MAX_EVENTS;
	for (j = 0; j < nmoved; j++) {
		st[j].done = false;
		st[j].state = -1;
		st[j].dev[0] = '\0';
	}
	for (left = nmoved; left;) {
		if (inj_rdma_nl_qps(NULL, &qps, &n, err, sizeof(err)))
			break;
		nl = true;
		for (j = 0; j < nmoved; j++) {
			uint32_t qpn = (uint32_t)json_integer_value(json_array_get(priv->moved, j));

			if (st[j].done)
				continue;
			st[j].state = -1;
			for (i = 0; i < n; i++) {
				if (qps[i].pid != priv->pid || qps[i].lqpn != qpn)
					continue;
				st[j].state = qps[i].state;
				snprintf(st[j].dev, sizeof(st[j].dev), "%s", qps[i].device);
			}
			if (st[j].state != IBV_QPS_ERR)
				continue;
			qpe_emit(f, qpn, "ERR", priv->pid, st[j].dev, "rdma_netlink", NULL, NULL);
			st[j].done = true;
			left--;
		}
		free(qps);
		if (!left || rc_now_ns() >= deadline)
			break;
		usleep(50000);
	}
	for (j = 0; j < nmoved; j++) {
		uint32_t qpn = (uint32_t)json_integer_value(json_array_get(priv->moved, j));

		if (st[j].done)
			continue;
		if (nl && st[j].state >= 0) {
			qpe_emit(f, qpn, shim_qp_state_name(st[j].state), priv->pid, st[j].dev,
				 "rdma_netlink", NULL, NULL);
			continue;
		}
		/* Destroyed before netlink could show it, or no netlink: the shim's reading. */
		state = dev = NULL;
		qpe_shim_state(reply, qpn, &state, &dev);
		qpe_emit(f, qpn, state ? state : "UNKNOWN", priv->pid, dev, "shim",
			 nl ? "rdma_netlink" : NULL, "absent (the workload destroyed it first)");
	}
}

/* Every QP of the workload (or the watched ones) as it is now, for verify. */
static void qpe_report_now(struct inj_fault *f, const json_t *shim_reply)
{
	struct qpe_priv *priv = f->priv;
	struct inj_rdma_qp *qps;
	char err[256];
	size_t n, i, k = 0;
	json_t *v;

	if (!inj_rdma_nl_qps(f->target.device, &qps, &n, err, sizeof(err))) {
		for (i = 0; i < n && k < QPE_MAX_EVENTS; i++)
			if (qpe_watched(priv, &qps[i])) {
				qpe_emit(f, qps[i].lqpn, shim_qp_state_name(qps[i].state),
					 qps[i].pid, qps[i].device, "rdma_netlink", NULL, NULL);
				k++;
			}
		free(qps);
		return;
	}
	json_array_foreach(json_object_get(shim_reply, "qps"), i, v) {
		if (i >= QPE_MAX_EVENTS)
			break;
		qpe_emit(f, (uint32_t)json_integer_value(json_object_get(v, "qpn")),
			 json_string_value(json_object_get(v, "state")), priv->pid,
			 json_string_value(json_object_get(v, "device")), "shim", NULL, NULL);
	}
}

/* ---- shim mechanism ---- */

/* A call to the workload's shim; what went wrong, with the workload named, in f->err. */
static int qpe_shim(struct inj_fault *f, const struct shim_cmd *c, const char *what, bool gone_ok,
		    json_t **reply)
{
	struct qpe_priv *priv = f->priv;
	char who[160];

	snprintf(who, sizeof(who), "qp_error: workload %s (pid %d)%s", priv->workload, priv->pid,
		 what);
	return inj_shim_call(f, priv->sock, c, QPE_SHIM_TIMEOUT_MS, who, gone_ok, reply);
}

static bool qpe_armed(const json_t *reply)
{
	return json_is_true(json_object_get(json_object_get(reply, "armed"), "any"));
}

static int qpe_shim_prepare(struct inj_fault *f)
{
	struct qpe_priv *priv = f->priv;
	struct shim_cmd c = {.op = SHIM_OP_STATUS};
	json_t *reply;
	int ret;

	if (!f->target.shim_sock[0] || f->target.pid <= 0)
		return inj_fail(f, -EINVAL,
				"qp_error: mechanism \"shim\" needs a workload target started with "
				"the shim (workload_start with \"shim\": true)%s%s%s",
				f->target.workload[0] ? "; workload " : "", f->target.workload,
				f->target.workload[0] ? " was started without it" : "");
	snprintf(priv->sock, sizeof(priv->sock), "%s", f->target.shim_sock);
	snprintf(priv->workload, sizeof(priv->workload), "%s",
		 f->target.workload[0] ? f->target.workload : "?");
	priv->pid = f->target.pid;
	ret = qpe_shim(f, &c, "", false, &reply);
	if (ret)
		return ret;
	if (qpe_armed(reply)) {
		json_decref(reply);
		return inj_fail(
		    f, -EBUSY,
		    "qp_error: workload %s (pid %d): its shim already has a fault armed "
		    "(another qp_error or mr_failure?): revert that one first",
		    priv->workload, priv->pid);
	}
	priv->before = json_incref(json_object_get(reply, "qps"));
	json_decref(reply);
	return 0;
}

static int qpe_shim_inject(struct inj_fault *f)
{
	struct qpe_priv *priv = f->priv;
	struct shim_cmd c = {.op = SHIM_OP_QP_ERROR, .sel = priv->p.sel, .qpn = priv->p.qpn};
	const json_t *failed;
	json_t *reply;
	int ret;

	if (priv->p.action == QPE_FAIL_WR)
		c = (struct shim_cmd){
		    .op = SHIM_OP_FAIL_WR, .count = priv->p.count, .wc_status = priv->p.wc_status};
	ret = qpe_shim(f, &c, "", false, &reply);
	if (ret)
		return ret;
	if (priv->p.action == QPE_FAIL_WR) {
		json_decref(reply);
		return 0;
	}
	if (priv->p.sel == SHIM_QP_NEXT) {
		json_decref(reply);
		qpe_watch_start(f);
		return 0;
	}
	json_decref(priv->moved);
	priv->moved = json_incref(json_object_get(reply, "moved"));
	if (!json_is_array(priv->moved)) {
		json_decref(priv->moved);
		priv->moved = json_array();
	}
	failed = json_object_get(reply, "failed");
	if (!json_array_size(priv->moved)) {
		if (json_array_size(failed))
			ret = inj_fail(
			    f, -EIO,
			    "qp_error: workload %s (pid %d): QP %lld: ibv_modify_qp(ERR): %s",
			    priv->workload, priv->pid,
			    (long long)json_integer_value(
				json_object_get(json_array_get(failed, 0), "qpn")),
			    json_string_value(json_object_get(json_array_get(failed, 0), "error")));
		else
			ret = inj_fail(
			    f, -ENOENT,
			    "qp_error: workload %s (pid %d) has no QPs yet: nothing to move "
			    "to ERR (qps \"next\" catches the next one created)",
			    priv->workload, priv->pid);
		json_decref(reply);
		return ret;
	}
	qpe_report_moved(f, reply);
	json_decref(reply);
	return 0;
}

static int qpe_shim_revert(struct inj_fault *f)
{
	struct qpe_priv *priv = f->priv;
	struct shim_cmd c = {.op = SHIM_OP_CLEAR};
	char list[160] = "";
	size_t i, off = 0;
	json_t *reply, *v;
	int ret;

	priv->watch = false;
	f->next_tick_ns = 0;
	ret = qpe_shim(f, &c, "", true, &reply);
	if (ret == -ESRCH) {
		inj_action(f, "workload %s (pid %d): gone, so nothing stays armed in its shim",
			   priv->workload, priv->pid);
		return 0;
	}
	if (ret)
		return ret;
	inj_action(f, "workload %s (pid %d): shim disarmed (%s)", priv->workload, priv->pid,
		   json_is_true(json_object_get(reply, "was_armed")) ? "it was still armed"
								     : "nothing was armed");
	json_decref(reply);
	json_array_foreach(priv->moved, i, v)
		if (off < sizeof(list))
			off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%lld",
						i ? ", " : "", (long long)json_integer_value(v));
	if (off)
		inj_action(f,
			   "workload %s: QP(s) %s stay in ERR: a QP in error cannot be brought "
			   "back, the workload recovers with new ones",
			   priv->workload, list);
	return 0;
}

static int qpe_shim_verify(struct inj_fault *f)
{
	struct qpe_priv *priv = f->priv;
	struct shim_cmd c = {.op = SHIM_OP_STATUS};
	json_t *reply;
	int ret;

	ret = qpe_shim(f, &c, ": verify", true, &reply);
	if (ret == -ESRCH)
		return 0; /* the process is gone: nothing can be armed in it */
	if (ret)
		return ret;
	if (qpe_armed(reply)) {
		json_decref(reply);
		return inj_fail(f, -EIO,
				"qp_error: workload %s (pid %d): verify: its shim is still armed",
				priv->workload, priv->pid);
	}
	qpe_report_now(f, reply);
	json_decref(reply);
	return 0;
}

/* ---- transport mechanism: ingress qdisc + u32 drop through libnl-route ---- */

static int qpe_tc_fail(struct inj_fault *f, const char *what, int nlerr)
{
	struct qpe_priv *priv = f->priv;
	int err = inj_nl_errno(nlerr);

	/* tc's "not found" is a filter, action or qdisc kind the kernel does not have */
	return inj_fail(f, err, "qp_error: %s: %s: %s%s", priv->netdev, what, nl_geterror(nlerr),
			err == -EPERM ? " (need CAP_NET_ADMIN)"
			: nlerr == -NLE_OBJ_NOTFOUND || err == -EOPNOTSUPP
			    ? " (is the kernel's cls_u32 / act_gact / sch_ingress available?)"
			    : "");
}

static int qpe_tc_open(struct inj_fault *f, struct nl_sock **sk)
{
	struct qpe_priv *priv = f->priv;
	int ret;

	*sk = nl_socket_alloc();
	if (!*sk)
		return inj_fail(f, -ENOMEM, "qp_error: %s: netlink socket: out of memory",
				priv->netdev);
	ret = nl_connect(*sk, NETLINK_ROUTE);
	if (ret < 0) {
		nl_socket_free(*sk);
		*sk = NULL;
		return qpe_tc_fail(f, "netlink connect", ret);
	}
	return 0;
}

/* Whether the netdev has an ingress (or clsact) qdisc. */
static int qpe_qdisc_present(struct inj_fault *f, struct nl_sock *sk, bool *present)
{
	struct qpe_priv *priv = f->priv;
	struct nl_cache *cache = NULL;
	struct rtnl_qdisc *q;
	int ret;

	ret = rtnl_qdisc_alloc_cache(sk, &cache);
	if (ret < 0)
		return qpe_tc_fail(f, "RTM_GETQDISC", ret);
	q = rtnl_qdisc_get_by_parent(cache, priv->ifindex, TC_H_INGRESS);
	*present = q != NULL;
	rtnl_qdisc_put(q);
	nl_cache_free(cache);
	return 0;
}

/* Counts the ingress filters: ours (prio QPE_PRIO, u32) and the others. */
static int qpe_filters(struct inj_fault *f, struct nl_sock *sk, int *ours, int *others)
{
	struct qpe_priv *priv = f->priv;
	struct nl_cache *cache = NULL;
	struct nl_object *o;
	const char *kind;
	int ret;

	*ours = *others = 0;
	ret = rtnl_cls_alloc_cache(sk, priv->ifindex, QPE_FILTER_PARENT, &cache);
	if (ret < 0) /* no ingress qdisc: no filters either */
		return ret == -NLE_INVAL || ret == -NLE_OBJ_NOTFOUND
			   ? 0
			   : qpe_tc_fail(f, "RTM_GETTFILTER", ret);
	for (o = nl_cache_get_first(cache); o; o = nl_cache_get_next(o)) {
		kind = rtnl_tc_get_kind(TC_CAST(o));
		if (rtnl_cls_get_prio((struct rtnl_cls *)o) == QPE_PRIO && kind &&
		    !strcmp(kind, "u32"))
			(*ours)++;
		else
			(*others)++;
	}
	nl_cache_free(cache);
	return 0;
}

static int qpe_transport_prepare(struct inj_fault *f)
{
	struct qpe_priv *priv = f->priv;
	struct nl_sock *sk;
	int ret, ours = 0, others;

	if (!f->target.netdev[0])
		return inj_fail(
		    f, -EINVAL,
		    "qp_error: mechanism \"transport\" needs a netdev target (rail, netdev "
		    "or device; or a workload with its rail)");
	snprintf(priv->netdev, sizeof(priv->netdev), "%s", f->target.netdev);
	priv->ifindex =
	    f->target.ifindex > 0 ? f->target.ifindex : (int)if_nametoindex(f->target.netdev);
	if (priv->ifindex <= 0)
		return inj_fail(f, -ENODEV, "qp_error: %s: no such network interface on this node",
				priv->netdev);
	if (f->target.pid > 0) {
		priv->pid = f->target.pid;
		snprintf(priv->workload, sizeof(priv->workload), "%s", f->target.workload);
	}
	ret = qpe_tc_open(f, &sk);
	if (ret)
		return ret;
	ret = qpe_qdisc_present(f, sk, &priv->qdisc_existed);
	if (!ret && priv->qdisc_existed)
		ret = qpe_filters(f, sk, &ours, &others);
	nl_socket_free(sk);
	if (ret)
		return ret;
	if (ours)
		return inj_fail(
		    f, -EBUSY,
		    "qp_error: %s: busy: a u32 filter at ingress prio %d is already there "
		    "(another qp_error transport fault?)",
		    priv->netdev, QPE_PRIO);
	return 0;
}

static int qpe_add_filter(struct inj_fault *f, struct nl_sock *sk)
{
	struct qpe_priv *priv = f->priv;
	struct rtnl_act *act = NULL;
	struct rtnl_cls *cls;
	int ret;

	cls = rtnl_cls_alloc();
	act = rtnl_act_alloc();
	if (!cls || !act) {
		ret = inj_fail(f, -ENOMEM, "qp_error: %s: out of memory", priv->netdev);
		goto out;
	}
	rtnl_tc_set_ifindex(TC_CAST(cls), priv->ifindex);
	rtnl_tc_set_parent(TC_CAST(cls), QPE_FILTER_PARENT);
	rtnl_cls_set_prio(cls, QPE_PRIO);
	rtnl_cls_set_protocol(cls, ETH_P_IP);
	ret = rtnl_tc_set_kind(TC_CAST(cls), "u32");
	/*
	 * IPv4 without options (IHL 5, as rxe sends), UDP, dport 4791; the BTH
	 * follows the 8-byte UDP header at 28, DestQP is the low 24 bits of
	 * its second word (offset 32).
	 */
	if (!ret)
		ret = rtnl_u32_add_key_uint8(cls, 0x05, 0x0f, 0, 0);
	if (!ret)
		ret = rtnl_u32_add_key_uint8(cls, IPPROTO_UDP, 0xff, 9, 0);
	if (!ret)
		ret = rtnl_u32_add_key_uint16(cls, QPE_ROCE_PORT, 0xffff, 22, 0);
	if (!ret && priv->p.has_qpn)
		ret = rtnl_u32_add_key_uint32(cls, priv->p.qpn, QPE_QPN_MAX, 32, 0);
	if (!ret)
		ret = rtnl_u32_set_cls_terminal(cls);
	if (!ret)
		ret = rtnl_tc_set_kind(TC_CAST(act), "gact");
	if (!ret)
		ret = rtnl_gact_set_action(act, TC_ACT_SHOT);
	if (!ret)
		ret = rtnl_u32_add_action(cls, act);
	if (ret < 0) {
		ret = qpe_tc_fail(f, "building the u32 filter", ret);
		goto out;
	}
	ret = rtnl_cls_add(sk, cls, NLM_F_CREATE | NLM_F_EXCL);
	if (ret == -NLE_EXIST)
		ret = inj_fail(f, -EBUSY,
			       "qp_error: %s: busy: a filter at ingress prio %d appeared since "
			       "prepare",
			       priv->netdev, QPE_PRIO);
	else if (ret < 0)
		ret = qpe_tc_fail(f, "RTM_NEWTFILTER (u32 drop of UDP 4791)", ret);
out:
	rtnl_act_put(act);
	rtnl_cls_put(cls);
	return ret;
}

static struct rtnl_qdisc *qpe_ingress_qdisc(struct qpe_priv *priv)
{
	struct rtnl_qdisc *q = rtnl_qdisc_alloc();

	if (!q)
		return NULL;
	rtnl_tc_set_ifindex(TC_CAST(q), priv->ifindex);
	rtnl_tc_set_parent(TC_CAST(q), TC_H_INGRESS);
	rtnl_tc_set_handle(TC_CAST(q), TC_H_MAKE(TC_H_INGRESS, 0));
	if (rtnl_tc_set_kind(TC_CAST(q), "ingress") < 0) {
		rtnl_qdisc_put(q);
		return NULL;
	}
	return q;
}

static int qpe_transport_inject(struct inj_fault *f)
{
	struct qpe_priv *priv = f->priv;
	struct rtnl_qdisc *q;
	struct nl_sock *sk;
	int ret;

	ret = qpe_tc_open(f, &sk);
	if (ret)
		return ret;
	if (!priv->qdisc_existed) {
		q = qpe_ingress_qdisc(priv);
		if (!q) {
			ret = inj_fail(f, -ENOMEM, "qp_error: %s: out of memory", priv->netdev);
			goto out;
		}
		ret = rtnl_qdisc_add(sk, q, NLM_F_CREATE | NLM_F_EXCL);
		rtnl_qdisc_put(q);
		if (ret == -NLE_EXIST) {
			priv->qdisc_existed =
			    true; /* someone else's since prepare: keep it theirs */
		} else if (ret < 0) {
			ret = qpe_tc_fail(f, "RTM_NEWQDISC (ingress)", ret);
			goto out;
		} else {
			priv->created_qdisc = true;
		}
	}
	ret = qpe_add_filter(f, sk);
	if (!ret)
		f->injected_at_ns = rc_now_ns(); /* packets drop from here, not from the call */
out:
	nl_socket_free(sk);
	if (!ret)
		qpe_watch_start(f);
	return ret;
}

static int qpe_transport_revert(struct inj_fault *f)
{
	struct qpe_priv *priv = f->priv;
	struct rtnl_qdisc *q = NULL;
	struct rtnl_cls *cls = NULL;
	struct nl_sock *sk;
	int ret, ours, others;

	priv->watch = false;
	f->next_tick_ns = 0;
	if (priv->ifindex <= 0) /* a restored fault whose netdev is gone, and its filters with it */
		return inj_fail(f, -ENODEV, "qp_error: %s: no such network interface now",
				priv->netdev);
	ret = qpe_tc_open(f, &sk);
	if (ret)
		return ret;
	cls = rtnl_cls_alloc();
	if (!cls) {
		ret = inj_fail(f, -ENOMEM, "qp_error: %s: out of memory", priv->netdev);
		goto out;
	}
	rtnl_tc_set_ifindex(TC_CAST(cls), priv->ifindex);
	rtnl_tc_set_parent(TC_CAST(cls), QPE_FILTER_PARENT);
	rtnl_cls_set_prio(cls, QPE_PRIO);
	rtnl_cls_set_protocol(cls, ETH_P_IP);
	rtnl_tc_set_kind(TC_CAST(cls), "u32");
	ret = rtnl_cls_delete(sk, cls, 0);
	if (ret == -NLE_NODEV) {
		inj_action(f, "%s: gone, so no filter is left on it", priv->netdev);
		ret = 0;
		goto out;
	}
	if (ret < 0 && ret != -NLE_OBJ_NOTFOUND && ret != -NLE_INVAL) {
		ret = qpe_tc_fail(f, "RTM_DELTFILTER (u32 drop of UDP 4791)", ret);
		goto out;
	}
	inj_action(f, "%s: %s the u32 filter dropping RoCE (UDP 4791) at ingress prio %d",
		   priv->netdev, ret < 0 ? "already without" : "removed", QPE_PRIO);
	if (!priv->created_qdisc) {
		ret = 0;
		goto out;
	}
	ret = qpe_filters(f, sk, &ours, &others);
	if (ret)
		goto out;
	if (others) {
		inj_action(
		    f, "%s: kept the ingress qdisc this fault added: %d other filter(s) use it now",
		    priv->netdev, others);
		goto out;
	}
	q = qpe_ingress_qdisc(priv);
	if (!q) {
		ret = inj_fail(f, -ENOMEM, "qp_error: %s: out of memory", priv->netdev);
		goto out;
	}
	ret = rtnl_qdisc_delete(sk, q);
	if (ret < 0 && ret != -NLE_OBJ_NOTFOUND && ret != -NLE_INVAL) {
		ret = qpe_tc_fail(f, "RTM_DELQDISC (ingress)", ret);
		goto out;
	}
	inj_action(f, "%s: %s the ingress qdisc (added by this fault)", priv->netdev,
		   ret < 0 ? "already without" : "removed");
	ret = 0;
out:
	rtnl_qdisc_put(q);
	rtnl_cls_put(cls);
	nl_socket_free(sk);
	return ret;
}

static int qpe_transport_verify(struct inj_fault *f)
{
	struct qpe_priv *priv = f->priv;
	struct nl_sock *sk;
	bool present = false;
	int ret, ours = 0, others = 0;

	ret = qpe_tc_open(f, &sk);
	if (ret)
		return ret;
	ret = qpe_filters(f, sk, &ours, &others);
	if (!ret && priv->created_qdisc && !others)
		ret = qpe_qdisc_present(f, sk, &present);
	nl_socket_free(sk);
	if (ret)
		return ret;
	if (ours)
		return inj_fail(
		    f, -EIO,
		    "qp_error: %s: verify: the u32 filter at ingress prio %d is still there",
		    priv->netdev, QPE_PRIO);
	if (present)
		return inj_fail(
		    f, -EIO,
		    "qp_error: %s: verify: the ingress qdisc this fault added is still there",
		    priv->netdev);
	if (f->target.device[0] && (priv->pid > 0 || priv->p.has_qpn))
		qpe_report_now(f, NULL);
	return 0;
}

/* ---- the injector ---- */

static void qpe_cleanup(struct inj_fault *f)
{
	struct qpe_priv *priv = f->priv;

	if (!priv)
		return;
	json_decref(priv->before);
	json_decref(priv->moved);
	free(priv);
	f->priv = NULL;
}

static int qpe_alloc(struct inj_fault *f)
{
	struct qpe_priv *priv = calloc(1, sizeof(*priv));
	int ret;

	if (!priv)
		return inj_fail(f, -ENOMEM, "qp_error: out of memory");
	f->priv = priv;
	ret = qpe_parse(f->params, &priv->p, f->err, sizeof(f->err));
	if (ret)
		qpe_cleanup(f);
	return ret;
}

static int qpe_prepare(struct inj_fault *f)
{
	struct qpe_priv *priv;
	int ret;

	ret = qpe_alloc(f);
	if (ret)
		return ret;
	priv = f->priv;
	ret = priv->p.mech == QPE_SHIM ? qpe_shim_prepare(f) : qpe_transport_prepare(f);
	if (ret)
		qpe_cleanup(f);
	return ret;
}

static int qpe_inject(struct inj_fault *f)
{
	struct qpe_priv *priv = f->priv;

	return priv->p.mech == QPE_SHIM ? qpe_shim_inject(f) : qpe_transport_inject(f);
}

static int qpe_revert(struct inj_fault *f)
{
	struct qpe_priv *priv = f->priv;

	if (!priv)
		return 0; /* nothing was prepared, nothing changed */
	return priv->p.mech == QPE_SHIM ? qpe_shim_revert(f) : qpe_transport_revert(f);
}

static int qpe_verify(struct inj_fault *f)
{
	struct qpe_priv *priv = f->priv;

	if (!priv)
		return 0;
	return priv->p.mech == QPE_SHIM ? qpe_shim_verify(f) : qpe_transport_verify(f);
}

static json_t *qpe_describe_prior(const struct inj_fault *f)
{
	const struct qpe_priv *priv = f->priv;

	if (!priv)
		return json_object();
	if (priv->p.mech == QPE_SHIM)
		return json_pack("{s:s, s:s, s:i, s:O?, s:O?, s:s}", "mechanism", "shim",
				 "workload", priv->workload, "pid", priv->pid, "qps", priv->before,
				 "moved", priv->moved, "note", qpe_shim_note);
	return json_pack("{s:s, s:s, s:b, s:b, s:i, s:s}", "mechanism", "transport", "netdev",
			 priv->netdev, "ingress_qdisc_existed", priv->qdisc_existed,
			 "ingress_qdisc_added", priv->created_qdisc, "filter_prio", QPE_PRIO,
			 "note", qpe_transport_note);
}

static json_t *qpe_snapshot(const struct inj_fault *f)
{
	const struct qpe_priv *priv = f->priv;

	if (!priv)
		return NULL;
	if (priv->p.mech == QPE_SHIM)
		return json_pack("{s:s, s:s, s:i, s:s}", "mechanism", "shim", "sock", priv->sock,
				 "pid", priv->pid, "workload", priv->workload);
	return json_pack("{s:s, s:s, s:i, s:b}", "mechanism", "transport", "netdev", priv->netdev,
			 "ifindex", priv->ifindex, "qdisc_existed", priv->qdisc_existed);
}

static int qpe_restore(struct inj_fault *f, const json_t *snap)
{
	struct qpe_priv *priv;
	const char *mech = json_string_value(json_object_get(snap, "mechanism"));
	const char *s, *nd;
	const json_t *v;
	int ret;

	ret = qpe_alloc(f);
	if (ret)
		return ret;
	priv = f->priv;
	if (!mech || strcmp(mech, priv->p.mech == QPE_SHIM ? "shim" : "transport")) {
		qpe_cleanup(f);
		return inj_fail(f, -EINVAL,
				"qp_error: snapshot: \"mechanism\" missing or not the "
				"params' mechanism");
	}
	if (priv->p.mech == QPE_SHIM) {
		s = json_string_value(json_object_get(snap, "sock"));
		v = json_object_get(snap, "pid");
		if (!s || !*s || strlen(s) >= sizeof(priv->sock) || !json_is_integer(v)) {
			qpe_cleanup(f);
			return inj_fail(
			    f, -EINVAL,
			    "qp_error: snapshot: \"sock\" or \"pid\" missing or invalid");
		}
		if (strcmp(s, f->target.shim_sock)) {
			qpe_cleanup(f);
			return inj_fail(f, -EPERM,
					"qp_error: snapshot: the socket %s is not its target's "
					"shim (%s): refused",
					s, f->target.shim_sock[0] ? f->target.shim_sock : "none");
		}
		snprintf(priv->sock, sizeof(priv->sock), "%s", s);
		priv->pid = (int)json_integer_value(v);
		s = json_string_value(json_object_get(snap, "workload"));
		snprintf(priv->workload, sizeof(priv->workload), "%s", s ? s : "?");
		return 0;
	}
	nd = json_string_value(json_object_get(snap, "netdev"));
	v = json_object_get(snap, "qdisc_existed");
	if (!nd || !*nd || strlen(nd) >= sizeof(priv->netdev) || !json_is_boolean(v)) {
		qpe_cleanup(f);
		return inj_fail(
		    f, -EINVAL,
		    "qp_error: snapshot: \"netdev\" or \"qdisc_existed\" missing or invalid");
	}
	/* Only its target, which the agent checked and resolved: never a netdev it names alone. */
	if (strcmp(nd, f->target.netdev)) {
		qpe_cleanup(f);
		return inj_fail(f, -EPERM,
				"qp_error: snapshot: netdev %s is not its target's (%s): refused",
				nd, f->target.netdev[0] ? f->target.netdev : "none");
	}
	snprintf(priv->netdev, sizeof(priv->netdev), "%s", nd);
	priv->qdisc_existed = json_is_true(v);
	/* The dead agent may have added it: revert removes it unless other filters use it. */
	priv->created_qdisc = !priv->qdisc_existed;
	priv->ifindex = f->target.ifindex; /* 0 when gone: revert says so */
	return 0;
}

/* A QP stays in error after the revert: the reconnect ends the impact, not the revert. */
static uint64_t qpe_outage_ms(const json_t *params, uint64_t duration_ms, const char **key)
{
	*key = NULL;
	return 0;
}

const struct injector inj_qp_error = {
    .name = "qp_error",
    .summary = "move RC QPs to error: through the workload's verbs shim, or by dropping RoCE on "
	       "a netdev (Soft-RoCE)",
    .param_help = qpe_help,
    .validate = qpe_validate,
    .outage_ms = qpe_outage_ms,
    .prepare = qpe_prepare,
    .inject = qpe_inject,
    .tick = qpe_tick,
    .revert = qpe_revert,
    .verify = qpe_verify,
    .describe_prior = qpe_describe_prior,
    .snapshot = qpe_snapshot,
    .restore = qpe_restore,
    .cleanup = qpe_cleanup,
};
