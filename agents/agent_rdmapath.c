// SPDX-License-Identifier: MIT
/*
 * The evidence that a job rides RDMA and not TCP (agents/agent_rdmapath.h):
 * the job's processes from its cgroup or from /proc, its QPs from RDMA
 * netlink matched by thread group, its TCP sockets from /proc/PID/fd matched
 * to the sock_diag dump of agents/agent_rdmapath_diag.c, and an RDMA port's
 * data counters from sysfs. Every count is capped and every file is read as
 * if a hostile job wrote it.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agents/agent.h"
#include "agents/agent_cgroup.h"
#include "agents/agent_rdmapath.h"
#include "injectors/inj_rdma_nl.h"

#define AGENT_RP_TGID_CACHE 64 /* threads remembered while matching one QP dump */
#define AGENT_RP_STAT_LEN 1024 /* /proc/PID/stat: comm is at most 16 bytes, the rest numbers */

static const char *agent_rp_proc = "/proc";
static const char *agent_rp_sys = "/sys";

void agent_rp_set_roots(const char *proc, const char *sys)
{
	agent_rp_proc = proc ? proc : "/proc";
	agent_rp_sys = sys ? sys : "/sys";
}

/* A path built from @fmt into @buf: 0, or -ENAMETOOLONG when it does not fit. */
static int agent_rp_path(char *buf, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int agent_rp_path(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* "out of memory" in @err, for `return agent_rp_nomem(...)` or `ret = agent_rp_nomem(...)`. */
static int agent_rp_nomem(char *err, size_t errlen)
{
	snprintf(err, errlen, "rdmapath: out of memory");
	return -ENOMEM;
}

/* A directory entry's name as a number (plain decimal, 0..INT_MAX: a pid, tid or fd), else -1. */
static int agent_rp_num(const char *name)
{
	long long v = 0;
	const char *p;

	if (!*name)
		return -1;
	for (p = name; *p; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		v = v * 10 + (*p - '0');
		if (v > INT_MAX)
			return -1;
	}
	return (int)v;
}

static int agent_rp_cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* ---- the job's processes ---- */

/* A walk over the job: its pids, and how many more files it may read (AGENT_RP_MAX_WALK). */
struct agent_rp_walk {
	struct agent_rp_pids *p;
	unsigned int left;
};

/* Adds @pid unless it is there; false when the set is full (p->truncated is then set). */
static bool agent_rp_add(struct agent_rp_pids *p, int pid)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		if (p->pid[i] == pid)
			return true;
	if (p->n == AGENT_RP_MAX_PIDS) {
		p->truncated = true;
		return false;
	}
	p->pid[p->n++] = pid;
	return true;
}

/* One more file for the walk to read; false (and truncated) once the budget is spent. */
static bool agent_rp_spend(struct agent_rp_walk *w)
{
	if (!w->left) {
		w->p->truncated = true;
		return false;
	}
	w->left--;
	return true;
}

/*
 * Adds the pids @path lists to @p: decimal numbers separated by
 * white space, as cgroup.procs and task/TID/children have them. A word that
 * is not a pid in 1..INT_MAX is skipped; reading stops when the set is full,
 * so the file's size does not matter. 0 or -errno (-ENOENT when it is gone).
 */
static int agent_rp_read_pids(const char *path, struct agent_rp_pids *p)
{
	long long v = 0;
	bool digits = false, bad = false;
	FILE *f;
	int c, ret = 0;

	f = fopen(path, "re");
	if (!f)
		return -errno;
	errno = 0;
	do {
		c = getc(f);
		if (c >= '0' && c <= '9') {
			digits = true;
			if (!bad)
				v = v * 10 + (c - '0');
			bad = bad || v > INT_MAX;
		} else if (c == EOF || isspace(c)) {
			if (digits && !bad && v > 0 && !agent_rp_add(p, (int)v))
				break;
			v = 0;
			digits = bad = false;
		} else {
			bad = true;
		}
	} while (c != EOF);
	if (ferror(f))
		ret = errno ? -errno : -EIO;
	fclose(f);
	return ret;
}

/*
 * @dir's cgroup.procs, then those of the cgroups below it, @depth levels
 * down so far. A cgroup removed while it is walked is skipped, the job's
 * own (depth 0) excepted.
 */
static int agent_rp_cgroup(struct agent_rp_walk *w, const char *dir, int depth)
{
	char path[PATH_MAX];
	struct dirent *e;
	DIR *d;
	int ret;

	if (!agent_rp_spend(w))
		return 0;
	ret = agent_rp_path(path, sizeof(path), "%s/cgroup.procs", dir);
	if (!ret)
		ret = agent_rp_read_pids(path, w->p);
	if (ret || depth == AGENT_RP_MAX_CG_DEPTH || w->p->truncated)
		return ret;
	d = opendir(dir);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
		    (e->d_type != DT_DIR && e->d_type != DT_UNKNOWN) ||
		    agent_rp_path(path, sizeof(path), "%s/%s", dir, e->d_name))
			continue;
		ret = agent_rp_cgroup(w, path, depth + 1);
		if (ret == -ENOENT || ret == -ENOTDIR || ret == -ENAMETOOLONG)
			ret = 0; /* removed since, or not a cgroup */
		if (ret || w->p->truncated)
			break;
	}
	closedir(d);
	return ret;
}

