// SPDX-License-Identifier: MIT
/*
 * A user's job as the drill's workload (docs/SCENARIOS.md, "Jobs"): its ranks
 * started in order through the agents (workload_start with "job",
 * docs/PROTOCOL.md), its output mapped onto the stream's vocabulary so that
 * baseline, detection and recovery are judged exactly as for the stream (a
 * throughput sample is an `interval`, an error line an `error`), the evidence
 * of its RDMA path asked of every rank's agent (job_path) at the baseline's
 * start and end and at the drill's end, and its outcome and path judged.
 *
 * Every node of the job is asked, by the job's tag (RDMACHAOS_JOB): with a
 * launcher (mpirun, srun), the ranks it starts elsewhere are found by the tag
 * they inherit, though no agent started them.
 */
#include <errno.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "common/units.h"
#include "coordinator/drill_priv.h"
#include "coordinator/job_template.h"
#include "coordinator/progress.h"

#define DRILL_JOB_ARG_LEN 4096

/*
 * The time limit the agents hold a job to when the drill names none: the waits for the ranks'
 * ready lines (ready_within each), the drill's length, and a minute to spare. The agent's clock
 * starts at the rank's start, before the ready wait, so a limit without it stopped a slow launcher
 * mid-drill.
 */
static uint64_t dj_default_time_limit_ms(const struct drill *d)
{
	const struct sc_job *j = d->sc.workload.job;

	return j->ready_within_ms * j->nr_ranks + (uint64_t)d->end_ms + 60000;
}

enum { DJ_AT_BASELINE_START, DJ_AT_BASELINE_END, DJ_AT_END };
static const char *const dj_when[] = {"baseline_start", "baseline_end", "end"};

static int dj_addr(void *arg, const char *node, int rail, char *buf, size_t len)
{
	return drill_rail_addr(arg, node, rail, buf, len);
}

static int dj_rank_of(const struct sc_job *j, const char *node)
{
	unsigned int i;

	for (i = 0; node && i < j->nr_ranks; i++)
		if (!strcmp(j->ranks[i].node, node))
			return (int)i;
	return -1;
}

/* The folder of this program (readlink /proc/self/exe), for {bindir}; "." if unknown. */
static const char *dj_bindir(void)
{
	static char dir[4096];
	char *slash;
	ssize_t n;

	if (dir[0])
		return dir;
	n = readlink("/proc/self/exe", dir, sizeof(dir) - 1);
	if (n <= 0) {
		strcpy(dir, ".");
		return dir;
	}
	dir[n] = '\0';
	slash = strrchr(dir, '/');
	if (slash && slash != dir)
		*slash = '\0';
	return dir;
}

/* The job request of rank i: its templates filled in, its rules. NULL with a sentence in err. */
static json_t *dj_request(struct drill *d, const struct sc_workload *w, unsigned int i, char *err,
			  size_t errlen)
{
	const struct sc_job *j = w->job;
	const char *nodes[SC_JOB_MAX_RANKS];
	/* {size}, {nodes}, {addrs:R}: the job's nodes (a launcher's ranks run there too) */
	struct jt_ctx ctx = {.rank = i,
			     .size = j->nr_nodes,
			     .node = j->ranks[i].node,
			     .nodes = nodes,
			     .duration_s = (uint64_t)ceil(d->end_ms / 1000.0),
			     .bindir = dj_bindir(),
			     .addr = dj_addr,
			     .arg = d};
	json_t *argv = json_array(), *env = json_object(), *rules = json_array(), *job, *v;
	char out[DRILL_JOB_ARG_LEN], name[16];
	const char *key;
	unsigned int k;
	size_t n;

	for (k = 0; k < j->nr_nodes; k++)
		nodes[k] = j->nodes[k];
	json_array_foreach(j->ranks[i].argv, n, v) {
		if (jt_expand(json_string_value(v), &ctx, out, sizeof(out), err, errlen))
			goto fail;
		json_array_append_new(argv, json_string(out));
	}
	json_object_foreach(j->env, key, v) {
		if (jt_expand(json_string_value(v), &ctx, out, sizeof(out), err, errlen))
			goto fail;
		json_object_set_new(env, key, json_string(out));
	}
	/* the tag job_path finds the job's processes by, on every node (a launcher forwards it) */
	if (!json_object_get(env, "RDMACHAOS_JOB"))
		json_object_set_new(env, "RDMACHAOS_JOB", json_string(d->job.tag));
	if (j->tp_regex[0] && (!j->tp_node[0] || !strcmp(j->tp_node, j->ranks[i].node)))
		json_array_append_new(rules, json_pack("{s:s, s:s, s:s, s:i}", "name", "throughput",
						       "regex", j->tp_regex, "kind", "sample",
						       "group", (int)j->tp_group));
	for (k = 0; k < j->nr_errors; k++) {
		snprintf(name, sizeof(name), "error%u", k);
		json_array_append_new(rules, json_pack("{s:s, s:s, s:s}", "name", name, "regex",
						       j->errors[k], "kind", "error"));
	}
	job = json_pack(
	    "{s:o, s:o, s:o, s:I}", "argv", argv, "env", env, "rules", rules, "time_limit_ms",
	    (json_int_t)(j->time_limit_ms ? j->time_limit_ms : dj_default_time_limit_ms(d)));
	if (job && j->cwd[0])
		json_object_set_new(job, "cwd", json_string(j->cwd));
	return job;
fail:
	json_decref(argv);
	json_decref(env);
	json_decref(rules);
	return NULL;
}

