// SPDX-License-Identifier: MIT
/*
 * The sections report.md and report.html both show, walked once over the
 * report JSON and written through the format's markup hooks (struct
 * rw_markup), so the two formats cannot drift apart in what they say.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reports/report.h"
#include "reports/report_walk.h"

/* ---- markup helpers ------------------------------------------------------ */

/* A paragraph of literal text. */
static void para(FILE *f, const struct rw_markup *m, const char *text)
{
	fprintf(f, "%s%s%s", m->para.on, text, m->para.off);
}

/* A table with its header cells, given as the NULL-terminated arguments. */
static void table(FILE *f, const struct rw_markup *m, const char *cls, ...)
{
	const char *heads[16];
	size_t n = 0;
	va_list ap;

	va_start(ap, cls);
	while (n + 1 < sizeof(heads) / sizeof(heads[0]) && (heads[n] = va_arg(ap, const char *)))
		n++;
	va_end(ap);
	heads[n] = NULL;
	m->table(f, cls, heads);
}

/* ---- sections ------------------------------------------------------------- */

/* One count of the workload's integrity; " (at most N)" when limited and expect sets N. */
static void integrity_td(FILE *f, const json_t *r, const char *key, bool limited,
			 const struct rw_markup *m)
{
	char path[48], b[32];

	m->cell(f, "num");
	fputs(ru_num_text(ru_get(r, "workload.integrity"), key, 0, b, sizeof(b)), f);
	snprintf(path, sizeof(path), "expect.integrity.%s", key);
	if (limited && json_is_number(ru_get(r, path)))
		fprintf(f, " (at most %s)", ru_num_text(r, path, 0, b, sizeof(b)));
	fputs(m->cell_end, f);
}

void rw_integrity(FILE *f, const json_t *r, const struct rw_markup *m)
{
	m->section(f, "integrity", "Integrity");
	if (!json_is_object(ru_get(r, "workload.integrity"))) {
		para(f, m, ru_integrity_unknown);
		fputs(m->section_end, f);
		return;
	}
	table(f, m, "integrity", "Sent", "Received", "Lost", "Duplicated", "Corrupted", NULL);
	fputs(m->row.on, f);
	integrity_td(f, r, "sent", false, m);
	integrity_td(f, r, "received", false, m);
	integrity_td(f, r, "lost", true, m);
	integrity_td(f, r, "duplicated", false, m);
	integrity_td(f, r, "corrupted", true, m);
	fputs(m->row.off, f);
	fputs(m->table_end, f);
	para(f, m, ru_integrity_note);
	fputs(m->section_end, f);
}

void rw_anomalies(FILE *f, const json_t *r, const struct rw_markup *m)
{
	const json_t *an = ru_get(r, "anomalies"), *a;
	size_t i;

	m->section(f, "anomalies", "Anomalies");
	if (!json_array_size(an)) {
		para(f, m, "None recorded.");
	} else {
		fputs(m->list.on, f);
		json_array_foreach(an, i, a)
			ru_anomaly(f, a, &m->prose);
		fputs(m->list.off, f);
	}
	fputs(m->section_end, f);
}

/* Nothing at all when the report has no safety object (an older report). */
void rw_safety(FILE *f, const json_t *r, const struct rw_markup *m)
{
	const json_t *s = ru_get(r, "safety");

	if (!json_is_object(s))
		return;
	m->section(f, "safety", "Safety");
	fputs(m->list.on, f);
	ru_safety_items(f, s, &m->prose);
	fputs(m->list.off, f);
	fputs(m->section_end, f);
}
