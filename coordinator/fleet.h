/* SPDX-License-Identifier: MIT */
/*
 * The coordinator's side of the agents: one connection per node, requests
 * fanned out to many agents at once, and the merged event stream on the
 * coordinator's clock. One epoll loop serves every connection, so a slow
 * agent delays nobody; a request to N agents costs one round trip, not N,
 * and a wake-up costs what is ready, not N.
 */
#ifndef RC_FLEET_H
#define RC_FLEET_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/conn.h"
#include "coordinator/clock.h"

struct fl_agent {
	char name[64];
	char addr[256]; /* host:port */
	struct rc_conn conn;
	bool connected;
	struct clk_estimate clock;
	bool clock_known;
	struct clk_drift drift; /* since the alignment, when drift_known (drill_check_clocks) */
	bool drift_known;
	json_t *inventory; /* owned */
	char control_if[32];
	/* In-flight request, for fan-out calls. */
	json_int_t pending_id;
	json_t *pending_resp;
	uint64_t resp_ns;    /* when the last answer arrived, for clock samples */
	uint64_t dropped_ns; /* when its connection was lost (0: never): its events stop there */
	/* Its connection's place in the fleet's epoll set: fd and events, when ep_on. */
	bool ep_on;
	int ep_fd;
	uint32_t ep_events;
};

/* Called for each event after it is put on the coordinator clock. */
typedef void (*fl_event_cb)(json_t *event, void *arg);

struct fleet {
	struct fl_agent *agents;
	unsigned int nr_agents;
	uint64_t t0_ns;	     /* drill t0 on the coordinator clock; events get t_ms from it */
	uint64_t aligned_ns; /* when fleet_align_clocks last succeeded */
	json_t *events;	     /* every event received, in arrival order (owned) */
	fl_event_cb on_event;
	void *arg;
	json_int_t next_id;
	int epfd; /* every connected agent's fd, when ep_ready (made by the first fleet_pump) */
	bool ep_ready;
};

int fleet_init(struct fleet *fl, unsigned int nr);
/* Sets the drill's t0; events already taken are put on it too. */
void fleet_set_t0(struct fleet *fl, uint64_t t0_ns);
void fleet_free(struct fleet *fl);
struct fl_agent *fleet_find(struct fleet *fl, const char *name);

/*
 * Connects every agent not connected yet, 16 at a time, each within timeout_ms. 0, or the first
 * failure with its message (naming the node) in err; every agent is tried either way.
 */
int fleet_connect(struct fleet *fl, int timeout_ms, char *err, size_t errlen);

/* One connection for fleet_dial_many to make: name and addr in, t or ret and err out. */
struct fl_dial {
	const char *name, *addr;
	struct rc_transport *t; /* the caller's on success */
	int ret;
	char err[512]; /* why not, naming the node and the address */
};

/* fleet_dial()s every entry, 16 at a time, each within timeout_ms; each entry says how it went. */
void fleet_dial_many(struct fl_dial *d, unsigned int nr, int timeout_ms);

/* How the coordinator secures its agent connections (coordinator/fleet_tls.c). */
struct fleet_tls_opts {
	const char *dir;	     /* --tls-dir: ca.crt, coordinator.crt, coordinator.key */
	const char *ca, *cert, *key; /* --ca, --cert, --key: each wins over the dir's file */
	bool insecure_plaintext;     /* no TLS, for agents on loopback only */
};

/* Process-wide: main sets it once, before any connection. The strings are not copied. */
void fleet_tls_set(const struct fleet_tls_opts *o);
void fleet_tls_free(void);
/*
 * One agent connection, mutual TLS unless --insecure-plaintext. The
 * credentials: the flags; else the lab's PKI when addr is a lab agent's; else
 * the default PKI directory (certs_default_dir()). The agent's certificate
 * must name `name` (NULL: none known), the lab node at addr, or addr's host;
 * with only_name, `name` and nothing else. err gets a sentence naming the
 * node and the address.
 */
int fleet_dial(const char *name, bool only_name, const char *addr, int timeout_ms,
	       struct rc_transport **out, char *err, size_t errlen);

/*
 * Sends req (borrowed; "id" is set per agent) to each agent in `who` (NULL:
 * all), waits up to timeout_ms for every answer while collecting events.
 * results[i] gets agent i's "result" (new ref) or NULL; errs[i] its error
 * text. Returns 0 when all answered ok, else the first -errno.
 */
int fleet_call_many(struct fleet *fl, const bool *who, json_t *req, int timeout_ms,
		    json_t **results, char (*errs)[256]);
/* One agent; *result (new ref) may be NULL. err gets "node: op: error". */
int fleet_call(struct fleet *fl, struct fl_agent *a, json_t *req, int timeout_ms, json_t **result,
	       char *err, size_t errlen);

/* Waits for and processes events for up to timeout_ms. */
int fleet_pump(struct fleet *fl, int timeout_ms);

/* `time` exchanges with every agent, `samples` each; fills a->clock. */
int fleet_align_clocks(struct fleet *fl, unsigned int samples, char *err, size_t errlen);

/*
 * The same exchanges into est[nr_agents], leaving a->clock as it is: est[i].samples is 0 for an
 * agent that gave no usable answer. Asks every agent even when one fails (0, or the first
 * failure's -errno with err set).
 */
int fleet_sample_clocks(struct fleet *fl, unsigned int samples, struct clk_estimate *est, char *err,
			size_t errlen);

/* Maps an agent timestamp to ms from t0. */
double fleet_agent_ms(const struct fleet *fl, const struct fl_agent *a, uint64_t agent_ns);

#endif