/*
 * Whether this kernel has /proc/PID/task/TID/children (CONFIG_PROC_CHILDREN),
 * asked of @pid's main thread: 1 or 0, or -ESRCH when @pid is gone.
 */
static int agent_rp_children_files(int pid)
{
	char path[PATH_MAX];
	struct stat st;

	if (agent_rp_path(path, sizeof(path), "%s/%d/task/%d/children", agent_rp_proc, pid, pid))
		return -ENAMETOOLONG;
	if (!stat(path, &st))
		return 1;
	if (agent_rp_path(path, sizeof(path), "%s/%d", agent_rp_proc, pid) || stat(path, &st))
		return -ESRCH;
	return 0;
}

/* Adds the children of every thread of @pid: each thread forks its own. */
static int agent_rp_children(struct agent_rp_walk *w, int pid)
{
	char path[PATH_MAX];
	struct dirent *e;
	DIR *d;
	int tid, ret = 0;

	if (agent_rp_path(path, sizeof(path), "%s/%d/task", agent_rp_proc, pid))
		return -ENAMETOOLONG;
	d = opendir(path);
	if (!d)
		return errno == ENOENT || errno == ESRCH ? 0 : -errno;
	while (!w->p->truncated && (e = readdir(d))) {
		tid = agent_rp_num(e->d_name);
		if (tid <= 0 || !agent_rp_spend(w))
			continue;
		ret = agent_rp_path(path, sizeof(path), "%s/%d/task/%d/children", agent_rp_proc,
				    pid, tid);
		if (!ret)
			ret = agent_rp_read_pids(path, w->p);
		if (ret == -ENOENT || ret == -ESRCH)
			ret = 0; /* the thread exited */
		if (ret)
			break;
	}
	closedir(d);
	return ret;
}

struct agent_rp_ppid {
	int pid, ppid;
};

static int agent_rp_cmp_ppid(const void *a, const void *b)
{
	return agent_rp_cmp_int(&((const struct agent_rp_ppid *)a)->ppid,
				&((const struct agent_rp_ppid *)b)->ppid);
}

/*
 * The parent of every process, from each /proc/PID/stat ("PID (COMM) S PPID
 * ...": COMM may hold spaces and parentheses, so the last ')' ends it), in
 * *@out sorted by parent. A process that exits meanwhile, or whose stat does
 * not parse, is left out.
 */
