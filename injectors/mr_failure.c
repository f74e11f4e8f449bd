// SPDX-License-Identifier: MIT
/*
 * mr_failure: memory registrations (and other verbs objects) of one workload
 * fail, by one of three mechanisms chosen per fault. The target is a workload
 * the agent started ({"workload": WL_ID}).
 *
 *   cgroup   the kernel's rdma cgroup: rdma.max of the workload's cgroup gets
 *            an hca_object limit for a device (default: the target's device,
 *            else every device the file lists); "current" (the default) is
 *            the cgroup's own rdma.current count, so the next object the
 *            process creates (MR, QP, CQ, PD...) fails with EAGAIN while the
 *            existing ones stay. Revert writes back the exact prior line.
 *   memlock  RLIMIT_MEMLOCK of the process through prlimit(2), soft and hard,
 *            to `bytes`: a registration that would pin more fails (ENOMEM;
 *            EPERM with a limit of 0). Useless against CAP_IPC_LOCK, which
 *            root has: refused unless the workload was started without it
 *            (workload_start "no_ipc_lock"). Revert restores the exact prior
 *            pair. A process that is gone (or whose pid now names another
 *            process: its start time differs) counts as reverted.
 *   shim     the workload's preloaded verbs shim (common/shim_proto.h) fails
 *            the next `count` registrations, or each with `probability`,
 *            with `errno`. Revert is the shim's CLEAR; verify asks STATUS
 *            that nothing is armed.
 *
 * Every mechanism's snapshot holds all that revert and verify need (the
 * rdma.max path, devices and prior lines; the pid, its start time and prior
 * limits; the shim's socket), so an agent restarted after dying mid-fault
 * reverts from the journal alone. Paths are the target's absolute cgroup
 * folder and mr_failure_proc_root (injectors/mr_failure.h), so tests run
 * against temporary folders.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "common/shim_proto.h"
#include "common/units.h"
#include "injectors/inj_rdmacg.h"
#include "injectors/inj_util.h"
#include "injectors/mr_failure.h"

#define MR_MAX_DEVS 16
#define MR_SHIM_TIMEOUT_MS 2000
#define MR_CAP_IPC_LOCK 14 /* linux/capability.h */
#define MR_MAX_COUNT 1000000

const char *mr_failure_proc_root = "/proc";

enum mr_mech { MR_CGROUP, MR_MEMLOCK, MR_SHIM };

static const char *const mr_mech_names[] = {"cgroup", "memlock", "shim"};

/* Parameters, checked by validate() and read again by prepare(). */
struct mr_params {
	enum mr_mech mech;
	char device[INJ_RDMACG_DEV_LEN]; /* "": the target's, else every device */
	long long hca_object;		 /* -1: "current" */
	long long hca_handle;		 /* -1: "current", -2: not given */
	uint64_t bytes;
	unsigned int count;
	double prob; /* 0: count instead */
	int err_no;
};

struct mr_dev {
	char name[INJ_RDMACG_DEV_LEN];
	char prior[INJ_RDMACG_LINE]; /* its exact rdma.max line before, "" when it had none */
	char limit[INJ_RDMACG_LINE]; /* what inject writes */
};

struct mr_priv {
	enum mr_mech mech;
	/* cgroup */
	char rdma_max[300];
	unsigned int nr;
	struct mr_dev dev[MR_MAX_DEVS];
	/* memlock */
	int pid;
	unsigned long long starttime; /* /proc/PID/stat: the pid still names that process */
	struct rlimit prior, limit;
	/* shim */
	char sock[108];
	struct shim_cmd cmd;
};

static const char *const mr_params_all[] = {"mechanism",   "device", "hca_object",
					    "hca_handle",  "bytes",  "count",
					    "probability", "errno",  NULL};
/* Which keys each mechanism takes (besides mechanism). */
static const char *const mr_params_of[][4] = {
    [MR_CGROUP] = {"device", "hca_object", "hca_handle", NULL},
    [MR_MEMLOCK] = {"bytes", NULL},
    [MR_SHIM] = {"count", "probability", "errno", NULL},
};

static const char *const mr_help[] = {
    "mechanism=cgroup|memlock|shim (required): the rdma cgroup's rdma.max, RLIMIT_MEMLOCK "
    "through prlimit(2), or the workload's verbs shim",
    "device=string (cgroup): the RDMA device (default: the target's, else every device "
    "rdma.max lists)",
    "hca_object=int|\"current\" default \"current\" (cgroup): the object limit; current = "
    "what the cgroup holds now, so the next creation fails with EAGAIN",
    "hca_handle=int|\"current\" (cgroup): also limit the device contexts (default: untouched)",
    "bytes=int|size default 0 (memlock): soft and hard RLIMIT_MEMLOCK; needs a workload "
    "started with no_ipc_lock",
    "count=int default 1 (shim): fail the next count registrations",
    "probability=number (shim): instead, fail each registration with this probability (0 < p "
    "<= 1)",
    "errno=name|int default ENOMEM (shim): the errno the failed registrations report",
    NULL,
};

