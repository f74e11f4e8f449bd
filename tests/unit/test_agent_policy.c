// SPDX-License-Identifier: MIT
/*
 * The fault policy: allow-list, --control-if and the interfaces carrying
 * connections; the policy file's injectors, devices and caps at inject time.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>
#include <cmocka.h>

#include "agents/agent_policy.h"
#include "tests/unit/scratch_dir.h"

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

/* A policy as the file /etc/rdmachaos/agent.yaml of agents/README.md would give. */
static void file_policy(struct agent_policy *p)
{
	memset(p, 0, sizeof(*p));
	strcpy(p->file, "/etc/rdmachaos/agent.yaml");
	strcpy(p->injectors[p->nr_injectors++], "link_down");
	p->injectors_line = 3;
	allow(p, "rail0");
	allow(p, "rail1");
	p->allow_line = 4;
	strcpy(p->devices[p->nr_devices++], "rxe_rail2");
	p->devices_line = 5;
	p->max_fault_ms = 600000;
	p->max_fault_line = 6;
	p->max_concurrent = 2;
	p->max_concurrent_line = 7;
	strcpy(p->control_if, "eth0");
}

static struct inj_target target(const char *netdev, const char *device)
{
	struct inj_target t = {.rail = -1};

	strcpy(t.netdev, netdev);
	strcpy(t.device, device);
	return t;
}

static void test_inject_allowed(void **state)
{
	struct agent_policy p;
	struct inj_target t = target("rail0", "");
	char err[256];

	file_policy(&p);
	assert_int_equal(agent_policy_check_inject(&p, "link_down", &t, 1000, 0, err, sizeof(err)),
			 0);
	assert_int_equal(
	    agent_policy_check_inject(&p, "link_down", &t, 600000, 1, err, sizeof(err)), 0);
	/* Through the RDMA device on it. */
	t = target("rail2", "rxe_rail2");
	assert_int_equal(agent_policy_check_inject(&p, "link_down", &t, 1000, 0, err, sizeof(err)),
			 0);
	/* Without a file: every injector, no caps (duration 0 = until reverted). */
	memset(&p, 0, sizeof(p));
	allow(&p, "rail0");
	t = target("rail0", "");
	assert_int_equal(agent_policy_check_inject(&p, "port_flap", &t, 0, 50, err, sizeof(err)),
			 0);
}

static void test_inject_injector_refused(void **state)
{
	struct agent_policy p;
	struct inj_target t = target("rail0", "");
	char err[256];

	file_policy(&p);
	assert_int_equal(agent_policy_check_inject(&p, "port_flap", &t, 1000, 0, err, sizeof(err)),
			 -EPERM);
	assert_string_equal(err,
			    "inject: port_flap: refused by policy /etc/rdmachaos/agent.yaml:3: "
			    "injectors does not list port_flap");
	/* injectors: [] allows none. */
	p.nr_injectors = 0;
	assert_int_equal(agent_policy_check_inject(&p, "link_down", &t, 1000, 0, err, sizeof(err)),
			 -EPERM);
}

static void test_inject_target_refused(void **state)
{
	struct agent_policy p;
	struct inj_target t = target("rail3", "rxe_rail3");
	char err[256];

	file_policy(&p);
	assert_int_equal(agent_policy_check_inject(&p, "link_down", &t, 1000, 0, err, sizeof(err)),
			 -EPERM);
	assert_string_equal(err, "inject: link_down: rail3: refused by policy "
				 "/etc/rdmachaos/agent.yaml:4: neither netdevs lists rail3 nor "
				 "devices (line 5) lists rxe_rail3, its RDMA device");
	t = target("eth1", "");
	assert_int_equal(agent_policy_check_inject(&p, "link_down", &t, 1000, 0, err, sizeof(err)),
			 -EPERM);
	assert_string_equal(err, "inject: link_down: eth1: refused by policy "
				 "/etc/rdmachaos/agent.yaml:4: netdevs does not list eth1 (and it "
				 "carries no RDMA device for devices, line 5)");
	p.devices_line = 0;
	p.nr_devices = 0;
	assert_int_equal(agent_policy_check_inject(&p, "link_down", &t, 1000, 0, err, sizeof(err)),
			 -EPERM);
	assert_string_equal(err, "inject: link_down: eth1: refused by policy "
				 "/etc/rdmachaos/agent.yaml:4: netdevs does not list eth1");
	/* Only devices. */
	file_policy(&p);
	p.nr_allow = 0;
	p.allow_line = 0;
	t = target("rail0", "rxe_rail0");
	assert_int_equal(agent_policy_check_inject(&p, "link_down", &t, 1000, 0, err, sizeof(err)),
			 -EPERM);
	assert_string_equal(err,
			    "inject: link_down: rail0: refused by policy "
			    "/etc/rdmachaos/agent.yaml:5: devices does not list rxe_rail0, the "
			    "RDMA device on rail0");
	t = target("rail0", "");
	assert_int_equal(agent_policy_check_inject(&p, "link_down", &t, 1000, 0, err, sizeof(err)),
			 -EPERM);
	assert_string_equal(err,
			    "inject: link_down: rail0: refused by policy "
			    "/etc/rdmachaos/agent.yaml:5: devices lists RDMA devices and rail0 "
			    "carries none");
	/* The control interface stays refused, even when a device on it is allowed. */
	t = target("eth0", "rxe_rail2");
	assert_int_equal(agent_policy_check_inject(&p, "link_down", &t, 1000, 0, err, sizeof(err)),
			 -EPERM);
	assert_string_equal(err, "link_down: eth0: refused: it is the agent's control interface "
				 "(--control-if)");
	p.control_if_line = 8;
	assert_int_equal(agent_policy_check_inject(&p, "link_down", &t, 1000, 0, err, sizeof(err)),
			 -EPERM);
	assert_string_equal(err, "link_down: eth0: refused: it is the agent's control interface "
				 "(control_if in /etc/rdmachaos/agent.yaml:8)");
	assert_int_equal(agent_policy_add_carrier(&p, "rail2"), 0);
	t = target("rail2", "rxe_rail2");
	assert_int_equal(agent_policy_check_inject(&p, "link_down", &t, 1000, 0, err, sizeof(err)),
			 -EPERM);
	assert_string_equal(err,
			    "link_down: rail2: refused: carries the agent's control connection");
}

