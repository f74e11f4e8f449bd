// SPDX-License-Identifier: MIT
/*
 * `rdmachaos validate`: every error of a scenario in one pass with its line
 * and column, the lint warnings, the cap on the list, and the command's
 * output and exit codes (cmd_validate called directly, stdout captured).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/yamldoc.h"
#include "coordinator/cmd_validate.h"
#include "coordinator/scenario.h"
#include "tests/unit/scratch_dir.h"

/* A clean lab drill: every threshold given, nothing to warn about. */
static const char CLEAN[] =
    "name: clean\n"							 /* 1 */
    "lab: {nodes: 2, rails: 2}\n"					 /* 2 */
    "workload:\n"							 /* 3 */
    "  from: node-a\n"							 /* 4 */
    "  to: node-b\n"							 /* 5 */
    "  rails: [0, 1]\n"							 /* 6 */
    "steady_state: {warmup: 5s, baseline: 10s}\n"			 /* 7 */
    "faults:\n"								 /* 8 */
    "  - name: f0\n"							 /* 9 */
    "    at: 20s\n"							 /* 10 */
    "    injector: link_down\n"						 /* 11 */
    "    target: {node: node-b, rail: 0}\n"				 /* 12 */
    "    duration: 10s\n"						 /* 13 */
    "expect:\n"								 /* 14 */
    "  detection: {within: 5s, signals: [workload_error, port_event]}\n" /* 15 */
    "  isolation: {within: 10s}\n"					 /* 16 */
    "  recovery: {within: 30s}\n"					 /* 17 */
    "  integrity: {lost: 0, corrupted: 0}\n";				 /* 18 */

/* Eight errors of different kinds, none hiding another. */
static const char BROKEN[] =
    "name: broken\n"							/* 1 */
    "lab: {nodes: 2, rails: 2}\n"					/* 2 */
    "workload:\n"							/* 3 */
    "  from: node-a\n"							/* 4 */
    "  to: node-b\n"							/* 5 */
    "  rials: [0, 1]\n"							/* 6 */
    "  queue_depth: many\n"						/* 7 */
    "steady_state: {warmup: 5 sec, baseline: 10s}\n"			/* 8 */
    "faults:\n"								/* 9 */
    "  - name: f0\n"							/* 10 */
    "    at: 20s\n"							/* 11 */
    "    injector: link_dwn\n"						/* 12 */
    "    target: {node: node-c, rail: 0}\n"				/* 13 */
    "    duration: 10s\n"						/* 14 */
    "  - name: f1\n"							/* 15 */
    "    at: 40s\n"							/* 16 */
    "    injector: port_flap\n"						/* 17 */
    "    target: {node: node-b, rail: 5}\n"				/* 18 */
    "    params: {count: 3, down: 2s, up: 3s, jiter: 1s}\n"		/* 19 */
    "expect:\n"								/* 20 */
    "  detection: {within: 5s, signals: [workload_error, port_evnt]}\n" /* 21 */
    "  recovery: {within: 30s}\n";					/* 22 */

/* s with the first `from` replaced by `to` (caller frees). */
static char *edit(const char *s, const char *from, const char *to)
{
	const char *at = strstr(s, from);
	size_t head;
	char *out;

	assert_non_null(at);
	head = (size_t)(at - s);
	out = malloc(strlen(s) - strlen(from) + strlen(to) + 1);
	assert_non_null(out);
	memcpy(out, s, head);
	strcpy(out + head, to);
	strcat(out, at + strlen(from));
	return out;
}

static void dump(const struct yd_diags *l)
{
	unsigned int i;

	for (i = 0; i < l->nr; i++)
		print_message("  %s\n", l->v[i].text);
}

/* Checks text into l (sorted); the return value of scenario_check_text(). */
static int check(const char *text, struct yd_diags *l)
{
	struct scenario sc;
	int ret = scenario_check_text("v.yaml", text, strlen(text), &sc, l);

	if (!ret)
		scenario_free(&sc);
	yd_diags_sort(l);
	return ret;
}

