/* SPDX-License-Identifier: MIT */
/*
 * How an op=write stream connection batches its messages: how many messages
 * one immediate closes, and how large the server's ring must then be for no
 * slot to be written while the server still checks it. Pure arithmetic: the
 * server plans, the client follows the batch the server's accept names.
 */
#ifndef WS_RING_H
#define WS_RING_H

#include <stdint.h>

/* An op=write immediate: the last ring slot of a batch and how many messages the batch has. */
#define WS_IMM_COUNT_SHIFT 24
#define WS_IMM_SLOT_MASK ((1U << WS_IMM_COUNT_SHIFT) - 1)
#define WS_BATCH_MAX 255U
/* A batch is at most this share of the client's window, so several are in flight. */
#define WS_BATCH_DIV 4U
/* Batching may grow the ring to this, or to the unbatched ring if that is larger. */
#define WS_RING_BATCH_BYTES (64ULL << 20)

struct ws_ring_plan {
	uint32_t batch; /* op=write: messages one immediate closes, >= 1 */
	uint32_t nrecv; /* receives the server keeps posted */
	uint32_t slots; /* op=write ring slots of msg_size bytes */
};

void ws_ring_plan(uint32_t client_qd, uint32_t server_qd, uint32_t msg_size,
		  struct ws_ring_plan *p);

static inline uint32_t ws_imm_pack(uint32_t last_slot, uint32_t n)
{
	return n << WS_IMM_COUNT_SHIFT | (last_slot & WS_IMM_SLOT_MASK);
}

static inline uint32_t ws_imm_slot(uint32_t imm)
{
	return imm & WS_IMM_SLOT_MASK;
}

static inline uint32_t ws_imm_count(uint32_t imm)
{
	return imm >> WS_IMM_COUNT_SHIFT;
}

#endif
