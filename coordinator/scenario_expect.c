// SPDX-License-Identifier: MIT
/* The expect: section of a scenario: the signals, thresholds, alerts and failback a drill is judged
 * by. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/units.h"
#include "coordinator/scenario_parse.h"

/* A Prometheus alert name: [A-Za-z_][A-Za-z0-9_]*. */
static bool alert_name_ok(const char *s)
{
	if (!*s || !(isalpha((unsigned char)*s) || *s == '_'))
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return false;
	return true;
}

static int parse_signals(struct pctx *c, yaml_node_t *seq, struct sc_expect *e)
{
	const char *path0 = "expect.detection.signals";
	char path[YD_PATH_LEN];
	unsigned int i, j, nr;
	enum sc_signal s;
	int st = 0;

	if (yd_want_seq(c->d, seq, path0))
		return -EINVAL;
	nr = (unsigned int)yd_seq_len(seq);
	if (!nr)
		return yd_fail(c->d, seq, path0,
			       "is empty; list what counts as detection: " SC_SIGNAL_NAMES);
	for (i = 0; i < nr; i++) {
		yaml_node_t *n = yd_seq_item(c->d, seq, i);

		yd_join_idx(path, path0, i);
		if (scp_keep(&st, yd_want_scalar(c->d, n, path)))
			continue;
		if (!strncmp(yd_scalar(n), "alert:", 6)) {
			/* an alert from the monitoring counts as detection */
			const char *name = yd_scalar(n) + 6;

			if (!alert_name_ok(name) || strlen(name) >= SC_ALERT_NAME_LEN)
				scp_keep(&st,
					 yd_fail(c->d, n, path,
						 "\"%s\" is not an alert name; write alert:NAME, "
						 "e.g. alert:RdmaPortDown",
						 yd_scalar(n)));
			else if (e->nr_alert_signals < SC_MAX_SIGNALS)
				snprintf(e->alert_signals[e->nr_alert_signals++], SC_ALERT_NAME_LEN,
					 "%s", name);
			continue;
		}
		if (sc_signal_parse(yd_scalar(n), &s)) {
			scp_keep(&st, yd_fail(c->d, n, path,
					      "\"%s\" is not a signal; use one of " SC_SIGNAL_NAMES,
					      yd_scalar(n)));
			continue;
		}
		for (j = 0; j < e->nr_signals && e->signals[j] != s; j++)
			;
		if (j < e->nr_signals)
			scp_keep(&st, yd_fail(c->d, n, path, "%s is listed twice", yd_scalar(n)));
		else
			e->signals[e->nr_signals++] = s; /* distinct: at most SC_SIG__COUNT */
	}
	return st;
}

/* within: a duration; stat: which statistic of a repeated fault's trials it holds for. */
static int parse_within(struct pctx *c, yaml_node_t *m, const char *path, uint64_t *ms,
			enum sc_stat *stat)
{
	char kpath[YD_PATH_LEN], text[8];
	yaml_node_t *n = yd_map_get(c->d, m, "within");
	int ret;

	if (!n)
		return scp_missing(c, m, path, "within",
				   "the longest acceptable time, e.g. within: 5s");
	yd_join(kpath, path, "within");
	if ((ret = scp_get_duration_pos(c, n, kpath, ms)))
		return ret;
	*stat = SC_STAT_MAX;
	if (!(n = yd_map_get(c->d, m, "stat")))
		return 0;
	yd_join(kpath, path, "stat");
	if ((ret = yd_get_text(c->d, n, kpath, text, sizeof(text))))
		return ret;
	if (!strcmp(text, "p50"))
		*stat = SC_STAT_P50;
	else if (!strcmp(text, "p90"))
		*stat = SC_STAT_P90;
	else if (strcmp(text, "max"))
		return yd_fail(c->d, n, kpath,
			       "\"%s\" is not a statistic; use max (every trial, the default), "
			       "p90 or p50 of a repeated fault's trials",
			       yd_scalar(n));
	return 0;
}

