/* SPDX-License-Identifier: MIT */
/*
 * A drill as declared in a scenario file (docs/SCENARIOS.md), parsed with
 * libyaml. Parsing checks everything that can be checked without a fleet:
 * types, units, ranges, unknown keys, references between sections. Errors
 * name the file, line, column and key: "scenarios/x.yaml:12:9: faults[0].at:
 * ...", and scenario_check() reports all of them (and lint warnings) at once.
 */
#ifndef RC_SCENARIO_H
#define RC_SCENARIO_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#define SC_NAME_LEN 64
#define SC_MAX_NODES 4096
#define SC_MAX_RAILS 8
#define SC_MAX_FAULTS 64
#define SC_FAILBACK_WINDOW_MS 10000 /* expect.failback.window when not given */
#define SC_MAX_SIGNALS 8

struct sc_node {
	char name[SC_NAME_LEN];
	char agent[256]; /* "host:port"; empty for lab nodes (the lab fills it in) */
};

enum sc_op { SC_OP_WRITE, SC_OP_SEND };

/*
 * A user's job as the workload (kind: job; docs/SCENARIOS.md, "Jobs"): one
 * process per rank, each on its node, started in order (a rank with `ready`
 * is waited for until a line of its output matches, before the next one
 * starts), and judged through its output and its exit.
 */
#define SC_JOB_MAX_RANKS 64
#define SC_JOB_MAX_ERRORS 8
#define SC_JOB_REGEX_LEN 256
#define SC_JOB_READY_MS 120000 /* ready_within's default: an MPI job starts in ~25 s in the lab */
#define SC_JOB_READY_MAX_MS 1800000
/* stop_grace: from the drill's SIGINT to a rank to the agent's SIGKILL; default and most */
#define SC_JOB_STOP_GRACE_MS 5000
#define SC_JOB_STOP_GRACE_MAX_MS 120000
#define SC_JOB_MAX_RESTARTS 16
#define SC_JOB_MAX_START_TRIES 5
#define SC_JOB_CPU_LIMIT_MAX 1024 /* CPUs; the agent's cap too (AGENT_CG_CPU_PCT_MAX) */

enum sc_job_outcome {
	SC_JOB_ANY,	/* its exit is reported, not judged */
	SC_JOB_SUCCEED, /* every rank must exit 0 by itself before the drill stops it */
	SC_JOB_SURVIVE, /* every rank must still run when the drill stops it */
};

struct sc_job_rank {
	char node[SC_NAME_LEN];
	json_t *argv;		      /* strings, templates (coordinator/job_template.h) */
	char ready[SC_JOB_REGEX_LEN]; /* a line that says it is ready; "" none */
	int line;
};

struct sc_job {
	struct sc_job_rank ranks[SC_JOB_MAX_RANKS];
	unsigned int nr_ranks;
	bool launcher; /* rank 0 starts the job's processes itself (mpirun): one rank */
	/* the nodes the job runs on, whose RDMA path is proven: nodes:, else the ranks' */
	char nodes[SC_JOB_MAX_RANKS][SC_NAME_LEN];
	unsigned int nr_nodes;
	json_t *env;		  /* NAME: template, for every rank; NULL none */
	char cwd[256];		  /* "" the agent's */
	uint64_t ready_within_ms; /* each rank's ready line within this; default 120 s */
	uint64_t time_limit_ms;	  /* the agent stops it then; 0: ready wait + length + 60 s */
	uint64_t stop_grace_ms;	  /* the drill's stop: SIGINT, SIGKILL this much later */
	unsigned int cpu_pct;	  /* cpu_limit: each rank's cgroup, % of one CPU; 0 none */
	/* the throughput samples: a line matching tp_regex, the number in group tp_group */
	char tp_regex[SC_JOB_REGEX_LEN];
	unsigned int tp_group;
	char tp_unit[16];
	char tp_node[SC_NAME_LEN]; /* the rank that prints them; "" any */
	/* or the RDMA counter NAME of tp_node's ports on the job's rails, as the agent samples it
	 * (counter events): a rate per sampling interval */
	char tp_counter[64];
	char tp_rate_unit[80]; /* what the samples count, when not MB/s ("rcvd_pkts/s"); "" MB/s */
	char errors[SC_JOB_MAX_ERRORS][SC_JOB_REGEX_LEN]; /* lines that are a detection signal */
	unsigned int nr_errors;
	enum sc_job_outcome outcome;
	unsigned int max_restarts; /* restarts.max: the drill starts an exited job again */
	uint64_t restart_after_ms; /* restarts.after: from a rank's exit to the restart */
	unsigned int start_tries;  /* start_tries: tries of each start; a rank exiting before its
				     ready line fails only the try */
	bool path_required;	   /* rdma_path.required: no proof of RDMA fails the drill */
	uint64_t max_tcp_bytes;	   /* rdma_path.max_tcp_bytes towards the peers' rail addresses */
};

