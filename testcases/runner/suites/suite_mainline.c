// SPDX-License-Identifier: GPL-2.0
/*
 * suite_mainline.c - what mainline chose instead of the 2019 series, on
 * the same kernel: fanotify mount-namespace marks (FAN_MNT_ATTACH and
 * FAN_MNT_DETACH, Linux 6.15-6.17, kernel-patches 0026-0032),
 * filesystem-error events (FAN_FS_ERROR, 6.12's own) and kobject uevents.
 *
 * Each test states one of mainline's rules, from its code, and checks the
 * kernel keeps it:
 * - a mount-namespace mark sees attach, detach and move (one event, both
 *   bits) of every mount in that namespace, each with the mount's 64-bit
 *   unique ID, and nothing for a remount or a mount_setattr();
 * - it is judged once, when it is set: CAP_SYS_ADMIN in the user namespace
 *   the group was made in and in the one owning the mount namespace, then
 *   SELinux's file:watch_mountns on the nsfs file; Smack checks nothing;
 * - a mark on a path that is no mount namespace is EINVAL, also from a
 *   user namespace (the NULL dereference fixed in 6.17, folded into 0031);
 * - FAN_FS_ERROR needs CAP_SYS_ADMIN and reports the first error of a
 *   filesystem in full and counts the ones after it;
 * - any uid hears every uevent on NETLINK_KOBJECT_UEVENT, no hook deciding,
 *   where kernel.dmesg_restrict refuses it the 2019 series' device watch.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/netlink.h>

#include "devices_util.h"
#include "label.h"
#include "vfs_util.h"
#include "wl.h"

#define ML_BASE "/tmp/wlml"
#define ML_EXT4_IMG "/tmp/wlml.img"

#ifndef MOUNT_ATTR_NOEXEC
#define MOUNT_ATTR_NOEXEC 0x00000008
#endif

/* One fanotify mount event, checked against the UAPI's layout. */
struct ml_event {
	uint64_t mask;
	uint64_t mnt_id;
};

/*
 * Read one event from a FAN_REPORT_MNT group within timeout_ms: 1 and *ev,
 * 0 on timeout, -1 (diagnosed) when the event is not what the UAPI says a
 * mount event is: one metadata block, no fd, one MNT info record.  The
 * read asks for exactly that many bytes: a buffer that just fits one
 * event must get it whole.
 */
static int ml_read_mnt_event(int fd, struct ml_event *ev, int timeout_ms)
{
	union {
		struct fanotify_event_metadata md;
		char buf[256];
	} u;
	const struct fanotify_event_info_mnt *info;
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	ssize_t n;

	if (poll(&pfd, 1, timeout_ms) == 0)
		return 0;
	n = read(fd, u.buf, sizeof(u.md) + sizeof(*info));
	if (n < 0) {
		wl_diag("read fanotify: %s", strerror(errno));
		return -1;
	}
	if ((size_t)n != sizeof(u.md) + sizeof(*info) || u.md.event_len != n ||
	    u.md.vers != FANOTIFY_METADATA_VERSION ||
	    u.md.metadata_len != sizeof(u.md) || u.md.fd != FAN_NOFD) {
		wl_diag("event: read %zd, event_len %u vers %u metadata_len %u fd %d; want %zu, %d, %zu, FAN_NOFD",
			n, u.md.event_len, u.md.vers, u.md.metadata_len, u.md.fd,
			sizeof(u.md) + sizeof(*info), FANOTIFY_METADATA_VERSION, sizeof(u.md));
		return -1;
	}
	info = (const void *)(u.buf + sizeof(u.md));
	if (info->hdr.info_type != FAN_EVENT_INFO_TYPE_MNT || info->hdr.len != sizeof(*info)) {
		wl_diag("info record type %u len %u, want FAN_EVENT_INFO_TYPE_MNT (%d) len %zu",
			info->hdr.info_type, info->hdr.len, FAN_EVENT_INFO_TYPE_MNT,
			sizeof(*info));
		return -1;
	}
	ev->mask = u.md.mask;
	ev->mnt_id = info->mnt_id;
	return 1;
}

