// SPDX-License-Identifier: MIT
/*
 * Judging the scheduler's view of a drill (coordinator/sched.h): each fault's node taken out of
 * service and put back in time, no other node taken out, the followed job's outcome. A pure
 * function of the drill's events.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/units.h"
#include "coordinator/sched.h"

static double sched_t(const json_t *e)
{
	return json_number_value(json_object_get(e, "t_ms"));
}

static bool sched_is(const json_t *e, const char *kind, const char *node)
{
	return !strcmp(json_string_value(json_object_get(e, "kind")) ?: "", kind) &&
	       (!node || !strcmp(json_string_value(json_object_get(e, "node")) ?: "", node));
}

/* The first event of kind on node in [from, to) (to < 0: no end), or NULL. */
static const json_t *sched_first(const json_t *events, const char *kind, const char *node,
				 double from, double to)
{
	const json_t *e;
	size_t i;

	json_array_foreach(events, i, e)
		if (sched_is(e, kind, node) && sched_t(e) >= from && (to < 0 || sched_t(e) < to))
			return e;
	return NULL;
}

static bool sched_node_faulted(const struct ev_fault *faults, unsigned int nr, const char *node)
{
	unsigned int i;

	for (i = 0; i < nr; i++)
		if (faults[i].injected_ms >= 0 && !strcmp(faults[i].node, node))
			return true;
	return false;
}

static int sched_eval_fault(const json_t *events, const struct sc_expect *x,
			    const struct ev_fault *f, double end_ms, json_t *rows, json_t *problems)
{
	const json_t *drain, *resume = NULL;
	char a[32], b[32];
	bool ok = true;
	json_t *row;

	row = json_pack("{s:s,s:s}", "fault", f->decl->name, "node", f->node);
	drain = sched_first(events, "scheduler_drain", f->node, f->injected_ms,
			    f->next_injected_ms > f->injected_ms ? f->next_injected_ms : -1);
	json_object_set_new(row, "drained_within_ms",
			    x->sched_drained_within_ms
				? json_integer((json_int_t)x->sched_drained_within_ms)
				: json_null());
	json_object_set_new(row, "resumed_within_ms",
			    x->sched_resumed_within_ms
				? json_integer((json_int_t)x->sched_resumed_within_ms)
				: json_null());
	if (drain) {
		json_object_set_new(row, "drained_ms", json_real(sched_t(drain) - f->injected_ms));
		json_object_set_new(
		    row, "drained_after_ms",
		    json_real(fmax(0, json_number_value(json_object_get(drain, "after_ms")) -
					  f->injected_ms)));
		json_object_set(row, "drain_state", json_object_get(drain, "state"));
		json_object_set(row, "drain_reason", json_object_get(drain, "reason"));
		json_object_set(row, "drain_cause", json_object_get(drain, "cause"));
		resume = sched_first(events, "scheduler_resume", f->node,
				     fmax(sched_t(drain), f->reverted_ms), -1);
	} else {
		json_object_set_new(row, "drained_ms", json_null());
	}
	if (resume && f->reverted_ms >= 0)
		json_object_set_new(row, "resumed_ms", json_real(sched_t(resume) - f->reverted_ms));
	else
		json_object_set_new(row, "resumed_ms", json_null());
	if (x->sched_drained_within_ms) {
		if (!drain) {
			ok = false;
			json_array_append_new(
			    problems,
			    json_sprintf(
				"scheduler: %s: Slurm never took %s out of service (no "
				"drain, down or not responding in the %s after the inject); "
				"drained_within is %s",
				f->decl->name, f->node,
				rc_format_ms(end_ms - f->injected_ms, a, sizeof(a)),
				rc_format_ms((double)x->sched_drained_within_ms, b, sizeof(b))));
		} else if (sched_t(drain) - f->injected_ms > (double)x->sched_drained_within_ms) {
			ok = false;
			json_array_append_new(
			    problems,
			    json_sprintf(
				"scheduler: %s: %s was drained %s after the inject, over "
				"drained_within %s",
				f->decl->name, f->node,
				rc_format_ms(sched_t(drain) - f->injected_ms, a, sizeof(a)),
				rc_format_ms((double)x->sched_drained_within_ms, b, sizeof(b))));
		}
	}
	if (x->sched_resumed_within_ms && drain) {
		if (f->reverted_ms < 0) {
			ok = false;
			json_array_append_new(problems,
					      json_sprintf("scheduler: %s: never reverted, so %s's "
							   "return to service could not be judged",
							   f->decl->name, f->node));
		} else if (!resume) {
			ok = false;
			json_array_append_new(
			    problems,
			    json_sprintf(
				"scheduler: %s: %s was still out of service at the drill's "
				"end, %s after the revert; resumed_within is %s",
				f->decl->name, f->node,
				rc_format_ms(end_ms - f->reverted_ms, a, sizeof(a)),
				rc_format_ms((double)x->sched_resumed_within_ms, b, sizeof(b))));
		} else if (sched_t(resume) - f->reverted_ms > (double)x->sched_resumed_within_ms) {
			ok = false;
			json_array_append_new(
			    problems,
			    json_sprintf(
				"scheduler: %s: %s came back %s after the revert, over "
				"resumed_within %s",
				f->decl->name, f->node,
				rc_format_ms(sched_t(resume) - f->reverted_ms, a, sizeof(a)),
				rc_format_ms((double)x->sched_resumed_within_ms, b, sizeof(b))));
		}
	}
	json_object_set_new(row, "ok", json_boolean(ok));
	json_array_append_new(rows, row);
	return ok ? 0 : 1;
}

