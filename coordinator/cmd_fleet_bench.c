// SPDX-License-Identifier: MIT
/*
 * `rdmachaos fleet bench`: how fast one coordinator drives every agent of a fleet file (make
 * bench-fleet, bench/fleet.sh): connect and handshake, clock alignment, a round of no-op
 * requests, a link_down inject fanned out to all and its revert (each agent's "in effect" on
 * the coordinator's clock), and lease renewals while the faults are held (the coordinator's
 * CPU, and whether any lease ran out). It faults rail 0 of every node: point it only at
 * agents whose rail 0 may go down (the bench's own veth pairs).
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "common/units.h"
#include "coordinator/cli_tls.h"
#include "coordinator/cmd_fleet.h"
#include "coordinator/drill.h"
#include "coordinator/fleet.h"
#include "coordinator/fleetfile.h"

#define FB_FAULT "fleet-bench-link-down"
#define FB_LEASE_MS 5000
#define FB_CALL_MS 30000

struct fb_opts {
	const char *fleet;
	unsigned int rounds; /* no-op rounds */
	unsigned int hold_s; /* faults held under renewals */
	int timeout_ms;	     /* each connect */
	bool json;
};

static void fb_usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: rdmachaos fleet bench --fleet FILE [--rounds N] [--hold S] [--timeout S]\n"
	    "       [-o table|json] [TLS options]\n"
	    "\n"
	    "How fast this coordinator drives every agent of FILE: connect and handshake, clock\n"
	    "alignment, N rounds of no-op requests (default 5), a link_down inject on rail 0 of\n"
	    "every node at once and its revert (from the send to each agent's \"in effect\"), and\n"
	    "S seconds of lease renewals while the faults are held (default 10): the CPU they "
	    "cost\n"
	    "and whether a lease ran out. It faults rail 0 of every node of FILE: run it only on\n"
	    "agents whose rail 0 may go down (make bench-fleet gives each a veth of its own).\n"
	    "Exit code: 0 done, 1 an agent failed a step, 64 usage, 65 bad fleet file.\n");
}

static int fb_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* {"n", "p50", "p99", "max"} of v (sorted in place), in ms; null when there is none. */
static json_t *fb_stats(double *v, size_t n)
{
	if (!n)
		return json_null();
	qsort(v, n, sizeof(*v), fb_cmp_double);
	return json_pack("{s:I,s:f,s:f,s:f}", "n", (json_int_t)n, "p50_ms", v[(n - 1) / 2],
			 "p99_ms", v[(size_t)((double)(n - 1) * 0.99 + 0.5)], "max_ms", v[n - 1]);
}

static double fb_cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec +
	       ((double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_usec) / 1e6;
}

/* VmRSS or VmHWM of this process, in KiB (0: unknown). */
static long fb_status_kib(const char *key)
{
	char line[256];
	long v = 0;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, strlen(key)) && line[strlen(key)] == ':')
			v = strtol(line + strlen(key) + 1, NULL, 10);
	fclose(f);
	return v;
}

struct fb_run {
	struct fleet fl;
	json_t **res;
	char (*errs)[256];
	unsigned int failures;
	json_t *out;
};

/* Sends req to every agent; counts and prints the failures (the first few). */
static void fb_call_all(struct fb_run *b, json_t *req, const char *step)
{
	unsigned int i, shown = 0;

	fleet_call_many(&b->fl, NULL, req, FB_CALL_MS, b->res, b->errs);
	for (i = 0; i < b->fl.nr_agents; i++) {
		if (b->res[i])
			continue;
		b->failures++;
		if (shown++ < 5)
			fprintf(stderr, "rdmachaos fleet bench: %s: %s\n", step, b->errs[i]);
	}
}

static void fb_drop_results(struct fb_run *b)
{
	unsigned int i;

	for (i = 0; i < b->fl.nr_agents; i++) {
		json_decref(b->res[i]);
		b->res[i] = NULL;
	}
}