static int mr_bad(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int mr_bad(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* params[key]: an integer in 0..INT32_MAX or "current" (-1); absent: def. */
static int mr_parse_count(const json_t *params, const char *key, long long def, long long *out,
			  char *err, size_t errlen)
{
	const json_t *v = json_object_get(params, key);

	if (!v) {
		*out = def;
		return 0;
	}
	if (json_is_string(v) && !strcmp(json_string_value(v), "current")) {
		*out = -1;
		return 0;
	}
	if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > INT32_MAX)
		return mr_bad(err, errlen,
			      "mr_failure: params.%s: must be an integer in 0..%d or \"current\"",
			      key, INT32_MAX);
	*out = json_integer_value(v);
	return 0;
}

static int mr_parse_cgroup(const json_t *params, struct mr_params *p, char *err, size_t errlen)
{
	const json_t *dev = json_object_get(params, "device");
	int ret;

	if (dev) {
		const char *s = json_string_value(dev);

		if (!s || !s[0] || strlen(s) >= sizeof(p->device) || strpbrk(s, "/ \t\n=") ||
		    strlen(s) != json_string_length(dev))
			return mr_bad(err, errlen,
				      "mr_failure: params.device: must be an RDMA device name of "
				      "1..%zu characters",
				      sizeof(p->device) - 1);
		strcpy(p->device, s);
	}
	ret = mr_parse_count(params, "hca_object", -1, &p->hca_object, err, errlen);
	if (!ret)
		ret = mr_parse_count(params, "hca_handle", -2, &p->hca_handle, err, errlen);
	return ret;
}

static int mr_parse_memlock(const json_t *params, struct mr_params *p, char *err, size_t errlen)
{
	const json_t *v = json_object_get(params, "bytes");

	p->bytes = 0;
	if (!v)
		return 0;
	if (json_is_integer(v) && json_integer_value(v) >= 0) {
		p->bytes = (uint64_t)json_integer_value(v);
		return 0;
	}
	if (json_is_string(v) && !rc_parse_size(json_string_value(v), &p->bytes))
		return 0;
	return mr_bad(err, errlen,
		      "mr_failure: params.bytes: must be a byte count (an integer >= 0, or a size "
		      "such as \"64KiB\")");
}

static int mr_parse_shim(const json_t *params, struct mr_params *p, char *err, size_t errlen)
{
	const json_t *prob = json_object_get(params, "probability");
	const json_t *e = json_object_get(params, "errno");
	json_int_t count;
	int ret;

	if (prob && json_object_get(params, "count"))
		return mr_bad(err, errlen,
			      "mr_failure: params.count and params.probability: give one of the "
			      "two");
	ret = inj_params_int("mr_failure", params, "count", false, 1, MR_MAX_COUNT, 1, &count, err,
			     errlen);
	if (ret)
		return ret;
	p->count = (unsigned int)count;
	p->prob = 0;
	if (prob) {
		p->prob = json_number_value(prob);
		if (!json_is_number(prob) || !(p->prob > 0 && p->prob <= 1))
			return mr_bad(err, errlen,
				      "mr_failure: params.probability: must be a number with 0 < p "
				      "<= 1");
		p->count = 0;
	}
	p->err_no = ENOMEM;
	if (e) {
		if (json_is_integer(e) && json_integer_value(e) >= 1 &&
		    json_integer_value(e) <= 4095)
			p->err_no = (int)json_integer_value(e);
		else if (json_is_string(e) && shim_errno_parse(json_string_value(e)) > 0)
			p->err_no = shim_errno_parse(json_string_value(e));
		else
			return mr_bad(err, errlen,
				      "mr_failure: params.errno: must be an errno name such as "
				      "\"ENOMEM\" or a number in 1..4095");
	}
	return 0;
}

static int mr_parse(const json_t *params, struct mr_params *p, char *err, size_t errlen)
{
	const char *mech = json_string_value(json_object_get(params, "mechanism"));
	const char *key;
	unsigned int i;
	json_t *v;
	int ret;

	memset(p, 0, sizeof(*p));
	ret = inj_params_known("mr_failure", params, mr_params_all, err, errlen);
	if (ret)
		return ret;
	for (i = 0; i < 3; i++)
		if (mech && !strcmp(mech, mr_mech_names[i]))
			break;
	if (i == 3)
		return mr_bad(err, errlen,
			      "mr_failure: params.mechanism: %s (\"cgroup\", \"memlock\" or "
			      "\"shim\")",
			      json_object_get(params, "mechanism") ? "unknown" : "missing");
	p->mech = (enum mr_mech)i;
	json_object_foreach((json_t *)params, key, v) {
		const char *const *k;

		if (!strcmp(key, "mechanism"))
			continue;
		for (k = mr_params_of[p->mech]; *k && strcmp(*k, key); k++)
			;
		if (!*k)
			return mr_bad(err, errlen,
				      "mr_failure: params.%s: not a parameter of mechanism %s", key,
				      mech);
	}
	switch (p->mech) {
	case MR_CGROUP:
		return mr_parse_cgroup(params, p, err, errlen);
	case MR_MEMLOCK:
		return mr_parse_memlock(params, p, err, errlen);
	case MR_SHIM:
		return mr_parse_shim(params, p, err, errlen);
	}
	return -EINVAL;
}

static int mr_validate(const json_t *params, char *err, size_t errlen)
{
	struct mr_params p;

	return mr_parse(params, &p, err, errlen);
}

/* "DEV hca_handle=max hca_object=max": what a device without a line is, and gets back. */
static void mr_unlimited(const char *dev, char *line, size_t len)
{
	snprintf(line, len, "%s hca_handle=max hca_object=max", dev);
}

/* Whether line (as read now) is what dev had before (prior; "" for no line: unlimited). */
static bool mr_line_is_prior(const struct mr_dev *d, const char *line)
{
	long long h, o;

	if (d->prior[0])
		return line && !strcmp(line, d->prior);
	return !line || (!inj_rdmacg_value(line, "hca_handle", &h) && h == INJ_RDMACG_MAX &&
			 !inj_rdmacg_value(line, "hca_object", &o) && o == INJ_RDMACG_MAX);
}

/* The current count of key for dev, from the cgroup's rdma.current (no line: 0). */
static int mr_current(struct inj_fault *f, const char *current, const char *dev, const char *key,
		      long long *v)
{
	char line[INJ_RDMACG_LINE];
	int ret;

	if (inj_rdmacg_line(current, dev, line, sizeof(line))) {
		*v = 0;
		return 0;
	}
	ret = inj_rdmacg_value(line, key, v);
	if (ret || *v < 0)
		return inj_fail(f, -EPROTO,
				"mr_failure: %s/rdma.current: %s: no count of %s in \"%s\"",
				f->target.cgroup, dev, key, line);
	return 0;
}

static int mr_prepare_cgroup(struct inj_fault *f, struct mr_priv *priv, const struct mr_params *p)
{
	char devs[MR_MAX_DEVS][INJ_RDMACG_DEV_LEN];
	char *max = NULL, *current = NULL, path[300];
	unsigned int i;
	int ret;

	if (!f->target.cgroup[0])
		return inj_fail(f, -EINVAL,
				"mr_failure: workload %s was started without a cgroup: start it "
				"with \"cgroup\": true for mechanism cgroup",
				f->target.workload);
	max = malloc(INJ_RDMACG_FILE);
	current = malloc(INJ_RDMACG_FILE);
	if (!max || !current) {
		ret = inj_fail(f, -ENOMEM, "mr_failure: out of memory");
		goto out;
	}
	snprintf(priv->rdma_max, sizeof(priv->rdma_max), "%s/rdma.max", f->target.cgroup);
	snprintf(path, sizeof(path), "%s/rdma.current", f->target.cgroup);
	ret = inj_rdmacg_read(priv->rdma_max, max, INJ_RDMACG_FILE);
	if (!ret)
		ret = inj_rdmacg_read(path, current, INJ_RDMACG_FILE);
	if (ret) {
		inj_fail(f, ret, "mr_failure: %s: %s (is the rdma controller enabled for it?)",
			 ret == -ENOENT ? f->target.cgroup : priv->rdma_max, strerror(-ret));
		goto out;
	}
	if (p->device[0] || f->target.device[0]) {
		snprintf(devs[0], sizeof(devs[0]), "%s",
			 p->device[0] ? p->device : f->target.device);
		priv->nr = 1;
	} else {
		priv->nr = inj_rdmacg_devices(max, devs, MR_MAX_DEVS);
	}
	if (!priv->nr) {
		ret = inj_fail(f, -ENODEV,
			       "mr_failure: %s lists no RDMA device: name one with params.device",
			       priv->rdma_max);
		goto out;
	}
	for (i = 0; i < priv->nr; i++) {
		struct mr_dev *d = &priv->dev[i];
		long long obj = p->hca_object, handle = p->hca_handle;
		int n;

		snprintf(d->name, sizeof(d->name), "%s", devs[i]);
		ret = inj_rdmacg_line(max, d->name, d->prior, sizeof(d->prior));
		if (ret == -ENOENT)
			d->prior[0] = '\0';
		else if (ret) {
			inj_fail(f, ret, "mr_failure: %s: %s: line too long", priv->rdma_max,
				 d->name);
			goto out;
		}
		ret = obj == -1 ? mr_current(f, current, d->name, "hca_object", &obj) : 0;
		if (!ret && handle == -1)
			ret = mr_current(f, current, d->name, "hca_handle", &handle);
		if (ret)
			goto out;
		n = snprintf(d->limit, sizeof(d->limit), "%s hca_object=%lld", devs[i], obj);
		if (handle >= 0)
			snprintf(d->limit + n, sizeof(d->limit) - (size_t)n, " hca_handle=%lld",
				 handle);
	}
	ret = 0;
out:
	free(max);
	free(current);
	return ret;
}

/* The path of PID's file under mr_failure_proc_root into buf. */
static int mr_proc_read(int pid, const char *file, char *buf, size_t len)
{
	char path[300];

	snprintf(path, sizeof(path), "%s/%d/%s", mr_failure_proc_root, pid, file);
	return inj_rdmacg_read(path, buf, len);
}

/* The process's start time (field 22 of /proc/PID/stat): -ENOENT/-ESRCH when gone. */
static int mr_starttime(int pid, unsigned long long *st)
{
	char buf[2048], *p;
	int i, ret;

	ret = mr_proc_read(pid, "stat", buf, sizeof(buf));
	if (ret)
		return ret == -ENOENT ? -ESRCH : ret;
	p = strrchr(buf, ')'); /* the command name may hold spaces and parentheses */
	if (!p)
		return -EPROTO;
	/* After "(comm)": field 3 (state) onwards; starttime is field 22. */
	for (i = 3; i <= 22 && p; i++)
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p + 1, "%llu", st) != 1)
		return -EPROTO;
	return 0;
}

