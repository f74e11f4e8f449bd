// SPDX-License-Identifier: MIT
/* The agent's command line: parsing and checking without side effects, and --help. */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "agents/agent.h"
#include "agents/agent_config.h"
#include "agents/agent_pfc.h"
#include "common/errbuf.h"

enum {
	OPT_NAME = 'n',
	OPT_LISTEN = 'l',
	OPT_HELP = 'h',
	OPT_VERBOSE = 'v',
	OPT_CONTROL_IF = 256,
	OPT_ALLOW_IF,
	OPT_RAIL_MAP,
	OPT_LOG_FILE,
	OPT_STATE_DIR,
	OPT_CONFIG,
	OPT_AUDIT_LOG,
	OPT_TLS_DIR,
	OPT_TLS_CERT,
	OPT_TLS_KEY,
	OPT_TLS_CA,
	OPT_ALLOW_PEER,
	OPT_INSECURE,
	OPT_PFC_EMULATE,
	OPT_PFC_WATCHDOG,
	OPT_RUN_DIR,
	OPT_CGROUP_ROOT,
	OPT_METRICS_LISTEN,
	OPT_ALLOW_JOB,
};

static const struct option agent_long_opts[] = {
    {"name", required_argument, NULL, OPT_NAME},
    {"listen", required_argument, NULL, OPT_LISTEN},
    {"control-if", required_argument, NULL, OPT_CONTROL_IF},
    {"allow-if", required_argument, NULL, OPT_ALLOW_IF},
    {"rail-map", required_argument, NULL, OPT_RAIL_MAP},
    {"log-file", required_argument, NULL, OPT_LOG_FILE},
    {"state-dir", required_argument, NULL, OPT_STATE_DIR},
    {"config", required_argument, NULL, OPT_CONFIG},
    {"audit-log", required_argument, NULL, OPT_AUDIT_LOG},
    {"tls-dir", required_argument, NULL, OPT_TLS_DIR},
    {"tls-cert", required_argument, NULL, OPT_TLS_CERT},
    {"tls-key", required_argument, NULL, OPT_TLS_KEY},
    {"tls-ca", required_argument, NULL, OPT_TLS_CA},
    {"allow-peer", required_argument, NULL, OPT_ALLOW_PEER},
    {"insecure-plaintext", no_argument, NULL, OPT_INSECURE},
    {"pfc-emulate", no_argument, NULL, OPT_PFC_EMULATE},
    {"pfc-watchdog-ms", required_argument, NULL, OPT_PFC_WATCHDOG},
    {"run-dir", required_argument, NULL, OPT_RUN_DIR},
    {"cgroup-root", required_argument, NULL, OPT_CGROUP_ROOT},
    {"metrics-listen", required_argument, NULL, OPT_METRICS_LISTEN},
    {"allow-job", required_argument, NULL, OPT_ALLOW_JOB},
    {"verbose", no_argument, NULL, OPT_VERBOSE},
    {"help", no_argument, NULL, OPT_HELP},
    {NULL, 0, NULL, 0},
};

