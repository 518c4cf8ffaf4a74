// SPDX-License-Identifier: GPL-2.0
/*
 * suite_mount.c - mount notifications (watch_mount(), kernel-patches 0005):
 * every subtype with its fields, subtree selection, subtype and info
 * filters, removal (explicit, by unmount, by closing the queue) and the
 * errno of every bad argument.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
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

#include "mount_counts.h"
#include "vfs_util.h"
#include "wl.h"

/* Scratch area: a private tmpfs, fresh for each test (the suite's fixture). */
#define BASE "/tmp/wlmount"

struct mnt_ev {
	unsigned int subtype;
	unsigned int watch_id;
	unsigned int flags;		/* NOTIFY_MOUNT_* flags wanted set */
	unsigned int noflags;		/* NOTIFY_MOUNT_* flags wanted clear */
	unsigned int triggered_on;
	unsigned int changed;
	unsigned int aux;		/* checked if want_aux */
	bool want_aux;
	unsigned long long changed_unique;	/* checked if non-zero */
};

static const char *const mnt_subtype_name[] = {
	"NEW_MOUNT", "UNMOUNT", "EXPIRY", "READONLY", "SETATTR", "MOVE_FROM", "MOVE_TO",
};

static const char *subname(unsigned int st)
{
	return st < WL_ARRAY_SIZE(mnt_subtype_name) ? mnt_subtype_name[st] : "?";
}

static int base_setup(void)
{
	umount2(BASE, MNT_DETACH);
	return wl_tmpfs(BASE, NULL);
}

static void base_teardown(void)
{
	umount2(BASE, MNT_DETACH);
}

/* Read the next record and check it is exactly the mount event described. */
static int expect_mnt(int fd, const char *what, const struct mnt_ev *e)
{
	struct mount_notification mn;
	struct wl_record rec;
	int r = wl_wq_read(fd, &rec, WL_EVENT_TIMEOUT_MS * 4);

	if (r <= 0) {
		wl_diag("%s: no %s record arrived", what, subname(e->subtype));
		return -1;
	}
	if (rec.type != WATCH_TYPE_MOUNT_NOTIFY || rec.subtype != e->subtype ||
	    rec.len != sizeof(mn)) {
		wl_diag("%s: got type %u subtype %u (%s) len %u, want type %u subtype %s len %zu",
			what, rec.type, rec.subtype,
			rec.type == WATCH_TYPE_MOUNT_NOTIFY ? subname(rec.subtype) : "-",
			rec.len, WATCH_TYPE_MOUNT_NOTIFY, subname(e->subtype), sizeof(mn));
		return -1;
	}
	memcpy(&mn, rec.data, sizeof(mn));
	if (rec.watch_id != e->watch_id ||
	    (rec.info & e->flags) != e->flags || (rec.info & e->noflags) ||
	    mn.triggered_on != e->triggered_on || mn.changed_mount != e->changed ||
	    (e->want_aux && mn.auxiliary_mount != e->aux) || mn.__reserved ||
	    (e->changed_unique && mn.changed_mount_unique != e->changed_unique)) {
		wl_diag("%s: %s got watch %u info %#x triggered_on %u changed %u aux %u unique %llu",
			what, subname(e->subtype), rec.watch_id, rec.info, mn.triggered_on,
			mn.changed_mount, mn.auxiliary_mount,
			(unsigned long long)mn.changed_mount_unique);
		wl_diag("%s: want watch %u flags %#x not %#x triggered_on %u changed %u aux %u unique %llu",
			what, e->watch_id, e->flags, e->noflags, e->triggered_on, e->changed,
			e->aux, e->changed_unique);
		return -1;
	}
	return 0;
}

static int expect_nothing(int fd, const char *after)
{
	return wl_wq_expect_none(fd, after, WL_EVENT_TIMEOUT_MS / 2);
}

/* Expect a META removal record for watch_id naming the mount's unique ID. */
static int expect_removal(int fd, const char *what, unsigned int watch_id,
			  unsigned long long id)
{
	struct watch_notification_removal wr;
	struct wl_record rec;
	int r = wl_wq_read(fd, &rec, WL_EVENT_TIMEOUT_MS * 4);

	if (r <= 0) {
		wl_diag("%s: no removal record arrived", what);
		return -1;
	}
	if (rec.type != WATCH_TYPE_META || rec.subtype != WATCH_META_REMOVAL_NOTIFICATION ||
	    rec.len != sizeof(wr) || rec.watch_id != watch_id) {
		wl_diag("%s: got type %u subtype %u len %u watch %u, want a removal record (len %zu) for watch %u",
			what, rec.type, rec.subtype, rec.len, rec.watch_id, sizeof(wr), watch_id);
		return -1;
	}
	memcpy(&wr, rec.data, sizeof(wr));
	if (id && wr.id != id) {
		wl_diag("%s: removal record names id %llu, want %llu", what,
			(unsigned long long)wr.id, id);
		return -1;
	}
	return 0;
}

/* New mount, bind remount r/o and back, and unmount, seen from the parent. */
static enum wl_result new_readonly_unmount(void)
{
	unsigned int base_id, child_id;
	unsigned long long child_uid;
	int fd;

	base_id = wl_mnt_id(BASE, false);
	fd = wl_vfs_queue_open(64);
	WL_EXPECT(fd >= 0, "notification pipe");
	WL_EXPECT(wl_watch_mount(AT_FDCWD, BASE, 0, fd, 0x12) == 0,
		  "watch_mount(%s): %s", BASE, strerror(errno));

	WL_EXPECT(wl_tmpfs(BASE "/a", NULL) == 0, "mount %s/a", BASE);
	child_id = wl_mnt_id(BASE "/a", false);
	child_uid = wl_mnt_id(BASE "/a", true);
	struct mnt_ev ev = {
		.subtype = NOTIFY_MOUNT_NEW_MOUNT, .watch_id = 0x12,
		.flags = NOTIFY_MOUNT_IN_SUBTREE, .noflags = NOTIFY_MOUNT_IS_SUBMOUNT,
		.triggered_on = base_id, .changed = child_id, .aux = base_id,
		.want_aux = true, .changed_unique = child_uid,
	};
	WL_EXPECT(expect_mnt(fd, "mount", &ev) == 0, "NEW_MOUNT");
	/* wl_tmpfs() makes it private: a propagation change (0025). */
	ev.subtype = NOTIFY_MOUNT_SETATTR;
	ev.noflags = NOTIFY_MOUNT_IS_RECURSIVE;
	ev.aux = 0;		/* attribute events name no other mount */
	WL_EXPECT(expect_mnt(fd, "mount(MS_PRIVATE)", &ev) == 0, "SETATTR");

