/* SPDX-License-Identifier: MIT */
/*
 * The node agent's shared state and the entry points of its modules. One
 * process, one io_uring loop (agents/agent_loop.h), no threads: every module
 * below is driven from that loop, so none of them locks anything.
 *
 *   agent_main.c       start-up, signals, orderly stop
 *   agent_init.c       initial state (no system resources)
 *   agent_loop.c       the io_uring loop: polls and timers
 *   agent_opts.c       command line
 *   agent_server.c     listening socket, coordinator connections, event fan-out
 *   agent_sink.c       agent_emit / agent_notice through the agent's sink
 *   agent_req.c        request checking and dispatch (docs/PROTOCOL.md)
 *   agent_faults.c     inject / revert / revert_all / drop / faults / renew, fault timers,
 *                      leases, replay of the journal at start-up
 *   agent_journal.c    crash-safe revert journal (--state-dir)
 *   agent_target.c     a request's target to a netdev; rail map
 *   agent_policy.c     which faults may be injected (injectors, netdevs, caps)
 *   agent_config.c     the policy file (--config, /etc/rdmachaos/agent.yaml)
 *   agent_audit.c      the audit log: a JSON line per answered request
 *   agent_inventory.c  inventory
 *   agent_link.c       rtnetlink observer (`link` events)
 *   agent_verbs.c      verbs async-event observer (`port`, `async` events)
 *   agent_counters.c   RDMA counter sampler (`counter` events)
 *   agent_pfc.c        PFC frames received, storm watchdog, lab pause emulation (`pfc`)
 *   agent_workload.c   rdmachaos-stream and job children (`workload` events)
 *   agent_job.c        a job's request checks and output rules (agents/agent_job.h)
 *   agent_job_path.c   job_path: the evidence of the path a job takes (QPs, TCP, counters)
 *   agent_cgroup.c     the cgroup v2 folders workloads run in (--cgroup-root)
 *   agent_metrics.c    Prometheus metrics at GET /metrics (--metrics-listen)
 *   agent_rdmapath.c   whether a job rides RDMA or TCP: its processes, QPs, TCP sockets
 *                      (agent_rdmapath_diag.c: the sock_diag dump), port data counters
 */
#ifndef AGENT_H
#define AGENT_H

#include <jansson.h>
#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "agents/agent_audit.h"
#include "agents/agent_journal.h"
#include "agents/agent_list.h"
#include "agents/agent_loop.h"
#include "agents/agent_policy.h"
#include "common/sysfs.h"
#include "common/conn.h"
#include "common/log.h"
#include "injectors/injector.h"

#define AGENT_NAME_LEN 64
#define AGENT_MAX_RAILS 64
#define AGENT_MAX_PEERS 8
#define AGENT_TLS_HANDSHAKE_MS 10000
/*
 * Connection caps (agents/agent_server.c): at most AGENT_MAX_HANDSHAKES connections still in
 * their TLS handshake (a new one evicts the oldest), at most AGENT_MAX_CLIENTS open in all (a
 * new one beyond is closed at once). Out of file descriptors, the agent accepts and closes
 * through a reserved one, and retries every AGENT_ACCEPT_RETRY_MS, so that a full listen
 * queue never wedges it.
 */
#define AGENT_MAX_HANDSHAKES 32
#define AGENT_MAX_CLIENTS 128
#define AGENT_ACCEPT_RETRY_MS 100
#define AGENT_PROTO 1

