// SPDX-License-Identifier: MIT
/*
 * report.md: the report JSON (docs/REPORT.md) told as a postmortem-style
 * account an SRE can read top to bottom: verdict, readiness and why, goal,
 * environment, what was done, what was measured (per trial too), integrity,
 * throughput, anomalies, cleanup, safety, owners and the action items.
 * Every field may be missing or null (a drill that stopped early, an older
 * report): the writer then prints "—" or a sentence, never crashes.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reports/report.h"

#define DASH "—"

/* ---- JSON access that tolerates anything -------------------------------- */

/* o["a"]["b"]... for a dotted path; NULL when any step is missing or not an object. */
static const json_t *jget(const json_t *o, const char *path)
{
	char key[64];
	const char *dot;
	size_t len;

	while (o && *path) {
		dot = strchr(path, '.');
		len = dot ? (size_t)(dot - path) : strlen(path);
		if (len >= sizeof(key))
			return NULL;
		memcpy(key, path, len);
		key[len] = '\0';
		o = json_is_object(o) ? json_object_get(o, key) : NULL;
		path += len + (dot ? 1 : 0);
	}
	return o;
}

static const char *jstr(const json_t *o, const char *path)
{
	return json_string_value(jget(o, path));
}

static bool jnum(const json_t *o, const char *path, double *v)
{
	const json_t *j = jget(o, path);

	if (!json_is_number(j))
		return false;
	*v = json_number_value(j);
	return true;
}

static bool streq(const char *a, const char *b)
{
	return a && b && !strcmp(a, b);
}

/* ---- formatting --------------------------------------------------------- */

/* Text for a table cell: '|' escaped, line breaks flattened. */
static void cell(FILE *f, const char *s)
{
	if (!s || !*s) {
		fputs(DASH, f);
		return;
	}
	for (; *s; s++) {
		if (*s == '|')
			fputs("\\|", f);
		else if (*s == '\n' || *s == '\r')
			fputc(' ', f);
		else
			fputc(*s, f);
	}
}

/* A number with `decimals` digits after the point, or "—". */
static const char *num(const json_t *o, const char *path, int decimals, char *buf, size_t len)
{
	double v;

	if (!jnum(o, path, &v))
		return DASH;
	snprintf(buf, len, "%.*f", decimals, v);
	return buf;
}

/* "812 ms", "1.4 ms" */
static const char *fmt_ms(double ms, char *buf, size_t len)
{
	if (ms < 10 && fabs(ms - round(ms)) >= 0.05)
		snprintf(buf, len, "%.1f ms", ms);
	else
		snprintf(buf, len, "%.0f ms", ms);
	return buf;
}

/* Any JSON value as compact text (strings without quotes); caller frees. */
static char *compact(const json_t *v)
{
	if (json_is_string(v))
		return strdup(json_string_value(v));
	return json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY | JSON_REAL_PRECISION(15));
}

static const char *verdict_mark(const char *v)
{
	if (!v)
		return "⚠️";
	if (!strcmp(v, "pass"))
		return "✅";
	if (!strcmp(v, "fail"))
		return "❌";
	if (!strcmp(v, "cleanup_failed"))
		return "🚨";
	return "⚠️";
}

/* ---- derived judgements: stored in the report, or derived again ----------- */

/* report["readiness"] when it is whole, else report_readiness(); caller decrefs. */
static json_t *readiness_of(const json_t *r)
{
	const json_t *rd = jget(r, "readiness");

	if (jstr(rd, "category") && jstr(rd, "rule"))
		return json_incref((json_t *)rd);
	return report_readiness(r);
}

/* report["action_items"] when present, else report_action_items(); caller decrefs. */
static json_t *action_items_of(const json_t *r)
{
	const json_t *items = jget(r, "action_items");

	if (json_is_array(items))
		return json_incref((json_t *)items);
	return report_action_items(r);
}

static void md_readiness(FILE *f, const json_t *r)
{
	json_t *rd = readiness_of(r), *items = action_items_of(r);
	size_t n = json_array_size(items);

	fprintf(f, "**Readiness: %s** (%s). %s\n\n",
		jstr(rd, "label") ?: jstr(rd, "category") ?: "unknown",
		jstr(rd, "category") ?: "unknown", jstr(rd, "rule") ?: "No rule was recorded.");
	if (n)
		fprintf(f, "%zu action item%s: see Action items.\n\n", n, n == 1 ? "" : "s");
	else
		fputs("No action items.\n\n", f);
	json_decref(rd);
	json_decref(items);
}

/* ---- sections ----------------------------------------------------------- */

static void md_title(FILE *f, const json_t *r)
{
	const char *name = jstr(r, "scenario.name"), *v = jstr(r, "verdict");
	char up[32];
	size_t i;

	snprintf(up, sizeof(up), "%s", v ? v : "unknown");
	for (i = 0; up[i]; i++)
		up[i] = (char)(up[i] >= 'a' && up[i] <= 'z' ? up[i] - 'a' + 'A' : up[i]);
	fprintf(f, "# Drill report: %s — %s %s\n\n", name ? name : "unnamed drill", up,
		verdict_mark(v));
}