/* The next event must be mask on mnt_id. */
static int ml_expect(int fd, const char *what, uint64_t mask, uint64_t mnt_id)
{
	struct ml_event ev;
	int r = ml_read_mnt_event(fd, &ev, wl_slow_ms(WL_EVENT_TIMEOUT_MS * 4));

	if (r <= 0) {
		wl_diag("%s: %s", what, r ? "bad event" : "no event");
		return -1;
	}
	if (ev.mask != mask || ev.mnt_id != mnt_id) {
		wl_diag("%s: mask %#llx mnt_id %#llx, want %#llx on %#llx", what,
			(unsigned long long)ev.mask, (unsigned long long)ev.mnt_id,
			(unsigned long long)mask, (unsigned long long)mnt_id);
		return -1;
	}
	return 0;
}

/* A FAN_REPORT_MNT group: its fd, or -1 (diagnosed). */
static int ml_mntns_init(void)
{
	int fd = fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_MNT | FAN_CLOEXEC, 0);

	if (fd < 0)
		wl_diag("uid %u: fanotify_init(FAN_REPORT_MNT): %s", getuid(), strerror(errno));
	return fd;
}

/* Mark the mount namespace of ns_path (dfd itself if NULL): 0, or -1 with errno. */
static int ml_mntns_mark(int fd, int dfd, const char *ns_path)
{
	return fanotify_mark(fd, FAN_MARK_ADD | FAN_MARK_MNTNS,
			     FAN_MNT_ATTACH | FAN_MNT_DETACH, dfd, ns_path);
}

