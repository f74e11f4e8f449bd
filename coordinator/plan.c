// SPDX-License-Identifier: MIT
/* Plan-time checks of a drill and the human-readable plan that --dry-run prints. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "coordinator/guard.h"
#include "coordinator/plan.h"
#include "coordinator/select.h"
#include "coordinator/schedule.h"
#include "injectors/injector.h"

/* What a fault takes out of service, for counting rails: "node/rail0". */
static void plan_reach(const struct sc_target *t, char *buf, size_t len)
{
	if (t->workload[0] && t->rail < 0)
		snprintf(buf, len, "%s/%s", t->node, t->workload); /* a process, not a rail */
	else if (t->rail >= 0)
		snprintf(buf, len, "%s/rail%d", t->node, t->rail);
	else if (t->netdev[0])
		snprintf(buf, len, "%s/%s", t->node, t->netdev);
	else
		snprintf(buf, len, "%s/%s:%d", t->node, t->device, t->port);
}

static bool plan_in_force(const struct sc_fault *f, uint64_t t)
{
	return f->at_ms <= t && (!f->duration_ms || t < f->at_ms + f->duration_ms);
}

/*
 * The blast radius at each moment a fault starts (the only moments the
 * count can grow): distinct nodes, distinct rails and the share of the fleet
 * with a fault in force. Exceeding a declared limit refuses the drill.
 */
static int plan_check_blast(const struct scenario *sc, char *err, size_t errlen)
{
	const struct sc_safety *s = &sc->safety;
	/* a drill that picked its nodes from a fleet answers for the whole fleet */
	const unsigned int fleet = sc->fleet_size ?: sc->nr_nodes;
	char reach[SC_MAX_FAULTS][160];
	unsigned int i, j, k;

	if (!s->max_nodes && !s->max_rails && !(s->max_fleet_share > 0))
		return 0;
	for (i = 0; i < sc->nr_faults; i++)
		plan_reach(&sc->faults[i].target, reach[i], sizeof(reach[i]));
	for (i = 0; i < sc->nr_faults; i++) {
		const uint64_t t = sc->faults[i].at_ms;
		unsigned int nodes = 0, rails = 0;
		char names[512] = "";
		size_t off = 0;

		for (j = 0; j < sc->nr_faults; j++) {
			bool new_node = true, new_rail = true;

			if (!plan_in_force(&sc->faults[j], t))
				continue;
			for (k = 0; k < j; k++) {
				if (!plan_in_force(&sc->faults[k], t))
					continue;
				if (!strcmp(sc->faults[k].target.node, sc->faults[j].target.node))
					new_node = false;
				if (!strcmp(reach[k], reach[j]))
					new_rail = false;
			}
			nodes += new_node;
			/* a fault on a process alone takes no rail out of service */
			rails += new_rail && !(sc->faults[j].target.workload[0] &&
					       sc->faults[j].target.rail < 0);
			if (off < sizeof(names))
				off +=
				    (size_t)snprintf(names + off, sizeof(names) - off, "%s%s (%s)",
						     off ? ", " : "", sc->faults[j].name, reach[j]);
		}
		if (s->max_nodes && nodes > s->max_nodes) {
			snprintf(
			    err, errlen,
			    "%s:%d: safety.blast_radius.max_nodes: %u nodes would be faulted at "
			    "once at %.1f s, the limit is %u: %s",
			    sc->file, s->line, nodes, t / 1000.0, s->max_nodes, names);
			return -EINVAL;
		}
		if (s->max_rails && rails > s->max_rails) {
			snprintf(
			    err, errlen,
			    "%s:%d: safety.blast_radius.max_rails: %u rails would be faulted at "
			    "once at %.1f s, the limit is %u: %s",
			    sc->file, s->line, rails, t / 1000.0, s->max_rails, names);
			return -EINVAL;
		}
		if (s->max_fleet_share > 0 && fleet &&
		    (double)nodes / fleet > s->max_fleet_share + 1e-9) {
			snprintf(
			    err, errlen,
			    "%s:%d: safety.blast_radius.max_fleet_share: %u of %u nodes "
			    "(%.0f%%) would be faulted at once at %.1f s, the limit is %.0f%%: "
			    "%s",
			    sc->file, s->line, nodes, fleet, 100.0 * nodes / fleet, t / 1000.0,
			    100 * s->max_fleet_share, names);
			return -EINVAL;
		}
	}
	return 0;
}

