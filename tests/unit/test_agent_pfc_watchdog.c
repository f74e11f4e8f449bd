// SPDX-License-Identifier: MIT
/*
 * The PFC observer's pure state with fake time: when a priority is held and
 * released (pause times at the link speed, refreshes, XON, gaps, 802.3x),
 * and when the storm watchdog fires and clears (pfc-prevention-tout
 * semantics: continuously paused for longer than the watchdog time).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "agents/agent_pfc.h"
#include "common/units.h"

#define MS RC_NSEC_PER_MSEC
#define US 1000ULL
#define T0 (500 * RC_NSEC_PER_SEC)
#define PAUSE_1G 33553920ULL /* 65535 quanta at 1 Gb/s */

static struct pfc_frame pfc(uint8_t enable, uint16_t quanta)
{
	struct pfc_frame f = {.enable = enable};
	unsigned int p;

	for (p = 0; p < PFC_PRIOS; p++)
		if (enable & (1u << p))
			f.quanta[p] = quanta;
	return f;
}

/* A frame at now, then the time advanced to now, as the observer does; acts of priority p. */
static uint8_t rx(struct agent_pfc_wd *w, struct pfc_frame f, uint64_t now, unsigned int p)
{
	uint8_t acts[PFC_PRIOS] = {0};

	agent_pfc_wd_frame(w, &f, now, acts);
	agent_pfc_wd_advance(w, now, acts);
	return acts[p];
}

static uint8_t at(struct agent_pfc_wd *w, uint64_t now, unsigned int p)
{
	uint8_t acts[PFC_PRIOS] = {0};

	agent_pfc_wd_advance(w, now, acts);
	return acts[p];
}

static void test_one_frame_holds_for_its_pause_time(void **state)
{
	struct agent_pfc_wd w;
	uint8_t acts[PFC_PRIOS] = {0};
	struct pfc_frame f = pfc(1u << 3, 65535);
	unsigned int p;

	agent_pfc_wd_init(&w, 1000, 100);
	agent_pfc_wd_frame(&w, &f, T0, acts);
	agent_pfc_wd_advance(&w, T0, acts);
	for (p = 0; p < PFC_PRIOS; p++)
		assert_int_equal(acts[p], p == 3 ? AGENT_PFC_HOLD : 0);
	assert_int_equal(agent_pfc_wd_next_ns(&w), T0 + PAUSE_1G);
	assert_int_equal(at(&w, T0 + PAUSE_1G - 1, 3), 0);
	assert_int_equal(at(&w, T0 + PAUSE_1G, 3), AGENT_PFC_RELEASE);
	assert_false(w.prio[3].paused);
	assert_int_equal(agent_pfc_wd_next_ns(&w), 0);

	/* At 10 Gb/s the same frame pauses a tenth as long. */
	agent_pfc_wd_init(&w, 10000, 100);
	assert_int_equal(rx(&w, f, T0, 3), AGENT_PFC_HOLD);
	assert_int_equal(agent_pfc_wd_next_ns(&w), T0 + 3355392);
	/* Unknown speed (0): the documented default. */
	agent_pfc_wd_init(&w, 0, 100);
	assert_int_equal(w.speed_mbps, AGENT_PFC_SPEED_MBPS_DEFAULT);
}

static void test_xon_and_disabled_priorities(void **state)
{
	struct agent_pfc_wd w;

	agent_pfc_wd_init(&w, 1000, 100);
	assert_int_equal(rx(&w, pfc(0x89, 65535), T0, 0), AGENT_PFC_HOLD);
	assert_true(w.prio[3].paused && w.prio[7].paused);
	assert_false(w.prio[1].paused);
	/* A frame for priority 3 only leaves 0 and 7 as they were. */
	assert_int_equal(rx(&w, pfc(1u << 3, 0), T0 + 5 * MS, 3), AGENT_PFC_RELEASE);
	assert_true(w.prio[0].paused && w.prio[7].paused);
	assert_int_equal(w.prio[0].until_ns, T0 + PAUSE_1G);
	/* XON for a priority that is not paused: nothing. */
	assert_int_equal(rx(&w, pfc(1u << 3, 0), T0 + 6 * MS, 3), 0);
	assert_int_equal(at(&w, T0 + PAUSE_1G, 7), AGENT_PFC_RELEASE);
}

