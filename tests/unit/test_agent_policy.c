// SPDX-License-Identifier: MIT
/* The fault policy: allow-list, --control-if and the interfaces carrying connections. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <cmocka.h>

#include "agents/agent_policy.h"

static void allow(struct agent_policy *p, const char *name)
{
	strcpy(p->allow[p->nr_allow++], name);
}

static void test_nothing_allowed_by_default(void **state)
{
	struct agent_policy p = {0};
	char err[256];

	assert_int_equal(agent_policy_check(&p, "link_down", "rail0", err, sizeof(err)), -EPERM);
	assert_string_equal(err, "link_down: rail0: refused: the agent allows no interface to be "
				 "faulted (start it with --allow-if rail0)");
}

static void test_allow_list(void **state)
{
	struct agent_policy p = {0};
	char err[256];

	allow(&p, "rail0");
	allow(&p, "rail1");
	assert_int_equal(agent_policy_check(&p, "link_down", "rail0", err, sizeof(err)), 0);
	assert_int_equal(agent_policy_check(&p, "port_flap", "rail1", err, sizeof(err)), 0);
	assert_int_equal(agent_policy_check(&p, "link_down", "rail2", err, sizeof(err)), -EPERM);
	assert_string_equal(err, "link_down: rail2: refused: not in the agent's allow-list (add it "
				 "to --allow-if)");
	/* Whole names only. */
	assert_int_equal(agent_policy_check(&p, "link_down", "rail", err, sizeof(err)), -EPERM);
}

static void test_control_if_flag_always_refused(void **state)
{
	struct agent_policy p = {0};
	char err[256];

	/* Even if a bad configuration also allows it. */
	allow(&p, "eth0");
	strcpy(p.control_if, "eth0");
	assert_int_equal(agent_policy_check(&p, "link_down", "eth0", err, sizeof(err)), -EPERM);
	assert_string_equal(err, "link_down: eth0: refused: it is the agent's control interface "
				 "(--control-if)");
}

static void test_connection_carrier_refused(void **state)
{
	struct agent_policy p = {0};
	char err[256];

	allow(&p, "eth0");
	allow(&p, "rail0");
	assert_int_equal(agent_policy_check(&p, "link_down", "eth0", err, sizeof(err)), 0);
	assert_int_equal(agent_policy_add_carrier(&p, "eth0"), 0);
	assert_int_equal(agent_policy_add_carrier(&p, "eth0"), 0); /* once is enough */
	assert_int_equal(p.nr_carriers, 1);
	assert_int_equal(agent_policy_check(&p, "link_down", "eth0", err, sizeof(err)), -EPERM);
	/* The sentence docs/PROTOCOL.md quotes. */
	assert_string_equal(err,
			    "link_down: eth0: refused: carries the agent's control connection");
	assert_int_equal(agent_policy_check(&p, "link_down", "rail0", err, sizeof(err)), 0);
}

static void test_carrier_table_full(void **state)
{
	static struct agent_policy p;
	char name[IF_NAMESIZE];
	int i;

	for (i = 0; i < AGENT_MAX_IFS; i++) {
		snprintf(name, sizeof(name), "if%d", i);
		assert_int_equal(agent_policy_add_carrier(&p, name), 0);
	}
	assert_int_equal(agent_policy_add_carrier(&p, "one-more"), -ENOSPC);
	assert_int_equal(agent_policy_add_carrier(&p, "if3"), 0); /* known: no room needed */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_nothing_allowed_by_default),
	    cmocka_unit_test(test_allow_list),
	    cmocka_unit_test(test_control_if_flag_always_refused),
	    cmocka_unit_test(test_connection_carrier_refused),
	    cmocka_unit_test(test_carrier_table_full),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
