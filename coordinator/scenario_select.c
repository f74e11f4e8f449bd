// SPDX-License-Identifier: MIT
/*
 * The select: section of a scenario: names for nodes a drill picks from a fleet by their labels
 * (docs/FLEET.md, "Picking nodes by label"). Parsing checks the names and the matches; the
 * picking itself needs the fleet and happens at plan time (coordinator/select.c).
 *
 *   select:
 *     victim: {labels: {rack: r1}}              # one node (count: 1 is the default)
 *     peers: {labels: {rack: r2}, count: 25%}   # or a number, or all
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "coordinator/fleetfile.h"
#include "coordinator/scenario_parse.h"

static int sel_parse_count(struct pctx *c, yaml_node_t *n, const char *path, struct sc_select *s)
{
	char buf[32];
	uint64_t v;
	int ret;

	if ((ret = yd_get_text(c->d, n, path, buf, sizeof(buf))))
		return ret;
	if (!strcmp(buf, "all")) {
		s->pick = SC_PICK_ALL;
		return 0;
	}
	if (strchr(buf, '%') || strchr(buf, '.')) {
		s->pick = SC_PICK_SHARE;
		return scp_get_share(c, n, path, &s->share);
	}
	if (yd_get_uint(c->d, n, path, 1, FF_MAX_NODES, &v))
		return yd_fail(c->d, n, path,
			       "\"%s\" is not a count; use a number of nodes (1..%d), a share of "
			       "those that match (25%% or 0.25) or all",
			       buf, FF_MAX_NODES);
	s->pick = SC_PICK_COUNT;
	s->count = (unsigned int)v;
	return 0;
}

static int sel_parse_one(struct pctx *c, yaml_node_t *k, yaml_node_t *m, struct sc_select *s)
{
	static const char *const keys[] = {"labels", "count", NULL};
	char path[YD_PATH_LEN], kpath[YD_PATH_LEN];
	yaml_node_t *n;
	int st = 0;

	s->pick = SC_PICK_COUNT;
	s->count = 1;
	s->line = (int)yd_line(k);
	if (scp_keep(&st, yd_get_name(c->d, k, "select", s->name, sizeof(s->name),
				      "it stands for the picked node")))
		return st;
	yd_join(path, "select", s->name);
	if (scenario_node(c->sc, s->name))
		scp_keep(&st, yd_fail(c->d, k, path,
				      "is already the name of a node of this drill; a picked node "
				      "needs a name of its own (victim, peer, ...)"));
	if (yd_want_map(c->d, m, path))
		return -EINVAL;
	scp_keep(&st, yd_check_keys(c->d, m, path, keys));
	if (!(s->labels = json_object()))
		return -ENOMEM;
	yd_join(kpath, path, "labels");
	if (!(n = yd_map_get(c->d, m, "labels")))
		scp_keep(&st, scp_missing(c, m, path, "labels",
					  "say which nodes may be picked, e.g. labels: {rack: r1} "
					  "({} for any node)"));
	else
		scp_keep(&st, ff_parse_labels(c->d, n, kpath, s->labels));
	yd_join(kpath, path, "count");
	if ((n = yd_map_get(c->d, m, "count")))
		scp_keep(&st, sel_parse_count(c, n, kpath, s));
	return st;
}

int scp_parse_select(struct pctx *c, yaml_node_t *sel)
{
	struct scenario *sc = c->sc;
	yaml_node_pair_t *p;
	unsigned int i;
	int st = 0;

	if (yd_want_map(c->d, sel, "select")) {
		c->nodes_unknown = true; /* its names are unknown: checks against them are moot */
		return -EINVAL;
	}
	if (sel->data.mapping.pairs.top - sel->data.mapping.pairs.start > SC_MAX_SELECTS)
		scp_keep(&st, yd_fail(c->d, sel, "select",
				      "has %td entries; a drill may have at most %d",
				      sel->data.mapping.pairs.top - sel->data.mapping.pairs.start,
				      SC_MAX_SELECTS));
	for (p = sel->data.mapping.pairs.start;
	     p < sel->data.mapping.pairs.top && sc->nr_selects < SC_MAX_SELECTS; p++) {
		struct sc_select *s = &sc->selects[sc->nr_selects++];
		yaml_node_t *k = yd_node(c->d, p->key);

		if (scp_keep(&st, sel_parse_one(c, k, yd_node(c->d, p->value), s)) == -ENOMEM)
			return -ENOMEM;
		if (!s->name[0]) {
			c->nodes_unknown = true;
			continue;
		}
		for (i = 0; i + 1 < sc->nr_selects; i++)
			if (!strcmp(sc->selects[i].name, s->name))
				scp_keep(&st, yd_fail(c->d, k, "select", "\"%s\" is given twice",
						      s->name));
	}
	return st;
}
