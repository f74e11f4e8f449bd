// SPDX-License-Identifier: MIT
/*
 * junit.xml: the report JSON (docs/REPORT.md) as JUnit XML for CI (Jenkins,
 * GitLab): one testsuite for the scenario, one testcase per fault and
 * assertion (detection, isolation, recovery), then integrity, cleanup and one
 * per safety guard. A violated threshold is a <failure> saying measured
 * against allowed, a check that could not be judged an <error>, a check the
 * scenario did not ask for <skipped>. Every field may be missing or null; the
 * output depends on the report alone, so it is byte-for-byte reproducible.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reports/report.h"
#include "reports/report_util.h"

/* ---- XML text ----------------------------------------------------------- */

/*
 * One UTF-8 sequence at s: its length, and the code point in *cp, or 0 and
 * U+FFFD for a byte that does not start a valid, shortest-form sequence.
 */
static size_t utf8_next(const unsigned char *s, unsigned int *cp)
{
	unsigned int c = s[0], n, i, min;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if ((c & 0xe0) == 0xc0) {
		n = 2;
		c &= 0x1f;
		min = 0x80;
	} else if ((c & 0xf0) == 0xe0) {
		n = 3;
		c &= 0x0f;
		min = 0x800;
	} else if ((c & 0xf8) == 0xf0) {
		n = 4;
		c &= 0x07;
		min = 0x10000;
	} else {
		goto bad;
	}
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			goto bad;
		c = (c << 6) | (s[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		goto bad;
	*cp = c;
	return n;
bad:
	*cp = 0xfffd;
	return 0;
}

/* XML 1.0's Char production: what may appear in a document at all. */
static bool xml_char_ok(unsigned int cp)
{
	if (cp < 0x20)
		return cp == '\t' || cp == '\n' || cp == '\r';
	return cp != 0xfffe && cp != 0xffff;
}

/*
 * s escaped for an attribute value (attr) or element text. The five markup
 * characters become entities; in an attribute, tab and line breaks become
 * character references so a parser's normalisation keeps them; characters
 * XML 1.0 forbids (most C0 controls, U+FFFE, U+FFFF) and bytes that are not
 * UTF-8 become U+FFFD.
 */
static void xml_put(FILE *f, const char *s, bool attr)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	const char *e;
	unsigned int cp;
	size_t n;

	while (*p) {
		n = utf8_next(p, &cp);
		if (!n || !xml_char_ok(cp)) {
			fputs("\xef\xbf\xbd", f);
			p += n ? n : 1;
			continue;
		}
		e = ru_entity(cp, "&apos;");
		if (e)
			fputs(e, f);
		else if (cp == '\r')
			fputs("&#13;", f);
		else if (cp == '\n' && attr)
			fputs("&#10;", f);
		else if (cp == '\t' && attr)
			fputs("&#9;", f);
		else
			fwrite(p, 1, n, f);
		p += n;
	}
}

static void xml_attr(FILE *f, const char *name, const char *value)
{
	fprintf(f, " %s=\"", name);
	xml_put(f, value, true);
	fputc('"', f);
}

/* ---- formatting --------------------------------------------------------- */

/* A JSON scalar as text: integers without a point, reals with up to 15 digits. */
static const char *fmt_scalar(const json_t *v, char *buf, size_t len)
{
	if (json_is_string(v))
		return json_string_value(v);
	if (json_is_integer(v))
		snprintf(buf, len, "%lld", (long long)json_integer_value(v));
	else if (json_is_real(v))
		snprintf(buf, len, "%.15g", json_real_value(v));
	else if (json_is_boolean(v))
		snprintf(buf, len, "%s", json_is_true(v) ? "true" : "false");
	else
		return NULL;
	return buf;
}

/* A growing string for messages and details. */
struct sbuf {
	char *s;
	size_t len, cap;
	bool oom;
};

__attribute__((format(printf, 2, 3))) static void sb_printf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	size_t need;
	int n;
	char *p;

	if (b->oom)
		return;
	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->oom = true;
		return;
	}
	need = b->len + (size_t)n + 1;
	if (need > b->cap) {
		size_t cap = b->cap ? b->cap : 128;

		while (cap < need)
			cap *= 2;
		p = realloc(b->s, cap);
		if (!p) {
			b->oom = true;
			return;
		}
		b->s = p;
		b->cap = cap;
	}
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

/* ---- test cases --------------------------------------------------------- */

/*
 * Cases are collected first (the suite's counts come before them), each as
 * a JSON object: name, classname, time (seconds, optional), result ("pass",
 * "failure", "error", "skipped"), message, type, text (the element body) and
 * out (the case's <system-out>).
 */
static int add_case(json_t *cases, const char *classname, const char *name, double time_s,
		    const char *result, const char *type, const struct sbuf *msg,
		    const struct sbuf *text, const struct sbuf *out)
{
	json_t *c = json_object();

	/* _nocheck: a report built in memory may hold bytes that are not UTF-8; xml_put mends them
	 */
	if (!c || (msg && msg->oom) || (text && text->oom) || (out && out->oom)) {
		json_decref(c);
		return -ENOMEM;
	}
	json_object_set_new(c, "classname", json_string_nocheck(classname));
	json_object_set_new(c, "name", json_string_nocheck(name));
	if (time_s >= 0)
		json_object_set_new(c, "time", json_real(time_s));
	json_object_set_new(c, "result", json_string_nocheck(result));
	if (type)
		json_object_set_new(c, "type", json_string_nocheck(type));
	if (msg && msg->s)
		json_object_set_new(c, "message", json_string_nocheck(msg->s));
	if (text && text->s)
		json_object_set_new(c, "text", json_string_nocheck(text->s));
	if (out && out->s)
		json_object_set_new(c, "out", json_string_nocheck(out->s));
	return json_array_append_new(cases, c) ? -ENOMEM : 0;
}

/* add_case() with the name in an sbuf, then frees the four buffers, whatever happened. */
static int add_case_free(json_t *cases, const char *classname, double time_s, const char *result,
			 const char *type, struct sbuf *name, struct sbuf *msg, struct sbuf *text,
			 struct sbuf *out)
{
	int ret = name->oom
		      ? -ENOMEM
		      : add_case(cases, classname, name->s, time_s, result, type, msg, text, out);

