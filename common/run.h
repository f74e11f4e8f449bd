/* SPDX-License-Identifier: MIT */
/*
 * Runs a program directly (no shell) and collects its standard output, bounded in size and
 * time: for the few programs rdmachaos asks about the world (Slurm's scontrol).
 */
#ifndef RC_RUN_H
#define RC_RUN_H

#include <stddef.h>

/*
 * Runs argv[0] (a path; argv ends with NULL) with envp (NULL: this process's environment),
 * stdin from /dev/null, stderr inherited; its stdout into out, NUL-terminated, at most
 * outlen - 1 bytes (the rest is read and dropped, so the child never blocks on a full pipe).
 * A child still running after timeout_ms is killed. Its exit status (0..255, 128 + signal),
 * or -errno: -ENOENT the program does not exist, -ETIMEDOUT it ran out of time.
 */
int rc_run(char *const argv[], char *const envp[], int timeout_ms, char *out, size_t outlen);

#endif
