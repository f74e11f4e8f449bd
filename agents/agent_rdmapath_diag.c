// SPDX-License-Identifier: MIT
/*
 * The sock_diag dump behind agent_rp_tcp() (agents/agent_rdmapath.h): every
 * TCP socket of this network namespace but the listening ones, with the byte
 * counts of its tcp_info, through NETLINK_SOCK_DIAG with libnl (one
 * inet_diag_req_v2 dump for AF_INET, one for AF_INET6). In a file of its own
 * so that tests replace it (-Wl,--wrap=agent_rp_diag_dump) and check the
 * matching against a table. What the kernel sends is checked before it is
 * read: a short message or attribute is skipped, not read past.
 */
#include <errno.h>
#include <linux/inet_diag.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <netlink/attr.h>
#include <netlink/errno.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "agents/agent_rdmapath.h"
#include "injectors/inj_util.h"

/*
 * Where the kernel's struct tcp_info (linux/tcp.h) has tcpi_bytes_acked and
 * tcpi_bytes_received. glibc's struct tcp_info, which libnl's headers pull in
 * and which clashes with the kernel's, ends before them; the kernel only
 * appends to it, so the offsets hold, anchored on the end of glibc's copy
 * (tcpi_total_retrans, then tcpi_pacing_rate and tcpi_max_pacing_rate).
 */
#define AGENT_RP_TCPI_BYTES_ACKED 120
#define AGENT_RP_TCPI_BYTES_RECEIVED 128
_Static_assert(offsetof(struct tcp_info, tcpi_total_retrans) == 100 &&
		   sizeof(struct tcp_info) == 104,
	       "struct tcp_info: glibc's layout moved, check AGENT_RP_TCPI_BYTES_*");

struct agent_rp_dump {
	bool (*keep)(const struct agent_rp_diag *d, void *arg);
	void *arg;
	struct agent_rp_diag *d;
	size_t n, cap;
	int err; /* -ENOMEM or -E2BIG from the callback */
};

/* One end of a socket from inet_diag's sockid: port and address in network order. */
static void agent_rp_ep_set(struct agent_rp_ep *ep, int family, __be16 port, const __be32 *addr)
{
	ep->family = family;
	ep->port = ntohs(port);
	memcpy(ep->addr, addr, family == AF_INET ? 4 : 16);
}

static int agent_rp_diag_cb(struct nl_msg *msg, void *arg)
{
	struct agent_rp_dump *c = arg;
	struct nlmsghdr *h = nlmsg_hdr(msg);
	struct nlattr *tb[INET_DIAG_MAX + 1];
	const struct inet_diag_msg *m;
	struct agent_rp_diag d, *grown;
	const unsigned char *info;
	size_t len;

	if (h->nlmsg_type != SOCK_DIAG_BY_FAMILY || !nlmsg_valid_hdr(h, sizeof(*m)) ||
	    nlmsg_parse(h, sizeof(*m), tb, INET_DIAG_MAX, NULL) < 0)
		return NL_SKIP;
	m = nlmsg_data(h);
	if (m->idiag_family != AF_INET && m->idiag_family != AF_INET6)
		return NL_SKIP;
	memset(&d, 0, sizeof(d));
	d.inode = m->idiag_inode;
	agent_rp_ep_set(&d.local, m->idiag_family, m->id.idiag_sport, m->id.idiag_src);
	agent_rp_ep_set(&d.remote, m->idiag_family, m->id.idiag_dport, m->id.idiag_dst);
	if (tb[INET_DIAG_INFO] && nla_len(tb[INET_DIAG_INFO]) > 0) {
		/* An older kernel's tcp_info is shorter: what it lacks stays 0. */
		info = nla_data(tb[INET_DIAG_INFO]);
		len = (size_t)nla_len(tb[INET_DIAG_INFO]);
		if (len >= AGENT_RP_TCPI_BYTES_ACKED + sizeof(d.bytes_acked))
			memcpy(&d.bytes_acked, info + AGENT_RP_TCPI_BYTES_ACKED,
			       sizeof(d.bytes_acked));
		if (len >= AGENT_RP_TCPI_BYTES_RECEIVED + sizeof(d.bytes_received))
			memcpy(&d.bytes_received, info + AGENT_RP_TCPI_BYTES_RECEIVED,
			       sizeof(d.bytes_received));
	}
	if (!c->keep(&d, c->arg))
		return NL_OK;
	if (c->n == AGENT_RP_MAX_SOCKS) {
		c->err = -E2BIG;
		return NL_STOP;
	}
	if (c->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 16;
		grown = realloc(c->d, c->cap * sizeof(*grown));
		if (!grown) {
			c->err = -ENOMEM;
			return NL_STOP;
		}
		c->d = grown;
	}
	c->d[c->n++] = d;
	return NL_OK;
}

/* One family's dump, answered through agent_rp_diag_cb. */
static int agent_rp_diag_family(struct nl_sock *sk, int family, struct agent_rp_dump *c, char *err,
				size_t errlen)
{
	struct inet_diag_req_v2 req = {
	    .sdiag_family = (__u8)family,
	    .sdiag_protocol = IPPROTO_TCP,
	    .idiag_ext = 1 << (INET_DIAG_INFO - 1),
	    .idiag_states = ~(1U << TCP_LISTEN),
	};
	const char *what = family == AF_INET ? "IPv4" : "IPv6";
	int ret;

	ret = nl_send_simple(sk, SOCK_DIAG_BY_FAMILY, NLM_F_DUMP, &req, sizeof(req));
	if (ret >= 0)
		ret = nl_recvmsgs_default(sk);
	if (ret < 0) {
		snprintf(err, errlen, "sock_diag: TCP %s dump: %s", what, nl_geterror(ret));
		return inj_nl_errno(ret);
	}
	if (c->err == -E2BIG)
		snprintf(err, errlen, "sock_diag: more than %d of the job's TCP sockets",
			 AGENT_RP_MAX_SOCKS);
	else if (c->err)
		snprintf(err, errlen, "sock_diag: TCP %s dump: out of memory", what);
	return c->err;
}

int agent_rp_diag_dump(bool (*keep)(const struct agent_rp_diag *d, void *arg), void *arg,
		       struct agent_rp_diag **out, size_t *n, char *err, size_t errlen)
{
	struct agent_rp_dump c = {.keep = keep, .arg = arg};
	struct nl_sock *sk;
	int ret;

	*out = NULL;
	*n = 0;
	sk = nl_socket_alloc();
	if (!sk) {
		snprintf(err, errlen, "sock_diag: out of memory");
		return -ENOMEM;
	}
	ret = nl_connect(sk, NETLINK_SOCK_DIAG);
	if (ret < 0) {
		snprintf(err, errlen, "sock_diag: connect: %s", nl_geterror(ret));
		ret = inj_nl_errno(ret);
		goto out;
	}
	ret = nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, agent_rp_diag_cb, &c);
	if (ret < 0) {
		snprintf(err, errlen, "sock_diag: callback: %s", nl_geterror(ret));
		ret = inj_nl_errno(ret);
		goto out;
	}
	ret = agent_rp_diag_family(sk, AF_INET, &c, err, errlen);
	if (!ret)
		ret = agent_rp_diag_family(sk, AF_INET6, &c, err, errlen);
	if (ret)
		goto out;
	*out = c.d;
	*n = c.n;
	c.d = NULL;
out:
	free(c.d);
	nl_socket_free(sk);
	return ret;
}
