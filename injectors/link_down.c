// SPDX-License-Identifier: MIT
/*
 * link_down: takes a netdev administratively down (clears IFF_UP, as
 * `ip link set IF down`) until reverted. Under an rxe or RoCE device this
 * drops the RDMA port (IBV_EVENT_PORT_ERR). Revert restores the IFF_UP state
 * seen at prepare time, so a link that was already down stays down.
 */
#include <errno.h>
#include <stdlib.h>

#include "injectors/inj_link.h"
#include "injectors/inj_util.h"

struct link_down_priv {
	bool prior_up;
};

static int link_down_validate(const json_t *params, char *err, size_t errlen)
{
	return inj_params_typed(&inj_link_down, params, NULL, err, errlen);
}

static int link_down_prepare(struct inj_fault *f)
{
	struct link_down_priv *priv = calloc(1, sizeof(*priv));
	int ret;

	if (!priv)
		return inj_fail(f, -ENOMEM, "link_down: %s: out of memory", f->target.netdev);
	ret = inj_link_get_up(f, &priv->prior_up);
	if (ret) {
		free(priv);
		return ret;
	}
	f->priv = priv;
	return 0;
}

static int link_down_inject(struct inj_fault *f)
{
	return inj_link_set_up(f, false);
}

static int link_down_revert(struct inj_fault *f)
{
	const struct link_down_priv *priv = f->priv;

	/* Nothing was snapshotted, so nothing was changed. */
	if (!priv)
		return 0;
	return inj_link_restore(f, priv->prior_up);
}

static int link_down_verify(struct inj_fault *f)
{
	const struct link_down_priv *priv = f->priv;

	return priv ? inj_link_verify(f, priv->prior_up) : 0;
}

static json_t *link_down_describe_prior(const struct inj_fault *f)
{
	const struct link_down_priv *priv = f->priv;

	return priv ? json_pack("{s:b}", "up", priv->prior_up) : json_object();
}

static json_t *link_down_snapshot(const struct inj_fault *f)
{
	const struct link_down_priv *priv = f->priv;

	return priv ? inj_link_snapshot(priv->prior_up) : NULL;
}

/* Only prior_up matters: revert restores it, whatever happened since. */
static int link_down_restore(struct inj_fault *f, const json_t *snapshot)
{
	struct link_down_priv *priv;
	bool up;
	int ret;

	ret = inj_link_snapshot_up(f, snapshot, &up);
	if (ret)
		return ret;
	priv = calloc(1, sizeof(*priv));
	if (!priv)
		return inj_fail(f, -ENOMEM, "link_down: %s: out of memory", f->target.netdev);
	priv->prior_up = up;
	f->priv = priv;
	return 0;
}

static void link_down_cleanup(struct inj_fault *f)
{
	free(f->priv);
	f->priv = NULL;
}

const struct injector inj_link_down = {
    .name = "link_down",
    .summary = "take a netdev administratively down until reverted",
    .flags = INJ_NEEDS_DURATION | INJ_LINK_OUTAGE | INJ_TYPED_PARAMS,
    .validate = link_down_validate,
    .prepare = link_down_prepare,
    .inject = link_down_inject,
    .revert = link_down_revert,
    .verify = link_down_verify,
    .describe_prior = link_down_describe_prior,
    .snapshot = link_down_snapshot,
    .restore = link_down_restore,
    .cleanup = link_down_cleanup,
    .warm = inj_link_warm,
};