int drill_job_ready_event(const json_t *ev, const char *node, int pid, const regex_t *re)
{
	const char *type = json_string_value(json_object_get(ev, "type"));
	const char *from = json_string_value(json_object_get(ev, "node"));
	const char *text = json_string_value(json_object_get(ev, "text"));

	if (!type || !from || strcmp(from, node) ||
	    strcmp(json_string_value(json_object_get(ev, "wl_id")) ?: "", DRILL_WL_ID))
		return 0;
	/* an exit of a process the drill stopped before (a failed try) is not this one's */
	if (!strcmp(type, "exit"))
		return pid > 0 && json_integer_value(json_object_get(ev, "pid")) != pid ? 0 : -1;
	return !strcmp(type, "line") && text && !regexec(re, text, 0, NULL, 0);
}

#define DJ_LAST_LINES 3	       /* what a reason quotes of a rank's output */
#define DJ_LAST_LINE_CHARS 120 /* of each line */

void drill_job_last_lines(const struct drill *d, const char *node, size_t from, char *buf,
			  size_t len)
{
	const char *lines[DJ_LAST_LINES];
	unsigned int n = 0;
	size_t k, used;

	buf[0] = '\0';
	for (k = json_array_size(d->fl.events); k-- > from && n < DJ_LAST_LINES;) {
		const json_t *ev = json_array_get(d->fl.events, k);
		const char *text = json_string_value(json_object_get(ev, "text"));

		if (text && text[0] &&
		    !strcmp(json_string_value(json_object_get(ev, "type")) ?: "", "line") &&
		    !strcmp(json_string_value(json_object_get(ev, "node")) ?: "", node) &&
		    !strcmp(json_string_value(json_object_get(ev, "wl_id")) ?: "", DRILL_WL_ID))
			lines[n++] = text;
	}
	if (!n)
		return;
	used = (size_t)snprintf(buf, len, "; its last line%s: ", n > 1 ? "s" : "");
	while (n-- > 0 && used < len) /* oldest first */
		used += (size_t)snprintf(buf + used, len - used, "'%.*s'%s", DJ_LAST_LINE_CHARS,
					 lines[n], n ? " | " : "");
}

struct dj_ready {
	const struct sc_job_rank *rank;
	int pid;
	regex_t re;
};

static bool dj_ready_or_exit(json_t *ev, void *arg)
{
	const struct dj_ready *r = arg;

	return drill_job_ready_event(ev, r->rank->node, r->pid, &r->re) != 0;
}

/*
 * Waits until rank i printed a line matching its `ready`, or exited (-ECHILD, its status in
 * *status), or ready_within passed; looks at the events from index from on.
 */
static int dj_await_ready(struct drill *d, const struct sc_workload *w, unsigned int i, size_t from,
			  int *status)
{
	struct dj_ready r = {.rank = &w->job->ranks[i], .pid = d->job.pid[i]};
	json_t *ev;
	int ret;

	if (regcomp(&r.re, r.rank->ready, REG_EXTENDED | REG_NOSUB))
		return -EINVAL; /* checked when the scenario was read */
	ret = drill_await_event(d, from, w->job->ready_within_ms, dj_ready_or_exit, &r, &ev);
	regfree(&r.re);
	if (ret) {
		drill_reason(d, true,
			     "job rank %u on %s printed no line matching /%s/ within %.0f s "
			     "(ready_within)",
			     i, r.rank->node, r.rank->ready, w->job->ready_within_ms / 1000.0);
		return ret;
	}
	if (!strcmp(json_string_value(json_object_get(ev, "type")), "exit")) {
		*status = (int)json_integer_value(json_object_get(ev, "exit_status"));
		return -ECHILD;
	}
	return 0;
}

/* "SCENARIO-HEX": the drill's name (its characters that a tag may hold) and its start time. */
static void dj_make_tag(struct drill *d)
{
	size_t i, n = 0;

	for (i = 0; d->sc.name[i] && n < 40; i++) {
		char c = d->sc.name[i];

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    c == '.' || c == '_' || c == '-')
			d->job.tag[n++] = c;
	}
	snprintf(d->job.tag + n, sizeof(d->job.tag) - n, "%s%llx", n ? "-" : "job-",
		 (unsigned long long)d->started_wall_ns);
}

