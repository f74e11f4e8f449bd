/* SPDX-License-Identifier: MIT */
/*
 * The agent's one event loop: an io_uring ring in which every fd the agent
 * watches (sockets, netlink, verbs async fds, workload pipes and pidfds, the
 * signalfd) has a poll request, and a timerfd, also polled through the ring,
 * that fires the earliest software timer. No threads.
 *
 * A poll's user_data is a pointer to its struct agent_poll; the completion is
 * dispatched to p->ready(). Readable fds are watched with multishot polls,
 * which report a new CQE per wakeup, not per level: ready() must drain its fd
 * until EAGAIN, or come back for the rest on a timer (a peer that writes
 * faster than it is read would hold the loop). The loop re-arms a multishot
 * poll whose CQE lacks IORING_CQE_F_MORE.
 *
 * Lifetime: the ring refers to a struct agent_poll until its last CQE, so an
 * owner that wants to free it calls agent_poll_stop() and frees it only from
 * p->idle(), which runs once the ring has let go (never from inside
 * agent_poll_stop()).
 */
#ifndef AGENT_LOOP_H
#define AGENT_LOOP_H

#include <liburing.h>
#include <stdbool.h>
#include <stdint.h>

#include "agents/agent_list.h"

struct agent_loop;

struct agent_poll {
	struct agent_loop *loop;
	int fd;
	unsigned int mask; /* POLLIN, POLLOUT, ... */
	bool oneshot;	   /* not re-armed: the owner calls agent_poll_arm() when it wants more */
	bool in_ring;	   /* a poll request for p is in the ring */
	bool stopped;
	/* res: the poll mask that fired, or -errno. */
	void (*ready)(struct agent_poll *p, int res);
	/* After agent_poll_stop(), once the ring no longer refers to p. May free p. */
	void (*idle)(struct agent_poll *p);
	struct agent_list idle_node; /* on the loop's list of polls whose idle() is due */
};

struct agent_timer {
	struct agent_list node;
	uint64_t due_ns; /* CLOCK_MONOTONIC */
	bool pending;
	void (*fire)(struct agent_timer *t);
};

struct agent_loop {
	struct io_uring ring;
	bool ring_ok;
	int timer_fd;
	struct agent_poll timer_poll;
	struct agent_list timers;
	struct agent_list idle_due;
	uint64_t armed_ns; /* what timer_fd is set to; 0: disarmed */
	bool stop;
};

int agent_loop_init(struct agent_loop *l, unsigned int entries);
void agent_loop_fini(struct agent_loop *l);
/* Runs until agent_loop_stop(); 0, or -errno when the ring fails. */
int agent_loop_run(struct agent_loop *l);
void agent_loop_stop(struct agent_loop *l);

/* Fills in p; arms nothing yet. */
void agent_poll_init(struct agent_poll *p, struct agent_loop *l, int fd, unsigned int mask,
		     bool oneshot, void (*ready)(struct agent_poll *p, int res),
		     void (*idle)(struct agent_poll *p));
/* Queues a poll request unless one is in the ring already. 0 or -errno. */
int agent_poll_arm(struct agent_poll *p);
/* Asks the ring to drop p; p->idle() follows from the loop. Idempotent. */
void agent_poll_stop(struct agent_poll *p);

/* Schedules (or moves) t to fire at due_ns; a due time in the past fires at the next turn. */
void agent_timer_set(struct agent_loop *l, struct agent_timer *t, uint64_t due_ns);
void agent_timer_cancel(struct agent_timer *t);

#endif