	free(name->s);
	free(msg->s);
	free(text->s);
	free(out->s);
	return ret;
}

/* "node-b rail 0 netdev rail0 device rxe_rail0" */
static void target_text(struct sbuf *b, const json_t *t)
{
	double rail;

	sb_printf(b, "%s", ru_str(t, "node") ?: "?");
	if (ru_str(t, "workload"))
		sb_printf(b, " workload %s", ru_str(t, "workload"));
	if (ru_num(t, "rail", &rail))
		sb_printf(b, " rail %.0f", rail);
	if (ru_str(t, "netdev"))
		sb_printf(b, " netdev %s", ru_str(t, "netdev"));
	if (ru_str(t, "device"))
		sb_printf(b, " device %s", ru_str(t, "device"));
}

/* What a failure's body says about the fault, so a CI page stands on its own. */
static void fault_context(struct sbuf *b, const json_t *ft)
{
	double ms;

	sb_printf(b, "fault %s: %s on ", ru_str(ft, "id") ?: "?", ru_str(ft, "injector") ?: "?");
	target_text(b, ru_get(ft, "target"));
	sb_printf(b, "\n");
	if (ru_num(ft, "injected_ms", &ms)) {
		sb_printf(b, "injected at %.3f ms", ms);
		if (ru_str(ft, "injected_at"))
			sb_printf(b, " (%s)", ru_str(ft, "injected_at"));
		sb_printf(b, "\n");
	}
	if (ru_num(ft, "reverted_ms", &ms)) {
		sb_printf(b, "reverted at %.3f ms", ms);
		if (ru_str(ft, "reverted_at"))
			sb_printf(b, " (%s)", ru_str(ft, "reverted_at"));
		sb_printf(b, "\n");
	}
}

/* "(signals: workload_error, port_event)" from expect.detection.signals. */
static void signals_text(struct sbuf *b, const json_t *report)
{
	const json_t *sigs = ru_get(report, "expect.detection.signals"), *s;
	size_t i;

	if (!json_array_size(sigs))
		return;
	sb_printf(b, " (signals: ");
	json_array_foreach(sigs, i, s)
		sb_printf(b, "%s%s", i ? ", " : "", json_string_value(s) ?: "?");
	sb_printf(b, ")");
}

/*
 * The statistic a phase's threshold holds for: "max" (every trial on its
 * own, the default) or "p50"/"p90" over a repeated fault's trials.
 */
static const char *phase_stat(const json_t *report, const char *what)
{
	return ru_str(ru_get(ru_get(report, "expect"), what), "stat") ?: "max";
}

struct case_ctx {
	const json_t *report;
	const json_t *fault;
	const char *classname;
	const char *base;  /* the declared fault: id, or "fault" for one trial of many */
	const char *what;  /* "detection", "isolation", "recovery" */
	double trial;	   /* 1-based, 0 when the fault is not repeated */
	bool inconclusive; /* the report's verdict is inconclusive */
};

/* "812 ms <= 5000 ms", "4200 ms > 1000 ms", "nothing measured" */
static void measured_text(struct sbuf *b, const json_t *m)
{
	char b1[32], b2[32];
	double ms, thr;

	if (!ru_num(m, "ms", &ms)) {
		sb_printf(b, "nothing measured");
		return;
	}
	if (!ru_num(m, "threshold_ms", &thr))
		sb_printf(b, "%s", ru_fmt_ms(ms, b1, sizeof(b1)));
	else
		sb_printf(b, "%s %s %s", ru_fmt_ms(ms, b1, sizeof(b1)), ms <= thr ? "<=" : ">",
			  ru_fmt_ms(thr, b2, sizeof(b2)));
}

/*
 * One measurement of one fault or trial (detection, isolation or recovery)
 * as a test case: the same judgement as the verdict's (coordinator/evaluate.c).
 */
static int measure_case(json_t *cases, const struct case_ctx *c)
{
	const json_t *ft = c->fault, *m = ru_get(ft, c->what);
	struct sbuf name = {0}, msg = {0}, text = {0}, out = {0};
	const char *result, *type = NULL, *note = ru_str(m, "note"), *sig = ru_str(m, "signal");
	const char *stat = phase_stat(c->report, c->what);
	double ms = 0, thr = 0, time_s = -1, rail;
	bool seen, have_thr;
	char b1[32], b2[32];

	if (c->trial > 0)
		sb_printf(&name, "%s %s (trial %.0f)", c->base, c->what, c->trial);
	else
		sb_printf(&name, "%s %s", c->base, c->what);
	seen = ru_num(m, "ms", &ms);
	have_thr = ru_num(m, "threshold_ms", &thr);
	if (seen)
		time_s = ms / 1000.0;

	if (!json_is_object(m)) {
		/* the scenario did not ask for it (isolation without expect.isolation) */
		result = "skipped";
		sb_printf(&msg, "%s not checked: %s", c->what,
			  !strcmp(c->what, "isolation") ? "the scenario sets no expect.isolation"
							: "not recorded");
	} else if (!ru_num(ft, "injected_ms", &(double){0}) && ru_get(ft, "injected_ms")) {
		result = "error";
		type = "not_injected";
		sb_printf(&msg, "%s could not be judged: the fault was not injected", c->what);
		if (ru_str(ft, "error") && *ru_str(ft, "error"))
			sb_printf(&msg, ": %s", ru_str(ft, "error"));
	} else if (json_is_true(ru_get(m, "ok"))) {
		result = "pass";
		sb_printf(&out, "%s ", c->what);
		measured_text(&out, m);
		if (!have_thr)
			sb_printf(&out, " (no threshold)");
		if (sig)
			sb_printf(&out, " (signal: %s)", sig);
		if (note)
			sb_printf(&out, ": %s", note);
		sb_printf(&out, "\n");
	} else if (!have_thr) {
		result = "skipped";
		sb_printf(&msg, "%s not checked: %s", c->what,
			  note ? note : "no threshold was set");
	} else if (c->trial > 0 && strcmp(stat, "max")) {
		/* the threshold holds for a statistic over the trials, judged in its own case */
		result = "skipped";
		sb_printf(&msg,
			  "%s of one trial is not judged alone: the threshold holds for the %s "
			  "over the trials (case \"%s %s %s\"); this trial: ",
			  c->what, stat, c->base, c->what, stat);
		measured_text(&msg, m);
		if (note)
			sb_printf(&msg, " (%s)", note);
	} else if (json_is_true(ru_get(m, "inconclusive")) || (!seen && c->inconclusive)) {
		/* nothing was measured, so nothing was violated either */
		result = "error";
		type = "inconclusive";
		sb_printf(&msg, "%s could not be judged: %s", c->what,
			  note ? note : "nothing was measured");
	} else if (seen) {
		result = "failure";
		type = "threshold";
		sb_printf(&msg, "%s %s > %s", c->what, ru_fmt_ms(ms, b1, sizeof(b1)),
			  ru_fmt_ms(thr, b2, sizeof(b2)));
		if (sig)
			sb_printf(&msg, " (signal: %s)", sig);
	} else {
		result = "failure";
		type = "not_seen";
		sb_printf(&msg, "%s not seen within %s", c->what, ru_fmt_ms(thr, b2, sizeof(b2)));
		if (!strcmp(c->what, "detection"))
			signals_text(&msg, c->report);
		else if (!strcmp(c->what, "isolation") &&
			 ru_num(ru_get(ft, "target"), "rail", &rail))
			sb_printf(&msg, " (no rail_down or failover of rail %.0f)", rail);
		else if (!strcmp(c->what, "isolation"))
			sb_printf(&msg, " (the fault is not on a workload rail)");
		else if (note && strcmp(note, "not seen"))
			sb_printf(&msg, " (%s)", note);
	}

	if (strcmp(result, "pass") && strcmp(result, "skipped")) {
		fault_context(&text, ft);
		if (seen)
			sb_printf(&text, "measured: %.3f ms%s%s\n", ms, sig ? ", signal " : "",
				  sig ? sig : "");
		else
			sb_printf(&text, "measured: nothing\n");
		if (have_thr)
			sb_printf(&text, "allowed: %s\n", ru_fmt_ms(thr, b2, sizeof(b2)));
		if (note)
			sb_printf(&text, "note: %s\n", note);
	}
	return add_case_free(cases, c->classname, time_s, result, type, &name, &msg, &text, &out);
}

