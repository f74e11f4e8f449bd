// SPDX-License-Identifier: MIT
/* PFC and PAUSE frames: encode, decode, pause time, and the storm's send schedule (pure). */
#include <errno.h>
#include <string.h>

#include "injectors/pfc_frame.h"

#define PFC_NSEC_PER_SEC 1000000000ULL

const uint8_t pfc_dest_mac[6] = {0x01, 0x80, 0xc2, 0x00, 0x00, 0x01};

static void pfc_put16(uint8_t *p, unsigned int v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static uint16_t pfc_get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

int pfc_frame_encode(const struct pfc_frame *f, uint8_t *buf, size_t len)
{
	unsigned int p;

	if (len < PFC_FRAME_LEN)
		return -ENOSPC;
	if (!f->global && !f->enable)
		return -EINVAL;
	memset(buf, 0, PFC_FRAME_LEN);
	memcpy(buf, pfc_dest_mac, 6);
	memcpy(buf + 6, f->src, 6);
	pfc_put16(buf + 12, PFC_ETHERTYPE);
	if (f->global) {
		pfc_put16(buf + 14, PFC_OPCODE_PAUSE);
		pfc_put16(buf + 16, f->quanta[0]);
		return PFC_FRAME_LEN;
	}
	pfc_put16(buf + 14, PFC_OPCODE_PFC);
	pfc_put16(buf + 16, f->enable);
	for (p = 0; p < PFC_PRIOS; p++)
		if (f->enable & (1u << p))
			pfc_put16(buf + 18 + 2 * p, f->quanta[p]);
	return PFC_FRAME_LEN;
}

int pfc_frame_decode(const uint8_t *buf, size_t len, const uint8_t *station, struct pfc_frame *f)
{
	unsigned int p, opcode;

	if (len < PFC_FRAME_LEN)
		return -EMSGSIZE;
	if (pfc_get16(buf + 12) != PFC_ETHERTYPE)
		return -EPROTOTYPE;
	opcode = pfc_get16(buf + 14);
	if (memcmp(buf, pfc_dest_mac, 6) &&
	    !(opcode == PFC_OPCODE_PAUSE && station && !memcmp(buf, station, 6)))
		return -EADDRNOTAVAIL;
	if (opcode != PFC_OPCODE_PAUSE && opcode != PFC_OPCODE_PFC)
		return -EOPNOTSUPP;
	memset(f, 0, sizeof(*f));
	memcpy(f->src, buf + 6, 6);
	if (opcode == PFC_OPCODE_PAUSE) {
		f->global = true;
		f->enable = 0xff;
		for (p = 0; p < PFC_PRIOS; p++)
			f->quanta[p] = pfc_get16(buf + 16);
		return 0;
	}
	f->enable = buf[17]; /* buf[16] is reserved: ignored on receipt */
	if (!f->enable)
		return -EINVAL;
	for (p = 0; p < PFC_PRIOS; p++)
		if (f->enable & (1u << p))
			f->quanta[p] = pfc_get16(buf + 18 + 2 * p);
	return 0;
}

const char *pfc_frame_strerror(int err)
{
	switch (err) {
	case 0:
		return "a valid PFC or PAUSE frame";
	case -EMSGSIZE:
		return "shorter than a minimum Ethernet frame (60 bytes before the FCS)";
	case -EPROTOTYPE:
		return "not a MAC control frame (EtherType is not 0x8808)";
	case -EADDRNOTAVAIL:
		return "not sent to 01:80:C2:00:00:01";
	case -EOPNOTSUPP:
		return "a MAC control opcode other than PAUSE (0x0001) or PFC (0x0101)";
	case -EINVAL:
		return "a PFC frame that enables no priority";
	default:
		return "not a PFC or PAUSE frame";
	}
}

uint64_t pfc_quanta_ns(unsigned int quanta, uint64_t speed_mbps)
{
	/* One bit time is 1000 / speed_mbps ns; round up so a pause never comes out short. */
	uint64_t bits_x1000 = (uint64_t)quanta * PFC_BITS_PER_QUANTUM * 1000;

	if (!speed_mbps)
		return 0;
	return (bits_x1000 + speed_mbps - 1) / speed_mbps;
}

/* a * b / c rounded down, for a * b that may not fit in 64 bits (a < 2^64, b, c < 2^32ish). */
static uint64_t pfc_muldiv(uint64_t a, uint64_t b, uint64_t c)
{
	return (a / c) * b + (a % c) * b / c;
}

void pfc_sched_init(struct pfc_sched *s, uint64_t rate_fps, uint64_t duration_ms, uint64_t tick_ns,
		    uint64_t catchup_ns, uint64_t start_ns)
{
	memset(s, 0, sizeof(*s));
	s->rate_fps = rate_fps;
	s->tick_ns = tick_ns;
	s->start_ns = start_ns;
	/* Frames k with k / rate < duration: ceil(duration_ms * rate / 1000). */
	s->total = duration_ms ? (duration_ms * rate_fps + 999) / 1000 : UINT64_MAX;
	/* catchup_ns' worth, rounded up, so a batch never falls behind the rate. */
	s->batch_max = (catchup_ns * rate_fps + PFC_NSEC_PER_SEC - 1) / PFC_NSEC_PER_SEC;
	if (!s->batch_max)
		s->batch_max = 1;
}

uint64_t pfc_sched_frame_ns(const struct pfc_sched *s, uint64_t k)
{
	/* ceil(k * 1e9 / rate), split so k * 1e9 cannot overflow. */
	return s->start_ns + (k / s->rate_fps) * PFC_NSEC_PER_SEC +
	       ((k % s->rate_fps) * PFC_NSEC_PER_SEC + s->rate_fps - 1) / s->rate_fps;
}

uint64_t pfc_sched_due(struct pfc_sched *s, uint64_t now_ns)
{
	uint64_t due, n;

	if (now_ns < s->start_ns || pfc_sched_done(s))
		return 0;
	/* Frames 0..due-1 are due: k <= elapsed * rate / 1e9. */
	due = pfc_muldiv(now_ns - s->start_ns, s->rate_fps, PFC_NSEC_PER_SEC) + 1;
	if (due > s->total)
		due = s->total;
	if (due <= s->next)
		return 0;
	n = due - s->next;
	if (n > s->batch_max) {
		s->skipped += n - s->batch_max;
		n = s->batch_max;
	}
	s->next = due;
	return n;
}

bool pfc_sched_done(const struct pfc_sched *s)
{
	return s->next >= s->total;
}

uint64_t pfc_sched_next_ns(const struct pfc_sched *s, uint64_t now_ns)
{
	uint64_t at;

	if (pfc_sched_done(s))
		return 0;
	at = pfc_sched_frame_ns(s, s->next);
	return at > now_ns + s->tick_ns ? at : now_ns + s->tick_ns;
}
