// SPDX-License-Identifier: MIT
/*
 * The sections report.md and report.html both show, walked once over the
 * report JSON and written through the format's markup hooks (struct
 * rw_markup), so the two formats cannot drift apart in what they say.
 */
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reports/report.h"
#include "reports/report_walk.h"

/* ---- markup helpers ------------------------------------------------------ */

/* A paragraph of literal text. */
void rw_para(FILE *f, const struct rw_markup *m, const char *text)
{
	fprintf(f, "%s%s%s", m->para.on, text, m->para.off);
}

/* A table with its header cells, given as the NULL-terminated arguments. */
void rw_table(FILE *f, const struct rw_markup *m, const char *cls, ...)
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

/* A cell holding data s, escaped; RU_DASH for none. */
void rw_td(FILE *f, const struct rw_markup *m, const char *cls, const char *s)
{
	m->cell(f, cls);
	m->cells.put(f, s);
	fputs(m->cell_end, f);
}

/* A cell of literal text, printf-style. */
void rw_td_fmt(FILE *f, const struct rw_markup *m, const char *cls, const char *fmt, ...)
{
	va_list ap;

	m->cell(f, cls);
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputs(m->cell_end, f);
}

/* The cell classes of the results. */
static const char *const result_cls[] = {
    [RU_RESULT_OK] = "ok", [RU_RESULT_INCONCLUSIVE] = "warn", [RU_RESULT_NOT_OK] = "bad"};

/* A cell with a result's mark: md a sign, HTML word in a cell of the result's class. */
void rw_td_mark(FILE *f, const struct rw_markup *m, enum ru_result res, const char *word)
{
	m->cell(f, result_cls[res]);
	m->mark(f, res, word);
	fputs(m->cell_end, f);
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
		rw_para(f, m, ru_integrity_unknown);
		fputs(m->section_end, f);
		return;
	}
	rw_table(f, m, "integrity", "Sent", "Received", "Lost", "Duplicated", "Corrupted", NULL);
	fputs(m->row.on, f);
	integrity_td(f, r, "sent", false, m);
	integrity_td(f, r, "received", false, m);
	integrity_td(f, r, "lost", true, m);
	integrity_td(f, r, "duplicated", false, m);
	integrity_td(f, r, "corrupted", true, m);
	fputs(m->row.off, f);
	fputs(m->table_end, f);
	rw_para(f, m, ru_integrity_note);
	fputs(m->section_end, f);
}

void rw_anomalies(FILE *f, const json_t *r, const struct rw_markup *m)
{
	const json_t *an = ru_get(r, "anomalies"), *a;
	size_t i;

	m->section(f, "anomalies", "Anomalies");
	if (!json_array_size(an)) {
		rw_para(f, m, "None recorded.");
	} else {
		fputs(m->list.on, f);
		json_array_foreach(an, i, a)
			ru_anomaly(f, a, &m->prose);
		fputs(m->list.off, f);
	}
	fputs(m->section_end, f);
}

/* A rank's command as one cell: its words joined by spaces. */
static void job_command_td(FILE *f, const struct rw_markup *m, const json_t *cmd)
{
	char buf[2048] = "";
	const json_t *w;
	size_t i, n = 0;

	json_array_foreach(cmd, i, w)
		n += (size_t)snprintf(buf + n, n < sizeof(buf) ? sizeof(buf) - n : 0, "%s%s",
				      i ? " " : "", json_string_value(w) ?: "");
	rw_td(f, m, NULL, json_array_size(cmd) ? buf : NULL);
}

/* The drill-clock time at key of o as "16.1 s", in buf; RU_DASH when it is not a number. */
static const char *job_secs(const json_t *o, const char *key, char *buf, size_t len)
{
	double ms;

	if (!ru_num(o, key, &ms))
		return RU_DASH;
	snprintf(buf, len, "%.1f s", ms / 1000.0);
	return buf;
}

/* The restarts the drill made (restarts.max), one row each; nothing when there were none. */
static void job_restarts(FILE *f, const json_t *restarts, const struct rw_markup *m)
{
	const json_t *x;
	char b[3][32];
	size_t i;

	if (!json_array_size(restarts))
		return;
	rw_para(f, m,
		"The drill restarted the job (stopped what was left of it and started every rank "
		"again), as a scheduler would:");
	rw_table(f, m, "job-restarts", "Restart", "After the exit of", "Exit", "Restarted at",
		 "Up again", NULL);
	json_array_foreach(restarts, i, x) {
		fputs(m->row.on, f);
		rw_td_fmt(f, m, "num", "%zu", i + 1);
		rw_td_fmt(f, m, NULL, "rank %s on %s at %s", ru_num_text(x, "rank", 0, b[0], 32),
			  ru_str(x, "node") ?: "?", job_secs(x, "exit_ms", b[1], 32));
		rw_td_fmt(f, m, "num", "%s", ru_num_text(x, "exit_status", 0, b[2], 32));
		rw_td_fmt(f, m, "num", "%s", job_secs(x, "restart_ms", b[0], 32));
		if (ru_str(x, "failed"))
			rw_td_mark(f, m, RU_RESULT_NOT_OK, ru_str(x, "failed"));
		else if (json_is_number(ru_get(x, "up_ms")))
			rw_td_fmt(f, m, "num", "%s", job_secs(x, "up_ms", b[1], 32));
		else
			rw_td(f, m, NULL, "not before the drill ended");
		fputs(m->row.off, f);
	}
	fputs(m->table_end, f);
}

/* The tries of a start that failed (start_tries): a rank exited before its ready line. */
static void job_start_failures(FILE *f, const json_t *fails, const struct rw_markup *m)
{
	const json_t *x;
	char b[3][32];
	size_t i;

	if (!json_array_size(fails))
		return;
	rw_para(f, m,
		"A start of the job failed when a rank exited before its ready line; the drill "
		"stopped every rank and tried again (start_tries):");
	rw_table(f, m, "job-start-failures", "Try", "Rank", "Exit", "At", NULL);
	json_array_foreach(fails, i, x) {
		fputs(m->row.on, f);
		rw_td_fmt(f, m, "num", "%s", ru_num_text(x, "try", 0, b[0], 32));
		rw_td_fmt(f, m, NULL, "rank %s on %s", ru_num_text(x, "rank", 0, b[1], 32),
			  ru_str(x, "node") ?: "?");
		rw_td_fmt(f, m, "num", "%s", ru_num_text(x, "exit_status", 0, b[2], 32));
		rw_td_fmt(f, m, "num", "%s", job_secs(x, "t_ms", b[0], 32));
		fputs(m->row.off, f);
	}
	fputs(m->table_end, f);
}