struct sc_workload {
	char kind[32];	    /* "rdma_stream" or "job" */
	struct sc_job *job; /* kind job: owned by the scenario's workload (guards' flows: NULL) */
	char from[SC_NAME_LEN]; /* client node */
	char to[SC_NAME_LEN];	/* server node */
	enum sc_op op;
	uint64_t msg_size;
	unsigned int queue_depth;
	int rails[SC_MAX_RAILS];
	unsigned int nr_rails;
	unsigned int qp_timeout;   /* 0..31, IB local ACK timeout exponent */
	unsigned int qp_retry_cnt; /* 0..7; lab default 6 (rxe retries forever at 7) */
	uint64_t interval_ms;	   /* stats interval, default 100 */
	uint16_t port;		   /* rdma_cm port, default 18515 */
	uint64_t mr_churn_ms;	   /* client re-registers its send buffer this often; 0: never */
	int tos;		   /* client's IP TOS for RoCEv2 (DSCP << 2), -1: default */
	uint64_t rate;		   /* new messages at most this many bytes/s; 0: unpaced */
	uint64_t busy_poll_ms;	   /* client polls its CQ until this long passes idle; 0: never */
};

/* Signals a detection may be declared on. */
enum sc_signal {
	SC_SIG_WORKLOAD_ERROR, /* workload WC error */
	SC_SIG_PORT_EVENT,     /* verbs async port event */
	SC_SIG_LINK_EVENT,     /* rtnetlink link down */
	SC_SIG_COUNTER,	       /* RDMA error counter delta */
	SC_SIG_ISOLATION,      /* workload rail_down or failover */
	SC_SIG_MR_ERROR,       /* workload: a memory registration failed */
	SC_SIG_QP_STATE,       /* agent: a QP of the target seen in ERR from outside (netlink) */
	SC_SIG_PFC_STORM,      /* agent: PFC storm watchdog fired (any node) */
	SC_SIG_PFC_PAUSE,      /* agent: PFC pause frames received (any node) */
	SC_SIG_STALL,	       /* workload: no completion with work in flight, or no rail */
	SC_SIG_JOB_EXIT,       /* a job's rank exited by itself, not with status 0 */
	SC_SIG__COUNT
};
const char *sc_signal_name(enum sc_signal s);
int sc_signal_parse(const char *name, enum sc_signal *s);

struct sc_target {
	char node[SC_NAME_LEN];
	int rail;		    /* -1 unless set */
	char netdev[32];	    /* "" unless set */
	char device[64];	    /* "" unless set */
	int port;		    /* with device; default 1 */
	char workload[SC_NAME_LEN]; /* a process: "stream", the drill's workload; "" unless set */
};

/*
 * More than one trial of a fault (coordinator/schedule.c expands them into
 * one sc_fault each at plan time): `repeat: N` every `every_ms`, or a random
 * schedule, `count` trials with a gap from the end of one to the start of
 * the next drawn in [min_gap_ms, max_gap_ms] from the run's seed.
 */
struct sc_repeat {
	unsigned int count; /* trials; 0 or 1: the fault runs once */
	uint64_t every_ms;  /* fixed: start to start; 0: the default (schedule.c) */
	bool random;
	uint64_t min_gap_ms, max_gap_ms; /* random */
	int line;
};

struct sc_fault {
	char name[SC_NAME_LEN];
	char base[SC_NAME_LEN]; /* the declared name; name is "base#k" for trial k of many */
	unsigned int trial;	/* 1-based after expansion; 0 before */
	unsigned int trials;	/* of the base fault, after expansion */
	struct sc_repeat repeat;
	char injector[32];
	uint64_t at_ms;	      /* from the start of the workload */
	uint64_t duration_ms; /* for port_flap: computed from its params when not given */
	struct sc_target target;
	json_t *params; /* injector parameters as JSON (owned), e.g. {"count":3,...} */
	int line;	/* where it was declared, for messages */
	int col;	/* and its column */
};

/*
 * Which statistic of a fault's trials a threshold holds for. MAX: every
 * trial (the default; with one trial all three are the same).
 */
enum sc_stat { SC_STAT_MAX, SC_STAT_P50, SC_STAT_P90 };
const char *sc_stat_name(enum sc_stat s); /* "max", "p50", "p90" */

