// SPDX-License-Identifier: MIT
/*
 * The NIC pause counters (agents/agent_ethtool.c): the name classifier on
 * real mlx5, bnxt and ice counter names (from the drivers' ethtool string
 * tables) and on names it must leave alone (virtio-net, veth, mlx5 traffic
 * counters); priority parsing; and the poller against a fake kernel:
 * ioctl(SIOCETHTOOL) is replaced (-Wl,--wrap=ioctl) by a model of
 * ETHTOOL_GSSET_INFO, GSTRINGS, GSTATS and GTUNABLE as net/ethtool/ioctl.c
 * answers them (the driver's count, whatever the request said), so deltas,
 * resets, a set that changes while it is read, and the events are checked.
 * Everything else passes through to the real ioctl: "lo" and a missing
 * netdev are read for real.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <cmocka.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <unistd.h>

#include "agents/agent_ethtool.h"

/* ---- the fake kernel ---- */

#define FAKE_MAX 64

struct fake_dev {
	const char *ifname;
	int err;       /* every SIOCETHTOOL answers it (-errno), 0: works */
	bool no_stats; /* the driver has no ETH_SS_STATS */
	unsigned int n;
	char names[FAKE_MAX][ETH_GSTRING_LEN];
	uint64_t values[FAKE_MAX];
	int tunable_err; /* GTUNABLE's answer (-errno), 0: tout */
	uint16_t tout;
	unsigned int calls; /* SIOCETHTOOL calls on it */
	/* Called between GSSET_INFO and GSTRINGS once (a reconfiguration mid-read). */
	void (*race)(struct fake_dev *d);
};

static struct fake_dev *fakes[4];

int __real_ioctl(int fd, unsigned long req, ...);
int __wrap_ioctl(int fd, unsigned long req, ...);

static struct fake_dev *fake_find(const char *ifname)
{
	size_t i;

	for (i = 0; i < sizeof(fakes) / sizeof(fakes[0]); i++)
		if (fakes[i] && !strcmp(fakes[i]->ifname, ifname))
			return fakes[i];
	return NULL;
}

static int fake_ethtool(struct fake_dev *d, void *data)
{
	uint32_t cmd;

	memcpy(&cmd, data, sizeof(cmd));
	d->calls++;
	if (d->err) {
		errno = -d->err;
		return -1;
	}
	switch (cmd) {
	case ETHTOOL_GSSET_INFO: {
		struct ethtool_sset_info *s = data;
		uint32_t n = d->n;

		assert_int_equal(s->sset_mask, 1ULL << ETH_SS_STATS);
		s->sset_mask = d->no_stats ? 0 : 1ULL << ETH_SS_STATS;
		if (!d->no_stats)
			memcpy((uint8_t *)data + sizeof(*s), &n, sizeof(n));
		return 0;
	}
	case ETHTOOL_GSTRINGS: {
		struct ethtool_gstrings *g = data;

		if (d->race) {
			void (*race)(struct fake_dev *) = d->race;

			d->race = NULL;
			race(d);
		}
		assert_int_equal(g->string_set, ETH_SS_STATS);
		/* As the kernel: the driver's count now, not what was asked. */
		g->len = d->n;
		memcpy(g->data, d->names, (size_t)d->n * ETH_GSTRING_LEN);
		return 0;
	}
	case ETHTOOL_GSTATS: {
		struct ethtool_stats *s = data;

		s->n_stats = d->n;
		memcpy(s->data, d->values, (size_t)d->n * sizeof(uint64_t));
		return 0;
	}
	case ETHTOOL_GTUNABLE: {
		struct ethtool_tunable *t = data;

		/* What ethtool_tunable_valid() insists on for this tunable. */
		assert_int_equal(t->id, ETHTOOL_PFC_PREVENTION_TOUT);
		assert_int_equal(t->type_id, ETHTOOL_TUNABLE_U16);
		assert_int_equal(t->len, sizeof(uint16_t));
		if (d->tunable_err) {
			errno = -d->tunable_err;
			return -1;
		}
		memcpy((uint8_t *)data + sizeof(*t), &d->tout, sizeof(d->tout));
		return 0;
	}
	default:
		fail_msg("unexpected ethtool command 0x%x", cmd);
	}
	return -1;
}

int __wrap_ioctl(int fd, unsigned long req, ...)
{
	struct fake_dev *d;
	struct ifreq *ifr;
	va_list ap;
	void *arg;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (req != SIOCETHTOOL)
		return __real_ioctl(fd, req, arg);
	ifr = arg;
	d = fake_find(ifr->ifr_name);
	if (!d)
		return __real_ioctl(fd, req, arg);
	return fake_ethtool(d, ifr->ifr_data);
}

static void fake_set(struct fake_dev *d, const char *const *names, unsigned int n)
{
	unsigned int i;

	assert_true(n <= FAKE_MAX);
	memset(d->names, 0, sizeof(d->names));
	for (i = 0; i < n; i++)
		strncpy(d->names[i], names[i], ETH_GSTRING_LEN); /* full names keep no NUL */
	d->n = n;
}

static uint64_t *fake_val(struct fake_dev *d, const char *name)
{
	unsigned int i;

	for (i = 0; i < d->n; i++)
		if (!strncmp(d->names[i], name, ETH_GSTRING_LEN))
			return &d->values[i];
	fail_msg("fake: no counter %s", name);
	return NULL;
}

