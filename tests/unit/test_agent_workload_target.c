// SPDX-License-Identifier: MIT
/*
 * Workloads started with the start options (shim, cgroup, no_ipc_lock), and
 * workload targets ({"workload": WL_ID}) resolved against them. The workload
 * is a shell script standing in for rdmachaos-stream that records its
 * environment and capabilities; the cgroup root is a fake cgroupfs in a
 * temporary folder (agent_cgroup_create is wrapped to add the cgroup.procs
 * file the kernel would); the shim library is an empty file (the dynamic
 * loader ignores it, loudly).
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
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agents/agent.h"
#include "agents/agent_cgroup.h"
#include "common/units.h"
#include "tests/unit/agent_harness.h"
#include "tests/unit/scratch_dir.h"

static struct agent a, a2;
static char tmp[64], cgroot[128], out[128];

int __real_agent_cgroup_create(const char *root, const char *name, char *path, size_t len,
			       char *err, size_t errlen);
int __wrap_agent_cgroup_create(const char *root, const char *name, char *path, size_t len,
			       char *err, size_t errlen);

/* The kernel gives every new cgroup its cgroup.procs; a plain folder needs it made. */
int __wrap_agent_cgroup_create(const char *root, const char *name, char *path, size_t len,
			       char *err, size_t errlen)
{
	int ret = __real_agent_cgroup_create(root, name, path, len, err, errlen);
	char procs[300];
	FILE *f;

	if (ret)
		return ret;
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", path);
	f = fopen(procs, "w");
	if (!f)
		return -errno;
	fclose(f);
	/* And, with rdma enabled, its rdma files (one device, rxe0). */
	snprintf(procs, sizeof(procs), "%s/rdma.max", path);
	f = fopen(procs, "w");
	if (!f)
		return -errno;
	fputs("rxe0 hca_handle=max hca_object=max\n", f);
	fclose(f);
	snprintf(procs, sizeof(procs), "%s/rdma.current", path);
	f = fopen(procs, "w");
	if (!f)
		return -errno;
	fputs("rxe0 hca_handle=1 hca_object=6\n", f);
	fclose(f);
	return 0;
}

int __real_chdir(const char *path);
int __wrap_chdir(const char *path);

/* A cwd named "hang" plays a file system that does not answer (a hard NFS mount that is down). */
int __wrap_chdir(const char *path)
{
	size_t n = strlen(path);

	if (n >= 5 && !strcmp(path + n - 5, "/hang"))
		sleep(60);
	return __real_chdir(path);
}

int __real_agent_cgroup_remove(const char *path, char *err, size_t errlen);
int __wrap_agent_cgroup_remove(const char *path, char *err, size_t errlen);

/* ... and takes it away with the cgroup: a plain folder must be empty to go. */
int __wrap_agent_cgroup_remove(const char *path, char *err, size_t errlen)
{
	char procs[300];

	snprintf(procs, sizeof(procs), "%s/cgroup.procs", path);
	unlink(procs);
	snprintf(procs, sizeof(procs), "%s/rdma.max", path);
	unlink(procs);
	snprintf(procs, sizeof(procs), "%s/rdma.current", path);
	unlink(procs);
	return __real_agent_cgroup_remove(path, err, errlen);
}

static void put(const char *rel, const char *text, mode_t mode)
{
	scratch_put(tmp, rel, text, mode);
}

static void dir(const char *rel)
{
	scratch_mkdir(tmp, rel);
}

