/* SPDX-License-Identifier: MIT */
/*
 * From a drill's aligned event stream to measured times and a verdict. Pure
 * functions over JSON events, so recorded streams (tests/data, one JSON event a line) test
 * them byte for byte.
 *
 * Events are the `events.jsonl` objects: each has "t_ms" (double, coordinator
 * clock, relative to the drill's t0 = workload start), "node", "kind" and the
 * fields of docs/PROTOCOL.md.
 */
#ifndef RC_EVALUATE_H
#define RC_EVALUATE_H

#include <jansson.h>
#include <stdbool.h>

#include "coordinator/scenario.h"

/* One fault as it was carried out. */
struct ev_fault {
	const struct sc_fault *decl;
	char node[SC_NAME_LEN];
	char netdev[32];	 /* resolved on the node */
	char device[64];	 /* RDMA device on that netdev, "" if none */
	int rail;		 /* -1 if not a rail */
	double injected_ms;	 /* < 0: never injected */
	double reverted_ms;	 /* < 0: not reverted */
	double next_injected_ms; /* the drill's next injection after this one's; < 0: none */
	double early_ms;	 /* another node's event placed up to this long before injected_ms
				  * may have followed it (the clocks' uncertainty): it counts, at 0 ms */
};

struct ev_measure {
	bool seen;
	double ms;	 /* from injection */
	char signal[32]; /* which signal or "throughput" */
	double threshold_ms;
	bool ok;
	char note[160];	   /* why not ok, or how it was measured */
	bool inconclusive; /* could not be judged (no baseline, not injected, drill too short):
			    * not ok, but not a violation either */
};

/*
 * The disruption a revert (and the failback it causes) brings: from the later
 * of the revert and the recovery, over expect.failback.window, the time the
 * smoothed throughput spent below failback_ratio of the baseline.
 */
struct ev_failback {
	bool measured;	       /* the window held samples */
	double from_ms, to_ms; /* the window on the drill's clock */
	double outage_ms;      /* time below the threshold in it */
	double min_ratio;      /* lowest smoothed throughput / baseline in it (0 in a hole) */
	double failback_ms;    /* revert to the workload's `failback` event; < 0: none */
	int failback_to_rail;  /* that event's to_rail; -1: none */
	double threshold_ms;   /* expect.failback.max_outage; < 0: not bounded */
	bool ok;
	bool inconclusive; /* bounded but not measurable */
	char note[160];
};

struct ev_fault_result {
	struct ev_measure detection, isolation, recovery;
	struct ev_failback failback;
	bool isolation_checked;
	bool ok;
};

struct ev_baseline {
	double throughput_mbps; /* mean of client intervals in the baseline window */
	double latency_us_p50;	/* median of the intervals' p50 */
	unsigned int samples;
	double from_ms, to_ms; /* the window ev_baseline() was asked for, for messages */
};

struct ev_integrity {
	long long sent, received, lost, duplicated, corrupted;
	bool known; /* both summaries present */
};

enum ev_verdict { EV_PASS, EV_FAIL, EV_INCONCLUSIVE, EV_CLEANUP_FAILED };
const char *ev_verdict_name(enum ev_verdict v); /* "pass", "fail", ... */
int ev_verdict_exit_code(enum ev_verdict v);	/* 0, 1, 2, 3 */

/* The wl_id of the drill's own workload; guard flows have others. */
#define EV_WL_DRILL "stream"

/*
 * Baseline from the drill's workload's client `interval` events with t_ms in
 * [from_ms, to_ms); ev_baseline_of() does the same for workload wl_id.
 */
int ev_baseline(const json_t *events, double from_ms, double to_ms, struct ev_baseline *b);
int ev_baseline_of(const json_t *events, const char *wl_id, double from_ms, double to_ms,
		   struct ev_baseline *b);

