// SPDX-License-Identifier: MIT
/*
 * Prometheus metrics (agents/agent_metrics.h): the text exposition of what
 * the observers track, rendered at each scrape from their accessors, and the
 * libmicrohttpd server that answers GET /metrics from the agent's io_uring
 * loop (MHD's epoll fd polled in the ring, MHD_run() on readiness and on its
 * timeout; no thread).
 *
 * Output: the families in a fixed order, each with HELP and TYPE even when
 * it has no sample, samples sorted by their label values, `node` first on
 * every sample. Label values are escaped (\\, \", \n) and made valid UTF-8.
 */
#include <errno.h>
#include <inttypes.h>
#include <microhttpd.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agents/agent.h"
#include "agents/agent_ethtool.h"
#include "agents/agent_metrics.h"
#include "common/http_deadline.h"
#include "common/mhd_lib.h"
#include "common/transport.h"
#include "common/units.h"

#define AGENT_METRICS_RAILS_NS (60 * RC_NSEC_PER_SEC)
#define AGENT_METRICS_MAX_WAIT_MS 60000ULL /* MHD_get_timeout()'s, capped */

struct agent_metrics {
	struct agent *a;
	struct MHD_Daemon *d;
	struct agent_poll poll;		   /* MHD's epoll fd, one-shot, re-armed after MHD_run() */
	struct agent_timer timer;	   /* MHD_get_timeout() */
	struct agent_ethtool_poll *nic;	   /* the NIC pause counters, read at each scrape */
	struct rc_http_deadline *deadline; /* a request's whole time (common/http_deadline.h) */
	uint64_t rails_ns;		   /* when the rails were last looked for (nic) */
	bool poll_failed;
	bool warned; /* a rendering failure was logged */
};

/* ---- the text ---- */

struct agent_mbuf {
	char *p;
	size_t len, cap, max;
	int err; /* the first failure: -ENOMEM or -E2BIG */
};

