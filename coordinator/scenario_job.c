// SPDX-License-Identifier: MIT
/*
 * A workload of kind job (docs/SCENARIOS.md, "Jobs"): its ranks with their
 * commands, environment, working directory and time limit, the throughput
 * and error lines it is judged by, the outcome it must reach and the proof
 * of its RDMA path. Everything that can be checked without a fleet is, here:
 * each template's placeholders (coordinator/job_template.h), each regular
 * expression (compiled once and thrown away: the agent compiles its own).
 */
#include <ctype.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/units.h"
#include "coordinator/job_template.h"
#include "coordinator/scenario_parse.h"

#define SC_JOB_MAX_ARGS 128
#define SC_JOB_ARG_LEN 4096
#define SC_JOB_MAX_ENV 32

/* Lines that mean an RDMA error in the programs drills run, when errors: is not given. */
static const char *const sc_job_default_errors[] = {
    "IBV_WC_[A-Z_]+",
    "[Rr]etry count exceeded",
    "[Cc]ompletion with error",
    "[Tt]ransport retry counter exceeded",
    NULL,
};

void scp_job_free(struct sc_job *j)
{
	unsigned int i;

	for (i = 0; i < SC_JOB_MAX_RANKS; i++)
		json_decref(j->ranks[i].argv);
	json_decref(j->env);
	free(j);
}

static int sc_job_node_ok(void *arg, const char *node)
{
	struct pctx *c = arg;

	return c->nodes_unknown || scenario_node(c->sc, node) || scenario_select(c->sc, node);
}

/* A template: its placeholders checked against the drill's nodes. */
static int sc_job_template(struct pctx *c, const yaml_node_t *n, const char *path, const char *s)
{
	struct jt_ctx ctx = {.size = 1, .node_ok = sc_job_node_ok, .arg = c};
	char out[SC_JOB_ARG_LEN], err[512];

	if (jt_expand(s, &ctx, out, sizeof(out), err, sizeof(err)))
		return yd_fail(c->d, n, path, "%s", err);
	return 0;
}

/* A POSIX extended regular expression into buf, compiled to be sure it is one. */
static int sc_job_regex(struct pctx *c, const yaml_node_t *n, const char *path, char *buf,
			size_t len, unsigned int min_groups)
{
	char msg[200];
	regex_t re;
	int ret = yd_get_text(c->d, n, path, buf, len);

	if (ret)
		return ret;
	if (!buf[0])
		return yd_fail(c->d, n, path, "an empty regex matches every line");
	ret = regcomp(&re, buf, REG_EXTENDED);
	if (ret) {
		regerror(ret, NULL, msg, sizeof(msg));
		return yd_fail(c->d, n, path,
			       "\"%s\" is not a POSIX extended regular expression: %s", buf, msg);
	}
	if (re.re_nsub < min_groups) {
		regfree(&re);
		return yd_fail(c->d, n, path,
			       "\"%s\" has %zu parenthesised part(s); group %u must hold the value",
			       buf, re.re_nsub, min_groups);
	}
	regfree(&re);
	return 0;
}

/* A boolean at map.key into *out, when the key is given: 0, or -EINVAL (refused). */
static int sc_job_bool(struct pctx *c, yaml_node_t *map, const char *path, const char *key,
		       bool *out)
{
	char kpath[YD_PATH_LEN], buf[16];
	yaml_node_t *n = yd_map_get(c->d, map, key);
	int ret;

	if (!n)
		return 0;
	yd_join(kpath, path, key);
	if ((ret = yd_get_text(c->d, n, kpath, buf, sizeof(buf))))
		return ret;
	if (strcmp(buf, "true") && strcmp(buf, "false"))
		return yd_fail(c->d, n, kpath, "must be true or false");
	*out = !strcmp(buf, "true");
	return 0;
}

