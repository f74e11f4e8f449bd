// SPDX-License-Identifier: MIT
/*
 * Picking a drill's nodes by label (select:, coordinator/select.c): what a seed picks is
 * replayable and differs between seeds, names never share a node, a fault on a name that
 * picked several runs once per node, a place that needs one node refuses several; a pick that
 * cannot be made, copies past the faults a drill holds and a bad select: are refused with the
 * file, line and key, and the blast radius counts against the fleet's size.
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
#include "coordinator/plan.h"
#include "coordinator/scenario.h"
#include "coordinator/select.h"

/* 12 nodes in 3 racks of 4; gpu00 and gpu01 also say spare: "yes" */
static void fleet(struct fleetfile *ff)
{
	char text[4096], err[256];
	size_t off = 0;
	int i;

	off += (size_t)snprintf(text + off, sizeof(text) - off, "nodes:\n");
	for (i = 0; i < 12; i++)
		off += (size_t)snprintf(text + off, sizeof(text) - off,
					"  - name: gpu%02d\n    agent: 10.0.0.%d:7707\n"
					"    labels: {rack: r%d%s}\n",
					i, i + 1, i / 4 + 1, i < 2 ? ", spare: \"yes\"" : "");
	assert_int_equal(ff_load_text("fleet.yaml", text, off, ff, NULL, err, sizeof(err)), 0);
}

static const char DRILL[] =
    "name: by-label\n"				  /* 1 */
    "select:\n"					  /* 2 */
    "  victims: {labels: {rack: r2}, count: 2}\n" /* 3 */
    "  peer: {labels: {rack: r2}}\n"		  /* 4 */
    "  server: {labels: {rack: r3}}\n"		  /* 5 */
    "workload: {kind: rdma_stream, from: peer, to: server, rails: [0]}\n"
    "steady_state: {warmup: 1s, baseline: 5s}\n"
    "faults:\n"
    "  - {name: down, at: 10s, injector: link_down, duration: 5s,\n"
    "     target: {node: victims, rail: 0}}\n"
    "expect: {detection: {within: 5s, signals: [port_event]}, recovery: {within: 10s}}\n";

static int load(const char *text, struct scenario *sc, char *err, size_t len)
{
	return scenario_parse("d.yaml", text, strlen(text), sc, err, len);
}

static char *edit(const char *from, const char *to)
{
	const char *at = strstr(DRILL, from);
	char *s;

	assert_non_null(at);
	s = malloc(strlen(DRILL) - strlen(from) + strlen(to) + 1);
	assert_non_null(s);
	memcpy(s, DRILL, (size_t)(at - DRILL));
	strcpy(s + (at - DRILL), to);
	strcat(s, at + strlen(from));
	return s;
}

static const char *picked(const struct scenario *sc, const char *name, size_t i)
{
	return json_string_value(json_array_get(scenario_select(sc, name)->picked, i));
}

static void test_picks_replay_and_differ(void **state)
{
	struct fleetfile ff;
	struct scenario a, b;
	char err[512] = "", seen[4][SC_NAME_LEN];
	unsigned int seed, i, differ = 0;

	(void)state;
	fleet(&ff);
	for (seed = 1; seed <= 8; seed++) {
		assert_int_equal(load(DRILL, &a, err, sizeof(err)), 0);
		assert_int_equal(load(DRILL, &b, err, sizeof(err)), 0);
		assert_int_equal(sel_bind(&a, &ff, "fleet.yaml", seed, err, sizeof(err)), 0);
		assert_int_equal(sel_bind(&b, &ff, "fleet.yaml", seed, err, sizeof(err)), 0);
		/* the same seed, the same picks; rack r2 is gpu04..gpu07; no node twice */
		for (i = 0; i < 2; i++)
			assert_string_equal(picked(&a, "victims", i), picked(&b, "victims", i));
		assert_string_equal(picked(&a, "peer", 0), picked(&b, "peer", 0));
		snprintf(seen[0], sizeof(seen[0]), "%s", picked(&a, "victims", 0));
		snprintf(seen[1], sizeof(seen[1]), "%s", picked(&a, "victims", 1));
		snprintf(seen[2], sizeof(seen[2]), "%s", picked(&a, "peer", 0));
		for (i = 0; i < 3; i++) {
			assert_true(strcmp(seen[i], "gpu04") >= 0 && strcmp(seen[i], "gpu07") <= 0);
			assert_string_not_equal(seen[i], seen[(i + 1) % 3]);
		}
		if (seed == 1)
			snprintf(seen[3], sizeof(seen[3]), "%s", seen[2]);
		else
			differ += strcmp(seen[3], seen[2]) != 0;
		/* the workload names the node; the fault became one per victim */
		assert_string_equal(a.workload.from, seen[2]);
		assert_int_equal(a.nr_faults, 2);
		for (i = 0; i < 2; i++) {
			char want[2 * SC_NAME_LEN];

			snprintf(want, sizeof(want), "down@%.*s", SC_NAME_LEN - 1, seen[i]);
			assert_string_equal(a.faults[i].name, want);
			assert_string_equal(a.faults[i].target.node, seen[i]);
		}
		/* the picked nodes joined the drill with their fleet addresses */
		assert_non_null(scenario_node(&a, seen[0]));
		assert_non_null(scenario_node(&a, seen[2]));
		assert_int_equal(a.fleet_size, 12);
		scenario_free(&a);
		scenario_free(&b);
	}
	assert_true(differ > 0); /* some seed picked another peer than seed 1 */
	ff_free(&ff);
}

