/* SPDX-License-Identifier: MIT */
/*
 * What the agent's unit tests that drive it through requests share: a request from JSON text,
 * the checks of an acceptance and a refusal, and the run of a cmocka group that skips loudly
 * where io_uring is unavailable. A test lists agent_harness in its .fixtures file.
 */
#ifndef TEST_AGENT_HARNESS_H
#define TEST_AGENT_HARNESS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "agents/agent.h"

/* text (JSON, which must parse) as a message of type to a; its response, NULL when deferred. */
json_t *harness_send(struct agent *a, uint16_t type, const char *text);
/* The response to request text, which must accept it; the caller's to free. */
json_t *harness_ok(struct agent *a, const char *text);
/* Request text must be refused with errno err and a sentence that contains says. */
void harness_refused(struct agent *a, const char *text, int err, const char *says);

/*
 * Runs the group of tests with rc_log at errors only, or prints "SKIP: ..." and returns 77
 * (rdma-core style: say loudly that nothing was tested) when io_uring is unavailable here.
 */
int harness_run(const char *name, const struct CMUnitTest *tests, size_t n, CMFixtureFunction setup,
		CMFixtureFunction teardown);
#define HARNESS_RUN(name, tests, setup, teardown)                                                  \
	harness_run(name, tests, sizeof(tests) / sizeof((tests)[0]), setup, teardown)

#endif
