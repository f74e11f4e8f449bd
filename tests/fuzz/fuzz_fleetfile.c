// SPDX-License-Identifier: MIT
/*
 * libFuzzer harness for the fleet file (--fleet FILE): each input is the bytes of a fleet file,
 * read from memory as ff_load() does after reading it. Besides what the sanitizers catch, it
 * checks the reader's contract: a refusal is -EINVAL/-ENOMEM with a message naming the file and
 * an empty fleet, the same first error with every error kept; an accepted fleet holds only what
 * the checks allow (unique names and agents, host:port, labels and rails of allowed words); and
 * a node's labels printed into a small cell are whole labels, never a cut one.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/yamldoc.h"
#include "coordinator/fleetfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FZ_NAME "fuzz-fleet.yaml"

static bool fz_word_char(char c, bool slash)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '.' || c == '_' || c == '-' || (slash && c == '/');
}

/* 1..max-1 characters of the allowed ones, NUL-terminated within max. */
static void fz_check_word(const char *s, size_t max, bool slash)
{
	size_t n = strnlen(s, max);

	if (!n || n == max)
		abort();
	for (; *s; s++)
		if (!fz_word_char(*s, slash))
			abort();
}

static void fz_check_agent(const char *a)
{
	const char *colon;
	char *end;
	unsigned long port;

	if (strnlen(a, FF_AGENT_LEN) == FF_AGENT_LEN || !(colon = strrchr(a, ':')) || colon == a)
		abort();
	port = strtoul(colon + 1, &end, 10);
	if (colon[1] < '0' || colon[1] > '9' || *end || port < 1 || port > 65535)
		abort();
}

/* The labels into len bytes: all of them, or the full text cut before a ',' (or nothing). */
static void fz_check_labels_text(const json_t *labels, size_t len)
{
	static char full[FF_MAX_LABELS * 2 * FF_LABEL_LEN + 1];
	char cell[512];
	size_t n;

	ff_labels_text(labels, full, sizeof(full));
	if (strlen(full) >= sizeof(full) - 1)
		abort(); /* the full buffer holds any node's labels */
	ff_labels_text(labels, cell, len);
	n = strlen(cell);
	if (n >= len || strncmp(cell, full, n) || (n && full[n] && full[n] != ','))
		abort();
	if (n && cell[n - 1] == ',')
		abort();
}

static void fz_check_fleet(const struct fleetfile *ff, size_t size)
{
	unsigned int i, j;

	if (!ff->nr_nodes || ff->nr_nodes > FF_MAX_NODES || !ff->nodes)
		abort();
	for (i = 0; i < ff->nr_nodes; i++) {
		const struct ff_node *nd = &ff->nodes[i];
		const char *k;
		json_t *v;

		fz_check_word(nd->name, FF_NAME_LEN, false);
		fz_check_agent(nd->agent);
		/* a duplicate name or agent is refused: the quadratic check stays small */
		for (j = 0; j < i && ff->nr_nodes <= 64; j++)
			if (!strcmp(nd->name, ff->nodes[j].name) ||
			    !strcmp(nd->agent, ff->nodes[j].agent))
				abort();
		if (!json_is_object(nd->labels) || json_object_size(nd->labels) > FF_MAX_LABELS)
			abort();
		json_object_foreach(nd->labels, k, v) {
			fz_check_word(k, FF_LABEL_LEN, true);
			if (!json_is_string(v))
				abort();
			fz_check_word(json_string_value(v), FF_LABEL_LEN, false);
		}
		if (nd->nr_rails > FF_MAX_RAILS)
			abort();
		for (j = 0; j < nd->nr_rails; j++) {
			unsigned int m;

			fz_check_word(nd->rails[j], FF_NETDEV_LEN, false);
			for (m = 0; m < j; m++)
				if (!strcmp(nd->rails[j], nd->rails[m]))
					abort();
		}
		if (i < 8)
			fz_check_labels_text(nd->labels, 1 + (size + i * 37) % 160);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct yd_diags diags = {0};
	struct fleetfile ff, again;
	char err[512] = "", err2[512] = "";
	int ret, ret2;

	ret = ff_load_text(FZ_NAME, (const char *)data, size, &ff, NULL, err, sizeof(err));
	if (ret) {
		if ((ret != -EINVAL && ret != -ENOMEM) || ff.nodes || ff.nr_nodes)
			abort();
		if (ret == -EINVAL && strncmp(err, FZ_NAME ":", strlen(FZ_NAME) + 1))
			abort();
	} else {
		fz_check_fleet(&ff, size);
	}

	/* every error kept: the same verdict, the first error first */
	ret2 = ff_load_text(FZ_NAME, (const char *)data, size, &again, &diags, err2, sizeof(err2));
	if (ret2 != ret && ret != -ENOMEM && ret2 != -ENOMEM)
		abort();
	if (ret == -EINVAL && ret2 == -EINVAL) {
		unsigned int i;

		if (strcmp(err, err2) || !diags.nr_errors || !diags.nr ||
		    strcmp(diags.v[0].text, err))
			abort();
		for (i = 0; i < diags.nr; i++)
			if (strncmp(diags.v[i].text, FZ_NAME ":", strlen(FZ_NAME) + 1))
				abort();
	}
	if (!ret2 && (diags.nr_errors || again.nr_nodes != ff.nr_nodes))
		abort();
	ff_free(&again);
	yd_diags_free(&diags);
	ff_free(&ff);
	return 0;
}
