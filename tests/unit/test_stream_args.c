// SPDX-License-Identifier: MIT
/* rdmachaos-stream's command line: defaults, accepted forms and every refusal message. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <cmocka.h>

#include "workloads/stream_args.h"

#define ARGC(v) ((int)(sizeof(v) / sizeof(char *)) - 1)

static char err[512];

static int parse(int argc, char **argv, struct ws_opts *o)
{
	return ws_parse_args(argc, argv, o, err, sizeof(err));
}

#define PARSE(o, ...)                                                                              \
	({                                                                                         \
		const char *v_[] = {"rdmachaos-stream", __VA_ARGS__, NULL};                        \
		parse(ARGC(v_), (char **)v_, (o));                                                 \
	})

/* Refused with a message that names the option. */
#define REFUSED(needle, ...)                                                                       \
	do {                                                                                       \
		struct ws_opts o_;                                                                 \
		assert_int_equal(PARSE(&o_, __VA_ARGS__), -EINVAL);                                \
		if (!strstr(err, needle))                                                          \
			fail_msg("message \"%s\" does not mention \"%s\"", err, needle);           \
	} while (0)

static void test_client_defaults(void **state)
{
	struct ws_opts o;

	assert_int_equal(PARSE(&o, "client", "--connect", "192.0.2.2,192.0.2.66"), 0);
	assert_int_equal(o.role, WS_ROLE_CLIENT);
	assert_int_equal(o.nrails, 2);
	assert_string_equal(o.addr[0], "192.0.2.2");
	assert_string_equal(o.addr[1], "192.0.2.66");
	assert_int_equal(o.rail_id[0], 0);
	assert_int_equal(o.rail_id[1], 1);
	assert_int_equal(o.port, 18515);
	assert_int_equal(o.op, WS_OP_WRITE);
	assert_int_equal(o.msg_size, 65536);
	assert_int_equal(o.queue_depth, 8);
	assert_int_equal(o.ack_timeout, 14);
	assert_int_equal(o.retry_cnt, 6);
	assert_int_equal(o.interval_ms, 100);
	assert_int_equal(o.duration_ms, 0);
	assert_int_equal(o.mr_churn_ms, 0);
	assert_string_equal(o.bind[0], "");
}

static void test_client_full(void **state)
{
	struct ws_opts o;

	assert_int_equal(PARSE(&o, "client", "--connect", "a,b", "--rails", "1,0", "--op", "send",
			       "--msg-size", "4KiB", "--queue-depth", "16", "--timeout", "12",
			       "--retry-cnt", "3", "--interval-ms", "250", "--duration", "1.5s",
			       "--port", "9999", "--bind", "x,y", "-v"),
			 0);
	assert_int_equal(o.rail_id[0], 1);
	assert_int_equal(o.rail_id[1], 0);
	assert_int_equal(o.op, WS_OP_SEND);
	assert_int_equal(o.msg_size, 4096);
	assert_int_equal(o.queue_depth, 16);
	assert_int_equal(o.ack_timeout, 12);
	assert_int_equal(o.retry_cnt, 3);
	assert_int_equal(o.interval_ms, 250);
	assert_int_equal(o.duration_ms, 1500);
	assert_int_equal(o.port, 9999);
	assert_string_equal(o.bind[1], "y");
	assert_true(o.verbose);
	/* Plain seconds for --duration. */
	assert_int_equal(PARSE(&o, "client", "--connect", "a", "--duration", "30"), 0);
	assert_int_equal(o.duration_ms, 30000);
	assert_int_equal(PARSE(&o, "client", "--connect", "a", "--mr-churn", "2s"), 0);
	assert_int_equal(o.mr_churn_ms, 2000);
	assert_int_equal(PARSE(&o, "client", "--connect", "a", "--mr-churn", "0"), 0);
	assert_int_equal(o.mr_churn_ms, 0);
	assert_int_equal(PARSE(&o, "client", "--connect", "a", "--rate", "4MB/s"), 0);
	assert_int_equal(o.rate, 4000000);
	assert_int_equal(PARSE(&o, "client", "--connect", "a", "--rate", "0B/s"), 0);
	assert_int_equal(o.rate, 0);
	assert_int_equal(o.busy_poll_us, 0);
	assert_int_equal(PARSE(&o, "client", "--connect", "a", "--busy-poll", "2000"), 0);
	assert_int_equal(o.busy_poll_us, 2000);
	assert_int_equal(PARSE(&o, "client", "--connect", "a", "--busy-poll", "1000000"), 0);
	assert_int_equal(o.busy_poll_us, 1000000);
	/* retry 7 is accepted (with a warning on stderr). */
	assert_int_equal(PARSE(&o, "client", "--connect", "a", "--retry-cnt", "7"), 0);
	assert_int_equal(o.retry_cnt, 7);
}

