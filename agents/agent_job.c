// SPDX-License-Identifier: MIT
/*
 * A user's job as a workload: the checks of workload_start's "job" object and
 * the rules, bounds and events of the lines the job prints (agents/agent_job.h).
 * Regular expressions are POSIX extended (regcomp), compiled once at start;
 * a line is matched on its first AGENT_JOB_MATCH_LEN bytes only, so that a
 * hostile line costs a bounded match.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agents/agent_job.h"
#include "common/errbuf.h"

#define AGENT_JOB_NAME_LEN 32

/* A string of 1..max-1 bytes with no NUL inside (jansson allows them) and no control bytes. */
static const char *agent_job_str(const json_t *v, size_t max, bool allow_empty)
{
	const char *s = json_string_value(v);
	size_t i, n;

	if (!s)
		return NULL;
	n = json_string_length(v);
	if (n >= max || (!n && !allow_empty) || strlen(s) != n)
		return NULL;
	for (i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 && s[i] != '\t')
			return NULL;
	return s;
}

static bool agent_job_env_name_ok(const char *s)
{
	size_t i;

	if (!s[0] || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
		return false;
	for (i = 1; s[i]; i++)
		if (!(isalnum((unsigned char)s[i]) || s[i] == '_'))
			return false;
	return i < 128;
}

static int agent_job_argv(const json_t *a, struct agent_job *j, char *err, size_t errlen)
{
	size_t i, n = json_array_size(a);

	if (!json_is_array(a) || !n || n > AGENT_JOB_ARGS_MAX)
		return errbuf_fail(err, errlen, -EINVAL,
				   "job.argv: must be a list of 1..%d strings, the program's "
				   "absolute path first",
				   AGENT_JOB_ARGS_MAX);
	j->argv = calloc(n + 1, sizeof(*j->argv));
	if (!j->argv)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const char *s = agent_job_str(json_array_get(a, i), AGENT_JOB_ARG_LEN, i > 0);

		if (!s)
			return errbuf_fail(err, errlen, -EINVAL,
					   "job.argv[%zu]: must be a string of at most %d bytes "
					   "without control characters",
					   i, AGENT_JOB_ARG_LEN - 1);
		if (!i && s[0] != '/')
			return errbuf_fail(err, errlen, -EINVAL,
					   "job.argv[0]: \"%.200s\" is not an absolute path; the "
					   "agent runs no PATH search (write e.g. /usr/bin/%.100s)",
					   s, s);
		j->argv[i] = strdup(s);
		if (!j->argv[i])
			return -ENOMEM;
	}
	return 0;
}

static int agent_job_env(const json_t *o, struct agent_job *j, char *err, size_t errlen)
{
	const char *name;
	const json_t *v;
	size_t n = 0;

	if (!o)
		return 0;
	if (!json_is_object(o) || json_object_size(o) > AGENT_JOB_ENV_MAX)
		return errbuf_fail(err, errlen, -EINVAL,
				   "job.env: must be a mapping of at most %d NAME: VALUE strings",
				   AGENT_JOB_ENV_MAX);
	j->env = calloc(json_object_size(o) + 1, sizeof(*j->env));
	if (!j->env)
		return -ENOMEM;
	json_object_foreach((json_t *)o, name, v) {
		const char *s = agent_job_str(v, AGENT_JOB_ENV_LEN, true);

		if (!agent_job_env_name_ok(name))
			return errbuf_fail(err, errlen, -EINVAL,
					   "job.env: \"%.100s\" is not a variable name "
					   "([A-Za-z_][A-Za-z0-9_]*)",
					   name);
		/* the shim is the agent's to preload ("shim": true), never the request's */
		if (!strcmp(name, "LD_PRELOAD") || !strcmp(name, "LD_LIBRARY_PATH") ||
		    !strcmp(name, "LD_AUDIT"))
			return errbuf_fail(err, errlen, -EINVAL,
					   "job.env.%s: refused: the dynamic loader's variables "
					   "would let a request run any code as the agent",
					   name);
		if (!s)
			return errbuf_fail(err, errlen, -EINVAL,
					   "job.env.%s: must be a string of at most %d bytes "
					   "without control characters",
					   name, AGENT_JOB_ENV_LEN - 1);
		if (asprintf(&j->env[n], "%s=%s", name, s) < 0) {
			j->env[n] = NULL;
			return -ENOMEM;
		}
		n++;
	}
	return 0;
}

