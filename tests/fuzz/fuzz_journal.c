// SPDX-License-Identifier: MIT
/*
 * libFuzzer harness for the revert journal's records (agents/agent_journal.c), read as the agent
 * reads one at start-up: the file's bytes through json_loadb() (duplicate keys refused),
 * agent_journal_parse(), the check that a workload target names only what this agent makes
 * (agent_target_owned()), then the injector's restore() from the snapshot: everything a record
 * decides before revert acts. Nothing here touches the host (revert is not called).
 *
 * Besides the sanitizers it checks what a forged record must never get past restore: a fault
 * whose restored state names another object than its target (a file to write, a socket to talk
 * to, a netdev, a process), re-read through the injector's snapshot().
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agents/agent.h"
#include "agents/agent_journal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *fz_str(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

/* The restored fault's own account of what it will act on is its target's, or nothing. */
static void fz_check_owned(const struct inj_fault *f)
{
	const struct inj_target *t = &f->target;
	json_t *snap = f->inj->snapshot(f);
	const char *mech, *s;
	char want[sizeof(t->cgroup) + 16];

	if (!snap)
		return;
	mech = fz_str(snap, "mechanism");
	s = fz_str(snap, "rdma_max");
	snprintf(want, sizeof(want), "%s/rdma.max", t->cgroup);
	if (s && (!t->cgroup[0] || strcmp(s, want)))
		abort();
	s = fz_str(snap, "shim_sock");
	if (s && strcmp(s, t->shim_sock))
		abort();
	s = fz_str(snap, "sock");
	if (s && strcmp(s, t->shim_sock))
		abort();
	s = fz_str(snap, "netdev");
	if (s && strcmp(s, t->netdev))
		abort();
	if (json_object_get(snap, "ifindex") &&
	    json_integer_value(json_object_get(snap, "ifindex")) != t->ifindex)
		abort();
	if (mech && !strcmp(mech, "memlock") &&
	    json_integer_value(json_object_get(snap, "pid")) != t->pid)
		abort();
	json_decref(snap);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct agent_opts opts; /* defaults: the cgroup root and run dir the agent uses */
	struct agent_journal j;
	struct agent_journal_entry e;
	char err[512];
	json_t *rec;
	int ret;

	agent_journal_init(&j);
	snprintf(j.boot_id, sizeof(j.boot_id), "0f5b1e6a-3c1d-4e8f-9a2b-5c6d7e8f9a0b");
	rec = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, NULL);
	if (!rec)
		return 0;
	memset(&e, 0, sizeof(e));
	ret = agent_journal_parse(&j, rec, &e, err, sizeof(err));
	if (ret) {
		if (ret != -EINVAL || !err[0])
			abort(); /* a refusal is EINVAL with a sentence */
		goto out;
	}
	if (!e.f.inj || !e.f.params || !json_is_object(e.snapshot) || !e.f.id[0] ||
	    strlen(e.f.target.cgroup) >= sizeof(e.f.target.cgroup))
		abort();
	/* As the replay does: the ifindex is the agent's to find, the target's objects its own. */
	e.f.target.ifindex = 0;
	if (agent_target_owned(&opts, &e.f.target, err, sizeof(err))) {
		if (!err[0])
			abort();
		goto out;
	}
	e.f.err[0] = '\0';
	ret = e.f.inj->restore(&e.f, e.snapshot);
	if (ret) {
		if (ret > 0 || e.f.priv)
			abort(); /* a refused snapshot leaves no state behind */
		goto out;
	}
	fz_check_owned(&e.f);
	if (e.f.inj->cleanup)
		e.f.inj->cleanup(&e.f);
out:
	agent_journal_entry_fini(&e);
	json_decref(rec);
	return 0;
}
