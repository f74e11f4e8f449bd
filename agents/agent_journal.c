// SPDX-License-Identifier: MIT
/*
 * The crash-safe revert journal (agents/agent_journal.h): record files in the
 * state directory, their durable write and removal, and reading them back at
 * start-up. It knows injectors only through their snapshot; what to do with a
 * record (restore, revert, verify) is agent_faults.c's.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agents/agent.h"
#include "agents/agent_journal.h"
#include "common/units.h"
#include "common/errbuf.h"

#define AGENT_JOURNAL_PREFIX "fault-"
#define AGENT_JOURNAL_SUFFIX ".json"
#define AGENT_JOURNAL_TMP_SUFFIX ".tmp"
#define AGENT_JOURNAL_BAD_SUFFIX ".bad"
/* A record is a few hundred bytes; anything this big is not one. */
#define AGENT_JOURNAL_MAX_SIZE (1 << 20)
#define AGENT_JOURNAL_BOOT_ID "/proc/sys/kernel/random/boot_id"

void agent_journal_init(struct agent_journal *j)
{
	memset(j, 0, sizeof(*j));
	j->dir_fd = -1;
}

static bool agent_journal_has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

/* mkdir -p with mode 0700; a component that exists (as a directory or not) is left alone. */
static int agent_journal_mkdirs(const char *dir, char *err, size_t errlen)
{
	char path[AGENT_JOURNAL_PATH_LEN];
	char *p;

	snprintf(path, sizeof(path), "%s", dir);
	for (p = path + 1;; p++) {
		char c = *p;

		if (c && c != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0700) && errno != EEXIST) {
			struct stat st;
			int ret = -errno;

			/* A read-only parent that exists answers EROFS on some file systems. */
			if (stat(path, &st) || !S_ISDIR(st.st_mode))
				return errbuf_fail(err, errlen, ret,
						   "--state-dir %s: cannot create %s: %s", dir,
						   path, strerror(-ret));
		}
		*p = c;
		if (!c)
			return 0;
	}
}

/* Deletes the temporary files of records that were never committed. */
static void agent_journal_sweep(struct agent_journal *j)
{
	struct dirent *de;
	int fd, removed = 0;
	DIR *d;

	fd = openat(j->dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		rc_warn("journal: %s: cannot list: %s", j->dir, strerror(errno));
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] != '.' ||
		    strncmp(de->d_name + 1, AGENT_JOURNAL_PREFIX, strlen(AGENT_JOURNAL_PREFIX)) ||
		    !agent_journal_has_suffix(de->d_name, AGENT_JOURNAL_TMP_SUFFIX))
			continue;
		if (unlinkat(j->dir_fd, de->d_name, 0))
			rc_warn("journal: %s/%s: cannot remove this uncommitted record: %s", j->dir,
				de->d_name, strerror(errno));
		else
			removed++;
	}
	closedir(d);
	if (removed) {
		rc_info("journal: %s: removed %d uncommitted record(s) (their faults never ran)",
			j->dir, removed);
		if (fsync(j->dir_fd))
			rc_warn("journal: %s: fsync: %s", j->dir, strerror(errno));
	}
}

/*
 * Whoever can write the state dir decides what this agent reverts at its next start (a record
 * names a netdev, a cgroup, a socket), so, as sshd's StrictModes does for keys: the directory
 * must belong to the agent's user and be writable by nobody else.
 */
static int agent_journal_owned(int fd, const char *dir, char *err, size_t errlen)
{
	struct stat st;

	if (fstat(fd, &st))
		return errbuf_fail(err, errlen, -errno, "--state-dir %s: stat: %s", dir,
				   strerror(errno));
	if (st.st_uid != geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH)))
		return errbuf_fail(
		    err, errlen, -EPERM,
		    "--state-dir %s: owned by uid %u with mode %04o; it must belong to this "
		    "agent's user (uid %u) and be writable by no one else, since its records "
		    "say what the agent reverts (chown %u %s; chmod 0700 %s)",
		    dir, (unsigned int)st.st_uid, (unsigned int)(st.st_mode & 07777),
		    (unsigned int)geteuid(), (unsigned int)geteuid(), dir, dir);
	return 0;
}

