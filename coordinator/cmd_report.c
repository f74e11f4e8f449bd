// SPDX-License-Identifier: MIT
/*
 * Offline commands on recorded runs. `report` renders every format again from
 * a run folder's report.json and events.jsonl (after an upgrade, or into
 * another folder). `compare` sets a new run against a base run of the same
 * drill and fails when a measured time, the baseline throughput or integrity
 * got worse by more than a tolerance: the regression gate for CI.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "coordinator/cmd_report.h"
#include "common/units.h"
#include "coordinator/drill.h"
#include "reports/report.h"

static void report_usage(FILE *f)
{
	fprintf(f,
		"usage: rdmachaos report RUN_DIR [--out DIR] [--format LIST]\n"
		"\n"
		"Renders a recorded run again from RUN_DIR/report.json and RUN_DIR/events.jsonl:\n"
		"report.md, report.html and junit.xml (and, into another folder, report.json and\n"
		"events.jsonl too, so that folder is a complete run folder).\n"
		"\n"
		"  --out DIR       write into DIR (made if missing) instead of RUN_DIR\n"
		"  --format LIST   comma-separated subset of md,html,junit,json (default: all)\n"
		"\n"
		"exit codes: 0 written, 64 usage error, 65 RUN_DIR holds no readable report,\n"
		"70 a file could not be written.\n"
		"example: rdmachaos report runs/2026-11-30T05-31-59.316Z-link-down-rail0 --out "
		"/tmp/r\n");
}

static int parse_formats(const char *list, unsigned int *out)
{
	static const struct {
		const char *name;
		unsigned int fmt;
	} names[] = {{"md", REPORT_FMT_MD},
		     {"html", REPORT_FMT_HTML},
		     {"junit", REPORT_FMT_JUNIT},
		     {"json", REPORT_FMT_JSON},
		     {"all", REPORT_FMT_ALL}};
	char buf[256], *tok, *save = NULL;
	unsigned int i, fmts = 0;

	if (snprintf(buf, sizeof(buf), "%s", list) >= (int)sizeof(buf))
		return -EINVAL;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (!strcmp(tok, names[i].name))
				break;
		if (i == sizeof(names) / sizeof(names[0]))
			return -EINVAL;
		fmts |= names[i].fmt;
	}
	if (!fmts)
		return -EINVAL;
	*out = fmts;
	return 0;
}

/* mkdir -p: each missing parent first; 0 or -errno. */
static int mkdir_p(const char *path)
{
	char buf[4096], *p;

	if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf))
		return -ENAMETOOLONG;
	for (p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	return mkdir(buf, 0755) && errno != EEXIST ? -errno : 0;
}

