// SPDX-License-Identifier: MIT
/*
 * A job's throughput from the RDMA counters its node's agent samples (throughput.counter): the
 * counter of the ports on the job's rails, made into the stream's `interval` samples, for a job
 * that prints no rate of its own (a training step, an MPI application). The agent reports a
 * counter only for the intervals in which it moved, so the intervals between two reports of it
 * are samples of 0: a link that carries nothing shows as an outage, not as a gap. And whether
 * the job kept progressing, from its samples of any source (outcome: survive).
 */
#include <math.h>
#include <string.h>

#include "coordinator/drill_priv.h"

/* the most samples of 0 one gap (or the drill's end) fills in: an hour of 1 s intervals */
#define DJC_MAX_ZEROS 3600

/* The index in the job's rails of the port (device, port) on node, per the node's inventory. */
static int djc_rail_of(struct drill *d, const char *node, const char *device, int port)
{
	const struct sc_workload *w = &d->sc.workload;
	struct fl_agent *a = fleet_find(&d->fl, node);
	json_t *inv = a ? a->inventory : NULL, *dev, *p, *nd;
	const char *netdev = NULL;
	size_t i, k;
	unsigned int r;

	json_array_foreach(json_object_get(inv, "devices"), i, dev) {
		if (strcmp(json_string_value(json_object_get(dev, "name")) ?: "", device))
			continue;
		json_array_foreach(json_object_get(dev, "ports"), k, p)
			if (json_integer_value(json_object_get(p, "port")) == port)
				netdev = json_string_value(json_object_get(p, "netdev"));
	}
	if (!netdev)
		return -1;
	json_array_foreach(json_object_get(inv, "netdevs"), i, nd) {
		json_t *rail = json_object_get(nd, "rail");

		if (!json_is_integer(rail) ||
		    strcmp(json_string_value(json_object_get(nd, "name")) ?: "", netdev))
			continue;
		for (r = 0; r < w->nr_rails; r++)
			if (w->rails[r] == json_integer_value(rail))
				return (int)r;
	}
	return -1;
}

static json_t *djc_sample(struct drill *d, int r, double t_ms, double iv_ms, double rate)
{
	json_t *s =
	    json_pack("{s:s, s:s, s:s, s:s, s:f, s:f, s:f, s:s, s:s, s:i}", "kind", "workload",
		      "type", "interval", "role", "client", "wl_id", DRILL_WL_ID, "t_ms", t_ms,
		      "mbps", rate, "interval_ms", iv_ms, "source", "counter", "node",
		      d->sc.workload.job->tp_node, "rail", d->sc.workload.rails[r]);

	return s;
}

/* Samples of 0 for the intervals from rail r's last sample to t_ms, when it is due more than one.
 */
static void djc_zeros(struct drill *d, int r, double t_ms, json_t *out)
{
	double last = d->job.ctr_last_ms[r], gap = t_ms - last, step;
	unsigned int nz, k;

	if (last < 0 || gap < 1.5 * DRILL_COUNTERS_MS)
		return;
	nz = (unsigned int)fmin(lround(gap / DRILL_COUNTERS_MS) - 1, DJC_MAX_ZEROS);
	step = gap / (nz + 1);
	for (k = 1; k <= nz; k++)
		json_array_append_new(out, djc_sample(d, r, last + k * step, step, 0));
}

json_t *drill_job_counter(struct drill *d, const json_t *ev)
{
	const struct sc_job *j = d->sc.workload.job;
	const char *node = json_string_value(json_object_get(ev, "node"));
	const char *device = json_string_value(json_object_get(ev, "device"));
	double t = json_number_value(json_object_get(ev, "t_ms")), iv, delta;
	json_t *out;
	int r;

	if (!j || !j->tp_counter[0] || !node || !device || strcmp(node, j->tp_node) ||
	    strcmp(json_string_value(json_object_get(ev, "name")) ?: "", j->tp_counter) ||
	    d->job.stop_ms >= 0)
		return NULL;
	r = djc_rail_of(d, node, device, (int)json_integer_value(json_object_get(ev, "port")));
	if (r < 0 || !(out = json_array()))
		return NULL;
	djc_zeros(d, r, t, out);
	/* the delta is the counter's move over the agent's last interval */
	iv = DRILL_COUNTERS_MS;
	delta = json_number_value(json_object_get(ev, "delta"));
	if (sc_job_counter_words(j->tp_counter))
		delta = delta * 4 / 1e6; /* 4-byte words, as MB */
	json_array_append_new(out, djc_sample(d, r, t, iv, delta * 1000.0 / iv));
	d->job.ctr_last_ms[r] = t;
	return out;
}

json_t *drill_job_counter_end(struct drill *d, double now_ms)
{
	const struct sc_job *j = d->sc.workload.job;
	json_t *out;
	unsigned int r;

	if (!j || !j->tp_counter[0] || !(out = json_array()))
		return NULL;
	for (r = 0; r < d->sc.workload.nr_rails; r++) {
		size_t before = json_array_size(out);

		djc_zeros(d, (int)r, now_ms, out);
		if (json_array_size(out) > before)
			d->job.ctr_last_ms[r] = now_ms;
	}
	return out;
}

double drill_job_last_progress_ms(const struct drill *d, double until_ms)
{
	double last = -1, t;
	const json_t *e;
	size_t i;

	json_array_foreach(d->fl.events, i, e) {
		if (strcmp(json_string_value(json_object_get(e, "kind")) ?: "", "workload") ||
		    strcmp(json_string_value(json_object_get(e, "type")) ?: "", "interval") ||
		    strcmp(json_string_value(json_object_get(e, "wl_id")) ?: "", DRILL_WL_ID) ||
		    strcmp(json_string_value(json_object_get(e, "role")) ?: "", "client") ||
		    !(json_number_value(json_object_get(e, "mbps")) > 0))
			continue;
		t = json_number_value(json_object_get(e, "t_ms"));
		if (t <= until_ms && t > last)
			last = t;
	}
	return last;
}
