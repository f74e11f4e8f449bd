/* SPDX-License-Identifier: MIT */
/*
 * The error sentence of a call that fails: the callee writes what went wrong into the caller's
 * buffer and returns its -errno in one statement, `return errbuf_fail(err, errlen, -EINVAL, ...)`.
 */
#ifndef RC_ERRBUF_H
#define RC_ERRBUF_H

#include <stddef.h>

/* Formats into err (when err and errlen are set, cut to fit) and returns ret. */
int errbuf_fail(char *err, size_t errlen, int ret, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