struct agent_opts {
	char name[AGENT_NAME_LEN];
	char listen_host[64];
	uint16_t listen_port;
	char control_if[IF_NAMESIZE];
	char allow[AGENT_MAX_IFS][IF_NAMESIZE];
	unsigned int nr_allow;
	char rails[AGENT_MAX_RAILS][IF_NAMESIZE]; /* index: rail */
	unsigned int nr_rails;			  /* 0: railN is rail N */
	char log_file[4096];
	char tls_dir[4096]; /* --tls-dir: ca.crt, NAME.crt, NAME.key */
	char tls_cert[4096], tls_key[4096], tls_ca[4096]; /* each wins over the dir's */
	char allow_peer[AGENT_MAX_PEERS][AGENT_NAME_LEN]; /* none given: "coordinator" */
	unsigned int nr_allow_peer;
	bool insecure_plaintext; /* no TLS: refused unless --listen is loopback */
	char config[4096];	 /* --config; "": AGENT_CONFIG_DEFAULT if it exists */
	char audit_log[4096];	 /* --audit-log; "": AGENT_AUDIT_DEFAULT, "none": no log */
	char state_dir[AGENT_JOURNAL_PATH_LEN]; /* the journal's; "" (tests): no journal */
	char run_dir[4096];	/* --run-dir (shim sockets); "": AGENT_RUN_DIR_DEFAULT */
	char cgroup_root[4096]; /* --cgroup-root; "": AGENT_CGROUP_ROOT_DEFAULT */
	bool verbose;
	bool pfc_emulate;	      /* --pfc-emulate: hold paused priorities' egress (lab) */
	unsigned int pfc_watchdog_ms; /* --pfc-watchdog-ms; 0: no PFC storm watchdog */
	char metrics_host[64];	      /* --metrics-listen's IPv4 address */
	uint16_t metrics_port;	      /* --metrics-listen's port; 0: no metrics */
	char jobs[AGENT_MAX_JOB_PROGRAMS][AGENT_JOB_PATH_LEN]; /* --allow-job */
	unsigned int nr_jobs;
};

#define AGENT_RUN_DIR_DEFAULT "/run/rdmachaos"
#define AGENT_CGROUP_ROOT_DEFAULT "/sys/fs/cgroup/rdmachaos"
/* The shim a workload started with "shim": true preloads, next to the agent's binary. */
#define AGENT_SHIM_SO "librdmachaos-verbs.so"

/* One coordinator connection. */
struct agent_client {
	struct agent *a;
	struct rc_conn conn;
	struct agent_poll rd, wr;
	/*
	 * The TLS handshake's deadline, pending until it is done (plaintext: until the first whole
	 * request); pending also counts the connection against AGENT_MAX_HANDSHAKES.
	 */
	struct agent_timer tls_timer;
	struct agent_list node;	  /* on a->clients while open */
	char ifname[IF_NAMESIZE]; /* the local interface carrying it, "" if unknown */
	char peer_id[256];	  /* the peer's TLS identity, for the audit log; "" if none */
	uint64_t serial;	  /* this agent's connection number, from 1 */
	bool subscribed;
	bool closing;
	bool framed; /* a whole request has arrived */
	int refs;    /* open + each poll not yet idle + each deferred response */
};

/*
 * What the modules under the server send up to it, through function pointers
 * as injectors report through struct inj_env, so that none of them calls into
 * the server: events of observers, faults and workloads (agent_emit*), and the
 * answers of deferred requests (agent_req.c). agent_init() installs the
 * server's (agent_server_*); a test may install its own.
 */
struct agent_sink {
	/* Takes fields (may be NULL) as a `kind` event stamped ts_ns. */
	void (*emit)(void *arg, const char *kind, uint64_t ts_ns, json_t *fields);
	void *arg;
	/* Keeps cl (not NULL) for a deferred answer, until answer(). */
	void (*hold)(struct agent_client *cl);
	/* Sends resp (stolen; NULL: none) to cl unless it has closed, and lets cl go. */
	void (*answer)(struct agent_client *cl, json_t *resp);
};

/*
 * How a handler that deferred its answer (AGENT_DEFERRED) gives it later: it
 * copies *later and calls later->fn exactly once, with what it acted on (args,
 * e.g. {"wl_id": ...}, for the audit line) and its result, both stolen; with
 * result NULL when it will never answer (the request's connection is let go).
 * The rest is the dispatcher's, opaque to the handler.
 */
struct agent_later {
	void (*fn)(const struct agent_later *l, json_t *args, json_t *result);
	struct agent *a;
	struct agent_client *cl; /* NULL: nobody waits (tests) */
	json_int_t id;
	const char *op;
};

struct agent_link;
struct agent_verbs;
struct rc_tls_ctx;
struct agent_counters;
struct agent_pfc;
struct agent_metrics;
struct agent_wl_counts;

