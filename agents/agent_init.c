// SPDX-License-Identifier: MIT
/* The agent's initial state, before it takes any system resource (shared by main and tests). */
#include <string.h>

#include "agents/agent.h"

void agent_init(struct agent *a, const struct agent_opts *o)
{
	unsigned int i;

	/*
	 * main parses the flags into its zeroed static agent's own opts and passes them: nothing
	 * is cleared or copied then, so that the pages of the tables nobody fills (most of its
	 * 80 KiB) are never touched, and stay out of the agent's RSS (issue 17: under 8 MiB).
	 */
	if (o != &a->opts) {
		memset(a, 0, sizeof(*a));
		a->opts = *o;
	}
	agent_list_init(&a->clients);
	agent_list_init(&a->faults);
	agent_list_init(&a->workloads);
	a->listen_fd = -1;
	a->reserve_fd = -1;
	a->sig_fd = -1;
	agent_audit_init(&a->audit);
	agent_journal_init(&a->journal);
	a->sink = (struct agent_sink){agent_server_emit, a, agent_server_hold, agent_server_answer};
	for (i = 0; i < o->nr_allow; i++)
		strcpy(a->policy.allow[i], o->allow[i]);
	a->policy.nr_allow = o->nr_allow;
	memcpy(a->policy.jobs, o->jobs, o->nr_jobs * sizeof(o->jobs[0]));
	a->policy.nr_jobs = o->nr_jobs;
	strcpy(a->policy.control_if, o->control_if);
}
