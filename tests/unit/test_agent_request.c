// SPDX-License-Identifier: MIT
/*
 * Request checking: every malformed request gets an error response that
 * carries its id and names the field, and nothing in it is acted on.
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

#include "agents/agent.h"
#include "tests/unit/agent_harness.h"

static struct agent a;

static int setup(void **state)
{
	struct agent_opts o = {.name = "node-t", .nr_allow = 2, .nr_rails = 2};

	strcpy(o.allow[0], "rc-absent0");
	strcpy(o.allow[1], "rc-absent1");
	strcpy(o.rails[0], "rc-absent0");
	strcpy(o.rails[1], "rc-absent1");
	agent_init(&a, &o);
	/* subscribe arms a timer: a real (idle) loop is needed. */
	return agent_loop_init(&a.loop, 8);
}

static int teardown(void **state)
{
	agent_counters_stop(&a);
	agent_loop_fini(&a.loop);
	return 0;
}

/* Sends text as a message of type `type`; returns the response. */
static json_t *send_msg(uint16_t type, const char *text)
{
	json_t *resp = harness_send(&a, type, text);

	assert_non_null(resp);
	return resp;
}

static void refused(const char *text, int err, const char *says)
{
	harness_refused(&a, text, err, says);
}

static json_t *accepted(const char *text)
{
	return harness_ok(&a, text);
}

static void test_envelope(void **state)
{
	json_t *resp;

	resp = send_msg(RC_MSG_EVENT, "{\"id\": 4, \"kind\": \"link\"}");
	assert_int_equal(json_integer_value(json_object_get(resp, "id")), 4);
	assert_int_equal(json_integer_value(json_object_get(resp, "errno")), EPROTO);
	json_decref(resp);

	resp = send_msg(RC_MSG_REQUEST, "{\"op\": \"time\"}");
	assert_true(json_is_null(json_object_get(resp, "id")));
	assert_string_equal(json_string_value(json_object_get(resp, "error")),
			    "request: id: missing (an integer the response repeats)");
	json_decref(resp);

	/* A mistyped id is still echoed, so the sender can match the refusal. */
	resp = send_msg(RC_MSG_REQUEST, "{\"id\": \"x\", \"op\": \"time\"}");
	assert_string_equal(json_string_value(json_object_get(resp, "id")), "x");
	assert_string_equal(json_string_value(json_object_get(resp, "error")),
			    "request: id: must be an integer");
	json_decref(resp);

	refused("{\"id\": 1}", EINVAL, "request: op: missing");
	refused("{\"id\": 1, \"op\": 3}", EINVAL, "request: op: missing or not a string");
	refused("{\"id\": 1, \"op\": \"reboot\"}", EOPNOTSUPP,
		"request: op \"reboot\": unknown (known: hello, time, inventory, inject");
	refused("{\"id\": 1, \"op\": \"time\", \"at\": 1}", EINVAL,
		"time: at: unknown argument (time takes none)");
}

static void test_response_carries_id(void **state)
{
	json_t *resp = accepted("{\"id\": 9007199254740993, \"op\": \"time\"}");

	assert_int_equal(json_integer_value(json_object_get(resp, "id")), 9007199254740993LL);
	assert_true(json_integer_value(json_object_get(json_object_get(resp, "result"), "t_ns")) >
		    0);
	json_decref(resp);
}

static void test_hello(void **state)
{
	json_t *resp =
	    accepted("{\"id\": 1, \"op\": \"hello\", \"coordinator\": \"c\", \"proto\": 1}");
	json_t *r = json_object_get(resp, "result");

	assert_string_equal(json_string_value(json_object_get(r, "node")), "node-t");
	assert_int_equal(json_integer_value(json_object_get(r, "proto")), 1);
	json_decref(resp);
	refused("{\"id\": 1, \"op\": \"hello\", \"proto\": 2}", EPROTONOSUPPORT,
		"hello: proto 2: this agent speaks protocol 1");
	refused("{\"id\": 1, \"op\": \"hello\", \"coordinator\": \"c\"}", EINVAL,
		"hello: proto: missing (an integer in");
	refused("{\"id\": 1, \"op\": \"hello\", \"proto\": \"1\"}", EINVAL,
		"hello: proto: must be an integer");
}

