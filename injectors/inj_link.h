/* SPDX-License-Identifier: MIT */
/*
 * A netdev's administrative state (IFF_UP) through rtnetlink (libnl-route):
 * what link_down and port_flap snapshot, change and read back, over one
 * netlink socket per process (opened by inj_link_warm() or the first call).
 */
#ifndef INJ_LINK_H
#define INJ_LINK_H

#include <jansson.h>
#include <stdbool.h>

#include "injectors/injector.h"

/* Reads IFF_UP of f->target (by ifindex when known). 0, or -errno with f->err set. */
int inj_link_get_up(struct inj_fault *f, bool *up);
/* Sets or clears IFF_UP of f->target (RTM_NEWLINK). 0, or -errno with f->err set. */
int inj_link_set_up(struct inj_fault *f, bool up);
/* The injectors' warm(): opens the socket and makes one read-only request. */
int inj_link_warm(char *err, size_t errlen);
/* Brings the link back to `want` and appends an action sentence; idempotent. */
int inj_link_restore(struct inj_fault *f, bool want);
/* 0 when the link's IFF_UP equals want, else -EIO with a sentence. */
int inj_link_verify(struct inj_fault *f, bool want);

/* The journaled snapshot of a prior IFF_UP: {"up": true}. NULL when out of memory. */
json_t *inj_link_snapshot(bool up);
/* Reads "up" back from such a snapshot; -EINVAL with a sentence in f->err if it is not there. */
int inj_link_snapshot_up(struct inj_fault *f, const json_t *snapshot, bool *up);

#endif