/* A FAN_REPORT_MNT group marking our mount namespace: its fd, or -1 (diagnosed). */
static int ml_mntns_group(void)
{
	int fd = ml_mntns_init();

	if (fd >= 0 && ml_mntns_mark(fd, AT_FDCWD, "/proc/self/ns/mnt")) {
		wl_diag("mark our mount namespace: %s", strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/* A mount namespace of our own, all private, with a tmpfs at ML_BASE. */
static int ml_own_mntns(void)
{
	if (unshare(CLONE_NEWNS)) {
		wl_diag("unshare(CLONE_NEWNS): %s", strerror(errno));
		return -1;
	}
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL)) {
		wl_diag("make / private: %s", strerror(errno));
		return -1;
	}
	return wl_tmpfs(ML_BASE, NULL) || wl_mkdir(ML_BASE "/a") || wl_mkdir(ML_BASE "/b") ?
	       -1 : 0;
}

/*
 * As uid 1000: a user namespace mapping root to it, with a mount namespace
 * of its own (unshare -Urm).  0 or -1.
 */
static int ml_own_userns(void)
{
	static const char map[] = "0 1000 1";

	/* The uid switch made us undumpable: /proc/self would be root's. */
	if (prctl(PR_SET_DUMPABLE, 1)) {
		wl_diag("prctl(PR_SET_DUMPABLE): %s", strerror(errno));
		return -1;
	}
	if (unshare(CLONE_NEWUSER | CLONE_NEWNS)) {
		wl_diag("unshare(CLONE_NEWUSER | CLONE_NEWNS): %s", strerror(errno));
		return -1;
	}
	if (wl_write_file("/proc/self/setgroups", "deny") ||
	    wl_write_file("/proc/self/uid_map", map) ||
	    wl_write_file("/proc/self/gid_map", "0 1000 1"))
		return -1;
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL)) {
		wl_diag("make / private in the new mount namespace: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* fn as uid 1000: a pass if it returns 0, else a failure naming what. */
static enum wl_result ml_as_user(int (*fn)(void *), const char *what)
{
	struct wl_creds user = wl_user(1000);

	WL_EXPECT(wl_run_as(&user, fn, NULL) == 0, "%s", what);
	return WL_PASS;
}

/* Attach, move (one event with both bits) and detach, each with its unique ID. */
static enum wl_result mntns_attach_move_detach(void)
{
	uint64_t id;
	int fd;

	WL_EXPECT(ml_own_mntns() == 0, "a mount namespace of our own");
	fd = ml_mntns_group();
	WL_EXPECT(fd >= 0, "a group marking our mount namespace");
	WL_EXPECT(mount("wlml", ML_BASE "/a", "tmpfs", 0, NULL) == 0, "mount: %s",
		  strerror(errno));
	id = wl_mnt_id(ML_BASE "/a", true);
	WL_EXPECT(id != 0, "the new mount's unique ID");
	WL_EXPECT(ml_expect(fd, "mount", FAN_MNT_ATTACH, id) == 0, "ATTACH");
	WL_EXPECT(mount(ML_BASE "/a", ML_BASE "/b", NULL, MS_MOVE, NULL) == 0,
		  "move a to b: %s", strerror(errno));
	WL_EXPECT(ml_expect(fd, "move", FAN_MNT_ATTACH | FAN_MNT_DETACH, id) == 0,
		  "one event for the move, both bits");
	WL_EXPECT(umount(ML_BASE "/b") == 0, "umount: %s", strerror(errno));
	WL_EXPECT(ml_expect(fd, "umount", FAN_MNT_DETACH, id) == 0, "DETACH");
	close(fd);
	return WL_PASS;
}

/*
 * A read-only remount and a mount_setattr() have no mainline event (the
 * proposed FAN_MNT_CHANGE was dropped): the next event is the fence
 * mount's ATTACH, not anything about the changed mount.
 */
static enum wl_result mntns_attribute_changes_post_nothing(void)
{
	struct mount_attr attr = { .attr_set = MOUNT_ATTR_NOEXEC };
	uint64_t id;
	int fd;

	WL_EXPECT(ml_own_mntns() == 0, "a mount namespace of our own");
	WL_EXPECT(mount("wlml", ML_BASE "/a", "tmpfs", 0, NULL) == 0, "mount: %s",
		  strerror(errno));
	fd = ml_mntns_group();
	WL_EXPECT(fd >= 0, "a group marking our mount namespace");
	WL_EXPECT(mount(NULL, ML_BASE "/a", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL) == 0,
		  "remount read-only: %s", strerror(errno));
	WL_EXPECT(syscall(SYS_mount_setattr, AT_FDCWD, ML_BASE "/a", 0, &attr,
			  sizeof(attr)) == 0, "mount_setattr NOEXEC: %s", strerror(errno));
	WL_EXPECT(mount("wlml-fence", ML_BASE "/b", "tmpfs", 0, NULL) == 0, "fence mount: %s",
		  strerror(errno));
	id = wl_mnt_id(ML_BASE "/b", true);
	WL_EXPECT(ml_expect(fd, "the fence mount, first", FAN_MNT_ATTACH, id) == 0,
		  "nothing before the fence");
	close(fd);
	return WL_PASS;
}

/* Every init and mark argument mainline refuses for a mount-namespace group. */
static enum wl_result mntns_bad_arguments(void)
{
	int fd, bad = 0, dir;

	bad |= wl_want_errno("FAN_REPORT_MNT with FAN_CLASS_CONTENT",
			     fanotify_init(FAN_CLASS_CONTENT | FAN_REPORT_MNT, 0), EINVAL);
	bad |= wl_want_errno("FAN_REPORT_MNT with FAN_REPORT_FID",
			     fanotify_init(FAN_REPORT_MNT | FAN_REPORT_FID, 0), EINVAL);
	bad |= wl_want_errno("FAN_REPORT_MNT with FAN_REPORT_FD_ERROR",
			     fanotify_init(FAN_REPORT_MNT | FAN_REPORT_FD_ERROR, 0), EINVAL);
	fd = fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_MNT | FAN_CLOEXEC, 0);
	WL_EXPECT(fd >= 0, "fanotify_init(FAN_REPORT_MNT): %s", strerror(errno));
	bad |= wl_want_errno("an inode mark on a FAN_REPORT_MNT group",
			     fanotify_mark(fd, FAN_MARK_ADD, FAN_MNT_ATTACH, AT_FDCWD, "/"),
			     EINVAL);
	bad |= wl_want_errno("FAN_OPEN on a FAN_REPORT_MNT group",
			     fanotify_mark(fd, FAN_MARK_ADD | FAN_MARK_MNTNS, FAN_OPEN,
					   AT_FDCWD, "/proc/self/ns/mnt"), EINVAL);
	bad |= wl_want_errno("a mount-namespace mark on a directory",
			     fanotify_mark(fd, FAN_MARK_ADD | FAN_MARK_MNTNS, FAN_MNT_ATTACH,
					   AT_FDCWD, "/"), EINVAL);
	bad |= wl_want_errno("a mount-namespace mark on the net namespace file",
			     fanotify_mark(fd, FAN_MARK_ADD | FAN_MARK_MNTNS, FAN_MNT_ATTACH,
					   AT_FDCWD, "/proc/self/ns/net"), EINVAL);
	/* FAN_MARK_IGNORE needs FAN_MARK_IGNORED_SURV_MODIFY on a non-inode mark. */
	bad |= wl_want_errno("an ignore mount-namespace mark without SURV_MODIFY",
			     fanotify_mark(fd, FAN_MARK_ADD | FAN_MARK_MNTNS | FAN_MARK_IGNORE,
					   FAN_MNT_ATTACH, AT_FDCWD, "/proc/self/ns/mnt"), EINVAL);
	close(fd);
	fd = fanotify_init(FAN_CLASS_NOTIF | FAN_CLOEXEC, 0);
	WL_EXPECT(fd >= 0, "fanotify_init: %s", strerror(errno));
	bad |= wl_want_errno("FAN_MARK_MNTNS without FAN_REPORT_MNT",
			     fanotify_mark(fd, FAN_MARK_ADD | FAN_MARK_MNTNS, FAN_MNT_ATTACH,
					   AT_FDCWD, "/proc/self/ns/mnt"), EINVAL);
	dir = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	bad |= wl_want_errno("FAN_MNT_ATTACH on a mount mark without FAN_REPORT_MNT",
			     fanotify_mark(fd, FAN_MARK_ADD | FAN_MARK_MOUNT, FAN_MNT_ATTACH,
					   dir, NULL), EINVAL);
	/*
	 * FAN_MARK_IGNORE without SURV_MODIFY: EISDIR on a directory's inode
	 * mark, EINVAL on a mount mark, which has no inode (0027 made the
	 * test "no inode" for the mount-namespace marks, which have none).
	 */
	bad |= wl_want_errno("an ignore mark on a directory without SURV_MODIFY",
			     fanotify_mark(fd, FAN_MARK_ADD | FAN_MARK_IGNORE, FAN_OPEN,
					   dir, NULL), EISDIR);
	bad |= wl_want_errno("an ignore mount mark without SURV_MODIFY",
			     fanotify_mark(fd, FAN_MARK_ADD | FAN_MARK_MOUNT | FAN_MARK_IGNORE,
					   FAN_OPEN, dir, NULL), EINVAL);
	close(dir);
	close(fd);
	return bad ? WL_FAIL : WL_PASS;
}

static int unprivileged_mark(void *arg)
{
	/* 6.16 lets anyone make the group; only the mark needs CAP_SYS_ADMIN. */
	int fd = ml_mntns_init();

	(void)arg;
	return fd < 0 ||
	       wl_want_errno("uid 1000 marking the initial mount namespace",
			     ml_mntns_mark(fd, AT_FDCWD, "/proc/self/ns/mnt"), EPERM) ? 1 : 0;
}

/* Without CAP_SYS_ADMIN, no mount-namespace mark: the 2019 use case lost. */
static enum wl_result mntns_mark_needs_cap_sys_admin(void)
{
	struct wl_creds user = wl_user(1000);

	WL_EXPECT(wl_run_as(&user, unprivileged_mark, NULL) == 0, "uid 1000's mark");
	return WL_PASS;
}

static int userns_own_ns(void *arg)
{
	uint64_t id;
	int fd;

	(void)arg;
	if (ml_own_userns() || wl_tmpfs(ML_BASE, NULL) || wl_mkdir(ML_BASE "/a"))
		return 1;
	fd = ml_mntns_group();
	if (fd < 0)
		return 1;
	if (mount("wlml", ML_BASE "/a", "tmpfs", 0, NULL)) {
		wl_diag("mount in our user namespace: %s", strerror(errno));
		return 1;
	}
	id = wl_mnt_id(ML_BASE "/a", true);
	return id && ml_expect(fd, "mount in our own namespaces", FAN_MNT_ATTACH, id) == 0 ?
	       0 : 1;
}

/*
 * 6.16's rule (0031): the admin of a user namespace may watch a mount
 * namespace that namespace owns, and hears its mounts.
 */
static enum wl_result mntns_userns_admin_watches_own_ns(void)
{
	return ml_as_user(userns_own_ns, "uid 1000 watching the mount namespace its user namespace owns");
}

static int userns_parent_ns(void *arg)
{
	int ns, fd;

	(void)arg;
	/* Opened before unsharing: the initial mount namespace, owned by init_user_ns. */
	ns = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
	if (ns < 0) {
		wl_diag("open /proc/self/ns/mnt: %s", strerror(errno));
		return 1;
	}
	if (ml_own_userns())
		return 1;
	fd = ml_mntns_init();
	return fd < 0 ||
	       wl_want_errno("marking the initial mount namespace from a child user namespace",
			     ml_mntns_mark(fd, ns, NULL), EPERM) ? 1 : 0;
}

/* ...but not one its user namespace does not own. */
static enum wl_result mntns_userns_admin_not_parent_ns(void)
{
	return ml_as_user(userns_parent_ns, "uid 1000's user namespace marking the initial mount namespace");
}

/*
 * A fresh group with init_flags marks path with mark_flags and mask: 0 if
 * the mark ends as want says (0: set), else 1 (diagnosed).
 */
static int ml_want_mark(const char *what, unsigned int init_flags, unsigned int mark_flags,
			uint64_t mask, const char *path, int want)
{
	int fd = fanotify_init(FAN_CLASS_NOTIF | FAN_CLOEXEC | init_flags, 0), r;

	if (fd < 0) {
		wl_diag("uid %u: fanotify_init(%#x): %s", getuid(), init_flags, strerror(errno));
		return 1;
	}
	r = wl_want_errno(what, fanotify_mark(fd, FAN_MARK_ADD | mark_flags, mask, AT_FDCWD,
					      path), want) ? 1 : 0;
	close(fd);
	return r;
}

static int userns_not_nsfs(void *arg)
{
	(void)arg;
	if (ml_own_userns() || wl_mkdir("/tmp/wlml-A"))
		return 1;
	return ml_want_mark("a mount-namespace mark on a directory, from a user namespace",
			    FAN_REPORT_MNT, FAN_MARK_MNTNS, FAN_MNT_ATTACH, "/tmp/wlml-A", EINVAL);
}

/*
 * Anderson Nascimento's reproducer (mainline 62e59ffe8787, folded into 0031): unshare -Urm, then
 * a mount-namespace mark on a plain directory.  6.16 dereferenced NULL
 * here; the fix makes it EINVAL.  A kernel without the fix oopses, which
 * kills the child and leaves an Oops on the console.
 */
static enum wl_result mntns_userns_mark_not_nsfs_einval(void)
{
	return ml_as_user(userns_not_nsfs, "uid 1000's mount-namespace mark on a directory");
}

static int labelled_mark(void *arg)
{
	int want = *(const int *)arg, fd;

	fd = ml_mntns_init();
	return fd < 0 ||
	       wl_want_errno("root labelled bystander marking its mount namespace",
			     ml_mntns_mark(fd, AT_FDCWD, "/proc/self/ns/mnt"), want) ? 1 : 0;
}

/*
 * The one LSM check on a mount-namespace watch: SELinux's file:watch_mountns
 * on the nsfs file (0029), which policy/selinux/watchlab.te gives the
 * watcher and the triggerer but not the bystander.  Smack implements no
 * path_notify hook, so the same bystander (root, with its Smack label) may
 * watch; plain has no label to judge.
 */
static enum wl_result mntns_lsm_judges_the_watch(void)
{
	struct wl_creds root = { .label = NULL };
	char label[128];
	int want = strcmp(wl_profile(), "selinux") == 0 ? EACCES : 0;

	if (strcmp(wl_profile(), "plain")) {
		WL_EXPECT(wl_label_lookup("bystander", label, sizeof(label)) == 0,
			  "the bystander's label");
		root.label = label;
	}
	WL_EXPECT(wl_run_as(&root, labelled_mark, &want) == 0,
		  "the bystander's mount-namespace mark in the %s profile", wl_profile());
	return WL_PASS;
}

/* A fresh ext4 image, loop-mounted at ML_BASE with errors=continue. */
static int ml_ext4(char *attr, size_t len)
{
	struct stat st;

	umount2(ML_BASE, MNT_DETACH);
	if (wl_sh("dd if=/dev/zero of=" ML_EXT4_IMG " bs=1k count=2048 2>/dev/null") ||
	    wl_sh("mke2fs -F " ML_EXT4_IMG " >/dev/null 2>&1") || wl_mkdir(ML_BASE) ||
	    wl_sh("mount -t ext4 -o loop,errors=continue " ML_EXT4_IMG " " ML_BASE))
		return -1;
	if (stat(ML_BASE, &st)) {
		wl_diag("stat %s: %s", ML_BASE, strerror(errno));
		return -1;
	}
	snprintf(attr, len, "/sys/fs/ext4/loop%u/trigger_fs_error", minor(st.st_dev));
	return 0;
}

static int ml_trigger_ext4_error(const char *attr)
{
	return wl_write_file(attr, "watchlab");
}

/*
 * FAN_FS_ERROR (5.16): a filesystem mark on a FID group.  Two errors before
 * the watcher reads give one event: the first error in full (EFSCORRUPTED,
 * the filesystem's FID), the second only counted (error_count 2).
 */
static enum wl_result fs_error_first_in_full_then_counted(void)
{
	union {
		struct fanotify_event_metadata md;
		char buf[512];
	} u;
	const struct fanotify_event_info_header *hdr;
	const struct fanotify_event_info_error *err = NULL;
	bool fid = false;
	char attr[96];
	ssize_t n, off;
	int fd;

	WL_EXPECT(ml_own_mntns() == 0, "a mount namespace of our own");
	WL_EXPECT(ml_ext4(attr, sizeof(attr)) == 0, "an ext4 image at %s", ML_BASE);
	fd = fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_FID | FAN_CLOEXEC | FAN_NONBLOCK, 0);
	WL_EXPECT(fd >= 0, "fanotify_init(FAN_REPORT_FID): %s", strerror(errno));
	WL_EXPECT(fanotify_mark(fd, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_FS_ERROR,
				AT_FDCWD, ML_BASE) == 0, "filesystem mark: %s", strerror(errno));
	WL_EXPECT(ml_trigger_ext4_error(attr) == 0 && ml_trigger_ext4_error(attr) == 0,
		  "two ext4 errors");
	n = read(fd, u.buf, sizeof(u.buf));
	WL_EXPECT(n >= (ssize_t)sizeof(u.md) && u.md.event_len == n,
		  "one FAN_FS_ERROR event: read %zd (%s), event_len %u", n,
		  n < 0 ? strerror(errno) : "", n > 0 ? u.md.event_len : 0);
	WL_EXPECT(u.md.mask == FAN_FS_ERROR && u.md.fd == FAN_NOFD,
		  "mask %#llx fd %d, want FAN_FS_ERROR and FAN_NOFD",
		  (unsigned long long)u.md.mask, u.md.fd);
	for (off = sizeof(u.md); off + (ssize_t)sizeof(*hdr) <= n; off += hdr->len) {
		hdr = (const void *)(u.buf + off);
		WL_EXPECT(hdr->len >= sizeof(*hdr) && off + hdr->len <= n,
			  "info record at %zd: length %u", off, hdr->len);
		if (hdr->info_type == FAN_EVENT_INFO_TYPE_ERROR)
			err = (const void *)hdr;
		else if (hdr->info_type == FAN_EVENT_INFO_TYPE_FID)
			fid = true;
	}
	WL_EXPECT(err && fid, "an ERROR record (%s) and a FID record (%s)",
		  err ? "yes" : "no", fid ? "yes" : "no");
	WL_EXPECT(err->error == EUCLEAN && err->error_count == 2,
		  "error %d count %u, want EFSCORRUPTED (%d) counted twice", err->error,
		  err->error_count, EUCLEAN);
	WL_EXPECT(read(fd, u.buf, sizeof(u.buf)) < 0 && errno == EAGAIN,
		  "a second event: the later error should only be counted");
	close(fd);
	umount2(ML_BASE, MNT_DETACH);
	return WL_PASS;
}

