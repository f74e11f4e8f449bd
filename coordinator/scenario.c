// SPDX-License-Identifier: MIT
/*
 * Scenario files (docs/SCENARIOS.md): read with libyaml's document API and
 * checked key by key. Every value is checked where it is read, so each error
 * names the file, the 1-based line and column of the offending value and its
 * key path, and says what is wrong and what is allowed, e.g.
 *
 *   scenarios/x.yaml:14:26: workload.qp.retry_cnt: 7 makes Soft-RoCE retry
 *   forever; use 0..6 in the lab
 *
 * Checking goes on past a refusal wherever what follows does not depend on
 * the refused value, so that one pass reports every error (scenario_check);
 * checks that would only repeat an earlier refusal are skipped (struct pctx).
 * Nothing here talks to a node; the agents check injector parameters again.
 * This file reads the document and its lab, nodes, workload, steady state and
 * faults; the other sections are in scenario_*.c (coordinator/scenario_parse.h).
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>
#include <yaml.h>

#include "common/units.h"
#include "common/yamldoc.h"
#include "coordinator/scenario_parse.h"

#define SC_LAB_MAX_NODES 26 /* node-a .. node-z */
#define SC_LAB_MAX_RAILS 4
#define SC_NETDEV_MAX 15 /* IFNAMSIZ - 1 */

static const struct yd_kind sc_kind = {
    .max_size = 1024 * 1024, /* scenario files are small; refuse anything bigger */
    .open_err = "cannot open",
    .read_err = "read error",
    .too_big = "is larger than 1 MiB; scenario files are small",
    .one_doc = "a scenario file",
    .noun = "a scenario",
    .depth = 5,
    .dur_eg = "250ms, 10s, 2m",
};

static const char *const signal_names[SC_SIG__COUNT] = {
    [SC_SIG_WORKLOAD_ERROR] = "workload_error",
    [SC_SIG_PORT_EVENT] = "port_event",
    [SC_SIG_LINK_EVENT] = "link_event",
    [SC_SIG_COUNTER] = "counter",
    [SC_SIG_ISOLATION] = "isolation",
    [SC_SIG_MR_ERROR] = "mr_error",
    [SC_SIG_QP_STATE] = "qp_state",
    [SC_SIG_PFC_STORM] = "pfc_storm",
    [SC_SIG_PFC_PAUSE] = "pfc_pause",
    [SC_SIG_STALL] = "stall",
    [SC_SIG_JOB_EXIT] = "job_exit",
};

const char *sc_signal_name(enum sc_signal s)
{
	if ((unsigned int)s >= SC_SIG__COUNT)
		return "unknown";
	return signal_names[s];
}

int sc_signal_parse(const char *name, enum sc_signal *s)
{
	unsigned int i;

	for (i = 0; i < SC_SIG__COUNT; i++) {
		if (!strcmp(name, signal_names[i])) {
			*s = (enum sc_signal)i;
			return 0;
		}
	}
	return -EINVAL;
}

/* ---- messages ---------------------------------------------------------- */

/* The drill's node names, for "is not a node" messages: "node-a, node-b". */
static const char *node_list(const struct scenario *sc, char *buf, size_t len)
{
	size_t off = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < sc->nr_nodes && off < len; i++) {
		if (i == 8) {
			snprintf(buf + off, len - off, ", ... (%u in all)", sc->nr_nodes);
			break;
		}
		off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? ", " : "",
					sc->nodes[i].name);
	}
	return buf;
}

/* ---- YAML access ------------------------------------------------------- */

int scp_missing(struct pctx *c, const yaml_node_t *map, const char *path, const char *key,
		const char *what)
{
	char kpath[YD_PATH_LEN];

	yd_join(kpath, path, key);
	return yd_fail(c->d, map, kpath, "missing; %s", what);
}

/* ---- typed values ------------------------------------------------------ */

static int get_name(struct pctx *c, const yaml_node_t *n, const char *path, char *buf, size_t len,
		    const char *used_for)
{
	return yd_get_name(c->d, n, path, buf, len, used_for);
}

/* A duration that must be more than zero: "within", "down", ... */
int scp_get_duration_pos(struct pctx *c, const yaml_node_t *n, const char *path, uint64_t *ms)
{
	int ret = yd_get_duration(c->d, n, path, ms);

	if (!ret && !*ms)
		return yd_fail(c->d, n, path, "must be longer than 0");
	return ret;
}

int scp_get_double(struct pctx *c, const yaml_node_t *n, const char *path, double *v)
{
	char *end;
	int ret = yd_want_scalar(c->d, n, path);

	if (ret)
		return ret;
	errno = 0;
	*v = strtod(yd_scalar(n), &end);
	if (end == yd_scalar(n) || *end || errno || *v != *v)
		return yd_fail(c->d, n, path, "\"%s\" is not a number", yd_scalar(n));
	return 0;
}

/* ---- sections ---------------------------------------------------------- */

static int parse_lab(struct pctx *c, yaml_node_t *lab)
{
	static const char *const keys[] = {"nodes", "rails", NULL};
	struct scenario *sc = c->sc;
	yaml_node_t *n;
	uint64_t v = 0;
	unsigned int i;
	int st = 0;

	sc->lab = true;
	sc->lab_nodes = 2;
	sc->lab_rails = 1;
	/* a misspelt key may have meant nodes or rails: the defaults are then only a guess */
	if (scp_keep(&st, yd_want_map(c->d, lab, "lab")) ||
	    scp_keep(&st, yd_check_keys(c->d, lab, "lab", keys)))
		c->nodes_unknown = c->rails_unknown = true;
	if (lab->type != YAML_MAPPING_NODE)
		return st;
	if ((n = yd_map_get(c->d, lab, "nodes"))) {
		if (scp_keep(&st, yd_get_uint(c->d, n, "lab.nodes", 2, SC_LAB_MAX_NODES, &v)))
			c->nodes_unknown = true;
		else
			sc->lab_nodes = (unsigned int)v;
	}
	if ((n = yd_map_get(c->d, lab, "rails"))) {
		if (scp_keep(&st, yd_get_uint(c->d, n, "lab.rails", 1, SC_LAB_MAX_RAILS, &v)))
			c->rails_unknown = true;
		else
			sc->lab_rails = (unsigned int)v;
	}
	sc->nodes = calloc(sc->lab_nodes, sizeof(*sc->nodes));
	if (!sc->nodes)
		return -ENOMEM;
	sc->nr_nodes = sc->lab_nodes;
	for (i = 0; i < sc->lab_nodes; i++)
		snprintf(sc->nodes[i].name, sizeof(sc->nodes[i].name), "node-%c", 'a' + i);
	return st;
}