void agent_opts_usage(FILE *f)
{
	fputs(
	    "Usage: rdmachaos-agent --name NODE --listen ADDR:PORT [options]\n"
	    "\n"
	    "The rdmachaos node agent. It serves coordinator requests (docs/PROTOCOL.md),\n"
	    "injects and reverts faults on the netdevs it is allowed to touch, runs\n"
	    "rdmachaos-stream workloads, and streams link, port, counter, fault and\n"
	    "workload events to subscribed coordinators.\n"
	    "\n"
	    "Required:\n"
	    "  --name NODE            this node's name in events and reports ([A-Za-z0-9._-], <= "
	    "63)\n"
	    "  --listen ADDR:PORT     IPv4 address and TCP port for coordinators, e.g. "
	    "127.0.0.1:17700\n"
	    "                         (0.0.0.0 listens on every address)\n"
	    "\n"
	    "Options:\n"
	    "  --control-if IF        an interface the agent never faults (default: none named).\n"
	    "                         Whatever interface carries a coordinator connection is\n"
	    "                         refused too, from the first connection on.\n"
	    "  --allow-if IF,IF...    netdevs the agent may fault; repeatable (default: none,\n"
	    "                         so every inject is refused)\n"
	    "  --rail-map IF,IF,...   rail index -> netdev, the first IF is rail 0\n"
	    "                         (default: a netdev named railN is rail N)\n"
	    "  --log-file PATH        append log lines and workload stderr to PATH (default: "
	    "stderr)\n"
	    "  --state-dir DIR        the revert journal: a record per active fault, so that\n"
	    "                         faults left applied by a killed agent are reverted at\n"
	    "                         its next start; one directory per agent, must be\n"
	    "                         writable (default: " AGENT_JOURNAL_DEFAULT_DIR ")\n"
	    "  --config FILE          the policy file (agents/README.md): injectors, netdevs,\n"
	    "                         devices, caps; it must exist (default:\n"
	    "                         " AGENT_CONFIG_DEFAULT " if it exists). --allow-if\n"
	    "                         replaces its netdevs and devices, --control-if its\n"
	    "                         control_if\n"
	    "  --audit-log FILE       append a JSON line per request answered to FILE, or\n"
	    "                         none (default: " AGENT_AUDIT_DEFAULT ")\n"
	    "  --tls-dir DIR          mutual TLS credentials, required (or the three files\n"
	    "                         below): DIR/ca.crt (the CA every coordinator must come\n"
	    "                         from), DIR/NODE.crt and DIR/NODE.key (NODE = --name);\n"
	    "                         made by `rdmachaos certs`\n"
	    "  --tls-cert, --tls-key, --tls-ca FILE\n"
	    "                         each file on its own (wins over --tls-dir's)\n"
	    "  --allow-peer NAME,...  the coordinator identities accepted: a certificate CN or\n"
	    "                         SAN DNS name; repeatable (default: coordinator)\n"
	    "  --insecure-plaintext   no TLS: for tests, and only with a loopback --listen\n"
	    "  --pfc-emulate          lab only: act on the PFC and PAUSE frames the rails\n"
	    "                         receive, which virtio-net and Soft-RoCE ignore: hold\n"
	    "                         (never drop) a paused priority's IPv4 egress (priority\n"
	    "                         = TOS >> 5) in prio/plug qdiscs (handle 8808:) until\n"
	    "                         the pause runs out. Off by default: a hardware NIC\n"
	    "                         pauses by itself\n"
	    "  --pfc-watchdog-ms MS   PFC storm watchdog: a priority paused continuously for\n"
	    "                         longer than MS raises storm_detected; 0 turns it off\n"
	    "                         (default: 100, mlx5's pfc_prevention_tout)\n"
	    "  --run-dir DIR          run-time files: the control sockets of workloads started\n"
	    "                         with the verbs shim, in DIR/shim/ (mode 0700)\n"
	    "                         (default: " AGENT_RUN_DIR_DEFAULT ")\n"
	    "  --cgroup-root DIR      the cgroup v2 folder under which workloads started with\n"
	    "                         \"cgroup\": true get DIR/WL_ID, with the rdma controller\n"
	    "                         enabled (default: " AGENT_CGROUP_ROOT_DEFAULT ")\n"
	    "  --allow-job PATH,...   the programs a job workload may run (absolute paths,\n"
	    "                         matched by identity, not by name); repeatable (default:\n"
	    "                         the policy file's jobs, else none: every job refused).\n"
	    "                         A job runs as the agent does, as root: list only what\n"
	    "                         your drills need, e.g. /usr/bin/ib_write_bw\n"
	    "  --metrics-listen ADDR:PORT\n"
	    "                         serve Prometheus metrics (text format 0.0.4) at\n"
	    "                         http://ADDR:PORT/metrics, e.g. 127.0.0.1:9464; plain\n"
	    "                         HTTP, read-only (default: off)\n"
	    "  --verbose              log debug lines too (every event sent)\n"
	    "  --help                 print this text and exit\n"
	    "\n"
	    "Signals: SIGTERM or SIGINT reverts every active fault, verifies it, stops the\n"
	    "workloads and exits.\n"
	    "Exit status: 0 stopped cleanly (all faults reverted and verified), 1 run-time\n"
	    "failure or a fault not verified at exit, 2 bad command line, 78 bad policy\n"
	    "file (the error names FILE:LINE: key).\n"
	    "\n"
	    "Example:\n"
	    "  rdmachaos-agent --name node-a --listen 0.0.0.0:7707 \\\n"
	    "      --tls-dir /etc/rdmachaos/pki --control-if eth0 \\\n"
	    "      --allow-if rail0,rail1 --rail-map rail0,rail1\n",
	    f);
}

