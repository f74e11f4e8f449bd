// SPDX-License-Identifier: MIT
/* The one-netdev fake kernel of tests/unit/fake_link.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <net/if.h>
#include <cmocka.h>
#include <netlink/errno.h>
#include <netlink/netlink.h>
#include <netlink/route/link.h>

#include "tests/unit/fake_link.h"

struct fake_link fk;

int __wrap_nl_connect(struct nl_sock *sk, int protocol);
int __wrap_rtnl_link_get_kernel(struct nl_sock *sk, int ifindex, const char *name,
				struct rtnl_link **result);
int __wrap_rtnl_link_change(struct nl_sock *sk, struct rtnl_link *orig, struct rtnl_link *changes,
			    int flags);

int __wrap_nl_connect(struct nl_sock *sk, int protocol)
{
	fk.connects++;
	return 0;
}

int __wrap_rtnl_link_get_kernel(struct nl_sock *sk, int ifindex, const char *name,
				struct rtnl_link **result)
{
	struct rtnl_link *link;

	fk.gets++;
	/* The injectors look the netdev up by the ifindex the agent resolved. */
	if (fk.strict)
		assert_int_equal(ifindex, fk.ifindex);
	if (fk.gone || ifindex != fk.ifindex)
		return -NLE_OBJ_NOTFOUND; /* the fake kernel has no such netdev */
	link = rtnl_link_alloc();
	assert_non_null(link);
	rtnl_link_set_ifindex(link, ifindex);
	if (fk.name)
		rtnl_link_set_name(link, fk.name);
	if (fk.up)
		rtnl_link_set_flags(link, IFF_UP);
	*result = link;
	return 0;
}

int __wrap_rtnl_link_change(struct nl_sock *sk, struct rtnl_link *orig, struct rtnl_link *changes,
			    int flags)
{
	if (fk.strict)
		assert_int_equal(rtnl_link_get_ifindex(orig), fk.ifindex);
	/* as the kernel answers an RTM_NEWLINK for an ifindex it does not have (ENODEV) */
	if (fk.gone || rtnl_link_get_ifindex(orig) != fk.ifindex)
		return -NLE_OBJ_NOTFOUND;
	if (fk.change_err)
		return fk.change_err;
	/* Only IFF_UP is ever changed: set_flags or unset_flags of it alone. */
	fk.up = rtnl_link_get_flags(changes) & IFF_UP;
	fk.changes++;
	return 0;
}
