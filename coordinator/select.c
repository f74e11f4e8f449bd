// SPDX-License-Identifier: MIT
/* Binding a drill's select: to a fleet (coordinator/select.h). */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/yamldoc.h"
#include "coordinator/labenv.h"
#include "coordinator/select.h"

/* splitmix64: a draw that only the seed and the name decide, on every host */
static uint64_t sel_next(uint64_t *state)
{
	uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

static uint64_t sel_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a */

	while (*s)
		h = (h ^ (unsigned char)*s++) * 0x100000001b3ULL;
	return h;
}

static bool sel_matches(const json_t *want, const json_t *have)
{
	const char *k;
	json_t *v;

	json_object_foreach((json_t *)want, k, v) {
		json_t *h = json_object_get(have, k);

		if (!h || strcmp(json_string_value(h), json_string_value(v)))
			return false;
	}
	return true;
}

static void sel_labels_text(const json_t *labels, char *buf, size_t len)
{
	ff_labels_text(labels, buf, len);
	if (!buf[0])
		snprintf(buf, len, "any labels");
}

static int sel_cmp_node(const void *a, const void *b)
{
	const struct ff_node *const *x = a, *const *y = b;

	return strcmp((*x)->name, (*y)->name);
}

/* The nodes a lab drill may pick are its own; a fleet drill's, the whole fleet. */
static bool sel_eligible(const struct scenario *sc, const struct ff_node *n)
{
	return !sc->lab || scenario_node(sc, n->name);
}

static int sel_pick(struct scenario *sc, struct sc_select *s, const struct fleetfile *ff,
		    const char *fleet_file, bool *taken, uint64_t seed, char *err, size_t errlen)
{
	const struct ff_node **cand;
	unsigned int i, n = 0, want = 0, was_taken = 0;
	uint64_t state = seed ^ sel_hash(s->name);
	char labels[256];
	int ret = 0;

	sel_labels_text(s->labels, labels, sizeof(labels));
	cand = calloc(ff->nr_nodes ?: 1, sizeof(*cand));
	if (!(s->picked = json_array()) || !cand) {
		free(cand);
		snprintf(err, errlen, "%s: out of memory", sc->file);
		return -ENOMEM;
	}
	s->matched = 0;
	for (i = 0; i < ff->nr_nodes; i++) {
		if (!sel_eligible(sc, &ff->nodes[i]) ||
		    !sel_matches(s->labels, ff->nodes[i].labels))
			continue;
		s->matched++;
		if (taken[i])
			was_taken++;
		else
			cand[n++] = &ff->nodes[i];
	}
	if (s->pick == SC_PICK_COUNT)
		want = s->count;
	else if (s->pick == SC_PICK_SHARE)
		want = (unsigned int)ceil(s->share * s->matched - 1e-9) ?: 1;
	else
		want = n ?: 1;
	if (n < want) {
		char taken_by[64] = "";

		if (was_taken)
			snprintf(taken_by, sizeof(taken_by),
				 ", %u of them picked already by an earlier name", was_taken);
		snprintf(err, errlen,
			 "%s:%d: select.%s: wants %u node%s with %s; %s has %u that match%s "
			 "(of %u%s)",
			 sc->file, s->line, s->name, want, want == 1 ? "" : "s", labels, fleet_file,
			 s->matched, taken_by, sc->lab ? sc->nr_nodes : ff->nr_nodes,
			 sc->lab ? " lab nodes" : " nodes");
		ret = -EINVAL;
		goto out;
	}
	/* in name order, so that the file's order does not change what a seed picks */
	qsort(cand, n, sizeof(*cand), sel_cmp_node);
	for (i = 0; i < want; i++) {
		unsigned int j = i + (unsigned int)(sel_next(&state) % (n - i));
		const struct ff_node *t = cand[j];

		cand[j] = cand[i];
		cand[i] = t;
		taken[t - ff->nodes] = true;
		if (json_array_append_new(s->picked, json_string(t->name))) {
			ret = -ENOMEM;
			snprintf(err, errlen, "%s: out of memory", sc->file);
			goto out;
		}
	}
out:
	free(cand);
	return ret;
}