/*
 * Where an error line fell against the drill's faults: "during qp-error" (every fault in force
 * then), "2.1 s after link-down was reverted" (the last one reverted before it), or "before
 * any fault".
 */
static const char *job_line_when(const json_t *r, double t, char *buf, size_t len)
{
	const json_t *f, *last = NULL;
	double from, to, last_to = 0;
	size_t i, n = 0, off;

	off = (size_t)snprintf(buf, len, "during");
	json_array_foreach(ru_get(r, "faults"), i, f) {
		if (!ru_num(f, "injected_ms", &from) || t < from)
			continue;
		if (!ru_num(f, "reverted_ms", &to) || t <= to) {
			if (off < len)
				off += (size_t)snprintf(buf + off, len - off, "%s %s",
							n++ ? "," : "", ru_str(f, "id") ?: "?");
		} else if (!last || to > last_to) {
			last = f;
			last_to = to;
		}
	}
	if (!n && last)
		snprintf(buf, len, "%.1f s after %s was reverted", (t - last_to) / 1000.0,
			 ru_str(last, "id") ?: "?");
	else if (!n)
		snprintf(buf, len, "before any fault");
	return buf;
}

/* The job's output lines that matched its error patterns, next to the faults. */
static void job_error_lines(FILE *f, const json_t *r, const json_t *job, const struct rw_markup *m)
{
	const json_t *lines = ru_get(job, "error_lines"), *x;
	char b[32], when[160], intro[200];
	double total, t;
	size_t i;

	if (!json_array_size(lines))
		return;
	if (!ru_num(job, "error_lines_total", &total) || total < (double)json_array_size(lines))
		total = (double)json_array_size(lines);
	snprintf(intro, sizeof(intro),
		 "%.0f line%s of the job's output matched its error patterns (errors:)%s:", total,
		 total == 1 ? "" : "s",
		 total > (double)json_array_size(lines) ? "; the first ones" : "");
	rw_para(f, m, intro);
	rw_table(f, m, "job-errors", "At", "Node", "Line", "Against the faults", NULL);
	json_array_foreach(lines, i, x) {
		fputs(m->row.on, f);
		rw_td_fmt(f, m, "num", "%s", job_secs(x, "t_ms", b, sizeof(b)));
		rw_td(f, m, NULL, ru_str(x, "node"));
		rw_td(f, m, NULL, ru_str(x, "text"));
		rw_td(f, m, NULL,
		      ru_num(x, "t_ms", &t) ? job_line_when(r, t, when, sizeof(when)) : RU_DASH);
		fputs(m->row.off, f);
	}
	fputs(m->table_end, f);
}

