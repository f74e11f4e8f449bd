/* SPDX-License-Identifier: MIT */
/*
 * Inside the qp_error injector, not for other modules: its parameters and
 * state, and the ops of its two mechanisms (qp_error_shim.c,
 * qp_error_transport.c), one of which qp_error.c picks once per fault when it
 * reads the params, as rxe picks its ops once per QP.
 */
#ifndef RC_QP_ERROR_H
#define RC_QP_ERROR_H

#include <jansson.h>
#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/shim_proto.h"
#include "injectors/injector.h"

#define QPE_QPN_MAX 0xffffff
#define QPE_COUNT_MAX 1000000
#define QPE_TICK_MS 200
#define QPE_MAX_SEEN 64
#define QPE_MAX_EVENTS 32

enum qpe_mech { QPE_SHIM, QPE_TRANSPORT };
enum qpe_action { QPE_ERROR, QPE_FAIL_WR };

struct qpe_params {
	enum qpe_mech mech;
	enum qpe_action action; /* shim */
	enum shim_qp_sel sel;	/* shim, error */
	uint32_t qpn;		/* shim SHIM_QP_QPN, or transport when has_qpn */
	bool has_qpn;		/* transport */
	unsigned int count;	/* shim, fail_wr */
	int wc_status;		/* shim, fail_wr */
};

struct qpe_seen {
	uint32_t qpn;
	char device[64];
	int state; /* -2: not seen yet */
	int pid;
	bool present; /* in the last dump */
	bool gone;    /* reported destroyed */
};

struct qpe_mech_ops;

struct qpe_priv {
	struct qpe_params p;
	const struct qpe_mech_ops *ops; /* p.mech's, chosen once when the params are read */
	/* shim */
	char sock[108];
	int pid;
	char workload[64];
	json_t *before; /* the QPs the shim knew at prepare */
	json_t *moved;	/* QPNs moved to ERR by inject */
	/* transport */
	char netdev[IF_NAMESIZE];
	int ifindex;
	bool qdisc_existed; /* an ingress (or clsact) qdisc was there at prepare */
	bool created_qdisc; /* inject added it (restore: assumed when it was not there) */
	/* QP watching (tick) */
	bool watch;
	struct qpe_seen seen[QPE_MAX_SEEN];
	size_t nseen;
};

/*
 * One mechanism's half of the injector's ops. prepare() fills its part of
 * f->priv (allocated, params read); restore() rebuilds it from snap, whose
 * "mechanism" was checked, and the caller frees priv when it fails.
 */
struct qpe_mech_ops {
	const char *name;	/* params.mechanism, and the snapshot's */
	bool watch_ends_on_err; /* the watch stops at the first QP seen moving into ERR */
	int (*prepare)(struct inj_fault *f);
	int (*inject)(struct inj_fault *f);
	int (*revert)(struct inj_fault *f);
	int (*verify)(struct inj_fault *f);
	json_t *(*describe_prior)(const struct qpe_priv *priv);
	json_t *(*snapshot)(const struct qpe_priv *priv);
	int (*restore)(struct inj_fault *f, const json_t *snap);
};

extern const struct qpe_mech_ops qpe_shim_ops;
extern const struct qpe_mech_ops qpe_transport_ops;

/* A `qp_state` fault event for qpn; key/val an extra field when both are set. */
void qpe_emit(struct inj_fault *f, uint32_t qpn, const char *state, int pid, const char *device,
	      const char *source, const char *key, const char *val);
/* Starts watching the target's QPs through RDMA netlink, from tick(). */
void qpe_watch_start(struct inj_fault *f);
/* Every QP of the workload (or the watched ones) as it is now, for verify. */
void qpe_report_now(struct inj_fault *f, const json_t *shim_reply);

#endif
