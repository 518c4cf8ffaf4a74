// SPDX-License-Identifier: GPL-2.0
/*
 * observe_mainline.c - the mainline column's watcher: the row's event
 * observed through what mainline merged instead of the 2019 series
 * (scenario_mainline.c says which mechanism, and what to expect).
 *
 * Each mechanism sets its watch as the watcher, before the action, and
 * reads after it up to a fence the runner raises once the triggerer is
 * done (scn_mainline_fence), so that "not delivered" is an event that did
 * not come before one that came after it:
 * - a mount-namespace mark: the fence is a tmpfs mounted and unmounted in
 *   the watched namespace (the triggerer's, for a watch-via row);
 * - a filesystem mark: no fence; ext4 reports an error before the failing
 *   call returns (ext4_error -> fsnotify_sb_error), so the event is queued
 *   by the time the triggerer is done;
 * - a uevent socket: "change" written to /dev/null's uevent file; hub_wq's
 *   later events are waited for as the watch_queue reader waits for async
 *   ones.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/netlink.h>
/* <linux/watch_queue.h> wants the kernel's fcntl.h, which clashes with libc's. */
#define _LINUX_FCNTL_H
#include <linux/watch_queue.h>

#include "devices_util.h"
#include "scenario_run.h"
#include "vfs_util.h"
#include "wl.h"

#define FENCE_UEVENT_DEV "/devices/virtual/mem/null"

/* The mount namespace file of the namespace the row's event happens in. */
static void mntns_path(const struct scn_ctx *c, char *buf, size_t len)
{
	/* watch-via: c->via is "/proc/PID/root" of T, in its own namespace. */
	if (c->via[0])
		snprintf(buf, len, "%.*s/ns/mnt", (int)(strlen(c->via) - strlen("/root")), c->via);
	else
		snprintf(buf, len, "/proc/self/ns/mnt");
}

static int mntns_watch(const struct scn_ctx *c)
{
	char ns[64];
	int fd = fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_MNT | FAN_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	mntns_path(c, ns, sizeof(ns));
	if (fanotify_mark(fd, FAN_MARK_ADD | FAN_MARK_MNTNS, FAN_MNT_ATTACH | FAN_MNT_DETACH,
			  AT_FDCWD, ns)) {
		int err = errno;

		close(fd);
		return -err;
	}
	return fd;
}

static int fs_error_watch(const struct scn_ctx *c)
{
	char path[128];
	int fd = fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_FID | FAN_CLOEXEC | FAN_NONBLOCK, 0);

	if (fd < 0)
		return -errno;
	scn_object_path(c, path, sizeof(path));
	if (fanotify_mark(fd, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_FS_ERROR, AT_FDCWD, path)) {
		int err = errno;

		close(fd);
		return -err;
	}
	return fd;
}

static int uevent_watch(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = 1 };
	int s = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_KOBJECT_UEVENT);

	if (s < 0)
		return -errno;
	if (bind(s, (struct sockaddr *)&sa, sizeof(sa))) {
		int err = errno;

		close(s);
		return -err;
	}
	return s;
}

int scn_mainline_watch(struct scn_ctx *c)
{
	switch (c->mech) {
	case SCN_MECH_FANOTIFY_MNTNS:
		return mntns_watch(c);
	case SCN_MECH_FANOTIFY_FS_ERROR:
		return fs_error_watch(c);
	case SCN_MECH_UEVENT:
		return uevent_watch();
	default:
		wl_diag("%s: no mainline watch for mechanism %s", c->s->name,
			scn_mechanism_name(c->mech));
		return -EINVAL;
	}
}

/*
 * As the runner, in a child in the watched namespace: mount a tmpfs at a
 * new directory and take it away again.  The fence's unique mount ID, or
 * 0 (diagnosed).
 */
static uint64_t mntns_fence(const struct scn_ctx *c)
{
	char ns[64];
	int p[2];
	pid_t pid;
	uint64_t id = 0;

	mntns_path(c, ns, sizeof(ns));
	if (pipe2(p, O_CLOEXEC)) {
		wl_diag("pipe: %s", strerror(errno));
		return 0;
	}
	pid = fork();
	if (pid == 0) {
		char dir[] = "/tmp/wlfence.XXXXXX";
		int nsfd = open(ns, O_RDONLY | O_CLOEXEC);

		if (nsfd < 0 || (c->via[0] && setns(nsfd, CLONE_NEWNS)) || !mkdtemp(dir) ||
		    mount("wlfence", dir, "tmpfs", 0, NULL)) {
			wl_diag("the fence mount in %s: %s", ns, strerror(errno));
			_exit(1);
		}
		id = wl_mnt_id(dir, true);
		if (write(p[1], &id, sizeof(id)) != sizeof(id))
			_exit(1);
		umount(dir);
		rmdir(dir);
		_exit(0);
	}
	close(p[1]);
	if (pid < 0 || read(p[0], &id, sizeof(id)) != sizeof(id))
		id = 0;
	close(p[0]);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	return id;
}

/* The mount-namespace event the row's action raises: the mask bit it carries. */
static uint64_t mntns_want(const struct scn_ctx *c)
{
	switch (c->s->ev_subtype) {
	case NOTIFY_MOUNT_NEW_MOUNT:
	case NOTIFY_MOUNT_MOVE_TO:
		return FAN_MNT_ATTACH;
	default:
		return FAN_MNT_DETACH;	/* unmount, expiry, move-from */
	}
}

/*
 * One read's events, each one metadata block and one MNT record: 1 when
 * the fence's ATTACH is among them, 0 if not, -1 on a malformed event.
 */
