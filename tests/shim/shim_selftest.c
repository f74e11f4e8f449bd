// SPDX-License-Identifier: MIT
/*
 * Self-test of the verbs shim (librdmachaos-verbs.so) on a real RDMA device,
 * meant for a lab guest with rxe (tests/shim/run_lab_selftest.sh). It
 * re-executes itself with the shim preloaded and a control socket of its own,
 * builds a loopback RC QP pair on one device, and commands its own shim with
 * shim_call() as the agent would:
 *   fail_wr  -> the next completion carries the chosen status, then success;
 *   fail_mr  -> ibv_reg_mr fails with the chosen errno (count, probability);
 *   qp_error -> the QP is in ERR (ibv_query_qp and, from outside, RDMA
 *               netlink) and a posted WR completes with IBV_WC_WR_FLUSH_ERR;
 *   qp_error next -> the next QP created goes to ERR right after RTS;
 *   clear    -> nothing armed, registrations work again.
 * With --inert it checks instead that a preloaded shim without
 * RDMACHAOS_SHIM_SOCK wraps nothing. Prints one "ok"/"not ok" line per
 * check; exit 0 all passed, 1 a check failed, 77 no RDMA device (skip).
 */
#include <dlfcn.h>
#include <errno.h>
#include <getopt.h>
#include <infiniband/verbs.h>
#include <jansson.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/shim_proto.h"
#include "injectors/inj_rdma_nl.h"

#define ST_BUF 4096

static int st_failed, st_n;

