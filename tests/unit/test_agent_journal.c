// SPDX-License-Identifier: MIT
/*
 * The revert journal and leases: records written, read back and closed; the
 * fsync ordering that makes them crash-safe (fsync, rename and unlinkat are
 * wrapped and logged); unusable records set aside; the agent's replay at
 * start-up, its failure, leases that expire and renew. The kernel is faked
 * as in test_agent_link_injectors.c (a one-netdev rtnetlink model, on "lo"'s
 * ifindex so the agent's name lookups succeed); events are caught by the
 * agent's sink.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include <net/if.h>
#include <netlink/errno.h>
#include <netlink/netlink.h>
#include <netlink/route/link.h>

#include "agents/agent.h"
#include "tests/unit/fake_link.h"
#include "common/units.h"
#include "tests/unit/agent_harness.h"
#include "tests/unit/scratch_dir.h"

/* ---- the file system calls that order durability, logged */
static char ops[32][128];
static int nr_ops;
static int fail_fsync_at; /* the Nth fsync (1-based) fails with EIO; 0: none */
static int nr_fsyncs;

int __real_fsync(int fd);
int __real_renameat(int olddirfd, const char *oldpath, int newdirfd, const char *newpath);
int __real_unlinkat(int dirfd, const char *path, int flags);
int __wrap_fsync(int fd);
int __wrap_renameat(int olddirfd, const char *oldpath, int newdirfd, const char *newpath);
int __wrap_unlinkat(int dirfd, const char *path, int flags);

static void op_log(const char *what, const char *x, const char *y)
{
	if (nr_ops < 32)
		snprintf(ops[nr_ops++], sizeof(ops[0]), "%s %s%s%s", what, x, y ? " " : "",
			 y ? y : "");
}

int __wrap_fsync(int fd)
{
	struct stat st;

	assert_int_equal(fstat(fd, &st), 0);
	op_log("fsync", S_ISDIR(st.st_mode) ? "dir" : "file", NULL);
	if (++nr_fsyncs == fail_fsync_at) {
		errno = EIO;
		return -1;
	}
	return __real_fsync(fd);
}

int __wrap_renameat(int olddirfd, const char *oldpath, int newdirfd, const char *newpath)
{
	op_log("rename", oldpath, newpath);
	return __real_renameat(olddirfd, oldpath, newdirfd, newpath);
}

int __wrap_unlinkat(int dirfd, const char *path, int flags)
{
	op_log("unlink", path, NULL);
	return __real_unlinkat(dirfd, path, flags);
}

/* ---- events the agent emits, by action (fault) or message (agent) */
static char events[32][160];
static int nr_events;

/* The agent's sink (struct agent_sink): every event its modules emit. */
static void catch_event(void *arg, const char *kind, uint64_t ts_ns, json_t *fields)
{
	const char *what = json_string_value(json_object_get(fields, "action"));

	if (!what)
		what = json_string_value(json_object_get(fields, "message"));
	if (nr_events < 32)
		snprintf(events[nr_events++], sizeof(events[0]), "%s %s%s", kind, what ? what : "",
			 json_is_true(json_object_get(fields, "verified")) ? " verified" : "");
	json_decref(fields);
}

static bool got_event(const char *prefix)
{
	int i;

	for (i = 0; i < nr_events; i++)
		if (!strncmp(events[i], prefix, strlen(prefix)))
			return true;
	return false;
}

/* ---- fixtures */
static struct agent a;
static char dir[64];

static int setup(void **state)
{
	struct agent_opts o = {.name = "node-t", .nr_allow = 1};
	char err[512];

	memset(&fk, 0, sizeof(fk));
	fk.ifindex = (int)if_nametoindex("lo");
	fk.up = true;
	nr_ops = nr_fsyncs = fail_fsync_at = nr_events = 0;
	assert_int_equal(scratch_make(dir, sizeof(dir), "journal"), 0);
	strcpy(o.allow[0], "lo");
	snprintf(o.state_dir, sizeof(o.state_dir), "%s/state", dir);
	agent_init(&a, &o);
	a.sink.emit = catch_event;
	assert_int_equal(agent_loop_init(&a.loop, 8), 0);
	if (agent_journal_start(&a.journal, a.opts.state_dir, err, sizeof(err)))
		fail_msg("journal: %s", err);
	return 0;
}

static int teardown(void **state)
{
	agent_faults_shutdown(&a);
	agent_journal_stop(&a.journal);
	agent_loop_fini(&a.loop);
	return scratch_remove(dir);
}

/* Number of entries in the state directory whose name ends with suffix ("" for all). */
static int count(const char *suffix)
{
	struct dirent *de;
	DIR *d = opendir(a.opts.state_dir);
	int n = 0;

	assert_non_null(d);
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);

		if (de->d_name[0] == '.' && (len == 1 || !strcmp(de->d_name, "..")))
			continue;
		n += len >= strlen(suffix) && !strcmp(de->d_name + len - strlen(suffix), suffix);
	}
	closedir(d);
	return n;
}

