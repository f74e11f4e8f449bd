// SPDX-License-Identifier: MIT
/* Message format, checksum, payload pattern and the seen-seq bitmap of rdmachaos-stream. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <cmocka.h>

#include "tests/unit/stream_msg_ref.h"
#include "workloads/stream_integrity.h"

static uint8_t *mk(size_t size, uint64_t seq)
{
	uint8_t *m = malloc(size);

	assert_non_null(m);
	ws_msg_fill(m, size, seq, 12345);
	return m;
}

static void test_roundtrip(void **state)
{
	/* Sizes around word boundaries exercise the tail handling. */
	static const size_t sizes[] = {64, 65, 71, 72, 100, 4096, 65536, 65539};
	struct ws_hdr h;
	size_t i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		uint8_t *m = mk(sizes[i], 1000 + i);

		assert_int_equal(ws_msg_check(m, sizes[i], sizes[i], &h), WS_MSG_OK);
		assert_int_equal(h.seq, 1000 + i);
		assert_int_equal(h.len, sizes[i] - WS_HDR_LEN);
		assert_int_equal(h.send_ts_ns, 12345);
		assert_int_equal(h.csum, ws_csum(m + WS_HDR_LEN, sizes[i] - WS_HDR_LEN));
		free(m);
	}
}

static void test_checksum_matches_its_definition(void **state)
{
	uint8_t buf[300];
	size_t len, i;

	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)(i * 131 + 7);
	for (len = 0; len <= sizeof(buf); len++)
		assert_int_equal(ws_csum(buf, len), ref_csum(buf, len));
}

static void test_swapped_words_fail_the_checksum(void **state)
{
	/* Same words, other order: a plain sum would pass it; the weighted one does not. */
	static const size_t pairs[][2] = {{0, 2}, {0, 1}, {5, 9}, {100, 508}};
	uint8_t *m = mk(4096 + WS_HDR_LEN, 77), t[8];
	struct ws_hdr h;
	size_t i, x, y;

	for (i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		x = WS_HDR_LEN + 8 * pairs[i][0];
		y = WS_HDR_LEN + 8 * pairs[i][1];
		memcpy(t, m + x, 8);
		memcpy(m + x, m + y, 8);
		memcpy(m + y, t, 8);
		assert_int_equal(ws_msg_check(m, 4096 + WS_HDR_LEN, 4096 + WS_HDR_LEN, &h),
				 WS_MSG_BAD_CSUM);
		memcpy(m + y, m + x, 8);
		memcpy(m + x, t, 8);
		assert_int_equal(ws_msg_check(m, 4096 + WS_HDR_LEN, 4096 + WS_HDR_LEN, &h),
				 WS_MSG_OK);
	}
	free(m);
}

static void test_timestamp_rewrite_keeps_checksum(void **state)
{
	uint8_t *m = mk(4096, 7);
	struct ws_hdr h;

	ws_msg_set_ts(m, 999999);
	assert_int_equal(ws_msg_check(m, 4096, 4096, &h), WS_MSG_OK);
	assert_int_equal(h.send_ts_ns, 999999);
	free(m);
}

static void test_every_payload_byte_flip_detected(void **state)
{
	size_t size = 200, i;
	uint8_t *m = mk(size, 42);
	struct ws_hdr h;

	for (i = WS_HDR_LEN; i < size; i++) {
		m[i] ^= 0x80;
		assert_int_not_equal(ws_msg_check(m, size, size, &h), WS_MSG_OK);
		m[i] ^= 0x80;
	}
	assert_int_equal(ws_msg_check(m, size, size, &h), WS_MSG_OK);
	free(m);
}

static void test_header_corruption(void **state)
{
	uint8_t *m = mk(256, 5), *o = mk(256, 6);
	struct ws_hdr h;

	m[0] ^= 1; /* magic */
	assert_int_equal(ws_msg_check(m, 256, 256, &h), WS_MSG_BAD_MAGIC);
	m[0] ^= 1;
	m[16] ^= 1; /* len */
	assert_int_equal(ws_msg_check(m, 256, 256, &h), WS_MSG_BAD_LEN);
	m[16] ^= 1;
	m[20] ^= 1; /* checksum */
	assert_int_equal(ws_msg_check(m, 256, 256, &h), WS_MSG_BAD_CSUM);
	m[20] ^= 1;
	/* seq rewritten but checksum still matching the payload: the pattern catches it. */
	memcpy(m + 8, o + 8, 8);
	assert_int_equal(ws_msg_check(m, 256, 256, &h), WS_MSG_BAD_PATTERN);
	free(m);
	free(o);
}

static void test_torn_message(void **state)
{
	/* The front of message 9 over message 1 (a slot overwritten mid-check). */
	uint8_t *a = mk(8192, 1), *b = mk(8192, 9);
	struct ws_hdr h;

	memcpy(a, b, 4096);
	assert_int_equal(ws_msg_check(a, 8192, 8192, &h), WS_MSG_BAD_CSUM);
	/* Old header, new payload front: caught as well. */
	ws_msg_fill(a, 8192, 1, 0);
	memcpy(a + WS_HDR_LEN, b + WS_HDR_LEN, 64);
	assert_int_equal(ws_msg_check(a, 8192, 8192, &h), WS_MSG_BAD_CSUM);
	free(a);
	free(b);
}

