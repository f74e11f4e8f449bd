// SPDX-License-Identifier: MIT
/*
 * QP state from outside the process, through RDMA netlink with libnl: a
 * RDMA_NLDEV_CMD_GET dump names the devices, then one
 * RDMA_NLDEV_CMD_RES_QP_GET dump per device (the kernel wants the device
 * index for a resource dump) lists its QPs. RDMA netlink has no family
 * header: attributes follow the nlmsghdr directly.
 */
#include <errno.h>
#include <linux/netlink.h>
#include <netlink/attr.h>
#include <netlink/errno.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>
#include <rdma/rdma_netlink.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "injectors/inj_rdma_nl.h"
#include "injectors/inj_util.h"

#define RNL_MAXATTR (RDMA_NLDEV_ATTR_MAX - 1)
#define RNL_MAX_DEVS 64

/* Lengths are checked before any nla_get_*: a short attribute is ignored, not read past. */
static struct nla_policy rnl_policy[RDMA_NLDEV_ATTR_MAX] = {
    [RDMA_NLDEV_ATTR_DEV_INDEX] = {.type = NLA_U32},
    [RDMA_NLDEV_ATTR_DEV_NAME] = {.type = NLA_STRING},
    [RDMA_NLDEV_ATTR_PORT_INDEX] = {.type = NLA_U32},
    [RDMA_NLDEV_ATTR_RES_QP] = {.type = NLA_NESTED},
    [RDMA_NLDEV_ATTR_RES_QP_ENTRY] = {.type = NLA_NESTED},
    [RDMA_NLDEV_ATTR_RES_LQPN] = {.type = NLA_U32},
    [RDMA_NLDEV_ATTR_RES_RQPN] = {.type = NLA_U32},
    [RDMA_NLDEV_ATTR_RES_TYPE] = {.type = NLA_U8},
    [RDMA_NLDEV_ATTR_RES_STATE] = {.type = NLA_U8},
    [RDMA_NLDEV_ATTR_RES_PID] = {.type = NLA_U32},
};

struct rnl_dev {
	uint32_t index;
	char name[64];
};

struct rnl_ctx {
	struct rnl_dev devs[RNL_MAX_DEVS];
	size_t ndevs;
	struct inj_rdma_qp *qps;
	size_t nqps, cap;
	int err; /* -ENOMEM from a callback */
};

static int rnl_dev_cb(struct nl_msg *msg, void *arg)
{
	struct rnl_ctx *c = arg;
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	struct rnl_dev *d;

	if (nlmsg_parse(nlmsg_hdr(msg), 0, tb, RNL_MAXATTR, rnl_policy) < 0)
		return NL_SKIP;
	if (!tb[RDMA_NLDEV_ATTR_DEV_INDEX] || !tb[RDMA_NLDEV_ATTR_DEV_NAME] ||
	    c->ndevs >= RNL_MAX_DEVS)
		return NL_SKIP;
	d = &c->devs[c->ndevs++];
	d->index = nla_get_u32(tb[RDMA_NLDEV_ATTR_DEV_INDEX]);
	snprintf(d->name, sizeof(d->name), "%s", nla_get_string(tb[RDMA_NLDEV_ATTR_DEV_NAME]));
	return NL_OK;
}

static int rnl_qp_add(struct rnl_ctx *c, struct nlattr *entry, const char *dev, uint32_t dev_index)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	struct inj_rdma_qp *q, *grown;

	if (nla_parse_nested(tb, RNL_MAXATTR, entry, rnl_policy) < 0 ||
	    !tb[RDMA_NLDEV_ATTR_RES_LQPN])
		return 0;
	if (c->nqps == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 16;
		grown = realloc(c->qps, c->cap * sizeof(*c->qps));
		if (!grown)
			return -ENOMEM;
		c->qps = grown;
	}
	q = &c->qps[c->nqps++];
	memset(q, 0, sizeof(*q));
	snprintf(q->device, sizeof(q->device), "%s", dev);
	q->dev_index = dev_index;
	q->lqpn = nla_get_u32(tb[RDMA_NLDEV_ATTR_RES_LQPN]);
	q->state = -1;
	q->type = -1;
	if (tb[RDMA_NLDEV_ATTR_PORT_INDEX])
		q->port = nla_get_u32(tb[RDMA_NLDEV_ATTR_PORT_INDEX]);
	if (tb[RDMA_NLDEV_ATTR_RES_RQPN])
		q->rqpn = nla_get_u32(tb[RDMA_NLDEV_ATTR_RES_RQPN]);
	if (tb[RDMA_NLDEV_ATTR_RES_STATE])
		q->state = nla_get_u8(tb[RDMA_NLDEV_ATTR_RES_STATE]);
	if (tb[RDMA_NLDEV_ATTR_RES_TYPE])
		q->type = nla_get_u8(tb[RDMA_NLDEV_ATTR_RES_TYPE]);
	if (tb[RDMA_NLDEV_ATTR_RES_PID])
		q->pid = (int)nla_get_u32(tb[RDMA_NLDEV_ATTR_RES_PID]);
	return 0;
}

