/* SPDX-License-Identifier: MIT */
/*
 * rdmachaos-healthcheck: a node health check a site can run as Slurm's HealthCheckProgram (or
 * call from NHC). It checks the node's RDMA ports, their links and error counters against a
 * config (hc_config.c, hc_check.c), and drains the node with a reason naming the rail, or
 * resumes a node it drained itself once every rail is healthy again (hc_slurm.c). A node
 * drained by anyone else is left alone. docs/SLURM.md.
 */
#ifndef RC_HC_H
#define RC_HC_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HC_MAX_RAILS 16
#define HC_MAX_COUNTERS 16
#define HC_NAME_LEN 64
#define HC_PATH_LEN 256
#define HC_MAX_PROBLEMS (HC_MAX_RAILS * (3 + HC_MAX_COUNTERS))
#define HC_PROBLEM_LEN 256
#define HC_REASON_PREFIX "rdmachaos-healthcheck:"

struct hc_rail {
	char device[HC_NAME_LEN]; /* the RDMA device, e.g. mlx5_0 or rxe_rail0 */
	unsigned int port;	  /* its port, 1 unless told */
};

struct hc_counter {
	char name[HC_NAME_LEN]; /* under ports/P/counters or ports/P/hw_counters */
	uint64_t max_increase;	/* between two runs */
};

struct hc_config {
	struct hc_rail rails[HC_MAX_RAILS];
	unsigned int nr_rails;
	struct hc_counter counters[HC_MAX_COUNTERS];
	unsigned int nr_counters;
	char state_dir[HC_PATH_LEN]; /* the counters of the last run; "" keeps none */
	char node[HC_NAME_LEN];	     /* Slurm's name of this node; "" the short host name */
	bool drain;		     /* drain and resume with scontrol; false: report only */
	char scontrol[HC_PATH_LEN];
};

/* Reads FILE into c (defaults first); 0, or -EINVAL with "FILE:LINE:COL: key: what" in err. */
int hc_config_load(const char *file, struct hc_config *c, char *err, size_t errlen);
int hc_config_parse(const char *file, const char *text, size_t len, struct hc_config *c, char *err,
		    size_t errlen);
void hc_config_defaults(struct hc_config *c);

/* What the checks found: one sentence per problem, each naming the rail. */
struct hc_result {
	char problems[HC_MAX_PROBLEMS][HC_PROBLEM_LEN];
	unsigned int nr_problems;
	char warnings[4][HC_PROBLEM_LEN]; /* the state file could not be used, ... */
	unsigned int nr_warnings;
};

/*
 * Checks every rail under rc_sysfs_root: the port ACTIVE and its physical link up, its netdev
 * up, each counter's rise since the last run (kept in c->state_dir) within its bound.
 */
void hc_check(const struct hc_config *c, struct hc_result *r);

/* What to do with the node, from its health and the scheduler's state of it. */
enum hc_action { HC_NONE, HC_DRAIN, HC_RESUME, HC_LEAVE_OTHERS };
struct hc_node_state {
	bool drained;	  /* DRAIN among its state flags (drained or draining) */
	char reason[256]; /* the drain reason, without Slurm's "[user@time]" */
};
enum hc_action hc_decide(bool healthy, const struct hc_node_state *st);

/* Runs argv (argv[0] a path), its stdout into out (NUL-ended); its exit status or -errno. */
typedef int (*hc_run_fn)(char *const argv[], char *out, size_t outlen);
int hc_run(char *const argv[], char *out, size_t outlen);

/* `scontrol show node NODE --oneliner`, parsed. 0 or -errno, with a sentence in err. */
int hc_slurm_node_state(const struct hc_config *c, hc_run_fn run, struct hc_node_state *st,
			char *err, size_t errlen);
int hc_slurm_parse_node(const char *text, struct hc_node_state *st);
/* scontrol update NodeName=NODE State=DRAIN Reason=REASON, or State=RESUME. */
int hc_slurm_drain(const struct hc_config *c, hc_run_fn run, const char *reason, char *err,
		   size_t errlen);
int hc_slurm_resume(const struct hc_config *c, hc_run_fn run, char *err, size_t errlen);

/*
 * The mark STATE_DIR/drained says Slurm showed this check's drain on the node when it last asked.
 * A healthy node without it has nothing of the check's to lift, so the check need not ask
 * slurmctld at all: every node runs it every HealthCheckInterval, and most runs are healthy. Only
 * a regular file counts; anything else there is not the mark. With no state dir there is no mark
 * and every run asks.
 */
bool hc_mark_present(const struct hc_config *c);
/* Sets (ours true) or clears the mark; 0 or -errno. */
int hc_mark_update(const struct hc_config *c, bool ours);

#endif
