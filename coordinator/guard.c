// SPDX-License-Identifier: MIT
/* Abort guards: the throughput floor and the TCP probe (see guard.h). */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "coordinator/guard.h"

void guard_init(struct guard_state *gs, const struct sc_guard *g)
{
	memset(gs, 0, sizeof(*gs));
	gs->g = g;
	gs->fd = -1;
	gs->below_since_ms = -1;
	gs->armed = g->kind == SC_GUARD_TCP_PROBE;
}

void guard_describe(const struct sc_guard *g, char *buf, size_t len)
{
	char rails[64] = "";
	unsigned int i;

	if (g->kind == SC_GUARD_THROUGHPUT && g->has_flow) {
		for (i = 0; i < g->flow.nr_rails; i++)
			snprintf(rails + strlen(rails), sizeof(rails) - strlen(rails), "%s%d",
				 i ? "," : "", g->flow.rails[i]);
		snprintf(buf, len,
			 "throughput of the bystander flow %s -> %s (rail %s) below %.0f%% of its "
			 "baseline for %.1f s",
			 g->flow.from, g->flow.to, rails, 100 * g->min_ratio, g->for_ms / 1000.0);
	} else if (g->kind == SC_GUARD_THROUGHPUT)
		snprintf(buf, len, "throughput below %.0f%% of baseline for %.1f s",
			 100 * g->min_ratio, g->for_ms / 1000.0);
	else
		snprintf(buf, len, "%u failed TCP connects in a row to %s", g->failures,
			 g->address);
}

static bool guard_trip(struct guard_state *gs, double now_ms, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static bool guard_trip(struct guard_state *gs, double now_ms, const char *fmt, ...)
{
	va_list ap;

	if (gs->tripped)
		return true;
	va_start(ap, fmt);
	vsnprintf(gs->why, sizeof(gs->why), fmt, ap);
	va_end(ap);
	gs->tripped = true;
	gs->tripped_ms = now_ms;
	return true;
}

void guard_arm_throughput(struct guard_state *gs, double now_ms, double baseline_mbps)
{
	if (gs->g->kind != SC_GUARD_THROUGHPUT)
		return;
	gs->armed = baseline_mbps > 0;
	gs->baseline_mbps = baseline_mbps;
	gs->last_sample_ms = now_ms;
	gs->below_since_ms = -1;
}

bool guard_sample(struct guard_state *gs, double t_ms, double mbps)
{
	const struct sc_guard *g = gs->g;
	double floor = g->min_ratio * gs->baseline_mbps;

	if (g->kind != SC_GUARD_THROUGHPUT || !gs->armed || gs->tripped)
		return gs->tripped;
	if (t_ms > gs->last_sample_ms)
		gs->last_sample_ms = t_ms;
	if (mbps >= floor) {
		gs->below_since_ms = -1;
		return false;
	}
	if (gs->below_since_ms < 0)
		gs->below_since_ms = t_ms;
	if (t_ms - gs->below_since_ms >= (double)g->for_ms)
		return guard_trip(gs, t_ms,
				  "the %s stayed below %.2f MB/s (%.0f%% of the %.2f MB/s "
				  "baseline) from %.1f s to %.1f s",
				  g->has_flow ? "bystander flow" : "workload", floor,
				  100 * g->min_ratio, gs->baseline_mbps,
				  gs->below_since_ms / 1000.0, t_ms / 1000.0);
	return false;
}

/* 0 with a non-blocking connect in flight (or done), or -errno and a sentence. */
static int guard_probe_start(struct guard_state *gs)
{
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *res = NULL;
	char host[256], *colon;
	int fd, ret;

	snprintf(host, sizeof(host), "%s", gs->g->address);
	colon = strrchr(host, ':');
	if (!colon)
		return -EINVAL;
	*colon = '\0';
	if (host[0] == '[' && colon[-1] == ']') {
		colon[-1] = '\0';
		memmove(host, host + 1, strlen(host));
	}
	ret = getaddrinfo(host, colon + 1, &hints, &res);
	if (ret) {
		snprintf(gs->last_err, sizeof(gs->last_err), "%s", gai_strerror(ret));
		return -EHOSTUNREACH;
	}
	fd = socket(res->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		ret = -errno;
		freeaddrinfo(res);
		snprintf(gs->last_err, sizeof(gs->last_err), "socket: %s", strerror(-ret));
		return ret;
	}
	if (connect(fd, res->ai_addr, res->ai_addrlen) && errno != EINPROGRESS) {
		ret = -errno;
		snprintf(gs->last_err, sizeof(gs->last_err), "%s", strerror(-ret));
		close(fd);
		freeaddrinfo(res);
		return ret;
	}
	freeaddrinfo(res);
	gs->fd = fd;
	return 0;
}

static void guard_probe_result(struct guard_state *gs, bool ok, double now_ms)
{
	const struct sc_guard *g = gs->g;

	if (gs->fd >= 0)
		close(gs->fd);
	gs->fd = -1;
	gs->next_ms = gs->started_ms + (double)g->every_ms;
	if (ok) {
		gs->fails = 0;
		return;
	}
	if (++gs->fails >= g->failures)
		guard_trip(gs, now_ms, "%u TCP connect(s) in a row to %s failed, the last: %s",
			   gs->fails, g->address, gs->last_err);
}

static bool guard_probe_poll(struct guard_state *gs, double now_ms)
{
	const struct sc_guard *g = gs->g;
	/* An answer later than the probe interval (at least 200 ms) counts as a failure. */
	double timeout_ms = g->every_ms < 200 ? 200 : (double)g->every_ms;
	struct pollfd p;
	int err = 0;
	socklen_t len = sizeof(err);

	if (gs->fd < 0) {
		if (now_ms < gs->next_ms)
			return false;
		gs->started_ms = now_ms;
		gs->attempts++;
		if (guard_probe_start(gs)) {
			guard_probe_result(gs, false, now_ms);
			return gs->tripped;
		}
	}
	p = (struct pollfd){.fd = gs->fd, .events = POLLOUT};
	if (poll(&p, 1, 0) == 1) {
		if (getsockopt(gs->fd, SOL_SOCKET, SO_ERROR, &err, &len) || err) {
			snprintf(gs->last_err, sizeof(gs->last_err), "%s",
				 strerror(err ? err : errno));
			guard_probe_result(gs, false, now_ms);
		} else {
			guard_probe_result(gs, true, now_ms);
		}
	} else if (now_ms - gs->started_ms >= timeout_ms) {
		snprintf(gs->last_err, sizeof(gs->last_err), "no answer within %.0f ms",
			 timeout_ms);
		guard_probe_result(gs, false, now_ms);
	}
	return gs->tripped;
}

bool guard_poll(struct guard_state *gs, double now_ms)
{
	const struct sc_guard *g = gs->g;

	if (gs->tripped || !gs->armed)
		return gs->tripped;
	if (g->kind == SC_GUARD_TCP_PROBE)
		return guard_probe_poll(gs, now_ms);
	/* A workload that stops reporting is as far below the floor as one that reports 0. */
	if (now_ms - gs->last_sample_ms >= (double)g->for_ms)
		return guard_trip(gs, now_ms, "no %s throughput sample for %.1f s (since %.1f s)",
				  g->has_flow ? "bystander flow" : "workload",
				  (now_ms - gs->last_sample_ms) / 1000.0,
				  gs->last_sample_ms / 1000.0);
	return false;
}

void guard_close(struct guard_state *gs)
{
	if (gs->fd >= 0)
		close(gs->fd);
	gs->fd = -1;
}
