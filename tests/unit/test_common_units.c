// SPDX-License-Identifier: MIT
/*
 * Durations written back for people: the largest unit that is exact, in the
 * syntax scenario and policy files use, so the parser reads back the same value.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "common/units.h"

static void test_format_duration(void **state)
{
	char buf[32];

	assert_string_equal(rc_format_duration_ms(600000, buf, sizeof(buf)), "10m");
	assert_string_equal(rc_format_duration_ms(7200000, buf, sizeof(buf)), "2h");
	assert_string_equal(rc_format_duration_ms(90000, buf, sizeof(buf)), "90s");
	assert_string_equal(rc_format_duration_ms(1500, buf, sizeof(buf)), "1500ms");
	assert_string_equal(rc_format_duration_ms(0, buf, sizeof(buf)), "0ms");
}

static void test_format_parses_back(void **state)
{
	static const uint64_t ms[] = {0, 1, 999, 1000, 61000, 3600000, 5400000, 86400000};
	char buf[32];
	uint64_t back;
	size_t i;

	for (i = 0; i < sizeof(ms) / sizeof(ms[0]); i++) {
		assert_int_equal(
		    rc_parse_duration_ms(rc_format_duration_ms(ms[i], buf, sizeof(buf)), &back), 0);
		assert_int_equal(back, ms[i]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_format_duration),
	    cmocka_unit_test(test_format_parses_back),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
