// SPDX-License-Identifier: MIT
/*
 * A hostile request is still answered: error sentences quote the request's op
 * and argument names, and one cut inside a UTF-8 character (or holding bytes
 * that are not UTF-8) used to make json_pack() fail, so the agent sent no
 * response at all and the coordinator waited for its timeout.
 * Reproducers: tests/fuzz/regress/agent_req/.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <cmocka.h>

#include "agents/agent.h"

static struct agent a;

static int setup(void **state)
{
	struct agent_opts o = {.name = "node-h"};

	agent_init(&a, &o);
	rc_log_init("test_agent_hostile", RC_LOG_ERR);
	return 0;
}

/* The answer to text: an error with errno err, and an error sentence that starts with says. */
static void refused(const char *text, int err, const char *says)
{
	json_t *msg = json_loads(text, JSON_REJECT_DUPLICATES, NULL), *resp;
	const char *e;
	char *wire;

	assert_non_null(msg);
	resp = agent_request(&a, NULL, RC_MSG_REQUEST, msg);
	assert_non_null(resp);
	assert_true(json_is_false(json_object_get(resp, "ok")));
	assert_int_equal(json_integer_value(json_object_get(resp, "id")), 1);
	assert_int_equal(json_integer_value(json_object_get(resp, "errno")), err);
	e = json_string_value(json_object_get(resp, "error"));
	assert_non_null(e);
	if (strncmp(e, says, strlen(says)))
		fail_msg("error \"%s\", want it to start with \"%s\"", e, says);
	/* It goes on the wire and reads back. */
	wire = json_dumps(resp, JSON_COMPACT);
	assert_non_null(wire);
	json_decref(resp);
	resp = json_loads(wire, 0, NULL);
	assert_non_null(resp);
	json_decref(resp);
	free(wire);
	json_decref(msg);
}

/* {"id":1,"op":"<prefix><n x e-acute>"} */
static char *op_request(const char *prefix, unsigned int n)
{
	char *s = malloc(64 + strlen(prefix) + 2 * n), *p;
	unsigned int i;

	assert_non_null(s);
	p = s + sprintf(s, "{\"id\":1,\"op\":\"%s", prefix);
	for (i = 0; i < n; i++)
		p += sprintf(p, "\xc3\xa9");
	strcpy(p, "\"}");
	return s;
}

static void test_unknown_op_cut_in_a_character(void **state)
{
	char *s = op_request("a", 40), want[128], *p;
	unsigned int i;

	/* "%.64s" keeps 'a', 31 characters and the first byte of the 32nd: that one is '?'. */
	p = want + sprintf(want, "request: op \"a");
	for (i = 0; i < 31; i++)
		p += sprintf(p, "\xc3\xa9");
	strcpy(p, "?\": unknown");
	refused(s, EOPNOTSUPP, want);
	free(s);
	s = op_request("", 40); /* cut on a boundary: left whole */
	refused(s, EOPNOTSUPP, "request: op \"\xc3\xa9");
	free(s);
}

static void test_unknown_argument_cut_in_a_character(void **state)
{
	size_t n = 600, off;
	char *s = malloc(64 + 2 * n);
	unsigned int i;

	assert_non_null(s);
	off = (size_t)sprintf(s, "{\"id\":1,\"op\":\"time\",\"");
	for (i = 0; i < n / 2; i++)
		off += (size_t)sprintf(s + off, "\xc3\xa9");
	strcpy(s + off, "x\":1}");
	refused(s, EINVAL, "time: \xc3\xa9");
	/* The same with a 3-byte character, cut after one or two of its bytes. */
	off = (size_t)sprintf(s, "{\"id\":1,\"op\":\"time\",\"z");
	for (i = 0; i < n / 3; i++)
		off += (size_t)sprintf(s + off, "\xe2\x82\xac");
	strcpy(s + off, "\":1}");
	refused(s, EINVAL, "time: z\xe2\x82\xac");
	off = (size_t)sprintf(s, "{\"id\":1,\"op\":\"time\",\"zz");
	for (i = 0; i < n / 3; i++)
		off += (size_t)sprintf(s + off, "\xe2\x82\xac");
	strcpy(s + off, "\":1}");
	refused(s, EINVAL, "time: zz\xe2\x82\xac");
	free(s);
}

static void test_response_error_text(void **state)
{
	json_t *r;

	/* Bytes that do not start a whole character become '?'; the answer still goes. */
	r = agent_response_error(NULL, -EINVAL, "bad \xff byte and a cut \xc3");
	assert_non_null(r);
	assert_string_equal(json_string_value(json_object_get(r, "error")),
			    "bad ? byte and a cut ?");
	assert_true(json_is_null(json_object_get(r, "id")));
	json_decref(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_unknown_op_cut_in_a_character),
	    cmocka_unit_test(test_unknown_argument_cut_in_a_character),
	    cmocka_unit_test(test_response_error_text),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
