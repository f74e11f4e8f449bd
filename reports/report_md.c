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

static int emit_md(FILE *f, const void *arg)
{
	const json_t *r = arg;

	md_title(f, r);
	rw_summary(f, r, &md_markup);
	rw_goal(f, r, &md_markup);
	rw_environment(f, r, &md_markup);
	rw_actions(f, r, &md_markup);
	rw_results(f, r, &md_markup);
	rw_alerts(f, r, &md_markup);
	rw_scheduler(f, r, &md_markup);
	rw_trials(f, r, &md_markup);
	rw_job(f, r, &md_markup);
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
