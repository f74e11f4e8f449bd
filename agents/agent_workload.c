// SPDX-License-Identifier: MIT
/*
 * Workloads: rdmachaos-stream children started and stopped on request. Each
 * child's stdout is a non-blocking pipe polled in the loop and cut into
 * lines; a JSON line becomes a `workload` event, anything else an `agent`
 * warning. Its exit is seen through a pidfd in the loop and reported as a
 * `workload` event of type `exit`. workload_stop sends SIGINT and answers
 * once the child has exited (SIGKILL after timeout_ms), with the exit status
 * and the last `summary` line.
 *
 * Start options, prepared before fork (the child only makes async-signal-safe
 * calls, and reports a failure before exec through a close-on-exec pipe, so
 * workload_start answers with the cause): "shim" preloads the verbs shim
 * (LD_PRELOAD, RDMACHAOS_SHIM_SOCK=RUN_DIR/shim/WL_ID.sock); "cgroup" puts
 * the child in CGROUP_ROOT/WL_ID (agents/agent_cgroup.h) before exec, and
 * the folder is removed once the child is reaped; "cpu_max_pct" does too, and
 * caps that folder at that share of one CPU (cpu.max); "no_ipc_lock" drops
 * CAP_IPC_LOCK from every capability set, so RLIMIT_MEMLOCK binds a root
 * workload (mr_failure's memlock mechanism).
 *
 * For the metrics, the `error` (per wc_status) and `mr_error` events of each
 * wl_id are counted for the agent's life (agent_workload_counts), past the
 * workload's own record.
 *
 * A job (a request with "job": a user's program, agents/agent_job.h) differs
 * in five ways: its program is argv[0] of the request, allowed by the policy
 * (--allow-job, by identity); it gets its own session, so that stopping it
 * signals its whole process group, and whatever of the group (or, with
 * "cgroup", of its cgroup) outlives the leader is SIGKILLed when the leader
 * exits: a job leaves nothing behind; its stdout and stderr are text, each
 * line handed to agent_job_line (rules, bounded `line` events); it has a time
 * limit after which it is stopped like an orphan; and its exit event carries
 * the counts of its lines.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "agents/agent.h"
#include "agents/agent_cgroup.h"
#include "agents/agent_job.h"
#include "agents/agent_rdmapath.h"
#include "agents/agent_metrics.h"
#include "common/shim_proto.h"
#include "common/units.h"

extern char **environ;

#define AGENT_WL_LINE_MAX 65536
#define AGENT_WL_EXEC_WAIT_MS 5000 /* fork to exec, in the loop (agent_wl_exec_ready) */
/* Bytes of a workload's output read per turn of the loop, and at its exit (a pipe holds 64 KiB) */
#define AGENT_WL_READ_BUDGET (64 * 1024)
#define AGENT_WL_EXIT_BUDGET (1024 * 1024)
#define AGENT_WL_STREAM "rdmachaos-stream"
#define AGENT_WL_ORPHAN_GRACE_MS 5000ULL

struct agent_wl_counts {
	struct agent_wl_count *c;
	size_t n, cap;
	bool full; /* AGENT_WL_COUNTS_MAX reached (logged once) */
};

struct agent_wl;

/* One of a workload's output pipes, read in the loop and cut into lines. */
struct agent_wl_pipe {
	struct agent_wl *w;
	const char *stream; /* "stdout" or "stderr" */
	int fd;		    /* -1: none (a stream's stderr goes to the agent's log) */
	struct agent_poll poll;
	char *line;
	size_t len;
	bool overlong; /* dropping the rest of a line that did not fit */
	bool eof;
	struct agent_timer more; /* the rest of what it holds, after whatever else is ready */
};

struct agent_wl {
	struct agent_list node; /* on a->workloads until answered for, or replaced */
	struct agent *a;
	char id[64];
	char role[16];
	pid_t pid;
	int pidfd;
	struct agent_wl_pipe out, err;
	struct agent_poll pid_poll;
	json_t *summary;
	bool exited;
	int status;
	bool killed;
	struct agent_timer kill_timer;
	struct agent_job *job;		/* NULL for rdmachaos-stream */
	struct agent_timer limit_timer; /* a job's time limit */
	bool timed_out;			/* stopped at its time limit */
	struct agent_later stop; /* a workload_stop waiting for the exit, while stop.fn is set */
	bool stopping;
	uint64_t owner;	     /* the connection whose close stops it (stop_on_close), or 0 */
	int refs;	     /* listed + each poll not yet idle */
	char cgroup[256];    /* its cgroup folder until removed after the reap, else "" */
	char shim_sock[108]; /* its shim's control socket, "" without the shim */
	bool no_ipc_lock;    /* started without CAP_IPC_LOCK */
};

/* What the child does between fork and exec; all of it prepared before fork. */
struct agent_wl_exec {
	const char *path;
	char **argv;
	char **envp;
	char **env_base; /* what envp is made of (agent_wl_env), freed with it */
	const char *cwd; /* NULL: the agent's */
	bool session;	 /* a session (and process group) of its own */
	int out_fd;	 /* its stdout */
	int err_fd2;	 /* its stderr; -1: the agent's */
	int cg_fd;	 /* the cgroup's cgroup.procs, open for writing; -1: none */
	int err_fd;	 /* close-on-exec: an agent_wl_fail written here if exec is not reached */
	bool no_ipc_lock;
};

/* The child's report of the step that failed before exec. */
enum agent_wl_step {
	AGENT_WL_STEP_CGROUP = 1,
	AGENT_WL_STEP_CAPS,
	AGENT_WL_STEP_CWD,
	AGENT_WL_STEP_EXEC,
};

