// SPDX-License-Identifier: MIT
/*
 * agents/agent_job.c: a job request's checks (each refusal names its key), the environment it
 * gets, and what becomes of its output lines: rule matches, the cut of long lines, text that is
 * not UTF-8, and the buckets that bound the events.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "agents/agent_job.h"

#define SEC 1000000000ULL

struct sink {
	json_t *events;
};

static void sink_emit(void *arg, uint64_t ts_ns, json_t *fields)
{
	struct sink *s = arg;

	json_object_set_new(fields, "ts_ns", json_integer((json_int_t)ts_ns));
	json_array_append_new(s->events, fields);
}

static int parse(const char *text, struct agent_job *j, char *err, size_t errlen)
{
	json_error_t je;
	json_t *spec = json_loads(text, JSON_ALLOW_NUL, &je);
	int ret;

	assert_non_null(spec);
	ret = agent_job_parse(spec, j, err, errlen);
	json_decref(spec);
	return ret;
}

static void test_refusals_name_the_key(void **state)
{
	static const struct {
		const char *spec, *want;
	} cases[] = {
	    {"[]", "job: must be an object"},
	    {"{\"argv\": [\"/bin/true\"]}", "job.time_limit_ms: required"},
	    {"{\"argv\": [\"/bin/true\"], \"time_limit_ms\": 0}", "job.time_limit_ms"},
	    {"{\"argv\": [\"/bin/true\"], \"time_limit_ms\": 604800001}", "job.time_limit_ms"},
	    {"{\"argv\": [], \"time_limit_ms\": 1}", "job.argv: must be a list of 1.."},
	    {"{\"argv\": [\"true\"], \"time_limit_ms\": 1}",
	     "job.argv[0]: \"true\" is not an absolute"},
	    {"{\"argv\": [\"/bin/true\", 3], \"time_limit_ms\": 1}",
	     "job.argv[1]: must be a string"},
	    {"{\"argv\": [\"/bin/true\", \"a\\u0000b\"], \"time_limit_ms\": 1}", "job.argv[1]"},
	    {"{\"argv\": [\"/bin/true\", \"a\\nb\"], \"time_limit_ms\": 1}", "job.argv[1]"},
	    {"{\"argv\": [\"/bin/true\"], \"time_limit_ms\": 1, \"nope\": 1}",
	     "job: unknown key \"nope\""},
	    {"{\"argv\": [\"/bin/true\"], \"time_limit_ms\": 1, \"cwd\": \"tmp\"}", "job.cwd"},
	    {"{\"argv\": [\"/bin/true\"], \"time_limit_ms\": 1, \"env\": {\"1X\": \"a\"}}",
	     "job.env: \"1X\" is not a variable name"},
	    {"{\"argv\": [\"/bin/true\"], \"time_limit_ms\": 1, \"env\": {\"LD_PRELOAD\": \"x\"}}",
	     "job.env.LD_PRELOAD: refused"},
	    {"{\"argv\": [\"/bin/true\"], \"time_limit_ms\": 1, \"env\": {\"A\": 1}}",
	     "job.env.A: must be a string"},
	    {"{\"argv\": [\"/bin/true\"], \"time_limit_ms\": 1, \"rules\": [1]}",
	     "job.rules[0]: must be a mapping"},
	    {"{\"argv\": [\"/bin/true\"], \"time_limit_ms\": 1, \"rules\": [{\"name\": \"a\", "
	     "\"regex\": \"(\", \"kind\": \"error\"}]}",
	     "job.rules[0].regex: \"(\" is not a POSIX extended regular expression"},
	    {"{\"argv\": [\"/bin/true\"], \"time_limit_ms\": 1, \"rules\": [{\"name\": \"a\", "
	     "\"regex\": \"x\", \"kind\": \"sample\"}]}",
	     "job.rules[0].regex: \"x\" has 0 parenthesised part(s), group 1 names none"},
	    {"{\"argv\": [\"/bin/true\"], \"time_limit_ms\": 1, \"rules\": [{\"name\": \"a\", "
	     "\"regex\": \"(x)\", \"kind\": \"plot\"}]}",
	     "job.rules[0].kind: must be \"sample\""},
	    {"{\"argv\": [\"/bin/true\"], \"time_limit_ms\": 1, \"rules\": [{\"name\": \"a b\", "
	     "\"regex\": \"(x)\", \"kind\": \"sample\"}]}",
	     "job.rules[0].name: \"a b\" may hold only"},
	    {"{\"argv\": [\"/bin/true\"], \"time_limit_ms\": 1, \"rules\": [{\"name\": \"a\", "
	     "\"regex\": \"x\", \"kind\": \"error\", \"group\": 1}]}",
	     "job.rules[0].group: only a sample rule has a value"},
	    {"{\"argv\": [\"/bin/true\"], \"time_limit_ms\": 1, \"rules\": [{\"name\": \"a\", "
	     "\"regex\": \"x\", \"kind\": \"error\"}, {\"name\": \"a\", \"regex\": \"y\", "
	     "\"kind\": \"error\"}]}",
	     "job.rules[1].name: \"a\" is rules[0]'s name already"},
	    {"{\"argv\": [\"/bin/true\"], \"time_limit_ms\": 1, \"rules\": [{\"name\": \"a\", "
	     "\"regex\": \"x\", \"kind\": \"error\", \"colour\": 1}]}",
	     "job.rules[0]: unknown key \"colour\""},
	};
	struct agent_job j;
	char err[512];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		err[0] = '\0';
		assert_int_equal(parse(cases[i].spec, &j, err, sizeof(err)), -EINVAL);
		if (!strstr(err, cases[i].want))
			fail_msg("case %zu: \"%s\" lacks \"%s\"", i, err, cases[i].want);
		assert_null(j.argv); /* freed on error */
	}
}