/* 1 when priv->pid still names the process prepare() saw, 0 when it is gone, or -errno. */
static int mr_same_process(const struct mr_priv *priv)
{
	unsigned long long st;
	int ret = mr_starttime(priv->pid, &st);

	if (ret == -ESRCH)
		return 0;
	if (ret)
		return ret;
	return st == priv->starttime;
}

static int mr_prepare_memlock(struct inj_fault *f, struct mr_priv *priv, const struct mr_params *p)
{
	char status[4096], *cap;
	unsigned long long eff;
	int ret;

	priv->pid = f->target.pid;
	ret = mr_proc_read(priv->pid, "status", status, sizeof(status));
	if (ret && ret != -EFBIG)
		return inj_fail(f, ret == -ENOENT ? -ESRCH : ret,
				"mr_failure: workload %s: pid %d: %s/%d/status: %s",
				f->target.workload, priv->pid, mr_failure_proc_root, priv->pid,
				strerror(-ret));
	cap = strstr(status, "\nCapEff:");
	if (!cap || sscanf(cap + 8, "%llx", &eff) != 1)
		return inj_fail(f, -EPROTO,
				"mr_failure: workload %s: pid %d: no CapEff in %s/%d/status",
				f->target.workload, priv->pid, mr_failure_proc_root, priv->pid);
	if (eff & (1ULL << MR_CAP_IPC_LOCK))
		return inj_fail(
		    f, -EPERM,
		    "mr_failure: workload %s: pid %d has CAP_IPC_LOCK, which ignores "
		    "RLIMIT_MEMLOCK: start the workload with no_ipc_lock (workload_start "
		    "\"no_ipc_lock\": true)",
		    f->target.workload, priv->pid);
	ret = mr_starttime(priv->pid, &priv->starttime);
	if (ret)
		return inj_fail(f, ret, "mr_failure: workload %s: pid %d: %s/%d/stat: %s",
				f->target.workload, priv->pid, mr_failure_proc_root, priv->pid,
				ret == -EPROTO ? "no start time in it" : strerror(-ret));
	if (prlimit(priv->pid, RLIMIT_MEMLOCK, NULL, &priv->prior))
		return inj_fail(f, -errno, "mr_failure: workload %s: pid %d: prlimit: %s",
				f->target.workload, priv->pid, strerror(errno));
	if (priv->prior.rlim_cur != RLIM_INFINITY && p->bytes >= priv->prior.rlim_cur)
		return inj_fail(f, -EINVAL,
				"mr_failure: workload %s: pid %d: bytes %" PRIu64
				" would not lower RLIMIT_MEMLOCK (soft %llu): give a smaller bytes",
				f->target.workload, priv->pid, p->bytes,
				(unsigned long long)priv->prior.rlim_cur);
	priv->limit.rlim_cur = priv->limit.rlim_max = (rlim_t)p->bytes;
	return 0;
}

