// SPDX-License-Identifier: MIT
/*
 * The inventory request: kernel, rdma-core version, RDMA devices with their
 * ports and GIDs (verbs plus sysfs), and netdevs with addresses (rtnetlink)
 * and their NIC pause counters and PFC storm prevention ("pfc", ethtool).
 * A node without RDMA devices answers an empty device list, not an error.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <infiniband/verbs.h>
#include <netlink/netlink.h>
#include <netlink/route/addr.h>
#include <netlink/route/link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "agents/agent.h"
#include "agents/agent_ethtool.h"

void agent_rdma_core_version(const char *dpkg_status, char *buf, size_t len)
{
	FILE *f = fopen(dpkg_status, "re");
	char line[512];
	bool in_pkg = false;

	snprintf(buf, len, "unknown");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\r\n")] = '\0';
		if (!line[0]) {
			in_pkg = false;
		} else if (!strncmp(line, "Package: ", 9)) {
			in_pkg = !strcmp(line + 9, "libibverbs1");
		} else if (in_pkg && !strncmp(line, "Version: ", 9)) {
			char *v = line + 9, *colon = strchr(v, ':'), *dash;

			if (colon) /* epoch */
				v = colon + 1;
			dash = strrchr(v, '-'); /* Debian revision */
			if (dash)
				*dash = '\0';
			snprintf(buf, len, "%s", v);
			break;
		}
	}
	fclose(f);
}

static int agent_mtu_bytes(enum ibv_mtu mtu)
{
	return mtu >= IBV_MTU_256 && mtu <= IBV_MTU_4096 ? 128 << mtu : 0;
}

static const char *agent_link_layer_name(uint8_t ll)
{
	switch (ll) {
	case IBV_LINK_LAYER_INFINIBAND:
		return "InfiniBand";
	case IBV_LINK_LAYER_ETHERNET:
		return "Ethernet";
	default:
		return "unspecified";
	}
}

static const char *agent_transport_name(enum ibv_transport_type t)
{
	switch (t) {
	case IBV_TRANSPORT_IB:
		return "InfiniBand";
	case IBV_TRANSPORT_IWARP:
		return "iWARP";
	case IBV_TRANSPORT_USNIC:
		return "usNIC";
	case IBV_TRANSPORT_USNIC_UDP:
		return "usNIC UDP";
	case IBV_TRANSPORT_UNSPECIFIED:
		return "unspecified";
	default:
		return "unknown";
	}
}

static json_t *agent_inv_gids(struct ibv_context *ctx, const char *dev, int port, int tbl_len)
{
	static const uint8_t zero[16];
	json_t *gids = json_array();
	int idx;

	for (idx = 0; gids && idx < tbl_len; idx++) {
		char addr[INET6_ADDRSTRLEN], path[512], type[32];
		union ibv_gid gid;

		if (ibv_query_gid(ctx, (uint8_t)port, idx, &gid) || !memcmp(gid.raw, zero, 16))
			continue;
		inet_ntop(AF_INET6, gid.raw, addr, sizeof(addr));
		snprintf(path, sizeof(path), "%s/class/infiniband/%s/ports/%d/gid_attrs/types/%d",
			 rc_sysfs_root, dev, port, idx);
		if (rc_sysfs_read(path, type, sizeof(type)))
			snprintf(type, sizeof(type), "unknown");
		json_array_append_new(
		    gids, json_pack("{s:i, s:s, s:s}", "index", idx, "gid", addr, "type", type));
	}
	return gids;
}

