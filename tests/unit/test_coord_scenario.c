// SPDX-License-Identifier: MIT
/*
 * Scenario parsing: the shipped scenarios parse to the expected structs, and
 * each refusal names the file, line, column and key with the exact sentence an
 * operator will read. Invalid cases are one-line edits of BASE, so the line
 * numbers below are BASE's.
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

#include "coordinator/scenario.h"
#include "injectors/injector.h"

static const char BASE[] =
    "name: t\n"								 /* 1 */
    "lab: {nodes: 2, rails: 2}\n"					 /* 2 */
    "workload:\n"							 /* 3 */
    "  from: node-a\n"							 /* 4 */
    "  to: node-b\n"							 /* 5 */
    "  rails: [0, 1]\n"							 /* 6 */
    "  qp: {timeout: 14, retry_cnt: 6}\n"				 /* 7 */
    "steady_state: {warmup: 5s, baseline: 10s}\n"			 /* 8 */
    "faults:\n"								 /* 9 */
    "  - name: f0\n"							 /* 10 */
    "    at: 20s\n"							 /* 11 */
    "    injector: link_down\n"						 /* 12 */
    "    target: {node: node-b, rail: 0}\n"				 /* 13 */
    "    duration: 10s\n"						 /* 14 */
    "expect:\n"								 /* 15 */
    "  detection: {within: 5s, signals: [workload_error, port_event]}\n" /* 16 */
    "  recovery: {within: 30s}\n";					 /* 17 */

/* sha256 of BASE's bytes, computed outside the program (python hashlib). */
#define BASE_SHA256 "8a08f7405a48e666cab61ccce5c677fcc1d0d4823a63fbf27cca64d533fd8a36"

/* BASE with the first occurrence of `from` replaced by `to` (caller frees). */
static char *edit(const char *from, const char *to)
{
	const char *at = strstr(BASE, from);
	size_t head, len;
	char *s;

	assert_non_null(at);
	head = (size_t)(at - BASE);
	len = strlen(BASE) - strlen(from) + strlen(to);
	s = malloc(len + 1);
	assert_non_null(s);
	memcpy(s, BASE, head);
	strcpy(s + head, to);
	strcat(s, at + strlen(from));
	return s;
}

static void expect_err_text(const char *text, const char *want)
{
	struct scenario sc;
	char err[512];
	int ret;

	ret = scenario_parse("t.yaml", text, strlen(text), &sc, err, sizeof(err));
	if (ret != -EINVAL || strcmp(err, want))
		print_error("want: %s\ngot (%d): %s\n", want, ret, err);
	assert_int_equal(ret, -EINVAL);
	assert_string_equal(err, want);
	/* a failed parse leaves nothing to free, and freeing again is harmless */
	assert_null(sc.nodes);
	scenario_free(&sc);
}

static void expect_err(const char *from, const char *to, const char *want)
{
	char *text = edit(from, to);

	expect_err_text(text, want);
	free(text);
}

static void test_base_parses(void **state)
{
	struct scenario sc;
	char err[512] = "";

	assert_int_equal(scenario_parse("t.yaml", BASE, strlen(BASE), &sc, err, sizeof(err)), 0);
	assert_string_equal(sc.file, "t.yaml");
	assert_int_equal(strlen(sc.sha256), 64);
	assert_string_equal(sc.name, "t");
	assert_string_equal(sc.description, "");
	assert_true(sc.lab);
	/* defaults */
	assert_string_equal(sc.workload.kind, "rdma_stream");
	assert_int_equal(sc.workload.op, SC_OP_WRITE);
	assert_int_equal(sc.workload.msg_size, 65536);
	assert_int_equal(sc.workload.queue_depth, 8);
	assert_int_equal(sc.workload.interval_ms, 100);
	assert_int_equal(sc.workload.port, 18515);
	assert_int_equal(sc.cooldown_ms, 0);
	assert_false(sc.expect.isolation_set);
	assert_true(sc.expect.recovery_ratio == 0.8);
	assert_int_equal(sc.expect.recovery_sustain_ms, 2000);
	assert_int_equal(sc.expect.max_lost, -1);
	assert_int_equal(sc.expect.max_corrupted, -1);
	assert_int_equal(json_object_size(sc.faults[0].params), 0);
	assert_int_equal(sc.faults[0].line, 10);
	scenario_free(&sc);
	scenario_free(&sc);
}

/* A fault on the workload process, with parameters checked by the injector's validate(). */
static void test_workload_target(void **state)
{
	struct scenario sc;
	char err[512] = "";
	char *text = edit("    injector: link_down\n    target: {node: node-b, rail: 0}\n"
			  "    duration: 10s\n",
			  "    injector: qp_error\n    target: {node: node-a, workload: stream}\n"
			  "    params: {mechanism: shim, qps: 291, action: error}\n");
	assert_int_equal(scenario_parse("t.yaml", text, strlen(text), &sc, err, sizeof(err)), 0);
	assert_string_equal(sc.faults[0].target.workload, "stream");
	assert_int_equal(sc.faults[0].target.rail, -1);
	assert_int_equal(sc.faults[0].duration_ms, 0);
	/* typed by their YAML form */
	assert_int_equal(json_integer_value(json_object_get(sc.faults[0].params, "qps")), 291);
	assert_string_equal(json_string_value(json_object_get(sc.faults[0].params, "action")),
			    "error");
	scenario_free(&sc);
	free(text);

	text = edit("  rails: [0, 1]\n", "  rails: [0, 1]\n  mr_churn: 2s\n");
	assert_int_equal(scenario_parse("t.yaml", text, strlen(text), &sc, err, sizeof(err)), 0);
	assert_int_equal(sc.workload.mr_churn_ms, 2000);
	scenario_free(&sc);
	free(text);
}

static void test_workload_target_errors(void **state)
{
	static const char from[] = "    injector: link_down\n    target: {node: node-b, rail: 0}\n"
				   "    duration: 10s\n";

	expect_err(
	    from,
	    "    injector: qp_error\n    target: {node: node-a, workload: job}\n"
	    "    params: {mechanism: shim}\n",
	    "t.yaml:13:38: faults[0].target.workload: \"job\" is not a workload of this drill; "
	    "the drill's workload is stream");
	expect_err(from,
		   "    injector: qp_error\n    target: {node: node-a, workload: stream, netdev: "
		   "x}\n    params: {mechanism: shim}\n",
		   "t.yaml:13:54: faults[0].target.netdev: goes with workload only as rail: N (the "
		   "rail whose netdev a mechanism needs)");
	expect_err(
	    from,
	    "    injector: qp_error\n    target: {node: node-a, workload: stream}\n"
	    "    params:\n      mechanism: shim\n      speed: 3\n",
	    "t.yaml:16:14: faults[0].params.speed: unknown parameter (qp_error takes mechanism, "
	    "action, qps, count, wc_status, qpn)");
	expect_err(from,
		   "    injector: qp_error\n    target: {node: node-a, workload: stream}\n"
		   "    params:\n      mechanism: teleport\n",
		   "t.yaml:15:18: faults[0].params.mechanism: must be \"shim\" or \"transport\"");
	expect_err(
	    from,
	    "    injector: mr_failure\n    target: {node: node-a, workload: stream}\n"
	    "    params: {mechanism: cgroup}\n",
	    "t.yaml:10:5: faults[0].duration: missing; mr_failure needs to know when to undo "
	    "the fault, e.g. duration: 10s");
	expect_err(
	    "  rails: [0, 1]\n", "  rails: [0, 1]\n  mr_churn: 10ms\n",
	    "t.yaml:7:13: workload.mr_churn: 10ms is out of range; use 100ms..1h (or 0: never)");
}

