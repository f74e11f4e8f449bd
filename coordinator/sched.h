/* SPDX-License-Identifier: MIT */
/*
 * The scheduler's view of the drill's nodes (scenario key scheduler:, docs/SLURM.md): a thread
 * polls Slurm with scontrol and turns every change of a node's state, of its drain reason and of
 * the followed job's state into events on the drill's clock, so a drill can check that the
 * cluster took the faulted node out of service in time, put it back after the repair, drained
 * no other node, and what became of the job. sched_eval() judges them, a pure function of the
 * events like coordinator/evaluate.c.
 */
#ifndef RC_SCHED_H
#define RC_SCHED_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "coordinator/evaluate.h"
#include "coordinator/scenario.h"

struct sched;

/* scontrol's answer for one poll is read up to this much; a node record is about 1 KiB. */
#define SCHED_MAX_ANSWER (1024 * 1024)
#define SCHED_RUN_MS 10000 /* a scontrol that takes longer is killed and the poll failed */
#define SCHED_MAX_QUEUE 4096

/*
 * Starts watching: one poll first, in the caller's thread, so that a scontrol that cannot be run
 * or that cannot reach slurmctld fails the drill's start with a sentence saying which and what to
 * do; then a poll every cfg->every_ms on a thread. conf: SLURM_CONF for scontrol ("" or NULL
 * keeps the coordinator's). nodes: the drill's node names. 0 with *out set, or -errno and err.
 */
int sched_start(const struct sc_scheduler *cfg, const char *conf, const struct scenario *sc,
		struct sched **out, char *err, size_t errlen);

/* Appends the events queued since the last call (t_ms on the clock that starts at t0_ns). */
unsigned int sched_drain(struct sched *s, json_t *events, uint64_t t0_ns);

/* Polls done, polls failed, events dropped (the queue was full), the last failure's sentence. */
struct sched_counts {
	unsigned int polls, failed, dropped;
	char last_error[256];
};
void sched_counts(struct sched *s, struct sched_counts *n);

void sched_stop(struct sched *s);

/*
 * Runs another of Slurm's client tools beside cfg->scontrol (tool "sbatch", "scancel"), with args
 * (an array of strings) after pre (NULL-terminated, may be NULL), SLURM_CONF=conf when conf is
 * given, bounded like a poll. Its exit status or -errno; its stdout in out; a sentence in err
 * when it is not 0.
 */
int sched_run_tool(const struct sc_scheduler *cfg, const char *conf, const char *tool,
		   const char *const *pre, const json_t *args, char *out, size_t outlen, char *err,
		   size_t errlen);

/*
 * One poll's answers, apart from scontrol, for tests and the fuzz harness: nodes_text is
 * `scontrol --oneliner show node ...`, jobs_text `scontrol --oneliner show job` (NULL: no job
 * followed). The events of what changed since the previous call on state (an object kept by the
 * caller, start with {}) are appended to out, each with "t_ns": now_ns and "after_ns": prev_ns
 * (when the change was not yet seen). names maps Slurm's node names to the drill's (missing:
 * the node is not the drill's and is ignored); job is the followed job's name.
 */
void sched_observe(json_t *state, const json_t *names, const char *job, const char *nodes_text,
		   const char *jobs_text, uint64_t prev_ns, uint64_t now_ns, json_t *out);

/*
 * Judges the scheduler's events for the drill's faults against expect.scheduler, into
 * report.json's "scheduler": {"faults": [{"fault", "node", "drained_ms" (from the inject),
 * "drain_state", "drain_reason", "drained_within_ms", "resumed_ms" (from the revert),
 * "resumed_within_ms", "ok"}], "wrongly_drained": [{"node", "t_ms", "state", "reason"}],
 * "job": {"name", "job_id", "state", "requeues", "requeued_ms" (each requeue's poll on the
 * drill's clock), "t_ms", "want", "max_requeues" (with "want"), "ok"} | null,
 * "timeline": [{"t_ms", "node" | "job", "state", "reason"}]}. A reason goes into problems for
 * each miss; returns 1 when one is not ok, else 0. end_ms is when the drill ended: the job is
 * judged by what polls saw up to then (the drill's own stop of its job comes after).
 */
int sched_eval(const json_t *events, const struct sc_expect *x, const struct ev_fault *faults,
	       unsigned int nr_faults, double end_ms, json_t **out, json_t *problems);

/* Slurm's JobState that expect.scheduler.job ("completed", "running") asks for at the end. */
const char *sched_job_state_wanted(const char *job);

#endif