static void fake_remove(struct fake_dev *d, const char *name)
{
	uint64_t *v = fake_val(d, name);
	unsigned int i = (unsigned int)(v - d->values);

	memmove(d->names[i], d->names[i + 1], (size_t)(d->n - i - 1) * ETH_GSTRING_LEN);
	memmove(&d->values[i], &d->values[i + 1], (size_t)(d->n - i - 1) * sizeof(uint64_t));
	d->n--;
}

static void fake_append(struct fake_dev *d, const char *name, uint64_t value)
{
	assert_true(d->n < FAKE_MAX);
	memset(d->names[d->n], 0, ETH_GSTRING_LEN);
	strncpy(d->names[d->n], name, ETH_GSTRING_LEN);
	d->values[d->n++] = value;
}

/* ---- events ---- */

static json_t *events;

static void collect(void *ctx, json_t *fields)
{
	assert_ptr_equal(ctx, &events);
	assert_non_null(fields);
	json_array_append_new(events, fields);
}

static size_t count_type(const char *type)
{
	size_t i, n = 0;
	json_t *e;

	json_array_foreach(events, i, e)
		n += !strcmp(json_string_value(json_object_get(e, "type")), type);
	return n;
}

/* The event of that type (and counter name, if given); fails if not exactly one. */
static json_t *the_event(const char *type, const char *name)
{
	json_t *e, *found = NULL;
	size_t i, n = 0;

	json_array_foreach(events, i, e) {
		if (strcmp(json_string_value(json_object_get(e, "type")), type))
			continue;
		if (name && strcmp(json_string_value(json_object_get(e, "name")), name))
			continue;
		found = e;
		n++;
	}
	if (n != 1)
		fail_msg("%zu %s events for %s, want 1: %s", n, type, name ? name : "-",
			 json_dumps(events, JSON_COMPACT));
	return found;
}

static json_int_t ev_int(const json_t *e, const char *key)
{
	const json_t *v = json_object_get(e, key);

	if (!json_is_integer(v))
		fail_msg("no integer %s", key);
	return json_integer_value(v);
}

static const char *ev_str(const json_t *e, const char *key)
{
	const char *s = json_string_value(json_object_get(e, key));

	if (!s)
		fail_msg("no string %s", key);
	return s;
}

static void events_reset(void)
{
	json_array_clear(events);
}

static int setup(void **state)
{
	events = json_array();
	memset(fakes, 0, sizeof(fakes));
	return events ? 0 : -1;
}

static int teardown(void **state)
{
	json_decref(events);
	memset(fakes, 0, sizeof(fakes));
	return 0;
}

/* ---- the classifier ---- */

struct want {
	const char *name;
	enum agent_ethtool_kind kind; /* AGENT_ETH_NONE: not selected */
	enum agent_ethtool_dir dir;
	int prio;
	bool total;
	bool rx_pause;
};

static void check_table(const struct want *w, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		struct agent_ethtool_class c;
		bool sel = agent_ethtool_classify(w[i].name, &c);

		if (sel != (w[i].kind != AGENT_ETH_NONE))
			fail_msg("%s: selected %d", w[i].name, sel);
		if (!sel)
			continue;
		if (c.kind != w[i].kind || c.dir != w[i].dir || c.priority != w[i].prio ||
		    c.total != w[i].total || agent_ethtool_is_rx_pause(&c) != w[i].rx_pause)
			fail_msg("%s: kind %d dir %d prio %d total %d rx %d", w[i].name, c.kind,
				 c.dir, c.priority, c.total, agent_ethtool_is_rx_pause(&c));
	}
}

#define RX AGENT_ETH_RX
#define TX AGENT_ETH_TX
#define NODIR AGENT_ETH_DIR_NONE