static void test_environ_replaces_and_adds(void **state)
{
	char b0[] = "PATH=/bin", b1[] = "A=1", b2[] = "AB=2", b3[] = "NOEQ";
	char *base[] = {b0, b1, b2, b3, NULL};
	struct agent_job j;
	char err[256], **env;

	assert_int_equal(parse("{\"argv\": [\"/bin/true\", \"x y\", \"\"], \"time_limit_ms\": 5, "
			       "\"cwd\": \"/tmp\", \"env\": {\"A\": \"new\", \"C\": \"\"}}",
			       &j, err, sizeof(err)),
			 0);
	assert_string_equal(j.argv[1], "x y");
	assert_string_equal(j.argv[2], ""); /* an empty argument is an argument */
	assert_null(j.argv[3]);
	assert_string_equal(j.cwd, "/tmp");
	assert_int_equal(j.time_limit_ms, 5);
	env = agent_job_environ(&j, base);
	assert_non_null(env);
	assert_string_equal(env[0], "PATH=/bin");
	assert_string_equal(env[1], "AB=2"); /* A= replaced, AB= is another name */
	assert_string_equal(env[2], "NOEQ");
	assert_string_equal(env[3], "A=new");
	assert_string_equal(env[4], "C=");
	assert_null(env[5]);
	free(env);
	agent_job_free(&j);
}

static json_t *run_lines(struct agent_job *j, const char *const *lines, size_t n, uint64_t t0,
			 uint64_t step_ns)
{
	struct sink s = {json_array()};
	size_t i;

	for (i = 0; i < n; i++)
		agent_job_line(j, "stdout", lines[i], t0 + i * step_ns, sink_emit, &s);
	return s.events;
}

static void test_rules_give_samples_and_errors(void **state)
{
	static const char *const lines[] = {
	    " 65536      1000           8.52               8.51            0.000136",
	    "bw abc MB/s", /* matches the shape, holds no number: no sample */
	    "",		   /* empty: nothing at all */
	    "Completion with error at client: IBV_WC_RETRY_EXC_ERR",
	};
	struct agent_job j;
	char err[256];
	json_t *ev, *e;

	assert_int_equal(
	    parse("{\"argv\": [\"/usr/bin/ib_write_bw\"], \"time_limit_ms\": 60000, \"rules\": ["
		  "{\"name\": \"bw\", \"regex\": \"^ *65536 +[0-9]+ +[0-9.]+ +([0-9.]+)\", "
		  "\"kind\": \"sample\", \"unit\": \"MB/s\"},"
		  "{\"name\": \"word\", \"regex\": \"bw ([a-z0-9]+) MB\", \"kind\": \"sample\"},"
		  "{\"name\": \"wc\", \"regex\": \"IBV_WC_[A-Z_]+\", \"kind\": \"error\"}]}",
		  &j, err, sizeof(err)),
	    0);
	ev = run_lines(&j, lines, 4, SEC, 1000);
	/* sample, line; line; error, line */
	assert_int_equal(json_array_size(ev), 5);
	e = json_array_get(ev, 0);
	assert_string_equal(json_string_value(json_object_get(e, "type")), "job_sample");
	assert_string_equal(json_string_value(json_object_get(e, "name")), "bw");
	assert_true(json_real_value(json_object_get(e, "value")) == 8.51);
	assert_string_equal(json_string_value(json_object_get(e, "unit")), "MB/s");
	assert_string_equal(json_string_value(json_object_get(json_array_get(ev, 1), "type")),
			    "line");
	assert_string_equal(json_string_value(json_object_get(json_array_get(ev, 2), "text")),
			    "bw abc MB/s");
	e = json_array_get(ev, 3);
	assert_string_equal(json_string_value(json_object_get(e, "type")), "job_error");
	assert_string_equal(json_string_value(json_object_get(e, "stream")), "stdout");
	assert_non_null(strstr(json_string_value(json_object_get(e, "text")), "RETRY_EXC"));
	assert_int_equal(j.lines, 3);
	assert_int_equal(j.matches_sent, 2);
	json_decref(ev);
	agent_job_free(&j);
}

