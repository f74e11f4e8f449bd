// SPDX-License-Identifier: MIT
/*
 * Measured times and the verdict, computed from a drill's aligned event
 * stream. Everything here is a pure function of the events and the scenario's
 * expectations, so a recorded stream always gives the same numbers. The rules
 * are written out for operators in docs/SCENARIOS.md ("How times are
 * measured"); keep the two in step.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/units.h"
#include "coordinator/evaluate.h"
#include "coordinator/schedule.h"

/* ---- event access ------------------------------------------------------ */

static const char *ev_str(const json_t *e, const char *key)
{
	return json_string_value(json_object_get(e, key));
}

static bool ev_is(const json_t *e, const char *key, const char *val)
{
	const char *s = ev_str(e, key);

	return s && !strcmp(s, val);
}

static bool ev_num(const json_t *e, const char *key, double *v)
{
	const json_t *j = json_object_get(e, key);

	if (!json_is_number(j))
		return false;
	*v = json_number_value(j);
	return true;
}

static bool ev_int_is(const json_t *e, const char *key, int want)
{
	double v;

	return ev_num(e, key, &v) && v == (double)want;
}

/* Events without a wl_id predate guard flows and belong to the drill's workload. */
static bool ev_of_workload(const json_t *e, const char *wl_id)
{
	const char *id = json_string_value(json_object_get(e, "wl_id"));

	return ev_is(e, "kind", "workload") &&
	       (id ? !strcmp(id, wl_id) : !strcmp(wl_id, EV_WL_DRILL));
}

/* Only the drill's own workload counts for detection, recovery and integrity. */
static bool ev_workload(const json_t *e, const char *type)
{
	return ev_of_workload(e, EV_WL_DRILL) && ev_is(e, "type", type);
}

static bool ev_client_interval(const json_t *e)
{
	return ev_workload(e, "interval") && ev_is(e, "role", "client");
}

/* ---- formatting -------------------------------------------------------- */

__attribute__((format(printf, 2, 3))) static void reason(json_t *reasons, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	json_array_append_new(reasons, json_string(buf));
}

/* ---- verdict names ----------------------------------------------------- */

const char *ev_verdict_name(enum ev_verdict v)
{
	switch (v) {
	case EV_PASS:
		return "pass";
	case EV_FAIL:
		return "fail";
	case EV_INCONCLUSIVE:
		return "inconclusive";
	case EV_CLEANUP_FAILED:
		return "cleanup_failed";
	}
	return "inconclusive";
}

int ev_verdict_exit_code(enum ev_verdict v)
{
	switch (v) {
	case EV_PASS:
		return 0;
	case EV_FAIL:
		return 1;
	case EV_INCONCLUSIVE:
		return 2;
	case EV_CLEANUP_FAILED:
		return 3;
	}
	return 2;
}

/* ---- baseline ---------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int ev_baseline(const json_t *events, double from_ms, double to_ms, struct ev_baseline *b)
{
	return ev_baseline_of(events, EV_WL_DRILL, from_ms, to_ms, b);
}

int ev_baseline_of(const json_t *events, const char *wl_id, double from_ms, double to_ms,
		   struct ev_baseline *b)
{
	double *lat = NULL, sum = 0, t, v;
	size_t i, nr_lat = 0;
	const json_t *e;

	memset(b, 0, sizeof(*b));
	b->from_ms = from_ms;
	b->to_ms = to_ms;
	if (!json_is_array(events))
		return -EINVAL;
	lat = calloc(json_array_size(events) + 1, sizeof(*lat));
	if (!lat)
		return -ENOMEM;
	json_array_foreach(events, i, e) {
		if (!ev_of_workload(e, wl_id) || !ev_is(e, "type", "interval") ||
		    !ev_is(e, "role", "client") || !ev_num(e, "t_ms", &t) || t < from_ms ||
		    t >= to_ms)
			continue;
		if (!ev_num(e, "mbps", &v))
			continue;
		sum += v;
		b->samples++;
		if (ev_num(e, "lat_us_p50", &v))
			lat[nr_lat++] = v;
	}
	if (b->samples)
		b->throughput_mbps = sum / b->samples;
	if (nr_lat) {
		qsort(lat, nr_lat, sizeof(*lat), cmp_double);
		b->latency_us_p50 =
		    nr_lat % 2 ? lat[nr_lat / 2] : (lat[nr_lat / 2 - 1] + lat[nr_lat / 2]) / 2;
	}
	free(lat);
	return b->samples ? 0 : -ENODATA;
}

static bool baseline_usable(const struct ev_baseline *b)
{
	return b->samples && b->throughput_mbps > 0;
}

/* ---- detection and isolation -------------------------------------------- */

/*
 * Counters that only move when something went wrong. Traffic counters
 * (sent_pkts, rcvd_bytes, ...) move all the time under a workload, so a
 * `counter` detection on them would be no detection at all.
 */
static bool counter_is_error(const char *name)
{
	static const char *const marks[] = {"err",     "link_downed", "retr",	    "timeout",
					    "drop",    "discard",     "out_of_seq", "seq_nak",
					    "rnr_nak", "duplicate",   "symbol",	    "recover"};
	size_t i;

	for (i = 0; name && i < sizeof(marks) / sizeof(marks[0]); i++)
		if (strstr(name, marks[i]))
			return true;
	return false;
}