int plan_check(struct scenario *sc, uint64_t seed, char *err, size_t errlen)
{
	unsigned int i;
	int ret;

	/* trials first: every check below then sees each trial as the fault it is */
	ret = sched_expand(sc, seed, err, errlen);
	if (ret)
		return ret;

	for (i = 0; i < sc->nr_faults; i++) {
		struct sc_fault *f = &sc->faults[i];
		const struct injector *inj = injector_find(f->injector);
		char why[256] = "";

		if (!inj) {
			snprintf(err, errlen, "%s:%d: faults[%u].injector: unknown injector '%s'",
				 sc->file, f->line, i, f->injector);
			return -EINVAL;
		}
		if (!f->params)
			f->params = json_object();
		if ((inj->flags & INJ_SEEDED) && !json_object_get(f->params, "seed"))
			json_object_set_new(f->params, "seed",
					    json_integer((json_int_t)(seed + i)));
		if (inj->validate && inj->validate(f->params, why, sizeof(why))) {
			snprintf(err, errlen, "%s:%d: faults[%u].params: %s", sc->file, f->line, i,
				 why[0] ? why : "invalid parameters");
			return -EINVAL;
		}
	}
	return plan_check_blast(sc, err, errlen);
}

/* How a threshold holds over a repeated fault's trials; "" for every trial (max). */
static const char *plan_stat(enum sc_stat s)
{
	return s == SC_STAT_P50	  ? " (p50 of each fault's trials)"
	       : s == SC_STAT_P90 ? " (p90 of each fault's trials)"
				  : "";
}

static void plan_target(FILE *f, const struct sc_target *t)
{
	fprintf(f, "%s ", t->node);
	if (t->workload[0] && t->rail >= 0)
		fprintf(f, "workload %s (rail %d)", t->workload, t->rail);
	else if (t->workload[0])
		fprintf(f, "workload %s", t->workload);
	else if (t->rail >= 0)
		fprintf(f, "rail %d", t->rail);
	else if (t->netdev[0])
		fprintf(f, "netdev %s", t->netdev);
	else
		fprintf(f, "device %s port %d", t->device, t->port);
}

/*
 * A guard flow is meant to be a flow the faults are not aimed at. One that
 * crosses a fault's target will see that fault; say so, since the guard will
 * then trip by design (which is what the lab's guard test wants).
 */
static void plan_print_flow_overlap(FILE *f, const struct scenario *sc, unsigned int gi)
{
	const struct sc_workload *w = &sc->safety.guards[gi].flow;
	unsigned int i, r;

	for (i = 0; i < sc->nr_faults; i++) {
		const struct sc_target *t = &sc->faults[i].target;
		bool on_node = !strcmp(t->node, w->from) || !strcmp(t->node, w->to);
		bool on_rail = t->rail < 0; /* a netdev or device: its rail is not known here */

		for (r = 0; r < w->nr_rails; r++)
			on_rail |= w->rails[r] == t->rail;
		if (on_node && on_rail)
			fprintf(f,
				"             note: guard %u's flow %s fault %s's target (%s); the "
				"guard will see that fault\n",
				gi, t->rail < 0 ? "may cross" : "crosses", sc->faults[i].name,
				t->node);
	}
}

static void plan_print_safety(FILE *f, const struct scenario *sc)
{
	const struct sc_safety *s = &sc->safety;
	unsigned int i;

	fprintf(f,
		"  safety:    each fault leased for %.1f s: an agent that hears nothing from "
		"the coordinator for that long reverts it\n",
		s->lease_ms / 1000.0);
	if (s->max_nodes || s->max_rails || s->max_fleet_share > 0) {
		const char *sep = "";

		fprintf(f, "             blast radius at once: at most");
		if (s->max_nodes) {
			fprintf(f, " %u node(s)", s->max_nodes);
			sep = ",";
		}
		if (s->max_rails) {
			fprintf(f, "%s %u rail(s)", sep, s->max_rails);
			sep = ",";
		}
		if (s->max_fleet_share > 0)
			fprintf(f, "%s %.0f%% of the fleet", sep, 100 * s->max_fleet_share);
		fprintf(f, " (checked now; agents apply their own caps too)\n");
	} else {
		fprintf(f, "             blast radius: not limited by the scenario (agents still "
			   "apply their own policy)\n");
	}
	for (i = 0; i < s->nr_guards; i++) {
		const struct sc_guard *g = &s->guards[i];
		char what[256];

		if (g->kind == SC_GUARD_TCP_PROBE) {
			fprintf(f,
				"             guard %u: abort if %u TCP connect(s) in a row to %s "
				"fail (one every %.1f s)\n",
				i, g->failures, g->address, g->every_ms / 1000.0);
			continue;
		}
		guard_describe(g, what, sizeof(what));
		fprintf(f, "             guard %u: abort on %s\n", i, what);
		if (g->has_flow)
			plan_print_flow_overlap(f, sc, i);
	}
}

