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
#include "coordinator/scenario.h"
#include "injectors/injector.h"

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

struct pctx {
	struct yd_doc *d; /* the file, its document, and the message buffer */
	struct scenario *sc;
	/* What a refusal left unknown: checks against it are skipped, not repeated. */
	bool nodes_unknown;	       /* the node list (lab: or nodes:) */
	bool rails_unknown;	       /* lab.rails */
	bool steady_unknown;	       /* steady_state.warmup or .baseline */
	bool interval_unknown;	       /* workload.interval */
	bool fault_bad[SC_MAX_FAULTS]; /* a refused fault, left out of the overlap check */
};

/*
 * Folds a check's result into a section's status *st and returns it: after
 * -EINVAL (recorded by yd_fail) the section goes on with its next key;
 * -ENOMEM stays and the callers stop.
 */
static int keep(int *st, int ret)
{
	if (ret && *st != -ENOMEM)
		*st = ret;
	return ret;
}

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
};

#define SC_SIGNAL_NAMES                                                                            \
	"workload_error, port_event, link_event, counter, isolation, mr_error, qp_state, "         \
	"pfc_storm, pfc_pause, stall, alert:NAME"

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

static int missing(struct pctx *c, const yaml_node_t *map, const char *path, const char *key,
		   const char *what)
{
	char kpath[YD_PATH_LEN];

	yd_join(kpath, path, key);
	return yd_fail(c->d, map, kpath, "missing; %s", what);
}

/* ---- typed values ------------------------------------------------------ */

/* Names end up in folder names and messages: [A-Za-z0-9._-]+. */
static int get_name(struct pctx *c, const yaml_node_t *n, const char *path, char *buf, size_t len,
		    const char *used_for)
{
	const char *s;
	int ret = yd_get_text(c->d, n, path, buf, len);

	if (ret)
		return ret;
	if (!buf[0])
		return yd_fail(c->d, n, path,
			       "is empty; give a name of letters, digits, '.', '_' and '-' (%s)",
			       used_for);
	for (s = buf; *s; s++) {
		if ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		    (*s >= '0' && *s <= '9') || *s == '.' || *s == '_' || *s == '-')
			continue;
		return yd_fail(c->d, n, path,
			       "\"%s\" may hold only letters, digits, '.', '_' and '-' (%s)", buf,
			       used_for);
	}
	return 0;
}

/* A duration that must be more than zero: "within", "down", ... */
static int get_duration_pos(struct pctx *c, const yaml_node_t *n, const char *path, uint64_t *ms)
{
	int ret = yd_get_duration(c->d, n, path, ms);

	if (!ret && !*ms)
		return yd_fail(c->d, n, path, "must be longer than 0");
	return ret;
}

static int get_double(struct pctx *c, const yaml_node_t *n, const char *path, double *v)
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
	if (keep(&st, yd_want_map(c->d, lab, "lab")) ||
	    keep(&st, yd_check_keys(c->d, lab, "lab", keys)))
		c->nodes_unknown = c->rails_unknown = true;
	if (lab->type != YAML_MAPPING_NODE)
		return st;
	if ((n = yd_map_get(c->d, lab, "nodes"))) {
		if (keep(&st, yd_get_uint(c->d, n, "lab.nodes", 2, SC_LAB_MAX_NODES, &v)))
			c->nodes_unknown = true;
		else
			sc->lab_nodes = (unsigned int)v;
	}
	if ((n = yd_map_get(c->d, lab, "rails"))) {
		if (keep(&st, yd_get_uint(c->d, n, "lab.rails", 1, SC_LAB_MAX_RAILS, &v)))
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
static int check_agent(struct pctx *c, const yaml_node_t *n, const char *path, const char *agent)
{
	const char *colon = strrchr(agent, ':');
	char *end;
	unsigned long port;

	if (!colon || colon == agent)
		return yd_fail(c->d, n, path, "\"%s\" is not host:port, e.g. gpu01:7707", agent);
	if (agent[0] == '[' && colon[-1] != ']')
		return yd_fail(c->d, n, path,
			       "\"%s\": an IPv6 address goes in brackets before the port, e.g. "
			       "[fd00::1]:7707",
			       agent);
	errno = 0;
	port = strtoul(colon + 1, &end, 10);
	if (colon[1] < '0' || colon[1] > '9' || *end || errno || port < 1 || port > 65535)
		return yd_fail(c->d, n, path, "\"%s\" has no valid port; use host:1..65535", agent);
	return 0;
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
		keep(&st, yd_fail(c->d, seq, "nodes", "lists %u nodes; a drill needs 2..%d", nr,
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
		if (keep(&st, yd_want_map(c->d, e, path))) {
			c->nodes_unknown = true;
			continue;
		}
		keep(&st, yd_check_keys(c->d, e, path, keys));
		yd_join(kpath, path, "name");
		if (!(n = yd_map_get(c->d, e, "name"))) {
			keep(&st, missing(c, e, path, "name",
					  "every node needs a name (its agent's --name)"));
			c->nodes_unknown = true;
		} else if (keep(&st, get_name(c, n, kpath, nd->name, sizeof(nd->name),
					      "it names the node"))) {
			c->nodes_unknown = true;
		} else {
			for (j = 0; j < i; j++) {
				if (strcmp(sc->nodes[j].name, nd->name))
					continue;
				keep(&st, yd_fail(c->d, n, kpath,
						  "\"%s\" is already nodes[%u]; names are unique",
						  nd->name, j));
				break;
			}
		}
		yd_join(kpath, path, "agent");
		if (!(n = yd_map_get(c->d, e, "agent")))
			keep(&st,
			     missing(c, e, path, "agent",
				     "where the node's agent listens, host:port, e.g. gpu01:7707"));
		else if (!keep(&st, yd_get_text(c->d, n, kpath, nd->agent, sizeof(nd->agent))))
			keep(&st, check_agent(c, n, kpath, nd->agent));
	}
	return st;
}

static int check_node_ref(struct pctx *c, const yaml_node_t *n, const char *path, const char *name)
{
	char list[256];

	if (scenario_node(c->sc, name) || c->nodes_unknown)
		return 0;
	return yd_fail(c->d, n, path, "\"%s\" is not a node of this drill; nodes: %s", name,
		       node_list(c->sc, list, sizeof(list)));
}

/* A rail number, checked against the lab's rails (or SC_MAX_RAILS on a real cluster). */
static int get_rail(struct pctx *c, const yaml_node_t *n, const char *path, int *rail)
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
	keep(&st, yd_check_keys(c->d, qp, path, keys));
	if ((n = yd_map_get(c->d, qp, "timeout"))) {
		yd_join(kpath, path, "timeout");
		if (keep(&st, yd_get_uint(c->d, n, kpath, 0, 31, &v)))
			;
		else if (v == 0)
			keep(&st, yd_fail(c->d, n, kpath,
					  "0 disables the retransmit timer, so one lost packet "
					  "hangs the QP forever; use 1..31 (the period is 4.096 us "
					  "x 2^timeout, 14 is about 67 ms)"));
		else
			w->qp_timeout = (unsigned int)v;
	}
	if ((n = yd_map_get(c->d, qp, "retry_cnt"))) {
		yd_join(kpath, path, "retry_cnt");
		if (keep(&st, yd_get_uint(c->d, n, kpath, 0, 7, &v)))
			;
		else if (v == 7 && c->sc->lab)
			keep(&st, yd_fail(c->d, n, kpath,
					  "7 makes Soft-RoCE retry forever; use 0..6 in the lab"));
		else
			w->qp_retry_cnt = (unsigned int)v;
	}
	return st;
}

static int parse_rails(struct pctx *c, yaml_node_t *seq, const char *wpath, struct sc_workload *w)
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
		if (keep(&st, get_rail(c, n, ipath, &r)))
			continue;
		for (j = 0; j < nr_ok && rails[j] != r; j++)
			;
		if (j < nr_ok)
			keep(&st, yd_fail(c->d, n, ipath, "rail %d is listed twice", r));
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
		if (!keep(&st, yd_get_text(c->d, n, kpath, w->from, sizeof(w->from))))
			keep(&st, check_node_ref(c, n, kpath, w->from));
	} else if (!w->from[0] && main_wl) { /* a flow's is empty only when the drill's was bad */
		keep(&st, missing(c, wl, path, "from", "name the client node, e.g. from: node-a"));
	}
	yd_join(kpath, path, "to");
	if ((n = yd_map_get(c->d, wl, "to"))) {
		if (!keep(&st, yd_get_text(c->d, n, kpath, w->to, sizeof(w->to))))
			keep(&st, check_node_ref(c, n, kpath, w->to));
	} else if (!w->to[0] && main_wl) {
		keep(&st, missing(c, wl, path, "to", "name the server node, e.g. to: node-b"));
	}
	if (w->from[0] && !strcmp(w->from, w->to))
		keep(&st, yd_fail(c->d, n ? n : wl, kpath,
				  "\"%s\" is also the client (from); the stream needs two "
				  "different nodes",
				  w->to));
	return st;
}

