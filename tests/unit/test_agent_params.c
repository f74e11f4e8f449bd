// SPDX-License-Identifier: MIT
/*
 * validate() of link_down and port_flap: what they accept and the sentence for what they refuse;
 * and what the coordinator reads from the registry of every injector: names, the key a refusal
 * names, the typed tables.
 */
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

/*
 * The coordinator's sentences list the injectors from the registry, in injectors.def order:
 * "a, b, ... or z" (the shipped five first, whatever is added after them).
 */
static void test_registry_names(void **state)
{
	const char *names = injector_names(), *p;
	char last[80];
	size_t n = 0, commas = 0;

	while (injectors[n])
		n++;
	assert_true(!strncmp(names, "link_down, port_flap, pfc_storm, mr_failure", 43));
	snprintf(last, sizeof(last), " or %s", injectors[n - 1]->name);
	assert_string_equal(names + strlen(names) - strlen(last), last);
	for (p = names; (p = strstr(p, ", ")); p++)
		commas++;
	assert_int_equal(commas, n - 2);
}

/*
 * Every injector's refusal names the key at fault in the form the coordinator reads back
 * (injector_refusal), so that a drill's error lands on the YAML line of that key.
 */
static void test_refusals_name_their_key(void **state)
{
	const struct injector *const *i;
	char err[INJ_ERR_LEN], key[64];
	const char *body;

	for (i = injectors; *i; i++) {
		const struct injector *inj = *i;
		unsigned int p;

		assert_int_equal(check(inj, "7", err, sizeof(err)), -EINVAL);
		injector_refusal(inj, err, key, sizeof(key), &body);
		assert_string_equal(key, "");
		assert_ptr_not_equal(body, err); /* "NAME: params: " dropped */

		assert_int_equal(check(inj, "{\"no_such_key\": 1}", err, sizeof(err)), -EINVAL);
		injector_refusal(inj, err, key, sizeof(key), &body);
		if (strcmp(key, "no_such_key"))
			fail_msg("%s: refusal of an unknown key names \"%s\": %s", inj->name, key,
				 err);
		assert_non_null(strstr(body, "unknown parameter"));

		/* a typed table: each required key, left out, is the key refused */
		for (p = 0; p < inj->nr_params; p++) {
			const struct inj_param *ip = &inj->params[p];
			char text[256] = "{";
			unsigned int q;

			assert_ptr_equal(injector_param_by_wire(inj, ip->wire), ip);
			if (!ip->required)
				continue;
			for (q = 0; q < inj->nr_params; q++)
				if (q != p && inj->params[q].required)
					snprintf(text + strlen(text), sizeof(text) - strlen(text),
						 "%s\"%s\": %llu", strlen(text) > 1 ? ", " : "",
						 inj->params[q].wire,
						 (unsigned long long)inj->params[q].max);
			strcat(text, "}");
			assert_int_equal(check(inj, text, err, sizeof(err)), -EINVAL);
			injector_refusal(inj, err, key, sizeof(key), &body);
			assert_string_equal(key, ip->wire);
			assert_string_equal(body, strstr(err, "missing"));
		}
	}
}

/* injector_refusal reads the exact front only; anything else stays whole. */
static void test_refusal_forms(void **state)
{
	static const struct {
		const char *msg, *key, *body;
	} table[] = {
	    {"port_flap: params.jitter_ms: 2s must be shorter", "jitter_ms", "2s must be shorter"},
	    {"port_flap: params: must be a JSON object", "", "must be a JSON object"},
	    {"port_flap: params.priorities[2]: twice", "priorities",
	     "port_flap: params.priorities[2]: twice"},
	    {"port_flap: params.count and params.seed: one", "count",
	     "port_flap: params.count and params.seed: one"},
	    {"port_flap: eth0: no such netdev", "", "port_flap: eth0: no such netdev"},
	    {"link_down: params.x: wrong injector", "", "link_down: params.x: wrong injector"},
	    {"port_flap: params.: empty", "", "port_flap: params.: empty"},
	};
	char key[64];
	const char *body;
	size_t i;

	for (i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		injector_refusal(&inj_port_flap, table[i].msg, key, sizeof(key), &body);
		assert_string_equal(key, table[i].key);
		assert_string_equal(body, table[i].body);
	}
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
	     "params.jitter_ms: 100ms must be shorter than both down (300ms) and up (100ms), so "
	     "no phase can shrink to nothing"},
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
	    cmocka_unit_test(test_registry),
	    cmocka_unit_test(test_registry_names),
	    cmocka_unit_test(test_refusals_name_their_key),
	    cmocka_unit_test(test_refusal_forms),
	    cmocka_unit_test(test_link_down_params),
	    cmocka_unit_test(test_port_flap_accepts),
	    cmocka_unit_test(test_port_flap_refuses),
	    cmocka_unit_test(test_nl_errno),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
