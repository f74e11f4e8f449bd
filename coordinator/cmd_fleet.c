// SPDX-License-Identifier: MIT
/*
 * `rdmachaos fleet status`: connects to every agent of a fleet file and prints one row per
 * node (reachable, version, kernel, RDMA ports, clock offset, faults held), or JSON with -o json.
 * It only asks (hello, time, inventory, faults): it changes nothing on any node.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coordinator/cli_tls.h"
#include "coordinator/cmd_fleet.h"
#include "coordinator/drill.h"
#include "coordinator/fleet.h"
#include "coordinator/fleetfile.h"
#include "coordinator/labenv.h"

#define FS_CLOCK_SAMPLES 5
#define FS_CALL_MS 5000

/* What one node answered; JSON, so that -o json is this and the table reads it. */
static json_t *fs_row(const struct ff_node *nd)
{
	json_t *row = json_pack("{s:s,s:s,s:O,s:b}", "name", nd->name, "agent", nd->agent, "labels",
				nd->labels, "reachable", false);
	json_t *rails = json_array();
	unsigned int i;

	if (!row || !rails) {
		json_decref(row);
		json_decref(rails);
		return NULL;
	}
	for (i = 0; i < nd->nr_rails; i++)
		json_array_append_new(rails, json_string(nd->rails[i]));
	json_object_set_new(row, "rails", rails);
	return row;
}

/* An answer's problem into the row: the first one is kept, the others only counted. */
static void fs_problem(json_t *row, const char *what)
{
	if (!json_object_get(row, "error"))
		json_object_set_new(row, "error", json_string(what));
}

/* devices[].ports[] of an inventory, as [{device, port, state, netdev}] */
static json_t *fs_ports(const json_t *inv)
{
	json_t *out = json_array(), *dev, *port;
	size_t i, j;

	json_array_foreach(json_object_get(inv, "devices"), i, dev)
		json_array_foreach(json_object_get(dev, "ports"), j, port)
			json_array_append_new(out,
					      json_pack("{s:O?,s:O?,s:O?,s:O?}", "device",
							json_object_get(dev, "name"), "port",
							json_object_get(port, "port"), "state",
							json_object_get(port, "state"), "netdev",
							json_object_get(port, "netdev")));
	return out;
}

/* The agents that answered, asked in one fan-out per request; their rows filled in. */
static int fs_ask(struct fleet *fl, json_t **rows_of)
{
	json_t **res = calloc(fl->nr_agents ? fl->nr_agents : 1, sizeof(*res));
	char(*errs)[256] = calloc(fl->nr_agents ? fl->nr_agents : 1, sizeof(*errs));
	static const char *const ops[] = {"hello", "inventory", "faults"};
	struct clk_estimate *est = NULL;
	char err[512] = "";
	unsigned int i, k;
	int ret = -ENOMEM;

	if (!res || !errs)
		goto out;
	for (k = 0; k < 3; k++) {
		json_t *req = k ? json_pack("{s:s}", "op", ops[k])
				: json_pack("{s:s,s:s,s:i}", "op", "hello", "coordinator",
					    "rdmachaos fleet status", "proto", 1);

		if (!req)
			goto out;
		fleet_call_many(fl, NULL, req, FS_CALL_MS, res, errs);
		json_decref(req);
		for (i = 0; i < fl->nr_agents; i++) {
			json_t *row = rows_of[i], *r = res[i];
			const char *self;

			if (!r) {
				if (!errs[i][0])
					snprintf(errs[i], sizeof(errs[i]), "%s: %s: no answer",
						 fl->agents[i].name, ops[k]);
				fs_problem(row, errs[i]);
				continue;
			}
			if (k == 0) {
				json_object_set(row, "version",
						json_object_get(r, "agent_version"));
				json_object_set(row, "proto", json_object_get(r, "proto"));
				self = json_string_value(json_object_get(r, "node"));
				/* a fleet file that swapped two addresses shows here */
				if (self && strcmp(self, fl->agents[i].name))
					json_object_set_new(row, "agent_calls_itself",
							    json_string(self));
			} else if (k == 1) {
				json_object_set(row, "kernel", json_object_get(r, "kernel"));
				json_object_set(row, "rdma_core", json_object_get(r, "rdma_core"));
				json_object_set_new(row, "ports", fs_ports(r));
			} else {
				json_object_set(row, "faults", json_object_get(r, "active"));
			}
			json_decref(r);
		}
	}
	/* each node's own clock: one that does not answer is its row's problem, not every row's */
	est = calloc(fl->nr_agents ? fl->nr_agents : 1, sizeof(*est));
	if (!est)
		goto out;
	fleet_sample_clocks(fl, FS_CLOCK_SAMPLES, est, err, sizeof(err));
	for (i = 0; i < fl->nr_agents; i++) {
		if (!est[i].samples) {
			/* a node that did not answer above keeps that reason (fs_problem) */
			snprintf(err, sizeof(err), "%s: time: no usable sample",
				 fl->agents[i].name);
			fs_problem(rows_of[i], err);
			continue;
		}
		json_object_set_new(rows_of[i], "clock",
				    json_pack("{s:f,s:f}", "offset_ms", est[i].offset_ns / 1e6,
					      "uncertainty_ms", est[i].uncertainty_ns / 1e6));
	}
	ret = 0;
out:
	free(est);
	free(res);
	free(errs);
	return ret;
}