/* mlx5: en_stats.c pport_per_prio_pfc_stats_desc, pport_pfc_stall_stats_desc, IEEE 802.3. */
static void test_classify_mlx5(void **state)
{
	static const struct want w[] = {
	    {"rx_prio3_pause", AGENT_ETH_FRAMES, RX, 3, false, true},
	    {"rx_prio3_pause_duration", AGENT_ETH_DURATION, RX, 3, false, false},
	    {"tx_prio3_pause", AGENT_ETH_FRAMES, TX, 3, false, false},
	    {"tx_prio3_pause_duration", AGENT_ETH_DURATION, TX, 3, false, false},
	    {"rx_prio3_pause_transition", AGENT_ETH_TRANSITIONS, RX, 3, false, false},
	    {"rx_prio0_pause", AGENT_ETH_FRAMES, RX, 0, false, true},
	    {"rx_prio7_pause", AGENT_ETH_FRAMES, RX, 7, false, true},
	    {"rx_global_pause", AGENT_ETH_FRAMES, RX, -1, false, true},
	    {"rx_global_pause_duration", AGENT_ETH_DURATION, RX, -1, false, false},
	    {"tx_global_pause", AGENT_ETH_FRAMES, TX, -1, false, false},
	    {"rx_global_pause_transition", AGENT_ETH_TRANSITIONS, RX, -1, false, false},
	    {"rx_pause_ctrl_phy", AGENT_ETH_FRAMES, RX, -1, true, false},
	    {"tx_pause_ctrl_phy", AGENT_ETH_FRAMES, TX, -1, true, false},
	    {"tx_pause_storm_warning_events", AGENT_ETH_STORM, TX, -1, false, false},
	    {"tx_pause_storm_error_events", AGENT_ETH_STORM, TX, -1, false, false},
	    /* the traffic, buffer and RDMA counters are not pause counters */
	    {"rx_prio3_bytes", AGENT_ETH_NONE, NODIR, -1, false, false},
	    {"rx_prio3_packets", AGENT_ETH_NONE, NODIR, -1, false, false},
	    {"rx_prio0_discards", AGENT_ETH_NONE, NODIR, -1, false, false},
	    {"rx_prio0_buf_discard", AGENT_ETH_NONE, NODIR, -1, false, false},
	    {"rx_prio0_cong_discard", AGENT_ETH_NONE, NODIR, -1, false, false},
	    {"rx_out_of_buffer", AGENT_ETH_NONE, NODIR, -1, false, false},
	    {"rx_discards_phy", AGENT_ETH_NONE, NODIR, -1, false, false},
	    {"rx_buffer_passed_thres_phy", AGENT_ETH_NONE, NODIR, -1, false, false},
	    {"rx_vport_rdma_unicast_bytes", AGENT_ETH_NONE, NODIR, -1, false, false},
	    {"tx_queue_stopped", AGENT_ETH_NONE, NODIR, -1, false, false},
	};

	check_table(w, sizeof(w) / sizeof(w[0]));
}

/* bnxt: bnxt_ethtool.c port stats and the ext PFC entries. */
static void test_classify_bnxt(void **state)
{
	static const struct want w[] = {
	    {"rx_pfc_ena_frames_pri5", AGENT_ETH_FRAMES, RX, 5, false, true},
	    {"tx_pfc_ena_frames_pri5", AGENT_ETH_FRAMES, TX, 5, false, false},
	    {"rx_pfc_xon2xoff_frames_pri5", AGENT_ETH_TRANSITIONS, RX, 5, false, false},
	    {"pfc_pri5_rx_duration_us", AGENT_ETH_DURATION, RX, 5, false, false},
	    {"pfc_pri5_rx_transitions", AGENT_ETH_TRANSITIONS, RX, 5, false, false},
	    {"pfc_pri5_tx_duration_us", AGENT_ETH_DURATION, TX, 5, false, false},
	    {"rx_pfc_frames", AGENT_ETH_FRAMES, RX, -1, true, false},
	    {"tx_pfc_frames", AGENT_ETH_FRAMES, TX, -1, true, false},
	    {"rx_pause_frames", AGENT_ETH_FRAMES, RX, -1, false, true},
	    {"tx_pause_frames", AGENT_ETH_FRAMES, TX, -1, false, false},
	    {"rx_ctrl_frames", AGENT_ETH_NONE, NODIR, -1, false, false},
	    {"rx_eee_lpi_duration", AGENT_ETH_NONE, NODIR, -1, false, false},
	    {"rx_packets_cos5", AGENT_ETH_NONE, NODIR, -1, false, false},
	};

	check_table(w, sizeof(w) / sizeof(w[0]));
}

/* ice: ice_ethtool.c ice_gstrings_pf_stats and the per-priority xon/xoff strings. */
static void test_classify_ice_and_virtual(void **state)
{
	static const struct want w[] = {
	    {"rx_priority_4_xoff.nic", AGENT_ETH_FRAMES, RX, 4, false, true},
	    {"rx_priority_4_xon.nic", AGENT_ETH_XON, RX, 4, false, false},
	    {"tx_priority_4_xoff.nic", AGENT_ETH_FRAMES, TX, 4, false, false},
	    {"tx_priority_4_xon.nic", AGENT_ETH_XON, TX, 4, false, false},
	    {"link_xoff_rx.nic", AGENT_ETH_FRAMES, RX, -1, false, true},
	    {"link_xon_rx.nic", AGENT_ETH_XON, RX, -1, false, false},
	    {"link_xoff_tx.nic", AGENT_ETH_FRAMES, TX, -1, false, false},
	    {"port.rx-priority-2-xoff", AGENT_ETH_FRAMES, RX, 2, false, true}, /* older ice */
	    {"rx_size_1522.nic", AGENT_ETH_NONE, NODIR, -1, false, false},
	    {"tx_dropped_link_down.nic", AGENT_ETH_NONE, NODIR, -1, false, false},
	    /* virtio-net and veth (ethtool -S on this host's eth0 and a veth) */
	    {"rx_drops", AGENT_ETH_NONE, NODIR, -1, false, false},
	    {"rx_xdp_packets", AGENT_ETH_NONE, NODIR, -1, false, false},
	    {"tx_kicks", AGENT_ETH_NONE, NODIR, -1, false, false},
	    {"rx_queue_0_xdp_packets", AGENT_ETH_NONE, NODIR, -1, false, false},
	    {"peer_ifindex", AGENT_ETH_NONE, NODIR, -1, false, false},
	    {"", AGENT_ETH_NONE, NODIR, -1, false, false},
	};

	check_table(w, sizeof(w) / sizeof(w[0]));
}