/* A lab drill has its nodes; a fleet drill gains the picked ones, with their agents. */
static int sel_add_nodes(struct scenario *sc, const struct fleetfile *ff, char *err, size_t errlen)
{
	unsigned int i, j, k;
	struct sc_node *nodes;

	if (sc->lab)
		return 0;
	for (i = 0; i < sc->nr_selects; i++) {
		for (j = 0; j < json_array_size(sc->selects[i].picked); j++) {
			const char *name =
			    json_string_value(json_array_get(sc->selects[i].picked, j));

			if (scenario_node(sc, name))
				continue;
			for (k = 0; k < ff->nr_nodes && strcmp(ff->nodes[k].name, name); k++)
				;
			if (k == ff->nr_nodes || sc->nr_nodes >= SC_MAX_NODES) {
				snprintf(err, errlen, "%s: select: a drill drives at most %d nodes",
					 sc->file, SC_MAX_NODES);
				return -EINVAL;
			}
			nodes = realloc(sc->nodes, (sc->nr_nodes + 1) * sizeof(*nodes));
			if (!nodes) {
				snprintf(err, errlen, "%s: out of memory", sc->file);
				return -ENOMEM;
			}
			sc->nodes = nodes;
			memset(&nodes[sc->nr_nodes], 0, sizeof(*nodes));
			snprintf(nodes[sc->nr_nodes].name, sizeof(nodes->name), "%s", name);
			snprintf(nodes[sc->nr_nodes].agent, sizeof(nodes->agent), "%s",
				 ff->nodes[k].agent);
			sc->nr_nodes++;
		}
	}
	return 0;
}

/* A place that names one node: a picked name there must have picked exactly one. */
static int sel_one(const struct scenario *sc, char *node, size_t len, const char *where, char *err,
		   size_t errlen)
{
	const struct sc_select *s = node[0] ? scenario_select(sc, node) : NULL;

	if (!s)
		return 0;
	if (json_array_size(s->picked) != 1) {
		snprintf(err, errlen,
			 "%s:%d: select.%s: picked %zu nodes, but %s names it and needs one; give "
			 "it count: 1",
			 sc->file, s->line, s->name, json_array_size(s->picked), where);
		return -EINVAL;
	}
	snprintf(node, len, "%s", json_string_value(json_array_get(s->picked, 0)));
	return 0;
}

static int sel_workload(const struct scenario *sc, struct sc_workload *w, const char *path,
			char *err, size_t errlen)
{
	char where[96];
	struct sc_job *j = w->job;
	unsigned int i;
	int ret;

	snprintf(where, sizeof(where), "%s.from", path);
	if ((ret = sel_one(sc, w->from, sizeof(w->from), where, err, errlen)))
		return ret;
	snprintf(where, sizeof(where), "%s.to", path);
	if ((ret = sel_one(sc, w->to, sizeof(w->to), where, err, errlen)))
		return ret;
	if (!j)
		return 0;
	for (i = 0; i < j->nr_ranks; i++) {
		snprintf(where, sizeof(where), "%s.ranks[%u].node", path, i);
		if ((ret = sel_one(sc, j->ranks[i].node, sizeof(j->ranks[i].node), where, err,
				   errlen)))
			return ret;
	}
	for (i = 0; i < j->nr_nodes; i++) {
		snprintf(where, sizeof(where), "%s.nodes[%u]", path, i);
		if ((ret = sel_one(sc, j->nodes[i], sizeof(j->nodes[i]), where, err, errlen)))
			return ret;
	}
	snprintf(where, sizeof(where), "%s.throughput.node", path);
	return sel_one(sc, j->tp_node, sizeof(j->tp_node), where, err, errlen);
}

/*
 * A copy's name, NAME@NODE, is its fault_id on the node's agent (at most SC_NAME_LEN - 1
 * characters): one cut short could name another copy's fault, so a name too long is refused.
 */
