/* SPDX-License-Identifier: MIT */
/*
 * Interval statistics of rdmachaos-stream: messages and bytes per interval,
 * throughput, and latency percentiles over the messages completed in it.
 */
#ifndef WS_STATS_H
#define WS_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Samples kept per interval; later ones still count as msgs and bytes. */
#define WS_STATS_MAX_SAMPLES (1u << 20)

struct ws_stats {
	uint64_t start_ns;
	uint64_t bytes;
	uint64_t msgs;
	uint64_t *lat_ns;
	size_t nlat, cap;
};

struct ws_interval {
	uint64_t bytes;
	uint64_t msgs;
	uint64_t elapsed_ns;
	/*
	 * "mbps" is MEGABYTES per second (1e6 bytes/s), the unit of ib_write_bw's
	 * MB/sec, so workload and perftest numbers compare directly; mbit_s is the
	 * same rate in megabits for those who think in link speeds.
	 */
	double mbps;
	double mbit_s;
	bool have_lat; /* false when no latency sample was taken */
	double lat_us_p50;
	double lat_us_p99;
};

void ws_stats_init(struct ws_stats *s, uint64_t now_ns);
void ws_stats_free(struct ws_stats *s);
/* One message; a latency sample only when lat_ns is not WS_NO_LAT. */
#define WS_NO_LAT UINT64_MAX
void ws_stats_add(struct ws_stats *s, uint64_t bytes, uint64_t lat_ns);
/* Closes the interval at now_ns into out and starts the next one. */
void ws_stats_cut(struct ws_stats *s, uint64_t now_ns, struct ws_interval *out);

/*
 * Nearest-rank percentile (0 < p <= 100) of n ascending samples: the smallest
 * sample with at least p% of the samples at or below it. n must be > 0.
 */
uint64_t ws_percentile(const uint64_t *sorted, size_t n, double p);

#endif
