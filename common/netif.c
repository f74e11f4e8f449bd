// SPDX-License-Identifier: MIT
/* Interface name <-> index through one process-wide ioctl socket (see netif.h). */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/netif.h"

static int rc_netif_fd = -1;

/* The socket, made on first use; a racing thread's spare is closed. -1 with errno on failure. */
static int rc_netif_sock(void)
{
	int fd = __atomic_load_n(&rc_netif_fd, __ATOMIC_ACQUIRE), expect = -1;

	if (fd >= 0)
		return fd;
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (!__atomic_compare_exchange_n(&rc_netif_fd, &expect, fd, false, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE)) {
		close(fd);
		fd = expect;
	}
	return fd;
}

void rc_netif_warm(void)
{
	rc_netif_sock();
}

unsigned int rc_if_nametoindex(const char *name)
{
	struct ifreq ifr;
	int fd;

	if (strlen(name) >= sizeof(ifr.ifr_name)) {
		errno = ENODEV;
		return 0;
	}
	fd = rc_netif_sock();
	if (fd < 0)
		return 0;
	memset(&ifr, 0, sizeof(ifr));
	strcpy(ifr.ifr_name, name);
	if (ioctl(fd, SIOCGIFINDEX, &ifr) < 0)
		return 0;
	return (unsigned int)ifr.ifr_ifindex;
}

char *rc_if_indextoname(unsigned int ifindex, char *name)
{
	struct ifreq ifr;
	int fd = rc_netif_sock();

	if (fd < 0)
		return NULL;
	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_ifindex = (int)ifindex;
	if (ioctl(fd, SIOCGIFNAME, &ifr) < 0) {
		if (errno == ENODEV)
			errno = ENXIO;
		return NULL;
	}
	memcpy(name, ifr.ifr_name, IF_NAMESIZE);
	name[IF_NAMESIZE - 1] = '\0';
	return name;
}
