// SPDX-License-Identifier: MIT
/* Plan-time checks: seeds derived from the run's seed, injector validation, the printed plan. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "coordinator/plan.h"
#include "coordinator/scenario.h"

static const char drill[] =
    "name: plan-test\n"
    "lab: {nodes: 2, rails: 2}\n"
    "workload: {kind: rdma_stream, from: node-a, to: node-b, rails: [0, 1]}\n"
    "steady_state: {warmup: 1s, baseline: 2s}\n"
    "faults:\n"
    "  - {name: f0, at: 5s, injector: port_flap, target: {node: node-b, rail: 0},\n"
    "     params: {count: 2, down: 1s, up: 1s}}\n"
    "  - {name: f1, at: 20s, injector: port_flap, target: {node: node-b, rail: 1},\n"
    "     params: {count: 1, down: 1s, up: 1s, seed: 99}}\n"
    "  - {name: f2, at: 30s, injector: link_down, target: {node: node-a, rail: 0}, duration: 2s}\n"
    "expect:\n"
    "  detection: {within: 5s, signals: [port_event]}\n"
    "  recovery: {within: 10s}\n";

static void test_seeds(void **state)
{
	struct scenario sc;
	char err[512] = "";

	assert_int_equal(
	    scenario_parse("plan.yaml", drill, sizeof(drill) - 1, &sc, err, sizeof(err)), 0);
	assert_int_equal(plan_check(&sc, 40, err, sizeof(err)), 0);
	/* derived from the run's seed and the fault's index, so a report names it */
	assert_int_equal(json_integer_value(json_object_get(sc.faults[0].params, "seed")), 40);
	/* a seed written in the drill wins */
	assert_int_equal(json_integer_value(json_object_get(sc.faults[1].params, "seed")), 99);
	/* link_down has no seed */
	assert_null(json_object_get(sc.faults[2].params, "seed"));
	scenario_free(&sc);
}

static void test_injector_validate_refuses(void **state)
{
	struct scenario sc;
	char err[512] = "";

	assert_int_equal(
	    scenario_parse("plan.yaml", drill, sizeof(drill) - 1, &sc, err, sizeof(err)), 0);
	/* what the parser let through, the injector's own validate() still checks */
	json_object_set_new(sc.faults[2].params, "surprise", json_true());
	assert_int_equal(plan_check(&sc, 1, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "plan.yaml:"));
	assert_non_null(strstr(err, "faults[2].params"));
	scenario_free(&sc);
}

static void test_plan_print(void **state)
{
	struct drill_opts o = {.have_seed = true, .seed = 5};
	struct scenario sc;
	char err[512] = "", *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_int_equal(
	    scenario_parse("plan.yaml", drill, sizeof(drill) - 1, &sc, err, sizeof(err)), 0);
	assert_int_equal(plan_check(&sc, 5, err, sizeof(err)), 0);
	plan_print(f, &sc, &o);
	fclose(f);
	assert_non_null(strstr(buf, "inject f0: port_flap on node-b rail 0"));
	assert_non_null(strstr(buf, "32.0s  revert f2"));
	assert_non_null(strstr(buf, "dry run: nothing was touched"));
	free(buf);
	scenario_free(&sc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_seeds),
	    cmocka_unit_test(test_injector_validate_refuses),
	    cmocka_unit_test(test_plan_print),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
