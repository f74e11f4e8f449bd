// SPDX-License-Identifier: MIT
/*
 * port_flap: takes a netdev down and up `count` times on a seeded, jittered
 * schedule (injectors/flap_schedule.h), one `fault` event per transition
 * (flap_down, flap_up). inject() makes the first down at once; the agent
 * calls tick() at f->next_tick_ns for each later transition. Revert stops the
 * schedule wherever it is and restores the IFF_UP state seen at prepare time,
 * also in an agent that restarted after dying mid-schedule (restore()).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/units.h"
#include "injectors/flap_schedule.h"
#include "injectors/inj_link.h"
#include "injectors/inj_util.h"

struct port_flap_priv {
	bool prior_up;
	struct flap_params p;
	uint64_t *at_ms;   /* transition k at start_ns + at_ms[k] ms */
	size_t n;	   /* 2 * count transitions */
	size_t next;	   /* the next transition to make */
	uint64_t start_ns; /* when transition 0 was made */
};

enum { FLAP_COUNT, FLAP_DOWN, FLAP_UP, FLAP_JITTER, FLAP_SEED, FLAP_NR_PARAMS };

static const struct inj_param port_flap_params[FLAP_NR_PARAMS] = {
    [FLAP_COUNT] = {"count", "count", INJ_PT_INT, 1, FLAP_MAX_COUNT, true, false, 0,
		    "how many down/up cycles, 1..1000"},
    [FLAP_DOWN] = {"down", "down_ms", INJ_PT_DURATION, 1, FLAP_MAX_PERIOD_MS, true, false, 0,
		   "how long each down lasts"},
    [FLAP_UP] = {"up", "up_ms", INJ_PT_DURATION, 1, FLAP_MAX_PERIOD_MS, true, false, 0,
		 "how long each up lasts"},
    [FLAP_JITTER] = {"jitter", "jitter_ms", INJ_PT_DURATION, 0, FLAP_MAX_PERIOD_MS, false, true, 0,
		     "each period moves by a uniform +-jitter, shorter than down and up"},
    [FLAP_SEED] = {"seed", "seed", INJ_PT_INT, 0, INT64_MAX, false, false, 1,
		   "the jitter's seed; same seed, same schedule"},
};

static int port_flap_parse(const json_t *params, struct flap_params *p, char *err, size_t errlen)
{
	json_int_t v[FLAP_NR_PARAMS];
	int ret;

	ret = inj_params_typed(&inj_port_flap, params, v, err, errlen);
	if (ret)
		return ret;
	*p = (struct flap_params){
	    .count = (unsigned int)v[FLAP_COUNT],
	    .down_ms = (uint64_t)v[FLAP_DOWN],
	    .up_ms = (uint64_t)v[FLAP_UP],
	    .jitter_ms = (uint64_t)v[FLAP_JITTER],
	    .seed = (uint64_t)v[FLAP_SEED],
	};
	return flap_params_check(p, err, errlen);
}

static int port_flap_validate(const json_t *params, char *err, size_t errlen)
{
	struct flap_params p;

	return port_flap_parse(params, &p, err, errlen);
}

/*
 * Each of the 2 x count periods moves by up to +-jitter, so the last up comes
 * at the latest at count x down + (count - 1) x up + (2 x count - 1) x jitter.
 * The fault lasts count x (down + up), or until that last up plus its drift
 * when the drift is longer than one up period.
 */
static uint64_t port_flap_min_duration_ms(const json_t *params, char *why, size_t len)
{
	struct flap_params p;
	char err[INJ_ERR_LEN], b1[32], b2[32], b3[32];
	uint64_t drift, need;

	if (port_flap_parse(params, &p, err, sizeof(err))) {
		snprintf(why, len, "%s", err);
		return 0;
	}
	drift = (2 * (uint64_t)p.count - 1) * p.jitter_ms;
	need = p.count * p.down_ms + (p.count - 1) * p.up_ms + (drift > p.up_ms ? drift : p.up_ms);
	snprintf(why, len, "the flaps it must hold (%u x (down %s + up %s)%s = %s)", p.count,
		 rc_format_duration_ms(p.down_ms, b1, sizeof(b1)),
		 rc_format_duration_ms(p.up_ms, b2, sizeof(b2)),
		 drift > p.up_ms ? ", plus jitter drift" : "",
		 rc_format_duration_ms(need, b3, sizeof(b3)));
	return need;
}

/* A flap holds a workload up for one down: the first up ends the impact. */
static uint64_t port_flap_outage_ms(const json_t *params, uint64_t duration_ms, const char **key)
{
	*key = port_flap_params[FLAP_DOWN].key;
	return (uint64_t)json_integer_value(json_object_get(params, "down_ms"));
}

static void port_flap_cleanup(struct inj_fault *f)
{
	struct port_flap_priv *priv = f->priv;

	if (!priv)
		return;
	free(priv->at_ms);
	free(priv);
	f->priv = NULL;
}

