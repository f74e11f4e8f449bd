/* SPDX-License-Identifier: MIT */
/*
 * The TLS flags every command that talks to agents takes (run, call, fleet status): one list
 * of long options, one reader, one check, so that each command reads them alike.
 */
#ifndef RC_CLI_TLS_H
#define RC_CLI_TLS_H

#include <getopt.h>
#include <stdbool.h>

#include "coordinator/fleet.h"

/* getopt_long values, clear of each command's own (which start at 256) */
enum {
	CLI_OPT_TLS_DIR = 0x1000,
	CLI_OPT_TLS_CA,
	CLI_OPT_TLS_CERT,
	CLI_OPT_TLS_KEY,
	CLI_OPT_INSECURE,
};

/* clang-format off */
#define CLI_TLS_LONG_OPTIONS                                                                       \
	{"tls-dir", required_argument, NULL, CLI_OPT_TLS_DIR},                                     \
	{"ca", required_argument, NULL, CLI_OPT_TLS_CA},                                           \
	{"cert", required_argument, NULL, CLI_OPT_TLS_CERT},                                       \
	{"key", required_argument, NULL, CLI_OPT_TLS_KEY},                                         \
	{"insecure-plaintext", no_argument, NULL, CLI_OPT_INSECURE}
/* clang-format on */

/* Takes getopt's c (and its argument) into t; false when c is no TLS flag. */
bool cli_tls_opt(int c, const char *arg, struct fleet_tls_opts *t);

/* Refuses flags that contradict each other (exit code 64, said on stderr for `cmd`), else
 * hands t to fleet_tls_set() and returns 0. */
int cli_tls_check(const char *cmd, const struct fleet_tls_opts *t);

#endif
