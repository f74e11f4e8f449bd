// SPDX-License-Identifier: MIT
/*
 * The interposed verbs of librdmachaos-verbs.so. Each hook calls the real
 * libibverbs function found with dlsym(RTLD_NEXT); with RDMACHAOS_SHIM_SOCK
 * unset it does only that. With it set, the hooks:
 *   - track every QP (ibv_create_qp, the context's create_qp_ex op, which the
 *     static inline ibv_create_qp_ex calls; removed at ibv_destroy_qp) with
 *     the state the process last moved it to;
 *   - wrap each opened context's ops.poll_cq (ibv_poll_cq is static inline
 *     through ctx->ops, so no symbol can be hooked) to rewrite the status of
 *     the next N successful completions (fail_wr);
 *   - move the next QP created after "qp_error next" to ERR right after the
 *     process moved it to RTS (ibv_modify_qp);
 *   - fail the next N memory registrations, or each with a probability, with
 *     a chosen errno (ibv_reg_mr, ibv_reg_mr_iova, ibv_reg_mr_iova2 - what
 *     the ibv_reg_mr macro may expand to - and ibv_reg_dmabuf_mr).
 * The library does not link libibverbs, so a process that never loads it
 * (a shell, say) is not touched at all.
 */
#include <dlfcn.h>
#include <errno.h>
#include <infiniband/verbs.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "shim/shim.h"

/* verbs.h makes these macros over __ibv_reg_mr*; the exported symbols are the functions. */
#undef ibv_reg_mr
#undef ibv_reg_mr_iova

#define SHIM_EXPORT __attribute__((visibility("default")))
#define SHIM_MAX_CTX 64

struct shim_state shim_st;
bool shim_enabled;
char shim_sock_path[108];

typedef struct ibv_context *(*open_device_fn)(struct ibv_device *);
typedef int (*close_device_fn)(struct ibv_context *);
typedef struct ibv_qp *(*create_qp_fn)(struct ibv_pd *, struct ibv_qp_init_attr *);
typedef struct ibv_qp *(*create_qp_ex_fn)(struct ibv_context *, struct ibv_qp_init_attr_ex *);
typedef int (*destroy_qp_fn)(struct ibv_qp *);
typedef int (*modify_qp_fn)(struct ibv_qp *, struct ibv_qp_attr *, int);
typedef int (*query_qp_fn)(struct ibv_qp *, struct ibv_qp_attr *, int, struct ibv_qp_init_attr *);
typedef struct ibv_mr *(*reg_mr_fn)(struct ibv_pd *, void *, size_t, int);
typedef struct ibv_mr *(*reg_mr_iova_fn)(struct ibv_pd *, void *, size_t, uint64_t, int);
typedef struct ibv_mr *(*reg_mr_iova2_fn)(struct ibv_pd *, void *, size_t, uint64_t, unsigned int);
typedef struct ibv_mr *(*reg_dmabuf_mr_fn)(struct ibv_pd *, uint64_t, size_t, uint64_t, int, int);
typedef int (*poll_cq_fn)(struct ibv_cq *, int, struct ibv_wc *);

/* The real functions, resolved once (the first call of any hook resolves all). */
static struct {
	open_device_fn open_device;
	close_device_fn close_device;
	create_qp_fn create_qp;
	destroy_qp_fn destroy_qp;
	modify_qp_fn modify_qp;
	query_qp_fn query_qp;
	reg_mr_fn reg_mr;
	reg_mr_iova_fn reg_mr_iova;
	reg_mr_iova2_fn reg_mr_iova2;
	reg_dmabuf_mr_fn reg_dmabuf_mr;
} real;
static pthread_once_t shim_real_once = PTHREAD_ONCE_INIT;

/* The contexts whose ops we wrapped, with their originals; lookups are lock-free. */
static struct shim_ctx {
	_Atomic(struct ibv_context *) ctx;
	poll_cq_fn poll_cq;
	create_qp_ex_fn create_qp_ex; /* NULL: the context has no create_qp_ex op */
} shim_ctxs[SHIM_MAX_CTX];
static atomic_int shim_nctx; /* slots ever used: lookups scan [0, shim_nctx) */
static pthread_mutex_t shim_ctx_lock = PTHREAD_MUTEX_INITIALIZER;

