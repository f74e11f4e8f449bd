// SPDX-License-Identifier: MIT
/*
 * The scheduler watcher (coordinator/sched.c, sched_eval.c, scenario_sched.c, common/slurm.c):
 * scontrol --oneliner records read field by field (a reason with spaces and Slurm's
 * [user@time]), node states turned into drain and resume events, a job's requeue, the judgement
 * of drain and resume times and of a node drained without a fault, the scenario keys and their
 * errors, and the watcher itself polling a fake scontrol (a shell script at the system's edge).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <cmocka.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/slurm.h"
#include "coordinator/sched.h"
#include "coordinator/scenario.h"
#include "tests/unit/scratch_dir.h"

/* Slurm 22.05's scontrol --oneliner show node, as the lab's slurmctld answers (cut). */
#define NODE_LINE(name, state, reason)                                                             \
	"NodeName=" name " Arch=x86_64 CoresPerSocket=1 CPUAlloc=0 CPUEfctv=1 CPUTot=1 "           \
	"CPULoad=0.00 AvailableFeatures=(null) ActiveFeatures=(null) Gres=(null) "                 \
	"NodeAddr=198.51.100.2 NodeHostName=" name " Version=22.05.8 OS=Linux RealMemory=200 "     \
	"State=" state " ThreadsPerCore=1 TmpDisk=0 Weight=1 Owner=N/A MCS_label=N/A "             \
	"Partitions=lab BootTime=2026-12-02T15:00:00 CfgTRES=cpu=1,mem=200M,billing=1 "            \
	"AllocTRES= CapWatts=n/a CurrentWatts=0 AveWatts=0 ExtSensorsJoules=n/s "                  \
	"ExtSensorsWatts=0 ExtSensorsTemp=n/s" reason "\n"

#define REASON_B                                                                                   \
	" Reason=rdmachaos-healthcheck: rxe_rail0 port 1 (rail0): port DOWN "                      \
	"[root@2026-12-02T15:01:02]"

static void test_fields(void **state)
{
	static const char line[] = NODE_LINE("node-b", "IDLE+DRAIN", REASON_B);
	char v[128];

	assert_int_equal(slurm_field(line, sizeof(line) - 1, "State", v, sizeof(v)), 0);
	assert_string_equal(v, "IDLE+DRAIN");
	assert_int_equal(slurm_field(line, sizeof(line) - 1, "NodeName", v, sizeof(v)), 0);
	assert_string_equal(v, "node-b");
	/* a key inside another (NodeAddr= is not Addr=) and one that is absent */
	assert_int_equal(slurm_field(line, sizeof(line) - 1, "Addr", v, sizeof(v)), -ENOENT);
	assert_int_equal(slurm_field(line, sizeof(line) - 1, "Comment", v, sizeof(v)), -ENOENT);
	/* truncated to the buffer */
	assert_int_equal(slurm_field(line, sizeof(line) - 1, "State", v, 5), 0);
	assert_string_equal(v, "IDLE");
	slurm_reason(line, sizeof(line) - 1, v, sizeof(v));
	assert_string_equal(v, "rdmachaos-healthcheck: rxe_rail0 port 1 (rail0): port DOWN");
	slurm_reason("State=IDLE Reason=(null)", 24, v, sizeof(v));
	assert_string_equal(v, "");
	slurm_reason("State=IDLE", 10, v, sizeof(v));
	assert_string_equal(v, "");
	/* a record without its end, and garbage */
	slurm_reason("Reason=[", 8, v, sizeof(v));
	assert_string_equal(v, "[");
	assert_int_equal(slurm_field("=====", 5, "State", v, sizeof(v)), -ENOENT);
}

static void test_states(void **state)
{
	assert_true(slurm_state_has("IDLE+DRAIN", "DRAIN*"));
	assert_true(slurm_state_has("DRAINED", "DRAIN*"));
	assert_false(slurm_state_has("IDLE+DRAIN", "DRAINED"));
	assert_true(slurm_state_has("MIXED+DRAIN", "MIXED"));
	assert_false(slurm_state_has("IDLE", "ID"));
	assert_true(slurm_state_has("IDLE*", "IDLE"));
	assert_false(slurm_state_unschedulable("IDLE"));
	assert_false(slurm_state_unschedulable("ALLOCATED+COMPLETING"));
	assert_false(slurm_state_unschedulable("MIXED"));
	assert_true(slurm_state_unschedulable("IDLE+DRAIN"));
	assert_true(slurm_state_unschedulable("ALLOCATED+DRAIN"));
	assert_true(slurm_state_unschedulable("DOWN"));
	assert_true(slurm_state_unschedulable("IDLE+NOT_RESPONDING"));
	assert_true(slurm_state_unschedulable("IDLE*"));
	assert_true(slurm_state_unschedulable("DOWN+FAIL"));
}

