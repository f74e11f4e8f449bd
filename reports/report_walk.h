/* SPDX-License-Identifier: MIT */
/*
 * The sections report.md and report.html share, walked once
 * (reports/report_walk.c) and written through a format's markup hooks, the
 * way iproute2 prints text and JSON through one print_* path. Only what is
 * not a section (the page around them, the HTML timeline) stays in a writer.
 */
#ifndef RC_REPORT_WALK_H
#define RC_REPORT_WALK_H

#include <jansson.h>
#include <stdio.h>

#include "reports/report_util.h"

/*
 * How a format marks up a section. Literal text of the walker is written as
 * it is (it holds no markup character); data goes through prose.put, or
 * cells.put inside a table cell, which also write RU_DASH for none where the
 * format needs it.
 */
struct rw_markup {
	/* data and spans in sentences, and in table cells */
	struct ru_markup prose, cells;
	/* opens a section: its id (HTML) and title; section_end closes it */
	void (*section)(FILE *f, const char *id, const char *title);
	const char *section_end;
	/* a paragraph; one that must stand out; a list around items (prose.item); a remark */
	struct ru_wrap para, bad_para, list, em;
	/* bold that is not a warning (prose.strong is one): the verdict, the readiness */
	struct ru_wrap bold;
	/* opens a paragraph of class "CLS CLS-VARIANT" (HTML; variant made a class); para.off
	 * closes */
	void (*para_cls)(FILE *f, const char *cls, const char *variant);
	/* a table of class cls (HTML) and its NULL-terminated header cells */
	void (*table)(FILE *f, const char *cls, const char *const *heads);
	const char *table_end;
	struct ru_wrap row;
	/* opens a cell: cls is "num", "ok", "warn", "bad" or NULL; cell_end closes it */
	void (*cell)(FILE *f, const char *cls);
	const char *cell_end;
	/* a result's mark in a cell: md a sign, HTML word (escaped) */
	void (*mark)(FILE *f, enum ru_result res, const char *word);
};

/* Markup helpers for the sections' writers (report_walk.c, report_sched.c). */
/* A paragraph of literal text. */
void rw_para(FILE *f, const struct rw_markup *m, const char *text);
/* A table of class cls with its header cells, given as the NULL-terminated arguments. */
void rw_table(FILE *f, const struct rw_markup *m, const char *cls, ...);
/* A cell holding data s, escaped; RU_DASH for none. */
void rw_td(FILE *f, const struct rw_markup *m, const char *cls, const char *s);
/* A cell of literal text, printf-style. */
void rw_td_fmt(FILE *f, const struct rw_markup *m, const char *cls, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* A cell with a result's mark: md a sign, HTML word in a cell of the result's class. */
void rw_td_mark(FILE *f, const struct rw_markup *m, enum ru_result res, const char *word);

/*
 * Each writes one section of report r with markup m; any field of r may be
 * missing or null. A section with nothing to say about an absent part of the
 * report (safety) writes nothing at all.
 */
void rw_alerts(FILE *f, const json_t *r, const struct rw_markup *m);
/* report_sched.c: the scheduler's view (report.json "scheduler"): drains, resumes, job, timeline */
void rw_scheduler(FILE *f, const json_t *r, const struct rw_markup *m);
void rw_trials(FILE *f, const json_t *r, const struct rw_markup *m);
void rw_integrity(FILE *f, const json_t *r, const struct rw_markup *m);
void rw_job(FILE *f, const json_t *r, const struct rw_markup *m);
void rw_anomalies(FILE *f, const json_t *r, const struct rw_markup *m);
void rw_throughput(FILE *f, const json_t *r, const struct rw_markup *m);
void rw_cleanup(FILE *f, const json_t *r, const struct rw_markup *m);
void rw_summary(FILE *f, const json_t *r, const struct rw_markup *m);
void rw_goal(FILE *f, const json_t *r, const struct rw_markup *m);
void rw_environment(FILE *f, const json_t *r, const struct rw_markup *m);
void rw_actions(FILE *f, const json_t *r, const struct rw_markup *m);
void rw_results(FILE *f, const json_t *r, const struct rw_markup *m);
void rw_safety(FILE *f, const json_t *r, const struct rw_markup *m);
void rw_owners(FILE *f, const json_t *r, const struct rw_markup *m);
void rw_action_items(FILE *f, const json_t *r, const struct rw_markup *m);
void rw_reasons(FILE *f, const json_t *r, const struct rw_markup *m);

#endif
