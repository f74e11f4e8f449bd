// SPDX-License-Identifier: MIT
/*
 * The YAML file helpers shared by scenarios and the agent's policy file:
 * reading with a cap, one document, libyaml's errors with their line, and the
 * node checks' exact sentences, in the words of the kind of file.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/yamldoc.h"

static const struct yd_kind kind = {
    .max_size = 16,
    .open_err = "cannot open the test file",
    .read_err = "read error",
    .too_big = "is larger than 16 bytes",
    .one_doc = "a test file",
    .noun = "a test file",
    .depth = 2,
    .dur_eg = "1s, 2m",
};

static struct yd_doc d;
static char err[512];

static void load(const char *text)
{
	if (yd_load(&d, &kind, "y.yaml", text, strlen(text), err, sizeof(err)))
		fail_msg("%s: %s", text, err);
	assert_non_null(d.root);
}

/* Expects text to be refused by yd_load() with exactly `want`. */
static void not_loaded(const char *text, const char *want)
{
	int ret = yd_load(&d, &kind, "y.yaml", text, strlen(text), err, sizeof(err));

	if (ret != -EINVAL || strcmp(err, want))
		fail_msg("%s\ngot (%d): %s\nwant: %s", text, ret, err, want);
	yd_free(&d); /* harmless after a failure */
}

/*
 * Expects the check's return value ret to be a refusal reading exactly `want`.
 * err holds a document's first refusal: start counting again for the next.
 */
static void refused(int ret, const char *want)
{
	if (ret != -EINVAL || strcmp(err, want))
		fail_msg("got (%d): %s\nwant: %s", ret, err, want);
	d.nr_errors = 0;
}

static void test_read_file(void **state)
{
	char path[] = "/tmp/rc-yamldoc-XXXXXX", *buf;
	int fd = mkstemp(path);
	size_t len;

	assert_true(fd >= 0);
	assert_int_equal(write(fd, "a: 1\n", 5), 5);
	assert_int_equal(yd_read_file(&kind, path, &buf, &len, err, sizeof(err)), 0);
	assert_int_equal(len, 5);
	assert_string_equal(buf, "a: 1\n");
	free(buf);
	/* Exactly the cap is accepted, one byte more is not. */
	assert_int_equal(write(fd, "b: 12345678\n", 11), 11);
	assert_int_equal(yd_read_file(&kind, path, &buf, &len, err, sizeof(err)), 0);
	assert_int_equal(len, 16);
	free(buf);
	assert_int_equal(write(fd, "\n", 1), 1);
	assert_int_equal(yd_read_file(&kind, path, &buf, &len, err, sizeof(err)), -EFBIG);
	assert_null(buf);
	assert_string_equal(err + strlen(path), ": is larger than 16 bytes");
	close(fd);
	unlink(path);
	assert_int_equal(yd_read_file(&kind, path, &buf, &len, err, sizeof(err)), -ENOENT);
	assert_null(buf);
	assert_string_equal(err + strlen(path),
			    ": cannot open the test file: No such file or directory");
	assert_int_equal(yd_read_file(&kind, "/", &buf, &len, err, sizeof(err)), -EIO);
	assert_string_equal(err, "/: read error");
}

static void test_documents(void **state)
{
	/* No document at all is the caller's to judge. */
	assert_int_equal(yd_load(&d, &kind, "y.yaml", "", 0, err, sizeof(err)), 0);
	assert_null(d.root);
	yd_free(&d);
	assert_int_equal(yd_load(&d, &kind, "y.yaml", "# only\n", 7, err, sizeof(err)), 0);
	assert_null(d.root);
	yd_free(&d);
	load("---\n");
	assert_true(yd_is_null(d.root));
	yd_free(&d);
	not_loaded("a: 1\n---\nb: 2\n",
		   "y.yaml:2:1: a test file holds one YAML document; remove the second one (after "
		   "---)");
}

static void test_syntax_errors(void **state)
{
	not_loaded("a: [1\nb: 2\n", "y.yaml:2:2: YAML syntax error: did not find expected ',' or "
				    "']' (while parsing a flow sequence on line 1)");
	/* libyaml blames the tab without naming it: the hint does. */
	not_loaded("a:\n\t- 1\n", "y.yaml:2:1: YAML syntax error: found character that cannot "
				  "start any token (YAML indents with spaces, not tabs)");
	/* It names the tab itself: its context is the better hint. */
	not_loaded("a:\n  b: 1\n\tc: 2\n",
		   "y.yaml:3:1: YAML syntax error: found a tab character that violates indentation "
		   "(while scanning a plain scalar on line 2)");
	/* Bad encoding: the byte, and the line it is on. */
	not_loaded("a: 1\nb: \xff\n",
		   "y.yaml:2:4: YAML syntax error: invalid leading UTF-8 octet (byte 8)");
}

/* Expects yd_check_keys() on text's root to refuse it with exactly `want`. */
static void keys_refused(const char *text, const char *path, const char *const *allowed,
			 const char *want)
{
	load(text);
	refused(yd_check_keys(&d, d.root, path, allowed), want);
	yd_free(&d);
}

static void test_keys(void **state)
{
	static const char *const keys[] = {"alpha", "beta", NULL};
	static const char *const none[] = {NULL};

	load("alpha: 1\nbeta: 2\n");
	assert_int_equal(yd_check_keys(&d, d.root, "top", keys), 0);
	assert_string_equal(yd_scalar(yd_map_get(&d, d.root, "beta")), "2");
	assert_null(yd_map_get(&d, d.root, "gamma"));
	assert_null(yd_map_get(&d, NULL, "alpha"));
	yd_free(&d);
	keys_refused("alpha: 1\n", "top", none,
		     "y.yaml:1:1: top.alpha: unknown key; nothing is allowed here");
	keys_refused("alpha: 1\ngamma: 2\n", "", keys,
		     "y.yaml:2:1: gamma: unknown key; allowed here: alpha, beta");
	keys_refused("alpha: 1\n\nalpha: 2\n", "", keys,
		     "y.yaml:3:1: alpha: given twice (first on line 1)");
	keys_refused("[a]: 1\n", "top", keys,
		     "y.yaml:1:1: top: keys must be plain words, not a list");
}

