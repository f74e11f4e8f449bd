// SPDX-License-Identifier: MIT
/* The agent unit tests' shared request helpers and io_uring-or-skip group runner (agent_harness.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/log.h"
#include "common/proto.h"
#include "tests/unit/agent_harness.h"

json_t *harness_send(struct agent *a, uint16_t type, const char *text)
{
	json_t *msg = json_loads(text, 0, NULL), *resp;

	if (!msg)
		fail_msg("not JSON: %s", text);
	resp = agent_request(a, NULL, type, msg);
	json_decref(msg);
	return resp;
}

json_t *harness_ok(struct agent *a, const char *text)
{
	json_t *resp = harness_send(a, RC_MSG_REQUEST, text);

	if (!json_is_true(json_object_get(resp, "ok")))
		fail_msg("%s: refused: %s", text,
			 resp ? json_dumps(resp, JSON_COMPACT) : "no answer");
	return resp;
}

void harness_refused(struct agent *a, const char *text, int err, const char *says)
{
	json_t *resp = harness_send(a, RC_MSG_REQUEST, text);
	const char *msg = json_string_value(json_object_get(resp, "error"));

	if (!json_is_false(json_object_get(resp, "ok")) || !msg || !strstr(msg, says) ||
	    json_integer_value(json_object_get(resp, "errno")) != err)
		fail_msg("%s: got %s, want errno %d and \"%s\"", text,
			 resp ? json_dumps(resp, JSON_COMPACT) : "no answer", err, says);
	json_decref(resp);
}

int harness_run(const char *name, const struct CMUnitTest *tests, size_t n, CMFixtureFunction setup,
		CMFixtureFunction teardown)
{
	struct agent_loop probe;
	int ret;

	rc_log_init(name, RC_LOG_ERR);
	ret = agent_loop_init(&probe, 2);
	if (ret == -ENOSYS || ret == -EPERM) {
		printf("SKIP: io_uring unavailable here (%s)\n", strerror(-ret));
		return 77;
	}
	if (!ret)
		agent_loop_fini(&probe);
	return _cmocka_run_group_tests("tests", tests, n, setup, teardown);
}
