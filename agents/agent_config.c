// SPDX-License-Identifier: MIT
/*
 * The agent's policy file (/etc/rdmachaos/agent.yaml or --config FILE): read
 * with libyaml's document API and checked key by key, so each error names the
 * file, the 1-based line of the offending key or value and its key path, and
 * says what is allowed, e.g.
 *
 *   /etc/rdmachaos/agent.yaml:4: max_fault_duration: "10 min" is not a
 *   duration; write a number and a unit with no space, e.g. 500ms, 10s, 5m
 *
 * The agent refuses to start on any of them (exit AGENT_CONFIG_EXIT).
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "agents/agent_config.h"
#include "common/units.h"

#define AGENT_CONFIG_MAX_FILE (64 * 1024)
/* The longest duration_ms a request may take: 7 days. */
#define AGENT_CONFIG_MAX_MS (7ULL * 24 * 3600 * 1000)
#define AGENT_CONFIG_MAX_CONCURRENT 1024
#define AGENT_CONFIG_MAX_PFC_FPS 100000000ULL
#define AGENT_CONFIG_PATH_LEN 64

struct agent_config_ctx {
	const char *file;
	yaml_document_t *doc;
	char *err;
	size_t errlen;
};

/* What a list holds, for the checks of each entry. */
enum agent_config_kind { AGENT_CONFIG_INJECTOR, AGENT_CONFIG_NETDEV, AGENT_CONFIG_DEVICE };

static const char *const agent_config_keys[] = {
    "injectors", "netdevs",    "devices", "max_fault_duration", "max_concurrent_faults",
    "pfc",	 "control_if", NULL,
};
static const char *const agent_config_pfc_keys[] = {"max_rate_fps", "max_duration", NULL};

/* ---- messages ---------------------------------------------------------- */

static unsigned int agent_config_line(const yaml_node_t *n)
{
	return n ? (unsigned int)n->start_mark.line + 1 : 1;
}