/*
 * The failback of one fault or trial: judged when expect.failback bounds it,
 * else skipped with the figure, as isolation is when nothing asks for it (a fault
 * that was not injected too: an error only where a bound asked for the figure).
 */
static int failback_case(json_t *cases, const struct case_ctx *c)
{
	const json_t *ft = c->fault, *fb = ru_get(ft, "failback");
	struct sbuf name = {0}, msg = {0}, text = {0}, out = {0};
	const char *result, *type = NULL, *note = ru_str(fb, "note");
	double outage = 0, thr = 0, time_s = -1;
	bool seen, bounded = ru_failback_bounded(fb);
	char b1[32], b2[32], why[256];

	if (c->trial > 0)
		sb_printf(&name, "%s failback (trial %.0f)", c->base, c->trial);
	else
		sb_printf(&name, "%s failback", c->base);
	seen = ru_num(fb, "outage_ms", &outage);
	ru_num(fb, "threshold_ms", &thr);
	if (seen)
		time_s = outage / 1000.0;
	ru_failback_why(fb, why, sizeof(why));

	if (!json_is_object(fb)) {
		result = "skipped";
		sb_printf(&msg, "failback not checked: not recorded");
	} else if (bounded && !ru_num(ft, "injected_ms", &(double){0}) &&
		   ru_get(ft, "injected_ms")) {
		result = "error";
		type = "not_injected";
		sb_printf(&msg, "failback could not be judged: the fault was not injected");
	} else if (!bounded) {
		result = "skipped";
		sb_printf(&msg, "failback not checked: the scenario sets no expect.failback; ");
		if (seen)
			sb_printf(&msg, "outage %s after the revert%s%s%s",
				  ru_fmt_ms(outage, b1, sizeof(b1)), why[0] ? " (" : "", why,
				  why[0] ? ")" : "");
		else
			sb_printf(&msg, "%s", why[0] ? why : "not measured");
	} else if (json_is_true(ru_get(fb, "ok"))) {
		result = "pass";
		sb_printf(&out, "failback outage %s <= %s (%s)\n",
			  ru_fmt_ms(outage, b1, sizeof(b1)), ru_fmt_ms(thr, b2, sizeof(b2)), why);
	} else if (json_is_true(ru_get(fb, "inconclusive")) || !seen) {
		result = "error";
		type = "inconclusive";
		sb_printf(&msg, "failback could not be judged: %s", note ? note : "not measured");
	} else {
		result = "failure";
		type = "threshold";
		sb_printf(&msg, "failback outage %s > %s (%s)", ru_fmt_ms(outage, b1, sizeof(b1)),
			  ru_fmt_ms(thr, b2, sizeof(b2)), why);
	}
	if (strcmp(result, "pass") && strcmp(result, "skipped")) {
		fault_context(&text, ft);
		if (seen)
			sb_printf(&text, "measured: outage %.3f ms after the revert\n", outage);
		else
			sb_printf(&text, "measured: nothing\n");
		if (bounded)
			sb_printf(&text, "allowed: %s\n", ru_fmt_ms(thr, b2, sizeof(b2)));
		if (why[0])
			sb_printf(&text, "note: %s\n", why);
	}
	return add_case_free(cases, c->classname, time_s, result, type, &name, &msg, &text, &out);
}

/*
 * detection, isolation, recovery and failback of every fault. The trials of a repeated
 * fault ("id": "base#k", "fault": "base", "trial": k) share their base's
 * classname and are named "<base> <phase> (trial k)".
 */
