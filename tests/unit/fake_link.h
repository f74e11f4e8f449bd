/* SPDX-License-Identifier: MIT */
/*
 * A fake kernel with one netdev, for unit tests of what gets and sets a link's IFF_UP through
 * libnl-route (injectors/inj_link.c): list nl_connect, rtnl_link_get_kernel and
 * rtnl_link_change in the test's .wrap file and fake_link in its .fixtures file. The test sets
 * fk (its ifindex, its state) and reads back what happened (changes, gets, connects).
 */
#ifndef TEST_FAKE_LINK_H
#define TEST_FAKE_LINK_H

#include <stdbool.h>

struct fake_link {
	int ifindex;
	bool up;
	bool gone;	  /* RTM_GETLINK finds nothing */
	bool strict;	  /* asking for another ifindex fails the test (else: not found) */
	const char *name; /* the netdev's name in answers, NULL: none */
	int change_err;	  /* what RTM_NEWLINK answers (a -NLE_*), 0: success */
	int changes;	  /* RTM_NEWLINK calls that took effect */
	int gets;	  /* RTM_GETLINK calls */
	int connects;	  /* nl_connect calls: netlink sockets opened */
};

extern struct fake_link fk;

#endif