int drill_job_start_rank(struct drill *d, struct drill_flow *f, unsigned int i, char *err,
			 size_t errlen)
{
	const struct sc_job *j = f->w->job;
	const char *node = j->ranks[i].node;
	struct fl_agent *a = fleet_find(&d->fl, node);
	json_t *job = dj_request(d, f->w, i, err, errlen), *req, *res = NULL;
	int ret;

	if (!job)
		return -EINVAL;
	if (json_array_size(d->job.commands) > i)
		json_array_set(d->job.commands, i, json_object_get(job, "argv"));
	else
		json_array_append(d->job.commands, json_object_get(job, "argv"));
	req = json_pack("{s:s, s:s, s:b, s:s, s:o}", "op", "workload_start", "wl_id", f->wl_id,
			"stop_on_close", 1, "role", j->launcher ? "launcher" : "rank", "job", job);
	drill_workload_needs(d, node, req);
	if (j->cpu_pct)
		json_object_set_new(req, "cpu_max_pct", json_integer(j->cpu_pct));
	/* the last rank starts the traffic: the drill's t0, unless it says when it is ready */
	if (i == j->nr_ranks - 1 && !j->ranks[i].ready[0] && !d->job.t0_set) {
		fleet_set_t0(&d->fl, rc_now_ns());
		d->job.t0_set = true;
	}
	ret = a ? fleet_call(&d->fl, a, req, DRILL_CALL_MS, &res, err, errlen) : -ENOENT;
	if (!a)
		snprintf(err, errlen, "no agent for %s", node);
	json_decref(req);
	if (!ret) {
		d->job.started[i] = true;
		d->job.exited[i] = d->job.time_limit[i] = false;
		d->job.pid[i] = (int)json_integer_value(json_object_get(res, "pid"));
		prog_event("rdmachaos: job rank %u started on %s", i, node);
	}
	json_decref(res);
	return ret;
}

bool drill_job_start_failed(struct drill *d, struct drill_flow *f, unsigned int i, int status)
{
	const struct sc_job *j = f->w->job;
	unsigned int k;

	if (!d->job.start_failures)
		d->job.start_failures = json_array();
	json_array_append_new(d->job.start_failures,
			      json_pack("{s:i, s:s, s:i, s:f, s:i}", "rank", (int)i, "node",
					j->ranks[i].node, "exit_status", status, "t_ms",
					drill_now_ms(d), "try", (int)d->job.start_try));
	if (d->job.start_try >= j->start_tries)
		return false;
	prog_event("rdmachaos: job rank %u on %s exited (status %d) before it said ready: try %u "
		   "of %u failed; stopping every rank, starting again",
		   i, j->ranks[i].node, status, d->job.start_try, j->start_tries);
	for (k = j->nr_ranks; k-- > 0;) {
		drill_job_stop_rank(d, f, k);
		d->job.pid[k] = -1; /* no exit of this try counts any more */
	}
	d->job.start_try++;
	return true;
}

/* Starts every rank in order, each waiting for its ready line: one try of start_tries. */
static int dj_start_try(struct drill *d, struct drill_flow *f, bool *again)
{
	const struct sc_job *j = f->w->job;
	char err[512];
	unsigned int i;
	int ret, status = 0;
	size_t from;

	*again = false;
	for (i = 0; i < j->nr_ranks; i++) {
		/* its ready line may come while the start is being answered */
		from = json_array_size(d->fl.events);
		ret = drill_job_start_rank(d, f, i, err, sizeof(err));
		if (ret) {
			drill_reason(d, true, "job rank %u on %s: %s", i, j->ranks[i].node, err);
			return ret;
		}
		if (!j->ranks[i].ready[0])
			continue;
		ret = dj_await_ready(d, f->w, i, from, &status);
		if (ret == -ECHILD && drill_job_start_failed(d, f, i, status)) {
			*again = true;
			return ret;
		}
		if (ret == -ECHILD) {
			char said[DRILL_JOB_SAID_LEN];

			fleet_pump(&d->fl, 200); /* its last lines may trail its exit */
			drill_job_last_lines(d, j->ranks[i].node, from, said, sizeof(said));
			drill_reason(d, true,
				     "job rank %u on %s exited (status %d) before it said ready "
				     "(/%s/)%s%s",
				     i, j->ranks[i].node, status, j->ranks[i].ready,
				     j->start_tries > 1 ? ", at every try of start_tries" : "",
				     said);
		}
		if (ret)
			return ret;
		if (i == j->nr_ranks - 1 && !d->job.t0_set) {
			fleet_set_t0(&d->fl, rc_now_ns());
			d->job.t0_set = true;
		}
	}
	return 0;
}

int drill_job_start(struct drill *d, struct drill_flow *f)
{
	unsigned int i;
	bool again;
	int ret;

	d->job.stop_ms = -1;
	d->job.last_tp_ms = -1;
	d->job.restart_at_ms = -1;
	d->job.restart_rank = -1;
	for (i = 0; i < SC_MAX_RAILS; i++)
		d->job.ctr_last_ms[i] = -1;
	dj_make_tag(d);
	if (!d->job.path)
		d->job.path = json_array();
	if (!d->job.commands)
		d->job.commands = json_array();
	if (!d->job.restarts)
		d->job.restarts = json_array();
	/*
	 * Until the job says it is ready (which sets the drill's t0), its clock runs from here:
	 * a rank that exits before then is timed from its start, not from this host's boot.
	 */
	if (!d->fl.t0_ns) {
		fleet_set_t0(&d->fl, rc_now_ns());
		d->job.t0_early = true;
	}
	d->job.starting = true;
	d->job.start_try = 1;
	do
		ret = dj_start_try(d, f, &again);
	while (again && !drill_stop_requested);
	d->job.starting = false;
	return ret;
}

