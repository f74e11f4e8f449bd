// SPDX-License-Identifier: MIT
/* The fault policy: injectors, control interfaces, allowed targets and the config file's caps. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "agents/agent_policy.h"
#include "common/netif.h"
#include "common/units.h"
#include "injectors/pfc_frame.h"

/* Whether name is one of the nr strings of `stride` bytes each at base. */
static bool agent_policy_has(const void *base, size_t stride, unsigned int nr, const char *name)
{
	unsigned int i;

	for (i = 0; i < nr; i++)
		if (!strcmp((const char *)base + i * stride, name))
			return true;
	return false;
}

#define agent_policy_in(table, nr, name) agent_policy_has(table, sizeof(table[0]), nr, name)

/*
 * Whether the policy's name (a name or an altname) is the netdev of that name and ifindex
 * (0: unknown). By identity: a netdev answers to its altnames too (ip link property add dev c0
 * altname ctl), and a rule written for one of its names holds for all of them.
 */
static bool agent_policy_is_if(const char *name, const char *netdev, int ifindex)
{
	if (!strcmp(name, netdev))
		return true;
	return ifindex > 0 && (int)rc_if_nametoindex(name) == ifindex;
}

static bool agent_policy_has_if(const void *base, size_t stride, unsigned int nr,
				const char *netdev, int ifindex)
{
	unsigned int i;

	for (i = 0; i < nr; i++)
		if (agent_policy_is_if((const char *)base + i * stride, netdev, ifindex))
			return true;
	return false;
}

#define agent_policy_if_in(table, nr, netdev, ifindex)                                             \
	agent_policy_has_if(table, sizeof(table[0]), nr, netdev, ifindex)

bool agent_policy_same_netdev(const char *a, const char *b)
{
	return agent_policy_is_if(a, b, (int)rc_if_nametoindex(b));
}

const char *agent_policy_alias_note(const char *name, const char *control_if, char *buf, size_t len)
{
	if (strcmp(name, control_if))
		snprintf(buf, len, " (%s under another of its names)", control_if);
	else if (len)
		buf[0] = '\0';
	return buf;
}

int agent_policy_add_carrier(struct agent_policy *p, const char *ifname)
{
	if (!ifname || !*ifname || agent_policy_in(p->carriers, p->nr_carriers, ifname))
		return 0;
	if (p->nr_carriers == AGENT_MAX_IFS)
		return -ENOSPC;
	snprintf(p->carriers[p->nr_carriers++], IF_NAMESIZE, "%s", ifname);
	return 0;
}

/* "inject: INJ[: NETDEV]: refused by policy FILE:LINE: " and the rule; always -EPERM. */
static int agent_policy_refuse(const struct agent_policy *p, unsigned int line, const char *who,
			       const char *netdev, char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 7, 8)));

static int agent_policy_refuse(const struct agent_policy *p, unsigned int line, const char *who,
			       const char *netdev, char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(err, errlen, "inject: %s: %s%srefused by policy %s:%u: ", who,
		     netdev ? netdev : "", netdev ? ": " : "", p->file, line);
	if (n < 0 || (size_t)n >= errlen)
		return -EPERM;
	va_start(ap, fmt);
	vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return -EPERM;
}

