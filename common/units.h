/* SPDX-License-Identifier: MIT */
/*
 * Clocks and human units. Every event timestamp in rdmachaos is CLOCK_MONOTONIC
 * nanoseconds of the host that produced it; the coordinator maps node clocks
 * onto its own with the offsets measured by clock alignment.
 */
#ifndef RC_UNITS_H
#define RC_UNITS_H

#include <stddef.h>
#include <stdint.h>

#define RC_NSEC_PER_MSEC 1000000ULL
#define RC_NSEC_PER_SEC 1000000000ULL

uint64_t rc_now_ns(void);  /* CLOCK_MONOTONIC */
uint64_t rc_wall_ns(void); /* CLOCK_REALTIME, for reports only */

/*
 * "250ms", "10s", "2m", "1.5s", plain numbers are seconds. Returns 0 and the
 * value in milliseconds, or -EINVAL for anything else (negative, junk after
 * the unit, overflow).
 */
int rc_parse_duration_ms(const char *s, uint64_t *ms);

/*
 * The reverse, short and exact: "1h", "2m", "20s", else "2500ms" (0 is "0ms").
 * rc_parse_duration_ms() reads it back to the same value. Returns buf.
 */
const char *rc_format_duration_ms(uint64_t ms, char *buf, size_t len);

/*
 * A measured time for people to read, as short as the value allows: "812 ms", "1.4 ms", "30 s",
 * "4.2 s", "2.499 s" ("?" when not finite or absurd). Not for reading back: that is
 * rc_format_duration_ms(). Returns buf.
 */
const char *rc_format_ms(double ms, char *buf, size_t len);
/* A window of the drill's clock in ms, the same way: "5-15 s", "500 ms-2 s". Returns buf. */
const char *rc_format_window(double from_ms, double to_ms, char *buf, size_t len);

/* "64KiB", "1MiB", "4096", "1k" (k/M/G are powers of 1024 too). -EINVAL on junk. */
int rc_parse_size(const char *s, uint64_t *bytes);

/*
 * A data rate in bytes per second: "4MB/s", "500KB/s", "1GB/s" (powers of 1000, as the stream
 * and perftest print MB/s), "4MiB/s" (powers of 1024), "100Mbit/s", "10Gbit/s" (bits, powers of
 * 1000), "4096B/s". The unit is required. -EINVAL on junk, a fraction of a byte, or above 1e15.
 */
int rc_parse_rate(const char *s, uint64_t *bytes_per_s);

/* ISO 8601 UTC with milliseconds, e.g. 2026-11-30T04:03:21.123Z, from a wall-clock ns value. */
void rc_format_utc(uint64_t wall_ns, char *buf, unsigned int len);

#endif