static void test_priority_from_name(void **state)
{
	/* 32 bytes, no NUL: the classifier reads no further than a gstring. */
	static const char full[ETH_GSTRING_LEN + 8] = "rx_prio6_pause_duration_abcdefgh"
						      "IGNORED";
	char exact[ETH_GSTRING_LEN];

	assert_int_equal(agent_ethtool_priority("rx_prio3_pause"), 3);
	assert_int_equal(agent_ethtool_priority("rx_pfc_ena_frames_pri7"), 7);
	assert_int_equal(agent_ethtool_priority("pfc_pri5_rx_duration_us"), 5);
	assert_int_equal(agent_ethtool_priority("rx_priority_4_xoff.nic"), 4);
	assert_int_equal(agent_ethtool_priority("port.rx-priority-2-xoff"), 2);
	assert_int_equal(agent_ethtool_priority("RX_PRIO1_PAUSE"), 1);
	assert_int_equal(agent_ethtool_priority("rx_prio0_pause"), 0);
	/* not a priority 0..7 */
	assert_int_equal(agent_ethtool_priority("rx_prio8_pause"), -1);
	assert_int_equal(agent_ethtool_priority("rx_prio10_pause"), -1);
	assert_int_equal(agent_ethtool_priority("rx_priority_xoff"), -1);
	assert_int_equal(agent_ethtool_priority("rx_priority_12_xoff"), -1);
	assert_int_equal(agent_ethtool_priority("rx_global_pause"), -1);
	assert_int_equal(agent_ethtool_priority("tx_pause_storm_error_events"), -1);
	assert_int_equal(agent_ethtool_priority("private_pause"), -1);
	assert_int_equal(agent_ethtool_priority("rx_prio_pause"), -1);
	memcpy(exact, full, sizeof(exact));
	assert_int_equal(agent_ethtool_priority(exact), 6);
	assert_true(agent_ethtool_classify(exact, NULL));
}

/* ---- the poller ---- */

static const char *const mlx5_names[] = {
    "rx_packets",
    "rx_bytes",
    "rx_prio3_bytes",
    "rx_prio3_packets",
    "rx_pause_ctrl_phy",
    "tx_pause_ctrl_phy",
    "rx_prio3_pause",
    "rx_prio3_pause_duration",
    "tx_prio3_pause",
    "tx_prio3_pause_duration",
    "rx_prio3_pause_transition",
    "tx_pause_storm_warning_events",
    "tx_pause_storm_error_events",
    "rx_out_of_buffer",
};
#define MLX5_SELECTED 9

static struct fake_dev mlx;

static void fake_mlx5(void)
{
	unsigned int i;

	memset(&mlx, 0, sizeof(mlx));
	mlx.ifname = "rcfake0";
	fake_set(&mlx, mlx5_names, sizeof(mlx5_names) / sizeof(mlx5_names[0]));
	for (i = 0; i < mlx.n; i++)
		mlx.values[i] = 1000 + i;
	mlx.tout = 100;
	fakes[0] = &mlx;
}

static struct agent_ethtool_poll *poll_new(void)
{
	struct agent_ethtool_poll *p = agent_ethtool_poll_new(collect, &events);

	assert_non_null(p);
	return p;
}

static void test_poll_deltas_and_rx(void **state)
{
	struct agent_ethtool_poll *p;
	json_t *e;

	fake_mlx5();
	p = poll_new();
	/* The probe reads count, names, values (the baseline) and the prevention time. */
	assert_int_equal(agent_ethtool_poll_add(p, "rcfake0"), 1);
	assert_int_equal(mlx.calls, 4);
	assert_int_equal(agent_ethtool_poll_count(p), 1);
	assert_int_equal(json_array_size(events), 0);
	/* Added twice: nothing more read. */
	assert_int_equal(agent_ethtool_poll_add(p, "rcfake0"), 1);
	assert_int_equal(mlx.calls, 4);

	/* Nothing moved: no events; each sample is count + names + values. */
	agent_ethtool_poll_sample(p);
	assert_int_equal(mlx.calls, 7);
	assert_int_equal(json_array_size(events), 0);

	/* A storm's frames on priority 3, and traffic that is not pause. */
	*fake_val(&mlx, "rx_prio3_pause") += 120;
	*fake_val(&mlx, "rx_prio3_pause_duration") += 5000;
	*fake_val(&mlx, "rx_pause_ctrl_phy") += 120;
	*fake_val(&mlx, "rx_bytes") += 1 << 20;
	*fake_val(&mlx, "rx_prio3_packets") += 77;
	agent_ethtool_poll_sample(p);
	assert_int_equal(count_type("nic_counter"), 3);
	e = the_event("nic_counter", "rx_prio3_pause");
	assert_string_equal(ev_str(e, "netdev"), "rcfake0");
	assert_int_equal(ev_int(e, "delta"), 120);
	assert_int_equal(ev_int(e, "value"), *fake_val(&mlx, "rx_prio3_pause"));
	assert_int_equal(ev_int(e, "priority"), 3);
	e = the_event("nic_counter", "rx_prio3_pause_duration");
	assert_int_equal(ev_int(e, "delta"), 5000);
	assert_int_equal(ev_int(e, "priority"), 3);
	e = the_event("nic_counter", "rx_pause_ctrl_phy");
	assert_int_equal(ev_int(e, "delta"), 120);
	assert_null(json_object_get(e, "priority"));
	/* One rx event: the per-priority frames; the MAC-control total adds none. */
	assert_int_equal(count_type("rx"), 1);
	e = the_event("rx", NULL);
	assert_string_equal(ev_str(e, "netdev"), "rcfake0");
	assert_int_equal(ev_int(e, "priority"), 3);
	assert_int_equal(ev_int(e, "frames"), 120);
	assert_int_equal(ev_int(e, "total"), *fake_val(&mlx, "rx_prio3_pause"));
	assert_string_equal(ev_str(e, "source"), "nic");
	assert_string_equal(ev_str(e, "name"), "rx_prio3_pause");
	assert_int_equal(count_type("storm_detected"), 0);
	assert_int_equal(json_array_size(events), 4);

	/* The delta is since the last sample, not since the baseline. */
	events_reset();
	*fake_val(&mlx, "rx_prio3_pause") += 7;
	agent_ethtool_poll_sample(p);
	assert_int_equal(json_array_size(events), 2);
	assert_int_equal(ev_int(the_event("nic_counter", "rx_prio3_pause"), "delta"), 7);
	assert_int_equal(ev_int(the_event("rx", NULL), "frames"), 7);

	/* Pause frames this NIC sent are no rx. */
	events_reset();
	*fake_val(&mlx, "tx_prio3_pause") += 50;
	agent_ethtool_poll_sample(p);
	assert_int_equal(json_array_size(events), 1);
	assert_int_equal(ev_int(the_event("nic_counter", "tx_prio3_pause"), "delta"), 50);
	agent_ethtool_poll_free(p);
}

