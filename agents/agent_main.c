// SPDX-License-Identifier: MIT
/*
 * rdmachaos-agent: command line, start-up of every observer on one io_uring
 * loop, and the orderly stop on SIGTERM/SIGINT (revert and verify every
 * fault, stop the workloads) that makes the agent safe to kill.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "agents/agent.h"

#define AGENT_RING_ENTRIES 256
#define AGENT_WORKLOAD_GRACE_MS 3000

static void agent_signal_ready(struct agent_poll *p, int res)
{
	struct agent *a = agent_container_of(p, struct agent, sig_poll);
	struct signalfd_siginfo si;

	while (read(a->sig_fd, &si, sizeof(si)) == sizeof(si)) {
		rc_info("%s: stopping: reverting faults, stopping workloads",
			strsignal((int)si.ssi_signo));
		agent_loop_stop(&a->loop);
	}
}

static int agent_signals_start(struct agent *a)
{
	sigset_t set;

	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	if (sigprocmask(SIG_BLOCK, &set, NULL))
		return -errno;
	a->sig_fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	if (a->sig_fd < 0)
		return -errno;
	agent_poll_init(&a->sig_poll, &a->loop, a->sig_fd, POLLIN, false, agent_signal_ready, NULL);
	return agent_poll_arm(&a->sig_poll);
}

static int agent_log_open(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);

	if (fd < 0) {
		fprintf(stderr, "rdmachaos-agent: --log-file %s: %s\n", path, strerror(errno));
		return -errno;
	}
	/* stderr itself: the log module and every workload's stderr land there. */
	if (dup2(fd, STDERR_FILENO) < 0) {
		close(fd);
		return -errno;
	}
	close(fd);
	setvbuf(stderr, NULL, _IOLBF, 0);
	return 0;
}

static void agent_exe_dir(struct agent *a)
{
	char exe[sizeof(a->exe_dir)];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0) {
		snprintf(a->exe_dir, sizeof(a->exe_dir), ".");
		return;
	}
	exe[n] = '\0';
	snprintf(a->exe_dir, sizeof(a->exe_dir), "%s", dirname(exe));
}

static void agent_log_policy(const struct agent *a)
{
	char allow[AGENT_MAX_IFS * IF_NAMESIZE] = "";
	size_t off = 0;
	unsigned int i;

	for (i = 0; i < a->opts.nr_allow; i++) {
		off += (size_t)snprintf(allow + off, sizeof(allow) - off, "%s%s", i ? "," : "",
					a->opts.allow[i]);
		if (!if_nametoindex(a->opts.allow[i]))
			rc_warn("--allow-if %s: no such interface yet", a->opts.allow[i]);
	}
	rc_info("node %s listening on %s:%u; may fault: %s; control interface: %s", a->opts.name,
		a->opts.listen_host, a->opts.listen_port, off ? allow : "nothing (no --allow-if)",
		a->opts.control_if[0] ? a->opts.control_if : "the one carrying each connection");
}

int main(int argc, char **argv)
{
	static struct agent a; /* large (paths, tables): not on the stack */
	struct agent_opts opts;
	char err[512];
	bool clean;
	int ret;

	ret = agent_opts_parse(argc, argv, &opts, err, sizeof(err));
	if (ret == AGENT_OPTS_HELP) {
		agent_opts_usage(stdout);
		return 0;
	}
	if (ret) {
		fprintf(stderr, "rdmachaos-agent: %s\nTry 'rdmachaos-agent --help'.\n", err);
		return 2;
	}
	if (opts.log_file[0] && agent_log_open(opts.log_file))
		return 1;
	rc_log_init("rdmachaos-agent", opts.verbose ? RC_LOG_DEBUG : RC_LOG_INFO);
	agent_init(&a, &opts);
	agent_exe_dir(&a);

	ret = agent_loop_init(&a.loop, AGENT_RING_ENTRIES);
	if (ret) {
		rc_err("io_uring: %s (is io_uring disabled by kernel.io_uring_disabled?)",
		       strerror(-ret));
		return 1;
	}
	ret = agent_signals_start(&a);
	if (!ret)
		ret = agent_server_start(&a);
	if (!ret)
		ret = agent_link_start(&a);
	if (!ret)
		ret = agent_verbs_start(&a);
	if (ret) {
		rc_err("start-up failed: %s", strerror(-ret));
		goto out;
	}
	agent_log_policy(&a);

	ret = agent_loop_run(&a.loop);

	/* Stopping: faults first, they are what could hurt the fabric. */
	clean = agent_faults_shutdown(&a);
	agent_workloads_shutdown(&a, AGENT_WORKLOAD_GRACE_MS);
	if (!clean)
		rc_err("exit: some fault could not be reverted and verified; check the log above");
	if (!ret && !clean)
		ret = -EIO;
out:
	agent_server_stop(&a);
	agent_counters_stop(&a);
	agent_verbs_stop(&a);
	agent_link_stop(&a);
	if (a.sig_fd >= 0)
		close(a.sig_fd);
	agent_loop_fini(&a.loop);
	rc_info("stopped");
	return ret ? 1 : 0;
}
