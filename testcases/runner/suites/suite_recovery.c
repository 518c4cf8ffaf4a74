// SPDX-License-Identifier: GPL-2.0
/*
 * suite_recovery.c - recovering from lost records with the notification
 * counters (kernel-patches 0022), end to end, on both transports.
 *
 * A watcher snapshots every mount's counters (listmount + statmount),
 * watches a tree of tmpfs mounts and stops reading.  A flood fills its
 * queue; then, while it is blind, a known set of changes is made: a mount
 * made read-only, a superblock remounted read-only through a second (bind)
 * mount of it, a mount added, a mount taken away.  The watcher drains its
 * queue, is told of the loss (META LOSS in a pipe, WATCH_INFO_OVERRUN on
 * the ring), snapshots again and derives what changed from the counters
 * and the ID lists alone.  It must find exactly the mounts and the
 * superblock that changed, and nothing else in the whole namespace.
 *
 * A kernel without counters, or whose counters miss an event kind, or move
 * for a mount nothing happened to (say, counting on the parent walk, or
 * counting the superblock's change on every mount of it), fails here.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>
/* glibc's <fcntl.h> already defines what <linux/fcntl.h> would redefine. */
#define _LINUX_FCNTL_H
#include <linux/watch_queue.h>

#include "mount_counts.h"
#include "vfs_util.h"
#include "wl.h"

#define REC_BASE	"/tmp/wlrec"
#define REC_MOUNTS	8	/* REC_BASE/m0..m7, each its own tmpfs */
#define REC_MAX_IDS	512
#define REC_FLOOD	300	/* attribute toggles on m7: far more than a queue holds */
#define REC_QUEUE	32	/* records the watcher's queue holds */

/* The mounts the test plays with. */
enum rec_mount { M_SETATTR = 1, M_NEWPARENT = 3, M_GONE = 4, M_SBSHARED = 5,
		 M_BEACON = 6, M_FLOOD = 7 };

struct snapshot {
	struct wl_mount_counts m[REC_MAX_IDS];
	int n;
};

static void rec_teardown(void)
{
	umount2(REC_BASE, MNT_DETACH);
}

static const char *rec_path(char *buf, size_t len, const char *name, int i)
{
	snprintf(buf, len, REC_BASE "/%s%d", name, i);
	return buf;
}

static int rec_setup(void)
{
	char path[64], target[64];

	rec_teardown();
	if (wl_tmpfs(REC_BASE, NULL))
		return -1;
	for (int i = 0; i < REC_MOUNTS; i++)
		if (wl_tmpfs(rec_path(path, sizeof(path), "m", i), NULL))
			return -1;
	/* b5: a second mount of m5's superblock. */
	if (wl_mkdir(rec_path(target, sizeof(target), "b", M_SBSHARED)) ||
	    mount(rec_path(path, sizeof(path), "m", M_SBSHARED), target, NULL, MS_BIND, NULL)) {
		wl_diag("bind %s on %s: %s", path, target, strerror(errno));
		return -1;
	}
	return wl_mkdir(REC_BASE "/m3/n0");
}

static int take_snapshot(struct snapshot *s, const char *when)
{
	uint64_t ids[REC_MAX_IDS];
	int n = wl_listmount(ids, REC_MAX_IDS);

	if (n < 0) {
		wl_diag("%s: listmount: %s", when, strerror(errno));
		return -1;
	}
	s->n = 0;
	for (int i = 0; i < n; i++) {
		if (!wl_mount_counts(ids[i], &s->m[s->n])) {
			s->n++;
			continue;
		}
		/* Gone between the two calls: only the test changes mounts. */
		wl_diag("%s: statmount(%#llx): %s", when, (unsigned long long)ids[i],
			strerror(errno));
		return -1;
	}
	return 0;
}

static const struct wl_mount_counts *find(const struct snapshot *s, uint64_t id)
{
	for (int i = 0; i < s->n; i++)
		if (s->m[i].mnt_id == id)
			return &s->m[i];
	return NULL;
}

/* What recovery derives from two snapshots, and what the test expects. */
struct changes {
	uint64_t mounts[REC_MAX_IDS];	/* mount counter moved */
	uint64_t sbs[REC_MAX_IDS];	/* superblock counter moved (by st_dev) */
	uint64_t added[REC_MAX_IDS], gone[REC_MAX_IDS];
	int nmounts, nsbs, nadded, ngone;
};

static void add_once(uint64_t *set, int *n, uint64_t v)
{
	for (int i = 0; i < *n; i++)
		if (set[i] == v)
			return;
	if (*n < REC_MAX_IDS)
		set[(*n)++] = v;
}

static void derive(const struct snapshot *before, const struct snapshot *after,
		   struct changes *c)
{
	memset(c, 0, sizeof(*c));
	for (int i = 0; i < after->n; i++) {
		const struct wl_mount_counts *now = &after->m[i];
		const struct wl_mount_counts *then = find(before, now->mnt_id);

		if (!then) {
			add_once(c->added, &c->nadded, now->mnt_id);
			continue;
		}
		if (now->mnt_count != then->mnt_count)
			add_once(c->mounts, &c->nmounts, now->mnt_id);
		if (now->sb_count != then->sb_count)
			add_once(c->sbs, &c->nsbs, now->sb_dev);
	}
	for (int i = 0; i < before->n; i++)
		if (!find(after, before->m[i].mnt_id))
			add_once(c->gone, &c->ngone, before->m[i].mnt_id);
}

