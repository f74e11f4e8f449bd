// SPDX-License-Identifier: MIT
/*
 * qp_error's shim mechanism: commands the workload's preloaded verbs shim
 * (common/shim_proto.h) to move QPs to ERR or to fail the next completions,
 * and reports the QPs it moved as RDMA netlink sees them.
 */
#include <errno.h>
#include <infiniband/verbs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/units.h"
#include "injectors/inj_rdma_nl.h"
#include "injectors/inj_util.h"
#include "injectors/qp_error.h"

#define QPE_SHIM_TIMEOUT_MS 1000
#define QPE_SETTLE_MS 1000 /* how long inject waits for moved QPs to show ERR */

static const char qpe_shim_note[] =
    "acts inside the workload through its preloaded verbs shim, on any provider; a QP moved to "
    "ERR stays there (the workload recovers with new QPs)";

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

static json_t *qpe_shim_describe_prior(const struct qpe_priv *priv)
{
	return json_pack("{s:s, s:s, s:i, s:O?, s:O?, s:s}", "mechanism", "shim", "workload",
			 priv->workload, "pid", priv->pid, "qps", priv->before, "moved",
			 priv->moved, "note", qpe_shim_note);
}

static json_t *qpe_shim_snapshot(const struct qpe_priv *priv)
{
	return json_pack("{s:s, s:s, s:i, s:s}", "mechanism", "shim", "sock", priv->sock, "pid",
			 priv->pid, "workload", priv->workload);
}

static int qpe_shim_restore(struct inj_fault *f, const json_t *snap)
{
	struct qpe_priv *priv = f->priv;
	const json_t *v;
	const char *s;

	s = json_string_value(json_object_get(snap, "sock"));
	v = json_object_get(snap, "pid");
	if (!s || !*s || strlen(s) >= sizeof(priv->sock) || !json_is_integer(v)) {
		return inj_fail(f, -EINVAL,
				"qp_error: snapshot: \"sock\" or \"pid\" missing or invalid");
	}
	if (strcmp(s, f->target.shim_sock)) {
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

const struct qpe_mech_ops qpe_shim_ops = {
    .name = "shim",
    .watch_ends_on_err = true, /* the QPs it moved reached ERR: nothing more to see */
    .prepare = qpe_shim_prepare,
    .inject = qpe_shim_inject,
    .revert = qpe_shim_revert,
    .verify = qpe_shim_verify,
    .describe_prior = qpe_shim_describe_prior,
    .snapshot = qpe_shim_snapshot,
    .restore = qpe_shim_restore,
};
