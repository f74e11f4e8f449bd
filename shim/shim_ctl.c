// SPDX-License-Identifier: MIT
/*
 * The shim's control thread: listens on $RDMACHAOS_SHIM_SOCK (unix
 * SOCK_SEQPACKET, 0600), reads one command line per connection
 * (common/shim_proto.h), arms or applies it, and answers one JSON object.
 *
 * It must not disturb the workload: it starts once (at load time when the
 * program links libibverbs, else at the first ibv_open_device), blocks every
 * signal so the workload's handlers run on the workload's threads, writes
 * only to stderr, refuses peers that are neither root nor the same user, and
 * unlinks its socket when the process exits. A process that finds another
 * live process answering on the path (its parent, sharing the environment)
 * leaves it alone and stays uncontrolled.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "shim/shim.h"

#define SHIM_RECV_TIMEOUT_MS 2000
#define SHIM_EFFECT_MAX 16384

static pthread_once_t shim_ctl_once = PTHREAD_ONCE_INIT;
static pid_t shim_ctl_owner; /* the process that bound the socket */
static dev_t shim_ctl_dev;
static ino_t shim_ctl_ino;

static const char *shim_op_name(enum shim_op op)
{
	switch (op) {
	case SHIM_OP_QP_ERROR:
		return "qp_error";
	case SHIM_OP_FAIL_WR:
		return "fail_wr";
	case SHIM_OP_FAIL_MR:
		return "fail_mr";
	case SHIM_OP_CLEAR:
		return "clear";
	case SHIM_OP_STATUS:
		return "status";
	}
	return "?";
}

static void shim_reply_err(struct shim_buf *b, int err, const char *msg)
{
	b->len = 0;
	b->truncated = false;
	shim_bprintf(b, "{\"ok\":false,\"pid\":%d,\"errno\":%d,\"error\":", (int)getpid(), err);
	shim_bstr(b, msg);
	shim_bprintf(b, "}");
}

static bool shim_armed_any(void)
{
	return (atomic_load(&shim_st.armed) & SHIM_ARM_NEXT) || atomic_load(&shim_st.wr_left) ||
	       atomic_load(&shim_st.mr_left) || atomic_load(&shim_st.mr_prob_thr);
}

/* "armed":{...},"qp_errors":..,"failed_wrs":..,"failed_mrs":.. and the QPs, then "}". */
static void shim_status_tail(struct shim_buf *b, bool with_qps)
{
	const char *wcs = shim_wc_status_name(atomic_load(&shim_st.wc_status));
	const char *en = shim_errno_name(atomic_load(&shim_st.mr_errno));

	if (with_qps)
		shim_qps_json(b);
	else
		shim_bprintf(b, "\"qps_omitted\":true,");
	shim_bprintf(b,
		     "\"armed\":{\"any\":%s,\"qp_next\":%s,\"fail_wr\":%u,\"wc_status\":\"%s\","
		     "\"fail_mr\":%u,\"mr_prob\":%.6g,\"mr_errno\":",
		     shim_armed_any() ? "true" : "false",
		     (atomic_load(&shim_st.armed) & SHIM_ARM_NEXT) ? "true" : "false",
		     atomic_load(&shim_st.wr_left), wcs ? wcs : "?", atomic_load(&shim_st.mr_left),
		     (double)atomic_load(&shim_st.mr_prob_thr) / (double)SHIM_PROB_ONE);
	if (en)
		shim_bprintf(b, "\"%s\"", en);
	else
		shim_bprintf(b, "%d", atomic_load(&shim_st.mr_errno));
	shim_bprintf(b, "},\"qp_errors\":%llu,\"failed_wrs\":%llu,\"failed_mrs\":%llu}",
		     atomic_load(&shim_st.qp_errors), atomic_load(&shim_st.failed_wrs),
		     atomic_load(&shim_st.failed_mrs));
}