static void test_sha256_is_of_the_bytes(void **state)
{
	struct scenario sc;
	char err[512] = "";
	assert_int_equal(scenario_parse("t.yaml", BASE, strlen(BASE), &sc, err, sizeof(err)), 0);
	assert_string_equal(sc.sha256, BASE_SHA256);
	scenario_free(&sc);
}

static void test_link_down_file(void **state)
{
	struct scenario sc;
	char err[512] = "";
	const struct sc_fault *f;
	int ret;

	ret = scenario_load(RC_SRCDIR "/scenarios/link-down.yaml", &sc, err, sizeof(err));
	if (ret)
		print_error("%s\n", err);
	assert_int_equal(ret, 0);
	assert_string_equal(sc.name, "link-down-rail0");
	assert_string_equal(sc.description,
			    "Rail 0 of node-b loses its link for 10 s under a write stream.");
	assert_string_equal(sc.owner, "network-oncall");
	assert_true(sc.lab);
	assert_int_equal(sc.lab_nodes, 2);
	assert_int_equal(sc.lab_rails, 2);
	assert_int_equal(sc.nr_nodes, 2);
	assert_string_equal(sc.nodes[0].name, "node-a");
	assert_string_equal(sc.nodes[1].name, "node-b");
	assert_string_equal(sc.nodes[1].agent, "");
	assert_non_null(scenario_node(&sc, "node-b"));
	assert_null(scenario_node(&sc, "node-c"));
	assert_string_equal(sc.workload.kind, "rdma_stream");
	assert_string_equal(sc.workload.from, "node-a");
	assert_string_equal(sc.workload.to, "node-b");
	assert_int_equal(sc.workload.op, SC_OP_WRITE);
	assert_int_equal(sc.workload.msg_size, 65536);
	assert_int_equal(sc.workload.queue_depth, 8);
	assert_int_equal(sc.workload.nr_rails, 2);
	assert_int_equal(sc.workload.rails[0], 0);
	assert_int_equal(sc.workload.rails[1], 1);
	assert_int_equal(sc.workload.qp_timeout, 16);
	assert_int_equal(sc.workload.qp_retry_cnt, 6);
	assert_int_equal(sc.workload.interval_ms, 100);
	assert_int_equal(sc.warmup_ms, 3000);
	assert_int_equal(sc.baseline_ms, 7000);
	assert_int_equal(sc.nr_faults, 1);
	f = &sc.faults[0];
	assert_string_equal(f->name, "rail0-down");
	assert_string_equal(f->injector, "link_down");
	assert_int_equal(f->at_ms, 12000);
	assert_int_equal(f->duration_ms, 10000);
	assert_string_equal(f->target.node, "node-b");
	assert_int_equal(f->target.rail, 0);
	assert_string_equal(f->target.netdev, "");
	assert_string_equal(f->target.device, "");
	assert_int_equal(json_object_size(f->params), 0);
	assert_int_equal(sc.expect.detection_within_ms, 5000);
	assert_int_equal(sc.expect.nr_signals, 2);
	assert_int_equal(sc.expect.signals[0], SC_SIG_WORKLOAD_ERROR);
	assert_int_equal(sc.expect.signals[1], SC_SIG_PORT_EVENT);
	assert_true(sc.expect.isolation_set);
	assert_int_equal(sc.expect.isolation_within_ms, 10000);
	assert_int_equal(sc.expect.recovery_within_ms, 15000);
	assert_true(sc.expect.recovery_ratio == 0.5);
	assert_int_equal(sc.expect.recovery_sustain_ms, 2000);
	assert_int_equal(sc.expect.max_lost, 0);
	assert_int_equal(sc.expect.max_corrupted, 0);
	assert_int_equal(strlen(sc.sha256), 64);
	scenario_free(&sc);
}

static void test_port_flap_file(void **state)
{
	struct scenario sc;
	char err[512] = "";
	char *params;
	int ret;

	ret = scenario_load(RC_SRCDIR "/scenarios/port-flap.yaml", &sc, err, sizeof(err));
	if (ret)
		print_error("%s\n", err);
	assert_int_equal(ret, 0);
	assert_string_equal(sc.name, "port-flap-rail0");
	assert_int_equal(sc.nr_faults, 1);
	assert_string_equal(sc.faults[0].injector, "port_flap");
	assert_int_equal(sc.faults[0].at_ms, 12000);
	/* count x (down + up): 3 x (4 s + 4 s) */
	assert_int_equal(sc.faults[0].duration_ms, 24000);
	params = json_dumps(sc.faults[0].params, JSON_COMPACT);
	/* no seed written: it comes from the run's --seed */
	assert_string_equal(params,
			    "{\"count\":3,\"down_ms\":4000,\"up_ms\":4000,\"jitter_ms\":300}");
	free(params);
	assert_int_equal(sc.expect.recovery_within_ms, 30000);
	assert_true(sc.expect.recovery_ratio == 0.5);
	scenario_free(&sc);
}

static void test_impossible_file(void **state)
{
	struct scenario sc;
	char err[512] = "";

	assert_int_equal(
	    scenario_load(RC_SRCDIR "/scenarios/impossible-recovery.yaml", &sc, err, sizeof(err)),
	    0);
	assert_string_equal(sc.name, "impossible-recovery");
	assert_int_equal(sc.expect.recovery_within_ms, 1);
	assert_int_equal(sc.faults[0].duration_ms, 10000);
	scenario_free(&sc);
}

static void test_missing_file(void **state)
{
	struct scenario sc;
	char err[512] = "";

	assert_int_equal(scenario_load("/nonexistent/x.yaml", &sc, err, sizeof(err)), -ENOENT);
	assert_string_equal(err, "/nonexistent/x.yaml: cannot open: No such file or directory");
}

