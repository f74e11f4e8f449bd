/* SPDX-License-Identifier: MIT */
/*
 * Clock alignment, NTP style. Each sample is one `time` exchange: the
 * coordinator's clock when it sent the request and when the answer came back,
 * and the agent's clock in between. The sample with the smallest round trip
 * bounds the error best: offset = t_agent - (t_send + t_recv) / 2, with an
 * uncertainty of half that round trip.
 */
#ifndef RC_CLOCK_H
#define RC_CLOCK_H

#include <stdint.h>

struct clk_sample {
	uint64_t t_send_ns;  /* coordinator, CLOCK_MONOTONIC */
	uint64_t t_agent_ns; /* agent, its CLOCK_MONOTONIC */
	uint64_t t_recv_ns;  /* coordinator */
};

struct clk_estimate {
	double offset_ns;      /* agent - coordinator */
	double uncertainty_ns; /* half the best round trip */
	double rtt_ns;
	unsigned int samples; /* usable samples */
};

/* -EINVAL when no sample is usable (none, or every one has t_recv < t_send). */
int clk_estimate(const struct clk_sample *s, unsigned int n, struct clk_estimate *e);

/* Agent time to coordinator time. */
static inline double clk_to_local_ns(const struct clk_estimate *e, uint64_t agent_ns)
{
	return (double)agent_ns - e->offset_ns;
}

/*
 * How far an agent's clock moved against the coordinator's between two estimates: a drift beyond
 * what their uncertainties allow means the agent's clock runs at another rate, and every time
 * measured from its events is off by up to that much.
 */
struct clk_drift {
	double
	    drift_ns; /* after.offset - before.offset: positive when the agent's clock ran fast */
	double bound_ns; /* how much of that the two estimates' uncertainties explain */
	double ppm;	 /* drift_ns per elapsed_ns, in millionths */
};

void clk_drift(const struct clk_estimate *before, const struct clk_estimate *after,
	       double elapsed_ns, struct clk_drift *out);

#endif
