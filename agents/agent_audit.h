/* SPDX-License-Identifier: MIT */
/*
 * The agent's audit log: one JSON line per request the agent answered,
 * accepted or refused (agents/README.md, "Audit log"), appended with a single
 * write() to a file opened O_APPEND; the lines of inject, revert and
 * revert_all that changed something are fdatasync()ed before the answer goes
 * out, so they survive a crash.
 */
#ifndef AGENT_AUDIT_H
#define AGENT_AUDIT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define AGENT_AUDIT_DEFAULT "/var/log/rdmachaos/audit.jsonl"
#define AGENT_AUDIT_NONE "none" /* --audit-log none: no audit log */

struct agent_audit {
	int fd; /* -1: no audit log */
	char path[4096];
	bool failing; /* the last write failed: logged once until one succeeds */
};

/* One answered request. */
struct agent_audit_rec {
	uint64_t wall_ns;     /* CLOCK_REALTIME of the answer */
	const char *peer;     /* "10.0.0.1:40312", NULL when unknown */
	const char *peer_id;  /* the TLS peer's identity, NULL without one */
	const json_t *req;    /* the request: id, op, fault_id, injector, target, wl_id */
	const json_t *result; /* the result when ok (for netdev), else NULL */
	int err;	      /* 0, or the -errno answered */
	const char *error;    /* the error sentence when err */
};

void agent_audit_init(struct agent_audit *au);
/* Opens (creates, mode 0640) path for appending; creates its folder if missing. 0 or -errno. */
int agent_audit_open(struct agent_audit *au, const char *path, char *err, size_t errlen);
void agent_audit_close(struct agent_audit *au);

/* "ok", "refused" (turned down before anything was changed) or "error", from an answer's -errno. */
const char *agent_audit_outcome(int err);
/* The record's line, '\n' included; malloc'ed, NULL when out of memory. */
char *agent_audit_format(const struct agent_audit_rec *r);
/* Appends the record's line; 0 when written (or no audit log), else -errno (logged). */
int agent_audit_write(struct agent_audit *au, const struct agent_audit_rec *r);

#endif