const char *sched_job_state_wanted(const char *job)
{
	return !strcmp(job, "completed") ? "COMPLETED" : "RUNNING";
}

/*
 * The job's states as polls saw them up to end_ms, for a sentence: "RUNNING on node-a,node-b at
 * -0.6 s, PENDING at +56.3 s" (the last SCHED_JOB_SEEN of them).
 */
#define SCHED_JOB_SEEN 6
static void sched_job_seen(const json_t *events, double end_ms, char *buf, size_t len)
{
	const json_t *e, *seen[SCHED_JOB_SEEN];
	size_t i, n = 0, k, off = 0;

	json_array_foreach(events, i, e)
		if (sched_is(e, "scheduler_job", NULL) && sched_t(e) <= end_ms)
			seen[n++ % SCHED_JOB_SEEN] = e;
	buf[0] = '\0';
	for (k = n > SCHED_JOB_SEEN ? n - SCHED_JOB_SEEN : 0; k < n && off < len; k++) {
		const char *nodes;

		e = seen[k % SCHED_JOB_SEEN];
		nodes = json_string_value(json_object_get(e, "nodes")) ?: "";
		off += (size_t)snprintf(buf + off, len - off, "%s%s%s%s at %+.1f s",
					k && off ? ", " : "",
					json_string_value(json_object_get(e, "state")) ?: "?",
					*nodes ? " on " : "", nodes, sched_t(e) / 1000.0);
	}
}

/*
 * The followed job: its state when the drill ended (end_ms: the drill's own stop of its
 * workloads and its scancel come after, and are not the job's outcome), its requeues, against
 * expect.scheduler.job.
 */
static int sched_eval_job(const json_t *events, const struct sc_expect *x, double end_ms,
			  json_t *out, json_t *problems)
{
	const json_t *e, *last = NULL;
	json_t *job, *requeued_ms = json_array();
	long long requeues = 0;
	bool ok = true;
	const char *state;
	size_t i;

	json_array_foreach(events, i, e) {
		if (!sched_is(e, "scheduler_job", NULL) || sched_t(e) > end_ms)
			continue;
		last = e;
		if (json_integer_value(json_object_get(e, "restarts")) > requeues) {
			requeues = json_integer_value(json_object_get(e, "restarts"));
			json_array_append(requeued_ms, json_object_get(e, "t_ms"));
		}
	}
	if (!last && !x->sched_job[0]) {
		json_decref(requeued_ms);
		return 0;
	}
	state = last ? json_string_value(json_object_get(last, "state")) : NULL;
	job = json_pack("{s:s?,s:s?,s:s?,s:I,s:s?}", "name",
			last ? json_string_value(json_object_get(last, "name")) : NULL, "job_id",
			last ? json_string_value(json_object_get(last, "job_id")) : NULL, "state",
			state, "requeues", (json_int_t)requeues, "want",
			x->sched_job[0] ? x->sched_job : NULL);
	if (last)
		json_object_set(job, "t_ms", json_object_get(last, "t_ms"));
	json_object_set_new(job, "requeued_ms", requeued_ms);
	if (x->sched_job[0])
		json_object_set_new(job, "max_requeues", json_integer(x->sched_max_requeues));
	if (x->sched_job[0]) {
		const char *want = sched_job_state_wanted(x->sched_job);

		if (!last) {
			ok = false;
			json_array_append_new(
			    problems, json_string("scheduler: the followed job was never seen "
						  "in Slurm's queue"));
		} else if (strcmp(state, want)) {
			const char *why = json_string_value(json_object_get(last, "reason")) ?: "";
			const char *code = json_string_value(json_object_get(last, "exit_code"));
			char seen[400];

			ok = false;
			if (!strcmp(why, "None"))
				why = "";
			sched_job_seen(events, end_ms, seen, sizeof(seen));
			json_array_append_new(
			    problems,
			    json_sprintf(
				"scheduler: job %s (%s) ended the drill %s%s%s%s%s, not %s "
				"(seen: %s)",
				json_string_value(json_object_get(last, "job_id")),
				json_string_value(json_object_get(last, "name")), state,
				*why ? ", reason " : "", why,
				code && strcmp(code, "0:0") ? ", exit code " : "",
				code && strcmp(code, "0:0") ? code : "", want, seen));
		} else if (requeues > (long long)x->sched_max_requeues) {
			ok = false;
			json_array_append_new(
			    problems,
			    json_sprintf("scheduler: job %s was requeued %lld times, "
					 "over max_requeues %u",
					 json_string_value(json_object_get(last, "job_id")),
					 requeues, x->sched_max_requeues));
		}
	}
	json_object_set_new(job, "ok", json_boolean(ok));
	json_object_set_new(out, "job", job);
	return ok ? 0 : 1;
}