/* True when a and b name the same folder (both must exist). */
static bool same_dir(const char *a, const char *b)
{
	struct stat sa, sb;

	return !stat(a, &sa) && !stat(b, &sb) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int cmd_report(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"out", required_argument, NULL, 'o'},
	    {"format", required_argument, NULL, 'f'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	unsigned int fmts = REPORT_FMT_ALL;
	const char *out = NULL, *dir;
	json_t *report = NULL, *events = NULL;
	char err[4400], path[4200];
	bool elsewhere;
	int c, ret;

	optind = 1;
	while ((c = getopt_long(argc, argv, "o:f:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'f':
			if (parse_formats(optarg, &fmts)) {
				fprintf(stderr,
					"rdmachaos report: --format '%s': want a comma-separated "
					"subset of md,html,junit,json\n",
					optarg);
				return RC_EXIT_USAGE;
			}
			break;
		case 'h':
			report_usage(stdout);
			return 0;
		default:
			report_usage(stderr);
			return RC_EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "rdmachaos report: want exactly one RUN_DIR (a folder that "
				"`rdmachaos run` wrote); see rdmachaos report --help\n");
		return RC_EXIT_USAGE;
	}
	dir = argv[optind];
	ret = report_load_run(dir, &report, &events, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "rdmachaos report: %s\n", err);
		return RC_EXIT_SCENARIO;
	}
	if (out && (ret = mkdir_p(out))) {
		fprintf(stderr, "rdmachaos report: --out %s: %s\n", out, strerror(-ret));
		ret = RC_EXIT_INTERNAL;
		goto out;
	}
	elsewhere = out && !same_dir(out, dir);
	if (!elsewhere) {
		/* report.json is the record the others are rendered from: never rewrite it. */
		fmts &= ~(unsigned int)REPORT_FMT_JSON;
		out = dir;
	}
	ret = report_render(out, report, events, fmts, err, sizeof(err));
	if (!ret && elsewhere) {
		snprintf(path, sizeof(path), "%s/events.jsonl", out);
		ret = report_write_events(path, events);
		if (ret)
			snprintf(err, sizeof(err), "%s: %s", path, strerror(-ret));
	}
	if (ret) {
		fprintf(stderr, "rdmachaos report: %s\n", err);
		ret = RC_EXIT_INTERNAL;
		goto out;
	}
	printf("rdmachaos report: %s (%s) rendered into %s\n",
	       json_string_value(json_object_get(json_object_get(report, "scenario"), "name"))
		   ?: "?",
	       json_string_value(json_object_get(report, "verdict")) ?: "no verdict", out);
	ret = 0;
out:
	json_decref(report);
	json_decref(events);
	return ret;
}

/* ---- compare ------------------------------------------------------------ */

struct cmp_opts {
	double tolerance;    /* relative: 0.2 = 20% worse is still fine */
	double min_delta_ms; /* times: a change smaller than this is noise */
	unsigned int regressions;
	unsigned int compared;
};

static void compare_usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: rdmachaos compare BASE_RUN NEW_RUN [--tolerance PCT] [--min-delta D]\n"
	    "\n"
	    "Sets NEW_RUN against BASE_RUN (run folders, or their report.json files) of the\n"
	    "same drill and prints, per fault, detection, isolation and recovery times and the\n"
	    "failback outage, then the baseline throughput, integrity and the verdict. A\n"
	    "regression is:\n"
	    "  - a time more than PCT longer and at least D longer than the base's, or\n"
	    "    measured in the base but not in the new run, or within its threshold in the\n"
	    "    base but not in the new run;\n"
	    "  - a baseline throughput more than PCT lower;\n"
	    "  - more messages lost or corrupted than in the base;\n"
	    "  - a verdict that was pass and is not.\n"
	    "\n"
	    "  --tolerance PCT   allowed relative change, e.g. 20%% or 0.2 (default 20%%)\n"
	    "  --min-delta D     smallest time change that counts (default 250ms)\n"
	    "\n"
	    "exit codes: 0 no regression, 1 at least one regression, 64 usage error,\n"
	    "65 a run is unreadable or the two runs have no fault in common.\n"
	    "example: rdmachaos compare runs/base-link-down runs/new-link-down --tolerance 30%%\n");
}

static int parse_tolerance(const char *s, double *v)
{
	char *end;
	double d;

	errno = 0;
	d = strtod(s, &end);
	if (errno || end == s || d < 0)
		return -EINVAL;
	if (*end == '%') {
		d /= 100.0;
		end++;
	}
	if (*end || d > 100)
		return -EINVAL;
	*v = d;
	return 0;
}

static json_t *cmp_load(const char *arg, char *err, size_t errlen)
{
	char dir[4096];
	json_t *report, *events;
	struct stat st;
	const char *slash;
	size_t n;

	if (!stat(arg, &st) && S_ISDIR(st.st_mode)) {
		snprintf(dir, sizeof(dir), "%s", arg);
	} else {
		/* a report.json given by name: its folder is the run */
		slash = strrchr(arg, '/');
		n = slash ? (size_t)(slash - arg) : 1;
		snprintf(dir, sizeof(dir), "%.*s", (int)n, slash ? arg : ".");
	}
	if (report_load_run(dir, &report, &events, err, errlen))
		return NULL;
	json_decref(events);
	return report;
}

static const json_t *cmp_get(const json_t *o, const char *a, const char *b)
{
	o = json_object_get(o, a);
	return b ? json_object_get(o, b) : o;
}

static const char *cmp_num(const json_t *v, char *buf, size_t len, const char *unit)
{
	if (!json_is_number(v))
		return "—";
	/* throughput needs its decimals (the lab moves ~10 MB/s); times and counts do not */
	snprintf(buf, len, "%.*f %s", strcmp(unit, "MB/s") ? 0 : 2, json_number_value(v), unit);
	return buf;
}