static bool match_signal(enum sc_signal s, const json_t *e, const struct ev_fault *f)
{
	double delta;

	switch (s) {
	case SC_SIG_WORKLOAD_ERROR:
		/* any node: both ends of a broken QP report it */
		return ev_workload(e, "error") && (f->rail < 0 || ev_int_is(e, "rail", f->rail));
	case SC_SIG_PORT_EVENT:
		return ev_is(e, "kind", "port") && ev_is(e, "node", f->node) &&
		       ev_is(e, "event", "IBV_EVENT_PORT_ERR") &&
		       (!f->device[0] || ev_is(e, "device", f->device));
	case SC_SIG_LINK_EVENT:
		return ev_is(e, "kind", "link") && ev_is(e, "node", f->node) &&
		       (!f->netdev[0] || ev_is(e, "ifname", f->netdev)) &&
		       (json_is_false(json_object_get(e, "up")) ||
			json_is_false(json_object_get(e, "carrier")));
	case SC_SIG_COUNTER:
		return ev_is(e, "kind", "counter") && ev_is(e, "node", f->node) &&
		       ev_num(e, "delta", &delta) && delta > 0 &&
		       counter_is_error(json_string_value(json_object_get(e, "name"))) &&
		       (!f->device[0] || ev_is(e, "device", f->device));
	case SC_SIG_ISOLATION:
		/* A fault on the process itself (no rail): moving off any rail isolates it. */
		if (f->rail < 0 && f->decl && f->decl->target.workload[0])
			return ev_workload(e, "rail_down") || ev_workload(e, "failover");
		return f->rail >= 0 &&
		       ((ev_workload(e, "rail_down") && ev_int_is(e, "rail", f->rail)) ||
			(ev_workload(e, "failover") && ev_int_is(e, "from_rail", f->rail)));
	case SC_SIG_MR_ERROR:
		return ev_workload(e, "mr_error");
	case SC_SIG_QP_STATE:
		return ev_is(e, "kind", "fault") && ev_is(e, "action", "qp_state") &&
		       ev_is(e, "node", f->node) &&
		       (ev_is(e, "state", "ERR") || ev_is(e, "state", "IBV_QPS_ERR"));
	case SC_SIG_PFC_STORM:
		/* the victim is the peer of the node that sends the storm */
		return ev_is(e, "kind", "pfc") && ev_is(e, "type", "storm_detected");
	case SC_SIG_PFC_PAUSE:
		return ev_is(e, "kind", "pfc") && ev_is(e, "type", "rx") &&
		       ev_num(e, "frames", &delta) && delta > 0;
	case SC_SIG_STALL:
		return ev_workload(e, "stall");
	case SC_SIG_JOB_EXIT:
		/* any rank, any node: one rank dying is the job failing */
		return ev_workload(e, "job_exit");
	case SC_SIG__COUNT:
		break;
	}
	return false;
}

/*
 * The earliest time an event e may have that followed f's injection: an event of the injecting
 * node is on the injection's own clock; any other (another node's, the coordinator's alerts)
 * may be placed up to f->early_ms before it by the clocks' alignment.
 */
static double ev_after_ms(const json_t *e, const struct ev_fault *f)
{
	return ev_is(e, "node", f->node) ? f->injected_ms : f->injected_ms - f->early_ms;
}

/*
 * Whether anything shows the fault in force: any signal at all, not only the
 * ones the drill expects, between the injection (ev_after_ms) and the end of
 * the detection window or of the fault, plus 2 s. Without it a missed detection says nothing
 * about the alerting: the fault may not have taken effect.
 */
static bool effect_seen(const json_t *events, const struct ev_fault *f, const struct sc_expect *x)
{
	double until = f->injected_ms + (double)x->detection_within_ms, t;
	const json_t *e;
	size_t i;
	int s;

	if (f->reverted_ms > until)
		until = f->reverted_ms;
	until += 2000;
	json_array_foreach(events, i, e) {
		if (!ev_num(e, "t_ms", &t) || t < ev_after_ms(e, f) || t > until)
			continue;
		for (s = 0; s < SC_SIG__COUNT; s++)
			if (match_signal((enum sc_signal)s, e, f))
				return true;
		if (ev_is(e, "kind", "alert") && ev_is(e, "status", "firing"))
			return true;
	}
	return false;
}

/* Time of the last event of any kind: how far the drill was observed. */
static double last_event_ms(const json_t *events)
{
	double last = -INFINITY, t;
	const json_t *e;
	size_t i;

	json_array_foreach(events, i, e)
		if (ev_num(e, "t_ms", &t) && t > last)
			last = t;
	return last;
}

/* The alert:NAME signal of x that a firing notification e is, or NULL. */
static const char *match_alert(const struct sc_expect *x, const json_t *e)
{
	const char *name;
	unsigned int k;

	if (!x || !ev_is(e, "kind", "alert") || !ev_is(e, "status", "firing"))
		return NULL;
	name = ev_str(e, "alertname");
	for (k = 0; name && k < x->nr_alert_signals; k++)
		if (!strcmp(x->alert_signals[k], name))
			return x->alert_signals[k];
	return NULL;
}

/*
 * The earliest event at or after injection that matches one of `sigs`; ties
 * go to the event listed first. The stream is normally sorted, but merging
 * several nodes' clocks may leave small inversions, hence the full scan; and
 * an event of another node may be placed before the injection it followed
 * (ev_after_ms), so those count too, at 0 ms.
 * x: its alert:NAME signals count too (detection); NULL for none.
 */