/* "host:port", "[v6]:port": enough to catch a missing or bad port before connecting. */
int scp_check_agent(struct pctx *c, const yaml_node_t *n, const char *path, const char *agent)
{
	return yd_check_agent_addr(c->d, n, path, agent);
}

static int parse_nodes(struct pctx *c, yaml_node_t *seq)
{
	static const char *const keys[] = {"name", "agent", NULL};
	struct scenario *sc = c->sc;
	char path[YD_PATH_LEN], kpath[YD_PATH_LEN];
	unsigned int i, j, nr;
	int st = 0;

	if (yd_want_seq(c->d, seq, "nodes")) {
		c->nodes_unknown = true;
		return -EINVAL;
	}
	nr = (unsigned int)yd_seq_len(seq);
	if (nr < 2 || nr > SC_MAX_NODES) {
		scp_keep(&st, yd_fail(c->d, seq, "nodes", "lists %u nodes; a drill needs 2..%d", nr,
				      SC_MAX_NODES));
		if (!nr || nr > SC_MAX_NODES) {
			c->nodes_unknown = true;
			return st;
		}
	}
	sc->nodes = calloc(nr, sizeof(*sc->nodes));
	if (!sc->nodes)
		return -ENOMEM;
	sc->nr_nodes = nr;
	for (i = 0; i < nr; i++) {
		yaml_node_t *e = yd_seq_item(c->d, seq, i), *n;
		struct sc_node *nd = &sc->nodes[i];

		yd_join_idx(path, "nodes", i);
		if (scp_keep(&st, yd_want_map(c->d, e, path))) {
			c->nodes_unknown = true;
			continue;
		}
		scp_keep(&st, yd_check_keys(c->d, e, path, keys));
		yd_join(kpath, path, "name");
		if (!(n = yd_map_get(c->d, e, "name"))) {
			scp_keep(&st, scp_missing(c, e, path, "name",
						  "every node needs a name (its agent's --name)"));
			c->nodes_unknown = true;
		} else if (scp_keep(&st, get_name(c, n, kpath, nd->name, sizeof(nd->name),
						  "it names the node"))) {
			c->nodes_unknown = true;
		} else {
			for (j = 0; j < i; j++) {
				if (strcmp(sc->nodes[j].name, nd->name))
					continue;
				scp_keep(&st,
					 yd_fail(c->d, n, kpath,
						 "\"%s\" is already nodes[%u]; names are unique",
						 nd->name, j));
				break;
			}
		}
		yd_join(kpath, path, "agent");
		if (!(n = yd_map_get(c->d, e, "agent")))
			scp_keep(&st,
				 scp_missing(
				     c, e, path, "agent",
				     "where the node's agent listens, host:port, e.g. gpu01:7707"));
		else if (!scp_keep(&st, yd_get_text(c->d, n, kpath, nd->agent, sizeof(nd->agent))))
			scp_keep(&st, scp_check_agent(c, n, kpath, nd->agent));
	}
	return st;
}

int scp_check_node_ref(struct pctx *c, const yaml_node_t *n, const char *path, const char *name)
{
	char list[256];

	if (scenario_node(c->sc, name) || scenario_select(c->sc, name) || c->nodes_unknown)
		return 0;
	return yd_fail(c->d, n, path, "\"%s\" is not a node of this drill; nodes: %s", name,
		       node_list(c->sc, list, sizeof(list)));
}

/* A rail number, checked against the lab's rails (or SC_MAX_RAILS on a real cluster). */
int scp_get_rail(struct pctx *c, const yaml_node_t *n, const char *path, int *rail)
{
	bool lab = c->sc->lab && !c->rails_unknown; /* else only the widest range is known */
	uint64_t max =
	    lab ? c->sc->lab_rails - 1 : (c->sc->lab ? SC_LAB_MAX_RAILS : SC_MAX_RAILS) - 1;
	uint64_t v = 0;
	int ret;

	if ((ret = yd_get_uint(c->d, n, path, 0, UINT64_MAX, &v)))
		return ret;
	if (v > max && lab)
		return yd_fail(c->d, n, path,
			       "rail %" PRIu64 " does not exist in a %u-rail lab; use 0..%" PRIu64,
			       v, c->sc->lab_rails, max);
	if (v > max)
		return yd_fail(c->d, n, path, "rail %" PRIu64 " is out of range; use 0..%" PRIu64,
			       v, max);
	*rail = (int)v;
	return 0;
}

static int parse_qp(struct pctx *c, yaml_node_t *qp, const char *wpath, struct sc_workload *w)
{
	static const char *const keys[] = {"timeout", "retry_cnt", NULL};
	char path[YD_PATH_LEN], kpath[YD_PATH_LEN];
	yaml_node_t *n;
	uint64_t v = 0;
	int st = 0;

	yd_join(path, wpath, "qp");
	if (yd_want_map(c->d, qp, path))
		return -EINVAL;
	scp_keep(&st, yd_check_keys(c->d, qp, path, keys));
	if ((n = yd_map_get(c->d, qp, "timeout"))) {
		yd_join(kpath, path, "timeout");
		if (scp_keep(&st, yd_get_uint(c->d, n, kpath, 0, 31, &v)))
			;
		else if (v == 0)
			scp_keep(&st,
				 yd_fail(c->d, n, kpath,
					 "0 disables the retransmit timer, so one lost packet "
					 "hangs the QP forever; use 1..31 (the period is 4.096 us "
					 "x 2^timeout, 14 is about 67 ms)"));
		else
			w->qp_timeout = (unsigned int)v;
	}
	if ((n = yd_map_get(c->d, qp, "retry_cnt"))) {
		yd_join(kpath, path, "retry_cnt");
		if (scp_keep(&st, yd_get_uint(c->d, n, kpath, 0, 7, &v)))
			;
		else if (v == 7 && c->sc->lab)
			scp_keep(&st,
				 yd_fail(c->d, n, kpath,
					 "7 makes Soft-RoCE retry forever; use 0..6 in the lab"));
		else
			w->qp_retry_cnt = (unsigned int)v;
	}
	return st;
}