static int agent_rp_ppids(struct agent_rp_walk *w, struct agent_rp_ppid **out, size_t *n)
{
	char path[PATH_MAX], buf[AGENT_RP_STAT_LEN];
	struct agent_rp_ppid *pp = NULL, *grown;
	size_t cap = 0;
	struct dirent *e;
	const char *p;
	int pid, ppid, ret = 0;
	DIR *d;

	*n = 0;
	d = opendir(agent_rp_proc);
	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		pid = agent_rp_num(e->d_name);
		if (pid <= 0 || !agent_rp_spend(w))
			continue;
		if (agent_rp_path(path, sizeof(path), "%s/%d/stat", agent_rp_proc, pid) ||
		    rc_sysfs_read(path, buf, sizeof(buf)))
			continue;
		p = strrchr(buf, ')');
		if (!p || sscanf(p + 1, " %*c %d", &ppid) != 1 || ppid <= 0)
			continue;
		if (*n == cap) {
			cap = cap ? 2 * cap : 256;
			grown = realloc(pp, cap * sizeof(*pp));
			if (!grown) {
				ret = -ENOMEM;
				break;
			}
			pp = grown;
		}
		pp[(*n)++] = (struct agent_rp_ppid){.pid = pid, .ppid = ppid};
	}
	closedir(d);
	if (ret) {
		free(pp);
		*n = 0;
		return ret;
	}
	if (*n)
		qsort(pp, *n, sizeof(*pp), agent_rp_cmp_ppid);
	*out = pp;
	return 0;
}

/* @root and its descendants. */
static int agent_rp_tree(struct agent_rp_walk *w, int root)
{
	struct agent_rp_ppid *pp = NULL;
	size_t npp = 0, i, lo, hi, mid;
	int has, ret = 0;

	has = agent_rp_children_files(root);
	if (has < 0)
		return has == -ESRCH ? 0 : has; /* gone: no processes */
	agent_rp_add(w->p, root);
	if (has) {
		/* The set grows while it is walked: each new process gets its turn. */
		for (i = 0; !ret && i < w->p->n && !w->p->truncated; i++)
			ret = agent_rp_children(w, w->p->pid[i]);
		return ret;
	}
	ret = agent_rp_ppids(w, &pp, &npp);
	for (i = 0; !ret && i < w->p->n && !w->p->truncated; i++) {
		/* the first entry whose parent is pid[i], then every one after with it */
		lo = 0;
		hi = npp;
		while (lo < hi) {
			mid = lo + (hi - lo) / 2;
			if (pp[mid].ppid < w->p->pid[i])
				lo = mid + 1;
			else
				hi = mid;
		}
		for (; lo < npp && pp[lo].ppid == w->p->pid[i]; lo++)
			if (!agent_rp_add(w->p, pp[lo].pid))
				break;
	}
	free(pp);
	return ret;
}

/*
 * Whether /proc/PID/environ holds exactly AGENT_RP_TAG_ENV=tag: read whole up to
 * AGENT_RP_ENVIRON_MAX bytes (a longer environment is searched in that much).
 */
static bool agent_rp_has_tag(int pid, const char *tag)
{
	char path[PATH_MAX], want[AGENT_RP_TAG_LEN + sizeof(AGENT_RP_TAG_ENV) + 2];
	static char buf[AGENT_RP_ENVIRON_MAX];
	size_t n = 0, wlen;
	ssize_t r;
	char *p;
	int fd;

	if (agent_rp_path(path, sizeof(path), "%s/%d/environ", agent_rp_proc, pid))
		return false;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	while (n < sizeof(buf) - 1 && (r = read(fd, buf + n, sizeof(buf) - 1 - n)) > 0)
		n += (size_t)r;
	close(fd);
	buf[n] = '\0';
	wlen = (size_t)snprintf(want, sizeof(want), "%s=%s", AGENT_RP_TAG_ENV, tag);
	for (p = buf; p < buf + n; p += strlen(p) + 1)
		if (strlen(p) == wlen && !memcmp(p, want, wlen))
			return true;
	return false;
}

