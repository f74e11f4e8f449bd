// SPDX-License-Identifier: MIT
/* Per-interval throughput and nearest-rank latency percentiles. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "workloads/stream_stats.h"

void ws_stats_init(struct ws_stats *s, uint64_t now_ns)
{
	memset(s, 0, sizeof(*s));
	s->start_ns = now_ns;
}

void ws_stats_free(struct ws_stats *s)
{
	free(s->lat_ns);
	s->lat_ns = NULL;
	s->nlat = s->cap = 0;
}

void ws_stats_add(struct ws_stats *s, uint64_t bytes, uint64_t lat_ns)
{
	s->msgs++;
	s->bytes += bytes;
	if (lat_ns == WS_NO_LAT || s->nlat >= WS_STATS_MAX_SAMPLES)
		return;
	if (s->nlat == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 256;
		uint64_t *n = realloc(s->lat_ns, cap * sizeof(*n));

		/* Out of memory loses a sample, never the count. */
		if (!n)
			return;
		s->lat_ns = n;
		s->cap = cap;
	}
	s->lat_ns[s->nlat++] = lat_ns;
}

static int ws_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

uint64_t ws_percentile(const uint64_t *sorted, size_t n, double p)
{
	double rank = ceil(p / 100.0 * (double)n);
	size_t i = rank < 1 ? 0 : (size_t)rank - 1;

	return sorted[i < n ? i : n - 1];
}

void ws_stats_cut(struct ws_stats *s, uint64_t now_ns, struct ws_interval *out)
{
	double secs;

	memset(out, 0, sizeof(*out));
	out->bytes = s->bytes;
	out->msgs = s->msgs;
	out->elapsed_ns = now_ns > s->start_ns ? now_ns - s->start_ns : 0;
	secs = (double)out->elapsed_ns / 1e9;
	if (secs > 0) {
		out->mbps = (double)s->bytes / 1e6 / secs;
		out->mbit_s = out->mbps * 8;
	}
	if (s->nlat) {
		qsort(s->lat_ns, s->nlat, sizeof(*s->lat_ns), ws_cmp_u64);
		out->have_lat = true;
		out->lat_us_p50 = (double)ws_percentile(s->lat_ns, s->nlat, 50) / 1e3;
		out->lat_us_p99 = (double)ws_percentile(s->lat_ns, s->nlat, 99) / 1e3;
	}
	s->start_ns = now_ns;
	s->bytes = s->msgs = 0;
	s->nlat = 0;
}