static json_t *agent_inv_port(struct ibv_context *ctx, const char *dev, int port)
{
	struct ibv_port_attr pa;
	char netdev[IF_NAMESIZE], path[512];
	uint64_t mtu;
	json_t *o;
	int ret;

	ret = ibv_query_port(ctx, (uint8_t)port, &pa);
	if (ret)
		return json_pack("{s:i, s:s}", "port", port, "error", strerror(ret));
	o = json_pack(
	    "{s:i, s:s, s:s, s:s, s:i}", "port", port, "state", agent_port_state_name(pa.state),
	    "phys_state", agent_phys_state_name(pa.phys_state), "link_layer",
	    agent_link_layer_name(pa.link_layer), "active_mtu", agent_mtu_bytes(pa.active_mtu));
	if (!o)
		return NULL;
	if (!rc_ib_port_netdev(dev, port, netdev, sizeof(netdev))) {
		json_object_set_new(o, "netdev", json_string(netdev));
		snprintf(path, sizeof(path), "%s/class/net/%s/mtu", rc_sysfs_root, netdev);
		if (!rc_sysfs_u64(path, &mtu))
			json_object_set_new(o, "netdev_mtu", json_integer((json_int_t)mtu));
	}
	json_object_set_new(o, "gids", agent_inv_gids(ctx, dev, port, pa.gid_tbl_len));
	return o;
}

static json_t *agent_inv_device(struct ibv_device *d)
{
	const char *name = ibv_get_device_name(d);
	struct ibv_device_attr attr;
	struct ibv_context *ctx;
	char guid[32];
	uint64_t g;
	json_t *o, *ports;
	int p, ret;

	ctx = ibv_open_device(d);
	if (!ctx)
		return json_pack("{s:s, s:s}", "name", name, "error", strerror(errno));
	ret = ibv_query_device(ctx, &attr);
	if (ret) {
		ibv_close_device(ctx);
		return json_pack("{s:s, s:s}", "name", name, "error", strerror(ret));
	}
	g = be64toh(attr.node_guid);
	snprintf(guid, sizeof(guid), "%04x:%04x:%04x:%04x", (unsigned int)(g >> 48) & 0xffff,
		 (unsigned int)(g >> 32) & 0xffff, (unsigned int)(g >> 16) & 0xffff,
		 (unsigned int)g & 0xffff);
	ports = json_array();
	for (p = 1; ports && p <= attr.phys_port_cnt; p++)
		json_array_append_new(ports, agent_inv_port(ctx, name, p));
	o = json_pack("{s:s, s:s, s:s, s:s, s:o}", "name", name, "fw_ver", attr.fw_ver, "node_guid",
		      guid, "transport", agent_transport_name(d->transport_type), "ports",
		      ports ? ports : json_array());
	ibv_close_device(ctx);
	return o;
}

static json_t *agent_inv_devices(void)
{
	struct ibv_device **list;
	json_t *devs = json_array();
	int i, n = 0;

	list = ibv_get_device_list(&n);
	if (!list) /* no RDMA at all on this kernel (ENOSYS): an empty inventory */
		return devs;
	for (i = 0; devs && i < n; i++)
		json_array_append_new(devs, agent_inv_device(list[i]));
	ibv_free_device_list(list);
	return devs;
}

static void agent_inv_addr(struct nl_object *obj, void *arg)
{
	struct rtnl_addr *addr = (struct rtnl_addr *)obj;
	json_t *by_index = arg;
	struct nl_addr *local = rtnl_addr_get_local(addr);
	char key[16], text[INET6_ADDRSTRLEN + 8];
	json_t *list;

	if (!local ||
	    (nl_addr_get_family(local) != AF_INET && nl_addr_get_family(local) != AF_INET6))
		return;
	if (!inet_ntop(nl_addr_get_family(local), nl_addr_get_binary_addr(local), text,
		       INET6_ADDRSTRLEN))
		return;
	snprintf(text + strlen(text), sizeof(text) - strlen(text), "/%d",
		 rtnl_addr_get_prefixlen(addr));
	snprintf(key, sizeof(key), "%d", rtnl_addr_get_ifindex(addr));
	list = json_object_get(by_index, key);
	if (!list) {
		list = json_array();
		json_object_set_new(by_index, key, list);
	}
	json_array_append_new(list, json_string(text));
}

