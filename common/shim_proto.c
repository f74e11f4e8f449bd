// SPDX-License-Identifier: MIT
/*
 * The verbs shim's control protocol (see shim_proto.h): the text command
 * format both sides share, the name tables, and the agent's shim_call().
 * Compiled into the agent and, with -DRC_SHIM_LIB (no jansson, no
 * shim_call), into librdmachaos-verbs.so.
 */
#include "common/shim_proto.h"

#include <ctype.h>
#include <errno.h>
#include <infiniband/verbs.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define SHIM_COUNT_MAX INT_MAX
#define SHIM_QPN_MAX 0xffffffu

static const char *const shim_wc_names[] = {
    [IBV_WC_SUCCESS] = "IBV_WC_SUCCESS",
    [IBV_WC_LOC_LEN_ERR] = "IBV_WC_LOC_LEN_ERR",
    [IBV_WC_LOC_QP_OP_ERR] = "IBV_WC_LOC_QP_OP_ERR",
    [IBV_WC_LOC_EEC_OP_ERR] = "IBV_WC_LOC_EEC_OP_ERR",
    [IBV_WC_LOC_PROT_ERR] = "IBV_WC_LOC_PROT_ERR",
    [IBV_WC_WR_FLUSH_ERR] = "IBV_WC_WR_FLUSH_ERR",
    [IBV_WC_MW_BIND_ERR] = "IBV_WC_MW_BIND_ERR",
    [IBV_WC_BAD_RESP_ERR] = "IBV_WC_BAD_RESP_ERR",
    [IBV_WC_LOC_ACCESS_ERR] = "IBV_WC_LOC_ACCESS_ERR",
    [IBV_WC_REM_INV_REQ_ERR] = "IBV_WC_REM_INV_REQ_ERR",
    [IBV_WC_REM_ACCESS_ERR] = "IBV_WC_REM_ACCESS_ERR",
    [IBV_WC_REM_OP_ERR] = "IBV_WC_REM_OP_ERR",
    [IBV_WC_RETRY_EXC_ERR] = "IBV_WC_RETRY_EXC_ERR",
    [IBV_WC_RNR_RETRY_EXC_ERR] = "IBV_WC_RNR_RETRY_EXC_ERR",
    [IBV_WC_LOC_RDD_VIOL_ERR] = "IBV_WC_LOC_RDD_VIOL_ERR",
    [IBV_WC_REM_INV_RD_REQ_ERR] = "IBV_WC_REM_INV_RD_REQ_ERR",
    [IBV_WC_REM_ABORT_ERR] = "IBV_WC_REM_ABORT_ERR",
    [IBV_WC_INV_EECN_ERR] = "IBV_WC_INV_EECN_ERR",
    [IBV_WC_INV_EEC_STATE_ERR] = "IBV_WC_INV_EEC_STATE_ERR",
    [IBV_WC_FATAL_ERR] = "IBV_WC_FATAL_ERR",
    [IBV_WC_RESP_TIMEOUT_ERR] = "IBV_WC_RESP_TIMEOUT_ERR",
    [IBV_WC_GENERAL_ERR] = "IBV_WC_GENERAL_ERR",
    [IBV_WC_TM_ERR] = "IBV_WC_TM_ERR",
    [IBV_WC_TM_RNDV_INCOMPLETE] = "IBV_WC_TM_RNDV_INCOMPLETE",
};

#define SHIM_NWC (int)(sizeof(shim_wc_names) / sizeof(shim_wc_names[0]))

/* One name per value (EAGAIN, not EWOULDBLOCK; EOPNOTSUPP, not ENOTSUP). */
static const struct {
	const char *name;
	int val;
} shim_errnos[] = {
    {"EPERM", EPERM},	      {"ENOENT", ENOENT},
    {"EINTR", EINTR},	      {"EIO", EIO},
    {"ENXIO", ENXIO},	      {"E2BIG", E2BIG},
    {"EBADF", EBADF},	      {"EAGAIN", EAGAIN},
    {"ENOMEM", ENOMEM},	      {"EACCES", EACCES},
    {"EFAULT", EFAULT},	      {"EBUSY", EBUSY},
    {"EEXIST", EEXIST},	      {"ENODEV", ENODEV},
    {"EINVAL", EINVAL},	      {"ENFILE", ENFILE},
    {"EMFILE", EMFILE},	      {"ENOSPC", ENOSPC},
    {"ERANGE", ERANGE},	      {"ENOSYS", ENOSYS},
    {"ENODATA", ENODATA},     {"EOVERFLOW", EOVERFLOW},
    {"ENOBUFS", ENOBUFS},     {"EOPNOTSUPP", EOPNOTSUPP},
    {"ETIMEDOUT", ETIMEDOUT}, {"ECANCELED", ECANCELED},
    {"EDQUOT", EDQUOT},	      {"EREMOTEIO", EREMOTEIO},
};

