// SPDX-License-Identifier: MIT
/*
 * The drill's part of the scheduler watcher (coordinator/sched.h): started with the drill when the
 * scenario has scheduler:, its events taken into the drill's on every turn of the loop and
 * printed, its judgement at the end.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "common/slurm.h"
#include "common/units.h"
#include "coordinator/drill_priv.h"
#include "coordinator/progress.h"
#include "coordinator/sched.h"

/* scheduler.slurm.submit: the drill's own job, sbatch --parsable -J JOB ARGS... */
static int drill_sched_submit(struct drill *d)
{
	const struct sc_scheduler *cfg = &d->sc.scheduler;
	const char *pre[] = {"--parsable", "-J", cfg->job, NULL};
	char out[256], err[600];
	size_t n;
	int ret;

	ret = sched_run_tool(cfg, d->sched_conf, "sbatch", pre, cfg->submit, out, sizeof(out), err,
			     sizeof(err));
	n = strspn(out, "0123456789");
	if (ret || !n || n >= sizeof(d->sched_job_id)) {
		drill_reason(d, true, "scheduler: the drill's job %s could not be submitted: %s",
			     cfg->job, ret ? err : "sbatch --parsable printed no job id");
		return ret ?: -EPROTO;
	}
	memcpy(d->sched_job_id, out, n);
	d->sched_job_id[n] = '\0';
	prog_event("rdmachaos: submitted Slurm job %s (%s); it is cancelled at the drill's end",
		   d->sched_job_id, cfg->job);
	return 0;
}

/*
 * The drill's own job must be running before the workload starts: one still pending when the
 * faults come (the previous drill's job still holding its nodes, say) is not the drill that was
 * declared. Slurm is asked once a second for up to DRILL_SCHED_START_MS; past it, or when the
 * job ended first, the drill ends inconclusive, naming the job's state and Slurm's reason.
 */
#define DRILL_SCHED_START_MS 120000
static int drill_sched_await_running(struct drill *d)
{
	const char *pre[] = {"--oneliner", "show", "job", d->sched_job_id, NULL};
	const struct timespec second = {1, 0};
	char out[4096], err[600] = "", state[64] = "", reason[128] = "";
	uint64_t t0 = rc_now_ns();
	bool said = false;

	for (;;) {
		if (!sched_run_tool(&d->sc.scheduler, d->sched_conf, "scontrol", pre, NULL, out,
				    sizeof(out), err, sizeof(err))) {
			slurm_field(out, strlen(out), "JobState", state, sizeof(state));
			slurm_field(out, strlen(out), "Reason", reason, sizeof(reason));
			if (!strcmp(reason, "None"))
				reason[0] = '\0';
			if (!strcmp(state, "RUNNING"))
				break;
			if (strcmp(state, "PENDING") && strcmp(state, "CONFIGURING")) {
				drill_reason(d, true,
					     "scheduler: the drill's job %s (%s) ended before the "
					     "drill began: %s, reason %s",
					     d->sched_job_id, d->sc.scheduler.job, state,
					     reason[0] ? reason : "none given");
				return -ECANCELED;
			}
		}
		if (drill_stop_requested)
			return -EINTR;
		if (rc_now_ns() - t0 > DRILL_SCHED_START_MS * RC_NSEC_PER_MSEC) {
			drill_reason(
			    d, true,
			    "scheduler: the drill's job %s (%s) was not running %d s after "
			    "its submission (%s, reason %s): its faults would not have met "
			    "it",
			    d->sched_job_id, d->sc.scheduler.job, DRILL_SCHED_START_MS / 1000,
			    state[0] ? state : "unknown",
			    reason[0] ? reason
			    : err[0]  ? err
				      : "none given");
			return -ETIMEDOUT;
		}
		if (!said)
			prog_event("rdmachaos: waiting for Slurm job %s to start (%s, reason %s)",
				   d->sched_job_id, state[0] ? state : "unknown",
				   reason[0] ? reason : "none given");
		said = true;
		nanosleep(&second, NULL);
	}
	if (said)
		prog_event("rdmachaos: Slurm job %s running after %.1f s", d->sched_job_id,
			   (double)(rc_now_ns() - t0) / 1e9);
	return 0;
}

