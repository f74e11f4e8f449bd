// SPDX-License-Identifier: MIT
/*
 * mr_failure's cgroup mechanism: the kernel's rdma cgroup. rdma.max of the
 * workload's cgroup gets an hca_object limit for a device (default: the
 * target's device, else every device the file lists); "current" (the
 * default) is the cgroup's own rdma.current count, so the next object the
 * process creates (MR, QP, CQ, PD...) fails with EAGAIN while the existing
 * ones stay. Revert writes back the exact prior line. The snapshot holds the
 * rdma.max path, the devices and their prior lines.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "injectors/inj_rdmacg.h"
#include "injectors/inj_util.h"
#include "injectors/mr_failure_mech.h"
#include "common/errbuf.h"

/* params[key]: an integer in 0..INT32_MAX or "current" (-1); absent: def. */
static int mr_parse_count(const json_t *params, const char *key, long long def, long long *out,
			  char *err, size_t errlen)
{
	const json_t *v = json_object_get(params, key);

	if (!v) {
		*out = def;
		return 0;
	}
	if (json_is_string(v) && !strcmp(json_string_value(v), "current")) {
		*out = -1;
		return 0;
	}
	if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > INT32_MAX)
		return errbuf_fail(
		    err, errlen, -EINVAL,
		    "mr_failure: params.%s: must be an integer in 0..%d or \"current\"", key,
		    INT32_MAX);
	*out = json_integer_value(v);
	return 0;
}

static int mr_cgroup_parse(const json_t *params, struct mr_params *p, char *err, size_t errlen)
{
	const json_t *dev = json_object_get(params, "device");
	int ret;

	if (dev) {
		const char *s = json_string_value(dev);

		if (!s || !s[0] || strlen(s) >= sizeof(p->device) || strpbrk(s, "/ \t\n=") ||
		    strlen(s) != json_string_length(dev))
			return errbuf_fail(
			    err, errlen, -EINVAL,
			    "mr_failure: params.device: must be an RDMA device name of "
			    "1..%zu characters",
			    sizeof(p->device) - 1);
		strcpy(p->device, s);
	}
	ret = mr_parse_count(params, "hca_object", -1, &p->hca_object, err, errlen);
	if (!ret)
		ret = mr_parse_count(params, "hca_handle", -2, &p->hca_handle, err, errlen);
	return ret;
}

/* "DEV hca_handle=max hca_object=max": what a device without a line is, and gets back. */
static void mr_unlimited(const char *dev, char *line, size_t len)
{
	snprintf(line, len, "%s hca_handle=max hca_object=max", dev);
}

/* Whether line (as read now) is what dev had before (prior; "" for no line: unlimited). */
static bool mr_line_is_prior(const struct mr_dev *d, const char *line)
{
	long long h, o;

	if (d->prior[0])
		return line && !strcmp(line, d->prior);
	return !line || (!inj_rdmacg_value(line, "hca_handle", &h) && h == INJ_RDMACG_MAX &&
			 !inj_rdmacg_value(line, "hca_object", &o) && o == INJ_RDMACG_MAX);
}

/* The current count of key for dev, from the cgroup's rdma.current (no line: 0). */
static int mr_current(struct inj_fault *f, const char *current, const char *dev, const char *key,
		      long long *v)
{
	char line[INJ_RDMACG_LINE];
	int ret;

	if (inj_rdmacg_line(current, dev, line, sizeof(line))) {
		*v = 0;
		return 0;
	}
	ret = inj_rdmacg_value(line, key, v);
	if (ret || *v < 0)
		return inj_fail(f, -EPROTO,
				"mr_failure: %s/rdma.current: %s: no count of %s in \"%s\"",
				f->target.cgroup, dev, key, line);
	return 0;
}

