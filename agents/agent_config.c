// SPDX-License-Identifier: MIT
/*
 * The agent's policy file (/etc/rdmachaos/agent.yaml or --config FILE): read
 * with libyaml's document API and checked key by key, so each error names the
 * file, the 1-based line and column of the offending key or value and its key
 * path, and says what is allowed, e.g.
 *
 *   /etc/rdmachaos/agent.yaml:4:21: max_fault_duration: "10 min" is not a
 *   duration; write a number and a unit with no space, e.g. 500ms, 10s, 5m
 *
 * The agent refuses to start on any of them (exit AGENT_CONFIG_EXIT).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agents/agent_config.h"
#include "common/yamldoc.h"

/* The longest duration_ms a request may take: 7 days. */
#define AGENT_CONFIG_MAX_MS (7ULL * 24 * 3600 * 1000)
#define AGENT_CONFIG_MAX_CONCURRENT 1024
#define AGENT_CONFIG_MAX_PFC_FPS 100000000ULL

static const struct yd_kind agent_config_yaml = {
    .max_size = 64 * 1024, /* too_big says so */
    .open_err = "cannot open the policy file",
    .read_err = "read error (is it a folder?)",
    .too_big = "larger than 64 KiB; a policy file is a few lines",
    .one_doc = "the policy file",
    .noun = "a policy file",
    .depth = 2, /* pfc: {...}, netdevs: [...] */
    .dur_eg = "500ms, 10s, 5m",
};

/* What a list holds, for the checks of each entry. */
enum agent_config_kind {
	AGENT_CONFIG_INJECTOR,
	AGENT_CONFIG_NETDEV,
	AGENT_CONFIG_DEVICE,
	AGENT_CONFIG_PROGRAM,
};

static const char *const agent_config_keys[] = {
    "injectors",  "netdevs", "devices", "max_fault_duration", "max_concurrent_faults", "pfc",
    "control_if", "jobs",    NULL,
};
static const char *const agent_config_pfc_keys[] = {"max_rate_fps", "max_duration", NULL};

/* One key of a mapping: k is the key's node (scalar, allowed, unique), v the value's. */
typedef int (*agent_config_key_fn)(struct yd_doc *d, const yaml_node_t *k, const yaml_node_t *v,
				   struct agent_policy *p);

/* ---- values ------------------------------------------------------------ */

/* A duration longer than 0 and at most the 7 days a request's duration_ms may be. */
static int agent_config_duration(struct yd_doc *d, const yaml_node_t *n, const char *path,
				 uint64_t *ms)
{
	int ret = yd_get_duration(d, n, path, ms);

	if (ret)
		return ret;
	if (!*ms)
		return yd_fail(d, n, path,
			       "must be longer than 0 (leave the key out for no limit)");
	if (*ms > AGENT_CONFIG_MAX_MS)
		return yd_fail(d, n, path,
			       "%s is longer than 7 days, the longest fault a request can ask for",
			       yd_scalar(n));
	return 0;
}

/* One name of a list, checked for what the list holds; copied to buf (len bytes). */
static int agent_config_name(struct yd_doc *d, const yaml_node_t *n, const char *path,
			     enum agent_config_kind kind, char *buf, size_t len)
{
	const char *s;
	char known[160];
	size_t i, slen;
	int ret = yd_want_scalar(d, n, path);

	if (ret)
		return ret;
	s = yd_scalar(n);
	slen = strlen(s);
	if (kind == AGENT_CONFIG_INJECTOR) {
		const char *names[AGENT_MAX_INJECTORS + 1] = {NULL};

		for (i = 0; injectors[i] && i < AGENT_MAX_INJECTORS; i++)
			names[i] = injectors[i]->name;
		if (!injector_find(s) || slen >= len)
			return yd_fail(d, n, path,
				       "\"%s\" is not an injector of this agent (known: %s)", s,
				       yd_list(names, known, sizeof(known)));
	}
	for (i = 0; i < slen && slen < len; i++)
		if (s[i] == '/' || isspace((unsigned char)s[i]) || !isprint((unsigned char)s[i]) ||
		    (kind == AGENT_CONFIG_NETDEV && s[i] == ':'))
			break;
	if (kind == AGENT_CONFIG_NETDEV && (slen >= len || i < slen))
		return yd_fail(d, n, path,
			       "\"%s\" is not an interface name (1..%zu characters, no '/', ':' or "
			       "spaces)",
			       s, len - 1);
	if (kind == AGENT_CONFIG_PROGRAM) {
		for (i = 0; i < slen && !iscntrl((unsigned char)s[i]); i++)
			;
		if (s[0] != '/' || slen >= len || i < slen)
			return yd_fail(d, n, path,
				       "\"%s\" is not a program's absolute path (at most %zu "
				       "characters), e.g. /usr/bin/ib_write_bw",
				       s, len - 1);
	} else if (kind == AGENT_CONFIG_DEVICE && (slen >= len || i < slen))
		return yd_fail(d, n, path,
			       "\"%s\" is not an RDMA device name (1..%zu characters, no '/' or "
			       "spaces)",
			       s, len - 1);
	memcpy(buf, s, slen + 1);
	return 0;
}

