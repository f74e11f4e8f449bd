// SPDX-License-Identifier: MIT
/*
 * The agent's Prometheus metrics: the exposition text rendered from faked
 * module state (the accessors agent_metrics.c reads are wrapped, see
 * test_agent_metrics.wrap), checked line for line; label escaping; the size
 * cap; the link up/down accounting; --metrics-listen on the command line;
 * and the libmicrohttpd server on a real io_uring loop, answering a client
 * thread (GET, HEAD, 404, 405) while the loop runs in this thread.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>
#include <cmocka.h>

#include "agents/agent.h"
#include "agents/agent_metrics.h"
#include "common/units.h"
#include "tests/unit/agent_harness.h"

#define NOW_NS (100 * RC_NSEC_PER_SEC)

/* ---- the faked state the wrapped accessors hand out ---- */
static struct {
	int err; /* every accessor fails with it when set */
	struct agent_port_stat ports[8];
	size_t nports;
	struct agent_link_stat links[8];
	size_t nlinks;
	struct agent_rdma_counter counters[8];
	size_t ncounters;
	struct agent_pfc_stat pfc[4];
	size_t npfc;
	struct agent_nic_pause nic[8];
	size_t nnic;
	struct agent_wl_count wl[8];
	size_t nwl;
	struct agent_fault_stat faults[8];
	size_t nfaults;
	uint64_t injected_link_down, injected_port_flap, injected_qp_error;
} st;

static struct agent a;

/* A malloc'd copy of n items of size sz, as the real accessors return. */
static int fake_copy(const void *src, size_t n, size_t sz, void **out, size_t *nout)
{
	*out = NULL;
	*nout = 0;
	if (st.err)
		return st.err;
	if (!n)
		return 0;
	*out = malloc(n * sz);
	assert_non_null(*out);
	memcpy(*out, src, n * sz);
	*nout = n;
	return 0;
}

int __wrap_agent_verbs_ports(struct agent *ag, struct agent_port_stat **out, size_t *n);
int __wrap_agent_link_stats(struct agent *ag, struct agent_link_stat **out, size_t *n);
int __wrap_agent_counters_read(struct agent *ag, struct agent_rdma_counter **out, size_t *n);
int __wrap_agent_pfc_stats(struct agent *ag, struct agent_pfc_stat **out, size_t *n);
int __wrap_agent_ethtool_poll_frames(const struct agent_ethtool_poll *p,
				     struct agent_nic_pause **out, size_t *n);
int __wrap_agent_workload_counts(struct agent *ag, struct agent_wl_count **out, size_t *n);
int __wrap_agent_faults_stats(struct agent *ag, struct agent_fault_stat **out, size_t *n);
uint64_t __wrap_agent_faults_injected(struct agent *ag, const char *injector);

int __wrap_agent_verbs_ports(struct agent *ag, struct agent_port_stat **out, size_t *n)
{
	return fake_copy(st.ports, st.nports, sizeof(st.ports[0]), (void **)out, n);
}

int __wrap_agent_link_stats(struct agent *ag, struct agent_link_stat **out, size_t *n)
{
	return fake_copy(st.links, st.nlinks, sizeof(st.links[0]), (void **)out, n);
}

int __wrap_agent_counters_read(struct agent *ag, struct agent_rdma_counter **out, size_t *n)
{
	return fake_copy(st.counters, st.ncounters, sizeof(st.counters[0]), (void **)out, n);
}

int __wrap_agent_pfc_stats(struct agent *ag, struct agent_pfc_stat **out, size_t *n)
{
	return fake_copy(st.pfc, st.npfc, sizeof(st.pfc[0]), (void **)out, n);
}

int __wrap_agent_ethtool_poll_frames(const struct agent_ethtool_poll *p,
				     struct agent_nic_pause **out, size_t *n)
{
	return fake_copy(st.nic, st.nnic, sizeof(st.nic[0]), (void **)out, n);
}

int __wrap_agent_workload_counts(struct agent *ag, struct agent_wl_count **out, size_t *n)
{
	return fake_copy(st.wl, st.nwl, sizeof(st.wl[0]), (void **)out, n);
}

int __wrap_agent_faults_stats(struct agent *ag, struct agent_fault_stat **out, size_t *n)
{
	return fake_copy(st.faults, st.nfaults, sizeof(st.faults[0]), (void **)out, n);
}

