// SPDX-License-Identifier: MIT
/*
 * rdmachaos-agent: command line, start-up of every observer on one io_uring
 * loop, the replay of the revert journal before serving, and the orderly stop
 * on SIGTERM/SIGINT (revert and verify every fault, stop the workloads) that
 * makes the agent safe to stop; the journal makes it safe to kill.
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
#include "agents/agent_config.h"
#include "agents/agent_metrics.h"
#include "agents/agent_pfc.h"
#include "common/netif.h"
#include "common/units.h"
#include "injectors/injector.h"

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

/* "a,b,c" from a table of names. */
static const char *agent_names(const void *table, size_t stride, unsigned int nr, char *buf,
			       size_t len)
{
	size_t off = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < nr && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? "," : "",
					(const char *)table + i * stride);
	return buf;
}

static void agent_log_policy(const struct agent *a, const struct agent_policy *file)
{
	const struct agent_policy *p = &a->policy;
	char allow[AGENT_MAX_IFS * IF_NAMESIZE], devs[AGENT_MAX_DEVICES * AGENT_DEVICE_LEN];
	char injs[AGENT_MAX_INJECTORS * AGENT_INJ_NAME_LEN], may[sizeof(allow) + sizeof(devs) + 64];
	char dur[32], conc[16];
	unsigned int i;

	for (i = 0; i < p->nr_allow; i++)
		if (!rc_if_nametoindex(p->allow[i]))
			rc_warn("%s %s: no such interface yet",
				p->allow_line ? "netdevs" : "--allow-if", p->allow[i]);
	agent_names(p->allow, sizeof(p->allow[0]), p->nr_allow, allow, sizeof(allow));
	agent_names(p->devices, sizeof(p->devices[0]), p->nr_devices, devs, sizeof(devs));
	if (p->nr_allow || p->nr_devices)
		snprintf(may, sizeof(may), "%s%s%s%s", allow,
			 p->nr_allow && p->nr_devices ? ", " : "",
			 p->nr_devices ? "the netdevs of " : "", devs);
	else
		snprintf(may, sizeof(may), "nothing (no --allow-if, no netdevs or devices)");
	rc_info("node %s listening on %s:%u; may fault: %s; control interface: %s", a->opts.name,
		a->opts.listen_host, a->opts.listen_port, may,
		p->control_if[0] ? p->control_if : "the one carrying each connection");
	if (p->file[0]) {
		if (p->max_concurrent)
			snprintf(conc, sizeof(conc), "%u", p->max_concurrent);
		rc_info(
		    "policy %s: injectors: %s; max_fault_duration: %s; max_concurrent_faults: %s",
		    p->file,
		    p->injectors_line ? agent_names(p->injectors, sizeof(p->injectors[0]),
						    p->nr_injectors, injs, sizeof(injs))
				      : "all",
		    p->max_fault_ms ? rc_format_duration_ms(p->max_fault_ms, dur, sizeof(dur))
				    : "none",
		    p->max_concurrent ? conc : "none");
	}
	if (a->opts.nr_allow && (file->allow_line || file->devices_line))
		rc_warn("policy %s: --allow-if replaces its netdevs and devices", file->file);
	if (a->opts.control_if[0] && file->control_if[0] &&
	    strcmp(a->opts.control_if, file->control_if))
		rc_warn("policy %s: --control-if %s replaces its control_if %s", file->file,
			a->opts.control_if, file->control_if);
	rc_info("audit log: %s", a->audit.fd >= 0 ? a->audit.path : "none");
}

/* The policy file: --config FILE, else the default one if it exists; merged under the flags. */
static int agent_start_policy(struct agent *a, struct agent_policy *file, char *err, size_t errlen)
{
	const char *path = a->opts.config[0] ? a->opts.config : AGENT_CONFIG_DEFAULT;
	int ret;

	if (!a->opts.config[0] && access(path, F_OK) && errno == ENOENT)
		return 0;
	ret = agent_config_load(path, file, err, errlen);
	if (!ret)
		ret = agent_config_apply(&a->policy, file, err, errlen);
	return ret;
}

