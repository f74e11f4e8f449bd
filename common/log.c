// SPDX-License-Identifier: MIT
/* Logging to stderr with a program prefix and a level filter. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <errno.h>

#include "common/log.h"

static const char *rc_log_prog = "rdmachaos";
static enum rc_log_level rc_log_level = RC_LOG_INFO;
static void (*rc_log_before)(void), (*rc_log_after)(void);

void rc_log_set_hooks(void (*before)(void), void (*after)(void))
{
	rc_log_before = before;
	rc_log_after = after;
}

void rc_log_init(const char *prog, enum rc_log_level level)
{
	const char *slash = strrchr(prog, '/');

	rc_log_prog = slash ? slash + 1 : prog;
	rc_log_level = level;
}

enum rc_log_level rc_log_get_level(void)
{
	return rc_log_level;
}

void rc_log(enum rc_log_level level, const char *fmt, ...)
{
	static const char *const names[] = {"error", "warning", "info", "debug"};
	int saved = errno;
	va_list ap;

	if (level > rc_log_level)
		return;
	if (rc_log_before)
		rc_log_before();
	fprintf(stderr, "%s: %s: ", rc_log_prog, names[level]);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if (rc_log_after)
		rc_log_after();
	errno = saved;
}