static void test_poll_storm_prevention(void **state)
{
	struct agent_ethtool_poll *p;
	json_t *e;

	fake_mlx5();
	p = poll_new();
	assert_int_equal(agent_ethtool_poll_add(p, "rcfake0"), 1);
	*fake_val(&mlx, "tx_pause_storm_warning_events") += 1;
	agent_ethtool_poll_sample(p);
	assert_int_equal(json_array_size(events), 2);
	e = the_event("storm_detected", NULL);
	assert_string_equal(ev_str(e, "netdev"), "rcfake0");
	assert_string_equal(ev_str(e, "source"), "nic");
	assert_string_equal(ev_str(e, "name"), "tx_pause_storm_warning_events");
	assert_string_equal(ev_str(e, "severity"), "warning");
	assert_int_equal(ev_int(e, "delta"), 1);
	assert_null(json_object_get(e, "priority"));
	assert_int_equal(ev_int(the_event("nic_counter", "tx_pause_storm_warning_events"), "delta"),
			 1);

	/* The NIC stopped sending pauses (its prevention fired): an error storm. */
	events_reset();
	*fake_val(&mlx, "tx_pause_storm_error_events") += 2;
	agent_ethtool_poll_sample(p);
	e = the_event("storm_detected", NULL);
	assert_string_equal(ev_str(e, "name"), "tx_pause_storm_error_events");
	assert_string_equal(ev_str(e, "severity"), "error");
	assert_int_equal(ev_int(e, "delta"), 2);

	/* Unmoved, it stays quiet. */
	events_reset();
	agent_ethtool_poll_sample(p);
	assert_int_equal(json_array_size(events), 0);
	agent_ethtool_poll_free(p);
}

static void test_poll_reset_and_reconfiguration(void **state)
{
	static const char *const with_prio4[] = {
	    "rx_prio4_pause",	       "rx_prio4_pause_duration",   "tx_prio4_pause",
	    "tx_prio4_pause_duration", "rx_prio4_pause_transition",
	};
	char saved[FAKE_MAX][ETH_GSTRING_LEN];
	uint64_t savedv[FAKE_MAX];
	struct agent_ethtool_poll *p;
	unsigned int n, i;
	uint64_t v;

	fake_mlx5();
	p = poll_new();
	assert_int_equal(agent_ethtool_poll_add(p, "rcfake0"), 1);

	/* Backwards (a driver reload): recorded, no event; the next delta is from there. */
	*fake_val(&mlx, "rx_prio3_pause") = 5;
	agent_ethtool_poll_sample(p);
	assert_int_equal(json_array_size(events), 0);
	*fake_val(&mlx, "rx_prio3_pause") = 9;
	agent_ethtool_poll_sample(p);
	assert_int_equal(ev_int(the_event("nic_counter", "rx_prio3_pause"), "delta"), 4);
	assert_int_equal(ev_int(the_event("rx", NULL), "frames"), 4);

	/*
	 * PFC enabled on priority 4: five counters appear in front of the
	 * others (every index shifts). New ones only record their value; the
	 * old ones are still matched by name.
	 */
	events_reset();
	n = mlx.n;
	memcpy(saved, mlx.names, sizeof(saved));
	memcpy(savedv, mlx.values, sizeof(savedv));
	fake_set(&mlx, with_prio4, 5);
	for (i = 0; i < 5; i++)
		mlx.values[i] = 40000 + i;
	memcpy(mlx.names[5], saved, (size_t)n * ETH_GSTRING_LEN);
	memcpy(&mlx.values[5], savedv, (size_t)n * sizeof(uint64_t));
	mlx.n = n + 5;
	*fake_val(&mlx, "rx_prio3_pause") += 3;
	agent_ethtool_poll_sample(p);
	assert_int_equal(json_array_size(events), 2);
	assert_int_equal(ev_int(the_event("nic_counter", "rx_prio3_pause"), "delta"), 3);
	assert_int_equal(ev_int(the_event("rx", NULL), "priority"), 3);

	/* Both priorities paused in one sample: one rx event each. */
	events_reset();
	*fake_val(&mlx, "rx_prio3_pause") += 10;
	*fake_val(&mlx, "rx_prio4_pause") += 20;
	agent_ethtool_poll_sample(p);
	assert_int_equal(count_type("rx"), 2);
	assert_int_equal(count_type("nic_counter"), 2);
	assert_int_equal(ev_int(the_event("nic_counter", "rx_prio4_pause"), "delta"), 20);

	/*
	 * PFC off on 3, and back on later: neither makes an event. What the
	 * counter did while it was hidden is not a movement seen by a sample.
	 */
	events_reset();
	v = *fake_val(&mlx, "rx_prio3_pause");
	fake_remove(&mlx, "rx_prio3_pause");
	agent_ethtool_poll_sample(p);
	fake_append(&mlx, "rx_prio3_pause", v + 1000);
	agent_ethtool_poll_sample(p);
	assert_int_equal(json_array_size(events), 0);
	*fake_val(&mlx, "rx_prio3_pause") += 1;
	agent_ethtool_poll_sample(p);
	assert_int_equal(ev_int(the_event("nic_counter", "rx_prio3_pause"), "delta"), 1);
	agent_ethtool_poll_free(p);
}

