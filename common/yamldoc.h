/* SPDX-License-Identifier: MIT */
/*
 * Small YAML files read strictly: the scenario files (coordinator/scenario.c)
 * and the agent's policy file (agents/agent_config.c). A file is read with a
 * size cap, bounded in shape (common/yaml_guard.h), loaded as one libyaml
 * document (a second one is refused), and checked node by node with the
 * helpers below. Every error is one sentence in the caller's buffer,
 *
 *   FILE:LINE: key.path: what is wrong and what is allowed
 *
 * with the 1-based line of the offending key or value. The helpers return 0
 * or -EINVAL, so checks chain: `if ((ret = yd_want_map(...)) || ...)`.
 */
#ifndef RC_YAMLDOC_H
#define RC_YAMLDOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <yaml.h>

#define YD_PATH_LEN 160 /* key paths; a longer one ends in "..." */

/*
 * What differs between kinds of file: the size cap, and the words of the
 * messages that name the kind. Each string is part of a caller's sentence.
 */
struct yd_kind {
	size_t max_size;      /* bytes yd_read_file() accepts */
	const char *open_err; /* "cannot open": "FILE: cannot open: No such file ..." */
	const char *read_err; /* "read error": "FILE: read error" */
	const char *too_big;  /* "is larger than 1 MiB; ...": "FILE: is larger than ..." */
	const char *one_doc;  /* "a scenario file": "FILE:LINE: a scenario file holds one ..." */
	const char *noun;     /* "a scenario": the guard's "...; a scenario needs a few" */
	unsigned int depth;   /* how deep such a file nests, for the guard's message */
	const char *dur_eg;   /* "250ms, 10s, 2m": the examples in "is not a duration" */
};

/* A loaded document, and where the helpers write their message. */
struct yd_doc {
	const struct yd_kind *kind;
	const char *file; /* the name in messages */
	char *err;
	size_t errlen;
	yaml_document_t doc;
	yaml_node_t *root; /* NULL: the text holds no document at all (empty, comments) */
	bool loaded;
};

/*
 * Reads the file at path into *buf (malloc'd and NUL-terminated; *len bytes
 * without the NUL), refusing more than kind->max_size bytes. 0, or -errno
 * with "PATH: ..." in err and *buf NULL.
 */
int yd_read_file(const struct yd_kind *kind, const char *path, char **buf, size_t *len, char *err,
		 size_t errlen);

/*
 * Loads text (len bytes, `file` in messages) into d: within the guard's
 * limits, valid YAML, one document. 0 with d->root set (NULL when the text
 * holds no document: the caller says whether that is allowed), to be released
 * with yd_free(d); or -EINVAL/-ENOMEM with the message in err and nothing to
 * free. file and err must outlive d: the helpers below use them.
 */
int yd_load(struct yd_doc *d, const struct yd_kind *kind, const char *file, const char *text,
	    size_t len, char *err, size_t errlen);

/* Releases what yd_load() built; harmless on a zeroed or failed d. */
void yd_free(struct yd_doc *d);

/* ---- messages ---------------------------------------------------------- */

/* The node's 1-based line; 1 for NULL (the file as a whole). */
unsigned int yd_line(const yaml_node_t *n);

/* "FILE:LINE: PATH: message", "FILE:LINE: message" for path ""; always -EINVAL. */
int yd_fail(const struct yd_doc *d, const yaml_node_t *n, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* "a, b, c" from a NULL-terminated list, cut to fit len bytes; returns buf. */
const char *yd_list(const char *const *names, char *buf, size_t len);

/* "parent.key" ("key" when parent is "") into buf, YD_PATH_LEN bytes. */
void yd_join(char *buf, const char *parent, const char *key);

/* "parent[i]" into buf, YD_PATH_LEN bytes. */
void yd_join_idx(char *buf, const char *parent, size_t i);

/* ---- nodes ------------------------------------------------------------- */

yaml_node_t *yd_node(struct yd_doc *d, int idx);

/* A scalar node's text. */
const char *yd_scalar(const yaml_node_t *n);

/* A plain "", "~" or "null": a key written without a value. */
bool yd_is_null(const yaml_node_t *n);

/* A sequence node's length, and its i-th item (i < the length). */
size_t yd_seq_len(const yaml_node_t *seq);
yaml_node_t *yd_seq_item(struct yd_doc *d, const yaml_node_t *seq, size_t i);

/* The value of `key` in map; NULL when absent or map is NULL. Keys are unique after yd_check_keys.
 */
yaml_node_t *yd_map_get(struct yd_doc *d, const yaml_node_t *map, const char *key);

int yd_want_map(const struct yd_doc *d, const yaml_node_t *n, const char *path);
int yd_want_seq(const struct yd_doc *d, const yaml_node_t *n, const char *path);

/* A scalar with a value and no NUL in it, so that yd_scalar() is all of it. */
int yd_want_scalar(const struct yd_doc *d, const yaml_node_t *n, const char *path);

/*
 * Refuses keys that are not scalars, not in `allowed` (NULL-terminated) or
 * given twice. The line is the key's own: the key is what is wrong.
 */
int yd_check_keys(struct yd_doc *d, const yaml_node_t *map, const char *path,
		  const char *const *allowed);

/* ---- typed values ------------------------------------------------------ */

/* A scalar copied to buf, len bytes with the NUL. */
int yd_get_text(const struct yd_doc *d, const yaml_node_t *n, const char *path, char *buf,
		size_t len);

/* Digits only (no sign, spaces or units), min..max. */
int yd_get_uint(const struct yd_doc *d, const yaml_node_t *n, const char *path, uint64_t min,
		uint64_t max, uint64_t *v);

/* A duration as rc_parse_duration_ms() reads it; 0 is one. */
int yd_get_duration(const struct yd_doc *d, const yaml_node_t *n, const char *path, uint64_t *ms);

#endif
