/* SPDX-License-Identifier: MIT */
/*
 * Small YAML files read strictly: the scenario files (coordinator/scenario.c)
 * and the agent's policy file (agents/agent_config.c). A file is read with a
 * size cap, bounded in shape (common/yaml_guard.h), loaded as one libyaml
 * document (a second one is refused), and checked node by node with the
 * helpers below. Every error is one sentence,
 *
 *   FILE:LINE:COL: key.path: what is wrong and what is allowed
 *
 * with the 1-based line and column of the offending key or value (libyaml's
 * mark). The first error of a document goes into the caller's buffer; with a
 * struct yd_diags, every error (and warning) is also kept, so that a caller
 * can check past the first one and report them all. The helpers return 0 or
 * -EINVAL, so checks chain: `if ((ret = yd_want_map(...)) || ...)`.
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

/* ---- diagnostics ------------------------------------------------------- */

enum yd_severity { YD_ERROR, YD_WARNING };

/* One error or warning, as found. */
struct yd_diag {
	enum yd_severity severity;
	unsigned int line,
	    col;	       /* 1-based; 0: not known (a file not read; col of a guard message) */
	char key[YD_PATH_LEN]; /* the key path, "" for the file as a whole */
	const char *msg;       /* what is wrong and what is allowed: the tail of text */
	char *text;	       /* the whole line, "FILE:LINE:COL: [warning: ]KEY: msg" */
};

#define YD_DIAGS_MAX 100 /* entries a list keeps unless told otherwise */

/*
 * Every error and warning of one or more documents, in the order found. A
 * zeroed one is empty and ready; it keeps at most `max` entries (0:
 * YD_DIAGS_MAX) and only counts the rest. Release with yd_diags_free().
 */
struct yd_diags {
	struct yd_diag *v;
	unsigned int nr, alloc;
	unsigned int max;
	unsigned int nr_errors, nr_warnings; /* found, kept or not */
};

/*
 * Adds one entry: text is the whole line, its message starts at text +
 * msg_off. Past the cap, or when memory runs out, it is only counted.
 */
void yd_diags_add(struct yd_diags *l, enum yd_severity sev, unsigned int line, unsigned int col,
		  const char *key, const char *text, size_t msg_off);

/* Entries found but not kept (over the cap). */
unsigned int yd_diags_dropped(const struct yd_diags *l);

/* Sorts the entries by line, then column; equal places keep the order found. */
void yd_diags_sort(struct yd_diags *l);

void yd_diags_free(struct yd_diags *l);

/* ---- documents --------------------------------------------------------- */

/* A loaded document, and where the helpers write their messages. */
struct yd_doc {
	const struct yd_kind *kind;
	const char *file; /* the name in messages */
	char *err;	  /* the first error */
	size_t errlen;
	struct yd_diags *diags; /* NULL, or where every error and warning goes too */
	unsigned int nr_errors; /* refusals so far */
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

/* The same, keeping every message in diags as well (NULL: like yd_load()). */
int yd_load_diags(struct yd_doc *d, const struct yd_kind *kind, const char *file, const char *text,
		  size_t len, char *err, size_t errlen, struct yd_diags *diags);

/* Releases what yd_load() built; harmless on a zeroed or failed d. */
void yd_free(struct yd_doc *d);

/* ---- messages ---------------------------------------------------------- */

/* The node's 1-based line and column; 1 for NULL (the file as a whole). */
unsigned int yd_line(const yaml_node_t *n);
unsigned int yd_col(const yaml_node_t *n);

/*
 * A refusal: "FILE:LINE:COL: PATH: message" ("FILE:LINE:COL: message" for
 * path ""), at node n. Counted in d->nr_errors, kept in d->diags, and written
 * to the caller's buffer when it is the document's first. Always -EINVAL.
 */
int yd_fail(struct yd_doc *d, const yaml_node_t *n, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* A warning, "FILE:LINE:COL: warning: PATH: message": kept in d->diags only. */
void yd_warn(struct yd_doc *d, const yaml_node_t *n, const char *path, const char *fmt, ...)
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

/*
 * The value of `key` in map; NULL when absent, or when map is NULL or not a
 * mapping. A key given twice: the first (yd_check_keys refuses the second).
 */
yaml_node_t *yd_map_get(struct yd_doc *d, const yaml_node_t *map, const char *key);

int yd_want_map(struct yd_doc *d, const yaml_node_t *n, const char *path);
int yd_want_seq(struct yd_doc *d, const yaml_node_t *n, const char *path);

/* A scalar with a value and no NUL in it, so that yd_scalar() is all of it. */
int yd_want_scalar(struct yd_doc *d, const yaml_node_t *n, const char *path);

/*
 * Refuses keys that are not scalars, not in `allowed` (NULL-terminated) or
 * given twice, each of them: the place is the key's own, since the key is
 * what is wrong. The other keys can still be read (yd_map_get finds the
 * first of a repeated key).
 */
int yd_check_keys(struct yd_doc *d, const yaml_node_t *map, const char *path,
		  const char *const *allowed);

/* ---- typed values ------------------------------------------------------ */

/* A scalar copied to buf, len bytes with the NUL. */
int yd_get_text(struct yd_doc *d, const yaml_node_t *n, const char *path, char *buf, size_t len);

/* A name of letters, digits, '.', '_' and '-' into buf (names end up in folder names and
 * messages); used_for ends the refusal: "(it names the node)". */
int yd_get_name(struct yd_doc *d, const yaml_node_t *n, const char *path, char *buf, size_t len,
		const char *used_for);

/* An agent's address already read: host:port, an IPv6 host in brackets. */
int yd_check_agent_addr(struct yd_doc *d, const yaml_node_t *n, const char *path,
			const char *agent);

/* Digits only (no sign, spaces or units), min..max. */
int yd_get_uint(struct yd_doc *d, const yaml_node_t *n, const char *path, uint64_t min,
		uint64_t max, uint64_t *v);

/* A duration as rc_parse_duration_ms() reads it; 0 is one. */
int yd_get_duration(struct yd_doc *d, const yaml_node_t *n, const char *path, uint64_t *ms);

#endif
