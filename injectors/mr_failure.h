/* SPDX-License-Identifier: MIT */
/*
 * mr_failure's test hook: where it reads a process's status and stat files
 * ("/proc"); tests point it at a temporary folder holding PID/status and
 * PID/stat, and fake prlimit(2) with -Wl,--wrap.
 */
#ifndef MR_FAILURE_H
#define MR_FAILURE_H

extern const char *mr_failure_proc_root;

#endif
