// SPDX-License-Identifier: MIT
/*
 * The drill engine. One pass: load and check the scenario, find the nodes,
 * align clocks, inventory, start the workload, measure the baseline, play the
 * fault timeline, stop the workload, revert and verify every fault, evaluate,
 * write the reports. Every path out of the timeline goes through cleanup.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/log.h"
#include "common/units.h"
#include "coordinator/drill.h"
#include "coordinator/alerts.h"
#include "coordinator/coverage.h"
#include "coordinator/drill_priv.h"
#include "coordinator/progress.h"
#include "coordinator/evaluate.h"
#include "coordinator/fleet.h"
#include "coordinator/labenv.h"
#include "coordinator/plan.h"
#include "coordinator/scenario.h"
#include "coordinator/select.h"
#include "reports/report.h"

volatile int drill_stop_requested;

double drill_now_ms(const struct drill *d)
{
	return ((double)rc_now_ns() - (double)d->fl.t0_ns) / 1e6;
}

void drill_reason(struct drill *d, bool inconclusive, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	json_array_append_new(d->reasons, json_string(buf));
	if (inconclusive)
		d->inconclusive = true;
	rc_warn("%s", buf);
}

/* The flow a workload event belongs to (no wl_id: the drill's workload). */
struct drill_flow *drill_flow_of(struct drill *d, const json_t *ev)
{
	const char *id = json_string_value(json_object_get(ev, "wl_id")) ?: DRILL_WL_ID;
	unsigned int i;

	for (i = 0; i < d->nr_flows; i++)
		if (!strcmp(d->flows[i].wl_id, id))
			return &d->flows[i];
	return NULL;
}

/* What the workload's samples count: MB/s, or a job's counter per second. */
static const char *drill_unit(const struct drill *d)
{
	const struct sc_job *j = d->sc.workload.job;

	return j && j->tp_rate_unit[0] ? j->tp_rate_unit : "MB/s";
}

/*
 * The workload has not reported for longer than three of its intervals (the baseline's, or 1 s
 * before it is measured) and 3 s: its last rate is no longer its rate.
 */
static bool drill_samples_stale(const struct drill *d, double now)
{
	double cadence = d->baseline_done && d->baseline.samples
			     ? (double)d->sc.baseline_ms / d->baseline.samples
			     : 1000;

	return d->have_sample && now - d->last_sample_ms > fmax(3000, 3 * cadence);
}

/* The baseline as measured; a job's samples carry no latency, so none is printed for them. */
static void drill_print_baseline(const struct drill *d, double now)
{
	char lat[48] = "";

	if (d->baseline.latency_us_p50 > 0)
		snprintf(lat, sizeof(lat), ", p50 latency %.0f us", d->baseline.latency_us_p50);
	prog_event("  %+8.1fs baseline: %.2f %s%s (%u samples)", now / 1000.0,
		   d->baseline.throughput_mbps, drill_unit(d), lat, d->baseline.samples);
}

/* A workload's throughput sample: the drill's last rate, and the guards that watch it. */
static void drill_take_sample(struct drill *d, json_t *ev, double t)
{
	const char *role = json_string_value(json_object_get(ev, "role"));
	struct drill_flow *f;
	double mbps;
	unsigned int i;

	if (!role || strcmp(role, "client") || !(f = drill_flow_of(d, ev)))
		return;
	mbps = json_number_value(json_object_get(ev, "mbps"));
	f->last_mbps = mbps;
	if (f->guard >= 0) {
		guard_sample(&d->guards[f->guard], t * 1000.0, mbps);
		return;
	}
	d->last_mbps = mbps;
	d->last_rail = (int)json_integer_value(json_object_get(ev, "rail"));
	d->have_sample = true;
	d->last_sample_ms = t * 1000.0;
	for (i = 0; i < d->sc.safety.nr_guards; i++)
		if (!d->sc.safety.guards[i].has_flow)
			guard_sample(&d->guards[i], t * 1000.0, mbps);
}

/* A job's samples from its RDMA counter (drill_job_counter.c), kept and taken as the stream's. */
static void drill_add_samples(struct drill *d, json_t *samples)
{
	json_t *s;
	size_t i;

	json_array_foreach(samples, i, s) {
		json_array_append(d->fl.events, s);
		drill_take_sample(d, s, json_number_value(json_object_get(s, "t_ms")) / 1000.0);
	}
	json_decref(samples);
}

/* Human progress on stderr: the events an SRE watches for, as they happen. */
static void drill_print_event(json_t *ev, void *arg)
{
	struct drill *d = arg;
	const char *kind = json_string_value(json_object_get(ev, "kind")) ?: "?";
	const char *node = json_string_value(json_object_get(ev, "node")) ?: "?";
	double t = json_real_value(json_object_get(ev, "t_ms")) / 1000.0;
	const char *type = json_string_value(json_object_get(ev, "type"));
	json_t *mapped;

	/* a job's samples and error lines, in the stream's terms, judged as the stream's are */
	if (!strcmp(kind, "workload") && (mapped = drill_job_map(d, ev))) {
		json_array_append(d->fl.events, mapped);
		drill_print_event(mapped, d);
		json_decref(mapped);
	}
	if (!strcmp(kind, "workload") && type && !strcmp(type, "interval")) {
		drill_take_sample(d, ev, t);
		return;
	}
	if (!strcmp(kind, "counter") && (mapped = drill_job_counter(d, ev)))
		drill_add_samples(d, mapped);
	if (d->o->quiet || !strcmp(kind, "counter"))
		return;
	drill_print_line(d, ev, kind, node, t, type);
}

static int drill_out_dir(struct drill *d)
{
	char stamp[64];
	char *p;

	if (d->o->out_dir) {
		snprintf(d->run_dir, sizeof(d->run_dir), "%s", d->o->out_dir);
	} else {
		rc_format_utc(d->started_wall_ns, stamp, sizeof(stamp));
		for (p = stamp; *p; p++)
			if (*p == ':')
				*p = '-';
		snprintf(d->run_dir, sizeof(d->run_dir), "runs/%s-%s", stamp, d->sc.name);
	}
	/* mkdir -p */
	for (p = d->run_dir + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(d->run_dir, 0755) && errno != EEXIST) {
			*p = '/';
			return -errno;
		}
		*p = '/';
	}
	if (mkdir(d->run_dir, 0755) && errno != EEXIST)
		return -errno;
	return 0;
}

/* Nodes the drill talks to: every declared one (a fleet drill lists only what it uses). */
static int drill_setup_fleet(struct drill *d)
{
	unsigned int i;
	int ret;

	ret = fleet_init(&d->fl, d->sc.nr_nodes);
	if (ret)
		return ret;
	d->fl.on_event = drill_print_event;
	d->fl.arg = d;
	for (i = 0; i < d->sc.nr_nodes; i++) {
		struct fl_agent *a = &d->fl.agents[i];
		const char *addr = d->sc.nodes[i].agent;

		snprintf(a->name, sizeof(a->name), "%s", d->sc.nodes[i].name);
		if (d->lab) {
			addr = labenv_agent(d->lab, a->name);
			if (!addr) {
				drill_reason(d, true,
					     "lab has no node %s: lab is smaller than the drill",
					     a->name);
				return -ENOENT;
			}
		}
		snprintf(a->addr, sizeof(a->addr), "%s", addr);
	}
	return 0;
}

static int drill_prepare_lab(struct drill *d)
{
	json_int_t rails;
	size_t nodes;
	int ret;

	ret = labenv_load(&d->lab);
	if (ret == -ENOENT || ret == -ESRCH) {
		prog_event("rdmachaos: %s; booting %u nodes x %u rails (stopped again after the "
			   "drill)",
			   ret == -ESRCH
			       ? "the lab that is up lost a node (its QEMU exited), so a new "
				 "one replaces it"
			       : "no lab is up",
			   d->sc.lab_nodes, d->sc.lab_rails);
		ret = labenv_up(d->sc.lab_nodes, d->sc.lab_rails, d->sc.monitoring == SC_MON_LAB);
		if (ret) {
			drill_reason(d, true,
				     "the lab did not come up (see the messages above and "
				     "build/lab/run/*.console.log)");
			return ret;
		}
		d->lab_started_here = true;
		ret = labenv_load(&d->lab);
	}
	if (ret) {
		drill_reason(d, true, "cannot read the lab's state: %s", strerror(-ret));
		return ret;
	}
	nodes = json_array_size(json_object_get(d->lab, "nodes"));
	rails = json_integer_value(json_object_get(d->lab, "rails"));
	if (nodes < d->sc.lab_nodes || rails < d->sc.lab_rails) {
		drill_reason(
		    d, true,
		    "the lab that is up has %zu nodes x %lld rails; the drill needs %u x %u "
		    "(rdmachaos lab down, then run again)",
		    nodes, (long long)rails, d->sc.lab_nodes, d->sc.lab_rails);
		return -ERANGE;
	}
	return 0;
}

