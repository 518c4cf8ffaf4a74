/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mount_counts.h - the notification counters of kernel-patches 0024:
 * listmount() the caller's namespace, and statmount() a mount's own
 * counter and its superblock's.  Used by suite_recovery.c (a watcher
 * recovering from a lost record) and by the counter scenarios (a bystander
 * reading them).
 */
#ifndef WL_MOUNT_COUNTS_H
#define WL_MOUNT_COUNTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct wl_mount_counts {
	uint64_t mnt_id;	/* the 64-bit unique ID (statx STATX_MNT_ID_UNIQUE) */
	uint64_t sb_dev;	/* makedev(sb_dev_major, sb_dev_minor): st_dev */
	uint64_t mnt_count;	/* mount notifications about this mount */
	uint64_t sb_count;	/* superblock notifications about its superblock */
	/*
	 * Which counters came back: the kernel returns one only to a caller
	 * the LSMs would let watch what it counts (kernel-patches 0022).
	 */
	bool have_mnt, have_sb;
};

/*
 * The unique IDs of every mount in the caller's mount namespace, at most
 * max of them, in ascending order: their number, or -1 with errno set
 * (ENOSPC if there are more than max).
 */
int wl_listmount(uint64_t *ids, size_t max);

/*
 * Read a mount's counters.  0; or -1 with errno set by statmount(), or
 * EOPNOTSUPP if the kernel did not return both counters.
 */
int wl_mount_counts(uint64_t mnt_id, struct wl_mount_counts *out);

/*
 * As wl_mount_counts(), but a withheld counter is no error: have_mnt and
 * have_sb say which came back.  0, or -1 with errno set (statmount()'s).
 */
int wl_mount_counts_any(uint64_t mnt_id, struct wl_mount_counts *out);

/*
 * The counters of the mount whose mount point is path, found as a
 * bystander would: listmount() and statmount(STATMOUNT_MNT_POINT), never
 * touching the mount's own inodes (statx would need search and getattr on
 * them, which an LSM may refuse where statmount() is allowed).  The last
 * mount on path wins, and only it is asked for its counters, so the LSMs
 * judge one mount.  0, with have_mnt and have_sb saying which counters the
 * caller may read; or -1 with errno set (ENOENT: no such mount).
 */
int wl_mount_counts_by_point(const char *path, struct wl_mount_counts *out);

#endif /* WL_MOUNT_COUNTS_H */