/* Are two sets equal?  Diagnose each member only one of them has. */
static bool same_set(const char *what, const uint64_t *got, int ngot,
		     const uint64_t *want, int nwant)
{
	bool same = true;

	for (int i = 0; i < ngot; i++) {
		int j = 0;

		while (j < nwant && want[j] != got[i])
			j++;
		if (j == nwant) {
			wl_diag("%s: recovery found %#llx, which did not change", what,
				(unsigned long long)got[i]);
			same = false;
		}
	}
	for (int j = 0; j < nwant; j++) {
		int i = 0;

		while (i < ngot && got[i] != want[j])
			i++;
		if (i == ngot) {
			wl_diag("%s: recovery missed %#llx", what, (unsigned long long)want[j]);
			same = false;
		}
	}
	return same;
}

static uint64_t id_of(const char *name, int i)
{
	char path[64];

	return wl_mnt_id(rec_path(path, sizeof(path), name, i), true);
}

static uint64_t dev_of(const char *path)
{
	struct stat st;

	return stat(path, &st) ? 0 : st.st_dev;
}

static int set_rdonly(const char *path, bool on)
{
	struct mount_attr attr = {
		.attr_set = on ? MOUNT_ATTR_RDONLY : 0,
		.attr_clr = on ? 0 : MOUNT_ATTR_RDONLY,
	};

	if (syscall(SYS_mount_setattr, AT_FDCWD, path, 0, &attr, sizeof(attr))) {
		wl_diag("mount_setattr(%s, %s): %s", path, on ? "ro" : "rw", strerror(errno));
		return -1;
	}
	return 0;
}

/* Watch the tree, and every sub-mount's superblock, on one queue. */
static int open_watcher(void)
{
	char path[64];
	int fd = wl_vfs_queue_open(REC_QUEUE);

	if (fd < 0)
		return -1;
	if (wl_watch_mount(AT_FDCWD, REC_BASE, 0, fd, 1)) {
		wl_diag("watch_mount(%s): %s", REC_BASE, strerror(errno));
		goto fail;
	}
	for (int i = 0; i < REC_MOUNTS; i++)
		if (wl_watch_sb(AT_FDCWD, rec_path(path, sizeof(path), "m", i), 0, fd,
				10 + i)) {
			wl_diag("watch_sb(%s): %s", path, strerror(errno));
			goto fail;
		}
	return fd;
fail:
	wl_wq_close(fd);
	return -1;
}

/* The changes made while the watcher is blind, and the sets they must give. */
static int make_changes(struct changes *want)
{
	char path[64];
	uint64_t gone = id_of("m", M_GONE);

	memset(want, 0, sizeof(*want));
	for (int i = 0; i < REC_FLOOD; i++)
		if (set_rdonly(rec_path(path, sizeof(path), "m", M_FLOOD), !(i & 1)))
			return -1;
	add_once(want->mounts, &want->nmounts, id_of("m", M_FLOOD));

	if (set_rdonly(rec_path(path, sizeof(path), "m", M_SETATTR), true))
		return -1;
	add_once(want->mounts, &want->nmounts, id_of("m", M_SETATTR));

	/* The superblock of m5 and b5 goes read-only through b5: b5's mount
	 * attributes change with it, m5's do not. */
	if (mount(NULL, rec_path(path, sizeof(path), "b", M_SBSHARED), NULL,
		  MS_REMOUNT | MS_RDONLY, NULL)) {
		wl_diag("remount %s ro: %s", path, strerror(errno));
		return -1;
	}
	add_once(want->mounts, &want->nmounts, id_of("b", M_SBSHARED));
	add_once(want->sbs, &want->nsbs, dev_of(path));

	if (wl_tmpfs(REC_BASE "/m3/n0", NULL))
		return -1;
	add_once(want->added, &want->nadded, wl_mnt_id(REC_BASE "/m3/n0", true));

	if (umount2(rec_path(path, sizeof(path), "m", M_GONE), 0)) {
		wl_diag("umount %s: %s", path, strerror(errno));
		return -1;
	}
	add_once(want->gone, &want->ngone, gone);
	return 0;
}

/*
 * Drain the queue, then post one more event (on m6, the beacon) and read
 * until the loss has been told: a ring flags it on the first record that
 * fits after the reader made room.  1 if told, 0 if not, -1 on error.
 */
