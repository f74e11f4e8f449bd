// SPDX-License-Identifier: MIT
/*
 * Get, set, restore and verify a netdev's IFF_UP with libnl-route, and its
 * journaled snapshot; shared by link injectors.
 */
#include <errno.h>
#include <net/if.h>
#include <netlink/errno.h>
#include <netlink/netlink.h>
#include <netlink/route/link.h>
#include <netlink/socket.h>

#include "common/errbuf.h"
#include "injectors/inj_link.h"
#include "injectors/inj_util.h"

static int inj_link_fail(struct inj_fault *f, const char *what, int nlerr)
{
	int err = inj_nl_errno(nlerr);

	return inj_fail(f, err, "%s: %s: %s: %s%s", f->inj->name, f->target.netdev, what,
			nl_geterror(nlerr),
			err == -EPERM	 ? " (need CAP_NET_ADMIN)"
			: err == -ENODEV ? " (deleted or renamed since the fault was prepared?)"
					 : "");
}

/*
 * One NETLINK_ROUTE socket for every link request of the process, opened on first use. The
 * agent runs injectors from its one loop, so requests never overlap (not thread-safe). Closed
 * after any error, so that a reply left unread can never answer a later request. A socket per
 * step cost five sockets per link_down inject and revert, each socket(), setsockopt() twice,
 * bind(), getsockname() and close(): ~120 system calls a pair became ~88 (strace -c, issue 17).
 */
static struct nl_sock *inj_rtnl;

/* The socket of inj_rtnl, opened if need be: 0 or a libnl error (negative), *what saying where. */
static int inj_link_sock(struct nl_sock **sk, const char **what)
{
	int ret;

	*sk = inj_rtnl;
	if (inj_rtnl)
		return 0;
	*what = "netlink socket";
	*sk = nl_socket_alloc();
	if (!*sk)
		return -NLE_NOMEM;
	*what = "netlink connect";
	ret = nl_connect(*sk, NETLINK_ROUTE);
	if (ret < 0) {
		nl_socket_free(*sk);
		*sk = NULL;
		return ret;
	}
	inj_rtnl = *sk;
	return 0;
}

static int inj_link_open(struct inj_fault *f, struct nl_sock **sk)
{
	const char *what = "";
	int ret = inj_link_sock(sk, &what);

	return ret ? inj_link_fail(f, what, ret) : 0;
}

/* After a request on sk that returned ret: a failed one closes the socket (see inj_rtnl). */
static void inj_link_done(struct nl_sock *sk, int ret)
{
	if (ret && sk == inj_rtnl) {
		nl_socket_free(inj_rtnl);
		inj_rtnl = NULL;
	}
}

static int inj_link_fetch(struct inj_fault *f, struct nl_sock *sk, struct rtnl_link **link)
{
	const struct inj_target *t = &f->target;
	int ret = rtnl_link_get_kernel(sk, t->ifindex, t->ifindex > 0 ? NULL : t->netdev, link);

	return ret < 0 ? inj_link_fail(f, "RTM_GETLINK", ret) : 0;
}

int inj_link_get_up(struct inj_fault *f, bool *up)
{
	struct rtnl_link *link = NULL;
	struct nl_sock *sk;
	int ret;

	ret = inj_link_open(f, &sk);
	if (ret)
		return ret;
	ret = inj_link_fetch(f, sk, &link);
	if (!ret)
		*up = rtnl_link_get_flags(link) & IFF_UP;
	rtnl_link_put(link);
	inj_link_done(sk, ret);
	return ret;
}

/*
 * The socket, and one RTM_GETLINK of the loopback (ifindex 1 in every network namespace), so
 * that libnl's first request and parse are paid here: an agent's first inject cost 330-450 us
 * of its CPU against ~146 us for the next ones (issue 17), and in a fan-out every inject is an
 * agent's first.
 */
int inj_link_warm(char *err, size_t errlen)
{
	struct rtnl_link *link = NULL;
	const char *what = "";
	struct nl_sock *sk;
	int ret;

	ret = inj_link_sock(&sk, &what);
	if (!ret) {
		what = "RTM_GETLINK of the loopback";
		ret = rtnl_link_get_kernel(sk, 1, NULL, &link);
		rtnl_link_put(link);
		inj_link_done(sk, ret);
	}
	if (ret < 0)
		return errbuf_fail(err, errlen, inj_nl_errno(ret), "%s: %s", what,
				   nl_geterror(ret));
	return 0;
}

/*
 * The request names the link by ifindex alone: the kernel changes only the flags in
 * ifi_change, so the link's other state, which a fetch would bring (an RTM_GETLINK of 1.5 KB
 * and its parse, one of the three netlink requests an inject made), is not needed.
 */
int inj_link_set_up(struct inj_fault *f, bool up)
{
	struct rtnl_link *link = NULL, *change = NULL;
	struct nl_sock *sk;
	int ret;

	ret = inj_link_open(f, &sk);
	if (ret)
		return ret;
	if (f->target.ifindex > 0) {
		link = rtnl_link_alloc();
		if (link)
			rtnl_link_set_ifindex(link, f->target.ifindex);
	} else {
		ret = inj_link_fetch(f, sk, &link);
		if (ret)
			goto out;
	}
	change = link ? rtnl_link_alloc() : NULL;
	if (!change) {
		ret = inj_fail(f, -ENOMEM, "%s: %s: out of memory", f->inj->name, f->target.netdev);
		goto out;
	}
	if (up)
		rtnl_link_set_flags(change, IFF_UP);
	else
		rtnl_link_unset_flags(change, IFF_UP);
	ret = rtnl_link_change(sk, link, change, 0);
	if (ret < 0)
		ret = inj_link_fail(f, up ? "RTM_NEWLINK (set up)" : "RTM_NEWLINK (set down)", ret);
out:
	rtnl_link_put(change);
	rtnl_link_put(link);
	inj_link_done(sk, ret);
	return ret;
}

int inj_link_restore(struct inj_fault *f, bool want)
{
	const char *state = want ? "up" : "down";
	bool up;
	int ret;

	ret = inj_link_get_up(f, &up);
	if (ret)
		return ret;
	if (up == want) {
		inj_action(f, "%s: already %s (was %s)", f->target.netdev, state, state);
		return 0;
	}
	ret = inj_link_set_up(f, want);
	if (ret)
		return ret;
	inj_action(f, "%s: set %s (was %s)", f->target.netdev, state, state);
	return 0;
}

int inj_link_verify(struct inj_fault *f, bool want)
{
	bool up;
	int ret;

	ret = inj_link_get_up(f, &up);
	if (ret)
		return ret;
	if (up != want)
		return inj_fail(f, -EIO, "%s: %s: verify: link is %s, expected %s", f->inj->name,
				f->target.netdev, up ? "up" : "down", want ? "up" : "down");
	return 0;
}

json_t *inj_link_snapshot(bool up)
{
	return json_pack("{s:b}", "up", up);
}

int inj_link_snapshot_up(struct inj_fault *f, const json_t *snapshot, bool *up)
{
	const json_t *v = json_object_get(snapshot, "up");

	if (!json_is_boolean(v))
		return inj_fail(f, -EINVAL, "%s: %s: snapshot: \"up\" missing or not a boolean",
				f->inj->name, f->target.netdev);
	*up = json_is_true(v);
	return 0;
}
