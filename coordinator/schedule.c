// SPDX-License-Identifier: MIT
/* Expands repeated and randomly scheduled faults into trials, reproducibly from the seed. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/units.h"
#include "coordinator/schedule.h"

const char *sc_stat_name(enum sc_stat s)
{
	switch (s) {
	case SC_STAT_P50:
		return "p50";
	case SC_STAT_P90:
		return "p90";
	default:
		return "max";
	}
}

/* splitmix64 (Steele, Lea, Flood 2014): seedable with any value, enough for gaps. */
static uint64_t sched_next(uint64_t *state)
{
	uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

/* Uniform in [lo, hi] (ms); the modulo bias is nil for spans of a few hours. */
static uint64_t sched_uniform(uint64_t *state, uint64_t lo, uint64_t hi)
{
	return hi <= lo ? lo : lo + sched_next(state) % (hi - lo + 1);
}

uint64_t sched_trial_span_ms(const struct scenario *sc, const struct sc_fault *f)
{
	uint64_t rec = sc->expect.recovery_within_ms + sc->expect.recovery_sustain_ms +
		       3 * sc->workload.interval_ms;

	return f->duration_ms > rec ? f->duration_ms : rec;
}

double sched_percentile(double *v, unsigned int n, double p)
{
	unsigned int i, j, rank;
	double t;

	if (!n)
		return NAN;
	/* insertion sort: a fault has at most SC_MAX_FAULTS trials */
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && v[j - 1] > v[j]; j--) {
			t = v[j];
			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	rank = (unsigned int)ceil(p / 100.0 * n);
	return v[rank ? rank - 1 : 0];
}

static bool sched_same_target(const struct sc_target *a, const struct sc_target *b)
{
	return !strcmp(a->node, b->node) && a->rail == b->rail && !strcmp(a->netdev, b->netdev) &&
	       !strcmp(a->device, b->device) && !strcmp(a->workload, b->workload);
}

static int sched_cmp_at(const void *a, const void *b)
{
	const struct sc_fault *x = a, *y = b;

	if (x->at_ms != y->at_ms)
		return x->at_ms < y->at_ms ? -1 : 1;
	/* a stable order for equal starts: declaration, then trial */
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return x->trial < y->trial ? -1 : x->trial > y->trial;
}

static int sched_check_overlaps(const struct scenario *sc, char *err, size_t errlen)
{
	char b[4][32];
	unsigned int i, j;

	for (j = 1; j < sc->nr_faults; j++) {
		const struct sc_fault *fj = &sc->faults[j];

		for (i = 0; i < j; i++) {
			const struct sc_fault *fi = &sc->faults[i];

			if (!sched_same_target(&fi->target, &fj->target) ||
			    fj->at_ms >= fi->at_ms + fi->duration_ms ||
			    fi->at_ms >= fj->at_ms + fj->duration_ms)
				continue;
			snprintf(
			    err, errlen,
			    "%s:%d: faults: \"%s\" (%s-%s) overlaps \"%s\" (%s-%s) on the same "
			    "target: space the trials further apart (repeat.every, "
			    "schedule.min_gap) or move the faults",
			    sc->file, fj->repeat.line ? fj->repeat.line : fj->line, fj->name,
			    rc_format_duration_ms(fj->at_ms, b[0], 32),
			    rc_format_duration_ms(fj->at_ms + fj->duration_ms, b[1], 32), fi->name,
			    rc_format_duration_ms(fi->at_ms, b[2], 32),
			    rc_format_duration_ms(fi->at_ms + fi->duration_ms, b[3], 32));
			return -EINVAL;
		}
	}
	return 0;
}

/*
 * A trial's name, NAME#K, is its fault_id on the agent (at most SC_NAME_LEN - 1 characters):
 * cut short, two faults whose names share their first characters (a fault's copies on nodes
 * with similar names, NAME@NODE) would have had one, so a name too long is refused.
 */
static int sched_trial_name(const struct scenario *sc, const struct sc_fault *f, unsigned int k,
			    unsigned int count, struct sc_fault *t, char *err, size_t errlen)
{
	char nm[SC_NAME_LEN + 16], last[16];
	size_t len = (size_t)snprintf(nm, sizeof(nm), "%s#%u", f->name, k);

	if (len < sizeof(t->name)) {
		memcpy(t->name, nm, len + 1);
		return 0;
	}
	snprintf(last, sizeof(last), "#%u", count);
	/* named, not indexed: after select: a fault's copies shift the faults' indices */
	snprintf(err, errlen,
		 "%s:%d: faults: the trials of %s (repeat: %u) are named %s#1 to %s%s, longer than "
		 "the %d characters a fault's name may have; shorten the name by %zu",
		 sc->file, f->line, f->name, count, f->name, f->name, last, SC_NAME_LEN - 1,
		 strlen(f->name) + strlen(last) - (SC_NAME_LEN - 1));
	return -EINVAL;
}

int sched_expand(struct scenario *sc, uint64_t seed, char *err, size_t errlen)
{
	struct sc_fault *out;
	unsigned int i, k, n = 0, total = 0;
	uint64_t state, at;

	for (i = 0; i < sc->nr_faults; i++) {
		if (sc->faults[i].trial)
			return 0; /* expanded already */
		total += sc->faults[i].repeat.count > 1 ? sc->faults[i].repeat.count : 1;
	}
	if (total > SC_MAX_FAULTS) {
		snprintf(err, errlen,
			 "%s: faults: %u trials in all (repeat, schedule); a drill holds at most "
			 "%d",
			 sc->file, total, SC_MAX_FAULTS);
		return -EINVAL;
	}
	out = calloc(SC_MAX_FAULTS, sizeof(*out));
	if (!out) {
		snprintf(err, errlen, "%s: out of memory", sc->file);
		return -ENOMEM;
	}
	for (i = 0; i < sc->nr_faults; i++) {
		struct sc_fault *f = &sc->faults[i];
		unsigned int count = f->repeat.count > 1 ? f->repeat.count : 1;
		uint64_t every = f->repeat.every_ms ?: sched_trial_span_ms(sc, f) + 2000;

		/* one stream of gaps per fault: adding a fault does not move another's */
		state = seed ^ (0x5DEECE66DULL * (i + 1));
		at = f->at_ms;
		for (k = 0; k < count; k++) {
			struct sc_fault *t = &out[n++];

			*t = *f;
			memcpy(t->base, f->name, sizeof(t->base));
			t->trial = k + 1;
			t->trials = count;
			t->at_ms = at;
			if (count > 1 && sched_trial_name(sc, f, k + 1, count, t, err, errlen)) {
				/* the trials before this one that took a reference give it back */
				while (--n)
					if (out[n - 1].trial > 1)
						json_decref(out[n - 1].params);
				free(out);
				return -EINVAL;
			}
			/* each trial owns a reference: scenario_free() drops one per fault */
			if (k)
				json_incref(t->params);
			if (f->repeat.random)
				at += f->duration_ms + sched_uniform(&state, f->repeat.min_gap_ms,
								     f->repeat.max_gap_ms);
			else
				at += every;
		}
	}
	qsort(out, n, sizeof(*out), sched_cmp_at);
	memcpy(sc->faults, out, n * sizeof(*out));
	sc->nr_faults = n;
	free(out);
	return sched_check_overlaps(sc, err, errlen);
}