/* The drill's own job never outlives it: scancel, recorded with the cleanup. */
void drill_sched_cleanup(struct drill *d)
{
	const char *pre[] = {d->sched_job_id, NULL};
	char out[256], err[600], what[128];
	int ret;

	if (!d->sched_job_id[0])
		return;
	ret = sched_run_tool(&d->sc.scheduler, d->sched_conf, "scancel", pre, NULL, out,
			     sizeof(out), err, sizeof(err));
	snprintf(what, sizeof(what), "scancel %s (the drill's Slurm job %s)", d->sched_job_id,
		 d->sc.scheduler.job);
	json_array_append_new(d->cleanup, json_pack("{s:s,s:s,s:b}", "node", "slurm", "action",
						    ret ? err : what, "verified", !ret));
	if (ret)
		d->cleanup_ok = false;
	d->sched_job_id[0] = '\0';
}

int drill_sched_start(struct drill *d)
{
	const struct sc_scheduler *cfg = &d->sc.scheduler;
	const char *conf = cfg->conf[0] ? cfg->conf : NULL;
	char err[1024];
	int ret;

	if (!cfg->slurm)
		return 0;
	/* the lab (lab up --slurm) makes this host a Slurm client of its own cluster */
	if (!conf && d->lab)
		conf = json_string_value(
		    json_object_get(json_object_get(d->lab, "slurm"), "client_conf"));
	if (!conf && d->sc.lab) {
		drill_reason(d, true,
			     "scheduler: the lab has no Slurm: run rdmachaos lab down, then "
			     "rdmachaos lab up --slurm");
		return -ENOENT;
	}
	ret = sched_start(cfg, conf, &d->sc, &d->sched, err, sizeof(err));
	if (ret) {
		drill_reason(d, true, "%s", err);
		return ret;
	}
	snprintf(d->sched_conf, sizeof(d->sched_conf), "%s", conf ?: "");
	prog_event("rdmachaos: watching Slurm (%s every %.1f s%s%s)", cfg->scontrol,
		   (double)cfg->every_ms / 1000.0, conf ? ", SLURM_CONF=" : "", conf ?: "");
	if (!cfg->submit)
		return 0;
	ret = drill_sched_submit(d);
	if (!ret && (ret = drill_sched_await_running(d)))
		drill_sched_cleanup(d); /* the drill ends here: its job with it */
	return ret;
}

void drill_sched_take(struct drill *d)
{
	size_t from = json_array_size(d->fl.events), i;
	const char *kind, *node, *reason;
	json_t *e;

	if (!sched_drain(d->sched, d->fl.events, d->fl.t0_ns) || d->o->quiet)
		return;
	for (i = from; i < json_array_size(d->fl.events); i++) {
		e = json_array_get(d->fl.events, i);
		kind = json_string_value(json_object_get(e, "kind"));
		node = json_string_value(json_object_get(e, "node"));
		reason = json_string_value(json_object_get(e, "reason")) ?: "";
		if (!strcmp(kind, "scheduler_drain") || !strcmp(kind, "scheduler_resume"))
			prog_event("  %+8.1fs slurm: %s %s (%s%s%s)",
				   json_number_value(json_object_get(e, "t_ms")) / 1000.0, node,
				   kind[10] == 'd' ? "out of service" : "back in service",
				   json_string_value(json_object_get(e, "state")),
				   reason[0] ? ": " : "", reason);
		else if (!strcmp(kind, "scheduler_job"))
			prog_event("  %+8.1fs slurm: job %s (%s) %s%s%s",
				   json_number_value(json_object_get(e, "t_ms")) / 1000.0,
				   json_string_value(json_object_get(e, "job_id")),
				   json_string_value(json_object_get(e, "name")),
				   json_string_value(json_object_get(e, "state")),
				   *json_string_value(json_object_get(e, "nodes")) ? " on " : "",
				   json_string_value(json_object_get(e, "nodes")));
	}
}