static int agent_start_audit(struct agent *a, char *err, size_t errlen)
{
	const char *path = a->opts.audit_log[0] ? a->opts.audit_log : AGENT_AUDIT_DEFAULT;

	if (!strcmp(path, AGENT_AUDIT_NONE))
		return 0;
	return agent_audit_open(&a->audit, path, err, errlen);
}

/*
 * Opens the journal and reverts what a dead predecessor left applied, before
 * anyone is served: no coordinator sees a fault that is about to vanish. A
 * journal that cannot be used stops the start-up; a fault that cannot be
 * reverted does not (it is listed, and its record stays).
 */
static int agent_journal_replay_start(struct agent *a)
{
	char err[512];
	int ret;

	ret = agent_journal_start(&a->journal, a->opts.state_dir, err, sizeof(err));
	if (ret) {
		rc_err("%s", err);
		return ret;
	}
	ret = agent_faults_replay(a);
	if (ret < 0)
		return ret;
	rc_info("journal: %s: %d open record(s) replayed", a->journal.dir, ret);
	return 0;
}

int main(int argc, char **argv)
{
	static struct agent a;		   /* large (paths, tables): not on the stack */
	static struct agent_policy file;   /* the policy file's own rules */
	struct agent_opts *opts = &a.opts; /* parsed in place: agent_init() */
	char err[512];
	bool clean;
	int ret;

	ret = agent_opts_parse(argc, argv, opts, err, sizeof(err));
	if (ret == AGENT_OPTS_HELP) {
		agent_opts_usage(stdout);
		return 0;
	}
	if (ret) {
		fprintf(stderr, "rdmachaos-agent: %s\nTry 'rdmachaos-agent --help'.\n", err);
		return 2;
	}
	agent_init(&a, opts);
	/* Before stderr moves to --log-file: these errors belong on the operator's terminal. */
	ret = agent_start_policy(&a, &file, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "rdmachaos-agent: %s\n", err);
		return AGENT_CONFIG_EXIT;
	}
	ret = agent_start_audit(&a, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "rdmachaos-agent: %s\n", err);
		return 1;
	}
	if (opts->log_file[0] && agent_log_open(opts->log_file))
		return 1;
	rc_log_init("rdmachaos-agent", opts->verbose ? RC_LOG_DEBUG : RC_LOG_INFO);
	agent_exe_dir(&a);

	ret = agent_loop_init(&a.loop, AGENT_RING_ENTRIES);
	if (ret) {
		rc_err("io_uring: %s (is io_uring disabled by kernel.io_uring_disabled?)",
		       strerror(-ret));
		return 1;
	}
	ret = agent_signals_start(&a);
	if (!ret)
		ret = agent_journal_replay_start(&a);
	if (!ret)
		ret = agent_server_start(&a);
	if (!ret)
		ret = agent_link_start(&a);
	if (!ret)
		ret = agent_verbs_start(&a);
	if (!ret)
		ret = agent_pfc_start(&a);
	if (!ret)
		ret = agent_metrics_start(&a);
	if (ret) {
		rc_err("start-up failed: %s", strerror(-ret));
		goto out;
	}
	agent_log_policy(&a, &file);
	/* The first inject is the one a drill times: its one-time costs are paid here. */
	rc_netif_warm();
	injectors_warm();

	ret = agent_loop_run(&a.loop);

	/* Stopping: faults first, they are what could hurt the fabric. */
	clean = agent_faults_shutdown(&a);
	agent_workloads_shutdown(&a, AGENT_WORKLOAD_GRACE_MS);
	if (!clean)
		rc_err("exit: some fault could not be reverted and verified; check the log above");
	if (!ret && !clean)
		ret = -EIO;
out:
	agent_metrics_stop(&a);
	agent_server_stop(&a);
	agent_counters_stop(&a);
	agent_verbs_stop(&a);
	agent_pfc_stop(&a); /* after the faults: a storm this node sent has stopped */
	agent_link_stop(&a);
	agent_journal_stop(&a.journal);
	agent_audit_close(&a.audit);
	if (a.sig_fd >= 0)
		close(a.sig_fd);
	agent_loop_fini(&a.loop);
	rc_info("stopped");
	return ret ? 1 : 0;
}