static void md_summary(FILE *f, const json_t *r)
{
	const json_t *reasons = jget(r, "reasons");
	const char *v = jstr(r, "verdict"), *first = json_string_value(json_array_get(reasons, 0));
	size_t n = json_array_size(reasons);
	char b[32];

	fputs("## Summary\n\n", f);
	fprintf(f, "**Verdict: %s** (exit code %s)", v ? v : "unknown",
		num(r, "exit_code", 0, b, sizeof(b)));
	if (first)
		fprintf(f, ": %s", first);
	else if (v && !strcmp(v, "pass"))
		fputs(": every expectation held", f);
	else
		fputs(": no reason was recorded", f);
	if (n > 1)
		fprintf(f, " (and %zu more, see Reasons)", n - 1);
	fputs(".\n\n", f);
	md_readiness(f, r);
	fprintf(f, "Ran from %s to %s with rdmachaos %s, seed %s.\n\n",
		jstr(r, "started_at") ?: "an unknown time",
		jstr(r, "finished_at") ?: "an unknown time",
		jstr(r, "tool_version") ?: "(unknown version)", num(r, "seed", 0, b, sizeof(b)));
}

/* " (p90 over the trials)" for a threshold stated on a repeated fault's p50 or p90. */
static void md_stat_of(FILE *f, const json_t *x, const char *phase)
{
	const char *st = jstr(jget(x, phase), "stat");

	if (st && strcmp(st, "max")) {
		fputs(" (", f);
		cell(f, st);
		fputs(" over the trials)", f);
	}
}

static void md_expectations(FILE *f, const json_t *r)
{
	const json_t *x = jget(r, "expect"), *sigs = jget(x, "detection.signals"), *s;
	char b1[32], b2[32], b3[32];
	double ratio;
	size_t i;

	if (!x)
		return;
	fprintf(f, "- Expected: detection within %s ms",
		num(x, "detection.within_ms", 0, b1, sizeof(b1)));
	md_stat_of(f, x, "detection");
	if (json_array_size(sigs)) {
		fputs(" on ", f);
		json_array_foreach(sigs, i, s)
			fprintf(f, "%s%s",
				i ? (i + 1 == json_array_size(sigs) ? " or " : ", ") : "",
				json_string_value(s) ?: "?");
	}
	if (jget(x, "isolation.within_ms")) {
		fprintf(f, "; isolation within %s ms",
			num(x, "isolation.within_ms", 0, b1, sizeof(b1)));
		md_stat_of(f, x, "isolation");
	}
	if (jget(x, "recovery")) {
		if (jnum(x, "recovery.throughput_ratio", &ratio))
			snprintf(b2, sizeof(b2), "%.0f%%", ratio * 100);
		else
			snprintf(b2, sizeof(b2), "the set share");
		fprintf(f, "; throughput back to %s of the baseline within %s ms", b2,
			num(x, "recovery.within_ms", 0, b1, sizeof(b1)));
		md_stat_of(f, x, "recovery");
		fprintf(f, " and held for %s ms", num(x, "recovery.sustain_ms", 0, b3, sizeof(b3)));
	}
	if (json_is_number(jget(x, "integrity.lost")))
		fprintf(f, "; at most %s lost", num(x, "integrity.lost", 0, b1, sizeof(b1)));
	if (json_is_number(jget(x, "integrity.corrupted")))
		fprintf(f, "; at most %s corrupted",
			num(x, "integrity.corrupted", 0, b1, sizeof(b1)));
	fputs(".\n", f);
}

static void md_goal(FILE *f, const json_t *r)
{
	const char *desc = jstr(r, "scenario.description"), *sha = jstr(r, "scenario.sha256");

	fputs("## Goal\n\n", f);
	fprintf(f, "%s\n\n", desc && *desc ? desc : "_The scenario gives no description._");
	fprintf(f, "- Scenario: `%s`", jstr(r, "scenario.file") ?: "unknown file");
	if (sha && *sha)
		fprintf(f, " (sha256 `%s`)", sha);
	fputs("\n", f);
	md_expectations(f, r);
	fputs("\n", f);
}

/* A "| a | b |" row's next cell: the text, or "—". */
static void next_cell(FILE *f, const char *s)
{
	fputs(" | ", f);
	cell(f, s);
}

static void md_env_nodes(FILE *f, const json_t *nodes)
{
	const json_t *n;
	size_t i;

	fputs("| Node | Agent | Agent version | Kernel | rdma-core | Control interface |\n", f);
	fputs("| --- | --- | --- | --- | --- | --- |\n", f);
	json_array_foreach(nodes, i, n) {
		fputs("| ", f);
		cell(f, jstr(n, "name"));
		next_cell(f, jstr(n, "agent"));
		next_cell(f, jstr(n, "agent_version"));
		next_cell(f, jstr(n, "kernel"));
		next_cell(f, jstr(n, "rdma_core"));
		next_cell(f, jstr(n, "control_if"));
		fputs(" |\n", f);
	}
	fputs("\n", f);
}