struct agent_wl_fail {
	int step;
	int err;
};

static void agent_wl_put(struct agent_wl *w)
{
	if (--w->refs > 0)
		return;
	agent_timer_cancel(&w->out.more); /* a drain may have set one since agent_wl_remove() */
	agent_timer_cancel(&w->err.more);
	if (w->out.fd >= 0)
		close(w->out.fd);
	if (w->err.fd >= 0)
		close(w->err.fd);
	if (w->pidfd >= 0)
		close(w->pidfd);
	json_decref(w->summary);
	if (w->job) {
		agent_job_free(w->job);
		free(w->job);
	}
	free(w->out.line);
	free(w->err.line);
	free(w);
}

static void agent_wl_out_idle(struct agent_poll *p)
{
	agent_wl_put(agent_container_of(p, struct agent_wl_pipe, poll)->w);
}

static void agent_wl_pid_idle(struct agent_poll *p)
{
	agent_wl_put(agent_container_of(p, struct agent_wl, pid_poll));
}

/* Forgets w: off the list, polls stopped; memory goes when the ring lets go. */
static void agent_wl_remove(struct agent_wl *w)
{
	agent_timer_cancel(&w->kill_timer);
	agent_timer_cancel(&w->limit_timer);
	agent_timer_cancel(&w->out.more);
	agent_timer_cancel(&w->err.more);
	agent_list_del(&w->node);
	agent_poll_stop(&w->out.poll);
	if (w->err.fd >= 0)
		agent_poll_stop(&w->err.poll);
	agent_poll_stop(&w->pid_poll);
	if (w->stop.fn) {
		w->stop.fn(&w->stop, NULL, NULL); /* the exit was never seen: nobody is answered */
		w->stop.fn = NULL;
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

/* The count of (wl_id, kind, wc_status), added at 0 if new; NULL when full or out of memory. */
static struct agent_wl_count *agent_wl_count(struct agent *a, const char *wl_id,
					     enum agent_wl_count_kind kind, const char *wc_status)
{
	struct agent_wl_counts *cs = a->wl_counts;
	struct agent_wl_count *c;
	size_t i;

	if (!cs) {
		cs = calloc(1, sizeof(*cs));
		if (!cs)
			return NULL;
		a->wl_counts = cs;
	}
	for (i = 0; i < cs->n; i++) {
		c = &cs->c[i];
		if (c->kind == kind && !strcmp(c->wl_id, wl_id) &&
		    !strncmp(c->wc_status, wc_status, sizeof(c->wc_status) - 1))
			return c;
	}
	if (cs->n == AGENT_WL_COUNTS_MAX) {
		if (!cs->full)
			agent_notice(a, RC_LOG_WARN,
				     "workload %s: %d workload error counters kept already: the "
				     "metrics do not count its %s events",
				     wl_id, AGENT_WL_COUNTS_MAX,
				     kind == AGENT_WL_MR_ERROR ? "mr_error" : "error");
		cs->full = true;
		return NULL;
	}
	if (cs->n == cs->cap) {
		size_t cap = cs->cap ? 2 * cs->cap : 16;

		c = realloc(cs->c, cap * sizeof(*c));
		if (!c)
			return NULL;
		cs->c = c;
		cs->cap = cap;
	}
	c = &cs->c[cs->n++];
	memset(c, 0, sizeof(*c));
	snprintf(c->wl_id, sizeof(c->wl_id), "%s", wl_id);
	c->kind = kind;
	snprintf(c->wc_status, sizeof(c->wc_status), "%s", wc_status);
	return c;
}

/* Counts the events the metrics report: `error` by wc_status, `mr_error`. */
static void agent_wl_count_event(struct agent_wl *w, const json_t *msg)
{
	const char *type = json_string_value(json_object_get(msg, "type"));
	const char *st = json_string_value(json_object_get(msg, "wc_status"));
	struct agent_wl_count *c = NULL;

	if (!type)
		return;
	if (!strcmp(type, "error"))
		c = agent_wl_count(w->a, w->id, AGENT_WL_QP_ERROR, st && *st ? st : "unknown");
	else if (!strcmp(type, "mr_error"))
		c = agent_wl_count(w->a, w->id, AGENT_WL_MR_ERROR, "");
	if (c)
		c->n++;
}

int agent_workload_counts(struct agent *a, struct agent_wl_count **out, size_t *n)
{
	const struct agent_wl_counts *cs = a->wl_counts;

	*out = NULL;
	*n = 0;
	if (!cs || !cs->n)
		return 0;
	*out = malloc(cs->n * sizeof(**out));
	if (!*out)
		return -ENOMEM;
	memcpy(*out, cs->c, cs->n * sizeof(**out));
	*n = cs->n;
	return 0;
}

/* At exit, with the workloads: nothing counts or reads them after. */
static void agent_workload_counts_free(struct agent *a)
{
	if (!a->wl_counts)
		return;
	free(a->wl_counts->c);
	free(a->wl_counts);
	a->wl_counts = NULL;
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
	agent_wl_count_event(w, msg);
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

static void agent_wl_job_emit(void *arg, uint64_t ts_ns, json_t *fields)
{
	struct agent_wl *w = arg;

	json_object_set_new(fields, "wl_id", json_string(w->id));
	json_object_set_new(fields, "role", json_string(w->role));
	agent_emit_at(w->a, "workload", ts_ns, fields);
}

static void agent_wl_pipe_line(struct agent_wl_pipe *p, const char *line)
{
	if (p->w->job)
		agent_job_line(p->w->job, p->stream, line, rc_now_ns(), agent_wl_job_emit, p->w);
	else
		agent_wl_line(p->w, line);
}

enum agent_wl_read_end { AGENT_WL_EMPTY, AGENT_WL_EOF, AGENT_WL_MORE };

/*
 * Reads what the pipe holds, up to budget bytes (and a line per 64 of them, read by the 8 KiB),
 * and hands out complete lines. A job that writes faster than its lines are parsed would
 * otherwise keep the loop here, and its time limit, the leases and every revert with it.
 */
static enum agent_wl_read_end agent_wl_read(struct agent_wl_pipe *p, size_t budget)
{
	struct agent_wl *w = p->w;
	char buf[8192];
	size_t got = 0, lines = 0;

	for (;;) {
		ssize_t n, i;

		/* lines are the cost (a job's rules run on each): one per 64 bytes of the budget */
		if (got >= budget || lines >= budget / 64)
			return AGENT_WL_MORE;
		n = read(p->fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno != EIO) /* EIO: a terminal whose every writer has closed it */
			return errno == EAGAIN || errno == EWOULDBLOCK ? AGENT_WL_EMPTY
								       : AGENT_WL_EOF;
		if (n <= 0) {
			p->line[p->len] = '\0';
			if (!p->overlong)
				agent_wl_pipe_line(p,
						   p->line); /* a last line without its newline */
			p->len = 0;
			return AGENT_WL_EOF;
		}
		got += (size_t)n;
		for (i = 0; i < n; i++) {
			if (buf[i] == '\n') {
				lines++;
				p->line[p->len] = '\0';
				if (!p->overlong)
					agent_wl_pipe_line(p, p->line);
				p->len = 0;
				p->overlong = false;
			} else if (p->len < AGENT_WL_LINE_MAX - 1) {
				p->line[p->len++] = buf[i];
			} else if (!p->overlong) {
				p->overlong = true;
				if (w->job) /* a job's output is its own: counted, not logged */
					w->job->lines_dropped++;
				else
					agent_notice(w->a, RC_LOG_WARN,
						     "workload %s: %s line longer than %d bytes "
						     "dropped",
						     w->id, p->stream, AGENT_WL_LINE_MAX - 1);
			}
		}
	}
}

/*
 * Up to budget bytes of what the pipe holds; the rest on a timer at the next turn (the poll
 * fires again only when more is written); no more polling once at its end.
 */
static void agent_wl_drain(struct agent_wl_pipe *p, size_t budget)
{
	if (p->fd < 0 || p->eof)
		return;
	switch (agent_wl_read(p, budget)) {
	case AGENT_WL_EOF:
		p->eof = true;
		agent_timer_cancel(&p->more);
		agent_poll_stop(&p->poll);
		break;
	case AGENT_WL_MORE:
		agent_timer_set(&p->w->a->loop, &p->more, rc_now_ns());
		break;
	case AGENT_WL_EMPTY:
		agent_timer_cancel(&p->more);
		break;
	}
}

static void agent_wl_out_ready(struct agent_poll *poll, int res)
{
	agent_wl_drain(agent_container_of(poll, struct agent_wl_pipe, poll), AGENT_WL_READ_BUDGET);
}

static void agent_wl_out_more(struct agent_timer *t)
{
	agent_wl_drain(agent_container_of(t, struct agent_wl_pipe, more), AGENT_WL_READ_BUDGET);
}

/*
 * Sends sig to the workload: to a job's whole process group (its session, led by w->pid), and
 * with SIGKILL to all of its cgroup too; to a stream's pid alone.
 */
static void agent_wl_signal(struct agent_wl *w, int sig)
{
	char err[512];

	if (!w->job) {
		if (!w->exited)
			kill(w->pid, sig);
		return;
	}
	kill(-w->pid, sig); /* ESRCH: the whole group is gone */
	if (sig == SIGKILL && w->cgroup[0] && agent_cgroup_kill(w->cgroup, err, sizeof(err)) &&
	    errno != ENOENT)
		agent_notice(w->a, RC_LOG_WARN, "workload %s: %s", w->id, err);
}

static json_t *agent_wl_result(const struct agent_wl *w)
{
	json_t *r =
	    json_pack("{s:s, s:i, s:b, s:O}", "wl_id", w->id, "exit_status",
		      WIFEXITED(w->status) ? WEXITSTATUS(w->status) : 128 + WTERMSIG(w->status),
		      "killed", w->killed, "summary", w->summary ? w->summary : json_null());

	if (r && WIFSIGNALED(w->status))
		json_object_set_new(r, "signal", json_integer(WTERMSIG(w->status)));
	if (r && w->job) {
		json_object_set_new(r, "output", agent_job_stats(w->job));
		if (w->timed_out)
			json_object_set_new(r, "time_limit", json_true());
	}
	return r;
}

static void agent_wl_release(struct agent_wl *w);

static void agent_wl_exited(struct agent_wl *w, int status)
{
	json_t *ev;

	w->exited = true;
	w->status = status;
	agent_timer_cancel(&w->kill_timer);
	agent_timer_cancel(&w->limit_timer);
	/* A job's leader is gone: so is everything it started, before its cgroup is removed. */
	if (w->job)
		agent_wl_signal(w, SIGKILL);
	agent_wl_release(w);
	/*
	 * What the child wrote is in the pipes now (its group is killed): take it before
	 * answering, up to what the pipes hold, and the rest, if anything still writes, later.
	 */
	agent_wl_drain(&w->out, AGENT_WL_EXIT_BUDGET);
	agent_wl_drain(&w->err, AGENT_WL_EXIT_BUDGET);
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
		struct agent_later stop = w->stop;

		/* stop.fn is unset when nobody asked: the connection that started it closed */
		w->stop.fn = NULL;
		if (stop.fn)
			stop.fn(&stop, json_pack("{s:s}", "wl_id", w->id), agent_wl_result(w));
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
	agent_wl_signal(w, SIGKILL);
}

/* A job's time limit: stopped as an orphan is, and said so in its exit. */
static void agent_wl_limit(struct agent_timer *t)
{
	struct agent_wl *w = agent_container_of(t, struct agent_wl, limit_timer);

	if (w->exited || w->stopping)
		return;
	agent_notice(w->a, RC_LOG_WARN,
		     "workload %s: job pid %d reached its time limit of %llu ms: stopping it",
		     w->id, (int)w->pid, (unsigned long long)w->job->time_limit_ms);
	/* Not `stopping`: its exit stays to be answered for by workload_stop. */
	w->timed_out = true;
	agent_wl_signal(w, SIGINT);
	agent_timer_set(&w->a->loop, &w->kill_timer,
			rc_now_ns() + AGENT_WL_ORPHAN_GRACE_MS * RC_NSEC_PER_MSEC);
}

/* In the child: reports the step that failed and errno, then exits. */
static void agent_wl_child_fail(int err_fd, enum agent_wl_step step, int e)
{
	struct agent_wl_fail r = {.step = step, .err = e};
	ssize_t n;

	do
		n = write(err_fd, &r, sizeof(r));
	while (n < 0 && errno == EINTR);
	_exit(127);
}

/* In the child: enters the cgroup, writing its pid to cgroup.procs. 0 or -1 with errno. */
static int agent_wl_join_cgroup(int cg_fd)
{
	char buf[16];
	unsigned int v = (unsigned int)getpid();
	size_t i = sizeof(buf);

	do
		buf[--i] = (char)('0' + v % 10);
	while ((v /= 10) && i);
	return write(cg_fd, buf + i, sizeof(buf) - i) == (ssize_t)(sizeof(buf) - i) ? 0 : -1;
}

/*
 * In the child: CAP_IPC_LOCK out of the bounding set (which is what a root
 * process's sets are rebuilt from at exec) and out of the effective,
 * permitted and inheritable sets (hence the ambient one). Raw syscalls: no
 * library, nothing that is not async-signal-safe. 0 or -1 with errno.
 */
static int agent_wl_drop_ipc_lock(void)
{
	struct __user_cap_header_struct hdr = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];
	const uint32_t bit = 1U << (CAP_IPC_LOCK % 32);
	const int word = CAP_IPC_LOCK / 32;

	if (prctl(PR_CAPBSET_DROP, CAP_IPC_LOCK, 0, 0, 0))
		return -1;
	if (syscall(SYS_capget, &hdr, d))
		return -1;
	d[word].effective &= ~bit;
	d[word].permitted &= ~bit;
	d[word].inheritable &= ~bit;
	return (int)syscall(SYS_capset, &hdr, d);
}

/* In the child, between fork and exec: only async-signal-safe calls. */
static void agent_wl_child(const struct agent_wl_exec *x, pid_t parent)
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
	if (x->session)
		setsid(); /* cannot fail: a fresh child leads no group */
	if (x->cg_fd >= 0 && agent_wl_join_cgroup(x->cg_fd))
		agent_wl_child_fail(x->err_fd, AGENT_WL_STEP_CGROUP, errno);
	if (x->no_ipc_lock && agent_wl_drop_ipc_lock())
		agent_wl_child_fail(x->err_fd, AGENT_WL_STEP_CAPS, errno);
	if (x->cwd && chdir(x->cwd))
		agent_wl_child_fail(x->err_fd, AGENT_WL_STEP_CWD, errno);
	if (dup2(x->out_fd, STDOUT_FILENO) < 0)
		_exit(127);
	if (x->err_fd2 >= 0 && dup2(x->err_fd2, STDERR_FILENO) < 0)
		_exit(127);
	null_fd = open("/dev/null", O_RDONLY);
	if (null_fd >= 0)
		dup2(null_fd, STDIN_FILENO);
	/* Everything but the report pipe, which exec closes (O_CLOEXEC). */
	if (x->err_fd > 3)
		close_range(3, (unsigned int)x->err_fd - 1, 0);
	close_range((unsigned int)x->err_fd + 1, ~0U, 0);
	execve(x->path, x->argv, x->envp);
	agent_wl_child_fail(x->err_fd, AGENT_WL_STEP_EXEC, errno);
}

/*
 * The loop waits here, so not for long: a chdir or an exec on a file system that does not
 * answer (a hard NFS mount that is down, a user's FUSE) would hold it, and every lease and
 * revert with it. 0 once the report pipe is readable (exec closed it, or the child wrote why it
 * failed); else the child is killed, reaped if it goes within a second, and -ETIMEDOUT.
 */
static int agent_wl_exec_ready(struct agent_wl *w, int err_fd)
{
	uint64_t deadline = rc_now_ns() + AGENT_WL_EXEC_WAIT_MS * RC_NSEC_PER_MSEC, now;
	struct pollfd pfd = {.fd = err_fd, .events = POLLIN};
	int r, i;

	for (;;) {
		now = rc_now_ns();
		r = poll(&pfd, 1,
			 now >= deadline ? 0 : (int)((deadline - now) / RC_NSEC_PER_MSEC) + 1);
		if (r > 0)
			return 0;
		if (r < 0 && errno == EINTR)
			continue;
		break;
	}
	kill(w->pid, SIGKILL);
	/* one in a killable wait goes at once; one the kernel holds is logged, not waited for */
	for (i = 0; i < 100; i++) {
		if (waitpid(w->pid, NULL, WNOHANG) == w->pid)
			return -ETIMEDOUT;
		usleep(10000);
	}
	rc_warn("workload %s: child pid %d, killed before its exec, has not exited; left unreaped",
		w->id, (int)w->pid);
	return -ETIMEDOUT;
}

/* Waits for the child to exec or to report why it could not; 0 or -errno with a sentence. */
static int agent_wl_wait_exec(struct agent_wl *w, int err_fd, char *err, size_t errlen)
{
	static const char *const what[] = {
	    [AGENT_WL_STEP_CGROUP] = "entering cgroup",
	    [AGENT_WL_STEP_CAPS] = "dropping CAP_IPC_LOCK",
	    [AGENT_WL_STEP_CWD] = "entering its cwd",
	    [AGENT_WL_STEP_EXEC] = "exec",
	};
	struct agent_wl_fail r;
	ssize_t n;
	int ret;

	ret = agent_wl_exec_ready(w, err_fd);
	if (ret) {
		snprintf(
		    err, errlen,
		    "workload_start: %s: child pid %d did not reach exec within %d ms (its cwd "
		    "or program on a file system that does not answer?); killed",
		    w->id, (int)w->pid, AGENT_WL_EXEC_WAIT_MS);
		return ret;
	}
	do
		n = read(err_fd, &r, sizeof(r));
	while (n < 0 && errno == EINTR);
	if (n == 0)
		return 0; /* closed by exec */
	if (n != (ssize_t)sizeof(r) || r.step < AGENT_WL_STEP_CGROUP || r.step > AGENT_WL_STEP_EXEC)
		r = (struct agent_wl_fail){.step = AGENT_WL_STEP_EXEC, .err = n < 0 ? errno : EIO};
	waitpid(w->pid, NULL, 0);
	snprintf(err, errlen, "workload_start: %s: child pid %d: %s%s%s: %s%s", w->id, (int)w->pid,
		 what[r.step], r.step == AGENT_WL_STEP_CGROUP ? " " : "",
		 r.step == AGENT_WL_STEP_CGROUP ? w->cgroup : "", strerror(r.err),
		 r.step == AGENT_WL_STEP_CAPS && r.err == EPERM
		     ? " (the agent needs CAP_SETPCAP to drop a capability)"
		     : "");
	return -r.err;
}

/* Closes the fds of pipes that are open (>= 0). */
static void agent_wl_close(int *fds, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (fds[i] >= 0) {
			close(fds[i]);
			fds[i] = -1;
		}
}

/*
 * A job's stdout: a pseudo-terminal (fds[0] the master, fds[1] the terminal), raw (no echo, no
 * \r added), so that its C library flushes each line as it would on a console instead of
 * holding output in a 4 KiB buffer: a job's lines are events, and their time is their meaning.
 * Returns 0, or -1 with errno.
 */
static int agent_wl_pty(int *fds)
{
	struct termios t;
	char name[64];

	fds[0] = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (fds[0] < 0)
		return -1;
	if (grantpt(fds[0]) || unlockpt(fds[0]) || ptsname_r(fds[0], name, sizeof(name)))
		return -1;
	fds[1] = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (fds[1] < 0 || tcgetattr(fds[1], &t))
		return -1;
	cfmakeraw(&t);
	return tcsetattr(fds[1], TCSANOW, &t);
}

/*
 * Forks and execs the child: a stream's argv is "rdmachaos-stream ROLE ARGS...", a job's its
 * own. On success w->pid, w->pidfd and the read ends of w's pipes (stdout; a job's stderr too)
 * are set, non-blocking.
 */
static int agent_wl_spawn(struct agent_wl *w, struct agent_wl_exec *x, const json_t *args,
			  char *err, size_t errlen)
{
	size_t i, n = json_array_size(args);
	pid_t parent = getpid();
	/* stdout, the exec report, a job's stderr: read and write end of each */
	int fds[6] = {-1, -1, -1, -1, -1, -1};
	int ret = 0;

	if (w->job) {
		x->argv = w->job->argv;
	} else {
		x->argv = calloc(n + 3, sizeof(*x->argv));
		if (!x->argv)
			return -ENOMEM;
		x->argv[0] = (char *)AGENT_WL_STREAM;
		x->argv[1] = w->role;
		for (i = 0; i < n; i++)
			x->argv[i + 2] = (char *)json_string_value(json_array_get(args, i));
	}
	for (i = 0; i < (w->job ? 3U : 2U); i++)
		if (!i && w->job ? agent_wl_pty(fds) : pipe2(fds + 2 * i, O_CLOEXEC)) {
			ret = -errno;
			snprintf(err, errlen, "workload_start: %s: pipe: %s", w->id,
				 strerror(errno));
			agent_wl_close(fds, 6);
			goto out;
		}
	x->out_fd = fds[1];
	x->err_fd = fds[3];
	x->err_fd2 = fds[5];
	w->pid = fork();
	if (w->pid < 0) {
		ret = -errno;
		snprintf(err, errlen, "workload_start: %s: fork: %s", w->id, strerror(errno));
		agent_wl_close(fds, 6);
		goto out;
	}
	if (!w->pid)
		agent_wl_child(x, parent);
	agent_wl_close(&fds[1], 1);
	agent_wl_close(&fds[3], 1);
	agent_wl_close(&fds[5], 1);
	ret = agent_wl_wait_exec(w, fds[2], err, errlen);
	agent_wl_close(&fds[2], 1);
	if (ret) {
		agent_wl_close(fds, 6);
		goto out;
	}
	w->out.fd = fds[0];
	w->err.fd = fds[4];
	for (i = 0; i < 2; i++) {
		int fd = i ? w->err.fd : w->out.fd;

		if (fd >= 0)
			fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	}
	w->pidfd = (int)syscall(SYS_pidfd_open, w->pid, 0);
	if (w->pidfd < 0) {
		ret = -errno;
		snprintf(err, errlen, "workload_start: %s: pidfd_open: %s", w->id, strerror(errno));
		if (w->job)
			kill(-w->pid, SIGKILL);
		kill(w->pid, SIGKILL);
		waitpid(w->pid, NULL, 0);
	}
out:
	if (!w->job)
		free(x->argv);
	x->argv = NULL;
	return ret;
}

/* mkdir that accepts an existing folder; 0 or -errno. */
static int agent_wl_mkdir(const char *path, mode_t mode)
{
	return mkdir(path, mode) && errno != EEXIST ? -errno : 0;
}

/*
 * "shim": checks the library, makes RUN_DIR/shim (0700) and w->shim_sock, and
 * removes a socket left there by an earlier run (its shim could not bind).
 */
static int agent_wl_prepare_shim(struct agent *a, struct agent_wl *w, char *so, size_t solen,
				 char *err, size_t errlen)
{
	const char *run = a->opts.run_dir[0] ? a->opts.run_dir : AGENT_RUN_DIR_DEFAULT;
	char dir[4200];
	struct stat st;
	int ret;

	snprintf(so, solen, "%s/%s", a->exe_dir, AGENT_SHIM_SO);
	if (access(so, R_OK)) {
		ret = -errno;
		snprintf(err, errlen,
			 "workload_start: %s: shim: %s: %s (build it: make build/%s, next to the "
			 "agent's binary)",
			 w->id, so, strerror(errno), AGENT_SHIM_SO);
		return ret;
	}
	if (!agent_cgroup_name_ok(w->id) ||
	    (size_t)snprintf(w->shim_sock, sizeof(w->shim_sock), "%s/shim/%s.sock", run, w->id) >=
		sizeof(w->shim_sock)) {
		snprintf(err, errlen,
			 "workload_start: %s: shim: the socket %s/shim/%s.sock is not a usable "
			 "path (at most %zu bytes, a wl_id of [A-Za-z0-9._-]): use a shorter "
			 "--run-dir or wl_id",
			 w->id, run, w->id, sizeof(w->shim_sock) - 1);
		w->shim_sock[0] = '\0';
		return -ENAMETOOLONG;
	}
	snprintf(dir, sizeof(dir), "%s/shim", run);
	ret = agent_wl_mkdir(run, 0755);
	if (!ret)
		ret = agent_wl_mkdir(dir, 0700);
	if (!ret && chmod(dir, 0700))
		ret = -errno;
	if (ret) {
		snprintf(err, errlen, "workload_start: %s: shim: %s: %s (see --run-dir)", w->id,
			 dir, strerror(-ret));
		w->shim_sock[0] = '\0';
		return ret;
	}
	if (!lstat(w->shim_sock, &st) && S_ISSOCK(st.st_mode))
		unlink(w->shim_sock);
	return 0;
}

/*
 * The child's environment: the agent's, without the shim's variables unless
 * the shim is wanted, then with LD_PRELOAD=so (ahead of any preload the agent
 * itself had) and RDMACHAOS_SHIM_SOCK. NULL when out of memory.
 */
static char **agent_wl_env(const struct agent_wl *w, const char *so)
{
	static const char preload[] = "LD_PRELOAD=", sock[] = SHIM_SOCK_ENV "=";
	const char *old_preload = NULL;
	size_t i, n = 0;
	char **env;

	while (environ[n])
		n++;
	env = calloc(n + 3, sizeof(*env));
	if (!env)
		return NULL;
	for (i = 0, n = 0; environ[i]; i++) {
		if (!strncmp(environ[i], sock, sizeof(sock) - 1))
			continue;
		if (w->shim_sock[0] && !strncmp(environ[i], preload, sizeof(preload) - 1)) {
			old_preload = environ[i] + sizeof(preload) - 1;
			continue;
		}
		env[n] = strdup(environ[i]);
		if (!env[n++])
			goto err;
	}
	if (w->shim_sock[0]) {
		if (asprintf(&env[n++], "%s%s%s%s", preload, so, old_preload ? " " : "",
			     old_preload ?: "") < 0 ||
		    asprintf(&env[n++], "%s%s", sock, w->shim_sock) < 0) {
			env[--n] = NULL;
			goto err;
		}
	}
	return env;
err:
	for (i = 0; env[i]; i++)
		free(env[i]);
	free(env);
	return NULL;
}

static void agent_wl_env_free(char **env)
{
	size_t i;

	for (i = 0; env && env[i]; i++)
		free(env[i]);
	free(env);
}

/* The workload's cgroup, if it has one, goes away with it; so does its shim socket. */
static void agent_wl_release(struct agent_wl *w)
{
	char err[512];

	if (w->cgroup[0]) {
		if (agent_cgroup_remove(w->cgroup, err, sizeof(err)))
			agent_notice(w->a, RC_LOG_WARN, "workload %s: %s", w->id, err);
		w->cgroup[0] = '\0';
	}
	if (w->shim_sock[0]) {
		struct stat st;

		if (!lstat(w->shim_sock, &st) && S_ISSOCK(st.st_mode))
			unlink(w->shim_sock);
	}
}

/* The start options: what the child needs in x, what the result reports in w. */
static int agent_wl_prepare(struct agent *a, struct agent_wl *w, const json_t *req,
			    struct agent_wl_exec *x, char *err, size_t errlen)
{
	const char *root = a->opts.cgroup_root[0] ? a->opts.cgroup_root : AGENT_CGROUP_ROOT_DEFAULT;
	char so[4200] = "", procs[300];
	json_int_t cpu;
	int ret;

	w->no_ipc_lock = x->no_ipc_lock = json_is_true(json_object_get(req, "no_ipc_lock"));
	if (json_is_true(json_object_get(req, "shim"))) {
		ret = agent_wl_prepare_shim(a, w, so, sizeof(so), err, errlen);
		if (ret)
			return ret;
	}
	x->env_base = agent_wl_env(w, so);
	if (!x->env_base)
		return -ENOMEM;
	x->envp = w->job ? agent_job_environ(w->job, x->env_base) : x->env_base;
	if (!x->envp)
		return -ENOMEM;
	cpu = json_integer_value(json_object_get(req, "cpu_max_pct"));
	if (!json_is_true(json_object_get(req, "cgroup")) && !cpu)
		return 0;
	ret = agent_cgroup_create(root, w->id, w->cgroup, sizeof(w->cgroup), err, errlen);
	if (!ret && cpu)
		ret = agent_cgroup_cpu_max(root, w->cgroup, (unsigned int)cpu, err, errlen);
	if (ret) {
		char why[400];

		snprintf(why, sizeof(why), "%s", err);
		snprintf(err, errlen, "workload_start: %s: %s", w->id, why);
		w->cgroup[0] = '\0';
		return ret;
	}
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", w->cgroup);
	x->cg_fd = open(procs, O_WRONLY | O_CLOEXEC);
	if (x->cg_fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "workload_start: %s: cgroup: %s: %s", w->id, procs,
			 strerror(errno));
		return ret;
	}
	return 0;
}