int agent_journal_start(struct agent_journal *j, const char *dir, char *err, size_t errlen)
{
	int fd, ret;

	if (!dir[0] || strlen(dir) >= sizeof(j->dir))
		return errbuf_fail(err, errlen, -EINVAL,
				   "--state-dir: give a directory path (< %zu bytes)",
				   sizeof(j->dir));
	ret = agent_journal_mkdirs(dir, err, errlen);
	if (ret)
		return ret;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return errbuf_fail(err, errlen, -errno, "--state-dir %s: cannot open: %s", dir,
				   strerror(errno));
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		ret = -errno;
		if (ret == -EWOULDBLOCK) {
			ret = errbuf_fail(
			    err, errlen, -EBUSY,
			    "--state-dir %s: in use by another rdmachaos-agent (give each agent "
			    "its own: it reverts every fault it finds there)",
			    dir);
			goto err_close;
		}
		/* Some network file systems lock nothing: say so, but do not refuse to run. */
		rc_warn("journal: %s: cannot lock (%s); make sure no other agent uses it", dir,
			strerror(-ret));
	}
	ret = agent_journal_owned(fd, dir, err, errlen);
	if (ret)
		goto err_close;
	if (faccessat(fd, ".", W_OK, AT_EACCESS)) {
		ret = errbuf_fail(err, errlen, -errno,
				  "--state-dir %s: not writable: %s (the journal of faults "
				  "to revert after a crash lives there; use a writable "
				  "directory, e.g. on a tmpfs)",
				  dir, strerror(errno));
		goto err_close;
	}
	snprintf(j->dir, sizeof(j->dir), "%s", dir);
	j->dir_fd = fd;
	j->started_ns = rc_now_ns();
	j->started_wall_ns = rc_wall_ns();
	if (rc_sysfs_read(AGENT_JOURNAL_BOOT_ID, j->boot_id, sizeof(j->boot_id)))
		j->boot_id[0] = '\0';
	agent_journal_sweep(j);
	return 0;

err_close:
	close(fd);
	return ret;
}

void agent_journal_stop(struct agent_journal *j)
{
	if (j->dir_fd >= 0)
		close(j->dir_fd); /* and so drops the lock */
	j->dir_fd = -1;
}

void agent_journal_name(const char *fault_id, char *buf, size_t len)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t off = (size_t)snprintf(buf, len, "%s", AGENT_JOURNAL_PREFIX);
	const unsigned char *p;

	/* Escaped, so no id can name another path ('/', "..") nor collide with another id. */
	for (p = (const unsigned char *)fault_id;
	     *p && off + 3 + sizeof(AGENT_JOURNAL_SUFFIX) < len; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || *p == '.' || *p == '_' || *p == '-') {
			buf[off++] = (char)*p;
			continue;
		}
		buf[off++] = '%';
		buf[off++] = hex[*p >> 4];
		buf[off++] = hex[*p & 15];
	}
	snprintf(buf + off, len - off, "%s", AGENT_JOURNAL_SUFFIX);
}

static json_t *agent_journal_target(const struct inj_target *t)
{
	json_t *o = json_pack("{s:s, s:i}", "netdev", t->netdev, "ifindex", t->ifindex);

	if (!o)
		return NULL;
	json_object_set_new(o, "device", t->device[0] ? json_string(t->device) : json_null());
	json_object_set_new(o, "port", t->device[0] ? json_integer(t->port) : json_null());
	json_object_set_new(o, "rail", t->rail >= 0 ? json_integer(t->rail) : json_null());
	if (t->workload[0]) {
		json_object_set_new(o, "workload", json_string(t->workload));
		json_object_set_new(o, "pid", json_integer(t->pid));
		json_object_set_new(o, "cgroup", json_string(t->cgroup));
		json_object_set_new(o, "shim_sock", json_string(t->shim_sock));
	}
	return o;
}