int agent_rp_tagged_pids(const char *tag, struct agent_rp_pids *out, char *err, size_t errlen)
{
	struct agent_rp_walk w = {.p = out, .left = AGENT_RP_MAX_WALK};
	struct dirent *e;
	size_t i;
	DIR *d;
	int pid;

	memset(out, 0, sizeof(*out));
	for (i = 0; tag && tag[i]; i++)
		if (!isalnum((unsigned char)tag[i]) && !strchr("._-", tag[i]))
			break;
	if (!tag || !i || tag[i] || i > AGENT_RP_TAG_LEN) {
		snprintf(err, errlen, "rdmapath: a job tag is 1..%d of [A-Za-z0-9._-]",
			 AGENT_RP_TAG_LEN);
		return -EINVAL;
	}
	out->pid = malloc(AGENT_RP_MAX_PIDS * sizeof(*out->pid));
	if (!out->pid)
		return agent_rp_nomem(err, errlen);
	d = opendir(agent_rp_proc);
	if (!d) {
		snprintf(err, errlen, "rdmapath: %s: %s", agent_rp_proc, strerror(errno));
		agent_rp_pids_free(out);
		return -EIO;
	}
	while ((e = readdir(d)) && !out->truncated) {
		pid = agent_rp_num(e->d_name);
		if (pid > 0 && agent_rp_spend(&w) && agent_rp_has_tag(pid, tag))
			agent_rp_add(out, pid);
	}
	closedir(d);
	return 0;
}

void agent_rp_pids_free(struct agent_rp_pids *p)
{
	free(p->pid);
	memset(p, 0, sizeof(*p));
}

int agent_rp_job_pids(int root_pid, const char *cgroup_dir, struct agent_rp_pids *out, char *err,
		      size_t errlen)
{
	struct agent_rp_walk w = {.p = out, .left = AGENT_RP_MAX_WALK};
	int ret;

	memset(out, 0, sizeof(*out));
	if ((!cgroup_dir || !*cgroup_dir) && root_pid <= 0) {
		snprintf(err, errlen,
			 "rdmapath: no job: give a cgroup folder or a root pid above 0");
		return -EINVAL;
	}
	out->pid = malloc(AGENT_RP_MAX_PIDS * sizeof(*out->pid));
	if (!out->pid)
		return agent_rp_nomem(err, errlen);
	if (cgroup_dir && *cgroup_dir) {
		ret = agent_rp_cgroup(&w, cgroup_dir, 0);
		if (ret)
			snprintf(err, errlen, "rdmapath: cgroup %s: %s%s", cgroup_dir,
				 strerror(-ret),
				 ret == -ENOENT ? " (no cgroup.procs: not a cgroup v2 folder, or "
						  "removed)"
						: "");
	} else {
		ret = agent_rp_tree(&w, root_pid);
		if (ret)
			snprintf(err, errlen, "rdmapath: the processes under pid %d: %s", root_pid,
				 strerror(-ret));
	}
	if (ret)
		agent_rp_pids_free(out);
	return ret;
}

/* The job's tgids sorted, for bsearch; NULL when out of memory. */
static int *agent_rp_sorted(const struct agent_rp_pids *job)
{
	int *s = malloc(job->n * sizeof(*s));

	if (!s)
		return NULL;
	memcpy(s, job->pid, job->n * sizeof(*s));
	qsort(s, job->n, sizeof(*s), agent_rp_cmp_int);
	return s;
}

/* ---- the job's QPs ---- */

/*
 * The thread group of thread (or process) @tid, from /proc/TID/status, which
 * exists for every thread although /proc lists only processes. The kernel
 * escapes a newline in the Name line, so "\nTgid:" is the real one. > 0, or
 * -errno (-ENOENT: the thread is gone).
 */
static int agent_rp_tgid(int tid)
{
	char path[PATH_MAX], buf[4096], *t, *end;
	long v;
	int ret;

	ret = agent_rp_path(path, sizeof(path), "%s/%d/status", agent_rp_proc, tid);
	if (!ret)
		ret = rc_sysfs_read(path, buf, sizeof(buf));
	if (ret)
		return ret;
	t = strstr(buf, "\nTgid:");
	if (!t)
		return -EPROTO;
	t += strlen("\nTgid:");
	errno = 0;
	v = strtol(t, &end, 10);
	if (errno || end == t || v <= 0 || v > INT_MAX || (*end && *end != '\n'))
		return -EPROTO;
	return (int)v;
}

