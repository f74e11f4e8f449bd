// SPDX-License-Identifier: MIT
/* A fault's params, read as its injector declares them (injectors/injector.h) and checked by its
 * own validate(). */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/units.h"
#include "coordinator/scenario_parse.h"

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
			scp_keep(&st, yd_fail(c->d, k, path, "keys must be plain words"));
			continue;
		}
		key = yd_scalar(k);
		yd_join(kpath, path, key);
		first = yd_map_get(c->d, pm, key);
		if (first && first != yd_node(c->d, p->value)) {
			scp_keep(&st, yd_fail(c->d, k, kpath, "given twice"));
			continue;
		}
		if (typed && !inj->nr_params) {
			scp_keep(&st, yd_fail(c->d, k, kpath, "unknown key; %s takes no parameters",
					      inj->name));
			continue;
		}
		if (typed && !param_by_key(inj, key)) {
			scp_keep(&st, yd_fail(c->d, k, kpath, "unknown key; %s takes: %s",
					      inj->name, list));
			continue;
		}
		if (typed)
			continue;
		v = yaml_to_json(c, yd_node(c->d, p->value), kpath, 0);
		if (!v) {
			scp_keep(&st, -EINVAL);
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
				scp_keep(&st, yd_fail(c->d, pm ? pm : fmap, kpath,
						      "missing; %s needs %s (%s)", inj->name,
						      ip->key, ip->help));
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
			if (scp_keep(&st, r))
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
int scp_parse_params(struct pctx *c, yaml_node_t *fmap, yaml_node_t *pm, const char *fpath,
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
	if (pm && scp_keep(&st, params_written(c, pm, path, inj, f)) == -ENOMEM)
		return -ENOMEM;
	if (scp_keep(&st, params_typed(c, fmap, pm, path, inj, f)) == -ENOMEM)
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
