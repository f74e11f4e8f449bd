/* SPDX-License-Identifier: MIT */
/*
 * The stream message checksum as workloads/stream_integrity.c defines it, one word at a time
 * and byte by byte, for the unit test and the fuzz harness to hold the vectorised code to:
 * little-endian 64-bit words (a zero-extended tail word last), word i in lane i % 4 with
 * a += w then b += a (mod 2^64), then a0..a3, b0..b3 and the length folded into 32 bits.
 */
#ifndef TESTS_STREAM_MSG_REF_H
#define TESTS_STREAM_MSG_REF_H

#include <stddef.h>
#include <stdint.h>

/* n (<= 8) bytes at p as a little-endian number. */
static inline uint64_t ref_le(const uint8_t *p, size_t n)
{
	uint64_t w = 0;

	while (n--)
		w = w << 8 | p[n];
	return w;
}

static inline uint32_t ref_csum(const uint8_t *p, size_t len)
{
	uint64_t a[4] = {0}, b[4] = {0}, h = 0xcbf29ce484222325ULL, f[9];
	size_t i, k;

	for (i = 0; 8 * i < len; i++) {
		a[i % 4] += ref_le(p + 8 * i, len - 8 * i < 8 ? len - 8 * i : 8);
		b[i % 4] += a[i % 4];
	}
	for (k = 0; k < 4; k++) {
		f[k] = a[k];
		f[4 + k] = b[k];
	}
	f[8] = len;
	for (k = 0; k < 9; k++) {
		h ^= f[k];
		h = ((h << 29) | (h >> 35)) * 0x100000001b3ULL;
	}
	return (uint32_t)(h ^ (h >> 32));
}

#endif
