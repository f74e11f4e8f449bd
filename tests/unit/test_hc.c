// SPDX-License-Identifier: MIT
/*
 * rdmachaos-healthcheck (healthcheck/): its config's errors, its checks against a fake sysfs
 * tree in a temporary folder (a port down, a netdev down, a counter that rose, a state file
 * that holds garbage), the node state scontrol prints, what it decides, and the scontrol
 * command lines it runs (through a fake run function that records them).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <cmocka.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/sysfs.h"
#include "healthcheck/hc.h"
#include "tests/unit/scratch_dir.h"

static char tmp[64];
static char err[512];

static void put(const char *rel, const char *text)
{
	scratch_put(tmp, rel, text, 0644);
}

static int setup(void **state)
{
	(void)state;
	assert_int_equal(scratch_make(tmp, sizeof(tmp), "hc"), 0);
	rc_sysfs_root = tmp;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return scratch_remove(tmp);
}

static int parse(const char *text, struct hc_config *c)
{
	err[0] = '\0';
	return hc_config_parse("hc.yaml", text, strlen(text), c, err, sizeof(err));
}

static void expect_error(const char *text, const char *want)
{
	struct hc_config c;

	assert_int_equal(parse(text, &c), -EINVAL);
	assert_string_equal(err, want);
}

static void test_config(void **state)
{
	struct hc_config c;

	(void)state;
	assert_int_equal(parse("rails:\n  - {device: rxe_rail0}\n  - {device: mlx5_1, port: 2}\n"
			       "counters: {link_downed: 0, symbol_error: 10}\n"
			       "slurm: {node: node-b, drain: false}\n",
			       &c),
			 0);
	assert_int_equal(c.nr_rails, 2);
	assert_string_equal(c.rails[0].device, "rxe_rail0");
	assert_int_equal(c.rails[0].port, 1);
	assert_int_equal(c.rails[1].port, 2);
	assert_int_equal(c.nr_counters, 2);
	assert_string_equal(c.counters[1].name, "symbol_error");
	assert_int_equal(c.counters[1].max_increase, 10);
	assert_string_equal(c.node, "node-b");
	assert_false(c.drain);
	assert_string_equal(c.scontrol, "/usr/bin/scontrol");
	assert_string_equal(c.state_dir, "/var/lib/rdmachaos-healthcheck");

	expect_error("counters: {link_downed: 0}\n",
		     "hc.yaml:1:1: rails: missing: list the RDMA ports to check, e.g. rails: "
		     "[{device: mlx5_0}]");
	expect_error("rails: [{device: rxe_rail0, port: 0}]\n",
		     "hc.yaml:1:35: rails[0].port: 0 is out of range; use 1..255");
	expect_error("rails: [{device: ../etc}]\n",
		     "hc.yaml:1:18: rails[0].device: \"../etc\" is not a device or counter name");
	expect_error("rails: [{device: a}]\nslurm: {scontrol: scontrol}\n",
		     "hc.yaml:2:19: slurm.scontrol: \"scontrol\" is not an absolute path");
	expect_error("rails: [{device: a}]\nslurm: {drain: maybe}\n",
		     "hc.yaml:2:16: slurm.drain: \"maybe\" is not true or false");
	expect_error("rails: []\n",
		     "hc.yaml:1:8: rails: list 1..16 RDMA ports, e.g. [{device: mlx5_0}]");
}

static void rail(const char *state, const char *phys, const char *oper, const char *downed)
{
	put("class/infiniband/rxe_rail0/ports/1/state", state);
	put("class/infiniband/rxe_rail0/ports/1/phys_state", phys);
	put("class/infiniband/rxe_rail0/ports/1/gid_attrs/ndevs/0", "rail0\n");
	put("class/infiniband/rxe_rail0/ports/1/hw_counters/link_downed", downed);
	put("class/net/rail0/operstate", oper);
}

static void config(struct hc_config *c)
{
	char text[512];

	snprintf(text, sizeof(text),
		 "rails: [{device: rxe_rail0}]\ncounters: {link_downed: 0}\nstate_dir: %s/state\n",
		 tmp);
	assert_int_equal(parse(text, c), 0);
}

static void test_check(void **state)
{
	struct hc_config c;
	struct hc_result r;

	(void)state;
	config(&c);
	rail("4: ACTIVE\n", "5: LinkUp\n", "up\n", "3\n");
	hc_check(&c, &r);
	assert_int_equal(r.nr_problems, 0);
	assert_int_equal(r.nr_warnings, 0);

	/* the link goes down: port, physical link, netdev, and the counter rose by one */
	rail("1: DOWN\n", "3: Disabled\n", "down\n", "4\n");
	hc_check(&c, &r);
	assert_int_equal(r.nr_problems, 4);
	assert_string_equal(r.problems[0], "rxe_rail0 port 1 (rail0): port DOWN, not ACTIVE");
	assert_string_equal(r.problems[1],
			    "rxe_rail0 port 1 (rail0): physical link Disabled, not LinkUp");
	assert_string_equal(r.problems[2],
			    "rxe_rail0 port 1 (rail0): netdev rail0 is down, not up");
	assert_string_equal(r.problems[3], "rxe_rail0 port 1 (rail0): link_downed rose by 1 since "
					   "the last check (at most 0)");

	/* back, and no rise since the last run */
	rail("4: ACTIVE\n", "5: LinkUp\n", "up\n", "4\n");
	hc_check(&c, &r);
	assert_int_equal(r.nr_problems, 0);

	/* a state file holding garbage is set aside: no problem, a warning */
	put("state/counters.json", "{\"rxe_rail0/1/link_downed\": \"x\"}");
	hc_check(&c, &r);
	assert_int_equal(r.nr_problems, 0);
	assert_int_equal(r.nr_warnings, 1);
	assert_non_null(strstr(r.warnings[0], "is not a counter value; counters start over"));

	/* a device that is not there */
	assert_int_equal(parse("rails: [{device: mlx5_9}]\nstate_dir: \"\"\n", &c), 0);
	hc_check(&c, &r);
	assert_int_equal(r.nr_problems, 1);
	assert_string_equal(r.problems[0],
			    "mlx5_9 port 1: no such RDMA port (No such file or directory)");
}