static void test_cluster_nodes(void **state)
{
	static const char text[] =
	    "name: real.cluster_1\n"
	    "nodes:\n"
	    "  - {name: gpu01, agent: \"gpu01:7707\"}\n"
	    "  - {name: gpu02, agent: \"[fd00::2]:7707\"}\n"
	    "  - {name: gpu03, agent: \"10.0.0.3:7707\"}\n"
	    "workload: {from: gpu01, to: gpu03, op: send, msg_size: 1MiB, queue_depth: 16,\n"
	    "           rails: [0, 7], qp: {timeout: 18, retry_cnt: 7}, interval: 1s,\n"
	    "           port: 20000}\n"
	    "steady_state: {warmup: 0s, baseline: 30s, cooldown: 10s}\n"
	    "faults:\n"
	    "  - {name: eth2-down, at: 1m, injector: link_down, duration: 500ms,\n"
	    "     target: {node: gpu02, netdev: eth2}}\n"
	    "  - {name: mlx-flap, at: 30s, injector: port_flap,\n"
	    "     target: {node: gpu02, device: mlx5_0, port: 2},\n"
	    "     params: {count: 2, down: 1s, up: 1.5s, seed: 42}, duration: 20s}\n"
	    "  - {name: eth2-again, at: 60500ms, injector: link_down, duration: 1s,\n"
	    "     target: {node: gpu02, netdev: eth2}}\n"
	    "expect:\n"
	    "  detection: {within: 1s, signals: [counter, link_event, isolation]}\n"
	    "  recovery: {within: 2s, throughput_ratio: 1, sustain: 0}\n"
	    "  integrity: {lost: 5}\n";
	struct scenario sc;
	char err[512] = "";
	char *params;
	int ret;

	ret = scenario_parse("c.yaml", text, strlen(text), &sc, err, sizeof(err));
	if (ret)
		print_error("%s\n", err);
	assert_int_equal(ret, 0);
	assert_false(sc.lab);
	assert_int_equal(sc.nr_nodes, 3);
	assert_string_equal(sc.nodes[1].agent, "[fd00::2]:7707");
	assert_int_equal(sc.workload.op, SC_OP_SEND);
	assert_int_equal(sc.workload.msg_size, 1048576);
	assert_int_equal(sc.workload.qp_retry_cnt, 7); /* allowed off the lab */
	assert_int_equal(sc.workload.qp_timeout, 18);
	assert_int_equal(sc.workload.rails[1], 7);
	assert_int_equal(sc.workload.interval_ms, 1000);
	assert_int_equal(sc.workload.port, 20000);
	assert_int_equal(sc.warmup_ms, 0);
	assert_int_equal(sc.cooldown_ms, 10000);
	assert_int_equal(sc.nr_faults, 3);
	assert_int_equal(sc.faults[0].at_ms, 60000);
	assert_string_equal(sc.faults[0].target.netdev, "eth2");
	assert_int_equal(sc.faults[0].target.rail, -1);
	assert_string_equal(sc.faults[1].target.device, "mlx5_0");
	assert_int_equal(sc.faults[1].target.port, 2);
	assert_int_equal(sc.faults[1].duration_ms, 20000); /* given, not computed */
	params = json_dumps(sc.faults[1].params, JSON_COMPACT);
	assert_string_equal(
	    params, "{\"count\":2,\"down_ms\":1000,\"up_ms\":1500,\"jitter_ms\":0,\"seed\":42}");
	free(params);
	/* back to back on the same netdev is not an overlap */
	assert_int_equal(sc.faults[2].at_ms, 60500);
	assert_int_equal(sc.expect.nr_signals, 3);
	assert_int_equal(sc.expect.signals[2], SC_SIG_ISOLATION);
	assert_true(sc.expect.recovery_ratio == 1.0);
	assert_int_equal(sc.expect.recovery_sustain_ms, 0);
	assert_int_equal(sc.expect.max_lost, 5);
	assert_int_equal(sc.expect.max_corrupted, -1);
	scenario_free(&sc);
}

static void test_flap_duration_with_jitter(void **state)
{
	struct scenario sc;
	char err[512] = "";
	char *text = edit("    injector: link_down\n"
			  "    target: {node: node-b, rail: 0}\n"
			  "    duration: 10s\n",
			  "    injector: port_flap\n"
			  "    target: {node: node-b, rail: 0}\n"
			  "    params: {count: 10, down: 1s, up: 1s, jitter: 500ms}\n");
	int ret = scenario_parse("t.yaml", text, strlen(text), &sc, err, sizeof(err));

	if (ret)
		print_error("%s\n", err);
	assert_int_equal(ret, 0);
	/*
	 * 19 periods can each run 500 ms long: the last up may come at
	 * 10 x 1 s + 9 x 1 s + 9.5 s = 28.5 s, later than 10 x (1 s + 1 s).
	 */
	assert_int_equal(sc.faults[0].duration_ms, 28500);
	scenario_free(&sc);
	free(text);
}

static void test_signal_names(void **state)
{
	enum sc_signal s;
	unsigned int i;

	for (i = 0; i < SC_SIG__COUNT; i++) {
		assert_int_equal(sc_signal_parse(sc_signal_name((enum sc_signal)i), &s), 0);
		assert_int_equal(s, i);
	}
	assert_int_equal(sc_signal_parse("port", &s), -EINVAL);
	assert_string_equal(sc_signal_name(SC_SIG_PORT_EVENT), "port_event");
}

/* ---- refusals ---------------------------------------------------------- */

static void test_unknown_key(void **state)
{
	expect_err("  rails: [0, 1]", "  rials: [0, 1]",
		   "t.yaml:6:3: workload.rials: unknown key; allowed here: kind, from, to, op, "
		   "msg_size, queue_depth, rails, qp, interval, port, mr_churn, tos, rate, "
		   "busy_poll");
	expect_err("name: t\n", "name: t\nnmae: u\n",
		   "t.yaml:2:1: nmae: unknown key; allowed here: name, description, owner, lab, "
		   "nodes, workload, steady_state, faults, expect, safety, monitoring, "
		   "scheduler, select");
	expect_err("rail: 0}", "rail: 0, netdve: x}",
		   "t.yaml:13:37: faults[0].target.netdve: unknown key; allowed here: node, rail, "
		   "netdev, device, port, workload");
}

static void test_duplicate_key(void **state)
{
	expect_err("  to: node-b\n", "  to: node-b\n  to: node-a\n",
		   "t.yaml:6:3: workload.to: given twice (first on line 5)");
}

static void test_missing_name(void **state)
{
	expect_err("name: t\n", "owner: me\n",
		   "t.yaml:1:1: name: missing; every scenario needs a name ([A-Za-z0-9._-]+, used "
		   "in folder names)");
	expect_err(
	    "name: t\n", "name: link down\n",
	    "t.yaml:1:7: name: \"link down\" may hold only letters, digits, '.', '_' and '-' "
	    "(it is used in folder names)");
}

