// SPDX-License-Identifier: MIT
/* The scenario's safety section: parsing, the plan-time blast radius, and the abort guards. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include "coordinator/guard.h"
#include "coordinator/plan.h"
#include "coordinator/scenario.h"

#define HEAD                                                                                       \
	"name: safety-test\n"                                                                      \
	"lab: {nodes: 4, rails: 2}\n"                                                              \
	"workload: {kind: rdma_stream, from: node-a, to: node-b, rails: [0, 1]}\n"                 \
	"steady_state: {warmup: 1s, baseline: 2s}\n"                                               \
	"faults:\n"                                                                                \
	"  - {name: f0, at: 5s, injector: link_down, target: {node: node-b, rail: 0}, duration: "  \
	"10s}\n"                                                                                   \
	"  - {name: f1, at: 8s, injector: link_down, target: {node: node-c, rail: 1}, duration: "  \
	"2s}\n"                                                                                    \
	"  - {name: f2, at: 20s, injector: link_down, target: {node: node-c, rail: 0}, duration: " \
	"2s}\n"                                                                                    \
	"expect:\n"                                                                                \
	"  detection: {within: 5s, signals: [port_event]}\n"                                       \
	"  recovery: {within: 10s}\n"

static int parse(const char *text, struct scenario *sc, char *err, size_t errlen)
{
	return scenario_parse("s.yaml", text, strlen(text), sc, err, errlen);
}

static void test_defaults(void **state)
{
	struct scenario sc;
	char err[512] = "";

	assert_int_equal(parse(HEAD, &sc, err, sizeof(err)), 0);
	assert_int_equal(sc.safety.lease_ms, SC_DEFAULT_LEASE_MS);
	assert_int_equal(sc.safety.max_nodes, 0);
	assert_int_equal(sc.safety.nr_guards, 0);
	assert_int_equal(plan_check(&sc, 1, err, sizeof(err)), 0);
	scenario_free(&sc);
}

static void test_parse_full(void **state)
{
	static const char text[] =
	    HEAD "safety:\n"
		 "  lease: 3s\n"
		 "  blast_radius: {max_nodes: 2, max_rails: 2, max_fleet_share: 50%}\n"
		 "  guards:\n"
		 "    - {kind: throughput, min_ratio: 0.05, for: 8s}\n"
		 "    - {kind: tcp_probe, address: \"127.0.0.1:9\", every: 500ms}\n";
	struct scenario sc;
	char err[512] = "";

	assert_int_equal(parse(text, &sc, err, sizeof(err)), 0);
	assert_int_equal(sc.safety.lease_ms, 3000);
	assert_int_equal(sc.safety.max_nodes, 2);
	assert_int_equal(sc.safety.max_rails, 2);
	assert_true(sc.safety.max_fleet_share > 0.49 && sc.safety.max_fleet_share < 0.51);
	assert_int_equal(sc.safety.nr_guards, 2);
	assert_int_equal(sc.safety.guards[0].kind, SC_GUARD_THROUGHPUT);
	assert_int_equal(sc.safety.guards[0].for_ms, 8000);
	assert_int_equal(sc.safety.guards[1].kind, SC_GUARD_TCP_PROBE);
	assert_int_equal(sc.safety.guards[1].every_ms, 500);
	assert_int_equal(sc.safety.guards[1].failures, 3);
	assert_int_equal(plan_check(&sc, 1, err, sizeof(err)), 0);
	scenario_free(&sc);
}

static void expect_error(const char *extra, const char *want)
{
	char text[4096], err[512] = "";
	struct scenario sc;

	snprintf(text, sizeof(text), "%s%s", HEAD, extra);
	assert_int_equal(parse(text, &sc, err, sizeof(err)), -EINVAL);
	if (!strstr(err, want))
		fail_msg("error \"%s\" does not contain \"%s\"", err, want);
}

static void test_parse_errors(void **state)
{
	expect_error("safety: {lease: 500ms}\n",
		     "s.yaml:12:17: safety.lease: 500ms is out of range");
	expect_error("safety: {lease: 5 sec}\n", "safety.lease: \"5 sec\" is not a duration");
	expect_error(
	    "safety: {blast: 1}\n",
	    "s.yaml:12:10: safety.blast: unknown key; allowed here: lease, blast_radius, guards");
	expect_error("safety: {blast_radius: {max_fleet_share: 150%}}\n",
		     "safety.blast_radius.max_fleet_share: \"150%\" is not a share");
	expect_error("safety: {blast_radius: {max_nodes: 0}}\n",
		     "safety.blast_radius.max_nodes: 0 is out of range");
	expect_error("safety:\n  guards:\n    - {kind: smoke}\n",
		     "s.yaml:14:14: safety.guards[0].kind: \"smoke\" is not a guard");
	expect_error("safety:\n  guards:\n    - {kind: throughput}\n",
		     "safety.guards[0].min_ratio: missing");
	expect_error("safety:\n  guards:\n    - {kind: throughput, min_ratio: 1.5}\n",
		     "safety.guards[0].min_ratio: 1.5 is out of range");
	expect_error("safety:\n  guards:\n    - {kind: tcp_probe, address: nowhere}\n",
		     "safety.guards[0].address: \"nowhere\" is not host:port");
	expect_error(
	    "safety:\n  guards:\n    - {kind: tcp_probe, address: \"h:1\", min_ratio: 1}\n",
	    "safety.guards[0].min_ratio: unknown key");
}

/* A guard's bystander flow inherits the drill's workload and gets its own port. */
static void test_parse_flow(void **state)
{
	static const char text[] =
	    HEAD "safety:\n"
		 "  guards:\n"
		 "    - {kind: tcp_probe, address: \"127.0.0.1:9\"}\n"
		 "    - kind: throughput\n"
		 "      min_ratio: 0.3\n"
		 "      flow: {from: node-c, to: node-d, rails: [1], queue_depth: 4}\n"
		 "    - {kind: throughput, min_ratio: 0.2, flow: {rails: [1]}}\n";
	struct scenario sc;
	const struct sc_guard *g;
	char err[512] = "", what[256];

	assert_int_equal(parse(text, &sc, err, sizeof(err)), 0);
	g = &sc.safety.guards[1];
	assert_true(g->has_flow);
	assert_string_equal(g->flow.from, "node-c");
	assert_string_equal(g->flow.to, "node-d");
	assert_int_equal(g->flow.nr_rails, 1);
	assert_int_equal(g->flow.rails[0], 1);
	assert_int_equal(g->flow.queue_depth, 4);
	assert_int_equal(g->flow.msg_size, sc.workload.msg_size);
	assert_int_equal(g->flow.port, sc.workload.port + 2);
	g = &sc.safety.guards[2];
	assert_true(g->has_flow);
	assert_string_equal(g->flow.from, "node-a");
	assert_string_equal(g->flow.to, "node-b");
	assert_int_equal(g->flow.port, sc.workload.port + 3);
	assert_false(sc.safety.guards[0].has_flow);
	guard_describe(g, what, sizeof(what));
	assert_string_equal(what, "throughput of the bystander flow node-a -> node-b (rail 1) "
				  "below 20% of its baseline for 5.0 s");
	scenario_free(&sc);
}

