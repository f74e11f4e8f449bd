// SPDX-License-Identifier: MIT
/* The agent's PFC flags: --pfc-emulate (off by default) and --pfc-watchdog-ms (default, range). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <cmocka.h>

#include "agents/agent.h"
#include "agents/agent_pfc.h"

#define ARGV(...) ((char **)(const char *[]){"rdmachaos-agent", __VA_ARGS__, NULL})
#define ARGC(...) ((int)(sizeof((const char *[]){"rdmachaos-agent", __VA_ARGS__}) / sizeof(char *)))
#define PARSE(o, err, ...)                                                                         \
	agent_opts_parse(ARGC(__VA_ARGS__), ARGV(__VA_ARGS__), o, err, sizeof(err))
#define BASE "--name", "a", "--listen", "127.0.0.1:1"

static void test_defaults(void **state)
{
	struct agent_opts o;
	char err[256];

	assert_int_equal(PARSE(&o, err, BASE), 0);
	assert_false(o.pfc_emulate);
	assert_int_equal(o.pfc_watchdog_ms, AGENT_PFC_WATCHDOG_MS_DEFAULT);
	assert_int_equal(AGENT_PFC_WATCHDOG_MS_DEFAULT, 100);
}

static void test_flags(void **state)
{
	struct agent_opts o;
	char err[256];

	assert_int_equal(PARSE(&o, err, BASE, "--pfc-emulate", "--pfc-watchdog-ms", "250"), 0);
	assert_true(o.pfc_emulate);
	assert_int_equal(o.pfc_watchdog_ms, 250);
	assert_int_equal(PARSE(&o, err, BASE, "--pfc-watchdog-ms", "0"), 0);
	assert_int_equal(o.pfc_watchdog_ms, 0);
	assert_int_equal(PARSE(&o, err, BASE, "--pfc-watchdog-ms", "60000"), 0);
	assert_int_equal(o.pfc_watchdog_ms, 60000);
}

static void test_bad_watchdog(void **state)
{
	static const char *const bad[] = {"60001",	   "-1", "", "1e3", "100ms", " 5",
					  "99999999999999"};
	struct agent_opts o;
	char err[256], want[256];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(PARSE(&o, err, BASE, "--pfc-watchdog-ms", bad[i]), -EINVAL);
		snprintf(want, sizeof(want),
			 "--pfc-watchdog-ms '%s': give milliseconds in 0..60000 (0 turns the PFC "
			 "storm watchdog off)",
			 bad[i]);
		assert_string_equal(err, want);
	}
	assert_int_equal(PARSE(&o, err, BASE, "--pfc-watchdog-ms"), -EINVAL);
	assert_string_equal(err, "--pfc-watchdog-ms needs a value");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_defaults),
	    cmocka_unit_test(test_flags),
	    cmocka_unit_test(test_bad_watchdog),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