/* A list of distinct names into table: max entries of `stride` bytes. */
static int agent_config_names(struct yd_doc *d, const yaml_node_t *seq, const char *key,
			      enum agent_config_kind kind, char *table, size_t stride,
			      unsigned int max, unsigned int *nr)
{
	char path[YD_PATH_LEN];
	unsigned int i, j;
	int ret = yd_want_seq(d, seq, key);

	if (ret)
		return ret;
	*nr = 0;
	for (i = 0; i < yd_seq_len(seq); i++) {
		yaml_node_t *n = yd_seq_item(d, seq, i);
		char *name = table + (size_t)*nr * stride;

		yd_join_idx(path, key, i);
		if (*nr == max)
			return yd_fail(d, n, path, "more than %u entries", max);
		ret = agent_config_name(d, n, path, kind, name, stride);
		if (ret)
			return ret;
		for (j = 0; j < *nr; j++)
			if (!strcmp(table + (size_t)j * stride, name))
				return yd_fail(d, n, path, "%s is listed twice (first as %s[%u])",
					       name, key, j);
		(*nr)++;
	}
	return 0;
}

/* ---- sections ---------------------------------------------------------- */

/*
 * A mapping: its keys checked against `keys`, then each handed to fn in file
 * order. `shape` is the whole message when it is not a mapping.
 */
static int agent_config_map(struct yd_doc *d, const yaml_node_t *map, const char *path,
			    const char *const *keys, const char *shape, agent_config_key_fn fn,
			    struct agent_policy *p)
{
	yaml_node_pair_t *pair;
	int ret;

	if (map->type != YAML_MAPPING_NODE)
		return yd_fail(d, map, path, "%s", shape);
	ret = yd_check_keys(d, map, path, keys);
	for (pair = map->data.mapping.pairs.start; !ret && pair < map->data.mapping.pairs.top;
	     pair++)
		ret = fn(d, yd_node(d, pair->key), yd_node(d, pair->value), p);
	return ret;
}

static int agent_config_pfc_key(struct yd_doc *d, const yaml_node_t *k, const yaml_node_t *v,
				struct agent_policy *p)
{
	if (!strcmp(yd_scalar(k), "max_rate_fps"))
		return yd_get_uint(d, v, "pfc.max_rate_fps", 1, AGENT_CONFIG_MAX_PFC_FPS,
				   &p->pfc_max_rate_fps);
	return agent_config_duration(d, v, "pfc.max_duration", &p->pfc_max_duration_ms);
}

/* One top-level key; its line goes into p. */
static int agent_config_key(struct yd_doc *d, const yaml_node_t *k, const yaml_node_t *v,
			    struct agent_policy *p)
{
	const char *key = yd_scalar(k);
	unsigned int line = yd_line(k);
	uint64_t n = 0;
	int ret;

