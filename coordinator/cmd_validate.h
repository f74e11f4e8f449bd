/* SPDX-License-Identifier: MIT */
/* `rdmachaos validate`: checks scenario files without touching anything. */
#ifndef RC_CMD_VALIDATE_H
#define RC_CMD_VALIDATE_H

/*
 * rdmachaos validate [--strict] [--seed N] SCENARIO...; argv[0] is
 * "validate". Prints every error and lint warning of each file as
 * "FILE:LINE:COL: KEY: message" (warnings "FILE:LINE:COL: warning: ..."), and
 * "FILE: ok (N faults, M warnings)" for a file without errors. Returns the
 * exit code: 0 all valid (warnings allowed), 65 any error (with --strict, any
 * warning too), 64 usage.
 */
int cmd_validate(int argc, char **argv);

#endif