void drill_job_stop_rank(struct drill *d, struct drill_flow *f, unsigned int i)
{
	const char *node = f->w->job->ranks[i].node;
	struct fl_agent *a = fleet_find(&d->fl, node);
	json_t *req, *res = NULL;
	char err[512];

	if (!d->job.started[i] || !a || !a->connected)
		return;
	/* the agent answers once the rank has exited: SIGKILL at the grace's end, at the latest */
	req = json_pack("{s:s, s:s, s:I}", "op", "workload_stop", "wl_id", f->wl_id, "timeout_ms",
			(json_int_t)f->w->job->stop_grace_ms);
	d->job.stopping[i] = true;
	if (fleet_call(&d->fl, a, req, (int)f->w->job->stop_grace_ms + DRILL_CALL_MS, &res, err,
		       sizeof(err)))
		drill_reason(d, false, "stopping job rank %u on %s: %s", i, node, err);
	d->job.stopping[i] = false;
	json_decref(req);
	json_decref(res);
	d->job.started[i] = false;
}

/* The last ranks first: a client before its server, as for the stream. */
void drill_job_stop(struct drill *d, struct drill_flow *f)
{
	unsigned int i;

	d->job.stop_ms = drill_now_ms(d);
	d->job.restart_at_ms = -1;
	for (i = f->w->job->nr_ranks; i-- > 0;)
		drill_job_stop_rank(d, f, i);
}

/* The factor from a throughput rule's unit to MB/s (10^6 bytes/s); 1 for what is not a rate. */
static double dj_unit_factor(const char *unit)
{
	static const struct {
		const char *unit;
		double mbps;
	} units[] = {
	    {"MB/s", 1},	 {"MB/sec", 1},		 {"GB/s", 1000},    {"KB/s", 1e-3},
	    {"MiB/s", 1.048576}, {"GiB/s", 1073.741824}, {"Gb/s", 125},	    {"Gbit/s", 125},
	    {"Gb/sec", 125},	 {"Mb/s", 0.125},	 {"Mbit/s", 0.125},
	};
	size_t i;

	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(unit, units[i].unit))
			return units[i].mbps;
	return 1;
}

/*
 * A sample in MB/s. A unit "<N>B/line" counts N-byte messages since the line before (perftest's
 * #iterations column), turned into a rate over the time between the lines as they arrived: that
 * holds when the job's own clock does not (perftest times with a CPU rate it measures at start,
 * which fails on a busy host and makes every bandwidth column 0.00). Other units scale by
 * dj_unit_factor().
 */
static double dj_sample_mbps(const char *unit, double value, double iv_ms)
{
	unsigned long long bytes;
	int end = 0;

	if (sscanf(unit, "%lluB/line%n", &bytes, &end) == 1 && !unit[end] && bytes && iv_ms > 0)
		return value * (double)bytes / iv_ms / 1000.0;
	return value * dj_unit_factor(unit);
}

json_t *drill_job_map(struct drill *d, const json_t *ev)
{
	const struct sc_workload *w = &d->sc.workload;
	const char *type = json_string_value(json_object_get(ev, "type"));
	const char *node = json_string_value(json_object_get(ev, "node"));
	const char *wl = json_string_value(json_object_get(ev, "wl_id"));
	json_t *out;
	int rank;

	if (!w->job || !type || !wl || strcmp(wl, DRILL_WL_ID))
		return NULL;
	rank = dj_rank_of(w->job, node);
	/* an exit of the rank's current process (not of one a restart replaced) */
	if (!strcmp(type, "exit") && rank >= 0 && !d->job.exited[rank] &&
	    (!d->job.pid[rank] ||
	     json_integer_value(json_object_get(ev, "pid")) == d->job.pid[rank])) {
		d->job.exited[rank] = true;
		d->job.exit_status[rank] =
		    (int)json_integer_value(json_object_get(ev, "exit_status"));
		d->job.exit_ms[rank] = json_number_value(json_object_get(ev, "t_ms"));
		d->job.time_limit[rank] = json_is_true(json_object_get(ev, "time_limit"));
		if (d->job.stopping[rank] || d->job.starting)
			return NULL;
		drill_job_exited(d, (unsigned int)rank);
		/* the job_exit signal: a rank that ended by itself (not at its time limit), and not
		 * well */
		if ((!d->job.exit_status[rank] && !json_object_get(ev, "signal")) ||
		    d->job.time_limit[rank])
			return NULL;
		out = json_pack("{s:s, s:s, s:s, s:s, s:O, s:O, s:i, s:i, s:s}", "kind", "workload",
				"type", "job_exit", "role", "client", "wl_id", wl, "ts_ns",
				json_object_get(ev, "ts_ns"), "t_ms", json_object_get(ev, "t_ms"),
				"rank", rank, "exit_status", d->job.exit_status[rank], "source",
				"job");
	} else if (!strcmp(type, "job_sample") &&
		   !strcmp(json_string_value(json_object_get(ev, "name")) ?: "", "throughput")) {
		double t = json_number_value(json_object_get(ev, "t_ms"));
		/* a sample covers the time since the one before: the job's own cadence */
		double iv = d->job.last_tp_ms >= 0 && t > d->job.last_tp_ms
				? t - d->job.last_tp_ms
				: (d->job.last_iv_ms > 0 ? d->job.last_iv_ms : 1000);

		d->job.last_tp_ms = t;
		d->job.last_iv_ms = iv;
		out = json_pack("{s:s, s:s, s:s, s:s, s:O, s:O, s:f, s:f, s:s}", "kind", "workload",
				"type", "interval", "role", "client", "wl_id", wl, "ts_ns",
				json_object_get(ev, "ts_ns"), "t_ms", json_object_get(ev, "t_ms"),
				"mbps",
				dj_sample_mbps(w->job->tp_unit,
					       json_number_value(json_object_get(ev, "value")), iv),
				"interval_ms", iv, "source", "job");
	} else if (!strcmp(type, "job_error")) {
		const char *text = json_string_value(json_object_get(ev, "text")) ?: "";
		const char *wc = strstr(text, "IBV_WC_");
		char status[48] = "JOB_ERROR";
		size_t n;

		if (wc) {
			for (n = 7; wc[n] && (wc[n] == '_' || (wc[n] >= 'A' && wc[n] <= 'Z')) &&
				    n < sizeof(status) - 1;
			     n++)
				;
			snprintf(status, sizeof(status), "%.*s", (int)(n - 7), wc + 7);
		}
		out = json_pack("{s:s, s:s, s:s, s:s, s:O, s:O, s:s, s:s, s:s}", "kind", "workload",
				"type", "error", "role", "client", "wl_id", wl, "ts_ns",
				json_object_get(ev, "ts_ns"), "t_ms", json_object_get(ev, "t_ms"),
				"wc_status", status, "text", text, "source", "job");
	} else {
		return NULL;
	}
	if (out && node)
		json_object_set_new(out, "node", json_string(node));
	/* one rail: what the job says is about it; more: about none in particular */
	if (out && w->nr_rails == 1)
		json_object_set_new(out, "rail", json_integer(w->rails[0]));
	return out;
}

