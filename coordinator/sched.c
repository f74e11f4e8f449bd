// SPDX-License-Identifier: MIT
/*
 * The scheduler watcher (coordinator/sched.h): scontrol polled on a thread of its own, each
 * answer compared with the last, every change queued as an event for the drill's loop.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/run.h"
#include "common/slurm.h"
#include "common/units.h"
#include "coordinator/sched.h"

extern char **environ;

struct sched {
	pthread_t thread;
	bool thread_started;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	bool stop;
	json_t *queue; /* events not yet drained, guarded by lock */
	struct sched_counts counts;
	/* the thread's own, set before it starts */
	char *argv_nodes[6], *argv_jobs[5];
	char node_list[8192];
	char **envp; /* environ with SLURM_CONF set; NULL: environ */
	char conf_var[600];
	uint64_t every_ms;
	json_t *names; /* Slurm node -> drill node */
	char job[SC_NAME_LEN];
	json_t *state;
	uint64_t last_ns, last_job_ns; /* the last answers' times, nodes' and jobs' */
	char *buf;
};

/* --- one poll's answers into events (pure) -------------------------------------------------- */

static json_t *sched_event(const char *kind, uint64_t prev_ns, uint64_t now_ns)
{
	return json_pack("{s:s,s:s,s:I,s:I}", "kind", kind, "node", "scheduler", "t_ns",
			 (json_int_t)now_ns, "after_ns", (json_int_t)prev_ns);
}

static const char *sched_cause(const char *state)
{
	if (slurm_state_has(state, "DRAIN*"))
		return "drain";
	if (slurm_state_has(state, "NOT_RESPONDING") || strchr(state, '*'))
		return "not_responding";
	return "down";
}

static void sched_observe_node(json_t *nodes, const json_t *names, const char *line, size_t len,
			       uint64_t prev_ns, uint64_t now_ns, json_t *out)
{
	char name[SC_NAME_LEN], state[128], reason[512];
	const char *drill_node;
	json_t *old, *e;
	bool sched_ok, was_ok;

	if (slurm_field(line, len, "NodeName", name, sizeof(name)) ||
	    slurm_field(line, len, "State", state, sizeof(state)))
		return;
	drill_node = json_string_value(json_object_get(names, name));
	if (!drill_node)
		return;
	slurm_reason(line, len, reason, sizeof(reason));
	sched_ok = !slurm_state_unschedulable(state);
	old = json_object_get(nodes, name);
	if (old && !strcmp(json_string_value(json_object_get(old, "state")), state) &&
	    !strcmp(json_string_value(json_object_get(old, "reason")), reason))
		return;
	was_ok = old ? json_is_true(json_object_get(old, "schedulable")) : true;
	e = sched_event("scheduler_node", prev_ns, now_ns);
	json_object_set_new(e, "node", json_string(drill_node));
	json_object_set_new(e, "slurm_node", json_string(name));
	json_object_set_new(e, "state", json_string(state));
	json_object_set_new(e, "reason", json_string(reason));
	json_object_set_new(e, "schedulable", json_boolean(sched_ok));
	if (!old)
		json_object_set_new(e, "first", json_true());
	json_array_append_new(out, e);
	/* a node first seen out of service was so before the drill: no transition of ours */
	if (old && was_ok != sched_ok) {
		e = sched_event(sched_ok ? "scheduler_resume" : "scheduler_drain", prev_ns, now_ns);
		json_object_set_new(e, "node", json_string(drill_node));
		json_object_set_new(e, "state", json_string(state));
		json_object_set_new(e, "reason", json_string(reason));
		if (!sched_ok)
			json_object_set_new(e, "cause", json_string(sched_cause(state)));
		json_array_append_new(out, e);
	}
	json_object_set_new(
	    nodes, name,
	    json_pack("{s:s,s:s,s:b}", "state", state, "reason", reason, "schedulable", sched_ok));
}