struct shim_qp {
	struct ibv_qp *qp;
	uint32_t qpn;
	uint64_t seq; /* creation order, 1-based */
	int state;    /* as the process (or the shim) last set it */
	struct shim_qp *next;
};
static struct shim_qp *shim_qps;
static pthread_mutex_t shim_qp_lock = PTHREAD_MUTEX_INITIALIZER;

/* Nesting guard: libibverbs' ibv_reg_mr may call the exported ibv_reg_mr_iova2. */
static __thread int shim_depth;

void shim_log(const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int n;

	n = snprintf(line, sizeof(line), "rdmachaos-shim[%d]: ", (int)getpid());
	va_start(ap, fmt);
	vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	n = (int)strlen(line);
	line[n++] = '\n';
	/* One write(2), so lines from threads do not interleave. */
	if (write(STDERR_FILENO, line, (size_t)n) < 0)
		return;
}

static void *shim_sym(const char *name)
{
	void *p = dlsym(RTLD_NEXT, name);

	/* Absent only when libibverbs is not loaded: then no hook can be called. */
	if (!p && shim_enabled)
		shim_log("%s not found after the shim (%s)", name, dlerror());
	return p;
}

static void shim_resolve(void)
{
	real.open_device = (open_device_fn)shim_sym("ibv_open_device");
	real.close_device = (close_device_fn)shim_sym("ibv_close_device");
	real.create_qp = (create_qp_fn)shim_sym("ibv_create_qp");
	real.destroy_qp = (destroy_qp_fn)shim_sym("ibv_destroy_qp");
	real.modify_qp = (modify_qp_fn)shim_sym("ibv_modify_qp");
	real.query_qp = (query_qp_fn)shim_sym("ibv_query_qp");
	real.reg_mr = (reg_mr_fn)shim_sym("ibv_reg_mr");
	real.reg_mr_iova = (reg_mr_iova_fn)shim_sym("ibv_reg_mr_iova");
	real.reg_mr_iova2 = (reg_mr_iova2_fn)shim_sym("ibv_reg_mr_iova2");
	real.reg_dmabuf_mr = (reg_dmabuf_mr_fn)shim_sym("ibv_reg_dmabuf_mr");
}

static inline void shim_real(void)
{
	pthread_once(&shim_real_once, shim_resolve);
}

static void shim_fork_prepare(void)
{
	pthread_mutex_lock(&shim_ctx_lock);
	pthread_mutex_lock(&shim_qp_lock);
}

static void shim_fork_release(void)
{
	pthread_mutex_unlock(&shim_qp_lock);
	pthread_mutex_unlock(&shim_ctx_lock);
}

__attribute__((constructor)) static void shim_init(void)
{
	const char *p = getenv(SHIM_SOCK_ENV);

	if (!p || !*p)
		return;
	if (strlen(p) >= sizeof(shim_sock_path)) {
		shim_log("%s is longer than %zu bytes: the shim stays inert", SHIM_SOCK_ENV,
			 sizeof(shim_sock_path) - 1);
		return;
	}
	strcpy(shim_sock_path, p);
	shim_enabled = true;
	/* What status shows before anything is armed. */
	atomic_store(&shim_st.wc_status, IBV_WC_RETRY_EXC_ERR);
	atomic_store(&shim_st.mr_errno, ENOMEM);
	/* A child forked while the control thread held a lock would inherit it held. */
	pthread_atfork(shim_fork_prepare, shim_fork_release, shim_fork_release);
	/*
	 * Listen at once when the program links libibverbs, so "qp_error next"
	 * can be armed before it opens a device; a process that dlopen()s it
	 * later starts listening at its first ibv_open_device.
	 */
	if (dlopen("libibverbs.so.1", RTLD_LAZY | RTLD_NOLOAD))
		shim_ctl_start();
}

