// SPDX-License-Identifier: MIT
/* The one helper that writes a failure's sentence and returns its -errno (errbuf.h). */
#include <stdarg.h>
#include <stdio.h>

#include "errbuf.h"

int errbuf_fail(char *err, size_t errlen, int ret, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return ret;
}