static int agent_job_rule(const json_t *o, size_t idx, struct agent_job_rule *r, char *err,
			  size_t errlen)
{
	static const char *const keys[] = {"name", "regex", "kind", "group", "unit", NULL};
	const char *key, *name, *re, *kind, *unit = "";
	const json_t *v, *g;
	char msg[200];
	size_t i;
	int rc;

	if (!json_is_object(o))
		return errbuf_fail(err, errlen, -EINVAL,
				   "job.rules[%zu]: must be a mapping {name, regex, kind, group, "
				   "unit}",
				   idx);
	json_object_foreach((json_t *)o, key, v) {
		for (i = 0; keys[i] && strcmp(keys[i], key); i++)
			;
		if (!keys[i])
			return errbuf_fail(err, errlen, -EINVAL,
					   "job.rules[%zu]: unknown key \"%.60s\" (known: name, "
					   "regex, kind, group, unit)",
					   idx, key);
	}
	name = agent_job_str(json_object_get(o, "name"), AGENT_JOB_NAME_LEN, false);
	if (!name)
		return errbuf_fail(err, errlen, -EINVAL,
				   "job.rules[%zu].name: must be a string of 1..%d bytes", idx,
				   AGENT_JOB_NAME_LEN - 1);
	for (i = 0; name[i]; i++)
		if (!isalnum((unsigned char)name[i]) && name[i] != '_' && name[i] != '-')
			return errbuf_fail(err, errlen, -EINVAL,
					   "job.rules[%zu].name: \"%s\" may hold only "
					   "[A-Za-z0-9_-]",
					   idx, name);
	kind = json_string_value(json_object_get(o, "kind"));
	if (!kind || (strcmp(kind, "sample") && strcmp(kind, "error")))
		return errbuf_fail(err, errlen, -EINVAL,
				   "job.rules[%zu].kind: must be \"sample\" (a value to plot) or "
				   "\"error\" (a detection signal)",
				   idx);
	r->kind = !strcmp(kind, "sample") ? AGENT_JOB_SAMPLE : AGENT_JOB_ERROR;
	g = json_object_get(o, "group");
	if (r->kind == AGENT_JOB_SAMPLE) {
		if (g &&
		    (!json_is_integer(g) || json_integer_value(g) < 1 || json_integer_value(g) > 9))
			return errbuf_fail(err, errlen, -EINVAL,
					   "job.rules[%zu].group: must be 1..9, the parenthesised "
					   "part of the regex that holds the value",
					   idx);
		r->group = g ? (unsigned int)json_integer_value(g) : 1;
	} else if (g) {
		return errbuf_fail(err, errlen, -EINVAL,
				   "job.rules[%zu].group: only a sample rule has a value", idx);
	}
	if (json_object_get(o, "unit")) {
		unit = agent_job_str(json_object_get(o, "unit"), sizeof(r->unit), true);
		if (!unit)
			return errbuf_fail(err, errlen, -EINVAL,
					   "job.rules[%zu].unit: must be a string of at most "
					   "%zu bytes",
					   idx, sizeof(r->unit) - 1);
	}
	re = agent_job_str(json_object_get(o, "regex"), AGENT_JOB_REGEX_LEN, false);
	if (!re)
		return errbuf_fail(err, errlen, -EINVAL,
				   "job.rules[%zu].regex: must be a string of 1..%d bytes", idx,
				   AGENT_JOB_REGEX_LEN - 1);
	rc = regcomp(&r->re, re, REG_EXTENDED | (r->kind == AGENT_JOB_ERROR ? REG_NOSUB : 0));
	if (rc) {
		regerror(rc, NULL, msg, sizeof(msg));
		return errbuf_fail(err, errlen, -EINVAL,
				   "job.rules[%zu].regex: \"%.200s\" is not a POSIX extended "
				   "regular expression: %s",
				   idx, re, msg);
	}
	if (r->kind == AGENT_JOB_SAMPLE && r->re.re_nsub < r->group) {
		regfree(&r->re);
		return errbuf_fail(err, errlen, -EINVAL,
				   "job.rules[%zu].regex: \"%.200s\" has %zu parenthesised "
				   "part(s), group %u names none",
				   idx, re, r->re.re_nsub, r->group);
	}
	snprintf(r->name, sizeof(r->name), "%s", name);
	snprintf(r->unit, sizeof(r->unit), "%s", unit);
	return 0;
}

static int agent_job_rules(const json_t *a, struct agent_job *j, char *err, size_t errlen)
{
	size_t i, k;
	int ret;

	if (!a)
		return 0;
	if (!json_is_array(a) || json_array_size(a) > AGENT_JOB_RULES_MAX)
		return errbuf_fail(err, errlen, -EINVAL,
				   "job.rules: must be a list of at most %d rules",
				   AGENT_JOB_RULES_MAX);
	for (i = 0; i < json_array_size(a); i++) {
		ret = agent_job_rule(json_array_get(a, i), i, &j->rules[i], err, errlen);
		if (ret)
			return ret;
		j->nr_rules++;
		for (k = 0; k < i; k++)
			if (!strcmp(j->rules[k].name, j->rules[i].name))
				return errbuf_fail(err, errlen, -EINVAL,
						   "job.rules[%zu].name: \"%s\" is rules[%zu]'s "
						   "name already",
						   i, j->rules[i].name, k);
	}
	return 0;
}