static bool agent_ifname_ok(const char *s, size_t len)
{
	size_t i;

	if (!len || len >= IF_NAMESIZE)
		return false;
	for (i = 0; i < len; i++)
		if (s[i] == '/' || s[i] == ':' || isspace((unsigned char)s[i]) ||
		    !isprint((unsigned char)s[i]))
			return false;
	return true;
}

/* Appends the comma-separated interface names of arg to names[*nr]. */
/* --allow-job PATH,PATH...: absolute paths, appended to o->jobs. */
static int agent_joblist_parse(const char *arg, struct agent_opts *o, char *err, size_t errlen)
{
	const char *p = arg;

	for (;;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p), i;

		for (i = 0; i < len && !iscntrl((unsigned char)p[i]); i++)
			;
		if (!len || p[0] != '/' || len >= AGENT_JOB_PATH_LEN || i < len)
			return errbuf_fail(err, errlen, -EINVAL,
					   "--allow-job '%s': '%.*s' is not a program's absolute "
					   "path (at most %d characters; separate paths with "
					   "commas)",
					   arg, (int)len, p, AGENT_JOB_PATH_LEN - 1);
		if (o->nr_jobs == AGENT_MAX_JOB_PROGRAMS)
			return errbuf_fail(err, errlen, -EINVAL,
					   "--allow-job: more than %d programs",
					   AGENT_MAX_JOB_PROGRAMS);
		memcpy(o->jobs[o->nr_jobs], p, len);
		o->jobs[o->nr_jobs++][len] = '\0';
		if (!end)
			return 0;
		p = end + 1;
	}
}

static int agent_iflist_parse(const char *flag, const char *arg, char (*names)[IF_NAMESIZE],
			      unsigned int max, unsigned int *nr, char *err, size_t errlen)
{
	const char *p = arg;

	for (;;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		unsigned int i;

		if (!agent_ifname_ok(p, len))
			return errbuf_fail(
			    err, errlen, -EINVAL,
			    "%s '%s': '%.*s' is not an interface name (1..%d characters, "
			    "no '/', ':' or spaces; separate names with commas)",
			    flag, arg, (int)len, p, IF_NAMESIZE - 1);
		for (i = 0; i < *nr; i++)
			if (strlen(names[i]) == len && !strncmp(names[i], p, len))
				return errbuf_fail(err, errlen, -EINVAL,
						   "%s '%s': %.*s is listed twice", flag, arg,
						   (int)len, p);
		if (*nr == max)
			return errbuf_fail(err, errlen, -EINVAL, "%s '%s': more than %u interfaces",
					   flag, arg, max);
		memcpy(names[*nr], p, len);
		names[*nr][len] = '\0';
		(*nr)++;
		if (!end)
			return 0;
		p = end + 1;
	}
}

/* --listen, --metrics-listen: IPv4 ADDR:PORT into host and *port; eg is an example. */
static int agent_addr_parse(const char *flag, const char *eg, const char *arg, char *host,
			    size_t hostlen, uint16_t *port, char *err, size_t errlen)
{
	const char *colon = strrchr(arg, ':');
	struct in_addr in;
	char *end;
	unsigned long v;
	size_t hlen;

	if (!colon)
		return errbuf_fail(err, errlen, -EINVAL, "%s '%s': expected ADDR:PORT, e.g. %s",
				   flag, arg, eg);
	hlen = (size_t)(colon - arg);
	if (!hlen || hlen >= hostlen)
		return errbuf_fail(err, errlen, -EINVAL, "%s '%s': ADDR is missing; use e.g. %s",
				   flag, arg, eg);
	memcpy(host, arg, hlen);
	host[hlen] = '\0';
	if (inet_pton(AF_INET, host, &in) != 1)
		return errbuf_fail(err, errlen, -EINVAL,
				   "%s '%s': '%s' is not an IPv4 address (use e.g. 127.0.0.1 "
				   "or 0.0.0.0)",
				   flag, arg, host);
	errno = 0;
	v = strtoul(colon + 1, &end, 10);
	if (errno || end == colon + 1 || *end || !isdigit((unsigned char)colon[1]) || !v ||
	    v > 65535)
		return errbuf_fail(err, errlen, -EINVAL,
				   "%s '%s': PORT must be a number in 1..65535", flag, arg);
	*port = (uint16_t)v;
	return 0;
}