static void test_inject_caps(void **state)
{
	struct agent_policy p;
	struct inj_target t = target("rail1", "");
	char err[256];

	file_policy(&p);
	assert_int_equal(
	    agent_policy_check_inject(&p, "link_down", &t, 600001, 0, err, sizeof(err)), -EPERM);
	assert_string_equal(err,
			    "inject: link_down: refused by policy /etc/rdmachaos/agent.yaml:6: "
			    "duration_ms 600001 is over max_fault_duration 10m (600000 ms)");
	assert_int_equal(agent_policy_check_inject(&p, "link_down", &t, 0, 0, err, sizeof(err)),
			 -EPERM);
	assert_string_equal(err,
			    "inject: link_down: refused by policy /etc/rdmachaos/agent.yaml:6: "
			    "duration_ms 0 (until reverted) is not allowed under "
			    "max_fault_duration 10m; give duration_ms 1..600000");
	assert_int_equal(agent_policy_check_inject(&p, "link_down", &t, 1000, 2, err, sizeof(err)),
			 -EPERM);
	assert_string_equal(err,
			    "inject: link_down: refused by policy /etc/rdmachaos/agent.yaml:7: "
			    "max_concurrent_faults is 2 and 2 faults are active (revert one "
			    "first)");
	p.max_concurrent = 1;
	assert_int_equal(agent_policy_check_inject(&p, "link_down", &t, 1000, 1, err, sizeof(err)),
			 -EPERM);
	assert_non_null(strstr(err, "max_concurrent_faults is 1 and 1 fault is active"));
}

static void test_jobs_by_identity(void **state)
{
	struct agent_policy p;
	char dir[64], prog[96], other[96], link[96], err[512];

	assert_int_equal(scratch_make(dir, sizeof(dir), "policy-jobs"), 0);
	snprintf(prog, sizeof(prog), "%s/prog", dir);
	snprintf(other, sizeof(other), "%s/other", dir);
	snprintf(link, sizeof(link), "%s/link", dir);
	scratch_put(dir, "prog", "", 0644);
	scratch_put(dir, "other", "", 0644);
	assert_int_equal(symlink(prog, link), 0);

	memset(&p, 0, sizeof(p));
	assert_int_equal(agent_policy_check_job(&p, prog, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "this agent runs no jobs (list the programs it may run with "
				    "--allow-job PATH"));
	strcpy(p.jobs[p.nr_jobs++], link); /* a symlink listed: the file it names is allowed */
	assert_int_equal(agent_policy_check_job(&p, prog, err, sizeof(err)), 0);
	assert_int_equal(agent_policy_check_job(&p, link, err, sizeof(err)), 0);
	assert_int_equal(agent_policy_check_job(&p, other, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "/other: refused: --allow-job does not list it"));
	strcpy(p.file, "agent.yaml");
	p.jobs_line = 4;
	assert_int_equal(agent_policy_check_job(&p, other, err, sizeof(err)), -EPERM);
	assert_non_null(
	    strstr(err, "/other: refused by policy agent.yaml:4: jobs does not list it"));
	assert_int_equal(agent_policy_check_job(&p, "/nonexistent/x", err, sizeof(err)), -ENOENT);
	assert_int_equal(scratch_remove(dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_jobs_by_identity),
	    cmocka_unit_test(test_nothing_allowed_by_default),
	    cmocka_unit_test(test_allow_list),
	    cmocka_unit_test(test_control_if_flag_always_refused),
	    cmocka_unit_test(test_connection_carrier_refused),
	    cmocka_unit_test(test_carrier_table_full),
	    cmocka_unit_test(test_inject_allowed),
	    cmocka_unit_test(test_inject_injector_refused),
	    cmocka_unit_test(test_inject_target_refused),
	    cmocka_unit_test(test_inject_caps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