int scp_parse_rails(struct pctx *c, yaml_node_t *seq, const char *wpath, struct sc_workload *w)
{
	char path[YD_PATH_LEN], ipath[YD_PATH_LEN];
	int rails[SC_MAX_RAILS];
	unsigned int i, j, nr, nr_ok = 0;
	int st = 0;

	yd_join(path, wpath, "rails");
	if (yd_want_seq(c->d, seq, path))
		return -EINVAL;
	nr = (unsigned int)yd_seq_len(seq);
	if (!nr)
		return yd_fail(c->d, seq, path, "is empty; list at least one rail, e.g. [0, 1]");
	if (nr > SC_MAX_RAILS)
		return yd_fail(c->d, seq, path, "lists %u rails; at most %d", nr, SC_MAX_RAILS);
	for (i = 0; i < nr; i++) {
		yaml_node_t *n = yd_seq_item(c->d, seq, i);
		int r;

		yd_join_idx(ipath, path, i);
		if (scp_keep(&st, scp_get_rail(c, n, ipath, &r)))
			continue;
		for (j = 0; j < nr_ok && rails[j] != r; j++)
			;
		if (j < nr_ok)
			scp_keep(&st, yd_fail(c->d, n, ipath, "rail %d is listed twice", r));
		else
			rails[nr_ok++] = r;
	}
	if (st)
		return st;
	memcpy(w->rails, rails, sizeof(rails[0]) * nr);
	w->nr_rails = nr;
	return 0;
}

static void workload_defaults(struct sc_workload *w)
{
	memset(w, 0, sizeof(*w));
	strcpy(w->kind, "rdma_stream");
	w->op = SC_OP_WRITE;
	w->msg_size = 64 * 1024;
	w->queue_depth = 8;
	w->rails[0] = 0;
	w->nr_rails = 1;
	w->qp_timeout = 14;
	w->qp_retry_cnt = 6;
	w->interval_ms = 100;
	w->port = 18515;
	w->tos = -1;
}

/*
 * A workload map at path into w, which holds the defaults. from and to are
 * required unless w already names them (a guard's flow inherits the drill's).
 */
/* A workload's from and to: nodes of the drill, two different ones. */
static int parse_workload_ends(struct pctx *c, yaml_node_t *wl, const char *path,
			       struct sc_workload *w, bool main_wl)
{
	char kpath[YD_PATH_LEN];
	yaml_node_t *n;
	int st = 0;

	/* A name that is not a node is kept as written: the checks below compare names. */
	yd_join(kpath, path, "from");
	if ((n = yd_map_get(c->d, wl, "from"))) {
		if (!scp_keep(&st, yd_get_text(c->d, n, kpath, w->from, sizeof(w->from))))
			scp_keep(&st, scp_check_node_ref(c, n, kpath, w->from));
	} else if (!w->from[0] && main_wl) { /* a flow's is empty only when the drill's was bad */
		scp_keep(&st, scp_missing(c, wl, path, "from",
					  "name the client node, e.g. from: node-a"));
	}
	yd_join(kpath, path, "to");
	if ((n = yd_map_get(c->d, wl, "to"))) {
		if (!scp_keep(&st, yd_get_text(c->d, n, kpath, w->to, sizeof(w->to))))
			scp_keep(&st, scp_check_node_ref(c, n, kpath, w->to));
	} else if (!w->to[0] && main_wl) {
		scp_keep(&st,
			 scp_missing(c, wl, path, "to", "name the server node, e.g. to: node-b"));
	}
	if (w->from[0] && !strcmp(w->from, w->to))
		scp_keep(&st, yd_fail(c->d, n ? n : wl, kpath,
				      "\"%s\" is also the client (from); the stream needs two "
				      "different nodes",
				      w->to));
	return st;
}

int scp_parse_workload_map(struct pctx *c, yaml_node_t *wl, const char *path, struct sc_workload *w)
{
	static const char *const keys[] = {"kind",	  "from",  "to",   "op",	"msg_size",
					   "queue_depth", "rails", "qp",   "interval",	"port",
					   "mr_churn",	  "tos",   "rate", "busy_poll", NULL};
	bool main_wl = w == &c->sc->workload; /* else a guard's flow, which inherits from it */
	char buf[64], kpath[YD_PATH_LEN];
	yaml_node_t *n;
	uint64_t v = 0;
	int st = 0;

	if (yd_want_map(c->d, wl, path)) {
		c->interval_unknown |= main_wl;
		return -EINVAL;
	}
	n = yd_map_get(c->d, wl, "kind");
	if (n && n->type == YAML_SCALAR_NODE && !strcmp(yd_scalar(n), "job")) {
		if (!main_wl) {
			yd_join(kpath, path, "kind");
			return yd_fail(c->d, n, kpath,
				       "a guard's flow is an rdma_stream of its own; a job is only "
				       "the drill's workload");
		}
		return scp_parse_job(c, wl, path, w);
	}
	if (scp_keep(&st, yd_check_keys(c->d, wl, path, keys)))
		c->interval_unknown |= main_wl; /* a misspelt interval: the default is a guess */
	if ((n = yd_map_get(c->d, wl, "kind"))) {
		yd_join(kpath, path, "kind");
		if (!scp_keep(&st, yd_get_text(c->d, n, kpath, w->kind, sizeof(w->kind))) &&
		    strcmp(w->kind, "rdma_stream"))
			scp_keep(&st, yd_fail(c->d, n, kpath,
					      "\"%s\" is not a workload; use rdma_stream or job",
					      w->kind));
	}
	scp_keep(&st, parse_workload_ends(c, wl, path, w, main_wl));
	if ((n = yd_map_get(c->d, wl, "op"))) {
		yd_join(kpath, path, "op");
		if (scp_keep(&st, yd_get_text(c->d, n, kpath, buf, sizeof(buf))))
			;
		else if (!strcmp(buf, "write"))
			w->op = SC_OP_WRITE;
		else if (!strcmp(buf, "send"))
			w->op = SC_OP_SEND;
		else
			scp_keep(&st,
				 yd_fail(c->d, n, kpath,
					 "\"%s\" is not an operation; use write or send", buf));
	}
	if ((n = yd_map_get(c->d, wl, "msg_size"))) {
		yd_join(kpath, path, "msg_size");
		if (scp_keep(&st, yd_want_scalar(c->d, n, kpath)))
			;
		else if (rc_parse_size(yd_scalar(n), &v))
			scp_keep(&st, yd_fail(c->d, n, kpath,
					      "\"%s\" is not a size; write e.g. 4096, 64KiB, 1MiB",
					      yd_scalar(n)));
		else if (v < 64 || v > 16 * 1024 * 1024)
			scp_keep(&st,
				 yd_fail(c->d, n, kpath, "%s is out of range; use 64 B..16 MiB",
					 yd_scalar(n)));
		else
			w->msg_size = v;
	}
	if ((n = yd_map_get(c->d, wl, "queue_depth"))) {
		yd_join(kpath, path, "queue_depth");
		if (!scp_keep(&st, yd_get_uint(c->d, n, kpath, 1, 1024, &v)))
			w->queue_depth = (unsigned int)v;
	}
	if ((n = yd_map_get(c->d, wl, "rails")))
		scp_keep(&st, scp_parse_rails(c, n, path, w));
	if ((n = yd_map_get(c->d, wl, "qp")))
		scp_keep(&st, parse_qp(c, n, path, w));
	if ((n = yd_map_get(c->d, wl, "interval"))) {
		int r;

		yd_join(kpath, path, "interval");
		r = yd_get_duration(c->d, n, kpath, &v);
		if (!r && (v < 10 || v > 10000))
			r = yd_fail(c->d, n, kpath, "%s is out of range; use 10ms..10s",
				    rc_format_duration_ms(v, buf, sizeof(buf)));
		if (scp_keep(&st, r))
			c->interval_unknown |= main_wl;
		else
			w->interval_ms = v;
	}
	if ((n = yd_map_get(c->d, wl, "mr_churn"))) {
		yd_join(kpath, path, "mr_churn");
		if (scp_keep(&st, yd_get_duration(c->d, n, kpath, &v)))
			;
		else if (v && (v < 100 || v > 3600000))
			scp_keep(&st, yd_fail(c->d, n, kpath,
					      "%s is out of range; use 100ms..1h (or 0: never)",
					      rc_format_duration_ms(v, buf, sizeof(buf))));
		else
			w->mr_churn_ms = v;
	}
	if ((n = yd_map_get(c->d, wl, "tos"))) {
		yd_join(kpath, path, "tos");
		if (!scp_keep(&st, yd_get_uint(c->d, n, kpath, 0, 255, &v)))
			w->tos = (int)v;
	}
	if ((n = yd_map_get(c->d, wl, "rate"))) {
		yd_join(kpath, path, "rate");
		if (scp_keep(&st, yd_get_text(c->d, n, kpath, buf, sizeof(buf))))
			;
		else if (rc_parse_rate(buf, &v) || (v && v < 1000))
			scp_keep(&st,
				 yd_fail(c->d, n, kpath,
					 "\"%s\" is not a rate of at least 1KB/s; use e.g. 4MB/s, "
					 "500KB/s, 10Gbit/s or 4MiB/s (0B/s: as fast as possible)",
					 buf));
		else
			w->rate = v;
	}
	if ((n = yd_map_get(c->d, wl, "busy_poll"))) {
		yd_join(kpath, path, "busy_poll");
		if (scp_keep(&st, yd_get_duration(c->d, n, kpath, &v)))
			;
		else if (v > 1000)
			scp_keep(&st,
				 yd_fail(c->d, n, kpath,
					 "%s is out of range; use 0..1s (e.g. 2ms; 0: sleep at "
					 "once)",
					 rc_format_duration_ms(v, buf, sizeof(buf))));
		else
			w->busy_poll_ms = v;
	}
	if ((n = yd_map_get(c->d, wl, "port"))) {
		yd_join(kpath, path, "port");
		if (!scp_keep(&st, yd_get_uint(c->d, n, kpath, 1, 65535, &v)))
			w->port = (uint16_t)v;
	}
	return st;
}