	WL_EXPECT(mount(NULL, BASE "/a", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL) == 0,
		  "bind remount ro: %s", strerror(errno));
	ev.subtype = NOTIFY_MOUNT_READONLY;
	ev.flags = NOTIFY_MOUNT_IN_SUBTREE | NOTIFY_MOUNT_IS_NOW_RO;
	ev.noflags = NOTIFY_MOUNT_IS_SUBMOUNT;
	WL_EXPECT(expect_mnt(fd, "remount ro", &ev) == 0, "READONLY (ro)");

	WL_EXPECT(mount(NULL, BASE "/a", NULL, MS_REMOUNT | MS_BIND, NULL) == 0,
		  "bind remount rw: %s", strerror(errno));
	ev.flags = NOTIFY_MOUNT_IN_SUBTREE;
	ev.noflags = NOTIFY_MOUNT_IS_NOW_RO;
	WL_EXPECT(expect_mnt(fd, "remount rw", &ev) == 0, "READONLY (rw)");

	WL_EXPECT(umount(BASE "/a") == 0, "umount %s/a: %s", BASE, strerror(errno));
	ev.subtype = NOTIFY_MOUNT_UNMOUNT;
	ev.noflags = 0;
	ev.aux = base_id;
	WL_EXPECT(expect_mnt(fd, "umount", &ev) == 0, "UNMOUNT");
	WL_EXPECT(expect_nothing(fd, "umount") == 0, "no further records");
	wl_wq_close(fd);
	return WL_PASS;
}

/* Attribute changes: mount_setattr() and bind remount with nosuid. */
static enum wl_result setattr_events(void)
{
	struct mount_attr attr = { .attr_set = MOUNT_ATTR_NOSUID };
	unsigned int base_id, child_id;
	int fd;

	WL_EXPECT(wl_tmpfs(BASE "/s", NULL) == 0, "mount %s/s", BASE);
	base_id = wl_mnt_id(BASE, false);
	child_id = wl_mnt_id(BASE "/s", false);
	fd = wl_vfs_queue_open(64);
	WL_EXPECT(fd >= 0, "notification pipe");
	/* One watch on the child itself, one on the parent. */
	WL_EXPECT(wl_watch_mount(AT_FDCWD, BASE "/s", 0, fd, 1) == 0,
		  "watch_mount(%s/s): %s", BASE, strerror(errno));
	WL_EXPECT(wl_watch_mount(AT_FDCWD, BASE, 0, fd, 2) == 0,
		  "watch_mount(%s): %s", BASE, strerror(errno));

	WL_EXPECT(syscall(SYS_mount_setattr, AT_FDCWD, BASE "/s", 0, &attr, sizeof(attr)) == 0,
		  "mount_setattr(NOSUID): %s", strerror(errno));
	struct mnt_ev own = {
		.subtype = NOTIFY_MOUNT_SETATTR, .watch_id = 1,
		.noflags = NOTIFY_MOUNT_IN_SUBTREE | NOTIFY_MOUNT_IS_RECURSIVE,
		.triggered_on = child_id, .changed = child_id, .want_aux = true,
	};
	struct mnt_ev up = {
		.subtype = NOTIFY_MOUNT_SETATTR, .watch_id = 2,
		.flags = NOTIFY_MOUNT_IN_SUBTREE, .noflags = NOTIFY_MOUNT_IS_RECURSIVE,
		.triggered_on = base_id, .changed = child_id, .want_aux = true,
	};
	WL_EXPECT(expect_mnt(fd, "mount_setattr, own watch", &own) == 0, "SETATTR own");
	WL_EXPECT(expect_mnt(fd, "mount_setattr, parent watch", &up) == 0, "SETATTR parent");

	/* Recursive, read-only: READONLY then nothing else (nosuid already set). */
	attr.attr_set = MOUNT_ATTR_RDONLY;
	WL_EXPECT(syscall(SYS_mount_setattr, AT_FDCWD, BASE "/s", AT_RECURSIVE, &attr,
			  sizeof(attr)) == 0, "mount_setattr(RDONLY, AT_RECURSIVE): %s",
		  strerror(errno));
	own.subtype = up.subtype = NOTIFY_MOUNT_READONLY;
	own.flags = NOTIFY_MOUNT_IS_RECURSIVE | NOTIFY_MOUNT_IS_NOW_RO;
	own.noflags = NOTIFY_MOUNT_IN_SUBTREE;
	up.flags = NOTIFY_MOUNT_IS_RECURSIVE | NOTIFY_MOUNT_IS_NOW_RO | NOTIFY_MOUNT_IN_SUBTREE;
	up.noflags = 0;
	WL_EXPECT(expect_mnt(fd, "recursive ro, own watch", &own) == 0, "READONLY own");
	WL_EXPECT(expect_mnt(fd, "recursive ro, parent watch", &up) == 0, "READONLY parent");

	/* Bind remount changing only nodev: SETATTR, no READONLY. */
	WL_EXPECT(mount(NULL, BASE "/s", NULL,
			MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV, NULL) == 0,
		  "bind remount nodev: %s", strerror(errno));
	own.subtype = up.subtype = NOTIFY_MOUNT_SETATTR;
	own.flags = 0;
	own.noflags = NOTIFY_MOUNT_IN_SUBTREE | NOTIFY_MOUNT_IS_RECURSIVE;
	up.flags = NOTIFY_MOUNT_IN_SUBTREE;
	up.noflags = NOTIFY_MOUNT_IS_RECURSIVE;
	WL_EXPECT(expect_mnt(fd, "bind remount, own watch", &own) == 0, "SETATTR own");
	WL_EXPECT(expect_mnt(fd, "bind remount, parent watch", &up) == 0, "SETATTR parent");
	WL_EXPECT(expect_nothing(fd, "bind remount") == 0, "no further records");
	wl_wq_close(fd);
	return WL_PASS;
}

/*
 * A plain remount (MS_REMOUNT without MS_BIND) sets the mount's flags as well
 * as the superblock's: READONLY and SETATTR as for a bind remount.
 */
static enum wl_result remount_records(void)
{
	unsigned int id;
	int fd;

	WL_EXPECT(wl_tmpfs(BASE "/r", NULL) == 0, "mount %s/r", BASE);
	id = wl_mnt_id(BASE "/r", false);
	fd = wl_vfs_queue_open(64);
	WL_EXPECT(fd >= 0, "notification pipe");
	WL_EXPECT(wl_watch_mount(AT_FDCWD, BASE "/r", 0, fd, 3) == 0,
		  "watch_mount(%s/r): %s", BASE, strerror(errno));