/* "FILE:LINE: PATH: message"; always -EINVAL so callers can `return agent_config_fail(...)`. */
static int agent_config_fail(struct agent_config_ctx *c, const yaml_node_t *n, const char *path,
			     const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int agent_config_fail(struct agent_config_ctx *c, const yaml_node_t *n, const char *path,
			     const char *fmt, ...)
{
	va_list ap;
	int len;

	len = snprintf(c->err, c->errlen, "%s:%u: %s%s", c->file, agent_config_line(n), path,
		       *path ? ": " : "");
	if (len < 0 || (size_t)len >= c->errlen)
		return -EINVAL;
	va_start(ap, fmt);
	vsnprintf(c->err + len, c->errlen - (size_t)len, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* "a, b, c" from a NULL-terminated list. */
static const char *agent_config_list(const char *const *names, char *buf, size_t len)
{
	size_t off = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; names[i] && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? ", " : "", names[i]);
	return buf;
}

/* ---- YAML access ------------------------------------------------------- */

static yaml_node_t *agent_config_node(struct agent_config_ctx *c, int idx)
{
	return yaml_document_get_node(c->doc, idx);
}

static const char *agent_config_scalar(const yaml_node_t *n)
{
	return (const char *)n->data.scalar.value;
}

static bool agent_config_is_null(const yaml_node_t *n)
{
	const char *s;

	if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return false;
	s = agent_config_scalar(n);
	return !*s || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") ||
	       !strcmp(s, "NULL");
}

static int agent_config_want_scalar(struct agent_config_ctx *c, const yaml_node_t *n,
				    const char *path)
{
	if (n->type != YAML_SCALAR_NODE)
		return agent_config_fail(c, n, path, "must be a single value, not a %s",
					 n->type == YAML_MAPPING_NODE ? "mapping" : "list");
	if (agent_config_is_null(n))
		return agent_config_fail(c, n, path, "has no value; give one or leave the key out");
	if (strlen(agent_config_scalar(n)) != n->data.scalar.length)
		return agent_config_fail(c, n, path, "holds a NUL character");
	return 0;
}

static int agent_config_want_seq(struct agent_config_ctx *c, const yaml_node_t *n, const char *path)
{
	if (n->type == YAML_SEQUENCE_NODE)
		return 0;
	if (agent_config_is_null(n))
		return agent_config_fail(c, n, path,
					 "has no value; it takes a list ([a, b] or \"- \" lines)");
	return agent_config_fail(c, n, path, "must be a list ([a, b] or \"- \" lines)");
}

/*
 * Checks that every key of map is a plain word, in `allowed`, and given once.
 * The line is the key's own: the key is what is wrong.
 */
static int agent_config_check_keys(struct agent_config_ctx *c, const yaml_node_t *map,
				   const char *parent, const char *const *allowed)
{
	char path[AGENT_CONFIG_PATH_LEN], list[160];
	yaml_node_pair_t *p, *q;
	unsigned int i;

	for (p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *k = agent_config_node(c, p->key);
		bool known = false;

		if (k->type != YAML_SCALAR_NODE)
			return agent_config_fail(c, k, parent, "keys must be plain words, not a %s",
						 k->type == YAML_MAPPING_NODE ? "mapping" : "list");
		snprintf(path, sizeof(path), "%s%s%.32s", parent, *parent ? "." : "",
			 agent_config_scalar(k));
		for (i = 0; allowed[i]; i++)
			known |= !strcmp(allowed[i], agent_config_scalar(k));
		if (!known)
			return agent_config_fail(c, k, path, "unknown key; allowed here: %s",
						 agent_config_list(allowed, list, sizeof(list)));
		for (q = map->data.mapping.pairs.start; q < p; q++) {
			yaml_node_t *k2 = agent_config_node(c, q->key);

			if (!strcmp(agent_config_scalar(k2), agent_config_scalar(k)))
				return agent_config_fail(c, k, path,
							 "given twice (first on line %u)",
							 agent_config_line(k2));
		}
	}
	return 0;
}

/* ---- typed values ------------------------------------------------------ */

/* Digits only: no sign, no spaces, no units. */
static int agent_config_uint(struct agent_config_ctx *c, const yaml_node_t *n, const char *path,
			     uint64_t min, uint64_t max, uint64_t *v)
{
	const char *s;
	char *end;
	int ret = agent_config_want_scalar(c, n, path);

	if (ret)
		return ret;
	s = agent_config_scalar(n);
	errno = 0;
	*v = isdigit((unsigned char)*s) ? strtoull(s, &end, 10) : 0;
	if (!isdigit((unsigned char)*s) || *end || errno)
		return agent_config_fail(c, n, path,
					 "\"%s\" is not a whole number; use %" PRIu64 "..%" PRIu64,
					 s, min, max);
	if (*v < min || *v > max)
		return agent_config_fail(
		    c, n, path, "%s is out of range; use %" PRIu64 "..%" PRIu64, s, min, max);
	return 0;
}

/* A duration longer than 0 and at most the 7 days a request's duration_ms may be. */
static int agent_config_duration(struct agent_config_ctx *c, const yaml_node_t *n, const char *path,
				 uint64_t *ms)
{
	const char *s;
	int ret = agent_config_want_scalar(c, n, path);

	if (ret)
		return ret;
	s = agent_config_scalar(n);
	if (rc_parse_duration_ms(s, ms))
		return agent_config_fail(
		    c, n, path,
		    "\"%s\" is not a duration; write a number and a unit with "
		    "no space, e.g. 500ms, 10s, 5m (a plain number is seconds)",
		    s);
	if (!*ms)
		return agent_config_fail(c, n, path,
					 "must be longer than 0 (leave the key out for no limit)");
	if (*ms > AGENT_CONFIG_MAX_MS)
		return agent_config_fail(c, n, path,
					 "%s is longer than 7 days, the longest fault a request "
					 "can ask for",
					 s);
	return 0;
}

/* One name of a list, checked for what the list holds; copied to buf (len bytes). */
static int agent_config_name(struct agent_config_ctx *c, const yaml_node_t *n, const char *path,
			     enum agent_config_kind kind, char *buf, size_t len)
{
	const char *s;
	char known[160];
	size_t i, slen;
	int ret = agent_config_want_scalar(c, n, path);

	if (ret)
		return ret;
	s = agent_config_scalar(n);
	slen = strlen(s);
	if (kind == AGENT_CONFIG_INJECTOR) {
		const char *names[AGENT_MAX_INJECTORS + 1] = {NULL};

		for (i = 0; injectors[i] && i < AGENT_MAX_INJECTORS; i++)
			names[i] = injectors[i]->name;
		if (!injector_find(s) || slen >= len)
			return agent_config_fail(c, n, path,
						 "\"%s\" is not an injector of this agent "
						 "(known: %s)",
						 s, agent_config_list(names, known, sizeof(known)));
	}
	for (i = 0; i < slen && slen < len; i++)
		if (s[i] == '/' || isspace((unsigned char)s[i]) || !isprint((unsigned char)s[i]) ||
		    (kind == AGENT_CONFIG_NETDEV && s[i] == ':'))
			break;
	if (kind == AGENT_CONFIG_NETDEV && (slen >= len || i < slen))
		return agent_config_fail(c, n, path,
					 "\"%s\" is not an interface name (1..%zu characters, no "
					 "'/', ':' or spaces)",
					 s, len - 1);
	if (kind == AGENT_CONFIG_DEVICE && (slen >= len || i < slen))
		return agent_config_fail(c, n, path,
					 "\"%s\" is not an RDMA device name (1..%zu characters, no "
					 "'/' or spaces)",
					 s, len - 1);
	memcpy(buf, s, slen + 1);
	return 0;
}

/* A list of distinct names into table: max entries of `stride` bytes. */
static int agent_config_names(struct agent_config_ctx *c, const yaml_node_t *seq, const char *key,
			      enum agent_config_kind kind, char *table, size_t stride,
			      unsigned int max, unsigned int *nr)
{
	char path[AGENT_CONFIG_PATH_LEN];
	unsigned int i, j;
	int ret = agent_config_want_seq(c, seq, key);

	if (ret)
		return ret;
	*nr = 0;
	for (i = 0; seq->data.sequence.items.start + i < seq->data.sequence.items.top; i++) {
		yaml_node_t *n = agent_config_node(c, seq->data.sequence.items.start[i]);
		char *name = table + (size_t)*nr * stride;

		snprintf(path, sizeof(path), "%s[%u]", key, i);
		if (*nr == max)
			return agent_config_fail(c, n, path, "more than %u entries", max);
		ret = agent_config_name(c, n, path, kind, name, stride);
		if (ret)
			return ret;
		for (j = 0; j < *nr; j++)
			if (!strcmp(table + (size_t)j * stride, name))
				return agent_config_fail(c, n, path,
							 "%s is listed twice (first as %s[%u])",
							 name, key, j);
		(*nr)++;
	}
	return 0;
}

/* ---- sections ---------------------------------------------------------- */

static int agent_config_pfc(struct agent_config_ctx *c, const yaml_node_t *map,
			    struct agent_policy *p)
{
	yaml_node_pair_t *pair;
	int ret;

	if (map->type != YAML_MAPPING_NODE)
		return agent_config_fail(c, map, "pfc",
					 "must be a mapping, e.g. {max_rate_fps: 1000, "
					 "max_duration: 60s}");
	ret = agent_config_check_keys(c, map, "pfc", agent_config_pfc_keys);
	for (pair = map->data.mapping.pairs.start; !ret && pair < map->data.mapping.pairs.top;
	     pair++) {
		const char *key = agent_config_scalar(agent_config_node(c, pair->key));
		yaml_node_t *v = agent_config_node(c, pair->value);

		if (!strcmp(key, "max_rate_fps"))
			ret = agent_config_uint(c, v, "pfc.max_rate_fps", 1,
						AGENT_CONFIG_MAX_PFC_FPS, &p->pfc_max_rate_fps);
		else
			ret = agent_config_duration(c, v, "pfc.max_duration",
						    &p->pfc_max_duration_ms);
	}
	return ret;
}

/* One top-level key; k is the key's node (its line goes into p), v the value's. */
static int agent_config_key(struct agent_config_ctx *c, const yaml_node_t *k, const yaml_node_t *v,
			    struct agent_policy *p)
{
	const char *key = agent_config_scalar(k);
	unsigned int line = agent_config_line(k);
	uint64_t n = 0;
	int ret;

	if (!strcmp(key, "injectors")) {
		p->injectors_line = line;
		return agent_config_names(c, v, key, AGENT_CONFIG_INJECTOR, &p->injectors[0][0],
					  sizeof(p->injectors[0]), AGENT_MAX_INJECTORS,
					  &p->nr_injectors);
	}
	if (!strcmp(key, "netdevs")) {
		p->allow_line = line;
		return agent_config_names(c, v, key, AGENT_CONFIG_NETDEV, &p->allow[0][0],
					  sizeof(p->allow[0]), AGENT_MAX_IFS, &p->nr_allow);
	}
	if (!strcmp(key, "devices")) {
		p->devices_line = line;
		return agent_config_names(c, v, key, AGENT_CONFIG_DEVICE, &p->devices[0][0],
					  sizeof(p->devices[0]), AGENT_MAX_DEVICES, &p->nr_devices);
	}
	if (!strcmp(key, "max_fault_duration")) {
		p->max_fault_line = line;
		return agent_config_duration(c, v, key, &p->max_fault_ms);
	}
	if (!strcmp(key, "max_concurrent_faults")) {
		p->max_concurrent_line = line;
		ret = agent_config_uint(c, v, key, 1, AGENT_CONFIG_MAX_CONCURRENT, &n);
		p->max_concurrent = (unsigned int)n;
		return ret;
	}
	if (!strcmp(key, "pfc")) {
		p->pfc_line = line;
		return agent_config_pfc(c, v, p);
	}
	p->control_if_line = line; /* control_if: check_keys let nothing else through */
	return agent_config_name(c, v, key, AGENT_CONFIG_NETDEV, p->control_if,
				 sizeof(p->control_if));
}

static int agent_config_root(struct agent_config_ctx *c, const yaml_node_t *root,
			     struct agent_policy *p)
{
	yaml_node_pair_t *pair;
	int ret;

	if (agent_config_is_null(root))
		return 0; /* only comments, or "---": nothing restricted beyond the defaults */
	if (root->type != YAML_MAPPING_NODE)
		return agent_config_fail(c, root, "",
					 "the file must be a mapping of keys, e.g. "
					 "\"injectors: [link_down]\" lines");
	ret = agent_config_check_keys(c, root, "", agent_config_keys);
	for (pair = root->data.mapping.pairs.start; !ret && pair < root->data.mapping.pairs.top;
	     pair++)
		ret = agent_config_key(c, agent_config_node(c, pair->key),
				       agent_config_node(c, pair->value), p);
	return ret;
}

/* ---- entry points ------------------------------------------------------ */

static int agent_config_yaml_error(const char *name, const char *text, size_t len,
				   const yaml_parser_t *yp, char *err, size_t errlen)
{
	const char *problem = yp->problem ? yp->problem : "unknown problem";
	size_t line = yp->problem_mark.line + 1, i;

	if (yp->error == YAML_MEMORY_ERROR) {
		snprintf(err, errlen, "%s: out of memory while reading YAML", name);
		return -ENOMEM;
	}
	if (yp->error == YAML_READER_ERROR)
		for (i = 0, line = 1; i < yp->problem_offset && i < len; i++)
			line += text[i] == '\n';
	if (yp->problem_mark.index < len && text[yp->problem_mark.index] == '\t')
		snprintf(err, errlen,
			 "%s:%zu: YAML syntax error: %s (YAML indents with spaces, "
			 "not tabs)",
			 name, line, problem);
	else if (yp->context)
		snprintf(err, errlen, "%s:%zu: YAML syntax error: %s (%s on line %zu)", name, line,
			 problem, yp->context, yp->context_mark.line + 1);
	else
		snprintf(err, errlen, "%s:%zu: YAML syntax error: %s", name, line, problem);
	return -EINVAL;
}

int agent_config_parse(const char *name, const char *text, size_t len, struct agent_policy *p,
		       char *err, size_t errlen)
{
	struct agent_config_ctx c = {.file = name, .err = err, .errlen = errlen};
	yaml_document_t doc, extra;
	yaml_parser_t yp;
	yaml_node_t *root;
	int ret;

	memset(p, 0, sizeof(*p));
	if (errlen)
		err[0] = '\0';
	snprintf(p->file, sizeof(p->file), "%s", name);
	if (!yaml_parser_initialize(&yp)) {
		snprintf(err, errlen, "%s: out of memory", name);
		return -ENOMEM;
	}
	yaml_parser_set_input_string(&yp, (const unsigned char *)text, len);
	if (!yaml_parser_load(&yp, &doc)) {
		ret = agent_config_yaml_error(name, text, len, &yp, err, errlen);
		goto out_parser;
	}
	c.doc = &doc;
	root = yaml_document_get_root_node(&doc);
	if (!root) {
		ret = 0; /* an empty file: the defaults */
		goto out_doc;
	}
	/* A second document would be ignored silently: refuse it. */
	if (!yaml_parser_load(&yp, &extra)) {
		ret = agent_config_yaml_error(name, text, len, &yp, err, errlen);
		goto out_doc;
	}
	if (yaml_document_get_root_node(&extra)) {
		snprintf(err, errlen,
			 "%s:%zu: the policy file holds one YAML document; remove the second one "
			 "(after ---)",
			 name, extra.start_mark.line + 1);
		ret = -EINVAL;
	} else {
		ret = agent_config_root(&c, root, p);
	}
	yaml_document_delete(&extra);
out_doc:
	yaml_document_delete(&doc);
out_parser:
	yaml_parser_delete(&yp);
	return ret;
}

int agent_config_load(const char *path, struct agent_policy *p, char *err, size_t errlen)
{
	char *buf;
	size_t len = 0, n;
	FILE *f;
	int ret;

	memset(p, 0, sizeof(*p));
	f = fopen(path, "rb");
	if (!f) {
		ret = -errno;
		snprintf(err, errlen, "%s: cannot open the policy file: %s", path, strerror(-ret));
		return ret;
	}
	buf = malloc(AGENT_CONFIG_MAX_FILE + 1);
	if (!buf) {
		ret = -ENOMEM;
		snprintf(err, errlen, "%s: out of memory", path);
		goto out;
	}
	while ((n = fread(buf + len, 1, AGENT_CONFIG_MAX_FILE + 1 - len, f)) > 0)
		len += n;
	if (ferror(f)) {
		ret = -EIO;
		snprintf(err, errlen, "%s: read error (is it a folder?)", path);
		goto out;
	}
	if (len > AGENT_CONFIG_MAX_FILE) {
		ret = -EFBIG;
		snprintf(err, errlen, "%s: larger than %d KiB; a policy file is a few lines", path,
			 AGENT_CONFIG_MAX_FILE / 1024);
		goto out;
	}
	ret = agent_config_parse(path, buf, len, p, err, errlen);
out:
	free(buf);
	fclose(f);
	return ret;
}

int agent_config_apply(struct agent_policy *p, const struct agent_policy *file, char *err,
		       size_t errlen)
{
	char ctl[48];
	unsigned int i;

	snprintf(p->file, sizeof(p->file), "%s", file->file);
	memcpy(p->injectors, file->injectors, sizeof(p->injectors));
	p->nr_injectors = file->nr_injectors;
	p->injectors_line = file->injectors_line;
	p->max_fault_ms = file->max_fault_ms;
	p->max_fault_line = file->max_fault_line;
	p->max_concurrent = file->max_concurrent;
	p->max_concurrent_line = file->max_concurrent_line;
	p->pfc_max_rate_fps = file->pfc_max_rate_fps;
	p->pfc_max_duration_ms = file->pfc_max_duration_ms;
	p->pfc_line = file->pfc_line;
	if (!p->nr_allow) { /* no --allow-if: the file's targets */
		memcpy(p->allow, file->allow, sizeof(p->allow));
		p->nr_allow = file->nr_allow;
		p->allow_line = file->allow_line;
		memcpy(p->devices, file->devices, sizeof(p->devices));
		p->nr_devices = file->nr_devices;
		p->devices_line = file->devices_line;
	}
	if (!p->control_if[0]) {
		memcpy(p->control_if, file->control_if, sizeof(p->control_if));
		p->control_if_line = file->control_if_line;
	}
	if (!p->control_if[0] || (!p->allow_line && !p->control_if_line))
		return 0; /* both from the command line: agent_opts_parse checked them */
	for (i = 0; i < p->nr_allow; i++)
		if (!strcmp(p->allow[i], p->control_if))
			break;
	if (i == p->nr_allow)
		return 0;
	if (p->allow_line) {
		if (p->control_if_line)
			snprintf(ctl, sizeof(ctl), "control_if, line %u", p->control_if_line);
		else
			snprintf(ctl, sizeof(ctl), "--control-if");
		snprintf(err, errlen,
			 "%s:%u: netdevs: %s is the control interface (%s), which the agent "
			 "never faults; remove it from one of the two",
			 p->file, p->allow_line, p->control_if, ctl);
	} else {
		snprintf(err, errlen,
			 "%s:%u: control_if: %s is in --allow-if, and the agent never faults its "
			 "control interface; remove it from one of the two",
			 p->file, p->control_if_line, p->control_if);
	}
	return -EINVAL;
}