int agent_job_parse(const json_t *spec, struct agent_job *j, char *err, size_t errlen)
{
	static const char *const keys[] = {"argv", "env", "cwd", "time_limit_ms", "rules", NULL};
	const char *key, *cwd;
	const json_t *v, *tl;
	size_t i;
	int ret;

	memset(j, 0, sizeof(*j));
	j->line_bucket = (struct agent_job_bucket){.tokens = AGENT_JOB_LINES_BURST,
						   .burst = AGENT_JOB_LINES_BURST,
						   .per_s = AGENT_JOB_LINES_PER_S};
	j->match_bucket = (struct agent_job_bucket){.tokens = AGENT_JOB_MATCHES_BURST,
						    .burst = AGENT_JOB_MATCHES_BURST,
						    .per_s = AGENT_JOB_MATCHES_PER_S};
	if (!json_is_object(spec))
		return errbuf_fail(err, errlen, -EINVAL,
				   "job: must be an object {argv, env, cwd, time_limit_ms, rules}");
	json_object_foreach((json_t *)spec, key, v) {
		for (i = 0; keys[i] && strcmp(keys[i], key); i++)
			;
		if (!keys[i])
			return errbuf_fail(err, errlen, -EINVAL,
					   "job: unknown key \"%.60s\" (known: argv, env, cwd, "
					   "time_limit_ms, rules)",
					   key);
	}
	tl = json_object_get(spec, "time_limit_ms");
	if (!json_is_integer(tl) || json_integer_value(tl) < 1 ||
	    (uint64_t)json_integer_value(tl) > AGENT_JOB_MAX_TIME_MS)
		return errbuf_fail(err, errlen, -EINVAL,
				   "job.time_limit_ms: required, 1..%llu (7 days): a job never "
				   "outlives its drill",
				   (unsigned long long)AGENT_JOB_MAX_TIME_MS);
	j->time_limit_ms = (uint64_t)json_integer_value(tl);
	v = json_object_get(spec, "cwd");
	if (v) {
		cwd = agent_job_str(v, sizeof(j->cwd), false);
		if (!cwd || cwd[0] != '/') {
			ret = errbuf_fail(err, errlen, -EINVAL,
					  "job.cwd: must be an absolute path of at most %zu bytes",
					  sizeof(j->cwd) - 1);
			goto fail;
		}
		snprintf(j->cwd, sizeof(j->cwd), "%s", cwd);
	}
	ret = agent_job_argv(json_object_get(spec, "argv"), j, err, errlen);
	if (!ret)
		ret = agent_job_env(json_object_get(spec, "env"), j, err, errlen);
	if (!ret)
		ret = agent_job_rules(json_object_get(spec, "rules"), j, err, errlen);
	if (!ret)
		return 0;
fail:
	if (ret == -ENOMEM)
		snprintf(err, errlen, "job: out of memory");
	agent_job_free(j);
	return ret;
}

void agent_job_free(struct agent_job *j)
{
	size_t i;

	for (i = 0; j->argv && j->argv[i]; i++)
		free(j->argv[i]);
	free(j->argv);
	for (i = 0; j->env && j->env[i]; i++)
		free(j->env[i]);
	free(j->env);
	for (i = 0; i < j->nr_rules; i++)
		regfree(&j->rules[i].re);
	j->argv = j->env = NULL;
	j->nr_rules = 0;
}

char **agent_job_environ(const struct agent_job *j, char *const *base)
{
	size_t nb = 0, ne = 0, i, k, n = 0;
	char **env;

	while (base && base[nb])
		nb++;
	while (j->env && j->env[ne])
		ne++;
	env = calloc(nb + ne + 1, sizeof(*env));
	if (!env)
		return NULL;
	for (i = 0; i < nb; i++) {
		const char *eq = strchr(base[i], '=');
		size_t len = eq ? (size_t)(eq - base[i]) + 1 : strlen(base[i]);
		bool replaced = false;

		for (k = 0; k < ne && !replaced; k++)
			replaced = !strncmp(base[i], j->env[k], len);
		if (!replaced)
			env[n++] = base[i];
	}
	for (k = 0; k < ne; k++)
		env[n++] = j->env[k];
	return env;
}

