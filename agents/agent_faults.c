// SPDX-License-Identifier: MIT
/*
 * The agent's faults: inject, revert, revert_all, faults and renew requests,
 * the timers injectors ask for (port_flap ticks), the two safety nets (the
 * auto-revert after duration_ms + 5 s, and leases the coordinator must renew),
 * the revert journal's records (agents/agent_journal.h) and their replay at
 * start-up, and the `fault` events.
 *
 * A fault is active from a successful inject until a revert whose result
 * verifies; a revert that fails or does not verify leaves it active, so the
 * next revert (or revert_all, or shutdown) tries again. At most one active
 * fault per netdev, so every snapshot is of the state before any fault.
 * Reverted records are kept (up to AGENT_FAULTS_KEPT) so a repeated revert
 * answers "already".
 *
 * Journal: a fault's record is written (durably) before inject() and closed
 * only when a revert verifies, so an agent killed at any point leaves either
 * no record and no fault, or a record its next start reverts.
 *
 * Metrics: the records (agent_faults_stats) and the successful injects per
 * injector (a->faults_injected, agent_faults_injected).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agents/agent.h"
#include "agents/agent_metrics.h"
#include "common/netif.h"
#include "common/units.h"

#define AGENT_AUTO_REVERT_GRACE_NS (5 * RC_NSEC_PER_SEC)
#define AGENT_FAULTS_KEPT 256

struct agent_fault {
	struct agent_list node; /* on a->faults, oldest first */
	struct agent *a;
	struct inj_fault f;
	struct agent_timer tick_timer;
	struct agent_timer auto_timer;
	struct agent_timer lease_timer;
	uint64_t lease_ms; /* 0: no lease */
	bool active;
	bool verified;	    /* the last revert verified */
	bool revert_failed; /* the last revert failed or did not verify; f.err says why */
	bool journaled;	    /* its journal record is open */
	char retired[160];  /* why it left the active list without a verified revert, "" if not */
	json_t *deferred;   /* events an injector reported during inject(), sent after `inject` */
};

static struct agent_fault *agent_fault_find(struct agent *a, const char *id)
{
	struct agent_list *pos, *tmp;

	agent_list_for_each_safe(pos, tmp, &a->faults)
	{
		struct agent_fault *af = agent_list_entry(pos, struct agent_fault, node);

		if (!strcmp(af->f.id, id))
			return af;
	}
	return NULL;
}

/* What a fault acts on, for sentences: its netdev, else (a workload target) its wl_id. */
static const char *agent_fault_obj(const struct inj_target *t)
{
	return t->netdev[0] || !t->workload[0] ? t->netdev : t->workload;
}

/*
 * The active fault on t's netdev or t's workload, if any: at most one per
 * netdev and one per workload, so every snapshot is of the state before any
 * fault (and one shim's CLEAR cannot undo another fault's arming).
 */
static struct agent_fault *agent_fault_on(struct agent *a, const struct inj_target *t)
{
	struct agent_list *pos, *tmp;

	agent_list_for_each_safe(pos, tmp, &a->faults)
	{
		struct agent_fault *af = agent_list_entry(pos, struct agent_fault, node);

		if (af->active &&
		    ((t->netdev[0] && (!strcmp(af->f.target.netdev, t->netdev) ||
				       (t->ifindex > 0 && af->f.target.ifindex == t->ifindex))) ||
		     (t->workload[0] && !strcmp(af->f.target.workload, t->workload))))
			return af;
	}
	return NULL;
}

static void agent_fault_free(struct agent_fault *af)
{
	agent_timer_cancel(&af->tick_timer);
	agent_timer_cancel(&af->auto_timer);
	agent_timer_cancel(&af->lease_timer);
	agent_list_del(&af->node);
	if (af->f.inj && af->f.inj->cleanup)
		af->f.inj->cleanup(&af->f);
	json_decref(af->f.params);
	json_decref(af->f.actions);
	json_decref(af->deferred);
	free(af);
}

/* Drops the oldest inactive records beyond the limit. */
static void agent_faults_trim(struct agent *a)
{
	struct agent_list *pos, *tmp;
	unsigned int inactive = 0;

	agent_list_for_each_safe(pos, tmp, &a->faults) inactive +=
	    !agent_list_entry(pos, struct agent_fault, node)->active;
	agent_list_for_each_safe(pos, tmp, &a->faults)
	{
		struct agent_fault *af = agent_list_entry(pos, struct agent_fault, node);

		if (inactive <= AGENT_FAULTS_KEPT)
			break;
		if (!af->active) {
			agent_fault_free(af);
			inactive--;
		}
	}
}

