// SPDX-License-Identifier: MIT
/*
 * The NIC's pause counters (agents/agent_ethtool.h says what and why): the
 * name classifier, the SIOCETHTOOL reads into guard-paged buffers, the PFC
 * storm prevention tunable, and the poller the counter sampler (and the
 * metrics, with a poller of their own) drives.
 */
#include <ctype.h>
#include <errno.h>
#include <linux/netlink.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "agents/agent.h"
#include "agents/agent_ethtool.h"
#include "agents/agent_metrics.h"

#define AGENT_ETH_PRIOS 8
#define AGENT_ETH_WORDS 16		 /* a 32-byte name has at most 16 words */
#define AGENT_ETH_GLOBAL AGENT_ETH_PRIOS /* the rx slot of 802.3x PAUSE */

/* ---- the pure classifier ---- */

/* Splits name into lower-case words of letters and digits, in buf; the number of words. */
static unsigned int agent_eth_words(const char *name, char buf[AGENT_ETHTOOL_NAME_LEN + 1],
				    char *word[AGENT_ETH_WORDS])
{
	unsigned int n = 0;
	bool in = false;
	size_t i;

	for (i = 0; i < AGENT_ETHTOOL_NAME_LEN && name[i]; i++) {
		unsigned char ch = (unsigned char)name[i];

		if (isalnum(ch)) {
			buf[i] = (char)tolower(ch);
			if (!in && n < AGENT_ETH_WORDS)
				word[n++] = &buf[i];
			in = true;
		} else {
			buf[i] = '\0';
			in = false;
		}
	}
	buf[i] = '\0';
	return n;
}

/* "3" -> 3; anything but one digit 0..7 -> -1. */
static int agent_eth_prio_digit(const char *s)
{
	return s[0] >= '0' && s[0] <= '7' && !s[1] ? s[0] - '0' : -1;
}

static bool agent_eth_all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

static int agent_eth_words_priority(char *const *word, unsigned int n)
{
	static const char *const prefix[] = {"priority", "prio", "pri"};
	unsigned int i, k;

	for (i = 0; i < n; i++) {
		for (k = 0; k < sizeof(prefix) / sizeof(prefix[0]); k++) {
			size_t len = strlen(prefix[k]);

			if (strncmp(word[i], prefix[k], len))
				continue;
			if (!word[i][len]) /* "priority" "3" */
				return i + 1 < n && agent_eth_all_digits(word[i + 1])
					   ? agent_eth_prio_digit(word[i + 1])
					   : -1;
			if (agent_eth_all_digits(word[i] + len)) /* "prio3", "pri3" */
				return agent_eth_prio_digit(word[i] + len);
			break; /* "prioritized", "private": not a priority */
		}
	}
	return -1;
}

int agent_ethtool_priority(const char *name)
{
	char buf[AGENT_ETHTOOL_NAME_LEN + 1], *word[AGENT_ETH_WORDS];

	return agent_eth_words_priority(word, agent_eth_words(name, buf, word));
}

static bool agent_eth_has(char *const *word, unsigned int n, const char *w)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (!strcmp(word[i], w))
			return true;
	return false;
}

static bool agent_eth_has_part(char *const *word, unsigned int n, const char *part)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (strstr(word[i], part))
			return true;
	return false;
}