static json_t *names(void)
{
	return json_pack("{s:s,s:s,s:s}", "node-a", "node-a", "node-b", "node-b", "slurm-c",
			 "node-c");
}

static const json_t *find(const json_t *evs, const char *kind, size_t nth)
{
	const json_t *e;
	size_t i;

	json_array_foreach(evs, i, e)
		if (!strcmp(json_string_value(json_object_get(e, "kind")), kind) && !nth--)
			return e;
	return NULL;
}

static void test_observe(void **state)
{
	json_t *st = json_object(), *nm = names(), *out = json_array();
	const json_t *e;

	/* first sight: a scheduler_node each, marked first; a stranger's node is ignored */
	sched_observe(st, nm, NULL,
		      NODE_LINE("node-a", "IDLE", " Reason=(null)") NODE_LINE("node-b", "IDLE", "")
			  NODE_LINE("node-x", "DOWN", "") NODE_LINE("slurm-c", "IDLE", ""),
		      NULL, 100, 100, out);
	assert_int_equal(json_array_size(out), 3);
	assert_true(json_is_true(json_object_get(json_array_get(out, 0), "first")));
	assert_string_equal(json_string_value(json_object_get(json_array_get(out, 2), "node")),
			    "node-c");
	assert_string_equal(
	    json_string_value(json_object_get(json_array_get(out, 2), "slurm_node")), "slurm-c");
	assert_null(find(out, "scheduler_drain", 0));
	json_array_clear(out);
	/* the same again: nothing */
	sched_observe(st, nm, NULL, NODE_LINE("node-a", "IDLE", "") NODE_LINE("node-b", "IDLE", ""),
		      NULL, 100, 200, out);
	assert_int_equal(json_array_size(out), 0);
	/* node-b drained, node-c not responding */
	sched_observe(st, nm, NULL,
		      NODE_LINE("node-b", "IDLE+DRAIN", REASON_B) NODE_LINE("slurm-c", "IDLE*", ""),
		      NULL, 200, 300, out);
	e = find(out, "scheduler_drain", 0);
	assert_non_null(e);
	assert_string_equal(json_string_value(json_object_get(e, "node")), "node-b");
	assert_string_equal(json_string_value(json_object_get(e, "cause")), "drain");
	assert_string_equal(json_string_value(json_object_get(e, "reason")),
			    "rdmachaos-healthcheck: rxe_rail0 port 1 (rail0): port DOWN");
	assert_int_equal(json_integer_value(json_object_get(e, "t_ns")), 300);
	assert_int_equal(json_integer_value(json_object_get(e, "after_ns")), 200);
	e = find(out, "scheduler_drain", 1);
	assert_non_null(e);
	assert_string_equal(json_string_value(json_object_get(e, "node")), "node-c");
	assert_string_equal(json_string_value(json_object_get(e, "cause")), "not_responding");
	json_array_clear(out);
	/* node-b's reason changes while drained: a node event, no second drain */
	sched_observe(st, nm, NULL, NODE_LINE("node-b", "IDLE+DRAIN", " Reason=other"), NULL, 300,
		      400, out);
	assert_int_equal(json_array_size(out), 1);
	assert_null(find(out, "scheduler_drain", 0));
	json_array_clear(out);
	sched_observe(st, nm, NULL, NODE_LINE("node-b", "IDLE", ""), NULL, 400, 500, out);
	assert_non_null(find(out, "scheduler_resume", 0));
	json_decref(st);
	json_decref(out);
	json_decref(nm);
}

#define JOB_LINE(id, name, state, restarts, nodes)                                                 \
	"JobId=" id " JobName=" name " UserId=root(0) GroupId=root(0) Priority=1 Nice=0 "          \
	"JobState=" state " Reason=None Dependency=(null) Requeue=1 Restarts=" restarts            \
	" BatchFlag=1 RunTime=00:00:05 ExitCode=0:0 NodeList=" nodes " BatchHost=node-a\n"

