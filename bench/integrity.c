// SPDX-License-Identifier: MIT
/*
 * make bench's measure of the stream's own ceiling: how fast one core fills and checks
 * messages (workloads/stream_integrity.c) against memcpy of the same bytes, natively on
 * this host. The stream's server checks every byte it receives on one core, so on a fabric
 * faster than the check the instrument, not the fabric, sets the bandwidth it reports.
 *
 *   bench-integrity [MSG_SIZE [RING_MESSAGES]]      defaults 65536 and 16
 *
 * Prints one line: fill, check and memcpy in GB/s (10^9 B/s; best of 5 runs of at least
 * 0.2 s each) and check / memcpy. Exit 1 if a check fails (the bench would be void).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "workloads/stream_integrity.h"

#define BI_RUNS 5
#define BI_MIN_NS 200000000ULL

enum bi_what { BI_FILL, BI_CHECK, BI_COPY };

static uint64_t bi_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* One pass over the ring; the number of messages that failed their check. */
static size_t bi_pass(enum bi_what what, uint8_t *ring, uint8_t *copy, size_t msg, size_t n,
		      uint64_t *seq)
{
	struct ws_hdr h;
	size_t i, bad = 0;

	for (i = 0; i < n; i++) {
		uint8_t *m = ring + i * msg;

		if (what == BI_FILL)
			ws_msg_fill(m, msg, (*seq)++, 0);
		else if (what == BI_CHECK)
			bad += ws_msg_check(m, msg, msg, &h) != WS_MSG_OK;
		else
			memcpy(copy + i * msg, m, msg);
	}
	return bad;
}

/* Best GB/s of BI_RUNS runs; *bad counts failed checks. */
static double bi_rate(enum bi_what what, uint8_t *ring, uint8_t *copy, size_t msg, size_t n,
		      uint64_t *seq, size_t *bad)
{
	double best = 0, gbs;
	uint64_t t0, dt, bytes;
	int r;

	for (r = 0; r < BI_RUNS; r++) {
		bytes = 0;
		t0 = bi_now_ns();
		do {
			*bad += bi_pass(what, ring, copy, msg, n, seq);
			bytes += (uint64_t)msg * n;
			dt = bi_now_ns() - t0;
		} while (dt < BI_MIN_NS);
		gbs = (double)bytes / (double)dt;
		if (gbs > best)
			best = gbs;
	}
	return best;
}

int main(int argc, char **argv)
{
	size_t msg = argc > 1 ? strtoul(argv[1], NULL, 0) : 65536;
	size_t n = argc > 2 ? strtoul(argv[2], NULL, 0) : 16, bad = 0;
	double fill, check, copy;
	uint8_t *ring, *dst;
	uint64_t seq = 0;

	if (msg < WS_HDR_LEN || msg > (64u << 20) || !n || n > 4096) {
		fprintf(stderr, "usage: %s [MSG_SIZE %u..%u [RING_MESSAGES 1..4096]]\n", argv[0],
			WS_HDR_LEN, 64u << 20);
		return 2;
	}
	ring = aligned_alloc(4096, (msg * n + 4095) / 4096 * 4096);
	dst = aligned_alloc(4096, (msg * n + 4095) / 4096 * 4096);
	if (!ring || !dst) {
		fprintf(stderr, "%s: out of memory for 2 x %zu bytes\n", argv[0], msg * n);
		return 1;
	}
	fill = bi_rate(BI_FILL, ring, dst, msg, n, &seq, &bad);
	check = bi_rate(BI_CHECK, ring, dst, msg, n, &seq, &bad);
	copy = bi_rate(BI_COPY, ring, dst, msg, n, &seq, &bad);
	printf("fill %.2f GB/s, check %.2f GB/s, memcpy %.2f GB/s (%zu B messages, a ring of %zu); "
	       "check / memcpy = %.3f\n",
	       fill, check, copy, msg, n, copy > 0 ? check / copy : 0);
	free(ring);
	free(dst);
	if (bad) {
		fprintf(stderr, "%s: %zu check(s) failed: the measure is void\n", argv[0], bad);
		return 1;
	}
	return 0;
}