static int sel_copy_name(const struct scenario *sc, const struct sc_fault *f, unsigned int i,
			 struct sc_fault *t, char *err, size_t errlen)
{
	int room = SC_NAME_LEN - 2 - (int)strlen(t->target.node);
	char nm[2 * SC_NAME_LEN];
	size_t len = (size_t)snprintf(nm, sizeof(nm), "%s@%s", f->name, t->target.node);

	if (len < sizeof(t->name)) {
		memcpy(t->name, nm, len + 1);
		return 0;
	}
	if (room > 0)
		snprintf(err, errlen,
			 "%s:%d: faults[%u].name: its copy on %s, %s, is longer than the %d "
			 "characters a fault's name may have; shorten the name to at most %d",
			 sc->file, f->line, i, t->target.node, nm, SC_NAME_LEN - 1, room);
	else
		snprintf(err, errlen,
			 "%s:%d: faults[%u].name: its copy on %s is named NAME@%s, which leaves "
			 "no room for NAME in the %d characters a fault's name may have; give the "
			 "node a shorter name",
			 sc->file, f->line, i, t->target.node, t->target.node, SC_NAME_LEN - 1);
	return -EINVAL;
}

/* A fault on a name that picked several nodes becomes one fault per node, NAME@NODE. */
static int sel_faults(struct scenario *sc, char *err, size_t errlen)
{
	bool dup[SC_MAX_FAULTS] = {false};
	struct sc_fault *out;
	unsigned int i, k, n = 0;

	out = calloc(SC_MAX_FAULTS, sizeof(*out));
	if (!out) {
		snprintf(err, errlen, "%s: out of memory", sc->file);
		return -ENOMEM;
	}
	for (i = 0; i < sc->nr_faults; i++) {
		struct sc_fault *f = &sc->faults[i];
		const struct sc_select *s = scenario_select(sc, f->target.node);
		size_t picks = s ? json_array_size(s->picked) : 1;

		for (k = 0; k < picks; k++) {
			struct sc_fault *t;

			if (n == SC_MAX_FAULTS) {
				/* s is NULL for a fault on one node pushed out by earlier copies */
				if (s)
					snprintf(
					    err, errlen,
					    "%s:%d: faults[%u]: select.%s picked %zu nodes, one "
					    "fault each: more than the %d faults a drill holds",
					    sc->file, f->line, i, s->name, picks, SC_MAX_FAULTS);
				else
					snprintf(
					    err, errlen,
					    "%s:%d: faults[%u]: more than the %d faults a drill "
					    "holds, once each fault on a name that picked several "
					    "nodes runs once a node",
					    sc->file, f->line, i, SC_MAX_FAULTS);
				free(out);
				return -EINVAL;
			}
			t = &out[n++];
			*t = *f;
			if (!s)
				continue;
			snprintf(t->target.node, sizeof(t->target.node), "%s",
				 json_string_value(json_array_get(s->picked, k)));
			if (picks > 1 && sel_copy_name(sc, f, i, t, err, errlen)) {
				free(out);
				return -EINVAL;
			}
			dup[n - 1] = k > 0;
		}
	}
	/* each copy owns a reference: scenario_free() drops one per fault */
	for (i = 0; i < n; i++)
		if (dup[i])
			json_incref(out[i].params);
	memcpy(sc->faults, out, n * sizeof(*out));
	for (i = n; i < SC_MAX_FAULTS; i++)
		memset(&sc->faults[i], 0, sizeof(sc->faults[i]));
	sc->nr_faults = n;
	free(out);
	return 0;
}

/* scheduler.nodes maps drill nodes to Slurm's names: a picked name maps its node. */
static int sel_sched_nodes(struct scenario *sc, char *err, size_t errlen)
{
	json_t *m = sc->scheduler.nodes, *v, *out;
	const char *k;
	int ret = 0;

	if (!m)
		return 0;
	if (!(out = json_object()))
		return -ENOMEM;
	json_object_foreach(m, k, v) {
		char node[SC_NAME_LEN];

		snprintf(node, sizeof(node), "%s", k);
		if ((ret = sel_one(sc, node, sizeof(node), "scheduler.slurm.nodes", err, errlen)))
			break;
		if (json_object_set(out, node, v)) {
			ret = -ENOMEM;
			break;
		}
	}
	if (ret) {
		json_decref(out);
		return ret;
	}
	json_decref(m);
	sc->scheduler.nodes = out;
	return 0;
}