static int mr_shim(struct inj_fault *f, const char *sock, enum shim_op op, const struct shim_cmd *c,
		   json_t **reply)
{
	struct shim_cmd cmd = c ? *c : (struct shim_cmd){.op = op};
	char who[128];

	snprintf(who, sizeof(who), "mr_failure: workload %s", f->target.workload);
	return inj_shim_call(f, sock, &cmd, MR_SHIM_TIMEOUT_MS, who, false, reply);
}

static int mr_prepare_shim(struct inj_fault *f, struct mr_priv *priv, const struct mr_params *p)
{
	json_t *reply;
	int ret;

	if (!f->target.shim_sock[0])
		return inj_fail(
		    f, -EINVAL,
		    "mr_failure: workload %s was started without the verbs shim: start it "
		    "with \"shim\": true for mechanism shim",
		    f->target.workload);
	snprintf(priv->sock, sizeof(priv->sock), "%s", f->target.shim_sock);
	priv->cmd = (struct shim_cmd){
	    .op = SHIM_OP_FAIL_MR,
	    .mr_count = p->count,
	    .mr_prob = p->prob,
	    .mr_errno = p->err_no,
	};
	/* Reachable before anything is journaled or armed. */
	ret = mr_shim(f, priv->sock, SHIM_OP_STATUS, NULL, &reply);
	json_decref(reply);
	return ret;
}

static int mr_prepare(struct inj_fault *f)
{
	struct mr_priv *priv;
	struct mr_params p;
	int ret;

	ret = mr_parse(f->params, &p, f->err, sizeof(f->err));
	if (ret)
		return ret;
	if (!f->target.workload[0] || f->target.pid <= 0)
		return inj_fail(
		    f, -EINVAL,
		    "mr_failure: the target must be a workload ({\"workload\": WL_ID}): "
		    "the fault acts on one process the agent started");
	priv = calloc(1, sizeof(*priv));
	if (!priv)
		return inj_fail(f, -ENOMEM, "mr_failure: out of memory");
	priv->mech = p.mech;
	switch (p.mech) {
	case MR_CGROUP:
		ret = mr_prepare_cgroup(f, priv, &p);
		break;
	case MR_MEMLOCK:
		ret = mr_prepare_memlock(f, priv, &p);
		break;
	case MR_SHIM:
		ret = mr_prepare_shim(f, priv, &p);
		break;
	}
	if (ret) {
		free(priv);
		return ret;
	}
	f->priv = priv;
	return 0;
}

/* Reads rdma.max into buf; -ENOENT when the cgroup is gone (its workload exited). */
static int mr_read_max(struct inj_fault *f, const struct mr_priv *priv, char *buf)
{
	int ret = inj_rdmacg_read(priv->rdma_max, buf, INJ_RDMACG_FILE);

	if (ret && ret != -ENOENT)
		inj_fail(f, ret, "mr_failure: %s: %s", priv->rdma_max, strerror(-ret));
	return ret;
}

