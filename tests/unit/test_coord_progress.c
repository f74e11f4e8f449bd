// SPDX-License-Identifier: MIT
/*
 * The console of a running drill: live, the status line is erased before
 * every event or log line and drawn again below it; plain, no status line and
 * no terminal control sequence at all (CI logs stay readable).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/log.h"
#include "coordinator/progress.h"

/* Runs fn with stderr going to a file; returns what it wrote (malloc'd). */
static char *capture(void (*fn)(void))
{
	char path[] = "/tmp/rdmachaos-progress-XXXXXX", *buf;
	int fd = mkstemp(path), saved = dup(STDERR_FILENO);
	long n;
	FILE *f;

	assert_true(fd >= 0 && saved >= 0);
	fflush(stderr);
	dup2(fd, STDERR_FILENO);
	fn();
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	f = fdopen(fd, "r");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = calloc(1, (size_t)n + 1);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	unlink(path);
	return buf;
}

static void drive(void)
{
	prog_status(" FAULT 21.0 / 58 s | in force: flap (node-b rail0) ");
	prog_event("  +21.0s node-b link rail0 down");
	rc_warn("a warning");
	prog_status(" recovery 30.0 / 58 s | no fault ");
	prog_done();
	prog_event("after the timeline");
}

static void live(void)
{
	prog_init(PROG_LIVE);
	drive();
}

static void plain(void)
{
	prog_init(PROG_PLAIN);
	drive();
}

static void test_live(void **state)
{
	char *out = capture(live);
	const char *p;

	/* drawn, then erased before the event, which is followed by the status again */
	p = strstr(out, "\033[7m FAULT 21.0 / 58 s | in force: flap (node-b rail0) ");
	assert_non_null(p);
	p = strstr(p, "\r\033[K  +21.0s node-b link rail0 down\n");
	assert_non_null(p);
	p = strstr(p, "\r\033[K\033[7m FAULT 21.0");
	assert_non_null(p);
	/* a log line erases it too and brings it back */
	p = strstr(p, "\r\033[Krdmachaos: warning: a warning\n");
	assert_non_null(p);
	p = strstr(p, "\033[7m FAULT");
	assert_non_null(p);
	p = strstr(p, "\033[7m recovery 30.0 / 58 s");
	assert_non_null(p);
	/* done: erased, and what follows is a plain line with no status after it */
	p = strstr(p, "\r\033[Kafter the timeline\n");
	assert_non_null(p);
	assert_string_equal(p + strlen("\r\033[Kafter the timeline\n"), "");
	free(out);
}

static void test_plain(void **state)
{
	char *out = capture(plain);

	assert_null(strchr(out, '\033'));
	assert_null(strchr(out, '\r'));
	assert_null(strstr(out, "in force"));
	assert_string_equal(out, "  +21.0s node-b link rail0 down\n"
				 "rdmachaos: warning: a warning\n"
				 "after the timeline\n");
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_live),
	    cmocka_unit_test(test_plain),
	};

	rc_log_init("rdmachaos", RC_LOG_INFO);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