bool agent_ethtool_classify(const char *name, struct agent_ethtool_class *out)
{
	char buf[AGENT_ETHTOOL_NAME_LEN + 1], *word[AGENT_ETH_WORDS];
	struct agent_ethtool_class c = {.priority = -1};
	unsigned int n = agent_eth_words(name, buf, word), i;
	bool pfc = agent_eth_has_part(word, n, "pfc");

	if (!pfc && !agent_eth_has_part(word, n, "pause") && !agent_eth_has(word, n, "xoff") &&
	    !agent_eth_has(word, n, "xon") && !agent_eth_has(word, n, "xon2xoff")) {
		if (out)
			*out = c;
		return false;
	}
	for (i = 0; i < n && c.dir == AGENT_ETH_DIR_NONE; i++)
		if (!strcmp(word[i], "rx"))
			c.dir = AGENT_ETH_RX;
		else if (!strcmp(word[i], "tx"))
			c.dir = AGENT_ETH_TX;
	c.priority = agent_eth_words_priority(word, n);
	if (agent_eth_has_part(word, n, "storm"))
		c.kind = AGENT_ETH_STORM;
	else if (agent_eth_has(word, n, "duration"))
		c.kind = AGENT_ETH_DURATION;
	else if (agent_eth_has_part(word, n, "transition") || agent_eth_has(word, n, "xon2xoff"))
		c.kind = AGENT_ETH_TRANSITIONS;
	else if (agent_eth_has(word, n, "xon"))
		c.kind = AGENT_ETH_XON;
	else
		c.kind = AGENT_ETH_FRAMES;
	/* Without a priority, a PFC count sums the priorities'; *_ctrl_* are MAC-control totals. */
	c.total = c.priority < 0 && (pfc || agent_eth_has(word, n, "ctrl"));
	if (out)
		*out = c;
	return true;
}

bool agent_ethtool_is_rx_pause(const struct agent_ethtool_class *c)
{
	return c->kind == AGENT_ETH_FRAMES && c->dir == AGENT_ETH_RX && !c->total;
}

/* ---- SIOCETHTOOL ---- */

int agent_ethtool_socket(void)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	/* Any socket carries SIOCETHTOOL; ethtool(8) falls back the same way. */
	if (fd < 0)
		fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	return fd < 0 ? -errno : fd;
}

static int agent_eth_ioctl(int fd, const char *ifname, void *cmd)
{
	struct ifreq ifr;
	size_t len = strlen(ifname);

	if (!len || len >= sizeof(ifr.ifr_name))
		return -ENODEV;
	memset(&ifr, 0, sizeof(ifr));
	memcpy(ifr.ifr_name, ifname, len + 1);
	ifr.ifr_data = cmd;
	return ioctl(fd, SIOCETHTOOL, &ifr) ? -errno : 0;
}

static void agent_eth_unmap(void *buf, size_t len)
{
	if (buf)
		munmap(buf, len + (size_t)sysconf(_SC_PAGESIZE));
}

/*
 * A buffer of at least need bytes followed by an inaccessible page. The
 * kernel writes as many names or values as the driver counts at that moment,
 * whatever the request said: if more appeared than the slack allows, the
 * copy faults (-EFAULT) instead of overwriting the agent's heap.
 */
static int agent_eth_buf(void **buf, size_t *len, size_t need)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), want = (need + page - 1) / page * page;
	void *p;
	int ret;

	if (*buf && *len >= need)
		return 0;
	p = mmap(NULL, want + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	if (mprotect((char *)p + want, page, PROT_NONE)) {
		ret = -errno;
		munmap(p, want + page);
		return ret;
	}
	agent_eth_unmap(*buf, *len);
	*buf = p;
	*len = want;
	return 0;
}

int agent_ethtool_count(int fd, const char *ifname, unsigned int *n)
{
	union {
		struct ethtool_sset_info info;
		uint8_t raw[sizeof(struct ethtool_sset_info) + sizeof(uint32_t)];
	} u;
	uint32_t count;
	int ret;

	memset(&u, 0, sizeof(u));
	u.info.cmd = ETHTOOL_GSSET_INFO;
	u.info.sset_mask = 1ULL << ETH_SS_STATS;
	ret = agent_eth_ioctl(fd, ifname, &u);
	if (ret)
		return ret;
	/* The kernel clears the bit of a set the driver does not have. */
	if (!(u.info.sset_mask & (1ULL << ETH_SS_STATS)))
		return -EOPNOTSUPP;
	memcpy(&count, u.raw + sizeof(struct ethtool_sset_info), sizeof(count));
	*n = count;
	return 0;
}

