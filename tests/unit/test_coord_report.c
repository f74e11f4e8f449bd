// SPDX-License-Identifier: MIT
/*
 * Report writers: a full report and reports with missing or null fields are
 * rendered into a temporary folder; report.json must read back equal, the
 * markdown must carry the lines an SRE looks for, and no temporary file may
 * be left behind.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "reports/report.h"
#include "tests/unit/scratch_dir.h"

static const char FULL[] =
    "{\"schema\": \"rdmachaos.report/v1\", \"tool_version\": \"0.1.0-test\","
    " \"scenario\": {\"name\": \"link-down-rail0\", \"file\": \"scenarios/link-down.yaml\","
    "   \"sha256\": \"505af5aead1e9d9457c29730ee63a09dfcaf8b621b008599271c9334e3cf3361\","
    "   \"description\": \"Rail 0 of node-b loses its link for 10 s under a write stream.\","
    "   \"owner\": \"network-oncall\"},"
    " \"started_at\": \"2026-11-30T04:03:21.123Z\", \"finished_at\": \"2026-11-30T04:04:30.456Z\","
    " \"verdict\": \"pass\", \"exit_code\": 0,"
    " \"reasons\": [\"rail0-down: detected in 812 ms (port_event), isolated in 1.4 s (failover), "
    "recovered in 2.1 s\", \"integrity held: 0 lost, 0 corrupted, 6 duplicated\"],"
    " \"seed\": 1,"
    " \"environment\": {\"lab\": {\"nodes\": 2, \"rails\": 2, \"accel\": \"tcg\"},"
    "   \"nodes\": [{\"name\": \"node-a\", \"agent\": \"127.0.0.1:17700\", \"kernel\": "
    "\"6.1.0-28-amd64\", \"rdma_core\": \"44.0\", \"agent_version\": \"0.1.0-test\","
    "     \"control_if\": \"eth0\","
    "     \"netdevs\": [{\"name\": \"eth0\", \"up\": true, \"mtu\": 1500},"
    "      {\"name\": \"rail0\", \"rail\": 0, \"up\": true, \"carrier\": true, \"oper\": "
    "\"up\", \"mtu\": 1500, \"addrs\": [\"192.0.2.1/26\", \"fe80::1/64\"], \"pfc\": "
    "{\"counters\": 0, \"prevention_tout_ms\": \"not supported\"}},"
    "      {\"name\": \"rail1\", \"rail\": 1, \"up\": false, \"carrier\": false, \"oper\": "
    "\"down\", \"mtu\": 1500, \"addrs\": [], \"pfc\": {\"counters\": 4, "
    "\"prevention_tout_ms\": 100, \"error\": \"Operation not permitted\"}}],"
    "     \"devices\": [{\"name\": \"rxe_rail0\", \"ports\": [{\"port\": 1, \"state\": \"ACTIVE\","
    "       \"link_layer\": \"Ethernet\", \"active_mtu\": 1024, \"netdev\": \"rail0\"}]},"
    "      {\"name\": \"rxe_rail1\", \"fw_ver\": \"0.0.0\", \"ports\": [{\"port\": 1, "
    "\"state\": \"ACTIVE\", \"link_layer\": \"Ethernet\", \"active_mtu\": 1024, "
    "\"netdev\": \"rail1\", \"netdev_mtu\": 1500}]}]},"
    "    {\"name\": \"node-b\", \"agent\": \"127.0.0.1:17701\", \"kernel\": \"6.1.0-28-amd64\","
    "     \"rdma_core\": \"44.0\", \"devices\": []}]},"
    " \"clock\": {\"nodes\": [{\"name\": \"node-a\", \"offset_us\": 123.4, \"uncertainty_us\": "
    "250.0,"
    "   \"rtt_us\": 500.0, \"samples\": 8, \"drift_us\": -12.5, \"drift_bound_us\": 900.0, "
    "\"drift_ppm\": -0.4},"
    "   {\"name\": \"node-b\", \"offset_us\": -7.0, \"uncertainty_us\": 200.0, "
    "\"rtt_us\": 400.0, \"samples\": 8}]},"
    " \"workload\": {\"kind\": \"rdma_stream\", \"from\": \"node-a\", \"to\": \"node-b\", \"op\": "
    "\"write\","
    "   \"msg_size\": 65536, \"queue_depth\": 8, \"rails\": [0, 1], \"qp\": {\"timeout\": 14, "
    "\"retry_cnt\": 6},"
    "   \"baseline\": {\"throughput_mbps\": 64.16, \"latency_us_p50\": 8000.0, \"samples\": 100,"
    "     \"window_ms\": [5000, 15000]},"
    "   \"throughput\": {\"before_mbps\": 64.16, \"during_mbps\": 48.8, \"after_mbps\": 63.2},"
    "   \"integrity\": {\"sent\": 1234, \"received\": 1240, \"lost\": 0, \"duplicated\": 6, "
    "\"corrupted\": 0}},"
    " \"faults\": [{\"id\": \"rail0-down\", \"injector\": \"link_down\","
    "   \"target\": {\"node\": \"node-b\", \"rail\": 0, \"netdev\": \"rail0\", \"device\": "
    "\"rxe_rail0\"},"
    "   \"params\": {}, \"at_ms\": 20000, \"duration_ms\": 10000,"
    "   \"injected_at\": \"2026-11-30T04:03:41.200Z\", \"injected_ms\": 20003.1,"
    "   \"reverted_at\": \"2026-11-30T04:03:51.201Z\", \"reverted_ms\": 30004.2,"
    "   \"detection\": {\"ms\": 812.0, \"signal\": \"port_event\", \"threshold_ms\": 5000, \"ok\": "
    "true},"
    "   \"isolation\": {\"ms\": 1400.2, \"signal\": \"failover\", \"threshold_ms\": 10000, \"ok\": "
    "true},"
    "   \"recovery\": {\"ms\": 2100.0, \"signal\": \"throughput\", \"threshold_ms\": 30000, "
    "\"ok\": "
    "true},"
    "   \"failback\": {\"outage_ms\": 1500.0, \"min_ratio\": 0.05, \"window_ms\": [30004.2, "
    "40004.2], \"failback_ms\": 2095.8, \"to_rail\": 0, \"threshold_ms\": 2000, \"ok\": true},"
    "   \"verdict\": \"pass\"},"
    "  {\"id\": \"rail0-flap\", \"injector\": \"port_flap\", \"target\": {\"node\": \"node-b\", "
    "\"rail\": 0},"
    "   \"params\": {\"count\": 3, \"down_ms\": 2000, \"up_ms\": 3000, \"jitter_ms\": 300, "
    "\"seed\": 7},"
    "   \"at_ms\": 40000, \"duration_ms\": 15000, \"injected_ms\": 40001.5, \"reverted_ms\": null,"
    "   \"detection\": {\"ms\": null, \"signal\": null, \"threshold_ms\": 5000, \"ok\": false, "
    "\"note\": \"not seen\"},"
    "   \"recovery\": {\"ms\": null, \"signal\": null, \"threshold_ms\": 30000, \"ok\": false, "
    "\"note\": \"the drill ended before the window closed\", \"inconclusive\": true},"
    "   \"failback\": {\"outage_ms\": null, \"min_ratio\": null, \"window_ms\": null, "
    "\"failback_ms\": null, \"to_rail\": null, \"threshold_ms\": 2000, \"ok\": false, "
    "\"note\": \"not measured: the fault was not reverted\", \"inconclusive\": true},"
    "   \"verdict\": \"fail\"}],"
    " \"expect\": {\"detection\": {\"within_ms\": 5000, \"signals\": [\"workload_error\", "
    "\"port_event\"]},"
    "   \"isolation\": {\"within_ms\": 10000},"
    "   \"recovery\": {\"within_ms\": 30000, \"throughput_ratio\": 0.8, \"sustain_ms\": 2000},"
    "   \"integrity\": {\"lost\": 0, \"corrupted\": 0}},"
    " \"anomalies\": [{\"t_ms\": 123.0, \"node\": \"node-a\", \"what\": \"agent: slow netlink "
    "dump\"},"
    "   {\"t_ms\": 61000.5, \"node\": \"node-a\", \"what\": {\"kind\": \"async\", \"event\": "
    "\"IBV_EVENT_QP_FATAL\"}}],"
    " \"cleanup\": {\"verified\": true, \"actions\": [{\"node\": \"node-b\", \"fault_id\": "
    "\"rail0-down\","
    "   \"action\": \"link rail0 up\", \"verified\": true}]},"
    " \"events\": {\"file\": \"events.jsonl\", \"count\": 1234}}";

struct tmpdir {
	char path[64];
};

static int setup(void **state)
{
	struct tmpdir *t = calloc(1, sizeof(*t));

	if (!t)
		return -1;
	if (scratch_make(t->path, sizeof(t->path), "report")) {
		free(t);
		return -1;
	}
	*state = t;
	return 0;
}

static int teardown(void **state)
{
	struct tmpdir *t = *state;
	int ret = scratch_remove(t->path);

	free(t);
	return ret;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = calloc(1, (size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	return buf;
}

static void has_line(const char *md, const char *line)
{
	const char *p = md;
	size_t len = strlen(line);

	while ((p = strstr(p, line))) {
		if ((p == md || p[-1] == '\n') && (p[len] == '\n' || p[len] == '\0'))
			return;
		p += len;
	}
	fprintf(stderr, "line not found: %s\n--- markdown ---\n%s\n", line, md);
	fail();
}

static int count_files(const char *dir)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	int n = 0;

	assert_non_null(d);
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	return n;
}

static void write_all(const char *dir, const json_t *r, char *md_path, size_t len)
{
	char p[512];

	snprintf(p, sizeof(p), "%s/report.json", dir);
	assert_int_equal(report_write_json(p, r), 0);
	snprintf(md_path, len, "%s/report.md", dir);
	assert_int_equal(report_write_md(md_path, r), 0);
}

static void test_full_report(void **state)
{
	struct tmpdir *t = *state;
	json_error_t jerr;
	json_t *r = json_loads(FULL, 0, &jerr), *back;
	char p[512], mdp[512], *md, *js;
	struct stat st;

	if (!r)
		print_error("FULL: line %d: %s\n", jerr.line, jerr.text);
	assert_non_null(r);
	write_all(t->path, r, mdp, sizeof(mdp));

	/* report.json reads back equal, pretty-printed with 2 spaces, keys in order */
	snprintf(p, sizeof(p), "%s/report.json", t->path);
	back = json_load_file(p, 0, &jerr);
	assert_non_null(back);
	assert_true(json_equal(r, back));
	js = slurp(p);
	assert_true(
	    !strncmp(js, "{\n  \"schema\": \"rdmachaos.report/v1\",\n  \"tool_version\"",
		     strlen("{\n  \"schema\": \"rdmachaos.report/v1\",\n  \"tool_version\"")));
	assert_non_null(strstr(js, "\"injected_ms\": 20003.1,"));
	assert_int_equal(js[strlen(js) - 1], '\n');
	free(js);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);

	md = slurp(mdp);
	has_line(md, "# Drill report: link-down-rail0 — PASS ✅");
	has_line(md,
		 "**Verdict: pass** (exit code 0): rail0-down: detected in 812 ms (port_event), "
		 "isolated in 1.4 s (failover), recovered in 2.1 s (and 1 more, see Reasons).");
	has_line(md, "Rail 0 of node-b loses its link for 10 s under a write stream.");
	has_line(md,
		 "**Readiness: needs work** (needs_work). Every expectation held, but "
		 "unexplained anomalies were recorded: they need explaining before a roll-out.");
	has_line(md, "4 action items: see Action items.");
	has_line(md, "- Scenario: `scenarios/link-down.yaml` (sha256 "
		     "`505af5aead1e9d9457c29730ee63a09dfcaf8b621b008599271c9334e3cf3361`)");
	has_line(md, "- Expected: detection within 5000 ms on workload_error or port_event; "
		     "isolation within 10000 ms; throughput back to 80% of the baseline within "
		     "30000 ms and held for 2000 ms; at most 0 lost; at most 0 corrupted.");
	has_line(md, "Built-in lab: 2 nodes, 2 rails, QEMU accel tcg (Soft-RoCE in VMs: far slower "
		     "than hardware).");
	has_line(md, "| node-a | 127.0.0.1:17700 | 0.1.0-test | 6.1.0-28-amd64 | 44.0 | eth0 |");
	has_line(md, "| node-b | 127.0.0.1:17701 | — | 6.1.0-28-amd64 | 44.0 | — |");
	has_line(md, "| node-a | rxe_rail0 | — | 1 | ACTIVE | Ethernet | 1024 | rail0 | — |");
	has_line(md,
		 "| node-a | rxe_rail1 | 0.0.0 | 1 | ACTIVE | Ethernet | 1024 | rail1 | 1500 |");
	has_line(md, "| node-b | — | — | — | — | — | — | — | — |");
	has_line(md,
		 "| Node | Netdev | Rail | Link | MTU | Addresses | PFC storm prevention | Pause "
		 "counters polled |");
	has_line(md,
		 "| node-a | rail0 | 0 | up | 1500 | 192.0.2.1/26, fe80::1/64 | not supported | "
		 "0 |");
	has_line(md,
		 "| node-a | rail1 | 1 | down, no carrier | 1500 | — | 100 ms | 4 (Operation not "
		 "permitted) |");
	assert_null(strstr(md, "| node-a | eth0 |"));
	has_line(md,
		 "PFC/DCB: the enabled PFC priorities and the ETS configuration are not reported "
		 "by the agents; storm prevention and the pause counters they poll are shown per "
		 "netdev.");
	has_line(md, "| node-a | 123.4 µs | ± 250.0 µs | 500.0 µs | 8 | -12.5 µs (± 900.0 µs) |");
	/* a node the end's alignment did not reach */
	has_line(md, "| node-b | -7.0 µs | ± 200.0 µs | 400.0 µs | 8 | not measured |");
	has_line(md, "Worst uncertainty ± 250.0 µs: differences between nodes' events finer than "
		     "that are not meaningful.");
	has_line(md, "| rail0-down | link_down | node-b rail 0 netdev rail0 device rxe_rail0 | — | "
		     "at 20000 ms for 10000 ms | 20003 ms (2026-11-30T04:03:41.200Z) | 30004 ms "
		     "(2026-11-30T04:03:51.201Z) |");
	has_line(md, "| rail0-flap | port_flap | node-b rail 0 | "
		     "count=3, down_ms=2000, up_ms=3000, jitter_ms=300, seed=7 | at "
		     "40000 ms for 15000 ms | 40002 ms | not reverted |");
	has_line(md, "| Fault | Measure | Measured | Allowed | Result | Signal or note |");
	has_line(md, "| rail0-down | detection | 812 ms | 5000 ms | ✅ | port_event |");
	has_line(md, "| rail0-down | isolation | 1400 ms | 10000 ms | ✅ | failover |");
	has_line(md, "| rail0-down | recovery | 2100 ms | 30000 ms | ✅ | throughput |");
	has_line(md, "| rail0-down | failback | 1500 ms | 2000 ms | ✅ | lowest 5% of the baseline; "
		     "back on rail 0 2096 ms after the revert |");
	has_line(md, "| rail0-flap | detection | — | 5000 ms | ❌ | not seen |");
	has_line(md, "| rail0-flap | isolation | — | — | not checked | — |");
	has_line(md,
		 "| rail0-flap | recovery | — | 30000 ms | ⚠️ | the drill ended before the "
		 "window closed |");
	has_line(
	    md,
	    "| rail0-flap | failback | — | 2000 ms | ⚠️ | not measured: the fault was not "
	    "reverted |");
	has_line(md, "| 1234 | 1240 | 0 (at most 0) | 6 | 0 (at most 0) |");
	has_line(md, "| 64.2 MB/s | 48.8 MB/s | 63.2 MB/s |");
	has_line(md,
		 "Baseline: 64.2 MB/s mean, p50 latency 8000 µs, over 100 samples in 5000-15000 "
		 "ms. Workload: rdma_stream node-a → node-b, 65536-byte messages, queue depth 8.");
	has_line(md, "- 123.0 ms, node-a: agent: slow netlink dump");
	has_line(md,
		 "- 61000.5 ms, node-a: `{\"kind\":\"async\",\"event\":\"IBV_EVENT_QP_FATAL\"}`");
	has_line(md, "Every fault was reverted and the prior state verified.");
	has_line(md, "The revert steps, as performed and checked:");
	has_line(md, "| node-b | rail0-down | link rail0 up | ✅ |");
	has_line(md, "- network-oncall: owns this drill (from the scenario) and its action items.");
	has_line(md, "| # | Fault | Action | Because | Owner |");
	has_line(md,
		 "| 1 | rail0-flap | add a detection signal that sees this fault (port_event, "
		 "link_event or an error counter): none of the expected ones fired | detection "
		 "not seen within 5 s (signals: workload_error, port_event) | network-oncall |");
	has_line(md,
		 "| 3 | — | investigate the unexpected event on node-a | at 123 ms: agent: slow "
		 "netlink dump | network-oncall |");
	has_line(md, "| 4 | rail0-flap | investigate the async IBV_EVENT_QP_FATAL on node-a | at "
		     "61.001 s: {\"kind\":\"async\",\"event\":\"IBV_EVENT_QP_FATAL\"} | "
		     "network-oncall |");
	assert_null(strstr(md, "## Trials"));
	has_line(md, "- integrity held: 0 lost, 0 corrupted, 6 duplicated");
	has_line(md, "_Every event: `events.jsonl` (1234 events). Machine record: `report.json` "
		     "(rdmachaos.report/v1)._");
	free(md);
	/* report.json and report.md only: no temporary left behind */
	assert_int_equal(count_files(t->path), 2);
	json_decref(back);
	json_decref(r);
}