static void agent_mbuf_put(struct agent_mbuf *b, const char *s, size_t n)
{
	if (b->err)
		return;
	if (b->len + n + 1 > b->max) {
		b->err = -E2BIG;
		return;
	}
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 16384;
		char *p;

		while (cap < b->len + n + 1)
			cap *= 2;
		if (cap > b->max)
			cap = b->max;
		p = realloc(b->p, cap);
		if (!p) {
			b->err = -ENOMEM;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static void agent_mbuf_str(struct agent_mbuf *b, const char *s)
{
	agent_mbuf_put(b, s, strlen(s));
}

/* The length of the valid UTF-8 sequence at s, 0 if it is not one. */
static size_t agent_utf8_len(const unsigned char *s)
{
	unsigned char c = s[0];
	size_t n, i;
	unsigned char lo = 0x80, hi = 0xbf;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0;
	/* The second byte's range excludes overlong forms, surrogates and > U+10FFFF. */
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return n;
}

/* A label value, escaped as the exposition format wants; invalid UTF-8 becomes U+FFFD. */
static void agent_mbuf_label_value(struct agent_mbuf *b, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		size_t n = agent_utf8_len(p);

		if (!n) {
			agent_mbuf_put(b, "\xef\xbf\xbd", 3);
			p++;
		} else if (*p == '\\') {
			agent_mbuf_put(b, "\\\\", 2);
		} else if (*p == '"') {
			agent_mbuf_put(b, "\\\"", 2);
		} else if (*p == '\n') {
			agent_mbuf_put(b, "\\n", 2);
		} else {
			agent_mbuf_put(b, (const char *)p, n);
		}
		p += n;
	}
}

enum agent_metrics_fam {
	AM_INFO,
	AM_PORT_ACTIVE,
	AM_LINK_UP,
	AM_LINK_TRANSITIONS,
	AM_LINK_DOWN_SECONDS,
	AM_RDMA_COUNTER,
	AM_PFC_RX,
	AM_NIC_PAUSE,
	AM_PFC_STORM,
	AM_QP_ERRORS,
	AM_MR_ERRORS,
	AM_FAULT_ACTIVE,
	AM_FAULTS_INJECTED,
};

static const struct {
	const char *name, *type, *help;
} agent_metrics_fams[] = {
    [AM_INFO] = {"rdmachaos_agent_info", "gauge", "The agent's node name and version; always 1."},
    [AM_PORT_ACTIVE] = {"rdmachaos_port_active", "gauge",
			"1 when the RDMA port's state is ACTIVE, else 0."},
    [AM_LINK_UP] = {"rdmachaos_link_up", "gauge",
		    "1 when the netdev is oper up (admin up, carrier, operstate UP or UNKNOWN), "
		    "else 0; rails, allowed netdevs and the netdevs of RDMA ports."},
    [AM_LINK_TRANSITIONS] = {"rdmachaos_link_transitions_total", "counter",
			     "Changes of the netdev between oper up and down seen since the agent "
			     "started."},
    [AM_LINK_DOWN_SECONDS] = {"rdmachaos_link_down_seconds_total", "counter",
			      "Seconds the netdev was not oper up since the agent started, the "
			      "current outage included."},
    [AM_RDMA_COUNTER] = {"rdmachaos_rdma_hw_counter_total", "counter",
			 "RDMA port counters (sysfs ports/N/counters and hw_counters) as read at "
			 "the scrape."},
    [AM_PFC_RX] = {"rdmachaos_pfc_pause_frames_received_total", "counter",
		   "PFC frames received per priority they pause, and 802.3x PAUSE frames "
		   "(priority \"global\"), counted by the agent's frame observer on the rails."},
    [AM_NIC_PAUSE] = {"rdmachaos_nic_pause_frames_total", "counter",
		      "Pause frames the NIC counted (ethtool statistics), per priority "
		      "(\"global\": 802.3x) and direction; NICs that have such counters only."},
    [AM_PFC_STORM] = {"rdmachaos_pfc_storm_detected", "gauge",
		      "1 while the PFC storm watchdog holds the priority paused for longer than "
		      "--pfc-watchdog-ms, else 0."},
    [AM_QP_ERRORS] = {"rdmachaos_workload_qp_errors_total", "counter",
		      "Workload error events (a failed work completion, or WATCHDOG) per wl_id "
		      "and wc_status."},
    [AM_MR_ERRORS] = {"rdmachaos_workload_mr_errors_total", "counter",
		      "Workload mr_error events (a failed memory registration) per wl_id."},
    [AM_FAULT_ACTIVE] = {"rdmachaos_fault_active", "gauge",
			 "1 while the fault is in force, 0 once reverted and verified (the "
			 "latest reverted faults are kept)."},
    [AM_FAULTS_INJECTED] = {"rdmachaos_faults_injected_total", "counter",
			    "Faults injected since the agent started, per injector."},
};

static void agent_metrics_family(struct agent_mbuf *b, enum agent_metrics_fam f)
{
	agent_mbuf_str(b, "# HELP ");
	agent_mbuf_str(b, agent_metrics_fams[f].name);
	agent_mbuf_str(b, " ");
	agent_mbuf_str(b, agent_metrics_fams[f].help);
	agent_mbuf_str(b, "\n# TYPE ");
	agent_mbuf_str(b, agent_metrics_fams[f].name);
	agent_mbuf_str(b, " ");
	agent_mbuf_str(b, agent_metrics_fams[f].type);
	agent_mbuf_str(b, "\n");
}

/* One sample: family f's name, node, then label name/value pairs up to NULL, and value. */
static void agent_metrics_sample(struct agent_mbuf *b, const struct agent *a,
				 enum agent_metrics_fam f, const char *value, ...)
    __attribute__((sentinel));

static void agent_metrics_sample(struct agent_mbuf *b, const struct agent *a,
				 enum agent_metrics_fam f, const char *value, ...)
{
	const char *k;
	va_list ap;

	agent_mbuf_str(b, agent_metrics_fams[f].name);
	agent_mbuf_str(b, "{node=\"");
	agent_mbuf_label_value(b, a->opts.name);
	agent_mbuf_str(b, "\"");
	va_start(ap, value);
	while ((k = va_arg(ap, const char *))) {
		agent_mbuf_str(b, ",");
		agent_mbuf_str(b, k);
		agent_mbuf_str(b, "=\"");
		agent_mbuf_label_value(b, va_arg(ap, const char *));
		agent_mbuf_str(b, "\"");
	}
	va_end(ap);
	agent_mbuf_str(b, "} ");
	agent_mbuf_str(b, value);
	agent_mbuf_str(b, "\n");
}

static const char *agent_u64(char buf[24], uint64_t v)
{
	snprintf(buf, 24, "%" PRIu64, v);
	return buf;
}

static const char *agent_int(char buf[24], int v)
{
	snprintf(buf, 24, "%d", v);
	return buf;
}

/* "0".."7", or "global" for link-level (802.3x) pause. */
static const char *agent_prio(char buf[24], int p)
{
	return p < 0 ? "global" : agent_int(buf, p);
}

/* qsort, which must not be given NULL, even for nothing. */
static void agent_metrics_sort(void *base, size_t n, size_t size,
			       int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(base, n, size, cmp);
}

/* ---- the families ---- */

static int agent_port_cmp(const void *x, const void *y)
{
	const struct agent_port_stat *p = x, *q = y;
	int c = strcmp(p->device, q->device);

	return c ? c : (p->port > q->port) - (p->port < q->port);
}

static void agent_metrics_ports(struct agent_mbuf *b, struct agent *a,
				const struct agent_port_stat *ps, size_t n)
{
	char port[24];
	size_t i;

	agent_metrics_family(b, AM_PORT_ACTIVE);
	for (i = 0; i < n; i++)
		agent_metrics_sample(b, a, AM_PORT_ACTIVE, ps[i].state == 4 ? "1" : "0", "device",
				     ps[i].device, "port", agent_int(port, ps[i].port), "netdev",
				     ps[i].netdev, NULL);
}

/* Whether the metrics report netdev's link: a rail, an allowed netdev, or an RDMA port's. */
static bool agent_metrics_netdev_known(const struct agent *a, const char *netdev,
				       const struct agent_port_stat *ps, size_t nps)
{
	size_t i;

	if (agent_rail_of(&a->opts, netdev) >= 0)
		return true;
	for (i = 0; i < a->policy.nr_allow; i++)
		if (!strcmp(a->policy.allow[i], netdev))
			return true;
	for (i = 0; i < nps; i++)
		if (!strcmp(ps[i].netdev, netdev))
			return true;
	return false;
}

static int agent_link_cmp(const void *x, const void *y)
{
	return strcmp(((const struct agent_link_stat *)x)->netdev,
		      ((const struct agent_link_stat *)y)->netdev);
}

static void agent_metrics_links(struct agent_mbuf *b, struct agent *a, struct agent_link_stat *ls,
				size_t n, const struct agent_port_stat *ps, size_t nps,
				uint64_t now_ns)
{
	char v[32];
	size_t i, k = 0;

	/* Keep the known netdevs only, in place. */
	for (i = 0; i < n; i++)
		if (agent_metrics_netdev_known(a, ls[i].netdev, ps, nps))
			ls[k++] = ls[i];
	agent_metrics_sort(ls, k, sizeof(*ls), agent_link_cmp);
	agent_metrics_family(b, AM_LINK_UP);
	for (i = 0; i < k; i++)
		agent_metrics_sample(b, a, AM_LINK_UP, ls[i].track.up ? "1" : "0", "netdev",
				     ls[i].netdev, NULL);
	agent_metrics_family(b, AM_LINK_TRANSITIONS);
	for (i = 0; i < k; i++)
		agent_metrics_sample(b, a, AM_LINK_TRANSITIONS,
				     agent_u64(v, ls[i].track.transitions), "netdev", ls[i].netdev,
				     NULL);
	agent_metrics_family(b, AM_LINK_DOWN_SECONDS);
	for (i = 0; i < k; i++) {
		uint64_t ns = agent_link_track_down_ns(&ls[i].track, now_ns);

		snprintf(v, sizeof(v), "%llu.%03llu", (unsigned long long)(ns / RC_NSEC_PER_SEC),
			 (unsigned long long)(ns % RC_NSEC_PER_SEC / RC_NSEC_PER_MSEC));
		agent_metrics_sample(b, a, AM_LINK_DOWN_SECONDS, v, "netdev", ls[i].netdev, NULL);
	}
}

static int agent_counter_cmp(const void *x, const void *y)
{
	const struct agent_rdma_counter *p = x, *q = y;
	int c = strcmp(p->device, q->device);

	if (!c)
		c = (p->port > q->port) - (p->port < q->port);
	if (!c)
		c = strcmp(p->name, q->name);
	return c ? c : strcmp(p->group, q->group);
}

static void agent_metrics_counters(struct agent_mbuf *b, struct agent *a,
				   struct agent_rdma_counter *c, size_t n)
{
	char port[24], v[24];
	size_t i;

	agent_metrics_sort(c, n, sizeof(*c), agent_counter_cmp);
	agent_metrics_family(b, AM_RDMA_COUNTER);
	for (i = 0; i < n; i++) {
		/* The same name in counters/ and hw_counters/: one series, counters/'s. */
		if (i && !strcmp(c[i].device, c[i - 1].device) && c[i].port == c[i - 1].port &&
		    !strcmp(c[i].name, c[i - 1].name))
			continue;
		agent_metrics_sample(b, a, AM_RDMA_COUNTER, agent_u64(v, c[i].value), "device",
				     c[i].device, "port", agent_int(port, c[i].port), "counter",
				     c[i].name, NULL);
	}
}

static int agent_pfc_cmp(const void *x, const void *y)
{
	return strcmp(((const struct agent_pfc_stat *)x)->netdev,
		      ((const struct agent_pfc_stat *)y)->netdev);
}

static void agent_metrics_pfc(struct agent_mbuf *b, struct agent *a, struct agent_pfc_stat *ps,
			      size_t n)
{
	char prio[24], v[24];
	size_t i;
	int p;

	agent_metrics_sort(ps, n, sizeof(*ps), agent_pfc_cmp);
	agent_metrics_family(b, AM_PFC_RX);
	for (i = 0; i < n; i++) {
		for (p = 0; p < PFC_PRIOS; p++)
			agent_metrics_sample(b, a, AM_PFC_RX, agent_u64(v, ps[i].frames[p]),
					     "netdev", ps[i].netdev, "priority",
					     agent_prio(prio, p), NULL);
		agent_metrics_sample(b, a, AM_PFC_RX, agent_u64(v, ps[i].global_frames), "netdev",
				     ps[i].netdev, "priority", "global", NULL);
	}
}

static void agent_metrics_storms(struct agent_mbuf *b, struct agent *a,
				 const struct agent_pfc_stat *ps, size_t n)
{
	char prio[24];
	size_t i;
	int p;

	agent_metrics_family(b, AM_PFC_STORM);
	for (i = 0; i < n; i++)
		for (p = 0; p < PFC_PRIOS; p++)
			agent_metrics_sample(b, a, AM_PFC_STORM, ps[i].storm[p] ? "1" : "0",
					     "netdev", ps[i].netdev, "priority",
					     agent_prio(prio, p), NULL);
}

/* Priorities 0..7, then global (-1); rx before tx. */
static int agent_nic_cmp(const void *x, const void *y)
{
	const struct agent_nic_pause *p = x, *q = y;
	unsigned int pp = (unsigned int)p->priority, qp = (unsigned int)q->priority;
	int c = strcmp(p->netdev, q->netdev);

	if (!c)
		c = (pp > qp) - (pp < qp);
	return c ? c : (p->dir > q->dir) - (p->dir < q->dir);
}

static void agent_metrics_nic(struct agent_mbuf *b, struct agent *a, struct agent_nic_pause *np,
			      size_t n)
{
	char prio[24], v[24];
	size_t i;

	agent_metrics_sort(np, n, sizeof(*np), agent_nic_cmp);
	agent_metrics_family(b, AM_NIC_PAUSE);
	for (i = 0; i < n; i++)
		agent_metrics_sample(b, a, AM_NIC_PAUSE, agent_u64(v, np[i].frames), "netdev",
				     np[i].netdev, "priority", agent_prio(prio, np[i].priority),
				     "direction", np[i].dir == AGENT_NIC_TX ? "tx" : "rx", NULL);
}

static int agent_wl_count_cmp(const void *x, const void *y)
{
	const struct agent_wl_count *p = x, *q = y;
	int c = (p->kind > q->kind) - (p->kind < q->kind);

	if (!c)
		c = strcmp(p->wl_id, q->wl_id);
	return c ? c : strcmp(p->wc_status, q->wc_status);
}

static void agent_metrics_workloads(struct agent_mbuf *b, struct agent *a,
				    struct agent_wl_count *wc, size_t n)
{
	char v[24];
	size_t i;

	agent_metrics_sort(wc, n, sizeof(*wc), agent_wl_count_cmp);
	agent_metrics_family(b, AM_QP_ERRORS);
	for (i = 0; i < n; i++)
		if (wc[i].kind == AGENT_WL_QP_ERROR)
			agent_metrics_sample(b, a, AM_QP_ERRORS, agent_u64(v, wc[i].n), "wl_id",
					     wc[i].wl_id, "wc_status", wc[i].wc_status, NULL);
	agent_metrics_family(b, AM_MR_ERRORS);
	for (i = 0; i < n; i++)
		if (wc[i].kind == AGENT_WL_MR_ERROR)
			agent_metrics_sample(b, a, AM_MR_ERRORS, agent_u64(v, wc[i].n), "wl_id",
					     wc[i].wl_id, NULL);
}

static int agent_fault_cmp(const void *x, const void *y)
{
	return strcmp(((const struct agent_fault_stat *)x)->fault_id,
		      ((const struct agent_fault_stat *)y)->fault_id);
}

static int agent_name_cmp(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

static void agent_metrics_faults(struct agent_mbuf *b, struct agent *a, struct agent_fault_stat *fs,
				 size_t n)
{
	const char *names[AGENT_MAX_INJECTORS];
	size_t i, nr = 0;
	char v[24];

	agent_metrics_sort(fs, n, sizeof(*fs), agent_fault_cmp);
	agent_metrics_family(b, AM_FAULT_ACTIVE);
	for (i = 0; i < n; i++)
		agent_metrics_sample(b, a, AM_FAULT_ACTIVE, fs[i].active ? "1" : "0", "fault_id",
				     fs[i].fault_id, "injector", fs[i].injector, "target",
				     fs[i].target, NULL);
	/* Every injector, from 0: the first inject is then an increase. */
	for (i = 0; injectors[i] && nr < AGENT_MAX_INJECTORS; i++)
		names[nr++] = injectors[i]->name;
	agent_metrics_sort(names, nr, sizeof(names[0]), agent_name_cmp);
	agent_metrics_family(b, AM_FAULTS_INJECTED);
	for (i = 0; i < nr; i++)
		agent_metrics_sample(b, a, AM_FAULTS_INJECTED,
				     agent_u64(v, agent_faults_injected(a, names[i])), "injector",
				     names[i], NULL);
}

int agent_metrics_render(struct agent *a, struct agent_ethtool_poll *nic, uint64_t now_ns,
			 size_t max, char **text, size_t *len)
{
	struct agent_mbuf b = {.max = max};
	struct agent_port_stat *ps = NULL;
	struct agent_link_stat *ls = NULL;
	struct agent_rdma_counter *rc = NULL;
	struct agent_pfc_stat *pf = NULL;
	struct agent_nic_pause *np = NULL;
	struct agent_wl_count *wc = NULL;
	struct agent_fault_stat *fs = NULL;
	size_t nps = 0, nls = 0, nrc = 0, npf = 0, nnp = 0, nwc = 0, nfs = 0;
	int ret;

	*text = NULL;
	*len = 0;
	ret = agent_verbs_ports(a, &ps, &nps);
	if (!ret)
		ret = agent_link_stats(a, &ls, &nls);
	if (!ret)
		ret = agent_counters_read(a, &rc, &nrc);
	if (!ret)
		ret = agent_pfc_stats(a, &pf, &npf);
	if (!ret)
		ret = agent_ethtool_poll_frames(nic, &np, &nnp);
	if (!ret)
		ret = agent_workload_counts(a, &wc, &nwc);
	if (!ret)
		ret = agent_faults_stats(a, &fs, &nfs);
	if (ret)
		goto out;

	agent_metrics_family(&b, AM_INFO);
	agent_metrics_sample(&b, a, AM_INFO, "1", "version", RC_VERSION, NULL);
	agent_metrics_sort(ps, nps, sizeof(*ps), agent_port_cmp);
	agent_metrics_ports(&b, a, ps, nps);
	agent_metrics_links(&b, a, ls, nls, ps, nps, now_ns);
	agent_metrics_counters(&b, a, rc, nrc);
	agent_metrics_pfc(&b, a, pf, npf);
	agent_metrics_nic(&b, a, np, nnp);
	agent_metrics_storms(&b, a, pf, npf);
	agent_metrics_workloads(&b, a, wc, nwc);
	agent_metrics_faults(&b, a, fs, nfs);
	ret = b.err;
	if (!ret) {
		*text = b.p;
		*len = b.len;
		b.p = NULL;
	}
out:
	free(b.p);
	free(ps);
	free(ls);
	free(rc);
	free(pf);
	free(np);
	free(wc);
	free(fs);
	return ret;
}

/* ---- HTTP, on the loop ---- */

static enum MHD_Result agent_metrics_reply(struct MHD_Connection *conn, unsigned int status,
					   const char *msg, const char *allow)
{
	struct MHD_Response *r =
	    rc_mhd.create_response_from_buffer(strlen(msg), (void *)msg, MHD_RESPMEM_PERSISTENT);
	enum MHD_Result ret;

	if (!r)
		return MHD_NO;
	rc_mhd.add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; charset=utf-8");
	if (allow)
		rc_mhd.add_response_header(r, MHD_HTTP_HEADER_ALLOW, allow);
	ret = rc_mhd.queue_response(conn, status, r);
	rc_mhd.destroy_response(r);
	return ret;
}

static enum MHD_Result agent_metrics_request(void *cls, struct MHD_Connection *conn,
					     const char *url, const char *method,
					     const char *version, const char *upload_data,
					     size_t *upload_data_size, void **req_cls)
{
	struct agent_metrics *m = cls;
	struct MHD_Response *r;
	enum MHD_Result ret;
	size_t len;
	char *text;
	int err;

	if (strcmp(url, AGENT_METRICS_PATH))
		return agent_metrics_reply(conn, MHD_HTTP_NOT_FOUND,
					   "not found: the metrics are at GET /metrics\n", NULL);
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return agent_metrics_reply(conn, MHD_HTTP_METHOD_NOT_ALLOWED,
					   "method not allowed: use GET /metrics\n", "GET, HEAD");
	if (m->nic) {
		/* Rails that appeared since; a failing one warns each time, so not every scrape. */
		if (!m->rails_ns || rc_now_ns() - m->rails_ns >= AGENT_METRICS_RAILS_NS) {
			agent_ethtool_poll_rails(m->nic, &m->a->opts);
			m->rails_ns = rc_now_ns();
		}
		agent_ethtool_poll_sample(m->nic);
	}
	err = agent_metrics_render(m->a, m->nic, rc_now_ns(), AGENT_METRICS_MAX_BYTES, &text, &len);
	if (err) {
		if (!m->warned)
			rc_warn("metrics: cannot render /metrics: %s (the limit is %u bytes)",
				strerror(-err), AGENT_METRICS_MAX_BYTES);
		m->warned = true;
		return agent_metrics_reply(conn, MHD_HTTP_INTERNAL_SERVER_ERROR,
					   err == -E2BIG
					       ? "metrics: the text is too large; see the "
						 "agent's log\n"
					       : "metrics: out of memory\n",
					   NULL);
	}
	r = rc_mhd.create_response_from_buffer_with_free_callback(len, text, free);
	if (!r) {
		free(text);
		return MHD_NO;
	}
	rc_mhd.add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, AGENT_METRICS_CONTENT_TYPE);
	ret = rc_mhd.queue_response(conn, MHD_HTTP_OK, r);
	rc_mhd.destroy_response(r);
	return ret;
}

/* The NIC poller's `pfc` events: the metrics read its counters, the events are the sampler's. */
static void agent_metrics_nic_event(void *ctx, json_t *fields)
{
	json_decref(fields);
}

/* An answer went out: a keep-alive connection's next request has its own deadline. */
static void agent_metrics_done(void *cls, struct MHD_Connection *c, void **req_cls,
			       enum MHD_RequestTerminationCode toe)
{
	struct agent_metrics *m = cls;

	rc_http_deadline_answered(m->deadline, c);
}

/* MHD's own messages, into the agent's log. */
static void agent_metrics_log(void *cls, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));