int agent_ethtool_names(int fd, const char *ifname, struct agent_ethtool_stats *st)
{
	struct ethtool_gstrings *g;
	unsigned int n;
	int ret;

	st->n = 0;
	st->names = NULL;
	st->values = NULL;
	ret = agent_ethtool_count(fd, ifname, &n);
	if (ret)
		return ret;
	if (n > AGENT_ETHTOOL_MAX_STATS)
		return -E2BIG;
	if (!n)
		return 0;
	ret = agent_eth_buf(&st->sbuf, &st->slen,
			    sizeof(*g) + (size_t)(n + AGENT_ETHTOOL_SLACK) * ETH_GSTRING_LEN);
	if (ret)
		return ret;
	g = st->sbuf;
	memset(g, 0, sizeof(*g));
	g->cmd = ETHTOOL_GSTRINGS;
	g->string_set = ETH_SS_STATS;
	g->len = n;
	ret = agent_eth_ioctl(fd, ifname, g);
	if (ret)
		return ret == -EFAULT ? -EAGAIN : ret;
	if (g->len != n)
		return -EAGAIN;
	st->n = n;
	st->names = (const char *)g->data;
	return 0;
}

int agent_ethtool_values(int fd, const char *ifname, struct agent_ethtool_stats *st)
{
	struct ethtool_stats *s;
	int ret;

	st->values = NULL;
	if (!st->n)
		return 0; /* the kernel warns about a GSTATS of nothing */
	ret = agent_eth_buf(&st->vbuf, &st->vlen,
			    sizeof(*s) + (size_t)(st->n + AGENT_ETHTOOL_SLACK) * sizeof(uint64_t));
	if (ret)
		return ret;
	s = st->vbuf;
	memset(s, 0, sizeof(*s));
	s->cmd = ETHTOOL_GSTATS;
	s->n_stats = st->n;
	ret = agent_eth_ioctl(fd, ifname, s);
	if (ret)
		return ret == -EFAULT ? -EAGAIN : ret;
	if (s->n_stats != st->n)
		return -EAGAIN;
	st->values = (const uint64_t *)s->data;
	return 0;
}

void agent_ethtool_name(const struct agent_ethtool_stats *st, unsigned int i,
			char out[AGENT_ETHTOOL_NAME_LEN + 1])
{
	const char *s = st->names + (size_t)i * AGENT_ETHTOOL_NAME_LEN;
	size_t len = strnlen(s, AGENT_ETHTOOL_NAME_LEN);

	memcpy(out, s, len);
	out[len] = '\0';
}

void agent_ethtool_stats_free(struct agent_ethtool_stats *st)
{
	agent_eth_unmap(st->sbuf, st->slen);
	agent_eth_unmap(st->vbuf, st->vlen);
	memset(st, 0, sizeof(*st));
}

int agent_ethtool_pfc_prevention(int fd, const char *ifname, unsigned int *tout_ms)
{
	union {
		struct ethtool_tunable t;
		uint8_t raw[sizeof(struct ethtool_tunable) + sizeof(uint16_t)];
	} u;
	uint16_t v;
	int ret;

	memset(&u, 0, sizeof(u));
	u.t.cmd = ETHTOOL_GTUNABLE;
	u.t.id = ETHTOOL_PFC_PREVENTION_TOUT;
	u.t.type_id = ETHTOOL_TUNABLE_U16;
	u.t.len = sizeof(uint16_t);
	ret = agent_eth_ioctl(fd, ifname, &u);
	if (ret)
		return ret;
	memcpy(&v, u.raw + sizeof(struct ethtool_tunable), sizeof(v));
	*tout_ms = v;
	return 0;
}

/* The prevention time as the inventory and the log say it. */
static json_t *agent_eth_prevention_json(int ret, unsigned int tout)
{
	if (ret == -EOPNOTSUPP)
		return json_string("not supported");
	if (ret)
		return json_string(strerror(-ret));
	if (tout == PFC_STORM_PREVENTION_AUTO)
		return json_string("auto");
	if (tout == PFC_STORM_PREVENTION_DISABLE)
		return json_string("disabled");
	return json_integer(tout);
}

