/* SPDX-License-Identifier: MIT */
/*
 * The QPs of RDMA devices as the kernel sees them, through RDMA netlink
 * (NETLINK_RDMA, RDMA_NLDEV_CMD_RES_QP_GET dumps: the data `rdma res show qp`
 * prints). This is how an injector verifies a QP's state from outside the
 * process that owns it. Each call opens its own short-lived socket.
 */
#ifndef INJ_RDMA_NL_H
#define INJ_RDMA_NL_H

#include <stddef.h>
#include <stdint.h>

struct inj_rdma_qp {
	char device[64];
	uint32_t dev_index;
	uint32_t port; /* 0 when the QP is not bound to a port yet */
	uint32_t lqpn;
	uint32_t rqpn; /* 0 when the kernel does not say (not connected, UD) */
	int state;     /* IB_QPS_*, numbered as enum ibv_qp_state: shim_qp_state_name() */
	int type;      /* IB_QPT_*: 2 RC, 3 UC, 4 UD, ... */
	int pid;       /* owning process; 0 for a kernel QP */
};

/*
 * inj_rdma_nl_qps() - the QPs of @device ("" or NULL: of every device).
 * *@qps is malloc()ed (free() it; NULL when there are none) and *@n set.
 * Returns 0, or -errno with a sentence in @err: -EPROTONOSUPPORT when the
 * kernel has no RDMA netlink, -ENODEV when @device does not exist.
 */
int inj_rdma_nl_qps(const char *device, struct inj_rdma_qp **qps, size_t *n, char *err,
		    size_t errlen);

#endif
