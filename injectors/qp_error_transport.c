// SPDX-License-Identifier: MIT
/*
 * qp_error's transport mechanism: an ingress qdisc and a u32 filter whose
 * gact action drops incoming RoCEv2 on the target netdev (libnl-route), so
 * that the senders' QPs exhaust their retries. Soft-RoCE only.
 */
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/pkt_cls.h>
#include <linux/pkt_sched.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netlink/cache.h>
#include <netlink/errno.h>
#include <netlink/netlink.h>
#include <netlink/route/act/gact.h>
#include <netlink/route/action.h>
#include <netlink/route/classifier.h>
#include <netlink/route/cls/u32.h>
#include <netlink/route/qdisc.h>
#include <netlink/route/tc.h>
#include <netlink/socket.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/netif.h"
#include "common/units.h"
#include "injectors/inj_util.h"
#include "injectors/qp_error.h"

#define QPE_PRIO 4791 /* our u32 filter's priority on ingress: the RoCEv2 port */
#define QPE_ROCE_PORT 4791
#define QPE_FILTER_PARENT TC_H_MAKE(TC_H_CLSACT, TC_H_MIN_INGRESS) /* ingress or clsact */

static const char qpe_transport_note[] =
    "works on Soft-RoCE (packets pass through the kernel); offloaded hardware RoCE bypasses tc, "
    "so this mechanism does nothing there";

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
	    f->target.ifindex > 0 ? f->target.ifindex : (int)rc_if_nametoindex(f->target.netdev);
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

/* Our u32 filter on the target's ingress, without its match: what add and delete both name. */
static struct rtnl_cls *qpe_cls_new(const struct qpe_priv *priv, int *ret)
{
	struct rtnl_cls *cls = rtnl_cls_alloc();

	if (!cls)
		return NULL;
	rtnl_tc_set_ifindex(TC_CAST(cls), priv->ifindex);
	rtnl_tc_set_parent(TC_CAST(cls), QPE_FILTER_PARENT);
	rtnl_cls_set_prio(cls, QPE_PRIO);
	rtnl_cls_set_protocol(cls, ETH_P_IP);
	*ret = rtnl_tc_set_kind(TC_CAST(cls), "u32");
	return cls;
}

static int qpe_add_filter(struct inj_fault *f, struct nl_sock *sk)
{
	struct qpe_priv *priv = f->priv;
	struct rtnl_act *act = NULL;
	struct rtnl_cls *cls;
	int ret;

	cls = qpe_cls_new(priv, &ret);
	act = rtnl_act_alloc();
	if (!cls || !act) {
		ret = inj_fail(f, -ENOMEM, "qp_error: %s: out of memory", priv->netdev);
		goto out;
	}
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
	cls = qpe_cls_new(priv, &ret);
	if (!cls) {
		ret = inj_fail(f, -ENOMEM, "qp_error: %s: out of memory", priv->netdev);
		goto out;
	}
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

static json_t *qpe_transport_describe_prior(const struct qpe_priv *priv)
{
	return json_pack("{s:s, s:s, s:b, s:b, s:i, s:s}", "mechanism", "transport", "netdev",
			 priv->netdev, "ingress_qdisc_existed", priv->qdisc_existed,
			 "ingress_qdisc_added", priv->created_qdisc, "filter_prio", QPE_PRIO,
			 "note", qpe_transport_note);
}

static json_t *qpe_transport_snapshot(const struct qpe_priv *priv)
{
	return json_pack("{s:s, s:s, s:i, s:b}", "mechanism", "transport", "netdev", priv->netdev,
			 "ifindex", priv->ifindex, "qdisc_existed", priv->qdisc_existed);
}

static int qpe_transport_restore(struct inj_fault *f, const json_t *snap)
{
	struct qpe_priv *priv = f->priv;
	const json_t *v;
	const char *nd;

	nd = json_string_value(json_object_get(snap, "netdev"));
	v = json_object_get(snap, "qdisc_existed");
	if (!nd || !*nd || strlen(nd) >= sizeof(priv->netdev) || !json_is_boolean(v)) {
		return inj_fail(
		    f, -EINVAL,
		    "qp_error: snapshot: \"netdev\" or \"qdisc_existed\" missing or invalid");
	}
	/* Only its target, which the agent checked and resolved: never a netdev it names alone. */
	if (strcmp(nd, f->target.netdev)) {
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

const struct qpe_mech_ops qpe_transport_ops = {
    .name = "transport",
    .prepare = qpe_transport_prepare,
    .inject = qpe_transport_inject,
    .revert = qpe_transport_revert,
    .verify = qpe_transport_verify,
    .describe_prior = qpe_transport_describe_prior,
    .snapshot = qpe_transport_snapshot,
    .restore = qpe_transport_restore,
};
