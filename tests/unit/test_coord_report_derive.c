// SPDX-License-Identifier: MIT
/*
 * Readiness and action items (reports/report_derive.c): every readiness rule,
 * every kind of action item with its evidence, the recorded runs in
 * tests/report/golden, and reports that are empty, null or malformed.
 * Report texts here use ' for " to stay readable.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "reports/report.h"

#define RULE_READY                                                                                 \
	"The verdict is pass, cleanup was verified and no unexplained anomaly was recorded: "      \
	"ready to roll out."
#define RULE_FAIL                                                                                  \
	"The verdict is fail: a detection, isolation, recovery or integrity threshold was "        \
	"violated, so it needs work."
#define RULE_GUARD                                                                                 \
	"A safety guard stopped the drill: the system fell below a floor the scenario set, so it " \
	"needs work."
#define RULE_INCONCLUSIVE                                                                          \
	"The verdict is inconclusive: the drill gave no evidence either way (a fault not in "      \
	"effect, a signal source down or the run interrupted), so defer until a rerun gives some."
#define RULE_CLEANUP                                                                               \
	"Cleanup was not verified, so the fabric's state is unknown: defer, and restore and "      \
	"verify the nodes by hand before anything else."
#define RULE_INTEGRITY                                                                             \
	"Messages were lost or corrupted beyond what the scenario allows: that needs work, "       \
	"whatever else held."
#define RULE_ANOMALIES                                                                             \
	"Every expectation held, but unexplained anomalies were recorded: they need explaining "   \
	"before a roll-out."
#define RULE_NO_VERDICT                                                                            \
	"No verdict was recorded, so the drill proves nothing yet: defer until it runs to a "      \
	"verdict."

/* A report from text with ' for ". */
static json_t *load(const char *text)
{
	char *s = strdup(text), *p;
	json_error_t jerr;
	json_t *r;

	assert_non_null(s);
	for (p = s; *p; p++)
		if (*p == '\'')
			*p = '"';
	r = json_loads(s, JSON_DECODE_ANY, &jerr);
	if (!r)
		print_error("line %d col %d: %s\n%s\n", jerr.line, jerr.column, jerr.text, s);
	free(s);
	assert_non_null(r);
	return r;
}

static json_t *load_golden(const char *name)
{
	char path[512];
	json_error_t jerr;
	json_t *r;

	snprintf(path, sizeof(path), "%s/tests/report/golden/%s/report.json", RC_SRCDIR, name);
	r = json_load_file(path, 0, &jerr);
	if (!r)
		print_error("%s: %s\n", path, jerr.text);
	assert_non_null(r);
	return r;
}

/* report_readiness(r) is exactly {category, label, rule}, or case c fails. */
static void check_readiness(const char *c, const json_t *r, const char *category, const char *label,
			    const char *rule)
{
	json_t *rd = report_readiness(r);
	const char *got[3];
	const char *want[3] = {category, label, rule};
	static const char *const keys[3] = {"category", "label", "rule"};
	size_t k;

	if (!rd)
		fail_msg("case %s: no readiness", c);
	if (json_object_size(rd) != 3)
		fail_msg("case %s: readiness has %zu keys, want 3", c, json_object_size(rd));
	for (k = 0; k < 3; k++) {
		got[k] = json_string_value(json_object_get(rd, keys[k]));
		if (!got[k] || strcmp(got[k], want[k]))
			fail_msg("case %s: readiness %s is \"%s\", want \"%s\"", c, keys[k],
				 got[k] ? got[k] : "(not a string)", want[k]);
	}
	json_decref(rd);
}

/* Every item has exactly fault (string or null), item and because (strings). */
static void check_shape(const json_t *items)
{
	const json_t *it;
	size_t i;

	assert_true(json_is_array(items));
	json_array_foreach(items, i, it) {
		const json_t *fault = json_object_get(it, "fault");

		assert_int_equal(json_object_size(it), 3);
		assert_true(json_is_null(fault) || json_is_string(fault));
		assert_true(json_is_string(json_object_get(it, "item")));
		assert_true(json_is_string(json_object_get(it, "because")));
		assert_true(json_string_length(json_object_get(it, "item")) > 0);
	}
}

static json_t *items_of(const char *text)
{
	json_t *r = load(text), *items = report_action_items(r);

	check_shape(items);
	json_decref(r);
	return items;
}

/* A field of an action item: NULL asserts the field is JSON null. */
static void check_field(const char *c, const json_t *items, size_t i, const char *key,
			const char *want)
{
	const json_t *v = json_object_get(json_array_get(items, i), key);
	const char *got = json_string_value(v);

	if (want ? got && !strcmp(got, want) : json_is_null(v))
		return;
	fail_msg("case %s: item %zu's %s is \"%s\", want \"%s\"", c, i, key,
		 got		   ? got
		 : json_is_null(v) ? "(null)"
				   : "(not a string)",
		 want ? want : "(null)");
}

/*
 * Item i has that fault (NULL: JSON null), and that item and because where
 * they are not NULL; case c fails otherwise.
 */