static void test_empty_report(void **state)
{
	struct tmpdir *t = *state;
	json_t *r = json_object();
	char mdp[512], *md;

	write_all(t->path, r, mdp, sizeof(mdp));
	md = slurp(mdp);
	has_line(md, "# Drill report: unnamed drill — UNKNOWN ⚠️");
	has_line(md, "**Verdict: unknown** (exit code —): no reason was recorded.");
	has_line(md, "_The scenario gives no description._");
	has_line(md, "**Readiness: defer** (defer). No verdict was recorded, so the drill proves "
		     "nothing yet: defer until it runs to a verdict.");
	has_line(md, "No action items.");
	has_line(md, "Not named: the scenario has no `owner`; name one so the action items reach "
		     "someone.");
	has_line(md, "None: nothing in this drill calls for work.");
	has_line(md, "No node inventory was recorded.");
	has_line(md, "Clock offsets: not measured.");
	has_line(md, "No fault was recorded.");
	has_line(md, "Nothing was measured.");
	has_line(md, "| — | — | — |");
	has_line(md, "No baseline was measured.");
	has_line(md, "**No cleanup was recorded: check the nodes by hand.**");
	free(md);
	json_decref(r);
}

/* report.md of report r, written into the test's folder; the caller frees it. */
static char *md_of_json(const struct tmpdir *t, const json_t *r)
{
	char mdp[512];

	write_all(t->path, r, mdp, sizeof(mdp));
	return slurp(mdp);
}

