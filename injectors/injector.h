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

struct injector {
	const char *name;
	const char *summary;
	/* Documented parameters: "name=type default: meaning", NULL-terminated, for --help. */
	const char *const *param_help;
	int (*validate)(const json_t *params, char *err, size_t errlen);
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
};

#define INJECTOR(name) extern const struct injector inj_##name;
#include "injectors/injectors.def"
#undef INJECTOR

/* NULL-terminated list in injectors.def order. */
extern const struct injector *const injectors[];
const struct injector *injector_find(const char *name);

#endif