/* Builds f's record (after prepare: the injector's snapshot goes in); 0 or -errno. */
static int agent_journal_build(const struct agent_journal *j, const struct inj_fault *f,
			       uint64_t lease_ms, json_t **rec, char *err, size_t errlen)
{
	char now_utc[32], started_utc[32];
	json_t *snap;

	if (!f->inj->snapshot)
		return errbuf_fail(err, errlen, -EOPNOTSUPP,
				   "journal: %s has no snapshot() to journal", f->inj->name);
	snap = f->inj->snapshot(f);
	if (!snap)
		return errbuf_fail(err, errlen, -ENOMEM,
				   "journal: %s: %s: no snapshot (out of memory?)", f->inj->name,
				   f->target.netdev);
	rc_format_utc(rc_wall_ns(), now_utc, sizeof(now_utc));
	rc_format_utc(j->started_wall_ns, started_utc, sizeof(started_utc));
	*rec =
	    json_pack("{s:i, s:s, s:s, s:o, s:o, s:o, s:I, s:I, s:I, s:s, s:{s:i, s:I, s:s, s:s}}",
		      "format", AGENT_JOURNAL_FORMAT, "fault_id", f->id, "injector", f->inj->name,
		      "target", agent_journal_target(&f->target), "params",
		      f->params ? json_deep_copy(f->params) : json_object(), "snapshot", snap,
		      "duration_ms", (json_int_t)f->duration_ms, "lease_ms", (json_int_t)lease_ms,
		      "recorded_at_ns", (json_int_t)rc_now_ns(), "recorded_at", now_utc, "agent",
		      "pid", (int)getpid(), "started_at_ns", (json_int_t)j->started_ns,
		      "started_at", started_utc, "boot_id", j->boot_id);
	return *rec ? 0 : errbuf_fail(err, errlen, -ENOMEM, "journal: out of memory");
}

/*
 * text -> hidden temporary file, fsync, rename to name, fsync of the
 * directory: only then is the record durable, and it is never seen half
 * written. On error nothing of it is left.
 */
