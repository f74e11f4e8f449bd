// SPDX-License-Identifier: MIT
/*
 * The judgements a readiness review draws from a finished drill's report.json:
 * its readiness category (ready / needs work / defer, with the rule that
 * decided it) and the action items, each with the measured evidence behind
 * it. Pure functions of the report (no clock, no environment), so every
 * writer shows the same words, golden files stay stable, and a report of any
 * age (fields missing or null) can be judged again.
 */
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/units.h"
#include "reports/report.h"
#include "reports/report_util.h"

/* ---- formatting --------------------------------------------------------- */

/* A count as an integer ("12"), or "?" when it is out of range. */
static const char *fmt_count(double v, char *buf, size_t len)
{
	if (!isfinite(v) || fabs(v) > 9e15)
		snprintf(buf, len, "?");
	else
		snprintf(buf, len, "%.0f", v);
	return buf;
}

/* Drops a UTF-8 sequence that snprintf's truncation cut in two. */
static void trim_utf8(char *s)
{
	size_t n = strlen(s), i = n, need;

	while (i > 0 && ((unsigned char)s[i - 1] & 0xC0) == 0x80 && n - i < 3)
		i--;
	if (i == 0 || !((unsigned char)s[i - 1] & 0x80))
		return;
	need = ((unsigned char)s[i - 1] & 0xE0) == 0xC0	  ? 2
	       : ((unsigned char)s[i - 1] & 0xF0) == 0xE0 ? 3
	       : ((unsigned char)s[i - 1] & 0xF8) == 0xF0 ? 4
							  : 1;
	if (n - (i - 1) < need)
		s[i - 1] = '\0';
}

__attribute__((format(printf, 3, 4))) static const char *fmt(char *buf, size_t len, const char *f,
							     ...)
{
	va_list ap;

	va_start(ap, f);
	vsnprintf(buf, len, f, ap);
	va_end(ap);
	trim_utf8(buf);
	return buf;
}

/* ---- the facts both judgements rest on ----------------------------------- */

static bool verdict_known(const json_t *r)
{
	const char *v = ru_str(r, "verdict");

	return ru_streq(v, "pass") || ru_streq(v, "fail") || ru_streq(v, "inconclusive") ||
	       ru_streq(v, "cleanup_failed");
}

static bool integrity_over(const json_t *r, const char *what, double *got, double *max)
{
	char in[48], lim[48];

	snprintf(in, sizeof(in), "workload.integrity.%s", what);
	snprintf(lim, sizeof(lim), "expect.integrity.%s", what);
	return ru_num(r, in, got) && ru_num(r, lim, max) && *got > *max;
}

static bool integrity_violated(const json_t *r)
{
	double got, max;

	return integrity_over(r, "lost", &got, &max) || integrity_over(r, "corrupted", &got, &max);
}

static bool guard_tripped(const json_t *r)
{
	const json_t *g;
	size_t i;

	if (json_is_number(ru_get(r, "safety.aborted_by")))
		return true;
	json_array_foreach(ru_get(r, "safety.guards"), i, g)
		if (ru_true(g, "tripped"))
			return true;
	return false;
}

/*
 * The event an anomaly describes: its "what" as an object, or the JSON text
 * the coordinator stores there parsed back. NULL when it is plain prose.
 * The caller decrefs.
 */
static json_t *anomaly_event(const json_t *a)
{
	const json_t *what = ru_get(a, "what");
	const char *s = json_string_value(what);

	if (json_is_object(what))
		return json_incref((json_t *)what);
	if (s && s[0] == '{')
		return json_loads(s, 0, NULL);
	return NULL;
}

/*
 * Every anomaly matters except an agent's own notice at level info or
 * debug: those say what the agent did, not that something went wrong.
 */
static bool anomaly_matters(const json_t *a)
{
	json_t *ev;
	bool minor;

	if (!a || json_is_null(a))
		return false;
	ev = anomaly_event(a);
	minor = ev && ru_streq(ru_str(ev, "kind"), "agent") &&
		(ru_streq(ru_str(ev, "level"), "info") || ru_streq(ru_str(ev, "level"), "debug"));
	json_decref(ev);
	return !minor;
}

static size_t anomalies_that_matter(const json_t *r)
{
	const json_t *a;
	size_t i, n = 0;

	json_array_foreach(ru_get(r, "anomalies"), i, a)
		n += anomaly_matters(a);
	return n;
}

/* ---- readiness ----------------------------------------------------------- */

/*
 * The readiness rules, tried in this order; the first that applies decides.
 * Each sentence says what was found and why it maps to its category:
 *
 *   1. no (known) verdict                       -> defer
 *   2. cleanup not verified (or cleanup_failed) -> defer: the fabric's state
 *      is unknown, and fixing that comes before anything else
 *   3. integrity violated (lost or corrupted above the allowed)
 *                                               -> needs work, whatever else held
 *   4. a safety guard tripped                   -> needs work
 *   5. verdict fail (a threshold violated)      -> needs work
 *   6. verdict inconclusive (no evidence)       -> defer
 *   7. verdict pass with anomalies that matter  -> needs work (explain them)
 *   8. verdict pass                             -> ready to roll out
 */
enum rd_rule {
	RD_NO_VERDICT,
	RD_CLEANUP,
	RD_INTEGRITY,
	RD_GUARD,
	RD_FAIL,
	RD_INCONCLUSIVE,
	RD_ANOMALIES,
	RD_READY,
};

