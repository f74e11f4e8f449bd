/* SPDX-License-Identifier: MIT */
/*
 * IEEE 802.1Qbb priority flow control (PFC) and IEEE 802.3x PAUSE frames as
 * pure data: encoding, validating decoding, pause time arithmetic, and the
 * send schedule of a storm. No I/O, so all of it is unit-tested byte for
 * byte. Shared by the pfc_storm injector (the sender) and the agent's PFC
 * observer (the receiver, agents/agent_pfc.c).
 *
 * Both are MAC control frames, 60 bytes before the FCS (offsets in bytes):
 *    0  DA 01:80:C2:00:00:01 (the reserved MAC control multicast address)
 *    6  SA, the sender's MAC
 *   12  EtherType 0x8808 (MAC control)
 *   14  opcode: 0x0001 PAUSE (802.3x), 0x0101 PFC (802.1Qbb)
 *   PAUSE: 16 pause_time (quanta, big-endian), 18..59 zero
 *   PFC:   16 class-enable vector: bit p of the low octet enables priority p,
 *             the high octet is reserved (sent as 0, ignored on receipt)
 *          18 time[0] ... 32 time[7] (quanta, big-endian), 34..59 zero
 * A quantum is 512 bit times at the link's speed; time 0 for an enabled
 * priority (XON) ends its pause at once.
 */
#ifndef PFC_FRAME_H
#define PFC_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PFC_ETHERTYPE 0x8808
#define PFC_OPCODE_PAUSE 0x0001
#define PFC_OPCODE_PFC 0x0101
#define PFC_FRAME_LEN 60 /* the minimum Ethernet frame without its 4-byte FCS */
#define PFC_PRIOS 8
#define PFC_MAX_QUANTA 65535
#define PFC_BITS_PER_QUANTUM 512
/* pfc_storm's rate_fps when not given (the agent's policy checks it against pfc.max_rate_fps). */
#define PFC_STORM_DEFAULT_FPS 1000

/* 01:80:C2:00:00:01 */
extern const uint8_t pfc_dest_mac[6];

struct pfc_frame {
	bool global;	/* 802.3x PAUSE (every priority) instead of 802.1Qbb PFC */
	uint8_t src[6]; /* the sender's MAC */
	/*
	 * PFC: the class-enable vector, bit p = priority p, and quanta[p] for
	 * each enabled p (the others are sent as 0). PAUSE: encode sends
	 * quanta[0] as pause_time; decode sets enable 0xff and every quanta[p]
	 * to pause_time, so a reader treats both kinds alike.
	 */
	uint8_t enable;
	uint16_t quanta[PFC_PRIOS];
};

/*
 * Writes f as a PFC_FRAME_LEN-byte frame into buf. Returns PFC_FRAME_LEN, or
 * -ENOSPC when len is shorter, -EINVAL for a PFC frame enabling no priority.
 */
int pfc_frame_encode(const struct pfc_frame *f, uint8_t *buf, size_t len);

/*
 * Reads a received frame (Ethernet header included, FCS optional). 0 with f
 * filled in, or a -errno naming what is wrong: -EMSGSIZE shorter than
 * PFC_FRAME_LEN, -EPROTOTYPE not EtherType 0x8808, -EADDRNOTAVAIL a
 * destination other than 01:80:C2:00:00:01 (or station, when given: 802.3x
 * also allows the receiving station's own MAC), -EOPNOTSUPP another MAC
 * control opcode, -EINVAL a PFC frame enabling no priority.
 */
int pfc_frame_decode(const uint8_t *buf, size_t len, const uint8_t *station, struct pfc_frame *f);

/* A sentence for a pfc_frame_decode() error, e.g. "not a MAC control frame (EtherType ...)". */
const char *pfc_frame_strerror(int err);

/*
 * How long `quanta` pause a link of speed_mbps (Mb/s): quanta x 512 bit
 * times, rounded up to whole ns. 0 when speed_mbps is 0.
 */
uint64_t pfc_quanta_ns(unsigned int quanta, uint64_t speed_mbps);

/*
 * The send schedule of a storm of rate_fps frames per second: frame k is due
 * at start_ns + k / rate_fps seconds (frame 0 at once), for duration_ms (0:
 * until stopped). The sender runs every tick_ns or so and sends what is due.
 * A sender that runs late sends the frames due in the last catchup_ns at
 * once, so a loop slower than tick_ns still keeps the rate; after a longer
 * gap (a stalled loop) the older frames are skipped and counted, never burst.
 */
struct pfc_sched {
	uint64_t rate_fps;
	uint64_t total; /* frames in the whole storm; UINT64_MAX: until stopped */
	uint64_t tick_ns;
	uint64_t batch_max; /* catchup_ns' worth, at least 1 */
	uint64_t start_ns;
	uint64_t next;	  /* the index of the next frame not yet handed out or skipped */
	uint64_t skipped; /* frames dropped from the schedule after gaps */
};

/* rate_fps and tick_ns must be > 0; catchup_ns is usually a few ticks. */
void pfc_sched_init(struct pfc_sched *s, uint64_t rate_fps, uint64_t duration_ms, uint64_t tick_ns,
		    uint64_t catchup_ns, uint64_t start_ns);
/* When frame k is due (CLOCK_MONOTONIC ns). */
uint64_t pfc_sched_frame_ns(const struct pfc_sched *s, uint64_t k);
/* The number of frames to send now (0..batch_max); moves the schedule past them. */
uint64_t pfc_sched_due(struct pfc_sched *s, uint64_t now_ns);
/* Whether every frame of the storm has been handed out (never, without a duration). */
bool pfc_sched_done(const struct pfc_sched *s);
/* When the sender should run next, after a run at now_ns; 0 once done. */
uint64_t pfc_sched_next_ns(const struct pfc_sched *s, uint64_t now_ns);

#endif
