// SPDX-License-Identifier: MIT
/*
 * Scenario files (docs/SCENARIOS.md): read with libyaml's document API and
 * checked key by key. Every value is checked where it is read, so each error
 * names the file, the 1-based line of the offending value and its key path,
 * and says what is wrong and what is allowed, e.g.
 *
 *   scenarios/x.yaml:14: workload.qp.retry_cnt: 7 makes Soft-RoCE retry
 *   forever; use 0..6 in the lab
 *
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
};

#define SC_SIGNAL_NAMES                                                                            \
	"workload_error, port_event, link_event, counter, isolation, mr_error, qp_state, "         \
	"pfc_storm, pfc_pause, stall"

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

/*
 * Injector parameters the coordinator knows how to read. The agent's injector
 * validates them again (injectors/<name>.c); this table only exists so that a
 * typo fails before a fleet is touched. Values go to the agent as JSON, in
 * table order, durations as integer milliseconds under `json_key`.
 */
enum param_type { PT_INT, PT_DURATION };

struct param_spec {
	const char *key;      /* as written in the scenario */
	const char *json_key; /* as sent to the agent */
	enum param_type type;
	uint64_t min, max;
	bool required;
	bool has_default; /* emitted even when not written */
	uint64_t def;
	const char *help; /* "what it is", for the "missing" message */
};

#define SC_MAX_PARAMS 8

struct inj_spec {
	const char *name;
	bool needs_duration; /* without `duration` the fault would never end */
	/*
	 * Parameters go to the agent as written (scalars typed by their YAML
	 * form, lists as arrays) and are checked here by the injector's own
	 * validate(), the same function the agent runs: no second table.
	 */
	bool by_injector;
	const struct param_spec *params;
	unsigned int nr_params; /* <= SC_MAX_PARAMS */
	/*
	 * Checks between parameters, and the default duration; vals[i] and given[i]
	 * are params[i]'s value (or default) and whether it was written.
	 */
	int (*check)(struct pctx *c, yaml_node_t *fmap, yaml_node_t *pm, const char *fpath,
		     const uint64_t *vals, const bool *given, struct sc_fault *f);
};

enum { FLAP_COUNT, FLAP_DOWN, FLAP_UP, FLAP_JITTER, FLAP_SEED };

static const struct param_spec port_flap_params[] = {
    [FLAP_COUNT] = {"count", "count", PT_INT, 1, 1000, true, false, 0,
		    "how many down/up cycles, 1..1000"},
    [FLAP_DOWN] = {"down", "down_ms", PT_DURATION, 1, 3600000, true, false, 0,
		   "how long each down lasts"},
    [FLAP_UP] = {"up", "up_ms", PT_DURATION, 1, 3600000, true, false, 0, "how long each up lasts"},
    [FLAP_JITTER] = {"jitter", "jitter_ms", PT_DURATION, 0, 3600000, false, true, 0, NULL},
    [FLAP_SEED] = {"seed", "seed", PT_INT, 0, INT64_MAX, false, false, 0, NULL},
};

static int port_flap_check(struct pctx *c, yaml_node_t *fmap, yaml_node_t *pm, const char *fpath,
			   const uint64_t *vals, const bool *given, struct sc_fault *f);

static const struct inj_spec inj_specs[] = {
    {"link_down", true, false, NULL, 0, NULL},
    {"port_flap", false, false, port_flap_params,
     sizeof(port_flap_params) / sizeof(port_flap_params[0]), port_flap_check},
    {"qp_error", false, true, NULL, 0, NULL},
    {"pfc_storm", true, true, NULL, 0, NULL},
    {"mr_failure", true, true, NULL, 0, NULL},
};

#define SC_INJECTOR_NAMES "link_down, port_flap, qp_error, pfc_storm or mr_failure"

static const struct inj_spec *inj_spec_find(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(inj_specs) / sizeof(inj_specs[0]); i++)
		if (!strcmp(inj_specs[i].name, name))
			return &inj_specs[i];
	return NULL;
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
	int ret;

	if ((ret = yd_want_map(c->d, lab, "lab")) || (ret = yd_check_keys(c->d, lab, "lab", keys)))
		return ret;
	sc->lab = true;
	sc->lab_nodes = 2;
	sc->lab_rails = 1;
	if ((n = yd_map_get(c->d, lab, "nodes"))) {
		if ((ret = yd_get_uint(c->d, n, "lab.nodes", 2, SC_LAB_MAX_NODES, &v)))
			return ret;
		sc->lab_nodes = (unsigned int)v;
	}
	if ((n = yd_map_get(c->d, lab, "rails"))) {
		if ((ret = yd_get_uint(c->d, n, "lab.rails", 1, SC_LAB_MAX_RAILS, &v)))
			return ret;
		sc->lab_rails = (unsigned int)v;
	}
	sc->nodes = calloc(sc->lab_nodes, sizeof(*sc->nodes));
	if (!sc->nodes)
		return -ENOMEM;
	sc->nr_nodes = sc->lab_nodes;
	for (i = 0; i < sc->lab_nodes; i++)
		snprintf(sc->nodes[i].name, sizeof(sc->nodes[i].name), "node-%c", 'a' + i);
	return 0;
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
	int ret;

	if ((ret = yd_want_seq(c->d, seq, "nodes")))
		return ret;
	nr = (unsigned int)yd_seq_len(seq);
	if (nr < 2 || nr > SC_MAX_NODES)
		return yd_fail(c->d, seq, "nodes", "lists %u nodes; a drill needs 2..%d", nr,
			       SC_MAX_NODES);
	sc->nodes = calloc(nr, sizeof(*sc->nodes));
	if (!sc->nodes)
		return -ENOMEM;
	for (i = 0; i < nr; i++) {
		yaml_node_t *e = yd_seq_item(c->d, seq, i), *n;
		struct sc_node *nd = &sc->nodes[i];

		yd_join_idx(path, "nodes", i);
		if ((ret = yd_want_map(c->d, e, path)) ||
		    (ret = yd_check_keys(c->d, e, path, keys)))
			return ret;
		if (!(n = yd_map_get(c->d, e, "name")))
			return missing(c, e, path, "name",
				       "every node needs a name (its agent's --name)");
		yd_join(kpath, path, "name");
		if ((ret = get_name(c, n, kpath, nd->name, sizeof(nd->name), "it names the node")))
			return ret;
		for (j = 0; j < i; j++)
			if (!strcmp(sc->nodes[j].name, nd->name))
				return yd_fail(c->d, n, kpath,
					       "\"%s\" is already nodes[%u]; names are unique",
					       nd->name, j);
		if (!(n = yd_map_get(c->d, e, "agent")))
			return missing(
			    c, e, path, "agent",
			    "where the node's agent listens, host:port, e.g. gpu01:7707");
		yd_join(kpath, path, "agent");
		if ((ret = yd_get_text(c->d, n, kpath, nd->agent, sizeof(nd->agent))) ||
		    (ret = check_agent(c, n, kpath, nd->agent)))
			return ret;
		sc->nr_nodes = i + 1;
	}
	return 0;
}