static int fault_cases(json_t *cases, const json_t *report, const char *scenario)
{
	static const char *const whats[] = {"detection", "isolation", "recovery"};
	const char *v = ru_str(report, "verdict");
	const json_t *ft;
	struct sbuf cls = {0};
	size_t i, k;
	int ret = 0;

	json_array_foreach(ru_get(report, "faults"), i, ft) {
		const char *base = ru_str(ft, "id") ?: "?";
		double trial = 0;

		if (ru_str(ft, "fault") && ru_num(ft, "trial", &trial) && trial > 0)
			base = ru_str(ft, "fault");
		else
			trial = 0;
		cls.len = 0;
		sb_printf(&cls, "rdmachaos.%s.%s", scenario, base);
		if (cls.oom)
			return -ENOMEM;
		for (k = 0; k < 3 && !ret; k++) {
			struct case_ctx c = {
			    .report = report,
			    .fault = ft,
			    .classname = cls.s,
			    .base = base,
			    .what = whats[k],
			    .trial = trial,
			    .inconclusive = v && !strcmp(v, "inconclusive"),
			};

			ret = measure_case(cases, &c);
			if (!ret && k == 2)
				ret = failback_case(cases, &c);
		}
		if (ret)
			break;
	}
	free(cls.s);
	return ret;
}

/* "p50 812 ms, p90 900 ms, max 1.2 s over 5 trials (5 seen)" */
static void distribution_text(struct sbuf *b, const json_t *st)
{
	static const char *const keys[] = {"p50", "p90", "max"};
	char b1[32];
	double v, n, seen;
	size_t k;

	for (k = 0; k < 3; k++) {
		sb_printf(b, "%s%s ", k ? ", " : "", keys[k]);
		if (ru_num(st, keys[k], &v))
			sb_printf(b, "%s", ru_fmt_ms(v, b1, sizeof(b1)));
		else
			sb_printf(b, "not seen");
	}
	if (ru_num(st, "judged", &n))
		sb_printf(b, " over %.0f judged trials", n);
	if (ru_num(st, "seen", &seen))
		sb_printf(b, " (%.0f seen)", seen);
}

/*
 * A threshold stated on p50 or p90 of a repeated fault's trials is judged
 * once, over the trials (report.trials[]), in a case "<base> <phase> <stat>".
 * With max, the default, each trial is judged on its own and no such case is
 * written.
 */
static int stat_cases(json_t *cases, const json_t *report, const char *scenario)
{
	static const char *const whats[] = {"detection", "isolation", "recovery"};
	const json_t *t, *st;
	size_t i, k;
	int ret = 0;

	json_array_foreach(ru_get(report, "trials"), i, t) {
		const char *base = ru_str(t, "fault");

		if (!base)
			continue;
		for (k = 0; k < 3 && !ret; k++) {
			struct sbuf name = {0}, cls = {0}, msg = {0}, text = {0}, out = {0};
			const char *stat, *result, *type = NULL;
			double v = 0, thr = 0, n = 0, seen = 0, time_s = -1;
			char b1[32], b2[32];

			if (!ru_get(t, whats[k]))
				continue; /* a phase the scenario does not check */
			st = ru_get(t, whats[k]);
			stat = ru_str(st, "stat") ?: phase_stat(report, whats[k]);
			if (!strcmp(stat, "max"))
				continue;
			sb_printf(&name, "%s %s %s", base, whats[k], stat);
			sb_printf(&cls, "rdmachaos.%s.%s", scenario, base);
			ru_num(st, "threshold_ms", &thr);
			ru_num(st, "judged", &n);
			ru_num(st, "seen", &seen);
			if (!json_is_object(st)) {
				result = "error";
				type = "inconclusive";
				sb_printf(&msg, "%s %s could not be judged: no trial was measured",
					  whats[k], stat);
			} else if (json_is_true(ru_get(st, "ok"))) {
				result = "pass";
				if (ru_num(st, "value", &v))
					time_s = v / 1000.0;
				sb_printf(&out, "%s %s %s <= %s: ", whats[k], stat,
					  ru_fmt_ms(v, b1, sizeof(b1)),
					  ru_fmt_ms(thr, b2, sizeof(b2)));
				distribution_text(&out, st);
				sb_printf(&out, "\n");
			} else if (ru_num(st, "value", &v)) {
				result = "failure";
				type = "threshold";
				time_s = v / 1000.0;
				sb_printf(&msg, "%s %s over %.0f trials %s > %s", whats[k], stat, n,
					  ru_fmt_ms(v, b1, sizeof(b1)),
					  ru_fmt_ms(thr, b2, sizeof(b2)));
			} else {
				result = "failure";
				type = "not_seen";
				sb_printf(
				    &msg,
				    "%s %s over %.0f trials: not seen within %s in %.0f of them",
				    whats[k], stat, n, ru_fmt_ms(thr, b2, sizeof(b2)), n - seen);
			}
			if (strcmp(result, "pass")) {
				sb_printf(&text, "fault %s: ", base);
				if (json_is_object(st))
					distribution_text(&text, st);
				else
					sb_printf(&text, "no trial could be judged");
				sb_printf(&text, "\nallowed: %s %s\n", stat,
					  ru_fmt_ms(thr, b2, sizeof(b2)));
			}
			ret = name.oom || cls.oom ? -ENOMEM
						  : add_case(cases, cls.s, name.s, time_s, result,
							     type, &msg, &text, &out);
			free(name.s);
			free(cls.s);
			free(msg.s);
			free(text.s);
			free(out.s);
		}
		if (ret)
			break;
	}
	return ret;
}