static int mr_inject_cgroup(struct inj_fault *f, struct mr_priv *priv)
{
	char *buf = malloc(INJ_RDMACG_FILE), line[INJ_RDMACG_LINE];
	unsigned int i;
	int ret = 0;

	if (!buf)
		return inj_fail(f, -ENOMEM, "mr_failure: out of memory");
	for (i = 0; i < priv->nr && !ret; i++) {
		struct mr_dev *d = &priv->dev[i];
		long long want, got;

		ret = inj_rdmacg_write(priv->rdma_max, d->limit);
		if (ret) {
			inj_fail(f, ret, "mr_failure: %s: writing \"%s\": %s", priv->rdma_max,
				 d->limit, strerror(-ret));
			break;
		}
		/* Read back: the limit must be in force, not just written. */
		ret = mr_read_max(f, priv, buf);
		if (ret == -ENOENT)
			ret = inj_fail(f, -ESRCH, "mr_failure: %s: gone (the workload exited)",
				       priv->rdma_max);
		if (ret)
			break;
		inj_rdmacg_value(d->limit, "hca_object", &want);
		if (inj_rdmacg_line(buf, d->name, line, sizeof(line)) ||
		    inj_rdmacg_value(line, "hca_object", &got) || got != want)
			ret = inj_fail(f, -EIO,
				       "mr_failure: %s: wrote \"%s\" but %s's line reads \"%s\"",
				       priv->rdma_max, d->limit, d->name, line);
	}
	free(buf);
	return ret;
}

static int mr_inject(struct inj_fault *f)
{
	struct mr_priv *priv = f->priv;
	json_t *reply;
	int ret;

	switch (priv->mech) {
	case MR_CGROUP:
		return mr_inject_cgroup(f, priv);
	case MR_MEMLOCK:
		ret = mr_same_process(priv);
		if (ret <= 0)
			return inj_fail(f, ret ? ret : -ESRCH,
					"mr_failure: workload %s: pid %d: %s", f->target.workload,
					priv->pid, ret ? strerror(-ret) : "gone");
		if (prlimit(priv->pid, RLIMIT_MEMLOCK, &priv->limit, NULL))
			return inj_fail(
			    f, -errno,
			    "mr_failure: workload %s: pid %d: prlimit RLIMIT_MEMLOCK %llu: "
			    "%s",
			    f->target.workload, priv->pid, (unsigned long long)priv->limit.rlim_cur,
			    strerror(errno));
		return 0;
	case MR_SHIM:
		ret = mr_shim(f, priv->sock, SHIM_OP_FAIL_MR, &priv->cmd, &reply);
		json_decref(reply);
		return ret;
	}
	return -EINVAL;
}

/* "unlimited" or the number, for sentences. */
static const char *mr_rlim_str(rlim_t v, char *buf, size_t len)
{
	if (v == RLIM_INFINITY)
		return "unlimited";
	snprintf(buf, len, "%llu", (unsigned long long)v);
	return buf;
}

static int mr_revert_cgroup(struct inj_fault *f, struct mr_priv *priv)
{
	char *buf = malloc(INJ_RDMACG_FILE), line[INJ_RDMACG_LINE], back[INJ_RDMACG_LINE];
	unsigned int i;
	int ret;

	if (!buf)
		return inj_fail(f, -ENOMEM, "mr_failure: out of memory");
	ret = mr_read_max(f, priv, buf);
	if (ret == -ENOENT) {
		inj_action(f, "%s: gone (its workload exited): nothing to restore", priv->rdma_max);
		ret = 0;
		goto out;
	}
	if (ret)
		goto out;
	for (i = 0; i < priv->nr; i++) {
		struct mr_dev *d = &priv->dev[i];
		bool has = !inj_rdmacg_line(buf, d->name, line, sizeof(line));

		if (mr_line_is_prior(d, has ? line : NULL)) {
			inj_action(f, "%s: %s: already \"%s\"", priv->rdma_max, d->name,
				   has ? line : "(no line)");
			continue;
		}
		if (d->prior[0])
			snprintf(back, sizeof(back), "%s", d->prior);
		else
			mr_unlimited(d->name, back, sizeof(back));
		ret = inj_rdmacg_write(priv->rdma_max, back);
		if (ret == -ENOENT) {
			inj_action(f, "%s: gone (its workload exited): nothing to restore",
				   priv->rdma_max);
			ret = 0;
			break;
		}
		if (ret) {
			inj_fail(f, ret, "mr_failure: %s: writing back \"%s\": %s", priv->rdma_max,
				 back, strerror(-ret));
			break;
		}
		inj_action(f, "%s: %s: set \"%s\" (was \"%s\")", priv->rdma_max, d->name, back,
			   has ? line : "(no line)");
	}
out:
	free(buf);
	return ret;
}

/*
 * The workload's RLIMIT_MEMLOCK now, for revert and verify: 1 with it in
 * *now, 0 when the process is gone (exited, or its pid reused), or -errno
 * with a sentence in f->err.
 */
static int mr_memlock_now(struct inj_fault *f, const struct mr_priv *priv, struct rlimit *now)
{
	int ret = mr_same_process(priv);

	if (ret < 0)
		return inj_fail(f, ret, "mr_failure: pid %d: %s/%d/stat: %s", priv->pid,
				mr_failure_proc_root, priv->pid, strerror(-ret));
	if (!ret)
		return 0;
	if (prlimit(priv->pid, RLIMIT_MEMLOCK, NULL, now))
		return errno == ESRCH ? 0
				      : inj_fail(f, -errno, "mr_failure: pid %d: prlimit: %s",
						 priv->pid, strerror(errno));
	return 1;
}

