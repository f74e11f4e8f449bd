// SPDX-License-Identifier: MIT
/* The io_uring event loop: multishot polls dispatched by user_data, and software timers on a
 * timerfd. */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "agents/agent_loop.h"
#include "common/log.h"
#include "common/units.h"

/* Completions of poll-remove requests carry this user_data and are ignored. */
#define AGENT_LOOP_IGNORE 0

static struct io_uring_sqe *agent_loop_sqe(struct agent_loop *l)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&l->ring);

	if (!sqe) {
		/* The submission queue is full: hand it to the kernel and retry once. */
		io_uring_submit(&l->ring);
		sqe = io_uring_get_sqe(&l->ring);
	}
	return sqe;
}

void agent_poll_init(struct agent_poll *p, struct agent_loop *l, int fd, unsigned int mask,
		     bool oneshot, void (*ready)(struct agent_poll *p, int res),
		     void (*idle)(struct agent_poll *p))
{
	memset(p, 0, sizeof(*p));
	p->loop = l;
	p->fd = fd;
	p->mask = mask;
	p->oneshot = oneshot;
	p->ready = ready;
	p->idle = idle;
	agent_list_init(&p->idle_node);
}

int agent_poll_arm(struct agent_poll *p)
{
	struct io_uring_sqe *sqe;

	if (p->in_ring || p->stopped)
		return 0;
	sqe = agent_loop_sqe(p->loop);
	if (!sqe)
		return -EBUSY;
	if (p->oneshot)
		io_uring_prep_poll_add(sqe, p->fd, p->mask);
	else
		io_uring_prep_poll_multishot(sqe, p->fd, p->mask);
	io_uring_sqe_set_data(sqe, p);
	p->in_ring = true;
	return 0;
}

/* Defers p->idle() to the loop, so owners never see it re-entrantly. */
static void agent_poll_queue_idle(struct agent_poll *p)
{
	if (p->idle && agent_list_empty(&p->idle_node))
		agent_list_add_tail(&p->idle_node, &p->loop->idle_due);
}

void agent_poll_stop(struct agent_poll *p)
{
	struct io_uring_sqe *sqe;

	if (p->stopped)
		return;
	p->stopped = true;
	if (!p->in_ring) {
		agent_poll_queue_idle(p);
		return;
	}
	sqe = agent_loop_sqe(p->loop);
	if (!sqe) {
		/*
		 * Only if the kernel refused a submission: the ring keeps p, so p is
		 * leaked (idle() never runs) rather than freed under the ring.
		 */
		rc_err("loop: no submission slot to remove the poll on fd %d", p->fd);
		return;
	}
	io_uring_prep_poll_remove(sqe, (__u64)(uintptr_t)p);
	io_uring_sqe_set_data64(sqe, AGENT_LOOP_IGNORE);
}

static void agent_poll_complete(struct agent_poll *p, int res, unsigned int flags)
{
	if (!(flags & IORING_CQE_F_MORE))
		p->in_ring = false;
	if (p->stopped) {
		if (!p->in_ring)
			agent_poll_queue_idle(p);
		return;
	}
	if (res == -ECANCELED && !p->in_ring) {
		/* The kernel dropped a multishot poll (e.g. on overflow): just re-arm. */
		agent_poll_arm(p);
		return;
	}
	p->ready(p, res);
	if (p->stopped) {
		if (!p->in_ring)
			agent_poll_queue_idle(p);
		return;
	}
	if (p->oneshot || p->in_ring)
		return;
	if (res < 0) {
		/* EBADF and the like would fail again at once: say so rather than spin. */
		rc_err("loop: poll on fd %d failed: %s; no longer watched", p->fd, strerror(-res));
		return;
	}
	agent_poll_arm(p);
}

void agent_timer_set(struct agent_loop *l, struct agent_timer *t, uint64_t due_ns)
{
	if (t->pending)
		agent_list_del(&t->node);
	t->due_ns = due_ns;
	t->pending = true;
	agent_list_add_tail(&t->node, &l->timers);
}

void agent_timer_cancel(struct agent_timer *t)
{
	if (!t->pending)
		return;
	agent_list_del(&t->node);
	t->pending = false;
}

/* The earliest pending timer, or NULL. Timers are few (faults, workloads): a scan is enough. */
static struct agent_timer *agent_timer_first(struct agent_loop *l)
{
	struct agent_timer *best = NULL;
	struct agent_list *pos, *tmp;