static int integrity_case(json_t *cases, const json_t *report, const char *cls)
{
	const json_t *in = ru_get(report, "workload.integrity");
	const json_t *lim = ru_get(report, "expect.integrity");
	struct sbuf msg = {0}, text = {0}, out = {0};
	const char *result = "pass", *type = NULL;
	static const char *const keys[] = {"lost", "corrupted"};
	double got, max;
	bool bounded = false;
	size_t k;
	int ret;

	for (k = 0; k < 2; k++)
		bounded |= ru_num(lim, keys[k], &max);
	if (json_is_object(in)) {
		static const char *const all[] = {"sent", "received", "lost", "duplicated",
						  "corrupted"};
		double v;

		sb_printf(&text, "messages:");
		for (k = 0; k < 5; k++)
			if (ru_num(in, all[k], &v))
				sb_printf(&text, "%s %s %.0f",
					  text.s && text.s[text.len - 1] == ':' ? "" : ",", all[k],
					  v);
		sb_printf(&text, "\n");
	}
	if (!bounded) {
		result = "skipped";
		sb_printf(&msg, "integrity not checked: the scenario sets no bound on lost or "
				"corrupted messages");
	} else if (!json_is_object(in)) {
		result = "error";
		type = "inconclusive";
		sb_printf(&msg, "integrity unknown: the client or server summary is missing");
	} else {
		for (k = 0; k < 2; k++) {
			if (!ru_num(lim, keys[k], &max))
				continue;
			if (!ru_num(in, keys[k], &got)) {
				result = "error";
				type = "inconclusive";
				sb_printf(&msg, "%s%s not counted", msg.len ? "; " : "", keys[k]);
			} else if (got > max) {
				if (strcmp(result, "error")) {
					result = "failure";
					type = "threshold";
				}
				sb_printf(&msg, "%s%s %.0f > %.0f allowed", msg.len ? "; " : "",
					  keys[k], got, max);
			}
		}
		if (!strcmp(result, "pass")) {
			sb_printf(&out, "integrity held:");
			for (k = 0; k < 2; k++)
				if (ru_num(lim, keys[k], &max) && ru_num(in, keys[k], &got))
					sb_printf(&out, "%s %s %.0f <= %.0f",
						  out.s && out.s[out.len - 1] == ':' ? "" : ",",
						  keys[k], got, max);
			sb_printf(&out, "\n%s", text.s ? text.s : "");
		} else {
			struct sbuf m2 = {0};

			sb_printf(&m2, "integrity: %s", msg.s ? msg.s : "");
			free(msg.s);
			msg = m2;
		}
	}
	ret = add_case(cases, cls, "integrity", -1, result, type, &msg,
		       strcmp(result, "pass") && strcmp(result, "skipped") ? &text : NULL, &out);
	free(msg.s);
	free(text.s);
	free(out.s);
	return ret;
}

/*
 * A job as the workload (docs/SCENARIOS.md, "Jobs"): a case for its outcome and one per node for
 * its RDMA path; a path that could not be checked is an error (no proof), not a pass.
 */
static int job_cases(json_t *cases, const json_t *report, const char *cls)
{
	const json_t *job = ru_get(report, "job"), *p;
	struct sbuf name, msg, text, out;
	const char *v;
	size_t i;
	bool ok;
	int ret;

	if (!json_is_object(job))
		return 0;
	ok = json_is_true(ru_get(job, "outcome.ok"));
	memset(&msg, 0, sizeof(msg));
	memset(&out, 0, sizeof(out));
	sb_printf(ok ? &out : &msg, "%s", ru_str(job, "outcome.sentence") ?: "?");
	ret = add_case(cases, cls, "job outcome", -1, ok ? "pass" : "failure",
		       ok ? NULL : "job_outcome", ok ? NULL : &msg, NULL, ok ? &out : NULL);
	free(msg.s);
	free(out.s);
	json_array_foreach(ru_get(job, "rdma_path"), i, p) {
		if (ret)
			break;
		memset(&name, 0, sizeof(name));
		memset(&msg, 0, sizeof(msg));
		memset(&text, 0, sizeof(text));
		memset(&out, 0, sizeof(out));
		v = ru_str(p, "verdict") ?: "unknown";
		sb_printf(&name, "rdma path %s", ru_str(p, "node") ?: "?");
		sb_printf(strcmp(v, "verified") ? &msg : &out, "%s", ru_str(p, "sentence") ?: "?");
		ret = add_case_free(cases, cls, -1,
				    !strcmp(v, "verified") ? "pass"
				    : !strcmp(v, "fail")   ? "failure"
							   : "error",
				    !strcmp(v, "verified") ? NULL : "rdma_path", &name, &msg, &text,
				    &out);
	}
	return ret;
}

static int cleanup_case(json_t *cases, const json_t *report, const char *cls)
{
	const json_t *c = ru_get(report, "cleanup"), *acts = ru_get(c, "actions"), *a;
	struct sbuf msg = {0}, text = {0};
	const char *result = "pass", *type = NULL;
	size_t i, bad = 0;
	bool pass;
	int ret;

	json_array_foreach(acts, i, a) {
		const json_t *act = ru_get(a, "action");
		char *s = !act || json_is_string(act)
			      ? NULL
			      : json_dumps(act, JSON_COMPACT | JSON_ENCODE_ANY);

		if (!json_is_true(ru_get(a, "verified")))
			bad++;
		sb_printf(&text, "%s %s%s%s: %s\n",
			  json_is_true(ru_get(a, "verified")) ? "verified" : "NOT verified",
			  ru_str(a, "node") ?: "?", ru_str(a, "fault_id") ? " " : "",
			  ru_str(a, "fault_id") ?: "",
			  json_is_string(act) ? json_string_value(act)
			  : json_is_string(a) ? json_string_value(a)
					      : (s ?: "?"));
		free(s);
	}
	if (!json_is_object(c)) {
		result = "error";
		type = "missing";
		sb_printf(&msg, "no cleanup was recorded: check the nodes by hand");
	} else if (!json_is_true(ru_get(c, "verified"))) {
		result = "failure";
		type = "cleanup";
		sb_printf(&msg, "cleanup not verified: check the nodes by hand");
		if (json_array_size(acts))
			sb_printf(&msg, " (%zu of %zu actions not verified)", bad,
				  json_array_size(acts));
	}
	pass = !strcmp(result, "pass");
	ret = add_case(cases, cls, "cleanup", -1, result, type, &msg, pass ? NULL : &text,
		       pass ? &text : NULL);
	free(msg.s);
	free(text.s);
	return ret;
}

static int guard_cases(json_t *cases, const json_t *report, const char *cls)
{
	const json_t *s = ru_get(report, "safety"), *guards = ru_get(s, "guards"), *g;
	double aborted = -1, t;
	size_t i;
	int ret = 0;

	ru_num(s, "aborted_by", &aborted);
	json_array_foreach(guards, i, g) {
		struct sbuf name = {0}, msg = {0}, out = {0};
		const char *desc = ru_str(g, "description");
		bool tripped = json_is_true(ru_get(g, "tripped"));

		sb_printf(&name, "guard %zu %s", i, ru_str(g, "kind") ?: "unknown");
		if (tripped) {
			sb_printf(&msg, "guard %zu tripped", i);
			if (ru_num(g, "tripped_ms", &t))
				sb_printf(&msg, " at %.1f s", t / 1000.0);
			if (desc)
				sb_printf(&msg, " (%s)", desc);
			if (ru_str(g, "why"))
				sb_printf(&msg, ": %s", ru_str(g, "why"));
			if (aborted == (double)i)
				sb_printf(&msg, "; the drill was aborted");
		} else {
			sb_printf(&out, "held: %s\n", desc ? desc : "?");
		}
		ret = name.oom ? -ENOMEM
			       : add_case(cases, cls, name.s, -1, tripped ? "failure" : "pass",
					  tripped ? "guard" : NULL, &msg, NULL, &out);
		free(name.s);
		free(msg.s);
		free(out.s);
		if (ret)
			break;
	}
	return ret;
}