static int agent_name_parse(const char *arg, struct agent_opts *o, char *err, size_t errlen)
{
	size_t i, len = strlen(arg);

	if (!len || len >= sizeof(o->name))
		return errbuf_fail(err, errlen, -EINVAL, "--name '%s': must be 1..%zu characters",
				   arg, sizeof(o->name) - 1);
	for (i = 0; i < len; i++)
		if (!isalnum((unsigned char)arg[i]) && !strchr("._-", arg[i]))
			return errbuf_fail(
			    err, errlen, -EINVAL,
			    "--name '%s': use only letters, digits, '.', '_' and '-'", arg);
	memcpy(o->name, arg, len + 1);
	return 0;
}

/*
 * --run-dir, --cgroup-root: an absolute path, kept without trailing '/'. The
 * paths made under it must still fit their limits (a unix socket's 107
 * bytes, a cgroup path's 255): workload_start checks that, per wl_id.
 */
static int agent_dir_opt(const char *flag, const char *arg, char *dst, size_t len, char *err,
			 size_t errlen)
{
	size_t n = strlen(arg);

	while (n > 1 && arg[n - 1] == '/')
		n--;
	if (arg[0] != '/' || n >= len)
		return errbuf_fail(err, errlen, -EINVAL, "%s '%s': give an absolute directory path",
				   flag, arg);
	memcpy(dst, arg, n);
	dst[n] = '\0';
	return 0;
}

/* --pfc-watchdog-ms: 0 (off) .. AGENT_PFC_WATCHDOG_MS_MAX. */
static int agent_pfc_watchdog_opt(const char *arg, struct agent_opts *o, char *err, size_t errlen)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(arg, &end, 10);
	if (errno || end == arg || *end || !isdigit((unsigned char)arg[0]) ||
	    v > AGENT_PFC_WATCHDOG_MS_MAX)
		return errbuf_fail(err, errlen, -EINVAL,
				   "--pfc-watchdog-ms '%s': give milliseconds in 0..%d (0 turns "
				   "the PFC storm watchdog off)",
				   arg, AGENT_PFC_WATCHDOG_MS_MAX);
	o->pfc_watchdog_ms = (unsigned int)v;
	return 0;
}

/* A TLS flag; 0 or -EINVAL with a sentence. */
static int agent_tls_opt(int c, const char *arg, struct agent_opts *o, char *err, size_t errlen)
{
	static const char *const flags[] = {"--tls-dir", "--tls-cert", "--tls-key", "--tls-ca"};
	char *files[] = {o->tls_dir, o->tls_cert, o->tls_key, o->tls_ca};
	const char *p = arg;
	unsigned int i = (unsigned int)(c - OPT_TLS_DIR);

	if (c == OPT_INSECURE) {
		o->insecure_plaintext = true;
		return 0;
	}
	if (c != OPT_ALLOW_PEER) {
		if (!*arg || strlen(arg) >= sizeof(o->tls_dir))
			return errbuf_fail(err, errlen, -EINVAL, "%s: give a path", flags[i]);
		strcpy(files[i], arg);
		return 0;
	}
	for (;;) {
		const char *end = strchr(p, ',');
		size_t k, len = end ? (size_t)(end - p) : strlen(p);

		for (k = 0; k < len; k++)
			if (!isalnum((unsigned char)p[k]) && !strchr("._:-", p[k]))
				break;
		if (!len || k < len || len >= AGENT_NAME_LEN)
			return errbuf_fail(
			    err, errlen, -EINVAL,
			    "--allow-peer '%s': '%.*s' is not a certificate name (letters, "
			    "digits, '.', '_', ':', '-'; names separated by commas)",
			    arg, (int)len, p);
		if (o->nr_allow_peer == AGENT_MAX_PEERS)
			return errbuf_fail(err, errlen, -EINVAL, "--allow-peer: more than %d names",
					   AGENT_MAX_PEERS);
		memcpy(o->allow_peer[o->nr_allow_peer], p, len);
		o->allow_peer[o->nr_allow_peer++][len] = '\0';
		if (!end)
			return 0;
		p = end + 1;
	}
}

