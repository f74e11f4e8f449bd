// SPDX-License-Identifier: MIT
/* A job's command and environment templates: checked at parse time, filled in per rank. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coordinator/job_template.h"
#include "common/errbuf.h"

#define JT_NAME_LEN 64

struct jt_out {
	char *buf;
	size_t len, n;
	bool full;
};

static void jt_put(struct jt_out *o, const char *s, size_t n)
{
	if (o->n + n >= o->len) {
		o->full = true;
		return;
	}
	memcpy(o->buf + o->n, s, n);
	o->n += n;
	o->buf[o->n] = '\0';
}

static int jt_rail(const char *s, const char *ph, int *rail, char *err, size_t errlen)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);

	if (!*s || *end || v > 63)
		return errbuf_fail(err, errlen, -EINVAL,
				   "{%s}: \"%s\" is not a rail number (0..63)", ph, s);
	*rail = (int)v;
	return 0;
}

static int jt_addr(const struct jt_ctx *ctx, const char *node, int rail, const char *ph,
		   struct jt_out *o, char *err, size_t errlen)
{
	char addr[64];
	int ret;

	if (!ctx->addr) {
		if (ctx->node_ok && !ctx->node_ok(ctx->arg, node))
			return errbuf_fail(err, errlen, -EINVAL,
					   "{%s}: %s is not a node of this drill", ph, node);
		jt_put(o, "192.0.2.1", 9);
		return 0;
	}
	ret = ctx->addr(ctx->arg, node, rail, addr, sizeof(addr));
	if (ret) {
		snprintf(err, errlen, "{%s}: %s has no IPv4 address on rail %d", ph, node, rail);
		return ret;
	}
	jt_put(o, addr, strlen(addr));
	return 0;
}

/* One placeholder's name (between the braces) into o. */
static int jt_one(const char *ph, const struct jt_ctx *ctx, struct jt_out *o, char *err,
		  size_t errlen)
{
	char num[32], node[JT_NAME_LEN];
	const char *colon;
	unsigned int i;
	int rail = 0, ret;

	if (!strcmp(ph, "rank") || !strcmp(ph, "size") || !strcmp(ph, "duration_s")) {
		uint64_t v = !strcmp(ph, "rank")   ? ctx->rank
			     : !strcmp(ph, "size") ? ctx->size
						   : ctx->duration_s;

		snprintf(num, sizeof(num), "%" PRIu64, v);
		jt_put(o, num, strlen(num));
		return 0;
	}
	if (!strcmp(ph, "bindir")) {
		jt_put(o, ctx->bindir ?: "/usr/lib/rdmachaos",
		       strlen(ctx->bindir ?: "/usr/lib/rdmachaos"));
		return 0;
	}
	if (!strcmp(ph, "node")) {
		jt_put(o, ctx->node ?: "node", strlen(ctx->node ?: "node"));
		return 0;
	}
	if (!strcmp(ph, "nodes")) {
		for (i = 0; i < ctx->size && ctx->nodes; i++) {
			if (i)
				jt_put(o, ",", 1);
			jt_put(o, ctx->nodes[i], strlen(ctx->nodes[i]));
		}
		return 0;
	}
	if (!strncmp(ph, "addrs:", 6)) {
		if ((ret = jt_rail(ph + 6, ph, &rail, err, errlen)))
			return ret;
		for (i = 0; i < ctx->size && ctx->nodes; i++) {
			if (i)
				jt_put(o, ",", 1);
			if ((ret = jt_addr(ctx, ctx->nodes[i], rail, ph, o, err, errlen)))
				return ret;
		}
		return 0;
	}
	if (!strncmp(ph, "addr:", 5)) {
		colon = strrchr(ph + 5, ':');
		if (!colon || colon == ph + 5 || (size_t)(colon - ph - 5) >= sizeof(node))
			return errbuf_fail(err, errlen, -EINVAL,
					   "{%s}: write {addr:NODE:RAIL}, e.g. {addr:node-b:0}",
					   ph);
		snprintf(node, sizeof(node), "%.*s", (int)(colon - ph - 5), ph + 5);
		if ((ret = jt_rail(colon + 1, ph, &rail, err, errlen)))
			return ret;
		return jt_addr(ctx, node, rail, ph, o, err, errlen);
	}
	return errbuf_fail(
	    err, errlen, -EINVAL,
	    "{%s} is not a placeholder; use {rank}, {size}, {node}, {nodes}, "
	    "{addr:NODE:RAIL}, {addrs:RAIL}, {duration_s}, {bindir}, or {{ and }} for a "
	    "brace",
	    ph);
}

int jt_expand(const char *tmpl, const struct jt_ctx *ctx, char *out, size_t len, char *err,
	      size_t errlen)
{
	struct jt_out o = {out, len, 0, false};
	const char *p = tmpl;
	int ret;

	if (len)
		out[0] = '\0';
	while (*p) {
		const char *close;
		char ph[128];

		if ((p[0] == '{' && p[1] == '{') || (p[0] == '}' && p[1] == '}')) {
			jt_put(&o, p, 1);
			p += 2;
			continue;
		}
		if (*p == '}')
			return errbuf_fail(err, errlen, -EINVAL,
					   "a lone '}' (write }} for a brace) in \"%.200s\"", tmpl);
		if (*p != '{') {
			jt_put(&o, p++, 1);
			continue;
		}
		close = strchr(p, '}');
		if (!close)
			return errbuf_fail(err, errlen, -EINVAL,
					   "an unclosed '{' (write {{ for a brace) in \"%.200s\"",
					   tmpl);
		if ((size_t)(close - p - 1) >= sizeof(ph))
			return errbuf_fail(err, errlen, -EINVAL,
					   "a placeholder longer than %zu characters",
					   sizeof(ph) - 1);
		snprintf(ph, sizeof(ph), "%.*s", (int)(close - p - 1), p + 1);
		if ((ret = jt_one(ph, ctx, &o, err, errlen)))
			return ret;
		p = close + 1;
	}
	if (o.full) {
		snprintf(err, errlen, "\"%.100s\" expands to more than %zu bytes", tmpl,
			 len ? len - 1 : 0);
		return -ENAMETOOLONG;
	}
	return 0;
}