/*
 * Detection: first event after injection matching one of expect->signals and
 * the fault's node/netdev/device/rail. Isolation: first workload `rail_down`
 * or `failover` off the fault's rail. Recovery: see docs/SCENARIOS.md
 * ("How times are measured").
 */
void ev_evaluate_fault(const json_t *events, const struct sc_expect *expect,
		       const struct ev_baseline *b, const struct ev_fault *f,
		       struct ev_fault_result *r);

/* report.json's faults[].failback. */
json_t *ev_failback_json(const struct ev_failback *fb);

/* Integrity from the client and server `summary` workload events. */
void ev_integrity(const json_t *events, struct ev_integrity *in);

/*
 * The verdict, with reasons appended to `reasons` (a JSON array of strings).
 * inconclusive: no baseline, a fault not injected, missing summaries;
 * fail: any threshold or integrity bound violated; cleanup_failed overrides all.
 */
enum ev_verdict ev_verdict(const struct sc_expect *expect, const struct ev_baseline *b,
			   const struct ev_fault_result *results, const struct ev_fault *faults,
			   unsigned int nr_faults, const struct ev_integrity *in,
			   bool cleanup_verified, json_t *reasons);

/* What happened around a drill's measurements, for ev_drill_verdict(). */
struct ev_drill_outcome {
	const json_t *own_reasons; /* the drill's own reasons (a node lost, ...), borrowed */
	const json_t
	    *alert_problems;	    /* missed or late alerts, when they fail the drill; else NULL */
	const json_t *job_problems; /* a job's outcome or RDMA path not met; else NULL */
	const json_t *sched_problems; /* expect.scheduler not met, a node drained wrongly; else
					 NULL */
	bool aborted;		      /* an abort guard tripped */
	bool inconclusive;	      /* part of the evidence is missing */
	bool stop_requested;	      /* the operator stopped the drill (Ctrl-C) */
};

/*
 * A drill's whole verdict from what ev_verdict() measured (its reasons, after o->own_reasons,
 * already in reasons), in this order: a failed cleanup stays CLEANUP_FAILED; missed or late
 * alerts fail it (when that turns a pass into a fail, the reasons why it passed give way to
 * o->own_reasons, and the alerts' problems are appended); a tripped guard fails it (a floor
 * the system broke, whatever else was measured); missing evidence turns a pass, and the fail of a
 * drill the operator stopped, into INCONCLUSIVE.
 */
enum ev_verdict ev_drill_verdict(enum ev_verdict measured, const struct ev_drill_outcome *o,
				 json_t *reasons);

json_t *ev_measure_json(const struct ev_measure *m);

/* ---- trials of a repeated fault (repeat:, schedule:) -------------------- */

enum ev_phase { EV_PH_DETECTION, EV_PH_ISOLATION, EV_PH_RECOVERY, EV_PH__COUNT };
const char *ev_phase_name(enum ev_phase p); /* "detection", ... */

struct ev_trial_stat {
	enum sc_stat stat;    /* the one the threshold holds for */
	unsigned int trials;  /* of the fault */
	unsigned int n;	      /* judged: injected and judgeable */
	unsigned int seen;    /* of n, measured within the window (the rest count as infinite) */
	double p50, p90, max; /* nearest rank over the n; INFINITY when one was not seen */
	double value;	      /* the stat's */
	double threshold_ms;
	bool ok;
};

/* True when a trial's measure is judged on its own, not through its fault's p50/p90. */
bool ev_judged_alone(const struct sc_expect *x, const struct ev_fault *f, enum ev_phase p);

/*
 * The distribution of phase p over the trials of the fault named base. 0, or
 * -ENODATA when no trial could be judged. ev_verdict() judges a threshold
 * stated on p50 or p90 with it instead of trial by trial.
 */
int ev_trial_stats(const struct sc_expect *x, const struct ev_fault_result *results,
		   const struct ev_fault *faults, unsigned int nr_faults, const char *base,
		   enum ev_phase p, struct ev_trial_stat *st);

#endif
