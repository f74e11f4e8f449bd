// SPDX-License-Identifier: MIT
/* `rdmachaos validate SCENARIO...`: every error and lint warning of each file, touching nothing. */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/yamldoc.h"
#include "coordinator/cmd_validate.h"
#include "coordinator/drill.h"
#include "coordinator/plan.h"
#include "coordinator/scenario.h"

static void validate_usage(FILE *f)
{
	fprintf(f,
		"usage: rdmachaos validate [--strict] [--seed N] SCENARIO...\n"
		"\n"
		"Checks each scenario file as `rdmachaos run` would before touching anything\n"
		"(keys, types, units, ranges, injectors and their parameters, targets against\n"
		"the drill's nodes and rails, overlaps, the blast radius), and reports every\n"
		"error, not only the first, as\n"
		"  FILE:LINE:COL: KEY: what is wrong and what is allowed\n"
		"then lint warnings about thresholds that cannot mean what they seem to:\n"
		"  FILE:LINE:COL: warning: KEY: ...\n"
		"and \"FILE: ok (N faults, M warnings)\" for a file without errors. Nothing is\n"
		"contacted: no agent, no lab.\n"
		"\n"
		"  --strict   warnings count as errors (exit 65)\n"
		"  --seed N   the seed random schedules are placed with, as for run (default 1)\n"
		"\n"
		"exit codes: 0 every file valid (warnings allowed), 65 a file has errors (or,\n"
		"with --strict, warnings) or cannot be read, 64 usage error.\n"
		"docs: docs/SCENARIOS.md, \"Checking a drill: rdmachaos validate\"\n");
}

/* "1 fault", "2 faults". */
static const char *plural(unsigned int n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

/*
 * A plan-time refusal ("FILE:LINE: KEY: ..." from plan_check) as a diagnostic.
 * Its line is a fault's or the blast radius's; when the message carries no
 * column, the declaration's own is put in, so that every line reads alike.
 */
static void validate_add_plan_error(struct yd_diags *l, const struct scenario *sc, const char *msg)
{
	size_t flen = strlen(sc->file);
	unsigned long line = 0, col = 0;
	const char *p = msg + flen + 1;
	char *end, text[1536];
	unsigned int i;

	if (strncmp(msg, sc->file, flen) || msg[flen] != ':' || *p < '0' || *p > '9') {
		yd_diags_add(l, YD_ERROR, 0, 0, "", msg, 0);
		return;
	}
	line = strtoul(p, &end, 10);
	if (end[0] == ':' && end[1] >= '0' && end[1] <= '9') {
		col = strtoul(end + 1, &end, 10); /* already "FILE:LINE:COL:" */
		yd_diags_add(l, YD_ERROR, (unsigned int)line, (unsigned int)col, "", msg, 0);
		return;
	}
	for (i = 0; !col && i < sc->nr_faults; i++)
		if (sc->faults[i].line == (int)line)
			col = (unsigned long)sc->faults[i].col;
	if (!col && sc->safety.line == (int)line)
		col = (unsigned long)sc->safety.col;
	if (col && *end == ':')
		snprintf(text, sizeof(text), "%.*s:%lu%s", (int)(end - msg), msg, col, end);
	else
		snprintf(text, sizeof(text), "%s", msg);
	yd_diags_add(l, YD_ERROR, (unsigned int)line, (unsigned int)col, "", text, 0);
}

/*
 * One file: its diagnostics in file order, then its verdict line. Returns
 * true when it passes (no error; with strict, no warning either).
 */
static bool validate_file(const char *path, uint64_t seed, bool strict)
{
	struct yd_diags l = {0};
	struct scenario sc;
	unsigned int i, nr_faults = 0, dropped;
	char err[1024];
	bool ok;

	if (!scenario_check(path, &sc, &l)) {
		nr_faults = sc.nr_faults;
		/* the checks `run` makes next, still before any agent: trials, params, blast radius
		 */
		if (plan_check(&sc, seed, err, sizeof(err)))
			validate_add_plan_error(&l, &sc, err);
		scenario_free(&sc);
	}
	yd_diags_sort(&l);
	for (i = 0; i < l.nr; i++)
		printf("%s\n", l.v[i].text);
	dropped = yd_diags_dropped(&l);
	if (dropped)
		printf("%s: ... %u more not shown (%u %s, %u %s in all)\n", path, dropped,
		       l.nr_errors, plural(l.nr_errors, "error", "errors"), l.nr_warnings,
		       plural(l.nr_warnings, "warning", "warnings"));
	ok = !l.nr_errors && !(strict && l.nr_warnings);
	if (l.nr_errors)
		printf("%s: invalid (%u %s, %u %s)\n", path, l.nr_errors,
		       plural(l.nr_errors, "error", "errors"), l.nr_warnings,
		       plural(l.nr_warnings, "warning", "warnings"));
	else
		printf("%s: %s (%u %s, %u %s)\n", path, ok ? "ok" : "refused by --strict",
		       nr_faults, plural(nr_faults, "fault", "faults"), l.nr_warnings,
		       plural(l.nr_warnings, "warning", "warnings"));
	yd_diags_free(&l);
	return ok;
}

int cmd_validate(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"strict", no_argument, NULL, 'S'},
	    {"seed", required_argument, NULL, 's'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	uint64_t seed = 1;
	bool strict = false, all_ok = true;
	char *end;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'S':
			strict = true;
			break;
		case 's':
			errno = 0;
			seed = strtoull(optarg, &end, 0);
			if (errno || *end || !*optarg || optarg[0] == '-') {
				fprintf(stderr,
					"rdmachaos validate: --seed '%s': want a non-negative "
					"integer\n",
					optarg);
				return RC_EXIT_USAGE;
			}
			break;
		case 'h':
			validate_usage(stdout);
			return 0;
		default:
			fprintf(stderr, "rdmachaos validate: see rdmachaos validate --help\n");
			return RC_EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "rdmachaos validate: want one or more SCENARIO files, e.g. "
				"rdmachaos validate scenarios/*.yaml\n");
		return RC_EXIT_USAGE;
	}
	for (; optind < argc; optind++)
		all_ok &= validate_file(argv[optind], seed, strict);
	fflush(stdout);
	return all_ok ? 0 : RC_EXIT_SCENARIO;
}