static int mr_cgroup_prepare(struct inj_fault *f, struct mr_priv *priv, const struct mr_params *p)
{
	struct mr_cgroup *cg = &priv->cg;
	char devs[MR_MAX_DEVS][INJ_RDMACG_DEV_LEN];
	char *max = NULL, *current = NULL, path[300];
	unsigned int i;
	int ret;

	if (!f->target.cgroup[0])
		return inj_fail(f, -EINVAL,
				"mr_failure: workload %s was started without a cgroup: start it "
				"with \"cgroup\": true for mechanism cgroup",
				f->target.workload);
	max = malloc(INJ_RDMACG_FILE);
	current = malloc(INJ_RDMACG_FILE);
	if (!max || !current) {
		ret = inj_fail(f, -ENOMEM, "mr_failure: out of memory");
		goto out;
	}
	snprintf(cg->rdma_max, sizeof(cg->rdma_max), "%s/rdma.max", f->target.cgroup);
	snprintf(path, sizeof(path), "%s/rdma.current", f->target.cgroup);
	ret = inj_rdmacg_read(cg->rdma_max, max, INJ_RDMACG_FILE);
	if (!ret)
		ret = inj_rdmacg_read(path, current, INJ_RDMACG_FILE);
	if (ret) {
		inj_fail(f, ret, "mr_failure: %s: %s (is the rdma controller enabled for it?)",
			 ret == -ENOENT ? f->target.cgroup : cg->rdma_max, strerror(-ret));
		goto out;
	}
	if (p->device[0] || f->target.device[0]) {
		snprintf(devs[0], sizeof(devs[0]), "%s",
			 p->device[0] ? p->device : f->target.device);
		cg->nr = 1;
	} else {
		cg->nr = inj_rdmacg_devices(max, devs, MR_MAX_DEVS);
	}
	if (!cg->nr) {
		ret = inj_fail(f, -ENODEV,
			       "mr_failure: %s lists no RDMA device: name one with params.device",
			       cg->rdma_max);
		goto out;
	}
	for (i = 0; i < cg->nr; i++) {
		struct mr_dev *d = &cg->dev[i];
		long long obj = p->hca_object, handle = p->hca_handle;
		int n;

		snprintf(d->name, sizeof(d->name), "%s", devs[i]);
		ret = inj_rdmacg_line(max, d->name, d->prior, sizeof(d->prior));
		if (ret == -ENOENT)
			d->prior[0] = '\0';
		else if (ret) {
			inj_fail(f, ret, "mr_failure: %s: %s: line too long", cg->rdma_max,
				 d->name);
			goto out;
		}
		ret = obj == -1 ? mr_current(f, current, d->name, "hca_object", &obj) : 0;
		if (!ret && handle == -1)
			ret = mr_current(f, current, d->name, "hca_handle", &handle);
		if (ret)
			goto out;
		n = snprintf(d->limit, sizeof(d->limit), "%s hca_object=%lld", devs[i], obj);
		if (handle >= 0)
			snprintf(d->limit + n, sizeof(d->limit) - (size_t)n, " hca_handle=%lld",
				 handle);
	}
	ret = 0;
out:
	free(max);
	free(current);
	return ret;
}

/* Reads rdma.max into buf; -ENOENT when the cgroup is gone (its workload exited). */
static int mr_read_max(struct inj_fault *f, const struct mr_cgroup *cg, char *buf)
{
	int ret = inj_rdmacg_read(cg->rdma_max, buf, INJ_RDMACG_FILE);

	if (ret && ret != -ENOENT)
		inj_fail(f, ret, "mr_failure: %s: %s", cg->rdma_max, strerror(-ret));
	return ret;
}