/* f->priv with the parameters and the schedule, from f->params; touches nothing. */
static int port_flap_alloc(struct inj_fault *f)
{
	struct port_flap_priv *priv = calloc(1, sizeof(*priv));
	int ret;

	if (!priv)
		return inj_fail(f, -ENOMEM, "port_flap: %s: out of memory", f->target.netdev);
	f->priv = priv;
	ret = port_flap_parse(f->params, &priv->p, f->err, sizeof(f->err));
	if (ret)
		goto err;
	priv->n = 2 * (size_t)priv->p.count;
	priv->at_ms = calloc(priv->n, sizeof(*priv->at_ms));
	if (!priv->at_ms) {
		ret = inj_fail(f, -ENOMEM, "port_flap: %s: out of memory", f->target.netdev);
		goto err;
	}
	ret = flap_schedule(&priv->p, priv->at_ms, priv->n);
	if (ret)
		goto err;
	return 0;
err:
	port_flap_cleanup(f);
	return ret;
}

static int port_flap_prepare(struct inj_fault *f)
{
	struct port_flap_priv *priv;
	int ret;

	ret = port_flap_alloc(f);
	if (ret)
		return ret;
	priv = f->priv;
	ret = inj_link_get_up(f, &priv->prior_up);
	if (ret)
		goto err;
	if (!priv->prior_up) {
		ret = inj_fail(f, -ENETDOWN,
			       "port_flap: %s: refused: the link is already down, nothing to flap",
			       f->target.netdev);
		goto err;
	}
	return 0;
err:
	port_flap_cleanup(f);
	return ret;
}

/* Makes transition k (even: down, odd: up) and reports it. */
static int port_flap_step(struct inj_fault *f, struct port_flap_priv *priv)
{
	size_t k = priv->next;
	bool down = !(k % 2);
	int ret;

	ret = inj_link_set_up(f, !down);
	if (ret)
		return ret;
	priv->next++;
	f->next_tick_ns =
	    priv->next < priv->n ? priv->start_ns + priv->at_ms[priv->next] * RC_NSEC_PER_MSEC : 0;
	if (f->env && f->env->event)
		f->env->event(f, down ? "flap_down" : "flap_up",
			      json_pack("{s:I, s:I, s:I}", "cycle", (json_int_t)(k / 2 + 1), "of",
					(json_int_t)priv->p.count, "at_ms",
					(json_int_t)priv->at_ms[k]));
	return 0;
}

static int port_flap_inject(struct inj_fault *f)
{
	struct port_flap_priv *priv = f->priv;

	priv->start_ns = rc_now_ns();
	priv->next = 0;
	return port_flap_step(f, priv);
}

static int port_flap_tick(struct inj_fault *f, uint64_t now_ns)
{
	struct port_flap_priv *priv = f->priv;

	if (!priv || priv->next >= priv->n || f->reverted) {
		f->next_tick_ns = 0;
		return 0;
	}
	if (now_ns < priv->start_ns + priv->at_ms[priv->next] * RC_NSEC_PER_MSEC)
		return 0; /* early: next_tick_ns still says when */
	return port_flap_step(f, priv);
}

static int port_flap_revert(struct inj_fault *f)
{
	struct port_flap_priv *priv = f->priv;

	f->next_tick_ns = 0;
	if (!priv)
		return 0;
	priv->next = priv->n; /* the schedule ends here, whatever happens next */
	return inj_link_restore(f, priv->prior_up);
}

static int port_flap_verify(struct inj_fault *f)
{
	const struct port_flap_priv *priv = f->priv;

	return priv ? inj_link_verify(f, priv->prior_up) : 0;
}

static json_t *port_flap_describe_prior(const struct inj_fault *f)
{
	const struct port_flap_priv *priv = f->priv;
	json_t *sched;
	size_t k;

	if (!priv)
		return json_object();
	sched = json_array();
	for (k = 0; k < priv->n; k++)
		json_array_append_new(sched, json_integer((json_int_t)priv->at_ms[k]));
	return json_pack("{s:b, s:o}", "up", priv->prior_up, "schedule_ms", sched);
}

static json_t *port_flap_snapshot(const struct inj_fault *f)
{
	const struct port_flap_priv *priv = f->priv;

	return priv ? inj_link_snapshot(priv->prior_up) : NULL;
}

/*
 * The schedule is rebuilt from the params (describe_prior stays whole) but is
 * over: wherever the dead agent left the link, revert brings it back to the
 * prior state and no transition follows.
 */
static int port_flap_restore(struct inj_fault *f, const json_t *snapshot)
{
	struct port_flap_priv *priv;
	bool up;
	int ret;

	ret = inj_link_snapshot_up(f, snapshot, &up);
	if (ret)
		return ret;
	ret = port_flap_alloc(f);
	if (ret)
		return ret;
	priv = f->priv;
	priv->prior_up = up;
	priv->next = priv->n;
	f->next_tick_ns = 0;
	return 0;
}

const struct injector inj_port_flap = {
    .name = "port_flap",
    .summary = "take a netdev down and up COUNT times on a seeded, jittered schedule",
    .flags = INJ_LINK_OUTAGE | INJ_SEEDED | INJ_TYPED_PARAMS,
    .params = port_flap_params,
    .nr_params = FLAP_NR_PARAMS,
    .validate = port_flap_validate,
    .min_duration_ms = port_flap_min_duration_ms,
    .outage_ms = port_flap_outage_ms,
    .prepare = port_flap_prepare,
    .inject = port_flap_inject,
    .tick = port_flap_tick,
    .revert = port_flap_revert,
    .verify = port_flap_verify,
    .describe_prior = port_flap_describe_prior,
    .snapshot = port_flap_snapshot,
    .restore = port_flap_restore,
    .cleanup = port_flap_cleanup,
    .warm = inj_link_warm,
};