static int setup(void **state)
{
	struct agent_opts o = {.name = "node-t", .nr_allow = 1, .nr_rails = 2};
	int ret;

	if (scratch_make(tmp, sizeof(tmp), "wlt"))
		return -1;
	dir("bin");
	dir("out");
	dir("cgfs");
	dir("cgfs/rdmachaos");
	put("cgfs/cgroup.controllers", "memory rdma\n", 0644);
	put("cgfs/cgroup.subtree_control", "", 0644);
	put("cgfs/rdmachaos/cgroup.controllers", "rdma\n", 0644);
	put("cgfs/rdmachaos/cgroup.subtree_control", "", 0644);
	/* Records what it was started with, then waits to be stopped. */
	put("bin/rdmachaos-stream",
	    "#!/bin/sh\n"
	    "{ echo \"preload=$LD_PRELOAD\"; echo \"sock=$RDMACHAOS_SHIM_SOCK\";\n"
	    "  grep '^Cap' /proc/self/status; } >\"$2/env.tmp\" 2>/dev/null\n"
	    "mv \"$2/env.tmp\" \"$2/env\" 2>/dev/null\n"
	    "exec sleep 30 2>/dev/null\n",
	    0755);
	snprintf(cgroot, sizeof(cgroot), "%s/cgfs/rdmachaos", tmp);
	snprintf(out, sizeof(out), "%s/out", tmp);
	strcpy(o.allow[0], "rc-absent0");
	strcpy(o.rails[0], "rc-absent0");
	strcpy(o.rails[1], "rc-absent1");
	snprintf(o.run_dir, sizeof(o.run_dir), "%s/run", tmp);
	snprintf(o.cgroup_root, sizeof(o.cgroup_root), "%s", cgroot);
	agent_init(&a, &o);
	snprintf(a.exe_dir, sizeof(a.exe_dir), "%s/bin", tmp);
	ret = agent_loop_init(&a.loop, 16);
	return ret;
}

static void stop_loop(struct agent_timer *t)
{
	agent_loop_stop(&a.loop);
}

/* Runs the loop for ms milliseconds. */
static void run_for(unsigned int ms)
{
	static struct agent_timer t = {.fire = stop_loop};

	a.loop.stop = false;
	agent_timer_set(&a.loop, &t, rc_now_ns() + ms * RC_NSEC_PER_MSEC);
	agent_loop_run(&a.loop);
}

static int teardown(void **state)
{
	agent_faults_shutdown(&a);
	agent_journal_stop(&a.journal);
	agent_workloads_shutdown(&a, 100);
	/* The loop lets go of the workloads' polls, which frees them. */
	run_for(100);
	agent_loop_fini(&a.loop);
	return scratch_remove(tmp);
}

static json_t *request(const char *text)
{
	return harness_send(&a, RC_MSG_REQUEST, text);
}

static void refused(const char *text, int err, const char *says)
{
	harness_refused(&a, text, err, says);
}

/* The file's content, waiting up to 5 s for it to appear; NULL if it does not. */
static const char *wait_file(const char *path)
{
	static char buf[2048];
	uint64_t end = rc_now_ns() + 5 * RC_NSEC_PER_SEC;
	struct timespec ts = {0, 10 * 1000 * 1000};

	do {
		if (!rc_sysfs_read(path, buf, sizeof(buf)) && buf[0])
			return buf;
		nanosleep(&ts, NULL);
	} while (rc_now_ns() < end);
	return NULL;
}

/* The loop runs until workload id has exited (or 5 s). */
static const char *wait_id;
static uint64_t wait_end;

static void wait_check(struct agent_timer *t)
{
	struct agent_wl_info info;

	if (agent_workload_info(&a, wait_id, &info) || info.exited || rc_now_ns() > wait_end)
		agent_loop_stop(&a.loop);
	else
		agent_timer_set(&a.loop, t, rc_now_ns() + 10 * RC_NSEC_PER_MSEC);
}

static void wait_exit(const char *id)
{
	static struct agent_timer t = {.fire = wait_check};

	wait_id = id;
	wait_end = rc_now_ns() + 5 * RC_NSEC_PER_SEC;
	a.loop.stop = false;
	agent_timer_set(&a.loop, &t, rc_now_ns());
	assert_int_equal(agent_loop_run(&a.loop), 0);
	agent_timer_cancel(&t);
}

static int lookup(const char *target, struct inj_target *t, char *err, size_t errlen)
{
	json_t *j = json_loads(target, 0, NULL);
	int ret;

	assert_non_null(j);
	err[0] = '\0';
	ret = agent_target_lookup(&a, "mr_failure", j, t, err, errlen);
	json_decref(j);
	return ret;
}

