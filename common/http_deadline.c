// SPDX-License-Identifier: MIT
/* A whole-request deadline for libmicrohttpd connections (http_deadline.h). */
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "common/http_deadline.h"
#include "common/mhd_lib.h"
#include "common/units.h"

/* One open connection; its socket_context. */
struct rc_http_conn {
	struct rc_http_conn *prev, *next;
	int fd;
	ino_t ino;	 /* the socket's identity: fd alone may be reused */
	uint64_t due_ns; /* its request must be answered by then */
	bool cut;	 /* shut down once already */
};

struct rc_http_deadline {
	pthread_mutex_t lock;
	struct rc_http_conn *head;
	uint64_t limit_ns;
	unsigned int cut;
};

struct rc_http_deadline *rc_http_deadline_new(uint64_t limit_ns)
{
	struct rc_http_deadline *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	pthread_mutex_init(&d->lock, NULL);
	d->limit_ns = limit_ns;
	return d;
}

void rc_http_deadline_free(struct rc_http_deadline *d)
{
	struct rc_http_conn *e, *next;

	if (!d)
		return;
	for (e = d->head; e; e = next) { /* none once MHD_stop_daemon() has notified every close */
		next = e->next;
		free(e);
	}
	pthread_mutex_destroy(&d->lock);
	free(d);
}

void rc_http_deadline_notify(void *cls, struct MHD_Connection *c, void **socket_context,
			     enum MHD_ConnectionNotificationCode toe)
{
	struct rc_http_deadline *d = cls;
	struct rc_http_conn *e = *socket_context;
	const union MHD_ConnectionInfo *info;
	struct stat st;

	if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
		info = rc_mhd.get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
		if (!info || fstat(info->connect_fd, &st))
			return; /* untracked: the idle timeout still applies */
		e = calloc(1, sizeof(*e));
		if (!e)
			return;
		e->fd = info->connect_fd;
		e->ino = st.st_ino;
		pthread_mutex_lock(&d->lock);
		e->due_ns = rc_now_ns() + d->limit_ns;
		e->next = d->head;
		if (d->head)
			d->head->prev = e;
		d->head = e;
		pthread_mutex_unlock(&d->lock);
		*socket_context = e;
		return;
	}
	if (!e)
		return;
	pthread_mutex_lock(&d->lock);
	if (e->prev)
		e->prev->next = e->next;
	else
		d->head = e->next;
	if (e->next)
		e->next->prev = e->prev;
	pthread_mutex_unlock(&d->lock);
	free(e);
	*socket_context = NULL;
}

void rc_http_deadline_answered(struct rc_http_deadline *d, struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *info =
	    rc_mhd.get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	struct rc_http_conn *e = info ? info->socket_context : NULL;

	if (!e)
		return;
	pthread_mutex_lock(&d->lock);
	e->due_ns = rc_now_ns() + d->limit_ns;
	pthread_mutex_unlock(&d->lock);
}

unsigned int rc_http_deadline_sweep(struct rc_http_deadline *d, uint64_t now_ns, uint64_t *next_ns)
{
	struct rc_http_conn *e;
	unsigned int n = 0;
	uint64_t next = 0;
	struct stat st;

	pthread_mutex_lock(&d->lock);
	for (e = d->head; e; e = e->next) {
		if (e->cut)
			continue;
		if (e->due_ns > now_ns) {
			if (!next || e->due_ns < next)
				next = e->due_ns;
			continue;
		}
		/* Under the lock, before the close is notified: the fd is still this socket. */
		if (!fstat(e->fd, &st) && st.st_ino == e->ino && !shutdown(e->fd, SHUT_RDWR)) {
			n++;
			d->cut++;
		}
		e->cut = true;
	}
	pthread_mutex_unlock(&d->lock);
	if (next_ns)
		*next_ns = next;
	return n;
}

unsigned int rc_http_deadline_cut(struct rc_http_deadline *d)
{
	unsigned int n;

	pthread_mutex_lock(&d->lock);
	n = d->cut;
	pthread_mutex_unlock(&d->lock);
	return n;
}