static int rnl_qp_cb(struct nl_msg *msg, void *arg)
{
	struct rnl_ctx *c = arg;
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX], *e;
	const char *dev = "";
	uint32_t idx = 0;
	int rem;

	if (nlmsg_parse(nlmsg_hdr(msg), 0, tb, RNL_MAXATTR, rnl_policy) < 0 ||
	    !tb[RDMA_NLDEV_ATTR_RES_QP])
		return NL_SKIP;
	if (tb[RDMA_NLDEV_ATTR_DEV_NAME])
		dev = nla_get_string(tb[RDMA_NLDEV_ATTR_DEV_NAME]);
	if (tb[RDMA_NLDEV_ATTR_DEV_INDEX])
		idx = nla_get_u32(tb[RDMA_NLDEV_ATTR_DEV_INDEX]);
	nla_for_each_nested(e, tb[RDMA_NLDEV_ATTR_RES_QP], rem)
	{
		if (nla_type(e) != RDMA_NLDEV_ATTR_RES_QP_ENTRY)
			continue;
		if (rnl_qp_add(c, e, dev, idx)) {
			c->err = -ENOMEM;
			return NL_STOP;
		}
	}
	return NL_OK;
}

/* One dump request (@dev_index < 0: none), answered through @cb. */
static int rnl_dump(struct nl_sock *sk, int cmd, long long dev_index, nl_recvmsg_msg_cb_t cb,
		    struct rnl_ctx *c, const char *what, char *err, size_t errlen)
{
	struct nl_msg *msg;
	int ret;

	msg = nlmsg_alloc_simple(RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, cmd), NLM_F_DUMP);
	if (!msg) {
		snprintf(err, errlen, "RDMA netlink: %s: out of memory", what);
		return -ENOMEM;
	}
	ret = dev_index >= 0 ? nla_put_u32(msg, RDMA_NLDEV_ATTR_DEV_INDEX, (uint32_t)dev_index) : 0;
	if (!ret)
		ret = nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, cb, c);
	if (!ret)
		ret = nl_send_auto(sk, msg);
	nlmsg_free(msg);
	if (ret >= 0)
		ret = nl_recvmsgs_default(sk);
	if (ret < 0) {
		snprintf(err, errlen, "RDMA netlink: %s: %s", what, nl_geterror(ret));
		return inj_nl_errno(ret);
	}
	if (c->err) {
		snprintf(err, errlen, "RDMA netlink: %s: out of memory", what);
		return c->err;
	}
	return 0;
}

int inj_rdma_nl_qps(const char *device, struct inj_rdma_qp **qps, size_t *n, char *err,
		    size_t errlen)
{
	struct rnl_ctx *c;
	struct nl_sock *sk;
	char what[128];
	size_t i;
	bool found = false;
	int ret;

	*qps = NULL;
	*n = 0;
	c = calloc(1, sizeof(*c));
	sk = nl_socket_alloc();
	if (!c || !sk) {
		snprintf(err, errlen, "RDMA netlink: out of memory");
		ret = -ENOMEM;
		goto out;
	}
	ret = nl_connect(sk, NETLINK_RDMA);
	if (ret < 0) {
		snprintf(err, errlen, "RDMA netlink: connect: %s%s", nl_geterror(ret),
			 inj_nl_errno(ret) == -EPROTONOSUPPORT
			     ? " (this kernel has no RDMA netlink: no RDMA support loaded)"
			     : "");
		ret = inj_nl_errno(ret);
		goto out;
	}
	ret = rnl_dump(sk, RDMA_NLDEV_CMD_GET, -1, rnl_dev_cb, c, "device dump", err, errlen);
	if (ret)
		goto out;
	for (i = 0; i < c->ndevs; i++) {
		if (device && *device && strcmp(device, c->devs[i].name))
			continue;
		found = true;
		snprintf(what, sizeof(what), "%s: QP dump", c->devs[i].name);
		ret = rnl_dump(sk, RDMA_NLDEV_CMD_RES_QP_GET, c->devs[i].index, rnl_qp_cb, c, what,
			       err, errlen);
		if (ret)
			goto out;
	}
	if (device && *device && !found) {
		snprintf(err, errlen, "RDMA netlink: no RDMA device %s on this node", device);
		ret = -ENODEV;
		goto out;
	}
	*qps = c->qps;
	*n = c->nqps;
	c->qps = NULL;
	ret = 0;
out:
	if (c)
		free(c->qps);
	free(c);
	nl_socket_free(sk);
	return ret;
}
