/* SPDX-License-Identifier: MIT */
/*
 * The drill engine's state, shared by the engine (drill.c) and the report
 * assembly (drill_report.c) only.
 */
#ifndef RC_DRILL_PRIV_H
#define RC_DRILL_PRIV_H

#include <jansson.h>
#include <regex.h>
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

#define DRILL_CALL_MS 15000
/* how long a stream's client may take to connect before the drill's clock starts anyway */
#define DRILL_CONNECT_MS 30000
/* the agents' RDMA counter sampling interval (subscribe) */
#define DRILL_COUNTERS_MS 1000
#define DRILL_WL_ID EV_WL_DRILL

/* A job as the drill's workload (coordinator/drill_job.c): its ranks and its path evidence. */
struct drill_job {
	bool started[SC_JOB_MAX_RANKS];
	bool exited[SC_JOB_MAX_RANKS];
	int exit_status[SC_JOB_MAX_RANKS];
	double exit_ms[SC_JOB_MAX_RANKS];
	bool time_limit[SC_JOB_MAX_RANKS]; /* the agent stopped it at its time limit */
	int pid[SC_JOB_MAX_RANKS];	   /* the rank's current process (the agent's answer) */
	bool stopping[SC_JOB_MAX_RANKS];   /* a restart is stopping it: its exit is no failure */
	bool t0_set;			   /* the drill's clock started with the last rank */
	bool t0_early;			   /* ...or, until then, with the job's start */
	/* restarts (drill_job_restart.c): [{rank, node, exit_status, exit_ms, restart_ms, up_ms}]
	 */
	json_t *restarts;
	double restart_at_ms; /* the next restart is due then; -1 none */
	int restart_rank;     /* the rank a restart waits to say ready; -1 none */
	size_t restart_seen;  /* events looked at for its ready line */
	size_t restart_from;  /* the events since that rank's start */
	double restart_deadline_ms;
	/* start_tries: the try of the start in progress (the first, or a restart's), and every try
	 * that failed, [{rank, node, exit_status, t_ms, try}] */
	unsigned int start_try;
	json_t *start_failures;
	bool starting;	/* the drill's first start is running: its exits are the start's to judge */
	double stop_ms; /* when the drill started stopping it; -1 before */
	double last_tp_ms; /* the last throughput sample's time; -1 before the first */
	double last_iv_ms; /* the interval the last sample covered: the job's cadence */
	/* throughput.counter (drill_job_counter.c): per job rail, the time of the last sample of
	 * the counter on that rail's port; -1 before the first */
	double ctr_last_ms[SC_MAX_RAILS];
	bool path_at[3];  /* job_path asked at the baseline's start, its end, the drill's end */
	json_t *path;	  /* [{when, node, result | error}] */
	json_t *report;	  /* report.json "job", once judged */
	json_t *commands; /* each rank's argv as started (templates filled in) */
	char tag[64];	  /* RDMACHAOS_JOB in each rank's environment: job_path finds it by that */
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
	bool have_sample;      /* the drill's workload has reported a sample */
	double last_sample_ms; /* when its last one ended */
	struct guard_state guards[SC_MAX_GUARDS];
	int aborted_by; /* index of the guard that stopped the drill, -1 if none */
	double last_renew_ms;
	unsigned int renews_sent, renews_failed;
	/* the Alertmanager webhook receiver (coordinator/alerts.c), when alerts are in play */
	struct alerts *alerts;
	char receiver[64];
	double end_ms_plain;	/* the end without waiting for alerts to resolve */
	double settle_check_ms; /* the next look at whether those waits are settled (once a second:
				 * each look judges every event so far) */
	/* both as planned, before a late injection moved them (drill_shift_end) */
	double end_ms_planned, end_ms_plain_planned;
	json_t *alert_report; /* report.json "alerts" */
	struct drill_job job;
	/* the scheduler watcher (coordinator/sched.h), when the scenario has scheduler: */
	struct sched *sched;
	json_t *sched_report;  /* report.json "scheduler" */
	char sched_conf[512];  /* SLURM_CONF the watcher uses; "" scontrol's own */
	char sched_job_id[32]; /* the drill's own job (scheduler.slurm.submit), to cancel */
	/* when the drill began to stop its workloads: the followed job is judged by what Slurm
	 * showed until then (-1: not yet) */
	double sched_end_ms;
};