/* hello, clocks, inventory, subscribe: everything before the first packet. */
static int drill_handshake(struct drill *d)
{
	json_t **res = calloc(d->fl.nr_agents, sizeof(*res));
	char(*errs)[256] = calloc(d->fl.nr_agents, sizeof(*errs));
	char err[512] = "";
	json_t *req;
	unsigned int i;
	int ret = -ENOMEM;

	if (!res || !errs)
		goto out;
	ret = fleet_connect(&d->fl, 5000, err, sizeof(err));
	if (ret) {
		drill_reason(d, true, "%s", err);
		goto out;
	}
	req = json_pack("{s:s,s:s,s:i}", "op", "hello", "coordinator", "rdmachaos", "proto", 1);
	ret = fleet_call_many(&d->fl, NULL, req, DRILL_CALL_MS, res, errs);
	json_decref(req);
	for (i = 0; i < d->fl.nr_agents; i++) {
		struct fl_agent *a = &d->fl.agents[i];
		const char *self = json_string_value(json_object_get(res[i], "node"));

		snprintf(a->control_if, sizeof(a->control_if), "%s",
			 json_string_value(json_object_get(res[i], "control_if")) ?: "");
		/* a certificate may name the address, not the node: swapped addresses show here */
		if (res[i] && (!self || strcmp(self, a->name))) {
			drill_reason(
			    d, true,
			    "%s: the agent at %s answers as node %s%s%s, not %s: two nodes' "
			    "addresses are swapped or one is wrong (the fleet file, or the "
			    "drill's nodes:); nothing is injected",
			    a->name, a->addr, self ? "\"" : "", self ?: "(none)", self ? "\"" : "",
			    a->name);
			ret = ret ?: -EINVAL;
		}
		json_decref(res[i]);
		if (errs[i][0])
			drill_reason(d, true, "%s", errs[i]);
	}
	if (ret)
		goto out;
	ret = fleet_align_clocks(&d->fl, DRILL_CLOCK_SAMPLES, err, sizeof(err));
	if (ret) {
		drill_reason(d, true, "%s", err);
		goto out;
	}
	req = json_pack("{s:s}", "op", "inventory");
	ret = fleet_call_many(&d->fl, NULL, req, DRILL_CALL_MS, res, errs);
	json_decref(req);
	for (i = 0; i < d->fl.nr_agents; i++) {
		d->fl.agents[i].inventory = res[i];
		if (errs[i][0])
			drill_reason(d, true, "%s", errs[i]);
	}
	if (ret)
		goto out;
	req = json_pack("{s:s,s:i}", "op", "subscribe", "counters_interval_ms", DRILL_COUNTERS_MS);
	ret = fleet_call_many(&d->fl, NULL, req, DRILL_CALL_MS, res, errs);
	json_decref(req);
	for (i = 0; i < d->fl.nr_agents; i++) {
		json_decref(res[i]);
		if (errs[i][0])
			drill_reason(d, true, "%s", errs[i]);
	}
out:
	free(res);
	free(errs);
	return ret;
}

/* The IPv4 address of a node's rail, from its inventory. */
int drill_rail_addr(struct drill *d, const char *node, int rail, char *buf, size_t len)
{
	struct fl_agent *a = fleet_find(&d->fl, node);
	json_t *nd, *addr;
	size_t i, k;

	json_array_foreach(json_object_get(a ? a->inventory : NULL, "netdevs"), i, nd) {
		json_t *r = json_object_get(nd, "rail");

		if (!json_is_integer(r) || json_integer_value(r) != rail)
			continue;
		json_array_foreach(json_object_get(nd, "addrs"), k, addr) {
			const char *s = json_string_value(addr);
			const char *slash;

			if (!s || strchr(s, ':'))
				continue;
			slash = strchr(s, '/');
			snprintf(buf, len, "%.*s", slash ? (int)(slash - s) : (int)strlen(s), s);
			return 0;
		}
	}
	return -ENOENT;
}

static json_t *drill_strings(const char *const *v, unsigned int n)
{
	json_t *a = json_array();
	unsigned int i;

	for (i = 0; i < n; i++)
		json_array_append_new(a, json_string(v[i]));
	return a;
}

/*
 * What the faults aimed at the drill's workload on node need from the way
 * it is started: the verbs shim, its own cgroup (for rdma.max), or no
 * CAP_IPC_LOCK (so RLIMIT_MEMLOCK binds). Set on the workload_start request.
 */
void drill_workload_needs(struct drill *d, const char *node, json_t *req)
{
	unsigned int i;

	for (i = 0; i < d->sc.nr_faults; i++) {
		const struct sc_fault *sf = &d->sc.faults[i];
		const char *mech = json_string_value(json_object_get(sf->params, "mechanism"));

		if (!sf->target.workload[0] || strcmp(sf->target.node, node) || !mech)
			continue;
		if (!strcmp(mech, "shim"))
			json_object_set_new(req, "shim", json_true());
		else if (!strcmp(mech, "cgroup"))
			json_object_set_new(req, "cgroup", json_true());
		else if (!strcmp(mech, "memlock"))
			json_object_set_new(req, "no_ipc_lock", json_true());
	}
}

/* Waits (up to 20 s, pumping events) for flow f's server to say it is ready. */
/*
 * Pumps the fleet until match() takes an event (returned through *found, borrowed from the
 * drill's events), timeout_ms passes or a stop is asked for (-ETIMEDOUT). Events are looked at
 * once each, in order, from the one at index from.
 */
int drill_await_event(struct drill *d, size_t from, uint64_t timeout_ms, drill_event_match_fn match,
		      void *arg, json_t **found)
{
	uint64_t deadline = rc_now_ns() + timeout_ms * RC_NSEC_PER_MSEC;
	size_t seen = from;

	for (;;) {
		for (; seen < json_array_size(d->fl.events); seen++) {
			json_t *ev = json_array_get(d->fl.events, seen);

			if (match(ev, arg)) {
				*found = ev;
				return 0;
			}
		}
		if (rc_now_ns() > deadline || drill_stop_requested)
			return -ETIMEDOUT;
		fleet_pump(&d->fl, 100);
	}
}

/* An event of `want_role` of one workload flow, of type `type_want` or `or_type` (may be NULL). */
static bool drill_flow_event(const json_t *ev, const struct drill_flow *f, const char *want_role,
			     const char *type_want, const char *or_type)
{
	const char *type = json_string_value(json_object_get(ev, "type"));
	const char *role = json_string_value(json_object_get(ev, "role"));
	const char *id = json_string_value(json_object_get(ev, "wl_id"));

	return type && role && id && !strcmp(role, want_role) && !strcmp(id, f->wl_id) &&
	       (!strcmp(type, type_want) || (or_type && !strcmp(type, or_type)));
}

/* The server of one workload flow said ready (it listens). */
static bool drill_server_ready(json_t *ev, void *arg)
{
	return drill_flow_event(ev, arg, "server", "ready", NULL);
}

/* The client of one workload flow said ready (every rail connected, streaming), or exited. */
static bool drill_client_ready(json_t *ev, void *arg)
{
	return drill_flow_event(ev, arg, "client", "ready", "exit");
}

static int drill_await_server(struct drill *d, const struct drill_flow *f, const char *what)
{
	json_t *ev;

	if (!drill_await_event(d, 0, 20000, drill_server_ready, (void *)f, &ev))
		return 0;
	drill_reason(d, true, "%s server on %s never said ready within 20 s", what, f->w->to);
	return -ETIMEDOUT;
}

/*
 * The drill's clock starts when the stream's client has connected every rail and streams:
 * rdma_cm's connects took over 5 s on a loaded host (a CI whose other jobs kept both cores
 * busy), which ate the whole warm-up and left the baseline window empty. A client that has
 * not said ready within DRILL_CONNECT_MS keeps the clock where it is: the baseline then says
 * what the workload did not do.
 */
