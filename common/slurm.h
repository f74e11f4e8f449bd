/* SPDX-License-Identifier: MIT */
/*
 * Reading Slurm's `scontrol --oneliner` answers: one record per line, fields KEY=VALUE separated
 * by spaces, Reason= last and the one value that may hold spaces (Slurm appends " [user@time]").
 * Shared by rdmachaos-healthcheck and the coordinator's scheduler watcher. Every output is
 * bounded by its buffer; a line is never trusted to be well formed.
 */
#ifndef RC_SLURM_H
#define RC_SLURM_H

#include <stdbool.h>
#include <stddef.h>

/*
 * The value of field KEY in the record line[0..len) (KEY= at the line's start or after a space,
 * so "State" never matches "NextState="), up to the next space, into out (truncated to
 * outlen - 1). 0, or -ENOENT when the field is absent.
 */
int slurm_field(const char *line, size_t len, const char *key, char *out, size_t outlen);

/* The record's Reason= without Slurm's " [user@time]" suffix; "" when absent or "(null)". */
void slurm_reason(const char *line, size_t len, char *out, size_t outlen);

/*
 * Whether a node State= value ("IDLE+DRAIN", "DOWN+NOT_RESPONDING", "MIXED") holds the word
 * flag as its base state or as one of its +FLAGS; a flag ending in '*' matches as a prefix
 * ("DRAIN*" matches DRAIN, DRAINING, DRAINED). A word's own trailing '*' (Slurm's mark of a node
 * not responding, "IDLE*") is not part of it.
 */
bool slurm_state_has(const char *state, const char *flag);

/*
 * The node State= is one the scheduler places no work on: drained or draining, down, failed,
 * not responding (NOT_RESPONDING, or a word marked '*'), in error.
 */
bool slurm_state_unschedulable(const char *state);

#endif
