// SPDX-License-Identifier: MIT
/*
 * The audit log: the line format, outcomes, appending to a file, and the hook
 * in agent_request() (refusals before dispatch, policy refusals, deferred
 * answers).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "agents/agent.h"
#include "tests/unit/scratch_dir.h"

#define WALL_NS 1764480201123456789ULL /* 2025-11-30T05:23:21.123Z */

static char dir[64];
static char path[128];

static int setup(void **state)
{
	if (scratch_make(dir, sizeof(dir), "agent-audit"))
		return -1;
	snprintf(path, sizeof(path), "%s/logs/audit.jsonl", dir);
	return 0;
}

static int teardown(void **state)
{
	return scratch_remove(dir);
}

/* The file's lines as a JSON array of objects; fails on a line that is not one. */
static json_t *read_lines(void)
{
	char line[4096];
	json_t *all = json_array();
	FILE *f = fopen(path, "r");

	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		json_t *o = json_loads(line, 0, NULL);

		assert_non_null(strchr(line, '\n'));
		if (!json_is_object(o))
			fail_msg("not a JSON object: %s", line);
		json_array_append_new(all, o);
	}
	fclose(f);
	return all;
}

static void test_format(void **state)
{
	json_t *req = json_loads("{\"id\": 7, \"op\": \"inject\", \"fault_id\": \"f1\", "
				 "\"injector\": \"link_down\", \"target\": {\"rail\": 0}, "
				 "\"params\": {}, \"duration_ms\": 5000}",
				 0, NULL);
	json_t *result = json_pack("{s:s, s:s}", "fault_id", "f1", "netdev", "rail0");
	struct agent_audit_rec r = {
	    .wall_ns = WALL_NS, .peer = "10.0.0.1:40312", .req = req, .result = result};
	char *line;

	line = agent_audit_format(&r);
	assert_string_equal(
	    line, "{\"ts\":\"2025-11-30T05:23:21.123Z\",\"peer\":\"10.0.0.1:40312\","
		  "\"peer_id\":null,\"id\":7,\"op\":\"inject\",\"fault_id\":\"f1\","
		  "\"injector\":\"link_down\",\"target\":{\"rail\":0},\"netdev\":\"rail0\","
		  "\"outcome\":\"ok\",\"errno\":0,\"error\":null}\n");
	free(line);

	/* Refused, with a TLS identity; no netdev without a result. */
	r.peer_id = "CN=coordinator";
	r.result = NULL;
	r.err = -EPERM;
	r.error = "inject: link_down: refused by policy a.yaml:3: injectors does not list "
		  "link_down";
	line = agent_audit_format(&r);
	assert_string_equal(line,
			    "{\"ts\":\"2025-11-30T05:23:21.123Z\",\"peer\":\"10.0.0.1:40312\","
			    "\"peer_id\":\"CN=coordinator\",\"id\":7,\"op\":\"inject\","
			    "\"fault_id\":\"f1\",\"injector\":\"link_down\",\"target\":{"
			    "\"rail\":0},\"outcome\":\"refused\",\"errno\":1,\"error\":"
			    "\"inject: link_down: refused by policy a.yaml:3: injectors does "
			    "not list link_down\"}\n");
	free(line);
	json_decref(req);
	json_decref(result);
}

