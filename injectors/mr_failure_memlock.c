// SPDX-License-Identifier: MIT
/*
 * mr_failure's memlock mechanism: RLIMIT_MEMLOCK of the process through
 * prlimit(2), soft and hard, to `bytes`: a registration that would pin more
 * fails (ENOMEM; EPERM with a limit of 0). Useless against CAP_IPC_LOCK,
 * which root has: refused unless the workload was started without it
 * (workload_start "no_ipc_lock"). Revert restores the exact prior pair. A
 * process that is gone (or whose pid now names another process: its start
 * time differs) counts as reverted. The snapshot holds the pid, its start
 * time and the prior limits.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "common/units.h"
#include "injectors/inj_rdmacg.h"
#include "injectors/inj_util.h"
#include "injectors/mr_failure.h"
#include "injectors/mr_failure_mech.h"
#include "common/errbuf.h"

#define MR_CAP_IPC_LOCK 14 /* linux/capability.h */

const char *mr_failure_proc_root = "/proc";

static int mr_memlock_parse(const json_t *params, struct mr_params *p, char *err, size_t errlen)
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
	return errbuf_fail(
	    err, errlen, -EINVAL,
	    "mr_failure: params.bytes: must be a byte count (an integer >= 0, or a size "
	    "such as \"64KiB\")");
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

/* 1 when ml->pid still names the process prepare() saw, 0 when it is gone, or -errno. */
static int mr_same_process(const struct mr_memlock *ml)
{
	unsigned long long st;
	int ret = mr_starttime(ml->pid, &st);

	if (ret == -ESRCH)
		return 0;
	if (ret)
		return ret;
	return st == ml->starttime;
}

static int mr_memlock_prepare(struct inj_fault *f, struct mr_priv *priv, const struct mr_params *p)
{
	struct mr_memlock *ml = &priv->ml;
	char status[4096], *cap;
	unsigned long long eff;
	int ret;

	ml->pid = f->target.pid;
	ret = mr_proc_read(ml->pid, "status", status, sizeof(status));
	if (ret && ret != -EFBIG)
		return inj_fail(f, ret == -ENOENT ? -ESRCH : ret,
				"mr_failure: workload %s: pid %d: %s/%d/status: %s",
				f->target.workload, ml->pid, mr_failure_proc_root, ml->pid,
				strerror(-ret));
	cap = strstr(status, "\nCapEff:");
	if (!cap || sscanf(cap + 8, "%llx", &eff) != 1)
		return inj_fail(f, -EPROTO,
				"mr_failure: workload %s: pid %d: no CapEff in %s/%d/status",
				f->target.workload, ml->pid, mr_failure_proc_root, ml->pid);
	if (eff & (1ULL << MR_CAP_IPC_LOCK))
		return inj_fail(
		    f, -EPERM,
		    "mr_failure: workload %s: pid %d has CAP_IPC_LOCK, which ignores "
		    "RLIMIT_MEMLOCK: start the workload with no_ipc_lock (workload_start "
		    "\"no_ipc_lock\": true)",
		    f->target.workload, ml->pid);
	ret = mr_starttime(ml->pid, &ml->starttime);
	if (ret)
		return inj_fail(f, ret, "mr_failure: workload %s: pid %d: %s/%d/stat: %s",
				f->target.workload, ml->pid, mr_failure_proc_root, ml->pid,
				ret == -EPROTO ? "no start time in it" : strerror(-ret));
	if (prlimit(ml->pid, RLIMIT_MEMLOCK, NULL, &ml->prior))
		return inj_fail(f, -errno, "mr_failure: workload %s: pid %d: prlimit: %s",
				f->target.workload, ml->pid, strerror(errno));
	if (ml->prior.rlim_cur != RLIM_INFINITY && p->bytes >= ml->prior.rlim_cur)
		return inj_fail(f, -EINVAL,
				"mr_failure: workload %s: pid %d: bytes %" PRIu64
				" would not lower RLIMIT_MEMLOCK (soft %llu): give a smaller bytes",
				f->target.workload, ml->pid, p->bytes,
				(unsigned long long)ml->prior.rlim_cur);
	ml->limit.rlim_cur = ml->limit.rlim_max = (rlim_t)p->bytes;
	return 0;
}