/* drill.c, for drill_job.c */
double drill_now_ms(const struct drill *d);
/* The drill's faults as carried out so far, into evs[0 .. sc.nr_faults) for the evaluators. */
void drill_fault_evs(const struct drill *d, struct ev_fault *evs);
/* The flow an event of a workload belongs to, or NULL. */
struct drill_flow *drill_flow_of(struct drill *d, const json_t *ev);
/* drill_lines.c: the progress line of one notable event (t in seconds) */
void drill_print_line(struct drill *d, json_t *ev, const char *kind, const char *node, double t,
		      const char *type);
typedef bool (*drill_event_match_fn)(json_t *ev, void *arg);
/* from: the index in the drill's events of the first event to look at */
int drill_await_event(struct drill *d, size_t from, uint64_t timeout_ms, drill_event_match_fn match,
		      void *arg, json_t **found);
#define DRILL_CLOCK_SAMPLES 8 /* `time` exchanges per agent and alignment */

/*
 * How far before another node's event an event may be placed when the two happened in that
 * order: each node's events are placed by its own alignment, so twice the worst uncertainty.
 */
double drill_clock_slack_ms(const struct drill *d);
/* Aligns the clocks again at the drill's end: a node whose clock drifted makes it inconclusive. */
void drill_check_clocks(struct drill *d);
void drill_reason(struct drill *d, bool inconclusive, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int drill_rail_addr(struct drill *d, const char *node, int rail, char *buf, size_t len);
void drill_workload_needs(struct drill *d, const char *node, json_t *req);
const char *drill_device_of(struct drill *d, const char *node, const char *netdev);

/* drill_job.c: a job as the drill's workload (docs/SCENARIOS.md, "Jobs") */
int drill_job_start(struct drill *d, struct drill_flow *f);
int drill_job_start_rank(struct drill *d, struct drill_flow *f, unsigned int i, char *err,
			 size_t errlen);
void drill_job_stop_rank(struct drill *d, struct drill_flow *f, unsigned int i);
/* ev is the node's rank's line matching re (1), the exit of its process pid (-1), or neither (0) */
int drill_job_ready_event(const json_t *ev, const char *node, int pid, const regex_t *re);
/*
 * "; its last lines: 'A' | 'B'": the last (up to 3) lines the job printed on node from event
 * index from on, for a reason that says why a rank ended; "" when it printed none. A buffer of
 * DRILL_JOB_SAID_LEN holds all three.
 */
#define DRILL_JOB_SAID_LEN 512
void drill_job_last_lines(const struct drill *d, const char *node, size_t from, char *buf,
			  size_t len);
/*
 * Rank i of a start exited (status) before its ready line: the try is recorded; with tries left
 * (start_tries) every rank is stopped and true returned, to start again from rank 0.
 */
bool drill_job_start_failed(struct drill *d, struct drill_flow *f, unsigned int i, int status);
/* drill_job_restart.c: a rank's process exited by itself; a restart is due when allowed */
void drill_job_exited(struct drill *d, unsigned int rank);
/* runs a due restart, one step a call: stop what is left, start the ranks in order */
void drill_job_restart_tick(struct drill *d, double now_ms);
void drill_job_stop(struct drill *d, struct drill_flow *f);
/* A job's event in the stream's terms (interval, error), or NULL; a new reference. */
json_t *drill_job_map(struct drill *d, const json_t *ev);
/* drill_job_counter.c: throughput.counter's samples from a counter event (NULL: not the job's
 * counter), and at the drill's end, the samples of 0 since the counter last moved */
json_t *drill_job_counter(struct drill *d, const json_t *ev);
json_t *drill_job_counter_end(struct drill *d, double now_ms);
/* The time of the job's last throughput sample above 0 up to until_ms; -1 none. */
double drill_job_last_progress_ms(const struct drill *d, double until_ms);
/* During the timeline: the path evidence at the baseline's start and end. */
void drill_job_tick(struct drill *d, double now_ms);
/* Its outcome and its RDMA path judged: failures into problems, d->job.report set. */
void drill_job_judge(struct drill *d, json_t *problems);
/* Before the job is stopped: its path evidence once more. */
void drill_job_end(struct drill *d);
void drill_job_free(struct drill *d);

/* The report.json document (docs/REPORT.md) of a finished drill. */
json_t *drill_report(struct drill *d, enum ev_verdict v, json_t *reasons,
		     const struct ev_integrity *in, uint64_t t0_wall_ns);

/* drill_sched.c: the scheduler watcher's part in the drill */
int drill_sched_start(struct drill *d);
void drill_sched_take(struct drill *d);
double drill_sched_end_ms(const struct drill *d, double end_ms);
bool drill_sched_settled(struct drill *d);
void drill_sched_judge(struct drill *d, double end_ms, json_t **problems);
void drill_sched_cleanup(struct drill *d);
void drill_sched_free(struct drill *d);

#endif