static void check_item(const char *c, const json_t *items, size_t i, const char *fault,
		       const char *item, const char *because)
{
	if (!json_array_get(items, i)) {
		char *s = json_dumps(items, JSON_INDENT(1));

		print_error("no item %zu in %s\n", i, s);
		free(s);
		fail_msg("case %s: no item %zu", c, i);
	}
	check_field(c, items, i, "fault", fault);
	if (item)
		check_field(c, items, i, "item", item);
	if (because)
		check_field(c, items, i, "because", because);
}

static void check_count(const char *c, const json_t *items, size_t n)
{
	if (json_array_size(items) != n) {
		char *s = json_dumps(items, JSON_INDENT(1));

		print_error("want %zu items, got %s\n", n, s);
		free(s);
		fail_msg("case %s: %zu items, want %zu", c, json_array_size(items), n);
	}
}

/* A passing drill to start from: a fault on rail 0, thresholds, cleanup verified. */
#define BASE_HEAD                                                                                  \
	"{'verdict': 'pass', 'cleanup': {'verified': true, 'actions': []},"                        \
	" 'workload': {'qp': {'timeout': 14, 'retry_cnt': 7}, 'baseline': {'throughput_mbps': "    \
	"20.0, 'samples': 100, 'window_ms': [5000, 15000]}, 'integrity': {'sent': 10, "            \
	"'received': 10, 'lost': 0, 'duplicated': 0, 'corrupted': 0}},"                            \
	" 'expect': {'detection': {'within_ms': 1000, 'signals': ['workload_error', "              \
	"'port_event']}, 'recovery': {'within_ms': 30000, 'throughput_ratio': 0.8}, "              \
	"'integrity': {'lost': 0, 'corrupted': 0}},"

#define FAULT_HEAD                                                                                 \
	"{'id': 'rail0-down', 'injector': 'link_down', 'target': {'node': 'node-b', 'rail': 0}, "  \
	"'injected_ms': 20000.0, 'reverted_ms': 30000.0, "

/* ---- readiness ------------------------------------------------------------ */

/* A report (text, or the recorded run golden) and the readiness it must get. */
static const struct {
	const char *name;
	const char *golden; /* a run in tests/report/golden, read instead of text */
	const char *text;
	const char *category, *label, *rule;
} readiness[] = {
    {"pass", NULL, BASE_HEAD "'faults': []}", "ready", "ready to roll out", RULE_READY},
    {"empty", NULL, "{}", "defer", "defer", RULE_NO_VERDICT},
    {"bogus verdict", NULL, "{'verdict': 'bogus', 'cleanup': {'verified': true}}", "defer", "defer",
     RULE_NO_VERDICT},
    {"verdict not a string", NULL, "{'verdict': 7}", "defer", "defer", RULE_NO_VERDICT},
    /* cleanup comes before everything else, integrity included */
    {"cleanup failed, integrity violated", NULL,
     "{'verdict': 'cleanup_failed', 'cleanup': {'verified': false}, 'workload': "
     "{'integrity': {'lost': 5}}, 'expect': {'integrity': {'lost': 0}}}",
     "defer", "defer", RULE_CLEANUP},
    {"pass, cleanup unverified", NULL, "{'verdict': 'pass', 'cleanup': {'verified': false}}",
     "defer", "defer", RULE_CLEANUP},
    {"pass, no cleanup", NULL, "{'verdict': 'pass'}", "defer", "defer", RULE_CLEANUP},
    {"cleanup_failed, verified", NULL,
     "{'verdict': 'cleanup_failed', 'cleanup': {'verified': true}}", "defer", "defer",
     RULE_CLEANUP},
    /* integrity needs work even when the verdict says something else */
    {"integrity: lost", NULL,
     "{'verdict': 'pass', 'cleanup': {'verified': true}, 'workload': {'integrity': "
     "{'lost': 3, 'corrupted': 0}}, 'expect': {'integrity': {'lost': 0, "
     "'corrupted': 0}}}",
     "needs_work", "needs work", RULE_INTEGRITY},
    {"integrity: corrupted, inconclusive", NULL,
     "{'verdict': 'inconclusive', 'cleanup': {'verified': true}, 'workload': "
     "{'integrity': {'lost': 0, 'corrupted': 2}}, 'expect': {'integrity': "
     "{'lost': null, 'corrupted': 1}}}",
     "needs_work", "needs work", RULE_INTEGRITY},
    /* within the allowance, or no allowance set: not violated */
    {"integrity within the allowance", NULL,
     "{'verdict': 'pass', 'cleanup': {'verified': true}, 'workload': {'integrity': "
     "{'lost': 3, 'corrupted': 1}}, 'expect': {'integrity': {'lost': 3, "
     "'corrupted': null}}}",
     "ready", "ready to roll out", RULE_READY},
    {"guard tripped", NULL,
     "{'verdict': 'fail', 'cleanup': {'verified': true}, 'safety': {'guards': "
     "[{'tripped': false}, {'tripped': true}], 'aborted_by': 1}}",
     "needs_work", "needs work", RULE_GUARD},
    {"aborted by guard 0", NULL,
     "{'verdict': 'fail', 'cleanup': {'verified': true}, 'safety': {'aborted_by': "
     "0}}",
     "needs_work", "needs work", RULE_GUARD},
    {"fail, no guard tripped", NULL,
     "{'verdict': 'fail', 'cleanup': {'verified': true}, 'safety': {'guards': "
     "[{'tripped': false}], 'aborted_by': null}}",
     "needs_work", "needs work", RULE_FAIL},
    {"inconclusive", NULL, "{'verdict': 'inconclusive', 'cleanup': {'verified': true}}", "defer",
     "defer", RULE_INCONCLUSIVE},
    {"anomaly", NULL,
     "{'verdict': 'pass', 'cleanup': {'verified': true}, 'anomalies': [{'t_ms': 1, "
     "'node': 'node-a', 'what': 'QP went to error'}]}",
     "needs_work", "needs work", RULE_ANOMALIES},
    /* an agent's info or debug notice is not an anomaly that matters; null is none */
    {"info and debug notices", NULL,
     "{'verdict': 'pass', 'cleanup': {'verified': true}, 'anomalies': [null, "
     "{'t_ms': 1, 'node': 'node-a', 'what': "
     "'{\\'kind\\':\\'agent\\',\\'level\\':\\'info\\',\\'message\\':\\'hi\\'}'}, "
     "{'what': {'kind': 'agent', 'level': 'debug'}}]}",
     "ready", "ready to roll out", RULE_READY},
    {"agent warning", NULL,
     "{'verdict': 'pass', 'cleanup': {'verified': true}, 'anomalies': [{'what': "
     "{'kind': 'agent', 'level': 'warning', 'message': 'resyncing'}}]}",
     "needs_work", "needs work", RULE_ANOMALIES},
    /* the recorded runs */
    {"golden link-down", "link-down", NULL, "ready", "ready to roll out", RULE_READY},
    {"golden guard-trip", "guard-trip", NULL, "needs_work", "needs work", RULE_GUARD},
    {"golden impossible-recovery", "impossible-recovery", NULL, "needs_work", "needs work",
     RULE_FAIL},
    {"golden interrupted", "interrupted", NULL, "defer", "defer", RULE_INCONCLUSIVE},
};

