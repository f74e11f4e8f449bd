/* SPDX-License-Identifier: MIT */
/*
 * The coordinator-agent wire protocol: versioned, length-prefixed frames whose
 * payload is one JSON object. docs/PROTOCOL.md is the contract; this is the
 * framing layer only (no I/O), so it can be unit-tested and fuzzed alone.
 *
 * Frame = 16-byte header, all fields big-endian, then `len` payload bytes:
 *   u32 magic 'RCHP' | u16 version | u16 type | u32 seq | u32 len
 * A frame with a bad magic, an unknown version or type, a payload over the
 * limit, or a seq that does not increase is a protocol error: the receiver
 * closes the connection and acts on nothing from it.
 */
#ifndef RC_PROTO_H
#define RC_PROTO_H

#include <stddef.h>
#include <stdint.h>

#define RC_PROTO_MAGIC 0x52434850u /* "RCHP" */
#define RC_PROTO_VERSION 1
#define RC_PROTO_HDR_LEN 16
#define RC_PROTO_MAX_PAYLOAD (1u << 20)

enum rc_msg_type {
	RC_MSG_REQUEST = 1,  /* coordinator -> agent: {"id", "op", ...} */
	RC_MSG_RESPONSE = 2, /* agent -> coordinator: {"id", "ok", "result"|"error"} */
	RC_MSG_EVENT = 3,    /* agent -> coordinator: {"kind", "ts_ns", ...} */
};

struct rc_frame {
	uint16_t type;
	uint32_t seq;
	uint32_t len;
	char *payload; /* NUL-terminated; valid until the next rc_decoder_* call */
};

struct rc_decoder {
	uint8_t *buf;
	size_t len; /* bytes held */
	size_t cap;
	size_t head; /* start of the first unconsumed byte */
	uint32_t max_payload;
	uint32_t last_seq;
	int have_seq;
	int error; /* sticky: once a stream is bad it stays bad */
};

int rc_decoder_init(struct rc_decoder *d, uint32_t max_payload);
void rc_decoder_free(struct rc_decoder *d);
/* Appends received bytes. -ENOMEM, or the sticky error. */
int rc_decoder_feed(struct rc_decoder *d, const void *data, size_t len);
/*
 * 1 and a frame when one is complete, 0 when more bytes are needed,
 * -EPROTO (bad magic, type or replayed seq), -EPROTONOSUPPORT (version),
 * -EMSGSIZE (payload over the limit). Errors are sticky.
 */
int rc_decoder_next(struct rc_decoder *d, struct rc_frame *f);

/* Writes a header for a payload of len bytes into hdr[RC_PROTO_HDR_LEN]. */
void rc_frame_header(uint8_t *hdr, uint16_t type, uint32_t seq, uint32_t len);

#endif