	WL_EXPECT(mount(NULL, BASE "/r", NULL, MS_REMOUNT | MS_RDONLY | MS_NOSUID, NULL) == 0,
		  "remount ro,nosuid: %s", strerror(errno));
	struct mnt_ev ev = {
		.subtype = NOTIFY_MOUNT_READONLY, .watch_id = 3,
		.flags = NOTIFY_MOUNT_IS_NOW_RO,
		.noflags = NOTIFY_MOUNT_IN_SUBTREE | NOTIFY_MOUNT_IS_RECURSIVE,
		.triggered_on = id, .changed = id, .want_aux = true,
	};
	WL_EXPECT(expect_mnt(fd, "remount ro,nosuid", &ev) == 0, "READONLY (ro)");
	ev.subtype = NOTIFY_MOUNT_SETATTR;
	ev.flags = 0;
	WL_EXPECT(expect_mnt(fd, "remount ro,nosuid", &ev) == 0, "SETATTR (nosuid)");

	/* Same flags again: nothing changed, nothing reported. */
	WL_EXPECT(mount(NULL, BASE "/r", NULL, MS_REMOUNT | MS_RDONLY | MS_NOSUID, NULL) == 0,
		  "remount ro,nosuid again: %s", strerror(errno));
	WL_EXPECT(expect_nothing(fd, "the same remount") == 0, "no record");

	WL_EXPECT(mount(NULL, BASE "/r", NULL, MS_REMOUNT, NULL) == 0,
		  "remount rw: %s", strerror(errno));
	ev.subtype = NOTIFY_MOUNT_READONLY;
	ev.noflags |= NOTIFY_MOUNT_IS_NOW_RO;
	WL_EXPECT(expect_mnt(fd, "remount rw", &ev) == 0, "READONLY (rw)");
	ev.subtype = NOTIFY_MOUNT_SETATTR;
	WL_EXPECT(expect_mnt(fd, "remount rw", &ev) == 0, "SETATTR (suid)");
	WL_EXPECT(expect_nothing(fd, "remount rw") == 0, "no further records");
	wl_wq_close(fd);
	return WL_PASS;
}

/* MS_MOVE: MOVE_FROM naming the old parent, then MOVE_TO naming the new. */
static enum wl_result move_events(void)
{
	unsigned int base_id, p1, p2, m;
	int fd;

	WL_EXPECT(wl_tmpfs(BASE "/p1", NULL) == 0, "mount p1");
	WL_EXPECT(wl_tmpfs(BASE "/p2", NULL) == 0, "mount p2");
	WL_EXPECT(wl_tmpfs(BASE "/p1/m", NULL) == 0, "mount p1/m");
	WL_EXPECT(wl_mkdir(BASE "/p2/dst") == 0, "mkdir p2/dst");
	base_id = wl_mnt_id(BASE, false);
	p1 = wl_mnt_id(BASE "/p1", false);
	p2 = wl_mnt_id(BASE "/p2", false);
	m = wl_mnt_id(BASE "/p1/m", false);
	fd = wl_vfs_queue_open(64);
	WL_EXPECT(fd >= 0, "notification pipe");
	WL_EXPECT(wl_watch_mount(AT_FDCWD, BASE, 0, fd, 7) == 0,
		  "watch_mount: %s", strerror(errno));
	WL_EXPECT(mount(BASE "/p1/m", BASE "/p2/dst", NULL, MS_MOVE, NULL) == 0,
		  "MS_MOVE: %s", strerror(errno));
	struct mnt_ev ev = {
		.subtype = NOTIFY_MOUNT_MOVE_FROM, .watch_id = 7,
		.flags = NOTIFY_MOUNT_IN_SUBTREE,
		.triggered_on = base_id, .changed = m, .aux = p1, .want_aux = true,
	};
	WL_EXPECT(expect_mnt(fd, "move from", &ev) == 0, "MOVE_FROM");
	ev.subtype = NOTIFY_MOUNT_MOVE_TO;
	ev.aux = p2;
	WL_EXPECT(expect_mnt(fd, "move to", &ev) == 0, "MOVE_TO");
	WL_EXPECT(expect_nothing(fd, "move") == 0, "no further records");
	wl_wq_close(fd);
	return WL_PASS;
}

/*
 * pivot_root() as two moves (kernel-patches 0024), in a mount namespace of
 * the child's own: a tmpfs A (BASE/a) is made the root with chroot(), and
 * a tmpfs N mounted on A/new becomes the new root, A going to N's old/.  A
 * watch on A's root gets MOVE_FROM for N (in its subtree) and for A
 * itself, then MOVE_TO for A (now under N); N's MOVE_TO happens where A no
 * longer is.  Each mount's notification counter moves by two, so a
 * watcher that lost the records still sees that both changed.  Without
 * the patch pivot_root() posts and counts nothing.
 */