/* The same of the report in text. */
static char *md_of(const struct tmpdir *t, const char *text)
{
	json_error_t jerr;
	json_t *r = json_loads(text, 0, &jerr);
	char *md;

	assert_non_null(r);
	md = md_of_json(t, r);
	json_decref(r);
	return md;
}

static void test_nulls_everywhere(void **state)
{
	static const char text[] =
	    "{\"scenario\": {\"name\": \"x\", \"description\": null, \"owner\": \"\"},"
	    " \"verdict\": \"cleanup_failed\", \"exit_code\": 3, \"reasons\": [\"cleanup was not "
	    "verified: check the nodes by hand (see Cleanup)\", null],"
	    " \"environment\": {\"nodes\": [{\"name\": null, \"devices\": [{\"name\": \"d\", "
	    "\"ports\": null}]}, 5, null]},"
	    " \"clock\": {\"nodes\": [{}]},"
	    " \"workload\": {\"baseline\": {\"throughput_mbps\": null}, \"integrity\": null},"
	    " \"faults\": [{\"id\": \"f|0\", \"target\": null, \"params\": null, \"injected_ms\": "
	    "null, \"error\": \"agent: link_down: eth0: refused: carries the agent's control "
	    "connection\", \"detection\": {}, \"isolation\": null, \"recovery\": \"bogus\"}, 7],"
	    " \"expect\": {\"detection\": {}, \"recovery\": {}},"
	    " \"anomalies\": [{}, null],"
	    " \"cleanup\": {\"verified\": false, \"actions\": [\"ip link set rail0 up\", {}]},"
	    " \"events\": null}";
	char *md = md_of(*state, text);

	has_line(md, "# Drill report: x — CLEANUP_FAILED 🚨");
	has_line(md, "**Verdict: cleanup_failed** (exit code 3): cleanup was not verified: check "
		     "the nodes by hand (see Cleanup) (and 1 more, see Reasons).");
	has_line(md, "| — | d | — | — | — | — | — | — | — |");
	has_line(md, "| — | — | — | — | — | — |");
	has_line(md, "Rail netdevs: not reported.");
	has_line(md,
		 "**Readiness: defer** (defer). Cleanup was not verified, so the fabric's state "
		 "is unknown: defer, and restore and verify the nodes by hand before anything "
		 "else.");
	has_line(md, "| 1 | — | revert by hand and check: ip link set rail0 up | cleanup was not "
		     "verified | — |");
	has_line(md, "| 2 | — | revert by hand on the node and check: the fault's prior state | "
		     "cleanup could not verify this action | — |");
	has_line(md, "| 3 | f\\|0 | get the fault in effect (fix what refused it: target, "
		     "permissions, injector support), then run the drill again | f\\|0 was not "
		     "injected: agent: link_down: eth0: refused: carries the agent's control "
		     "connection | — |");
	has_line(md, "| 4 | — | get a baseline: make the workload move data during the warm-up and "
		     "baseline window (check it runs and its rails are up) | no baseline "
		     "throughput: 0 samples | — |");
	has_line(md, "| f\\|0 | — | — | — | at — ms for — ms | not injected: agent: link_down: "
		     "eth0: refused: carries the agent's control connection | not reverted |");
	has_line(md, "| f\\|0 | detection | — | — | ❌ | not seen |");
	has_line(md, "| f\\|0 | recovery | — | — | not measured | — |");
	has_line(md, "| f\\|0 | failback | — | — | not recorded | — |");
	has_line(md, "| — | detection | — | — | not measured | — |");
	has_line(md, "| — | isolation | — | — | not checked | — |");
	has_line(md, "Unknown: the workload's client or server summary is missing, so lost and "
		     "corrupted messages could not be counted.");
	has_line(md, "**Not verified: check the nodes by hand before the next drill.**");
	has_line(md, "| — | — | ip link set rail0 up | — |");
	has_line(md, "- ?");
	free(md);
}

