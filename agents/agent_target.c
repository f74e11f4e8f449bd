// SPDX-License-Identifier: MIT
/*
 * A request's target ({"netdev"}, {"device","port"} or {"rail"}) to the
 * netdev an injector acts on, a workload target ({"workload": WL_ID},
 * optionally with "rail") to the process the agent started under that name
 * (pid, cgroup, shim socket), and the rail map (--rail-map, or railN).
 * Existence of the netdev is the caller's check, after the policy's.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agents/agent.h"
#include "agents/agent_cgroup.h"
#include "common/errbuf.h"
#include "common/netif.h"

int agent_rail_of(const struct agent_opts *o, const char *netdev)
{
	unsigned int i;
	char *end;
	long n;

	for (i = 0; i < o->nr_rails; i++)
		if (!strcmp(o->rails[i], netdev))
			return (int)i;
	if (o->nr_rails || strncmp(netdev, "rail", 4) || !netdev[4])
		return -1;
	n = strtol(netdev + 4, &end, 10);
	if (*end || n < 0 || n >= AGENT_MAX_RAILS || netdev[4] == '-' || netdev[4] == '+' ||
	    (netdev[4] == '0' && netdev[5]))
		return -1;
	return (int)n;
}

static int agent_target_netdev(const char *who, const json_t *v, struct inj_target *t, char *err,
			       size_t errlen)
{
	const char *name = json_string_value(v);

	if (!name || !name[0] || strlen(name) >= IF_NAMESIZE || strchr(name, '/'))
		return errbuf_fail(err, errlen, -EINVAL,
				   "%s: target.netdev: must be an interface name of 1..%d "
				   "characters",
				   who, IF_NAMESIZE - 1);
	strcpy(t->netdev, name);
	return 0;
}

static int agent_target_device(const char *who, const json_t *target, struct inj_target *t,
			       char *err, size_t errlen)
{
	const char *dev = json_string_value(json_object_get(target, "device"));
	const json_t *port = json_object_get(target, "port");

	if (!dev || !dev[0] || strlen(dev) >= sizeof(t->device) || strchr(dev, '/'))
		return errbuf_fail(err, errlen, -EINVAL,
				   "%s: target.device: must be an RDMA device name of 1..%zu "
				   "characters",
				   who, sizeof(t->device) - 1);
	if (port && (!json_is_integer(port) || json_integer_value(port) < 1 ||
		     json_integer_value(port) > 255))
		return errbuf_fail(err, errlen, -EINVAL,
				   "%s: target.port: must be an integer in 1..255", who);
	strcpy(t->device, dev);
	t->port = port ? (int)json_integer_value(port) : 1;
	if (rc_ib_port_netdev(t->device, t->port, t->netdev, sizeof(t->netdev)))
		return errbuf_fail(err, errlen, -ENODEV,
				   "%s: %s port %d: no such RDMA port with a netdev on this "
				   "node",
				   who, t->device, t->port);
	return 0;
}

static int agent_target_rail(const struct agent_opts *o, const char *who, const json_t *v,
			     struct inj_target *t, char *err, size_t errlen)
{
	json_int_t rail = json_integer_value(v);

	if (!json_is_integer(v) || rail < 0 || rail >= AGENT_MAX_RAILS)
		return errbuf_fail(err, errlen, -EINVAL,
				   "%s: target.rail: must be an integer in 0..%d", who,
				   AGENT_MAX_RAILS - 1);
	if (o->nr_rails && rail >= o->nr_rails)
		return errbuf_fail(err, errlen, -ENODEV,
				   "%s: rail %lld: not in this agent's --rail-map (rails 0..%u)",
				   who, (long long)rail, o->nr_rails - 1);
	if (o->nr_rails)
		strcpy(t->netdev, o->rails[rail]);
	else
		snprintf(t->netdev, sizeof(t->netdev), "rail%lld", (long long)rail);
	t->rail = (int)rail;
	return 0;
}

/*
 * Names t's netdev by identity: its ifindex, and its primary name when it was given by an
 * altname (ip link property add dev rail0 altname r0), so that the policy and the one fault
 * per netdev rule see one netdev under one name. A name that resolves to nothing stays as
 * given (ifindex 0): the policy still judges it, and the inject then fails (ENODEV).
 */
static void agent_target_identify(struct inj_target *t)
{
	char name[IF_NAMESIZE];
	unsigned int idx = rc_if_nametoindex(t->netdev);

	if (!idx || !rc_if_indextoname(idx, name))
		return;
	t->ifindex = (int)idx;
	strcpy(t->netdev, name);
}

