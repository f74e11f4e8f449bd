/* SPDX-License-Identifier: MIT */
/*
 * The machine output of rdmachaos-stream: one compact JSON object per line on
 * stdout, flushed at once, each starting with "type", "ts_ns" (CLOCK_MONOTONIC)
 * and "role". The node agent turns every line into a workload event, so
 * nothing else may ever be written to this stream.
 */
#ifndef WS_OUT_H
#define WS_OUT_H

#include <jansson.h>
#include <stdio.h>

#include "workloads/stream_stats.h"

/* f is borrowed; role is "client" or "server". */
void ws_out_init(FILE *f, const char *role);

/*
 * Prints {"type": type, "ts_ns": now, "role": role, ...fields}. fields is a
 * jansson pack format for an object ("{s:i, s:s}") or NULL for none.
 * Returns 0 or -EIO (stdout gone: the caller should stop).
 */
int ws_out(const char *type, const char *fields, ...);

/* The same with a built object, whose reference is stolen. */
int ws_out_obj(const char *type, json_t *fields);

/* An interval line: the common rail/bytes/msgs/throughput/latency fields. */
json_t *ws_out_interval_fields(int rail, const struct ws_interval *iv);

/* A number rounded to 0.001, so lines stay short and readable. */
json_t *ws_out_real(double v);

#endif