static int unprivileged_fs_mark(void *arg)
{
	(void)arg;
	return ml_want_mark("uid 1000's filesystem mark for FAN_FS_ERROR", FAN_REPORT_FID,
			    FAN_MARK_FILESYSTEM, FAN_FS_ERROR, "/tmp", EPERM);
}

/* Filesystem errors are for the administrator: uid 1000 may not mark. */
static enum wl_result fs_error_mark_needs_cap_sys_admin(void)
{
	return ml_as_user(unprivileged_fs_mark, "uid 1000's FAN_FS_ERROR mark");
}

#define ML_UEVENT_DEV "/devices/virtual/mem/null"
#define ML_DMESG_RESTRICT "/proc/sys/kernel/dmesg_restrict"

struct uevent_listener {
	const struct wl_creds *creds;
	int ready[2];	/* the listener says it is bound */
};

static int uevent_listen(void *arg)
{
	struct uevent_listener *l = arg;
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = 1 };
	struct timeval tv = { .tv_sec = wl_debug_kernel() ? 20 : 5 };
	char buf[4096];
	int s, q;

	if (wl_drop_creds(l->creds))
		return WL_EXIT_NO_CREDS;
	/* The 2019 series' device watch follows the kernel log's rule: refused. */
	q = wl_wq_open(16);
	if (q < 0 || wl_want_errno("uid 1000's watch_devices() under kernel.dmesg_restrict",
				   wl_watch_devices(q, 1, 0), EPERM))
		return 1;
	s = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_KOBJECT_UEVENT);
	if (s < 0 || bind(s, (struct sockaddr *)&sa, sizeof(sa)) ||
	    setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv))) {
		wl_diag("uid %u: uevent socket: %s", getuid(), strerror(errno));
		return 1;
	}
	if (write(l->ready[1], "r", 1) != 1)
		return 1;
	for (;;) {
		ssize_t n = recv(s, buf, sizeof(buf) - 1, 0);

		if (n < 0) {
			wl_diag("uid %u heard no change@" ML_UEVENT_DEV ": %s", getuid(),
				strerror(errno));
			return 1;
		}
		buf[n] = '\0';
		if (!strcmp(buf, "change@" ML_UEVENT_DEV))
			return 0;
	}
}

