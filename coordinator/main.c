// SPDX-License-Identifier: MIT
/* rdmachaos: the coordinator's command line (run, lab, call, fleet, certs, injectors, version). */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/conn.h"
#include "common/log.h"
#include "common/units.h"
#include "coordinator/certs.h"
#include "coordinator/cli_tls.h"
#include "coordinator/cmd_fleet.h"
#include "coordinator/cmd_report.h"
#include "coordinator/cmd_validate.h"
#include "coordinator/drill.h"
#include "coordinator/fleet.h"
#include "injectors/injector.h"

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: rdmachaos COMMAND [ARGS]\n"
	    "\n"
	    "Chaos drills for RDMA fabrics: node agents inject faults while real RDMA traffic "
	    "runs,\n"
	    "and the drill checks that detection, isolation and recovery meet its thresholds.\n"
	    "\n"
	    "commands:\n"
	    "  run SCENARIO [--lab] [--out DIR] [--dry-run] [--seed N] [--quiet]\n"
	    "      [--progress auto|live|plain] [--alert-receiver ADDR:PORT]\n"
	    "      [--alert-token-file FILE] [--fleet FILE]\n"
	    "        run a drill; writes report.json, report.md, report.html, junit.xml and\n"
	    "        events.jsonl into DIR\n"
	    "        (default runs/<UTC time>-<name>/). --lab runs it in the QEMU Soft-RoCE lab\n"
	    "        (implied by a drill that declares `lab:`): it uses the lab that is up, or\n"
	    "        boots one and stops it afterwards. --dry-run prints the plan, touches "
	    "nothing.\n"
	    "        On a terminal a live status line shows the phase, the fault in force and\n"
	    "        throughput against the baseline (--progress auto); plain: one line per\n"
	    "        event and a progress line every 5 s, as in CI logs.\n"
	    "        --alert-receiver: listen there for Alertmanager's webhooks and check the\n"
	    "        scenario's expect.alerts (docs/MONITORING.md); --alert-token-file: the\n"
	    "        bearer token they must carry (Alertmanager's credentials_file).\n"
	    "        --fleet: the fleet file (docs/FLEET.md) the drill's select: picks its\n"
	    "        nodes from by label, drawing from --seed (default: the lab's nodes).\n"
	    "  lab up [--nodes N] [--rails R] [--accel tcg|kvm|auto] | status | exec NODE -- CMD | "
	    "down\n"
	    "        the multi-node Soft-RoCE lab (one QEMU guest per node, R rails each)\n"
	    "  call HOST:PORT JSON [--events SECONDS [--until KEY=VALUE]] [--peer NAME]\n"
	    "        send one request to an agent and print the answer (and events); the agent's\n"
	    "        certificate must name NAME (default: the lab node at HOST:PORT, or HOST)\n"
	    "  fleet status (--fleet FILE | --lab) [-o table|json]\n"
	    "        connect to every agent of a fleet file (docs/FLEET.md) and print one row\n"
	    "        per node: reachable, version, kernel, RDMA ports, clock offset, faults held\n"
	    "  fleet bench --fleet FILE [--rounds N] [--hold S] [-o table|json]\n"
	    "        how fast one coordinator drives every agent of FILE: connect, clocks, no-op\n"
	    "        requests, a link_down fanned out to rail 0 of all and reverted, leases\n"
	    "        (make bench-fleet; it faults rail 0 of every node)\n"
	    "  certs init | issue NAME [--dir DIR] [--days N] [--san NAME,...]\n"
	    "        the private CA and the certificates for mutual TLS (rdmachaos certs --help)\n"
	    "  validate [--strict] [--seed N] SCENARIO...\n"
	    "        check drills, touching nothing: every error as FILE:LINE:COL, and lint\n"
	    "        warnings (exit 65 on an error, or on a warning with --strict)\n"
	    "  report RUN_DIR [--out DIR] [--format md,html,junit,json]\n"
	    "        render a recorded run again (report.md, report.html, junit.xml)\n"
	    "  compare BASE_RUN NEW_RUN [--tolerance PCT] [--min-delta D]\n"
	    "        print regressions between two runs of a drill; exit 1 when one passes the\n"
	    "        tolerance (a CI gate)\n"
	    "  injectors      list the fault injectors and their parameters\n"
	    "  version        print the version\n"
	    "\n"
	    "TLS (run, call, fleet): every agent connection is mutual TLS 1.3. Credentials:\n"
	    "  --tls-dir DIR          DIR/ca.crt, DIR/coordinator.crt, DIR/coordinator.key\n"
	    "  --ca, --cert, --key F  each file on its own (wins over --tls-dir's)\n"
	    "  default: the lab's PKI for a lab agent (build/lab/pki), else $RDMACHAOS_TLS_DIR,\n"
	    "  else ~/.config/rdmachaos/pki. --insecure-plaintext: no TLS, agents on 127.0.0.0/8\n"
	    "  or ::1 only (tests).\n"
	    "\n"
	    "exit codes of run: 0 pass, 1 a threshold violated, 2 inconclusive, 3 cleanup not\n"
	    "verified, 64 usage error, 65 invalid scenario, 70 internal error.\n"
	    "\n"
	    "example:\n"
	    "  rdmachaos run scenarios/link-down.yaml --lab\n"
	    "docs: docs/SCENARIOS.md (drill format), docs/REPORT.md (report), docs/PROTOCOL.md\n");
}

