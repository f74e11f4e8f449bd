// SPDX-License-Identifier: MIT
/* Logging to stderr with a program prefix and a level filter. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <errno.h>

#include "common/log.h"

static const char *rc_log_prog = "rdmachaos";
static enum rc_log_level rc_log_level = RC_LOG_INFO;

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
	fprintf(stderr, "%s: %s: ", rc_log_prog, names[level]);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	errno = saved;
}
