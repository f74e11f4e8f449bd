// SPDX-License-Identifier: MIT
/* The fleet file's reader (coordinator/fleetfile.h): nodes, their agents, labels and rails. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coordinator/fleetfile.h"

static const struct yd_kind ff_kind = {
    /* ~200 bytes a node: 10000 nodes and their comments fit */
    .max_size = 8 * 1024 * 1024,
    .open_err = "cannot open",
    .read_err = "read error",
    .too_big = "is larger than 8 MiB; a fleet file of 10000 nodes needs about 2 MiB",
    .one_doc = "a fleet file",
    .noun = "a fleet file",
    .depth = 4,
    .dur_eg = "10s",
};

/* A label's key or value: what Kubernetes allows in a label value, plus '/' in keys. */
static int ff_get_label_word(struct yd_doc *d, const yaml_node_t *n, const char *path, char *buf,
			     bool key)
{
	const char *s;
	int ret = yd_get_text(d, n, path, buf, FF_LABEL_LEN);

	if (ret)
		return ret;
	if (!buf[0])
		return yd_fail(d, n, path, "is empty; a label's %s needs 1..%d characters",
			       key ? "key" : "value", FF_LABEL_LEN - 1);
	for (s = buf; *s; s++) {
		if ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		    (*s >= '0' && *s <= '9') || *s == '.' || *s == '_' || *s == '-' ||
		    (key && *s == '/'))
			continue;
		return yd_fail(d, n, path, "\"%s\" may hold only letters, digits, '.', '_', '-'%s",
			       buf, key ? " and '/'" : "");
	}
	return 0;
}

/* labels: a mapping of words to words (a number or true is taken as its text). */
int ff_parse_labels(struct yd_doc *d, yaml_node_t *m, const char *path, json_t *labels)
{
	char kpath[YD_PATH_LEN], key[FF_LABEL_LEN], val[FF_LABEL_LEN];
	yaml_node_pair_t *p;
	int st = 0, ret;

	if (yd_want_map(d, m, path))
		return -EINVAL;
	if (m->data.mapping.pairs.top - m->data.mapping.pairs.start > FF_MAX_LABELS)
		return yd_fail(d, m, path, "has %td labels; a node may have at most %d",
			       m->data.mapping.pairs.top - m->data.mapping.pairs.start,
			       FF_MAX_LABELS);
	for (p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yd_node(d, p->key), *v = yd_node(d, p->value);

		if (ff_get_label_word(d, k, path, key, true)) {
			st = -EINVAL;
			continue;
		}
		yd_join(kpath, path, key);
		if (json_object_get(labels, key)) {
			st = yd_fail(d, k, kpath, "is given twice");
			continue;
		}
		if ((ret = ff_get_label_word(d, v, kpath, val, false))) {
			st = ret;
			continue;
		}
		if (json_object_set_new(labels, key, json_string(val)))
			return -ENOMEM;
	}
	return st;
}

/* rails: the netdevs of the node's rails, in rail order. */
static int ff_parse_rails(struct yd_doc *d, yaml_node_t *seq, const char *path, struct ff_node *nd)
{
	char ipath[YD_PATH_LEN];
	unsigned int i, j;
	size_t nr;
	int st = 0;

	if (yd_want_seq(d, seq, path))
		return -EINVAL;
	nr = yd_seq_len(seq);
	if (!nr || nr > FF_MAX_RAILS)
		return yd_fail(d, seq, path, "lists %zu rails; give 1..%d netdevs, in rail order",
			       nr, FF_MAX_RAILS);
	for (i = 0; i < nr; i++) {
		yaml_node_t *e = yd_seq_item(d, seq, i);

		yd_join_idx(ipath, path, i);
		if (yd_get_name(d, e, ipath, nd->rails[i], sizeof(nd->rails[i]),
				"a netdev's name, at most 15 characters")) {
			st = -EINVAL;
			continue;
		}
		for (j = 0; j < i; j++)
			if (!strcmp(nd->rails[j], nd->rails[i]))
				st = yd_fail(d, e, ipath, "\"%s\" is already rail %u", nd->rails[i],
					     j);
	}
	nd->nr_rails = (unsigned int)nr;
	return st;
}

