// SPDX-License-Identifier: MIT
/* Reading, loading and checking small YAML files, with "FILE:LINE:COL: key.path: ..." errors. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/units.h"
#include "common/yaml_guard.h"
#include "common/yamldoc.h"

#define YD_LINE_LEN 2048 /* one message; a longer one is cut */

/* ---- diagnostics ------------------------------------------------------- */

void yd_diags_add(struct yd_diags *l, enum yd_severity sev, unsigned int line, unsigned int col,
		  const char *key, const char *text, size_t msg_off)
{
	unsigned int max = l->max ? l->max : YD_DIAGS_MAX;
	struct yd_diag *e;

	if (sev == YD_WARNING)
		l->nr_warnings++;
	else
		l->nr_errors++;
	if (l->nr >= max)
		return;
	if (l->nr == l->alloc) {
		unsigned int alloc = l->alloc ? 2 * l->alloc : 16;
		struct yd_diag *v = realloc(l->v, alloc * sizeof(*v));

		if (!v)
			return;
		l->v = v;
		l->alloc = alloc;
	}
	e = &l->v[l->nr];
	e->text = strdup(text);
	if (!e->text)
		return;
	e->severity = sev;
	e->line = line;
	e->col = col;
	snprintf(e->key, sizeof(e->key), "%s", key);
	e->msg = e->text + (msg_off <= strlen(text) ? msg_off : strlen(text));
	l->nr++;
}

unsigned int yd_diags_dropped(const struct yd_diags *l)
{
	return l->nr_errors + l->nr_warnings - l->nr;
}

static int yd_diag_cmp(const void *a, const void *b)
{
	const struct yd_diag *x = a, *y = b;

	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	if (x->col != y->col)
		return x->col < y->col ? -1 : 1;
	return 0;
}

void yd_diags_sort(struct yd_diags *l)
{
	unsigned int i, j;

	/* Insertion sort: stable, and the lists are short. */
	for (i = 1; i < l->nr; i++) {
		struct yd_diag e = l->v[i];

		for (j = i; j > 0 && yd_diag_cmp(&l->v[j - 1], &e) > 0; j--)
			l->v[j] = l->v[j - 1];
		l->v[j] = e;
	}
}