	agent_list_for_each_safe(pos, tmp, &l->timers)
	{
		struct agent_timer *t = agent_list_entry(pos, struct agent_timer, node);

		if (!best || t->due_ns < best->due_ns)
			best = t;
	}
	return best;
}

static void agent_timer_rearm(struct agent_loop *l)
{
	struct agent_timer *t = agent_timer_first(l);
	uint64_t due = t ? t->due_ns : 0;
	struct itimerspec its = {0};

	if (due == l->armed_ns)
		return;
	if (due) {
		its.it_value.tv_sec = (time_t)(due / RC_NSEC_PER_SEC);
		its.it_value.tv_nsec = (long)(due % RC_NSEC_PER_SEC);
		if (!its.it_value.tv_sec && !its.it_value.tv_nsec)
			its.it_value.tv_nsec = 1; /* all zero would disarm */
	}
	if (timerfd_settime(l->timer_fd, TFD_TIMER_ABSTIME, &its, NULL))
		rc_err("loop: timerfd_settime: %s", strerror(errno));
	else
		l->armed_ns = due;
}

static void agent_timer_ready(struct agent_poll *p, int res)
{
	struct agent_loop *l = p->loop;
	uint64_t expirations, now;
	struct agent_timer *t;

	while (read(l->timer_fd, &expirations, sizeof(expirations)) > 0)
		;
	l->armed_ns = 0;
	/*
	 * Fire everything due by now, including timers a handler sets at or before now; one it
	 * sets later (a continuation: "after whatever else is ready") waits for the next turn.
	 */
	now = rc_now_ns();
	while ((t = agent_timer_first(l)) && t->due_ns <= now) {
		agent_timer_cancel(t);
		t->fire(t);
	}
}

int agent_loop_init(struct agent_loop *l, unsigned int entries)
{
	int ret;

	memset(l, 0, sizeof(*l));
	agent_list_init(&l->timers);
	agent_list_init(&l->idle_due);
	l->timer_fd = -1;
	ret = io_uring_queue_init(entries, &l->ring, 0);
	if (ret)
		return ret;
	l->ring_ok = true;
	l->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (l->timer_fd < 0) {
		ret = -errno;
		goto err_ring;
	}
	agent_poll_init(&l->timer_poll, l, l->timer_fd, POLLIN, false, agent_timer_ready, NULL);
	ret = agent_poll_arm(&l->timer_poll);
	if (ret)
		goto err_fd;
	return 0;

err_fd:
	close(l->timer_fd);
	l->timer_fd = -1;
err_ring:
	io_uring_queue_exit(&l->ring);
	l->ring_ok = false;
	return ret;
}

void agent_loop_fini(struct agent_loop *l)
{
	if (l->ring_ok)
		io_uring_queue_exit(&l->ring);
	l->ring_ok = false;
	if (l->timer_fd >= 0)
		close(l->timer_fd);
	l->timer_fd = -1;
}

void agent_loop_stop(struct agent_loop *l)
{
	l->stop = true;
}

static void agent_loop_run_idle(struct agent_loop *l)
{
	while (!agent_list_empty(&l->idle_due)) {
		struct agent_poll *p =
		    agent_list_entry(l->idle_due.next, struct agent_poll, idle_node);

		agent_list_del(&p->idle_node);
		p->idle(p);
	}
}

int agent_loop_run(struct agent_loop *l)
{
	while (!l->stop) {
		struct io_uring_cqe *cqe;
		unsigned int batch;
		int ret;

		agent_loop_run_idle(l);
		agent_timer_rearm(l);
		ret = io_uring_submit_and_wait(&l->ring, 1);
		if (ret < 0 && ret != -EINTR && ret != -EAGAIN && ret != -EBUSY) {
			rc_err("loop: io_uring_submit_and_wait: %s", strerror(-ret));
			return ret;
		}
		/*
		 * One CQE at a time: a handler may queue SQEs (and submit) while we dispatch. Only
		 * those there now: CQEs that keep coming (a pipe a job floods) would otherwise keep
		 * the loop here, where no timer is re-armed, and no time limit or lease expiry
		 * fires.
		 */
		batch = io_uring_cq_ready(&l->ring);
		while (!l->stop && batch-- && io_uring_peek_cqe(&l->ring, &cqe) == 0) {
			void *data = io_uring_cqe_get_data(cqe);
			int res = cqe->res;
			unsigned int flags = cqe->flags;

			io_uring_cqe_seen(&l->ring, cqe);
			if (data)
				agent_poll_complete(data, res, flags);
		}
	}
	return 0;
}
