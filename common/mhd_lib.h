/* SPDX-License-Identifier: MIT */
/*
 * libmicrohttpd, loaded when a program first serves HTTP (the agent's --metrics-listen, the
 * coordinator's alert receiver) rather than at every start. Debian's libmicrohttpd links GnuTLS,
 * which with its own libraries (p11-kit, nettle, gmp, libunistring, ...) put 2.4 MiB of shared
 * pages into every agent's RSS and a second TLS stack into a root daemon that serves plain HTTP
 * at most (issue 17: an agent idle under 8 MiB). Call the functions through rc_mhd once
 * rc_mhd_load() returned 0; their types are the header's own.
 */
#ifndef RC_MHD_LIB_H
#define RC_MHD_LIB_H

#include <microhttpd.h>
#include <stddef.h>

/* The ABI of libmicrohttpd 0.9.x: Debian's libmicrohttpd12. */
#define RC_MHD_SONAME "libmicrohttpd.so.12"

struct rc_mhd_ops {
	__typeof__(&MHD_start_daemon) start_daemon;
	__typeof__(&MHD_stop_daemon) stop_daemon;
	__typeof__(&MHD_run) run;
	__typeof__(&MHD_get_timeout) get_timeout;
	__typeof__(&MHD_get_daemon_info) get_daemon_info;
	__typeof__(&MHD_get_connection_info) get_connection_info;
	__typeof__(&MHD_lookup_connection_value) lookup_connection_value;
	__typeof__(&MHD_create_response_from_buffer) create_response_from_buffer;
	__typeof__(&MHD_create_response_from_buffer_with_free_callback)
	    create_response_from_buffer_with_free_callback;
	__typeof__(&MHD_add_response_header) add_response_header;
	__typeof__(&MHD_queue_response) queue_response;
	__typeof__(&MHD_destroy_response) destroy_response;
	__typeof__(&MHD_get_version) get_version;
};

/* Valid after rc_mhd_load() returned 0; never unloaded. */
extern struct rc_mhd_ops rc_mhd;

/*
 * Loads the library and every function above, once (thread-safe; later calls return the first
 * result). 0, or -ENOENT / -ENOSYS with err saying what is missing and what to install.
 */
int rc_mhd_load(char *err, size_t errlen);

#endif
