// SPDX-License-Identifier: MIT
/*
 * Scenario files are bounded in shape before libyaml builds them: nesting
 * depth, anchors, aliases (a "billion laughs"), and an alias inside its own
 * anchor are refused with a sentence naming the file and line, quickly, while
 * the anchors and aliases a person writes keep working.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <time.h>
#include <cmocka.h>

#include "coordinator/scenario.h"
#include "coordinator/yaml_guard.h"

static void expect_refused(const char *text, size_t len, const char *want)
{
	struct scenario sc;
	char err[512];
	int ret = scenario_parse("g.yaml", text, len, &sc, err, sizeof(err));

	if (ret != -EINVAL || !strstr(err, want))
		fail_msg("got %d \"%s\", want -EINVAL and \"%s\"", ret, err, want);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* "name: x\nd: " + n x open + n x close: libyaml alone takes minutes at 500000. */
static char *nested(size_t n, char open, char close, size_t *len)
{
	char *s = malloc(2 * n + 32);
	size_t off;

	assert_non_null(s);
	off = (size_t)sprintf(s, "name: x\nd: ");
	memset(s + off, open, n);
	memset(s + off + n, close, n);
	off += 2 * n;
	s[off++] = '\n';
	s[off] = '\0';
	*len = off;
	return s;
}

static void test_deep_nesting(void **state)
{
	size_t len;
	char *s = nested(500000, '[', ']', &len);
	double t0 = now_s();

	expect_refused(s, len, "g.yaml:2: nested more than 64 levels deep");
	assert_true(now_s() - t0 < 5);
	free(s);
	s = nested(YG_MAX_DEPTH + 1, '[', ']', &len);
	expect_refused(s, len, "nested more than 64 levels deep");
	free(s);
	/* Block style counts the same. */
	{
		char buf[16384];
		size_t off = (size_t)sprintf(buf, "name: x\nd:\n"), i;

		for (i = 1; i <= 70; i++)
			off += (size_t)sprintf(buf + off, "%*sk:\n", (int)i, "");
		expect_refused(buf, off, "nested more than 64 levels deep");
	}
}

static void test_depth_within_limit(void **state)
{
	size_t len;
	char *s = nested(YG_MAX_DEPTH - 1, '[', ']', &len);

	/* Within the limit: the scenario checks speak, not the guard. */
	expect_refused(s, len, "d: unknown key");
	free(s);
}

static void test_billion_laughs(void **state)
{
	char buf[4096];
	size_t off = (size_t)sprintf(buf, "name: lol\na0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
	unsigned int i;
	double t0 = now_s();

	for (i = 1; i < 10; i++)
		off += (size_t)sprintf(buf + off,
				       "a%u: &a%u [*a%u, *a%u, *a%u, *a%u, *a%u, *a%u, *a%u, *a%u, "
				       "*a%u, *a%u]\n",
				       i, i, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1,
				       i - 1, i - 1);
	expect_refused(buf, off, "aliases expanded the document would hold more than 1000000");
	/* Refused at the alias that crosses the limit: a4 holds 111111 nodes, so a5 on line 7. */
	expect_refused(buf, off, "g.yaml:7:");
	assert_true(now_s() - t0 < 5);
}

static void test_recursive_alias(void **state)
{
	const char *s = "name: x\nlab: &l {nodes: 2, self: [*l]}\n";

	expect_refused(s, strlen(s),
		       "g.yaml:2: alias *l is inside the node it names (&l on line 2); a YAML node "
		       "cannot contain itself");
}

static void test_too_many(void **state)
{
	size_t cap = 64 * (YG_MAX_ALIASES + 2), off;
	char *s = malloc(cap);
	unsigned int i;

	assert_non_null(s);
	off = (size_t)sprintf(s, "name: x\nd:\n");
	for (i = 0; i <= YG_MAX_ANCHORS; i++)
		off += (size_t)sprintf(s + off, "  - &a%u x\n", i);
	expect_refused(s, off, "more than 1000 anchors (&name)");

	off = (size_t)sprintf(s, "name: x\nb: &b x\nd:\n");
	for (i = 0; i <= YG_MAX_ALIASES; i++)
		off += (size_t)sprintf(s + off, "  - *b\n");
	expect_refused(s, off, "more than 10000 aliases (*name)");
	free(s);
}

/* docs/SCENARIOS.md: anchors and aliases work. */
static void test_aliases_work(void **state)
{
	static const char text[] =
	    "name: aliased\n"
	    "lab: {nodes: 2, rails: 2}\n"
	    "workload: {from: node-a, to: node-b, rails: [0, 1]}\n"
	    "faults:\n"
	    "  - {name: f0, at: 20s, injector: link_down, target: &t {node: node-b, rail: 0},\n"
	    "     duration: &d 5s}\n"
	    "  - {name: f1, at: 30s, injector: link_down, target: *t, duration: *d}\n"
	    "expect:\n"
	    "  detection: {within: *d, signals: [workload_error]}\n"
	    "  recovery: {within: 30s}\n";
	struct scenario sc;
	char err[512];

	if (scenario_parse("g.yaml", text, strlen(text), &sc, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(sc.nr_faults, 2);
	assert_string_equal(sc.faults[1].target.node, "node-b");
	assert_int_equal(sc.faults[1].duration_ms, 5000);
	assert_int_equal(sc.expect.detection_within_ms, 5000);
	scenario_free(&sc);
}

/* Not YAML: the loader's own message, not the guard's. */
static void test_syntax_left_to_loader(void **state)
{
	const char *s = "name: x\nd: [a, b\n";

	expect_refused(s, strlen(s), "YAML syntax error");
	s = "name: x\nd: *nowhere\n";
	expect_refused(s, strlen(s), "YAML syntax error");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_deep_nesting),
	    cmocka_unit_test(test_depth_within_limit),
	    cmocka_unit_test(test_billion_laughs),
	    cmocka_unit_test(test_recursive_alias),
	    cmocka_unit_test(test_too_many),
	    cmocka_unit_test(test_aliases_work),
	    cmocka_unit_test(test_syntax_left_to_loader),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