static void test_observe_job(void **state)
{
	json_t *st = json_object(), *nm = names(), *out = json_array();
	const json_t *e;

	sched_observe(st, nm, "allreduce", NULL,
		      JOB_LINE("7", "other", "RUNNING", "0", "node-a")
			  JOB_LINE("8", "allreduce", "RUNNING", "0", "node-[a-c]"),
		      0, 10, out);
	assert_int_equal(json_array_size(out), 1);
	e = json_array_get(out, 0);
	assert_string_equal(json_string_value(json_object_get(e, "job_id")), "8");
	assert_string_equal(json_string_value(json_object_get(e, "nodes")), "node-[a-c]");
	assert_string_equal(json_string_value(json_object_get(e, "exit_code")), "0:0");
	json_array_clear(out);
	sched_observe(st, nm, "allreduce", NULL,
		      JOB_LINE("8", "allreduce", "PENDING", "1", "node-a"), 10, 20, out);
	e = find(out, "scheduler_job", 0);
	assert_true(json_is_true(json_object_get(e, "requeued")));
	assert_int_equal(json_integer_value(json_object_get(e, "restarts")), 1);
	json_decref(st);
	json_decref(out);
	json_decref(nm);
}

static json_t *ev(const char *kind, const char *node, double t, const char *state)
{
	return json_pack("{s:s,s:s,s:f,s:f,s:s,s:s}", "kind", kind, "node", node, "t_ms", t,
			 "after_ms", t - 1000, "state", state, "reason", "why");
}

/* A scheduler_job event as the watcher records it (nodes may be NULL). */
static json_t *job_ev(double t, const char *id, const char *name, int restarts, const char *state,
		      const char *nodes)
{
	return json_pack("{s:s,s:s,s:f,s:s,s:s,s:i,s:s,s:s?}", "kind", "scheduler_job", "node",
			 "scheduler", "t_ms", t, "job_id", id, "name", name, "restarts", restarts,
			 "state", state, "nodes", nodes);
}

/* sched_eval() fails, and its first problem is want. */
static void expect_problem(const json_t *evs, const struct sc_expect *x, const struct ev_fault *f,
			   double end_ms, const char *want)
{
	json_t *out, *probs = json_array();

	assert_int_equal(sched_eval(evs, x, f, 1, end_ms, &out, probs), 1);
	assert_string_equal(json_string_value(json_array_get(probs, 0)), want);
	json_decref(out);
	json_decref(probs);
}

