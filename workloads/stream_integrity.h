/* SPDX-License-Identifier: MIT */
/*
 * The message format of rdmachaos-stream and how the server proves integrity:
 * a 32-byte header, a payload whose every byte is a function of the sequence
 * number (so a stale, misplaced or torn message is caught even when its
 * checksum is self-consistent), and a growable bitmap of the sequence numbers
 * seen (unique / duplicated / lost).
 */
#ifndef WS_INTEGRITY_H
#define WS_INTEGRITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define WS_MSG_MAGIC 0x31535752u /* "RWS1" read as little-endian bytes */
#define WS_HDR_LEN 32u
#define WS_FLAG_HEARTBEAT 0x1u

/*
 * On the wire, every field little-endian:
 *   0 magic  4 flags  8 seq  16 len (payload bytes)  20 csum (ws_csum of the payload)
 *   24 send_ts_ns (sender's CLOCK_MONOTONIC at post; rewritten on a re-send,
 *      which is why the checksum covers only the payload)
 * A heartbeat is a bare header with WS_FLAG_HEARTBEAT, len 0, its own seq space.
 */
struct ws_hdr {
	uint32_t magic;
	uint32_t flags;
	uint64_t seq;
	uint32_t len;
	uint32_t csum;
	uint64_t send_ts_ns;
};

enum ws_verdict {
	WS_MSG_OK,
	WS_MSG_HEARTBEAT,
	WS_MSG_BAD_MAGIC,
	WS_MSG_BAD_LEN,
	WS_MSG_BAD_CSUM,
	WS_MSG_BAD_PATTERN,
};

/* 32-bit digest: four-lane Fletcher-style sums over 64-bit little-endian words, folded. */
uint32_t ws_csum(const void *buf, size_t len);
/* The payload's 64-bit word i of message seq (little-endian on the wire). */
uint64_t ws_pattern_word(uint64_t seq, uint64_t i);

/* Writes a whole data message of msg_size bytes (>= WS_HDR_LEN) for seq. */
void ws_msg_fill(void *msg, size_t msg_size, uint64_t seq, uint64_t send_ts_ns);
void ws_msg_set_ts(void *msg, uint64_t send_ts_ns);
void ws_hb_fill(void *msg, uint64_t hb_seq, uint64_t send_ts_ns);
void ws_hdr_decode(const void *msg, struct ws_hdr *h);

/*
 * Checks got bytes at msg against a data message of msg_size bytes (or a
 * heartbeat): magic, lengths, checksum and the seq-derived pattern, in one
 * pass. h is filled whenever the header could be read; trust h->seq only for
 * WS_MSG_OK and WS_MSG_HEARTBEAT.
 */
enum ws_verdict ws_msg_check(const void *msg, size_t got, size_t msg_size, struct ws_hdr *h);
const char *ws_verdict_name(enum ws_verdict v);

/*
 * Sequence numbers seen. Storage covers [base, base + 64 * cap); words below
 * the first hole are dropped as base moves up, so memory follows the holes,
 * not the stream length. A jump of more than WS_SEQMAP_MAX_SPAN past base is
 * refused (-ERANGE) rather than allocated.
 */
#define WS_SEQMAP_MAX_SPAN (1ULL << 31)

struct ws_seqmap {
	uint64_t *words;
	size_t cap;    /* words allocated */
	uint64_t base; /* seq of bit 0 of words[0]; a multiple of 64 */
	uint64_t unique;
	uint64_t duplicated;
	int64_t max_seq; /* -1 until the first seq */
};

void ws_seqmap_init(struct ws_seqmap *m);
void ws_seqmap_free(struct ws_seqmap *m);
/* 1 when seq is new, 0 when it was seen before, -ENOMEM or -ERANGE. */
int ws_seqmap_add(struct ws_seqmap *m, uint64_t seq);
bool ws_seqmap_test(const struct ws_seqmap *m, uint64_t seq);
/* Sequence numbers in [0, max_seq] never seen. */
uint64_t ws_seqmap_lost(const struct ws_seqmap *m);

#endif
