// SPDX-License-Identifier: MIT
/*
 * The audit log: one compact JSON object per answered request, in a fixed key
 * order (agents/README.md), appended with a single write() so lines of
 * concurrent writers never interleave, and fdatasync()ed for the requests
 * that changed or tried to change a netdev.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agents/agent_audit.h"
#include "common/log.h"
#include "common/units.h"

#define AGENT_AUDIT_STR_MAX 128	   /* longest string of a request copied into a line */
#define AGENT_AUDIT_TARGET_MAX 256 /* a larger target is only measured */

void agent_audit_init(struct agent_audit *au)
{
	memset(au, 0, sizeof(*au));
	au->fd = -1;
}

/* Creates the file's folder (one level) when it is missing. */
static int agent_audit_mkdir(const char *path)
{
	char dir[sizeof(((struct agent_audit *)0)->path)];
	char *slash;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return 0;
	*slash = '\0';
	if (mkdir(dir, 0750) && errno != EEXIST)
		return -errno;
	return 0;
}

int agent_audit_open(struct agent_audit *au, const char *path, char *err, size_t errlen)
{
	int fd, ret;

	if (!*path || strlen(path) >= sizeof(au->path)) {
		snprintf(err, errlen, "--audit-log: give a file path, or none");
		return -EINVAL;
	}
	ret = agent_audit_mkdir(path);
	if (ret) {
		snprintf(err, errlen,
			 "--audit-log %s: cannot create its folder: %s (give another FILE, or "
			 "--audit-log none to run without one)",
			 path, strerror(-ret));
		return ret;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOCTTY, 0640);
	if (fd < 0) {
		ret = -errno;
		snprintf(err, errlen,
			 "--audit-log %s: %s (give another FILE, or --audit-log none to run "
			 "without one)",
			 path, strerror(-ret));
		return ret;
	}
	agent_audit_close(au);
	au->fd = fd;
	au->failing = false;
	snprintf(au->path, sizeof(au->path), "%s", path);
	return 0;
}

void agent_audit_close(struct agent_audit *au)
{
	if (au->fd >= 0)
		close(au->fd);
	au->fd = -1;
}

const char *agent_audit_outcome(int err)
{
	switch (err < 0 ? -err : err) {
	case 0:
		return "ok";
	/* The errnos of the checks every request passes before anything is touched. */
	case EPERM:
	case EACCES:
	case EINVAL:
	case ENOENT:
	case ENODEV:
	case EEXIST:
	case EBUSY:
	case EALREADY:
	case EOPNOTSUPP:
	case EPROTONOSUPPORT:
	case EPROTO:
		return "refused";
	default:
		return "error";
	}
}

/*
 * A string of the request as a JSON string: at most `max` bytes (cut on a
 * UTF-8 character boundary, "..." added), bytes that are not UTF-8 as '?'.
 */
static json_t *agent_audit_str(const char *s, size_t max)
{
	size_t len = strlen(s), i;
	bool cut = len > max;
	json_t *j;
	char *buf;

	if (cut)
		for (len = max; len && ((unsigned char)s[len] & 0xc0) == 0x80; len--)
			;
	buf = malloc(len + 4);
	if (!buf)
		return NULL;
	memcpy(buf, s, len);
	memcpy(buf + len, cut ? "..." : "", cut ? 4 : 1);
	j = json_string(buf);
	if (!j) {
		for (i = 0; i < len; i++)
			if ((unsigned char)buf[i] >= 0x80)
				buf[i] = '?';
		j = json_string(buf);
	}
	free(buf);
	return j;
}

static json_t *agent_audit_str_or_null(const char *s, size_t max)
{
	return s ? agent_audit_str(s, max) : json_null();
}