static void test_lengths(void **state)
{
	uint8_t *m = mk(512, 3);
	struct ws_hdr h;

	assert_int_equal(ws_msg_check(m, 511, 512, &h), WS_MSG_BAD_LEN);
	assert_int_equal(ws_msg_check(m, 512, 1024, &h), WS_MSG_BAD_LEN);
	assert_int_equal(ws_msg_check(m, 10, 512, &h), WS_MSG_BAD_LEN);
	free(m);
}

static void test_heartbeat(void **state)
{
	uint8_t b[WS_HDR_LEN];
	struct ws_hdr h;

	ws_hb_fill(b, 77, 1);
	assert_int_equal(ws_msg_check(b, WS_HDR_LEN, 65536, &h), WS_MSG_HEARTBEAT);
	assert_int_equal(h.seq, 77);
	assert_int_equal(ws_msg_check(b, WS_HDR_LEN + 8, 65536, &h), WS_MSG_BAD_LEN);
}

static void test_patterns_differ(void **state)
{
	assert_int_not_equal(ws_pattern_word(1, 0), ws_pattern_word(2, 0));
	assert_int_not_equal(ws_pattern_word(1, 0), ws_pattern_word(1, 1));
	assert_int_not_equal(ws_csum("abcdefgh", 8), ws_csum("abcdefgi", 8));
	assert_int_not_equal(ws_csum("a", 1), ws_csum("a\0", 2));
}

static void test_seqmap_counts(void **state)
{
	struct ws_seqmap m;
	uint64_t s;

	ws_seqmap_init(&m);
	assert_int_equal(m.max_seq, -1);
	assert_int_equal(ws_seqmap_lost(&m), 0);
	for (s = 0; s < 100; s++)
		if (s != 17 && s != 50)
			assert_int_equal(ws_seqmap_add(&m, s), 1);
	assert_int_equal(ws_seqmap_add(&m, 5), 0);
	assert_int_equal(ws_seqmap_add(&m, 99), 0);
	assert_int_equal(m.unique, 98);
	assert_int_equal(m.duplicated, 2);
	assert_int_equal(m.max_seq, 99);
	assert_int_equal(ws_seqmap_lost(&m), 2);
	assert_false(ws_seqmap_test(&m, 17));
	assert_true(ws_seqmap_test(&m, 18));
	/* A late arrival fills a hole and is not a duplicate. */
	assert_int_equal(ws_seqmap_add(&m, 17), 1);
	assert_int_equal(ws_seqmap_lost(&m), 1);
	ws_seqmap_free(&m);
}

static void test_seqmap_growth_and_compaction(void **state)
{
	struct ws_seqmap m;
	uint64_t s, n = 3000000;

	ws_seqmap_init(&m);
	for (s = 0; s < n; s++)
		assert_int_equal(ws_seqmap_add(&m, s), 1);
	/* No holes: storage stays small because full words are dropped. */
	assert_true(m.cap <= 64);
	assert_true(m.base > 0);
	assert_int_equal(ws_seqmap_add(&m, 10), 0);
	assert_int_equal(ws_seqmap_add(&m, n - 1), 0);
	assert_int_equal(m.duplicated, 2);
	assert_int_equal(ws_seqmap_lost(&m), 0);
	/* Out of order, far ahead: grows. */
	assert_int_equal(ws_seqmap_add(&m, n + 1000000), 1);
	assert_int_equal(ws_seqmap_lost(&m), 1000000);
	assert_int_equal(ws_seqmap_add(&m, n + 500000), 1);
	assert_int_equal(ws_seqmap_lost(&m), 999999);
	assert_true(ws_seqmap_test(&m, n + 500000));
	assert_false(ws_seqmap_test(&m, n + 500001));
	/* A jump beyond the span is refused, not allocated. */
	assert_int_equal(ws_seqmap_add(&m, m.base + WS_SEQMAP_MAX_SPAN + 5), -ERANGE);
	ws_seqmap_free(&m);
}

static void test_seqmap_hole_keeps_history(void **state)
{
	struct ws_seqmap m;
	uint64_t s;

	ws_seqmap_init(&m);
	for (s = 1; s < 100000; s++)
		ws_seqmap_add(&m, s);
	/* seq 0 missing pins base at 0, but every seq is still told apart. */
	assert_int_equal(m.base, 0);
	assert_int_equal(ws_seqmap_lost(&m), 1);
	assert_int_equal(ws_seqmap_add(&m, 0), 1);
	assert_int_equal(ws_seqmap_add(&m, 77777), 0);
	assert_int_equal(ws_seqmap_lost(&m), 0);
	ws_seqmap_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_roundtrip),
	    cmocka_unit_test(test_checksum_matches_its_definition),
	    cmocka_unit_test(test_swapped_words_fail_the_checksum),
	    cmocka_unit_test(test_timestamp_rewrite_keeps_checksum),
	    cmocka_unit_test(test_every_payload_byte_flip_detected),
	    cmocka_unit_test(test_header_corruption),
	    cmocka_unit_test(test_torn_message),
	    cmocka_unit_test(test_lengths),
	    cmocka_unit_test(test_heartbeat),
	    cmocka_unit_test(test_patterns_differ),
	    cmocka_unit_test(test_seqmap_counts),
	    cmocka_unit_test(test_seqmap_growth_and_compaction),
	    cmocka_unit_test(test_seqmap_hole_keeps_history),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
