/* SPDX-License-Identifier: MIT */
/*
 * Trials of a fault: `repeat:` and random `schedule:` (docs/SCENARIOS.md)
 * expanded into one sc_fault per trial, from the run's seed, so the same seed
 * gives the same timeline and the report can say which it was.
 */
#ifndef RC_SCHEDULE_H
#define RC_SCHEDULE_H

#include <stdint.h>

#include "coordinator/scenario.h"

/*
 * Replaces each fault with repeat.count > 1 by its trials ("name#1",
 * "name#2", ...; base = name, trial, trials set on every fault, 1 of 1 for a
 * single one), sorted by start time. Then checks that no two faults on one
 * target overlap and that there are at most SC_MAX_FAULTS in all. Idempotent:
 * a scenario already expanded is left as it is. 0, or -EINVAL with
 * "FILE:LINE: faults[N].repeat: ..." in err.
 */
int sched_expand(struct scenario *sc, uint64_t seed, char *err, size_t errlen);

/*
 * How long one trial of f needs before the next may start so that its
 * recovery window is over: max(duration, recovery.within + sustain + 3
 * intervals). The default `every` of repeat: adds 2 s to it.
 */
uint64_t sched_trial_span_ms(const struct scenario *sc, const struct sc_fault *f);

/* Nearest-rank percentile (p in 0..100) of n values, sorted in place; NAN for n = 0. */
double sched_percentile(double *v, unsigned int n, double p);

#endif
