// SPDX-License-Identifier: MIT
/*
 * A run folder as a whole: every format written from one report, and a
 * recorded run (report.json + events.jsonl) loaded back, so `rdmachaos
 * report` renders exactly what `rdmachaos run` would have.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "reports/report.h"

int report_render(const char *dir, const json_t *report, const json_t *events, unsigned int formats,
		  char *err, size_t errlen)
{
	static const struct {
		unsigned int fmt;
		const char *file;
	} files[] = {
	    {REPORT_FMT_JSON, "report.json"},
	    {REPORT_FMT_MD, "report.md"},
	    {REPORT_FMT_HTML, "report.html"},
	    {REPORT_FMT_JUNIT, "junit.xml"},
	};
	char path[4096];
	unsigned int i;
	int ret, first = 0;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		if (!(formats & files[i].fmt))
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, files[i].file) >=
		    sizeof(path)) {
			ret = -ENAMETOOLONG;
		} else if (files[i].fmt == REPORT_FMT_JSON) {
			ret = report_write_json(path, report);
		} else if (files[i].fmt == REPORT_FMT_MD) {
			ret = report_write_md(path, report);
		} else if (files[i].fmt == REPORT_FMT_HTML) {
			ret = report_write_html(path, report, events);
		} else {
			ret = report_write_junit(path, report);
		}
		if (ret && !first) {
			first = ret;
			snprintf(err, errlen, "%s/%s: %s", dir, files[i].file, strerror(-ret));
		}
	}
	return first;
}

/* events.jsonl: one object a line; a blank line is allowed, anything else is an error. */
static int report_load_events(const char *path, json_t *events, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	json_error_t je;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	unsigned int lineno = 0;
	json_t *e;
	int ret = 0;

	if (!f)
		return errno == ENOENT ? 0 : -errno;
	while ((n = getline(&line, &cap, f)) > 0) {
		lineno++;
		while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = '\0';
		if (!n)
			continue;
		e = json_loadb(line, (size_t)n, 0, &je);
		if (!json_is_object(e)) {
			snprintf(err, errlen, "%s:%u: %s", path, lineno,
				 e ? "not a JSON object" : je.text);
			json_decref(e);
			ret = -EINVAL;
			break;
		}
		json_array_append_new(events, e);
	}
	if (!ret && ferror(f))
		ret = -EIO;
	free(line);
	fclose(f);
	return ret;
}

int report_load_run(const char *dir, json_t **report, json_t **events, char *err, size_t errlen)
{
	char path[4096];
	json_error_t je;
	const char *schema;
	json_t *r, *ev;
	int ret;

	*report = *events = NULL;
	snprintf(path, sizeof(path), "%s/report.json", dir);
	r = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
	if (!r) {
		snprintf(err, errlen, "%s:%d: %s", path, je.line, je.text);
		return access(path, R_OK) ? -ENOENT : -EINVAL;
	}
	schema = json_string_value(json_object_get(r, "schema"));
	if (!json_is_object(r) || !schema || strncmp(schema, "rdmachaos.report/", 17)) {
		snprintf(err, errlen,
			 "%s: not an rdmachaos report (want an object with \"schema\": \"%s\")",
			 path, REPORT_SCHEMA);
		json_decref(r);
		return -EINVAL;
	}
	ev = json_array();
	snprintf(path, sizeof(path), "%s/events.jsonl", dir);
	ret = report_load_events(path, ev, err, errlen);
	if (ret) {
		if (ret != -EINVAL)
			snprintf(err, errlen, "%s: %s", path, strerror(-ret));
		json_decref(ev);
		json_decref(r);
		return ret;
	}
	*report = r;
	*events = ev;
	return 0;
}