/* A fan-out of op: from the send (t0) to each agent's time in the answer, on our clock. */
static json_t *fb_fanout(struct fb_run *b, json_t *req, const char *at_key, double *v)
{
	unsigned int i;
	size_t n = 0;
	uint64_t t0 = rc_now_ns();
	double *ack = calloc(b->fl.nr_agents ?: 1, sizeof(*ack));
	json_t *o;

	fleet_set_t0(&b->fl, t0);
	fb_call_all(b, req, json_string_value(json_object_get(req, "op")));
	for (i = 0; i < b->fl.nr_agents && ack; i++) {
		json_t *at = b->res[i] ? json_object_get(b->res[i], at_key) : NULL;

		if (!json_is_integer(at))
			continue;
		v[n] = fleet_agent_ms(&b->fl, &b->fl.agents[i], (uint64_t)json_integer_value(at));
		ack[n++] = (double)(b->fl.agents[i].resp_ns - t0) / 1e6;
	}
	o = json_pack("{s:o,s:o}", "in_effect", fb_stats(v, n), "answered",
		      ack ? fb_stats(ack, n) : json_null());
	free(ack);
	fb_drop_results(b);
	return o;
}

static int fb_steps(struct fb_run *b, const struct fb_opts *o, char *err, size_t errlen)
{
	unsigned int n = b->fl.nr_agents, i, r;
	double *v = calloc((size_t)n * (o->rounds ?: 1) + 1, sizeof(*v)), cpu0, worst = 0;
	uint64_t t, end, next;
	size_t nv = 0;
	unsigned int renewals = 0;
	json_t *req, *still;
	int ret;

	if (!v)
		return -ENOMEM;
	/* connect and handshake, as a drill does (fleet_connect: 16 dialers) */
	t = rc_now_ns();
	ret = fleet_connect(&b->fl, o->timeout_ms, err, errlen);
	if (ret)
		goto out;
	json_object_set_new(b->out, "connect_ms", json_real((double)(rc_now_ns() - t) / 1e6));
	t = rc_now_ns();
	ret = fleet_align_clocks(&b->fl, 5, err, errlen);
	if (ret)
		goto out;
	for (i = 0; i < n; i++)
		if (b->fl.agents[i].clock.uncertainty_ns / 1e6 > worst)
			worst = b->fl.agents[i].clock.uncertainty_ns / 1e6;
	json_object_set_new(b->out, "align",
			    json_pack("{s:f,s:f}", "ms", (double)(rc_now_ns() - t) / 1e6,
				      "worst_uncertainty_ms", worst));
	/* no-op rounds: the time request, to every agent at once */
	req = json_pack("{s:s}", "op", "time");
	for (r = 0; r < o->rounds; r++) {
		t = rc_now_ns();
		fb_call_all(b, req, "time");
		for (i = 0; i < n; i++)
			if (b->res[i])
				v[nv++] = (double)(b->fl.agents[i].resp_ns - t) / 1e6;
		fb_drop_results(b);
	}
	json_decref(req);
	json_object_set_new(b->out, "noop", fb_stats(v, nv));
	/* the fan-out of a link_down on rail 0, held under leases, then reverted */
	req = json_pack("{s:s,s:s,s:s,s:{s:i},s:{},s:I,s:I}", "op", "inject", "fault_id", FB_FAULT,
			"injector", "link_down", "target", "rail", 0, "params", "duration_ms",
			(json_int_t)(o->hold_s + 60) * 1000, "lease_ms", (json_int_t)FB_LEASE_MS);
	json_object_set_new(b->out, "inject", fb_fanout(b, req, "injected_at_ns", v));
	json_decref(req);
	req = json_pack("{s:s,s:[s]}", "op", "renew", "fault_ids", FB_FAULT);
	cpu0 = fb_cpu_s();
	t = rc_now_ns();
	end = t + (uint64_t)o->hold_s * RC_NSEC_PER_SEC;
	for (next = t; rc_now_ns() < end;) {
		if (rc_now_ns() >= next) {
			fb_call_all(b, req, "renew");
			fb_drop_results(b);
			renewals++;
			next += FB_LEASE_MS / 2 * RC_NSEC_PER_MSEC;
		}
		fleet_pump(&b->fl, 50); /* events, as a drill takes them */
	}
	json_decref(req);
	/* every agent must still hold its fault: a lease that ran out reverted it */
	req = json_pack("{s:s}", "op", "faults");
	fleet_call_many(&b->fl, NULL, req, FB_CALL_MS, b->res, b->errs);
	json_decref(req);
	still = json_integer(0);
	for (i = 0; i < n; i++) {
		const char *dump = b->res[i] ? json_dumps(b->res[i], JSON_COMPACT) : NULL;

		if (dump && strstr(dump, FB_FAULT))
			json_integer_set(still, json_integer_value(still) + 1);
		free((void *)dump);
	}
	fb_drop_results(b);
	json_object_set_new(b->out, "leases",
			    json_pack("{s:i,s:i,s:I,s:I,s:f,s:f}", "hold_s", (int)o->hold_s,
				      "renewal_rounds", (int)renewals, "faults_held",
				      json_integer_value(still), "missed",
				      (json_int_t)n - json_integer_value(still),
				      "coordinator_cpu_s", fb_cpu_s() - cpu0, "coordinator_cpu_pct",
				      100.0 * (fb_cpu_s() - cpu0) / (double)(o->hold_s ?: 1)));
	json_decref(still);
	req = json_pack("{s:s,s:s}", "op", "revert", "fault_id", FB_FAULT);
	json_object_set_new(b->out, "revert", fb_fanout(b, req, "reverted_at_ns", v));
	json_decref(req);
	json_object_set_new(b->out, "coordinator_rss_kib", json_integer(fb_status_kib("VmRSS")));
	json_object_set_new(b->out, "coordinator_hwm_kib", json_integer(fb_status_kib("VmHWM")));
out:
	free(v);
	return ret;
}