/* ---- JSON reply helpers (shared with shim_ctl.c) ---- */

void shim_bprintf(struct shim_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->truncated || b->len >= b->cap)
		return;
	va_start(ap, fmt);
	n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= b->cap - b->len) {
		b->truncated = true;
		b->p[b->len] = '\0';
		return;
	}
	b->len += (size_t)n;
}

void shim_bstr(struct shim_buf *b, const char *s)
{
	const unsigned char *c;

	shim_bprintf(b, "\"");
	for (c = (const unsigned char *)(s ? s : ""); *c; c++) {
		if (*c == '"' || *c == '\\')
			shim_bprintf(b, "\\%c", *c);
		else if (*c < 0x20 || *c >= 0x7f)
			shim_bprintf(b, "\\u%04x", *c); /* bytes as Latin-1: valid JSON, readable */
		else
			shim_bprintf(b, "%c", *c);
	}
	shim_bprintf(b, "\"");
}

/* ---- contexts and the wrapped ops ---- */

static struct shim_ctx *shim_ctx_find(const struct ibv_context *ctx)
{
	int i, n = atomic_load_explicit(&shim_nctx, memory_order_acquire);

	for (i = 0; i < n; i++)
		if (atomic_load_explicit(&shim_ctxs[i].ctx, memory_order_acquire) == ctx)
			return &shim_ctxs[i];
	return NULL;
}

/* Rewrites the status of successful completions while fail_wr has some left. */
static void shim_fail_wcs(struct ibv_wc *wc, int n)
{
	unsigned int left;
	int i;

	for (i = 0; i < n; i++) {
		if (wc[i].status != IBV_WC_SUCCESS)
			continue;
		left = atomic_load_explicit(&shim_st.wr_left, memory_order_relaxed);
		do {
			if (!left)
				return;
		} while (!atomic_compare_exchange_weak_explicit(
		    &shim_st.wr_left, &left, left - 1, memory_order_relaxed, memory_order_relaxed));
		wc[i].status = (enum ibv_wc_status)atomic_load_explicit(&shim_st.wc_status,
									memory_order_relaxed);
		wc[i].vendor_err = 0;
		atomic_fetch_add_explicit(&shim_st.failed_wrs, 1, memory_order_relaxed);
	}
}

static int shim_poll_cq(struct ibv_cq *cq, int num, struct ibv_wc *wc)
{
	struct shim_ctx *c = shim_ctx_find(cq->context);
	int n;

	if (!c) {
		errno = EINVAL; /* cannot happen: only registered contexts point here */
		return -1;
	}
	n = c->poll_cq(cq, num, wc);
	if (n > 0 && (atomic_load_explicit(&shim_st.armed, memory_order_relaxed) & SHIM_ARM_WR))
		shim_fail_wcs(wc, n);
	return n;
}

static void shim_qp_track(struct ibv_qp *qp)
{
	struct shim_qp *q;

	pthread_mutex_lock(&shim_qp_lock);
	for (q = shim_qps; q; q = q->next)
		if (q->qp == qp)
			goto out; /* both create paths saw it */
	q = calloc(1, sizeof(*q));
	if (!q) {
		shim_log("QP %u: out of memory: it cannot be targeted", qp->qp_num);
		goto out;
	}
	q->qp = qp;
	q->qpn = qp->qp_num;
	q->state = IBV_QPS_RESET;
	q->seq = atomic_fetch_add(&shim_st.qp_seq, 1) + 1;
	q->next = shim_qps;
	shim_qps = q;
out:
	pthread_mutex_unlock(&shim_qp_lock);
}

static struct ibv_qp *shim_create_qp_ex(struct ibv_context *ctx, struct ibv_qp_init_attr_ex *attr)
{
	struct shim_ctx *c = shim_ctx_find(ctx);
	struct ibv_qp *qp;

	if (!c || !c->create_qp_ex) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	qp = c->create_qp_ex(ctx, attr);
	if (qp)
		shim_qp_track(qp);
	return qp;
}

