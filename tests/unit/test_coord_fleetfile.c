// SPDX-License-Identifier: MIT
/*
 * The fleet file: a good one loads whole (names, agents, labels, rails in order), and each
 * refusal names the file, line, column and key with the sentence an operator will read. Bad
 * cases are one-line edits of BASE, so the line numbers below are BASE's.
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

#include "coordinator/fleetfile.h"

static const char BASE[] = "# a fleet\n"					/* 1 */
			   "nodes:\n"						/* 2 */
			   "  - name: gpu001\n"					/* 3 */
			   "    agent: 10.0.0.1:7707\n"				/* 4 */
			   "    labels: {rack: r12, switch: leaf3}\n"		/* 5 */
			   "    rails: [ens1f0np0, ens1f1np1]\n"		/* 6 */
			   "  - name: gpu002\n"					/* 7 */
			   "    agent: '[fd00::2]:7707'\n"			/* 8 */
			   "    labels: {rack: 12, topology.k8s.io/zone: z1}\n" /* 9 */
			   "  - name: gpu003\n"					/* 10 */
			   "    agent: gpu003.mgmt:7707\n";			/* 11 */

static char *edit(const char *from, const char *to)
{
	const char *at = strstr(BASE, from);
	size_t head;
	char *s;

	assert_non_null(at);
	head = (size_t)(at - BASE);
	s = malloc(strlen(BASE) - strlen(from) + strlen(to) + 1);
	assert_non_null(s);
	memcpy(s, BASE, head);
	strcpy(s + head, to);
	strcat(s, at + strlen(from));
	return s;
}

static void test_base_loads(void **state)
{
	struct fleetfile ff;
	char err[512] = "";

	(void)state;
	assert_int_equal(ff_load_text("f.yaml", BASE, strlen(BASE), &ff, NULL, err, sizeof(err)),
			 0);
	assert_int_equal(ff.nr_nodes, 3);
	assert_string_equal(ff.nodes[0].name, "gpu001");
	assert_string_equal(ff.nodes[0].agent, "10.0.0.1:7707");
	assert_string_equal(json_string_value(json_object_get(ff.nodes[0].labels, "rack")), "r12");
	assert_string_equal(json_string_value(json_object_get(ff.nodes[0].labels, "switch")),
			    "leaf3");
	assert_int_equal(ff.nodes[0].nr_rails, 2);
	assert_string_equal(ff.nodes[0].rails[0], "ens1f0np0");
	assert_string_equal(ff.nodes[0].rails[1], "ens1f1np1");
	assert_string_equal(ff.nodes[1].agent, "[fd00::2]:7707");
	/* a number is taken as its text; a key may hold '/' */
	assert_string_equal(json_string_value(json_object_get(ff.nodes[1].labels, "rack")), "12");
	assert_non_null(json_object_get(ff.nodes[1].labels, "topology.k8s.io/zone"));
	/* no labels: an empty object, never NULL; no rails: none */
	assert_int_equal(json_object_size(ff.nodes[2].labels), 0);
	assert_int_equal(ff.nodes[2].nr_rails, 0);
	ff_free(&ff);
	assert_null(ff.nodes);
}

struct bad {
	const char *from, *to, *msg;
};

static const struct bad bads[] = {
    {"  - name: gpu002\n", "  - name: gpu001\n",
     "f.yaml:7:11: nodes[1].name: \"gpu001\" is already nodes[0]; names are unique"},
    {"agent: gpu003.mgmt:7707", "agent: 10.0.0.1:7707",
     "f.yaml:11:12: nodes[2].agent: \"10.0.0.1:7707\" is already the agent of nodes[0]; one "
     "agent per node"},
    /* one agent written another way: the host's case, a port's leading zero */
    {"agent: gpu003.mgmt:7707", "agent: 10.0.0.1:07707",
     "f.yaml:11:12: nodes[2].agent: \"10.0.0.1:07707\" is already the agent of nodes[0]; one "
     "agent per node"},
    {"agent: gpu003.mgmt:7707", "agent: '[FD00::2]:7707'",
     "f.yaml:11:12: nodes[2].agent: \"[FD00::2]:7707\" is already the agent of nodes[1]; one "
     "agent per node"},
    {"agent: gpu003.mgmt:7707", "agent: gpu003.mgmt",
     "f.yaml:11:12: nodes[2].agent: \"gpu003.mgmt\" is not host:port, e.g. gpu01:7707"},
    {"agent: gpu003.mgmt:7707", "agent: gpu003.mgmt:70000",
     "f.yaml:11:12: nodes[2].agent: \"gpu003.mgmt:70000\" has no valid port; use "
     "host:1..65535"},
    {"    agent: gpu003.mgmt:7707\n", "    agnet: gpu003.mgmt:7707\n",
     "f.yaml:11:5: nodes[2].agnet: unknown key; allowed here: name, agent, labels, rails"},
    {"name: gpu001", "name: gpu 001",
     "f.yaml:3:11: nodes[0].name: \"gpu 001\" may hold only letters, digits, '.', '_' and '-' "
     "(it names the node)"},
    {"switch: leaf3", "switch: leaf 3",
     "f.yaml:5:33: nodes[0].labels.switch: \"leaf 3\" may hold only letters, digits, '.', "
     "'_', '-'"},
    {"switch: leaf3", "rack: leaf3", "f.yaml:5:25: nodes[0].labels.rack: is given twice"},
    {"rails: [ens1f0np0, ens1f1np1]", "rails: [ens1f0np0, ens1f0np0]",
     "f.yaml:6:24: nodes[0].rails[1]: \"ens1f0np0\" is already rail 0"},
    {"rails: [ens1f0np0, ens1f1np1]", "rails: [ens1f0np0_and_more]",
     "f.yaml:6:13: nodes[0].rails[0]: is 18 characters long; at most 15 are allowed"},
    {"rails: [ens1f0np0, ens1f1np1]", "rails: []",
     "f.yaml:6:12: nodes[0].rails: lists 0 rails; give 1..16 netdevs, in rail order"},
    {"nodes:\n", "node:\n", "f.yaml:2:1: node: unknown key; allowed here: nodes"},
};

