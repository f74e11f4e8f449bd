// SPDX-License-Identifier: MIT
/*
 * Workloads: rdmachaos-stream children started and stopped on request. Each
 * child's stdout is a non-blocking pipe polled in the loop and cut into
 * lines; a JSON line becomes a `workload` event, anything else an `agent`
 * warning. Its exit is seen through a pidfd in the loop and reported as a
 * `workload` event of type `exit`. workload_stop sends SIGINT and answers
 * once the child has exited (SIGKILL after timeout_ms), with the exit status
 * and the last `summary` line.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "agents/agent.h"
#include "common/units.h"

#define AGENT_WL_LINE_MAX 65536
#define AGENT_WL_STREAM "rdmachaos-stream"
#define AGENT_WL_ORPHAN_GRACE_MS 5000ULL

struct agent_wl {
	struct agent_list node; /* on a->workloads until answered for, or replaced */
	struct agent *a;
	char id[64];
	char role[16];
	pid_t pid;
	int pidfd;
	int out_fd;
	struct agent_poll out_poll, pid_poll;
	char *line;
	size_t len;
	bool overlong; /* dropping the rest of a line that did not fit */
	bool eof;
	json_t *summary;
	bool exited;
	int status;
	bool killed;
	struct agent_timer kill_timer;
	struct agent_client *stop_cl; /* a workload_stop waiting for the exit */
	json_int_t stop_id;
	bool stopping;
	uint64_t owner; /* the connection whose close stops it (stop_on_close), or 0 */
	int refs;	/* listed + each poll not yet idle */
};

static void agent_wl_put(struct agent_wl *w)
{
	if (--w->refs > 0)
		return;
	if (w->out_fd >= 0)
		close(w->out_fd);
	if (w->pidfd >= 0)
		close(w->pidfd);
	json_decref(w->summary);
	free(w->line);
	free(w);
}

static void agent_wl_out_idle(struct agent_poll *p)
{
	agent_wl_put(agent_container_of(p, struct agent_wl, out_poll));
}

static void agent_wl_pid_idle(struct agent_poll *p)
{
	agent_wl_put(agent_container_of(p, struct agent_wl, pid_poll));
}

/* Forgets w: off the list, polls stopped; memory goes when the ring lets go. */
static void agent_wl_remove(struct agent_wl *w)
{
	agent_timer_cancel(&w->kill_timer);
	agent_list_del(&w->node);
	agent_poll_stop(&w->out_poll);
	agent_poll_stop(&w->pid_poll);
	if (w->stop_cl) {
		agent_client_put(w->stop_cl);
		w->stop_cl = NULL;
	}
	agent_wl_put(w);
}

static struct agent_wl *agent_wl_find(struct agent *a, const char *id)
{
	struct agent_list *pos, *tmp;

	agent_list_for_each_safe(pos, tmp, &a->workloads)
	{
		struct agent_wl *w = agent_list_entry(pos, struct agent_wl, node);

		if (!strcmp(w->id, id))
			return w;
	}
	return NULL;
}

static void agent_wl_line(struct agent_wl *w, const char *line)
{
	json_t *msg, *fields, *ts;
	uint64_t ts_ns;

	if (!line[0])
		return;
	msg = json_loads(line, JSON_REJECT_DUPLICATES, NULL);
	if (!json_is_object(msg)) {
		json_decref(msg);
		agent_notice(w->a, RC_LOG_WARN,
			     "workload %s: stdout line is not a JSON object: %.200s", w->id, line);
		return;
	}
	ts = json_object_get(msg, "ts_ns");
	ts_ns = json_is_integer(ts) && json_integer_value(ts) > 0 ? (uint64_t)json_integer_value(ts)
								  : rc_now_ns();
	if (!strcmp(json_string_value(json_object_get(msg, "type")) ?: "", "summary")) {
		json_decref(w->summary);
		w->summary = json_incref(msg);
	}
	fields = json_pack("{s:s, s:s}", "wl_id", w->id, "role", w->role);
	if (fields)
		json_object_update_missing(fields, msg);
	json_decref(msg);
	agent_emit_at(w->a, "workload", ts_ns, fields);
}

