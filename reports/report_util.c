// SPDX-License-Identifier: MIT
/*
 * What the report writers share: JSON access that tolerates anything, the
 * number formats, and the sentences report.md and report.html both say, so
 * the two say them in the same words (contracts in reports/report_util.h).
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reports/report.h"
#include "reports/report_util.h"

/* ---- JSON access that tolerates anything --------------------------------- */

const json_t *ru_get(const json_t *o, const char *path)
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

const char *ru_str(const json_t *o, const char *path)
{
	return json_string_value(ru_get(o, path));
}

/* jansson holds no NaN or infinity; the check says that every number here is finite. */
bool ru_num(const json_t *o, const char *path, double *v)
{
	const json_t *j = ru_get(o, path);

	if (!json_is_number(j) || !isfinite(json_number_value(j)))
		return false;
	*v = json_number_value(j);
	return true;
}

bool ru_true(const json_t *o, const char *path)
{
	return json_is_true(ru_get(o, path));
}

bool ru_streq(const char *a, const char *b)
{
	return a && b && !strcmp(a, b);
}

char *ru_compact(const json_t *v)
{
	if (json_is_string(v))
		return strdup(json_string_value(v));
	return json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY | JSON_REAL_PRECISION(15));
}

/* ---- numbers -------------------------------------------------------------- */

const char *ru_num_text(const json_t *o, const char *path, int decimals, char *buf, size_t len)
{
	double v;

	if (!ru_num(o, path, &v))
		return RU_DASH;
	snprintf(buf, len, "%.*f", decimals, v);
	return buf;
}

const char *ru_fmt_ms(double ms, char *buf, size_t len)
{
	if (ms < 10 && fabs(ms - round(ms)) >= 0.05)
		snprintf(buf, len, "%.1f ms", ms);
	else
		snprintf(buf, len, "%.0f ms", ms);
	return buf;
}

const char *ru_ms_text(const json_t *o, const char *path, char *buf, size_t len)
{
	double ms;

	return ru_num(o, path, &ms) ? ru_fmt_ms(ms, buf, len) : RU_DASH;
}

const char *ru_share(const json_t *o, const char *path, const char *none, char *buf, size_t len)
{
	double ratio;

	if (!ru_num(o, path, &ratio))
		return none;
	snprintf(buf, len, "%.0f%%", ratio * 100);
	return buf;
}

/* ---- markup --------------------------------------------------------------- */

void ru_put_raw(FILE *f, const char *s)
{
	fputs(s, f);
}

const char *ru_entity(unsigned int c, const char *apos)
{
	switch (c) {
	case '&':
		return "&amp;";
	case '<':
		return "&lt;";
	case '>':
		return "&gt;";
	case '"':
		return "&quot;";
	case '\'':
		return apos;
	}
	return NULL;
}

/* ---- what report.md and report.html share --------------------------------- */

void ru_ran(FILE *f, const json_t *r, const struct ru_markup *m)
{
	char b[32];

	fputs("Ran from ", f);
	m->put(f, ru_str(r, "started_at") ?: "an unknown time");
	fputs(" to ", f);
	m->put(f, ru_str(r, "finished_at") ?: "an unknown time");
	fputs(" with rdmachaos ", f);
	m->put(f, ru_str(r, "tool_version") ?: "(unknown version)");
	fprintf(f, ", seed %s.", ru_num_text(r, "seed", 0, b, sizeof(b)));
}

void ru_lab(FILE *f, const json_t *r, const struct ru_markup *m)
{
	char b1[32], b2[32];

	fprintf(f, "Built-in lab: %s nodes, %s rails",
		ru_num_text(r, "environment.lab.nodes", 0, b1, sizeof(b1)),
		ru_num_text(r, "environment.lab.rails", 0, b2, sizeof(b2)));
	if (ru_str(r, "environment.lab.accel")) {
		fputs(", QEMU accel ", f);
		m->put(f, ru_str(r, "environment.lab.accel"));
	}
	fputs(" (Soft-RoCE in VMs: far slower than hardware).", f);
}

void ru_scenario_item(FILE *f, const json_t *r, const struct ru_markup *m)
{
	const char *sha = ru_str(r, "scenario.sha256");

	fprintf(f, "%sScenario: %s", m->item.on, m->code.on);
	m->put(f, ru_str(r, "scenario.file") ?: "unknown file");
	fputs(m->code.off, f);
	if (sha && *sha) {
		fprintf(f, " (sha256 %s", m->code.on);
		m->put(f, sha);
		fprintf(f, "%s)", m->code.off);
	}
	fputs(m->item.off, f);
}