static void shim_ctx_register(struct ibv_context *ctx)
{
	struct verbs_context *vctx = verbs_get_ctx_op(ctx, create_qp_ex);
	struct shim_ctx *c = NULL;
	int i, n;

	pthread_mutex_lock(&shim_ctx_lock);
	n = atomic_load(&shim_nctx);
	for (i = 0; i < n && !c; i++)
		if (!atomic_load(&shim_ctxs[i].ctx))
			c = &shim_ctxs[i];
	if (!c && n < SHIM_MAX_CTX) {
		c = &shim_ctxs[n];
		atomic_store_explicit(&shim_nctx, n + 1, memory_order_release);
	}
	if (!c) {
		shim_log("%s: more than %d open contexts: fail_wr and create_qp_ex QPs not covered",
			 ctx->device->name, SHIM_MAX_CTX);
		goto out;
	}
	c->poll_cq = ctx->ops.poll_cq;
	c->create_qp_ex = vctx ? vctx->create_qp_ex : NULL;
	/* Publish the originals before the wrappers can look them up. */
	atomic_store_explicit(&c->ctx, ctx, memory_order_release);
	ctx->ops.poll_cq = shim_poll_cq;
	if (vctx)
		vctx->create_qp_ex = shim_create_qp_ex;
out:
	pthread_mutex_unlock(&shim_ctx_lock);
}

static void shim_ctx_unregister(struct ibv_context *ctx)
{
	struct verbs_context *vctx;
	struct shim_ctx *c;

	pthread_mutex_lock(&shim_ctx_lock);
	c = shim_ctx_find(ctx);
	if (c) {
		/* Put the provider's ops back, in case the provider looks at them on close. */
		ctx->ops.poll_cq = c->poll_cq;
		vctx = verbs_get_ctx(ctx);
		if (vctx && c->create_qp_ex)
			vctx->create_qp_ex = c->create_qp_ex;
		atomic_store_explicit(&c->ctx, NULL, memory_order_release);
	}
	pthread_mutex_unlock(&shim_ctx_lock);
}

/* ---- the exported hooks ---- */

SHIM_EXPORT struct ibv_context *ibv_open_device(struct ibv_device *device)
{
	struct ibv_context *ctx;

	shim_real();
	if (!real.open_device) {
		errno = ENOSYS;
		return NULL;
	}
	ctx = real.open_device(device);
	if (ctx && shim_enabled) {
		shim_ctx_register(ctx);
		shim_ctl_start();
	}
	return ctx;
}

SHIM_EXPORT int ibv_close_device(struct ibv_context *ctx)
{
	shim_real();
	if (!real.close_device)
		return ENOSYS;
	if (shim_enabled)
		shim_ctx_unregister(ctx);
	return real.close_device(ctx);
}

SHIM_EXPORT struct ibv_qp *ibv_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr)
{
	struct ibv_qp *qp;

	shim_real();
	if (!real.create_qp) {
		errno = ENOSYS;
		return NULL;
	}
	qp = real.create_qp(pd, attr);
	if (qp && shim_enabled)
		shim_qp_track(qp);
	return qp;
}

SHIM_EXPORT int ibv_destroy_qp(struct ibv_qp *qp)
{
	struct shim_qp **pp, *q = NULL;
	int ret;

	shim_real();
	if (!real.destroy_qp)
		return ENOSYS;
	if (!shim_enabled)
		return real.destroy_qp(qp);
	/* Held across the destroy: the control thread never touches a freed QP. */
	pthread_mutex_lock(&shim_qp_lock);
	ret = real.destroy_qp(qp);
	if (!ret) {
		for (pp = &shim_qps; *pp; pp = &(*pp)->next)
			if ((*pp)->qp == qp) {
				q = *pp;
				*pp = q->next;
				break;
			}
	}
	pthread_mutex_unlock(&shim_qp_lock);
	free(q);
	return ret;
}

static struct shim_qp *shim_qp_find_locked(const struct ibv_qp *qp)
{
	struct shim_qp *q;

	for (q = shim_qps; q; q = q->next)
		if (q->qp == qp)
			return q;
	return NULL;
}

