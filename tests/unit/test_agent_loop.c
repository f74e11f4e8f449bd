// SPDX-License-Identifier: MIT
/*
 * The io_uring loop on a real ring: multishot polls fire per wakeup and stay
 * armed, oneshot polls fire once, stopped polls reach idle() exactly once and
 * only after the ring let go, and timers fire in due order.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>
#include <cmocka.h>

#include "agents/agent_loop.h"
#include "common/units.h"
#include "tests/unit/agent_harness.h"

static struct agent_loop loop;
static int fds[2];
static int readies, idles;
static char order[8];
static int nr_fired;

static void on_ready(struct agent_poll *p, int res)
{
	char buf[64];

	assert_true(res > 0 && (res & POLLIN));
	while (read(p->fd, buf, sizeof(buf)) > 0) /* drain: wakeups, not levels */
		;
	readies++;
}

static void on_idle(struct agent_poll *p)
{
	assert_false(p->in_ring);
	idles++;
}

struct tagged_timer {
	struct agent_timer t;
	char tag;
};

static void fire(struct agent_timer *t)
{
	order[nr_fired++] = agent_container_of(t, struct tagged_timer, t)->tag;
}

static void stop_loop(struct agent_timer *t)
{
	agent_loop_stop(&loop);
}

/* Runs the loop for about ms milliseconds. */
static void run_for(unsigned int ms)
{
	struct agent_timer stop = {.fire = stop_loop};

	loop.stop = false;
	agent_timer_set(&loop, &stop, rc_now_ns() + ms * RC_NSEC_PER_MSEC);
	assert_int_equal(agent_loop_run(&loop), 0);
	agent_timer_cancel(&stop);
}

static int setup(void **state)
{
	readies = idles = nr_fired = 0;
	memset(order, 0, sizeof(order));
	if (pipe2(fds, O_NONBLOCK | O_CLOEXEC))
		return -1;
	return agent_loop_init(&loop, 8);
}

static int teardown(void **state)
{
	agent_loop_fini(&loop);
	close(fds[0]);
	close(fds[1]);
	return 0;
}

static void test_multishot_stays_armed(void **state)
{
	struct agent_poll p;
	int i;

	agent_poll_init(&p, &loop, fds[0], POLLIN, false, on_ready, on_idle);
	assert_int_equal(agent_poll_arm(&p), 0);
	for (i = 0; i < 3; i++) {
		assert_int_equal(write(fds[1], "x", 1), 1);
		run_for(20);
	}
	assert_int_equal(readies, 3);
	assert_true(p.in_ring);
	agent_poll_stop(&p);
	agent_poll_stop(&p); /* idempotent */
	run_for(20);
	assert_int_equal(idles, 1);
	assert_false(p.in_ring);
	/* Stopped: no more readiness reports. */
	assert_int_equal(write(fds[1], "x", 1), 1);
	run_for(20);
	assert_int_equal(readies, 3);
}

static void test_oneshot_fires_once(void **state)
{
	struct agent_poll p;

	agent_poll_init(&p, &loop, fds[0], POLLIN, true, on_ready, on_idle);
	assert_int_equal(agent_poll_arm(&p), 0);
	assert_int_equal(write(fds[1], "x", 1), 1);
	run_for(20);
	assert_int_equal(write(fds[1], "x", 1), 1);
	run_for(20);
	assert_int_equal(readies, 1);
	assert_false(p.in_ring);
	assert_int_equal(agent_poll_arm(&p), 0);
	run_for(20);
	assert_int_equal(readies, 2);
	/* Stopping a poll that is not in the ring still goes through idle(), later. */
	agent_poll_stop(&p);
	assert_int_equal(idles, 0);
	run_for(10);
	assert_int_equal(idles, 1);
}

static void test_timers_in_due_order(void **state)
{
	struct tagged_timer t[4] = {{.t.fire = fire, .tag = 'c'},
				    {.t.fire = fire, .tag = 'a'},
				    {.t.fire = fire, .tag = 'b'},
				    {.t.fire = fire, .tag = 'x'}};
	uint64_t now = rc_now_ns();

	/* Set out of order; a cancelled one never fires. */
	agent_timer_set(&loop, &t[0].t, now + 30 * RC_NSEC_PER_MSEC);
	agent_timer_set(&loop, &t[1].t, now + 10 * RC_NSEC_PER_MSEC);
	agent_timer_set(&loop, &t[2].t, now + 20 * RC_NSEC_PER_MSEC);
	agent_timer_set(&loop, &t[3].t, now + 25 * RC_NSEC_PER_MSEC);
	agent_timer_cancel(&t[3].t);
	/* Moving a pending timer reschedules it. */
	agent_timer_set(&loop, &t[2].t, now + 40 * RC_NSEC_PER_MSEC);
	run_for(80);
	assert_string_equal(order, "acb");
	assert_false(t[0].t.pending);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_multishot_stays_armed, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_oneshot_fires_once, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_timers_in_due_order, setup, teardown),
	};

	return HARNESS_RUN("test_agent_loop", tests, NULL, NULL);
}
