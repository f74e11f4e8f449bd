// SPDX-License-Identifier: MIT
/*
 * The agent's policy file: a valid file, each kind of error with its line and
 * key path, durations, loading from disk, and the merge under the flags.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>
#include <cmocka.h>

#include "agents/agent_config.h"

static struct agent_policy p;

static int parse(const char *text, char *err, size_t errlen)
{
	return agent_config_parse("agent.yaml", text, strlen(text), &p, err, errlen);
}

/* Expects text to be refused with exactly the sentence `want`. */
static void refused(const char *text, const char *want)
{
	char err[512];
	int ret = parse(text, err, sizeof(err));

	if (ret != -EINVAL || strcmp(err, want))
		fail_msg("%s\ngot (%d): %s\nwant: %s", text, ret, err, want);
}

static void test_valid_file(void **state)
{
	char err[512];

	assert_int_equal(parse("# the lab's policy\n"
			       "injectors: [link_down, port_flap]\n"
			       "netdevs:\n"
			       "  - rail0\n"
			       "  - rail1\n"
			       "devices: [rxe_rail0]\n"
			       "max_fault_duration: 10m\n"
			       "max_concurrent_faults: 2\n"
			       "pfc: {max_rate_fps: 1000, max_duration: 60s}\n"
			       "control_if: eth0\n",
			       err, sizeof(err)),
			 0);
	assert_string_equal(p.file, "agent.yaml");
	assert_int_equal(p.nr_injectors, 2);
	assert_string_equal(p.injectors[1], "port_flap");
	assert_int_equal(p.injectors_line, 2);
	assert_int_equal(p.nr_allow, 2);
	assert_string_equal(p.allow[1], "rail1");
	assert_int_equal(p.allow_line, 3);
	assert_int_equal(p.nr_devices, 1);
	assert_string_equal(p.devices[0], "rxe_rail0");
	assert_int_equal(p.devices_line, 6);
	assert_int_equal(p.max_fault_ms, 600000);
	assert_int_equal(p.max_fault_line, 7);
	assert_int_equal(p.max_concurrent, 2);
	assert_int_equal(p.max_concurrent_line, 8);
	assert_int_equal(p.pfc_max_rate_fps, 1000);
	assert_int_equal(p.pfc_max_duration_ms, 60000);
	assert_int_equal(p.pfc_line, 9);
	assert_string_equal(p.control_if, "eth0");
	assert_int_equal(p.control_if_line, 10);
	assert_int_equal(p.nr_carriers, 0);
}

static void test_defaults(void **state)
{
	char err[512];

	/* Empty, comments only, or "---": nothing beyond the defaults. */
	assert_int_equal(parse("", err, sizeof(err)), 0);
	assert_int_equal(parse("# nothing yet\n", err, sizeof(err)), 0);
	assert_int_equal(parse("---\n", err, sizeof(err)), 0);
	assert_int_equal(p.injectors_line, 0); /* every injector */
	assert_int_equal(p.allow_line, 0);
	assert_int_equal(p.max_fault_ms, 0);
	assert_int_equal(p.max_concurrent, 0);
	/* An empty list is a rule: no injector at all. */
	assert_int_equal(parse("\ninjectors: []\n", err, sizeof(err)), 0);
	assert_int_equal(p.injectors_line, 2);
	assert_int_equal(p.nr_injectors, 0);
}