int sched_eval(const json_t *events, const struct sc_expect *x, const struct ev_fault *faults,
	       unsigned int nr_faults, double end_ms, json_t **out, json_t *problems)
{
	json_t *rows = json_array(), *wrong = json_array(), *timeline = json_array();
	const json_t *e;
	int bad = 0;
	unsigned int i;
	size_t k;

	*out = json_pack("{s:o,s:o,s:o,s:n}", "faults", rows, "wrongly_drained", wrong, "timeline",
			 timeline, "job");
	for (i = 0; i < nr_faults; i++)
		if (faults[i].injected_ms >= 0 && faults[i].node[0])
			bad |= sched_eval_fault(events, x, &faults[i], end_ms, rows, problems);
	json_array_foreach(events, k, e) {
		const char *kind = json_string_value(json_object_get(e, "kind")) ?: "";
		const char *node = json_string_value(json_object_get(e, "node")) ?: "";

		if (!strcmp(kind, "scheduler_node"))
			json_array_append_new(
			    timeline,
			    json_pack("{s:O,s:s,s:O,s:O,s:O}", "t_ms", json_object_get(e, "t_ms"),
				      "node", node, "state", json_object_get(e, "state"), "reason",
				      json_object_get(e, "reason"), "schedulable",
				      json_object_get(e, "schedulable")));
		else if (!strcmp(kind, "scheduler_job"))
			json_array_append_new(timeline,
					      json_pack("{s:O,s:O,s:O,s:O,s:O}", "t_ms",
							json_object_get(e, "t_ms"), "job",
							json_object_get(e, "job_id"), "state",
							json_object_get(e, "state"), "reason",
							json_object_get(e, "reason"), "nodes",
							json_object_get(e, "nodes")));
		/* precision: out of service during the drill, with no fault of it to explain it */
		if (strcmp(kind, "scheduler_drain") || sched_t(e) < 0 ||
		    sched_node_faulted(faults, nr_faults, node))
			continue;
		json_array_append_new(wrong, json_pack("{s:s,s:O,s:O,s:O}", "node", node, "t_ms",
						       json_object_get(e, "t_ms"), "state",
						       json_object_get(e, "state"), "reason",
						       json_object_get(e, "reason")));
		json_array_append_new(
		    problems,
		    json_sprintf(
			"scheduler: %s was taken out of service (%s%s%s%s) at %+.1f s, but "
			"no fault touched it: isolation must be precise",
			node, json_string_value(json_object_get(e, "state")),
			*(json_string_value(json_object_get(e, "reason")) ?: "") ? ", reason '"
										 : "",
			json_string_value(json_object_get(e, "reason")) ?: "",
			*(json_string_value(json_object_get(e, "reason")) ?: "") ? "'" : "",
			sched_t(e) / 1000.0));
		bad = 1;
	}
	bad |= sched_eval_job(events, x, end_ms, *out, problems);
	return bad;
}
