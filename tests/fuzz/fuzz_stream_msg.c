// SPDX-License-Identifier: MIT
/*
 * libFuzzer harness for what rdmachaos-stream's server reads off the wire: ws_msg_check() on
 * fuzzer-chosen bytes must give the verdict (and header) of a one-word-at-a-time reading of
 * the rules in workloads/stream_integrity.h, so the vectorised loops cannot drift from the
 * definition; then a message written by ws_msg_fill() for a fuzzer-chosen seq and size must
 * check OK, and the same message with one fuzzer-chosen byte flipped must not.
 *
 * Input: bytes 0-1 pick msg_size against the bytes received (equal, or off by a little) and
 * how the message is made (below), bytes 2-9 a seq, byte 10 the byte to flip; from byte 2
 * on, the message as received or what is XORed onto a well-formed one. Every buffer is allocated to
 * its exact length, so AddressSanitizer sees a read past the end.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/stream_msg_ref.h"
#include "workloads/stream_integrity.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FZ_MAX_MSG (1u << 16)
/* The stream's smallest --msg-size: without payload a flipped seq bit would go unseen. */
#define FZ_MIN_MSG 64u

static enum ws_verdict ref_check(const uint8_t *m, size_t got, size_t msg_size)
{
	uint32_t flags, len;
	uint64_t seq, want;
	size_t i, n;
	bool ok = true;

	if (got < WS_HDR_LEN)
		return WS_MSG_BAD_LEN;
	if (ref_le(m, 4) != WS_MSG_MAGIC)
		return WS_MSG_BAD_MAGIC;
	flags = (uint32_t)ref_le(m + 4, 4);
	seq = ref_le(m + 8, 8);
	len = (uint32_t)ref_le(m + 16, 4);
	if (flags & WS_FLAG_HEARTBEAT)
		return len || got != WS_HDR_LEN || ref_le(m + 20, 4) != ref_csum(NULL, 0)
			   ? WS_MSG_BAD_LEN
			   : WS_MSG_HEARTBEAT;
	if (flags || got != msg_size || msg_size < WS_HDR_LEN || len != msg_size - WS_HDR_LEN)
		return WS_MSG_BAD_LEN;
	if (ref_csum(m + WS_HDR_LEN, len) != ref_le(m + 20, 4))
		return WS_MSG_BAD_CSUM;
	for (i = 0; 8 * i < len; i++) {
		n = len - 8 * i < 8 ? len - 8 * i : 8;
		want = ws_pattern_word(seq, i);
		if (n < 8)
			want &= (1ULL << (8 * n)) - 1;
		ok &= ref_le(m + WS_HDR_LEN + 8 * i, n) == want;
	}
	return ok ? WS_MSG_OK : WS_MSG_BAD_PATTERN;
}

/*
 * The received bytes as the server would see them: verdict and header against the reference.
 * Half the inputs are taken raw; the other half XOR the input onto a well-formed message of
 * the same length (seq from the input), so the checksum and pattern paths see near misses.
 */
static void received(const uint8_t *data, size_t size)
{
	size_t got = size - 2, msg_size = got, i;
	enum ws_verdict v, r;
	struct ws_hdr h;
	uint8_t *m;

	switch (data[0] % 4) {
	case 1:
		msg_size = got + 1 + data[1] % 8;
		break;
	case 2:
		msg_size = got > data[1] % 8 ? got - data[1] % 8 : 0;
		break;
	case 3:
		msg_size = data[1];
		break;
	}
	m = malloc(got ? got : 1);
	if (!m)
		abort();
	if ((data[0] & 4) && got >= WS_HDR_LEN) {
		ws_msg_fill(m, got, ref_le(data + 2, 8), 0);
		for (i = 0; i < got; i++)
			m[i] ^= i < 8 ? 0 : data[2 + i];
	} else {
		memcpy(m, data + 2, got);
	}
	v = ws_msg_check(m, got, msg_size, &h);
	r = ref_check(m, got, msg_size);
	if (v != r)
		abort();
	if ((v == WS_MSG_OK || v == WS_MSG_HEARTBEAT) && h.seq != ref_le(m + 8, 8))
		abort();
	free(m);
}

/* A message as the client writes it checks OK; one flipped byte of it does not. */
static void written(const uint8_t *data, size_t size)
{
	size_t msg_size = FZ_MIN_MSG + (size_t)ref_le(data, 2) % (FZ_MAX_MSG - FZ_MIN_MSG + 1), at;
	uint64_t seq = ref_le(data + 2, 8);
	struct ws_hdr h;
	uint8_t *m = malloc(msg_size);

	if (!m)
		abort();
	ws_msg_fill(m, msg_size, seq, 1);
	if (ws_msg_check(m, msg_size, msg_size, &h) != WS_MSG_OK || h.seq != seq ||
	    h.len != msg_size - WS_HDR_LEN || ref_check(m, msg_size, msg_size) != WS_MSG_OK)
		abort();
	/* The send time is outside the checksum (a re-send rewrites it); every other byte counts.
	 */
	at = (size_t)data[10] * 257 % msg_size;
	if (at < 24 || at >= 32) {
		m[at] ^= (uint8_t)(1u << (data[10] % 8));
		if (ws_msg_check(m, msg_size, msg_size, &h) == WS_MSG_OK)
			abort();
	}
	free(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	received(data, size);
	if (size >= 11)
		written(data, size);
	return 0;
}