static void test_share_all_and_shortage(void **state)
{
	struct fleetfile ff;
	struct scenario sc;
	char err[512] = "", *t;

	(void)state;
	fleet(&ff);
	/* 50% of the 4 of rack r2, then the rest of r2 for peer... which then has none */
	t = edit("victims: {labels: {rack: r2}, count: 2}",
		 "victims: {labels: {rack: r2}, count: all}");
	assert_int_equal(load(t, &sc, err, sizeof(err)), 0);
	assert_int_equal(sel_bind(&sc, &ff, "fleet.yaml", 1, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "d.yaml:4: select.peer: wants 1 node with rack=r2; fleet.yaml "
				    "has 4 that match, 4 of them picked already by an earlier name "
				    "(of 12 nodes)"));
	scenario_free(&sc);
	free(t);

	t = edit("count: 2}", "count: 50%}");
	assert_int_equal(load(t, &sc, err, sizeof(err)), 0);
	assert_int_equal(sel_bind(&sc, &ff, "fleet.yaml", 1, err, sizeof(err)), 0);
	assert_int_equal(json_array_size(scenario_select(&sc, "victims")->picked), 2);
	assert_int_equal(scenario_select(&sc, "victims")->matched, 4);
	scenario_free(&sc);
	free(t);

	t = edit("{rack: r2}, count: 2", "{rack: r9}, count: 2");
	assert_int_equal(load(t, &sc, err, sizeof(err)), 0);
	assert_int_equal(sel_bind(&sc, &ff, "fleet.yaml", 1, err, sizeof(err)), -EINVAL);
	assert_non_null(
	    strstr(err, "select.victims: wants 2 nodes with rack=r9; fleet.yaml has 0"));
	scenario_free(&sc);
	free(t);

	/* two labels must both match: only gpu00 and gpu01 are spares of r1 */
	t = edit("{rack: r2}, count: 2", "{rack: r1, spare: \"yes\"}, count: 3");
	assert_int_equal(load(t, &sc, err, sizeof(err)), 0);
	assert_int_equal(sel_bind(&sc, &ff, "fleet.yaml", 1, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "wants 3 nodes with rack=r1,spare=yes; fleet.yaml has 2"));
	scenario_free(&sc);
	free(t);
	ff_free(&ff);
}

static void test_one_node_places(void **state)
{
	struct fleetfile ff;
	struct scenario sc;
	char err[512] = "", *t;

	(void)state;
	fleet(&ff);
	t = edit("from: peer", "from: victims");
	assert_int_equal(load(t, &sc, err, sizeof(err)), 0);
	assert_int_equal(sel_bind(&sc, &ff, "fleet.yaml", 1, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "d.yaml:3: select.victims: picked 2 nodes, but workload.from "
				 "names it and needs one; give it count: 1");
	scenario_free(&sc);
	free(t);
	ff_free(&ff);
}

static void test_parse_errors(void **state)
{
	static const struct {
		const char *from, *to, *want;
	} cases[] = {
	    {"count: 2}", "count: 0}", "d.yaml:3:40: select.victims.count: 0 is out of range"},
	    {"count: 2}", "count: 150%}",
	     "d.yaml:3:40: select.victims.count: \"150%\" is not a "
	     "share"},
	    {"count: 2}", "count: 2, rack: r2}",
	     "d.yaml:3:43: select.victims.rack: unknown key; allowed here: labels, count"},
	    {"  peer: {labels: {rack: r2}}", "  victims: {labels: {rack: r2}}",
	     "d.yaml:4:3: select: \"victims\" is given twice"},
	    {"  peer: {labels: {rack: r2}}", "  peer: {count: 1}",
	     "d.yaml:4:9: select.peer.labels: missing; say which nodes may be picked"},
	    {"from: peer", "from: peers", "workload.from: \"peers\" is not a node of this drill"},
	    {"{labels: {rack: r2}}", "{labels: {rack: 'r 2'}}", "select.peer.labels.rack"},
	};
	struct scenario sc;
	char err[512];
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *t = edit(cases[i].from, cases[i].to);

		err[0] = '\0';
		assert_int_equal(load(t, &sc, err, sizeof(err)), -EINVAL);
		if (!strstr(err, cases[i].want))
			fail_msg("case %u: got \"%s\", want \"%s\"", i, err, cases[i].want);
		free(t);
	}
	/* a select name may not be a node's name */
	assert_int_equal(load("name: x\nlab: {nodes: 2}\nselect:\n  node-a: {labels: {}}\n"
			      "workload: {kind: rdma_stream, from: node-a, to: node-b}\n"
			      "faults: [{name: f, at: 10s, injector: link_down, duration: 1s,"
			      " target: {node: node-b, rail: 0}}]\n"
			      "expect: {detection: {within: 5s, signals: [port_event]}, recovery: "
			      "{within: 10s}}\n",
			      &sc, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "select.node-a: is already the name of a node"));
}

