// SPDX-License-Identifier: MIT
/*
 * The lab's state as a drill reads it: none (-ENOENT), a lab whose VMs all run, and a lab that
 * lost one (-ESRCH), zombie or reaped, which a drill replaces instead of taking it for up.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "coordinator/labenv.h"
#include "tests/unit/scratch_dir.h"

static char dir[64];

/* A lab directory of the test's own, as RDMACHAOS_LAB_DIR; removed whatever the test did. */
static int setup(void **state)
{
	if (scratch_make(dir, sizeof(dir), "labenv"))
		return -1;
	return setenv("RDMACHAOS_LAB_DIR", dir, 1);
}

static int teardown(void **state)
{
	return scratch_remove(dir);
}

/* Writes run/lab.json with one node per pid. */
static void write_state(const pid_t *pids, int n)
{
	char path[256];
	FILE *f;
	int i;

	snprintf(path, sizeof(path), "%s/run", dir);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/run/lab.json", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "{\"rails\": 2, \"nodes\": [");
	for (i = 0; i < n; i++)
		fprintf(f, "%s{\"name\": \"node-%c\", \"agent\": \"127.0.0.1:%d\", \"pid\": %d}",
			i ? ", " : "", 'a' + i, 17700 + 2 * i, (int)pids[i]);
	fprintf(f, "]}\n");
	fclose(f);
}

/* A child that has exited and is not reaped yet: a zombie, which kill(pid, 0) still finds. */
static pid_t zombie_pid(void)
{
	siginfo_t si;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (!pid)
		_exit(0);
	assert_int_equal(waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT), 0);
	assert_int_equal(kill(pid, 0), 0);
	return pid;
}

static void test_states(void **state)
{
	pid_t pids[2] = {getpid(), getppid()};
	json_t *lab = NULL;

	assert_int_equal(labenv_load(&lab), -ENOENT);

	write_state(pids, 2);
	assert_int_equal(labenv_load(&lab), 0);
	assert_string_equal(labenv_agent(lab, "node-b"), "127.0.0.1:17702");
	json_decref(lab);

	/* a QEMU that exited: first a zombie (what a container's init that never reaps leaves) */
	pids[1] = zombie_pid();
	write_state(pids, 2);
	lab = NULL;
	assert_int_equal(labenv_load(&lab), -ESRCH);
	assert_null(lab);
	/* then gone for good */
	assert_int_equal(waitpid(pids[1], NULL, 0), pids[1]);
	assert_int_equal(labenv_load(&lab), -ESRCH);
	assert_null(lab);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_states, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
