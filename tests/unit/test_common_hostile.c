// SPDX-License-Identifier: MIT
/*
 * Hostile peers: frames over the size limit, truncated frames, unknown
 * versions and replayed sequence numbers are refused, by the decoder and by a
 * connection over a socketpair, and nothing from a refused frame or after it
 * reaches the owner.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/conn.h"
#include "common/proto.h"

static size_t mk(uint8_t *buf, uint16_t type, uint32_t seq, const char *payload)
{
	size_t len = strlen(payload);

	rc_frame_header(buf, type, seq, (uint32_t)len);
	memcpy(buf + RC_PROTO_HDR_LEN, payload, len);
	return RC_PROTO_HDR_LEN + len;
}

/* Feeds n bytes to a fresh decoder (limit max); the result of the first rc_decoder_next(). */
static int first(const uint8_t *buf, size_t n, uint32_t max, struct rc_frame *f)
{
	struct rc_decoder d;
	int ret;

	rc_decoder_init(&d, max);
	assert_int_equal(rc_decoder_feed(&d, buf, n), 0);
	ret = rc_decoder_next(&d, f);
	rc_decoder_free(&d);
	return ret;
}

static void test_size_limit(void **state)
{
	struct rc_decoder d;
	struct rc_frame f;
	uint8_t hdr[RC_PROTO_HDR_LEN], *big;
	size_t n = RC_PROTO_HDR_LEN + RC_PROTO_MAX_PAYLOAD;

	/* Refused from the header alone, before any payload is buffered. */
	rc_frame_header(hdr, RC_MSG_REQUEST, 1, RC_PROTO_MAX_PAYLOAD + 1);
	assert_int_equal(first(hdr, sizeof(hdr), 0, &f), -EMSGSIZE);
	rc_frame_header(hdr, RC_MSG_REQUEST, 1, UINT32_MAX);
	assert_int_equal(first(hdr, sizeof(hdr), 0, &f), -EMSGSIZE);
	rc_frame_header(hdr, RC_MSG_EVENT, 1, 65);
	assert_int_equal(first(hdr, sizeof(hdr), 64, &f), -EMSGSIZE);

	/* Exactly the limit is a frame. */
	big = malloc(n);
	assert_non_null(big);
	rc_frame_header(big, RC_MSG_EVENT, 1, RC_PROTO_MAX_PAYLOAD);
	memset(big + RC_PROTO_HDR_LEN, ' ', RC_PROTO_MAX_PAYLOAD);
	rc_decoder_init(&d, 0);
	assert_int_equal(rc_decoder_feed(&d, big, n - 1), 0);
	assert_int_equal(rc_decoder_next(&d, &f), 0);
	assert_int_equal(rc_decoder_feed(&d, big + n - 1, 1), 0);
	assert_int_equal(rc_decoder_next(&d, &f), 1);
	assert_int_equal(f.len, RC_PROTO_MAX_PAYLOAD);
	assert_int_equal(f.payload[f.len], '\0');
	rc_decoder_free(&d);
	free(big);
}

static void test_truncated(void **state)
{
	struct rc_frame f;
	uint8_t buf[64];
	size_t n = mk(buf, RC_MSG_REQUEST, 1, "{\"op\":\"time\"}"), i;

	/* Every proper prefix is "more bytes needed", never a frame. */
	for (i = 0; i < n; i++)
		assert_int_equal(first(buf, i, 0, &f), 0);
	assert_int_equal(first(buf, n, 0, &f), 1);
}

static void test_versions(void **state)
{
	static const uint16_t bad[] = {0, 2, 0x100, 0xffff};
	struct rc_frame f;
	uint8_t buf[64];
	size_t n, i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		n = mk(buf, RC_MSG_REQUEST, 1, "{}");
		buf[4] = (uint8_t)(bad[i] >> 8);
		buf[5] = (uint8_t)bad[i];
		assert_int_equal(first(buf, n, 0, &f), -EPROTONOSUPPORT);
	}
	/* Types outside 1..3 are refused as well. */
	n = mk(buf, 0, 1, "{}");
	assert_int_equal(first(buf, n, 0, &f), -EPROTO);
	n = mk(buf, 0x103, 1, "{}");
	assert_int_equal(first(buf, n, 0, &f), -EPROTO);
}