json_t *agent_ethtool_inventory(int fd, const char *ifname)
{
	struct agent_ethtool_stats st = {0};
	char name[AGENT_ETHTOOL_NAME_LEN + 1];
	unsigned int i, sel = 0, tout = 0;
	json_t *o;
	int ret, pret;

	ret = fd < 0 ? fd : agent_ethtool_names(fd, ifname, &st);
	if (ret == -EAGAIN)
		ret = agent_ethtool_names(fd, ifname, &st);
	for (i = 0; !ret && i < st.n; i++) {
		agent_ethtool_name(&st, i, name);
		sel += agent_ethtool_classify(name, NULL);
	}
	agent_ethtool_stats_free(&st);
	pret = fd < 0 ? fd : agent_ethtool_pfc_prevention(fd, ifname, &tout);
	o = json_pack("{s:i, s:o}", "counters", (int)sel, "prevention_tout_ms",
		      agent_eth_prevention_json(pret, tout));
	if (o && ret && ret != -EOPNOTSUPP)
		json_object_set_new(o, "error", json_string(strerror(-ret)));
	return o;
}

/* ---- the poller ---- */

struct agent_eth_ctr {
	char name[AGENT_ETHTOOL_NAME_LEN + 1];
	uint64_t value;
	struct agent_ethtool_class cls;
	bool seen; /* in the current sample */
};

struct agent_eth_dev {
	char name[IF_NAMESIZE];
	bool skip;   /* no pause counters when probed: never read again */
	bool warned; /* a read error was logged */
	struct agent_eth_ctr *c;
	size_t n, cap;
};

struct agent_ethtool_poll {
	agent_ethtool_emit_fn emit;
	void *ctx;
	int fd;
	struct agent_ethtool_stats st;
	struct agent_eth_dev *devs;
	size_t n;
};

/* The largest movement among one priority's (or the global) rx pause counters. */
struct agent_eth_rx {
	uint64_t delta, value;
	char name[AGENT_ETHTOOL_NAME_LEN + 1]; /* a copy: d->c moves as counters come and go */
};

struct agent_ethtool_poll *agent_ethtool_poll_new(agent_ethtool_emit_fn emit, void *ctx)
{
	struct agent_ethtool_poll *p = calloc(1, sizeof(*p));

	if (!p) {
		rc_err("pfc: NIC counters: %s", strerror(ENOMEM));
		return NULL;
	}
	p->emit = emit;
	p->ctx = ctx;
	p->fd = agent_ethtool_socket();
	if (p->fd < 0) {
		rc_warn("pfc: NIC counters: no socket for SIOCETHTOOL: %s: not read",
			strerror(-p->fd));
		free(p);
		return NULL;
	}
	return p;
}

static struct agent_eth_ctr *agent_eth_find(struct agent_eth_dev *d, const char *name)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		if (!strcmp(d->c[i].name, name))
			return &d->c[i];
	return NULL;
}

static struct agent_eth_ctr *agent_eth_add(struct agent_eth_dev *d)
{
	if (d->n == d->cap) {
		size_t cap = d->cap ? 2 * d->cap : 16;
		struct agent_eth_ctr *n = realloc(d->c, cap * sizeof(*n));

		if (!n)
			return NULL;
		d->c = n;
		d->cap = cap;
	}
	memset(&d->c[d->n], 0, sizeof(d->c[0]));
	return &d->c[d->n++];
}

static void agent_eth_moved(struct agent_ethtool_poll *p, const struct agent_eth_dev *d,
			    const struct agent_eth_ctr *c, uint64_t delta,
			    struct agent_eth_rx rx[AGENT_ETH_PRIOS + 1])
{
	json_t *ev;

