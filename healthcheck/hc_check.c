// SPDX-License-Identifier: MIT
/*
 * The checks of rdmachaos-healthcheck, all read from sysfs (rc_sysfs_root): each rail's port
 * ACTIVE with its physical link up, the port's netdev up, and each configured error counter's
 * rise since the last run within its bound. The last run's counters live in
 * STATE_DIR/counters.json; that file may hold anything (a crash mid-write, a hand edit), so
 * what is not a small object of numbers is set aside with a warning and the run starts over.
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/sysfs.h"
#include "healthcheck/hc.h"

#define HC_STATE_FILE "counters.json"
#define HC_STATE_MAX (64 * 1024)

static void hc_problem(struct hc_result *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void hc_problem(struct hc_result *r, const char *fmt, ...)
{
	va_list ap;

	if (r->nr_problems == HC_MAX_PROBLEMS)
		return;
	va_start(ap, fmt);
	vsnprintf(r->problems[r->nr_problems++], HC_PROBLEM_LEN, fmt, ap);
	va_end(ap);
}

static void hc_warning(struct hc_result *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void hc_warning(struct hc_result *r, const char *fmt, ...)
{
	va_list ap;

	if (r->nr_warnings == sizeof(r->warnings) / sizeof(r->warnings[0]))
		return;
	va_start(ap, fmt);
	vsnprintf(r->warnings[r->nr_warnings++], HC_PROBLEM_LEN, fmt, ap);
	va_end(ap);
}

/* "4: ACTIVE" -> "ACTIVE"; the text as is when it has no number. */
static const char *hc_state_word(const char *s)
{
	const char *colon = strchr(s, ':');

	return colon ? colon + 1 + (colon[1] == ' ') : s;
}

static void hc_check_port(const struct hc_rail *rl, const char *label, struct hc_result *r)
{
	char path[512], buf[64];
	int ret;

	snprintf(path, sizeof(path), "%s/class/infiniband/%s/ports/%u/state", rc_sysfs_root,
		 rl->device, rl->port);
	ret = rc_sysfs_read(path, buf, sizeof(buf));
	if (ret) {
		hc_problem(r, "%s: no such RDMA port (%s)", label, strerror(-ret));
		return;
	}
	if (strcmp(hc_state_word(buf), "ACTIVE"))
		hc_problem(r, "%s: port %s, not ACTIVE", label, hc_state_word(buf));
	snprintf(path, sizeof(path), "%s/class/infiniband/%s/ports/%u/phys_state", rc_sysfs_root,
		 rl->device, rl->port);
	if (!rc_sysfs_read(path, buf, sizeof(buf)) && strcmp(hc_state_word(buf), "LinkUp"))
		hc_problem(r, "%s: physical link %s, not LinkUp", label, hc_state_word(buf));
}

static void hc_check_netdev(const char *netdev, const char *label, struct hc_result *r)
{
	char path[512], buf[32];

	snprintf(path, sizeof(path), "%s/class/net/%s/operstate", rc_sysfs_root, netdev);
	if (rc_sysfs_read(path, buf, sizeof(buf)))
		hc_problem(r, "%s: netdev %s not found", label, netdev);
	else if (strcmp(buf, "up"))
		hc_problem(r, "%s: netdev %s is %s, not up", label, netdev, buf);
}

/* A counter of the port: counters/NAME (InfiniBand's PMA), else hw_counters/NAME (rxe, mlx5). */
static int hc_counter_read(const struct hc_rail *rl, const char *name, uint64_t *v)
{
	static const char *const dirs[] = {"counters", "hw_counters"};
	char path[512];
	size_t i;

	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/class/infiniband/%s/ports/%u/%s/%s", rc_sysfs_root,
			 rl->device, rl->port, dirs[i], name);
		if (!rc_sysfs_u64(path, v))
			return 0;
	}
	return -ENOENT;
}

