// SPDX-License-Identifier: GPL-2.0
/*
 * mount_counts.c - listmount() and statmount() for the notification
 * counters (kernel-patches 0022).  glibc 2.36 wraps neither call.
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
#error "build against the patched kernel's UAPI headers (kernel-patches 0022)"
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
 * with param; 0, or -1 with errno set.
 */
static int stat_mount(uint64_t mnt_id, uint64_t param, struct statmount *sm, size_t size)
{
	struct mnt_id_req req = {
		.size = MNT_ID_REQ_SIZE_VER0,
		.mnt_id = mnt_id,
		.param = param,
	};

	return syscall(__NR_statmount, &req, sm, size, 0) ? -1 : 0;
}

/* A mount's counters, as many as the kernel returned; 0, or -1 with errno set. */
static int stat_counts(uint64_t mnt_id, struct wl_mount_counts *out)
{
	struct statmount sm;

	if (stat_mount(mnt_id, STATMOUNT_SB_BASIC | WL_COUNT_MASK, &sm, sizeof(sm)))
		return -1;
	out->mnt_id = mnt_id;
	out->sb_dev = makedev(sm.sb_dev_major, sm.sb_dev_minor);
	out->have_mnt = sm.mask & STATMOUNT_MNT_NOTIFY_COUNT;
	out->have_sb = sm.mask & STATMOUNT_SB_NOTIFY_COUNT;
	out->mnt_count = out->have_mnt ? sm.mnt_notify_count : 0;
	out->sb_count = out->have_sb ? sm.sb_notify_count : 0;
	return 0;
}

int wl_mount_counts_any(uint64_t mnt_id, struct wl_mount_counts *out)
{
	return stat_counts(mnt_id, out);
}

int wl_mount_counts(uint64_t mnt_id, struct wl_mount_counts *out)
{
	if (stat_counts(mnt_id, out))
		return -1;
	if (!out->have_mnt || !out->have_sb) {
		errno = EOPNOTSUPP;
		return -1;
	}
	return 0;
}

int wl_mount_counts_by_point(const char *path, struct wl_mount_counts *out)
{
	enum { MAX_IDS = 512, SM_SIZE = 8192 };
	uint64_t *ids = calloc(MAX_IDS, sizeof(*ids));
	struct statmount *sm = malloc(SM_SIZE);
	uint64_t found = 0;
	int n, err = ENOENT;

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
		if (stat_mount(ids[i], STATMOUNT_MNT_POINT, sm, SM_SIZE)) {
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
		if (strcmp(sm->str + sm->mnt_point, path) == 0)
			found = ids[i];
	}
	if (found && stat_counts(found, out)) {
		err = errno;
		found = 0;
	}
out:
	free(ids);
	free(sm);
	if (found)
		return 0;
	errno = err;
	return -1;
}
