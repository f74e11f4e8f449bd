/* SPDX-License-Identifier: MIT */
/*
 * The victim side of a PFC storm: an observer in the agent's loop that counts
 * the PFC and PAUSE frames each rail netdev receives (`pfc` `rx` events, at
 * most one round per second per netdev, only while frames arrive), a storm
 * watchdog with pfc-prevention-tout semantics, and, with --pfc-emulate, the
 * pause itself, which virtio-net and Soft-RoCE do not act on.
 *
 * Pause state (per netdev and priority), as a MAC keeps it: a frame enabling
 * priority p with time q > 0 pauses p until now + q x 512 bit times at the
 * link's speed (restarting the pause time, not adding to it); time 0 (XON)
 * ends the pause at once; an 802.3x PAUSE does the same for every priority.
 * The speed is /sys/class/net/IF/speed, or AGENT_PFC_SPEED_MBPS_DEFAULT
 * (100 Mb/s) when the driver reports none, as virtio-net does: the lab's
 * links carry well under 100 Mb/s under TCG (ib_write_bw ~70 Mb/s), and the
 * pause time must outlast the gaps between the storm's frames as they arrive
 * there. A 65535-quanta pause lasts 335 ms at 100 Mb/s. It was 33.6 ms at an
 * assumed 1 Gb/s, and in the lab, with ib_write_bw busy-polling both guests,
 * a 1000 fps storm arrived in bursts with gaps of up to 270 ms (56 ms on
 * average past the pause): the priority was released and held again 24 times
 * in 5 s instead of held throughout, and the workload kept 15% of its rate (at
 * 10 Gb/s, 3.4 ms, it would be released most of the time).
 *
 * Watchdog: a priority paused continuously (no gap between pauses) for longer
 * than the watchdog time (--pfc-watchdog-ms, default 100 ms, mlx5's default
 * pfc_prevention_tout; 0 turns it off) raises `storm_detected` once; once the
 * priority has been unpaused for the same time, `storm_cleared`. On a link
 * of 1 Gb/s or more a single frame cannot trigger it (its longest pause is
 * 33.6 ms); at the lab's assumed 100 Mb/s one 65535-quanta frame does (335
 * ms), as it would on a real 100 Mb/s link.
 *
 * Emulation (--pfc-emulate; lab only): at start-up, each rail netdev gets a
 * root prio qdisc (handle 8808:, AGENT_PFC_QDISC_MAJOR) with 9 bands: band 0
 * (class 8808:1) for everything unclassified, and band p + 1 (class 8808:p+2)
 * for priority p, whose child is a plug qdisc (handle 880p:, AGENT_PFC_PLUG_MAJOR + p)
 * released indefinitely. A u32 filter per priority sends IPv4 packets whose
 * TOS byte's top three bits are p (DSCP 8p..8p+7, the DSCP-to-priority map of
 * RoCE NICs in DSCP trust mode) to band p + 1. Soft-RoCE (rxe_net.c) leaves
 * skb->priority 0 and writes the QP's GRH traffic class into the IP TOS byte,
 * which rdma_cm sets from RDMA_OPTION_ID_TOS: a workload on priority p sets
 * TOS p << 5 (e.g. 96 or 106 for priority 3). While p is paused its plug
 * buffers (holds, never drops: its limit is AGENT_PFC_PLUG_LIMIT bytes) and
 * is released when the pause ends. Other priorities, and ARP, keep flowing.
 * Leftover qdiscs with these handles (an agent that was killed) are removed
 * from every rail netdev at start-up, with or without --pfc-emulate, and the
 * agent removes its own at exit.
 */
#ifndef AGENT_PFC_H
#define AGENT_PFC_H

#include <stdbool.h>
#include <stdint.h>

#include "injectors/pfc_frame.h"

#define AGENT_PFC_WATCHDOG_MS_DEFAULT 100
#define AGENT_PFC_WATCHDOG_MS_MAX 60000
#define AGENT_PFC_SPEED_MBPS_DEFAULT 100
#define AGENT_PFC_QDISC_MAJOR 0x8808u
#define AGENT_PFC_PLUG_MAJOR 0x8800u /* + priority */
#define AGENT_PFC_PLUG_LIMIT (16 << 20)
#define AGENT_PFC_SUMMARY_NS 1000000000ULL

/* What a priority's state did, as bits of one byte per priority. */
enum agent_pfc_act {
	AGENT_PFC_HOLD = 1,    /* a pause began */
	AGENT_PFC_RELEASE = 2, /* the pause ran out (or XON) */
	AGENT_PFC_STORM = 4,   /* paused continuously for longer than the watchdog time */
	AGENT_PFC_CLEARED = 8, /* a storm's priority unpaused for the watchdog time */
};

struct agent_pfc_prio {
	bool paused;
	bool storm;	      /* storm_detected emitted, storm_cleared not yet */
	uint64_t until_ns;    /* while paused: when the pause runs out */
	uint64_t since_ns;    /* while paused: when this continuous pause began */
	uint64_t unpaused_ns; /* when the last pause ran out */
	uint64_t storm_ns;    /* how long the pause had lasted when the watchdog fired */
};

/* The pure pause state of one netdev: fed frames and the time, it says what changed. */
struct agent_pfc_wd {
	uint64_t speed_mbps;
	uint64_t watchdog_ns; /* 0: no watchdog */
	struct agent_pfc_prio prio[PFC_PRIOS];
};

void agent_pfc_wd_init(struct agent_pfc_wd *w, uint64_t speed_mbps, uint64_t watchdog_ms);
/*
 * A frame received at now_ns: ORs into acts[p] what began (HOLD). A pause
 * refreshed before it ran out continues; one refreshed after it ran out but
 * before agent_pfc_wd_advance() saw it stays held (nothing was released) yet
 * counts as a new continuous pause for the watchdog, which judges the one
 * that ended first (STORM). Call agent_pfc_wd_advance() after it: an XON
 * ends the pause there.
 */
void agent_pfc_wd_frame(struct agent_pfc_wd *w, const struct pfc_frame *f, uint64_t now_ns,
			uint8_t acts[PFC_PRIOS]);
/* The time is now_ns: ORs into acts[p] the pauses that ran out and the watchdog's verdicts. */
void agent_pfc_wd_advance(struct agent_pfc_wd *w, uint64_t now_ns, uint8_t acts[PFC_PRIOS]);
/* When agent_pfc_wd_advance() has something to do next; 0: nothing pending. */
uint64_t agent_pfc_wd_next_ns(const struct agent_pfc_wd *w);

struct agent;
/*
 * Removes leftover emulation qdiscs from the rail netdevs, opens the frame
 * socket and, with --pfc-emulate, installs the emulation qdiscs. 0, or -errno
 * when the emulation asked for cannot be installed (logged); an observer that
 * cannot open its socket only warns (the agent works without it).
 */
int agent_pfc_start(struct agent *a);
/* Releases every hold and removes the emulation qdiscs; at exit, after the loop. */
void agent_pfc_stop(struct agent *a);

#endif
