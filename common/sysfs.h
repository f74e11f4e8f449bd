/* SPDX-License-Identifier: MIT */
/* Small sysfs readers, and the links sysfs keeps between RDMA devices and netdevs (common/sysfs.c).
 */
#ifndef RC_SYSFS_H
#define RC_SYSFS_H
#include <stddef.h>
#include <stdint.h>

/* The sysfs root ("/sys"); tests point it at a fake tree. */
extern const char *rc_sysfs_root;
/* Reads a small file, strips trailing whitespace. 0 or -errno. */
int rc_sysfs_read(const char *path, char *buf, size_t len);
int rc_sysfs_u64(const char *path, uint64_t *v);
/* The netdev under RDMA device dev's port (RoCE/iWARP); -ENODEV if none. */
int rc_ib_port_netdev(const char *dev, int port, char *netdev, size_t len);
/* The RDMA device and port on netdev, if any; -ENODEV otherwise. */
int rc_ib_device_of(const char *netdev, char *dev, size_t len, int *port);

#endif