/*
 * The agent an address reaches, as a key: the host in lower case and the port as a number, so
 * that gpu1:7707, GPU1:7707 and gpu1:07707 are one agent (yd_check_agent_addr checked the form).
 */
static void ff_agent_key(const char *agent, char *key, size_t len)
{
	const char *colon = strrchr(agent, ':');
	size_t i, host = colon ? (size_t)(colon - agent) : strlen(agent);

	for (i = 0; i < host && i + 1 < len; i++)
		key[i] = (char)tolower((unsigned char)agent[i]);
	key[i] = '\0';
	if (colon)
		snprintf(key + i, len - i, ":%lu", strtoul(colon + 1, NULL, 10));
}

/* One node; seen maps the names and agents so far to their index, for "already" refusals. */
static int ff_parse_node(struct yd_doc *d, yaml_node_t *e, const char *path, struct ff_node *nd,
			 json_t *names, json_t *agents)
{
	static const char *const keys[] = {"name", "agent", "labels", "rails", NULL};
	char kpath[YD_PATH_LEN], key[FF_AGENT_LEN + 8];
	yaml_node_t *n;
	json_t *seen;
	int st = 0, ret;

	if (yd_want_map(d, e, path))
		return -EINVAL;
	if (yd_check_keys(d, e, path, keys))
		st = -EINVAL;
	yd_join(kpath, path, "name");
	if (!(n = yd_map_get(d, e, "name"))) {
		st = yd_fail(d, e, kpath, "missing; every node needs a name (its agent's --name)");
	} else if (yd_get_name(d, n, kpath, nd->name, sizeof(nd->name), "it names the node")) {
		st = -EINVAL;
	} else if ((seen = json_object_get(names, nd->name))) {
		st = yd_fail(d, n, kpath,
			     "\"%s\" is already nodes[%" JSON_INTEGER_FORMAT "]; names are unique",
			     nd->name, json_integer_value(seen));
	}
	yd_join(kpath, path, "agent");
	if (!(n = yd_map_get(d, e, "agent"))) {
		st = yd_fail(d, e, kpath,
			     "missing; where the node's agent listens, host:port, e.g. gpu01:7707");
	} else if (yd_get_text(d, n, kpath, nd->agent, sizeof(nd->agent)) ||
		   yd_check_agent_addr(d, n, kpath, nd->agent)) {
		st = -EINVAL;
	} else {
		ff_agent_key(nd->agent, key, sizeof(key));
		if ((seen = json_object_get(agents, key)))
			st = yd_fail(d, n, kpath,
				     "\"%s\" is already the agent of nodes[%" JSON_INTEGER_FORMAT
				     "]; one agent per node",
				     nd->agent, json_integer_value(seen));
	}
	nd->labels = json_object();
	if (!nd->labels)
		return -ENOMEM;
	yd_join(kpath, path, "labels");
	if ((n = yd_map_get(d, e, "labels")) && !yd_is_null(n) &&
	    (ret = ff_parse_labels(d, n, kpath, nd->labels)))
		st = ret;
	yd_join(kpath, path, "rails");
	if ((n = yd_map_get(d, e, "rails")) && (ret = ff_parse_rails(d, n, kpath, nd)))
		st = ret;
	return st;
}