	if (!strcmp(key, "injectors")) {
		p->injectors_line = line;
		return agent_config_names(d, v, key, AGENT_CONFIG_INJECTOR, &p->injectors[0][0],
					  sizeof(p->injectors[0]), AGENT_MAX_INJECTORS,
					  &p->nr_injectors);
	}
	if (!strcmp(key, "netdevs")) {
		p->allow_line = line;
		return agent_config_names(d, v, key, AGENT_CONFIG_NETDEV, &p->allow[0][0],
					  sizeof(p->allow[0]), AGENT_MAX_IFS, &p->nr_allow);
	}
	if (!strcmp(key, "devices")) {
		p->devices_line = line;
		return agent_config_names(d, v, key, AGENT_CONFIG_DEVICE, &p->devices[0][0],
					  sizeof(p->devices[0]), AGENT_MAX_DEVICES, &p->nr_devices);
	}
	if (!strcmp(key, "max_fault_duration")) {
		p->max_fault_line = line;
		return agent_config_duration(d, v, key, &p->max_fault_ms);
	}
	if (!strcmp(key, "max_concurrent_faults")) {
		p->max_concurrent_line = line;
		ret = yd_get_uint(d, v, key, 1, AGENT_CONFIG_MAX_CONCURRENT, &n);
		p->max_concurrent = (unsigned int)n;
		return ret;
	}
	if (!strcmp(key, "pfc")) {
		p->pfc_line = line;
		return agent_config_map(d, v, "pfc", agent_config_pfc_keys,
					"must be a mapping, e.g. {max_rate_fps: 1000, "
					"max_duration: 60s}",
					agent_config_pfc_key, p);
	}
	if (!strcmp(key, "jobs")) {
		p->jobs_line = line;
		return agent_config_names(d, v, key, AGENT_CONFIG_PROGRAM, &p->jobs[0][0],
					  sizeof(p->jobs[0]), AGENT_MAX_JOB_PROGRAMS, &p->nr_jobs);
	}
	p->control_if_line = line; /* control_if: check_keys let nothing else through */
	return agent_config_name(d, v, key, AGENT_CONFIG_NETDEV, p->control_if,
				 sizeof(p->control_if));
}

/* ---- entry points ------------------------------------------------------ */

int agent_config_parse(const char *name, const char *text, size_t len, struct agent_policy *p,
		       char *err, size_t errlen)
{
	struct yd_doc d;
	int ret;

	memset(p, 0, sizeof(*p));
	if (errlen)
		err[0] = '\0';
	snprintf(p->file, sizeof(p->file), "%s", name);
	ret = yd_load(&d, &agent_config_yaml, name, text, len, err, errlen);
	if (ret)
		return ret;
	/* No document, only comments, or "---": nothing restricted beyond the defaults. */
	if (d.root && !yd_is_null(d.root))
		ret = agent_config_map(&d, d.root, "", agent_config_keys,
				       "the file must be a mapping of keys, e.g. \"injectors: "
				       "[link_down]\" lines",
				       agent_config_key, p);
	yd_free(&d);
	return ret;
}

int agent_config_load(const char *path, struct agent_policy *p, char *err, size_t errlen)
{
	char *buf;
	size_t len;
	int ret;

	memset(p, 0, sizeof(*p));
	ret = yd_read_file(&agent_config_yaml, path, &buf, &len, err, errlen);
	if (ret)
		return ret;
	ret = agent_config_parse(path, buf, len, p, err, errlen);
	free(buf);
	return ret;
}

int agent_config_apply(struct agent_policy *p, const struct agent_policy *file, char *err,
		       size_t errlen)
{
	char ctl[48];
	char alias[IF_NAMESIZE + 32];
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
	if (!p->nr_jobs) { /* no --allow-job: the file's programs */
		memcpy(p->jobs, file->jobs, sizeof(p->jobs));
		p->nr_jobs = file->nr_jobs;
		p->jobs_line = file->jobs_line;
	}
	if (!p->control_if[0]) {
		memcpy(p->control_if, file->control_if, sizeof(p->control_if));
		p->control_if_line = file->control_if_line;
	}
	if (!p->control_if[0] || (!p->allow_line && !p->control_if_line))
		return 0; /* both from the command line: agent_opts_parse checked them */
	for (i = 0; i < p->nr_allow; i++)
		if (agent_policy_same_netdev(p->allow[i], p->control_if))
			break;
	if (i == p->nr_allow)
		return 0;
	if (p->allow_line) {
		if (p->control_if_line)
			snprintf(ctl, sizeof(ctl), "control_if, line %u", p->control_if_line);
		else
			snprintf(ctl, sizeof(ctl), "--control-if");
		snprintf(err, errlen,
			 "%s:%u: netdevs: %s is the control interface%s (%s), which the agent "
			 "never faults; remove it from one of the two",
			 p->file, p->allow_line, p->allow[i],
			 agent_policy_alias_note(p->allow[i], p->control_if, alias, sizeof(alias)),
			 ctl);
	} else {
		snprintf(err, errlen,
			 "%s:%u: control_if: %s is in --allow-if, and the agent never faults its "
			 "control interface; remove it from one of the two",
			 p->file, p->control_if_line, p->control_if);
	}
	return -EINVAL;
}
