/* SPDX-License-Identifier: MIT */
/*
 * Limits on a YAML text's shape, checked with libyaml's event parser before
 * the document is loaded: nesting depth, anchors and aliases, and the size
 * the document would have with every alias expanded. libyaml keeps aliases as
 * references (a "billion laughs" costs it nothing) and even builds cycles for
 * an alias inside its own anchor, but its scanner slows down with the square
 * of the nesting depth, and any code that walks the tree would expand or loop.
 */
#ifndef RC_YAML_GUARD_H
#define RC_YAML_GUARD_H

#include <stddef.h>

#define YG_MAX_DEPTH 64 /* a scenario nests 5 levels, the agent's policy file 2 */
#define YG_MAX_ANCHORS 1000
#define YG_MAX_ALIASES 10000
#define YG_MAX_NODES 1000000 /* with aliases expanded; a 1 MiB file holds fewer literally */

/*
 * 0 when text is within the limits, or is not YAML at all (loading it reports
 * that with its own message); -EINVAL with "NAME:LINE: ..." in err when it
 * breaks one; -ENOMEM. noun and depth say what the text should be, e.g. "a
 * scenario" that nests 5 levels: "...; a scenario needs at most 5".
 */
int yaml_guard(const char *name, const char *text, size_t len, const char *noun, unsigned int depth,
	       char *err, size_t errlen);

#endif