/* Dials every node, 16 at a time (fleet_dial_many), then asks those that took the connection. */
static int fs_gather(const struct fleetfile *ff, json_t *rows, int timeout_ms)
{
	struct fleet fl;
	json_t **rows_of = calloc(ff->nr_nodes, sizeof(*rows_of));
	struct fl_dial *dials = calloc(ff->nr_nodes ? ff->nr_nodes : 1, sizeof(*dials));
	unsigned int i, n = 0;
	int ret = -ENOMEM;

	if (!rows_of || !dials || fleet_init(&fl, ff->nr_nodes)) {
		free(rows_of);
		free(dials);
		return -ENOMEM;
	}
	for (i = 0; i < ff->nr_nodes; i++)
		dials[i] = (struct fl_dial){.name = ff->nodes[i].name, .addr = ff->nodes[i].agent};
	fleet_dial_many(dials, ff->nr_nodes, timeout_ms);
	for (i = 0; i < ff->nr_nodes; i++) {
		const struct ff_node *nd = &ff->nodes[i];
		json_t *row = fs_row(nd);

		if (!row || json_array_append_new(rows, row))
			goto out;
		if (dials[i].ret) {
			fs_problem(row, dials[i].err);
			continue;
		}
		json_object_set_new(row, "reachable", json_true());
		snprintf(fl.agents[n].name, sizeof(fl.agents[n].name), "%s", nd->name);
		snprintf(fl.agents[n].addr, sizeof(fl.agents[n].addr), "%s", nd->agent);
		rc_conn_init(&fl.agents[n].conn, dials[i].t);
		dials[i].t = NULL;
		fl.agents[n].connected = true;
		rows_of[n++] = row;
	}
	fl.nr_agents = n; /* fleet_free closes exactly these */
	ret = n ? fs_ask(&fl, rows_of) : 0;
out:
	/* a row that could not be made leaves the connections after it to close here */
	for (; i < ff->nr_nodes; i++)
		if (!dials[i].ret && dials[i].t)
			dials[i].t->ops->close(dials[i].t);
	fleet_free(&fl);
	free(rows_of);
	free(dials);
	return ret;
}