static int parse_workload_map(struct pctx *c, yaml_node_t *wl, const char *path,
			      struct sc_workload *w)
{
	static const char *const keys[] = {"kind",	  "from",  "to",   "op",       "msg_size",
					   "queue_depth", "rails", "qp",   "interval", "port",
					   "mr_churn",	  "tos",   "rate", NULL};
	bool main_wl = w == &c->sc->workload; /* else a guard's flow, which inherits from it */
	char buf[64], kpath[YD_PATH_LEN];
	yaml_node_t *n;
	uint64_t v = 0;
	int st = 0;

	if (yd_want_map(c->d, wl, path)) {
		c->interval_unknown |= main_wl;
		return -EINVAL;
	}
	if (keep(&st, yd_check_keys(c->d, wl, path, keys)))
		c->interval_unknown |= main_wl; /* a misspelt interval: the default is a guess */
	if ((n = yd_map_get(c->d, wl, "kind"))) {
		yd_join(kpath, path, "kind");
		if (!keep(&st, yd_get_text(c->d, n, kpath, w->kind, sizeof(w->kind))) &&
		    strcmp(w->kind, "rdma_stream"))
			keep(&st, yd_fail(c->d, n, kpath,
					  "\"%s\" is not a workload; use rdma_stream", w->kind));
	}
	keep(&st, parse_workload_ends(c, wl, path, w, main_wl));
	if ((n = yd_map_get(c->d, wl, "op"))) {
		yd_join(kpath, path, "op");
		if (keep(&st, yd_get_text(c->d, n, kpath, buf, sizeof(buf))))
			;
		else if (!strcmp(buf, "write"))
			w->op = SC_OP_WRITE;
		else if (!strcmp(buf, "send"))
			w->op = SC_OP_SEND;
		else
			keep(&st, yd_fail(c->d, n, kpath,
					  "\"%s\" is not an operation; use write or send", buf));
	}
	if ((n = yd_map_get(c->d, wl, "msg_size"))) {
		yd_join(kpath, path, "msg_size");
		if (keep(&st, yd_want_scalar(c->d, n, kpath)))
			;
		else if (rc_parse_size(yd_scalar(n), &v))
			keep(&st, yd_fail(c->d, n, kpath,
					  "\"%s\" is not a size; write e.g. 4096, 64KiB, 1MiB",
					  yd_scalar(n)));
		else if (v < 64 || v > 16 * 1024 * 1024)
			keep(&st, yd_fail(c->d, n, kpath, "%s is out of range; use 64 B..16 MiB",
					  yd_scalar(n)));
		else
			w->msg_size = v;
	}
	if ((n = yd_map_get(c->d, wl, "queue_depth"))) {
		yd_join(kpath, path, "queue_depth");
		if (!keep(&st, yd_get_uint(c->d, n, kpath, 1, 1024, &v)))
			w->queue_depth = (unsigned int)v;
	}
	if ((n = yd_map_get(c->d, wl, "rails")))
		keep(&st, parse_rails(c, n, path, w));
	if ((n = yd_map_get(c->d, wl, "qp")))
		keep(&st, parse_qp(c, n, path, w));
	if ((n = yd_map_get(c->d, wl, "interval"))) {
		int r;

		yd_join(kpath, path, "interval");
		r = yd_get_duration(c->d, n, kpath, &v);
		if (!r && (v < 10 || v > 10000))
			r = yd_fail(c->d, n, kpath, "%s is out of range; use 10ms..10s",
				    rc_format_duration_ms(v, buf, sizeof(buf)));
		if (keep(&st, r))
			c->interval_unknown |= main_wl;
		else
			w->interval_ms = v;
	}
	if ((n = yd_map_get(c->d, wl, "mr_churn"))) {
		yd_join(kpath, path, "mr_churn");
		if (keep(&st, yd_get_duration(c->d, n, kpath, &v)))
			;
		else if (v && (v < 100 || v > 3600000))
			keep(&st, yd_fail(c->d, n, kpath,
					  "%s is out of range; use 100ms..1h (or 0: never)",
					  rc_format_duration_ms(v, buf, sizeof(buf))));
		else
			w->mr_churn_ms = v;
	}
	if ((n = yd_map_get(c->d, wl, "tos"))) {
		yd_join(kpath, path, "tos");
		if (!keep(&st, yd_get_uint(c->d, n, kpath, 0, 255, &v)))
			w->tos = (int)v;
	}
	if ((n = yd_map_get(c->d, wl, "rate"))) {
		yd_join(kpath, path, "rate");
		if (keep(&st, yd_get_text(c->d, n, kpath, buf, sizeof(buf))))
			;
		else if (rc_parse_rate(buf, &v) || (v && v < 1000))
			keep(&st, yd_fail(c->d, n, kpath,
					  "\"%s\" is not a rate of at least 1KB/s; use e.g. 4MB/s, "
					  "500KB/s, 10Gbit/s or 4MiB/s (0B/s: as fast as possible)",
					  buf));
		else
			w->rate = v;
	}
	if ((n = yd_map_get(c->d, wl, "port"))) {
		yd_join(kpath, path, "port");
		if (!keep(&st, yd_get_uint(c->d, n, kpath, 1, 65535, &v)))
			w->port = (uint16_t)v;
	}
	return st;
}

static int parse_workload(struct pctx *c, yaml_node_t *wl)
{
	workload_defaults(&c->sc->workload);
	return parse_workload_map(c, wl, "workload", &c->sc->workload);
}