static int pivot_child(void *arg)
{
	struct wl_mount_counts ca0, cn0, ca1, cn1;
	unsigned long long a_uniq, n_uniq;
	unsigned int base_id, a_id, n_id;
	int fd, bad = 0;

	(void)arg;
	if (unshare(CLONE_NEWNS) ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL)) {
		wl_diag("unshare(CLONE_NEWNS) and make / private: %s", strerror(errno));
		return 1;
	}
	if (wl_tmpfs(BASE "/a", NULL) || wl_tmpfs(BASE "/a/new", NULL) ||
	    wl_mkdir(BASE "/a/new/old"))
		return 1;
	base_id = wl_mnt_id(BASE, false);
	a_id = wl_mnt_id(BASE "/a", false);
	n_id = wl_mnt_id(BASE "/a/new", false);
	a_uniq = wl_mnt_id(BASE "/a", true);
	n_uniq = wl_mnt_id(BASE "/a/new", true);
	fd = wl_vfs_queue_open(16);
	if (fd < 0 || !base_id || !a_id || !n_id || !a_uniq || !n_uniq)
		return 1;
	if (wl_watch_mount(AT_FDCWD, BASE "/a", 0, fd, 5)) {
		wl_diag("watch_mount(a): %s", strerror(errno));
		return 1;
	}
	if (wl_mount_counts(a_uniq, &ca0) || wl_mount_counts(n_uniq, &cn0)) {
		wl_diag("statmount counters: %s", strerror(errno));
		return 1;
	}
	if (chdir(BASE "/a") || chroot(".") || chdir("/")) {
		wl_diag("chroot into a: %s", strerror(errno));
		return 1;
	}
	if (syscall(SYS_pivot_root, "/new", "/new/old")) {
		wl_diag("pivot_root(/new, /new/old): %s", strerror(errno));
		return 1;
	}

	struct mnt_ev ev = {
		.subtype = NOTIFY_MOUNT_MOVE_FROM, .watch_id = 5,
		.flags = NOTIFY_MOUNT_IN_SUBTREE,
		.triggered_on = a_id, .changed = n_id, .aux = a_id, .want_aux = true,
	};
	bad |= expect_mnt(fd, "pivot_root: the new root leaves a", &ev);
	ev.flags = 0;
	ev.noflags = NOTIFY_MOUNT_IN_SUBTREE;
	ev.changed = a_id;
	ev.aux = base_id;
	bad |= expect_mnt(fd, "pivot_root: the old root leaves its place", &ev);
	ev.subtype = NOTIFY_MOUNT_MOVE_TO;
	ev.aux = n_id;
	bad |= expect_mnt(fd, "pivot_root: the old root arrives under the new", &ev);
	bad |= expect_nothing(fd, "pivot_root");

	if (wl_mount_counts(a_uniq, &ca1) || wl_mount_counts(n_uniq, &cn1)) {
		wl_diag("statmount counters after pivot_root: %s", strerror(errno));
		return 1;
	}
	if (ca1.mnt_count - ca0.mnt_count != 2 || cn1.mnt_count - cn0.mnt_count != 2) {
		wl_diag("pivot_root moved the counters of a by %llu and of the new root by %llu, want 2 and 2",
			(unsigned long long)(ca1.mnt_count - ca0.mnt_count),
			(unsigned long long)(cn1.mnt_count - cn0.mnt_count));
		bad = 1;
	}
	wl_wq_close(fd);
	return bad != 0;
}

static enum wl_result pivot_root_moves(void)
{
	pid_t pid = wl_spawn(pivot_child, NULL);

	WL_EXPECT(pid > 0, "fork");
	WL_EXPECT(wl_reap(pid, "the pivot_root child") == 0,
		  "pivot_root's records or counters (above)");
	return WL_PASS;
}

/*
 * Did the mount's notification counter move by exactly @want since @c0?
 * 0, or -1 (diagnosed).
 */
static int counter_moved(unsigned long long uniq, const struct wl_mount_counts *c0,
			 unsigned long long want, const char *what)
{
	struct wl_mount_counts c1;

	if (wl_mount_counts(uniq, &c1)) {
		wl_diag("statmount counters: %s", strerror(errno));
		return -1;
	}
	if (c1.mnt_count - c0->mnt_count == want)
		return 0;
	wl_diag("%s moved the counter by %llu, want %llu", what,
		(unsigned long long)(c1.mnt_count - c0->mnt_count), want);
	return -1;
}

/*
 * A propagation change made through mount(2) (MS_SHARED, MS_PRIVATE, with or
 * without MS_REC) is reported as mount_setattr() reports one: SETATTR for
 * each mount changed, IS_RECURSIVE with MS_REC, and each mount's counter
 * moves, so that a watcher that lost the records and re-reads the counters
 * knows to re-read its propagation.  Without kernel-patches 0025 it posts
 * and counts nothing.  mount_setattr() with a propagation posts the same
 * (its notes wait for namespace_unlock(), 0034).
 */
static enum wl_result propagation_records(void)
{
	struct wl_mount_counts c0;
	unsigned long long p_uniq;
	unsigned int p_id, q_id;
	int fd;

	WL_EXPECT(wl_tmpfs(BASE "/p", NULL) == 0, "mount %s/p", BASE);
	WL_EXPECT(wl_tmpfs(BASE "/p/q", NULL) == 0, "mount %s/p/q", BASE);
	p_id = wl_mnt_id(BASE "/p", false);
	q_id = wl_mnt_id(BASE "/p/q", false);
	p_uniq = wl_mnt_id(BASE "/p", true);
	WL_EXPECT(p_id && q_id && p_uniq, "mount IDs");
	fd = wl_vfs_queue_open(16);
	WL_EXPECT(fd >= 0, "notification pipe");
	WL_EXPECT(wl_watch_mount(AT_FDCWD, BASE "/p", 0, fd, 3) == 0,
		  "watch_mount(%s/p): %s", BASE, strerror(errno));
	WL_EXPECT(wl_mount_counts(p_uniq, &c0) == 0, "statmount counters: %s",
		  strerror(errno));

	WL_EXPECT(mount(NULL, BASE "/p", NULL, MS_SHARED, NULL) == 0,
		  "mount(MS_SHARED): %s", strerror(errno));
	struct mnt_ev ev = {
		.subtype = NOTIFY_MOUNT_SETATTR, .watch_id = 3,
		.noflags = NOTIFY_MOUNT_IN_SUBTREE | NOTIFY_MOUNT_IS_RECURSIVE,
		.triggered_on = p_id, .changed = p_id,
	};
	WL_EXPECT(expect_mnt(fd, "MS_SHARED", &ev) == 0, "SETATTR for p");
	WL_EXPECT(expect_nothing(fd, "MS_SHARED") == 0, "no further records");

	WL_EXPECT(mount(NULL, BASE "/p", NULL, MS_REC | MS_PRIVATE, NULL) == 0,
		  "mount(MS_REC | MS_PRIVATE): %s", strerror(errno));
	ev.flags = NOTIFY_MOUNT_IS_RECURSIVE;
	ev.noflags = NOTIFY_MOUNT_IN_SUBTREE;
	WL_EXPECT(expect_mnt(fd, "MS_REC | MS_PRIVATE, p", &ev) == 0, "SETATTR for p");
	ev.flags = NOTIFY_MOUNT_IS_RECURSIVE | NOTIFY_MOUNT_IN_SUBTREE;
	ev.noflags = 0;
	ev.changed = q_id;
	WL_EXPECT(expect_mnt(fd, "MS_REC | MS_PRIVATE, q", &ev) == 0, "SETATTR for q");
	WL_EXPECT(expect_nothing(fd, "MS_REC | MS_PRIVATE") == 0, "no further records");

	WL_EXPECT(counter_moved(p_uniq, &c0, 2, "two propagation changes") == 0,
		  "p's counter");

	/* The same change through mount_setattr(): SETATTR for p alone. */
	struct mount_attr attr = { .propagation = MS_SHARED };