static void drill_await_client(struct drill *d, const struct drill_flow *f)
{
	uint64_t started = rc_now_ns();
	json_t *ev;

	if (drill_await_event(d, 0, DRILL_CONNECT_MS, drill_client_ready, (void *)f, &ev)) {
		if (!drill_stop_requested)
			prog_event(
			    "rdmachaos: the workload's client did not say ready within %d s; "
			    "the drill's clock runs from its start",
			    DRILL_CONNECT_MS / 1000);
		return;
	}
	if (strcmp(json_string_value(json_object_get(ev, "type")), "ready"))
		return; /* it exited: the drill says so, on the clock it has */
	if (rc_now_ns() - started > 1000 * RC_NSEC_PER_MSEC)
		prog_event("rdmachaos: the workload connected in %.1f s; the drill's clock starts "
			   "there",
			   (double)(rc_now_ns() - started) / 1e9);
	fleet_set_t0(&d->fl, rc_now_ns());
}

/* Starts a flow's server, waits until it listens, then starts its client. */
static int drill_start_flow(struct drill *d, struct drill_flow *f, bool sets_t0)
{
	const struct sc_workload *w = f->w;
	char listen[512] = "", rails[64] = "", addr[64], num[6][32], err[512], what[48], churn[32],
	     tos[16], rate[32], busy[32];
	const char *sargs[16], *cargs[32];
	struct fl_agent *srv = fleet_find(&d->fl, w->to), *cli = fleet_find(&d->fl, w->from);
	json_t *req, *res = NULL;
	unsigned int i, ns = 0, nc = 0;
	int ret;

	if (f->guard < 0 && w->job)
		return drill_job_start(d, f);
	if (f->guard < 0)
		snprintf(what, sizeof(what), "workload");
	else
		snprintf(what, sizeof(what), "guard %d's flow", f->guard);
	for (i = 0; i < w->nr_rails; i++) {
		if (drill_rail_addr(d, w->to, w->rails[i], addr, sizeof(addr))) {
			drill_reason(
			    d, true,
			    "%s: %s has no IPv4 address on rail %d (its inventory lists no netdev "
			    "for that rail)",
			    what, w->to, w->rails[i]);
			return -ENOENT;
		}
		snprintf(listen + strlen(listen), sizeof(listen) - strlen(listen), "%s%s",
			 i ? "," : "", addr);
		snprintf(rails + strlen(rails), sizeof(rails) - strlen(rails), "%s%d", i ? "," : "",
			 w->rails[i]);
	}
	snprintf(num[0], sizeof(num[0]), "%u", w->port);
	snprintf(num[1], sizeof(num[1]), "%llu", (unsigned long long)w->msg_size);
	snprintf(num[2], sizeof(num[2]), "%u", w->queue_depth);
	snprintf(num[3], sizeof(num[3]), "%llu", (unsigned long long)w->interval_ms);
	snprintf(num[4], sizeof(num[4]), "%u", w->qp_timeout);
	snprintf(num[5], sizeof(num[5]), "%u", w->qp_retry_cnt);
	const char *op = w->op == SC_OP_WRITE ? "write" : "send";
	const char *common[] = {"--port",	 num[0], "--op",	  op,
				"--msg-size",	 num[1], "--queue-depth", num[2],
				"--interval-ms", num[3]};

	sargs[ns++] = "--listen";
	sargs[ns++] = listen;
	for (i = 0; i < 10; i++)
		sargs[ns++] = common[i];
	cargs[nc++] = "--connect";
	cargs[nc++] = listen;
	cargs[nc++] = "--rails";
	cargs[nc++] = rails;
	for (i = 0; i < 10; i++)
		cargs[nc++] = common[i];
	cargs[nc++] = "--timeout";
	cargs[nc++] = num[4];
	cargs[nc++] = "--retry-cnt";
	cargs[nc++] = num[5];
	if (w->tos >= 0) {
		snprintf(tos, sizeof(tos), "%d", w->tos);
		cargs[nc++] = "--tos";
		cargs[nc++] = tos;
	}
	if (w->mr_churn_ms) {
		snprintf(churn, sizeof(churn), "%llums", (unsigned long long)w->mr_churn_ms);
		cargs[nc++] = "--mr-churn";
		cargs[nc++] = churn;
	}
	if (w->rate) {
		snprintf(rate, sizeof(rate), "%lluB/s", (unsigned long long)w->rate);
		cargs[nc++] = "--rate";
		cargs[nc++] = rate;
	}
	if (w->busy_poll_ms) {
		snprintf(busy, sizeof(busy), "%llu", (unsigned long long)w->busy_poll_ms * 1000);
		cargs[nc++] = "--busy-poll";
		cargs[nc++] = busy;
	}

	req = json_pack("{s:s,s:s,s:b,s:s,s:o}", "op", "workload_start", "wl_id", f->wl_id,
			"stop_on_close", 1, "role", "server", "args", drill_strings(sargs, ns));
	if (f->guard < 0)
		drill_workload_needs(d, w->to, req);
	ret = fleet_call(&d->fl, srv, req, DRILL_CALL_MS, &res, err, sizeof(err));
	json_decref(req);
	json_decref(res);
	if (ret) {
		drill_reason(d, true, "%s server: %s", what, err);
		return ret;
	}
	f->started[0] = true;
	/* Wait for the server to listen before the client dials. */
	ret = drill_await_server(d, f, what);
	if (ret)
		return ret;
	if (sets_t0)
		fleet_set_t0(&d->fl, rc_now_ns());
	req = json_pack("{s:s,s:s,s:b,s:s,s:o}", "op", "workload_start", "wl_id", f->wl_id,
			"stop_on_close", 1, "role", "client", "args", drill_strings(cargs, nc));
	if (f->guard < 0)
		drill_workload_needs(d, w->from, req);
	ret = fleet_call(&d->fl, cli, req, DRILL_CALL_MS, &res, err, sizeof(err));
	json_decref(req);
	json_decref(res);
	if (ret) {
		drill_reason(d, true, "%s client: %s", what, err);
		return ret;
	}
	f->started[1] = true;
	if (sets_t0)
		drill_await_client(d, f);
	return 0;
}

/*
 * The drill's workload first (it sets the drill's clock), then each guard's
 * flow, so every flow runs through the whole baseline window.
 */
static int drill_start_workloads(struct drill *d)
{
	unsigned int i;
	int ret;

	for (i = 0; i < d->nr_flows; i++) {
		struct drill_flow *f = &d->flows[i];

		if ((ret = drill_start_flow(d, f, i == 0)))
			return ret;
		if (f->guard >= 0)
			prog_event("  %+8.1fs guard %d's flow %s -> %s running (%s)",
				   drill_now_ms(d) / 1000.0, f->guard, f->w->from, f->w->to,
				   f->wl_id);
	}
	return 0;
}

/*
 * Clients first, so each server sees everything its client sent. Each flow's
 * `stopping` event says when the drill began to stop it: what the workload
 * did not report after that is the drill's doing, not a hole (evaluate.c).
 */
static void drill_stop_workloads(struct drill *d)
{
	const double now = drill_now_ms(d);
	unsigned int k, i;

	for (i = 0; i < d->nr_flows; i++)
		json_array_append_new(
		    d->fl.events, json_pack("{s:s, s:s, s:s, s:s, s:f, s:s}", "kind", "workload",
					    "type", "stopping", "role", "client", "wl_id",
					    d->flows[i].wl_id, "t_ms", now, "source", "drill"));
	if (d->sc.workload.job) {
		drill_add_samples(d, drill_job_counter_end(d, now));
		drill_job_end(d); /* its path once more, while it runs */
		drill_job_stop(d, &d->flows[0]);
	}
	for (k = 0; k < 2; k++) {
		int role = k == 0 ? 1 : 0;

		for (i = 0; i < d->nr_flows; i++) {
			struct drill_flow *f = &d->flows[i];
			const char *node = role ? f->w->from : f->w->to;
			struct fl_agent *a = fleet_find(&d->fl, node);
			json_t *req, *res = NULL;
			char err[512];

			if (!f->started[role] || !a || !a->connected)
				continue;
			req = json_pack("{s:s,s:s,s:i}", "op", "workload_stop", "wl_id", f->wl_id,
					"timeout_ms", 5000);
			if (fleet_call(&d->fl, a, req, DRILL_CALL_MS, &res, err, sizeof(err)))
				drill_reason(d, false, "stopping %s: %s", f->wl_id, err);
			json_decref(req);
			json_decref(res);
			f->started[role] = false;
		}
	}
	fleet_pump(&d->fl, 200); /* last lines */
}

