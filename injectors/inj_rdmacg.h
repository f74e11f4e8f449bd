/* SPDX-License-Identifier: MIT */
/*
 * The rdma cgroup's control files, as mr_failure reads and writes them:
 * rdma.max and rdma.current list one line per RDMA device,
 * "DEV hca_handle=N hca_object=M" (N, M a count, or "max" in rdma.max). A
 * write sets one device and only the keys it names: "DEV hca_object=5" keeps
 * that device's hca_handle and every other device's line. Reading and
 * writing are separate functions (in their own file) so that tests can fake
 * the kernel's merging of a write into the file (-Wl,--wrap).
 */
#ifndef INJ_RDMACG_H
#define INJ_RDMACG_H

#include <stddef.h>

#define INJ_RDMACG_LINE 256   /* a device's line, NUL included */
#define INJ_RDMACG_FILE 8192  /* a whole file */
#define INJ_RDMACG_DEV_LEN 64 /* a device name, NUL included */
#define INJ_RDMACG_MAX (-1LL) /* the value "max" */

/* The whole file at path into buf (NUL-terminated). 0, -errno, or -EFBIG when it does not fit. */
int inj_rdmacg_read(const char *path, char *buf, size_t len);
/* Writes line to the file at path (which must exist) in one write(2). 0 or -errno. */
int inj_rdmacg_write(const char *path, const char *line);
/* Device dev's line of text into line (no newline). 0, -ENOENT when dev has none, -ENOSPC. */
int inj_rdmacg_line(const char *text, const char *dev, char *line, size_t len);
/* key's value ("hca_object") in a device line: a count or INJ_RDMACG_MAX. 0, -ENOENT, -EINVAL. */
int inj_rdmacg_value(const char *line, const char *key, long long *v);
/* The devices text lists, in order, up to max of them; their number. */
unsigned int inj_rdmacg_devices(const char *text, char (*devs)[INJ_RDMACG_DEV_LEN],
				unsigned int max);

#endif