/* What an operator must know before a fault runs: where a mechanism is real, what it needs. */
static void plan_print_fault_notes(FILE *f, const struct scenario *sc, const struct sc_fault *ft)
{
	const struct injector *inj = injector_find(ft->injector);
	const char *mech = json_string_value(json_object_get(ft->params, "mechanism"));

	if (!strcmp(ft->injector, "pfc_storm"))
		fprintf(f, "              note: the PFC frames are real; %s\n",
			sc->lab
			    ? "in the lab the receiving agent emulates their effect (virtio-net "
			      "ignores pause frames)"
			    : "their effect is the receiving NIC's");
	if (!mech)
		return;
	if (!strcmp(ft->injector, "qp_error") && !strcmp(mech, "transport"))
		fprintf(f,
			"              note: drops RoCE packets (UDP 4791) in the kernel: real on "
			"Soft-RoCE; offloaded hardware RoCE bypasses it, so there it does "
			"nothing\n");
	if (ft->target.workload[0] && !strcmp(mech, "shim"))
		fprintf(f,
			"              note: the workload on %s starts with the verbs shim "
			"(LD_PRELOAD of librdmachaos-verbs.so)\n",
			ft->target.node);
	if (ft->target.workload[0] && !strcmp(mech, "cgroup"))
		fprintf(f,
			"              note: the workload on %s starts in its own cgroup "
			"(rdma controller)\n",
			ft->target.node);
	if (ft->target.workload[0] && !strcmp(mech, "memlock"))
		fprintf(f,
			"              note: the workload on %s starts without CAP_IPC_LOCK, so "
			"RLIMIT_MEMLOCK binds\n",
			ft->target.node);
	if (inj && (inj->flags & INJ_BITES_ON_REG) && !sc->workload.mr_churn_ms)
		fprintf(f, "              note: the workload registers memory only when it "
			   "connects; set workload.mr_churn for a failure to bite while it runs\n");
}

static void plan_stream(FILE *f, const struct sc_workload *w)
{
	unsigned int i;

	fprintf(f,
		"  workload:  %s %s -> %s, RDMA %s, %" PRIu64 " B messages, queue depth %u, "
		"rails",
		w->kind, w->from, w->to, w->op == SC_OP_WRITE ? "WRITE_WITH_IMM" : "SEND",
		w->msg_size, w->queue_depth);
	for (i = 0; i < w->nr_rails; i++)
		fprintf(f, " %d", w->rails[i]);
	fprintf(f, ", QP timeout %u (%.1f ms) retry_cnt %u, stats every %" PRIu64 " ms",
		w->qp_timeout, 4.096e-3 * (double)(1ULL << w->qp_timeout), w->qp_retry_cnt,
		w->interval_ms);
	if (w->rate)
		fprintf(f, ", paced at %g MB/s", (double)w->rate / 1e6);
	if (w->busy_poll_ms)
		fprintf(f, ", client busy-polls up to %" PRIu64 " ms", w->busy_poll_ms);
	fputc('\n', f);
}