const char *drill_device_of(struct drill *d, const char *node, const char *netdev)
{
	struct fl_agent *a = fleet_find(&d->fl, node);
	json_t *dev, *port;
	size_t i, k;

	json_array_foreach(json_object_get(a ? a->inventory : NULL, "devices"), i, dev)
		json_array_foreach(json_object_get(dev, "ports"), k, port)
			if (!strcmp(json_string_value(json_object_get(port, "netdev")) ?: "",
				    netdev))
				return json_string_value(json_object_get(dev, "name"));
	return NULL;
}

static json_t *drill_target_json(const struct sc_target *t)
{
	if (t->workload[0] && t->rail >= 0)
		return json_pack("{s:s,s:i}", "workload", DRILL_WL_ID, "rail", t->rail);
	if (t->workload[0])
		return json_pack("{s:s}", "workload", DRILL_WL_ID);
	if (t->rail >= 0)
		return json_pack("{s:i}", "rail", t->rail);
	if (t->netdev[0])
		return json_pack("{s:s}", "netdev", t->netdev);
	return json_pack("{s:s,s:i}", "device", t->device, "port", t->port);
}

static void drill_inject(struct drill *d, struct drill_fault *f)
{
	const struct sc_fault *sf = f->ev.decl;
	struct fl_agent *a = fleet_find(&d->fl, sf->target.node);
	json_t *req, *res = NULL, *at;
	const char *dev, *note;
	int ret;

	f->inject_tried = true;
	req = json_pack("{s:s,s:s,s:s,s:o,s:O,s:I,s:I}", "op", "inject", "fault_id", sf->name,
			"injector", sf->injector, "target", drill_target_json(&sf->target),
			"params", sf->params ? sf->params : json_object(), "duration_ms",
			(json_int_t)sf->duration_ms, "lease_ms", (json_int_t)d->sc.safety.lease_ms);
	if (d->sc.safety.max_rails)
		json_object_set_new(req, "max_active", json_integer(d->sc.safety.max_rails));
	ret = fleet_call(&d->fl, a, req, DRILL_CALL_MS, &res, f->error, sizeof(f->error));
	json_decref(req);
	if (ret) {
		drill_reason(d, true, "fault %s was not injected: %s", sf->name, f->error);
		json_decref(res);
		return;
	}
	f->injected = true;
	f->inject_result = res;
	at = json_object_get(res, "injected_at_ns");
	f->ev.injected_ms = json_is_integer(at)
				? fleet_agent_ms(&d->fl, a, (uint64_t)json_integer_value(at))
				: drill_now_ms(d);
	f->ev.early_ms = drill_clock_slack_ms(d);
	snprintf(f->ev.netdev, sizeof(f->ev.netdev), "%s",
		 json_string_value(json_object_get(res, "netdev")) ?: sf->target.netdev);
	dev = drill_device_of(d, sf->target.node, f->ev.netdev);
	snprintf(f->ev.device, sizeof(f->ev.device), "%s", dev ? dev : sf->target.device);
	if (f->ev.rail < 0 && json_is_integer(json_object_get(res, "rail")))
		f->ev.rail = (int)json_integer_value(json_object_get(res, "rail"));
	prog_event("  %+8.1fs %s injected %s on %s (%s)", f->ev.injected_ms / 1000.0,
		   sf->target.node, sf->injector,
		   sf->target.workload[0] && !f->ev.netdev[0] ? "the workload" : f->ev.netdev,
		   sf->name);
	note = json_string_value(json_object_get(res, "note"))
		   ?: json_string_value(json_object_get(json_object_get(res, "prior"), "note"));
	if (note)
		prog_event("  %+8.1fs note: %s", f->ev.injected_ms / 1000.0, note);
}

static void drill_revert(struct drill *d, struct drill_fault *f)
{
	const struct sc_fault *sf = f->ev.decl;
	struct fl_agent *a = fleet_find(&d->fl, sf->target.node);
	json_t *req, *res = NULL, *at, *act;
	char err[512];
	size_t i;
	int ret;

	if (!f->injected || f->reverted || !a)
		return;
	req = json_pack("{s:s,s:s}", "op", "revert", "fault_id", sf->name);
	ret = fleet_call(&d->fl, a, req, DRILL_CALL_MS, &res, err, sizeof(err));
	json_decref(req);
	if (ret) {
		json_array_append_new(d->cleanup,
				      json_pack("{s:s,s:s,s:s,s:b}", "node", a->name, "fault_id",
						sf->name, "action", err, "verified", 0));
		d->cleanup_ok = false;
		json_decref(res);
		return;
	}
	f->reverted = true;
	f->revert_verified = json_is_true(json_object_get(res, "verified"));
	at = json_object_get(res, "reverted_at_ns");
	f->ev.reverted_ms = json_is_integer(at)
				? fleet_agent_ms(&d->fl, a, (uint64_t)json_integer_value(at))
				: drill_now_ms(d);
	json_array_foreach(json_object_get(res, "actions"), i, act)
		json_array_append_new(d->cleanup, json_pack("{s:s,s:s,s:O,s:b}", "node", a->name,
							    "fault_id", sf->name, "action", act,
							    "verified", f->revert_verified));
	if (!json_array_size(json_object_get(res, "actions")))
		json_array_append_new(d->cleanup,
				      json_pack("{s:s,s:s,s:s,s:b}", "node", a->name, "fault_id",
						sf->name, "action", "revert", "verified",
						f->revert_verified));
	if (!f->revert_verified)
		d->cleanup_ok = false;
	prog_event("  %+8.1fs %s reverted %s (%s)%s", f->ev.reverted_ms / 1000.0, a->name, sf->name,
		   f->ev.netdev, f->revert_verified ? ", verified" : ", NOT verified");
	json_decref(res);
}

/* Last line of defence: every agent reverts whatever it still holds, and says so. */
static void drill_revert_all(struct drill *d)
{
	json_t **res = calloc(d->fl.nr_agents, sizeof(*res));
	char(*errs)[256] = calloc(d->fl.nr_agents, sizeof(*errs));
	bool *who = calloc(d->fl.nr_agents, sizeof(*who));
	json_t *req = json_pack("{s:s}", "op", "revert_all");
	unsigned int i;

	if (!res || !errs || !who || !req) {
		d->cleanup_ok = false;
		goto out;
	}
	for (i = 0; i < d->fl.nr_agents; i++)
		who[i] = d->fl.agents[i].inventory != NULL;
	fleet_call_many(&d->fl, who, req, DRILL_CALL_MS, res, errs);
	for (i = 0; i < d->fl.nr_agents; i++) {
		json_t *r;
		size_t k;

		if (!who[i])
			continue;
		if (!res[i]) {
			json_array_append_new(d->cleanup, json_pack("{s:s,s:s,s:b}", "node",
								    d->fl.agents[i].name, "action",
								    errs[i], "verified", 0));
			d->cleanup_ok = false;
			continue;
		}
		json_array_foreach(json_object_get(res[i], "reverted"), k, r)
			json_array_append_new(
			    d->cleanup,
			    json_pack("{s:s,s:O,s:s,s:b}", "node", d->fl.agents[i].name, "fault_id",
				      r, "action", "reverted by revert_all", "verified",
				      json_is_true(json_object_get(res[i], "verified"))));
		if (!json_is_true(json_object_get(res[i], "verified")))
			d->cleanup_ok = false;
		json_decref(res[i]);
	}
out:
	json_decref(req);
	free(res);
	free(errs);
	free(who);
}

/*
 * Keeps every injected, unreverted fault's lease alive: one `renew` per
 * holding node, four times per lease, so one lost round trip is harmless.
 * A fault the agent no longer knows was reverted by its lease: the drill's
 * results for it are not what the scenario asked for.
 */