static void put_file(const char *name, const char *text)
{
	scratch_put(a.opts.state_dir, name, text, 0644);
}

static bool exists(const char *name)
{
	char path[AGENT_JOURNAL_PATH_LEN + AGENT_JOURNAL_NAME_LEN];

	snprintf(path, sizeof(path), "%s/%s", a.opts.state_dir, name);
	return !access(path, F_OK);
}

/* A prepared fault on "lo" (through the fake kernel), as the agent holds it before inject(). */
static void prepare(struct inj_fault *f, const struct injector *inj, const char *id,
		    const char *params)
{
	memset(f, 0, sizeof(*f));
	f->inj = inj;
	snprintf(f->id, sizeof(f->id), "%s", id);
	strcpy(f->target.netdev, "lo");
	f->target.ifindex = fk.ifindex;
	f->target.rail = 2;
	f->params = json_loads(params, 0, NULL);
	f->duration_ms = 60000;
	assert_non_null(f->params);
	assert_int_equal(inj->prepare(f), 0);
}

static void drop(struct inj_fault *f)
{
	f->inj->cleanup(f);
	json_decref(f->params);
}

static json_t *request(const char *text)
{
	json_t *resp = harness_send(&a, RC_MSG_REQUEST, text);

	assert_non_null(resp);
	return resp;
}

static json_t *ok(const char *text)
{
	return harness_ok(&a, text);
}

static void refused(const char *text, int err, const char *says)
{
	harness_refused(&a, text, err, says);
}

static void stop_loop(struct agent_timer *t)
{
	agent_loop_stop(&a.loop);
}

static void run_for(unsigned int ms)
{
	struct agent_timer t = {.fire = stop_loop};

	agent_timer_set(&a.loop, &t, rc_now_ns() + ms * RC_NSEC_PER_MSEC);
	a.loop.stop = false;
	assert_int_equal(agent_loop_run(&a.loop), 0);
	agent_timer_cancel(&t);
}

/* The active faults' ids, comma-separated, and the first one's revert_unverified. */
static void faults(char *ids, size_t len, char *unverified, size_t ulen)
{
	json_t *resp = ok("{\"id\": 9, \"op\": \"faults\"}"), *f;
	size_t i, off = 0;

	ids[0] = unverified[0] = '\0';
	json_array_foreach(json_object_get(json_object_get(resp, "result"), "active"), i, f) {
		const char *why = json_string_value(json_object_get(f, "revert_unverified"));

		off += (size_t)snprintf(ids + off, len - off, "%s%s", i ? "," : "",
					json_string_value(json_object_get(f, "fault_id")));
		if (!i && why)
			snprintf(unverified, ulen, "%s", why);
	}
	json_decref(resp);
}

/* ---- tests */

static void test_names(void **state)
{
	char name[AGENT_JOURNAL_NAME_LEN];

	agent_journal_name("rail0-down", name, sizeof(name));
	assert_string_equal(name, "fault-rail0-down.json");
	/* No id reaches outside the directory, nor collides with another once escaped. */
	agent_journal_name("a/../b c%", name, sizeof(name));
	assert_string_equal(name, "fault-a%2F..%2Fb%20c%25.json");
	agent_journal_name("..", name, sizeof(name));
	assert_string_equal(name, "fault-...json");
}