	WL_EXPECT(syscall(SYS_mount_setattr, AT_FDCWD, BASE "/p", 0, &attr, sizeof(attr)) == 0,
		  "mount_setattr(propagation MS_SHARED): %s", strerror(errno));
	ev.flags = 0;
	ev.noflags = NOTIFY_MOUNT_IN_SUBTREE | NOTIFY_MOUNT_IS_RECURSIVE;
	ev.changed = p_id;
	WL_EXPECT(expect_mnt(fd, "mount_setattr(MS_SHARED), p", &ev) == 0, "SETATTR for p");
	WL_EXPECT(expect_nothing(fd, "mount_setattr(MS_SHARED)") == 0, "no further records");
	WL_EXPECT(counter_moved(p_uniq, &c0, 3, "three propagation changes") == 0,
		  "p's counter after mount_setattr()");
	wl_wq_close(fd);
	return WL_PASS;
}

/*
 * MOVE_MOUNT_SET_GROUP puts a private mount in another's peer group: a
 * propagation change, reported as mount(2) and mount_setattr() report one
 * (SETATTR on the mount, its counter moved).  Until 0034 it posted and
 * counted nothing (12-07 review L1), and a watcher that kept mountinfo's
 * "shared:" field went stale.
 */
static enum wl_result set_group_records(void)
{
	struct wl_mount_counts c0;
	unsigned long long b_uniq;
	unsigned int b_id;
	int fd;

	WL_EXPECT(wl_tmpfs(BASE "/a", NULL) == 0, "mount %s/a", BASE);
	WL_EXPECT(mount(NULL, BASE "/a", NULL, MS_SHARED, NULL) == 0,
		  "mount(MS_SHARED): %s", strerror(errno));
	WL_EXPECT(wl_mkdir(BASE "/b") == 0, "mkdir %s/b", BASE);
	WL_EXPECT(mount(BASE "/a", BASE "/b", NULL, MS_BIND, NULL) == 0,
		  "bind a on b: %s", strerror(errno));
	WL_EXPECT(mount(NULL, BASE "/b", NULL, MS_PRIVATE, NULL) == 0,
		  "mount(MS_PRIVATE) b: %s", strerror(errno));
	b_id = wl_mnt_id(BASE "/b", false);
	b_uniq = wl_mnt_id(BASE "/b", true);
	WL_EXPECT(b_id && b_uniq, "mount IDs");
	fd = wl_vfs_queue_open(16);
	WL_EXPECT(fd >= 0, "notification pipe");
	WL_EXPECT(wl_watch_mount(AT_FDCWD, BASE "/b", 0, fd, 5) == 0,
		  "watch_mount(%s/b): %s", BASE, strerror(errno));
	WL_EXPECT(wl_mount_counts(b_uniq, &c0) == 0, "statmount counters: %s",
		  strerror(errno));
	WL_EXPECT(syscall(SYS_move_mount, AT_FDCWD, BASE "/a", AT_FDCWD, BASE "/b",
			  MOVE_MOUNT_SET_GROUP) == 0,
		  "move_mount(MOVE_MOUNT_SET_GROUP): %s", strerror(errno));
	struct mnt_ev ev = {
		.subtype = NOTIFY_MOUNT_SETATTR, .watch_id = 5,
		.noflags = NOTIFY_MOUNT_IN_SUBTREE | NOTIFY_MOUNT_IS_RECURSIVE,
		.triggered_on = b_id, .changed = b_id,
	};
	WL_EXPECT(expect_mnt(fd, "MOVE_MOUNT_SET_GROUP", &ev) == 0, "SETATTR for b");
	WL_EXPECT(expect_nothing(fd, "MOVE_MOUNT_SET_GROUP") == 0, "no further records");
	WL_EXPECT(counter_moved(b_uniq, &c0, 1, "MOVE_MOUNT_SET_GROUP") == 0, "b's counter");
	wl_wq_close(fd);
	return WL_PASS;
}

/* umount2(MNT_EXPIRE) twice: the second unmounts and reports EXPIRY. */
static enum wl_result expiry_event(void)
{
	unsigned int base_id, e;
	int fd;

	WL_EXPECT(wl_tmpfs(BASE "/e", NULL) == 0, "mount e");
	base_id = wl_mnt_id(BASE, false);
	e = wl_mnt_id(BASE "/e", false);
	fd = wl_vfs_queue_open(64);
	WL_EXPECT(fd >= 0, "notification pipe");
	WL_EXPECT(wl_watch_mount(AT_FDCWD, BASE, 0, fd, 9) == 0,
		  "watch_mount: %s", strerror(errno));
	WL_EXPECT(wl_want_errno("first umount2(MNT_EXPIRE)",
				umount2(BASE "/e", MNT_EXPIRE), EAGAIN) == 0, "mark");
	WL_EXPECT(umount2(BASE "/e", MNT_EXPIRE) == 0, "second umount2(MNT_EXPIRE): %s",
		  strerror(errno));
	struct mnt_ev ev = {
		.subtype = NOTIFY_MOUNT_EXPIRY, .watch_id = 9,
		.flags = NOTIFY_MOUNT_IN_SUBTREE,
		.triggered_on = base_id, .changed = e, .aux = base_id, .want_aux = true,
	};
	WL_EXPECT(expect_mnt(fd, "expire", &ev) == 0, "EXPIRY");
	WL_EXPECT(expect_nothing(fd, "expire") == 0, "no further records");
	wl_wq_close(fd);
	return WL_PASS;
}

/* A watch on a directory sees mounts below it, not beside it. */
static enum wl_result subtree_selection(void)
{
	unsigned int base_id, in;
	int fd;

	WL_EXPECT(wl_mkdir(BASE "/watched") == 0 && wl_mkdir(BASE "/other") == 0, "mkdir");
	WL_EXPECT(wl_mkdir(BASE "/watched/deep") == 0, "mkdir");
	base_id = wl_mnt_id(BASE, false);
	fd = wl_vfs_queue_open(64);
	WL_EXPECT(fd >= 0, "notification pipe");
	WL_EXPECT(wl_watch_mount(AT_FDCWD, BASE "/watched", 0, fd, 3) == 0,
		  "watch_mount(watched): %s", strerror(errno));
	WL_EXPECT(wl_tmpfs(BASE "/other/x", NULL) == 0, "mount beside");
	WL_EXPECT(expect_nothing(fd, "a mount beside the watched directory") == 0,
		  "a mount outside the watched subtree was reported");
	WL_EXPECT(wl_tmpfs(BASE "/watched/deep/y", NULL) == 0, "mount below");
	in = wl_mnt_id(BASE "/watched/deep/y", false);
	struct mnt_ev ev = {
		.subtype = NOTIFY_MOUNT_NEW_MOUNT, .watch_id = 3,
		.flags = NOTIFY_MOUNT_IN_SUBTREE,
		.triggered_on = base_id, .changed = in, .aux = base_id, .want_aux = true,
	};
	WL_EXPECT(expect_mnt(fd, "mount below", &ev) == 0, "NEW_MOUNT below");
	wl_wq_close(fd);
	return WL_PASS;
}