static bool has_setpcap(void)
{
	char buf[4096], *p;
	unsigned long long eff;

	if (rc_sysfs_read("/proc/self/status", buf, sizeof(buf)))
		return false;
	p = strstr(buf, "CapEff:");
	return p && sscanf(p + 7, "%llx", &eff) == 1 && (eff & (1ULL << 8));
}

static unsigned long long cap(const char *env, const char *set)
{
	const char *p = strstr(env, set);
	unsigned long long v;

	assert_non_null(p);
	assert_int_equal(sscanf(p + strlen(set), ":\t%llx", &v), 1);
	return v;
}

static void test_shim_missing(void **state)
{
	refused("{\"id\": 1, \"op\": \"workload_start\", \"wl_id\": \"s\", \"role\": \"client\", "
		"\"shim\": true}",
		ENOENT,
		"librdmachaos-verbs.so: No such file or directory (build it: make "
		"build/librdmachaos-verbs.so");
	refused("{\"id\": 1, \"op\": \"workload_start\", \"wl_id\": \"s\", \"role\": \"client\", "
		"\"shim\": 1}",
		EINVAL, "workload_start: shim: must be true or false");
}

static void test_options_and_target(void **state)
{
	char path[300], err[512], want[300];
	struct inj_target t;
	const char *env;
	json_t *resp, *r;
	struct stat st;
	int pid;
	bool caps = has_setpcap();

	put("bin/librdmachaos-verbs.so", "", 0644);
	snprintf(path, sizeof(path),
		 "{\"id\": 1, \"op\": \"workload_start\", \"wl_id\": \"s\", \"role\": \"client\", "
		 "\"args\": [\"%s\"], \"shim\": true, \"cgroup\": true, \"no_ipc_lock\": true}",
		 out);
	resp = request(path);
	if (!caps) {
		/* Without CAP_SETPCAP the drop fails, and the start says why. */
		assert_true(json_is_false(json_object_get(resp, "ok")));
		assert_non_null(strstr(json_string_value(json_object_get(resp, "error")),
				       "dropping CAP_IPC_LOCK"));
		json_decref(resp);
		printf("SKIP (part): no CAP_SETPCAP here: the capability drop is not checked\n");
		return;
	}
	if (!json_is_true(json_object_get(resp, "ok")))
		fail_msg("refused: %s", json_dumps(resp, JSON_COMPACT));
	r = json_object_get(resp, "result");
	pid = (int)json_integer_value(json_object_get(r, "pid"));
	assert_true(pid > 0);
	snprintf(want, sizeof(want), "%s/s", cgroot);
	assert_string_equal(json_string_value(json_object_get(r, "cgroup")), want);
	snprintf(want, sizeof(want), "%s/run/shim/s.sock", tmp);
	assert_string_equal(json_string_value(json_object_get(r, "shim_sock")), want);
	assert_true(json_is_true(json_object_get(r, "no_ipc_lock")));
	json_decref(resp);

	/* The child entered the cgroup (before exec) and got the shim's environment. */
	snprintf(path, sizeof(path), "%s/s/cgroup.procs", cgroot);
	snprintf(want, sizeof(want), "%d", pid);
	assert_string_equal(wait_file(path), want);
	snprintf(path, sizeof(path), "%s/env", out);
	env = wait_file(path);
	assert_non_null(env);
	snprintf(want, sizeof(want), "preload=%s/bin/librdmachaos-verbs.so\n", tmp);
	assert_non_null(strstr(env, want));
	snprintf(want, sizeof(want), "sock=%s/run/shim/s.sock\n", tmp);
	assert_non_null(strstr(env, want));
	/* No CAP_IPC_LOCK (bit 14) in any set, also after the exec of a root process. */
	assert_int_equal(cap(env, "CapBnd") & (1ULL << 14), 0);
	assert_int_equal(cap(env, "CapEff") & (1ULL << 14), 0);
	assert_int_equal(cap(env, "CapPrm") & (1ULL << 14), 0);
	assert_int_equal(cap(env, "CapInh") & (1ULL << 14), 0);
	assert_true(cap(env, "CapBnd") & (1ULL << 21)); /* the rest stays: CAP_SYS_ADMIN */
	snprintf(path, sizeof(path), "%s/run/shim", tmp);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);

	/* The workload as a target. */
	assert_int_equal(lookup("{\"workload\": \"s\"}", &t, err, sizeof(err)), 0);
	assert_string_equal(t.workload, "s");
	assert_int_equal(t.pid, pid);
	snprintf(want, sizeof(want), "%s/s", cgroot);
	assert_string_equal(t.cgroup, want);
	snprintf(want, sizeof(want), "%s/run/shim/s.sock", tmp);
	assert_string_equal(t.shim_sock, want);
	assert_string_equal(t.netdev, "");
	assert_int_equal(t.rail, -1);
	/* A process the agent started, on no netdev: the allow-list does not apply. */
	assert_int_equal(
	    agent_policy_check_inject(&a.policy, "mr_failure", &t, 0, 0, err, sizeof(err)), 0);

	/* With a rail: its netdev too, and then the allow-list does apply. */
	assert_int_equal(lookup("{\"workload\": \"s\", \"rail\": 1}", &t, err, sizeof(err)), 0);
	assert_int_equal(t.pid, pid);
	assert_string_equal(t.netdev, "rc-absent1");
	assert_int_equal(t.rail, 1);
	assert_int_equal(
	    agent_policy_check_inject(&a.policy, "qp_error", &t, 0, 0, err, sizeof(err)), -EPERM);
	assert_non_null(
	    strstr(err, "qp_error: rc-absent1: refused: not in the agent's allow-list"));
	assert_int_equal(lookup("{\"workload\": \"s\", \"rail\": 0}", &t, err, sizeof(err)), 0);
	assert_int_equal(
	    agent_policy_check_inject(&a.policy, "qp_error", &t, 0, 0, err, sizeof(err)), 0);
	/* A workload target nobody resolved to a process of this agent is refused. */
	t.pid = 0;
	assert_int_equal(
	    agent_policy_check_inject(&a.policy, "mr_failure", &t, 0, 0, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "mr_failure: workload s: refused: not a process this agent "
				    "started and runs"));

	assert_int_equal(lookup("{\"workload\": \"nope\"}", &t, err, sizeof(err)), -ESRCH);
	assert_string_equal(err, "mr_failure: workload nope: not running on this node (start it "
				 "with workload_start first)");
	assert_int_equal(
	    lookup("{\"workload\": \"s\", \"netdev\": \"rc-absent0\"}", &t, err, sizeof(err)),
	    -EINVAL);
	assert_non_null(strstr(err, "a workload target is {\"workload\": WL_ID}"));
	assert_int_equal(lookup("{\"workload\": 5}", &t, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "target.workload: must be a wl_id of 1..63 characters"));
	assert_int_equal(lookup("{\"workload\": \"s\", \"rail\": 7}", &t, err, sizeof(err)),
			 -ENODEV);
	assert_int_equal(lookup("{\"pid\": 1}", &t, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "target.pid: unknown key (a target is {\"netdev\"}, "
				    "{\"device\", \"port\"}, {\"rail\"} or {\"workload\"[, "
				    "\"rail\"]})"));
	/* Link targets still resolve as before. */
	assert_int_equal(lookup("{\"rail\": 0}", &t, err, sizeof(err)), 0);
	assert_string_equal(t.netdev, "rc-absent0");
	assert_string_equal(t.workload, "");
	assert_int_equal(t.pid, 0);

	/* Exited: no longer a target; its cgroup is gone with it. */
	kill(pid, SIGKILL);
	wait_exit("s");
	assert_int_equal(lookup("{\"workload\": \"s\"}", &t, err, sizeof(err)), -ESRCH);
	snprintf(want, sizeof(want), "mr_failure: workload s: pid %d has exited; nothing to fault",
		 pid);
	assert_string_equal(err, want);
	snprintf(path, sizeof(path), "%s/s", cgroot);
	assert_int_not_equal(stat(path, &st), 0);
	resp = request("{\"id\": 2, \"op\": \"workload_stop\", \"wl_id\": \"s\"}");
	assert_true(json_is_true(json_object_get(resp, "ok")));
	json_decref(resp);
	assert_int_equal(lookup("{\"workload\": \"s\"}", &t, err, sizeof(err)), -ESRCH);
	assert_non_null(strstr(err, "not running on this node"));
}

