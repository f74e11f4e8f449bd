/* SPDX-License-Identifier: MIT */
/*
 * Report writers. The coordinator assembles one JSON document (the schema in
 * docs/REPORT.md); each writer renders it. Files are written to a temporary
 * name and renamed, so a reader never sees half a report.
 */
#ifndef RC_REPORT_H
#define RC_REPORT_H

#include <jansson.h>
#include <stdio.h>

#define REPORT_SCHEMA "rdmachaos.report/v1"

int report_write_json(const char *path, const json_t *report);
int report_write_md(const char *path, const json_t *report);
/* One event object per line. */
int report_write_events(const char *path, const json_t *events);

/*
 * Shared by the writers: runs emit(f, arg) on a temporary file next to path
 * (same folder, so the rename is atomic), flushes and fsyncs it, makes it
 * 0644 and renames it over path. emit returns 0 or -errno; on any error the
 * temporary file is removed and path is left as it was.
 */
int report_write_file(const char *path, int (*emit)(FILE *f, const void *arg), const void *arg);

#endif
