/* SPDX-License-Identifier: MIT */
/*
 * Inside the scenario parser (coordinator/scenario*.c), not for other modules:
 * the parse context and the helpers its files share. scenario.c reads the
 * document's sections and calls the others: scenario_params.c (a fault's
 * params, from the injector registry), scenario_expect.c (expect:),
 * scenario_safety.c (safety: and monitoring:) and scenario_lint.c (warnings
 * about a scenario that passed every check).
 */
#ifndef RC_SCENARIO_PARSE_H
#define RC_SCENARIO_PARSE_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include <yaml.h>

#include "common/yamldoc.h"
#include "coordinator/scenario.h"
#include "injectors/injector.h"

/* Every signal a scenario may name, for "use ..." sentences (sc_signal_parse reads them). */
#define SC_SIGNAL_NAMES                                                                            \
	"workload_error, port_event, link_event, counter, isolation, mr_error, qp_state, "         \
	"pfc_storm, pfc_pause, stall, job_exit, alert:NAME"

struct pctx {
	struct yd_doc *d; /* the file, its document, and the message buffer */
	struct scenario *sc;
	/* What a refusal left unknown: checks against it are skipped, not repeated. */
	bool nodes_unknown;	       /* the node list (lab: or nodes:) */
	bool rails_unknown;	       /* lab.rails */
	bool steady_unknown;	       /* steady_state.warmup or .baseline */
	bool interval_unknown;	       /* workload.interval */
	bool fault_bad[SC_MAX_FAULTS]; /* a refused fault, left out of the overlap check */
};

/*
 * Folds a check's result into a section's status *st and returns it: after
 * -EINVAL (recorded by yd_fail) the section goes on with its next key;
 * -ENOMEM stays and the callers stop.
 */
static inline int scp_keep(int *st, int ret)
{
	if (ret && *st != -ENOMEM)
		*st = ret;
	return ret;
}

/* "missing; WHAT" at map's path.key. */
int scp_missing(struct pctx *c, const yaml_node_t *map, const char *path, const char *key,
		const char *what);
/* A duration longer than 0. */
int scp_get_duration_pos(struct pctx *c, const yaml_node_t *n, const char *path, uint64_t *ms);
/* A finite number. */
int scp_get_double(struct pctx *c, const yaml_node_t *n, const char *path, double *v);
/* An agent address, host:port. */
int scp_check_agent(struct pctx *c, const yaml_node_t *n, const char *path, const char *agent);
/* The keys of a workload map (workload:, and a guard's flow:) into *w. */
int scp_parse_workload_map(struct pctx *c, yaml_node_t *wl, const char *path,
			   struct sc_workload *w);

/* A node of the drill (or unknown nodes): 0, else a refusal listing them. */
int scp_check_node_ref(struct pctx *c, const yaml_node_t *n, const char *path, const char *name);
/* A rail number, checked against the lab's rails. */
int scp_get_rail(struct pctx *c, const yaml_node_t *n, const char *path, int *rail);
/* The rails a workload uses (a list), into w. */
int scp_parse_rails(struct pctx *c, yaml_node_t *n, const char *path, struct sc_workload *w);

/* scenario_job.c: a workload map of kind job (its keys) into w->job, allocated. */
int scp_parse_job(struct pctx *c, yaml_node_t *wl, const char *path, struct sc_workload *w);
void scp_job_free(struct sc_job *j);

/* scenario_params.c: fault f's params (pm, NULL if none) for injector inj; fmap is the fault. */
int scp_parse_params(struct pctx *c, yaml_node_t *fmap, yaml_node_t *pm, const char *fpath,
		     const struct injector *inj, struct sc_fault *f);
/* scenario_expect.c */
int scp_parse_expect(struct pctx *c, yaml_node_t *ex);
/* select: (coordinator/scenario_select.c) */
int scp_parse_select(struct pctx *c, yaml_node_t *sel);
/* "50%" or 0.5: a share in (0, 1] (coordinator/scenario_safety.c) */
int scp_get_share(struct pctx *c, const yaml_node_t *n, const char *path, double *v);
/* scenario_safety.c */
int scp_parse_safety(struct pctx *c, yaml_node_t *m);
int scp_parse_monitoring(struct pctx *c, yaml_node_t *n);
/* scenario_sched.c: scheduler: and expect.scheduler (parse scheduler: first) */
int scp_parse_scheduler(struct pctx *c, yaml_node_t *n);
int scp_parse_expect_scheduler(struct pctx *c, yaml_node_t *m);
/* scenario_lint.c: warnings (yd_warn) about a scenario that passed every check. */
void scp_lint(struct pctx *c, yaml_node_t *root);

#endif
