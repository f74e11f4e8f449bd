// SPDX-License-Identifier: MIT
/* The drill's console output: event lines, and a live status line on a terminal. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "common/log.h"
#include "coordinator/progress.h"

static bool prog_is_live;
static bool prog_shown;	    /* the status line is on the screen */
static char prog_text[512]; /* what it says */

static void prog_hide(void)
{
	if (!prog_shown)
		return;
	/* back to column 0 and erase the line: the next output takes its place */
	fputs("\r\033[K", stderr);
	prog_shown = false;
}

static void prog_show(void)
{
	struct winsize ws;
	int width = 0;

	if (!prog_is_live || !prog_text[0])
		return;
	/* One terminal row: a wrapped status line could not be erased in place. */
	if (!ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) && ws.ws_col > 1)
		width = ws.ws_col - 1;
	fprintf(stderr, "\r\033[K\033[7m%.*s\033[0m", width ? width : (int)sizeof(prog_text),
		prog_text);
	fflush(stderr);
	prog_shown = true;
}

void prog_init(enum prog_mode mode)
{
	const char *term = getenv("TERM");

	if (mode == PROG_AUTO)
		prog_is_live = isatty(STDERR_FILENO) && term && *term && strcmp(term, "dumb");
	else
		prog_is_live = mode == PROG_LIVE;
	prog_shown = false;
	prog_text[0] = '\0';
	if (prog_is_live)
		rc_log_set_hooks(prog_hide, prog_show);
}

bool prog_live(void)
{
	return prog_is_live;
}

void prog_event(const char *fmt, ...)
{
	va_list ap;

	prog_hide();
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	prog_show();
}

void prog_status(const char *fmt, ...)
{
	va_list ap;

	if (!prog_is_live)
		return;
	va_start(ap, fmt);
	vsnprintf(prog_text, sizeof(prog_text), fmt, ap);
	va_end(ap);
	prog_show();
}

void prog_done(void)
{
	prog_hide();
	prog_text[0] = '\0';
	if (prog_is_live)
		rc_log_set_hooks(NULL, NULL);
}
