// SPDX-License-Identifier: MIT
/*
 * libFuzzer harness for the Alertmanager webhook receiver's body handling (coordinator/alerts.c):
 * each input is one authorized request's body, fed through alerts_feed() on a receiver that does
 * not listen, then turned into events by alerts_drain() as the drill's loop does.
 *
 * Besides the sanitizers it checks the receiver's bounds and accounting: a body is either queued
 * (counted received) or refused (counted refused), never both; no more than 4096 alerts wait at
 * once, the rest are counted dropped; every event is an `alert` with an alertname, a status of
 * firing or resolved and a time, and no event comes from nothing.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "coordinator/alerts.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FZ_MAX_QUEUED 4096 /* alerts.c's bound, restated: the harness checks it holds */

static void fz_check_event(const json_t *ev)
{
	const char *status = json_string_value(json_object_get(ev, "status"));

	if (!json_is_object(ev) ||
	    strcmp(json_string_value(json_object_get(ev, "kind")) ?: "", "alert") ||
	    !json_is_string(json_object_get(ev, "alertname")) || !status ||
	    (strcmp(status, "firing") && strcmp(status, "resolved")) ||
	    !json_is_number(json_object_get(ev, "t_ms")))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct alerts *a = alerts_new_unbound();
	struct alerts_counts n;
	json_t *events = json_array(), *doc, *ev;
	size_t i, listed = 0;
	unsigned int got;
	bool ok;

	if (!a || !events)
		abort();
	ok = alerts_feed(a, (const char *)data, size);
	alerts_counts(a, &n);
	if (n.received + n.refused != 1 || n.received != (unsigned int)ok || n.unauthorized)
		abort();
	/* What a payload lists, read independently; the receiver queues up to its bound of it. */
	doc = json_loadb((const char *)data, size, 0, NULL);
	if (ok != json_is_array(json_object_get(doc, "alerts")))
		abort();
	if (ok)
		listed = json_array_size(json_object_get(doc, "alerts"));
	json_decref(doc);
	if (n.dropped != (listed > FZ_MAX_QUEUED ? listed - FZ_MAX_QUEUED : 0))
		abort();
	got = alerts_drain(a, events, 0);
	if (got != json_array_size(events) || got > listed || got > FZ_MAX_QUEUED)
		abort();
	json_array_foreach(events, i, ev)
		fz_check_event(ev);
	/* Drained means gone: a second drain finds nothing. */
	if (alerts_drain(a, events, 0))
		abort();
	json_decref(events);
	alerts_stop(a);
	return 0;
}