/* One row: lower_better for times, else higher is better. */
static void cmp_row(struct cmp_opts *o, const char *what, const json_t *bv, const json_t *nv,
		    bool lower_better, const char *unit, double min_delta, const char *extra)
{
	char bb[64], nb[64], change[64] = "";
	const char *status = "ok";
	double b, n;

	o->compared++;
	if (json_is_number(bv) && json_is_number(nv)) {
		b = json_number_value(bv);
		n = json_number_value(nv);
		if (b != 0)
			snprintf(change, sizeof(change), "%+.0f%%", (n - b) / fabs(b) * 100.0);
		else
			snprintf(change, sizeof(change), "%+.0f %s", n - b, unit);
		if (lower_better ? (n > b * (1 + o->tolerance) && n - b >= min_delta)
				 : (n < b * (1 - o->tolerance) && b - n >= min_delta))
			status = "REGRESSION";
		else if (lower_better ? n < b : n > b)
			status = "better";
	} else if (json_is_number(bv)) {
		status = "REGRESSION";
		snprintf(change, sizeof(change), "not measured");
	} else if (json_is_number(nv)) {
		status = "better";
		snprintf(change, sizeof(change), "now measured");
	}
	if (extra && !strcmp(status, "ok"))
		status = extra;
	if (!strncmp(status, "REGRESSION", 10))
		o->regressions++;
	printf("  %-34s %12s %12s %13s  %s\n", what, cmp_num(bv, bb, sizeof(bb), unit),
	       cmp_num(nv, nb, sizeof(nb), unit), change, status);
}

static void cmp_faults(struct cmp_opts *o, const json_t *base, const json_t *cur,
		       unsigned int *common)
{
	static const char *const phases[] = {"detection", "isolation", "recovery"};
	const json_t *bf, *nf, *bp, *np;
	const char *id, *nid;
	char what[128];
	size_t i, j, k;

	json_array_foreach(json_object_get(base, "faults"), i, bf) {
		id = json_string_value(json_object_get(bf, "id"));
		nf = NULL;
		json_array_foreach(json_object_get(cur, "faults"), j, np) {
			nid = json_string_value(json_object_get(np, "id"));
			if (id && nid && !strcmp(id, nid)) {
				nf = np;
				break;
			}
		}
		if (!id || !nf) {
			printf("  %-34s only in the base run\n", id ?: "(a fault without id)");
			continue;
		}
		(*common)++;
		for (k = 0; k < 3; k++) {
			bp = json_object_get(bf, phases[k]);
			np = json_object_get(nf, phases[k]);
			snprintf(what, sizeof(what), "%s %s", id, phases[k]);
			/* within its threshold before, not now: a regression whatever the delta */
			cmp_row(o, what, json_object_get(bp, "ms"), json_object_get(np, "ms"), true,
				"ms", o->min_delta_ms,
				json_is_true(json_object_get(bp, "ok")) &&
					json_is_false(json_object_get(np, "ok"))
				    ? "REGRESSION (threshold now missed)"
				    : NULL);
		}
		/* the outage after the revert (absent from runs recorded before it was measured) */
		bp = json_object_get(bf, "failback");
		np = json_object_get(nf, "failback");
		if (!bp && !np)
			continue;
		snprintf(what, sizeof(what), "%s failback outage", id);
		cmp_row(o, what, json_object_get(bp, "outage_ms"), json_object_get(np, "outage_ms"),
			true, "ms", o->min_delta_ms,
			json_is_true(json_object_get(bp, "ok")) &&
				json_is_false(json_object_get(np, "ok"))
			    ? "REGRESSION (threshold now missed)"
			    : NULL);
	}
}