static void drill_renew(struct drill *d, double now)
{
	const double every = d->sc.safety.lease_ms / 4.0;
	unsigned int i, n = d->fl.nr_agents;
	json_t *ids, *req, **res = NULL;
	char(*errs)[256] = NULL;
	bool *who = NULL, any = false;

	if (now - d->last_renew_ms < every)
		return;
	d->last_renew_ms = now;
	ids = json_array();
	who = calloc(n ? n : 1, sizeof(*who));
	res = calloc(n ? n : 1, sizeof(*res));
	errs = calloc(n ? n : 1, sizeof(*errs));
	if (!ids || !who || !res || !errs)
		goto out;
	for (i = 0; i < d->sc.nr_faults; i++) {
		struct drill_fault *f = &d->faults[i];
		struct fl_agent *a;

		if (!f->injected || f->reverted)
			continue;
		a = fleet_find(&d->fl, f->ev.decl->target.node);
		if (!a)
			continue;
		who[a - d->fl.agents] = true;
		json_array_append_new(ids, json_string(f->ev.decl->name));
		any = true;
	}
	if (!any)
		goto out;
	req = json_pack("{s:s,s:O}", "op", "renew", "fault_ids", ids);
	if (!req)
		goto out;
	fleet_call_many(&d->fl, who, req, (int)(d->sc.safety.lease_ms / 2), res, errs);
	json_decref(req);
	for (i = 0; i < n; i++) {
		if (!who[i])
			continue;
		d->renews_sent++;
		if (!res[i]) {
			d->renews_failed++;
			rc_warn("lease renewal: %s", errs[i]);
		}
	}
	for (i = 0; i < d->sc.nr_faults; i++) {
		struct drill_fault *f = &d->faults[i];
		struct fl_agent *a;
		json_t *r, *id;
		size_t k;

		if (!f->injected || f->reverted)
			continue;
		a = fleet_find(&d->fl, f->ev.decl->target.node);
		r = a ? res[a - d->fl.agents] : NULL;
		json_array_foreach(json_object_get(r, "unknown"), k, id) {
			if (!json_is_string(id) || strcmp(json_string_value(id), f->ev.decl->name))
				continue;
			f->reverted = true;
			f->ev.reverted_ms = now;
			drill_reason(d, true,
				     "fault %s: %s reverted it when its %.1f s lease ran out (the "
				     "coordinator's renewals did not arrive)",
				     f->ev.decl->name, a->name, d->sc.safety.lease_ms / 1000.0);
		}
	}
out:
	for (i = 0; res && i < n; i++)
		json_decref(res[i]);
	json_decref(ids);
	free(who);
	free(res);
	free(errs);
}

/* True when a guard has tripped: the timeline stops and cleanup follows. */
static bool drill_guards(struct drill *d, double now)
{
	unsigned int i;

	for (i = 0; i < d->sc.safety.nr_guards; i++) {
		struct guard_state *gs = &d->guards[i];
		char what[160];

		if (!guard_poll(gs, now))
			continue;
		guard_describe(gs->g, what, sizeof(what));
		d->aborted_by = (int)i;
		drill_reason(d, false,
			     "aborted by guard %u (%s, line %d) at %.1f s: %s; every fault was "
			     "reverted",
			     i, what, gs->g->line, gs->tripped_ms / 1000.0, gs->why);
		prog_event("  %+8.1fs GUARD TRIPPED: %s; stopping the drill", now / 1000.0,
			   gs->why);
		return true;
	}
	return false;
}

/* The phase the timeline is in, for the status line. */
static const char *drill_phase(const struct drill *d, double now, char *inforce, size_t len)
{
	const double baseline_end = (double)(d->sc.warmup_ms + d->sc.baseline_ms);
	bool any_reverted = false;
	size_t off = 0;
	unsigned int i;

	inforce[0] = '\0';
	for (i = 0; i < d->sc.nr_faults; i++) {
		const struct drill_fault *f = &d->faults[i];

		any_reverted |= f->reverted;
		if (!f->injected || f->reverted || off >= len)
			continue;
		off += (size_t)snprintf(inforce + off, len - off, "%s%s (%s %s)", off ? ", " : "",
					f->ev.decl->name, f->ev.node,
					f->ev.netdev[0] ? f->ev.netdev : "-");
	}
	if (inforce[0])
		return "FAULT";
	if (now < (double)d->sc.warmup_ms)
		return "warm-up";
	if (now < baseline_end)
		return "baseline";
	return any_reverted ? "recovery" : "steady";
}

/*
 * Plain output: a progress line every 5 s. Live: the status line, redrawn
 * every 250 ms, says the same and more.
 */
static void drill_progress(struct drill *d, double now)
{
	char inforce[256], ratio[48] = "";
	const char *phase;

	if (d->o->quiet)
		return;
	if (prog_live()) {
		if (now - d->last_progress_ms < 250)
			return;
		d->last_progress_ms = now;
		phase = drill_phase(d, now, inforce, sizeof(inforce));
		if (d->baseline_done && d->baseline.throughput_mbps > 0)
			snprintf(ratio, sizeof(ratio), " = %.0f%% of baseline %.2f",
				 100.0 * d->last_mbps / d->baseline.throughput_mbps,
				 d->baseline.throughput_mbps);
		prog_status(" %-8s %6.1f / %.0f s | %s%s | %.2f %s%s on rail %d ", phase,
			    now / 1000.0, d->end_ms / 1000.0,
			    inforce[0] ? "in force: " : "no fault", inforce, d->last_mbps,
			    drill_unit(d), ratio, d->last_rail);
		return;
	}
	if (now - d->last_progress_ms < 5000)
		return;
	d->last_progress_ms = now;
	/* a workload that stopped reporting is said to have, not shown at its last rate */
	if (drill_samples_stale(d, now)) {
		prog_event("  %+8.1fs progress: %.1f of %.0f s, no throughput sample for %.1f s "
			   "(the last: %.2f %s on rail %d)",
			   now / 1000.0, now / 1000.0, d->end_ms / 1000.0,
			   (now - d->last_sample_ms) / 1000.0, d->last_mbps, drill_unit(d),
			   d->last_rail);
		return;
	}
	prog_event("  %+8.1fs progress: %.1f of %.0f s, throughput %.2f %s on rail %d%s",
		   now / 1000.0, now / 1000.0, d->end_ms / 1000.0, d->last_mbps, drill_unit(d),
		   d->last_rail, d->baseline_done ? "" : " (steady state)");
}

/*
 * Throughput guards count from the end of the baseline, each against its own
 * flow's baseline. A guard flow that moved no data cannot guard anything, so
 * nothing is injected then.
 */
static int drill_arm_guards(struct drill *d, double now, double baseline_end)
{
	unsigned int i;

	for (i = 0; i < d->nr_flows; i++) {
		struct drill_flow *f = &d->flows[i];
		struct ev_baseline b;

		if (f->guard < 0)
			continue;
		ev_baseline_of(d->fl.events, f->wl_id, (double)d->sc.warmup_ms, baseline_end, &b);
		f->baseline_mbps = b.throughput_mbps;
		prog_event("  %+8.1fs guard %d's flow baseline: %.2f MB/s (%u samples)",
			   now / 1000.0, f->guard, b.throughput_mbps, b.samples);
		if (!b.samples || b.throughput_mbps <= 0) {
			drill_reason(d, true,
				     "no baseline for guard %d's flow (%s -> %s): it moved no data "
				     "in %.1f-%.1f s, so it could guard nothing; nothing was "
				     "injected",
				     f->guard, f->w->from, f->w->to, d->sc.warmup_ms / 1000.0,
				     baseline_end / 1000.0);
			return -ENODATA;
		}
		guard_arm_throughput(&d->guards[f->guard], now, b.throughput_mbps);
	}
	for (i = 0; i < d->sc.safety.nr_guards; i++)
		if (!d->sc.safety.guards[i].has_flow)
			guard_arm_throughput(&d->guards[i], now, d->baseline.throughput_mbps);
	return 0;
}

/* Alert notifications received since the last call, as events (and lines). */
static void drill_take_alerts(struct drill *d)
{
	size_t from = json_array_size(d->fl.events), i;
	json_t *e;

	if (!alerts_drain(d->alerts, d->fl.events, d->fl.t0_ns) || d->o->quiet)
		return;
	for (i = from; i < json_array_size(d->fl.events); i++) {
		e = json_array_get(d->fl.events, i);
		prog_event("  %+8.1fs alert %s %s%s%s",
			   json_number_value(json_object_get(e, "t_ms")) / 1000.0,
			   json_string_value(json_object_get(e, "alertname")),
			   json_string_value(json_object_get(e, "status")),
			   json_object_get(json_object_get(e, "labels"), "node") ? " on " : "",
			   json_string_value(json_object_get(json_object_get(e, "labels"), "node"))
			       ?: "");
	}
}

