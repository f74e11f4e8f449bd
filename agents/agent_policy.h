/* SPDX-License-Identifier: MIT */
/*
 * Which faults the agent may inject. The rules, checked before any injector
 * touches anything:
 *   1. only the injectors the config file lists (`injectors`; default: all);
 *   2. never a control interface: the one named by --control-if (or the
 *      file's control_if), nor any interface that has carried a coordinator
 *      connection (sticky for the agent's lifetime, so a reconnect over
 *      another path cannot unlock it);
 *   3. only netdevs on the allow-list (--allow-if, else the file's netdevs)
 *      or carrying an RDMA device the file's `devices` lists; empty: nothing;
 *      a workload target ({"workload": WL_ID}) only when it is a process the
 *      agent started and runs (t->pid > 0, which agent_target_lookup() only
 *      fills in for those), and then rules 2 and 3 only for its rail's netdev
 *      when it names one;
 *   4. the file's caps: max_fault_duration, max_concurrent_faults, and for
 *      pfc_storm pfc.max_duration and pfc.max_rate_fps.
 * Pure data and string compares, so it is unit-tested without a host. The
 * file is read by agent_config.c.
 */
#ifndef AGENT_POLICY_H
#define AGENT_POLICY_H

#include <net/if.h>
#include <stddef.h>
#include <stdint.h>

#include "injectors/injector.h"

#define AGENT_MAX_IFS 64
#define AGENT_MAX_INJECTORS 32
#define AGENT_MAX_DEVICES 64
#define AGENT_DEVICE_LEN 64
#define AGENT_INJ_NAME_LEN 32
#define AGENT_POLICY_FILE_LEN 1024
#define AGENT_MAX_JOB_PROGRAMS 32
#define AGENT_JOB_PATH_LEN 256

struct agent_policy {
	char allow[AGENT_MAX_IFS][IF_NAMESIZE];
	unsigned int nr_allow;
	char control_if[IF_NAMESIZE]; /* --control-if or the file's control_if, "" if none */
	char carriers[AGENT_MAX_IFS][IF_NAMESIZE];
	unsigned int nr_carriers;

	/*
	 * From the config file: its path ("" without one) and the line of each
	 * key, for refusals ("FILE:LINE: injectors does not list ..."). A line
	 * of 0 means the key was not given, or (allow, control_if) that the
	 * value came from the command line.
	 */
	char file[AGENT_POLICY_FILE_LEN];
	unsigned int allow_line; /* netdevs */
	unsigned int control_if_line;
	char injectors[AGENT_MAX_INJECTORS][AGENT_INJ_NAME_LEN];
	unsigned int nr_injectors, injectors_line; /* line 0: every injector */
	char devices[AGENT_MAX_DEVICES][AGENT_DEVICE_LEN];
	unsigned int nr_devices, devices_line;
	uint64_t max_fault_ms; /* 0: no cap */
	unsigned int max_fault_line;
	unsigned int max_concurrent; /* 0: no cap */
	unsigned int max_concurrent_line;
	/* pfc: kept for the PFC injector; 0 when not given. */
	uint64_t pfc_max_rate_fps;
	uint64_t pfc_max_duration_ms;
	unsigned int pfc_line;
	/*
	 * The programs a job workload may run (--allow-job, else the file's `jobs`): absolute
	 * paths, compared by identity (device and inode) with the job's argv[0] when it starts,
	 * so that neither a symlink nor another path to the same file is a way around, and no
	 * other program is reached. None: every job is refused.
	 */
	char jobs[AGENT_MAX_JOB_PROGRAMS][AGENT_JOB_PATH_LEN];
	unsigned int nr_jobs, jobs_line; /* line 0: --allow-job, or none */
};

/* Records an interface that carries a coordinator connection. -ENOSPC when the table is full. */
int agent_policy_add_carrier(struct agent_policy *p, const char *ifname);

/*
 * Whether names a and b are one netdev: the same name, or b's ifindex answers to a (a netdev's
 * altnames resolve to it). Names that resolve to nothing compare as strings.
 */
bool agent_policy_same_netdev(const char *a, const char *b);
/*
 * For a refusal that name is control_if: " (CONTROL_IF under another of its names)" in buf when
 * name is one of its altnames, else "". Returns buf.
 */
const char *agent_policy_alias_note(const char *name, const char *control_if, char *buf,
				    size_t len);

/*
 * 0 when `who` (an injector name, for the message) may fault netdev, else
 * -EPERM and a sentence in err such as
 * "link_down: eth0: refused: carries the agent's control connection".
 * Rules 2 and 3, the latter without RDMA devices (netdev alone).
 */
int agent_policy_check(const struct agent_policy *p, const char *who, const char *netdev, char *err,
		       size_t errlen);

/*
 * Every rule for one inject request: injector, target (t->netdev and, when
 * known, the RDMA device t->device), duration_ms (0: until reverted) and the
 * number of faults active now. 0, or -EPERM and a sentence in err such as
 * "inject: port_flap: refused by policy /etc/rdmachaos/agent.yaml:3:
 * injectors does not list port_flap".
 */
int agent_policy_check_inject(const struct agent_policy *p, const char *injector,
			      const struct inj_target *t, uint64_t duration_ms, unsigned int active,
			      char *err, size_t errlen);

/*
 * Whether the policy file's `injectors` lets injector run at all: 0, or -EPERM and a sentence.
 * Checked first, before the request's params: a forbidden injector is refused as such, whatever
 * its parameters.
 */
int agent_policy_check_injector(const struct agent_policy *p, const char *injector, char *err,
				size_t errlen);

/*
 * The rules a journal record must pass before the agent replays it (reverts
 * what a dead agent left): the injector allow-list and the target rules of
 * an inject (never the control interface or a carrier, only what the allow
 * lists name), but no duration or concurrency cap. A record is a file in the
 * state dir and may have been written by anyone: its revert must not reach
 * what no inject could have. 0, or -EPERM and a sentence in err.
 */
int agent_policy_check_replay(const struct agent_policy *p, const char *injector,
			      const struct inj_target *t, char *err, size_t errlen);

/*
 * The caps that depend on an inject's params, after validate(): today the
 * pfc_storm's rate_fps (default PFC_STORM_DEFAULT_FPS) against
 * pfc.max_rate_fps. 0 for other injectors or within the caps, else -EPERM
 * and a sentence such as "inject: pfc_storm: refused by policy
 * /etc/rdmachaos/agent.yaml:6: rate_fps 5000 is over pfc.max_rate_fps 1000".
 */
int agent_policy_check_params(const struct agent_policy *p, const char *injector,
			      const json_t *params, char *err, size_t errlen);

/*
 * Whether a job may run program (its argv[0], an absolute path): 0 when it is the very file
 * (same device and inode) one of p->jobs names, else -EPERM (or -errno when program cannot be
 * looked at) and a sentence such as "workload_start: job: /usr/bin/foo: refused by policy
 * /etc/rdmachaos/agent.yaml:7: jobs does not list it".
 */
int agent_policy_check_job(const struct agent_policy *p, const char *program, char *err,
			   size_t errlen);

#endif