void ru_expect_signals(FILE *f, const json_t *x, const struct ru_markup *m)
{
	const json_t *sigs = ru_get(x, "detection.signals"), *s;
	size_t i;

	if (!json_array_size(sigs))
		return;
	fputs(" on ", f);
	json_array_foreach(sigs, i, s) {
		fputs(i ? (i + 1 == json_array_size(sigs) ? " or " : ", ") : "", f);
		m->put(f, json_string_value(s) ?: "?");
	}
}

void ru_expect_limits(FILE *f, const json_t *x)
{
	char b[32];

	if (json_is_number(ru_get(x, "integrity.lost")))
		fprintf(f, "; at most %s lost", ru_num_text(x, "integrity.lost", 0, b, sizeof(b)));
	if (json_is_number(ru_get(x, "integrity.corrupted")))
		fprintf(f, "; at most %s corrupted",
			ru_num_text(x, "integrity.corrupted", 0, b, sizeof(b)));
}

/* Opens the list item "WHAT ID: " on fault ft. */
static void fault_item(FILE *f, const char *what, const json_t *ft, const struct ru_markup *m)
{
	fprintf(f, "%s%s ", m->item.on, what);
	m->put(f, ru_str(ft, "id"));
	fputs(": ", f);
}

size_t ru_fault_notes(FILE *f, const json_t *faults, const struct ru_markup *m)
{
	const json_t *ft;
	double sent, rcvd;
	size_t i, n = 0;

	json_array_foreach(faults, i, ft) {
		if (!ru_get(ft, "pfc"))
			continue;
		fault_item(f, "PFC evidence for", ft, m);
		if (ru_num(ft, "pfc.frames_sent", &sent))
			fprintf(f, "%.0f frames sent, ", sent);
		if (ru_num(ft, "pfc.frames_received", &rcvd))
			fprintf(f, "%.0f received; ", rcvd);
		m->put(f, ru_str(ft, "pfc.evidence") ?: "?");
		fprintf(f, ".%s", m->item.off);
		n++;
	}
	json_array_foreach(faults, i, ft) {
		if (!ru_str(ft, "note"))
			continue;
		fault_item(f, "Note on", ft, m);
		m->put(f, ru_str(ft, "note"));
		fputs(m->item.off, f);
		n++;
	}
	return n;
}

void ru_results_note(FILE *f, const json_t *r)
{
	char b[32], w[32];

	fprintf(
	    f,
	    "Detection and isolation count from the injection to the first matching event; "
	    "recovery counts to the end of the last stretch below %s of the baseline "
	    "throughput, after which it held (see docs/SCENARIOS.md, \"How times are "
	    "measured\").",
	    ru_share(r, "expect.recovery.throughput_ratio", "the expected share", b, sizeof(b)));
	if (!json_is_object(ru_get(r, "expect.failback")))
		return;
	fprintf(f,
		" Failback is how long throughput stayed below %s of the baseline after the "
		"revert and the recovery, over the next %s (or until the next fault): the outage "
		"a job feels when traffic moves back.",
		ru_share(r, "expect.failback.throughput_ratio", "the expected share", b, sizeof(b)),
		ru_ms_text(r, "expect.failback.window_ms", w, sizeof(w)));
}

void ru_params(FILE *f, const json_t *params, const struct ru_markup *m)
{
	const char *key;
	json_t *v;
	bool first = true;

	if (!json_is_object(params) || !json_object_size(params)) {
		fputs(RU_DASH, f);
		return;
	}
	json_object_foreach((json_t *)params, key, v) {
		char *s = ru_compact(v);

		fputs(first ? "" : ", ", f);
		m->put(f, key);
		fputc('=', f);
		m->put(f, s ? s : "?");
		free(s);
		first = false;
	}
}

bool ru_when(FILE *f, const json_t *fault, const char *ms_key, const char *at_key,
	     const struct ru_markup *m)
{
	char b[48];
	double ms;

	if (!ru_num(fault, ms_key, &ms))
		return false;
	fputs(ru_fmt_ms(ms, b, sizeof(b)), f);
	if (ru_str(fault, at_key)) {
		fputs(" (", f);
		m->put(f, ru_str(fault, at_key));
		fputc(')', f);
	}
	return true;
}

