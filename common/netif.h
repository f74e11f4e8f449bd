/* SPDX-License-Identifier: MIT */
/*
 * if_nametoindex(3) and if_indextoname(3) over one socket kept for the process: glibc opens and
 * closes a socket for each call, and an agent's inject made several (issue 17's fan-out).
 */
#ifndef RC_NETIF_H
#define RC_NETIF_H

#include <net/if.h>

/*
 * As if_nametoindex(3): the index, or 0 with errno set. The socket answers for the network
 * namespace the process was in at its first call (agents never change theirs).
 */
unsigned int rc_if_nametoindex(const char *name);
/* As if_indextoname(3): name (IF_NAMESIZE bytes), or NULL with errno set (ENXIO: no such link). */
char *rc_if_indextoname(unsigned int ifindex, char *name);
/* Opens the socket now, so that a first call pays nothing more than the next. */
void rc_netif_warm(void);

#endif