static json_t *agent_fault_fields(const struct agent_fault *af, const char *action)
{
	const struct inj_target *t = &af->f.target;
	json_t *o = json_pack("{s:s, s:s, s:s, s:s}", "fault_id", af->f.id, "action", action,
			      "netdev", t->netdev, "injector", af->f.inj->name);

	if (o && t->rail >= 0)
		json_object_set_new(o, "rail", json_integer(t->rail));
	if (o && t->device[0]) {
		json_object_set_new(o, "device", json_string(t->device));
		json_object_set_new(o, "port", json_integer(t->port));
	}
	if (o && t->workload[0]) {
		json_object_set_new(o, "workload", json_string(t->workload));
		json_object_set_new(o, "pid", json_integer(t->pid));
	}
	return o;
}

/* inj_env.event: an injector's own step took effect now (flap_down, flap_up). */
static void agent_fault_env_event(struct inj_fault *f, const char *action, json_t *extra)
{
	struct agent_fault *af = agent_container_of(f, struct agent_fault, f);
	json_t *fields = agent_fault_fields(af, action);

	if (fields && extra)
		json_object_update_missing(fields, extra);
	json_decref(extra);
	rc_info("fault %s: %s on %s", f->id, action, agent_fault_obj(&f->target));
	if (af->deferred) {
		/* Still inside inject(): keep the order inject, then the injector's steps. */
		json_array_append_new(
		    af->deferred,
		    json_pack("{s:I, s:o}", "ts_ns", (json_int_t)rc_now_ns(), "fields", fields));
		return;
	}
	agent_emit(af->a, "fault", fields);
}

/* Closes af's journal record, if open; a failure is loud but changes nothing else. */
static void agent_fault_journal_close(struct agent_fault *af)
{
	char err[512];

	if (!af->journaled)
		return;
	if (agent_journal_close(&af->a->journal, af->f.id, err, sizeof(err))) {
		agent_notice(af->a, RC_LOG_ERR,
			     "fault %s: no longer active, but its record stays: %s (the next "
			     "start replays it)",
			     af->f.id, err);
		return;
	}
	af->journaled = false;
}

static void agent_fault_schedule_tick(struct agent_fault *af)
{
	if (af->active && af->f.next_tick_ns)
		agent_timer_set(&af->a->loop, &af->tick_timer, af->f.next_tick_ns);
	else
		agent_timer_cancel(&af->tick_timer);
}

static void agent_fault_tick(struct agent_timer *t)
{
	struct agent_fault *af = agent_container_of(t, struct agent_fault, tick_timer);
	int ret;

	if (!af->active || !af->f.inj->tick)
		return;
	af->f.err[0] = '\0';
	ret = af->f.inj->tick(&af->f, rc_now_ns());
	if (ret) {
		/* The fault stays active: revert (or the auto-revert) restores the snapshot. */
		agent_notice(af->a, RC_LOG_ERR, "fault %s: schedule stopped: %s", af->f.id,
			     af->f.err[0] ? af->f.err : strerror(-ret));
		af->f.next_tick_ns = 0;
	}
	agent_fault_schedule_tick(af);
}

/*
 * Reverts af and verifies the result; emits a `fault` event with `action`.
 * 0 when the revert ran (see *verified, af->f.err says why not), -errno when
 * it failed (af->f.err says why). Sentences go to actions.
 */
/*
 * Whether a revert that answered ret found the fault's netdev gone: -ENODEV, and its ifindex
 * names no netdev now. A netdev that came back under the same name is another object, one the
 * fault never touched; the one it touched took the fault with it.
 */
static bool agent_fault_target_gone(const struct inj_target *t, int ret)
{
	char name[IF_NAMESIZE];

	if (ret != -ENODEV || !t->netdev[0])
		return false;
	return t->ifindex <= 0 || !rc_if_indextoname((unsigned int)t->ifindex, name);
}

/*
 * Takes an active fault off the list without a verified revert, for a reason the log, the
 * event and the answers carry: its record closed, its timers off, its concurrency slot free.
 * verified: whether nothing of the fault can be left (its netdev is gone), or not (an
 * operator dropped it: the object is to be checked by hand).
 */
