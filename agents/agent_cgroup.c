// SPDX-License-Identifier: MIT
/*
 * Workload cgroups (agents/agent_cgroup.h): ROOT/WL_ID with the rdma
 * controller enabled from ROOT's parent down, created before a workload
 * starts and removed after it is reaped.
 *
 * cgroup v2 rules this follows: a controller is available in a folder only
 * when its parent lists it in cgroup.subtree_control; a non-root cgroup with
 * controllers in its subtree_control cannot hold processes itself, so ROOT
 * holds none (the workloads go one level down), and enabling rdma in ROOT's
 * parent fails with EBUSY when that parent is a non-root cgroup holding
 * processes (e.g. the agent's own systemd service).
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "agents/agent.h"
#include "agents/agent_cgroup.h"

#define AGENT_CG_LIST_LEN 512

bool agent_cgroup_name_ok(const char *name)
{
	size_t i, n = strlen(name);

	if (!n || n > 63 || !strcmp(name, ".") || !strcmp(name, ".."))
		return false;
	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)name[i]) && !strchr("._-", name[i]))
			return false;
	return true;
}

/* Whether the space-separated list holds word. */
static bool agent_cg_has(const char *list, const char *word)
{
	size_t n = strlen(word);
	const char *p = list;

	while ((p = strstr(p, word))) {
		if ((p == list || isspace((unsigned char)p[-1])) &&
		    (!p[n] || isspace((unsigned char)p[n])))
			return true;
		p += n;
	}
	return false;
}

/* Writes text to an existing control file in one write(2), as cgroupfs wants. */
static int agent_cg_write(const char *path, const char *text)
{
	size_t n = strlen(text);
	ssize_t w;
	int fd, ret = 0;

	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	w = write(fd, text, n);
	if (w < 0)
		ret = -errno;
	else if ((size_t)w != n)
		ret = -EIO;
	if (close(fd) && !ret)
		ret = -errno;
	return ret;
}

/* Reads DIR/FILE into buf; 0 or -errno. */
static int agent_cg_read(const char *dir, const char *file, char *buf, size_t len)
{
	char path[4200];

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, file) >= sizeof(path))
		return -ENAMETOOLONG;
	return rc_sysfs_read(path, buf, len);
}

/* Adds +CTL (a controller: rdma, cpu) to DIR/cgroup.subtree_control unless it is there. */
static int agent_cg_enable(const char *dir, const char *ctl, char *err, size_t errlen)
{
	char list[AGENT_CG_LIST_LEN], path[4200], plus[32];
	int ret;

	ret = agent_cg_read(dir, "cgroup.subtree_control", list, sizeof(list));
	if (!ret && agent_cg_has(list, ctl))
		return 0;
	snprintf(path, sizeof(path), "%s/cgroup.subtree_control", dir);
	snprintf(plus, sizeof(plus), "+%s", ctl);
	if (!ret)
		ret = agent_cg_write(path, plus);
	if (ret == -EBUSY)
		snprintf(err, errlen,
			 "cgroup: %s: %s: %s (a non-root cgroup that holds processes cannot "
			 "hand controllers down: point --cgroup-root at a folder whose parent "
			 "holds none, e.g. under /sys/fs/cgroup itself)",
			 path, plus, strerror(-ret));
	else if (ret)
		snprintf(err, errlen, "cgroup: %s: %s: %s", path, plus, strerror(-ret));
	return ret;
}

