// SPDX-License-Identifier: MIT
/* Message-level connection over a transport: framing, JSON, output queue. */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include "common/conn.h"
#include "common/units.h"

int rc_conn_init(struct rc_conn *c, struct rc_transport *t)
{
	memset(c, 0, sizeof(*c));
	c->t = t;
	c->out_max = RC_CONN_OUT_MAX;
	return rc_decoder_init(&c->dec, RC_PROTO_MAX_PAYLOAD);
}

void rc_conn_close(struct rc_conn *c)
{
	if (c->t)
		c->t->ops->close(c->t);
	c->t = NULL;
	rc_decoder_free(&c->dec);
	free(c->out);
	c->out = NULL;
	c->out_len = c->out_cap = 0;
}

int rc_conn_fd(const struct rc_conn *c)
{
	return c->t ? c->t->fd : -1;
}

bool rc_conn_want_write(const struct rc_conn *c)
{
	const struct rc_transport *t = c->t;

	return c->out_len > 0 || (t && t->ops->want_write && t->ops->want_write(t));
}

int rc_conn_flush(struct rc_conn *c)
{
	size_t off = 0;
	int ret = 0;

	/* The transport's own records (handshake) go before any message. */
	if (c->t->ops->flush) {
		ret = c->t->ops->flush(c->t);
		if (ret)
			return ret;
	}
	while (off < c->out_len) {
		ssize_t n = c->t->ops->send(c->t, c->out + off, c->out_len - off);

		if (n == -EAGAIN || n == -EINTR)
			break;
		if (n < 0) {
			ret = (int)n;
			break;
		}
		off += (size_t)n;
	}
	memmove(c->out, c->out + off, c->out_len - off);
	c->out_len -= off;
	return ret;
}

int rc_conn_send(struct rc_conn *c, uint16_t type, json_t *msg)
{
	char *text = json_dumps(msg, JSON_COMPACT);
	size_t len, need;
	int ret;

	if (!text)
		return -ENOMEM;
	len = strlen(text);
	if (len > RC_PROTO_MAX_PAYLOAD) {
		free(text);
		return -EMSGSIZE;
	}
	need = c->out_len + RC_PROTO_HDR_LEN + len;
	if (need > c->out_max) {
		free(text);
		return -ENOBUFS;
	}
	if (need > c->out_cap) {
		size_t cap = c->out_cap ? c->out_cap : 8192;
		uint8_t *nb;

		while (cap < need)
			cap *= 2;
		nb = realloc(c->out, cap);
		if (!nb) {
			free(text);
			return -ENOMEM;
		}
		c->out = nb;
		c->out_cap = cap;
	}
	rc_frame_header(c->out + c->out_len, type, ++c->seq_out, (uint32_t)len);
	memcpy(c->out + c->out_len + RC_PROTO_HDR_LEN, text, len);
	c->out_len += RC_PROTO_HDR_LEN + len;
	free(text);
	ret = rc_conn_flush(c);
	return ret;
}

static int rc_conn_dispatch(struct rc_conn *c, rc_conn_frame_cb cb, void *arg)
{
	struct rc_frame f;
	int ret;

	while ((ret = rc_decoder_next(&c->dec, &f)) == 1) {
		json_t *msg = json_loadb(f.payload, f.len, JSON_REJECT_DUPLICATES, NULL);

		if (!msg || !json_is_object(msg)) {
			json_decref(msg);
			c->dec.error = -EPROTO;
			return -EPROTO;
		}
		ret = cb ? cb(c, f.type, msg, arg) : 0;
		json_decref(msg);
		if (ret)
			return ret;
	}
	return ret;
}

int rc_conn_read(struct rc_conn *c, rc_conn_frame_cb cb, void *arg)
{
	uint8_t buf[16384];
	int ret;

	/* Frames left over when a callback stopped the last read come first. */
	ret = rc_conn_dispatch(c, cb, arg);
	if (ret)
		return ret;
	for (;;) {
		ssize_t n = c->t->ops->recv(c->t, buf, sizeof(buf));

		if (n == -EAGAIN || n == -EINTR)
			return 0;
		if (n == 0)
			return -ECONNRESET;
		if (n < 0)
			return (int)n;
		ret = rc_decoder_feed(&c->dec, buf, (size_t)n);
		if (ret)
			return ret;
		ret = rc_conn_dispatch(c, cb, arg);
		if (ret)
			return ret;
	}
}

struct rc_call_ctx {
	json_int_t id;
	json_t *resp;
	rc_conn_frame_cb cb;
	void *arg;
};

static int rc_call_frame(struct rc_conn *c, uint16_t type, json_t *msg, void *arg)
{
	struct rc_call_ctx *ctx = arg;

	if (type == RC_MSG_RESPONSE && json_integer_value(json_object_get(msg, "id")) == ctx->id) {
		ctx->resp = json_incref(msg);
		return 1;
	}
	return ctx->cb ? ctx->cb(c, type, msg, ctx->arg) : 0;
}

int rc_conn_call(struct rc_conn *c, json_t *req, int timeout_ms, json_t **resp, rc_conn_frame_cb cb,
		 void *arg)
{
	static json_int_t next_id = 1;
	struct rc_call_ctx ctx = {.id = next_id++, .cb = cb, .arg = arg};
	uint64_t deadline = rc_now_ns() + (uint64_t)timeout_ms * RC_NSEC_PER_MSEC;
	int ret;

	json_object_set_new(req, "id", json_integer(ctx.id));
	ret = rc_conn_send(c, RC_MSG_REQUEST, req);
	if (ret)
		return ret;
	for (;;) {
		struct pollfd pfd = {.fd = rc_conn_fd(c), .events = POLLIN};
		uint64_t now = rc_now_ns();

		if (rc_conn_want_write(c))
			pfd.events |= POLLOUT;
		if (now >= deadline)
			return -ETIMEDOUT;
		ret = poll(&pfd, 1, (int)((deadline - now) / RC_NSEC_PER_MSEC) + 1);
		if (ret < 0 && errno != EINTR)
			return -errno;
		if (ret <= 0)
			continue;
		if (pfd.revents & POLLOUT) {
			ret = rc_conn_flush(c);
			if (ret)
				return ret;
		}
		if (pfd.revents & (POLLIN | POLLHUP | POLLERR)) {
			ret = rc_conn_read(c, rc_call_frame, &ctx);
			if (ctx.resp) {
				*resp = ctx.resp;
				return 0;
			}
			if (ret < 0)
				return ret;
		}
	}
}