/* expect.alerts: [{name, fire_within, resolve_within, faults: [...]}] */
static int parse_alerts(struct pctx *c, yaml_node_t *seq, struct sc_expect *e)
{
	static const char *const keys[] = {"name", "fire_within", "resolve_within", "faults", NULL};
	const struct scenario *sc = c->sc;
	char path[YD_PATH_LEN], kpath[YD_PATH_LEN], fpath[YD_PATH_LEN];
	unsigned int i, j, k, nr;
	yaml_node_t *m, *n, *f;
	int st = 0;

	if (yd_want_seq(c->d, seq, "expect.alerts"))
		return -EINVAL;
	nr = (unsigned int)yd_seq_len(seq);
	if (nr > SC_MAX_ALERTS)
		return yd_fail(c->d, seq, "expect.alerts", "lists %u alerts; at most %d", nr,
			       SC_MAX_ALERTS);
	for (i = 0; i < nr; i++) {
		struct sc_alert_expect *a = &e->alerts[e->nr_alerts];

		m = yd_seq_item(c->d, seq, i);
		yd_join_idx(path, "expect.alerts", i);
		if (scp_keep(&st, yd_want_map(c->d, m, path)) ||
		    scp_keep(&st, yd_check_keys(c->d, m, path, keys)))
			continue;
		memset(a, 0, sizeof(*a));
		a->line = (int)yd_line(m);
		yd_join(kpath, path, "name");
		if (!(n = yd_map_get(c->d, m, "name"))) {
			scp_keep(&st,
				 scp_missing(
				     c, m, path, "name",
				     "the alert's name as the rule gives it, e.g. RdmaPortDown"));
			continue;
		}
		if (scp_keep(&st, yd_get_text(c->d, n, kpath, a->name, sizeof(a->name))))
			continue;
		if (!alert_name_ok(a->name)) {
			scp_keep(&st,
				 yd_fail(c->d, n, kpath,
					 "\"%s\" is not an alert name ([A-Za-z_][A-Za-z0-9_]*)",
					 a->name));
			continue;
		}
		for (j = 0; j < e->nr_alerts; j++)
			if (!strcmp(e->alerts[j].name, a->name))
				break;
		if (j < e->nr_alerts) {
			scp_keep(&st, yd_fail(c->d, n, kpath, "%s is listed twice", a->name));
			continue;
		}
		yd_join(kpath, path, "fire_within");
		if (!(n = yd_map_get(c->d, m, "fire_within"))) {
			scp_keep(&st,
				 scp_missing(c, m, path, "fire_within",
					     "how soon after the injection the notification must "
					     "arrive, e.g. fire_within: 60s"));
			continue;
		}
		if (scp_keep(&st, scp_get_duration_pos(c, n, kpath, &a->fire_within_ms)))
			continue;
		yd_join(kpath, path, "resolve_within");
		if ((n = yd_map_get(c->d, m, "resolve_within")) &&
		    scp_keep(&st, scp_get_duration_pos(c, n, kpath, &a->resolve_within_ms)))
			continue;
		if ((f = yd_map_get(c->d, m, "faults"))) {
			yd_join(kpath, path, "faults");
			if (scp_keep(&st, yd_want_seq(c->d, f, kpath)))
				continue;
			for (k = 0; k < yd_seq_len(f) && k < SC_MAX_SIGNALS; k++) {
				n = yd_seq_item(c->d, f, k);
				yd_join_idx(fpath, kpath, k);
				if (scp_keep(&st,
					     yd_get_text(c->d, n, fpath, a->faults[a->nr_faults],
							 SC_NAME_LEN)))
					continue;
				for (j = 0; j < sc->nr_faults; j++)
					if (!strcmp(sc->faults[j].name, a->faults[a->nr_faults]))
						break;
				if (j == sc->nr_faults)
					scp_keep(&st, yd_fail(c->d, n, fpath,
							      "\"%s\" is not a fault of "
							      "this drill",
							      a->faults[a->nr_faults]));
				else
					a->nr_faults++;
			}
			if (yd_seq_len(f) > SC_MAX_SIGNALS)
				scp_keep(&st, yd_fail(c->d, f, kpath, "lists more than %d faults",
						      SC_MAX_SIGNALS));
		}
		e->nr_alerts++;
	}
	return st;
}