static int mr_revert(struct inj_fault *f)
{
	struct mr_priv *priv = f->priv;
	char a[32], b[32];
	struct rlimit now;
	json_t *reply;
	int ret;

	/* Nothing was snapshotted, so nothing was changed. */
	if (!priv)
		return 0;
	switch (priv->mech) {
	case MR_CGROUP:
		return mr_revert_cgroup(f, priv);
	case MR_MEMLOCK:
		ret = mr_memlock_now(f, priv, &now);
		if (ret <= 0) {
			if (!ret)
				inj_action(f,
					   "pid %d: gone (the workload exited): nothing to restore",
					   priv->pid);
			return ret;
		}
		if (now.rlim_cur == priv->prior.rlim_cur && now.rlim_max == priv->prior.rlim_max) {
			inj_action(f, "pid %d: RLIMIT_MEMLOCK already %s/%s", priv->pid,
				   mr_rlim_str(now.rlim_cur, a, sizeof(a)),
				   mr_rlim_str(now.rlim_max, b, sizeof(b)));
			return 0;
		}
		if (prlimit(priv->pid, RLIMIT_MEMLOCK, &priv->prior, NULL)) {
			if (errno == ESRCH) {
				inj_action(f,
					   "pid %d: gone (the workload exited): nothing to restore",
					   priv->pid);
				return 0;
			}
			return inj_fail(
			    f, -errno,
			    "mr_failure: pid %d: prlimit RLIMIT_MEMLOCK back to %s/%s: "
			    "%s%s",
			    priv->pid, mr_rlim_str(priv->prior.rlim_cur, a, sizeof(a)),
			    mr_rlim_str(priv->prior.rlim_max, b, sizeof(b)), strerror(errno),
			    errno == EPERM ? " (raising a hard limit needs CAP_SYS_RESOURCE)" : "");
		}
		inj_action(f, "pid %d: RLIMIT_MEMLOCK set %s/%s (was %llu/%llu)", priv->pid,
			   mr_rlim_str(priv->prior.rlim_cur, a, sizeof(a)),
			   mr_rlim_str(priv->prior.rlim_max, b, sizeof(b)),
			   (unsigned long long)now.rlim_cur, (unsigned long long)now.rlim_max);
		return 0;
	case MR_SHIM:
		ret = mr_shim(f, priv->sock, SHIM_OP_CLEAR, NULL, &reply);
		if (ret == -ESRCH) {
			inj_action(f,
				   "%s: the shim is gone (the workload exited): nothing to clear",
				   priv->sock);
			f->err[0] = '\0';
			return 0;
		}
		if (!ret)
			inj_action(f, "%s: shim cleared%s", priv->sock,
				   json_is_false(json_object_get(reply, "was_armed"))
				       ? " (nothing was armed)"
				       : "");
		json_decref(reply);
		return ret;
	}
	return -EINVAL;
}

static int mr_verify_cgroup(struct inj_fault *f, struct mr_priv *priv)
{
	char *buf = malloc(INJ_RDMACG_FILE), line[INJ_RDMACG_LINE];
	unsigned int i;
	int ret;

	if (!buf)
		return inj_fail(f, -ENOMEM, "mr_failure: out of memory");
	ret = mr_read_max(f, priv, buf);
	if (ret == -ENOENT)
		ret = 0; /* gone with its workload: no limit left anywhere */
	else
		for (i = 0; i < priv->nr && !ret; i++) {
			const struct mr_dev *d = &priv->dev[i];
			bool has = !inj_rdmacg_line(buf, d->name, line, sizeof(line));

			if (!mr_line_is_prior(d, has ? line : NULL))
				ret = inj_fail(f, -EIO,
					       "mr_failure: %s: %s reads \"%s\", not its prior "
					       "\"%s\"",
					       priv->rdma_max, d->name, has ? line : "(no line)",
					       d->prior[0] ? d->prior : "max");
		}
	free(buf);
	return ret;
}

/* Whether a STATUS reply shows nothing armed. */
static bool mr_shim_disarmed(const json_t *reply)
{
	const json_t *armed = json_object_get(reply, "armed");

	return json_is_object(armed) && json_is_false(json_object_get(armed, "any"));
}

static int mr_verify(struct inj_fault *f)
{
	struct mr_priv *priv = f->priv;
	char a[32], b[32], c[32], d[32];
	struct rlimit now;
	json_t *reply;
	int ret;

	if (!priv)
		return 0;
	switch (priv->mech) {
	case MR_CGROUP:
		return mr_verify_cgroup(f, priv);
	case MR_MEMLOCK:
		ret = mr_memlock_now(f, priv, &now);
		if (ret <= 0)
			return ret; /* a process that is gone holds no limit to verify */
		if (now.rlim_cur != priv->prior.rlim_cur || now.rlim_max != priv->prior.rlim_max)
			return inj_fail(
			    f, -EIO,
			    "mr_failure: pid %d: RLIMIT_MEMLOCK is %s/%s, not its prior "
			    "%s/%s",
			    priv->pid, mr_rlim_str(now.rlim_cur, a, sizeof(a)),
			    mr_rlim_str(now.rlim_max, b, sizeof(b)),
			    mr_rlim_str(priv->prior.rlim_cur, c, sizeof(c)),
			    mr_rlim_str(priv->prior.rlim_max, d, sizeof(d)));
		return 0;
	case MR_SHIM:
		ret = mr_shim(f, priv->sock, SHIM_OP_STATUS, NULL, &reply);
		if (ret == -ESRCH) {
			f->err[0] = '\0';
			return 0;
		}
		if (!ret && !mr_shim_disarmed(reply)) {
			char *s = json_dumps(json_object_get(reply, "armed"), JSON_COMPACT);

			ret = inj_fail(f, -EIO, "mr_failure: %s: the shim is still armed: %s",
				       priv->sock, s ? s : "?");
			free(s);
		}
		json_decref(reply);
		return ret;
	}
	return -EINVAL;
}