static void agent_metrics_log(void *cls, const char *fmt, va_list ap)
{
	char msg[512];
	size_t n;

	vsnprintf(msg, sizeof(msg), fmt, ap);
	n = strlen(msg);
	while (n && msg[n - 1] == '\n')
		msg[--n] = '\0';
	rc_warn("metrics: libmicrohttpd: %s", msg);
}

/*
 * MHD_run(), then slow clients cut (a cut socket reads as closed, so MHD's epoll fd wakes the
 * loop and the next MHD_run() reaps it), then the poll re-armed and the timer set to
 * MHD_get_timeout() or the next request deadline, whichever comes first.
 */
static void agent_metrics_run(struct agent_metrics *m)
{
	uint64_t due = 0, next = 0;
	MHD_UNSIGNED_LONG_LONG ms;
	unsigned int cut;

	if (rc_mhd.run(m->d) != MHD_YES)
		rc_dbg("metrics: MHD_run failed");
	cut = rc_http_deadline_sweep(m->deadline, rc_now_ns(), &next);
	if (cut)
		rc_warn("metrics: %u connection%s cut: no whole request within %d s", cut,
			cut == 1 ? "" : "s", AGENT_METRICS_CONN_TIMEOUT_S);
	if (rc_mhd.get_timeout(m->d, &ms) == MHD_YES) {
		if (ms > AGENT_METRICS_MAX_WAIT_MS)
			ms = AGENT_METRICS_MAX_WAIT_MS;
		due = rc_now_ns() + ms * RC_NSEC_PER_MSEC;
	}
	if (next && (!due || next < due))
		due = next;
	if (due)
		agent_timer_set(&m->a->loop, &m->timer, due);
	else
		agent_timer_cancel(&m->timer);
	if (!m->poll_failed)
		agent_poll_arm(&m->poll);
}

