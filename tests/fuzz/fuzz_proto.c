// SPDX-License-Identifier: MIT
/*
 * libFuzzer harness for the protocol's receive side: the frame decoder fed in
 * fuzzer-chosen pieces, checked against a one-pass reference reading of the
 * same bytes (frames, payloads and the refusal must not depend on how the
 * stream was split), then the same bytes through rc_conn_read() over a
 * socketpair, JSON payloads included.
 *
 * Input: byte 0 picks the payload limit (0: the protocol's 1 MiB), byte 1
 * seeds the read sizes; the rest is the stream as a peer would send it.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/conn.h"
#include "common/proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FZ_MAX_FRAMES 4096

struct fz_frame {
	uint16_t type;
	uint32_t seq, len;
	size_t off; /* of the payload in the stream */
};

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* The rules of docs/PROTOCOL.md read straight off the whole stream: frames, then 0 or -errno. */
static int reference(const uint8_t *s, size_t n, uint32_t max, struct fz_frame *fr, size_t *nr)
{
	size_t off = 0;
	uint32_t last = 0;
	int have = 0;

	*nr = 0;
	while (n - off >= RC_PROTO_HDR_LEN) {
		const uint8_t *h = s + off;
		uint16_t version = (uint16_t)(h[4] << 8 | h[5]),
			 type = (uint16_t)(h[6] << 8 | h[7]);
		uint32_t seq = get32(h + 8), len = get32(h + 12);

		if (get32(h) != RC_PROTO_MAGIC)
			return -EPROTO;
		if (version != RC_PROTO_VERSION)
			return -EPROTONOSUPPORT;
		if (type < RC_MSG_REQUEST || type > RC_MSG_EVENT)
			return -EPROTO;
		if (len > max)
			return -EMSGSIZE;
		if (have && seq <= last)
			return -EPROTO;
		if (n - off - RC_PROTO_HDR_LEN < len)
			return 0;
		if (*nr == FZ_MAX_FRAMES)
			return 0;
		fr[(*nr)++] = (struct fz_frame){type, seq, len, off + RC_PROTO_HDR_LEN};
		last = seq;
		have = 1;
		off += RC_PROTO_HDR_LEN + len;
	}
	return 0;
}

static void fuzz_decoder(const uint8_t *s, size_t n, uint32_t max, uint8_t seed)
{
	static struct fz_frame want[FZ_MAX_FRAMES];
	struct rc_decoder d;
	struct rc_frame f;
	size_t nr_want, got = 0, off = 0;
	uint32_t rng = seed * 2654435761u + 1;
	int want_ret, ret = 0;

	want_ret = reference(s, n, max ? max : RC_PROTO_MAX_PAYLOAD, want, &nr_want);
	rc_decoder_init(&d, max);
	while (off < n || ret == 1) {
		if (ret != 1) {
			size_t chunk;

			rng = rng * 1103515245u + 12345u;
			chunk = seed ? 1 + (rng >> 16) % (seed < 64 ? 3 : 97) : n - off;
			if (chunk > n - off)
				chunk = n - off;
			ret = rc_decoder_feed(&d, s + off, chunk);
			if (ret < 0)
				break;
			off += chunk;
		}
		ret = rc_decoder_next(&d, &f);
		if (ret < 0)
			break;
		if (ret == 1) {
			if (got >= nr_want) {
				if (nr_want < FZ_MAX_FRAMES)
					abort(); /* a frame the rules do not allow */
				break;
			}
			if (f.type != want[got].type || f.seq != want[got].seq ||
			    f.len != want[got].len || f.payload[f.len] != '\0' ||
			    memcmp(f.payload, s + want[got].off, f.len))
				abort();
			got++;
		}
	}
	if (got < nr_want && nr_want < FZ_MAX_FRAMES)
		abort(); /* a frame lost */
	if (nr_want < FZ_MAX_FRAMES) {
		if (ret < 0 && ret != want_ret)
			abort(); /* another refusal than the rules say */
		if (ret >= 0 && want_ret)
			abort(); /* a refusal missed */
	}
	/* Errors are sticky: nothing more comes out of a refused stream. */
	if (ret < 0 && (rc_decoder_next(&d, &f) != ret || rc_decoder_feed(&d, "x", 1) != ret))
		abort();
	rc_decoder_free(&d);
}

static int on_frame(struct rc_conn *c, uint16_t type, json_t *msg, void *arg)
{
	unsigned int *nr = arg;

	if (!json_is_object(msg) || type < RC_MSG_REQUEST || type > RC_MSG_EVENT)
		abort();
	(*nr)++;
	/* Stop now and then, as rc_conn_call() does; the next read resumes. */
	return json_object_get(msg, "stop") ? 1 : 0;
}

/* The whole stream written into a socketpair, then read back as the agent and coordinator do. */
static void fuzz_conn(const uint8_t *s, size_t n)
{
	struct rc_transport *t;
	struct rc_conn c;
	unsigned int nr = 0, rounds;
	int sv[2], ret, sndbuf = 1 << 20;
	size_t off = 0;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		abort();
	setsockopt(sv[1], SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
	if (rc_tcp_wrap(sv[0], &t) || rc_conn_init(&c, t))
		abort();
	for (rounds = 0; rounds < 100000; rounds++) {
		while (off < n) {
			ssize_t w = send(sv[1], s + off, n - off, MSG_DONTWAIT | MSG_NOSIGNAL);

			if (w <= 0)
				break;
			off += (size_t)w;
		}
		if (off == n && sv[1] >= 0) {
			close(sv[1]);
			sv[1] = -1;
		}
		ret = rc_conn_read(&c, on_frame, &nr);
		if (ret == 1)
			continue;
		if (ret == -ECONNRESET || ret == -EPROTO || ret == -EMSGSIZE ||
		    ret == -EPROTONOSUPPORT)
			break;
		if (ret != 0)
			abort();
	}
	if (rounds == 100000)
		abort(); /* the reader never finished */
	if (sv[1] >= 0)
		close(sv[1]);
	rc_conn_close(&c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint32_t limits[] = {0, 0, 0, 0, 1, 2, 16, 64, 255};
	uint32_t max;

	if (size < 2)
		return 0;
	max = limits[data[0] % (sizeof(limits) / sizeof(limits[0]))];
	fuzz_decoder(data + 2, size - 2, max, data[1]);
	fuzz_conn(data + 2, size - 2);
	return 0;
}
