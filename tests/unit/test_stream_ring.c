// SPDX-License-Identifier: MIT
/*
 * The stream's batch and ring sizing (stream_ring.c): the plan's bounds, the
 * immediate's encoding, and a simulation of client, fabric and server that
 * must never write a ring slot the server has not checked yet.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "workloads/stream_ring.h"

static void test_plan_default(void **state)
{
	struct ws_ring_plan p;

	(void)state;
	ws_ring_plan(16, 16, 65536, &p);
	assert_int_equal(p.batch, 4);
	assert_int_equal(p.nrecv, 32);
	assert_int_equal(p.slots, 32 * 4 + 16 + 3);
	/* A client with a smaller window than the server's gets smaller batches. */
	ws_ring_plan(4, 16, 65536, &p);
	assert_int_equal(p.batch, 1);
	assert_int_equal(p.slots, 3 * 16);
	ws_ring_plan(1, 1, 65536, &p);
	assert_int_equal(p.batch, 1);
	assert_int_equal(p.nrecv, 2);
	assert_int_equal(p.slots, 3);
}

/* Batches shrink until the ring fits the cap; never below one, never past 255. */
static void test_plan_bounds(void **state)
{
	static const uint32_t qds[] = {1, 2, 3, 4, 7, 16, 64, 255, 1000, 1024};
	static const uint32_t sizes[] = {64, 4096, 65536, 1 << 20, 64 << 20};
	struct ws_ring_plan p;
	uint64_t cap, bytes;
	size_t i, j, k;

	(void)state;
	for (i = 0; i < sizeof(qds) / sizeof(qds[0]); i++)
		for (k = 0; k <= i; k++)
			for (j = 0; j < sizeof(sizes) / sizeof(sizes[0]); j++) {
				ws_ring_plan(qds[k], qds[i], sizes[j], &p);
				assert_true(p.batch >= 1 && p.batch <= WS_BATCH_MAX);
				assert_true(p.batch <= qds[k]);
				assert_int_equal(p.nrecv, 2 * qds[i]);
				assert_true((uint64_t)p.slots >= ((uint64_t)p.nrecv + 1) * p.batch);
				bytes = (uint64_t)p.slots * sizes[j];
				cap = 3ULL * qds[i] * sizes[j];
				if (cap < WS_RING_BATCH_BYTES)
					cap = WS_RING_BATCH_BYTES;
				if (p.batch > 1)
					assert_true(bytes <= cap);
				else
					assert_int_equal(p.slots, 3 * qds[i]);
				assert_true(p.slots <= WS_IMM_SLOT_MASK + 1);
			}
	ws_ring_plan(1024, 1024, 4096, &p);
	assert_int_equal(p.batch, 7); /* (2048 x 7 + 1024 + 6) x 4 KiB <= 64 MiB < ... x 8 */
}

static void test_imm(void **state)
{
	(void)state;
	assert_int_equal(ws_imm_slot(ws_imm_pack(0, 1)), 0);
	assert_int_equal(ws_imm_count(ws_imm_pack(0, 1)), 1);
	assert_int_equal(ws_imm_slot(ws_imm_pack(WS_IMM_SLOT_MASK, WS_BATCH_MAX)),
			 WS_IMM_SLOT_MASK);
	assert_int_equal(ws_imm_count(ws_imm_pack(WS_IMM_SLOT_MASK, WS_BATCH_MAX)), WS_BATCH_MAX);
	assert_int_equal(ws_imm_slot(ws_imm_pack(12345, 4)), 12345);
	assert_int_equal(ws_imm_count(ws_imm_pack(12345, 4)), 4);
}

/*
 * One QP, played out in random order: the client posts chains into its
 * window, cut like ws_cl_pump cuts them; the fabric places messages in order,
 * a batch's end only while the server has a receive posted; the client
 * completes what was placed, some time later; the server checks whole batches
 * in order and re-posts their receives. Placing a message into a slot whose
 * last message is not checked yet is the failure.
 */
#define SIM_MSGS 60000

struct sim {
	uint32_t w, batch, nrecv, slots;
	uint8_t end[SIM_MSGS]; /* message ends a batch */
	uint64_t posted, placed, una, checked;
	uint64_t recv_free;
	uint64_t arrived[SIM_MSGS], narrived, nchecked_batches;
	uint32_t rng;
};