static int mntns_events(const char *buf, ssize_t n, uint64_t fence, uint64_t want,
			bool *delivered)
{
	const struct fanotify_event_metadata *md;
	const struct fanotify_event_info_mnt *info;
	int seen = 0;

	for (ssize_t off = 0; off < n; off += md->event_len) {
		md = (const void *)(buf + off);
		info = (const void *)(buf + off + sizeof(*md));
		if (n - off < (ssize_t)(sizeof(*md) + sizeof(*info)) ||
		    md->event_len != sizeof(*md) + sizeof(*info) ||
		    info->hdr.info_type != FAN_EVENT_INFO_TYPE_MNT) {
			wl_diag("watcher: a mount event at %zd of %zd bytes is not one "
				"metadata block and one MNT record", off, n);
			return -1;
		}
		if (info->mnt_id == fence && (md->mask & FAN_MNT_ATTACH))
			seen = 1;
		else if (!seen && info->mnt_id != fence && (md->mask & want))
			*delivered = true;
	}
	return seen;
}

static int mntns_drain(const struct scn_ctx *c, int fd, uint64_t fence, bool *delivered)
{
	uint64_t want = mntns_want(c);
	long deadline = wl_now_ms() + wl_slow_ms(5000);

	for (;;) {
		char buf[4096] __attribute__((aligned(8)));
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		long left = deadline - wl_now_ms();
		ssize_t n;
		int r;

		if (left <= 0 || poll(&pfd, 1, (int)left) != 1) {
			wl_diag("watcher: the fence mount's FAN_MNT_ATTACH never arrived");
			return -1;
		}
		n = read(fd, buf, sizeof(buf));
		if (n < 0) {
			wl_diag("watcher: read the mount events: %s", strerror(errno));
			return -1;
		}
		r = mntns_events(buf, n, fence, want, delivered);
		if (r)
			return r < 0 ? -1 : 0;
	}
}

static int fs_error_drain(int fd, bool *delivered)
{
	union {
		struct fanotify_event_metadata md;
		char buf[512];
	} u;
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	ssize_t n;

	/* Queued before the failing call returned: no wait is needed; a short one is kept. */
	if (poll(&pfd, 1, WL_EVENT_TIMEOUT_MS) != 1)
		return 0;
	n = read(fd, u.buf, sizeof(u.buf));
	if (n < (ssize_t)sizeof(u.md) || u.md.event_len > n) {
		wl_diag("watcher: read a filesystem error event: %zd (%s)", n,
			n < 0 ? strerror(errno) : "short");
		return -1;
	}
	*delivered = u.md.mask == FAN_FS_ERROR;
	return 0;
}

/* Whether a uevent's "ACTION@DEVPATH" is the row's event. */
static bool uevent_is(const struct scn_ctx *c, const char *hdr)
{
	const char *at = strchr(hdr, '@'), *last = strrchr(hdr, '/');
	bool add = !strncmp(hdr, "add@", 4), remove = !strncmp(hdr, "remove@", 7);

	if (!at || !last)
		return false;
	switch (c->s->ev_subtype) {
	case NOTIFY_USB_DEVICE_ADD:
		return add && !strcmp(last + 1, c->usb.name);
	case NOTIFY_USB_DEVICE_REMOVE:
		return remove && !strcmp(last + 1, c->usb.name);
	case NOTIFY_USB_BUS_ADD:
		return add && !strncmp(last + 1, "usb", 3) && !strchr(last + 1, ':');
	case NOTIFY_USB_BUS_REMOVE:
		return remove && !strncmp(last + 1, "usb", 3) && !strchr(last + 1, ':');
	default:
		return false;
	}
}

static int uevent_drain(const struct scn_ctx *c, int s, bool *delivered)
{
	long deadline = wl_now_ms() + wl_slow_ms(5000), settle = 0;
	bool fence = false;

	for (;;) {
		long left = (settle ? settle : deadline) - wl_now_ms();
		struct pollfd pfd = { .fd = s, .events = POLLIN };
		char buf[4096];
		ssize_t n;

		if (left <= 0 || (fence && *delivered))
			break;
		if (poll(&pfd, 1, (int)left) != 1)
			break;
		n = recv(s, buf, sizeof(buf) - 1, 0);
		if (n < 0) {
			wl_diag("watcher: uevent socket: %s", strerror(errno));
			return -1;
		}
		buf[n] = '\0';
		if (!strcmp(buf, "change@" FENCE_UEVENT_DEV) && !fence) {
			fence = true;
			/* hub_wq (dis)connects later than the action returns: as drain(). */
			settle = wl_now_ms() + (wl_debug_kernel() ? 9000 : 3000);
		} else if (uevent_is(c, buf)) {
			*delivered = true;
		}
	}
	if (!fence) {
		wl_diag("watcher: the fence uevent never arrived");
		return -1;
	}
	return 0;
}

int scn_mainline_drain(struct scn_ctx *c, int fd, uint64_t fence, bool *delivered)
{
	*delivered = false;
	switch (c->mech) {
	case SCN_MECH_FANOTIFY_MNTNS:
		return mntns_drain(c, fd, fence, delivered);
	case SCN_MECH_FANOTIFY_FS_ERROR:
		return fs_error_drain(fd, delivered);
	case SCN_MECH_UEVENT:
		return uevent_drain(c, fd, delivered);
	default:
		return -1;
	}
}

int64_t scn_mainline_fence(struct scn_ctx *c)
{
	switch (c->mech) {
	case SCN_MECH_FANOTIFY_MNTNS: {
		uint64_t id = mntns_fence(c);

		return id ? (int64_t)id : -1;
	}
	case SCN_MECH_UEVENT:
		return wl_write_file("/sys" FENCE_UEVENT_DEV "/uevent", "change") ? -1 : 0;
	default:
		return 0;
	}
}