/* A time of an alert for a junit message: 0 when missing, as before there was ru_alert. */
static double alert_ms(double ms)
{
	return isnan(ms) ? 0 : ms;
}

/* One case per fault x expected alert (report.alerts.coverage): fired and resolved in time. */
static int alert_cases(json_t *cases, const json_t *report, const char *cls)
{
	const json_t *row;
	struct ru_alert a;
	size_t i;
	int ret = 0;

	json_array_foreach(ru_get(report, "alerts.coverage"), i, row) {
		struct sbuf name = {0}, msg = {0}, out = {0};
		const char *status, *resolve;

		ru_alert_of(row, &a);
		status = a.status ?: "?";
		resolve = a.resolve ?: "?";
		sb_printf(&name, "%s alert %s", a.fault ?: "?", a.alert ?: "?");
		if (!strcmp(status, "missed"))
			sb_printf(&msg, "alert missed: no notification within %.0f ms",
				  alert_ms(a.fire_within_ms));
		else if (!strcmp(status, "late"))
			sb_printf(&msg, "alert late: notified %.0f ms > %.0f ms",
				  alert_ms(a.fired_ms), alert_ms(a.fire_within_ms));
		else if (!a.ok)
			sb_printf(&msg, "alert %s: resolved %s (allowed %.0f ms after the revert)",
				  status, resolve, alert_ms(a.resolve_within_ms));
		sb_printf(&out, "%s %s, resolve %s\n", a.alert ?: "?", status, resolve);
		ret = name.oom ? -ENOMEM
			       : add_case(cases, cls, name.s, -1, a.ok ? "pass" : "failure",
					  a.ok ? NULL : "alert", &msg, NULL, &out);
		free(name.s);
		free(msg.s);
		free(out.s);
		if (ret)
			break;
	}
	return ret;
}

/* The followed job's requeues against max_requeues (an old report without it: reported only),
 * each requeue's time in system-out. */
static int add_requeue_case(json_t *cases, const char *cls, const json_t *job)
{
	struct sbuf name = {0}, msg = {0}, text = {0}, out = {0};
	const json_t *t;
	double n = 0, max = 0;
	bool limit = ru_num(job, "max_requeues", &max);
	bool ok;
	size_t i;

	ru_num(job, "requeues", &n);
	ok = !limit || n <= max;
	sb_printf(&name, "job %s requeue", ru_str(job, "name") ?: "?");
	if (!ok)
		sb_printf(&msg, "requeued %.0f time(s), over max_requeues %.0f", n, max);
	sb_printf(&out, "requeued %.0f time(s)", n);
	json_array_foreach(ru_get(job, "requeued_ms"), i, t)
		sb_printf(&out, "%s %+.0f ms", i ? "," : " at", json_number_value(t));
	sb_printf(&out, "\n");
	return add_case_free(cases, cls, -1, ok ? "pass" : "failure", ok ? NULL : "scheduler",
			     &name, &msg, &text, &out);
}

/*
 * The scheduler's view (report.scheduler): per fault a drain case and, when a resume was
 * required, a resume case; a case naming each node taken out of service without a fault; the
 * followed job's outcome and its requeues.
 */
static int sched_cases(json_t *cases, const json_t *report, const char *cls)
{
	const json_t *s = ru_get(report, "scheduler"), *row;
	double v, w;
	size_t i;
	int ret = 0;

	if (!json_is_object(s))
		return 0;
	json_array_foreach(ru_get(s, "faults"), i, row) {
		struct sbuf name = {0}, msg = {0}, text = {0}, out = {0};
		bool drained = ru_num(row, "drained_ms", &v);
		bool limit = ru_num(row, "drained_within_ms", &w);
		bool ok = drained ? !limit || v <= w : !limit;

		sb_printf(&name, "%s drain %s", ru_str(row, "fault") ?: "?",
			  ru_str(row, "node") ?: "?");
		if (!drained && limit)
			sb_printf(&msg, "never out of service (allowed %.0f ms after the inject)",
				  w);
		else if (!ok)
			sb_printf(&msg, "drained %.0f ms > %.0f ms after the inject", v, w);
		if (drained)
			sb_printf(&out, "%s after %.0f ms: %s\n", ru_str(row, "drain_state") ?: "?",
				  v, ru_str(row, "drain_reason") ?: "");
		ret = add_case_free(cases, cls, -1, ok ? "pass" : "failure",
				    ok ? NULL : "scheduler", &name, &msg, &text, &out);
		if (ret)
			return ret;
		if (!ru_num(row, "resumed_within_ms", &w))
			continue;
		name = msg = text = out = (struct sbuf){0}; /* add_case_free freed them */
		ok = ru_num(row, "resumed_ms", &v) && v <= w;
		sb_printf(&name, "%s resume %s", ru_str(row, "fault") ?: "?",
			  ru_str(row, "node") ?: "?");
		if (!ru_num(row, "resumed_ms", &v))
			sb_printf(&msg, "not back in service (allowed %.0f ms after the revert)",
				  w);
		else if (!ok)
			sb_printf(&msg, "back in service %.0f ms > %.0f ms after the revert", v, w);
		ret = add_case_free(cases, cls, -1, ok ? "pass" : "failure",
				    ok ? NULL : "scheduler", &name, &msg, &text, &out);
		if (ret)
			return ret;
	}
	json_array_foreach(ru_get(s, "wrongly_drained"), i, row) {
		struct sbuf name = {0}, msg = {0}, text = {0}, out = {0};

		sb_printf(&name, "precision %s", ru_str(row, "node") ?: "?");
		sb_printf(&msg, "taken out of service (%s) without a fault: %s",
			  ru_str(row, "state") ?: "?", ru_str(row, "reason") ?: "");
		ret =
		    add_case_free(cases, cls, -1, "failure", "scheduler", &name, &msg, &text, &out);
		if (ret)
			return ret;
	}
	row = ru_get(s, "job");
	if (json_is_object(row) && ru_str(row, "want")) {
		struct sbuf name = {0}, msg = {0}, text = {0}, out = {0};
		bool ok = ru_true(row, "ok");

		sb_printf(&name, "job %s outcome", ru_str(row, "name") ?: "?");
		if (!ok)
			sb_printf(&msg, "job %s: %s, requeued %.0f time(s); wanted %s",
				  ru_str(row, "job_id") ?: "never seen", ru_str(row, "state") ?: "",
				  ru_num(row, "requeues", &v) ? v : 0, ru_str(row, "want"));
		ret = add_case_free(cases, cls, -1, ok ? "pass" : "failure",
				    ok ? NULL : "scheduler", &name, &msg, &text, &out);
		if (ret)
			return ret;
		ret = add_requeue_case(cases, cls, row);
	}
	return ret;
}