static uint32_t sim_rand(struct sim *s, uint32_t n)
{
	s->rng = s->rng * 1103515245u + 12345u;
	return (s->rng >> 8) % n;
}

static int sim_run(uint32_t client_qd, uint32_t server_qd, uint32_t rng, uint32_t slots_override)
{
	struct sim *s = calloc(1, sizeof(*s));
	struct ws_ring_plan p;
	uint32_t k, len, i, steps = 0;
	int bad = 0;

	assert_non_null(s);
	ws_ring_plan(client_qd, server_qd, 4096, &p);
	s->w = client_qd;
	s->batch = p.batch;
	s->nrecv = p.nrecv;
	s->slots = slots_override ? slots_override : p.slots;
	s->recv_free = p.nrecv;
	s->rng = rng;
	while (s->posted + s->w <= SIM_MSGS && !bad) {
		switch (sim_rand(s, 4)) {
		case 0: /* the client posts a chain while its window has room */
			if (s->posted - s->una >= s->w)
				break;
			/* Mostly whole batches (the worst case), sometimes any length. */
			k = (uint32_t)(s->w - (s->posted - s->una));
			if (sim_rand(s, 32) == 0)
				k = 1 + sim_rand(s, k);
			else if (k >= s->batch)
				k -= k % s->batch;
			else
				break;
			for (i = 0, len = 0; i < k; i++)
				if (++len == s->batch || i + 1 == k) {
					s->end[s->posted + i] = 1;
					len = 0;
				}
			s->posted += k;
			break;
		case 1: /* the fabric places the next message, a batch end only into a receive */
			if (s->placed == s->posted)
				break;
			/* The data lands first, even for a batch end about to be RNR NAKed. */
			if (s->placed >= s->slots && s->placed - s->slots >= s->checked)
				bad = 1; /* slot's previous message not checked yet */
			if (s->end[s->placed] && !s->recv_free)
				break; /* RNR: retried until the server re-posts */
			if (s->end[s->placed]) {
				s->recv_free--;
				s->arrived[s->narrived++] = s->placed;
			}
			s->placed++;
			break;
		case 2: /* the client reaps completions: every message is signalled, acks lag */
			s->una = sim_rand(s, 2)
				     ? s->placed
				     : s->una + sim_rand(s, (uint32_t)(s->placed - s->una + 1));
			break;
		case 3: /* the server checks the next arrived batch, then re-posts its receive */
			if (s->nchecked_batches == s->narrived || (++steps / 300) % 3 == 0)
				break; /* ... except when it is behind: a third of the time */
			s->checked = s->arrived[s->nchecked_batches++] + 1;
			s->recv_free++;
			break;
		}
	}
	free(s);
	return bad;
}

static void test_ring_never_overrun(void **state)
{
	static const uint32_t qds[][2] = {{1, 1},   {2, 2},  {4, 4},   {5, 8},
					  {16, 16}, {8, 16}, {33, 40}, {64, 64}};
	size_t i;
	uint32_t seed;

	(void)state;
	for (i = 0; i < sizeof(qds) / sizeof(qds[0]); i++)
		for (seed = 1; seed <= 20; seed++)
			if (sim_run(qds[i][0], qds[i][1], seed * 7919u + (uint32_t)i, 0))
				fail_msg("client qd %u, server qd %u, seed %u: a slot was "
					 "overwritten before it was checked",
					 qds[i][0], qds[i][1], seed);
}

/* The simulation can fail: a ring one slot short of (nrecv + 1) x batch is overrun. */
static void test_sim_catches_small_ring(void **state)
{
	struct ws_ring_plan p;
	uint32_t seed;
	int hits = 0;

	(void)state;
	ws_ring_plan(16, 16, 4096, &p);
	assert_true(p.batch > 1);
	for (seed = 1; seed <= 20; seed++)
		hits += sim_run(16, 16, seed, (p.nrecv + 1) * p.batch - 1);
	assert_true(hits > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_plan_default),
	    cmocka_unit_test(test_plan_bounds),
	    cmocka_unit_test(test_imm),
	    cmocka_unit_test(test_ring_never_overrun),
	    cmocka_unit_test(test_sim_catches_small_ring),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