static int parse_workload(struct pctx *c, yaml_node_t *wl)
{
	workload_defaults(&c->sc->workload);
	return scp_parse_workload_map(c, wl, "workload", &c->sc->workload);
}

static int parse_steady(struct pctx *c, yaml_node_t *ss)
{
	static const char *const keys[] = {"warmup", "baseline", "cooldown", NULL};
	struct scenario *sc = c->sc;
	yaml_node_t *n;
	uint64_t v;
	int st = 0;

	/* with a misspelt key, warmup or baseline may not be what was meant */
	if (scp_keep(&st, yd_want_map(c->d, ss, "steady_state")) ||
	    scp_keep(&st, yd_check_keys(c->d, ss, "steady_state", keys)))
		c->steady_unknown = true;
	if ((n = yd_map_get(c->d, ss, "warmup"))) {
		if (scp_keep(&st, yd_get_duration(c->d, n, "steady_state.warmup", &v)))
			c->steady_unknown = true;
		else
			sc->warmup_ms = v;
	}
	if ((n = yd_map_get(c->d, ss, "baseline"))) {
		if (scp_keep(&st, scp_get_duration_pos(c, n, "steady_state.baseline", &v)))
			c->steady_unknown = true;
		else
			sc->baseline_ms = v;
	}
	if ((n = yd_map_get(c->d, ss, "cooldown")) &&
	    !scp_keep(&st, yd_get_duration(c->d, n, "steady_state.cooldown", &v)))
		sc->cooldown_ms = v;
	return st;
}

/* The baseline is a mean over interval samples: it needs at least two of them. */
static int check_baseline(struct pctx *c, yaml_node_t *ss)
{
	struct scenario *sc = c->sc;
	char b1[32], b2[32], b3[32];

	if (sc->baseline_ms >= 2 * sc->workload.interval_ms || c->steady_unknown ||
	    c->interval_unknown)
		return 0;
	return yd_fail(c->d,
		       yd_map_get(c->d, ss, "baseline") ? yd_map_get(c->d, ss, "baseline") : ss,
		       "steady_state.baseline",
		       "%s holds fewer than 2 samples of the %s workload interval; use at least %s",
		       rc_format_duration_ms(sc->baseline_ms, b1, sizeof(b1)),
		       rc_format_duration_ms(sc->workload.interval_ms, b2, sizeof(b2)),
		       rc_format_duration_ms(2 * sc->workload.interval_ms, b3, sizeof(b3)));
}

