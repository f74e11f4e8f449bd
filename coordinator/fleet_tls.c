// SPDX-License-Identifier: MIT
/*
 * The coordinator's side of transport security: which credentials an agent
 * connection uses (flags, the lab's PKI, the default directory), which names
 * the agent's certificate may carry, and the connection itself (fleet.h).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/tls.h"
#include "coordinator/certs.h"
#include "coordinator/fleet.h"
#include "coordinator/labenv.h"

#define FLEET_TLS_CTXS 4

/* One OpenSSL context per set of files: loaded once, shared by every connection using them. */
struct fleet_tls_ctx {
	char ca[4096], cert[4096], key[4096];
	struct rc_tls_ctx *ctx;
};

static struct fleet_tls_opts fleet_tls_o;
static struct fleet_tls_ctx fleet_tls_ctxs[FLEET_TLS_CTXS];
/* fleet_connect() dials from several threads: they share the contexts above */
static pthread_mutex_t fleet_tls_lock = PTHREAD_MUTEX_INITIALIZER;

void fleet_tls_set(const struct fleet_tls_opts *o)
{
	fleet_tls_o = *o;
}

void fleet_tls_free(void)
{
	unsigned int i;

	for (i = 0; i < FLEET_TLS_CTXS; i++) {
		rc_tls_ctx_free(fleet_tls_ctxs[i].ctx);
		memset(&fleet_tls_ctxs[i], 0, sizeof(fleet_tls_ctxs[i]));
	}
}

static int fleet_split_addr(const char *addr, char *host, size_t hostlen, uint16_t *port)
{
	const char *colon = strrchr(addr, ':');
	char *end;
	unsigned long p;

	if (!colon || colon == addr || (size_t)(colon - addr) >= hostlen)
		return -EINVAL;
	p = strtoul(colon + 1, &end, 10);
	if (*end || !p || p > 65535)
		return -EINVAL;
	memcpy(host, addr, (size_t)(colon - addr));
	host[colon - addr] = '\0';
	/* "[::1]:7707" */
	if (host[0] == '[' && colon[-1] == ']') {
		memmove(host, host + 1, strlen(host) - 2);
		host[strlen(host) - 2] = '\0';
	}
	*port = (uint16_t)p;
	return 0;
}

static int fleet_tls_ctx_get(const char *ca, const char *cert, const char *key,
			     struct rc_tls_ctx **out, char *err, size_t errlen)
{
	const struct rc_tls_files f = {.ca = ca, .cert = cert, .key = key};
	struct fleet_tls_ctx *slot = NULL;
	unsigned int i;
	int ret;

	for (i = 0; i < FLEET_TLS_CTXS; i++) {
		struct fleet_tls_ctx *c = &fleet_tls_ctxs[i];

		if (c->ctx && !strcmp(c->ca, ca) && !strcmp(c->cert, cert) &&
		    !strcmp(c->key, key)) {
			*out = c->ctx;
			return 0;
		}
		if (!c->ctx && !slot)
			slot = c;
	}
	if (!slot) { /* more credential sets than any drill has: start over */
		fleet_tls_free();
		slot = &fleet_tls_ctxs[0];
	}
	ret = rc_tls_ctx_new(&f, false, NULL, 0, &slot->ctx, err, errlen);
	if (ret)
		return ret;
	snprintf(slot->ca, sizeof(slot->ca), "%s", ca);
	snprintf(slot->cert, sizeof(slot->cert), "%s", cert);
	snprintf(slot->key, sizeof(slot->key), "%s", key);
	*out = slot->ctx;
	return 0;
}

static void fleet_tls_file(char *buf, size_t len, const char *flag, const char *dir,
			   const char *file)
{
	if (flag && *flag)
		snprintf(buf, len, "%s", flag);
	else
		snprintf(buf, len, "%s/%s", dir, file);
}

int fleet_dial(const char *name, bool only_name, const char *addr, int timeout_ms,
	       struct rc_transport **out, char *err, size_t errlen)
{
	const struct fleet_tls_opts *o = &fleet_tls_o;
	char who[320], host[256], dir[4096], lab_name[64] = "", tlserr[320];
	char ca[4096], cert[4096], key[4096];
	const char *names[3];
	struct rc_tls_ctx *ctx;
	unsigned int nr = 0;
	json_t *lab = NULL;
	uint16_t port;
	int ret;

	snprintf(who, sizeof(who), "%s%s%s", name ? name : "", name ? " " : "", addr);
	if (fleet_split_addr(addr, host, sizeof(host), &port)) {
		snprintf(err, errlen, "%s: agent address '%s' is not host:port", name ? name : addr,
			 addr);
		return -EINVAL;
	}
	if (o->insecure_plaintext) {
		if (!rc_addr_is_loopback(host)) {
			snprintf(err, errlen,
				 "%s: --insecure-plaintext is only for agents on loopback "
				 "(127.0.0.0/8, ::1); this one needs TLS",
				 who);
			return -EPERM;
		}
		ret = rc_tcp_connect(host, port, timeout_ms, out);
		goto tcp_done;
	}
	/* Which PKI: the flags, else the lab's for a lab agent, else the default directory. */
	dir[0] = '\0';
	if (o->dir && *o->dir)
		snprintf(dir, sizeof(dir), "%s", o->dir);
	if (!labenv_load(&lab)) {
		const char *n = labenv_node_at(lab, addr);

		if (n) {
			snprintf(lab_name, sizeof(lab_name), "%s", n);
			if (!dir[0] && labenv_pki(lab))
				snprintf(dir, sizeof(dir), "%s", labenv_pki(lab));
		}
		json_decref(lab);
	}
	if (!dir[0])
		certs_default_dir(dir, sizeof(dir));
	fleet_tls_file(ca, sizeof(ca), o->ca, dir, RC_TLS_CA_FILE);
	fleet_tls_file(cert, sizeof(cert), o->cert, dir, RC_TLS_COORDINATOR ".crt");
	fleet_tls_file(key, sizeof(key), o->key, dir, RC_TLS_COORDINATOR ".key");
	pthread_mutex_lock(&fleet_tls_lock);
	ret = fleet_tls_ctx_get(ca, cert, key, &ctx, tlserr, sizeof(tlserr));
	pthread_mutex_unlock(&fleet_tls_lock);
	if (ret) {
		snprintf(err, errlen, "%s: %s%s", who, tlserr,
			 ret == -ENOENT ? " (make a PKI with `rdmachaos certs init` and `rdmachaos "
					  "certs issue coordinator`, or give --tls-dir; README.md, "
					  "Certificates)"
					: "");
		return ret;
	}
	if (name)
		names[nr++] = name;
	if (!name || !only_name) {
		if (lab_name[0] && (!name || strcmp(name, lab_name)))
			names[nr++] = lab_name;
		names[nr++] = host;
	}
	ret = rc_tls_connect(ctx, host, port, names, nr, timeout_ms, out, tlserr, sizeof(tlserr));
	if (ret && tlserr[0]) {
		snprintf(err, errlen, "%s: %s", who, tlserr);
		return ret;
	}
tcp_done:
	if (ret)
		snprintf(err, errlen,
			 "%s: cannot reach the agent at %s: %s (is rdmachaos-agent running there? "
			 "in the lab: rdmachaos lab status)",
			 name ? name : addr, addr, strerror(-ret));
	return ret;
}