static void test_bad_duration(void **state)
{
	expect_err(
	    "duration: 10s", "duration: 10 s",
	    "t.yaml:14:15: faults[0].duration: \"10 s\" is not a duration; write a number and a "
	    "unit with no space, e.g. 250ms, 10s, 2m (a plain number is seconds)");
	expect_err(
	    "at: 20s", "at: -1s",
	    "t.yaml:11:9: faults[0].at: \"-1s\" is not a duration; write a number and a unit "
	    "with no space, e.g. 250ms, 10s, 2m (a plain number is seconds)");
	expect_err("duration: 10s", "duration: 0s",
		   "t.yaml:14:15: faults[0].duration: must be longer than 0");
}

static void test_retry_cnt_7_in_lab(void **state)
{
	expect_err(
	    "retry_cnt: 6", "retry_cnt: 7",
	    "t.yaml:7:32: workload.qp.retry_cnt: 7 makes Soft-RoCE retry forever; use 0..6 in "
	    "the lab");
	expect_err("retry_cnt: 6", "retry_cnt: 8",
		   "t.yaml:7:32: workload.qp.retry_cnt: 8 is out of range; use 0..7");
}

static void test_timeout_0(void **state)
{
	expect_err("timeout: 14", "timeout: 0",
		   "t.yaml:7:17: workload.qp.timeout: 0 disables the retransmit timer, so one lost "
		   "packet hangs the QP forever; use 1..31 (the period is 4.096 us x 2^timeout, 14 "
		   "is about 67 ms)");
	expect_err("timeout: 14", "timeout: 32",
		   "t.yaml:7:17: workload.qp.timeout: 32 is out of range; use 0..31");
	expect_err("timeout: 14", "timeout: fast",
		   "t.yaml:7:17: workload.qp.timeout: \"fast\" is not a whole number; use 0..31");
}

static void test_from_equals_to(void **state)
{
	expect_err(
	    "  to: node-b", "  to: node-a",
	    "t.yaml:5:7: workload.to: \"node-a\" is also the client (from); the stream needs "
	    "two different nodes");
}

static void test_unknown_node(void **state)
{
	expect_err(
	    "  from: node-a", "  from: node-c",
	    "t.yaml:4:9: workload.from: \"node-c\" is not a node of this drill; nodes: node-a, "
	    "node-b");
	expect_err(
	    "{node: node-b, rail: 0}", "{node: gpu01, rail: 0}",
	    "t.yaml:13:20: faults[0].target.node: \"gpu01\" is not a node of this drill; nodes: "
	    "node-a, node-b");
}

/* A user's job as the workload: its ranks, templates, rules and defaults; and its refusals. */
/* The base scenario with a job workload (job: its keys, indented) in the stream's place. */
static char *job_edit(const char *job)
{
	return edit(
	    "  from: node-a\n  to: node-b\n  rails: [0, 1]\n  qp: {timeout: 14, retry_cnt: 6}\n",
	    job);
}

