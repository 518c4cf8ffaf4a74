// SPDX-License-Identifier: GPL-2.0
/*
 * suite_sb.c - superblock notifications (watch_sb(), kernel-patches 0006):
 * read-only toggles, EDQUOT from tmpfs quotas, ext4 errors, removal when
 * the superblock dies or on request, and the errno of every bad argument.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
/* glibc's <fcntl.h> already defines what <linux/fcntl.h> would redefine. */
#define _LINUX_FCNTL_H
#include <linux/watch_queue.h>

#include "vfs_util.h"
#include "wl.h"

/* Scratch mount point: a fresh tmpfs for suite_sb's tests (its fixture). */
#define SB_BASE "/tmp/wlsb"

static void sb_teardown(void)
{
	umount2(SB_BASE, MNT_DETACH);
}

static int sb_setup(void)
{
	sb_teardown();
	return wl_tmpfs(SB_BASE, NULL);
}

static unsigned long long sb_id_of(const char *path)
{
	struct stat st;

	if (stat(path, &st)) {
		wl_diag("stat %s: %s", path, strerror(errno));
		return 0;
	}
	return st.st_dev;
}

/* Read the next record and check it is the superblock event described. */
static int expect_sb(int fd, const char *what, unsigned int subtype,
		     unsigned int watch_id, unsigned int flags, unsigned int noflags,
		     unsigned long long sb_id, struct wl_record *out)
{
	struct superblock_notification sn;
	struct wl_record rec;
	int r = wl_wq_expect(fd, WATCH_TYPE_SB_NOTIFY, subtype, &rec,
			     WL_EVENT_TIMEOUT_MS * 4);

	if (r <= 0) {
		wl_diag("%s: no superblock record of subtype %u arrived", what, subtype);
		return -1;
	}
	memcpy(&sn, rec.data, sizeof(sn));
	if (rec.watch_id != watch_id || (rec.info & flags) != flags ||
	    (rec.info & noflags) || sn.sb_id != sb_id) {
		wl_diag("%s: got watch %u info %#x sb_id %#llx, want watch %u flags %#x not %#x sb_id %#llx",
			what, rec.watch_id, rec.info, (unsigned long long)sn.sb_id,
			watch_id, flags, noflags, sb_id);
		return -1;
	}
	if (out)
		*out = rec;
	return 0;
}

/*
 * A queue on this test's transport watching SB_BASE's superblock, whose id
 * goes to *id; -1 diagnosed.
 */
static int sb_watched_queue(int watch_id, unsigned long long *id)
{
	int fd;

	*id = sb_id_of(SB_BASE);
	fd = wl_vfs_queue_open(64);

	if (fd < 0)
		return -1;
	if (wl_watch_sb(AT_FDCWD, SB_BASE, 0, fd, watch_id)) {
		wl_diag("watch_sb(%s, %#x): %s", SB_BASE, watch_id, strerror(errno));
		wl_wq_close(fd);
		return -1;
	}
	return fd;
}

static int sb_expect_nothing(int fd, const char *after)
{
	return wl_wq_expect_none(fd, after, WL_EVENT_TIMEOUT_MS / 2);
}

/* Superblock remount r/o and back. */
static enum wl_result readonly_toggle(void)
{
	unsigned long long id;
	struct wl_record rec;
	int fd;

	fd = sb_watched_queue(0x31, &id);
	WL_EXPECT(fd >= 0, "a queue watching %s", SB_BASE);
	WL_EXPECT(mount(NULL, SB_BASE, NULL, MS_REMOUNT | MS_RDONLY, NULL) == 0,
		  "remount ro: %s", strerror(errno));
	WL_EXPECT(expect_sb(fd, "remount ro", NOTIFY_SUPERBLOCK_READONLY, 0x31,
			    NOTIFY_SUPERBLOCK_IS_NOW_RO, 0, id, &rec) == 0, "READONLY");
	WL_EXPECT(rec.len == sizeof(struct superblock_notification),
		  "record length %u, want %zu", rec.len, sizeof(struct superblock_notification));
	WL_EXPECT(mount(NULL, SB_BASE, NULL, MS_REMOUNT, NULL) == 0,
		  "remount rw: %s", strerror(errno));
	WL_EXPECT(expect_sb(fd, "remount rw", NOTIFY_SUPERBLOCK_READONLY, 0x31, 0,
			    NOTIFY_SUPERBLOCK_IS_NOW_RO, id, NULL) == 0, "READONLY cleared");
	/* A remount that doesn't change r/o reports nothing. */
	WL_EXPECT(mount(NULL, SB_BASE, NULL, MS_REMOUNT, "size=2m") == 0,
		  "remount size: %s", strerror(errno));
	WL_EXPECT(sb_expect_nothing(fd, "remount without r/o change") == 0, "no record");
	wl_wq_close(fd);
	return WL_PASS;
}