/* A list of strings (argv) into a JSON array, each checked as a template. */
static int sc_job_argv(struct pctx *c, yaml_node_t *seq, const char *path, json_t **out)
{
	char ipath[YD_PATH_LEN], arg[SC_JOB_ARG_LEN];
	int st = 0;
	size_t i;

	if (yd_want_seq(c->d, seq, path))
		return -EINVAL;
	if (!yd_seq_len(seq) || yd_seq_len(seq) > SC_JOB_MAX_ARGS)
		return yd_fail(c->d, seq, path,
			       "give the program and its arguments, 1..%d strings, e.g. "
			       "[/usr/bin/ib_write_bw, -d, rxe_rail0]",
			       SC_JOB_MAX_ARGS);
	*out = json_array();
	if (!*out)
		return -ENOMEM;
	for (i = 0; i < yd_seq_len(seq); i++) {
		yaml_node_t *n = yd_seq_item(c->d, seq, i);

		yd_join_idx(ipath, path, i);
		if (scp_keep(&st, yd_get_text(c->d, n, ipath, arg, sizeof(arg))) ||
		    scp_keep(&st, sc_job_template(c, n, ipath, arg)))
			continue;
		if (!i && arg[0] != '/')
			scp_keep(&st, yd_fail(c->d, n, ipath,
					      "\"%s\" is not an absolute path; agents run no PATH "
					      "search (write e.g. /usr/bin/%s)",
					      arg, arg));
		json_array_append_new(*out, json_string(arg));
	}
	return st;
}

static int sc_job_rank(struct pctx *c, yaml_node_t *m, const char *path, struct sc_job_rank *r)
{
	static const char *const keys[] = {"node", "command", "ready", NULL};
	char kpath[YD_PATH_LEN];
	yaml_node_t *n;
	int st = 0;

	if (yd_want_map(c->d, m, path))
		return -EINVAL;
	scp_keep(&st, yd_check_keys(c->d, m, path, keys));
	r->line = (int)yd_line(m);
	yd_join(kpath, path, "node");
	if (!(n = yd_map_get(c->d, m, "node")))
		scp_keep(&st,
			 scp_missing(c, m, path, "node", "the node it runs on, e.g. node: node-a"));
	else if (!scp_keep(&st, yd_get_text(c->d, n, kpath, r->node, sizeof(r->node))))
		scp_keep(&st, scp_check_node_ref(c, n, kpath, r->node));
	yd_join(kpath, path, "command");
	if (!(n = yd_map_get(c->d, m, "command")))
		scp_keep(&st, scp_missing(c, m, path, "command",
					  "the program and its arguments, e.g. command: "
					  "[/usr/bin/ib_write_bw, -d, rxe_rail0]"));
	else
		scp_keep(&st, sc_job_argv(c, n, kpath, &r->argv));
	yd_join(kpath, path, "ready");
	if ((n = yd_map_get(c->d, m, "ready")))
		scp_keep(&st, sc_job_regex(c, n, kpath, r->ready, sizeof(r->ready), 0));
	return st;
}

static int sc_job_ranks(struct pctx *c, yaml_node_t *seq, const char *path, struct sc_job *j)
{
	char ipath[YD_PATH_LEN];
	unsigned int i, k;
	int st = 0;

	if (yd_want_seq(c->d, seq, path))
		return -EINVAL;
	if (!yd_seq_len(seq) || yd_seq_len(seq) > SC_JOB_MAX_RANKS)
		return yd_fail(c->d, seq, path, "list 1..%d ranks, each {node, command}",
			       SC_JOB_MAX_RANKS);
	for (i = 0; i < yd_seq_len(seq); i++) {
		yd_join_idx(ipath, path, i);
		if (scp_keep(&st, sc_job_rank(c, yd_seq_item(c->d, seq, i), ipath, &j->ranks[i])))
			continue;
		for (k = 0; k < i; k++)
			if (!strcmp(j->ranks[k].node, j->ranks[i].node))
				scp_keep(&st, yd_fail(c->d, yd_seq_item(c->d, seq, i), ipath,
						      "%s runs ranks[%u] already; one rank per "
						      "node (a node's agent knows one job)",
						      j->ranks[i].node, k));
	}
	j->nr_ranks = (unsigned int)yd_seq_len(seq);
	return st;
}

