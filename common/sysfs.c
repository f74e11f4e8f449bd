// SPDX-License-Identifier: MIT
/*
 * Small sysfs readers, and the links sysfs keeps between RDMA devices and
 * netdevs. The root is a variable so tests can point it at a fake tree.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <net/if.h>

#include "common/sysfs.h"

const char *rc_sysfs_root = "/sys";

int rc_sysfs_read(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd;

	if (!len)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	close(fd);
	while (n > 0 && isspace((unsigned char)buf[n - 1]))
		n--;
	buf[n] = '\0';
	return 0;
}

int rc_sysfs_u64(const char *path, uint64_t *v)
{
	char buf[64], *end;
	int ret = rc_sysfs_read(path, buf, sizeof(buf));

	if (ret)
		return ret;
	errno = 0;
	*v = strtoull(buf, &end, 0);
	if (errno || end == buf || *end)
		return -EINVAL;
	return 0;
}

/* The first directory entry that is not a dot file, e.g. the one netdev under device/net. */
static int agent_first_entry(const char *dir, char *name, size_t len)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int ret = -ENODEV;

	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(name, len, "%s", e->d_name);
		ret = 0;
		break;
	}
	closedir(d);
	return ret;
}

int rc_ib_port_netdev(const char *dev, int port, char *netdev, size_t len)
{
	char path[512];
	int idx;

	/* RoCE: every GID entry of the port names its netdev; the first populated one will do. */
	for (idx = 0; idx < 16; idx++) {
		snprintf(path, sizeof(path), "%s/class/infiniband/%s/ports/%d/gid_attrs/ndevs/%d",
			 rc_sysfs_root, dev, port, idx);
		if (!rc_sysfs_read(path, netdev, len) && netdev[0])
			return 0;
	}
	/* rxe and siw name their netdev in `parent`; hardware has device/net/<netdev>. */
	snprintf(path, sizeof(path), "%s/class/infiniband/%s/parent", rc_sysfs_root, dev);
	if (!rc_sysfs_read(path, netdev, len) && netdev[0])
		return 0;
	snprintf(path, sizeof(path), "%s/class/infiniband/%s/device/net", rc_sysfs_root, dev);
	return agent_first_entry(path, netdev, len) ? -ENODEV : 0;
}

int rc_ib_device_of(const char *netdev, char *dev, size_t len, int *port)
{
	char path[512], nd[IF_NAMESIZE];
	struct dirent *e, *pe;
	DIR *d, *pd;
	int ret = -ENODEV;

	snprintf(path, sizeof(path), "%s/class/infiniband", rc_sysfs_root);
	d = opendir(path);
	if (!d)
		return -ENODEV;
	while (ret && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/class/infiniband/%s/ports", rc_sysfs_root,
			 e->d_name);
		pd = opendir(path);
		if (!pd)
			continue;
		while ((pe = readdir(pd))) {
			int p = atoi(pe->d_name);

			if (p <= 0 || rc_ib_port_netdev(e->d_name, p, nd, sizeof(nd)) ||
			    strcmp(nd, netdev))
				continue;
			snprintf(dev, len, "%s", e->d_name);
			*port = p;
			ret = 0;
			break;
		}
		closedir(pd);
	}
	closedir(d);
	return ret;
}
