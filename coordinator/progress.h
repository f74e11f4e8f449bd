/* SPDX-License-Identifier: MIT */
/*
 * What a running drill prints for the person watching it, on stderr. Event
 * lines always scroll; on a terminal a live status line (phase, elapsed
 * time, the fault in force, throughput against the baseline) stays below
 * them and is redrawn in place. Not on a terminal (CI logs, pipes) there is
 * no status line, and a plain progress line is printed every few seconds.
 */
#ifndef RC_PROGRESS_H
#define RC_PROGRESS_H

#include <stdbool.h>

enum prog_mode {
	PROG_AUTO,  /* live when stderr is a terminal and TERM is not "dumb" */
	PROG_LIVE,  /* always redraw a status line */
	PROG_PLAIN, /* line per event, periodic progress lines */
};

/* Decides live or plain; hooks rc_log() so its lines do not tear the status line. */
void prog_init(enum prog_mode mode);
bool prog_live(void);

/* One event line (a trailing newline is added). */
void prog_event(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Sets the status line's text and draws it (live mode only; "" hides it). */
void prog_status(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Takes the status line off the terminal for good (end of the timeline). */
void prog_done(void);

#endif