static const struct {
	const char *category, *label, *rule;
} rd_rules[] = {
    [RD_NO_VERDICT] = {"defer", "defer",
		       "No verdict was recorded, so the drill proves nothing yet: defer until it "
		       "runs to a verdict."},
    [RD_CLEANUP] = {"defer", "defer",
		    "Cleanup was not verified, so the fabric's state is unknown: defer, and "
		    "restore and verify the nodes by hand before anything else."},
    [RD_INTEGRITY] = {"needs_work", "needs work",
		      "Messages were lost or corrupted beyond what the scenario allows: that "
		      "needs work, whatever else held."},
    [RD_GUARD] = {"needs_work", "needs work",
		  "A safety guard stopped the drill: the system fell below a floor the scenario "
		  "set, so it needs work."},
    [RD_FAIL] = {"needs_work", "needs work",
		 "The verdict is fail: a detection, isolation, recovery or integrity threshold "
		 "was violated, so it needs work."},
    [RD_INCONCLUSIVE] = {"defer", "defer",
			 "The verdict is inconclusive: the drill gave no evidence either way (a "
			 "fault not in effect, a signal source down or the run interrupted), so "
			 "defer until a rerun gives some."},
    [RD_ANOMALIES] = {"needs_work", "needs work",
		      "Every expectation held, but unexplained anomalies were recorded: they "
		      "need explaining before a roll-out."},
    [RD_READY] = {"ready", "ready to roll out",
		  "The verdict is pass, cleanup was verified and no unexplained anomaly was "
		  "recorded: ready to roll out."},
};

static enum rd_rule readiness_rule(const json_t *r)
{
	const char *v = ru_str(r, "verdict");

	if (!verdict_known(r))
		return RD_NO_VERDICT;
	if (ru_streq(v, "cleanup_failed") || !ru_true(r, "cleanup.verified"))
		return RD_CLEANUP;
	if (integrity_violated(r))
		return RD_INTEGRITY;
	if (guard_tripped(r))
		return RD_GUARD;
	if (ru_streq(v, "fail"))
		return RD_FAIL;
	if (ru_streq(v, "inconclusive"))
		return RD_INCONCLUSIVE;
	if (anomalies_that_matter(r))
		return RD_ANOMALIES;
	return RD_READY;
}

json_t *report_readiness(const json_t *report)
{
	enum rd_rule k = readiness_rule(report);

	return json_pack("{s:s,s:s,s:s}", "category", rd_rules[k].category, "label",
			 rd_rules[k].label, "rule", rd_rules[k].rule);
}

json_t *report_readiness_of(const json_t *report)
{
	const json_t *rd = ru_get(report, "readiness");

	if (ru_str(rd, "category") && ru_str(rd, "rule"))
		return json_incref((json_t *)rd);
	return report_readiness(report);
}

/* ---- action items --------------------------------------------------------- */

#define ITEM_LEN 768

static void add_item(json_t *items, const char *fault, const char *item, const char *because)
{
	json_t *o = json_object();

	json_object_set_new(o, "fault", fault ? json_string(fault) : json_null());
	json_object_set_new(o, "item", json_string(item));
	json_object_set_new(o, "because", json_string(because));
	json_array_append_new(items, o);
}

/* True when one of the reasons starts with `prefix`; the reason in *found. */
static bool reason_starting(const json_t *r, const char *prefix, const char **found)
{
	const json_t *s;
	size_t i;

	json_array_foreach(ru_get(r, "reasons"), i, s) {
		const char *t = json_string_value(s);

		if (t && !strncmp(t, prefix, strlen(prefix))) {
			if (found)
				*found = t;
			return true;
		}
	}
	return false;
}

/* The drill stopped before its end: by the operator, or by a guard. */
static bool drill_cut_short(const json_t *r)
{
	return reason_starting(r, "stopped by the operator", NULL) || guard_tripped(r);
}

static bool fault_injected(const json_t *f)
{
	return json_is_number(ru_get(f, "injected_ms"));
}

/* The fault whose window [injected, reverted] holds t, when exactly one does. */
static const char *fault_at(const json_t *r, double t)
{
	const json_t *f;
	const char *id = NULL;
	double from, to;
	size_t i, n = 0;

	json_array_foreach(ru_get(r, "faults"), i, f) {
		if (!ru_num(f, "injected_ms", &from) || t < from)
			continue;
		if (ru_num(f, "reverted_ms", &to) && t > to)
			continue;
		id = ru_str(f, "id");
		n++;
	}
	return n == 1 ? id : NULL;
}

/* "workload_error, port_event" from expect.detection.signals. */
static const char *expected_signals(const json_t *r, char *buf, size_t len)
{
	const json_t *s;
	size_t i, off = 0;

	buf[0] = '\0';
	json_array_foreach(ru_get(r, "expect.detection.signals"), i, s) {
		if (!json_is_string(s) || off >= len)
			continue;
		off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? ", " : "",
					json_string_value(s));
	}
	return buf;
}

static bool is_note(const json_t *m, const char *note)
{
	return ru_streq(ru_str(m, "note"), note);
}

/* One trial of a repeated fault (repeat:, schedule:): the fault's name, else NULL. */
static const char *trial_base(const json_t *f)
{
	double n;

	if (!ru_str(f, "fault") || !ru_num(f, "trials", &n) || n <= 1)
		return NULL;
	return ru_str(f, "fault");
}

