// SPDX-License-Identifier: MIT
/* Warnings about a scenario that passed every check: thresholds that cannot mean what they seem to,
 * and thresholds left out. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/units.h"
#include "coordinator/scenario_parse.h"

/*
 * How long a fault keeps the stream from its throughput when it cannot fail
 * over: all of it, unless its injector says otherwise (outage_ms: a flap's
 * one down; 0 for a QP error, which lasts until the reconnect), and in *key
 * the parameter that sets it.
 */
static uint64_t lint_outage_ms(const struct sc_fault *f, const char **key)
{
	const struct injector *inj = injector_find(f->injector);

	*key = NULL;
	if (inj && inj->outage_ms)
		return inj->outage_ms(f->params, f->duration_ms, key);
	return f->duration_ms;
}

/* A fault on a rail of one of the stream's ends, when the stream has another rail to use. */
static bool lint_can_fail_over(const struct scenario *sc, const struct sc_fault *f)
{
	const struct sc_workload *w = &sc->workload;
	unsigned int i;

	if (f->target.rail < 0 || f->target.workload[0])
		return false;
	for (i = 0; i < w->nr_rails; i++)
		if (w->rails[i] != f->target.rail)
			return true;
	return false;
}

static bool lint_on_stream_rail(const struct scenario *sc, const struct sc_fault *f)
{
	const struct sc_workload *w = &sc->workload;
	unsigned int i;

	if (strcmp(f->target.node, w->from) && strcmp(f->target.node, w->to))
		return false;
	for (i = 0; i < w->nr_rails; i++)
		if (w->rails[i] == f->target.rail)
			return true;
	return false;
}

/* The lint of one fault (fm, faults[i]) against the thresholds. */
static void lint_fault(struct pctx *c, yaml_node_t *fm, unsigned int i)
{
	const struct scenario *sc = c->sc;
	const struct sc_fault *f = &sc->faults[i];
	const struct sc_expect *x = &sc->expect;
	yaml_node_t *dur = yd_map_get(c->d, fm, "duration");
	const struct injector *inj = injector_find(f->injector);
	char path[YD_PATH_LEN], fpath[YD_PATH_LEN], b1[32], b2[32];
	const char *outage_key;
	uint64_t outage = lint_outage_ms(f, &outage_key);

	yd_join_idx(fpath, "faults", i);
	if (dur)
		yd_join(path, fpath, "duration");
	else
		snprintf(path, sizeof(path), "%s", fpath);
	if (f->duration_ms && f->duration_ms < x->detection_within_ms)
		yd_warn(c->d, dur ? dur : fm, path,
			"the fault lasts %s, less than expect.detection.within (%s): it can end "
			"before detection is due, and a signal seen after the revert still "
			"counts; make it last at least %s or tighten within",
			rc_format_duration_ms(f->duration_ms, b1, sizeof(b1)),
			rc_format_duration_ms(x->detection_within_ms, b2, sizeof(b2)), b2);
	/* a netdev that is no rail (a management NIC) is not known to carry the stream */
	if (outage > x->recovery_within_ms && !lint_can_fail_over(sc, f) &&
	    !(f->target.rail < 0 && f->target.netdev[0])) {
		yaml_node_t *at = dur ? dur : fm;

		if (outage_key) {
			char ppath[YD_PATH_LEN];

			at = yd_map_get(c->d, yd_map_get(c->d, fm, "params"), outage_key);
			yd_join(ppath, fpath, "params");
			yd_join(path, ppath, outage_key);
		}
		yd_warn(c->d, at ? at : fm, path,
			"the stream is held up for %s, longer than expect.recovery.within (%s), "
			"with no other rail to fail over to: recovery is timed from the "
			"injection, not the revert, so it passes only if throughput returns "
			"while the fault is in force; give within more than %s unless that is "
			"the point",
			rc_format_duration_ms(outage, b1, sizeof(b1)),
			rc_format_duration_ms(x->recovery_within_ms, b2, sizeof(b2)), b1);
	}
	if (inj && (inj->flags & INJ_BITES_ON_REG) && !sc->workload.mr_churn_ms) {
		yd_join(path, fpath, "injector");
		yd_warn(c->d, yd_map_get(c->d, fm, "injector"), path,
			"%s, but workload.mr_churn is not set: the stream registers "
			"memory only when it connects, so the failure may not bite while it "
			"runs; set e.g. mr_churn: 2s",
			f->injector);
	}
}

