/* SPDX-License-Identifier: MIT */
/*
 * The schedule of a port flap, as pure arithmetic so it can be tested alone.
 * A flap of `count` cycles has 2 * count transitions: down, up, down, up, ...
 * Each down period is down_ms and each up period up_ms, both moved by a
 * uniform offset in [-jitter_ms, +jitter_ms] drawn from a splitmix64 stream
 * seeded with `seed`: the same parameters always give the same schedule.
 */
#ifndef FLAP_SCHEDULE_H
#define FLAP_SCHEDULE_H

#include <stddef.h>
#include <stdint.h>

#define FLAP_MAX_COUNT 1000
#define FLAP_MAX_PERIOD_MS 3600000ULL

struct flap_params {
	unsigned int count; /* 1..FLAP_MAX_COUNT cycles */
	uint64_t down_ms;   /* 1..FLAP_MAX_PERIOD_MS */
	uint64_t up_ms;	    /* 1..FLAP_MAX_PERIOD_MS */
	uint64_t jitter_ms; /* < min(down_ms, up_ms), so every period stays > 0 */
	uint64_t seed;
};

/* 0 when p is in range, else -EINVAL and a sentence ("port_flap: params.jitter_ms: ..."). */
int flap_params_check(const struct flap_params *p, char *err, size_t errlen);

/*
 * Fills at_ms[k], k < 2 * p->count: when transition k happens, in ms after
 * the first one (at_ms[0] = 0; even k: down, odd k: up). n must be
 * 2 * p->count. -EINVAL when p is out of range or n is wrong.
 */
int flap_schedule(const struct flap_params *p, uint64_t *at_ms, size_t n);

#endif