static void st_check(int ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void st_check(int ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s %d - ", ok ? "ok" : "not ok", ++st_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	if (!ok)
		st_failed++;
}

static void st_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void st_die(const char *fmt, ...)
{
	va_list ap;

	printf("Bail out! ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	exit(1);
}

struct st_ctx {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	char *buf;
	union ibv_gid gid;
	int gid_index;
	uint8_t port;
};

static struct ibv_qp *st_qp(struct st_ctx *s)
{
	struct ibv_qp_init_attr a = {
	    .send_cq = s->cq,
	    .recv_cq = s->cq,
	    .qp_type = IBV_QPT_RC,
	    .cap = {.max_send_wr = 16, .max_recv_wr = 16, .max_send_sge = 1, .max_recv_sge = 1},
	};
	struct ibv_qp *qp = ibv_create_qp(s->pd, &a);

	if (!qp)
		st_die("ibv_create_qp: %s", strerror(errno));
	return qp;
}

static int st_connect(struct st_ctx *s, struct ibv_qp *qp, uint32_t remote_qpn)
{
	struct ibv_qp_attr a = {
	    .qp_state = IBV_QPS_INIT,
	    .port_num = s->port,
	    .qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_LOCAL_WRITE,
	};
	int ret;

	ret = ibv_modify_qp(qp, &a,
			    IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	if (ret)
		return ret;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = remote_qpn;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = s->gid;
	a.ah_attr.grh.sgid_index = (uint8_t)s->gid_index;
	a.ah_attr.grh.hop_limit = 1;
	a.ah_attr.port_num = s->port;
	ret = ibv_modify_qp(qp, &a,
			    IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
	if (ret)
		return ret;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	return ibv_modify_qp(qp, &a,
			     IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
				 IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
}

static int st_state(struct ibv_qp *qp)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr a;

	return ibv_query_qp(qp, &a, IBV_QP_STATE, &init) ? -1 : (int)a.qp_state;
}

/* Posts one signaled RDMA WRITE of 64 bytes to our own buffer; returns its status or -1. */
static int st_write(struct st_ctx *s, struct ibv_qp *qp, uint64_t id)
{
	struct ibv_sge sge = {.addr = (uintptr_t)s->buf, .length = 64, .lkey = s->mr->lkey};
	struct ibv_send_wr wr = {
	    .wr_id = id,
	    .sg_list = &sge,
	    .num_sge = 1,
	    .opcode = IBV_WR_RDMA_WRITE,
	    .send_flags = IBV_SEND_SIGNALED,
	    .wr.rdma = {.remote_addr = (uintptr_t)s->buf + ST_BUF / 2, .rkey = s->mr->rkey},
	};
	struct ibv_send_wr *bad;
	struct ibv_wc wc;
	int i, n;

	if (ibv_post_send(qp, &wr, &bad))
		return -1;
	for (i = 0; i < 5000; i++) {
		n = ibv_poll_cq(s->cq, 1, &wc);
		if (n < 0)
			return -1;
		if (n == 1)
			return wc.wr_id == id ? (int)wc.status : -1;
		usleep(1000);
	}
	return -2; /* no completion within 5 s */
}

static json_t *st_call(const char *sock, const char *line)
{
	struct shim_cmd c;
	char err[256];
	json_t *reply = NULL;
	int ret;

	if (shim_cmd_parse(line, &c, err, sizeof(err)))
		st_die("bad command %s: %s", line, err);
	ret = shim_call(sock, &c, 2000, &reply, err, sizeof(err));
	st_check(!ret, "shim_call \"%s\"%s%s", line, ret ? ": " : "", ret ? err : "");
	return reply;
}

static json_int_t st_int(const json_t *reply, const char *key)
{
	return json_integer_value(json_object_get(reply, key));
}

static const char *st_qp_state_in(const json_t *reply, uint32_t qpn)
{
	size_t i;
	json_t *q;

	json_array_foreach(json_object_get(reply, "qps"), i, q)
		if (st_int(q, "qpn") == (json_int_t)qpn)
			return json_string_value(json_object_get(q, "state"));
	return "ABSENT";
}

/* The QP's state as RDMA netlink shows it for this process, or a reason. */
static const char *st_nl_state(const char *dev, uint32_t qpn, char *why, size_t len)
{
	struct inj_rdma_qp *qps;
	const char *st = NULL;
	size_t n, i;

	if (inj_rdma_nl_qps(dev, &qps, &n, why, len))
		return NULL;
	for (i = 0; i < n; i++)
		if (qps[i].lqpn == qpn && qps[i].pid == getpid())
			st = shim_qp_state_name(qps[i].state);
	free(qps);
	if (!st)
		snprintf(why, len, "QP %u of pid %d not in the dump", qpn, (int)getpid());
	return st;
}

static const char *st_obj(void *fn)
{
	Dl_info info;

	return dladdr(fn, &info) && info.dli_fname ? info.dli_fname : "?";
}

static void st_open(struct st_ctx *s, const char *devname)
{
	struct ibv_device **list;
	int i, n;

	list = ibv_get_device_list(&n);
	if (!list || !n) {
		printf("1..0 # SKIP no RDMA device here\n");
		exit(77);
	}
	for (i = 0; i < n; i++)
		if (!devname || !strcmp(ibv_get_device_name(list[i]), devname))
			break;
	if (i == n)
		st_die("no RDMA device %s", devname);
	s->ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (!s->ctx)
		st_die("ibv_open_device: %s", strerror(errno));
	s->pd = ibv_alloc_pd(s->ctx);
	s->cq = s->pd ? ibv_create_cq(s->ctx, 64, NULL, NULL, 0) : NULL;
	if (!s->cq)
		st_die("ibv_alloc_pd/ibv_create_cq: %s", strerror(errno));
	if (ibv_query_gid(s->ctx, s->port, s->gid_index, &s->gid))
		st_die("ibv_query_gid(port %u, index %d): %s", s->port, s->gid_index,
		       strerror(errno));
	s->buf = calloc(1, ST_BUF);
	s->mr = ibv_reg_mr(s->ctx ? s->pd : NULL, s->buf, ST_BUF,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
}

static int st_inert(struct st_ctx *s)
{
	const char *o = st_obj((void *)s->ctx->ops.poll_cq);

	st_check(s->mr != NULL, "ibv_reg_mr works with the shim inert");
	st_check(!strstr(o, "librdmachaos-verbs"), "poll_cq not wrapped when inert (it is in %s)",
		 o);
	printf("1..%d\n", st_n);
	return st_failed ? 1 : 0;
}

static void st_reexec(char **argv, const char *shim)
{
	char exe[PATH_MAX], so[PATH_MAX + 64], dir[] = "/tmp/shim-selftest-XXXXXX", sock[160];
	ssize_t n;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		st_die("readlink /proc/self/exe: %s", strerror(errno));
	exe[n] = '\0';
	if (shim) /* the default: build/tests/shim_selftest -> build/librdmachaos-verbs.so */
		snprintf(so, sizeof(so), "%s", shim);
	else
		snprintf(so, sizeof(so), "%.*s/../librdmachaos-verbs.so",
			 (int)(strrchr(exe, '/') - exe), exe);
	if (access(so, R_OK))
		st_die("shim %s: %s (build it: make)", so, strerror(errno));
	if (!mkdtemp(dir))
		st_die("mkdtemp: %s", strerror(errno));
	snprintf(sock, sizeof(sock), "%s/shim.sock", dir);
	setenv("LD_PRELOAD", so, 1);
	if (!getenv("SHIM_SELFTEST_INERT"))
		setenv(SHIM_SOCK_ENV, sock, 1);
	setenv("SHIM_SELFTEST_CHILD", "1", 1);
	execv(exe, argv);
	st_die("execv %s: %s", exe, strerror(errno));
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {{"device", required_argument, NULL, 'd'},
					     {"gid-index", required_argument, NULL, 'g'},
					     {"shim", required_argument, NULL, 's'},
					     {"inert", no_argument, NULL, 'i'},
					     {NULL, 0, NULL, 0}};
	struct st_ctx s = {.gid_index = 1, .port = 1};
	const char *dev = NULL, *shim = NULL, *sock, *st;
	struct ibv_qp *a, *b, *c, *d;
	struct ibv_mr *mr;
	char why[256];
	json_t *r;
	int opt, ret, i, fails;

	while ((opt = getopt_long(argc, argv, "d:g:s:i", opts, NULL)) != -1) {
		switch (opt) {
		case 'd':
			dev = optarg;
			break;
		case 'g':
			s.gid_index = atoi(optarg);
			break;
		case 's':
			shim = optarg;
			break;
		case 'i':
			setenv("SHIM_SELFTEST_INERT", "1", 1);
			break;
		default:
			fprintf(stderr,
				"usage: %s [--device DEV] [--gid-index N] [--shim SO] [--inert]\n",
				argv[0]);
			return 2;
		}
	}
	if (!getenv("SHIM_SELFTEST_CHILD"))
		st_reexec(argv, shim);
	st_open(&s, dev);
	if (getenv("SHIM_SELFTEST_INERT"))
		return st_inert(&s);
	sock = getenv(SHIM_SOCK_ENV);
	printf("# device %s, shim socket %s, pid %d\n", ibv_get_device_name(s.ctx->device), sock,
	       (int)getpid());
	st_check(s.mr != NULL, "ibv_reg_mr works before anything is armed");
	if (!s.mr)
		st_die("no MR, cannot go on");
	st_check(strstr(st_obj((void *)s.ctx->ops.poll_cq), "librdmachaos-verbs") != NULL,
		 "the context's poll_cq is wrapped by the shim");

	a = st_qp(&s);
	b = st_qp(&s);
	ret = st_connect(&s, a, b->qp_num);
	if (!ret)
		ret = st_connect(&s, b, a->qp_num);
	if (ret)
		st_die("connecting QPs %u <-> %u: %s", a->qp_num, b->qp_num, strerror(ret));
	printf("# loopback RC QPs %u <-> %u in RTS\n", a->qp_num, b->qp_num);
	st_check(st_write(&s, a, 1) == IBV_WC_SUCCESS, "RDMA WRITE completes with success");

	r = st_call(sock, "status");
	st_check(!json_is_true(json_object_get(json_object_get(r, "armed"), "any")),
		 "status: nothing armed");
	st_check(!strcmp(st_qp_state_in(r, a->qp_num), "RTS") &&
		     !strcmp(st_qp_state_in(r, b->qp_num), "RTS"),
		 "status: both QPs tracked in RTS (%s, %s)", st_qp_state_in(r, a->qp_num),
		 st_qp_state_in(r, b->qp_num));
	json_decref(r);

	/* A QP made through the context's create_qp_ex op (what ibv_create_qp_ex calls). */
	{
		struct ibv_qp_init_attr_ex ax = {
		    .send_cq = s.cq,
		    .recv_cq = s.cq,
		    .qp_type = IBV_QPT_RC,
		    .cap = {.max_send_wr = 4,
			    .max_recv_wr = 4,
			    .max_send_sge = 1,
			    .max_recv_sge = 1},
		    .comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		    .pd = s.pd,
		    .send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE,
		};
		struct ibv_qp *qx = ibv_create_qp_ex(s.ctx, &ax);

		if (!qx) {
			printf("# ibv_create_qp_ex: %s: its tracking is not checked here\n",
			       strerror(errno));
		} else {
			r = st_call(sock, "status");
			st_check(!strcmp(st_qp_state_in(r, qx->qp_num), "RESET"),
				 "status: QP %u from ibv_create_qp_ex is tracked (%s)", qx->qp_num,
				 st_qp_state_in(r, qx->qp_num));
			json_decref(r);
			ibv_destroy_qp(qx);
			r = st_call(sock, "status");
			st_check(json_array_size(json_object_get(r, "qps")) == 2,
				 "status: and forgotten once destroyed");
			json_decref(r);
		}
	}

	/* fail_wr */
	json_decref(st_call(sock, "fail_wr count=2 status=rem_access_err"));
	ret = st_write(&s, a, 2);
	st_check(ret == IBV_WC_REM_ACCESS_ERR, "fail_wr: 1st completion is %s",
		 shim_wc_status_name(ret) ? shim_wc_status_name(ret) : "none");
	ret = st_write(&s, a, 3);
	st_check(ret == IBV_WC_REM_ACCESS_ERR, "fail_wr: 2nd completion is %s",
		 shim_wc_status_name(ret) ? shim_wc_status_name(ret) : "none");
	ret = st_write(&s, a, 4);
	st_check(ret == IBV_WC_SUCCESS, "fail_wr: 3rd completion is success again (%d)", ret);
	st_check(st_state(a) == IBV_QPS_RTS, "fail_wr leaves the QP in RTS");
	r = st_call(sock, "status");
	st_check(st_int(r, "failed_wrs") == 2, "status: failed_wrs = %lld",
		 (long long)st_int(r, "failed_wrs"));
	json_decref(r);

	/* fail_mr by count, then by probability */
	json_decref(st_call(sock, "fail_mr count=2 errno=ENOMEM"));
	for (i = 0; i < 3; i++) {
		errno = 0;
		mr = ibv_reg_mr(s.pd, s.buf, ST_BUF, IBV_ACCESS_LOCAL_WRITE);
		if (i < 2)
			st_check(!mr && errno == ENOMEM, "fail_mr: registration %d fails with %s",
				 i + 1, mr ? "success" : strerror(errno));
		else
			st_check(mr != NULL, "fail_mr: registration 3 succeeds (%s)",
				 mr ? "ok" : strerror(errno));
		if (mr)
			ibv_dereg_mr(mr);
	}
	/* The ibv_reg_mr macro goes to ibv_reg_mr_iova2 with optional access flags. */
	json_decref(st_call(sock, "fail_mr prob=1 errno=EAGAIN"));
	errno = 0;
	mr = ibv_reg_mr(s.pd, s.buf, ST_BUF, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_RELAXED_ORDERING);
	st_check(!mr && errno == EAGAIN, "fail_mr prob=1: ibv_reg_mr (iova2 path) fails with %s",
		 mr ? "success" : strerror(errno));
	if (mr)
		ibv_dereg_mr(mr);
	r = st_call(sock, "clear");
	st_check(json_is_true(json_object_get(r, "was_armed")), "clear: it was armed");
	json_decref(r);
	mr = ibv_reg_mr(s.pd, s.buf, ST_BUF, IBV_ACCESS_LOCAL_WRITE);
	st_check(mr != NULL, "after clear: ibv_reg_mr succeeds");
	if (mr)
		ibv_dereg_mr(mr);
	r = st_call(sock, "status");
	st_check(st_int(r, "failed_mrs") == 3, "status: failed_mrs = %lld",
		 (long long)st_int(r, "failed_mrs"));
	json_decref(r);

	/* qp_error by QPN */
	snprintf(why, sizeof(why), "qp_error qpn=%u", a->qp_num);
	r = st_call(sock, why);
	st_check(json_array_size(json_object_get(r, "moved")) == 1 &&
		     json_integer_value(json_array_get(json_object_get(r, "moved"), 0)) ==
			 (json_int_t)a->qp_num,
		 "qp_error: moved exactly QP %u", a->qp_num);
	st_check(!strcmp(st_qp_state_in(r, a->qp_num), "ERR"), "qp_error: shim reports QP %u %s",
		 a->qp_num, st_qp_state_in(r, a->qp_num));
	json_decref(r);
	st_check(st_state(a) == IBV_QPS_ERR, "qp_error: ibv_query_qp says ERR");
	st = st_nl_state(ibv_get_device_name(s.ctx->device), a->qp_num, why, sizeof(why));
	st_check(st && !strcmp(st, "ERR"), "qp_error: RDMA netlink says QP %u is %s", a->qp_num,
		 st ? st : why);
	ret = st_write(&s, a, 5);
	st_check(ret == IBV_WC_WR_FLUSH_ERR, "qp_error: a WR posted now completes with %s",
		 ret >= 0 && shim_wc_status_name(ret) ? shim_wc_status_name(ret) : "nothing");
	{
		struct shim_cmd bad = {.op = SHIM_OP_QP_ERROR, .sel = SHIM_QP_QPN, .qpn = 0xffffff};

		r = NULL;
		ret = shim_call(sock, &bad, 2000, &r, why, sizeof(why));
		/* the shim's ENOENT is named in the sentence; the code is the agent's own */
		st_check(ret == -EREMOTEIO && !r && strstr(why, "(No such file or directory)"),
			 "qp_error on an unknown QPN is refused: %s", why);
		json_decref(r);
	}

	/* qp_error next: the next QP created goes to ERR at RTS */
	json_decref(st_call(sock, "qp_error next"));
	c = st_qp(&s);
	d = st_qp(&s);
	ret = st_connect(&s, c, d->qp_num);
	st_check(!ret, "qp_error next: the process's own modify to RTS succeeds (%s)",
		 strerror(ret));
	st_check(st_state(c) == IBV_QPS_ERR, "qp_error next: QP %u is in ERR right after RTS",
		 c->qp_num);
	ret = st_connect(&s, d, c->qp_num);
	st_check(!ret && st_state(d) == IBV_QPS_RTS, "qp_error next: only one QP: QP %u is in RTS",
		 d->qp_num);
	st = st_nl_state(ibv_get_device_name(s.ctx->device), c->qp_num, why, sizeof(why));
	st_check(st && !strcmp(st, "ERR"), "qp_error next: RDMA netlink says QP %u is %s",
		 c->qp_num, st ? st : why);

	/* clear: nothing armed, all works */
	json_decref(st_call(sock, "fail_wr count=5 status=IBV_WC_RETRY_EXC_ERR"));
	json_decref(st_call(sock, "clear"));
	r = st_call(sock, "status");
	st_check(!json_is_true(json_object_get(json_object_get(r, "armed"), "any")),
		 "after clear: nothing armed");
	st_check(st_int(r, "qp_errors") == 2, "status: qp_errors = %lld",
		 (long long)st_int(r, "qp_errors"));
	json_decref(r);
	ibv_destroy_qp(a);
	ibv_destroy_qp(b);
	ibv_destroy_qp(c);
	/* Fresh pair after clear: completions succeed (no fail_wr left behind). */
	a = st_qp(&s);
	b = st_qp(&s);
	ret = st_connect(&s, a, b->qp_num);
	if (!ret)
		ret = st_connect(&s, b, a->qp_num);
	for (fails = 0, i = 0; !ret && i < 5; i++)
		fails += st_write(&s, a, 10 + (uint64_t)i) != IBV_WC_SUCCESS;
	st_check(!ret && !fails, "after clear: a new QP pair completes 5 writes with success");
	r = st_call(sock, "status");
	st_check(json_array_size(json_object_get(r, "qps")) == 3,
		 "status: destroyed QPs are forgotten (%zu tracked)",
		 json_array_size(json_object_get(r, "qps")));
	json_decref(r);

	ibv_destroy_qp(a);
	ibv_destroy_qp(b);
	ibv_destroy_qp(d);
	ibv_dereg_mr(s.mr);
	ibv_destroy_cq(s.cq);
	ibv_dealloc_pd(s.pd);
	ibv_close_device(s.ctx);
	free(s.buf);
	/* Our own socket folder (the shim's destructor would unlink the socket after main). */
	unlink(sock);
	if (strrchr(sock, '/')) {
		snprintf(why, sizeof(why), "%.*s", (int)(strrchr(sock, '/') - sock), sock);
		rmdir(why);
	}
	printf("1..%d\n", st_n);
	return st_failed ? 1 : 0;
}