static int set_filter(int fd, unsigned int subtypes, unsigned int info_mask,
		      unsigned int info_filter)
{
	struct {
		struct watch_notification_filter f;
		struct watch_notification_type_filter t[1];
	} flt = {
		.f.nr_filters = 1,
		.t[0] = {
			.type = WATCH_TYPE_MOUNT_NOTIFY,
			.subtype_filter[0] = subtypes,
			.info_mask = info_mask,
			.info_filter = info_filter,
		},
	};

	if (ioctl(fd, IOC_WATCH_QUEUE_SET_FILTER, &flt)) {
		wl_diag("IOC_WATCH_QUEUE_SET_FILTER: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* Subtype filter: only UNMOUNT passes. */
static enum wl_result subtype_filter(void)
{
	unsigned int base_id, f;
	int fd;

	base_id = wl_mnt_id(BASE, false);
	fd = wl_vfs_queue_open(64);
	WL_EXPECT(fd >= 0, "notification pipe");
	WL_EXPECT(set_filter(fd, 1U << NOTIFY_MOUNT_UNMOUNT, 0, 0) == 0, "filter");
	WL_EXPECT(wl_watch_mount(AT_FDCWD, BASE, 0, fd, 4) == 0,
		  "watch_mount: %s", strerror(errno));
	WL_EXPECT(wl_tmpfs(BASE "/f", NULL) == 0, "mount f");
	f = wl_mnt_id(BASE "/f", false);
	WL_EXPECT(mount(NULL, BASE "/f", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL) == 0,
		  "remount ro: %s", strerror(errno));
	WL_EXPECT(umount(BASE "/f") == 0, "umount: %s", strerror(errno));
	struct mnt_ev ev = {
		.subtype = NOTIFY_MOUNT_UNMOUNT, .watch_id = 4,
		.flags = NOTIFY_MOUNT_IN_SUBTREE,
		.triggered_on = base_id, .changed = f, .aux = base_id, .want_aux = true,
	};
	WL_EXPECT(expect_mnt(fd, "filtered", &ev) == 0,
		  "the first record through an UNMOUNT-only filter must be the UNMOUNT");
	WL_EXPECT(expect_nothing(fd, "unmount") == 0, "no further records");
	wl_wq_close(fd);
	return WL_PASS;
}

/* Info filter: IN_SUBTREE clear only, so the parent's watch sees nothing. */
static enum wl_result info_filter(void)
{
	unsigned int c;
	int fd;

	WL_EXPECT(wl_tmpfs(BASE "/c", NULL) == 0, "mount c");
	c = wl_mnt_id(BASE "/c", false);
	fd = wl_vfs_queue_open(64);
	WL_EXPECT(fd >= 0, "notification pipe");
	WL_EXPECT(set_filter(fd, ~0U, NOTIFY_MOUNT_IN_SUBTREE, 0) == 0, "filter");
	WL_EXPECT(wl_watch_mount(AT_FDCWD, BASE, 0, fd, 5) == 0, "watch parent: %s",
		  strerror(errno));
	WL_EXPECT(wl_watch_mount(AT_FDCWD, BASE "/c", 0, fd, 6) == 0, "watch child: %s",
		  strerror(errno));
	WL_EXPECT(mount(NULL, BASE "/c", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL) == 0,
		  "remount ro: %s", strerror(errno));
	struct mnt_ev ev = {
		.subtype = NOTIFY_MOUNT_READONLY, .watch_id = 6,
		.flags = NOTIFY_MOUNT_IS_NOW_RO, .noflags = NOTIFY_MOUNT_IN_SUBTREE,
		.triggered_on = c, .changed = c, .aux = 0, .want_aux = true,
	};
	WL_EXPECT(expect_mnt(fd, "info-filtered", &ev) == 0, "READONLY on own watch");
	WL_EXPECT(expect_nothing(fd, "remount ro") == 0,
		  "the parent's IN_SUBTREE record passed a filter that excludes it");
	wl_wq_close(fd);
	return WL_PASS;
}

/* Explicit removal: META removal record; removing again is EBADSLT. */
static enum wl_result remove_explicit(void)
{
	unsigned long long uid;
	int fd;

	uid = wl_mnt_id(BASE, true);
	fd = wl_vfs_queue_open(64);
	WL_EXPECT(fd >= 0, "notification pipe");
	WL_EXPECT(wl_watch_mount(AT_FDCWD, BASE, 0, fd, 0x42) == 0, "watch: %s",
		  strerror(errno));
	WL_EXPECT(wl_mkdir(BASE "/d") == 0, "mkdir");
	/* Removal may name any directory in the mount. */
	WL_EXPECT(wl_watch_mount(AT_FDCWD, BASE "/d", 0, fd, -1) == 0, "remove: %s",
		  strerror(errno));
	WL_EXPECT(expect_removal(fd, "explicit removal", 0x42, uid) == 0, "removal record");
	WL_EXPECT(wl_want_errno("second removal", wl_watch_mount(AT_FDCWD, BASE, 0, fd, -1),
				EBADSLT) == 0, "EBADSLT");
	WL_EXPECT(wl_tmpfs(BASE "/after", NULL) == 0, "mount after removal");
	WL_EXPECT(expect_nothing(fd, "removal") == 0, "a removed watch still delivered");
	/* And it can be set again. */
	WL_EXPECT(wl_watch_mount(AT_FDCWD, BASE, 0, fd, 0x43) == 0, "re-watch: %s",
		  strerror(errno));
	wl_wq_close(fd);
	return WL_PASS;
}

/*
 * The watched mount goes away: UNMOUNT on the watch itself, then the META
 * removal record.  The watch must not make umount(2) fail with EBUSY.
 */
static enum wl_result remove_by_unmount(void)
{
	unsigned long long uid;
	unsigned int g;
	int fd;

	WL_EXPECT(wl_tmpfs(BASE "/g", NULL) == 0, "mount g");
	g = wl_mnt_id(BASE "/g", false);
	uid = wl_mnt_id(BASE "/g", true);
	fd = wl_vfs_queue_open(64);
	WL_EXPECT(fd >= 0, "notification pipe");
	WL_EXPECT(wl_watch_mount(AT_FDCWD, BASE "/g", 0, fd, 0x33) == 0, "watch: %s",
		  strerror(errno));
	WL_EXPECT(umount(BASE "/g") == 0, "umount of a watched mount: %s", strerror(errno));
	struct mnt_ev ev = {
		.subtype = NOTIFY_MOUNT_UNMOUNT, .watch_id = 0x33,
		.noflags = NOTIFY_MOUNT_IN_SUBTREE,
		.triggered_on = g, .changed = g, .want_aux = false,
	};
	WL_EXPECT(expect_mnt(fd, "own unmount", &ev) == 0, "UNMOUNT");
	WL_EXPECT(expect_removal(fd, "unmount", 0x33, uid) == 0, "removal record");
	WL_EXPECT(expect_nothing(fd, "removal") == 0, "records after the removal");
	wl_wq_close(fd);
	return WL_PASS;
}

/*
 * Closing the queue drops the watch: a tmpfs whose only reference would be
 * the watch's dentry must unmount cleanly and its directory go away.
 */
static enum wl_result close_queue_unpins(void)
{
	int fd;

	WL_EXPECT(wl_tmpfs(BASE "/h", NULL) == 0, "mount h");
	WL_EXPECT(wl_mkdir(BASE "/h/sub") == 0, "mkdir");
	fd = wl_vfs_queue_open(64);
	WL_EXPECT(fd >= 0, "notification pipe");
	WL_EXPECT(wl_watch_mount(AT_FDCWD, BASE "/h/sub", 0, fd, 1) == 0, "watch: %s",
		  strerror(errno));
	wl_wq_close(fd);
	WL_EXPECT(rmdir(BASE "/h/sub") == 0, "rmdir: %s", strerror(errno));
	WL_EXPECT(umount(BASE "/h") == 0, "umount after closing the queue: %s",
		  strerror(errno));
	return WL_PASS;
}

/* A detached fsmount() tree dissolved at close: UNMOUNT then removal. */
static enum wl_result fsmount_dissolve(void)
{
	unsigned long long uid;
	unsigned int id;
	int fs, mfd, fd;
	char path[64];

	fs = syscall(SYS_fsopen, "tmpfs", 0);
	WL_EXPECT(fs >= 0, "fsopen: %s", strerror(errno));
	WL_EXPECT(syscall(SYS_fsconfig, fs, 6 /* FSCONFIG_CMD_CREATE */, NULL, NULL, 0) == 0,
		  "fsconfig create: %s", strerror(errno));
	mfd = syscall(SYS_fsmount, fs, 0, 0);
	WL_EXPECT(mfd >= 0, "fsmount: %s", strerror(errno));
	close(fs);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", mfd);
	id = wl_mnt_id(path, false);
	uid = wl_mnt_id(path, true);
	fd = wl_vfs_queue_open(64);
	WL_EXPECT(fd >= 0, "notification pipe");
	WL_EXPECT(wl_watch_mount(mfd, "", AT_EMPTY_PATH, fd, 0x21) == 0,
		  "watch_mount(fsmount fd, AT_EMPTY_PATH): %s", strerror(errno));
	close(mfd);
	struct mnt_ev ev = {
		.subtype = NOTIFY_MOUNT_UNMOUNT, .watch_id = 0x21,
		.noflags = NOTIFY_MOUNT_IN_SUBTREE,
		.triggered_on = id, .changed = id, .aux = 0, .want_aux = true,
	};
	WL_EXPECT(expect_mnt(fd, "dissolve", &ev) == 0, "UNMOUNT of the detached tree");
	WL_EXPECT(expect_removal(fd, "dissolve", 0x21, uid) == 0, "removal record");
	wl_wq_close(fd);
	return WL_PASS;
}

/* Every argument error and its errno. */
static enum wl_result argument_errors(void)
{
	int fd, other, file;
	int bad = 0;

	file = open(BASE "/file", O_CREAT | O_RDWR | O_CLOEXEC, 0644);
	WL_EXPECT(file >= 0, "create file: %s", strerror(errno));
	/* A symlink to BASE: AT_SYMLINK_NOFOLLOW stops on the link itself. */
	unlink(BASE "/lnk");
	WL_EXPECT(symlink(".", BASE "/lnk") == 0, "symlink: %s", strerror(errno));
	fd = wl_vfs_queue_open(64);
	other = wl_vfs_queue_open(64);
	WL_EXPECT(fd >= 0 && other >= 0, "notification pipes");

	const struct wl_vfs_bad_call cases[] = {
		{ "bad dfd", 9999, "x", 0, fd, 1, EBADF },
		{ "missing path", AT_FDCWD, BASE "/nope", 0, fd, 1, ENOENT },
		{ "path not a directory", AT_FDCWD, BASE "/file", 0, fd, 1, ENOTDIR },
		{ "unknown at_flags", AT_FDCWD, BASE, 0x8000, fd, 1, EINVAL },
		{ "AT_REMOVEDIR", AT_FDCWD, BASE, AT_REMOVEDIR, fd, 1, EINVAL },
		{ "watch_id 256", AT_FDCWD, BASE, 0, fd, 256, EINVAL },
		{ "watch_id -2", AT_FDCWD, BASE, 0, fd, -2, EINVAL },
		{ "watch_fd a regular file", AT_FDCWD, BASE, 0, file, 1, EINVAL },
		{ "watch_fd not open", AT_FDCWD, BASE, 0, 9999, 1, EINVAL },
		{ "remove without a watch", AT_FDCWD, BASE, 0, fd, -1, EBADSLT },
		{ "empty path without AT_EMPTY_PATH", AT_FDCWD, "", 0, fd, 1, ENOENT },
		{ "symlink with AT_SYMLINK_NOFOLLOW", AT_FDCWD, BASE "/lnk", AT_SYMLINK_NOFOLLOW,
		  fd, 1, ENOTDIR },
	};

	bad = wl_vfs_bad_calls(wl_watch_mount, cases, WL_ARRAY_SIZE(cases));
	/* Duplicate: same queue, same mount (another directory in it). */
	WL_EXPECT(wl_mkdir(BASE "/d2") == 0, "mkdir");
	/* The largest watch_id, 0xff, is a watch_id (256 is not, above). */
	WL_EXPECT(wl_watch_mount(AT_FDCWD, BASE, 0, fd, 0xff) == 0, "first watch, id 0xff: %s",
		  strerror(errno));
	if (wl_want_errno("duplicate watch", wl_watch_mount(AT_FDCWD, BASE, 0, fd, 2), EBUSY) ||
	    wl_want_errno("duplicate watch, other directory",
			  wl_watch_mount(AT_FDCWD, BASE "/d2", 0, fd, 2), EBUSY) ||
	    wl_want_errno("duplicate watch, through the followed symlink",
			  wl_watch_mount(AT_FDCWD, BASE "/lnk", 0, fd, 2), EBUSY))
		bad = 1;
	/* Another queue on the same mount is fine. */
	if (wl_watch_mount(AT_FDCWD, BASE, 0, other, 1)) {
		wl_diag("a second queue on the same mount: %s", strerror(errno));
		bad = 1;
	}
	/* Removing from a queue that has no watch there. */
	if (wl_watch_mount(AT_FDCWD, BASE, 0, other, -1) ||
	    wl_want_errno("remove twice", wl_watch_mount(AT_FDCWD, BASE, 0, other, -1),
			  EBADSLT))
		bad = 1;
	close(file);
	wl_wq_close(fd);
	wl_wq_close(other);
	return bad ? WL_FAIL : WL_PASS;
}

/* A lazily unmounted mount can't be watched any more: ENOENT. */
static enum wl_result watch_after_lazy_umount(void)
{
	int dfd, fd;
	long r;

	WL_EXPECT(wl_tmpfs(BASE "/l", NULL) == 0, "mount l");
	dfd = open(BASE "/l", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	WL_EXPECT(dfd >= 0, "open: %s", strerror(errno));
	WL_EXPECT(umount2(BASE "/l", MNT_DETACH) == 0, "lazy umount: %s", strerror(errno));
	fd = wl_vfs_queue_open(64);
	WL_EXPECT(fd >= 0, "notification pipe");
	r = wl_watch_mount(dfd, "", AT_EMPTY_PATH, fd, 1);
	WL_EXPECT(wl_want_errno("watch on a lazily unmounted mount", r, ENOENT) == 0,
		  "ENOENT");
	close(dfd);
	wl_wq_close(fd);
	return WL_PASS;
}

/*
 * A refused watch_mount() keeps nothing of the mount it named: a tmpfs
 * whose superblock is watched takes a second mount watch (EBUSY), and
 * another, once lazily unmounted, one more (ENOENT); when the last
 * reference to each goes, its superblock dies and the sb watch gets its
 * removal record.  A refusal that kept the path's dentry and active
 * superblock reference would keep the superblock alive: no record.
 */
static enum wl_result refused_watch_keeps_nothing(void)
{
	struct wl_record rec;
	int fd, dfd;

	fd = wl_vfs_queue_open(64);
	WL_EXPECT(fd >= 0, "notification pipe");
	WL_EXPECT(wl_tmpfs(BASE "/k", NULL) == 0 && wl_tmpfs(BASE "/e", NULL) == 0,
		  "mount k and e");
	WL_EXPECT(wl_watch_sb(AT_FDCWD, BASE "/k", 0, fd, 0x61) == 0 &&
		  wl_watch_sb(AT_FDCWD, BASE "/e", 0, fd, 0x62) == 0,
		  "watch_sb on k and e: %s", strerror(errno));
	WL_EXPECT(wl_watch_mount(AT_FDCWD, BASE "/k", 0, fd, 0x63) == 0,
		  "watch_mount k: %s", strerror(errno));
	WL_EXPECT(wl_want_errno("a second watch on k", wl_watch_mount(AT_FDCWD, BASE "/k", 0, fd,
								     0x64), EBUSY) == 0, "EBUSY");
	WL_EXPECT(wl_watch_mount(AT_FDCWD, BASE "/k", 0, fd, -1) == 0,
		  "remove the watch on k: %s", strerror(errno));
	WL_EXPECT(wl_wq_expect(fd, WATCH_TYPE_META, WATCH_META_REMOVAL_NOTIFICATION, &rec,
			       WL_EVENT_TIMEOUT_MS) == 1 && rec.watch_id == 0x63,
		  "no removal record for k's mount watch");
	WL_EXPECT(umount(BASE "/k") == 0, "umount k: %s", strerror(errno));
	WL_EXPECT(wl_wq_expect(fd, WATCH_TYPE_META, WATCH_META_REMOVAL_NOTIFICATION, &rec,
			       WL_EVENT_TIMEOUT_MS * 4) == 1 && rec.watch_id == 0x61,
		  "k's superblock did not die after a watch on it was refused (EBUSY)");

	dfd = open(BASE "/e", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	WL_EXPECT(dfd >= 0, "open e: %s", strerror(errno));
	WL_EXPECT(umount2(BASE "/e", MNT_DETACH) == 0, "lazy umount e: %s", strerror(errno));
	WL_EXPECT(wl_want_errno("a watch on e, lazily unmounted",
				wl_watch_mount(dfd, "", AT_EMPTY_PATH, fd, 0x65), ENOENT) == 0,
		  "ENOENT");
	close(dfd);
	WL_EXPECT(wl_wq_expect(fd, WATCH_TYPE_META, WATCH_META_REMOVAL_NOTIFICATION, &rec,
			       WL_EVENT_TIMEOUT_MS * 4) == 1 && rec.watch_id == 0x62,
		  "e's superblock did not die after a watch on it was refused (ENOENT)");
	wl_wq_close(fd);
	return WL_PASS;
}

static const struct wl_test tests[] = {
	{ "new_readonly_unmount", new_readonly_unmount },
	{ "setattr_events", setattr_events },
	{ "remount_records", remount_records },
	{ "move_events", move_events },
	{ "pivot_root_moves", pivot_root_moves },
	{ "propagation_records", propagation_records },
	{ "set_group_records", set_group_records },
	{ "expiry_event", expiry_event },
	{ "subtree_selection", subtree_selection },
	{ "subtype_filter", subtype_filter },
	{ "info_filter", info_filter },
	{ "remove_explicit", remove_explicit },
	{ "remove_by_unmount", remove_by_unmount },
	{ "close_queue_unpins", close_queue_unpins },
	{ "fsmount_dissolve", fsmount_dissolve },
	{ "argument_errors", argument_errors },
	{ "watch_after_lazy_umount", watch_after_lazy_umount },
	{ "refused_watch_keeps_nothing", refused_watch_keeps_nothing },
};

/* Each test twice: queues on the pipe, then on the /dev/watch_queue ring. */
WL_SUITE(suite_mount, tests, .axis = WL_AXIS_TRANSPORT, .setup = base_setup,
	 .teardown = base_teardown);