static void md_port_row(FILE *f, const json_t *n, const json_t *dev, const json_t *port)
{
	char b1[32], b2[32], b3[32];

	fputs("| ", f);
	cell(f, jstr(n, "name"));
	next_cell(f, jstr(dev, "name"));
	next_cell(f, jstr(dev, "fw_ver"));
	fprintf(f, " | %s", num(port, "port", 0, b1, sizeof(b1)));
	next_cell(f, jstr(port, "state") ?: jstr(port, "error") ?: jstr(dev, "error"));
	next_cell(f, jstr(port, "link_layer"));
	fprintf(f, " | %s", num(port, "active_mtu", 0, b2, sizeof(b2)));
	next_cell(f, jstr(port, "netdev"));
	fprintf(f, " | %s |\n", num(port, "netdev_mtu", 0, b3, sizeof(b3)));
}

/* One row per port of every device; a node without devices gets one row of dashes. */
static void md_env_ports(FILE *f, const json_t *nodes)
{
	const json_t *n, *dev, *port;
	size_t i, j, k;

	fputs("| Node | Device | Firmware | Port | State | Link layer | RDMA MTU | Netdev | Netdev "
	      "MTU "
	      "|\n",
	      f);
	fputs("| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n", f);
	json_array_foreach(nodes, i, n) {
		const json_t *devs = jget(n, "devices");
		bool any = false;

		json_array_foreach(devs, j, dev) {
			const json_t *ports = jget(dev, "ports");

			json_array_foreach(ports, k, port) {
				md_port_row(f, n, dev, port);
				any = true;
			}
			if (!json_array_size(ports)) {
				md_port_row(f, n, dev, NULL);
				any = true;
			}
		}
		if (!any)
			md_port_row(f, n, NULL, NULL);
	}
	fputs("\n", f);
}

/* A netdev a device's port names: the ones RDMA traffic crosses. */
static bool netdev_of_port(const json_t *node, const char *name)
{
	const json_t *dev, *port;
	size_t j, k;

	json_array_foreach(jget(node, "devices"), j, dev)
		json_array_foreach(jget(dev, "ports"), k, port)
			if (name && jstr(port, "netdev") && !strcmp(jstr(port, "netdev"), name))
				return true;
	return false;
}

/* "up", "down, no carrier", "—" */
static void md_link_state(FILE *f, const json_t *nd)
{
	const char *oper = jstr(nd, "oper");

	fputs(" | ", f);
	if (!oper && !jget(nd, "up")) {
		fputs(DASH, f);
		return;
	}
	if (oper && strcmp(oper, "unknown"))
		cell(f, oper);
	else
		fputs(json_is_true(jget(nd, "up")) ? "up" : "down", f);
	if (json_is_false(jget(nd, "carrier")))
		fputs(", no carrier", f);
}

/* The NIC's PFC storm prevention: "auto", "disabled", "100 ms", "not supported". */
static void md_pfc_prevention(FILE *f, const json_t *nd)
{
	const json_t *p = jget(nd, "pfc.prevention_tout_ms");
	char b[32];

	fputs(" | ", f);
	if (json_is_string(p))
		cell(f, json_string_value(p));
	else if (json_is_number(p))
		fprintf(f, "%s ms", num(nd, "pfc.prevention_tout_ms", 0, b, sizeof(b)));
	else
		fputs("not reported", f);
	fputs(" | ", f);
	if (json_is_number(jget(nd, "pfc.counters")))
		fputs(num(nd, "pfc.counters", 0, b, sizeof(b)), f);
	else
		fputs("not reported", f);
	if (jstr(nd, "pfc.error")) {
		fputs(" (", f);
		cell(f, jstr(nd, "pfc.error"));
		fputs(")", f);
	}
}

/* The rails' netdevs (and any a port names), with their PFC state. */
static void md_env_netdevs(FILE *f, const json_t *nodes)
{
	const json_t *n, *nd, *a;
	size_t i, k, m, rows = 0;
	char b1[32], b2[32];

	json_array_foreach(nodes, i, n) {
		json_array_foreach(jget(n, "netdevs"), k, nd) {
			if (!json_is_number(jget(nd, "rail")) &&
			    !netdev_of_port(n, jstr(nd, "name")))
				continue;
			if (!rows++) {
				fputs("| Node | Netdev | Rail | Link | MTU | Addresses | PFC storm "
				      "prevention | Pause counters polled |\n",
				      f);
				fputs("| --- | --- | --- | --- | --- | --- | --- | --- |\n", f);
			}
			fputs("| ", f);
			cell(f, jstr(n, "name"));
			next_cell(f, jstr(nd, "name"));
			fprintf(f, " | %s", num(nd, "rail", 0, b1, sizeof(b1)));
			md_link_state(f, nd);
			fprintf(f, " | %s | ", num(nd, "mtu", 0, b2, sizeof(b2)));
			if (!json_array_size(jget(nd, "addrs")))
				fputs(DASH, f);
			json_array_foreach(jget(nd, "addrs"), m, a) {
				fputs(m ? ", " : "", f);
				cell(f, json_string_value(a) ?: "?");
			}
			md_pfc_prevention(f, nd);
			fputs(" |\n", f);
		}
	}
	if (rows)
		fputs("\n", f);
	else
		fputs("Rail netdevs: not reported.\n\n", f);
	fputs("PFC/DCB: the enabled PFC priorities and the ETS configuration are not reported by "
	      "the agents; storm prevention and the pause counters they poll are shown per "
	      "netdev.\n\n",
	      f);
}

