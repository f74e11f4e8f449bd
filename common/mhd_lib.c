// SPDX-License-Identifier: MIT
/* libmicrohttpd loaded on first use (mhd_lib.h). */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "common/mhd_lib.h"

struct rc_mhd_ops rc_mhd;

static pthread_once_t rc_mhd_once = PTHREAD_ONCE_INIT;
static int rc_mhd_ret;
static char rc_mhd_err[256];

/* Each member of rc_mhd and the symbol it is bound to, in the order of struct rc_mhd_ops. */
#define RC_MHD_SYM(member, sym)                                                                    \
	{                                                                                          \
		offsetof(struct rc_mhd_ops, member), #sym                                          \
	}
static const struct {
	size_t off;
	const char *sym;
} rc_mhd_syms[] = {
    RC_MHD_SYM(start_daemon, MHD_start_daemon),
    RC_MHD_SYM(stop_daemon, MHD_stop_daemon),
    RC_MHD_SYM(run, MHD_run),
    RC_MHD_SYM(get_timeout, MHD_get_timeout),
    RC_MHD_SYM(get_daemon_info, MHD_get_daemon_info),
    RC_MHD_SYM(get_connection_info, MHD_get_connection_info),
    RC_MHD_SYM(lookup_connection_value, MHD_lookup_connection_value),
    RC_MHD_SYM(create_response_from_buffer, MHD_create_response_from_buffer),
    RC_MHD_SYM(create_response_from_buffer_with_free_callback,
	       MHD_create_response_from_buffer_with_free_callback),
    RC_MHD_SYM(add_response_header, MHD_add_response_header),
    RC_MHD_SYM(queue_response, MHD_queue_response),
    RC_MHD_SYM(destroy_response, MHD_destroy_response),
    RC_MHD_SYM(get_version, MHD_get_version),
};

static void rc_mhd_do_load(void)
{
	struct rc_mhd_ops ops;
	void *h, *fn;
	size_t i;

	_Static_assert(sizeof(rc_mhd_syms) / sizeof(rc_mhd_syms[0]) * sizeof(void (*)(void)) ==
			   sizeof(struct rc_mhd_ops),
		       "every member of struct rc_mhd_ops has its symbol");
	h = dlopen(RC_MHD_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(rc_mhd_err, sizeof(rc_mhd_err),
			 "cannot load %s (%s): install libmicrohttpd12 (make deps)", RC_MHD_SONAME,
			 dlerror());
		rc_mhd_ret = -ENOENT;
		return;
	}
	for (i = 0; i < sizeof(rc_mhd_syms) / sizeof(rc_mhd_syms[0]); i++) {
		fn = dlsym(h, rc_mhd_syms[i].sym);
		if (!fn) {
			snprintf(rc_mhd_err, sizeof(rc_mhd_err),
				 "%s has no %s: too old a libmicrohttpd", RC_MHD_SONAME,
				 rc_mhd_syms[i].sym);
			rc_mhd_ret = -ENOSYS;
			dlclose(h);
			return;
		}
		memcpy((char *)&ops + rc_mhd_syms[i].off, &fn, sizeof(fn));
	}
	rc_mhd = ops;
}

int rc_mhd_load(char *err, size_t errlen)
{
	pthread_once(&rc_mhd_once, rc_mhd_do_load);
	if (rc_mhd_ret && err && errlen)
		snprintf(err, errlen, "%s", rc_mhd_err);
	return rc_mhd_ret;
}