static int check_node_ref(struct pctx *c, const yaml_node_t *n, const char *path, const char *name)
{
	char list[256];

	if (scenario_node(c->sc, name))
		return 0;
	return yd_fail(c->d, n, path, "\"%s\" is not a node of this drill; nodes: %s", name,
		       node_list(c->sc, list, sizeof(list)));
}

/* A rail number, checked against the lab's rails (or SC_MAX_RAILS on a real cluster). */
static int get_rail(struct pctx *c, const yaml_node_t *n, const char *path, int *rail)
{
	uint64_t max = c->sc->lab ? c->sc->lab_rails - 1 : SC_MAX_RAILS - 1;
	uint64_t v = 0;
	int ret;

	if ((ret = yd_get_uint(c->d, n, path, 0, UINT64_MAX, &v)))
		return ret;
	if (v > max && c->sc->lab)
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
	int ret;

	yd_join(path, wpath, "qp");
	if ((ret = yd_want_map(c->d, qp, path)) || (ret = yd_check_keys(c->d, qp, path, keys)))
		return ret;
	if ((n = yd_map_get(c->d, qp, "timeout"))) {
		yd_join(kpath, path, "timeout");
		if ((ret = yd_get_uint(c->d, n, kpath, 0, 31, &v)))
			return ret;
		if (v == 0)
			return yd_fail(
			    c->d, n, kpath,
			    "0 disables the retransmit timer, so one lost packet hangs the QP "
			    "forever; use 1..31 (the period is 4.096 us x 2^timeout, 14 is "
			    "about 67 ms)");
		w->qp_timeout = (unsigned int)v;
	}
	if ((n = yd_map_get(c->d, qp, "retry_cnt"))) {
		yd_join(kpath, path, "retry_cnt");
		if ((ret = yd_get_uint(c->d, n, kpath, 0, 7, &v)))
			return ret;
		if (v == 7 && c->sc->lab)
			return yd_fail(c->d, n, kpath,
				       "7 makes Soft-RoCE retry forever; use 0..6 in the lab");
		w->qp_retry_cnt = (unsigned int)v;
	}
	return 0;
}

