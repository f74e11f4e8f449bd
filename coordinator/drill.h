/* SPDX-License-Identifier: MIT */
/*
 * The drill engine: scenario -> plan -> agent commands -> events -> measured
 * times -> verdict -> reports. It owns the promise that every fault it
 * injected is reverted and verified before it returns, whatever happened.
 */
#ifndef RC_DRILL_H
#define RC_DRILL_H

#include <stdbool.h>
#include <stdint.h>

#include "coordinator/progress.h"

/* Exit codes, a documented contract (README, --help). */
enum rc_exit {
	RC_EXIT_PASS = 0,
	RC_EXIT_FAIL = 1,
	RC_EXIT_INCONCLUSIVE = 2,
	RC_EXIT_CLEANUP = 3,
	RC_EXIT_USAGE = 64,
	RC_EXIT_SCENARIO = 65,
	RC_EXIT_INTERNAL = 70,
};

struct drill_opts {
	const char *scenario;
	const char *out_dir; /* NULL: runs/<UTC>-<name>/ */
	bool lab;	     /* run in the lab (implied by a `lab:` drill) */
	bool dry_run;
	bool have_seed;
	uint64_t seed;
	bool quiet;
	enum prog_mode progress;      /* live status line or plain lines (coordinator/progress.h) */
	const char *alert_receiver;   /* --alert-receiver ADDR:PORT, or NULL */
	const char *alert_token_file; /* --alert-token-file FILE, or NULL */
	const char *fleet;	      /* --fleet FILE: what select: picks from; NULL: the lab's */
};

/* Returns an rc_exit code. */
int drill_run(const struct drill_opts *o);

/* Set from signal handlers: stop the timeline, revert, report. */
extern volatile int drill_stop_requested;

#endif
