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
#include <stdlib.h>
#include <string.h>

#include "agents/agent.h"
#include "agents/agent_cgroup.h"
#include "common/units.h"

enum agent_field_type { AGENT_F_STRING, AGENT_F_INT, AGENT_F_OBJECT, AGENT_F_ARRAY, AGENT_F_BOOL };

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

static int agent_op_hello(struct agent *a, struct agent_client *cl, const struct agent_later *later,
			  const json_t *req, json_t **result, char *err, size_t errlen)
{
	json_int_t proto = json_integer_value(json_object_get(req, "proto"));
	const char *control = cl && cl->ifname[0] ? cl->ifname : a->policy.control_if;

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

static int agent_op_time(struct agent *a, struct agent_client *cl, const struct agent_later *later,
			 const json_t *req, json_t **result, char *err, size_t errlen)
{
	*result = json_pack("{s:I}", "t_ns", (json_int_t)rc_now_ns());
	return *result ? 0 : -ENOMEM;
}

static int agent_op_subscribe(struct agent *a, struct agent_client *cl,
			      const struct agent_later *later, const json_t *req, json_t **result,
			      char *err, size_t errlen)
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
    {"lease_ms", AGENT_F_INT, false, 1000, 3600000},
    {"max_active", AGENT_F_INT, false, 1, 1000000},
    {NULL},
};
static const struct agent_field agent_f_revert[] = {
    {"fault_id", AGENT_F_STRING, true, 1, 63},
    {NULL},
};
static const struct agent_field agent_f_renew[] = {
    {"fault_ids", AGENT_F_ARRAY, true, 0, 4096},
    {NULL},
};
static const struct agent_field agent_f_wl_start[] = {
    {"wl_id", AGENT_F_STRING, true, 1, 63},
    {"role", AGENT_F_STRING, true, 1, 15},
    {"args", AGENT_F_ARRAY, false, 0, 256},
    {"stop_on_close", AGENT_F_BOOL, false, 0, 0},
    {"shim", AGENT_F_BOOL, false, 0, 0},			  /* preload the verbs shim */
    {"cgroup", AGENT_F_BOOL, false, 0, 0},			  /* in CGROUP_ROOT/WL_ID */
    {"no_ipc_lock", AGENT_F_BOOL, false, 0, 0},			  /* without CAP_IPC_LOCK */
    {"cpu_max_pct", AGENT_F_INT, false, 1, AGENT_CG_CPU_PCT_MAX}, /* cgroup cpu.max */
    {"job", AGENT_F_OBJECT, false, 0, 0}, /* a user's program (agents/agent_job.h) */
    {NULL},
};
static const struct agent_field agent_f_wl_stop[] = {
    {"wl_id", AGENT_F_STRING, true, 1, 63},
    {"timeout_ms", AGENT_F_INT, false, 0, 600000},
    {NULL},
};
static const struct agent_field agent_f_job_path[] = {
    {"wl_id", AGENT_F_STRING, false, 1, 63},
    {"tag", AGENT_F_STRING, false, 1, 63},  /* processes with RDMACHAOS_JOB=TAG */
    {"peers", AGENT_F_ARRAY, false, 0, 64}, /* addresses whose TCP sockets count */
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
    {"drop", agent_op_drop, agent_f_revert},
    {"faults", agent_op_faults, agent_f_none},
    {"renew", agent_op_renew, agent_f_renew},
    {"workload_start", agent_op_workload_start, agent_f_wl_start},
    {"workload_stop", agent_op_workload_stop, agent_f_wl_stop},
    {"job_path", agent_op_job_path, agent_f_job_path},
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
		snprintf(buf, len, "a string of %lld..%lld bytes", (long long)f->min,
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
	case AGENT_F_BOOL:
		snprintf(buf, len, "true or false");
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
	case AGENT_F_BOOL:
		return json_is_boolean(v);
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

/* The length of the UTF-8 character at s, 0 when it is not one (as jansson judges). */
static size_t agent_utf8_len(const unsigned char *s)
{
	unsigned int n, i;
	unsigned long cp;

	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0)
		n = 2;
	else if ((s[0] & 0xf0) == 0xe0)
		n = 3;
	else if ((s[0] & 0xf8) == 0xf0)
		n = 4;
	else
		return 0;
	cp = s[0] & (0x7f >> n);
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80) /* the NUL too: never reads past it */
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

/*
 * msg as a JSON string. Sentences quote the request (op and argument names)
 * and snprintf may cut them inside a UTF-8 character, text json_string()
 * refuses: each byte that does not start a whole character becomes '?', so
 * the error is answered rather than lost.
 */
static json_t *agent_error_text(const char *msg)
{
	json_t *j = json_string(msg);
	size_t i, n;
	char *buf;

	if (j)
		return j;
	buf = strdup(msg);
	if (!buf)
		return NULL;
	for (i = 0; buf[i]; i += n) {
		n = agent_utf8_len((const unsigned char *)buf + i);
		if (!n) {
			buf[i] = '?';
			n = 1;
		}
	}
	j = json_string(buf);
	free(buf);
	return j;
}

json_t *agent_response_error(const json_t *id, int err, const char *msg)
{
	return json_pack("{s:O, s:b, s:o, s:i}", "id", id ? id : json_null(), "ok", 0, "error",
			 agent_error_text(msg), "errno", err < 0 ? -err : err);
}

/* Writes the audit line of an answered request (msg), ok with result or refused/failed with ret. */
static void agent_audit_answer(struct agent *a, struct agent_client *cl, const json_t *msg,
			       const json_t *result, int ret, const char *err)
{
	struct agent_audit_rec rec = {
	    .wall_ns = rc_wall_ns(),
	    .peer = cl && cl->conn.t ? cl->conn.t->peer : NULL,
	    .peer_id = cl && cl->peer_id[0] ? cl->peer_id : NULL,
	    .req = msg,
	    .result = ret < 0 ? NULL : result,
	    .err = ret < 0 ? ret : 0,
	    .error = ret < 0 ? err : NULL,
	};

	agent_audit_write(&a->audit, &rec);
}

json_t *agent_response_deferred(struct agent *a, struct agent_client *cl, const char *op,
				json_int_t id, json_t *args, json_t *result)
{
	json_t *req = args ? args : json_object();

	json_object_set_new(req, "id", json_integer(id));
	json_object_set_new(req, "op", json_string(op));
	agent_audit_answer(a, cl, req, result, 0, NULL);
	json_decref(req);
	return agent_response_ok(id, result);
}

/* agent_later.fn: the deferred answer, or with result NULL none; then the connection is let go. */
static void agent_req_later(const struct agent_later *l, json_t *args, json_t *result)
{
	json_t *resp = NULL;

	if (result)
		resp = agent_response_deferred(l->a, l->cl, l->op, l->id, args, result);
	else
		json_decref(args);
	if (l->cl)
		l->a->sink.answer(l->cl, resp);
	else
		json_decref(resp);
}

/* Checks msg and runs its op: 0 with *result, AGENT_DEFERRED, or -errno with a sentence in err. */
static int agent_dispatch(struct agent *a, struct agent_client *cl, uint16_t type,
			  const json_t *msg, json_t **result, char *err, size_t errlen)
{
	const json_t *id = json_object_get(msg, "id");
	const char *opname = json_string_value(json_object_get(msg, "op"));
	struct agent_later later;
	const struct agent_op *op;
	int ret;

	if (type != RC_MSG_REQUEST) {
		snprintf(err, errlen,
			 "request: message type %u is not a request (a coordinator sends type %d)",
			 type, RC_MSG_REQUEST);
		return -EPROTO;
	}
	if (!json_is_integer(id)) {
		snprintf(err, errlen, "%s",
			 id ? "request: id: must be an integer"
			    : "request: id: missing (an integer the response repeats)");
		return -EINVAL;
	}
	if (!opname) {
		snprintf(err, errlen, "request: op: missing or not a string (e.g. \"inventory\")");
		return -EINVAL;
	}
	op = agent_op_find(opname);
	if (!op) {
		char known[256] = "";
		size_t i, off = 0;

		for (i = 0; i < AGENT_NR_OPS; i++)
			off += (size_t)snprintf(known + off, sizeof(known) - off, "%s%s",
						i ? ", " : "", agent_ops[i].name);
		snprintf(err, errlen, "request: op \"%.64s\": unknown (known: %s)", opname, known);
		return -EOPNOTSUPP;
	}
	ret = agent_req_check(op, msg, err, errlen);
	if (ret)
		return ret;
	later = (struct agent_later){agent_req_later, a, cl, json_integer_value(id), op->name};
	ret = op->fn(a, cl, &later, msg, result, err, errlen);
	if (ret == AGENT_DEFERRED && cl)
		a->sink.hold(cl); /* until later.fn lets go */
	if (ret >= 0)
		return ret;
	json_decref(*result);
	*result = NULL;
	if (!err[0])
		snprintf(err, errlen, "%s: %s", op->name, strerror(-ret));
	/* Policy refusals are what an operator looks for: a level above the rest. */
	rc_log(ret == -EPERM ? RC_LOG_WARN : RC_LOG_INFO, "request %s from %s: %s", op->name,
	       cl && cl->conn.t ? cl->conn.t->peer : "?", err);
	return ret;
}

json_t *agent_request(struct agent *a, struct agent_client *cl, uint16_t type, const json_t *msg)
{
	const json_t *id = json_object_get(msg, "id");
	json_t *result = NULL;
	char err[512] = "";
	int ret;

	ret = agent_dispatch(a, cl, type, msg, &result, err, sizeof(err));
	if (ret == AGENT_DEFERRED)
		return NULL; /* audited when answered: agent_response_deferred() */
	agent_audit_answer(a, cl, msg, result, ret, err);
	if (ret < 0)
		return agent_response_error(id, ret, err);
	return agent_response_ok(json_integer_value(id), result);
}