static void on_signal(int sig)
{
	(void)sig;
	drill_stop_requested++;
}

enum {
	OPT_EVENTS = 256,
	OPT_UNTIL,
	OPT_PEER,
	OPT_TIME,
	OPT_ALERT_TOKEN,
	OPT_FLEET,
};

static int cmd_run(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"lab", no_argument, NULL, 'l'},
	    {"out", required_argument, NULL, 'o'},
	    {"dry-run", no_argument, NULL, 'n'},
	    {"seed", required_argument, NULL, 's'},
	    {"quiet", no_argument, NULL, 'q'},
	    {"progress", required_argument, NULL, 'p'},
	    {"alert-receiver", required_argument, NULL, 'r'},
	    {"alert-token-file", required_argument, NULL, OPT_ALERT_TOKEN},
	    {"fleet", required_argument, NULL, OPT_FLEET},
	    CLI_TLS_LONG_OPTIONS,
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct drill_opts o = {0};
	struct fleet_tls_opts tls = {0};
	struct sigaction sa = {.sa_handler = on_signal};
	char *end;
	int c, ret;

	optind = 1;
	while ((c = getopt_long(argc, argv, "lo:ns:qp:r:h", opts, NULL)) != -1) {
		if (cli_tls_opt(c, optarg, &tls))
			continue;
		switch (c) {
		case 'l':
			o.lab = true;
			break;
		case 'o':
			o.out_dir = optarg;
			break;
		case 'n':
			o.dry_run = true;
			break;
		case 's':
			errno = 0;
			o.seed = strtoull(optarg, &end, 0);
			if (errno || *end || optarg[0] == '-') {
				fprintf(stderr,
					"rdmachaos run: --seed '%s': want a non-negative integer\n",
					optarg);
				return RC_EXIT_USAGE;
			}
			o.have_seed = true;
			break;
		case 'q':
			o.quiet = true;
			break;
		case 'r':
			o.alert_receiver = optarg;
			break;
		case OPT_ALERT_TOKEN:
			o.alert_token_file = optarg;
			break;
		case OPT_FLEET:
			o.fleet = optarg;
			break;
		case 'p':
			if (!strcmp(optarg, "auto")) {
				o.progress = PROG_AUTO;
			} else if (!strcmp(optarg, "live")) {
				o.progress = PROG_LIVE;
			} else if (!strcmp(optarg, "plain")) {
				o.progress = PROG_PLAIN;
			} else {
				fprintf(stderr,
					"rdmachaos run: --progress '%s': want auto, live or "
					"plain\n",
					optarg);
				return RC_EXIT_USAGE;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			fprintf(stderr, "rdmachaos run: see rdmachaos --help\n");
			return RC_EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "rdmachaos run: want exactly one SCENARIO file, e.g. "
				"rdmachaos run scenarios/link-down.yaml --lab\n");
		return RC_EXIT_USAGE;
	}
	o.scenario = argv[optind];
	ret = cli_tls_check("run", &tls);
	if (ret)
		return ret;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	ret = drill_run(&o);
	fleet_tls_free();
	return ret;
}

