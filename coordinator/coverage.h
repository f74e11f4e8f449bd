/* SPDX-License-Identifier: MIT */
/*
 * Alert coverage: for each fault and each alert the scenario expects of it
 * (expect.alerts), whether the notification reached the coordinator's
 * receiver in time (fired / late / missed) and whether it resolved in time
 * after the revert; alerts nobody expected are listed as noise. A pure
 * function of the drill's events, like evaluate.c.
 */
#ifndef RC_COVERAGE_H
#define RC_COVERAGE_H

#include <jansson.h>

#include "coordinator/evaluate.h"

/*
 * report.json's "alerts": {"coverage": [{"fault", "alert", "status":
 * "fired"|"late"|"missed", "fired_ms", "fire_within_ms", "resolve": "resolved"|
 * "late"|"unresolved"|"not_checked", "resolved_ms", "resolve_within_ms", "ok"}],
 * "unexpected": [{"alert", "first_ms", "notifications", "labels"}]}.
 * fired_ms counts from the injection, resolved_ms from the revert. A reason
 * is appended to problems for every coverage row not ok; returns 1 when one
 * is not ok, else 0.
 */
int cov_alerts(const json_t *events, const struct sc_expect *x, const struct ev_fault *faults,
	       unsigned int nr_faults, json_t **out, json_t *problems);

#endif
