/* SPDX-License-Identifier: MIT */
/*
 * Abort guards (scenario `safety.guards`): conditions under which a drill
 * stops at once and reverts everything. A throughput guard watches the
 * workload's samples against the baseline; a tcp_probe guard connects to an
 * address on its own schedule, without blocking the drill's loop.
 */
#ifndef RC_GUARD_H
#define RC_GUARD_H

#include <stdbool.h>

#include "coordinator/scenario.h"

struct guard_state {
	const struct sc_guard *g;
	bool armed; /* throughput: after the baseline; probes: from the start */
	bool tripped;
	char why[256]; /* what tripped it, a sentence */
	double tripped_ms;
	/* throughput */
	double baseline_mbps;
	double below_since_ms; /* < 0: at or above the floor */
	double last_sample_ms;
	/* tcp_probe */
	int fd;		    /* connect in flight, or -1 */
	double started_ms;  /* of the connect in flight */
	double next_ms;	    /* of the next attempt */
	unsigned int fails; /* consecutive */
	unsigned int attempts;
	char last_err[128];
};

void guard_init(struct guard_state *gs, const struct sc_guard *g);
/* Throughput guards start counting from here (ms on the drill clock). */
void guard_arm_throughput(struct guard_state *gs, double now_ms, double baseline_mbps);
/* A workload throughput sample at t_ms. Returns gs->tripped. */
bool guard_sample(struct guard_state *gs, double t_ms, double mbps);
/* Runs timers and probes; never blocks. Returns gs->tripped. */
bool guard_poll(struct guard_state *gs, double now_ms);
/* "throughput below 10% of baseline for 5.0 s", for plans and reports. */
void guard_describe(const struct sc_guard *g, char *buf, size_t len);
void guard_close(struct guard_state *gs);

#endif
