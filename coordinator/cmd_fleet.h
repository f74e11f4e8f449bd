/* SPDX-License-Identifier: MIT */
/* `rdmachaos fleet status`: every agent of a fleet file, asked how it is (docs/FLEET.md). */
#ifndef RC_CMD_FLEET_H
#define RC_CMD_FLEET_H

/* argv[0] is "fleet". Exit code: 0 every agent answered, 1 not, 64 usage, 65 bad fleet file. */
int cmd_fleet(int argc, char **argv);
/* `fleet bench` (coordinator/cmd_fleet_bench.c): argv[0] is "bench". */
int cmd_fleet_bench(int argc, char **argv);

#endif
