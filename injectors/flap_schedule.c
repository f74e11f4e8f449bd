// SPDX-License-Identifier: MIT
/* Deterministic, jittered port-flap schedules from a seed (splitmix64). */
#include <errno.h>
#include <stdio.h>

#include "common/units.h"
#include "injectors/flap_schedule.h"

/* splitmix64 (Steele, Lea, Flood 2014): tiny, seedable with any value, good enough here. */
static uint64_t flap_splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* base moved by a uniform offset in [-jitter, +jitter]; the bias of `%` is negligible here. */
static uint64_t flap_jittered(uint64_t base, uint64_t jitter, uint64_t *state)
{
	uint64_t r = flap_splitmix64(state);

	if (!jitter)
		return base;
	return base - jitter + r % (2 * jitter + 1);
}

int flap_params_check(const struct flap_params *p, char *err, size_t errlen)
{
	uint64_t shortest = p->down_ms < p->up_ms ? p->down_ms : p->up_ms;

	if (p->count < 1 || p->count > FLAP_MAX_COUNT) {
		snprintf(err, errlen, "port_flap: params.count: %u is outside 1..%d", p->count,
			 FLAP_MAX_COUNT);
		return -EINVAL;
	}
	if (p->down_ms < 1 || p->down_ms > FLAP_MAX_PERIOD_MS) {
		snprintf(err, errlen, "port_flap: params.down_ms: must be in 1..%llu",
			 FLAP_MAX_PERIOD_MS);
		return -EINVAL;
	}
	if (p->up_ms < 1 || p->up_ms > FLAP_MAX_PERIOD_MS) {
		snprintf(err, errlen, "port_flap: params.up_ms: must be in 1..%llu",
			 FLAP_MAX_PERIOD_MS);
		return -EINVAL;
	}
	if (p->jitter_ms && p->jitter_ms >= shortest) {
		char b1[32], b2[32], b3[32];

		snprintf(
		    err, errlen,
		    "port_flap: params.jitter_ms: %s must be shorter than both down (%s) and up "
		    "(%s), so no phase can shrink to nothing",
		    rc_format_duration_ms(p->jitter_ms, b1, sizeof(b1)),
		    rc_format_duration_ms(p->down_ms, b2, sizeof(b2)),
		    rc_format_duration_ms(p->up_ms, b3, sizeof(b3)));
		return -EINVAL;
	}
	return 0;
}

int flap_schedule(const struct flap_params *p, uint64_t *at_ms, size_t n)
{
	uint64_t state = p->seed, t = 0;
	char err[160];
	size_t k;

	if (flap_params_check(p, err, sizeof(err)) || n != 2 * (size_t)p->count)
		return -EINVAL;
	for (k = 0; k < n; k++) {
		/* Transition k starts period k: down after even k, up after odd k. */
		at_ms[k] = t;
		t += flap_jittered(k % 2 ? p->up_ms : p->down_ms, p->jitter_ms, &state);
	}
	return 0;
}