static int agent_journal_commit(struct agent_journal *j, const char *name, const char *text,
				char *err, size_t errlen)
{
	char tmp[AGENT_JOURNAL_NAME_LEN + 8];
	size_t len = strlen(text), off = 0;
	int fd, ret;

	snprintf(tmp, sizeof(tmp), ".%s%s", name, AGENT_JOURNAL_TMP_SUFFIX);
	fd = openat(j->dir_fd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return errbuf_fail(err, errlen, -errno, "journal: %s/%s: create: %s", j->dir, tmp,
				   strerror(errno));
	while (off < len) {
		ssize_t n = write(fd, text + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			ret = errbuf_fail(err, errlen, n < 0 ? -errno : -EIO,
					  "journal: %s/%s: write: %s", j->dir, tmp,
					  n < 0 ? strerror(errno) : "wrote nothing");
			goto err_close;
		}
		off += (size_t)n;
	}
	if (fsync(fd)) {
		ret = errbuf_fail(err, errlen, -errno, "journal: %s/%s: fsync: %s", j->dir, tmp,
				  strerror(errno));
		goto err_close;
	}
	if (close(fd)) {
		fd = -1;
		ret = errbuf_fail(err, errlen, -errno, "journal: %s/%s: close: %s", j->dir, tmp,
				  strerror(errno));
		goto err_unlink;
	}
	fd = -1;
	if (renameat(j->dir_fd, tmp, j->dir_fd, name)) {
		ret = errbuf_fail(err, errlen, -errno, "journal: %s/%s: rename to %s: %s", j->dir,
				  tmp, name, strerror(errno));
		goto err_unlink;
	}
	if (fsync(j->dir_fd)) {
		/* The rename may not survive a crash: the fault must not run on it. */
		ret = errbuf_fail(err, errlen, -errno, "journal: %s: fsync: %s", j->dir,
				  strerror(errno));
		unlinkat(j->dir_fd, name, 0);
		return ret;
	}
	return 0;

err_close:
	close(fd);
err_unlink:
	unlinkat(j->dir_fd, tmp, 0);
	return ret;
}

int agent_journal_write(struct agent_journal *j, const struct inj_fault *f, uint64_t lease_ms,
			char *err, size_t errlen)
{
	char name[AGENT_JOURNAL_NAME_LEN];
	json_t *rec = NULL;
	struct stat st;
	char *text;
	int ret;

	if (!agent_journal_on(j))
		return 0;
	agent_journal_name(f->id, name, sizeof(name));
	if (!fstatat(j->dir_fd, name, &st, AT_SYMLINK_NOFOLLOW))
		return errbuf_fail(
		    err, errlen, -EEXIST,
		    "journal: %s/%s: fault %s already has an open record (an earlier revert of "
		    "it never verified; the agent reverts it at its next start)",
		    j->dir, name, f->id);
	if (errno != ENOENT)
		return errbuf_fail(err, errlen, -errno, "journal: %s/%s: %s", j->dir, name,
				   strerror(errno));
	ret = agent_journal_build(j, f, lease_ms, &rec, err, errlen);
	if (ret)
		return ret;
	/* Indented, a field a line: an operator reads a record with cat. */
	text = json_dumps(rec, JSON_INDENT(1));
	json_decref(rec);
	if (!text)
		return errbuf_fail(err, errlen, -ENOMEM, "journal: out of memory");
	ret = agent_journal_commit(j, name, text, err, errlen);
	free(text);
	if (!ret)
		rc_dbg("journal: %s/%s written", j->dir, name);
	return ret;
}

int agent_journal_close(struct agent_journal *j, const char *fault_id, char *err, size_t errlen)
{
	char name[AGENT_JOURNAL_NAME_LEN];

	if (!agent_journal_on(j))
		return 0;
	agent_journal_name(fault_id, name, sizeof(name));
	if (unlinkat(j->dir_fd, name, 0)) {
		if (errno == ENOENT)
			return 0;
		return errbuf_fail(err, errlen, -errno, "journal: %s/%s: remove: %s", j->dir, name,
				   strerror(errno));
	}
	if (fsync(j->dir_fd))
		return errbuf_fail(err, errlen, -errno, "journal: %s: fsync: %s", j->dir,
				   strerror(errno));
	rc_dbg("journal: %s/%s closed", j->dir, name);
	return 0;
}

/* obj[key] as an integer in min..max, or null (*null_ok set) when allowed. */
static int agent_journal_int(const json_t *obj, const char *key, json_int_t min, json_int_t max,
			     bool null_ok, json_int_t *out, char *err, size_t errlen)
{
	const json_t *v = json_object_get(obj, key);

	if (null_ok && json_is_null(v)) {
		*out = -1;
		return 0;
	}
	if (!json_is_integer(v) || json_integer_value(v) < min || json_integer_value(v) > max)
		return errbuf_fail(err, errlen, -EINVAL,
				   "%s: missing or not an integer in %lld..%lld%s", key,
				   (long long)min, (long long)max, null_ok ? " (or null)" : "");
	*out = json_integer_value(v);
	return 0;
}

/* obj[key] as a string of 1..max bytes without NUL; NULL with a sentence otherwise. */
static const char *agent_journal_str(const json_t *obj, const char *key, size_t max, char *err,
				     size_t errlen)
{
	const json_t *v = json_object_get(obj, key);

	if (!json_is_string(v) || !json_string_length(v) || json_string_length(v) > max ||
	    strlen(json_string_value(v)) != json_string_length(v)) {
		errbuf_fail(err, errlen, -EINVAL, "%s: missing or not a string of 1..%zu bytes",
			    key, max);
		return NULL;
	}
	return json_string_value(v);
}

/* An optional string into buf: absent or null is "", one that does not fit is refused. */
static int agent_journal_opt_str(const json_t *obj, const char *key, char *buf, size_t len,
				 char *err, size_t errlen)
{
	const json_t *v = json_object_get(obj, key);

	buf[0] = '\0';
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_string(v) || json_string_length(v) >= len ||
	    strlen(json_string_value(v)) != json_string_length(v))
		return errbuf_fail(err, errlen, -EINVAL, "%s: not a string of at most %zu bytes",
				   key, len - 1);
	memcpy(buf, json_string_value(v), json_string_length(v) + 1);
	return 0;
}