static void test_durations(void **state)
{
	static const struct {
		const char *text;
		uint64_t ms;
	} ok[] = {
	    {"500ms", 500},   {"10s", 10000},  {"5m", 300000},
	    {"1.5s", 1500},   {"2h", 7200000}, {"30", 30000}, /* a plain number is seconds */
	    {"\"7s\"", 7000},
	};
	char text[128], err[512];
	size_t i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		snprintf(text, sizeof(text), "max_fault_duration: %s\n", ok[i].text);
		assert_int_equal(parse(text, err, sizeof(err)), 0);
		assert_int_equal(p.max_fault_ms, ok[i].ms);
	}
	refused("max_fault_duration: 10 min\n",
		"agent.yaml:1:21: max_fault_duration: \"10 min\" is not a duration; write a number "
		"and a unit with no space, e.g. 500ms, 10s, 5m (a plain number is seconds)");
	refused(
	    "max_fault_duration: -5s\n",
	    "agent.yaml:1:21: max_fault_duration: \"-5s\" is not a duration; write a number and "
	    "a unit with no space, e.g. 500ms, 10s, 5m (a plain number is seconds)");
	refused("max_fault_duration: 0s\n",
		"agent.yaml:1:21: max_fault_duration: must be longer than 0 (leave the key out for "
		"no limit)");
	refused(
	    "max_fault_duration: 8d\n",
	    "agent.yaml:1:21: max_fault_duration: \"8d\" is not a duration; write a number and a "
	    "unit with no space, e.g. 500ms, 10s, 5m (a plain number is seconds)");
	refused(
	    "max_fault_duration: 169h\n",
	    "agent.yaml:1:21: max_fault_duration: 169h is longer than 7 days, the longest fault "
	    "a request can ask for");
	refused(
	    "pfc:\n  max_rate_fps: 10\n  max_duration: soon\n",
	    "agent.yaml:3:17: pfc.max_duration: \"soon\" is not a duration; write a number and a "
	    "unit with no space, e.g. 500ms, 10s, 5m (a plain number is seconds)");
}

static void test_unknown_and_duplicate_keys(void **state)
{
	refused(
	    "injectors: [link_down]\n\nmax_faults: 3\n",
	    "agent.yaml:3:1: max_faults: unknown key; allowed here: injectors, netdevs, devices, "
	    "max_fault_duration, max_concurrent_faults, pfc, control_if, jobs");
	refused("pfc:\n  max_rate_fps: 10\n  rate: 3\n",
		"agent.yaml:3:3: pfc.rate: unknown key; allowed here: max_rate_fps, max_duration");
	refused("netdevs: [a]\nnetdevs: [b]\n",
		"agent.yaml:2:1: netdevs: given twice (first on line 1)");
	refused("[a, b]: 1\n", "agent.yaml:1:1: keys must be plain words, not a list");
}

static void test_wrong_types(void **state)
{
	refused("- injectors\n", "agent.yaml:1:1: the file must be a mapping of keys, e.g. "
				 "\"injectors: [link_down]\" lines");
	refused("injectors: link_down\n",
		"agent.yaml:1:12: injectors: must be a list ([a, b] or \"- \" lines)");
	refused("netdevs:\n", "agent.yaml:1:9: netdevs: has no value; it takes a list ([a, b] or "
			      "\"- \" lines)");
	refused("netdevs:\n  - rail0\n  - [rail1]\n",
		"agent.yaml:3:5: netdevs[1]: must be a single value, not a list");
	refused("control_if: {name: eth0}\n",
		"agent.yaml:1:13: control_if: must be a single value, not a mapping");
	refused(
	    "max_concurrent_faults: two\n",
	    "agent.yaml:1:24: max_concurrent_faults: \"two\" is not a whole number; use 1..1024");
	refused("max_concurrent_faults: 0\n",
		"agent.yaml:1:24: max_concurrent_faults: 0 is out of range; use 1..1024");
	refused(
	    "max_concurrent_faults: -1\n",
	    "agent.yaml:1:24: max_concurrent_faults: \"-1\" is not a whole number; use 1..1024");
	refused("pfc: 1000\n", "agent.yaml:1:6: pfc: must be a mapping, e.g. {max_rate_fps: 1000, "
			       "max_duration: 60s}");
	refused("pfc: {max_rate_fps: 0}\n",
		"agent.yaml:1:21: pfc.max_rate_fps: 0 is out of range; use 1..100000000");
}

