// SPDX-License-Identifier: MIT
/* Plan-time checks of a drill and the human-readable plan that --dry-run prints. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "coordinator/plan.h"
#include "injectors/injector.h"

int plan_check(struct scenario *sc, uint64_t seed, char *err, size_t errlen)
{
	unsigned int i;

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
		if (!strcmp(f->injector, "port_flap") && !json_object_get(f->params, "seed"))
			json_object_set_new(f->params, "seed", json_integer((json_int_t)(seed + i)));
		if (inj->validate && inj->validate(f->params, why, sizeof(why))) {
			snprintf(err, errlen, "%s:%d: faults[%u].params: %s", sc->file, f->line, i,
				 why[0] ? why : "invalid parameters");
			return -EINVAL;
		}
	}
	return 0;
}

static void plan_target(FILE *f, const struct sc_target *t)
{
	fprintf(f, "%s ", t->node);
	if (t->rail >= 0)
		fprintf(f, "rail %d", t->rail);
	else if (t->netdev[0])
		fprintf(f, "netdev %s", t->netdev);
	else
		fprintf(f, "device %s port %d", t->device, t->port);
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
		fprintf(f, "  where:     QEMU Soft-RoCE lab, %u nodes x %u rails (uses the lab that is "
			   "up, or boots one)\n",
			sc->lab_nodes, sc->lab_rails);
	else
		fprintf(f, "  where:     %u nodes of a real fleet\n", sc->nr_nodes);
	for (i = 0; i < sc->nr_nodes; i++)
		fprintf(f, "    node %s%s%s\n", sc->nodes[i].name, sc->nodes[i].agent[0] ? " agent " : "",
			sc->nodes[i].agent);
	fprintf(f, "  workload:  %s %s -> %s, RDMA %s, %" PRIu64 " B messages, queue depth %u, "
		   "rails",
		w->kind, w->from, w->to, w->op == SC_OP_WRITE ? "WRITE_WITH_IMM" : "SEND",
		w->msg_size, w->queue_depth);
	for (i = 0; i < w->nr_rails; i++)
		fprintf(f, " %d", w->rails[i]);
	fprintf(f, ", QP timeout %u (%.1f ms) retry_cnt %u, stats every %" PRIu64 " ms\n",
		w->qp_timeout, 4.096e-3 * (double)(1ULL << w->qp_timeout), w->qp_retry_cnt,
		w->interval_ms);
	fprintf(f, "  timeline (t0 = workload start, seed %" PRIu64 "):\n",
		o->have_seed ? o->seed : 1);
	fprintf(f, "    %8.1fs  start workload; warm-up\n", 0.0);
	fprintf(f, "    %8.1fs  baseline window starts (%.1f s)\n", sc->warmup_ms / 1000.0,
		sc->baseline_ms / 1000.0);
	for (i = 0; i < sc->nr_faults; i++) {
		const struct sc_fault *ft = &sc->faults[i];
		char *params = json_dumps(ft->params, JSON_COMPACT | JSON_SORT_KEYS);

		fprintf(f, "    %8.1fs  inject %s: %s on ", ft->at_ms / 1000.0, ft->name, ft->injector);
		plan_target(f, &ft->target);
		fprintf(f, " params %s\n", params ? params : "{}");
		free(params);
		if (ft->duration_ms)
			fprintf(f, "    %8.1fs  revert %s (restore the prior state, verify it)\n",
				(ft->at_ms + ft->duration_ms) / 1000.0, ft->name);
	}
	fprintf(f, "  expect:    detection within %.1f s on", x->detection_within_ms / 1000.0);
	for (i = 0; i < x->nr_signals; i++)
		fprintf(f, " %s", sc_signal_name(x->signals[i]));
	fprintf(f, "\n");
	if (x->isolation_set)
		fprintf(f, "             isolation within %.1f s\n", x->isolation_within_ms / 1000.0);
	fprintf(f, "             recovery within %.1f s to %.0f%% of baseline throughput, sustained "
		   "%.1f s\n",
		x->recovery_within_ms / 1000.0, x->recovery_ratio * 100, x->recovery_sustain_ms / 1000.0);
	if (x->max_lost >= 0 || x->max_corrupted >= 0)
		fprintf(f, "             integrity: lost <= %lld, corrupted <= %lld\n",
			(long long)x->max_lost, (long long)x->max_corrupted);
	fprintf(f, "  cleanup:   every fault is reverted at its end, on error and on Ctrl-C, then "
		   "every agent reverts what it still holds (revert_all) and verifies\n");
	fprintf(f, "dry run: nothing was touched\n");
}