struct agent {
	struct agent_opts opts;
	struct agent_loop loop;
	struct agent_policy policy;
	struct agent_audit audit;
	struct agent_list clients;
	struct agent_list faults;
	struct agent_list workloads;
	uint64_t last_serial; /* of the latest coordinator connection */
	int listen_fd;
	struct agent_poll listen_poll;
	int reserve_fd;			 /* /dev/null, given up to shed a connection at EMFILE */
	struct agent_timer accept_retry; /* accept again, no wake-up needed */
	uint64_t shed;			 /* connections closed unserved since the last log line */
	uint64_t shed_total;
	uint64_t shed_logged_ns;
	struct rc_tls_ctx *tls; /* coordinator connections; NULL with --insecure-plaintext */
	int sig_fd;
	struct agent_poll sig_poll;
	struct agent_link *link;
	struct agent_verbs *verbs;
	struct agent_counters *counters;
	struct agent_pfc *pfc;		   /* agents/agent_pfc.h; NULL when not observing */
	struct agent_metrics *metrics;	   /* agents/agent_metrics.h; NULL without */
	struct agent_wl_counts *wl_counts; /* workload events counted (agent_workload.c) */
	uint64_t faults_injected[AGENT_MAX_INJECTORS]; /* per injector, as indexed in injectors[] */
	struct inj_env inj_env;
	struct agent_sink sink;
	struct agent_journal journal;
	char exe_dir[4096]; /* where rdmachaos-stream is looked for */
};

/* agent_opts.c */
#define AGENT_OPTS_HELP 1
/* 0, AGENT_OPTS_HELP, or -EINVAL with a sentence naming the flag in err. Prints nothing. */
int agent_opts_parse(int argc, char **argv, struct agent_opts *o, char *err, size_t errlen);
void agent_opts_usage(FILE *f);

/*
 * Initialises the state that needs no system resources (lists, policy); main and tests. Clears
 * a and copies o into it, unless o is &a->opts: a must then be zeroed but for its opts.
 */
void agent_init(struct agent *a, const struct agent_opts *o);