static int agent_journal_parse_target(const json_t *o, struct inj_target *t, char *err,
				      size_t errlen)
{
	const json_t *dev = json_object_get(o, "device");
	const json_t *nd = json_object_get(o, "netdev");
	const char *s;
	json_int_t v;
	int ret;

	if (!json_is_object(o))
		return errbuf_fail(err, errlen, -EINVAL, "target: missing or not an object");
	/* A workload target: its process, and a netdev only with a rail. */
	if (json_object_get(o, "workload")) {
		s = agent_journal_str(o, "workload", sizeof(t->workload) - 1, err, errlen);
		if (!s)
			return -EINVAL;
		snprintf(t->workload, sizeof(t->workload), "%s", s);
		ret = agent_journal_int(o, "pid", 0, INT32_MAX, false, &v, err, errlen);
		if (ret)
			return ret;
		t->pid = (int)v;
		ret = agent_journal_opt_str(o, "cgroup", t->cgroup, sizeof(t->cgroup), err, errlen);
		if (!ret)
			ret = agent_journal_opt_str(o, "shim_sock", t->shim_sock,
						    sizeof(t->shim_sock), err, errlen);
		if (ret)
			return ret;
	}
	if (t->workload[0] && json_is_string(nd) && !json_string_length(nd)) {
		t->netdev[0] = '\0';
	} else {
		s = agent_journal_str(o, "netdev", sizeof(t->netdev) - 1, err, errlen);
		if (!s)
			return -EINVAL;
		snprintf(t->netdev, sizeof(t->netdev), "%s", s);
	}
	ret = agent_journal_int(o, "ifindex", 0, INT32_MAX, false, &v, err, errlen);
	if (ret)
		return ret;
	t->ifindex = (int)v;
	if (!json_is_null(dev)) {
		s = agent_journal_str(o, "device", sizeof(t->device) - 1, err, errlen);
		if (!s)
			return -EINVAL;
		snprintf(t->device, sizeof(t->device), "%s", s);
	}
	ret = agent_journal_int(o, "port", 0, 255, true, &v, err, errlen);
	if (ret)
		return ret;
	t->port = v < 0 ? 0 : (int)v;
	ret = agent_journal_int(o, "rail", 0, INT32_MAX, true, &v, err, errlen);
	if (ret)
		return ret;
	t->rail = (int)v;
	return 0;
}

int agent_journal_parse(const struct agent_journal *j, const json_t *rec,
			struct agent_journal_entry *e, char *err, size_t errlen)
{
	const json_t *params = json_object_get(rec, "params");
	const char *id, *name, *boot;
	json_int_t v, recorded;
	int ret;

