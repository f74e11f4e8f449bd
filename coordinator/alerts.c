// SPDX-License-Identifier: MIT
/* Alertmanager webhook receiver: notifications in, `alert` events out (see alerts.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <openssl/crypto.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/http_deadline.h"
#include "common/mhd_lib.h"
#include "common/log.h"
#include "common/units.h"
#include "coordinator/alerts.h"

/* A webhook body: Alertmanager batches, but a drill's groups are small. */
#define ALERTS_MAX_BODY (256 * 1024)
/* Alerts waiting for the drill's loop (it drains them every 100 ms or so). */
#define ALERTS_MAX_QUEUED 4096
/*
 * A request's whole time, headers and body, from the connection's accept or its previous answer
 * (common/http_deadline.h), and its idle time: a slow client is cut off, not waited for.
 */
#define ALERTS_CONN_TIMEOUT_S 5

struct alerts {
	struct MHD_Daemon *mhd;
	struct rc_http_deadline *deadline;
	pthread_mutex_t lock;
	json_t *queue; /* [{"recv_ns": N, "receiver": s, "alert": {...}}], guarded by lock */
	size_t queued;
	unsigned int received, refused, unauthorized, dropped;
	char auth[ALERTS_MAX_TOKEN + 16]; /* "Bearer TOKEN" */
};

/* One request's body as it arrives. */
struct alerts_req {
	char *body;
	size_t len;
	bool too_big;
};

/* The Authorization header against "Bearer TOKEN", in constant time. */
static bool alerts_authorized(const struct alerts *a, struct MHD_Connection *c)
{
	const char *got = rc_mhd.lookup_connection_value(c, MHD_HEADER_KIND, "Authorization");
	size_t want = strlen(a->auth);

	return got && strlen(got) == want && !CRYPTO_memcmp(got, a->auth, want);
}

static void alerts_count(struct alerts *a, unsigned int *counter)
{
	pthread_mutex_lock(&a->lock);
	(*counter)++;
	pthread_mutex_unlock(&a->lock);
}

json_t *alerts_event(const json_t *alert, const char *receiver, uint64_t recv_ns, uint64_t t0_ns)
{
	const json_t *labels = json_object_get(alert, "labels");
	const char *name = json_string_value(json_object_get(labels, "alertname"));
	const char *status = json_string_value(json_object_get(alert, "status"));
	json_t *ev;

	if (!json_is_object(alert) || !name)
		return NULL;
	ev = json_pack("{s:s,s:s,s:s,s:s,s:O,s:f}", "kind", "alert", "node", "alertmanager",
		       "alertname", name, "status",
		       status && !strcmp(status, "resolved") ? "resolved" : "firing", "labels",
		       labels, "t_ms", ((double)recv_ns - (double)t0_ns) / 1e6);
	if (!ev)
		return NULL;
	if (json_is_object(json_object_get(alert, "annotations")))
		json_object_set(ev, "annotations", json_object_get(alert, "annotations"));
	if (json_is_string(json_object_get(alert, "startsAt")))
		json_object_set(ev, "starts_at", json_object_get(alert, "startsAt"));
	if (json_is_string(json_object_get(alert, "endsAt")))
		json_object_set(ev, "ends_at", json_object_get(alert, "endsAt"));
	if (json_is_string(json_object_get(alert, "fingerprint")))
		json_object_set(ev, "fingerprint", json_object_get(alert, "fingerprint"));
	if (receiver)
		json_object_set_new(ev, "receiver", json_string(receiver));
	return ev;
}

static enum MHD_Result alerts_reply(struct MHD_Connection *c, unsigned int code, const char *text)
{
	struct MHD_Response *r =
	    rc_mhd.create_response_from_buffer(strlen(text), (void *)text, MHD_RESPMEM_PERSISTENT);
	enum MHD_Result ret;

	if (!r)
		return MHD_NO;
	rc_mhd.add_response_header(r, "Content-Type", "text/plain; charset=utf-8");
	ret = rc_mhd.queue_response(c, code, r);
	rc_mhd.destroy_response(r);
	return ret;
}

bool alerts_feed(struct alerts *a, const char *body, size_t len)
{
	uint64_t now = rc_now_ns();
	json_t *doc = len <= ALERTS_MAX_BODY ? json_loadb(body, len, 0, NULL) : NULL, *al;
	const json_t *list = json_object_get(doc, "alerts");
	const char *receiver = json_string_value(json_object_get(doc, "receiver"));
	size_t i;

	if (!json_is_array(list)) {
		json_decref(doc);
		alerts_count(a, &a->refused);
		return false;
	}
	pthread_mutex_lock(&a->lock);
	json_array_foreach(list, i, al) {
		if (a->queued >= ALERTS_MAX_QUEUED) {
			a->dropped++;
			continue;
		}
		json_array_append_new(a->queue,
				      json_pack("{s:I,s:s?,s:O}", "recv_ns", (json_int_t)now,
						"receiver", receiver, "alert", al));
		a->queued++;
	}
	a->received++;
	pthread_mutex_unlock(&a->lock);
	json_decref(doc);
	return true;
}

