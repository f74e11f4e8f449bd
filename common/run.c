// SPDX-License-Identifier: MIT
/* Runs a program directly with a bounded output and a time limit (common/run.h). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/run.h"

extern char **environ;

static long long run_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int rc_run(char *const argv[], char *const envp[], int timeout_ms, char *out, size_t outlen)
{
	posix_spawn_file_actions_t fa;
	long long deadline = run_now_ms() + timeout_ms;
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
	ret = posix_spawn(&pid, argv[0], &fa, NULL, argv, envp ? envp : environ);
	posix_spawn_file_actions_destroy(&fa);
	close(fds[1]);
	if (ret) {
		close(fds[0]);
		return -ret;
	}
	for (;;) {
		struct pollfd p = {.fd = fds[0], .events = POLLIN};
		long long left = deadline - run_now_ms();
		char sink[512];
		ssize_t n;

		if (left <= 0) {
			kill(pid, SIGKILL);
			ret = -ETIMEDOUT;
			break;
		}
		if (poll(&p, 1, (int)left) <= 0)
			continue;
		n = got + 1 < outlen ? read(fds[0], out + got, outlen - 1 - got)
				     : read(fds[0], sink, sizeof(sink));
		if (n < 0 && errno == EINTR)
			continue;
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