/* Without start options: no cgroup, no shim, the agent's environment minus the shim's. */
static void test_plain_start(void **state)
{
	char path[300], err[512];
	struct inj_target t;
	const char *env;
	json_t *resp;

	setenv("RDMACHAOS_SHIM_SOCK", "/elsewhere.sock", 1);
	snprintf(path, sizeof(path),
		 "{\"id\": 1, \"op\": \"workload_start\", \"wl_id\": \"p\", \"role\": \"server\", "
		 "\"args\": [\"%s\"]}",
		 out);
	resp = request(path);
	unsetenv("RDMACHAOS_SHIM_SOCK");
	assert_true(json_is_true(json_object_get(resp, "ok")));
	assert_null(json_object_get(json_object_get(resp, "result"), "cgroup"));
	assert_null(json_object_get(json_object_get(resp, "result"), "shim_sock"));
	json_decref(resp);
	snprintf(path, sizeof(path), "%s/env", out);
	env = wait_file(path);
	assert_non_null(env);
	assert_non_null(strstr(env, "sock=\n"));
	/* The polls reach the ring, as in the agent, before the shutdown removes them. */
	run_for(20);
	assert_int_equal(lookup("{\"workload\": \"p\"}", &t, err, sizeof(err)), 0);
	assert_string_equal(t.cgroup, "");
	assert_string_equal(t.shim_sock, "");
	assert_true(t.pid > 0);
}