/* A job: its ranks in start order, with the rules it is judged by. */
static void plan_job(FILE *f, const struct sc_workload *w)
{
	static const char *const outcome[] = {
	    [SC_JOB_ANY] = "reported, not judged",
	    [SC_JOB_SUCCEED] = "every rank must exit 0",
	    [SC_JOB_SURVIVE] = "every rank must still run at the end",
	};
	const struct sc_job *j = w->job;
	unsigned int i;
	size_t k;

	fprintf(f, "  workload:  job, %u %s%s, on rails", j->nr_ranks,
		j->launcher ? "launcher" : "rank", j->nr_ranks == 1 ? "" : "s");
	for (i = 0; i < w->nr_rails; i++)
		fprintf(f, " %d", w->rails[i]);
	fputc('\n', f);
	for (i = 0; i < j->nr_ranks; i++) {
		fprintf(f, "    %s %u on %s:", j->launcher ? "launcher" : "rank", i,
			j->ranks[i].node);
		for (k = 0; k < json_array_size(j->ranks[i].argv); k++)
			fprintf(f, " %s", json_string_value(json_array_get(j->ranks[i].argv, k)));
		fputc('\n', f);
		if (j->ranks[i].ready[0])
			fprintf(f, "      ready when a line matches /%s/ (within %.0f s)\n",
				j->ranks[i].ready, j->ready_within_ms / 1000.0);
	}
	if (j->cpu_pct)
		fprintf(f, "    cpu limit: %u.%02u CPUs per rank (its cgroup's cpu.max)\n",
			j->cpu_pct / 100, j->cpu_pct % 100);
	if (j->tp_regex[0])
		fprintf(f, "    throughput: /%s/ group %u%s%s%s%s\n", j->tp_regex, j->tp_group,
			j->tp_unit[0] ? " in " : "", j->tp_unit, j->tp_node[0] ? " from " : "",
			j->tp_node);
	if (j->tp_counter[0])
		fprintf(f,
			"    throughput: RDMA counter %s of %s's ports on the job's rails, per "
			"sampling interval%s\n",
			j->tp_counter, j->tp_node,
			sc_job_counter_words(j->tp_counter) ? " (4-byte words, as MB/s)" : "");
	fprintf(f, "    error lines:");
	for (i = 0; i < j->nr_errors; i++)
		fprintf(f, " /%s/", j->errors[i]);
	fprintf(f, "\n    outcome: %s", outcome[j->outcome]);
	if (j->max_restarts)
		fprintf(f, ", restarted at most %u time%s (%.0f s after a rank exits)",
			j->max_restarts, j->max_restarts == 1 ? "" : "s",
			j->restart_after_ms / 1000.0);
	if (j->start_tries > 1)
		fprintf(f,
			"; each start tried up to %u times (a rank exiting before its ready line)",
			j->start_tries);
	fprintf(f, "; rdma path: %s",
		j->path_required ? "must be proven" : "checked, not required");
	if (j->path_required)
		fprintf(f,
			" (QPs in RTS, RDMA counters moving, at most %" PRIu64
			" TCP bytes to the peers)",
			j->max_tcp_bytes);
	fputc('\n', f);
}