/* nodes: the job's nodes (a launcher's ranks run on them too), each a node of the drill, once. */
static int sc_job_nodes(struct pctx *c, yaml_node_t *seq, const char *path, struct sc_job *j)
{
	char ipath[YD_PATH_LEN];
	unsigned int i, k;
	int st = 0;

	if (yd_want_seq(c->d, seq, path))
		return -EINVAL;
	if (!yd_seq_len(seq) || yd_seq_len(seq) > SC_JOB_MAX_RANKS)
		return yd_fail(c->d, seq, path, "list the job's 1..%d nodes", SC_JOB_MAX_RANKS);
	for (i = 0; i < yd_seq_len(seq); i++) {
		yaml_node_t *n = yd_seq_item(c->d, seq, i);
		char *name = j->nodes[j->nr_nodes];

		yd_join_idx(ipath, path, i);
		if (scp_keep(&st, yd_get_text(c->d, n, ipath, name, SC_NAME_LEN)) ||
		    scp_keep(&st, scp_check_node_ref(c, n, ipath, name)))
			continue;
		for (k = 0; k < j->nr_nodes && strcmp(j->nodes[k], name); k++)
			;
		if (k < j->nr_nodes)
			scp_keep(&st, yd_fail(c->d, n, ipath, "%s is listed twice", name));
		else
			j->nr_nodes++;
	}
	return st;
}

static int sc_job_env(struct pctx *c, yaml_node_t *m, const char *path, struct sc_job *j)
{
	char kpath[YD_PATH_LEN], val[SC_JOB_ARG_LEN];
	yaml_node_pair_t *pair;
	int st = 0;

	if (yd_want_map(c->d, m, path))
		return -EINVAL;
	j->env = json_object();
	if (!j->env)
		return -ENOMEM;
	for (pair = m->data.mapping.pairs.start; pair < m->data.mapping.pairs.top; pair++) {
		yaml_node_t *k = yd_node(c->d, pair->key), *v = yd_node(c->d, pair->value);
		const char *name = yd_scalar(k);
		size_t i;

		yd_join(kpath, path, name);
		for (i = 0; name[i] && (isalnum((unsigned char)name[i]) || name[i] == '_'); i++)
			;
		if (!name[0] || name[i] || isdigit((unsigned char)name[0]))
			scp_keep(&st,
				 yd_fail(c->d, k, kpath,
					 "\"%s\" is not a variable name ([A-Za-z_][A-Za-z0-9_]*)",
					 name));
		else if (json_object_size(j->env) == SC_JOB_MAX_ENV)
			scp_keep(&st,
				 yd_fail(c->d, k, kpath, "more than %d variables", SC_JOB_MAX_ENV));
		else if (!scp_keep(&st, yd_get_text(c->d, v, kpath, val, sizeof(val))) &&
			 !scp_keep(&st, sc_job_template(c, v, kpath, val)))
			json_object_set_new(j->env, name, json_string(val));
	}
	return st;
}

bool sc_job_counter_words(const char *name)
{
	return !strcmp(name, "port_xmit_data") || !strcmp(name, "port_rcv_data");
}

/* throughput.counter: a counter file's name as the agent's counter events carry it. */
static int sc_job_counter(struct pctx *c, yaml_node_t *n, const char *path, struct sc_job *j)
{
	size_t i;

	if (yd_get_text(c->d, n, path, j->tp_counter, sizeof(j->tp_counter)))
		return -EINVAL;
	for (i = 0; j->tp_counter[i] && (isalnum((unsigned char)j->tp_counter[i]) ||
					 j->tp_counter[i] == '_' || j->tp_counter[i] == '-');
	     i++)
		;
	if (!j->tp_counter[0] || j->tp_counter[i])
		return yd_fail(c->d, n, path,
			       "\"%s\" is not a counter's name; name a file of the port's "
			       "counters/ or hw_counters/, e.g. port_rcv_data or rcvd_pkts",
			       j->tp_counter);
	return 0;
}