void drill_fault_evs(const struct drill *d, struct ev_fault *evs)
{
	unsigned int i;

	for (i = 0; i < d->sc.nr_faults; i++)
		evs[i] = d->faults[i].ev;
}

/*
 * Every expected alert of every injected fault has fired and resolved (or
 * needs no resolve): the drill need not wait out the alerts' windows.
 */
static bool drill_alerts_settled(struct drill *d)
{
	struct ev_fault evs[SC_MAX_FAULTS];
	json_t *cov = NULL, *probs = json_array(), *row;
	size_t k;
	bool settled = true;

	drill_fault_evs(d, evs);
	cov_alerts(d->fl.events, &d->sc.expect, evs, d->sc.nr_faults, &cov, probs);
	json_array_foreach(json_object_get(cov, "coverage"), k, row) {
		const char *res = json_string_value(json_object_get(row, "resolve"));

		if (json_object_get(row, "resolve_within_ms") != json_null() &&
		    strcmp(res, "resolved"))
			settled = false;
		if (!strcmp(json_string_value(json_object_get(row, "status")), "missed"))
			settled = false;
	}
	json_decref(cov);
	json_decref(probs);
	return settled;
}

/*
 * The drill waits past its plain end only for expected alerts and the scheduler's drain and
 * resume; once every one of them is settled it can end.
 */
static bool drill_waits_settled(struct drill *d)
{
	if (!d->sc.expect.nr_alerts && !d->sched)
		return false;
	return (!d->sc.expect.nr_alerts || drill_alerts_settled(d)) && drill_sched_settled(d);
}

/*
 * Where Alertmanager sends its webhooks: --alert-receiver, the scenario's
 * monitoring.receiver, or the lab's (lab up --monitoring). "" when none.
 */
static int drill_start_alerts(struct drill *d)
{
	const char *addr = d->o->alert_receiver, *token_file = d->o->alert_token_file;
	char err[512], token[ALERTS_MAX_TOKEN + 2];
	int ret;

	if (!addr && d->sc.monitoring == SC_MON_EXTERNAL)
		addr = d->sc.receiver;
	if (!token_file && d->sc.receiver_token_file[0])
		token_file = d->sc.receiver_token_file;
	if (!addr && d->lab) {
		const json_t *mon = json_object_get(d->lab, "monitoring");

		addr = json_string_value(json_object_get(mon, "receiver"));
		if (!token_file)
			token_file = json_string_value(json_object_get(mon, "token_file"));
	}
	if (!addr) {
		if (d->sc.monitoring == SC_MON_LAB)
			drill_reason(
			    d, true,
			    "monitoring: lab, but the lab has no monitoring: run rdmachaos "
			    "lab down, then rdmachaos lab up --monitoring");
		else if (d->sc.expect.nr_alerts || d->sc.expect.nr_alert_signals)
			drill_reason(d, true,
				     "expect.alerts needs an alert source: give --alert-receiver "
				     "ADDR:PORT (and point Alertmanager at it), monitoring: "
				     "{receiver: ADDR:PORT}, or run the lab with --monitoring");
		return d->sc.monitoring == SC_MON_LAB ? -ENOENT : 0;
	}
	if (!token_file) {
		drill_reason(
		    d, true,
		    "alert receiver %s: give --alert-token-file FILE (or monitoring: "
		    "{receiver: ..., token_file: FILE}): the webhooks must carry its token "
		    "(Alertmanager: webhook_configs: http_config: authorization: "
		    "{type: Bearer, credentials_file: FILE}), so that nobody else can "
		    "post alerts that pass a drill",
		    addr);
		return -EINVAL;
	}
	ret = alerts_read_token(token_file, token, sizeof(token), err, sizeof(err));
	if (!ret)
		ret = alerts_start(addr, token, &d->alerts, err, sizeof(err));
	if (ret) {
		drill_reason(d, true, "%s", err);
		return ret;
	}
	snprintf(d->receiver, sizeof(d->receiver), "%s", addr);
	prog_event("rdmachaos: alert receiver listening on http://%s/alerts", addr);
	return 0;
}

/*
 * A fault that took effect late (a loaded host: 2.5 s in ci56) has its revert, its recovery
 * window and its failback window late by as much; the drill's end moves with them, or the
 * windows would close after it and leave the fault "not judged".
 */
static void drill_shift_end(struct drill *d, const struct drill_fault *f)
{
	double late = f->ev.injected_ms - (double)f->ev.decl->at_ms;

	if (!f->injected || !(late > 0))
		return;
	d->end_ms = fmax(d->end_ms, d->end_ms_planned + late);
	d->end_ms_plain = fmax(d->end_ms_plain, d->end_ms_plain_planned + late);
}

/*
 * The plan gives each recovery window three of the workload's sample intervals
 * (workload.interval) to be seen out, but a workload may report at a cadence of
 * its own (slurm-drain's MPI job every 3 s, not every 100 ms): once the
 * baseline says how often it reports, the drill's end moves so that two of its
 * samples fit after the windows, or the last one before the end may leave a
 * window not judged. A stream reporting every interval moves nothing.
 */
static void drill_fit_cadence(struct drill *d)
{
	double cadence, extra;

	if (!d->baseline.samples)
		return;
	cadence = (double)d->sc.baseline_ms / d->baseline.samples;
	extra = 2 * cadence - 3 * (double)d->sc.workload.interval_ms;
	if (!(extra > 0))
		return;
	d->end_ms_plain_planned += extra;
	/* the hard end (the scheduler's or the alerts' windows) is never before the plain one */
	d->end_ms_planned = fmax(d->end_ms_planned, d->end_ms_plain_planned);
	d->end_ms = fmax(d->end_ms, d->end_ms_planned);
	d->end_ms_plain = fmax(d->end_ms_plain, d->end_ms_plain_planned);
}

/* The fault timeline; returns when it is over or a stop was requested. */
static void drill_timeline(struct drill *d)
{
	const double baseline_end = (double)(d->sc.warmup_ms + d->sc.baseline_ms);
	unsigned int i;

	for (;;) {
		double now = drill_now_ms(d);

		drill_job_tick(d, now);
		drill_job_restart_tick(d, now);
		if (drill_stop_requested) {
			drill_reason(d, true, "stopped by the operator at %.1f s; faults reverted",
				     now / 1000.0);
			return;
		}
		if (!d->baseline_done && now >= baseline_end + 300) {
			ev_baseline(d->fl.events, (double)d->sc.warmup_ms, baseline_end,
				    &d->baseline);
			d->baseline_done = true;
			drill_print_baseline(d, now);
			if (!d->baseline.samples || d->baseline.throughput_mbps <= 0) {
				drill_reason(
				    d, true,
				    "no baseline: the workload moved no data in %.1f-%.1f s; "
				    "nothing was injected",
				    d->sc.warmup_ms / 1000.0, baseline_end / 1000.0);
				if (d->lab)
					prog_event(
					    "rdmachaos: in the lab, `rdmachaos lab check` says "
					    "whether a rail stopped taking rdma_cm connections "
					    "(Soft-RoCE 6.1, lab/README.md)");
				return;
			}
			if (drill_arm_guards(d, now, baseline_end))
				return;
			drill_fit_cadence(d);
		}
		if (drill_guards(d, now))
			return;
		for (i = 0; i < d->sc.nr_faults; i++) {
			struct drill_fault *f = &d->faults[i];
			const struct sc_fault *sf = f->ev.decl;

			if (!f->inject_tried && now >= (double)sf->at_ms) {
				drill_inject(d, f);
				drill_shift_end(d, f);
			}
			/*
			 * A fault lasts its declared duration from when it took effect: on a
			 * loaded host an inject can land late, and reverting on the declared
			 * clock would shorten it (a 1 s storm became 0.4 s).
			 */
			if (f->injected && !f->reverted && sf->duration_ms &&
			    now >= fmax((double)sf->at_ms, f->ev.injected_ms) +
				       (double)sf->duration_ms)
				drill_revert(d, f);
		}
		drill_take_alerts(d);
		drill_sched_take(d);
		if (now >= d->end_ms)
			return;
		if (now >= d->end_ms_plain && now >= d->settle_check_ms) {
			if (drill_waits_settled(d))
				return;
			d->settle_check_ms = now + 1000;
		}
		drill_renew(d, now);
		drill_progress(d, now);
		fleet_pump(&d->fl, 100);
	}
}

