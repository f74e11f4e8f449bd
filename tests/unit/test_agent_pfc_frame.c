// SPDX-License-Identifier: MIT
/*
 * PFC (802.1Qbb) and PAUSE (802.3x) frames byte for byte against frames
 * written out by hand from the standards' layout, decoding (round trips and
 * refusals), and pause time arithmetic.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <errno.h>
#include <cmocka.h>

#include "injectors/pfc_frame.h"

static const uint8_t src[6] = {0x52, 0x54, 0x00, 0x12, 0x34, 0x56};

/* The frames are laid out as the standards draw them, a field a line. */
/* clang-format off */
/* DA, SA, EtherType: the first 14 bytes of every frame below. */
#define HDR                                                                                        \
	0x01, 0x80, 0xc2, 0x00, 0x00, 0x01, 0x52, 0x54, 0x00, 0x12, 0x34, 0x56, 0x88, 0x08

/* PFC, priority 3 only, time[3] = 65535. */
static const uint8_t pfc_3_max[60] = {
    HDR,
    0x01, 0x01,                         /* opcode PFC */
    0x00, 0x08,                         /* class-enable vector: bit 3 */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* time[0..2] */
    0xff, 0xff,                         /* time[3] */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* time[4..7] */
    /* 26 bytes of padding to 60 */
};

/* PFC, priorities 0, 3, 7, every time 0 (XON). */
static const uint8_t pfc_037_zero[60] = {
    HDR,
    0x01, 0x01,
    0x00, 0x89, /* bits 0, 3, 7 */
};

/* PFC, priorities 0, 3, 7, every time 65535. */
static const uint8_t pfc_037_max[60] = {
    HDR,
    0x01, 0x01,
    0x00, 0x89,
    0xff, 0xff,                         /* time[0] */
    0x00, 0x00, 0x00, 0x00,             /* time[1..2] */
    0xff, 0xff,                         /* time[3] */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* time[4..6] */
    0xff, 0xff,                         /* time[7] */
};

/* 802.3x PAUSE, pause_time 65535. */
static const uint8_t pause_max[60] = {
    HDR,
    0x00, 0x01, /* opcode PAUSE */
    0xff, 0xff, /* pause_time */
};
/* clang-format on */

static void encode_expect(const struct pfc_frame *f, const uint8_t *want)
{
	uint8_t buf[80];

	memset(buf, 0xaa, sizeof(buf));
	assert_int_equal(pfc_frame_encode(f, buf, sizeof(buf)), PFC_FRAME_LEN);
	assert_memory_equal(buf, want, PFC_FRAME_LEN);
	/* Nothing past the 60 bytes is written. */
	assert_int_equal(buf[PFC_FRAME_LEN], 0xaa);
}

static void test_encode_pfc(void **state)
{
	struct pfc_frame f = {.enable = 1u << 3};

	memcpy(f.src, src, 6);
	f.quanta[3] = 65535;
	encode_expect(&f, pfc_3_max);

	/* Times of priorities not enabled are sent as 0, whatever the struct says. */
	f.quanta[2] = 1234;
	encode_expect(&f, pfc_3_max);

	f = (struct pfc_frame){.enable = 0x89};
	memcpy(f.src, src, 6);
	encode_expect(&f, pfc_037_zero);

	f.quanta[0] = f.quanta[3] = f.quanta[7] = 65535;
	encode_expect(&f, pfc_037_max);
}

static void test_encode_pause(void **state)
{
	struct pfc_frame f = {.global = true};
	uint8_t want[60];

	memcpy(f.src, src, 6);
	f.quanta[0] = 65535;
	encode_expect(&f, pause_max);

	memcpy(want, pause_max, sizeof(want));
	want[16] = 0x01;
	want[17] = 0x02;
	f.quanta[0] = 0x0102;
	encode_expect(&f, want);
}

static void test_encode_refuses(void **state)
{
	struct pfc_frame f = {.enable = 0};
	uint8_t buf[60];

	assert_int_equal(pfc_frame_encode(&f, buf, sizeof(buf)), -EINVAL);
	f.enable = 1;
	assert_int_equal(pfc_frame_encode(&f, buf, 59), -ENOSPC);
}

