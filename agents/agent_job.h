/* SPDX-License-Identifier: MIT */
/*
 * A user's job as a workload (docs/PROTOCOL.md, workload_start's "job"): the
 * checked request (program, arguments, environment, working directory, time
 * limit, output rules) and what becomes of each line the job prints. Pure:
 * no process is started here and nothing is emitted but through the caller's
 * function, so the request checks and the output bounds are unit-tested
 * without a host (tests/unit/test_agent_job.c). agent_workload.c runs it.
 *
 * A job's output is hostile and unbounded, the events are neither: every line
 * is matched against the rules (a `job_sample` event per sample rule that
 * matches, a `job_error` per error rule), and only then cut to
 * AGENT_JOB_TEXT_MAX bytes and sent as a `line` event within a token bucket
 * (AGENT_JOB_LINES_BURST, refilled at AGENT_JOB_LINES_PER_S); samples and
 * error lines have a bucket of their own. What a bucket drops is counted and
 * reported with the job's exit (agent_job_stats).
 */
#ifndef AGENT_JOB_H
#define AGENT_JOB_H

#include <jansson.h>
#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "agents/agent_policy.h"

#define AGENT_JOB_ARGS_MAX 256
#define AGENT_JOB_ARG_LEN 4096
#define AGENT_JOB_ENV_MAX 64
#define AGENT_JOB_ENV_LEN 4096
#define AGENT_JOB_RULES_MAX 16
#define AGENT_JOB_REGEX_LEN 512
#define AGENT_JOB_MATCH_LEN 4096 /* of a line, matched against the rules */
#define AGENT_JOB_TEXT_MAX 1024	 /* of a line, sent in a `line` event */
#define AGENT_JOB_LINES_BURST 200
#define AGENT_JOB_LINES_PER_S 20
#define AGENT_JOB_MATCHES_BURST 1000
#define AGENT_JOB_MATCHES_PER_S 100
#define AGENT_JOB_MAX_TIME_MS (7ULL * 24 * 3600 * 1000)

enum agent_job_rule_kind { AGENT_JOB_SAMPLE, AGENT_JOB_ERROR };

struct agent_job_rule {
	char name[32];
	enum agent_job_rule_kind kind;
	regex_t re;
	unsigned int group; /* sample: the subexpression holding the value (1..9) */
	char unit[16];	    /* sample: passed on as is, "" for none */
};

/* A token bucket: burst tokens, refilled at per_s a second. */
struct agent_job_bucket {
	double tokens;
	uint64_t last_ns;
	unsigned int burst, per_s;
};

struct agent_job {
	char **argv; /* NULL-terminated; argv[0] is the program's absolute path */
	char **env;  /* NAME=VALUE, NULL-terminated: added to (or replacing) the agent's */
	char cwd[AGENT_JOB_ARG_LEN]; /* "" for the agent's */
	uint64_t time_limit_ms;
	struct agent_job_rule rules[AGENT_JOB_RULES_MAX];
	unsigned int nr_rules;

	struct agent_job_bucket line_bucket, match_bucket;
	uint64_t lines, lines_sent, lines_dropped, matches_sent, matches_dropped;
};

/*
 * Reads and checks the request's "job" object into j (zeroed first):
 *   argv: [PROGRAM, ARG...]  PROGRAM an absolute path; 1..AGENT_JOB_ARGS_MAX strings
 *   env: {NAME: VALUE}       optional; NAME [A-Za-z_][A-Za-z0-9_]*, not LD_PRELOAD
 *   cwd: DIR                 optional, absolute
 *   time_limit_ms: N         required, 1..AGENT_JOB_MAX_TIME_MS: the job is stopped then
 *   rules: [{name, regex, kind: sample|error, group, unit}]   optional
 * 0, or -EINVAL and a sentence naming the key ("job.argv[2]: ..."); j is freed on error.
 */
int agent_job_parse(const json_t *spec, struct agent_job *j, char *err, size_t errlen);

void agent_job_free(struct agent_job *j);

/*
 * The environment of the job's child: base (the agent's, NULL-terminated)
 * with each of j->env replacing the variable of its name or added. Strings
 * are shared, not copied: free() only the array. NULL when out of memory.
 */
char **agent_job_environ(const struct agent_job *j, char *const *base);

/* An event for the caller to send: fields (stolen) of a `workload` event at ts_ns. */
typedef void (*agent_job_emit_fn)(void *arg, uint64_t ts_ns, json_t *fields);

/*
 * One line the job printed on stream ("stdout" or "stderr"), at now_ns:
 * job_sample / job_error events for the rules that match, then the line
 * itself, each within its bucket.
 */
void agent_job_line(struct agent_job *j, const char *stream, const char *line, uint64_t now_ns,
		    agent_job_emit_fn emit, void *arg);

/* {"lines", "lines_sent", "lines_dropped", "matches_sent", "matches_dropped"}; NULL on ENOMEM. */
json_t *agent_job_stats(const struct agent_job *j);

#endif