static void test_long_and_binary_lines(void **state)
{
	char long_line[3000], bad[] = "caf\xc3\xa9 \xff\xfe end";
	const char *lines[2] = {long_line, bad};
	struct agent_job j;
	char err[256];
	const char *text;
	json_t *ev;

	memset(long_line, 'x', sizeof(long_line) - 1);
	long_line[sizeof(long_line) - 1] = '\0';
	long_line[AGENT_JOB_TEXT_MAX - 1] = '\xc3'; /* a 2-byte character across the cut */
	long_line[AGENT_JOB_TEXT_MAX] = '\xa9';
	assert_int_equal(
	    parse("{\"argv\": [\"/bin/true\"], \"time_limit_ms\": 1}", &j, err, sizeof(err)), 0);
	ev = run_lines(&j, lines, 2, SEC, 1000);
	assert_int_equal(json_array_size(ev), 2);
	text = json_string_value(json_object_get(json_array_get(ev, 0), "text"));
	assert_int_equal(strlen(text), AGENT_JOB_TEXT_MAX - 1); /* cut before the character */
	assert_true(json_is_true(json_object_get(json_array_get(ev, 0), "truncated")));
	text = json_string_value(json_object_get(json_array_get(ev, 1), "text"));
	assert_string_equal(text, "caf?? ?? end"); /* not UTF-8: ASCII and '?' */
	assert_null(json_object_get(json_array_get(ev, 1), "truncated"));
	json_decref(ev);
	agent_job_free(&j);
}

static void test_buckets_bound_the_events(void **state)
{
	struct agent_job j;
	struct sink s;
	char err[256];
	json_t *stats;
	int i;

	assert_int_equal(
	    parse("{\"argv\": [\"/bin/true\"], \"time_limit_ms\": 1, \"rules\": "
		  "[{\"name\": \"n\", \"regex\": \"([0-9]+)\", \"kind\": \"sample\"}]}",
		  &j, err, sizeof(err)),
	    0);
	s.events = json_array();
	/* 5000 lines in the same instant: the bursts, no more */
	for (i = 0; i < 5000; i++)
		agent_job_line(&j, "stderr", "tick 7", SEC, sink_emit, &s);
	assert_int_equal(j.lines, 5000);
	assert_int_equal(j.lines_sent, AGENT_JOB_LINES_BURST);
	assert_int_equal(j.lines_dropped, 5000 - AGENT_JOB_LINES_BURST);
	assert_int_equal(j.matches_sent, AGENT_JOB_MATCHES_BURST);
	assert_int_equal(j.matches_dropped, 5000 - AGENT_JOB_MATCHES_BURST);
	/* one second later: refilled at the rates */
	for (i = 0; i < 5000; i++)
		agent_job_line(&j, "stderr", "tick 7", 2 * SEC, sink_emit, &s);
	assert_int_equal(j.lines_sent, AGENT_JOB_LINES_BURST + AGENT_JOB_LINES_PER_S);
	assert_int_equal(j.matches_sent, AGENT_JOB_MATCHES_BURST + AGENT_JOB_MATCHES_PER_S);
	assert_int_equal(json_array_size(s.events), j.lines_sent + j.matches_sent);
	stats = agent_job_stats(&j);
	assert_int_equal(json_integer_value(json_object_get(stats, "lines")), 10000);
	assert_int_equal(json_integer_value(json_object_get(stats, "lines_dropped")),
			 10000 - AGENT_JOB_LINES_BURST - AGENT_JOB_LINES_PER_S);
	json_decref(stats);
	json_decref(s.events);
	agent_job_free(&j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_refusals_name_the_key),
	    cmocka_unit_test(test_environ_replaces_and_adds),
	    cmocka_unit_test(test_rules_give_samples_and_errors),
	    cmocka_unit_test(test_long_and_binary_lines),
	    cmocka_unit_test(test_buckets_bound_the_events),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