static void test_start(void **state)
{
	struct agent_journal other;
	char err[512], path[128];
	struct stat st;

	/* Created with its parents, private. */
	assert_int_equal(stat(a.opts.state_dir, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(st.st_mode & 0777, 0700);

	/* One agent per directory: a second one would revert the first one's faults. */
	agent_journal_init(&other);
	assert_int_equal(agent_journal_start(&other, a.opts.state_dir, err, sizeof(err)), -EBUSY);
	assert_non_null(strstr(err, "in use by another rdmachaos-agent"));

	/* A directory that cannot be one. */
	put_file("../file", "x");
	snprintf(path, sizeof(path), "%s/file/journal", dir);
	assert_int_equal(agent_journal_start(&other, path, err, sizeof(err)), -ENOTDIR);
	assert_non_null(strstr(err, "--state-dir "));
	assert_int_equal(other.dir_fd, -1);

	/* Writable by others: they could forge what the agent reverts. Refused, nothing swept. */
	agent_journal_stop(&a.journal);
	put_file(".fault-y.json.tmp", "{");
	assert_int_equal(chmod(a.opts.state_dir, 0770), 0);
	assert_int_equal(agent_journal_start(&a.journal, a.opts.state_dir, err, sizeof(err)),
			 -EPERM);
	assert_non_null(strstr(err, "with mode 0770; it must belong to this agent's user"));
	assert_int_equal(a.journal.dir_fd, -1);
	assert_int_equal(chmod(a.opts.state_dir, 01777), 0);
	assert_int_equal(agent_journal_start(&a.journal, a.opts.state_dir, err, sizeof(err)),
			 -EPERM);
	assert_true(exists(".fault-y.json.tmp"));
	assert_int_equal(chmod(a.opts.state_dir, 0700), 0);

	/* An uncommitted record (its fault never ran) is swept at start; others stay. */
	put_file(".fault-x.json.tmp", "{");
	put_file("notes.txt", "mine");
	assert_int_equal(agent_journal_start(&a.journal, a.opts.state_dir, err, sizeof(err)), 0);
	assert_false(exists(".fault-x.json.tmp"));
	assert_false(exists(".fault-y.json.tmp"));
	assert_true(exists("notes.txt"));
}

static void test_write_read_close(void **state)
{
	struct agent_journal_entry e = {0};
	struct inj_fault f;
	char err[512], path[AGENT_JOURNAL_PATH_LEN + AGENT_JOURNAL_NAME_LEN];
	json_t *rec;

	prepare(&f, &inj_link_down, "rail2-down", "{}");
	assert_int_equal(agent_journal_write(&a.journal, &f, 1500, err, sizeof(err)), 0);
	assert_true(exists("fault-rail2-down.json"));
	assert_int_equal(count(""), 1); /* no temporary file left */

	/* What is in it. */
	snprintf(path, sizeof(path), "%s/fault-rail2-down.json", a.opts.state_dir);
	rec = json_load_file(path, 0, NULL);
	assert_non_null(rec);
	assert_int_equal(json_integer_value(json_object_get(rec, "format")), 1);
	assert_string_equal(json_string_value(json_object_get(rec, "injector")), "link_down");
	assert_true(json_is_true(json_object_get(json_object_get(rec, "snapshot"), "up")));
	assert_int_equal(json_integer_value(json_object_get(rec, "lease_ms")), 1500);
	assert_int_equal(json_integer_value(json_object_get(rec, "duration_ms")), 60000);
	assert_true(json_is_null(json_object_get(json_object_get(rec, "target"), "device")));
	assert_int_equal(json_integer_value(json_object_get(json_object_get(rec, "agent"), "pid")),
			 getpid());

	/* Read back. */
	assert_int_equal(agent_journal_parse(&a.journal, rec, &e, err, sizeof(err)), 0);
	assert_ptr_equal(e.f.inj, &inj_link_down);
	assert_string_equal(e.f.id, "rail2-down");
	assert_string_equal(e.f.target.netdev, "lo");
	assert_int_equal(e.f.target.ifindex, fk.ifindex);
	assert_int_equal(e.f.target.rail, 2);
	assert_string_equal(e.f.target.device, "");
	assert_int_equal(e.lease_ms, 1500);
	assert_int_equal(e.f.duration_ms, 60000);
	assert_true(e.same_boot);
	assert_true(e.f.injected_at_ns > 0 && e.f.injected_at_ns <= rc_now_ns());
	assert_true(json_is_true(json_object_get(e.snapshot, "up")));
	e.rec = rec;
	agent_journal_entry_fini(&e);

	/* A second record of the same fault id would lose the first one's snapshot. */
	assert_int_equal(agent_journal_write(&a.journal, &f, 0, err, sizeof(err)), -EEXIST);
	assert_non_null(strstr(err, "already has an open record"));

	assert_int_equal(agent_journal_close(&a.journal, "rail2-down", err, sizeof(err)), 0);
	assert_int_equal(count(""), 0);
	assert_int_equal(agent_journal_close(&a.journal, "rail2-down", err, sizeof(err)), 0);
	drop(&f);
}

static void test_fsync_ordering(void **state)
{
	struct inj_fault f;
	char err[512];

	prepare(&f, &inj_link_down, "f", "{}");
	nr_ops = 0;
	assert_int_equal(agent_journal_write(&a.journal, &f, 0, err, sizeof(err)), 0);
	/* The data is durable before the name, the name before the fault runs. */
	assert_int_equal(nr_ops, 3);
	assert_string_equal(ops[0], "fsync file");
	assert_string_equal(ops[1], "rename .fault-f.json.tmp fault-f.json");
	assert_string_equal(ops[2], "fsync dir");

	nr_ops = 0;
	assert_int_equal(agent_journal_close(&a.journal, "f", err, sizeof(err)), 0);
	assert_int_equal(nr_ops, 2);
	assert_string_equal(ops[0], "unlink fault-f.json");
	assert_string_equal(ops[1], "fsync dir");
	drop(&f);
}

static void test_fsync_failure_leaves_nothing(void **state)
{
	struct inj_fault f;
	char err[512];

	prepare(&f, &inj_link_down, "f", "{}");
	/* The file's fsync fails: no rename, the temporary file goes. */
	nr_fsyncs = 0;
	fail_fsync_at = 1;
	assert_int_equal(agent_journal_write(&a.journal, &f, 0, err, sizeof(err)), -EIO);
	assert_non_null(strstr(err, "fsync"));
	assert_int_equal(count(""), 0);
	/* The directory's fsync fails: the renamed record is taken back. */
	nr_fsyncs = 0;
	fail_fsync_at = 2;
	assert_int_equal(agent_journal_write(&a.journal, &f, 0, err, sizeof(err)), -EIO);
	assert_int_equal(count(""), 0);
	drop(&f);

	/* Through the agent: the inject is refused and the link never touched. */
	nr_fsyncs = 0;
	fail_fsync_at = 1;
	refused("{\"id\": 1, \"op\": \"inject\", \"fault_id\": \"j\", \"injector\": \"link_down\", "
		"\"target\": {\"netdev\": \"lo\"}}",
		EIO, "inject: fault j: journal: ");
	assert_true(fk.up);
	assert_int_equal(fk.changes, 0);
	assert_int_equal(count(""), 0);
}

static void test_inject_journals_and_revert_closes(void **state)
{
	json_t *resp;

	resp = ok("{\"id\": 1, \"op\": \"inject\", \"fault_id\": \"d\", \"injector\": "
		  "\"link_down\", \"target\": {\"netdev\": \"lo\"}}");
	json_decref(resp);
	assert_false(fk.up);
	assert_true(exists("fault-d.json"));

	/* An unverified revert keeps the record: the fault is not known to be gone. */
	fk.change_err = -NLE_PERM;
	json_decref(request("{\"id\": 2, \"op\": \"revert\", \"fault_id\": \"d\"}"));
	assert_true(exists("fault-d.json"));
	fk.change_err = 0;
	resp = ok("{\"id\": 3, \"op\": \"revert\", \"fault_id\": \"d\"}");
	assert_true(json_is_true(json_object_get(json_object_get(resp, "result"), "verified")));
	json_decref(resp);
	assert_true(fk.up);
	assert_int_equal(count(""), 0);

	/* The SIGTERM path closes records too. */
	json_decref(ok("{\"id\": 4, \"op\": \"inject\", \"fault_id\": \"e\", \"injector\": "
		       "\"port_flap\", \"target\": {\"netdev\": \"lo\"}, \"params\": {\"count\": "
		       "3, \"down_ms\": 5000, \"up_ms\": 5000}}"));
	assert_true(exists("fault-e.json"));
	assert_true(agent_faults_shutdown(&a));
	assert_true(fk.up);
	assert_int_equal(count(""), 0);
}

static void test_replay_reverts(void **state)
{
	struct inj_fault f;
	char ids[128], why[256], err[512];

	/* A link_down and a port_flap left mid-schedule by an agent that was killed. */
	prepare(&f, &inj_link_down, "gone-down", "{}");
	assert_int_equal(agent_journal_write(&a.journal, &f, 1500, err, sizeof(err)), 0);
	drop(&f);
	prepare(&f, &inj_port_flap, "gone-flap",
		"{\"count\": 4, \"down_ms\": 200, \"up_ms\": 100, \"seed\": 2}");
	assert_int_equal(agent_journal_write(&a.journal, &f, 0, err, sizeof(err)), 0);
	assert_int_equal(f.inj->inject(&f), 0);
	drop(&f);
	fk.up = false;
	fk.changes = 0;

	assert_int_equal(agent_faults_replay(&a), 2);
	assert_true(fk.up);
	assert_int_equal(fk.changes, 1); /* up once; the second revert finds it up already */
	assert_int_equal(count(""), 0);
	assert_true(got_event("fault journal_revert verified"));
	assert_true(got_event("agent journal: fault gone-down"));
	faults(ids, sizeof(ids), why, sizeof(why));
	assert_string_equal(ids, "");

	/* The replayed flap never resumes its schedule. */
	run_for(400);
	assert_int_equal(fk.changes, 1);
}

/*
 * Issue 13: a record for the control interface, snapshot {"up": false}, took it down at the
 * next start. Replay applies an inject's target rules: such a record, or one for an interface
 * the policy does not allow, is set aside and nothing is changed.
 */
static void test_replay_obeys_policy(void **state)
{
	static const char rec[] =
	    "{\"format\": 1, \"fault_id\": \"%s\", \"injector\": \"link_down\", "
	    "\"target\": {\"netdev\": \"%s\", \"ifindex\": 1, \"device\": null, \"port\": "
	    "null, \"rail\": null}, \"params\": {}, \"snapshot\": {\"up\": false}, "
	    "\"duration_ms\": 0, \"lease_ms\": 0, \"recorded_at_ns\": 1}";
	char text[1024];

	snprintf(text, sizeof(text), rec, "ctl", "lo");
	put_file("fault-ctl.json", text);
	snprintf(text, sizeof(text), rec, "other", "notallowed0");
	put_file("fault-other.json", text);
	strcpy(a.policy.control_if, "lo");
	fk.up = true;
	fk.changes = 0;

	agent_faults_replay(&a);
	assert_true(fk.up);
	assert_int_equal(fk.changes, 0);
	assert_int_equal(count(".json"), 0);
	assert_int_equal(count(".bad"), 2);
	a.policy.control_if[0] = '\0';
}

/*
 * A forged record of a workload fault may name only what this agent makes for its workloads
 * (CGROUP_ROOT/WL_ID, RUN_DIR/shim/WL_ID.sock): here an rdma.max elsewhere, which revert would
 * overwrite, and a socket elsewhere, which revert would talk to. Both set aside, nothing written.
 */
static void test_replay_own_objects_only(void **state)
{
	static const char rec[] =
	    "{\"format\": 1, \"fault_id\": \"%s\", \"injector\": \"%s\", \"target\": "
	    "{\"netdev\": \"\", \"ifindex\": 0, \"device\": null, \"port\": null, \"rail\": "
	    "null, \"workload\": \"stream\", \"pid\": 4242, \"cgroup\": \"%s\", \"shim_sock\": "
	    "\"%s\"}, \"params\": {\"mechanism\": \"%s\"}, \"snapshot\": %s, \"duration_ms\": 0, "
	    "\"lease_ms\": 0, \"recorded_at_ns\": 1}";
	char text[2048], snap[512], path[128], got[16] = "";
	FILE *f;

	snprintf(snap, sizeof(snap),
		 "{\"mechanism\": \"cgroup\", \"rdma_max\": \"%s/rdma.max\", \"devices\": "
		 "[{\"name\": \"keep\", \"limit\": \"keep hca_object=0\", \"prior\": "
		 "\"written\"}]}",
		 dir);
	snprintf(text, sizeof(text), rec, "cg", "mr_failure", dir, "", "cgroup", snap);
	put_file("fault-cg.json", text);
	put_file("../rdma.max", "keep");
	snprintf(text, sizeof(text), rec, "sock", "qp_error", "", "/tmp/elsewhere.sock", "shim",
		 "{\"mechanism\": \"shim\", \"sock\": \"/tmp/elsewhere.sock\", \"pid\": 4242}");
	put_file("fault-sock.json", text);
	/* and the forms this agent does make are not refused for where they are */
	assert_int_equal(agent_target_owned(&a.opts,
					    &(struct inj_target){
						.cgroup = AGENT_CGROUP_ROOT_DEFAULT "/s1",
						.shim_sock = AGENT_RUN_DIR_DEFAULT "/shim/s1.sock"},
					    text, sizeof(text)),
			 0);
	assert_int_equal(
	    agent_target_owned(&a.opts,
			       &(struct inj_target){.cgroup = AGENT_CGROUP_ROOT_DEFAULT "/../x"},
			       text, sizeof(text)),
	    -EPERM);
	assert_non_null(strstr(text, "is not one this agent makes"));

	agent_faults_replay(&a);
	assert_int_equal(count(".json"), 0);
	assert_int_equal(count(".bad"), 2);
	snprintf(path, sizeof(path), "%s/rdma.max", dir);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(got, sizeof(got), f));
	fclose(f);
	assert_string_equal(got, "keep");
}

static void test_replay_failure_stays_open(void **state)
{
	struct inj_fault f;
	char ids[128], why[256], err[512];
	json_t *resp;

	prepare(&f, &inj_link_down, "stuck", "{}");
	assert_int_equal(agent_journal_write(&a.journal, &f, 0, err, sizeof(err)), 0);
	drop(&f);
	fk.up = false;
	fk.change_err = -NLE_PERM;

	assert_int_equal(agent_faults_replay(&a), 1);
	assert_false(fk.up);
	assert_true(exists("fault-stuck.json"));
	assert_true(got_event("agent journal: fault stuck (link_down on lo)"));
	faults(ids, sizeof(ids), why, sizeof(why));
	assert_string_equal(ids, "stuck");
	assert_non_null(strstr(why, "CAP_NET_ADMIN"));
	/* Its netdev stays busy: no fault on top of a state nobody knows. */
	refused("{\"id\": 1, \"op\": \"inject\", \"fault_id\": \"new\", \"injector\": "
		"\"link_down\", \"target\": {\"netdev\": \"lo\"}}",
		EBUSY, "busy: fault stuck");

	/* revert_all retries it, and closes the record once it verifies. */
	fk.change_err = 0;
	resp = ok("{\"id\": 2, \"op\": \"revert_all\"}");
	assert_true(json_is_true(json_object_get(json_object_get(resp, "result"), "verified")));
	json_decref(resp);
	assert_true(fk.up);
	assert_int_equal(count(""), 0);
}

/*
 * Issue 13: a record for a netdev that no longer exists could never be cleared: it stayed
 * active, held a concurrency slot and made SIGTERM exit 1. Its revert retires it (nothing is
 * left to revert on a netdev that is gone), once, and says so; an operator can drop any other
 * record that cannot be reverted.
 */
static void test_vanished_or_dropped_faults_retired(void **state)
{
	char ids[128], why[256];
	json_t *resp, *res;

	put_file("fault-vanish.json",
		 "{\"format\": 1, \"fault_id\": \"vanish\", \"injector\": \"link_down\", "
		 "\"target\": {\"netdev\": \"gone0\", \"ifindex\": 4242, \"device\": null, "
		 "\"port\": null, \"rail\": null}, \"params\": {}, \"snapshot\": {\"up\": "
		 "true}, \"duration_ms\": 0, \"lease_ms\": 0, \"recorded_at_ns\": 1}");
	strcpy(a.policy.allow[a.policy.nr_allow++], "gone0");
	a.policy.max_concurrent = 1;

	assert_int_equal(agent_faults_replay(&a), 1);
	assert_int_equal(count(""), 0);
	assert_true(got_event("fault journal_revert verified"));
	assert_true(got_event("agent fault vanish (link_down on gone0): gone0 (ifindex 0) no "
			      "longer exists"));
	faults(ids, sizeof(ids), why, sizeof(why));
	assert_string_equal(ids, "");

	/* Its slot is free; a fault whose revert keeps failing can be dropped by hand. */
	json_decref(ok("{\"id\": 1, \"op\": \"inject\", \"fault_id\": \"held\", "
		       "\"injector\": \"link_down\", \"target\": {\"netdev\": \"lo\"}}"));
	fk.change_err = -NLE_PERM;
	json_decref(request("{\"id\": 2, \"op\": \"revert\", \"fault_id\": \"held\"}"));
	faults(ids, sizeof(ids), why, sizeof(why));
	assert_string_equal(ids, "held");
	refused("{\"id\": 3, \"op\": \"drop\", \"fault_id\": \"nope\"}", ENOENT,
		"drop: fault nope: not active here");
	resp = ok("{\"id\": 4, \"op\": \"drop\", \"fault_id\": \"held\"}");
	res = json_object_get(resp, "result");
	assert_true(json_is_true(json_object_get(res, "dropped")));
	assert_non_null(
	    strstr(json_string_value(json_object_get(res, "retired")), "check lo by hand"));
	json_decref(resp);
	assert_false(fk.up); /* dropped, not reverted */
	assert_int_equal(count(""), 0);
	faults(ids, sizeof(ids), why, sizeof(why));
	assert_string_equal(ids, "");
	fk.change_err = 0;
	fk.up = true;
	json_decref(ok("{\"id\": 5, \"op\": \"inject\", \"fault_id\": \"next\", "
		       "\"injector\": \"link_down\", \"target\": {\"netdev\": \"lo\"}}"));
	assert_true(agent_faults_shutdown(&a));
	a.policy.max_concurrent = 0;
	a.policy.nr_allow--;
}

/*
 * Issue 13: a forbidden injector with bad parameters got EINVAL (its params were checked
 * first): the policy's injector list comes before anything about the request's params.
 */
static void test_forbidden_injector_refused_first(void **state)
{
	strcpy(a.policy.file, "p.yaml");
	strcpy(a.policy.injectors[0], "link_down");
	a.policy.nr_injectors = 1;
	a.policy.injectors_line = 3;
	refused("{\"id\": 1, \"op\": \"inject\", \"fault_id\": \"f\", \"injector\": "
		"\"port_flap\", \"target\": {\"netdev\": \"lo\"}, \"params\": {\"count\": -1}}",
		EPERM, "refused by policy p.yaml:3: injectors does not list port_flap");
	assert_true(fk.up);
	a.policy.injectors_line = 0;
	a.policy.nr_injectors = 0;
}

static void test_unusable_records_set_aside(void **state)
{
	struct inj_fault f;
	char err[512];

	prepare(&f, &inj_link_down, "good", "{}");
	assert_int_equal(agent_journal_write(&a.journal, &f, 0, err, sizeof(err)), 0);
	drop(&f);
	put_file("fault-empty.json", "");
	put_file("fault-trunc.json", "{\"format\": 1, \"fault_id\": \"tr");
	put_file("fault-junk.json", "\x01\x02 not json");
	put_file("fault-list.json", "[1, 2]");
	put_file("fault-newer.json", "{\"format\": 2}");
	put_file("fault-nope.json",
		 "{\"format\": 1, \"fault_id\": \"nope\", \"injector\": \"melt\", \"target\": "
		 "{\"netdev\": \"lo\", \"ifindex\": 1, \"device\": null, \"port\": null, \"rail\": "
		 "null}, \"params\": {}, \"snapshot\": {\"up\": true}, \"duration_ms\": 0, "
		 "\"lease_ms\": 0, \"recorded_at_ns\": 1}");
	/* Valid, but the injector cannot rebuild from its snapshot. */
	put_file("fault-nosnap.json",
		 "{\"format\": 1, \"fault_id\": \"nosnap\", \"injector\": \"link_down\", "
		 "\"target\": {\"netdev\": \"lo\", \"ifindex\": 1, \"device\": null, \"port\": "
		 "null, \"rail\": null}, \"params\": {}, \"snapshot\": {}, \"duration_ms\": 0, "
		 "\"lease_ms\": 0, \"recorded_at_ns\": 1}");
	/* Valid, but in a file its fault id would never be closed under. */
	put_file("fault-misfiled.json",
		 "{\"format\": 1, \"fault_id\": \"other\", \"injector\": \"link_down\", "
		 "\"target\": {\"netdev\": \"lo\", \"ifindex\": 1, \"device\": null, \"port\": "
		 "null, \"rail\": null}, \"params\": {}, \"snapshot\": {\"up\": true}, "
		 "\"duration_ms\": 0, \"lease_ms\": 0, \"recorded_at_ns\": 1}");
	fk.up = false;

	/* No crash; the good one is replayed, each bad one moved aside. */
	assert_int_equal(agent_faults_replay(&a), 2); /* good, and nosnap handed over */
	assert_true(fk.up);
	assert_int_equal(count(".json"), 0);
	assert_int_equal(count(".bad"), 8);
	assert_true(exists("fault-trunc.json.bad"));
	assert_true(exists("fault-nosnap.json.bad"));

	/* The next start does not trip on them again. */
	assert_int_equal(agent_faults_replay(&a), 0);
}

/*
 * Issue 13: a FIFO named like a record blocked the agent in open() before it listened. Every
 * special file is moved aside with a log line, and nothing blocks (the alarm turns a hang into
 * a failure).
 */
static void test_special_files_set_aside(void **state)
{
	char path[AGENT_JOURNAL_PATH_LEN + AGENT_JOURNAL_NAME_LEN];

	snprintf(path, sizeof(path), "%s/fault-fifo.json", a.opts.state_dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	snprintf(path, sizeof(path), "%s/fault-link.json", a.opts.state_dir);
	assert_int_equal(symlink("/dev/zero", path), 0);
	snprintf(path, sizeof(path), "%s/fault-dir.json", a.opts.state_dir);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/fault-null.json", a.opts.state_dir);
	assert_int_equal(symlink("/dev/null", path), 0);

	alarm(20);
	assert_int_equal(agent_faults_replay(&a), 0);
	alarm(0);
	assert_int_equal(count(".json"), 0);
	assert_int_equal(count(".bad"), 4);
	assert_true(exists("fault-fifo.json.bad"));
	assert_true(exists("fault-dir.json.bad"));
}

static void test_lease_expires(void **state)
{
	uint64_t t0 = rc_now_ns();
	char ids[128], why[256];

	json_decref(ok("{\"id\": 1, \"op\": \"inject\", \"fault_id\": \"l\", \"injector\": "
		       "\"link_down\", \"target\": {\"netdev\": \"lo\"}, \"lease_ms\": 1000}"));
	assert_false(fk.up);
	run_for(700);
	assert_false(fk.up);
	run_for(700);
	assert_true(fk.up);
	assert_true(rc_now_ns() - t0 < 2000 * RC_NSEC_PER_MSEC);
	assert_true(got_event("fault lease_expired verified"));
	assert_true(got_event("agent fault l: lease expired"));
	faults(ids, sizeof(ids), why, sizeof(why));
	assert_string_equal(ids, "");
	assert_int_equal(count(""), 0);
}

static void test_renew(void **state)
{
	json_t *resp, *res;
	int i;

	json_decref(ok("{\"id\": 1, \"op\": \"inject\", \"fault_id\": \"r\", \"injector\": "
		       "\"link_down\", \"target\": {\"netdev\": \"lo\"}, \"lease_ms\": 1000}"));
	/* Renewed every 600 ms for 1.8 s: held well past one lease. */
	for (i = 0; i < 3; i++) {
		run_for(600);
		resp = ok("{\"id\": 2, \"op\": \"renew\", \"fault_ids\": [\"r\", \"nope\"]}");
		res = json_object_get(resp, "result");
		assert_string_equal(
		    json_string_value(json_array_get(json_object_get(res, "renewed"), 0)), "r");
		assert_int_equal(json_array_size(json_object_get(res, "renewed")), 1);
		assert_string_equal(
		    json_string_value(json_array_get(json_object_get(res, "unknown"), 0)), "nope");
		assert_int_equal(json_integer_value(json_object_get(res, "expires_in_ms")), 1000);
		json_decref(resp);
		assert_false(fk.up);
	}
	resp = ok("{\"id\": 3, \"op\": \"faults\"}");
	res = json_array_get(json_object_get(json_object_get(resp, "result"), "active"), 0);
	assert_int_equal(json_integer_value(json_object_get(res, "lease_ms")), 1000);
	assert_true(json_integer_value(json_object_get(res, "lease_expires_in_ms")) > 900);
	json_decref(resp);

	json_decref(ok("{\"id\": 4, \"op\": \"revert\", \"fault_id\": \"r\"}"));
	assert_true(fk.up);
	/* Reverted: no longer active, so unknown to renew. */
	resp = ok("{\"id\": 5, \"op\": \"renew\", \"fault_ids\": [\"r\"]}");
	res = json_object_get(resp, "result");
	assert_int_equal(json_array_size(json_object_get(res, "renewed")), 0);
	assert_int_equal(json_array_size(json_object_get(res, "unknown")), 1);
	assert_int_equal(json_integer_value(json_object_get(res, "expires_in_ms")), 0);
	json_decref(resp);
	run_for(1200);
	assert_false(got_event("fault lease_expired"));
}

static void test_lease_and_renew_checked(void **state)
{
	refused("{\"id\": 1, \"op\": \"inject\", \"fault_id\": \"f\", \"injector\": \"link_down\", "
		"\"target\": {\"netdev\": \"lo\"}, \"lease_ms\": 999}",
		EINVAL, "inject: lease_ms: must be an integer in 1000..3600000");
	refused("{\"id\": 1, \"op\": \"inject\", \"fault_id\": \"f\", \"injector\": \"link_down\", "
		"\"target\": {\"netdev\": \"lo\"}, \"lease_ms\": 3600001}",
		EINVAL, "inject: lease_ms: must be an integer in 1000..3600000");
	refused("{\"id\": 1, \"op\": \"renew\"}", EINVAL, "renew: fault_ids: missing");
	refused("{\"id\": 1, \"op\": \"renew\", \"fault_ids\": [1]}", EINVAL,
		"renew: fault_ids: must be an array");
	refused("{\"id\": 1, \"op\": \"renew\", \"fault_ids\": [], \"lease_ms\": 1000}", EINVAL,
		"renew: lease_ms: unknown argument (renew takes fault_ids)");
	assert_true(fk.up);
	assert_int_equal(fk.changes, 0);
}

static void test_state_dir_flag(void **state)
{
	/* getopt wants char **; it permutes the array but never writes the strings. */
	char **def = (char **)(const char *[]){"rdmachaos-agent", "--name",	 "n",
					       "--listen",	  "127.0.0.1:1", NULL};
	char **set =
	    (char **)(const char *[]){"rdmachaos-agent", "--name",	"n",	  "--listen",
				      "127.0.0.1:1",	 "--state-dir", "/run/x", NULL};
	char **empty = (char **)(const char *[]){"rdmachaos-agent", "--name",	   "n", "--listen",
						 "127.0.0.1:1",	    "--state-dir", "",	NULL};
	struct agent_opts o;
	char err[256];

	assert_int_equal(agent_opts_parse(5, def, &o, err, sizeof(err)), 0);
	assert_string_equal(o.state_dir, "/var/lib/rdmachaos/journal");
	assert_int_equal(agent_opts_parse(7, set, &o, err, sizeof(err)), 0);
	assert_string_equal(o.state_dir, "/run/x");
	assert_int_equal(agent_opts_parse(7, empty, &o, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "--state-dir: give a directory path");
}

static void test_every_injector_can_be_journaled(void **state)
{
	size_t i;

	for (i = 0; injectors[i]; i++)
		if (!injectors[i]->snapshot || !injectors[i]->restore)
			fail_msg("%s: no snapshot/restore: the journal cannot revert it after a "
				 "crash",
				 injectors[i]->name);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_names, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_start, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_write_read_close, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_fsync_ordering, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_fsync_failure_leaves_nothing, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_inject_journals_and_revert_closes, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_replay_reverts, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_replay_obeys_policy, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_replay_own_objects_only, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_replay_failure_stays_open, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_vanished_or_dropped_faults_retired, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_forbidden_injector_refused_first, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_unusable_records_set_aside, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_special_files_set_aside, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_lease_expires, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_renew, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_lease_and_renew_checked, setup, teardown),
	    cmocka_unit_test(test_state_dir_flag),
	    cmocka_unit_test(test_every_injector_can_be_journaled),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