static int cmd_lab(int argc, char **argv)
{
	char script[4096];
	char **args = calloc((size_t)argc + 3, sizeof(*args));
	int i;

	if (!args)
		return RC_EXIT_INTERNAL;
	snprintf(script, sizeof(script), "%s/lab/lab.sh", RC_SRCDIR);
	args[0] = (char *)"bash";
	args[1] = script;
	for (i = 1; i < argc; i++)
		args[i + 1] = argv[i];
	execv("/bin/bash", args);
	fprintf(stderr, "rdmachaos lab: cannot run %s: %s\n", script, strerror(errno));
	free(args);
	return RC_EXIT_INTERNAL;
}

/* --until KEY=VALUE: the event that ends the listening, once seen. */
struct call_until {
	char key[64];
	const char *value; /* NULL: listen for the whole --events time */
	bool seen;
};

static int call_print_event(struct rc_conn *c, uint16_t type, json_t *msg, void *arg)
{
	struct call_until *u = arg;
	char *s = json_dumps(msg, JSON_COMPACT);
	const json_t *v;

	printf("%s\n", s ? s : "{}");
	fflush(stdout);
	free(s);
	if (u && u->value && (v = json_object_get(msg, u->key)) &&
	    !strcmp(json_is_string(v) ? json_string_value(v) : "", u->value))
		u->seen = true;
	return 0;
}

static void call_usage(FILE *f)
{
	fprintf(f, "usage: rdmachaos call HOST:PORT JSON [--events SECONDS [--until KEY=VALUE]]\n"
		   "         [--peer NAME] [--tls-dir DIR | --ca F --cert F --key F |\n"
		   "         --insecure-plaintext]\n"
		   "  e.g. rdmachaos call 127.0.0.1:17700 '{\"op\":\"inventory\"}'\n"
		   "  --events S   subscribe first, and print the agent's events for S seconds\n"
		   "  --until K=V  stop listening once an event whose K is the string V came,\n"
		   "               e.g. --events 60 --until action=revert\n"
		   "  --peer NAME  the name the agent's certificate must carry (default: the lab\n"
		   "               node at HOST:PORT, else HOST); TLS flags: rdmachaos --help\n"
		   "  --time       also print to stderr how long the answer took on the open\n"
		   "               connection, and its round trip (the best of 3 time requests)\n");
}

/* The connection's round trip: the best of three no-op (time) requests, in ms; -1 failed. */
static double call_round_trip_ms(struct rc_conn *conn)
{
	double best = -1;
	int i;

	for (i = 0; i < 3; i++) {
		json_t *ping = json_pack("{s:s}", "op", "time"), *none = NULL;
		uint64_t t0 = rc_now_ns();
		int r = rc_conn_call(conn, ping, 5000, &none, NULL, NULL);
		double ms = (double)(rc_now_ns() - t0) / 1e6;

		json_decref(ping);
		json_decref(none);
		if (r)
			return -1;
		if (best < 0 || ms < best)
			best = ms;
	}
	return best;
}

/* Prints the agent's events for events_s seconds, or until --until's event came. */
static void call_listen(struct rc_conn *conn, double events_s, struct call_until *until)
{
	uint64_t end = rc_now_ns() + (uint64_t)(events_s * 1e9);

	while (rc_now_ns() < end && !until->seen) {
		json_t *none = NULL;
		json_t *ping = json_pack("{s:s}", "op", "time");
		int r = rc_conn_call(conn, ping, 200, &none, call_print_event, until);

		json_decref(ping);
		json_decref(none);
		if (r && r != -ETIMEDOUT)
			break;
		usleep(100000);
	}
}

