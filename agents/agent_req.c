// SPDX-License-Identifier: MIT
/*
 * Requests (docs/PROTOCOL.md): the table of ops with their argument fields,
 * the checks every request passes before any handler runs (id, op, known
 * arguments, types, ranges), and the small ops that need no module of their
 * own (hello, time, subscribe). A message that fails a check is answered with
 * an error and nothing in it is acted on.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "agents/agent.h"
#include "common/units.h"

enum agent_field_type { AGENT_F_STRING, AGENT_F_INT, AGENT_F_OBJECT, AGENT_F_ARRAY };

/* One argument of an op; for strings min/max bound the length, for integers the value. */
struct agent_field {
	const char *name;
	enum agent_field_type type;
	bool required;
	json_int_t min, max;
};

struct agent_op {
	const char *name;
	agent_op_fn fn;
	const struct agent_field *fields; /* terminated by a NULL name */
};

static int agent_op_hello(struct agent *a, struct agent_client *cl, json_int_t id,
			  const json_t *req, json_t **result, char *err, size_t errlen)
{
	json_int_t proto = json_integer_value(json_object_get(req, "proto"));
	const char *control = cl && cl->ifname[0] ? cl->ifname : a->opts.control_if;

	if (proto != AGENT_PROTO) {
		snprintf(err, errlen, "hello: proto %lld: this agent speaks protocol %d",
			 (long long)proto, AGENT_PROTO);
		return -EPROTONOSUPPORT;
	}
	*result = json_pack("{s:s, s:s, s:i, s:o}", "node", a->opts.name, "agent_version",
			    RC_VERSION, "proto", AGENT_PROTO, "control_if",
			    control[0] ? json_string(control) : json_null());
	return *result ? 0 : -ENOMEM;
}

static int agent_op_time(struct agent *a, struct agent_client *cl, json_int_t id, const json_t *req,
			 json_t **result, char *err, size_t errlen)
{
	*result = json_pack("{s:I}", "t_ns", (json_int_t)rc_now_ns());
	return *result ? 0 : -ENOMEM;
}

static int agent_op_subscribe(struct agent *a, struct agent_client *cl, json_int_t id,
			      const json_t *req, json_t **result, char *err, size_t errlen)
{
	const json_t *iv = json_object_get(req, "counters_interval_ms");
	json_int_t ms = iv ? json_integer_value(iv) : 1000;
	int ret;

	if (ms && ms < 10) {
		snprintf(
		    err, errlen,
		    "subscribe: counters_interval_ms: %lld is too short (0 disables, else >= 10)",
		    (long long)ms);
		return -EINVAL;
	}
	ret = agent_counters_set_interval(a, (uint64_t)ms);
	if (ret) {
		snprintf(err, errlen, "subscribe: counters: %s", strerror(-ret));
		return ret;
	}
	if (cl)
		cl->subscribed = true;
	agent_verbs_rescan(a); /* RDMA devices created since start-up get observed too */
	*result = json_object();
	return *result ? 0 : -ENOMEM;
}

static const struct agent_field agent_f_none[] = {{NULL}};
static const struct agent_field agent_f_hello[] = {
    {"coordinator", AGENT_F_STRING, false, 1, 255},
    {"proto", AGENT_F_INT, true, 0, 1000000},
    {NULL},
};
static const struct agent_field agent_f_inject[] = {
    {"fault_id", AGENT_F_STRING, true, 1, 63},
    {"injector", AGENT_F_STRING, true, 1, 63},
    {"target", AGENT_F_OBJECT, true, 0, 0},
    {"params", AGENT_F_OBJECT, false, 0, 0},
    {"duration_ms", AGENT_F_INT, false, 0, 7LL * 24 * 3600 * 1000},
    {NULL},
};
static const struct agent_field agent_f_revert[] = {
    {"fault_id", AGENT_F_STRING, true, 1, 63},
    {NULL},
};
static const struct agent_field agent_f_wl_start[] = {
    {"wl_id", AGENT_F_STRING, true, 1, 63},
    {"role", AGENT_F_STRING, true, 1, 15},
    {"args", AGENT_F_ARRAY, false, 0, 256},
    {NULL},
};
static const struct agent_field agent_f_wl_stop[] = {
    {"wl_id", AGENT_F_STRING, true, 1, 63},
    {"timeout_ms", AGENT_F_INT, false, 0, 600000},
    {NULL},
};
static const struct agent_field agent_f_subscribe[] = {
    {"counters_interval_ms", AGENT_F_INT, false, 0, 3600000},
    {NULL},
};

static const struct agent_op agent_ops[] = {
    {"hello", agent_op_hello, agent_f_hello},
    {"time", agent_op_time, agent_f_none},
    {"inventory", agent_op_inventory, agent_f_none},
    {"inject", agent_op_inject, agent_f_inject},
    {"revert", agent_op_revert, agent_f_revert},
    {"revert_all", agent_op_revert_all, agent_f_none},
    {"faults", agent_op_faults, agent_f_none},
    {"workload_start", agent_op_workload_start, agent_f_wl_start},
    {"workload_stop", agent_op_workload_stop, agent_f_wl_stop},
    {"subscribe", agent_op_subscribe, agent_f_subscribe},
};

#define AGENT_NR_OPS (sizeof(agent_ops) / sizeof(agent_ops[0]))

static const struct agent_op *agent_op_find(const char *name)
{
	size_t i;

	for (i = 0; i < AGENT_NR_OPS; i++)
		if (!strcmp(agent_ops[i].name, name))
			return &agent_ops[i];
	return NULL;
}

