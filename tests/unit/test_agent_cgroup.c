// SPDX-License-Identifier: MIT
/*
 * agents/agent_cgroup.c against a fake cgroupfs: a temporary folder with the
 * files cgroup v2 would have (cgroup.controllers, cgroup.subtree_control).
 * Checks which files get "+rdma" (and "+cpu" with a CPU limit, and cpu.max),
 * that the workload's folder is made and removed, and the sentences for a
 * missing cgroup2 mount, rdma or cpu controller.
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

#include "agents/agent.h"
#include "agents/agent_cgroup.h"
#include "tests/unit/scratch_dir.h"

static char tmp[64];
static char err[512];

static void put(const char *rel, const char *text)
{
	scratch_put(tmp, rel, text, 0644);
}

static const char *get(const char *rel)
{
	static char buf[256];
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", tmp, rel);
	if (rc_sysfs_read(path, buf, sizeof(buf)))
		return NULL;
	return buf;
}

static void dir(const char *rel)
{
	scratch_mkdir(tmp, rel);
}

static bool is_dir(const char *rel)
{
	char path[256];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", tmp, rel);
	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

static int setup(void **state)
{
	if (scratch_make(tmp, sizeof(tmp), "cgroup"))
		return -1;
	/* tmp plays /sys/fs/cgroup; tmp/rdmachaos the agent's --cgroup-root. */
	put("cgroup.controllers", "cpuset cpu io memory hugetlb pids rdma misc\n");
	put("cgroup.subtree_control", "memory pids\n");
	err[0] = '\0';
	return 0;
}

static int teardown(void **state)
{
	return scratch_remove(tmp);
}

static void root_path(char *buf, size_t len)
{
	snprintf(buf, len, "%s/rdmachaos", tmp);
}

static void test_names(void **state)
{
	assert_true(agent_cgroup_name_ok("stream"));
	assert_true(agent_cgroup_name_ok("client-1.a_b"));
	assert_false(agent_cgroup_name_ok(""));
	assert_false(agent_cgroup_name_ok("."));
	assert_false(agent_cgroup_name_ok(".."));
	assert_false(agent_cgroup_name_ok("a/b"));
	assert_false(agent_cgroup_name_ok("a b"));
	assert_false(agent_cgroup_name_ok(
	    "0123456789012345678901234567890123456789012345678901234567890123"));
}

/* rdma reaches ROOT from the parent, and ROOT hands it down: both get "+rdma". */
static void test_create_enables_rdma(void **state)
{
	char root[128], path[256], want[256];

	root_path(root, sizeof(root));
	dir("rdmachaos");
	put("rdmachaos/cgroup.controllers", "memory pids\n"); /* no rdma yet */
	put("rdmachaos/cgroup.subtree_control", "");
	assert_int_equal(agent_cgroup_create(root, "stream", path, sizeof(path), err, sizeof(err)),
			 0);
	snprintf(want, sizeof(want), "%s/stream", root);
	assert_string_equal(path, want);
	assert_true(is_dir("rdmachaos/stream"));
	assert_string_equal(get("cgroup.subtree_control"), "+rdma");
	assert_string_equal(get("rdmachaos/cgroup.subtree_control"), "+rdma");

	assert_int_equal(agent_cgroup_remove(path, err, sizeof(err)), 0);
	assert_false(is_dir("rdmachaos/stream"));
	/* Gone already: nothing to do. */
	assert_int_equal(agent_cgroup_remove(path, err, sizeof(err)), 0);
}

/* Nothing is written where rdma is already enabled. */
static void test_create_already_enabled(void **state)
{
	char root[128], path[256];

	root_path(root, sizeof(root));
	dir("rdmachaos");
	put("rdmachaos/cgroup.controllers", "memory rdma\n");
	put("rdmachaos/cgroup.subtree_control", "memory rdma\n");
	assert_int_equal(agent_cgroup_create(root, "s", path, sizeof(path), err, sizeof(err)), 0);
	assert_string_equal(get("cgroup.subtree_control"), "memory pids");
	assert_string_equal(get("rdmachaos/cgroup.subtree_control"), "memory rdma");
	assert_true(is_dir("rdmachaos/s"));
}

/* A leftover folder is replaced when empty, refused when it is not. */
static void test_create_leftover(void **state)
{
	char root[128], path[256];

	root_path(root, sizeof(root));
	dir("rdmachaos");
	put("rdmachaos/cgroup.controllers", "rdma\n");
	put("rdmachaos/cgroup.subtree_control", "rdma\n");
	dir("rdmachaos/s");
	assert_int_equal(agent_cgroup_create(root, "s", path, sizeof(path), err, sizeof(err)), 0);
	put("rdmachaos/s/cgroup.procs", "123\n");
	assert_int_equal(agent_cgroup_create(root, "s", path, sizeof(path), err, sizeof(err)),
			 -ENOTEMPTY);
	assert_non_null(strstr(err, "exists and cannot be removed"));
	assert_int_equal(agent_cgroup_remove(path, err, sizeof(err)), -ENOTEMPTY);
	assert_non_null(strstr(err, "cgroup: rmdir "));
}