	ev = json_pack("{s:s, s:s, s:s, s:I, s:I}", "type", "nic_counter", "netdev", d->name,
		       "name", c->name, "delta", (json_int_t)delta, "value", (json_int_t)c->value);
	if (ev && c->cls.priority >= 0)
		json_object_set_new(ev, "priority", json_integer(c->cls.priority));
	if (ev)
		p->emit(p->ctx, ev);
	if (c->cls.kind == AGENT_ETH_STORM) {
		const char *sev = strstr(c->name, "error")  ? "error"
				  : strstr(c->name, "warn") ? "warning"
							    : "unknown";

		rc_warn("pfc: %s: %s moved by %llu: PFC storm (the NIC's storm prevention)",
			d->name, c->name, (unsigned long long)delta);
		ev = json_pack("{s:s, s:s, s:s, s:s, s:I, s:I, s:s}", "type", "storm_detected",
			       "netdev", d->name, "source", "nic", "name", c->name, "delta",
			       (json_int_t)delta, "value", (json_int_t)c->value, "severity", sev);
		if (ev && c->cls.priority >= 0)
			json_object_set_new(ev, "priority", json_integer(c->cls.priority));
		if (ev)
			p->emit(p->ctx, ev);
	}
	if (agent_ethtool_is_rx_pause(&c->cls)) {
		struct agent_eth_rx *r =
		    &rx[c->cls.priority >= 0 ? c->cls.priority : AGENT_ETH_GLOBAL];

		/* Two counters of the same frames (ice's xoff and a pause count): one event. */
		if (delta > r->delta) {
			r->delta = delta;
			r->value = c->value;
			memcpy(r->name, c->name, sizeof(r->name));
		}
	}
}

static void agent_eth_rx_events(struct agent_ethtool_poll *p, const struct agent_eth_dev *d,
				const struct agent_eth_rx rx[AGENT_ETH_PRIOS + 1])
{
	unsigned int s;

	for (s = 0; s <= AGENT_ETH_PRIOS; s++) {
		json_t *ev;

		if (!rx[s].delta)
			continue;
		ev = json_pack("{s:s, s:s, s:I, s:I, s:s, s:s}", "type", "rx", "netdev", d->name,
			       "frames", (json_int_t)rx[s].delta, "total", (json_int_t)rx[s].value,
			       "name", rx[s].name, "source", "nic");
		if (ev)
			json_object_set_new(ev, s == AGENT_ETH_GLOBAL ? "global" : "priority",
					    s == AGENT_ETH_GLOBAL ? json_true()
								  : json_integer((json_int_t)s));
		if (ev)
			p->emit(p->ctx, ev);
	}
}

/*
 * Reads d and emits what moved; a counter seen for the first time, or gone
 * backwards, only records its value. 0 or -errno (d unchanged unless -ENOMEM).
 */
static int agent_eth_dev_read(struct agent_ethtool_poll *p, struct agent_eth_dev *d)
{
	struct agent_eth_rx rx[AGENT_ETH_PRIOS + 1];
	char name[AGENT_ETHTOOL_NAME_LEN + 1];
	uint64_t delta;
	unsigned int i;
	size_t k;
	int ret;

	ret = agent_ethtool_names(p->fd, d->name, &p->st);
	if (ret)
		return ret;
	for (k = 0; k < d->n; k++)
		d->c[k].seen = false;
	/* None selected (virtio-net's probe): no values to read, and nothing left to track. */
	for (i = 0; i < p->st.n; i++) {
		agent_ethtool_name(&p->st, i, name);
		if (agent_ethtool_classify(name, NULL))
			break;
	}
	if (i == p->st.n) {
		d->n = 0;
		return 0;
	}
	ret = agent_ethtool_values(p->fd, d->name, &p->st);
	if (ret)
		return ret;
	memset(rx, 0, sizeof(rx));
	for (i = 0; i < p->st.n; i++) {
		struct agent_ethtool_class cls;
		struct agent_eth_ctr *c;
		uint64_t v = p->st.values[i];

		agent_ethtool_name(&p->st, i, name);
		if (!agent_ethtool_classify(name, &cls))
			continue;
		c = agent_eth_find(d, name);
		if (!c) {
			c = agent_eth_add(d);
			if (!c)
				return -ENOMEM;
			memcpy(c->name, name, sizeof(c->name));
			c->cls = cls;
			c->value = v;
			c->seen = true;
			continue;
		}
		if (c->seen) /* the same name twice: the first counts */
			continue;
		c->seen = true;
		if (v == c->value)
			continue;
		if (v < c->value) {
			rc_dbg("pfc: %s: %s went from %llu to %llu (reset)", d->name, name,
			       (unsigned long long)c->value, (unsigned long long)v);
			c->value = v;
			continue;
		}
		delta = v - c->value;
		c->value = v;
		agent_eth_moved(p, d, c, delta, rx);
	}
	/* Counters that vanished (PFC disabled on a priority) are forgotten. */
	for (k = 0; k < d->n;) {
		if (d->c[k].seen)
			k++;
		else
			d->c[k] = d->c[--d->n];
	}
	agent_eth_rx_events(p, d, rx);
	return 0;
}