static void agent_fault_retire(struct agent_fault *af, const char *action, bool verified,
			       const char *why)
{
	struct inj_fault *f = &af->f;
	json_t *fields;

	snprintf(af->retired, sizeof(af->retired), "%s", why);
	f->reverted = true;
	f->reverted_at_ns = rc_now_ns();
	af->active = false;
	af->verified = verified;
	af->revert_failed = false;
	agent_timer_cancel(&af->tick_timer);
	agent_timer_cancel(&af->auto_timer);
	agent_timer_cancel(&af->lease_timer);
	agent_fault_journal_close(af);
	agent_notice(af->a, RC_LOG_WARN, "fault %s (%s on %s): %s: retired, its record closed",
		     f->id, f->inj->name, agent_fault_obj(&f->target), why);
	fields = agent_fault_fields(af, action);
	json_object_set_new(fields, "verified", json_boolean(verified));
	json_object_set_new(fields, "retired", json_string(why));
	agent_emit_at(af->a, "fault", f->reverted_at_ns, fields);
}

static int agent_fault_revert(struct agent_fault *af, const char *action, bool *verified,
			      json_t *actions)
{
	struct inj_fault *f = &af->f;
	json_t *fields;
	size_t i;
	json_t *s;
	int ret;

	*verified = false;
	agent_timer_cancel(&af->tick_timer);
	json_decref(f->actions);
	f->actions = json_array();
	f->err[0] = '\0';
	ret = f->inj->revert(f);
	if (agent_fault_target_gone(&f->target, ret)) {
		char why[sizeof(af->retired)];

		snprintf(why, sizeof(why),
			 "%s (ifindex %d) no longer exists: nothing is left to revert",
			 f->target.netdev, f->target.ifindex);
		agent_fault_retire(af, action, true, why);
		f->err[0] = '\0';
		*verified = true;
		return 0;
	}
	if (ret) {
		if (!f->err[0])
			snprintf(f->err, sizeof(f->err), "%s: %s: revert: %s", f->inj->name,
				 agent_fault_obj(&f->target), strerror(-ret));
		af->revert_failed = true;
		agent_notice(af->a, RC_LOG_ERR, "fault %s: %s", f->id, f->err);
		return ret;
	}
	f->reverted = true;
	f->reverted_at_ns = rc_now_ns();
	ret = f->inj->verify ? f->inj->verify(f) : 0;
	*verified = !ret;
	if (ret && !f->err[0])
		snprintf(f->err, sizeof(f->err), "%s: %s: verify: %s", f->inj->name,
			 agent_fault_obj(&f->target), strerror(-ret));
	af->verified = *verified;
	af->revert_failed = !*verified;
	if (*verified) {
		af->active = false;
		agent_timer_cancel(&af->auto_timer);
		agent_timer_cancel(&af->lease_timer);
		agent_fault_journal_close(af);
	}
	json_array_foreach(f->actions, i, s)
		if (actions)
			json_array_append(actions, s);
	fields = agent_fault_fields(af, action);
	json_object_set_new(fields, "verified", json_boolean(*verified));
	json_object_set(fields, "actions", f->actions);
	if (!*verified)
		json_object_set_new(fields, "verify_error", json_string(f->err));
	rc_info("fault %s: %s on %s, %s", f->id, action, agent_fault_obj(&f->target),
		*verified ? "verified" : f->err);
	agent_emit_at(af->a, "fault", f->reverted_at_ns, fields);
	return 0;
}

static void agent_fault_auto_revert(struct agent_timer *t)
{
	struct agent_fault *af = agent_container_of(t, struct agent_fault, auto_timer);
	bool verified;

	if (!af->active)
		return;
	agent_notice(af->a, RC_LOG_WARN,
		     "fault %s: no revert came within duration_ms %llu + 5 s: reverting it myself",
		     af->f.id, (unsigned long long)af->f.duration_ms);
	agent_fault_revert(af, "auto_revert", &verified, NULL);
}

/* The lease ran out: the coordinator that holds the fault is gone or cut off. */
static void agent_fault_lease_expired(struct agent_timer *t)
{
	struct agent_fault *af = agent_container_of(t, struct agent_fault, lease_timer);
	bool verified;

	if (!af->active)
		return;
	agent_notice(af->a, RC_LOG_WARN,
		     "fault %s: lease expired: no renew within lease_ms %llu: reverting it myself",
		     af->f.id, (unsigned long long)af->lease_ms);
	agent_fault_revert(af, "lease_expired", &verified, NULL);
}

/* Extends af's lease to now + lease_ms. */
static void agent_fault_lease_renew(struct agent_fault *af, uint64_t now_ns)
{
	if (af->lease_ms)
		agent_timer_set(&af->a->loop, &af->lease_timer,
				now_ns + af->lease_ms * RC_NSEC_PER_MSEC);
}

static int agent_fault_fail(char *err, size_t errlen, const struct inj_fault *f, int ret)
{
	if (f->err[0])
		snprintf(err, errlen, "%s", f->err);
	else
		snprintf(err, errlen, "%s: %s: %s", f->inj->name, agent_fault_obj(&f->target),
			 strerror(-ret));
	return ret;
}

