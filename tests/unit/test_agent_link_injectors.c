// SPDX-License-Identifier: MIT
/*
 * link_down and port_flap against a fake kernel: rtnl_link_get_kernel,
 * rtnl_link_change and nl_connect are replaced (-Wl,--wrap) by a one-netdev
 * model, so inject, revert, verify and idempotence are checked without
 * touching the host's links.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <cmocka.h>
#include <net/if.h>
#include <netlink/errno.h>
#include <netlink/netlink.h>
#include <netlink/route/link.h>

#include "common/units.h"
#include "injectors/injector.h"
#include "tests/unit/fake_link.h"

/* Records the injector's own events (port_flap transitions). */
static char events[16][16];
static int nr_events;

static void record_event(struct inj_fault *f, const char *action, json_t *extra)
{
	assert_true(nr_events < 16);
	snprintf(events[nr_events++], sizeof(events[0]), "%s", action);
	json_decref(extra);
}

static const struct inj_env env = {.event = record_event};

static int setup(void **state)
{
	struct inj_fault *f = calloc(1, sizeof(*f));

	memset(&fk, 0, sizeof(fk));
	fk.ifindex = 7;
	fk.up = true;
	fk.strict = true;
	fk.name = "v0";
	nr_events = 0;
	strcpy(f->target.netdev, "v0");
	f->target.ifindex = 7;
	f->target.rail = -1;
	f->env = &env;
	f->actions = json_array();
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct inj_fault *f = *state;

	if (f->inj && f->inj->cleanup)
		f->inj->cleanup(f);
	json_decref(f->params);
	json_decref(f->actions);
	free(f);
	return 0;
}

static void use(struct inj_fault *f, const struct injector *inj, const char *params)
{
	char err[256];

	f->inj = inj;
	f->params = json_loads(params, 0, NULL);
	assert_non_null(f->params);
	assert_int_equal(inj->validate(f->params, err, sizeof(err)), 0);
}

static const char *last_action(const struct inj_fault *f)
{
	size_t n = json_array_size(f->actions);

	return n ? json_string_value(json_array_get(f->actions, n - 1)) : "";
}

static void test_link_down_cycle(void **state)
{
	struct inj_fault *f = *state;
	json_t *prior;

	use(f, &inj_link_down, "{}");
	assert_int_equal(f->inj->prepare(f), 0);
	assert_int_equal(fk.changes, 0); /* prepare only looks */
	prior = f->inj->describe_prior(f);
	assert_true(json_is_true(json_object_get(prior, "up")));
	json_decref(prior);

	assert_int_equal(f->inj->inject(f), 0);
	assert_false(fk.up);
	/* While the fault holds, verify tells the link is not as it was. */
	assert_int_equal(f->inj->verify(f), -EIO);
	assert_string_equal(f->err, "link_down: v0: verify: link is down, expected up");

	assert_int_equal(f->inj->revert(f), 0);
	assert_true(fk.up);
	assert_string_equal(last_action(f), "v0: set up (was up)");
	assert_int_equal(f->inj->verify(f), 0);
	assert_int_equal(fk.changes, 2);

	/* Idempotent: a second revert changes nothing and says so. */
	assert_int_equal(f->inj->revert(f), 0);
	assert_int_equal(fk.changes, 2);
	assert_string_equal(last_action(f), "v0: already up (was up)");
	assert_int_equal(f->inj->verify(f), 0);
}

static void test_link_down_keeps_a_down_link_down(void **state)
{
	struct inj_fault *f = *state;

	fk.up = false;
	use(f, &inj_link_down, "{}");
	assert_int_equal(f->inj->prepare(f), 0);
	assert_int_equal(f->inj->inject(f), 0);
	assert_int_equal(f->inj->revert(f), 0);
	assert_false(fk.up);
	assert_string_equal(last_action(f), "v0: already down (was down)");
	assert_int_equal(f->inj->verify(f), 0);
}

static void test_link_down_external_change_reverted(void **state)
{
	struct inj_fault *f = *state;

	use(f, &inj_link_down, "{}");
	assert_int_equal(f->inj->prepare(f), 0);
	assert_int_equal(f->inj->inject(f), 0);
	fk.up = true; /* someone brought it up behind our back */
	assert_int_equal(f->inj->revert(f), 0);
	assert_string_equal(last_action(f), "v0: already up (was up)");
	assert_int_equal(f->inj->verify(f), 0);
}

static void test_link_down_eperm(void **state)
{
	struct inj_fault *f = *state;

	use(f, &inj_link_down, "{}");
	assert_int_equal(f->inj->prepare(f), 0);
	fk.change_err = -NLE_PERM;
	assert_int_equal(f->inj->inject(f), -EPERM);
	assert_non_null(strstr(f->err, "link_down: v0: RTM_NEWLINK (set down): "));
	assert_non_null(strstr(f->err, "(need CAP_NET_ADMIN)"));
	assert_true(fk.up);
	/* The agent reverts after a failed inject: harmless. */
	fk.change_err = 0;
	assert_int_equal(f->inj->revert(f), 0);
	assert_int_equal(fk.changes, 0);
}