/* Applies @c; its own fields go to @e. 0, or a positive errno with a sentence in @msg. */
static int shim_apply(const struct shim_cmd *c, struct shim_buf *e, char *msg, size_t msglen)
{
	unsigned long long thr;
	int matched, moved = 0;

	switch (c->op) {
	case SHIM_OP_QP_ERROR:
		if (c->sel == SHIM_QP_NEXT) {
			atomic_store(&shim_st.next_after, atomic_load(&shim_st.qp_seq));
			atomic_fetch_or(&shim_st.armed, SHIM_ARM_NEXT);
			shim_log("qp_error next: armed (the next QP created goes to ERR at RTS)");
			return 0;
		}
		matched = shim_qps_error(c->sel, c->qpn, e, &moved);
		if (c->sel == SHIM_QP_QPN && !matched) {
			snprintf(msg, msglen, "no QP with QPN %u in process %d", c->qpn,
				 (int)getpid());
			return ENOENT;
		}
		if (e->truncated) {
			e->len = 0;
			e->truncated = false;
			shim_bprintf(e, "\"moved_count\":%d,", moved);
		}
		shim_bprintf(e, "\"matched\":%d,", matched);
		shim_log("qp_error %s: moved %d of %d QP(s) to ERR",
			 c->sel == SHIM_QP_ALL ? "all" : "qpn", moved, matched);
		return 0;
	case SHIM_OP_FAIL_WR:
		atomic_store(&shim_st.wc_status, c->wc_status);
		atomic_store(&shim_st.wr_left, c->count);
		atomic_fetch_or(&shim_st.armed, SHIM_ARM_WR);
		shim_log("fail_wr: armed: the next %u successful completion(s) become %s", c->count,
			 shim_wc_status_name(c->wc_status));
		return 0;
	case SHIM_OP_FAIL_MR:
		atomic_store(&shim_st.mr_errno, c->mr_errno);
		if (c->mr_prob > 0) {
			thr = c->mr_prob >= 1.0
				  ? SHIM_PROB_ONE
				  : (unsigned long long)(c->mr_prob * (double)SHIM_PROB_ONE);
			atomic_store(&shim_st.mr_left, 0);
			atomic_store(&shim_st.mr_prob_thr, thr ? thr : 1);
			shim_log("fail_mr: armed: each registration fails with probability %g "
				 "(errno %d)",
				 c->mr_prob, c->mr_errno);
		} else {
			atomic_store(&shim_st.mr_prob_thr, 0);
			atomic_store(&shim_st.mr_left, c->mr_count);
			shim_log("fail_mr: armed: the next %u registration(s) fail (errno %d)",
				 c->mr_count, c->mr_errno);
		}
		atomic_fetch_or(&shim_st.armed, SHIM_ARM_MR);
		return 0;
	case SHIM_OP_CLEAR:
		shim_bprintf(e, "\"was_armed\":%s,", shim_armed_any() ? "true" : "false");
		atomic_store(&shim_st.armed, 0);
		atomic_store(&shim_st.wr_left, 0);
		atomic_store(&shim_st.mr_left, 0);
		atomic_store(&shim_st.mr_prob_thr, 0);
		shim_log("clear: disarmed");
		return 0;
	case SHIM_OP_STATUS:
		return 0;
	}
	snprintf(msg, msglen, "unknown command");
	return EINVAL;
}

static void shim_handle(const char *line, struct shim_buf *b, struct shim_buf *e)
{
	struct shim_cmd c;
	char msg[256];
	size_t head;
	int err;

	e->len = 0;
	e->truncated = false;
	e->p[0] = '\0';
	if (shim_cmd_parse(line, &c, msg, sizeof(msg))) {
		shim_reply_err(b, EINVAL, msg);
		return;
	}
	err = shim_apply(&c, e, msg, sizeof(msg));
	if (err) {
		shim_reply_err(b, err, msg);
		return;
	}
	b->len = 0;
	b->truncated = false;
	shim_bprintf(b, "{\"ok\":true,\"op\":\"%s\",\"pid\":%d,%s", shim_op_name(c.op),
		     (int)getpid(), e->p);
	head = b->len;
	shim_status_tail(b, true);
	if (b->truncated) { /* too many QPs for one datagram: the counts still fit */
		b->len = head;
		b->truncated = false;
		b->p[head] = '\0';
		shim_status_tail(b, false);
	}
}

static bool shim_peer_ok(int fd)
{
	struct ucred cr;
	socklen_t len = sizeof(cr);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len))
		return false;
	return cr.uid == 0 || cr.uid == geteuid();
}

