// SPDX-License-Identifier: MIT
/*
 * Trials of a fault: repeat: and random schedule: expanded from the seed,
 * overlaps refused, percentiles, thresholds stated on p50/p90, and a fault
 * with no sign of taking effect judged inconclusive rather than missed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "coordinator/evaluate.h"
#include "coordinator/plan.h"
#include "coordinator/scenario.h"
#include "coordinator/schedule.h"

#define HEAD                                                                                       \
	"name: sched-test\n"                                                                       \
	"lab: {nodes: 2, rails: 2}\n"                                                              \
	"workload: {kind: rdma_stream, from: node-a, to: node-b, rails: [0, 1]}\n"                 \
	"steady_state: {warmup: 1s, baseline: 2s}\n"
#define EXPECT                                                                                     \
	"expect:\n"                                                                                \
	"  detection: {within: 5s, stat: p90, signals: [port_event]}\n"                            \
	"  recovery: {within: 10s}\n"

static void load(const char *text, struct scenario *sc, uint64_t seed)
{
	char err[512] = "";
	int ret = scenario_parse("sched.yaml", text, strlen(text), sc, err, sizeof(err));

	if (ret)
		print_error("%s\n", err);
	assert_int_equal(ret, 0);
	ret = plan_check(sc, seed, err, sizeof(err));
	if (ret)
		print_error("%s\n", err);
	assert_int_equal(ret, 0);
}

static void test_repeat_every(void **state)
{
	static const char text[] =
	    HEAD "faults:\n"
		 "  - {name: f, at: 5s, injector: link_down, duration: 2s,\n"
		 "     target: {node: node-b, rail: 0}, repeat: {count: 3, every: 20s}}\n" EXPECT;
	struct scenario sc;
	unsigned int i;

	load(text, &sc, 1);
	assert_int_equal(sc.nr_faults, 3);
	for (i = 0; i < 3; i++) {
		char want[16];

		snprintf(want, sizeof(want), "f#%u", i + 1);
		assert_string_equal(sc.faults[i].name, want);
		assert_string_equal(sc.faults[i].base, "f");
		assert_int_equal(sc.faults[i].trial, i + 1);
		assert_int_equal(sc.faults[i].trials, 3);
		assert_int_equal(sc.faults[i].at_ms, 5000 + 20000 * i);
	}
	assert_int_equal(sc.expect.detection_stat, SC_STAT_P90);
	assert_int_equal(sc.expect.recovery_stat, SC_STAT_MAX);
	/* expanding twice is harmless */
	assert_int_equal(plan_check(&sc, 1, (char[64]){0}, 64), 0);
	assert_int_equal(sc.nr_faults, 3);
	scenario_free(&sc);
}

static void test_repeat_default_every(void **state)
{
	static const char text[] = HEAD "faults:\n"
					"  - {name: f, at: 5s, injector: link_down, duration: 2s,\n"
					"     target: {node: node-b, rail: 0}, repeat: 2}\n" EXPECT;
	struct scenario sc;

	load(text, &sc, 1);
	assert_int_equal(sc.nr_faults, 2);
	/* recovery 10 s + sustain 2 s + 3 intervals of 100 ms, + 2 s */
	assert_int_equal(sc.faults[1].at_ms - sc.faults[0].at_ms, 10000 + 2000 + 300 + 2000);
	scenario_free(&sc);
}

static void random_ats(uint64_t seed, uint64_t *at)
{
	static const char text[] =
	    HEAD "faults:\n"
		 "  - {name: r, at: 5s, injector: link_down, duration: 1s,\n"
		 "     target: {node: node-b, rail: 1},\n"
		 "     schedule: {kind: random, count: 5, min_gap: 3s, max_gap: 9s}}\n" EXPECT;
	struct scenario sc;
	unsigned int i;

	load(text, &sc, seed);
	assert_int_equal(sc.nr_faults, 5);
	for (i = 0; i < 5; i++) {
		at[i] = sc.faults[i].at_ms;
		assert_true(sc.faults[i].repeat.random);
		if (i) {
			uint64_t gap = at[i] - (at[i - 1] + 1000);

			assert_true(gap >= 3000 && gap <= 9000);
		}
	}
	assert_int_equal(at[0], 5000);
	scenario_free(&sc);
}

