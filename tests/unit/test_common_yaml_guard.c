// SPDX-License-Identifier: MIT
/*
 * YAML files (scenarios, the agent's policy file) are bounded in shape before
 * libyaml builds them: nesting depth, anchors, aliases (a "billion laughs"),
 * and an alias inside its own anchor are refused by yd_load() with a sentence
 * naming the file and line, quickly, while the anchors and aliases a person
 * writes keep working.
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

#include "common/yaml_guard.h"
#include "common/yamldoc.h"

static const struct yd_kind kind = {
    .one_doc = "a test file",
    .noun = "a scenario",
    .depth = 5,
    .dur_eg = "1s",
};

static void expect_refused(const char *text, size_t len, const char *want)
{
	struct yd_doc d;
	char err[512];
	int ret = yd_load(&d, &kind, "g.yaml", text, len, err, sizeof(err));

	if (ret != -EINVAL || !strstr(err, want))
		fail_msg("got %d \"%s\", want -EINVAL and \"%s\"", ret, err, want);
}

/* Loads text, which must be accepted; the caller yd_free()s d. */
static void expect_loaded(struct yd_doc *d, const char *text, size_t len, char *err, size_t errlen)
{
	if (yd_load(d, &kind, "g.yaml", text, len, err, errlen))
		fail_msg("%s", err);
	assert_non_null(d->root);
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

	expect_refused(s, len,
		       "g.yaml:2: nested more than 64 levels deep; a scenario needs at most 5");
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
	struct yd_doc d;
	size_t len;
	char err[512], *s = nested(YG_MAX_DEPTH - 1, '[', ']', &len);

	/* Within the limit: loaded, for the file's own checks to speak. */
	expect_loaded(&d, s, len, err, sizeof(err));
	assert_int_equal(yd_map_get(&d, d.root, "d")->type, YAML_SEQUENCE_NODE);
	yd_free(&d);
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
	expect_refused(buf, off,
		       "aliases expanded the document would hold more than 1000000 nodes (a "
		       "\"billion laughs\"?); a scenario holds a few hundred");
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
	expect_refused(s, off, "more than 1000 anchors (&name); a scenario needs a few");

	off = (size_t)sprintf(s, "name: x\nb: &b x\nd:\n");
	for (i = 0; i <= YG_MAX_ALIASES; i++)
		off += (size_t)sprintf(s + off, "  - *b\n");
	expect_refused(s, off, "more than 10000 aliases (*name); a scenario needs a few");
	free(s);
}

/* docs/SCENARIOS.md: anchors and aliases work; an alias is the node it names. */
static void test_aliases_work(void **state)
{
	static const char text[] = "name: aliased\n"
				   "t: &t {node: node-b, rail: 0}\n"
				   "d: &d 5s\n"
				   "u: {target: *t, duration: *d}\n";
	struct yd_doc d;
	char err[512];
	yaml_node_t *u;

	expect_loaded(&d, text, strlen(text), err, sizeof(err));
	u = yd_map_get(&d, d.root, "u");
	assert_ptr_equal(yd_map_get(&d, u, "target"), yd_map_get(&d, d.root, "t"));
	assert_string_equal(yd_scalar(yd_map_get(&d, u, "duration")), "5s");
	yd_free(&d);
}

/* The words of the messages are the caller's: a policy file is not a scenario. */
static void test_noun(void **state)
{
	size_t len;
	char err[512], *s = nested(YG_MAX_DEPTH + 1, '[', ']', &len);

	assert_int_equal(yaml_guard("agent.yaml", s, len, "a policy file", 2, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "agent.yaml:2: nested more than 64 levels deep; a policy file "
				 "needs at most 2");
	free(s);
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
	    cmocka_unit_test(test_deep_nesting),   cmocka_unit_test(test_depth_within_limit),
	    cmocka_unit_test(test_billion_laughs), cmocka_unit_test(test_recursive_alias),
	    cmocka_unit_test(test_too_many),	   cmocka_unit_test(test_aliases_work),
	    cmocka_unit_test(test_noun),	   cmocka_unit_test(test_syntax_left_to_loader),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