/*
 * Whether a measure is judged trial by trial: always, except for a repeated
 * fault whose threshold for this phase is stated on p50 or p90
 * (expect.PHASE.stat); then only the distribution over its trials counts.
 */
static bool judged_alone(const json_t *r, const json_t *f, const char *phase)
{
	char path[48];
	const char *st;

	if (!trial_base(f))
		return true;
	snprintf(path, sizeof(path), "expect.%s.stat", phase);
	st = ru_str(r, path);
	return !st || !strcmp(st, "max");
}

/*
 * A measure that could not be judged. "Not injected" and "no baseline" have
 * their own items; "the drill ended before the window closed" is the
 * consequence of a stop that has its own item too.
 */
static void item_unjudged(json_t *items, const json_t *r, const char *id, const char *what,
			  const json_t *m)
{
	const char *note = ru_str(m, "note");
	char item[ITEM_LEN], because[ITEM_LEN];

	if (!ru_true(m, "inconclusive") || is_note(m, "not injected") ||
	    (note && strstr(note, "baseline")))
		return;
	if (is_note(m, "the drill ended before the window closed")) {
		if (drill_cut_short(r))
			return;
		fmt(item, sizeof(item),
		    "run the drill longer (a later end or a longer cooldown) so the %s window "
		    "closes",
		    what);
	} else {
		fmt(item, sizeof(item), "fix what kept %s from being judged, then run it again",
		    what);
	}
	fmt(because, sizeof(because), "%s could not be judged: %s", what, note ? note : "no note");
	add_item(items, id, item, because);
}

static void item_detection(json_t *items, const json_t *r, const json_t *f, const char *id)
{
	const json_t *m = ru_get(f, "detection");
	const char *sig = ru_str(m, "signal"), *note = ru_str(m, "note");
	char item[ITEM_LEN], because[ITEM_LEN], a[32], b[32], sigs[256];
	double ms, thr = NAN;

	if (!json_is_object(m) || ru_true(m, "ok") || !judged_alone(r, f, "detection"))
		return;
	if (ru_true(m, "inconclusive")) {
		item_unjudged(items, r, id, "detection", m);
		return;
	}
	ru_num(m, "threshold_ms", &thr);
	if (ru_num(m, "ms", &ms)) {
		if (ru_streq(sig, "workload_error") || ru_streq(sig, "stall") || !sig) {
			fmt(item, sizeof(item),
			    "add an alert on port state (port_event) or link state (link_event), "
			    "so the fault is seen before the job fails");
			fmt(because, sizeof(because),
			    "detection %s > %s: the first signal was %s, nothing from the fabric "
			    "came sooner",
			    rc_format_ms(ms, a, sizeof(a)), rc_format_ms(thr, b, sizeof(b)),
			    sig ? sig : "unnamed");
		} else {
			fmt(item, sizeof(item),
			    "find why %s came late (the agent's event path, the NIC's link "
			    "debounce), or alert on an earlier signal",
			    sig);
			fmt(because, sizeof(because), "detection %s > %s, first seen as %s",
			    rc_format_ms(ms, a, sizeof(a)), rc_format_ms(thr, b, sizeof(b)), sig);
		}
		add_item(items, id, item, because);
		return;
	}
	expected_signals(r, sigs, sizeof(sigs));
	fmt(item, sizeof(item),
	    "add a detection signal that sees this fault (port_event, link_event or an error "
	    "counter): none of the expected ones fired");
	fmt(because, sizeof(because), "detection not seen within %s (signals: %s)%s%s",
	    rc_format_ms(thr, b, sizeof(b)), sigs[0] ? sigs : "none listed",
	    note && !ru_streq(note, "not seen") ? ": " : "",
	    note && !ru_streq(note, "not seen") ? note : "");
	add_item(items, id, item, because);
}

static void item_isolation(json_t *items, const json_t *r, const json_t *f, const char *id)
{
	const json_t *m = ru_get(f, "isolation");
	const char *note = ru_str(m, "note");
	char because[ITEM_LEN], a[32], b[32], detail[128];
	double ms, thr = NAN, rail;

	if (!json_is_object(m) || ru_true(m, "ok") || !judged_alone(r, f, "isolation"))
		return;
	if (ru_true(m, "inconclusive")) {
		item_unjudged(items, r, id, "isolation", m);
		return;
	}
	ru_num(m, "threshold_ms", &thr);
	if (ru_num(m, "ms", &ms)) {
		fmt(because, sizeof(because), "isolation %s > %s (%s)",
		    rc_format_ms(ms, a, sizeof(a)), rc_format_ms(thr, b, sizeof(b)),
		    ru_str(m, "signal") ?: "unnamed signal");
		add_item(items, id,
			 "check the job's failover (multi-rail / bonding): it left the faulty path "
			 "too late",
			 because);
		return;
	}
	if (note && strcmp(note, "not seen"))
		fmt(detail, sizeof(detail), "%s", note);
	else if (ru_num(f, "target.rail", &rail))
		fmt(detail, sizeof(detail), "no rail_down or failover of rail %.0f", rail);
	else
		fmt(detail, sizeof(detail), "no rail_down or failover");
	fmt(because, sizeof(because), "isolation not seen within %s: %s",
	    rc_format_ms(thr, b, sizeof(b)), detail);
	add_item(items, id,
		 "check the job's failover (multi-rail / bonding): it never left the faulty path",
		 because);
}

