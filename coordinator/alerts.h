/* SPDX-License-Identifier: MIT */
/*
 * The coordinator's Alertmanager-compatible webhook receiver: Alertmanager
 * POSTs its notifications (webhook_configs, send_resolved: true) to
 * http://ADDR:PORT/alerts and every alert in them becomes an `alert` event on
 * the drill's clock, so a drill can check that the on-call would have been
 * told, how fast, and that the alert resolved (docs/MONITORING.md).
 *
 * libmicrohttpd serves on its own thread; the handler only parses and queues.
 * The drill's loop takes the queue with alerts_drain(), so events are placed
 * on the clock and stored by the one thread that owns them.
 */
#ifndef RC_ALERTS_H
#define RC_ALERTS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct alerts;

/* A bearer token's longest form (Alertmanager's credentials_file holds one). */
#define ALERTS_MAX_TOKEN 256

/*
 * Listens on addr ("127.0.0.1:17990", "0.0.0.0:17990"). Every request must carry
 * "Authorization: Bearer TOKEN" (what Alertmanager's webhook http_config sends with
 * authorization: {type: Bearer, credentials_file: FILE}); others get 401 before their body is
 * read. Bounded: 256 KiB a body, 4096 alerts queued until the next drain (more are dropped and
 * counted), 5 s for a request (headers and body; cut by alerts_drain()), 256 connections (64
 * from one address). 0 with *out
 * set, or -errno with a sentence in err (a port in use, or no token, says so).
 */
int alerts_start(const char *addr, const char *token, struct alerts **out, char *err,
		 size_t errlen);

/*
 * Reads a token file (one line; surrounding newline trimmed) into token (len bytes with the
 * NUL). 0, or -errno with a sentence naming the file.
 */
int alerts_read_token(const char *path, char *token, size_t len, char *err, size_t errlen);

/* Appends one event per alert received since the last call to events (a JSON array). */
unsigned int alerts_drain(struct alerts *a, json_t *events, uint64_t t0_ns);

/*
 * Notifications received; refused (not JSON, not a webhook payload, too big); unauthorized
 * (no or a wrong bearer token); alerts dropped because the queue was full; connections timed out
 * (a request not finished within 5 s of the accept or of the previous answer).
 */
struct alerts_counts {
	unsigned int received, refused, unauthorized, dropped, timed_out;
};
void alerts_counts(struct alerts *a, struct alerts_counts *n);

void alerts_stop(struct alerts *a);

/*
 * What the receiver does with one authorized request's body, apart from the network: for tests
 * and the fuzz harness. alerts_new_unbound() makes a receiver that does not listen (free it with
 * alerts_stop()). alerts_feed() queues the alerts of a webhook payload (JSON with "alerts": [...],
 * at most 256 KiB; past 4096 queued they are dropped and counted) and returns true, or counts
 * the body as refused and returns false.
 */
struct alerts *alerts_new_unbound(void);
bool alerts_feed(struct alerts *a, const char *body, size_t len);

/*
 * The event for one alert of a webhook payload received at recv_ns (the
 * coordinator's monotonic clock), or NULL when alert is not an object with
 * labels.alertname. Pure, for tests: {"kind": "alert", "node": "alertmanager",
 * "alertname", "status": "firing"|"resolved", "labels", "annotations",
 * "starts_at", "ends_at", "fingerprint", "receiver", "t_ms"}.
 */
json_t *alerts_event(const json_t *alert, const char *receiver, uint64_t recv_ns, uint64_t t0_ns);

#endif