static int mr_cgroup_inject(struct inj_fault *f, struct mr_priv *priv)
{
	const struct mr_cgroup *cg = &priv->cg;
	char *buf = malloc(INJ_RDMACG_FILE), line[INJ_RDMACG_LINE];
	unsigned int i;
	int ret = 0;

	if (!buf)
		return inj_fail(f, -ENOMEM, "mr_failure: out of memory");
	for (i = 0; i < cg->nr && !ret; i++) {
		const struct mr_dev *d = &cg->dev[i];
		long long want, got;

		ret = inj_rdmacg_write(cg->rdma_max, d->limit);
		if (ret) {
			inj_fail(f, ret, "mr_failure: %s: writing \"%s\": %s", cg->rdma_max,
				 d->limit, strerror(-ret));
			break;
		}
		/* Read back: the limit must be in force, not just written. */
		ret = mr_read_max(f, cg, buf);
		if (ret == -ENOENT)
			ret = inj_fail(f, -ESRCH, "mr_failure: %s: gone (the workload exited)",
				       cg->rdma_max);
		if (ret)
			break;
		inj_rdmacg_value(d->limit, "hca_object", &want);
		if (inj_rdmacg_line(buf, d->name, line, sizeof(line)) ||
		    inj_rdmacg_value(line, "hca_object", &got) || got != want)
			ret = inj_fail(f, -EIO,
				       "mr_failure: %s: wrote \"%s\" but %s's line reads \"%s\"",
				       cg->rdma_max, d->limit, d->name, line);
	}
	free(buf);
	return ret;
}

static int mr_cgroup_revert(struct inj_fault *f, struct mr_priv *priv)
{
	const struct mr_cgroup *cg = &priv->cg;
	char *buf = malloc(INJ_RDMACG_FILE), line[INJ_RDMACG_LINE], back[INJ_RDMACG_LINE];
	unsigned int i;
	int ret;

	if (!buf)
		return inj_fail(f, -ENOMEM, "mr_failure: out of memory");
	ret = mr_read_max(f, cg, buf);
	if (ret == -ENOENT) {
		inj_action(f, "%s: gone (its workload exited): nothing to restore", cg->rdma_max);
		ret = 0;
		goto out;
	}
	if (ret)
		goto out;
	for (i = 0; i < cg->nr; i++) {
		const struct mr_dev *d = &cg->dev[i];
		bool has = !inj_rdmacg_line(buf, d->name, line, sizeof(line));

		if (mr_line_is_prior(d, has ? line : NULL)) {
			inj_action(f, "%s: %s: already \"%s\"", cg->rdma_max, d->name,
				   has ? line : "(no line)");
			continue;
		}
		if (d->prior[0])
			snprintf(back, sizeof(back), "%s", d->prior);
		else
			mr_unlimited(d->name, back, sizeof(back));
		ret = inj_rdmacg_write(cg->rdma_max, back);
		if (ret == -ENOENT) {
			inj_action(f, "%s: gone (its workload exited): nothing to restore",
				   cg->rdma_max);
			ret = 0;
			break;
		}
		if (ret) {
			inj_fail(f, ret, "mr_failure: %s: writing back \"%s\": %s", cg->rdma_max,
				 back, strerror(-ret));
			break;
		}
		inj_action(f, "%s: %s: set \"%s\" (was \"%s\")", cg->rdma_max, d->name, back,
			   has ? line : "(no line)");
	}
out:
	free(buf);
	return ret;
}

static int mr_cgroup_verify(struct inj_fault *f, struct mr_priv *priv)
{
	const struct mr_cgroup *cg = &priv->cg;
	char *buf = malloc(INJ_RDMACG_FILE), line[INJ_RDMACG_LINE];
	unsigned int i;
	int ret;

	if (!buf)
		return inj_fail(f, -ENOMEM, "mr_failure: out of memory");
	ret = mr_read_max(f, cg, buf);
	if (ret == -ENOENT)
		ret = 0; /* gone with its workload: no limit left anywhere */
	else
		for (i = 0; i < cg->nr && !ret; i++) {
			const struct mr_dev *d = &cg->dev[i];
			bool has = !inj_rdmacg_line(buf, d->name, line, sizeof(line));

			if (!mr_line_is_prior(d, has ? line : NULL))
				ret = inj_fail(f, -EIO,
					       "mr_failure: %s: %s reads \"%s\", not its prior "
					       "\"%s\"",
					       cg->rdma_max, d->name, has ? line : "(no line)",
					       d->prior[0] ? d->prior : "max");
		}
	free(buf);
	return ret;
}