static void test_refusals(void **state)
{
	size_t i, wrong = 0;

	(void)state;
	for (i = 0; i < sizeof(bads) / sizeof(bads[0]); i++) {
		struct fleetfile ff;
		char err[512] = "", *text = edit(bads[i].from, bads[i].to);

		assert_int_equal(
		    ff_load_text("f.yaml", text, strlen(text), &ff, NULL, err, sizeof(err)),
		    -EINVAL);
		if (strcmp(err, bads[i].msg)) {
			print_error("case %zu:\n got: %s\nwant: %s\n", i, err, bads[i].msg);
			wrong++;
		}
		/* refused whole: nothing to use, nothing to free */
		assert_null(ff.nodes);
		assert_int_equal(ff.nr_nodes, 0);
		free(text);
	}
	assert_int_equal(wrong, 0);
}

static void test_every_error_kept(void **state)
{
	static const char text[] = "nodes:\n"
				   "  - name: a\n"
				   "  - agent: b:1\n"
				   "  - {name: c, agent: 'c:x'}\n";
	struct yd_diags diags = {0};
	struct fleetfile ff;
	char err[512] = "";

	(void)state;
	assert_int_equal(ff_load_text("f.yaml", text, strlen(text), &ff, &diags, err, sizeof(err)),
			 -EINVAL);
	assert_int_equal(diags.nr_errors, 3);
	assert_string_equal(diags.v[0].text, "f.yaml:2:5: nodes[0].agent: missing; where the "
					     "node's agent listens, host:port, e.g. gpu01:7707");
	assert_string_equal(diags.v[1].text,
			    "f.yaml:3:5: nodes[1].name: missing; every node needs a name (its "
			    "agent's --name)");
	assert_string_equal(diags.v[2].text,
			    "f.yaml:4:22: nodes[2].agent: \"c:x\" has no valid port; use "
			    "host:1..65535");
	yd_diags_free(&diags);
}

static void test_empty_and_missing(void **state)
{
	struct fleetfile ff;
	char err[512] = "";

	(void)state;
	assert_int_equal(ff_load_text("f.yaml", "# nothing\n", 10, &ff, NULL, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(
	    err, "f.yaml:1:1: holds no document; a fleet file lists its nodes under nodes:");
	assert_int_equal(ff_load_text("f.yaml", "nodes: []\n", 10, &ff, NULL, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "f.yaml:1:8: nodes: lists 0 nodes; a fleet file holds 1..10000");
	assert_int_equal(ff_load("/nonexistent/fleet.yaml", &ff, NULL, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "/nonexistent/fleet.yaml: cannot open"));
}

/* The labels as one cell of `fleet status`: whole labels only, however small the buffer. */
static void test_labels_text(void **state)
{
	json_t *l = json_pack("{s:s, s:s}", "rack", "r12", "switch", "leaf3");
	char buf[64];

	(void)state;
	assert_non_null(l);
	ff_labels_text(l, buf, sizeof(buf));
	assert_string_equal(buf, "rack=r12,switch=leaf3");
	ff_labels_text(l, buf, 22); /* exactly the text and its NUL */
	assert_string_equal(buf, "rack=r12,switch=leaf3");
	ff_labels_text(l, buf, 21); /* one short: leaf3 would be leaf, another switch's name */
	assert_string_equal(buf, "rack=r12");
	ff_labels_text(l, buf, 8); /* not even the first: r12 would be r1, another rack */
	assert_string_equal(buf, "");
	json_decref(l);
	l = json_object();
	ff_labels_text(l, buf, sizeof(buf));
	assert_string_equal(buf, "");
	json_decref(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_base_loads),	     cmocka_unit_test(test_refusals),
	    cmocka_unit_test(test_every_error_kept), cmocka_unit_test(test_empty_and_missing),
	    cmocka_unit_test(test_labels_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
