// SPDX-License-Identifier: MIT
/*
 * The peer run of make bench-fleet's fan-out: the same link changes without rdmachaos. One
 * process takes the rail of every bench namespace down, one after another, then up again, with
 * libnl's RTM_NEWLINK as the agent's link_down does, while the agents (each a link listener in
 * its namespace) look on. It prints one JSON line: for the downs and the ups, the time from the
 * first request to each link's change done, p50 / p99 / max, and the total. What the fan-out
 * takes beyond it is rdmachaos's: the coordinator, TLS, the agents' own work.
 *
 *   bench-fleet-peer NETNS_PREFIX COUNT IFNAME_PREFIX     e.g. rcbench-123- 1000 fb
 *
 * Namespace k is /run/netns/NETNS_PREFIXk and its rail IFNAME_PREFIXk. Exit 0, or 1 with
 * a line on stderr naming the namespace and what failed; every link taken down is brought up.
 */
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netlink/netlink.h>
#include <netlink/route/link.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define FP_MAX 100000

struct fp_link {
	struct nl_sock *sk; /* opened in the link's namespace: it stays there */
	int ifindex;
};

static double fp_now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int fp_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The percentiles as rdmachaos fleet bench takes them (cmd_fleet_bench.c, fb_stats). */
static double fp_p50(const double *sorted, int n)
{
	return sorted[(n - 1) / 2];
}

static double fp_p99(const double *sorted, int n)
{
	return sorted[(size_t)((double)(n - 1) * 0.99 + 0.5)];
}

static int fp_open(struct fp_link *l, const char *prefix, int k, const char *ifprefix)
{
	char path[512], ifname[IF_NAMESIZE + 16];
	int fd, ret;

	snprintf(path, sizeof(path), "/run/netns/%s%d", prefix, k);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || setns(fd, CLONE_NEWNET)) {
		fprintf(stderr, "bench-fleet-peer: %s: %s\n", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	l->sk = nl_socket_alloc();
	if (!l->sk || (ret = nl_connect(l->sk, NETLINK_ROUTE)) < 0) {
		fprintf(stderr, "bench-fleet-peer: %s: netlink: %s\n", path,
			l->sk ? nl_geterror(ret) : "out of memory");
		return -1;
	}
	snprintf(ifname, sizeof(ifname), "%s%d", ifprefix, k);
	l->ifindex = (int)if_nametoindex(ifname);
	if (!l->ifindex) {
		fprintf(stderr, "bench-fleet-peer: %s: %s: %s\n", path, ifname, strerror(errno));
		return -1;
	}
	return 0;
}

static int fp_set(const struct fp_link *l, bool up)
{
	struct rtnl_link *old = rtnl_link_alloc(), *change = rtnl_link_alloc();
	int ret = -NLE_NOMEM;

	if (old && change) {
		rtnl_link_set_ifindex(old, l->ifindex);
		if (up)
			rtnl_link_set_flags(change, IFF_UP);
		else
			rtnl_link_unset_flags(change, IFF_UP);
		ret = rtnl_link_change(l->sk, old, change, 0);
	}
	rtnl_link_put(old);
	rtnl_link_put(change);
	return ret;
}

/* Every link down (up), one after another; done[k] is link k's time from the start. */
static int fp_round(struct fp_link *links, int n, bool up, double *done, double *total)
{
	double t0 = fp_now_ms();
	int k, ret;

	for (k = 0; k < n; k++) {
		ret = fp_set(&links[k], up);
		if (ret < 0) {
			fprintf(stderr, "bench-fleet-peer: link %d (ifindex %d) %s: %s\n", k,
				links[k].ifindex, up ? "up" : "down", nl_geterror(ret));
			return -1;
		}
		done[k] = fp_now_ms() - t0;
	}
	*total = fp_now_ms() - t0;
	qsort(done, (size_t)n, sizeof(*done), fp_cmp);
	return 0;
}

static void fp_print(const char *name, const double *sorted, int n, double total, bool last)
{
	printf(
	    "\"%s\": {\"p50_ms\": %.3f, \"p99_ms\": %.3f, \"max_ms\": %.3f, \"total_ms\": %.3f}%s",
	    name, fp_p50(sorted, n), fp_p99(sorted, n), sorted[n - 1], total, last ? "" : ", ");
}

int main(int argc, char **argv)
{
	struct fp_link *links;
	double *down, *up, t_down, t_up;
	int n, k, ret = 1;

	if (argc != 4 || (n = atoi(argv[2])) < 1 || n > FP_MAX || strlen(argv[3]) > 8) {
		fprintf(stderr, "usage: bench-fleet-peer NETNS_PREFIX COUNT(1..%d) IFNAME_PREFIX\n",
			FP_MAX);
		return 64;
	}
	links = calloc((size_t)n, sizeof(*links));
	down = calloc((size_t)n, sizeof(*down));
	up = calloc((size_t)n, sizeof(*up));
	if (!links || !down || !up) {
		fprintf(stderr, "bench-fleet-peer: out of memory\n");
		goto out;
	}
	for (k = 0; k < n; k++)
		if (fp_open(&links[k], argv[1], k, argv[3]))
			goto out;
	if (fp_round(links, n, false, down, &t_down)) {
		double ignored;

		fp_round(links, n, true, up, &ignored); /* whatever went down comes back */
		goto out;
	}
	if (fp_round(links, n, true, up, &t_up))
		goto out;
	printf("{\"links\": %d, ", n);
	fp_print("down", down, n, t_down, false);
	fp_print("up", up, n, t_up, true);
	printf("}\n");
	ret = 0;
out:
	for (k = 0; links && k < n; k++)
		nl_socket_free(links[k].sk);
	free(links);
	free(down);
	free(up);
	return ret;
}