uint64_t __wrap_agent_faults_injected(struct agent *ag, const char *injector)
{
	if (!strcmp(injector, "link_down"))
		return st.injected_link_down;
	if (!strcmp(injector, "port_flap"))
		return st.injected_port_flap;
	if (!strcmp(injector, "qp_error"))
		return st.injected_qp_error;
	return 0;
}

static struct agent_link_track track(bool up, uint64_t transitions, uint64_t down_ns,
				     uint64_t since_ns)
{
	return (struct agent_link_track){
	    .up = up, .transitions = transitions, .down_ns = down_ns, .since_ns = since_ns};
}

/* A node with two rails (railN names), eth9 allowed, two RDMA devices, and some of everything. */
static void fake_node(void)
{
	struct agent_opts o;

	memset(&o, 0, sizeof(o));
	strcpy(o.name, "n1");
	agent_init(&a, &o);
	strcpy(a.policy.allow[0], "eth9");
	a.policy.nr_allow = 1;
	memset(&st, 0, sizeof(st));

	/* given out of order: the text sorts */
	st.ports[st.nports++] = (struct agent_port_stat){"mlx5_1", 1, "ens2", 1};
	st.ports[st.nports++] = (struct agent_port_stat){"mlx5_0", 2, "", 4};
	st.ports[st.nports++] = (struct agent_port_stat){"mlx5_0", 1, "ens1", 4};

	st.links[st.nlinks++] =
	    (struct agent_link_stat){"rail1", track(true, 2, 1500 * RC_NSEC_PER_MSEC, 0)};
	/* down for 2.25 s now, after 0.5 s of earlier outages */
	st.links[st.nlinks++] = (struct agent_link_stat){
	    "rail0", track(false, 3, 500 * RC_NSEC_PER_MSEC, NOW_NS - 2250 * RC_NSEC_PER_MSEC)};
	st.links[st.nlinks++] = (struct agent_link_stat){"docker0", track(true, 9, 0, 0)};
	st.links[st.nlinks++] = (struct agent_link_stat){"eth9", track(true, 0, 0, 0)};
	st.links[st.nlinks++] = (struct agent_link_stat){"ens1", track(true, 0, 0, 0)};
	st.links[st.nlinks++] = (struct agent_link_stat){"ens2", track(false, 1, 0, NOW_NS)};

	st.counters[st.ncounters++] =
	    (struct agent_rdma_counter){"mlx5_0", 1, "hw_counters", "out_of_buffer", 7};
	st.counters[st.ncounters++] =
	    (struct agent_rdma_counter){"mlx5_0", 1, "hw_counters", "port_rcv_data", 5};
	st.counters[st.ncounters++] =
	    (struct agent_rdma_counter){"mlx5_0", 1, "counters", "port_rcv_data", 123456789012};
	st.counters[st.ncounters++] =
	    (struct agent_rdma_counter){"mlx5_0", 2, "counters", "port_rcv_data", 0};

	st.pfc[st.npfc++] = (struct agent_pfc_stat){
	    .netdev = "rail1", .frames = {0, 0, 0, 5}, .global_frames = 2, .storm = {[3] = true}};
	st.pfc[st.npfc++] = (struct agent_pfc_stat){.netdev = "rail0"};

	st.nic[st.nnic++] = (struct agent_nic_pause){"ens1", 3, AGENT_NIC_TX, 11};
	st.nic[st.nnic++] = (struct agent_nic_pause){"ens1", -1, AGENT_NIC_RX, 4};
	st.nic[st.nnic++] = (struct agent_nic_pause){"ens1", 3, AGENT_NIC_RX, 10};
	st.nic[st.nnic++] = (struct agent_nic_pause){"ens1", 0, AGENT_NIC_RX, 1};

	st.wl[st.nwl++] = (struct agent_wl_count){"c1", AGENT_WL_QP_ERROR, "WATCHDOG", 1};
	st.wl[st.nwl++] = (struct agent_wl_count){"s0", AGENT_WL_MR_ERROR, "", 0};
	st.wl[st.nwl++] = (struct agent_wl_count){"c1", AGENT_WL_MR_ERROR, "", 2};
	/* what a workload's stdout may hold: quotes, backslashes, newlines, bytes that are not
	 * UTF-8 */
	st.wl[st.nwl++] = (struct agent_wl_count){"we\"ird", AGENT_WL_QP_ERROR, "a\\b\nc\xff", 1};
	st.wl[st.nwl++] = (struct agent_wl_count){"c1", AGENT_WL_QP_ERROR, "RETRY_EXC_ERR", 3};

	st.faults[st.nfaults++] = (struct agent_fault_stat){"f2", "link_down", "rail0", true};
	st.faults[st.nfaults++] = (struct agent_fault_stat){"f1", "port_flap", "rail1", false};
	st.faults[st.nfaults++] = (struct agent_fault_stat){"q1", "qp_error", "workload:c1", true};
	st.injected_link_down = 2;
	st.injected_port_flap = 1;
	st.injected_qp_error = 1;
}

