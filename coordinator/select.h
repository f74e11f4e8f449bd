/* SPDX-License-Identifier: MIT */
/*
 * Binding a drill's select: to a fleet (docs/FLEET.md, "Picking nodes by label"): each name
 * gets the nodes it picks, drawn from the run's seed among those whose labels match, in the
 * order the names are declared and never a node twice; then every place the drill names a
 * picked name names the node instead, a fault on a name that picked several becomes one fault
 * per node ("NAME@NODE"), and the blast radius counts against the fleet's size.
 */
#ifndef RC_SELECT_H
#define RC_SELECT_H

#include <stdint.h>
#include <stdio.h>

#include "coordinator/fleetfile.h"
#include "coordinator/scenario.h"

/*
 * Binds sc's select: to ff (read from fleet_file, a name for messages). For a lab drill the
 * picked nodes must be the lab's; for another they join sc's nodes with their fleet addresses.
 * 0, or -EINVAL/-ENOMEM with "FILE:LINE: select.NAME: what is wrong" in err; sc is then only
 * fit for scenario_free(). A drill without select: is left as it is.
 */
int sel_bind(struct scenario *sc, const struct fleetfile *ff, const char *fleet_file, uint64_t seed,
	     char *err, size_t errlen);

/*
 * sel_bind() from fleet_path, or for a lab drill without one from the lab that is up (its
 * run/fleet.yaml), else from the fleet the lab will have (labenv_fleet()). -ENOENT: a drill
 * on real nodes with select: and no fleet file; -EINVAL a bad fleet file or a pick that cannot
 * be made (err says which), -ENOMEM.
 */
int sel_bind_from(struct scenario *sc, const char *fleet_path, uint64_t seed, char *err,
		  size_t errlen);

/* One line per name: "victim = node-b (rack=r1; 1 of 2 that match)". */
void sel_print(FILE *f, const struct scenario *sc, const char *indent);

#endif
