/* SPDX-License-Identifier: MIT */
/*
 * The cgroup v2 folders the agent runs workloads in: ROOT/WL_ID under the
 * agent's --cgroup-root, with the rdma controller enabled on the way down,
 * so that an rdma.max limit (mr_failure's cgroup mechanism) binds on one
 * workload and nothing else. Every path is under the root it is given and
 * only plain open/read/write/mkdir/rmdir are used, so tests point the root
 * at a temporary folder laid out like cgroupfs.
 */
#ifndef AGENT_CGROUP_H
#define AGENT_CGROUP_H

#include <stdbool.h>
#include <stddef.h>

/* A name usable as a cgroup folder or socket file: [A-Za-z0-9._-], 1..63, not "." or "..". */
bool agent_cgroup_name_ok(const char *name);

/*
 * agent_cgroup_create() - make ROOT/NAME ready for a workload to enter.
 * The parent of @root must be a cgroup v2 folder (it has cgroup.controllers)
 * offering the rdma controller; @root is created if missing, rdma is enabled
 * in the parent's and in @root's cgroup.subtree_control when not yet, and
 * ROOT/NAME is made (a leftover empty one is replaced). Its path goes to
 * @path. Returns 0, or -errno with a sentence in @err saying what to do.
 */
int agent_cgroup_create(const char *root, const char *name, char *path, size_t len, char *err,
			size_t errlen);

/*
 * agent_cgroup_remove() - remove the folder @path once its processes are
 * gone (reaped). A process that was just reaped may keep the cgroup busy for
 * a moment: EBUSY is retried for up to ~200 ms. Gone already: 0. Returns 0,
 * or -errno with a sentence in @err.
 */
int agent_cgroup_remove(const char *path, char *err, size_t errlen);

/*
 * agent_cgroup_kill() - SIGKILL every process in the folder @path and below
 * (cgroup.kill, Linux 5.14): what a job leaves behind, even a process that
 * left its process group. Returns 0, or -errno with a sentence in @err
 * (-ENOENT: the folder or, on older kernels, cgroup.kill does not exist).
 */
int agent_cgroup_kill(const char *path, char *err, size_t errlen);

/* The largest CPU limit, in percent of one CPU: 1024 CPUs. */
#define AGENT_CG_CPU_PCT_MAX 102400u

/*
 * agent_cgroup_cpu_max() - cap the folder @path (made by agent_cgroup_create()
 * under @root) at @pct percent of one CPU (1..AGENT_CG_CPU_PCT_MAX): enables the
 * cpu controller from @root's parent down, as for rdma, and writes cpu.max
 * ("PCT*1000 100000"). Returns 0, or -errno with a sentence in @err
 * (-EOPNOTSUPP: no cpu controller).
 */
int agent_cgroup_cpu_max(const char *root, const char *path, unsigned int pct, char *err,
			 size_t errlen);

#endif