static int cmd_call(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"events", required_argument, NULL, OPT_EVENTS},
	    {"until", required_argument, NULL, OPT_UNTIL},
	    {"peer", required_argument, NULL, OPT_PEER},
	    {"time", no_argument, NULL, OPT_TIME},
	    CLI_TLS_LONG_OPTIONS,
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct fleet_tls_opts tls = {0};
	struct rc_transport *t;
	struct rc_conn conn;
	json_error_t jerr;
	json_t *req, *resp = NULL;
	struct call_until until = {.value = NULL};
	double events_s = 0, rtt_ms = -1;
	uint64_t sent_ns;
	bool timed = false;
	const char *addr, *peer = NULL, *eq;
	char err[1024];
	char *s, *num_end;
	int c, ret;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (cli_tls_opt(c, optarg, &tls))
			continue;
		switch (c) {
		case OPT_EVENTS:
			events_s = strtod(optarg, &num_end);
			if (*num_end || num_end == optarg || events_s < 0) {
				fprintf(stderr, "rdmachaos call: --events '%s': want seconds\n",
					optarg);
				return RC_EXIT_USAGE;
			}
			break;
		case OPT_UNTIL:
			eq = strchr(optarg, '=');
			if (!eq || eq == optarg || (size_t)(eq - optarg) >= sizeof(until.key)) {
				fprintf(stderr,
					"rdmachaos call: --until '%s': want KEY=VALUE, e.g. "
					"action=revert\n",
					optarg);
				return RC_EXIT_USAGE;
			}
			memcpy(until.key, optarg, (size_t)(eq - optarg));
			until.value = eq + 1;
			break;
		case OPT_PEER:
			peer = optarg;
			break;
		case OPT_TIME:
			timed = true;
			break;
		case 'h':
			call_usage(stdout);
			return 0;
		default:
			call_usage(stderr);
			return RC_EXIT_USAGE;
		}
	}
	if (optind != argc - 2) {
		call_usage(stderr);
		return RC_EXIT_USAGE;
	}
	if (until.value && events_s <= 0) {
		fprintf(stderr,
			"rdmachaos call: --until listens for events: add --events SECONDS\n");
		return RC_EXIT_USAGE;
	}
	addr = argv[optind];
	ret = cli_tls_check("call", &tls);
	if (ret)
		return ret;
	req = json_loads(argv[optind + 1], 0, &jerr);
	if (!json_is_object(req)) {
		fprintf(stderr, "rdmachaos call: JSON: %s\n", req ? "want an object" : jerr.text);
		json_decref(req);
		return RC_EXIT_USAGE;
	}
	signal(SIGPIPE, SIG_IGN);
	ret = fleet_dial(peer, peer != NULL, addr, 5000, &t, err, sizeof(err));
	fleet_tls_free(); /* the connection keeps what it needs */
	if (ret) {
		fprintf(stderr, "rdmachaos call: %s\n", err);
		json_decref(req);
		return ret == -EINVAL ? RC_EXIT_USAGE : RC_EXIT_FAIL;
	}
	rc_conn_init(&conn, t);
	if (events_s > 0) {
		json_t *sub =
		    json_pack("{s:s,s:i}", "op", "subscribe", "counters_interval_ms", 1000);
		json_t *none = NULL;

		rc_conn_call(&conn, sub, 5000, &none, call_print_event, &until);
		json_decref(sub);
		json_decref(none);
	}
	if (timed)
		rtt_ms = call_round_trip_ms(&conn);
	sent_ns = rc_now_ns();
	ret = rc_conn_call(&conn, req, 30000, &resp, call_print_event, &until);
	if (timed && !ret)
		fprintf(
		    stderr,
		    "rdmachaos call: answered in %.3f ms; control round trip %.3f ms (best of 3 "
		    "time requests)\n",
		    (double)(rc_now_ns() - sent_ns) / 1e6, rtt_ms);
	if (!ret) {
		s = json_dumps(resp, JSON_COMPACT);
		printf("%s\n", s);
		fflush(stdout);
		free(s);
		ret = json_is_true(json_object_get(resp, "ok")) ? 0 : 1;
		json_decref(resp);
	} else {
		fprintf(stderr, "rdmachaos call: %s: %s%s\n", addr,
			conn.t->error[0] ? conn.t->error : strerror(-ret),
			tls.insecure_plaintext && ret == -ECONNRESET
			    ? " (an agent that wants TLS closes a plaintext connection)"
			    : "");
		ret = 1;
	}
	if (events_s > 0)
		call_listen(&conn, events_s, &until);
	json_decref(req);
	rc_conn_close(&conn);
	return ret;
}

