// SPDX-License-Identifier: MIT
/*
 * The pfc_storm injector without a network: its parameters (accepted and
 * refused, with the exact sentences), its send schedule (frames due per tick,
 * the exact total, no burst after a stall), the policy's PFC caps, and the
 * journal path (snapshot, restore, revert, verify) that never sends.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include "agents/agent_policy.h"
#include "common/units.h"
#include "injectors/injector.h"
#include "injectors/pfc_frame.h"

#define MS RC_NSEC_PER_MSEC
#define T0 (1000 * RC_NSEC_PER_SEC) /* any start; the schedule is relative to it */

static int validate(const char *params_json, char *err, size_t errlen)
{
	json_t *params = json_loads(params_json, 0, NULL);
	int ret;

	assert_non_null(params);
	err[0] = '\0';
	ret = inj_pfc_storm.validate(params, err, errlen);
	json_decref(params);
	return ret;
}

static void accepted(const char *params_json)
{
	char err[256];

	if (validate(params_json, err, sizeof(err)))
		fail_msg("%s refused: %s", params_json, err);
}

static void refused(const char *params_json, const char *want)
{
	char err[256];

	assert_int_equal(validate(params_json, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, want);
}

static void test_validate_accepts(void **state)
{
	accepted("{\"priorities\": [3]}");
	accepted("{\"priorities\": [0, 3, 7], \"quanta\": 0, \"rate_fps\": 100000}");
	accepted("{\"priorities\": [7, 0], \"quanta\": 65535, \"rate_fps\": 1}");
	accepted("{\"global_pause\": true}");
	accepted("{\"global_pause\": true, \"quanta\": 100}");
	accepted("{\"global_pause\": false, \"priorities\": [3]}");
}

static void test_validate_refuses(void **state)
{
	refused("{}", "pfc_storm: params.priorities: missing (a list of priorities 0..7, e.g. [3]; "
		      "or global_pause: true for an 802.3x PAUSE storm)");
	refused("{\"global_pause\": false}",
		"pfc_storm: params.priorities: missing (a list of priorities 0..7, e.g. [3]; or "
		"global_pause: true for an 802.3x PAUSE storm)");
	refused("{\"priorities\": []}",
		"pfc_storm: params.priorities: must be a non-empty list of priorities 0..7, e.g. "
		"[3]");
	refused("{\"priorities\": 3}",
		"pfc_storm: params.priorities: must be a non-empty list of priorities 0..7, e.g. "
		"[3]");
	refused("{\"priorities\": [3, 8]}",
		"pfc_storm: params.priorities[1]: must be an integer in 0..7");
	refused("{\"priorities\": [-1]}",
		"pfc_storm: params.priorities[0]: must be an integer in 0..7");
	refused("{\"priorities\": [\"3\"]}",
		"pfc_storm: params.priorities[0]: must be an integer in 0..7");
	refused("{\"priorities\": [3, 5, 3]}",
		"pfc_storm: params.priorities[2]: 3 is listed twice");
	refused("{\"priorities\": [3], \"quanta\": 65536}",
		"pfc_storm: params.quanta: must be an integer in 0..65535");
	refused("{\"priorities\": [3], \"quanta\": -1}",
		"pfc_storm: params.quanta: must be an integer in 0..65535");
	refused("{\"priorities\": [3], \"rate_fps\": 0}",
		"pfc_storm: params.rate_fps: must be an integer in 1..100000");
	refused("{\"priorities\": [3], \"rate_fps\": 100001}",
		"pfc_storm: params.rate_fps: must be an integer in 1..100000");
	refused("{\"priorities\": [3], \"rate_fps\": 10.5}",
		"pfc_storm: params.rate_fps: must be an integer in 1..100000");
	refused("{\"global_pause\": \"yes\"}",
		"pfc_storm: params.global_pause: must be true or false");
	refused("{\"global_pause\": true, \"priorities\": [3]}",
		"pfc_storm: params.priorities: not used with global_pause: true (an 802.3x PAUSE "
		"stops every priority); give one or the other");
	refused("{\"priorities\": [3], \"speed\": 10}",
		"pfc_storm: params.speed: unknown parameter (pfc_storm takes priorities, quanta, "
		"rate_fps, global_pause)");
	refused("[3]", "pfc_storm: params: must be a JSON object");
}

/* Runs the sender every tick_ns from T0 until the schedule is done; returns frames handed out. */
static uint64_t run_ticks(struct pfc_sched *s, uint64_t tick_ns, uint64_t until_ns,
			  uint64_t *max_batch)
{
	uint64_t now, total = 0;

	*max_batch = 0;
	for (now = T0; now <= until_ns && !pfc_sched_done(s); now += tick_ns) {
		uint64_t n = pfc_sched_due(s, now);

		total += n;
		if (n > *max_batch)
			*max_batch = n;
	}
	return total;
}

static void test_schedule_rate(void **state)
{
	struct pfc_sched s;
	uint64_t max_batch;

	/* 1000 fps for 1 s: frame k at k ms, exactly 1000 frames, 10 per 10 ms tick. */
	pfc_sched_init(&s, 1000, 1000, 10 * MS, 10 * MS, T0);
	assert_int_equal(s.total, 1000);
	assert_int_equal(s.batch_max, 10);
	assert_int_equal(pfc_sched_due(&s, T0), 1); /* frame 0 at once */
	assert_int_equal(pfc_sched_next_ns(&s, T0), T0 + 10 * MS);
	assert_int_equal(pfc_sched_due(&s, T0 + 5 * MS), 5);		/* frames 1..5 */
	assert_int_equal(pfc_sched_due(&s, T0 + 5 * MS), 0);		/* nothing twice */
	assert_int_equal(pfc_sched_due(&s, T0 + 15 * MS + MS / 2), 10); /* 6..15 */
	assert_int_equal(pfc_sched_frame_ns(&s, 16), T0 + 16 * MS);

	pfc_sched_init(&s, 1000, 1000, 10 * MS, 10 * MS, T0);
	assert_int_equal(run_ticks(&s, 10 * MS, T0 + 2000 * MS, &max_batch), 1000);
	assert_int_equal(max_batch, 10);
	assert_true(pfc_sched_done(&s));
	assert_int_equal(pfc_sched_next_ns(&s, T0 + 1000 * MS), 0);
	assert_int_equal(s.skipped, 0);

	/* A rate that does not divide the tick: 333 fps for 3 s is 999 frames, <= 4 per tick. */
	pfc_sched_init(&s, 333, 3000, 10 * MS, 10 * MS, T0);
	assert_int_equal(s.total, 999);
	assert_int_equal(run_ticks(&s, 10 * MS, T0 + 4000 * MS, &max_batch), 999);
	assert_true(max_batch <= 4);

	/* 250 ms at 10 fps: frames at 0, 100, 200 ms: 3 (ceil), none at 250. */
	pfc_sched_init(&s, 10, 250, 10 * MS, 10 * MS, T0);
	assert_int_equal(s.total, 3);
	assert_int_equal(run_ticks(&s, 10 * MS, T0 + 1000 * MS, &max_batch), 3);

	/* The top rate: 1000 frames per 10 ms tick. */
	pfc_sched_init(&s, 100000, 0, 10 * MS, 10 * MS, T0);
	assert_int_equal(s.batch_max, 1000);
	assert_int_equal(s.total, UINT64_MAX);
	assert_int_equal(pfc_sched_due(&s, T0), 1);
	assert_int_equal(pfc_sched_due(&s, T0 + 10 * MS), 1000);
	assert_false(pfc_sched_done(&s));
}

static void test_schedule_slow_rate_sleeps(void **state)
{
	struct pfc_sched s;

	/* 2 fps: the sender sleeps until the next frame, not one tick. */
	pfc_sched_init(&s, 2, 0, 10 * MS, 10 * MS, T0);
	assert_int_equal(s.batch_max, 1);
	assert_int_equal(pfc_sched_due(&s, T0), 1);
	assert_int_equal(pfc_sched_next_ns(&s, T0), T0 + 500 * MS);
	assert_int_equal(pfc_sched_due(&s, T0 + 499 * MS), 0);
	assert_int_equal(pfc_sched_due(&s, T0 + 500 * MS), 1);
	assert_int_equal(pfc_sched_next_ns(&s, T0 + 500 * MS), T0 + 1000 * MS);
	/* 3 fps: frame 1 at ceil(333333333.3) ns. */
	pfc_sched_init(&s, 3, 0, 10 * MS, 10 * MS, T0);
	assert_int_equal(pfc_sched_frame_ns(&s, 1), T0 + 333333334);
	assert_int_equal(pfc_sched_frame_ns(&s, 3), T0 + RC_NSEC_PER_SEC);
}

static void test_schedule_no_burst_after_stall(void **state)
{
	struct pfc_sched s;

	pfc_sched_init(&s, 1000, 0, 10 * MS, 10 * MS, T0);
	assert_int_equal(pfc_sched_due(&s, T0), 1);
	/* The loop stalled for 500 ms: one tick's worth goes out, 490 frames are skipped. */
	assert_int_equal(pfc_sched_due(&s, T0 + 500 * MS), 10);
	assert_int_equal(s.skipped, 490);
	/* ... and the rate goes on from there, not from before the stall. */
	assert_int_equal(pfc_sched_due(&s, T0 + 510 * MS), 10);
	assert_int_equal(pfc_sched_due(&s, T0 + 511 * MS), 1);
	assert_int_equal(s.skipped, 490);

	/* A stall in a storm with a duration ends it on time, with what was skipped counted. */
	pfc_sched_init(&s, 1000, 100, 10 * MS, 10 * MS, T0);
	assert_int_equal(pfc_sched_due(&s, T0), 1);
	assert_int_equal(pfc_sched_due(&s, T0 + 5000 * MS), 10);
	assert_true(pfc_sched_done(&s));
	assert_int_equal(s.skipped, 89);
	assert_int_equal(pfc_sched_due(&s, T0 + 6000 * MS), 0);
}

/* As the injector runs it: 10 ms ticks, 50 ms of catch-up. */
static void test_schedule_slow_loop_keeps_the_rate(void **state)
{
	struct pfc_sched s;
	uint64_t max_batch;

	/* A loop that wakes every 25 ms instead of 10 still sends all 2000 frames of 2 s. */
	pfc_sched_init(&s, 1000, 2000, 10 * MS, 50 * MS, T0);
	assert_int_equal(s.batch_max, 50);
	assert_int_equal(run_ticks(&s, 25 * MS, T0 + 3000 * MS, &max_batch), 2000);
	assert_int_equal(max_batch, 25);
	assert_int_equal(s.skipped, 0);

	/*
	 * One every 60 ms loses 10 frames per wakeup: the cap is 50 ms' worth.
	 * Frame 0 at 0, then 50 of the 60 due at 60, 120, ... 540 ms, and 50 of
	 * the last 59 at 600 ms.
	 */
	pfc_sched_init(&s, 1000, 600, 10 * MS, 50 * MS, T0);
	assert_int_equal(run_ticks(&s, 60 * MS, T0 + 1000 * MS, &max_batch), 1 + 10 * 50);
	assert_int_equal(max_batch, 50);
	assert_int_equal(s.skipped, 9 * 10 + 9);

	/* After a 2 s stall: 50 frames, not 2000. */
	pfc_sched_init(&s, 1000, 0, 10 * MS, 50 * MS, T0);
	assert_int_equal(pfc_sched_due(&s, T0), 1);
	assert_int_equal(pfc_sched_due(&s, T0 + 2000 * MS), 50);
	assert_int_equal(s.skipped, 1950);
}

/* The policy's caps, as agent_faults.c checks them at inject. */
static void test_policy_caps(void **state)
{
	struct agent_policy p = {0};
	struct inj_target t = {.netdev = "rail0", .rail = 0};
	json_t *params;
	char err[512];

	strcpy(p.allow[p.nr_allow++], "rail0");
	strcpy(p.file, "/etc/rdmachaos/agent.yaml");
	p.pfc_line = 6;

	/* No caps: anything validate() accepts. */
	params = json_pack("{s:[i], s:i}", "priorities", 3, "rate_fps", 100000);
	assert_int_equal(agent_policy_check_params(&p, "pfc_storm", params, err, sizeof(err)), 0);
	assert_int_equal(agent_policy_check_inject(&p, "pfc_storm", &t, 0, 0, err, sizeof(err)), 0);

	p.pfc_max_rate_fps = 1000;
	p.pfc_max_duration_ms = 60000;
	assert_int_equal(agent_policy_check_params(&p, "pfc_storm", params, err, sizeof(err)),
			 -EPERM);
	assert_string_equal(err,
			    "inject: pfc_storm: refused by policy /etc/rdmachaos/agent.yaml:6: "
			    "rate_fps 100000 is over pfc.max_rate_fps 1000");
	/* Other injectors are not PFC storms. */
	assert_int_equal(agent_policy_check_params(&p, "port_flap", params, err, sizeof(err)), 0);
	json_decref(params);

	params = json_pack("{s:[i], s:i}", "priorities", 3, "rate_fps", 1000);
	assert_int_equal(agent_policy_check_params(&p, "pfc_storm", params, err, sizeof(err)), 0);
	json_decref(params);

	/* The default rate is checked too. */
	p.pfc_max_rate_fps = 500;
	params = json_pack("{s:[i]}", "priorities", 3);
	assert_int_equal(agent_policy_check_params(&p, "pfc_storm", params, err, sizeof(err)),
			 -EPERM);
	assert_string_equal(err,
			    "inject: pfc_storm: refused by policy /etc/rdmachaos/agent.yaml:6: "
			    "rate_fps 1000 (the default) is over pfc.max_rate_fps 500");
	json_decref(params);

	assert_int_equal(agent_policy_check_inject(&p, "pfc_storm", &t, 60000, 0, err, sizeof(err)),
			 0);
	assert_int_equal(agent_policy_check_inject(&p, "pfc_storm", &t, 60001, 0, err, sizeof(err)),
			 -EPERM);
	assert_string_equal(err,
			    "inject: pfc_storm: refused by policy /etc/rdmachaos/agent.yaml:6: "
			    "duration_ms 60001 is over pfc.max_duration 1m (60000 ms)");
	assert_int_equal(agent_policy_check_inject(&p, "pfc_storm", &t, 0, 0, err, sizeof(err)),
			 -EPERM);
	assert_string_equal(err,
			    "inject: pfc_storm: refused by policy /etc/rdmachaos/agent.yaml:6: "
			    "duration_ms 0 (until reverted) is not allowed for a PFC storm "
			    "under pfc.max_duration 1m; give duration_ms 1..60000");
	/* The PFC duration cap does not bind other injectors. */
	assert_int_equal(agent_policy_check_inject(&p, "link_down", &t, 0, 0, err, sizeof(err)), 0);
}

static json_t *events;

static void record_event(struct inj_fault *f, const char *action, json_t *extra)
{
	json_t *e = json_pack("{s:s}", "action", action);

	json_object_update(e, extra);
	json_decref(extra);
	json_array_append_new(events, e);
}

static const struct inj_env env = {.event = record_event};

static void fault_init(struct inj_fault *f, const char *params_json, const char *netdev)
{
	memset(f, 0, sizeof(*f));
	f->inj = &inj_pfc_storm;
	snprintf(f->id, sizeof(f->id), "f1");
	snprintf(f->target.netdev, sizeof(f->target.netdev), "%s", netdev);
	f->target.rail = 0;
	f->params = json_loads(params_json, 0, NULL);
	f->env = &env;
	assert_non_null(f->params);
}

static void fault_fini(struct inj_fault *f)
{
	inj_pfc_storm.cleanup(f);
	json_decref(f->params);
	json_decref(f->actions);
}

/* A journaled storm comes back after a crash as one that sends nothing and reverts at once. */
static void test_restore_never_sends(void **state)
{
	struct inj_fault f;
	json_t *snap, *prior;

	events = json_array();
	fault_init(&f, "{\"priorities\": [3]}", "rail0");
	snap = json_pack("{s:s, s:b}", "mac", "52:54:00:12:34:56", "system_changed", 0);
	assert_int_equal(inj_pfc_storm.restore(&f, snap), 0);
	assert_int_equal(f.next_tick_ns, 0);
	/* A tick of a restored storm does nothing and asks for nothing. */
	assert_int_equal(inj_pfc_storm.tick(&f, T0), 0);
	assert_int_equal(f.next_tick_ns, 0);

	prior = inj_pfc_storm.describe_prior(&f);
	assert_string_equal(json_string_value(json_object_get(prior, "mac")), "52:54:00:12:34:56");
	assert_false(json_is_true(json_object_get(prior, "sending")));
	json_decref(prior);

	f.actions = json_array();
	assert_int_equal(inj_pfc_storm.revert(&f), 0);
	assert_int_equal(inj_pfc_storm.revert(&f), 0); /* idempotent */
	assert_int_equal(json_array_size(f.actions), 2);
	assert_string_equal(json_string_value(json_array_get(f.actions, 0)),
			    "rail0: PFC storm: nothing to stop (its sender died with the agent "
			    "that ran it)");
	assert_int_equal(inj_pfc_storm.verify(&f), 0);
	assert_int_equal(json_array_size(events), 0); /* it never started, so it never ended */

	/* The snapshot a restored fault would journal again is the same. */
	json_decref(snap);
	snap = inj_pfc_storm.snapshot(&f);
	assert_string_equal(json_string_value(json_object_get(snap, "mac")), "52:54:00:12:34:56");
	json_decref(snap);
	fault_fini(&f);

	/* A snapshot without the sender is refused with a sentence. */
	fault_init(&f, "{\"priorities\": [3]}", "rail0");
	snap = json_pack("{s:i}", "mac", 5);
	assert_int_equal(inj_pfc_storm.restore(&f, snap), -EINVAL);
	assert_string_equal(f.err, "pfc_storm: rail0: journal snapshot: no \"mac\" (want "
				   "{\"mac\": \"aa:bb:cc:dd:ee:ff\"})");
	assert_null(f.priv);
	json_decref(snap);
	fault_fini(&f);
	json_decref(events);
}

static void test_revert_before_prepare(void **state)
{
	struct inj_fault f;

	fault_init(&f, "{\"priorities\": [3]}", "rail0");
	assert_int_equal(inj_pfc_storm.revert(&f), 0);
	assert_int_equal(inj_pfc_storm.verify(&f), 0);
	assert_null(inj_pfc_storm.snapshot(&f));
	fault_fini(&f);
}

/* Loopback is not Ethernet: prepare refuses it (needs CAP_NET_RAW to get that far). */
static void test_prepare_refuses_non_ethernet(void **state)
{
	struct inj_fault f;
	int fd = socket(AF_PACKET, SOCK_RAW, 0);

	if (fd < 0)
		skip(); /* no CAP_NET_RAW here: prepare would stop at the socket */
	close(fd);
	fault_init(&f, "{\"priorities\": [3]}", "lo");
	assert_int_equal(inj_pfc_storm.prepare(&f), -EOPNOTSUPP);
	assert_string_equal(f.err, "pfc_storm: lo: not an Ethernet netdev (ARPHRD 772): PFC frames "
				   "are Ethernet MAC control frames");
	assert_null(f.priv);
	fault_fini(&f);

	fault_init(&f, "{\"priorities\": [3]}", "nosuchdev0");
	assert_int_equal(inj_pfc_storm.prepare(&f), -ENODEV);
	assert_string_equal(f.err,
			    "pfc_storm: nosuchdev0: reading its MAC address: No such device");
	fault_fini(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_validate_accepts),
	    cmocka_unit_test(test_validate_refuses),
	    cmocka_unit_test(test_schedule_rate),
	    cmocka_unit_test(test_schedule_slow_rate_sleeps),
	    cmocka_unit_test(test_schedule_no_burst_after_stall),
	    cmocka_unit_test(test_schedule_slow_loop_keeps_the_rate),
	    cmocka_unit_test(test_policy_caps),
	    cmocka_unit_test(test_restore_never_sends),
	    cmocka_unit_test(test_revert_before_prepare),
	    cmocka_unit_test(test_prepare_refuses_non_ethernet),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