static void test_random_replays(void **state)
{
	uint64_t a[5], b[5], c[5];

	random_ats(7, a);
	random_ats(7, b);
	random_ats(8, c);
	/* the same seed, the same timeline; another seed, another */
	assert_memory_equal(a, b, sizeof(a));
	assert_memory_not_equal(a, c, sizeof(a));
}

static void test_overlap_refused(void **state)
{
	/* the second fault sits inside the repeated fault's second trial, same target */
	static const char text[] =
	    HEAD "faults:\n"
		 "  - {name: f, at: 5s, injector: link_down, duration: 4s,\n"
		 "     target: {node: node-b, rail: 0}, repeat: {count: 2, every: 10s}}\n"
		 "  - {name: g, at: 16s, injector: link_down, duration: 1s,\n"
		 "     target: {node: node-b, rail: 0}}\n" EXPECT;
	struct scenario sc;
	char err[512] = "";

	assert_int_equal(scenario_parse("sched.yaml", text, strlen(text), &sc, err, sizeof(err)),
			 0);
	assert_int_equal(plan_check(&sc, 1, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "sched.yaml:"));
	assert_non_null(strstr(err, "overlaps"));
	scenario_free(&sc);
}

static void parse_fails(const char *text, const char *want)
{
	struct scenario sc;
	char err[512] = "";

	assert_int_equal(scenario_parse("sched.yaml", text, strlen(text), &sc, err, sizeof(err)),
			 -EINVAL);
	if (!strstr(err, want))
		print_error("want \"%s\" in: %s\n", want, err);
	assert_non_null(strstr(err, want));
}

static void test_parse_errors(void **state)
{
	parse_fails(HEAD
		    "faults:\n"
		    "  - {name: f, at: 5s, injector: link_down, duration: 4s,\n"
		    "     target: {node: node-b, rail: 0}, repeat: {count: 2, every: 3s}}\n" EXPECT,
		    "shorter than the fault");
	parse_fails(HEAD
		    "faults:\n"
		    "  - {name: f, at: 5s, injector: link_down, duration: 1s,\n"
		    "     target: {node: node-b, rail: 0}, repeat: 2,\n"
		    "     schedule: {kind: random, count: 2, min_gap: 1s, max_gap: 2s}}\n" EXPECT,
		    "not both");
	parse_fails(HEAD
		    "faults:\n"
		    "  - {name: f, at: 5s, injector: link_down, duration: 1s,\n"
		    "     target: {node: node-b, rail: 0},\n"
		    "     schedule: {kind: poisson, count: 2, min_gap: 1s, max_gap: 2s}}\n" EXPECT,
		    "not a schedule kind");
	parse_fails(HEAD
		    "faults:\n"
		    "  - {name: f, at: 5s, injector: link_down, duration: 1s,\n"
		    "     target: {node: node-b, rail: 0},\n"
		    "     schedule: {kind: random, count: 2, min_gap: 5s, max_gap: 2s}}\n" EXPECT,
		    "shorter than min_gap");
	parse_fails(HEAD "faults:\n"
			 "  - {name: f, at: 5s, injector: link_down, duration: 1s,\n"
			 "     target: {node: node-b, rail: 0}, repeat: 65}\n" EXPECT,
		    "repeat");
	parse_fails(HEAD "faults:\n"
			 "  - {name: f, at: 5s, injector: link_down, duration: 1s,\n"
			 "     target: {node: node-b, rail: 0}}\n"
			 "expect:\n"
			 "  detection: {within: 5s, stat: p95, signals: [port_event]}\n"
			 "  recovery: {within: 10s}\n",
		    "not a statistic");
}

static void test_too_many_trials(void **state)
{
	static const char text[] =
	    HEAD "faults:\n"
		 "  - {name: f, at: 5s, injector: link_down, duration: 1s,\n"
		 "     target: {node: node-b, rail: 0}, repeat: 40}\n"
		 "  - {name: g, at: 5s, injector: link_down, duration: 1s,\n"
		 "     target: {node: node-b, rail: 1}, repeat: 40}\n" EXPECT;
	struct scenario sc;
	char err[512] = "";

	assert_int_equal(scenario_parse("sched.yaml", text, strlen(text), &sc, err, sizeof(err)),
			 0);
	assert_int_equal(plan_check(&sc, 1, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "80 trials"));
	scenario_free(&sc);
}

