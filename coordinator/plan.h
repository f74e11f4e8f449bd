/* SPDX-License-Identifier: MIT */
/*
 * Plan-time checks and the printed plan. Everything here runs before any
 * agent is contacted: a drill that fails these checks touches nothing.
 */
#ifndef RC_PLAN_H
#define RC_PLAN_H

#include <stdint.h>
#include <stdio.h>

#include "coordinator/drill.h"
#include "coordinator/scenario.h"

/*
 * Validates every fault's parameters with its injector's own validate() (the
 * same code the agent runs) and gives each port_flap without a seed one
 * derived from the run's seed, so a run is reproducible from its report.
 * Then checks the blast radius (safety.blast_radius) at every moment a fault
 * starts. -EINVAL with "FILE:LINE: key: ..." in err.
 */
int plan_check(struct scenario *sc, uint64_t seed, char *err, size_t errlen);

/* The plan, for --dry-run: nodes, workload, timeline, thresholds, reverts. */
void plan_print(FILE *f, const struct scenario *sc, const struct drill_opts *o);

#endif
