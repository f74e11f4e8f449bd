// SPDX-License-Identifier: MIT
/*
 * The RDMA counter sampler: every interval it reads each port's
 * counters/ and hw_counters/ files under /sys/class/infiniband and emits one
 * `counter` event per counter that moved since the last sample. The first
 * sighting of a counter only records its value. At the same cadence it reads
 * the rail netdevs' NIC pause counters (ethtool; `pfc` events, see
 * agents/agent_ethtool.h). The metrics read every counter afresh at each
 * scrape (agent_counters_read), apart from the sampler and its events.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agents/agent.h"
#include "agents/agent_ethtool.h"
#include "agents/agent_metrics.h"
#include "common/units.h"

struct agent_counter {
	char device[64];
	int port;
	char group[16]; /* "counters" or "hw_counters" */
	char name[64];
	uint64_t value;
	bool seen; /* in the current sample */
};

struct agent_counters {
	struct agent *a;
	struct agent_timer timer;
	uint64_t interval_ms;
	struct agent_counter *c;
	size_t n, cap;
	struct agent_ethtool_poll *eth; /* NIC pause counters; NULL if they cannot be read */
};

static struct agent_counter *agent_counter_find(struct agent_counters *cs, const char *device,
						int port, const char *group, const char *name)
{
	size_t i;

	for (i = 0; i < cs->n; i++) {
		struct agent_counter *c = &cs->c[i];

		if (c->port == port && !strcmp(c->name, name) && !strcmp(c->group, group) &&
		    !strcmp(c->device, device))
			return c;
	}
	return NULL;
}

static struct agent_counter *agent_counter_add(struct agent_counters *cs)
{
	if (cs->n == cs->cap) {
		size_t cap = cs->cap ? 2 * cs->cap : 64;
		struct agent_counter *n = realloc(cs->c, cap * sizeof(*n));

		if (!n)
			return NULL;
		cs->c = n;
		cs->cap = cap;
	}
	memset(&cs->c[cs->n], 0, sizeof(cs->c[0]));
	return &cs->c[cs->n++];
}

static void agent_counters_group(struct agent_counters *cs, const char *device, int port,
				 const char *group)
{
	char dir[512], path[800];
	struct dirent *e;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/class/infiniband/%s/ports/%d/%s", rc_sysfs_root, device,
		 port, group);
	d = opendir(dir);
	if (!d)
		return;
	while ((e = readdir(d))) {
		struct agent_counter *c;
		uint64_t v;

		if (e->d_name[0] == '.' || strlen(e->d_name) >= sizeof(c->name))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (rc_sysfs_u64(path, &v))
			continue; /* not a counter (lifespan is writable, some read EINVAL) */
		c = agent_counter_find(cs, device, port, group, e->d_name);
		if (!c) {
			c = agent_counter_add(cs);
			if (!c)
				break;
			snprintf(c->device, sizeof(c->device), "%s", device);
			c->port = port;
			snprintf(c->group, sizeof(c->group), "%s", group);
			memcpy(c->name, e->d_name,
			       strlen(e->d_name) + 1); /* length checked above */
			c->value = v;
		} else if (v != c->value) {
			agent_emit(cs->a, "counter",
				   json_pack("{s:s, s:i, s:s, s:s, s:I, s:I}", "device", device,
					     "port", port, "group", group, "name", e->d_name,
					     "delta", (json_int_t)(v - c->value), "value",
					     (json_int_t)v));
			c->value = v;
		}
		c->seen = true;
	}
	closedir(d);
}

/* One sample of every port of every device; counters that vanished are forgotten. */
static void agent_counters_sample(struct agent_counters *cs)
{
	char dir[512];
	struct dirent *e, *pe;
	DIR *d, *pd;
	size_t i;

	for (i = 0; i < cs->n; i++)
		cs->c[i].seen = false;
	snprintf(dir, sizeof(dir), "%s/class/infiniband", rc_sysfs_root);
	d = opendir(dir);
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(dir, sizeof(dir), "%s/class/infiniband/%s/ports", rc_sysfs_root,
			 e->d_name);
		pd = opendir(dir);
		while (pd && (pe = readdir(pd))) {
			int port = atoi(pe->d_name);

			if (port <= 0)
				continue;
			agent_counters_group(cs, e->d_name, port, "counters");
			agent_counters_group(cs, e->d_name, port, "hw_counters");
		}
		if (pd)
			closedir(pd);
	}
	if (d)
		closedir(d);
	for (i = 0; i < cs->n;) {
		if (cs->c[i].seen)
			i++;
		else
			cs->c[i] = cs->c[--cs->n];
	}
}

int agent_counters_read(struct agent *a, struct agent_rdma_counter **out, size_t *n)
{
	/* A sampler of its own: every counter is a first sighting, so nothing is emitted. */
	struct agent_counters tmp = {.a = a};
	size_t i;

	*out = NULL;
	*n = 0;
	agent_counters_sample(&tmp);
	if (!tmp.n)
		goto out;
	*out = calloc(tmp.n, sizeof(**out));
	if (!*out) {
		free(tmp.c);
		return -ENOMEM;
	}
	for (i = 0; i < tmp.n; i++) {
		struct agent_rdma_counter *r = &(*out)[i];

		memcpy(r->device, tmp.c[i].device, sizeof(r->device));
		r->port = tmp.c[i].port;
		memcpy(r->group, tmp.c[i].group, sizeof(r->group));
		memcpy(r->name, tmp.c[i].name, sizeof(r->name));
		r->value = tmp.c[i].value;
	}
	*n = tmp.n;
out:
	free(tmp.c);
	return 0;
}

static void agent_counters_pfc_emit(void *ctx, json_t *fields)
{
	agent_emit(ctx, "pfc", fields);
}

static void agent_counters_fire(struct agent_timer *t)
{
	struct agent_counters *cs = agent_container_of(t, struct agent_counters, timer);

	agent_counters_sample(cs);
	agent_ethtool_poll_sample(cs->eth);
	if (cs->interval_ms)
		agent_timer_set(&cs->a->loop, &cs->timer,
				rc_now_ns() + cs->interval_ms * RC_NSEC_PER_MSEC);
}

int agent_counters_set_interval(struct agent *a, uint64_t interval_ms)
{
	struct agent_counters *cs = a->counters;

	if (!cs) {
		if (!interval_ms)
			return 0;
		cs = calloc(1, sizeof(*cs));
		if (!cs)
			return -ENOMEM;
		cs->a = a;
		cs->timer.fire = agent_counters_fire;
		agent_list_init(&cs->timer.node);
		a->counters = cs;
		agent_counters_sample(cs); /* the baseline: no events */
		cs->eth = agent_ethtool_poll_new(agent_counters_pfc_emit, a);
	}
	cs->interval_ms = interval_ms;
	if (interval_ms) {
		/* Each subscribe adds (and baselines) the rail netdevs that appeared since. */
		agent_ethtool_poll_rails(cs->eth, &a->opts);
		agent_timer_set(&a->loop, &cs->timer, rc_now_ns() + interval_ms * RC_NSEC_PER_MSEC);
	} else {
		agent_timer_cancel(&cs->timer);
	}
	return 0;
}

void agent_counters_stop(struct agent *a)
{
	struct agent_counters *cs = a->counters;

	if (!cs)
		return;
	agent_timer_cancel(&cs->timer);
	agent_ethtool_poll_free(cs->eth);
	free(cs->c);
	free(cs);
	a->counters = NULL;
}