static void item_recovery(json_t *items, const json_t *r, const json_t *f, const char *id)
{
	const json_t *m = ru_get(f, "recovery");
	const char *note = ru_str(m, "note");
	char because[ITEM_LEN], a[32], b[32], share[96], qp[64];
	double ms, thr = NAN, ratio, base, t, n;

	if (!json_is_object(m) || ru_true(m, "ok") || !judged_alone(r, f, "recovery"))
		return;
	if (ru_true(m, "inconclusive")) {
		item_unjudged(items, r, id, "recovery", m);
		return;
	}
	ru_num(m, "threshold_ms", &thr);
	if (ru_num(r, "expect.recovery.throughput_ratio", &ratio) &&
	    ru_num(r, "workload.baseline.throughput_mbps", &base))
		fmt(share, sizeof(share), "%.0f%% of the %.1f %s baseline", ratio * 100, base,
		    ru_unit(r));
	else
		fmt(share, sizeof(share), "the expected share of the baseline");
	qp[0] = '\0';
	if (ru_num(r, "workload.qp.timeout", &t) && ru_num(r, "workload.qp.retry_cnt", &n))
		fmt(qp, sizeof(qp), " (QP timeout %.0f, retry_cnt %.0f)", t, n);
	if (ru_num(m, "ms", &ms)) {
		fmt(because, sizeof(because), "recovery %s > %s: throughput stayed below %s%s",
		    rc_format_ms(ms, a, sizeof(a)), rc_format_ms(thr, b, sizeof(b)), share, qp);
		add_item(items, id,
			 "shorten recovery (QP timeout and retry_cnt, the reconnect and failback "
			 "path), or revisit the recovery threshold if it is unrealistic",
			 because);
		return;
	}
	fmt(because, sizeof(because),
	    "recovery not seen within %s: %s; throughput stayed below %s%s",
	    rc_format_ms(thr, b, sizeof(b)), note ? note : "throughput never came back", share, qp);
	add_item(items, id,
		 "make the job recover from this fault: throughput did not come back (reconnect, "
		 "failback, retry budget)",
		 because);
}

/* A bounded failback that was violated. */
static void item_failback(json_t *items, const json_t *r, const json_t *f, const char *id)
{
	const json_t *fb = ru_get(f, "failback");
	char because[ITEM_LEN], a[32], b[32], why[256];
	double ms, thr;

	if (!json_is_object(fb) || ru_true(fb, "ok") || !ru_failback_bounded(fb))
		return;
	/*
	 * Not measured: the fault was not reverted, the workload never recovered
	 * or the drill stopped early, each with an item of its own.
	 */
	if (ru_true(fb, "inconclusive") || !ru_num(fb, "outage_ms", &ms))
		return;
	ru_num(fb, "threshold_ms", &thr);
	ru_failback_why(fb, why, sizeof(why));
	fmt(because, sizeof(because), "failback outage %s > %s after the revert (%s)",
	    rc_format_ms(ms, a, sizeof(a)), rc_format_ms(thr, b, sizeof(b)), why);
	add_item(items, id,
		 "make failback graceful: move traffic back only once the repaired path carries "
		 "it (drain, then switch), or stay on the surviving rail",
		 because);
}

/* The storm prevention setting of the storm's victims: the peers' netdevs on its rail. */
static const char *pfc_prevention(const json_t *r, const json_t *f, char *buf, size_t len)
{
	const json_t *n, *nd, *p;
	const char *sender = ru_str(f, "target.node");
	size_t i, k, off = 0;
	double rail, ndrail;
	char v[32];

	buf[0] = '\0';
	if (!ru_num(f, "target.rail", &rail))
		return buf;
	json_array_foreach(ru_get(r, "environment.nodes"), i, n) {
		if (ru_streq(ru_str(n, "name"), sender))
			continue;
		json_array_foreach(ru_get(n, "netdevs"), k, nd) {
			if (!ru_num(nd, "rail", &ndrail) || ndrail != rail)
				continue;
			p = ru_get(nd, "pfc.prevention_tout_ms");
			if (json_is_string(p))
				snprintf(v, sizeof(v), "%s", json_string_value(p));
			else if (json_is_number(p))
				snprintf(v, sizeof(v), "%.0f ms", json_number_value(p));
			else
				snprintf(v, sizeof(v), "not reported");
			if (off < len)
				off += (size_t)snprintf(buf + off, len - off, "%s %s on %s %s",
							off ? "," : "; storm prevention", v,
							ru_str(n, "name") ?: "?",
							ru_str(nd, "name") ?: "?");
		}
	}
	trim_utf8(buf);
	return buf;
}