static void md_env_clock(FILE *f, const json_t *r)
{
	const json_t *clock = jget(r, "clock.nodes"), *n;
	char b1[32], b2[32], b3[32], b4[32];
	double u, worst = -1;
	size_t i;

	if (!json_array_size(clock)) {
		fputs("Clock offsets: not measured.\n\n", f);
		return;
	}
	fputs("Clock alignment (node clock minus coordinator clock; events are placed on the "
	      "coordinator's clock with these offsets):\n\n",
	      f);
	fputs("| Node | Offset | Uncertainty | Round trip | Samples |\n", f);
	fputs("| --- | --- | --- | --- | --- |\n", f);
	json_array_foreach(clock, i, n) {
		fputs("| ", f);
		cell(f, jstr(n, "name"));
		fprintf(f, " | %s µs | ± %s µs | %s µs | %s |\n",
			num(n, "offset_us", 1, b1, sizeof(b1)),
			num(n, "uncertainty_us", 1, b2, sizeof(b2)),
			num(n, "rtt_us", 1, b3, sizeof(b3)), num(n, "samples", 0, b4, sizeof(b4)));
		if (jnum(n, "uncertainty_us", &u) && u > worst)
			worst = u;
	}
	fputs("\n", f);
	if (worst >= 0)
		fprintf(f,
			"Worst uncertainty ± %.1f µs: differences between nodes' events finer than "
			"that are not meaningful.\n\n",
			worst);
}

static void md_environment(FILE *f, const json_t *r)
{
	const json_t *nodes = jget(r, "environment.nodes");
	char b1[32], b2[32];

	fputs("## Environment\n\n", f);
	if (jget(r, "environment.lab")) {
		const char *accel = jstr(r, "environment.lab.accel");

		fprintf(f, "Built-in lab: %s nodes, %s rails",
			num(r, "environment.lab.nodes", 0, b1, sizeof(b1)),
			num(r, "environment.lab.rails", 0, b2, sizeof(b2)));
		if (accel)
			fprintf(f, ", QEMU accel %s", accel);
		fputs(" (Soft-RoCE in VMs: far slower than hardware).\n\n", f);
	}
	if (!json_array_size(nodes)) {
		fputs("No node inventory was recorded.\n\n", f);
	} else {
		md_env_nodes(f, nodes);
		md_env_ports(f, nodes);
		md_env_netdevs(f, nodes);
	}
	md_env_clock(f, r);
}

static void md_target(FILE *f, const json_t *t)
{
	char buf[256];
	size_t off = 0;
	double rail;

	if (!json_is_object(t)) {
		fputs(DASH, f);
		return;
	}
	off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%s", jstr(t, "node") ?: "?");
	if (jstr(t, "workload"))
		off += (size_t)snprintf(buf + off, sizeof(buf) - off, " workload %s",
					jstr(t, "workload"));
	if (jnum(t, "rail", &rail))
		off += (size_t)snprintf(buf + off, sizeof(buf) - off, " rail %.0f", rail);
	if (jstr(t, "netdev"))
		off +=
		    (size_t)snprintf(buf + off, sizeof(buf) - off, " netdev %s", jstr(t, "netdev"));
	if (jstr(t, "device") && off < sizeof(buf))
		snprintf(buf + off, sizeof(buf) - off, " device %s", jstr(t, "device"));
	cell(f, buf);
}

/* "count=3, down_ms=2000, up_ms=3000", or "—" for none. */
static void md_params(FILE *f, const json_t *params)
{
	const char *key;
	const json_t *v;
	bool first = true;

	if (!json_is_object(params) || !json_object_size(params)) {
		fputs(DASH, f);
		return;
	}
	json_object_foreach((json_t *)params, key, v) {
		char *s = compact(v);

		fprintf(f, "%s", first ? "" : ", ");
		cell(f, key);
		fputc('=', f);
		cell(f, s ? s : "?");
		free(s);
		first = false;
	}
}

/* "20003.1 ms (2026-11-30T04:03:41.200Z)" or a fallback. */
static void md_when(FILE *f, const json_t *fault, const char *ms_key, const char *at_key,
		    const char *never)
{
	char b[48];
	double ms;

	if (!jnum(fault, ms_key, &ms)) {
		fputs(never, f);
		return;
	}
	fprintf(f, "%s", fmt_ms(ms, b, sizeof(b)));
	if (jstr(fault, at_key))
		fprintf(f, " (%s)", jstr(fault, at_key));
}