static void test_replay(void **state)
{
	struct rc_decoder d;
	struct rc_frame f;
	uint8_t buf[256];
	size_t n;

	/* Any first seq, 0 too; then strictly increasing, so nothing follows UINT32_MAX. */
	n = mk(buf, RC_MSG_EVENT, 0, "{}");
	n += mk(buf + n, RC_MSG_EVENT, UINT32_MAX, "{}");
	n += mk(buf + n, RC_MSG_EVENT, 0, "{}");
	rc_decoder_init(&d, 0);
	rc_decoder_feed(&d, buf, n);
	assert_int_equal(rc_decoder_next(&d, &f), 1);
	assert_int_equal(rc_decoder_next(&d, &f), 1);
	assert_int_equal(f.seq, UINT32_MAX);
	assert_int_equal(rc_decoder_next(&d, &f), -EPROTO);
	rc_decoder_free(&d);

	/* A lower seq is a replay too, refused from its header before its payload arrived. */
	n = mk(buf, RC_MSG_REQUEST, 10, "{}");
	n += mk(buf + n, RC_MSG_REQUEST, 9, "{\"op\":\"inject\"}");
	rc_decoder_init(&d, 0);
	rc_decoder_feed(&d, buf, n - 4);
	assert_int_equal(rc_decoder_next(&d, &f), 1);
	assert_int_equal(rc_decoder_next(&d, &f), -EPROTO);
	rc_decoder_free(&d);
}

struct seen {
	unsigned int nr;
	uint16_t type[8];
};

static int on_frame(struct rc_conn *c, uint16_t type, json_t *msg, void *arg)
{
	struct seen *s = arg;

	assert_true(json_is_object(msg));
	if (s->nr < 8)
		s->type[s->nr] = type;
	s->nr++;
	return 0;
}

/* Writes buf into a socketpair, closes the writer, reads it as a connection would. */
static int conn_read_all(const uint8_t *buf, size_t n, struct seen *s)
{
	struct rc_transport *t;
	struct rc_conn c;
	int sv[2], ret;

	memset(s, 0, sizeof(*s));
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	assert_int_equal(write(sv[1], buf, n), (ssize_t)n);
	close(sv[1]);
	assert_int_equal(rc_tcp_wrap(sv[0], &t), 0);
	assert_int_equal(rc_conn_init(&c, t), 0);
	ret = rc_conn_read(&c, on_frame, s);
	/* A refused stream stays refused. */
	if (ret != -ECONNRESET)
		assert_int_equal(rc_conn_read(&c, on_frame, s), ret);
	rc_conn_close(&c);
	return ret;
}

