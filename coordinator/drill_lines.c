// SPDX-License-Identifier: MIT
/*
 * The drill's progress lines on stderr: one line for each event an SRE watches for (links,
 * ports, faults, PFC, a workload's errors, failovers, stalls and exits, agent messages), as it
 * happens. Throughput samples, counters and job output lines are not printed here.
 */
#include <jansson.h>
#include <string.h>

#include "coordinator/drill_priv.h"
#include "coordinator/progress.h"

/* How a workload's process ended, for its exit line. */
static const char *drill_exit_how(json_t *ev)
{
	if (json_is_true(json_object_get(ev, "time_limit")))
		return ", stopped at its time limit";
	return json_is_true(json_object_get(ev, "killed")) ? ", killed" : "";
}

/* A workload's events, one line each: errors, failovers, stalls, exits. */
static void drill_print_workload(struct drill *d, json_t *ev, double t, const char *node,
				 const char *type)
{
	const struct drill_flow *f = drill_flow_of(d, ev);
	const char *wl = f && f->guard >= 0 ? f->wl_id : "workload";

	if (!strcmp(type, "error") && json_object_get(ev, "text"))
		prog_event("  %+8.1fs %s job error line: %.200s", t, node,
			   json_string_value(json_object_get(ev, "text")));
	else if (!strcmp(type, "error"))
		prog_event("  %+8.1fs %s %s error on rail %lld: %s (vendor_err %lld)", t, node, wl,
			   json_integer_value(json_object_get(ev, "rail")),
			   json_string_value(json_object_get(ev, "wc_status")) ?: "?",
			   json_integer_value(json_object_get(ev, "vendor_err")));
	else if (!strcmp(type, "failover") || !strcmp(type, "failback"))
		prog_event("  %+8.1fs %s %s %s rail %lld -> %lld", t, node, wl, type,
			   json_integer_value(json_object_get(ev, "from_rail")),
			   json_integer_value(json_object_get(ev, "to_rail")));
	else if (!strcmp(type, "rail_down") || !strcmp(type, "rail_up"))
		prog_event("  %+8.1fs %s %s %s rail %lld", t, node, wl, type,
			   json_integer_value(json_object_get(ev, "rail")));
	else if (!strcmp(type, "exit"))
		prog_event("  %+8.1fs %s %s %s exited (status %lld%s)", t, node, wl,
			   json_string_value(json_object_get(ev, "role")) ?: "?",
			   json_integer_value(json_object_get(ev, "exit_status")),
			   drill_exit_how(ev));
	else if (!strcmp(type, "stall"))
		prog_event("  %+8.1fs %s %s stalled: %s", t, node, wl,
			   json_string_value(json_object_get(ev, "reason")) ?: "?");
	else if (!strcmp(type, "kick") &&
		 json_integer_value(json_object_get(ev, "stalled_ms")) < 1000)
		/* the first kick of a stall; the rest (every 500 ms) are in events.jsonl */
		prog_event("  %+8.1fs %s %s kicks its stalled Soft-RoCE requester on rail "
			   "%lld (a lost wake-up in rxe; docs/PROTOCOL.md, kick)",
			   t, node, wl, json_integer_value(json_object_get(ev, "rail")));
	else if (!strcmp(type, "resume"))
		prog_event("  %+8.1fs %s %s resumed after %lld ms", t, node, wl,
			   json_integer_value(json_object_get(ev, "stalled_ms")));
	else if (!strcmp(type, "mr_error"))
		prog_event("  %+8.1fs %s %s memory registration failed (%s, attempt %lld): %s; "
			   "retry in %lld ms",
			   t, node, wl, json_string_value(json_object_get(ev, "during")) ?: "?",
			   json_integer_value(json_object_get(ev, "attempt")),
			   json_string_value(json_object_get(ev, "error")) ?: "?",
			   json_integer_value(json_object_get(ev, "retry_in_ms")));
	else if (!strcmp(type, "mr_recovered"))
		prog_event("  %+8.1fs %s %s memory registered again after %lld attempts (%lld "
			   "ms)",
			   t, node, wl, json_integer_value(json_object_get(ev, "attempts")),
			   json_integer_value(json_object_get(ev, "failed_ms")));
	else if (!strcmp(type, "connected"))
		prog_event("  %+8.1fs %s %s connected rail %lld (QP %lld)", t, node, wl,
			   json_integer_value(json_object_get(ev, "rail")),
			   json_integer_value(json_object_get(ev, "qp_num")));
}

void drill_print_line(struct drill *d, json_t *ev, const char *kind, const char *node, double t,
		      const char *type)
{
	if (!strcmp(kind, "link"))
		prog_event("  %+8.1fs %s link %s %s", t, node,
			   json_string_value(json_object_get(ev, "ifname")) ?: "?",
			   json_is_true(json_object_get(ev, "up")) &&
				   json_is_true(json_object_get(ev, "carrier"))
			       ? "up"
			       : "down");
	else if (!strcmp(kind, "port") || !strcmp(kind, "async"))
		prog_event("  %+8.1fs %s %s port %lld %s", t, node,
			   json_string_value(json_object_get(ev, "device")) ?: "?",
			   json_integer_value(json_object_get(ev, "port")),
			   json_string_value(json_object_get(ev, "event")) ?: "?");
	else if (!strcmp(kind, "fault") && json_is_integer(json_object_get(ev, "qpn")))
		prog_event("  %+8.1fs %s fault %s: QP %lld is %s (seen through RDMA netlink)", t,
			   node, json_string_value(json_object_get(ev, "fault_id")) ?: "?",
			   json_integer_value(json_object_get(ev, "qpn")),
			   json_string_value(json_object_get(ev, "state")) ?: "?");
	else if (!strcmp(kind, "fault"))
		prog_event("  %+8.1fs %s fault %s: %s %s", t, node,
			   json_string_value(json_object_get(ev, "fault_id")) ?: "?",
			   json_string_value(json_object_get(ev, "action")) ?: "?",
			   json_string_value(json_object_get(ev, "netdev")) ?: "");
	else if (!strcmp(kind, "pfc") && type && strcmp(type, "rx"))
		prog_event("  %+8.1fs %s pfc %s on %s priority %lld%s%s", t, node, type,
			   json_string_value(json_object_get(ev, "netdev")) ?: "?",
			   json_integer_value(json_object_get(ev, "priority")),
			   json_string_value(json_object_get(ev, "action")) ? " " : "",
			   json_string_value(json_object_get(ev, "action")) ?: "");
	else if (!strcmp(kind, "workload") && type)
		drill_print_workload(d, ev, t, node, type);
	else if (!strcmp(kind, "agent"))
		prog_event("  %+8.1fs %s agent: %s", t, node,
			   json_string_value(json_object_get(ev, "message")) ?: "?");
}