static void fb_print(const json_t *o)
{
	const json_t *l = json_object_get(o, "leases");

#define FB_P(obj, k) json_number_value(json_object_get(json_object_get(o, obj), k))
	printf("agents %lld: connect %.0f ms, align %.0f ms (worst +/- %.3f ms)\n",
	       (long long)json_integer_value(json_object_get(o, "agents")),
	       json_number_value(json_object_get(o, "connect_ms")), FB_P("align", "ms"),
	       FB_P("align", "worst_uncertainty_ms"));
	printf("no-op: p50 %.2f ms, p99 %.2f ms, max %.2f ms\n", FB_P("noop", "p50_ms"),
	       FB_P("noop", "p99_ms"), FB_P("noop", "max_ms"));
#undef FB_P
	for (int k = 0; k < 2; k++) {
		const json_t *s =
		    json_object_get(json_object_get(o, k ? "revert" : "inject"), "in_effect");

		printf("%s fan-out, send to in effect: p50 %.2f ms, p99 %.2f ms, max %.2f ms\n",
		       k ? "revert" : "inject", json_number_value(json_object_get(s, "p50_ms")),
		       json_number_value(json_object_get(s, "p99_ms")),
		       json_number_value(json_object_get(s, "max_ms")));
	}
	printf("leases: %lld renewal rounds in %lld s, coordinator CPU %.2f%%, %lld of %lld "
	       "faults still held (missed %lld); coordinator RSS %lld KiB\n",
	       (long long)json_integer_value(json_object_get(l, "renewal_rounds")),
	       (long long)json_integer_value(json_object_get(l, "hold_s")),
	       json_number_value(json_object_get(l, "coordinator_cpu_pct")),
	       (long long)json_integer_value(json_object_get(l, "faults_held")),
	       (long long)json_integer_value(json_object_get(o, "agents")),
	       (long long)json_integer_value(json_object_get(l, "missed")),
	       (long long)json_integer_value(json_object_get(o, "coordinator_rss_kib")));
}

