// SPDX-License-Identifier: MIT
/* Finds, boots and stops the lab for drills, through lab/lab.sh and its lab.json. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/log.h"
#include "coordinator/fleetfile.h"
#include "coordinator/labenv.h"

static void labenv_state_path(char *buf, size_t len)
{
	const char *dir = getenv("RDMACHAOS_LAB_DIR");

	if (dir && *dir)
		snprintf(buf, len, "%s/run/lab.json", dir);
	else
		snprintf(buf, len, "%s/build/lab/run/lab.json", RC_SRCDIR);
}

/*
 * A VM's QEMU still runs: kill(0) alone would take a zombie for one, and a QEMU that daemonized
 * is reaped by init, which in some containers never reaps.
 */
static bool labenv_vm_runs(pid_t pid)
{
	char path[64], buf[512], *paren;
	ssize_t n;
	int fd;

	if (pid <= 0 || kill(pid, 0))
		return false;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return true; /* no procfs to ask: kill(0) said it exists */
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	/* "pid (comm) S ...": comm may hold spaces and parentheses, so the last ')' */
	paren = strrchr(buf, ')');
	return !paren || (paren[1] == ' ' && paren[2] != 'Z' && paren[2] != 'X');
}

int labenv_load(json_t **lab)
{
	char path[4096];
	json_error_t jerr;
	json_t *root, *nodes, *n;
	size_t i;

	labenv_state_path(path, sizeof(path));
	if (access(path, R_OK))
		return -ENOENT;
	root = json_load_file(path, 0, &jerr);
	if (!root) {
		rc_err("lab state %s: line %d: %s", path, jerr.line, jerr.text);
		return -EINVAL;
	}
	nodes = json_object_get(root, "nodes");
	json_array_foreach(nodes, i, n) {
		json_int_t pid = json_integer_value(json_object_get(n, "pid"));

		/* A lab that lost a VM is down: nothing can run on it. */
		if (!labenv_vm_runs((pid_t)pid)) {
			json_decref(root);
			return -ESRCH;
		}
	}
	*lab = root;
	return 0;
}

static int labenv_script(const char *const *args)
{
	char script[4096];
	const char *argv[16] = {"bash", script};
	pid_t pid;
	int st, i;

	snprintf(script, sizeof(script), "%s/lab/lab.sh", RC_SRCDIR);
	for (i = 0; args[i] && i < 13; i++)
		argv[i + 2] = args[i];
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		dup2(STDERR_FILENO, STDOUT_FILENO); /* keep stdout for the drill's own output */
		execv("/bin/bash", (char **)argv);
		_exit(127);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -EIO;
}

int labenv_up(unsigned int nodes, unsigned int rails, bool monitoring)
{
	char n[16], r[16];
	const char *args[] = {"up", "--nodes", n, "--rails", r, monitoring ? "--monitoring" : NULL,
			      NULL};

	snprintf(n, sizeof(n), "%u", nodes);
	snprintf(r, sizeof(r), "%u", rails);
	return labenv_script(args);
}

int labenv_down(void)
{
	const char *args[] = {"down", NULL};

	return labenv_script(args);
}

const char *labenv_agent(const json_t *lab, const char *node)
{
	json_t *n;
	size_t i;

	json_array_foreach(json_object_get(lab, "nodes"), i, n)
		if (!strcmp(json_string_value(json_object_get(n, "name")) ?: "", node))
			return json_string_value(json_object_get(n, "agent"));
	return NULL;
}

const char *labenv_node_at(const json_t *lab, const char *addr)
{
	json_t *n;
	size_t i;

	json_array_foreach(json_object_get(lab, "nodes"), i, n)
		if (!strcmp(json_string_value(json_object_get(n, "agent")) ?: "", addr))
			return json_string_value(json_object_get(n, "name"));
	return NULL;
}

const char *labenv_pki(const json_t *lab)
{
	const char *dir = json_string_value(json_object_get(lab, "pki"));

	return dir && *dir ? dir : NULL;
}

int labenv_fleet(unsigned int nodes, struct fleetfile *ff)
{
	unsigned int i;
	char rack[16];

	memset(ff, 0, sizeof(*ff));
	if (!(ff->nodes = calloc(nodes ?: 1, sizeof(*ff->nodes))))
		return -ENOMEM;
	for (; ff->nr_nodes < nodes; ff->nr_nodes++) {
		struct ff_node *n = &ff->nodes[ff->nr_nodes];

		i = ff->nr_nodes;
		snprintf(n->name, sizeof(n->name), "node-%c", 'a' + (int)i);
		snprintf(rack, sizeof(rack), "r%u", i / 2 + 1);
		n->labels = json_pack("{s:s,s:s}", "rack", rack, "lab", "yes");
		if (!n->labels) {
			ff_free(ff);
			return -ENOMEM;
		}
	}
	return 0;
}
