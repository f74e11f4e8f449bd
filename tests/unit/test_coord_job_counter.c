// SPDX-License-Identifier: MIT
/*
 * coordinator/drill_job_counter.c: a job's throughput from an RDMA counter of its node's ports,
 * with the intervals in which the counter did not move made samples of 0, and only the counter,
 * node and ports of the job's rails taken; and the job's last progress, from samples of any
 * source.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "coordinator/drill_priv.h"

static struct drill d;
static struct sc_job job;
static struct fl_agent agents[2];

static int setup(void **state)
{
	unsigned int i;

	memset(&d, 0, sizeof(d));
	memset(&job, 0, sizeof(job));
	memset(agents, 0, sizeof(agents));
	snprintf(job.tp_counter, sizeof(job.tp_counter), "rcvd_pkts");
	snprintf(job.tp_node, sizeof(job.tp_node), "node-b");
	d.sc.workload.job = &job;
	d.sc.workload.rails[0] = 1; /* the job rides rail 1 only */
	d.sc.workload.nr_rails = 1;
	snprintf(agents[0].name, sizeof(agents[0].name), "node-a");
	snprintf(agents[1].name, sizeof(agents[1].name), "node-b");
	for (i = 0; i < 2; i++)
		agents[i].inventory = json_loads(
		    "{\"devices\": [{\"name\": \"rxe_rail0\", \"ports\": [{\"port\": 1, "
		    "\"netdev\": "
		    "\"rail0\"}]}, {\"name\": \"rxe_rail1\", \"ports\": [{\"port\": 1, "
		    "\"netdev\": \"rail1\"}]}], \"netdevs\": [{\"name\": \"eth0\"}, {\"name\": "
		    "\"rail0\", \"rail\": 0}, {\"name\": \"rail1\", \"rail\": 1}]}",
		    0, NULL);
	d.fl.agents = agents;
	d.fl.nr_agents = 2;
	d.job.stop_ms = -1;
	for (i = 0; i < SC_MAX_RAILS; i++)
		d.job.ctr_last_ms[i] = -1;
	return 0;
}

static int teardown(void **state)
{
	json_decref(agents[0].inventory);
	json_decref(agents[1].inventory);
	return 0;
}

static json_t *counter(const char *node, const char *device, const char *name, double t_ms,
		       double delta)
{
	json_t *ev = json_pack("{s:s, s:s, s:s, s:i, s:s, s:s, s:f, s:f}", "kind", "counter",
			       "node", node, "device", device, "port", 1, "group", "hw_counters",
			       "name", name, "t_ms", t_ms, "delta", delta);
	json_t *out = drill_job_counter(&d, ev);

	json_decref(ev);
	return out;
}

static double num(const json_t *s, const char *key)
{
	return json_number_value(json_object_get(s, key));
}

static void test_samples_and_zeros(void **state)
{
	json_t *out;

	out = counter("node-b", "rxe_rail1", "rcvd_pkts", 1000, 500);
	assert_int_equal(json_array_size(out), 1);
	assert_string_equal(json_string_value(json_object_get(json_array_get(out, 0), "type")),
			    "interval");
	assert_string_equal(json_string_value(json_object_get(json_array_get(out, 0), "wl_id")),
			    DRILL_WL_ID);
	assert_int_equal((int)num(json_array_get(out, 0), "mbps"), 500);
	assert_int_equal((int)num(json_array_get(out, 0), "rail"), 1);
	json_decref(out);

	/* four seconds on: three intervals in which it did not move, then 800 */
	out = counter("node-b", "rxe_rail1", "rcvd_pkts", 5010, 800);
	assert_int_equal(json_array_size(out), 4);
	assert_int_equal((int)num(json_array_get(out, 0), "mbps"), 0);
	assert_true(num(json_array_get(out, 0), "t_ms") > 1900 &&
		    num(json_array_get(out, 0), "t_ms") < 2100);
	assert_int_equal((int)num(json_array_get(out, 2), "mbps"), 0);
	assert_int_equal((int)num(json_array_get(out, 3), "mbps"), 800);
	assert_true(num(json_array_get(out, 3), "t_ms") == 5010);
	json_decref(out);

	/* the drill's end, 3.5 s later: the counter has not moved since */
	out = drill_job_counter_end(&d, 8510);
	assert_int_equal(json_array_size(out), 3);
	assert_int_equal((int)num(json_array_get(out, 2), "mbps"), 0);
	assert_true(num(json_array_get(out, 2), "t_ms") < 8510);
	json_decref(out);
	out = drill_job_counter_end(&d, 8600); /* nothing due twice */
	assert_int_equal(json_array_size(out), 0);
	json_decref(out);
}