static int parse_steady(struct pctx *c, yaml_node_t *ss)
{
	static const char *const keys[] = {"warmup", "baseline", "cooldown", NULL};
	struct scenario *sc = c->sc;
	yaml_node_t *n;
	uint64_t v;
	int st = 0;

	/* with a misspelt key, warmup or baseline may not be what was meant */
	if (keep(&st, yd_want_map(c->d, ss, "steady_state")) ||
	    keep(&st, yd_check_keys(c->d, ss, "steady_state", keys)))
		c->steady_unknown = true;
	if ((n = yd_map_get(c->d, ss, "warmup"))) {
		if (keep(&st, yd_get_duration(c->d, n, "steady_state.warmup", &v)))
			c->steady_unknown = true;
		else
			sc->warmup_ms = v;
	}
	if ((n = yd_map_get(c->d, ss, "baseline"))) {
		if (keep(&st, get_duration_pos(c, n, "steady_state.baseline", &v)))
			c->steady_unknown = true;
		else
			sc->baseline_ms = v;
	}
	if ((n = yd_map_get(c->d, ss, "cooldown")) &&
	    !keep(&st, yd_get_duration(c->d, n, "steady_state.cooldown", &v)))
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
	keep(&st, yd_check_keys(c->d, t, path, keys));
	yd_join(kpath, path, "node");
	if (!(n = yd_map_get(c->d, t, "node")))
		keep(&st, missing(c, t, path, "node", "name the node the fault happens on"));
	else if (!keep(&st, yd_get_text(c->d, n, kpath, tg->node, sizeof(tg->node))))
		keep(&st, check_node_ref(c, n, kpath, tg->node));
	rail = yd_map_get(c->d, t, "rail");
	netdev = yd_map_get(c->d, t, "netdev");
	device = yd_map_get(c->d, t, "device");
	if ((wl = yd_map_get(c->d, t, "workload"))) {
		const struct sc_workload *w = &c->sc->workload;

		yd_join(kpath, path, "workload");
		if (keep(&st, yd_get_text(c->d, wl, kpath, tg->workload, sizeof(tg->workload))))
			;
		else if (strcmp(tg->workload, "stream"))
			keep(&st, yd_fail(c->d, wl, kpath,
					  "\"%s\" is not a workload of this drill; the drill's "
					  "workload is stream",
					  tg->workload));
		else if (tg->node[0] && w->from[0] && w->to[0] && strcmp(tg->node, w->from) &&
			 strcmp(tg->node, w->to))
			keep(&st, yd_fail(c->d, wl, kpath,
					  "the workload does not run on %s (its client is %s, its "
					  "server %s)",
					  tg->node, w->from, w->to));
		if (netdev || device) {
			yd_join(kpath, path, netdev ? "netdev" : "device");
			keep(&st, yd_fail(c->d, netdev ? netdev : device, kpath,
					  "goes with workload only as rail: N (the rail whose "
					  "netdev a mechanism needs)"));
		}
		if (rail) {
			yd_join(kpath, path, "rail");
			keep(&st, get_rail(c, rail, kpath, &tg->rail));
		}
		if ((n = yd_map_get(c->d, t, "port"))) {
			yd_join(kpath, path, "port");
			keep(&st, yd_fail(c->d, n, kpath,
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
		keep(&st, get_rail(c, rail, kpath, &tg->rail));
	}
	if (netdev) {
		yd_join(kpath, path, "netdev");
		if (!keep(&st, yd_get_text(c->d, netdev, kpath, tg->netdev, SC_NETDEV_MAX + 1)) &&
		    (strpbrk(tg->netdev, "/: \t") || !strcmp(tg->netdev, ".") ||
		     !strcmp(tg->netdev, "..")))
			keep(&st, yd_fail(c->d, netdev, kpath,
					  "\"%s\" is not a network interface name", tg->netdev));
	}
	if (device) {
		yd_join(kpath, path, "device");
		keep(&st, yd_get_text(c->d, device, kpath, tg->device, sizeof(tg->device)));
	}
	if ((n = yd_map_get(c->d, t, "port"))) {
		yd_join(kpath, path, "port");
		if (!device)
			keep(&st, yd_fail(c->d, n, kpath,
					  "only goes with device (an RDMA device's port)"));
		else if (!keep(&st, yd_get_uint(c->d, n, kpath, 1, 255, &v)))
			tg->port = (int)v;
	}
	return st;
}

/* Injector parameters as JSON in table order, durations in milliseconds. */
/* A plain YAML value as JSON: true/false, integers and numbers by their form, else text. */
static json_t *yaml_to_json(struct pctx *c, yaml_node_t *n, const char *path, int depth)
{
	const char *v;
	char *end;
	json_t *out;
	size_t i;

	if (depth > 4) {
		yd_fail(c->d, n, path, "is nested too deeply for a parameter");
		return NULL;
	}
	if (n->type == YAML_SEQUENCE_NODE) {
		out = json_array();
		for (i = 0; out && i < yd_seq_len(n); i++) {
			char ipath[YD_PATH_LEN];
			json_t *item;

			yd_join_idx(ipath, path, i);
			item = yaml_to_json(c, yd_seq_item(c->d, n, i), ipath, depth + 1);
			if (!item) {
				json_decref(out);
				return NULL;
			}
			json_array_append_new(out, item);
		}
		return out;
	}
	if (n->type != YAML_SCALAR_NODE || yd_want_scalar(c->d, n, path)) {
		if (n->type != YAML_SCALAR_NODE)
			yd_fail(c->d, n, path, "must be a value or a list of values");
		return NULL;
	}
	v = yd_scalar(n);
	if (n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return json_string(v);
	if (!strcmp(v, "true") || !strcmp(v, "false"))
		return json_boolean(!strcmp(v, "true"));
	errno = 0;
	if (*v && (isdigit((unsigned char)*v) || *v == '-')) {
		long long ll = strtoll(v, &end, 0);

		if (!*end && !errno)
			return json_integer(ll);
		double d = strtod(v, &end);

		if (!*end && isfinite(d))
			return json_real(d);
	}
	return json_string(v);
}

/*
 * An injector's refusal (its validate()), put on the scenario key it names:
 * the typed table maps the agent's key back to the scenario's. A key the
 * scenario does not write (a missing one) leaves the whole sentence at params.
 */
static int params_fail(struct pctx *c, yaml_node_t *fmap, yaml_node_t *pm, const char *path,
		       const struct injector *inj, const char *msg)
{
	char key[64], kpath[YD_PATH_LEN];
	const struct inj_param *ip;
	const char *body;
	yaml_node_t *n;

	injector_refusal(inj, msg, key, sizeof(key), &body);
	ip = key[0] ? injector_param_by_wire(inj, key) : NULL;
	n = key[0] ? yd_map_get(c->d, pm, ip ? ip->key : key) : NULL;
	if (!n)
		return yd_fail(c->d, pm ? pm : fmap, path, "%s", msg);
	yd_join(kpath, path, ip ? ip->key : key);
	return yd_fail(c->d, n, kpath, "%s", body);
}

static const struct inj_param *param_by_key(const struct injector *inj, const char *key)
{
	unsigned int i;

	for (i = 0; i < inj->nr_params; i++)
		if (!strcmp(inj->params[i].key, key))
			return &inj->params[i];
	return NULL;
}

/*
 * The keys written under params: each a plain word, once, and for an
 * injector with INJ_TYPED_PARAMS one of its table's keys (read by
 * params_typed); for one without, the value goes to the agent as written.
 */
static int params_written(struct pctx *c, yaml_node_t *pm, const char *path,
			  const struct injector *inj, struct sc_fault *f)
{
	bool typed = inj->flags & INJ_TYPED_PARAMS;
	char kpath[YD_PATH_LEN], list[128] = "";
	yaml_node_pair_t *p;
	unsigned int i;
	size_t off = 0;
	int st = 0;

	for (i = 0; i < inj->nr_params && off < sizeof(list); i++)
		off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%s", i ? ", " : "",
					inj->params[i].key);
	for (p = pm->data.mapping.pairs.start; p < pm->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yd_node(c->d, p->key), *first;
		const char *key;
		json_t *v;

		if (k->type != YAML_SCALAR_NODE) {
			keep(&st, yd_fail(c->d, k, path, "keys must be plain words"));
			continue;
		}
		key = yd_scalar(k);
		yd_join(kpath, path, key);
		first = yd_map_get(c->d, pm, key);
		if (first && first != yd_node(c->d, p->value)) {
			keep(&st, yd_fail(c->d, k, kpath, "given twice"));
			continue;
		}
		if (typed && !inj->nr_params) {
			keep(&st, yd_fail(c->d, k, kpath, "unknown key; %s takes no parameters",
					  inj->name));
			continue;
		}
		if (typed && !param_by_key(inj, key)) {
			keep(&st,
			     yd_fail(c->d, k, kpath, "unknown key; %s takes: %s", inj->name, list));
			continue;
		}
		if (typed)
			continue;
		v = yaml_to_json(c, yd_node(c->d, p->value), kpath, 0);
		if (!v) {
			keep(&st, -EINVAL);
			continue;
		}
		if (json_object_set_new(f->params, key, v))
			return -ENOMEM;
	}
	return st;
}

/* The typed parameters (inj->params): required, in range, durations as milliseconds. */
static int params_typed(struct pctx *c, yaml_node_t *fmap, yaml_node_t *pm, const char *path,
			const struct injector *inj, struct sc_fault *f)
{
	char kpath[YD_PATH_LEN], b1[32], b2[32];
	unsigned int i;
	int st = 0;

	for (i = 0; i < inj->nr_params; i++) {
		const struct inj_param *ip = &inj->params[i];
		yaml_node_t *n = yd_map_get(c->d, pm, ip->key);
		uint64_t v = ip->def;
		int r;

		yd_join(kpath, path, ip->key);
		if (!n) {
			if (ip->required) {
				keep(&st, yd_fail(c->d, pm ? pm : fmap, kpath,
						  "missing; %s needs %s (%s)", inj->name, ip->key,
						  ip->help));
				continue;
			}
			if (!ip->send_default)
				continue;
		} else {
			r = ip->type == INJ_PT_INT
				? yd_get_uint(c->d, n, kpath, ip->min, ip->max, &v)
				: yd_get_duration(c->d, n, kpath, &v);
			if (r)
				;
			else if (ip->type == INJ_PT_DURATION && v < ip->min)
				r = yd_fail(c->d, n, kpath, "must be longer than 0");
			else if (ip->type == INJ_PT_DURATION && v > ip->max)
				r = yd_fail(c->d, n, kpath, "%s is out of range; use at most %s",
					    rc_format_duration_ms(v, b1, sizeof(b1)),
					    rc_format_duration_ms(ip->max, b2, sizeof(b2)));
			if (keep(&st, r))
				continue;
		}
		if (json_object_set_new(f->params, ip->wire, json_integer((json_int_t)v)))
			return -ENOMEM;
	}
	return st;
}

/* A fault whose parameters fix how long it must last: its default duration, or a check of it. */
static int params_duration(struct pctx *c, yaml_node_t *fmap, const char *fpath,
			   const struct injector *inj, struct sc_fault *f)
{
	char why[INJ_ERR_LEN], kpath[YD_PATH_LEN], b1[32];
	uint64_t need;

	if (!inj->min_duration_ms)
		return 0;
	need = inj->min_duration_ms(f->params, why, sizeof(why));
	if (!f->duration_ms) {
		f->duration_ms = need;
		return 0;
	}
	if (f->duration_ms >= need)
		return 0;
	yd_join(kpath, fpath, "duration");
	return yd_fail(c->d, yd_map_get(c->d, fmap, "duration"), kpath,
		       "%s is shorter than %s; leave it out or give at least that",
		       rc_format_duration_ms(f->duration_ms, b1, sizeof(b1)), why);
}

/*
 * A fault's params, as its injector declares them (injectors/injector.h):
 * read, then checked by the injector's own validate(), the function the agent
 * runs, so that a typo fails before a fleet is touched.
 */
static int parse_params(struct pctx *c, yaml_node_t *fmap, yaml_node_t *pm, const char *fpath,
			const struct injector *inj, struct sc_fault *f)
{
	char path[YD_PATH_LEN], msg[INJ_ERR_LEN];
	int st = 0;

	yd_join(path, fpath, "params");
	f->params = json_object();
	if (!f->params)
		return -ENOMEM;
	if (pm && yd_want_map(c->d, pm, path))
		return -EINVAL;
	if (pm && keep(&st, params_written(c, pm, path, inj, f)) == -ENOMEM)
		return -ENOMEM;
	if (keep(&st, params_typed(c, fmap, pm, path, inj, f)) == -ENOMEM)
		return -ENOMEM;
	/* the injector would only say again what was refused above */
	if (st)
		return st;
	msg[0] = '\0';
	if (inj->validate(f->params, msg, sizeof(msg)))
		return params_fail(c, fmap, pm, path, inj,
				   msg[0] ? msg : "refused by the injector");
	return params_duration(c, fmap, fpath, inj, f);
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
			return missing(c, m, kpath, "count", "how many trials, e.g. count: 5");
		yd_join(sub, kpath, "count");
		if ((ret = yd_get_uint(c->d, n, sub, 1, SC_MAX_FAULTS, &v)))
			return ret;
		f->repeat.count = (unsigned int)v;
		if (rep && (n = yd_map_get(c->d, m, "every"))) {
			yd_join(sub, kpath, "every");
			if ((ret = get_duration_pos(c, n, sub, &f->repeat.every_ms)))
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
				return missing(c, m, kpath, "kind", "kind: random");
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
				return missing(c, m, kpath, "min_gap",
					       "the shortest gap from the end of one trial to the "
					       "start of the next, e.g. min_gap: 10s");
			yd_join(sub, kpath, "min_gap");
			if ((ret = yd_get_duration(c->d, n, sub, &f->repeat.min_gap_ms)))
				return ret;
			if (!(n = yd_map_get(c->d, m, "max_gap")))
				return missing(c, m, kpath, "max_gap",
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
	keep(&st, yd_check_keys(c->d, fm, path, keys));
	f->line = (int)yd_line(fm);
	f->col = (int)yd_col(fm);
	yd_join(kpath, path, "name");
	if (!(n = yd_map_get(c->d, fm, "name"))) {
		keep(&st, missing(c, fm, path, "name",
				  "every fault needs a name (its id in the report)"));
	} else if (!keep(&st,
			 get_name(c, n, kpath, f->name, sizeof(f->name), "it is the fault's id"))) {
		for (j = 0; j < idx; j++) {
			if (strcmp(sc->faults[j].name, f->name))
				continue;
			keep(&st,
			     yd_fail(c->d, n, kpath,
				     "\"%s\" is already faults[%u]; names are unique", f->name, j));
			break;
		}
	}
	yd_join(kpath, path, "at");
	if (!(n = yd_map_get(c->d, fm, "at")))
		keep(&st, missing(c, fm, path, "at",
				  "say when the fault starts, counted from the workload start, "
				  "e.g. at: 20s"));
	else if (keep(&st, yd_get_duration(c->d, n, kpath, &v)))
		;
	else if ((f->at_ms = v) < sc->warmup_ms + sc->baseline_ms && !c->steady_unknown)
		keep(&st, yd_fail(c->d, n, kpath,
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
		keep(&st, missing(c, fm, path, "injector", use));
	} else if (keep(&st, yd_get_text(c->d, n, kpath, f->injector, sizeof(f->injector))))
		;
	else if (!(inj = injector_find(f->injector)))
		keep(&st, yd_fail(c->d, n, kpath, "\"%s\" is not an injector; use %s", f->injector,
				  injector_names()));
	if (!(n = yd_map_get(c->d, fm, "target")))
		keep(&st, missing(c, fm, path, "target",
				  "say where, e.g. target: {node: node-b, rail: 0}"));
	else
		keep(&st, parse_target(c, n, path, &f->target));
	if ((n = yd_map_get(c->d, fm, "duration"))) {
		yd_join(kpath, path, "duration");
		if (!keep(&st, get_duration_pos(c, n, kpath, &v)))
			f->duration_ms = v;
	} else if (inj && (inj->flags & INJ_NEEDS_DURATION)) {
		snprintf(kpath, sizeof(kpath),
			 "%s needs to know when to undo the fault, e.g. duration: 10s", inj->name);
		keep(&st, missing(c, fm, path, "duration", kpath));
	}
	/* parameters are the injector's: without one they cannot be checked */
	if (inj)
		keep(&st, parse_params(c, fm, yd_map_get(c->d, fm, "params"), path, inj, f));
	if (st == -ENOMEM)
		return st;
	keep(&st, parse_trials(c, fm, path, f));
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
		keep(&st, yd_fail(c->d, seq, "faults", "lists %u faults; a drill needs 1..%d", nr,
				  SC_MAX_FAULTS));
	if (nr > SC_MAX_FAULTS)
		nr = SC_MAX_FAULTS; /* the first ones are still checked */
	for (i = 0; i < nr; i++) {
		/* counted before parsing, so scenario_free releases a half-built fault's params */
		c->sc->nr_faults = i + 1;
		if (keep(&st, parse_fault(c, yd_seq_item(c->d, seq, i), i)) == -ENOMEM)
			return -ENOMEM;
	}
	keep(&st, check_overlaps(c, seq));
	return st;
}

/* A Prometheus alert name: [A-Za-z_][A-Za-z0-9_]*. */
static bool alert_name_ok(const char *s)
{
	if (!*s || !(isalpha((unsigned char)*s) || *s == '_'))
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return false;
	return true;
}

static int parse_signals(struct pctx *c, yaml_node_t *seq, struct sc_expect *e)
{
	const char *path0 = "expect.detection.signals";
	char path[YD_PATH_LEN];
	unsigned int i, j, nr;
	enum sc_signal s;
	int st = 0;

	if (yd_want_seq(c->d, seq, path0))
		return -EINVAL;
	nr = (unsigned int)yd_seq_len(seq);
	if (!nr)
		return yd_fail(c->d, seq, path0,
			       "is empty; list what counts as detection: " SC_SIGNAL_NAMES);
	for (i = 0; i < nr; i++) {
		yaml_node_t *n = yd_seq_item(c->d, seq, i);

		yd_join_idx(path, path0, i);
		if (keep(&st, yd_want_scalar(c->d, n, path)))
			continue;
		if (!strncmp(yd_scalar(n), "alert:", 6)) {
			/* an alert from the monitoring counts as detection */
			const char *name = yd_scalar(n) + 6;

			if (!alert_name_ok(name) || strlen(name) >= SC_ALERT_NAME_LEN)
				keep(&st, yd_fail(c->d, n, path,
						  "\"%s\" is not an alert name; write alert:NAME, "
						  "e.g. alert:RdmaPortDown",
						  yd_scalar(n)));
			else if (e->nr_alert_signals < SC_MAX_SIGNALS)
				snprintf(e->alert_signals[e->nr_alert_signals++], SC_ALERT_NAME_LEN,
					 "%s", name);
			continue;
		}
		if (sc_signal_parse(yd_scalar(n), &s)) {
			keep(&st, yd_fail(c->d, n, path,
					  "\"%s\" is not a signal; use one of " SC_SIGNAL_NAMES,
					  yd_scalar(n)));
			continue;
		}
		for (j = 0; j < e->nr_signals && e->signals[j] != s; j++)
			;
		if (j < e->nr_signals)
			keep(&st, yd_fail(c->d, n, path, "%s is listed twice", yd_scalar(n)));
		else
			e->signals[e->nr_signals++] = s; /* distinct: at most SC_SIG__COUNT */
	}
	return st;
}

/* within: a duration; stat: which statistic of a repeated fault's trials it holds for. */
static int parse_within(struct pctx *c, yaml_node_t *m, const char *path, uint64_t *ms,
			enum sc_stat *stat)
{
	char kpath[YD_PATH_LEN], text[8];
	yaml_node_t *n = yd_map_get(c->d, m, "within");
	int ret;

	if (!n)
		return missing(c, m, path, "within",
			       "the longest acceptable time, e.g. within: 5s");
	yd_join(kpath, path, "within");
	if ((ret = get_duration_pos(c, n, kpath, ms)))
		return ret;
	*stat = SC_STAT_MAX;
	if (!(n = yd_map_get(c->d, m, "stat")))
		return 0;
	yd_join(kpath, path, "stat");
	if ((ret = yd_get_text(c->d, n, kpath, text, sizeof(text))))
		return ret;
	if (!strcmp(text, "p50"))
		*stat = SC_STAT_P50;
	else if (!strcmp(text, "p90"))
		*stat = SC_STAT_P90;
	else if (strcmp(text, "max"))
		return yd_fail(c->d, n, kpath,
			       "\"%s\" is not a statistic; use max (every trial, the default), "
			       "p90 or p50 of a repeated fault's trials",
			       yd_scalar(n));
	return 0;
}

/* expect.alerts: [{name, fire_within, resolve_within, faults: [...]}] */
static int parse_alerts(struct pctx *c, yaml_node_t *seq, struct sc_expect *e)
{
	static const char *const keys[] = {"name", "fire_within", "resolve_within", "faults", NULL};
	const struct scenario *sc = c->sc;
	char path[YD_PATH_LEN], kpath[YD_PATH_LEN], fpath[YD_PATH_LEN];
	unsigned int i, j, k, nr;
	yaml_node_t *m, *n, *f;
	int st = 0;

	if (yd_want_seq(c->d, seq, "expect.alerts"))
		return -EINVAL;
	nr = (unsigned int)yd_seq_len(seq);
	if (nr > SC_MAX_ALERTS)
		return yd_fail(c->d, seq, "expect.alerts", "lists %u alerts; at most %d", nr,
			       SC_MAX_ALERTS);
	for (i = 0; i < nr; i++) {
		struct sc_alert_expect *a = &e->alerts[e->nr_alerts];

		m = yd_seq_item(c->d, seq, i);
		yd_join_idx(path, "expect.alerts", i);
		if (keep(&st, yd_want_map(c->d, m, path)) ||
		    keep(&st, yd_check_keys(c->d, m, path, keys)))
			continue;
		memset(a, 0, sizeof(*a));
		a->line = (int)yd_line(m);
		yd_join(kpath, path, "name");
		if (!(n = yd_map_get(c->d, m, "name"))) {
			keep(&st,
			     missing(c, m, path, "name",
				     "the alert's name as the rule gives it, e.g. RdmaPortDown"));
			continue;
		}
		if (keep(&st, yd_get_text(c->d, n, kpath, a->name, sizeof(a->name))))
			continue;
		if (!alert_name_ok(a->name)) {
			keep(&st, yd_fail(c->d, n, kpath,
					  "\"%s\" is not an alert name ([A-Za-z_][A-Za-z0-9_]*)",
					  a->name));
			continue;
		}
		for (j = 0; j < e->nr_alerts; j++)
			if (!strcmp(e->alerts[j].name, a->name))
				break;
		if (j < e->nr_alerts) {
			keep(&st, yd_fail(c->d, n, kpath, "%s is listed twice", a->name));
			continue;
		}
		yd_join(kpath, path, "fire_within");
		if (!(n = yd_map_get(c->d, m, "fire_within"))) {
			keep(&st, missing(c, m, path, "fire_within",
					  "how soon after the injection the notification must "
					  "arrive, e.g. fire_within: 60s"));
			continue;
		}
		if (keep(&st, get_duration_pos(c, n, kpath, &a->fire_within_ms)))
			continue;
		yd_join(kpath, path, "resolve_within");
		if ((n = yd_map_get(c->d, m, "resolve_within")) &&
		    keep(&st, get_duration_pos(c, n, kpath, &a->resolve_within_ms)))
			continue;
		if ((f = yd_map_get(c->d, m, "faults"))) {
			yd_join(kpath, path, "faults");
			if (keep(&st, yd_want_seq(c->d, f, kpath)))
				continue;
			for (k = 0; k < yd_seq_len(f) && k < SC_MAX_SIGNALS; k++) {
				n = yd_seq_item(c->d, f, k);
				yd_join_idx(fpath, kpath, k);
				if (keep(&st, yd_get_text(c->d, n, fpath, a->faults[a->nr_faults],
							  SC_NAME_LEN)))
					continue;
				for (j = 0; j < sc->nr_faults; j++)
					if (!strcmp(sc->faults[j].name, a->faults[a->nr_faults]))
						break;
				if (j == sc->nr_faults)
					keep(&st, yd_fail(c->d, n, fpath,
							  "\"%s\" is not a fault of "
							  "this drill",
							  a->faults[a->nr_faults]));
				else
					a->nr_faults++;
			}
			if (yd_seq_len(f) > SC_MAX_SIGNALS)
				keep(&st, yd_fail(c->d, f, kpath, "lists more than %d faults",
						  SC_MAX_SIGNALS));
		}
		e->nr_alerts++;
	}
	return st;
}

/* expect.failback: {max_outage, throughput_ratio, window}; max_outage is the bound. */
static int parse_failback(struct pctx *c, yaml_node_t *m, struct sc_expect *e, bool *ratio_set)
{
	static const char *const keys[] = {"max_outage", "throughput_ratio", "window", NULL};
	yaml_node_t *n;
	uint64_t v = 0;
	double r;
	int st = 0;

	if (yd_want_map(c->d, m, "expect.failback"))
		return -EINVAL;
	keep(&st, yd_check_keys(c->d, m, "expect.failback", keys));
	if (!(n = yd_map_get(c->d, m, "max_outage")))
		keep(&st, missing(c, m, "expect.failback", "max_outage",
				  "the longest time throughput may stay below the threshold after "
				  "a revert, e.g. failback: {max_outage: 2s}"));
	else if (!keep(&st, yd_get_duration(c->d, n, "expect.failback.max_outage", &v)))
		e->failback_max_outage_ms = v;
	if ((n = yd_map_get(c->d, m, "throughput_ratio")) &&
	    !keep(&st, get_double(c, n, "expect.failback.throughput_ratio", &r))) {
		if (!(r > 0 && r <= 1))
			keep(&st,
			     yd_fail(c->d, n, "expect.failback.throughput_ratio",
				     "%s is out of range; use a fraction of the baseline above "
				     "0 and at most 1, e.g. 0.8",
				     yd_scalar(n)));
		else {
			e->failback_ratio = r;
			*ratio_set = true;
		}
	}
	if ((n = yd_map_get(c->d, m, "window")) &&
	    !keep(&st, yd_get_duration(c->d, n, "expect.failback.window", &v))) {
		if (!v)
			keep(&st, yd_fail(c->d, n, "expect.failback.window",
					  "must be longer than 0s, e.g. 10s"));
		else
			e->failback_window_ms = v;
	}
	if (!st)
		e->failback_set = true;
	return st;
}

static int parse_expect(struct pctx *c, yaml_node_t *ex)
{
	static const char *const keys[] = {"detection", "isolation", "recovery", "failback",
					   "integrity", "alerts",    NULL};
	static const char *const det_keys[] = {"within", "stat", "signals", NULL};
	static const char *const iso_keys[] = {"within", "stat", NULL};
	static const char *const rec_keys[] = {"within",  "stat",   "throughput_ratio",
					       "sustain", "window", NULL};
	static const char *const int_keys[] = {"lost", "corrupted", NULL};
	struct sc_expect *e = &c->sc->expect;
	bool fb_ratio_set = false;
	yaml_node_t *m, *n;
	uint64_t v = 0;
	double r;
	int st = 0;

	e->recovery_ratio = 0.8;
	e->recovery_sustain_ms = 2000;
	e->recovery_window_ms = 1000;
	e->failback_window_ms = SC_FAILBACK_WINDOW_MS;
	e->max_lost = -1;
	e->max_corrupted = -1;
	if (yd_want_map(c->d, ex, "expect"))
		return -EINVAL;
	keep(&st, yd_check_keys(c->d, ex, "expect", keys));

	/* each section's keys are checked even when one of them is refused */
	if (!(m = yd_map_get(c->d, ex, "detection"))) {
		keep(&st, missing(c, ex, "expect", "detection",
				  "e.g. detection: {within: 5s, signals: [workload_error, "
				  "port_event]}"));
	} else if (!keep(&st, yd_want_map(c->d, m, "expect.detection"))) {
		keep(&st, yd_check_keys(c->d, m, "expect.detection", det_keys));
		keep(&st, parse_within(c, m, "expect.detection", &e->detection_within_ms,
				       &e->detection_stat));
		if (!(n = yd_map_get(c->d, m, "signals")))
			keep(&st, missing(c, m, "expect.detection", "signals",
					  "list what counts as detection, e.g. [workload_error, "
					  "port_event]"));
		else
			keep(&st, parse_signals(c, n, e));
	}

	if ((m = yd_map_get(c->d, ex, "isolation")) &&
	    !keep(&st, yd_want_map(c->d, m, "expect.isolation"))) {
		keep(&st, yd_check_keys(c->d, m, "expect.isolation", iso_keys));
		if (!keep(&st, parse_within(c, m, "expect.isolation", &e->isolation_within_ms,
					    &e->isolation_stat)))
			e->isolation_set = true;
	}

	if (!(m = yd_map_get(c->d, ex, "recovery"))) {
		keep(&st, missing(c, ex, "expect", "recovery",
				  "e.g. recovery: {within: 30s, throughput_ratio: 0.8, sustain: "
				  "2s}"));
	} else if (!keep(&st, yd_want_map(c->d, m, "expect.recovery"))) {
		keep(&st, yd_check_keys(c->d, m, "expect.recovery", rec_keys));
		keep(&st, parse_within(c, m, "expect.recovery", &e->recovery_within_ms,
				       &e->recovery_stat));
		if ((n = yd_map_get(c->d, m, "throughput_ratio")) &&
		    !keep(&st, get_double(c, n, "expect.recovery.throughput_ratio", &r))) {
			if (!(r > 0 && r <= 1))
				keep(&st, yd_fail(c->d, n, "expect.recovery.throughput_ratio",
						  "%s is out of range; use a fraction of the "
						  "baseline above 0 and at most 1, e.g. 0.8",
						  yd_scalar(n)));
			else
				e->recovery_ratio = r;
		}
		if ((n = yd_map_get(c->d, m, "sustain")) &&
		    !keep(&st, yd_get_duration(c->d, n, "expect.recovery.sustain", &v)))
			e->recovery_sustain_ms = v;
		if ((n = yd_map_get(c->d, m, "window")) &&
		    !keep(&st, yd_get_duration(c->d, n, "expect.recovery.window", &v)))
			e->recovery_window_ms = v;
	}
	if ((m = yd_map_get(c->d, ex, "failback")))
		keep(&st, parse_failback(c, m, e, &fb_ratio_set));
	if (!fb_ratio_set)
		e->failback_ratio = e->recovery_ratio;

	if ((m = yd_map_get(c->d, ex, "integrity")) &&
	    !keep(&st, yd_want_map(c->d, m, "expect.integrity"))) {
		keep(&st, yd_check_keys(c->d, m, "expect.integrity", int_keys));
		if ((n = yd_map_get(c->d, m, "lost")) &&
		    !keep(&st, yd_get_uint(c->d, n, "expect.integrity.lost", 0, INT64_MAX, &v)))
			e->max_lost = (int64_t)v;
		if ((n = yd_map_get(c->d, m, "corrupted")) &&
		    !keep(&st,
			  yd_get_uint(c->d, n, "expect.integrity.corrupted", 0, INT64_MAX, &v)))
			e->max_corrupted = (int64_t)v;
	}
	if ((m = yd_map_get(c->d, ex, "alerts")))
		keep(&st, parse_alerts(c, m, e));
	return st;
}

/* "50%" or 0.5: a share in (0, 1]. */
static int get_share(struct pctx *c, const yaml_node_t *n, const char *path, double *v)
{
	char buf[32];
	size_t len;
	char *end;
	int ret = yd_get_text(c->d, n, path, buf, sizeof(buf));

	if (ret)
		return ret;
	len = strlen(buf);
	errno = 0;
	*v = strtod(buf, &end);
	if (len && buf[len - 1] == '%' && end == buf + len - 1)
		*v /= 100;
	else if (end == buf || *end)
		end = NULL;
	if (!end || errno || !(*v > 0 && *v <= 1))
		return yd_fail(c->d, n, path,
			       "\"%s\" is not a share of the fleet; use a fraction above 0 and at "
			       "most 1 (0.25) or a percentage (25%%)",
			       buf);
	return 0;
}

static int parse_blast_radius(struct pctx *c, yaml_node_t *m, struct sc_safety *s)
{
	static const char *const keys[] = {"max_nodes", "max_rails", "max_fleet_share", NULL};
	const char *path = "safety.blast_radius";
	yaml_node_t *n;
	uint64_t v;
	double share;
	int st = 0;

	if (yd_want_map(c->d, m, path))
		return -EINVAL;
	keep(&st, yd_check_keys(c->d, m, path, keys));
	s->line = (int)yd_line(m);
	s->col = (int)yd_col(m);
	if ((n = yd_map_get(c->d, m, "max_nodes")) &&
	    !keep(&st, yd_get_uint(c->d, n, "safety.blast_radius.max_nodes", 1, SC_MAX_NODES, &v)))
		s->max_nodes = (unsigned int)v;
	if ((n = yd_map_get(c->d, m, "max_rails")) &&
	    !keep(&st, yd_get_uint(c->d, n, "safety.blast_radius.max_rails", 1, 1000000, &v)))
		s->max_rails = (unsigned int)v;
	if ((n = yd_map_get(c->d, m, "max_fleet_share")) &&
	    !keep(&st, get_share(c, n, "safety.blast_radius.max_fleet_share", &share)))
		s->max_fleet_share = share;
	return st;
}

static bool same_rails(const struct sc_workload *a, const struct sc_workload *b)
{
	unsigned int i, j;

	if (a->nr_rails != b->nr_rails)
		return false;
	for (i = 0; i < a->nr_rails; i++) {
		for (j = 0; j < b->nr_rails && b->rails[j] != a->rails[i]; j++)
			;
		if (j == b->nr_rails)
			return false;
	}
	return true;
}

/* A throughput guard's own bystander stream (safety.guards[i].flow). */
static int parse_guard_flow(struct pctx *c, yaml_node_t *n, const char *gpath, unsigned int idx,
			    struct sc_guard *g)
{
	const struct sc_workload *main_wl = &c->sc->workload;
	char path[YD_PATH_LEN];
	int ret;

	yd_join(path, gpath, "flow");
	g->flow = *main_wl;
	g->flow.port = (uint16_t)(main_wl->port + 1 + idx);
	if ((ret = parse_workload_map(c, n, path, &g->flow)))
		return ret;
	/* (the drill's own workload was refused when it names no nodes: nothing to compare) */
	if (main_wl->from[0] && main_wl->to[0] && !strcmp(g->flow.from, main_wl->from) &&
	    !strcmp(g->flow.to, main_wl->to) && same_rails(&g->flow, main_wl))
		return yd_fail(c->d, n, path,
			       "is the drill's own workload (same nodes, same rails); give it "
			       "other rails or nodes, or drop flow to guard the workload itself");
	if (!g->flow.port)
		return yd_fail(c->d, n, path, "needs a port (port: N, 1..65535)");
	if (g->flow.port == main_wl->port)
		return yd_fail(c->d, n, path,
			       "uses port %u, the drill's workload's; give it another port",
			       g->flow.port);
	g->has_flow = true;
	return 0;
}

static int parse_guard(struct pctx *c, yaml_node_t *m, unsigned int idx, struct sc_guard *g)
{
	static const char *const tp_keys[] = {"kind", "min_ratio", "for", "flow", NULL};
	static const char *const probe_keys[] = {"kind", "address", "every", "failures", NULL};
	char path[YD_PATH_LEN], kpath[YD_PATH_LEN], kind[32];
	yaml_node_t *n;
	uint64_t v;
	double r;
	int st = 0;

	yd_join_idx(path, "safety.guards", idx);
	if (yd_want_map(c->d, m, path))
		return -EINVAL;
	g->line = (int)yd_line(m);
	/* the kind says which keys belong: without it there is nothing more to check */
	if (!(n = yd_map_get(c->d, m, "kind")))
		return missing(c, m, path, "kind", "use throughput or tcp_probe");
	yd_join(kpath, path, "kind");
	if (yd_get_text(c->d, n, kpath, kind, sizeof(kind)))
		return -EINVAL;
	if (!strcmp(kind, "throughput")) {
		g->kind = SC_GUARD_THROUGHPUT;
		keep(&st, yd_check_keys(c->d, m, path, tp_keys));
		yd_join(kpath, path, "min_ratio");
		if (!(n = yd_map_get(c->d, m, "min_ratio")))
			keep(&st, missing(c, m, path, "min_ratio",
					  "the floor as a fraction of the baseline, e.g. 0.1"));
		else if (keep(&st, get_double(c, n, kpath, &r)))
			;
		else if (!(r > 0 && r < 1))
			keep(&st, yd_fail(c->d, n, kpath,
					  "%s is out of range; use a fraction of the baseline "
					  "above 0 and below 1, e.g. 0.1",
					  yd_scalar(n)));
		else
			g->min_ratio = r;
		g->for_ms = 5000;
		yd_join(kpath, path, "for");
		if ((n = yd_map_get(c->d, m, "for")) &&
		    !keep(&st, get_duration_pos(c, n, kpath, &v)))
			g->for_ms = v;
		if ((n = yd_map_get(c->d, m, "flow")))
			keep(&st, parse_guard_flow(c, n, path, idx, g));
		return st;
	}
	if (!strcmp(kind, "tcp_probe")) {
		g->kind = SC_GUARD_TCP_PROBE;
		keep(&st, yd_check_keys(c->d, m, path, probe_keys));
		yd_join(kpath, path, "address");
		if (!(n = yd_map_get(c->d, m, "address")))
			keep(&st, missing(c, m, path, "address",
					  "what must stay reachable, e.g. address: "
					  "scheduler.example:443"));
		else if (!keep(&st, yd_get_text(c->d, n, kpath, g->address, sizeof(g->address))))
			keep(&st, check_agent(c, n, kpath, g->address));
		g->every_ms = 1000;
		yd_join(kpath, path, "every");
		if ((n = yd_map_get(c->d, m, "every")) &&
		    !keep(&st, get_duration_pos(c, n, kpath, &v))) {
			if (v < 100)
				keep(&st, yd_fail(c->d, n, kpath, "probe at most every 100ms"));
			else
				g->every_ms = v;
		}
		g->failures = 3;
		yd_join(kpath, path, "failures");
		if ((n = yd_map_get(c->d, m, "failures")) &&
		    !keep(&st, yd_get_uint(c->d, n, kpath, 1, 1000, &v)))
			g->failures = (unsigned int)v;
		return st;
	}
	return yd_fail(c->d, n, kpath, "\"%s\" is not a guard; use throughput or tcp_probe", kind);
}

static int parse_safety(struct pctx *c, yaml_node_t *m)
{
	static const char *const keys[] = {"lease", "blast_radius", "guards", NULL};
	struct sc_safety *s = &c->sc->safety;
	yaml_node_t *n;
	unsigned int i, nr;
	uint64_t v;
	int st = 0;

	if (yd_want_map(c->d, m, "safety"))
		return -EINVAL;
	keep(&st, yd_check_keys(c->d, m, "safety", keys));
	if ((n = yd_map_get(c->d, m, "lease")) &&
	    !keep(&st, get_duration_pos(c, n, "safety.lease", &v))) {
		if (v < 1000 || v > 3600000)
			keep(&st, yd_fail(c->d, n, "safety.lease",
					  "%s is out of range; use 1s..1h (agents check leases "
					  "to the second)",
					  yd_scalar(n)));
		else
			s->lease_ms = v;
	}
	if ((n = yd_map_get(c->d, m, "blast_radius")))
		keep(&st, parse_blast_radius(c, n, s));
	if (!(n = yd_map_get(c->d, m, "guards")))
		return st;
	if (keep(&st, yd_want_seq(c->d, n, "safety.guards")))
		return st;
	nr = (unsigned int)yd_seq_len(n);
	if (nr > SC_MAX_GUARDS) {
		keep(&st, yd_fail(c->d, n, "safety.guards", "lists %u guards; at most %d", nr,
				  SC_MAX_GUARDS));
		nr = SC_MAX_GUARDS; /* the first ones are still checked */
	}
	for (i = 0; i < nr; i++) {
		yaml_node_t *gm = yd_seq_item(c->d, n, i);
		unsigned int j;

		s->nr_guards = i + 1;
		if (keep(&st, parse_guard(c, gm, i, &s->guards[i])))
			continue;
		for (j = 0; s->guards[i].has_flow && j < i; j++) {
			const struct sc_workload *a = &s->guards[j].flow, *b = &s->guards[i].flow;
			char path[YD_PATH_LEN];

			if (!s->guards[j].has_flow || a->port != b->port || strcmp(a->to, b->to))
				continue;
			yd_join_idx(path, "safety.guards", i);
			keep(&st, yd_fail(c->d, gm, path,
					  "its flow and guard %u's both listen on %s port %u; "
					  "give one flow another port",
					  j, b->to, b->port));
			break;
		}
	}
	return st;
}

/* monitoring: lab | {receiver: "ADDR:PORT", token_file: FILE} */
static int parse_monitoring(struct pctx *c, yaml_node_t *n)
{
	static const char *const keys[] = {"receiver", "token_file", NULL};
	struct scenario *sc = c->sc;
	yaml_node_t *r;
	int ret;

	if (n->type == YAML_SCALAR_NODE) {
		if (strcmp(yd_scalar(n), "lab"))
			return yd_fail(c->d, n, "monitoring",
				       "\"%s\" is not a monitoring source; use lab (the lab's "
				       "Prometheus and Alertmanager) or {receiver: ADDR:PORT} (an "
				       "existing Alertmanager sends its webhooks there)",
				       yd_scalar(n));
		if (!sc->lab)
			return yd_fail(c->d, n, "monitoring",
				       "lab needs a lab: drill; on a cluster give {receiver: "
				       "ADDR:PORT}");
		sc->monitoring = SC_MON_LAB;
		return 0;
	}
	if ((ret = yd_want_map(c->d, n, "monitoring")) ||
	    (ret = yd_check_keys(c->d, n, "monitoring", keys)))
		return ret;
	if (!(r = yd_map_get(c->d, n, "receiver")))
		return missing(c, n, "monitoring", "receiver",
			       "where the coordinator listens for Alertmanager's webhooks, e.g. "
			       "receiver: 127.0.0.1:17990");
	if ((ret = yd_get_text(c->d, r, "monitoring.receiver", sc->receiver, sizeof(sc->receiver))))
		return ret;
	if (!strchr(sc->receiver, ':'))
		return yd_fail(c->d, r, "monitoring.receiver", "\"%s\" is not ADDR:PORT",
			       sc->receiver);
	if ((r = yd_map_get(c->d, n, "token_file")) &&
	    (ret = yd_get_text(c->d, r, "monitoring.token_file", sc->receiver_token_file,
			       sizeof(sc->receiver_token_file))))
		return ret;
	sc->monitoring = SC_MON_EXTERNAL;
	return 0;
}

static int parse_root(struct pctx *c, yaml_node_t *root)
{
	static const char *const keys[] = {"name",   "description", "owner",	    "lab",
					   "nodes",  "workload",    "steady_state", "faults",
					   "expect", "safety",	    "monitoring",   NULL};
	struct scenario *sc = c->sc;
	yaml_node_t *n, *lab, *nodes, *ss;
	int st = 0;

	if (root->type != YAML_MAPPING_NODE)
		return yd_fail(c->d, root, "",
			       "a scenario is a mapping of keys (name:, workload:, faults:, ...)");
	/* each section is checked even when an earlier one was refused */
	keep(&st, yd_check_keys(c->d, root, "", keys));
	if (!(n = yd_map_get(c->d, root, "name")))
		keep(&st, missing(c, root, "", "name",
				  "every scenario needs a name ([A-Za-z0-9._-]+, used in folder "
				  "names)"));
	else
		keep(&st, get_name(c, n, "name", sc->name, sizeof(sc->name),
				   "it is used in folder names"));
	if ((n = yd_map_get(c->d, root, "description")))
		keep(&st,
		     yd_get_text(c->d, n, "description", sc->description, sizeof(sc->description)));
	if ((n = yd_map_get(c->d, root, "owner")))
		keep(&st, yd_get_text(c->d, n, "owner", sc->owner, sizeof(sc->owner)));

	lab = yd_map_get(c->d, root, "lab");
	nodes = yd_map_get(c->d, root, "nodes");
	if (lab && nodes) {
		yaml_node_t *later = lab->start_mark.index > nodes->start_mark.index ? lab : nodes;

		keep(&st, yd_fail(c->d, later, later == lab ? "lab" : "nodes",
				  "give either lab (the built-in lab's node-a, node-b, ...) or "
				  "nodes (a real cluster), not both"));
		c->nodes_unknown = c->rails_unknown = true;
	} else if (!lab && !nodes) {
		keep(&st, yd_fail(c->d, root, "nodes",
				  "missing; give lab: {nodes: N, rails: R} for the built-in lab "
				  "or nodes: [{name: ..., agent: host:port}, ...] for a real "
				  "cluster"));
		c->nodes_unknown = c->rails_unknown = true;
	} else if (keep(&st, lab ? parse_lab(c, lab) : parse_nodes(c, nodes)) == -ENOMEM) {
		return -ENOMEM;
	}

	sc->warmup_ms = 5000;
	sc->baseline_ms = 10000;
	if ((ss = yd_map_get(c->d, root, "steady_state")))
		keep(&st, parse_steady(c, ss));
	if (!(n = yd_map_get(c->d, root, "workload"))) {
		keep(&st, missing(c, root, "", "workload",
				  "describe the traffic, e.g. workload: {kind: rdma_stream, from: "
				  "node-a, to: node-b}"));
		c->interval_unknown = true;
	} else {
		keep(&st, parse_workload(c, n));
	}
	keep(&st, check_baseline(c, ss ? ss : root));
	if (!(n = yd_map_get(c->d, root, "faults")))
		keep(&st, missing(c, root, "", "faults", "list at least one fault to inject"));
	else if (keep(&st, parse_faults(c, n)) == -ENOMEM)
		return -ENOMEM;
	if (!(n = yd_map_get(c->d, root, "expect")))
		keep(&st, missing(c, root, "", "expect",
				  "say what must hold: detection, recovery (isolation, integrity "
				  "optional)"));
	else
		keep(&st, parse_expect(c, n));
	sc->safety.lease_ms = SC_DEFAULT_LEASE_MS;
	if ((n = yd_map_get(c->d, root, "safety")))
		keep(&st, parse_safety(c, n));
	if ((n = yd_map_get(c->d, root, "monitoring")))
		keep(&st, parse_monitoring(c, n));
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

/* ---- lint -------------------------------------------------------------- */

/*
 * How long a fault keeps the stream from its throughput when it cannot fail
 * over: all of it, except a flap (one down; the first up ends the impact) and
 * a QP error (the QP stays in error after the revert: it is the reconnect that
 * ends the impact, not the revert). 0: not known.
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
	if (outage > x->recovery_within_ms && !lint_can_fail_over(sc, f)) {
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
static void lint(struct pctx *c, yaml_node_t *root)
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
	for (i = 0; !x->isolation_set && i < sc->nr_faults; i++) {
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
	if (x->max_lost < 0 && x->max_corrupted < 0)
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
			lint(&c, d.root);
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
	free(sc->nodes);
	sc->nodes = NULL;
	sc->nr_nodes = 0;
}

const struct sc_node *scenario_node(const struct scenario *sc, const char *name)
{
	unsigned int i;

	for (i = 0; i < sc->nr_nodes; i++)
		if (!strcmp(sc->nodes[i].name, name))
			return &sc->nodes[i];
	return NULL;
}