/* The request's target as given, unless it is large (it is only measured then). */
static json_t *agent_audit_target(const json_t *target)
{
	char *dump = json_dumps(target, JSON_COMPACT);
	json_t *t;

	if (!dump)
		return NULL;
	if (strlen(dump) <= AGENT_AUDIT_TARGET_MAX)
		t = json_deep_copy(target);
	else
		t = json_sprintf("(%zu bytes, not logged)", strlen(dump));
	free(dump);
	return t;
}

char *agent_audit_format(const struct agent_audit_rec *r)
{
	static const char *const names[] = {"fault_id", "injector", "target", "wl_id"};
	const json_t *v;
	json_t *o = json_object();
	char ts[40], *line, *grown;
	size_t i;

	rc_format_utc(r->wall_ns, ts, sizeof(ts));
	json_object_set_new(o, "ts", json_string(ts));
	json_object_set_new(o, "peer", agent_audit_str_or_null(r->peer, AGENT_AUDIT_STR_MAX));
	json_object_set_new(o, "peer_id", agent_audit_str_or_null(r->peer_id, AGENT_AUDIT_STR_MAX));
	v = json_object_get(r->req, "id");
	json_object_set_new(o, "id",
			    json_is_integer(v) ? json_integer(json_integer_value(v)) : json_null());
	v = json_object_get(r->req, "op");
	json_object_set_new(
	    o, "op", json_is_string(v) ? agent_audit_str(json_string_value(v), 64) : json_null());
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		v = json_object_get(r->req, names[i]);
		if (json_is_object(v) && !strcmp(names[i], "target"))
			json_object_set_new(o, names[i], agent_audit_target(v));
		else if (json_is_string(v) && strcmp(names[i], "target"))
			json_object_set_new(
			    o, names[i],
			    agent_audit_str(json_string_value(v), AGENT_AUDIT_STR_MAX));
	}
	v = json_object_get(r->result, "netdev");
	if (!r->err && json_is_string(v))
		json_object_set_new(o, "netdev", json_string(json_string_value(v)));
	json_object_set_new(o, "outcome", json_string(agent_audit_outcome(r->err)));
	json_object_set_new(o, "errno", json_integer(r->err < 0 ? -r->err : r->err));
	json_object_set_new(o, "error",
			    r->err ? agent_audit_str(r->error ? r->error : "", 1024) : json_null());
	line = o ? json_dumps(o, JSON_COMPACT) : NULL;
	json_decref(o);
	grown = line ? realloc(line, strlen(line) + 2) : NULL;
	if (!grown) {
		free(line);
		return NULL;
	}
	strcat(grown, "\n");
	return grown;
}

/* Lines worth a crash: requests that changed, or tried to change, a netdev or a record. */
static bool agent_audit_durable(const struct agent_audit_rec *r)
{
	const char *op = json_string_value(json_object_get(r->req, "op"));

	if (!op || !strcmp(agent_audit_outcome(r->err), "refused"))
		return false;
	return !strcmp(op, "inject") || !strcmp(op, "revert") || !strcmp(op, "revert_all") ||
	       !strcmp(op, "drop");
}

int agent_audit_write(struct agent_audit *au, const struct agent_audit_rec *r)
{
	char *line;
	ssize_t n;
	size_t len;
	int ret = 0;

	if (au->fd < 0)
		return 0;
	line = agent_audit_format(r);
	if (!line) {
		ret = -ENOMEM;
		goto out;
	}
	len = strlen(line);
	do
		n = write(au->fd, line, len);
	while (n < 0 && errno == EINTR);
	free(line);
	if (n < 0)
		ret = -errno;
	else if ((size_t)n != len)
		ret = -ENOSPC; /* a short write to a regular file: the disk is full */
	else if (agent_audit_durable(r) && fdatasync(au->fd))
		ret = -errno;
out:
	if (ret && !au->failing)
		rc_err("audit log %s: %s; requests are still answered, but not audited until it "
		       "works again",
		       au->path, strerror(-ret));
	else if (!ret && au->failing)
		rc_info("audit log %s: writing again", au->path);
	au->failing = ret != 0;
	return ret;
}
