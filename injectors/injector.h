/* SPDX-License-Identifier: MIT */
/*
 * The one interface every fault injector implements. Each injector lives in
 * injectors/<name>.c, exports one `const struct injector inj_<name>`, and is
 * listed in injectors/injectors.def; nothing registers itself at run time.
 *
 * Life of a fault, driven by the agent:
 *   validate(params)          pure: refuse bad parameters before anything is touched
 *   prepare(f)                resolve the target, snapshot the prior state into f
 *   inject(f)                 apply the fault
 *   tick(f, now)              optional: timed steps (flaps); sets f->next_tick_ns
 *   revert(f)                 restore the snapshot; idempotent, safe after a partial inject
 *   verify(f)                 read the state back and compare with the snapshot
 * and, for an agent that died with the fault applied (its revert journal):
 *   snapshot(f)               after prepare: what revert and verify need, as plain JSON
 *   restore(f, snapshot)      in a later process: rebuild the state, then revert, verify
 * Every step returns 0 or -errno and, on error, writes a sentence naming the
 * object and the cause into f->err.
 *
 * The coordinator knows an injector only through this struct: its name, its
 * flags, its typed parameters and validate() check a drill before any agent is
 * asked, so adding an injector touches nothing in coordinator/.
 */
#ifndef RC_INJECTOR_H
#define RC_INJECTOR_H

#include <jansson.h>
#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>

#define INJ_ERR_LEN 256

struct inj_fault;

/*
 * What the agent resolved the request's target to. A link target names a
 * netdev (and the RDMA device/port and rail on it, when known); a workload
 * target ({"workload": WL_ID}) names a process the agent started, and the
 * agent fills in how to reach it.
 */
struct inj_target {
	char netdev[IF_NAMESIZE];
	int ifindex;
	char device[64]; /* RDMA device, when known */
	int port;
	int rail; /* -1 when not a rail */
	/* workload targets only; "" / 0 otherwise */
	char workload[64];   /* its wl_id */
	int pid;	     /* its pid */
	char cgroup[256];    /* its cgroup v2 folder (absolute path), "" if it has none */
	char shim_sock[108]; /* its shim's control socket, "" if started without the shim */
};

/* Hooks an injector uses to report; the agent fills them in. */
struct inj_env {
	/* Emits a `fault` event with this action ("flap_down", ...) at now. */
	void (*event)(struct inj_fault *f, const char *action, json_t *extra);
	void *arg;
};

struct inj_fault {
	const struct injector *inj;
	char id[64];
	struct inj_target target;
	json_t *params;		 /* validated parameters (owned) */
	uint64_t duration_ms;	 /* 0: until reverted */
	uint64_t injected_at_ns; /* inject() may set it to when the fault took effect */
	uint64_t reverted_at_ns;
	uint64_t next_tick_ns; /* 0: no tick wanted */
	bool injected;
	bool reverted;
	const struct inj_env *env;
	void *priv; /* injector state, freed by cleanup */
	char err[INJ_ERR_LEN];
	/*
	 * Set by the agent around revert: the injector appends one sentence per
	 * change it made or found already made, e.g. "rail0: set up (was up)".
	 * Owned by the agent; NULL when nobody collects them.
	 */
	json_t *actions;
};

/* What the coordinator must know of an injector before any agent is asked (injector.flags). */
enum {
	INJ_NEEDS_DURATION = 1u << 0, /* without a duration the fault would never end */
	INJ_LINK_OUTAGE = 1u << 1,    /* takes the target's link down: a stream should fail over */
	INJ_SEEDED = 1u << 2, /* takes an integer `seed`, from the drill's seed if not given */
	INJ_BITES_ON_REG =
	    1u << 3, /* acts when the workload registers memory (workload.mr_churn) */
	INJ_TYPED_PARAMS = 1u << 4, /* its parameters are exactly its typed table (none if empty) */
};

/*
 * A typed parameter of an injector whose parameters are numbers and
 * durations. A scenario writes `key` (a duration as "2s"); the agent receives
 * `wire` (a duration as integer milliseconds) and checks it from the same
 * entry (inj_params_typed), so the coordinator and the agent cannot disagree.
 */
enum inj_ptype { INJ_PT_INT, INJ_PT_DURATION };

