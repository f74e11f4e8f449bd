// SPDX-License-Identifier: MIT
/*
 * mr_failure: memory registrations (and other verbs objects) of one workload
 * fail, by one of three mechanisms chosen per fault. The target is a workload
 * the agent started ({"workload": WL_ID}).
 *
 *   cgroup   the kernel's rdma cgroup's rdma.max (mr_failure_cgroup.c)
 *   memlock  RLIMIT_MEMLOCK through prlimit(2) (mr_failure_memlock.c)
 *   shim     the workload's preloaded verbs shim (mr_failure_shim.c)
 *
 * This file reads the params and picks the mechanism's ops table
 * (injectors/mr_failure_mech.h) once: from params.mechanism in prepare, from
 * the snapshot's "mechanism" in restore. Every later step calls through the
 * table kept in f->priv. Every mechanism's snapshot holds all that revert and
 * verify need, so an agent restarted after dying mid-fault reverts from the
 * journal alone. Paths are the target's absolute cgroup folder and
 * mr_failure_proc_root (injectors/mr_failure.h), so tests run against
 * temporary folders.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "injectors/inj_util.h"
#include "injectors/mr_failure_mech.h"
#include "common/errbuf.h"

/* Every mechanism, for params.mechanism and a snapshot's "mechanism". */
static const struct mr_mech_ops *const mr_mechs[] = {&mr_cgroup_ops, &mr_memlock_ops, &mr_shim_ops,
						     NULL};

static const char *const mr_params_all[] = {"mechanism",   "device", "hca_object",
					    "hca_handle",  "bytes",  "count",
					    "probability", "errno",  NULL};

static const char *const mr_help[] = {
    "mechanism=cgroup|memlock|shim (required): the rdma cgroup's rdma.max, RLIMIT_MEMLOCK "
    "through prlimit(2), or the workload's verbs shim",
    "device=string (cgroup): the RDMA device (default: the target's, else every device "
    "rdma.max lists)",
    "hca_object=int|\"current\" default \"current\" (cgroup): the object limit; current = "
    "what the cgroup holds now, so the next creation fails with EAGAIN",
    "hca_handle=int|\"current\" (cgroup): also limit the device contexts (default: untouched)",
    "bytes=int|size default 0 (memlock): soft and hard RLIMIT_MEMLOCK; needs a workload "
    "started with no_ipc_lock",
    "count=int default 1 (shim): fail the next count registrations",
    "probability=number (shim): instead, fail each registration with this probability (0 < p "
    "<= 1)",
    "errno=name|int default ENOMEM (shim): the errno the failed registrations report",
    NULL,
};

int mr_snap_str(const json_t *o, const char *key, char *buf, size_t len)
{
	const json_t *v = json_object_get(o, key);

	if (!json_is_string(v) || !json_string_length(v) || json_string_length(v) >= len ||
	    strlen(json_string_value(v)) != json_string_length(v))
		return -EINVAL;
	memcpy(buf, json_string_value(v), json_string_length(v) + 1);
	return 0;
}

/* The mechanism called name, or NULL (name NULL included). */
static const struct mr_mech_ops *mr_mech_find(const char *name)
{
	const struct mr_mech_ops *const *m;

	for (m = mr_mechs; name && *m; m++)
		if (!strcmp(name, (*m)->name))
			return *m;
	return NULL;
}

static int mr_parse(const json_t *params, struct mr_params *p, char *err, size_t errlen)
{
	const char *mech = json_string_value(json_object_get(params, "mechanism"));
	const char *key;
	json_t *v;
	int ret;

	memset(p, 0, sizeof(*p));
	ret = inj_params_known("mr_failure", params, mr_params_all, err, errlen);
	if (ret)
		return ret;
	p->ops = mr_mech_find(mech);
	if (!p->ops)
		return errbuf_fail(err, errlen, -EINVAL,
				   "mr_failure: params.mechanism: %s (\"cgroup\", \"memlock\" or "
				   "\"shim\")",
				   json_object_get(params, "mechanism") ? "unknown" : "missing");
	json_object_foreach((json_t *)params, key, v) {
		const char *const *k;

		if (!strcmp(key, "mechanism"))
			continue;
		for (k = p->ops->keys; *k && strcmp(*k, key); k++)
			;
		if (!*k)
			return errbuf_fail(err, errlen, -EINVAL,
					   "mr_failure: params.%s: not a parameter of mechanism %s",
					   key, mech);
	}
	return p->ops->parse(params, p, err, errlen);
}

