// SPDX-License-Identifier: MIT
/*
 * rdmachaos-healthcheck's config file (/etc/rdmachaos/healthcheck.yaml or --config FILE), read
 * strictly with common/yamldoc.h: every error names the file, line, column and key, e.g.
 *
 *   healthcheck.yaml:3:13: rails[0].port: 0 is out of range; use 1..255
 *
 *   rails:                       # the RDMA ports that must be ACTIVE, their links up
 *     - {device: mlx5_0, port: 1}
 *   counters: {link_downed: 0}   # error counters that may rise at most so much between runs
 *   state_dir: /var/lib/rdmachaos-healthcheck
 *   slurm: {node: node-b, drain: true, scontrol: /usr/bin/scontrol}
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/yamldoc.h"
#include "healthcheck/hc.h"

static const struct yd_kind hc_yaml = {
    .max_size = 64 * 1024,
    .open_err = "cannot open the health check's config",
    .read_err = "read error (is it a folder?)",
    .too_big = "larger than 64 KiB; the health check's config is a few lines",
    .one_doc = "the health check's config",
    .noun = "a health check config",
    .depth = 3, /* rails: [{device: ...}] */
    .dur_eg = "10s",
};

void hc_config_defaults(struct hc_config *c)
{
	memset(c, 0, sizeof(*c));
	c->drain = true;
	snprintf(c->state_dir, sizeof(c->state_dir), "/var/lib/rdmachaos-healthcheck");
	snprintf(c->scontrol, sizeof(c->scontrol), "/usr/bin/scontrol");
}

/* A name sysfs can hold as one path component. */
static int hc_name(struct yd_doc *d, const yaml_node_t *n, const char *path, char *buf, size_t len)
{
	int ret = yd_get_text(d, n, path, buf, len);

	if (ret)
		return ret;
	if (!buf[0] || buf[0] == '.' || strchr(buf, '/'))
		return yd_fail(d, n, path, "\"%s\" is not a device or counter name", buf);
	return 0;
}

static int hc_rails(struct yd_doc *d, const yaml_node_t *seq, struct hc_config *c)
{
	static const char *const keys[] = {"device", "port", NULL};
	char path[YD_PATH_LEN], kpath[YD_PATH_LEN];
	const yaml_node_t *m, *n;
	uint64_t v;
	size_t i;
	int st = 0;

	if (yd_want_seq(d, seq, "rails"))
		return -EINVAL;
	if (!yd_seq_len(seq) || yd_seq_len(seq) > HC_MAX_RAILS)
		return yd_fail(d, seq, "rails", "list 1..%d RDMA ports, e.g. [{device: mlx5_0}]",
			       HC_MAX_RAILS);
	for (i = 0; i < yd_seq_len(seq); i++) {
		struct hc_rail *r = &c->rails[c->nr_rails];

		yd_join_idx(path, "rails", i);
		m = yd_seq_item(d, seq, i);
		if (yd_want_map(d, m, path) || yd_check_keys(d, m, path, keys)) {
			st = -EINVAL;
			continue;
		}
		yd_join(kpath, path, "device");
		if (!(n = yd_map_get(d, m, "device")))
			st = yd_fail(d, m, path, "device: the RDMA device, e.g. mlx5_0");
		else if (hc_name(d, n, kpath, r->device, sizeof(r->device)))
			st = -EINVAL;
		r->port = 1;
		yd_join(kpath, path, "port");
		if ((n = yd_map_get(d, m, "port"))) {
			if (yd_get_uint(d, n, kpath, 1, 255, &v))
				st = -EINVAL;
			else
				r->port = (unsigned int)v;
		}
		c->nr_rails++;
	}
	return st;
}

