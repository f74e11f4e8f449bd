// SPDX-License-Identifier: MIT
/*
 * Durations written back for people: the largest unit that is exact, in the
 * syntax scenario and policy files use, so the parser reads back the same value.
 * Data rates (workload.rate, the stream's --rate): which unit means what.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <math.h>
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
	/* fractions of a millisecond round half away from zero */
	assert_int_equal(rc_parse_duration_ms("2.5ms", &back), 0);
	assert_int_equal(back, 3);
	assert_int_equal(rc_parse_duration_ms("0.4ms", &back), 0);
	assert_int_equal(back, 0);
}

static void test_parse_rate(void **state)
{
	static const struct {
		const char *s;
		uint64_t want;
	} ok[] = {{"4MB/s", 4000000},
		  {"0.5MB/s", 500000},
		  {"500KB/s", 500000},
		  {"1GB/s", 1000000000},
		  {"4MiB/s", 4194304},
		  {"1KiB/s", 1024},
		  {"100Mbit/s", 12500000},
		  {"10Gbit/s", 1250000000},
		  {"8kbit/s", 1000},
		  {"4096B/s", 4096},
		  {"0B/s", 0}};
	static const char *const bad[] = {"4",	    "4MB",    "4 MB/s", "-1MB/s",  "4mb/s", "MB/s",
					  "1.5B/s", "4MB/s ", "",	"2e16B/s", "4Mb/s"};
	uint64_t v;
	size_t i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		v = 1;
		assert_int_equal(rc_parse_rate(ok[i].s, &v), 0);
		assert_int_equal(v, ok[i].want);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(rc_parse_rate(bad[i], &v), -EINVAL);
}

/* Measured times for people: as short as the value allows; windows share the unit. */
static void test_format_ms(void **state)
{
	static const struct {
		double ms;
		const char *want;
	} table[] = {
	    {0, "0 ms"},	 {1.44, "1.4 ms"}, {1.0, "1 ms"},   {9.96, "10 ms"},
	    {812.3, "812 ms"},	 {1000, "1 s"},	   {4200, "4.2 s"}, {30040, "30.04 s"},
	    {2499, "2.499 s"},	 {1e16, "?"},	   {NAN, "?"},	    {1000.5, "1.001 s"},
	    {1999.4, "1.999 s"},
	};
	char buf[32];
	size_t i;

	for (i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		assert_string_equal(rc_format_ms(table[i].ms, buf, sizeof(buf)), table[i].want);
	assert_string_equal(rc_format_window(5000, 15000, buf, sizeof(buf)), "5-15 s");
	assert_string_equal(rc_format_window(500, 2000, buf, sizeof(buf)), "500 ms-2 s");
	assert_string_equal(rc_format_window(1500, 2250, buf, sizeof(buf)), "1.5-2.25 s");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_format_duration),
	    cmocka_unit_test(test_format_parses_back),
	    cmocka_unit_test(test_parse_rate),
	    cmocka_unit_test(test_format_ms),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