/*
 * A trial's name, NAME#K, is its fault_id on the agent: 63 characters at most. Cut short, these
 * two faults' trials (their names differ in the 62nd character) would have shared names.
 */
static void test_trial_names(void **state)
{
	static const char text[] =
	    HEAD "faults:\n"
		 "  - {name: %s, at: 5s, injector: link_down, duration: 1s,\n"
		 "     target: {node: node-b, rail: 0}, repeat: {count: 10, every: 5s}}\n"
		 "  - {name: %sb, at: 80s, injector: link_down, duration: 1s,\n"
		 "     target: {node: node-b, rail: 1}, repeat: 2}\n" EXPECT;
	char buf[2048], err[512] = "", name[64];
	struct scenario sc;

	(void)state;
	/* 60 characters: #10 fits (63) */
	memset(name, 'n', 60);
	name[60] = '\0';
	snprintf(buf, sizeof(buf), text, name, "x");
	load(buf, &sc, 1);
	assert_int_equal(sc.nr_faults, 12);
	assert_int_equal(strlen(sc.faults[9].name), 63);
	assert_string_equal(sc.faults[9].name + 60, "#10");
	scenario_free(&sc);
	/* 61: refused, with by how much */
	name[60] = 'a';
	name[61] = '\0';
	snprintf(buf, sizeof(buf), text, name, name);
	assert_int_equal(scenario_parse("sched.yaml", buf, strlen(buf), &sc, err, sizeof(err)), 0);
	assert_int_equal(plan_check(&sc, 1, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "sched.yaml:6: faults: the trials of nnnn"));
	assert_non_null(strstr(err, "a (repeat: 10) are named nnnn"));
	assert_non_null(strstr(err, "a#10, longer than the 63 characters a fault's name may have; "
				    "shorten the name by 1"));
	scenario_free(&sc);
}

static void test_percentile(void **state)
{
	double v[10] = {10, 9, 8, 7, 6, 5, 4, 3, 2, 1}, w[3] = {5, INFINITY, 1};

	/* nearest rank: p50 of 10 is the 5th, p90 the 9th */
	assert_true(sched_percentile(v, 10, 50) == 5);
	assert_true(sched_percentile(v, 10, 90) == 9);
	assert_true(sched_percentile(v, 10, 100) == 10);
	assert_true(sched_percentile(w, 3, 50) == 5);
	assert_true(isinf(sched_percentile(w, 3, 90)));
	assert_true(isnan(sched_percentile(v, 0, 50)));
}

/* Ten trials of one fault, detection 100..1000 ms, one of them never detected. */
static enum ev_verdict ten_trials(enum sc_stat stat, json_t *reasons)
{
	static struct sc_fault decl[10];
	struct ev_fault f[10];
	struct ev_fault_result r[10];
	struct sc_expect x = {
	    .detection_stat = stat,
	    .detection_within_ms = 950,
	    .recovery_within_ms = 10000,
	    .max_lost = -1,
	    .max_corrupted = -1,
	};
	struct ev_baseline b = {.throughput_mbps = 10, .samples = 10, .to_ms = 1};
	struct ev_integrity in = {0};
	unsigned int i;

	memset(r, 0, sizeof(r));
	for (i = 0; i < 10; i++) {
		snprintf(decl[i].name, sizeof(decl[i].name), "f#%u", i + 1);
		snprintf(decl[i].base, sizeof(decl[i].base), "f");
		decl[i].trial = i + 1;
		decl[i].trials = 10;
		f[i] = (struct ev_fault){.decl = &decl[i],
					 .rail = 0,
					 .injected_ms = 1000.0 * i,
					 .reverted_ms = 1000.0 * i + 500};
		r[i].detection.threshold_ms = 950;
		r[i].detection.seen = i != 3;
		r[i].detection.ms = 100.0 * (i + 1);
		r[i].detection.ok = i != 3 && r[i].detection.ms <= 950;
		r[i].recovery =
		    (struct ev_measure){.seen = true, .ms = 10, .ok = true, .threshold_ms = 10000};
		r[i].ok = r[i].detection.ok;
	}
	return ev_verdict(&x, &b, r, f, 10, &in, true, reasons);
}