static void test_inject_fields(void **state)
{
	refused("{\"id\": 1, \"op\": \"inject\", \"injector\": \"link_down\", \"target\": "
		"{\"netdev\": \"rc-absent0\"}}",
		EINVAL, "inject: fault_id: missing (a string of 1..63 bytes)");
	refused("{\"id\": 1, \"op\": \"inject\", \"fault_id\": 5, \"injector\": \"link_down\", "
		"\"target\": {\"netdev\": \"rc-absent0\"}}",
		EINVAL, "inject: fault_id: must be a string of 1..63 bytes");
	refused("{\"id\": 1, \"op\": \"inject\", \"fault_id\": "
		"\"0123456789012345678901234567890123456789012345678901234567890123\", "
		"\"injector\": \"link_down\", \"target\": {\"netdev\": \"rc-absent0\"}}",
		EINVAL, "inject: fault_id: must be a string");
	refused("{\"id\": 1, \"op\": \"inject\", \"fault_id\": \"f\", \"injector\": \"link_down\"}",
		EINVAL, "inject: target: missing (a JSON object)");
	refused("{\"id\": 1, \"op\": \"inject\", \"fault_id\": \"f\", \"injector\": \"link_down\", "
		"\"target\": \"rc-absent0\"}",
		EINVAL, "inject: target: must be a JSON object");
	refused("{\"id\": 1, \"op\": \"inject\", \"fault_id\": \"f\", \"injector\": \"link_down\", "
		"\"target\": {\"netdev\": \"rc-absent0\"}, \"duration_ms\": -1}",
		EINVAL, "inject: duration_ms: must be an integer in 0..604800000");
	refused("{\"id\": 1, \"op\": \"inject\", \"fault_id\": \"f\", \"injector\": \"link_down\", "
		"\"target\": {\"netdev\": \"rc-absent0\"}, \"duration\": 10}",
		EINVAL,
		"inject: duration: unknown argument (inject takes fault_id, injector, target, "
		"params, duration_ms, lease_ms, max_active)");
	refused("{\"id\": 1, \"op\": \"inject\", \"fault_id\": \"f\", \"injector\": \"link_down\", "
		"\"target\": {\"netdev\": \"rc-absent0\"}, \"params\": []}",
		EINVAL, "inject: params: must be a JSON object");
}

static void test_inject_meaning(void **state)
{
	json_t *resp;

	refused("{\"id\": 1, \"op\": \"inject\", \"fault_id\": \"f\", \"injector\": \"melt\", "
		"\"target\": {\"netdev\": \"rc-absent0\"}}",
		ENOENT, "inject: injector \"melt\": unknown (known: link_down, port_flap, ");
	refused("{\"id\": 1, \"op\": \"inject\", \"fault_id\": \"f\", \"injector\": \"port_flap\", "
		"\"target\": {\"netdev\": \"rc-absent0\"}, \"params\": {\"count\": 2}}",
		EINVAL, "port_flap: params.down_ms: missing");
	refused("{\"id\": 1, \"op\": \"inject\", \"fault_id\": \"f\", \"injector\": \"link_down\", "
		"\"target\": {\"netdev\": \"rc-absent0\"}, \"params\": {\"force\": true}}",
		EINVAL, "link_down: params.force: unknown parameter");
	refused("{\"id\": 1, \"op\": \"inject\", \"fault_id\": \"f\", \"injector\": \"link_down\", "
		"\"target\": {\"netdev\": \"rc-absent0\", \"rail\": 0}}",
		EINVAL, "link_down: target: give exactly one of");
	refused("{\"id\": 1, \"op\": \"inject\", \"fault_id\": \"f\", \"injector\": \"link_down\", "
		"\"target\": {\"ifname\": \"rc-absent0\"}}",
		EINVAL, "link_down: target.ifname: unknown key");
	refused("{\"id\": 1, \"op\": \"inject\", \"fault_id\": \"f\", \"injector\": \"link_down\", "
		"\"target\": {\"rail\": 2}}",
		ENODEV, "link_down: rail 2: not in this agent's --rail-map (rails 0..1)");
	refused("{\"id\": 1, \"op\": \"inject\", \"fault_id\": \"f\", \"injector\": \"link_down\", "
		"\"target\": {\"netdev\": \"eth0\"}}",
		EPERM, "link_down: eth0: refused: not in the agent's allow-list");
	/* Allowed and well formed, but not on this host: checked before anything is touched. */
	refused("{\"id\": 1, \"op\": \"inject\", \"fault_id\": \"f\", \"injector\": \"link_down\", "
		"\"target\": {\"rail\": 1}}",
		ENODEV, "link_down: rc-absent1: no such network interface on this node");

	resp = accepted("{\"id\": 2, \"op\": \"faults\"}");
	assert_int_equal(
	    json_array_size(json_object_get(json_object_get(resp, "result"), "active")), 0);
	json_decref(resp);
}

static void test_revert(void **state)
{
	json_t *resp, *r;

	refused("{\"id\": 1, \"op\": \"revert\"}", EINVAL, "revert: fault_id: missing");
	refused("{\"id\": 1, \"op\": \"revert\", \"fault_id\": \"\"}", EINVAL,
		"revert: fault_id: must be a string of 1..63 bytes");
	resp = accepted("{\"id\": 1, \"op\": \"revert\", \"fault_id\": \"never\"}");
	r = json_object_get(resp, "result");
	assert_true(json_is_true(json_object_get(r, "already")));
	assert_true(json_is_false(json_object_get(r, "known")));
	json_decref(resp);
	resp = accepted("{\"id\": 1, \"op\": \"revert_all\"}");
	r = json_object_get(resp, "result");
	assert_true(json_is_true(json_object_get(r, "verified")));
	assert_int_equal(json_array_size(json_object_get(r, "reverted")), 0);
	json_decref(resp);
}

