// SPDX-License-Identifier: MIT
/* rdmachaos-stream's JSON lines: one object per line, type/ts_ns/role first, interval fields. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <jansson.h>

#include "workloads/stream_out.h"

static char *buf;
static size_t len;
static FILE *mem;

static int setup(void **state)
{
	mem = open_memstream(&buf, &len);
	ws_out_init(mem, "client");
	return mem ? 0 : -1;
}

static int teardown(void **state)
{
	fclose(mem);
	free(buf);
	ws_out_init(stdout, "client");
	return 0;
}

/* The nth line (from 0) of what was written, parsed. */
static json_t *line(int n)
{
	char *p = buf, *nl;
	json_error_t e;
	json_t *j;

	while (n-- > 0) {
		p = strchr(p, '\n');
		assert_non_null(p);
		p++;
	}
	nl = strchr(p, '\n');
	assert_non_null(nl);
	j = json_loadb(p, (size_t)(nl - p), 0, &e);
	if (!j)
		fail_msg("not JSON: %.*s: %s", (int)(nl - p), p, e.text);
	return j;
}

static void test_lines(void **state)
{
	struct ws_interval iv = {.bytes = 655360,
				 .msgs = 10,
				 .elapsed_ns = 100000000,
				 .mbps = 6.5536,
				 .mbit_s = 52.4288,
				 .have_lat = true,
				 .lat_us_p50 = 21000.4,
				 .lat_us_p99 = 30000.0};
	const char *k;
	json_t *j, *v;

	assert_int_equal(
	    ws_out("rail_down", "{s:i, s:s}", "rail", 1, "reason", "a \"quoted\"\nreason"), 0);
	assert_int_equal(ws_out_obj("interval", ws_out_interval_fields(0, &iv)), 0);
	iv.have_lat = false;
	assert_int_equal(ws_out_obj("interval", ws_out_interval_fields(-1, &iv)), 0);
	assert_int_equal(ws_out("summary", NULL), 0);

	j = line(0);
	/* Key order is part of the contract for readers that grep. */
	k = json_object_iter_key(json_object_iter(j));
	assert_string_equal(k, "type");
	assert_string_equal(json_string_value(json_object_get(j, "type")), "rail_down");
	assert_string_equal(json_string_value(json_object_get(j, "role")), "client");
	assert_true(json_integer_value(json_object_get(j, "ts_ns")) > 0);
	assert_string_equal(json_string_value(json_object_get(j, "reason")),
			    "a \"quoted\"\nreason");
	json_decref(j);

	j = line(1);
	assert_int_equal(json_integer_value(json_object_get(j, "rail")), 0);
	assert_int_equal(json_integer_value(json_object_get(j, "bytes")), 655360);
	assert_int_equal(json_integer_value(json_object_get(j, "msgs")), 10);
	assert_true(json_real_value(json_object_get(j, "mbps")) == 6.554);
	assert_true(json_real_value(json_object_get(j, "mbit_s")) == 52.429);
	assert_true(json_real_value(json_object_get(j, "lat_us_p50")) == 21000.4);
	assert_true(json_number_value(json_object_get(j, "interval_ms")) == 100);
	json_decref(j);

	j = line(2);
	v = json_object_get(j, "rail");
	assert_true(json_is_null(v));
	assert_true(json_is_null(json_object_get(j, "lat_us_p99")));
	json_decref(j);

	j = line(3);
	assert_string_equal(json_string_value(json_object_get(j, "type")), "summary");
	json_decref(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_lines, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