/* ---- the document ------------------------------------------------------- */

/* Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm). */
static long days_from_civil(long y, unsigned int m, unsigned int d)
{
	long era;
	unsigned int yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = (unsigned int)(y - era * 400);
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (long)doe - 719468;
}

/* "2026-11-30T04:03:21.123Z" to seconds since the epoch; false if it is not that form. */
static bool parse_utc(const char *s, double *secs)
{
	int y, mo, d, h, mi, sec, n = 0;
	double frac = 0, scale = 0.1;

	if (!s || sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &sec, &n) != 6 ||
	    n != 19 || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60)
		return false;
	s += n;
	if (*s == '.') {
		for (s++; *s >= '0' && *s <= '9'; s++, scale /= 10)
			frac += (*s - '0') * scale;
	}
	if (strcmp(s, "Z"))
		return false;
	*secs = (double)days_from_civil(y, (unsigned int)mo, (unsigned int)d) * 86400.0 +
		h * 3600.0 + mi * 60.0 + sec + frac;
	return true;
}

static void property(FILE *f, const char *name, const json_t *v)
{
	const char *s;
	char buf[48];

	s = fmt_scalar(v, buf, sizeof(buf));
	if (!s)
		return;
	fputs("      <property", f);
	xml_attr(f, "name", name);
	xml_attr(f, "value", s);
	fputs("/>\n", f);
}

static void properties(FILE *f, const json_t *r, const json_t *rd)
{
	/* each named after its path in report.json; readiness is rd's category */
	static const char *const names[] = {"schema",	     "tool_version",	"scenario.name",
					    "scenario.file", "scenario.sha256", "scenario.owner",
					    "seed",	     "verdict",		"exit_code",
					    "readiness",     "started_at",	"finished_at"};
	size_t k;

	fputs("    <properties>\n", f);
	for (k = 0; k < sizeof(names) / sizeof(names[0]); k++)
		property(f, names[k],
			 strcmp(names[k], "readiness") ? ru_get(r, names[k])
						       : ru_get(rd, "category"));
	fputs("    </properties>\n", f);
}

/* "- rail0-down: 5 trials; detection p50 20 ms, p90 31 ms, max 40 ms over 5 judged trials" */
static void trials_out(FILE *f, const json_t *r)
{
	static const char *const whats[] = {"detection", "isolation", "recovery"};
	const json_t *t;
	struct sbuf b = {0};
	double n;
	size_t i, k;

	if (!json_array_size(ru_get(r, "trials")))
		return;
	sb_printf(&b, "trials:\n");
	json_array_foreach(ru_get(r, "trials"), i, t) {
		sb_printf(&b, "- %s", ru_str(t, "fault") ?: "?");
		if (ru_num(t, "count", &n))
			sb_printf(&b, ": %.0f trials", n);
		for (k = 0; k < 3; k++) {
			if (!ru_get(t, whats[k]))
				continue;
			sb_printf(&b, "; %s ", whats[k]);
			if (json_is_object(ru_get(t, whats[k])))
				distribution_text(&b, ru_get(t, whats[k]));
			else
				sb_printf(&b, "not judged");
		}
		sb_printf(&b, "\n");
	}
	if (!b.oom)
		xml_put(f, b.s, false);
	free(b.s);
}

/* The suite's <system-out>: the verdict, why, readiness and what to do next. */
static void suite_out(FILE *f, const json_t *r, const json_t *rd, const json_t *items)
{
	const json_t *reasons = ru_get(r, "reasons"), *an = ru_get(r, "anomalies"), *x;
	char b[48];
	size_t i;

	fputs("    <system-out>", f);
	fputs("verdict: ", f);
	xml_put(f, ru_str(r, "verdict") ?: "unknown", false);
	if (fmt_scalar(ru_get(r, "exit_code"), b, sizeof(b)))
		fprintf(f, " (exit code %s)", fmt_scalar(ru_get(r, "exit_code"), b, sizeof(b)));
	fputs("\n", f);
	if (json_is_object(rd)) {
		fputs("readiness: ", f);
		xml_put(f, ru_str(rd, "label") ?: ru_str(rd, "category") ?: "?", false);
		if (ru_str(rd, "rule")) {
			fputs(" (", f);
			xml_put(f, ru_str(rd, "rule"), false);
			fputs(")", f);
		}
		fputs("\n", f);
	}
	fputs("reasons:\n", f);
	if (!json_array_size(reasons))
		fputs("- none recorded\n", f);
	json_array_foreach(reasons, i, x) {
		fputs("- ", f);
		xml_put(f, json_string_value(x) ?: "?", false);
		fputs("\n", f);
	}
	if (json_array_size(items)) {
		fputs("action items:\n", f);
		json_array_foreach(items, i, x) {
			fputs("- ", f);
			if (ru_str(x, "fault")) {
				xml_put(f, ru_str(x, "fault"), false);
				fputs(": ", f);
			}
			xml_put(f, ru_str(x, "item") ?: "?", false);
			if (ru_str(x, "because")) {
				fputs(" (because: ", f);
				xml_put(f, ru_str(x, "because"), false);
				fputs(")", f);
			}
			fputs("\n", f);
		}
	}
	trials_out(f, r);
	if (json_array_size(an)) {
		fputs("anomalies:\n", f);
		json_array_foreach(an, i, x) {
			const json_t *what = ru_get(x, "what");
			char *s = json_is_string(what)
				      ? NULL
				      : json_dumps(what ? what : x, JSON_COMPACT | JSON_ENCODE_ANY);
			double t;

			if (ru_num(x, "t_ms", &t))
				fprintf(f, "- %.1f ms ", t);
			else
				fputs("- ", f);
			xml_put(f, ru_str(x, "node") ?: "?", false);
			fputs(": ", f);
			xml_put(f, json_is_string(what) ? json_string_value(what) : s, false);
			fputs("\n", f);
			free(s);
		}
	}
	fputs("</system-out>\n", f);
}