static void sched_observe_job(json_t *jobs, const char *job, const char *line, size_t len,
			      uint64_t prev_ns, uint64_t now_ns, json_t *out)
{
	char name[SC_NAME_LEN], id[32], state[64], restarts[16], nodes[256], reason[128];
	char exit_code[16];
	long long nr_restarts;
	json_t *old, *e;

	if (slurm_field(line, len, "JobName", name, sizeof(name)) || strcmp(name, job) ||
	    slurm_field(line, len, "JobId", id, sizeof(id)) ||
	    slurm_field(line, len, "JobState", state, sizeof(state)))
		return;
	if (slurm_field(line, len, "Restarts", restarts, sizeof(restarts)))
		restarts[0] = '\0';
	nr_restarts = strtoll(restarts, NULL, 10);
	if (slurm_field(line, len, "NodeList", nodes, sizeof(nodes)))
		nodes[0] = '\0';
	if (slurm_field(line, len, "Reason", reason, sizeof(reason)))
		reason[0] = '\0';
	if (slurm_field(line, len, "ExitCode", exit_code, sizeof(exit_code)))
		exit_code[0] = '\0';
	old = json_object_get(jobs, id);
	if (old && !strcmp(json_string_value(json_object_get(old, "state")), state) &&
	    json_integer_value(json_object_get(old, "restarts")) == nr_restarts &&
	    !strcmp(json_string_value(json_object_get(old, "nodes")), nodes))
		return;
	e = sched_event("scheduler_job", prev_ns, now_ns);
	json_object_set_new(e, "job_id", json_string(id));
	json_object_set_new(e, "name", json_string(name));
	json_object_set_new(e, "state", json_string(state));
	json_object_set_new(e, "restarts", json_integer(nr_restarts));
	json_object_set_new(e, "nodes", json_string(nodes));
	json_object_set_new(e, "reason", json_string(reason));
	if (exit_code[0])
		json_object_set_new(e, "exit_code", json_string(exit_code));
	if (old && nr_restarts > json_integer_value(json_object_get(old, "restarts")))
		json_object_set_new(e, "requeued", json_true());
	json_array_append_new(out, e);
	json_object_set_new(jobs, id,
			    json_pack("{s:s,s:I,s:s}", "state", state, "restarts",
				      (json_int_t)nr_restarts, "nodes", nodes));
}

/* Each line of text through fn; a record longer than the answer's buffer was cut: it is read
 * as far as it goes. */
static void sched_lines(const char *text, void (*fn)(const char *line, size_t len, void *arg),
			void *arg)
{
	const char *p = text, *nl;

	while (p && *p) {
		nl = strchr(p, '\n');
		fn(p, nl ? (size_t)(nl - p) : strlen(p), arg);
		p = nl ? nl + 1 : NULL;
	}
}

struct sched_obs {
	json_t *state, *out;
	const json_t *names;
	const char *job;
	uint64_t prev_ns, now_ns;
};

static void sched_node_line(const char *line, size_t len, void *arg)
{
	struct sched_obs *o = arg;
	json_t *nodes = json_object_get(o->state, "nodes");

	if (!nodes) {
		nodes = json_object();
		json_object_set_new(o->state, "nodes", nodes);
	}
	sched_observe_node(nodes, o->names, line, len, o->prev_ns, o->now_ns, o->out);
}

static void sched_job_line(const char *line, size_t len, void *arg)
{
	struct sched_obs *o = arg;
	json_t *jobs = json_object_get(o->state, "jobs");

	if (!jobs) {
		jobs = json_object();
		json_object_set_new(o->state, "jobs", jobs);
	}
	sched_observe_job(jobs, o->job, line, len, o->prev_ns, o->now_ns, o->out);
}

void sched_observe(json_t *state, const json_t *names, const char *job, const char *nodes_text,
		   const char *jobs_text, uint64_t prev_ns, uint64_t now_ns, json_t *out)
{
	struct sched_obs o = {state, out, names, job, prev_ns, now_ns};

	if (nodes_text)
		sched_lines(nodes_text, sched_node_line, &o);
	if (jobs_text && job && job[0])
		sched_lines(jobs_text, sched_job_line, &o);
}