/* expect.failback: {max_outage, throughput_ratio, window}; max_outage is the bound. */
static int parse_failback(struct pctx *c, yaml_node_t *m, struct sc_expect *e, bool *ratio_set)
{
	static const char *const keys[] = {"max_outage", "throughput_ratio", "window", NULL};
	yaml_node_t *n;
	uint64_t v = 0;
	double r;
	int st = 0;

	if (yd_want_map(c->d, m, "expect.failback"))
		return -EINVAL;
	scp_keep(&st, yd_check_keys(c->d, m, "expect.failback", keys));
	if (!(n = yd_map_get(c->d, m, "max_outage")))
		scp_keep(&st, scp_missing(
				  c, m, "expect.failback", "max_outage",
				  "the longest time throughput may stay below the threshold after "
				  "a revert, e.g. failback: {max_outage: 2s}"));
	else if (!scp_keep(&st, yd_get_duration(c->d, n, "expect.failback.max_outage", &v)))
		e->failback_max_outage_ms = v;
	if ((n = yd_map_get(c->d, m, "throughput_ratio")) &&
	    !scp_keep(&st, scp_get_double(c, n, "expect.failback.throughput_ratio", &r))) {
		if (!(r > 0 && r <= 1))
			scp_keep(&st,
				 yd_fail(c->d, n, "expect.failback.throughput_ratio",
					 "%s is out of range; use a fraction of the baseline above "
					 "0 and at most 1, e.g. 0.8",
					 yd_scalar(n)));
		else {
			e->failback_ratio = r;
			*ratio_set = true;
		}
	}
	if ((n = yd_map_get(c->d, m, "window")) &&
	    !scp_keep(&st, yd_get_duration(c->d, n, "expect.failback.window", &v))) {
		if (!v)
			scp_keep(&st, yd_fail(c->d, n, "expect.failback.window",
					      "must be longer than 0s, e.g. 10s"));
		else
			e->failback_window_ms = v;
	}
	if (!st)
		e->failback_set = true;
	return st;
}