/* Plaintext only where nobody else can connect; TLS needs a whole set of files. */
static int agent_tls_opts_check(const struct agent_opts *o, char *err, size_t errlen)
{
	bool any = o->tls_dir[0] || o->tls_cert[0] || o->tls_key[0] || o->tls_ca[0];
	struct in_addr in;

	if (o->insecure_plaintext) {
		if (any || o->nr_allow_peer)
			return errbuf_fail(err, errlen, -EINVAL,
					   "--insecure-plaintext turns TLS off: drop it or the "
					   "--tls-*/--allow-peer flags");
		if (inet_pton(AF_INET, o->listen_host, &in) != 1 || (ntohl(in.s_addr) >> 24) != 127)
			return errbuf_fail(
			    err, errlen, -EINVAL,
			    "--insecure-plaintext needs a loopback --listen (127.0.0.0/8), not %s: "
			    "anyone who reached it could inject faults; use --tls-dir",
			    o->listen_host);
		return 0;
	}
	if (!o->tls_dir[0] && any && !(o->tls_cert[0] && o->tls_key[0] && o->tls_ca[0]))
		return errbuf_fail(err, errlen, -EINVAL,
				   "--tls-cert, --tls-key and --tls-ca go together (or give "
				   "--tls-dir DIR for the ones left out)");
	return 0;
}

/* Cross-flag rules, once everything is read. */
static int agent_opts_check(const struct agent_opts *o, char *err, size_t errlen)
{
	unsigned int i;

	if (!o->name[0])
		return errbuf_fail(err, errlen, -EINVAL,
				   "--name is required: give this node's name, e.g. "
				   "--name node-a");
	if (!o->listen_port)
		return errbuf_fail(err, errlen, -EINVAL,
				   "--listen is required: give the address for "
				   "coordinators, e.g. --listen 127.0.0.1:17700");
	if (o->metrics_port && o->metrics_port == o->listen_port &&
	    (!strcmp(o->metrics_host, o->listen_host) || !strcmp(o->metrics_host, "0.0.0.0") ||
	     !strcmp(o->listen_host, "0.0.0.0")))
		return errbuf_fail(err, errlen, -EINVAL,
				   "--metrics-listen %s:%u: --listen serves the coordinators "
				   "there; give the metrics another port",
				   o->metrics_host, o->metrics_port);
	for (i = 0; o->control_if[0] && i < o->nr_allow; i++) {
		char alias[IF_NAMESIZE + 32];

		if (agent_policy_same_netdev(o->allow[i], o->control_if))
			return errbuf_fail(
			    err, errlen, -EINVAL,
			    "--allow-if %s: %s is the --control-if%s, which the agent never "
			    "faults; remove it from one of the two flags",
			    o->allow[i], o->allow[i],
			    agent_policy_alias_note(o->allow[i], o->control_if, alias,
						    sizeof(alias)));
	}
	return agent_tls_opts_check(o, err, errlen);
}

/* --state-dir, --config, --audit-log, --log-file: a path that fits; --config only once. */
static int agent_path_opt(int c, const char *arg, struct agent_opts *o, char *err, size_t errlen)
{
	switch (c) {
	case OPT_STATE_DIR:
		if (!*arg || strlen(arg) >= sizeof(o->state_dir))
			return errbuf_fail(err, errlen, -EINVAL,
					   "--state-dir: give a directory path");
		strcpy(o->state_dir, arg);
		return 0;
	case OPT_CONFIG:
		if (o->config[0])
			return errbuf_fail(err, errlen, -EINVAL, "--config given twice");
		if (!*arg || strlen(arg) >= sizeof(o->config))
			return errbuf_fail(err, errlen, -EINVAL, "--config: give a file path");
		strcpy(o->config, arg);
		return 0;
	case OPT_AUDIT_LOG:
		if (!*arg || strlen(arg) >= sizeof(o->audit_log) || !strcmp(arg, "-"))
			return errbuf_fail(err, errlen, -EINVAL,
					   "--audit-log: give a file path, or none");
		strcpy(o->audit_log, arg);
		return 0;
	default: /* OPT_LOG_FILE */
		if (!*arg || strlen(arg) >= sizeof(o->log_file))
			return errbuf_fail(err, errlen, -EINVAL, "--log-file: give a file path");
		strcpy(o->log_file, arg);
		return 0;
	}
}

