// SPDX-License-Identifier: MIT
/*
 * The report's section on the scheduler's view of the drill (report.json "scheduler",
 * coordinator/sched.h): each fault's node taken out of service and put back, against what the
 * drill allowed; nodes taken out without a fault; the followed job; and Slurm's timeline of node
 * and job states. Written once for report.md and report.html through their markup.
 */
#include <stdio.h>

#include "reports/report_walk.h"

/* "3.2 s (seen between 2.2 and 3.2 s)": a poll sees a change up to one interval late. */
static void sched_when_td(FILE *f, const json_t *row, const char *key, const char *after,
			  const struct rw_markup *m)
{
	char b1[32], b2[32];
	double v, a;

	if (!ru_num(row, key, &v)) {
		rw_td(f, m, "num", NULL);
		return;
	}
	if (after && ru_num(row, after, &a))
		rw_td_fmt(f, m, "num", "%s (after %s)", ru_fmt_ms(v, b1, sizeof(b1)),
			  ru_fmt_ms(a, b2, sizeof(b2)));
	else
		rw_td_fmt(f, m, "num", "%s", ru_fmt_ms(v, b1, sizeof(b1)));
}

static void sched_fault_row(FILE *f, const json_t *row, const struct rw_markup *m)
{
	char b[32];
	bool ok = ru_true(row, "ok");

	fputs(m->row.on, f);
	rw_td(f, m, NULL, ru_str(row, "fault"));
	rw_td(f, m, NULL, ru_str(row, "node"));
	if (ru_str(row, "drain_state")) {
		m->cell(f, NULL);
		m->cells.put(f, ru_str(row, "drain_state"));
		if (ru_str(row, "drain_reason") && *ru_str(row, "drain_reason")) {
			fputs(": ", f);
			m->cells.put(f, ru_str(row, "drain_reason"));
		}
		fputs(m->cell_end, f);
	} else {
		rw_td_fmt(f, m, NULL, "never out of service");
	}
	sched_when_td(f, row, "drained_ms", "drained_after_ms", m);
	rw_td_fmt(f, m, "num", "%s", ru_ms_text(row, "drained_within_ms", b, sizeof(b)));
	sched_when_td(f, row, "resumed_ms", NULL, m);
	rw_td_fmt(f, m, "num", "%s", ru_ms_text(row, "resumed_within_ms", b, sizeof(b)));
	rw_td_mark(f, m, ok ? RU_RESULT_OK : RU_RESULT_NOT_OK, ok ? "ok" : "not ok");
	fputs(m->row.off, f);
}

static void sched_job(FILE *f, const json_t *job, const struct rw_markup *m)
{
	const json_t *t;
	char b[32];
	size_t i = 0;
	double v;

	if (!json_is_object(job))
		return;
	fputs(m->para.on, f);
	if (!ru_str(job, "job_id")) {
		fputs("The followed job was never seen in Slurm's queue.", f);
	} else {
		fputs("Job ", f);
		m->prose.put(f, ru_str(job, "job_id"));
		fputs(" (", f);
		m->prose.put(f, ru_str(job, "name"));
		fputs("): ", f);
		m->prose.put(f, ru_str(job, "state"));
		fprintf(f, " at the drill's end, requeued %.0f time(s)",
			ru_num(job, "requeues", &v) ? v : 0);
		json_array_foreach(json_object_get(job, "requeued_ms"), i, t)
			fprintf(f, "%s%s%s", i ? ", " : " (seen at ",
				json_number_value(t) >= 0 ? "+" : "",
				ru_fmt_ms(json_number_value(t), b, sizeof(b)));
		if (i)
			fputc(')', f);
		if (ru_str(job, "want")) {
			fputs("; wanted: ", f);
			m->prose.put(f, ru_str(job, "want"));
			fputs(ru_true(job, "ok") ? " (met)" : " (NOT met)", f);
		}
		fputc('.', f);
	}
	fputs(m->para.off, f);
}

static void sched_timeline(FILE *f, const json_t *tl, const struct rw_markup *m)
{
	const json_t *row;
	char b[32];
	double v;
	size_t i;

	if (!json_array_size(tl))
		return;
	rw_table(f, m, "scheduler-timeline", "Time", "Node or job", "State", "Reason", NULL);
	json_array_foreach(tl, i, row) {
		fputs(m->row.on, f);
		rw_td_fmt(f, m, "num", "%s%s", ru_num(row, "t_ms", &v) && v >= 0 ? "+" : "",
			  ru_num(row, "t_ms", &v) ? ru_fmt_ms(v, b, sizeof(b)) : RU_DASH);
		if (ru_str(row, "job")) {
			m->cell(f, NULL);
			fputs("job ", f);
			m->cells.put(f, ru_str(row, "job"));
			fputs(m->cell_end, f);
		} else {
			rw_td(f, m, NULL, ru_str(row, "node"));
		}
		rw_td(f, m, NULL, ru_str(row, "state"));
		rw_td(f, m, NULL,
		      ru_str(row, "reason") && *ru_str(row, "reason") ? ru_str(row, "reason")
								      : NULL);
		fputs(m->row.off, f);
	}
	fputs(m->table_end, f);
}

void rw_scheduler(FILE *f, const json_t *r, const struct rw_markup *m)
{
	const json_t *s = ru_get(r, "scheduler"), *row;
	char b[32];
	double v;
	size_t i;

	if (!json_is_object(s))
		return;
	m->section(f, "scheduler", "Scheduler (Slurm)");
	fputs(m->para.on, f);
	fprintf(f, "Slurm was asked every %s: %.0f polls", ru_ms_text(s, "every_ms", b, sizeof(b)),
		ru_num(s, "polls.done", &v) ? v : 0);
	if (ru_num(s, "polls.failed", &v) && v > 0)
		fprintf(f, ", %.0f failed (the timeline has gaps)", v);
	fputs(". A change is seen up to one poll after it happened.", f);
	fputs(m->para.off, f);
	if (json_array_size(ru_get(s, "faults"))) {
		rw_table(f, m, "scheduler", "Fault", "Node", "Out of service as",
			 "Drained (after injection)", "Allowed", "Back in service (after revert)",
			 "Allowed", "Result", NULL);
		json_array_foreach(ru_get(s, "faults"), i, row)
			sched_fault_row(f, row, m);
		fputs(m->table_end, f);
	}
	if (!json_array_size(ru_get(s, "wrongly_drained"))) {
		rw_para(f, m, "No node without a fault was taken out of service.");
	} else {
		fputs(m->bad_para.on, f);
		fputs("Taken out of service without a fault (isolation was not precise):", f);
		fputs(m->bad_para.off, f);
		fputs(m->list.on, f);
		json_array_foreach(ru_get(s, "wrongly_drained"), i, row) {
			fputs(m->prose.item.on, f);
			m->cells.put(f, ru_str(row, "node"));
			fprintf(f, " at %s: ",
				ru_num(row, "t_ms", &v) ? ru_fmt_ms(v, b, sizeof(b)) : RU_DASH);
			m->cells.put(f, ru_str(row, "state"));
			if (ru_str(row, "reason") && *ru_str(row, "reason")) {
				fputs(", ", f);
				m->cells.put(f, ru_str(row, "reason"));
			}
			fputs(m->prose.item.off, f);
		}
		fputs(m->list.off, f);
	}
	sched_job(f, ru_get(s, "job"), m);
	sched_timeline(f, ru_get(s, "timeline"), m);
	fputs(m->section_end, f);
}