static void test_link_down_gone(void **state)
{
	struct inj_fault *f = *state;

	use(f, &inj_link_down, "{}");
	fk.gone = true;
	assert_int_equal(f->inj->prepare(f), -ENODEV);
	assert_non_null(strstr(f->err, "link_down: v0: RTM_GETLINK: "));
	/* Revert without a snapshot touches nothing. */
	fk.gone = false;
	assert_int_equal(f->inj->revert(f), 0);
	assert_int_equal(fk.gets, 1);

	assert_int_equal(f->inj->prepare(f), 0);
	assert_int_equal(f->inj->inject(f), 0);
	fk.gone = true;
	assert_int_equal(f->inj->revert(f), -ENODEV);
	assert_non_null(strstr(f->err, "deleted or renamed"));

	/* gone between prepare and inject: the change itself says so (no fetch before it) */
	f->inj->cleanup(f); /* a new fault's record: prepare is once a fault */
	fk.gone = false;
	fk.up = true;
	assert_int_equal(f->inj->prepare(f), 0);
	fk.gone = true;
	assert_int_equal(f->inj->inject(f), -ENODEV);
	assert_non_null(strstr(f->err, "link_down: v0: RTM_NEWLINK (set down): "));
	assert_non_null(strstr(f->err, "deleted or renamed"));
}

/* One netlink socket serves every request; one that failed is closed, the next opens another. */
static void test_link_socket_kept(void **state)
{
	struct inj_fault *f = *state;
	int i, before;

	use(f, &inj_link_down, "{}");
	assert_int_equal(f->inj->prepare(f), 0);
	for (i = 0; i < 3; i++) {
		assert_int_equal(f->inj->inject(f), 0);
		assert_int_equal(f->inj->revert(f), 0);
		assert_int_equal(f->inj->verify(f), 0);
	}
	/* prepare's look, then revert's look and verify's each time: a change names the link by
	 * its ifindex and fetches nothing first */
	assert_int_equal(fk.gets, 7);
	assert_int_equal(fk.changes, 6);
	assert_in_range(fk.connects, 0, 1); /* 0: a socket an earlier test left open */
	fk.gone = true;
	assert_int_equal(f->inj->verify(f), -ENODEV);
	fk.gone = false;
	before = fk.connects;
	assert_int_equal(f->inj->verify(f), 0);
	assert_int_equal(fk.connects, before + 1);
	assert_int_equal(f->inj->verify(f), 0);
	assert_int_equal(fk.connects, before + 1);
}

static void test_port_flap_full_schedule(void **state)
{
	struct inj_fault *f = *state;
	uint64_t t;
	int i;

	use(f, &inj_port_flap, "{\"count\": 2, \"down_ms\": 300, \"up_ms\": 200}");
	assert_int_equal(f->inj->prepare(f), 0);
	t = rc_now_ns();
	assert_int_equal(f->inj->inject(f), 0);
	assert_false(fk.up);
	assert_int_equal(nr_events, 1);
	assert_string_equal(events[0], "flap_down");
	/* Next transition 300 ms after the first. */
	assert_true(f->next_tick_ns >= t + 300 * RC_NSEC_PER_MSEC);
	assert_true(f->next_tick_ns < rc_now_ns() + 300 * RC_NSEC_PER_MSEC);

	/* An early tick does nothing. */
	assert_int_equal(f->inj->tick(f, f->next_tick_ns - 1), 0);
	assert_int_equal(nr_events, 1);

	for (i = 0; i < 3; i++)
		assert_int_equal(f->inj->tick(f, f->next_tick_ns), 0);
	assert_int_equal(nr_events, 4);
	assert_string_equal(events[1], "flap_up");
	assert_string_equal(events[2], "flap_down");
	assert_string_equal(events[3], "flap_up");
	assert_true(fk.up);
	assert_int_equal(f->next_tick_ns, 0); /* done */
	assert_int_equal(fk.changes, 4);

	assert_int_equal(f->inj->revert(f), 0);
	assert_string_equal(last_action(f), "v0: already up (was up)");
	assert_int_equal(f->inj->verify(f), 0);
	assert_int_equal(fk.changes, 4);
}

static void test_port_flap_revert_mid_schedule(void **state)
{
	struct inj_fault *f = *state;
	json_t *prior;

	use(f, &inj_port_flap,
	    "{\"count\": 5, \"down_ms\": 300, \"up_ms\": 300, \"jitter_ms\": 50, "
	    "\"seed\": 9}");
	assert_int_equal(f->inj->prepare(f), 0);
	prior = f->inj->describe_prior(f);
	assert_int_equal(json_array_size(json_object_get(prior, "schedule_ms")), 10);
	json_decref(prior);
	assert_int_equal(f->inj->inject(f), 0);
	assert_false(fk.up);
	assert_int_equal(f->inj->revert(f), 0);
	assert_true(fk.up);
	assert_string_equal(last_action(f), "v0: set up (was up)");
	assert_int_equal(f->next_tick_ns, 0);
	/* The schedule is over: a late tick changes nothing. */
	assert_int_equal(f->inj->tick(f, UINT64_MAX), 0);
	assert_true(fk.up);
	assert_int_equal(nr_events, 1);
	assert_int_equal(f->inj->verify(f), 0);
}

static void test_port_flap_refuses_down_link(void **state)
{
	struct inj_fault *f = *state;

	fk.up = false;
	use(f, &inj_port_flap, "{\"count\": 1, \"down_ms\": 10, \"up_ms\": 10}");
	assert_int_equal(f->inj->prepare(f), -ENETDOWN);
	assert_string_equal(f->err,
			    "port_flap: v0: refused: the link is already down, nothing to flap");
	assert_null(f->priv);
	assert_int_equal(fk.changes, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_link_down_cycle, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_link_down_keeps_a_down_link_down, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_link_down_external_change_reverted, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_link_down_eperm, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_link_down_gone, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_link_socket_kept, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_port_flap_full_schedule, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_port_flap_revert_mid_schedule, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_port_flap_refuses_down_link, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