static void test_workload_fields(void **state)
{
	refused("{\"id\": 1, \"op\": \"workload_start\", \"wl_id\": \"s\", \"role\": \"proxy\"}",
		EINVAL, "workload_start: role: \"proxy\": must be \"server\" or \"client\"");
	refused("{\"id\": 1, \"op\": \"workload_start\", \"wl_id\": \"s\", \"role\": \"client\", "
		"\"args\": [\"--op\", 1]}",
		EINVAL, "workload_start: args: must be an array of at most 256 strings");
	refused("{\"id\": 1, \"op\": \"workload_start\", \"role\": \"client\"}", EINVAL,
		"workload_start: wl_id: missing");
	refused("{\"id\": 1, \"op\": \"workload_start\", \"wl_id\": \"s\", \"role\": \"client\", "
		"\"cgroup\": \"yes\"}",
		EINVAL, "workload_start: cgroup: must be true or false");
	refused("{\"id\": 1, \"op\": \"workload_start\", \"wl_id\": \"s\", \"role\": \"client\", "
		"\"no_ipc_lock\": 1}",
		EINVAL, "workload_start: no_ipc_lock: must be true or false");
	refused(
	    "{\"id\": 1, \"op\": \"workload_start\", \"wl_id\": \"s\", \"role\": \"client\", "
	    "\"preload\": true}",
	    EINVAL,
	    "workload_start: preload: unknown argument (workload_start takes wl_id, role, args, "
	    "stop_on_close, shim, cgroup, no_ipc_lock, cpu_max_pct, job)");
	refused("{\"id\": 1, \"op\": \"workload_start\", \"wl_id\": \"s\", \"role\": \"client\", "
		"\"cpu_max_pct\": 0}",
		EINVAL, "workload_start: cpu_max_pct: must be an integer in 1..102400");
	refused("{\"id\": 1, \"op\": \"workload_start\", \"wl_id\": \"j\", \"role\": \"rank\", "
		"\"job\": [\"/bin/true\"]}",
		EINVAL, "workload_start: job: must be a JSON object");
	refused("{\"id\": 1, \"op\": \"workload_start\", \"wl_id\": \"j\", \"role\": \"rank\", "
		"\"job\": {\"argv\": [\"/bin/true\"], \"time_limit_ms\": 1000}}",
		EPERM,
		"workload_start: job: /bin/true: refused: this agent runs no jobs (list the "
		"programs it may run with --allow-job PATH or `jobs:` in its policy file)");
	refused("{\"id\": 1, \"op\": \"workload_start\", \"wl_id\": \"j\", \"role\": \"rank\", "
		"\"job\": {\"argv\": [\"/bin/true\"], \"time_limit_ms\": 1000}, \"args\": []}",
		EINVAL, "workload_start: args: a job's arguments are job.argv");
	refused("{\"id\": 1, \"op\": \"workload_stop\", \"wl_id\": \"s\"}", ENOENT,
		"workload_stop: s: no such workload on this node");
	refused("{\"id\": 1, \"op\": \"workload_stop\", \"wl_id\": \"s\", \"timeout_ms\": 600001}",
		EINVAL, "workload_stop: timeout_ms: must be an integer in 0..600000");
}

static void test_subscribe(void **state)
{
	json_t *resp;

	refused("{\"id\": 1, \"op\": \"subscribe\", \"counters_interval_ms\": 5}", EINVAL,
		"subscribe: counters_interval_ms: 5 is too short");
	refused("{\"id\": 1, \"op\": \"subscribe\", \"counters_interval_ms\": -1}", EINVAL,
		"subscribe: counters_interval_ms: must be an integer in 0..3600000");
	resp = accepted("{\"id\": 1, \"op\": \"subscribe\", \"counters_interval_ms\": 0}");
	json_decref(resp);
	resp = accepted("{\"id\": 1, \"op\": \"subscribe\"}");
	json_decref(resp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_envelope),	    cmocka_unit_test(test_response_carries_id),
	    cmocka_unit_test(test_hello),	    cmocka_unit_test(test_inject_fields),
	    cmocka_unit_test(test_inject_meaning),  cmocka_unit_test(test_revert),
	    cmocka_unit_test(test_workload_fields), cmocka_unit_test(test_subscribe),
	};

	return HARNESS_RUN("test_agent_request", tests, setup, teardown);
}
