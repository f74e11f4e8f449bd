// SPDX-License-Identifier: MIT
/* Option parsing, defaults and range checks for rdmachaos-stream (both roles). */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/units.h"
#include "workloads/stream_args.h"

enum {
	OPT_LISTEN = 256,
	OPT_CONNECT,
	OPT_BIND,
	OPT_RAILS,
	OPT_PORT,
	OPT_OP,
	OPT_MSG_SIZE,
	OPT_QD,
	OPT_TIMEOUT,
	OPT_RETRY,
	OPT_INTERVAL,
	OPT_DURATION,
	OPT_CONNECT_TIMEOUT,
	OPT_MR_CHURN,
	OPT_TOS,
	OPT_RATE,
	OPT_BUSY_POLL,
};

static const struct option ws_longopts[] = {
    {"listen", required_argument, NULL, OPT_LISTEN},
    {"connect", required_argument, NULL, OPT_CONNECT},
    {"bind", required_argument, NULL, OPT_BIND},
    {"rails", required_argument, NULL, OPT_RAILS},
    {"port", required_argument, NULL, OPT_PORT},
    {"op", required_argument, NULL, OPT_OP},
    {"msg-size", required_argument, NULL, OPT_MSG_SIZE},
    {"queue-depth", required_argument, NULL, OPT_QD},
    {"timeout", required_argument, NULL, OPT_TIMEOUT},
    {"retry-cnt", required_argument, NULL, OPT_RETRY},
    {"interval-ms", required_argument, NULL, OPT_INTERVAL},
    {"duration", required_argument, NULL, OPT_DURATION},
    {"connect-timeout", required_argument, NULL, OPT_CONNECT_TIMEOUT},
    {"mr-churn", required_argument, NULL, OPT_MR_CHURN},
    {"tos", required_argument, NULL, OPT_TOS},
    {"rate", required_argument, NULL, OPT_RATE},
    {"busy-poll", required_argument, NULL, OPT_BUSY_POLL},
    {"verbose", no_argument, NULL, 'v'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

const char *ws_op_name(enum ws_op op)
{
	return op == WS_OP_SEND ? "send" : "write";
}

void ws_usage(const char *prog)
{
	printf(
	    "Usage: %s server --listen ADDR[,ADDR...] [options]\n"
	    "       %s client --connect ADDR[,ADDR...] [options]\n"
	    "\n"
	    "An RDMA RC stream with integrity checks and multi-rail failover, for chaos drills.\n"
	    "One rdma_cm connection (one RC QP) per rail. The client streams messages on one\n"
	    "active rail, heartbeats the standby rails, fails over on any completion error\n"
	    "(re-sending what had not completed) and fails back to the first rail once it\n"
	    "has been up for 1 s. Data only ever moves over RDMA. Output: one JSON object per\n"
	    "line on stdout (see docs/PROTOCOL.md, \"Workload lines\"); messages on stderr.\n"
	    "\n"
	    "Both roles:\n"
	    "  --op write|send       write: RDMA WRITE WITH IMM into a ring of server slots;\n"
	    "                        send: SEND into posted receives             [write]\n"
	    "  --port N              rdma_cm port                                   [18515]\n"
	    "  --msg-size SIZE       bytes per message incl. the 32-byte header, %llu..%llu\n"
	    "                        (suffixes k, KiB, M, MiB); must match on both sides [65536]\n"
	    "  --queue-depth N       client: messages in flight, 1..%d; server: the largest\n"
	    "                        client window it accepts (it posts 2N receives and\n"
	    "                        keeps 3N slots per connection)                   [8]\n"
	    "  --rails ID,ID,...     rail label of each address, 0..255       [0,1,...,n-1]\n"
	    "  --interval-ms N       period of the interval lines, 10..60000           [100]\n"
	    "  --duration D          stop after D (30, 30s, 500ms, 2m); 0 = until SIGINT or\n"
	    "                        SIGTERM                                           [0]\n"
	    "  -v, --verbose         debug messages on stderr\n"
	    "  -h, --help            this text\n"
	    "\n"
	    "Server:\n"
	    "  --listen ADDR,...     local address of each rail (rail index = position);\n"
	    "                        accepts (re)connections on every rail at any time\n"
	    "\n"
	    "Client:\n"
	    "  --connect ADDR,...    the server's address on each rail; all must connect at\n"
	    "                        start, the first is the preferred (active) rail\n"
	    "  --bind ADDR,...       local source address of each rail     [routing decides]\n"
	    "  --timeout N           QP local ACK timeout exponent, 4.096 us * 2^N, 1..31\n"
	    "                        (0 would disable retransmission: refused)         [14]\n"
	    "  --retry-cnt N         QP transport retry count, 0..7; 7 means retry forever\n"
	    "                        on Soft-RoCE (a dead link never errors)            [6]\n"
	    "  --connect-timeout D   start-up deadline for every rail to connect       [15s]\n"
	    "  --mr-churn D          every D, re-register the send buffer the way a job\n"
	    "                        does after a checkpoint: drain, register a new MR,\n"
	    "                        then release the old one; sending waits for it, and a\n"
	    "                        failed registration is retried with backoff (100 ms\n"
	    "                        doubling to 2 s), one mr_error line each  [0: never]\n"
	    "  --tos N               IP TOS byte of the RoCEv2 packets, 0..255 (DSCP << 2;\n"
	    "                        106 = DSCP 26, priority 3 in the usual RoCE mapping)\n"
	    "                                                         [the kernel's default]\n"
	    "  --rate R              send new messages at most this fast: a job at a steady\n"
	    "                        rate, e.g. 4MB/s, 500KB/s, 10Gbit/s, 4MiB/s; re-sends\n"
	    "                        and heartbeats are not paced, and a stall is not made\n"
	    "                        up later (no burst above two messages)  [0: as fast as\n"
	    "                                                          the fabric allows]\n"
	    "  --busy-poll US        while messages are in flight, poll the active rail's\n"
	    "                        completion queue without sleeping until US microseconds\n"
	    "                        pass with no completion, 0..1000000, as ib_write_bw and\n"
	    "                        NCCL poll: for fast links, where a wakeup per completion\n"
	    "                        costs more than the gap between them; up to one CPU\n"
	    "                        while data flows                    [0: sleep at once]\n"
	    "\n"
	    "Throughput in interval lines: \"mbps\" is megaBYTES per second (10^6 B/s; the\n"
	    "MB/sec of ib_write_bw is 2^20 B/s, so mbps x 0.9537 compares with it); \"mbit_s\"\n"
	    "is the same rate in megabits per second.\n"
	    "\n"
	    "Exit status: 0 after a clean stop, 1 on a start-up or fatal error, 2 on bad usage.\n"
	    "\n"
	    "Example (node-b serves two rails, node-a streams 64 KiB writes for 30 s):\n"
	    "  node-b$ %s server --listen 192.0.2.2,192.0.2.66 --op write\n"
	    "  node-a$ %s client --connect 192.0.2.2,192.0.2.66 --rails 0,1 --op write \\\n"
	    "              --msg-size 64KiB --queue-depth 8 --timeout 14 --retry-cnt 6 \\\n"
	    "              --duration 30\n",
	    prog, prog, WS_MSG_SIZE_MIN, WS_MSG_SIZE_MAX, WS_QD_MAX, prog, prog);
}

static int ws_fail(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int ws_fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* A whole decimal number in [min, max]; nothing else accepted. */
static int ws_parse_uint(const char *s, unsigned long long min, unsigned long long max,
			 unsigned long long *val)
{
	char *end;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	*val = strtoull(s, &end, 10);
	if (errno || *end || *val < min || *val > max)
		return -EINVAL;
	return 0;
}

/* Splits a comma list into at most WS_MAX_RAILS non-empty items of < WS_ADDR_MAX bytes. */
static int ws_split(const char *opt, const char *s, char out[][WS_ADDR_MAX], int *n, char *err,
		    size_t errlen)
{
	const char *p = s, *comma;
	size_t len;

	*n = 0;
	for (;;) {
		comma = strchr(p, ',');
		len = comma ? (size_t)(comma - p) : strlen(p);
		if (!len)
			return ws_fail(err, errlen, "--%s: empty item in \"%s\"", opt, s);
		if (len >= WS_ADDR_MAX)
			return ws_fail(err, errlen, "--%s: item too long in \"%s\"", opt, s);
		if (*n == WS_MAX_RAILS)
			return ws_fail(err, errlen, "--%s: more than %d rails in \"%s\"", opt,
				       WS_MAX_RAILS, s);
		memcpy(out[*n], p, len);
		out[*n][len] = '\0';
		(*n)++;
		if (!comma)
			return 0;
		p = comma + 1;
	}
}

static void ws_defaults(struct ws_opts *o)
{
	int i;

	memset(o, 0, sizeof(*o));
	o->op = WS_OP_WRITE;
	o->port = 18515;
	o->msg_size = 65536;
	o->queue_depth = 8;
	o->ack_timeout = 14;
	o->retry_cnt = 6;
	o->interval_ms = 100;
	o->tos = -1;
	o->connect_timeout_ms = 15000;
	for (i = 0; i < WS_MAX_RAILS; i++)
		o->rail_id[i] = i;
}

/* Options given on the command line, for the cross-checks after the loop. */
struct ws_seen {
	int listen, connect, bind, rails, timeout, retry, connect_timeout, mr_churn, tos, rate,
	    busy_poll;
	int nbind, nrails;
	char rail_ids[WS_MAX_RAILS][WS_ADDR_MAX];
};

static int ws_check_rails(struct ws_opts *o, struct ws_seen *seen, char *err, size_t errlen)
{
	unsigned long long v;
	int i, j;

	if (seen->rails) {
		if (seen->nrails != o->nrails)
			return ws_fail(err, errlen,
				       "--rails has %d ids but there are %d addresses: give one id "
				       "per address",
				       seen->nrails, o->nrails);
		for (i = 0; i < seen->nrails; i++) {
			if (ws_parse_uint(seen->rail_ids[i], 0, 255, &v))
				return ws_fail(err, errlen,
					       "--rails: \"%s\" is not a rail id (0..255)",
					       seen->rail_ids[i]);
			o->rail_id[i] = (int)v;
			for (j = 0; j < i; j++)
				if (o->rail_id[j] == o->rail_id[i])
					return ws_fail(err, errlen, "--rails: rail %d listed twice",
						       o->rail_id[i]);
		}
	}
	if (seen->bind && seen->nbind != o->nrails)
		return ws_fail(err, errlen,
			       "--bind has %d addresses but --connect has %d: give one per rail",
			       seen->nbind, o->nrails);
	return 0;
}

static int ws_check_role(struct ws_opts *o, struct ws_seen *seen, char *err, size_t errlen)
{
	uint64_t ring;

	if (o->role == WS_ROLE_SERVER) {
		if (seen->connect || seen->bind || seen->timeout || seen->retry ||
		    seen->connect_timeout || seen->mr_churn || seen->tos || seen->rate ||
		    seen->busy_poll)
			return ws_fail(
			    err, errlen,
			    "--connect, --bind, --timeout, --retry-cnt, "
			    "--connect-timeout, --mr-churn, --tos, --rate and --busy-poll "
			    "are client options");
		if (!seen->listen)
			return ws_fail(err, errlen, "server: --listen ADDR[,ADDR...] is required");
		ring = 3ULL * o->queue_depth * o->msg_size;
		if (ring > WS_RING_BYTES_MAX)
			return ws_fail(err, errlen,
				       "--queue-depth %u x --msg-size %u: the server's ring of 3 x "
				       "queue-depth messages (%llu bytes) exceeds %llu bytes",
				       o->queue_depth, o->msg_size, (unsigned long long)ring,
				       WS_RING_BYTES_MAX);
	} else {
		if (seen->listen)
			return ws_fail(err, errlen, "--listen is a server option");
		if (!seen->connect)
			return ws_fail(err, errlen, "client: --connect ADDR[,ADDR...] is required");
	}
	return ws_check_rails(o, seen, err, errlen);
}

/* One option with a value (getopt's c and its argument) into o and seen; 0 or -EINVAL. */
/* The options of time and pace: --duration, --mr-churn, --rate, --connect-timeout. */
static int ws_parse_time_opt(int c, const char *arg, struct ws_opts *o, struct ws_seen *seen,
			     char *err, size_t errlen)
{
	uint64_t u;

	switch (c) {
	case OPT_DURATION:
		if (rc_parse_duration_ms(arg, &u))
			return ws_fail(err, errlen,
				       "--duration: \"%s\" is not a duration (30, 30s, 500ms, "
				       "2m; 0 = until a signal)",
				       arg);
		o->duration_ms = u;
		break;
	case OPT_MR_CHURN:
		seen->mr_churn = 1;
		if (rc_parse_duration_ms(arg, &u) || (u && u < 100))
			return ws_fail(err, errlen,
				       "--mr-churn: \"%s\" is not a duration of at least "
				       "100ms (or 0: never)",
				       arg);
		o->mr_churn_ms = u;
		break;
	case OPT_RATE:
		seen->rate = 1;
		if (rc_parse_rate(arg, &u))
			return ws_fail(err, errlen,
				       "--rate: \"%s\" is not a rate (e.g. 4MB/s, 500KB/s, "
				       "10Gbit/s, 4MiB/s; 0B/s: as fast as possible)",
				       arg);
		o->rate = u;
		break;
	case OPT_CONNECT_TIMEOUT:
		seen->connect_timeout = 1;
		if (rc_parse_duration_ms(arg, &u) || u < 100)
			return ws_fail(err, errlen,
				       "--connect-timeout: \"%s\" is not a duration of at "
				       "least 100ms",
				       arg);
		o->connect_timeout_ms = u;
		break;
	}
	return 0;
}

static int ws_parse_opt(int c, const char *arg, struct ws_opts *o, struct ws_seen *seen, char *err,
			size_t errlen)
{
	unsigned long long v;
	uint64_t u;
	int ret;

	switch (c) {
	case OPT_LISTEN:
	case OPT_CONNECT:
		if (c == OPT_LISTEN)
			seen->listen = 1;
		else
			seen->connect = 1;
		ret = ws_split(c == OPT_LISTEN ? "listen" : "connect", arg, o->addr, &o->nrails,
			       err, errlen);
		if (ret)
			return ret;
		break;
	case OPT_BIND:
		seen->bind = 1;
		ret = ws_split("bind", arg, o->bind, &seen->nbind, err, errlen);
		if (ret)
			return ret;
		break;
	case OPT_RAILS:
		seen->rails = 1;
		ret = ws_split("rails", arg, seen->rail_ids, &seen->nrails, err, errlen);
		if (ret)
			return ret;
		break;
	case OPT_PORT:
		if (ws_parse_uint(arg, 1, 65535, &v))
			return ws_fail(err, errlen, "--port: \"%s\" is not a port (1..65535)", arg);
		o->port = (uint16_t)v;
		break;
	case OPT_OP:
		if (!strcmp(arg, "write"))
			o->op = WS_OP_WRITE;
		else if (!strcmp(arg, "send"))
			o->op = WS_OP_SEND;
		else
			return ws_fail(err, errlen, "--op: \"%s\": use write or send", arg);
		break;
	case OPT_MSG_SIZE:
		if (rc_parse_size(arg, &u) || u < WS_MSG_SIZE_MIN || u > WS_MSG_SIZE_MAX)
			return ws_fail(err, errlen,
				       "--msg-size: \"%s\" is not a size in %llu..%llu bytes "
				       "(e.g. 4096, 64KiB, 1MiB)",
				       arg, WS_MSG_SIZE_MIN, WS_MSG_SIZE_MAX);
		o->msg_size = (uint32_t)u;
		break;
	case OPT_QD:
		if (ws_parse_uint(arg, 1, WS_QD_MAX, &v))
			return ws_fail(err, errlen, "--queue-depth: \"%s\" is not in 1..%d", arg,
				       WS_QD_MAX);
		o->queue_depth = (uint32_t)v;
		break;
	case OPT_TIMEOUT:
		seen->timeout = 1;
		if (ws_parse_uint(arg, 0, 31, &v))
			return ws_fail(err, errlen, "--timeout: \"%s\" is not in 1..31", arg);
		if (!v)
			return ws_fail(err, errlen,
				       "--timeout 0 disables the retransmit timer: a lost "
				       "packet would hang the QP forever; use 1..31");
		o->ack_timeout = (uint8_t)v;
		break;
	case OPT_RETRY:
		seen->retry = 1;
		if (ws_parse_uint(arg, 0, 7, &v))
			return ws_fail(err, errlen, "--retry-cnt: \"%s\" is not in 0..7", arg);
		o->retry_cnt = (uint8_t)v;
		break;
	case OPT_INTERVAL:
		if (ws_parse_uint(arg, 10, 60000, &v))
			return ws_fail(err, errlen,
				       "--interval-ms: \"%s\" is not in 10..60000 (ms)", arg);
		o->interval_ms = (uint32_t)v;
		break;
	case OPT_BUSY_POLL:
		seen->busy_poll = 1;
		if (ws_parse_uint(arg, 0, WS_BUSY_POLL_US_MAX, &v))
			return ws_fail(err, errlen,
				       "--busy-poll: \"%s\" is not in 0..%d (microseconds)", arg,
				       WS_BUSY_POLL_US_MAX);
		o->busy_poll_us = (uint32_t)v;
		break;
	case OPT_TOS:
		seen->tos = 1;
		if (ws_parse_uint(arg, 0, 255, &v))
			return ws_fail(err, errlen, "--tos: \"%s\" is not in 0..255", arg);
		o->tos = (int)v;
		break;
	case OPT_DURATION:
	case OPT_MR_CHURN:
	case OPT_RATE:
	case OPT_CONNECT_TIMEOUT:
		return ws_parse_time_opt(c, arg, o, seen, err, errlen);
	default:
		return ws_fail(err, errlen, "unknown option (see --help)");
	}
	return 0;
}

int ws_parse_args(int argc, char **argv, struct ws_opts *o, char *err, size_t errlen)
{
	struct ws_seen seen;
	int c, ret;

	ws_defaults(o);
	memset(&seen, 0, sizeof(seen));
	if (errlen)
		err[0] = '\0';
	if (argc < 2)
		return ws_fail(err, errlen, "missing role: server or client (see --help)");
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		ws_usage(argv[0]);
		return 1;
	}
	if (argv[1][0] == '-')
		return ws_fail(err, errlen,
			       "missing role: the first argument is server or client, not \"%s\"",
			       argv[1]);
	if (!strcmp(argv[1], "server"))
		o->role = WS_ROLE_SERVER;
	else if (!strcmp(argv[1], "client"))
		o->role = WS_ROLE_CLIENT;
	else
		return ws_fail(err, errlen, "unknown role \"%s\": use server or client", argv[1]);

	/* optind = 0 re-initialises GNU getopt, so the tests can parse many vectors. */
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc - 1, argv + 1, ":vh", ws_longopts, NULL)) != -1) {
		switch (c) {
		case 'v':
			o->verbose = true;
			break;
		case 'h':
			ws_usage(argv[0]);
			return 1;
		/* getopt saw argv + 1, so its argv[optind - 1] is our argv[optind]. */
		case ':':
			return ws_fail(err, errlen, "%s needs a value", argv[optind]);
		case '?':
			return ws_fail(err, errlen, "unknown option \"%s\" (see --help)",
				       argv[optind]);
		default:
			ret = ws_parse_opt(c, optarg, o, &seen, err, errlen);
			if (ret)
				return ret;
		}
	}
	if (optind < argc - 1)
		return ws_fail(err, errlen, "unexpected argument \"%s\"", argv[optind + 1]);

	ret = ws_check_role(o, &seen, err, errlen);
	if (ret)
		return ret;
	if (o->role == WS_ROLE_CLIENT && o->retry_cnt == 7)
		rc_warn("--retry-cnt 7 means \"retry forever\" on Soft-RoCE (rxe): a dead rail "
			"never completes with an error, so failover will not happen; use 0..6");
	return 0;
}
