// SPDX-License-Identifier: MIT
/*
 * rdmachaos-healthcheck's words with Slurm: scontrol, run directly (no shell) with a bounded
 * output and a time limit, to read the node's state and drain reason and to drain or resume it.
 * A site's HealthCheckProgram runs as root on every node; slurmctld answers scontrol.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdio.h>
#include <string.h>

#include "common/run.h"
#include "common/slurm.h"
#include "healthcheck/hc.h"

#define HC_RUN_MS                                                                                  \
	10000 /* scontrol answers in well under a second; slurmctld down: its own timeout */

int hc_run(char *const argv[], char *out, size_t outlen)
{
	return rc_run(argv, NULL, HC_RUN_MS, out, outlen);
}

int hc_slurm_parse_node(const char *text, struct hc_node_state *st)
{
	size_t len = strcspn(text, "\n");
	char state[64];

	memset(st, 0, sizeof(*st));
	if (slurm_field(text, len, "State", state, sizeof(state)))
		return -EINVAL;
	/* IDLE+DRAIN, MIXED+DRAIN, DRAINED, DRAINING: a drain set by anyone */
	st->drained = slurm_state_has(state, "DRAIN*");
	slurm_reason(text, len, st->reason, sizeof(st->reason));
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

#define HC_MARK_FILE "drained"

bool hc_mark_present(const struct hc_config *c)
{
	char file[HC_PATH_LEN + 16];
	struct stat st;

	if (!c->state_dir[0])
		return false;
	snprintf(file, sizeof(file), "%s/%s", c->state_dir, HC_MARK_FILE);
	return !lstat(file, &st) && S_ISREG(st.st_mode);
}

int hc_mark_update(const struct hc_config *c, bool ours)
{
	char file[HC_PATH_LEN + 16];
	struct stat st;
	int fd;

	if (!c->state_dir[0])
		return 0;
	snprintf(file, sizeof(file), "%s/%s", c->state_dir, HC_MARK_FILE);
	if (!ours) {
		/* only our regular file: a directory or a link there is not ours to remove */
		if (lstat(file, &st) || !S_ISREG(st.st_mode))
			return 0;
		return unlink(file) ? -errno : 0;
	}
	if (mkdir(c->state_dir, 0700) && errno != EEXIST)
		return -errno;
	fd = open(file, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}