/* Rules 2 and 3 for netdev, which carries RDMA device `device` ("" or NULL: none known). */
static int agent_policy_check_target(const struct agent_policy *p, const char *who,
				     const char *netdev, int ifindex, const char *device, char *err,
				     size_t errlen)
{
	bool has_dev = device && device[0];

	if (ifindex <= 0)
		ifindex = (int)rc_if_nametoindex(netdev);
	if (p->control_if[0] && agent_policy_is_if(p->control_if, netdev, ifindex)) {
		if (p->control_if_line)
			snprintf(err, errlen,
				 "%s: %s: refused: it is the agent's control interface (control_if "
				 "in %s:%u)",
				 who, netdev, p->file, p->control_if_line);
		else
			snprintf(err, errlen,
				 "%s: %s: refused: it is the agent's control interface "
				 "(--control-if)",
				 who, netdev);
		return -EPERM;
	}
	if (agent_policy_if_in(p->carriers, p->nr_carriers, netdev, ifindex)) {
		snprintf(err, errlen, "%s: %s: refused: carries the agent's control connection",
			 who, netdev);
		return -EPERM;
	}
	if (agent_policy_if_in(p->allow, p->nr_allow, netdev, ifindex) ||
	    (has_dev && agent_policy_in(p->devices, p->nr_devices, device)))
		return 0;
	if (p->allow_line && p->devices_line) {
		if (has_dev)
			return agent_policy_refuse(
			    p, p->allow_line, who, netdev, err, errlen,
			    "neither netdevs lists %s nor devices (line %u) lists %s, its RDMA "
			    "device",
			    netdev, p->devices_line, device);
		return agent_policy_refuse(p, p->allow_line, who, netdev, err, errlen,
					   "netdevs does not list %s (and it carries no RDMA "
					   "device for devices, line %u)",
					   netdev, p->devices_line);
	}
	if (p->allow_line)
		return agent_policy_refuse(p, p->allow_line, who, netdev, err, errlen,
					   "netdevs does not list %s", netdev);
	if (p->devices_line) {
		if (has_dev)
			return agent_policy_refuse(p, p->devices_line, who, netdev, err, errlen,
						   "devices does not list %s, the RDMA device on "
						   "%s",
						   device, netdev);
		return agent_policy_refuse(p, p->devices_line, who, netdev, err, errlen,
					   "devices lists RDMA devices and %s carries none",
					   netdev);
	}
	if (!p->nr_allow) {
		snprintf(err, errlen,
			 "%s: %s: refused: the agent allows no interface to be faulted "
			 "(start it with --allow-if %s)",
			 who, netdev, netdev);
		return -EPERM;
	}
	snprintf(err, errlen,
		 "%s: %s: refused: not in the agent's allow-list (add it to --allow-if)", who,
		 netdev);
	return -EPERM;
}

int agent_policy_check(const struct agent_policy *p, const char *who, const char *netdev, char *err,
		       size_t errlen)
{
	return agent_policy_check_target(p, who, netdev, 0, NULL, err, errlen);
}

/* pfc.max_duration: a PFC storm must end, and within the cap (pfc_storm only). */
static int agent_policy_check_pfc_duration(const struct agent_policy *p, const char *injector,
					   uint64_t duration_ms, char *err, size_t errlen)
{
	char cap[32];

	if (strcmp(injector, "pfc_storm") || !p->pfc_max_duration_ms)
		return 0;
	rc_format_duration_ms(p->pfc_max_duration_ms, cap, sizeof(cap));
	if (!duration_ms)
		return agent_policy_refuse(
		    p, p->pfc_line, injector, NULL, err, errlen,
		    "duration_ms 0 (until reverted) is not allowed for a PFC "
		    "storm under pfc.max_duration %s; give duration_ms "
		    "1..%" PRIu64,
		    cap, p->pfc_max_duration_ms);
	if (duration_ms > p->pfc_max_duration_ms)
		return agent_policy_refuse(p, p->pfc_line, injector, NULL, err, errlen,
					   "duration_ms %" PRIu64
					   " is over pfc.max_duration %s (%" PRIu64 " ms)",
					   duration_ms, cap, p->pfc_max_duration_ms);
	return 0;
}

int agent_policy_check_params(const struct agent_policy *p, const char *injector,
			      const json_t *params, char *err, size_t errlen)
{
	const json_t *v = json_object_get(params, "rate_fps");
	uint64_t rate = PFC_STORM_DEFAULT_FPS;

	if (strcmp(injector, "pfc_storm") || !p->pfc_max_rate_fps)
		return 0;
	if (json_is_integer(v) && json_integer_value(v) > 0)
		rate = (uint64_t)json_integer_value(v);
	if (rate > p->pfc_max_rate_fps)
		return agent_policy_refuse(p, p->pfc_line, injector, NULL, err, errlen,
					   "rate_fps %" PRIu64
					   "%s is over pfc.max_rate_fps %" PRIu64,
					   rate, v ? "" : " (the default)", p->pfc_max_rate_fps);
	return 0;
}