int agent_cgroup_create(const char *root, const char *name, char *path, size_t len, char *err,
			size_t errlen)
{
	char parent[4096], list[AGENT_CG_LIST_LEN];
	char *slash;
	int ret;

	if (!agent_cgroup_name_ok(name)) {
		snprintf(err, errlen,
			 "cgroup: \"%s\": not usable as a cgroup name (1..63 of [A-Za-z0-9._-])",
			 name);
		return -EINVAL;
	}
	if (root[0] != '/' || (size_t)snprintf(path, len, "%s/%s", root, name) >= len) {
		snprintf(err, errlen,
			 "cgroup: %s/%s: not an absolute path of at most %zu bytes (shorten "
			 "--cgroup-root or the wl_id)",
			 root, name, len - 1);
		return -ENAMETOOLONG;
	}
	snprintf(parent, sizeof(parent), "%s", root);
	slash = strrchr(parent, '/');
	if (slash == parent)
		slash[1] = '\0';
	else
		*slash = '\0';
	/* cgroup.controllers is in every cgroup v2 folder and in nothing else. */
	ret = agent_cg_read(parent, "cgroup.controllers", list, sizeof(list));
	if (ret) {
		snprintf(err, errlen,
			 "cgroup: %s: not a cgroup v2 folder (cgroup.controllers: %s): mount "
			 "cgroup2 there (mount -t cgroup2 none /sys/fs/cgroup) or set "
			 "--cgroup-root inside a cgroup2 mount",
			 parent, strerror(-ret));
		return ret == -ENOENT ? -EOPNOTSUPP : ret;
	}
	if (mkdir(root, 0755) && errno != EEXIST) {
		ret = -errno;
		snprintf(err, errlen, "cgroup: mkdir %s: %s", root, strerror(errno));
		return ret;
	}
	ret = agent_cg_read(root, "cgroup.controllers", list, sizeof(list));
	if (ret) {
		snprintf(err, errlen,
			 "cgroup: %s: not a cgroup v2 folder (cgroup.controllers: %s): set "
			 "--cgroup-root inside a cgroup2 mount",
			 root, strerror(-ret));
		return ret == -ENOENT ? -EOPNOTSUPP : ret;
	}
	if (!agent_cg_has(list, "rdma")) {
		ret = agent_cg_read(parent, "cgroup.controllers", list, sizeof(list));
		if (!ret && !agent_cg_has(list, "rdma")) {
			snprintf(err, errlen,
				 "cgroup: %s: no rdma controller (cgroup.controllers: \"%s\"): the "
				 "kernel needs CONFIG_CGROUP_RDMA, and rdma must not be bound to a "
				 "cgroup v1 hierarchy",
				 parent, list);
			return -EOPNOTSUPP;
		}
		ret = agent_cg_enable(parent, "rdma", err, errlen);
		if (ret)
			return ret;
	}
	ret = agent_cg_enable(root, "rdma", err, errlen);
	if (ret)
		return ret;
	if (!mkdir(path, 0755))
		return 0;
	ret = -errno;
	/* A leftover of an agent that died: reuse its name once it is empty. */
	if (ret == -EEXIST) {
		if (!rmdir(path) && !mkdir(path, 0755))
			return 0;
		ret = -errno;
		snprintf(err, errlen,
			 "cgroup: %s: exists and cannot be removed (%s): processes of an earlier "
			 "run are still in it",
			 path, strerror(-ret));
		return ret;
	}
	snprintf(err, errlen, "cgroup: mkdir %s: %s", path, strerror(-ret));
	return ret;
}

int agent_cgroup_remove(const char *path, char *err, size_t errlen)
{
	struct timespec ts = {0, 10 * 1000 * 1000};
	int i, e = 0;

	for (i = 0; i < 20; i++) {
		if (!rmdir(path) || errno == ENOENT)
			return 0;
		e = errno;
		if (e != EBUSY)
			break;
		nanosleep(&ts, NULL);
	}
	snprintf(err, errlen, "cgroup: rmdir %s: %s", path, strerror(e));
	return -e;
}

int agent_cgroup_kill(const char *path, char *err, size_t errlen)
{
	char file[4200];
	int fd, e;

	snprintf(file, sizeof(file), "%s/cgroup.kill", path);
	fd = open(file, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		e = errno;
		snprintf(err, errlen, "cgroup: %s: %s", file, strerror(e));
		return -e;
	}
	if (write(fd, "1", 1) == 1) {
		close(fd);
		return 0;
	}
	e = errno;
	close(fd);
	snprintf(err, errlen, "cgroup: writing 1 to %s: %s", file, strerror(e));
	return -e;
}

int agent_cgroup_cpu_max(const char *root, const char *path, unsigned int pct, char *err,
			 size_t errlen)
{
	char parent[4096], list[AGENT_CG_LIST_LEN], file[4200], quota[48];
	char *slash;
	int ret;

	if (!pct || pct > AGENT_CG_CPU_PCT_MAX) {
		snprintf(err, errlen, "cgroup: cpu limit %u%%: not in 1..%u%% of one CPU", pct,
			 AGENT_CG_CPU_PCT_MAX);
		return -EINVAL;
	}
	snprintf(parent, sizeof(parent), "%s", root);
	slash = strrchr(parent, '/');
	if (!slash)
		return -EINVAL;
	if (slash == parent)
		slash[1] = '\0';
	else
		*slash = '\0';
	ret = agent_cg_read(root, "cgroup.controllers", list, sizeof(list));
	if (!ret && !agent_cg_has(list, "cpu")) {
		ret = agent_cg_read(parent, "cgroup.controllers", list, sizeof(list));
		if (!ret && !agent_cg_has(list, "cpu")) {
			snprintf(
			    err, errlen,
			    "cgroup: %s: no cpu controller (cgroup.controllers: \"%s\"): the "
			    "kernel needs CONFIG_CFS_BANDWIDTH, and cpu must not be bound to a "
			    "cgroup v1 hierarchy; or drop the drill's cpu_limit",
			    parent, list);
			return -EOPNOTSUPP;
		}
		if (!ret)
			ret = agent_cg_enable(parent, "cpu", err, errlen);
		if (ret)
			return ret;
	}
	ret = agent_cg_enable(root, "cpu", err, errlen);
	if (ret)
		return ret;
	/* a period of 100 ms, the kernel's default: the quota is pct thousandths of it */
	snprintf(file, sizeof(file), "%s/cpu.max", path);
	snprintf(quota, sizeof(quota), "%u 100000", pct * 1000);
	ret = agent_cg_write(file, quota);
	if (ret)
		snprintf(err, errlen, "cgroup: writing \"%s\" to %s: %s", quota, file,
			 strerror(-ret));
	return ret;
}