static int fb_parse(int argc, char **argv, struct fb_opts *o, struct fleet_tls_opts *tls)
{
	static const struct option opts[] = {
	    {"fleet", required_argument, NULL, 'f'},  {"rounds", required_argument, NULL, 'r'},
	    {"hold", required_argument, NULL, 'H'},   {"timeout", required_argument, NULL, 't'},
	    {"output", required_argument, NULL, 'o'}, CLI_TLS_LONG_OPTIONS,
	    {"help", no_argument, NULL, 'h'},	      {NULL, 0, NULL, 0},
	};
	char *end;
	long v;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
		if (cli_tls_opt(c, optarg, tls))
			continue;
		switch (c) {
		case 'f':
			o->fleet = optarg;
			break;
		case 'r':
		case 'H':
		case 't':
			v = strtol(optarg, &end, 10);
			if (*end || end == optarg || v < (c == 'r' ? 1 : 0) || v > 3600) {
				fprintf(stderr, "rdmachaos fleet bench: --%s %s: want 0..3600\n",
					c == 'r'   ? "rounds"
					: c == 'H' ? "hold"
						   : "timeout",
					optarg);
				return RC_EXIT_USAGE;
			}
			if (c == 'r')
				o->rounds = (unsigned int)v;
			else if (c == 'H')
				o->hold_s = (unsigned int)v;
			else
				o->timeout_ms = (int)v * 1000 ?: 1000;
			break;
		case 'o':
			if (strcmp(optarg, "json") && strcmp(optarg, "table")) {
				fprintf(stderr,
					"rdmachaos fleet bench: -o %s: want table or json\n",
					optarg);
				return RC_EXIT_USAGE;
			}
			o->json = !strcmp(optarg, "json");
			break;
		case 'h':
			fb_usage(stdout);
			return -1;
		default:
			fb_usage(stderr);
			return RC_EXIT_USAGE;
		}
	}
	if (optind != argc || !o->fleet) {
		fprintf(stderr, "rdmachaos fleet bench: give --fleet FILE\n");
		return RC_EXIT_USAGE;
	}
	return cli_tls_check("fleet bench", tls);
}

int cmd_fleet_bench(int argc, char **argv)
{
	struct fb_opts o = {.rounds = 5, .hold_s = 10, .timeout_ms = 5000};
	struct fleet_tls_opts tls = {0};
	struct fb_run b = {0};
	struct fleetfile ff;
	char err[1024] = "";
	unsigned int i;
	int ret = fb_parse(argc, argv, &o, &tls);

	if (ret)
		return ret < 0 ? 0 : ret;
	if (ff_load(o.fleet, &ff, NULL, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		fleet_tls_free();
		return RC_EXIT_SCENARIO;
	}
	signal(SIGPIPE, SIG_IGN);
	ret = -ENOMEM;
	b.res = calloc(ff.nr_nodes ?: 1, sizeof(*b.res));
	b.errs = calloc(ff.nr_nodes ?: 1, sizeof(*b.errs));
	b.out = json_pack("{s:s,s:I}", "fleet", o.fleet, "agents", (json_int_t)ff.nr_nodes);
	if (!b.res || !b.errs || !b.out || fleet_init(&b.fl, ff.nr_nodes))
		goto out;
	for (i = 0; i < ff.nr_nodes; i++) {
		snprintf(b.fl.agents[i].name, sizeof(b.fl.agents[i].name), "%s", ff.nodes[i].name);
		snprintf(b.fl.agents[i].addr, sizeof(b.fl.agents[i].addr), "%s", ff.nodes[i].agent);
	}
	ret = fb_steps(&b, &o, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "rdmachaos fleet bench: %s\n", err[0] ? err : strerror(-ret));
		ret = RC_EXIT_FAIL;
		goto out;
	}
	json_object_set_new(b.out, "failures", json_integer(b.failures));
	if (o.json) {
		json_dumpf(b.out, stdout, JSON_INDENT(2));
		putchar('\n');
	} else {
		fb_print(b.out);
	}
	ret = b.failures ? RC_EXIT_FAIL : 0;
out:
	if (ret == -ENOMEM) {
		fprintf(stderr, "rdmachaos fleet bench: out of memory\n");
		ret = RC_EXIT_INTERNAL;
	}
	fleet_free(&b.fl);
	fleet_tls_free();
	ff_free(&ff);
	json_decref(b.out);
	free(b.res);
	free(b.errs);
	return ret;
}