static void test_refresh_restarts_the_pause_time(void **state)
{
	struct agent_pfc_wd w;

	agent_pfc_wd_init(&w, 1000, 0);
	assert_int_equal(rx(&w, pfc(1u << 3, 65535), T0, 3), AGENT_PFC_HOLD);
	/* A shorter time later replaces the longer one: the timer restarts, it never adds. */
	assert_int_equal(rx(&w, pfc(1u << 3, 1000), T0 + 1 * MS, 3), 0);
	assert_int_equal(w.prio[3].until_ns, T0 + 1 * MS + 512 * US);
	assert_int_equal(at(&w, T0 + 1 * MS + 512 * US, 3), AGENT_PFC_RELEASE);
}

static void test_storm_detected_once_then_cleared(void **state)
{
	struct agent_pfc_wd w;
	unsigned int holds = 0, storms = 0, releases = 0, cleared = 0;
	uint64_t t, storm_at = 0;

	agent_pfc_wd_init(&w, 1000, 100);
	/* 1000 fps in 10 ms batches, as pfc_storm sends them, for 300 ms. */
	for (t = 0; t <= 300 * MS; t += 10 * MS) {
		uint8_t a = rx(&w, pfc(1u << 3, 65535), T0 + t, 3);

		holds += !!(a & AGENT_PFC_HOLD);
		releases += !!(a & AGENT_PFC_RELEASE);
		if (a & AGENT_PFC_STORM) {
			storms++;
			storm_at = t;
		}
		/* The observer's timer: whatever falls due before the next batch. */
		while (agent_pfc_wd_next_ns(&w) && agent_pfc_wd_next_ns(&w) < T0 + t + 10 * MS) {
			uint64_t due = agent_pfc_wd_next_ns(&w);

			a = at(&w, due, 3);
			if (a & AGENT_PFC_STORM) {
				storms++;
				storm_at = due - T0;
			}
			releases += !!(a & AGENT_PFC_RELEASE);
		}
	}
	assert_int_equal(holds, 1);
	assert_int_equal(releases, 0);
	assert_int_equal(storms, 1);
	/* Paused for more than 100 ms: the timer fires at 100 ms + 1 ns, not at the next frame. */
	assert_true(w.prio[3].storm);
	assert_int_equal(storm_at, 100 * MS + 1);

	/* The frames stop at 300 ms: released when the last pause ends, cleared 100 ms later. */
	assert_int_equal(agent_pfc_wd_next_ns(&w), T0 + 300 * MS + PAUSE_1G);
	releases += !!(at(&w, T0 + 300 * MS + PAUSE_1G, 3) & AGENT_PFC_RELEASE);
	assert_int_equal(releases, 1);
	assert_int_equal(agent_pfc_wd_next_ns(&w), T0 + 400 * MS + PAUSE_1G);
	assert_int_equal(at(&w, T0 + 400 * MS + PAUSE_1G - 1, 3), 0);
	cleared += !!(at(&w, T0 + 400 * MS + PAUSE_1G, 3) & AGENT_PFC_CLEARED);
	assert_int_equal(cleared, 1);
	assert_false(w.prio[3].storm);
	assert_int_equal(agent_pfc_wd_next_ns(&w), 0);
}