static void md_actions(FILE *f, const json_t *r)
{
	const json_t *faults = jget(r, "faults"), *ft;
	char b1[32], b2[32];
	size_t i;

	fputs("## Actions\n\n", f);
	if (!json_array_size(faults)) {
		fputs("No fault was recorded.\n\n", f);
		return;
	}
	fputs("Times count from the workload start on the coordinator's clock.\n\n", f);
	fputs("| Fault | Injector | Target | Params | Planned | Injected | Reverted |\n", f);
	fputs("| --- | --- | --- | --- | --- | --- | --- |\n", f);
	json_array_foreach(faults, i, ft) {
		const json_t *params = jget(ft, "params");

		fputs("| ", f);
		cell(f, jstr(ft, "id"));
		fputs(" | ", f);
		cell(f, jstr(ft, "injector"));
		fputs(" | ", f);
		md_target(f, jget(ft, "target"));
		fputs(" | ", f);
		md_params(f, params);
		fprintf(f, " | at %s ms for %s ms | ", num(ft, "at_ms", 0, b1, sizeof(b1)),
			num(ft, "duration_ms", 0, b2, sizeof(b2)));
		if (!jnum(ft, "injected_ms", &(double){0}) && jstr(ft, "error")) {
			fputs("not injected: ", f);
			cell(f, jstr(ft, "error"));
		} else {
			md_when(f, ft, "injected_ms", "injected_at", "not injected");
		}
		fputs(" | ", f);
		md_when(f, ft, "reverted_ms", "reverted_at", "not reverted");
		fputs(" |\n", f);
	}
	fputs("\n", f);
	json_array_foreach(faults, i, ft) {
		double sent, rcvd;

		if (!jget(ft, "pfc"))
			continue;
		fputs("- PFC evidence for ", f);
		cell(f, jstr(ft, "id"));
		fputs(": ", f);
		if (jnum(ft, "pfc.frames_sent", &sent))
			fprintf(f, "%.0f frames sent, ", sent);
		if (jnum(ft, "pfc.frames_received", &rcvd))
			fprintf(f, "%.0f received; ", rcvd);
		cell(f, jstr(ft, "pfc.evidence") ?: "?");
		fputs(".\n", f);
	}
	json_array_foreach(faults, i, ft) {
		if (!jstr(ft, "note"))
			continue;
		fputs("- Note on ", f);
		cell(f, jstr(ft, "id"));
		fputs(": ", f);
		cell(f, jstr(ft, "note"));
		fputs("\n", f);
	}
	json_array_foreach(faults, i, ft) {
		if (jstr(ft, "note") || jget(ft, "pfc")) {
			fputs("\n", f);
			break;
		}
	}
}

/* "812 ms / 5000 ms ✅ (port_event)", "— / 5000 ms ❌ (not seen)" */
static void md_measure(FILE *f, const json_t *m, const char *absent)
{
	const char *why;
	char b1[32], b2[32];
	double ms, thr;

	if (!json_is_object(m)) {
		fputs(absent, f);
		return;
	}
	fprintf(f, "%s / %s ", jnum(m, "ms", &ms) ? fmt_ms(ms, b1, sizeof(b1)) : DASH,
		jnum(m, "threshold_ms", &thr) ? fmt_ms(thr, b2, sizeof(b2)) : DASH);
	if (json_is_true(jget(m, "ok")))
		fputs("✅", f);
	else if (json_is_true(jget(m, "inconclusive")))
		fputs("⚠️", f);
	else
		fputs("❌", f);
	why = jstr(m, "note");
	if (!why)
		why = jstr(m, "signal");
	if (!why && !jnum(m, "ms", &ms))
		why = "not seen";
	if (why) {
		fputs(" (", f);
		cell(f, why);
		fputs(")", f);
	}
}

static void md_results(FILE *f, const json_t *r)
{
	const json_t *faults = jget(r, "faults"), *ft;
	char b[32];
	double ratio;
	size_t i;

	fputs("## Results\n\n", f);
	if (!json_array_size(faults)) {
		fputs("Nothing was measured.\n\n", f);
		return;
	}
	fputs("| Fault | Detection | Isolation | Recovery |\n", f);
	fputs("| --- | --- | --- | --- |\n", f);
	json_array_foreach(faults, i, ft) {
		fputs("| ", f);
		cell(f, jstr(ft, "id"));
		fputs(" | ", f);
		md_measure(f, jget(ft, "detection"), DASH);
		fputs(" | ", f);
		md_measure(f, jget(ft, "isolation"), "not checked");
		fputs(" | ", f);
		md_measure(f, jget(ft, "recovery"), DASH);
		fputs(" |\n", f);
	}
	if (jnum(r, "expect.recovery.throughput_ratio", &ratio))
		snprintf(b, sizeof(b), "%.0f%%", ratio * 100);
	else
		snprintf(b, sizeof(b), "the expected share");
	fprintf(f,
		"\nEach cell is measured / allowed. Detection and isolation count from the "
		"injection to the first matching event; recovery counts to the end of the last "
		"stretch below %s of the baseline throughput, after which it held (see "
		"docs/SCENARIOS.md, \"How times are measured\").\n\n",
		b);
}