static void test_not_the_jobs(void **state)
{
	json_t *out;

	assert_null(counter("node-a", "rxe_rail1", "rcvd_pkts", 1000, 5)); /* another node */
	assert_null(counter("node-b", "rxe_rail0", "rcvd_pkts", 1000, 5)); /* a rail not its */
	assert_null(counter("node-b", "rxe_rail1", "sent_pkts", 1000, 5)); /* another counter */
	assert_null(counter("node-b", "rxe_rail9", "rcvd_pkts", 1000, 5)); /* unknown device */
	d.job.stop_ms = 0; /* before the job starts, and once it is stopped */
	assert_null(counter("node-b", "rxe_rail1", "rcvd_pkts", 1000, 5));
	d.job.stop_ms = -1;
	out = counter("node-b", "rxe_rail1", "rcvd_pkts", 1000, 5);
	assert_int_equal(json_array_size(out), 1);
	json_decref(out);
	job.tp_counter[0] = '\0'; /* no counter throughput at all */
	assert_null(counter("node-b", "rxe_rail1", "rcvd_pkts", 2000, 5));
	assert_null(drill_job_counter_end(&d, 9000));
}

static void test_data_words(void **state)
{
	json_t *out;

	snprintf(job.tp_counter, sizeof(job.tp_counter), "port_rcv_data");
	out = counter("node-b", "rxe_rail1", "port_rcv_data", 1000, 250000); /* 1 MB */
	assert_int_equal(json_array_size(out), 1);
	assert_true(num(json_array_get(out, 0), "mbps") > 0.999 &&
		    num(json_array_get(out, 0), "mbps") < 1.001);
	json_decref(out);
}

static void add(const char *wl_id, const char *role, double t_ms, double mbps)
{
	json_array_append_new(d.fl.events, json_pack("{s:s, s:s, s:s, s:s, s:f, s:f}", "kind",
						     "workload", "type", "interval", "wl_id", wl_id,
						     "role", role, "t_ms", t_ms, "mbps", mbps));
}

static void test_last_progress(void **state)
{
	d.fl.events = json_array();
	assert_true(drill_job_last_progress_ms(&d, 1e9) < 0);
	add(DRILL_WL_ID, "client", 1000, 3.5);
	add(DRILL_WL_ID, "client", 2000, 0); /* no progress */
	add("guard-0", "client", 3000, 9);   /* another workload's */
	add(DRILL_WL_ID, "server", 4000, 9); /* the other end's */
	add(DRILL_WL_ID, "client", 5000, 0.001);
	add(DRILL_WL_ID, "client", 3500, 1); /* out of order: the latest counts */
	assert_true(drill_job_last_progress_ms(&d, 1e9) == 5000);
	assert_true(drill_job_last_progress_ms(&d, 4999) == 3500); /* up to the job's stop */
	json_array_append_new(d.fl.events, json_pack("{s:s}", "kind", "counter"));
	assert_true(drill_job_last_progress_ms(&d, 1e9) == 5000);
	json_decref(d.fl.events);
	d.fl.events = NULL;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_samples_and_zeros, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_not_the_jobs, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_data_words, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_last_progress, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