int scp_parse_expect(struct pctx *c, yaml_node_t *ex)
{
	static const char *const keys[] = {"detection", "isolation", "recovery",  "failback",
					   "integrity", "alerts",    "scheduler", NULL};
	static const char *const det_keys[] = {"within", "stat", "signals", NULL};
	static const char *const iso_keys[] = {"within", "stat", NULL};
	static const char *const rec_keys[] = {"within",  "stat",   "throughput_ratio",
					       "sustain", "window", NULL};
	static const char *const int_keys[] = {"lost", "corrupted", NULL};
	struct sc_expect *e = &c->sc->expect;
	bool fb_ratio_set = false;
	yaml_node_t *m, *n;
	uint64_t v = 0;
	double r;
	int st = 0;

	e->recovery_ratio = 0.8;
	e->recovery_sustain_ms = 2000;
	e->recovery_window_ms = 1000;
	e->failback_window_ms = SC_FAILBACK_WINDOW_MS;
	e->max_lost = -1;
	e->max_corrupted = -1;
	if (yd_want_map(c->d, ex, "expect"))
		return -EINVAL;
	scp_keep(&st, yd_check_keys(c->d, ex, "expect", keys));

	/* each section's keys are checked even when one of them is refused */
	if (!(m = yd_map_get(c->d, ex, "detection"))) {
		scp_keep(&st, scp_missing(c, ex, "expect", "detection",
					  "e.g. detection: {within: 5s, signals: [workload_error, "
					  "port_event]}"));
	} else if (!scp_keep(&st, yd_want_map(c->d, m, "expect.detection"))) {
		scp_keep(&st, yd_check_keys(c->d, m, "expect.detection", det_keys));
		scp_keep(&st, parse_within(c, m, "expect.detection", &e->detection_within_ms,
					   &e->detection_stat));
		if (!(n = yd_map_get(c->d, m, "signals")))
			scp_keep(&st,
				 scp_missing(c, m, "expect.detection", "signals",
					     "list what counts as detection, e.g. [workload_error, "
					     "port_event]"));
		else
			scp_keep(&st, parse_signals(c, n, e));
	}

	if ((m = yd_map_get(c->d, ex, "isolation")) &&
	    !scp_keep(&st, yd_want_map(c->d, m, "expect.isolation"))) {
		scp_keep(&st, yd_check_keys(c->d, m, "expect.isolation", iso_keys));
		if (!scp_keep(&st, parse_within(c, m, "expect.isolation", &e->isolation_within_ms,
						&e->isolation_stat)))
			e->isolation_set = true;
	}

	if (!(m = yd_map_get(c->d, ex, "recovery"))) {
		scp_keep(&st,
			 scp_missing(c, ex, "expect", "recovery",
				     "e.g. recovery: {within: 30s, throughput_ratio: 0.8, sustain: "
				     "2s}"));
	} else if (!scp_keep(&st, yd_want_map(c->d, m, "expect.recovery"))) {
		scp_keep(&st, yd_check_keys(c->d, m, "expect.recovery", rec_keys));
		scp_keep(&st, parse_within(c, m, "expect.recovery", &e->recovery_within_ms,
					   &e->recovery_stat));
		if ((n = yd_map_get(c->d, m, "throughput_ratio")) &&
		    !scp_keep(&st, scp_get_double(c, n, "expect.recovery.throughput_ratio", &r))) {
			if (!(r > 0 && r <= 1))
				scp_keep(&st, yd_fail(c->d, n, "expect.recovery.throughput_ratio",
						      "%s is out of range; use a fraction of the "
						      "baseline above 0 and at most 1, e.g. 0.8",
						      yd_scalar(n)));
			else
				e->recovery_ratio = r;
		}
		if ((n = yd_map_get(c->d, m, "sustain")) &&
		    !scp_keep(&st, yd_get_duration(c->d, n, "expect.recovery.sustain", &v)))
			e->recovery_sustain_ms = v;
		if ((n = yd_map_get(c->d, m, "window")) &&
		    !scp_keep(&st, yd_get_duration(c->d, n, "expect.recovery.window", &v)))
			e->recovery_window_ms = v;
	}
	if ((m = yd_map_get(c->d, ex, "failback")))
		scp_keep(&st, parse_failback(c, m, e, &fb_ratio_set));
	if (!fb_ratio_set)
		e->failback_ratio = e->recovery_ratio;

	if ((m = yd_map_get(c->d, ex, "integrity")) &&
	    !scp_keep(&st, yd_want_map(c->d, m, "expect.integrity"))) {
		scp_keep(&st, yd_check_keys(c->d, m, "expect.integrity", int_keys));
		if ((n = yd_map_get(c->d, m, "lost")) &&
		    !scp_keep(&st, yd_get_uint(c->d, n, "expect.integrity.lost", 0, INT64_MAX, &v)))
			e->max_lost = (int64_t)v;
		if ((n = yd_map_get(c->d, m, "corrupted")) &&
		    !scp_keep(&st,
			      yd_get_uint(c->d, n, "expect.integrity.corrupted", 0, INT64_MAX, &v)))
			e->max_corrupted = (int64_t)v;
	}
	if ((m = yd_map_get(c->d, ex, "alerts")))
		scp_keep(&st, parse_alerts(c, m, e));
	if ((m = yd_map_get(c->d, ex, "scheduler")))
		scp_keep(&st, scp_parse_expect_scheduler(c, m));
	return st;
}