static int ff_parse(struct yd_doc *d, struct fleetfile *ff)
{
	static const char *const keys[] = {"nodes", NULL};
	json_t *names = json_object(), *agents = json_object();
	char path[YD_PATH_LEN], key[FF_AGENT_LEN + 8];
	yaml_node_t *seq;
	size_t i, nr;
	int st = 0, ret = -ENOMEM;

	if (!names || !agents)
		goto out;
	ret = -EINVAL;
	if (!d->root) {
		yd_fail(d, NULL, "",
			"holds no document; a fleet file lists its nodes under nodes:");
		goto out;
	}
	if (yd_want_map(d, d->root, ""))
		goto out;
	if (yd_check_keys(d, d->root, "", keys))
		st = -EINVAL;
	if (!(seq = yd_map_get(d, d->root, "nodes"))) {
		yd_fail(d, d->root, "nodes", "missing; list the fleet's nodes");
		goto out;
	}
	if (yd_want_seq(d, seq, "nodes"))
		goto out;
	nr = yd_seq_len(seq);
	if (!nr || nr > FF_MAX_NODES) {
		yd_fail(d, seq, "nodes", "lists %zu nodes; a fleet file holds 1..%d", nr,
			FF_MAX_NODES);
		goto out;
	}
	ret = -ENOMEM;
	ff->nodes = calloc(nr, sizeof(*ff->nodes));
	if (!ff->nodes)
		goto out;
	ff->nr_nodes = (unsigned int)nr;
	for (i = 0; i < nr; i++) {
		struct ff_node *nd = &ff->nodes[i];
		int r;

		yd_join_idx(path, "nodes", i);
		r = ff_parse_node(d, yd_seq_item(d, seq, i), path, nd, names, agents);
		if (r == -ENOMEM)
			goto out;
		if (r)
			st = r;
		/* the first of two same names or agents is the one "already" points at */
		ff_agent_key(nd->agent, key, sizeof(key));
		if ((nd->name[0] && !json_object_get(names, nd->name) &&
		     json_object_set_new(names, nd->name, json_integer((json_int_t)i))) ||
		    (nd->agent[0] && !json_object_get(agents, key) &&
		     json_object_set_new(agents, key, json_integer((json_int_t)i))))
			goto out;
	}
	ret = st;
out:
	json_decref(names);
	json_decref(agents);
	return ret;
}

int ff_load_text(const char *file, const char *text, size_t len, struct fleetfile *ff,
		 struct yd_diags *diags, char *err, size_t errlen)
{
	struct yd_doc d;
	int ret;

	memset(ff, 0, sizeof(*ff));
	ret = yd_load_diags(&d, &ff_kind, file, text, len, err, errlen, diags);
	if (ret)
		return ret;
	ret = ff_parse(&d, ff);
	yd_free(&d);
	if (ret)
		ff_free(ff);
	return ret;
}

int ff_load(const char *path, struct fleetfile *ff, struct yd_diags *diags, char *err,
	    size_t errlen)
{
	char *buf;
	size_t len;
	int ret;

	memset(ff, 0, sizeof(*ff));
	ret = yd_read_file(&ff_kind, path, &buf, &len, err, errlen);
	if (ret) {
		if (diags)
			yd_diags_add(diags, YD_ERROR, 0, 0, "", err, 0);
		return ret;
	}
	ret = ff_load_text(path, buf, len, ff, diags, err, errlen);
	free(buf);
	return ret;
}

void ff_free(struct fleetfile *ff)
{
	unsigned int i;

	for (i = 0; ff->nodes && i < ff->nr_nodes; i++)
		json_decref(ff->nodes[i].labels);
	free(ff->nodes);
	ff->nodes = NULL;
	ff->nr_nodes = 0;
}

void ff_labels_text(const json_t *labels, char *buf, size_t len)
{
	const char *k;
	json_t *v;
	size_t off = 0;

	buf[0] = '\0';
	json_object_foreach((json_t *)labels, k, v) {
		int w = snprintf(buf + off, len - off, "%s%s=%s", off ? "," : "", k,
				 json_string_value(v) ?: "");

		/* snprintf wrote what fit: a cut label would name another rack or switch */
		if (w < 0 || (size_t)w >= len - off) {
			buf[off] = '\0';
			break;
		}
		off += (size_t)w;
	}
}