/* The peers of job node k: the other job nodes' addresses on the job's rails. */
static json_t *dj_peers(struct drill *d, unsigned int k)
{
	const struct sc_workload *w = &d->sc.workload;
	json_t *peers = json_array();
	char addr[64];
	unsigned int i, r;

	for (i = 0; i < w->job->nr_nodes; i++)
		for (r = 0; i != k && r < w->nr_rails; r++)
			if (!drill_rail_addr(d, w->job->nodes[i], w->rails[r], addr, sizeof(addr)))
				json_array_append_new(peers, json_string(addr));
	return peers;
}

/* job_path on every node of the job: its processes by tag, whoever started them. */
static void dj_path(struct drill *d, int when)
{
	const struct sc_job *j = d->sc.workload.job;
	unsigned int k;

	d->job.path_at[when] = true;
	for (k = 0; k < j->nr_nodes; k++) {
		struct fl_agent *a = fleet_find(&d->fl, j->nodes[k]);
		int rank = dj_rank_of(j, j->nodes[k]);
		json_t *req, *res = NULL, *rec;
		char err[512];

		if (!a || !a->connected)
			continue;
		req = json_pack("{s:s, s:s, s:o}", "op", "job_path", "tag", d->job.tag, "peers",
				dj_peers(d, k));
		rec = json_pack("{s:s, s:s, s:i, s:f}", "when", dj_when[when], "node", j->nodes[k],
				"rank", rank, "t_ms", drill_now_ms(d));
		if (fleet_call(&d->fl, a, req, DRILL_CALL_MS, &res, err, sizeof(err)))
			json_object_set_new(rec, "error", json_string(err));
		else
			json_object_set_new(rec, "result", json_incref(res));
		json_array_append_new(d->job.path, rec);
		json_decref(req);
		json_decref(res);
	}
}

void drill_job_tick(struct drill *d, double now_ms)
{
	if (!d->sc.workload.job)
		return;
	if (!d->job.path_at[DJ_AT_BASELINE_START] && now_ms >= (double)d->sc.warmup_ms)
		dj_path(d, DJ_AT_BASELINE_START);
	if (!d->job.path_at[DJ_AT_BASELINE_END] &&
	    now_ms >= (double)(d->sc.warmup_ms + d->sc.baseline_ms))
		dj_path(d, DJ_AT_BASELINE_END);
}

/* The record of node's job_path at when, or NULL. */
static const json_t *dj_path_rec(const struct drill *d, const char *node, int when)
{
	const json_t *rec;
	size_t i;

	json_array_foreach(d->job.path, i, rec)
		if (!strcmp(json_string_value(json_object_get(rec, "node")) ?: "", node) &&
		    !strcmp(json_string_value(json_object_get(rec, "when")) ?: "", dj_when[when]))
			return rec;
	return NULL;
}

/* A byte count as people read it: 3 KB, 1.2 GB (powers of 1000, as the report's rates). */
static void dj_bytes(uint64_t n, char *buf, size_t len)
{
	static const char *const unit[] = {"B", "KB", "MB", "GB", "TB"};
	double v = (double)n;
	unsigned int u = 0;

	while (v >= 1000 && u < 4) {
		v /= 1000;
		u++;
	}
	if (!u)
		snprintf(buf, len, "%llu B", (unsigned long long)n);
	else
		snprintf(buf, len, "%.*f %s", v < 10 ? 1 : 0, v, unit[u]);
}

/* The QP is connected: RTS sends, RTR only receives (the target of RDMA writes stays there). */
static bool dj_qp_connected(const json_t *q)
{
	const char *st = json_string_value(json_object_get(q, "state")) ?: "";

	return !strcmp(st, "RTS") || !strcmp(st, "RTR");
}

/* Port p (a job_path result's "ports" entry) holds one of the connected QPs in qps. */
static bool dj_port_of_job(const json_t *p, const json_t *qps)
{
	const json_t *q;
	size_t k;

	json_array_foreach(qps, k, q)
		if (dj_qp_connected(q) &&
		    !strcmp(json_string_value(json_object_get(q, "device")) ?: "",
			    json_string_value(json_object_get(p, "device")) ?: "-") &&
		    json_integer_value(json_object_get(q, "port")) ==
			json_integer_value(json_object_get(p, "port")))
			return true;
	return false;
}