static int parse_target(struct pctx *c, yaml_node_t *t, const char *fpath, struct sc_target *tg)
{
	static const char *const keys[] = {"node", "rail",     "netdev", "device",
					   "port", "workload", NULL};
	char path[YD_PATH_LEN], kpath[YD_PATH_LEN];
	yaml_node_t *n, *rail, *netdev, *device, *wl;
	uint64_t v = 0;
	int st = 0, nr_set;

	yd_join(path, fpath, "target");
	tg->rail = -1;
	tg->port = 1;
	if (yd_want_map(c->d, t, path))
		return -EINVAL;
	scp_keep(&st, yd_check_keys(c->d, t, path, keys));
	yd_join(kpath, path, "node");
	if (!(n = yd_map_get(c->d, t, "node")))
		scp_keep(&st,
			 scp_missing(c, t, path, "node", "name the node the fault happens on"));
	else if (!scp_keep(&st, yd_get_text(c->d, n, kpath, tg->node, sizeof(tg->node))))
		scp_keep(&st, scp_check_node_ref(c, n, kpath, tg->node));
	rail = yd_map_get(c->d, t, "rail");
	netdev = yd_map_get(c->d, t, "netdev");
	device = yd_map_get(c->d, t, "device");
	if ((wl = yd_map_get(c->d, t, "workload"))) {
		const struct sc_workload *w = &c->sc->workload;

		yd_join(kpath, path, "workload");
		if (scp_keep(&st, yd_get_text(c->d, wl, kpath, tg->workload, sizeof(tg->workload))))
			;
		else if (strcmp(tg->workload, "stream"))
			scp_keep(&st, yd_fail(c->d, wl, kpath,
					      "\"%s\" is not a workload of this drill; the drill's "
					      "workload is stream",
					      tg->workload));
		else if (tg->node[0] && w->from[0] && w->to[0] && strcmp(tg->node, w->from) &&
			 strcmp(tg->node, w->to))
			scp_keep(&st,
				 yd_fail(c->d, wl, kpath,
					 "the workload does not run on %s (its client is %s, its "
					 "server %s)",
					 tg->node, w->from, w->to));
		if (netdev || device) {
			yd_join(kpath, path, netdev ? "netdev" : "device");
			scp_keep(&st, yd_fail(c->d, netdev ? netdev : device, kpath,
					      "goes with workload only as rail: N (the rail whose "
					      "netdev a mechanism needs)"));
		}
		if (rail) {
			yd_join(kpath, path, "rail");
			scp_keep(&st, scp_get_rail(c, rail, kpath, &tg->rail));
		}
		if ((n = yd_map_get(c->d, t, "port"))) {
			yd_join(kpath, path, "port");
			scp_keep(&st, yd_fail(c->d, n, kpath,
					      "only goes with device (an RDMA device's port)"));
		}
		return st;
	}
	nr_set = !!rail + !!netdev + !!device;
	if (!nr_set)
		return yd_fail(
		    c->d, t, path,
		    "says which node but not what on it; add one of rail: N, netdev: NAME, "
		    "device: NAME (with port: N) or workload: stream");
	if (nr_set > 1) {
		yaml_node_t *second = device ? device : netdev;

		yd_join(kpath, path, device ? "device" : "netdev");
		return yd_fail(c->d, second, kpath, "give only one of rail, netdev or device");
	}
	if (rail) {
		yd_join(kpath, path, "rail");
		scp_keep(&st, scp_get_rail(c, rail, kpath, &tg->rail));
	}
	if (netdev) {
		yd_join(kpath, path, "netdev");
		if (!scp_keep(&st,
			      yd_get_text(c->d, netdev, kpath, tg->netdev, SC_NETDEV_MAX + 1)) &&
		    (strpbrk(tg->netdev, "/: \t") || !strcmp(tg->netdev, ".") ||
		     !strcmp(tg->netdev, "..")))
			scp_keep(&st,
				 yd_fail(c->d, netdev, kpath,
					 "\"%s\" is not a network interface name", tg->netdev));
	}
	if (device) {
		yd_join(kpath, path, "device");
		scp_keep(&st, yd_get_text(c->d, device, kpath, tg->device, sizeof(tg->device)));
	}
	if ((n = yd_map_get(c->d, t, "port"))) {
		yd_join(kpath, path, "port");
		if (!device)
			scp_keep(&st, yd_fail(c->d, n, kpath,
					      "only goes with device (an RDMA device's port)"));
		else if (!scp_keep(&st, yd_get_uint(c->d, n, kpath, 1, 255, &v)))
			tg->port = (int)v;
	}
	return st;
}

static void target_desc(const struct sc_target *t, char *buf, size_t len)
{
	if (t->workload[0])
		snprintf(buf, len, "%s workload %s", t->node, t->workload);
	else if (t->rail >= 0)
		snprintf(buf, len, "%s rail %d", t->node, t->rail);
	else if (t->netdev[0])
		snprintf(buf, len, "%s netdev %s", t->node, t->netdev);
	else
		snprintf(buf, len, "%s device %s port %d", t->node, t->device, t->port);
}

static bool same_target(const struct sc_target *a, const struct sc_target *b)
{
	/* One process's faults share its shim and limits: one at a time, whatever the rail. */
	if (a->workload[0] || b->workload[0])
		return !strcmp(a->node, b->node) && !strcmp(a->workload, b->workload);
	return !strcmp(a->node, b->node) && a->rail == b->rail && !strcmp(a->netdev, b->netdev) &&
	       !strcmp(a->device, b->device) && (!a->device[0] || a->port == b->port);
}

/*
 * repeat: N | {count: N, every: D}, or schedule: {kind: random, count: N,
 * min_gap: D, max_gap: D}: the fault's trials (coordinator/schedule.c places
 * them at plan time). A trial needs a duration: it must end before the next.
 */
