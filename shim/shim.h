/* SPDX-License-Identifier: MIT */
/*
 * Internals of librdmachaos-verbs.so, the verbs shim a workload is preloaded
 * with: what the interposed verbs (shim_hooks.c) and the control thread
 * (shim_ctl.c) share. Nothing here is exported from the library: it is built
 * with -fvisibility=hidden and only the hooked verbs are visible.
 *
 * Concurrency: the armed state is a set of atomics. The verbs' fast paths
 * (poll_cq, reg_mr) make one relaxed load of shim_st.armed and go straight
 * through when it is 0; only an armed path takes counters with CAS. The QP
 * list has a mutex, taken on the slow verbs only (create, modify, destroy)
 * and by the control thread, so a QP is never destroyed while the control
 * thread moves it to ERR.
 */
#ifndef RC_SHIM_H
#define RC_SHIM_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/shim_proto.h"

#define SHIM_ARM_WR 1u	 /* fail_wr: wr_left completions still to rewrite */
#define SHIM_ARM_MR 2u	 /* fail_mr: mr_left registrations, or each with mr_prob */
#define SHIM_ARM_NEXT 4u /* qp_error next: the next QP created after next_after reaching RTS */

#define SHIM_PROB_ONE (1ull << 53) /* mr_prob_thr for probability 1 */

struct shim_state {
	atomic_uint armed; /* SHIM_ARM_* */
	atomic_uint wr_left;
	atomic_int wc_status;
	atomic_uint mr_left;
	atomic_ullong mr_prob_thr; /* a registration fails when rand53 < thr */
	atomic_int mr_errno;
	atomic_ullong next_after; /* "next" applies to QPs with seq > this */
	atomic_ullong qp_seq;	  /* QPs created so far */
	/* what was injected since the process started */
	atomic_ullong qp_errors;
	atomic_ullong failed_wrs;
	atomic_ullong failed_mrs;
};

extern struct shim_state shim_st;

/* Set once by the constructor: RDMACHAOS_SHIM_SOCK was set (and its value). */
extern bool shim_enabled;
extern char shim_sock_path[108];

/* A growing reply: appends never overflow; truncated tells they were cut. */
struct shim_buf {
	char *p;
	size_t cap, len;
	bool truncated;
};

void shim_bprintf(struct shim_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends s as a JSON string, quotes included. */
void shim_bstr(struct shim_buf *b, const char *s);

/* One line on stderr, "rdmachaos-shim[PID]: ..."; never stdout (the workload's). */
void shim_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* shim_hooks.c, for the control thread. */
/*
 * Moves QPs to IBV_QPS_ERR with the real ibv_modify_qp: all of them, or the
 * one with @qpn (SHIM_QP_QPN). Appends "moved":[..],"failed":[..], to @b and
 * sets *@moved. Returns how many QPs matched (0: no such QP).
 */
int shim_qps_error(enum shim_qp_sel sel, uint32_t qpn, struct shim_buf *b, int *moved);
/* Appends "qps":[{"qpn","state","device","type"}...] (state read with ibv_query_qp). */
void shim_qps_json(struct shim_buf *b);

/* shim_ctl.c: starts the control thread once (pthread_once); no-op unless shim_enabled. */
void shim_ctl_start(void);

#endif /* RC_SHIM_H */
