// SPDX-License-Identifier: GPL-2.0
/*
 * mount_counts.c - listmount() and statmount() for the notification
 * counters (kernel-patches 0024).  glibc 2.36 wraps neither call.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <linux/mount.h>

#include "mount_counts.h"

#if !defined(STATMOUNT_MNT_NOTIFY_COUNT) || !defined(STATMOUNT_SB_NOTIFY_COUNT)
#error "build against the patched kernel's UAPI headers (kernel-patches 0024)"
#endif

#define WL_COUNT_MASK (STATMOUNT_MNT_NOTIFY_COUNT | STATMOUNT_SB_NOTIFY_COUNT)

int wl_listmount(uint64_t *ids, size_t max)
{
	struct mnt_id_req req = {
		.size = MNT_ID_REQ_SIZE_VER0,
		.mnt_id = LSMT_ROOT,
	};
	size_t n = 0;

	for (;;) {
		long got;

		if (n == max) {
			/* Full: one more call tells whether anything is left. */
			uint64_t spare;

			got = syscall(__NR_listmount, &req, &spare, 1, 0);
			if (got < 0)
				return -1;
			if (got) {
				errno = ENOSPC;
				return -1;
			}
			return (int)n;
		}
		got = syscall(__NR_listmount, &req, ids + n, max - n, 0);
		if (got < 0)
			return -1;
		if (!got)
			return (int)n;
		n += got;
		req.param = ids[n - 1];
	}
}

/*
 * statmount() mnt_id into sm (size bytes, room for the strings asked for)
 * with want, and its counters into out; 0, or -1 with errno set
 * (EOPNOTSUPP: the kernel did not return everything asked for).
 */
static int stat_counts(uint64_t mnt_id, uint64_t want, struct statmount *sm, size_t size,
		       struct wl_mount_counts *out)
{
	struct mnt_id_req req = {
		.size = MNT_ID_REQ_SIZE_VER0,
		.mnt_id = mnt_id,
		.param = STATMOUNT_SB_BASIC | WL_COUNT_MASK | want,
	};

	if (syscall(__NR_statmount, &req, sm, size, 0))
		return -1;
	if ((sm->mask & (WL_COUNT_MASK | want)) != (WL_COUNT_MASK | want)) {
		errno = EOPNOTSUPP;
		return -1;
	}
	out->mnt_id = mnt_id;
	out->sb_dev = makedev(sm->sb_dev_major, sm->sb_dev_minor);
	out->mnt_count = sm->mnt_notify_count;
	out->sb_count = sm->sb_notify_count;
	return 0;
}

int wl_mount_counts(uint64_t mnt_id, struct wl_mount_counts *out)
{
	struct statmount sm;

	return stat_counts(mnt_id, 0, &sm, sizeof(sm), out);
}

int wl_mount_counts_by_point(const char *path, struct wl_mount_counts *out)
{
	enum { MAX_IDS = 512, SM_SIZE = 8192 };
	uint64_t *ids = calloc(MAX_IDS, sizeof(*ids));
	struct statmount *sm = malloc(SM_SIZE);
	int n, found = 0, err = ENOENT;

	if (!ids || !sm) {
		err = ENOMEM;
		goto out;
	}
	n = wl_listmount(ids, MAX_IDS);
	if (n < 0) {
		err = errno;
		goto out;
	}
	for (int i = 0; i < n; i++) {
		struct wl_mount_counts c;

		if (stat_counts(ids[i], STATMOUNT_MNT_POINT, sm, SM_SIZE, &c)) {
			/* Another mount refused or gone: not the one asked for. */
			if (errno != ENOENT && errno != EACCES && errno != EPERM) {
				err = errno;
				found = 0;
				goto out;
			}
			if (errno != ENOENT)
				err = errno;
			continue;
		}
		if (strcmp(sm->str + sm->mnt_point, path) == 0) {
			*out = c;
			found = 1;
		}
	}
out:
	free(ids);
	free(sm);
	if (found)
		return 0;
	errno = err;
	return -1;
}