static void test_eval(void **state)
{
	struct sc_fault decl = {.name = "rail0-down"};
	struct ev_fault f = {.decl = &decl,
			     .node = "node-b",
			     .injected_ms = 10000,
			     .reverted_ms = 20000,
			     .next_injected_ms = 0}; /* 0: not known yet, as during the drill */
	struct sc_expect x = {.sched_drained_within_ms = 5000, .sched_resumed_within_ms = 10000};
	json_t *evs = json_array(), *out, *probs = json_array(), *row, *e;

	json_array_append_new(evs, ev("scheduler_drain", "node-b", 13000, "IDLE+DRAIN"));
	json_array_append_new(evs, ev("scheduler_resume", "node-b", 25000, "IDLE"));
	assert_int_equal(sched_eval(evs, &x, &f, 1, 40000, &out, probs), 0);
	row = json_array_get(json_object_get(out, "faults"), 0);
	assert_true(json_number_value(json_object_get(row, "drained_ms")) == 3000);
	assert_true(json_number_value(json_object_get(row, "drained_after_ms")) == 2000);
	assert_true(json_number_value(json_object_get(row, "resumed_ms")) == 5000);
	assert_true(json_is_true(json_object_get(row, "ok")));
	assert_int_equal(json_array_size(probs), 0);
	json_decref(out);

	/* too slow both ways, and node-c drained without a fault */
	x.sched_drained_within_ms = 2000;
	x.sched_resumed_within_ms = 4000;
	json_array_append_new(evs, ev("scheduler_drain", "node-c", 14000, "IDLE+DRAIN"));
	assert_int_equal(sched_eval(evs, &x, &f, 1, 40000, &out, probs), 1);
	assert_int_equal(json_array_size(probs), 3);
	assert_string_equal(json_string_value(json_array_get(probs, 0)),
			    "scheduler: rail0-down: node-b was drained 3 s after the inject, over "
			    "drained_within 2 s");
	assert_string_equal(json_string_value(json_array_get(probs, 1)),
			    "scheduler: rail0-down: node-b came back 5 s after the revert, over "
			    "resumed_within 4 s");
	assert_string_equal(json_string_value(json_array_get(probs, 2)),
			    "scheduler: node-c was taken out of service (IDLE+DRAIN, reason 'why') "
			    "at +14.0 s, but no fault touched it: isolation must be precise");
	assert_int_equal(json_array_size(json_object_get(out, "wrongly_drained")), 1);
	json_decref(out);
	json_array_clear(probs);

	/* never drained */
	json_array_clear(evs);
	expect_problem(evs, &x, &f, 40000,
		       "scheduler: rail0-down: Slurm never took node-b out of service (no "
		       "drain, down or not responding in the 30 s after the inject); "
		       "drained_within is 2 s");

	/* the job: completed wanted, still running; then completed after one requeue */
	snprintf(x.sched_job, sizeof(x.sched_job), "completed");
	x.sched_drained_within_ms = x.sched_resumed_within_ms = 0;
	x.sched_max_requeues = 1;
	json_array_append_new(evs, job_ev(1.0, "8", "allreduce", 1, "RUNNING", NULL));
	expect_problem(evs, &x, &f, 40000,
		       "scheduler: job 8 (allreduce) ended the drill RUNNING, not COMPLETED "
		       "(seen: RUNNING at +0.0 s)");
	json_array_append_new(evs, job_ev(2.0, "8", "allreduce", 1, "COMPLETED", NULL));
	assert_int_equal(sched_eval(evs, &x, &f, 1, 40000, &out, probs), 0);
	assert_int_equal(
	    json_integer_value(json_object_get(json_object_get(out, "job"), "requeues")), 1);
	/* the requeue counted once, at the poll that first saw it */
	assert_int_equal(
	    json_array_size(json_object_get(json_object_get(out, "job"), "requeued_ms")), 1);
	assert_true(json_number_value(json_array_get(
			json_object_get(json_object_get(out, "job"), "requeued_ms"), 0)) == 1.0);
	json_decref(out);
	json_array_clear(probs);

	/* running wanted: the drill's own stop of the job (after end_ms) is not its outcome */
	snprintf(x.sched_job, sizeof(x.sched_job), "running");
	x.sched_max_requeues = 0;
	json_array_clear(evs);
	json_array_append_new(evs, job_ev(-600.0, "9", "canary", 0, "RUNNING", "node-a,node-b"));
	e = job_ev(41000.0, "9", "canary", 0, "COMPLETING", "node-a,node-b");
	json_object_set_new(e, "reason", json_string("NonZeroExitCode"));
	json_object_set_new(e, "exit_code", json_string("0:2"));
	json_array_append_new(evs, e);
	assert_int_equal(sched_eval(evs, &x, &f, 1, 40000, &out, probs), 0);
	assert_string_equal(
	    json_string_value(json_object_get(json_object_get(out, "job"), "state")), "RUNNING");
	json_decref(out);
	/* ... but a job that ended by itself before the drill's end fails it, with Slurm's why */
	expect_problem(evs, &x, &f, 42000,
		       "scheduler: job 9 (canary) ended the drill COMPLETING, reason "
		       "NonZeroExitCode, exit code 0:2, not RUNNING (seen: RUNNING on "
		       "node-a,node-b at -0.6 s, COMPLETING on node-a,node-b at +41.0 s)");
	json_decref(evs);
	json_decref(probs);
}

static const char SC_BASE[] =
    "name: t\n"
    "lab: {nodes: 3, rails: 2}\n"
    "workload: {from: node-a, to: node-b, rails: [0, 1]}\n"
    "steady_state: {warmup: 5s, baseline: 10s}\n"
    "faults:\n"
    "  - {name: f0, at: 20s, injector: link_down, target: {node: node-b, rail: 0}, duration: 10s}\n"
    "expect:\n"
    "  detection: {within: 5s, signals: [workload_error]}\n"
    "  recovery: {within: 30s}\n";

static int parse(const char *extra, struct scenario *sc, char *err, size_t errlen)
{
	char text[2048];

	snprintf(text, sizeof(text), "%s%s", SC_BASE, extra);
	return scenario_parse("t.yaml", text, strlen(text), sc, err, errlen);
}

static void expect_parse_err(const char *extra, const char *want)
{
	struct scenario sc;
	char err[512];

	assert_int_equal(parse(extra, &sc, err, sizeof(err)), -EINVAL);
	if (strcmp(err, want))
		print_error("want: %s\ngot: %s\n", want, err);
	assert_string_equal(err, want);
}

