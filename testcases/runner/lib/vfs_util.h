/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vfs_util.h - helpers for the mount and superblock suites: the
 * watch_mount/watch_sb system calls, mount ids and private tmpfs mounts.
 */
#ifndef WL_VFS_UTIL_H
#define WL_VFS_UTIL_H

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "wl.h"

/* The numbers come from the patched tree's installed UAPI headers only. */
#if !defined(__NR_watch_mount) || !defined(__NR_watch_sb)
#error "build against the patched kernel's UAPI headers (make guest)"
#endif
/* The __fput() creds switch (kernel-patches 0002): 1 on, 0 off. */
#define WL_FPUT_SYSCTL "/proc/sys/fs/fput_creds"

#ifndef STATX_MNT_ID
#define STATX_MNT_ID 0x00001000U
#endif
#ifndef STATX_MNT_ID_UNIQUE
#define STATX_MNT_ID_UNIQUE 0x00004000U
#endif

/* A queue on this test's transport: the pipe, or the ring in a *_ring suite. */
static inline int wl_vfs_queue_open(unsigned int nrecords)
{
	return wl_queue_open(wl_transport(), nrecords);
}

static inline long wl_watch_mount(int dfd, const char *path, unsigned int at_flags,
				  int watch_fd, int watch_id)
{
	return syscall(__NR_watch_mount, dfd, path, at_flags, watch_fd, watch_id);
}

static inline long wl_watch_sb(int dfd, const char *path, unsigned int at_flags,
			       int watch_fd, int watch_id)
{
	return syscall(__NR_watch_sb, dfd, path, at_flags, watch_fd, watch_id);
}

/* One bad call of watch_mount() or watch_sb() and the errno it must fail with. */
struct wl_vfs_bad_call {
	const char *what;
	int dfd;
	const char *path;
	unsigned int flags;
	int wfd, id, err;
};

typedef long (*wl_vfs_watch_fn)(int dfd, const char *path, unsigned int at_flags,
				int watch_fd, int watch_id);

/* Make each call; 0 if all failed as they must, else 1 (each diagnosed). */
static inline int wl_vfs_bad_calls(wl_vfs_watch_fn call, const struct wl_vfs_bad_call *c,
				   size_t n)
{
	int bad = 0;

	for (size_t i = 0; i < n; i++)
		if (wl_want_errno(c[i].what, call(c[i].dfd, c[i].path, c[i].flags, c[i].wfd,
						  c[i].id), c[i].err))
			bad = 1;
	return bad;
}

/* The mountinfo ID (unique = false) or the 64-bit unique ID of a path's mount. */
static inline unsigned long long wl_mnt_id(const char *path, bool unique)
{
	struct statx stx;

	if (statx(AT_FDCWD, path, 0, unique ? STATX_MNT_ID_UNIQUE : STATX_MNT_ID,
		  &stx)) {
		wl_diag("statx(%s): %s", path, strerror(errno));
		return 0;
	}
	return stx.stx_mnt_id;
}

static inline int wl_mkdir(const char *path)
{
	if (mkdir(path, 0755) && errno != EEXIST) {
		wl_diag("mkdir %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * Mount a tmpfs on path (creating it) with optional data; its propagation is
 * what a new mount gets there (private below a private mount).
 */
static inline int wl_tmpfs_here(const char *path, const char *data)
{
	if (wl_mkdir(path))
		return -1;
	if (mount("wltmp", path, "tmpfs", 0, data)) {
		wl_diag("mount tmpfs on %s (%s): %s", path, data ? data : "", strerror(errno));
		return -1;
	}
	return 0;
}

/* mount a private tmpfs on path (creating it) with optional data. */
static inline int wl_tmpfs(const char *path, const char *data)
{
	if (wl_tmpfs_here(path, data))
		return -1;
	if (mount(NULL, path, NULL, MS_PRIVATE, NULL)) {
		wl_diag("make %s private: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* A private tmpfs on path with n tmpfs submounts, path/s0 to path/s<n-1>. */
static inline int wl_tmpfs_tree(const char *path, unsigned int n)
{
	char sub[256];

	if (wl_tmpfs(path, NULL))
		return -1;
	for (unsigned int i = 0; i < n; i++) {
		snprintf(sub, sizeof(sub), "%s/s%u", path, i);
		if (wl_tmpfs_here(sub, NULL))
			return -1;
	}
	return 0;
}

#endif /* WL_VFS_UTIL_H */