/* An rlimit value as JSON: the number, or "unlimited". */
static json_t *mr_rlim_json(rlim_t v)
{
	return v == RLIM_INFINITY ? json_string("unlimited") : json_integer((json_int_t)v);
}

static int mr_rlim_parse(const json_t *v, rlim_t *out)
{
	if (json_is_string(v) && !strcmp(json_string_value(v), "unlimited")) {
		*out = RLIM_INFINITY;
		return 0;
	}
	if (!json_is_integer(v) || json_integer_value(v) < 0)
		return -EINVAL;
	*out = (rlim_t)json_integer_value(v);
	return 0;
}

static json_t *mr_snapshot(const struct inj_fault *f)
{
	const struct mr_priv *priv = f->priv;
	json_t *o, *devs;
	unsigned int i;

	if (!priv)
		return NULL;
	o = json_pack("{s:s}", "mechanism", mr_mech_names[priv->mech]);
	if (!o)
		return NULL;
	switch (priv->mech) {
	case MR_CGROUP:
		devs = json_array();
		for (i = 0; devs && i < priv->nr; i++)
			json_array_append_new(
			    devs, json_pack("{s:s, s:o, s:s}", "name", priv->dev[i].name, "prior",
					    priv->dev[i].prior[0] ? json_string(priv->dev[i].prior)
								  : json_null(),
					    "limit", priv->dev[i].limit));
		json_object_set_new(o, "rdma_max", json_string(priv->rdma_max));
		json_object_set_new(o, "devices", devs ? devs : json_null());
		break;
	case MR_MEMLOCK:
		json_object_set_new(o, "pid", json_integer(priv->pid));
		json_object_set_new(o, "starttime", json_integer((json_int_t)priv->starttime));
		json_object_set_new(o, "prior_soft", mr_rlim_json(priv->prior.rlim_cur));
		json_object_set_new(o, "prior_hard", mr_rlim_json(priv->prior.rlim_max));
		json_object_set_new(o, "limit", mr_rlim_json(priv->limit.rlim_cur));
		break;
	case MR_SHIM:
		json_object_set_new(o, "shim_sock", json_string(priv->sock));
		break;
	}
	return o;
}

/* Copies a string member of o of 1..len-1 bytes into buf; -EINVAL otherwise. */
static int mr_snap_str(const json_t *o, const char *key, char *buf, size_t len)
{
	const json_t *v = json_object_get(o, key);

	if (!json_is_string(v) || !json_string_length(v) || json_string_length(v) >= len ||
	    strlen(json_string_value(v)) != json_string_length(v))
		return -EINVAL;
	memcpy(buf, json_string_value(v), json_string_length(v) + 1);
	return 0;
}

static int mr_restore_cgroup(const json_t *snap, struct mr_priv *priv)
{
	const json_t *devs = json_object_get(snap, "devices"), *d;
	size_t i;

	if (mr_snap_str(snap, "rdma_max", priv->rdma_max, sizeof(priv->rdma_max)) ||
	    !json_is_array(devs) || !json_array_size(devs) || json_array_size(devs) > MR_MAX_DEVS)
		return -EINVAL;
	json_array_foreach(devs, i, d) {
		struct mr_dev *m = &priv->dev[i];

		if (mr_snap_str(d, "name", m->name, sizeof(m->name)) ||
		    mr_snap_str(d, "limit", m->limit, sizeof(m->limit)))
			return -EINVAL;
		if (!json_is_null(json_object_get(d, "prior")) &&
		    mr_snap_str(d, "prior", m->prior, sizeof(m->prior)))
			return -EINVAL;
	}
	priv->nr = (unsigned int)json_array_size(devs);
	return 0;
}

/*
 * A record is a file, and files can be forged: a snapshot may only name its own target's objects
 * (which the agent checked as its own before restore), never another file, socket or process,
 * since revert writes to what it names.
 */
static int mr_restore_owned(struct inj_fault *f, const struct mr_priv *priv)
{
	const struct inj_target *t = &f->target;
	char want[sizeof(priv->rdma_max) + 16];

	switch (priv->mech) {
	case MR_CGROUP:
		snprintf(want, sizeof(want), "%s/rdma.max", t->cgroup);
		if (t->cgroup[0] && !strcmp(want, priv->rdma_max))
			return 0;
		return inj_fail(f, -EPERM,
				"mr_failure: the journaled snapshot names %s, not its target's "
				"cgroup (%s): refused",
				priv->rdma_max, t->cgroup[0] ? t->cgroup : "none");
	case MR_SHIM:
		if (t->shim_sock[0] && !strcmp(t->shim_sock, priv->sock))
			return 0;
		return inj_fail(f, -EPERM,
				"mr_failure: the journaled snapshot names the socket %s, not its "
				"target's shim (%s): refused",
				priv->sock, t->shim_sock[0] ? t->shim_sock : "none");
	case MR_MEMLOCK:
		if (t->pid > 0 && t->pid == priv->pid)
			return 0;
		return inj_fail(f, -EPERM,
				"mr_failure: the journaled snapshot names pid %d, not its target's "
				"(%d): refused",
				priv->pid, t->pid);
	}
	return inj_fail(f, -EINVAL, "mr_failure: the journaled snapshot has no mechanism");
}

