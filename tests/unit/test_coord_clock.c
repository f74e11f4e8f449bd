// SPDX-License-Identifier: MIT
/* Clock offset estimation: best sample wins, bad samples are ignored, bounds hold. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <cmocka.h>

#include "coordinator/clock.h"

static void test_min_rtt_wins(void **state)
{
	/* agent is 1 s ahead; second sample is symmetric with a 2 ms round trip */
	const struct clk_sample s[] = {
	    {.t_send_ns = 1000000, .t_agent_ns = 1001009000, .t_recv_ns = 1050000000 / 50},
	    {.t_send_ns = 100000000, .t_agent_ns = 1101000000, .t_recv_ns = 102000000},
	    {.t_send_ns = 200000000, .t_agent_ns = 1210000000, .t_recv_ns = 230000000},
	};
	struct clk_estimate e;

	assert_int_equal(clk_estimate(s, 3, &e), 0);
	assert_int_equal(e.samples, 3);
	assert_true(e.rtt_ns == 2000000.0);
	assert_true(e.uncertainty_ns == 1000000.0);
	assert_true(e.offset_ns == 1000000000.0);
	assert_true(clk_to_local_ns(&e, 1101000000) == 101000000.0);
}

static void test_asymmetric_delay_within_bound(void **state)
{
	/* true offset -5 ms; the request took 9 ms and the answer 1 ms */
	const uint64_t send = 50000000, true_off = 5000000;
	const struct clk_sample s = {.t_send_ns = send,
				     .t_agent_ns = send + 9000000 - true_off,
				     .t_recv_ns = send + 10000000};
	struct clk_estimate e;
	double err;

	assert_int_equal(clk_estimate(&s, 1, &e), 0);
	err = e.offset_ns - (-(double)true_off);
	assert_true(err <= e.uncertainty_ns && err >= -e.uncertainty_ns);
}

static void test_no_usable_sample(void **state)
{
	const struct clk_sample bad = {.t_send_ns = 10, .t_agent_ns = 5, .t_recv_ns = 9};
	struct clk_estimate e;

	assert_int_equal(clk_estimate(NULL, 0, &e), -EINVAL);
	assert_int_equal(clk_estimate(&bad, 1, &e), -EINVAL);
}

static void test_drift(void **state)
{
	/* a clock that lost 77 s in 300 s, and one that kept time within its bounds */
	const struct clk_estimate before = {.offset_ns = -5e9, .uncertainty_ns = 3e5},
				  slow = {.offset_ns = -82e9, .uncertainty_ns = 4e5},
				  sound = {.offset_ns = -5e9 + 5e5, .uncertainty_ns = 4e5};
	struct clk_drift dr;

	clk_drift(&before, &slow, 300e9, &dr);
	assert_true(dr.drift_ns == -77e9);
	assert_true(dr.bound_ns == 7e5);
	assert_true(dr.ppm > -256667 && dr.ppm < -256666);
	clk_drift(&before, &sound, 300e9, &dr);
	assert_true(dr.drift_ns <= dr.bound_ns && dr.drift_ns > 0);
	clk_drift(&before, &sound, 0, &dr); /* no time between them: no rate */
	assert_true(dr.ppm == 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_min_rtt_wins),
	    cmocka_unit_test(test_asymmetric_delay_within_bound),
	    cmocka_unit_test(test_no_usable_sample),
	    cmocka_unit_test(test_drift),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