/* Write past a tmpfs user block quota as uid 1000 (the writer). */
static int write_past_quota(void *arg)
{
	const char *path = arg;
	static char buf[4096];
	int fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	ssize_t n = 0;

	if (fd < 0) {
		wl_diag("uid 1000 create %s: %s", path, strerror(errno));
		return 2;
	}
	memset(buf, 'q', sizeof(buf));
	for (int i = 0; i < 64; i++) {
		n = write(fd, buf, sizeof(buf));
		if (n < 0)
			break;
	}
	close(fd);
	if (n >= 0 || errno != EDQUOT) {
		wl_diag("uid 1000 wrote 256k past a 64k quota without EDQUOT (%s)",
			n < 0 ? strerror(errno) : "no error");
		return 1;
	}
	return 0;
}

static enum wl_result edquot_from_tmpfs_quota(void)
{
	struct wl_creds user = wl_user(1000);
	unsigned long long id;
	int fd, r;

	umount2(SB_BASE, MNT_DETACH);
	WL_EXPECT(wl_mkdir(SB_BASE) == 0, "mkdir");
	WL_EXPECT(mount("wlq", SB_BASE, "tmpfs", 0, "usrquota,usrquota_block_hardlimit=64k") == 0,
		  "tmpfs with usrquota: %s", strerror(errno));
	WL_EXPECT(chmod(SB_BASE, 01777) == 0, "chmod: %s", strerror(errno));
	fd = sb_watched_queue(0x32, &id);
	WL_EXPECT(fd >= 0, "a queue watching %s", SB_BASE);
	r = wl_run_as(&user, write_past_quota, SB_BASE "/big");
	WL_EXPECT(r == 0, "the writer did not hit EDQUOT");
	WL_EXPECT(expect_sb(fd, "EDQUOT", NOTIFY_SUPERBLOCK_EDQUOT, 0x32, 0, 0, id,
			    NULL) == 0, "EDQUOT record");
	wl_wq_close(fd);
	return WL_PASS;
}

/* ext4 (mounted from an ext2 image on a loop device) error via sysfs. */
static enum wl_result error_from_ext4(void)
{
	struct superblock_error_notification en;
	unsigned long long id;
	struct wl_record rec;
	char dev[32], attr[96];
	int fd, tfd;

	umount2(SB_BASE, MNT_DETACH);
	WL_EXPECT(wl_sh("dd if=/dev/zero of=/tmp/wlsb.img bs=1k count=2048 2>/dev/null") == 0 &&
		  wl_sh("mke2fs -F /tmp/wlsb.img >/dev/null 2>&1") == 0 &&
		  wl_mkdir(SB_BASE) == 0 &&
		  wl_sh("mount -t ext4 -o loop,errors=continue /tmp/wlsb.img " SB_BASE) == 0,
		  "could not make an ext4-mounted image (mke2fs, loop, ext4)");
	fd = sb_watched_queue(0x34, &id);
	WL_EXPECT(fd >= 0, "a queue watching %s", SB_BASE);
	snprintf(dev, sizeof(dev), "loop%u", (unsigned int)(id & 0xff));
	snprintf(attr, sizeof(attr), "/sys/fs/ext4/%s/trigger_fs_error", dev);
	tfd = open(attr, O_WRONLY | O_CLOEXEC);
	WL_EXPECT(tfd >= 0, "open %s: %s", attr, strerror(errno));
	WL_EXPECT(write(tfd, "watchlab", 8) == 8, "write %s: %s", attr, strerror(errno));
	close(tfd);
	WL_EXPECT(expect_sb(fd, "ext4 error", NOTIFY_SUPERBLOCK_ERROR, 0x34, 0, 0, id,
			    &rec) == 0, "ERROR record");
	WL_EXPECT(rec.len == sizeof(en), "record length %u, want %zu", rec.len, sizeof(en));
	memcpy(&en, rec.data, sizeof(en));
	WL_EXPECT(en.error_number == EUCLEAN, "error_number %u, want EFSCORRUPTED (%d)",
		  en.error_number, EUCLEAN);
	wl_wq_close(fd);
	return WL_PASS;
}

/* The superblock dies: META removal record carrying its ID. */
static enum wl_result remove_by_sb_death(void)
{
	struct watch_notification_removal wr;
	unsigned long long id;
	struct wl_record rec;
	int fd;

	fd = sb_watched_queue(0x35, &id);
	WL_EXPECT(fd >= 0, "a queue watching %s", SB_BASE);
	WL_EXPECT(umount(SB_BASE) == 0, "umount of a watched sb: %s", strerror(errno));
	WL_EXPECT(wl_wq_expect(fd, WATCH_TYPE_META, WATCH_META_REMOVAL_NOTIFICATION, &rec,
			       WL_EVENT_TIMEOUT_MS * 4) == 1, "no removal record");
	memcpy(&wr, rec.data, sizeof(wr));
	WL_EXPECT(rec.len == sizeof(wr) && rec.watch_id == 0x35 && wr.id == id,
		  "removal record len %u watch %u id %#llx, want len %zu watch 0x35 id %#llx",
		  rec.len, rec.watch_id, (unsigned long long)wr.id, sizeof(wr), id);
	wl_wq_close(fd);
	return WL_PASS;
}