static void test_events_jsonl(void **state)
{
	struct tmpdir *t = *state;
	json_t *ev =
	    json_pack("[{s:f,s:s,s:s,s:b},{s:f,s:s,s:s}]", "t_ms", 38.6, "node", "node-b", "kind",
		      "link", "up", 0, "t_ms", 20003.1, "node", "node-b", "kind", "fault");
	char p[512], *s;

	snprintf(p, sizeof(p), "%s/events.jsonl", t->path);
	assert_int_equal(report_write_events(p, ev), 0);
	s = slurp(p);
	assert_string_equal(s,
			    "{\"t_ms\":38.6,\"node\":\"node-b\",\"kind\":\"link\",\"up\":false}\n"
			    "{\"t_ms\":20003.1,\"node\":\"node-b\",\"kind\":\"fault\"}\n");
	free(s);
	/* no events: an empty file, not an error */
	assert_int_equal(report_write_events(p, NULL), 0);
	s = slurp(p);
	assert_string_equal(s, "");
	free(s);
	assert_int_equal(count_files(t->path), 1);
	json_decref(ev);
}

static void test_write_errors(void **state)
{
	json_t *r = json_object();

	assert_int_equal(report_write_json("/nonexistent-dir/report.json", r), -ENOENT);
	assert_int_equal(report_write_md("/nonexistent-dir/report.md", r), -ENOENT);
	assert_int_equal(report_write_json("/tmp/x.json", NULL), -EINVAL);
	assert_int_equal(report_write_events("/tmp/x.jsonl", r), -EINVAL);
	json_decref(r);
}