/* l holds an entry at line:col of that severity whose whole line starts with want. */
static bool has_diag(const struct yd_diags *l, enum yd_severity sev, unsigned int line,
		     unsigned int col, const char *want)
{
	unsigned int i;

	for (i = 0; i < l->nr; i++)
		if (l->v[i].severity == sev && l->v[i].line == line && l->v[i].col == col &&
		    !strncmp(l->v[i].text, want, strlen(want)))
			return true;
	return false;
}

/* Fails, listing l, unless has_diag(). */
static void expect_diag(const struct yd_diags *l, enum yd_severity sev, unsigned int line,
			unsigned int col, const char *want)
{
	if (has_diag(l, sev, line, col, want))
		return;
	dump(l);
	fail_msg("no %s at %u:%u starting \"%s\"", sev == YD_ERROR ? "error" : "warning", line, col,
		 want);
}

/* One entry a table row expects: its severity, place and the start of its line. */
struct want_diag {
	enum yd_severity sev;
	unsigned int line, col;
	const char *text;
};

/* Every entry of want (up to one with a NULL text) is in l, or case c fails. */
static void expect_diags(const char *c, const struct yd_diags *l, const struct want_diag *want,
			 size_t n)
{
	size_t i;

	for (i = 0; i < n && want[i].text; i++) {
		if (has_diag(l, want[i].sev, want[i].line, want[i].col, want[i].text))
			continue;
		dump(l);
		fail_msg("case %s: no %s at %u:%u starting \"%s\"", c,
			 want[i].sev == YD_ERROR ? "error" : "warning", want[i].line, want[i].col,
			 want[i].text);
	}
}

static void test_clean_has_nothing(void **state)
{
	struct yd_diags l = {0};

	assert_int_equal(check(CLEAN, &l), 0);
	if (l.nr)
		dump(&l);
	assert_int_equal(l.nr, 0);
	assert_int_equal(l.nr_errors + l.nr_warnings, 0);
	yd_diags_free(&l);
}