static void item_pfc(json_t *items, const json_t *r, const json_t *f, const char *id)
{
	const json_t *p = ru_get(f, "pfc");
	char because[ITEM_LEN], prev[256], s[32], rc[32];
	double sent = NAN, rcvd = 0, nic = 0;

	if (!ru_streq(ru_str(f, "injector"), "pfc_storm") || !json_is_object(p) ||
	    json_is_number(ru_get(p, "storm_detected_ms")))
		return;
	ru_num(p, "frames_sent", &sent);
	ru_num(p, "frames_received", &rcvd);
	ru_num(p, "nic_pause_frames", &nic);
	if (!(rcvd > 0) && !(nic > 0)) {
		fmt(because, sizeof(because),
		    "%s pause frames sent, none counted by any agent or NIC: the storm never "
		    "reached its victim",
		    isnan(sent) ? "?" : fmt_count(sent, s, sizeof(s)));
		add_item(items, id,
			 "check that the storm's frames reach the peer (rail, VLAN, priority, "
			 "switch), then run it again",
			 because);
		return;
	}
	fmt(because, sizeof(because),
	    "%s pause frames sent, %s received, and no watchdog raised storm_detected%s",
	    isnan(sent) ? "?" : fmt_count(sent, s, sizeof(s)),
	    fmt_count(rcvd > 0 ? rcvd : nic, rc, sizeof(rc)),
	    pfc_prevention(r, f, prev, sizeof(prev)));
	add_item(items, id,
		 "enable the NIC's PFC storm prevention on the victim (ethtool --set-tunable IFACE "
		 "pfc-prevention-tout auto) and alert on it",
		 because);
}

static void items_fault(json_t *items, const json_t *r, const json_t *f)
{
	const char *id = ru_str(f, "id");
	char because[ITEM_LEN];

	if (!json_is_object(f))
		return;
	if (!fault_injected(f)) {
		if (ru_str(f, "error"))
			fmt(because, sizeof(because), "%s was not injected: %s",
			    id ? id : "the fault", ru_str(f, "error"));
		else
			fmt(because, sizeof(because), "%s was not injected (no error recorded)",
			    id ? id : "the fault");
		add_item(items, id,
			 "get the fault in effect (fix what refused it: target, permissions, "
			 "injector support), then run the drill again",
			 because);
		return;
	}
	item_detection(items, r, f, id);
	item_isolation(items, r, f, id);
	item_recovery(items, r, f, id);
	item_failback(items, r, f, id);
	item_pfc(items, r, f, id);
}

/* What to do about a phase whose p50 or p90 over the trials missed its threshold. */
static const char *const stat_items[][2] = {
    {"detection", "make detection faster across the trials: add an alert on port state "
		  "(port_event) or link state (link_event), or find why the first signal comes "
		  "late"},
    {"isolation", "check the job's failover (multi-rail / bonding): across the trials it "
		  "leaves the faulty path too late"},
    {"recovery", "shorten recovery (QP timeout and retry_cnt, the reconnect and failback "
		 "path), or revisit the recovery threshold if it is unrealistic"},
};

/* One statistic of a distribution: "20 s", or "not seen" (a trial never saw the phase). */
static void stat_dur(const json_t *st, const char *key, char *buf, size_t len)
{
	double v;

	if (ru_num(st, key, &v))
		rc_format_ms(v, buf, len);
	else
		snprintf(buf, len, "not seen");
}

/* The distribution of each phase judged on p50 or p90 (report.trials[]). */
static void items_stats(json_t *items, const json_t *r, const json_t *any_trial, const char *base)
{
	const json_t *t, *found = NULL, *st;
	char because[ITEM_LEN], a[32], b[32], c[32], d[32], e[32], n1[32], n2[32];
	double v, thr = NAN, judged = 0, seen = 0;
	size_t i, k;

	json_array_foreach(ru_get(r, "trials"), i, t)
		if (ru_streq(ru_str(t, "fault"), base))
			found = t;
	if (!found)
		return;
	for (k = 0; k < sizeof(stat_items) / sizeof(stat_items[0]); k++) {
		const char *phase = stat_items[k][0];
		char path[48];
		const char *stat;

		snprintf(path, sizeof(path), "expect.%s.stat", phase);
		stat = ru_str(r, path) ?: "max";
		if (judged_alone(r, any_trial, phase) || !json_object_get(found, phase))
			continue;
		st = ru_get(found, phase);
		if (!json_is_object(st)) {
			if (drill_cut_short(r))
				continue;
			fmt(because, sizeof(because),
			    "%s %s could not be judged: no trial was measured", phase, stat);
			add_item(items, base,
				 "fix what kept the trials from being measured, then run "
				 "the drill again",
				 because);
			continue;
		}
		if (ru_true(st, "ok"))
			continue;
		ru_num(st, "threshold_ms", &thr);
		ru_num(st, "judged", &judged);
		ru_num(st, "seen", &seen);
		if (ru_num(st, "value", &v)) {
			/* each in its own buffer, filled before the sentence is put together */
			stat_dur(st, "p50", c, sizeof(c));
			stat_dur(st, "p90", d, sizeof(d));
			stat_dur(st, "max", e, sizeof(e));
			fmt(because, sizeof(because),
			    "%s %s over %s trials %s > %s (p50 %s, p90 %s, max %s)", phase, stat,
			    fmt_count(judged, n1, sizeof(n1)), rc_format_ms(v, a, sizeof(a)),
			    rc_format_ms(thr, b, sizeof(b)), c, d, e);
		} else
			fmt(because, sizeof(because),
			    "%s %s over %s trials: not seen within %s in %s of them", phase, stat,
			    fmt_count(judged, n1, sizeof(n1)), rc_format_ms(thr, b, sizeof(b)),
			    fmt_count(judged - seen, n2, sizeof(n2)));
		add_item(items, base, stat_items[k][1], because);
	}
}