static void md_integrity(FILE *f, const json_t *r)
{
	const json_t *in = jget(r, "workload.integrity");
	char b[5][32], lim[32];

	fputs("## Integrity\n\n", f);
	if (!json_is_object(in)) {
		fputs("Unknown: the workload's client or server summary is missing, so lost and "
		      "corrupted messages could not be counted.\n\n",
		      f);
		return;
	}
	fputs("| Sent | Received | Lost | Duplicated | Corrupted |\n", f);
	fputs("| --- | --- | --- | --- | --- |\n", f);
	fprintf(f, "| %s | %s | %s", num(in, "sent", 0, b[0], sizeof(b[0])),
		num(in, "received", 0, b[1], sizeof(b[1])), num(in, "lost", 0, b[2], sizeof(b[2])));
	if (json_is_number(jget(r, "expect.integrity.lost")))
		fprintf(f, " (at most %s)", num(r, "expect.integrity.lost", 0, lim, sizeof(lim)));
	fprintf(f, " | %s | %s", num(in, "duplicated", 0, b[3], sizeof(b[3])),
		num(in, "corrupted", 0, b[4], sizeof(b[4])));
	if (json_is_number(jget(r, "expect.integrity.corrupted")))
		fprintf(f, " (at most %s)",
			num(r, "expect.integrity.corrupted", 0, lim, sizeof(lim)));
	fputs(
	    " |\n\nLost: acknowledged to the client but never received intact by the server. "
	    "Duplicates are expected after a failover (the client resends what was in flight).\n\n",
	    f);
}

static void md_throughput(FILE *f, const json_t *r)
{
	const json_t *w = jget(r, "workload");
	char b[6][32];
	double from, to;

	fputs("## Throughput\n\n", f);
	fputs("| Before (baseline) | During faults | After |\n| --- | --- | --- |\n", f);
	fprintf(f, "| %s MB/s | %s MB/s | %s MB/s |\n\n",
		num(w, "throughput.before_mbps", 1, b[0], sizeof(b[0])),
		num(w, "throughput.during_mbps", 1, b[1], sizeof(b[1])),
		num(w, "throughput.after_mbps", 1, b[2], sizeof(b[2])));
	if (!jget(w, "baseline")) {
		fputs("No baseline was measured.\n\n", f);
		return;
	}
	fprintf(f, "Baseline: %s MB/s mean, p50 latency %s µs, over %s samples",
		num(w, "baseline.throughput_mbps", 1, b[0], sizeof(b[0])),
		num(w, "baseline.latency_us_p50", 0, b[1], sizeof(b[1])),
		num(w, "baseline.samples", 0, b[2], sizeof(b[2])));
	from = json_number_value(json_array_get(jget(w, "baseline.window_ms"), 0));
	to = json_number_value(json_array_get(jget(w, "baseline.window_ms"), 1));
	if (json_array_size(jget(w, "baseline.window_ms")) == 2)
		fprintf(f, " in %.0f-%.0f ms", from, to);
	fputs(".", f);
	if (jstr(w, "from") && jstr(w, "to"))
		fprintf(f, " Workload: %s %s → %s, %s-byte messages, queue depth %s.",
			jstr(w, "kind") ?: "stream", jstr(w, "from"), jstr(w, "to"),
			num(w, "msg_size", 0, b[3], sizeof(b[3])),
			num(w, "queue_depth", 0, b[4], sizeof(b[4])));
	fputs("\n\n", f);
}

static void md_anomalies(FILE *f, const json_t *r)
{
	const json_t *an = jget(r, "anomalies"), *a;
	char b[32];
	size_t i;

	fputs("## Anomalies\n\n", f);
	if (!json_array_size(an)) {
		fputs("None recorded.\n\n", f);
		return;
	}
	json_array_foreach(an, i, a) {
		const json_t *what = jget(a, "what");
		char *s = what ? compact(what) : compact(a);

		fprintf(f, "- %s ms, %s: ", num(a, "t_ms", 1, b, sizeof(b)),
			jstr(a, "node") ?: "?");
		if (s && s[0] == '{')
			fprintf(f, "`%s`\n", s);
		else
			fprintf(f, "%s\n", s ? s : "?");
		free(s);
	}
	fputs("\n", f);
}

