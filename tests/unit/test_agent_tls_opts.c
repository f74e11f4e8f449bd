// SPDX-License-Identifier: MIT
/* The agent's TLS flags: credentials, --allow-peer, and plaintext only on loopback. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <cmocka.h>

#include "agents/agent.h"

#define ARGV(...) ((char **)(const char *[]){"rdmachaos-agent", __VA_ARGS__, NULL})
#define ARGC(...) ((int)(sizeof((const char *[]){"rdmachaos-agent", __VA_ARGS__}) / sizeof(char *)))
#define PARSE(o, err, ...)                                                                         \
	agent_opts_parse(ARGC(__VA_ARGS__), ARGV(__VA_ARGS__), o, err, sizeof(err))

static struct agent_opts o; /* large: not on the stack */

static void test_tls_flags(void **state)
{
	char err[512];

	assert_int_equal(PARSE(&o, err, "--name", "node-a", "--listen", "0.0.0.0:7707", "--tls-dir",
			       "/etc/rdmachaos/pki", "--allow-peer", "coordinator,ci-runner",
			       "--allow-peer", "10.0.0.5"),
			 0);
	assert_string_equal(o.tls_dir, "/etc/rdmachaos/pki");
	assert_int_equal(o.nr_allow_peer, 3);
	assert_string_equal(o.allow_peer[1], "ci-runner");
	assert_string_equal(o.allow_peer[2], "10.0.0.5");
	assert_false(o.insecure_plaintext);

	assert_int_equal(PARSE(&o, err, "--name", "a", "--listen", "0.0.0.0:1", "--tls-cert",
			       "/c.crt", "--tls-key", "/c.key", "--tls-ca", "/ca.crt"),
			 0);
	assert_string_equal(o.tls_cert, "/c.crt");
	assert_string_equal(o.tls_key, "/c.key");
	assert_string_equal(o.tls_ca, "/ca.crt");

	/* One file replaced, the others from the directory. */
	assert_int_equal(PARSE(&o, err, "--name", "a", "--listen", "0.0.0.0:1", "--tls-dir", "/p",
			       "--tls-ca", "/other-ca.crt"),
			 0);

	assert_int_equal(
	    PARSE(&o, err, "--name", "a", "--listen", "127.0.0.1:1", "--insecure-plaintext"), 0);
	assert_true(o.insecure_plaintext);
	assert_int_equal(
	    PARSE(&o, err, "--name", "a", "--listen", "127.8.9.10:1", "--insecure-plaintext"), 0);
}

static void test_tls_refusals(void **state)
{
	const struct {
		char **argv;
		int argc;
		const char *says;
	} cases[] = {
#define CASE(says, ...) {ARGV(__VA_ARGS__), ARGC(__VA_ARGS__), says}
	    CASE("--insecure-plaintext needs a loopback --listen (127.0.0.0/8), not 0.0.0.0",
		 "--name", "a", "--listen", "0.0.0.0:1", "--insecure-plaintext"),
	    CASE("--insecure-plaintext needs a loopback --listen (127.0.0.0/8), not 10.0.0.1",
		 "--name", "a", "--listen", "10.0.0.1:1", "--insecure-plaintext"),
	    CASE("--insecure-plaintext turns TLS off", "--name", "a", "--listen", "127.0.0.1:1",
		 "--insecure-plaintext", "--tls-dir", "/p"),
	    CASE("--insecure-plaintext turns TLS off", "--name", "a", "--listen", "127.0.0.1:1",
		 "--insecure-plaintext", "--allow-peer", "x"),
	    CASE("--tls-cert, --tls-key and --tls-ca go together", "--name", "a", "--listen",
		 "0.0.0.0:1", "--tls-cert", "/c.crt"),
	    CASE("--allow-peer 'a,,b': '' is not a certificate name", "--name", "a", "--listen",
		 "0.0.0.0:1", "--tls-dir", "/p", "--allow-peer", "a,,b"),
	    CASE("--allow-peer 'a b': 'a b' is not a certificate name", "--name", "a", "--listen",
		 "0.0.0.0:1", "--tls-dir", "/p", "--allow-peer", "a b"),
	    CASE("--allow-peer: more than 8 names", "--name", "a", "--listen", "0.0.0.0:1",
		 "--tls-dir", "/p", "--allow-peer", "a,b,c,d,e,f,g,h,i"),
	    CASE("--tls-dir: give a path", "--name", "a", "--listen", "0.0.0.0:1", "--tls-dir", ""),
#undef CASE
	};
	char err[512];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int ret = agent_opts_parse(cases[i].argc, cases[i].argv, &o, err, sizeof(err));

		if (ret != -EINVAL || !strstr(err, cases[i].says))
			fail_msg("case %zu: got %d '%s', want '%s'", i, ret, err, cases[i].says);
	}
}

static void test_usage_lists_tls(void **state)
{
	char buf[16384] = "";
	FILE *f = fmemopen(buf, sizeof(buf) - 1, "w");

	agent_opts_usage(f);
	fclose(f);
	assert_non_null(strstr(buf, "--tls-dir DIR"));
	assert_non_null(strstr(buf, "--allow-peer NAME"));
	assert_non_null(strstr(buf, "--insecure-plaintext"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_tls_flags),
	    cmocka_unit_test(test_tls_refusals),
	    cmocka_unit_test(test_usage_lists_tls),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
