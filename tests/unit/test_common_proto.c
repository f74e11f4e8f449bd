// SPDX-License-Identifier: MIT
/* Frame decoding: split reads, several frames per read, and every refusal rule. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <errno.h>
#include <cmocka.h>

#include "common/proto.h"

static size_t mk(uint8_t *buf, uint16_t type, uint32_t seq, const char *payload)
{
	size_t len = strlen(payload);

	rc_frame_header(buf, type, seq, (uint32_t)len);
	memcpy(buf + RC_PROTO_HDR_LEN, payload, len);
	return RC_PROTO_HDR_LEN + len;
}

static void test_byte_by_byte(void **state)
{
	struct rc_decoder d;
	struct rc_frame f;
	uint8_t buf[256];
	size_t n = mk(buf, RC_MSG_EVENT, 7, "{\"kind\":\"link\"}"), i;
	int got = 0;

	rc_decoder_init(&d, 0);
	for (i = 0; i < n; i++) {
		assert_int_equal(rc_decoder_feed(&d, buf + i, 1), 0);
		int r = rc_decoder_next(&d, &f);
		if (i + 1 < n)
			assert_int_equal(r, 0);
		else {
			assert_int_equal(r, 1);
			got = 1;
		}
	}
	assert_true(got);
	assert_int_equal(f.type, RC_MSG_EVENT);
	assert_int_equal(f.seq, 7);
	assert_string_equal(f.payload, "{\"kind\":\"link\"}");
	rc_decoder_free(&d);
}

static void test_two_frames_one_read(void **state)
{
	struct rc_decoder d;
	struct rc_frame f;
	uint8_t buf[256];
	size_t n = mk(buf, RC_MSG_REQUEST, 1, "{\"op\":\"time\"}");

	n += mk(buf + n, RC_MSG_REQUEST, 2, "{}");
	rc_decoder_init(&d, 0);
	assert_int_equal(rc_decoder_feed(&d, buf, n), 0);
	assert_int_equal(rc_decoder_next(&d, &f), 1);
	assert_string_equal(f.payload, "{\"op\":\"time\"}");
	assert_int_equal(rc_decoder_next(&d, &f), 1);
	assert_string_equal(f.payload, "{}");
	assert_int_equal(f.seq, 2);
	assert_int_equal(rc_decoder_next(&d, &f), 0);
	rc_decoder_free(&d);
}

static void expect_refused(const uint8_t *buf, size_t n, uint32_t max, int err)
{
	struct rc_decoder d;
	struct rc_frame f;

	rc_decoder_init(&d, max);
	rc_decoder_feed(&d, buf, n);
	assert_int_equal(rc_decoder_next(&d, &f), err);
	/* sticky: a bad stream stays bad */
	assert_int_equal(rc_decoder_next(&d, &f), err);
	assert_int_equal(rc_decoder_feed(&d, "x", 1), err);
	rc_decoder_free(&d);
}

static void test_refusals(void **state)
{
	uint8_t buf[256];
	size_t n;

	n = mk(buf, RC_MSG_REQUEST, 1, "{}");
	buf[0] ^= 0xff; /* magic */
	expect_refused(buf, n, 0, -EPROTO);

	n = mk(buf, RC_MSG_REQUEST, 1, "{}");
	buf[5] = 9; /* version */
	expect_refused(buf, n, 0, -EPROTONOSUPPORT);

	n = mk(buf, 42, 1, "{}"); /* type */
	expect_refused(buf, n, 0, -EPROTO);

	n = mk(buf, RC_MSG_REQUEST, 1,
	       "{\"a\":\"0123456789\"}"); /* size, refused from the header alone */
	expect_refused(buf, RC_PROTO_HDR_LEN, 8, -EMSGSIZE);

	n = mk(buf, RC_MSG_REQUEST, 5, "{}"); /* replay: seq must increase */
	n += mk(buf + n, RC_MSG_REQUEST, 5, "{}");
	{
		struct rc_decoder d;
		struct rc_frame f;

		rc_decoder_init(&d, 0);
		rc_decoder_feed(&d, buf, n);
		assert_int_equal(rc_decoder_next(&d, &f), 1);
		assert_int_equal(rc_decoder_next(&d, &f), -EPROTO);
		rc_decoder_free(&d);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_byte_by_byte),
	    cmocka_unit_test(test_two_frames_one_read),
	    cmocka_unit_test(test_refusals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