	if (!json_is_object(rec))
		return errbuf_fail(err, errlen, -EINVAL, "not a JSON object");
	ret = agent_journal_int(rec, "format", 0, INT32_MAX, false, &v, err, errlen);
	if (ret)
		return ret;
	if (v != AGENT_JOURNAL_FORMAT)
		return errbuf_fail(err, errlen, -EINVAL,
				   "format %lld: this agent reads format %d (a newer agent "
				   "wrote it?)",
				   (long long)v, AGENT_JOURNAL_FORMAT);
	id = agent_journal_str(rec, "fault_id", sizeof(e->f.id) - 1, err, errlen);
	name = agent_journal_str(rec, "injector", 63, err, errlen);
	if (!id || !name)
		return -EINVAL;
	e->f.inj = injector_find(name);
	if (!e->f.inj)
		return errbuf_fail(err, errlen, -EINVAL, "injector \"%s\": unknown to this agent",
				   name);
	if (!e->f.inj->restore)
		return errbuf_fail(err, errlen, -EINVAL, "injector %s cannot restore a snapshot",
				   name);
	snprintf(e->f.id, sizeof(e->f.id), "%s", id);
	ret = agent_journal_parse_target(json_object_get(rec, "target"), &e->f.target, err, errlen);
	if (ret)
		return ret;
	if (!json_is_object(params))
		return errbuf_fail(err, errlen, -EINVAL, "params: missing or not an object");
	e->snapshot = json_object_get(rec, "snapshot");
	if (!json_is_object(e->snapshot))
		return errbuf_fail(err, errlen, -EINVAL, "snapshot: missing or not an object");
	ret = agent_journal_int(rec, "duration_ms", 0, INT64_MAX, false, &v, err, errlen);
	if (ret)
		return ret;
	e->f.duration_ms = (uint64_t)v;
	ret = agent_journal_int(rec, "lease_ms", 0, INT64_MAX, false, &v, err, errlen);
	if (ret)
		return ret;
	e->lease_ms = (uint64_t)v;
	ret = agent_journal_int(rec, "recorded_at_ns", 0, INT64_MAX, false, &recorded, err, errlen);
	if (ret)
		return ret;
	boot = json_string_value(json_object_get(json_object_get(rec, "agent"), "boot_id"));
	e->same_boot = boot && boot[0] && !strcmp(boot, j->boot_id);
	/* CLOCK_MONOTONIC of another boot means nothing here. */
	e->f.injected_at_ns = e->same_boot ? (uint64_t)recorded : 0;
	e->f.params = json_deep_copy(params);
	if (!e->f.params)
		return errbuf_fail(err, errlen, -EINVAL, "out of memory");
	return 0;
}

void agent_journal_entry_fini(struct agent_journal_entry *e)
{
	json_decref(e->f.params);
	e->f.params = NULL;
	json_decref(e->rec);
	e->rec = NULL;
	e->snapshot = NULL;
}

static const char *agent_journal_file_type(mode_t mode)
{
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISSOCK(mode))
		return "a socket";
	if (S_ISCHR(mode) || S_ISBLK(mode))
		return "a device node";
	return "a special file";
}

/* Reads and parses record name into *rec. -errno with a sentence (without the path). */
static int agent_journal_read(struct agent_journal *j, const char *name, json_t **rec, char *err,
			      size_t errlen)
{
	json_error_t jerr;
	struct stat st;
	char *buf;
	size_t off = 0;
	int fd, ret = 0;

	/*
	 * A state dir may hold anything: O_NONBLOCK so that a FIFO (or a device) does not block
	 * the agent before it listens, O_NOFOLLOW so that a link is not followed; the fstat below
	 * then refuses whatever is not a regular file.
	 */
	fd = openat(j->dir_fd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		int e = errno;

		if (e == ELOOP)
			return errbuf_fail(err, errlen, -EINVAL,
					   "a symbolic link (never followed)");
		return errbuf_fail(err, errlen, -e, "open: %s", strerror(e));
	}
	if (fstat(fd, &st)) {
		ret = errbuf_fail(err, errlen, -errno, "stat: %s", strerror(errno));
		goto out_close;
	}
	if (!S_ISREG(st.st_mode)) {
		ret = errbuf_fail(err, errlen, -EINVAL, "not a regular file but %s",
				  agent_journal_file_type(st.st_mode));
		goto out_close;
	}
	if (st.st_size > AGENT_JOURNAL_MAX_SIZE) {
		ret = errbuf_fail(err, errlen, -EINVAL, "%lld bytes, over the %d a record may have",
				  (long long)st.st_size, AGENT_JOURNAL_MAX_SIZE);
		goto out_close;
	}
	if (!st.st_size) {
		ret = errbuf_fail(err, errlen, -EINVAL, "empty (truncated?)");
		goto out_close;
	}
	buf = malloc((size_t)st.st_size);
	if (!buf) {
		ret = errbuf_fail(err, errlen, -ENOMEM, "out of memory");
		goto out_close;
	}
	while (off < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + off, (size_t)st.st_size - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			ret = n < 0 ? errbuf_fail(err, errlen, -errno, "read: %s", strerror(errno))
				    : errbuf_fail(err, errlen, -EINVAL, "shorter than its size");
			goto out_free;
		}
		off += (size_t)n;
	}
	*rec = json_loadb(buf, off, JSON_REJECT_DUPLICATES, &jerr);
	if (!*rec)
		ret =
		    errbuf_fail(err, errlen, -EINVAL, "not valid JSON (truncated?): %s at line %d",
				jerr.text, jerr.line);