#define HT(name, type, help) "# HELP " name " " help "\n# TYPE " name " " type "\n"

/*
 * What fake_node() renders, but for the per-injector counts, which follow in
 * registry order sorted by name (expected_text()): a new injector changes
 * nothing here.
 */
/* clang-format off */
static const char expected_head[] =
	HT("rdmachaos_agent_info", "gauge",
	   "The agent's node name and version; always 1.")
	"rdmachaos_agent_info{node=\"n1\",version=\"" RC_VERSION "\"} 1\n"
	HT("rdmachaos_port_active", "gauge",
	   "1 when the RDMA port's state is ACTIVE, else 0.")
	"rdmachaos_port_active{node=\"n1\",device=\"mlx5_0\",port=\"1\",netdev=\"ens1\"} 1\n"
	"rdmachaos_port_active{node=\"n1\",device=\"mlx5_0\",port=\"2\",netdev=\"\"} 1\n"
	"rdmachaos_port_active{node=\"n1\",device=\"mlx5_1\",port=\"1\",netdev=\"ens2\"} 0\n"
	HT("rdmachaos_link_up", "gauge",
	   "1 when the netdev is oper up (admin up, carrier, operstate UP or UNKNOWN), else 0; rails, allowed netdevs and the netdevs of RDMA ports.")
	"rdmachaos_link_up{node=\"n1\",netdev=\"ens1\"} 1\n"
	"rdmachaos_link_up{node=\"n1\",netdev=\"ens2\"} 0\n"
	"rdmachaos_link_up{node=\"n1\",netdev=\"eth9\"} 1\n"
	"rdmachaos_link_up{node=\"n1\",netdev=\"rail0\"} 0\n"
	"rdmachaos_link_up{node=\"n1\",netdev=\"rail1\"} 1\n"
	HT("rdmachaos_link_transitions_total", "counter",
	   "Changes of the netdev between oper up and down seen since the agent started.")
	"rdmachaos_link_transitions_total{node=\"n1\",netdev=\"ens1\"} 0\n"
	"rdmachaos_link_transitions_total{node=\"n1\",netdev=\"ens2\"} 1\n"
	"rdmachaos_link_transitions_total{node=\"n1\",netdev=\"eth9\"} 0\n"
	"rdmachaos_link_transitions_total{node=\"n1\",netdev=\"rail0\"} 3\n"
	"rdmachaos_link_transitions_total{node=\"n1\",netdev=\"rail1\"} 2\n"
	HT("rdmachaos_link_down_seconds_total", "counter",
	   "Seconds the netdev was not oper up since the agent started, the current outage included.")
	"rdmachaos_link_down_seconds_total{node=\"n1\",netdev=\"ens1\"} 0.000\n"
	"rdmachaos_link_down_seconds_total{node=\"n1\",netdev=\"ens2\"} 0.000\n"
	"rdmachaos_link_down_seconds_total{node=\"n1\",netdev=\"eth9\"} 0.000\n"
	"rdmachaos_link_down_seconds_total{node=\"n1\",netdev=\"rail0\"} 2.750\n"
	"rdmachaos_link_down_seconds_total{node=\"n1\",netdev=\"rail1\"} 1.500\n"
	HT("rdmachaos_rdma_hw_counter_total", "counter",
	   "RDMA port counters (sysfs ports/N/counters and hw_counters) as read at the scrape.")
	"rdmachaos_rdma_hw_counter_total{node=\"n1\",device=\"mlx5_0\",port=\"1\",counter=\"out_of_buffer\"} 7\n"
	"rdmachaos_rdma_hw_counter_total{node=\"n1\",device=\"mlx5_0\",port=\"1\",counter=\"port_rcv_data\"} 123456789012\n"
	"rdmachaos_rdma_hw_counter_total{node=\"n1\",device=\"mlx5_0\",port=\"2\",counter=\"port_rcv_data\"} 0\n"
	HT("rdmachaos_pfc_pause_frames_received_total", "counter",
	   "PFC frames received per priority they pause, and 802.3x PAUSE frames (priority \"global\"), counted by the agent's frame observer on the rails.")
	"rdmachaos_pfc_pause_frames_received_total{node=\"n1\",netdev=\"rail0\",priority=\"0\"} 0\n"
	"rdmachaos_pfc_pause_frames_received_total{node=\"n1\",netdev=\"rail0\",priority=\"1\"} 0\n"
	"rdmachaos_pfc_pause_frames_received_total{node=\"n1\",netdev=\"rail0\",priority=\"2\"} 0\n"
	"rdmachaos_pfc_pause_frames_received_total{node=\"n1\",netdev=\"rail0\",priority=\"3\"} 0\n"
	"rdmachaos_pfc_pause_frames_received_total{node=\"n1\",netdev=\"rail0\",priority=\"4\"} 0\n"
	"rdmachaos_pfc_pause_frames_received_total{node=\"n1\",netdev=\"rail0\",priority=\"5\"} 0\n"
	"rdmachaos_pfc_pause_frames_received_total{node=\"n1\",netdev=\"rail0\",priority=\"6\"} 0\n"
	"rdmachaos_pfc_pause_frames_received_total{node=\"n1\",netdev=\"rail0\",priority=\"7\"} 0\n"
	"rdmachaos_pfc_pause_frames_received_total{node=\"n1\",netdev=\"rail0\",priority=\"global\"} 0\n"
	"rdmachaos_pfc_pause_frames_received_total{node=\"n1\",netdev=\"rail1\",priority=\"0\"} 0\n"
	"rdmachaos_pfc_pause_frames_received_total{node=\"n1\",netdev=\"rail1\",priority=\"1\"} 0\n"
	"rdmachaos_pfc_pause_frames_received_total{node=\"n1\",netdev=\"rail1\",priority=\"2\"} 0\n"
	"rdmachaos_pfc_pause_frames_received_total{node=\"n1\",netdev=\"rail1\",priority=\"3\"} 5\n"
	"rdmachaos_pfc_pause_frames_received_total{node=\"n1\",netdev=\"rail1\",priority=\"4\"} 0\n"
	"rdmachaos_pfc_pause_frames_received_total{node=\"n1\",netdev=\"rail1\",priority=\"5\"} 0\n"
	"rdmachaos_pfc_pause_frames_received_total{node=\"n1\",netdev=\"rail1\",priority=\"6\"} 0\n"
	"rdmachaos_pfc_pause_frames_received_total{node=\"n1\",netdev=\"rail1\",priority=\"7\"} 0\n"
	"rdmachaos_pfc_pause_frames_received_total{node=\"n1\",netdev=\"rail1\",priority=\"global\"} 2\n"
	HT("rdmachaos_nic_pause_frames_total", "counter",
	   "Pause frames the NIC counted (ethtool statistics), per priority (\"global\": 802.3x) and direction; NICs that have such counters only.")
	"rdmachaos_nic_pause_frames_total{node=\"n1\",netdev=\"ens1\",priority=\"0\",direction=\"rx\"} 1\n"
	"rdmachaos_nic_pause_frames_total{node=\"n1\",netdev=\"ens1\",priority=\"3\",direction=\"rx\"} 10\n"
	"rdmachaos_nic_pause_frames_total{node=\"n1\",netdev=\"ens1\",priority=\"3\",direction=\"tx\"} 11\n"
	"rdmachaos_nic_pause_frames_total{node=\"n1\",netdev=\"ens1\",priority=\"global\",direction=\"rx\"} 4\n"
	HT("rdmachaos_pfc_storm_detected", "gauge",
	   "1 while the PFC storm watchdog holds the priority paused for longer than --pfc-watchdog-ms, else 0.")
	"rdmachaos_pfc_storm_detected{node=\"n1\",netdev=\"rail0\",priority=\"0\"} 0\n"
	"rdmachaos_pfc_storm_detected{node=\"n1\",netdev=\"rail0\",priority=\"1\"} 0\n"
	"rdmachaos_pfc_storm_detected{node=\"n1\",netdev=\"rail0\",priority=\"2\"} 0\n"
	"rdmachaos_pfc_storm_detected{node=\"n1\",netdev=\"rail0\",priority=\"3\"} 0\n"
	"rdmachaos_pfc_storm_detected{node=\"n1\",netdev=\"rail0\",priority=\"4\"} 0\n"
	"rdmachaos_pfc_storm_detected{node=\"n1\",netdev=\"rail0\",priority=\"5\"} 0\n"
	"rdmachaos_pfc_storm_detected{node=\"n1\",netdev=\"rail0\",priority=\"6\"} 0\n"
	"rdmachaos_pfc_storm_detected{node=\"n1\",netdev=\"rail0\",priority=\"7\"} 0\n"
	"rdmachaos_pfc_storm_detected{node=\"n1\",netdev=\"rail1\",priority=\"0\"} 0\n"
	"rdmachaos_pfc_storm_detected{node=\"n1\",netdev=\"rail1\",priority=\"1\"} 0\n"
	"rdmachaos_pfc_storm_detected{node=\"n1\",netdev=\"rail1\",priority=\"2\"} 0\n"
	"rdmachaos_pfc_storm_detected{node=\"n1\",netdev=\"rail1\",priority=\"3\"} 1\n"
	"rdmachaos_pfc_storm_detected{node=\"n1\",netdev=\"rail1\",priority=\"4\"} 0\n"
	"rdmachaos_pfc_storm_detected{node=\"n1\",netdev=\"rail1\",priority=\"5\"} 0\n"
	"rdmachaos_pfc_storm_detected{node=\"n1\",netdev=\"rail1\",priority=\"6\"} 0\n"
	"rdmachaos_pfc_storm_detected{node=\"n1\",netdev=\"rail1\",priority=\"7\"} 0\n"
	HT("rdmachaos_workload_qp_errors_total", "counter",
	   "Workload error events (a failed work completion, or WATCHDOG) per wl_id and wc_status.")
	"rdmachaos_workload_qp_errors_total{node=\"n1\",wl_id=\"c1\",wc_status=\"RETRY_EXC_ERR\"} 3\n"
	"rdmachaos_workload_qp_errors_total{node=\"n1\",wl_id=\"c1\",wc_status=\"WATCHDOG\"} 1\n"
	"rdmachaos_workload_qp_errors_total{node=\"n1\",wl_id=\"we\\\"ird\",wc_status=\"a\\\\b\\nc�\"} 1\n"
	HT("rdmachaos_workload_mr_errors_total", "counter",
	   "Workload mr_error events (a failed memory registration) per wl_id.")
	"rdmachaos_workload_mr_errors_total{node=\"n1\",wl_id=\"c1\"} 2\n"
	"rdmachaos_workload_mr_errors_total{node=\"n1\",wl_id=\"s0\"} 0\n"
	HT("rdmachaos_fault_active", "gauge",
	   "1 while the fault is in force, 0 once reverted and verified (the latest reverted faults are kept).")
	"rdmachaos_fault_active{node=\"n1\",fault_id=\"f1\",injector=\"port_flap\",target=\"rail1\"} 0\n"
	"rdmachaos_fault_active{node=\"n1\",fault_id=\"f2\",injector=\"link_down\",target=\"rail0\"} 1\n"
	"rdmachaos_fault_active{node=\"n1\",fault_id=\"q1\",injector=\"qp_error\",target=\"workload:c1\"} 1\n"
	HT("rdmachaos_faults_injected_total", "counter",
	   "Faults injected since the agent started, per injector.");