static int drill_write(struct drill *d, json_t *report)
{
	char path[4200];
	int ret;

	char err[4400];
	int ret2;

	snprintf(path, sizeof(path), "%s/events.jsonl", d->run_dir);
	ret = report_write_events(path, d->fl.events);
	if (ret)
		rc_err("%s: %s", path, strerror(-ret));
	/* Every format is attempted even when one fails: a CI gate may read just junit.xml. */
	ret2 = report_render(d->run_dir, report, d->fl.events, REPORT_FMT_ALL, err, sizeof(err));
	if (ret2)
		rc_err("%s", err);
	return ret ?: ret2;
}

/*
 * Loads and checks the scenario, makes the run folder and lays out the drill's windows, faults,
 * flows and guards. -1 when the drill is to run (d->set_up), else the exit code: a bad
 * scenario, a dry run, a run folder that cannot be made.
 */
static int drill_setup(struct drill *d)
{
	const struct drill_opts *o = d->o;
	char err[1024];
	double last_end = 0;
	unsigned int i;
	int ret;

	ret = scenario_load(o->scenario, &d->sc, err, sizeof(err));
	if (ret) {
		prog_event("rdmachaos: %s", err);
		return ret == -EINVAL ? RC_EXIT_SCENARIO : RC_EXIT_USAGE;
	}
	/* before the plan's checks: they then see the picked nodes and a fault per node */
	ret = sel_bind_from(&d->sc, o->fleet, o->have_seed ? o->seed : 1, err, sizeof(err));
	if (ret) {
		prog_event("rdmachaos: %s", err);
		return ret == -ENOENT ? RC_EXIT_USAGE : RC_EXIT_SCENARIO;
	}
	ret = plan_check(&d->sc, o->have_seed ? o->seed : 1, err, sizeof(err));
	if (ret) {
		prog_event("rdmachaos: %s", err);
		return RC_EXIT_SCENARIO;
	}
	if (o->dry_run) {
		plan_print(stdout, &d->sc, o);
		return RC_EXIT_PASS;
	}
	if (!d->sc.lab && o->lab) {
		prog_event("rdmachaos: %s declares nodes:, not lab:; drop --lab or declare "
			   "lab: {nodes: N, rails: R}",
			   o->scenario);
		return RC_EXIT_USAGE;
	}
	d->started_wall_ns = rc_wall_ns();
	ret = drill_out_dir(d);
	if (ret) {
		prog_event("rdmachaos: cannot create the run folder %s: %s", d->run_dir,
			   strerror(-ret));
		return RC_EXIT_USAGE;
	}
	prog_init(d->o->quiet ? PROG_PLAIN : d->o->progress);
	prog_event("rdmachaos: drill %s (%s), run folder %s", d->sc.name, d->sc.file, d->run_dir);
	if (d->sc.nr_selects) {
		char *buf = NULL;
		size_t len = 0;
		FILE *mf = open_memstream(&buf, &len);

		if (mf) {
			sel_print(mf, &d->sc, "");
			fclose(mf);
			for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n"))
				prog_event("rdmachaos: picked from %s: %s", d->sc.fleet_file, line);
		}
		free(buf);
	}
	for (i = 0; i < d->sc.nr_faults; i++) {
		const struct sc_fault *sf = &d->sc.faults[i];
		double end = (double)(sf->at_ms + sf->duration_ms);
		double rec =
		    (double)(sf->at_ms + d->sc.expect.recovery_within_ms +
			     d->sc.expect.recovery_sustain_ms + 3 * d->sc.workload.interval_ms);

		d->faults[i].ev.decl = sf;
		d->faults[i].ev.rail = sf->target.rail;
		d->faults[i].ev.injected_ms = -1;
		d->faults[i].ev.reverted_ms = -1;
		/* same-size arrays: plain copies (snprintf trips -Wrestrict here) */
		_Static_assert(sizeof(d->faults[i].ev.node) == sizeof(sf->target.node), "node");
		_Static_assert(sizeof(d->faults[i].ev.netdev) == sizeof(sf->target.netdev),
			       "netdev");
		memcpy(d->faults[i].ev.node, sf->target.node, sizeof(d->faults[i].ev.node));
		memcpy(d->faults[i].ev.netdev, sf->target.netdev, sizeof(d->faults[i].ev.netdev));
		last_end = fmax(last_end, fmax(end, rec));
		/* the failback is watched for its whole window after the revert */
		last_end = fmax(last_end, end + (double)d->sc.expect.failback_window_ms +
					      3 * (double)d->sc.workload.interval_ms);
	}
	d->end_ms = last_end + (double)d->sc.cooldown_ms + 1000;
	d->end_ms_plain = d->end_ms;
	/* the alerts' windows: the drill waits for them, and stops early once all are settled */
	for (i = 0; i < d->sc.nr_faults; i++) {
		const struct sc_fault *sf = &d->sc.faults[i];
		unsigned int k;

		for (k = 0; k < d->sc.expect.nr_alerts; k++) {
			const struct sc_alert_expect *a = &d->sc.expect.alerts[k];

			d->end_ms = fmax(d->end_ms, (double)(sf->at_ms + a->fire_within_ms) + 1000);
			d->end_ms = fmax(
			    d->end_ms,
			    (double)(sf->at_ms + sf->duration_ms + a->resolve_within_ms) + 1000);
		}
	}
	d->end_ms = drill_sched_end_ms(d, d->end_ms);
	d->end_ms_planned = d->end_ms;
	d->end_ms_plain_planned = d->end_ms_plain;
	d->flows[0].w = &d->sc.workload;
	d->flows[0].guard = -1;
	snprintf(d->flows[0].wl_id, sizeof(d->flows[0].wl_id), "%s", DRILL_WL_ID);
	d->nr_flows = 1;
	for (i = 0; i < d->sc.safety.nr_guards; i++) {
		guard_init(&d->guards[i], &d->sc.safety.guards[i]);
		if (d->sc.safety.guards[i].has_flow) {
			struct drill_flow *f = &d->flows[d->nr_flows++];

			f->w = &d->sc.safety.guards[i].flow;
			f->guard = (int)i;
			snprintf(f->wl_id, sizeof(f->wl_id), "guard-%u", i % SC_MAX_GUARDS);
		}
	}
	d->set_up = true;
	return -1;
}

/*
 * The lab or the fleet, clocks, alerts, workloads, the timeline; then every fault reverted, the
 * workloads stopped and a revert_all on every node. Whatever fails on the way ends it early: the
 * verdict says why from what was (not) measured.
 */
static void drill_execute(struct drill *d)
{
	unsigned int i;

	if (d->sc.lab && drill_prepare_lab(d))
		return;
	if (drill_setup_fleet(d) || drill_handshake(d) || drill_start_alerts(d) ||
	    drill_sched_start(d))
		return;
	fprintf(stderr, "rdmachaos: %u nodes ready; clocks aligned:", d->fl.nr_agents);
	for (i = 0; i < d->fl.nr_agents; i++)
		fprintf(stderr, " %s %+.3f ms (+/- %.3f ms)", d->fl.agents[i].name,
			d->fl.agents[i].clock.offset_ns / 1e6,
			d->fl.agents[i].clock.uncertainty_ns / 1e6);
	fputc('\n', stderr);
	if (!drill_start_workloads(d)) {
		const struct sc_job *job = d->sc.workload.job;
		char what[160];
		size_t n;

		/* a job's from and to are its first rank's node: name the nodes it runs on
		 * (cut short past the buffer: a progress line) */
		if (job) {
			n = (size_t)snprintf(what, sizeof(what), "job on");
			for (i = 0; i < job->nr_nodes && n < sizeof(what); i++)
				n += (size_t)snprintf(what + n, sizeof(what) - n, "%s%s",
						      i ? ", " : " ", job->nodes[i]);
		} else {
			snprintf(what, sizeof(what), "workload %s -> %s", d->sc.workload.from,
				 d->sc.workload.to);
		}
		prog_event("rdmachaos: %s running; warm-up %.1f s, baseline %.1f s, "
			   "drill ends at %.1f s",
			   what, d->sc.warmup_ms / 1000.0, d->sc.baseline_ms / 1000.0,
			   d->end_ms / 1000.0);
		drill_timeline(d);
	}
	/* Reverts first: the workload keeps running so recovery stays observable. */
	for (i = 0; i < d->sc.nr_faults; i++)
		drill_revert(d, &d->faults[i]);
	d->sched_end_ms = drill_now_ms(d);
	drill_stop_workloads(d);
	drill_sched_cleanup(d);
	drill_revert_all(d);
	drill_check_clocks(d);
}