int sel_bind(struct scenario *sc, const struct fleetfile *ff, const char *fleet_file, uint64_t seed,
	     char *err, size_t errlen)
{
	bool *taken;
	unsigned int i;
	int ret = 0;

	if (!sc->nr_selects)
		return 0;
	if (!(taken = calloc(ff->nr_nodes ?: 1, sizeof(*taken)))) {
		snprintf(err, errlen, "%s: out of memory", sc->file);
		return -ENOMEM;
	}
	for (i = 0; i < sc->nr_selects && !ret; i++)
		ret = sel_pick(sc, &sc->selects[i], ff, fleet_file, taken, seed, err, errlen);
	free(taken);
	if (ret || (ret = sel_add_nodes(sc, ff, err, errlen)) ||
	    (ret = sel_workload(sc, &sc->workload, "workload", err, errlen)))
		return ret;
	for (i = 0; i < sc->safety.nr_guards; i++) {
		char path[48];

		snprintf(path, sizeof(path), "safety.guards[%u].flow", i);
		if (sc->safety.guards[i].has_flow &&
		    (ret = sel_workload(sc, &sc->safety.guards[i].flow, path, err, errlen)))
			return ret;
	}
	if ((ret = sel_sched_nodes(sc, err, errlen)) || (ret = sel_faults(sc, err, errlen)))
		return ret;
	snprintf(sc->fleet_file, sizeof(sc->fleet_file), "%s", fleet_file);
	sc->fleet_size = sc->lab ? sc->nr_nodes : ff->nr_nodes;
	return 0;
}

int sel_bind_from(struct scenario *sc, const char *fleet_path, uint64_t seed, char *err,
		  size_t errlen)
{
	struct fleetfile ff = {0};
	char path[4096] = "", name[4200];
	json_t *lab = NULL;
	int ret;

	if (!sc->nr_selects)
		return 0;
	if (fleet_path) {
		snprintf(path, sizeof(path), "%s", fleet_path);
	} else if (!sc->lab) {
		snprintf(err, errlen,
			 "%s: select: picks nodes from a fleet; give --fleet FILE (docs/FLEET.md)",
			 sc->file);
		return -ENOENT;
	} else if (!labenv_load(&lab)) {
		snprintf(path, sizeof(path), "%s",
			 json_string_value(json_object_get(lab, "fleet")) ?: "");
		json_decref(lab);
	}
	if (path[0]) {
		ret = ff_load(path, &ff, NULL, err, errlen);
		snprintf(name, sizeof(name), "%s", path);
	} else {
		ret = labenv_fleet(sc->lab_nodes, &ff);
		snprintf(name, sizeof(name), "the lab's fleet");
		if (ret)
			snprintf(err, errlen, "%s: out of memory", sc->file);
	}
	if (!ret)
		ret = sel_bind(sc, &ff, name, seed, err, errlen);
	ff_free(&ff);
	return ret;
}

void sel_print(FILE *f, const struct scenario *sc, const char *indent)
{
	unsigned int i, j;

	for (i = 0; i < sc->nr_selects; i++) {
		const struct sc_select *s = &sc->selects[i];
		char labels[256];

		sel_labels_text(s->labels, labels, sizeof(labels));
		fprintf(f, "%s%s = ", indent, s->name);
		for (j = 0; j < json_array_size(s->picked); j++)
			fprintf(f, "%s%s", j ? ", " : "",
				json_string_value(json_array_get(s->picked, j)));
		if (!s->picked)
			fprintf(f, "(not picked yet)");
		fprintf(f, " (%s; %zu of %u that match)\n", labels, json_array_size(s->picked),
			s->matched);
	}
}
