// SPDX-License-Identifier: GPL-2.0
/*
 * source_sb.c - superblock scenarios: a tmpfs, a tmpfs with a user quota,
 * or a small ext2 image mounted as ext4 on a loop device (errors=continue,
 * so trigger_fs_error reports and goes on).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "scenario_run.h"
#include "scenario_source.h"
#include "vfs_util.h"
#include "wl.h"

static int sb_setup(struct scn_ctx *c)
{
	unsigned int minor;
	struct stat st;
	char cmd[512];

	if (strcmp(c->s->object, "sb-quota") == 0)
		return scn_tmpfs_at(c, c->dir, "usrquota,usrquota_block_hardlimit=64k", false);
	if (strcmp(c->s->object, "sb") == 0)
		return scn_tmpfs_at(c, c->dir, NULL, false);
	/* sb-ext4: a small ext2 image mounted as ext4 on a loop device */
	snprintf(cmd, sizeof(cmd), /* dir is short: FIXTURE_BASE/pid */
		 "dd if=/dev/zero of=%s.img bs=1k count=2048 2>/dev/null && "
		 "mke2fs -F %s.img >/dev/null 2>&1 && "
		 "mount -t ext4 -o loop,errors=continue %s.img %s",
		 c->dir, c->dir, c->dir, c->dir);
	if (wl_mkdir(c->dir) || wl_sh(cmd))
		return -1;
	if (stat(c->dir, &st)) {
		wl_diag("stat %s: %s", c->dir, strerror(errno));
		return -1;
	}
	minor = st.st_dev & 0xff;
	snprintf(c->attr, sizeof(c->attr), "/sys/fs/ext4/loop%u/trigger_fs_error", minor);
	return chmod(c->dir, 01777) ? -1 : 0;
}

static long sb_watch(struct scn_ctx *c, int qfd, int watch_id)
{
	return wl_watch_sb(AT_FDCWD, c->dir, 0, qfd, watch_id);
}

const struct scn_source_ops scn_sb_source = {
	.setup = sb_setup,
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
	int fd = open(c->attr, O_WRONLY | O_CLOEXEC);

	if (fd < 0 || write(fd, "watchlab", 8) != 8) {
		wl_diag("triggerer: write %s: %s", c->attr, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	return 0;
}