struct agent_inv_ctx {
	const struct agent_opts *opts;
	json_t *addrs; /* ifindex (as a string) -> ["192.0.2.1/24", ...] */
	json_t *out;
	int eth_fd; /* SIOCETHTOOL; -errno if none */
};

static void agent_inv_link(struct nl_object *obj, void *arg)
{
	struct rtnl_link *link = (struct rtnl_link *)obj;
	struct agent_inv_ctx *c = arg;
	const char *name = rtnl_link_get_name(link);
	unsigned int flags = rtnl_link_get_flags(link);
	char key[16], oper[32];
	json_t *o, *addrs;
	int rail;

	if (!name)
		return;
	snprintf(key, sizeof(key), "%d", rtnl_link_get_ifindex(link));
	addrs = json_object_get(c->addrs, key);
	rtnl_link_operstate2str(rtnl_link_get_operstate(link), oper, sizeof(oper));
	o = json_pack("{s:s, s:i, s:b, s:b, s:s, s:i, s:o}", "name", name, "ifindex",
		      rtnl_link_get_ifindex(link), "up", !!(flags & IFF_UP), "carrier",
		      !!rtnl_link_get_carrier(link), "oper", oper, "mtu",
		      (int)rtnl_link_get_mtu(link), "addrs",
		      addrs ? json_incref(addrs) : json_array());
	rail = agent_rail_of(c->opts, name);
	if (o && rail >= 0)
		json_object_set_new(o, "rail", json_integer(rail));
	if (o)
		json_object_set_new(o, "pfc", agent_ethtool_inventory(c->eth_fd, name));
	json_array_append_new(c->out, o);
}

static int agent_inv_netdevs(const struct agent_opts *opts, json_t **out, char *err, size_t errlen)
{
	struct nl_cache *links = NULL, *addrs = NULL;
	struct agent_inv_ctx c = {.opts = opts};
	struct nl_sock *sk;
	int ret;

	sk = nl_socket_alloc();
	if (!sk)
		return -ENOMEM;
	ret = nl_connect(sk, NETLINK_ROUTE);
	if (!ret)
		ret = rtnl_link_alloc_cache(sk, AF_UNSPEC, &links);
	if (!ret)
		ret = rtnl_addr_alloc_cache(sk, &addrs);
	if (ret) {
		snprintf(err, errlen, "inventory: rtnetlink: %s", nl_geterror(ret));
		ret = -EIO;
		goto out;
	}
	c.addrs = json_object();
	c.out = json_array();
	if (!c.addrs || !c.out) {
		ret = -ENOMEM;
		goto out;
	}
	nl_cache_foreach(addrs, agent_inv_addr, c.addrs);
	c.eth_fd = agent_ethtool_socket();
	nl_cache_foreach(links, agent_inv_link, &c);
	if (c.eth_fd >= 0)
		close(c.eth_fd);
	*out = c.out;
	c.out = NULL;
out:
	json_decref(c.addrs);
	json_decref(c.out);
	nl_cache_free(addrs);
	nl_cache_free(links);
	nl_socket_free(sk);
	return ret;
}

int agent_op_inventory(struct agent *a, struct agent_client *cl, const struct agent_later *later,
		       const json_t *req, json_t **result, char *err, size_t errlen)
{
	char rdma_core[64];
	struct utsname u;
	json_t *netdevs = NULL;
	int ret;

	ret = agent_inv_netdevs(&a->opts, &netdevs, err, errlen);
	if (ret)
		return ret;
	uname(&u);
	agent_rdma_core_version("/var/lib/dpkg/status", rdma_core, sizeof(rdma_core));
	*result = json_pack("{s:s, s:s, s:s, s:s, s:o, s:o}", "node", a->opts.name, "kernel",
			    u.release, "rdma_core", rdma_core, "agent_version", RC_VERSION,
			    "devices", agent_inv_devices(), "netdevs", netdevs);
	return *result ? 0 : -ENOMEM;
}
