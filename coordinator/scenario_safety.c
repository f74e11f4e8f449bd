// SPDX-License-Identifier: MIT
/* The safety: (lease, blast radius, guards) and monitoring: sections of a scenario. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/units.h"
#include "coordinator/scenario_parse.h"

/* "50%" or 0.5: a share in (0, 1]. */
int scp_get_share(struct pctx *c, const yaml_node_t *n, const char *path, double *v)
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
			       "\"%s\" is not a share; use a fraction above 0 and at most 1 (0.25) "
			       "or a percentage (25%%)",
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
	scp_keep(&st, yd_check_keys(c->d, m, path, keys));
	s->line = (int)yd_line(m);
	s->col = (int)yd_col(m);
	if ((n = yd_map_get(c->d, m, "max_nodes")) &&
	    !scp_keep(&st,
		      yd_get_uint(c->d, n, "safety.blast_radius.max_nodes", 1, SC_MAX_NODES, &v)))
		s->max_nodes = (unsigned int)v;
	if ((n = yd_map_get(c->d, m, "max_rails")) &&
	    !scp_keep(&st, yd_get_uint(c->d, n, "safety.blast_radius.max_rails", 1, 1000000, &v)))
		s->max_rails = (unsigned int)v;
	if ((n = yd_map_get(c->d, m, "max_fleet_share")) &&
	    !scp_keep(&st, scp_get_share(c, n, "safety.blast_radius.max_fleet_share", &share)))
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
	g->flow.job = NULL; /* beside a job, a guard's flow is a stream of its own */
	strcpy(g->flow.kind, "rdma_stream");
	g->flow.port = (uint16_t)(main_wl->port + 1 + idx);
	if ((ret = scp_parse_workload_map(c, n, path, &g->flow)))
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
		return scp_missing(c, m, path, "kind", "use throughput or tcp_probe");
	yd_join(kpath, path, "kind");
	if (yd_get_text(c->d, n, kpath, kind, sizeof(kind)))
		return -EINVAL;
	if (!strcmp(kind, "throughput")) {
		g->kind = SC_GUARD_THROUGHPUT;
		scp_keep(&st, yd_check_keys(c->d, m, path, tp_keys));
		yd_join(kpath, path, "min_ratio");
		if (!(n = yd_map_get(c->d, m, "min_ratio")))
			scp_keep(&st,
				 scp_missing(c, m, path, "min_ratio",
					     "the floor as a fraction of the baseline, e.g. 0.1"));
		else if (scp_keep(&st, scp_get_double(c, n, kpath, &r)))
			;
		else if (!(r > 0 && r < 1))
			scp_keep(&st, yd_fail(c->d, n, kpath,
					      "%s is out of range; use a fraction of the baseline "
					      "above 0 and below 1, e.g. 0.1",
					      yd_scalar(n)));
		else
			g->min_ratio = r;
		g->for_ms = 5000;
		yd_join(kpath, path, "for");
		if ((n = yd_map_get(c->d, m, "for")) &&
		    !scp_keep(&st, scp_get_duration_pos(c, n, kpath, &v)))
			g->for_ms = v;
		if ((n = yd_map_get(c->d, m, "flow")))
			scp_keep(&st, parse_guard_flow(c, n, path, idx, g));
		return st;
	}
	if (!strcmp(kind, "tcp_probe")) {
		g->kind = SC_GUARD_TCP_PROBE;
		scp_keep(&st, yd_check_keys(c->d, m, path, probe_keys));
		yd_join(kpath, path, "address");
		if (!(n = yd_map_get(c->d, m, "address")))
			scp_keep(&st, scp_missing(c, m, path, "address",
						  "what must stay reachable, e.g. address: "
						  "scheduler.example:443"));
		else if (!scp_keep(&st,
				   yd_get_text(c->d, n, kpath, g->address, sizeof(g->address))))
			scp_keep(&st, scp_check_agent(c, n, kpath, g->address));
		g->every_ms = 1000;
		yd_join(kpath, path, "every");
		if ((n = yd_map_get(c->d, m, "every")) &&
		    !scp_keep(&st, scp_get_duration_pos(c, n, kpath, &v))) {
			if (v < 100)
				scp_keep(&st, yd_fail(c->d, n, kpath, "probe at most every 100ms"));
			else
				g->every_ms = v;
		}
		g->failures = 3;
		yd_join(kpath, path, "failures");
		if ((n = yd_map_get(c->d, m, "failures")) &&
		    !scp_keep(&st, yd_get_uint(c->d, n, kpath, 1, 1000, &v)))
			g->failures = (unsigned int)v;
		return st;
	}
	return yd_fail(c->d, n, kpath, "\"%s\" is not a guard; use throughput or tcp_probe", kind);
}

int scp_parse_safety(struct pctx *c, yaml_node_t *m)
{
	static const char *const keys[] = {"lease", "blast_radius", "guards", NULL};
	struct sc_safety *s = &c->sc->safety;
	yaml_node_t *n;
	unsigned int i, nr;
	uint64_t v;
	int st = 0;

	if (yd_want_map(c->d, m, "safety"))
		return -EINVAL;
	scp_keep(&st, yd_check_keys(c->d, m, "safety", keys));
	if ((n = yd_map_get(c->d, m, "lease")) &&
	    !scp_keep(&st, scp_get_duration_pos(c, n, "safety.lease", &v))) {
		if (v < 1000 || v > 3600000)
			scp_keep(&st, yd_fail(c->d, n, "safety.lease",
					      "%s is out of range; use 1s..1h (agents check leases "
					      "to the second)",
					      yd_scalar(n)));
		else
			s->lease_ms = v;
	}
	if ((n = yd_map_get(c->d, m, "blast_radius")))
		scp_keep(&st, parse_blast_radius(c, n, s));
	if (!(n = yd_map_get(c->d, m, "guards")))
		return st;
	if (scp_keep(&st, yd_want_seq(c->d, n, "safety.guards")))
		return st;
	nr = (unsigned int)yd_seq_len(n);
	if (nr > SC_MAX_GUARDS) {
		scp_keep(&st, yd_fail(c->d, n, "safety.guards", "lists %u guards; at most %d", nr,
				      SC_MAX_GUARDS));
		nr = SC_MAX_GUARDS; /* the first ones are still checked */
	}
	for (i = 0; i < nr; i++) {
		yaml_node_t *gm = yd_seq_item(c->d, n, i);
		unsigned int j;

		s->nr_guards = i + 1;
		if (scp_keep(&st, parse_guard(c, gm, i, &s->guards[i])))
			continue;
		for (j = 0; s->guards[i].has_flow && j < i; j++) {
			const struct sc_workload *a = &s->guards[j].flow, *b = &s->guards[i].flow;
			char path[YD_PATH_LEN];

			if (!s->guards[j].has_flow || a->port != b->port || strcmp(a->to, b->to))
				continue;
			yd_join_idx(path, "safety.guards", i);
			scp_keep(&st, yd_fail(c->d, gm, path,
					      "its flow and guard %u's both listen on %s port %u; "
					      "give one flow another port",
					      j, b->to, b->port));
			break;
		}
	}
	return st;
}

/* monitoring: lab | {receiver: "ADDR:PORT", token_file: FILE} */
int scp_parse_monitoring(struct pctx *c, yaml_node_t *n)
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
		return scp_missing(
		    c, n, "monitoring", "receiver",
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
