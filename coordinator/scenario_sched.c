// SPDX-License-Identifier: MIT
/*
 * The scenario's scheduler: section (which scheduler the coordinator watches, and how) and
 * expect.scheduler (what it must do), docs/SLURM.md.
 */
#include <string.h>

#include "coordinator/scenario_parse.h"

#define SCP_SCHED_MIN_EVERY_MS 200
#define SCP_SCHED_MAX_EVERY_MS 60000

static int parse_node_map(struct pctx *c, yaml_node_t *m, struct sc_scheduler *s)
{
	char path[YD_PATH_LEN], slurm[SC_NAME_LEN];
	yaml_node_pair_t *p;
	int st = 0;

	if (yd_want_map(c->d, m, "scheduler.slurm.nodes"))
		return -EINVAL;
	if (!(s->nodes = json_object()))
		return -ENOMEM;
	for (p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yd_node(c->d, p->key), *v = yd_node(c->d, p->value);

		if (yd_want_scalar(c->d, k, "scheduler.slurm.nodes"))
			return -EINVAL;
		snprintf(path, sizeof(path), "scheduler.slurm.nodes.%s", yd_scalar(k));
		if (scp_keep(&st, scp_check_node_ref(c, k, path, yd_scalar(k))) ||
		    scp_keep(&st, yd_get_text(c->d, v, path, slurm, sizeof(slurm))))
			continue;
		if (!slurm[0] || strpbrk(slurm, " ,=\t")) {
			scp_keep(&st, yd_fail(c->d, v, path,
					      "\"%s\" is not a Slurm node name (no spaces, commas "
					      "or '=')",
					      slurm));
			continue;
		}
		if (json_object_set_new(s->nodes, yd_scalar(k), json_string(slurm)))
			return -ENOMEM;
	}
	return st;
}

#define SCP_SCHED_MAX_SUBMIT_ARGS 32

/* submit: sbatch's arguments, each a string (-J is the drill's: scheduler.slurm.job). */
static int parse_submit(struct pctx *c, yaml_node_t *seq, struct sc_scheduler *s)
{
	char path[YD_PATH_LEN], arg[256];
	size_t i, n;
	int st = 0;

	if (yd_want_seq(c->d, seq, "scheduler.slurm.submit"))
		return -EINVAL;
	n = yd_seq_len(seq);
	if (!n || n > SCP_SCHED_MAX_SUBMIT_ARGS)
		return yd_fail(c->d, seq, "scheduler.slurm.submit",
			       "give 1..%d arguments of sbatch, e.g. [--requeue, --wrap, "
			       "\"sleep 3600\"]",
			       SCP_SCHED_MAX_SUBMIT_ARGS);
	if (!s->job[0])
		return yd_fail(c->d, seq, "scheduler.slurm.submit",
			       "needs scheduler.slurm.job: the name the job is submitted and "
			       "followed by");
	if (!(s->submit = json_array()))
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		yaml_node_t *it = yd_seq_item(c->d, seq, i);

		yd_join_idx(path, "scheduler.slurm.submit", i);
		if (scp_keep(&st, yd_get_text(c->d, it, path, arg, sizeof(arg))))
			continue;
		if (!strcmp(arg, "-J") || !strncmp(arg, "--job-name", 10)) {
			scp_keep(&st,
				 yd_fail(c->d, it, path,
					 "the job's name is scheduler.slurm.job; leave -J out"));
			continue;
		}
		if (json_array_append_new(s->submit, json_string(arg)))
			return -ENOMEM;
	}
	return st;
}