static void agent_field_expect(const struct agent_field *f, char *buf, size_t len)
{
	switch (f->type) {
	case AGENT_F_STRING:
		snprintf(buf, len, "a string of %lld..%lld characters", (long long)f->min,
			 (long long)f->max);
		break;
	case AGENT_F_INT:
		snprintf(buf, len, "an integer in %lld..%lld", (long long)f->min,
			 (long long)f->max);
		break;
	case AGENT_F_OBJECT:
		snprintf(buf, len, "a JSON object");
		break;
	case AGENT_F_ARRAY:
		snprintf(buf, len, "an array of at most %lld strings", (long long)f->max);
		break;
	}
}

static bool agent_field_ok(const struct agent_field *f, const json_t *v)
{
	size_t i;
	json_t *e;

	switch (f->type) {
	case AGENT_F_STRING:
		return json_is_string(v) && (json_int_t)json_string_length(v) >= f->min &&
		       (json_int_t)json_string_length(v) <= f->max &&
		       strlen(json_string_value(v)) == json_string_length(v); /* no NUL inside */
	case AGENT_F_INT:
		return json_is_integer(v) && json_integer_value(v) >= f->min &&
		       json_integer_value(v) <= f->max;
	case AGENT_F_OBJECT:
		return json_is_object(v);
	case AGENT_F_ARRAY:
		if (!json_is_array(v) || (json_int_t)json_array_size(v) > f->max)
			return false;
		json_array_foreach(v, i, e)
			if (!json_is_string(e))
				return false;
		return true;
	}
	return false;
}

/* Checks req against op's fields: no unknown argument, every required one, each well typed. */
static int agent_req_check(const struct agent_op *op, const json_t *req, char *err, size_t errlen)
{
	const struct agent_field *f;
	const char *key;
	json_t *v;

	json_object_foreach((json_t *)req, key, v) {
		if (!strcmp(key, "id") || !strcmp(key, "op"))
			continue;
		for (f = op->fields; f->name; f++)
			if (!strcmp(f->name, key))
				break;
		if (!f->name) {
			char known[256] = "";
			size_t off = 0;

			for (f = op->fields; f->name && off < sizeof(known); f++)
				off += (size_t)snprintf(known + off, sizeof(known) - off, "%s%s",
							off ? ", " : "", f->name);
			snprintf(err, errlen, "%s: %s: unknown argument (%s takes %s)", op->name,
				 key, op->name, off ? known : "none");
			return -EINVAL;
		}
	}
	for (f = op->fields; f->name; f++) {
		char expect[96];

		v = json_object_get(req, f->name);
		if (!v && !f->required)
			continue;
		agent_field_expect(f, expect, sizeof(expect));
		if (!v) {
			snprintf(err, errlen, "%s: %s: missing (%s)", op->name, f->name, expect);
			return -EINVAL;
		}
		if (!agent_field_ok(f, v)) {
			snprintf(err, errlen, "%s: %s: must be %s", op->name, f->name, expect);
			return -EINVAL;
		}
	}
	return 0;
}

json_t *agent_response_ok(json_int_t id, json_t *result)
{
	return json_pack("{s:I, s:b, s:o}", "id", id, "ok", 1, "result",
			 result ? result : json_object());
}

json_t *agent_response_error(const json_t *id, int err, const char *msg)
{
	return json_pack("{s:O, s:b, s:s, s:i}", "id", id ? id : json_null(), "ok", 0, "error", msg,
			 "errno", err < 0 ? -err : err);
}

json_t *agent_request(struct agent *a, struct agent_client *cl, uint16_t type, const json_t *msg)
{
	const json_t *id = json_object_get(msg, "id");
	const char *opname = json_string_value(json_object_get(msg, "op"));
	const struct agent_op *op;
	json_t *result = NULL;
	char err[512] = "";
	int ret;

	if (type != RC_MSG_REQUEST) {
		snprintf(err, sizeof(err),
			 "request: message type %u is not a request (a coordinator sends type %d)",
			 type, RC_MSG_REQUEST);
		return agent_response_error(id, -EPROTO, err);
	}
	if (!json_is_integer(id))
		return agent_response_error(
		    id, -EINVAL,
		    id ? "request: id: must be an integer"
		       : "request: id: missing (an integer the response repeats)");
	if (!opname)
		return agent_response_error(
		    id, -EINVAL, "request: op: missing or not a string (e.g. \"inventory\")");
	op = agent_op_find(opname);
	if (!op) {
		char known[256] = "";
		size_t i, off = 0;

		for (i = 0; i < AGENT_NR_OPS; i++)
			off += (size_t)snprintf(known + off, sizeof(known) - off, "%s%s",
						i ? ", " : "", agent_ops[i].name);
		snprintf(err, sizeof(err), "request: op \"%.64s\": unknown (known: %s)", opname,
			 known);
		return agent_response_error(id, -EOPNOTSUPP, err);
	}
	ret = agent_req_check(op, msg, err, sizeof(err));
	if (ret)
		return agent_response_error(id, ret, err);
	ret = op->fn(a, cl, json_integer_value(id), msg, &result, err, sizeof(err));
	if (ret == AGENT_DEFERRED)
		return NULL;
	if (ret < 0) {
		json_decref(result);
		if (!err[0])
			snprintf(err, sizeof(err), "%s: %s", op->name, strerror(-ret));
		rc_info("request %s from %s: %s", op->name,
			cl && cl->conn.t ? cl->conn.t->peer : "?", err);
		return agent_response_error(id, ret, err);
	}
	return agent_response_ok(json_integer_value(id), result);
}
