/* SPDX-License-Identifier: MIT */
/*
 * Which netdevs the agent may fault. Two rules, checked in this order before
 * any injector touches anything:
 *   1. never a control interface: the one named by --control-if, nor any
 *      interface that has carried a coordinator connection (sticky for the
 *      agent's lifetime, so a reconnect over another path cannot unlock it);
 *   2. only interfaces on the --allow-if list (empty list: nothing allowed).
 * Pure data and string compares, so it is unit-tested without a host.
 */
#ifndef AGENT_POLICY_H
#define AGENT_POLICY_H

#include <net/if.h>
#include <stddef.h>

#define AGENT_MAX_IFS 64

struct agent_policy {
	char allow[AGENT_MAX_IFS][IF_NAMESIZE];
	unsigned int nr_allow;
	char control_if[IF_NAMESIZE]; /* --control-if, "" if none */
	char carriers[AGENT_MAX_IFS][IF_NAMESIZE];
	unsigned int nr_carriers;
};

/* Records an interface that carries a coordinator connection. -ENOSPC when the table is full. */
int agent_policy_add_carrier(struct agent_policy *p, const char *ifname);

/*
 * 0 when `who` (an injector name, for the message) may fault netdev, else
 * -EPERM and a sentence in err such as
 * "link_down: eth0: refused: carries the agent's control connection".
 */
int agent_policy_check(const struct agent_policy *p, const char *who, const char *netdev, char *err,
		       size_t errlen);

#endif