static void test_create_no_cgroup2(void **state)
{
	char root[128], path[256];

	/* A root whose parent is not a cgroup v2 folder. */
	snprintf(root, sizeof(root), "%s/plain/rdmachaos", tmp);
	dir("plain");
	assert_int_equal(agent_cgroup_create(root, "s", path, sizeof(path), err, sizeof(err)),
			 -EOPNOTSUPP);
	assert_non_null(strstr(err, "plain: not a cgroup v2 folder"));
	assert_non_null(strstr(err, "mount -t cgroup2"));
	assert_false(is_dir("plain/rdmachaos"));

	/* A root made in it is no cgroup either: nothing appears in it. */
	root_path(root, sizeof(root));
	assert_int_equal(agent_cgroup_create(root, "s", path, sizeof(path), err, sizeof(err)),
			 -EOPNOTSUPP);
	assert_non_null(strstr(err, "rdmachaos: not a cgroup v2 folder"));
}

/* cpu reaches ROOT like rdma, and the workload's folder gets its cpu.max. */
static void test_cpu_max(void **state)
{
	char root[128], path[256];

	root_path(root, sizeof(root));
	dir("rdmachaos");
	put("rdmachaos/cgroup.controllers", "memory rdma\n"); /* no cpu yet */
	put("rdmachaos/cgroup.subtree_control", "rdma\n");
	assert_int_equal(agent_cgroup_create(root, "job", path, sizeof(path), err, sizeof(err)), 0);
	put("rdmachaos/job/cpu.max", "max 100000\n");
	assert_int_equal(agent_cgroup_cpu_max(root, path, 25, err, sizeof(err)), 0);
	assert_string_equal(get("cgroup.subtree_control"), "+cpu");
	assert_string_equal(get("rdmachaos/cgroup.subtree_control"), "+cpu");
	assert_string_equal(get("rdmachaos/job/cpu.max"), "25000 100000");
	/* two CPUs */
	assert_int_equal(agent_cgroup_cpu_max(root, path, 200, err, sizeof(err)), 0);
	assert_string_equal(get("rdmachaos/job/cpu.max"), "200000 100000");
	/* out of range: nothing written */
	assert_int_equal(agent_cgroup_cpu_max(root, path, 0, err, sizeof(err)), -EINVAL);
	assert_int_equal(
	    agent_cgroup_cpu_max(root, path, AGENT_CG_CPU_PCT_MAX + 1, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "not in 1..102400% of one CPU"));
	assert_string_equal(get("rdmachaos/job/cpu.max"), "200000 100000");
}

/* A kernel without the cpu controller: refused, saying why, nothing written. */
static void test_cpu_max_no_cpu(void **state)
{
	char root[128], path[256];

	put("cgroup.controllers", "memory rdma\n");
	root_path(root, sizeof(root));
	dir("rdmachaos");
	put("rdmachaos/cgroup.controllers", "rdma\n");
	put("rdmachaos/cgroup.subtree_control", "rdma\n");
	assert_int_equal(agent_cgroup_create(root, "job", path, sizeof(path), err, sizeof(err)), 0);
	assert_int_equal(agent_cgroup_cpu_max(root, path, 25, err, sizeof(err)), -EOPNOTSUPP);
	assert_non_null(strstr(err, "no cpu controller (cgroup.controllers: \"memory rdma\")"));
	assert_non_null(strstr(err, "CONFIG_CFS_BANDWIDTH"));
	assert_string_equal(get("cgroup.subtree_control"), "memory pids");
	assert_false(get("rdmachaos/job/cpu.max"));
}

static void test_create_no_rdma(void **state)
{
	char root[128], path[256];

	put("cgroup.controllers", "cpu memory\n");
	root_path(root, sizeof(root));
	dir("rdmachaos");
	put("rdmachaos/cgroup.controllers", "memory\n");
	put("rdmachaos/cgroup.subtree_control", "");
	assert_int_equal(agent_cgroup_create(root, "s", path, sizeof(path), err, sizeof(err)),
			 -EOPNOTSUPP);
	assert_non_null(strstr(err, "no rdma controller (cgroup.controllers: \"cpu memory\")"));
	assert_non_null(strstr(err, "CONFIG_CGROUP_RDMA"));
	assert_string_equal(get("cgroup.subtree_control"), "memory pids");
	assert_false(is_dir("rdmachaos/s"));
}

static void test_create_bad_names(void **state)
{
	char root[300], path[256];

	root_path(root, sizeof(root));
	assert_int_equal(agent_cgroup_create(root, "../x", path, sizeof(path), err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "not usable as a cgroup name"));
	memset(root, 'a', 260);
	root[0] = '/';
	root[260] = '\0';
	assert_int_equal(agent_cgroup_create(root, "s", path, sizeof(path), err, sizeof(err)),
			 -ENAMETOOLONG);
	assert_non_null(strstr(err, "shorten --cgroup-root"));
	assert_int_equal(agent_cgroup_create("rel", "s", path, sizeof(path), err, sizeof(err)),
			 -ENAMETOOLONG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_names, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_create_enables_rdma, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_create_already_enabled, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_create_leftover, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_create_no_cgroup2, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_create_no_rdma, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_cpu_max, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_cpu_max_no_cpu, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_create_bad_names, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