/*
 * Warnings about a scenario that passed every check: thresholds that cannot
 * mean what they seem to, and thresholds left out (docs/SCENARIOS.md,
 * "Checking a drill").
 */
void scp_lint(struct pctx *c, yaml_node_t *root)
{
	const struct scenario *sc = c->sc;
	const struct sc_expect *x = &sc->expect;
	yaml_node_t *faults = yd_map_get(c->d, root, "faults");
	yaml_node_t *ex = yd_map_get(c->d, root, "expect");
	yaml_node_t *guards = yd_map_get(c->d, yd_map_get(c->d, root, "safety"), "guards");
	char gpath[YD_PATH_LEN], path[YD_PATH_LEN], b1[32], b2[32];
	unsigned int i;

	for (i = 0; i < sc->nr_faults; i++)
		lint_fault(c, yd_seq_item(c->d, faults, i), i);
	/* a job has no rails to fail over to, nor messages to count: its own lints, not these */
	for (i = 0; !x->isolation_set && !sc->workload.job && i < sc->nr_faults; i++) {
		const struct sc_fault *f = &sc->faults[i];
		const struct injector *inj = injector_find(f->injector);

		if (!inj || !(inj->flags & INJ_LINK_OUTAGE) || !lint_can_fail_over(sc, f) ||
		    !lint_on_stream_rail(sc, f))
			continue;
		yd_warn(c->d, ex, "expect.isolation",
			"missing; faults[%u] (%s on %s rail %d) should make the stream fail over "
			"to another rail, and without isolation: {within: ...} nothing times "
			"the failover",
			i, f->injector, f->target.node, f->target.rail);
		break;
	}
	for (i = 0; !sc->workload.job && i < x->nr_signals; i++)
		if (x->signals[i] == SC_SIG_JOB_EXIT)
			yd_warn(c->d,
				yd_map_get(c->d, yd_map_get(c->d, ex, "detection"), "signals"),
				"expect.detection.signals",
				"job_exit is a job's signal (workload kind: job); the stream never "
				"gives it");
	if (x->max_lost < 0 && x->max_corrupted < 0 && !sc->workload.job)
		yd_warn(c->d, ex, "expect.integrity",
			"missing; lost and corrupted messages are not checked: add integrity: "
			"{lost: 0, corrupted: 0}, or the numbers the drill may lose");
	for (i = 0; x->isolation_set && i < sc->safety.nr_guards; i++) {
		const struct sc_guard *g = &sc->safety.guards[i];
		yaml_node_t *gm = yd_seq_item(c->d, guards, i), *n;

		if (g->kind != SC_GUARD_THROUGHPUT || g->has_flow ||
		    g->for_ms > x->isolation_within_ms)
			continue;
		n = yd_map_get(c->d, gm, "for");
		yd_join_idx(gpath, "safety.guards", i);
		if (n)
			yd_join(path, gpath, "for");
		else
			snprintf(path, sizeof(path), "%s", gpath);
		yd_warn(c->d, n ? n : gm, path,
			"the guard trips after %s below its floor, no longer than "
			"expect.isolation.within (%s): a failover that takes as long as the drill "
			"allows would stop the drill; make for longer than isolation",
			rc_format_duration_ms(g->for_ms, b1, sizeof(b1)),
			rc_format_duration_ms(x->isolation_within_ms, b2, sizeof(b2)));
	}
}
