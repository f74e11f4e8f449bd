// SPDX-License-Identifier: MIT
/* The port-flap schedule: deterministic per seed, periods within base +- jitter, range checks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <errno.h>
#include <cmocka.h>

#include "injectors/flap_schedule.h"

#define N(p) (2 * (size_t)(p).count)

static void test_no_jitter_is_exact(void **state)
{
	struct flap_params p = {.count = 3, .down_ms = 300, .up_ms = 200, .seed = 1};
	uint64_t at[6];
	const uint64_t want[6] = {0, 300, 500, 800, 1000, 1300};

	assert_int_equal(flap_schedule(&p, at, N(p)), 0);
	assert_memory_equal(at, want, sizeof(want));
}

static void test_same_seed_same_schedule(void **state)
{
	struct flap_params p = {
	    .count = 50, .down_ms = 300, .up_ms = 300, .jitter_ms = 100, .seed = 42};
	uint64_t a[100], b[100];

	assert_int_equal(flap_schedule(&p, a, N(p)), 0);
	assert_int_equal(flap_schedule(&p, b, N(p)), 0);
	assert_memory_equal(a, b, sizeof(a));
}

static void test_other_seed_other_schedule(void **state)
{
	struct flap_params p = {
	    .count = 50, .down_ms = 300, .up_ms = 300, .jitter_ms = 100, .seed = 1};
	uint64_t a[100], b[100];

	assert_int_equal(flap_schedule(&p, a, N(p)), 0);
	p.seed = 2;
	assert_int_equal(flap_schedule(&p, b, N(p)), 0);
	assert_memory_not_equal(a, b, sizeof(a));
}

static void test_periods_within_jitter(void **state)
{
	struct flap_params p = {
	    .count = FLAP_MAX_COUNT, .down_ms = 50, .up_ms = 80, .jitter_ms = 20, .seed = 7};
	static uint64_t at[2 * FLAP_MAX_COUNT];
	uint64_t lo_seen = UINT64_MAX, hi_seen = 0;
	size_t k;

	assert_int_equal(flap_schedule(&p, at, N(p)), 0);
	assert_int_equal(at[0], 0);
	for (k = 0; k + 1 < N(p); k++) {
		uint64_t period = at[k + 1] - at[k];
		uint64_t base = k % 2 ? p.up_ms : p.down_ms;

		assert_true(period >= base - p.jitter_ms);
		assert_true(period <= base + p.jitter_ms);
		if (!(k % 2)) {
			lo_seen = period < lo_seen ? period : lo_seen;
			hi_seen = period > hi_seen ? period : hi_seen;
		}
	}
	/* Over 1000 draws the jitter is really used, both ways. */
	assert_true(lo_seen < p.down_ms - p.jitter_ms / 2);
	assert_true(hi_seen > p.down_ms + p.jitter_ms / 2);
}

static void test_refuses_bad_params(void **state)
{
	struct flap_params ok = {
	    .count = 2, .down_ms = 300, .up_ms = 300, .jitter_ms = 0, .seed = 1};
	struct flap_params p;
	uint64_t at[4];
	char err[160];

	p = ok;
	p.count = 0;
	assert_int_equal(flap_params_check(&p, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "params.count"));
	p = ok;
	p.count = FLAP_MAX_COUNT + 1;
	assert_int_equal(flap_params_check(&p, err, sizeof(err)), -EINVAL);
	p = ok;
	p.down_ms = 0;
	assert_int_equal(flap_params_check(&p, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "params.down_ms"));
	p = ok;
	p.up_ms = 0;
	assert_int_equal(flap_params_check(&p, err, sizeof(err)), -EINVAL);
	p = ok;
	p.up_ms = 100;
	p.jitter_ms = 100; /* must stay below min(down, up) */
	assert_int_equal(flap_params_check(&p, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "jitter_ms"));
	p.jitter_ms = 99;
	assert_int_equal(flap_params_check(&p, err, sizeof(err)), 0);
	/* The array must match the count. */
	assert_int_equal(flap_schedule(&ok, at, 3), -EINVAL);
	assert_int_equal(flap_schedule(&ok, at, 4), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_no_jitter_is_exact),
	    cmocka_unit_test(test_same_seed_same_schedule),
	    cmocka_unit_test(test_other_seed_other_schedule),
	    cmocka_unit_test(test_periods_within_jitter),
	    cmocka_unit_test(test_refuses_bad_params),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