/* Reads what the pipe holds and hands out complete lines; true at end of file. */
static bool agent_wl_read(struct agent_wl *w)
{
	char buf[8192];

	for (;;) {
		ssize_t n = read(w->out_fd, buf, sizeof(buf));
		ssize_t i;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno != EAGAIN && errno != EWOULDBLOCK;
		if (n == 0) {
			w->line[w->len] = '\0';
			if (!w->overlong)
				agent_wl_line(w, w->line); /* a last line without its newline */
			w->len = 0;
			return true;
		}
		for (i = 0; i < n; i++) {
			if (buf[i] == '\n') {
				w->line[w->len] = '\0';
				if (!w->overlong)
					agent_wl_line(w, w->line);
				w->len = 0;
				w->overlong = false;
			} else if (w->len < AGENT_WL_LINE_MAX - 1) {
				w->line[w->len++] = buf[i];
			} else if (!w->overlong) {
				w->overlong = true;
				agent_notice(
				    w->a, RC_LOG_WARN,
				    "workload %s: stdout line longer than %d bytes dropped", w->id,
				    AGENT_WL_LINE_MAX - 1);
			}
		}
	}
}

static void agent_wl_out_ready(struct agent_poll *p, int res)
{
	struct agent_wl *w = agent_container_of(p, struct agent_wl, out_poll);

	if (!w->eof && agent_wl_read(w)) {
		w->eof = true;
		agent_poll_stop(&w->out_poll);
	}
}

static json_t *agent_wl_result(const struct agent_wl *w)
{
	json_t *r =
	    json_pack("{s:s, s:i, s:b, s:O}", "wl_id", w->id, "exit_status",
		      WIFEXITED(w->status) ? WEXITSTATUS(w->status) : 128 + WTERMSIG(w->status),
		      "killed", w->killed, "summary", w->summary ? w->summary : json_null());

	if (r && WIFSIGNALED(w->status))
		json_object_set_new(r, "signal", json_integer(WTERMSIG(w->status)));
	return r;
}

static void agent_wl_exited(struct agent_wl *w, int status)
{
	json_t *ev;

	w->exited = true;
	w->status = status;
	agent_timer_cancel(&w->kill_timer);
	/* Everything the child wrote is in the pipe now: take it before answering. */
	if (!w->eof && agent_wl_read(w)) {
		w->eof = true;
		agent_poll_stop(&w->out_poll);
	}
	ev = agent_wl_result(w);
	json_object_del(ev, "summary");
	json_object_set_new(ev, "type", json_string("exit"));
	json_object_set_new(ev, "role", json_string(w->role));
	json_object_set_new(ev, "pid", json_integer(w->pid));
	rc_info("workload %s: pid %d exited with status %lld%s", w->id, (int)w->pid,
		json_integer_value(json_object_get(ev, "exit_status")),
		w->killed ? " (killed)" : "");
	agent_emit(w->a, "workload", ev);
	if (w->stopping) {
		agent_client_respond(w->stop_cl,
				     agent_response_deferred(
					 w->a, w->stop_cl, "workload_stop", w->stop_id,
					 json_pack("{s:s}", "wl_id", w->id), agent_wl_result(w)));
		agent_wl_remove(w);
	}
}

static void agent_wl_pid_ready(struct agent_poll *p, int res)
{
	struct agent_wl *w = agent_container_of(p, struct agent_wl, pid_poll);
	int status;
	pid_t r;

	r = waitpid(w->pid, &status, WNOHANG);
	if (r == w->pid)
		agent_wl_exited(w, status);
	else if (r == 0)
		agent_poll_arm(&w->pid_poll); /* spurious: wait again */
	else
		rc_err("workload %s: waitpid %d: %s", w->id, (int)w->pid, strerror(errno));
}

static void agent_wl_kill(struct agent_timer *t)
{
	struct agent_wl *w = agent_container_of(t, struct agent_wl, kill_timer);

	if (w->exited)
		return;
	agent_notice(w->a, RC_LOG_WARN, "workload %s: pid %d ignored SIGINT: SIGKILL", w->id,
		     (int)w->pid);
	w->killed = true;
	kill(w->pid, SIGKILL);
}