static void first_match(const json_t *events, const enum sc_signal *sigs, unsigned int nr,
			const struct sc_expect *x, const struct ev_fault *f, double within,
			bool by_type, struct ev_measure *m)
{
	double best = INFINITY, t;
	const char *alert;
	const json_t *e;
	unsigned int k;
	size_t i;

	m->threshold_ms = within;
	json_array_foreach(events, i, e) {
		if (!ev_num(e, "t_ms", &t) || t < ev_after_ms(e, f) || t >= best)
			continue;
		if ((alert = match_alert(x, e))) {
			best = t;
			snprintf(m->signal, sizeof(m->signal), "alert:%.24s", alert);
			continue;
		}
		for (k = 0; k < nr; k++) {
			if (!match_signal(sigs[k], e, f))
				continue;
			best = t;
			if (by_type) /* isolation names what happened: rail_down or failover */
				snprintf(m->signal, sizeof(m->signal), "%s", ev_str(e, "type"));
			else
				snprintf(m->signal, sizeof(m->signal), "%s",
					 sc_signal_name(sigs[k]));
			break;
		}
	}
	if (best < INFINITY) {
		m->seen = true;
		m->ms = fmax(0, best - f->injected_ms);
		m->ok = m->ms <= within;
		return;
	}
	if (last_event_ms(events) < f->injected_ms + within) {
		m->inconclusive = true;
		snprintf(m->note, sizeof(m->note), "the drill ended before the window closed");
	} else {
		snprintf(m->note, sizeof(m->note), "not seen");
	}
}

/* ---- recovery ---------------------------------------------------------- */

/* A stretch below the threshold: a low sample, or a hole in the samples. */
struct dip {
	double start, end;
};

struct sample {
	double start, end, mbps;
};

static int cmp_sample(const void *a, const void *b)
{
	const struct sample *x = a, *y = b;

	return x->end < y->end ? -1 : x->end > y->end;
}

/*
 * Client interval samples sorted by end time, and the dips among them:
 * samples below `thr`, holes of more than two intervals between samples, and
 * a hole of more than two intervals between the last sample and the end of
 * the workload (the client's summary, or the last event when there is none,
 * e.g. because the workload died). *last_end is the end of the last sample.
 */
/*
 * Each sample's throughput becomes the time-weighted mean of the samples that
 * end within `window` ms up to it: 100 ms samples of a few dozen messages are
 * noisy, and one slow sample is not an outage.
 */
static void smooth_samples(struct sample *s, size_t n, double window)
{
	double *out;
	size_t i, j;

	if (window <= 0 || n < 2 || !(out = calloc(n, sizeof(*out))))
		return;
	for (i = 0; i < n; i++) {
		double sum = 0, dur = 0;

		for (j = i + 1; j-- > 0 && s[j].end > s[i].end - window;) {
			sum += s[j].mbps * (s[j].end - s[j].start);
			dur += s[j].end - s[j].start;
		}
		out[i] = dur > 0 ? sum / dur : s[i].mbps;
	}
	for (i = 0; i < n; i++)
		s[i].mbps = out[i];
	free(out);
}

/*
 * The drill's workload's client interval samples, sorted by end time, and
 * where the workload stopped: when the drill began to stop it (its
 * `stopping` event), else its client summary, else the last event (e.g.
 * because the workload died). The drill's own stop is not a hole: a job that
 * takes 30 s to wind down after its SIGINT reported up to the stop.
 */