static void test_verdict_on_p90(void **state)
{
	json_t *reasons = json_array();
	char *dump;

	/* every trial must be in: trial 4 was never detected, trial 10 took 1000 ms */
	assert_int_equal(ten_trials(SC_STAT_MAX, reasons), EV_FAIL);
	json_array_clear(reasons);
	/* p50: the 5th fastest of 10 (one infinite) is 600 ms */
	assert_int_equal(ten_trials(SC_STAT_P50, reasons), EV_PASS);
	dump = json_dumps(reasons, 0);
	assert_non_null(strstr(dump, "detection p50 600 ms over 10 trials"));
	free(dump);
	json_array_clear(reasons);
	/* p90: the 9th is 1000 ms > 950 ms */
	assert_int_equal(ten_trials(SC_STAT_P90, reasons), EV_FAIL);
	dump = json_dumps(reasons, 0);
	if (!strstr(dump, "f: detection p90 over 10 trials 1 s > 950 ms"))
		print_error("%s\n", dump);
	assert_non_null(strstr(dump, "f: detection p90 over 10 trials 1 s > 950 ms"));
	free(dump);
	json_decref(reasons);
}

static void test_no_effect_is_inconclusive(void **state)
{
	static struct sc_fault decl = {.name = "quiet", .base = "quiet", .trial = 1, .trials = 1};
	struct sc_expect x = {.detection_within_ms = 1000,
			      .signals = {SC_SIG_PORT_EVENT},
			      .nr_signals = 1,
			      .recovery_within_ms = 5000,
			      .recovery_ratio = 0.5,
			      .max_lost = -1,
			      .max_corrupted = -1};
	struct ev_baseline b = {.throughput_mbps = 10, .samples = 10, .to_ms = 1};
	struct ev_fault f = {
	    .decl = &decl, .node = "node-b", .rail = 0, .injected_ms = 2000, .reverted_ms = 3000};
	struct ev_fault_result r;
	json_t *events = json_array(), *reasons = json_array();
	struct ev_integrity in = {0};

	/* throughput never moves and nothing else happens */
	for (int i = 0; i < 80; i++)
		json_array_append_new(events, json_pack("{s:s,s:s,s:s,s:s,s:f,s:f,s:i}", "kind",
							"workload", "type", "interval", "role",
							"client", "node", "node-a", "t_ms",
							100.0 * i, "mbps", 10.0, "rail", 0));
	ev_evaluate_fault(events, &x, &b, &f, &r);
	assert_false(r.detection.seen);
	assert_true(r.detection.inconclusive);
	assert_non_null(strstr(r.detection.note, "no evidence the fault took effect"));
	assert_int_equal(ev_verdict(&x, &b, &r, &f, 1, &in, true, reasons), EV_INCONCLUSIVE);

	/* a link event on the node is evidence enough: then a missed detection is a miss */
	json_array_append_new(events,
			      json_pack("{s:s,s:s,s:s,s:b,s:f}", "kind", "link", "node", "node-b",
					"ifname", "rail0", "up", 0, "t_ms", 2100.0));
	ev_evaluate_fault(events, &x, &b, &f, &r);
	assert_false(r.detection.inconclusive);
	json_array_clear(reasons);
	assert_int_equal(ev_verdict(&x, &b, &r, &f, 1, &in, true, reasons), EV_FAIL);
	json_decref(reasons);
	json_decref(events);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_repeat_every),   cmocka_unit_test(test_repeat_default_every),
	    cmocka_unit_test(test_random_replays), cmocka_unit_test(test_overlap_refused),
	    cmocka_unit_test(test_parse_errors),   cmocka_unit_test(test_too_many_trials),
	    cmocka_unit_test(test_trial_names),	   cmocka_unit_test(test_percentile),
	    cmocka_unit_test(test_verdict_on_p90), cmocka_unit_test(test_no_effect_is_inconclusive),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
