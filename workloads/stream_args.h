/* SPDX-License-Identifier: MIT */
/*
 * Command line of rdmachaos-stream: the option set shared by both roles, its
 * defaults and range checks. Parsing is separate from main() so the unit tests
 * can feed it argument vectors and read the refusal messages.
 */
#ifndef WS_ARGS_H
#define WS_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define WS_MAX_RAILS 8
#define WS_ADDR_MAX 256

enum ws_role { WS_ROLE_CLIENT, WS_ROLE_SERVER };
enum ws_op { WS_OP_WRITE, WS_OP_SEND };

/* Limits, also quoted by --help and the refusal messages. */
#define WS_MSG_SIZE_MIN 64ULL
#define WS_MSG_SIZE_MAX (64ULL << 20)
#define WS_QD_MAX 1024
#define WS_BUSY_POLL_US_MAX 1000000 /* --busy-poll: one second of spinning at most */
/* The server's ring is 3 x queue depth messages; keep it under this. */
#define WS_RING_BYTES_MAX (1ULL << 30)

struct ws_opts {
	enum ws_role role;
	enum ws_op op;
	int nrails;
	char addr[WS_MAX_RAILS][WS_ADDR_MAX]; /* --listen or --connect, one per rail */
	char bind[WS_MAX_RAILS][WS_ADDR_MAX]; /* --bind, client only; "" = let routing choose */
	int rail_id[WS_MAX_RAILS];	      /* --rails: the label of each position */
	uint16_t port;
	uint32_t msg_size; /* whole message, header included */
	uint32_t queue_depth;
	uint8_t ack_timeout; /* --timeout: 4.096 us * 2^N */
	uint8_t retry_cnt;
	uint32_t interval_ms;
	uint64_t duration_ms;	     /* 0 = until SIGINT/SIGTERM */
	uint64_t connect_timeout_ms; /* client start-up: every rail must connect by then */
	uint64_t mr_churn_ms;	     /* client: re-register the send buffer this often; 0: never */
	int tos;       /* client: IP TOS of its RoCEv2 packets (rdma_cm), -1: default */
	uint64_t rate; /* client: new messages at most this many bytes/s; 0: unpaced */
	/* client: poll the active CQ, not sleeping, until this long passes with no completion */
	uint32_t busy_poll_us;
	bool verbose;
};

/*
 * Parses argv (argv[1] is the role) into o. Returns 0, 1 when --help was asked
 * (the usage text is already printed on stdout), or -EINVAL with a one-line
 * reason naming the option in err. Warnings (e.g. --retry-cnt 7) go to stderr.
 */
int ws_parse_args(int argc, char **argv, struct ws_opts *o, char *err, size_t errlen);

void ws_usage(const char *prog);
const char *ws_op_name(enum ws_op op);

#endif