/* "rxe_rail0:1 ACTIVE, rxe_rail1:1 DOWN" */
static void fs_ports_text(const json_t *ports, char *buf, size_t len)
{
	const json_t *p;
	size_t i, off = 0;

	buf[0] = '\0';
	if (!json_is_array(ports))
		return;
	if (!json_array_size(ports))
		snprintf(buf, len, "no RDMA devices");
	json_array_foreach(ports, i, p) {
		int w = snprintf(buf + off, len - off, "%s%s:%lld %s", i ? ", " : "",
				 json_string_value(json_object_get(p, "device")) ?: "?",
				 (long long)json_integer_value(json_object_get(p, "port")),
				 json_string_value(json_object_get(p, "state")) ?: "?");

		if (w < 0 || (size_t)w >= len - off)
			break;
		off += (size_t)w;
	}
}

enum { FS_COLS = 8 };

/* One row's cells: node, state, version, kernel, clock, faults, ports, labels. */
static void fs_cells(const json_t *row, char cells[FS_COLS][512])
{
	const json_t *clock = json_object_get(row, "clock"),
		     *faults = json_object_get(row, "faults");
	const char *err = json_string_value(json_object_get(row, "error"));
	const char *self = json_string_value(json_object_get(row, "agent_calls_itself"));

	snprintf(cells[0], 512, "%s", json_string_value(json_object_get(row, "name")));
	if (!json_is_true(json_object_get(row, "reachable")))
		snprintf(cells[1], 512, "unreachable");
	else if (self)
		snprintf(cells[1], 512, "WRONG NODE (agent is %s)", self);
	else
		snprintf(cells[1], 512, "%s", err ? "answered in part" : "ok");
	snprintf(cells[2], 512, "%s", json_string_value(json_object_get(row, "version")) ?: "-");
	snprintf(cells[3], 512, "%s", json_string_value(json_object_get(row, "kernel")) ?: "-");
	/* the agents' clocks are monotonic: offsets of hours between hosts booted apart are normal,
	 * what a drill needs is the uncertainty */
	if (clock && fabs(json_number_value(json_object_get(clock, "offset_ms"))) >= 1000)
		snprintf(cells[4], 512, "%+.3f s +/- %.3f ms",
			 json_number_value(json_object_get(clock, "offset_ms")) / 1000,
			 json_number_value(json_object_get(clock, "uncertainty_ms")));
	else if (clock)
		snprintf(cells[4], 512, "%+.3f ms +/- %.3f ms",
			 json_number_value(json_object_get(clock, "offset_ms")),
			 json_number_value(json_object_get(clock, "uncertainty_ms")));
	else
		snprintf(cells[4], 512, "-");
	if (json_is_array(faults))
		snprintf(cells[5], 512, "%zu", json_array_size(faults));
	else
		snprintf(cells[5], 512, "-");
	fs_ports_text(json_object_get(row, "ports"), cells[6], 512);
	if (!cells[6][0])
		snprintf(cells[6], 512, "-");
	ff_labels_text(json_object_get(row, "labels"), cells[7], 512);
}

/* One line of the table, its columns w[] wide, without trailing blanks. */
static void fs_print_line(const char *const cell[FS_COLS], const size_t w[FS_COLS])
{
	char line[FS_COLS * 514];
	size_t c, off = 0;

	for (c = 0; c < FS_COLS && off < sizeof(line); c++)
		off += (size_t)snprintf(line + off, sizeof(line) - off, "%-*s%s", (int)w[c],
					cell[c], c + 1 < FS_COLS ? "  " : "");
	off = strlen(line);
	while (off && line[off - 1] == ' ')
		line[--off] = '\0';
	puts(line);
}