static void test_format_hostile_request(void **state)
{
	/* Wrong types are left out, long strings cut, bytes that are not UTF-8 replaced. */
	char big[600], *line;
	json_t *req, *o;
	struct agent_audit_rec r = {.wall_ns = WALL_NS, .err = -EINVAL, .error = "bad"};

	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	req = json_pack("{s:s, s:i, s:s, s:[i], s:{s:s}}", "id", "seven", "op", 3, "fault_id", big,
			"injector", 1, "target", "netdev", big);
	r.req = req;
	line = agent_audit_format(&r);
	o = json_loads(line, 0, NULL);
	assert_non_null(o);
	assert_true(json_is_null(json_object_get(o, "id")));
	assert_true(json_is_null(json_object_get(o, "op")));
	assert_true(json_is_null(json_object_get(o, "peer")));
	assert_int_equal(json_string_length(json_object_get(o, "fault_id")), 128 + 3);
	assert_null(json_object_get(o, "injector"));
	assert_string_equal(json_string_value(json_object_get(o, "target")),
			    "(612 bytes, not logged)");
	assert_string_equal(json_string_value(json_object_get(o, "outcome")), "refused");
	assert_int_equal(json_integer_value(json_object_get(o, "errno")), EINVAL);
	json_decref(o);
	free(line);
	json_decref(req);

	/* A cut inside a UTF-8 character backs off to its start. */
	memset(big, 'x', 127);
	strcpy(big + 127, "\xc3\xa9tail");
	req = json_pack("{s:s}", "fault_id", big);
	r.req = req;
	line = agent_audit_format(&r);
	o = json_loads(line, 0, NULL);
	assert_int_equal(json_string_length(json_object_get(o, "fault_id")), 127 + 3);
	json_decref(o);
	free(line);
	json_decref(req);

	/* An error sentence carrying bytes that are not UTF-8 (a peer's op name). */
	r.req = NULL;
	r.error = "request: op \"\xff\xfe\": unknown";
	line = agent_audit_format(&r);
	o = json_loads(line, 0, NULL);
	assert_string_equal(json_string_value(json_object_get(o, "error")),
			    "request: op \"??\": unknown");
	json_decref(o);
	free(line);
}

static void test_outcomes(void **state)
{
	assert_string_equal(agent_audit_outcome(0), "ok");
	assert_string_equal(agent_audit_outcome(-EPERM), "refused");
	assert_string_equal(agent_audit_outcome(-EINVAL), "refused");
	assert_string_equal(agent_audit_outcome(-EOPNOTSUPP), "refused");
	assert_string_equal(agent_audit_outcome(-EBUSY), "refused");
	assert_string_equal(agent_audit_outcome(-ENODEV), "refused");
	assert_string_equal(agent_audit_outcome(-EIO), "error");
	assert_string_equal(agent_audit_outcome(-ENOMEM), "error");
	assert_string_equal(agent_audit_outcome(-ETIMEDOUT), "error");
}

static void test_append(void **state)
{
	struct agent_audit au;
	json_t *req = json_pack("{s:i, s:s}", "id", 1, "op", "revert_all"), *lines;
	struct agent_audit_rec r = {.wall_ns = WALL_NS, .req = req};
	char err[256];
	struct stat st;
	FILE *f;

	agent_audit_init(&au);
	assert_int_equal(agent_audit_write(&au, &r), 0); /* no audit log: nothing to do */
	/* The folder is created; lines already there are kept. */
	assert_int_equal(agent_audit_open(&au, path, err, sizeof(err)), 0);
	assert_int_equal(agent_audit_write(&au, &r), 0);
	agent_audit_close(&au);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0640);
	assert_int_equal(agent_audit_open(&au, path, err, sizeof(err)), 0);
	r.err = -EIO;
	r.error = "revert_all: rail0: revert: Input/output error";
	assert_int_equal(agent_audit_write(&au, &r), 0);
	agent_audit_close(&au);
	lines = read_lines();
	assert_int_equal(json_array_size(lines), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(lines, 0), "outcome")),
			    "ok");
	assert_string_equal(json_string_value(json_object_get(json_array_get(lines, 1), "outcome")),
			    "error");
	json_decref(lines);
	json_decref(req);

	/* A path that cannot be created names the flag and the way out. */
	assert_int_equal(agent_audit_open(&au, "/proc/rc-no/audit.jsonl", err, sizeof(err)),
			 -ENOENT);
	assert_non_null(strstr(err, "--audit-log /proc/rc-no/audit.jsonl: cannot create its "
				    "folder"));
	assert_non_null(strstr(err, "--audit-log none"));
	f = fopen(path, "r");
	assert_non_null(f);
	fclose(f);
}

static json_t *request(struct agent *a, const char *text)
{
	json_t *msg = json_loads(text, 0, NULL), *resp;

	assert_non_null(msg);
	resp = agent_request(a, NULL, RC_MSG_REQUEST, msg);
	json_decref(msg);
	return resp;
}