static int mr_memlock_inject(struct inj_fault *f, struct mr_priv *priv)
{
	const struct mr_memlock *ml = &priv->ml;
	int ret = mr_same_process(ml);

	if (ret <= 0)
		return inj_fail(f, ret ? ret : -ESRCH, "mr_failure: workload %s: pid %d: %s",
				f->target.workload, ml->pid, ret ? strerror(-ret) : "gone");
	if (prlimit(ml->pid, RLIMIT_MEMLOCK, &ml->limit, NULL))
		return inj_fail(f, -errno,
				"mr_failure: workload %s: pid %d: prlimit RLIMIT_MEMLOCK %llu: "
				"%s",
				f->target.workload, ml->pid, (unsigned long long)ml->limit.rlim_cur,
				strerror(errno));
	return 0;
}

/* "unlimited" or the number, for sentences. */
static const char *mr_rlim_str(rlim_t v, char *buf, size_t len)
{
	if (v == RLIM_INFINITY)
		return "unlimited";
	snprintf(buf, len, "%llu", (unsigned long long)v);
	return buf;
}

/*
 * The workload's RLIMIT_MEMLOCK now, for revert and verify: 1 with it in
 * *now, 0 when the process is gone (exited, or its pid reused), or -errno
 * with a sentence in f->err.
 */
static int mr_memlock_now(struct inj_fault *f, const struct mr_memlock *ml, struct rlimit *now)
{
	int ret = mr_same_process(ml);

	if (ret < 0)
		return inj_fail(f, ret, "mr_failure: pid %d: %s/%d/stat: %s", ml->pid,
				mr_failure_proc_root, ml->pid, strerror(-ret));
	if (!ret)
		return 0;
	if (prlimit(ml->pid, RLIMIT_MEMLOCK, NULL, now))
		return errno == ESRCH ? 0
				      : inj_fail(f, -errno, "mr_failure: pid %d: prlimit: %s",
						 ml->pid, strerror(errno));
	return 1;
}

static int mr_memlock_revert(struct inj_fault *f, struct mr_priv *priv)
{
	const struct mr_memlock *ml = &priv->ml;
	char a[32], b[32];
	struct rlimit now;
	int ret;

	ret = mr_memlock_now(f, ml, &now);
	if (ret <= 0) {
		if (!ret)
			inj_action(f, "pid %d: gone (the workload exited): nothing to restore",
				   ml->pid);
		return ret;
	}
	if (now.rlim_cur == ml->prior.rlim_cur && now.rlim_max == ml->prior.rlim_max) {
		inj_action(f, "pid %d: RLIMIT_MEMLOCK already %s/%s", ml->pid,
			   mr_rlim_str(now.rlim_cur, a, sizeof(a)),
			   mr_rlim_str(now.rlim_max, b, sizeof(b)));
		return 0;
	}
	if (prlimit(ml->pid, RLIMIT_MEMLOCK, &ml->prior, NULL)) {
		if (errno == ESRCH) {
			inj_action(f, "pid %d: gone (the workload exited): nothing to restore",
				   ml->pid);
			return 0;
		}
		return inj_fail(f, -errno,
				"mr_failure: pid %d: prlimit RLIMIT_MEMLOCK back to %s/%s: "
				"%s%s",
				ml->pid, mr_rlim_str(ml->prior.rlim_cur, a, sizeof(a)),
				mr_rlim_str(ml->prior.rlim_max, b, sizeof(b)), strerror(errno),
				errno == EPERM ? " (raising a hard limit needs CAP_SYS_RESOURCE)"
					       : "");
	}
	inj_action(f, "pid %d: RLIMIT_MEMLOCK set %s/%s (was %llu/%llu)", ml->pid,
		   mr_rlim_str(ml->prior.rlim_cur, a, sizeof(a)),
		   mr_rlim_str(ml->prior.rlim_max, b, sizeof(b)), (unsigned long long)now.rlim_cur,
		   (unsigned long long)now.rlim_max);
	return 0;
}