static void test_decode_round_trip(void **state)
{
	struct pfc_frame in = {.enable = 0x89}, out;
	uint8_t buf[64];
	unsigned int p;

	memcpy(in.src, src, 6);
	in.quanta[0] = 1;
	in.quanta[3] = 0x1234;
	in.quanta[7] = 65535;
	assert_int_equal(pfc_frame_encode(&in, buf, sizeof(buf)), 60);
	assert_int_equal(pfc_frame_decode(buf, 60, NULL, &out), 0);
	assert_false(out.global);
	assert_int_equal(out.enable, 0x89);
	assert_memory_equal(out.src, src, 6);
	assert_memory_equal(out.quanta, in.quanta, sizeof(in.quanta));

	/* With an FCS (64 bytes) it reads the same. */
	memset(buf + 60, 0xee, 4);
	assert_int_equal(pfc_frame_decode(buf, 64, NULL, &out), 0);
	assert_int_equal(out.quanta[3], 0x1234);

	/* The hand-written frames decode to what they say. */
	assert_int_equal(pfc_frame_decode(pfc_3_max, 60, NULL, &out), 0);
	assert_int_equal(out.enable, 0x08);
	for (p = 0; p < PFC_PRIOS; p++)
		assert_int_equal(out.quanta[p], p == 3 ? 65535 : 0);
	assert_int_equal(pfc_frame_decode(pfc_037_zero, 60, NULL, &out), 0);
	assert_int_equal(out.enable, 0x89);
	for (p = 0; p < PFC_PRIOS; p++)
		assert_int_equal(out.quanta[p], 0);

	/* A PAUSE applies to every priority. */
	assert_int_equal(pfc_frame_decode(pause_max, 60, NULL, &out), 0);
	assert_true(out.global);
	assert_int_equal(out.enable, 0xff);
	for (p = 0; p < PFC_PRIOS; p++)
		assert_int_equal(out.quanta[p], 65535);
}

static void test_decode_refuses(void **state)
{
	static const uint8_t station[6] = {0x52, 0x54, 0x00, 0xaa, 0xbb, 0xcc};
	struct pfc_frame out;
	uint8_t buf[60];

	assert_int_equal(pfc_frame_decode(pfc_3_max, 59, NULL, &out), -EMSGSIZE);
	assert_int_equal(pfc_frame_decode(pfc_3_max, 0, NULL, &out), -EMSGSIZE);

	memcpy(buf, pfc_3_max, 60);
	buf[13] = 0x00; /* EtherType 0x8800 */
	assert_int_equal(pfc_frame_decode(buf, 60, NULL, &out), -EPROTOTYPE);

	memcpy(buf, pfc_3_max, 60);
	buf[5] = 0x02; /* 01:80:C2:00:00:02, slow protocols (LACP) */
	assert_int_equal(pfc_frame_decode(buf, 60, NULL, &out), -EADDRNOTAVAIL);

	memcpy(buf, pfc_3_max, 60);
	buf[15] = 0x02; /* opcode 0x0102: not PAUSE, not PFC */
	assert_int_equal(pfc_frame_decode(buf, 60, NULL, &out), -EOPNOTSUPP);
	buf[14] = 0x00;
	buf[15] = 0x00;
	assert_int_equal(pfc_frame_decode(buf, 60, NULL, &out), -EOPNOTSUPP);

	memcpy(buf, pfc_037_zero, 60);
	buf[17] = 0x00; /* enables nothing */
	assert_int_equal(pfc_frame_decode(buf, 60, NULL, &out), -EINVAL);
	buf[16] = 0xff; /* the reserved octet is ignored: still nothing enabled */
	assert_int_equal(pfc_frame_decode(buf, 60, NULL, &out), -EINVAL);
	buf[17] = 0x08;
	assert_int_equal(pfc_frame_decode(buf, 60, NULL, &out), 0);
	assert_int_equal(out.enable, 0x08);

	/* 802.3x may be sent to the station itself; PFC may not. */
	memcpy(buf, pause_max, 60);
	memcpy(buf, station, 6);
	assert_int_equal(pfc_frame_decode(buf, 60, NULL, &out), -EADDRNOTAVAIL);
	assert_int_equal(pfc_frame_decode(buf, 60, station, &out), 0);
	assert_true(out.global);
	memcpy(buf, pfc_3_max, 60);
	memcpy(buf, station, 6);
	assert_int_equal(pfc_frame_decode(buf, 60, station, &out), -EADDRNOTAVAIL);

	assert_string_equal(pfc_frame_strerror(-EPROTOTYPE),
			    "not a MAC control frame (EtherType is not 0x8808)");
}

static void test_quanta_ns(void **state)
{
	/* 65535 x 512 bits = 33,553,920 bits. */
	assert_int_equal(pfc_quanta_ns(65535, 1000), 33553920);
	assert_int_equal(pfc_quanta_ns(65535, 10000), 3355392);
	assert_int_equal(pfc_quanta_ns(65535, 100000), 335540); /* 335539.2, rounded up */
	assert_int_equal(pfc_quanta_ns(65535, 25000), 1342157); /* 1342156.8 */
	assert_int_equal(pfc_quanta_ns(1, 10000), 52);		/* 51.2 */
	assert_int_equal(pfc_quanta_ns(1, 1000), 512);
	assert_int_equal(pfc_quanta_ns(0, 1000), 0);
	assert_int_equal(pfc_quanta_ns(65535, 0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_encode_pfc),	   cmocka_unit_test(test_encode_pause),
	    cmocka_unit_test(test_encode_refuses), cmocka_unit_test(test_decode_round_trip),
	    cmocka_unit_test(test_decode_refuses), cmocka_unit_test(test_quanta_ns),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