static void test_gaps_restart_the_watchdog(void **state)
{
	struct agent_pfc_wd w;
	uint64_t t;

	agent_pfc_wd_init(&w, 1000, 100);
	/* A frame every 40 ms: each pause (33.6 ms) runs out before the next: never a storm. */
	for (t = 0; t <= 1000 * MS; t += 40 * MS) {
		assert_int_equal(rx(&w, pfc(1u << 3, 65535), T0 + t, 3), AGENT_PFC_HOLD);
		assert_int_equal(at(&w, T0 + t + PAUSE_1G, 3), AGENT_PFC_RELEASE);
	}
	assert_false(w.prio[3].storm);

	/*
	 * A pause that ran out unseen (the timer was late) and is refreshed: still
	 * held, no release and hold pair, but the watchdog counts from the refresh.
	 */
	agent_pfc_wd_init(&w, 1000, 100);
	assert_int_equal(rx(&w, pfc(1u << 3, 65535), T0, 3), AGENT_PFC_HOLD);
	assert_int_equal(rx(&w, pfc(1u << 3, 65535), T0 + 50 * MS, 3), 0);
	assert_int_equal(w.prio[3].since_ns, T0 + 50 * MS);
	for (t = 60 * MS; t <= 150 * MS; t += 10 * MS)
		assert_int_equal(rx(&w, pfc(1u << 3, 65535), T0 + t, 3), 0);
	assert_int_equal(at(&w, T0 + 150 * MS, 3), 0); /* exactly 100 ms: not longer */
	assert_int_equal(at(&w, T0 + 150 * MS + 1, 3), AGENT_PFC_STORM);

	/* A long pause that ran out unseen is still judged when a late refresh comes. */
	agent_pfc_wd_init(&w, 10, 100); /* 3.4 s per frame */
	assert_int_equal(rx(&w, pfc(1u << 3, 65535), T0, 3), AGENT_PFC_HOLD);
	assert_int_equal(rx(&w, pfc(1u << 3, 65535), T0 + 4 * RC_NSEC_PER_SEC, 3), AGENT_PFC_STORM);
	assert_true(w.prio[3].storm);
	assert_int_equal(w.prio[3].since_ns, T0 + 4 * RC_NSEC_PER_SEC);
}

static void test_late_timer_still_judges_the_pause(void **state)
{
	struct agent_pfc_wd w;

	/* A 3.4 s pause from one frame at 10 Mb/s... */
	agent_pfc_wd_init(&w, 10, 100);
	assert_int_equal(rx(&w, pfc(1u << 2, 65535), T0, 2), AGENT_PFC_HOLD);
	/* ...seen by a timer that comes only after it ended: storm, release and clear at once. */
	assert_int_equal(at(&w, T0 + 10 * RC_NSEC_PER_SEC, 2),
			 AGENT_PFC_STORM | AGENT_PFC_RELEASE | AGENT_PFC_CLEARED);
}

static void test_global_pause_and_watchdog_off(void **state)
{
	struct agent_pfc_wd w;
	struct pfc_frame f = {.global = true, .enable = 0xff};
	uint8_t acts[PFC_PRIOS] = {0};
	unsigned int p;
	uint64_t t;

	for (p = 0; p < PFC_PRIOS; p++)
		f.quanta[p] = 65535;
	agent_pfc_wd_init(&w, 1000, 0);
	agent_pfc_wd_frame(&w, &f, T0, acts);
	for (p = 0; p < PFC_PRIOS; p++)
		assert_int_equal(acts[p], AGENT_PFC_HOLD);
	/* Watchdog off: paused for a second, no verdict, and nothing due but the pause's end. */
	for (t = 10 * MS; t <= 1000 * MS; t += 10 * MS) {
		memset(acts, 0, sizeof(acts));
		agent_pfc_wd_frame(&w, &f, T0 + t, acts);
		agent_pfc_wd_advance(&w, T0 + t, acts);
		for (p = 0; p < PFC_PRIOS; p++)
			assert_int_equal(acts[p], 0);
	}
	assert_int_equal(agent_pfc_wd_next_ns(&w), T0 + 1000 * MS + PAUSE_1G);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_one_frame_holds_for_its_pause_time),
	    cmocka_unit_test(test_xon_and_disabled_priorities),
	    cmocka_unit_test(test_refresh_restarts_the_pause_time),
	    cmocka_unit_test(test_storm_detected_once_then_cleared),
	    cmocka_unit_test(test_gaps_restart_the_watchdog),
	    cmocka_unit_test(test_late_timer_still_judges_the_pause),
	    cmocka_unit_test(test_global_pause_and_watchdog_off),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
