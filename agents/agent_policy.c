// SPDX-License-Identifier: MIT
/* The fault policy: control interfaces are never faulted, other netdevs only when allowed. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "agents/agent_policy.h"

static bool agent_policy_has(const char (*names)[IF_NAMESIZE], unsigned int nr, const char *name)
{
	unsigned int i;

	for (i = 0; i < nr; i++)
		if (!strcmp(names[i], name))
			return true;
	return false;
}

int agent_policy_add_carrier(struct agent_policy *p, const char *ifname)
{
	if (!ifname || !*ifname ||
	    agent_policy_has((const char(*)[IF_NAMESIZE])p->carriers, p->nr_carriers, ifname))
		return 0;
	if (p->nr_carriers == AGENT_MAX_IFS)
		return -ENOSPC;
	snprintf(p->carriers[p->nr_carriers++], IF_NAMESIZE, "%s", ifname);
	return 0;
}

int agent_policy_check(const struct agent_policy *p, const char *who, const char *netdev, char *err,
		       size_t errlen)
{
	if (p->control_if[0] && !strcmp(p->control_if, netdev)) {
		snprintf(err, errlen,
			 "%s: %s: refused: it is the agent's control interface (--control-if)", who,
			 netdev);
		return -EPERM;
	}
	if (agent_policy_has(p->carriers, p->nr_carriers, netdev)) {
		snprintf(err, errlen, "%s: %s: refused: carries the agent's control connection",
			 who, netdev);
		return -EPERM;
	}
	if (!p->nr_allow) {
		snprintf(err, errlen,
			 "%s: %s: refused: the agent allows no interface to be faulted "
			 "(start it with --allow-if %s)",
			 who, netdev, netdev);
		return -EPERM;
	}
	if (!agent_policy_has(p->allow, p->nr_allow, netdev)) {
		snprintf(err, errlen,
			 "%s: %s: refused: not in the agent's allow-list (add it to --allow-if)",
			 who, netdev);
		return -EPERM;
	}
	return 0;
}
