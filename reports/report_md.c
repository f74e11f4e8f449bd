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
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reports/report.h"
#include "reports/report_util.h"
#include "reports/report_walk.h"

/* ---- formatting --------------------------------------------------------- */

/* Text for a table cell: '|' escaped, line breaks flattened. */
static void cell(FILE *f, const char *s)
{
	if (!s || !*s) {
		fputs(RU_DASH, f);
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

/* "## Title" and a blank line; markdown has no ids. */
static void md_section(FILE *f, const char *id, const char *title)
{
	(void)id;
	fprintf(f, "## %s\n\n", title);
}

/* "| A | B |" and the "| --- | --- |" under it. */
static void md_table(FILE *f, const char *cls, const char *const *heads)
{
	size_t i;

	(void)cls;
	fputs("|", f);
	for (i = 0; heads[i]; i++)
		fprintf(f, " %s |", heads[i]);
	fputs("\n|", f);
	for (i = 0; heads[i]; i++)
		fputs(" --- |", f);
	fputs("\n", f);
}

/* Markdown paragraphs have no class. */
static void md_para_cls(FILE *f, const char *cls, const char *variant)
{
	(void)f;
	(void)cls;
	(void)variant;
}

/* A row is "|" then " CELL |" for each cell: "| a | b |". */
static void md_cell(FILE *f, const char *cls)
{
	(void)cls;
	fputc(' ', f);
}

/* A result's sign, in the Result cells of Results and Trials, and Cleanup's Verified. */
static const char *const md_marks[] = {
    [RU_RESULT_OK] = "✅", [RU_RESULT_INCONCLUSIVE] = "⚠️", [RU_RESULT_NOT_OK] = "❌"};

static void md_mark(FILE *f, enum ru_result res, const char *word)
{
	(void)word;
	fputs(md_marks[res], f);
}

/* Prose data as it is; cell data with '|' escaped and line breaks flattened. */
static const struct rw_markup md_markup = {
    .prose = {ru_put_raw, {"- ", "\n"}, {"**", "**"}, {"`", "`"}},
    .cells = {cell, {"- ", "\n"}, {"**", "**"}, {"`", "`"}},
    .section = md_section,
    .section_end = "",
    .para = {"", "\n\n"},
    .bad_para = {"**", "**\n\n"},
    .list = {"", "\n"},
    .em = {"_", "_"},
    .bold = {"**", "**"},
    .para_cls = md_para_cls,
    .table = md_table,
    .table_end = "\n",
    .row = {"|", "\n"},
    .cell = md_cell,
    .cell_end = " |",
    .mark = md_mark,
};

/* ---- derived judgements: stored in the report, or derived again ----------- */

/* ---- sections ----------------------------------------------------------- */

static void md_title(FILE *f, const json_t *r)
{
	const char *name = ru_str(r, "scenario.name"), *v = ru_str(r, "verdict");
	char up[32];
	size_t i;

	snprintf(up, sizeof(up), "%s", v ? v : "unknown");
	for (i = 0; up[i]; i++)
		up[i] = (char)(up[i] >= 'a' && up[i] <= 'z' ? up[i] - 'a' + 'A' : up[i]);
	fprintf(f, "# Drill report: %s — %s %s\n\n", name ? name : "unnamed drill", up,
		verdict_mark(v));
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
		cell(f, ru_str(n, "name"));
		next_cell(f, ru_str(n, "agent"));
		next_cell(f, ru_str(n, "agent_version"));
		next_cell(f, ru_str(n, "kernel"));
		next_cell(f, ru_str(n, "rdma_core"));
		next_cell(f, ru_str(n, "control_if"));
		fputs(" |\n", f);
	}
	fputs("\n", f);
}

static void md_port_row(FILE *f, const json_t *n, const json_t *dev, const json_t *port)
{
	char b1[32], b2[32], b3[32];

	fputs("| ", f);
	cell(f, ru_str(n, "name"));
	next_cell(f, ru_str(dev, "name"));
	next_cell(f, ru_str(dev, "fw_ver"));
	fprintf(f, " | %s", ru_num_text(port, "port", 0, b1, sizeof(b1)));
	next_cell(f, ru_str(port, "state") ?: ru_str(port, "error") ?: ru_str(dev, "error"));
	next_cell(f, ru_str(port, "link_layer"));
	fprintf(f, " | %s", ru_num_text(port, "active_mtu", 0, b2, sizeof(b2)));
	next_cell(f, ru_str(port, "netdev"));
	fprintf(f, " | %s |\n", ru_num_text(port, "netdev_mtu", 0, b3, sizeof(b3)));
}

/* One row per port of every device; a node without devices gets one row of dashes. */
static void md_env_ports(FILE *f, const json_t *nodes)
{
	fputs("| Node | Device | Firmware | Port | State | Link layer | RDMA MTU | Netdev | Netdev "
	      "MTU "
	      "|\n",
	      f);
	fputs("| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n", f);
	ru_each_port(f, nodes, md_port_row);
	fputs("\n", f);
}

/* A netdev a device's port names: the ones RDMA traffic crosses. */
static bool netdev_of_port(const json_t *node, const char *name)
{
	const json_t *dev, *port;
	size_t j, k;

	json_array_foreach(ru_get(node, "devices"), j, dev)
		json_array_foreach(ru_get(dev, "ports"), k, port)
			if (name && ru_str(port, "netdev") && !strcmp(ru_str(port, "netdev"), name))
				return true;
	return false;
}

/* "up", "down, no carrier", "—" */
static void md_link_state(FILE *f, const json_t *nd)
{
	const char *oper = ru_str(nd, "oper");

	fputs(" | ", f);
	if (!oper && !ru_get(nd, "up")) {
		fputs(RU_DASH, f);
		return;
	}
	if (oper && strcmp(oper, "unknown"))
		cell(f, oper);
	else
		fputs(json_is_true(ru_get(nd, "up")) ? "up" : "down", f);
	if (json_is_false(ru_get(nd, "carrier")))
		fputs(", no carrier", f);
}

/* The NIC's PFC storm prevention: "auto", "disabled", "100 ms", "not supported". */
static void md_pfc_prevention(FILE *f, const json_t *nd)
{
	const json_t *p = ru_get(nd, "pfc.prevention_tout_ms");
	char b[32];

	fputs(" | ", f);
	if (json_is_string(p))
		cell(f, json_string_value(p));
	else if (json_is_number(p))
		fprintf(f, "%s ms", ru_num_text(nd, "pfc.prevention_tout_ms", 0, b, sizeof(b)));
	else
		fputs("not reported", f);
	fputs(" | ", f);
	if (json_is_number(ru_get(nd, "pfc.counters")))
		fputs(ru_num_text(nd, "pfc.counters", 0, b, sizeof(b)), f);
	else
		fputs("not reported", f);
	if (ru_str(nd, "pfc.error")) {
		fputs(" (", f);
		cell(f, ru_str(nd, "pfc.error"));
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
		json_array_foreach(ru_get(n, "netdevs"), k, nd) {
			if (!json_is_number(ru_get(nd, "rail")) &&
			    !netdev_of_port(n, ru_str(nd, "name")))
				continue;
			if (!rows++) {
				fputs("| Node | Netdev | Rail | Link | MTU | Addresses | PFC storm "
				      "prevention | Pause counters polled |\n",
				      f);
				fputs("| --- | --- | --- | --- | --- | --- | --- | --- |\n", f);
			}
			fputs("| ", f);
			cell(f, ru_str(n, "name"));
			next_cell(f, ru_str(nd, "name"));
			fprintf(f, " | %s", ru_num_text(nd, "rail", 0, b1, sizeof(b1)));
			md_link_state(f, nd);
			fprintf(f, " | %s | ", ru_num_text(nd, "mtu", 0, b2, sizeof(b2)));
			if (!json_array_size(ru_get(nd, "addrs")))
				fputs(RU_DASH, f);
			json_array_foreach(ru_get(nd, "addrs"), m, a) {
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
	const json_t *clock = ru_get(r, "clock.nodes"), *n;
	char b1[32], b2[32], b3[32], b4[32];
	double u, worst = -1;
	size_t i;

	if (!json_array_size(clock)) {
		fputs("Clock offsets: not measured.\n\n", f);
		return;
	}
	fprintf(f, "%s\n\n", ru_clock_intro);
	fputs("| Node | Offset | Uncertainty | Round trip | Samples |\n", f);
	fputs("| --- | --- | --- | --- | --- |\n", f);
	json_array_foreach(clock, i, n) {
		fputs("| ", f);
		cell(f, ru_str(n, "name"));
		fprintf(f, " | %s µs | ± %s µs | %s µs | %s |\n",
			ru_num_text(n, "offset_us", 1, b1, sizeof(b1)),
			ru_num_text(n, "uncertainty_us", 1, b2, sizeof(b2)),
			ru_num_text(n, "rtt_us", 1, b3, sizeof(b3)),
			ru_num_text(n, "samples", 0, b4, sizeof(b4)));
		if (ru_num(n, "uncertainty_us", &u) && u > worst)
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
	const json_t *nodes = ru_get(r, "environment.nodes");

	fputs("## Environment\n\n", f);
	if (ru_get(r, "environment.lab")) {
		ru_lab(f, r, &md_markup.prose);
		fputs("\n\n", f);
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

static int emit_md(FILE *f, const void *arg)
{
	const json_t *r = arg;

	md_title(f, r);
	rw_summary(f, r, &md_markup);
	rw_goal(f, r, &md_markup);
	md_environment(f, r);
	rw_actions(f, r, &md_markup);
	rw_results(f, r, &md_markup);
	rw_alerts(f, r, &md_markup);
	rw_trials(f, r, &md_markup);
	rw_integrity(f, r, &md_markup);
	rw_throughput(f, r, &md_markup);
	rw_anomalies(f, r, &md_markup);
	rw_cleanup(f, r, &md_markup);
	rw_safety(f, r, &md_markup);
	rw_owners(f, r, &md_markup);
	rw_action_items(f, r, &md_markup);
	rw_reasons(f, r, &md_markup);
	fputs("---\n_", f);
	ru_record(f, r, &md_markup.prose);
	fputs("_\n", f);
	return ferror(f) ? -EIO : 0;
}

int report_write_md(const char *path, const json_t *report)
{
	if (!json_is_object(report))
		return -EINVAL;
	return report_write_file(path, emit_md, report);
}