void plan_print(FILE *f, const struct scenario *sc, const struct drill_opts *o)
{
	const struct sc_workload *w = &sc->workload;
	const struct sc_expect *x = &sc->expect;
	unsigned int i;

	fprintf(f, "plan for drill %s (%s, sha256 %.12s)\n", sc->name, sc->file, sc->sha256);
	if (sc->description[0])
		fprintf(f, "  goal:      %s\n", sc->description);
	if (sc->owner[0])
		fprintf(f, "  owner:     %s\n", sc->owner);
	if (sc->lab)
		fprintf(
		    f,
		    "  where:     QEMU Soft-RoCE lab, %u nodes x %u rails (uses the lab that is "
		    "up, or boots one)\n",
		    sc->lab_nodes, sc->lab_rails);
	else
		fprintf(f, "  where:     %u nodes of a real fleet\n", sc->nr_nodes);
	for (i = 0; i < sc->nr_nodes; i++)
		fprintf(f, "    node %s%s%s\n", sc->nodes[i].name,
			sc->nodes[i].agent[0] ? " agent " : "", sc->nodes[i].agent);
	if (sc->nr_selects) {
		fprintf(f, "  picked:    by label from %s (%u nodes), seed %" PRIu64 ":\n",
			sc->fleet_file, sc->fleet_size, o->have_seed ? o->seed : 1);
		sel_print(f, sc, "    ");
	}
	if (w->job)
		plan_job(f, w);
	else
		plan_stream(f, w);
	fprintf(f, "  timeline (t0 = workload start, seed %" PRIu64 "):\n",
		o->have_seed ? o->seed : 1);
	fprintf(f, "    %8.1fs  start workload; warm-up\n", 0.0);
	fprintf(f, "    %8.1fs  baseline window starts (%.1f s)\n", sc->warmup_ms / 1000.0,
		sc->baseline_ms / 1000.0);
	for (i = 0; i < sc->nr_faults; i++) {
		const struct sc_fault *ft = &sc->faults[i];
		char *params = json_dumps(ft->params, JSON_COMPACT | JSON_SORT_KEYS);

		fprintf(f, "    %8.1fs  inject %s: %s on ", ft->at_ms / 1000.0, ft->name,
			ft->injector);
		plan_target(f, &ft->target);
		fprintf(f, " params %s", params ? params : "{}");
		if (ft->trials > 1)
			fprintf(f, " (trial %u of %u%s)", ft->trial, ft->trials,
				ft->repeat.random ? ", placed by the seed" : "");
		fputc('\n', f);
		free(params);
		plan_print_fault_notes(f, sc, ft);
		if (ft->duration_ms)
			fprintf(f, "    %8.1fs  revert %s (restore the prior state, verify it)\n",
				(ft->at_ms + ft->duration_ms) / 1000.0, ft->name);
	}
	fprintf(f, "  expect:    detection within %.1f s%s on", x->detection_within_ms / 1000.0,
		plan_stat(x->detection_stat));
	for (i = 0; i < x->nr_signals; i++)
		fprintf(f, " %s", sc_signal_name(x->signals[i]));
	for (i = 0; i < x->nr_alert_signals; i++)
		fprintf(f, " alert:%s", x->alert_signals[i]);
	fprintf(f, "\n");
	if (x->isolation_set)
		fprintf(f, "             isolation within %.1f s%s\n",
			x->isolation_within_ms / 1000.0, plan_stat(x->isolation_stat));
	fprintf(f,
		"             recovery within %.1f s%s to %.0f%% of baseline throughput, "
		"sustained %.1f s\n",
		x->recovery_within_ms / 1000.0, plan_stat(x->recovery_stat),
		x->recovery_ratio * 100, x->recovery_sustain_ms / 1000.0);
	if (x->failback_set)
		fprintf(f,
			"             failback: at most %.1f s below %.0f%% of baseline throughput "
			"within %.1f s of each revert\n",
			x->failback_max_outage_ms / 1000.0, x->failback_ratio * 100,
			x->failback_window_ms / 1000.0);
	if (x->max_lost >= 0 || x->max_corrupted >= 0)
		fprintf(f, "             integrity: lost <= %lld, corrupted <= %lld\n",
			(long long)x->max_lost, (long long)x->max_corrupted);
	for (i = 0; i < x->nr_alerts; i++) {
		const struct sc_alert_expect *a = &x->alerts[i];

		fprintf(f, "             alert %s notified within %.1f s of the injection", a->name,
			a->fire_within_ms / 1000.0);
		if (a->resolve_within_ms)
			fprintf(f, ", resolved within %.1f s of the revert",
				a->resolve_within_ms / 1000.0);
		fprintf(f, "%s\n", a->nr_faults ? " (for the faults it names)" : " (every fault)");
	}
	if (sc->monitoring == SC_MON_LAB)
		fprintf(f, "  alerts:    from the lab's Prometheus and Alertmanager (lab up "
			   "--monitoring) to the coordinator's receiver\n");
	else if (sc->monitoring == SC_MON_EXTERNAL)
		fprintf(f,
			"  alerts:    Alertmanager's webhooks to http://%s/alerts (the coordinator "
			"listens there)\n",
			sc->receiver);
	if (sc->scheduler.slurm) {
		fprintf(f, "  scheduler: Slurm, asked every %.1f s with %s",
			sc->scheduler.every_ms / 1000.0, sc->scheduler.scontrol);
		if (sc->scheduler.job[0])
			fprintf(f, ", following job %s", sc->scheduler.job);
		fprintf(f, "; no node without a fault may be taken out of service\n");
		if (x->sched_drained_within_ms)
			fprintf(
			    f,
			    "             each fault's node out of service within %.1f s of the "
			    "injection\n",
			    x->sched_drained_within_ms / 1000.0);
		if (x->sched_resumed_within_ms)
			fprintf(f, "             and back in service within %.1f s of the revert\n",
				x->sched_resumed_within_ms / 1000.0);
		if (x->sched_job[0])
			fprintf(f,
				"             job %s %s at the drill's end (requeued at most %u "
				"times)\n",
				sc->scheduler.job, x->sched_job, x->sched_max_requeues);
	}
	plan_print_safety(f, sc);
	fprintf(f, "  cleanup:   every fault is reverted at its end, on error and on Ctrl-C, then "
		   "every agent reverts what it still holds (revert_all) and verifies\n");
	fprintf(f, "dry run: nothing was touched\n");
}