static void test_shapes(void **state)
{
	yaml_node_t *seq;

	load("m: {a: 1}\ns: [x, y]\nv: 3\nn:\nq: \"\"\n");
	assert_int_equal(yd_want_map(&d, yd_map_get(&d, d.root, "m"), "m"), 0);
	refused(yd_want_map(&d, yd_map_get(&d, d.root, "v"), "v"),
		"y.yaml:3:4: v: must be a mapping (key: value lines or {...})");
	refused(yd_want_map(&d, yd_map_get(&d, d.root, "n"), "n"),
		"y.yaml:4:3: n: has no value; it takes a mapping (key: value lines or {...})");
	seq = yd_map_get(&d, d.root, "s");
	assert_int_equal(yd_want_seq(&d, seq, "s"), 0);
	assert_int_equal(yd_seq_len(seq), 2);
	assert_string_equal(yd_scalar(yd_seq_item(&d, seq, 1)), "y");
	refused(yd_want_seq(&d, yd_map_get(&d, d.root, "m"), "m"),
		"y.yaml:1:4: m: must be a list ([a, b] or \"- \" lines)");
	refused(yd_want_seq(&d, yd_map_get(&d, d.root, "n"), "n"),
		"y.yaml:4:3: n: has no value; it takes a list ([a, b] or \"- \" lines)");
	refused(yd_want_scalar(&d, seq, "s"), "y.yaml:2:4: s: must be a single value, not a list");
	refused(yd_want_scalar(&d, yd_map_get(&d, d.root, "n"), "n"),
		"y.yaml:4:3: n: has no value; give one or leave the key out");
	/* Quoted, "" is a value. */
	assert_int_equal(yd_want_scalar(&d, yd_map_get(&d, d.root, "q"), "q"), 0);
	yd_free(&d);
}

static void test_values(void **state)
{
	char buf[4];
	uint64_t v;

	load("a: 42\nb: -1\nc: 4x\nd: 90s\ne: 9 s\nf: \"a\\0b\"\ng: \"12\\0\"\nh: abcd\n");
	assert_int_equal(yd_get_uint(&d, yd_map_get(&d, d.root, "a"), "a", 1, 100, &v), 0);
	assert_int_equal(v, 42);
	refused(yd_get_uint(&d, yd_map_get(&d, d.root, "a"), "a", 1, 10, &v),
		"y.yaml:1:4: a: 42 is out of range; use 1..10");
	refused(yd_get_uint(&d, yd_map_get(&d, d.root, "b"), "b", 0, 10, &v),
		"y.yaml:2:4: b: \"-1\" is not a whole number; use 0..10");
	refused(yd_get_uint(&d, yd_map_get(&d, d.root, "c"), "c", 0, 10, &v),
		"y.yaml:3:4: c: \"4x\" is not a whole number; use 0..10");
	assert_int_equal(yd_get_duration(&d, yd_map_get(&d, d.root, "d"), "d", &v), 0);
	assert_int_equal(v, 90000);
	refused(
	    yd_get_duration(&d, yd_map_get(&d, d.root, "e"), "e", &v),
	    "y.yaml:5:4: e: \"9 s\" is not a duration; write a number and a unit with no space, "
	    "e.g. 1s, 2m (a plain number is seconds)");
	/* A "\0" escape would cut the text short: "12\0" must not read as 12. */
	refused(yd_get_uint(&d, yd_map_get(&d, d.root, "g"), "g", 0, 100, &v),
		"y.yaml:7:4: g: holds a NUL character");
	refused(yd_get_text(&d, yd_map_get(&d, d.root, "f"), "f", buf, sizeof(buf)),
		"y.yaml:6:4: f: holds a NUL character");
	refused(yd_get_text(&d, yd_map_get(&d, d.root, "h"), "h", buf, sizeof(buf)),
		"y.yaml:8:4: h: is 4 characters long; at most 3 are allowed");
	assert_int_equal(yd_get_text(&d, yd_map_get(&d, d.root, "a"), "a", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "42");
	yd_free(&d);
}

static void test_paths(void **state)
{
	char path[YD_PATH_LEN], key[200];

	yd_join(path, "", "a");
	assert_string_equal(path, "a");
	yd_join(path, "a", "b");
	assert_string_equal(path, "a.b");
	yd_join_idx(path, "a.b", 3);
	assert_string_equal(path, "a.b[3]");
	memset(key, 'k', sizeof(key) - 1);
	key[sizeof(key) - 1] = '\0';
	yd_join(path, "a", key);
	assert_int_equal(strlen(path), YD_PATH_LEN - 1);
	assert_string_equal(path + YD_PATH_LEN - 4, "...");
	/* A message that does not fit is cut, not overrun. */
	load("a: 1\n");
	d.errlen = 8;
	refused(yd_fail(&d, d.root, "a.b", "%s", "long"), "y.yaml:");
	yd_free(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_read_file),	  cmocka_unit_test(test_documents),
	    cmocka_unit_test(test_syntax_errors), cmocka_unit_test(test_keys),
	    cmocka_unit_test(test_shapes),	  cmocka_unit_test(test_values),
	    cmocka_unit_test(test_paths),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