static const char *const shim_qps_names[] = {"RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR"};

const char *shim_qp_state_name(int state)
{
	if (state < 0 || state >= (int)(sizeof(shim_qps_names) / sizeof(shim_qps_names[0])))
		return "UNKNOWN";
	return shim_qps_names[state];
}

const char *shim_wc_status_name(int status)
{
	if (status < 0 || status >= SHIM_NWC)
		return NULL;
	return shim_wc_names[status];
}

/* A decimal integer in [min, max], the whole string; -1 when it is not one. */
static long long shim_parse_int(const char *s, long long min, long long max)
{
	char *end;
	long long v;

	if (!*s || !(isdigit((unsigned char)*s) || (*s == '-' && isdigit((unsigned char)s[1]))))
		return -1;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -1;
	return v;
}

int shim_wc_status_parse(const char *s)
{
	long long v;
	int i;

	if (!s || !*s)
		return -EINVAL;
	if (isdigit((unsigned char)*s)) {
		v = shim_parse_int(s, 0, SHIM_NWC - 1);
		return v < 0 ? -EINVAL : (int)v;
	}
	if (!strncasecmp(s, "IBV_WC_", 7))
		s += 7;
	for (i = 0; i < SHIM_NWC; i++)
		if (!strcasecmp(s, shim_wc_names[i] + 7))
			return i;
	return -EINVAL;
}

int shim_errno_parse(const char *s)
{
	long long v;
	size_t i;

	if (!s || !*s)
		return -EINVAL;
	if (isdigit((unsigned char)*s)) {
		v = shim_parse_int(s, 1, 4095);
		return v < 0 ? -EINVAL : (int)v;
	}
	for (i = 0; i < sizeof(shim_errnos) / sizeof(shim_errnos[0]); i++)
		if (!strcasecmp(s, shim_errnos[i].name))
			return shim_errnos[i].val;
	return -EINVAL;
}

const char *shim_errno_name(int e)
{
	size_t i;

	for (i = 0; i < sizeof(shim_errnos) / sizeof(shim_errnos[0]); i++)
		if (shim_errnos[i].val == e)
			return shim_errnos[i].name;
	return NULL;
}

static int shim_fmt_ret(int n, size_t len)
{
	if (n < 0)
		return -EINVAL;
	if ((size_t)n >= len)
		return -ENOSPC;
	return n;
}

int shim_cmd_format(const struct shim_cmd *c, char *buf, size_t len)
{
	const char *name;
	char ebuf[16];

	if (!c || !buf || !len)
		return -EINVAL;
	switch (c->op) {
	case SHIM_OP_QP_ERROR:
		switch (c->sel) {
		case SHIM_QP_ALL:
			return shim_fmt_ret(snprintf(buf, len, "qp_error all"), len);
		case SHIM_QP_NEXT:
			return shim_fmt_ret(snprintf(buf, len, "qp_error next"), len);
		case SHIM_QP_QPN:
			if (c->qpn > SHIM_QPN_MAX)
				return -EINVAL;
			return shim_fmt_ret(snprintf(buf, len, "qp_error qpn=%u", c->qpn), len);
		}
		return -EINVAL;
	case SHIM_OP_FAIL_WR:
		name = shim_wc_status_name(c->wc_status);
		if (!name || c->wc_status == IBV_WC_SUCCESS || c->count < 1 ||
		    c->count > SHIM_COUNT_MAX)
			return -EINVAL;
		return shim_fmt_ret(
		    snprintf(buf, len, "fail_wr count=%u status=%s", c->count, name), len);
	case SHIM_OP_FAIL_MR:
		if (c->mr_errno < 1 || c->mr_errno > 4095)
			return -EINVAL;
		name = shim_errno_name(c->mr_errno);
		if (!name) {
			snprintf(ebuf, sizeof(ebuf), "%d", c->mr_errno);
			name = ebuf;
		}
		if (c->mr_prob != 0.0) {
			if (!(c->mr_prob > 0.0 && c->mr_prob <= 1.0))
				return -EINVAL;
			return shim_fmt_ret(
			    snprintf(buf, len, "fail_mr prob=%.17g errno=%s", c->mr_prob, name),
			    len);
		}
		if (c->mr_count < 1 || c->mr_count > SHIM_COUNT_MAX)
			return -EINVAL;
		return shim_fmt_ret(
		    snprintf(buf, len, "fail_mr count=%u errno=%s", c->mr_count, name), len);
	case SHIM_OP_CLEAR:
		return shim_fmt_ret(snprintf(buf, len, "clear"), len);
	case SHIM_OP_STATUS:
		return shim_fmt_ret(snprintf(buf, len, "status"), len);
	}
	return -EINVAL;
}

