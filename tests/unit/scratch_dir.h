/* SPDX-License-Identifier: MIT */
/*
 * A unit test's scratch directory under /tmp, the files it puts there (a fake /sys, /proc, state
 * dir or config) and the tree's removal: list scratch_dir in the test's .fixtures file. The put
 * and mkdir calls fail the test on error; make and remove return 0 or -errno, for setups and
 * teardowns that report rather than assert.
 */
#ifndef TEST_SCRATCH_DIR_H
#define TEST_SCRATCH_DIR_H

#include <stddef.h>
#include <sys/types.h>

/*
 * dir becomes a new /tmp/rc-WHAT-XXXXXX, mode 0700; -ENAMETOOLONG when len cannot hold it
 * (16 + strlen(what) bytes).
 */
int scratch_make(char *dir, size_t len, const char *what);
/* path = root/rel, with rel's missing parent directories made (for a link, a socket). */
void scratch_path(const char *root, const char *rel, char *path, size_t len);
/* root/rel, its missing parent directories made first, holding text, with mode. */
void scratch_put(const char *root, const char *rel, const char *text, mode_t mode);
/* root/rel and its missing parents; rel itself must not exist yet. */
void scratch_mkdir(const char *root, const char *rel);
/* The tree at dir, symbolic links removed and not followed; a dir already gone is 0. */
int scratch_remove(const char *dir);

#endif