/* The start result: what was started and how. */
static json_t *agent_wl_started(const struct agent_wl *w)
{
	json_t *r = json_pack("{s:s, s:i, s:s}", "wl_id", w->id, "pid", (int)w->pid, "kind",
			      w->job ? "job" : "stream");

	if (r && w->cgroup[0])
		json_object_set_new(r, "cgroup", json_string(w->cgroup));
	if (r && w->shim_sock[0])
		json_object_set_new(r, "shim_sock", json_string(w->shim_sock));
	if (r && w->no_ipc_lock)
		json_object_set_new(r, "no_ipc_lock", json_true());
	return r;
}

static bool agent_wl_keep_none(const struct agent_rp_diag *d, void *arg)
{
	return false;
}

/*
 * One sock_diag dump that keeps nothing, as a job starts: the kernel loads inet_diag and
 * tcp_diag on the first one (seconds, on a slow host), and the first job_path comes during the
 * drill's baseline, in the agent's only loop.
 */
static void agent_wl_warm_sock_diag(void)
{
	struct agent_rp_diag *out = NULL;
	char err[256];
	size_t n = 0;

	agent_rp_diag_dump(agent_wl_keep_none, NULL, &out, &n, err, sizeof(err));
	free(out);
}

/* A fresh record for wl_id; its pipes not open yet. NULL when out of memory. */
static struct agent_wl *agent_wl_new(struct agent *a, const char *wl_id, const char *role)
{
	struct agent_wl *w = calloc(1, sizeof(*w));
	int i;

