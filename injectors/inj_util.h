/* SPDX-License-Identifier: MIT */
/*
 * Helpers every injector uses: error sentences into f->err, revert action
 * sentences into f->actions, and checks of JSON parameters (unknown keys,
 * integer ranges) so validate() refuses bad input with one clear sentence.
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

#endif
