// SPDX-License-Identifier: MIT
/*
 * The agent's command line, the rail map, target resolution (against a fake
 * sysfs tree for RDMA device targets) and the rdma-core version lookup.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "agents/agent.h"
#include "tests/unit/scratch_dir.h"

/* getopt wants char **; it permutes the array but never writes the strings. */
#define ARGV(...) ((char **)(const char *[]){"rdmachaos-agent", __VA_ARGS__, NULL})
#define ARGC(...) ((int)(sizeof((const char *[]){"rdmachaos-agent", __VA_ARGS__}) / sizeof(char *)))
#define PARSE(o, err, ...)                                                                         \
	agent_opts_parse(ARGC(__VA_ARGS__), ARGV(__VA_ARGS__), o, err, sizeof(err))

static void test_minimal_and_full(void **state)
{
	struct agent_opts o;
	char err[256];

	assert_int_equal(PARSE(&o, err, "--name", "node-a", "--listen", "127.0.0.1:17700"), 0);
	assert_string_equal(o.name, "node-a");
	assert_string_equal(o.listen_host, "127.0.0.1");
	assert_int_equal(o.listen_port, 17700);
	assert_int_equal(o.nr_allow, 0);
	assert_int_equal(o.nr_rails, 0);

	assert_int_equal(PARSE(&o, err, "--name", "b", "--listen", "0.0.0.0:1", "--control-if",
			       "eth0", "--allow-if", "rail0,rail1", "--allow-if", "v0",
			       "--rail-map", "ens1,ens2", "--log-file", "/tmp/x.log", "--verbose"),
			 0);
	assert_string_equal(o.control_if, "eth0");
	assert_int_equal(o.nr_allow, 3);
	assert_string_equal(o.allow[2], "v0");
	assert_int_equal(o.nr_rails, 2);
	assert_string_equal(o.rails[1], "ens2");
	assert_string_equal(o.log_file, "/tmp/x.log");
	assert_string_equal(o.config, "");    /* the default file, if it exists */
	assert_string_equal(o.audit_log, ""); /* the default audit log */
	assert_true(o.verbose);

	assert_int_equal(PARSE(&o, err, "--name", "b", "--listen", "0.0.0.0:1", "--config",
			       "/tmp/agent.yaml", "--audit-log", "none"),
			 0);
	assert_string_equal(o.config, "/tmp/agent.yaml");
	assert_string_equal(o.audit_log, "none");

	assert_int_equal(PARSE(&o, err, "--help"), AGENT_OPTS_HELP);
}

static void test_errors_name_the_flag(void **state)
{
	const struct {
		char **argv;
		int argc;
		const char *says;
	} cases[] = {
#define CASE(says, ...) {ARGV(__VA_ARGS__), ARGC(__VA_ARGS__), says}
	    CASE("--name is required", "--listen", "127.0.0.1:1"),
	    CASE("--listen is required", "--name", "a"),
	    CASE("--name 'a b': use only letters", "--name", "a b", "--listen", "127.0.0.1:1"),
	    CASE("--listen '127.0.0.1': expected ADDR:PORT", "--name", "a", "--listen",
		 "127.0.0.1"),
	    CASE("PORT must be a number in 1..65535", "--name", "a", "--listen", "127.0.0.1:0"),
	    CASE("PORT must be a number in 1..65535", "--name", "a", "--listen", "127.0.0.1:70000"),
	    CASE("PORT must be a number in 1..65535", "--name", "a", "--listen", "127.0.0.1:8x"),
	    CASE("'host' is not an IPv4 address", "--name", "a", "--listen", "host:80"),
	    CASE("--allow-if 'a,,b': '' is not an interface name", "--name", "a", "--listen",
		 "127.0.0.1:1", "--allow-if", "a,,b"),
	    CASE("--allow-if 'averyveryverylongname'", "--name", "a", "--listen", "127.0.0.1:1",
		 "--allow-if", "averyveryverylongname"),
	    CASE("--rail-map 'a,b,a': a is listed twice", "--name", "a", "--listen", "127.0.0.1:1",
		 "--rail-map", "a,b,a"),
	    CASE("--rail-map given twice", "--name", "a", "--listen", "127.0.0.1:1", "--rail-map",
		 "a", "--rail-map", "b"),
	    CASE("--allow-if eth0: eth0 is the --control-if", "--name", "a", "--listen",
		 "127.0.0.1:1", "--control-if", "eth0", "--allow-if", "rail0,eth0"),
	    CASE("--config given twice", "--name", "a", "--listen", "127.0.0.1:1", "--config",
		 "a.yaml", "--config", "b.yaml"),
	    CASE("--config: give a file path", "--name", "a", "--listen", "127.0.0.1:1", "--config",
		 ""),
	    CASE("--audit-log: give a file path, or none", "--name", "a", "--listen", "127.0.0.1:1",
		 "--audit-log", "-"),
	    CASE("unknown option '--bogus'", "--name", "a", "--bogus", "x"),
	    CASE("--listen needs a value", "--name", "a", "--listen"),
	    CASE("unexpected argument 'extra'", "--name", "a", "--listen", "127.0.0.1:1", "extra"),
#undef CASE
	};
	struct agent_opts o;
	char err[256];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(
		    agent_opts_parse(cases[i].argc, cases[i].argv, &o, err, sizeof(err)), -EINVAL);
		if (!strstr(err, cases[i].says))
			fail_msg("case %zu: got \"%s\", want \"%s\"", i, err, cases[i].says);
	}
}