static void test_every_error_at_its_place(void **state)
{
	static const struct {
		const char *name;
		struct want_diag diag;
	} table[] = {
	    {"rials",
	     {YD_ERROR, 6, 3,
	      "v.yaml:6:3: workload.rials: unknown key; allowed here: kind, from, to,"}},
	    {"queue_depth",
	     {YD_ERROR, 7, 16,
	      "v.yaml:7:16: workload.queue_depth: \"many\" is not a whole number; use 1..1024"}},
	    {"warmup",
	     {YD_ERROR, 8, 24,
	      "v.yaml:8:24: steady_state.warmup: \"5 sec\" is not a duration; write a number and a "
	      "unit with no space"}},
	    {"injector",
	     {YD_ERROR, 12, 15,
	      "v.yaml:12:15: faults[0].injector: \"link_dwn\" is not an injector; use link_down, "
	      "port_flap,"}},
	    {"node",
	     {YD_ERROR, 13, 20,
	      "v.yaml:13:20: faults[0].target.node: \"node-c\" is not a node of this drill; nodes: "
	      "node-a, node-b"}},
	    {"rail",
	     {YD_ERROR, 18, 34,
	      "v.yaml:18:34: faults[1].target.rail: rail 5 does not exist in a 2-rail lab; use "
	      "0..1"}},
	    {"jiter",
	     {YD_ERROR, 19, 42,
	      "v.yaml:19:42: faults[1].params.jiter: unknown key; port_flap takes: count, down, "
	      "up, jitter, seed"}},
	    {"signal",
	     {YD_ERROR, 21, 53,
	      "v.yaml:21:53: expect.detection.signals[1]: \"port_evnt\" is not a signal"}},
	};
	struct yd_diags l = {0};
	struct scenario sc;
	char err[512];
	size_t i;

	assert_int_equal(check(BROKEN, &l), -EINVAL);
	for (i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		expect_diags(table[i].name, &l, &table[i].diag, 1);
	/* nothing else: no error repeats or follows from another */
	if (l.nr != 8)
		dump(&l);
	assert_int_equal(l.nr, 8);
	assert_int_equal(l.nr_errors, 8);
	assert_int_equal(l.nr_warnings, 0);
	assert_string_equal(l.v[0].key, "workload.rials");
	assert_string_equal(l.v[7].msg,
			    "\"port_evnt\" is not a signal; use one of workload_error, port_event, "
			    "link_event, counter, isolation, mr_error, qp_state, pfc_storm, "
			    "pfc_pause, stall, job_exit, alert:NAME");
	yd_diags_free(&l);

	/*
	 * scenario_parse() keeps its contract: the first error found, in the order the
	 * sections are checked (steady_state before workload), now with its column
	 */
	assert_int_equal(scenario_parse("v.yaml", BROKEN, strlen(BROKEN), &sc, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "v.yaml:8:24: steady_state.warmup: \"5 sec\" is not a duration; "
				 "write a number and a unit with no space, e.g. 250ms, 10s, 2m (a "
				 "plain number is seconds)");
}

/* One change of CLEAN: from becomes to (a NULL from ends the list). */
struct change {
	const char *from, *to;
};

/*
 * CLEAN with up to three changes made in turn, and what validating it must give:
 * the return value, the entries it must hold, and the counts ERRORS() and
 * WARNINGS() set (a count left out is not asserted).
 */
struct edit_case {
	const char *name;
	struct change changes[3];
	int ret;
	struct {
		bool set;
		unsigned int n;
	} errors, warnings;
	struct want_diag diags[3];
};

#define ERRORS(v) .errors.set = true, .errors.n = (v)
#define WARNINGS(v) .warnings.set = true, .warnings.n = (v)

static const struct edit_case edits[] = {
    /* ---- what one refusal leaves unknown is not refused again further down ---- */
    /* a bad lab.rails: rails are not then checked against a guess */
    {.name = "bad lab.rails",
     .changes = {{"rails: 2}", "rails: two}"}},
     .ret = -EINVAL,
     ERRORS(1),
     .diags = {{YD_ERROR, 2, 24, "v.yaml:2:24: lab.rails: \"two\" is not a whole number"}}},
    /* a bad warmup: `at` is not then compared with a guessed steady state */
    {.name = "bad warmup", .changes = {{"warmup: 5s", "warmup: 50 s"}}, .ret = -EINVAL, ERRORS(1)},
    /* a refused fault is left out of the overlap check */
    {.name = "refused fault",
     .changes = {{"    duration: 10s\n",
		  "    duration: 10s\n"
		  "  - {name: f1, at: 25s, injector: link_down, duration: 1x,\n"
		  "     target: {node: node-b, rail: 0}}\n"}},
     .ret = -EINVAL,
     ERRORS(1),
     .diags = {{YD_ERROR, 14, 56, "v.yaml:14:56: faults[1].duration: \"1x\" is not"}}},
    /* no lab and no nodes: one error, not one per node name */
    {.name = "no lab",
     .changes = {{"lab: {nodes: 2, rails: 2}\n", ""}},
     .ret = -EINVAL,
     ERRORS(1),
     .diags = {{YD_ERROR, 1, 1, "v.yaml:1:1: nodes: missing;"}}},
    /* A guard's flow is a workload of its own: its errors are reported as the drill's are. */
    {.name = "guard flow",
     .changes = {{"  integrity: {lost: 0, corrupted: 0}\n",
		  "  integrity: {lost: 0, corrupted: 0}\n"
		  "safety:\n"
		  "  guards:\n"
		  "    - kind: throughput\n"
		  "      min_ratio: 2\n"
		  "      flow: {rails: [1], interval: 5ms, to: node-q}\n"}},
     .ret = -EINVAL,
     ERRORS(3),
     .diags = {{YD_ERROR, 22, 18, "v.yaml:22:18: safety.guards[0].min_ratio: 2 is out of range"},
	       {YD_ERROR, 23, 36,
		"v.yaml:23:36: safety.guards[0].flow.interval: 5ms is out of range; use 10ms..10s"},
	       {YD_ERROR, 23, 45,
		"v.yaml:23:45: safety.guards[0].flow.to: \"node-q\" is not a node of this drill"}}},
    /* ---- lint: valid, but likely not what was meant ---- */
    /* one rail: a 10 s link down cannot recover within 5 s, and is shorter than 20 s */
    {.name = "one rail, short recovery",
     .changes = {{"  rails: [0, 1]\n", "  rails: [0]\n"},
		 {"within: 5s,", "within: 20s,"},
		 {"recovery: {within: 30s}", "recovery: {within: 5s}"}},
     ERRORS(0),
     WARNINGS(2),
     .diags = {{YD_WARNING, 13, 15,
		"v.yaml:13:15: warning: faults[0].duration: the fault lasts 10s, less than "
		"expect.detection.within (20s)"},
	       {YD_WARNING, 13, 15,
		"v.yaml:13:15: warning: faults[0].duration: the stream is held up for 10s, longer "
		"than expect.recovery.within (5s), with no other rail to fail over to: recovery is "
		"timed from the injection, not the revert"}}},
    /* with a rail to fail over to, a short recovery window is what the drill tests */
    {.name = "two rails, short recovery",
     .changes = {{"recovery: {within: 30s}", "recovery: {within: 5s}"}},
     WARNINGS(0)},
    /* a flap holds the stream up for one down, not for all of it */
    {.name = "one rail, flap",
     .changes = {{"    injector: link_down\n    target: {node: node-b, rail: 0}\n"
		  "    duration: 10s\n",
		  "    injector: port_flap\n    target: {node: node-b, rail: 0}\n"
		  "    params: {count: 3, down: 8s, up: 4s}\n"},
		 {"  rails: [0, 1]\n", "  rails: [0]\n"},
		 {"recovery: {within: 30s}", "recovery: {within: 6s}"}},
     WARNINGS(1),
     .diags = {{YD_WARNING, 13, 30,
		"v.yaml:13:30: warning: faults[0].params.down: the stream is held up for 8s, "
		"longer than expect.recovery.within (6s)"}}},
    {.name = "missing thresholds",
     .changes = {{"  isolation: {within: 10s}\n", ""},
		 {"  integrity: {lost: 0, corrupted: 0}\n", ""}},
     WARNINGS(2),
     .diags = {{YD_WARNING, 15, 3,
		"v.yaml:15:3: warning: expect.isolation: missing; faults[0] (link_down on node-b "
		"rail 0) should make the stream fail over to another rail"},
	       {YD_WARNING, 15, 3,
		"v.yaml:15:3: warning: expect.integrity: missing; lost and corrupted messages are "
		"not checked"}}},
    {.name = "guard as slow as isolation",
     .changes = {{"  integrity: {lost: 0, corrupted: 0}\n",
		  "  integrity: {lost: 0, corrupted: 0}\n"
		  "safety:\n"
		  "  guards:\n"
		  "    - {kind: throughput, min_ratio: 0.1, for: 8s}\n"}},
     WARNINGS(1),
     .diags = {{YD_WARNING, 21, 47,
		"v.yaml:21:47: warning: safety.guards[0].for: the guard trips after 8s below its "
		"floor, no longer than expect.isolation.within (10s)"}}},
    {.name = "mr_failure without mr_churn",
     .changes = {{"  integrity: {lost: 0, corrupted: 0}\n",
		  "  integrity: {lost: 0, corrupted: 0}\n"
		  "safety:\n"
		  "  guards:\n"
		  "    - {kind: throughput, min_ratio: 0.1, for: 8s}\n"},
		 {"    injector: link_down\n    target: {node: node-b, rail: 0}\n",
		  "    injector: mr_failure\n    target: {node: node-a, workload: stream}\n"
		  "    params: {mechanism: shim}\n"}},
     .diags = {{YD_WARNING, 11, 15,
		"v.yaml:11:15: warning: faults[0].injector: mr_failure, but workload.mr_churn is "
		"not set"}}},
};

static void test_edits(void **state)
{
	size_t i, k;

	for (i = 0; i < sizeof(edits) / sizeof(edits[0]); i++) {
		const struct edit_case *c = &edits[i];
		struct yd_diags l = {0};
		char *text = strdup(CLEAN), *next;
		int ret;

		assert_non_null(text);
		for (k = 0; k < 3 && c->changes[k].from; k++) {
			next = edit(text, c->changes[k].from, c->changes[k].to);
			free(text);
			text = next;
		}
		ret = check(text, &l);
		if (ret != c->ret) {
			dump(&l);
			fail_msg("case %s: returned %d, want %d", c->name, ret, c->ret);
		}
		expect_diags(c->name, &l, c->diags, 3);
		if (c->errors.set && l.nr_errors != c->errors.n) {
			dump(&l);
			fail_msg("case %s: %u errors, want %u", c->name, l.nr_errors, c->errors.n);
		}
		if (c->warnings.set && l.nr_warnings != c->warnings.n) {
			dump(&l);
			fail_msg("case %s: %u warnings, want %u", c->name, l.nr_warnings,
				 c->warnings.n);
		}
		yd_diags_free(&l);
		free(text);
	}
}

/* Syntax errors and files that cannot be read are one entry each. */
static void test_file_level_errors(void **state)
{
	struct yd_diags l = {0};
	struct scenario sc;

	assert_int_equal(check("name: [x\n", &l), -EINVAL);
	assert_int_equal(l.nr, 1);
	expect_diag(&l, YD_ERROR, 2, 1, "v.yaml:2:1: YAML syntax error: did not find expected");
	yd_diags_free(&l);

	assert_int_equal(scenario_check("/nonexistent/v.yaml", &sc, &l), -ENOENT);
	assert_int_equal(l.nr, 1);
	assert_int_equal(l.v[0].line, 0);
	assert_string_equal(l.v[0].text, "/nonexistent/v.yaml: cannot open: No such file or "
					 "directory");
	yd_diags_free(&l);
}

/* 150 unknown keys: 100 kept, all counted. */
static void test_cap(void **state)
{
	struct yd_diags l = {0};
	size_t len = strlen(CLEAN), off;
	char *text = malloc(len + 150 * 16);
	unsigned int i;

	assert_non_null(text);
	memcpy(text, CLEAN, len);
	off = len;
	for (i = 0; i < 150; i++)
		off += (size_t)sprintf(text + off, "k%u: 1\n", i);
	assert_int_equal(check(text, &l), -EINVAL);
	assert_int_equal(l.nr, YD_DIAGS_MAX);
	assert_int_equal(l.nr_errors, 150);
	assert_int_equal(yd_diags_dropped(&l), 50);
	expect_diag(&l, YD_ERROR, 19, 1, "v.yaml:19:1: k0: unknown key");
	yd_diags_free(&l);

	l.max = 3;
	assert_int_equal(check(text, &l), -EINVAL);
	assert_int_equal(l.nr, 3);
	assert_int_equal(yd_diags_dropped(&l), 147);
	yd_diags_free(&l);
	free(text);
}

/* ---- the command ------------------------------------------------------- */

static char dir[64]; /* empty until made */

static void write_file(const char *name, const char *text)
{
	scratch_put(dir, name, text, 0644);
}

/* Runs `rdmachaos validate ARGS...` (args ends at a NULL) in dir; its stdout into out. */
static int run(char *out, size_t outlen, const char *const *args)
{
	char *argv[16] = {(char *)"validate"}, cwd[512], opath[256];
	int argc = 1, saved, fd, ret;
	size_t n;
	FILE *f;

	while (argc < 15 && args[argc - 1]) {
		argv[argc] = (char *)args[argc - 1];
		argc++;
	}
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(dir), 0);
	snprintf(opath, sizeof(opath), "%s/out.txt", dir);
	fflush(stdout);
	saved = dup(1);
	fd = fileno(fopen(opath, "w"));
	assert_true(fd >= 0);
	dup2(fd, 1);
	close(fd);
	ret = cmd_validate(argc, argv);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	assert_int_equal(chdir(cwd), 0);
	f = fopen(opath, "r");
	assert_non_null(f);
	n = fread(out, 1, outlen - 1, f);
	out[n] = '\0';
	fclose(f);
	unlink(opath);
	return ret;
}

/*
 * `rdmachaos validate ARGS...` on the files test_command writes: its exit code,
 * and its whole output (out) or pieces of it (has, in any order).
 */
static const struct {
	const char *name;
	const char *args[4];
	int exit;
	const char *out;    /* NULL: not asserted */
	const char *has[4]; /* up to a NULL */
} commands[] = {
    {"clean", {"clean.yaml"}, 0, "clean.yaml: ok (1 fault, 0 warnings)\n", {NULL}},
    {"warnings",
     {"warn.yaml"},
     0,
     NULL,
     {"warn.yaml:15:3: warning: expect.integrity: missing;",
      "warn.yaml: ok (1 fault, 1 warning)\n"}},
    {"--strict",
     {"--strict", "warn.yaml"},
     65,
     NULL,
     {"warn.yaml: refused by --strict (1 fault, 1 warning)\n"}},
    /* every error, in file order, then the verdict; the other files still checked */
    {"three files",
     {"clean.yaml", "broken.yaml", "warn.yaml"},
     65,
     NULL,
     {"clean.yaml: ok (1 fault, 0 warnings)\n"
      "broken.yaml:6:3: workload.rials: unknown key;",
      "\nbroken.yaml:7:16: workload.queue_depth: ",
      "\nbroken.yaml:21:53: expect.detection.signals[1]: ",
      "\nbroken.yaml: invalid (8 errors, 0 warnings)\n"
      "warn.yaml:15:3: warning:"}},
    {"absent",
     {"absent.yaml"},
     65,
     "absent.yaml: cannot open: No such file or directory\n"
     "absent.yaml: invalid (1 error, 0 warnings)\n",
     {NULL}},
    {"no file", {NULL}, 64, NULL, {NULL}},
    {"--bogus", {"--bogus", "clean.yaml"}, 64, NULL, {NULL}},
    {"--seed x", {"--seed", "x", "clean.yaml"}, 64, NULL, {NULL}},
    {"--help", {"--help"}, 0, NULL, {"usage: rdmachaos validate"}},
    /* the blast radius is checked as `run` checks it, with the place in the same form */
    {"blast radius",
     {"blast.yaml"},
     65,
     NULL,
     {"blast.yaml:22:17: safety.blast_radius.max_nodes: 2 nodes would be faulted at once",
      "blast.yaml: invalid (1 error, 0 warnings)\n"}},
};

static void test_command(void **state)
{
	char out[16384];
	char *warn = edit(CLEAN, "  integrity: {lost: 0, corrupted: 0}\n", "");
	char *two = edit(CLEAN, "    duration: 10s\n",
			 "    duration: 10s\n"
			 "  - {name: f1, at: 22s, injector: link_down, duration: 5s,\n"
			 "     target: {node: node-a, rail: 1}}\n");
	char *blast = edit(two, "  integrity: {lost: 0, corrupted: 0}\n",
			   "  integrity: {lost: 0, corrupted: 0}\n"
			   "safety:\n"
			   "  blast_radius: {max_nodes: 1}\n");
	size_t i, k;

	assert_int_equal(scratch_make(dir, sizeof(dir), "validate"), 0);
	write_file("clean.yaml", CLEAN);
	write_file("broken.yaml", BROKEN);
	write_file("warn.yaml", warn);
	write_file("blast.yaml", blast);
	free(warn);
	free(two);
	free(blast);

	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		int ret = run(out, sizeof(out), commands[i].args);

		if (ret != commands[i].exit)
			fail_msg("case %s: exit %d, want %d; output:\n%s", commands[i].name, ret,
				 commands[i].exit, out);
		if (commands[i].out && strcmp(out, commands[i].out))
			fail_msg("case %s: output is\n%s\nwant\n%s", commands[i].name, out,
				 commands[i].out);
		for (k = 0; k < 4 && commands[i].has[k]; k++)
			if (!strstr(out, commands[i].has[k]))
				fail_msg("case %s: no \"%s\" in the output:\n%s", commands[i].name,
					 commands[i].has[k], out);
	}
}

static int cleanup(void **state)
{
	return dir[0] ? scratch_remove(dir) : 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_clean_has_nothing),
	    cmocka_unit_test(test_every_error_at_its_place),
	    cmocka_unit_test(test_edits),
	    cmocka_unit_test(test_file_level_errors),
	    cmocka_unit_test(test_cap),
	    cmocka_unit_test(test_command),
	};

	return cmocka_run_group_tests(tests, NULL, cleanup);
}
