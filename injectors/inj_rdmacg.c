// SPDX-License-Identifier: MIT
/* Reading, writing and parsing the rdma cgroup's rdma.max and rdma.current (inj_rdmacg.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "injectors/inj_rdmacg.h"

int inj_rdmacg_read(const char *path, char *buf, size_t len)
{
	size_t off = 0;
	int fd, ret = 0;

	if (!len)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t n = read(fd, buf + off, len - 1 - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = -errno;
			break;
		}
		if (!n)
			break;
		off += (size_t)n;
		if (off == len - 1) {
			char c;

			if (read(fd, &c, 1) > 0)
				ret = -EFBIG;
			break;
		}
	}
	close(fd);
	buf[off] = '\0';
	return ret;
}

int inj_rdmacg_write(const char *path, const char *line)
{
	size_t n = strlen(line);
	ssize_t w;
	int fd, ret = 0;

	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	do
		w = write(fd, line, n);
	while (w < 0 && errno == EINTR);
	if (w < 0)
		ret = -errno;
	else if ((size_t)w != n)
		ret = -EIO;
	if (close(fd) && !ret)
		ret = -errno;
	return ret;
}

/* The length of the first word at p (up to a space or the line's end). */
static size_t inj_rdmacg_word(const char *p)
{
	return strcspn(p, " \t\n");
}

int inj_rdmacg_line(const char *text, const char *dev, char *line, size_t len)
{
	size_t dlen = strlen(dev);
	const char *p = text;

	while (*p) {
		size_t n = strcspn(p, "\n");

		if (inj_rdmacg_word(p) == dlen && !strncmp(p, dev, dlen)) {
			while (n && (p[n - 1] == ' ' || p[n - 1] == '\t' || p[n - 1] == '\r'))
				n--;
			if (n >= len)
				return -ENOSPC;
			memcpy(line, p, n);
			line[n] = '\0';
			return 0;
		}
		p += n;
		if (*p)
			p++;
	}
	return -ENOENT;
}

int inj_rdmacg_value(const char *line, const char *key, long long *v)
{
	size_t klen = strlen(key);
	const char *p = line + inj_rdmacg_word(line);

	while (*p) {
		size_t n;

		p += strspn(p, " \t");
		n = inj_rdmacg_word(p);
		if (n > klen && !strncmp(p, key, klen) && p[klen] == '=') {
			const char *val = p + klen + 1;
			size_t vlen = n - klen - 1;
			char *end;

			if (vlen == 3 && !strncmp(val, "max", 3)) {
				*v = INJ_RDMACG_MAX;
				return 0;
			}
			if (!vlen || val[0] < '0' || val[0] > '9')
				return -EINVAL;
			errno = 0;
			*v = strtoll(val, &end, 10);
			if (errno || end != val + vlen)
				return -EINVAL;
			return 0;
		}
		p += n;
	}
	return -ENOENT;
}

unsigned int inj_rdmacg_devices(const char *text, char (*devs)[INJ_RDMACG_DEV_LEN],
				unsigned int max)
{
	const char *p = text;
	unsigned int nr = 0;

	while (*p && nr < max) {
		size_t n = inj_rdmacg_word(p);

		if (n && n < INJ_RDMACG_DEV_LEN) {
			memcpy(devs[nr], p, n);
			devs[nr++][n] = '\0';
		}
		p += strcspn(p, "\n");
		if (*p)
			p++;
	}
	return nr;
}