static void test_parse_node(void **state)
{
	struct hc_node_state st;

	(void)state;
	assert_int_equal(hc_slurm_parse_node("NodeName=node-b Arch=x86_64 CoresPerSocket=1 "
					     "State=IDLE+DRAIN ThreadsPerCore=1 Reason="
					     "rdmachaos-healthcheck: rxe_rail0 port 1 (rail0): "
					     "port DOWN, not ACTIVE [root@2026-12-02T12:00:00]\n",
					     &st),
			 0);
	assert_true(st.drained);
	assert_string_equal(
	    st.reason, "rdmachaos-healthcheck: rxe_rail0 port 1 (rail0): port DOWN, not ACTIVE");
	assert_int_equal(hc_slurm_parse_node("NodeName=node-a State=MIXED CPUTot=1\n", &st), 0);
	assert_false(st.drained);
	assert_string_equal(st.reason, "");
	assert_int_equal(hc_slurm_parse_node("NodeName=node-a State=DRAINED Reason=Not responding "
					     "[slurm@2026-12-02T12:00:00]\n",
					     &st),
			 0);
	assert_true(st.drained);
	assert_string_equal(st.reason, "Not responding");
	assert_int_equal(hc_slurm_parse_node("no such node\n", &st), -EINVAL);
	/* a state word that only contains DRAIN later is not a drain */
	assert_int_equal(hc_slurm_parse_node("NodeName=x NextState=DRAIN State=IDLE\n", &st), 0);
	assert_false(st.drained);
}

static void test_decide(void **state)
{
	struct hc_node_state st = {0};

	(void)state;
	assert_int_equal(hc_decide(true, &st), HC_NONE);
	assert_int_equal(hc_decide(false, &st), HC_DRAIN);
	st.drained = true;
	snprintf(st.reason, sizeof(st.reason), "%s rxe_rail0 port 1: port DOWN", HC_REASON_PREFIX);
	assert_int_equal(hc_decide(false, &st), HC_NONE);
	assert_int_equal(hc_decide(true, &st), HC_RESUME);
	snprintf(st.reason, sizeof(st.reason), "maintenance: new DIMMs");
	assert_int_equal(hc_decide(true, &st), HC_LEAVE_OTHERS);
	assert_int_equal(hc_decide(false, &st), HC_LEAVE_OTHERS);
}