/* Failures before exec are answered with their cause, and leave nothing behind. */
static void test_start_failures(void **state)
{
	char path[300];
	struct stat st;

	/* The child cannot exec (a missing interpreter): reported from the child. */
	put("bin/rdmachaos-stream", "#!/nonexistent/sh\n", 0755);
	refused("{\"id\": 1, \"op\": \"workload_start\", \"wl_id\": \"s\", \"role\": \"client\", "
		"\"cgroup\": true}",
		ENOENT, ": exec: No such file or directory");
	snprintf(path, sizeof(path), "%s/s", cgroot);
	assert_int_not_equal(stat(path, &st), 0); /* the cgroup made for it is gone again */

	/* No cgroup2 where --cgroup-root points. */
	snprintf(a.opts.cgroup_root, sizeof(a.opts.cgroup_root), "%s/out/rdmachaos", tmp);
	refused("{\"id\": 1, \"op\": \"workload_start\", \"wl_id\": \"s\", \"role\": \"client\", "
		"\"cgroup\": true}",
		EOPNOTSUPP, "workload_start: s: cgroup: ");
	refused("{\"id\": 1, \"op\": \"workload_start\", \"wl_id\": \"s\", \"role\": \"client\", "
		"\"cgroup\": true}",
		EOPNOTSUPP, "/out: not a cgroup v2 folder");

	/* A wl_id that cannot name a cgroup or a socket. */
	snprintf(a.opts.cgroup_root, sizeof(a.opts.cgroup_root), "%s", cgroot);
	refused("{\"id\": 1, \"op\": \"workload_start\", \"wl_id\": \"a b\", \"role\": \"client\", "
		"\"cgroup\": true}",
		EINVAL, "cgroup: \"a b\": not usable as a cgroup name");
	put("bin/librdmachaos-verbs.so", "", 0644);
	refused("{\"id\": 1, \"op\": \"workload_start\", \"wl_id\": \"a b\", \"role\": \"client\", "
		"\"shim\": true}",
		ENAMETOOLONG, "use a shorter --run-dir or wl_id");
}