static void test_readiness(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(readiness) / sizeof(readiness[0]); i++) {
		json_t *r = readiness[i].golden ? load_golden(readiness[i].golden)
						: load(readiness[i].text);

		check_readiness(readiness[i].name, r, readiness[i].category, readiness[i].label,
				readiness[i].rule);
		json_decref(r);
	}
}

/* ---- action items ------------------------------------------------------------ */

#define PFC_ENV                                                                                    \
	"'environment': {'nodes': [{'name': 'node-a', 'netdevs': [{'name': 'eth0'}, {'name': "     \
	"'rail0', 'rail': 0, 'pfc': {'counters': 4, 'prevention_tout_ms': 'disabled'}}, "          \
	"{'name': 'rail1', 'rail': 1, 'pfc': {'prevention_tout_ms': 'auto'}}]}, {'name': "         \
	"'node-c', 'netdevs': [{'name': 'ens1', 'rail': 0, 'pfc': {'prevention_tout_ms': "         \
	"100}}, {'name': 'ens2', 'rail': 0}]}, {'name': 'node-b', 'netdevs': [{'name': "           \
	"'rail0', 'rail': 0, 'pfc': {'prevention_tout_ms': 'auto'}}]}]},"

/*
 * A report (text, or the recorded run golden) and the action items it must
 * give: exactly count of them, each with its fault (NULL: null) and, where
 * not NULL, its item and because.
 */
struct item_case {
	const char *name;
	const char *golden; /* a run in tests/report/golden, read instead of text */
	const char *text;
	size_t count;
	struct {
		const char *fault, *item, *because;
	} items[6];
};