static void grow_by_two(struct fake_dev *d)
{
	fake_append(d, "rx_prio5_pause", 1);
	fake_append(d, "tx_prio5_pause", 1);
}

static void test_poll_set_changes_while_read(void **state)
{
	struct agent_ethtool_poll *p;
	struct agent_ethtool_stats st = {0};
	int fd;

	fake_mlx5();
	p = poll_new();
	assert_int_equal(agent_ethtool_poll_add(p, "rcfake0"), 1);
	/* Counters appear between the count and the names: the sample is skipped, whole. */
	*fake_val(&mlx, "rx_prio3_pause") += 11;
	mlx.race = grow_by_two;
	agent_ethtool_poll_sample(p);
	assert_null(mlx.race);
	assert_int_equal(json_array_size(events), 0);
	/* The next one sees the frames (nothing was lost), and baselines the new counters. */
	agent_ethtool_poll_sample(p);
	assert_int_equal(json_array_size(events), 2);
	assert_int_equal(ev_int(the_event("rx", NULL), "frames"), 11);
	agent_ethtool_poll_free(p);

	/* The reader itself says -EAGAIN, and the kernel's extra names landed in the slack. */
	fd = agent_ethtool_socket();
	assert_true(fd >= 0);
	mlx.race = grow_by_two;
	assert_int_equal(agent_ethtool_names(fd, "rcfake0", &st), -EAGAIN);
	assert_int_equal(agent_ethtool_names(fd, "rcfake0", &st), 0);
	assert_int_equal(st.n, mlx.n);
	assert_int_equal(agent_ethtool_values(fd, "rcfake0", &st), 0);
	/* Values asked for a set that has since grown: -EAGAIN, not a misread. */
	grow_by_two(&mlx);
	assert_int_equal(agent_ethtool_values(fd, "rcfake0", &st), -EAGAIN);
	agent_ethtool_stats_free(&st);
	close(fd);
}

static void test_poll_skips_netdevs_without_pause_counters(void **state)
{
	static const char *const virtio[] = {"rx_drops", "rx_xdp_packets", "rx_kicks", "tx_kicks",
					     "rx_queue_0_packets"};
	static struct fake_dev vnet, lo, gone;
	struct agent_ethtool_poll *p;

	memset(&vnet, 0, sizeof(vnet));
	vnet.ifname = "rcvirt0";
	fake_set(&vnet, virtio, 5);
	memset(&lo, 0, sizeof(lo));
	lo.ifname = "rcnostat0";
	lo.no_stats = true;
	memset(&gone, 0, sizeof(gone));
	gone.ifname = "rcgone0";
	gone.err = -ENODEV;
	fakes[0] = &vnet;
	fakes[1] = &lo;
	fakes[2] = &gone;
	p = poll_new();
	/* virtio-net: count and names once, then never again. */
	assert_int_equal(agent_ethtool_poll_add(p, "rcvirt0"), 0);
	assert_int_equal(vnet.calls, 2);
	/* No statistics at all: one ioctl. */
	assert_int_equal(agent_ethtool_poll_add(p, "rcnostat0"), 0);
	assert_int_equal(lo.calls, 1);
	/* A netdev that cannot be read is an error, and is not kept. */
	assert_int_equal(agent_ethtool_poll_add(p, "rcgone0"), -ENODEV);
	assert_int_equal(agent_ethtool_poll_count(p), 0);
	vnet.values[0] = 99;
	agent_ethtool_poll_sample(p);
	agent_ethtool_poll_sample(p);
	assert_int_equal(vnet.calls, 2);
	assert_int_equal(lo.calls, 1);
	assert_int_equal(gone.calls, 1);
	assert_int_equal(json_array_size(events), 0);
	/* Added again: still skipped, no new probe. */
	assert_int_equal(agent_ethtool_poll_add(p, "rcvirt0"), 0);
	assert_int_equal(vnet.calls, 2);
	agent_ethtool_poll_free(p);
}

