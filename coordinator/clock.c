// SPDX-License-Identifier: MIT
/* Picks the tightest `time` exchange and turns it into an offset with an error bound; drift. */
#include <errno.h>
#include <stddef.h>

#include "coordinator/clock.h"

int clk_estimate(const struct clk_sample *s, unsigned int n, struct clk_estimate *e)
{
	const struct clk_sample *best = NULL;
	unsigned int i, usable = 0;

	for (i = 0; i < n; i++) {
		if (s[i].t_recv_ns < s[i].t_send_ns)
			continue;
		usable++;
		if (!best || s[i].t_recv_ns - s[i].t_send_ns < best->t_recv_ns - best->t_send_ns)
			best = &s[i];
	}
	if (!best)
		return -EINVAL;
	e->rtt_ns = (double)(best->t_recv_ns - best->t_send_ns);
	e->uncertainty_ns = e->rtt_ns / 2;
	e->offset_ns =
	    (double)best->t_agent_ns - ((double)best->t_send_ns + (double)best->t_recv_ns) / 2.0;
	e->samples = usable;
	return 0;
}

void clk_drift(const struct clk_estimate *before, const struct clk_estimate *after,
	       double elapsed_ns, struct clk_drift *out)
{
	out->drift_ns = after->offset_ns - before->offset_ns;
	out->bound_ns = before->uncertainty_ns + after->uncertainty_ns;
	out->ppm = elapsed_ns > 0 ? out->drift_ns / elapsed_ns * 1e6 : 0;
}
