// SPDX-License-Identifier: MIT
/*
 * The job_path request (docs/PROTOCOL.md): the evidence, at one instant, of
 * which path a job this agent runs takes. Its processes (agents/agent_rdmapath.h:
 * its cgroup, else its process tree), the QPs they own with their state, their
 * TCP sockets towards the peers the coordinator names with the bytes each
 * carried, and the data counters of every RDMA port of the node. The
 * coordinator asks at the start and the end of the baseline and at the end,
 * and judges the differences; the agent judges nothing.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agents/agent.h"
#include "agents/agent_cgroup.h"
#include "agents/agent_rdmapath.h"
#include "common/shim_proto.h"
#include "common/units.h"

#define AGENT_JP_MAX_PEERS 64
#define AGENT_JP_MAX_PORTS 256
#define AGENT_JP_SYSFS "/sys/class/infiniband"

static const char *agent_jp_qp_type(int type)
{
	switch (type) {
	case 2:
		return "RC";
	case 3:
		return "UC";
	case 4:
		return "UD";
	case 8:
		return "RAW_PACKET";
	case 9:
		return "XRC_INI";
	case 10:
		return "XRC_TGT";
	default:
		return "other";
	}
}

static json_t *agent_jp_qps(const struct agent_rp_pids *pids, char *err, size_t errlen, int *ret)
{
	struct agent_rp_qp *qps = NULL;
	json_t *a = json_array();
	size_t i, n = 0;

	*ret = agent_rp_qps(pids, &qps, &n, err, errlen);
	for (i = 0; !*ret && a && i < n; i++)
		json_array_append_new(
		    a, json_pack("{s:s, s:i, s:i, s:s, s:s, s:i}", "device", qps[i].device, "port",
				 (int)qps[i].port, "lqpn", (int)qps[i].lqpn, "state",
				 shim_qp_state_name(qps[i].state), "type",
				 agent_jp_qp_type(qps[i].type), "pid", qps[i].pid));
	free(qps);
	return a;
}

static json_t *agent_jp_tcp(const struct agent_rp_pids *pids, const char *const *peers,
			    size_t n_peers, char *err, size_t errlen, int *ret)
{
	struct agent_rp_tcp *socks = NULL;
	json_t *a = json_array();
	size_t i, n = 0;

	*ret = agent_rp_tcp(pids, peers, n_peers, &socks, &n, err, errlen);
	for (i = 0; !*ret && a && i < n; i++)
		json_array_append_new(
		    a, json_pack("{s:s, s:s, s:I, s:I, s:i}", "local", socks[i].local, "remote",
				 socks[i].remote, "bytes_acked", (json_int_t)socks[i].bytes_acked,
				 "bytes_received", (json_int_t)socks[i].bytes_received, "pid",
				 socks[i].pid));
	free(socks);
	return a;
}

/* Every RDMA port of the node with its data counters (those that can be read). */
static json_t *agent_jp_ports(void)
{
	json_t *a = json_array();
	struct dirent *de, *pe;
	unsigned int count = 0;
	DIR *d = opendir(AGENT_JP_SYSFS);

	while (d && a && (de = readdir(d)) && count < AGENT_JP_MAX_PORTS) {
		char dir[512], err[256];
		DIR *pd;

		if (!agent_cgroup_name_ok(de->d_name))
			continue;
		snprintf(dir, sizeof(dir), "%s/%s/ports", AGENT_JP_SYSFS, de->d_name);
		pd = opendir(dir);
		while (pd && (pe = readdir(pd)) && count < AGENT_JP_MAX_PORTS) {
			struct agent_rp_port c;
			char *end;
			unsigned long port = strtoul(pe->d_name, &end, 10);
			json_t *o;

			if (*end || !port || port > 255 ||
			    agent_rp_port_counters(AGENT_JP_SYSFS, de->d_name, (unsigned int)port,
						   &c, err, sizeof(err)))
				continue;
			o = json_pack("{s:s, s:i}", "device", de->d_name, "port", (int)port);
			if (o && c.has_pkts) {
				json_object_set_new(o, "tx_pkts",
						    json_integer((json_int_t)c.tx_pkts));
				json_object_set_new(o, "rx_pkts",
						    json_integer((json_int_t)c.rx_pkts));
			}
			if (o && c.has_bytes) {
				json_object_set_new(o, "tx_bytes",
						    json_integer((json_int_t)c.tx_bytes));
				json_object_set_new(o, "rx_bytes",
						    json_integer((json_int_t)c.rx_bytes));
			}
			json_array_append_new(a, o);
			count++;
		}
		if (pd)
			closedir(pd);
	}
	if (d)
		closedir(d);
	return a;
}