static int mr_memlock_verify(struct inj_fault *f, struct mr_priv *priv)
{
	const struct mr_memlock *ml = &priv->ml;
	char a[32], b[32], c[32], d[32];
	struct rlimit now;
	int ret;

	ret = mr_memlock_now(f, ml, &now);
	if (ret <= 0)
		return ret; /* a process that is gone holds no limit to verify */
	if (now.rlim_cur != ml->prior.rlim_cur || now.rlim_max != ml->prior.rlim_max)
		return inj_fail(f, -EIO,
				"mr_failure: pid %d: RLIMIT_MEMLOCK is %s/%s, not its prior "
				"%s/%s",
				ml->pid, mr_rlim_str(now.rlim_cur, a, sizeof(a)),
				mr_rlim_str(now.rlim_max, b, sizeof(b)),
				mr_rlim_str(ml->prior.rlim_cur, c, sizeof(c)),
				mr_rlim_str(ml->prior.rlim_max, d, sizeof(d)));
	return 0;
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

static void mr_memlock_describe_prior(const struct inj_fault *f, const struct mr_priv *priv,
				      json_t *o)
{
	const struct mr_memlock *ml = &priv->ml;

	json_object_set_new(o, "pid", json_integer(ml->pid));
	json_object_set_new(o, "memlock",
			    json_pack("{s:o, s:o}", "soft", mr_rlim_json(ml->prior.rlim_cur),
				      "hard", mr_rlim_json(ml->prior.rlim_max)));
	json_object_set_new(o, "limit", mr_rlim_json(ml->limit.rlim_cur));
	json_object_set_new(o, "note",
			    json_string("RLIMIT_MEMLOCK bounds what registrations pin from "
					"now on: with a limit of 0 they fail with EPERM, "
					"else with ENOMEM once the process's pinned memory "
					"would pass it; those made stay"));
}

static void mr_memlock_snapshot(const struct mr_priv *priv, json_t *o)
{
	const struct mr_memlock *ml = &priv->ml;

	json_object_set_new(o, "pid", json_integer(ml->pid));
	json_object_set_new(o, "starttime", json_integer((json_int_t)ml->starttime));
	json_object_set_new(o, "prior_soft", mr_rlim_json(ml->prior.rlim_cur));
	json_object_set_new(o, "prior_hard", mr_rlim_json(ml->prior.rlim_max));
	json_object_set_new(o, "limit", mr_rlim_json(ml->limit.rlim_cur));
}

static int mr_memlock_restore(struct mr_priv *priv, const json_t *snap)
{
	struct mr_memlock *ml = &priv->ml;
	const json_t *pid = json_object_get(snap, "pid"), *st = json_object_get(snap, "starttime");
	rlim_t limit;

	if (!json_is_integer(pid) || json_integer_value(pid) <= 0 ||
	    json_integer_value(pid) > INT32_MAX || !json_is_integer(st) ||
	    json_integer_value(st) < 0 ||
	    mr_rlim_parse(json_object_get(snap, "prior_soft"), &ml->prior.rlim_cur) ||
	    mr_rlim_parse(json_object_get(snap, "prior_hard"), &ml->prior.rlim_max) ||
	    mr_rlim_parse(json_object_get(snap, "limit"), &limit))
		return -EINVAL;
	ml->pid = (int)json_integer_value(pid);
	ml->starttime = (unsigned long long)json_integer_value(st);
	ml->limit.rlim_cur = ml->limit.rlim_max = limit;
	return 0;
}

/* Only the target's own process. */
static int mr_memlock_owned(struct inj_fault *f, const struct mr_priv *priv)
{
	const struct inj_target *t = &f->target;

	if (t->pid > 0 && t->pid == priv->ml.pid)
		return 0;
	return inj_fail(f, -EPERM,
			"mr_failure: the journaled snapshot names pid %d, not its target's "
			"(%d): refused",
			priv->ml.pid, t->pid);
}

static const char *const mr_memlock_keys[] = {"bytes", NULL};

const struct mr_mech_ops mr_memlock_ops = {
    .name = "memlock",
    .keys = mr_memlock_keys,
    .parse = mr_memlock_parse,
    .prepare = mr_memlock_prepare,
    .inject = mr_memlock_inject,
    .revert = mr_memlock_revert,
    .verify = mr_memlock_verify,
    .describe_prior = mr_memlock_describe_prior,
    .snapshot = mr_memlock_snapshot,
    .restore = mr_memlock_restore,
    .owned = mr_memlock_owned,
};