static void test_poll_netdev_gone(void **state)
{
	struct agent_ethtool_poll *p;

	fake_mlx5();
	p = poll_new();
	assert_int_equal(agent_ethtool_poll_add(p, "rcfake0"), 1);
	mlx.err = -ENODEV;
	agent_ethtool_poll_sample(p);
	assert_int_equal(agent_ethtool_poll_count(p), 0);
	mlx.calls = 0;
	agent_ethtool_poll_sample(p);
	assert_int_equal(mlx.calls, 0);
	/* It came back: a new probe and a new baseline. */
	mlx.err = 0;
	*fake_val(&mlx, "rx_prio3_pause") += 5;
	assert_int_equal(agent_ethtool_poll_add(p, "rcfake0"), 1);
	agent_ethtool_poll_sample(p);
	assert_int_equal(json_array_size(events), 0);
	/* Another error (not gone) keeps it: it is read again next time. */
	mlx.err = -EIO;
	agent_ethtool_poll_sample(p);
	assert_int_equal(agent_ethtool_poll_count(p), 1);
	mlx.err = 0;
	*fake_val(&mlx, "rx_prio3_pause") += 5;
	agent_ethtool_poll_sample(p);
	assert_int_equal(ev_int(the_event("rx", NULL), "frames"), 5);
	agent_ethtool_poll_free(p);
}

static void test_poll_ice_global_xon_and_bnxt_totals(void **state)
{
	static const char *const ice_names[] = {
	    "rx_bytes.nic",	      "link_xon_rx.nic",	"link_xoff_rx.nic",
	    "link_xon_tx.nic",	      "link_xoff_tx.nic",	"rx_priority_3_xon.nic",
	    "rx_priority_3_xoff.nic", "tx_priority_3_xoff.nic",
	};
	static const char *const bnxt_names[] = {
	    "rx_pause_frames",	      "rx_pfc_frames",		 "rx_pfc_ena_frames_pri3",
	    "tx_pfc_ena_frames_pri3", "pfc_pri3_rx_duration_us", "pfc_pri3_rx_transitions",
	};
	static struct fake_dev ice, bnxt;
	struct agent_ethtool_poll *p;
	json_t *e;

	memset(&ice, 0, sizeof(ice));
	ice.ifname = "rcice0";
	fake_set(&ice, ice_names, 8);
	memset(&bnxt, 0, sizeof(bnxt));
	bnxt.ifname = "rcbnxt0";
	fake_set(&bnxt, bnxt_names, 6);
	bnxt.tunable_err = -EOPNOTSUPP;
	fakes[0] = &ice;
	fakes[1] = &bnxt;
	p = poll_new();
	assert_int_equal(agent_ethtool_poll_add(p, "rcice0"), 1);
	assert_int_equal(agent_ethtool_poll_add(p, "rcbnxt0"), 1);
	assert_int_equal(agent_ethtool_poll_count(p), 2);

	/* 802.3x PAUSE (XOFF then XON) received: one global rx, the XON only a nic_counter. */
	*fake_val(&ice, "link_xoff_rx.nic") += 30;
	*fake_val(&ice, "link_xon_rx.nic") += 30;
	agent_ethtool_poll_sample(p);
	assert_int_equal(count_type("nic_counter"), 2);
	e = the_event("rx", NULL);
	assert_true(json_is_true(json_object_get(e, "global")));
	assert_null(json_object_get(e, "priority"));
	assert_int_equal(ev_int(e, "frames"), 30);
	assert_string_equal(ev_str(e, "netdev"), "rcice0");

	/* PFC on priority 3 at both: one rx each, bnxt's rx_pfc_frames total adds none. */
	events_reset();
	*fake_val(&ice, "rx_priority_3_xoff.nic") += 8;
	*fake_val(&ice, "rx_priority_3_xon.nic") += 1;
	*fake_val(&bnxt, "rx_pfc_ena_frames_pri3") += 40;
	*fake_val(&bnxt, "rx_pfc_frames") += 40;
	*fake_val(&bnxt, "pfc_pri3_rx_duration_us") += 123456;
	agent_ethtool_poll_sample(p);
	assert_int_equal(count_type("nic_counter"), 5);
	assert_int_equal(count_type("rx"), 2);
	e = the_event("rx", "rx_priority_3_xoff.nic");
	assert_int_equal(ev_int(e, "priority"), 3);
	assert_int_equal(ev_int(e, "frames"), 8);
	e = the_event("rx", "rx_pfc_ena_frames_pri3");
	assert_string_equal(ev_str(e, "netdev"), "rcbnxt0");
	assert_int_equal(ev_int(e, "priority"), 3);
	assert_int_equal(ev_int(e, "frames"), 40);
	assert_int_equal(count_type("storm_detected"), 0);
	agent_ethtool_poll_free(p);
}

/*
 * Two counters of the same priority's frames, and a name listed twice
 * (synthetic: a port's and a function's counters in one list).
 */