static void agent_metrics_ready(struct agent_poll *p, int res)
{
	struct agent_metrics *m = agent_container_of(p, struct agent_metrics, poll);

	if (res < 0) {
		/* EBADF and the like would fail again at once: say so, keep the timer going. */
		rc_err("metrics: poll on the epoll fd: %s; /metrics no longer served",
		       strerror(-res));
		m->poll_failed = true;
		return;
	}
	agent_metrics_run(m);
}

static void agent_metrics_timer(struct agent_timer *t)
{
	agent_metrics_run(agent_container_of(t, struct agent_metrics, timer));
}

static void agent_metrics_free(struct agent_metrics *m)
{
	agent_timer_cancel(&m->timer);
	/* closes the listening socket, the epoll fd, connections */
	if (m->d)
		rc_mhd.stop_daemon(m->d);
	rc_http_deadline_free(m->deadline);
	agent_ethtool_poll_free(m->nic);
	free(m);
}

/* A sentence for why listening failed, and what to do. */
static const char *agent_metrics_listen_hint(int err)
{
	switch (err) {
	case -EADDRINUSE:
		return "another process (or another agent) listens there; see `ss -ltnp` and give "
		       "--metrics-listen another port";
	case -EADDRNOTAVAIL:
		return "no interface of this node has that address; give one of its addresses, or "
		       "0.0.0.0";
	case -EACCES:
		return "a port below 1024 needs CAP_NET_BIND_SERVICE; use e.g. 9464";
	default:
		return "give --metrics-listen another ADDR:PORT";
	}
}

