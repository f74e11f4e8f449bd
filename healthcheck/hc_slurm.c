// SPDX-License-Identifier: MIT
/*
 * rdmachaos-healthcheck's words with Slurm: scontrol, run directly (no shell) with a bounded
 * output and a time limit, to read the node's state and drain reason and to drain or resume it.
 * A site's HealthCheckProgram runs as root on every node; slurmctld answers scontrol.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "healthcheck/hc.h"

#define HC_RUN_MS                                                                                  \
	10000 /* scontrol answers in well under a second; slurmctld down: its own timeout */

extern char **environ;

static long long hc_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int hc_run(char *const argv[], char *out, size_t outlen)
{
	posix_spawn_file_actions_t fa;
	long long deadline = hc_now_ms() + HC_RUN_MS;
	size_t got = 0;
	int fds[2], status, ret;
	pid_t pid;

	if (!outlen)
		return -EINVAL;
	out[0] = '\0';
	if (pipe2(fds, O_CLOEXEC))
		return -errno;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fds[1], STDOUT_FILENO);
	posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	ret = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(fds[1]);
	if (ret) {
		close(fds[0]);
		return -ret;
	}
	for (;;) {
		struct pollfd p = {.fd = fds[0], .events = POLLIN};
		long long left = deadline - hc_now_ms();
		char sink[512];
		ssize_t n;

		if (left <= 0) {
			kill(pid, SIGKILL);
			ret = -ETIMEDOUT;
			break;
		}
		if (poll(&p, 1, (int)left) <= 0)
			continue;
		/* past outlen the output is read and dropped: the child never blocks on us */
		n = got + 1 < outlen ? read(fds[0], out + got, outlen - 1 - got)
				     : read(fds[0], sink, sizeof(sink));
		if (n <= 0)
			break;
		if (got + 1 < outlen)
			got += (size_t)n;
	}
	out[got] = '\0';
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (ret)
		return ret;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int hc_slurm_parse_node(const char *text, struct hc_node_state *st)
{
	char tok[64], *p, *save;
	const char *s, *e, *r;
	size_t n;

	memset(st, 0, sizeof(*st));
	/* the field State=, not NextState= or the like */
	for (s = strstr(text, "State="); s && s != text && s[-1] != ' ' && s[-1] != '\n';
	     s = strstr(s + 1, "State="))
		;
	if (!s)
		return -EINVAL;
	s += strlen("State=");
	e = s + strcspn(s, " \n");
	/* IDLE+DRAIN, MIXED+DRAIN, DRAINED, DRAINING: a drain set by anyone */
	n = (size_t)(e - s) < sizeof(tok) - 1 ? (size_t)(e - s) : sizeof(tok) - 1;
	memcpy(tok, s, n);
	tok[n] = '\0';
	for (p = strtok_r(tok, "+", &save); p; p = strtok_r(NULL, "+", &save))
		if (!strncmp(p, "DRAIN", 5))
			st->drained = true;
	/* Reason= runs to the end of the line, Slurm's " [user@time]" last */
	r = strstr(text, " Reason=");
	if (r) {
		r += strlen(" Reason=");
		n = strcspn(r, "\n");
		e = r + n;
		while (e > r && e[-1] == ' ')
			e--;
		if (e > r && e[-1] == ']') {
			const char *b = e;

			while (b > r && *b != '[')
				b--;
			if (*b == '[' && b > r && b[-1] == ' ')
				e = b - 1;
		}
		n = (size_t)(e - r) < sizeof(st->reason) - 1 ? (size_t)(e - r)
							     : sizeof(st->reason) - 1;
		memcpy(st->reason, r, n);
		st->reason[n] = '\0';
		if (!strcmp(st->reason, "(null)"))
			st->reason[0] = '\0';
	}
	return 0;
}

int hc_slurm_node_state(const struct hc_config *c, hc_run_fn run, struct hc_node_state *st,
			char *err, size_t errlen)
{
	char out[8192], node[HC_NAME_LEN + 16];
	char *argv[] = {
	    (char *)c->scontrol, (char *)"show", (char *)"node", node, (char *)"--oneliner", NULL};
	int ret;

	snprintf(node, sizeof(node), "%s", c->node);
	ret = run(argv, out, sizeof(out));
	if (ret) {
		snprintf(err, errlen, "%s show node %s: %s", c->scontrol, c->node,
			 ret < 0 ? strerror(-ret) : "failed (is slurmctld up, the node known?)");
		return ret < 0 ? ret : -EIO;
	}
	if (hc_slurm_parse_node(out, st)) {
		snprintf(err, errlen, "%s show node %s: no State= in its answer", c->scontrol,
			 c->node);
		return -EPROTO;
	}
	return 0;
}

static int hc_slurm_update(const struct hc_config *c, hc_run_fn run, const char *state,
			   const char *reason, char *err, size_t errlen)
{
	char out[1024], node[HC_NAME_LEN + 16], st[32], why[300];
	char *argv[] = {(char *)c->scontrol, (char *)"update", node, st, reason ? why : NULL, NULL};
	int ret;

	snprintf(node, sizeof(node), "NodeName=%s", c->node);
	snprintf(st, sizeof(st), "State=%s", state);
	if (reason)
		snprintf(why, sizeof(why), "Reason=%s", reason);
	ret = run(argv, out, sizeof(out));
	if (ret)
		snprintf(err, errlen, "%s update %s %s: %s", c->scontrol, node, st,
			 ret < 0 ? strerror(-ret) : "failed");
	return ret < 0 ? ret : ret ? -EIO : 0;
}

int hc_slurm_drain(const struct hc_config *c, hc_run_fn run, const char *reason, char *err,
		   size_t errlen)
{
	return hc_slurm_update(c, run, "DRAIN", reason, err, errlen);
}

int hc_slurm_resume(const struct hc_config *c, hc_run_fn run, char *err, size_t errlen)
{
	return hc_slurm_update(c, run, "RESUME", NULL, err, errlen);
}