struct agent_rp_tgids {
	struct {
		int tid, tgid; /* tgid -errno: not known */
	} e[AGENT_RP_TGID_CACHE];
	size_t n;
};

/* agent_rp_tgid() through a small cache: a process's QPs come from few threads. */
static int agent_rp_tgid_cached(struct agent_rp_tgids *c, int tid)
{
	size_t i;
	int tgid;

	for (i = 0; i < c->n; i++)
		if (c->e[i].tid == tid)
			return c->e[i].tgid;
	tgid = agent_rp_tgid(tid);
	if (c->n < AGENT_RP_TGID_CACHE) {
		c->e[c->n].tid = tid;
		c->e[c->n++].tgid = tgid;
	}
	return tgid;
}

int agent_rp_qps(const struct agent_rp_pids *job, struct agent_rp_qp **qps, size_t *n, char *err,
		 size_t errlen)
{
	struct agent_rp_tgids cache = {.n = 0};
	struct inj_rdma_qp *all = NULL;
	struct agent_rp_qp *out = NULL, *q;
	size_t nall = 0, i, nout = 0;
	int *sorted = NULL, tgid, ret;

	*qps = NULL;
	*n = 0;
	ret = inj_rdma_nl_qps(NULL, &all, &nall, err, errlen);
	if (ret || !nall || !job->n)
		goto out;
	sorted = agent_rp_sorted(job);
	out = calloc(nall, sizeof(*out));
	if (!sorted || !out) {
		ret = agent_rp_nomem(err, errlen);
		goto out;
	}
	for (i = 0; i < nall; i++) {
		if (all[i].pid <= 0)
			continue; /* a kernel QP, or its creator has exited */
		/* A thread gone or a status that does not parse: not the job's, as far as we know.
		 */
		tgid = agent_rp_tgid_cached(&cache, all[i].pid);
		if (tgid <= 0 || !bsearch(&tgid, sorted, job->n, sizeof(*sorted), agent_rp_cmp_int))
			continue;
		q = &out[nout++];
		snprintf(q->device, sizeof(q->device), "%s", all[i].device);
		q->port = all[i].port;
		q->lqpn = all[i].lqpn;
		q->state = all[i].state;
		q->type = all[i].type;
		q->pid = tgid;
	}
	if (nout) {
		*qps = out;
		*n = nout;
		out = NULL;
	}
out:
	free(out);
	free(sorted);
	free(all);
	return ret;
}

/* ---- the job's TCP sockets ---- */

struct agent_rp_sock {
	uint64_t inode;
	int pid;
};

struct agent_rp_socks {
	struct agent_rp_sock *s;
	size_t n, cap;
	size_t fds; /* looked at so far, for AGENT_RP_MAX_FDS */
};

/* What agent_rp_keep() keeps: the job's sockets, sorted by inode, and the peers. */
struct agent_rp_match {
	const struct agent_rp_socks *socks;
	const struct agent_rp_ep *peers;
	size_t npeers;
};

static int agent_rp_cmp_sock(const void *a, const void *b)
{
	const struct agent_rp_sock *x = a, *y = b;

	if (x->inode != y->inode)
		return x->inode < y->inode ? -1 : 1;
	return agent_rp_cmp_int(&x->pid, &y->pid);
}

/* The inode of an fd link "socket:[INODE]"; false for anything else. */
static bool agent_rp_socket_inode(const char *link, uint64_t *inode)
{
	const char *p = link + strlen("socket:[");
	unsigned long long v;
	char *end;

	if (strncmp(link, "socket:[", strlen("socket:[")) || !isdigit((unsigned char)*p))
		return false;
	errno = 0;
	v = strtoull(p, &end, 10);
	if (errno || !v || strcmp(end, "]"))
		return false;
	*inode = v;
	return true;
}

