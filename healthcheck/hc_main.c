// SPDX-License-Identifier: MIT
/*
 * rdmachaos-healthcheck: checks this node's RDMA rails and drains or resumes it in Slurm
 * (healthcheck/hc.h). Exit 0: healthy; 1: unhealthy; 2: a bad config or command line;
 * 3: healthy or not, scontrol could not be asked or did not do what was asked.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/sysfs.h"
#include "healthcheck/hc.h"

static void hc_usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: rdmachaos-healthcheck [--config FILE] [--node NAME] [--no-drain]\n"
	    "                             [--state-dir DIR] [--scontrol PATH] [--sysfs DIR]\n"
	    "\n"
	    "Checks this node's RDMA rails (each port ACTIVE and its link up, its netdev up, its\n"
	    "error counters' rise since the last run within bounds) and, as Slurm's\n"
	    "HealthCheckProgram, drains the node with a reason naming the rail, or resumes a node\n"
	    "it drained itself once every rail is healthy again. A node drained by anyone else is\n"
	    "left alone. Prints one line per problem.\n"
	    "\n"
	    "  --config FILE     the rails and bounds (default /etc/rdmachaos/healthcheck.yaml;\n"
	    "                    docs/SLURM.md shows one)\n"
	    "  --node NAME       Slurm's name of this node (default: slurm.node, else the short\n"
	    "                    host name)\n"
	    "  --no-drain        report only: never call scontrol\n"
	    "  --state-dir DIR   where the last run's counters are kept\n"
	    "  --scontrol PATH   the scontrol to call (default /usr/bin/scontrol)\n"
	    "  --sysfs DIR       read sysfs from DIR (tests)\n"
	    "\n"
	    "Exit status: 0 healthy, 1 unhealthy, 2 bad config or usage, 3 scontrol failed.\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"config", required_argument, NULL, 'c'},	{"node", required_argument, NULL, 'n'},
	    {"no-drain", no_argument, NULL, 'D'},	{"state-dir", required_argument, NULL, 's'},
	    {"scontrol", required_argument, NULL, 'S'}, {"sysfs", required_argument, NULL, 'y'},
	    {"help", no_argument, NULL, 'h'},		{NULL, 0, NULL, 0},
	};
	const char *config = "/etc/rdmachaos/healthcheck.yaml", *node = NULL, *state = NULL;
	const char *scontrol = NULL;
	char err[512], reason[300], *dot;
	struct hc_node_state st;
	enum hc_action action;
	struct hc_config c;
	struct hc_result r;
	bool no_drain = false;
	unsigned int i;
	int o, status;

	while ((o = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (o) {
		case 'c':
			config = optarg;
			break;
		case 'n':
			node = optarg;
			break;
		case 'D':
			no_drain = true;
			break;
		case 's':
			state = optarg;
			break;
		case 'S':
			scontrol = optarg;
			break;
		case 'y':
			rc_sysfs_root = optarg;
			break;
		case 'h':
			hc_usage(stdout);
			return 0;
		default:
			hc_usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "rdmachaos-healthcheck: unexpected argument %s\n", argv[optind]);
		hc_usage(stderr);
		return 2;
	}
	if (hc_config_load(config, &c, err, sizeof(err))) {
		fprintf(stderr, "rdmachaos-healthcheck: %s\n", err);
		return 2;
	}
	if (node)
		snprintf(c.node, sizeof(c.node), "%s", node);
	if (state)
		snprintf(c.state_dir, sizeof(c.state_dir), "%s", state);
	if (scontrol)
		snprintf(c.scontrol, sizeof(c.scontrol), "%s", scontrol);
	if (no_drain)
		c.drain = false;
	if (!c.node[0] && !gethostname(c.node, sizeof(c.node) - 1) && (dot = strchr(c.node, '.')))
		*dot = '\0';

	hc_check(&c, &r);
	for (i = 0; i < r.nr_warnings; i++)
		fprintf(stderr, "rdmachaos-healthcheck: warning: %s\n", r.warnings[i]);
	for (i = 0; i < r.nr_problems; i++)
		printf("rdmachaos-healthcheck: %s: %s\n", c.node, r.problems[i]);
	status = r.nr_problems ? 1 : 0;
	if (!status)
		printf("rdmachaos-healthcheck: %s: healthy: %u rail%s\n", c.node, c.nr_rails,
		       c.nr_rails == 1 ? "" : "s");
	if (!c.drain)
		return status;
	/* healthy, and no drain of ours to lift: slurmctld need not be asked */
	if (!status && c.state_dir[0] && !hc_mark_present(&c))
		return 0;

	if (hc_slurm_node_state(&c, hc_run, &st, err, sizeof(err))) {
		fprintf(stderr, "rdmachaos-healthcheck: %s\n", err);
		return 3;
	}
	action = hc_decide(!status, &st);
	/* the mark follows what Slurm shows, and what this run does to it */
	hc_mark_update(&c, action == HC_DRAIN ||
			       (action == HC_NONE && st.drained &&
				!strncmp(st.reason, HC_REASON_PREFIX, strlen(HC_REASON_PREFIX))));
	switch (action) {
	case HC_DRAIN:
		/* the first problem names the rail; Slurm keeps the reason short */
		snprintf(reason, sizeof(reason), "%s %s%s", HC_REASON_PREFIX, r.problems[0],
			 r.nr_problems > 1 ? " (and more)" : "");
		if (hc_slurm_drain(&c, hc_run, reason, err, sizeof(err))) {
			fprintf(stderr, "rdmachaos-healthcheck: %s\n", err);
			return 3;
		}
		printf("rdmachaos-healthcheck: %s: drained: %s\n", c.node, reason);
		break;
	case HC_RESUME:
		if (hc_slurm_resume(&c, hc_run, err, sizeof(err))) {
			fprintf(stderr, "rdmachaos-healthcheck: %s\n", err);
			return 3;
		}
		printf("rdmachaos-healthcheck: %s: resumed (it had drained it: %s)\n", c.node,
		       st.reason);
		break;
	case HC_LEAVE_OTHERS:
		printf("rdmachaos-healthcheck: %s: drained by someone else (%s): left alone\n",
		       c.node, st.reason);
		break;
	case HC_NONE:
		break;
	}
	return status;
}