/* --- scontrol ------------------------------------------------------------------------------- */

static void sched_describe(const struct sched *s, char *const argv[], int ret, char *err,
			   size_t errlen)
{
	char cmd[512] = "";
	size_t n = 0;
	unsigned int i;

	for (i = 0; argv[i] && n < sizeof(cmd); i++)
		n += (size_t)snprintf(cmd + n, sizeof(cmd) - n, "%s%s", i ? " " : "", argv[i]);
	if (ret == -ENOENT)
		snprintf(err, errlen,
			 "scheduler: %s: no such program; install Slurm's client (Debian: "
			 "slurm-client) or give scheduler.slurm.scontrol",
			 argv[0]);
	else if (ret < 0)
		snprintf(err, errlen, "scheduler: %s: %s", cmd, strerror(-ret));
	else
		snprintf(err, errlen,
			 "scheduler: %s: exit %d; can this host reach slurmctld (%s, and munge "
			 "for its credentials)?",
			 cmd, ret, s->conf_var[0] ? s->conf_var : "scontrol's own slurm.conf");
}

/* One poll: both answers, then their events into out. 0, or -1 with err. */
static int sched_poll(struct sched *s, json_t *out, char *err, size_t errlen)
{
	uint64_t now;
	char *jobs = NULL;
	int ret;

	ret = rc_run(s->argv_nodes, s->envp, SCHED_RUN_MS, s->buf, SCHED_MAX_ANSWER);
	if (ret) {
		sched_describe(s, s->argv_nodes, ret, err, errlen);
		return -1;
	}
	now = rc_now_ns();
	sched_observe(s->state, s->names, s->job, s->buf, NULL, s->last_ns ?: now, now, out);
	s->last_ns = now;
	if (!s->job[0])
		return 0;
	jobs = malloc(SCHED_MAX_ANSWER);
	if (!jobs) {
		snprintf(err, errlen, "scheduler: out of memory");
		return -1;
	}
	ret = rc_run(s->argv_jobs, s->envp, SCHED_RUN_MS, jobs, SCHED_MAX_ANSWER);
	if (ret) {
		sched_describe(s, s->argv_jobs, ret, err, errlen);
		free(jobs);
		return -1;
	}
	/* stamped when the answer came: a state in it held by then (the drill's end judges the
	 * job by the states stamped before it) */
	now = rc_now_ns();
	sched_observe(s->state, s->names, s->job, NULL, jobs, s->last_job_ns ?: now, now, out);
	s->last_job_ns = now;
	free(jobs);
	return 0;
}

static void sched_queue(struct sched *s, json_t *evs)
{
	size_t i;

	pthread_mutex_lock(&s->lock);
	for (i = 0; i < json_array_size(evs); i++) {
		if (json_array_size(s->queue) >= SCHED_MAX_QUEUE) {
			s->counts.dropped++;
			continue;
		}
		json_array_append(s->queue, json_array_get(evs, i));
	}
	pthread_mutex_unlock(&s->lock);
}