/* --run-dir and --cgroup-root: defaults, a trailing '/' dropped, absolute paths only. */
/* getopt wants char **; it permutes the array but never writes the strings. */
#define ARGV(...) ((char **)(const char *[]){"rdmachaos-agent", __VA_ARGS__, NULL})
#define ARGC(...) ((int)(sizeof((const char *[]){"rdmachaos-agent", __VA_ARGS__}) / sizeof(char *)))
#define PARSE(o, err, ...)                                                                         \
	agent_opts_parse(ARGC(__VA_ARGS__), ARGV(__VA_ARGS__), o, err, sizeof(err))
#define BASE "--name", "n", "--listen", "127.0.0.1:1", "--insecure-plaintext"

/* --run-dir and --cgroup-root: defaults, a trailing '/' dropped, absolute paths only. */
/* A job whose child never reaches exec is killed and refused, and the loop goes on. */
static void test_exec_deadline(void **state)
{
	char text[600], prog[128];
	uint64_t t0;

	dir("hang");
	snprintf(prog, sizeof(prog), "%s/bin/rdmachaos-stream", tmp);
	snprintf(a.policy.jobs[0], sizeof(a.policy.jobs[0]), "%s", prog);
	a.policy.nr_jobs = 1;
	snprintf(text, sizeof(text),
		 "{\"id\": 1, \"op\": \"workload_start\", \"wl_id\": \"j\", \"role\": \"rank\", "
		 "\"job\": {\"argv\": [\"%s\"], \"cwd\": \"%s/hang\", \"time_limit_ms\": 1000}}",
		 prog, tmp);
	t0 = rc_now_ns();
	refused(text, ETIMEDOUT,
		"did not reach exec within 5000 ms (its cwd or program on a file "
		"system that does not answer?); killed");
	assert_true(rc_now_ns() - t0 < 8 * RC_NSEC_PER_SEC);
}

static void test_opts(void **state)
{
	struct agent_opts o;
	char err[256];

	assert_int_equal(PARSE(&o, err, BASE), 0);
	assert_string_equal(o.run_dir, "/run/rdmachaos");
	assert_string_equal(o.cgroup_root, "/sys/fs/cgroup/rdmachaos");
	assert_int_equal(
	    PARSE(&o, err, BASE, "--run-dir", "/tmp/r/", "--cgroup-root", "/sys/fs/cgroup/x"), 0);
	assert_string_equal(o.run_dir, "/tmp/r");
	assert_string_equal(o.cgroup_root, "/sys/fs/cgroup/x");
	assert_int_equal(PARSE(&o, err, BASE, "--run-dir", "run"), -EINVAL);
	assert_string_equal(err, "--run-dir 'run': give an absolute directory path");
	assert_int_equal(PARSE(&o, err, BASE, "--cgroup-root", ""), -EINVAL);
	assert_string_equal(err, "--cgroup-root '': give an absolute directory path");
}

static json_t *accepted(const char *text)
{
	json_t *resp = request(text);

	if (!json_is_true(json_object_get(resp, "ok")))
		fail_msg("%s: refused: %s", text, json_dumps(resp, JSON_COMPACT));
	return resp;
}

static const char *rdma_max(void)
{
	static char buf[256];
	char path[300];

	snprintf(path, sizeof(path), "%s/s/rdma.max", cgroot);
	assert_int_equal(rc_sysfs_read(path, buf, sizeof(buf)), 0);
	return buf;
}

