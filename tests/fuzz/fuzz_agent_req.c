// SPDX-License-Identifier: MIT
/*
 * libFuzzer harness for the agent's request checks (agents/agent_req.c): each
 * input is one message payload as rc_conn hands it over (a JSON object), run
 * through agent_request() on an agent from agent_init(), which holds no system
 * resource. The handlers that would touch the host (inject, revert_all,
 * inventory, workloads, counters, verbs) are replaced through
 * tests/fuzz/fuzz_agent_req.wrap: the stubs check that what reached them
 * passed the op's argument table, and answer ok, an error or later. The others
 * (hello, time, subscribe, revert, faults, renew) run for real on an agent that
 * holds no fault. A new op that acts on the host belongs in the .wrap list.
 * The answer must always be a well-formed response carrying the request's id.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "agents/agent.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* Stubs for what the .wrap file lists. */
int __wrap_agent_op_inject(struct agent *a, struct agent_client *cl, json_int_t id,
			   const json_t *req, json_t **result, char *err, size_t errlen);
int __wrap_agent_op_revert_all(struct agent *a, struct agent_client *cl, json_int_t id,
			       const json_t *req, json_t **result, char *err, size_t errlen);
int __wrap_agent_op_inventory(struct agent *a, struct agent_client *cl, json_int_t id,
			      const json_t *req, json_t **result, char *err, size_t errlen);
int __wrap_agent_op_workload_start(struct agent *a, struct agent_client *cl, json_int_t id,
				   const json_t *req, json_t **result, char *err, size_t errlen);
int __wrap_agent_op_workload_stop(struct agent *a, struct agent_client *cl, json_int_t id,
				  const json_t *req, json_t **result, char *err, size_t errlen);
int __wrap_agent_counters_set_interval(struct agent *a, uint64_t interval_ms);
void __wrap_agent_verbs_rescan(struct agent *a);

static struct agent fz_agent;
static unsigned int fz_calls;
static bool fz_deferred; /* a stub kept the request to answer later */

/* A string argument the table admitted: 1..max characters, no NUL inside. */
static void want_string(const json_t *req, const char *key, size_t max, bool required)
{
	const json_t *v = json_object_get(req, key);

	if (!v) {
		if (required)
			abort();
		return;
	}
	if (!json_is_string(v) || !json_string_length(v) || json_string_length(v) > max ||
	    strlen(json_string_value(v)) != json_string_length(v))
		abort();
}

static void want_int(const json_t *req, const char *key, json_int_t min, json_int_t max)
{
	const json_t *v = json_object_get(req, key);

	if (v &&
	    (!json_is_integer(v) || json_integer_value(v) < min || json_integer_value(v) > max))
		abort();
}

/* The stub's answer, varied so every way back through agent_request() is taken. */
static int answer(json_t **result, char *err, size_t errlen)
{
	switch (fz_calls++ % 4) {
	case 0:
		*result = json_object();
		return 0;
	case 1:
		snprintf(err, errlen, "stub: refused");
		return -EPERM;
	case 2:
		return -ENODEV; /* no sentence: agent_request() writes one */
	default:
		fz_deferred = true;
		return AGENT_DEFERRED;
	}
}

int __wrap_agent_op_inject(struct agent *a, struct agent_client *cl, json_int_t id,
			   const json_t *req, json_t **result, char *err, size_t errlen)
{
	want_string(req, "fault_id", 63, true);
	want_string(req, "injector", 63, true);
	if (!json_is_object(json_object_get(req, "target")))
		abort();
	if (json_object_get(req, "params") && !json_is_object(json_object_get(req, "params")))
		abort();
	want_int(req, "duration_ms", 0, 7LL * 24 * 3600 * 1000);
	return answer(result, err, errlen);
}

int __wrap_agent_op_revert_all(struct agent *a, struct agent_client *cl, json_int_t id,
			       const json_t *req, json_t **result, char *err, size_t errlen)
{
	return answer(result, err, errlen);
}

int __wrap_agent_op_inventory(struct agent *a, struct agent_client *cl, json_int_t id,
			      const json_t *req, json_t **result, char *err, size_t errlen)
{
	return answer(result, err, errlen);
}

int __wrap_agent_op_workload_start(struct agent *a, struct agent_client *cl, json_int_t id,
				   const json_t *req, json_t **result, char *err, size_t errlen)
{
	const json_t *args = json_object_get(req, "args"), *e;
	size_t i;

	want_string(req, "wl_id", 63, true);
	want_string(req, "role", 15, true);
	if (args) {
		if (!json_is_array(args) || json_array_size(args) > 256)
			abort();
		json_array_foreach(args, i, e)
			if (!json_is_string(e))
				abort();
	}
	return answer(result, err, errlen);
}

int __wrap_agent_op_workload_stop(struct agent *a, struct agent_client *cl, json_int_t id,
				  const json_t *req, json_t **result, char *err, size_t errlen)
{
	want_string(req, "wl_id", 63, true);
	want_int(req, "timeout_ms", 0, 600000);
	return answer(result, err, errlen);
}

int __wrap_agent_counters_set_interval(struct agent *a, uint64_t interval_ms)
{
	if (interval_ms && (interval_ms < 10 || interval_ms > 3600000))
		abort();
	return fz_calls++ % 5 == 4 ? -ENOMEM : 0;
}

void __wrap_agent_verbs_rescan(struct agent *a)
{
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct agent_opts o = {.name = "node-fz", .control_if = "eth0", .nr_allow = 1};

	strcpy(o.allow[0], "rail0");
	agent_init(&fz_agent, &o);
	rc_log_init("fuzz_agent_req", RC_LOG_ERR); /* refusals are logged at info */
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* Mostly requests; a size of 7 mod 8 sends it as another type, as a confused peer would. */
	uint16_t type = size % 8 == 7 ? RC_MSG_EVENT : RC_MSG_REQUEST;
	json_t *msg = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, NULL), *resp;
	const json_t *id, *ok;

	/* rc_conn closes the connection on anything but an object: the agent never sees it. */
	if (!json_is_object(msg)) {
		json_decref(msg);
		return 0;
	}
	id = json_object_get(msg, "id");
	fz_deferred = false;
	resp = agent_request(&fz_agent, NULL, type, msg);
	if (resp) {
		ok = json_object_get(resp, "ok");
		if (!json_is_object(resp) || !json_is_boolean(ok))
			abort();
		/* The id comes back as sent (null when missing). */
		if (!json_equal(json_object_get(resp, "id"), id ? id : json_null()))
			abort();
		if (json_is_false(ok) && (!json_string_value(json_object_get(resp, "error")) ||
					  json_integer_value(json_object_get(resp, "errno")) <= 0))
			abort();
		if (json_is_true(ok) && (!json_is_integer(id) || type != RC_MSG_REQUEST))
			abort();
		free(json_dumps(resp, JSON_COMPACT)); /* it must go on the wire */
		json_decref(resp);
	} else if (!fz_deferred) {
		abort(); /* no answer, and nobody kept the request to answer later */
	}
	json_decref(msg);
	return 0;
}