static int parse_trials(struct pctx *c, yaml_node_t *fm, const char *path, struct sc_fault *f)
{
	static const char *const rep_keys[] = {"count", "every", NULL};
	static const char *const sch_keys[] = {"kind", "count", "min_gap", "max_gap", NULL};
	yaml_node_t *rep = yd_map_get(c->d, fm, "repeat"), *sch = yd_map_get(c->d, fm, "schedule");
	yaml_node_t *n, *m = rep ? rep : sch;
	char kpath[YD_PATH_LEN], sub[YD_PATH_LEN], kind[16], b1[32], b2[32];
	uint64_t v;
	int ret;

	if (!m)
		return 0;
	yd_join(kpath, path, rep ? "repeat" : "schedule");
	if (rep && sch)
		return yd_fail(c->d, sch, kpath,
			       "a fault has repeat: (evenly spaced trials) or schedule: (random "
			       "gaps), not both");
	f->repeat.line = (int)yd_line(m);
	if (rep && rep->type == YAML_SCALAR_NODE) {
		if ((ret = yd_get_uint(c->d, rep, kpath, 1, SC_MAX_FAULTS, &v)))
			return ret;
		f->repeat.count = (unsigned int)v;
	} else {
		if ((ret = yd_want_map(c->d, m, kpath)) ||
		    (ret = yd_check_keys(c->d, m, kpath, rep ? rep_keys : sch_keys)))
			return ret;
		if (!(n = yd_map_get(c->d, m, "count")))
			return scp_missing(c, m, kpath, "count", "how many trials, e.g. count: 5");
		yd_join(sub, kpath, "count");
		if ((ret = yd_get_uint(c->d, n, sub, 1, SC_MAX_FAULTS, &v)))
			return ret;
		f->repeat.count = (unsigned int)v;
		if (rep && (n = yd_map_get(c->d, m, "every"))) {
			yd_join(sub, kpath, "every");
			if ((ret = scp_get_duration_pos(c, n, sub, &f->repeat.every_ms)))
				return ret;
			if (f->repeat.every_ms < f->duration_ms)
				return yd_fail(c->d, n, sub,
					       "%s is shorter than the fault (duration %s): trials "
					       "of one fault must not overlap",
					       rc_format_duration_ms(f->repeat.every_ms, b1, 32),
					       rc_format_duration_ms(f->duration_ms, b2, 32));
		}
		if (sch) {
			if (!(n = yd_map_get(c->d, m, "kind")))
				return scp_missing(c, m, kpath, "kind", "kind: random");
			yd_join(sub, kpath, "kind");
			if ((ret = yd_get_text(c->d, n, sub, kind, sizeof(kind))))
				return ret;
			if (strcmp(kind, "random"))
				return yd_fail(c->d, n, sub,
					       "\"%s\" is not a schedule kind; use random (for "
					       "evenly spaced trials use repeat:)",
					       kind);
			f->repeat.random = true;
			if (!(n = yd_map_get(c->d, m, "min_gap")))
				return scp_missing(
				    c, m, kpath, "min_gap",
				    "the shortest gap from the end of one trial to the "
				    "start of the next, e.g. min_gap: 10s");
			yd_join(sub, kpath, "min_gap");
			if ((ret = yd_get_duration(c->d, n, sub, &f->repeat.min_gap_ms)))
				return ret;
			if (!(n = yd_map_get(c->d, m, "max_gap")))
				return scp_missing(c, m, kpath, "max_gap",
						   "the longest gap, e.g. max_gap: 30s");
			yd_join(sub, kpath, "max_gap");
			if ((ret = yd_get_duration(c->d, n, sub, &f->repeat.max_gap_ms)))
				return ret;
			if (f->repeat.max_gap_ms < f->repeat.min_gap_ms)
				return yd_fail(c->d, n, sub, "%s is shorter than min_gap (%s)",
					       rc_format_duration_ms(f->repeat.max_gap_ms, b1, 32),
					       rc_format_duration_ms(f->repeat.min_gap_ms, b2, 32));
		}
	}
	if (f->repeat.count > 1 && !f->duration_ms)
		return yd_fail(c->d, m, kpath,
			       "a repeated fault needs a duration: each trial must end before the "
			       "next one starts");
	return 0;
}

static int parse_fault(struct pctx *c, yaml_node_t *fm, unsigned int idx)
{
	static const char *const keys[] = {"name",   "at",     "injector", "target", "duration",
					   "params", "repeat", "schedule", NULL};
	struct scenario *sc = c->sc;
	struct sc_fault *f = &sc->faults[idx];
	char path[YD_PATH_LEN], kpath[YD_PATH_LEN], b1[32], b2[32], b3[32], b4[32];
	const struct injector *inj = NULL;
	yaml_node_t *n;
	unsigned int j;
	uint64_t v;
	int st = 0;

	yd_join_idx(path, "faults", idx);
	f->target.rail = -1;
	c->fault_bad[idx] = true; /* until it has passed every check */
	if (yd_want_map(c->d, fm, path))
		return -EINVAL;
	scp_keep(&st, yd_check_keys(c->d, fm, path, keys));
	f->line = (int)yd_line(fm);
	f->col = (int)yd_col(fm);
	yd_join(kpath, path, "name");
	if (!(n = yd_map_get(c->d, fm, "name"))) {
		scp_keep(&st, scp_missing(c, fm, path, "name",
					  "every fault needs a name (its id in the report)"));
	} else if (!scp_keep(&st, get_name(c, n, kpath, f->name, sizeof(f->name),
					   "it is the fault's id"))) {
		for (j = 0; j < idx; j++) {
			if (strcmp(sc->faults[j].name, f->name))
				continue;
			scp_keep(&st, yd_fail(c->d, n, kpath,
					      "\"%s\" is already faults[%u]; names are unique",
					      f->name, j));
			break;
		}
	}
	yd_join(kpath, path, "at");
	if (!(n = yd_map_get(c->d, fm, "at")))
		scp_keep(&st,
			 scp_missing(c, fm, path, "at",
				     "say when the fault starts, counted from the workload start, "
				     "e.g. at: 20s"));
	else if (scp_keep(&st, yd_get_duration(c->d, n, kpath, &v)))
		;
	else if ((f->at_ms = v) < sc->warmup_ms + sc->baseline_ms && !c->steady_unknown)
		scp_keep(&st,
			 yd_fail(c->d, n, kpath,
				 "%s falls inside the steady state (warmup %s + baseline %s); the "
				 "baseline must be measured before any fault, so use at >= %s",
				 rc_format_duration_ms(f->at_ms, b1, sizeof(b1)),
				 rc_format_duration_ms(sc->warmup_ms, b2, sizeof(b2)),
				 rc_format_duration_ms(sc->baseline_ms, b3, sizeof(b3)),
				 rc_format_duration_ms(sc->warmup_ms + sc->baseline_ms, b4,
						       sizeof(b4))));
	yd_join(kpath, path, "injector");
	if (!(n = yd_map_get(c->d, fm, "injector"))) {
		char use[320];

		snprintf(use, sizeof(use), "use %s", injector_names());
		scp_keep(&st, scp_missing(c, fm, path, "injector", use));
	} else if (scp_keep(&st, yd_get_text(c->d, n, kpath, f->injector, sizeof(f->injector))))
		;
	else if (!(inj = injector_find(f->injector)))
		scp_keep(&st, yd_fail(c->d, n, kpath, "\"%s\" is not an injector; use %s",
				      f->injector, injector_names()));
	if (!(n = yd_map_get(c->d, fm, "target")))
		scp_keep(&st, scp_missing(c, fm, path, "target",
					  "say where, e.g. target: {node: node-b, rail: 0}"));
	else
		scp_keep(&st, parse_target(c, n, path, &f->target));
	if ((n = yd_map_get(c->d, fm, "duration"))) {
		yd_join(kpath, path, "duration");
		if (!scp_keep(&st, scp_get_duration_pos(c, n, kpath, &v)))
			f->duration_ms = v;
	} else if (inj && (inj->flags & INJ_NEEDS_DURATION)) {
		snprintf(kpath, sizeof(kpath),
			 "%s needs to know when to undo the fault, e.g. duration: 10s", inj->name);
		scp_keep(&st, scp_missing(c, fm, path, "duration", kpath));
	}
	/* parameters are the injector's: without one they cannot be checked */
	if (inj)
		scp_keep(&st,
			 scp_parse_params(c, fm, yd_map_get(c->d, fm, "params"), path, inj, f));
	if (st == -ENOMEM)
		return st;
	scp_keep(&st, parse_trials(c, fm, path, f));
	c->fault_bad[idx] = st != 0;
	return st;
}