static int load_samples(const json_t *events, struct sample **out, size_t *nr, double *stop)
{
	double t, iv, stopping = INFINITY;
	struct sample *s;
	const json_t *e;
	size_t i, n = 0;

	*stop = -INFINITY;
	s = calloc(json_array_size(events) + 1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	json_array_foreach(events, i, e) {
		if (ev_workload(e, "summary") && ev_is(e, "role", "client") &&
		    ev_num(e, "t_ms", &t))
			*stop = t;
		if (ev_workload(e, "stopping") && ev_num(e, "t_ms", &t))
			stopping = fmin(stopping, t);
		if (!ev_client_interval(e) || !ev_num(e, "t_ms", &t) ||
		    !ev_num(e, "mbps", &s[n].mbps))
			continue;
		if (!ev_num(e, "interval_ms", &iv) || iv <= 0)
			iv = 100;
		s[n].start = t - iv;
		s[n].end = t;
		n++;
	}
	if (*stop == -INFINITY)
		*stop = last_event_ms(events);
	*stop = fmin(*stop, stopping);
	qsort(s, n, sizeof(*s), cmp_sample);
	*out = s;
	*nr = n;
	return 0;
}

static int find_dips(const json_t *events, double thr, double window, struct dip **out,
		     size_t *nr_out, struct dip **sout, size_t *nr_sout, double *last_end)
{
	struct sample *s;
	struct dip *d, *sd;
	double stop;
	size_t i, n = 0, nd = 0, nsd = 0;

	*out = NULL;
	*nr_out = 0;
	*last_end = -INFINITY;
	if (load_samples(events, &s, &n, &stop))
		return -ENOMEM;
	d = calloc(2 * n + 2, sizeof(*d));
	sd = calloc(2 * n + 2, sizeof(*sd));
	if (!d || !sd) {
		free(s);
		free(d);
		free(sd);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		double iv_i = s[i].end - s[i].start;

		if (i && s[i].start - s[i - 1].end > 2 * iv_i) {
			d[nd++] = (struct dip){s[i - 1].end, s[i].start};
			sd[nsd++] = (struct dip){s[i - 1].end, s[i].start};
		}
		if (s[i].mbps < thr)
			d[nd++] = (struct dip){s[i].start, s[i].end};
	}
	if (n) {
		*last_end = s[n - 1].end;
		if (stop - s[n - 1].end > 2 * (s[n - 1].end - s[n - 1].start)) {
			d[nd++] = (struct dip){s[n - 1].end, stop};
			sd[nsd++] = (struct dip){s[n - 1].end, stop};
		}
	}
	/* the same samples smoothed, for judging whether throughput held */
	smooth_samples(s, n, window);
	for (i = 0; i < n; i++)
		if (s[i].mbps < thr)
			sd[nsd++] = (struct dip){s[i].start, s[i].end};
	free(s);
	*out = d;
	*nr_out = nd;
	*sout = sd;
	*nr_sout = nsd;
	return 0;
}

static void eval_recovery(const json_t *events, const struct sc_expect *x,
			  const struct ev_baseline *b, const struct ev_fault *f,
			  struct ev_measure *m)
{
	const double inj = f->injected_ms, within = (double)x->recovery_within_ms;
	const double sustain = (double)x->recovery_sustain_ms, w_end = inj + within;
	double thr, e = inj, last_end, horizon, impact_end;
	bool impact = false, changed;
	struct dip *d, *sd;
	size_t nd, nsd, i;

	snprintf(m->signal, sizeof(m->signal), "throughput");
	m->threshold_ms = within;
	if (!baseline_usable(b)) {
		m->inconclusive = true;
		snprintf(m->note, sizeof(m->note), "no baseline throughput to compare with");
		return;
	}
	thr = x->recovery_ratio * b->throughput_mbps;
	if (find_dips(events, thr, (double)x->recovery_window_ms, &d, &nd, &sd, &nsd, &last_end)) {
		m->inconclusive = true;
		snprintf(m->note, sizeof(m->note), "out of memory");
		return;
	}
	/*
	 * The impact: the first raw dip after the injection, up to the later of
	 * the window's end and the revert, plus `sustain` (an effect that shows
	 * only after a gate of 1 ms has closed still counts).
	 */
	impact_end = fmax(w_end, f->reverted_ms > inj ? f->reverted_ms : w_end) + sustain;
	for (i = 0; i < nd; i++) {
		if (d[i].end > inj && d[i].start < impact_end && (!impact || d[i].end < e)) {
			impact = true;
			e = d[i].end;
		}
	}
	/*
	 * Then throughput must hold for `sustain`, judged on the smoothed
	 * samples: a dip that starts sooner pushes recovery to its end.
	 */
	do {
		changed = false;
		for (i = 0; impact && i < nsd; i++) {
			if (sd[i].end > e && sd[i].start < e + sustain) {
				e = sd[i].end;
				changed = true;
			}
		}
	} while (changed);
	free(d);
	free(sd);

	horizon = fmax(w_end, e + sustain);
	if (last_end >= horizon) {
		m->seen = true;
		m->ms = e - inj;
		m->ok = m->ms <= within;
		if (!impact)
			snprintf(m->note, sizeof(m->note), "no throughput impact");
		return;
	}
	if (e > w_end || e > last_end) {
		/* still below the threshold past the window, or the samples stopped */
		snprintf(m->note, sizeof(m->note),
			 e > last_end ? "not recovered: the workload stopped reporting"
				      : "not recovered by the end of the drill");
		return;
	}
	m->inconclusive = true;
	snprintf(m->note, sizeof(m->note), "the drill ended before the window closed");
}

/* ---- failback ---------------------------------------------------------- */

static double overlap(double a0, double a1, double b0, double b1)
{
	double lo = fmax(a0, b0), hi = fmin(a1, b1);

	return hi > lo ? hi - lo : 0;
}

/* The workload's first `failback` at or after `from` and before `to`. */
static void first_failback(const json_t *events, double from, double to, struct ev_failback *fb)
{
	const json_t *e;
	double t, rail;
	size_t i;

	json_array_foreach(events, i, e) {
		if (!ev_workload(e, "failback") || !ev_num(e, "t_ms", &t) || t < from || t > to)
			continue;
		fb->failback_ms = t - from;
		fb->failback_to_rail = ev_num(e, "to_rail", &rail) ? (int)rail : -1;
		return;
	}
}

/*
 * Failback (docs/SCENARIOS.md, "How times are measured"): the window opens at
 * the later of the revert and the recovery (an outage still going on at the
 * revert is the fault's own, which recovery measures) and lasts
 * failback_window_ms, or until the next injection. In it, the time the
 * smoothed samples spent below T, holes included, and their lowest ratio.
 */
static void eval_failback(const json_t *events, const struct sc_expect *x,
			  const struct ev_baseline *b, const struct ev_fault *f,
			  const struct ev_measure *rec, struct ev_failback *fb)
{
	const double thr = x->failback_ratio * b->throughput_mbps;
	struct sample *s = NULL;
	double stop, to, end, iv, cut;
	size_t i, n;

	fb->threshold_ms = x->failback_set ? (double)x->failback_max_outage_ms : -1;
	fb->failback_ms = -1;
	fb->failback_to_rail = -1;
	fb->min_ratio = NAN;
	if (f->reverted_ms < 0) {
		snprintf(fb->note, sizeof(fb->note), "not measured: the fault was not reverted");
		goto unjudged;
	}
	if (!baseline_usable(b)) {
		snprintf(fb->note, sizeof(fb->note), "not measured: no baseline throughput");
		goto unjudged;
	}
	if (!rec->seen) {
		snprintf(fb->note, sizeof(fb->note),
			 "not measured: the workload had not recovered from the fault");
		goto unjudged;
	}
	fb->from_ms = fmax(f->reverted_ms, f->injected_ms + rec->ms);
	to = fb->from_ms + (double)x->failback_window_ms;
	cut = f->next_injected_ms > f->injected_ms ? f->next_injected_ms : INFINITY;
	if (cut <= fb->from_ms) {
		snprintf(fb->note, sizeof(fb->note),
			 "not measured: the next fault was injected before the revert");
		goto unjudged;
	}
	if (load_samples(events, &s, &n, &stop)) {
		snprintf(fb->note, sizeof(fb->note), "out of memory");
		goto unjudged;
	}
	fb->to_ms = fmin(fmin(to, cut), fmax(stop, n ? s[n - 1].end : stop));
	if (fb->to_ms <= fb->from_ms) {
		snprintf(fb->note, sizeof(fb->note),
			 "not measured: the workload stopped before the revert");
		free(s);
		goto unjudged;
	}
	smooth_samples(s, n, (double)x->recovery_window_ms);
	fb->min_ratio = INFINITY;
	for (i = 0; i < n; i++) {
		iv = s[i].end - s[i].start;
		/* a hole of more than two intervals moved nothing */
		end = i + 1 < n ? s[i + 1].start : stop;
		if (end - s[i].end > 2 * iv && overlap(s[i].end, end, fb->from_ms, fb->to_ms) > 0) {
			fb->outage_ms += overlap(s[i].end, end, fb->from_ms, fb->to_ms);
			fb->min_ratio = 0;
		}
		if (s[i].end <= fb->from_ms || s[i].start >= fb->to_ms)
			continue;
		if (s[i].mbps < thr)
			fb->outage_ms += overlap(s[i].start, s[i].end, fb->from_ms, fb->to_ms);
		fb->min_ratio = fmin(fb->min_ratio, s[i].mbps / b->throughput_mbps);
	}
	free(s);
	if (isinf(fb->min_ratio)) {
		fb->min_ratio = NAN;
		snprintf(fb->note, sizeof(fb->note), "not measured: no samples after the revert");
		goto unjudged;
	}
	fb->measured = true;
	first_failback(events, f->reverted_ms, fb->to_ms, fb);
	if (!x->failback_set) {
		fb->ok = true;
		return;
	}
	fb->ok = fb->outage_ms <= fb->threshold_ms;
	/* a window the drill cut short proves a violation, never compliance */
	if (fb->ok && fb->to_ms < fmin(to, cut)) {
		fb->ok = false;
		fb->inconclusive = true;
		snprintf(fb->note, sizeof(fb->note),
			 "the drill ended %.1f s into the %.1f s failback window",
			 (fb->to_ms - fb->from_ms) / 1000, (fmin(to, cut) - fb->from_ms) / 1000);
	}
	return;
unjudged:
	fb->ok = !x->failback_set;
	fb->inconclusive = x->failback_set;
}

void ev_evaluate_fault(const json_t *events, const struct sc_expect *expect,
		       const struct ev_baseline *b, const struct ev_fault *f,
		       struct ev_fault_result *r)
{
	static const enum sc_signal iso[] = {SC_SIG_ISOLATION};

	memset(r, 0, sizeof(*r));
	r->isolation_checked = expect->isolation_set;
	r->detection.threshold_ms = (double)expect->detection_within_ms;
	r->isolation.threshold_ms = (double)expect->isolation_within_ms;
	r->recovery.threshold_ms = (double)expect->recovery_within_ms;
	snprintf(r->recovery.signal, sizeof(r->recovery.signal), "throughput");
	if (f->injected_ms < 0 || !json_is_array(events)) {
		struct ev_measure *ms[] = {&r->detection, &r->isolation, &r->recovery};
		size_t i;

		for (i = 0; i < 3; i++) {
			ms[i]->inconclusive = true;
			snprintf(ms[i]->note, sizeof(ms[i]->note), "not injected");
		}
		r->failback = (struct ev_failback){
		    .min_ratio = NAN,
		    .failback_ms = -1,
		    .failback_to_rail = -1,
		    .threshold_ms =
			expect->failback_set ? (double)expect->failback_max_outage_ms : -1,
		    .ok = !expect->failback_set,
		    .inconclusive = expect->failback_set,
		    .note = "not measured: the fault was not injected"};
		return;
	}
	first_match(events, expect->signals, expect->nr_signals, expect, f,
		    (double)expect->detection_within_ms, false, &r->detection);
	if (!r->detection.seen && !r->detection.inconclusive && !effect_seen(events, f, expect)) {
		/* nothing to judge detection on: say so rather than blame the alerting */
		r->detection.inconclusive = true;
		snprintf(r->detection.note, sizeof(r->detection.note),
			 "no evidence the fault took effect: no link, port, counter, PFC, QP, "
			 "MR or workload signal on any node after the injection");
	}
	if (r->isolation_checked) {
		first_match(events, iso, 1, NULL, f, (double)expect->isolation_within_ms, true,
			    &r->isolation);
		if (!r->isolation.seen && f->rail < 0)
			snprintf(r->isolation.note, sizeof(r->isolation.note),
				 "not seen (the fault is not on a workload rail)");
	}
	eval_recovery(events, expect, b, f, &r->recovery);
	eval_failback(events, expect, b, f, &r->recovery, &r->failback);
	r->ok = r->detection.ok && (!r->isolation_checked || r->isolation.ok) && r->recovery.ok &&
		r->failback.ok;
}

/* ---- integrity --------------------------------------------------------- */

static long long ev_ll(const json_t *e, const char *key)
{
	double v;

	return ev_num(e, key, &v) ? (long long)v : 0;
}

void ev_integrity(const json_t *events, struct ev_integrity *in)
{
	const json_t *e, *client = NULL, *server = NULL;
	long long lost;
	size_t i;

	memset(in, 0, sizeof(*in));
	json_array_foreach(events, i, e) {
		if (!ev_workload(e, "summary"))
			continue;
		if (ev_is(e, "role", "client"))
			client = e;
		else if (ev_is(e, "role", "server"))
			server = e;
	}
	if (client)
		in->sent = ev_ll(client, "sent");
	if (server) {
		in->received = ev_ll(server, "received");
		in->duplicated = ev_ll(server, "duplicated");
		in->corrupted = ev_ll(server, "corrupted");
	}
	if (client && server) {
		/* acknowledged by the fabric but never seen intact by the server */
		lost = ev_ll(client, "completed") - ev_ll(server, "unique");
		in->lost = lost > 0 ? lost : 0;
		in->known = true;
	}
}

/* ---- verdict ----------------------------------------------------------- */

static void signal_list(const struct sc_expect *x, char *buf, size_t len)
{
	size_t off = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < x->nr_signals && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? ", " : "",
					sc_signal_name(x->signals[i]));
}