enum ru_result ru_measure_result(const json_t *m)
{
	if (ru_true(m, "ok"))
		return RU_RESULT_OK;
	return ru_true(m, "inconclusive") ? RU_RESULT_INCONCLUSIVE : RU_RESULT_NOT_OK;
}

const char *ru_measure_why(const json_t *m)
{
	double ms;

	if (ru_str(m, "note"))
		return ru_str(m, "note");
	if (ru_str(m, "signal"))
		return ru_str(m, "signal");
	return ru_num(m, "ms", &ms) ? NULL : "not seen";
}

bool ru_failback_bounded(const json_t *fb)
{
	double v;

	return ru_num(fb, "threshold_ms", &v);
}

void ru_failback_why(const json_t *fb, char *buf, size_t len)
{
	double ratio, ms, rail;
	char b[32];
	int off = 0;

	buf[0] = '\0';
	if (ru_str(fb, "note")) {
		snprintf(buf, len, "%s", ru_str(fb, "note"));
		return;
	}
	if (ru_num(fb, "min_ratio", &ratio))
		off = snprintf(buf, len, "lowest %.0f%% of the baseline", ratio * 100);
	if (off >= 0 && (size_t)off < len && ru_num(fb, "failback_ms", &ms)) {
		if (ru_num(fb, "to_rail", &rail))
			snprintf(buf + off, len - (size_t)off,
				 "%sback on rail %.0f %s after the revert", off ? "; " : "", rail,
				 ru_fmt_ms(ms, b, sizeof(b)));
		else
			snprintf(buf + off, len - (size_t)off, "%sfailed back %s after the revert",
				 off ? "; " : "", ru_fmt_ms(ms, b, sizeof(b)));
	}
}

const char ru_integrity_unknown[] = "Unknown: the workload's client or server summary is missing, "
				    "so lost and corrupted messages could not be counted.";
const char ru_integrity_note[] = "Lost: acknowledged to the client but never received intact by "
				 "the server. Duplicates are expected after a failover (the "
				 "client resends what was in flight).";

/* The number at path, or NAN. */
static double num_or_nan(const json_t *o, const char *path)
{
	double v;

	return ru_num(o, path, &v) ? v : NAN;
}

void ru_alert_of(const json_t *row, struct ru_alert *a)
{
	a->fault = ru_str(row, "fault");
	a->alert = ru_str(row, "alert");
	a->status = ru_str(row, "status");
	a->resolve = ru_str(row, "resolve");
	a->fired_ms = num_or_nan(row, "fired_ms");
	a->fire_within_ms = num_or_nan(row, "fire_within_ms");
	a->resolved_ms = num_or_nan(row, "resolved_ms");
	a->resolve_within_ms = num_or_nan(row, "resolve_within_ms");
	a->ok = ru_true(row, "ok");
}

const char *ru_alert_ms(double ms, const char *none, char *buf, size_t len)
{
	return isnan(ms) ? none : ru_fmt_ms(ms, buf, len);
}

const char *ru_unit(const json_t *r)
{
	return ru_str(r, "workload.throughput_unit") ?: "MB/s";
}

void ru_baseline(FILE *f, const json_t *w)
{
	char b[3][32];

	fprintf(f, "Baseline: %s %s mean, ",
		ru_num_text(w, "baseline.throughput_mbps", 1, b[0], sizeof(b[0])),
		ru_str(w, "throughput_unit") ?: "MB/s");
	/* a job's samples carry no latency: 0 means not measured */
	if (json_number_value(json_object_get(json_object_get(w, "baseline"), "latency_us_p50")) >
	    0)
		fprintf(f, "p50 latency %s µs, ",
			ru_num_text(w, "baseline.latency_us_p50", 0, b[1], sizeof(b[1])));
	fprintf(f, "over %s samples", ru_num_text(w, "baseline.samples", 0, b[2], sizeof(b[2])));
}

void ru_workload(FILE *f, const json_t *w, const struct ru_markup *m)
{
	char b1[32], b2[32];
	double rate;

	if (!ru_str(w, "from") || !ru_str(w, "to"))
		return;
	fputs(" Workload: ", f);
	m->put(f, ru_str(w, "kind") ?: "stream");
	/* a job's messages are its own: the stream's settings say nothing of it */
	if (!strcmp(ru_str(w, "kind") ?: "", "job")) {
		fputs(" (its ranks, command and evidence under Job).", f);
		return;
	}
	fputc(' ', f);
	m->put(f, ru_str(w, "from"));
	fputs(" → ", f);
	m->put(f, ru_str(w, "to"));
	fprintf(f, ", %s-byte messages, queue depth %s",
		ru_num_text(w, "msg_size", 0, b1, sizeof(b1)),
		ru_num_text(w, "queue_depth", 0, b2, sizeof(b2)));
	if (ru_num(w, "rate_bytes_per_s", &rate))
		fprintf(f, ", paced at %g MB/s", rate / 1e6);
	fputc('.', f);
}