static void md_cleanup(FILE *f, const json_t *r)
{
	const json_t *c = jget(r, "cleanup"), *acts = jget(c, "actions"), *a;
	size_t i;

	fputs("## Cleanup\n\n", f);
	if (!c)
		fputs("No cleanup was recorded: check the nodes by hand.\n\n", f);
	else if (json_is_true(jget(c, "verified")))
		fputs("Every fault was reverted and the prior state verified.\n\n", f);
	else
		fputs("**Not verified: check the nodes by hand before the next drill.**\n\n", f);
	if (!json_array_size(acts))
		return;
	fputs("The revert steps, as performed and checked:\n\n", f);
	fputs("| Node | Fault | Action | Verified |\n| --- | --- | --- | --- |\n", f);
	json_array_foreach(acts, i, a) {
		if (json_is_string(a)) {
			fputs("| — | — | ", f);
			cell(f, json_string_value(a));
			fputs(" | — |\n", f);
			continue;
		}
		fputs("| ", f);
		cell(f, jstr(a, "node"));
		fputs(" | ", f);
		cell(f, jstr(a, "fault_id"));
		fputs(" | ", f);
		cell(f, jstr(a, "action"));
		fprintf(f, " | %s |\n",
			json_is_true(jget(a, "verified"))    ? "✅"
			: json_is_false(jget(a, "verified")) ? "❌"
							     : DASH);
	}
	fputs("\n", f);
}

/* Only the limits the scenario set; 0 in report.json means "not limited". */
static void md_blast_radius(FILE *f, const json_t *b)
{
	json_int_t nodes = json_integer_value(jget(b, "max_nodes"));
	json_int_t rails = json_integer_value(jget(b, "max_rails"));
	double share = json_number_value(jget(b, "max_fleet_share"));
	const char *sep = "";

	if (!nodes && !rails && !(share > 0)) {
		fputs("- Blast radius: not limited by the scenario.\n", f);
		return;
	}
	fputs("- Blast radius, at once:", f);
	if (nodes) {
		fprintf(f, " at most %lld node(s)", (long long)nodes);
		sep = ",";
	}
	if (rails) {
		fprintf(f, "%s at most %lld rail(s)", sep, (long long)rails);
		sep = ",";
	}
	if (share > 0)
		fprintf(f, "%s at most %.0f%% of the fleet", sep, 100 * share);
	fputs("; checked before anything was touched, and by each agent.\n", f);
}

static void md_safety(FILE *f, const json_t *r)
{
	const json_t *s = jget(r, "safety"), *g;
	double v;
	size_t i;

	if (!s)
		return;
	fputs("## Safety\n\n", f);
	if (jnum(s, "lease_ms", &v))
		fprintf(f,
			"- Each fault was leased for %.1f s (renewals sent %lld, failed %lld): an "
			"agent that stops hearing from the coordinator reverts it.\n",
			v / 1000.0, json_integer_value(jget(s, "renewals.sent")),
			json_integer_value(jget(s, "renewals.failed")));
	md_blast_radius(f, jget(s, "blast_radius"));
	json_array_foreach(jget(s, "guards"), i, g) {
		fprintf(f, "- Guard %zu: abort on %s", i, jstr(g, "description") ?: "?");
		if (jnum(g, "flow.baseline_mbps", &v))
			fprintf(f, " (flow baseline %.2f MB/s)", v);
		fputs(": ", f);
		if (json_is_true(jget(g, "tripped")))
			fprintf(f, "**tripped** at %.1f s: %s\n",
				json_number_value(jget(g, "tripped_ms")) / 1000.0,
				jstr(g, "why") ?: "?");
		else
			fputs("held\n", f);
	}
	fputs("\n", f);
}

/* One statistic of a phase's distribution: "812 ms", "not seen" (a trial never saw it), "—". */
static void md_stat(FILE *f, const json_t *st, const char *key)
{
	char b[32];
	double v;

	if (jnum(st, key, &v))
		fputs(fmt_ms(v, b, sizeof(b)), f);
	else if (json_is_object(st))
		fputs("not seen", f);
	else
		fputs(DASH, f);
}

/* "rail0-down: 10 trials, every 30000 ms, at 20000, 50000, ... ms" */
static void md_schedule(FILE *f, const json_t *r)
{
	const json_t *faults = jget(r, "schedule.faults"), *s, *at;
	char b1[32], b2[32];
	size_t i, k;

	if (!json_array_size(faults))
		return;
	fprintf(f, "Schedule, from seed %s:\n\n", num(r, "schedule.seed", 0, b1, sizeof(b1)));
	json_array_foreach(faults, i, s) {
		fputs("- ", f);
		cell(f, jstr(s, "fault"));
		fprintf(f, ": %s trials, ", num(s, "count", 0, b1, sizeof(b1)));
		if (streq(jstr(s, "kind"), "random"))
			fprintf(f, "random gaps of %s-%s ms",
				num(s, "min_gap_ms", 0, b1, sizeof(b1)),
				num(s, "max_gap_ms", 0, b2, sizeof(b2)));
		else
			fprintf(f, "every %s ms", num(s, "every_ms", 0, b1, sizeof(b1)));
		if (json_array_size(jget(s, "at_ms"))) {
			fputs(", at ", f);
			json_array_foreach(jget(s, "at_ms"), k, at)
				fprintf(f, "%s%.0f", k ? ", " : "", json_number_value(at));
			fputs(" ms", f);
		}
		fputs("\n", f);
	}
	fputs("\n", f);
}