/* In the child, between fork and exec: only async-signal-safe calls. */
static void agent_wl_child(int out_fd, pid_t parent, const char *path, char **argv)
{
	sigset_t all;
	int null_fd;

	prctl(PR_SET_PDEATHSIG, SIGKILL); /* the workload never outlives the agent */
	if (getppid() != parent)
		_exit(127);
	sigemptyset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	signal(SIGPIPE, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	if (dup2(out_fd, STDOUT_FILENO) < 0)
		_exit(127);
	null_fd = open("/dev/null", O_RDONLY);
	if (null_fd >= 0)
		dup2(null_fd, STDIN_FILENO);
	close_range(3, ~0U, 0);
	execv(path, argv);
	_exit(127);
}

static int agent_wl_spawn(struct agent_wl *w, const char *path, const json_t *args, char *err,
			  size_t errlen)
{
	size_t i, n = json_array_size(args);
	pid_t parent = getpid();
	char **argv;
	int pipefd[2];
	int ret = 0;

	argv = calloc(n + 3, sizeof(*argv));
	if (!argv)
		return -ENOMEM;
	argv[0] = (char *)AGENT_WL_STREAM;
	argv[1] = w->role;
	for (i = 0; i < n; i++)
		argv[i + 2] = (char *)json_string_value(json_array_get(args, i));
	if (pipe2(pipefd, O_CLOEXEC)) {
		ret = -errno;
		snprintf(err, errlen, "workload_start: %s: pipe: %s", w->id, strerror(errno));
		goto out;
	}
	w->pid = fork();
	if (w->pid < 0) {
		ret = -errno;
		snprintf(err, errlen, "workload_start: %s: fork: %s", w->id, strerror(errno));
		close(pipefd[0]);
		close(pipefd[1]);
		goto out;
	}
	if (!w->pid)
		agent_wl_child(pipefd[1], parent, path, argv);
	close(pipefd[1]);
	w->out_fd = pipefd[0];
	fcntl(w->out_fd, F_SETFL, fcntl(w->out_fd, F_GETFL) | O_NONBLOCK);
	w->pidfd = (int)syscall(SYS_pidfd_open, w->pid, 0);
	if (w->pidfd < 0) {
		ret = -errno;
		snprintf(err, errlen, "workload_start: %s: pidfd_open: %s", w->id, strerror(errno));
		kill(w->pid, SIGKILL);
		waitpid(w->pid, NULL, 0);
	}
out:
	free(argv);
	return ret;
}

int agent_op_workload_start(struct agent *a, struct agent_client *cl, json_int_t id,
			    const json_t *req, json_t **result, char *err, size_t errlen)
{
	const char *wl_id = json_string_value(json_object_get(req, "wl_id"));
	const char *role = json_string_value(json_object_get(req, "role"));
	const json_t *args = json_object_get(req, "args");
	struct agent_wl *w, *old;
	char path[4200];
	int ret;

	if (strcmp(role, "server") && strcmp(role, "client")) {
		snprintf(err, errlen,
			 "workload_start: role: \"%s\": must be \"server\" or \"client\"", role);
		return -EINVAL;
	}
	old = agent_wl_find(a, wl_id);
	if (old && !old->exited) {
		snprintf(err, errlen,
			 "workload_start: %s: already running as pid %d (stop it first)", wl_id,
			 (int)old->pid);
		return -EEXIST;
	}
	snprintf(path, sizeof(path), "%s/%s", a->exe_dir, AGENT_WL_STREAM);
	if (access(path, X_OK)) {
		ret = -errno;
		snprintf(err, errlen, "workload_start: %s: %s (build it: make build/%s)", path,
			 strerror(errno), AGENT_WL_STREAM);
		return ret;
	}
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->line = malloc(AGENT_WL_LINE_MAX);
	if (!w->line) {
		free(w);
		return -ENOMEM;
	}
	w->a = a;
	w->out_fd = -1;
	w->pidfd = -1;
	w->refs = 1;
	snprintf(w->id, sizeof(w->id), "%s", wl_id);
	snprintf(w->role, sizeof(w->role), "%s", role);
	if (cl && json_is_true(json_object_get(req, "stop_on_close")))
		w->owner = cl->serial;
	agent_list_init(&w->node);
	w->kill_timer.fire = agent_wl_kill;
	ret = agent_wl_spawn(w, path, args, err, errlen);
	if (ret) {
		agent_wl_put(w);
		return ret;
	}
	if (old)
		agent_wl_remove(old);
	agent_list_add_tail(&w->node, &a->workloads);
	w->refs += 2;
	agent_poll_init(&w->out_poll, &a->loop, w->out_fd, POLLIN, false, agent_wl_out_ready,
			agent_wl_out_idle);
	agent_poll_init(&w->pid_poll, &a->loop, w->pidfd, POLLIN, true, agent_wl_pid_ready,
			agent_wl_pid_idle);
	agent_poll_arm(&w->out_poll);
	agent_poll_arm(&w->pid_poll);
	rc_info("workload %s: started %s %s as pid %d", w->id, path, role, (int)w->pid);
	*result = json_pack("{s:s, s:i}", "wl_id", w->id, "pid", (int)w->pid);
	return *result ? 0 : -ENOMEM;
}

int agent_op_workload_stop(struct agent *a, struct agent_client *cl, json_int_t id,
			   const json_t *req, json_t **result, char *err, size_t errlen)
{
	const char *wl_id = json_string_value(json_object_get(req, "wl_id"));
	const json_t *to = json_object_get(req, "timeout_ms");
	uint64_t timeout_ms = to ? (uint64_t)json_integer_value(to) : 5000;
	struct agent_wl *w = agent_wl_find(a, wl_id);

	if (!w) {
		snprintf(err, errlen, "workload_stop: %s: no such workload on this node", wl_id);
		return -ENOENT;
	}
	if (w->exited) {
		*result = agent_wl_result(w);
		agent_wl_remove(w);
		return *result ? 0 : -ENOMEM;
	}
	if (w->stopping) {
		snprintf(err, errlen, "workload_stop: %s: a stop is already in progress", wl_id);
		return -EALREADY;
	}
	w->stopping = true;
	w->stop_id = id;
	w->stop_cl = cl;
	if (cl)
		agent_client_get(cl);
	kill(w->pid, SIGINT);
	agent_timer_set(&a->loop, &w->kill_timer, rc_now_ns() + timeout_ms * RC_NSEC_PER_MSEC);
	rc_info("workload %s: SIGINT to pid %d, SIGKILL in %llu ms", w->id, (int)w->pid,
		(unsigned long long)timeout_ms);
	return AGENT_DEFERRED;
}

/*
 * A coordinator that dies mid-drill must not leave RDMA traffic running: the
 * workloads its connection started with stop_on_close get what workload_stop
 * would send them (SIGINT, SIGKILL after 5 s), and nobody waits for the answer.
 */
void agent_workloads_orphaned(struct agent *a, uint64_t serial)
{
	struct agent_list *pos, *tmp;

	agent_list_for_each_safe(pos, tmp, &a->workloads)
	{
		struct agent_wl *w = agent_list_entry(pos, struct agent_wl, node);

		if (!serial || w->owner != serial || w->exited || w->stopping)
			continue;
		agent_notice(a, RC_LOG_WARN,
			     "workload %s: the connection that started it closed: stopping pid %d",
			     w->id, (int)w->pid);
		w->stopping = true;
		kill(w->pid, SIGINT);
		agent_timer_set(&a->loop, &w->kill_timer,
				rc_now_ns() + AGENT_WL_ORPHAN_GRACE_MS * RC_NSEC_PER_MSEC);
	}
}

static bool agent_wl_reap(struct agent_wl *w)
{
	int status;

	if (w->exited)
		return true;
	if (waitpid(w->pid, &status, WNOHANG) != w->pid)
		return false;
	agent_wl_exited(w, status);
	return true;
}

void agent_workloads_shutdown(struct agent *a, unsigned int grace_ms)
{
	struct agent_list *pos, *tmp;
	uint64_t deadline = rc_now_ns() + grace_ms * RC_NSEC_PER_MSEC;
	bool all;

	agent_list_for_each_safe(pos, tmp, &a->workloads)
	{
		struct agent_wl *w = agent_list_entry(pos, struct agent_wl, node);

		if (!w->exited)
			kill(w->pid, SIGINT);
	}
	/* The loop has stopped: wait here, briefly, in small steps. */
	do {
		struct timespec ts = {0, 20 * 1000 * 1000};

		all = true;
		agent_list_for_each_safe(pos, tmp, &a->workloads) all &=
		    agent_wl_reap(agent_list_entry(pos, struct agent_wl, node));
		if (!all)
			nanosleep(&ts, NULL);
	} while (!all && rc_now_ns() < deadline);
	agent_list_for_each_safe(pos, tmp, &a->workloads)
	{
		struct agent_wl *w = agent_list_entry(pos, struct agent_wl, node);
		int status;

		if (!w->exited) {
			rc_warn("workload %s: pid %d still running after %u ms: SIGKILL", w->id,
				(int)w->pid, grace_ms);
			w->killed = true;
			kill(w->pid, SIGKILL);
			if (waitpid(w->pid, &status, 0) == w->pid)
				agent_wl_exited(w, status);
		}
	}
	agent_list_for_each_safe(pos, tmp, &a->workloads)
	    agent_wl_remove(agent_list_entry(pos, struct agent_wl, node));
}
