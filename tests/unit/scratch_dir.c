// SPDX-License-Identifier: MIT
/* A unit test's scratch directory: made, filled, removed (scratch_dir.h). */
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "tests/unit/scratch_dir.h"

int scratch_make(char *dir, size_t len, const char *what)
{
	int n = snprintf(dir, len, "/tmp/rc-%s-XXXXXX", what); /* the Xs are mkdtemp's */

	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	return mkdtemp(dir) ? 0 : -errno;
}

void scratch_path(const char *root, const char *rel, char *path, size_t len)
{
	size_t skip = strlen(root) + 1;
	char *slash;
	int n;

	n = snprintf(path, len, "%s/%s", root, rel);
	assert_true(n > 0 && (size_t)n < len);
	for (slash = strchr(path + skip, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		if (mkdir(path, 0755) && errno != EEXIST)
			fail_msg("mkdir %s: %s", path, strerror(errno));
		*slash = '/';
	}
}

void scratch_put(const char *root, const char *rel, const char *text, mode_t mode)
{
	char path[PATH_MAX];
	FILE *f;

	scratch_path(root, rel, path, sizeof(path));
	f = fopen(path, "w");
	if (!f)
		fail_msg("open %s: %s", path, strerror(errno));
	assert_true(fputs(text, f) >= 0);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(path, mode), 0);
}

void scratch_mkdir(const char *root, const char *rel)
{
	char path[PATH_MAX];

	scratch_path(root, rel, path, sizeof(path));
	if (mkdir(path, 0755))
		fail_msg("mkdir %s: %s", path, strerror(errno));
}

static int scratch_remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path) ? -errno : 0;
}

int scratch_remove(const char *dir)
{
	int ret = nftw(dir, scratch_remove_one, 16, FTW_DEPTH | FTW_PHYS);

	if (ret == -1)
		return errno == ENOENT ? 0 : -errno;
	return ret;
}
