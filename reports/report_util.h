/* SPDX-License-Identifier: MIT */
/*
 * What the report writers share (reports/report_util.c): JSON access that
 * tolerates anything, the number formats, and the sentences report.md and
 * report.html both say, written once and wrapped in each writer's markup.
 */
#ifndef RC_REPORT_UTIL_H
#define RC_REPORT_UTIL_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

/* What a writer shows for a value that is missing. */
#define RU_DASH "—"

/* ---- JSON access that tolerates anything --------------------------------- */

/*
 * o["a"]["b"]... for a dotted path; NULL when any step is missing or not an
 * object, or a key is 64 bytes or longer.
 */
const json_t *ru_get(const json_t *o, const char *path);
/* The string at path, or NULL. */
const char *ru_str(const json_t *o, const char *path);
/* The number at path in *v; false, *v untouched, when there is none. */
bool ru_num(const json_t *o, const char *path, double *v);
/* What the workload's throughput figures count (workload.throughput_unit): "MB/s" unless said. */
const char *ru_unit(const json_t *r);
/* Whether the value at path is JSON true. */
bool ru_true(const json_t *o, const char *path);
/* Both strings present and equal. */
bool ru_streq(const char *a, const char *b);
/* Any JSON value as compact text (strings without quotes); NULL on error; caller frees. */
char *ru_compact(const json_t *v);

/* ---- numbers -------------------------------------------------------------- */

/* The number at path with `decimals` digits after the point, in buf; else RU_DASH. */
const char *ru_num_text(const json_t *o, const char *path, int decimals, char *buf, size_t len);
/*
 * Always in milliseconds, for tables and titles that line values up by unit: "812 ms", "1.4 ms",
 * "2047 ms" (a tenth only below 10 ms, and only when it shows). Prose uses rc_format_ms().
 */
const char *ru_fmt_ms(double ms, char *buf, size_t len);
/* The milliseconds at path as ru_fmt_ms writes them, in buf; else RU_DASH. */
const char *ru_ms_text(const json_t *o, const char *path, char *buf, size_t len);
/* The ratio at path as a share, "80%", in buf; else `none`. */
const char *ru_share(const json_t *o, const char *path, const char *none, char *buf, size_t len);

/* ---- markup --------------------------------------------------------------- */

/* Writes data (a name, a reason, a timestamp) escaped as the format needs. */
typedef void ru_put_fn(FILE *f, const char *s);

/* Writes s as it is. */
void ru_put_raw(FILE *f, const char *s);

/* The entity for a markup character (& < > " and ', which is apos), or NULL for any other. */
const char *ru_entity(unsigned int c, const char *apos);

/* What opens and what closes a span of text; neither is a printf format. */
struct ru_wrap {
	const char *on, *off;
};

/*
 * How a writer marks up the sentences below: put writes the data in them;
 * item wraps a list item, strong a word that must stand out, code a file
 * name or a JSON object.
 */
struct ru_markup {
	ru_put_fn *put;
	struct ru_wrap item, strong, code;
};

/* ---- what report.md and report.html share --------------------------------- */

/*
 * Each writes its text for the report r (or the part of it named) with the
 * writer's markup m; what is around it (a paragraph, a section) is the
 * writer's. Any field may be missing.
 */

/* "Ran from START to END with rdmachaos VERSION, seed N." */
void ru_ran(FILE *f, const json_t *r, const struct ru_markup *m);
/* "Built-in lab: 2 nodes, 2 rails, QEMU accel tcg (Soft-RoCE in VMs: ...)." */
void ru_lab(FILE *f, const json_t *r, const struct ru_markup *m);
/* A list item: "Scenario: `FILE` (sha256 `SUM`)". */
void ru_scenario_item(FILE *f, const json_t *r, const struct ru_markup *m);
/* " on port_event, link_event or workload_error": expect x's detection signals, if any. */
void ru_expect_signals(FILE *f, const json_t *x, const struct ru_markup *m);
/* "; at most 0 lost; at most 0 corrupted": the integrity limits expect x sets. */
void ru_expect_limits(FILE *f, const json_t *x);

/*
 * Under the fault table: a list item for each fault's PFC evidence, then one
 * for each fault's note. Returns how many items were written.
 */
size_t ru_fault_notes(FILE *f, const json_t *faults, const struct ru_markup *m);

/* How measured times count (after the results table). */
void ru_results_note(FILE *f, const json_t *r);
/* A fault's params: "count=3, down_ms=2000, up_ms=3000", or RU_DASH for none. */
void ru_params(FILE *f, const json_t *params, const struct ru_markup *m);
/*
 * "20003.1 ms (2026-11-30T04:03:41.200Z)": when fault did what ms_key
 * records, with the time at at_key. False, nothing written, when it did not.
 */
bool ru_when(FILE *f, const json_t *fault, const char *ms_key, const char *at_key,
	     const struct ru_markup *m);

/* A measure's (detection, isolation, recovery) result. */
enum ru_result {
	RU_RESULT_OK,
	RU_RESULT_INCONCLUSIVE,
	RU_RESULT_NOT_OK,
};
enum ru_result ru_measure_result(const json_t *m);
/* What a measure's result is put down to: its note, its signal, "not seen" or NULL. */
const char *ru_measure_why(const json_t *m);

/*
 * A fault's failback (faults[].failback): whether expect.failback bounds it,
 * and what its outage is put down to: "lowest 12% of the baseline; back on
 * rail 0 1.2 s after the revert", or why it was not measured.
 */
bool ru_failback_bounded(const json_t *fb);
void ru_failback_why(const json_t *fb, char *buf, size_t len);

/* Integrity: the sentence when it is unknown, and what its numbers mean. */
extern const char ru_integrity_unknown[];
extern const char ru_integrity_note[];

/*
 * One row of alerts.coverage, a fault x an alert the scenario expects, as
 * every writer reads it: strings NULL and times NAN when missing.
 */
struct ru_alert {
	const char *fault, *alert, *status, *resolve;
	double fired_ms, fire_within_ms, resolved_ms, resolve_within_ms;
	bool ok;
};
void ru_alert_of(const json_t *row, struct ru_alert *a);
/* A time of ru_alert as ru_fmt_ms writes it, in buf; none when it is NAN. */
const char *ru_alert_ms(double ms, const char *none, char *buf, size_t len);

/* "Baseline: 10.1 MB/s mean, p50 latency 12 µs, over 30 samples" of workload w. */
void ru_baseline(FILE *f, const json_t *w);
/* " Workload: stream a → b, 4096-byte messages, queue depth 16." when both ends are known. */
void ru_workload(FILE *f, const json_t *w, const struct ru_markup *m);

/* A list item for one anomaly: "12.5 ms, NODE: what". */
void ru_anomaly(FILE *f, const json_t *a, const struct ru_markup *m);

/* What cleanup c says; c NULL when none was recorded. */
enum ru_cleanup {
	RU_CLEANUP_MISSING,
	RU_CLEANUP_VERIFIED,
	RU_CLEANUP_UNVERIFIED,
};
enum ru_cleanup ru_cleanup_of(const json_t *c);
/* The sentence for each. */
extern const char *const ru_cleanup_text[];

/* The list items of safety s: the fault lease, the blast radius, each guard. */
void ru_safety_items(FILE *f, const json_t *s, const struct ru_markup *m);

/* "Every event: `events.jsonl` (N events). Machine record: `report.json` (SCHEMA)." */
void ru_record(FILE *f, const json_t *r, const struct ru_markup *m);

#endif
