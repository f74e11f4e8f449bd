/* SPDX-License-Identifier: MIT */
/*
 * The placeholders of a job's command and environment (docs/SCENARIOS.md,
 * "Jobs"), filled in per rank when the drill starts it:
 *
 *   {rank}            this process's index in workload.ranks (0-based)
 *   {size}            how many ranks the job has
 *   {node}            this rank's node
 *   {nodes}           the job's nodes, comma-separated, in rank order
 *   {addr:NODE:RAIL}  NODE's IPv4 address on rail RAIL
 *   {addrs:RAIL}      the job's nodes' addresses on rail RAIL, comma-separated
 *   {duration_s}      how long the job is to run, whole seconds (the drill's length)
 *   {bindir}          the folder of the rdmachaos programs (the coordinator's own; the lab's
 *                     guests see the same path): helpers shipped with rdmachaos, build/jobs/
 *   {{ and }}         a literal brace
 *
 * The same walk checks a template when the scenario is read (no values:
 * each node must be one of the drill's, each rail a number) and fills it in
 * at run time, so a template that passed the check cannot fail to expand but
 * for an address the fleet does not have.
 */
#ifndef RC_JOB_TEMPLATE_H
#define RC_JOB_TEMPLATE_H

#include <stddef.h>
#include <stdint.h>

#define JT_MAX_NODES 64

/* What a template is filled with; checking only when addr is NULL. */
struct jt_ctx {
	unsigned int rank, size;
	const char *node;
	const char *const *nodes; /* size of them */
	uint64_t duration_s;
	const char *bindir; /* NULL: "/usr/lib/rdmachaos" when checking */
	/* NODE's address on rail into buf; 0, or -ENOENT when it has none */
	int (*addr)(void *arg, const char *node, int rail, char *buf, size_t len);
	void *arg;
	/* checking: whether a node name is one of the drill's */
	int (*node_ok)(void *arg, const char *node);
};

/*
 * Expands tmpl into out (len bytes). 0, or -EINVAL with a sentence in err
 * ("{addr:node-x:0}: node-x is not a node of this drill"), -ENOENT for an
 * address the fleet lacks, -ENAMETOOLONG when out is too small.
 */
int jt_expand(const char *tmpl, const struct jt_ctx *ctx, char *out, size_t len, char *err,
	      size_t errlen);

#endif