void yd_diags_free(struct yd_diags *l)
{
	unsigned int i;

	for (i = 0; i < l->nr; i++)
		free(l->v[i].text);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

/*
 * The core of every message: "FILE:LINE:COL: [warning: ]PATH: ..." counted,
 * kept in d->diags, and for the document's first error written to d->err.
 */
static void yd_vemit(struct yd_doc *d, enum yd_severity sev, unsigned int line, unsigned int col,
		     const char *path, const char *fmt, va_list ap)
    __attribute__((format(printf, 6, 0)));

static void yd_vemit(struct yd_doc *d, enum yd_severity sev, unsigned int line, unsigned int col,
		     const char *path, const char *fmt, va_list ap)
{
	char text[YD_LINE_LEN];
	int off;

	off = snprintf(text, sizeof(text), "%s:%u:%u: %s%s%s", d->file, line, col,
		       sev == YD_WARNING ? "warning: " : "", path, *path ? ": " : "");
	if (off < 0 || (size_t)off >= sizeof(text))
		off = (int)strlen(text);
	vsnprintf(text + off, sizeof(text) - (size_t)off, fmt, ap);
	if (sev == YD_ERROR && !d->nr_errors++ && d->errlen)
		snprintf(d->err, d->errlen, "%s", text);
	if (d->diags)
		yd_diags_add(d->diags, sev, line, col, path, text, (size_t)off);
}

static void yd_emit(struct yd_doc *d, enum yd_severity sev, unsigned int line, unsigned int col,
		    const char *path, const char *fmt, ...) __attribute__((format(printf, 6, 7)));

static void yd_emit(struct yd_doc *d, enum yd_severity sev, unsigned int line, unsigned int col,
		    const char *path, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	yd_vemit(d, sev, line, col, path, fmt, ap);
	va_end(ap);
}

/*
 * A message someone else wrote into d->err ("FILE:LINE: ...", the shape
 * guard's): counted and kept as it is, its line read back for sorting.
 */
static void yd_keep_err(struct yd_doc *d)
{
	size_t flen = strlen(d->file);
	unsigned long line = 0;

	d->nr_errors++;
	if (!d->diags || !d->errlen)
		return;
	if (!strncmp(d->err, d->file, flen) && d->err[flen] == ':')
		line = strtoul(d->err + flen + 1, NULL, 10);
	yd_diags_add(d->diags, YD_ERROR, (unsigned int)line, 0, "", d->err, 0);
}

/* ---- files and documents ----------------------------------------------- */

int yd_read_file(const struct yd_kind *kind, const char *path, char **buf, size_t *len, char *err,
		 size_t errlen)
{
	size_t n;
	FILE *f;
	int ret = 0;

	*buf = NULL;
	*len = 0;
	f = fopen(path, "rb");
	if (!f) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s: %s", path, kind->open_err, strerror(-ret));
		return ret;
	}
	/* One byte more than allowed, to tell a file of exactly max_size from a bigger one. */
	*buf = malloc(kind->max_size + 1);
	if (!*buf) {
		ret = -ENOMEM;
		snprintf(err, errlen, "%s: out of memory", path);
		goto out;
	}
	while ((n = fread(*buf + *len, 1, kind->max_size + 1 - *len, f)) > 0)
		*len += n;
	if (ferror(f)) {
		ret = -EIO;
		snprintf(err, errlen, "%s: %s", path, kind->read_err);
	} else if (*len > kind->max_size) {
		ret = -EFBIG;
		snprintf(err, errlen, "%s: %s", path, kind->too_big);
	} else {
		(*buf)[*len] = '\0';
	}
out:
	if (ret) {
		free(*buf);
		*buf = NULL;
		*len = 0;
	}
	fclose(f);
	return ret;
}

/* The 1-based line and column of byte off (columns count characters, as libyaml's do). */
static void yd_offset_place(const char *text, size_t len, size_t off, unsigned int *line,
			    unsigned int *col)
{
	size_t i;

	*line = 1;
	*col = 1;
	for (i = 0; i < off && i < len; i++) {
		if (text[i] == '\n') {
			(*line)++;
			*col = 1;
		} else if (((unsigned char)text[i] & 0xc0) != 0x80) {
			(*col)++;
		}
	}
}

/* libyaml's complaint as "FILE:LINE:COL: YAML syntax error: ...", with a hint for tabs. */
static int yd_syntax_error(struct yd_doc *d, const char *text, size_t len, const yaml_parser_t *p)
{
	const char *problem = p->problem ? p->problem : "unknown problem";
	unsigned int line = (unsigned int)p->problem_mark.line + 1;
	unsigned int col = (unsigned int)p->problem_mark.column + 1;

	switch (p->error) {
	case YAML_MEMORY_ERROR:
		snprintf(d->err, d->errlen, "%s: out of memory while reading YAML", d->file);
		return -ENOMEM;
	case YAML_READER_ERROR: /* bad encoding: libyaml knows the byte, not the line */
		yd_offset_place(text, len, p->problem_offset, &line, &col);
		yd_emit(d, YD_ERROR, line, col, "", "YAML syntax error: %s (byte %zu)", problem,
			p->problem_offset);
		return -EINVAL;
	default:
		/* libyaml often blames a tab without saying so; when it says so, its context helps
		 * more. */
		if (p->problem_mark.index < len && text[p->problem_mark.index] == '\t' &&
		    p->problem && !strstr(p->problem, "tab"))
			yd_emit(d, YD_ERROR, line, col, "",
				"YAML syntax error: %s (YAML indents with spaces, not tabs)",
				problem);
		else if (p->context)
			yd_emit(d, YD_ERROR, line, col, "",
				"YAML syntax error: %s (%s on line %zu)", problem, p->context,
				p->context_mark.line + 1);
		else
			yd_emit(d, YD_ERROR, line, col, "", "YAML syntax error: %s", problem);
		return -EINVAL;
	}
}

