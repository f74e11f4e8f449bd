/* SPDX-License-Identifier: MIT */
/*
 * Helpers every injector uses: error sentences into f->err, revert action
 * sentences into f->actions, checks of JSON parameters (unknown keys,
 * integer ranges) so validate() refuses bad input with one clear sentence,
 * libnl's errors as errno, and calls to a workload's verbs shim.
 */
#ifndef INJ_UTIL_H
#define INJ_UTIL_H

#include <jansson.h>
#include <stdbool.h>

#include "injectors/injector.h"

/* Writes a sentence into f->err and returns err (a -errno), for `return inj_fail(...)`. */
int inj_fail(struct inj_fault *f, int err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Appends a sentence to f->actions, if the agent collects them. */
void inj_action(struct inj_fault *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* -EINVAL with "who: params: ..." unless params is an object whose keys are all in known. */
int inj_params_known(const char *who, const json_t *params, const char *const *known, char *err,
		     size_t errlen);
/*
 * Reads params[key] as an integer in min..max; *out = def when the key is
 * absent and not required. -EINVAL with a sentence otherwise.
 */
int inj_params_int(const char *who, const json_t *params, const char *key, bool required,
		   json_int_t min, json_int_t max, json_int_t def, json_int_t *out, char *err,
		   size_t errlen);

/*
 * Checks params against inj's typed table (inj->params) as the agent receives
 * them: no key outside it, each an integer in min..max, the required ones
 * present; vals[i] = params[i]'s value or default. -EINVAL with the sentence
 * of inj_params_known / inj_params_int otherwise.
 */
int inj_params_typed(const struct injector *inj, const json_t *params, json_int_t *vals, char *err,
		     size_t errlen);

/*
 * libnl's NLE_* code (either sign) as a -errno, one table for every injector and observer:
 * NLE_NODEV and NLE_OBJ_NOTFOUND are -ENODEV (what libnl reports when the object asked for is
 * not there; a caller that knows better, e.g. tc's "no such filter kind", says so in its
 * sentence from the raw code), anything unknown -EIO.
 */
int inj_nl_errno(int nlerr);

struct shim_cmd;
/*
 * One call to a workload's verbs shim (common/shim_proto.h) at sock, waiting up to timeout_ms:
 * 0 with *reply (the caller's to free), or -errno with "WHO: WHY" in f->err (who as the caller
 * names the workload, e.g. "qp_error: workload stream (pid 42)"). -ESRCH (the workload is gone)
 * writes no sentence when gone_ok: a revert or verify judges that one itself.
 */
int inj_shim_call(struct inj_fault *f, const char *sock, const struct shim_cmd *c, int timeout_ms,
		  const char *who, bool gone_ok, json_t **reply);

#endif