/* A typed parameter as a scenario writes it: "down=duration (required, 1ms..1h): what it is". */
static void print_param(const struct injector *inj, const struct inj_param *ip)
{
	char lo[32], hi[32], def[32];

	if (ip->type == INJ_PT_DURATION) {
		rc_format_duration_ms(ip->min, lo, sizeof(lo));
		rc_format_duration_ms(ip->max, hi, sizeof(hi));
		rc_format_duration_ms(ip->def, def, sizeof(def));
	} else {
		snprintf(lo, sizeof(lo), "%llu", (unsigned long long)ip->min);
		snprintf(hi, sizeof(hi), "%llu", (unsigned long long)ip->max);
		snprintf(def, sizeof(def), "%llu", (unsigned long long)ip->def);
	}
	printf("    %s=%s (", ip->key, ip->type == INJ_PT_DURATION ? "duration" : "int");
	if (ip->required)
		printf("required, ");
	else if ((inj->flags & INJ_SEEDED) && !strcmp(ip->key, "seed"))
		printf("default: from the drill's seed, ");
	else
		printf("default %s, ", def);
	printf("%s..%s)%s%s\n", lo, hi, ip->help ? ": " : "", ip->help ? ip->help : "");
}

/* Every injector with what a scenario gives it (params, duration), from the registry. */
static int cmd_injectors(void)
{
	const struct injector *const *i;
	const char *const *p;
	unsigned int k;

	for (i = injectors; *i; i++) {
		const struct injector *inj = *i;

		printf("%s: %s\n", inj->name, inj->summary);
		if (inj->flags & INJ_TYPED_PARAMS) {
			for (k = 0; k < inj->nr_params; k++)
				print_param(inj, &inj->params[k]);
			if (!inj->nr_params)
				printf("    (no parameters)\n");
		} else {
			for (p = inj->param_help; p && *p; p++)
				printf("    %s\n", *p);
		}
		if (inj->flags & INJ_NEEDS_DURATION)
			printf("    duration: required (when to undo the fault)\n");
		else if (inj->min_duration_ms)
			printf("    duration: optional; at least, and by default, what the "
			       "parameters need\n");
	}
	return 0;
}

int main(int argc, char **argv)
{
	rc_log_init("rdmachaos", getenv("RDMACHAOS_DEBUG") ? RC_LOG_DEBUG : RC_LOG_INFO);
	if (argc < 2) {
		usage(stderr);
		return RC_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "version") || !strcmp(argv[1], "--version")) {
		printf("rdmachaos %s\n", RC_VERSION);
		return 0;
	}
	if (!strcmp(argv[1], "run"))
		return cmd_run(argc - 1, argv + 1);
	if (!strcmp(argv[1], "lab"))
		return cmd_lab(argc - 1, argv + 1);
	if (!strcmp(argv[1], "call"))
		return cmd_call(argc - 1, argv + 1);
	if (!strcmp(argv[1], "fleet"))
		return cmd_fleet(argc - 1, argv + 1);
	if (!strcmp(argv[1], "certs"))
		return certs_main(argc - 1, argv + 1);
	if (!strcmp(argv[1], "validate"))
		return cmd_validate(argc - 1, argv + 1);
	if (!strcmp(argv[1], "report"))
		return cmd_report(argc - 1, argv + 1);
	if (!strcmp(argv[1], "compare"))
		return cmd_compare(argc - 1, argv + 1);
	if (!strcmp(argv[1], "injectors"))
		return cmd_injectors();
	fprintf(stderr, "rdmachaos: unknown command '%s'; see rdmachaos --help\n", argv[1]);
	return RC_EXIT_USAGE;
}