int yd_load(struct yd_doc *d, const struct yd_kind *kind, const char *file, const char *text,
	    size_t len, char *err, size_t errlen)
{
	return yd_load_diags(d, kind, file, text, len, err, errlen, NULL);
}

int yd_load_diags(struct yd_doc *d, const struct yd_kind *kind, const char *file, const char *text,
		  size_t len, char *err, size_t errlen, struct yd_diags *diags)
{
	yaml_parser_t parser;
	yaml_document_t extra;
	int ret;

	memset(d, 0, sizeof(*d));
	d->kind = kind;
	d->file = file;
	d->err = err;
	d->errlen = errlen;
	d->diags = diags;
	/* Nesting and aliases are bounded before libyaml builds the document. */
	ret = yaml_guard(file, text, len, kind->noun, kind->depth, err, errlen);
	if (ret) {
		if (ret == -ENOMEM)
			snprintf(err, errlen, "%s: out of memory", file);
		else
			yd_keep_err(d);
		return ret;
	}
	if (!yaml_parser_initialize(&parser)) {
		snprintf(err, errlen, "%s: out of memory", file);
		return -ENOMEM;
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_parser_load(&parser, &d->doc)) {
		ret = yd_syntax_error(d, text, len, &parser);
		goto out_parser;
	}
	d->loaded = true;
	d->root = yaml_document_get_root_node(&d->doc);
	if (!d->root)
		goto out_parser; /* no document at all, so no second one either */
	/* A second document would be ignored silently: refuse it. */
	if (!yaml_parser_load(&parser, &extra)) {
		ret = yd_syntax_error(d, text, len, &parser);
		goto out_doc;
	}
	if (yaml_document_get_root_node(&extra)) {
		yd_emit(d, YD_ERROR, (unsigned int)extra.start_mark.line + 1,
			(unsigned int)extra.start_mark.column + 1, "",
			"%s holds one YAML document; remove the second one (after ---)",
			kind->one_doc);
		ret = -EINVAL;
	}
	yaml_document_delete(&extra);
out_doc:
	if (ret)
		yd_free(d);
out_parser:
	yaml_parser_delete(&parser);
	return ret;
}

void yd_free(struct yd_doc *d)
{
	if (d->loaded)
		yaml_document_delete(&d->doc);
	d->loaded = false;
	d->root = NULL;
}

/* ---- messages ---------------------------------------------------------- */

unsigned int yd_line(const yaml_node_t *n)
{
	return n ? (unsigned int)n->start_mark.line + 1 : 1;
}

unsigned int yd_col(const yaml_node_t *n)
{
	return n ? (unsigned int)n->start_mark.column + 1 : 1;
}