static void test_job(void **state)
{
	static const char job[] =
	    "  kind: job\n"
	    "  ranks:\n"
	    "    - node: node-b\n"
	    "      command: [/usr/bin/ib_write_bw, -d, rxe_rail0, -D, '{duration_s}']\n"
	    "      ready: Waiting for client\n"
	    "    - {node: node-a, command: [/usr/bin/ib_write_bw, '{addr:node-b:0}']}\n"
	    "  env: {UCX_TLS: rc_verbs}\n"
	    "  throughput: {regex: '^ *65536 +[0-9]+ +[0-9.]+ +([0-9.]+)', unit: MB/s}\n"
	    "  outcome: survive\n"
	    "  rails: [0]\n";
	struct scenario sc;
	char err[512] = "", *text, *bad;

	text = job_edit(job);
	assert_int_equal(scenario_parse("t.yaml", text, strlen(text), &sc, err, sizeof(err)), 0);
	assert_string_equal(sc.workload.kind, "job");
	assert_non_null(sc.workload.job);
	assert_int_equal(sc.workload.job->nr_ranks, 2);
	assert_string_equal(sc.workload.job->ranks[1].node, "node-a");
	assert_string_equal(sc.workload.job->ranks[0].ready, "Waiting for client");
	assert_int_equal(json_array_size(sc.workload.job->ranks[0].argv), 5);
	assert_int_equal(sc.workload.job->outcome, SC_JOB_SURVIVE);
	assert_true(sc.workload.job->path_required); /* the default: proof or no pass */
	assert_int_equal(sc.workload.job->nr_errors, 4);
	assert_int_equal(sc.workload.job->tp_group, 1);
	assert_int_equal(sc.workload.job->ready_within_ms, SC_JOB_READY_MS);
	assert_int_equal(sc.workload.job->time_limit_ms, 0); /* the drill's: see drill_job.c */
	assert_int_equal(sc.workload.job->stop_grace_ms, SC_JOB_STOP_GRACE_MS);
	assert_string_equal(sc.workload.to, "node-b"); /* first and last rank, for the plan */
	assert_string_equal(sc.workload.from, "node-a");
	scenario_free(&sc);
	assert_null(sc.workload.job);

	bad = strstr(text, "'{addr:node-b:0}'");
	memcpy(bad, "'{addr:node-q:0}'", strlen("'{addr:node-q:0}'"));
	expect_err_text(text, "t.yaml:9:54: workload.ranks[1].command[1]: {addr:node-q:0}: node-q "
			      "is not a node of this drill");
	free(text);
	text = job_edit("  kind: job\n  ranks: [{node: node-a, command: [ib_write_bw]}]\n");
	expect_err_text(text,
			"t.yaml:5:36: workload.ranks[0].command[0]: \"ib_write_bw\" is not an "
			"absolute path; agents run no PATH search (write e.g. "
			"/usr/bin/ib_write_bw)");
	free(text);
	text = job_edit("  kind: job\n  ranks: [{node: node-a, command: [/bin/x]}]\n"
			"  throughput: {regex: 'x'}\n");
	expect_err_text(text, "t.yaml:6:23: workload.throughput.regex: \"x\" has 0 parenthesised "
			      "part(s); group 1 must hold the value");
	free(text);
	/* throughput from an RDMA counter of a job node's ports, not from its output */
	text = job_edit("  kind: job\n  ranks: [{node: node-a, command: [/bin/x]}]\n"
			"  nodes: [node-a, node-b]\n"
			"  throughput: {counter: rcvd_pkts, node: node-b}\n");
	assert_int_equal(scenario_parse("t.yaml", text, strlen(text), &sc, err, sizeof(err)), 0);
	assert_string_equal(sc.workload.job->tp_counter, "rcvd_pkts");
	assert_string_equal(sc.workload.job->tp_node, "node-b");
	assert_string_equal(sc.workload.job->tp_regex, "");
	scenario_free(&sc);
	free(text);
	text = job_edit("  kind: job\n  ranks: [{node: node-a, command: [/bin/x]}]\n"
			"  throughput: {counter: rcvd_pkts, node: node-b}\n");
	expect_err_text(text, "t.yaml:6:42: workload.throughput.node: node-b is not one of the "
			      "job's nodes: its counters are not the job's");
	free(text);
	text = job_edit("  kind: job\n  ranks: [{node: node-a, command: [/bin/x]}]\n"
			"  throughput: {counter: rcvd_pkts}\n");
	expect_err_text(text, "t.yaml:6:15: workload.throughput.node: missing; the job's node "
			      "whose ports' counter is read, e.g. node: node-b");
	free(text);
	text = job_edit("  kind: job\n  ranks: [{node: node-a, command: [/bin/x]}]\n"
			"  throughput: {counter: ../x, node: node-a}\n");
	expect_err_text(text,
			"t.yaml:6:25: workload.throughput.counter: \"../x\" is not a "
			"counter's name; name a file of the port's counters/ or hw_counters/, "
			"e.g. port_rcv_data or rcvd_pkts");
	free(text);
	text = job_edit("  kind: job\n  ranks: [{node: node-a, command: [/bin/x]}]\n"
			"  throughput: {counter: rcvd_pkts, node: node-a, regex: '(x)'}\n");
	expect_err_text(text, "t.yaml:6:25: workload.throughput.counter: a throughput is read "
			      "from the job's output (regex, group, unit) or from a counter, not "
			      "both");
	free(text);
	text = job_edit("  kind: job\n  ranks: [{node: node-a, command: [/bin/x]}]\n"
			"  ready_within: 31m\n");
	expect_err_text(text, "t.yaml:6:17: workload.ready_within: at most 30 min: a rank that "
			      "says nothing for longer is not starting");
	free(text);
	/* stop_grace: 5 s unless given, at most 2 min */
	text = job_edit("  kind: job\n  ranks: [{node: node-a, command: [/bin/x]}]\n"
			"  stop_grace: 30s\n");
	assert_int_equal(scenario_parse("t.yaml", text, strlen(text), &sc, err, sizeof(err)), 0);
	assert_int_equal(sc.workload.job->stop_grace_ms, 30000);
	scenario_free(&sc);
	memcpy(strstr(text, "30s"), "3m ", 3);
	expect_err_text(text, "t.yaml:6:15: workload.stop_grace: at most 2 min: a rank that "
			      "ignores SIGINT for longer is not stopping");
	free(text);
	/* cpu_limit: none unless given; CPUs, 0.01..1024, kept as percent of one */
	text = job_edit("  kind: job\n  ranks: [{node: node-a, command: [/bin/x]}]\n"
			"  cpu_limit: 0.25\n");
	assert_int_equal(scenario_parse("t.yaml", text, strlen(text), &sc, err, sizeof(err)), 0);
	assert_int_equal(sc.workload.job->cpu_pct, 25);
	scenario_free(&sc);
	memcpy(strstr(text, "0.25"), "2   ", 4);
	assert_int_equal(scenario_parse("t.yaml", text, strlen(text), &sc, err, sizeof(err)), 0);
	assert_int_equal(sc.workload.job->cpu_pct, 200);
	scenario_free(&sc);
	memcpy(strstr(text, "2   "), "0.00", 4);
	expect_err_text(text, "t.yaml:6:14: workload.cpu_limit: 0.00 is out of range; give the "
			      "CPUs each rank's processes may use together, 0.01 to 1024, e.g. "
			      "0.25 for a quarter of one");
	free(text);
	text = job_edit("  kind: job\n  ranks: [{node: node-a, command: [/bin/x]}]\n");
	assert_int_equal(scenario_parse("t.yaml", text, strlen(text), &sc, err, sizeof(err)), 0);
	assert_int_equal(sc.workload.job->cpu_pct, 0);
	scenario_free(&sc);
	free(text);
	/* start_tries: 1 unless given, 1..5, only with a ready line to tell a failed start by */
	text = job_edit("  kind: job\n  ranks: [{node: node-a, command: [/bin/x], ready: up}]\n"
			"  start_tries: 3\n");
	assert_int_equal(scenario_parse("t.yaml", text, strlen(text), &sc, err, sizeof(err)), 0);
	assert_int_equal(sc.workload.job->start_tries, 3);
	scenario_free(&sc);
	free(text);
	text = job_edit("  kind: job\n  ranks: [{node: node-a, command: [/bin/x], ready: up}]\n");
	assert_int_equal(scenario_parse("t.yaml", text, strlen(text), &sc, err, sizeof(err)), 0);
	assert_int_equal(sc.workload.job->start_tries, 1);
	scenario_free(&sc);
	free(text);
	text = job_edit("  kind: job\n  ranks: [{node: node-a, command: [/bin/x], ready: up}]\n"
			"  start_tries: 6\n");
	expect_err_text(text, "t.yaml:6:16: workload.start_tries: 6 is out of range; use 1..5");
	free(text);
	text = job_edit("  kind: job\n  ranks: [{node: node-a, command: [/bin/x]}]\n"
			"  start_tries: 2\n");
	expect_err_text(text, "t.yaml:6:16: workload.start_tries: a start is tried again when a "
			      "rank exits before its ready line: give the rank that can fail to "
			      "connect a `ready`");
	free(text);
	/* restarts: parsed with their default delay; only where an outcome is demanded */
	text = job_edit("  kind: job\n  ranks: [{node: node-a, command: [/bin/x]}]\n"
			"  outcome: survive\n  restarts: {max: 2}\n");
	assert_int_equal(scenario_parse("t.yaml", text, strlen(text), &sc, err, sizeof(err)), 0);
	assert_int_equal(sc.workload.job->max_restarts, 2);
	assert_int_equal(sc.workload.job->restart_after_ms, 5000);
	scenario_free(&sc);
	free(text);
	text = job_edit("  kind: job\n  ranks: [{node: node-a, command: [/bin/x]}]\n"
			"  restarts: {max: 1, after: 10s}\n");
	expect_err_text(text, "t.yaml:6:13: workload.restarts: a job is restarted only when the "
			      "drill demands an outcome: add outcome: survive (or succeed)");
	free(text);
	text = job_edit("  kind: job\n  ranks: [{node: node-a, command: [/bin/x]}]\n"
			"  outcome: survive\n  restarts: {max: 17}\n");
	expect_err_text(text, "t.yaml:7:19: workload.restarts.max: 17 is out of range; use 1..16");
	free(text);
}