/*
 * The trials of one repeated fault: each trial's items, merged by what to
 * do, name the fault and the trials they came from; then the phases judged
 * on their distribution.
 */
static void items_trials(json_t *items, const json_t *r, const char *base)
{
	json_t *tmp = json_array();
	const json_t *f, *it, *other, *first = NULL;
	char because[ITEM_LEN], ids[ITEM_LEN], n1[32], n2[32];
	size_t i, k, j, nr = 0;

	json_array_foreach(ru_get(r, "faults"), i, f) {
		if (!ru_streq(trial_base(f), base))
			continue;
		first = first ?: f;
		nr++;
		items_fault(tmp, r, f);
	}
	json_array_foreach(tmp, k, it) {
		const char *what = ru_str(it, "item");
		size_t m = 0, off = 0;
		bool seen_before = false;

		for (j = 0; j < k; j++)
			seen_before |= ru_streq(ru_str(json_array_get(tmp, j), "item"), what);
		if (seen_before)
			continue;
		ids[0] = '\0';
		json_array_foreach(tmp, j, other) {
			if (j < k || !ru_streq(ru_str(other, "item"), what))
				continue;
			m++;
			if (off < sizeof(ids))
				off += (size_t)snprintf(ids + off, sizeof(ids) - off, "%s%s",
							off ? ", " : "",
							ru_str(other, "fault") ?: "?");
		}
		trim_utf8(ids);
		fmt(because, sizeof(because), "%s; in %s of %s trials: %s", ru_str(it, "because"),
		    fmt_count((double)m, n1, sizeof(n1)), fmt_count((double)nr, n2, sizeof(n2)),
		    ids);
		add_item(items, base, what, because);
	}
	json_decref(tmp);
	if (first)
		items_stats(items, r, first, base);
}

/* Each action cleanup could not verify, to be reverted by hand. */
static void items_cleanup(json_t *items, const json_t *r)
{
	const json_t *c = ru_get(r, "cleanup"), *acts = ru_get(c, "actions"), *a;
	char item[ITEM_LEN], because[ITEM_LEN];
	size_t i, n = 0;

	/* as readiness rule 2 sees it: any verdict, and cleanup not verified */
	if (!verdict_known(r) ||
	    (ru_true(c, "verified") && !ru_streq(ru_str(r, "verdict"), "cleanup_failed")))
		return;
	json_array_foreach(acts, i, a) {
		if (json_is_string(a)) {
			fmt(item, sizeof(item), "revert by hand and check: %s",
			    json_string_value(a));
			add_item(items, NULL, item, "cleanup was not verified");
			n++;
			continue;
		}
		if (!json_is_object(a) || ru_true(a, "verified"))
			continue;
		fmt(item, sizeof(item), "revert by hand on %s and check: %s",
		    ru_str(a, "node") ?: "the node",
		    ru_str(a, "action") ?: "the fault's prior state");
		fmt(because, sizeof(because), "cleanup could not verify this action%s%s",
		    ru_str(a, "error") ? ": " : "", ru_str(a, "error") ?: "");
		add_item(items, ru_str(a, "fault_id"), item, because);
		n++;
	}
	if (!n)
		add_item(items, NULL,
			 "check every node the drill touched by hand and restore its prior state",
			 c ? "cleanup was not verified and no unverified action was recorded"
			   : "no cleanup was recorded");
}

static void items_integrity(json_t *items, const json_t *r)
{
	char because[ITEM_LEN], a[32], b[32], c[32], d[32];
	double got, max, sent = NAN, rcvd = NAN;

	ru_num(r, "workload.integrity.sent", &sent);
	ru_num(r, "workload.integrity.received", &rcvd);
	if (integrity_over(r, "lost", &got, &max)) {
		fmt(because, sizeof(because),
		    "%s messages lost, at most %s allowed (sent %s, "
		    "received %s)",
		    fmt_count(got, a, sizeof(a)), fmt_count(max, b, sizeof(b)),
		    fmt_count(sent, c, sizeof(c)), fmt_count(rcvd, d, sizeof(d)));
		add_item(items, NULL,
			 "find where acknowledged messages were lost (the resend path after a "
			 "failover, retry exhaustion)",
			 because);
	}
	if (integrity_over(r, "corrupted", &got, &max)) {
		fmt(because, sizeof(because), "%s messages corrupted, at most %s allowed",
		    fmt_count(got, a, sizeof(a)), fmt_count(max, b, sizeof(b)));
		add_item(items, NULL,
			 "find the source of the corruption (memory registration, DMA, offloads) "
			 "before anything else",
			 because);
	}
}

static void items_guards(json_t *items, const json_t *r)
{
	const json_t *g;
	char because[ITEM_LEN], t[32];
	double ms;
	size_t i;

	json_array_foreach(ru_get(r, "safety.guards"), i, g) {
		if (!ru_true(g, "tripped"))
			continue;
		if (!ru_num(g, "tripped_ms", &ms))
			ms = NAN;
		fmt(because, sizeof(because), "guard %zu (%s) tripped at %s: %s", i,
		    ru_str(g, "description") ?: "no description",
		    isnan(ms) ? "an unrecorded time" : rc_format_ms(ms, t, sizeof(t)),
		    ru_str(g, "why") ?: "no reason recorded");
		add_item(items, isnan(ms) ? NULL : fault_at(r, ms),
			 "make the job ride out this fault above the guard's floor (a second "
			 "rail, failover), or narrow the fault",
			 because);
	}
	/* aborted by a guard the list does not show (an older or cut report) */
	if (!ru_num(r, "safety.aborted_by", &ms))
		return;
	if (ms >= 0 && ms < (double)json_array_size(ru_get(r, "safety.guards")) &&
	    ru_true(json_array_get(ru_get(r, "safety.guards"), (size_t)ms), "tripped"))
		return;
	fmt(because, sizeof(because), "the drill was aborted by guard %s",
	    fmt_count(ms, t, sizeof(t)));
	add_item(items, NULL,
		 "make the job ride out this fault above the guard's floor (a second rail, "
		 "failover), or narrow the fault",
		 because);
}