static char ran[512];
static int fake_status;

static int fake_run(char *const argv[], char *out, size_t outlen)
{
	size_t i;

	ran[0] = '\0';
	for (i = 0; argv[i]; i++)
		snprintf(ran + strlen(ran), sizeof(ran) - strlen(ran), "%s%s", i ? "|" : "",
			 argv[i]);
	snprintf(out, outlen, "NodeName=node-b State=IDLE Reason=(null)\n");
	return fake_status;
}

static void test_scontrol(void **state)
{
	struct hc_node_state st;
	struct hc_config c;

	(void)state;
	assert_int_equal(parse("rails: [{device: a}]\nslurm: {node: node-b}\n", &c), 0);
	fake_status = 0;
	assert_int_equal(hc_slurm_node_state(&c, fake_run, &st, err, sizeof(err)), 0);
	assert_string_equal(ran, "/usr/bin/scontrol|show|node|node-b|--oneliner");
	assert_false(st.drained);
	assert_string_equal(st.reason, "");
	assert_int_equal(
	    hc_slurm_drain(&c, fake_run, "rdmachaos-healthcheck: a port 1: DOWN", err, sizeof(err)),
	    0);
	assert_string_equal(ran, "/usr/bin/scontrol|update|NodeName=node-b|State=DRAIN|"
				 "Reason=rdmachaos-healthcheck: a port 1: DOWN");
	assert_int_equal(hc_slurm_resume(&c, fake_run, err, sizeof(err)), 0);
	assert_string_equal(ran, "/usr/bin/scontrol|update|NodeName=node-b|State=RESUME");
	fake_status = 1;
	assert_int_equal(hc_slurm_node_state(&c, fake_run, &st, err, sizeof(err)), -EIO);
	assert_string_equal(err, "/usr/bin/scontrol show node node-b: failed (is slurmctld up, "
				 "the node known?)");
}

/* hc_run for real: a program's output, its status, and one that does not exist */
static void test_run(void **state)
{
	char out[16];
	char *echo[] = {(char *)"/bin/echo", (char *)"a longer line than out holds", NULL};
	char *no[] = {(char *)"/nonexistent/scontrol", NULL};
	char *f[] = {(char *)"/bin/false", NULL};

	(void)state;
	assert_int_equal(hc_run(echo, out, sizeof(out)), 0);
	assert_string_equal(out, "a longer line t");
	assert_int_equal(hc_run(f, out, sizeof(out)), 1);
	assert_int_equal(hc_run(no, out, sizeof(out)), -ENOENT);
}

/* The mark of a drain of ours: set, seen, cleared; a directory in its place is not it. */
static void test_mark(void **state)
{
	struct hc_config c;
	char path[sizeof(c.state_dir) + 16];

	hc_config_defaults(&c);
	c.state_dir[0] = '\0';
	assert_false(hc_mark_present(&c));
	assert_int_equal(hc_mark_update(&c, true), 0); /* no state dir: no mark, every run asks */
	assert_false(hc_mark_present(&c));
	snprintf(c.state_dir, sizeof(c.state_dir), "%s/state", tmp);
	assert_false(hc_mark_present(&c));
	assert_int_equal(hc_mark_update(&c, false), 0);
	assert_int_equal(hc_mark_update(&c, true), 0);
	assert_true(hc_mark_present(&c));
	assert_int_equal(hc_mark_update(&c, true), 0);
	assert_int_equal(hc_mark_update(&c, false), 0);
	assert_false(hc_mark_present(&c));
	snprintf(path, sizeof(path), "%s/drained", c.state_dir);
	assert_int_equal(mkdir(path, 0700), 0);
	assert_false(hc_mark_present(&c));
	assert_int_equal(hc_mark_update(&c, false), 0); /* left alone */
	assert_int_equal(rmdir(path), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_config, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_check, setup, teardown),
	    cmocka_unit_test(test_parse_node),
	    cmocka_unit_test(test_decide),
	    cmocka_unit_test(test_scontrol),
	    cmocka_unit_test(test_run),
	    cmocka_unit_test_setup_teardown(test_mark, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