/* Adds the reasons a measure was not ok; returns 1 violated, 2 inconclusive, 0 ok. */
static int judge(json_t *problems, const char *fault, const char *what, const struct ev_measure *m,
		 const char *detail)
{
	char a[32], b[32];

	if (m->ok)
		return 0;
	if (m->inconclusive) {
		reason(problems, "%s: %s could not be judged: %s", fault, what, m->note);
		return 2;
	}
	if (m->seen)
		reason(problems, "%s: %s %s > %s", fault, what, rc_format_ms(m->ms, a, sizeof(a)),
		       rc_format_ms(m->threshold_ms, b, sizeof(b)));
	else
		reason(problems, "%s: %s not seen within %s%s%s", fault, what,
		       rc_format_ms(m->threshold_ms, b, sizeof(b)), detail ? " " : "",
		       detail ? detail : "");
	return 1;
}

/* A bounded failback: 1 violated, 2 could not be judged, 0 ok or not bounded. */
static int judge_failback(json_t *problems, const char *fault, const struct sc_expect *x,
			  const struct ev_failback *fb)
{
	char a[32], b[32];

	if (!x->failback_set || fb->ok)
		return 0;
	if (fb->inconclusive) {
		reason(problems, "%s: failback could not be judged: %s", fault, fb->note);
		return 2;
	}
	reason(problems,
	       "%s: failback outage %s > %s (throughput below %.0f%% of the baseline after the "
	       "revert; lowest %.0f%%)",
	       fault, rc_format_ms(fb->outage_ms, a, sizeof(a)),
	       rc_format_ms(fb->threshold_ms, b, sizeof(b)), x->failback_ratio * 100,
	       fb->min_ratio * 100);
	return 1;
}