/* Everything a request can get wrong, checked before any state is touched. */
static int agent_inject_check(struct agent *a, const json_t *req, const struct injector **inj,
			      struct inj_target *t, char *err, size_t errlen)
{
	const char *fault_id = json_string_value(json_object_get(req, "fault_id"));
	const char *name = json_string_value(json_object_get(req, "injector"));
	const json_t *params = json_object_get(req, "params");
	struct agent_fault *other;
	struct agent_list *pos, *tmp;
	unsigned int active = 0;
	json_t *empty = NULL;
	int ret;

	*inj = injector_find(name);
	if (!*inj) {
		char known[256] = "";
		size_t i, off = 0;

		for (i = 0; injectors[i] && off < sizeof(known); i++)
			off += (size_t)snprintf(known + off, sizeof(known) - off, "%s%s",
						i ? ", " : "", injectors[i]->name);
		snprintf(err, errlen, "inject: injector \"%s\": unknown (known: %s)", name, known);
		return -ENOENT;
	}
	ret = agent_policy_check_injector(&a->policy, (*inj)->name, err, errlen);
	if (ret)
		return ret;
	other = agent_fault_find(a, fault_id);
	if (other && other->active) {
		snprintf(err, errlen, "inject: fault %s: already active on %s (revert it first)",
			 fault_id, agent_fault_obj(&other->f.target));
		return -EEXIST;
	}
	if (!params)
		params = empty = json_object();
	ret = (*inj)->validate(params, err, errlen);
	json_decref(empty);
	if (ret)
		return ret;
	ret = agent_target_lookup(a, (*inj)->name, json_object_get(req, "target"), t, err, errlen);
	if (ret)
		return ret;
	agent_list_for_each_safe(pos, tmp, &a->faults) active +=
	    agent_list_entry(pos, struct agent_fault, node)->active;
	ret = agent_policy_check_inject(
	    &a->policy, (*inj)->name, t,
	    (uint64_t)json_integer_value(json_object_get(req, "duration_ms")), active, err, errlen);
	if (ret)
		return ret;
	/* caps on parameter values (the PFC rate); params may be absent */
	ret = agent_policy_check_params(&a->policy, (*inj)->name, json_object_get(req, "params"),
					err, errlen);
	if (ret)
		return ret;
	/*
	 * The drill's own blast radius (its rail limit), checked again here: a
	 * coordinator bug cannot widen it. Faults on a process alone take no link
	 * out of service, so they neither count nor are counted.
	 */
	if (json_object_get(req, "max_active") && (t->netdev[0] || !t->workload[0])) {
		unsigned int links = 0;

		agent_list_for_each_safe(pos, tmp, &a->faults)
		{
			const struct agent_fault *af =
			    agent_list_entry(pos, struct agent_fault, node);

			links += af->active && af->f.target.netdev[0];
		}
		if (links >= (unsigned int)json_integer_value(json_object_get(req, "max_active"))) {
			snprintf(err, errlen,
				 "inject: %s: refused: the drill's blast radius allows %lld active "
				 "fault(s) on links of this node and %u are active",
				 fault_id, json_integer_value(json_object_get(req, "max_active")),
				 links);
			rc_warn("%s", err);
			return -EPERM;
		}
	}
	/*
	 * A workload target names a netdev only with a rail. The target's lookup named the netdev
	 * by its ifindex (agent_target_identify); 0 when no netdev had the name.
	 */
	if (t->netdev[0] || !t->workload[0]) {
		if (t->ifindex <= 0) {
			snprintf(err, errlen, "%s: %s: no such network interface on this node",
				 (*inj)->name, t->netdev);
			return -ENODEV;
		}
	}
	other = agent_fault_on(a, t);
	if (other) {
		snprintf(err, errlen, "%s: %s: busy: fault %s is active on %s (revert it first)",
			 (*inj)->name, agent_fault_obj(t), other->f.id,
			 t->workload[0] && !strcmp(other->f.target.workload, t->workload)
			     ? "its workload"
			     : "it");
		return -EBUSY;
	}
	return 0;
}

static json_t *agent_inject_result(const struct agent_fault *af)
{
	const struct inj_fault *f = &af->f;
	json_t *prior = f->inj->describe_prior ? f->inj->describe_prior(f) : NULL;
	json_t *r = json_pack("{s:s, s:s, s:I, s:s, s:o}", "fault_id", f->id, "injector",
			      f->inj->name, "injected_at_ns", (json_int_t)f->injected_at_ns,
			      "netdev", f->target.netdev, "prior", prior ? prior : json_object());

	if (r && f->target.rail >= 0)
		json_object_set_new(r, "rail", json_integer(f->target.rail));
	if (r && f->target.device[0]) {
		json_object_set_new(r, "device", json_string(f->target.device));
		json_object_set_new(r, "port", json_integer(f->target.port));
	}
	if (r && f->target.workload[0]) {
		json_object_set_new(r, "workload", json_string(f->target.workload));
		json_object_set_new(r, "pid", json_integer(f->target.pid));
	}
	return r;
}

