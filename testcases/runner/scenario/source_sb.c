// SPDX-License-Identifier: GPL-2.0
/*
 * source_sb.c - superblock scenarios: a tmpfs, a tmpfs with a user quota,
 * or a small ext2 image mounted as ext4 on a loop device (errors=continue,
 * so an error is reported and ext4 goes on), optionally with a corrupt
 * directory.  In a watch-via row the object is a tmpfs the triggerer
 * mounts in its own user and mount namespaces.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/fiemap.h>

#include "scenario_run.h"
#include "scenario_source.h"
#include "vfs_util.h"
#include "wl.h"

/* <linux/fs.h>'s, which clashes with <sys/mount.h>. */
#ifndef FS_IOC_FIEMAP
#define FS_IOC_FIEMAP _IOWR('f', 11, struct fiemap)
#endif

static int ext4_mount(const struct scn_ctx *c)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "mount -t ext4 -o loop,errors=continue %s.img %s",
		 c->dir, c->dir);
	return wl_sh(cmd);
}

/*
 * sb-ext4-bad-dir: the image gets a directory bad/ with a zeroed first
 * block, so whoever lists it (any uid: bad/ is 0755) makes ext4 report
 * "rec_len is smaller than minimal" through ext4_error_file().  The block
 * is found with FIEMAP while mounted and zeroed in the image unmounted.
 */
static int ext4_bad_dir(const struct scn_ctx *c)
{
	struct {
		struct fiemap fm;
		struct fiemap_extent fe;
	} map = { .fm = { .fm_length = ~0ULL, .fm_flags = FIEMAP_FLAG_SYNC,
			  .fm_extent_count = 1 } };
	static const char zero[1024];
	char path[96], img[80];
	int fd;

	snprintf(path, sizeof(path), "%s/bad", c->dir);
	snprintf(img, sizeof(img), "%s.img", c->dir);
	if (wl_mkdir(path))
		return -1;
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || ioctl(fd, FS_IOC_FIEMAP, &map) || map.fm.fm_mapped_extents != 1) {
		wl_diag("FIEMAP %s: %u extents: %s", path, map.fm.fm_mapped_extents,
			strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	if (umount2(c->dir, 0)) {
		wl_diag("umount %s: %s", c->dir, strerror(errno));
		return -1;
	}
	fd = open(img, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || pwrite(fd, zero, sizeof(zero), (off_t)map.fe.fe_physical) !=
	    sizeof(zero)) {
		wl_diag("zero %s at %llu: %s", img, (unsigned long long)map.fe.fe_physical,
			strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	return ext4_mount(c);
}

static int sb_setup(struct scn_ctx *c)
{
	unsigned int minor;
	struct stat st;
	char cmd[256];

	if (strcmp(c->s->object, "sb-quota") == 0)
		return scn_tmpfs_at(c, c->dir, "usrquota,usrquota_block_hardlimit=64k", false);
	if (strcmp(c->s->object, "sb") == 0)
		return scn_tmpfs_at(c, c->dir, NULL, false);
	/* sb-ext4*: a small ext2 image mounted as ext4 on a loop device */
	snprintf(cmd, sizeof(cmd), /* dir is short: FIXTURE_BASE/pid */
		 "dd if=/dev/zero of=%s.img bs=1k count=2048 2>/dev/null && "
		 "mke2fs -F -b 1024 %s.img >/dev/null 2>&1", c->dir, c->dir);
	if (wl_mkdir(c->dir) || wl_sh(cmd) || ext4_mount(c))
		return -1;
	if (strcmp(c->s->object, "sb-ext4-bad-dir") == 0 && ext4_bad_dir(c))
		return -1;
	if (stat(c->dir, &st)) {
		wl_diag("stat %s: %s", c->dir, strerror(errno));
		return -1;
	}
	minor = st.st_dev & 0xff;
	snprintf(c->attr, sizeof(c->attr), "/sys/fs/ext4/loop%u", minor);
	return chmod(c->dir, 01777) ? -1 : 0;
}

/* watch-via trigger: a tmpfs of T's own, in T's user and mount namespaces. */
static int sb_ns_setup(struct scn_ctx *c)
{
	return scn_tmpfs_at(c, c->dir, NULL, false);
}

static long sb_watch(struct scn_ctx *c, int qfd, int watch_id)
{
	char path[128];

	scn_object_path(c, path, sizeof(path));
	return wl_watch_sb(AT_FDCWD, path, 0, qfd, watch_id);
}

const struct scn_source_ops scn_sb_source = {
	.setup = sb_setup,
	.ns_setup = sb_ns_setup,
	.watch = sb_watch,
	.teardown = scn_mount_teardown,
};

/* ---- actions ---- */

int scn_sb_exceed_quota(struct scn_ctx *c)
{
	static char buf[4096];
	char path[96];
	ssize_t n = 0;
	int fd;

	snprintf(path, sizeof(path), "%s/big-%u", c->dir, (unsigned int)getuid());
	fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	if (fd < 0) {
		wl_diag("triggerer: create %s: %s", path, strerror(errno));
		return -1;
	}
	memset(buf, 'q', sizeof(buf));
	for (int i = 0; i < 64 && n >= 0; i++)
		n = write(fd, buf, sizeof(buf));
	close(fd);
	if (n >= 0 || errno != EDQUOT) {
		wl_diag("triggerer: wrote 256k past a 64k quota without EDQUOT");
		return -1;
	}
	return 0;
}

int scn_sb_remount_ro(struct scn_ctx *c)
{
	if (mount(NULL, c->dir, NULL, MS_REMOUNT | MS_RDONLY, NULL)) {
		wl_diag("triggerer: remount %s ro: %s", c->dir, strerror(errno));
		return -1;
	}
	return 0;
}

int scn_sb_fs_error(struct scn_ctx *c)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "%s/trigger_fs_error", c->attr);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, "watchlab", 8) != 8) {
		wl_diag("triggerer: write %s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

/* The count of errors ext4 has reported on the fixture (sb-ext4*). */
static long ext4_errors(const struct scn_ctx *c)
{
	char path[128], buf[24];

	snprintf(path, sizeof(path), "%s/errors_count", c->attr);
	return wl_read_file(path, buf, sizeof(buf)) > 0 ? strtol(buf, NULL, 10) : -1;
}

/*
 * sb-ext4-bad-dir: list bad/, whose first block is zeroed.  ext4_readdir()
 * reports the bad entry and skips the block, so the listing itself ends
 * without error: the error count says the error was raised.
 */
int scn_sb_read_bad_dir(struct scn_ctx *c)
{
	long before = ext4_errors(c), after;
	char path[96];
	DIR *d;

	snprintf(path, sizeof(path), "%s/bad", c->dir);
	d = opendir(path);
	if (!d) {
		wl_diag("triggerer: opendir %s: %s", path, strerror(errno));
		return -1;
	}
	while (readdir(d))
		;
	closedir(d);
	after = ext4_errors(c);
	if (before < 0 || after <= before) {
		wl_diag("triggerer: listing %s raised no ext4 error (errors_count %ld -> %ld)",
			path, before, after);
		return -1;
	}
	return 0;
}