int scp_parse_scheduler(struct pctx *c, yaml_node_t *n)
{
	static const char *const keys[] = {"slurm", NULL};
	static const char *const slurm_keys[] = {"scontrol", "conf",   "every", "nodes",
						 "job",	     "submit", NULL};
	struct sc_scheduler *s = &c->sc->scheduler;
	yaml_node_t *m, *v;
	uint64_t ms;
	int st = 0;

	if (yd_want_map(c->d, n, "scheduler") || yd_check_keys(c->d, n, "scheduler", keys))
		return -EINVAL;
	if (!(m = yd_map_get(c->d, n, "slurm")))
		return scp_missing(c, n, "scheduler", "slurm",
				   "the scheduler to watch; Slurm is the one there is, e.g. "
				   "scheduler: {slurm: {}}");
	s->line = (int)n->start_mark.line + 1;
	s->slurm = true;
	s->every_ms = 1000;
	snprintf(s->scontrol, sizeof(s->scontrol), "/usr/bin/scontrol");
	if (yd_is_null(m))
		return 0;
	if (yd_want_map(c->d, m, "scheduler.slurm"))
		return -EINVAL;
	scp_keep(&st, yd_check_keys(c->d, m, "scheduler.slurm", slurm_keys));
	if ((v = yd_map_get(c->d, m, "scontrol")) &&
	    !scp_keep(&st, yd_get_text(c->d, v, "scheduler.slurm.scontrol", s->scontrol,
				       sizeof(s->scontrol))) &&
	    s->scontrol[0] != '/')
		scp_keep(&st,
			 yd_fail(c->d, v, "scheduler.slurm.scontrol",
				 "\"%s\" is not an absolute path; give where scontrol is, e.g. "
				 "/usr/bin/scontrol",
				 s->scontrol));
	if ((v = yd_map_get(c->d, m, "conf")) &&
	    !scp_keep(&st,
		      yd_get_text(c->d, v, "scheduler.slurm.conf", s->conf, sizeof(s->conf))) &&
	    s->conf[0] != '/')
		scp_keep(&st, yd_fail(c->d, v, "scheduler.slurm.conf",
				      "\"%s\" is not an absolute path to a slurm.conf", s->conf));
	if ((v = yd_map_get(c->d, m, "every")) &&
	    !scp_keep(&st, yd_get_duration(c->d, v, "scheduler.slurm.every", &ms))) {
		if (ms < SCP_SCHED_MIN_EVERY_MS || ms > SCP_SCHED_MAX_EVERY_MS)
			scp_keep(&st, yd_fail(c->d, v, "scheduler.slurm.every",
					      "%s is out of range; use 200ms..60s (each poll is "
					      "one scontrol call to slurmctld)",
					      yd_scalar(v)));
		else
			s->every_ms = ms;
	}
	if ((v = yd_map_get(c->d, m, "nodes")))
		scp_keep(&st, parse_node_map(c, v, s));
	if ((v = yd_map_get(c->d, m, "job")) &&
	    !scp_keep(&st, yd_get_text(c->d, v, "scheduler.slurm.job", s->job, sizeof(s->job))) &&
	    (!s->job[0] || strpbrk(s->job, " \t")))
		scp_keep(&st,
			 yd_fail(c->d, v, "scheduler.slurm.job",
				 "\"%s\" is not a job name to follow (sbatch -J NAME)", s->job));
	if ((v = yd_map_get(c->d, m, "submit")))
		scp_keep(&st, parse_submit(c, v, s));
	return st;
}

int scp_parse_expect_scheduler(struct pctx *c, yaml_node_t *m)
{
	static const char *const keys[] = {"drained_within", "resumed_within", "job",
					   "max_requeues", NULL};
	struct sc_expect *e = &c->sc->expect;
	yaml_node_t *v;
	uint64_t n;
	int st = 0;

	e->sched_max_requeues = 1;
	if (yd_want_map(c->d, m, "expect.scheduler"))
		return -EINVAL;
	scp_keep(&st, yd_check_keys(c->d, m, "expect.scheduler", keys));
	if ((v = yd_map_get(c->d, m, "drained_within")))
		scp_keep(&st, scp_get_duration_pos(c, v, "expect.scheduler.drained_within",
						   &e->sched_drained_within_ms));
	if ((v = yd_map_get(c->d, m, "resumed_within")))
		scp_keep(&st, scp_get_duration_pos(c, v, "expect.scheduler.resumed_within",
						   &e->sched_resumed_within_ms));
	if ((v = yd_map_get(c->d, m, "job")) &&
	    !scp_keep(&st, yd_get_text(c->d, v, "expect.scheduler.job", e->sched_job,
				       sizeof(e->sched_job))) &&
	    strcmp(e->sched_job, "completed") && strcmp(e->sched_job, "running")) {
		scp_keep(&st,
			 yd_fail(c->d, v, "expect.scheduler.job",
				 "\"%s\" is not an outcome; use completed (the job ended "
				 "COMPLETED by the drill's end) or running (still RUNNING then)",
				 e->sched_job));
		e->sched_job[0] = '\0';
	}
	if ((v = yd_map_get(c->d, m, "max_requeues")) &&
	    !scp_keep(&st, yd_get_uint(c->d, v, "expect.scheduler.max_requeues", 0, 100, &n)))
		e->sched_max_requeues = (unsigned int)n;
	if (e->sched_job[0] && !c->sc->scheduler.job[0] && c->sc->scheduler.slurm)
		scp_keep(&st, yd_fail(c->d, v ?: m, "expect.scheduler.job",
				      "no job to judge: name it in scheduler.slurm.job"));
	return st;
}
