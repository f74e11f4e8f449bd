/* SPDX-License-Identifier: MIT */
/*
 * The verbs shim's control protocol: the agent asks a workload's preloaded
 * librdmachaos-verbs.so to break its own QPs, completions or MR registrations.
 *
 * Transport: a unix SOCK_SEQPACKET socket at $RDMACHAOS_SHIM_SOCK (0600),
 * one connection per call. The agent sends one datagram holding one text
 * command line (shim_cmd_format), the shim answers with one datagram holding
 * one JSON object: {"ok": true, ...} or {"ok": false, "error": "sentence"}.
 *
 * Command lines (tokens separated by single spaces, no trailing newline
 * needed; parsing is strict: unknown words or keys are errors):
 *   qp_error all | qp_error qpn=N | qp_error next
 *   fail_wr count=N status=NAME          (NAME as in shim_wc_status_parse)
 *   fail_mr count=N errno=E | fail_mr prob=P errno=E   (E: name or number)
 *   clear
 *   status
 *
 * The STATUS (and every other) reply carries "qps": [{"qpn", "state"}] (state
 * as the shim last saw it, "RESET".."ERR"), "armed": {...} and the counters
 * "qp_errors", "failed_wrs", "failed_mrs".
 *
 * This file is linked both into the agent (with jansson) and into the shim
 * library; shim_call() is the only part that uses jansson.
 */
#ifndef RC_SHIM_PROTO_H
#define RC_SHIM_PROTO_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#define SHIM_SOCK_ENV "RDMACHAOS_SHIM_SOCK"
#define SHIM_LINE_MAX 256    /* a command line, NUL included */
#define SHIM_REPLY_MAX 65536 /* the largest reply datagram */

enum shim_op { SHIM_OP_QP_ERROR, SHIM_OP_FAIL_WR, SHIM_OP_FAIL_MR, SHIM_OP_CLEAR, SHIM_OP_STATUS };
enum shim_qp_sel { SHIM_QP_ALL, SHIM_QP_QPN, SHIM_QP_NEXT };

struct shim_cmd {
	enum shim_op op;
	enum shim_qp_sel sel;
	uint32_t qpn; /* QP_ERROR: which QPs go to IBV_QPS_ERR */
	unsigned int count;
	int wc_status; /* FAIL_WR: the next count completions */
	unsigned int mr_count;
	double mr_prob;
	int mr_errno; /* FAIL_MR: next mr_count, or each with mr_prob */
};

/*
 * shim_cmd_format() - write @c as one text line (no newline) into @buf.
 * Returns the length written, or -EINVAL (a field out of range) or
 * -ENOSPC (@len too small).
 */
int shim_cmd_format(const struct shim_cmd *c, char *buf, size_t len);

/*
 * shim_cmd_parse() - parse one command line into @c (zeroed first). A
 * trailing "\n" is accepted. Returns 0, or -EINVAL with a sentence in @err.
 */
int shim_cmd_parse(const char *line, struct shim_cmd *c, char *err, size_t errlen);

/*
 * shim_call() - agent side: connect to @sock_path, send @c, wait up to
 * @timeout_ms (<= 0: 2000) for the reply and parse it into *@reply (a JSON
 * object with "ok": true, new reference). Returns 0, or -errno with a
 * sentence in @err and *@reply NULL: -ESRCH when nothing listens there (the
 * process is gone or was started without the shim), -ETIMEDOUT, -EPROTO for
 * a bad reply, and -EREMOTEIO with its sentence (control characters made
 * '?', its errno named) when it answered "ok": false: the shim is the
 * workload's, so its errno never reads as one of the codes above.
 */
int shim_call(const char *sock_path, const struct shim_cmd *c, int timeout_ms, json_t **reply,
	      char *err, size_t errlen);

/*
 * WC status names <-> enum ibv_wc_status values. shim_wc_status_parse()
 * accepts "IBV_WC_RETRY_EXC_ERR", "retry_exc_err" or a decimal number (any
 * case); returns the value or -EINVAL. shim_wc_status_name() returns the
 * canonical "IBV_WC_..." name, or NULL for an unknown value.
 */
int shim_wc_status_parse(const char *s);
const char *shim_wc_status_name(int status);

/*
 * Errno names for FAIL_MR: "ENOMEM" (any case) or a decimal number in
 * 1..4095. shim_errno_parse() returns the positive errno or -EINVAL;
 * shim_errno_name() returns the name or NULL when the table lacks it.
 */
int shim_errno_parse(const char *s);
const char *shim_errno_name(int e);

/* QP state names as the shim and inj_rdma_nl report them ("RESET".."ERR"). */
const char *shim_qp_state_name(int state);

#endif /* RC_SHIM_PROTO_H */