static void test_poll_one_rx_per_priority(void **state)
{
	static const char *const names[] = {"rx_prio3_pause",  "port.rx_priority_3_xoff",
					    "rx_global_pause", "link_xoff_rx.nic",
					    "tx_prio3_pause",  "tx_prio3_pause"};
	static struct fake_dev dup;
	struct agent_ethtool_poll *p;
	json_t *e;

	memset(&dup, 0, sizeof(dup));
	dup.ifname = "rcdup0";
	fake_set(&dup, names, 6);
	dup.values[4] = 100;
	dup.values[5] = 5;
	fakes[0] = &dup;
	p = poll_new();
	assert_int_equal(agent_ethtool_poll_add(p, "rcdup0"), 1);
	/* A name listed twice: the first is the counter; the second makes no flip-flop. */
	agent_ethtool_poll_sample(p);
	agent_ethtool_poll_sample(p);
	assert_int_equal(json_array_size(events), 0);
	*fake_val(&dup, "rx_prio3_pause") += 10;
	*fake_val(&dup, "port.rx_priority_3_xoff") += 4;
	*fake_val(&dup, "rx_global_pause") += 2;
	*fake_val(&dup, "link_xoff_rx.nic") += 6;
	agent_ethtool_poll_sample(p);
	assert_int_equal(count_type("nic_counter"), 4);
	/* One per priority and one global, each the larger of its counters. */
	assert_int_equal(count_type("rx"), 2);
	e = the_event("rx", "rx_prio3_pause");
	assert_int_equal(ev_int(e, "frames"), 10);
	assert_int_equal(ev_int(e, "priority"), 3);
	e = the_event("rx", "link_xoff_rx.nic");
	assert_int_equal(ev_int(e, "frames"), 6);
	assert_true(json_is_true(json_object_get(e, "global")));
	agent_ethtool_poll_free(p);
}

static void test_inventory(void **state)
{
	static struct fake_dev vnet;
	json_t *o;
	int fd = agent_ethtool_socket();

	assert_true(fd >= 0);
	fake_mlx5();
	o = agent_ethtool_inventory(fd, "rcfake0");
	assert_int_equal(ev_int(o, "counters"), MLX5_SELECTED);
	assert_int_equal(ev_int(o, "prevention_tout_ms"), 100);
	assert_null(json_object_get(o, "error"));
	json_decref(o);
	mlx.tout = PFC_STORM_PREVENTION_AUTO;
	o = agent_ethtool_inventory(fd, "rcfake0");
	assert_string_equal(ev_str(o, "prevention_tout_ms"), "auto");
	json_decref(o);
	mlx.tout = PFC_STORM_PREVENTION_DISABLE;
	o = agent_ethtool_inventory(fd, "rcfake0");
	assert_string_equal(ev_str(o, "prevention_tout_ms"), "disabled");
	json_decref(o);

	memset(&vnet, 0, sizeof(vnet));
	vnet.ifname = "rcvirt0";
	vnet.no_stats = true;
	vnet.tunable_err = -EOPNOTSUPP;
	fakes[1] = &vnet;
	o = agent_ethtool_inventory(fd, "rcvirt0");
	assert_int_equal(ev_int(o, "counters"), 0);
	assert_string_equal(ev_str(o, "prevention_tout_ms"), "not supported");
	assert_null(json_object_get(o, "error"));
	json_decref(o);
	close(fd);
}

/* The real ioctl, for what every host has: lo (no statistics) and a netdev that is not there. */
static void test_real_ioctl(void **state)
{
	struct agent_ethtool_stats st = {0};
	unsigned int n = 12345, tout;
	json_t *o;
	int fd = agent_ethtool_socket();

	assert_true(fd >= 0);
	assert_int_equal(agent_ethtool_count(fd, "lo", &n), -EOPNOTSUPP);
	assert_int_equal(n, 12345);
	assert_int_equal(agent_ethtool_names(fd, "lo", &st), -EOPNOTSUPP);
	assert_int_equal(agent_ethtool_pfc_prevention(fd, "lo", &tout), -EOPNOTSUPP);
	assert_int_equal(agent_ethtool_count(fd, "rcnosuchdev0", &n), -ENODEV);
	assert_int_equal(agent_ethtool_count(fd, "a-name-longer-than-ifnamsiz", &n), -ENODEV);
	o = agent_ethtool_inventory(fd, "lo");
	assert_int_equal(ev_int(o, "counters"), 0);
	assert_string_equal(ev_str(o, "prevention_tout_ms"), "not supported");
	json_decref(o);
	agent_ethtool_stats_free(&st);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_classify_mlx5),
	    cmocka_unit_test(test_classify_bnxt),
	    cmocka_unit_test(test_classify_ice_and_virtual),
	    cmocka_unit_test(test_priority_from_name),
	    cmocka_unit_test_setup_teardown(test_poll_deltas_and_rx, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_poll_storm_prevention, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_poll_reset_and_reconfiguration, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_poll_set_changes_while_read, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_poll_skips_netdevs_without_pause_counters, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_poll_netdev_gone, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_poll_ice_global_xon_and_bnxt_totals, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_poll_one_rx_per_priority, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_inventory, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_real_ioctl, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