int yd_fail(struct yd_doc *d, const yaml_node_t *n, const char *path, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	yd_vemit(d, YD_ERROR, yd_line(n), yd_col(n), path, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

void yd_warn(struct yd_doc *d, const yaml_node_t *n, const char *path, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	yd_vemit(d, YD_WARNING, yd_line(n), yd_col(n), path, fmt, ap);
	va_end(ap);
}

const char *yd_list(const char *const *names, char *buf, size_t len)
{
	size_t off = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; names[i] && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? ", " : "", names[i]);
	return buf;
}

/* Key paths are short; one that does not fit ends in "..." rather than silently. */
static void yd_path_fit(char *buf, int n)
{
	if (n < 0 || n >= YD_PATH_LEN)
		memcpy(buf + YD_PATH_LEN - 4, "...", 4);
}

void yd_join(char *buf, const char *parent, const char *key)
{
	yd_path_fit(buf, snprintf(buf, YD_PATH_LEN, "%s%s%s", parent, *parent ? "." : "", key));
}

void yd_join_idx(char *buf, const char *parent, size_t i)
{
	yd_path_fit(buf, snprintf(buf, YD_PATH_LEN, "%s[%zu]", parent, i));
}

/* ---- nodes ------------------------------------------------------------- */

yaml_node_t *yd_node(struct yd_doc *d, int idx)
{
	return yaml_document_get_node(&d->doc, idx);
}

const char *yd_scalar(const yaml_node_t *n)
{
	return (const char *)n->data.scalar.value;
}

bool yd_is_null(const yaml_node_t *n)
{
	const char *s;

	if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return false;
	s = yd_scalar(n);
	return !*s || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") ||
	       !strcmp(s, "NULL");
}

size_t yd_seq_len(const yaml_node_t *seq)
{
	return (size_t)(seq->data.sequence.items.top - seq->data.sequence.items.start);
}

yaml_node_t *yd_seq_item(struct yd_doc *d, const yaml_node_t *seq, size_t i)
{
	return yd_node(d, seq->data.sequence.items.start[i]);
}

yaml_node_t *yd_map_get(struct yd_doc *d, const yaml_node_t *map, const char *key)
{
	yaml_node_pair_t *p;

	if (!map || map->type != YAML_MAPPING_NODE)
		return NULL;
	for (p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yd_node(d, p->key);

		if (k->type == YAML_SCALAR_NODE && !strcmp(yd_scalar(k), key))
			return yd_node(d, p->value);
	}
	return NULL;
}

/* A collection of type `type`; `what` names it and shows how to write one. */
static int yd_want(struct yd_doc *d, const yaml_node_t *n, const char *path, yaml_node_type_t type,
		   const char *what)
{
	if (n->type == type)
		return 0;
	if (yd_is_null(n))
		return yd_fail(d, n, path, "has no value; it takes a %s", what);
	return yd_fail(d, n, path, "must be a %s", what);
}

int yd_want_map(struct yd_doc *d, const yaml_node_t *n, const char *path)
{
	return yd_want(d, n, path, YAML_MAPPING_NODE, "mapping (key: value lines or {...})");
}

int yd_want_seq(struct yd_doc *d, const yaml_node_t *n, const char *path)
{
	return yd_want(d, n, path, YAML_SEQUENCE_NODE, "list ([a, b] or \"- \" lines)");
}

/* A scalar with a value; what it holds is the caller's to check. */
static int yd_want_value(struct yd_doc *d, const yaml_node_t *n, const char *path)
{
	if (n->type != YAML_SCALAR_NODE)
		return yd_fail(d, n, path, "must be a single value, not a %s",
			       n->type == YAML_MAPPING_NODE ? "mapping" : "list");
	if (yd_is_null(n))
		return yd_fail(d, n, path, "has no value; give one or leave the key out");
	return 0;
}

/* A "\0" escape would cut the C string short: "1\0x" must not read as 1. */
static int yd_want_no_nul(struct yd_doc *d, const yaml_node_t *n, const char *path)
{
	if (strlen(yd_scalar(n)) != n->data.scalar.length)
		return yd_fail(d, n, path, "holds a NUL character");
	return 0;
}

int yd_want_scalar(struct yd_doc *d, const yaml_node_t *n, const char *path)
{
	int ret = yd_want_value(d, n, path);

	return ret ? ret : yd_want_no_nul(d, n, path);
}

int yd_check_keys(struct yd_doc *d, const yaml_node_t *map, const char *path,
		  const char *const *allowed)
{
	char kpath[YD_PATH_LEN], list[256];
	yaml_node_pair_t *p, *q;
	unsigned int i;
	int ret = 0;

	for (p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yd_node(d, p->key);
		bool known = false;

		if (k->type != YAML_SCALAR_NODE) {
			ret = yd_fail(d, k, path, "keys must be plain words, not a %s",
				      k->type == YAML_MAPPING_NODE ? "mapping" : "list");
			continue;
		}
		yd_join(kpath, path, yd_scalar(k));
		for (i = 0; allowed[i]; i++)
			known |= !strcmp(allowed[i], yd_scalar(k));
		if (!known && !allowed[0]) {
			ret = yd_fail(d, k, kpath, "unknown key; nothing is allowed here");
			continue;
		}
		if (!known) {
			ret = yd_fail(d, k, kpath, "unknown key; allowed here: %s",
				      yd_list(allowed, list, sizeof(list)));
			continue;
		}
		for (q = map->data.mapping.pairs.start; q < p; q++) {
			yaml_node_t *k2 = yd_node(d, q->key);

			if (k2->type == YAML_SCALAR_NODE && !strcmp(yd_scalar(k2), yd_scalar(k))) {
				ret = yd_fail(d, k, kpath, "given twice (first on line %u)",
					      yd_line(k2));
				break;
			}
		}
	}
	return ret;
}

/* ---- typed values ------------------------------------------------------ */

int yd_get_text(struct yd_doc *d, const yaml_node_t *n, const char *path, char *buf, size_t len)
{
	int ret = yd_want_value(d, n, path);

	if (ret)
		return ret;
	if (n->data.scalar.length >= len)
		return yd_fail(d, n, path, "is %zu characters long; at most %zu are allowed",
			       n->data.scalar.length, len - 1);
	if ((ret = yd_want_no_nul(d, n, path)))
		return ret;
	memcpy(buf, yd_scalar(n), n->data.scalar.length + 1);
	return 0;
}

int yd_get_name(struct yd_doc *d, const yaml_node_t *n, const char *path, char *buf, size_t len,
		const char *used_for)
{
	const char *s;
	int ret = yd_get_text(d, n, path, buf, len);

	if (ret)
		return ret;
	if (!buf[0])
		return yd_fail(d, n, path,
			       "is empty; give a name of letters, digits, '.', '_' and '-' (%s)",
			       used_for);
	for (s = buf; *s; s++) {
		if ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		    (*s >= '0' && *s <= '9') || *s == '.' || *s == '_' || *s == '-')
			continue;
		return yd_fail(d, n, path,
			       "\"%s\" may hold only letters, digits, '.', '_' and '-' (%s)", buf,
			       used_for);
	}
	return 0;
}