/* expect.scheduler's windows: the drill waits for them (sched_settled() may end it sooner). */
double drill_sched_end_ms(const struct drill *d, double end_ms)
{
	const struct sc_expect *x = &d->sc.expect;
	unsigned int i;

	for (i = 0; i < d->sc.nr_faults; i++) {
		const struct sc_fault *sf = &d->sc.faults[i];

		if (x->sched_drained_within_ms)
			end_ms =
			    fmax(end_ms, (double)(sf->at_ms + x->sched_drained_within_ms) + 1000);
		if (x->sched_resumed_within_ms)
			end_ms = fmax(end_ms, (double)(sf->at_ms + sf->duration_ms +
						       x->sched_resumed_within_ms) +
						  1000);
	}
	return end_ms;
}

/*
 * Every injected fault's node was taken out of service and is back, and the followed job (with
 * expect.scheduler.job) is in the state the drill wants at its end: nothing left to wait for.
 */
bool drill_sched_settled(struct drill *d)
{
	const char *want = d->sc.expect.sched_job, *state;
	json_t *rep = NULL, *probs = json_array(), *row;
	struct ev_fault evs[SC_MAX_FAULTS];
	bool settled = true;
	unsigned int i;
	size_t k;

	if (!d->sched) {
		json_decref(probs);
		return true;
	}
	drill_fault_evs(d, evs);
	for (i = 0; i < d->sc.nr_faults; i++)
		if (!d->faults[i].reverted)
			settled = false;
	sched_eval(d->fl.events, &d->sc.expect, evs, d->sc.nr_faults, drill_now_ms(d), &rep, probs);
	json_array_foreach(json_object_get(rep, "faults"), k, row)
		if (json_is_null(json_object_get(row, "drained_ms")) ||
		    (d->sc.expect.sched_resumed_within_ms &&
		     json_is_null(json_object_get(row, "resumed_ms"))))
			settled = false;
	if (want[0]) {
		state = json_string_value(json_object_get(json_object_get(rep, "job"), "state"));
		if (!state || strcmp(state, sched_job_state_wanted(want)))
			settled = false;
	}
	json_decref(rep);
	json_decref(probs);
	return settled;
}

/* The judgement into d->sched_report; its problems into *problems (an array) when any. */
void drill_sched_judge(struct drill *d, double end_ms, json_t **problems)
{
	struct ev_fault evs[SC_MAX_FAULTS];
	struct sched_counts n;
	json_t *probs;

	*problems = NULL;
	if (!d->sched)
		return;
	drill_sched_take(d);
	probs = json_array();
	drill_fault_evs(d, evs);
	if (sched_eval(d->fl.events, &d->sc.expect, evs, d->sc.nr_faults, end_ms, &d->sched_report,
		       probs))
		*problems = probs;
	else
		json_decref(probs);
	sched_counts(d->sched, &n);
	json_object_set_new(d->sched_report, "polls",
			    json_pack("{s:i,s:i,s:i,s:s?}", "done", (int)n.polls, "failed",
				      (int)n.failed, "dropped", (int)n.dropped, "last_error",
				      n.last_error[0] ? n.last_error : NULL));
	json_object_set_new(d->sched_report, "every_ms",
			    json_integer((json_int_t)d->sc.scheduler.every_ms));
	if (n.failed)
		drill_reason(d, true,
			     "scheduler: %u of %u polls of Slurm failed (last: %s); its timeline "
			     "has gaps",
			     n.failed, n.polls, n.last_error);
}

void drill_sched_free(struct drill *d)
{
	sched_stop(d->sched);
	d->sched = NULL;
	json_decref(d->sched_report);
	d->sched_report = NULL;
}
