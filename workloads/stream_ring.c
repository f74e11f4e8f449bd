// SPDX-License-Identifier: MIT
/*
 * The stream's batch size and op=write ring size (stream_ring.h).
 *
 * Why the ring cannot be overrun. The client writes message seq into slot
 * seq % slots and ends every batch of at most B (`batch`) consecutive
 * messages with an RDMA WRITE with immediate, which consumes one of the
 * server's receives; the server re-posts that receive only after it checked
 * the whole batch. RC places messages in order.
 *
 * Say message m's data is being placed (a batch end's data may land before
 * the responder finds no receive and answers RNR NAK). Let e be the last
 * batch end before m: its immediate took receive number j (batches counted
 * on this QP from 0), which existed only if j < nrecv + the batches already
 * checked (a heartbeat takes a receive too, which only leaves fewer batches
 * unchecked). So every batch before e's last nrecv batches was checked; those
 * hold at most nrecv x B messages ending at e, so every message up to
 * e - nrecv x B was checked. m is in the batch after e, m <= e + B, and slot
 * m % slots last held m - slots <= e + B - slots: checked when
 * slots >= (nrecv + 1) x B. With no batch end before m on this QP, m is
 * within B of the QP's first message and its slot is fresh. A server that
 * lags nrecv batches makes the client meet RNR NAKs (rnr_retry 7: retried
 * forever), never overwrite.
 *
 * The ring has nrecv x B + W + B - 1 slots (W: the server's queue depth),
 * W - 1 more than that bound, so that for B = 1 it is the ring of before
 * batches, 3 x W.
 */
#include "workloads/stream_ring.h"

void ws_ring_plan(uint32_t client_qd, uint32_t server_qd, uint32_t msg_size, struct ws_ring_plan *p)
{
	uint64_t cap, batch;

	if (client_qd > server_qd)
		client_qd = server_qd; /* the server refuses such a client anyway */
	p->nrecv = 2 * server_qd;
	batch = client_qd / WS_BATCH_DIV;
	if (batch > WS_BATCH_MAX)
		batch = WS_BATCH_MAX;
	if (batch < 1)
		batch = 1;
	/* Batches grow the ring; never past the larger of the unbatched ring and the cap. */
	cap = 3ULL * server_qd * msg_size;
	if (cap < WS_RING_BATCH_BYTES)
		cap = WS_RING_BATCH_BYTES;
	while (batch > 1 && ((uint64_t)p->nrecv * batch + server_qd + batch - 1) * msg_size > cap)
		batch--;
	p->batch = (uint32_t)batch;
	p->slots = (uint32_t)(p->nrecv * batch + server_qd + batch - 1);
}