/* What to fix to get evidence: a stopped run, no baseline, missing summaries, silent agents. */
static void items_evidence(json_t *items, const json_t *r)
{
	const json_t *n, *s;
	const char *why = NULL;
	char item[ITEM_LEN], because[ITEM_LEN], a[32], b[64];
	double v, from, to;
	size_t i, before = json_array_size(items);
	bool inconclusive = ru_streq(ru_str(r, "verdict"), "inconclusive");

	if (reason_starting(r, "stopped by the operator", &why))
		add_item(items, NULL, "run the drill again to its end", why);
	if (json_is_object(ru_get(r, "workload.baseline")) &&
	    !(ru_num(r, "workload.baseline.throughput_mbps", &v) && v > 0)) {
		const json_t *w = ru_get(r, "workload.baseline.window_ms");
		char win[80] = "";

		if (json_is_number(json_array_get(w, 0)) && json_is_number(json_array_get(w, 1))) {
			from = json_number_value(json_array_get(w, 0));
			to = json_number_value(json_array_get(w, 1));
			fmt(win, sizeof(win), " in %s", rc_format_window(from, to, b, sizeof(b)));
		}
		if (!ru_num(r, "workload.baseline.samples", &v))
			v = 0;
		fmt(because, sizeof(because), "no baseline throughput: %s samples%s",
		    fmt_count(v, a, sizeof(a)), win);
		add_item(items, NULL,
			 "get a baseline: make the workload move data during the warm-up and "
			 "baseline window (check it runs and its rails are up)",
			 because);
	}
	if (!json_is_object(ru_get(r, "workload.integrity")) &&
	    json_is_object(ru_get(r, "workload")) &&
	    (json_is_number(ru_get(r, "expect.integrity.lost")) ||
	     json_is_number(ru_get(r, "expect.integrity.corrupted"))))
		add_item(items, NULL,
			 "make sure the workload's client and server summaries reach the "
			 "coordinator (the workload must end cleanly)",
			 "integrity unknown: the client or server summary is missing");
	json_array_foreach(ru_get(r, "environment.nodes"), i, n) {
		const json_t *rs;
		size_t k;

		if (!json_is_object(n) || ru_get(n, "kernel") || ru_get(n, "devices") ||
		    !inconclusive)
			continue;
		why = NULL;
		json_array_foreach(ru_get(r, "reasons"), k, rs) {
			const char *t = json_string_value(rs), *name = ru_str(n, "name");

			if (t && name && !strncmp(t, name, strlen(name)) &&
			    t[strlen(name)] == ':') {
				why = t;
				break;
			}
		}
		fmt(item, sizeof(item),
		    "make the agent on %s (%s) reachable, then run the drill again",
		    ru_str(n, "name") ?: "the node", ru_str(n, "agent") ?: "no address recorded");
		fmt(because, sizeof(because), "no inventory from %s: %s", ru_str(n, "name") ?: "it",
		    why ? why : "its agent did not answer");
		add_item(items, NULL, item, because);
	}
	if (ru_num(r, "safety.renewals.failed", &v) && v > 0) {
		if (!ru_num(r, "safety.renewals.sent", &from))
			from = NAN;
		fmt(because, sizeof(because), "%s of %s lease renewals failed",
		    fmt_count(v, a, sizeof(a)), fmt_count(from, b, sizeof(b)));
		add_item(items, NULL,
			 "check the control path between the coordinator and the agents: a fault "
			 "whose lease runs out is reverted early",
			 because);
	}
	/* nothing specific found: each reason is what to fix */
	if (!inconclusive || json_array_size(items) > before)
		return;
	json_array_foreach(ru_get(r, "reasons"), i, s) {
		if (json_is_string(s))
			add_item(items, NULL,
				 "fix what kept the drill from giving evidence, then run it again",
				 json_string_value(s));
	}
}