static void *sched_thread(void *arg)
{
	struct sched *s = arg;
	char err[sizeof(s->counts.last_error)];
	struct timespec until;
	json_t *evs;
	int ret;

	pthread_mutex_lock(&s->lock);
	while (!s->stop) {
		clock_gettime(CLOCK_MONOTONIC, &until);
		until.tv_sec += (time_t)(s->every_ms / 1000);
		until.tv_nsec += (long)(s->every_ms % 1000) * 1000000L;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		while (!s->stop && pthread_cond_timedwait(&s->wake, &s->lock, &until) != ETIMEDOUT)
			;
		if (s->stop)
			break;
		pthread_mutex_unlock(&s->lock);
		evs = json_array();
		ret = evs ? sched_poll(s, evs, err, sizeof(err)) : -1;
		if (!evs)
			snprintf(err, sizeof(err), "scheduler: out of memory");
		sched_queue(s, evs);
		json_decref(evs);
		pthread_mutex_lock(&s->lock);
		s->counts.polls++;
		if (ret) {
			s->counts.failed++;
			memcpy(s->counts.last_error, err, sizeof(err));
		}
	}
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

/* environ with SLURM_CONF=conf in place of any it has. */
static char **sched_env(const char *var)
{
	size_t n = 0, i, k = 0;
	char **env;

	while (environ[n])
		n++;
	env = calloc(n + 2, sizeof(*env));
	if (!env)
		return NULL;
	for (i = 0; i < n; i++)
		if (strncmp(environ[i], "SLURM_CONF=", 11))
			env[k++] = environ[i];
	env[k++] = (char *)var;
	env[k] = NULL;
	return env;
}

int sched_run_tool(const struct sc_scheduler *cfg, const char *conf, const char *tool,
		   const char *const *pre, const json_t *args, char *out, size_t outlen, char *err,
		   size_t errlen)
{
	char path[sizeof(cfg->scontrol) + 16], var[600], **env = NULL;
	const char *argv[48];
	const char *slash = strrchr(cfg->scontrol, '/');
	size_t n = 0, i;
	int ret;

	snprintf(path, sizeof(path), "%.*s%s", slash ? (int)(slash - cfg->scontrol + 1) : 0,
		 cfg->scontrol, tool);
	argv[n++] = path;
	for (i = 0; pre && pre[i] && n < 40; i++)
		argv[n++] = pre[i];
	for (i = 0; i < json_array_size(args) && n < 47; i++)
		argv[n++] = json_string_value(json_array_get(args, i));
	argv[n] = NULL;
	if (conf && conf[0]) {
		snprintf(var, sizeof(var), "SLURM_CONF=%s", conf);
		if (!(env = sched_env(var)))
			return -ENOMEM;
	}
	ret = rc_run((char *const *)argv, env, SCHED_RUN_MS, out, outlen);
	free(env);
	if (ret == -ENOENT)
		snprintf(err, errlen, "scheduler: %s: no such program; install Slurm's client",
			 path);
	else if (ret < 0)
		snprintf(err, errlen, "scheduler: %s: %s", path, strerror(-ret));
	else if (ret)
		snprintf(err, errlen,
			 "scheduler: %s: exit %d (its message is in the coordinator's output)",
			 path, ret);
	return ret;
}

static void sched_free(struct sched *s)
{
	json_decref(s->queue);
	json_decref(s->names);
	json_decref(s->state);
	free(s->envp);
	free(s->buf);
	pthread_mutex_destroy(&s->lock);
	pthread_cond_destroy(&s->wake);
	free(s);
}

int sched_start(const struct sc_scheduler *cfg, const char *conf, const struct scenario *sc,
		struct sched **out, char *err, size_t errlen)
{
	struct sched *s = calloc(1, sizeof(*s));
	pthread_condattr_t ca;
	size_t n = 0;
	unsigned int i;
	json_t *evs;
	int ret;

	*out = NULL;
	if (!s)
		return -ENOMEM;
	pthread_mutex_init(&s->lock, NULL);
	/* the poll timer runs on CLOCK_MONOTONIC, like the drill's clock */
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&s->wake, &ca);
	pthread_condattr_destroy(&ca);
	s->queue = json_array();
	s->names = json_object();
	s->state = json_object();
	s->buf = malloc(SCHED_MAX_ANSWER);
	s->every_ms = cfg->every_ms ?: 1000;
	snprintf(s->job, sizeof(s->job), "%s", cfg->job);
	if (!s->queue || !s->names || !s->state || !s->buf) {
		sched_free(s);
		return -ENOMEM;
	}
	for (i = 0; i < sc->nr_nodes; i++) {
		const char *name = sc->nodes[i].name;
		const char *slurm = json_string_value(json_object_get(cfg->nodes, name)) ?: name;

		json_object_set_new(s->names, slurm, json_string(name));
		n += (size_t)snprintf(s->node_list + n,
				      n < sizeof(s->node_list) ? sizeof(s->node_list) - n : 0,
				      "%s%s", i ? "," : "", slurm);
	}
	if (n >= sizeof(s->node_list)) {
		snprintf(err, errlen,
			 "scheduler: the drill's %u node names are too long for one "
			 "scontrol call",
			 sc->nr_nodes);
		sched_free(s);
		return -E2BIG;
	}
	if (conf && conf[0]) {
		snprintf(s->conf_var, sizeof(s->conf_var), "SLURM_CONF=%s", conf);
		if (!(s->envp = sched_env(s->conf_var))) {
			sched_free(s);
			return -ENOMEM;
		}
	}
	s->argv_nodes[0] = (char *)cfg->scontrol;
	s->argv_nodes[1] = (char *)"--oneliner";
	s->argv_nodes[2] = (char *)"show";
	s->argv_nodes[3] = (char *)"node";
	s->argv_nodes[4] = s->node_list;
	s->argv_jobs[0] = (char *)cfg->scontrol;
	s->argv_jobs[1] = (char *)"--oneliner";
	s->argv_jobs[2] = (char *)"show";
	s->argv_jobs[3] = (char *)"job";
	evs = json_array();
	if (!evs || sched_poll(s, evs, err, errlen)) {
		json_decref(evs);
		sched_free(s);
		return -EIO;
	}
	/* every node of the drill must be one Slurm knows */
	for (i = 0; i < sc->nr_nodes; i++) {
		const char *slurm =
		    json_string_value(json_object_get(cfg->nodes, sc->nodes[i].name))
			?: sc->nodes[i].name;

		if (!json_object_get(json_object_get(s->state, "nodes"), slurm)) {
			snprintf(err, errlen,
				 "scheduler: Slurm has no node %s (the drill's node %s); map the "
				 "drill's names to Slurm's in scheduler.slurm.nodes",
				 slurm, sc->nodes[i].name);
			json_decref(evs);
			sched_free(s);
			return -ENOENT;
		}
	}
	sched_queue(s, evs);
	json_decref(evs);
	ret = pthread_create(&s->thread, NULL, sched_thread, s);
	if (ret) {
		snprintf(err, errlen, "scheduler: no thread: %s", strerror(ret));
		sched_free(s);
		return -ret;
	}
	s->thread_started = true;
	*out = s;
	return 0;
}

