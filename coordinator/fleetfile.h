/* SPDX-License-Identifier: MIT */
/*
 * The fleet file (--fleet FILE, docs/FLEET.md): the nodes a coordinator may drive, kept apart
 * from drills. Each node has its agent's address, labels (rack, switch, anything) and the
 * netdevs of its rails. Read as strictly as a drill: every error is FILE:LINE:COL: key: what is
 * wrong, and a file with one is refused whole.
 *
 *   nodes:
 *     - name: gpu001
 *       agent: gpu001.mgmt:7707
 *       labels: {rack: r12, switch: leaf3}
 *       rails: [ens1f0np0, ens1f1np1]
 */
#ifndef RC_FLEETFILE_H
#define RC_FLEETFILE_H

#include <jansson.h>

#include "common/yamldoc.h"

#define FF_MAX_NODES 10000
#define FF_MAX_LABELS 32
#define FF_LABEL_LEN 64 /* key or value, with the NUL */
#define FF_MAX_RAILS 16
#define FF_NETDEV_LEN 16 /* IFNAMSIZ */
#define FF_NAME_LEN 64
#define FF_AGENT_LEN 256

struct ff_node {
	char name[FF_NAME_LEN];
	char agent[FF_AGENT_LEN]; /* host:port */
	json_t *labels;		  /* {"rack": "r12", ...}: strings; never NULL once loaded */
	char rails[FF_MAX_RAILS][FF_NETDEV_LEN];
	unsigned int nr_rails;
};

struct fleetfile {
	struct ff_node *nodes;
	unsigned int nr_nodes;
};

/*
 * Reads path into ff. 0, or -EINVAL with the first error in err (every error in diags too
 * when it is not NULL), or -ENOMEM/-errno; ff is then empty. Release with ff_free().
 */
int ff_load(const char *path, struct fleetfile *ff, struct yd_diags *diags, char *err,
	    size_t errlen);
/* The same from text (file names it in messages), for tests. */
int ff_load_text(const char *file, const char *text, size_t len, struct fleetfile *ff,
		 struct yd_diags *diags, char *err, size_t errlen);
void ff_free(struct fleetfile *ff);
/*
 * labels: a mapping of words to words (a number or true is taken as its text) into labels; 0,
 * or -EINVAL with every error in d's diagnostics. Shared with a drill's select: (its matches).
 */
int ff_parse_labels(struct yd_doc *d, yaml_node_t *m, const char *path, json_t *labels);
/* "rack=r12,switch=leaf3" ("" for none), cut at a whole label when buf is too small. */
void ff_labels_text(const json_t *labels, char *buf, size_t len);

#endif