/* agent_sink.c */
/* Emits an event through a->sink; steals fields (may be NULL). */
void agent_emit(struct agent *a, const char *kind, json_t *fields);
void agent_emit_at(struct agent *a, const char *kind, uint64_t ts_ns, json_t *fields);
/* Logs and emits an `agent` event the operator should see. */
void agent_notice(struct agent *a, enum rc_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* agent_server.c */
int agent_server_start(struct agent *a);
void agent_server_stop(struct agent *a);
/* The sink's emit (arg: the agent): the event to every subscribed connection. */
void agent_server_emit(void *arg, const char *kind, uint64_t ts_ns, json_t *fields);
/* The sink's hold and answer: a reference on cl, and the response then its release. */
void agent_server_hold(struct agent_client *cl);
void agent_server_answer(struct agent_client *cl, json_t *resp);

/* agent_req.c */
/*
 * A request handler. Returns 0 with *result set, -errno with a sentence in
 * err, or AGENT_DEFERRED when it keeps a copy of *later and answers through
 * it (struct agent_later). Arguments have been checked against the op's field
 * table already. cl may be NULL (tests).
 */
#define AGENT_DEFERRED 1
typedef int (*agent_op_fn)(struct agent *a, struct agent_client *cl,
			   const struct agent_later *later, const json_t *req, json_t **result,
			   char *err, size_t errlen);
/* The response to one message, or NULL when none is due now. */
json_t *agent_request(struct agent *a, struct agent_client *cl, uint16_t type, const json_t *msg);
json_t *agent_response_ok(json_int_t id, json_t *result);
json_t *agent_response_error(const json_t *id, int err, const char *msg);
/*
 * The ok response to a request a handler deferred (AGENT_DEFERRED), once its
 * audit line is written: op and id are the request's, args (stolen) what it
 * acted on ({"wl_id": ...}), result (stolen) its result.
 */
json_t *agent_response_deferred(struct agent *a, struct agent_client *cl, const char *op,
				json_int_t id, json_t *args, json_t *result);

/* agent_faults.c */
int agent_op_inject(struct agent *a, struct agent_client *cl, const struct agent_later *later,
		    const json_t *req, json_t **result, char *err, size_t errlen);
int agent_op_revert(struct agent *a, struct agent_client *cl, const struct agent_later *later,
		    const json_t *req, json_t **result, char *err, size_t errlen);
int agent_op_drop(struct agent *a, struct agent_client *cl, const struct agent_later *later,
		  const json_t *req, json_t **result, char *err, size_t errlen);
int agent_op_revert_all(struct agent *a, struct agent_client *cl, const struct agent_later *later,
			const json_t *req, json_t **result, char *err, size_t errlen);
int agent_op_faults(struct agent *a, struct agent_client *cl, const struct agent_later *later,
		    const json_t *req, json_t **result, char *err, size_t errlen);
int agent_op_renew(struct agent *a, struct agent_client *cl, const struct agent_later *later,
		   const json_t *req, json_t **result, char *err, size_t errlen);
/*
 * Before serving: reverts and verifies the fault of every record left open in
 * the journal by an agent that died; closes the records that verify and keeps
 * the others open and listed by `faults`. The number of records replayed, or
 * -errno when the journal cannot be read.
 */
int agent_faults_replay(struct agent *a);
/* Reverts and verifies every active fault; true when all are verified. Frees the records. */
bool agent_faults_shutdown(struct agent *a);

/* agent_target.c */
int agent_target_resolve(const struct agent_opts *o, const char *who, const json_t *target,
			 struct inj_target *t, char *err, size_t errlen);
/* The rail a netdev is, per --rail-map or the railN default; -1 if none. */
int agent_rail_of(const struct agent_opts *o, const char *netdev);
/*
 * agent_target_resolve(), and also a workload target ({"workload": WL_ID},
 * optionally with "rail": N), resolved against a's workloads into t->workload,
 * pid, cgroup and shim_sock (and netdev, device, rail with a rail). -ESRCH
 * with a sentence for a workload this agent does not run (unknown or exited).
 */
int agent_target_lookup(struct agent *a, const char *who, const json_t *target,
			struct inj_target *t, char *err, size_t errlen);
/*
 * For a journaled target (a record is a file, and files can be forged): its cgroup, if any, must
 * be CGROUP_ROOT/WL_ID and its shim socket RUN_DIR/shim/WL_ID.sock, where this agent puts its
 * workloads. 0, or -EPERM with a sentence.
 */
int agent_target_owned(const struct agent_opts *o, const struct inj_target *t, char *err,
		       size_t errlen);

/* agent_inventory.c */
int agent_op_inventory(struct agent *a, struct agent_client *cl, const struct agent_later *later,
		       const json_t *req, json_t **result, char *err, size_t errlen);
/* "44.0" from the libibverbs1 package record, or "unknown". */
void agent_rdma_core_version(const char *dpkg_status, char *buf, size_t len);

/* agent_link.c */
int agent_link_start(struct agent *a);
void agent_link_stop(struct agent *a);

/* agent_verbs.c */
int agent_verbs_start(struct agent *a);
/* Opens devices that appeared since the last scan. */
void agent_verbs_rescan(struct agent *a);
void agent_verbs_stop(struct agent *a);
const char *agent_port_state_name(int state);
const char *agent_phys_state_name(int phys_state);
const char *agent_async_event_name(int event);

/* agent_counters.c */
/* 0 disables sampling. The latest subscribe sets it for the whole agent. */
int agent_counters_set_interval(struct agent *a, uint64_t interval_ms);
void agent_counters_stop(struct agent *a);

/* agent_workload.c */
int agent_op_workload_start(struct agent *a, struct agent_client *cl,
			    const struct agent_later *later, const json_t *req, json_t **result,
			    char *err, size_t errlen);
int agent_op_workload_stop(struct agent *a, struct agent_client *cl,
			   const struct agent_later *later, const json_t *req, json_t **result,
			   char *err, size_t errlen);
/* SIGINT to every workload, up to grace_ms to exit, SIGKILL after; reaps all. */
void agent_workloads_shutdown(struct agent *a, unsigned int grace_ms);
/* Connection `serial` closed: stop the workloads it started with stop_on_close. */
void agent_workloads_orphaned(struct agent *a, uint64_t serial);
/* What a fault needs of a workload this agent started (agent_target.c). */
struct agent_wl_info {
	int pid;
	bool exited;	     /* reaped, not yet answered for by workload_stop */
	char cgroup[256];    /* its cgroup folder, "" if started without "cgroup" */
	char shim_sock[108]; /* its shim's control socket, "" if started without "shim" */
};
/* 0 and *info for workload wl_id, or -ENOENT when this agent has none of that name. */
int agent_workload_info(struct agent *a, const char *wl_id, struct agent_wl_info *info);

/* agent_job_path.c: a running workload's QPs, TCP sockets and the node's RDMA port counters. */
int agent_op_job_path(struct agent *a, struct agent_client *cl, const struct agent_later *later,
		      const json_t *req, json_t **result, char *err, size_t errlen);

#endif