/*
 * Packets (or bytes, bytes winning) in a job_path result over the RDMA ports that hold the
 * job's connected QPs in qps: another port's traffic (another job's, the drill's own stream)
 * is not the job's.
 */
static void dj_ports(const json_t *result, const json_t *qps, double *pkts, double *bytes,
		     bool *has_bytes)
{
	const json_t *p;
	size_t i;

	*pkts = *bytes = 0;
	*has_bytes = false;
	json_array_foreach(json_object_get(result, "ports"), i, p) {
		if (!dj_port_of_job(p, qps))
			continue;
		*pkts += json_number_value(json_object_get(p, "tx_pkts")) +
			 json_number_value(json_object_get(p, "rx_pkts"));
		if (json_object_get(p, "tx_bytes")) {
			*has_bytes = true;
			*bytes += json_number_value(json_object_get(p, "tx_bytes")) +
				  json_number_value(json_object_get(p, "rx_bytes"));
		}
	}
}

/* TCP bytes (both ways) of the job's sockets towards its peers in a job_path record; 0 for none. */
static double dj_tcp(const json_t *rec)
{
	const json_t *s;
	double tcp = 0;
	size_t k;

	json_array_foreach(json_object_get(json_object_get(rec, "result"), "tcp"), k, s)
		tcp += json_number_value(json_object_get(s, "bytes_acked")) +
		       json_number_value(json_object_get(s, "bytes_received"));
	return tcp;
}

/* One job node's RDMA path: "verified", "fail" or "unknown", with its sentence. */
static json_t *dj_judge_path(struct drill *d, unsigned int ni, json_t *problems)
{
	const struct sc_job *j = d->sc.workload.job;
	const char *node = j->nodes[ni];
	const json_t *r0 = dj_path_rec(d, node, DJ_AT_BASELINE_START);
	const json_t *r1 = dj_path_rec(d, node, DJ_AT_BASELINE_END);
	const json_t *r2 = dj_path_rec(d, node, DJ_AT_END);
	const json_t *res1 = json_object_get(r1, "result"), *q;
	double p0, p1, b0, b1, tcp = 0;
	char devs[256] = "", finding[960], sentence[1024], why[256] = "", tcpbuf[32], rbuf[32];
	unsigned int rts = 0, exited = 0;
	const char *verdict;
	bool hb0, hb1;
	size_t k;

	for (k = 0; k < j->nr_ranks; k++)
		if (d->job.exited[k] &&
		    d->job.exit_ms[k] < (double)(d->sc.warmup_ms + d->sc.baseline_ms))
			exited++;
	if (exited == j->nr_ranks) {
		snprintf(finding, sizeof(finding),
			 "cannot be checked: the job had exited before the baseline ended");
		verdict = "unknown";
		goto out;
	}
	if (!r0 || !r1 || json_object_get(r0, "error") || json_object_get(r1, "error") ||
	    json_object_get(res1, "qps_error") || json_object_get(res1, "tcp_error")) {
		const json_t *bad = !r0 || json_object_get(r0, "error") ? r0 : r1;

		snprintf(why, sizeof(why), "%s",
			 !bad ? "the job was not running through the baseline"
			 : json_string_value(json_object_get(bad, "error"))
			     ?: json_string_value(json_object_get(res1, "qps_error"))
				    ?: json_string_value(json_object_get(res1, "tcp_error")) ?: "?");
		snprintf(finding, sizeof(finding), "cannot be checked: %s", why);
		verdict = "unknown";
		goto out;
	}
	json_array_foreach(json_object_get(res1, "qps"), k, q)
		if (dj_qp_connected(q)) {
			const char *dev = json_string_value(json_object_get(q, "device")) ?: "?";

			rts++;
			if (!strstr(devs, dev) && strlen(devs) + strlen(dev) + 2 < sizeof(devs))
				snprintf(devs + strlen(devs), sizeof(devs) - strlen(devs), "%s%s",
					 devs[0] ? "/" : "", dev);
		}
	/* both looks over the ports the job's QPs were on at the baseline's end */
	dj_ports(json_object_get(r0, "result"), json_object_get(res1, "qps"), &p0, &b0, &hb0);
	dj_ports(res1, json_object_get(res1, "qps"), &p1, &b1, &hb1);
	/*
	 * A socket's counts only grow, so the largest of the looks is the least the job sent over
	 * TCP; the last alone says 0 for a job that died before the drill's end (ci67: job-mpi's
	 * 12.6 KB at the baseline's end, 0 at the end). Sockets opened and closed between two
	 * looks are not seen.
	 */
	tcp = fmax(dj_tcp(r0), fmax(dj_tcp(r1), dj_tcp(r2)));
	dj_bytes((uint64_t)tcp, tcpbuf, sizeof(tcpbuf));
	if (hb0 && hb1)
		dj_bytes((uint64_t)(b1 - b0), rbuf, sizeof(rbuf));
	else
		snprintf(rbuf, sizeof(rbuf), "%.0f packets", p1 - p0);
	if (!rts)
		snprintf(why, sizeof(why), "no QP of the job connected (RTS or RTR)");
	else if (p1 - p0 <= 0 && b1 - b0 <= 0)
		snprintf(why, sizeof(why), "the RDMA counters did not move during the baseline");
	else if (tcp > (double)j->max_tcp_bytes)
		snprintf(why, sizeof(why),
			 "%s over TCP to its peers (more than rdma_path.max_tcp_bytes)", tcpbuf);
	verdict = why[0] ? "fail" : "verified";
	if (why[0])
		snprintf(finding, sizeof(finding),
			 "NOT verified: %s (%u QPs connected%s%s, %s over RDMA in the baseline, %s "
			 "over TCP)",
			 why, rts, devs[0] ? " on " : "", devs, rbuf, tcpbuf);
	else
		snprintf(
		    finding, sizeof(finding),
		    "verified: %u QPs connected on %s, %s over RDMA in the baseline, %s over TCP",
		    rts, devs, rbuf, tcpbuf);
out:
	snprintf(sentence, sizeof(sentence), "rdma path on %s: %s", node, finding);
	prog_event("rdmachaos: %s", sentence);
	if (!strcmp(verdict, "fail") && j->path_required)
		json_array_append_new(problems, json_string(sentence));
	else if (!strcmp(verdict, "unknown") && j->path_required)
		drill_reason(d, true, "%s", sentence);
	return json_pack("{s:s, s:s, s:s, s:s, s:i, s:f}", "node", node, "verdict", verdict,
			 "sentence", sentence, "finding", finding, "qps_rts", (int)rts, "tcp_bytes",
			 tcp);
}