struct inj_param {
	const char *key;
	const char *wire;
	enum inj_ptype type;
	uint64_t min, max;
	bool required;
	bool send_default; /* the coordinator sends def when the scenario leaves the key out */
	uint64_t def;	   /* the value when absent */
	const char *help;  /* what it is, for a "missing" sentence */
};

struct injector {
	const char *name;
	const char *summary;
	unsigned int flags; /* INJ_* */
	/* Documented parameters: "name=type default: meaning", NULL-terminated, for --help. */
	const char *const *param_help;
	/*
	 * Typed parameters, with INJ_TYPED_PARAMS. Without that flag a scenario's
	 * params go to the agent as written (scalars typed by their YAML form,
	 * lists as arrays) and only validate() checks them.
	 */
	const struct inj_param *params;
	unsigned int nr_params;
	/*
	 * Pure. A refusal is -EINVAL with a sentence that starts "NAME: params.KEY: "
	 * (KEY the wire key at fault, as in the params) or "NAME: params: " for the
	 * whole object: injector_refusal() reads the key back from it, so that the
	 * coordinator puts the error on the scenario's line.
	 */
	int (*validate)(const json_t *params, char *err, size_t errlen);
	/*
	 * Optional, for a fault whose parameters fix how long it must last (a
	 * flap schedule): the shortest duration, which is also the default when
	 * the scenario gives none, and a phrase saying why ("the flaps it must
	 * hold (3 x (down 1s + up 1s) = 6s)"). Called on validated params.
	 */
	uint64_t (*min_duration_ms)(const json_t *params, char *why, size_t len);
	/*
	 * Optional: how long the fault keeps a workload on its target from
	 * throughput when it cannot fail over, if not its whole duration (a flap:
	 * one down; 0: not known, as for a QP error, which lasts until the
	 * reconnect, not the revert), and in *key the scenario's parameter that
	 * sets it (NULL: the duration). Called on validated params.
	 */
	uint64_t (*outage_ms)(const json_t *params, uint64_t duration_ms, const char **key);
	int (*prepare)(struct inj_fault *f);
	int (*inject)(struct inj_fault *f);
	int (*tick)(struct inj_fault *f, uint64_t now_ns);
	int (*revert)(struct inj_fault *f);
	int (*verify)(struct inj_fault *f);
	/* Returns the prior state snapshot (new reference) for the report. */
	json_t *(*describe_prior)(const struct inj_fault *f);
	/*
	 * Crash recovery, required of every injector. snapshot() returns (new
	 * reference, NULL on failure) everything revert() and verify() need from
	 * prepare(), as plain JSON the agent journals before inject(). restore()
	 * rebuilds f->priv from it in a fresh fault whose target and params are
	 * set, touching nothing on the system, so that revert() and verify() work
	 * as after prepare(); a restored fault never resumes a schedule (tick()
	 * does nothing). -EINVAL with a sentence when the snapshot is unusable.
	 */
	json_t *(*snapshot)(const struct inj_fault *f);
	int (*restore)(struct inj_fault *f, const json_t *snapshot);
	void (*cleanup)(struct inj_fault *f);
	/*
	 * Optional: the process's one-time work of a first inject (a socket, a library's first
	 * request), done when the agent starts, so that the inject a drill times does not pay for
	 * it. Reads only; touches nothing on the system. Injectors may share one (idempotent).
	 * 0, or -errno with a sentence in err: the agent logs it and goes on.
	 */
	int (*warm)(char *err, size_t errlen);
};

#define INJECTOR(name) extern const struct injector inj_##name;
#include "injectors/injectors.def"
#undef INJECTOR

/* NULL-terminated list in injectors.def order. */
extern const struct injector *const injectors[];
const struct injector *injector_find(const char *name);

/* Runs every injector's warm(); each failure is logged (warning), none is fatal. */
void injectors_warm(void);

/* "link_down, port_flap, ... or qp_error": every injector, for "use ..." sentences. */
const char *injector_names(void);

/*
 * The parameter a refusal of inj->validate() names (see validate above): its
 * wire key into key ("" for the whole object or a sentence of another form)
 * and, in *body, the sentence without its "NAME: params.KEY: " front.
 */
void injector_refusal(const struct injector *inj, const char *msg, char *key, size_t keylen,
		      const char **body);

/* The typed parameter whose wire key is wire, or NULL. */
const struct inj_param *injector_param_by_wire(const struct injector *inj, const char *wire);

#endif