/* Takes a token when there is one, refilling first. */
static bool agent_job_take(struct agent_job_bucket *b, uint64_t now_ns)
{
	if (b->last_ns && now_ns > b->last_ns) {
		b->tokens += (double)(now_ns - b->last_ns) / 1e9 * b->per_s;
		if (b->tokens > b->burst)
			b->tokens = b->burst;
	}
	b->last_ns = now_ns;
	if (b->tokens < 1)
		return false;
	b->tokens -= 1;
	return true;
}

/* The first max bytes of s, cut back to a whole UTF-8 character. */
static size_t agent_job_cut(const char *s, size_t max)
{
	size_t n = strnlen(s, max + 1);

	if (n <= max)
		return n;
	n = max;
	while (n && ((unsigned char)s[n] & 0xC0) == 0x80)
		n--;
	return n;
}

/*
 * The first max bytes of s (cut back to a whole character) as a JSON string; a line that is not
 * UTF-8 is sent with every byte outside ASCII as '?', since JSON carries only UTF-8.
 */
static json_t *agent_job_text(const char *s, size_t max, bool *truncated)
{
	size_t n = agent_job_cut(s, max), i;
	char buf[AGENT_JOB_MATCH_LEN];
	json_t *t;

	*truncated = s[n] != '\0';
	t = json_stringn(s, n);
	if (t)
		return t;
	for (i = 0; i < n && i < sizeof(buf); i++)
		buf[i] = (unsigned char)s[i] < 0x80 ? s[i] : '?';
	return json_stringn(buf, i);
}

static void agent_job_match(struct agent_job *j, const struct agent_job_rule *r, const char *stream,
			    const char *text, uint64_t now_ns, agent_job_emit_fn emit, void *arg)
{
	regmatch_t m[10];
	char num[64], *end;
	bool cut;
	json_t *ev;
	double v = 0;
	size_t len;

	if (regexec(&r->re, text, r->kind == AGENT_JOB_SAMPLE ? r->group + 1 : 0, m, 0))
		return;
	if (r->kind == AGENT_JOB_SAMPLE) {
		if (m[r->group].rm_so < 0)
			return;
		len = (size_t)(m[r->group].rm_eo - m[r->group].rm_so);
		if (len >= sizeof(num))
			return;
		memcpy(num, text + m[r->group].rm_so, len);
		num[len] = '\0';
		errno = 0;
		v = strtod(num, &end);
		if (end == num || *end || errno || !isfinite(v))
			return; /* the part matched, but holds no number: not a sample */
	}
	if (!agent_job_take(&j->match_bucket, now_ns)) {
		j->matches_dropped++;
		return;
	}
	if (r->kind == AGENT_JOB_SAMPLE)
		ev =
		    json_pack("{s:s, s:s, s:f}", "type", "job_sample", "name", r->name, "value", v);
	else
		ev = json_pack("{s:s, s:s, s:s, s:o}", "type", "job_error", "name", r->name,
			       "stream", stream, "text",
			       agent_job_text(text, AGENT_JOB_TEXT_MAX, &cut));
	if (ev && r->kind == AGENT_JOB_SAMPLE && r->unit[0])
		json_object_set_new(ev, "unit", json_string(r->unit));
	if (!ev)
		return;
	j->matches_sent++;
	emit(arg, now_ns, ev);
}

void agent_job_line(struct agent_job *j, const char *stream, const char *line, uint64_t now_ns,
		    agent_job_emit_fn emit, void *arg)
{
	char text[AGENT_JOB_MATCH_LEN];
	size_t n, i;
	bool cut;
	json_t *ev;

	if (!line[0])
		return;
	j->lines++;
	n = strnlen(line, sizeof(text) - 1);
	memcpy(text, line, n);
	text[n] = '\0';
	for (i = 0; i < j->nr_rules; i++)
		agent_job_match(j, &j->rules[i], stream, text, now_ns, emit, arg);
	if (!agent_job_take(&j->line_bucket, now_ns)) {
		j->lines_dropped++;
		return;
	}
	ev = json_pack("{s:s, s:s, s:o}", "type", "line", "stream", stream, "text",
		       agent_job_text(text, AGENT_JOB_TEXT_MAX, &cut));
	if (!ev)
		return;
	if (cut)
		json_object_set_new(ev, "truncated", json_true());
	j->lines_sent++;
	emit(arg, now_ns, ev);
}

json_t *agent_job_stats(const struct agent_job *j)
{
	return json_pack("{s:I, s:I, s:I, s:I, s:I}", "lines", (json_int_t)j->lines, "lines_sent",
			 (json_int_t)j->lines_sent, "lines_dropped", (json_int_t)j->lines_dropped,
			 "matches_sent", (json_int_t)j->matches_sent, "matches_dropped",
			 (json_int_t)j->matches_dropped);
}
