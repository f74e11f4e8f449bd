// SPDX-License-Identifier: MIT
/*
 * The Alertmanager webhook receiver over a real loopback socket, and alert
 * coverage from event streams: fired / late / missed, resolved / unresolved,
 * the faults filter, and alerts nobody expected.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <errno.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/units.h"
#include "coordinator/alerts.h"
#include "coordinator/coverage.h"
#include "coordinator/scenario.h"

static const char webhook[] =
    "{\"version\":\"4\",\"status\":\"firing\",\"receiver\":\"rdmachaos\",\"alerts\":["
    "{\"status\":\"firing\",\"labels\":{\"alertname\":\"RdmaPortDown\",\"node\":\"node-b\","
    "\"netdev\":\"rail0\",\"severity\":\"critical\"},\"annotations\":{\"summary\":\"s\"},"
    "\"startsAt\":\"2026-11-30T10:00:00Z\",\"endsAt\":\"0001-01-01T00:00:00Z\","
    "\"fingerprint\":\"abc\"},"
    "{\"status\":\"resolved\",\"labels\":{\"alertname\":\"RdmaQpErrors\"}}]}";

/* One HTTP/1.0 request to 127.0.0.1:port with an Authorization header (NULL: none). */
static int http_auth(int port, const char *method, const char *auth, const char *body)
{
	struct sockaddr_in sin = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	char req[8192], resp[512];
	int fd = socket(AF_INET, SOCK_STREAM, 0), code = -1;
	ssize_t n;
	size_t len, off;

	assert_true(fd >= 0);
	inet_pton(AF_INET, "127.0.0.1", &sin.sin_addr);
	assert_int_equal(connect(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	len = (size_t)snprintf(req, sizeof(req),
			       "%s /alerts HTTP/1.0\r\nContent-Type: application/json\r\n"
			       "%s%s%sContent-Length: %zu\r\n\r\n",
			       method, auth ? "Authorization: " : "", auth ? auth : "",
			       auth ? "\r\n" : "", strlen(body));
	assert_int_equal(write(fd, req, len), (ssize_t)len);
	/* The body: a refusal may come (and the connection close) before it is all sent. */
	for (off = 0, len = strlen(body); off < len; off += (size_t)n) {
		n = send(fd, body + off, len - off, MSG_NOSIGNAL);
		if (n <= 0)
			break;
	}
	n = read(fd, resp, sizeof(resp) - 1);
	if (n > 12) {
		resp[n] = '\0';
		code = atoi(resp + 9);
	}
	close(fd);
	return code;
}

/* Authorized as the receiver of test_receiver expects. */
static int http(int port, const char *method, const char *body)
{
	return http_auth(port, method, "Bearer s3cret", body);
}

static void test_receiver(void **state)
{
	struct alerts *a = NULL;
	char err[256], addr[32];
	struct alerts_counts n;
	json_t *events = json_array();
	int port = 20000 + (int)(getpid() % 20000), ret;

	snprintf(addr, sizeof(addr), "127.0.0.1:%d", port);
	assert_int_equal(alerts_start(addr, NULL, &a, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "needs a token"));
	ret = alerts_start(addr, "s3cret", &a, err, sizeof(err));
	if (ret)
		print_error("%s\n", err);
	assert_int_equal(ret, 0);
	/* Issue 13: anyone could post alerts that pass a drill. */
	assert_int_equal(http_auth(port, "POST", NULL, webhook), 401);
	assert_int_equal(http_auth(port, "POST", "Bearer s3cre", webhook), 401);
	assert_int_equal(http_auth(port, "POST", "Bearer s3cretX", webhook), 401);
	assert_int_equal(http_auth(port, "POST", "Basic s3cret", webhook), 401);
	assert_int_equal(http(port, "POST", webhook), 200);
	assert_int_equal(http(port, "POST", "{\"not\": \"a webhook\"}"), 400);
	assert_int_equal(http(port, "GET", ""), 405);
	assert_int_equal(alerts_drain(a, events, rc_now_ns()), 2);
	assert_int_equal(json_array_size(events), 2);
	assert_string_equal(
	    json_string_value(json_object_get(json_array_get(events, 0), "alertname")),
	    "RdmaPortDown");
	assert_string_equal(json_string_value(json_object_get(json_array_get(events, 0), "status")),
			    "firing");
	assert_string_equal(json_string_value(json_object_get(json_array_get(events, 1), "status")),
			    "resolved");
	/* t_ms is on the drill's clock: negative when t0 is later than the arrival */
	assert_true(json_number_value(json_object_get(json_array_get(events, 0), "t_ms")) <= 0);
	alerts_counts(a, &n);
	assert_int_equal(n.received, 1);
	assert_int_equal(n.refused, 1);
	assert_int_equal(n.unauthorized, 4);
	assert_int_equal(alerts_drain(a, events, 0), 0);
	/* The queue is bounded: what the drill's loop has not taken yet stops at 4096 alerts. */
	{
		size_t len = 0, cap = 200 * 1024, k;
		char *big = malloc(cap);

		assert_non_null(big);
		len += (size_t)snprintf(big + len, cap - len, "{\"alerts\":[");
		for (k = 0; k < 3000; k++)
			len += (size_t)snprintf(big + len, cap - len,
						"%s{\"labels\":{\"alertname\":\"A%zu\"}}",
						k ? "," : "", k);
		snprintf(big + len, cap - len, "]}");
		assert_int_equal(http(port, "POST", big), 200);
		assert_int_equal(http(port, "POST", big), 200);
		free(big);
	}
	alerts_counts(a, &n);
	assert_int_equal(n.dropped, 2 * 3000 - 4096);
	assert_int_equal(alerts_drain(a, events, 0), 4096);
	/* the port is taken: a second receiver says so */
	assert_int_equal(alerts_start(addr, "t", &(struct alerts *){NULL}, err, sizeof(err)),
			 -EADDRINUSE);
	assert_non_null(strstr(err, "cannot listen"));
	alerts_stop(a);
	assert_int_equal(alerts_start("localhost", "t", &a, err, sizeof(err)), -EINVAL);
	json_decref(events);
}

/*
 * Issue 13: 64 connections trickling their headers (a byte a second, inside the 5 s idle
 * timeout) took every slot the receiver gives one address, and every real POST failed. Now each
 * has 5 s for its whole request: the drill's drain cuts them, and the next POST gets through.
 */
static void test_slow_clients(void **state)
{
	enum { SLOW = 64 };
	struct sockaddr_in sin = {.sin_family = AF_INET};
	int port = 20000 + (int)((getpid() + 7) % 20000), fds[SLOW], i, open_, code;
	struct alerts *a = NULL;
	struct alerts_counts n;
	json_t *events = json_array();
	char err[256], addr[32], c;
	uint64_t start, last_byte = 0;

	snprintf(addr, sizeof(addr), "127.0.0.1:%d", port);
	assert_int_equal(alerts_start(addr, "s3cret", &a, err, sizeof(err)), 0);
	sin.sin_port = htons((uint16_t)port);
	inet_pton(AF_INET, "127.0.0.1", &sin.sin_addr);
	for (i = 0; i < SLOW; i++) {
		fds[i] = socket(AF_INET, SOCK_STREAM, 0);
		assert_true(fds[i] >= 0);
		assert_int_equal(connect(fds[i], (struct sockaddr *)&sin, sizeof(sin)), 0);
		assert_int_equal(write(fds[i], "POST /alerts HTTP/1.1\r\nX: ", 27), 27);
	}
	start = rc_now_ns();
	code = 0;
	for (;;) {
		uint64_t now = rc_now_ns();

		alerts_drain(a, events, 0);
		if (now - last_byte >= RC_NSEC_PER_SEC) { /* a byte a second: never idle for 5 s */
			for (i = 0; i < SLOW; i++)
				if (fds[i] >= 0)
					(void)!send(fds[i], "x", 1, MSG_NOSIGNAL);
			last_byte = now;
		}
		if (!code && now - start > 2 * RC_NSEC_PER_SEC)
			code = http(port, "POST", webhook); /* every slot is taken: refused */
		for (i = 0, open_ = 0; i < SLOW; i++) {
			if (fds[i] < 0)
				continue;
			if (recv(fds[i], &c, 1, MSG_DONTWAIT) == -1 &&
			    (errno == EAGAIN || errno == EWOULDBLOCK)) {
				open_++;
				continue;
			}
			close(fds[i]); /* cut: EOF, or a reset */
			fds[i] = -1;
		}
		if (!open_ || now - start > 12 * RC_NSEC_PER_SEC)
			break;
		usleep(100 * 1000);
	}
	assert_int_equal(open_, 0);
	assert_true(rc_now_ns() - start >= 4 * RC_NSEC_PER_SEC); /* not before their 5 s */
	assert_int_not_equal(code, 200);
	/* the receiver's own thread notices the cut sockets at its next poll: give it a moment */
	for (i = 0; i < 50 && (code = http(port, "POST", webhook)) != 200; i++) {
		alerts_drain(a, events, 0);
		usleep(100 * 1000);
	}
	assert_int_equal(code, 200);
	alerts_counts(a, &n);
	assert_int_equal(n.timed_out, SLOW);
	assert_int_equal(n.received, 1);
	alerts_stop(a);
	json_decref(events);
}

static json_t *alert_ev(const char *name, const char *status, double t)
{
	return json_pack("{s:s,s:s,s:s,s:f,s:s}", "kind", "alert", "alertname", name, "status",
			 status, "t_ms", t, "fingerprint", name);
}

static void test_coverage(void **state)
{
	static struct sc_fault d1 = {.name = "down", .base = "down"},
			       d2 = {.name = "storm", .base = "storm"};
	struct ev_fault f[2] = {
	    {.decl = &d1, .rail = 0, .injected_ms = 20000, .reverted_ms = 30000},
	    {.decl = &d2, .rail = 0, .injected_ms = 40000, .reverted_ms = 46000},
	};
	struct sc_expect x = {.nr_alerts = 3};
	json_t *events = json_array(), *out = NULL, *probs = json_array(), *row;
	char *dump;

	snprintf(x.alerts[0].name, SC_ALERT_NAME_LEN, "RdmaPortDown");
	x.alerts[0].fire_within_ms = 15000;
	x.alerts[0].resolve_within_ms = 20000;
	snprintf(x.alerts[0].faults[0], SC_NAME_LEN, "down");
	x.alerts[0].nr_faults = 1;
	snprintf(x.alerts[1].name, SC_ALERT_NAME_LEN, "RdmaPfcStorm");
	x.alerts[1].fire_within_ms = 5000;
	snprintf(x.alerts[1].faults[0], SC_NAME_LEN, "storm");
	x.alerts[1].nr_faults = 1;
	snprintf(x.alerts[2].name, SC_ALERT_NAME_LEN, "RdmaQpErrors");
	x.alerts[2].fire_within_ms = 10000;
	x.alerts[2].resolve_within_ms = 5000;
	/* port down fires 12 s in and resolves 8 s after the revert: in time */
	json_array_append_new(events, alert_ev("RdmaPortDown", "firing", 32000));
	json_array_append_new(events, alert_ev("RdmaPortDown", "resolved", 38000));
	/* the storm alert comes 7 s in: late */
	json_array_append_new(events, alert_ev("RdmaPfcStorm", "firing", 47000));
	/* QP errors fire for the first fault and never resolve; not at all for the second */
	json_array_append_new(events, alert_ev("RdmaQpErrors", "firing", 21000));
	/* noise */
	json_array_append_new(events, alert_ev("NodeDiskFull", "firing", 25000));
	json_array_append_new(events, alert_ev("NodeDiskFull", "firing", 26000));

	assert_int_equal(cov_alerts(events, &x, f, 2, &out, probs), 1);
	/* down x PortDown, down x QpErrors, storm x PfcStorm, storm x QpErrors */
	assert_int_equal(json_array_size(json_object_get(out, "coverage")), 4);
	row = json_array_get(json_object_get(out, "coverage"), 0);
	assert_string_equal(json_string_value(json_object_get(row, "status")), "fired");
	assert_true(json_number_value(json_object_get(row, "fired_ms")) == 12000);
	assert_string_equal(json_string_value(json_object_get(row, "resolve")), "resolved");
	assert_true(json_number_value(json_object_get(row, "resolved_ms")) == 8000);
	assert_true(json_is_true(json_object_get(row, "ok")));
	row = json_array_get(json_object_get(out, "coverage"), 1);
	assert_string_equal(json_string_value(json_object_get(row, "alert")), "RdmaQpErrors");
	assert_string_equal(json_string_value(json_object_get(row, "status")), "fired");
	assert_string_equal(json_string_value(json_object_get(row, "resolve")), "unresolved");
	row = json_array_get(json_object_get(out, "coverage"), 2);
	assert_string_equal(json_string_value(json_object_get(row, "status")), "late");
	row = json_array_get(json_object_get(out, "coverage"), 3);
	assert_string_equal(json_string_value(json_object_get(row, "status")), "missed");
	assert_true(json_is_null(json_object_get(row, "fired_ms")));
	row = json_array_get(json_object_get(out, "unexpected"), 0);
	assert_string_equal(json_string_value(json_object_get(row, "alert")), "NodeDiskFull");
	assert_int_equal(json_integer_value(json_object_get(row, "notifications")), 2);
	assert_int_equal(json_array_size(json_object_get(out, "unexpected")), 1);
	dump = json_dumps(probs, 0);
	assert_non_null(strstr(dump, "down: alert RdmaQpErrors never resolved"));
	assert_non_null(strstr(dump, "storm: alert RdmaPfcStorm late: notified 7.0 s after the "
				     "injection > 5 s"));
	assert_non_null(strstr(dump, "storm: alert RdmaQpErrors missed"));
	free(dump);
	json_decref(out);
	json_decref(probs);
	json_decref(events);
}

#define DRILL(EXPECT_EXTRA, TOP_EXTRA)                                                             \
	"name: alerts-test\n"                                                                      \
	"lab: {nodes: 2, rails: 2}\n" TOP_EXTRA                                                    \
	"workload: {kind: rdma_stream, from: node-a, to: node-b, rails: [0, 1]}\n"                 \
	"steady_state: {warmup: 1s, baseline: 2s}\n"                                               \
	"faults:\n"                                                                                \
	"  - {name: down, at: 5s, injector: link_down, target: {node: node-b, rail: 0}, "          \
	"duration: 5s}\n"                                                                          \
	"expect:\n"                                                                                \
	"  detection: {within: 5s, signals: [port_event, alert:RdmaPortDown]}\n"                   \
	"  recovery: {within: 10s}\n" EXPECT_EXTRA

static int parse(const char *text, struct scenario *sc, char *err, size_t len)
{
	return scenario_parse("alerts.yaml", text, strlen(text), sc, err, len);
}

static void test_scenario(void **state)
{
	static const char ok[] =
	    DRILL("  alerts:\n"
		  "    - {name: RdmaPortDown, fire_within: 60s, resolve_within: 2m}\n"
		  "    - {name: RdmaQpErrors, fire_within: 30s, faults: [down]}\n",
		  "monitoring: lab\n");
	struct scenario sc;
	char err[512] = "";

	assert_int_equal(parse(ok, &sc, err, sizeof(err)), 0);
	assert_int_equal(sc.monitoring, SC_MON_LAB);
	assert_int_equal(sc.expect.nr_alerts, 2);
	assert_string_equal(sc.expect.alerts[0].name, "RdmaPortDown");
	assert_int_equal(sc.expect.alerts[0].fire_within_ms, 60000);
	assert_int_equal(sc.expect.alerts[0].resolve_within_ms, 120000);
	assert_int_equal(sc.expect.alerts[1].nr_faults, 1);
	assert_int_equal(sc.expect.nr_alert_signals, 1);
	assert_string_equal(sc.expect.alert_signals[0], "RdmaPortDown");
	assert_int_equal(sc.expect.nr_signals, 1);
	scenario_free(&sc);

	assert_int_equal(parse(DRILL("  alerts: [{name: 9lives, fire_within: 1s}]\n", ""), &sc, err,
			       sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "expect.alerts[0].name: \"9lives\" is not an alert name"));
	assert_int_equal(
	    parse(DRILL("  alerts: [{name: A, fire_within: 1s, faults: [nope]}]\n", ""), &sc, err,
		  sizeof(err)),
	    -EINVAL);
	assert_non_null(strstr(err, "\"nope\" is not a fault of this drill"));
	assert_int_equal(parse(DRILL("  alerts: [{name: A}]\n", ""), &sc, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "fire_within"));
	assert_int_equal(parse(DRILL("", "monitoring: prometheus\n"), &sc, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "not a monitoring source"));
	assert_int_equal(
	    parse(DRILL("", "monitoring: {receiver: 0.0.0.0:17990}\n"), &sc, err, sizeof(err)), 0);
	assert_int_equal(sc.monitoring, SC_MON_EXTERNAL);
	assert_string_equal(sc.receiver, "0.0.0.0:17990");
	scenario_free(&sc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_receiver),
	    cmocka_unit_test(test_slow_clients),
	    cmocka_unit_test(test_coverage),
	    cmocka_unit_test(test_scenario),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