/* The last run's counters: {"DEV/PORT/NAME": value}; NULL (first run, or set aside). */
static json_t *hc_state_load(const char *file, struct hc_result *r)
{
	json_error_t jerr;
	const char *key;
	struct stat st;
	json_t *o, *v;
	int fd;

	fd = open(file, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		if (errno != ENOENT)
			hc_warning(r, "%s: %s; counters start over", file, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size > HC_STATE_MAX) {
		hc_warning(r, "%s: not a regular file of at most 64 KiB; counters start over",
			   file);
		close(fd);
		return NULL;
	}
	o = json_loadfd(fd, JSON_REJECT_DUPLICATES, &jerr);
	close(fd);
	if (!json_is_object(o)) {
		hc_warning(r, "%s: not a JSON object (%s); counters start over", file,
			   o ? "another type" : jerr.text);
		json_decref(o);
		return NULL;
	}
	json_object_foreach(o, key, v) {
		if (!json_is_integer(v) || json_integer_value(v) < 0) {
			hc_warning(r, "%s: %s is not a counter value; counters start over", file,
				   key);
			json_decref(o);
			return NULL;
		}
	}
	return o;
}

/* Written whole to a temporary file, then renamed: a crash leaves the old one or the new. */
static void hc_state_save(const char *dir, const char *file, json_t *now, struct hc_result *r)
{
	char tmp[HC_PATH_LEN + 32];

	if (mkdir(dir, 0700) && errno != EEXIST) {
		hc_warning(r, "%s: %s; counters not kept", dir, strerror(errno));
		return;
	}
	snprintf(tmp, sizeof(tmp), "%s/.%s.tmp", dir, HC_STATE_FILE);
	if (json_dump_file(now, tmp, JSON_COMPACT) || rename(tmp, file)) {
		hc_warning(r, "%s: cannot write; counters not kept", file);
		unlink(tmp);
	}
}

void hc_check(const struct hc_config *c, struct hc_result *r)
{
	char label[HC_NAME_LEN * 2 + 32], netdev[HC_NAME_LEN], key[HC_NAME_LEN * 2 + 16];
	char file[HC_PATH_LEN + 32];
	json_t *last = NULL, *now = json_object();
	unsigned int i, k;
	uint64_t v;

	memset(r, 0, sizeof(*r));
	if (c->state_dir[0] && c->nr_counters) {
		snprintf(file, sizeof(file), "%s/%s", c->state_dir, HC_STATE_FILE);
		last = hc_state_load(file, r);
	}
	for (i = 0; i < c->nr_rails; i++) {
		const struct hc_rail *rl = &c->rails[i];

		if (rc_ib_port_netdev(rl->device, (int)rl->port, netdev, sizeof(netdev)))
			netdev[0] = '\0';
		snprintf(label, sizeof(label), "%s port %u%s%s%s", rl->device, rl->port,
			 netdev[0] ? " (" : "", netdev, netdev[0] ? ")" : "");
		hc_check_port(rl, label, r);
		if (netdev[0])
			hc_check_netdev(netdev, label, r);
		for (k = 0; k < c->nr_counters; k++) {
			const struct hc_counter *ct = &c->counters[k];
			json_t *was;

			if (hc_counter_read(rl, ct->name, &v)) {
				hc_problem(r, "%s: no counter %s", label, ct->name);
				continue;
			}
			snprintf(key, sizeof(key), "%s/%u/%s", rl->device, rl->port, ct->name);
			json_object_set_new(now, key, json_integer((json_int_t)v));
			was = last ? json_object_get(last, key) : NULL;
			/* a counter that went down was reset: it counts from 0 */
			if (was && v >= (uint64_t)json_integer_value(was) &&
			    v - (uint64_t)json_integer_value(was) > ct->max_increase)
				hc_problem(
				    r, "%s: %s rose by %llu since the last check (at most %llu)",
				    label, ct->name,
				    (unsigned long long)(v - (uint64_t)json_integer_value(was)),
				    (unsigned long long)ct->max_increase);
			else if (was && v < (uint64_t)json_integer_value(was) &&
				 v > ct->max_increase)
				hc_problem(r, "%s: %s is %llu since it was reset (at most %llu)",
					   label, ct->name, (unsigned long long)v,
					   (unsigned long long)ct->max_increase);
		}
	}
	if (c->state_dir[0] && c->nr_counters)
		hc_state_save(c->state_dir, file, now, r);
	json_decref(last);
	json_decref(now);
}

enum hc_action hc_decide(bool healthy, const struct hc_node_state *st)
{
	bool ours = !strncmp(st->reason, HC_REASON_PREFIX, strlen(HC_REASON_PREFIX));

	if (!healthy)
		return !st->drained ? HC_DRAIN : ours ? HC_NONE : HC_LEAVE_OTHERS;
	if (st->drained)
		return ours ? HC_RESUME : HC_LEAVE_OTHERS;
	return HC_NONE;
}