static int mr_restore(struct inj_fault *f, const json_t *snap)
{
	const char *mech = json_string_value(json_object_get(snap, "mechanism"));
	struct mr_priv *priv = calloc(1, sizeof(*priv));
	const json_t *pid, *st;
	int ret = -EINVAL;
	rlim_t limit;

	if (!priv)
		return inj_fail(f, -ENOMEM, "mr_failure: out of memory");
	if (mech && !strcmp(mech, "cgroup")) {
		priv->mech = MR_CGROUP;
		ret = mr_restore_cgroup(snap, priv);
	} else if (mech && !strcmp(mech, "memlock")) {
		priv->mech = MR_MEMLOCK;
		pid = json_object_get(snap, "pid");
		st = json_object_get(snap, "starttime");
		if (json_is_integer(pid) && json_integer_value(pid) > 0 &&
		    json_integer_value(pid) <= INT32_MAX && json_is_integer(st) &&
		    json_integer_value(st) >= 0 &&
		    !mr_rlim_parse(json_object_get(snap, "prior_soft"), &priv->prior.rlim_cur) &&
		    !mr_rlim_parse(json_object_get(snap, "prior_hard"), &priv->prior.rlim_max) &&
		    !mr_rlim_parse(json_object_get(snap, "limit"), &limit)) {
			priv->pid = (int)json_integer_value(pid);
			priv->starttime = (unsigned long long)json_integer_value(st);
			priv->limit.rlim_cur = priv->limit.rlim_max = limit;
			ret = 0;
		}
	} else if (mech && !strcmp(mech, "shim")) {
		priv->mech = MR_SHIM;
		ret = mr_snap_str(snap, "shim_sock", priv->sock, sizeof(priv->sock));
	}
	if (ret) {
		free(priv);
		return inj_fail(f, -EINVAL,
				"mr_failure: the journaled snapshot is unusable (mechanism %s): "
				"nothing to revert with",
				mech ? mech : "missing");
	}
	ret = mr_restore_owned(f, priv);
	if (ret) {
		free(priv);
		return ret;
	}
	f->priv = priv;
	return 0;
}

static json_t *mr_describe_prior(const struct inj_fault *f)
{
	const struct mr_priv *priv = f->priv;
	json_t *o, *lines;
	unsigned int i;

	if (!priv)
		return json_object();
	o = json_pack("{s:s, s:s}", "mechanism", mr_mech_names[priv->mech], "workload",
		      f->target.workload);
	if (!o)
		return NULL;
	switch (priv->mech) {
	case MR_CGROUP:
		lines = json_object();
		for (i = 0; lines && i < priv->nr; i++)
			json_object_set_new(lines, priv->dev[i].name,
					    priv->dev[i].prior[0] ? json_string(priv->dev[i].prior)
								  : json_null());
		json_object_set_new(o, "cgroup", json_string(f->target.cgroup));
		json_object_set_new(o, "rdma.max", lines ? lines : json_null());
		lines = json_array();
		for (i = 0; lines && i < priv->nr; i++)
			json_array_append_new(lines, json_string(priv->dev[i].limit));
		json_object_set_new(o, "limit", lines ? lines : json_null());
		json_object_set_new(o, "note",
				    json_string("the rdma cgroup refuses the objects the process "
						"creates from now on (device context, PD, MR, CQ, "
						"QP...) with EAGAIN; those it holds stay"));
		break;
	case MR_MEMLOCK:
		json_object_set_new(o, "pid", json_integer(priv->pid));
		json_object_set_new(o, "memlock",
				    json_pack("{s:o, s:o}", "soft",
					      mr_rlim_json(priv->prior.rlim_cur), "hard",
					      mr_rlim_json(priv->prior.rlim_max)));
		json_object_set_new(o, "limit", mr_rlim_json(priv->limit.rlim_cur));
		json_object_set_new(o, "note",
				    json_string("RLIMIT_MEMLOCK bounds what registrations pin from "
						"now on: with a limit of 0 they fail with EPERM, "
						"else with ENOMEM once the process's pinned memory "
						"would pass it; those made stay"));
		break;
	case MR_SHIM:
		json_object_set_new(o, "shim_sock", json_string(priv->sock));
		if (priv->cmd.mr_prob > 0)
			json_object_set_new(o, "probability", json_real(priv->cmd.mr_prob));
		else
			json_object_set_new(o, "count", json_integer(priv->cmd.mr_count));
		json_object_set_new(o, "errno", json_integer(priv->cmd.mr_errno));
		break;
	}
	return o;
}

static void mr_cleanup(struct inj_fault *f)
{
	free(f->priv);
	f->priv = NULL;
}

const struct injector inj_mr_failure = {
    .name = "mr_failure",
    .summary = "make a workload's memory registrations fail (rdma cgroup, RLIMIT_MEMLOCK or "
	       "its verbs shim)",
    .flags = INJ_NEEDS_DURATION | INJ_BITES_ON_REG,
    .param_help = mr_help,
    .validate = mr_validate,
    .prepare = mr_prepare,
    .inject = mr_inject,
    .revert = mr_revert,
    .verify = mr_verify,
    .describe_prior = mr_describe_prior,
    .snapshot = mr_snapshot,
    .restore = mr_restore,
    .cleanup = mr_cleanup,
};