static void test_server(void **state)
{
	struct ws_opts o;

	assert_int_equal(PARSE(&o, "server", "--listen", "192.0.2.2,192.0.2.66,192.0.2.130"), 0);
	assert_int_equal(o.role, WS_ROLE_SERVER);
	assert_int_equal(o.nrails, 3);
	assert_int_equal(o.rail_id[2], 2);
	REFUSED("client option", "server", "--listen", "a", "--timeout", "14");
	REFUSED("client option", "server", "--listen", "a", "--connect", "b");
	REFUSED("client option", "server", "--listen", "a", "--mr-churn", "1s");
	REFUSED("client option", "server", "--listen", "a", "--rate", "4MB/s");
	REFUSED("client option", "server", "--listen", "a", "--busy-poll", "100");
	REFUSED("--listen", "server");
	REFUSED("server option", "client", "--connect", "a", "--listen", "b");
	REFUSED("--connect", "client");
	/* 3 x 1024 x 64 MiB is far more than a ring may take. */
	REFUSED("ring", "server", "--listen", "a", "--queue-depth", "1024", "--msg-size", "64MiB");
}

static void test_bad_sizes(void **state)
{
	REFUSED("--msg-size", "client", "--connect", "a", "--msg-size", "10");
	REFUSED("--msg-size", "client", "--connect", "a", "--msg-size", "63");
	REFUSED("--msg-size", "client", "--connect", "a", "--msg-size", "65MiB");
	REFUSED("--msg-size", "client", "--connect", "a", "--msg-size", "64Q");
	REFUSED("--msg-size", "client", "--connect", "a", "--msg-size", "-4096");
	REFUSED("--msg-size", "client", "--connect", "a", "--msg-size", "");
	REFUSED("--queue-depth", "client", "--connect", "a", "--queue-depth", "0");
	REFUSED("--queue-depth", "client", "--connect", "a", "--queue-depth", "1025");
	REFUSED("--queue-depth", "client", "--connect", "a", "--queue-depth", "8x");
}

static void test_bad_values(void **state)
{
	REFUSED("retransmit", "client", "--connect", "a", "--timeout", "0");
	REFUSED("--timeout", "client", "--connect", "a", "--timeout", "32");
	REFUSED("--retry-cnt", "client", "--connect", "a", "--retry-cnt", "8");
	REFUSED("--retry-cnt", "client", "--connect", "a", "--retry-cnt", "-1");
	REFUSED("--port", "client", "--connect", "a", "--port", "0");
	REFUSED("--port", "client", "--connect", "a", "--port", "65536");
	REFUSED("--op", "client", "--connect", "a", "--op", "read");
	REFUSED("--interval-ms", "client", "--connect", "a", "--interval-ms", "5");
	REFUSED("--duration", "client", "--connect", "a", "--duration", "soon");
	REFUSED("--connect-timeout", "client", "--connect", "a", "--connect-timeout", "10ms");
	REFUSED("--mr-churn", "client", "--connect", "a", "--mr-churn", "50ms");
	REFUSED("--mr-churn", "client", "--connect", "a", "--mr-churn", "often");
	REFUSED("--rate", "client", "--connect", "a", "--rate", "4");
	REFUSED("--rate", "client", "--connect", "a", "--rate", "fast");
	REFUSED("--busy-poll", "client", "--connect", "a", "--busy-poll", "1000001");
	REFUSED("--busy-poll", "client", "--connect", "a", "--busy-poll", "2ms");
	REFUSED("--busy-poll", "client", "--connect", "a", "--busy-poll", "-1");
	REFUSED("needs a value", "client", "--connect");
	REFUSED("unknown option", "client", "--connect", "a", "--frobnicate");
	REFUSED("unexpected argument", "client", "--connect", "a", "extra");
	REFUSED("unknown role", "proxy");
	REFUSED("missing role", "--connect", "a");
}

static void test_bad_rails(void **state)
{
	REFUSED("one id per address", "client", "--connect", "a,b", "--rails", "0");
	REFUSED("twice", "client", "--connect", "a,b", "--rails", "1,1");
	REFUSED("rail id", "client", "--connect", "a,b", "--rails", "0,256");
	REFUSED("empty item", "client", "--connect", "a,,b");
	REFUSED("more than 8", "client", "--connect", "1,2,3,4,5,6,7,8,9");
	REFUSED("--bind", "client", "--connect", "a,b", "--bind", "x");
}

static void test_help(void **state)
{
	struct ws_opts o;
	FILE *saved = stdout;

	/* Usage goes to stdout; keep the test log readable. */
	stdout = fopen("/dev/null", "w");
	assert_non_null(stdout);
	assert_int_equal(PARSE(&o, "--help"), 1);
	assert_int_equal(PARSE(&o, "client", "--help"), 1);
	assert_int_equal(PARSE(&o, "server", "-h"), 1);
	fclose(stdout);
	stdout = saved;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_client_defaults),
	    cmocka_unit_test(test_client_full),
	    cmocka_unit_test(test_server),
	    cmocka_unit_test(test_bad_sizes),
	    cmocka_unit_test(test_bad_values),
	    cmocka_unit_test(test_bad_rails),
	    cmocka_unit_test(test_help),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
