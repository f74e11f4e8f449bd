// SPDX-License-Identifier: MIT
/* Monotonic and wall clocks, and parsing (and formatting) of durations and sizes. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "common/units.h"

static uint64_t rc_clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * RC_NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

uint64_t rc_now_ns(void)
{
	return rc_clock_ns(CLOCK_MONOTONIC);
}

uint64_t rc_wall_ns(void)
{
	return rc_clock_ns(CLOCK_REALTIME);
}

/* Parses a non-negative decimal number followed by a unit; returns the unit's start. */
static int rc_parse_number(const char *s, double *val, const char **unit)
{
	char *end;

	if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
		return -EINVAL;
	errno = 0;
	*val = strtod(s, &end);
	if (errno || end == s || !isfinite(*val) || *val < 0)
		return -EINVAL;
	*unit = end;
	return 0;
}

/*
 * llround() for |x| <= 1e15, where x + 0.5 is exact. Not libm's: loading libm runs its IFUNC
 * resolvers and puts 328 KiB into the agent's RSS for these two calls (issue 17: under 8 MiB).
 */
static long long rc_llround(double x)
{
	return (long long)(x < 0 ? x - 0.5 : x + 0.5);
}

int rc_parse_duration_ms(const char *s, uint64_t *ms)
{
	static const struct {
		const char *unit;
		double ms;
	} units[] = {{"", 1000}, {"ms", 1}, {"s", 1000}, {"m", 60000}, {"h", 3600000}};
	const char *unit;
	double val;
	size_t i;

	if (rc_parse_number(s, &val, &unit))
		return -EINVAL;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(unit, units[i].unit))
			continue;
		val *= units[i].ms;
		if (val > 1e15)
			return -EINVAL;
		*ms = (uint64_t)rc_llround(val);
		return 0;
	}
	return -EINVAL;
}

const char *rc_format_duration_ms(uint64_t ms, char *buf, size_t len)
{
	if (ms && ms % 3600000 == 0)
		snprintf(buf, len, "%" PRIu64 "h", ms / 3600000);
	else if (ms && ms % 60000 == 0)
		snprintf(buf, len, "%" PRIu64 "m", ms / 60000);
	else if (ms && ms % 1000 == 0)
		snprintf(buf, len, "%" PRIu64 "s", ms / 1000);
	else
		snprintf(buf, len, "%" PRIu64 "ms", ms);
	return buf;
}

const char *rc_format_ms(double ms, char *buf, size_t len)
{
	long long r;

	if (!isfinite(ms) || fabs(ms) > 1e15) {
		snprintf(buf, len, "?");
		return buf;
	}
	if (ms < 1000) {
		if (ms < 10 && fabs(ms - (double)rc_llround(ms)) >= 0.05)
			snprintf(buf, len, "%.1f ms", ms);
		else
			snprintf(buf, len, "%.0f ms", ms);
		return buf;
	}
	r = rc_llround(ms);
	if (r % 1000 == 0)
		snprintf(buf, len, "%lld s", r / 1000);
	else if (r % 100 == 0)
		snprintf(buf, len, "%.1f s", (double)r / 1000);
	else if (r % 10 == 0)
		snprintf(buf, len, "%.2f s", (double)r / 1000);
	else
		snprintf(buf, len, "%.3f s", (double)r / 1000);
	return buf;
}

const char *rc_format_window(double from_ms, double to_ms, char *buf, size_t len)
{
	char a[32], b[32];
	size_t n;

	rc_format_ms(from_ms, a, sizeof(a));
	rc_format_ms(to_ms, b, sizeof(b));
	/* one unit when both are seconds: "5-15 s" */
	n = strlen(a);
	if (from_ms >= 1000 && to_ms >= 1000 && n > 2 && !strcmp(a + n - 2, " s"))
		a[n - 2] = '\0';
	snprintf(buf, len, "%s-%s", a, b);
	return buf;
}

struct rc_unit {
	const char *unit;
	double mult;
};

/* A number and one of units (matched with cmp), as a whole count up to max. */
static int rc_parse_scaled(const char *s, const struct rc_unit *units, size_t n,
			   int (*cmp)(const char *, const char *), double max, uint64_t *out)
{
	const char *unit;
	double val;
	size_t i;

	if (rc_parse_number(s, &val, &unit))
		return -EINVAL;
	for (i = 0; i < n; i++) {
		if (cmp(unit, units[i].unit))
			continue;
		val *= units[i].mult;
		if (val > max || val != floor(val))
			return -EINVAL;
		*out = (uint64_t)val;
		return 0;
	}
	return -EINVAL;
}

int rc_parse_size(const char *s, uint64_t *bytes)
{
	static const struct rc_unit units[] = {{"", 1},
					       {"b", 1},
					       {"k", 1024.0},
					       {"kib", 1024.0},
					       {"kb", 1024.0},
					       {"m", 1048576.0},
					       {"mib", 1048576.0},
					       {"mb", 1048576.0},
					       {"g", 1073741824.0},
					       {"gib", 1073741824.0},
					       {"gb", 1073741824.0}};

	return rc_parse_scaled(s, units, sizeof(units) / sizeof(units[0]), strcasecmp, 1e18, bytes);
}

int rc_parse_rate(const char *s, uint64_t *bytes_per_s)
{
	static const struct rc_unit units[] = {
	    {"B/s", 1},	       {"KB/s", 1e3},	     {"MB/s", 1e6},	      {"GB/s", 1e9},
	    {"KiB/s", 1024.0}, {"MiB/s", 1048576.0}, {"GiB/s", 1073741824.0}, {"kbit/s", 125},
	    {"Mbit/s", 125e3}, {"Gbit/s", 125e6}};

	return rc_parse_scaled(s, units, sizeof(units) / sizeof(units[0]), strcmp, 1e15,
			       bytes_per_s);
}

void rc_format_utc(uint64_t wall_ns, char *buf, unsigned int len)
{
	time_t secs = (time_t)(wall_ns / RC_NSEC_PER_SEC);
	unsigned int msec = (unsigned int)((wall_ns % RC_NSEC_PER_SEC) / RC_NSEC_PER_MSEC);
	struct tm tm;

	gmtime_r(&secs, &tm);
	snprintf(buf, len, "%04d-%02d-%02dT%02d:%02d:%02d.%03uZ", tm.tm_year + 1900, tm.tm_mon + 1,
		 tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, msec);
}