/* Two faults on the same target at the same time would undo each other's revert. */
static int check_overlaps(struct pctx *c, yaml_node_t *seq)
{
	struct scenario *sc = c->sc;
	char path[YD_PATH_LEN], tdesc[128], b[4][32], b5[32];
	unsigned int i, j;

	int st = 0;

	for (j = 1; j < sc->nr_faults; j++) {
		const struct sc_fault *fj = &sc->faults[j];

		for (i = 0; i < j && !c->fault_bad[j]; i++) {
			const struct sc_fault *fi = &sc->faults[i];
			yaml_node_t *fm = yd_seq_item(c->d, seq, j);

			if (c->fault_bad[i] || !same_target(&fi->target, &fj->target))
				continue;
			if (fj->at_ms >= fi->at_ms + fi->duration_ms ||
			    fi->at_ms >= fj->at_ms + fj->duration_ms)
				continue;
			snprintf(path, sizeof(path), "faults[%u].at", j);
			target_desc(&fj->target, tdesc, sizeof(tdesc));
			st = yd_fail(
			    c->d, yd_map_get(c->d, fm, "at"), path,
			    "\"%s\" (%s-%s) overlaps \"%s\" (%s-%s) on the same target (%s); "
			    "start it at or after %s",
			    fj->name, rc_format_duration_ms(fj->at_ms, b[0], 32),
			    rc_format_duration_ms(fj->at_ms + fj->duration_ms, b[1], 32), fi->name,
			    rc_format_duration_ms(fi->at_ms, b[2], 32),
			    rc_format_duration_ms(fi->at_ms + fi->duration_ms, b[3], 32), tdesc,
			    rc_format_duration_ms(fi->at_ms + fi->duration_ms, b5, sizeof(b5)));
			break; /* one overlap is enough to move this fault */
		}
	}
	return st;
}

static int parse_faults(struct pctx *c, yaml_node_t *seq)
{
	unsigned int i, nr;
	int st = 0;

	if (yd_want_seq(c->d, seq, "faults"))
		return -EINVAL;
	nr = (unsigned int)yd_seq_len(seq);
	if (!nr || nr > SC_MAX_FAULTS)
		scp_keep(&st, yd_fail(c->d, seq, "faults", "lists %u faults; a drill needs 1..%d",
				      nr, SC_MAX_FAULTS));
	if (nr > SC_MAX_FAULTS)
		nr = SC_MAX_FAULTS; /* the first ones are still checked */
	for (i = 0; i < nr; i++) {
		/* counted before parsing, so scenario_free releases a half-built fault's params */
		c->sc->nr_faults = i + 1;
		if (scp_keep(&st, parse_fault(c, yd_seq_item(c->d, seq, i), i)) == -ENOMEM)
			return -ENOMEM;
	}
	scp_keep(&st, check_overlaps(c, seq));
	return st;
}

static int parse_root(struct pctx *c, yaml_node_t *root)
{
	static const char *const keys[] = {"name",   "description", "owner",	    "lab",
					   "nodes",  "workload",    "steady_state", "faults",
					   "expect", "safety",	    "monitoring",   "scheduler",
					   "select", NULL};
	struct scenario *sc = c->sc;
	yaml_node_t *n, *lab, *nodes, *ss, *sel;
	int st = 0;

	if (root->type != YAML_MAPPING_NODE)
		return yd_fail(c->d, root, "",
			       "a scenario is a mapping of keys (name:, workload:, faults:, ...)");
	/* each section is checked even when an earlier one was refused */
	scp_keep(&st, yd_check_keys(c->d, root, "", keys));
	if (!(n = yd_map_get(c->d, root, "name")))
		scp_keep(&st,
			 scp_missing(c, root, "", "name",
				     "every scenario needs a name ([A-Za-z0-9._-]+, used in folder "
				     "names)"));
	else
		scp_keep(&st, get_name(c, n, "name", sc->name, sizeof(sc->name),
				       "it is used in folder names"));
	if ((n = yd_map_get(c->d, root, "description")))
		scp_keep(&st, yd_get_text(c->d, n, "description", sc->description,
					  sizeof(sc->description)));
	if ((n = yd_map_get(c->d, root, "owner")))
		scp_keep(&st, yd_get_text(c->d, n, "owner", sc->owner, sizeof(sc->owner)));

	lab = yd_map_get(c->d, root, "lab");
	nodes = yd_map_get(c->d, root, "nodes");
	sel = yd_map_get(c->d, root, "select");
	if (lab && nodes) {
		yaml_node_t *later = lab->start_mark.index > nodes->start_mark.index ? lab : nodes;

		scp_keep(&st, yd_fail(c->d, later, later == lab ? "lab" : "nodes",
				      "give either lab (the built-in lab's node-a, node-b, ...) or "
				      "nodes (a real cluster), not both"));
		c->nodes_unknown = c->rails_unknown = true;
	} else if (!lab && !nodes && sel) {
		/* every node comes from the fleet: nothing else may be named */
	} else if (!lab && !nodes) {
		scp_keep(&st,
			 yd_fail(c->d, root, "nodes",
				 "missing; give lab: {nodes: N, rails: R} for the built-in lab "
				 "or nodes: [{name: ..., agent: host:port}, ...] for a real "
				 "cluster"));
		c->nodes_unknown = c->rails_unknown = true;
	} else if (scp_keep(&st, lab ? parse_lab(c, lab) : parse_nodes(c, nodes)) == -ENOMEM) {
		return -ENOMEM;
	}
	/* before everything that names a node: a picked node's name stands for one */
	if (sel && scp_keep(&st, scp_parse_select(c, sel)) == -ENOMEM)
		return -ENOMEM;

	sc->warmup_ms = 5000;
	sc->baseline_ms = 10000;
	if ((ss = yd_map_get(c->d, root, "steady_state")))
		scp_keep(&st, parse_steady(c, ss));
	if (!(n = yd_map_get(c->d, root, "workload"))) {
		scp_keep(&st, scp_missing(
				  c, root, "", "workload",
				  "describe the traffic, e.g. workload: {kind: rdma_stream, from: "
				  "node-a, to: node-b}"));
		c->interval_unknown = true;
	} else {
		scp_keep(&st, parse_workload(c, n));
	}
	scp_keep(&st, check_baseline(c, ss ? ss : root));
	if (!(n = yd_map_get(c->d, root, "faults")))
		scp_keep(&st,
			 scp_missing(c, root, "", "faults", "list at least one fault to inject"));
	else if (scp_keep(&st, parse_faults(c, n)) == -ENOMEM)
		return -ENOMEM;
	/* before expect:, whose scheduler part names what scheduler: declares */
	if ((n = yd_map_get(c->d, root, "scheduler")) &&
	    scp_keep(&st, scp_parse_scheduler(c, n)) == -ENOMEM)
		return -ENOMEM;
	if (!(n = yd_map_get(c->d, root, "expect")))
		scp_keep(&st, scp_missing(
				  c, root, "", "expect",
				  "say what must hold: detection, recovery (isolation, integrity "
				  "optional)"));
	else
		scp_keep(&st, scp_parse_expect(c, n));
	sc->safety.lease_ms = SC_DEFAULT_LEASE_MS;
	if ((n = yd_map_get(c->d, root, "safety")))
		scp_keep(&st, scp_parse_safety(c, n));
	if ((n = yd_map_get(c->d, root, "monitoring")))
		scp_keep(&st, scp_parse_monitoring(c, n));
	if (c->sc->expect.sched_drained_within_ms || c->sc->expect.sched_resumed_within_ms ||
	    c->sc->expect.sched_job[0]) {
		if (!c->sc->scheduler.slurm)
			scp_keep(&st,
				 scp_missing(c, root, "", "scheduler",
					     "expect.scheduler needs a scheduler to watch, e.g. "
					     "scheduler: {slurm: {}}"));
	}
	return st;
}