static int mr_validate(const json_t *params, char *err, size_t errlen)
{
	struct mr_params p;

	return mr_parse(params, &p, err, errlen);
}

static int mr_prepare(struct inj_fault *f)
{
	struct mr_priv *priv;
	struct mr_params p;
	int ret;

	ret = mr_parse(f->params, &p, f->err, sizeof(f->err));
	if (ret)
		return ret;
	if (!f->target.workload[0] || f->target.pid <= 0)
		return inj_fail(
		    f, -EINVAL,
		    "mr_failure: the target must be a workload ({\"workload\": WL_ID}): "
		    "the fault acts on one process the agent started");
	priv = calloc(1, sizeof(*priv));
	if (!priv)
		return inj_fail(f, -ENOMEM, "mr_failure: out of memory");
	priv->ops = p.ops;
	ret = priv->ops->prepare(f, priv, &p);
	if (ret) {
		free(priv);
		return ret;
	}
	f->priv = priv;
	return 0;
}

static int mr_inject(struct inj_fault *f)
{
	struct mr_priv *priv = f->priv;

	return priv->ops->inject(f, priv);
}

static int mr_revert(struct inj_fault *f)
{
	struct mr_priv *priv = f->priv;

	/* Nothing was snapshotted, so nothing was changed. */
	return priv ? priv->ops->revert(f, priv) : 0;
}

static int mr_verify(struct inj_fault *f)
{
	struct mr_priv *priv = f->priv;

	return priv ? priv->ops->verify(f, priv) : 0;
}

static json_t *mr_snapshot(const struct inj_fault *f)
{
	const struct mr_priv *priv = f->priv;
	json_t *o;

	if (!priv)
		return NULL;
	o = json_pack("{s:s}", "mechanism", priv->ops->name);
	if (o)
		priv->ops->snapshot(priv, o);
	return o;
}

static int mr_restore(struct inj_fault *f, const json_t *snap)
{
	const char *mech = json_string_value(json_object_get(snap, "mechanism"));
	struct mr_priv *priv = calloc(1, sizeof(*priv));
	int ret;

	if (!priv)
		return inj_fail(f, -ENOMEM, "mr_failure: out of memory");
	priv->ops = mr_mech_find(mech);
	ret = priv->ops ? priv->ops->restore(priv, snap) : -EINVAL;
	if (ret) {
		free(priv);
		return inj_fail(f, -EINVAL,
				"mr_failure: the journaled snapshot is unusable (mechanism %s): "
				"nothing to revert with",
				mech ? mech : "missing");
	}
	ret = priv->ops->owned(f, priv);
	if (ret) {
		free(priv);
		return ret;
	}
	f->priv = priv;
	return 0;
}

static json_t *mr_describe_prior(const struct inj_fault *f)
{
	const struct mr_priv *priv = f->priv;
	json_t *o;

	if (!priv)
		return json_object();
	o = json_pack("{s:s, s:s}", "mechanism", priv->ops->name, "workload", f->target.workload);
	if (o)
		priv->ops->describe_prior(f, priv, o);
	return o;
}

static void mr_cleanup(struct inj_fault *f)
{
	free(f->priv);
	f->priv = NULL;
}

const struct injector inj_mr_failure = {
    .name = "mr_failure",
    .summary = "make a workload's memory registrations fail (rdma cgroup, RLIMIT_MEMLOCK or "
	       "its verbs shim)",
    .flags = INJ_NEEDS_DURATION | INJ_BITES_ON_REG,
    .param_help = mr_help,
    .validate = mr_validate,
    .prepare = mr_prepare,
    .inject = mr_inject,
    .revert = mr_revert,
    .verify = mr_verify,
    .describe_prior = mr_describe_prior,
    .snapshot = mr_snapshot,
    .restore = mr_restore,
    .cleanup = mr_cleanup,
};