static void test_rail_of(void **state)
{
	struct agent_opts o = {0};

	assert_int_equal(agent_rail_of(&o, "rail0"), 0);
	assert_int_equal(agent_rail_of(&o, "rail12"), 12);
	assert_int_equal(agent_rail_of(&o, "rail"), -1);
	assert_int_equal(agent_rail_of(&o, "rail01"), -1);
	assert_int_equal(agent_rail_of(&o, "rail-1"), -1);
	assert_int_equal(agent_rail_of(&o, "eth0"), -1);
	/* With a map, only the map counts. */
	o.nr_rails = 2;
	strcpy(o.rails[0], "ens1");
	strcpy(o.rails[1], "ens2");
	assert_int_equal(agent_rail_of(&o, "ens2"), 1);
	assert_int_equal(agent_rail_of(&o, "rail0"), -1);
}

static json_t *target(const char *text)
{
	json_t *t = json_loads(text, 0, NULL);

	assert_non_null(t);
	return t;
}

static void test_target_resolution(void **state)
{
	char root[64], err[256];
	struct agent_opts o = {0};
	struct inj_target t;
	json_t *j;

	assert_int_equal(scratch_make(root, sizeof(root), "sysfs"), 0);
	scratch_put(root, "class/infiniband/rxe_a/ports/1/gid_attrs/ndevs/0", "rail0\n", 0644);
	scratch_put(root, "class/infiniband/rxe_b/parent", "rail1\n", 0644);
	rc_sysfs_root = root;

	j = target("{\"device\": \"rxe_a\", \"port\": 1}");
	assert_int_equal(agent_target_resolve(&o, "link_down", j, &t, err, sizeof(err)), 0);
	assert_string_equal(t.netdev, "rail0");
	assert_int_equal(t.rail, 0);
	json_decref(j);

	/* port defaults to 1; rxe's `parent` names the netdev too. */
	j = target("{\"device\": \"rxe_b\"}");
	assert_int_equal(agent_target_resolve(&o, "link_down", j, &t, err, sizeof(err)), 0);
	assert_string_equal(t.netdev, "rail1");
	assert_int_equal(t.port, 1);
	json_decref(j);

	j = target("{\"device\": \"mlx5_0\", \"port\": 1}");
	assert_int_equal(agent_target_resolve(&o, "link_down", j, &t, err, sizeof(err)), -ENODEV);
	assert_string_equal(err,
			    "link_down: mlx5_0 port 1: no such RDMA port with a netdev on this "
			    "node");
	json_decref(j);

	/* A netdev target learns its RDMA device from sysfs. */
	j = target("{\"netdev\": \"rail0\"}");
	assert_int_equal(agent_target_resolve(&o, "link_down", j, &t, err, sizeof(err)), 0);
	assert_string_equal(t.device, "rxe_a");
	assert_int_equal(t.port, 1);
	json_decref(j);

	j = target("{\"rail\": 3}");
	assert_int_equal(agent_target_resolve(&o, "link_down", j, &t, err, sizeof(err)), 0);
	assert_string_equal(t.netdev, "rail3");
	assert_int_equal(t.rail, 3);
	json_decref(j);

	j = target("{\"port\": 1, \"netdev\": \"x\"}");
	assert_int_equal(agent_target_resolve(&o, "link_down", j, &t, err, sizeof(err)), -EINVAL);
	json_decref(j);
	j = target("{\"netdev\": \"../etc\"}");
	assert_int_equal(agent_target_resolve(&o, "link_down", j, &t, err, sizeof(err)), -EINVAL);
	json_decref(j);

	rc_sysfs_root = "/sys";
	assert_int_equal(scratch_remove(root), 0);
}

static void test_rdma_core_version(void **state)
{
	char path[] = "/tmp/rc-dpkg-XXXXXX", v[64];
	int fd = mkstemp(path);
	const char text[] = "Package: libibverbs-dev\nVersion: 9.9-1\n\n"
			    "Package: libibverbs1\nStatus: install ok installed\n"
			    "Version: 1:44.0-2+deb12u1\n\nPackage: other\nVersion: 2\n";

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, sizeof(text) - 1), (ssize_t)sizeof(text) - 1);
	close(fd);
	agent_rdma_core_version(path, v, sizeof(v));
	assert_string_equal(v, "44.0");
	unlink(path);
	agent_rdma_core_version("/nonexistent/status", v, sizeof(v));
	assert_string_equal(v, "unknown");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_minimal_and_full),  cmocka_unit_test(test_errors_name_the_flag),
	    cmocka_unit_test(test_rail_of),	      cmocka_unit_test(test_target_resolution),
	    cmocka_unit_test(test_rdma_core_version),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
