// SPDX-License-Identifier: MIT
/*
 * agents/agent_rdmapath.c against fakes: a temporary folder plays /proc (each
 * thread's task/TID/children and status, fd links "socket:[N]", or only
 * PID/stat for a kernel without children files), a cgroup tree, and sysfs
 * with both kinds of port counters (counters/ as hardware has them,
 * hw_counters/ only as rxe has them). The QP dump (inj_rdma_nl_qps) and the
 * sock_diag dump (agent_rp_diag_dump) are tables (-Wl,--wrap): a QP created
 * by a thread of a job process must match, one of a foreign process must not,
 * and sockets match by inode and by peer. One test runs the real sock_diag
 * dump on a TCP connection of its own over 127.0.0.1.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agents/agent_rdmapath.h"
#include "injectors/inj_rdma_nl.h"
#include "tests/unit/scratch_dir.h"

static char tmp[64], proc[128], proc_stat[128], sys[128], ib[192];
static char why[512];

/* ---- the fake trees ---- */

/* tmp/REL from a format, its parent folders made. */
static const char *fake_path(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
static const char *fake_path(const char *fmt, va_list ap)
{
	static char path[512];
	char rel[384];

	vsnprintf(rel, sizeof(rel), fmt, ap);
	scratch_path(tmp, rel, path, sizeof(path));
	return path;
}

/* Writes @text to the file tmp/REL. */
static void fake_file(const char *text, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fake_file(const char *text, const char *fmt, ...)
{
	va_list ap;
	FILE *f;

	va_start(ap, fmt);
	f = fopen(fake_path(fmt, ap), "w");
	va_end(ap);
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* A symbolic link tmp/REL to @target, which need not exist (as an fd's "socket:[N]"). */
static void fake_link(const char *target, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void fake_link(const char *target, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	assert_int_equal(symlink(target, fake_path(fmt, ap)), 0);
	va_end(ap);
}

/* Thread @tid of process @pid in the fake /proc: its children and its status. */
static void fake_task(int pid, int tid, const char *children)
{
	char status[256];

	fake_file(children, "proc/%d/task/%d/children", pid, tid);
	snprintf(status, sizeof(status),
		 "Name:\tjob\nUmask:\t0022\nState:\tS (sleeping)\nTgid:\t%d\nNgid:\t0\nPid:\t%d\n",
		 pid, tid);
	fake_file(status, "proc/%d/status", tid);
}

/*
 * The job: 100 (threads 100, 101) forked 200 and, from thread 101, 300; 200
 * (threads 200, 250) forked 400. 900 (threads 900, 901) is another job's.
 */
static int setup(void **state)
{
	char line[32];
	size_t off = 0;
	static char big[5000 * 6];
	int i;

	if (scratch_make(tmp, sizeof(tmp), "rdmapath"))
		return -1;
	snprintf(proc, sizeof(proc), "%s/proc", tmp);
	snprintf(proc_stat, sizeof(proc_stat), "%s/proc-stat", tmp);
	snprintf(sys, sizeof(sys), "%s/sys", tmp);
	snprintf(ib, sizeof(ib), "%s/sys/class/infiniband", tmp);

	fake_task(100, 100, "200 ");
	fake_task(100, 101, "300\n");
	fake_task(200, 200, "400");
	fake_task(200, 250, "");
	fake_task(300, 300, "");
	fake_task(400, 400, "abc -7 0 99999999999 4x2 "); /* no child in all that */
	fake_task(900, 900, "");
	fake_task(900, 901, "");
	/* Its Name says Tgid 100; the kernel escapes newlines, so the real line is the next. */
	fake_file("Name:\tTgid:\t100\nTgid:\t777\n", "proc/777/status");
	fake_file("Name:\tx\n", "proc/778/status"); /* no Tgid line */

	fake_link("/dev/null", "proc/100/fd/0");
	fake_link("socket:[1001]", "proc/100/fd/3");
	fake_link("pipe:[77]", "proc/100/fd/4");
	fake_link("socket:[12x]", "proc/100/fd/5");
	fake_link("socket:[]", "proc/100/fd/6");
	fake_link("socket:[1001]", "proc/200/fd/3"); /* inherited: the same socket */
	fake_link("socket:[2002]", "proc/200/fd/7");
	fake_link("socket:[4004]", "proc/400/fd/9");
	fake_link("socket:[9009]", "proc/900/fd/3");

	/* A kernel without children files: the same tree, from each stat's ppid. */
	fake_file("", "proc-stat/100/task/100/comm");
	fake_file("100 (job) S 1 100 100 0 -1 4194560 0\n", "proc-stat/100/stat");
	fake_file("200 (a) S 9 (b) S 100 200 100 0 -1 0\n", "proc-stat/200/stat");
	fake_file("300 (x) R 200 300 100 0 -1 0\n", "proc-stat/300/stat");
	fake_file("900 (y) S 1 900 900 0 -1 0\n", "proc-stat/900/stat");
	fake_file("901 garbage\n", "proc-stat/901/stat");
	fake_file("", "proc-stat/sys/kernel");

	/* The job's cgroup, with cgroups of its own below. */
	fake_file("100\n200\nxyz\n-3\n\n", "cg/job/cgroup.procs");
	fake_file("rdma\n", "cg/job/cgroup.controllers");
	fake_file("300\n200\n", "cg/job/sub/cgroup.procs");
	fake_file("400\n", "cg/job/sub/deeper/cgroup.procs");
	for (i = 1; i <= 5000; i++) {
		snprintf(line, sizeof(line), "%d\n", i);
		memcpy(big + off, line, strlen(line) + 1);
		off += strlen(line);
	}
	fake_file(big, "cg/big/cgroup.procs");

	/* Hardware: PortCounters in counters/, and hw_counters without packet counts. */
	fake_file("1000\n", "sys/class/infiniband/mlx5_0/ports/1/counters/port_xmit_data");
	fake_file("250\n", "sys/class/infiniband/mlx5_0/ports/1/counters/port_rcv_data");
	fake_file("10\n", "sys/class/infiniband/mlx5_0/ports/1/counters/port_xmit_packets");
	fake_file("20\n", "sys/class/infiniband/mlx5_0/ports/1/counters/port_rcv_packets");
	fake_file("0\n", "sys/class/infiniband/mlx5_0/ports/1/hw_counters/out_of_buffer");
	/* rxe: hw_counters only (drivers/infiniband/sw/rxe/rxe_hw_counters.c) */
	fake_file("11\n", "sys/class/infiniband/rxe0/ports/1/hw_counters/sent_pkts");
	fake_file("12\n", "sys/class/infiniband/rxe0/ports/1/hw_counters/rcvd_pkts");
	fake_file("10\n", "sys/class/infiniband/rxe0/ports/1/hw_counters/lifespan");
	/* rxe on an older kernel: counters/ there, but no PMA behind it */
	fake_file("N/A (no PMA)\n", "sys/class/infiniband/rxe1/ports/1/counters/port_xmit_data");
	fake_file("N/A (no PMA)\n", "sys/class/infiniband/rxe1/ports/1/counters/port_rcv_data");
	fake_file("N/A (no PMA)\n", "sys/class/infiniband/rxe1/ports/1/counters/port_xmit_packets");
	fake_file("N/A (no PMA)\n", "sys/class/infiniband/rxe1/ports/1/counters/port_rcv_packets");
	fake_file("5\n", "sys/class/infiniband/rxe1/ports/1/hw_counters/sent_pkts");
	fake_file("6\n", "sys/class/infiniband/rxe1/ports/1/hw_counters/rcvd_pkts");
	/* half a pair, and a hostile count */
	fake_file("7\n", "sys/class/infiniband/half/ports/1/counters/port_xmit_data");
	fake_file("18446744073709551615\n",
		  "sys/class/infiniband/huge/ports/1/counters/port_xmit_data");
	fake_file("4\n", "sys/class/infiniband/huge/ports/1/counters/port_rcv_data");
	return 0;
}

static int teardown(void **state)
{
	agent_rp_set_roots(NULL, NULL);
	return scratch_remove(tmp);
}

static int use_fakes(void **state)
{
	agent_rp_set_roots(proc, sys);
	why[0] = '\0';
	return 0;
}

/* ---- the kernel's dumps, as tables ---- */

static int qp_ret; /* what the QP dump fails with; 0: it answers */

int __wrap_inj_rdma_nl_qps(const char *device, struct inj_rdma_qp **qps, size_t *n, char *err,
			   size_t errlen);
int __wrap_inj_rdma_nl_qps(const char *device, struct inj_rdma_qp **qps, size_t *n, char *err,
			   size_t errlen)
{
	static const struct inj_rdma_qp table[] = {
	    {.device = "mlx5_0", .port = 1, .lqpn = 10, .state = 3, .type = 2, .pid = 100},
	    {.device = "mlx5_0", .port = 1, .lqpn = 11, .state = 3, .type = 2, .pid = 101},
	    {.device = "mlx5_1", .port = 2, .lqpn = 12, .state = 2, .type = 4, .pid = 250},
	    {.device = "mlx5_0", .port = 1, .lqpn = 13, .state = 3, .type = 2, .pid = 901},
	    {.device = "mlx5_0", .port = 1, .lqpn = 14, .state = 3, .type = 2, .pid = 900},
	    {.device = "mlx5_0", .port = 1, .lqpn = 15, .state = 3, .type = 4, .pid = 0},
	    {.device = "mlx5_0", .port = 1, .lqpn = 16, .state = 3, .type = 2, .pid = 555},
	    {.device = "mlx5_0", .port = 1, .lqpn = 17, .state = 3, .type = 2, .pid = 777},
	    {.device = "mlx5_0", .port = 1, .lqpn = 18, .state = 3, .type = 2, .pid = 778},
	    {.device = "mlx5_0", .port = 0, .lqpn = 19, .state = 0, .type = 2, .pid = 101},
	};

	assert_null(device); /* every device */
	*qps = NULL;
	*n = 0;
	if (qp_ret) {
		snprintf(err, errlen, "RDMA netlink: connect: no RDMA support loaded");
		return qp_ret;
	}
	*qps = malloc(sizeof(table));
	assert_non_null(*qps);
	memcpy(*qps, table, sizeof(table));
	*n = sizeof(table) / sizeof(table[0]);
	return 0;
}

static bool diag_real; /* the real sock_diag dump, for test_tcp_real */
static int diag_calls;

int __real_agent_rp_diag_dump(bool (*keep)(const struct agent_rp_diag *d, void *arg), void *arg,
			      struct agent_rp_diag **out, size_t *n, char *err, size_t errlen);
int __wrap_agent_rp_diag_dump(bool (*keep)(const struct agent_rp_diag *d, void *arg), void *arg,
			      struct agent_rp_diag **out, size_t *n, char *err, size_t errlen);

static struct agent_rp_ep ep(const char *addr, uint16_t port)
{
	struct agent_rp_ep e = {.family = strchr(addr, ':') ? AF_INET6 : AF_INET, .port = port};

	assert_int_equal(inet_pton(e.family, addr, e.addr), 1);
	return e;
}

int __wrap_agent_rp_diag_dump(bool (*keep)(const struct agent_rp_diag *d, void *arg), void *arg,
			      struct agent_rp_diag **out, size_t *n, char *err, size_t errlen)
{
	struct agent_rp_diag t[] = {
	    {1001, ep("10.0.0.1", 5000), ep("10.0.0.2", 6000), 100, 200},
	    {2002, ep("fd00::1", 7000), ep("fd00::2", 8000), 300, 400},
	    /* an IPv6 socket connected to IPv4 */
	    {4004, ep("::ffff:10.0.0.1", 5001), ep("::ffff:10.0.0.3", 6001), 500, 600},
	    {9009, ep("10.0.0.1", 5002), ep("10.0.0.2", 6002), 1, 1}, /* another job's */
	    {0, ep("10.0.0.1", 5003), ep("10.0.0.2", 6003), 0, 0},    /* TIME_WAIT */
	    {77, ep("10.0.0.1", 5004), ep("10.0.0.2", 6004), 0, 0},   /* the pipe's inode */
	};
	size_t i;

	diag_calls++;
	if (diag_real)
		return __real_agent_rp_diag_dump(keep, arg, out, n, err, errlen);
	*out = calloc(sizeof(t) / sizeof(t[0]), sizeof(**out));
	assert_non_null(*out);
	*n = 0;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (keep(&t[i], arg))
			(*out)[(*n)++] = t[i];
	return 0;
}

/* ---- the job's processes ---- */

/* Whether @p holds exactly the @n pids listed, in any order. */
static void assert_pids(const struct agent_rp_pids *p, size_t n, ...)
{
	va_list ap;
	size_t i, j;
	int pid;

	assert_int_equal(p->n, n);
	va_start(ap, n);
	for (i = 0; i < n; i++) {
		pid = va_arg(ap, int);
		for (j = 0; j < p->n && p->pid[j] != pid; j++)
			;
		if (j == p->n)
			fail_msg("pid %d is not in the job", pid);
	}
	va_end(ap);
}

static void test_pids_children(void **state)
{
	struct agent_rp_pids p;

	/* 300 was forked by thread 101: only the per-thread children files have it */
	assert_int_equal(agent_rp_job_pids(100, NULL, &p, why, sizeof(why)), 0);
	assert_pids(&p, 4, 100, 200, 300, 400);
	assert_false(p.truncated);
	agent_rp_pids_free(&p);
	assert_null(p.pid);

	assert_int_equal(agent_rp_job_pids(200, "", &p, why, sizeof(why)), 0);
	assert_pids(&p, 2, 200, 400);
	agent_rp_pids_free(&p);

	/* gone: no processes, no error */
	assert_int_equal(agent_rp_job_pids(12345, NULL, &p, why, sizeof(why)), 0);
	assert_int_equal(p.n, 0);
	agent_rp_pids_free(&p);

	assert_int_equal(agent_rp_job_pids(0, NULL, &p, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "no job"));
	assert_null(p.pid);
}

static void test_pids_stat(void **state)
{
	struct agent_rp_pids p;

	agent_rp_set_roots(proc_stat, sys);
	/* 200's comm holds ") S 9 (": its ppid is after the last ')' */
	assert_int_equal(agent_rp_job_pids(100, NULL, &p, why, sizeof(why)), 0);
	assert_pids(&p, 3, 100, 200, 300);
	agent_rp_pids_free(&p);
}

/* A launcher's ranks, found by the tag in their environment, exactly. */
static void test_pids_tag(void **state)
{
	static const char env_a[] = "PATH=/bin\0RDMACHAOS_JOB=run-7\0HOME=/";
	static const char env_b[] = "RDMACHAOS_JOB=run-77\0XRDMACHAOS_JOB=run-7\0";
	struct agent_rp_pids p;
	FILE *f;
	int pid;

	for (pid = 100; pid <= 400; pid += 100) {
		char path[256];

		snprintf(path, sizeof(path), "%s/%d/environ", proc, pid);
		f = fopen(path, "w");
		assert_non_null(f);
		if (pid == 100 || pid == 300)
			fwrite(env_a, 1, sizeof(env_a) - 1, f);
		else
			fwrite(env_b, 1, sizeof(env_b) - 1, f); /* near misses only */
		fclose(f);
	}
	assert_int_equal(agent_rp_tagged_pids("run-7", &p, why, sizeof(why)), 0);
	assert_pids(&p, 2, 100, 300);
	agent_rp_pids_free(&p);
	assert_int_equal(agent_rp_tagged_pids("nobody", &p, why, sizeof(why)), 0);
	assert_int_equal(p.n, 0);
	agent_rp_pids_free(&p);
	assert_int_equal(agent_rp_tagged_pids("../x", &p, why, sizeof(why)), -EINVAL);
	assert_int_equal(agent_rp_tagged_pids("", &p, why, sizeof(why)), -EINVAL);
	assert_null(p.pid);
}

static void test_pids_cgroup(void **state)
{
	struct agent_rp_pids p;
	char dir[256];

	/* the cgroup wins over the pid; the cgroups below count; words not pids do not */
	snprintf(dir, sizeof(dir), "%s/cg/job", tmp);
	assert_int_equal(agent_rp_job_pids(900, dir, &p, why, sizeof(why)), 0);
	assert_pids(&p, 4, 100, 200, 300, 400);
	assert_false(p.truncated);
	agent_rp_pids_free(&p);

	snprintf(dir, sizeof(dir), "%s/cg/big", tmp);
	assert_int_equal(agent_rp_job_pids(0, dir, &p, why, sizeof(why)), 0);
	assert_int_equal(p.n, AGENT_RP_MAX_PIDS);
	assert_true(p.truncated);
	assert_int_equal(p.pid[0], 1);
	assert_int_equal(p.pid[AGENT_RP_MAX_PIDS - 1], AGENT_RP_MAX_PIDS);
	agent_rp_pids_free(&p);

	snprintf(dir, sizeof(dir), "%s/cg/none", tmp);
	assert_int_equal(agent_rp_job_pids(100, dir, &p, why, sizeof(why)), -ENOENT);
	assert_non_null(strstr(why, "cg/none"));
	assert_non_null(strstr(why, "cgroup.procs"));
	assert_null(p.pid);
}

/* ---- the job's QPs ---- */

static void test_qps(void **state)
{
	struct agent_rp_pids p;
	struct agent_rp_qp *q;
	size_t n;

	assert_int_equal(agent_rp_job_pids(100, NULL, &p, why, sizeof(why)), 0);
	assert_int_equal(agent_rp_qps(&p, &q, &n, why, sizeof(why)), 0);
	/* 100 itself, its thread 101 (twice), 200's thread 250; not 900 or its thread 901,
	 * nor the kernel's, a gone thread's, or those whose status lies or says nothing */
	assert_int_equal(n, 4);
	assert_int_equal(q[0].lqpn, 10);
	assert_int_equal(q[0].pid, 100);
	assert_int_equal(q[1].lqpn, 11);
	assert_int_equal(q[1].pid, 100);
	assert_string_equal(q[2].device, "mlx5_1");
	assert_int_equal(q[2].port, 2);
	assert_int_equal(q[2].lqpn, 12);
	assert_int_equal(q[2].state, 2);
	assert_int_equal(q[2].type, 4);
	assert_int_equal(q[2].pid, 200);
	assert_int_equal(q[3].lqpn, 19);
	assert_int_equal(q[3].port, 0);
	assert_int_equal(q[3].pid, 100);
	free(q);

	/* the dump's failure comes through with its sentence */
	qp_ret = -EPROTONOSUPPORT;
	assert_int_equal(agent_rp_qps(&p, &q, &n, why, sizeof(why)), -EPROTONOSUPPORT);
	assert_non_null(strstr(why, "no RDMA"));
	assert_null(q);
	assert_int_equal(n, 0);
	qp_ret = 0;
	agent_rp_pids_free(&p);

	/* a job of one process without QPs */
	assert_int_equal(agent_rp_job_pids(300, NULL, &p, why, sizeof(why)), 0);
	assert_int_equal(agent_rp_qps(&p, &q, &n, why, sizeof(why)), 0);
	assert_int_equal(n, 0);
	assert_null(q);
	agent_rp_pids_free(&p);
}

/* ---- the job's TCP sockets ---- */

static void test_tcp_match(void **state)
{
	const char *v4[] = {"10.0.0.2"}, *two[] = {"fd00::2", "10.0.0.3"};
	const char *mapped[] = {"::ffff:10.0.0.2"}, *bad[] = {"10.0.0.1", "10.0.0.300"};
	struct agent_rp_pids p;
	struct agent_rp_tcp *s;
	size_t n;
	int calls;

	assert_int_equal(agent_rp_job_pids(100, NULL, &p, why, sizeof(why)), 0);
	assert_int_equal(agent_rp_tcp(&p, NULL, 0, &s, &n, why, sizeof(why)), 0);
	/* the job's three sockets (1001 once, though two processes hold it); not 9009 */
	assert_int_equal(n, 3);
	assert_string_equal(s[0].local, "10.0.0.1:5000");
	assert_string_equal(s[0].remote, "10.0.0.2:6000");
	assert_int_equal(s[0].bytes_acked, 100);
	assert_int_equal(s[0].bytes_received, 200);
	assert_int_equal(s[0].pid, 100); /* the lowest of 100 and 200 */
	assert_string_equal(s[1].local, "[fd00::1]:7000");
	assert_string_equal(s[1].remote, "[fd00::2]:8000");
	assert_int_equal(s[1].pid, 200);
	assert_string_equal(s[2].local, "10.0.0.1:5001");
	assert_string_equal(s[2].remote, "10.0.0.3:6001");
	assert_int_equal(s[2].bytes_acked, 500);
	assert_int_equal(s[2].bytes_received, 600);
	assert_int_equal(s[2].pid, 400);
	free(s);

	assert_int_equal(agent_rp_tcp(&p, v4, 1, &s, &n, why, sizeof(why)), 0);
	assert_int_equal(n, 1);
	assert_string_equal(s[0].remote, "10.0.0.2:6000");
	free(s);

	assert_int_equal(agent_rp_tcp(&p, two, 2, &s, &n, why, sizeof(why)), 0);
	assert_int_equal(n, 2);
	assert_string_equal(s[0].remote, "[fd00::2]:8000");
	assert_string_equal(s[1].remote, "10.0.0.3:6001");
	free(s);

	/* an IPv4-mapped peer is its IPv4 address */
	assert_int_equal(agent_rp_tcp(&p, mapped, 1, &s, &n, why, sizeof(why)), 0);
	assert_int_equal(n, 1);
	assert_string_equal(s[0].remote, "10.0.0.2:6000");
	free(s);

	calls = diag_calls;
	assert_int_equal(agent_rp_tcp(&p, bad, 2, &s, &n, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "\"10.0.0.300\""));
	assert_null(s);
	assert_int_equal(diag_calls, calls);
	agent_rp_pids_free(&p);

	/* a job without sockets: the kernel is not asked */
	assert_int_equal(agent_rp_job_pids(300, NULL, &p, why, sizeof(why)), 0);
	assert_int_equal(agent_rp_tcp(&p, NULL, 0, &s, &n, why, sizeof(why)), 0);
	assert_int_equal(n, 0);
	assert_null(s);
	assert_int_equal(diag_calls, calls);
	agent_rp_pids_free(&p);
}

static const struct agent_rp_tcp *find_sock(const struct agent_rp_tcp *s, size_t n,
					    const char *local, const char *remote)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(s[i].local, local) && !strcmp(s[i].remote, remote))
			return &s[i];
	return NULL;
}

/* Sends @len bytes on @from and reads them all on @to. */
static void pass_bytes(int from, int to, size_t len)
{
	char buf[4096] = {0};
	size_t got = 0;
	ssize_t r;

	assert_true(len <= sizeof(buf));
	assert_int_equal(send(from, buf, len, 0), (ssize_t)len);
	while (got < len) {
		r = recv(to, buf, sizeof(buf), 0);
		assert_true(r > 0);
		got += (size_t)r;
	}
}

/* The real dump, on a connection of this process's own over 127.0.0.1. */
static void test_tcp_real(void **state)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	const struct agent_rp_tcp *client = NULL, *server = NULL;
	const char *peers[] = {"127.0.0.1"};
	char cl[64], sv[64];
	socklen_t alen = sizeof(a);
	struct agent_rp_tcp *s = NULL;
	int me = getpid(), l, c, v, tries, ret;
	struct agent_rp_pids p = {.pid = &me, .n = 1};
	size_t n = 0;

	l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	c = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(l >= 0 && c >= 0);
	assert_int_equal(bind(l, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(l, 1), 0);
	assert_int_equal(getsockname(l, (struct sockaddr *)&a, &alen), 0);
	snprintf(sv, sizeof(sv), "127.0.0.1:%u", ntohs(a.sin_port));
	assert_int_equal(connect(c, (struct sockaddr *)&a, sizeof(a)), 0);
	v = accept(l, NULL, NULL);
	assert_true(v >= 0);
	alen = sizeof(a);
	assert_int_equal(getsockname(c, (struct sockaddr *)&a, &alen), 0);
	snprintf(cl, sizeof(cl), "127.0.0.1:%u", ntohs(a.sin_port));
	pass_bytes(c, v, 3000);
	pass_bytes(v, c, 1000);

	agent_rp_set_roots(NULL, NULL);
	diag_real = true;
	/* The acks come back at once over loopback; allow a delayed one a second. */
	for (tries = 0; tries < 100; tries++) {
		ret = agent_rp_tcp(&p, peers, 1, &s, &n, why, sizeof(why));
		if (ret == -EPROTONOSUPPORT || ret == -EPERM || ret == -EACCES) {
			print_message("SKIP test_tcp_real: NETLINK_SOCK_DIAG is not permitted "
				      "here: %s\n",
				      why);
			diag_real = false;
			close(v);
			close(c);
			close(l);
			skip();
		}
		assert_int_equal(ret, 0);
		client = find_sock(s, n, cl, sv);
		server = find_sock(s, n, sv, cl);
		if (client && server && client->bytes_acked >= 3000 && server->bytes_acked >= 1000)
			break;
		free(s);
		s = NULL;
		usleep(10000);
	}
	diag_real = false;
	if (!client || !server)
		fail_msg("%s -> %s not among the %zu sockets of pid %d (%s)", cl, sv, n, me, why);
	assert_int_equal(client->pid, me);
	assert_int_equal(server->pid, me);
	assert_true(client->bytes_acked >= 3000);
	assert_int_equal(client->bytes_received, 1000);
	assert_true(server->bytes_acked >= 1000);
	assert_int_equal(server->bytes_received, 3000);
	/* the listening socket is left out */
	for (size_t i = 0; i < n; i++)
		assert_string_not_equal(s[i].remote, "0.0.0.0:0");
	free(s);
	close(v);
	close(c);
	close(l);
}

/* ---- port counters ---- */

static void test_port_counters(void **state)
{
	struct agent_rp_port pc;

	/* hardware: bytes (4-byte words multiplied out) and packets from counters/ */
	assert_int_equal(agent_rp_port_counters(ib, "mlx5_0", 1, &pc, why, sizeof(why)), 0);
	assert_true(pc.has_bytes);
	assert_int_equal(pc.tx_bytes, 4000);
	assert_int_equal(pc.rx_bytes, 1000);
	assert_true(pc.has_pkts);
	assert_int_equal(pc.tx_pkts, 10);
	assert_int_equal(pc.rx_pkts, 20);
	assert_string_equal(pc.pkts_group, "counters");

	/* rxe: packets only, from hw_counters; the root agent_rp_set_roots gave */
	assert_int_equal(agent_rp_port_counters(NULL, "rxe0", 1, &pc, why, sizeof(why)), 0);
	assert_false(pc.has_bytes);
	assert_int_equal(pc.tx_bytes, 0);
	assert_true(pc.has_pkts);
	assert_int_equal(pc.tx_pkts, 11);
	assert_int_equal(pc.rx_pkts, 12);
	assert_string_equal(pc.pkts_group, "hw_counters");

	/* rxe on an older kernel: counters/ reads "N/A (no PMA)" */
	assert_int_equal(agent_rp_port_counters("", "rxe1", 1, &pc, why, sizeof(why)), 0);
	assert_false(pc.has_bytes);
	assert_int_equal(pc.tx_pkts, 5);
	assert_int_equal(pc.rx_pkts, 6);
	assert_string_equal(pc.pkts_group, "hw_counters");

	assert_int_equal(agent_rp_port_counters(ib, "huge", 1, &pc, why, sizeof(why)), 0);
	assert_true(pc.tx_bytes == UINT64_MAX);
	assert_int_equal(pc.rx_bytes, 16);
	assert_false(pc.has_pkts);
	assert_null(pc.pkts_group);

	assert_int_equal(agent_rp_port_counters(ib, "half", 1, &pc, why, sizeof(why)), -ENODATA);
	assert_non_null(strstr(why, "half port 1"));
	assert_int_equal(agent_rp_port_counters(ib, "mlx5_0", 2, &pc, why, sizeof(why)), -ENODEV);
	assert_non_null(strstr(why, "no port 2"));
	assert_int_equal(agent_rp_port_counters(ib, "mlx9", 1, &pc, why, sizeof(why)), -ENODEV);
	assert_int_equal(agent_rp_port_counters(ib, "mlx5_0", 0, &pc, why, sizeof(why)), -EINVAL);
}

static void test_port_names(void **state)
{
	const char *bad[] = {"",
			     ".",
			     "..",
			     "../rxe0",
			     "rxe0/../mlx5_0",
			     "mlx5 0",
			     "mlx5_0\n",
			     "0123456789012345678901234567890123456789012345678901234567890123"};
	struct agent_rp_port pc;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(agent_rp_port_counters(ib, bad[i], 1, &pc, why, sizeof(why)),
				 -EINVAL);
		assert_non_null(strstr(why, "not a device name"));
	}
	assert_int_equal(agent_rp_port_counters(ib, NULL, 1, &pc, why, sizeof(why)), -EINVAL);
	/* 63 is the longest allowed: not there, but asked for */
	assert_int_equal(agent_rp_port_counters(ib, bad[7] + 1, 1, &pc, why, sizeof(why)), -ENODEV);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup(test_pids_children, use_fakes),
	    cmocka_unit_test_setup(test_pids_stat, use_fakes),
	    cmocka_unit_test_setup(test_pids_cgroup, use_fakes),
	    cmocka_unit_test_setup(test_pids_tag, use_fakes),
	    cmocka_unit_test_setup(test_qps, use_fakes),
	    cmocka_unit_test_setup(test_tcp_match, use_fakes),
	    cmocka_unit_test_setup(test_tcp_real, use_fakes),
	    cmocka_unit_test_setup(test_port_counters, use_fakes),
	    cmocka_unit_test_setup(test_port_names, use_fakes),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