/*
 * How long a surviving job may go without a throughput sample above 0 before the drill stops
 * it: a job that runs on but hangs has not survived. Four of its own sample intervals (as the
 * baseline measured them: a job that reports every 30 s gets 2 min) and at least 20 s, more than
 * the 6 s gaps seen between an MPI job's iteration lines on a busy lab (slurm-drain, ci94).
 */
#define DJ_PROGRESS_MS 20000
#define DJ_PROGRESS_INTERVALS 4

/* The outcome the drill demands of the job's exits (and, to survive, of its progress). */
static json_t *dj_judge_outcome(struct drill *d, json_t *problems)
{
	static const char *const want[] = {
	    [SC_JOB_ANY] = "any", [SC_JOB_SUCCEED] = "succeed", [SC_JOB_SURVIVE] = "survive"};
	const struct sc_job *j = d->sc.workload.job;
	size_t nr_restarts = json_array_size(d->job.restarts);
	char sentence[1280] = "", restarts[96] = "", said[DRILL_JOB_SAID_LEN];
	const char *failed;
	unsigned int i;
	bool ok = true;

	if (j->max_restarts)
		snprintf(restarts, sizeof(restarts), " after %zu of its %u restarts", nr_restarts,
			 j->max_restarts);
	/*
	 * A restart that could not bring the job back is what ended it: the ranks' exits then
	 * are the restart's own stops (status 130), not what to blame.
	 */
	failed = json_string_value(
	    json_object_get(json_array_get(d->job.restarts, nr_restarts - 1), "failed"));
	if (failed && j->outcome != SC_JOB_ANY) {
		ok = false;
		snprintf(sentence, sizeof(sentence),
			 "job: restart %zu of %u failed (%s); the drill demands that it %s",
			 nr_restarts, j->max_restarts, failed, want[j->outcome]);
	}
	for (i = 0; i < j->nr_ranks && ok; i++) {
		bool early =
		    d->job.exited[i] && (d->job.stop_ms < 0 || d->job.exit_ms[i] < d->job.stop_ms);

		/* what it said last, unless a reason of its start said it already */
		said[0] = '\0';
		if (early && d->job.t0_set && !d->job.time_limit[i])
			drill_job_last_lines(d, j->ranks[i].node, 0, said, sizeof(said));
		if (j->outcome == SC_JOB_SURVIVE && early) {
			ok = false;
			snprintf(sentence, sizeof(sentence),
				 "job: rank %u on %s exited (status %d) at %.1f s%s%s; the drill "
				 "demands that it survive%s",
				 i, j->ranks[i].node, d->job.exit_status[i],
				 d->job.exit_ms[i] / 1000.0,
				 d->job.time_limit[i] ? ", stopped at its time limit" : "",
				 restarts, said);
		} else if (j->outcome == SC_JOB_SUCCEED && !(early && !d->job.exit_status[i])) {
			ok = false;
			if (early)
				snprintf(
				    sentence, sizeof(sentence),
				    "job: rank %u on %s failed (exit status %d at %.1f s%s); the "
				    "drill demands that it succeed%s",
				    i, j->ranks[i].node, d->job.exit_status[i],
				    d->job.exit_ms[i] / 1000.0, restarts, said);
			else
				snprintf(
				    sentence, sizeof(sentence),
				    "job: rank %u on %s had not finished when the drill ended; "
				    "the drill demands that it succeed",
				    i, j->ranks[i].node);
		}
	}
	/* surviving is progressing: a job that runs on, hung, has not survived the drill */
	if (ok && j->outcome == SC_JOB_SURVIVE && (j->tp_regex[0] || j->tp_counter[0])) {
		double end = d->job.stop_ms >= 0 ? d->job.stop_ms : drill_now_ms(d);
		double last = drill_job_last_progress_ms(d, end), bound = DJ_PROGRESS_MS;

		if (d->baseline.samples)
			bound = fmax(bound, DJ_PROGRESS_INTERVALS * (double)d->sc.baseline_ms /
						d->baseline.samples);
		if (last < 0 || end - last > bound) {
			char seen[64] = "no throughput sample above 0 at all";

			if (last >= 0)
				snprintf(seen, sizeof(seen),
					 "its last throughput sample above 0 at %+.1f s",
					 last / 1000.0);
			ok = false;
			snprintf(sentence, sizeof(sentence),
				 "job: every rank still ran, but it made no progress in its last "
				 "%.1f s (%s)%s; the drill demands that it survive, which is to "
				 "keep progressing",
				 (end - fmax(last, 0)) / 1000.0, seen, restarts);
		}
	}
	if (ok && nr_restarts)
		snprintf(sentence, sizeof(sentence),
			 "job: outcome %s: met after %zu restart%s (at most %u)", want[j->outcome],
			 nr_restarts, nr_restarts == 1 ? "" : "s", j->max_restarts);
	else if (ok)
		snprintf(sentence, sizeof(sentence), "job: outcome %s: met", want[j->outcome]);
	else
		json_array_append_new(problems, json_string(sentence));
	prog_event("rdmachaos: %s", sentence);
	return json_pack("{s:s, s:b, s:s, s:i, s:i}", "want", want[j->outcome], "ok", ok,
			 "sentence", sentence, "restarts", (int)nr_restarts, "max_restarts",
			 (int)j->max_restarts);
}