/*
 * Adds the sockets among @pid's fds. A process or fd gone meanwhile is
 * skipped; fds that may not be read (another user's process, without
 * CAP_SYS_PTRACE) are an error, since sockets would be missed.
 */
static int agent_rp_fds(int pid, struct agent_rp_socks *ss)
{
	char path[PATH_MAX], link[64];
	struct agent_rp_sock *grown;
	struct dirent *e;
	uint64_t inode;
	ssize_t len;
	int ret = 0;
	DIR *d;

	if (agent_rp_path(path, sizeof(path), "%s/%d/fd", agent_rp_proc, pid))
		return -ENAMETOOLONG;
	d = opendir(path);
	if (!d)
		return errno == ENOENT || errno == ESRCH ? 0 : -errno;
	while ((e = readdir(d))) {
		if (agent_rp_num(e->d_name) < 0)
			continue;
		if (++ss->fds > AGENT_RP_MAX_FDS) {
			ret = -E2BIG;
			break;
		}
		len = readlinkat(dirfd(d), e->d_name, link, sizeof(link) - 1);
		if (len < 0)
			continue; /* closed since */
		link[len] = '\0';
		if (!agent_rp_socket_inode(link, &inode))
			continue;
		if (ss->n == AGENT_RP_MAX_SOCKS) {
			ret = -E2BIG;
			break;
		}
		if (ss->n == ss->cap) {
			ss->cap = ss->cap ? 2 * ss->cap : 64;
			grown = realloc(ss->s, ss->cap * sizeof(*grown));
			if (!grown) {
				ret = -ENOMEM;
				break;
			}
			ss->s = grown;
		}
		ss->s[ss->n++] = (struct agent_rp_sock){.inode = inode, .pid = pid};
	}
	closedir(d);
	return ret;
}

/* Sorts by inode and keeps each socket once, with the lowest pid holding it (a fork shares). */
static void agent_rp_socks_unique(struct agent_rp_socks *ss)
{
	size_t i, n = 0;

	qsort(ss->s, ss->n, sizeof(*ss->s), agent_rp_cmp_sock);
	for (i = 0; i < ss->n; i++)
		if (!n || ss->s[n - 1].inode != ss->s[i].inode)
			ss->s[n++] = ss->s[i];
	ss->n = n;
}