int agent_policy_check_injector(const struct agent_policy *p, const char *injector, char *err,
				size_t errlen)
{
	if (p->injectors_line && !agent_policy_in(p->injectors, p->nr_injectors, injector))
		return agent_policy_refuse(p, p->injectors_line, injector, NULL, err, errlen,
					   "injectors does not list %s", injector);
	return 0;
}

int agent_policy_check_replay(const struct agent_policy *p, const char *injector,
			      const struct inj_target *t, char *err, size_t errlen)
{
	int ret = agent_policy_check_injector(p, injector, err, errlen);

	if (ret)
		return ret;
	/* A process target alone names nothing of the node's; its netdev, if any, is checked. */
	if (t->workload[0] && !t->netdev[0])
		return 0;
	return agent_policy_check_target(p, injector, t->netdev, t->ifindex, t->device, err,
					 errlen);
}

int agent_policy_check_inject(const struct agent_policy *p, const char *injector,
			      const struct inj_target *t, uint64_t duration_ms, unsigned int active,
			      char *err, size_t errlen)
{
	char cap[32];
	int ret;

	if (p->injectors_line && !agent_policy_in(p->injectors, p->nr_injectors, injector))
		return agent_policy_refuse(p, p->injectors_line, injector, NULL, err, errlen,
					   "injectors does not list %s", injector);
	/* Workload targets: only a process this agent started, its netdev (a rail) like any. */
	if (t->workload[0] && t->pid <= 0) {
		snprintf(err, errlen,
			 "%s: workload %s: refused: not a process this agent started and runs",
			 injector, t->workload);
		return -EPERM;
	}
	if (!t->workload[0] || t->netdev[0]) {
		ret = agent_policy_check_target(p, injector, t->netdev, t->ifindex, t->device, err,
						errlen);
		if (ret)
			return ret;
	}
	if (p->max_fault_ms && !duration_ms)
		return agent_policy_refuse(
		    p, p->max_fault_line, injector, NULL, err, errlen,
		    "duration_ms 0 (until reverted) is not allowed under max_fault_duration %s; "
		    "give duration_ms 1..%" PRIu64,
		    rc_format_duration_ms(p->max_fault_ms, cap, sizeof(cap)), p->max_fault_ms);
	if (p->max_fault_ms && duration_ms > p->max_fault_ms)
		return agent_policy_refuse(
		    p, p->max_fault_line, injector, NULL, err, errlen,
		    "duration_ms %" PRIu64 " is over max_fault_duration %s (%" PRIu64 " ms)",
		    duration_ms, rc_format_duration_ms(p->max_fault_ms, cap, sizeof(cap)),
		    p->max_fault_ms);
	ret = agent_policy_check_pfc_duration(p, injector, duration_ms, err, errlen);
	if (ret)
		return ret;
	if (p->max_concurrent && active >= p->max_concurrent)
		return agent_policy_refuse(p, p->max_concurrent_line, injector, NULL, err, errlen,
					   "max_concurrent_faults is %u and %u %s active (revert "
					   "one first)",
					   p->max_concurrent, active,
					   active == 1 ? "fault is" : "faults are");
	return 0;
}

int agent_policy_check_job(const struct agent_policy *p, const char *program, char *err,
			   size_t errlen)
{
	struct stat want, st;
	unsigned int i;

	if (!p->nr_jobs) {
		snprintf(err, errlen,
			 "workload_start: job: %s: refused: this agent runs no jobs (list the "
			 "programs it may run with --allow-job PATH or `jobs:` in its policy file)",
			 program);
		return -EPERM;
	}
	if (stat(program, &want)) {
		int e = errno;

		snprintf(err, errlen, "workload_start: job: %s: %s", program, strerror(e));
		return -e;
	}
	for (i = 0; i < p->nr_jobs; i++)
		if (!stat(p->jobs[i], &st) && st.st_dev == want.st_dev && st.st_ino == want.st_ino)
			return 0;
	if (p->jobs_line)
		snprintf(err, errlen,
			 "workload_start: job: %s: refused by policy %s:%u: jobs does not list it",
			 program, p->file, p->jobs_line);
	else
		snprintf(err, errlen,
			 "workload_start: job: %s: refused: --allow-job does not list it", program);
	return -EPERM;
}