static void test_scenario(void **state)
{
	struct scenario sc;
	char err[512] = "";

	assert_int_equal(
	    parse("  scheduler: {drained_within: 60s, resumed_within: 90s}\n"
		  "scheduler:\n"
		  "  slurm: {every: 500ms, nodes: {node-c: gpu-017}, job: allreduce}\n",
		  &sc, err, sizeof(err)),
	    0);
	assert_true(sc.scheduler.slurm);
	assert_string_equal(sc.scheduler.scontrol, "/usr/bin/scontrol");
	assert_int_equal(sc.scheduler.every_ms, 500);
	assert_string_equal(json_string_value(json_object_get(sc.scheduler.nodes, "node-c")),
			    "gpu-017");
	assert_string_equal(sc.scheduler.job, "allreduce");
	assert_int_equal(sc.expect.sched_drained_within_ms, 60000);
	assert_int_equal(sc.expect.sched_resumed_within_ms, 90000);
	assert_int_equal(sc.expect.sched_max_requeues, 1);
	scenario_free(&sc);
	assert_int_equal(parse("scheduler: {slurm: }\n", &sc, err, sizeof(err)), 0);
	assert_int_equal(sc.scheduler.every_ms, 1000);
	scenario_free(&sc);

	expect_parse_err("  scheduler: {drained_within: 60s}\n",
			 "t.yaml:1:1: scheduler: missing; expect.scheduler needs a scheduler to "
			 "watch, e.g. scheduler: {slurm: {}}");
	expect_parse_err(
	    "scheduler: {slurm: {every: 10ms}}\n",
	    "t.yaml:10:28: scheduler.slurm.every: 10ms is out of range; use 200ms..60s "
	    "(each poll is one scontrol call to slurmctld)");
	expect_parse_err(
	    "scheduler: {slurm: {nodes: {node-z: x}}}\n",
	    "t.yaml:10:29: scheduler.slurm.nodes.node-z: \"node-z\" is not a node of this "
	    "drill; nodes: node-a, node-b, node-c");
	expect_parse_err("scheduler: {slurm: {scontrol: scontrol}}\n",
			 "t.yaml:10:31: scheduler.slurm.scontrol: \"scontrol\" is not an absolute "
			 "path; give where scontrol is, e.g. /usr/bin/scontrol");
	expect_parse_err("  scheduler: {job: done}\nscheduler: {slurm: {job: a}}\n",
			 "t.yaml:10:20: expect.scheduler.job: \"done\" is not an outcome; use "
			 "completed (the job ended COMPLETED by the drill's end) or running (still "
			 "RUNNING then)");
	assert_int_equal(parse("scheduler: {slurm: {job: canary, submit: [--requeue, --wrap, "
			       "'sleep 600']}}\n",
			       &sc, err, sizeof(err)),
			 0);
	assert_int_equal(json_array_size(sc.scheduler.submit), 3);
	assert_string_equal(json_string_value(json_array_get(sc.scheduler.submit, 2)), "sleep 600");
	scenario_free(&sc);
	expect_parse_err(
	    "scheduler: {slurm: {submit: [--wrap, x]}}\n",
	    "t.yaml:10:29: scheduler.slurm.submit: needs scheduler.slurm.job: the name "
	    "the job is submitted and followed by");
	expect_parse_err("scheduler: {slurm: {job: a, submit: [-J, b]}}\n",
			 "t.yaml:10:38: scheduler.slurm.submit[0]: the job's name is "
			 "scheduler.slurm.job; leave -J out");
	expect_parse_err("scheduler: {pbs: {}}\n",
			 "t.yaml:10:13: scheduler.pbs: unknown key; allowed here: slurm");
}

/* --- the watcher against a fake scontrol ------------------------------------------------- */

static char dir[64];

static void write_file(const char *name, const char *text, mode_t mode)
{
	scratch_put(dir, name, text, mode);
}