/* Parses target into t; workload targets only when `workloads` (their process is the caller's). */
static int agent_target_parse(const struct agent_opts *o, const char *who, const json_t *target,
			      bool workloads, struct inj_target *t, char *err, size_t errlen)
{
	const json_t *netdev = json_object_get(target, "netdev");
	const json_t *device = json_object_get(target, "device");
	const json_t *rail = json_object_get(target, "rail");
	const json_t *wl = workloads ? json_object_get(target, "workload") : NULL;
	const char *forms = workloads ? "{\"netdev\"}, {\"device\", \"port\"}, {\"rail\"} or "
					"{\"workload\"[, \"rail\"]}"
				      : "{\"netdev\"}, {\"device\", \"port\"} or {\"rail\"}";
	const char *key;
	json_t *v;
	int ret;

	memset(t, 0, sizeof(*t));
	t->rail = -1;
	json_object_foreach((json_t *)target, key, v) {
		if (strcmp(key, "netdev") && strcmp(key, "device") && strcmp(key, "port") &&
		    strcmp(key, "rail") && (!workloads || strcmp(key, "workload")))
			return errbuf_fail(err, errlen, -EINVAL,
					   "%s: target.%s: unknown key (a target is %s)", who, key,
					   forms);
	}
	if (wl) {
		const char *id = json_string_value(wl);

		if (netdev || device || json_object_get(target, "port"))
			return errbuf_fail(err, errlen, -EINVAL,
					   "%s: target: a workload target is {\"workload\": "
					   "WL_ID}, or with a netdev {\"workload\": WL_ID, "
					   "\"rail\": N}",
					   who);
		if (!id || !id[0] || strlen(id) >= sizeof(t->workload) ||
		    strlen(id) != json_string_length(wl))
			return errbuf_fail(err, errlen, -EINVAL,
					   "%s: target.workload: must be a wl_id of 1..%zu "
					   "characters",
					   who, sizeof(t->workload) - 1);
		strcpy(t->workload, id);
		if (!rail)
			return 0;
		ret = agent_target_rail(o, who, rail, t, err, errlen);
		if (!ret)
			agent_target_identify(t);
		if (!ret)
			rc_ib_device_of(t->netdev, t->device, sizeof(t->device), &t->port);
		return ret;
	}
	if (!!netdev + !!device + !!rail != 1 || (json_object_get(target, "port") && !device))
		return errbuf_fail(err, errlen, -EINVAL,
				   "%s: target: give exactly one of {\"netdev\": NAME}, "
				   "{\"device\": NAME, \"port\": N} or {\"rail\": N}%s",
				   who, workloads ? " (or {\"workload\": WL_ID})" : "");
	if (netdev)
		ret = agent_target_netdev(who, netdev, t, err, errlen);
	else if (device)
		ret = agent_target_device(who, target, t, err, errlen);
	else
		ret = agent_target_rail(o, who, rail, t, err, errlen);
	if (ret)
		return ret;
	if (t->rail < 0)
		t->rail = agent_rail_of(o, t->netdev);
	agent_target_identify(t);
	if (t->rail < 0)
		t->rail = agent_rail_of(o, t->netdev);
	if (!t->device[0])
		rc_ib_device_of(t->netdev, t->device, sizeof(t->device), &t->port);
	return 0;
}

int agent_target_resolve(const struct agent_opts *o, const char *who, const json_t *target,
			 struct inj_target *t, char *err, size_t errlen)
{
	return agent_target_parse(o, who, target, false, t, err, errlen);
}

/*
 * Only the workloads on a->workloads can be found, so a workload target is
 * by construction a process this agent started (policy rule 3's workload
 * half, see agents/agent_policy.h): a pid cannot be named directly.
 */
int agent_target_lookup(struct agent *a, const char *who, const json_t *target,
			struct inj_target *t, char *err, size_t errlen)
{
	struct agent_wl_info info;
	int ret;

	ret = agent_target_parse(&a->opts, who, target, true, t, err, errlen);
	if (ret || !t->workload[0])
		return ret;
	if (agent_workload_info(a, t->workload, &info))
		return errbuf_fail(err, errlen, -ESRCH,
				   "%s: workload %s: not running on this node (start it "
				   "with workload_start first)",
				   who, t->workload);
	if (info.exited || info.pid <= 0)
		return errbuf_fail(err, errlen, -ESRCH,
				   "%s: workload %s: pid %d has exited; nothing to fault", who,
				   t->workload, info.pid);
	t->pid = info.pid;
	snprintf(t->cgroup, sizeof(t->cgroup), "%s", info.cgroup);
	snprintf(t->shim_sock, sizeof(t->shim_sock), "%s", info.shim_sock);
	return 0;
}

/* Whether path is PREFIX NAME SUFFIX with NAME a workload id (agent_cgroup_name_ok). */
static bool agent_target_in(const char *path, const char *prefix, const char *suffix)
{
	size_t np = strlen(prefix), ns = strlen(suffix), n = strlen(path);
	char name[64];

	if (n <= np + ns || n - np - ns >= sizeof(name) || strncmp(path, prefix, np) ||
	    strcmp(path + n - ns, suffix))
		return false;
	memcpy(name, path + np, n - np - ns);
	name[n - np - ns] = '\0';
	return agent_cgroup_name_ok(name);
}

int agent_target_owned(const struct agent_opts *o, const struct inj_target *t, char *err,
		       size_t errlen)
{
	const char *root = o->cgroup_root[0] ? o->cgroup_root : AGENT_CGROUP_ROOT_DEFAULT;
	const char *run = o->run_dir[0] ? o->run_dir : AGENT_RUN_DIR_DEFAULT;
	char prefix[sizeof(o->run_dir) + 16];

	snprintf(prefix, sizeof(prefix), "%s/", root);
	if (t->cgroup[0] && !agent_target_in(t->cgroup, prefix, ""))
		return errbuf_fail(err, errlen, -EPERM,
				   "workload %s: cgroup %s is not one this agent makes "
				   "(%s/WL_ID)",
				   t->workload, t->cgroup, root);
	snprintf(prefix, sizeof(prefix), "%s/shim/", run);
	if (t->shim_sock[0] && !agent_target_in(t->shim_sock, prefix, ".sock"))
		return errbuf_fail(err, errlen, -EPERM,
				   "workload %s: shim socket %s is not one this agent makes "
				   "(%s/shim/WL_ID.sock)",
				   t->workload, t->shim_sock, run);
	return 0;
}