static enum MHD_Result alerts_handle(void *cls, struct MHD_Connection *c, const char *url,
				     const char *method, const char *version,
				     const char *upload_data, size_t *upload_size, void **req_cls)
{
	struct alerts *a = cls;
	struct alerts_req *rq = *req_cls;

	if (strcmp(url, "/alerts") && strcmp(url, "/"))
		return alerts_reply(c, MHD_HTTP_NOT_FOUND, "rdmachaos: POST alerts to /alerts\n");
	if (strcmp(method, "POST"))
		return alerts_reply(c, MHD_HTTP_METHOD_NOT_ALLOWED,
				    "rdmachaos: the receiver takes POST (Alertmanager webhook)\n");
	if (!rq && !alerts_authorized(a, c)) { /* headers only: refused before any body */
		alerts_count(a, &a->unauthorized);
		return alerts_reply(
		    c, MHD_HTTP_UNAUTHORIZED,
		    "rdmachaos: unauthorized: send Authorization: Bearer TOKEN "
		    "(Alertmanager: http_config: authorization: credentials_file)\n");
	}
	if (!rq) { /* first call: headers only */
		rq = calloc(1, sizeof(*rq));
		if (!rq)
			return MHD_NO;
		*req_cls = rq;
		return MHD_YES;
	}
	if (*upload_size) {
		if (rq->len + *upload_size > ALERTS_MAX_BODY) {
			rq->too_big = true;
		} else {
			char *nb = realloc(rq->body, rq->len + *upload_size + 1);

			if (!nb)
				return MHD_NO;
			rq->body = nb;
			memcpy(rq->body + rq->len, upload_data, *upload_size);
			rq->len += *upload_size;
		}
		*upload_size = 0;
		return MHD_YES;
	}
	/* alerts_feed() counts what it refuses; an empty or oversized body is refused here. */
	if (rq->too_big || !rq->body)
		alerts_count(a, &a->refused);
	else if (alerts_feed(a, rq->body, rq->len))
		return alerts_reply(c, MHD_HTTP_OK, "ok\n");
	return alerts_reply(c, MHD_HTTP_BAD_REQUEST,
			    "rdmachaos: not an Alertmanager webhook payload (JSON with \"alerts\": "
			    "[...], at most 256 KiB)\n");
}

static void alerts_done(void *cls, struct MHD_Connection *c, void **req_cls,
			enum MHD_RequestTerminationCode toe)
{
	struct alerts *a = cls;
	struct alerts_req *rq = *req_cls;

	if (a->deadline)
		rc_http_deadline_answered(a->deadline, c);
	if (rq) {
		free(rq->body);
		free(rq);
		*req_cls = NULL;
	}
}

struct alerts *alerts_new_unbound(void)
{
	struct alerts *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	a->queue = json_array();
	if (!a->queue) {
		free(a);
		return NULL;
	}
	pthread_mutex_init(&a->lock, NULL);
	return a;
}