static void test_conn(void **state)
{
	uint8_t buf[512];
	struct seen s;
	size_t n;

	/* Good frames, then the peer closes. */
	n = mk(buf, RC_MSG_REQUEST, 1, "{\"id\":1,\"op\":\"time\"}");
	n += mk(buf + n, RC_MSG_REQUEST, 2, "{\"id\":2,\"op\":\"time\"}");
	assert_int_equal(conn_read_all(buf, n, &s), -ECONNRESET);
	assert_int_equal(s.nr, 2);

	/* A replayed frame and a good one after it: only the first reaches the owner. */
	n = mk(buf, RC_MSG_REQUEST, 1, "{\"id\":1,\"op\":\"time\"}");
	n += mk(buf + n, RC_MSG_REQUEST, 1, "{\"id\":1,\"op\":\"revert_all\"}");
	n += mk(buf + n, RC_MSG_REQUEST, 2, "{\"id\":2,\"op\":\"revert_all\"}");
	assert_int_equal(conn_read_all(buf, n, &s), -EPROTO);
	assert_int_equal(s.nr, 1);

	/* Truncated at the end: the peer's close, and the half frame is not acted on. */
	n = mk(buf, RC_MSG_REQUEST, 1, "{\"id\":1,\"op\":\"time\"}");
	n += mk(buf + n, RC_MSG_REQUEST, 2, "{\"id\":2,\"op\":\"revert_all\"}");
	assert_int_equal(conn_read_all(buf, n - 1, &s), -ECONNRESET);
	assert_int_equal(s.nr, 1);

	/* Unknown version, over-limit length: refused, nothing delivered. */
	n = mk(buf, RC_MSG_REQUEST, 1, "{\"id\":1,\"op\":\"time\"}");
	buf[5] = 2;
	assert_int_equal(conn_read_all(buf, n, &s), -EPROTONOSUPPORT);
	assert_int_equal(s.nr, 0);
	rc_frame_header(buf, RC_MSG_REQUEST, 1, RC_PROTO_MAX_PAYLOAD + 1);
	assert_int_equal(conn_read_all(buf, RC_PROTO_HDR_LEN, &s), -EMSGSIZE);
	assert_int_equal(s.nr, 0);

	/* Payloads that are not one JSON object: a framing error. */
	n = mk(buf, RC_MSG_REQUEST, 1, "[1]");
	assert_int_equal(conn_read_all(buf, n, &s), -EPROTO);
	n = mk(buf, RC_MSG_REQUEST, 1, "{\"a\":1,\"a\":2}");
	assert_int_equal(conn_read_all(buf, n, &s), -EPROTO);
	n = mk(buf, RC_MSG_REQUEST, 1, "{} {}");
	assert_int_equal(conn_read_all(buf, n, &s), -EPROTO);
	n = mk(buf, RC_MSG_REQUEST, 1, "{\"a\":\"\xff\"}");
	assert_int_equal(conn_read_all(buf, n, &s), -EPROTO);
	n = mk(buf, RC_MSG_REQUEST, 1, "");
	assert_int_equal(conn_read_all(buf, n, &s), -EPROTO);
	assert_int_equal(s.nr, 0);
}

/* What we send obeys the same limit. */
static void test_send_limit(void **state)
{
	struct rc_transport *t;
	struct rc_conn c;
	json_t *msg;
	char *big = malloc(RC_PROTO_MAX_PAYLOAD + 1);
	int sv[2];

	assert_non_null(big);
	memset(big, 'x', RC_PROTO_MAX_PAYLOAD);
	big[RC_PROTO_MAX_PAYLOAD] = '\0';
	msg = json_pack("{s:s}", "a", big);
	assert_non_null(msg);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	assert_int_equal(rc_tcp_wrap(sv[0], &t), 0);
	assert_int_equal(rc_conn_init(&c, t), 0);
	assert_int_equal(rc_conn_send(&c, RC_MSG_EVENT, msg), -EMSGSIZE);
	assert_false(rc_conn_want_write(&c));
	rc_conn_close(&c);
	close(sv[1]);
	json_decref(msg);
	free(big);
}

/* A peer that never reads costs at most RC_CONN_OUT_MAX of queued output, then is given up. */
static void test_output_bounded(void **state)
{
	char *big = malloc(100 * 1024 + 1);
	struct rc_transport *t;
	struct rc_conn c;
	unsigned int n = 0;
	json_t *msg;
	int sv[2], ret;

	assert_non_null(big);
	memset(big, 'x', 100 * 1024);
	big[100 * 1024] = '\0';
	msg = json_pack("{s:s}", "a", big);
	assert_non_null(msg);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv), 0);
	assert_int_equal(rc_tcp_wrap(sv[0], &t), 0);
	assert_int_equal(rc_conn_init(&c, t), 0);
	while (!(ret = rc_conn_send(&c, RC_MSG_EVENT, msg)) && n < 10000)
		n++;
	assert_int_equal(ret, -ENOBUFS);
	assert_true(c.out_len <= RC_CONN_OUT_MAX);
	assert_true(c.out_cap <= 2 * RC_CONN_OUT_MAX);
	/* what the socket took, plus the queue: far from unbounded */
	assert_true(n < (RC_CONN_OUT_MAX + (8u << 20)) / (100 * 1024));
	rc_conn_close(&c);
	close(sv[1]);
	json_decref(msg);
	free(big);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_size_limit),	   cmocka_unit_test(test_truncated),
	    cmocka_unit_test(test_versions),	   cmocka_unit_test(test_replay),
	    cmocka_unit_test(test_conn),	   cmocka_unit_test(test_send_limit),
	    cmocka_unit_test(test_output_bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