int agent_opts_parse(int argc, char **argv, struct agent_opts *o, char *err, size_t errlen)
{
	bool rail_map_seen = false;
	int c, ret;

	memset(o, 0, sizeof(*o));
	strcpy(o->state_dir, AGENT_JOURNAL_DEFAULT_DIR);
	o->pfc_watchdog_ms = AGENT_PFC_WATCHDOG_MS_DEFAULT;
	strcpy(o->run_dir, AGENT_RUN_DIR_DEFAULT);
	strcpy(o->cgroup_root, AGENT_CGROUP_ROOT_DEFAULT);
	err[0] = '\0';
	optind = 0; /* full re-initialisation, so tests can parse several times */
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":hv", agent_long_opts, NULL)) != -1) {
		switch (c) {
		case OPT_HELP:
			return AGENT_OPTS_HELP;
		case OPT_VERBOSE:
			o->verbose = true;
			break;
		case OPT_NAME:
			ret = agent_name_parse(optarg, o, err, errlen);
			if (ret)
				return ret;
			break;
		case OPT_LISTEN:
			ret =
			    agent_addr_parse("--listen", "127.0.0.1:17700", optarg, o->listen_host,
					     sizeof(o->listen_host), &o->listen_port, err, errlen);
			if (ret)
				return ret;
			break;
		case OPT_CONTROL_IF:
			if (!agent_ifname_ok(optarg, strlen(optarg)))
				return errbuf_fail(err, errlen, -EINVAL,
						   "--control-if '%s': not an interface name",
						   optarg);
			strcpy(o->control_if, optarg);
			break;
		case OPT_ALLOW_JOB:
			ret = agent_joblist_parse(optarg, o, err, errlen);
			if (ret)
				return ret;
			break;
		case OPT_ALLOW_IF:
			ret = agent_iflist_parse("--allow-if", optarg, o->allow, AGENT_MAX_IFS,
						 &o->nr_allow, err, errlen);
			if (ret)
				return ret;
			break;
		case OPT_RAIL_MAP:
			if (rail_map_seen)
				return errbuf_fail(err, errlen, -EINVAL,
						   "--rail-map given twice; list every rail in one "
						   "flag: --rail-map IF0,IF1,...");
			rail_map_seen = true;
			ret = agent_iflist_parse("--rail-map", optarg, o->rails, AGENT_MAX_RAILS,
						 &o->nr_rails, err, errlen);
			if (ret)
				return ret;
			break;
		case OPT_TLS_DIR:
		case OPT_TLS_CERT:
		case OPT_TLS_KEY:
		case OPT_TLS_CA:
		case OPT_ALLOW_PEER:
		case OPT_INSECURE:
			ret = agent_tls_opt(c, optarg, o, err, errlen);
			if (ret)
				return ret;
			break;
		case OPT_RUN_DIR:
		case OPT_CGROUP_ROOT:
			ret = agent_dir_opt(c == OPT_RUN_DIR ? "--run-dir" : "--cgroup-root",
					    optarg, c == OPT_RUN_DIR ? o->run_dir : o->cgroup_root,
					    sizeof(o->run_dir), err, errlen);
			if (ret)
				return ret;
			break;
		case OPT_STATE_DIR:
		case OPT_CONFIG:
		case OPT_AUDIT_LOG:
		case OPT_LOG_FILE:
			ret = agent_path_opt(c, optarg, o, err, errlen);
			if (ret)
				return ret;
			break;
		case OPT_PFC_EMULATE:
			o->pfc_emulate = true;
			break;
		case OPT_PFC_WATCHDOG:
			ret = agent_pfc_watchdog_opt(optarg, o, err, errlen);
			if (ret)
				return ret;
			break;
		case OPT_METRICS_LISTEN:
			ret = agent_addr_parse("--metrics-listen", "127.0.0.1:9464", optarg,
					       o->metrics_host, sizeof(o->metrics_host),
					       &o->metrics_port, err, errlen);
			if (ret)
				return ret;
			break;
		case ':':
			return errbuf_fail(err, errlen, -EINVAL, "%s needs a value",
					   argv[optind - 1]);
		default:
			return errbuf_fail(err, errlen, -EINVAL, "unknown option '%s'",
					   argv[optind - 1]);
		}
	}
	if (optind < argc)
		return errbuf_fail(err, errlen, -EINVAL,
				   "unexpected argument '%s' (every setting is a --flag)",
				   argv[optind]);
	return agent_opts_check(o, err, errlen);
}