static const struct item_case item_cases[] = {
    /* ---- the recorded runs ---- */
    {.name = "golden link-down", .golden = "link-down", .count = 0},
    {.name = "golden impossible-recovery",
     .golden = "impossible-recovery",
     .count = 1,
     .items = {{"rail0-down",
		"shorten recovery (QP timeout and retry_cnt, the reconnect and failback path), "
		"or revisit the recovery threshold if it is unrealistic",
		"recovery 2.499 s > 1 ms: throughput stayed below 70% of the 16.5 MB/s baseline "
		"(QP timeout 16, retry_cnt 6)"}}},
    /* the guard, pinned on the fault in force; the unjudged recovery is its consequence */
    {.name = "golden guard-trip",
     .golden = "guard-trip",
     .count = 1,
     .items = {{"only-rail-down",
		"make the job ride out this fault above the guard's floor (a second rail, "
		"failover), or narrow the fault",
		"guard 0 (throughput below 10% of baseline for 3.0 s) tripped at 13.259 s: the "
		"workload stayed below 1.62 MB/s (10% of the 16.21 MB/s baseline) from 10.2 s "
		"to 13.3 s"}}},
    {.name = "golden interrupted",
     .golden = "interrupted",
     .count = 1,
     .items = {{NULL, "run the drill again to its end",
		"stopped by the operator at 21.1 s; faults reverted"}}},
    /* ---- kind by kind ---- */
    /* late, and only the job noticed: the issue's own example */
    {.name = "detection late, seen by the job",
     .text = BASE_HEAD "'faults': [" FAULT_HEAD
		       "'detection': {'ms': 4200.0, 'signal': 'workload_error', "
		       "'threshold_ms': 1000, 'ok': false}}]}",
     .count = 1,
     .items = {{"rail0-down",
		"add an alert on port state (port_event) or link state (link_event), so the "
		"fault is seen before the job fails",
		"detection 4.2 s > 1 s: the first signal was workload_error, nothing from the "
		"fabric came sooner"}}},
    /* late, on a fabric signal */
    {.name = "detection late, fabric signal",
     .text =
	 BASE_HEAD "'faults': [" FAULT_HEAD "'detection': {'ms': 1250.0, 'signal': 'port_event', "
		   "'threshold_ms': 1000, 'ok': false}}]}",
     .count = 1,
     .items = {{"rail0-down",
		"find why port_event came late (the agent's event path, the NIC's link "
		"debounce), or alert on an earlier signal",
		"detection 1.25 s > 1 s, first seen as port_event"}}},
    /* never seen */
    {.name = "detection not seen",
     .text = BASE_HEAD "'faults': [" FAULT_HEAD
		       "'detection': {'ms': null, 'signal': null, 'threshold_ms': 1000, "
		       "'ok': false, 'note': 'not seen'}}]}",
     .count = 1,
     .items = {{"rail0-down",
		"add a detection signal that sees this fault (port_event, link_event or an "
		"error counter): none of the expected ones fired",
		"detection not seen within 1 s (signals: workload_error, port_event)"}}},
    /* on time: nothing */
    {.name = "detection on time",
     .text = BASE_HEAD "'faults': [" FAULT_HEAD "'detection': {'ms': 20.0, 'signal': 'port_event', "
		       "'threshold_ms': 1000, 'ok': true}}]}",
     .count = 0},
    {.name = "isolation late, not seen",
     .text =
	 BASE_HEAD "'faults': [" FAULT_HEAD "'isolation': {'ms': 12000.0, 'signal': 'failover', "
		   "'threshold_ms': 10000, 'ok': false}},"
		   " {'id': 'rail1-down', 'target': {'node': 'node-a', 'rail': 1}, "
		   "'injected_ms': 50000, 'isolation': {'ms': null, 'threshold_ms': "
		   "10000, 'ok': false, 'note': 'not seen'}},"
		   " {'id': 'proc', 'target': {'node': 'node-a', 'workload': 'w'}, "
		   "'injected_ms': 70000, 'isolation': {'ms': null, 'threshold_ms': "
		   "10000, 'ok': false, 'note': 'not seen (the fault is not on a "
		   "workload rail)'}}]}",
     .count = 3,
     .items = {{"rail0-down",
		"check the job's failover (multi-rail / bonding): it left the faulty path too "
		"late",
		"isolation 12 s > 10 s (failover)"},
	       {"rail1-down",
		"check the job's failover (multi-rail / bonding): it never left the faulty path",
		"isolation not seen within 10 s: no rail_down or failover of rail 1"},
	       {"proc", NULL,
		"isolation not seen within 10 s: not seen (the fault is not on a workload "
		"rail)"}}},
    {.name = "recovery late, not seen",
     .text =
	 BASE_HEAD "'faults': [" FAULT_HEAD "'recovery': {'ms': 42000.0, 'signal': 'throughput', "
		   "'threshold_ms': 30000, 'ok': false}},"
		   " {'id': 'rail1-down', 'injected_ms': 50000, 'recovery': {'ms': "
		   "null, 'threshold_ms': 30000, 'ok': false, 'note': 'not recovered by "
		   "the end of the drill'}}]}",
     .count = 2,
     .items = {{"rail0-down",
		"shorten recovery (QP timeout and retry_cnt, the reconnect and failback path), "
		"or revisit the recovery threshold if it is unrealistic",
		"recovery 42 s > 30 s: throughput stayed below 80% of the 20.0 MB/s baseline "
		"(QP timeout 14, retry_cnt 7)"},
	       {"rail1-down",
		"make the job recover from this fault: throughput did not come back "
		"(reconnect, failback, retry budget)",
		"recovery not seen within 30 s: not recovered by the end of the drill; "
		"throughput stayed below 80% of the 20.0 MB/s baseline (QP timeout 14, "
		"retry_cnt 7)"}}},
    /* A measure that could not be judged, and the cases that have their own item. */
    {.name = "unjudged detection and recovery",
     .text = BASE_HEAD "'faults': [" FAULT_HEAD
		       "'recovery': {'ms': null, 'threshold_ms': 30000, 'ok': false, "
		       "'note': 'the drill ended before the window closed', "
		       "'inconclusive': true}, 'detection': {'ms': null, 'ok': false, "
		       "'note': 'the agent lost its event stream', 'inconclusive': "
		       "true}}]}",
     .count = 2,
     .items = {{"rail0-down", "fix what kept detection from being judged, then run it again",
		"detection could not be judged: the agent lost its event stream"},
	       {"rail0-down",
		"run the drill longer (a later end or a longer cooldown) so the recovery window "
		"closes",
		"recovery could not be judged: the drill ended before the window closed"}}},
    /* stopped by the operator: the stop is the item, not the window */
    {.name = "stopped by the operator",
     .text = BASE_HEAD "'reasons': ['stopped by the operator at 3.0 s; faults "
		       "reverted'], 'faults': [" FAULT_HEAD
		       "'recovery': {'ms': null, 'threshold_ms': 30000, 'ok': false, "
		       "'note': 'the drill ended before the window closed', "
		       "'inconclusive': true}}]}",
     .count = 1,
     .items = {{NULL, "run the drill again to its end",
		"stopped by the operator at 3.0 s; faults reverted"}}},
    /* not injected: one item for the fault, none for its measures */
    {.name = "not injected",
     .text = BASE_HEAD "'faults': [{'id': 'f0', 'injected_ms': null, 'error': "
		       "'agent: link_down: eth0: refused: carries the control "
		       "connection', 'detection': {'ok': false, 'note': 'not injected', "
		       "'inconclusive': true}}, {'id': 'f1'}]}",
     .count = 2,
     .items = {{"f0",
		"get the fault in effect (fix what refused it: target, permissions, injector "
		"support), then run the drill again",
		"f0 was not injected: agent: link_down: eth0: refused: carries the control "
		"connection"},
	       {"f1", NULL, "f1 was not injected (no error recorded)"}}},
    {.name = "lost and corrupted",
     .text = "{'verdict': 'fail', 'cleanup': {'verified': true}, 'workload': "
	     "{'integrity': {'sent': 1234, 'received': 1200, 'lost': 7, "
	     "'corrupted': 2}}, 'expect': {'integrity': {'lost': 0, 'corrupted': "
	     "1}}}",
     .count = 2,
     .items = {{NULL,
		"find where acknowledged messages were lost (the resend path after a failover, "
		"retry exhaustion)",
		"7 messages lost, at most 0 allowed (sent 1234, received 1200)"},
	       {NULL,
		"find the source of the corruption (memory registration, DMA, offloads) before "
		"anything else",
		"2 messages corrupted, at most 1 allowed"}}},
    /* unknown integrity when the scenario asked for it */
    {.name = "integrity unknown",
     .text = "{'verdict': 'inconclusive', 'cleanup': {'verified': true}, 'workload': "
	     "{'integrity': null}, 'expect': {'integrity': {'lost': 0}}}",
     .count = 1,
     .items = {{NULL,
		"make sure the workload's client and server summaries reach the coordinator "
		"(the workload must end cleanly)",
		"integrity unknown: the client or server summary is missing"}}},
    /* tripped outside every fault window: no fault named */
    {.name = "guard outside the fault windows",
     .text = BASE_HEAD "'verdict': 'fail', 'safety': {'guards': [{'tripped': false}, "
		       "{'description': 'tcp probe to node-c:22 failing for 2.0 s', "
		       "'tripped': true, 'tripped_ms': 45000.0, 'why': '3 probes "
		       "failed'}], 'aborted_by': 1}, 'faults': [" FAULT_HEAD
		       "'detection': {'ok': true}}]}",
     .count = 1,
     .items = {{NULL, NULL,
		"guard 1 (tcp probe to node-c:22 failing for 2.0 s) tripped at 45 s: 3 probes "
		"failed"}}},
    /* aborted by a guard the report does not list */
    {.name = "guard not listed",
     .text = "{'verdict': 'fail', 'cleanup': {'verified': true}, 'safety': "
	     "{'aborted_by': 2}}",
     .count = 1,
     .items = {{NULL, NULL, "the drill was aborted by guard 2"}}},
    {.name = "cleanup actions not verified",
     .text = "{'verdict': 'cleanup_failed', 'cleanup': {'verified': false, 'actions': "
	     "[{'node': 'node-b', 'fault_id': 'rail0-down', 'action': 'rail0: set up "
	     "(was up)', 'verified': true},"
	     " {'node': 'node-b', 'fault_id': 'rail1-down', 'action': 'rail1: set up "
	     "(was up)', 'verified': false, 'error': 'still down after 5 s'},"
	     " {'node': 'node-a', 'fault_id': 'pfc', 'action': 'qdisc 8808: removed'},"
	     " 'ip link set rail0 up', null, 7]}}",
     .count = 3,
     .items = {{"rail1-down", "revert by hand on node-b and check: rail1: set up (was up)",
		"cleanup could not verify this action: still down after 5 s"},
	       {"pfc", "revert by hand on node-a and check: qdisc 8808: removed",
		"cleanup could not verify this action"},
	       {NULL, "revert by hand and check: ip link set rail0 up",
		"cleanup was not verified"}}},
    /* nothing listed: every node by hand */
    {.name = "cleanup: nothing listed",
     .text = "{'verdict': 'cleanup_failed', 'cleanup': {'verified': false}}",
     .count = 1,
     .items = {{NULL, "check every node the drill touched by hand and restore its prior state",
		"cleanup was not verified and no unverified action was recorded"}}},
    {.name = "no cleanup recorded",
     .text = "{'verdict': 'pass'}",
     .count = 1,
     .items = {{NULL, NULL, "no cleanup was recorded"}}},
    /* What to fix to get evidence: baseline, silent agents, renewals, else the reasons. */
    {.name = "no baseline, agent silent, renewals failed",
     .text = "{'verdict': 'inconclusive', 'cleanup': {'verified': true},"
	     " 'reasons': ['node-b: hello: no answer within 3000 ms', 'baseline "
	     "throughput is 0: no samples in 5-15 s'],"
	     " 'environment': {'nodes': [{'name': 'node-a', 'agent': "
	     "'10.0.0.1:17700', 'kernel': '6.1', 'devices': []}, {'name': 'node-b', "
	     "'agent': '10.0.0.2:17700'}]},"
	     " 'workload': {'baseline': {'throughput_mbps': null, 'samples': 0, "
	     "'window_ms': [5000, 15000]}, 'integrity': {'lost': 0}},"
	     " 'safety': {'renewals': {'sent': 12, 'failed': 3}}}",
     .count = 3,
     .items = {{NULL,
		"get a baseline: make the workload move data during the warm-up and baseline "
		"window (check it runs and its rails are up)",
		"no baseline throughput: 0 samples in 5-15 s"},
	       {NULL,
		"make the agent on node-b (10.0.0.2:17700) reachable, then run the drill again",
		"no inventory from node-b: node-b: hello: no answer within 3000 ms"},
	       {NULL,
		"check the control path between the coordinator and the agents: a fault whose "
		"lease runs out is reverted early",
		"3 of 12 lease renewals failed"}}},
    /* nothing specific: each reason of the inconclusive verdict */
    {.name = "inconclusive reasons",
     .text = "{'verdict': 'inconclusive', 'cleanup': {'verified': true}, 'reasons': "
	     "['the lab did not come up', null, 'lab has no node node-c']}",
     .count = 2,
     .items = {{NULL, "fix what kept the drill from giving evidence, then run it again",
		"the lab did not come up"},
	       {NULL, NULL, "lab has no node node-c"}}},
    /* storm received, no watchdog: storm prevention on the victims */
    {.name = "pfc storm, no watchdog",
     .text = BASE_HEAD PFC_ENV " 'faults': [{'id': 'storm', 'injector': 'pfc_storm', 'target': "
			       "{'node': 'node-b', 'rail': 0}, 'injected_ms': 20000, 'detection': "
			       "{'ms': 300, 'signal': 'stall', 'threshold_ms': 3000, 'ok': true}, "
			       "'pfc': {'frames_sent': 1000, 'frames_received': 998, "
			       "'storm_detected_ms': null}}]}",
     .count = 1,
     .items = {{"storm",
		"enable the NIC's PFC storm prevention on the victim (ethtool --set-tunable "
		"IFACE pfc-prevention-tout auto) and alert on it",
		"1000 pause frames sent, 998 received, and no watchdog raised storm_detected; "
		"storm prevention disabled on node-a rail0, 100 ms on node-c ens1, not reported "
		"on node-c ens2"}}},
    /* frames nobody counted: the storm never reached its victim */
    {.name = "pfc storm never reached",
     .text = BASE_HEAD "'faults': [{'id': 'storm', 'injector': 'pfc_storm', "
		       "'injected_ms': 20000, 'pfc': {'frames_sent': 500, "
		       "'frames_received': 0, 'nic_pause_frames': 0}}]}",
     .count = 1,
     .items = {{"storm",
		"check that the storm's frames reach the peer (rail, VLAN, priority, switch), "
		"then run it again",
		"500 pause frames sent, none counted by any agent or NIC: the storm never "
		"reached its victim"}}},
    /* a watchdog saw it: nothing to do */
    {.name = "pfc storm seen by a watchdog",
     .text = BASE_HEAD "'faults': [{'id': 'storm', 'injector': 'pfc_storm', "
		       "'injected_ms': 20000, 'pfc': {'frames_sent': 500, "
		       "'frames_received': 500, 'storm_detected_ms': 120.5}}]}",
     .count = 0},
    {.name = "anomalies",
     .text = BASE_HEAD "'faults': [" FAULT_HEAD "'detection': {'ok': true}}],"
		       " 'anomalies': [{'t_ms': 61000.5, 'node': 'node-a', 'what': "
		       "'{\\'kind\\':\\'async\\',\\'event\\':\\'IBV_EVENT_QP_FATAL\\'}'},"
		       " {'t_ms': 123.0, 'node': 'node-a', 'what': 'agent: slow netlink dump'},"
		       " {'t_ms': 25000, 'node': 'node-b', 'what': {'kind': 'agent', 'level': "
		       "'warning', 'message': 'rtnetlink: notifications lost; resyncing'}},"
		       " {'t_ms': 26000, 'node': 'node-b', 'what': {'kind': 'agent', 'level': "
		       "'info', 'message': 'fault rail0-down: applied'}},"
		       " {'node': 'node-c', 'what': {'kind': 'workload', 'type': 'stall'}}, null]}",
     .count = 4,
     .items = {{NULL, "investigate the async IBV_EVENT_QP_FATAL on node-a",
		"at 61.001 s: {\"kind\":\"async\",\"event\":\"IBV_EVENT_QP_FATAL\"}"},
	       {NULL, "investigate the unexpected event on node-a",
		"at 123 ms: agent: slow netlink dump"},
	       {"rail0-down", "investigate the agent warning on node-b",
		"at 25 s: rtnetlink: notifications lost; resyncing"},
	       {NULL, "investigate the workload stall on node-c",
		"{\"kind\":\"workload\",\"type\":\"stall\"}"}}},
    /* Cleanup first, then integrity, guards, faults in order, evidence, anomalies. */
    {.name = "order",
     .text = "{'verdict': 'cleanup_failed', 'cleanup': {'verified': false},"
	     " 'anomalies': [{'t_ms': 1, 'node': 'n', 'what': 'x'}],"
	     " 'safety': {'guards': [{'tripped': true, 'tripped_ms': 5}], 'renewals': "
	     "{'sent': 1, 'failed': 1}},"
	     " 'faults': [{'id': 'f', 'injected_ms': null}],"
	     " 'workload': {'integrity': {'lost': 1}}, 'expect': {'integrity': {'lost': "
	     "0}}}",
     .count = 6,
     .items = {{NULL, NULL, "cleanup was not verified and no unverified action was recorded"},
	       {NULL, NULL, "1 messages lost, at most 0 allowed (sent ?, received ?)"},
	       {NULL, NULL, "guard 0 (no description) tripped at 5 ms: no reason recorded"},
	       {"f", NULL, "f was not injected (no error recorded)"},
	       {NULL, NULL, "1 of 1 lease renewals failed"},
	       {NULL, NULL, "at 1 ms: x"}}},
    /*
     * A repeated fault: its trials' items merged by what to do and named after
     * the fault; a phase judged on p50 or p90 gets one item from the distribution
     * (report.trials) instead of one per trial.
     */
    {.name = "trials",
     .text =
	 "{'verdict': 'fail', 'cleanup': {'verified': true},"
	 " 'expect': {'detection': {'within_ms': 1000}, 'isolation': {'within_ms': 10000, "
	 "'stat': 'p50'}, 'recovery': {'within_ms': 30000, 'stat': 'p90'}},"
	 " 'faults': [{'id': 'rail0-down#1', 'fault': 'rail0-down', 'trial': 1, 'trials': 3, "
	 "'injected_ms': 20000, 'detection': {'ms': 20, 'signal': 'port_event', "
	 "'threshold_ms': 1000, 'ok': true}, 'recovery': {'ms': 40000, 'threshold_ms': 30000, "
	 "'ok': false}},"
	 "  {'id': 'rail0-down#2', 'fault': 'rail0-down', 'trial': 2, 'trials': 3, "
	 "'injected_ms': 50000, 'detection': {'ms': 4200.0, 'signal': 'workload_error', "
	 "'threshold_ms': 1000, 'ok': false}},"
	 "  {'id': 'other', 'injected_ms': 1, 'detection': {'ms': 2000, 'signal': 'port_event', "
	 "'threshold_ms': 1000, 'ok': false}},"
	 "  {'id': 'rail0-down#3', 'fault': 'rail0-down', 'trial': 3, 'trials': 3, "
	 "'injected_ms': 80000, 'detection': {'ms': 1500, 'signal': 'workload_error', "
	 "'threshold_ms': 1000, 'ok': false}},"
	 "  {'id': 'flap#1', 'fault': 'flap', 'trial': 1, 'trials': 2, 'injected_ms': 5, "
	 "'isolation': {'ms': null, 'ok': false, 'inconclusive': true, 'note': 'x'}},"
	 "  {'id': 'flap#2', 'fault': 'flap', 'trial': 2, 'trials': 2, 'injected_ms': 6}],"
	 " 'trials': [{'fault': 'rail0-down', 'count': 3, 'detection': {'stat': 'max', 'value': "
	 "4200, 'threshold_ms': 1000, 'ok': false, 'judged': 3, 'seen': 3}, 'recovery': "
	 "{'stat': 'p90', 'p50': 20000, 'p90': 40000, 'max': 40000, 'value': 40000, "
	 "'threshold_ms': 30000, 'ok': false, 'judged': 3, 'seen': 3}},"
	 "  {'fault': 'flap', 'count': 2, 'isolation': null, 'recovery': {'stat': 'p90', 'p50': "
	 "1000, 'p90': null, 'max': null, 'value': null, 'threshold_ms': 30000, 'ok': false, "
	 "'judged': 2, 'seen': 1}}]}",
     .count = 5,
     .items = {{"rail0-down",
		"add an alert on port state (port_event) or link state (link_event), so the "
		"fault is seen before the job fails",
		"detection 4.2 s > 1 s: the first signal was workload_error, nothing from the "
		"fabric came sooner; in 2 of 3 trials: rail0-down#2, rail0-down#3"},
	       {"rail0-down",
		"shorten recovery (QP timeout and retry_cnt, the reconnect and failback path), "
		"or revisit the recovery threshold if it is unrealistic",
		"recovery p90 over 3 trials 40 s > 30 s (p50 20 s, p90 40 s, max 40 s)"},
	       {"other", NULL, "detection 2 s > 1 s, first seen as port_event"},
	       {"flap", "fix what kept the trials from being measured, then run the drill again",
		"isolation p50 could not be judged: no trial was measured"},
	       {"flap", NULL, "recovery p90 over 2 trials: not seen within 30 s in 1 of them"}}},
};