/* A short name for an anomaly: "workload error", "async IBV_EVENT_QP_FATAL", "agent warning". */
static void items_anomalies(json_t *items, const json_t *r)
{
	const json_t *a;
	char item[ITEM_LEN], because[ITEM_LEN], t[32], what[256];
	double ms;
	size_t i;

	json_array_foreach(ru_get(r, "anomalies"), i, a) {
		json_t *ev;
		const char *text, *kind;
		char *dump = NULL;

		if (!anomaly_matters(a))
			continue;
		ev = anomaly_event(a);
		kind = ru_str(ev, "kind");
		if (kind && ru_str(ev, "event"))
			fmt(what, sizeof(what), "%s %s", kind, ru_str(ev, "event"));
		else if (kind && ru_str(ev, "type"))
			fmt(what, sizeof(what), "%s %s", kind, ru_str(ev, "type"));
		else if (kind && ru_str(ev, "level"))
			fmt(what, sizeof(what), "%s %s", kind, ru_str(ev, "level"));
		else
			fmt(what, sizeof(what), "%s", kind ? kind : "unexpected event");
		fmt(item, sizeof(item), "investigate the %s on %s", what,
		    ru_str(a, "node") ?: "an unnamed node");
		text = ru_str(ev, "message") ?: ru_str(a, "what");
		if (!text && ru_get(a, "what"))
			text = dump = json_dumps(ru_get(a, "what"), JSON_COMPACT | JSON_ENCODE_ANY);
		if (!text)
			text = dump = json_dumps(a, JSON_COMPACT | JSON_ENCODE_ANY);
		if (ru_num(a, "t_ms", &ms) && ru_str(a, "why"))
			fmt(because, sizeof(because), "at %s: %s: %s",
			    rc_format_ms(ms, t, sizeof(t)), ru_str(a, "why"), text ? text : "?");
		else if (ru_num(a, "t_ms", &ms))
			fmt(because, sizeof(because), "at %s: %s", rc_format_ms(ms, t, sizeof(t)),
			    text ? text : "?");
		else
			fmt(because, sizeof(because), "%s", text ? text : "?");
		add_item(items, ru_num(a, "t_ms", &ms) ? fault_at(r, ms) : NULL, item, because);
		free(dump);
		json_decref(ev);
	}
}

/*
 * The kinds, in the order they are listed (what blocks everything else
 * first): revert by hand what cleanup could not verify; integrity (lost,
 * corrupted); tripped guards; per fault, in the report's order: not in
 * effect, detection late or missing, isolation late or missing, recovery late
 * or missing, a measure that could not be judged, a PFC storm no watchdog
 * saw; evidence (stopped run, no baseline, integrity unknown, silent agents,
 * failed lease renewals, else each reason of an inconclusive verdict); then
 * each anomaly that matters.
 */
/* Alert coverage rows not ok: the on-call would not have been told (in time). */
static void items_alerts(json_t *items, const json_t *report)
{
	const json_t *row;
	char because[384], b1[32], b2[32];
	const char *alert, *status, *resolve;
	double v, w;
	size_t i;

	json_array_foreach(ru_get(report, "alerts.coverage"), i, row) {
		if (json_is_true(ru_get(row, "ok")))
			continue;
		alert = ru_str(row, "alert") ?: "?";
		status = ru_str(row, "status") ?: "?";
		resolve = ru_str(row, "resolve") ?: "?";
		if (!strcmp(status, "missed")) {
			snprintf(because, sizeof(because),
				 "alert %s missed: no notification reached the coordinator within "
				 "%s of the injection, nor later",
				 alert,
				 ru_num(row, "fire_within_ms", &w) ? ru_fmt_ms(w, b1, 32) : "?");
			add_item(items, ru_str(row, "fault"),
				 "add or fix the alert rule (its expression, labels, and the route "
				 "to this receiver); check it with promtool test rules",
				 because);
		} else if (!strcmp(status, "late")) {
			snprintf(because, sizeof(because),
				 "alert %s notified %s after the injection > %s", alert,
				 ru_num(row, "fired_ms", &v) ? ru_fmt_ms(v, b1, 32) : "?",
				 ru_num(row, "fire_within_ms", &w) ? ru_fmt_ms(w, b2, 32) : "?");
			add_item(items, ru_str(row, "fault"),
				 "shorten the path to the on-call: the rule's for and window, the "
				 "scrape and evaluation intervals, Alertmanager's group_wait",
				 because);
		}
		if (!strcmp(resolve, "unresolved") || !strcmp(resolve, "late")) {
			snprintf(because, sizeof(because),
				 "alert %s %s after the revert (allowed %s)", alert,
				 !strcmp(resolve, "late") ? "resolved late" : "never resolved",
				 ru_num(row, "resolve_within_ms", &w) ? ru_fmt_ms(w, b1, 32) : "?");
			add_item(
			    items, ru_str(row, "fault"),
			    "make the alert resolve when the fault is gone (send_resolved: true, "
			    "the rule's window, Alertmanager's group_interval)",
			    because);
		}
	}
}

json_t *report_action_items(const json_t *report)
{
	json_t *items = json_array();
	const json_t *f;
	size_t i;

	if (!items || !json_is_object(report))
		return items;
	items_cleanup(items, report);
	items_integrity(items, report);
	items_guards(items, report);
	json_array_foreach(ru_get(report, "faults"), i, f) {
		const char *base = trial_base(f);
		const json_t *g;
		bool first = true;
		size_t k;

		if (!base) {
			items_fault(items, report, f);
			continue;
		}
		/* a repeated fault: all its trials at its first */
		for (k = 0; k < i && (g = json_array_get(ru_get(report, "faults"), k)); k++)
			first &= !ru_streq(trial_base(g), base);
		if (first)
			items_trials(items, report, base);
	}
	items_alerts(items, report);
	items_evidence(items, report);
	items_anomalies(items, report);
	return items;
}

json_t *report_action_items_of(const json_t *report)
{
	const json_t *items = ru_get(report, "action_items");

	if (json_is_array(items))
		return json_incref((json_t *)items);
	return report_action_items(report);
}