/* Explicit removal, and every argument error. */
static enum wl_result remove_and_errors(void)
{
	struct wl_record rec;
	int fd, file, bad = 0;

	file = open(SB_BASE "/file", O_CREAT | O_RDWR | O_CLOEXEC, 0644);
	WL_EXPECT(file >= 0, "create: %s", strerror(errno));
	/* A symlink to SB_BASE: AT_SYMLINK_NOFOLLOW stops on the link itself. */
	unlink(SB_BASE "/lnk");
	WL_EXPECT(symlink(".", SB_BASE "/lnk") == 0, "symlink: %s", strerror(errno));
	fd = wl_vfs_queue_open(64);
	WL_EXPECT(fd >= 0, "notification pipe");

	const struct wl_vfs_bad_call cases[] = {
		{ "bad dfd", 9999, "x", 0, fd, 1, EBADF },
		{ "missing path", AT_FDCWD, SB_BASE "/nope", 0, fd, 1, ENOENT },
		{ "path not a directory", AT_FDCWD, SB_BASE "/file", 0, fd, 1, ENOTDIR },
		{ "unknown at_flags", AT_FDCWD, SB_BASE, 0x8000, fd, 1, EINVAL },
		{ "watch_id 256", AT_FDCWD, SB_BASE, 0, fd, 256, EINVAL },
		{ "watch_id -2", AT_FDCWD, SB_BASE, 0, fd, -2, EINVAL },
		{ "watch_fd a regular file", AT_FDCWD, SB_BASE, 0, file, 1, EINVAL },
		{ "watch_fd not open", AT_FDCWD, SB_BASE, 0, 9999, 1, EINVAL },
		{ "remove without a watch", AT_FDCWD, SB_BASE, 0, fd, -1, EBADSLT },
		{ "symlink with AT_SYMLINK_NOFOLLOW", AT_FDCWD, SB_BASE "/lnk",
		  AT_SYMLINK_NOFOLLOW, fd, 1, ENOTDIR },
	};

	bad = wl_vfs_bad_calls(wl_watch_sb, cases, WL_ARRAY_SIZE(cases));
	WL_EXPECT(wl_watch_sb(file, "", AT_EMPTY_PATH, fd, 1) == -1, "AT_EMPTY_PATH on a file");
	/* The largest watch_id, 0xff, is a watch_id (256 is not, above). */
	WL_EXPECT(wl_watch_sb(AT_FDCWD, SB_BASE, 0, fd, 0xff) == 0, "watch, id 0xff: %s",
		  strerror(errno));
	if (wl_want_errno("duplicate", wl_watch_sb(AT_FDCWD, SB_BASE, 0, fd, 7), EBUSY) ||
	    wl_want_errno("duplicate, through the followed symlink",
			  wl_watch_sb(AT_FDCWD, SB_BASE "/lnk", 0, fd, 7), EBUSY))
		bad = 1;
	WL_EXPECT(wl_watch_sb(AT_FDCWD, SB_BASE, 0, fd, -1) == 0, "remove: %s",
		  strerror(errno));
	WL_EXPECT(wl_wq_expect(fd, WATCH_TYPE_META, WATCH_META_REMOVAL_NOTIFICATION, &rec,
			       WL_EVENT_TIMEOUT_MS * 4) == 1 && rec.watch_id == 0xff,
		  "no removal record for watch 0xff");
	if (wl_want_errno("remove twice", wl_watch_sb(AT_FDCWD, SB_BASE, 0, fd, -1), EBADSLT))
		bad = 1;
	close(file);
	wl_wq_close(fd);
	return bad ? WL_FAIL : WL_PASS;
}

static const struct wl_test tests[] = {
	{ "readonly_toggle", readonly_toggle },
	{ "remove_by_sb_death", remove_by_sb_death },
	{ "remove_and_errors", remove_and_errors },
};

static const struct wl_test quota_tests[] = {
	{ "edquot_from_tmpfs_quota", edquot_from_tmpfs_quota },
};

static const struct wl_test ext4_tests[] = {
	{ "error_from_ext4", error_from_ext4 },
};

/* suite_sb runs twice: queues on the pipe, then on the /dev/watch_queue ring. */
WL_SUITE(suite_sb, tests, .axis = WL_AXIS_TRANSPORT, .setup = sb_setup, .teardown = sb_teardown);
WL_SUITE(suite_sb_quota, quota_tests, .teardown = sb_teardown);
WL_SUITE(suite_sb_ext4, ext4_tests, .teardown = sb_teardown);