__attribute__((format(printf, 3, 4))) static int shim_perr(char *err, size_t errlen,
							   const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

#define SHIM_MAX_TOK 4

/* Split @buf in place at single spaces; an empty token is an error. */
static int shim_split(char *buf, char **tok, int *ntok, char *err, size_t errlen)
{
	char *p = buf;
	int n = 0;

	for (;;) {
		char *sp = strchr(p, ' ');

		if (n == SHIM_MAX_TOK)
			return shim_perr(err, errlen,
					 "shim command has too many words (at most %d)",
					 SHIM_MAX_TOK);
		if (sp)
			*sp = '\0';
		if (!*p)
			return shim_perr(
			    err, errlen,
			    "shim command has an empty word (words are separated by one space)");
		tok[n++] = p;
		if (!sp)
			break;
		p = sp + 1;
	}
	*ntok = n;
	return 0;
}

/* "key=value" with @key among @keys; returns the key's index or -1 (sentence in err). */
static int shim_kv(const char *cmd, char *tok, const char *const *keys, int nkeys,
		   const char *expect, unsigned int *seen, char **val, char *err, size_t errlen)
{
	char *eq = strchr(tok, '=');
	int i;

	if (eq) {
		*eq = '\0';
		for (i = 0; i < nkeys; i++) {
			if (strcmp(tok, keys[i]))
				continue;
			if (*seen & (1u << i)) {
				shim_perr(err, errlen, "%s: %s= given twice", cmd, keys[i]);
				return -1;
			}
			*seen |= 1u << i;
			*val = eq + 1;
			return i;
		}
		*eq = '=';
	}
	shim_perr(err, errlen, "%s: unknown argument \"%s\" (expected %s)", cmd, tok, expect);
	return -1;
}

static int shim_parse_qp_error(char **tok, int ntok, struct shim_cmd *c, char *err, size_t errlen)
{
	long long v;

	if (ntok != 2)
		return shim_perr(err, errlen, "qp_error takes one argument: all, next or qpn=N");
	if (!strcmp(tok[1], "all")) {
		c->sel = SHIM_QP_ALL;
	} else if (!strcmp(tok[1], "next")) {
		c->sel = SHIM_QP_NEXT;
	} else if (!strncmp(tok[1], "qpn=", 4)) {
		v = shim_parse_int(tok[1] + 4, 0, SHIM_QPN_MAX);
		if (v < 0)
			return shim_perr(err, errlen,
					 "qp_error: qpn \"%s\" is not a QP number (0..%u)",
					 tok[1] + 4, SHIM_QPN_MAX);
		c->sel = SHIM_QP_QPN;
		c->qpn = (uint32_t)v;
	} else {
		return shim_perr(err, errlen,
				 "qp_error: unknown argument \"%s\" (expected all, next or qpn=N)",
				 tok[1]);
	}
	return 0;
}

static int shim_parse_count(const char *cmd, const char *v, unsigned int *out, char *err,
			    size_t errlen)
{
	long long n = shim_parse_int(v, 1, SHIM_COUNT_MAX);

	if (n < 0)
		return shim_perr(err, errlen, "%s: count \"%s\" is not an integer in 1..%d", cmd, v,
				 SHIM_COUNT_MAX);
	*out = (unsigned int)n;
	return 0;
}

static int shim_parse_fail_wr(char **tok, int ntok, struct shim_cmd *c, char *err, size_t errlen)
{
	static const char *const keys[] = {"count", "status"};
	unsigned int seen = 0;
	char *v;
	int i, k, st;

	c->count = 1;
	c->wc_status = IBV_WC_RETRY_EXC_ERR;
	for (i = 1; i < ntok; i++) {
		k = shim_kv("fail_wr", tok[i], keys, 2, "count=N or status=NAME", &seen, &v, err,
			    errlen);
		if (k < 0)
			return -EINVAL;
		if (k == 0) {
			if (shim_parse_count("fail_wr", v, &c->count, err, errlen))
				return -EINVAL;
			continue;
		}
		st = shim_wc_status_parse(v);
		if (st < 0)
			return shim_perr(err, errlen,
					 "fail_wr: status \"%s\" is not a work completion status "
					 "(e.g. IBV_WC_RETRY_EXC_ERR)",
					 v);
		if (st == IBV_WC_SUCCESS)
			return shim_perr(err, errlen,
					 "fail_wr: status IBV_WC_SUCCESS is not a failure");
		c->wc_status = st;
	}
	return 0;
}

static int shim_parse_fail_mr(char **tok, int ntok, struct shim_cmd *c, char *err, size_t errlen)
{
	static const char *const keys[] = {"count", "prob", "errno"};
	unsigned int seen = 0;
	char *v, *end;
	int i, k, e;

	c->mr_errno = ENOMEM;
	for (i = 1; i < ntok; i++) {
		k = shim_kv("fail_mr", tok[i], keys, 3, "count=N, prob=P or errno=E", &seen, &v,
			    err, errlen);
		if (k < 0)
			return -EINVAL;
		if (k == 0) {
			if (shim_parse_count("fail_mr", v, &c->mr_count, err, errlen))
				return -EINVAL;
		} else if (k == 1) {
			errno = 0;
			c->mr_prob = *v && !isspace((unsigned char)*v) ? strtod(v, &end) : NAN;
			if (isnan(c->mr_prob) || errno || *end ||
			    !(c->mr_prob > 0.0 && c->mr_prob <= 1.0))
				return shim_perr(err, errlen,
						 "fail_mr: prob \"%s\" is not a number in (0, 1]",
						 v);
		} else {
			e = shim_errno_parse(v);
			if (e < 0)
				return shim_perr(err, errlen,
						 "fail_mr: errno \"%s\" is not an errno name (e.g. "
						 "ENOMEM) or a number in 1..4095",
						 v);
			c->mr_errno = e;
		}
	}
	if ((seen & 3u) == 3u)
		return shim_perr(err, errlen, "fail_mr: give count= or prob=, not both");
	if (!(seen & 3u))
		c->mr_count = 1;
	return 0;
}

int shim_cmd_parse(const char *line, struct shim_cmd *c, char *err, size_t errlen)
{
	char buf[SHIM_LINE_MAX];
	char *tok[SHIM_MAX_TOK];
	size_t n;
	int ntok, i;

	if (!c)
		return -EINVAL;
	memset(c, 0, sizeof(*c));
	if (err && errlen)
		err[0] = '\0';
	if (!line)
		return shim_perr(err, errlen, "empty shim command");
	n = strlen(line);
	if (n && line[n - 1] == '\n')
		n--;
	if (!n)
		return shim_perr(err, errlen, "empty shim command");
	if (n >= sizeof(buf))
		return shim_perr(err, errlen, "shim command is too long (at most %d bytes)",
				 SHIM_LINE_MAX - 1);
	memcpy(buf, line, n);
	buf[n] = '\0';
	for (i = 0; i < (int)n; i++)
		if (!isprint((unsigned char)buf[i]))
			return shim_perr(
			    err, errlen,
			    "shim command contains a control or non-ASCII byte at offset %d", i);
	if (shim_split(buf, tok, &ntok, err, errlen))
		return -EINVAL;

	if (!strcmp(tok[0], "qp_error")) {
		c->op = SHIM_OP_QP_ERROR;
		return shim_parse_qp_error(tok, ntok, c, err, errlen);
	}
	if (!strcmp(tok[0], "fail_wr")) {
		c->op = SHIM_OP_FAIL_WR;
		return shim_parse_fail_wr(tok, ntok, c, err, errlen);
	}
	if (!strcmp(tok[0], "fail_mr")) {
		c->op = SHIM_OP_FAIL_MR;
		return shim_parse_fail_mr(tok, ntok, c, err, errlen);
	}
	if (!strcmp(tok[0], "clear") || !strcmp(tok[0], "status")) {
		c->op = tok[0][0] == 'c' ? SHIM_OP_CLEAR : SHIM_OP_STATUS;
		if (ntok != 1)
			return shim_perr(err, errlen, "%s takes no arguments", tok[0]);
		return 0;
	}
	return shim_perr(
	    err, errlen,
	    "unknown shim command \"%s\" (expected qp_error, fail_wr, fail_mr, clear or status)",
	    tok[0]);
}

#ifndef RC_SHIM_LIB

static long long shim_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Wait for @events on @fd until @deadline; 0, -ETIMEDOUT or -errno. */
static int shim_wait(int fd, short events, long long deadline)
{
	struct pollfd pfd = {.fd = fd, .events = events};
	long long left;
	int rc;

	for (;;) {
		left = deadline - shim_now_ms();
		if (left < 0)
			left = 0;
		rc = poll(&pfd, 1, (int)left);
		if (rc > 0)
			return 0;
		if (rc == 0)
			return -ETIMEDOUT;
		if (errno != EINTR)
			return -errno;
	}
}

/* A sentence from the workload's process goes into the agent's log: no line breaks, no escapes. */
static void shim_printable(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = '?';
}

static int shim_reply_check(const char *path, json_t *reply, char *err, size_t errlen)
{
	json_t *ok = json_object_get(reply, "ok");
	const char *msg;
	json_int_t e;

	if (json_is_true(ok))
		return 0;
	if (!json_is_false(ok)) {
		snprintf(err, errlen, "workload's shim at %s answered without a boolean \"ok\"",
			 path);
		return -EPROTO;
	}
	msg = json_string_value(json_object_get(reply, "error"));
	e = json_integer_value(json_object_get(reply, "errno"));
	if (e > 0 && e < 4096)
		snprintf(err, errlen, "workload's shim at %s refused: %s (%s)", path,
			 msg ? msg : "(no reason given)", strerror((int)e));
	else
		snprintf(err, errlen, "workload's shim at %s refused: %s", path,
			 msg ? msg : "(no reason given)");
	shim_printable(err);
	/*
	 * One code for every refusal, whatever errno the shim names: the shim is the workload's,
	 * and its ESRCH must not read as "the process is gone" (a revert taken as done), nor its
	 * EPERM as the agent's own policy refusing.
	 */
	return -EREMOTEIO;
}

/*
 * Connects fd to sa by deadline: a non-blocking unix connect says EAGAIN when the backlog is
 * full, and is retried. 0, or -ESRCH (nobody there: the process exited, or has no shim),
 * -ETIMEDOUT or another -errno with a sentence in err.
 */
static int shim_connect(int fd, const struct sockaddr_un *sa, int timeout_ms, long long deadline,
			char *err, size_t errlen)
{
	int rc;

	while (connect(fd, (const struct sockaddr *)sa, sizeof(*sa)) < 0) {
		rc = -errno;
		if (rc == -EINTR)
			continue;
		if (rc == -EAGAIN && shim_now_ms() < deadline) {
			usleep(10000);
			continue;
		}
		if (rc == -ENOENT || rc == -ECONNREFUSED || rc == -ENOTSOCK) {
			snprintf(err, errlen,
				 "workload's shim at %s is not answering: %s (the process has "
				 "exited, or was started without the shim)",
				 sa->sun_path, strerror(-rc));
			return -ESRCH;
		}
		if (rc == -EAGAIN) {
			snprintf(
			    err, errlen,
			    "workload's shim at %s is not answering within %d ms (backlog full)",
			    sa->sun_path, timeout_ms);
			return -ETIMEDOUT;
		}
		snprintf(err, errlen, "workload's shim at %s: connect: %s", sa->sun_path,
			 strerror(-rc));
		return rc;
	}
	return 0;
}

int shim_call(const char *sock_path, const struct shim_cmd *c, int timeout_ms, json_t **reply,
	      char *err, size_t errlen)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	char line[SHIM_LINE_MAX], *buf = NULL;
	long long deadline;
	json_error_t jerr;
	json_t *j = NULL;
	ssize_t n;
	int fd = -1, rc;

	if (reply)
		*reply = NULL;
	if (!sock_path || !*sock_path || !c || !reply) {
		snprintf(err, errlen,
			 "shim_call: no shim socket given (start the workload with the shim)");
		return -EINVAL;
	}
	if (strlen(sock_path) >= sizeof(sa.sun_path)) {
		snprintf(err, errlen, "shim socket path %s is longer than %zu bytes", sock_path,
			 sizeof(sa.sun_path) - 1);
		return -ENAMETOOLONG;
	}
	strcpy(sa.sun_path, sock_path);
	rc = shim_cmd_format(c, line, sizeof(line));
	if (rc < 0) {
		snprintf(err, errlen, "shim command cannot be formatted: a field is out of range");
		return rc;
	}
	if (timeout_ms <= 0)
		timeout_ms = 2000;
	deadline = shim_now_ms() + timeout_ms;

	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		rc = -errno;
		snprintf(err, errlen, "shim socket: %s", strerror(-rc));
		return rc;
	}
	rc = shim_connect(fd, &sa, timeout_ms, deadline, err, errlen);
	if (rc)
		goto out;
	rc = shim_wait(fd, POLLOUT, deadline);
	if (rc)
		goto io_err;
	if (send(fd, line, strlen(line), MSG_NOSIGNAL) < 0) {
		rc = -errno;
		goto io_err;
	}
	buf = malloc(SHIM_REPLY_MAX + 1);
	if (!buf) {
		rc = -ENOMEM;
		snprintf(err, errlen, "shim reply buffer: %s", strerror(ENOMEM));
		goto out;
	}
	for (;;) {
		rc = shim_wait(fd, POLLIN, deadline);
		if (rc)
			goto io_err;
		n = recv(fd, buf, SHIM_REPLY_MAX, MSG_TRUNC);
		if (n >= 0)
			break;
		if (errno != EINTR && errno != EAGAIN) {
			rc = -errno;
			goto io_err;
		}
	}
	if (n == 0) {
		snprintf(err, errlen,
			 "workload's shim at %s closed the connection without answering \"%s\"",
			 sock_path, line);
		rc = -EPROTO;
		goto out;
	}
	if (n > SHIM_REPLY_MAX) {
		snprintf(err, errlen, "workload's shim at %s answered %zd bytes (at most %d)",
			 sock_path, n, SHIM_REPLY_MAX);
		rc = -EPROTO;
		goto out;
	}
	j = json_loadb(buf, (size_t)n, JSON_REJECT_DUPLICATES, &jerr);
	if (!j || !json_is_object(j)) {
		snprintf(err, errlen,
			 "workload's shim at %s answered something that is not a JSON object: %s",
			 sock_path, j ? "not an object" : jerr.text);
		rc = -EPROTO;
		goto out;
	}
	rc = shim_reply_check(sock_path, j, err, errlen);
	if (rc)
		goto out;
	*reply = j;
	j = NULL;
	rc = 0;
	goto out;

io_err:
	if (rc == -ETIMEDOUT)
		snprintf(err, errlen, "workload's shim at %s did not answer \"%s\" within %d ms",
			 sock_path, line, timeout_ms);
	else if (rc == -EPIPE || rc == -ECONNRESET)
		snprintf(err, errlen, "workload's shim at %s went away while answering \"%s\": %s",
			 sock_path, line, strerror(-rc));
	else
		snprintf(err, errlen, "workload's shim at %s: %s", sock_path, strerror(-rc));
	if (rc == -EPIPE || rc == -ECONNRESET)
		rc = -ESRCH;
out:
	json_decref(j);
	free(buf);
	if (fd >= 0)
		close(fd);
	return rc;
}

#endif /* RC_SHIM_LIB */
