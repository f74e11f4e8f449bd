/* SPDX-License-Identifier: MIT */
/* Offline commands on recorded runs: `rdmachaos report` and `rdmachaos compare`. */
#ifndef RC_CMD_REPORT_H
#define RC_CMD_REPORT_H

/* argv[0] is the command's name; each returns a process exit code. */
int cmd_report(int argc, char **argv);
int cmd_compare(int argc, char **argv);

#endif