/*
 * The job's output lines that matched its error patterns (workload error events from the job),
 * the DJ_MAX_ERROR_LINES earliest in drill time, for the report; *total counts them all.
 */
#define DJ_MAX_ERROR_LINES 20
static json_t *dj_error_lines(const struct drill *d, size_t *total)
{
	json_t *lines = json_array(), *line;
	const json_t *e;
	double t;
	size_t i, k;

	*total = 0;
	json_array_foreach(d->fl.events, i, e) {
		if (strcmp(json_string_value(json_object_get(e, "kind")) ?: "", "workload") ||
		    strcmp(json_string_value(json_object_get(e, "type")) ?: "", "error") ||
		    strcmp(json_string_value(json_object_get(e, "source")) ?: "", "job"))
			continue;
		(*total)++;
		t = json_number_value(json_object_get(e, "t_ms"));
		for (k = json_array_size(lines);
		     k &&
		     json_number_value(json_object_get(json_array_get(lines, k - 1), "t_ms")) > t;
		     k--)
			;
		if (k >= DJ_MAX_ERROR_LINES)
			continue;
		line = json_pack("{s:f, s:O?, s:O?}", "t_ms", t, "node", json_object_get(e, "node"),
				 "text", json_object_get(e, "text"));
		json_array_insert_new(lines, k, line);
		if (json_array_size(lines) > DJ_MAX_ERROR_LINES)
			json_array_remove(lines, DJ_MAX_ERROR_LINES);
	}
	return lines;
}

void drill_job_judge(struct drill *d, json_t *problems)
{
	const struct sc_job *j = d->sc.workload.job;
	json_t *ranks, *paths, *lines;
	unsigned int i;
	size_t nr_lines;

	if (!j)
		return;
	ranks = json_array();
	paths = json_array();
	for (i = 0; i < j->nr_ranks; i++) {
		json_t *cmd = json_array_get(d->job.commands, i);
		bool stopped =
		    d->job.exited[i] && d->job.stop_ms >= 0 && d->job.exit_ms[i] >= d->job.stop_ms;

		json_array_append_new(ranks, json_pack("{s:s, s:i, s:b, s:b, s:b, s:i, s:O}",
						       "node", j->ranks[i].node, "rank", (int)i,
						       "exited", d->job.exited[i], "stopped",
						       stopped, "time_limit", d->job.time_limit[i],
						       "exit_status", d->job.exit_status[i],
						       "command", cmd ? cmd : json_null()));
	}
	for (i = 0; i < j->nr_nodes; i++)
		json_array_append_new(paths, dj_judge_path(d, i, problems));
	json_decref(d->job.report);
	d->job.report = json_pack("{s:s, s:o, s:o, s:o, s:O, s:O}", "tag", d->job.tag, "ranks",
				  ranks, "outcome", dj_judge_outcome(d, problems), "rdma_path",
				  paths, "evidence", d->job.path ? d->job.path : json_null(),
				  "restarts", d->job.restarts ? d->job.restarts : json_null());
	if (d->job.start_failures)
		json_object_set(d->job.report, "start_failures", d->job.start_failures);
	lines = dj_error_lines(d, &nr_lines);
	json_object_set_new(d->job.report, "error_lines", lines);
	json_object_set_new(d->job.report, "error_lines_total", json_integer((json_int_t)nr_lines));
}

/* The path at the drill's end: asked before the ranks are stopped. */
void drill_job_end(struct drill *d)
{
	if (d->sc.workload.job && !d->job.path_at[DJ_AT_END] && d->job.path)
		dj_path(d, DJ_AT_END);
}

void drill_job_free(struct drill *d)
{
	json_decref(d->job.path);
	json_decref(d->job.report);
	json_decref(d->job.commands);
	json_decref(d->job.restarts);
	json_decref(d->job.start_failures);
	d->job.path = d->job.report = d->job.commands = d->job.restarts = NULL;
}