int alerts_start(const char *addr, const char *token, struct alerts **out, char *err, size_t errlen)
{
	struct sockaddr_in sin = {.sin_family = AF_INET};
	char host[64];
	const char *colon = strrchr(addr, ':');
	struct alerts *a;
	unsigned long port;
	char why[256];
	char *end;
	int ret;

	if (!colon || (size_t)(colon - addr) >= sizeof(host)) {
		snprintf(err, errlen, "alert receiver %s: want IPV4:PORT, e.g. 127.0.0.1:17990",
			 addr);
		return -EINVAL;
	}
	memcpy(host, addr, (size_t)(colon - addr));
	host[colon - addr] = '\0';
	port = strtoul(colon + 1, &end, 10);
	if (*end || !port || port > 65535 || inet_pton(AF_INET, host, &sin.sin_addr) != 1) {
		snprintf(err, errlen, "alert receiver %s: want IPV4:PORT, e.g. 127.0.0.1:17990",
			 addr);
		return -EINVAL;
	}
	sin.sin_port = htons((uint16_t)port);
	if (!token || !token[0] || strlen(token) > ALERTS_MAX_TOKEN) {
		snprintf(err, errlen,
			 "alert receiver %s: needs a token of 1..%d bytes that Alertmanager sends "
			 "as Authorization: Bearer TOKEN",
			 addr, ALERTS_MAX_TOKEN);
		return -EINVAL;
	}
	ret = rc_mhd_load(why, sizeof(why));
	if (ret) {
		snprintf(err, errlen, "alert receiver %s: %s", addr, why);
		return ret;
	}
	a = alerts_new_unbound();
	if (!a)
		return -ENOMEM;
	snprintf(a->auth, sizeof(a->auth), "Bearer %s", token);
	a->deadline = rc_http_deadline_new((uint64_t)ALERTS_CONN_TIMEOUT_S * RC_NSEC_PER_SEC);
	if (!a->deadline) {
		alerts_stop(a);
		return -ENOMEM;
	}
	a->mhd = rc_mhd.start_daemon(
	    MHD_USE_INTERNAL_POLLING_THREAD, 0, NULL, NULL, alerts_handle, a, MHD_OPTION_SOCK_ADDR,
	    &sin, MHD_OPTION_NOTIFY_COMPLETED, alerts_done, a, MHD_OPTION_CONNECTION_TIMEOUT,
	    (unsigned int)ALERTS_CONN_TIMEOUT_S, MHD_OPTION_NOTIFY_CONNECTION,
	    rc_http_deadline_notify, a->deadline, MHD_OPTION_CONNECTION_LIMIT, (unsigned int)256,
	    MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned int)64,
	    MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(64 * 1024), MHD_OPTION_END);
	if (!a->mhd) {
		snprintf(err, errlen,
			 "alert receiver: cannot listen on %s (in use, or not an address of this "
			 "host); pick another with --alert-receiver",
			 addr);
		alerts_stop(a);
		return -EADDRINUSE;
	}
	*out = a;
	return 0;
}

unsigned int alerts_drain(struct alerts *a, json_t *events, uint64_t t0_ns)
{
	json_t *q, *item, *ev;
	unsigned int n = 0;
	size_t i;

	if (!a)
		return 0;
	/* The drill's loop calls this every 100 ms or so: the slow clients' deadlines with it. */
	if (a->deadline)
		rc_http_deadline_sweep(a->deadline, rc_now_ns(), NULL);
	pthread_mutex_lock(&a->lock);
	q = a->queue;
	a->queue = json_array();
	a->queued = 0;
	pthread_mutex_unlock(&a->lock);
	json_array_foreach(q, i, item) {
		ev = alerts_event(json_object_get(item, "alert"),
				  json_string_value(json_object_get(item, "receiver")),
				  (uint64_t)json_integer_value(json_object_get(item, "recv_ns")),
				  t0_ns);
		if (!ev)
			continue;
		json_array_append_new(events, ev);
		n++;
	}
	json_decref(q);
	return n;
}

void alerts_counts(struct alerts *a, struct alerts_counts *n)
{
	memset(n, 0, sizeof(*n));
	if (!a)
		return;
	pthread_mutex_lock(&a->lock);
	n->received = a->received;
	n->refused = a->refused;
	n->unauthorized = a->unauthorized;
	n->dropped = a->dropped;
	pthread_mutex_unlock(&a->lock);
	n->timed_out = a->deadline ? rc_http_deadline_cut(a->deadline) : 0;
}

int alerts_read_token(const char *path, char *token, size_t len, char *err, size_t errlen)
{
	FILE *f = fopen(path, "re");
	size_t n;

	if (!f) {
		snprintf(err, errlen, "alert token file %s: %s", path, strerror(errno));
		return -errno;
	}
	n = fread(token, 1, len - 1, f);
	token[n] = '\0';
	if (!feof(f)) {
		fclose(f);
		snprintf(err, errlen, "alert token file %s: longer than %zu bytes", path, len - 2);
		return -EINVAL;
	}
	fclose(f);
	while (n && (token[n - 1] == '\n' || token[n - 1] == '\r' || token[n - 1] == ' '))
		token[--n] = '\0';
	if (!n || strpbrk(token, " \t\r\n")) {
		snprintf(err, errlen,
			 "alert token file %s: want one token on one line (no spaces), as "
			 "Alertmanager's credentials_file reads it",
			 path);
		return -EINVAL;
	}
	return 0;
}

void alerts_stop(struct alerts *a)
{
	if (!a)
		return;
	if (a->mhd)
		rc_mhd.stop_daemon(a->mhd); /* notifies every close: the deadline list empties */
	rc_http_deadline_free(a->deadline);
	json_decref(a->queue);
	pthread_mutex_destroy(&a->lock);
	free(a);
}