static const struct ev_measure *phase_of(const struct ev_fault_result *r, enum ev_phase p)
{
	return p == EV_PH_DETECTION   ? &r->detection
	       : p == EV_PH_ISOLATION ? &r->isolation
				      : &r->recovery;
}

static enum sc_stat stat_of(const struct sc_expect *x, enum ev_phase p)
{
	return p == EV_PH_DETECTION   ? x->detection_stat
	       : p == EV_PH_ISOLATION ? x->isolation_stat
				      : x->recovery_stat;
}

const char *ev_phase_name(enum ev_phase p)
{
	return p == EV_PH_DETECTION ? "detection" : p == EV_PH_ISOLATION ? "isolation" : "recovery";
}

bool ev_judged_alone(const struct sc_expect *x, const struct ev_fault *f, enum ev_phase p)
{
	return !f->decl || f->decl->trials <= 1 || stat_of(x, p) == SC_STAT_MAX;
}

int ev_trial_stats(const struct sc_expect *x, const struct ev_fault_result *results,
		   const struct ev_fault *faults, unsigned int nr_faults, const char *base,
		   enum ev_phase p, struct ev_trial_stat *st)
{
	double v[SC_MAX_FAULTS], sorted[SC_MAX_FAULTS];
	unsigned int i;

	memset(st, 0, sizeof(*st));
	st->stat = stat_of(x, p);
	for (i = 0; i < nr_faults && st->n < SC_MAX_FAULTS; i++) {
		const struct ev_measure *m = phase_of(&results[i], p);

		if (!faults[i].decl || strcmp(faults[i].decl->base, base))
			continue;
		st->trials++;
		st->threshold_ms = m->threshold_ms;
		/* not injected or not judgeable: it says nothing about the distribution */
		if (faults[i].injected_ms < 0 || m->inconclusive)
			continue;
		/* never seen within the window: slower than any time that was seen */
		v[st->n++] = m->seen ? m->ms : INFINITY;
		st->seen += m->seen;
	}
	if (!st->n)
		return -ENODATA;
	memcpy(sorted, v, st->n * sizeof(*v));
	st->p50 = sched_percentile(sorted, st->n, 50);
	st->p90 = sched_percentile(sorted, st->n, 90);
	st->max = sorted[st->n - 1];
	st->value = st->stat == SC_STAT_P50 ? st->p50 : st->stat == SC_STAT_P90 ? st->p90 : st->max;
	st->ok = st->value <= st->threshold_ms;
	return 0;
}

/*
 * The thresholds stated on p50 or p90: one judgement per repeated fault and
 * phase, over its trials. Returns 1 when one is violated, 2 when one could not
 * be judged, else 0.
 */