static void test_request_hook(void **state)
{
	static struct agent a;
	struct agent_opts o = {.name = "node-t", .nr_allow = 1};
	json_t *lines, *l;
	char err[256];
	size_t i;
	static const struct {
		const char *op, *outcome;
		int err;
	} want[] = {
	    {"time", "ok", 0},
	    {"frobnicate", "refused", EOPNOTSUPP},
	    {"time", "refused", EINVAL},
	    {"inject", "refused", EINVAL},
	    {"inject", "refused", EPERM},
	    {"inject", "refused", ENODEV},
	    {"workload_stop", "ok", 0},
	};

	strcpy(o.allow[0], "rc-absent0");
	agent_init(&a, &o);
	strcpy(a.policy.file, "a.yaml");
	strcpy(a.policy.injectors[a.policy.nr_injectors++], "link_down");
	a.policy.injectors_line = 2;
	assert_int_equal(agent_audit_open(&a.audit, path, err, sizeof(err)), 0);
	json_decref(request(&a, "{\"id\": 1, \"op\": \"time\"}"));
	json_decref(request(&a, "{\"id\": 2, \"op\": \"frobnicate\"}"));
	json_decref(request(&a, "{\"op\": \"time\"}"));
	json_decref(request(&a,
			    "{\"id\": 4, \"op\": \"inject\", \"fault_id\": \"f\", \"injector\": "
			    "\"link_down\", \"target\": {\"netdev\": \"rc-absent0\"}, "
			    "\"duration_ms\": -1}"));
	json_decref(request(&a,
			    "{\"id\": 5, \"op\": \"inject\", \"fault_id\": \"f\", \"injector\": "
			    "\"port_flap\", \"target\": {\"netdev\": \"rc-absent0\"}, "
			    "\"params\": {\"count\": 1, \"down_ms\": 10, \"up_ms\": 10}}"));
	json_decref(request(&a,
			    "{\"id\": 6, \"op\": \"inject\", \"fault_id\": \"f\", \"injector\": "
			    "\"link_down\", \"target\": {\"netdev\": \"rc-absent0\"}}"));
	/* A deferred answer (workload_stop) is audited when it is built. */
	json_decref(
	    agent_response_deferred(&a, NULL, "workload_stop", 7, json_pack("{s:s}", "wl_id", "s"),
				    json_pack("{s:s, s:i}", "wl_id", "s", "exit_status", 0)));
	agent_audit_close(&a.audit);

	lines = read_lines();
	assert_int_equal(json_array_size(lines), sizeof(want) / sizeof(want[0]));
	json_array_foreach(lines, i, l) {
		const char *op = json_string_value(json_object_get(l, "op"));

		if (!op || strcmp(op, want[i].op) ||
		    strcmp(json_string_value(json_object_get(l, "outcome")), want[i].outcome) ||
		    json_integer_value(json_object_get(l, "errno")) != want[i].err)
			fail_msg("line %zu: %s", i, json_dumps(l, JSON_COMPACT));
		assert_true(json_is_null(json_object_get(l, "peer")));
		assert_true(json_is_null(json_object_get(l, "peer_id")));
	}
	l = json_array_get(lines, 4);
	assert_string_equal(json_string_value(json_object_get(l, "error")),
			    "inject: port_flap: refused by policy a.yaml:2: injectors does not "
			    "list port_flap");
	assert_string_equal(json_string_value(json_object_get(l, "fault_id")), "f");
	assert_string_equal(
	    json_string_value(json_object_get(json_object_get(l, "target"), "netdev")),
	    "rc-absent0");
	l = json_array_get(lines, 6);
	assert_int_equal(json_integer_value(json_object_get(l, "id")), 7);
	assert_string_equal(json_string_value(json_object_get(l, "wl_id")), "s");
	assert_true(json_is_null(json_object_get(json_array_get(lines, 2), "id")));
	json_decref(lines);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_format),
	    cmocka_unit_test(test_format_hostile_request),
	    cmocka_unit_test(test_outcomes),
	    cmocka_unit_test_setup_teardown(test_append, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_request_hook, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