static void test_bad_names(void **state)
{
	const struct injector *const *i;
	char want[512];
	size_t off;

	/* every injector of the registry, in its order: a new one changes nothing here */
	off = (size_t)snprintf(want, sizeof(want),
			       "agent.yaml:3:5: injectors[1]: \"link_dwn\" is not an injector of "
			       "this agent (known: ");
	for (i = injectors; *i; i++)
		off += (size_t)snprintf(want + off, sizeof(want) - off, "%s%s",
					i == injectors ? "" : ", ", (*i)->name);
	snprintf(want + off, sizeof(want) - off, ")");
	assert_true(strstr(want, "(known: link_down, port_flap, pfc_storm, mr_failure, qp_error"));
	refused("injectors:\n  - link_down\n  - link_dwn\n", want);
	refused("injectors: [link_down, link_down]\n",
		"agent.yaml:1:24: injectors[1]: link_down is listed twice (first as injectors[0])");
	refused(
	    "netdevs: [rail0, eth0:1]\n",
	    "agent.yaml:1:18: netdevs[1]: \"eth0:1\" is not an interface name (1..15 characters, "
	    "no '/', ':' or spaces)");
	refused("netdevs: [a-very-long-netdev-name]\n",
		"agent.yaml:1:11: netdevs[0]: \"a-very-long-netdev-name\" is not an interface name "
		"(1..15 characters, no '/', ':' or spaces)");
	refused(
	    "devices: [\"rxe 0\"]\n",
	    "agent.yaml:1:11: devices[0]: \"rxe 0\" is not an RDMA device name (1..63 characters, "
	    "no '/' or spaces)");
	refused(
	    "control_if: ../eth0\n",
	    "agent.yaml:1:13: control_if: \"../eth0\" is not an interface name (1..15 characters, "
	    "no '/', ':' or spaces)");
	refused("control_if: ~\n",
		"agent.yaml:1:13: control_if: has no value; give one or leave the key out");
	refused("jobs: [ib_write_bw]\n",
		"agent.yaml:1:8: jobs[0]: \"ib_write_bw\" is not a program's absolute path (at "
		"most 255 characters), e.g. /usr/bin/ib_write_bw");
	refused("jobs: [/usr/bin/mpirun, /usr/bin/mpirun]\n",
		"agent.yaml:1:25: jobs[1]: /usr/bin/mpirun is listed twice (first as jobs[0])");
}

static void test_jobs(void **state)
{
	static struct agent_policy flags, file;
	char err[512];

	assert_int_equal(parse("# the programs drills may run\n"
			       "jobs:\n  - /usr/bin/ib_write_bw\n  - /usr/bin/mpirun\n",
			       err, sizeof(err)),
			 0);
	assert_int_equal(p.nr_jobs, 2);
	assert_int_equal(p.jobs_line, 2);
	assert_string_equal(p.jobs[1], "/usr/bin/mpirun");
	file = p;
	/* no --allow-job: the file's; --allow-job replaces them */
	memset(&flags, 0, sizeof(flags));
	assert_int_equal(agent_config_apply(&flags, &file, err, sizeof(err)), 0);
	assert_int_equal(flags.nr_jobs, 2);
	assert_int_equal(flags.jobs_line, 2);
	memset(&flags, 0, sizeof(flags));
	strcpy(flags.jobs[flags.nr_jobs++], "/bin/true");
	assert_int_equal(agent_config_apply(&flags, &file, err, sizeof(err)), 0);
	assert_int_equal(flags.nr_jobs, 1);
	assert_int_equal(flags.jobs_line, 0);
	assert_string_equal(flags.jobs[0], "/bin/true");
}

static void test_yaml_errors(void **state)
{
	refused(
	    "netdevs: [rail0\nmax_concurrent_faults: 2\n",
	    "agent.yaml:2:22: YAML syntax error: did not find expected ',' or ']' (while parsing "
	    "a flow sequence on line 1)");
	refused("netdevs:\n\t- rail0\n", "agent.yaml:2:1: YAML syntax error: found character that "
					 "cannot start any token (YAML indents with spaces, not "
					 "tabs)");
	refused("netdevs: [a]\n---\nnetdevs: [b]\n",
		"agent.yaml:2:1: the policy file holds one YAML document; remove the second one "
		"(after ---)");
}

/* The policy file is bounded in shape like a scenario (common/yaml_guard.h), in its own words. */
static void test_shape_limits(void **state)
{
	char text[256] = "netdevs: ";

	memset(text + strlen(text), '[', 70);
	memset(text + strlen(text), ']', 70);
	refused(text,
		"agent.yaml:1: nested more than 64 levels deep; a policy file needs at most 2");
	refused("netdevs: &n [rail0, *n]\n",
		"agent.yaml:1: alias *n is inside the node it names (&n on line 1); a YAML node "
		"cannot contain itself");
	refused("netdevs: [\"rail0\\0x\"]\n", "agent.yaml:1:11: netdevs[0]: holds a NUL character");
}

