/* SPDX-License-Identifier: MIT */
/*
 * The coordinator's view of the QEMU lab that lab/lab.sh manages: where its
 * state file is, whether a lab is up, and booting or stopping one for a drill.
 */
#ifndef RC_LABENV_H
#define RC_LABENV_H

#include <jansson.h>
#include <stdbool.h>

/*
 * The lab's state ($RDMACHAOS_LAB_DIR or <src>/build/lab, run/lab.json). -ENOENT: none up;
 * -ESRCH: a state file one of whose VMs is gone (a guest panicked): as good as down, and
 * `lab up` replaces it.
 */
int labenv_load(json_t **lab);
/* Runs `lab/lab.sh up --nodes N --rails R [--monitoring]`; its progress goes to stderr. */
int labenv_up(unsigned int nodes, unsigned int rails, bool monitoring);
int labenv_down(void);
/* The agent address ("127.0.0.1:17700") of a lab node, or NULL. */
const char *labenv_agent(const json_t *lab, const char *node);
/* The name of the lab node whose agent listens at addr ("127.0.0.1:17700"), or NULL. */
const char *labenv_node_at(const json_t *lab, const char *addr);
/* The lab's PKI directory (lab.json "pki": CA, node and coordinator certificates), or NULL. */
const char *labenv_pki(const json_t *lab);

/*
 * The fleet a lab of nodes nodes has (lab/lab.sh writes it to run/fleet.yaml when it is up):
 * node-a, node-b, ... two a rack (rack: r1, r1, r2, ...) and lab: "yes", for a drill that picks
 * by label before its lab boots. 0 or -ENOMEM; release with ff_free().
 */
struct fleetfile;
int labenv_fleet(unsigned int nodes, struct fleetfile *ff);

#endif