static void test_rail_out_of_range(void **state)
{
	expect_err(
	    "rails: [0, 1]", "rails: [0, 2]",
	    "t.yaml:6:14: workload.rails[1]: rail 2 does not exist in a 2-rail lab; use 0..1");
	expect_err("rails: [0, 1]", "rails: [1, 1]",
		   "t.yaml:6:14: workload.rails[1]: rail 1 is listed twice");
	expect_err(
	    "rail: 0}", "rail: 5}",
	    "t.yaml:13:34: faults[0].target.rail: rail 5 does not exist in a 2-rail lab; use "
	    "0..1");
	expect_err("rails: 2}", "rails: 5}", "t.yaml:2:24: lab.rails: 5 is out of range; use 1..4");
}

static void test_overlapping_faults(void **state)
{
	expect_err(
	    "    duration: 10s\n",
	    "    duration: 10s\n"
	    "  - name: f1\n"
	    "    at: 25s\n"
	    "    injector: port_flap\n"
	    "    target: {node: node-b, rail: 0}\n"
	    "    params: {count: 1, down: 1s, up: 1s}\n",
	    "t.yaml:16:9: faults[1].at: \"f1\" (25s-27s) overlaps \"f0\" (20s-30s) on the same "
	    "target (node-b rail 0); start it at or after 30s");
	expect_err("    duration: 10s\n",
		   "    duration: 10s\n"
		   "  - {name: f0, at: 40s, injector: link_down, duration: 1s,\n"
		   "     target: {node: node-a, rail: 0}}\n",
		   "t.yaml:15:12: faults[1].name: \"f0\" is already faults[0]; names are unique");
}

static void test_at_before_baseline(void **state)
{
	expect_err(
	    "at: 20s", "at: 10s",
	    "t.yaml:11:9: faults[0].at: 10s falls inside the steady state (warmup 5s + "
	    "baseline 10s); the baseline must be measured before any fault, so use at >= 15s");
}

static void test_lab_and_nodes(void **state)
{
	expect_err("lab: {nodes: 2, rails: 2}\n",
		   "lab: {nodes: 2, rails: 2}\n"
		   "nodes: [{name: x, agent: \"h:1\"}, {name: y, agent: \"h:2\"}]\n",
		   "t.yaml:3:8: nodes: give either lab (the built-in lab's node-a, node-b, ...) or "
		   "nodes (a real cluster), not both");
	expect_err(
	    "lab: {nodes: 2, rails: 2}\n", "",
	    "t.yaml:1:1: nodes: missing; give lab: {nodes: N, rails: R} for the built-in lab "
	    "or nodes: [{name: ..., agent: host:port}, ...] for a real cluster");
}

static void test_cluster_agent(void **state)
{
	expect_err("lab: {nodes: 2, rails: 2}\n",
		   "nodes: [{name: node-a, agent: gpu01}, {name: node-b, agent: \"h:2\"}]\n",
		   "t.yaml:2:31: nodes[0].agent: \"gpu01\" is not host:port, e.g. gpu01:7707");
	expect_err("lab: {nodes: 2, rails: 2}\n",
		   "nodes: [{name: node-a, agent: \"h:1\"}, {name: node-b, agent: \"h:99999\"}]\n",
		   "t.yaml:2:61: nodes[1].agent: \"h:99999\" has no valid port; use host:1..65535");
}

static void test_yaml_syntax(void **state)
{
	expect_err(
	    "  to: node-b\n", "  to: [node-b\n",
	    "t.yaml:6:8: YAML syntax error: did not find expected ',' or ']' (while parsing a "
	    "flow sequence on line 5)");
	expect_err("  to: node-b\n", "\tto: node-b\n",
		   "t.yaml:5:1: YAML syntax error: found a tab character that violates indentation "
		   "(while scanning a plain scalar on line 4)");
	expect_err_text(
	    "name: t\nworkload:\n\tto: node-b\n",
	    "t.yaml:3:1: YAML syntax error: found character that cannot start any token "
	    "(YAML indents with spaces, not tabs)");
	expect_err_text("", "t.yaml:1:1: the file holds no YAML; a scenario starts with name: ...");
	expect_err_text(
	    "name: a\n---\nname: b\n",
	    "t.yaml:2:1: a scenario file holds one YAML document; remove the second one "
	    "(after ---)");
	expect_err_text(
	    "- a\n- b\n",
	    "t.yaml:1:1: a scenario is a mapping of keys (name:, workload:, faults:, ...)");
}

static void test_unknown_injector(void **state)
{
	char want[512];

	/* the registry's list (its form: test_agent_params.c), so that a new injector changes
	 * nothing */
	snprintf(want, sizeof(want),
		 "t.yaml:12:15: faults[0].injector: \"link_dwn\" is not an injector; use %s",
		 injector_names());
	expect_err("injector: link_down", "injector: link_dwn", want);
	expect_err("    duration: 10s\n", "",
		   "t.yaml:10:5: faults[0].duration: missing; link_down needs to know when to undo "
		   "the fault, e.g. duration: 10s");
	expect_err(
	    "    duration: 10s\n", "    duration: 10s\n    params: {count: 3}\n",
	    "t.yaml:15:14: faults[0].params.count: unknown key; link_down takes no parameters");
}

static void test_bad_signal(void **state)
{
	expect_err(
	    "port_event]", "port_evnt]",
	    "t.yaml:16:53: expect.detection.signals[1]: \"port_evnt\" is not a signal; use one "
	    "of workload_error, port_event, link_event, counter, isolation, mr_error, "
	    "qp_state, pfc_storm, pfc_pause, stall, job_exit, alert:NAME");
	expect_err("port_event]", "workload_error]",
		   "t.yaml:16:53: expect.detection.signals[1]: workload_error is listed twice");
	expect_err(
	    "signals: [workload_error, port_event]", "signals: []",
	    "t.yaml:16:36: expect.detection.signals: is empty; list what counts as detection: "
	    "workload_error, port_event, link_event, counter, isolation, mr_error, qp_state, "
	    "pfc_storm, pfc_pause, stall, job_exit, alert:NAME");
}