/* Each fault's measures, the evidence's gaps, integrity, alert coverage: the verdict. */
static enum ev_verdict drill_judge(struct drill *d, struct ev_integrity *in, json_t *reasons)
{
	struct ev_fault_result results[SC_MAX_FAULTS];
	struct ev_fault evf[SC_MAX_FAULTS];
	struct ev_drill_outcome out = {.own_reasons = d->reasons, .aborted = d->aborted_by >= 0};
	json_t *probs = NULL, *job_probs = json_array(), *sched_probs = NULL;
	enum ev_verdict v;
	unsigned int i;

	drill_job_judge(d, job_probs); /* its reasons (a path not checked) before they are read */
	/* no baseline on a clock that started before any traffic could (a job never ready) */
	if (!d->baseline_done && d->fl.t0_ns && (d->job.t0_set || !d->job.t0_early))
		ev_baseline(d->fl.events, (double)d->sc.warmup_ms,
			    (double)(d->sc.warmup_ms + d->sc.baseline_ms), &d->baseline);
	for (i = 0; i < d->sc.nr_faults; i++) {
		struct drill_fault *f = &d->faults[i];
		unsigned int k;

		/* a failback is judged until the next injection of the drill */
		f->ev.next_injected_ms = -1;
		for (k = 0; k < d->sc.nr_faults; k++) {
			const struct drill_fault *other = &d->faults[k];

			if (other != f && other->injected &&
			    other->ev.injected_ms > f->ev.injected_ms &&
			    (f->ev.next_injected_ms < 0 ||
			     other->ev.injected_ms < f->ev.next_injected_ms))
				f->ev.next_injected_ms = other->ev.injected_ms;
		}
		/* (a fault never injected gets its measures' "not injected" notes) */
		ev_evaluate_fault(d->fl.events, &d->sc.expect, &d->baseline, &f->ev, &f->result);
	}
	for (i = 0; i < d->fl.nr_agents; i++) {
		const struct fl_agent *a = &d->fl.agents[i];

		/* A node that went silent mid-drill: its part of the evidence is missing. */
		if (d->fl.t0_ns && a->dropped_ns > d->fl.t0_ns)
			drill_reason(
			    d, true,
			    "signal source down: the connection to %s's agent was lost at "
			    "%.1f s; its link, port, counter, PFC and workload events stop "
			    "there, so the evidence is incomplete",
			    a->name, (double)(a->dropped_ns - d->fl.t0_ns) / 1e9);
	}
	ev_integrity(d->fl.events, in);
	for (i = 0; i < d->sc.nr_faults; i++)
		results[i] = d->faults[i].result;
	drill_fault_evs(d, evf);
	json_array_extend(reasons, d->reasons);
	v = ev_verdict(&d->sc.expect, &d->baseline, results, evf, d->sc.nr_faults, in,
		       d->cleanup_ok, reasons);
	drill_take_alerts(d);
	if (d->alerts || d->sc.expect.nr_alerts) {
		probs = json_array();
		/* a missed or late alert fails the drill: the on-call would not have known */
		if (cov_alerts(d->fl.events, &d->sc.expect, evf, d->sc.nr_faults, &d->alert_report,
			       probs) &&
		    d->alerts)
			out.alert_problems = probs;
	}
	if (json_array_size(job_probs))
		out.job_problems = job_probs;
	drill_sched_judge(d, d->sched_end_ms >= 0 ? d->sched_end_ms : drill_now_ms(d),
			  &sched_probs);
	out.sched_problems = sched_probs;
	out.inconclusive = d->inconclusive;
	out.stop_requested = drill_stop_requested;
	v = ev_drill_verdict(v, &out, reasons);
	json_decref(probs);
	json_decref(job_probs);
	json_decref(sched_probs);
	return v;
}

/* One line per fault, then the reasons, then the verdict and where the report is. */
static void drill_print(const struct drill *d, enum ev_verdict v, json_t *reasons, int code)
{
	unsigned int i;
	json_t *r;
	size_t k;

	for (i = 0; i < d->sc.nr_faults; i++) {
		const struct drill_fault *f = &d->faults[i];

		prog_event("rdmachaos: %s: detection %s, isolation %s, recovery %s",
			   f->ev.decl->name,
			   f->result.detection.seen ? (f->result.detection.ok ? "ok" : "late")
						    : "not seen",
			   !f->result.isolation_checked ? "not checked"
			   : f->result.isolation.seen	? (f->result.isolation.ok ? "ok" : "late")
							: "not seen",
			   f->result.recovery.ok ? "ok" : "NOT met");
		if (f->result.detection.seen)
			fprintf(stderr, "    detection %.0f ms (%s)", f->result.detection.ms,
				f->result.detection.signal);
		if (f->result.isolation.seen)
			fprintf(stderr, ", isolation %.0f ms (%s)", f->result.isolation.ms,
				f->result.isolation.signal);
		if (f->result.recovery.seen)
			fprintf(stderr, ", recovery %.0f ms", f->result.recovery.ms);
		fputc('\n', stderr);
	}
	json_array_foreach(reasons, k, r)
		prog_event("rdmachaos:   - %s", json_string_value(r));
	printf("verdict: %s (exit %d)\nreport: %s/report.md\n", ev_verdict_name(v), code,
	       d->run_dir);
	fflush(stdout);
}

/* The reports written, the summary printed, the lab stopped if this drill started it. */
static int drill_finish(struct drill *d, enum ev_verdict v, json_t *reasons,
			const struct ev_integrity *in)
{
	uint64_t t0_wall_ns = d->started_wall_ns;
	json_t *report;
	int ret, code;

	if (d->fl.t0_ns) /* t0 on the wall clock, for the report's timestamps */
		t0_wall_ns = rc_wall_ns() - (rc_now_ns() - d->fl.t0_ns);
	report = drill_report(d, v, reasons, in, t0_wall_ns);
	ret = drill_write(d, report);
	json_decref(report);
	code = ev_verdict_exit_code(v);
	if (ret) {
		prog_event("rdmachaos: writing the reports into %s: %s", d->run_dir,
			   strerror(-ret));
		code = RC_EXIT_INTERNAL;
	}
	drill_print(d, v, reasons, code);
	if (d->lab_started_here) {
		prog_event("rdmachaos: stopping the lab this drill started");
		labenv_down();
	}
	return code;
}

static void drill_free(struct drill *d)
{
	unsigned int i;

	if (d->set_up) {
		alerts_stop(d->alerts);
		json_decref(d->alert_report);
		drill_sched_free(d);
		drill_job_free(d);
		fleet_free(&d->fl);
		for (i = 0; i < d->sc.safety.nr_guards; i++)
			guard_close(&d->guards[i]);
		json_decref(d->lab);
		for (i = 0; i < d->sc.nr_faults; i++)
			json_decref(d->faults[i].inject_result);
	}
	scenario_free(&d->sc);
	json_decref(d->reasons);
	json_decref(d->cleanup);
	free(d);
}

int drill_run(const struct drill_opts *o)
{
	struct drill *d = calloc(1, sizeof(*d));
	struct ev_integrity in = {0};
	json_t *reasons;
	enum ev_verdict v;
	int code;

	if (!d)
		return RC_EXIT_INTERNAL;
	d->o = o;
	d->reasons = json_array();
	d->cleanup = json_array();
	d->cleanup_ok = true;
	d->last_rail = -1;
	d->aborted_by = -1;
	d->sched_end_ms = -1;
	code = drill_setup(d);
	if (code < 0) {
		drill_execute(d);
		prog_done();
		reasons = json_array();
		v = drill_judge(d, &in, reasons);
		code = drill_finish(d, v, reasons, &in);
		json_decref(reasons);
	}
	drill_free(d);
	return code;
}