/* report["trials"] (repeat:, schedule:): each repeated fault's distribution per phase. */
static void md_trials(FILE *f, const json_t *r)
{
	static const char *const phases[] = {"detection", "isolation", "recovery"};
	const json_t *trials = jget(r, "trials"), *t, *st;
	char b[32], path[48];
	double thr;
	size_t i, k;

	if (!json_array_size(trials))
		return;
	fputs("## Trials\n\n", f);
	fputs("Each repeated fault's phases over its trials (nearest rank; a trial that never saw "
	      "a phase counts as slower than any that did). Each trial's own measurements are in "
	      "Results, one row per trial (FAULT#N).\n\n",
	      f);
	fputs("| Fault | Trials | Phase | Judged on | p50 | p90 | Max | Allowed | Result |\n", f);
	fputs("| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n", f);
	json_array_foreach(trials, i, t) {
		for (k = 0; k < sizeof(phases) / sizeof(phases[0]); k++) {
			if (!json_object_get(json_is_object(t) ? t : NULL, phases[k]))
				continue;
			st = jget(t, phases[k]);
			snprintf(path, sizeof(path), "expect.%s.stat", phases[k]);
			fputs("| ", f);
			cell(f, jstr(t, "fault"));
			fprintf(f, " | %s | %s | ", num(t, "count", 0, b, sizeof(b)), phases[k]);
			cell(f, jstr(st, "stat") ?: jstr(r, path) ?: "max");
			fputs(" | ", f);
			md_stat(f, st, "p50");
			fputs(" | ", f);
			md_stat(f, st, "p90");
			fputs(" | ", f);
			md_stat(f, st, "max");
			fprintf(f, " | %s | ",
				jnum(st, "threshold_ms", &thr) ? fmt_ms(thr, b, sizeof(b)) : DASH);
			if (!json_is_object(st))
				fputs("⚠️ no trial measured", f);
			else
				fprintf(f, "%s %s judged, %s seen",
					json_is_true(jget(st, "ok")) ? "✅" : "❌",
					num(st, "judged", 0, path, sizeof(path)),
					num(st, "seen", 0, b, sizeof(b)));
			fputs(" |\n", f);
		}
	}
	fputs("\n", f);
	md_schedule(f, r);
}

static const char *owner_of(const json_t *r)
{
	const char *o = jstr(r, "scenario.owner");

	return o && *o ? o : NULL;
}

static void md_owners(FILE *f, const json_t *r)
{
	fputs("## Owners\n\n", f);
	if (owner_of(r)) {
		fputs("- ", f);
		cell(f, owner_of(r));
		fputs(": owns this drill (from the scenario) and its action items.\n\n", f);
	} else {
		fputs("Not named: the scenario has no `owner`; name one so the action items reach "
		      "someone.\n\n",
		      f);
	}
}

static void md_action_items(FILE *f, const json_t *r)
{
	json_t *items = action_items_of(r);
	const json_t *it;
	size_t i;

	fputs("## Action items\n\n", f);
	if (!json_array_size(items)) {
		fputs("None: nothing in this drill calls for work.\n\n", f);
		json_decref(items);
		return;
	}
	fputs("| # | Fault | Action | Because | Owner |\n| --- | --- | --- | --- | --- |\n", f);
	json_array_foreach(items, i, it) {
		fprintf(f, "| %zu", i + 1);
		next_cell(f, jstr(it, "fault"));
		next_cell(f, jstr(it, "item") ?: json_string_value(it));
		next_cell(f, jstr(it, "because"));
		next_cell(f, jstr(it, "owner") ?: owner_of(r));
		fputs(" |\n", f);
	}
	fputs("\n", f);
	json_decref(items);
}

static void md_reasons(FILE *f, const json_t *r)
{
	const json_t *reasons = jget(r, "reasons"), *s;
	size_t i;

	fputs("## Reasons\n\n", f);
	if (!json_array_size(reasons)) {
		fputs("None recorded.\n\n", f);
		return;
	}
	json_array_foreach(reasons, i, s)
		fprintf(f, "- %s\n", json_string_value(s) ?: "?");
	fputs("\n", f);
}

static int emit_md(FILE *f, const void *arg)
{
	const json_t *r = arg;
	char b[32];

	md_title(f, r);
	md_summary(f, r);
	md_goal(f, r);
	md_environment(f, r);
	md_actions(f, r);
	md_results(f, r);
	md_trials(f, r);
	md_integrity(f, r);
	md_throughput(f, r);
	md_anomalies(f, r);
	md_cleanup(f, r);
	md_safety(f, r);
	md_owners(f, r);
	md_action_items(f, r);
	md_reasons(f, r);
	fprintf(f, "---\n_Every event: `%s` (%s events). Machine record: `report.json` (%s)._\n",
		jstr(r, "events.file") ?: "events.jsonl", num(r, "events.count", 0, b, sizeof(b)),
		jstr(r, "schema") ?: REPORT_SCHEMA);
	return ferror(f) ? -EIO : 0;
}

int report_write_md(const char *path, const json_t *report)
{
	if (!json_is_object(report))
		return -EINVAL;
	return report_write_file(path, emit_md, report);
}