/*
 * An alert the monitoring must raise for a fault (expect.alerts): the
 * notification must reach the coordinator's receiver within fire_within_ms of
 * the injection, and its resolved notification within resolve_within_ms of
 * the revert (0: not checked). nr_faults 0: for every fault.
 */
#define SC_MAX_ALERTS 16
#define SC_ALERT_NAME_LEN 64
struct sc_alert_expect {
	char name[SC_ALERT_NAME_LEN];
	uint64_t fire_within_ms;
	uint64_t resolve_within_ms;
	char faults[SC_MAX_SIGNALS][SC_NAME_LEN];
	unsigned int nr_faults;
	int line;
};

struct sc_expect {
	struct sc_alert_expect alerts[SC_MAX_ALERTS];
	unsigned int nr_alerts;
	char alert_signals[SC_MAX_SIGNALS][SC_ALERT_NAME_LEN]; /* detection on alert:NAME */
	unsigned int nr_alert_signals;
	enum sc_stat detection_stat, isolation_stat, recovery_stat;
	uint64_t detection_within_ms;
	enum sc_signal signals[SC_MAX_SIGNALS];
	unsigned int nr_signals;
	bool isolation_set;
	uint64_t isolation_within_ms;
	uint64_t recovery_within_ms;
	double recovery_ratio;	      /* of baseline throughput, default 0.8 */
	uint64_t recovery_sustain_ms; /* default 2000 */
	uint64_t recovery_window_ms;  /* throughput smoothing, default 1000; 0: raw samples */
	/*
	 * Failback: the disruption after a fault's revert (docs/SCENARIOS.md). It is
	 * always measured over failback_window_ms below failback_ratio of the
	 * baseline; only expect.failback bounds it (failback_set).
	 */
	bool failback_set;
	uint64_t failback_max_outage_ms;
	double failback_ratio;	     /* default: recovery_ratio */
	uint64_t failback_window_ms; /* default 10000 */
	int64_t max_lost;	     /* -1: not checked */
	int64_t max_corrupted;	     /* -1: not checked */
	/* expect.scheduler (docs/SLURM.md); 0: not required */
	uint64_t sched_drained_within_ms; /* each fault's node out of service, from its inject */
	uint64_t sched_resumed_within_ms; /* back in service, from its revert */
	char sched_job[16];		  /* the followed job must end "completed" or still be
					     "running" at the drill's end; "" not judged */
	unsigned int sched_max_requeues;  /* with sched_job: requeues allowed (default 1) */
};

/*
 * scheduler: the scheduler whose view of the drill's nodes the coordinator watches. Slurm only:
 * scontrol, run on the coordinator's host, polled every every_ms.
 */
struct sc_scheduler {
	bool slurm;	       /* scheduler: {slurm: ...} was given */
	char scontrol[256];    /* default /usr/bin/scontrol */
	char conf[512];	       /* SLURM_CONF; "" the lab's client config, else scontrol's own */
	uint64_t every_ms;     /* default 1000 */
	json_t *nodes;	       /* {drill node: Slurm node}; NULL: the same names */
	char job[SC_NAME_LEN]; /* the Slurm job (by name) whose state to follow; "" none */
	json_t *submit;	       /* sbatch arguments: the drill submits the job itself at its start
				  (sbatch -J job) and cancels it at its end; NULL none */
	int line;
};

/* Abort guards: the drill stops and reverts everything when one trips. */
enum sc_guard_kind {
	SC_GUARD_THROUGHPUT, /* the workload (or the guard's own flow) below min_ratio of
			      * its baseline for for_ms */
	SC_GUARD_TCP_PROBE,  /* `failures` TCP connects in a row to address fail */
};

#define SC_MAX_GUARDS 8
#define SC_DEFAULT_LEASE_MS 5000

struct sc_guard {
	enum sc_guard_kind kind;
	double min_ratio;      /* throughput */
	uint64_t for_ms;       /* throughput: how long below the floor trips it */
	char address[256];     /* tcp_probe: "host:port" */
	uint64_t every_ms;     /* tcp_probe: one connect attempt this often */
	unsigned int failures; /* tcp_probe: consecutive failures that trip it */
	/*
	 * throughput: a bystander stream the coordinator runs for this guard
	 * alone, so the floor watches a flow the faults are not aimed at.
	 * Unset fields come from the drill's workload; the port is its port
	 * + 1 + the guard's index unless given.
	 */
	bool has_flow;
	struct sc_workload flow;
	int line;
};