/* Called with shim_qp_lock held. 0 or a positive errno, like ibv_modify_qp. */
static int shim_qp_to_err_locked(struct shim_qp *q)
{
	struct ibv_qp_attr attr = {.qp_state = IBV_QPS_ERR};
	int ret = real.modify_qp(q->qp, &attr, IBV_QP_STATE);

	if (ret)
		return ret;
	q->state = IBV_QPS_ERR;
	atomic_fetch_add_explicit(&shim_st.qp_errors, 1, memory_order_relaxed);
	return 0;
}

SHIM_EXPORT int ibv_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask)
{
	struct shim_qp *q;
	int ret, err;

	shim_real();
	if (!real.modify_qp)
		return ENOSYS;
	ret = real.modify_qp(qp, attr, mask);
	if (ret || !shim_enabled || !(mask & IBV_QP_STATE))
		return ret;
	pthread_mutex_lock(&shim_qp_lock);
	q = shim_qp_find_locked(qp);
	if (q) {
		q->state = attr->qp_state;
		if (attr->qp_state == IBV_QPS_RTS &&
		    (atomic_load_explicit(&shim_st.armed, memory_order_relaxed) & SHIM_ARM_NEXT) &&
		    q->seq > atomic_load(&shim_st.next_after) &&
		    (atomic_fetch_and(&shim_st.armed, ~SHIM_ARM_NEXT) & SHIM_ARM_NEXT)) {
			err = shim_qp_to_err_locked(q);
			if (err)
				shim_log("qp_error next: QP %u: ibv_modify_qp(ERR): %s", q->qpn,
					 strerror(err));
			else
				shim_log("qp_error next: QP %u moved to ERR after it reached RTS",
					 q->qpn);
		}
	}
	pthread_mutex_unlock(&shim_qp_lock);
	/* The process asked for RTS and got it; the QP is in ERR from now on. */
	return ret;
}

/* A thread's own xorshift64*, seeded from the clock and the thread: no locks. */
static uint64_t shim_rand53(void)
{
	static __thread uint64_t s;
	struct timespec ts;

	if (!s) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		s = ((uint64_t)ts.tv_nsec << 20) ^ (uint64_t)ts.tv_sec ^ (uint64_t)(uintptr_t)&s;
		s |= 1;
	}
	s ^= s >> 12;
	s ^= s << 25;
	s ^= s >> 27;
	return (s * 0x2545F4914F6CDD1Dull) >> 11;
}

/* True when this registration must fail; then errno is set. */
static bool shim_mr_fail(void)
{
	unsigned long long thr;
	unsigned int left;

	if (shim_depth ||
	    !(atomic_load_explicit(&shim_st.armed, memory_order_relaxed) & SHIM_ARM_MR))
		return false;
	left = atomic_load_explicit(&shim_st.mr_left, memory_order_relaxed);
	while (left) {
		if (atomic_compare_exchange_weak_explicit(&shim_st.mr_left, &left, left - 1,
							  memory_order_relaxed,
							  memory_order_relaxed))
			goto fail;
	}
	thr = atomic_load_explicit(&shim_st.mr_prob_thr, memory_order_relaxed);
	if (thr && shim_rand53() < thr)
		goto fail;
	return false;
fail:
	atomic_fetch_add_explicit(&shim_st.failed_mrs, 1, memory_order_relaxed);
	errno = atomic_load_explicit(&shim_st.mr_errno, memory_order_relaxed);
	return true;
}

#define SHIM_REG(call)                                                                             \
	do {                                                                                       \
		struct ibv_mr *mr;                                                                 \
                                                                                                   \
		shim_real();                                                                       \
		if (shim_mr_fail())                                                                \
			return NULL;                                                               \
		shim_depth++;                                                                      \
		mr = call;                                                                         \
		shim_depth--;                                                                      \
		return mr;                                                                         \
	} while (0)

SHIM_EXPORT struct ibv_mr *ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access)
{
	SHIM_REG(real.reg_mr ? real.reg_mr(pd, addr, length, access) : (errno = ENOSYS, NULL));
}

