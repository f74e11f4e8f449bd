// SPDX-License-Identifier: MIT
/* Which expected alerts fired and resolved in time for which fault, and which were noise. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "coordinator/coverage.h"

static bool cov_is(const json_t *e, const char *key, const char *want)
{
	const char *v = json_string_value(json_object_get(e, key));

	return v && !strcmp(v, want);
}

static double cov_t(const json_t *e)
{
	const json_t *t = json_object_get(e, "t_ms");

	return json_is_number(t) ? json_number_value(t) : NAN;
}

/* Whether alert a is expected of fault f (no faults: of every fault). */
static bool cov_applies(const struct sc_alert_expect *a, const struct ev_fault *f)
{
	unsigned int i;

	if (!a->nr_faults)
		return true;
	for (i = 0; f->decl && i < a->nr_faults; i++)
		if (!strcmp(a->faults[i], f->decl->name) || !strcmp(a->faults[i], f->decl->base))
			return true;
	return false;
}

static bool cov_expected(const struct sc_expect *x, const char *name)
{
	unsigned int i;

	for (i = 0; i < x->nr_alerts; i++)
		if (!strcmp(x->alerts[i].name, name))
			return true;
	return false;
}

static json_t *cov_num(double v)
{
	return isfinite(v) ? json_real(round(v * 10) / 10) : json_null();
}

/* One fault x one alert. */
static json_t *cov_row(const json_t *events, const struct sc_alert_expect *a,
		       const struct ev_fault *f, const char *fname, json_t *problems, bool *bad)
{
	double fired = NAN, resolved = NAN, t, from;
	const char *status, *resolve = "not_checked", *fp = NULL;
	const json_t *e;
	size_t i;
	bool ok;

	/* the first notification that it fires, at or after the injection */
	json_array_foreach(events, i, e) {
		if (!cov_is(e, "kind", "alert") || !cov_is(e, "alertname", a->name) ||
		    !cov_is(e, "status", "firing"))
			continue;
		t = cov_t(e);
		if (t >= f->injected_ms && !(t >= fired)) {
			fired = t;
			fp = json_string_value(json_object_get(e, "fingerprint"));
		}
	}
	if (isnan(fired))
		status = "missed";
	else if (fired - f->injected_ms <= (double)a->fire_within_ms)
		status = "fired";
	else
		status = "late";
	/* then the first resolved notification of the same alert (same series when known) */
	if (!isnan(fired)) {
		json_array_foreach(events, i, e) {
			const char *efp = json_string_value(json_object_get(e, "fingerprint"));

			if (!cov_is(e, "kind", "alert") || !cov_is(e, "alertname", a->name) ||
			    !cov_is(e, "status", "resolved") || (fp && efp && strcmp(fp, efp)))
				continue;
			t = cov_t(e);
			if (t >= fired && !(t >= resolved))
				resolved = t;
		}
	}
	from = f->reverted_ms >= 0 ? f->reverted_ms : f->injected_ms;
	if (a->resolve_within_ms && !isnan(fired)) {
		if (isnan(resolved))
			resolve = "unresolved";
		else if (resolved - from <= (double)a->resolve_within_ms)
			resolve = "resolved";
		else
			resolve = "late";
	} else if (!isnan(resolved)) {
		resolve = "resolved";
	}
	ok = !strcmp(status, "fired") && (!a->resolve_within_ms || !strcmp(resolve, "resolved"));
	if (!ok) {
		*bad = true;
		if (!strcmp(status, "missed"))
			json_array_append_new(
			    problems, json_sprintf("%s: alert %s missed: no notification within "
						   "%.0f s of the injection, nor later",
						   fname, a->name, a->fire_within_ms / 1000.0));
		else if (!strcmp(status, "late"))
			json_array_append_new(
			    problems,
			    json_sprintf("%s: alert %s late: notified %.1f s after the "
					 "injection > %.0f s",
					 fname, a->name, (fired - f->injected_ms) / 1000.0,
					 a->fire_within_ms / 1000.0));
		if (!strcmp(resolve, "unresolved"))
			json_array_append_new(
			    problems,
			    json_sprintf("%s: alert %s never resolved (no resolved "
					 "notification; within %.0f s of the revert wanted)",
					 fname, a->name, a->resolve_within_ms / 1000.0));
		else if (!strcmp(resolve, "late"))
			json_array_append_new(
			    problems, json_sprintf("%s: alert %s resolved %.1f s after the revert "
						   "> %.0f s",
						   fname, a->name, (resolved - from) / 1000.0,
						   a->resolve_within_ms / 1000.0));
	}
	return json_pack("{s:s,s:s,s:s,s:o,s:I,s:s,s:o,s:o,s:b}", "fault", fname, "alert", a->name,
			 "status", status, "fired_ms", cov_num(fired - f->injected_ms),
			 "fire_within_ms", (json_int_t)a->fire_within_ms, "resolve", resolve,
			 "resolved_ms", cov_num(resolved - from), "resolve_within_ms",
			 a->resolve_within_ms ? json_integer((json_int_t)a->resolve_within_ms)
					      : json_null(),
			 "ok", ok);
}

/* Firing notifications of alerts no one expected, one entry per alert name. */
static json_t *cov_unexpected(const json_t *events, const struct sc_expect *x)
{
	json_t *out = json_array(), *u = NULL;
	const json_t *e;
	const char *name;
	size_t i, j;

	json_array_foreach(events, i, e) {
		if (!cov_is(e, "kind", "alert") || !cov_is(e, "status", "firing"))
			continue;
		name = json_string_value(json_object_get(e, "alertname"));
		if (!name || cov_expected(x, name))
			continue;
		json_array_foreach(out, j, u)
			if (cov_is(u, "alert", name))
				break;
		if (u && j < json_array_size(out)) {
			json_object_set_new(
			    u, "notifications",
			    json_integer(json_integer_value(json_object_get(u, "notifications")) +
					 1));
			continue;
		}
		json_array_append_new(out,
				      json_pack("{s:s,s:o,s:i,s:O}", "alert", name, "first_ms",
						cov_num(cov_t(e)), "notifications", 1, "labels",
						json_object_get(e, "labels") ?: json_null()));
	}
	return out;
}

int cov_alerts(const json_t *events, const struct sc_expect *x, const struct ev_fault *faults,
	       unsigned int nr_faults, json_t **out, json_t *problems)
{
	json_t *rows = json_array();
	unsigned int i, k;
	bool bad = false;

	for (i = 0; i < nr_faults; i++) {
		const struct ev_fault *f = &faults[i];
		const char *fname = f->decl ? f->decl->name : "?";

		if (f->injected_ms < 0)
			continue; /* not injected: the verdict says so already */
		for (k = 0; k < x->nr_alerts; k++)
			if (cov_applies(&x->alerts[k], f))
				json_array_append_new(
				    rows, cov_row(events, &x->alerts[k], f, fname, problems, &bad));
	}
	*out = json_pack("{s:o,s:o}", "coverage", rows, "unexpected", cov_unexpected(events, x));
	return bad ? 1 : 0;
}