static int parse_rails(struct pctx *c, yaml_node_t *seq, const char *wpath, struct sc_workload *w)
{
	char path[YD_PATH_LEN], ipath[YD_PATH_LEN];
	unsigned int i, j, nr;
	int ret;

	yd_join(path, wpath, "rails");
	if ((ret = yd_want_seq(c->d, seq, path)))
		return ret;
	nr = (unsigned int)yd_seq_len(seq);
	if (!nr)
		return yd_fail(c->d, seq, path, "is empty; list at least one rail, e.g. [0, 1]");
	if (nr > SC_MAX_RAILS)
		return yd_fail(c->d, seq, path, "lists %u rails; at most %d", nr, SC_MAX_RAILS);
	for (i = 0; i < nr; i++) {
		yaml_node_t *n = yd_seq_item(c->d, seq, i);

		yd_join_idx(ipath, path, i);
		if ((ret = get_rail(c, n, ipath, &w->rails[i])))
			return ret;
		for (j = 0; j < i; j++)
			if (w->rails[j] == w->rails[i])
				return yd_fail(c->d, n, ipath, "rail %d is listed twice",
					       w->rails[i]);
	}
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
static int parse_workload_map(struct pctx *c, yaml_node_t *wl, const char *path,
			      struct sc_workload *w)
{
	static const char *const keys[] = {"kind",	  "from",  "to", "op",	     "msg_size",
					   "queue_depth", "rails", "qp", "interval", "port",
					   "mr_churn",	  "tos",   NULL};
	char buf[64], kpath[YD_PATH_LEN];
	yaml_node_t *n;
	uint64_t v = 0;
	int ret;

	if ((ret = yd_want_map(c->d, wl, path)) || (ret = yd_check_keys(c->d, wl, path, keys)))
		return ret;
	if ((n = yd_map_get(c->d, wl, "kind"))) {
		yd_join(kpath, path, "kind");
		if ((ret = yd_get_text(c->d, n, kpath, w->kind, sizeof(w->kind))))
			return ret;
		if (strcmp(w->kind, "rdma_stream"))
			return yd_fail(c->d, n, kpath, "\"%s\" is not a workload; use rdma_stream",
				       w->kind);
	}
	yd_join(kpath, path, "from");
	if ((n = yd_map_get(c->d, wl, "from"))) {
		if ((ret = yd_get_text(c->d, n, kpath, w->from, sizeof(w->from))) ||
		    (ret = check_node_ref(c, n, kpath, w->from)))
			return ret;
	} else if (!w->from[0]) {
		return missing(c, wl, path, "from", "name the client node, e.g. from: node-a");
	}
	yd_join(kpath, path, "to");
	if ((n = yd_map_get(c->d, wl, "to"))) {
		if ((ret = yd_get_text(c->d, n, kpath, w->to, sizeof(w->to))) ||
		    (ret = check_node_ref(c, n, kpath, w->to)))
			return ret;
	} else if (!w->to[0]) {
		return missing(c, wl, path, "to", "name the server node, e.g. to: node-b");
	}
	if (!strcmp(w->from, w->to))
		return yd_fail(
		    c->d, n ? n : wl, kpath,
		    "\"%s\" is also the client (from); the stream needs two different nodes",
		    w->to);
	if ((n = yd_map_get(c->d, wl, "op"))) {
		yd_join(kpath, path, "op");
		if ((ret = yd_get_text(c->d, n, kpath, buf, sizeof(buf))))
			return ret;
		if (!strcmp(buf, "write"))
			w->op = SC_OP_WRITE;
		else if (!strcmp(buf, "send"))
			w->op = SC_OP_SEND;
		else
			return yd_fail(c->d, n, kpath,
				       "\"%s\" is not an operation; use write or send", buf);
	}
	if ((n = yd_map_get(c->d, wl, "msg_size"))) {
		yd_join(kpath, path, "msg_size");
		if ((ret = yd_want_scalar(c->d, n, kpath)))
			return ret;
		if (rc_parse_size(yd_scalar(n), &v))
			return yd_fail(c->d, n, kpath,
				       "\"%s\" is not a size; write e.g. 4096, 64KiB, 1MiB",
				       yd_scalar(n));
		if (v < 64 || v > 16 * 1024 * 1024)
			return yd_fail(c->d, n, kpath, "%s is out of range; use 64 B..16 MiB",
				       yd_scalar(n));
		w->msg_size = v;
	}
	if ((n = yd_map_get(c->d, wl, "queue_depth"))) {
		yd_join(kpath, path, "queue_depth");
		if ((ret = yd_get_uint(c->d, n, kpath, 1, 1024, &v)))
			return ret;
		w->queue_depth = (unsigned int)v;
	}
	if ((n = yd_map_get(c->d, wl, "rails")) && (ret = parse_rails(c, n, path, w)))
		return ret;
	if ((n = yd_map_get(c->d, wl, "qp")) && (ret = parse_qp(c, n, path, w)))
		return ret;
	if ((n = yd_map_get(c->d, wl, "interval"))) {
		yd_join(kpath, path, "interval");
		if ((ret = yd_get_duration(c->d, n, kpath, &v)))
			return ret;
		if (v < 10 || v > 10000)
			return yd_fail(c->d, n, kpath, "%s is out of range; use 10ms..10s",
				       rc_format_duration_ms(v, buf, sizeof(buf)));
		w->interval_ms = v;
	}
	if ((n = yd_map_get(c->d, wl, "mr_churn"))) {
		yd_join(kpath, path, "mr_churn");
		if ((ret = yd_get_duration(c->d, n, kpath, &v)))
			return ret;
		if (v && (v < 100 || v > 3600000))
			return yd_fail(c->d, n, kpath,
				       "%s is out of range; use 100ms..1h (or 0: never)",
				       rc_format_duration_ms(v, buf, sizeof(buf)));
		w->mr_churn_ms = v;
	}
	if ((n = yd_map_get(c->d, wl, "tos"))) {
		yd_join(kpath, path, "tos");
		if ((ret = yd_get_uint(c->d, n, kpath, 0, 255, &v)))
			return ret;
		w->tos = (int)v;
	}
	if ((n = yd_map_get(c->d, wl, "port"))) {
		yd_join(kpath, path, "port");
		if ((ret = yd_get_uint(c->d, n, kpath, 1, 65535, &v)))
			return ret;
		w->port = (uint16_t)v;
	}
	return 0;
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
	int ret;

	if ((ret = yd_want_map(c->d, ss, "steady_state")) ||
	    (ret = yd_check_keys(c->d, ss, "steady_state", keys)))
		return ret;
	if ((n = yd_map_get(c->d, ss, "warmup")) &&
	    (ret = yd_get_duration(c->d, n, "steady_state.warmup", &sc->warmup_ms)))
		return ret;
	if ((n = yd_map_get(c->d, ss, "baseline")) &&
	    (ret = get_duration_pos(c, n, "steady_state.baseline", &sc->baseline_ms)))
		return ret;
	if ((n = yd_map_get(c->d, ss, "cooldown")) &&
	    (ret = yd_get_duration(c->d, n, "steady_state.cooldown", &sc->cooldown_ms)))
		return ret;
	return 0;
}

/* The baseline is a mean over interval samples: it needs at least two of them. */
static int check_baseline(struct pctx *c, yaml_node_t *ss)
{
	struct scenario *sc = c->sc;
	char b1[32], b2[32], b3[32];

	if (sc->baseline_ms >= 2 * sc->workload.interval_ms)
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
	int ret, nr_set;

	yd_join(path, fpath, "target");
	tg->rail = -1;
	tg->port = 1;
	if ((ret = yd_want_map(c->d, t, path)) || (ret = yd_check_keys(c->d, t, path, keys)))
		return ret;
	if (!(n = yd_map_get(c->d, t, "node")))
		return missing(c, t, path, "node", "name the node the fault happens on");
	yd_join(kpath, path, "node");
	if ((ret = yd_get_text(c->d, n, kpath, tg->node, sizeof(tg->node))) ||
	    (ret = check_node_ref(c, n, kpath, tg->node)))
		return ret;
	rail = yd_map_get(c->d, t, "rail");
	netdev = yd_map_get(c->d, t, "netdev");
	device = yd_map_get(c->d, t, "device");
	if ((wl = yd_map_get(c->d, t, "workload"))) {
		const struct sc_workload *w = &c->sc->workload;

		yd_join(kpath, path, "workload");
		if ((ret = yd_get_text(c->d, wl, kpath, tg->workload, sizeof(tg->workload))))
			return ret;
		if (strcmp(tg->workload, "stream"))
			return yd_fail(
			    c->d, wl, kpath,
			    "\"%s\" is not a workload of this drill; the drill's workload "
			    "is stream",
			    tg->workload);
		if (strcmp(tg->node, w->from) && strcmp(tg->node, w->to))
			return yd_fail(c->d, wl, kpath,
				       "the workload does not run on %s (its client is %s, its "
				       "server %s)",
				       tg->node, w->from, w->to);
		if (netdev || device) {
			yd_join(kpath, path, netdev ? "netdev" : "device");
			return yd_fail(c->d, netdev ? netdev : device, kpath,
				       "goes with workload only as rail: N (the rail whose "
				       "netdev a mechanism needs)");
		}
		if (rail) {
			yd_join(kpath, path, "rail");
			if ((ret = get_rail(c, rail, kpath, &tg->rail)))
				return ret;
		}
		if ((n = yd_map_get(c->d, t, "port"))) {
			yd_join(kpath, path, "port");
			return yd_fail(c->d, n, kpath,
				       "only goes with device (an RDMA device's port)");
		}
		return 0;
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
		if ((ret = get_rail(c, rail, kpath, &tg->rail)))
			return ret;
	}
	if (netdev) {
		yd_join(kpath, path, "netdev");
		if ((ret = yd_get_text(c->d, netdev, kpath, tg->netdev, SC_NETDEV_MAX + 1)))
			return ret;
		if (strpbrk(tg->netdev, "/: \t") || !strcmp(tg->netdev, ".") ||
		    !strcmp(tg->netdev, ".."))
			return yd_fail(c->d, netdev, kpath,
				       "\"%s\" is not a network interface name", tg->netdev);
	}
	if (device) {
		yd_join(kpath, path, "device");
		if ((ret = yd_get_text(c->d, device, kpath, tg->device, sizeof(tg->device))))
			return ret;
	}
	if ((n = yd_map_get(c->d, t, "port"))) {
		yd_join(kpath, path, "port");
		if (!device)
			return yd_fail(c->d, n, kpath,
				       "only goes with device (an RDMA device's port)");
		if ((ret = yd_get_uint(c->d, n, kpath, 1, 255, &v)))
			return ret;
		tg->port = (int)v;
	}
	return 0;
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
 * The injector's sentence, placed at the key it names: "params.KEY" first,
 * else the first key that appears as a word. "INJ: params.KEY: " is dropped
 * from the front, since the location says it already.
 */
static int params_fail(struct pctx *c, yaml_node_t *fmap, yaml_node_t *pm, const char *path,
		       const char *inj, const char *msg)
{
	char kpath[YD_PATH_LEN], want[128];
	yaml_node_pair_t *p;
	int pass;

	for (pass = 0; pm && pass < 2; pass++) {
		for (p = pm->data.mapping.pairs.start; p < pm->data.mapping.pairs.top; p++) {
			yaml_node_t *k = yd_node(c->d, p->key);
			const char *key, *hit, *text = msg;
			size_t len;
			bool found = false;

			if (k->type != YAML_SCALAR_NODE)
				continue;
			key = yd_scalar(k);
			len = strlen(key);
			if (pass == 0) {
				snprintf(want, sizeof(want), "params.%s", key);
				hit = strstr(msg, want);
				found = hit && !(isalnum((unsigned char)hit[strlen(want)]) ||
						 hit[strlen(want)] == '_');
				snprintf(want, sizeof(want), "%s: params.%s: ", inj, key);
				if (!strncmp(msg, want, strlen(want)))
					text = msg + strlen(want);
			} else {
				for (hit = strstr(msg, key); hit && !found;
				     hit = strstr(hit + 1, key))
					found =
					    (hit == msg || !(isalnum((unsigned char)hit[-1]) ||
							     hit[-1] == '_')) &&
					    !(isalnum((unsigned char)hit[len]) || hit[len] == '_');
			}
			if (found) {
				yd_join(kpath, path, key);
				return yd_fail(c->d, yd_node(c->d, p->value), kpath, "%s", text);
			}
		}
	}
	return yd_fail(c->d, pm ? pm : fmap, path, "%s", msg);
}

static int parse_params_by_injector(struct pctx *c, yaml_node_t *fmap, yaml_node_t *pm,
				    const char *fpath, const struct inj_spec *spec,
				    struct sc_fault *f)
{
	const struct injector *inj = injector_find(spec->name);
	char path[YD_PATH_LEN], kpath[YD_PATH_LEN], msg[INJ_ERR_LEN];
	yaml_node_pair_t *p;
	int ret;

	yd_join(path, fpath, "params");
	f->params = json_object();
	if (!f->params)
		return -ENOMEM;
	if (!inj)
		return yd_fail(c->d, fmap, fpath, "%s is not built into this rdmachaos",
			       spec->name);
	if (pm) {
		if ((ret = yd_want_map(c->d, pm, path)))
			return ret;
		for (p = pm->data.mapping.pairs.start; p < pm->data.mapping.pairs.top; p++) {
			yaml_node_t *k = yd_node(c->d, p->key);
			json_t *v;

			if (k->type != YAML_SCALAR_NODE)
				return yd_fail(c->d, k, path, "keys must be plain words");
			yd_join(kpath, path, yd_scalar(k));
			if (json_object_get(f->params, yd_scalar(k)))
				return yd_fail(c->d, k, kpath, "given twice");
			v = yaml_to_json(c, yd_node(c->d, p->value), kpath, 0);
			if (!v)
				return -EINVAL;
			if (json_object_set_new(f->params, yd_scalar(k), v))
				return -ENOMEM;
		}
	}
	msg[0] = '\0';
	if (inj->validate(f->params, msg, sizeof(msg)))
		return params_fail(c, fmap, pm, path, spec->name,
				   msg[0] ? msg : "refused by the injector");
	return 0;
}

static int parse_params(struct pctx *c, yaml_node_t *fmap, yaml_node_t *pm, const char *fpath,
			const struct inj_spec *spec, struct sc_fault *f)
{
	char path[YD_PATH_LEN], kpath[YD_PATH_LEN], list[128], b1[32], b2[32];
	yaml_node_pair_t *p;
	uint64_t vals[SC_MAX_PARAMS] = {0};
	bool given[SC_MAX_PARAMS] = {false};
	unsigned int i;
	size_t off = 0;
	int ret;

	yd_join(path, fpath, "params");
	f->params = json_object();
	if (!f->params)
		return -ENOMEM;
	list[0] = '\0';
	for (i = 0; i < spec->nr_params; i++)
		off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%s", i ? ", " : "",
					spec->params[i].key);
	if (pm) {
		if ((ret = yd_want_map(c->d, pm, path)))
			return ret;
		for (p = pm->data.mapping.pairs.start; p < pm->data.mapping.pairs.top; p++) {
			yaml_node_t *k = yd_node(c->d, p->key);

			if (k->type != YAML_SCALAR_NODE)
				return yd_fail(c->d, k, path, "keys must be plain words");
			yd_join(kpath, path, yd_scalar(k));
			for (i = 0; i < spec->nr_params; i++)
				if (!strcmp(spec->params[i].key, yd_scalar(k)))
					break;
			if (i == spec->nr_params) {
				if (!spec->nr_params)
					return yd_fail(c->d, k, kpath,
						       "unknown key; %s takes no parameters",
						       spec->name);
				return yd_fail(c->d, k, kpath, "unknown key; %s takes: %s",
					       spec->name, list);
			}
			if (given[i])
				return yd_fail(c->d, k, kpath, "given twice");
			given[i] = true;
		}
		memset(given, 0, sizeof(given));
	}
	for (i = 0; i < spec->nr_params; i++) {
		const struct param_spec *ps = &spec->params[i];
		yaml_node_t *n = yd_map_get(c->d, pm, ps->key);
		int r;

		vals[i] = ps->def;
		yd_join(kpath, path, ps->key);
		if (!n) {
			if (ps->required)
				return yd_fail(c->d, pm ? pm : fmap, kpath,
					       "missing; %s needs %s (%s)", spec->name, ps->key,
					       ps->help);
			if (!ps->has_default)
				continue;
		} else {
			r = ps->type == PT_INT
				? yd_get_uint(c->d, n, kpath, ps->min, ps->max, &vals[i])
				: yd_get_duration(c->d, n, kpath, &vals[i]);
			if (r)
				return r;
			if (ps->type == PT_DURATION && vals[i] < ps->min)
				return yd_fail(c->d, n, kpath, "must be longer than 0");
			if (ps->type == PT_DURATION && vals[i] > ps->max)
				return yd_fail(c->d, n, kpath, "%s is out of range; use at most %s",
					       rc_format_duration_ms(vals[i], b1, sizeof(b1)),
					       rc_format_duration_ms(ps->max, b2, sizeof(b2)));
			given[i] = true;
		}
		if (json_object_set_new(f->params, ps->json_key, json_integer((json_int_t)vals[i])))
			return -ENOMEM;
	}
	return spec->check ? spec->check(c, fmap, pm, fpath, vals, given, f) : 0;
}

/* Jitter against the periods, and the flap's duration (see docs/SCENARIOS.md). */
static int port_flap_check(struct pctx *c, yaml_node_t *fmap, yaml_node_t *pm, const char *fpath,
			   const uint64_t *vals, const bool *given, struct sc_fault *f)
{
	uint64_t count = vals[FLAP_COUNT], down = vals[FLAP_DOWN], up = vals[FLAP_UP];
	uint64_t jitter = vals[FLAP_JITTER], shortest = down < up ? down : up;
	/*
	 * Each of the 2 x count periods moves by up to +-jitter, so the last up
	 * comes at the latest at count x down + (count - 1) x up + (2 x count - 1)
	 * x jitter. The fault lasts count x (down + up), or until that last up
	 * plus its drift when the drift is longer than one up period.
	 */
	uint64_t drift = (2 * count - 1) * jitter;
	uint64_t need = count * down + (count - 1) * up + (drift > up ? drift : up);
	char ppath[YD_PATH_LEN], kpath[YD_PATH_LEN], b1[32], b2[32], b3[32], b4[32];

	if (given[FLAP_JITTER] && jitter && jitter >= shortest) {
		yd_join(ppath, fpath, "params");
		yd_join(kpath, ppath, "jitter");
		return yd_fail(c->d, yd_map_get(c->d, pm, "jitter"), kpath,
			       "%s must be shorter than both down (%s) and up (%s), so no phase "
			       "can shrink to nothing",
			       rc_format_duration_ms(jitter, b1, sizeof(b1)),
			       rc_format_duration_ms(down, b2, sizeof(b2)),
			       rc_format_duration_ms(up, b3, sizeof(b3)));
	}
	if (!f->duration_ms) {
		f->duration_ms = need;
		return 0;
	}
	if (f->duration_ms >= need)
		return 0;
	yd_join(kpath, fpath, "duration");
	return yd_fail(
	    c->d, yd_map_get(c->d, fmap, "duration"), kpath,
	    "%s is shorter than the flaps it must hold (%" PRIu64
	    " x (down %s + up %s)%s = %s); leave it out or give at least that",
	    rc_format_duration_ms(f->duration_ms, b1, sizeof(b1)), count,
	    rc_format_duration_ms(down, b2, sizeof(b2)), rc_format_duration_ms(up, b3, sizeof(b3)),
	    drift > up ? ", plus jitter drift" : "", rc_format_duration_ms(need, b4, sizeof(b4)));
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

static int parse_fault(struct pctx *c, yaml_node_t *fm, unsigned int idx)
{
	static const char *const keys[] = {"name",     "at",	 "injector", "target",
					   "duration", "params", NULL};
	struct scenario *sc = c->sc;
	struct sc_fault *f = &sc->faults[idx];
	const struct inj_spec *spec;
	char path[YD_PATH_LEN], kpath[YD_PATH_LEN], b1[32], b2[32], b3[32], b4[32];
	yaml_node_t *n;
	unsigned int j;
	int ret;

	yd_join_idx(path, "faults", idx);
	f->target.rail = -1;
	if ((ret = yd_want_map(c->d, fm, path)) || (ret = yd_check_keys(c->d, fm, path, keys)))
		return ret;
	f->line = (int)yd_line(fm);
	if (!(n = yd_map_get(c->d, fm, "name")))
		return missing(c, fm, path, "name",
			       "every fault needs a name (its id in the report)");
	yd_join(kpath, path, "name");
	if ((ret = get_name(c, n, kpath, f->name, sizeof(f->name), "it is the fault's id")))
		return ret;
	for (j = 0; j < idx; j++)
		if (!strcmp(sc->faults[j].name, f->name))
			return yd_fail(c->d, n, kpath,
				       "\"%s\" is already faults[%u]; names are unique", f->name,
				       j);
	if (!(n = yd_map_get(c->d, fm, "at")))
		return missing(c, fm, path, "at",
			       "say when the fault starts, counted from the workload start, e.g. "
			       "at: 20s");
	yd_join(kpath, path, "at");
	if ((ret = yd_get_duration(c->d, n, kpath, &f->at_ms)))
		return ret;
	if (f->at_ms < sc->warmup_ms + sc->baseline_ms)
		return yd_fail(
		    c->d, n, kpath,
		    "%s falls inside the steady state (warmup %s + baseline %s); the "
		    "baseline must be measured before any fault, so use at >= %s",
		    rc_format_duration_ms(f->at_ms, b1, sizeof(b1)),
		    rc_format_duration_ms(sc->warmup_ms, b2, sizeof(b2)),
		    rc_format_duration_ms(sc->baseline_ms, b3, sizeof(b3)),
		    rc_format_duration_ms(sc->warmup_ms + sc->baseline_ms, b4, sizeof(b4)));
	if (!(n = yd_map_get(c->d, fm, "injector")))
		return missing(c, fm, path, "injector", "use " SC_INJECTOR_NAMES);
	yd_join(kpath, path, "injector");
	if ((ret = yd_get_text(c->d, n, kpath, f->injector, sizeof(f->injector))))
		return ret;
	if (!(spec = inj_spec_find(f->injector)))
		return yd_fail(c->d, n, kpath, "\"%s\" is not an injector; use " SC_INJECTOR_NAMES,
			       f->injector);
	if (!(n = yd_map_get(c->d, fm, "target")))
		return missing(c, fm, path, "target",
			       "say where, e.g. target: {node: node-b, rail: 0}");
	if ((ret = parse_target(c, n, path, &f->target)))
		return ret;
	if ((n = yd_map_get(c->d, fm, "duration"))) {
		yd_join(kpath, path, "duration");
		if ((ret = get_duration_pos(c, n, kpath, &f->duration_ms)))
			return ret;
	} else if (spec->needs_duration) {
		snprintf(kpath, sizeof(kpath),
			 "%s needs to know when to undo the fault, e.g. duration: 10s", spec->name);
		return missing(c, fm, path, "duration", kpath);
	}
	if (spec->by_injector)
		return parse_params_by_injector(c, fm, yd_map_get(c->d, fm, "params"), path, spec,
						f);
	return parse_params(c, fm, yd_map_get(c->d, fm, "params"), path, spec, f);
}

/* Two faults on the same target at the same time would undo each other's revert. */
static int check_overlaps(struct pctx *c, yaml_node_t *seq)
{
	struct scenario *sc = c->sc;
	char path[YD_PATH_LEN], tdesc[128], b[4][32], b5[32];
	unsigned int i, j;

	for (j = 1; j < sc->nr_faults; j++) {
		const struct sc_fault *fj = &sc->faults[j];

		for (i = 0; i < j; i++) {
			const struct sc_fault *fi = &sc->faults[i];
			yaml_node_t *fm = yd_seq_item(c->d, seq, j);

			if (!same_target(&fi->target, &fj->target))
				continue;
			if (fj->at_ms >= fi->at_ms + fi->duration_ms ||
			    fi->at_ms >= fj->at_ms + fj->duration_ms)
				continue;
			snprintf(path, sizeof(path), "faults[%u].at", j);
			target_desc(&fj->target, tdesc, sizeof(tdesc));
			return yd_fail(
			    c->d, yd_map_get(c->d, fm, "at"), path,
			    "\"%s\" (%s-%s) overlaps \"%s\" (%s-%s) on the same target (%s); "
			    "start it at or after %s",
			    fj->name, rc_format_duration_ms(fj->at_ms, b[0], 32),
			    rc_format_duration_ms(fj->at_ms + fj->duration_ms, b[1], 32), fi->name,
			    rc_format_duration_ms(fi->at_ms, b[2], 32),
			    rc_format_duration_ms(fi->at_ms + fi->duration_ms, b[3], 32), tdesc,
			    rc_format_duration_ms(fi->at_ms + fi->duration_ms, b5, sizeof(b5)));
		}
	}
	return 0;
}

static int parse_faults(struct pctx *c, yaml_node_t *seq)
{
	unsigned int i, nr;
	int ret;

	if ((ret = yd_want_seq(c->d, seq, "faults")))
		return ret;
	nr = (unsigned int)yd_seq_len(seq);
	if (!nr || nr > SC_MAX_FAULTS)
		return yd_fail(c->d, seq, "faults", "lists %u faults; a drill needs 1..%d", nr,
			       SC_MAX_FAULTS);
	for (i = 0; i < nr; i++) {
		/* counted before parsing, so scenario_free releases a half-built fault's params */
		c->sc->nr_faults = i + 1;
		if ((ret = parse_fault(c, yd_seq_item(c->d, seq, i), i)))
			return ret;
	}
	return check_overlaps(c, seq);
}

static int parse_signals(struct pctx *c, yaml_node_t *seq, struct sc_expect *e)
{
	const char *path0 = "expect.detection.signals";
	char path[YD_PATH_LEN];
	unsigned int i, j, nr;
	enum sc_signal s;
	int ret;

	if ((ret = yd_want_seq(c->d, seq, path0)))
		return ret;
	nr = (unsigned int)yd_seq_len(seq);
	if (!nr)
		return yd_fail(c->d, seq, path0,
			       "is empty; list what counts as detection: " SC_SIGNAL_NAMES);
	for (i = 0; i < nr; i++) {
		yaml_node_t *n = yd_seq_item(c->d, seq, i);

		yd_join_idx(path, path0, i);
		if ((ret = yd_want_scalar(c->d, n, path)))
			return ret;
		if (sc_signal_parse(yd_scalar(n), &s))
			return yd_fail(c->d, n, path,
				       "\"%s\" is not a signal; use one of " SC_SIGNAL_NAMES,
				       yd_scalar(n));
		for (j = 0; j < e->nr_signals; j++)
			if (e->signals[j] == s)
				return yd_fail(c->d, n, path, "%s is listed twice", yd_scalar(n));
		e->signals[e->nr_signals++] = s;
	}
	return 0;
}

static int parse_within(struct pctx *c, yaml_node_t *m, const char *path, uint64_t *ms)
{
	char kpath[YD_PATH_LEN];
	yaml_node_t *n = yd_map_get(c->d, m, "within");

	if (!n)
		return missing(c, m, path, "within",
			       "the longest acceptable time, e.g. within: 5s");
	yd_join(kpath, path, "within");
	return get_duration_pos(c, n, kpath, ms);
}

static int parse_expect(struct pctx *c, yaml_node_t *ex)
{
	static const char *const keys[] = {"detection", "isolation", "recovery", "integrity", NULL};
	static const char *const det_keys[] = {"within", "signals", NULL};
	static const char *const iso_keys[] = {"within", NULL};
	static const char *const rec_keys[] = {"within", "throughput_ratio", "sustain", "window",
					       NULL};
	static const char *const int_keys[] = {"lost", "corrupted", NULL};
	struct sc_expect *e = &c->sc->expect;
	yaml_node_t *m, *n;
	uint64_t v = 0;
	int ret;

	e->recovery_ratio = 0.8;
	e->recovery_sustain_ms = 2000;
	e->recovery_window_ms = 1000;
	e->max_lost = -1;
	e->max_corrupted = -1;
	if ((ret = yd_want_map(c->d, ex, "expect")) ||
	    (ret = yd_check_keys(c->d, ex, "expect", keys)))
		return ret;

	if (!(m = yd_map_get(c->d, ex, "detection")))
		return missing(
		    c, ex, "expect", "detection",
		    "e.g. detection: {within: 5s, signals: [workload_error, port_event]}");
	if ((ret = yd_want_map(c->d, m, "expect.detection")) ||
	    (ret = yd_check_keys(c->d, m, "expect.detection", det_keys)) ||
	    (ret = parse_within(c, m, "expect.detection", &e->detection_within_ms)))
		return ret;
	if (!(n = yd_map_get(c->d, m, "signals")))
		return missing(c, m, "expect.detection", "signals",
			       "list what counts as detection, e.g. [workload_error, port_event]");
	if ((ret = parse_signals(c, n, e)))
		return ret;

	if ((m = yd_map_get(c->d, ex, "isolation"))) {
		if ((ret = yd_want_map(c->d, m, "expect.isolation")) ||
		    (ret = yd_check_keys(c->d, m, "expect.isolation", iso_keys)) ||
		    (ret = parse_within(c, m, "expect.isolation", &e->isolation_within_ms)))
			return ret;
		e->isolation_set = true;
	}

	if (!(m = yd_map_get(c->d, ex, "recovery")))
		return missing(c, ex, "expect", "recovery",
			       "e.g. recovery: {within: 30s, throughput_ratio: 0.8, sustain: 2s}");
	if ((ret = yd_want_map(c->d, m, "expect.recovery")) ||
	    (ret = yd_check_keys(c->d, m, "expect.recovery", rec_keys)) ||
	    (ret = parse_within(c, m, "expect.recovery", &e->recovery_within_ms)))
		return ret;
	if ((n = yd_map_get(c->d, m, "throughput_ratio"))) {
		if ((ret =
			 get_double(c, n, "expect.recovery.throughput_ratio", &e->recovery_ratio)))
			return ret;
		if (!(e->recovery_ratio > 0 && e->recovery_ratio <= 1))
			return yd_fail(
			    c->d, n, "expect.recovery.throughput_ratio",
			    "%s is out of range; use a fraction of the baseline above 0 and "
			    "at most 1, e.g. 0.8",
			    yd_scalar(n));
	}
	if ((n = yd_map_get(c->d, m, "sustain")) &&
	    (ret = yd_get_duration(c->d, n, "expect.recovery.sustain", &e->recovery_sustain_ms)))
		return ret;
	if ((n = yd_map_get(c->d, m, "window")) &&
	    (ret = yd_get_duration(c->d, n, "expect.recovery.window", &e->recovery_window_ms)))
		return ret;

	if ((m = yd_map_get(c->d, ex, "integrity"))) {
		if ((ret = yd_want_map(c->d, m, "expect.integrity")) ||
		    (ret = yd_check_keys(c->d, m, "expect.integrity", int_keys)))
			return ret;
		if ((n = yd_map_get(c->d, m, "lost"))) {
			if ((ret = yd_get_uint(c->d, n, "expect.integrity.lost", 0, INT64_MAX, &v)))
				return ret;
			e->max_lost = (int64_t)v;
		}
		if ((n = yd_map_get(c->d, m, "corrupted"))) {
			if ((ret = yd_get_uint(c->d, n, "expect.integrity.corrupted", 0, INT64_MAX,
					       &v)))
				return ret;
			e->max_corrupted = (int64_t)v;
		}
	}
	return 0;
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
	int ret;

	if ((ret = yd_want_map(c->d, m, path)) || (ret = yd_check_keys(c->d, m, path, keys)))
		return ret;
	s->line = (int)yd_line(m);
	if ((n = yd_map_get(c->d, m, "max_nodes"))) {
		if ((ret = yd_get_uint(c->d, n, "safety.blast_radius.max_nodes", 1, SC_MAX_NODES,
				       &v)))
			return ret;
		s->max_nodes = (unsigned int)v;
	}
	if ((n = yd_map_get(c->d, m, "max_rails"))) {
		if ((ret = yd_get_uint(c->d, n, "safety.blast_radius.max_rails", 1, 1000000, &v)))
			return ret;
		s->max_rails = (unsigned int)v;
	}
	if ((n = yd_map_get(c->d, m, "max_fleet_share")) &&
	    (ret = get_share(c, n, "safety.blast_radius.max_fleet_share", &s->max_fleet_share)))
		return ret;
	return 0;
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
	if (!strcmp(g->flow.from, main_wl->from) && !strcmp(g->flow.to, main_wl->to) &&
	    same_rails(&g->flow, main_wl))
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
	int ret;

	yd_join_idx(path, "safety.guards", idx);
	if ((ret = yd_want_map(c->d, m, path)))
		return ret;
	g->line = (int)yd_line(m);
	if (!(n = yd_map_get(c->d, m, "kind")))
		return missing(c, m, path, "kind", "use throughput or tcp_probe");
	yd_join(kpath, path, "kind");
	if ((ret = yd_get_text(c->d, n, kpath, kind, sizeof(kind))))
		return ret;
	if (!strcmp(kind, "throughput")) {
		g->kind = SC_GUARD_THROUGHPUT;
		if ((ret = yd_check_keys(c->d, m, path, tp_keys)))
			return ret;
		if (!(n = yd_map_get(c->d, m, "min_ratio")))
			return missing(c, m, path, "min_ratio",
				       "the floor as a fraction of the baseline, e.g. 0.1");
		yd_join(kpath, path, "min_ratio");
		if ((ret = get_double(c, n, kpath, &g->min_ratio)))
			return ret;
		if (!(g->min_ratio > 0 && g->min_ratio < 1))
			return yd_fail(c->d, n, kpath,
				       "%s is out of range; use a fraction of the baseline above 0 "
				       "and below 1, e.g. 0.1",
				       yd_scalar(n));
		g->for_ms = 5000;
		yd_join(kpath, path, "for");
		if ((n = yd_map_get(c->d, m, "for")) &&
		    (ret = get_duration_pos(c, n, kpath, &g->for_ms)))
			return ret;
		if ((n = yd_map_get(c->d, m, "flow")))
			return parse_guard_flow(c, n, path, idx, g);
		return 0;
	}
	if (!strcmp(kind, "tcp_probe")) {
		g->kind = SC_GUARD_TCP_PROBE;
		if ((ret = yd_check_keys(c->d, m, path, probe_keys)))
			return ret;
		if (!(n = yd_map_get(c->d, m, "address")))
			return missing(c, m, path, "address",
				       "what must stay reachable, e.g. address: "
				       "scheduler.example:443");
		yd_join(kpath, path, "address");
		if ((ret = yd_get_text(c->d, n, kpath, g->address, sizeof(g->address))) ||
		    (ret = check_agent(c, n, kpath, g->address)))
			return ret;
		g->every_ms = 1000;
		yd_join(kpath, path, "every");
		if ((n = yd_map_get(c->d, m, "every"))) {
			if ((ret = get_duration_pos(c, n, kpath, &g->every_ms)))
				return ret;
			if (g->every_ms < 100)
				return yd_fail(c->d, n, kpath, "probe at most every 100ms");
		}
		g->failures = 3;
		yd_join(kpath, path, "failures");
		if ((n = yd_map_get(c->d, m, "failures"))) {
			if ((ret = yd_get_uint(c->d, n, kpath, 1, 1000, &v)))
				return ret;
			g->failures = (unsigned int)v;
		}
		return 0;
	}
	return yd_fail(c->d, n, kpath, "\"%s\" is not a guard; use throughput or tcp_probe", kind);
}

static int parse_safety(struct pctx *c, yaml_node_t *m)
{
	static const char *const keys[] = {"lease", "blast_radius", "guards", NULL};
	struct sc_safety *s = &c->sc->safety;
	yaml_node_t *n;
	unsigned int i, nr;
	int ret;

	if ((ret = yd_want_map(c->d, m, "safety")) ||
	    (ret = yd_check_keys(c->d, m, "safety", keys)))
		return ret;
	if ((n = yd_map_get(c->d, m, "lease"))) {
		if ((ret = get_duration_pos(c, n, "safety.lease", &s->lease_ms)))
			return ret;
		if (s->lease_ms < 1000 || s->lease_ms > 3600000)
			return yd_fail(c->d, n, "safety.lease",
				       "%s is out of range; use 1s..1h (agents check leases to the "
				       "second)",
				       yd_scalar(n));
	}
	if ((n = yd_map_get(c->d, m, "blast_radius")) && (ret = parse_blast_radius(c, n, s)))
		return ret;
	if (!(n = yd_map_get(c->d, m, "guards")))
		return 0;
	if ((ret = yd_want_seq(c->d, n, "safety.guards")))
		return ret;
	nr = (unsigned int)yd_seq_len(n);
	if (nr > SC_MAX_GUARDS)
		return yd_fail(c->d, n, "safety.guards", "lists %u guards; at most %d", nr,
			       SC_MAX_GUARDS);
	for (i = 0; i < nr; i++) {
		yaml_node_t *gm = yd_seq_item(c->d, n, i);
		unsigned int j;

		if ((ret = parse_guard(c, gm, i, &s->guards[i])))
			return ret;
		s->nr_guards = i + 1;
		for (j = 0; s->guards[i].has_flow && j < i; j++) {
			const struct sc_workload *a = &s->guards[j].flow, *b = &s->guards[i].flow;
			char path[YD_PATH_LEN];

			if (!s->guards[j].has_flow || a->port != b->port || strcmp(a->to, b->to))
				continue;
			yd_join_idx(path, "safety.guards", i);
			return yd_fail(
			    c->d, gm, path,
			    "its flow and guard %u's both listen on %s port %u; give one "
			    "flow another port",
			    j, b->to, b->port);
		}
	}
	return 0;
}

static int parse_root(struct pctx *c, yaml_node_t *root)
{
	static const char *const keys[] = {"name",     "description",  "owner",	 "lab",	   "nodes",
					   "workload", "steady_state", "faults", "expect", "safety",
					   NULL};
	struct scenario *sc = c->sc;
	yaml_node_t *n, *lab, *nodes, *ss;
	int ret;

	if (root->type != YAML_MAPPING_NODE)
		return yd_fail(c->d, root, "",
			       "a scenario is a mapping of keys (name:, workload:, faults:, ...)");
	if ((ret = yd_check_keys(c->d, root, "", keys)))
		return ret;
	if (!(n = yd_map_get(c->d, root, "name")))
		return missing(
		    c, root, "", "name",
		    "every scenario needs a name ([A-Za-z0-9._-]+, used in folder names)");
	if ((ret =
		 get_name(c, n, "name", sc->name, sizeof(sc->name), "it is used in folder names")))
		return ret;
	if ((n = yd_map_get(c->d, root, "description")) &&
	    (ret = yd_get_text(c->d, n, "description", sc->description, sizeof(sc->description))))
		return ret;
	if ((n = yd_map_get(c->d, root, "owner")) &&
	    (ret = yd_get_text(c->d, n, "owner", sc->owner, sizeof(sc->owner))))
		return ret;

	lab = yd_map_get(c->d, root, "lab");
	nodes = yd_map_get(c->d, root, "nodes");
	if (lab && nodes) {
		yaml_node_t *later = lab->start_mark.index > nodes->start_mark.index ? lab : nodes;

		return yd_fail(
		    c->d, later, later == lab ? "lab" : "nodes",
		    "give either lab (the built-in lab's node-a, node-b, ...) or nodes (a "
		    "real cluster), not both");
	}
	if (!lab && !nodes)
		return yd_fail(c->d, root, "nodes",
			       "missing; give lab: {nodes: N, rails: R} for the built-in lab or "
			       "nodes: [{name: ..., agent: host:port}, ...] for a real cluster");
	if ((ret = lab ? parse_lab(c, lab) : parse_nodes(c, nodes)))
		return ret;

	sc->warmup_ms = 5000;
	sc->baseline_ms = 10000;
	if ((ss = yd_map_get(c->d, root, "steady_state")) && (ret = parse_steady(c, ss)))
		return ret;
	if (!(n = yd_map_get(c->d, root, "workload")))
		return missing(c, root, "", "workload",
			       "describe the traffic, e.g. workload: {kind: rdma_stream, from: "
			       "node-a, to: node-b}");
	if ((ret = parse_workload(c, n)))
		return ret;
	if ((ret = check_baseline(c, ss ? ss : root)))
		return ret;
	if (!(n = yd_map_get(c->d, root, "faults")))
		return missing(c, root, "", "faults", "list at least one fault to inject");
	if ((ret = parse_faults(c, n)))
		return ret;
	if (!(n = yd_map_get(c->d, root, "expect")))
		return missing(c, root, "", "expect",
			       "say what must hold: detection, recovery (isolation, integrity "
			       "optional)");
	if ((ret = parse_expect(c, n)))
		return ret;
	sc->safety.lease_ms = SC_DEFAULT_LEASE_MS;
	if ((n = yd_map_get(c->d, root, "safety")))
		return parse_safety(c, n);
	return 0;
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

int scenario_parse(const char *name, const char *text, size_t len, struct scenario *sc, char *err,
		   size_t errlen)
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
	if ((ret = yd_load(&d, &sc_kind, name, text, len, err, errlen)))
		return ret;
	if (!d.root) {
		snprintf(err, errlen,
			 "%s:1: the file holds no YAML; a scenario starts with name: ...", name);
		ret = -EINVAL;
	} else if ((ret = parse_root(&c, d.root)) == -ENOMEM) {
		snprintf(err, errlen, "%s: out of memory", name);
	}
	yd_free(&d);
	if (ret)
		scenario_free(sc);
	return ret;
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