/* clang-format on */

static int by_name(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* expected_head, then a faults_injected line per injector, sorted by name, as the fake counts. */
static const char *expected_text(void)
{
	static char buf[16384];
	const char *names[AGENT_MAX_INJECTORS];
	size_t n = 0, i, off;

	for (n = 0; injectors[n]; n++)
		names[n] = injectors[n]->name;
	qsort(names, n, sizeof(names[0]), by_name);
	off = (size_t)snprintf(buf, sizeof(buf), "%s", expected_head);
	for (i = 0; i < n; i++)
		off += (size_t)snprintf(
		    buf + off, sizeof(buf) - off,
		    "rdmachaos_faults_injected_total{node=\"n1\",injector=\"%s\"} "
		    "%llu\n",
		    names[i], (unsigned long long)__wrap_agent_faults_injected(NULL, names[i]));
	assert_true(off < sizeof(buf));
	return buf;
}

/* Compares line by line, so a failure names the first line that differs. */
static void assert_lines(const char *got, const char *want)
{
	unsigned int line = 1;

	while (*got || *want) {
		size_t g = strcspn(got, "\n"), w = strcspn(want, "\n");

		if (g != w || memcmp(got, want, g))
			fail_msg("line %u:\n  got  %.*s\n  want %.*s", line, (int)g, got, (int)w,
				 want);
		got += g + (got[g] == '\n');
		want += w + (want[w] == '\n');
		line++;
	}
}

static void test_render(void **state)
{
	size_t len;
	char *text;

	fake_node();
	assert_int_equal(
	    agent_metrics_render(&a, NULL, NOW_NS, AGENT_METRICS_MAX_BYTES, &text, &len), 0);
	assert_int_equal(len, strlen(text));
	assert_lines(text, expected_text());
	assert_string_equal(text, expected_text());
	free(text);
	/* The same state renders the same text: scrapes are stable. */
	assert_int_equal(
	    agent_metrics_render(&a, NULL, NOW_NS, AGENT_METRICS_MAX_BYTES, &text, &len), 0);
	assert_string_equal(text, expected_text());
	free(text);
}

/* A node with nothing observed: every family still has HELP and TYPE; injectors count from 0. */
static void test_render_empty(void **state)
{
	unsigned int helps = 0, types = 0;
	const char *p;
	size_t len;
	char *text;

	fake_node();
	memset(&st, 0, sizeof(st));
	assert_int_equal(
	    agent_metrics_render(&a, NULL, NOW_NS, AGENT_METRICS_MAX_BYTES, &text, &len), 0);
	for (p = text; (p = strstr(p, "# HELP ")); p++)
		helps++;
	for (p = text; (p = strstr(p, "# TYPE ")); p++)
		types++;
	assert_int_equal(helps, 13);
	assert_int_equal(types, 13);
	assert_non_null(strstr(text, "\nrdmachaos_faults_injected_total{node=\"n1\","
				     "injector=\"mr_failure\"} 0\n"));
	assert_null(strstr(text, "rdmachaos_link_up{"));
	free(text);
}

static void test_render_limits(void **state)
{
	size_t len = 1;
	char *text = (char *)1;

	fake_node();
	/* Past the cap: refused whole, never cut short. */
	assert_int_equal(agent_metrics_render(&a, NULL, NOW_NS, 1000, &text, &len), -E2BIG);
	assert_null(text);
	assert_int_equal(len, 0);
	assert_int_equal(
	    agent_metrics_render(&a, NULL, NOW_NS, strlen(expected_text()), &text, &len), -E2BIG);
	assert_int_equal(
	    agent_metrics_render(&a, NULL, NOW_NS, strlen(expected_text()) + 1, &text, &len), 0);
	assert_string_equal(text, expected_text());
	free(text);
	/* An accessor that fails fails the scrape. */
	st.err = -ENOMEM;
	assert_int_equal(
	    agent_metrics_render(&a, NULL, NOW_NS, AGENT_METRICS_MAX_BYTES, &text, &len), -ENOMEM);
	assert_null(text);
}

static void test_link_track(void **state)
{
	struct agent_link_track t;
	uint64_t s = RC_NSEC_PER_SEC;

	/* Seen up at 10 s: nothing counted. */
	agent_link_track_init(&t, true, 10 * s);
	assert_int_equal(t.transitions, 0);
	assert_int_equal(agent_link_track_down_ns(&t, 20 * s), 0);
	agent_link_track_set(&t, true, 11 * s); /* no change */
	assert_int_equal(t.transitions, 0);
	/* Down at 12 s: the outage counts up to now. */
	agent_link_track_set(&t, false, 12 * s);
	assert_int_equal(t.transitions, 1);
	assert_int_equal(agent_link_track_down_ns(&t, 15 * s), 3 * s);
	agent_link_track_set(&t, false, 13 * s); /* still down: same outage */
	assert_int_equal(agent_link_track_down_ns(&t, 15 * s), 3 * s);
	/* Up at 16 s: 4 s banked, no more accrues. */
	agent_link_track_set(&t, true, 16 * s);
	assert_int_equal(t.transitions, 2);
	assert_int_equal(agent_link_track_down_ns(&t, 100 * s), 4 * s);
	/* A second outage adds to it. */
	agent_link_track_set(&t, false, 20 * s);
	agent_link_track_set(&t, true, 20 * s + 500 * RC_NSEC_PER_MSEC);
	assert_int_equal(t.transitions, 4);
	assert_int_equal(agent_link_track_down_ns(&t, 100 * s), 4500 * RC_NSEC_PER_MSEC);
	/* Down when first seen: counted from then, no transition. */
	agent_link_track_init(&t, false, 50 * s);
	assert_int_equal(t.transitions, 0);
	assert_int_equal(agent_link_track_down_ns(&t, 52 * s), 2 * s);
	/* A clock reading before since_ns adds nothing. */
	assert_int_equal(agent_link_track_down_ns(&t, 49 * s), 0);
}

static int parse(struct agent_opts *o, char *err, size_t errlen, const char *metrics,
		 const char *listen)
{
	const char *args[] = {"rdmachaos-agent",  "--name", "n1",
			      "--listen",	  listen,   "--insecure-plaintext",
			      "--metrics-listen", metrics,  NULL};
	char *argv[9];
	int i;

	for (i = 0; i < 9; i++)
		argv[i] = args[i] ? strdup(args[i]) : NULL;
	i = agent_opts_parse(metrics ? 8 : 6, argv, o, err, errlen);
	for (int k = 0; k < 9; k++)
		free(argv[k]);
	return i;
}

static void test_opts(void **state)
{
	static const struct {
		const char *arg, *says;
	} bad[] = {
	    {"127.0.0.1", "--metrics-listen '127.0.0.1': expected ADDR:PORT, e.g. 127.0.0.1:9464"},
	    {":9464", "--metrics-listen ':9464': ADDR is missing; use e.g. 127.0.0.1:9464"},
	    {"localhost:9464", "--metrics-listen 'localhost:9464': 'localhost' is not an IPv4 "
			       "address (use e.g. 127.0.0.1 or 0.0.0.0)"},
	    {"127.0.0.1:0", "--metrics-listen '127.0.0.1:0': PORT must be a number in 1..65535"},
	    {"127.0.0.1:65536", "--metrics-listen '127.0.0.1:65536': PORT must be a number in "
				"1..65535"},
	    {"127.0.0.1:x", "--metrics-listen '127.0.0.1:x': PORT must be a number in 1..65535"},
	    {"127.0.0.1:17700", "--metrics-listen 127.0.0.1:17700: --listen serves the "
				"coordinators there; give the metrics another port"},
	    {"0.0.0.0:17700", "--metrics-listen 0.0.0.0:17700: --listen serves the coordinators "
			      "there; give the metrics another port"},
	};
	struct agent_opts o;
	char err[512];
	size_t i;

	assert_int_equal(parse(&o, err, sizeof(err), NULL, "127.0.0.1:17700"), 0);
	assert_int_equal(o.metrics_port, 0); /* off by default */
	assert_int_equal(parse(&o, err, sizeof(err), "0.0.0.0:9464", "127.0.0.1:17700"), 0);
	assert_string_equal(o.metrics_host, "0.0.0.0");
	assert_int_equal(o.metrics_port, 9464);
	assert_int_equal(parse(&o, err, sizeof(err), "127.0.0.1:9464", "127.0.0.1:17700"), 0);
	assert_string_equal(o.metrics_host, "127.0.0.1");
	/* The same port on another address is another socket. */
	assert_int_equal(parse(&o, err, sizeof(err), "127.0.0.2:17700", "127.0.0.1:17700"), 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(parse(&o, err, sizeof(err), bad[i].arg, "127.0.0.1:17700"),
				 -EINVAL);
		assert_string_equal(err, bad[i].says);
	}
}

/* ---- the server on a real loop, a client in a thread ---- */

struct client {
	uint16_t port;
	char req[4][128];
	char resp[4][16384];
	atomic_bool done;
};

static void client_get(uint16_t port, const char *req, char *resp, size_t len)
{
	struct sockaddr_in sin = {.sin_family = AF_INET, .sin_port = htons(port)};
	struct timeval tv = {.tv_sec = 10};
	size_t got = 0;
	ssize_t n;
	int fd;

	resp[0] = '\0';
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (!connect(fd, (struct sockaddr *)&sin, sizeof(sin)) &&
	    write(fd, req, strlen(req)) == (ssize_t)strlen(req))
		while (got < len - 1 && (n = read(fd, resp + got, len - 1 - got)) > 0)
			got += (size_t)n;
	resp[got] = '\0';
	close(fd);
}

/* Only sockets here: the agent's state is the loop's. */
static void *client_main(void *arg)
{
	struct client *c = arg;
	unsigned int i;

	for (i = 0; i < 4; i++)
		client_get(c->port, c->req[i], c->resp[i], sizeof(c->resp[i]));
	atomic_store(&c->done, true);
	return NULL;
}

static struct client *the_client;

static void check_done(struct agent_timer *t)
{
	if (atomic_load(&the_client->done))
		agent_loop_stop(&a.loop);
	else
		agent_timer_set(&a.loop, t, rc_now_ns() + 10 * RC_NSEC_PER_MSEC);
}

/* A port nobody listens on now. */
static uint16_t free_port(void)
{
	struct sockaddr_in sin = {.sin_family = AF_INET};
	socklen_t sl = sizeof(sin);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sin, &sl), 0);
	close(fd);
	return ntohs(sin.sin_port);
}

