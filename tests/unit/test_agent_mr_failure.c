// SPDX-License-Identifier: MIT
/*
 * mr_failure against fakes: a temporary folder plays the workload's cgroup
 * (rdma.max, rdma.current; inj_rdmacg_write is wrapped to merge a device's
 * line into the file as the kernel does), another plays /proc (PID/status,
 * PID/stat), prlimit(2) is a table, and shim_call a scripted shim. Checks
 * the parameters' refusals, that the exact prior state comes back, that
 * revert is idempotent, that verify notices a change made by someone else,
 * and that a journaled snapshot alone reverts (restore).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <cmocka.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/shim_proto.h"
#include "injectors/inj_rdmacg.h"
#include "injectors/injector.h"
#include "injectors/mr_failure.h"
#include "tests/unit/scratch_dir.h"

#define PID 4242

static char tmp[64], cg[128], proc[128];

/* ---- the fake kernel: rdma.max merges one device's keys per write ---- */

static int cg_writes, cg_write_err;

int __real_inj_rdmacg_write(const char *path, const char *line);
int __wrap_inj_rdmacg_write(const char *path, const char *line);

int __wrap_inj_rdmacg_write(const char *path, const char *line)
{
	char file[INJ_RDMACG_FILE], out[INJ_RDMACG_FILE], dev[INJ_RDMACG_DEV_LEN], cur[256];
	const char *p = line, *key;
	size_t n = strcspn(line, " ");
	bool found = false;
	char *l, *save = NULL;
	int ret;

	if (cg_write_err)
		return cg_write_err;
	ret = inj_rdmacg_read(path, file, sizeof(file));
	if (ret)
		return ret;
	cg_writes++;
	assert_true(n > 0 && n < sizeof(dev));
	memcpy(dev, line, n);
	dev[n] = '\0';
	out[0] = '\0';
	for (l = strtok_r(file, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		long long h = INJ_RDMACG_MAX, o = INJ_RDMACG_MAX, v;
		char hs[24], os[24];

		if (strncmp(l, dev, n) || l[n] != ' ') {
			strcat(out, l);
			strcat(out, "\n");
			continue;
		}
		found = true;
		inj_rdmacg_value(l, "hca_handle", &h);
		inj_rdmacg_value(l, "hca_object", &o);
		for (key = "hca_handle"; key; key = strcmp(key, "hca_handle") ? NULL : "hca_object")
			if (!inj_rdmacg_value(p, key, &v))
				*(strcmp(key, "hca_handle") ? &o : &h) = v;
		snprintf(hs, sizeof(hs), h == INJ_RDMACG_MAX ? "max" : "%lld", h);
		snprintf(os, sizeof(os), o == INJ_RDMACG_MAX ? "max" : "%lld", o);
		snprintf(cur, sizeof(cur), "%s hca_handle=%s hca_object=%s\n", dev, hs, os);
		strcat(out, cur);
	}
	if (!found) { /* a device without a line: written as given */
		strcat(out, line);
		strcat(out, "\n");
	}
	return __real_inj_rdmacg_write(path, out);
}

/* ---- the fake prlimit: one process ---- */

static struct {
	struct rlimit rl;
	bool gone;
	int set_err; /* errno for a set, 0: success */
	int sets;
} pr;

int __wrap_prlimit(pid_t pid, __rlimit_resource_t resource, const struct rlimit *new_limit,
		   struct rlimit *old_limit);

int __wrap_prlimit(pid_t pid, __rlimit_resource_t resource, const struct rlimit *new_limit,
		   struct rlimit *old_limit)
{
	assert_int_equal(pid, PID);
	assert_int_equal(resource, RLIMIT_MEMLOCK);
	if (pr.gone) {
		errno = ESRCH;
		return -1;
	}
	if (old_limit)
		*old_limit = pr.rl;
	if (new_limit) {
		if (pr.set_err) {
			errno = pr.set_err;
			return -1;
		}
		assert_true(new_limit->rlim_cur <= new_limit->rlim_max);
		pr.rl = *new_limit;
		pr.sets++;
	}
	return 0;
}

/* ---- the fake shim ---- */

static struct {
	bool gone;
	bool armed;
	bool ignore_clear;
	int calls[SHIM_OP_STATUS + 1];
	struct shim_cmd last;
	char sock[108];
} sh;

int __wrap_shim_call(const char *sock_path, const struct shim_cmd *c, int timeout_ms,
		     json_t **reply, char *err, size_t errlen);

int __wrap_shim_call(const char *sock_path, const struct shim_cmd *c, int timeout_ms,
		     json_t **reply, char *err, size_t errlen)
{
	bool was = sh.armed;

	snprintf(sh.sock, sizeof(sh.sock), "%s", sock_path);
	if (sh.gone) {
		snprintf(err, errlen, "workload's shim at %s is not answering", sock_path);
		return -ESRCH;
	}
	sh.calls[c->op]++;
	sh.last = *c;
	if (c->op == SHIM_OP_FAIL_MR)
		sh.armed = true;
	if (c->op == SHIM_OP_CLEAR && !sh.ignore_clear)
		sh.armed = false;
	*reply = json_pack("{s:b, s:{s:b, s:i}, s:b}", "ok", 1, "armed", "any", sh.armed, "fail_mr",
			   sh.armed ? 1 : 0, "was_armed", was);
	return 0;
}

/* ---- helpers ---- */

static char *get(const char *dir, const char *rel)
{
	static char buf[INJ_RDMACG_FILE];
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	assert_int_equal(inj_rdmacg_read(path, buf, sizeof(buf)), 0);
	return buf;
}

static const char rdma_max[] = "rxe0 hca_handle=max hca_object=max\n"
			       "rxe1 hca_handle=2 hca_object=10\n";
static const char rdma_current[] = "rxe0 hca_handle=1 hca_object=7\n"
				   "rxe1 hca_handle=0 hca_object=0\n";

static void proc_status(unsigned long long capeff)
{
	char buf[256];

	snprintf(buf, sizeof(buf),
		 "Name:\trdmachaos-strea\nPid:\t%d\nCapInh:\t0000000000000000\n"
		 "CapPrm:\t%016llx\nCapEff:\t%016llx\n",
		 PID, capeff, capeff);
	scratch_put(proc, "4242/status", buf, 0644);
}

/* A command name with spaces and parentheses: the start time is found after the last ')'. */
static void proc_stat(unsigned long long starttime)
{
	char buf[512];

	snprintf(buf, sizeof(buf),
		 "%d (a) b (c)) S 1 %d %d 0 -1 4194560 100 0 0 0 5 3 0 0 20 0 1 0 %llu 1000 "
		 "200 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0\n",
		 PID, PID, PID, starttime);
	scratch_put(proc, "4242/stat", buf, 0644);
}

static int setup(void **state)
{
	if (scratch_make(tmp, sizeof(tmp), "mr"))
		return -1;
	snprintf(cg, sizeof(cg), "%s/cg", tmp);
	snprintf(proc, sizeof(proc), "%s/proc", tmp);
	scratch_mkdir(tmp, "cg");
	scratch_mkdir(tmp, "proc/4242");
	scratch_put(cg, "rdma.max", rdma_max, 0644);
	scratch_put(cg, "rdma.current", rdma_current, 0644);
	proc_status(0x1ffffffbfffULL); /* every capability but CAP_IPC_LOCK (14) */
	proc_stat(123456);
	mr_failure_proc_root = proc;
	memset(&pr, 0, sizeof(pr));
	pr.rl = (struct rlimit){8 << 20, 16 << 20};
	memset(&sh, 0, sizeof(sh));
	cg_writes = cg_write_err = 0;
	return 0;
}

static int teardown(void **state)
{
	return scratch_remove(tmp);
}

static const struct injector *inj(void)
{
	const struct injector *i = injector_find("mr_failure");

	assert_non_null(i);
	return i;
}

/* A fault on workload "stream" (pid PID, cgroup cg, a shim socket); dev: its rail's device. */
static struct inj_fault *fault(const char *params, const char *dev)
{
	struct inj_fault *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	f->inj = inj();
	snprintf(f->id, sizeof(f->id), "f1");
	f->target.rail = -1;
	snprintf(f->target.workload, sizeof(f->target.workload), "stream");
	f->target.pid = PID;
	snprintf(f->target.cgroup, sizeof(f->target.cgroup), "%s", cg);
	snprintf(f->target.shim_sock, sizeof(f->target.shim_sock),
		 "/run/rdmachaos/shim/stream.sock");
	if (dev)
		snprintf(f->target.device, sizeof(f->target.device), "%s", dev);
	f->params = json_loads(params, 0, NULL);
	assert_non_null(f->params);
	f->actions = json_array();
	return f;
}

static void fault_free(struct inj_fault *f)
{
	if (f->inj->cleanup)
		f->inj->cleanup(f);
	json_decref(f->params);
	json_decref(f->actions);
	free(f);
}

/* The last action sentence contains says. */
static void acted(struct inj_fault *f, const char *says)
{
	const char *s =
	    json_string_value(json_array_get(f->actions, json_array_size(f->actions) - 1));

	if (!s || !strstr(s, says))
		fail_msg("last action \"%s\", want \"%s\"", s ? s : "(none)", says);
}

/* A new fault as a restarted agent builds it from f's journaled snapshot. */
static struct inj_fault *restored(struct inj_fault *f)
{
	json_t *snap = f->inj->snapshot(f);
	struct inj_fault *g;
	char *text;

	assert_non_null(snap);
	/* Through text, as the journal holds it. */
	text = json_dumps(snap, 0);
	json_decref(snap);
	snap = json_loads(text, 0, NULL);
	free(text);
	text = json_dumps(f->params, 0);
	g = fault(text, NULL);
	free(text);
	g->target = f->target;
	assert_int_equal(g->inj->restore(g, snap), 0);
	json_decref(snap);
	return g;
}

/* ---- validate ---- */

static void refused(const char *params, const char *says)
{
	json_t *p = json_loads(params, 0, NULL);
	char err[256] = "";

	assert_non_null(p);
	assert_int_equal(inj()->validate(p, err, sizeof(err)), -EINVAL);
	if (!strstr(err, says))
		fail_msg("%s: got \"%s\", want \"%s\"", params, err, says);
	json_decref(p);
}

static void accepted(const char *params)
{
	json_t *p = json_loads(params, 0, NULL);
	char err[256] = "";

	assert_non_null(p);
	if (inj()->validate(p, err, sizeof(err)))
		fail_msg("%s: refused: %s", params, err);
	json_decref(p);
}

static void test_validate(void **state)
{
	refused("{}",
		"mr_failure: params.mechanism: missing (\"cgroup\", \"memlock\" or \"shim\")");
	refused("{\"mechanism\": \"oom\"}", "mr_failure: params.mechanism: unknown");
	refused("{\"mechanism\": 1}", "mr_failure: params.mechanism: unknown");
	refused("{\"mechanism\": \"cgroup\", \"frob\": 1}",
		"mr_failure: params.frob: unknown parameter (mr_failure takes mechanism, device");
	refused("{\"mechanism\": \"cgroup\", \"bytes\": 0}",
		"mr_failure: params.bytes: not a parameter of mechanism cgroup");
	refused("{\"mechanism\": \"memlock\", \"count\": 1}",
		"mr_failure: params.count: not a parameter of mechanism memlock");
	refused("{\"mechanism\": \"shim\", \"hca_object\": 1}",
		"mr_failure: params.hca_object: not a parameter of mechanism shim");
	refused("{\"mechanism\": \"cgroup\", \"hca_object\": -1}",
		"mr_failure: params.hca_object: must be an integer in 0..2147483647 or "
		"\"current\"");
	refused("{\"mechanism\": \"cgroup\", \"hca_object\": \"all\"}",
		"params.hca_object: must be");
	refused("{\"mechanism\": \"cgroup\", \"hca_handle\": 2.5}", "params.hca_handle: must be");
	refused("{\"mechanism\": \"cgroup\", \"device\": \"a/b\"}",
		"mr_failure: params.device: must be an RDMA device name");
	refused("{\"mechanism\": \"cgroup\", \"device\": \"\"}", "params.device: must be");
	refused("{\"mechanism\": \"memlock\", \"bytes\": -1}",
		"mr_failure: params.bytes: must be a byte count");
	refused("{\"mechanism\": \"memlock\", \"bytes\": \"lots\"}", "params.bytes: must be");
	refused("{\"mechanism\": \"shim\", \"count\": 0}",
		"mr_failure: params.count: must be an integer in 1..1000000");
	refused("{\"mechanism\": \"shim\", \"probability\": 0}",
		"mr_failure: params.probability: must be a number with 0 < p <= 1");
	refused("{\"mechanism\": \"shim\", \"probability\": 1.5}", "params.probability: must be");
	refused("{\"mechanism\": \"shim\", \"probability\": \"half\"}",
		"params.probability: must be");
	refused("{\"mechanism\": \"shim\", \"count\": 2, \"probability\": 0.5}",
		"mr_failure: params.count and params.probability: give one of the two");
	refused("{\"mechanism\": \"shim\", \"errno\": \"EBOGUS\"}",
		"mr_failure: params.errno: must be an errno name");
	refused("{\"mechanism\": \"shim\", \"errno\": 0}", "params.errno: must be");

	accepted("{\"mechanism\": \"cgroup\"}");
	accepted("{\"mechanism\": \"cgroup\", \"device\": \"mlx5_0\", \"hca_object\": 0, "
		 "\"hca_handle\": \"current\"}");
	accepted("{\"mechanism\": \"memlock\"}");
	accepted("{\"mechanism\": \"memlock\", \"bytes\": \"64KiB\"}");
	accepted("{\"mechanism\": \"shim\"}");
	accepted("{\"mechanism\": \"shim\", \"count\": 3, \"errno\": \"eagain\"}");
	accepted("{\"mechanism\": \"shim\", \"probability\": 1, \"errno\": 12}");
}

static void prepare_fails(struct inj_fault *f, int err, const char *says)
{
	assert_int_equal(f->inj->prepare(f), err);
	if (!strstr(f->err, says))
		fail_msg("got \"%s\", want \"%s\"", f->err, says);
	assert_null(f->priv);
	fault_free(f);
}

static void test_targets(void **state)
{
	struct inj_fault *f = fault("{\"mechanism\": \"cgroup\"}", NULL);

	f->target.workload[0] = '\0';
	f->target.pid = 0;
	snprintf(f->target.netdev, sizeof(f->target.netdev), "rail0");
	prepare_fails(f, -EINVAL,
		      "mr_failure: the target must be a workload ({\"workload\": WL_ID})");

	f = fault("{\"mechanism\": \"cgroup\"}", NULL);
	f->target.cgroup[0] = '\0';
	prepare_fails(f, -EINVAL,
		      "mr_failure: workload stream was started without a cgroup: start it with "
		      "\"cgroup\": true");

	f = fault("{\"mechanism\": \"shim\"}", NULL);
	f->target.shim_sock[0] = '\0';
	prepare_fails(f, -EINVAL,
		      "mr_failure: workload stream was started without the verbs shim: start it "
		      "with \"shim\": true");

	/* The cgroup exists but has no rdma files: the controller is not enabled for it. */
	f = fault("{\"mechanism\": \"cgroup\"}", NULL);
	snprintf(f->target.cgroup, sizeof(f->target.cgroup), "%s", proc);
	prepare_fails(f, -ENOENT, "(is the rdma controller enabled for it?)");
}

/* ---- cgroup ---- */

/* The target's device only; hca_object "current" is rdma.current's count. */
static void test_cgroup_target_device(void **state)
{
	struct inj_fault *f = fault("{\"mechanism\": \"cgroup\"}", "rxe0");
	json_t *prior;

	assert_int_equal(f->inj->prepare(f), 0);
	prior = f->inj->describe_prior(f);
	assert_string_equal(
	    json_string_value(json_object_get(json_object_get(prior, "rdma.max"), "rxe0")),
	    "rxe0 hca_handle=max hca_object=max");
	assert_string_equal(json_string_value(json_array_get(json_object_get(prior, "limit"), 0)),
			    "rxe0 hca_object=7");
	json_decref(prior);

	assert_int_equal(f->inj->inject(f), 0);
	assert_string_equal(get(cg, "rdma.max"), "rxe0 hca_handle=max hca_object=7\n"
						 "rxe1 hca_handle=2 hca_object=10\n");
	assert_int_equal(f->inj->revert(f), 0);
	acted(f, "rxe0: set \"rxe0 hca_handle=max hca_object=max\" (was \"rxe0 hca_handle=max "
		 "hca_object=7\")");
	assert_string_equal(get(cg, "rdma.max"), rdma_max);
	assert_int_equal(f->inj->verify(f), 0);

	/* Idempotent: nothing written the second time. */
	cg_writes = 0;
	assert_int_equal(f->inj->revert(f), 0);
	acted(f, "rxe0: already \"rxe0 hca_handle=max hca_object=max\"");
	assert_int_equal(cg_writes, 0);
	assert_int_equal(f->inj->verify(f), 0);
	assert_string_equal(get(cg, "rdma.max"), rdma_max);
	fault_free(f);
}

/* No device named anywhere: every device rdma.max lists; each prior line back exactly. */
static void test_cgroup_every_device(void **state)
{
	struct inj_fault *f = fault("{\"mechanism\": \"cgroup\"}", NULL);

	assert_int_equal(f->inj->prepare(f), 0);
	assert_int_equal(f->inj->inject(f), 0);
	assert_string_equal(get(cg, "rdma.max"), "rxe0 hca_handle=max hca_object=7\n"
						 "rxe1 hca_handle=2 hca_object=0\n");
	assert_int_equal(f->inj->revert(f), 0);
	assert_string_equal(get(cg, "rdma.max"), rdma_max);
	assert_int_equal(f->inj->verify(f), 0);

	/* Someone else changes a limit after the revert: verify says so, naming both. */
	scratch_put(cg, "rdma.max",
		    "rxe0 hca_handle=max hca_object=max\nrxe1 hca_handle=2 hca_object=4\n", 0644);
	assert_int_equal(f->inj->verify(f), -EIO);
	assert_non_null(strstr(f->err, "rdma.max: rxe1 reads \"rxe1 hca_handle=2 hca_object=4\", "
				       "not its prior \"rxe1 hca_handle=2 hca_object=10\""));
	/* ... and the next revert puts it back. */
	assert_int_equal(f->inj->revert(f), 0);
	assert_string_equal(get(cg, "rdma.max"), rdma_max);
	assert_int_equal(f->inj->verify(f), 0);
	fault_free(f);
}

/* Explicit values; a device without a line gets "max" back. */
static void test_cgroup_explicit(void **state)
{
	struct inj_fault *f = fault("{\"mechanism\": \"cgroup\", \"device\": \"rxe1\", "
				    "\"hca_object\": 3, \"hca_handle\": \"current\"}",
				    "rxe0");

	assert_int_equal(f->inj->prepare(f), 0);
	assert_int_equal(f->inj->inject(f), 0);
	assert_string_equal(get(cg, "rdma.max"), "rxe0 hca_handle=max hca_object=max\n"
						 "rxe1 hca_handle=0 hca_object=3\n");
	assert_int_equal(f->inj->revert(f), 0);
	assert_string_equal(get(cg, "rdma.max"), rdma_max);
	fault_free(f);

	f = fault("{\"mechanism\": \"cgroup\", \"device\": \"rxe9\"}", NULL);
	assert_int_equal(f->inj->prepare(f), 0);
	assert_int_equal(f->inj->inject(f), 0);
	assert_non_null(strstr(get(cg, "rdma.max"), "rxe9 hca_object=0\n"));
	assert_int_equal(f->inj->revert(f), 0);
	assert_non_null(strstr(get(cg, "rdma.max"), "rxe9 hca_handle=max hca_object=max\n"));
	assert_int_equal(f->inj->verify(f), 0);
	fault_free(f);
}

static void test_cgroup_write_fails(void **state)
{
	struct inj_fault *f = fault("{\"mechanism\": \"cgroup\"}", "rxe1");

	assert_int_equal(f->inj->prepare(f), 0);
	cg_write_err = -EINVAL;
	assert_int_equal(f->inj->inject(f), -EINVAL);
	assert_non_null(
	    strstr(f->err, "rdma.max: writing \"rxe1 hca_object=0\": Invalid argument"));
	cg_write_err = 0;
	assert_int_equal(f->inj->revert(f), 0);
	assert_int_equal(f->inj->verify(f), 0);
	assert_string_equal(get(cg, "rdma.max"), rdma_max);
	fault_free(f);
}

/* The cgroup went with its workload: nothing to restore, and nothing left to verify. */
static void test_cgroup_gone(void **state)
{
	struct inj_fault *f = fault("{\"mechanism\": \"cgroup\"}", NULL);
	char path[200];

	assert_int_equal(f->inj->prepare(f), 0);
	assert_int_equal(f->inj->inject(f), 0);
	snprintf(path, sizeof(path), "%s/rdma.max", cg);
	unlink(path);
	snprintf(path, sizeof(path), "%s/rdma.current", cg);
	unlink(path);
	rmdir(cg);
	assert_int_equal(f->inj->revert(f), 0);
	acted(f, "rdma.max: gone (its workload exited): nothing to restore");
	assert_int_equal(f->inj->verify(f), 0);
	fault_free(f);
}

/* An agent that died mid-fault: the snapshot alone reverts it. */
static void test_cgroup_restore(void **state)
{
	struct inj_fault *f = fault("{\"mechanism\": \"cgroup\"}", NULL), *g;
	json_t *bad;

	assert_int_equal(f->inj->prepare(f), 0);
	assert_int_equal(f->inj->inject(f), 0);
	g = restored(f);
	/* The restored fault does not look at the target's cgroup: the snapshot has the path. */
	g->target.cgroup[0] = '\0';
	assert_int_equal(g->inj->revert(g), 0);
	assert_string_equal(get(cg, "rdma.max"), rdma_max);
	assert_int_equal(g->inj->verify(g), 0);
	fault_free(g);
	fault_free(f);

	/*
	 * A forged record: a snapshot naming a file other than its target's rdma.max (revert would
	 * write it) is refused, as is one whose target has no cgroup.
	 */
	g = fault("{\"mechanism\": \"cgroup\"}", NULL);
	bad = json_pack("{s:s, s:s, s:[{s:s, s:s, s:n}]}", "mechanism", "cgroup", "rdma_max",
			"/etc/passwd", "devices", "name", "root:x:0:0:root:/root:/bin/bash",
			"limit", "x", "prior");
	assert_int_equal(g->inj->restore(g, bad), -EPERM);
	assert_non_null(strstr(g->err, "snapshot names /etc/passwd, not its target's cgroup"));
	assert_null(g->priv);
	g->target.cgroup[0] = '\0';
	json_object_set_new(bad, "rdma_max", json_string("/rdma.max"));
	assert_int_equal(g->inj->restore(g, bad), -EPERM);
	assert_non_null(strstr(g->err, "not its target's cgroup (none)"));
	json_decref(bad);
	fault_free(g);

	g = fault("{\"mechanism\": \"cgroup\"}", NULL);
	bad = json_pack("{s:s, s:s, s:[]}", "mechanism", "cgroup", "rdma_max", "/x", "devices");
	assert_int_equal(g->inj->restore(g, bad), -EINVAL);
	assert_non_null(strstr(g->err, "snapshot is unusable (mechanism cgroup)"));
	json_decref(bad);
	bad = json_pack("{s:s}", "mechanism", "bogus");
	assert_int_equal(g->inj->restore(g, bad), -EINVAL);
	json_decref(bad);
	fault_free(g);
}

/* ---- memlock ---- */

static void test_memlock_refuses_cap_ipc_lock(void **state)
{
	proc_status(0x1ffffffffffULL);
	prepare_fails(fault("{\"mechanism\": \"memlock\"}", NULL), -EPERM,
		      "mr_failure: workload stream: pid 4242 has CAP_IPC_LOCK, which ignores "
		      "RLIMIT_MEMLOCK: start the workload with no_ipc_lock");
	assert_int_equal(pr.sets, 0);
}

static void test_memlock(void **state)
{
	struct inj_fault *f = fault("{\"mechanism\": \"memlock\"}", NULL);
	json_t *prior;

	assert_int_equal(f->inj->prepare(f), 0);
	prior = f->inj->describe_prior(f);
	assert_int_equal(
	    json_integer_value(json_object_get(json_object_get(prior, "memlock"), "soft")),
	    8 << 20);
	assert_int_equal(
	    json_integer_value(json_object_get(json_object_get(prior, "memlock"), "hard")),
	    16 << 20);
	json_decref(prior);
	assert_int_equal(f->inj->inject(f), 0);
	assert_int_equal(pr.rl.rlim_cur, 0);
	assert_int_equal(pr.rl.rlim_max, 0);
	assert_int_equal(f->inj->revert(f), 0);
	acted(f, "pid 4242: RLIMIT_MEMLOCK set 8388608/16777216 (was 0/0)");
	assert_int_equal(pr.rl.rlim_cur, 8 << 20);
	assert_int_equal(pr.rl.rlim_max, 16 << 20);
	assert_int_equal(f->inj->verify(f), 0);
	assert_int_equal(f->inj->revert(f), 0);
	acted(f, "pid 4242: RLIMIT_MEMLOCK already 8388608/16777216");
	assert_int_equal(pr.sets, 2);

	pr.rl.rlim_cur = 4096;
	assert_int_equal(f->inj->verify(f), -EIO);
	assert_non_null(strstr(f->err, "RLIMIT_MEMLOCK is 4096/16777216, not its prior "
				       "8388608/16777216"));
	fault_free(f);

	/* bytes must lower the limit; "64KiB" is a size. */
	pr.rl = (struct rlimit){8 << 20, 16 << 20};
	prepare_fails(fault("{\"mechanism\": \"memlock\", \"bytes\": 8388608}", NULL), -EINVAL,
		      "bytes 8388608 would not lower RLIMIT_MEMLOCK (soft 8388608)");
	f = fault("{\"mechanism\": \"memlock\", \"bytes\": \"64KiB\"}", NULL);
	assert_int_equal(f->inj->prepare(f), 0);
	assert_int_equal(f->inj->inject(f), 0);
	assert_int_equal(pr.rl.rlim_cur, 65536);
	assert_int_equal(pr.rl.rlim_max, 65536);
	/* Raising the hard limit back is refused without CAP_SYS_RESOURCE: said so. */
	pr.set_err = EPERM;
	assert_int_equal(f->inj->revert(f), -EPERM);
	assert_non_null(strstr(f->err, "(raising a hard limit needs CAP_SYS_RESOURCE)"));
	pr.set_err = 0;
	assert_int_equal(f->inj->revert(f), 0);
	assert_int_equal(f->inj->verify(f), 0);
	fault_free(f);
}

/* Gone, or its pid reused by another process: counted as reverted, never touched. */
static void test_memlock_gone(void **state)
{
	struct inj_fault *f = fault("{\"mechanism\": \"memlock\"}", NULL), *g;
	char path[200];

	assert_int_equal(f->inj->prepare(f), 0);
	assert_int_equal(f->inj->inject(f), 0);
	proc_stat(999999); /* another process with the same pid */
	assert_int_equal(f->inj->revert(f), 0);
	acted(f, "pid 4242: gone (the workload exited): nothing to restore");
	assert_int_equal(pr.sets, 1);
	assert_int_equal(f->inj->verify(f), 0);

	proc_stat(123456);
	g = restored(f);
	snprintf(path, sizeof(path), "%s/4242/stat", proc);
	unlink(path);
	pr.gone = true;
	assert_int_equal(g->inj->revert(g), 0);
	acted(g, "pid 4242: gone");
	assert_int_equal(g->inj->verify(g), 0);
	fault_free(g);
	fault_free(f);
}

/* A restarted agent restores the exact prior pair, "unlimited" included. */
static void test_memlock_restore(void **state)
{
	struct inj_fault *f, *g;

	pr.rl = (struct rlimit){65536, RLIM_INFINITY};
	f = fault("{\"mechanism\": \"memlock\", \"bytes\": 4096}", NULL);
	assert_int_equal(f->inj->prepare(f), 0);
	assert_int_equal(f->inj->inject(f), 0);
	assert_int_equal(pr.rl.rlim_max, 4096);
	g = restored(f);
	assert_int_equal(g->inj->revert(g), 0);
	assert_int_equal(pr.rl.rlim_cur, 65536);
	assert_true(pr.rl.rlim_max == RLIM_INFINITY);
	assert_int_equal(g->inj->verify(g), 0);
	fault_free(g);
	fault_free(f);
}

/* ---- shim ---- */

static void test_shim(void **state)
{
	struct inj_fault *f =
			     fault("{\"mechanism\": \"shim\", \"count\": 3, \"errno\": \"EAGAIN\"}",
				   NULL),
			 *g;

	assert_int_equal(f->inj->prepare(f), 0);
	assert_int_equal(sh.calls[SHIM_OP_STATUS], 1);
	assert_false(sh.armed);
	assert_int_equal(f->inj->inject(f), 0);
	assert_int_equal(sh.last.op, SHIM_OP_FAIL_MR);
	assert_int_equal(sh.last.mr_count, 3);
	assert_int_equal(sh.last.mr_errno, EAGAIN);
	assert_true(sh.last.mr_prob == 0);
	assert_string_equal(sh.sock, "/run/rdmachaos/shim/stream.sock");
	assert_true(sh.armed);
	assert_int_equal(f->inj->revert(f), 0);
	acted(f, "stream.sock: shim cleared");
	assert_false(sh.armed);
	assert_int_equal(f->inj->verify(f), 0);

	/* A shim that stays armed fails verify. */
	sh.armed = true;
	sh.ignore_clear = true;
	assert_int_equal(f->inj->revert(f), 0);
	assert_int_equal(f->inj->verify(f), -EIO);
	assert_non_null(strstr(f->err, "the shim is still armed: {\"any\":true"));
	sh.ignore_clear = false;

	/* Restored from the snapshot: the socket is all it needs. */
	g = restored(f);
	g->target.shim_sock[0] = '\0';
	assert_int_equal(g->inj->revert(g), 0);
	assert_int_equal(g->inj->verify(g), 0);
	assert_false(sh.armed);

	/* The workload is gone: nothing to clear. */
	sh.gone = true;
	assert_int_equal(g->inj->revert(g), 0);
	acted(g, "the shim is gone (the workload exited): nothing to clear");
	assert_int_equal(g->inj->verify(g), 0);
	fault_free(g);
	fault_free(f);

	/* Probability; and a shim that does not answer fails prepare. */
	sh.gone = false;
	f = fault("{\"mechanism\": \"shim\", \"probability\": 0.25}", NULL);
	assert_int_equal(f->inj->prepare(f), 0);
	assert_int_equal(f->inj->inject(f), 0);
	assert_true(sh.last.mr_prob == 0.25);
	assert_int_equal(sh.last.mr_errno, ENOMEM);
	assert_int_equal(f->inj->revert(f), 0);
	fault_free(f);
	sh.gone = true;
	prepare_fails(
	    fault("{\"mechanism\": \"shim\"}", NULL), -ESRCH,
	    "mr_failure: workload stream: workload's shim at /run/rdmachaos/shim/stream.sock "
	    "is not answering");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_validate, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_targets, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_cgroup_target_device, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_cgroup_every_device, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_cgroup_explicit, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_cgroup_write_fails, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_cgroup_gone, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_cgroup_restore, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_memlock_refuses_cap_ipc_lock, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_memlock, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_memlock_gone, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_memlock_restore, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_shim, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