SHIM_EXPORT struct ibv_mr *ibv_reg_mr_iova(struct ibv_pd *pd, void *addr, size_t length,
					   uint64_t iova, int access)
{
	SHIM_REG(real.reg_mr_iova ? real.reg_mr_iova(pd, addr, length, iova, access)
				  : (errno = ENOSYS, NULL));
}

SHIM_EXPORT struct ibv_mr *ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr, size_t length,
					    uint64_t iova, unsigned int access)
{
	SHIM_REG(real.reg_mr_iova2 ? real.reg_mr_iova2(pd, addr, length, iova, access)
				   : (errno = ENOSYS, NULL));
}

SHIM_EXPORT struct ibv_mr *ibv_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset, size_t length,
					     uint64_t iova, int fd, int access)
{
	SHIM_REG(real.reg_dmabuf_mr ? real.reg_dmabuf_mr(pd, offset, length, iova, fd, access)
				    : (errno = ENOSYS, NULL));
}

/* ---- for the control thread ---- */

static const char *shim_qp_type_name(enum ibv_qp_type t)
{
	switch (t) {
	case IBV_QPT_RC:
		return "RC";
	case IBV_QPT_UC:
		return "UC";
	case IBV_QPT_UD:
		return "UD";
	case IBV_QPT_RAW_PACKET:
		return "RAW_PACKET";
	case IBV_QPT_XRC_SEND:
		return "XRC_SEND";
	case IBV_QPT_XRC_RECV:
		return "XRC_RECV";
	case IBV_QPT_DRIVER:
		return "DRIVER";
	}
	return "UNKNOWN";
}

int shim_qps_error(enum shim_qp_sel sel, uint32_t qpn, struct shim_buf *b, int *moved_out)
{
	struct shim_buf failed = {0};
	char fbuf[4096];
	struct shim_qp *q;
	int matched = 0, moved = 0, err;

	failed.p = fbuf;
	failed.cap = sizeof(fbuf);
	fbuf[0] = '\0';
	shim_real();
	shim_bprintf(b, "\"moved\":[");
	pthread_mutex_lock(&shim_qp_lock);
	for (q = shim_qps; q; q = q->next) {
		if (sel == SHIM_QP_QPN && q->qpn != qpn)
			continue;
		matched++;
		err = real.modify_qp ? shim_qp_to_err_locked(q) : ENOSYS;
		if (err) {
			shim_bprintf(&failed,
				     "%s{\"qpn\":%u,\"errno\":%d,\"error\":", failed.len ? "," : "",
				     q->qpn, err);
			shim_bstr(&failed, strerror(err));
			shim_bprintf(&failed, "}");
			continue;
		}
		shim_bprintf(b, "%s%u", moved++ ? "," : "", q->qpn);
	}
	pthread_mutex_unlock(&shim_qp_lock);
	shim_bprintf(b, "],\"failed\":[%s],", fbuf);
	*moved_out = moved;
	return matched;
}

void shim_qps_json(struct shim_buf *b)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr attr;
	struct shim_qp *q;
	int n = 0, state;

	shim_real();
	shim_bprintf(b, "\"qps\":[");
	pthread_mutex_lock(&shim_qp_lock);
	for (q = shim_qps; q; q = q->next) {
		state = q->state;
		/* The kernel's word, when it answers: a QP also fails on its own. */
		if (real.query_qp && !real.query_qp(q->qp, &attr, IBV_QP_STATE, &init))
			state = attr.qp_state;
		shim_bprintf(b, "%s{\"qpn\":%u,\"state\":\"%s\",\"device\":", n++ ? "," : "",
			     q->qpn, shim_qp_state_name(state));
		shim_bstr(b, q->qp->context && q->qp->context->device ? q->qp->context->device->name
								      : "");
		shim_bprintf(b, ",\"type\":\"%s\"}", shim_qp_type_name(q->qp->qp_type));
	}
	pthread_mutex_unlock(&shim_qp_lock);
	shim_bprintf(b, "],");
}