static void test_http_on_loop(void **state)
{
	static struct client c;
	static struct agent b;
	struct agent_timer watch = {.fire = check_done};
	pthread_t th;
	const char *body;
	int ret;

	fake_node();
	strcpy(a.opts.metrics_host, "127.0.0.1");
	a.opts.metrics_port = free_port();
	ret = agent_loop_init(&a.loop, 16);
	assert_int_equal(ret, 0);
	assert_int_equal(agent_metrics_start(&a), 0);
	assert_non_null(a.metrics);

	/* A second server on the same port: refused with EADDRINUSE (and logged). */
	agent_init(&b, &a.opts);
	assert_int_equal(agent_metrics_start(&b), -EADDRINUSE);
	assert_null(b.metrics);

	memset(&c, 0, sizeof(c));
	c.port = a.opts.metrics_port;
	strcpy(c.req[0], "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
	strcpy(c.req[1], "GET /other HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
	strcpy(c.req[2], "POST /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
			 "Content-Length: 3\r\n\r\nabc");
	strcpy(c.req[3], "HEAD /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
	the_client = &c;
	assert_int_equal(pthread_create(&th, NULL, client_main, &c), 0);
	agent_timer_set(&a.loop, &watch, rc_now_ns());
	assert_int_equal(agent_loop_run(&a.loop), 0);
	pthread_join(th, NULL);
	agent_timer_cancel(&watch);

	assert_true(!strncmp(c.resp[0], "HTTP/1.1 200 OK\r\n", 17));
	assert_non_null(strstr(c.resp[0], "\r\nContent-Type: " AGENT_METRICS_CONTENT_TYPE "\r\n"));
	body = strstr(c.resp[0], "\r\n\r\n");
	assert_non_null(body);
	/* The time differs (the link downtime), so compare what does not depend on it. */
	assert_true(!strncmp(body + 4, expected_head, 200));
	assert_non_null(strstr(body, "rdmachaos_fault_active{node=\"n1\",fault_id=\"f2\","
				     "injector=\"link_down\",target=\"rail0\"} 1\n"));
	assert_true(!strncmp(c.resp[1], "HTTP/1.1 404 Not Found\r\n", 24));
	assert_non_null(strstr(c.resp[1], "the metrics are at GET /metrics"));
	assert_true(!strncmp(c.resp[2], "HTTP/1.1 405 Method Not Allowed\r\n", 33));
	assert_non_null(strstr(c.resp[2], "\r\nAllow: GET, HEAD\r\n"));
	assert_true(!strncmp(c.resp[3], "HTTP/1.1 200 OK\r\n", 17));
	body = strstr(c.resp[3], "\r\n\r\n");
	assert_non_null(body);
	assert_string_equal(body, "\r\n\r\n"); /* HEAD: headers only */

	agent_metrics_stop(&a);
	assert_null(a.metrics);
	agent_loop_fini(&a.loop);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_render),	  cmocka_unit_test(test_render_empty),
	    cmocka_unit_test(test_render_limits), cmocka_unit_test(test_link_track),
	    cmocka_unit_test(test_opts),	  cmocka_unit_test(test_http_on_loop),
	};
	return HARNESS_RUN("test_agent_metrics", tests, NULL, NULL);
}
