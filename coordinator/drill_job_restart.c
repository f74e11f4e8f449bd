// SPDX-License-Identifier: MIT
/*
 * Restarts of a job the drill runs (restarts: {max, after}; docs/SCENARIOS.md, "Jobs"): what a
 * scheduler or torchrun's elastic agent does when a job dies under a fault. A rank whose process
 * exits by itself before the drill stops it makes a restart due `after` later, while the drill
 * has restarts left; the restart stops what is left of the job and starts every rank again, in
 * order, each waiting for its ready line as at the start, and tried again as at the start when
 * a rank exits before its ready line (start_tries).
 *
 * The drill's loop must keep renewing leases and reverting faults meanwhile, so a restart never
 * blocks on a ready line: drill_job_restart_tick() takes one step a call and returns. The stops
 * and starts are agent calls (a workload_stop answers once the process is gone, within the job's
 * stop_grace).
 */
#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <string.h>

#include "coordinator/drill_priv.h"
#include "coordinator/progress.h"

void drill_job_exited(struct drill *d, unsigned int rank)
{
	const struct sc_job *j = d->sc.workload.job;
	size_t done = json_array_size(d->job.restarts);

	/*
	 * stopped by the drill, a restart already due or under way (its start judges the exits of
	 * its ranks), or none left: the exit stands
	 */
	if (d->job.stop_ms >= 0 || d->job.restart_at_ms >= 0 || d->job.restart_rank >= 0 ||
	    done >= j->max_restarts)
		return;
	d->job.restart_at_ms = d->job.exit_ms[rank] + (double)j->restart_after_ms;
	json_array_append_new(d->job.restarts,
			      json_pack("{s:i, s:s, s:i, s:f, s:f}", "rank", (int)rank, "node",
					j->ranks[rank].node, "exit_status",
					d->job.exit_status[rank], "exit_ms", d->job.exit_ms[rank],
					"restart_ms", d->job.restart_at_ms));
	prog_event("rdmachaos: job rank %u on %s exited (status %d) at %.1f s; restart %zu of %u "
		   "at %.1f s",
		   rank, j->ranks[rank].node, d->job.exit_status[rank],
		   d->job.exit_ms[rank] / 1000.0, done + 1, j->max_restarts,
		   d->job.restart_at_ms / 1000.0);
}

/* The restart in progress: its record, the last of d->job.restarts. */
static json_t *djr_current(struct drill *d)
{
	return json_array_get(d->job.restarts, json_array_size(d->job.restarts) - 1);
}

/* Ends the restart in progress: up (the job runs again) or why not. */
static void djr_end(struct drill *d, double now_ms, const char *failed)
{
	json_t *r = djr_current(d);

	d->job.restart_rank = -1;
	if (failed) {
		json_object_set_new(r, "failed", json_string(failed));
		prog_event("rdmachaos: job restart failed: %s", failed);
		return;
	}
	json_object_set_new(r, "up_ms", json_real(now_ms));
	prog_event("rdmachaos: job restarted: every rank up again at %.1f s", now_ms / 1000.0);
}

/* Starts ranks from d->job.restart_rank on, until one has a ready line to wait for. */
static void djr_start_next(struct drill *d, double now_ms)
{
	const struct sc_job *j = d->sc.workload.job;
	struct drill_flow *f = &d->flows[0];
	char err[512], why[640];

	while (d->job.restart_rank >= 0 && (unsigned int)d->job.restart_rank < j->nr_ranks) {
		unsigned int i = (unsigned int)d->job.restart_rank;

		/* its ready line may come while the start is being answered */
		d->job.restart_seen = d->job.restart_from = json_array_size(d->fl.events);
		if (drill_job_start_rank(d, f, i, err, sizeof(err))) {
			snprintf(why, sizeof(why), "rank %u on %s did not start: %s", i,
				 j->ranks[i].node, err);
			djr_end(d, now_ms, why);
			return;
		}
		if (j->ranks[i].ready[0]) {
			d->job.restart_deadline_ms = now_ms + (double)j->ready_within_ms;
			return;
		}
		d->job.restart_rank++;
	}
	djr_end(d, now_ms, NULL);
}

/* Waits for the ready line of the rank being started, without blocking the drill. */
static void djr_await_ready(struct drill *d, double now_ms)
{
	const struct sc_job *j = d->sc.workload.job;
	unsigned int i = (unsigned int)d->job.restart_rank;
	char why[1024], said[DRILL_JOB_SAID_LEN];
	json_t *ev = NULL;
	regex_t re;
	int seen = 0, status;

	if (regcomp(&re, j->ranks[i].ready, REG_EXTENDED | REG_NOSUB))
		return; /* checked when the scenario was read */
	for (; !seen && d->job.restart_seen < json_array_size(d->fl.events);
	     d->job.restart_seen++) {
		ev = json_array_get(d->fl.events, d->job.restart_seen);
		seen = drill_job_ready_event(ev, j->ranks[i].node, d->job.pid[i], &re);
	}
	regfree(&re);
	if (seen > 0) {
		d->job.restart_rank++;
		djr_start_next(d, now_ms);
	} else if (seen < 0) {
		status = (int)json_integer_value(json_object_get(ev, "exit_status"));
		if (drill_job_start_failed(d, &d->flows[0], i, status)) {
			d->job.restart_rank = 0;
			djr_start_next(d, now_ms);
			return;
		}
		drill_job_last_lines(d, j->ranks[i].node, d->job.restart_from, said, sizeof(said));
		snprintf(why, sizeof(why),
			 "rank %u on %s exited (status %d) before it said ready (/%s/)%s%s", i,
			 j->ranks[i].node, status, j->ranks[i].ready,
			 j->start_tries > 1 ? ", at every try of start_tries" : "", said);
		djr_end(d, now_ms, why);
	} else if (now_ms > d->job.restart_deadline_ms) {
		snprintf(why, sizeof(why),
			 "rank %u on %s printed no line matching /%s/ within %.0f s", i,
			 j->ranks[i].node, j->ranks[i].ready, j->ready_within_ms / 1000.0);
		djr_end(d, now_ms, why);
	}
}

void drill_job_restart_tick(struct drill *d, double now_ms)
{
	const struct sc_job *j = d->sc.workload.job;
	unsigned int i;

	if (!j || d->job.stop_ms >= 0)
		return;
	if (d->job.restart_rank >= 0) {
		djr_await_ready(d, now_ms);
		return;
	}
	if (d->job.restart_at_ms < 0 || now_ms < d->job.restart_at_ms)
		return;
	d->job.restart_at_ms = -1;
	json_object_set_new(djr_current(d), "restart_ms", json_real(now_ms));
	prog_event("rdmachaos: job restart %zu of %u: stopping what is left, starting every rank",
		   json_array_size(d->job.restarts), j->max_restarts);
	/* the last ranks first, as at the drill's end */
	for (i = j->nr_ranks; i-- > 0;) {
		drill_job_stop_rank(d, &d->flows[0], i);
		d->job.pid[i] = -1; /* no exit of this incarnation counts any more */
	}
	/*
	 * The restarted job's first sample covers one of its own periods (the cadence before), not
	 * the silence since the last sample: that silence stays a hole, which recovery counts as
	 * an outage (ci36: a first sample stretched over it hid the outage, "recovered" in 3.3 s).
	 */
	d->job.last_tp_ms = -1;
	d->job.restart_rank = 0;
	d->job.start_try = 1;
	djr_start_next(d, now_ms);
}