static void test_port_flap_params(void **state)
{
	const char *flap = "    injector: port_flap\n"
			   "    target: {node: node-b, rail: 0}\n"
			   "    params: {count: 3, down: 2s, up: 3s, jitter: 2s}\n";
	const char *orig = "    injector: link_down\n"
			   "    target: {node: node-b, rail: 0}\n"
			   "    duration: 10s\n";

	expect_err(
	    orig, flap,
	    "t.yaml:14:50: faults[0].params.jitter: 2s must be shorter than both down (2s) and "
	    "up (3s), so no phase can shrink to nothing");
	expect_err(
	    orig,
	    "    injector: port_flap\n"
	    "    target: {node: node-b, rail: 0}\n"
	    "    params: {count: 3, up: 3s, jiter: 1s}\n",
	    "t.yaml:14:32: faults[0].params.jiter: unknown key; port_flap takes: count, down, "
	    "up, jitter, seed");
	expect_err(
	    orig,
	    "    injector: port_flap\n"
	    "    target: {node: node-b, rail: 0}\n"
	    "    params: {count: 3, up: 3s}\n",
	    "t.yaml:14:13: faults[0].params.down: missing; port_flap needs down (how long each "
	    "down lasts)");
	expect_err(orig,
		   "    injector: port_flap\n"
		   "    target: {node: node-b, rail: 0}\n"
		   "    params: {count: 0, down: 1s, up: 3s}\n",
		   "t.yaml:14:21: faults[0].params.count: 0 is out of range; use 1..1000");
	expect_err(
	    orig,
	    "    injector: port_flap\n"
	    "    target: {node: node-b, rail: 0}\n"
	    "    params: {count: 3, down: 1s, up: 1s}\n"
	    "    duration: 5s\n",
	    "t.yaml:15:15: faults[0].duration: 5s is shorter than the flaps it must hold (3 x "
	    "(down 1s + up 1s) = 6s); leave it out or give at least that");
	expect_err(orig,
		   "    injector: port_flap\n"
		   "    target: {node: node-b, rail: 0}\n"
		   "    params: {count: 3, down: 2h, up: 1s}\n",
		   "t.yaml:14:30: faults[0].params.down: 2h is out of range; use at most 1h");
}

static void test_target_shape(void **state)
{
	expect_err(
	    "{node: node-b, rail: 0}", "{node: node-b, rail: 0, netdev: eth2}",
	    "t.yaml:13:45: faults[0].target.netdev: give only one of rail, netdev or device");
	expect_err("{node: node-b, rail: 0}", "{node: node-b}",
		   "t.yaml:13:13: faults[0].target: says which node but not what on it; add one of "
		   "rail: N, netdev: NAME, device: NAME (with port: N) or workload: stream");
	expect_err(
	    "{node: node-b, rail: 0}", "{node: node-b, rail: 0, port: 1}",
	    "t.yaml:13:43: faults[0].target.port: only goes with device (an RDMA device's port)");
}

static void test_workload_values(void **state)
{
	expect_err("  to: node-b\n", "  to: node-b\n  msg_size: 32\n",
		   "t.yaml:6:13: workload.msg_size: 32 is out of range; use 64 B..16 MiB");
	expect_err("  to: node-b\n", "  to: node-b\n  op: read\n",
		   "t.yaml:6:7: workload.op: \"read\" is not an operation; use write or send");
	expect_err("  to: node-b\n", "  to: node-b\n  queue_depth: 2048\n",
		   "t.yaml:6:16: workload.queue_depth: 2048 is out of range; use 1..1024");
	expect_err("  to: node-b\n", "  to: node-b\n  interval: 5ms\n",
		   "t.yaml:6:13: workload.interval: 5ms is out of range; use 10ms..10s");
	expect_err("  qp: {timeout: 14, retry_cnt: 6}", "  qp: 14",
		   "t.yaml:7:7: workload.qp: must be a mapping (key: value lines or {...})");
	expect_err("workload:\n", "workload: \n  kind: mpi\n",
		   "t.yaml:4:9: workload.kind: \"mpi\" is not a workload; use rdma_stream or job");
}

static void test_expect_values(void **state)
{
	expect_err("  recovery: {within: 30s}", "  recovery: {within: 30s, throughput_ratio: 1.5}",
		   "t.yaml:17:45: expect.recovery.throughput_ratio: 1.5 is out of range; use a "
		   "fraction of the baseline above 0 and at most 1, e.g. 0.8");
	expect_err(
	    "  recovery: {within: 30s}", "  recovery: {sustain: 2s}",
	    "t.yaml:17:13: expect.recovery.within: missing; the longest acceptable time, e.g. "
	    "within: 5s");
	expect_err("  recovery: {within: 30s}",
		   "  recovery: {within: 30s}\n  integrity: {lost: -1}",
		   "t.yaml:18:21: expect.integrity.lost: \"-1\" is not a whole number; use "
		   "0..9223372036854775807");
	expect_err(
	    "steady_state: {warmup: 5s, baseline: 10s}",
	    "steady_state: {warmup: 5s, baseline: 100ms}",
	    "t.yaml:8:38: steady_state.baseline: 100ms holds fewer than 2 samples of the 100ms "
	    "workload interval; use at least 200ms");
}

/* workload.rate: a paced stream; the unit is required, and a rate below 1KB/s is refused. */
static void test_workload_rate(void **state)
{
	struct scenario sc;
	char err[512], *text;

	text = edit("  rails: [0, 1]\n", "  rails: [0, 1]\n  rate: 4MB/s\n");
	assert_int_equal(scenario_parse("t.yaml", text, strlen(text), &sc, err, sizeof(err)), 0);
	assert_int_equal(sc.workload.rate, 4000000);
	scenario_free(&sc);
	free(text);
	assert_int_equal(scenario_parse("t.yaml", BASE, strlen(BASE), &sc, err, sizeof(err)), 0);
	assert_int_equal(sc.workload.rate, 0);
	scenario_free(&sc);
	expect_err("  rails: [0, 1]\n", "  rails: [0, 1]\n  rate: 4\n",
		   "t.yaml:7:9: workload.rate: \"4\" is not a rate of at least 1KB/s; use e.g. "
		   "4MB/s, 500KB/s, 10Gbit/s or 4MiB/s (0B/s: as fast as possible)");
	expect_err(
	    "  rails: [0, 1]\n", "  rails: [0, 1]\n  rate: 100B/s\n",
	    "t.yaml:7:9: workload.rate: \"100B/s\" is not a rate of at least 1KB/s; use e.g. "
	    "4MB/s, 500KB/s, 10Gbit/s or 4MiB/s (0B/s: as fast as possible)");
}

/* workload.busy_poll: how long the client polls before it sleeps, 0..1s. */
static void test_workload_busy_poll(void **state)
{
	struct scenario sc;
	char err[512], *text;

	text = edit("  rails: [0, 1]\n", "  rails: [0, 1]\n  busy_poll: 2ms\n");
	assert_int_equal(scenario_parse("t.yaml", text, strlen(text), &sc, err, sizeof(err)), 0);
	assert_int_equal(sc.workload.busy_poll_ms, 2);
	scenario_free(&sc);
	free(text);
	assert_int_equal(scenario_parse("t.yaml", BASE, strlen(BASE), &sc, err, sizeof(err)), 0);
	assert_int_equal(sc.workload.busy_poll_ms, 0);
	scenario_free(&sc);
	expect_err("  rails: [0, 1]\n", "  rails: [0, 1]\n  busy_poll: 2s\n",
		   "t.yaml:7:14: workload.busy_poll: 2s is out of range; use 0..1s (e.g. 2ms; 0: "
		   "sleep at once)");
	expect_err("  rails: [0, 1]\n", "  rails: [0, 1]\n  busy_poll: often\n",
		   "t.yaml:7:14: workload.busy_poll: \"often\" is not a duration; write a number "
		   "and a unit with no space, e.g. 250ms, 10s, 2m (a plain number is seconds)");
}

