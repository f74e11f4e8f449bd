/* SPDX-License-Identifier: MIT */
/*
 * Report writers. The coordinator assembles one JSON document (the schema in
 * docs/REPORT.md); each writer renders it. Files are written to a temporary
 * name and renamed, so a reader never sees half a report.
 */
#ifndef RC_REPORT_H
#define RC_REPORT_H

#include <jansson.h>

#define REPORT_SCHEMA "rdmachaos.report/v1"

int report_write_json(const char *path, const json_t *report);
int report_write_md(const char *path, const json_t *report);
/* One event object per line. */
int report_write_events(const char *path, const json_t *events);

#endif