static const struct agent_rp_sock *agent_rp_sock_find(const struct agent_rp_socks *ss,
						      uint64_t inode)
{
	struct agent_rp_sock key = {.inode = inode, .pid = INT_MIN};
	size_t lo = 0, hi = ss->n, mid;

	/* the inode's entry is the first not below key (pids are all above INT_MIN) */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (agent_rp_cmp_sock(&ss->s[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < ss->n && ss->s[lo].inode == inode ? &ss->s[lo] : NULL;
}

/* An IPv4-mapped IPv6 address (::ffff:a.b.c.d) as the IPv4 address it carries. */
static void agent_rp_unmap(struct agent_rp_ep *ep)
{
	static const unsigned char mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

	if (ep->family != AF_INET6 || memcmp(ep->addr, mapped, sizeof(mapped)))
		return;
	ep->family = AF_INET;
	memmove(ep->addr, ep->addr + 12, 4);
	memset(ep->addr + 4, 0, 12);
}

/* @s as an address (port 0); false when it is not an IPv4 or IPv6 one. */
static bool agent_rp_parse_addr(const char *s, struct agent_rp_ep *ep)
{
	memset(ep, 0, sizeof(*ep));
	if (inet_pton(AF_INET, s, ep->addr) == 1) {
		ep->family = AF_INET;
		return true;
	}
	if (inet_pton(AF_INET6, s, ep->addr) != 1)
		return false;
	ep->family = AF_INET6;
	agent_rp_unmap(ep);
	return true;
}

static bool agent_rp_same_addr(const struct agent_rp_ep *a, const struct agent_rp_ep *b)
{
	return a->family == b->family &&
	       !memcmp(a->addr, b->addr, a->family == AF_INET ? 4 : sizeof(a->addr));
}

/* The dump's filter: a socket of the job whose remote end is one of the peers, if any. */
static bool agent_rp_keep(const struct agent_rp_diag *d, void *arg)
{
	const struct agent_rp_match *m = arg;
	struct agent_rp_ep remote = d->remote;
	size_t i;

	if (!d->inode || !agent_rp_sock_find(m->socks, d->inode))
		return false;
	if (!m->npeers)
		return true;
	agent_rp_unmap(&remote);
	for (i = 0; i < m->npeers; i++)
		if (agent_rp_same_addr(&remote, &m->peers[i]))
			return true;
	return false;
}

/* "ADDR:PORT", "[ADDR]:PORT" for IPv6. */
static void agent_rp_ep_str(const struct agent_rp_ep *ep, char *buf, size_t len)
{
	struct agent_rp_ep e = *ep;
	char a[INET6_ADDRSTRLEN];

	agent_rp_unmap(&e);
	if ((e.family != AF_INET && e.family != AF_INET6) ||
	    !inet_ntop(e.family, e.addr, a, sizeof(a)))
		snprintf(buf, len, "?:%u", (unsigned int)e.port);
	else if (e.family == AF_INET6)
		snprintf(buf, len, "[%s]:%u", a, (unsigned int)e.port);
	else
		snprintf(buf, len, "%s:%u", a, (unsigned int)e.port);
}

int agent_rp_tcp(const struct agent_rp_pids *job, const char *const *peers, size_t n_peers,
		 struct agent_rp_tcp **socks, size_t *n, char *err, size_t errlen)
{
	struct agent_rp_socks ss = {.s = NULL};
	struct agent_rp_match m = {.socks = &ss, .npeers = n_peers};
	struct agent_rp_ep *pe = NULL;
	struct agent_rp_diag *d = NULL;
	struct agent_rp_tcp *out = NULL;
	size_t nd = 0, i;
	int ret = 0;

	*socks = NULL;
	*n = 0;
	if (n_peers) {
		pe = calloc(n_peers, sizeof(*pe));
		if (!pe) {
			ret = agent_rp_nomem(err, errlen);
			goto out;
		}
	}
	for (i = 0; i < n_peers; i++) {
		if (!peers[i] || !agent_rp_parse_addr(peers[i], &pe[i])) {
			snprintf(err, errlen,
				 "rdmapath: peer \"%s\" is not an IPv4 or IPv6 address",
				 peers[i] ? peers[i] : "(null)");
			ret = -EINVAL;
			goto out;
		}
	}
	m.peers = pe;
	for (i = 0; i < job->n; i++) {
		ret = agent_rp_fds(job->pid[i], &ss);
		if (ret == -E2BIG)
			snprintf(err, errlen,
				 "rdmapath: the job holds more than %d socket descriptors, or more "
				 "than %d descriptors in all: too many to match",
				 AGENT_RP_MAX_SOCKS, AGENT_RP_MAX_FDS);
		else if (ret)
			snprintf(err, errlen, "rdmapath: %s/%d/fd: %s", agent_rp_proc, job->pid[i],
				 strerror(-ret));
		if (ret)
			goto out;
	}
	if (!ss.n)
		goto out; /* no sockets: no need to ask the kernel */
	agent_rp_socks_unique(&ss);
	ret = agent_rp_diag_dump(agent_rp_keep, &m, &d, &nd, err, errlen);
	if (ret || !nd)
		goto out;
	out = calloc(nd, sizeof(*out));
	if (!out) {
		ret = agent_rp_nomem(err, errlen);
		goto out;
	}
	for (i = 0; i < nd; i++) {
		const struct agent_rp_sock *s = agent_rp_sock_find(&ss, d[i].inode);

		agent_rp_ep_str(&d[i].local, out[i].local, sizeof(out[i].local));
		agent_rp_ep_str(&d[i].remote, out[i].remote, sizeof(out[i].remote));
		out[i].bytes_acked = d[i].bytes_acked;
		out[i].bytes_received = d[i].bytes_received;
		out[i].pid = s ? s->pid : 0; /* s is there: the dump kept only the job's */
	}
	*socks = out;
	*n = nd;
	out = NULL;
out:
	free(out);
	free(d);
	free(ss.s);
	free(pe);
	return ret;
}

/* ---- an RDMA port's data counters ---- */

/* Both files of a pair under @dir as numbers; false when either is missing or is not one. */
static bool agent_rp_pair(const char *dir, const char *tx, const char *rx, uint64_t *txv,
			  uint64_t *rxv)
{
	char path[PATH_MAX];

	return !agent_rp_path(path, sizeof(path), "%s/%s", dir, tx) && !rc_sysfs_u64(path, txv) &&
	       !agent_rp_path(path, sizeof(path), "%s/%s", dir, rx) && !rc_sysfs_u64(path, rxv);
}

/* PortXmitData and PortRcvData count 4-byte words (IBTA); a hostile value saturates. */
static uint64_t agent_rp_words(uint64_t v)
{
	return v > UINT64_MAX / 4 ? UINT64_MAX : 4 * v;
}

int agent_rp_port_counters(const char *sysfs_root, const char *device, unsigned int port,
			   struct agent_rp_port *out, char *err, size_t errlen)
{
	char root[PATH_MAX], dir[PATH_MAX], group[PATH_MAX];
	uint64_t tx, rx;
	struct stat st;

	memset(out, 0, sizeof(*out));
	if (!device || !agent_cgroup_name_ok(device)) {
		snprintf(err, errlen,
			 "rdmapath: RDMA device \"%s\": not a device name (1..63 of "
			 "[A-Za-z0-9._-])",
			 device ? device : "(null)");
		return -EINVAL;
	}
	if (!port) {
		snprintf(err, errlen, "rdmapath: %s: port 0: ports count from 1", device);
		return -EINVAL;
	}
	if (!sysfs_root || !*sysfs_root) {
		if (agent_rp_path(root, sizeof(root), "%s/class/infiniband", agent_rp_sys))
			goto toolong;
		sysfs_root = root;
	}
	if (agent_rp_path(dir, sizeof(dir), "%s/%s", sysfs_root, device))
		goto toolong;
	if (stat(dir, &st)) {
		snprintf(err, errlen, "rdmapath: no RDMA device %s in %s", device, sysfs_root);
		return -ENODEV;
	}
	if (agent_rp_path(dir, sizeof(dir), "%s/%s/ports/%u", sysfs_root, device, port))
		goto toolong;
	if (stat(dir, &st)) {
		snprintf(err, errlen, "rdmapath: RDMA device %s has no port %u", device, port);
		return -ENODEV;
	}
	if (agent_rp_path(group, sizeof(group), "%s/counters", dir))
		goto toolong;
	if (agent_rp_pair(group, "port_xmit_data", "port_rcv_data", &tx, &rx)) {
		out->tx_bytes = agent_rp_words(tx);
		out->rx_bytes = agent_rp_words(rx);
		out->has_bytes = true;
	}
	if (agent_rp_pair(group, "port_xmit_packets", "port_rcv_packets", &tx, &rx)) {
		out->pkts_group = "counters";
	} else {
		if (agent_rp_path(group, sizeof(group), "%s/hw_counters", dir))
			goto toolong;
		if (agent_rp_pair(group, "sent_pkts", "rcvd_pkts", &tx, &rx))
			out->pkts_group = "hw_counters";
	}
	if (out->pkts_group) {
		out->tx_pkts = tx;
		out->rx_pkts = rx;
		out->has_pkts = true;
	}
	if (!out->has_bytes && !out->has_pkts) {
		snprintf(err, errlen,
			 "rdmapath: %s port %u has no data counters (neither counters/"
			 "port_xmit_data and port_rcv_data, nor packets in counters/ or "
			 "hw_counters/sent_pkts and rcvd_pkts)",
			 device, port);
		return -ENODATA;
	}
	return 0;
toolong:
	snprintf(err, errlen, "rdmapath: %s port %u: the sysfs path is too long", device, port);
	return -ENAMETOOLONG;
}