static void test_parse_flow_errors(void **state)
{
	expect_error("safety:\n  guards:\n    - {kind: throughput, min_ratio: 0.2, flow: "
		     "{rails: [0, 1]}}\n",
		     "s.yaml:14:48: safety.guards[0].flow: is the drill's own workload");
	expect_error("safety:\n  guards:\n    - {kind: throughput, min_ratio: 0.2, flow: "
		     "{rails: [1, 0]}}\n",
		     "safety.guards[0].flow: is the drill's own workload");
	expect_error("safety:\n  guards:\n    - {kind: throughput, min_ratio: 0.2, flow: "
		     "{rails: [2]}}\n",
		     "safety.guards[0].flow.rails[0]: rail 2 does not exist in a 2-rail lab");
	expect_error("safety:\n  guards:\n    - {kind: throughput, min_ratio: 0.2, flow: "
		     "{to: node-z, rails: [1]}}\n",
		     "safety.guards[0].flow.to: \"node-z\" is not a node of this drill");
	expect_error("safety:\n  guards:\n    - {kind: throughput, min_ratio: 0.2, flow: "
		     "{to: node-a, rails: [1]}}\n",
		     "safety.guards[0].flow.to: \"node-a\" is also the client");
	expect_error("safety:\n  guards:\n    - {kind: throughput, min_ratio: 0.2, flow: "
		     "{rails: [1], port: 18515}}\n",
		     "safety.guards[0].flow: uses port 18515, the drill's workload's");
	expect_error("safety:\n  guards:\n    - {kind: throughput, min_ratio: 0.2, flow: "
		     "{rails: [1], speed: 3}}\n",
		     "safety.guards[0].flow.speed: unknown key");
	expect_error("safety:\n  guards:\n    - {kind: throughput, min_ratio: 0.2, flow: "
		     "{rails: [1], port: 9000}}\n"
		     "    - {kind: throughput, min_ratio: 0.2, flow: {from: node-c, rails: [1], "
		     "port: 9000}}\n",
		     "safety.guards[1]: its flow and guard 0's both listen on node-b port 9000");
	expect_error("safety:\n  guards:\n    - {kind: tcp_probe, address: \"h:1\", flow: {}}\n",
		     "safety.guards[0].flow: unknown key");
}