/* A fault on a workload target, through the agent: inject, busy, revert, and a crash's replay. */
static void test_inject_workload(void **state)
{
	char path[300], err[512];
	json_t *resp, *r;
	int pid;

	snprintf(path, sizeof(path), "%s/state", tmp);
	assert_int_equal(agent_journal_start(&a.journal, path, err, sizeof(err)), 0);
	snprintf(path, sizeof(path),
		 "{\"id\": 1, \"op\": \"workload_start\", \"wl_id\": \"s\", \"role\": \"client\", "
		 "\"args\": [\"%s\"], \"cgroup\": true}",
		 out);
	resp = accepted(path);
	pid = (int)json_integer_value(json_object_get(json_object_get(resp, "result"), "pid"));
	json_decref(resp);
	run_for(20);

	refused("{\"id\": 2, \"op\": \"inject\", \"fault_id\": \"m0\", \"injector\": "
		"\"mr_failure\", \"target\": {\"workload\": \"t\"}, \"params\": "
		"{\"mechanism\": \"cgroup\"}}",
		ESRCH, "mr_failure: workload t: not running on this node");
	refused("{\"id\": 2, \"op\": \"inject\", \"fault_id\": \"m0\", \"injector\": "
		"\"mr_failure\", \"target\": {\"workload\": \"s\"}, \"params\": "
		"{\"mechanism\": \"memlock\"}}",
		EPERM, "has CAP_IPC_LOCK");
	resp = accepted("{\"id\": 2, \"op\": \"inject\", \"fault_id\": \"m1\", \"injector\": "
			"\"mr_failure\", \"target\": {\"workload\": \"s\"}, \"params\": "
			"{\"mechanism\": \"cgroup\"}, \"duration_ms\": 60000}");
	r = json_object_get(resp, "result");
	assert_string_equal(json_string_value(json_object_get(r, "workload")), "s");
	assert_int_equal(json_integer_value(json_object_get(r, "pid")), pid);
	assert_string_equal(json_string_value(json_object_get(
				json_object_get(json_object_get(r, "prior"), "rdma.max"), "rxe0")),
			    "rxe0 hca_handle=max hca_object=max");
	json_decref(resp);
	assert_string_equal(rdma_max(), "rxe0 hca_object=6");
	/* One fault per workload at a time. */
	refused("{\"id\": 3, \"op\": \"inject\", \"fault_id\": \"m2\", \"injector\": "
		"\"mr_failure\", \"target\": {\"workload\": \"s\"}, \"params\": "
		"{\"mechanism\": \"cgroup\", \"hca_object\": 0}}",
		EBUSY, "mr_failure: s: busy: fault m1 is active on its workload");
	resp = accepted("{\"id\": 4, \"op\": \"faults\"}");
	assert_string_equal(
	    json_string_value(json_object_get(
		json_array_get(json_object_get(json_object_get(resp, "result"), "active"), 0),
		"workload")),
	    "s");
	json_decref(resp);
	resp = accepted("{\"id\": 5, \"op\": \"revert\", \"fault_id\": \"m1\"}");
	assert_true(json_is_true(json_object_get(json_object_get(resp, "result"), "verified")));
	json_decref(resp);
	assert_string_equal(rdma_max(), "rxe0 hca_handle=max hca_object=max");

	/* The agent dies with m2 applied: the next one reverts it from the journal alone. */
	json_decref(accepted("{\"id\": 6, \"op\": \"inject\", \"fault_id\": \"m2\", "
			     "\"injector\": \"mr_failure\", \"target\": {\"workload\": \"s\"}, "
			     "\"params\": {\"mechanism\": \"cgroup\", \"hca_object\": 2}}"));
	assert_string_equal(rdma_max(), "rxe0 hca_object=2");
	agent_journal_stop(&a.journal);
	agent_init(&a2, &a.opts);
	snprintf(path, sizeof(path), "%s/state", tmp);
	assert_int_equal(agent_journal_start(&a2.journal, path, err, sizeof(err)), 0);
	assert_int_equal(agent_faults_replay(&a2), 1);
	assert_string_equal(rdma_max(), "rxe0 hca_handle=max hca_object=max");
	assert_true(agent_faults_shutdown(&a2));
	agent_journal_stop(&a2.journal);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_shim_missing, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_options_and_target, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_plain_start, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_start_failures, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_inject_workload, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_exec_deadline, setup, teardown),
	    cmocka_unit_test(test_opts),
	};
	return HARNESS_RUN("test_agent_workload_target", tests, NULL, NULL);
}
