// SPDX-License-Identifier: GPL-2.0
/*
 * suite_ring_limits.c - the /dev/watch_queue ring's pages are counted like
 * pipe buffers, against the opener's fs.pipe-user-pages-soft/-hard, and
 * charged to the opener whoever sizes the ring (issue 14, bug 5).
 *
 * With pipe-user-pages-hard at 20 pages, uid 1002 sizes one ring to 16
 * pages and opens a second; the second fd is then sized by uid 1003 (which
 * holds no pages): 8 more pages for 1002 is over the limit, EPERM, where a
 * kernel charging the caller (or nobody) says yes.  uid 1003's own ring of
 * 8 pages is fine; once 1002's first ring is closed, its 16 pages come back
 * and the second ring can be sized.  The same once the first ring held
 * watches: their references on the queue go with them.  An opener with
 * CAP_SYS_RESOURCE is exempt, as for pipes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
/* glibc's <fcntl.h> already defines what <linux/fcntl.h> would redefine. */
#define _LINUX_FCNTL_H
#include <linux/watch_queue.h>

#include "devices_util.h"
#include "vfs_util.h"
#include "wl.h"

#define HARD "/proc/sys/fs/pipe-user-pages-hard"
#define HARD_LIMIT "20"

static int ring_open(const char *who)
{
	int fd = open("/dev/watch_queue", O_RDWR | O_CLOEXEC);

	if (fd < 0)
		wl_diag("%s: open /dev/watch_queue: %s", who, strerror(errno));
	return fd;
}

/* SET_SIZE to pages; want 0 or an errno. */
static int ring_size(int fd, unsigned long pages, int want, const char *what)
{
	int r = ioctl(fd, IOC_WATCH_QUEUE_SET_SIZE, pages);
	int err = r ? errno : 0;

	if (err != want) {
		wl_diag("%s: SET_SIZE(%lu pages): %s, want %s", what, pages,
			err ? strerror(err) : "success", want ? strerror(want) : "success");
		return -1;
	}
	return 0;
}

static int set_ids(uid_t ruid, uid_t euid)
{
	/* Back to euid 0 first (the saved uid is 0), then to the new ids. */
	if (setresuid(-1, 0, -1) || setresuid(ruid, euid, 0)) {
		wl_diag("setresuid(%u, %u, 0): %s", ruid, euid, strerror(errno));
		return -1;
	}
	return 0;
}

/* Runs with ruid = euid = 1002 and the saved uid 0. */
static int charge_child(void *arg)
{
	int q0, q1, q2;

	(void)arg;
	q0 = ring_open("uid 1002");
	q1 = ring_open("uid 1002");
	if (q0 < 0 || q1 < 0)
		return 1;
	if (ring_size(q0, 16, 0, "uid 1002's first ring, 16 of its 20 pages"))
		return 1;
	if (set_ids(1003, 1003))
		return 1;
	if (ring_size(q1, 8, EPERM,
		      "uid 1003 sizing uid 1002's second ring: 16 + 8 pages over 1002's 20"))
		return 1;
	q2 = ring_open("uid 1003");
	if (q2 < 0 || ring_size(q2, 8, 0, "uid 1003's own ring of 8 pages"))
		return 1;
	close(q2);
	close(q0);
	/* The queue is freed at once (no watches): 1002's 16 pages are back. */
	if (ring_size(q1, 8, 0, "uid 1002's second ring once its first is closed"))
		return 1;
	close(q1);
	return 0;
}

/*
 * Runs as uid 1002: a ring that held watches (a mount's, twice: the second
 * is refused, EBUSY, and a superblock's) gives its 16 pages back once it is
 * closed and its watches are gone.  Their references on the queue are
 * dropped after an RCU grace period, so the second ring is sized again until
 * that has passed (bounded).  A set-watch call that kept its reference on
 * the queue would leave the pages charged to 1002 for good: EPERM.
 */
static int watched_child(void *arg)
{
	int q0, q1, err = EPERM;

	(void)arg;
	q0 = ring_open("uid 1002");
	q1 = ring_open("uid 1002");
	if (q0 < 0 || q1 < 0 ||
	    ring_size(q0, 16, 0, "uid 1002's watched ring, 16 of its 20 pages"))
		return 1;
	if (wl_watch_mount(AT_FDCWD, "/", 0, q0, 1) || wl_watch_sb(AT_FDCWD, "/", 0, q0, 2)) {
		wl_diag("uid 1002 watches / on its ring: %s", strerror(errno));
		return 1;
	}
	if (wl_watch_mount(AT_FDCWD, "/", 0, q0, 3) != -1 || errno != EBUSY) {
		wl_diag("a second watch on / from the same ring: %s, want EBUSY",
			strerror(errno));
		return 1;
	}
	close(q0);
	for (int i = 0; i < 100 && err == EPERM; i++) {
		err = ioctl(q1, IOC_WATCH_QUEUE_SET_SIZE, 8UL) ? errno : 0;
		if (err == EPERM)
			usleep(wl_slow_ms(50) * 1000);
	}
	if (err) {
		wl_diag("uid 1002's second ring once the watched one is closed: %s, want success (its 16 pages are still charged)",
			strerror(err));
		return 1;
	}
	close(q1);
	return 0;
}

static enum wl_result with_hard_limit(int (*fn)(void *), const struct wl_creds *c)
{
	char old[32];
	int r;

	if (wl_read_file(HARD, old, sizeof(old)) < 0 || wl_write_file(HARD, HARD_LIMIT))
		return WL_FAIL;
	r = c ? wl_run_as(c, fn, NULL) : fn(NULL);
	if (wl_write_file(HARD, old))
		return WL_FAIL;
	return r == 0 ? WL_PASS : WL_FAIL;
}

static enum wl_result ring_pages_charged_to_opener(void)
{
	struct wl_creds c = wl_user(1002);

	c.suid = 0;
	return with_hard_limit(charge_child, &c);
}

static enum wl_result watched_ring_pages_come_back(void)
{
	struct wl_creds c = wl_user(1002);

	c.suid = 0;
	return with_hard_limit(watched_child, &c);
}

/* As root (CAP_SYS_RESOURCE): two 16-page rings despite the 20-page limit. */
static int privileged_child(void *arg)
{
	int q0 = ring_open("root"), q1 = ring_open("root");

	(void)arg;
	if (q0 < 0 || q1 < 0 ||
	    ring_size(q0, 16, 0, "root's first ring") ||
	    ring_size(q1, 16, 0, "root's second ring, over the limit but exempt"))
		return 1;
	close(q0);
	close(q1);
	return 0;
}

static enum wl_result privileged_opener_exempt(void)
{
	return with_hard_limit(privileged_child, NULL);
}

static const struct wl_test tests[] = {
	{ "ring_pages_charged_to_opener", ring_pages_charged_to_opener },
	{ "watched_ring_pages_come_back", watched_ring_pages_come_back },
	{ "privileged_opener_exempt", privileged_opener_exempt },
};

WL_SUITE(suite_ring_limits, tests);