int agent_metrics_start(struct agent *a)
{
	const char *host = a->opts.metrics_host;
	const union MHD_DaemonInfo *info;
	struct agent_metrics *m;
	char why[256];
	int fd = -1, ret;

	if (!a->opts.metrics_port)
		return 0;
	ret = rc_mhd_load(why, sizeof(why));
	if (ret) {
		rc_err("--metrics-listen %s:%u: %s", host, a->opts.metrics_port, why);
		return ret;
	}
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->a = a;
	m->timer.fire = agent_metrics_timer;
	agent_list_init(&m->timer.node);
	m->deadline =
	    rc_http_deadline_new((uint64_t)AGENT_METRICS_CONN_TIMEOUT_S * RC_NSEC_PER_SEC);
	if (!m->deadline) {
		ret = -ENOMEM;
		goto err;
	}
	ret = rc_tcp_listen(strcmp(host, "0.0.0.0") ? host : NULL, a->opts.metrics_port, &fd);
	if (ret) {
		rc_err("--metrics-listen %s:%u: cannot listen: %s: %s", host, a->opts.metrics_port,
		       strerror(-ret), agent_metrics_listen_hint(ret));
		goto err;
	}
	/* External epoll mode: no thread; the loop polls MHD's epoll fd and calls MHD_run(). */
	m->d = rc_mhd.start_daemon(
	    MHD_USE_EPOLL | MHD_USE_ERROR_LOG, 0, NULL, NULL, agent_metrics_request, m,
	    MHD_OPTION_EXTERNAL_LOGGER, agent_metrics_log, m, MHD_OPTION_LISTEN_SOCKET, fd,
	    MHD_OPTION_CONNECTION_LIMIT, (unsigned int)AGENT_METRICS_CONN_LIMIT,
	    MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned int)AGENT_METRICS_CONN_PER_IP,
	    MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)AGENT_METRICS_CONN_TIMEOUT_S,
	    MHD_OPTION_NOTIFY_CONNECTION, rc_http_deadline_notify, m->deadline,
	    MHD_OPTION_NOTIFY_COMPLETED, agent_metrics_done, m, MHD_OPTION_END);
	if (!m->d) {
		rc_err("--metrics-listen %s:%u: libmicrohttpd did not start (see above)", host,
		       a->opts.metrics_port);
		close(fd);
		ret = -EIO;
		goto err;
	}
	info = rc_mhd.get_daemon_info(m->d, MHD_DAEMON_INFO_EPOLL_FD);
	if (!info || info->epoll_fd < 0) {
		rc_err("--metrics-listen: libmicrohttpd has no epoll fd to poll");
		ret = -EIO;
		goto err;
	}
	agent_poll_init(&m->poll, &a->loop, info->epoll_fd, POLLIN, true, agent_metrics_ready,
			NULL);
	ret = agent_poll_arm(&m->poll);
	if (ret)
		goto err;
	/* Its own NIC counter poller: reading at scrapes sends no `pfc` event. */
	m->nic = agent_ethtool_poll_new(agent_metrics_nic_event, NULL);
	a->metrics = m;
	rc_info("metrics: serving http://%s:%u%s (libmicrohttpd %s, on the loop)", host,
		a->opts.metrics_port, AGENT_METRICS_PATH, rc_mhd.get_version());
	return 0;
err:
	agent_metrics_free(m);
	return ret;
}

void agent_metrics_stop(struct agent *a)
{
	/* Only at exit, after the loop: the ring is torn down next, so no idle() is awaited. */
	if (!a->metrics)
		return;
	agent_metrics_free(a->metrics);
	a->metrics = NULL;
}