int yd_check_agent_addr(struct yd_doc *d, const yaml_node_t *n, const char *path, const char *agent)
{
	const char *colon = strrchr(agent, ':');
	char *end;
	unsigned long port;

	if (!colon || colon == agent)
		return yd_fail(d, n, path, "\"%s\" is not host:port, e.g. gpu01:7707", agent);
	if (agent[0] == '[' && colon[-1] != ']')
		return yd_fail(d, n, path,
			       "\"%s\": an IPv6 address goes in brackets before the port, e.g. "
			       "[fd00::1]:7707",
			       agent);
	errno = 0;
	port = strtoul(colon + 1, &end, 10);
	if (colon[1] < '0' || colon[1] > '9' || *end || errno || port < 1 || port > 65535)
		return yd_fail(d, n, path, "\"%s\" has no valid port; use host:1..65535", agent);
	return 0;
}

/* Digits only: no sign, no spaces, no units. */
static bool yd_parse_whole(const char *s, uint64_t *v)
{
	char *end;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return !*end && !errno;
}

int yd_get_uint(struct yd_doc *d, const yaml_node_t *n, const char *path, uint64_t min,
		uint64_t max, uint64_t *v)
{
	int ret = yd_want_scalar(d, n, path);

	if (ret)
		return ret;
	if (!yd_parse_whole(yd_scalar(n), v))
		return yd_fail(d, n, path,
			       "\"%s\" is not a whole number; use %" PRIu64 "..%" PRIu64,
			       yd_scalar(n), min, max);
	if (*v < min || *v > max)
		return yd_fail(d, n, path, "%s is out of range; use %" PRIu64 "..%" PRIu64,
			       yd_scalar(n), min, max);
	return 0;
}

int yd_get_duration(struct yd_doc *d, const yaml_node_t *n, const char *path, uint64_t *ms)
{
	int ret = yd_want_scalar(d, n, path);

	if (ret)
		return ret;
	if (rc_parse_duration_ms(yd_scalar(n), ms))
		return yd_fail(d, n, path,
			       "\"%s\" is not a duration; write a number and a unit with no space, "
			       "e.g. %s (a plain number is seconds)",
			       yd_scalar(n), d->kind->dur_eg);
	return 0;
}
