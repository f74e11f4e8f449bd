// SPDX-License-Identifier: MIT
/* Interval statistics of rdmachaos-stream: percentiles, throughput units, reset per interval. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "common/units.h"
#include "workloads/stream_stats.h"

static void test_percentile_known(void **state)
{
	uint64_t v[100];
	int i;

	for (i = 0; i < 100; i++)
		v[i] = (uint64_t)i + 1;
	assert_int_equal(ws_percentile(v, 100, 50), 50);
	assert_int_equal(ws_percentile(v, 100, 99), 99);
	assert_int_equal(ws_percentile(v, 100, 100), 100);
	assert_int_equal(ws_percentile(v, 100, 1), 1);
	assert_int_equal(ws_percentile(v, 1, 99), 1);
	/* Nearest rank on 10 samples: p50 is the 5th, p99 the 10th. */
	assert_int_equal(ws_percentile(v, 10, 50), 5);
	assert_int_equal(ws_percentile(v, 10, 99), 10);
}

static void test_interval(void **state)
{
	struct ws_stats s;
	struct ws_interval iv;
	uint64_t t0 = 1000 * RC_NSEC_PER_SEC;
	int i;

	ws_stats_init(&s, t0);
	/* 100 messages of 1 MB, latencies 100..10000 us, unsorted. */
	for (i = 100; i >= 1; i--)
		ws_stats_add(&s, 1000000, (uint64_t)i * 100000);
	ws_stats_cut(&s, t0 + 2 * RC_NSEC_PER_SEC, &iv);
	assert_int_equal(iv.msgs, 100);
	assert_int_equal(iv.bytes, 100000000);
	assert_int_equal(iv.elapsed_ns, 2 * RC_NSEC_PER_SEC);
	/* mbps is megabytes per second; mbit_s megabits. */
	assert_true(iv.mbps > 49.999 && iv.mbps < 50.001);
	assert_true(iv.mbit_s > 399.99 && iv.mbit_s < 400.01);
	assert_true(iv.have_lat);
	assert_true(iv.lat_us_p50 > 4999.9 && iv.lat_us_p50 < 5000.1);
	assert_true(iv.lat_us_p99 > 9899.9 && iv.lat_us_p99 < 9900.1);

	/* The next interval starts empty. */
	ws_stats_add(&s, 10, WS_NO_LAT);
	ws_stats_cut(&s, t0 + 3 * RC_NSEC_PER_SEC, &iv);
	assert_int_equal(iv.msgs, 1);
	assert_int_equal(iv.bytes, 10);
	assert_false(iv.have_lat);
	ws_stats_cut(&s, t0 + 3 * RC_NSEC_PER_SEC, &iv);
	assert_int_equal(iv.msgs, 0);
	assert_true(iv.mbps == 0);
	ws_stats_free(&s);
}

static void test_growth(void **state)
{
	struct ws_stats s;
	struct ws_interval iv;
	int i;

	ws_stats_init(&s, 0);
	for (i = 0; i < 10000; i++)
		ws_stats_add(&s, 1, (uint64_t)(i % 1000) * 1000);
	ws_stats_cut(&s, RC_NSEC_PER_SEC, &iv);
	assert_int_equal(iv.msgs, 10000);
	assert_true(iv.lat_us_p50 >= 499 && iv.lat_us_p50 <= 500);
	assert_true(iv.lat_us_p99 >= 989 && iv.lat_us_p99 <= 990);
	ws_stats_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_percentile_known),
	    cmocka_unit_test(test_interval),
	    cmocka_unit_test(test_growth),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