/*
 * throughput: from the job's output (regex, group, unit) or from the RDMA counters of one of its
 * nodes (counter, node), never both.
 */
static int sc_job_throughput(struct pctx *c, yaml_node_t *m, const char *path, struct sc_job *j)
{
	static const char *const keys[] = {"regex", "group", "unit", "node", "counter", NULL};
	char kpath[YD_PATH_LEN];
	yaml_node_t *n, *rx;
	uint64_t v;
	int st = 0;

	if (yd_want_map(c->d, m, path))
		return -EINVAL;
	scp_keep(&st, yd_check_keys(c->d, m, path, keys));
	j->tp_group = 1;
	yd_join(kpath, path, "counter");
	rx = yd_map_get(c->d, m, "regex");
	if ((n = yd_map_get(c->d, m, "counter"))) {
		if (rx || yd_map_get(c->d, m, "group") || yd_map_get(c->d, m, "unit"))
			scp_keep(&st, yd_fail(c->d, n, kpath,
					      "a throughput is read from the job's output (regex, "
					      "group, unit) or from a counter, not both"));
		if (!scp_keep(&st, sc_job_counter(c, n, kpath, j)) &&
		    !sc_job_counter_words(j->tp_counter))
			snprintf(j->tp_rate_unit, sizeof(j->tp_rate_unit), "%s/s", j->tp_counter);
		if (!yd_map_get(c->d, m, "node"))
			scp_keep(&st, scp_missing(c, m, path, "node",
						  "the job's node whose ports' counter is read, "
						  "e.g. node: node-b"));
	}
	yd_join(kpath, path, "group");
	if ((n = yd_map_get(c->d, m, "group")) &&
	    !scp_keep(&st, yd_get_uint(c->d, n, kpath, 1, 9, &v)))
		j->tp_group = (unsigned int)v;
	yd_join(kpath, path, "regex");
	if (!rx && !j->tp_counter[0] && !yd_map_get(c->d, m, "counter"))
		scp_keep(&st,
			 scp_missing(c, m, path, "regex",
				     "a line with the rate, its number in parentheses, e.g. "
				     "regex: '^ *65536 +[0-9]+ +[0-9.]+ +([0-9.]+)' (or counter: "
				     "NAME and node: NODE, from the RDMA counters)"));
	else if (rx)
		scp_keep(&st,
			 sc_job_regex(c, rx, kpath, j->tp_regex, sizeof(j->tp_regex), j->tp_group));
	yd_join(kpath, path, "unit");
	if ((n = yd_map_get(c->d, m, "unit")))
		scp_keep(&st, yd_get_text(c->d, n, kpath, j->tp_unit, sizeof(j->tp_unit)));
	yd_join(kpath, path, "node");
	if ((n = yd_map_get(c->d, m, "node")) &&
	    !scp_keep(&st, yd_get_text(c->d, n, kpath, j->tp_node, sizeof(j->tp_node))))
		scp_keep(&st, scp_check_node_ref(c, n, kpath, j->tp_node));
	return st;
}