static void test_load(void **state)
{
	char path[] = "/tmp/rc-agent-config-XXXXXX", err[512];
	const char *text = "injectors: [port_flap]\nmax_concurrent_faults: 1\n";
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	assert_int_equal(agent_config_load(path, &p, err, sizeof(err)), 0);
	assert_string_equal(p.file, path);
	assert_int_equal(p.max_concurrent, 1);
	unlink(path);
	assert_int_equal(agent_config_load(path, &p, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "cannot open the policy file: No such file or directory"));
	assert_int_equal(strncmp(err, path, strlen(path)), 0);
}

static int parse_file(const char *text, struct agent_policy *file)
{
	char err[512];

	return agent_config_parse("f.yaml", text, strlen(text), file, err, sizeof(err));
}

static void test_apply(void **state)
{
	static struct agent_policy flags, file;
	char err[512];

	/* No flags: the file's targets and control interface. */
	assert_int_equal(parse_file("netdevs: [rail0]\ndevices: [rxe_rail1]\n"
				    "control_if: eth0\nmax_concurrent_faults: 3\n",
				    &file),
			 0);
	memset(&flags, 0, sizeof(flags));
	assert_int_equal(agent_config_apply(&flags, &file, err, sizeof(err)), 0);
	assert_int_equal(flags.nr_allow, 1);
	assert_int_equal(flags.allow_line, 1);
	assert_int_equal(flags.nr_devices, 1);
	assert_string_equal(flags.control_if, "eth0");
	assert_int_equal(flags.control_if_line, 3);
	assert_int_equal(flags.max_concurrent, 3);
	assert_string_equal(flags.file, "f.yaml");

	/* --allow-if replaces netdevs and devices; --control-if replaces control_if. */
	memset(&flags, 0, sizeof(flags));
	strcpy(flags.allow[flags.nr_allow++], "v0");
	strcpy(flags.control_if, "v1");
	assert_int_equal(agent_config_apply(&flags, &file, err, sizeof(err)), 0);
	assert_int_equal(flags.nr_allow, 1);
	assert_string_equal(flags.allow[0], "v0");
	assert_int_equal(flags.allow_line, 0);
	assert_int_equal(flags.nr_devices, 0);
	assert_int_equal(flags.devices_line, 0);
	assert_string_equal(flags.control_if, "v1");
	assert_int_equal(flags.control_if_line, 0);
	assert_int_equal(flags.max_concurrent, 3); /* no flag for it: the file's */

	/* The control interface may never be allowed, wherever each comes from. */
	assert_int_equal(parse_file("netdevs: [rail0, eth0]\ncontrol_if: eth0\n", &file), 0);
	memset(&flags, 0, sizeof(flags));
	assert_int_equal(agent_config_apply(&flags, &file, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "f.yaml:1: netdevs: eth0 is the control interface (control_if, "
				 "line 2), which the agent never faults; remove it from one of "
				 "the two");
	memset(&flags, 0, sizeof(flags));
	strcpy(flags.control_if, "rail0");
	assert_int_equal(agent_config_apply(&flags, &file, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "f.yaml:1: netdevs: rail0 is the control interface "
				 "(--control-if), which the agent never faults; remove it from "
				 "one of the two");
	memset(&flags, 0, sizeof(flags));
	strcpy(flags.allow[flags.nr_allow++], "eth0");
	assert_int_equal(agent_config_apply(&flags, &file, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "f.yaml:2: control_if: eth0 is in --allow-if, and the agent "
				 "never faults its control interface; remove it from one of the "
				 "two");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_valid_file),	cmocka_unit_test(test_defaults),
	    cmocka_unit_test(test_durations),	cmocka_unit_test(test_unknown_and_duplicate_keys),
	    cmocka_unit_test(test_wrong_types), cmocka_unit_test(test_bad_names),
	    cmocka_unit_test(test_yaml_errors), cmocka_unit_test(test_shape_limits),
	    cmocka_unit_test(test_load),	cmocka_unit_test(test_apply),
	    cmocka_unit_test(test_jobs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