int cmd_compare(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"tolerance", required_argument, NULL, 't'},
	    {"min-delta", required_argument, NULL, 'd'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct cmp_opts o = {.tolerance = 0.2, .min_delta_ms = 250};
	json_t *base = NULL, *cur = NULL;
	const char *bname, *nname, *bv, *nv;
	unsigned int common = 0;
	char err[4200];
	uint64_t ms;
	double tol;
	int c, ret = RC_EXIT_SCENARIO;

	optind = 1;
	while ((c = getopt_long(argc, argv, "t:d:h", opts, NULL)) != -1) {
		switch (c) {
		case 't':
			if (parse_tolerance(optarg, &o.tolerance)) {
				fprintf(stderr,
					"rdmachaos compare: --tolerance '%s': want a share such "
					"as 20%% or 0.2\n",
					optarg);
				return RC_EXIT_USAGE;
			}
			break;
		case 'd':
			if (rc_parse_duration_ms(optarg, &ms)) {
				fprintf(stderr,
					"rdmachaos compare: --min-delta '%s': want a duration "
					"such as 250ms or 1s\n",
					optarg);
				return RC_EXIT_USAGE;
			}
			o.min_delta_ms = (double)ms;
			break;
		case 'h':
			compare_usage(stdout);
			return 0;
		default:
			compare_usage(stderr);
			return RC_EXIT_USAGE;
		}
	}
	if (optind != argc - 2) {
		fprintf(stderr, "rdmachaos compare: want BASE_RUN and NEW_RUN (run folders); see "
				"rdmachaos compare --help\n");
		return RC_EXIT_USAGE;
	}
	base = cmp_load(argv[optind], err, sizeof(err));
	if (!base) {
		fprintf(stderr, "rdmachaos compare: base: %s\n", err);
		return RC_EXIT_SCENARIO;
	}
	cur = cmp_load(argv[optind + 1], err, sizeof(err));
	if (!cur) {
		fprintf(stderr, "rdmachaos compare: new: %s\n", err);
		goto out;
	}
	bname = json_string_value(cmp_get(base, "scenario", "name")) ?: "?";
	nname = json_string_value(cmp_get(cur, "scenario", "name")) ?: "?";
	if (strcmp(bname, nname))
		fprintf(stderr,
			"rdmachaos compare: warning: the runs are of different drills (%s, %s): "
			"faults are matched by id\n",
			bname, nname);
	printf("rdmachaos compare: %s: base %s (%s) -> new %s (%s); tolerance %.0f%%, "
	       "min delta %.0f ms\n",
	       nname, argv[optind], json_string_value(cmp_get(base, "started_at", NULL)) ?: "?",
	       argv[optind + 1], json_string_value(cmp_get(cur, "started_at", NULL)) ?: "?",
	       o.tolerance * 100, o.min_delta_ms);
	printf("  %-34s %12s %12s %13s  %s\n", "metric", "base", "new", "change", "status");
	cmp_faults(&o, base, cur, &common);
	if (!common) {
		fprintf(stderr,
			"rdmachaos compare: the runs have no fault id in common: nothing to "
			"compare\n");
		ret = RC_EXIT_SCENARIO;
		goto out;
	}
	cmp_row(&o, "baseline throughput",
		cmp_get(cmp_get(base, "workload", "baseline"), "throughput_mbps", NULL),
		cmp_get(cmp_get(cur, "workload", "baseline"), "throughput_mbps", NULL), false,
		"MB/s", 0, NULL);
	/* integrity has no tolerance: one more lost message is one too many */
	tol = o.tolerance;
	o.tolerance = 0;
	cmp_row(&o, "messages lost", cmp_get(cmp_get(base, "workload", "integrity"), "lost", NULL),
		cmp_get(cmp_get(cur, "workload", "integrity"), "lost", NULL), true, "", 1, NULL);
	cmp_row(&o, "messages corrupted",
		cmp_get(cmp_get(base, "workload", "integrity"), "corrupted", NULL),
		cmp_get(cmp_get(cur, "workload", "integrity"), "corrupted", NULL), true, "", 1,
		NULL);
	o.tolerance = tol;
	bv = json_string_value(json_object_get(base, "verdict")) ?: "?";
	nv = json_string_value(json_object_get(cur, "verdict")) ?: "?";
	if (!strcmp(bv, "pass") && strcmp(nv, "pass"))
		o.regressions++;
	printf("  %-34s %12s %12s %13s  %s\n", "verdict", bv, nv, "",
	       !strcmp(bv, "pass") && strcmp(nv, "pass") ? "REGRESSION" : "ok");
	printf("compare: %u regression(s) in %u metric(s)\n", o.regressions, o.compared + 1);
	ret = o.regressions ? RC_EXIT_FAIL : RC_EXIT_PASS;
out:
	json_decref(base);
	json_decref(cur);
	return ret;
}