/* A new fault record, not yet on a->faults; NULL when out of memory. */
static struct agent_fault *agent_fault_alloc(struct agent *a, const struct injector *inj,
					     const char *fault_id)
{
	struct agent_fault *af = calloc(1, sizeof(*af));

	if (!af)
		return NULL;
	a->inj_env.event = agent_fault_env_event;
	a->inj_env.arg = a;
	af->a = a;
	agent_list_init(&af->node);
	af->tick_timer.fire = agent_fault_tick;
	af->auto_timer.fire = agent_fault_auto_revert;
	af->lease_timer.fire = agent_fault_lease_expired;
	af->f.inj = inj;
	snprintf(af->f.id, sizeof(af->f.id), "%s", fault_id);
	af->f.env = &a->inj_env;
	return af;
}

int agent_op_inject(struct agent *a, struct agent_client *cl, const struct agent_later *later,
		    const json_t *req, json_t **result, char *err, size_t errlen)
{
	const json_t *params = json_object_get(req, "params");
	const json_t *dur = json_object_get(req, "duration_ms");
	const json_t *lease = json_object_get(req, "lease_ms");
	const struct injector *inj;
	struct agent_fault *af, *old;
	struct inj_target t;
	char jerr[512];
	uint64_t started_ns;
	json_t *ev;
	size_t i;
	int ret;

	ret = agent_inject_check(a, req, &inj, &t, err, errlen);
	if (ret)
		return ret;
	af = agent_fault_alloc(a, inj, json_string_value(json_object_get(req, "fault_id")));
	if (!af)
		return -ENOMEM;
	af->f.target = t;
	af->f.params = params ? json_deep_copy(params) : json_object();
	af->f.duration_ms = dur ? (uint64_t)json_integer_value(dur) : 0;
	af->lease_ms = lease ? (uint64_t)json_integer_value(lease) : 0;
	af->deferred = json_array();
	if (!af->f.params || !af->deferred) {
		ret = -ENOMEM;
		goto err_free;
	}

	ret = inj->prepare(&af->f);
	if (ret)
		goto err_fail;
	/* Durable before anything changes: from here on a crash is reverted at the next start. */
	ret = agent_journal_write(&a->journal, &af->f, af->lease_ms, jerr, sizeof(jerr));
	if (ret) {
		snprintf(err, errlen, "inject: fault %s: %s; nothing was injected", af->f.id, jerr);
		goto err_free;
	}
	af->journaled = agent_journal_on(&a->journal);
	/*
	 * Every measured time counts from this stamp: when inject() was called,
	 * unless the injector says when its fault took effect (a tc filter whose
	 * module loaded on first use took 3.4 s in the lab).
	 */
	af->f.injected_at_ns = 0;
	started_ns = rc_now_ns();
	ret = inj->inject(&af->f);
	if (!af->f.injected_at_ns)
		af->f.injected_at_ns = started_ns;
	if (ret) {
		char why[INJ_ERR_LEN];

		/* A partial inject may have changed something: put the snapshot back. */
		snprintf(why, sizeof(why), "%s", af->f.err);
		if (inj->revert(&af->f))
			agent_notice(a, RC_LOG_ERR,
				     "fault %s: inject failed and so did its revert: %s%s",
				     af->f.id, af->f.err,
				     af->journaled ? " (its journal record stays: the next start "
						     "reverts it)"
						   : "");
		else
			agent_fault_journal_close(af);
		snprintf(af->f.err, sizeof(af->f.err), "%s", why);
		goto err_fail;
	}
	af->f.injected = true;
	af->active = true;
	for (i = 0; i < AGENT_MAX_INJECTORS && injectors[i]; i++)
		if (injectors[i] == inj)
			a->faults_injected[i]++;

	old = agent_fault_find(a, af->f.id); /* an inactive record of the same id */
	if (old)
		agent_fault_free(old);
	agent_list_add_tail(&af->node, &a->faults);
	agent_faults_trim(a);

	rc_info("fault %s: %s injected on %s", af->f.id, inj->name, agent_fault_obj(&t));
	agent_emit_at(a, "fault", af->f.injected_at_ns, agent_fault_fields(af, "inject"));
	json_array_foreach(af->deferred, i, ev)
		agent_emit_at(a, "fault",
			      (uint64_t)json_integer_value(json_object_get(ev, "ts_ns")),
			      json_incref(json_object_get(ev, "fields")));
	json_decref(af->deferred);
	af->deferred = NULL;

	agent_fault_schedule_tick(af);
	if (af->f.duration_ms)
		agent_timer_set(&a->loop, &af->auto_timer,
				af->f.injected_at_ns + af->f.duration_ms * RC_NSEC_PER_MSEC +
				    AGENT_AUTO_REVERT_GRACE_NS);
	agent_fault_lease_renew(af, af->f.injected_at_ns);
	*result = agent_inject_result(af);
	return *result ? 0 : -ENOMEM;

err_fail:
	ret = agent_fault_fail(err, errlen, &af->f, ret);
err_free:
	agent_fault_free(af);
	return ret;
}