/* Nothing at all unless a job was the workload (docs/SCENARIOS.md, "Jobs"). */
void rw_job(FILE *f, const json_t *r, const struct rw_markup *m)
{
	const json_t *job = ru_get(r, "job"), *x;
	char b[32];
	size_t i;

	if (!json_is_object(job))
		return;
	m->section(f, "job", "Job");
	if (ru_str(job, "outcome.sentence")) {
		fputs(json_is_true(ru_get(job, "outcome.ok")) ? m->para.on : m->bad_para.on, f);
		m->prose.put(f, ru_str(job, "outcome.sentence"));
		fputs(json_is_true(ru_get(job, "outcome.ok")) ? m->para.off : m->bad_para.off, f);
	}
	rw_table(f, m, "job-ranks", "Rank", "Node", "Command", "Exit", NULL);
	json_array_foreach(ru_get(job, "ranks"), i, x) {
		fputs(m->row.on, f);
		rw_td_fmt(f, m, "num", "%s", ru_num_text(x, "rank", 0, b, sizeof(b)));
		rw_td(f, m, NULL, ru_str(x, "node"));
		job_command_td(f, m, ru_get(x, "command"));
		if (json_is_true(ru_get(x, "time_limit")))
			rw_td_fmt(f, m, NULL, "stopped at its time limit (status %s)",
				  ru_num_text(x, "exit_status", 0, b, sizeof(b)));
		else if (json_is_true(ru_get(x, "stopped")))
			rw_td_fmt(f, m, NULL, "stopped by the drill (status %s)",
				  ru_num_text(x, "exit_status", 0, b, sizeof(b)));
		else if (json_is_true(ru_get(x, "exited")))
			rw_td_fmt(f, m, NULL, "exited by itself, status %s",
				  ru_num_text(x, "exit_status", 0, b, sizeof(b)));
		else
			rw_td(f, m, NULL, "still running at the end");
		fputs(m->row.off, f);
	}
	fputs(m->table_end, f);
	job_start_failures(f, ru_get(job, "start_failures"), m);
	job_restarts(f, ru_get(job, "restarts"), m);
	job_error_lines(f, r, job, m);
	rw_para(f, m,
		"The RDMA path, per node: the job's QPs connected at the baseline's end, its RDMA "
		"traffic in the baseline and its bytes over TCP towards the other ranks (job_path, "
		"docs/SCENARIOS.md).");
	rw_table(f, m, "job-path", "Node", "RDMA path", "QPs connected", "TCP bytes", "Evidence",
		 NULL);
	json_array_foreach(ru_get(job, "rdma_path"), i, x) {
		const char *v = ru_str(x, "verdict");

		fputs(m->row.on, f);
		rw_td(f, m, NULL, ru_str(x, "node"));
		if (v && !strcmp(v, "verified"))
			rw_td_mark(f, m, RU_RESULT_OK, "verified");
		else if (v && !strcmp(v, "fail"))
			rw_td_mark(f, m, RU_RESULT_NOT_OK, "not verified");
		else
			rw_td_mark(f, m, RU_RESULT_INCONCLUSIVE, "cannot be checked");
		rw_td_fmt(f, m, "num", "%s", ru_num_text(x, "qps_rts", 0, b, sizeof(b)));
		rw_td_fmt(f, m, "num", "%s", ru_num_text(x, "tcp_bytes", 0, b, sizeof(b)));
		rw_td(f, m, NULL, ru_str(x, "finding") ?: ru_str(x, "sentence"));
		fputs(m->row.off, f);
	}
	fputs(m->table_end, f);
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

/* "10.1 MB/s" (or the workload's unit), or RU_DASH. */
static const char *mbps(const json_t *w, const char *path, char *buf, size_t len)
{
	double v;

	if (!ru_num(w, path, &v))
		return RU_DASH;
	snprintf(buf, len, "%.1f %s", v, ru_str(w, "throughput_unit") ?: "MB/s");
	return buf;
}

void rw_throughput(FILE *f, const json_t *r, const struct rw_markup *m)
{
	const json_t *w = ru_get(r, "workload"), *win = ru_get(w, "baseline.window_ms");
	char b[128];

	m->section(f, "throughput", "Throughput");
	rw_table(f, m, "throughput", "Before (baseline)", "During faults", "After", NULL);
	fputs(m->row.on, f);
	rw_td_fmt(f, m, "num", "%s", mbps(w, "throughput.before_mbps", b, sizeof(b)));
	rw_td_fmt(f, m, "num", "%s", mbps(w, "throughput.during_mbps", b, sizeof(b)));
	rw_td_fmt(f, m, "num", "%s", mbps(w, "throughput.after_mbps", b, sizeof(b)));
	fputs(m->row.off, f);
	fputs(m->table_end, f);
	if (!json_is_object(ru_get(w, "baseline"))) {
		rw_para(f, m, "No baseline was measured.");
		fputs(m->section_end, f);
		return;
	}
	fputs(m->para.on, f);
	ru_baseline(f, w);
	if (json_array_size(win) == 2 && json_is_number(json_array_get(win, 0)) &&
	    json_is_number(json_array_get(win, 1)))
		fprintf(f, " in %.0f-%.0f ms", json_number_value(json_array_get(win, 0)),
			json_number_value(json_array_get(win, 1)));
	fputs(".", f);
	ru_workload(f, w, &m->prose);
	fputs(m->para.off, f);
	fputs(m->section_end, f);
}

/* One revert step: a string (an older report) or {node, fault_id, action, verified}. */
static void cleanup_row(FILE *f, const json_t *a, const struct rw_markup *m)
{
	fputs(m->row.on, f);
	if (json_is_string(a)) {
		rw_td(f, m, NULL, NULL);
		rw_td(f, m, NULL, NULL);
		rw_td(f, m, NULL, json_string_value(a));
		rw_td(f, m, NULL, NULL);
		fputs(m->row.off, f);
		return;
	}
	rw_td(f, m, NULL, ru_str(a, "node"));
	rw_td(f, m, NULL, ru_str(a, "fault_id"));
	rw_td(f, m, NULL, ru_str(a, "action"));
	if (json_is_true(ru_get(a, "verified")))
		rw_td_mark(f, m, RU_RESULT_OK, "yes");
	else if (json_is_false(ru_get(a, "verified")))
		rw_td_mark(f, m, RU_RESULT_NOT_OK, "no");
	else
		rw_td(f, m, NULL, NULL);
	fputs(m->row.off, f);
}

/* A null cleanup counts as none recorded; anything short of verified stands out. */
void rw_cleanup(FILE *f, const json_t *r, const struct rw_markup *m)
{
	const json_t *c = ru_get(r, "cleanup"), *acts = ru_get(c, "actions"), *a;
	enum ru_cleanup state = ru_cleanup_of(json_is_null(c) ? NULL : c);
	const struct ru_wrap *p = state == RU_CLEANUP_VERIFIED ? &m->para : &m->bad_para;
	size_t i;

	m->section(f, "cleanup", "Cleanup");
	fprintf(f, "%s%s%s", p->on, ru_cleanup_text[state], p->off);
	if (json_array_size(acts)) {
		rw_para(f, m, "The revert steps, as performed and checked:");
		rw_table(f, m, "cleanup", "Node", "Fault", "Action", "Verified", NULL);
		json_array_foreach(acts, i, a)
			cleanup_row(f, a, m);
		fputs(m->table_end, f);
	}
	fputs(m->section_end, f);
}

/* "node-b workload stream rail 0 netdev rail0 device rxe_rail0": what a fault touched. */
static void target_td(FILE *f, const json_t *t, const struct rw_markup *m)
{
	static const char *const parts[] = {"workload", "netdev", "device"};
	double rail;
	size_t i;

	m->cell(f, NULL);
	if (!json_is_object(t)) {
		fputs(RU_DASH, f);
		fputs(m->cell_end, f);
		return;
	}
	m->cells.put(f, ru_str(t, "node") ?: "?");
	for (i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		if (i == 1 && ru_num(t, "rail", &rail))
			fprintf(f, " rail %.0f", rail);
		if (!ru_str(t, parts[i]))
			continue;
		fprintf(f, " %s ", parts[i]);
		m->cells.put(f, ru_str(t, parts[i]));
	}
	fputs(m->cell_end, f);
}

/* When a fault was injected or reverted, or why it was not. */
static void when_td(FILE *f, const json_t *ft, bool injected, const struct rw_markup *m)
{
	m->cell(f, NULL);
	if (injected && !ru_when(f, ft, "injected_ms", "injected_at", &m->cells)) {
		fputs("not injected", f);
		if (ru_str(ft, "error")) {
			fputs(": ", f);
			m->cells.put(f, ru_str(ft, "error"));
		}
	} else if (!injected && !ru_when(f, ft, "reverted_ms", "reverted_at", &m->cells)) {
		fputs("not reverted", f);
	}
	fputs(m->cell_end, f);
}

/* Whether ru_fault_notes has anything to say about faults. */
static bool has_fault_notes(const json_t *faults)
{
	const json_t *ft;
	size_t i;

	json_array_foreach(faults, i, ft)
		if (ru_get(ft, "pfc") || ru_str(ft, "note"))
			return true;
	return false;
}

void rw_actions(FILE *f, const json_t *r, const struct rw_markup *m)
{
	const json_t *faults = ru_get(r, "faults"), *ft;
	char b1[32], b2[32];
	size_t i;

	m->section(f, "actions", "Actions");
	if (!json_array_size(faults)) {
		rw_para(f, m, "No fault was recorded.");
		fputs(m->section_end, f);
		return;
	}
	rw_para(f, m, "Times count from the workload start on the coordinator's clock.");
	rw_table(f, m, "actions", "Fault", "Injector", "Target", "Params", "Planned", "Injected",
		 "Reverted", NULL);
	json_array_foreach(faults, i, ft) {
		fputs(m->row.on, f);
		rw_td(f, m, NULL, ru_str(ft, "id"));
		rw_td(f, m, NULL, ru_str(ft, "injector"));
		target_td(f, ru_get(ft, "target"), m);
		m->cell(f, NULL);
		ru_params(f, ru_get(ft, "params"), &m->cells);
		fputs(m->cell_end, f);
		rw_td_fmt(f, m, NULL, "at %s ms for %s ms",
			  ru_num_text(ft, "at_ms", 0, b1, sizeof(b1)),
			  ru_num_text(ft, "duration_ms", 0, b2, sizeof(b2)));
		when_td(f, ft, true, m);
		when_td(f, ft, false, m);
		fputs(m->row.off, f);
	}
	fputs(m->table_end, f);
	if (has_fault_notes(faults)) {
		fputs(m->list.on, f);
		ru_fault_notes(f, faults, &m->cells);
		fputs(m->list.off, f);
	}
	fputs(m->section_end, f);
}

/* The words of the results in HTML's Result cells (md shows the sign alone). */
static const char *const result_word[] = {[RU_RESULT_OK] = "ok",
					  [RU_RESULT_INCONCLUSIVE] = "inconclusive",
					  [RU_RESULT_NOT_OK] = "not ok"};

/*
 * One measure of fault ft (detection, isolation, recovery or failback) against what was
 * allowed; absent is what the Result cell says when the report has no such measure. Failback
 * measures its outage, and has no result when expect.failback does not bound it.
 */
static void measure_row(FILE *f, const json_t *ft, const char *what, const char *absent,
			const struct rw_markup *m)
{
	const json_t *x = ru_get(ft, what);
	bool failback = !strcmp(what, "failback");
	char b[32], why[256];
	enum ru_result res;

	fputs(m->row.on, f);
	rw_td(f, m, NULL, ru_str(ft, "id"));
	rw_td_fmt(f, m, NULL, "%s", what);
	if (!json_is_object(x)) {
		rw_td(f, m, NULL, NULL);
		rw_td(f, m, NULL, NULL);
		rw_td_fmt(f, m, NULL, "%s", absent);
		rw_td(f, m, NULL, NULL);
		fputs(m->row.off, f);
		return;
	}
	rw_td_fmt(f, m, "num", "%s", ru_ms_text(x, failback ? "outage_ms" : "ms", b, sizeof(b)));
	if (!failback || ru_failback_bounded(x)) {
		res = ru_measure_result(x);
		rw_td_fmt(f, m, "num", "%s", ru_ms_text(x, "threshold_ms", b, sizeof(b)));
		rw_td_mark(f, m, res, result_word[res]);
	} else {
		rw_td_fmt(f, m, NULL, "not bounded");
		rw_td(f, m, NULL, NULL);
	}
	if (failback) {
		ru_failback_why(x, why, sizeof(why));
		rw_td(f, m, NULL, why[0] ? why : NULL);
	} else {
		rw_td(f, m, NULL, ru_measure_why(x));
	}
	fputs(m->row.off, f);
}

/* Each fault's measures, one row each, with the signal or the note that explains the result. */
void rw_results(FILE *f, const json_t *r, const struct rw_markup *m)
{
	const json_t *faults = ru_get(r, "faults"), *ft;
	size_t i;

	m->section(f, "results", "Results");
	if (!json_array_size(faults)) {
		rw_para(f, m, "Nothing was measured.");
		fputs(m->section_end, f);
		return;
	}
	rw_table(f, m, "results", "Fault", "Measure", "Measured", "Allowed", "Result",
		 "Signal or note", NULL);
	json_array_foreach(faults, i, ft) {
		measure_row(f, ft, "detection", "not measured", m);
		measure_row(f, ft, "isolation", "not checked", m);
		measure_row(f, ft, "recovery", "not measured", m);
		measure_row(f, ft, "failback", "not recorded", m);
	}
	fputs(m->table_end, f);
	fputs(m->para.on, f);
	ru_results_note(f, r);
	fputs(m->para.off, f);
	fputs(m->section_end, f);
}

/* "Notifications received at `ADDR`: 3 (refused 0; ...)." */
static void alert_receiver(FILE *f, const json_t *a, const struct rw_markup *m)
{
	double v, unauth = ru_num(a, "unauthorized", &v) ? v : 0;
	double dropped = ru_num(a, "dropped", &v) ? v : 0;

	fprintf(f, "%sNotifications received at %s", m->para.on, m->prose.code.on);
	m->prose.put(f, ru_str(a, "receiver"));
	fprintf(f, "%s: %.0f (refused %.0f", m->prose.code.off,
		ru_num(a, "notifications", &v) ? v : 0, ru_num(a, "refused", &v) ? v : 0);
	if (unauth > 0)
		fprintf(f, "; %.0f without the receiver's token, not trusted", unauth);
	if (dropped > 0)
		fprintf(f, "; %.0f alerts dropped, the queue was full", dropped);
	if (ru_num(a, "timed_out", &v) && v > 0)
		fprintf(f, "; %.0f connections cut, too slow to send a request", v);
	fprintf(f, ").%s", m->para.off);
}

/* One fault x expected alert: when it fired and resolved against what was allowed. */
static void alert_row(FILE *f, const json_t *row, const struct rw_markup *m)
{
	char b1[32], b2[32];
	struct ru_alert a;

	ru_alert_of(row, &a);
	fputs(m->row.on, f);
	rw_td(f, m, NULL, a.fault);
	rw_td(f, m, NULL, a.alert);
	m->cell(f, NULL);
	m->cells.put(f, a.status);
	fprintf(f, ": %s / %s%s", ru_alert_ms(a.fired_ms, RU_DASH, b1, sizeof(b1)),
		ru_alert_ms(a.fire_within_ms, RU_DASH, b2, sizeof(b2)), m->cell_end);
	m->cell(f, NULL);
	m->cells.put(f, a.resolve);
	fprintf(f, ": %s / %s%s", ru_alert_ms(a.resolved_ms, RU_DASH, b1, sizeof(b1)),
		ru_alert_ms(a.resolve_within_ms, "not checked", b2, sizeof(b2)), m->cell_end);
	rw_td_mark(f, m, a.ok ? RU_RESULT_OK : RU_RESULT_NOT_OK, a.ok ? "ok" : "not ok");
	fputs(m->row.off, f);
}

/* Alert coverage: each fault x expected alert, then the alerts nobody expected. */
void rw_alerts(FILE *f, const json_t *r, const struct rw_markup *m)
{
	const json_t *a = ru_get(r, "alerts"), *row;
	char b[32];
	double v;
	size_t i;

	if (!json_is_object(a))
		return;
	m->section(f, "alerts", "Alerts");
	if (ru_str(a, "receiver"))
		alert_receiver(f, a, m);
	if (json_array_size(ru_get(a, "coverage"))) {
		rw_table(f, m, "alerts", "Fault", "Alert", "Fired (after injection)",
			 "Resolved (after revert)", "Result", NULL);
		json_array_foreach(ru_get(a, "coverage"), i, row)
			alert_row(f, row, m);
		fputs(m->table_end, f);
		rw_para(
		    f, m,
		    "Fired counts from the injection to the firing notification reaching the "
		    "coordinator; resolved, from the revert to the resolved notification. A missed "
		    "or late alert fails the drill: the on-call would not have been told in time.");
	}
	if (!json_array_size(ru_get(a, "unexpected"))) {
		rw_para(f, m, "No alert fired that nobody expected.");
		fputs(m->section_end, f);
		return;
	}
	rw_para(f, m, "Alerts nobody expected (noise):");
	fputs(m->list.on, f);
	json_array_foreach(ru_get(a, "unexpected"), i, row) {
		fputs(m->prose.item.on, f);
		m->cells.put(f, ru_str(row, "alert") ?: "?");
		fprintf(f, ": first at %s, %.0f notification(s)%s",
			ru_num(row, "first_ms", &v) ? ru_fmt_ms(v, b, sizeof(b)) : RU_DASH,
			ru_num(row, "notifications", &v) ? v : 0, m->prose.item.off);
	}
	fputs(m->list.off, f);
	fputs(m->section_end, f);
}

/* One statistic of a phase's distribution: "812 ms", "not seen" (a trial never saw it), "—". */
static void stat_td(FILE *f, const json_t *st, const char *key, const struct rw_markup *m)
{
	char b[32];
	double v;

	if (ru_num(st, key, &v))
		rw_td_fmt(f, m, "num", "%s", ru_fmt_ms(v, b, sizeof(b)));
	else
		rw_td_fmt(f, m, "num", "%s", json_is_object(st) ? "not seen" : RU_DASH);
}

/* "rail0-down: 10 trials, every 30000 ms, at 20000, 50000, ... ms" */
static void schedule(FILE *f, const json_t *r, const struct rw_markup *m)
{
	const json_t *faults = ru_get(r, "schedule.faults"), *s, *at;
	char b1[32], b2[32];
	size_t i, k;

	if (!json_array_size(faults))
		return;
	fprintf(f, "%sSchedule, from seed %s:%s%s", m->para.on,
		ru_num_text(r, "schedule.seed", 0, b1, sizeof(b1)), m->para.off, m->list.on);
	json_array_foreach(faults, i, s) {
		fputs(m->prose.item.on, f);
		m->cells.put(f, ru_str(s, "fault"));
		fprintf(f, ": %s trials, ", ru_num_text(s, "count", 0, b1, sizeof(b1)));
		if (ru_streq(ru_str(s, "kind"), "random"))
			fprintf(f, "random gaps of %s-%s ms",
				ru_num_text(s, "min_gap_ms", 0, b1, sizeof(b1)),
				ru_num_text(s, "max_gap_ms", 0, b2, sizeof(b2)));
		else
			fprintf(f, "every %s ms", ru_num_text(s, "every_ms", 0, b1, sizeof(b1)));
		if (json_array_size(ru_get(s, "at_ms"))) {
			fputs(", at ", f);
			json_array_foreach(ru_get(s, "at_ms"), k, at)
				fprintf(f, "%s%.0f", k ? ", " : "", json_number_value(at));
			fputs(" ms", f);
		}
		fputs(m->prose.item.off, f);
	}
	fputs(m->list.off, f);
}

/* One phase of a repeated fault t over its trials. */
static void trial_row(FILE *f, const json_t *r, const json_t *t, const char *phase,
		      const struct rw_markup *m)
{
	const json_t *st = ru_get(t, phase);
	char b1[32], b2[48];

	snprintf(b2, sizeof(b2), "expect.%s.stat", phase);
	fputs(m->row.on, f);
	rw_td(f, m, NULL, ru_str(t, "fault"));
	rw_td_fmt(f, m, "num", "%s", ru_num_text(t, "count", 0, b1, sizeof(b1)));
	rw_td_fmt(f, m, NULL, "%s", phase);
	rw_td(f, m, NULL, ru_str(st, "stat") ?: ru_str(r, b2) ?: "max");
	stat_td(f, st, "p50", m);
	stat_td(f, st, "p90", m);
	stat_td(f, st, "max", m);
	rw_td_fmt(f, m, "num", "%s", ru_ms_text(st, "threshold_ms", b1, sizeof(b1)));
	if (!json_is_object(st)) {
		m->cell(f, result_cls[RU_RESULT_INCONCLUSIVE]);
		m->mark(f, RU_RESULT_INCONCLUSIVE, "inconclusive");
		fputs(" no trial measured", f);
	} else {
		enum ru_result res = ru_true(st, "ok") ? RU_RESULT_OK : RU_RESULT_NOT_OK;

		m->cell(f, result_cls[res]);
		m->mark(f, res, res == RU_RESULT_OK ? "ok" : "not ok");
		fprintf(f, " %s judged, %s seen", ru_num_text(st, "judged", 0, b2, sizeof(b2)),
			ru_num_text(st, "seen", 0, b1, sizeof(b1)));
	}
	fputs(m->cell_end, f);
	fputs(m->row.off, f);
}

/* report["trials"] (repeat:, schedule:): each repeated fault's distribution per phase. */
void rw_trials(FILE *f, const json_t *r, const struct rw_markup *m)
{
	static const char *const phases[] = {"detection", "isolation", "recovery"};
	const json_t *trials = ru_get(r, "trials"), *t;
	size_t i, k;

	if (!json_array_size(trials))
		return;
	m->section(f, "trials", "Trials");
	rw_para(
	    f, m,
	    "Each repeated fault's phases over its trials (nearest rank; a trial that never saw a "
	    "phase counts as slower than any that did). Each trial's own measurements are in "
	    "Results, under the trial's name (FAULT#N).");
	rw_table(f, m, "trials", "Fault", "Trials", "Phase", "Judged on", "p50", "p90", "Max",
		 "Allowed", "Result", NULL);
	json_array_foreach(trials, i, t)
		for (k = 0; k < sizeof(phases) / sizeof(phases[0]); k++)
			if (json_object_get(json_is_object(t) ? t : NULL, phases[k]))
				trial_row(f, r, t, phases[k], m);
	fputs(m->table_end, f);
	schedule(f, r, m);
	fputs(m->section_end, f);
}

/* The scenario's owner, or NULL when it names none. */
static const char *owner_of(const json_t *r)
{
	const char *o = ru_str(r, "scenario.owner");

	return o && *o ? o : NULL;
}

void rw_owners(FILE *f, const json_t *r, const struct rw_markup *m)
{
	m->section(f, "owners", "Owners");
	if (owner_of(r)) {
		fprintf(f, "%s%s", m->list.on, m->prose.item.on);
		m->cells.put(f, owner_of(r));
		fprintf(f, ": owns this drill (from the scenario) and its action items.%s%s",
			m->prose.item.off, m->list.off);
	} else {
		fprintf(f,
			"%sNot named: the scenario has no %sowner%s; name one so the action items "
			"reach someone.%s",
			m->para.on, m->prose.code.on, m->prose.code.off, m->para.off);
	}
	fputs(m->section_end, f);
}

/* The stored action items, or derived again for an older report. */
void rw_action_items(FILE *f, const json_t *r, const struct rw_markup *m)
{
	json_t *items = report_action_items_of(r);
	const json_t *it;
	size_t i;

	m->section(f, "action-items", "Action items");
	if (!json_array_size(items)) {
		rw_para(f, m, "None: nothing in this drill calls for work.");
	} else {
		rw_table(f, m, "action-items", "#", "Fault", "Action", "Because", "Owner", NULL);
		json_array_foreach(items, i, it) {
			fputs(m->row.on, f);
			rw_td_fmt(f, m, "num", "%zu", i + 1);
			rw_td(f, m, NULL, ru_str(it, "fault"));
			rw_td(f, m, NULL, ru_str(it, "item") ?: json_string_value(it));
			rw_td(f, m, NULL, ru_str(it, "because"));
			rw_td(f, m, NULL, ru_str(it, "owner") ?: owner_of(r));
			fputs(m->row.off, f);
		}
		fputs(m->table_end, f);
	}
	fputs(m->section_end, f);
	json_decref(items);
}

/* " (p90 over the trials)" for a threshold stated on a repeated fault's p50 or p90. */
static void stat_of(FILE *f, const json_t *x, const char *phase, const struct rw_markup *m)
{
	const char *st = ru_str(ru_get(x, phase), "stat");

	if (st && strcmp(st, "max")) {
		fputs(" (", f);
		m->prose.put(f, st);
		fputs(" over the trials)", f);
	}
}

/* The list item of what the scenario expects. */
static void expectations(FILE *f, const json_t *r, const struct rw_markup *m)
{
	const json_t *x = ru_get(r, "expect");
	char b1[32], b2[32], b3[32];

	if (!json_is_object(x))
		return;
	fprintf(f, "%sExpected: detection within %s ms", m->prose.item.on,
		ru_num_text(x, "detection.within_ms", 0, b1, sizeof(b1)));
	stat_of(f, x, "detection", m);
	ru_expect_signals(f, x, &m->prose);
	if (ru_get(x, "isolation.within_ms")) {
		fprintf(f, "; isolation within %s ms",
			ru_num_text(x, "isolation.within_ms", 0, b1, sizeof(b1)));
		stat_of(f, x, "isolation", m);
	}
	if (json_is_object(ru_get(x, "recovery"))) {
		fprintf(f, "; throughput back to %s of the baseline within %s ms",
			ru_share(x, "recovery.throughput_ratio", "the set share", b2, sizeof(b2)),
			ru_num_text(x, "recovery.within_ms", 0, b1, sizeof(b1)));
		stat_of(f, x, "recovery", m);
		fprintf(f, " and held for %s ms",
			ru_num_text(x, "recovery.sustain_ms", 0, b3, sizeof(b3)));
	}
	ru_expect_limits(f, x);
	fprintf(f, ".%s", m->prose.item.off);
}

void rw_goal(FILE *f, const json_t *r, const struct rw_markup *m)
{
	const char *desc = ru_str(r, "scenario.description");

	m->section(f, "goal", "Goal");
	fputs(m->para.on, f);
	if (desc && *desc)
		m->prose.put(f, desc);
	else
		fprintf(f, "%sThe scenario gives no description.%s", m->em.on, m->em.off);
	fputs(m->para.off, f);
	fputs(m->list.on, f);
	ru_scenario_item(f, r, &m->prose);
	expectations(f, r, m);
	fputs(m->list.off, f);
	fputs(m->section_end, f);
}

/* "Readiness: needs work (needs_work). RULE", then how many action items there are. */
static void readiness(FILE *f, const json_t *r, const struct rw_markup *m)
{
	json_t *rd = report_readiness_of(r), *items = report_action_items_of(r);
	const char *cat = ru_str(rd, "category") ?: "unknown";
	size_t n = json_array_size(items);

	m->para_cls(f, "readiness", cat);
	fprintf(f, "%sReadiness: ", m->bold.on);
	m->prose.put(f, ru_str(rd, "label") ?: cat);
	fprintf(f, "%s (", m->bold.off);
	m->prose.put(f, cat);
	fputs("). ", f);
	m->prose.put(f, ru_str(rd, "rule") ?: "No rule was recorded.");
	fputs(m->para.off, f);
	if (n)
		fprintf(f, "%s%zu action item%s: see Action items.%s", m->para.on, n,
			n == 1 ? "" : "s", m->para.off);
	else
		rw_para(f, m, "No action items.");
	json_decref(rd);
	json_decref(items);
}

/* The verdict with its first reason (the rest are under Reasons), readiness, when it ran. */
void rw_summary(FILE *f, const json_t *r, const struct rw_markup *m)
{
	const json_t *reasons = ru_get(r, "reasons");
	const char *v = ru_str(r, "verdict"),
		   *first = json_string_value(json_array_get(reasons, 0));
	size_t n = json_array_size(reasons);
	char b[32];

	m->section(f, "summary", "Summary");
	fprintf(f, "%s%sVerdict: ", m->para.on, m->bold.on);
	m->prose.put(f, v ? v : "unknown");
	fprintf(f, "%s (exit code %s)", m->bold.off, ru_num_text(r, "exit_code", 0, b, sizeof(b)));
	if (first) {
		fputs(": ", f);
		m->prose.put(f, first);
	} else {
		fputs(ru_streq(v, "pass") ? ": every expectation held" : ": no reason was recorded",
		      f);
	}
	if (n > 1)
		fprintf(f, " (and %zu more, see Reasons)", n - 1);
	fprintf(f, ".%s", m->para.off);
	readiness(f, r, m);
	fputs(m->para.on, f);
	ru_ran(f, r, &m->prose);
	fputs(m->para.off, f);
	fputs(m->section_end, f);
}

void rw_reasons(FILE *f, const json_t *r, const struct rw_markup *m)
{
	const json_t *reasons = ru_get(r, "reasons"), *s;
	size_t i;

	m->section(f, "reasons", "Reasons");
	if (!json_array_size(reasons)) {
		rw_para(f, m, "None recorded.");
	} else {
		fputs(m->list.on, f);
		json_array_foreach(reasons, i, s) {
			fputs(m->prose.item.on, f);
			m->prose.put(f, json_string_value(s) ?: "?");
			fputs(m->prose.item.off, f);
		}
		fputs(m->list.off, f);
	}
	fputs(m->section_end, f);
}

/* A node's name; an inventory without one may still carry the agent's own, as "node". */
static const char *node_name(const json_t *n)
{
	return ru_str(n, "name") ?: ru_str(n, "node");
}

/* Each node's agent and the versions it runs. */
static void env_nodes(FILE *f, const json_t *nodes, const struct rw_markup *m)
{
	const json_t *n;
	size_t i;

	rw_table(f, m, "nodes", "Node", "Agent", "Agent version", "Kernel", "rdma-core",
		 "Control interface", NULL);
	json_array_foreach(nodes, i, n) {
		fputs(m->row.on, f);
		rw_td(f, m, NULL, node_name(n));
		rw_td(f, m, NULL, ru_str(n, "agent"));
		rw_td(f, m, NULL, ru_str(n, "agent_version"));
		rw_td(f, m, NULL, ru_str(n, "kernel"));
		rw_td(f, m, NULL, ru_str(n, "rdma_core"));
		rw_td(f, m, NULL, ru_str(n, "control_if"));
		fputs(m->row.off, f);
	}
	fputs(m->table_end, f);
}

/* One port of device dev of node n; dev or port NULL gives dashes for what they would say. */
static void port_row(FILE *f, const json_t *n, const json_t *dev, const json_t *port,
		     const struct rw_markup *m)
{
	char b[32];

	fputs(m->row.on, f);
	rw_td(f, m, NULL, node_name(n));
	rw_td(f, m, NULL, ru_str(dev, "name"));
	rw_td(f, m, NULL, ru_str(dev, "fw_ver"));
	rw_td_fmt(f, m, "num", "%s", ru_num_text(port, "port", 0, b, sizeof(b)));
	rw_td(f, m, NULL, ru_str(port, "state") ?: ru_str(port, "error") ?: ru_str(dev, "error"));
	rw_td(f, m, NULL, ru_str(port, "link_layer"));
	rw_td_fmt(f, m, "num", "%s", ru_num_text(port, "active_mtu", 0, b, sizeof(b)));
	rw_td(f, m, NULL, ru_str(port, "netdev"));
	rw_td_fmt(f, m, "num", "%s", ru_num_text(port, "netdev_mtu", 0, b, sizeof(b)));
	fputs(m->row.off, f);
}

/*
 * One row per port of every device of every node, so a node or device the inventory shows
 * nothing under still has its row: a device without ports gets one, a node without devices one.
 */
static void env_ports(FILE *f, const json_t *nodes, const struct rw_markup *m)
{
	const json_t *n, *dev, *port;
	size_t i, j, k;

	rw_table(f, m, "ports", "Node", "Device", "Firmware", "Port", "State", "Link layer",
		 "RDMA MTU", "Netdev", "Netdev MTU", NULL);
	json_array_foreach(nodes, i, n) {
		json_array_foreach(ru_get(n, "devices"), j, dev) {
			json_array_foreach(ru_get(dev, "ports"), k, port)
				port_row(f, n, dev, port, m);
			if (!json_array_size(ru_get(dev, "ports")))
				port_row(f, n, dev, NULL, m);
		}
		if (!json_array_size(ru_get(n, "devices")))
			port_row(f, n, NULL, NULL, m);
	}
	fputs(m->table_end, f);
}

/* Whether a device's port of node names netdev name: one RDMA traffic crosses. */
static bool netdev_of_port(const json_t *node, const char *name)
{
	const json_t *dev, *port;
	size_t j, k;

	json_array_foreach(ru_get(node, "devices"), j, dev)
		json_array_foreach(ru_get(dev, "ports"), k, port)
			if (name && ru_streq(ru_str(port, "netdev"), name))
				return true;
	return false;
}

/* "up", "down, no carrier", "—": the kernel's operational state, else the admin flag. */
static void link_td(FILE *f, const json_t *nd, const struct rw_markup *m)
{
	const char *oper = ru_str(nd, "oper");

	m->cell(f, NULL);
	if (!oper && !ru_get(nd, "up")) {
		fputs(RU_DASH, f);
	} else {
		if (oper && strcmp(oper, "unknown"))
			m->cells.put(f, oper);
		else
			fputs(json_is_true(ru_get(nd, "up")) ? "up" : "down", f);
		if (json_is_false(ru_get(nd, "carrier")))
			fputs(", no carrier", f);
	}
	fputs(m->cell_end, f);
}

/* The NIC's PFC storm prevention ("auto", "100 ms", ...) and the pause counters polled. */
static void pfc_tds(FILE *f, const json_t *nd, const struct rw_markup *m)
{
	const json_t *p = ru_get(nd, "pfc.prevention_tout_ms");
	char b[32];

	if (json_is_string(p))
		rw_td(f, m, NULL, json_string_value(p));
	else if (json_is_number(p))
		rw_td_fmt(f, m, NULL, "%s ms",
			  ru_num_text(nd, "pfc.prevention_tout_ms", 0, b, sizeof(b)));
	else
		rw_td_fmt(f, m, NULL, "not reported");
	m->cell(f, NULL);
	if (json_is_number(ru_get(nd, "pfc.counters")))
		fputs(ru_num_text(nd, "pfc.counters", 0, b, sizeof(b)), f);
	else
		fputs("not reported", f);
	if (ru_str(nd, "pfc.error")) {
		fputs(" (", f);
		m->cells.put(f, ru_str(nd, "pfc.error"));
		fputs(")", f);
	}
	fputs(m->cell_end, f);
}

/* One netdev nd of node n: its link, MTU, addresses and PFC state. */
static void netdev_row(FILE *f, const json_t *n, const json_t *nd, const struct rw_markup *m)
{
	const json_t *a;
	char b[32];
	size_t i;

	fputs(m->row.on, f);
	rw_td(f, m, NULL, node_name(n));
	rw_td(f, m, NULL, ru_str(nd, "name"));
	rw_td_fmt(f, m, "num", "%s", ru_num_text(nd, "rail", 0, b, sizeof(b)));
	link_td(f, nd, m);
	rw_td_fmt(f, m, "num", "%s", ru_num_text(nd, "mtu", 0, b, sizeof(b)));
	m->cell(f, NULL);
	if (!json_array_size(ru_get(nd, "addrs")))
		fputs(RU_DASH, f);
	json_array_foreach(ru_get(nd, "addrs"), i, a) {
		fputs(i ? ", " : "", f);
		m->cells.put(f, json_string_value(a) ?: "?");
	}
	fputs(m->cell_end, f);
	pfc_tds(f, nd, m);
	fputs(m->row.off, f);
}

/* The rails' netdevs and any a port names (not the control interface), with their PFC state. */
static void env_netdevs(FILE *f, const json_t *nodes, const struct rw_markup *m)
{
	const json_t *n, *nd;
	size_t i, k, rows = 0;

	json_array_foreach(nodes, i, n) {
		json_array_foreach(ru_get(n, "netdevs"), k, nd) {
			if (!json_is_number(ru_get(nd, "rail")) &&
			    !netdev_of_port(n, ru_str(nd, "name")))
				continue;
			if (!rows++)
				rw_table(f, m, "netdevs", "Node", "Netdev", "Rail", "Link", "MTU",
					 "Addresses", "PFC storm prevention",
					 "Pause counters polled", NULL);
			netdev_row(f, n, nd, m);
		}
	}
	if (rows)
		fputs(m->table_end, f);
	else
		rw_para(f, m, "Rail netdevs: not reported.");
	rw_para(
	    f, m,
	    "PFC/DCB: the enabled PFC priorities and the ETS configuration are not reported by the "
	    "agents; storm prevention and the pause counters they poll are shown per netdev.");
}

/* Each node's clock offset, and the worst uncertainty: the finest difference that means anything.
 */
static void env_clock(FILE *f, const json_t *r, const struct rw_markup *m)
{
	const json_t *clock = ru_get(r, "clock.nodes"), *n;
	char b1[32], b2[32], b3[32], b4[32], b5[32], b6[32];
	double u, worst = -1, x;
	bool drift = false;
	size_t i;

	if (!json_array_size(clock)) {
		rw_para(f, m, "Clock offsets: not measured.");
		return;
	}
	json_array_foreach(clock, i, n)
		drift |= ru_num(n, "drift_us", &x);
	rw_para(f, m,
		"Clock alignment (node clock minus coordinator clock; events are placed on the "
		"coordinator's clock with these offsets):");
	/* reports from before the second alignment have no drift: no column (NULL ends the list) */
	rw_table(f, m, "clock", "Node", "Offset", "Uncertainty", "Round trip", "Samples",
		 drift ? "Drift by the end" : NULL, NULL);
	json_array_foreach(clock, i, n) {
		fputs(m->row.on, f);
		rw_td(f, m, NULL, ru_str(n, "name"));
		rw_td_fmt(f, m, "num", "%s µs", ru_num_text(n, "offset_us", 1, b1, sizeof(b1)));
		rw_td_fmt(f, m, "num", "± %s µs",
			  ru_num_text(n, "uncertainty_us", 1, b2, sizeof(b2)));
		rw_td_fmt(f, m, "num", "%s µs", ru_num_text(n, "rtt_us", 1, b3, sizeof(b3)));
		rw_td_fmt(f, m, "num", "%s", ru_num_text(n, "samples", 0, b4, sizeof(b4)));
		if (drift && ru_num(n, "drift_us", &x))
			rw_td_fmt(f, m, "num", "%s µs (± %s µs)",
				  ru_num_text(n, "drift_us", 1, b5, sizeof(b5)),
				  ru_num_text(n, "drift_bound_us", 1, b6, sizeof(b6)));
		else if (drift)
			rw_td(f, m, "num", "not measured");
		fputs(m->row.off, f);
		if (ru_num(n, "uncertainty_us", &u) && u > worst)
			worst = u;
	}
	fputs(m->table_end, f);
	if (worst >= 0)
		fprintf(
		    f,
		    "%sWorst uncertainty ± %.1f µs: differences between nodes' events finer than "
		    "that are not meaningful.%s",
		    m->para.on, worst, m->para.off);
	if (drift)
		rw_para(
		    f, m,
		    "Drift: the offset measured again at the drill's end, minus the one above; "
		    "beyond what the two alignments' uncertainties explain, it is how far that "
		    "node's clock ran from this host's, and how far its events may be misplaced.");
}

/* "Nodes picked by label from FILE (N nodes): victim = node-b (rack=r1; 1 of 2 that match)." */
static void env_fleet(FILE *f, const json_t *r, const struct rw_markup *m)
{
	const json_t *sel = ru_get(r, "environment.fleet.selection"), *s, *v;
	size_t i, j;
	char b[32];

	if (!json_array_size(sel))
		return;
	fputs(m->para.on, f);
	fputs("Nodes picked by label from ", f);
	m->prose.put(f, ru_str(r, "environment.fleet.file") ?: "a fleet");
	fprintf(f, " (%s nodes), with the run's seed: ",
		ru_num_text(r, "environment.fleet.size", 0, b, sizeof(b)));
	json_array_foreach(sel, i, s) {
		const char *k;

		fputs(i ? "; " : "", f);
		m->prose.put(f, json_string_value(json_object_get(s, "name")) ?: "?");
		fputs(" = ", f);
		json_array_foreach(json_object_get(s, "picked"), j, v) {
			fputs(j ? ", " : "", f);
			m->prose.put(f, json_string_value(v) ?: "?");
		}
		fputs(" (", f);
		j = 0;
		json_object_foreach((json_t *)json_object_get(s, "labels"), k, v) {
			fputs(j++ ? "," : "", f);
			m->prose.put(f, k);
			fputs("=", f);
			m->prose.put(f, json_string_value(v) ?: "?");
		}
		fprintf(f, "%s; %zu of %" JSON_INTEGER_FORMAT " that match)", j ? "" : "any labels",
			json_array_size(json_object_get(s, "picked")),
			json_integer_value(json_object_get(s, "matched")));
	}
	fputs(".", f);
	fputs(m->para.off, f);
}

/* The lab, each node's versions, ports and netdevs, and the clock alignment. */
void rw_environment(FILE *f, const json_t *r, const struct rw_markup *m)
{
	const json_t *nodes = ru_get(r, "environment.nodes");

	m->section(f, "environment", "Environment");
	if (ru_get(r, "environment.lab")) {
		fputs(m->para.on, f);
		ru_lab(f, r, &m->prose);
		fputs(m->para.off, f);
	}
	env_fleet(f, r, m);
	if (!json_array_size(nodes)) {
		rw_para(f, m, "No node inventory was recorded.");
	} else {
		env_nodes(f, nodes, m);
		env_ports(f, nodes, m);
		env_netdevs(f, nodes, m);
	}
	env_clock(f, r, m);
	fputs(m->section_end, f);
}