static int judge_trials(json_t *problems, json_t *good, const struct sc_expect *x,
			const struct ev_fault_result *results, const struct ev_fault *faults,
			unsigned int nr_faults)
{
	struct ev_trial_stat st;
	char a[32], b[32];
	unsigned int i, j;
	int p, worst = 0;

	for (i = 0; i < nr_faults; i++) {
		const struct sc_fault *d = faults[i].decl;
		bool first = true;

		if (!d || d->trials <= 1)
			continue;
		for (j = 0; j < i; j++)
			if (faults[j].decl && !strcmp(faults[j].decl->base, d->base))
				first = false;
		if (!first)
			continue;
		for (p = 0; p < EV_PH__COUNT; p++) {
			if (stat_of(x, (enum ev_phase)p) == SC_STAT_MAX ||
			    (p == EV_PH_ISOLATION && !results[i].isolation_checked))
				continue;
			if (ev_trial_stats(x, results, faults, nr_faults, d->base, (enum ev_phase)p,
					   &st)) {
				reason(problems,
				       "%s: %s %s could not be judged: no trial was measured",
				       d->base, ev_phase_name((enum ev_phase)p),
				       sc_stat_name(st.stat));
				worst = worst ?: 2;
				continue;
			}
			if (st.ok) {
				reason(good, "%s: %s %s %s over %u trials (within %s)", d->base,
				       ev_phase_name((enum ev_phase)p), sc_stat_name(st.stat),
				       rc_format_ms(st.value, a, sizeof(a)), st.n,
				       rc_format_ms(st.threshold_ms, b, sizeof(b)));
				continue;
			}
			worst = 1;
			if (isinf(st.value))
				reason(problems,
				       "%s: %s %s over %u trials: not seen within %s in %u of them",
				       d->base, ev_phase_name((enum ev_phase)p),
				       sc_stat_name(st.stat), st.n,
				       rc_format_ms(st.threshold_ms, b, sizeof(b)), st.n - st.seen);
			else
				reason(problems, "%s: %s %s over %u trials %s > %s", d->base,
				       ev_phase_name((enum ev_phase)p), sc_stat_name(st.stat), st.n,
				       rc_format_ms(st.value, a, sizeof(a)),
				       rc_format_ms(st.threshold_ms, b, sizeof(b)));
		}
	}
	return worst;
}

/* Problems that fail the drill (alerts, the job, the scheduler): when they turn a pass into a
 * fail, the reasons why it passed give way to the drill's own. */
static enum ev_verdict ev_fail_with(enum ev_verdict v, const json_t *problems,
				    const struct ev_drill_outcome *o, json_t *reasons)
{
	if (!problems || v == EV_CLEANUP_FAILED)
		return v;
	if (v == EV_PASS) {
		json_array_clear(reasons);
		if (o->own_reasons)
			json_array_extend(reasons, (json_t *)o->own_reasons);
	}
	json_array_extend(reasons, (json_t *)problems);
	return EV_FAIL;
}

enum ev_verdict ev_drill_verdict(enum ev_verdict measured, const struct ev_drill_outcome *o,
				 json_t *reasons)
{
	enum ev_verdict v = measured;

	v = ev_fail_with(v, o->alert_problems, o, reasons);
	/* a job that did not reach its outcome, or that left RDMA, fails as a missed alert does;
	 * so does a scheduler that did not isolate, or isolated the wrong node */
	v = ev_fail_with(v, o->job_problems, o, reasons);
	v = ev_fail_with(v, o->sched_problems, o, reasons);
	if (o->aborted && v != EV_CLEANUP_FAILED)
		v = EV_FAIL;
	if (o->inconclusive && v == EV_PASS)
		v = EV_INCONCLUSIVE;
	if (o->inconclusive && v == EV_FAIL && o->stop_requested)
		v = EV_INCONCLUSIVE;
	return v;
}

/* Outcome bits of a judged part, as judge() answers: 1 fail, 2 inconclusive. */
#define EV_J_FAIL 1
#define EV_J_INCONCLUSIVE 2

static unsigned int judge_bits(int j)
{
	return j == 1 ? EV_J_FAIL : j == 2 ? EV_J_INCONCLUSIVE : 0;
}

/* One fault's detection, isolation, recovery and failback; its sentence for a pass in good. */
static unsigned int judge_fault(json_t *problems, json_t *good, const struct sc_expect *expect,
				const char *sigs, const struct ev_fault_result *r,
				const struct ev_fault *f, unsigned int i)
{
	char name[SC_NAME_LEN + 16], detail[256], s1[32], s2[32], s3[32];
	unsigned int bits = 0;

	if (f->decl)
		snprintf(name, sizeof(name), "%s", f->decl->name);
	else
		snprintf(name, sizeof(name), "fault %u", i);
	if (f->injected_ms < 0) {
		reason(problems, "%s: was not injected", name);
		return EV_J_INCONCLUSIVE;
	}
	snprintf(detail, sizeof(detail), "(signals: %s)", sigs);
	if (ev_judged_alone(expect, f, EV_PH_DETECTION))
		bits |= judge_bits(judge(problems, name, "detection", &r->detection, detail));
	if (r->isolation_checked && ev_judged_alone(expect, f, EV_PH_ISOLATION)) {
		if (f->rail >= 0)
			snprintf(detail, sizeof(detail), "(no rail_down or failover of rail %d)",
				 f->rail);
		else
			snprintf(detail, sizeof(detail), "(the fault is not on a workload rail)");
		bits |= judge_bits(judge(problems, name, "isolation", &r->isolation, detail));
	}
	snprintf(detail, sizeof(detail), "(%s)", r->recovery.note);
	if (ev_judged_alone(expect, f, EV_PH_RECOVERY))
		bits |= judge_bits(judge(problems, name, "recovery", &r->recovery,
					 r->recovery.note[0] ? detail : NULL));
	bits |= judge_bits(judge_failback(problems, name, expect, &r->failback));

	if (r->isolation_checked)
		snprintf(detail, sizeof(detail), ", isolated in %s (%s)",
			 rc_format_ms(r->isolation.ms, s2, sizeof(s2)), r->isolation.signal);
	else
		detail[0] = '\0';
	if (r->recovery.note[0] && r->recovery.ms == 0)
		reason(good, "%s: detected in %s (%s)%s, %s", name,
		       rc_format_ms(r->detection.ms, s1, sizeof(s1)), r->detection.signal, detail,
		       r->recovery.note);
	else
		reason(good, "%s: detected in %s (%s)%s, recovered in %s", name,
		       rc_format_ms(r->detection.ms, s1, sizeof(s1)), r->detection.signal, detail,
		       rc_format_ms(r->recovery.ms, s3, sizeof(s3)));
	return bits;
}

