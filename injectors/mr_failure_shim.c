// SPDX-License-Identifier: MIT
/*
 * mr_failure's shim mechanism: the workload's preloaded verbs shim
 * (common/shim_proto.h) fails the next `count` registrations, or each with
 * `probability`, with `errno`. Revert is the shim's CLEAR; verify asks STATUS
 * that nothing is armed. The snapshot holds the shim's socket.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/shim_proto.h"
#include "injectors/inj_util.h"
#include "injectors/mr_failure_mech.h"
#include "common/errbuf.h"

#define MR_SHIM_TIMEOUT_MS 2000
#define MR_MAX_COUNT 1000000

static int mr_shim_parse(const json_t *params, struct mr_params *p, char *err, size_t errlen)
{
	const json_t *prob = json_object_get(params, "probability");
	const json_t *e = json_object_get(params, "errno");
	json_int_t count;
	int ret;

	if (prob && json_object_get(params, "count"))
		return errbuf_fail(
		    err, errlen, -EINVAL,
		    "mr_failure: params.count and params.probability: give one of the "
		    "two");
	ret = inj_params_int("mr_failure", params, "count", false, 1, MR_MAX_COUNT, 1, &count, err,
			     errlen);
	if (ret)
		return ret;
	p->count = (unsigned int)count;
	p->prob = 0;
	if (prob) {
		p->prob = json_number_value(prob);
		if (!json_is_number(prob) || !(p->prob > 0 && p->prob <= 1))
			return errbuf_fail(
			    err, errlen, -EINVAL,
			    "mr_failure: params.probability: must be a number with 0 < p "
			    "<= 1");
		p->count = 0;
	}
	p->err_no = ENOMEM;
	if (e) {
		if (json_is_integer(e) && json_integer_value(e) >= 1 &&
		    json_integer_value(e) <= 4095)
			p->err_no = (int)json_integer_value(e);
		else if (json_is_string(e) && shim_errno_parse(json_string_value(e)) > 0)
			p->err_no = shim_errno_parse(json_string_value(e));
		else
			return errbuf_fail(
			    err, errlen, -EINVAL,
			    "mr_failure: params.errno: must be an errno name such as "
			    "\"ENOMEM\" or a number in 1..4095");
	}
	return 0;
}

static int mr_shim_call(struct inj_fault *f, const char *sock, enum shim_op op,
			const struct shim_cmd *c, json_t **reply)
{
	struct shim_cmd cmd = c ? *c : (struct shim_cmd){.op = op};
	char who[128];

	snprintf(who, sizeof(who), "mr_failure: workload %s", f->target.workload);
	return inj_shim_call(f, sock, &cmd, MR_SHIM_TIMEOUT_MS, who, false, reply);
}

static int mr_shim_prepare(struct inj_fault *f, struct mr_priv *priv, const struct mr_params *p)
{
	struct mr_shim *sh = &priv->sh;
	json_t *reply;
	int ret;

	if (!f->target.shim_sock[0])
		return inj_fail(
		    f, -EINVAL,
		    "mr_failure: workload %s was started without the verbs shim: start it "
		    "with \"shim\": true for mechanism shim",
		    f->target.workload);
	snprintf(sh->sock, sizeof(sh->sock), "%s", f->target.shim_sock);
	sh->cmd = (struct shim_cmd){
	    .op = SHIM_OP_FAIL_MR,
	    .mr_count = p->count,
	    .mr_prob = p->prob,
	    .mr_errno = p->err_no,
	};
	/* Reachable before anything is journaled or armed. */
	ret = mr_shim_call(f, sh->sock, SHIM_OP_STATUS, NULL, &reply);
	json_decref(reply);
	return ret;
}

static int mr_shim_inject(struct inj_fault *f, struct mr_priv *priv)
{
	json_t *reply;
	int ret;

	ret = mr_shim_call(f, priv->sh.sock, SHIM_OP_FAIL_MR, &priv->sh.cmd, &reply);
	json_decref(reply);
	return ret;
}

static int mr_shim_revert(struct inj_fault *f, struct mr_priv *priv)
{
	const char *sock = priv->sh.sock;
	json_t *reply;
	int ret;

	ret = mr_shim_call(f, sock, SHIM_OP_CLEAR, NULL, &reply);
	if (ret == -ESRCH) {
		inj_action(f, "%s: the shim is gone (the workload exited): nothing to clear", sock);
		f->err[0] = '\0';
		return 0;
	}
	if (!ret)
		inj_action(f, "%s: shim cleared%s", sock,
			   json_is_false(json_object_get(reply, "was_armed"))
			       ? " (nothing was armed)"
			       : "");
	json_decref(reply);
	return ret;
}

/* Whether a STATUS reply shows nothing armed. */
static bool mr_shim_disarmed(const json_t *reply)
{
	const json_t *armed = json_object_get(reply, "armed");

	return json_is_object(armed) && json_is_false(json_object_get(armed, "any"));
}

static int mr_shim_verify(struct inj_fault *f, struct mr_priv *priv)
{
	json_t *reply;
	int ret;

	ret = mr_shim_call(f, priv->sh.sock, SHIM_OP_STATUS, NULL, &reply);
	if (ret == -ESRCH) {
		f->err[0] = '\0';
		return 0;
	}
	if (!ret && !mr_shim_disarmed(reply)) {
		char *s = json_dumps(json_object_get(reply, "armed"), JSON_COMPACT);

		ret = inj_fail(f, -EIO, "mr_failure: %s: the shim is still armed: %s",
			       priv->sh.sock, s ? s : "?");
		free(s);
	}
	json_decref(reply);
	return ret;
}

static void mr_shim_describe_prior(const struct inj_fault *f, const struct mr_priv *priv, json_t *o)
{
	const struct mr_shim *sh = &priv->sh;

	json_object_set_new(o, "shim_sock", json_string(sh->sock));
	if (sh->cmd.mr_prob > 0)
		json_object_set_new(o, "probability", json_real(sh->cmd.mr_prob));
	else
		json_object_set_new(o, "count", json_integer(sh->cmd.mr_count));
	json_object_set_new(o, "errno", json_integer(sh->cmd.mr_errno));
}

static void mr_shim_snapshot(const struct mr_priv *priv, json_t *o)
{
	json_object_set_new(o, "shim_sock", json_string(priv->sh.sock));
}

static int mr_shim_restore(struct mr_priv *priv, const json_t *snap)
{
	return mr_snap_str(snap, "shim_sock", priv->sh.sock, sizeof(priv->sh.sock));
}

/* Only the target's own shim's socket. */
static int mr_shim_owned(struct inj_fault *f, const struct mr_priv *priv)
{
	const struct inj_target *t = &f->target;

	if (t->shim_sock[0] && !strcmp(t->shim_sock, priv->sh.sock))
		return 0;
	return inj_fail(f, -EPERM,
			"mr_failure: the journaled snapshot names the socket %s, not its "
			"target's shim (%s): refused",
			priv->sh.sock, t->shim_sock[0] ? t->shim_sock : "none");
}

static const char *const mr_shim_keys[] = {"count", "probability", "errno", NULL};

const struct mr_mech_ops mr_shim_ops = {
    .name = "shim",
    .keys = mr_shim_keys,
    .parse = mr_shim_parse,
    .prepare = mr_shim_prepare,
    .inject = mr_shim_inject,
    .revert = mr_shim_revert,
    .verify = mr_shim_verify,
    .describe_prior = mr_shim_describe_prior,
    .snapshot = mr_shim_snapshot,
    .restore = mr_shim_restore,
    .owned = mr_shim_owned,
};