static void agent_eth_dev_remove(struct agent_ethtool_poll *p, size_t i)
{
	free(p->devs[i].c);
	memmove(&p->devs[i], &p->devs[i + 1], (p->n - i - 1) * sizeof(p->devs[0]));
	p->n--;
}

int agent_ethtool_poll_add(struct agent_ethtool_poll *p, const char *netdev)
{
	struct agent_eth_dev *devs, *d;
	unsigned int tout = 0;
	json_t *prev;
	char *text;
	size_t i;
	int ret;

	for (i = 0; i < p->n; i++)
		if (!strcmp(p->devs[i].name, netdev))
			return !p->devs[i].skip;
	if (strlen(netdev) >= IF_NAMESIZE)
		return -ENODEV;
	devs = realloc(p->devs, (p->n + 1) * sizeof(*devs));
	if (!devs)
		return -ENOMEM;
	p->devs = devs;
	d = &p->devs[p->n++];
	memset(d, 0, sizeof(*d));
	snprintf(d->name, sizeof(d->name), "%s", netdev);
	ret = agent_eth_dev_read(p, d);
	if (ret == -EAGAIN)
		ret = agent_eth_dev_read(p, d);
	if (ret == -EOPNOTSUPP || (!ret && !d->n)) {
		if (ret)
			rc_dbg(
			    "pfc: %s: no ethtool statistics: its NIC pause counters are not read",
			    netdev);
		else
			rc_dbg("pfc: %s: no pause counters among its %u ethtool statistics: not "
			       "read",
			       netdev, p->st.n);
		d->skip = true;
		free(d->c);
		d->c = NULL;
		d->n = d->cap = 0;
		return 0;
	}
	if (ret) {
		agent_eth_dev_remove(p, p->n - 1);
		return ret;
	}
	ret = agent_ethtool_pfc_prevention(p->fd, netdev, &tout);
	prev = agent_eth_prevention_json(ret, tout);
	text = prev ? json_dumps(prev, JSON_ENCODE_ANY) : NULL;
	rc_info("pfc: %s: reading %zu NIC pause counters with the RDMA counters; PFC storm "
		"prevention (pfc-prevention-tout, ms): %s",
		netdev, d->n, text ? text : "?");
	free(text);
	json_decref(prev);
	return 1;
}

void agent_ethtool_poll_sample(struct agent_ethtool_poll *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->n;) {
		struct agent_eth_dev *d = &p->devs[i];
		int ret;

		if (d->skip) {
			i++;
			continue;
		}
		ret = agent_eth_dev_read(p, d);
		if (ret == -ENODEV) {
			rc_info("pfc: %s: gone: its NIC pause counters are no longer read",
				d->name);
			agent_eth_dev_remove(p, i);
			continue;
		}
		if (ret == -EAGAIN) {
			rc_dbg("pfc: %s: its ethtool statistics changed while read: next time",
			       d->name);
		} else if (ret && !d->warned) {
			rc_warn("pfc: %s: reading its ethtool statistics: %s", d->name,
				strerror(-ret));
			d->warned = true;
		} else if (!ret) {
			d->warned = false;
		}
		i++;
	}
}