/* A lab drill picks among its own nodes; the blast radius counts against the fleet. */
static void test_lab_and_fleet_share(void **state)
{
	static const char lab[] =
	    "name: x\nlab: {nodes: 2, rails: 2}\nselect:\n  victim: {labels: {rack: r1}}\n"
	    "  peer: {labels: {}}\n"
	    "workload: {kind: rdma_stream, from: peer, to: victim, rails: [0, 1]}\n"
	    "steady_state: {warmup: 1s, baseline: 5s}\n"
	    "faults: [{name: f, at: 10s, injector: link_down, duration: 1s,"
	    " target: {node: victim, rail: 0}}]\n"
	    "expect: {detection: {within: 5s, signals: [port_event]}, recovery: {within: 10s}}\n"
	    "safety: {blast_radius: {max_fleet_share: 10%}}\n";
	struct fleetfile ff;
	struct scenario sc;
	char err[512] = "";

	(void)state;
	fleet(&ff); /* no node-a or node-b: a lab drill picks none of them */
	assert_int_equal(load(lab, &sc, err, sizeof(err)), 0);
	assert_int_equal(sel_bind(&sc, &ff, "fleet.yaml", 1, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "has 0 that match (of 2 lab nodes)"));
	scenario_free(&sc);
	ff_free(&ff);

	/* the lab's own fleet (none is up here): 1 of its 2 nodes is 50%, over 10% */
	setenv("RDMACHAOS_LAB_DIR", "/nonexistent/rdmachaos-lab", 1);
	assert_int_equal(load(lab, &sc, err, sizeof(err)), 0);
	assert_int_equal(sel_bind_from(&sc, NULL, 1, err, sizeof(err)), 0);
	assert_int_equal(sc.fleet_size, 2);
	assert_int_equal(plan_check(&sc, 1, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "max_fleet_share: 1 of 2 nodes (50%)"));
	scenario_free(&sc);
}

/* copies of faults on a multi-node name can push a later one-node fault past the limit */
static void test_too_many_copies(void **state)
{
	char text[8192], err[512] = "";
	struct fleetfile ff;
	struct scenario sc;
	size_t off;
	int i;

	(void)state;
	fleet(&ff);
	off = (size_t)snprintf(text, sizeof(text),
			       "name: many\nnodes:\n  - {name: gpu00, agent: 10.0.0.1:7707}\n"
			       "  - {name: gpu01, agent: 10.0.0.2:7707}\n"
			       "  - {name: gpu08, agent: 10.0.0.9:7707}\n"
			       "select:\n  victims: {labels: {rack: r2}, count: all}\n"
			       "workload: {kind: rdma_stream, from: gpu00, to: gpu01, rails: [0]}\n"
			       "steady_state: {warmup: 1s, baseline: 5s}\nfaults:\n");
	for (i = 0; i < 16; i++) /* 16 x 4 nodes: the 64 a drill holds */
		off +=
		    (size_t)snprintf(text + off, sizeof(text) - off,
				     "  - {name: f%d, at: %ds, injector: link_down, duration: 1s,"
				     " target: {node: victims, rail: 0}}\n",
				     i, 10 + 2 * i);
	off += (size_t)snprintf(text + off, sizeof(text) - off,
				"  - {name: last, at: 60s, injector: link_down, duration: 1s,"
				" target: {node: gpu08, rail: 0}}\n"
				"expect: {detection: {within: 5s, signals: [port_event]},"
				" recovery: {within: 10s}}\n");
	assert_int_equal(load(text, &sc, err, sizeof(err)), 0);
	assert_int_equal(sel_bind(&sc, &ff, "fleet.yaml", 1, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "faults[16]: more than the 64 faults a drill holds"));
	scenario_free(&sc);
	ff_free(&ff);
}