/*
 * The device channel mainline has: a kobject uevent goes to every
 * NETLINK_KOBJECT_UEVENT socket, whoever opened it (NL_CFG_F_NONROOT_RECV),
 * and no LSM hook sees the delivery.  With kernel.dmesg_restrict set
 * (Debian's default), uid 1000, labelled bystander, may not watch_devices()
 * (the 2019 series, 0007: EPERM before any LSM), yet hears root's "change"
 * of /dev/null.
 */
static enum wl_result uevent_heard_where_watch_devices_refused(void)
{
	struct wl_creds user = wl_user(1000);
	struct uevent_listener l;
	char label[128], old_restrict[8], c;
	bool heard;
	pid_t pid;
	int status;

	if (strcmp(wl_profile(), "plain")) {
		WL_EXPECT(wl_label_lookup("bystander", label, sizeof(label)) == 0,
			  "the bystander's label");
		user.label = label;
	}
	WL_EXPECT(wl_read_file(ML_DMESG_RESTRICT, old_restrict, sizeof(old_restrict)) > 0,
		  "read %s", ML_DMESG_RESTRICT);
	WL_EXPECT(wl_write_file(ML_DMESG_RESTRICT, "1") == 0, "set kernel.dmesg_restrict");
	WL_EXPECT(pipe2(l.ready, O_CLOEXEC) == 0, "pipe: %s", strerror(errno));
	l.creds = &user;
	pid = wl_spawn(uevent_listen, &l);
	close(l.ready[1]);
	heard = pid > 0 && read(l.ready[0], &c, 1) == 1 &&
		wl_write_file("/sys" ML_UEVENT_DEV "/uevent", "change") == 0;
	status = pid > 0 ? wl_reap(pid, "the uevent listener") : -1;
	close(l.ready[0]);
	WL_EXPECT(wl_write_file(ML_DMESG_RESTRICT, old_restrict) == 0,
		  "restore kernel.dmesg_restrict");
	WL_EXPECT(heard && status == 0,
		  "uid 1000 refused watch_devices() and heard the change uevent");
	return WL_PASS;
}