int agent_op_job_path(struct agent *a, struct agent_client *cl, const struct agent_later *later,
		      const json_t *req, json_t **result, char *err, size_t errlen)
{
	const char *wl_id = json_string_value(json_object_get(req, "wl_id"));
	const char *tag = json_string_value(json_object_get(req, "tag"));
	const json_t *jpeers = json_object_get(req, "peers");
	const char *peers[AGENT_JP_MAX_PEERS];
	struct agent_rp_pids pids = {0};
	struct agent_wl_info info;
	char qerr[512] = "", terr[512] = "";
	json_t *qps, *tcp, *ports, *v;
	uint64_t t[5];
	size_t i, n_peers = 0;
	int ret, qret, tret;

	json_array_foreach(jpeers, i, v) {
		if (!json_is_string(v) || n_peers == AGENT_JP_MAX_PEERS) {
			snprintf(err, errlen,
				 "job_path: peers[%zu]: must be an address string (at most %d)", i,
				 AGENT_JP_MAX_PEERS);
			return -EINVAL;
		}
		peers[n_peers++] = json_string_value(v);
	}
	if (!wl_id && !tag) {
		snprintf(err, errlen,
			 "job_path: give wl_id (a workload this agent runs), tag (processes whose "
			 "environment holds " AGENT_RP_TAG_ENV "=TAG), or both");
		return -EINVAL;
	}
	if (wl_id && agent_workload_info(a, wl_id, &info)) {
		snprintf(err, errlen, "job_path: %s: no such workload on this node", wl_id);
		return -ENOENT;
	}
	if (wl_id && info.exited) {
		snprintf(err, errlen, "job_path: %s: pid %d has exited (nothing to look at)", wl_id,
			 info.pid);
		return -ESRCH;
	}
	t[0] = rc_now_ns();
	/* a tag finds what a launcher started as well as the launcher itself: it wins */
	ret = tag ? agent_rp_tagged_pids(tag, &pids, err, errlen)
		  : agent_rp_job_pids(info.pid, info.cgroup, &pids, err, errlen);
	if (ret)
		return ret;
	t[1] = rc_now_ns();
	qps = agent_jp_qps(&pids, qerr, sizeof(qerr), &qret);
	t[2] = rc_now_ns();
	tcp = agent_jp_tcp(&pids, peers, n_peers, terr, sizeof(terr), &tret);
	t[3] = rc_now_ns();
	ports = agent_jp_ports();
	t[4] = rc_now_ns();
	/* the agent's loop waits meanwhile: what it cost is said, part by part */
	rc_info(
	    "job_path %s: %zu pids in %.1f ms, QPs in %.1f ms, TCP in %.1f ms, ports in %.1f ms",
	    wl_id ?: tag, pids.n, (t[1] - t[0]) / 1e6, (t[2] - t[1]) / 1e6, (t[3] - t[2]) / 1e6,
	    (t[4] - t[3]) / 1e6);
	*result = json_pack("{s:s?, s:s?, s:i, s:b, s:o, s:o, s:o, s:f}", "wl_id", wl_id, "tag",
			    tag, "pids", (int)pids.n, "pids_truncated", pids.truncated, "qps", qps,
			    "tcp", tcp, "ports", ports, "took_ms", (t[4] - t[0]) / 1e6);
	/* what could not be looked at is said, not hidden: the coordinator calls it unchecked */
	if (*result && qret)
		json_object_set_new(*result, "qps_error", json_string(qerr));
	if (*result && tret)
		json_object_set_new(*result, "tcp_error", json_string(terr));
	agent_rp_pids_free(&pids);
	return *result ? 0 : -ENOMEM;
}
