// SPDX-License-Identifier: MIT
/* Nesting, anchor and alias limits on a YAML text, checked before it is loaded. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "common/yaml_guard.h"

struct yg_anchor {
	char *name;
	uint64_t nodes; /* the anchored node's size with aliases expanded */
	size_t line;
	bool open; /* its collection has not ended yet */
};

struct yg {
	struct yg_anchor anchors[YG_MAX_ANCHORS];
	unsigned int nr_anchors, nr_aliases, depth;
	uint64_t nodes[YG_MAX_DEPTH + 1]; /* per open collection, the root's parent at 0 */
	int anchor_of[YG_MAX_DEPTH + 1];  /* the open collection's anchor, or -1 */
};

/* Latest definition wins, as in YAML. */
static struct yg_anchor *yg_find(struct yg *g, const char *name)
{
	unsigned int i;

	for (i = g->nr_anchors; i-- > 0;)
		if (!strcmp(g->anchors[i].name, name))
			return &g->anchors[i];
	return NULL;
}

static int yg_anchor(struct yg *g, const yaml_char_t *name, size_t line, bool open, uint64_t nodes)
{
	struct yg_anchor *a;

	if (g->nr_anchors == YG_MAX_ANCHORS)
		return -E2BIG;
	a = &g->anchors[g->nr_anchors];
	a->name = strdup((const char *)name);
	if (!a->name)
		return -ENOMEM;
	a->nodes = nodes;
	a->line = line;
	a->open = open;
	return (int)g->nr_anchors++;
}

/* Adds a node of n nodes to the open collection; false when the document gets too big. */
static bool yg_add(struct yg *g, uint64_t n)
{
	g->nodes[g->depth] += n;
	if (g->nodes[g->depth] > YG_MAX_NODES)
		g->nodes[g->depth] = YG_MAX_NODES + 1; /* saturates */
	return g->nodes[g->depth] <= YG_MAX_NODES;
}

/* The sentence for a limit the document went past, at line (the others have theirs). */
static void yg_explain(int ret, const char *name, size_t line, const char *noun, unsigned int depth,
		       char *err, size_t errlen)
{
	switch (ret) {
	case -ELOOP:
		snprintf(err, errlen,
			 "%s:%zu: nested more than %d levels deep; %s needs at most %u", name, line,
			 YG_MAX_DEPTH, noun, depth);
		break;
	case -E2BIG:
		snprintf(err, errlen, "%s:%zu: more than %d anchors (&name); %s needs a few", name,
			 line, YG_MAX_ANCHORS, noun);
		break;
	case -EMLINK:
		snprintf(err, errlen, "%s:%zu: more than %d aliases (*name); %s needs a few", name,
			 line, YG_MAX_ALIASES, noun);
		break;
	case -EFBIG:
		snprintf(err, errlen,
			 "%s:%zu: with its aliases expanded the document would hold more than %d "
			 "nodes (a \"billion laughs\"?); %s holds a few hundred",
			 name, line, YG_MAX_NODES, noun);
		break;
	}
}

int yaml_guard(const char *name, const char *text, size_t len, const char *noun, unsigned int depth,
	       char *err, size_t errlen)
{
	struct yg *g = calloc(1, sizeof(*g));
	yaml_parser_t p;
	yaml_event_t ev;
	struct yg_anchor *a;
	const yaml_char_t *anchor;
	size_t line = 1;
	bool done = false;
	int ret = 0, idx;
	unsigned int i;

	if (!g)
		return -ENOMEM;
	if (!yaml_parser_initialize(&p)) {
		free(g);
		return -ENOMEM;
	}
	yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
	while (!done && !ret) {
		if (!yaml_parser_parse(&p, &ev))
			break; /* not YAML: loading it says why */
		line = ev.start_mark.line + 1;
		anchor = NULL;
		switch (ev.type) {
		case YAML_STREAM_END_EVENT:
			done = true;
			break;
		case YAML_SCALAR_EVENT:
			anchor = ev.data.scalar.anchor;
			if (anchor && (ret = yg_anchor(g, anchor, line, false, 1)) >= 0)
				ret = 0;
			if (!ret && !yg_add(g, 1))
				ret = -EFBIG;
			break;
		case YAML_SEQUENCE_START_EVENT:
		case YAML_MAPPING_START_EVENT:
			anchor = ev.type == YAML_SEQUENCE_START_EVENT
				     ? ev.data.sequence_start.anchor
				     : ev.data.mapping_start.anchor;
			if (g->depth == YG_MAX_DEPTH) {
				ret = -ELOOP;
				break;
			}
			idx = anchor ? yg_anchor(g, anchor, line, true, 0) : -1;
			if (idx < -1) {
				ret = idx;
				break;
			}
			g->depth++;
			g->nodes[g->depth] = 1;
			g->anchor_of[g->depth] = idx;
			break;
		case YAML_SEQUENCE_END_EVENT:
		case YAML_MAPPING_END_EVENT:
			if (!g->depth)
				break;
			if ((idx = g->anchor_of[g->depth]) >= 0) {
				g->anchors[idx].nodes = g->nodes[g->depth];
				g->anchors[idx].open = false;
			}
			g->depth--;
			if (!yg_add(g, g->nodes[g->depth + 1]))
				ret = -EFBIG;
			break;
		case YAML_ALIAS_EVENT:
			a = yg_find(g, (const char *)ev.data.alias.anchor);
			if (!a) {
				done = true; /* undefined: loading it says so */
				break;
			}
			if (++g->nr_aliases > YG_MAX_ALIASES) {
				ret = -EMLINK;
				break;
			}
			if (a->open) {
				snprintf(err, errlen,
					 "%s:%zu: alias *%s is inside the node it names (&%s on "
					 "line %zu); a YAML node cannot contain itself",
					 name, line, a->name, a->name, a->line);
				ret = -EINVAL;
				break;
			}
			if (!yg_add(g, a->nodes))
				ret = -EFBIG;
			break;
		default:
			break;
		}
		yaml_event_delete(&ev);
	}

	yg_explain(ret, name, line, noun, depth, err, errlen);
	if (ret && ret != -ENOMEM)
		ret = -EINVAL;
	for (i = 0; i < g->nr_anchors; i++)
		free(g->anchors[i].name);
	free(g);
	yaml_parser_delete(&p);
	return ret;
}
