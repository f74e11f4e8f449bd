// SPDX-License-Identifier: MIT
/* Message header, checksum, seq-derived payload pattern and the seen-seq bitmap. */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "workloads/stream_integrity.h"

#define WS_FNV_OFFSET 0xcbf29ce484222325ULL
#define WS_FNV_PRIME 0x100000001b3ULL
#define WS_GOLDEN 0x9e3779b97f4a7c15ULL

/* Two 64-bit lanes: an SSE2 register on x86-64, NEON on arm64, plain code elsewhere. */
typedef uint64_t ws_v2 __attribute__((vector_size(16)));

static inline uint64_t ws_rotl(uint64_t x, int r)
{
	return (x << r) | (x >> (64 - r));
}

/* splitmix64's finaliser: neighbouring seqs get unrelated patterns. */
static inline uint64_t ws_mix64(uint64_t x)
{
	x += WS_GOLDEN;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static inline uint64_t ws_csum_step(uint64_t h, uint64_t w)
{
	/* The rotate carries high bits down, which a plain multiply never does. */
	return ws_rotl(h ^ w, 29) * WS_FNV_PRIME;
}

static inline uint32_t ws_csum_final(uint64_t h, size_t len)
{
	h = ws_csum_step(h, (uint64_t)len);
	return (uint32_t)(h ^ (h >> 32));
}

static inline uint64_t ws_load64(const uint8_t *p)
{
	uint64_t w;

	memcpy(&w, p, sizeof(w));
	return le64toh(w);
}

static inline void ws_store64(uint8_t *p, uint64_t w)
{
	w = htole64(w);
	memcpy(p, &w, sizeof(w));
}

static inline void ws_store32(uint8_t *p, uint32_t w)
{
	w = htole32(w);
	memcpy(p, &w, sizeof(w));
}

static inline uint32_t ws_load32(const uint8_t *p)
{
	uint32_t w;

	memcpy(&w, p, sizeof(w));
	return le32toh(w);
}

/* The last len % 8 bytes, zero-extended: the leading bytes of a little-endian word. */
static inline uint64_t ws_load_tail(const uint8_t *p, size_t n)
{
	uint8_t tmp[8] = {0};

	memcpy(tmp, p, n);
	return ws_load64(tmp);
}

/*
 * The checksum is Fletcher-like over the payload's little-endian 64-bit words
 * (a zero-extended tail word last), in four lanes: word i goes to lane i % 4,
 * where a += w and then b += a, modulo 2^64. b weighs each word by its
 * distance from the end, so a swap or a shift is seen, not only a changed
 * value; the eight sums and the length are then folded into 32 bits. Unlike a
 * serial hash the lanes vectorise (two registers, two independent chains), and
 * that matters: the server checks every byte it receives, on one core, so this
 * loop is the stream's own ceiling on a fast fabric (make bench prints it
 * against memcpy).
 */
struct ws_sum {
	ws_v2 a[2], b[2]; /* lanes 0-1 and 2-3 */
};

static inline ws_v2 ws_vload(const uint8_t *p)
{
	ws_v2 v;

	memcpy(&v, p, sizeof(v));
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
	v[0] = le64toh(v[0]);
	v[1] = le64toh(v[1]);
#endif
	return v;
}

static inline void ws_vstore(uint8_t *p, ws_v2 v)
{
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
	v[0] = htole64(v[0]);
	v[1] = htole64(v[1]);
#endif
	memcpy(p, &v, sizeof(v));
}

/* Word i (lane i % 4) into the sums, in word order within its lane. */
static inline void ws_sum_word(struct ws_sum *s, size_t i, uint64_t w)
{
	s->a[(i >> 1) & 1][i & 1] += w;
	s->b[(i >> 1) & 1][i & 1] += s->a[(i >> 1) & 1][i & 1];
}

/* Words i..i+3 (i a multiple of 4) into the sums: two independent chains. */
static inline void ws_sum_add(struct ws_sum *s, ws_v2 lo, ws_v2 hi)
{
	s->a[0] += lo;
	s->b[0] += s->a[0];
	s->a[1] += hi;
	s->b[1] += s->a[1];
}

static inline uint32_t ws_sum_final(const struct ws_sum *s, size_t len)
{
	uint64_t h = WS_FNV_OFFSET;
	int k;

	for (k = 0; k < 4; k++)
		h = ws_csum_step(h, s->a[k >> 1][k & 1]);
	for (k = 0; k < 4; k++)
		h = ws_csum_step(h, s->b[k >> 1][k & 1]);
	return ws_csum_final(h, len);
}

uint32_t ws_csum(const void *buf, size_t len)
{
	const uint8_t *p = buf;
	struct ws_sum s = {{{0, 0}, {0, 0}}, {{0, 0}, {0, 0}}};
	size_t i, words = len / 8;

	for (i = 0; i + 4 <= words; i += 4)
		ws_sum_add(&s, ws_vload(p + 8 * i), ws_vload(p + 8 * i + 16));
	for (; i < words; i++)
		ws_sum_word(&s, i, ws_load64(p + 8 * i));
	if (len % 8)
		ws_sum_word(&s, words, ws_load_tail(p + 8 * words, len % 8));
	return ws_sum_final(&s, len);
}

uint64_t ws_pattern_word(uint64_t seq, uint64_t i)
{
	/* i * odd constant is a bijection, so no two offsets of one message repeat. */
	return ws_mix64(seq) ^ (i * WS_GOLDEN);
}

static void ws_hdr_write(uint8_t *p, uint32_t flags, uint64_t seq, uint32_t len, uint32_t csum,
			 uint64_t ts)
{
	ws_store32(p + 0, WS_MSG_MAGIC);
	ws_store32(p + 4, flags);
	ws_store64(p + 8, seq);
	ws_store32(p + 16, len);
	ws_store32(p + 20, csum);
	ws_store64(p + 24, ts);
}

void ws_hdr_decode(const void *msg, struct ws_hdr *h)
{
	const uint8_t *p = msg;

	h->magic = ws_load32(p + 0);
	h->flags = ws_load32(p + 4);
	h->seq = ws_load64(p + 8);
	h->len = ws_load32(p + 16);
	h->csum = ws_load32(p + 20);
	h->send_ts_ns = ws_load64(p + 24);
}

void ws_msg_fill(void *msg, size_t msg_size, uint64_t seq, uint64_t send_ts_ns)
{
	uint8_t *pl = (uint8_t *)msg + WS_HDR_LEN;
	size_t len = msg_size - WS_HDR_LEN, i, words = len / 8;
	uint64_t base = ws_mix64(seq), w;
	ws_v2 v0, v1, off0 = {0, WS_GOLDEN}, off1 = {2 * WS_GOLDEN, 3 * WS_GOLDEN},
		      b = {base, base};
	const ws_v2 step = {4 * WS_GOLDEN, 4 * WS_GOLDEN};
	struct ws_sum s = {{{0, 0}, {0, 0}}, {{0, 0}, {0, 0}}};

	/* Pattern and checksum in one pass: this runs for every message posted. */
	for (i = 0; i + 4 <= words; i += 4) {
		v0 = b ^ off0;
		v1 = b ^ off1;
		ws_vstore(pl + 8 * i, v0);
		ws_vstore(pl + 8 * i + 16, v1);
		ws_sum_add(&s, v0, v1);
		off0 += step;
		off1 += step;
	}
	for (; i < words; i++) {
		w = ws_pattern_word(seq, i);
		ws_store64(pl + 8 * i, w);
		ws_sum_word(&s, i, w);
	}
	if (len % 8) {
		uint8_t tmp[8];

		ws_store64(tmp, ws_pattern_word(seq, words));
		memcpy(pl + 8 * words, tmp, len % 8);
		ws_sum_word(&s, words, ws_load_tail(tmp, len % 8));
	}
	ws_hdr_write(msg, 0, seq, (uint32_t)len, ws_sum_final(&s, len), send_ts_ns);
}

void ws_msg_set_ts(void *msg, uint64_t send_ts_ns)
{
	ws_store64((uint8_t *)msg + 24, send_ts_ns);
}

void ws_hb_fill(void *msg, uint64_t hb_seq, uint64_t send_ts_ns)
{
	ws_hdr_write(msg, WS_FLAG_HEARTBEAT, hb_seq, 0, ws_csum(NULL, 0), send_ts_ns);
}

enum ws_verdict ws_msg_check(const void *msg, size_t got, size_t msg_size, struct ws_hdr *h)
{
	const uint8_t *pl = (const uint8_t *)msg + WS_HDR_LEN;
	ws_v2 v0, v1, diff = {0, 0}, off0 = {0, WS_GOLDEN}, off1 = {2 * WS_GOLDEN, 3 * WS_GOLDEN},
		      b;
	const ws_v2 step = {4 * WS_GOLDEN, 4 * WS_GOLDEN};
	struct ws_sum s = {{{0, 0}, {0, 0}}, {{0, 0}, {0, 0}}};
	uint64_t base, w, bad;
	size_t len, i, words;

	memset(h, 0, sizeof(*h));
	if (got < WS_HDR_LEN)
		return WS_MSG_BAD_LEN;
	ws_hdr_decode(msg, h);
	if (h->magic != WS_MSG_MAGIC)
		return WS_MSG_BAD_MAGIC;
	if (h->flags & WS_FLAG_HEARTBEAT) {
		if (h->len || got != WS_HDR_LEN || h->csum != ws_csum(NULL, 0))
			return WS_MSG_BAD_LEN;
		return WS_MSG_HEARTBEAT;
	}
	if (h->flags || got != msg_size || msg_size < WS_HDR_LEN ||
	    (size_t)h->len != msg_size - WS_HDR_LEN)
		return WS_MSG_BAD_LEN;

	len = h->len;
	words = len / 8;
	base = ws_mix64(h->seq);
	b = (ws_v2){base, base};
	/* Branch-free: every word is read, summed and compared, bad or not. */
	for (i = 0; i + 4 <= words; i += 4) {
		v0 = ws_vload(pl + 8 * i);
		v1 = ws_vload(pl + 8 * i + 16);
		diff |= (v0 ^ b ^ off0) | (v1 ^ b ^ off1);
		ws_sum_add(&s, v0, v1);
		off0 += step;
		off1 += step;
	}
	bad = diff[0] | diff[1];
	for (; i < words; i++) {
		w = ws_load64(pl + 8 * i);
		bad |= w ^ ws_pattern_word(h->seq, i);
		ws_sum_word(&s, i, w);
	}
	if (len % 8) {
		uint8_t tmp[8];

		ws_store64(tmp, ws_pattern_word(h->seq, words));
		w = ws_load_tail(pl + 8 * words, len % 8);
		bad |= w ^ ws_load_tail(tmp, len % 8);
		ws_sum_word(&s, words, w);
	}
	if (ws_sum_final(&s, len) != h->csum)
		return WS_MSG_BAD_CSUM;
	/* A consistent checksum with the wrong pattern: a torn or misdirected message. */
	return bad ? WS_MSG_BAD_PATTERN : WS_MSG_OK;
}

const char *ws_verdict_name(enum ws_verdict v)
{
	switch (v) {
	case WS_MSG_OK:
		return "ok";
	case WS_MSG_HEARTBEAT:
		return "heartbeat";
	case WS_MSG_BAD_MAGIC:
		return "bad magic";
	case WS_MSG_BAD_LEN:
		return "bad length";
	case WS_MSG_BAD_CSUM:
		return "bad checksum";
	case WS_MSG_BAD_PATTERN:
		return "bad payload pattern";
	}
	return "?";
}

void ws_seqmap_init(struct ws_seqmap *m)
{
	memset(m, 0, sizeof(*m));
	m->max_seq = -1;
}

void ws_seqmap_free(struct ws_seqmap *m)
{
	free(m->words);
	ws_seqmap_init(m);
}

/* Drops the leading all-ones words: everything below the new base was seen. */
static void ws_seqmap_compact(struct ws_seqmap *m)
{
	size_t k = 0;

	while (k < m->cap && m->words[k] == ~0ULL)
		k++;
	if (!k)
		return;
	memmove(m->words, m->words + k, (m->cap - k) * sizeof(uint64_t));
	memset(m->words + m->cap - k, 0, k * sizeof(uint64_t));
	m->base += 64ULL * k;
}

static int ws_seqmap_reserve(struct ws_seqmap *m, size_t need)
{
	size_t cap = m->cap ? m->cap : 16;
	uint64_t *w;

	while (cap < need)
		cap *= 2;
	w = realloc(m->words, cap * sizeof(uint64_t));
	if (!w)
		return -ENOMEM;
	memset(w + m->cap, 0, (cap - m->cap) * sizeof(uint64_t));
	m->words = w;
	m->cap = cap;
	return 0;
}

int ws_seqmap_add(struct ws_seqmap *m, uint64_t seq)
{
	uint64_t bit, idx;
	int ret;

	if (seq < m->base) {
		m->duplicated++;
		return 0;
	}
	idx = (seq - m->base) / 64;
	if (idx >= m->cap) {
		ws_seqmap_compact(m);
		if (seq - m->base >= WS_SEQMAP_MAX_SPAN)
			return -ERANGE;
		idx = (seq - m->base) / 64;
		if (idx >= m->cap) {
			ret = ws_seqmap_reserve(m, idx + 1);
			if (ret)
				return ret;
		}
	}
	bit = 1ULL << ((seq - m->base) % 64);
	if (m->words[idx] & bit) {
		m->duplicated++;
		return 0;
	}
	m->words[idx] |= bit;
	m->unique++;
	if ((int64_t)seq > m->max_seq)
		m->max_seq = (int64_t)seq;
	return 1;
}

bool ws_seqmap_test(const struct ws_seqmap *m, uint64_t seq)
{
	uint64_t idx;

	if (seq < m->base)
		return true;
	idx = (seq - m->base) / 64;
	if (idx >= m->cap)
		return false;
	return m->words[idx] & (1ULL << ((seq - m->base) % 64));
}

uint64_t ws_seqmap_lost(const struct ws_seqmap *m)
{
	if (m->max_seq < 0)
		return 0;
	return (uint64_t)m->max_seq + 1 - m->unique;
}
