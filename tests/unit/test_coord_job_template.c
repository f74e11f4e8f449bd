// SPDX-License-Identifier: MIT
/*
 * coordinator/job_template.c: a job's placeholders filled in per rank, checked without values,
 * and each refusal saying what to write instead.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "coordinator/job_template.h"

static const char *const nodes[] = {"node-b", "node-a"};

static int addr(void *arg, const char *node, int rail, char *buf, size_t len)
{
	if (!strcmp(node, "node-c"))
		return -ENOENT;
	snprintf(buf, len, "%s.%d", !strcmp(node, "node-a") ? "192.0.2.1" : "192.0.2.2", rail);
	return 0;
}

static int node_ok(void *arg, const char *node)
{
	return !strcmp(node, "node-a") || !strcmp(node, "node-b");
}

static void test_fills_in(void **state)
{
	struct jt_ctx ctx = {
	    .rank = 1, .size = 2, .node = "node-a", .nodes = nodes, .duration_s = 42, .addr = addr};
	char out[256], err[256];

	assert_int_equal(jt_expand("{rank}/{size} on {node} of {nodes} for {duration_s}s", &ctx,
				   out, sizeof(out), err, sizeof(err)),
			 0);
	assert_string_equal(out, "1/2 on node-a of node-b,node-a for 42s");
	assert_int_equal(jt_expand("-H {addrs:0} --peer={addr:node-b:1}", &ctx, out, sizeof(out),
				   err, sizeof(err)),
			 0);
	assert_string_equal(out, "-H 192.0.2.2.0,192.0.2.1.0 --peer=192.0.2.2.1");
	assert_int_equal(jt_expand("awk '{{print $1}}'", &ctx, out, sizeof(out), err, sizeof(err)),
			 0);
	assert_string_equal(out, "awk '{print $1}'");
	assert_int_equal(jt_expand("{addr:node-c:0}", &ctx, out, sizeof(out), err, sizeof(err)),
			 -ENOENT);
	assert_string_equal(err, "{addr:node-c:0}: node-c has no IPv4 address on rail 0");
	assert_int_equal(jt_expand("{nodes}{nodes}{nodes}", &ctx, out, 20, err, sizeof(err)),
			 -ENAMETOOLONG);
}

static void test_checks_without_values(void **state)
{
	static const struct {
		const char *tmpl, *want;
	} bad[] = {
	    {"{rnak}", "{rnak} is not a placeholder; use {rank}"},
	    {"{addr:node-x:0}", "{addr:node-x:0}: node-x is not a node of this drill"},
	    {"{addr:node-a}", "{addr:node-a}: write {addr:NODE:RAIL}"},
	    {"{addr::0}", "{addr::0}: write {addr:NODE:RAIL}"},
	    {"{addrs:x}", "{addrs:x}: \"x\" is not a rail number"},
	    {"a { b", "an unclosed '{' (write {{ for a brace)"},
	    {"a } b", "a lone '}' (write }} for a brace)"},
	};
	struct jt_ctx ctx = {.size = 1, .node_ok = node_ok};
	char out[256], err[256];
	size_t i;

	assert_int_equal(
	    jt_expand("{addr:node-b:0} {rank} {{x}}", &ctx, out, sizeof(out), err, sizeof(err)), 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		assert_int_equal(jt_expand(bad[i].tmpl, &ctx, out, sizeof(out), err, sizeof(err)),
				 -EINVAL);
		if (!strstr(err, bad[i].want))
			fail_msg("%s: \"%s\" lacks \"%s\"", bad[i].tmpl, err, bad[i].want);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_fills_in),
	    cmocka_unit_test(test_checks_without_values),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