static void fs_print_table(const json_t *rows)
{
	static const char *const head[FS_COLS] = {"NODE",  "STATE",  "VERSION",	   "KERNEL",
						  "CLOCK", "FAULTS", "RDMA PORTS", "LABELS"};
	char(*cells)[FS_COLS][512] = calloc(json_array_size(rows) + 1, sizeof(*cells));
	size_t w[FS_COLS] = {0}, i, c;
	const json_t *row;

	if (!cells)
		return;
	json_array_foreach(rows, i, row)
		fs_cells(row, cells[i]);
	for (c = 0; c < FS_COLS; c++) {
		w[c] = strlen(head[c]);
		for (i = 0; i < json_array_size(rows); i++)
			if (strlen(cells[i][c]) > w[c])
				w[c] = strlen(cells[i][c]);
	}
	fs_print_line(head, w);
	for (i = 0; i < json_array_size(rows); i++) {
		const char *line[FS_COLS];

		for (c = 0; c < FS_COLS; c++)
			line[c] = cells[i][c];
		fs_print_line(line, w);
	}
	/* the reasons, under the table (a cell is too narrow): each names its node and agent */
	json_array_foreach(rows, i, row)
		if (json_object_get(row, "error"))
			printf("%s\n", json_string_value(json_object_get(row, "error")));
	free(cells);
}

static void fleet_usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: rdmachaos fleet status (--fleet FILE | --lab) [-o table|json]\n"
	    "                              [--timeout SECONDS] [TLS flags]\n"
	    "\n"
	    "Connects to every agent of the fleet file and prints one row per node: whether it\n"
	    "answered, the agent's version, the kernel, its RDMA ports and their state, its\n"
	    "clock's offset from this host (and the uncertainty of that), how many faults it\n"
	    "holds now, and the node's labels. It only asks; nothing on any node changes.\n"
	    "\n"
	    "  --fleet FILE     the fleet file (docs/FLEET.md): nodes, agents, labels, rails\n"
	    "  --lab            the lab's own fleet file (lab up writes it: run/fleet.yaml)\n"
	    "  -o json          one JSON document for machines, instead of the table\n"
	    "  --timeout S      how long to wait for each agent to connect (default 5)\n"
	    "  TLS flags        as for `run` (--tls-dir, --ca, --cert, --key; rdmachaos --help)\n"
	    "\n"
	    "exit codes: 0 every node answered, 1 one did not (or answered in part, or is not\n"
	    "the node the file says), 64 usage error, 65 invalid fleet file.\n"
	    "\n"
	    "rdmachaos fleet bench --fleet FILE: how fast this coordinator drives every agent of\n"
	    "FILE (it faults rail 0 of each; rdmachaos fleet bench --help, make bench-fleet).\n");
}

/* --lab: the fleet file lab up wrote, named in lab.json. */
static int fs_lab_fleet(char *buf, size_t len)
{
	json_t *lab;
	const char *p;
	int ret = labenv_load(&lab);

	if (ret) {
		fprintf(stderr, "rdmachaos fleet: --lab: %s (rdmachaos lab up%s)\n",
			ret == -ESRCH ? "the lab that is up lost a node (its QEMU exited)"
				      : "no lab is up",
			ret == -ESRCH ? " replaces it" : "");
		return RC_EXIT_USAGE;
	}
	p = json_string_value(json_object_get(lab, "fleet"));
	if (!p || (size_t)snprintf(buf, len, "%s", p) >= len) {
		fprintf(stderr,
			"rdmachaos fleet: --lab: the lab that is up names no fleet file; it was "
			"started by an older lab/lab.sh: run lab down, then lab up\n");
		json_decref(lab);
		return RC_EXIT_USAGE;
	}
	json_decref(lab);
	return 0;
}