/* restarts: {max, after}: how often the drill may start the job again, and when. */
static int sc_job_restarts(struct pctx *c, yaml_node_t *m, const char *path, struct sc_job *j)
{
	static const char *const keys[] = {"max", "after", NULL};
	char kpath[YD_PATH_LEN];
	yaml_node_t *n;
	uint64_t v;
	int st = 0;

	if (yd_want_map(c->d, m, path))
		return -EINVAL;
	scp_keep(&st, yd_check_keys(c->d, m, path, keys));
	yd_join(kpath, path, "max");
	if (!(n = yd_map_get(c->d, m, "max")))
		scp_keep(&st, scp_missing(c, m, path, "max",
					  "how many times the drill may start the job again, e.g. "
					  "restarts: {max: 1, after: 10s}"));
	else if (!scp_keep(&st, yd_get_uint(c->d, n, kpath, 1, SC_JOB_MAX_RESTARTS, &v)))
		j->max_restarts = (unsigned int)v;
	yd_join(kpath, path, "after");
	if ((n = yd_map_get(c->d, m, "after")))
		scp_keep(&st, yd_get_duration(c->d, n, kpath, &j->restart_after_ms));
	return st;
}

static int sc_job_path(struct pctx *c, yaml_node_t *m, const char *path, struct sc_job *j)
{
	static const char *const keys[] = {"required", "max_tcp_bytes", NULL};
	char kpath[YD_PATH_LEN];
	yaml_node_t *n;
	uint64_t v;
	int st = 0;

	if (yd_want_map(c->d, m, path))
		return -EINVAL;
	scp_keep(&st, yd_check_keys(c->d, m, path, keys));
	scp_keep(&st, sc_job_bool(c, m, path, "required", &j->path_required));
	yd_join(kpath, path, "max_tcp_bytes");
	if ((n = yd_map_get(c->d, m, "max_tcp_bytes"))) {
		if (scp_keep(&st, yd_want_scalar(c->d, n, kpath)))
			;
		else if (rc_parse_size(yd_scalar(n), &v))
			scp_keep(&st, yd_fail(c->d, n, kpath,
					      "\"%s\" is not a size; write e.g. 64KiB, 1MiB",
					      yd_scalar(n)));
		else
			j->max_tcp_bytes = v;
	}
	return st;
}

/* A job's duration key: def unless given, positive, at most max ("at most 30 min: why"). */
static int sc_job_limit(struct pctx *c, yaml_node_t *wl, const char *path, const char *key,
			uint64_t def, uint64_t max, const char *why, uint64_t *ms)
{
	char kpath[YD_PATH_LEN], most[32];
	yaml_node_t *n = yd_map_get(c->d, wl, key);
	int ret;

	*ms = def;
	if (!n)
		return 0;
	yd_join(kpath, path, key);
	ret = scp_get_duration_pos(c, n, kpath, ms);
	if (ret || *ms <= max)
		return ret;
	if (max % 60000)
		snprintf(most, sizeof(most), "%llu s", (unsigned long long)(max / 1000));
	else
		snprintf(most, sizeof(most), "%llu min", (unsigned long long)(max / 60000));
	return yd_fail(c->d, n, kpath, "at most %s: %s", most, why);
}

/* cpu_limit: CPUs, as a fraction (0.25) or a count (2); kept as percent of one CPU. */
static int sc_job_cpu_limit(struct pctx *c, yaml_node_t *n, const char *kpath, struct sc_job *j)
{
	double cpus;
	int ret = scp_get_double(c, n, kpath, &cpus);

	if (ret)
		return ret;
	if (!(cpus >= 0.01 && cpus <= SC_JOB_CPU_LIMIT_MAX))
		return yd_fail(c->d, n, kpath,
			       "%s is out of range; give the CPUs each rank's processes may use "
			       "together, 0.01 to %d, e.g. 0.25 for a quarter of one",
			       yd_scalar(n), SC_JOB_CPU_LIMIT_MAX);
	j->cpu_pct = (unsigned int)(cpus * 100 + 0.5);
	return 0;
}

