// SPDX-License-Identifier: MIT
/* Events of the agent's modules, through its sink (struct agent_sink), so that none of them calls
 * the server. */
#include <stdarg.h>
#include <stdio.h>

#include "agents/agent.h"
#include "common/units.h"

void agent_emit_at(struct agent *a, const char *kind, uint64_t ts_ns, json_t *fields)
{
	if (a->sink.emit)
		a->sink.emit(a->sink.arg, kind, ts_ns, fields);
	else
		json_decref(fields);
}

void agent_emit(struct agent *a, const char *kind, json_t *fields)
{
	agent_emit_at(a, kind, rc_now_ns(), fields);
}

void agent_notice(struct agent *a, enum rc_log_level level, const char *fmt, ...)
{
	static const char *const names[] = {"error", "warning", "info", "debug"};
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	rc_log(level, "%s", msg);
	agent_emit(a, "agent", json_pack("{s:s, s:s}", "message", msg, "level", names[level]));
}