/*
 * A mount-namespace mark shows in the group's fdinfo as "fanotify
 * mnt_ns:<the namespace's inode> ... mask:<its events>" (0027's line of
 * fanotify_fdinfo()).
 */
static enum wl_result mntns_fdinfo(void)
{
	static char info[4096];
	char path[64], ns[64], mask[32];
	struct stat st;
	ssize_t n;
	int fd;

	WL_EXPECT(stat("/proc/self/ns/mnt", &st) == 0, "stat /proc/self/ns/mnt: %s",
		  strerror(errno));
	fd = ml_mntns_group();
	WL_EXPECT(fd >= 0, "a mount-namespace group");
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	n = wl_read_file(path, info, sizeof(info));
	close(fd);
	WL_EXPECT(n > 0, "read %s: %s", path, strerror(errno));
	snprintf(ns, sizeof(ns), "fanotify mnt_ns:%lu mflags:", (unsigned long)st.st_ino);
	snprintf(mask, sizeof(mask), " mask:%x ", FAN_MNT_ATTACH | FAN_MNT_DETACH);
	WL_EXPECT(strstr(info, ns) && strstr(strstr(info, ns), mask),
		  "%s has no \"%s...%s\":\n%s", path, ns, mask, info);
	return WL_PASS;
}

static const struct wl_test mainline_tests[] = {
	{ "mntns_attach_move_detach", mntns_attach_move_detach },
	{ "mntns_attribute_changes_post_nothing", mntns_attribute_changes_post_nothing },
	{ "mntns_bad_arguments", mntns_bad_arguments },
	{ "mntns_fdinfo", mntns_fdinfo },
	{ "mntns_mark_needs_cap_sys_admin", mntns_mark_needs_cap_sys_admin },
	{ "mntns_userns_admin_watches_own_ns", mntns_userns_admin_watches_own_ns },
	{ "mntns_userns_admin_not_parent_ns", mntns_userns_admin_not_parent_ns },
	{ "mntns_userns_mark_not_nsfs_einval", mntns_userns_mark_not_nsfs_einval },
	{ "mntns_lsm_judges_the_watch", mntns_lsm_judges_the_watch },
	{ "fs_error_first_in_full_then_counted", fs_error_first_in_full_then_counted },
	{ "fs_error_mark_needs_cap_sys_admin", fs_error_mark_needs_cap_sys_admin },
	{ "uevent_heard_where_watch_devices_refused",
	  uevent_heard_where_watch_devices_refused },
};

WL_SUITE(suite_mainline, mainline_tests);