int scp_parse_job(struct pctx *c, yaml_node_t *wl, const char *path, struct sc_workload *w)
{
	static const char *const keys[] = {
	    "kind",	    "ranks",	"launcher",    "env",	     "cwd",	  "time_limit",
	    "throughput",   "errors",	"outcome",     "rdma_path",  "rails",	  "nodes",
	    "ready_within", "restarts", "start_tries", "stop_grace", "cpu_limit", NULL};
	char kpath[YD_PATH_LEN], ipath[YD_PATH_LEN], buf[32];
	struct sc_job *j;
	uint64_t v;
	yaml_node_t *n;
	unsigned int i;
	int st = 0;

	j = calloc(1, sizeof(*j));
	if (!j)
		return -ENOMEM;
	w->job = j;
	strcpy(w->kind, "job");
	j->path_required = true;
	j->max_tcp_bytes = 1024 * 1024;
	for (i = 0; sc_job_default_errors[i]; i++)
		snprintf(j->errors[j->nr_errors++], SC_JOB_REGEX_LEN, "%s",
			 sc_job_default_errors[i]);
	scp_keep(&st, yd_check_keys(c->d, wl, path, keys));
	yd_join(kpath, path, "ranks");
	if (!(n = yd_map_get(c->d, wl, "ranks")))
		scp_keep(&st, scp_missing(c, wl, path, "ranks",
					  "list the job's processes, e.g. ranks: [{node: node-b, "
					  "command: [/usr/bin/ib_write_bw, -d, rxe_rail0]}]"));
	else
		scp_keep(&st, sc_job_ranks(c, n, kpath, j));
	if (!scp_keep(&st, sc_job_bool(c, wl, path, "launcher", &j->launcher)) && j->launcher &&
	    j->nr_ranks > 1) {
		yd_join(kpath, path, "launcher");
		scp_keep(&st,
			 yd_fail(c->d, yd_map_get(c->d, wl, "launcher"), kpath,
				 "a launcher (mpirun, srun) starts the job's processes itself: "
				 "give it as the only rank"));
	}
	yd_join(kpath, path, "env");
	if ((n = yd_map_get(c->d, wl, "env")))
		scp_keep(&st, sc_job_env(c, n, kpath, j));
	yd_join(kpath, path, "cwd");
	if ((n = yd_map_get(c->d, wl, "cwd")) &&
	    !scp_keep(&st, yd_get_text(c->d, n, kpath, j->cwd, sizeof(j->cwd))) && j->cwd[0] != '/')
		scp_keep(&st, yd_fail(c->d, n, kpath, "\"%s\" is not an absolute path", j->cwd));
	yd_join(kpath, path, "time_limit");
	if ((n = yd_map_get(c->d, wl, "time_limit")))
		scp_keep(&st, scp_get_duration_pos(c, n, kpath, &j->time_limit_ms));
	scp_keep(&st,
		 sc_job_limit(c, wl, path, "ready_within", SC_JOB_READY_MS, SC_JOB_READY_MAX_MS,
			      "a rank that says nothing for longer is not starting",
			      &j->ready_within_ms));
	scp_keep(&st, sc_job_limit(c, wl, path, "stop_grace", SC_JOB_STOP_GRACE_MS,
				   SC_JOB_STOP_GRACE_MAX_MS,
				   "a rank that ignores SIGINT for longer is not stopping",
				   &j->stop_grace_ms));
	yd_join(kpath, path, "cpu_limit");
	if ((n = yd_map_get(c->d, wl, "cpu_limit")))
		scp_keep(&st, sc_job_cpu_limit(c, n, kpath, j));
	yd_join(kpath, path, "throughput");
	if ((n = yd_map_get(c->d, wl, "throughput")))
		scp_keep(&st, sc_job_throughput(c, n, kpath, j));
	yd_join(kpath, path, "errors");
	if ((n = yd_map_get(c->d, wl, "errors")) && !scp_keep(&st, yd_want_seq(c->d, n, kpath))) {
		if (yd_seq_len(n) > SC_JOB_MAX_ERRORS)
			scp_keep(&st,
				 yd_fail(c->d, n, kpath, "at most %d regexes", SC_JOB_MAX_ERRORS));
		j->nr_errors = 0;
		for (i = 0; i < yd_seq_len(n) && i < SC_JOB_MAX_ERRORS; i++) {
			yd_join_idx(ipath, kpath, i);
			if (!scp_keep(&st,
				      sc_job_regex(c, yd_seq_item(c->d, n, i), ipath,
						   j->errors[j->nr_errors], SC_JOB_REGEX_LEN, 0)))
				j->nr_errors++;
		}
	}
	yd_join(kpath, path, "outcome");
	if ((n = yd_map_get(c->d, wl, "outcome")) &&
	    !scp_keep(&st, yd_get_text(c->d, n, kpath, buf, sizeof(buf)))) {
		if (!strcmp(buf, "succeed"))
			j->outcome = SC_JOB_SUCCEED;
		else if (!strcmp(buf, "survive"))
			j->outcome = SC_JOB_SURVIVE;
		else if (!strcmp(buf, "any"))
			j->outcome = SC_JOB_ANY;
		else
			scp_keep(&st, yd_fail(c->d, n, kpath,
					      "\"%s\" is not an outcome; use succeed (every rank "
					      "exits 0), survive (still running at the end) or any",
					      buf));
	}
	yd_join(kpath, path, "restarts");
	j->restart_after_ms = 5000;
	if ((n = yd_map_get(c->d, wl, "restarts")))
		scp_keep(&st, sc_job_restarts(c, n, kpath, j));
	if (n && j->max_restarts && j->outcome == SC_JOB_ANY)
		scp_keep(&st, yd_fail(c->d, n, kpath,
				      "a job is restarted only when the drill demands an outcome: "
				      "add outcome: survive (or succeed)"));
	yd_join(kpath, path, "start_tries");
	j->start_tries = 1;
	if ((n = yd_map_get(c->d, wl, "start_tries")) &&
	    !scp_keep(&st, yd_get_uint(c->d, n, kpath, 1, SC_JOB_MAX_START_TRIES, &v)))
		j->start_tries = (unsigned int)v;
	for (i = 0; n && j->start_tries > 1 && i < j->nr_ranks && !j->ranks[i].ready[0]; i++)
		;
	if (n && j->start_tries > 1 && i == j->nr_ranks)
		scp_keep(&st, yd_fail(c->d, n, kpath,
				      "a start is tried again when a rank exits before its ready "
				      "line: give the rank that can fail to connect a `ready`"));
	yd_join(kpath, path, "rdma_path");
	if ((n = yd_map_get(c->d, wl, "rdma_path")))
		scp_keep(&st, sc_job_path(c, n, kpath, j));
	if ((n = yd_map_get(c->d, wl, "rails")))
		scp_keep(&st, scp_parse_rails(c, n, path, w));
	yd_join(kpath, path, "nodes");
	if ((n = yd_map_get(c->d, wl, "nodes")))
		scp_keep(&st, sc_job_nodes(c, n, kpath, j));
	for (i = 0; !n && i < j->nr_ranks; i++) /* the ranks' nodes, each once (one rank a node) */
		memcpy(j->nodes[j->nr_nodes++], j->ranks[i].node, SC_NAME_LEN);
	if (j->tp_counter[0] && j->tp_node[0]) {
		for (i = 0; i < j->nr_nodes && strcmp(j->nodes[i], j->tp_node); i++)
			;
		yd_join(ipath, path, "throughput");
		yd_join(kpath, ipath, "node");
		if (i == j->nr_nodes && (n = yd_map_get(c->d, wl, "throughput")))
			scp_keep(&st, yd_fail(c->d, yd_map_get(c->d, n, "node") ?: n, kpath,
					      "%s is not one of the job's nodes: its counters are "
					      "not the job's",
					      j->tp_node));
	}
	/* the stream's ends, for what reads them (blast radius, progress): first and last rank */
	if (j->nr_ranks) {
		snprintf(w->to, sizeof(w->to), "%s", j->ranks[0].node);
		snprintf(w->from, sizeof(w->from), "%s", j->ranks[j->nr_ranks - 1].node);
	}
	return st;
}
