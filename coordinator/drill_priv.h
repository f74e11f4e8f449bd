/* SPDX-License-Identifier: MIT */
/*
 * The drill engine's state, shared by the engine (drill.c) and the report
 * assembly (drill_report.c) only.
 */
#ifndef RC_DRILL_PRIV_H
#define RC_DRILL_PRIV_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "coordinator/drill.h"
#include "coordinator/evaluate.h"
#include "coordinator/fleet.h"
#include "coordinator/guard.h"
#include "coordinator/scenario.h"

struct drill_fault {
	struct ev_fault ev;
	bool inject_tried, injected, reverted, revert_verified;
	char error[256];
	json_t *inject_result; /* agent's answer */
	struct ev_fault_result result;
};

/* A stream the drill runs: its own workload (flows[0]) or a guard's flow. */
struct drill_flow {
	const struct sc_workload *w;
	char wl_id[16];	  /* EV_WL_DRILL, or "guard-N" */
	int guard;	  /* index of the guard it feeds, -1 for the drill's workload */
	bool started[2];  /* server, client */
	double last_mbps; /* last client sample */
	double baseline_mbps;
};

struct drill {
	const struct drill_opts *o;
	struct scenario sc;
	struct fleet fl;
	json_t *lab;
	bool lab_started_here;
	bool set_up; /* drill_setup() went through: fleet, guards and alerts to free */
	char run_dir[4096];
	uint64_t started_wall_ns;
	struct drill_fault faults[SC_MAX_FAULTS];
	struct ev_baseline baseline;
	bool baseline_done;
	struct drill_flow flows[1 + SC_MAX_GUARDS];
	unsigned int nr_flows;
	json_t *reasons; /* extra reasons from the engine (inconclusive causes) */
	json_t *cleanup; /* actions */
	bool cleanup_ok;
	bool inconclusive;
	double end_ms;
	double last_progress_ms;
	double last_mbps;
	int last_rail;
	struct guard_state guards[SC_MAX_GUARDS];
	int aborted_by; /* index of the guard that stopped the drill, -1 if none */
	double last_renew_ms;
	unsigned int renews_sent, renews_failed;
	/* the Alertmanager webhook receiver (coordinator/alerts.c), when alerts are in play */
	struct alerts *alerts;
	char receiver[64];
	double end_ms_plain;  /* the end without waiting for alerts to resolve */
	json_t *alert_report; /* report.json "alerts" */
};

/* The report.json document (docs/REPORT.md) of a finished drill. */
json_t *drill_report(struct drill *d, enum ev_verdict v, json_t *reasons,
		     const struct ev_integrity *in, uint64_t t0_wall_ns);

#endif