static void emit_case(FILE *f, const json_t *c)
{
	const char *result = ru_str(c, "result"), *text = ru_str(c, "text"),
		   *out = ru_str(c, "out");
	double t;

	fputs("    <testcase", f);
	xml_attr(f, "name", ru_str(c, "name"));
	xml_attr(f, "classname", ru_str(c, "classname"));
	if (ru_num(c, "time", &t))
		fprintf(f, " time=\"%.3f\"", t);
	if (!strcmp(result, "pass") && !out) {
		fputs("/>\n", f);
		return;
	}
	fputs(">\n", f);
	if (strcmp(result, "pass")) {
		fprintf(f, "      <%s", result);
		if (ru_str(c, "message"))
			xml_attr(f, "message", ru_str(c, "message"));
		if (ru_str(c, "type"))
			xml_attr(f, "type", ru_str(c, "type"));
		if (text) {
			fputs(">", f);
			xml_put(f, text, false);
			fprintf(f, "</%s>\n", result);
		} else {
			fputs("/>\n", f);
		}
	}
	if (out) {
		fputs("      <system-out>", f);
		xml_put(f, out, false);
		fputs("</system-out>\n", f);
	}
	fputs("    </testcase>\n", f);
}

static int build_cases(json_t *cases, const json_t *r, const char *scenario)
{
	struct sbuf cls = {0};
	int ret;

	ret = fault_cases(cases, r, scenario);
	if (!ret)
		ret = stat_cases(cases, r, scenario);
	sb_printf(&cls, "rdmachaos.%s.workload", scenario);
	if (!ret && !cls.oom)
		ret = integrity_case(cases, r, cls.s);
	cls.len = 0;
	sb_printf(&cls, "rdmachaos.%s.job", scenario);
	if (!ret && !cls.oom)
		ret = job_cases(cases, r, cls.s);
	cls.len = 0;
	sb_printf(&cls, "rdmachaos.%s.cleanup", scenario);
	if (!ret && !cls.oom)
		ret = cleanup_case(cases, r, cls.s);
	cls.len = 0;
	sb_printf(&cls, "rdmachaos.%s.safety", scenario);
	if (!ret && !cls.oom)
		ret = guard_cases(cases, r, cls.s);
	cls.len = 0;
	sb_printf(&cls, "rdmachaos.%s.alerts", scenario);
	if (!ret && !cls.oom)
		ret = alert_cases(cases, r, cls.s);
	cls.len = 0;
	sb_printf(&cls, "rdmachaos.%s.scheduler", scenario);
	if (!ret && !cls.oom)
		ret = sched_cases(cases, r, cls.s);
	if (!ret && cls.oom)
		ret = -ENOMEM;
	free(cls.s);
	return ret;
}

static int emit_junit(FILE *f, const void *arg)
{
	const json_t *r = arg, *c;
	const char *scenario = ru_str(r, "scenario.name");
	unsigned int counts[4] = {0}; /* failures, errors, skipped, tests */
	double t0, t1, total = 0, t;
	json_t *cases = json_array(), *rd = NULL, *items = NULL;
	size_t i;
	int ret;

	if (!cases)
		return -ENOMEM;
	rd = report_readiness_of(r);
	items = report_action_items_of(r);
	if (!scenario || !*scenario)
		scenario = "unnamed";
	ret = build_cases(cases, r, scenario);
	if (ret)
		goto out;
	json_array_foreach(cases, i, c) {
		const char *res = ru_str(c, "result");

		counts[0] += !strcmp(res, "failure");
		counts[1] += !strcmp(res, "error");
		counts[2] += !strcmp(res, "skipped");
		counts[3]++;
		if (ru_num(c, "time", &t))
			total += t;
	}
	/* the suite's time is the drill's, when both ends were recorded */
	if (parse_utc(ru_str(r, "started_at"), &t0) && parse_utc(ru_str(r, "finished_at"), &t1) &&
	    t1 >= t0)
		total = t1 - t0;

	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
	fprintf(f,
		"<testsuites name=\"rdmachaos\" tests=\"%u\" failures=\"%u\" errors=\"%u\" "
		"skipped=\"%u\" time=\"%.3f\">\n",
		counts[3], counts[0], counts[1], counts[2], total);
	fputs("  <testsuite", f);
	xml_attr(f, "name", scenario);
	fprintf(f, " tests=\"%u\" failures=\"%u\" errors=\"%u\" skipped=\"%u\" time=\"%.3f\"",
		counts[3], counts[0], counts[1], counts[2], total);
	if (parse_utc(ru_str(r, "started_at"), &t0))
		xml_attr(f, "timestamp", ru_str(r, "started_at"));
	if (ru_str(r, "scenario.file"))
		xml_attr(f, "file", ru_str(r, "scenario.file"));
	fputs(">\n", f);
	properties(f, r, rd);
	json_array_foreach(cases, i, c)
		emit_case(f, c);
	suite_out(f, r, rd, items);
	fputs("  </testsuite>\n</testsuites>\n", f);
	ret = ferror(f) ? -EIO : 0;
out:
	json_decref(cases);
	json_decref(rd);
	json_decref(items);
	return ret;
}

int report_write_junit(const char *path, const json_t *report)
{
	if (!json_is_object(report))
		return -EINVAL;
	return report_write_file(path, emit_junit, report);
}