/* The Safety section names only the limits the scenario set, and which guard stopped the drill. */
static void test_safety_section(void **state)
{
	static const char text[] =
	    "{\"schema\": \"rdmachaos.report/v1\", \"verdict\": \"fail\", \"safety\": "
	    "{\"lease_ms\": 5000, \"blast_radius\": {\"max_nodes\": 1, \"max_rails\": 0, "
	    "\"max_fleet_share\": 0.25}, \"guards\": [{\"kind\": \"throughput\", \"description\": "
	    "\"throughput below 10% of baseline for 3.0 s\", \"tripped\": true, \"tripped_ms\": "
	    "13200.0, \"why\": \"too slow\"}], \"aborted_by\": 0, \"renewals\": {\"sent\": 8, "
	    "\"failed\": 1}}}";
	char *md = md_of(*state, text);

	has_line(md, "- Each fault was leased for 5.0 s (renewals sent 8, failed 1): an agent that "
		     "stops hearing from the coordinator reverts it.");
	has_line(md,
		 "- Blast radius, at once: at most 1 node(s), at most 25% of the fleet; checked "
		 "before anything was touched, and by each agent.");
	has_line(md,
		 "- Guard 0: abort on throughput below 10% of baseline for 3.0 s: **tripped** at "
		 "13.2 s: too slow");
	free(md);
}

