/* SPDX-License-Identifier: MIT */
/*
 * One rail's RDMA connection in rdmachaos-stream: an rdma_cm id with its own
 * PD, completion channel, CQ, RC QP and memory registrations (the rails sit
 * on different devices, so nothing verbs-level is shared between them), the
 * private data both sides exchange, and the CQ drain loop.
 */
#ifndef WS_CONN_H
#define WS_CONN_H

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

/* 2: the payload checksum is the four-lane sums of stream_integrity.c (1: a serial hash). */
#define WS_PROTO_VERSION 2
#define WS_CM_TIMEOUT_MS 2000

struct ws_conn {
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_comp_channel *ch;
	struct ibv_cq *cq;
	struct ibv_mr *mr;     /* the owner's message memory */
	struct ibv_mr *mr_ctl; /* server: small receive buffers (heartbeats), or NULL */
	int pos;	       /* rail position in --listen / --connect */
	bool established;
	bool armed; /* the CQ will raise one completion event (ibv_req_notify_cq) */
	char local[64];
	char remote[64];
	char err[160]; /* why ws_conn_setup or ws_conn_reg failed */
};

struct ws_conn_caps {
	uint32_t send_wr;
	uint32_t recv_wr;
	uint32_t cq_size;
};

/* Client -> server, in the connect request (at most 56 bytes for RDMA_PS_TCP). */
struct ws_hello {
	uint32_t magic;
	uint8_t version;
	uint8_t op;
	uint8_t rail;
	uint8_t pad;
	uint32_t msg_size;
	uint32_t queue_depth;
} __attribute__((packed));

/* Server -> client, in the accept: where op=write messages go. */
struct ws_accept {
	uint32_t magic;
	uint8_t version;
	uint8_t op;
	uint16_t pad;
	uint32_t slots; /* ring slots of msg_size bytes; slot = seq % slots */
	uint32_t rkey;
	uint64_t addr;
} __attribute__((packed));

/* Server -> client, in a reject: why. */
#define WS_REJECT_REASON_LEN 120
struct ws_reject {
	uint32_t magic;
	uint8_t permanent; /* a configuration mismatch: retrying cannot help */
	char reason[WS_REJECT_REASON_LEN];
} __attribute__((packed));

/* Private data fields are little-endian; these convert in place. */
void ws_hello_swap(struct ws_hello *h);
void ws_accept_swap(struct ws_accept *a);

/* Resolves host (name or literal) and port; -errno with a sentence in err. */
int ws_resolve(const char *host, uint16_t port, struct sockaddr_storage *ss, char *err,
	       size_t errlen);
const char *ws_sockaddr_str(const struct sockaddr *sa, char *buf, size_t len);

/* An event channel whose fd never blocks; NULL with errno set. */
struct rdma_event_channel *ws_event_channel(void);

/*
 * Creates PD, a non-blocking completion channel, an armed CQ and an RC QP on
 * id (whose device is known: after ADDR_RESOLVED or a CONNECT_REQUEST).
 * c->id is set; on failure everything created is destroyed again, not id,
 * and c->err says what failed (the caller decides how loudly to report it).
 */
int ws_conn_setup(struct ws_conn *c, struct rdma_cm_id *id, const struct ws_conn_caps *caps);

/* ibv_reg_mr into *mr on c's PD; c->err on failure. */
int ws_conn_reg(struct ws_conn *c, struct ibv_mr **mr, void *buf, size_t len, int access);

/*
 * Destroys the QP, CQ, channel, MRs, PD and the cm id (after rdma_disconnect
 * when disconnect is set). Idempotent. The caller must have acked every cm
 * event of this id, or rdma_destroy_id blocks.
 */
/* Flush a hung QP's work requests; the QP is not destroyed. */
void ws_conn_force_error(struct ws_conn *c);
void ws_conn_teardown(struct ws_conn *c, bool disconnect);

/*
 * Called for every work completion. A non-zero return stops the drain and is
 * returned by ws_conn_poll: the callback uses it to say "this connection is
 * dead", after which the caller tears it down.
 */
typedef int (*ws_wc_cb)(void *arg, struct ws_conn *c, const struct ibv_wc *wc);

/*
 * Drains c: acks a pending channel event (when readable) and polls the CQ
 * until empty; with arm, an unarmed CQ is then armed and polled once more to
 * close the arm race. Without arm (a busy-polling caller) the CQ stays
 * unarmed once its event was read: no event, no syscall per completion; the
 * caller arms it before it sleeps.
 */
int ws_conn_poll(struct ws_conn *c, bool readable, bool arm, ws_wc_cb cb, void *arg);

/* A cm event, copied so it can be acked before it is acted on. */
#define WS_PDATA_MAX 196
struct ws_cm_ev {
	enum rdma_cm_event_type type;
	struct rdma_cm_id *id;
	struct rdma_cm_id *listen_id;
	int status;
	uint8_t pdata_len;
	uint8_t pdata[WS_PDATA_MAX];
};

/*
 * Takes the next cm event without blocking, copies it into ev and acks it at
 * once (so a later rdma_destroy_id of its id cannot block). 1 = an event,
 * 0 = none pending, -errno on failure.
 */
int ws_cm_next(struct rdma_event_channel *ch, struct ws_cm_ev *ev);

/* "IBV_WC_RETRY_EXC_ERR" and so on. */
const char *ws_wc_status_name(enum ibv_wc_status s);

#endif