int agent_op_revert(struct agent *a, struct agent_client *cl, const struct agent_later *later,
		    const json_t *req, json_t **result, char *err, size_t errlen)
{
	const char *fault_id = json_string_value(json_object_get(req, "fault_id"));
	struct agent_fault *af = agent_fault_find(a, fault_id);
	json_t *actions;
	bool verified;
	int ret;

	if (!af) {
		*result =
		    json_pack("{s:s, s:b, s:b}", "fault_id", fault_id, "already", 1, "known", 0);
		return *result ? 0 : -ENOMEM;
	}
	if (!af->active) {
		*result =
		    json_pack("{s:s, s:b, s:b, s:I, s:b, s:[]}", "fault_id", fault_id, "already", 1,
			      "known", 1, "reverted_at_ns", (json_int_t)af->f.reverted_at_ns,
			      "verified", af->verified, "actions");
		return *result ? 0 : -ENOMEM;
	}
	actions = json_array();
	if (!actions)
		return -ENOMEM;
	ret = agent_fault_revert(af, "revert", &verified, actions);
	if (ret) {
		json_decref(actions);
		return agent_fault_fail(err, errlen, &af->f, ret);
	}
	*result =
	    json_pack("{s:s, s:I, s:b, s:o}", "fault_id", fault_id, "reverted_at_ns",
		      (json_int_t)af->f.reverted_at_ns, "verified", verified, "actions", actions);
	if (*result && !verified)
		json_object_set_new(*result, "verify_error", json_string(af->f.err));
	if (*result && af->retired[0])
		json_object_set_new(*result, "retired", json_string(af->retired));
	return *result ? 0 : -ENOMEM;
}

int agent_op_drop(struct agent *a, struct agent_client *cl, const struct agent_later *later,
		  const json_t *req, json_t **result, char *err, size_t errlen)
{
	const char *fault_id = json_string_value(json_object_get(req, "fault_id"));
	struct agent_fault *af = agent_fault_find(a, fault_id);
	char why[sizeof(af->retired)], obj[64];

	if (!af || !af->active) {
		snprintf(err, errlen,
			 "drop: fault %s: not active here (`faults` lists the active ones)",
			 fault_id);
		return -ENOENT;
	}
	snprintf(obj, sizeof(obj), "%s", agent_fault_obj(&af->f.target));
	snprintf(why, sizeof(why), "dropped by an operator without a revert: check %s by hand",
		 obj);
	agent_fault_retire(af, "drop", false, why);
	*result = json_pack("{s:s, s:b, s:s, s:s}", "fault_id", fault_id, "dropped", 1, "target",
			    obj, "retired", why);
	return *result ? 0 : -ENOMEM;
}

/* Reverts every active fault; fills the lists, returns whether everything verified. */
static bool agent_faults_revert_every(struct agent *a, const char *action, json_t *reverted,
				      json_t *actions, json_t *errors)
{
	struct agent_list *pos, *tmp;
	bool all = true;

	agent_list_for_each_safe(pos, tmp, &a->faults)
	{
		struct agent_fault *af = agent_list_entry(pos, struct agent_fault, node);
		bool verified;

		if (!af->active)
			continue;
		if (agent_fault_revert(af, action, &verified, actions)) {
			json_array_append_new(errors, json_string(af->f.err));
			all = false;
			continue;
		}
		json_array_append_new(reverted, json_string(af->f.id));
		if (!verified) {
			json_array_append_new(errors, json_string(af->f.err));
			all = false;
		}
	}
	return all;
}

