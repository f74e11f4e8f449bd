// SPDX-License-Identifier: MIT
/* Incremental decoder and encoder for rdmachaos protocol frames. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/proto.h"

static uint32_t rc_get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint16_t rc_get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static void rc_put32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

void rc_frame_header(uint8_t *hdr, uint16_t type, uint32_t seq, uint32_t len)
{
	rc_put32(hdr, RC_PROTO_MAGIC);
	hdr[4] = RC_PROTO_VERSION >> 8;
	hdr[5] = RC_PROTO_VERSION & 0xff;
	hdr[6] = type >> 8;
	hdr[7] = type & 0xff;
	rc_put32(hdr + 8, seq);
	rc_put32(hdr + 12, len);
}

int rc_decoder_init(struct rc_decoder *d, uint32_t max_payload)
{
	memset(d, 0, sizeof(*d));
	d->max_payload = max_payload ? max_payload : RC_PROTO_MAX_PAYLOAD;
	return 0;
}

void rc_decoder_free(struct rc_decoder *d)
{
	free(d->buf);
	memset(d, 0, sizeof(*d));
}

int rc_decoder_feed(struct rc_decoder *d, const void *data, size_t len)
{
	if (d->error)
		return d->error;
	if (d->head && d->head == d->len) {
		d->head = 0;
		d->len = 0;
	}
	if (d->len + len + 1 > d->cap) {
		size_t want = d->len - d->head + len + 1;
		size_t cap = d->cap ? d->cap : 4096;
		uint8_t *nb;

		if (d->head) { /* compact before growing */
			memmove(d->buf, d->buf + d->head, d->len - d->head);
			d->len -= d->head;
			d->head = 0;
		}
		while (cap < want)
			cap *= 2;
		if (cap > d->cap) {
			nb = realloc(d->buf, cap);
			if (!nb)
				return -ENOMEM;
			d->buf = nb;
			d->cap = cap;
		}
	}
	memcpy(d->buf + d->len, data, len);
	d->len += len;
	return 0;
}

static int rc_decoder_fail(struct rc_decoder *d, int err)
{
	d->error = err;
	return err;
}

int rc_decoder_next(struct rc_decoder *d, struct rc_frame *f)
{
	const uint8_t *p;
	uint32_t plen, seq;
	uint16_t version, type;
	size_t avail;

	if (d->error)
		return d->error;
	avail = d->len - d->head;
	if (avail < RC_PROTO_HDR_LEN)
		return 0;
	p = d->buf + d->head;
	if (rc_get32(p) != RC_PROTO_MAGIC)
		return rc_decoder_fail(d, -EPROTO);
	version = rc_get16(p + 4);
	if (version != RC_PROTO_VERSION)
		return rc_decoder_fail(d, -EPROTONOSUPPORT);
	type = rc_get16(p + 6);
	if (type < RC_MSG_REQUEST || type > RC_MSG_EVENT)
		return rc_decoder_fail(d, -EPROTO);
	seq = rc_get32(p + 8);
	plen = rc_get32(p + 12);
	if (plen > d->max_payload)
		return rc_decoder_fail(d, -EMSGSIZE);
	if (d->have_seq && seq <= d->last_seq)
		return rc_decoder_fail(d, -EPROTO);
	if (avail < RC_PROTO_HDR_LEN + (size_t)plen)
		return 0;

	/*
	 * The payload is handed out NUL-terminated in place: the byte after it
	 * is the next frame's first byte, so save it until the next call.
	 * Simpler: move the payload one byte left over the header's last byte.
	 */
	memmove(d->buf + d->head + RC_PROTO_HDR_LEN - 1, p + RC_PROTO_HDR_LEN, plen);
	f->payload = (char *)d->buf + d->head + RC_PROTO_HDR_LEN - 1;
	f->payload[plen] = '\0';
	f->type = type;
	f->seq = seq;
	f->len = plen;
	d->last_seq = seq;
	d->have_seq = 1;
	d->head += RC_PROTO_HDR_LEN + plen;
	return 1;
}