/* ---- entry points ------------------------------------------------------ */

static int sha256_hex(const void *data, size_t len, char out[65])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0, i;

	if (!EVP_Digest(data, len, md, &mdlen, EVP_sha256(), NULL) || mdlen != 32)
		return -EIO;
	for (i = 0; i < mdlen; i++)
		snprintf(out + 2 * i, 3, "%02x", md[i]);
	return 0;
}

/*
 * What scenario_parse() and scenario_check_text() share: the first error in
 * err, and with diags every error, then (for a scenario without errors) the
 * lint warnings.
 */
static int sc_parse(const char *name, const char *text, size_t len, struct scenario *sc, char *err,
		    size_t errlen, struct yd_diags *diags)
{
	struct yd_doc d;
	struct pctx c = {.d = &d, .sc = sc};
	int ret;

	memset(sc, 0, sizeof(*sc));
	if (errlen)
		err[0] = '\0';
	snprintf(sc->file, sizeof(sc->file), "%s", name);
	if ((ret = sha256_hex(text, len, sc->sha256))) {
		snprintf(err, errlen, "%s: cannot compute sha256", name);
		return ret;
	}
	if ((ret = yd_load_diags(&d, &sc_kind, name, text, len, err, errlen, diags)))
		return ret;
	if (!d.root) {
		ret = yd_fail(&d, NULL, "",
			      "the file holds no YAML; a scenario starts with name: ...");
	} else {
		ret = parse_root(&c, d.root);
		/* a refusal always has its message: one without came from a failed allocation */
		if (ret != -ENOMEM)
			ret = d.nr_errors ? -EINVAL : ret ? -ENOMEM : 0;
		if (ret == -ENOMEM)
			snprintf(err, errlen, "%s: out of memory", name);
		else if (!ret && diags)
			scp_lint(&c, d.root);
	}
	yd_free(&d);
	if (ret)
		scenario_free(sc);
	return ret;
}

int scenario_parse(const char *name, const char *text, size_t len, struct scenario *sc, char *err,
		   size_t errlen)
{
	return sc_parse(name, text, len, sc, err, errlen, NULL);
}

int scenario_load(const char *path, struct scenario *sc, char *err, size_t errlen)
{
	char *buf;
	size_t len;
	int ret;

	memset(sc, 0, sizeof(*sc));
	if ((ret = yd_read_file(&sc_kind, path, &buf, &len, err, errlen)))
		return ret;
	ret = scenario_parse(path, buf, len, sc, err, errlen);
	free(buf);
	return ret;
}

int scenario_check_text(const char *name, const char *text, size_t len, struct scenario *sc,
			struct yd_diags *diags)
{
	unsigned int before = diags->nr_errors;
	char err[1024];
	int ret = sc_parse(name, text, len, sc, err, sizeof(err), diags);

	/* out of memory, or no sha256: said in err alone */
	if (ret && diags->nr_errors == before)
		yd_diags_add(diags, YD_ERROR, 0, 0, "", err, 0);
	return ret;
}

int scenario_check(const char *path, struct scenario *sc, struct yd_diags *diags)
{
	char err[1024], *buf;
	size_t len;
	int ret;

	memset(sc, 0, sizeof(*sc));
	if ((ret = yd_read_file(&sc_kind, path, &buf, &len, err, sizeof(err)))) {
		yd_diags_add(diags, YD_ERROR, 0, 0, "", err, 0);
		return ret;
	}
	ret = scenario_check_text(path, buf, len, sc, diags);
	free(buf);
	return ret;
}

void scenario_free(struct scenario *sc)
{
	unsigned int i;

	for (i = 0; i < SC_MAX_FAULTS; i++) {
		json_decref(sc->faults[i].params);
		sc->faults[i].params = NULL;
	}
	json_decref(sc->scheduler.nodes);
	sc->scheduler.nodes = NULL;
	json_decref(sc->scheduler.submit);
	sc->scheduler.submit = NULL;
	free(sc->nodes);
	sc->nodes = NULL;
	sc->nr_nodes = 0;
	for (i = 0; i < sc->nr_selects; i++) {
		json_decref(sc->selects[i].labels);
		json_decref(sc->selects[i].picked);
		sc->selects[i].labels = sc->selects[i].picked = NULL;
	}
	sc->nr_selects = 0;
	if (sc->workload.job) {
		scp_job_free(sc->workload.job);
		sc->workload.job = NULL;
	}
}

const struct sc_node *scenario_node(const struct scenario *sc, const char *name)
{
	unsigned int i;

	for (i = 0; i < sc->nr_nodes; i++)
		if (!strcmp(sc->nodes[i].name, name))
			return &sc->nodes[i];
	return NULL;
}

const struct sc_select *scenario_select(const struct scenario *sc, const char *name)
{
	unsigned int i;

	for (i = 0; i < sc->nr_selects; i++)
		if (!strcmp(sc->selects[i].name, name))
			return &sc->selects[i];
	return NULL;
}
