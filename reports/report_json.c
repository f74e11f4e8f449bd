// SPDX-License-Identifier: MIT
/*
 * report.json and events.jsonl writers, and the write-to-temp-then-rename
 * helper every report file goes through, so a reader (a CI gate polling the
 * run folder, an operator's editor) never sees half a file.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "reports/report.h"

/*
 * 15 significant digits: enough for microseconds on drills of years, and short
 * (a double printed with 17 digits shows 38.6 as 38.600000000000001).
 */
#define REPORT_JSON_REAL JSON_REAL_PRECISION(15)

int report_write_file(const char *path, int (*emit)(FILE *f, const void *arg), const void *arg)
{
	size_t len = strlen(path);
	char *tmp;
	FILE *f = NULL;
	int fd, ret;

	tmp = malloc(len + sizeof(".XXXXXX"));
	if (!tmp)
		return -ENOMEM;
	memcpy(tmp, path, len);
	memcpy(tmp + len, ".XXXXXX", sizeof(".XXXXXX"));
	fd = mkstemp(tmp);
	if (fd < 0) {
		ret = -errno;
		goto out_free;
	}
	/* mkstemp makes 0600; reports are for everyone who can read the run folder */
	if (fchmod(fd, 0644) < 0) {
		ret = -errno;
		close(fd);
		goto out_unlink;
	}
	f = fdopen(fd, "w");
	if (!f) {
		ret = -errno;
		close(fd);
		goto out_unlink;
	}
	ret = emit(f, arg);
	if (!ret && fflush(f))
		ret = -errno;
	if (!ret && ferror(f))
		ret = -EIO;
	if (!ret && fsync(fileno(f)) < 0)
		ret = -errno;
	if (fclose(f) && !ret)
		ret = -errno;
	if (ret)
		goto out_unlink;
	if (rename(tmp, path) < 0) {
		ret = -errno;
		goto out_unlink;
	}
	free(tmp);
	return 0;

out_unlink:
	unlink(tmp);
out_free:
	free(tmp);
	return ret;
}

static int emit_json(FILE *f, const void *arg)
{
	if (json_dumpf((const json_t *)arg, f, JSON_INDENT(2) | REPORT_JSON_REAL))
		return -EIO;
	return fputc('\n', f) == EOF ? -EIO : 0;
}

int report_write_json(const char *path, const json_t *report)
{
	if (!json_is_object(report))
		return -EINVAL;
	return report_write_file(path, emit_json, report);
}

static int emit_events(FILE *f, const void *arg)
{
	const json_t *events = arg, *e;
	size_t i;

	json_array_foreach(events, i, e) {
		if (json_dumpf(e, f, JSON_COMPACT | REPORT_JSON_REAL) || fputc('\n', f) == EOF)
			return -EIO;
	}
	return 0;
}

int report_write_events(const char *path, const json_t *events)
{
	if (events && !json_is_array(events))
		return -EINVAL;
	/* no events at all (a drill that never started) still gets its (empty) file */
	return report_write_file(path, emit_events, events);
}
