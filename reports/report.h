/* SPDX-License-Identifier: MIT */
/*
 * Report writers. The coordinator assembles one JSON document (the schema in
 * docs/REPORT.md); each writer renders it. Files are written to a temporary
 * name and renamed, so a reader never sees half a report.
 */
#ifndef RC_REPORT_H
#define RC_REPORT_H

#include <jansson.h>
#include <stdio.h>

#define REPORT_SCHEMA "rdmachaos.report/v1"

int report_write_json(const char *path, const json_t *report);
int report_write_md(const char *path, const json_t *report);
/*
 * report.html: one self-contained file (no network) with an SVG timeline
 * drawn from events (the events.jsonl objects as one array; may be NULL).
 */
int report_write_html(const char *path, const json_t *report, const json_t *events);
/* junit.xml: one testsuite per scenario, one testcase per fault and assertion. */
int report_write_junit(const char *path, const json_t *report);

/*
 * Derived judgements every writer shows the same way (reports/report_derive.c).
 * Both work on a report.json of any age: the coordinator stores them in the
 * report, and a re-render of an older report derives them again.
 *
 * readiness: {"category": "ready"|"needs_work"|"defer", "label": "...",
 *             "rule": "the sentence of the rule that mapped the verdict to it"}
 * action_items: [{"fault": ID or null, "item": "what to do", "because": "evidence"}]
 */
json_t *report_readiness(const json_t *report);
json_t *report_action_items(const json_t *report);
/*
 * What a writer shows: report["readiness"] when it is whole (a category and
 * a rule), report["action_items"] when it is an array, else derived again as
 * above (an older report). A new reference; the caller decrefs.
 */
json_t *report_readiness_of(const json_t *report);
json_t *report_action_items_of(const json_t *report);
/* One event object per line. */
int report_write_events(const char *path, const json_t *events);

/*
 * Shared by the writers: runs emit(f, arg) on a temporary file next to path
 * (same folder, so the rename is atomic), flushes and fsyncs it, makes it
 * 0644 and renames it over path. emit returns 0 or -errno; on any error the
 * temporary file is removed and path is left as it was.
 */
int report_write_file(const char *path, int (*emit)(FILE *f, const void *arg), const void *arg);

/* ---- run folders (reports/report_run.c) ---------------------------------- */

enum report_format {
	REPORT_FMT_JSON = 1 << 0,
	REPORT_FMT_MD = 1 << 1,
	REPORT_FMT_HTML = 1 << 2,
	REPORT_FMT_JUNIT = 1 << 3,
	REPORT_FMT_ALL = REPORT_FMT_JSON | REPORT_FMT_MD | REPORT_FMT_HTML | REPORT_FMT_JUNIT,
};

/*
 * Writes the chosen formats of one report into dir (report.json, report.md,
 * report.html, junit.xml). Every format is attempted; returns 0 or the first
 * -errno, with the file that failed named in err.
 */
int report_render(const char *dir, const json_t *report, const json_t *events, unsigned int formats,
		  char *err, size_t errlen);

/*
 * Loads dir/report.json (required: an object with the report's schema) and
 * dir/events.jsonl (optional: *events is an empty array when the file is
 * missing). 0, or -errno / -EINVAL with "PATH:LINE: what" in err.
 */
int report_load_run(const char *dir, json_t **report, json_t **events, char *err, size_t errlen);

#endif