static void test_watcher(void **state)
{
	struct scenario sc;
	struct sc_scheduler cfg = {.slurm = true, .every_ms = 200};
	struct sched *s;
	char err[512], script[512];
	json_t *evs = json_array();
	int tries;

	assert_int_equal(scratch_make(dir, sizeof(dir), "sched"), 0);
	/* answers with the file "nodes", and tells which SLURM_CONF it was given */
	snprintf(script, sizeof(script),
		 "#!/bin/sh\necho \"$SLURM_CONF\" >%s/conf\n[ \"$4\" = node-a,node-b,node-c ] || "
		 "exit 9\ncat %s/nodes\n",
		 dir, dir);
	write_file("scontrol", script, 0755);
	write_file("nodes",
		   NODE_LINE("node-a", "IDLE", "") NODE_LINE("node-b", "IDLE", "")
		       NODE_LINE("node-c", "IDLE", ""),
		   0644);
	assert_int_equal(parse("scheduler: {slurm: }\n", &sc, err, sizeof(err)), 0);
	snprintf(cfg.scontrol, sizeof(cfg.scontrol), "%s/scontrol", dir);
	assert_int_equal(sched_start(&cfg, "/x/slurm.conf", &sc, &s, err, sizeof(err)), 0);
	assert_int_equal(sched_drain(s, evs, 0), 3);
	write_file("nodes",
		   NODE_LINE("node-a", "IDLE", "") NODE_LINE("node-b", "IDLE+DRAIN", REASON_B)
		       NODE_LINE("node-c", "IDLE", ""),
		   0644);
	for (tries = 0; tries < 100 && !find(evs, "scheduler_drain", 0); tries++) {
		usleep(50000);
		sched_drain(s, evs, 0);
	}
	assert_non_null(find(evs, "scheduler_drain", 0));
	sched_stop(s);
	{
		char path[128], conf[64] = "";
		FILE *f;

		snprintf(path, sizeof(path), "%s/conf", dir);
		f = fopen(path, "r");
		assert_non_null(f);
		assert_non_null(fgets(conf, sizeof(conf), f));
		fclose(f);
		assert_string_equal(conf, "/x/slurm.conf\n");
	}

	/* sbatch beside scontrol, with the same SLURM_CONF, the drill's arguments after its own */
	{
		const char *pre[] = {"--parsable", "-J", "canary", NULL};
		json_t *args = json_pack("[s,s]", "--wrap", "sleep 1");
		char out[64];

		snprintf(
		    script, sizeof(script),
		    "#!/bin/sh\n[ \"$SLURM_CONF\" = /x/slurm.conf ] || exit 8\n"
		    "[ \"$*\" = \"--parsable -J canary --wrap sleep 1\" ] || exit 9\necho 42\n");
		write_file("sbatch", script, 0755);
		assert_int_equal(sched_run_tool(&cfg, "/x/slurm.conf", "sbatch", pre, args, out,
						sizeof(out), err, sizeof(err)),
				 0);
		assert_string_equal(out, "42\n");
		assert_int_equal(sched_run_tool(&cfg, NULL, "sbatch", pre, args, out, sizeof(out),
						err, sizeof(err)),
				 8);
		assert_non_null(strstr(err, "/sbatch: exit 8"));
		assert_int_equal(sched_run_tool(&cfg, NULL, "scancel", NULL, NULL, out, sizeof(out),
						err, sizeof(err)),
				 -ENOENT);
		assert_non_null(strstr(err, "/scancel: no such program"));
		json_decref(args);
	}

	/* a node Slurm does not know, a scontrol that fails, one that does not exist */
	write_file("nodes", NODE_LINE("node-a", "IDLE", "") NODE_LINE("node-b", "IDLE", ""), 0644);
	assert_int_equal(sched_start(&cfg, NULL, &sc, &s, err, sizeof(err)), -ENOENT);
	assert_string_equal(err, "scheduler: Slurm has no node node-c (the drill's node node-c); "
				 "map the drill's names to Slurm's in scheduler.slurm.nodes");
	cfg.nodes = json_pack("{s:s}", "node-c", "gpu-1");
	assert_int_equal(sched_start(&cfg, NULL, &sc, &s, err, sizeof(err)), -EIO);
	assert_non_null(strstr(err, "show node node-a,node-b,gpu-1: exit 9; can this host reach "
				    "slurmctld (scontrol's own slurm.conf, and munge"));
	json_decref(cfg.nodes);
	cfg.nodes = NULL;
	snprintf(cfg.scontrol, sizeof(cfg.scontrol), "%s/none", dir);
	assert_int_equal(sched_start(&cfg, NULL, &sc, &s, err, sizeof(err)), -EIO);
	assert_non_null(strstr(err, "none: no such program; install Slurm's client"));
	scenario_free(&sc);
	json_decref(evs);
	assert_int_equal(scratch_remove(dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_fields),  cmocka_unit_test(test_states),
	    cmocka_unit_test(test_observe), cmocka_unit_test(test_observe_job),
	    cmocka_unit_test(test_eval),    cmocka_unit_test(test_scenario),
	    cmocka_unit_test(test_watcher),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