/* How far a drill may reach, and how it stops itself (docs/SCENARIOS.md). */
struct sc_safety {
	uint64_t lease_ms;	/* agents revert a fault not renewed for this long */
	unsigned int max_nodes; /* nodes with a fault in force at once; 0: no limit */
	unsigned int max_rails; /* rails (or netdevs) faulted at once; 0: no limit */
	double max_fleet_share; /* share of the fleet's nodes faulted at once; 0: no limit */
	int line;		/* of blast_radius, for plan-time messages */
	int col;
	struct sc_guard guards[SC_MAX_GUARDS];
	unsigned int nr_guards;
};

/*
 * select: names for nodes picked from a fleet by their labels (docs/FLEET.md, "Picking nodes by
 * label"). A name stands wherever a node's name does; the coordinator binds it at plan time
 * (coordinator/select.h) from --fleet FILE or the lab's fleet, drawing from --seed.
 */
#define SC_MAX_SELECTS 16
enum sc_pick { SC_PICK_COUNT, SC_PICK_SHARE, SC_PICK_ALL };
struct sc_select {
	char name[SC_NAME_LEN];
	json_t *labels;	    /* {"rack": "r1"}: every one must match; {} any node */
	enum sc_pick pick;  /* how many of the matching nodes */
	unsigned int count; /* SC_PICK_COUNT: this many (default 1) */
	double share;	    /* SC_PICK_SHARE: this share of those that match, at least one */
	int line;
	/* after binding: the picked nodes (strings, in the order drawn) and how many matched */
	json_t *picked;
	unsigned int matched;
};

/* Where alerts come from (docs/MONITORING.md). */
enum sc_monitoring {
	SC_MON_NONE,	 /* not declared: alerts only if --alert-receiver is given */
	SC_MON_LAB,	 /* monitoring: lab — the lab's Prometheus and Alertmanager */
	SC_MON_EXTERNAL, /* monitoring: {receiver: ADDR:PORT} — an existing Alertmanager */
};

struct scenario {
	char file[512];
	enum sc_monitoring monitoring;
	char receiver[64]; /* SC_MON_EXTERNAL: where the coordinator listens for webhooks */
	char receiver_token_file[4096]; /* monitoring.token_file, "" if not given */
	char sha256[65];
	char name[SC_NAME_LEN];
	char description[512];
	char owner[SC_NAME_LEN];
	bool lab;
	unsigned int lab_nodes, lab_rails;
	struct sc_node *nodes;
	unsigned int nr_nodes;
	struct sc_workload workload;
	uint64_t warmup_ms, baseline_ms;
	uint64_t cooldown_ms; /* after the last recovery window, default 0 */
	struct sc_fault faults[SC_MAX_FAULTS];
	unsigned int nr_faults;
	struct sc_expect expect;
	struct sc_safety safety;
	struct sc_scheduler scheduler;
	struct sc_select selects[SC_MAX_SELECTS];
	unsigned int nr_selects;
	/* set when select: was bound: the fleet's file and size (the blast radius counts
	 * against it) */
	char fleet_file[512];
	unsigned int fleet_size;
};

/*
 * Parses and checks a scenario. Returns 0, or -EINVAL with the first error in
 * err ("FILE:LINE:COL: KEY: what is wrong"), -errno when the file cannot be
 * read. For `lab:` drills the nodes are node-a, node-b, ... (lab_nodes of them).
 */
int scenario_load(const char *path, struct scenario *sc, char *err, size_t errlen);
/* Same from memory, for tests and fuzzing; name is used in messages. */
int scenario_parse(const char *name, const char *text, size_t len, struct scenario *sc, char *err,
		   size_t errlen);

struct yd_diags; /* common/yamldoc.h */

/*
 * The same checks, reporting every error into diags rather than the first
 * (a file that cannot be read is one error at line 0), and for a scenario
 * without errors the lint warnings: thresholds that cannot mean what they
 * seem to (docs/SCENARIOS.md, "Checking a drill"). 0 with sc filled (to be
 * freed) when there is no error, warnings or not; else -EINVAL or -errno,
 * with nothing to free. Entries add to what diags holds already.
 */
int scenario_check(const char *path, struct scenario *sc, struct yd_diags *diags);
int scenario_check_text(const char *name, const char *text, size_t len, struct scenario *sc,
			struct yd_diags *diags);

void scenario_free(struct scenario *sc);

const struct sc_node *scenario_node(const struct scenario *sc, const char *name);
/* The select: entry of that name, or NULL. */
const struct sc_select *scenario_select(const struct scenario *sc, const char *name);
/* A job's throughput counter counts 4-byte words (the IB port data counters), not units. */
bool sc_job_counter_words(const char *name);

#endif