out_free:
	free(buf);
out_close:
	close(fd);
	return ret;
}

/* Renames a record that cannot be used to NAME.bad, so the next start does not trip on it. */
static void agent_journal_set_aside(struct agent_journal *j, const char *name, const char *why)
{
	char bad[AGENT_JOURNAL_NAME_LEN + 8];

	snprintf(bad, sizeof(bad), "%s%s", name, AGENT_JOURNAL_BAD_SUFFIX);
	rc_err("journal: %s/%s: unusable record skipped: %s; moved aside to %s (if it was a "
	       "fault, it was NOT reverted: check its netdev by hand)",
	       j->dir, name, why, bad);
	if (renameat(j->dir_fd, name, j->dir_fd, bad) || fsync(j->dir_fd))
		rc_err("journal: %s/%s: cannot move it aside: %s", j->dir, name, strerror(errno));
}

static int agent_journal_is_record(const struct dirent *de)
{
	return !strncmp(de->d_name, AGENT_JOURNAL_PREFIX, strlen(AGENT_JOURNAL_PREFIX)) &&
	       agent_journal_has_suffix(de->d_name, AGENT_JOURNAL_SUFFIX);
}

int agent_journal_replay(struct agent_journal *j, agent_journal_replay_fn fn, void *arg)
{
	struct dirent **names = NULL;
	int i, n, handed = 0;

	if (!agent_journal_on(j))
		return 0;
	n = scandirat(j->dir_fd, ".", &names, agent_journal_is_record, alphasort);
	if (n < 0) {
		int ret = -errno;

		rc_err("journal: %s: cannot list: %s", j->dir, strerror(errno));
		return ret;
	}
	for (i = 0; i < n; i++) {
		struct agent_journal_entry e = {.f.target.rail = -1};
		char why[512] = "", want[AGENT_JOURNAL_NAME_LEN];
		json_t *rec = NULL;
		int ret;

		snprintf(e.name, sizeof(e.name), "%s", names[i]->d_name);
		free(names[i]);
		ret = agent_journal_read(j, e.name, &rec, why, sizeof(why));
		if (ret == -ENOENT)
			continue; /* gone since the listing */
		if (!ret)
			ret = agent_journal_parse(j, rec, &e, why, sizeof(why));
		e.rec = rec;
		if (!ret) {
			agent_journal_name(e.f.id, want, sizeof(want));
			if (strcmp(want, e.name))
				ret = errbuf_fail(why, sizeof(why), -EINVAL,
						  "its fault_id %s belongs in %s", e.f.id, want);
		}
		if (!ret) {
			handed++;
			ret = fn(arg, &e);
			if (ret)
				snprintf(why, sizeof(why), "%s",
					 e.f.err[0] ? e.f.err : strerror(-ret));
		}
		if (ret)
			agent_journal_set_aside(j, e.name, why);
		agent_journal_entry_fini(&e);
	}
	free(names);
	return handed;
}