/* The job's error lines, each against the faults: in one, after a revert, before any. */
static void test_job_error_lines(void **state)
{
	static const char text[] =
	    "{\"schema\": \"rdmachaos.report/v1\", \"verdict\": \"fail\", \"faults\": ["
	    "{\"id\": \"a\", \"injected_ms\": 10000, \"reverted_ms\": 20000},"
	    "{\"id\": \"b\", \"injected_ms\": 15000, \"reverted_ms\": null}],"
	    "\"job\": {\"ranks\": [], \"outcome\": {\"want\": \"any\", \"ok\": true, "
	    "\"sentence\": \"met\"}, \"rdma_path\": [], \"evidence\": null, \"error_lines\": ["
	    "{\"t_ms\": 5000, \"node\": \"node-a\", \"text\": \"IBV_WC_RETRY_EXC_ERR | x\"},"
	    "{\"t_ms\": 16000, \"node\": \"node-b\", \"text\": \"retry count exceeded\"},"
	    "{\"t_ms\": 12500, \"node\": \"node-a\", \"text\": \"late\"}],"
	    "\"error_lines_total\": 40}}";
	static const char after[] =
	    "{\"schema\": \"rdmachaos.report/v1\", \"faults\": [{\"id\": \"a\", "
	    "\"injected_ms\": 10000, \"reverted_ms\": 20000}], \"job\": {\"error_lines\": ["
	    "{\"t_ms\": 22100, \"node\": \"node-a\", \"text\": \"lost\"}]}}";
	char *md = md_of(*state, text);

	has_line(md, "40 lines of the job's output matched its error patterns (errors:); the first "
		     "ones:");
	has_line(md, "| 5.0 s | node-a | IBV_WC_RETRY_EXC_ERR \\| x | before any fault |");
	has_line(md, "| 16.0 s | node-b | retry count exceeded | during a, b |");
	has_line(md, "| 12.5 s | node-a | late | during a |");
	free(md);
	md = md_of(*state, after);
	has_line(md, "| 22.1 s | node-a | lost | 2.1 s after a was reverted |");
	free(md);
}

