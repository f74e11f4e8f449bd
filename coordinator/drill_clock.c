// SPDX-License-Identifier: MIT
/* The drill's second clock alignment, at its end: how far each node's clock drifted meanwhile. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/units.h"
#include "coordinator/drill_priv.h"

/*
 * Drift the two alignments' uncertainties do not explain, beyond which a node's times are not
 * evidence: an event of that node is placed on the coordinator's clock by the first offset, so it
 * lands up to the drift away from when it happened. NTP slews a clock by 500 ppm at most (30 ms
 * over a 60 s drill); the lab's guests, with a sound clocksource, stay within a few ppm.
 */
#define DRILL_DRIFT_SLACK_NS (20.0 * 1e6)

double drill_clock_slack_ms(const struct drill *d)
{
	double worst = 0;
	unsigned int k;

	for (k = 0; k < d->fl.nr_agents; k++)
		if (d->fl.agents[k].clock_known)
			worst = fmax(worst, d->fl.agents[k].clock.uncertainty_ns / 1e6);
	return 2 * worst;
}

void drill_check_clocks(struct drill *d)
{
	struct fleet *fl = &d->fl;
	struct clk_estimate *est;
	char err[256] = "";
	double elapsed;
	unsigned int i;

	if (!fl->aligned_ns || !fl->nr_agents)
		return;
	est = calloc(fl->nr_agents, sizeof(*est));
	if (!est)
		return;
	/* a node that does not answer now was named when its connection dropped */
	fleet_sample_clocks(fl, DRILL_CLOCK_SAMPLES, est, err, sizeof(err));
	elapsed = (double)(rc_now_ns() - fl->aligned_ns);
	for (i = 0; i < fl->nr_agents; i++) {
		struct fl_agent *a = &fl->agents[i];

		if (!a->clock_known || !est[i].samples)
			continue;
		clk_drift(&a->clock, &est[i], elapsed, &a->drift);
		a->drift_known = true;
		if (fabs(a->drift.drift_ns) <= a->drift.bound_ns + DRILL_DRIFT_SLACK_NS)
			continue;
		drill_reason(d, true,
			     "clock drift: %s's clock moved %+.1f ms against this host's over the "
			     "drill's %.1f s (%+.0f ppm; the two alignments explain +/- %.1f ms): "
			     "the times measured from its events are off by up to that much; check "
			     "its time source (lab/README.md, Clocks)",
			     a->name, a->drift.drift_ns / 1e6, elapsed / 1e9, a->drift.ppm,
			     a->drift.bound_ns / 1e6);
	}
	free(est);
}