unsigned int sched_drain(struct sched *s, json_t *events, uint64_t t0_ns)
{
	unsigned int n = 0;
	size_t i;
	json_t *e;

	if (!s)
		return 0;
	pthread_mutex_lock(&s->lock);
	json_array_foreach(s->queue, i, e) {
		double t = (double)json_integer_value(json_object_get(e, "t_ns"));
		double a = (double)json_integer_value(json_object_get(e, "after_ns"));

		json_object_set_new(e, "t_ms", json_real((t - (double)t0_ns) / 1e6));
		json_object_set_new(e, "after_ms", json_real((a - (double)t0_ns) / 1e6));
		json_object_del(e, "t_ns");
		json_object_del(e, "after_ns");
		json_array_append(events, e);
		n++;
	}
	json_array_clear(s->queue);
	pthread_mutex_unlock(&s->lock);
	return n;
}

void sched_counts(struct sched *s, struct sched_counts *n)
{
	pthread_mutex_lock(&s->lock);
	*n = s->counts;
	pthread_mutex_unlock(&s->lock);
}

void sched_stop(struct sched *s)
{
	if (!s)
		return;
	if (s->thread_started) {
		pthread_mutex_lock(&s->lock);
		s->stop = true;
		pthread_cond_signal(&s->wake);
		pthread_mutex_unlock(&s->lock);
		pthread_join(s->thread, NULL);
	}
	sched_free(s);
}
