// SPDX-License-Identifier: MIT
/* The stream's poll() timeouts: rounded up to a whole millisecond, capped, 0 once due. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "common/units.h"
#include "workloads/stream.h"

static void test_rounds_up(void **state)
{
	const uint64_t now = 5 * RC_NSEC_PER_SEC;

	/* The last millisecond before the deadline is a 1 ms wait, never a spin of 0s. */
	assert_int_equal(ws_timeout_ms(now, now + 1, 10), 1);
	assert_int_equal(ws_timeout_ms(now, now + RC_NSEC_PER_MSEC - 1, 10), 1);
	assert_int_equal(ws_timeout_ms(now, now + RC_NSEC_PER_MSEC, 10), 1);
	assert_int_equal(ws_timeout_ms(now, now + RC_NSEC_PER_MSEC + 1, 10), 2);
	assert_int_equal(ws_timeout_ms(now, now + 7 * RC_NSEC_PER_MSEC, 10), 7);
}

static void test_capped_and_due(void **state)
{
	const uint64_t now = 5 * RC_NSEC_PER_SEC;

	assert_int_equal(ws_timeout_ms(now, now + 11 * RC_NSEC_PER_MSEC, 10), 10);
	assert_int_equal(ws_timeout_ms(now, now + RC_NSEC_PER_SEC * 3600, 10), 10);
	assert_int_equal(ws_timeout_ms(now, now + 3 * RC_NSEC_PER_MSEC, 2), 2);
	assert_int_equal(ws_timeout_ms(now, now, 10), 0);
	assert_int_equal(ws_timeout_ms(now, now - RC_NSEC_PER_MSEC, 10), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_rounds_up),
	    cmocka_unit_test(test_capped_and_due),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