int agent_op_revert_all(struct agent *a, struct agent_client *cl, const struct agent_later *later,
			const json_t *req, json_t **result, char *err, size_t errlen)
{
	json_t *reverted = json_array(), *actions = json_array(), *errors = json_array();
	bool all;

	if (!reverted || !actions || !errors) {
		json_decref(reverted);
		json_decref(actions);
		json_decref(errors);
		return -ENOMEM;
	}
	all = agent_faults_revert_every(a, "revert", reverted, actions, errors);
	*result = json_pack("{s:o, s:b, s:o, s:o}", "reverted", reverted, "verified", all,
			    "actions", actions, "errors", errors);
	return *result ? 0 : -ENOMEM;
}

int agent_op_faults(struct agent *a, struct agent_client *cl, const struct agent_later *later,
		    const json_t *req, json_t **result, char *err, size_t errlen)
{
	json_t *active = json_array();
	struct agent_list *pos, *tmp;

	if (!active)
		return -ENOMEM;
	agent_list_for_each_safe(pos, tmp, &a->faults)
	{
		struct agent_fault *af = agent_list_entry(pos, struct agent_fault, node);
		json_t *o;

		if (!af->active)
			continue;
		o = json_pack("{s:s, s:s, s:s, s:I, s:I}", "fault_id", af->f.id, "injector",
			      af->f.inj->name, "netdev", af->f.target.netdev, "injected_at_ns",
			      (json_int_t)af->f.injected_at_ns, "duration_ms",
			      (json_int_t)af->f.duration_ms);
		if (o && af->f.target.workload[0])
			json_object_set_new(o, "workload", json_string(af->f.target.workload));
		if (o && af->revert_failed)
			json_object_set_new(o, "revert_unverified", json_string(af->f.err));
		if (o && af->lease_ms) {
			uint64_t now = rc_now_ns(), due = af->lease_timer.due_ns;

			json_object_set_new(o, "lease_ms", json_integer((json_int_t)af->lease_ms));
			json_object_set_new(
			    o, "lease_expires_in_ms",
			    json_integer(af->lease_timer.pending && due > now
					     ? (json_int_t)((due - now) / RC_NSEC_PER_MSEC)
					     : 0));
		}
		json_array_append_new(active, o);
	}
	*result = json_pack("{s:o}", "active", active);
	return *result ? 0 : -ENOMEM;
}

int agent_op_renew(struct agent *a, struct agent_client *cl, const struct agent_later *later,
		   const json_t *req, json_t **result, char *err, size_t errlen)
{
	json_t *renewed = json_array(), *unknown = json_array(), *v;
	uint64_t now = rc_now_ns(), first = 0;
	size_t i;

	if (!renewed || !unknown) {
		json_decref(renewed);
		json_decref(unknown);
		return -ENOMEM;
	}
	json_array_foreach(json_object_get(req, "fault_ids"), i, v) {
		struct agent_fault *af = agent_fault_find(a, json_string_value(v));

		if (!af || !af->active) {
			json_array_append(unknown, v);
			continue;
		}
		/* Active without a lease: renewed, nothing to extend. */
		agent_fault_lease_renew(af, now);
		if (af->lease_ms && (!first || af->lease_ms < first))
			first = af->lease_ms;
		json_array_append(renewed, v);
	}
	*result = json_pack("{s:o, s:o, s:I}", "renewed", renewed, "unknown", unknown,
			    "expires_in_ms", (json_int_t)first);
	return *result ? 0 : -ENOMEM;
}

uint64_t agent_faults_injected(struct agent *a, const char *injector)
{
	size_t i;

	for (i = 0; i < AGENT_MAX_INJECTORS && injectors[i]; i++)
		if (!strcmp(injectors[i]->name, injector))
			return a->faults_injected[i];
	return 0;
}

int agent_faults_stats(struct agent *a, struct agent_fault_stat **out, size_t *n)
{
	struct agent_list *pos, *tmp;
	size_t count = 0;

	*out = NULL;
	*n = 0;
	agent_list_for_each_safe(pos, tmp, &a->faults) count++;
	if (!count)
		return 0;
	*out = calloc(count, sizeof(**out));
	if (!*out)
		return -ENOMEM;
	agent_list_for_each_safe(pos, tmp, &a->faults)
	{
		const struct agent_fault *af = agent_list_entry(pos, struct agent_fault, node);
		const struct inj_target *t = &af->f.target;
		struct agent_fault_stat *st = &(*out)[(*n)++];

		snprintf(st->fault_id, sizeof(st->fault_id), "%s", af->f.id);
		snprintf(st->injector, sizeof(st->injector), "%s", af->f.inj->name);
		/* A workload's fault is on its process, even when a rail narrows it. */
		if (t->workload[0])
			snprintf(st->target, sizeof(st->target), "workload:%s", t->workload);
		else if (t->netdev[0])
			snprintf(st->target, sizeof(st->target), "%s", t->netdev);
		else if (t->device[0])
			snprintf(st->target, sizeof(st->target), "%s/%d", t->device, t->port);
		st->active = af->active;
	}
	return 0;
}