	if (!w)
		return NULL;
	w->a = a;
	w->pidfd = -1;
	w->refs = 1;
	for (i = 0; i < 2; i++) {
		struct agent_wl_pipe *p = i ? &w->err : &w->out;

		p->w = w;
		p->fd = -1;
		p->stream = i ? "stderr" : "stdout";
		p->more.fire = agent_wl_out_more;
		p->line = malloc(AGENT_WL_LINE_MAX);
		if (!p->line) {
			agent_wl_put(w);
			return NULL;
		}
	}
	snprintf(w->id, sizeof(w->id), "%s", wl_id);
	snprintf(w->role, sizeof(w->role), "%s", role);
	agent_list_init(&w->node);
	w->kill_timer.fire = agent_wl_kill;
	w->limit_timer.fire = agent_wl_limit;
	return w;
}

/*
 * What runs: for a job its program (checked against the policy) and the rest of its request
 * in w->job; for a stream rdmachaos-stream next to the agent, in path. 0 or -errno.
 */
static int agent_wl_program(struct agent *a, struct agent_wl *w, const json_t *req, char *path,
			    size_t len, char *err, size_t errlen)
{
	const json_t *job = json_object_get(req, "job");
	const char *role = w->role;
	int ret;

	if (!job) {
		if (strcmp(role, "server") && strcmp(role, "client")) {
			snprintf(err, errlen,
				 "workload_start: role: \"%s\": must be \"server\" or \"client\" "
				 "(a job's: \"rank\" or \"launcher\")",
				 role);
			return -EINVAL;
		}
		snprintf(path, len, "%s/%s", a->exe_dir, AGENT_WL_STREAM);
		if (access(path, X_OK)) {
			ret = -errno;
			snprintf(err, errlen, "workload_start: %s: %s (build it: make build/%s)",
				 path, strerror(errno), AGENT_WL_STREAM);
			return ret;
		}
		return 0;
	}
	if (strcmp(role, "rank") && strcmp(role, "launcher")) {
		snprintf(err, errlen,
			 "workload_start: role: \"%s\": a job's must be \"rank\" (one of its "
			 "processes) or \"launcher\" (a program such as mpirun that starts them)",
			 role);
		return -EINVAL;
	}
	if (json_object_get(req, "args")) {
		snprintf(err, errlen,
			 "workload_start: args: a job's arguments are job.argv; args are "
			 "rdmachaos-stream's");
		return -EINVAL;
	}
	w->job = calloc(1, sizeof(*w->job));
	if (!w->job)
		return -ENOMEM;
	ret = agent_job_parse(job, w->job, err, errlen);
	if (ret) {
		char why[512];

		free(w->job);
		w->job = NULL;
		snprintf(why, sizeof(why), "%s", err);
		snprintf(err, errlen, "workload_start: %s", why);
		return ret;
	}
	ret = agent_policy_check_job(&a->policy, w->job->argv[0], err, errlen);
	if (!ret && access(w->job->argv[0], X_OK)) {
		ret = -errno;
		snprintf(err, errlen, "workload_start: job: %s: %s", w->job->argv[0],
			 strerror(errno));
	}
	snprintf(path, len, "%s", w->job->argv[0]);
	return ret;
}