static void shim_serve(int fd, struct shim_buf *b, struct shim_buf *e)
{
	struct pollfd pfd = {.fd = fd, .events = POLLIN};
	char line[SHIM_LINE_MAX];
	ssize_t n;
	int rc;

	if (!shim_peer_ok(fd))
		return;
	do
		rc = poll(&pfd, 1, SHIM_RECV_TIMEOUT_MS);
	while (rc < 0 && errno == EINTR);
	if (rc <= 0)
		return;
	n = recv(fd, line, sizeof(line) - 1, MSG_TRUNC);
	if (n <= 0)
		return; /* a probe, or a peer that gave up */
	if ((size_t)n >= sizeof(line)) {
		shim_reply_err(b, EINVAL, "shim command is too long");
	} else {
		line[n] = '\0';
		if (memchr(line, '\0', (size_t)n))
			shim_reply_err(b, EINVAL, "shim command contains a NUL byte");
		else
			shim_handle(line, b, e);
	}
	if (send(fd, b->p, b->len, MSG_NOSIGNAL) < 0)
		shim_log("control reply: %s", strerror(errno));
}

static void *shim_ctl_main(void *arg)
{
	static char rbuf[SHIM_REPLY_MAX], ebuf[SHIM_EFFECT_MAX];
	struct shim_buf b = {.p = rbuf, .cap = sizeof(rbuf)};
	struct shim_buf e = {.p = ebuf, .cap = sizeof(ebuf)};
	int lfd = (int)(intptr_t)arg, fd;

	for (;;) {
		fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno != EINTR && errno != ECONNABORTED) {
				shim_log("control socket %s: accept: %s", shim_sock_path,
					 strerror(errno));
				usleep(100000); /* EMFILE and the like: do not spin */
			}
			continue;
		}
		shim_serve(fd, &b, &e);
		close(fd);
	}
	return NULL;
}

/* Binds the socket; -1 (logged) when it cannot or another process owns it. */
static int shim_ctl_listen(void)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct stat st;
	int fd, probe;

	strcpy(sa.sun_path, shim_sock_path);
	probe = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (probe >= 0) {
		if (!connect(probe, (struct sockaddr *)&sa, sizeof(sa))) {
			close(probe);
			shim_log("another process answers at %s: this one is not controllable",
				 shim_sock_path);
			return -1;
		}
		/* Nobody listens: a dead workload's socket, safe to replace. */
		if (errno == ECONNREFUSED)
			unlink(shim_sock_path);
		close(probe);
	}
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		shim_log("control socket: %s", strerror(errno));
		return -1;
	}
	/* The inode's mode becomes the file's: 0600 from the start, no umask dance. */
	if (fchmod(fd, 0600) < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    chmod(shim_sock_path, 0600) < 0 || listen(fd, 8) < 0 || stat(shim_sock_path, &st) < 0) {
		shim_log("control socket %s: %s: the shim cannot be commanded", shim_sock_path,
			 strerror(errno));
		close(fd);
		return -1;
	}
	shim_ctl_owner = getpid();
	shim_ctl_dev = st.st_dev;
	shim_ctl_ino = st.st_ino;
	return fd;
}

static void shim_ctl_spawn(void)
{
	sigset_t all, old;
	pthread_attr_t attr;
	pthread_t t;
	int fd, ret;

	fd = shim_ctl_listen();
	if (fd < 0)
		return;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, 256 * 1024);
	ret = pthread_create(&t, &attr, shim_ctl_main, (void *)(intptr_t)fd);
	pthread_attr_destroy(&attr);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret) {
		shim_log("control thread: %s", strerror(ret));
		close(fd);
		unlink(shim_sock_path);
		shim_ctl_owner = 0;
		return;
	}
	pthread_setname_np(t, "rdmachaos-shim");
}

void shim_ctl_start(void)
{
	if (shim_enabled)
		pthread_once(&shim_ctl_once, shim_ctl_spawn);
}

/* Only the process that bound it, and only if the path is still that socket. */
__attribute__((destructor)) static void shim_ctl_exit(void)
{
	struct stat st;

	if (!shim_ctl_owner || shim_ctl_owner != getpid())
		return;
	if (!stat(shim_sock_path, &st) && st.st_dev == shim_ctl_dev && st.st_ino == shim_ctl_ino)
		unlink(shim_sock_path);
}
