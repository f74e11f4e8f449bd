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
 *
 * This file reads the params, picks the mechanism's ops once (qpe_alloc),
 * watches the QPs and dispatches; each mechanism is in its own file
 * (qp_error_shim.c, qp_error_transport.c, sharing injectors/qp_error.h).
 */
#include <errno.h>
#include <infiniband/verbs.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/shim_proto.h"
#include "common/units.h"
#include "injectors/inj_rdma_nl.h"
#include "injectors/inj_util.h"
#include "injectors/qp_error.h"

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
void qpe_emit(struct inj_fault *f, uint32_t qpn, const char *state, int pid, const char *device,
	      const char *source, const char *key, const char *val)
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
	if (priv->p.has_qpn && q->lqpn != priv->p.qpn) /* only transport reads a qpn */
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

void qpe_watch_start(struct inj_fault *f)
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
	if (ret < 0 || (ret > 0 && priv->ops->watch_ends_on_err)) {
		/* Netlink went away, or the one "next" QP was seen in ERR: done. */
		priv->watch = false;
		f->next_tick_ns = 0;
		return 0;
	}
	f->next_tick_ns = now_ns + QPE_TICK_MS * RC_NSEC_PER_MSEC;
	return 0;
}

void qpe_report_now(struct inj_fault *f, const json_t *shim_reply)
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
	if (ret) {
		qpe_cleanup(f);
		return ret;
	}
	priv->ops = priv->p.mech == QPE_SHIM ? &qpe_shim_ops : &qpe_transport_ops;
	return 0;
}

static int qpe_prepare(struct inj_fault *f)
{
	struct qpe_priv *priv;
	int ret;

	ret = qpe_alloc(f);
	if (ret)
		return ret;
	priv = f->priv;
	ret = priv->ops->prepare(f);
	if (ret)
		qpe_cleanup(f);
	return ret;
}

static int qpe_inject(struct inj_fault *f)
{
	struct qpe_priv *priv = f->priv;

	return priv->ops->inject(f);
}

static int qpe_revert(struct inj_fault *f)
{
	struct qpe_priv *priv = f->priv;

	if (!priv)
		return 0; /* nothing was prepared, nothing changed */
	return priv->ops->revert(f);
}

static int qpe_verify(struct inj_fault *f)
{
	struct qpe_priv *priv = f->priv;

	if (!priv)
		return 0;
	return priv->ops->verify(f);
}

static json_t *qpe_describe_prior(const struct inj_fault *f)
{
	const struct qpe_priv *priv = f->priv;

	return priv ? priv->ops->describe_prior(priv) : json_object();
}

static json_t *qpe_snapshot(const struct inj_fault *f)
{
	const struct qpe_priv *priv = f->priv;

	return priv ? priv->ops->snapshot(priv) : NULL;
}

static int qpe_restore(struct inj_fault *f, const json_t *snap)
{
	const char *mech = json_string_value(json_object_get(snap, "mechanism"));
	struct qpe_priv *priv;
	int ret;

	ret = qpe_alloc(f);
	if (ret)
		return ret;
	priv = f->priv;
	if (!mech || strcmp(mech, priv->ops->name)) {
		qpe_cleanup(f);
		return inj_fail(f, -EINVAL,
				"qp_error: snapshot: \"mechanism\" missing or not the "
				"params' mechanism");
	}
	ret = priv->ops->restore(f, snap);
	if (ret)
		qpe_cleanup(f);
	return ret;
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
