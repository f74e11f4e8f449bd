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
#include <stdint.h>

struct alerts;

/*
 * Listens on addr ("127.0.0.1:17990", "0.0.0.0:17990"). 0 with *out set, or
 * -errno with a sentence in err (a port in use says so).
 */
int alerts_start(const char *addr, struct alerts **out, char *err, size_t errlen);

/* Appends one event per alert received since the last call to events (a JSON array). */
unsigned int alerts_drain(struct alerts *a, json_t *events, uint64_t t0_ns);

/* Notifications received, and refused (not JSON, not a webhook payload). */
void alerts_counts(struct alerts *a, unsigned int *received, unsigned int *refused);

void alerts_stop(struct alerts *a);

/*
 * The event for one alert of a webhook payload received at recv_ns (the
 * coordinator's monotonic clock), or NULL when alert is not an object with
 * labels.alertname. Pure, for tests: {"kind": "alert", "node": "alertmanager",
 * "alertname", "status": "firing"|"resolved", "labels", "annotations",
 * "starts_at", "ends_at", "fingerprint", "receiver", "t_ms"}.
 */
json_t *alerts_event(const json_t *alert, const char *receiver, uint64_t recv_ns, uint64_t t0_ns);

#endif
