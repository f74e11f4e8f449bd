/* SPDX-License-Identifier: MIT */
/*
 * The agent's policy file (agents/README.md, "Policy file"): YAML read with
 * libyaml, every key checked where it is read, errors as
 * "FILE:LINE: key.path: what is wrong and what is allowed". The result is a
 * struct agent_policy holding only the file's rules; agent_config_apply()
 * merges it under the command line's.
 */
#ifndef AGENT_CONFIG_H
#define AGENT_CONFIG_H

#include <stddef.h>

#include "agents/agent_policy.h"

#define AGENT_CONFIG_DEFAULT "/etc/rdmachaos/agent.yaml"
#define AGENT_CONFIG_EXIT 78 /* EX_CONFIG: the file is missing, unreadable or wrong */

/* Parses text (len bytes, named `name` in messages) into p. 0 or -errno with a sentence in err. */
int agent_config_parse(const char *name, const char *text, size_t len, struct agent_policy *p,
		       char *err, size_t errlen);

/* Reads and parses the file at path (at most 64 KiB). */
int agent_config_load(const char *path, struct agent_policy *p, char *err, size_t errlen);

/*
 * Merges the file's rules into p, which holds the command line's: --allow-if
 * replaces the file's netdevs and devices, --control-if its control_if;
 * everything else comes from the file. -EINVAL when the result would allow
 * the control interface to be faulted.
 */
int agent_config_apply(struct agent_policy *p, const struct agent_policy *file, char *err,
		       size_t errlen);

#endif