/* agent_journal_replay_fn: one record of a dead agent's fault. */
static int agent_fault_replay_one(void *arg, struct agent_journal_entry *e)
{
	struct agent *a = arg;
	struct agent_fault *af;
	char why[sizeof(e->f.err) - 64];
	bool verified = false;
	int idx, ret;

	af = agent_fault_alloc(a, e->f.inj, e->f.id);
	if (!af)
		return -ENOMEM;
	af->f.target = e->f.target;
	af->f.params = e->f.params; /* taken */
	e->f.params = NULL;
	af->f.duration_ms = e->f.duration_ms;
	af->f.injected_at_ns = e->f.injected_at_ns;
	af->lease_ms = e->lease_ms;
	/*
	 * By name: another boot's ifindex means nothing, and one that changed
	 * within this boot is a recreated netdev. Gone: the revert says so.
	 */
	idx = af->f.target.netdev[0] ? (int)rc_if_nametoindex(af->f.target.netdev) : 0;
	if (idx != af->f.target.ifindex)
		rc_warn("journal: %s/%s: %s is ifindex %d now, was %d when journaled",
			a->journal.dir, e->name, af->f.target.netdev, idx, af->f.target.ifindex);
	af->f.target.ifindex = idx;
	/* The same protection as an inject: a record is a file, and files can be forged. */
	ret =
	    agent_policy_check_replay(&a->policy, af->f.inj->name, &af->f.target, why, sizeof(why));
	if (!ret)
		ret = agent_target_owned(&a->opts, &af->f.target, why, sizeof(why));
	if (ret) {
		snprintf(e->f.err, sizeof(e->f.err), "replay refused, as an inject would be: %s",
			 why);
		agent_fault_free(af);
		return ret;
	}
	ret = af->f.inj->restore(&af->f, e->snapshot);
	if (ret) {
		/* Nothing to revert with: the journal sets the record aside, loudly. */
		snprintf(e->f.err, sizeof(e->f.err), "%s",
			 af->f.err[0] ? af->f.err : strerror(-ret));
		agent_fault_free(af);
		return ret;
	}
	if (!e->same_boot)
		rc_warn("journal: %s/%s: written during another boot of this node", a->journal.dir,
			e->name);
	/* From the journal's view the fault is applied; listed as such until it verifies. */
	af->f.injected = true;
	af->active = true;
	af->journaled = true;
	agent_list_add_tail(&af->node, &a->faults);
	if (!agent_fault_revert(af, "journal_revert", &verified, NULL) && af->retired[0])
		agent_notice(a, RC_LOG_WARN,
			     "journal: fault %s (%s on %s), left applied by an agent that stopped "
			     "without reverting it: %s",
			     af->f.id, af->f.inj->name, agent_fault_obj(&af->f.target),
			     af->retired);
	else if (verified)
		agent_notice(a, RC_LOG_INFO,
			     "journal: fault %s (%s on %s), left applied by an agent that stopped "
			     "without reverting it: reverted and verified",
			     af->f.id, af->f.inj->name, agent_fault_obj(&af->f.target));
	else
		agent_notice(a, RC_LOG_ERR,
			     "journal: fault %s (%s on %s), left applied by an agent that stopped "
			     "without reverting it: NOT reverted: %s; its record %s/%s stays open, "
			     "`faults` lists it and revert or revert_all retries it",
			     af->f.id, af->f.inj->name, agent_fault_obj(&af->f.target), af->f.err,
			     a->journal.dir, e->name);
	return 0;
}

int agent_faults_replay(struct agent *a)
{
	return agent_journal_replay(&a->journal, agent_fault_replay_one, a);
}

bool agent_faults_shutdown(struct agent *a)
{
	json_t *reverted = json_array(), *errors = json_array();
	struct agent_list *pos, *tmp;
	bool all;
	size_t i;
	json_t *e;

	all = agent_faults_revert_every(a, "revert", reverted, NULL, errors);
	if (json_array_size(reverted))
		rc_info("shutdown: reverted %zu fault(s)%s", json_array_size(reverted),
			all ? ", all verified" : "");
	json_array_foreach(errors, i, e)
		rc_err("shutdown: %s", json_string_value(e));
	json_decref(reverted);
	json_decref(errors);
	agent_list_for_each_safe(pos, tmp, &a->faults)
	    agent_fault_free(agent_list_entry(pos, struct agent_fault, node));
	return all;
}