int agent_op_workload_start(struct agent *a, struct agent_client *cl,
			    const struct agent_later *later, const json_t *req, json_t **result,
			    char *err, size_t errlen)
{
	const char *wl_id = json_string_value(json_object_get(req, "wl_id"));
	const char *role = json_string_value(json_object_get(req, "role"));
	const json_t *args = json_object_get(req, "args");
	struct agent_wl_exec x = {.cg_fd = -1, .out_fd = -1, .err_fd = -1, .err_fd2 = -1};
	struct agent_wl *w, *old;
	char path[4200];
	int ret;

	old = agent_wl_find(a, wl_id);
	if (old && !old->exited) {
		snprintf(err, errlen,
			 "workload_start: %s: already running as pid %d (stop it first)", wl_id,
			 (int)old->pid);
		return -EEXIST;
	}
	w = agent_wl_new(a, wl_id, role);
	if (!w)
		return -ENOMEM;
	ret = agent_wl_program(a, w, req, path, sizeof(path), err, errlen);
	if (ret) {
		agent_wl_put(w);
		return ret;
	}
	if (cl && json_is_true(json_object_get(req, "stop_on_close")))
		w->owner = cl->serial;
	x.path = path;
	if (w->job) {
		x.session = true;
		x.cwd = w->job->cwd[0] ? w->job->cwd : NULL;
	}
	ret = agent_wl_prepare(a, w, req, &x, err, errlen);
	if (!ret)
		ret = agent_wl_spawn(w, &x, args, err, errlen);
	if (x.cg_fd >= 0)
		close(x.cg_fd);
	if (x.envp != x.env_base)
		free(x.envp);
	agent_wl_env_free(x.env_base);
	if (ret) {
		agent_wl_release(w);
		agent_wl_put(w);
		return ret;
	}
	if (old)
		agent_wl_remove(old);
	agent_list_add_tail(&w->node, &a->workloads);
	/* Its mr_error count from 0, so that the first failure is an increase to Prometheus. */
	agent_wl_count(a, w->id, AGENT_WL_MR_ERROR, "");
	w->refs += w->err.fd >= 0 ? 3 : 2;
	agent_poll_init(&w->out.poll, &a->loop, w->out.fd, POLLIN, false, agent_wl_out_ready,
			agent_wl_out_idle);
	agent_poll_arm(&w->out.poll);
	if (w->err.fd >= 0) {
		agent_poll_init(&w->err.poll, &a->loop, w->err.fd, POLLIN, false,
				agent_wl_out_ready, agent_wl_out_idle);
		agent_poll_arm(&w->err.poll);
	}
	agent_poll_init(&w->pid_poll, &a->loop, w->pidfd, POLLIN, true, agent_wl_pid_ready,
			agent_wl_pid_idle);
	agent_poll_arm(&w->pid_poll);
	if (w->job) {
		agent_timer_set(&a->loop, &w->limit_timer,
				rc_now_ns() + w->job->time_limit_ms * RC_NSEC_PER_MSEC);
		agent_wl_warm_sock_diag();
	}
	rc_info("workload %s: started %s %s as pid %d%s%s%s%s%s", w->id, path, role, (int)w->pid,
		w->cgroup[0] ? " in cgroup " : "", w->cgroup, w->shim_sock[0] ? " with shim " : "",
		w->shim_sock, w->no_ipc_lock ? " without CAP_IPC_LOCK" : "");
	*result = agent_wl_started(w);
	return *result ? 0 : -ENOMEM;
}

int agent_workload_info(struct agent *a, const char *wl_id, struct agent_wl_info *info)
{
	struct agent_wl *w = agent_wl_find(a, wl_id);

	if (!w)
		return -ENOENT;
	memset(info, 0, sizeof(*info));
	info->pid = (int)w->pid;
	info->exited = w->exited;
	snprintf(info->cgroup, sizeof(info->cgroup), "%s", w->cgroup);
	snprintf(info->shim_sock, sizeof(info->shim_sock), "%s", w->shim_sock);
	return 0;
}

int agent_op_workload_stop(struct agent *a, struct agent_client *cl,
			   const struct agent_later *later, const json_t *req, json_t **result,
			   char *err, size_t errlen)
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
	w->stop = *later;
	agent_wl_signal(w, SIGINT);
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
		agent_wl_signal(w, SIGINT);
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
			agent_wl_signal(w, SIGINT);
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
			agent_wl_signal(w, SIGKILL);
			if (waitpid(w->pid, &status, 0) == w->pid)
				agent_wl_exited(w, status);
		}
	}
	agent_list_for_each_safe(pos, tmp, &a->workloads)
	    agent_wl_remove(agent_list_entry(pos, struct agent_wl, node));
	agent_workload_counts_free(a);
}