static void mr_cgroup_describe_prior(const struct inj_fault *f, const struct mr_priv *priv,
				     json_t *o)
{
	const struct mr_cgroup *cg = &priv->cg;
	json_t *lines;
	unsigned int i;

	lines = json_object();
	for (i = 0; lines && i < cg->nr; i++)
		json_object_set_new(lines, cg->dev[i].name,
				    cg->dev[i].prior[0] ? json_string(cg->dev[i].prior)
							: json_null());
	json_object_set_new(o, "cgroup", json_string(f->target.cgroup));
	json_object_set_new(o, "rdma.max", lines ? lines : json_null());
	lines = json_array();
	for (i = 0; lines && i < cg->nr; i++)
		json_array_append_new(lines, json_string(cg->dev[i].limit));
	json_object_set_new(o, "limit", lines ? lines : json_null());
	json_object_set_new(o, "note",
			    json_string("the rdma cgroup refuses the objects the process "
					"creates from now on (device context, PD, MR, CQ, "
					"QP...) with EAGAIN; those it holds stay"));
}

static void mr_cgroup_snapshot(const struct mr_priv *priv, json_t *o)
{
	const struct mr_cgroup *cg = &priv->cg;
	json_t *devs = json_array();
	unsigned int i;

	for (i = 0; devs && i < cg->nr; i++)
		json_array_append_new(
		    devs,
		    json_pack("{s:s, s:o, s:s}", "name", cg->dev[i].name, "prior",
			      cg->dev[i].prior[0] ? json_string(cg->dev[i].prior) : json_null(),
			      "limit", cg->dev[i].limit));
	json_object_set_new(o, "rdma_max", json_string(cg->rdma_max));
	json_object_set_new(o, "devices", devs ? devs : json_null());
}

static int mr_cgroup_restore(struct mr_priv *priv, const json_t *snap)
{
	struct mr_cgroup *cg = &priv->cg;
	const json_t *devs = json_object_get(snap, "devices"), *d;
	size_t i;

	if (mr_snap_str(snap, "rdma_max", cg->rdma_max, sizeof(cg->rdma_max)) ||
	    !json_is_array(devs) || !json_array_size(devs) || json_array_size(devs) > MR_MAX_DEVS)
		return -EINVAL;
	json_array_foreach(devs, i, d) {
		struct mr_dev *m = &cg->dev[i];

		if (mr_snap_str(d, "name", m->name, sizeof(m->name)) ||
		    mr_snap_str(d, "limit", m->limit, sizeof(m->limit)))
			return -EINVAL;
		if (!json_is_null(json_object_get(d, "prior")) &&
		    mr_snap_str(d, "prior", m->prior, sizeof(m->prior)))
			return -EINVAL;
	}
	cg->nr = (unsigned int)json_array_size(devs);
	return 0;
}

/* Only the target's own rdma.max. */
static int mr_cgroup_owned(struct inj_fault *f, const struct mr_priv *priv)
{
	const struct inj_target *t = &f->target;
	const struct mr_cgroup *cg = &priv->cg;
	char want[sizeof(cg->rdma_max) + 16];

	snprintf(want, sizeof(want), "%s/rdma.max", t->cgroup);
	if (t->cgroup[0] && !strcmp(want, cg->rdma_max))
		return 0;
	return inj_fail(f, -EPERM,
			"mr_failure: the journaled snapshot names %s, not its target's "
			"cgroup (%s): refused",
			cg->rdma_max, t->cgroup[0] ? t->cgroup : "none");
}

static const char *const mr_cgroup_keys[] = {"device", "hca_object", "hca_handle", NULL};

const struct mr_mech_ops mr_cgroup_ops = {
    .name = "cgroup",
    .keys = mr_cgroup_keys,
    .parse = mr_cgroup_parse,
    .prepare = mr_cgroup_prepare,
    .inject = mr_cgroup_inject,
    .revert = mr_cgroup_revert,
    .verify = mr_cgroup_verify,
    .describe_prior = mr_cgroup_describe_prior,
    .snapshot = mr_cgroup_snapshot,
    .restore = mr_cgroup_restore,
    .owned = mr_cgroup_owned,
};