int cmd_fleet(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"fleet", required_argument, NULL, 'f'},
	    {"lab", no_argument, NULL, 'l'},
	    {"output", required_argument, NULL, 'o'},
	    {"timeout", required_argument, NULL, 't'},
	    CLI_TLS_LONG_OPTIONS,
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct fleet_tls_opts tls = {0};
	struct fleetfile ff;
	struct yd_diags diags = {0};
	const char *path = NULL;
	char labpath[4096], err[1024], *end;
	bool lab = false, json = false;
	double timeout_s = 5;
	json_t *rows = NULL, *out;
	unsigned int i, ok = 0;
	size_t k;
	int c, ret;

	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		fleet_usage(stdout);
		return 0;
	}
	if (argc >= 2 && !strcmp(argv[1], "bench"))
		return cmd_fleet_bench(argc - 1, argv + 1);
	if (argc < 2 || strcmp(argv[1], "status")) {
		fleet_usage(stderr);
		return RC_EXIT_USAGE;
	}
	optind = 1;
	while ((c = getopt_long(argc - 1, argv + 1, "ho:", opts, NULL)) != -1) {
		if (cli_tls_opt(c, optarg, &tls))
			continue;
		switch (c) {
		case 'f':
			path = optarg;
			break;
		case 'l':
			lab = true;
			break;
		case 'o':
			if (strcmp(optarg, "json") && strcmp(optarg, "table")) {
				fprintf(stderr, "rdmachaos fleet: -o %s: want table or json\n",
					optarg);
				return RC_EXIT_USAGE;
			}
			json = !strcmp(optarg, "json");
			break;
		case 't':
			timeout_s = strtod(optarg, &end);
			if (*end || end == optarg || !(timeout_s > 0 && timeout_s <= 600)) {
				fprintf(
				    stderr,
				    "rdmachaos fleet: --timeout %s: want seconds, 0 < S <= 600\n",
				    optarg);
				return RC_EXIT_USAGE;
			}
			break;
		case 'h':
			fleet_usage(stdout);
			return 0;
		default:
			fleet_usage(stderr);
			return RC_EXIT_USAGE;
		}
	}
	if (optind != argc - 1 || !path == !lab) {
		fprintf(stderr,
			"rdmachaos fleet status: give --fleet FILE or --lab (one of them)\n");
		return RC_EXIT_USAGE;
	}
	if (lab) {
		if ((ret = fs_lab_fleet(labpath, sizeof(labpath))))
			return ret;
		path = labpath;
	}
	if ((ret = cli_tls_check("fleet", &tls)))
		return ret;
	if (ff_load(path, &ff, &diags, err, sizeof(err))) {
		for (i = 0; i < diags.nr; i++)
			fprintf(stderr, "%s\n", diags.v[i].text);
		if (!diags.nr)
			fprintf(stderr, "%s\n", err);
		yd_diags_free(&diags);
		fleet_tls_free();
		return RC_EXIT_SCENARIO;
	}
	yd_diags_free(&diags);
	signal(SIGPIPE, SIG_IGN);
	rows = json_array();
	ret = rows ? fs_gather(&ff, rows, (int)(timeout_s * 1000)) : -ENOMEM;
	fleet_tls_free();
	ff_free(&ff);
	if (ret) {
		fprintf(stderr, "rdmachaos fleet: %s\n", strerror(-ret));
		json_decref(rows);
		return RC_EXIT_INTERNAL;
	}
	json_array_foreach(rows, k, out)
		ok += json_is_true(json_object_get(out, "reachable")) &&
		      !json_object_get(out, "error") && !json_object_get(out, "agent_calls_itself");
	if (json) {
		out = json_pack("{s:s,s:O,s:I,s:I}", "fleet", path, "nodes", rows, "answered",
				(json_int_t)ok, "not_answered",
				(json_int_t)(json_array_size(rows) - ok));
		if (out)
			json_dumpf(out, stdout, JSON_INDENT(2) | JSON_ENSURE_ASCII);
		putchar('\n');
		json_decref(out);
	} else {
		fs_print_table(rows);
		printf("%zu node%s: %u answered, %zu did not\n", json_array_size(rows),
		       json_array_size(rows) == 1 ? "" : "s", ok, json_array_size(rows) - ok);
	}
	ret = ok == json_array_size(rows) ? 0 : RC_EXIT_FAIL;
	json_decref(rows);
	return ret;
}