/* The integrity bounds (messages lost, corrupted) against the summaries. */
static unsigned int judge_integrity(json_t *problems, json_t *good, const struct sc_expect *expect,
				    const struct ev_integrity *in)
{
	unsigned int bits = 0;

	if (expect->max_lost < 0 && expect->max_corrupted < 0)
		return 0;
	if (!in->known) {
		reason(problems, "integrity unknown: the client or server summary is missing");
		return EV_J_INCONCLUSIVE;
	}
	if (expect->max_lost >= 0 && in->lost > expect->max_lost) {
		bits |= EV_J_FAIL;
		reason(problems, "integrity: %lld messages lost, at most %lld allowed", in->lost,
		       (long long)expect->max_lost);
	}
	if (expect->max_corrupted >= 0 && in->corrupted > expect->max_corrupted) {
		bits |= EV_J_FAIL;
		reason(problems, "integrity: %lld messages corrupted, at most %lld allowed",
		       in->corrupted, (long long)expect->max_corrupted);
	}
	reason(good, "integrity held: %lld lost, %lld corrupted, %lld duplicated", in->lost,
	       in->corrupted, in->duplicated);
	return bits;
}

enum ev_verdict ev_verdict(const struct sc_expect *expect, const struct ev_baseline *b,
			   const struct ev_fault_result *results, const struct ev_fault *faults,
			   unsigned int nr_faults, const struct ev_integrity *in,
			   bool cleanup_verified, json_t *reasons)
{
	json_t *problems = json_array(), *good = json_array();
	unsigned int i, bits = 0;
	enum ev_verdict v;
	char w[64], sigs[128];

	if (!cleanup_verified)
		reason(problems, "cleanup was not verified: check the nodes by hand (see Cleanup)");
	if (!baseline_usable(b)) {
		bits |= EV_J_INCONCLUSIVE;
		if (b->from_ms == 0 && b->to_ms == 0)
			reason(problems, "baseline throughput is 0: no baseline was measured");
		else if (!b->samples)
			reason(problems, "baseline throughput is 0: no samples in %s",
			       rc_format_window(b->from_ms, b->to_ms, w, sizeof(w)));
		else
			reason(problems, "baseline throughput is 0: %u samples in %s moved no data",
			       b->samples, rc_format_window(b->from_ms, b->to_ms, w, sizeof(w)));
	}
	signal_list(expect, sigs, sizeof(sigs));
	for (i = 0; i < nr_faults; i++)
		bits |= judge_fault(problems, good, expect, sigs, &results[i], &faults[i], i);
	bits |= judge_bits(judge_trials(problems, good, expect, results, faults, nr_faults));
	bits |= judge_integrity(problems, good, expect, in);

	if (!cleanup_verified)
		v = EV_CLEANUP_FAILED;
	else if (bits & EV_J_FAIL)
		v = EV_FAIL;
	else if (bits & EV_J_INCONCLUSIVE)
		v = EV_INCONCLUSIVE;
	else
		v = EV_PASS;
	if (reasons)
		json_array_extend(reasons, v == EV_PASS ? good : problems);
	json_decref(problems);
	json_decref(good);
	return v;
}

static json_t *num_or_null(double v)
{
	return isfinite(v) ? json_real(round(v * 1000) / 1000) : json_null();
}

json_t *ev_failback_json(const struct ev_failback *fb)
{
	json_t *j = json_object();

	json_object_set_new(j, "outage_ms",
			    fb->measured ? num_or_null(fb->outage_ms) : json_null());
	json_object_set_new(j, "min_ratio",
			    fb->measured ? num_or_null(fb->min_ratio) : json_null());
	json_object_set_new(
	    j, "window_ms",
	    fb->measured ? json_pack("[o,o]", num_or_null(fb->from_ms), num_or_null(fb->to_ms))
			 : json_null());
	json_object_set_new(j, "failback_ms",
			    fb->failback_ms >= 0 ? num_or_null(fb->failback_ms) : json_null());
	json_object_set_new(j, "to_rail",
			    fb->failback_to_rail >= 0 ? json_integer(fb->failback_to_rail)
						      : json_null());
	json_object_set_new(j, "threshold_ms",
			    fb->threshold_ms >= 0 ? json_integer((json_int_t)fb->threshold_ms)
						  : json_null());
	json_object_set_new(j, "ok", json_boolean(fb->ok));
	if (fb->note[0])
		json_object_set_new(j, "note", json_string(fb->note));
	if (fb->inconclusive)
		json_object_set_new(j, "inconclusive", json_true());
	return j;
}

json_t *ev_measure_json(const struct ev_measure *m)
{
	json_t *j = json_object();

	json_object_set_new(j, "ms", m->seen ? json_real(round(m->ms * 1000) / 1000) : json_null());
	json_object_set_new(j, "signal",
			    m->seen && m->signal[0] ? json_string(m->signal) : json_null());
	json_object_set_new(j, "threshold_ms",
			    m->threshold_ms == floor(m->threshold_ms)
				? json_integer((json_int_t)m->threshold_ms)
				: json_real(m->threshold_ms));
	json_object_set_new(j, "ok", json_boolean(m->ok));
	if (m->note[0])
		json_object_set_new(j, "note", json_string(m->note));
	if (m->inconclusive)
		json_object_set_new(j, "inconclusive", json_true());
	return j;
}