unsigned int agent_ethtool_poll_count(const struct agent_ethtool_poll *p)
{
	unsigned int n = 0;
	size_t i;

	for (i = 0; p && i < p->n; i++)
		n += !p->devs[i].skip;
	return n;
}

/* The slot of (priority, direction) in agent_ethtool_poll_frames()'s per-netdev table. */
static unsigned int agent_eth_frames_slot(const struct agent_ethtool_class *c)
{
	unsigned int s = c->priority >= 0 ? (unsigned int)c->priority : AGENT_ETH_GLOBAL;

	return 2 * s + (c->dir == AGENT_ETH_TX);
}

int agent_ethtool_poll_frames(const struct agent_ethtool_poll *p, struct agent_nic_pause **out,
			      size_t *n)
{
	size_t i, k, cap = 0;

	*out = NULL;
	*n = 0;
	for (i = 0; p && i < p->n; i++) {
		const struct agent_eth_dev *d = &p->devs[i];
		struct agent_nic_pause slot[2 * (AGENT_ETH_PRIOS + 1)];
		bool used[2 * (AGENT_ETH_PRIOS + 1)] = {false};
		unsigned int s;

		memset(slot, 0, sizeof(slot));
		for (k = 0; k < d->n; k++) {
			const struct agent_ethtool_class *c = &d->c[k].cls;

			if (c->kind != AGENT_ETH_FRAMES || c->total || c->dir == AGENT_ETH_DIR_NONE)
				continue;
			s = agent_eth_frames_slot(c);
			/* Two counters of the same frames (ice's xoff and pause): the larger. */
			if (used[s] && slot[s].frames >= d->c[k].value)
				continue;
			used[s] = true;
			slot[s].priority = c->priority;
			slot[s].dir = c->dir == AGENT_ETH_TX ? AGENT_NIC_TX : AGENT_NIC_RX;
			slot[s].frames = d->c[k].value;
		}
		for (s = 0; s < 2 * (AGENT_ETH_PRIOS + 1); s++) {
			struct agent_nic_pause *np;

			if (!used[s])
				continue;
			if (*n == cap) {
				size_t c = cap ? 2 * cap : 16;

				np = realloc(*out, c * sizeof(*np));
				if (!np) {
					free(*out);
					*out = NULL;
					*n = 0;
					return -ENOMEM;
				}
				*out = np;
				cap = c;
			}
			np = &(*out)[(*n)++];
			*np = slot[s];
			memcpy(np->netdev, d->name, sizeof(np->netdev));
		}
	}
	return 0;
}

void agent_ethtool_poll_free(struct agent_ethtool_poll *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->n; i++)
		free(p->devs[i].c);
	free(p->devs);
	agent_ethtool_stats_free(&p->st);
	if (p->fd >= 0)
		close(p->fd);
	free(p);
}

void agent_ethtool_poll_rails(struct agent_ethtool_poll *p, const struct agent_opts *o)
{
	struct if_nameindex *ifs, *i;

	if (!p)
		return;
	ifs = if_nameindex();
	if (!ifs) {
		rc_warn("pfc: NIC counters: listing netdevs: %s", strerror(errno));
		return;
	}
	for (i = ifs; i->if_index; i++) {
		int ret;

		if (agent_rail_of(o, i->if_name) < 0 || !strcmp(i->if_name, o->control_if))
			continue;
		ret = agent_ethtool_poll_add(p, i->if_name);
		if (ret < 0)
			rc_warn("pfc: %s: reading its ethtool statistics: %s", i->if_name,
				strerror(-ret));
	}
	if_freenameindex(ifs);
}
