// SPDX-License-Identifier: MIT
/* validate() of link_down and port_flap: what they accept and the sentence for what they refuse. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <errno.h>
#include <cmocka.h>

#include <netlink/errno.h>

#include "injectors/inj_util.h"
#include "injectors/injector.h"

/* Runs inj's validate on JSON text; returns its result, the sentence in err. */
static int check(const struct injector *inj, const char *text, char *err, size_t errlen)
{
	json_t *params = json_loads(text, JSON_DECODE_ANY, NULL);
	int ret;

	assert_non_null(params);
	err[0] = '\0';
	ret = inj->validate(params, err, errlen);
	json_decref(params);
	if (ret)
		assert_true(err[0] != '\0'); /* every refusal says why */
	return ret;
}

static void test_registry(void **state)
{
	assert_ptr_equal(injector_find("link_down"), &inj_link_down);
	assert_ptr_equal(injector_find("port_flap"), &inj_port_flap);
	assert_null(injector_find("nope"));
}

static void test_link_down_params(void **state)
{
	char err[256];

	assert_int_equal(check(&inj_link_down, "{}", err, sizeof(err)), 0);
	assert_int_equal(check(&inj_link_down, "{\"count\": 1}", err, sizeof(err)), -EINVAL);
	assert_string_equal(err,
			    "link_down: params.count: unknown parameter (link_down takes none)");
	assert_int_equal(check(&inj_link_down, "[]", err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "link_down: params: must be a JSON object");
}

static void test_port_flap_accepts(void **state)
{
	char err[256];

	assert_int_equal(check(&inj_port_flap, "{\"count\": 2, \"down_ms\": 300, \"up_ms\": 300}",
			       err, sizeof(err)),
			 0);
	assert_int_equal(
	    check(&inj_port_flap,
		  "{\"count\": 1000, \"down_ms\": 50, \"up_ms\": 80, \"jitter_ms\": 49, "
		  "\"seed\": 0}",
		  err, sizeof(err)),
	    0);
}

static void test_port_flap_refuses(void **state)
{
	static const struct {
		const char *params, *says;
	} cases[] = {
	    {"{\"down_ms\": 300, \"up_ms\": 300}", "port_flap: params.count: missing"},
	    {"{\"count\": 0, \"down_ms\": 300, \"up_ms\": 300}",
	     "port_flap: params.count: must be an integer in 1..1000"},
	    {"{\"count\": 1001, \"down_ms\": 300, \"up_ms\": 300}", "params.count"},
	    {"{\"count\": \"2\", \"down_ms\": 300, \"up_ms\": 300}", "params.count"},
	    {"{\"count\": 2.0, \"down_ms\": 300, \"up_ms\": 300}", "params.count"},
	    {"{\"count\": 2, \"up_ms\": 300}", "port_flap: params.down_ms: missing"},
	    {"{\"count\": 2, \"down_ms\": 0, \"up_ms\": 300}", "params.down_ms"},
	    {"{\"count\": 2, \"down_ms\": 300}", "params.up_ms: missing"},
	    {"{\"count\": 2, \"down_ms\": 300, \"up_ms\": -1}", "params.up_ms"},
	    {"{\"count\": 2, \"down_ms\": 300, \"up_ms\": 100, \"jitter_ms\": 100}",
	     "params.jitter_ms: 100 must be less than min(down_ms, up_ms) = 100"},
	    {"{\"count\": 2, \"down_ms\": 300, \"up_ms\": 300, \"jitter_ms\": -5}",
	     "params.jitter_ms"},
	    {"{\"count\": 2, \"down_ms\": 300, \"up_ms\": 300, \"seed\": \"x\"}", "params.seed"},
	    {"{\"count\": 2, \"down_ms\": 300, \"up_ms\": 300, \"down\": 1}",
	     "port_flap: params.down: unknown parameter (port_flap takes count, down_ms, up_ms, "
	     "jitter_ms, seed)"},
	    {"7", "port_flap: params: must be a JSON object"},
	};
	char err[256];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(check(&inj_port_flap, cases[i].params, err, sizeof(err)), -EINVAL);
		if (!strstr(err, cases[i].says))
			fail_msg("params %s: got \"%s\", want \"%s\"", cases[i].params, err,
				 cases[i].says);
	}
}

/* One libnl-to-errno table for every injector (issue 14: three disagreed on NLE_OBJ_NOTFOUND). */
static void test_nl_errno(void **state)
{
	static const struct {
		int nle, err;
	} table[] = {
	    {NLE_PERM, EPERM},
	    {NLE_NODEV, ENODEV},
	    {NLE_OBJ_NOTFOUND, ENODEV},
	    {NLE_EXIST, EEXIST},
	    {NLE_NOMEM, ENOMEM},
	    {NLE_BUSY, EBUSY},
	    {NLE_INVAL, EINVAL},
	    {NLE_RANGE, EINVAL},
	    {NLE_OPNOTSUPP, EOPNOTSUPP},
	    {NLE_AGAIN, EAGAIN},
	    {NLE_PROTO_MISMATCH, EPROTONOSUPPORT},
	    {NLE_AF_NOSUPPORT, EPROTONOSUPPORT},
	    {NLE_FAILURE, EIO},
	};
	size_t i;

	for (i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		assert_int_equal(inj_nl_errno(-table[i].nle), -table[i].err);
		assert_int_equal(inj_nl_errno(table[i].nle), -table[i].err); /* either sign */
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_registry),	      cmocka_unit_test(test_link_down_params),
	    cmocka_unit_test(test_port_flap_accepts), cmocka_unit_test(test_port_flap_refuses),
	    cmocka_unit_test(test_nl_errno),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