static int learn_of_loss(int fd, struct changes *want)
{
	struct wl_record rec;
	char path[64];
	bool told = false, beacon = false;
	int r, n = 0;

	while ((r = wl_wq_read(fd, &rec, WL_EVENT_TIMEOUT_MS)) == 1) {
		n++;
		if ((rec.type == WATCH_TYPE_META &&
		     rec.subtype == WATCH_META_LOSS_NOTIFICATION) ||
		    (rec.info & WATCH_INFO_OVERRUN))
			told = true;
	}
	if (r < 0)
		return -1;
	if (set_rdonly(rec_path(path, sizeof(path), "m", M_BEACON), true))
		return -1;
	add_once(want->mounts, &want->nmounts, id_of("m", M_BEACON));
	while ((r = wl_wq_read(fd, &rec, WL_EVENT_TIMEOUT_MS * 4)) == 1) {
		n++;
		if ((rec.type == WATCH_TYPE_META &&
		     rec.subtype == WATCH_META_LOSS_NOTIFICATION) ||
		    (rec.info & WATCH_INFO_OVERRUN))
			told = true;
		if (rec.type == WATCH_TYPE_MOUNT_NOTIFY)
			beacon = true;
	}
	if (r < 0)
		return -1;
	wl_diag("%s: %d records read after %d events, loss %s", wl_transport_name(wl_transport()),
		n, REC_FLOOD + 5, told ? "told" : "not told");
	if (!beacon)
		wl_diag("the beacon's record did not arrive");
	return told && beacon;
}

static enum wl_result recover_changed_set(void)
{
	static struct snapshot before, after;
	static struct changes want, got;
	int fd, told;
	bool ok;

	WL_EXPECT(take_snapshot(&before, "before") == 0, "first snapshot");
	fd = open_watcher();
	WL_EXPECT(fd >= 0, "the watcher's queue");
	if (make_changes(&want)) {
		wl_wq_close(fd);
		return WL_FAIL;
	}
	told = learn_of_loss(fd, &want);
	wl_wq_close(fd);
	WL_EXPECT(told == 1, "the watcher was not told it lost records");
	WL_EXPECT(take_snapshot(&after, "after") == 0, "second snapshot");

	derive(&before, &after, &got);
	wl_diag("%d mounts before, %d after; recovery found %d mounts, %d superblocks, %d new, %d gone",
		before.n, after.n, got.nmounts, got.nsbs, got.nadded, got.ngone);
	ok = same_set("mount counters", got.mounts, got.nmounts, want.mounts, want.nmounts);
	ok &= same_set("superblock counters", got.sbs, got.nsbs, want.sbs, want.nsbs);
	ok &= same_set("new mounts", got.added, got.nadded, want.added, want.nadded);
	ok &= same_set("gone mounts", got.gone, got.ngone, want.gone, want.ngone);
	return ok ? WL_PASS : WL_FAIL;
}

/*
 * The counters count what is generated, not what is delivered: with no
 * watch anywhere, each kind of event still moves its counter by exactly one.
 */
static enum wl_result count_unwatched(void)
{
	struct wl_mount_counts m0, m1, b0, b1;
	char path[64], bpath[64];

	rec_path(path, sizeof(path), "m", M_SETATTR);
	rec_path(bpath, sizeof(bpath), "b", M_SBSHARED);
	WL_EXPECT(wl_mount_counts(wl_mnt_id(path, true), &m0) == 0, "statmount %s: %s", path,
		  strerror(errno));
	WL_EXPECT(wl_mount_counts(wl_mnt_id(bpath, true), &b0) == 0, "statmount %s: %s", bpath,
		  strerror(errno));
	WL_EXPECT(set_rdonly(path, true) == 0, "mount_setattr");
	WL_EXPECT(mount(NULL, bpath, NULL, MS_REMOUNT | MS_RDONLY, NULL) == 0,
		  "remount ro: %s", strerror(errno));
	WL_EXPECT(wl_mount_counts(wl_mnt_id(path, true), &m1) == 0, "statmount %s: %s", path,
		  strerror(errno));
	WL_EXPECT(wl_mount_counts(wl_mnt_id(bpath, true), &b1) == 0, "statmount %s: %s", bpath,
		  strerror(errno));
	wl_diag("m1 mount %llu -> %llu; b5 mount %llu -> %llu, sb %llu -> %llu",
		(unsigned long long)m0.mnt_count, (unsigned long long)m1.mnt_count,
		(unsigned long long)b0.mnt_count, (unsigned long long)b1.mnt_count,
		(unsigned long long)b0.sb_count, (unsigned long long)b1.sb_count);
	WL_EXPECT(m1.mnt_count == m0.mnt_count + 1, "READONLY on m1 not counted once");
	WL_EXPECT(m1.sb_count == m0.sb_count, "m1's superblock counter moved");
	WL_EXPECT(b1.sb_count == b0.sb_count + 1, "the sb READONLY not counted once");
	WL_EXPECT(b1.mnt_count == b0.mnt_count + 1, "b5's READONLY not counted once");
	return WL_PASS;
}

static const struct wl_test tests[] = {
	{ "recover_changed_set", recover_changed_set },
	{ "count_unwatched", count_unwatched },
};

/* suite_recovery runs twice: queues on the pipe, then on the ring. */
WL_SUITE(suite_recovery, tests, .axis = WL_AXIS_TRANSPORT, .setup = rec_setup,
	 .teardown = rec_teardown);