void ru_anomaly(FILE *f, const json_t *a, const struct ru_markup *m)
{
	const json_t *what = ru_get(a, "what");
	char *s = ru_compact(what ? what : a);
	char b[32];

	fprintf(f, "%s%s ms, ", m->item.on, ru_num_text(a, "t_ms", 1, b, sizeof(b)));
	m->put(f, ru_str(a, "node") ?: "?");
	fputs(": ", f);
	if (ru_str(a, "why")) {
		m->put(f, ru_str(a, "why"));
		fputs(": ", f);
	}
	if (s && s[0] == '{') {
		fputs(m->code.on, f);
		m->put(f, s);
		fputs(m->code.off, f);
	} else {
		m->put(f, s ? s : "?");
	}
	fputs(m->item.off, f);
	free(s);
}

enum ru_cleanup ru_cleanup_of(const json_t *c)
{
	if (!c)
		return RU_CLEANUP_MISSING;
	return ru_true(c, "verified") ? RU_CLEANUP_VERIFIED : RU_CLEANUP_UNVERIFIED;
}

const char *const ru_cleanup_text[] = {
    [RU_CLEANUP_MISSING] = "No cleanup was recorded: check the nodes by hand.",
    [RU_CLEANUP_VERIFIED] = "Every fault was reverted and the prior state verified.",
    [RU_CLEANUP_UNVERIFIED] = "Not verified: check the nodes by hand before the next drill.",
};

/* Only the limits the scenario set; 0 in report.json means "not limited". */
static void blast_radius_item(FILE *f, const json_t *b, const struct ru_markup *m)
{
	json_int_t nodes = json_integer_value(ru_get(b, "max_nodes"));
	json_int_t rails = json_integer_value(ru_get(b, "max_rails"));
	double share = json_number_value(ru_get(b, "max_fleet_share"));
	const char *sep = "";

	fputs(m->item.on, f);
	if (!nodes && !rails && !(share > 0)) {
		fprintf(f, "Blast radius: not limited by the scenario.%s", m->item.off);
		return;
	}
	fputs("Blast radius, at once:", f);
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
	fprintf(f, "; checked before anything was touched, and by each agent.%s", m->item.off);
}

void ru_safety_items(FILE *f, const json_t *s, const struct ru_markup *m)
{
	const json_t *g;
	double v;
	size_t i;

	if (ru_num(s, "lease_ms", &v))
		fprintf(f,
			"%sEach fault was leased for %.1f s (renewals sent %lld, failed %lld): an "
			"agent that stops hearing from the coordinator reverts it.%s",
			m->item.on, v / 1000.0,
			(long long)json_integer_value(ru_get(s, "renewals.sent")),
			(long long)json_integer_value(ru_get(s, "renewals.failed")), m->item.off);
	blast_radius_item(f, ru_get(s, "blast_radius"), m);
	json_array_foreach(ru_get(s, "guards"), i, g) {
		fprintf(f, "%sGuard %zu: abort on ", m->item.on, i);
		m->put(f, ru_str(g, "description") ?: "?");
		if (ru_num(g, "flow.baseline_mbps", &v))
			fprintf(f, " (flow baseline %.2f MB/s)", v);
		fputs(": ", f);
		if (ru_true(g, "tripped")) {
			fprintf(f, "%stripped%s at %.1f s: ", m->strong.on, m->strong.off,
				json_number_value(ru_get(g, "tripped_ms")) / 1000.0);
			m->put(f, ru_str(g, "why") ?: "?");
		} else {
			fputs("held", f);
		}
		fputs(m->item.off, f);
	}
}

void ru_record(FILE *f, const json_t *r, const struct ru_markup *m)
{
	char b[32];

	fprintf(f, "Every event: %s", m->code.on);
	m->put(f, ru_str(r, "events.file") ?: "events.jsonl");
	fprintf(f, "%s (%s events). Machine record: %sreport.json%s (", m->code.off,
		ru_num_text(r, "events.count", 0, b, sizeof(b)), m->code.on, m->code.off);
	m->put(f, ru_str(r, "schema") ?: REPORT_SCHEMA);
	fputs(").", f);
}