static void test_items(void **state)
{
	size_t i, k;

	(void)state;
	for (i = 0; i < sizeof(item_cases) / sizeof(item_cases[0]); i++) {
		const struct item_case *c = &item_cases[i];
		json_t *r = c->golden ? load_golden(c->golden) : load(c->text);
		json_t *items = report_action_items(r);

		check_shape(items);
		check_count(c->name, items, c->count);
		for (k = 0; k < c->count; k++)
			check_item(c->name, items, k, c->items[k].fault, c->items[k].item,
				   c->items[k].because);
		json_decref(items);
		json_decref(r);
	}
}

/* ---- robustness -------------------------------------------------------------- */

static void test_robust(void **state)
{
	static const char *const texts[] = {
	    "{}",
	    "[]",
	    "null",
	    "'pass'",
	    "{'verdict': null, 'faults': null, 'anomalies': null, 'cleanup': null, 'safety': "
	    "null, 'workload': null, 'expect': null, 'environment': null, 'reasons': null}",
	    "{'verdict': 'inconclusive', 'faults': [null, 5, 'x', {}, {'id': null, 'injected_ms': "
	    "1, 'detection': 'bogus', 'isolation': [], 'recovery': {'inconclusive': true}, "
	    "'injector': 'pfc_storm', 'pfc': {'storm_detected_ms': 'no', 'frames_sent': 'x'}}, "
	    "{'id': 'g', 'injected_ms': 2, 'detection': {'ms': 5, 'ok': false}, 'isolation': "
	    "{'ok': false}, 'recovery': {'ms': 1e300, 'threshold_ms': -1, 'ok': false}, "
	    "'target': {'rail': 'x'}}],"
	    " 'anomalies': [null, 5, {}, {'what': null}, {'what': '{broken'}, {'what': [1]}],"
	    " 'cleanup': {'verified': 'yes', 'actions': [null, 3, 'x', {}]},"
	    " 'safety': {'guards': [null, {'tripped': true, 'tripped_ms': 'x'}], 'aborted_by': "
	    "-5, 'renewals': {'failed': 2}},"
	    " 'workload': {'baseline': {}, 'integrity': {'lost': 'x'}}, 'expect': {'integrity': "
	    "{'lost': 0, 'corrupted': 'y'}, 'detection': {'signals': [1, null, 'port_event']}},"
	    " 'environment': {'nodes': [null, 5, {}, {'name': 'x', 'netdevs': null}]},"
	    " 'reasons': [null, 5, 'x: y']}",
	    "{'verdict': 'fail', 'safety': {'aborted_by': 1e30}, 'cleanup': {'verified': true}}",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		json_t *r = load(texts[i]), *rd, *items, *again;

		rd = report_readiness(r);
		assert_non_null(rd);
		assert_non_null(json_string_value(json_object_get(rd, "category")));
		items = report_action_items(r);
		check_shape(items);
		/* pure: the same report gives the same answers */
		again = report_action_items(r);
		assert_true(json_equal(items, again));
		json_decref(again);
		again = report_readiness(r);
		assert_true(json_equal(rd, again));
		json_decref(again);
		json_decref(items);
		json_decref(rd);
		json_decref(r);
	}
	/* no report at all */
	check_readiness("no report", NULL, "defer", "defer", RULE_NO_VERDICT);
	{
		json_t *items = report_action_items(NULL);

		check_count("no report", items, 0);
		json_decref(items);
		items = items_of("{}");
		check_count("{}", items, 0);
		json_decref(items);
	}
}

/* Long UTF-8 evidence is cut on a character boundary: the item is still a JSON string. */
static void test_long_utf8(void **state)
{
	json_t *r, *items;
	char *err = malloc(4001);
	size_t i;

	(void)state;
	assert_non_null(err);
	for (i = 0; i + 2 <= 4000; i += 2)
		memcpy(err + i, "é", 2);
	err[i] = '\0';
	for (i = 0; i < 3; i++) {
		r = json_pack("{s:s,s:{s:b},s:[{s:s,s:n,s:s}]}", "verdict", "inconclusive",
			      "cleanup", "verified", 1, "faults", "id", &"xyz"[i], "injected_ms",
			      "error", err);
		assert_non_null(r);
		items = report_action_items(r);
		check_count("long UTF-8", items, 1);
		check_shape(items);
		json_decref(items);
		json_decref(r);
	}
	free(err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_readiness),
	    cmocka_unit_test(test_items),
	    cmocka_unit_test(test_robust),
	    cmocka_unit_test(test_long_utf8),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