/*
 * Readiness and action items stored in the report win over deriving them
 * again (a stored but partial readiness does not); repeated faults get their
 * distribution table and schedule.
 */
static void test_stored_judgements_and_trials(void **state)
{
	static const char text[] =
	    "{\"verdict\": \"pass\", \"scenario\": {\"owner\": \"fabric-oncall\"}, \"cleanup\": "
	    "{\"verified\": true},"
	    " \"readiness\": {\"category\": \"needs_work\", \"label\": \"needs work\", \"rule\": "
	    "\"Stored rule.\"},"
	    " \"action_items\": [{\"fault\": \"f0\", \"item\": \"do X\", \"because\": \"Y | Z\"},"
	    "   {\"fault\": null, \"item\": \"do W\", \"because\": \"V\", \"owner\": \"someone\"}],"
	    " \"expect\": {\"recovery\": {\"within_ms\": 30000, \"stat\": \"p90\"}},"
	    " \"trials\": [{\"fault\": \"f0\", \"count\": 3, \"detection\": {\"stat\": \"max\", "
	    "\"p50\": 20, \"p90\": 30, \"max\": 30, \"value\": 30, \"threshold_ms\": 5000, \"ok\": "
	    "true, \"judged\": 3, \"seen\": 3}, \"recovery\": null},"
	    "  {\"fault\": \"f1\", \"count\": 2, \"recovery\": {\"stat\": \"p90\", \"p50\": 1000, "
	    "\"p90\": null, \"max\": null, \"value\": null, \"threshold_ms\": 30000, \"ok\": "
	    "false, "
	    "\"judged\": 2, \"seen\": 1}}, null],"
	    " \"schedule\": {\"seed\": 42, \"faults\": [{\"fault\": \"f0\", \"kind\": \"random\", "
	    "\"count\": 3, \"min_gap_ms\": 5000, \"max_gap_ms\": 15000, \"at_ms\": [20000, 41000, "
	    "60000]}, {\"fault\": \"f1\", \"kind\": \"repeat\", \"count\": 2, \"every_ms\": 30000, "
	    "\"at_ms\": [10000, 40000]}]}}";
	json_error_t jerr;
	json_t *r = json_loads(text, 0, &jerr);
	char *md;

	assert_non_null(r);
	md = md_of_json(*state, r);
	has_line(md, "**Readiness: needs work** (needs_work). Stored rule.");
	has_line(md, "2 action items: see Action items.");
	has_line(md, "| 1 | f0 | do X | Y \\| Z | fabric-oncall |");
	has_line(md, "| 2 | — | do W | V | someone |");
	has_line(md, "- Expected: detection within — ms; throughput back to the set share of the "
		     "baseline within 30000 ms (p90 over the trials) and held for — ms.");
	has_line(md, "## Trials");
	has_line(md, "| Fault | Trials | Phase | Judged on | p50 | p90 | Max | Allowed | Result |");
	has_line(md, "| f0 | 3 | detection | max | 20 ms | 30 ms | 30 ms | 5000 ms | ✅ 3 judged, 3 "
		     "seen |");
	has_line(md,
		 "| f0 | 3 | recovery | p90 | — | — | — | — | ⚠️ no trial measured |");
	has_line(md, "| f1 | 2 | recovery | p90 | 1000 ms | not seen | not seen | 30000 ms | ❌ 2 "
		     "judged, 1 seen |");
	has_line(md, "Schedule, from seed 42:");
	has_line(md, "- f0: 3 trials, random gaps of 5000-15000 ms, at 20000, 41000, 60000 ms");
	has_line(md, "- f1: 2 trials, every 30000 ms, at 10000, 40000 ms");
	free(md);

	/* an empty stored list is an answer; a partial readiness is derived again */
	json_object_set_new(r, "action_items", json_array());
	json_object_set_new(r, "readiness", json_pack("{s:s}", "category", "ready"));
	json_object_del(r, "trials");
	json_object_del(r, "schedule");
	md = md_of_json(*state, r);
	has_line(md, "No action items.");
	has_line(md, "None: nothing in this drill calls for work.");
	has_line(md, "**Readiness: ready to roll out** (ready). The verdict is pass, cleanup was "
		     "verified and no unexplained anomaly was recorded: ready to roll out.");
	assert_null(strstr(md, "## Trials"));
	free(md);
	json_decref(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_full_report, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_empty_report, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_nulls_everywhere, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_events_jsonl, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_safety_section, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_job_error_lines, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_stored_judgements_and_trials, setup, teardown),
	    cmocka_unit_test(test_write_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