static int hc_counters(struct yd_doc *d, const yaml_node_t *map, struct hc_config *c)
{
	char kpath[YD_PATH_LEN];
	yaml_node_pair_t *p;
	int st = 0;

	if (yd_want_map(d, map, "counters"))
		return -EINVAL;
	for (p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		const yaml_node_t *k = yd_node(d, p->key), *v = yd_node(d, p->value);
		struct hc_counter *ct = &c->counters[c->nr_counters];

		if (c->nr_counters == HC_MAX_COUNTERS)
			return yd_fail(d, k, "counters", "at most %d counters", HC_MAX_COUNTERS);
		if (yd_want_scalar(d, k, "counters") ||
		    hc_name(d, k, "counters", ct->name, sizeof(ct->name))) {
			st = -EINVAL;
			continue;
		}
		yd_join(kpath, "counters", ct->name);
		if (yd_get_uint(d, v, kpath, 0, UINT32_MAX, &ct->max_increase))
			st = -EINVAL;
		else
			c->nr_counters++;
	}
	return st;
}

static int hc_slurm(struct yd_doc *d, const yaml_node_t *m, struct hc_config *c)
{
	static const char *const keys[] = {"node", "drain", "scontrol", NULL};
	char b[8];
	const yaml_node_t *n;
	int st = 0;

	if (yd_want_map(d, m, "slurm") || yd_check_keys(d, m, "slurm", keys))
		return -EINVAL;
	if ((n = yd_map_get(d, m, "node")) && hc_name(d, n, "slurm.node", c->node, sizeof(c->node)))
		st = -EINVAL;
	if ((n = yd_map_get(d, m, "drain"))) {
		if (yd_get_text(d, n, "slurm.drain", b, sizeof(b)))
			st = -EINVAL;
		else if (!strcmp(b, "true") || !strcmp(b, "false"))
			c->drain = !strcmp(b, "true");
		else
			st = yd_fail(d, n, "slurm.drain", "\"%s\" is not true or false", b);
	}
	if ((n = yd_map_get(d, m, "scontrol")) &&
	    !yd_get_text(d, n, "slurm.scontrol", c->scontrol, sizeof(c->scontrol)) &&
	    c->scontrol[0] != '/')
		st = yd_fail(d, n, "slurm.scontrol", "\"%s\" is not an absolute path", c->scontrol);
	return st;
}

int hc_config_parse(const char *file, const char *text, size_t len, struct hc_config *c, char *err,
		    size_t errlen)
{
	static const char *const keys[] = {"rails", "counters", "state_dir", "slurm", NULL};
	struct yd_doc d;
	const yaml_node_t *n;
	int ret, st = 0;

	hc_config_defaults(c);
	ret = yd_load(&d, &hc_yaml, file, text, len, err, errlen);
	if (ret)
		return ret;
	if (!d.root) {
		snprintf(err, errlen,
			 "%s: empty; list the rails to check, e.g. rails: [{device: "
			 "mlx5_0}]",
			 file);
		yd_free(&d);
		return -EINVAL;
	}
	if (yd_want_map(&d, d.root, "") || yd_check_keys(&d, d.root, "", keys)) {
		yd_free(&d);
		return -EINVAL;
	}
	if (!(n = yd_map_get(&d, d.root, "rails")))
		st = yd_fail(&d, d.root, "rails",
			     "missing: list the RDMA ports to check, e.g. "
			     "rails: [{device: mlx5_0}]");
	else if (hc_rails(&d, n, c))
		st = -EINVAL;
	if ((n = yd_map_get(&d, d.root, "counters")) && hc_counters(&d, n, c))
		st = -EINVAL;
	if ((n = yd_map_get(&d, d.root, "state_dir")) &&
	    !yd_get_text(&d, n, "state_dir", c->state_dir, sizeof(c->state_dir)) &&
	    c->state_dir[0] && c->state_dir[0] != '/')
		st = yd_fail(&d, n, "state_dir", "\"%s\" is not an absolute path", c->state_dir);
	if ((n = yd_map_get(&d, d.root, "slurm")) && hc_slurm(&d, n, c))
		st = -EINVAL;
	yd_free(&d);
	return st ? -EINVAL : 0;
}

int hc_config_load(const char *file, struct hc_config *c, char *err, size_t errlen)
{
	char *buf;
	size_t len;
	int ret;

	ret = yd_read_file(&hc_yaml, file, &buf, &len, err, errlen);
	if (ret)
		return ret;
	ret = hc_config_parse(file, buf, len, c, err, errlen);
	free(buf);
	return ret;
}