static void expect_blast(const char *radius, int ret, const char *want)
{
	char text[4096], err[512] = "";
	struct scenario sc;

	snprintf(text, sizeof(text), "%ssafety: {blast_radius: %s}\n", HEAD, radius);
	assert_int_equal(parse(text, &sc, err, sizeof(err)), 0);
	assert_int_equal(plan_check(&sc, 1, err, sizeof(err)), ret);
	if (want && !strstr(err, want))
		fail_msg("error \"%s\" does not contain \"%s\"", err, want);
	scenario_free(&sc);
}

static void test_blast_radius(void **state)
{
	/* f0 (node-b rail0, 5-15 s) and f1 (node-c rail1, 8-10 s) overlap: 2 nodes, 2 rails */
	expect_blast("{max_nodes: 2}", 0, NULL);
	expect_blast("{max_nodes: 1}", -EINVAL,
		     "s.yaml:12: safety.blast_radius.max_nodes: 2 nodes would be faulted at once "
		     "at 8.0 s, the limit is 1: f0 (node-b/rail0), f1 (node-c/rail1)");
	expect_blast("{max_rails: 1}", -EINVAL, "2 rails would be faulted at once at 8.0 s");
	expect_blast("{max_rails: 2}", 0, NULL);
	/* 2 of 4 nodes is 50% */
	expect_blast("{max_fleet_share: 50%}", 0, NULL);
	expect_blast("{max_fleet_share: 0.25}", -EINVAL, "2 of 4 nodes (50%) would be faulted");
}

static void test_guard_throughput(void **state)
{
	struct sc_guard g = {.kind = SC_GUARD_THROUGHPUT, .min_ratio = 0.1, .for_ms = 2000};
	struct guard_state gs;

	guard_init(&gs, &g);
	/* not armed before the baseline: zero samples do not count */
	assert_false(guard_sample(&gs, 100, 0));
	assert_false(guard_poll(&gs, 10000));
	guard_arm_throughput(&gs, 10000, 50);
	assert_false(guard_sample(&gs, 10100, 40));
	assert_false(guard_sample(&gs, 10200, 4)); /* below 5 MB/s from here */
	assert_false(guard_sample(&gs, 11000, 0));
	assert_false(guard_sample(&gs, 11500, 6)); /* back above: the count starts again */
	assert_false(guard_sample(&gs, 12000, 1));
	assert_false(guard_sample(&gs, 13900, 1));
	assert_true(guard_sample(&gs, 14000, 1));
	assert_true(gs.tripped);
	assert_non_null(strstr(gs.why, "from 12.0 s to 14.0 s"));
}

static void test_guard_throughput_silence(void **state)
{
	struct sc_guard g = {.kind = SC_GUARD_THROUGHPUT, .min_ratio = 0.1, .for_ms = 2000};
	struct guard_state gs;

	guard_init(&gs, &g);
	guard_arm_throughput(&gs, 10000, 50);
	assert_false(guard_sample(&gs, 10100, 40));
	assert_false(guard_poll(&gs, 12000));
	/* a workload that stops reporting trips it too */
	assert_true(guard_poll(&gs, 12100));
	assert_non_null(strstr(gs.why, "no workload throughput sample"));
}

static void run_probe(struct guard_state *gs, double *now, double until)
{
	while (*now < until && !gs->tripped) {
		guard_poll(gs, *now);
		usleep(10000);
		*now += 10;
	}
}

static void test_guard_tcp_probe(void **state)
{
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof(sa);
	struct sc_guard g = {.kind = SC_GUARD_TCP_PROBE, .every_ms = 100, .failures = 3};
	struct guard_state gs;
	double now = 0;
	int lfd = socket(AF_INET, SOCK_STREAM, 0);

	assert_true(lfd >= 0);
	assert_int_equal(bind(lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(lfd, 16), 0);
	assert_int_equal(getsockname(lfd, (struct sockaddr *)&sa, &len), 0);
	snprintf(g.address, sizeof(g.address), "127.0.0.1:%u", ntohs(sa.sin_port));

	guard_init(&gs, &g);
	run_probe(&gs, &now, 1000); /* a listener: every connect succeeds */
	assert_false(gs.tripped);
	assert_true(gs.attempts >= 5);
	close(lfd); /* now refused */
	run_probe(&gs, &now, 3000);
	assert_true(gs.tripped);
	assert_non_null(strstr(gs.why, "3 TCP connect(s) in a row"));
	assert_non_null(strstr(gs.why, "refused"));
	guard_close(&gs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_defaults),
	    cmocka_unit_test(test_parse_full),
	    cmocka_unit_test(test_parse_errors),
	    cmocka_unit_test(test_parse_flow),
	    cmocka_unit_test(test_parse_flow_errors),
	    cmocka_unit_test(test_blast_radius),
	    cmocka_unit_test(test_guard_throughput),
	    cmocka_unit_test(test_guard_throughput_silence),
	    cmocka_unit_test(test_guard_tcp_probe),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