/*
 * A copy's name is its fault_id on the agent, 63 characters at most: cut short, the copies on
 * two nodes whose names share their first 42 characters would have had one name.
 */
static void test_copy_names(void **state)
{
	static const char long_fleet[] =
	    "nodes:\n"
	    "  - {name: compute-node-in-rack-twelve-row-c-slot-0001, agent: 10.0.0.1:7707,"
	    " labels: {rack: r1}}\n"
	    "  - {name: compute-node-in-rack-twelve-row-c-slot-0002, agent: 10.0.0.2:7707,"
	    " labels: {rack: r1}}\n"
	    "  - {name: n2345678901234567890123456789012345678901234567890123456789abc,"
	    " agent: 10.0.0.3:7707, labels: {rack: r2}}\n"
	    "  - {name: short, agent: 10.0.0.4:7707, labels: {rack: r2}}\n"
	    "  - {name: peer, agent: 10.0.0.5:7707, labels: {rack: r3}}\n"
	    "  - {name: server, agent: 10.0.0.6:7707, labels: {rack: r4}}\n";
	static const char drill[] =
	    "name: long\n"
	    "select:\n"
	    "  victims: {labels: {rack: %s}, count: all}\n"
	    "  from: {labels: {rack: r3}}\n"
	    "  to: {labels: {rack: r4}}\n"
	    "workload: {kind: rdma_stream, from: from, to: to, rails: [0]}\n"
	    "steady_state: {warmup: 1s, baseline: 5s}\n"
	    "faults:\n"
	    "  - {name: %s, at: 10s, injector: link_down, duration: 5s,\n"
	    "     target: {node: victims, rail: 0}}\n"
	    "expect: {detection: {within: 5s, signals: [port_event]}, recovery: {within: 10s}}\n";
	char text[1024], err[512] = "";
	struct fleetfile ff;
	struct scenario sc;

	(void)state;
	assert_int_equal(
	    ff_load_text("fleet.yaml", long_fleet, strlen(long_fleet), &ff, NULL, err, sizeof(err)),
	    0);
	/* 19 + 1 + 43 = 63: whole, one name a node */
	snprintf(text, sizeof(text), drill, "r1", "rail0-down-in-rack1");
	assert_int_equal(load(text, &sc, err, sizeof(err)), 0);
	assert_int_equal(sel_bind(&sc, &ff, "fleet.yaml", 1, err, sizeof(err)), 0);
	assert_int_equal(sc.nr_faults, 2);
	assert_string_not_equal(sc.faults[0].name, sc.faults[1].name);
	assert_int_equal(strlen(sc.faults[0].name), 63);
	assert_non_null(strstr(sc.faults[0].name, sc.faults[0].target.node));
	assert_non_null(strstr(sc.faults[1].name, sc.faults[1].target.node));
	scenario_free(&sc);
	/* one more character: refused, not cut (both copies would be ...-slot-000) */
	snprintf(text, sizeof(text), drill, "r1", "rail0-down-in-rack12");
	assert_int_equal(load(text, &sc, err, sizeof(err)), 0);
	assert_int_equal(sel_bind(&sc, &ff, "fleet.yaml", 1, err, sizeof(err)), -EINVAL);
	assert_true(!strncmp(err, "d.yaml:9: faults[0].name: its copy on compute-node-in-", 54));
	assert_non_null(strstr(err, ", rail0-down-in-rack12@compute-node-in-rack-twelve-row-c-slot-"
				    "000"));
	assert_non_null(strstr(err, ", is longer than the 63 characters a fault's name may have; "
				    "shorten the name to at most 19"));
	scenario_free(&sc);
	/* a node whose name is 63 characters leaves no room at all */
	snprintf(text, sizeof(text), drill, "r2", "x");
	assert_int_equal(load(text, &sc, err, sizeof(err)), 0);
	assert_int_equal(sel_bind(&sc, &ff, "fleet.yaml", 1, err, sizeof(err)), -EINVAL);
	assert_string_equal(
	    err, "d.yaml:9: faults[0].name: its copy on "
		 "n2345678901234567890123456789012345678901234567890123456789abc is named "
		 "NAME@n2345678901234567890123456789012345678901234567890123456789abc, which "
		 "leaves no room for NAME in the 63 characters a fault's name may have; give the "
		 "node a shorter name");
	scenario_free(&sc);
	ff_free(&ff);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_picks_replay_and_differ),
	    cmocka_unit_test(test_share_all_and_shortage),
	    cmocka_unit_test(test_one_node_places),
	    cmocka_unit_test(test_parse_errors),
	    cmocka_unit_test(test_lab_and_fleet_share),
	    cmocka_unit_test(test_too_many_copies),
	    cmocka_unit_test(test_copy_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