/* expect.failback: measured always (defaults from recovery), bounded only when given. */
static void test_expect_failback(void **state)
{
	struct scenario sc;
	char err[512], *text;

	assert_int_equal(scenario_parse("t.yaml", BASE, strlen(BASE), &sc, err, sizeof(err)), 0);
	assert_false(sc.expect.failback_set);
	assert_true(sc.expect.failback_ratio == sc.expect.recovery_ratio);
	assert_int_equal(sc.expect.failback_window_ms, SC_FAILBACK_WINDOW_MS);
	scenario_free(&sc);

	text =
	    edit("  recovery: {within: 30s}", "  recovery: {within: 30s, throughput_ratio: 0.7}\n"
					      "  failback: {max_outage: 1500ms}");
	assert_int_equal(scenario_parse("t.yaml", text, strlen(text), &sc, err, sizeof(err)), 0);
	assert_true(sc.expect.failback_set);
	assert_int_equal(sc.expect.failback_max_outage_ms, 1500);
	assert_true(sc.expect.failback_ratio == 0.7); /* recovery's, when not given */
	scenario_free(&sc);
	free(text);

	text = edit("  recovery: {within: 30s}",
		    "  recovery: {within: 30s}\n"
		    "  failback: {max_outage: 0s, throughput_ratio: 1, window: 4s}");
	assert_int_equal(scenario_parse("t.yaml", text, strlen(text), &sc, err, sizeof(err)), 0);
	assert_true(sc.expect.failback_set);
	assert_int_equal(sc.expect.failback_max_outage_ms, 0);
	assert_true(sc.expect.failback_ratio == 1.0);
	assert_int_equal(sc.expect.failback_window_ms, 4000);
	scenario_free(&sc);
	free(text);

	expect_err("  recovery: {within: 30s}",
		   "  recovery: {within: 30s}\n  failback: {window: 5s}",
		   "t.yaml:18:13: expect.failback.max_outage: missing; the longest time throughput "
		   "may stay below the threshold after a revert, e.g. failback: {max_outage: 2s}");
	expect_err("  recovery: {within: 30s}",
		   "  recovery: {within: 30s}\n  failback: {max_outage: 2s, throughput_ratio: 0}",
		   "t.yaml:18:48: expect.failback.throughput_ratio: 0 is out of range; use a "
		   "fraction of the baseline above 0 and at most 1, e.g. 0.8");
	expect_err("  recovery: {within: 30s}",
		   "  recovery: {within: 30s}\n  failback: {max_outage: 2s, window: 0s}",
		   "t.yaml:18:38: expect.failback.window: must be longer than 0s, e.g. 10s");
	expect_err("  recovery: {within: 30s}",
		   "  recovery: {within: 30s}\n  failback: {max_outage: 2s, within: 3s}",
		   "t.yaml:18:30: expect.failback.within: unknown key; allowed here: max_outage, "
		   "throughput_ratio, window");
	expect_err("  recovery: {within: 30s}", "  recovery: {within: 30s}\n  failback: 2s",
		   "t.yaml:18:13: expect.failback: must be a mapping (key: value lines or {...})");
}

/* docs/SCENARIOS.md: anchors and aliases work (common/yaml_guard.c bounds them). */
static void test_aliases_work(void **state)
{
	static const char text[] =
	    "name: aliased\n"
	    "lab: {nodes: 2, rails: 2}\n"
	    "workload: {from: node-a, to: node-b, rails: [0, 1]}\n"
	    "faults:\n"
	    "  - {name: f0, at: 20s, injector: link_down, target: &t {node: node-b, rail: 0},\n"
	    "     duration: &d 5s}\n"
	    "  - {name: f1, at: 30s, injector: link_down, target: *t, duration: *d}\n"
	    "expect:\n"
	    "  detection: {within: *d, signals: [workload_error]}\n"
	    "  recovery: {within: 30s}\n";
	struct scenario sc;
	char err[512];

	if (scenario_parse("g.yaml", text, strlen(text), &sc, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(sc.nr_faults, 2);
	assert_string_equal(sc.faults[1].target.node, "node-b");
	assert_int_equal(sc.faults[1].duration_ms, 5000);
	assert_int_equal(sc.expect.detection_within_ms, 5000);
	scenario_free(&sc);
}

/* The shape limits speak for scenarios in their words. */
static void test_shape_limits(void **state)
{
	char text[512];
	size_t off = (size_t)sprintf(text, "name: x\nd: "), i;

	for (i = 0; i < 70; i++)
		text[off++] = '[';
	for (i = 0; i < 70; i++)
		text[off++] = ']';
	text[off] = '\0';
	expect_err_text(text,
			"t.yaml:2: nested more than 64 levels deep; a scenario needs at most 5");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_job),
	    cmocka_unit_test(test_base_parses),
	    cmocka_unit_test(test_sha256_is_of_the_bytes),
	    cmocka_unit_test(test_link_down_file),
	    cmocka_unit_test(test_port_flap_file),
	    cmocka_unit_test(test_impossible_file),
	    cmocka_unit_test(test_missing_file),
	    cmocka_unit_test(test_cluster_nodes),
	    cmocka_unit_test(test_flap_duration_with_jitter),
	    cmocka_unit_test(test_signal_names),
	    cmocka_unit_test(test_unknown_key),
	    cmocka_unit_test(test_duplicate_key),
	    cmocka_unit_test(test_missing_name),
	    cmocka_unit_test(test_bad_duration),
	    cmocka_unit_test(test_retry_cnt_7_in_lab),
	    cmocka_unit_test(test_timeout_0),
	    cmocka_unit_test(test_from_equals_to),
	    cmocka_unit_test(test_unknown_node),
	    cmocka_unit_test(test_rail_out_of_range),
	    cmocka_unit_test(test_overlapping_faults),
	    cmocka_unit_test(test_at_before_baseline),
	    cmocka_unit_test(test_lab_and_nodes),
	    cmocka_unit_test(test_cluster_agent),
	    cmocka_unit_test(test_yaml_syntax),
	    cmocka_unit_test(test_unknown_injector),
	    cmocka_unit_test(test_bad_signal),
	    cmocka_unit_test(test_port_flap_params),
	    cmocka_unit_test(test_target_shape),
	    cmocka_unit_test(test_workload_values),
	    cmocka_unit_test(test_expect_values),
	    cmocka_unit_test(test_expect_failback),
	    cmocka_unit_test(test_workload_rate),
	    cmocka_unit_test(test_workload_busy_poll),
	    cmocka_unit_test(test_aliases_work),
	    cmocka_unit_test(test_shape_limits),
	    cmocka_unit_test(test_workload_target),
	    cmocka_unit_test(test_workload_target_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
